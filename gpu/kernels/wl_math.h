/* wl_math.h: the per-element arithmetic shared by the CUDA kernels (gpu/kernels/ (*.cu)) and their
 * CPU references (gpu/reference/ (*.c)), so both sides compute bit-identical results.
 *
 * Integer work uses 32-bit unsigned arithmetic (wraps the same on the GPU and in C). Float work
 * uses explicit fused multiply-adds (fmaf on both sides: IEEE-754 single rounding), never a
 * separate mul + add the compiler might or might not contract.
 *
 * Each path function below is a different instruction sequence on purpose: if two branches ran
 * the same sequence with different constants, nvcc would merge them into one loop with selected
 * constants and the divergence a lesson wants to show would disappear.
 */
#ifndef WL_MATH_H
#define WL_MATH_H

#ifdef __CUDACC__
#define WL_HD static __host__ __device__ __forceinline__
#else
#include <math.h>
#define WL_HD static inline
#endif

/* A 32-bit finaliser (lowbias32): used to derive per-element values. */
WL_HD unsigned wl_mix(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Four distinct loop bodies (LCG-xorshift style): 2 to 3 integer instructions per iteration. */
WL_HD unsigned wl_path_a(unsigned x, int iters)
{
    for (int k = 0; k < iters; ++k) {
        x = x * 1664525U + 1013904223U;
        x ^= x >> 13;
    }
    return x;
}

WL_HD unsigned wl_path_b(unsigned x, int iters)
{
    for (int k = 0; k < iters; ++k) {
        x = (x ^ 0x9e3779b9U) * 2246822519U;
        x += x << 7;
    }
    return x;
}

WL_HD unsigned wl_path_c(unsigned x, int iters)
{
    for (int k = 0; k < iters; ++k) {
        x = (x + 0x7f4a7c15U) * 3266489917U;
        x ^= x >> 11;
    }
    return x;
}

WL_HD unsigned wl_path_d(unsigned x, int iters)
{
    for (int k = 0; k < iters; ++k) {
        x = (x << 5) ^ (x >> 3) ^ (x * 668265263U);
        x += 374761393U;
    }
    return x;
}

/* A short two-sided branch (Collatz step plus a constant): nvcc turns it into predicated
 * / selected instructions, so the warp never splits. */
WL_HD unsigned wl_short_branch(unsigned x, int iters)
{
    for (int k = 0; k < iters; ++k) {
        if (x & 1U)
            x = x * 3U + 1U;
        else
            x >>= 1;
        x += 0x9e3779b9U;
    }
    return x;
}

/* Horner polynomial with fused multiply-adds: iters dependent FMAs on one value. */
WL_HD float wl_poly(float x, int iters)
{
    float acc = 0.5f;
    for (int k = 0; k < iters; ++k)
        acc = fmaf(acc, x, 0.25f);
    return acc;
}

/* One chain of `iters` dependent FMAs (acc = acc * 0.5 + x, converging to 2x). */
WL_HD float wl_chain1(float x, int iters)
{
    float acc = x;
    for (int k = 0; k < iters; ++k)
        acc = fmaf(acc, 0.5f, x);
    return acc;
}

/* The same number of FMAs as four independent chains of iters / 4. */
WL_HD float wl_chain4(float x, int iters)
{
    float a0 = x, a1 = x + 1.0f, a2 = x + 2.0f, a3 = x + 3.0f;
    for (int k = 0; k < iters / 4; ++k) {
        a0 = fmaf(a0, 0.5f, x);
        a1 = fmaf(a1, 0.5f, x);
        a2 = fmaf(a2, 0.5f, x);
        a3 = fmaf(a3, 0.5f, x);
    }
    return (a0 + a1) + (a2 + a3);
}

#endif
