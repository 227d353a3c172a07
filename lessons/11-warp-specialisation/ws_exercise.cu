/* Lesson 11 exercise: the producer/consumer pipeline of gpu/kernels/warp_spec.cu with a bug.
 *
 * This copy deadlocks: some warps wait at a named barrier that the other role never arrives at.
 * `warplab lesson 11 --check YOUR_COPY.cu` names the barrier and the waiting warps.
 * Task: find the mismatch between the producers' bar.sync and the consumers' bar.arrive
 * (count, for one buffer, how often each side reaches barrier 3 + b) and fix it, keeping the
 * name and the result. */
#include "wl_math.h"
#include "wl_probe.h"

#define WS_CHUNK 1024

static __device__ __forceinline__ void ws_bar_sync(unsigned id, unsigned count)
{
    asm volatile("bar.sync %0, %1;" : : "r"(id), "r"(count) : "memory");
}

static __device__ __forceinline__ void ws_bar_arrive(unsigned id, unsigned count)
{
    asm volatile("bar.arrive %0, %1;" : : "r"(id), "r"(count) : "memory");
}

extern "C" __global__ void __launch_bounds__(512)
ws_pipeline(const unsigned *in, unsigned *out, int nchunks, int producer_warps, int rounds)
{
    __shared__ unsigned buf[2][WS_CHUNK];
    WL_PROBE_BEGIN();
    unsigned nthreads = blockDim.x;
    unsigned np = (unsigned)producer_warps * 32;
    unsigned nc = nthreads - np;
    int mine = (int)blockIdx.x < nchunks
                   ? (nchunks - (int)blockIdx.x + (int)gridDim.x - 1) / (int)gridDim.x
                   : 0;
    if (threadIdx.x < np) {
        for (int k = 0; k < mine; ++k) {
            unsigned b = k & 1;
            if (k >= 2)
                ws_bar_sync(3 + b, nthreads); /* wait until consumers emptied buffer b */
            const unsigned *src = in + (size_t)(blockIdx.x + k * gridDim.x) * WS_CHUNK;
            for (unsigned j = threadIdx.x; j < WS_CHUNK; j += np)
                buf[b][j] = src[j];
            ws_bar_arrive(1 + b, nthreads); /* buffer b is full */
        }
    } else {
        unsigned t = threadIdx.x - np;
        for (int k = 0; k < mine; ++k) {
            unsigned b = k & 1;
            ws_bar_sync(1 + b, nthreads); /* wait until producers filled buffer b */
            unsigned *dst = out + (size_t)(blockIdx.x + k * gridDim.x) * WS_CHUNK;
            for (unsigned j = t; j < WS_CHUNK; j += nc)
                dst[j] = wl_path_a(buf[b][j], rounds);
            if (k + 3 < mine)
                ws_bar_arrive(3 + b, nthreads); /* buffer b may be refilled */
        }
    }
    WL_PROBE_END();
}
