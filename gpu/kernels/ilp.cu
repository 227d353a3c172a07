/* Dependent vs independent instruction chains (lesson topic 9: scoreboard, short vs long
 * dependencies). Both kernels do `iters` FMAs per thread:
 *   ilp_dep     one chain: every FMA waits for the previous result (~4 cycles on Hopper)
 *   ilp_indep4  four chains of iters/4 FMAs: a warp can issue every cycle
 * Launched with one warp per scheduler (grid 132, block 128) the dependent chain issues once per
 * FMA latency; with many warps both approach the FMA pipe's throughput. */
#include "wl_probe.h"

extern "C" __global__ void ilp_dep(const float *in, float *out, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i], a = x;
    for (int k = 0; k < iters; ++k)
        a = fmaf(a, 0.5f, x);
    out[i] = a;
    WL_PROBE_END();
}

extern "C" __global__ void ilp_indep4(const float *in, float *out, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    float a0 = x, a1 = x + 1.0f, a2 = x + 2.0f, a3 = x + 3.0f;
    for (int k = 0; k < iters / 4; ++k) {
        a0 = fmaf(a0, 0.5f, x);
        a1 = fmaf(a1, 0.5f, x);
        a2 = fmaf(a2, 0.5f, x);
        a3 = fmaf(a3, 0.5f, x);
    }
    out[i] = (a0 + a1) + (a2 + a3);
    WL_PROBE_END();
}
