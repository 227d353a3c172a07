// Device functions with call (noinline), local arrays, switch, double math, recursion.
__device__ __noinline__ float helper(float a, int b)
{
    float s = 0.0f;
    for (int i = 0; i < b; ++i) s += a * i;
    return s;
}
__device__ __noinline__ void no_ret(int *p, int v) { if (v > 3) *p = v; }
__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

struct Pair { double a; int b; };
__device__ __noinline__ Pair mkpair(double a, int b) { Pair p = {a * 2.0, b + 1}; return p; }

extern "C" __global__ void call_kernel(float *out, int *iout, double *dout, int k)
{
    int t = threadIdx.x;
    out[t] = helper((float)t, k);
    no_ret(iout + t, t);
    iout[t] += fact(t & 7);
    Pair p = mkpair((double)t, k);
    dout[t] = p.a + p.b;
}

extern "C" __global__ void local_array(int *out, const int *idx, int n)
{
    int a[24];
    for (int i = 0; i < 24; ++i) a[i] = i * n;
    out[threadIdx.x] = a[idx[threadIdx.x] % 24];
}

extern "C" __global__ void switch_kernel(int *out, const int *in)
{
    int v = in[threadIdx.x];
    int r;
    switch (v & 7) {
    case 0: r = v * 3; break;
    case 1: r = v + 11; break;
    case 2: r = v ^ 0x55; break;
    case 3: r = v << 2; break;
    case 5: r = -v; break;
    case 6: r = v / 7; break;
    default: r = v % 13;
    }
    out[threadIdx.x] = r;
}

extern "C" __global__ void double_math(double *out, const double *in, float *fout)
{
    int t = threadIdx.x;
    double x = in[t];
    out[t] = sqrt(x) + exp(x) + log(x + 1.0) + sin(x) * cos(x) + pow(x, 1.5) + x / 3.0 + fma(x, x, 1.0);
    float f = (float)x;
    fout[t] = __expf(f) + __logf(f + 1.0f) + __sinf(f) + __cosf(f) + rsqrtf(f) + tanhf(f) + f / 3.0f
            + __fdividef(f, 7.0f) + sqrtf(f) + (float)(int)f + rintf(f) + floorf(f) + ceilf(f) + truncf(f)
            + fminf(f, 2.0f) + fmaxf(f, 1.0f) + fabsf(f) + copysignf(f, -1.0f) + (isnan(f) ? 1.0f : 0.0f)
            + __saturatef(f) + (float)(unsigned)(x * 3.0) + (float)(long long)x + __int_as_float(__float_as_int(f) ^ 1);
}

extern "C" __global__ void early_exit(int *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    if (t & 1) {
        if (t & 2) out[t] = 1; else out[t] = 2;
    } else {
        for (int i = 0; i < t; ++i) { if (out[i] < 0) break; out[t] += i; }
    }
}
