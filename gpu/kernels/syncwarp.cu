/* __syncwarp and independent thread scheduling (lesson topic 6).
 *   its_swap      the two half-warps exchange values through shared memory every iteration,
 *                 each inside its own branch of a divergent if: the __syncwarp() calls sit at
 *                 different places in the code, which is legal only since Volta (each lane has
 *                 its own program counter); without them the exchange would race
 *   its_warp_sum  a per-warp tree sum in shared memory with __syncwarp() between the steps
 *                 instead of relying on the warp running in lockstep (the pre-Volta idiom);
 *                 out[global warp index] = sum of the warp's 32 words
 * Blocks of at most 1024 threads, a multiple of 32. */
#include "wl_probe.h"

extern "C" __global__ void its_swap(const unsigned *in, unsigned *out, int iters)
{
    __shared__ unsigned s[1024];
    WL_PROBE_BEGIN();
    unsigned tid = threadIdx.x, lane = tid % 32;
    unsigned gi = blockIdx.x * blockDim.x + tid;
    unsigned x = in[gi];
    for (int k = 0; k < iters; ++k) {
        if (lane < 16) {
            s[tid] = x;
            __syncwarp();
            x = s[tid + 16] + (unsigned)k;
            __syncwarp();
        } else {
            s[tid] = x * 3U;
            __syncwarp();
            x = s[tid - 16] ^ (unsigned)k;
            __syncwarp();
        }
    }
    out[gi] = x;
    WL_PROBE_END();
}

extern "C" __global__ void its_warp_sum(const unsigned *in, unsigned *out)
{
    __shared__ unsigned s[1024];
    WL_PROBE_BEGIN();
    unsigned tid = threadIdx.x, lane = tid % 32;
    unsigned gi = blockIdx.x * blockDim.x + tid;
    s[tid] = in[gi];
    __syncwarp();
    for (unsigned off = 16; off > 0; off >>= 1) {
        if (lane < off)
            s[tid] += s[tid + off];
        __syncwarp();
    }
    if (lane == 0)
        out[gi / 32] = s[tid];
    WL_PROBE_END();
}
