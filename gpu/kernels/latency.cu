/* Latency hiding (lesson topic 3): one memory-bound grid-stride copy, launched with 1, 2, 4 and
 * 8 blocks of 256 threads per SM (grid = 132 x k on the H200). With few resident warps the
 * schedulers have nothing to issue while loads are in flight (long_scoreboard); more warps
 * keep more loads in flight and the copy approaches DRAM bandwidth. */
#include "wl_probe.h"

extern "C" __global__ void lat_copy(const float *in, float *out, int n)
{
    WL_PROBE_BEGIN();
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i];
    WL_PROBE_END();
}
