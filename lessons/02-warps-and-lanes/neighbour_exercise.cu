/* Lesson 2: warps of one block do not run in lockstep.
 *
 * EXERCISE COPY: the __syncthreads() is missing. Run it with warplab lesson 2 --check and see
 * what the model says; then put the barrier back where it belongs.
 *
 * pw_neighbour: each thread stores 2 x in[i] into shared memory, then adds the value stored by
 * the same lane of the NEXT warp of its block (wrapping around). That value was written by
 * another warp, so the block must wait at __syncthreads() between the store and the load:
 * nothing guarantees that the other warp has already run its store. */
#include "wl_probe.h"

extern "C" __global__ void pw_neighbour(const float *in, float *out, int n)
{
    __shared__ float s[1024];
    WL_PROBE_BEGIN();
    unsigned tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? 2.0f * in[i] : 0.0f;
    unsigned j = (tid + 32) % blockDim.x;
    if (i < n)
        out[i] = s[tid] + s[j];
    WL_PROBE_END();
}
