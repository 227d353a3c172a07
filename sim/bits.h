/* bits: small bit-counting helpers shared by the executor, the timing model and the memory
 * model. */
#ifndef WL_BITS_H
#define WL_BITS_H

#include <stdint.h>

/* Population count of a 32-bit mask (lanes, sectors), inline and branch-free: the build has no
 * -mpopcnt, so __builtin_popcount would be a library call. */
static inline uint32_t wl_popc32(uint32_t v)
{
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* log2(v) when v is a power of two, else -1: for dividing by arch numbers (sector and line
 * sizes, banks) with a shift, keeping the exact division for other values. */
static inline int wl_log2_exact(uint64_t v)
{
    return v && !(v & (v - 1)) ? __builtin_ctzll(v) : -1;
}

#endif
