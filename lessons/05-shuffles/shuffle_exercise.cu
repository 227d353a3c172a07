/* Lesson 5 exercise: the shared-memory tree reduction of gpu/kernels/reduction.cu.
 *
 * Every step of the tree goes through shared memory and a __syncthreads(), even the last five,
 * where only one warp is still working.
 * Task: keep the name and the result (each block writes the sum of its blockDim.x words), but
 * use warp shuffles (__shfl_down_sync / __shfl_xor_sync with the full mask 0xffffffff) so that
 * far fewer barriers are executed. One way: each warp sums its 32 values with 5 shuffles, lane 0
 * writes the warp's sum to shared memory, and warp 0 sums those.
 * Check: warplab lesson 5 --check YOUR_COPY.cu
 * Launch: --block 256 --smem 1024 (4 bytes per thread). */
#include "wl_probe.h"

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
