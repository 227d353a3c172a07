// mb_common.cuh: helpers shared by the microbenchmarks (error checks, JSON output, GPU info).
//
// Every microbenchmark program prints ONE JSON object on stdout:
//   {"program": ..., "gpu": {...}, "date": ..., "results": {NAME: {...}, ...}}
// Numbers are what the GPU reported (clock64 cycles, cudaEvent milliseconds); nothing is typed by
// hand. Cycles are SM cycles (clock64 ticks at the SM clock).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <ctime>
#include <cuda_runtime.h>

#define MB_CHECK(x)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                    \
                    cudaGetErrorString(e_));                                               \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

// JSON writer state: a comma before every item except the first of an object.
struct mb_json {
    int first;
};

static inline void mb_key(mb_json *j, const char *k)
{
    printf("%s\n  \"%s\": ", j->first ? "" : ",", k);
    j->first = 0;
    fflush(stdout);
}

static inline int mb_attr(cudaDeviceAttr a, int dev)
{
    int v = 0;
    MB_CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
}

// Measures the SM clock the kernels really run at: clock64 ticks over %globaltimer ns.
__global__ void mb_clock_kernel(unsigned long long *out, unsigned long long ns)
{
    unsigned long long t0, t1, c0, c1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    c0 = clock64();
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    } while (t1 - t0 < ns);
    c1 = clock64();
    out[0] = c1 - c0;
    out[1] = t1 - t0;
}

static inline double mb_measured_clock_mhz(void)
{
    unsigned long long *d, h[2];
    MB_CHECK(cudaMalloc(&d, 16));
    mb_clock_kernel<<<1, 1>>>(d, 2000000ull); // warm the clock up
    mb_clock_kernel<<<1, 1>>>(d, 20000000ull); // 20 ms
    MB_CHECK(cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost));
    MB_CHECK(cudaFree(d));
    return (double)h[0] / (double)h[1] * 1e3;
}

// Opens the top-level object and writes program, gpu (name, driver, clocks, sizes) and date.
// The caller then writes "results": { ... } and calls mb_end.
static inline void mb_begin(const char *program)
{
    cudaDeviceProp p;
    MB_CHECK(cudaGetDeviceProperties(&p, 0));
    int drv = 0, rt = 0;
    MB_CHECK(cudaDriverGetVersion(&drv));
    MB_CHECK(cudaRuntimeGetVersion(&rt));
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    printf("{\n  \"program\": \"%s\",\n  \"date\": \"%s\",\n", program, date);
    printf("  \"gpu\": {\"name\": \"%s\", \"cc\": \"%d.%d\", \"sm_count\": %d, "
           "\"driver_version\": %d, \"runtime_version\": %d, \"max_sm_clock_khz\": %d, "
           "\"mem_clock_khz\": %d, \"bus_width_bits\": %d, \"l2_bytes\": %d, "
           "\"smem_per_sm\": %zu, \"measured_sm_clock_mhz\": %.1f},\n",
           p.name, p.major, p.minor, p.multiProcessorCount, drv, rt,
           mb_attr(cudaDevAttrClockRate, 0), mb_attr(cudaDevAttrMemoryClockRate, 0),
           mb_attr(cudaDevAttrGlobalMemoryBusWidth, 0), p.l2CacheSize,
           p.sharedMemPerMultiprocessor, mb_measured_clock_mhz());
    printf("  \"results\": {");
    fflush(stdout);
}

static inline void mb_end(void)
{
    printf("\n  }\n}\n");
}

// Event timer around a launch sequence; returns milliseconds.
struct mb_timer {
    cudaEvent_t a, b;
};
static inline void mb_timer_start(mb_timer *t)
{
    MB_CHECK(cudaEventCreate(&t->a));
    MB_CHECK(cudaEventCreate(&t->b));
    MB_CHECK(cudaEventRecord(t->a));
}
static inline float mb_timer_stop(mb_timer *t)
{
    float ms = 0;
    MB_CHECK(cudaEventRecord(t->b));
    MB_CHECK(cudaEventSynchronize(t->b));
    MB_CHECK(cudaGetLastError());
    MB_CHECK(cudaEventElapsedTime(&ms, t->a, t->b));
    MB_CHECK(cudaEventDestroy(t->a));
    MB_CHECK(cudaEventDestroy(t->b));
    return ms;
}
