/* Occupancy vs registers (lesson topic 3): one body, three register budgets.
 *
 * Each thread loads 72 words (coalesced, 72 separate arrays of n words) and mixes them for a few
 * rounds with every word depending on two others, so all 72 stay live: the free version needs
 * many registers (nvcc 13.0 for sm_90: 80, no spills: 3 blocks of 256 per SM, 37.5%);
 * __launch_bounds__(256, 4) caps it at 64 registers (50%, a few hundred bytes of spills);
 * __launch_bounds__(256, 8) at 32 (100%, ~1 KB of spill stores per thread to local memory:
 * LDL/STL). Higher occupancy is not always faster: the spilling versions pay local-memory
 * traffic. */
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

extern "C" __global__ void __launch_bounds__(256, 4)
or_regs_lb4(const unsigned *in, unsigned *out, int n, int rounds)
{
    WL_PROBE_BEGIN();
    or_body(in, out, n, rounds);
    WL_PROBE_END();
}

extern "C" __global__ void __launch_bounds__(256, 8)
or_regs_lb8(const unsigned *in, unsigned *out, int n, int rounds)
{
    WL_PROBE_BEGIN();
    or_body(in, out, n, rounds);
    WL_PROBE_END();
}
