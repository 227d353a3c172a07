/* xop: per-lane execution of arithmetic, logic, comparison, selection, move and conversion
 * instructions. One switch per warp instruction picks the operation and type; the lane loop runs
 * inside it, with a separate branch-free loop for the common all-32-lanes-active case.
 * Register slots hold a register's bits zero-extended to 64; every write masks to the
 * destination register's width. The semantics come from sem.h / semf.h. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "exec_int.h"
#include "ptx.h"
#include "sem.h"
#include "semf.h"

/* Lane loops run over all 32 lanes into a temporary (inactive lanes compute values that are
 * thrown away: every operation here is total, so that is harmless) and commit() copies the
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

static inline void commit(uint64_t *restrict dst, const uint64_t *restrict t, uint32_t m)
{
    if (m == XFULL) {
        memcpy(dst, t, 32 * sizeof *t);
        return;
    }
    while (m) { /* visit the set bits only: divergent code often has few lanes */
        int l = __builtin_ctz(m);
        dst[l] = t[l];
        m &= m - 1;
    }
}

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

static semf_rnd frnd(const xinsn *in)
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

static semf_fmt hfmt(int kind)
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

static int is_float(int k)
{
    return k == XK_F || k == XK_H || k == XK_BF || k == XK_H2 || k == XK_BF2;
}

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

static wl_status unsup(const xinsn *in, diag_t *d)
{
    return diag_set(d, WL_EUNSUPPORTED, NULL, (int)in->ir->line, (int)in->ir->col,
                    "unsupported by the executor: '%s' with type .%s", isa_name(in->ir->op),
                    ptx_type_name((ptx_type)in->t0));
}

/* Predicate operand value (with `!`). */
static inline int P(const uint64_t *regs, const xop *o, int l)
{
    int v = XR(regs, o->slot)[l] != 0;
    return o->neg ? !v : v;
}

static int boolop(int op, int a, int c)
{
    switch (op) {
    case PTX_BOOL_AND: return a && c;
    case PTX_BOOL_OR: return a || c;
    case PTX_BOOL_XOR: return a != c;
    default: return a;
    }
}

/* The comparison of setp/set/slct for one lane. */
static int compare(const xinsn *in, int k, int w, uint64_t a, uint64_t b)
{
    int cmp = in->cmp - 1;
    if (is_float(k)) {
        int ftz = (in->flags & PTX_F_FTZ) != 0;
        return semf_cmp(cmp, fget(a, k, w, ftz), fget(b, k, w, ftz));
    }
    int s = k == XK_S;
    return sem_icmp(cmp, ext(a, w, s), ext(b, w, s), s);
}

static wl_status exec_setp(const xinsn *in, uint64_t *regs, uint32_t m)
{
    const xop *dst = &in->o[0];
    int32_t p = dst->kind == XO_VEC ? dst->vec[0] : dst->slot;
    int32_t q = dst->kind == XO_VEC && dst->n > 1 ? dst->vec[1] : -1;
    const uint64_t *A = XR(regs, in->o[1].slot), *B = XR(regs, in->o[2].slot);
    int has_c = in->nops > 3;
    int k = in->k0, w = in->w0;
    if (in->op == PTX_OP_SET) {
        k = in->k1;
        w = in->w1;
    }
    uint64_t tp[32], tq[32];
    uint64_t *Dp = tp, *Dq = tq;
    if (in->op == PTX_OP_SETP) {
        int cmp = in->cmp - 1;
        if (!has_c && (k == XK_S || k == XK_U || k == XK_B) && (w == 32 || w == 64) &&
            cmp <= SEM_CMP_HS) {
            /* the common integer compares: one branch-free loop per comparison */
            int sg = k == XK_S;
            uint64_t flip = sg ? (w == 32 ? 0x80000000u : UINT64_C(1) << 63) : 0;
            uint64_t wm = zx(~UINT64_C(0), w);
            uint64_t ta[32], tb[32];
            LOOP(ta[l] = (A[l] & wm) ^ flip; tb[l] = (B[l] & wm) ^ flip); /* signed -> biased */
            switch (cmp) {
            case SEM_CMP_EQ: LOOP(tp[l] = ta[l] == tb[l]); break;
            case SEM_CMP_NE: LOOP(tp[l] = ta[l] != tb[l]); break;
            case SEM_CMP_LT: case SEM_CMP_LO: LOOP(tp[l] = ta[l] < tb[l]); break;
            case SEM_CMP_LE: case SEM_CMP_LS: LOOP(tp[l] = ta[l] <= tb[l]); break;
            case SEM_CMP_GT: case SEM_CMP_HI: LOOP(tp[l] = ta[l] > tb[l]); break;
            default: LOOP(tp[l] = ta[l] >= tb[l]); break;
            }
            LOOP(tq[l] = !tp[l]);
        } else {
            LOOP({
                int t = compare(in, k, w, A[l], B[l]);
                int c = has_c ? P(regs, &in->o[3], l) : 0;
                Dp[l] = (uint64_t)(has_c ? boolop(in->boolop, t, c) : t);
                Dq[l] = (uint64_t)(has_c ? boolop(in->boolop, !t, c) : !t);
            });
        }
        if (p >= 0)
            commit(XR(regs, p), tp, m);
        if (q >= 0)
            commit(XR(regs, q), tq, m);
        return WL_OK;
    }
    /* set.CMP.dtype.stype: all ones / 1.0f, or 0 */
    uint64_t one = in->k0 == XK_F ? 0x3f800000u : zx(~UINT64_C(0), in->w0);
    int bits = dst->bits;
    LOOP({
        int t = compare(in, k, w, A[l], B[l]);
        if (has_c)
            t = boolop(in->boolop, t, P(regs, &in->o[3], l));
        Dp[l] = zx(t ? one : 0, bits);
    });
    commit(XR(regs, p), tp, m);
    return WL_OK;
}

static wl_status exec_cvt(const xinsn *in, uint64_t *regs, uint64_t *Dv, diag_t *d)
{
    const xop *dst = &in->o[0];
    const uint64_t *A = XR(regs, in->o[1].slot);
    int dk = in->k0, sk = in->k1, dw = in->w0, sw = in->w1, bits = dst->bits;
    int ftz = (in->flags & PTX_F_FTZ) != 0, sat = (in->flags & PTX_F_SAT) != 0;
    semf_rnd r = frnd(in);
    int to_int = in->round >= PTX_RND_RNI && in->round <= PTX_RND_RPI;
    if (dk == XK_H2 || dk == XK_BF2) {
        /* cvt.rn.f16x2.f32 d, a, b: a goes to the upper half, b to the lower. */
        if (in->nops < 3)
            return unsup(in, d);
        const uint64_t *B = XR(regs, in->o[2].slot);
        int hk = dk == XK_H2 ? XK_H : XK_BF;
        LOOP({
            uint64_t hi = fput(fget(A[l], sk, sw, ftz), hk, 16, r, 0, sat);
            uint64_t lo = fput(fget(B[l], sk, sw, ftz), hk, 16, r, 0, sat);
            Dv[l] = zx((hi << 16) | lo, bits);
        });
        return WL_OK;
    }
    if (!is_float(dk) && dk != XK_PRED) {
        int ds = dk == XK_S;
        if (is_float(sk)) {
            semf_rnd ir = in->round == PTX_RND_NONE ? SEMF_RZ : r;
            LOOP(Dv[l] = zx(semf_to_int(fget(A[l], sk, sw, ftz), ir, dw, ds), bits));
            return WL_OK;
        }
        int ss = sk == XK_S;
        LOOP({
            uint64_t v = ext(A[l], sw, ss);
            if (sat) {
                /* clamp the source value to the destination range */
                if (ds) {
                    int64_t lo = dw >= 64 ? INT64_MIN : -(INT64_C(1) << (dw - 1));
                    int64_t hi = dw >= 64 ? INT64_MAX : (INT64_C(1) << (dw - 1)) - 1;
                    if (ss) {
                        int64_t x = (int64_t)v;
                        v = (uint64_t)(x < lo ? lo : x > hi ? hi : x);
                    } else {
                        v = v > (uint64_t)hi ? (uint64_t)hi : v;
                    }
                } else {
                    uint64_t hi = zx(~UINT64_C(0), dw);
                    if (ss && (int64_t)v < 0)
                        v = 0;
                    else if (v > hi)
                        v = hi;
                }
            }
            v = ext(v, dw, ds); /* cvt.s32.s8 etc: the value is extended to the register */
            Dv[l] = zx(v, bits);
        });
        return WL_OK;
    }
    if (!is_float(dk))
        return unsup(in, d);
    semf_fmt df = dk == XK_F ? (dw == 64 ? SEMF_F64 : SEMF_F32) : hfmt(dk);
    if (!is_float(sk)) {
        int ss = sk == XK_S;
        LOOP({
            uint64_t v = semf_from_int(ext(A[l], sw, ss), ss, df, r);
            if (sat || ftz)
                v = fput(semf_decode(v, df), dk, dw, SEMF_RN, ftz, sat);
            Dv[l] = zx(v, bits);
        });
        return WL_OK;
    }
    LOOP({
        double x = fget(A[l], sk, sw, ftz);
        if (to_int)
            x = semf_round_int(x, r);
        uint64_t v;
        if (df == SEMF_F64)
            v = DB(sat ? (isnan(x) ? 0.0 : x < 0 ? 0.0 : x > 1 ? 1.0 : x) : x);
        else
            v = fput(x, dk, dw, to_int ? SEMF_RN : r, ftz, sat);
        Dv[l] = zx(v, bits);
    });
    return WL_OK;
}

static wl_status exec_mov(const xinsn *in, uint64_t *regs, uint32_t m)
{
    const xop *dst = &in->o[0], *src = &in->o[1];
    if (dst->kind == XO_VEC) { /* unpack: mov.b64 {lo, hi}, %rd */
        int part = in->w0 / (dst->n ? dst->n : 1);
        const uint64_t *A = XR(regs, src->slot);
        for (int v = 0; v < dst->n; v++) {
            if (dst->vec[v] < 0)
                continue;
            uint64_t *Dv = XR(regs, dst->vec[v]);
            int bits = dst->vbits[v];
            MLOOP(Dv[l] = zx(zx(A[l] >> (part * v), part), bits));
        }
        return WL_OK;
    }
    uint64_t *Dv = XR(regs, dst->slot);
    int bits = dst->bits;
    if (src->kind == XO_VEC) { /* pack: mov.b64 %rd, {lo, hi} */
        int part = in->w0 / (src->n ? src->n : 1);
        MLOOP({
            uint64_t v = 0;
            for (int e = 0; e < src->n; e++)
                if (src->vec[e] >= 0)
                    v |= zx(XR(regs, src->vec[e])[l], part) << (part * e);
            Dv[l] = zx(v, bits);
        });
        return WL_OK;
    }
    const uint64_t *A = XR(regs, src->slot);
    if (bits >= 64)
        MLOOP(Dv[l] = A[l]);
    else
        MLOOP(Dv[l] = zx(A[l], bits));
    return WL_OK;
}

static wl_status exec_float(const xinsn *in, uint64_t *regs, uint64_t *Dv, diag_t *d);
static wl_status exec_int(const xinsn *in, uint64_t *regs, uint32_t m, uint32_t *carry,
                          uint64_t *Dv, diag_t *d);

static wl_status xop_one(const xinsn *in, uint64_t *regs, uint32_t m, uint32_t *carry,
                         uint64_t *Dv, diag_t *d)
{
    switch (in->op) {
    case PTX_OP_CVT: return exec_cvt(in, regs, Dv, d);
    case PTX_OP_SELP: {
        const uint64_t *A = XR(regs, in->o[1].slot), *B = XR(regs, in->o[2].slot);
        int bits = in->o[0].bits;
        LOOP(Dv[l] = zx(P(regs, &in->o[3], l) ? A[l] : B[l], bits));
        return WL_OK;
    }
    case PTX_OP_SLCT: {
        const uint64_t *A = XR(regs, in->o[1].slot), *B = XR(regs, in->o[2].slot);
        const uint64_t *C = XR(regs, in->o[3].slot);
        int bits = in->o[0].bits, fl = in->k1 == XK_F;
        int ftz = (in->flags & PTX_F_FTZ) != 0;
        LOOP({
            int ge = fl ? fget(C[l], XK_F, 32, ftz) >= 0 : (int32_t)C[l] >= 0;
            Dv[l] = zx(ge ? A[l] : B[l], bits);
        });
        return WL_OK;
    }
    case PTX_OP_CVTA: case PTX_OP_ISSPACEP: {
        const uint64_t *A = XR(regs, in->o[1].slot);
        int bits = in->o[0].bits, to = (in->flags & PTX_F_TO) != 0;
        uint64_t win = in->space == XS_SHARED ? EXEC_SHARED_WINDOW :
                       in->space == XS_LOCAL ? EXEC_LOCAL_WINDOW : 0;
        if (in->op == PTX_OP_ISSPACEP) {
            LOOP({
                uint64_t a = A[l];
                int sh = a - EXEC_SHARED_WINDOW < EXEC_WINDOW_SIZE;
                int lo = a - EXEC_LOCAL_WINDOW < EXEC_WINDOW_SIZE;
                int r = in->space == XS_SHARED ? sh : in->space == XS_LOCAL ? lo :
                        in->space == XS_GLOBAL ? !sh && !lo : 0;
                Dv[l] = (uint64_t)r;
            });
            return WL_OK;
        }
        if (win == 0 && in->space != XS_GLOBAL)
            return unsup(in, d);
        LOOP(Dv[l] = zx(to ? A[l] - win : A[l] + win, bits));
        return WL_OK;
    }
    default: break;
    }
    if (is_float(in->k0) || in->op == PTX_OP_TESTP)
        return exec_float(in, regs, Dv, d);
    return exec_int(in, regs, m, carry, Dv, d);
}

wl_status xop_exec(const xinsn *in, uint64_t *regs, uint32_t m, uint32_t *carry, diag_t *d)
{
    if (in->op == PTX_OP_MOV)
        return exec_mov(in, regs, m);
    if (in->op == PTX_OP_SETP || in->op == PTX_OP_SET)
        return exec_setp(in, regs, m);
    if (in->o[0].kind != XO_SLOT || in->o[0].slot < 0)
        return unsup(in, d);
    uint64_t tmp[32];
    wl_status st = xop_one(in, regs, m, carry, tmp, d);
    if (st == WL_OK)
        commit(XR(regs, in->o[0].slot), tmp, m);
    return st;
}

/* fma.rn.f32 for 32 lanes. With the host's FMA instruction (checked at run time) it is one
 * correctly rounded operation per lane. Without it: a*b is exact in a double; s = a*b + c rounds
 * once in double and once more to float, which is wrong only when s lands exactly on a float
 * midpoint (or in the subnormal range): those lanes are redone exactly. Same bits either way. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void fma32_hw(const uint64_t *A, const uint64_t *B,
                                                         const uint64_t *C, uint64_t *T)
{
    LOOP(T[l] = FB(__builtin_fmaf(F(A[l]), F(B[l]), F(C[l]))));
}
#define HAVE_FMA_HW() __builtin_cpu_supports("fma")
#else
#define HAVE_FMA_HW() 0
static void fma32_hw(const uint64_t *A, const uint64_t *B, const uint64_t *C, uint64_t *T)
{
    LOOP(T[l] = FB(fmaf(F(A[l]), F(B[l]), F(C[l]))));
}
#endif

static void fma32_rn(const uint64_t *A, const uint64_t *B, const uint64_t *C, uint64_t *Dv)
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

static wl_status exec_float(const xinsn *in, uint64_t *regs, uint64_t *Dv, diag_t *d)
{
    int k = in->k0, w = in->w0, op = in->op;
    int ftz = (in->flags & PTX_F_FTZ) != 0, sat = (in->flags & PTX_F_SAT) != 0;
    semf_rnd r = frnd(in);
    int bits = in->o[0].bits;
    const uint64_t *A = in->nops > 1 ? XR(regs, in->o[1].slot) : NULL;
    const uint64_t *B = in->nops > 2 ? XR(regs, in->o[2].slot) : NULL;
    const uint64_t *C = in->nops > 3 ? XR(regs, in->o[3].slot) : NULL;
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
        default: return unsup(in, d);
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
                fma32_rn(A, B, C, Dv);
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
        default: return unsup(in, d);
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
    default: return unsup(in, d);
    }
    (void)bits;
}

static wl_status exec_int(const xinsn *in, uint64_t *regs, uint32_t m, uint32_t *carry,
                          uint64_t *Dv, diag_t *d)
{
    int op = in->op, w = in->w0, s = in->k0 == XK_S;
    int bits = in->o[0].bits;
    const uint64_t *A = in->nops > 1 ? XR(regs, in->o[1].slot) : NULL;
    const uint64_t *B = in->nops > 2 ? XR(regs, in->o[2].slot) : NULL;
    const uint64_t *C = in->nops > 3 ? XR(regs, in->o[3].slot) : NULL;
    const uint64_t *E = in->nops > 4 ? XR(regs, in->o[4].slot) : NULL;
    int sat = (in->flags & PTX_F_SAT) != 0;
    int cc = (in->flags & PTX_F_CC) != 0;
    uint64_t dmask = zx(~UINT64_C(0), bits);
    int cin = op == PTX_OP_ADDC || op == PTX_OP_SUBC || op == PTX_OP_MADC;
    if (in->k0 == XK_PRED) {
        switch (op) {
        case PTX_OP_AND: LOOP(Dv[l] = (uint64_t)(P(regs, &in->o[1], l) & P(regs, &in->o[2], l))); return WL_OK;
        case PTX_OP_OR: LOOP(Dv[l] = (uint64_t)(P(regs, &in->o[1], l) | P(regs, &in->o[2], l))); return WL_OK;
        case PTX_OP_XOR: LOOP(Dv[l] = (uint64_t)(P(regs, &in->o[1], l) ^ P(regs, &in->o[2], l))); return WL_OK;
        case PTX_OP_NOT: LOOP(Dv[l] = (uint64_t)!P(regs, &in->o[1], l)); return WL_OK;
        default: return unsup(in, d);
        }
    }
    switch (op) {
    case PTX_OP_ADD: case PTX_OP_ADDC: case PTX_OP_SUB: case PTX_OP_SUBC: {
        int sub = op == PTX_OP_SUB || op == PTX_OP_SUBC;
        if (sat && s && w == 32) {
            LOOP(Dv[l] = zx((uint64_t)(sub ? sem_sub_sat_s32((int32_t)A[l], (int32_t)B[l]) :
                                             sem_add_sat_s32((int32_t)A[l], (int32_t)B[l])), bits));
            return WL_OK;
        }
        if (!cc && !cin) {
            uint64_t dm = zx(~UINT64_C(0), w < bits ? w : bits);
            if (sub)
                LOOP(Dv[l] = (A[l] - B[l]) & dm);
            else
                LOOP(Dv[l] = (A[l] + B[l]) & dm);
            return WL_OK;
        }
        /* carry chain: CC.CF is the carry out of an add, the borrow of a sub */
        uint32_t nc = *carry;
        LOOP({
            uint64_t a = zx(A[l], w), b = zx(B[l], w), ci = cin ? (*carry >> l) & 1 : 0;
            uint64_t r = sub ? a - b - ci : a + b + ci;
            uint64_t co = sub ? (a < b + ci || (ci && b == zx(~UINT64_C(0), w))) :
                                (zx(r, w) < a || (ci && zx(r, w) == a));
            Dv[l] = zx(r, w < bits ? w : bits);
            if (cc)
                nc = (nc & ~(1u << l)) | ((uint32_t)co << l);
        });
        *carry = (nc & m) | (*carry & ~m);
        return WL_OK;
    }
    case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_MADC:
        if (in->mul != PTX_MUL_HI && in->mul != PTX_MUL_WIDE && op != PTX_OP_MADC && !sat) {
            /* .lo: the low w bits do not depend on signedness */
            uint64_t dm = zx(~UINT64_C(0), w);
            if (op == PTX_OP_MUL)
                LOOP(Dv[l] = (A[l] * B[l]) & dm);
            else
                LOOP(Dv[l] = (A[l] * B[l] + C[l]) & dm);
            return WL_OK;
        }
        if (in->mul == PTX_MUL_WIDE && w == 32 && op == PTX_OP_MUL) {
            if (s)
                LOOP(Dv[l] = (uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]));
            else
                LOOP(Dv[l] = (A[l] & 0xffffffffu) * (B[l] & 0xffffffffu));
            return WL_OK;
        }
        LOOP({
            uint64_t a = ext(A[l], w, s), b = ext(B[l], w, s), r;
            if (in->mul == PTX_MUL_HI)
                r = sem_mul_hi(a, b, w, s);
            else if (in->mul == PTX_MUL_WIDE)
                r = a * b; /* 2w-bit product of extended operands */
            else
                r = a * b;
            if (op != PTX_OP_MUL) {
                uint64_t c = C[l];
                if (op == PTX_OP_MADC)
                    c += (*carry >> l) & 1;
                if (sat && s && w == 32 && in->mul == PTX_MUL_HI)
                    r = (uint64_t)(int64_t)sem_add_sat_s32((int32_t)r, (int32_t)c);
                else
                    r += c;
            }
            Dv[l] = zx(r, in->mul == PTX_MUL_WIDE ? 2 * w : w);
        });
        return WL_OK;
    case PTX_OP_MUL24: case PTX_OP_MAD24:
        LOOP({
            uint64_t r = sem_mul24((uint32_t)A[l], (uint32_t)B[l], in->mul == PTX_MUL_HI, s);
            if (op == PTX_OP_MAD24)
                r += C[l];
            Dv[l] = zx(r, 32);
        });
        return WL_OK;
    case PTX_OP_DIV: LOOP(Dv[l] = zx(sem_div(A[l], B[l], w, s), bits)); return WL_OK;
    case PTX_OP_REM: LOOP(Dv[l] = zx(sem_rem(A[l], B[l], w, s), bits)); return WL_OK;
    case PTX_OP_ABS:
        LOOP({ int64_t v = (int64_t)sem_sext(A[l], w); Dv[l] = zx((uint64_t)(v < 0 ? -(uint64_t)v : (uint64_t)v), w); });
        return WL_OK;
    case PTX_OP_NEG: LOOP(Dv[l] = zx(0 - A[l], w)); return WL_OK;
    case PTX_OP_MIN: case PTX_OP_MAX: {
        int relu = (in->flags & PTX_F_RELU) != 0;
        LOOP({
            uint64_t a = ext(A[l], w, s), b = ext(B[l], w, s);
            uint64_t r = op == PTX_OP_MIN ? sem_min(a, b, s) : sem_max(a, b, s);
            if (relu && (int64_t)r < 0)
                r = 0;
            Dv[l] = zx(r, w);
        });
        return WL_OK;
    }
    case PTX_OP_SAD:
        LOOP({
            uint64_t a = ext(A[l], w, s), b = ext(B[l], w, s);
            uint64_t dd = s ? ((int64_t)a > (int64_t)b ? a - b : b - a) : (a > b ? a - b : b - a);
            Dv[l] = zx(C[l] + dd, w);
        });
        return WL_OK;
    case PTX_OP_AND: LOOP(Dv[l] = A[l] & B[l] & dmask); return WL_OK;
    case PTX_OP_OR: LOOP(Dv[l] = (A[l] | B[l]) & dmask); return WL_OK;
    case PTX_OP_XOR: LOOP(Dv[l] = (A[l] ^ B[l]) & dmask); return WL_OK;
    case PTX_OP_NOT: LOOP(Dv[l] = zx(~A[l], w)); return WL_OK;
    case PTX_OP_CNOT: LOOP(Dv[l] = zx(A[l], w) == 0); return WL_OK;
    case PTX_OP_LOP3: LOOP(Dv[l] = zx(sem_lop3(A[l], B[l], C[l], (uint32_t)E[l]), w)); return WL_OK;
    case PTX_OP_SHL:
        if (w == 32) /* amounts >= 32 give 0 */
            LOOP(Dv[l] = (uint32_t)B[l] >= 32 ? 0 : (uint32_t)((uint32_t)A[l] << (B[l] & 31)));
        else
            LOOP(Dv[l] = sem_shl(A[l], (uint32_t)B[l], w));
        return WL_OK;
    case PTX_OP_SHR:
        if (w == 32 && !s)
            LOOP(Dv[l] = (uint32_t)B[l] >= 32 ? 0 : (uint32_t)A[l] >> (B[l] & 31));
        else if (w == 32)
            LOOP(Dv[l] = (uint32_t)((int32_t)A[l] >> ((uint32_t)B[l] >= 32 ? 31 : (B[l] & 31))));
        else
            LOOP(Dv[l] = sem_shr(A[l], (uint32_t)B[l], w, s));
        return WL_OK;
    case PTX_OP_SHF:
        LOOP(Dv[l] = sem_shf((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l],
                             in->mode == PTX_SHF_L, (in->flags & PTX_F_CLAMP) != 0));
        return WL_OK;
    case PTX_OP_BFE:
        LOOP(Dv[l] = sem_bfe(A[l], (uint32_t)B[l], (uint32_t)C[l], w, s));
        return WL_OK;
    case PTX_OP_BFI:
        LOOP(Dv[l] = sem_bfi(A[l], B[l], (uint32_t)C[l], (uint32_t)E[l], w));
        return WL_OK;
    case PTX_OP_BFIND:
        LOOP(Dv[l] = sem_bfind(A[l], w, s, (in->flags & PTX_F_SHIFTAMT) != 0));
        return WL_OK;
    case PTX_OP_POPC: LOOP(Dv[l] = sem_popc(A[l], w)); return WL_OK;
    case PTX_OP_CLZ: LOOP(Dv[l] = sem_clz(A[l], w)); return WL_OK;
    case PTX_OP_BREV: LOOP(Dv[l] = sem_brev(A[l], w)); return WL_OK;
    case PTX_OP_PRMT:
        LOOP(Dv[l] = sem_prmt((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l], in->mode));
        return WL_OK;
    case PTX_OP_DP4A:
        LOOP({
            int sa = in->k0 == XK_S, sb = in->k1 == XK_S;
            uint64_t acc = C[l];
            for (int i = 0; i < 4; i++) {
                uint64_t x = ext(A[l] >> (8 * i), 8, sa), y = ext(B[l] >> (8 * i), 8, sb);
                acc += x * y;
            }
            Dv[l] = zx(acc, 32);
        });
        return WL_OK;
    default: return unsup(in, d);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Direct handlers: one tight loop each, no dispatch; chosen at decode time by xop_pick_fast.   */
#define FAST2(name, expr)                                                                          \
    static void name(const xinsn *in, uint64_t *regs, uint32_t m)                                  \
    {                                                                                              \
        const uint64_t *A = XR(regs, in->o[1].slot), *B = XR(regs, in->o[2].slot);                 \
        uint64_t T[32];                                                                            \
        LOOP(T[l] = (expr));                                                                       \
        commit(XR(regs, in->o[0].slot), T, m);                                                     \
    }
#define FAST3(name, expr)                                                                          \
    static void name(const xinsn *in, uint64_t *regs, uint32_t m)                                  \
    {                                                                                              \
        const uint64_t *A = XR(regs, in->o[1].slot), *B = XR(regs, in->o[2].slot);                 \
        const uint64_t *C = XR(regs, in->o[3].slot);                                               \
        uint64_t T[32];                                                                            \
        LOOP(T[l] = (expr));                                                                       \
        commit(XR(regs, in->o[0].slot), T, m);                                                     \
    }
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

static void f_ffma(const xinsn *in, uint64_t *regs, uint32_t m)
{
    uint64_t T[32];
    fma32_rn(XR(regs, in->o[1].slot), XR(regs, in->o[2].slot), XR(regs, in->o[3].slot), T);
    commit(XR(regs, in->o[0].slot), T, m);
}

static void f_mov(const xinsn *in, uint64_t *regs, uint32_t m)
{
    const uint64_t *A = XR(regs, in->o[1].slot);
    uint64_t T[32], dm = zx(~UINT64_C(0), in->o[0].bits);
    LOOP(T[l] = A[l] & dm);
    commit(XR(regs, in->o[0].slot), T, m);
}

void xop_pick_fast(xinsn *in)
{
    in->fast = NULL;
    if (in->nops < 2 || in->o[0].kind != XO_SLOT || in->flags || in->guard_neg > 1)
        return;
    for (int k = 1; k < in->nops; k++)
        if (in->o[k].kind != XO_SLOT || in->o[k].neg)
            return;
    int dst32 = in->o[0].bits == 32, dst64 = in->o[0].bits == 64;
    int i32 = (in->k0 == XK_U || in->k0 == XK_S || in->k0 == XK_B) && in->w0 == 32 && dst32;
    int i64 = (in->k0 == XK_U || in->k0 == XK_S || in->k0 == XK_B) && in->w0 == 64 && dst64;
    int f32 = in->k0 == XK_F && in->w0 == 32 && dst32 &&
              (in->round == PTX_RND_NONE || in->round == PTX_RND_RN);
    int lo = in->mul == PTX_MUL_NONE || in->mul == PTX_MUL_LO;
    switch (in->op) {
    case PTX_OP_MOV:
        if (in->nops == 2 && in->o[0].bits >= 32)
            in->fast = f_mov;
        break;
    case PTX_OP_ADD: in->fast = i32 ? f_add32 : i64 ? f_add64 : f32 ? f_fadd : NULL; break;
    case PTX_OP_SUB: in->fast = i32 ? f_sub32 : NULL; break;
    case PTX_OP_MUL:
        if (i32 && lo)
            in->fast = f_mul32;
        else if (f32)
            in->fast = f_fmul;
        else if (in->mul == PTX_MUL_WIDE && in->w0 == 32 && dst64)
            in->fast = in->k0 == XK_S ? f_mulwide_s32 : f_mulwide_u32;
        break;
    case PTX_OP_MAD: in->fast = i32 && lo ? f_mad32 : f32 ? f_ffma : NULL; break;
    case PTX_OP_FMA: in->fast = f32 ? f_ffma : NULL; break;
    case PTX_OP_AND: in->fast = i32 ? f_and32 : NULL; break;
    case PTX_OP_OR: in->fast = i32 ? f_or32 : NULL; break;
    case PTX_OP_XOR: in->fast = i32 ? f_xor32 : NULL; break;
    case PTX_OP_SHL: in->fast = i32 ? f_shl32 : NULL; break;
    case PTX_OP_SHR: in->fast = i32 && in->k0 != XK_S ? f_shru32 : NULL; break;
    default: break;
    }
}
