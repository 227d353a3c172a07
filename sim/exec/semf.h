/* semf: PTX floating-point semantics as pure, deterministic functions on lane values.
 *
 * Rounding modes .rn/.rz/.rm/.rp are emulated exactly, without touching the host's floating-point
 * environment: the host computes the round-to-nearest double result and an exact error term
 * (TwoSum / FMA residual), and semf_round() rounds "value + tiny error of known sign" to the target
 * format (f64, f32, f16, bf16) in the requested mode, including subnormals and overflow. So every
 * IEEE op (add/sub/mul/fma/div/sqrt/rcp.rn) and every cvt is correctly rounded like the hardware.
 * (f64 fma with a directed mode is the one case without an exact residual: it is computed with
 * the host's fma and then adjusted with the residual of the rounded product; documented in
 * docs/exec.md.)
 *
 * .ftz flushes subnormal f32 inputs and outputs to zero of the same sign; .sat clamps to
 * [0.0, 1.0] with NaN -> +0.0.
 *
 * Approximate SFU ops (ex2, lg2, sin, cos, rsqrt, sqrt.approx, rcp.approx, tanh, div.approx/full)
 * are computed in double and rounded to nearest: the error is <= 0.5 ulp + 2^-40 relative, which is
 * inside every bound the PTX ISA gives (e.g. ex2 <= 2 ulp, sin/cos absolute error <= 2^-20.5 on
 * [-pi, pi]); real hardware is less accurate, so results can differ from a GPU in the last bits.
 */
#ifndef WL_SEMF_H
#define WL_SEMF_H

#include <stdint.h>

typedef enum { SEMF_RN = 0, SEMF_RZ, SEMF_RM, SEMF_RP } semf_rnd;
/* Target formats for semf_round. */
typedef enum { SEMF_F64, SEMF_F32, SEMF_F16, SEMF_BF16 } semf_fmt;

/* Rounds x (+ a tiny error whose sign is `tiny`: -1, 0, +1, smaller than half an ulp of x as a
 * double) to fmt in mode r; returns the target's bit pattern. */
uint64_t semf_round(double x, int tiny, semf_fmt fmt, semf_rnd r);
/* Decodes a bit pattern of fmt to double (exact). */
double semf_decode(uint64_t bits, semf_fmt fmt);

static inline float semf_f32(uint32_t b)
{
    union { uint32_t u; float f; } v = {.u = b};
    return v.f;
}
static inline uint32_t semf_bits32(float f)
{
    union { float f; uint32_t u; } v = {.f = f};
    return v.u;
}
static inline double semf_f64(uint64_t b)
{
    union { uint64_t u; double f; } v = {.u = b};
    return v.f;
}
static inline uint64_t semf_bits64(double f)
{
    union { double f; uint64_t u; } v = {.f = f};
    return v.u;
}

/* Round to nearest even on the bits, for a value in the target's normal range: sign neg,
 * unbiased exponent E, a fraction of fw bits (without the hidden one) cut to the target's mb
 * bits, rounded on the rest; a carry out of the fraction moves into the exponent, and past the
 * largest finite value gives inf, as round-to-nearest does. The target: mb fraction bits, eb
 * exponent bits, bias. (semf_round's common case, and cvt.rn.f16.f32's.) */
static inline uint64_t semf_rn_bits(int neg, int E, uint64_t frac, int fw, int mb, int eb,
                                    int bias)
{
    int sh = fw - mb;
    uint64_t q = frac >> sh, rem = frac & ((UINT64_C(1) << sh) - 1);
    uint64_t half = UINT64_C(1) << (sh - 1);
    uint64_t bits = ((uint64_t)(E + bias) << mb) + q;
    bits += rem > half || (rem == half && (q & 1));
    return (uint64_t)neg << (mb + eb) | bits;
}

/* f32 bits u rounded to f16 bits to nearest even when u is in f16's normal range (what
 * semf_round gives); -1 otherwise (zero, subnormal, out of range, inf, NaN: semf_round's
 * general path). */
static inline int32_t semf_f32_to_f16_rn(uint32_t u)
{
    int E = (int)(u >> 23 & 0xff) - 127;
    if (E < -14 || E > 15)
        return -1;
    return (int32_t)semf_rn_bits((int)(u >> 31), E, u & 0x7fffff, 23, 10, 5, 15);
}

/* cvt.rn.f16.f32 of f32 bits u: on the bits in f16's normal range, semf_round otherwise. */
static inline uint32_t semf_f32_to_f16(uint32_t u)
{
    int32_t h = semf_f32_to_f16_rn(u);
    return h >= 0 ? (uint32_t)h : (uint32_t)semf_round((double)semf_f32(u), 0, SEMF_F16, SEMF_RN);
}

/* f32 flush-to-zero of subnormals (sign kept); f32 saturation. */
float semf_ftz(float x);
float semf_sat(float x);

/* Correctly rounded f32 arithmetic. */
float semf_add32(float a, float b, semf_rnd r);
float semf_mul32(float a, float b, semf_rnd r);
float semf_fma32(float a, float b, float c, semf_rnd r);
float semf_div32(float a, float b, semf_rnd r);
/* a*b + c with one rounding to fmt, for operands whose product is exact in a double (f32, f16,
 * bf16 values); returns the target's bits. */
uint64_t semf_fma_fmt(double a, double b, double c, semf_fmt fmt, semf_rnd r);
float semf_sqrt32(float a, semf_rnd r);
/* Correctly rounded f64 arithmetic. */
double semf_add64(double a, double b, semf_rnd r);
double semf_mul64(double a, double b, semf_rnd r);
double semf_fma64(double a, double b, double c, semf_rnd r);
double semf_div64(double a, double b, semf_rnd r);
double semf_sqrt64(double a, semf_rnd r);

/* min/max: a NaN operand is ignored (both NaN -> canonical NaN); -0.0 < +0.0. With nan_prop
 * (.NaN) any NaN operand gives the canonical NaN. */
double semf_min(double a, double b, int nan_prop);
double semf_max(double a, double b, int nan_prop);
/* setp/set comparison with the SEM_CMP_* codes of sem.h (ordered and unordered). */
int semf_cmp(int cmp, double a, double b);
/* testp: 0 finite, 1 infinite, 2 number, 3 notanumber, 4 normal, 5 subnormal; is64 picks the
 * format for the normal/subnormal tests. */
int semf_testp(int kind, double x, int is64);

/* Approximate SFU ops on f32 (see the header comment for the error bound). */
typedef enum { SEMF_EX2, SEMF_LG2, SEMF_SIN, SEMF_COS, SEMF_RSQRT, SEMF_SQRT, SEMF_RCP, SEMF_TANH }
    semf_sfu;
float semf_sfu32(semf_sfu op, float x);
double semf_sfu64(semf_sfu op, double x);

/* cvt to an integer: irnd 0 rni, 1 rzi, 2 rmi, 3 rpi; saturates to the destination range
 * ([0, 2^bits-1] or [-2^(bits-1), 2^(bits-1)-1]); NaN -> 0. Result zero-extended to 64 bits. */
uint64_t semf_to_int(double x, semf_rnd irnd, int bits, int is_signed);
/* cvt from an integer (already extended to 64 bits) to fmt with rounding r; returns bits. */
uint64_t semf_from_int(uint64_t v, int is_signed, semf_fmt fmt, semf_rnd r);
/* Rounds a float to an integral value in the same format (cvt.rni.f32.f32 etc.). */
double semf_round_int(double x, semf_rnd irnd);

#endif
