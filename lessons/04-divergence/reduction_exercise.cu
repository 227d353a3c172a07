/* Lesson 4 exercise: the interleaved reduction of gpu/kernels/reduction.cu.
 *
 * `if (tid % (2 * s) == 0)` keeps every other thread busy, then every fourth...: in each warp the
 * active lanes are scattered. The body of the `if` is so short that ptxas predicates it rather
 * than branching (no warp splits: every warp issues it with the other lanes switched off), and
 * the words still fall in distinct shared-memory banks; what this version pays for is the `%`,
 * an integer remainder by a variable, 17 instructions of machine code in every step.
 * Task: keep the name and the result (each block writes the sum of its blockDim.x words), but
 * make the active threads contiguous and drop the `%` (hint: halve the stride and use
 * `if (tid < s)`). Check: warplab lesson 4 --check YOUR_COPY.cu
 * Launch: --block 256 --smem 1024 (4 bytes per thread). */
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
