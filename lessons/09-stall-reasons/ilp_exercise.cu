/* Lesson 9 exercise: one long chain of dependent FMAs (ilp_dep in gpu/kernels/ilp.cu).
 *
 * Every FMA needs the result of the previous one, so a warp can issue one FMA every ~4 cycles
 * (the FMA latency); with one warp per scheduler the scheduler idles in between (Nsight
 * Compute's stall reason `wait`).
 * Task: keep the name, the arguments and the number of FMAs per thread (iters), but break the
 * chain into independent chains the scheduler can interleave (instruction-level parallelism).
 * The result may change; the amount of work must not.
 * Check: warplab lesson 9 --check YOUR_COPY.cu */
#include "wl_probe.h"

extern "C" __global__ void ilp_dep(const float *in, float *out, int iters)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i], acc = x;
    for (int k = 0; k < iters; ++k)
        acc = fmaf(acc, 0.5f, x);
    out[i] = acc;
    WL_PROBE_END();
}
