/* Lesson 1 exercise: fill an SM.
 *
 * hw_fill runs in blocks of 1024 threads (32 warps). An H200 SM has room for 64 warps (16 per
 * warp scheduler) and 65536 registers. As written, __launch_bounds__(1024, 1) lets the compiler
 * use more than 32 registers per thread, so only ONE block fits on an SM and half of the warp
 * slots stay empty.
 *
 * Task: change the launch bounds so that TWO blocks fit on each SM (64 warps), keeping the
 * result. Check: warplab lesson 1 --check YOUR_COPY.cu
 * Each thread reads 12 values spread over the input and mixes them. */
#include "wl_probe.h"

#define HW_K 12

extern "C" __global__ void __launch_bounds__(1024, 1) hw_fill(const float *in, float *out, int n)
{
    WL_PROBE_BEGIN();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a[HW_K];
#pragma unroll
        for (int k = 0; k < HW_K; ++k)
            a[k] = in[(i + k * 677) % n];
#pragma unroll
        for (int r = 0; r < 3; ++r) {
#pragma unroll
            for (int k = 0; k < HW_K; ++k)
                a[k] = fmaf(a[k], a[(k + 5) % HW_K], a[(k + 7) % HW_K]);
        }
        float s = 0.0f;
#pragma unroll
        for (int k = 0; k < HW_K; ++k)
            s += a[k];
        out[i] = s;
    }
    WL_PROBE_END();
}
