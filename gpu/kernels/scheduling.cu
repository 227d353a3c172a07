/* Block scheduling across the GPU (lesson topic 10): waves and the tail effect.
 *   sched_uniform  every block does the same work (iters loop iterations per thread): with
 *                  1024-thread blocks two fit per SM, so a wave is 264 blocks on the H200;
 *                  264 blocks take one wave, 265 take two (one lonely tail block), 528 two
 *   sched_uneven   block b runs iters x ((b % 8) + 1) / 8 iterations: big uneven blocks leave
 *                  SMs idle at the end; many small blocks balance better
 * Each thread writes one word: out[global thread index]. */
#include "wl_math.h"
#include "wl_probe.h"

extern "C" __global__ void sched_uniform(unsigned *out, int iters)
{
    WL_PROBE_BEGIN();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = wl_path_a(wl_mix(i), iters);
    WL_PROBE_END();
}

extern "C" __global__ void sched_uneven(unsigned *out, int iters)
{
    WL_PROBE_BEGIN();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int trip = (int)((blockIdx.x % 8 + 1) * (unsigned)iters / 8);
    out[i] = wl_path_a(wl_mix(i), trip);
    WL_PROBE_END();
}
