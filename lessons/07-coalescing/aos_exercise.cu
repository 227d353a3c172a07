/* Lesson 7 exercise: squared lengths of n 3-vectors stored as an array of {x, y, z} structs.
 *
 * Each thread reads x, y and z of its own vector: lane k reads word 3k, then 3k+1, then 3k+2, so
 * each of the three loads of a warp touches 384 bytes to use 128.
 * Task: keep the name, the arguments and the result bit for bit (keep the same fmaf
 * expression), but read the block's 3 x blockDim.x floats with coalesced loads: thread t loads
 * words t, t + blockDim.x and t + 2 blockDim.x of the block's slice into registers (all three
 * loads first, so that they are in flight together), stores them into shared memory, then,
 * after __syncthreads(), each thread reads its x, y, z from shared memory. The check launches
 * n = 65536 = 256 x 256 vectors, so every block's slice is full.
 * Check: warplab lesson 7 --check YOUR_COPY.cu   (launch: --block 256) */
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
