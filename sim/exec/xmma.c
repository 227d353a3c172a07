/* xmma: mma.sync on the tensor cores (PTX ISA 9.7.14.5: mma.sync.aligned.m16n8k16 and
 * m16n8k8, .row.col, f16 or bf16 inputs, f32 accumulators).
 *
 * Hardware: the 32 lanes of a warp hold the fragments of A (16 x K, row-major), B (K x 8,
 * column-major), C and D (16 x 8) in registers, in the layout the PTX ISA fixes (below); one
 * instruction multiplies them on the SM sub-partition's tensor core (HMMA.16816 / HMMA.1688 in
 * SASS). Every lane must execute it (.aligned); the result is D = A x B + C in f32.
 * Model: the warp's fragments are gathered into the three matrices and each D element is
 * formed the way the H200's tensor core was measured to form it (gpu/microbench/mma.cu,
 * gpu/measured/h200/microbench/mma.json: 24,576 random f16 and bf16 results, all equal bit
 * for bit; and wmma's chained accumulations, gpu/microbench/wmma.cu): the K products are exact;
 * the terms (products and the C element) are aligned to the largest exponent E among them,
 * where a term counts with the top of a window of two integer bits (a product of two
 * significands in [1, 2) lies in [1, 4): the sum of its factors' frexp exponents; C: its frexp
 * exponent + 1), and each term keeps its bits down to 2^(E - 27), the rest cut toward zero; the
 * fixed-point sum is rounded to f32 toward zero. Non-finite inputs (inf,
 * NaN) take the IEEE result of the plain sum instead (not measured). Subnormal inputs and
 * results are as the formula gives them (not measured either).
 * Fragment layout (lane = 4 g + t, g = lane >> 2 the group, t = lane & 3 the thread in it):
 *   A, element i of a lane's 2K/8 halves (register i/2, low half first):
 *     row g + 8 ((i >> 1) & 1), column 2t + (i & 1) + 8 (i >> 2)
 *   B, element i of K/8 registers' halves: row (k) 2t + (i & 1) + 8 (i >> 1), column g
 *   C and D, element i of 4 f32 registers: row g + 8 (i >> 1), column 2t + (i & 1)
 */
#include <math.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#define XM_X86 1 /* SSE2 always, AVX2 where the host has it (checked at run time) */
#include <immintrin.h>
#endif

#include "exec_int.h"
#include "ptx.h"
#include "semf.h"

enum { MMA_M = 16, MMA_N = 8, MMA_KMAX = 16 };

#define XM_LOW (-100000)

/* 2^n for -1022 <= n <= 1023. */
static inline double pow2(int n)
{
    uint64_t b = (uint64_t)(n + 1023) << 52;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* The formats of the inputs: A and B f16 or bf16, C f32. */
enum { XM_F16, XM_BF16, XM_F32 };

/* What term() does for zeros, subnormals, infinities and NaNs. */
static void term_rare(uint32_t u, int fmt, double *v, int *e, int *nonfin)
{
    uint32_t f = fmt == XM_F32 ? u : fmt == XM_BF16 ? u << 16 : 0;
    int ex = fmt == XM_F16 ? (int)(u >> 10 & 31) : (int)(f >> 23 & 0xff);
    int top = fmt == XM_F16 ? 31 : 0xff;
    if (fmt == XM_F16) {
        double mag = ex == top ? (u & 1023 ? NAN : INFINITY) : (double)(u & 1023) * 0x1p-24;
        *v = u & 0x8000 ? -mag : mag;
    } else {
        float x;
        memcpy(&x, &f, sizeof x);
        *v = x;
    }
    if (ex == top) { /* inf or NaN: its elements take the plain sum (xmul_run) */
        *e = 0;
        *nonfin = 1;
    } else if (*v == 0) {
        *e = XM_LOW;
    } else { /* subnormal */
        int fe;
        (void)frexp(*v, &fe);
        *e = fe + (fmt == XM_F32);
    }
}

/* An input as the adder takes it: its value (exact in a double) and the exponent of the top of
 * its window (header): A's and B's frexp exponent, C's plus one; a zero's XM_LOW, so that a
 * product with a zero factor never holds the largest exponent; an inf's or NaN's 0, with
 * *nonfin set. Normal numbers (nearly all) straight from their bits: the f32 with the same value
 * (f16: exponent ex - 15 + 127, its 10 bits on top of the 23). */
__attribute__((always_inline)) static inline void term(uint32_t u, int fmt, double *v, int *e,
                                                      int *nonfin)
{
    uint32_t f;
    int normal, ee;
    if (fmt == XM_F16) {
        uint32_t ex = u >> 10 & 31;
        f = (u & 0x8000) << 16 | (ex + 112) << 23 | (u & 1023) << 13;
        normal = ex - 1u < 30u;
        ee = (int)ex - 14;
    } else {
        f = fmt == XM_BF16 ? u << 16 : u;
        uint32_t ex = f >> 23 & 0xff;
        normal = ex - 1u < 254u;
        ee = (int)ex - 126 + (fmt == XM_F32);
    }
    if (!normal) {
        uint32_t sign = fmt == XM_F32 ? 0x80000000u : 0x8000u;
        if ((u & ~sign) == 0) { /* a zero (C's, at the start of a sum, often) */
            *v = u & sign ? -0.0 : 0.0;
            *e = XM_LOW;
        } else {
            term_rare(u, fmt, v, e, nonfin);
        }
        return;
    }
    float x;
    memcpy(&x, &f, sizeof x);
    *v = x;
    *e = ee;
}

/* x (a double with at most 33 significant bits) rounded to f32 toward zero: within f32's
 * normal range by dropping the low 29 bits of the double's significand. */
static inline uint32_t f32_rz(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint32_t ex = (uint32_t)(b >> 52) & 0x7ff;
    if (ex < 1023 - 126 || ex > 1023 + 127)
        return x == 0 ? 0 : (uint32_t)semf_round(x, 0, SEMF_F32, SEMF_RZ);
    b &= ~((UINT64_C(1) << 29) - 1);
    memcpy(&x, &b, sizeof x);
    return semf_bits32((float)x); /* exact */
}

/* The three matrices of one multiply, values and exponents (term) in separate arrays laid out so
 * that the loops over a row of D (n) vectorise: A[r][k], B[k][n], C[r][n]; nonfin: an inf or a
 * NaN among them. mma.sync (n = 8) uses the first 8 columns, wmma all 16. */
typedef struct {
    double av[MMA_M][MMA_KMAX], bv[MMA_KMAX][MMA_M], cv[MMA_M][MMA_M];
    int ae[MMA_M][MMA_KMAX], be[MMA_KMAX][MMA_M], ce[MMA_M][MMA_M];
    int nonfin;
} xmul;

/* term() over n inputs of one format: normal numbers and zeros (nearly all) in a loop the
 * compiler vectorises, then term() itself for the others (subnormals, infinities, NaNs), if
 * any: the same values, exponents and nonfin as term() on each. */
static void decode_terms(const uint32_t *u, int n, int fmt, double *v, int *e, int *nonfin)
{
    uint32_t odd = 0;
    for (int i = 0; i < n; i++) {
        uint32_t w = u[i], f, ex, normal, zero;
        int ee;
        if (fmt == XM_F16) {
            ex = w >> 10 & 31;
            zero = (w & 0x7fff) == 0;
            f = zero ? (w & 0x8000) << 16 : (w & 0x8000) << 16 | (ex + 112) << 23 | (w & 1023) << 13;
            normal = ex - 1u < 30u;
            ee = (int)ex - 14;
        } else {
            f = fmt == XM_BF16 ? w << 16 : w;
            ex = f >> 23 & 0xff;
            zero = (f & 0x7fffffff) == 0;
            normal = ex - 1u < 254u;
            ee = (int)ex - 126 + (fmt == XM_F32);
        }
        float x;
        memcpy(&x, &f, sizeof x);
        v[i] = x;
        e[i] = zero ? XM_LOW : ee;
        odd |= !normal & !zero;
    }
    for (int i = 0; odd && i < n; i++) {
        uint32_t f = fmt == XM_F16 ? u[i] << 17 : fmt == XM_BF16 ? u[i] << 17 : u[i] << 1;
        uint32_t ex = fmt == XM_F16 ? u[i] >> 10 & 31 : f >> 24;
        if (f != 0 && (ex == 0 || ex == (fmt == XM_F16 ? 31u : 0xffu)))
            term(u[i], fmt, &v[i], &e[i], nonfin);
    }
}

static inline void put_a(xmul *x, int r, int k, uint32_t h, int fmt)
{
    term(h, fmt, &x->av[r][k], &x->ae[r][k], &x->nonfin);
}

static inline void put_b(xmul *x, int k, int n, uint32_t h, int fmt)
{
    term(h, fmt, &x->bv[k][n], &x->be[k][n], &x->nonfin);
}

static inline void put_c(xmul *x, int r, int n, uint32_t u)
{
    term(u, XM_F32, &x->cv[r][n], &x->ce[r][n], &x->nonfin);
}

/* s[n] += trunc(a[j] b[j][n] sc[n]) for j < k, n < nc (8 or 16; the scaled products cut
 * toward zero: xmul_run). */
static void row_terms(const double *a, const double (*b)[MMA_M], const double *sc, double *s,
                      int k, int nc)
{
    for (int j = 0; j < k; j++)
        for (int n = 0; n < nc; n++)
            s[n] += trunc(a[j] * b[j][n] * sc[n]);
}

/* The largest exponent e[n] of the terms of D's row r, columns n < nc (header): C's, then every
 * product's (the sum of its factors' exponents). */
static inline void row_exponents(const xmul *x, int r, int k, int nc, int *e)
{
    for (int n = 0; n < nc; n++)
        e[n] = x->ce[r][n];
    for (int j = 0; j < k; j++) {
        int a = x->ae[r][j];
        for (int n = 0; n < nc; n++)
            e[n] = a + x->be[j][n] > e[n] ? a + x->be[j][n] : e[n];
    }
}

/* The rows of D (xmul_run), one element at a time. */
static void rows_scalar(const xmul *x, int k, int nc, uint32_t d[MMA_M][MMA_M])
{
    for (int r = 0; r < MMA_M; r++) {
        int e[MMA_M];
        double sc[MMA_M], s[MMA_M];
        row_exponents(x, r, k, nc, e);
        for (int n = 0; n < nc; n++) {
            e[n] = e[n] < XM_LOW / 2 ? 27 : e[n]; /* every term zero: any scale */
            sc[n] = pow2(27 - e[n]);
            s[n] = trunc(x->cv[r][n] * sc[n]);
        }
        row_terms(x->av[r], x->bv, sc, s, k, nc);
        for (int n = 0; n < nc; n++)
            d[r][n] = f32_rz(s[n] * pow2(e[n] - 27));
    }
}

#ifdef XM_X86
#define XM_AVX2 __attribute__((target("avx2")))

/* 2^n in each of four doubles, for -1022 <= n <= 1023 (pow2). */
XM_AVX2 static inline __m256d pow2_4(__m128i n)
{
    __m128i b = _mm_add_epi32(n, _mm_set1_epi32(1023));
    return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_cvtepi32_epi64(b), 52));
}

/* f32_rz of four doubles into d[0..3]: zeros and values in f32's normal range (nearly all)
 * by clearing the low 29 bits of each significand at once, four values whose conversion is then
 * exact; a group with any other value through f32_rz one by one. */
XM_AVX2 static inline void f32_rz_4(__m256d x, uint32_t *d)
{
    __m256i b = _mm256_castpd_si256(x);
    __m256i ex = _mm256_and_si256(_mm256_srli_epi64(b, 52), _mm256_set1_epi64x(0x7ff));
    __m256i zero = _mm256_castpd_si256(_mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_EQ_OQ));
    __m256i out = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(1023 - 126), ex),
                                  _mm256_cmpgt_epi64(ex, _mm256_set1_epi64x(1023 + 127)));
    out = _mm256_andnot_si256(zero, out);
    if (!_mm256_testz_si256(out, out)) {
        double v[4];
        _mm256_storeu_pd(v, x);
        for (int i = 0; i < 4; i++)
            d[i] = f32_rz(v[i]);
        return;
    }
    /* -0 as +0 (f32_rz gives 0 for either zero) */
    b = _mm256_andnot_si256(zero, _mm256_and_si256(b, _mm256_set1_epi64x(~((INT64_C(1) << 29) - 1))));
    _mm_storeu_si128((__m128i *)(void *)d,
                     _mm_castps_si128(_mm256_cvtpd_ps(_mm256_castsi256_pd(b))));
}

/* rows_scalar with four columns per AVX2 register: the same operations in the same order on
 * each element (trunc is vroundpd toward zero), so the same bits (scripts/baseline-cpu.sh runs
 * both). Inlined into rows_avx2 with wmma's and mma.sync's k and nc as constants, so that the
 * loops over them unroll and the sums stay in registers (written with intrinsics throughout:
 * GCC's own vectorisation of the exponent loop shuffled across rows). */
XM_AVX2 __attribute__((always_inline)) static inline void rows_avx2_kn(const xmul *x, int k,
                                                                        int nc,
                                                                        uint32_t d[MMA_M][MMA_M])
{
    enum { Z = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC };
    const int nq = nc / 4, no = nc / 8; /* four doubles, eight exponents per register */
    for (int r = 0; r < MMA_M; r++) {
        __m256i e8[2];
#pragma GCC unroll 2
        for (int o = 0; o < no; o++)
            e8[o] = _mm256_loadu_si256((const __m256i *)(const void *)(x->ce[r] + 8 * o));
#pragma GCC unroll 16
        for (int j = 0; j < k; j++) {
            __m256i a = _mm256_set1_epi32(x->ae[r][j]);
#pragma GCC unroll 2
            for (int o = 0; o < no; o++) {
                __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(x->be[j] + 8 * o));
                e8[o] = _mm256_max_epi32(e8[o], _mm256_add_epi32(a, b));
            }
        }
        __m256d acc[4], sc[4];
        __m128i ev[4];
#pragma GCC unroll 4
        for (int q = 0; q < nq; q++) {
            __m128i v = q & 1 ? _mm256_extracti128_si256(e8[q >> 1], 1)
                              : _mm256_castsi256_si128(e8[q >> 1]);
            /* every term zero: any scale (27) */
            v = _mm_blendv_epi8(v, _mm_set1_epi32(27), _mm_cmplt_epi32(v, _mm_set1_epi32(XM_LOW / 2)));
            ev[q] = v;
            sc[q] = pow2_4(_mm_sub_epi32(_mm_set1_epi32(27), v));
            acc[q] = _mm256_round_pd(_mm256_mul_pd(_mm256_loadu_pd(x->cv[r] + 4 * q), sc[q]), Z);
        }
#pragma GCC unroll 16
        for (int j = 0; j < k; j++) {
            __m256d a = _mm256_set1_pd(x->av[r][j]);
#pragma GCC unroll 4
            for (int q = 0; q < nq; q++) {
                __m256d p = _mm256_mul_pd(_mm256_mul_pd(a, _mm256_loadu_pd(x->bv[j] + 4 * q)), sc[q]);
                acc[q] = _mm256_add_pd(acc[q], _mm256_round_pd(p, Z));
            }
        }
#pragma GCC unroll 4
        for (int q = 0; q < nq; q++)
            f32_rz_4(_mm256_mul_pd(acc[q], pow2_4(_mm_sub_epi32(ev[q], _mm_set1_epi32(27)))),
                     &d[r][4 * q]);
    }
}

XM_AVX2 static void rows_avx2(const xmul *x, int k, int nc, uint32_t d[MMA_M][MMA_M])
{
    if (k == 16 && nc == 16)
        rows_avx2_kn(x, 16, 16, d); /* wmma */
    else if (k == 16)
        rows_avx2_kn(x, 16, MMA_N, d); /* mma.sync m16n8k16 */
    else
        rows_avx2_kn(x, 8, MMA_N, d); /* mma.sync m16n8k8 */
}
#endif

/* D = A x B + C (k terms) as the tensor core adds it (header), a row of D at a time: the
 * largest exponent E of each element's terms, then each term scaled by 2^(27 - E) and cut
 * toward zero (trunc: every scaled term is below 2^27 in magnitude, so the integer is exact in a
 * double, and so is the sum of 17 of them), the sum rounded to f32 toward zero. An element none
 * of whose terms is nonzero is +0. Elements with an inf or a NaN among their inputs take the
 * IEEE plain sum instead (their row's values above are then not used). */
static inline void xmul_run(const xmul *x, int k, int nc, uint32_t d[MMA_M][MMA_M])
{
#ifdef XM_X86
    if (__builtin_cpu_supports("avx2"))
        rows_avx2(x, k, nc, d);
    else
#endif
        rows_scalar(x, k, nc, d);
    if (!x->nonfin)
        return;
    for (int r = 0; r < MMA_M; r++)
        for (int n = 0; n < nc; n++) {
            int nf = !isfinite(x->cv[r][n]);
            for (int j = 0; j < k; j++)
                nf |= !isfinite(x->av[r][j]) || !isfinite(x->bv[j][n]);
            if (!nf)
                continue;
            double plain = x->cv[r][n];
            for (int j = 0; j < k; j++)
                plain += x->av[r][j] * x->bv[j][n];
            d[r][n] = (uint32_t)semf_round(plain, 0, SEMF_F32, SEMF_RN);
        }
}

/* Element e of vector operand o in lane l (32 bits). */
static uint32_t vget(const xop *o, const uint64_t *regs, int e, int l)
{
    int32_t s = o->vec[e];
    return s < 0 ? 0 : (uint32_t)xslot_get(regs, s, o->vnw[e], l);
}

/* The 32 lanes of element e of vector operand o (the low 32 bits; a sink reads as 0): a
 * register of 32 bits in place, any other copied into v. */
static inline const uint32_t *lanes32_at(const xop *o, int e, const uint64_t *regs, uint32_t *v)
{
    int32_t s = o->vec[e];
    if (s < 0)
        memset(v, 0, 32 * sizeof *v);
    else if (o->vnw[e])
        return XNC(regs, s);
    else
        for (int l = 0; l < 32; l++)
            v[l] = (uint32_t)XR(regs, s)[l];
    return v;
}

wl_status xmma_need_all(const exec_block *b, int warp, const xinsn *in, uint32_t m, diag_t *d)
{
    return exec_fail(b, warp, __builtin_ctz(~m), in, WL_EFAULT, d,
                     "%s.sync.aligned needs all 32 lanes of the warp (only lanes 0x%08x execute "
                     "it); it is skipped", isa_name(in->ir->op), m);
}

wl_status xmma_exec(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m,
                    diag_t *d)
{
    if (m != XFULL)
        return xmma_need_all(b, warp, in, m, d);
    const int k = in->mode == PTX_MMA_M16N8K8 ? 8 : 16;
    const int fmt = in->ir->type[1] == PTX_T_BF16 ? XM_BF16 : XM_F16;
    xmul x;
    x.nonfin = 0;
    const xop *od = &in->o[0], *oa = &in->o[1], *ob = &in->o[2], *oc = &in->o[3];
    for (int l = 0; l < 32; l++) {
        int g = l >> 2, t = l & 3;
        for (int i = 0; i < k / 2; i++) { /* A: k/4 registers of two halves */
            uint32_t r = vget(oa, regs, i >> 1, l);
            put_a(&x, g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2),
                  i & 1 ? r >> 16 : r & 0xffff, fmt);
        }
        for (int i = 0; i < k / 4; i++) { /* B: k/8 registers of two halves */
            uint32_t r = vget(ob, regs, i >> 1, l);
            put_b(&x, 2 * t + (i & 1) + 8 * (i >> 1), g, i & 1 ? r >> 16 : r & 0xffff, fmt);
        }
        for (int i = 0; i < 4; i++)
            put_c(&x, g + 8 * (i >> 1), 2 * t + (i & 1), vget(oc, regs, i, l));
    }
    uint32_t dm[MMA_M][MMA_M];
    xmul_run(&x, k, MMA_N, dm);
    /* all of C is read before any of D is written (d may name c's registers) */
    for (int l = 0; l < 32; l++) {
        int g = l >> 2, t = l & 3;
        for (int i = 0; i < 4; i++) {
            int32_t slot = od->vec[i];
            if (slot >= 0)
                xslot_put(regs, slot, od->vnw[i], l, dm[g + 8 * (i >> 1)][2 * t + (i & 1)]);
        }
    }
    return WL_OK;
}

/* Pieces of xmma_wmma's copies between fragments and matrices (SSE2, part of every x86-64;
 * elsewhere the loops). */
/* dst[0..8) = the eight 16-bit halves of src[0..4), each one's low half first (little-endian
 * host): four lanes' A elements, one row's eight. */
static inline void widen8(uint32_t *dst, const uint32_t *src)
{
#ifdef XM_X86
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)src), z = _mm_setzero_si128();
    _mm_storeu_si128((__m128i *)(void *)dst, _mm_unpacklo_epi16(v, z));
    _mm_storeu_si128((__m128i *)(void *)(dst + 4), _mm_unpackhi_epi16(v, z));
#else
    for (int e = 0; e < 4; e++) {
        dst[2 * e] = src[e] & 0xffff;
        dst[2 * e + 1] = src[e] >> 16;
    }
#endif
}

/* dst[0..8) = a[0], b[0], a[1], b[1], ...: four lanes' C elements of two registers, a row's
 * eight. */
static inline void zip8(uint32_t *dst, const uint32_t *a, const uint32_t *b)
{
#ifdef XM_X86
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)a);
    __m128i y = _mm_loadu_si128((const __m128i *)(const void *)b);
    _mm_storeu_si128((__m128i *)(void *)dst, _mm_unpacklo_epi32(x, y));
    _mm_storeu_si128((__m128i *)(void *)(dst + 4), _mm_unpackhi_epi32(x, y));
#else
    for (int t = 0; t < 4; t++) {
        dst[2 * t] = a[t];
        dst[2 * t + 1] = b[t];
    }
#endif
}

/* zip8's inverse: a[t] = src[2t], b[t] = src[2t + 1] (D's row of eight to two registers). */
static inline void unzip8(uint32_t *a, uint32_t *b, const uint32_t *src)
{
#ifdef XM_X86
    __m128 p = _mm_loadu_ps((const float *)(const void *)src);
    __m128 q = _mm_loadu_ps((const float *)(const void *)(src + 4));
    _mm_storeu_ps((float *)(void *)a, _mm_shuffle_ps(p, q, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm_storeu_ps((float *)(void *)b, _mm_shuffle_ps(p, q, _MM_SHUFFLE(3, 1, 3, 1)));
#else
    for (int t = 0; t < 4; t++) {
        a[t] = src[2 * t];
        b[t] = src[2 * t + 1];
    }
#endif
}

/* B's register of the 16 lanes src[0..16) (groups g = 0..3, lanes 4g + t) into rows 2t
 * (low halves) and 2t + 1 (high halves) of a 16-wide matrix, columns col[0..4) (the groups):
 * a 4 x 4 transpose, then the halves apart. */
static inline void split_cols(uint32_t *col, const uint32_t *src)
{
#ifdef XM_X86
    __m128 r0 = _mm_loadu_ps((const float *)(const void *)src);
    __m128 r1 = _mm_loadu_ps((const float *)(const void *)(src + 4));
    __m128 r2 = _mm_loadu_ps((const float *)(const void *)(src + 8));
    __m128 r3 = _mm_loadu_ps((const float *)(const void *)(src + 12));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3); /* row t now holds lanes t, 4 + t, 8 + t, 12 + t */
    const __m128i lo16 = _mm_set1_epi32(0xffff);
    __m128i c[4] = {_mm_castps_si128(r0), _mm_castps_si128(r1), _mm_castps_si128(r2),
                    _mm_castps_si128(r3)};
    for (int t = 0; t < 4; t++) {
        _mm_storeu_si128((__m128i *)(void *)(col + 2 * t * 16), _mm_and_si128(c[t], lo16));
        _mm_storeu_si128((__m128i *)(void *)(col + (2 * t + 1) * 16), _mm_srli_epi32(c[t], 16));
    }
#else
    for (int t = 0; t < 4; t++)
        for (int g = 0; g < 4; g++) {
            col[2 * t * 16 + g] = src[4 * g + t] & 0xffff;
            col[(2 * t + 1) * 16 + g] = src[4 * g + t] >> 16;
        }
#endif
}

/* wmma.mma.sync m16n16k16: D = A x B + C over the warp's fragments (exec_int.h: xwmma_coord),
 * each 16 x 8 half of D as one HMMA.16816 (the SASS has two), so each element is formed as
 * mma.sync's (xmul_run above); A and B of f16 are read from their first four registers (the
 * second four are copies). Operands: d (2 VEC), a, b (2, or 1 of bf16), c (2). */
wl_status xmma_wmma(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m,
                    diag_t *d)
{
    if (m != XFULL)
        return xmma_need_all(b, warp, in, m, d);
    const int bf16 = in->ir->type[1] == PTX_T_BF16, nx = bf16 ? 1 : 2;
    const xop *od = &in->o[0], *oa = &in->o[2], *ob = &in->o[2 + nx], *oc = &in->o[2 + 2 * nx];
    const int fmt = bf16 ? XM_BF16 : XM_F16;
    xmul x;
    x.nonfin = 0;
    /* the inputs' bits in matrix order (A[r][k], B[k][n], C[r][n]), then decoded together.
     * In xwmma_coord's layout the four lanes 4g .. 4g + 3 of a group hold eight consecutive
     * elements of one row of A (register j's two halves: row g + 8 (j & 1), columns
     * 8 (j >> 1) ..) and of C and D (registers 2k and 2k + 1, alternating: row g + 8 (k & 1),
     * columns 8 (k >> 1) ..), so each group's piece is one copy (widen8, zip8, unzip8: it was
     * 64 indexed stores per register, 3 % of tc_gemm's host instructions). B's pieces run down
     * a column (row 2t + (i & 1) + 8 ((i >> 1) & 1), column g + 8 (i >> 2)): a 4 x 4 transpose
     * per four groups (split_cols). Registers of 32 bits are read in place (lanes32_at). */
    uint32_t ua[MMA_M][MMA_KMAX], ub[MMA_KMAX][MMA_M], uc[MMA_M][MMA_M];
    _Static_assert(MMA_M == 16 && MMA_KMAX == 16, "A, B and C of wmma are 16 x 16 arrays");
    uint32_t rr[8][32];
    for (int j = 0; j < 4; j++) {
        const uint32_t *r = lanes32_at(oa, j, regs, rr[j]);
        for (int g = 0; g < 8; g++)
            widen8(&ua[g + 8 * (j & 1)][8 * (j >> 1)], &r[4 * g]);
    }
    for (int j = 0; j < 4; j++) {
        const uint32_t *r = lanes32_at(ob, j, regs, rr[j]);
        for (int h = 0; h < 2; h++) /* lanes 16h .. 16h + 15: columns 8 (j >> 1) + 4h .. */
            split_cols(&ub[8 * (j & 1)][8 * (j >> 1) + 4 * h], &r[16 * h]);
    }
    for (int k = 0; k < 4; k++) {
        const uint32_t *r0 = lanes32_at(&oc[k >> 1], (2 * k) & 3, regs, rr[2 * k]);
        const uint32_t *r1 = lanes32_at(&oc[k >> 1], (2 * k + 1) & 3, regs, rr[2 * k + 1]);
        for (int g = 0; g < 8; g++)
            zip8(&uc[g + 8 * (k & 1)][8 * (k >> 1)], &r0[4 * g], &r1[4 * g]);
    }
    decode_terms(&ua[0][0], 256, fmt, &x.av[0][0], &x.ae[0][0], &x.nonfin);
    decode_terms(&ub[0][0], 256, fmt, &x.bv[0][0], &x.be[0][0], &x.nonfin);
    decode_terms(&uc[0][0], 256, XM_F32, &x.cv[0][0], &x.ce[0][0], &x.nonfin);
    uint32_t dm[MMA_M][MMA_M];
    xmul_run(&x, 16, 16, dm);
    for (int k = 0; k < 4; k++) { /* registers 2k and 2k + 1 of D: C's layout */
        uint32_t v[2][32];
        for (int g = 0; g < 8; g++)
            unzip8(&v[0][4 * g], &v[1][4 * g], &dm[g + 8 * (k & 1)][8 * (k >> 1)]);
        for (int h = 0; h < 2; h++) {
            const int i = 2 * k + h;
            const xop *o = &od[i >> 2];
            int32_t slot = o->vec[i & 3];
            if (slot < 0)
                continue;
            if (o->vnw[i & 3])
                memcpy(XN(regs, slot), v[h], sizeof v[h]);
            else
                for (int l = 0; l < 32; l++)
                    XR(regs, slot)[l] = v[h][l];
        }
    }
    return WL_OK;
}
