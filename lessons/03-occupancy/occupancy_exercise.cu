/* Lesson 3 exercise: the 80-register kernel of gpu/kernels/occupancy_regs.cu (37.5% occupancy).
 *
 * Task: add __launch_bounds__(MAX_THREADS, MIN_BLOCKS) to or_regs_free so that at least 4
 * blocks of 256 threads fit on one SM (50% occupancy or more). Keep the name and the body.
 * Check:  warplab lesson 3 --check occupancy_exercise.cu   (or your copy of it)
 * Then predict from the lesson's table whether it is faster on the H200, and why. */
#include "wl_probe.h"

#define OR_WORDS 72

static __device__ __forceinline__ void or_body(const unsigned *in, unsigned *out, int n,
                                               int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned v[OR_WORDS];
#pragma unroll
        for (int j = 0; j < OR_WORDS; ++j)
            v[j] = in[(size_t)j * n + i];
        for (int r = 0; r < rounds; ++r) {
#pragma unroll
            for (int j = 0; j < OR_WORDS; ++j)
                v[j] = v[j] * 2654435761U + (v[(j + 29) % OR_WORDS] ^ (v[(j + 53) % OR_WORDS] >> 3));
        }
        unsigned s = 0;
#pragma unroll
        for (int j = 0; j < OR_WORDS; ++j)
            s ^= v[j] + (unsigned)j;
        out[i] = s;
    }
}

extern "C" __global__ void or_regs_free(const unsigned *in, unsigned *out, int n, int rounds)
{
    WL_PROBE_BEGIN();
    or_body(in, out, n, rounds);
    WL_PROBE_END();
}
