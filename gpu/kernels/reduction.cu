/* Reductions (lesson topics 4 and 5): each block sums blockDim.x consecutive 32-bit words
 * (wrapping unsigned addition, so the result does not depend on the order) and writes its sum
 * to out[blockIdx.x]. Three ways to do the in-block tree:
 *   red_interleaved  stride doubles, `if (tid % (2*s) == 0)`: divergent warps, a modulo per step,
 *                    and 2-, 4-, ... way shared-memory bank conflicts
 *   red_sequential   stride halves, `if (tid < s)`: contiguous active threads, conflict-free
 *   red_shuffle      warp shuffles (5 __shfl_down_sync steps), lane 0 of each warp writes one
 *                    word to shared memory, warp 0 reduces those
 * Launch with --smem = 4 x blockDim.x bytes (blockDim.x a power of two, 64..1024). */
#include "wl_probe.h"

extern "C" __global__ void red_interleaved(const unsigned *in, unsigned *out)
{
    extern __shared__ unsigned red_s[];
    WL_PROBE_BEGIN();
    unsigned tid = threadIdx.x;
    red_s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            red_s[tid] += red_s[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = red_s[0];
    WL_PROBE_END();
}

extern "C" __global__ void red_sequential(const unsigned *in, unsigned *out)
{
    extern __shared__ unsigned red_s[];
    WL_PROBE_BEGIN();
    unsigned tid = threadIdx.x;
    red_s[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            red_s[tid] += red_s[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = red_s[0];
    WL_PROBE_END();
}

static __device__ __forceinline__ unsigned red_warp_sum(unsigned v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffU, v, off);
    return v;
}

extern "C" __global__ void red_shuffle(const unsigned *in, unsigned *out)
{
    extern __shared__ unsigned red_s[];
    WL_PROBE_BEGIN();
    unsigned tid = threadIdx.x;
    unsigned v = red_warp_sum(in[blockIdx.x * blockDim.x + tid]);
    if (tid % 32 == 0)
        red_s[tid / 32] = v;
    __syncthreads();
    if (tid < 32) {
        v = tid < blockDim.x / 32 ? red_s[tid] : 0;
        v = red_warp_sum(v);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
    WL_PROBE_END();
}
