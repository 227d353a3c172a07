// mb_clock.cuh: the clock-to-clock loop shared by sreg.cu and ldc.cu, and a host median.
//
// MB_CLOCK_LOOP(READ) times, 64 times in a loop, clock64 -> READ (which sets `unsigned v` and
// may use `long long t0`, the first clock value) -> a compare of v -> clock64 (the second clock
// read waits for the compare, as in blocklife.cu); mb_store_first_median then writes, per warp
// (lane 0), the first of the 64 differences (the block's start) and their median into
// rec[2 * warp] and rec[2 * warp + 1]. The kernel needs `unsigned long long *rec` in scope.
#pragma once
#include <algorithm>
#include <vector>

#define MB_CLOCK_LOOP(READ)                                                                  \
    unsigned long long d[64];                                                               \
    unsigned acc = 0;                                                                       \
    for (int k = 0; k < 64; k++) {                                                          \
        long long t0 = clock64();                                                           \
        unsigned v;                                                                         \
        READ;                                                                               \
        long long t1 = 0;                                                                   \
        if (v != 0xfffffff0u + (unsigned)k) /* never false: orders the clock read */        \
            t1 = clock64();                                                                 \
        d[k] = (unsigned long long)(t1 - t0);                                               \
        acc += v;                                                                           \
    }                                                                                       \
    mb_store_first_median(d, rec, acc)

__device__ __forceinline__ void mb_store_first_median(unsigned long long *d,
                                                      unsigned long long *rec, unsigned acc)
{
    unsigned long long first = d[0];
    for (int i = 1; i < 64; i++) { // insertion sort; lane 0 writes the median
        unsigned long long x = d[i];
        int j = i - 1;
        while (j >= 0 && d[j] > x) {
            d[j + 1] = d[j];
            j--;
        }
        d[j + 1] = x;
    }
    unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if ((threadIdx.x & 31) == 0) {
        rec[2 * w] = first;
        rec[2 * w + 1] = d[32] + (acc == 0x12345678u ? 1 : 0); // acc keeps the reads alive
    }
}

static inline double mb_median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}
