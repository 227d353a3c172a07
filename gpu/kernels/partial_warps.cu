/* Partial warps (lesson topic 2): a block of 100 threads is 4 warps, the last with 4 active
 * lanes and 28 idle ones; a block of 128 is 4 full warps. Same kernel, two launches
 * (--block 100 vs --block 128): the compute-bound loop makes the wasted lanes visible. */
#include "wl_math.h"
#include "wl_probe.h"

/* out[i] = poly(in[i]) with `iters` dependent FMAs per element, one element per thread. */
extern "C" __global__ void pw_poly(const float *in, float *out, int n, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = wl_poly(in[i], iters);
    WL_PROBE_END();
}
