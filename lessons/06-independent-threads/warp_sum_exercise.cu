/* Lesson 6 exercise: a per-warp tree sum in shared memory (gpu/kernels/syncwarp.cu), written
 * the pre-Volta way: it relies on the 32 lanes of a warp running in lockstep and has no
 * __syncwarp(). Since Volta each lane has its own program counter and the compiler may keep
 * s[tid] in a register: nothing orders one lane's store before another lane's load.
 * Task: make it correct by the rules of independent thread scheduling (keep the name and the
 * result: out[global warp index] = sum of the warp's 32 words).
 * Check: warplab lesson 6 --check YOUR_COPY.cu */
#include "wl_probe.h"

extern "C" __global__ void its_warp_sum(const unsigned *in, unsigned *out)
{
    __shared__ unsigned s[1024];
    WL_PROBE_BEGIN();
    unsigned tid = threadIdx.x, lane = tid % 32;
    unsigned gi = blockIdx.x * blockDim.x + tid;
    s[tid] = in[gi];
    for (unsigned off = 16; off > 0; off >>= 1) {
        if (lane < off)
            s[tid] += s[tid + off];
    }
    if (lane == 0)
        out[gi / 32] = s[tid];
    WL_PROBE_END();
}
