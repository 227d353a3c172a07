/* Dependent vs independent instruction chains (lesson topic 9: scoreboard, short vs long
 * dependencies). Both do `iters` FMAs per thread (wl_math.h):
 *   ilp_dep     one chain: every FMA waits for the previous result (~4 cycles on Hopper)
 *   ilp_indep4  four chains of iters/4 FMAs: a warp can issue every cycle
 * Launched with one warp per scheduler (grid 132, block 128) the dependent chain issues once per
 * FMA latency; with many warps both approach the FMA pipe's throughput. */
#include "wl_math.h"
#include "wl_probe.h"

extern "C" __global__ void ilp_dep(const float *in, float *out, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = wl_chain1(in[i], iters);
    WL_PROBE_END();
}

extern "C" __global__ void ilp_indep4(const float *in, float *out, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = wl_chain4(in[i], iters);
    WL_PROBE_END();
}
