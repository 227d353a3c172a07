// Kernels for tests/test_run_cli.c (warplab run end to end).
// Regenerate: nvcc -ptx -arch=sm_90 -o run_kernels.ptx run_kernels.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

// y[i] = a * x[i] + y[i]
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// One parameter of every scalar width, and a pointer: out[i] = b + h + w + d (as double).
extern "C" __global__ void widths(uint8_t b, int16_t h, uint32_t w, double d, double *out)
{
    out[threadIdx.x] = (double)b + (double)h + (double)w + d;
}

// Counts blocks: one atomic per block (the 1,000,000-block grid test).
extern "C" __global__ void count_blocks(unsigned *counter)
{
    if (threadIdx.x == 0)
        atomicAdd(counter, 1u);
}

// Writes x[threadIdx.x + off]: off = 1 overruns a 32-element buffer by one element.
extern "C" __global__ void overrun(float *x, int off)
{
    x[threadIdx.x + off] = 1.0f;
}

struct pair { int a, b; };
// A by-value struct parameter (an aggregate --arg cannot fill).
extern "C" __global__ void by_value(pair p, int *out)
{
    out[0] = p.a + p.b;
}

// Dynamic shared memory: out[i] = in[i] reversed within the block.
extern "C" __global__ void reverse_smem(const int *in, int *out)
{
    extern __shared__ int s[];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
}

// A device function (.func): not launchable by name.
extern "C" __device__ __noinline__ int twice(int v)
{
    return 2 * v;
}
extern "C" __global__ void call_twice(int *p)
{
    p[threadIdx.x] = twice(p[threadIdx.x]);
}

// 16-bit floats: y[i] = x[i] * s + b, in half (s, a __half by value: a 2-byte aggregate
// parameter) and in bfloat16 (b), with one rounding per operation.
extern "C" __global__ void halves(const __half *x, __half s, __nv_bfloat16 b, __nv_bfloat16 *y,
                                  int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = __hadd(__float2bfloat16(__half2float(__hmul(x[i], s))), b);
}
