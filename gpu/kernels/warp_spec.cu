/* Intra-kernel pipeline with warp specialisation (lesson topic 11, article C).
 *
 * ws_pipeline: 512 threads = 16 warps; the first `producer_warps` warps are producers, the rest
 * consumers (4:12, 8:8, 2:14 are launches of this one kernel). The input is split into 4 KB
 * chunks (1024 words); block b handles chunks b, b + gridDim.x, ... through a double buffer in
 * shared memory (2 x 4 KB). Producers copy chunk k from global memory into buffer k % 2;
 * consumers compute out[j] = wl_path_a(in[j], rounds) on it and store to global memory.
 * Named barriers (PTX bar.sync / bar.arrive with an id and a thread count, not __syncthreads):
 *   id 1 + b  "buffer b full":  producers bar.arrive, consumers bar.sync
 *   id 3 + b  "buffer b empty": consumers bar.arrive, producers bar.sync (from the third chunk on)
 * Each barrier counts all 512 threads: the arriving side's and the waiting side's. Long-scoreboard
 * stalls move onto the producers; consumers wait at barriers instead of on memory.
 *
 * ws_plain: the same work without roles: every thread loads, computes and stores (grid-stride). */
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
            if (k + 2 < mine)
                ws_bar_arrive(3 + b, nthreads); /* buffer b may be refilled */
        }
    }
    WL_PROBE_END();
}

extern "C" __global__ void __launch_bounds__(512)
ws_plain(const unsigned *in, unsigned *out, int n, int rounds)
{
    WL_PROBE_BEGIN();
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = wl_path_a(in[i], rounds);
    WL_PROBE_END();
}
