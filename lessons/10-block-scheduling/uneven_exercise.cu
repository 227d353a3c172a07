/* Lesson 10 exercise: blocks of uneven weight (gpu/kernels/scheduling.cu).
 *
 * Block b runs iters x ((b % 8) + 1) / 8 loop iterations per thread: with 1024-thread blocks
 * (two per SM, one wave on the H200) every SM waits for its heaviest block.
 * Task: keep the name, the arguments and the result (out[i] for every i is exactly what it is
 * now) but balance the work across blocks: e.g. let thread t of block b compute the element of a
 * different block so that every block gets a mix of light and heavy elements. Keep each warp's
 * 32 elements of one weight (else the warp diverges: lesson 4), and mind the schedulers: warp w
 * runs on scheduler w % 4 of its SM, so give each scheduler the same mix of weights.
 * Check: warplab lesson 10 --check YOUR_COPY.cu   (launch: --grid 264 --block 1024) */
#include "wl_math.h"
#include "wl_probe.h"

extern "C" __global__ void sched_uneven(unsigned *out, int iters)
{
    WL_PROBE_BEGIN();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int trip = (int)((blockIdx.x % 8 + 1) * (unsigned)iters / 8);
    out[i] = wl_path_a(wl_mix(i), trip);
    WL_PROBE_END();
}
