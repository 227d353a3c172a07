/* xop: per-lane execution of integer arithmetic, logic, comparison, selection, move and
 * conversion instructions (floating point is in xopf.c; the direct handlers of the hottest
 * forms are in xfast.c). One switch per warp instruction picks the operation and type; the
 * lane loops (xlane.h) run over all 32 lanes into a temporary and commit the active ones. Register
 * slots hold a register's bits zero-extended; sources are read as 64-bit lanes (XSRC widens a
 * narrow slot) and every write masks to the destination register's width (xcommit keeps the low
 * 32 bits of a narrow one). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "exec_int.h"
#include "ptx.h"
#include "sem.h"
#include "semf.h"
#include "xlane.h"

wl_status xop_unsup(const xinsn *in, diag_t *d)
{
    return diag_set(d, WL_EUNSUPPORTED, NULL, (int)in->ir->line, (int)in->ir->col,
                    "unsupported by the executor: '%s' with type .%s", isa_name(in->ir->op),
                    ptx_type_name((ptx_type)in->t0));
}

/* Predicate operand value (with `!`). */
static inline int P(const uint64_t *regs, const xop *o, int l)
{
    int v = xget(o, regs, l) != 0;
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

static wl_status exec_setp(const xinsn *in, uint64_t *regs, uint32_t m, diag_t *d)
{
    if (in->k0 == XK_H2 || in->k0 == XK_BF2 || in->k1 == XK_H2 || in->k1 == XK_BF2)
        return xop_unsup(in, d); /* packed compares (two predicates per lane) */
    const xop *dst = &in->o[0];
    int32_t p = dst->kind == XO_VEC ? dst->vec[0] : dst->slot;
    int32_t q = dst->kind == XO_VEC && dst->n > 1 ? dst->vec[1] : -1;
    int pnw = dst->kind == XO_VEC ? dst->vnw[0] : dst->nw, qnw = dst->vnw[1];
    uint64_t xa[32], xb[32];
    const uint64_t *A = XSRC(&in->o[1], regs, xa), *B = XSRC(&in->o[2], regs, xb);
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
            xcommit(regs, p, pnw, tp, m);
        if (q >= 0)
            xcommit(regs, q, qnw, tq, m);
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
    xcommit(regs, p, pnw, tp, m);
    return WL_OK;
}

static wl_status exec_cvt(const xinsn *in, uint64_t *regs, uint64_t *Dv, diag_t *d)
{
    const xop *dst = &in->o[0];
    uint64_t xa[32], xb[32];
    const uint64_t *A = XSRC(&in->o[1], regs, xa);
    int dk = in->k0, sk = in->k1, dw = in->w0, sw = in->w1, bits = dst->bits;
    int ftz = (in->flags & PTX_F_FTZ) != 0, sat = (in->flags & PTX_F_SAT) != 0;
    semf_rnd r = frnd(in);
    int to_int = in->round >= PTX_RND_RNI && in->round <= PTX_RND_RPI;
    if (dk == XK_H2 || dk == XK_BF2) {
        /* cvt.rn.f16x2.f32 d, a, b: a goes to the upper half, b to the lower. */
        if (in->nops < 3)
            return xop_unsup(in, d);
        const uint64_t *B = XSRC(&in->o[2], regs, xb);
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
        return xop_unsup(in, d);
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
    if (dk == XK_H && sk == XK_F && sw == 32 && r == SEMF_RN && !ftz && !sat && !to_int) {
        /* cvt.rn.f16.f32 (half-precision kernels convert every input): on the bits */
        LOOP(Dv[l] = zx(semf_f32_to_f16((uint32_t)A[l]), bits));
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
    uint64_t xa[32], Dv[32];
    if (dst->kind == XO_VEC) { /* unpack: mov.b64 {lo, hi}, %rd */
        int part = in->w0 / (dst->n ? dst->n : 1);
        const uint64_t *A = XSRC(src, regs, xa);
        for (int v = 0; v < dst->n; v++) {
            if (dst->vec[v] < 0)
                continue;
            int bits = dst->vbits[v];
            LOOP(Dv[l] = zx(zx(A[l] >> (part * v), part), bits));
            xcommit(regs, dst->vec[v], dst->vnw[v], Dv, m);
        }
        return WL_OK;
    }
    int bits = dst->bits;
    if (src->kind == XO_VEC) { /* pack: mov.b64 %rd, {lo, hi} */
        int part = in->w0 / (src->n ? src->n : 1);
        MLOOP({
            uint64_t v = 0;
            for (int e = 0; e < src->n; e++)
                if (src->vec[e] >= 0)
                    v |= zx(xslot_get(regs, src->vec[e], src->vnw[e], l), part) << (part * e);
            Dv[l] = zx(v, bits);
        });
        xcommit(regs, dst->slot, dst->nw, Dv, m);
        return WL_OK;
    }
    const uint64_t *A = XSRC(src, regs, xa);
    LOOP(Dv[l] = zx(A[l], bits));
    xcommit(regs, dst->slot, dst->nw, Dv, m);
    return WL_OK;
}

static wl_status exec_int(const xinsn *in, uint64_t *regs, uint32_t m, uint32_t *carry,
                          uint64_t *Dv, diag_t *d);

static wl_status xop_one(const xinsn *in, uint64_t *regs, uint32_t m, uint32_t *carry,
                         uint64_t *Dv, diag_t *d)
{
    switch (in->op) {
    case PTX_OP_CVT: return exec_cvt(in, regs, Dv, d);
    case PTX_OP_SELP: {
        uint64_t xa[32], xb[32];
        const uint64_t *A = XSRC(&in->o[1], regs, xa), *B = XSRC(&in->o[2], regs, xb);
        int bits = in->o[0].bits;
        LOOP(Dv[l] = zx(P(regs, &in->o[3], l) ? A[l] : B[l], bits));
        return WL_OK;
    }
    case PTX_OP_SLCT: {
        uint64_t xa[32], xb[32], xc[32];
        const uint64_t *A = XSRC(&in->o[1], regs, xa), *B = XSRC(&in->o[2], regs, xb);
        const uint64_t *C = XSRC(&in->o[3], regs, xc);
        int bits = in->o[0].bits, fl = in->k1 == XK_F;
        int ftz = (in->flags & PTX_F_FTZ) != 0;
        LOOP({
            int ge = fl ? fget(C[l], XK_F, 32, ftz) >= 0 : (int32_t)C[l] >= 0;
            Dv[l] = zx(ge ? A[l] : B[l], bits);
        });
        return WL_OK;
    }
    case PTX_OP_CVTA: case PTX_OP_ISSPACEP: {
        uint64_t xa[32];
        const uint64_t *A = XSRC(&in->o[1], regs, xa);
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
            return xop_unsup(in, d);
        LOOP(Dv[l] = zx(to ? A[l] - win : A[l] + win, bits));
        return WL_OK;
    }
    default: break;
    }
    if (is_float(in->k0) || in->op == PTX_OP_TESTP)
        return xopf_exec(in, regs, Dv, d);
    return exec_int(in, regs, m, carry, Dv, d);
}

wl_status xop_exec(const xinsn *in, uint64_t *regs, uint32_t m, uint32_t *carry, diag_t *d)
{
    if (in->op == PTX_OP_MOV)
        return exec_mov(in, regs, m);
    if (in->op == PTX_OP_SETP || in->op == PTX_OP_SET)
        return exec_setp(in, regs, m, d);
    if (in->o[0].kind != XO_SLOT || in->o[0].slot < 0)
        return xop_unsup(in, d);
    uint64_t tmp[32];
    wl_status st = xop_one(in, regs, m, carry, tmp, d);
    if (st == WL_OK)
        xcommit(regs, in->o[0].slot, in->o[0].nw, tmp, m);
    return st;
}

static wl_status exec_int(const xinsn *in, uint64_t *regs, uint32_t m, uint32_t *carry,
                          uint64_t *Dv, diag_t *d)
{
    int op = in->op, w = in->w0, s = in->k0 == XK_S;
    int bits = in->o[0].bits;
    uint64_t xa[32], xb[32], xc[32], xe[32];
    const uint64_t *A = in->nops > 1 ? XSRC(&in->o[1], regs, xa) : NULL;
    const uint64_t *B = in->nops > 2 ? XSRC(&in->o[2], regs, xb) : NULL;
    const uint64_t *C = in->nops > 3 ? XSRC(&in->o[3], regs, xc) : NULL;
    const uint64_t *E = in->nops > 4 ? XSRC(&in->o[4], regs, xe) : NULL;
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
        default: return xop_unsup(in, d);
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
    default: return xop_unsup(in, d);
    }
}
