/* semf: PTX floating-point semantics (see semf.h). Never changes the host's rounding mode. */
#include "semf.h"

#include <float.h>
#include <math.h>

#include "sem.h"

typedef struct {
    int mbits, ebits, bias;
} fmt_info;

static const fmt_info fmts[] = {
    [SEMF_F64] = {52, 11, 1023},
    [SEMF_F32] = {23, 8, 127},
    [SEMF_F16] = {10, 5, 15},
    [SEMF_BF16] = {7, 8, 127},
};

static uint64_t canonical_nan(semf_fmt fmt)
{
    switch (fmt) {
    case SEMF_F64: return UINT64_C(0x7fffffffffffffff);
    case SEMF_F32: return 0x7fffffffu;
    default: return 0x7fffu;
    }
}

/* Does rounding mode r, for a value of this sign, round the magnitude away from zero? */
static int rounds_away(semf_rnd r, int neg)
{
    return (r == SEMF_RP && !neg) || (r == SEMF_RM && neg);
}

uint64_t semf_round(double x, int tiny, semf_fmt fmt, semf_rnd r)
{
    const fmt_info *f = &fmts[fmt];
    if (r == SEMF_RN && tiny == 0 && fmt != SEMF_F64) {
        /* the common case, straight on the bits (semf_rn_bits): a value in the target's
         * normal range; anything else (zero, subnormal, out of range, inf, NaN) below */
        uint64_t b = semf_bits64(x);
        int E = (int)(b >> 52 & 0x7ff) - 1023;
        if (E >= 1 - f->bias && E <= f->bias)
            return semf_rn_bits((int)(b >> 63), E, b & ((UINT64_C(1) << 52) - 1), 52, f->mbits,
                                f->ebits, f->bias);
    }
    int neg = signbit(x) != 0;
    uint64_t sbit = (uint64_t)neg << (f->mbits + f->ebits);
    uint64_t inf = ((UINT64_C(1) << f->ebits) - 1) << f->mbits;
    if (isnan(x))
        return canonical_nan(fmt);
    if (isinf(x))
        return sbit | inf;
    if (fmt == SEMF_F64) {
        /* x is already the round-to-nearest double; only directed modes move it one ulp. */
        if (tiny == 0 || r == SEMF_RN)
            return semf_bits64(x);
        int t = neg ? -tiny : tiny; /* > 0: the true magnitude is slightly larger */
        int away = rounds_away(r, neg);
        if (t > 0 && away)
            return semf_bits64(nextafter(x, neg ? -INFINITY : INFINITY));
        if (t < 0 && !away)
            return semf_bits64(nextafter(x, neg ? INFINITY : -INFINITY));
        return semf_bits64(x);
    }
    if (x == 0) {
        if (tiny == 0)
            return sbit;
        neg = tiny < 0;
        sbit = (uint64_t)neg << (f->mbits + f->ebits);
        return sbit | (rounds_away(r, neg) ? 1 : 0);
    }
    /* |x| = m * 2^e with 2^52 <= m < 2^53, so |x| = fr * 2^E with fr in [0.5, 1): read from a
     * normal double's bits (the significand with its hidden bit), frexp for a subnormal */
    int E;
    uint64_t xb = semf_bits64(x), m;
    if ((xb >> 52 & 0x7ff) != 0) {
        E = (int)(xb >> 52 & 0x7ff) - 1022;
        m = (xb & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
    } else {
        double fr = frexp(fabs(x), &E);
        m = (uint64_t)ldexp(fr, 53);
    }
    int e = E - 53; /* |x| = m * 2^e */
    int emin = 1 - f->bias;
    int uexp = (E - 1 < emin ? emin : E - 1) - f->mbits; /* exponent of the target's ulp */
    int shift = uexp - e;
    int t = neg ? -tiny : tiny;
    int away = rounds_away(r, neg);
    uint64_t q;
    if (shift <= 0) {
        q = m << -shift; /* exact: fewer than mbits+1 significant bits */
        if (t < 0 && r != SEMF_RN && !away)
            q -= 1;
        else if (t > 0 && away)
            q += 1;
    } else {
        uint64_t rem, half;
        if (shift > 60) {
            q = 0;
            rem = 1;
            half = 2; /* far below half an ulp of the smallest subnormal */
        } else {
            q = m >> shift;
            rem = m & ((UINT64_C(1) << shift) - 1);
            half = UINT64_C(1) << (shift - 1);
        }
        if (rem == 0) {
            if (t < 0 && r != SEMF_RN && !away)
                q -= 1;
            else if (t > 0 && away)
                q += 1;
        } else if (r == SEMF_RN) {
            if (rem > half || (rem == half && (t > 0 || (t == 0 && (q & 1)))))
                q += 1;
        } else if (away) {
            q += 1;
        }
    }
    /* Pack: subnormals have q < 2^mbits and exponent field 0; a carry into the next binade falls
     * out of the addition. */
    uint64_t bits;
    if (E - 1 < emin)
        bits = q;
    else
        bits = ((uint64_t)(E - 1 + f->bias) << f->mbits) + q - (UINT64_C(1) << f->mbits);
    if (bits >= inf) {
        /* Overflow: round to nearest and away-from-zero give infinity, the others the largest
         * finite value. */
        bits = (r == SEMF_RN || away) ? inf : inf - 1;
    }
    return sbit | bits;
}

double semf_decode(uint64_t bits, semf_fmt fmt)
{
    switch (fmt) {
    case SEMF_F64: return semf_f64(bits);
    case SEMF_F32: return semf_f32((uint32_t)bits);
    case SEMF_BF16: return semf_f32((uint32_t)(bits & 0xffff) << 16);
    case SEMF_F16: {
        int s = (bits >> 15) & 1, ex = (bits >> 10) & 0x1f;
        int man = (int)(bits & 0x3ff);
        double v;
        if (ex == 0x1f)
            v = man ? NAN : INFINITY;
        else if (ex == 0)
            v = ldexp(man, -24);
        else
            v = ldexp(man | 0x400, ex - 25);
        return s ? -v : v;
    }
    }
    return 0;
}

float semf_ftz(float x)
{
    if (x != 0 && fabsf(x) < FLT_MIN)
        return copysignf(0.0f, x);
    return x;
}

float semf_sat(float x)
{
    if (isnan(x) || x <= 0)
        return 0.0f;
    return x > 1.0f ? 1.0f : x;
}

static int sgn(double e)
{
    return e > 0 ? 1 : e < 0 ? -1 : 0;
}

static float round32(double x, int tiny, semf_rnd r)
{
    return semf_f32((uint32_t)semf_round(x, tiny, SEMF_F32, r));
}

/* Sign of an exact zero sum: -0 only when both addends are -0, or in round-down mode. */
static double zero_sum(double a, double b, semf_rnd r)
{
    if (signbit(a) && signbit(b))
        return -0.0;
    return r == SEMF_RM ? -0.0 : 0.0;
}

/* TwoSum: s + err == a + b exactly (round-to-nearest doubles, no overflow). */
static double two_sum_err(double a, double b, double s)
{
    double bb = s - a;
    return (a - (s - bb)) + (b - bb);
}

float semf_add32(float a, float b, semf_rnd r)
{
    double s = (double)a + (double)b;
    if (!isfinite(s))
        return round32(s, 0, r);
    if (s == 0)
        return (float)zero_sum(a, b, r);
    return round32(s, sgn(two_sum_err(a, b, s)), r);
}

float semf_mul32(float a, float b, semf_rnd r)
{
    return round32((double)a * (double)b, 0, r); /* 24x24-bit product: exact in a double */
}

float semf_fma32(float a, float b, float c, semf_rnd r)
{
    double p = (double)a * (double)b;
    double s = p + (double)c;
    if (!isfinite(s))
        return round32(s, 0, r);
    if (s == 0 && two_sum_err(p, c, s) == 0)
        return (float)zero_sum(p, c, r);
    return round32(s, sgn(two_sum_err(p, c, s)), r);
}

uint64_t semf_fma_fmt(double a, double b, double c, semf_fmt fmt, semf_rnd r)
{
    double p = a * b; /* exact for f32/f16/bf16 operands */
    double s = p + c;
    if (!isfinite(s))
        return semf_round(s, 0, fmt, r);
    double e = two_sum_err(p, c, s);
    if (s == 0 && e == 0)
        return semf_round(zero_sum(p, c, r), 0, fmt, r);
    return semf_round(s, sgn(e), fmt, r);
}

float semf_div32(float a, float b, semf_rnd r)
{
    double q = (double)a / (double)b;
    if (!isfinite(q) || q == 0)
        return round32(q, 0, r);
    double rem = fma(-q, (double)b, (double)a); /* a - q*b, exact */
    return round32(q, sgn(rem) * sgn(b), r);
}

float semf_sqrt32(float a, semf_rnd r)
{
    double q = sqrt((double)a);
    if (!isfinite(q) || q == 0)
        return round32(q, 0, r);
    return round32(q, sgn(fma(-q, q, (double)a)), r);
}

/* Finite operands that overflowed under round-to-nearest: directed modes may stop at DBL_MAX. */
static double ovf64(double s, semf_rnd r)
{
    int neg = signbit(s) != 0;
    if (r == SEMF_RN || rounds_away(r, neg))
        return s;
    return neg ? -DBL_MAX : DBL_MAX;
}

static double round64(double s, int tiny, semf_rnd r)
{
    return semf_f64(semf_round(s, tiny, SEMF_F64, r));
}

double semf_add64(double a, double b, semf_rnd r)
{
    double s = a + b;
    if (r == SEMF_RN)
        return s;
    if (isinf(s) && isfinite(a) && isfinite(b))
        return ovf64(s, r);
    if (!isfinite(s))
        return s;
    if (s == 0 && two_sum_err(a, b, s) == 0)
        return zero_sum(a, b, r);
    return round64(s, sgn(two_sum_err(a, b, s)), r);
}

double semf_mul64(double a, double b, semf_rnd r)
{
    double p = a * b;
    if (r == SEMF_RN)
        return p;
    if (isinf(p) && isfinite(a) && isfinite(b))
        return ovf64(p, r);
    if (!isfinite(p))
        return p;
    if (p == 0) {
        if (a == 0 || b == 0)
            return p;
        return round64(p, (signbit(a) != signbit(b)) ? -1 : 1, r); /* underflow to zero */
    }
    return round64(p, sgn(fma(a, b, -p)), r);
}

double semf_fma64(double a, double b, double c, semf_rnd r)
{
    double s = fma(a, b, c);
    if (r == SEMF_RN)
        return s;
    if (isinf(s) && isfinite(a) && isfinite(b) && isfinite(c))
        return ovf64(s, r);
    if (!isfinite(s))
        return s;
    /* a*b = ph + pl exactly; a*b + c - s estimated in double-double (sign almost always exact). */
    double ph = a * b, pl = fma(a, b, -ph);
    double s1 = ph + c, e1 = two_sum_err(ph, c, s1);
    double t = ((s1 - s) + e1) + pl;
    if (s == 0 && t == 0)
        return zero_sum(ph, c, r);
    return round64(s, sgn(t), r);
}

double semf_div64(double a, double b, semf_rnd r)
{
    double q = a / b;
    if (r == SEMF_RN)
        return q;
    if (isinf(q) && isfinite(a) && b != 0)
        return ovf64(q, r);
    if (!isfinite(q) || q == 0)
        return q;
    return round64(q, sgn(fma(-q, b, a)) * sgn(b), r);
}

double semf_sqrt64(double a, semf_rnd r)
{
    double q = sqrt(a);
    if (r == SEMF_RN || !isfinite(q) || q == 0)
        return q;
    return round64(q, sgn(fma(-q, q, a)), r);
}

double semf_min(double a, double b, int nan_prop)
{
    if (isnan(a) || isnan(b)) {
        if (nan_prop || (isnan(a) && isnan(b)))
            return NAN;
        return isnan(a) ? b : a;
    }
    if (a == b)
        return signbit(a) ? a : b;
    return a < b ? a : b;
}

double semf_max(double a, double b, int nan_prop)
{
    return -semf_min(-a, -b, nan_prop); /* mirror image; a NaN result stays a NaN */
}

int semf_cmp(int cmp, double a, double b)
{
    int un = isnan(a) || isnan(b);
    switch (cmp) {
    case SEM_CMP_EQ: return !un && a == b;
    case SEM_CMP_NE: return !un && a != b;
    case SEM_CMP_LT: return !un && a < b;
    case SEM_CMP_LE: return !un && a <= b;
    case SEM_CMP_GT: return !un && a > b;
    case SEM_CMP_GE: return !un && a >= b;
    case SEM_CMP_EQU: return un || a == b;
    case SEM_CMP_NEU: return un || a != b;
    case SEM_CMP_LTU: return un || a < b;
    case SEM_CMP_LEU: return un || a <= b;
    case SEM_CMP_GTU: return un || a > b;
    case SEM_CMP_GEU: return un || a >= b;
    case SEM_CMP_NUM: return !un;
    case SEM_CMP_NAN: return un;
    default: return 0;
    }
}

int semf_testp(int kind, double x, int is64)
{
    double lo = is64 ? DBL_MIN : FLT_MIN;
    switch (kind) {
    case 0: return isfinite(x) != 0;
    case 1: return isinf(x) != 0;
    case 2: return !isnan(x);
    case 3: return isnan(x) != 0;
    case 4: return isfinite(x) && fabs(x) >= lo;
    case 5: return x != 0 && fabs(x) < lo;
    default: return 0;
    }
}

double semf_sfu64(semf_sfu op, double x)
{
    switch (op) {
    case SEMF_EX2: return exp2(x);
    case SEMF_LG2: return log2(x);
    case SEMF_SIN: return sin(x);
    case SEMF_COS: return cos(x);
    case SEMF_RSQRT: return 1.0 / sqrt(x);
    case SEMF_SQRT: return sqrt(x);
    case SEMF_RCP: return 1.0 / x;
    case SEMF_TANH: return tanh(x);
    }
    return NAN;
}

float semf_sfu32(semf_sfu op, float x)
{
    return round32(semf_sfu64(op, x), 0, SEMF_RN);
}

double semf_round_int(double x, semf_rnd irnd)
{
    switch (irnd) {
    case SEMF_RZ: return trunc(x);
    case SEMF_RM: return floor(x);
    case SEMF_RP: return ceil(x);
    default: return nearbyint(x); /* the host stays in round-to-nearest-even */
    }
}

uint64_t semf_to_int(double x, semf_rnd irnd, int bits, int is_signed)
{
    if (isnan(x))
        return 0;
    x = semf_round_int(x, irnd);
    if (is_signed) {
        double hi = ldexp(1.0, bits - 1); /* 2^(bits-1), exact */
        if (x >= hi)
            return sem_zext((UINT64_C(1) << (bits - 1)) - 1, bits);
        if (x < -hi)
            return sem_zext(UINT64_C(1) << (bits - 1), bits);
        return sem_zext((uint64_t)(int64_t)x, bits);
    }
    if (x <= 0)
        return 0;
    if (x >= ldexp(1.0, bits))
        return sem_zext(~UINT64_C(0), bits);
    return (uint64_t)x;
}

uint64_t semf_from_int(uint64_t v, int is_signed, semf_fmt fmt, semf_rnd r)
{
    int neg = is_signed && (int64_t)v < 0;
    uint64_t mag = neg ? (uint64_t)0 - v : v;
    double x = (double)mag; /* round to nearest */
    int err; /* sign of mag - x */
    if (x >= 18446744073709551616.0)
        err = -1;
    else {
        uint64_t xi = (uint64_t)x;
        err = mag > xi ? 1 : mag < xi ? -1 : 0;
    }
    return semf_round(neg ? -x : x, neg ? -err : err, fmt, r);
}
