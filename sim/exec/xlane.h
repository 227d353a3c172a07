/* xlane: inline helpers for the executor's lane loops (xop.c, xopf.c): the 32-lane loop
 * macros and reading/writing typed values in 64-bit lanes (committing the active lanes to a
 * register is exec_int.h's xcommit). */
#ifndef WL_XLANE_H
#define WL_XLANE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "exec_int.h"
#include "ir.h"
#include "sem.h"
#include "semf.h"

/* Lane loops run over all 32 lanes into a temporary (inactive lanes compute values that are
 * thrown away: every operation here is total, so that is harmless) and xcommit() copies the
 * active lanes to the destination: the loops have no aliasing and no mask test, so the compiler
 * can vectorise them. MLOOP visits the active lanes only (multi-destination ops). */
#define LOOP(...)                                                                                  \
    do {                                                                                           \
        for (int l = 0; l < 32; l++) {                                                             \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
    } while (0)
#define MLOOP(...)                                                                                 \
    do {                                                                                           \
        for (int l = 0; l < 32; l++)                                                               \
            if ((m >> l) & 1) {                                                                    \
                __VA_ARGS__;                                                                       \
            }                                                                                      \
    } while (0)

static inline uint64_t zx(uint64_t v, int bits)
{
    return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

static inline float F(uint64_t v)
{
    return semf_f32((uint32_t)v);
}

static inline double D(uint64_t v)
{
    return semf_f64(v);
}

/* f32 result bits: NaN becomes the canonical 0x7fffffff, as on the GPU. */
static inline uint64_t FB(float f)
{
    uint32_t u = semf_bits32(f);
    return (u & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : u;
}

static inline uint64_t DB(double f)
{
    return isnan(f) ? UINT64_C(0x7fffffffffffffff) : semf_bits64(f);
}

static inline semf_rnd frnd(const xinsn *in)
{
    switch (in->round) {
    case PTX_RND_RZ: case PTX_RND_RZI: return SEMF_RZ;
    case PTX_RND_RM: case PTX_RND_RMI: return SEMF_RM;
    case PTX_RND_RP: case PTX_RND_RPI: return SEMF_RP;
    default: return SEMF_RN;
    }
}

static inline uint64_t ext(uint64_t v, int bits, int s)
{
    return s ? sem_sext(v, bits) : sem_zext(v, bits);
}

static inline semf_fmt hfmt(int kind)
{
    return (kind == XK_BF || kind == XK_BF2) ? SEMF_BF16 : SEMF_F16;
}

/* Decodes a float operand of kind k (F with width w, H, BF) to double; ftz flushes f32 inputs. */
static inline double fget(uint64_t v, int k, int w, int ftz)
{
    if (k == XK_F)
        return w == 64 ? D(v) : (double)(ftz ? semf_ftz(F(v)) : F(v));
    return semf_decode(v & 0xffff, hfmt(k));
}

/* Encodes a double result as kind k / width w with rounding r; ftz/sat for f32. */
static inline uint64_t fput(double x, int k, int w, semf_rnd r, int ftz, int sat)
{
    if (k == XK_F && w == 64)
        return DB(sat ? (isnan(x) ? 0.0 : x < 0 ? 0.0 : x > 1 ? 1.0 : x) : x);
    if (k == XK_F) {
        float f = semf_f32((uint32_t)semf_round(x, 0, SEMF_F32, r));
        if (ftz)
            f = semf_ftz(f);
        if (sat)
            f = semf_sat(f);
        return FB(f);
    }
    if (sat)
        x = isnan(x) ? 0.0 : x < 0 ? 0.0 : x > 1 ? 1.0 : x;
    return semf_round(x, 0, hfmt(k), r);
}

static inline int is_float(int k)
{
    return k == XK_F || k == XK_H || k == XK_BF || k == XK_H2 || k == XK_BF2;
}

#endif
