// Small kernels for the executor's tests (tests/test_exec_kernels.c checks each against a C
// reference). Regenerate the PTX with: nvcc -ptx -arch=sm_90 -lineinfo basic.cu -o basic.ptx
#include <cstdint>

extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy2d(float alpha, const float *x, float *y, int w, int h)
{
    int cx = blockIdx.x * blockDim.x + threadIdx.x;
    int cy = blockIdx.y * blockDim.y + threadIdx.y;
    if (cx < w && cy < h)
        y[cy * w + cx] = alpha * x[cy * w + cx] + y[cy * w + cx];
}

// Nested divergence, lane-dependent loops, early exit.
extern "C" __global__ void diverge(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int r = 0;
    if (v & 1) {
        if (v & 2)
            r = v * 3;
        else
            r = v - 7;
    } else {
        for (int k = 0; k < (v & 15); k++)
            r += k * v;
        if (r > 100)
            return; // early exit of some lanes: out[i] keeps its old value
    }
    int c = 0;
    while (v > 1) { // Collatz steps: a lane-dependent trip count
        v = (v & 1) ? 3 * v + 1 : v / 2;
        c++;
    }
    out[i] = r + c;
}

// Shared-memory tree reduction with __syncthreads, then a warp-shuffle stage.
extern "C" __global__ void reduce(const int *in, int *out, int n)
{
    extern __shared__ int s[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + t;
    int v = 0;
    if (i < n)
        v += in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 32; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t < 32) {
        v = s[t] + (blockDim.x > 32 ? s[t + 32] : 0);
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (t == 0)
            atomicAdd(out, v);
    }
}

// Atomics on shared and global memory.
extern "C" __global__ void histo(const unsigned *in, unsigned *hist, int *mx, unsigned *cas, int n)
{
    __shared__ unsigned sh[16];
    if (threadIdx.x < 16)
        sh[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned v = in[i];
        atomicAdd(&sh[v & 15], 1u);
        atomicMax(mx, (int)v);
        atomicMin(mx + 1, (int)v);
        atomicXor((unsigned *)mx + 2, v);
        atomicInc(cas + 1, 7u);
        unsigned old = atomicCAS(cas, 0u, v + 1);
        (void)old;
    }
    __syncthreads();
    if (threadIdx.x < 16)
        atomicAdd(&hist[threadIdx.x], sh[threadIdx.x]);
}

// Warp-wide primitives.
extern "C" __global__ void warpops(const int *in, unsigned *out)
{
    int t = threadIdx.x;
    int v = in[t];
    unsigned *o = out + (blockIdx.x * blockDim.x + t) * 8;
    o[0] = __ballot_sync(0xffffffffu, v > 10);
    o[1] = __all_sync(0xffffffffu, v >= 0);
    o[2] = __any_sync(0xffffffffu, v == 7);
    o[3] = __shfl_sync(0xffffffffu, v, (t * 7) & 31);
    o[4] = __shfl_up_sync(0xffffffffu, v, 3, 16);
    o[5] = __shfl_xor_sync(0xffffffffu, v, 5);
    o[6] = __match_any_sync(0xffffffffu, v & 3);
    o[7] = __reduce_add_sync(0xffffffffu, v) + __reduce_max_sync(0xffffffffu, (unsigned)v);
    if (v & 1)
        o[0] |= __activemask() & 0x80000000u ? 0 : 0; // divergent activemask (value unused)
}

__device__ __noinline__ int poly(int x, int k, int *scratch)
{
    int acc = 0;
    for (int j = 0; j < k; j++) {
        scratch[j & 7] = acc;
        acc = acc * x + j + scratch[(j * 3) & 7];
    }
    return acc;
}

// A non-inlined device call with parameters and a return value; local-memory arrays.
extern "C" __global__ void calls(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local[8] = {0};
    if (i < n) {
        int x = in[i];
        int r = (x & 1) ? poly(x, x & 7, local) : -poly(x, 3, local);
        out[i] = r + local[x & 7];
    }
}

// Integer bit manipulation and division edge cases.
extern "C" __global__ void intops(const unsigned *a, const unsigned *b, unsigned *out)
{
    int i = threadIdx.x;
    unsigned x = a[i], y = b[i];
    unsigned *o = out + i * 12;
    o[0] = __popc(x);
    o[1] = __clz(x);
    o[2] = __brev(x);
    o[3] = __umulhi(x, y);
    o[4] = (unsigned)__mulhi((int)x, (int)y);
    o[5] = __byte_perm(x, y, y & 0x7777);
    o[6] = (unsigned)__mul24((int)x, (int)y);
    o[7] = y ? x / y : 0;
    o[8] = y ? (unsigned)((int)x % (int)(y | 1)) : 1;
    o[9] = (x >> (y & 31)) | (x << ((32 - (y & 31)) & 31));
    o[10] = __funnelshift_l(x, y, i);
    o[11] = (unsigned)(((unsigned long long)x * y) >> 7);
}

// Float math with the approximate SFU functions (fast-math intrinsics).
extern "C" __global__ void fmath(const float *a, float *out)
{
    int i = threadIdx.x;
    float x = a[i];
    float *o = out + i * 8;
    o[0] = __expf(x);
    o[1] = __logf(fabsf(x) + 1.0f);
    o[2] = __sinf(x);
    o[3] = __cosf(x);
    o[4] = rsqrtf(fabsf(x) + 0.5f);
    o[5] = sqrtf(fabsf(x));
    o[6] = __fdividef(x, 3.0f);
    o[7] = fmaf(x, x, -1.0f) / (x + 4.0f);
}

// Double precision and conversions.
extern "C" __global__ void dmath(const double *a, double *out, int *iout)
{
    int i = threadIdx.x;
    double x = a[i];
    out[i * 3] = x * x + 1.0 / (x + 3.0);
    out[i * 3 + 1] = sqrt(fabs(x)) + (double)(float)x;
    out[i * 3 + 2] = (double)(long long)(x * 1000.0);
    iout[i * 3] = (int)x;
    iout[i * 3 + 1] = __double2int_rn(x);
    iout[i * 3 + 2] = (int)(unsigned)(x * 10.0);
}

// 2-D block with __syncthreads transposing a tile through shared memory.
extern "C" __global__ void transpose(const float *in, float *out, int w, int h)
{
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    if (x < w && y < h)
        tile[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    x = blockIdx.y * 16 + threadIdx.x;
    y = blockIdx.x * 16 + threadIdx.y;
    if (x < h && y < w)
        out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}

// Faults and deadlocks.
extern "C" __global__ void oob(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i + n] = i; // writes past the end when n == allocation size
}

extern "C" __global__ void misaligned(char *p)
{
    *(int *)(p + 1 + threadIdx.x * 4) = 1;
}

extern "C" __global__ void divergent_sync(int *p)
{
    if (threadIdx.x < 16)
        __syncthreads();
    p[threadIdx.x] = 1;
}

extern "C" __global__ void spin(volatile int *p)
{
    while (p[0] == 0)
        ;
}

extern "C" __global__ void shared_oob(int *p, int k)
{
    __shared__ int s[64];
    s[threadIdx.x + k] = 1;
    __syncthreads();
    p[threadIdx.x] = s[threadIdx.x];
}

// Arithmetic-heavy loop for the speed benchmark (tests/bench_exec.c).
extern "C" __global__ void busy(float *out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = (float)i * 0.001f, b = 1.0f;
    unsigned h = (unsigned)i;
    for (int k = 0; k < iters; k++) {
        a = fmaf(a, 0.999f, 0.5f);
        b = b * 1.0001f + a;
        h = (h ^ (h >> 7)) * 0x9e3779b1u + (unsigned)k;
    }
    out[i] = a + b + (float)(h & 0xffff);
}

// Recursion (a device function calling itself through the call stack).
__device__ __noinline__ unsigned long long fact(unsigned n)
{
    return n <= 1 ? 1ull : n * fact(n - 1);
}

extern "C" __global__ void recurse(unsigned long long *out)
{
    out[threadIdx.x] = fact(threadIdx.x % 21);
}
