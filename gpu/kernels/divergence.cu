/* Branch divergence (lesson topic 4). Every kernel computes one word per thread from
 * x = wl_mix(in[i]) with `iters` loop iterations of a path function (wl_math.h); they differ in
 * which lanes take which path:
 *   div_none       every lane runs path A                      (baseline)
 *   div_parity     even lanes A, odd lanes B                   (2 paths per warp: ~2x)
 *   div_nested     two levels on lane bits 0 and 1: A/B/C/D    (4 paths per warp: ~4x)
 *   div_warp       the branch on (thread index / 32) % 2       (warp-uniform: no divergence)
 *   div_short      a short if/else inside the loop             (predicated: no split)
 *   div_loop_lane  trip count grows with the lane (1..32)/32 x iters: each warp runs as long as
 *                  its slowest lane
 *   div_loop_warp  the same trip counts per warp instead of per lane (same total work)
 */
#include "wl_math.h"
#include "wl_probe.h"

extern "C" __global__ void div_none(const unsigned *in, unsigned *out, int n, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = wl_path_a(wl_mix(in[i]), iters);
    WL_PROBE_END();
}

extern "C" __global__ void div_parity(const unsigned *in, unsigned *out, int n, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = wl_mix(in[i]);
        if (threadIdx.x % 2 == 0)
            x = wl_path_a(x, iters);
        else
            x = wl_path_b(x, iters);
        out[i] = x;
    }
    WL_PROBE_END();
}

extern "C" __global__ void div_nested(const unsigned *in, unsigned *out, int n, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = wl_mix(in[i]);
        if (threadIdx.x & 1) {
            if (threadIdx.x & 2)
                x = wl_path_a(x, iters);
            else
                x = wl_path_b(x, iters);
        } else {
            if (threadIdx.x & 2)
                x = wl_path_c(x, iters);
            else
                x = wl_path_d(x, iters);
        }
        out[i] = x;
    }
    WL_PROBE_END();
}

extern "C" __global__ void div_warp(const unsigned *in, unsigned *out, int n, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = wl_mix(in[i]);
        if ((threadIdx.x / 32) % 2 == 0)
            x = wl_path_a(x, iters);
        else
            x = wl_path_b(x, iters);
        out[i] = x;
    }
    WL_PROBE_END();
}

extern "C" __global__ void div_short(const unsigned *in, unsigned *out, int n, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = wl_short_branch(wl_mix(in[i]), iters);
    WL_PROBE_END();
}

extern "C" __global__ void div_loop_lane(const unsigned *in, unsigned *out, int n, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int trip = (int)(((threadIdx.x % 32) + 1) * (unsigned)iters / 32);
        out[i] = wl_path_a(wl_mix(in[i]), trip);
    }
    WL_PROBE_END();
}

extern "C" __global__ void div_loop_warp(const unsigned *in, unsigned *out, int n, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int trip = (int)((((unsigned)i / 32) % 32 + 1) * (unsigned)iters / 32);
        out[i] = wl_path_a(wl_mix(in[i]), trip);
    }
    WL_PROBE_END();
}
