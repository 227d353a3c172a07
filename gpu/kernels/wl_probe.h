/* wl_probe.h: timeline probes for the GPU harness's instrumented build.
 *
 * Every kernel calls WL_PROBE_BEGIN() first and WL_PROBE_END() last (reached by every thread).
 * In the normal build -- and therefore in the committed PTX the simulator runs -- both are empty.
 * The harness compiles all kernels a second time with -DWL_PROBE into a separate binary; there
 * lane 0 of each warp records, per warp: %smid, %warpid, the %globaltimer value (ns) at the
 * warp's first instruction and after all its lanes passed the end (a __syncwarp over the lanes
 * that exist). A block's SM, start and end are derived from its warps (min start, max end).
 * The probe adds a few instructions and one 24-byte store per warp: timings come from the
 * uninstrumented build, the probe run only gives the shape of the timeline.
 */
#ifndef WL_PROBE_H
#define WL_PROBE_H

#ifdef WL_PROBE
struct wl_probe_rec {
    unsigned long long start, end; /* %globaltimer, ns */
    unsigned smid, warpid;
};
/* Defined once: the probe build compiles every kernel file into one translation unit. */
__device__ wl_probe_rec *wl_probe_buf;
__device__ unsigned wl_probe_cap;

static __device__ __forceinline__ unsigned long long wl_probe_time(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ unsigned wl_probe_index(void)
{
    unsigned tpb = blockDim.x * blockDim.y * blockDim.z;
    unsigned wpb = (tpb + 31) / 32;
    unsigned blk = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    return blk * wpb + tid / 32;
}

static __device__ __forceinline__ void wl_probe_begin(void)
{
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned i = wl_probe_index();
    if ((tid & 31) == 0 && i < wl_probe_cap) {
        unsigned smid, warpid;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
        wl_probe_buf[i].start = wl_probe_time();
        wl_probe_buf[i].smid = smid;
        wl_probe_buf[i].warpid = warpid;
    }
}

static __device__ __forceinline__ void wl_probe_end(void)
{
    unsigned tpb = blockDim.x * blockDim.y * blockDim.z;
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned lanes = tpb - (tid & ~31U); /* lanes that exist in this warp */
    __syncwarp(lanes >= 32 ? 0xffffffffU : ((1U << lanes) - 1U));
    unsigned i = wl_probe_index();
    if ((tid & 31) == 0 && i < wl_probe_cap)
        wl_probe_buf[i].end = wl_probe_time();
}
#define WL_PROBE_BEGIN() wl_probe_begin()
#define WL_PROBE_END() wl_probe_end()
#else
#define WL_PROBE_BEGIN() do { } while (0)
#define WL_PROBE_END() do { } while (0)
#endif

#endif
