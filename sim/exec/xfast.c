/* xfast: the direct handlers of the hottest plain instruction forms (32-bit integer ALU ops, f32
 * add/mul/fma round-to-nearest, setp, selp, predicate logic, moves), chosen at decode time by
 * xop_pick_fast: one tight loop each, no dispatch. They compute exactly what xop_exec computes.
 *
 * Host speed, not modelled behaviour:
 * - all 32 lanes executing and a destination that is none of the sources (the common case):
 *   the loop writes the destination directly; otherwise it computes into a temporary and
 *   commits the executing lanes (xcommit, exec_int.h).
 * - each handler is compiled twice: for the x86-64 baseline (SSE2, two 64-bit slots per vector
 *   instruction) and for AVX2 (four), picked once at decode time when the host has AVX2.
 *   Integer and IEEE single operations give the same bits either way (no contraction: the
 *   project builds as ISO C, so a*b+c is never fused; fma uses its own exact routine). */
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

#include "exec_int.h"
#include "ptx.h"
#include "sem.h"
#include "semf.h"
#include "xlane.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define XF_AVX2 1
#define XF_TARGET_AVX2 __attribute__((target("avx2")))
#else
#define XF_AVX2 0
#endif
#define XF_INLINE static inline __attribute__((always_inline))
#define XF_UNUSED __attribute__((unused)) /* the narrow forms of handlers with wide results */

/* A narrow-form source (xop_pick_fast checked it): an immediate's 32-bit copy or a narrow slot. */
static inline const uint32_t *XSRC32(const xop *o, const uint64_t *regs)
{
    return o->cptr32 ? o->cptr32 : XNC(regs, o->slot);
}

/* FASTK(name, nsrc, K, expr): handler `name` (and name_avx2) computing D[l] = expr from the
 * sources A, B, C (operands 1..nsrc) and K, a per-instruction constant computed from `in`; any
 * operand may be narrow or wide (xalloc_layout). name_n (and name_n_avx2): the same when every
 * operand is narrow or an immediate and the result has at most 32 bits (xop_pick_fast), with
 * A, B, C and D 32 lanes of 32 bits: half the bytes, twice the lanes per vector instruction. */
#define FASTK(name, nsrc, kexpr, expr)                                                             \
    XF_INLINE void name##_full(const uint64_t *restrict A, const uint64_t *restrict B,            \
                               const uint64_t *restrict C, uint64_t K, uint64_t *restrict D)     \
    {                                                                                              \
        (void)A; (void)B; (void)C; (void)K;                                                        \
        LOOP(D[l] = (expr));                                                                       \
    }                                                                                              \
    XF_INLINE void name##_body(const xinsn *in, uint64_t *regs, uint32_t m)                        \
    {                                                                                              \
        int32_t d = in->o[0].slot, a = in->o[1].slot;                                              \
        int32_t b = nsrc > 1 ? in->o[2].slot : a, c = nsrc > 2 ? in->o[3].slot : a;                \
        uint64_t ta[32], tb[32], tc[32];                                                           \
        const uint64_t *A = XSRC(&in->o[1], regs, ta);                                             \
        const uint64_t *B = nsrc > 1 ? XSRC(&in->o[2], regs, tb) : A;                              \
        const uint64_t *C = nsrc > 2 ? XSRC(&in->o[3], regs, tc) : A;                              \
        uint64_t K = (kexpr);                                                                      \
        (void)K;                                                                                   \
        if (m == XFULL && !in->o[0].nw && d != a && d != b && d != c) {                            \
            name##_full(A, B, C, K, XR(regs, d));                                                  \
            return;                                                                                \
        }                                                                                          \
        uint64_t T[32];                                                                            \
        LOOP(T[l] = (expr));                                                                       \
        xcommit(regs, d, in->o[0].nw, T, m);                                                       \
    }                                                                                              \
    XF_INLINE void name##_nfull(const uint32_t *restrict A, const uint32_t *restrict B,           \
                                const uint32_t *restrict C, uint64_t K, uint32_t *restrict D)    \
    {                                                                                              \
        (void)A; (void)B; (void)C; (void)K;                                                        \
        LOOP(D[l] = (uint32_t)(expr));                                                             \
    }                                                                                              \
    XF_INLINE void name##_nbody(const xinsn *in, uint64_t *regs, uint32_t m)                       \
    {                                                                                              \
        int32_t d = in->o[0].slot, a = in->o[1].slot;                                              \
        int32_t b = nsrc > 1 ? in->o[2].slot : a, c = nsrc > 2 ? in->o[3].slot : a;                \
        const uint32_t *A = XSRC32(&in->o[1], regs);                                               \
        const uint32_t *B = nsrc > 1 ? XSRC32(&in->o[2], regs) : A;                                \
        const uint32_t *C = nsrc > 2 ? XSRC32(&in->o[3], regs) : A;                                \
        uint64_t K = (kexpr);                                                                      \
        (void)K;                                                                                   \
        uint32_t *D = XN(regs, d);                                                                 \
        if (m == XFULL && d != a && d != b && d != c) {                                            \
            name##_nfull(A, B, C, K, D);                                                           \
            return;                                                                                \
        }                                                                                          \
        uint32_t T[32];                                                                            \
        LOOP(T[l] = (uint32_t)(expr));                                                             \
        if (m == XFULL) { /* the destination is a source's slot (xalloc.c, xa_last) */            \
            memcpy(D, T, sizeof T);                                                                \
            return;                                                                                \
        }                                                                                          \
        while (m) {                                                                                \
            int l = __builtin_ctz(m);                                                              \
            D[l] = T[l];                                                                           \
            m &= m - 1;                                                                            \
        }                                                                                          \
    }                                                                                              \
    static void name(const xinsn *in, uint64_t *regs, uint32_t m)                                  \
    {                                                                                              \
        name##_body(in, regs, m);                                                                  \
    }                                                                                              \
    XF_UNUSED static void name##_n(const xinsn *in, uint64_t *regs, uint32_t m)                    \
    {                                                                                              \
        name##_nbody(in, regs, m);                                                                 \
    }                                                                                              \
    XF_AVX2_VARIANT(name)

#if XF_AVX2
#define XF_AVX2_VARIANT(name)                                                                      \
    XF_TARGET_AVX2 static void name##_avx2(const xinsn *in, uint64_t *regs, uint32_t m)            \
    {                                                                                              \
        name##_body(in, regs, m);                                                                  \
    }                                                                                              \
    XF_TARGET_AVX2 XF_UNUSED static void name##_n_avx2(const xinsn *in, uint64_t *regs, uint32_t m)\
    {                                                                                              \
        name##_nbody(in, regs, m);                                                                 \
    }
#define PICK(name) (narrow ? (avx2 ? name##_n_avx2 : name##_n) : (avx2 ? name##_avx2 : name))
#define PICKW(name) (avx2 ? name##_avx2 : name)
#else
#define XF_AVX2_VARIANT(name)
#define PICK(name) (narrow ? name##_n : name)
#define PICKW(name) (name)
#endif

#define FAST1(name, expr) FASTK(name, 1, 0, expr)
#define FAST2(name, expr) FASTK(name, 2, 0, expr)
#define FAST3(name, expr) FASTK(name, 3, 0, expr)

FAST2(f_add32, (uint32_t)(A[l] + B[l]))
FAST2(f_sub32, (uint32_t)(A[l] - B[l]))
FAST2(f_mul32, (uint32_t)(A[l] * B[l]))
FAST2(f_and32, (uint32_t)(A[l] & B[l]))
FAST2(f_or32, (uint32_t)(A[l] | B[l]))
FAST2(f_xor32, (uint32_t)(A[l] ^ B[l]))
FAST2(f_add64, A[l] + B[l])
FAST2(f_shl32, (uint32_t)B[l] >= 32 ? 0 : (uint32_t)((uint32_t)A[l] << (B[l] & 31)))
FAST2(f_shru32, (uint32_t)B[l] >= 32 ? 0 : (uint32_t)A[l] >> (B[l] & 31))
FAST2(f_fadd, FB(F(A[l]) + F(B[l])))
FAST2(f_fmul, FB(F(A[l]) * F(B[l])))
FAST3(f_mad32, (uint32_t)(A[l] * B[l] + C[l]))
FAST2(f_mulwide_s32, (uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]))
FAST2(f_mulwide_u32, (A[l] & 0xffffffffu) * (B[l] & 0xffffffffu))

/* FASTW(name, nsrc, expr): name_w (and name_w_avx2), a 64-bit result D[l] = expr from narrow
 * sources A, B (32 lanes of 32 bits, or 32-bit immediates) into a wide register: the widening
 * forms (mul.wide, integer cvt to 64 bits), whose operands are usually all so. */
#define FASTW(name, nsrc, expr)                                                                    \
    XF_INLINE void name##_wbody(const xinsn *in, uint64_t *regs, uint32_t m)                       \
    {                                                                                              \
        const uint32_t *A = XSRC32(&in->o[1], regs);                                               \
        const uint32_t *B = nsrc > 1 ? XSRC32(&in->o[2], regs) : A;                                \
        (void)B;                                                                                   \
        uint64_t *D = XR(regs, in->o[0].slot); /* wide: never one of the narrow sources */        \
        if (m == XFULL) {                                                                          \
            LOOP(D[l] = (expr));                                                                   \
            return;                                                                                \
        }                                                                                          \
        for (; m; m &= m - 1) {                                                                    \
            int l = __builtin_ctz(m);                                                              \
            D[l] = (expr);                                                                         \
        }                                                                                          \
    }                                                                                              \
    static void name##_w(const xinsn *in, uint64_t *regs, uint32_t m)                              \
    {                                                                                              \
        name##_wbody(in, regs, m);                                                                 \
    }                                                                                              \
    XF_AVX2_WVARIANT(name)

#if XF_AVX2
#define XF_AVX2_WVARIANT(name)                                                                     \
    XF_TARGET_AVX2 static void name##_w_avx2(const xinsn *in, uint64_t *regs, uint32_t m)          \
    {                                                                                              \
        name##_wbody(in, regs, m);                                                                 \
    }
#define PICKWN(name) (avx2 ? name##_w_avx2 : name##_w)
#else
#define XF_AVX2_WVARIANT(name)
#define PICKWN(name) (name##_w)
#endif
/* the narrow-source form where it applies (a wide destination), else the general one */
#define PICKN2W(name) (narrow_src && !in->o[0].nw ? PICKWN(name) : PICKW(name))

FASTW(f_mulwide_s32, 2, (uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]))
FASTW(f_mulwide_u32, 2, (uint64_t)A[l] * B[l])
FASTW(f_cvt_s64_s32, 1, (uint64_t)(int64_t)(int32_t)A[l])
FASTW(f_cvt_u64_u32, 1, (uint64_t)A[l])
/* mov: masked to the destination's width */
FASTK(f_mov, 1, zx(~UINT64_C(0), in->o[0].bits), A[l] & K)

/* setp.CMP.{s,u,b}32 p, a, b (one predicate, no combining operand): exec_setp's integer loop
 * (signed values compared unsigned with the sign bit flipped: K). */
#define SETP_K (in->k0 == XK_S ? 0x80000000u : 0)
#define SETP(name, op) FASTK(name, 2, SETP_K, ((uint32_t)A[l] ^ (uint32_t)K) op ((uint32_t)B[l] ^ (uint32_t)K))
SETP(f_setp_eq, ==)
SETP(f_setp_ne, !=)
SETP(f_setp_lt, <)
SETP(f_setp_le, <=)
SETP(f_setp_gt, >)
SETP(f_setp_ge, >=)

/* and/or/xor/not.pred and selp without `!` operands: exec_int's and xop_one's loops. */
FAST2(f_pand, (uint64_t)((A[l] != 0) & (B[l] != 0)))
FAST2(f_por, (uint64_t)((A[l] != 0) | (B[l] != 0)))
FAST2(f_pxor, (uint64_t)((A[l] != 0) ^ (B[l] != 0)))
FAST1(f_pnot, (uint64_t)(A[l] == 0))
FASTK(f_selp, 3, zx(~UINT64_C(0), in->o[0].bits), (C[l] != 0 ? A[l] : B[l]) & K)

/* The lanes whose slot value is not zero (a guard predicate), as a bit mask: nz_mask for a
 * wide slot, nz_mask32 for a narrow one. */
#define NZ_MASK(name, T)                                                                           \
    static uint32_t name(const T *G)                                                               \
    {                                                                                              \
        uint32_t g = 0;                                                                            \
        for (int l = 0; l < 32; l++)                                                               \
            g |= (uint32_t)(G[l] != 0) << l;                                                       \
        return g;                                                                                  \
    }
NZ_MASK(nz_mask, uint64_t)
NZ_MASK(nz_mask32, uint32_t)

#if XF_AVX2
#include <immintrin.h>
/* Four lanes per compare: the compare's lane masks give the bits directly (movmskpd). */
XF_TARGET_AVX2 static uint32_t nz_mask_avx2(const uint64_t *G)
{
    const __m256i zero = _mm256_setzero_si256();
    uint32_t z = 0;
    for (int l = 0; l < 32; l += 4) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(G + l));
        z |= (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, zero))) << l;
    }
    return ~z;
}
#endif

#if XF_AVX2
/* Eight lanes per compare (movmskps). */
XF_TARGET_AVX2 static uint32_t nz_mask32_avx2(const uint32_t *G)
{
    const __m256i zero = _mm256_setzero_si256();
    uint32_t z = 0;
    for (int l = 0; l < 32; l += 8) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(G + l));
        z |= (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero))) << l;
    }
    return ~z;
}
#endif

xnz32_fn xfast_pick_nz_mask32(void)
{
#if XF_AVX2
    if (__builtin_cpu_supports("avx2"))
        return nz_mask32_avx2;
#endif
    return nz_mask32;
}

xnz_fn xfast_pick_nz_mask(void)
{
#if XF_AVX2
    if (__builtin_cpu_supports("avx2"))
        return nz_mask_avx2;
#endif
    return nz_mask;
}

/* fma.rn.f32 / mad.rn.f32: xopf_fma32_rn vectorises itself (and checks the host's FMA) */
static void f_ffma(const xinsn *in, uint64_t *regs, uint32_t m)
{
    int32_t d = in->o[0].slot, a = in->o[1].slot, b = in->o[2].slot, c = in->o[3].slot;
    uint64_t ta[32], tb[32], tc[32];
    const uint64_t *A = XSRC(&in->o[1], regs, ta), *B = XSRC(&in->o[2], regs, tb);
    const uint64_t *C = XSRC(&in->o[3], regs, tc);
    if (m == XFULL && !in->o[0].nw && d != a && d != b && d != c) {
        xopf_fma32_rn(A, B, C, XR(regs, d));
        return;
    }
    uint64_t T[32];
    xopf_fma32_rn(A, B, C, T);
    xcommit(regs, d, in->o[0].nw, T, m);
}

/* The narrow form: every operand narrow or an immediate (xop_pick_fast). */
static void f_ffma_n(const xinsn *in, uint64_t *regs, uint32_t m)
{
    const uint32_t *A = XSRC32(&in->o[1], regs), *B = XSRC32(&in->o[2], regs);
    const uint32_t *C = XSRC32(&in->o[3], regs);
    uint32_t *D = XN(regs, in->o[0].slot);
    if (m == XFULL) { /* D may be a source: fma32 reads each group of lanes before writing it */
        xopf_fma32_rn_n(A, B, C, D);
        return;
    }
    uint32_t T[32];
    xopf_fma32_rn_n(A, B, C, T);
    for (; m; m &= m - 1)
        D[__builtin_ctz(m)] = T[__builtin_ctz(m)];
}

#if XF_AVX2
/* Does the host have F16C (CPUID leaf 1, ECX bit 29)? (Clang's __builtin_cpu_supports does not
 * know "f16c".) */
static int host_f16c(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1);
}
#endif

/* cvt.rn.f16.f32 with a narrow source and destination (half-precision kernels convert every
 * input), eight lanes at a time: D may be A (each group is read before it is written). */
static void f_cvt_h_f(const xinsn *in, uint64_t *regs, uint32_t m)
{
    const uint32_t *A = XSRC32(&in->o[1], regs);
    uint32_t *D = XN(regs, in->o[0].slot), T[32];
    for (int l = 0; l < 32; l++)
        T[l] = semf_f32_to_f16(A[l]);
    for (; m; m &= m - 1)
        D[__builtin_ctz(m)] = T[__builtin_ctz(m)];
}

#if XF_AVX2
/* The same with the host's F16C conversion (vcvtps2ph, round to nearest even, exceptions
 * masked): the same bits as semf_round for every f32 input but a NaN (all 2^32 of them
 * compared, docs/performance.md, forty-second session); a group of eight holding a NaN (whose
 * f16 is the canonical one, semf) lane by lane. */
__attribute__((target("avx2,f16c"))) static void f_cvt_h_f_f16c(const xinsn *in,
                                                                uint64_t *regs, uint32_t m)
{
    const uint32_t *A = XSRC32(&in->o[1], regs);
    uint32_t *D = XN(regs, in->o[0].slot), T[32];
    uint32_t *out = m == XFULL ? D : T;
    const __m256i absm = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    for (int g = 0; g < 32; g += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(A + g));
        /* a NaN: |a| above inf's bits (as signed 32-bit integers: both below 2^31) */
        __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(a, absm), inf);
        if (!_mm256_testz_si256(nan, nan)) {
            for (int l = g; l < g + 8; l++)
                out[l] = semf_f32_to_f16(A[l]);
            continue;
        }
        __m128i h = _mm256_cvtps_ph(_mm256_castsi256_ps(a),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm256_storeu_si256((__m256i *)(void *)(out + g), _mm256_cvtepu16_epi32(h));
    }
    if (out == T)
        for (; m; m &= m - 1)
            D[__builtin_ctz(m)] = T[__builtin_ctz(m)];
}
#endif

/* The handler of an instruction whose whole effect happened before it (xinsn.pre_dst). */
void xop_nop(const xinsn *in, uint64_t *regs, uint32_t m)
{
    (void)in;
    (void)regs;
    (void)m;
}

void xop_pick_fast(xinsn *in)
{
#if XF_AVX2
    int avx2 = __builtin_cpu_supports("avx2");
#endif
    in->fast = NULL;
    /* cvta.to.global / cvta.global: generic and global addresses are the same (xop_exec's cvta
     * with no window): a move, masked to the destination's width */
    int cvta_g = in->op == PTX_OP_CVTA && in->space == XS_GLOBAL && in->nops == 2 &&
                 (in->flags & ~(uint32_t)PTX_F_TO) == 0;
    if (in->nops < 2 || in->o[0].kind != XO_SLOT || (in->flags && !cvta_g) || in->guard_neg > 1)
        return;
    for (int k = 1; k < in->nops; k++)
        if (in->o[k].kind != XO_SLOT || in->o[k].neg)
            return;
    /* every operand narrow, or an immediate whose value fits in 32 bits (its 32-bit copy is
     * then exact): the narrow form (set once the layout is known, xdec.c) */
    int narrow_src = 1;
    for (int k = 1; k < in->nops; k++)
        narrow_src &= in->o[k].nw || (in->o[k].cptr32 && (in->o[k].cptr[0] >> 32) == 0);
    int narrow = in->o[0].nw && narrow_src;
    /* cvt.{s64.s32, u64.u32} (no rounding, saturation or ftz): a widening move */
    if (in->op == PTX_OP_CVT && in->nops == 2 && !in->flags && in->round == PTX_RND_NONE &&
        in->w0 == 64 && in->w1 == 32 && in->o[0].bits == 64 && !in->o[0].nw && narrow_src &&
        ((in->k0 == XK_S && in->k1 == XK_S) ||
         ((in->k0 == XK_U || in->k0 == XK_B) && (in->k1 == XK_U || in->k1 == XK_B)))) {
        in->fast = in->k0 == XK_S ? PICKWN(f_cvt_s64_s32) : PICKWN(f_cvt_u64_u32);
        return;
    }
    /* cvt.rn.f16.f32 (no ftz or saturation: flags are 0 here), narrow in and out */
    if (in->op == PTX_OP_CVT && in->nops == 2 && in->k0 == XK_H && in->k1 == XK_F &&
        in->w1 == 32 && in->round == PTX_RND_RN && narrow) {
#if XF_AVX2
        in->fast = avx2 && host_f16c() ? f_cvt_h_f_f16c : f_cvt_h_f;
#else
        in->fast = f_cvt_h_f;
#endif
        return;
    }
    if (cvta_g) {
        in->fast = PICK(f_mov);
        return;
    }
    int dst32 = in->o[0].bits == 32, dst64 = in->o[0].bits == 64;
    int i32 = (in->k0 == XK_U || in->k0 == XK_S || in->k0 == XK_B) && in->w0 == 32 && dst32;
    int i64 = (in->k0 == XK_U || in->k0 == XK_S || in->k0 == XK_B) && in->w0 == 64 && dst64;
    int f32 = in->k0 == XK_F && in->w0 == 32 && dst32 &&
              (in->round == PTX_RND_NONE || in->round == PTX_RND_RN);
    int lo = in->mul == PTX_MUL_NONE || in->mul == PTX_MUL_LO;
    int pred = in->k0 == XK_PRED;
    switch (in->op) {
    case PTX_OP_MOV:
        if (in->nops == 2 && in->o[0].bits >= 32)
            in->fast = PICK(f_mov);
        break;
    case PTX_OP_ADD:
        in->fast = i32 ? PICK(f_add32) : i64 ? PICKW(f_add64) : f32 ? PICK(f_fadd) : NULL;
        break;
    case PTX_OP_SUB: in->fast = i32 ? PICK(f_sub32) : NULL; break;
    case PTX_OP_MUL:
        if (i32 && lo)
            in->fast = PICK(f_mul32);
        else if (f32)
            in->fast = PICK(f_fmul);
        else if (in->mul == PTX_MUL_WIDE && in->w0 == 32 && dst64)
            in->fast = in->k0 == XK_S ? PICKN2W(f_mulwide_s32) : PICKN2W(f_mulwide_u32);
        break;
    case PTX_OP_MAD:
        in->fast = i32 && lo ? PICK(f_mad32) : f32 ? (narrow ? f_ffma_n : f_ffma) : NULL;
        break;
    case PTX_OP_FMA: in->fast = f32 ? (narrow ? f_ffma_n : f_ffma) : NULL; break;
    case PTX_OP_AND:
        in->fast = i32 ? PICK(f_and32) : pred && in->nops == 3 ? PICK(f_pand) : NULL;
        break;
    case PTX_OP_OR:
        in->fast = i32 ? PICK(f_or32) : pred && in->nops == 3 ? PICK(f_por) : NULL;
        break;
    case PTX_OP_XOR:
        in->fast = i32 ? PICK(f_xor32) : pred && in->nops == 3 ? PICK(f_pxor) : NULL;
        break;
    case PTX_OP_NOT: in->fast = pred && in->nops == 2 ? PICK(f_pnot) : NULL; break;
    case PTX_OP_SHL: in->fast = i32 ? PICK(f_shl32) : NULL; break;
    case PTX_OP_SHR: in->fast = i32 && in->k0 != XK_S ? PICK(f_shru32) : NULL; break;
    case PTX_OP_SELP:
        if (in->nops == 4)
            in->fast = PICK(f_selp);
        break;
    case PTX_OP_SETP:
        if (in->nops == 3 && (in->k0 == XK_S || in->k0 == XK_U || in->k0 == XK_B) &&
            in->w0 == 32 && in->cmp >= 1 && in->cmp - 1 <= SEM_CMP_HS) {
            switch (in->cmp - 1) {
            case SEM_CMP_EQ: in->fast = PICK(f_setp_eq); break;
            case SEM_CMP_NE: in->fast = PICK(f_setp_ne); break;
            case SEM_CMP_LT: case SEM_CMP_LO: in->fast = PICK(f_setp_lt); break;
            case SEM_CMP_LE: case SEM_CMP_LS: in->fast = PICK(f_setp_le); break;
            case SEM_CMP_GT: case SEM_CMP_HI: in->fast = PICK(f_setp_gt); break;
            default: in->fast = PICK(f_setp_ge); break;
            }
        }
        break;
    default: break;
    }
}
