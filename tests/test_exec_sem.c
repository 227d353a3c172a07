/* exec semantics (sem.h, semf.h): each PTX operation family on hand-computed values, including
 * the edge cases: shifts >= width, division by zero, NaN, subnormals with and without .ftz,
 * .sat, every rounding mode, cvt saturation, f16/bf16 rounding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "sem.h"
#include "semf.h"

#define EQ(got, want)                                                                              \
    do {                                                                                           \
        unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want);        \
        if (g_ != w_)                                                                              \
            fail_msg("%s = 0x%llx, want 0x%llx", #got, g_, w_);                                    \
    } while (0)

#define F32(f) semf_bits32(f)

static void test_shifts(void **state)
{
    (void)state;
    EQ(sem_shl(1, 31, 32), 0x80000000u);
    EQ(sem_shl(1, 32, 32), 0);           /* shift >= width: 0 */
    EQ(sem_shl(1, 0xffffffffu, 32), 0);
    EQ(sem_shl(1, 63, 64), 0x8000000000000000ull);
    EQ(sem_shl(1, 64, 64), 0);
    EQ(sem_shr(0x80000000u, 31, 32, 0), 1);
    EQ(sem_shr(0x80000000u, 32, 32, 0), 0);
    EQ(sem_shr(0x80000000u, 40, 32, 1), 0xffffffffu); /* arithmetic: sign fill */
    EQ(sem_shr(0x40000000u, 40, 32, 1), 0);
    EQ(sem_shr(0x8000000000000000ull, 99, 64, 1), 0xffffffffffffffffull);
    EQ(sem_shr(0xff00, 4, 16, 1), 0xfff0);
    EQ(sem_shf(0x80000000u, 1, 1, 1, 0), 3);      /* shf.l.wrap */
    EQ(sem_shf(0x80000000u, 1, 33, 1, 0), 3);     /* wrap: 33 & 31 = 1 */
    EQ(sem_shf(0x80000000u, 1, 40, 1, 1), 0x80000000u); /* clamp to 32: a */
    EQ(sem_shf(1, 1, 1, 0, 1), 0x80000000u);      /* shf.r */
    EQ(sem_shf(1, 1, 32, 0, 1), 1);               /* shf.r.clamp by 32: b */
}

static void test_divrem(void **state)
{
    (void)state;
    EQ(sem_div(7, 0, 32, 0), 0xffffffffu); /* unsigned x/0 = all ones */
    EQ(sem_div(7, 0, 32, 1), 0xffffffffu); /* signed x/0 = -1 */
    EQ(sem_div(7, 0, 64, 0), 0xffffffffffffffffull);
    EQ(sem_rem(7, 0, 32, 0), 7);           /* x%0 = x */
    EQ(sem_div(0x80000000u, 0xffffffffu, 32, 1), 0x80000000u); /* INT_MIN/-1 wraps */
    EQ(sem_rem(0x80000000u, 0xffffffffu, 32, 1), 0);
    EQ(sem_div((uint32_t)-7, 2, 32, 1), (uint32_t)-3); /* truncates toward zero */
    EQ(sem_rem((uint32_t)-7, 2, 32, 1), (uint32_t)-1);
    EQ(sem_div((uint32_t)-7, 2, 32, 0), 0x7ffffffcu);
    EQ(sem_div(0xfff9, 2, 16, 1), 0xfffd);
}

static void test_mul(void **state)
{
    (void)state;
    EQ(sem_mul_hi(0xffffffffu, 0xffffffffu, 32, 0), 0xfffffffeu);
    EQ(sem_mul_hi(0xffffffffu, 0xffffffffu, 32, 1), 0);           /* (-1)*(-1) = 1 */
    EQ(sem_mul_hi(0x80000000u, 0x80000000u, 32, 1), 0x40000000u); /* 2^62 */
    EQ(sem_mul_hi(~0ull, ~0ull, 64, 0), 0xfffffffffffffffeull);
    EQ(sem_mul_hi(~0ull, 2, 64, 1), ~0ull);                      /* -2: high word all ones */
    EQ(sem_mul24(0x00ffffffu, 0x00ffffffu, 0, 0), 0xfe000001u);
    EQ(sem_mul24(0x00ffffffu, 0x00ffffffu, 1, 0), 0xfffffe00u);  /* bits 47..16 */
    EQ(sem_mul24(0xff800000u, 2, 0, 1), 0xff000000u);            /* -2^23 * 2 */
    EQ(sem_mul24(0x12ffffffu, 1, 0, 0), 0x00ffffffu);            /* upper 8 bits ignored */
    EQ((uint32_t)sem_add_sat_s32(INT32_MAX, 1), (uint32_t)INT32_MAX);
    EQ((uint32_t)sem_sub_sat_s32(INT32_MIN, 1), (uint32_t)INT32_MIN);
    EQ((uint32_t)sem_add_sat_s32(-5, 3), (uint32_t)-2);
}

static void test_bits(void **state)
{
    (void)state;
    EQ(sem_bfe(0x12345678u, 8, 8, 32, 0), 0x56);
    EQ(sem_bfe(0x0000f000u, 12, 4, 32, 1), 0xffffffffu); /* sign of the field */
    EQ(sem_bfe(0x0000f000u, 12, 5, 32, 1), 0xf);
    EQ(sem_bfe(0xffffffffu, 4, 0, 32, 1), 0);            /* len 0 */
    EQ(sem_bfe(0x80000000u, 30, 8, 32, 0), 2);           /* field runs past bit 31 */
    EQ(sem_bfe(0x80000000u, 30, 8, 32, 1), 0xfffffffeu);
    EQ(sem_bfe(0x80000000u, 40, 8, 32, 1), 0xffffffffu); /* pos past msb: sign of bit 31 */
    EQ(sem_bfe(0x80000000u, 300, 8, 32, 0), 0x80000000u >> 31 >> 1); /* pos = 300 & 0xff = 44 */
    EQ(sem_bfi(0xff, 0x12345678u, 8, 4, 32), 0x12345f78u);
    EQ(sem_bfi(0xff, 0x12345678u, 30, 8, 32), 0xd2345678u);
    EQ(sem_bfi(0xff, 0x12345678u, 8, 0, 32), 0x12345678u);
    uint32_t a = 0x33221100u, b = 0x77665544u;
    EQ(sem_prmt(a, b, 0x1234, SEM_PRMT_DEFAULT), 0x11223344u);
    EQ(sem_prmt(0x80, 0, 0x0008, SEM_PRMT_DEFAULT), 0x808080ffu); /* sign replicate */
    EQ(sem_prmt(a, b, 1, SEM_PRMT_F4E), 0x44332211u);
    EQ(sem_prmt(a, b, 0, SEM_PRMT_B4E), 0x55667700u);
    EQ(sem_prmt(a, b, 2, SEM_PRMT_RC8), 0x22222222u);
    EQ(sem_prmt(a, b, 2, SEM_PRMT_ECL), 0x33222222u);
    EQ(sem_prmt(a, b, 1, SEM_PRMT_ECR), 0x11111100u);
    EQ(sem_prmt(a, b, 1, SEM_PRMT_RC16), 0x33223322u);
    EQ(sem_lop3(0xc, 0xa, 0x9, 0xe8), 0x8 | (~0ull << 4 & 0)); /* majority */
    EQ(sem_lop3(0xc, 0xa, 0x9, 0x96) & 0xf, 0xf);               /* a^b^c */
    EQ(sem_lop3(0xc, 0xa, 0x9, 0x80) & 0xf, 0x8);               /* a&b&c */
    EQ(sem_popc(0xf0f0f0f0u, 32), 16);
    EQ(sem_popc(~0ull, 64), 64);
    EQ(sem_clz(0, 32), 32);
    EQ(sem_clz(1, 64), 63);
    EQ(sem_clz(0x00010000u, 32), 15);
    EQ(sem_brev(1, 32), 0x80000000u);
    EQ(sem_brev(0x12345678u, 32), 0x1e6a2c48u);
    EQ(sem_brev(1, 64), 0x8000000000000000ull);
    EQ(sem_bfind(0x00010000u, 32, 0, 0), 16);
    EQ(sem_bfind(0x00010000u, 32, 0, 1), 15);
    EQ(sem_bfind(0, 32, 0, 0), 0xffffffffu);
    EQ(sem_bfind(0xffffffffu, 32, 1, 0), 0xffffffffu); /* -1: no non-sign bit */
    EQ(sem_bfind(~0x10000u, 32, 1, 0), 16);
}

static void test_icmp(void **state)
{
    (void)state;
    uint64_t m1 = sem_sext(0xffffffffu, 32);
    EQ(sem_icmp(SEM_CMP_LT, m1, 0, 1), 1);
    EQ(sem_icmp(SEM_CMP_LO, 0xffffffffu, 0, 0), 0);
    EQ(sem_icmp(SEM_CMP_HS, 0xffffffffu, 0xffffffffu, 0), 1);
    EQ(sem_icmp(SEM_CMP_GE, 3, 4, 1), 0);
    EQ(sem_icmp(SEM_CMP_NE, 3, 4, 0), 1);
    EQ(sem_cmp_parse("leu"), SEM_CMP_LEU);
    EQ(sem_cmp_parse("xx") + 1, 0);
    EQ(sem_min(m1, 1, 1), m1);
    EQ(sem_min(0xffffffffu, 1, 0), 1);
    EQ(sem_max(m1, 1, 1), 1);
}

static void test_rounding_f32(void **state)
{
    (void)state;
    float one = 1.0f, tie = ldexpf(1, -24), below = -ldexpf(1, -25);
    float up = nextafterf(1.0f, 2.0f), dn = nextafterf(1.0f, 0.0f);
    EQ(F32(semf_add32(one, tie, SEMF_RN)), F32(one)); /* tie: to even */
    EQ(F32(semf_add32(one, tie, SEMF_RP)), F32(up));
    EQ(F32(semf_add32(one, tie, SEMF_RZ)), F32(one));
    EQ(F32(semf_add32(one, tie, SEMF_RM)), F32(one));
    EQ(F32(semf_add32(one, below, SEMF_RN)), F32(one));
    EQ(F32(semf_add32(one, below, SEMF_RZ)), F32(dn));
    EQ(F32(semf_add32(one, below, SEMF_RM)), F32(dn));
    EQ(F32(semf_add32(one, below, SEMF_RP)), F32(one));
    EQ(F32(semf_add32(-one, -tie, SEMF_RM)), F32(-up)); /* negative: RM rounds away */
    EQ(F32(semf_add32(one, -one, SEMF_RM)), 0x80000000u); /* exact zero: -0 in RM */
    EQ(F32(semf_add32(one, -one, SEMF_RN)), 0);
    float e = 1.0f + ldexpf(1, -23);
    EQ(F32(semf_mul32(e, e, SEMF_RN)), F32(1.0f + ldexpf(1, -22)));
    EQ(F32(semf_mul32(e, e, SEMF_RP)), F32(1.0f + ldexpf(3, -23)));
    EQ(F32(semf_mul32(e, e, SEMF_RZ)), F32(1.0f + ldexpf(1, -22)));
    EQ(F32(semf_div32(1, 3, SEMF_RN)), 0x3eaaaaabu);
    EQ(F32(semf_div32(1, 3, SEMF_RZ)), 0x3eaaaaaau);
    EQ(F32(semf_div32(1, 3, SEMF_RM)), 0x3eaaaaaau);
    EQ(F32(semf_div32(1, 3, SEMF_RP)), 0x3eaaaaabu);
    EQ(F32(semf_div32(-1, 3, SEMF_RM)), 0xbeaaaaabu);
    EQ(F32(semf_div32(-1, 3, SEMF_RP)), 0xbeaaaaaau);
    EQ(F32(semf_sqrt32(2, SEMF_RN)), 0x3fb504f3u);
    EQ(F32(semf_sqrt32(2, SEMF_RZ)), 0x3fb504f3u);
    EQ(F32(semf_sqrt32(2, SEMF_RP)), 0x3fb504f4u);
    /* fma: single rounding (a*b + c where a*b is not representable) */
    float a = 1.0f + ldexpf(1, -12);
    EQ(F32(semf_fma32(a, a, -1.0f, SEMF_RN)), F32(ldexpf(1, -11) + ldexpf(1, -24)));
    /* overflow: RN/away give inf, toward zero the largest finite */
    EQ(F32(semf_add32(FLT_MAX, FLT_MAX, SEMF_RN)), 0x7f800000u);
    EQ(F32(semf_add32(FLT_MAX, FLT_MAX, SEMF_RZ)), F32(FLT_MAX));
    EQ(F32(semf_add32(FLT_MAX, FLT_MAX, SEMF_RM)), F32(FLT_MAX));
    EQ(F32(semf_add32(-FLT_MAX, -FLT_MAX, SEMF_RM)), 0xff800000u);
    /* subnormal results are kept (no ftz) and rounded */
    EQ(F32(semf_mul32(ldexpf(1, -140), ldexpf(1, -9), SEMF_RN)), 0x00000001u);  /* 2^-149 */
    EQ(F32(semf_mul32(ldexpf(1, -140), ldexpf(1, -10), SEMF_RN)), 0);          /* tie to even */
    EQ(F32(semf_mul32(ldexpf(1, -140), ldexpf(1, -10), SEMF_RP)), 0x00000001u);
    EQ(F32(semf_mul32(ldexpf(3, -140), ldexpf(1, -10), SEMF_RN)), 0x00000002u); /* 1.5: up */
}

static void test_rounding_f64(void **state)
{
    (void)state;
    double one = 1.0, up = nextafter(1.0, 2.0), dn = nextafter(1.0, 0.0);
    EQ(semf_bits64(semf_add64(one, ldexp(1, -53), SEMF_RN)), semf_bits64(one));
    EQ(semf_bits64(semf_add64(one, ldexp(1, -53), SEMF_RP)), semf_bits64(up));
    EQ(semf_bits64(semf_add64(one, -ldexp(1, -54), SEMF_RZ)), semf_bits64(dn));
    EQ(semf_bits64(semf_add64(DBL_MAX, DBL_MAX, SEMF_RZ)), semf_bits64(DBL_MAX));
    EQ(semf_bits64(semf_div64(1, 3, SEMF_RZ)), 0x3fd5555555555555ull);
    EQ(semf_bits64(semf_div64(1, 3, SEMF_RP)), 0x3fd5555555555556ull);
    EQ(semf_bits64(semf_mul64(up, up, SEMF_RP)), semf_bits64(1.0 + ldexp(3, -52)));
    EQ(semf_bits64(semf_mul64(up, up, SEMF_RN)), semf_bits64(1.0 + ldexp(1, -51)));
    /* sqrt(2) rounded to nearest is above the true value: RP keeps it, RZ steps down */
    EQ(semf_bits64(semf_sqrt64(2, SEMF_RP)), 0x3ff6a09e667f3bcdull);
    EQ(semf_bits64(semf_sqrt64(2, SEMF_RZ)), 0x3ff6a09e667f3bccull);
    EQ(semf_bits64(semf_fma64(up, up, -1.0, SEMF_RM)), semf_bits64(ldexp(1, -51) + ldexp(1, -104)));
}

static void test_ftz_sat_minmax(void **state)
{
    (void)state;
    float sub = ldexpf(1, -130);
    EQ(F32(semf_ftz(sub)), 0);
    EQ(F32(semf_ftz(-sub)), 0x80000000u); /* sign kept */
    EQ(F32(semf_ftz(FLT_MIN)), F32(FLT_MIN));
    EQ(F32(semf_sat(NAN)), 0);
    EQ(F32(semf_sat(-0.5f)), 0);
    EQ(F32(semf_sat(1.5f)), F32(1.0f));
    EQ(F32(semf_sat(0.25f)), F32(0.25f));
    EQ(F32((float)semf_min(NAN, 1.0, 0)), F32(1.0f));
    EQ(isnan(semf_min(NAN, 1.0, 1)), 1);
    EQ(signbit(semf_min(0.0, -0.0, 0)) != 0, 1);
    EQ(signbit(semf_max(-0.0, 0.0, 0)) != 0, 0);
    EQ(semf_cmp(SEM_CMP_EQ, NAN, NAN), 0);
    EQ(semf_cmp(SEM_CMP_NE, NAN, 1), 0);
    EQ(semf_cmp(SEM_CMP_NEU, NAN, 1), 1);
    EQ(semf_cmp(SEM_CMP_LTU, NAN, 1), 1);
    EQ(semf_cmp(SEM_CMP_LT, 0.0, 1), 1);
    EQ(semf_cmp(SEM_CMP_NUM, 0.0, NAN), 0);
    EQ(semf_cmp(SEM_CMP_NAN, 0.0, NAN), 1);
    EQ(semf_cmp(SEM_CMP_EQ, 0.0, -0.0), 1);
    EQ(semf_testp(5, sub, 0), 1);
    EQ(semf_testp(4, sub, 0), 0);
    EQ(semf_testp(4, sub, 1), 1); /* a normal double */
    EQ(semf_testp(1, -INFINITY, 0), 1);
    EQ(semf_testp(0, NAN, 0), 0);
}

static void test_cvt(void **state)
{
    (void)state;
    EQ(semf_to_int(NAN, SEMF_RZ, 32, 1), 0);
    EQ(semf_to_int(3e9, SEMF_RZ, 32, 1), 0x7fffffffu);
    EQ(semf_to_int(-3e9, SEMF_RZ, 32, 1), 0x80000000u);
    EQ(semf_to_int(-1.5, SEMF_RZ, 32, 0), 0);
    EQ(semf_to_int(1e20, SEMF_RZ, 64, 0), ~0ull);
    EQ(semf_to_int(300.0, SEMF_RZ, 8, 0), 255);
    EQ(semf_to_int(-300.0, SEMF_RZ, 8, 1), 0x80);
    EQ(semf_to_int(2.5, SEMF_RN, 32, 1), 2); /* rni: ties to even */
    EQ(semf_to_int(3.5, SEMF_RN, 32, 1), 4);
    EQ(semf_to_int(-2.5, SEMF_RN, 32, 1), (uint32_t)-2);
    EQ(semf_to_int(-2.5, SEMF_RM, 32, 1), (uint32_t)-3);
    EQ(semf_to_int(2.1, SEMF_RP, 32, 1), 3);
    EQ(semf_to_int(-2.9, SEMF_RZ, 32, 1), (uint32_t)-2);
    EQ(semf_from_int(~0ull, 0, SEMF_F32, SEMF_RN), 0x5f800000u); /* 2^64 */
    EQ(semf_from_int(~0ull, 0, SEMF_F32, SEMF_RZ), 0x5f7fffffu);
    EQ(semf_from_int(16777217, 1, SEMF_F32, SEMF_RN), F32(16777216.0f));
    EQ(semf_from_int(16777217, 1, SEMF_F32, SEMF_RP), F32(16777218.0f));
    EQ(semf_from_int((uint64_t)-16777217, 1, SEMF_F32, SEMF_RM), F32(-16777218.0f));
    EQ(semf_from_int((uint64_t)-16777217, 1, SEMF_F32, SEMF_RZ), F32(-16777216.0f));
    EQ(semf_from_int(((uint64_t)1 << 53) + 1, 0, SEMF_F64, SEMF_RP),
       semf_bits64(ldexp(1, 53) + 2));
    EQ(semf_round(1.0, 0, SEMF_F16, SEMF_RN), 0x3c00);
    EQ(semf_round(65520.0, 0, SEMF_F16, SEMF_RN), 0x7c00); /* halfway to 65536: to inf */
    EQ(semf_round(65520.0, 0, SEMF_F16, SEMF_RZ), 0x7bff);
    EQ(semf_round(ldexp(1, -25), 0, SEMF_F16, SEMF_RN), 0);    /* half the min subnormal */
    EQ(semf_round(ldexp(1, -25), 0, SEMF_F16, SEMF_RP), 1);
    EQ(semf_round(-ldexp(1, -25), 0, SEMF_F16, SEMF_RM), 0x8001);
    EQ(semf_round(1.0 / 3, 0, SEMF_F16, SEMF_RN), 0x3555);
    EQ(semf_round(1.0 / 3, 0, SEMF_BF16, SEMF_RN), 0x3eab);
    EQ(semf_round(1.0 / 3, 0, SEMF_BF16, SEMF_RZ), 0x3eaa);
    EQ(semf_round(NAN, 0, SEMF_F16, SEMF_RN), 0x7fff);
    EQ(semf_round(-INFINITY, 0, SEMF_BF16, SEMF_RN), 0xff80);
    EQ(semf_bits64(semf_decode(0x3555, SEMF_F16)), semf_bits64(0.333251953125));
    EQ(semf_bits64(semf_decode(0x0001, SEMF_F16)), semf_bits64(ldexp(1, -24)));
    EQ(semf_bits64(semf_decode(0xfc00, SEMF_F16)), semf_bits64(-INFINITY));
    EQ(semf_bits64(semf_decode(0x3f80, SEMF_BF16)), semf_bits64(1.0));
    EQ(semf_bits64(semf_round_int(-0.5, SEMF_RN)), semf_bits64(-0.0));
    EQ(semf_bits64(semf_round_int(-0.5, SEMF_RM)), semf_bits64(-1.0));
}

static void test_sfu(void **state)
{
    (void)state;
    EQ(F32(semf_sfu32(SEMF_EX2, 10.0f)), F32(1024.0f));
    EQ(F32(semf_sfu32(SEMF_LG2, 8.0f)), F32(3.0f));
    EQ(F32(semf_sfu32(SEMF_LG2, 0.0f)), 0xff800000u); /* -inf */
    EQ(isnan(semf_sfu32(SEMF_LG2, -1.0f)), 1);
    EQ(F32(semf_sfu32(SEMF_RSQRT, 4.0f)), F32(0.5f));
    EQ(isnan(semf_sfu32(SEMF_RSQRT, -1.0f)), 1);
    EQ(F32(semf_sfu32(SEMF_SIN, 0.0f)), 0);
    EQ(F32(semf_sfu32(SEMF_COS, 0.0f)), F32(1.0f));
    EQ(F32(semf_sfu32(SEMF_TANH, 0.0f)), 0);
    EQ(F32(semf_sfu32(SEMF_RCP, 4.0f)), F32(0.25f));
    /* the documented bound: within 1 ulp of the correctly rounded result */
    float s = semf_sfu32(SEMF_SIN, 1.0f);
    if (fabsf(s - 0.84147098f) > 6e-8f)
        fail_msg("sin(1) = %.9g", s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shifts),        cmocka_unit_test(test_divrem),
        cmocka_unit_test(test_mul),           cmocka_unit_test(test_bits),
        cmocka_unit_test(test_icmp),          cmocka_unit_test(test_rounding_f32),
        cmocka_unit_test(test_rounding_f64),  cmocka_unit_test(test_ftz_sat_minmax),
        cmocka_unit_test(test_cvt),           cmocka_unit_test(test_sfu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
