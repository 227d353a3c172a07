/* Global-memory coalescing (lesson topic 7).
 *   co_aos_norm / co_soa_norm  squared length of n 3-vectors: an array of {x,y,z} structs read at
 *                              a 12-byte stride vs three separate arrays (structure of arrays)
 *   co_strided                 out[i] = in[(i * stride) & mask]: stride 1 is ideal, stride 32
 *                              words puts every lane in its own 32-byte sector
 *   co_offset                  out[i] = in[i + offset]: offset 1 word makes each warp's 128-byte
 *                              request straddle two lines (5 sectors instead of 4)
 * All use one element per thread (grid = ceil(n / blockDim.x)). */
#include "wl_probe.h"

extern "C" __global__ void co_aos_norm(const float *xyz, float *out, int n)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xyz[3 * (size_t)i], y = xyz[3 * (size_t)i + 1], z = xyz[3 * (size_t)i + 2];
        out[i] = fmaf(z, z, fmaf(y, y, x * x));
    }
    WL_PROBE_END();
}

extern "C" __global__ void co_soa_norm(const float *xs, const float *ys, const float *zs,
                                       float *out, int n)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i], y = ys[i], z = zs[i];
        out[i] = fmaf(z, z, fmaf(y, y, x * x));
    }
    WL_PROBE_END();
}

/* mask = (number of words in `in`) - 1, a power of two minus one. */
extern "C" __global__ void co_strided(const float *in, float *out, int n, int stride, int mask)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[((unsigned)i * (unsigned)stride) & (unsigned)mask];
    WL_PROBE_END();
}

/* `in` holds n + offset words. */
extern "C" __global__ void co_offset(const float *in, float *out, int n, int offset)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + offset];
    WL_PROBE_END();
}
