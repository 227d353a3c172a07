/* xopf: per-lane floating-point arithmetic of the executor: f32/f64 with rounding modes, .ftz,
 * .sat, the SFU approximations, f16/bf16 (scalar and x2), testp, copysign. Semantics in semf.h. */
#include <float.h>
#include <math.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "exec_int.h"
#include "ptx.h"
#include "sem.h"
#include "semf.h"
#include "xlane.h"

/* Half-precision (f16/bf16, scalar or x2) ops computed in double and rounded once to the half
 * format: exact for add/sub/mul (the double result is exact) and fma (semf_fma_fmt). */
static uint64_t half_op(int op, uint64_t a, uint64_t b, uint64_t c, int k, semf_rnd r, int sat,
                        uint32_t flags)
{
    int pairs = (k == XK_H2 || k == XK_BF2) ? 2 : 1;
    int sk = (k == XK_H2) ? XK_H : (k == XK_BF2) ? XK_BF : k;
    uint64_t out = 0;
    if (op == PTX_OP_NEG)
        return a ^ (pairs == 2 ? 0x80008000u : 0x8000u);
    if (op == PTX_OP_ABS)
        return a & (pairs == 2 ? 0x7fff7fffu : 0x7fffu);
    for (int h = 0; h < pairs; h++) {
        double x = fget(a >> (16 * h), sk, 16, 0), y = fget(b >> (16 * h), sk, 16, 0);
        double z = fget(c >> (16 * h), sk, 16, 0), v;
        switch (op) {
        case PTX_OP_ADD: v = x + y; break;
        case PTX_OP_SUB: v = x - y; break;
        case PTX_OP_MUL: v = x * y; break;
        case PTX_OP_FMA: case PTX_OP_MAD: {
            /* single rounding, exact (the product of two halves is exact in a double) */
            uint64_t hb = semf_fma_fmt(x, y, z, hfmt(sk), r);
            v = semf_decode(hb, hfmt(sk));
            break;
        }
        case PTX_OP_MIN: v = semf_min(x, y, (flags & PTX_F_NAN) != 0); break;
        case PTX_OP_MAX: v = semf_max(x, y, (flags & PTX_F_NAN) != 0); break;
        default: v = NAN; break;
        }
        if ((flags & PTX_F_RELU) && !(v >= 0))
            v = isnan(v) ? v : 0.0;
        out |= (fput(v, sk, 16, r, 0, sat) & 0xffff) << (16 * h);
    }
    return out;
}

/* fma.rn.f32 for 32 lanes. With the host's FMA instruction (checked at run time) it is one
 * correctly rounded operation per lane. Without it: a*b is exact in a double; s = a*b + c rounds
 * once in double and once more to float, which is wrong only when s lands exactly on a float
 * midpoint (or in the subnormal range): those lanes are redone exactly. Same bits either way. */
#if defined(__x86_64__) && defined(__GNUC__)
/* Eight lanes per step: the low halves of eight 64-bit slots packed into one vector of floats
 * (the shuffle leaves them in lane order 0 1 4 5 2 3 6 7; the zero-extending unpacks put them
 * back), one vfmadd, NaN results replaced by the canonical 0x7fffffff (FB). Dv may be one of the
 * sources: each step reads its eight lanes before it writes them. */
__attribute__((target("avx2,fma"))) static void fma32_hw(const uint64_t *A, const uint64_t *B,
                                                         const uint64_t *C, uint64_t *T)
{
    const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256i zero = _mm256_setzero_si256();
    for (int l = 0; l < 32; l += 8) {
#define XF_PACK8(P)                                                                                \
    _mm256_shuffle_ps(_mm256_loadu_ps((const float *)((P) + l)),                                   \
                      _mm256_loadu_ps((const float *)((P) + l + 4)), 0x88)
        __m256 a = XF_PACK8(A), b = XF_PACK8(B), c = XF_PACK8(C);
#undef XF_PACK8
        __m256 r = _mm256_fmadd_ps(a, b, c);
        r = _mm256_blendv_ps(r, qnan, _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
        __m256i ri = _mm256_castps_si256(r);
        _mm256_storeu_si256((__m256i *)(T + l), _mm256_unpacklo_epi32(ri, zero));
        _mm256_storeu_si256((__m256i *)(T + l + 4), _mm256_unpackhi_epi32(ri, zero));
    }
}
#define HAVE_FMA_HW() __builtin_cpu_supports("fma")
#else
#define HAVE_FMA_HW() 0
static void fma32_hw(const uint64_t *A, const uint64_t *B, const uint64_t *C, uint64_t *T)
{
    LOOP(T[l] = FB(fmaf(F(A[l]), F(B[l]), F(C[l]))));
}
#endif

/* The same for narrow slots (32 lanes of 32 bits): eight lanes per vfmadd, no packing. D may
 * be one of the sources. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void fma32_hw_n(const uint32_t *A, const uint32_t *B,
                                                           const uint32_t *C, uint32_t *D)
{
    const __m256 qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    for (int l = 0; l < 32; l += 8) {
        __m256 a = _mm256_loadu_ps((const float *)(const void *)(A + l));
        __m256 b = _mm256_loadu_ps((const float *)(const void *)(B + l));
        __m256 c = _mm256_loadu_ps((const float *)(const void *)(C + l));
        __m256 r = _mm256_fmadd_ps(a, b, c);
        r = _mm256_blendv_ps(r, qnan, _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
        _mm256_storeu_ps((float *)(void *)(D + l), r);
    }
}
#else
static void fma32_hw_n(const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *D)
{
    LOOP(D[l] = (uint32_t)FB(fmaf(F(A[l]), F(B[l]), F(C[l]))));
}
#endif

void xopf_fma32_rn_n(const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *D)
{
    if (HAVE_FMA_HW()) {
        fma32_hw_n(A, B, C, D);
        return;
    }
    uint64_t a[32], b[32], c[32], t[32];
    LOOP(a[l] = A[l]; b[l] = B[l]; c[l] = C[l]);
    xopf_fma32_rn(a, b, c, t);
    LOOP(D[l] = (uint32_t)t[l]);
}

void xopf_fma32_rn(const uint64_t *A, const uint64_t *B, const uint64_t *C, uint64_t *Dv)
{
    if (HAVE_FMA_HW()) {
        fma32_hw(A, B, C, Dv);
        return;
    }
    uint64_t redo[32], any = 0;
    LOOP({
        double s2 = (double)F(A[l]) * (double)F(B[l]) + (double)F(C[l]);
        uint64_t sb = semf_bits64(s2);
        redo[l] = ((sb & 0x1fffffffu) == 0x10000000u) |
                  ((sb & 0x7fffffffffffffffu) < UINT64_C(0x3810000000000000));
        Dv[l] = FB((float)s2);
    });
    LOOP(any |= redo[l]);
    if (any)
        for (int l = 0; l < 32; l++)
            if (redo[l])
                Dv[l] = FB(semf_fma32(F(A[l]), F(B[l]), F(C[l]), SEMF_RN));
}

wl_status xopf_exec(const xinsn *in, uint64_t *regs, uint64_t *Dv, diag_t *d)
{
    int k = in->k0, w = in->w0, op = in->op;
    int ftz = (in->flags & PTX_F_FTZ) != 0, sat = (in->flags & PTX_F_SAT) != 0;
    semf_rnd r = frnd(in);
    int bits = in->o[0].bits;
    uint64_t xa[32], xb[32], xc[32];
    const uint64_t *A = in->nops > 1 ? XSRC(&in->o[1], regs, xa) : NULL;
    const uint64_t *B = in->nops > 2 ? XSRC(&in->o[2], regs, xb) : NULL;
    const uint64_t *C = in->nops > 3 ? XSRC(&in->o[3], regs, xc) : NULL;
    if (op == PTX_OP_TESTP) {
        int kk = in->k0 == XK_F ? XK_F : in->k1;
        LOOP(Dv[l] = (uint64_t)semf_testp(in->mode - 1, fget(A[l], kk, w, 0), w == 64));
        return WL_OK;
    }
    if (k != XK_F) { /* f16 / bf16 (x2) */
        switch (op) {
        case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MIN: case PTX_OP_MAX:
            LOOP(Dv[l] = zx(half_op(op, A[l], B[l], 0, k, r, sat, in->flags), bits));
            return WL_OK;
        case PTX_OP_FMA: case PTX_OP_MAD:
            LOOP(Dv[l] = zx(half_op(op, A[l], B[l], C[l], k, r, sat, in->flags), bits));
            return WL_OK;
        case PTX_OP_NEG: case PTX_OP_ABS:
            LOOP(Dv[l] = zx(half_op(op, A[l], 0, 0, k, r, sat, in->flags), bits));
            return WL_OK;
        default: return xop_unsup(in, d);
        }
    }
    if (w == 32) {
        int fast = r == SEMF_RN && !ftz && !sat;
        switch (op) {
        case PTX_OP_ADD: case PTX_OP_SUB: {
            float sg = op == PTX_OP_SUB ? -1.0f : 1.0f;
            if (fast)
                LOOP(Dv[l] = FB(F(A[l]) + sg * F(B[l])));
            else
                LOOP(Dv[l] = fput(semf_add32(ftz ? semf_ftz(F(A[l])) : F(A[l]),
                                             sg * (ftz ? semf_ftz(F(B[l])) : F(B[l])), r),
                                  XK_F, 32, SEMF_RN, ftz, sat));
            return WL_OK;
        }
        case PTX_OP_MUL:
            if (fast)
                LOOP(Dv[l] = FB(F(A[l]) * F(B[l])));
            else
                LOOP(Dv[l] = fput(semf_mul32((float)fget(A[l], k, w, ftz),
                                             (float)fget(B[l], k, w, ftz), r),
                                  XK_F, 32, SEMF_RN, ftz, sat));
            return WL_OK;
        case PTX_OP_FMA: case PTX_OP_MAD:
            if (fast) {
                xopf_fma32_rn(A, B, C, Dv);
            } else
                LOOP(Dv[l] = fput(semf_fma32((float)fget(A[l], k, w, ftz),
                                             (float)fget(B[l], k, w, ftz),
                                             (float)fget(C[l], k, w, ftz), r),
                                  XK_F, 32, SEMF_RN, ftz, sat));
            return WL_OK;
        case PTX_OP_DIV:
            /* div.rn is IEEE; div.approx / div.full are modelled exactly (error 0 <= spec) */
            LOOP(Dv[l] = fput(semf_div32((float)fget(A[l], k, w, ftz),
                                         (float)fget(B[l], k, w, ftz), r),
                              XK_F, 32, SEMF_RN, ftz, sat));
            return WL_OK;
        case PTX_OP_SQRT: case PTX_OP_RCP:
            if (!(in->flags & PTX_F_APPROX)) {
                LOOP({
                    float x = (float)fget(A[l], k, w, ftz);
                    float v = op == PTX_OP_SQRT ? semf_sqrt32(x, r) : semf_div32(1.0f, x, r);
                    Dv[l] = fput(v, XK_F, 32, SEMF_RN, ftz, sat);
                });
                return WL_OK;
            }
            /* .approx forms are SFU ops */
            __attribute__((fallthrough));
        case PTX_OP_RSQRT: case PTX_OP_SIN: case PTX_OP_COS: case PTX_OP_LG2:
        case PTX_OP_EX2: case PTX_OP_TANH: {
            semf_sfu f = op == PTX_OP_SQRT ? SEMF_SQRT : op == PTX_OP_RCP ? SEMF_RCP :
                         op == PTX_OP_RSQRT ? SEMF_RSQRT : op == PTX_OP_SIN ? SEMF_SIN :
                         op == PTX_OP_COS ? SEMF_COS : op == PTX_OP_LG2 ? SEMF_LG2 :
                         op == PTX_OP_EX2 ? SEMF_EX2 : SEMF_TANH;
            LOOP(Dv[l] = fput(semf_sfu32(f, (float)fget(A[l], k, w, ftz)), XK_F, 32, SEMF_RN,
                              ftz, sat));
            return WL_OK;
        }
        case PTX_OP_ABS:
            LOOP(Dv[l] = semf_bits32((float)fget(A[l], k, w, ftz)) & 0x7fffffffu);
            return WL_OK;
        case PTX_OP_NEG:
            LOOP(Dv[l] = semf_bits32((float)fget(A[l], k, w, ftz)) ^ 0x80000000u);
            return WL_OK;
        case PTX_OP_MIN: case PTX_OP_MAX: {
            int np = (in->flags & PTX_F_NAN) != 0, relu = (in->flags & PTX_F_RELU) != 0;
            LOOP({
                double x = fget(A[l], k, w, ftz), y = fget(B[l], k, w, ftz);
                double v = op == PTX_OP_MIN ? semf_min(x, y, np) : semf_max(x, y, np);
                if (relu && v < 0)
                    v = 0;
                Dv[l] = FB((float)v);
            });
            return WL_OK;
        }
        case PTX_OP_COPYSIGN:
            LOOP(Dv[l] = (B[l] & 0x7fffffffu) | (A[l] & 0x80000000u));
            return WL_OK;
        default: return xop_unsup(in, d);
        }
    }
    /* f64 */
    switch (op) {
    case PTX_OP_ADD: LOOP(Dv[l] = DB(semf_add64(D(A[l]), D(B[l]), r))); return WL_OK;
    case PTX_OP_SUB: LOOP(Dv[l] = DB(semf_add64(D(A[l]), -D(B[l]), r))); return WL_OK;
    case PTX_OP_MUL: LOOP(Dv[l] = DB(semf_mul64(D(A[l]), D(B[l]), r))); return WL_OK;
    case PTX_OP_FMA: case PTX_OP_MAD:
        LOOP(Dv[l] = DB(semf_fma64(D(A[l]), D(B[l]), D(C[l]), r)));
        return WL_OK;
    case PTX_OP_DIV: LOOP(Dv[l] = DB(semf_div64(D(A[l]), D(B[l]), r))); return WL_OK;
    case PTX_OP_SQRT: case PTX_OP_RCP:
        if (!(in->flags & PTX_F_APPROX)) {
            if (op == PTX_OP_SQRT)
                LOOP(Dv[l] = DB(semf_sqrt64(D(A[l]), r)));
            else
                LOOP(Dv[l] = DB(semf_div64(1.0, D(A[l]), r)));
            return WL_OK;
        }
        __attribute__((fallthrough));
    case PTX_OP_RSQRT: case PTX_OP_SIN: case PTX_OP_COS: case PTX_OP_LG2: case PTX_OP_EX2:
    case PTX_OP_TANH: {
        semf_sfu f = op == PTX_OP_SQRT ? SEMF_SQRT : op == PTX_OP_RCP ? SEMF_RCP :
                     op == PTX_OP_RSQRT ? SEMF_RSQRT : op == PTX_OP_SIN ? SEMF_SIN :
                     op == PTX_OP_COS ? SEMF_COS : op == PTX_OP_LG2 ? SEMF_LG2 :
                     op == PTX_OP_EX2 ? SEMF_EX2 : SEMF_TANH;
        LOOP(Dv[l] = DB(semf_sfu64(f, D(A[l]))));
        return WL_OK;
    }
    case PTX_OP_ABS: LOOP(Dv[l] = A[l] & ~(UINT64_C(1) << 63)); return WL_OK;
    case PTX_OP_NEG: LOOP(Dv[l] = A[l] ^ (UINT64_C(1) << 63)); return WL_OK;
    case PTX_OP_MIN: case PTX_OP_MAX: {
        int np = (in->flags & PTX_F_NAN) != 0;
        LOOP(Dv[l] = DB(op == PTX_OP_MIN ? semf_min(D(A[l]), D(B[l]), np) :
                                            semf_max(D(A[l]), D(B[l]), np)));
        return WL_OK;
    }
    case PTX_OP_COPYSIGN:
        LOOP(Dv[l] = (B[l] & ~(UINT64_C(1) << 63)) | (A[l] & (UINT64_C(1) << 63)));
        return WL_OK;
    default: return xop_unsup(in, d);
    }
    (void)bits;
}
