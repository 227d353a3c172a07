/* xwide: warp-wide instructions (shfl/vote/match/redux/activemask/elect) and the special
 * registers and symbol addresses computed before an instruction. */
#include <string.h>

#include "exec_int.h"
#include "ptx.h"
#include "xlane.h"

/* ------------------------------------------------------------------------------------------ */
/* Warp-wide operations                                                                       */
/* ------------------------------------------------------------------------------------------ */
/* shfl.sync with the same b (lane offset) and c (clamp and segment mask) in every lane: the
 * rule of the general loop below (PTX ISA, shfl.sync) for each lane l, with the source lane j
 * and the in-range flag computed without per-lane loads or branches. */
static void shfl_uniform(int mode, uint32_t bv, uint32_t c, const uint64_t *A, uint64_t *res,
                         uint64_t *pres)
{
    int32_t seg = (int32_t)((c >> 8) & 31), cl = (int32_t)(c & 31), b = (int32_t)bv;
    int32_t j[32], ok[32];
    switch (mode) { /* one loop per mode, each without branches */
    case PTX_SHFL_UP:
        for (int32_t l = 0; l < 32; l++)
            j[l] = l - b, ok[l] = j[l] >= ((l & seg) | (cl & ~seg));
        break;
    case PTX_SHFL_DOWN:
        for (int32_t l = 0; l < 32; l++)
            j[l] = l + b, ok[l] = j[l] <= ((l & seg) | (cl & ~seg));
        break;
    case PTX_SHFL_BFLY:
        for (int32_t l = 0; l < 32; l++)
            j[l] = l ^ b, ok[l] = j[l] <= ((l & seg) | (cl & ~seg));
        break;
    default:
        for (int32_t l = 0; l < 32; l++)
            j[l] = (l & seg) | (b & ~seg), ok[l] = j[l] <= ((l & seg) | (cl & ~seg));
        break;
    }
    for (int32_t l = 0; l < 32; l++) {
        res[l] = A[(ok[l] ? j[l] : l) & 31];
        pres[l] = (uint64_t)ok[l];
    }
}

/* shfl.sync down/up by an immediate lane offset b over the whole warp (no segments: the
 * clamp's segment mask is 0, its lane cl the last or first lane), every lane executing, from
 * a narrow register into a narrow one (and a predicate): the rule of shfl_uniform as
 * runs of lanes. down: lanes l <= cl - b read lane l + b (in range), the others themselves;
 * up: lanes l >= cl + b read lane l - b. Returns 0 when the form is not one of these. */
static int shfl_runs(const xinsn *in, uint64_t *regs, uint32_t b, uint32_t c, int32_t ds,
                     int32_t ps)
{
    const xop *a = &in->o[1], *dst = &in->o[0];
    int pnw = dst->kind == XO_VEC ? dst->vnw[1] : 1;
    int dbits = dst->kind == XO_VEC ? dst->vbits[0] : dst->bits;
    if ((c >> 8 & 31) != 0 || !a->nw || a->cptr || ds < 0 || dbits < 32 ||
        !(dst->kind == XO_VEC ? dst->vnw[0] : dst->nw))
        return 0;
    uint32_t cl = c & 31, lo, hi, from; /* lanes [lo, hi] read lane l + from - lo */
    if (in->mode == PTX_SHFL_DOWN && b <= cl) {
        lo = 0, hi = cl - b, from = b;
    } else if (in->mode == PTX_SHFL_UP && cl + b <= 31) {
        lo = cl + b, hi = 31, from = cl;
    } else {
        return 0;
    }
    uint32_t A[32], *D = XN(regs, ds);
    memcpy(A, XNC(regs, a->slot), sizeof A); /* D may be A (registers not sharing slots) */
    memcpy(D, A, sizeof A);
    memcpy(D + lo, A + from, (hi - lo + 1) * sizeof *A);
    /* a predicate in a wide slot is the sink (xalloc: nothing reads it): not written */
    if (ps >= 0 && pnw) {
        uint32_t *P = XN(regs, ps);
        for (uint32_t l = 0; l < 32; l++)
            P[l] = l - lo <= hi - lo; /* lo <= l <= hi, branch-free */
    }
    return 1;
}

wl_status xwide_exec(exec_block *b, int warp, const xinsn *in, uint64_t *regs,
                               uint32_t active, uint32_t m, diag_t *d)
{
    const xop *dst = &in->o[0];
    int32_t ds = dst->kind == XO_VEC ? dst->vec[0] : dst->slot;
    int32_t ps = dst->kind == XO_VEC && dst->n > 1 ? dst->vec[1] : -1;
    int dbits = dst->kind == XO_VEC ? dst->vbits[0] : dst->bits;
    int dnw = dst->kind == XO_VEC ? dst->vnw[0] : dst->nw, pnw = dst->vnw[1];
    uint64_t res[32], pres[32], ta[32], tb[32], tc[32];
    uint64_t dmask = dbits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << dbits) - 1;
    switch (in->op) {
    case PTX_OP_SHFL: {
        if (in->o[2].cptr && in->o[3].cptr) { /* lane offset and clamp immediates (the usual
                                                * form): one source lane per lane, no branches */
            uint32_t bv = (uint32_t)in->o[2].cptr[0] & 31, c = (uint32_t)in->o[3].cptr[0];
            if (m == XFULL && shfl_runs(in, regs, bv, c, ds, ps))
                return WL_OK;
            shfl_uniform(in->mode, bv, c, XSRC(&in->o[1], regs, ta), res, pres);
            break;
        }
        const uint64_t *A = XSRC(&in->o[1], regs, ta), *B = XSRC(&in->o[2], regs, tb);
        const uint64_t *C = XSRC(&in->o[3], regs, tc);
        for (int l = 0; l < 32; l++) {
            if (!((m >> l) & 1))
                continue;
            uint32_t bv = (uint32_t)B[l] & 31, c = (uint32_t)C[l];
            uint32_t seg = (c >> 8) & 31, cl = c & 31;
            uint32_t maxl = ((uint32_t)l & seg) | (cl & ~seg), minl = (uint32_t)l & seg;
            int32_t j;
            int ok;
            switch (in->mode) {
            case PTX_SHFL_UP: j = l - (int32_t)bv; ok = j >= (int32_t)maxl; break;
            case PTX_SHFL_DOWN: j = l + (int32_t)bv; ok = j <= (int32_t)maxl; break;
            case PTX_SHFL_BFLY: j = l ^ (int32_t)bv; ok = j <= (int32_t)maxl; break;
            default: j = (int32_t)(minl | (bv & ~seg)); ok = j <= (int32_t)maxl; break;
            }
            if (!ok)
                j = l;
            res[l] = A[j & 31];
            pres[l] = (uint64_t)ok;
        }
        break;
    }
    case PTX_OP_VOTE: {
        uint32_t bal = 0;
        const xop *po = &in->o[1];
        for (int l = 0; l < 32; l++)
            if ((m >> l) & 1) {
                int v = xget(po, regs, l) != 0;
                bal |= (uint32_t)(po->neg ? !v : v) << l;
            }
        uint64_t v = in->mode == PTX_VOTE_ALL ? bal == m : in->mode == PTX_VOTE_ANY ? bal != 0 :
                     in->mode == PTX_VOTE_UNI ? (bal == 0 || bal == m) : bal;
        for (int l = 0; l < 32; l++)
            res[l] = v;
        break;
    }
    case PTX_OP_MATCH: {
        const uint64_t *A = XSRC(&in->o[1], regs, ta);
        int w = in->w0;
        uint64_t wm = w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
        int all = 1;
        for (int l = 0; l < 32; l++) {
            if (!((m >> l) & 1))
                continue;
            uint32_t s = 0;
            for (int j = 0; j < 32; j++)
                if (((m >> j) & 1) && ((A[j] ^ A[l]) & wm) == 0)
                    s |= 1u << j;
            res[l] = s;
            if (s != m)
                all = 0;
        }
        if (in->mode == PTX_MATCH_ALL)
            for (int l = 0; l < 32; l++) {
                res[l] = all ? m : 0;
                pres[l] = (uint64_t)all;
            }
        break;
    }
    case PTX_OP_REDUX: {
        const uint64_t *A = XSRC(&in->o[1], regs, ta);
        int s = in->k0 == XK_S;
        uint64_t acc = in->aop == PTX_AOP_AND ? 0xffffffffu :
                       in->aop == PTX_AOP_MIN ? (s ? 0x7fffffffu : 0xffffffffu) :
                       in->aop == PTX_AOP_MAX ? (s ? 0x80000000u : 0) : 0;
        for (int l = 0; l < 32; l++) {
            if (!((m >> l) & 1))
                continue;
            uint32_t a = (uint32_t)A[l], c = (uint32_t)acc;
            switch (in->aop) {
            case PTX_AOP_ADD: c += a; break;
            case PTX_AOP_AND: c &= a; break;
            case PTX_AOP_OR: c |= a; break;
            case PTX_AOP_XOR: c ^= a; break;
            case PTX_AOP_MIN: c = s ? ((int32_t)a < (int32_t)c ? a : c) : (a < c ? a : c); break;
            case PTX_AOP_MAX: c = s ? ((int32_t)a > (int32_t)c ? a : c) : (a > c ? a : c); break;
            default: return exec_fail(b, warp, -1, in, WL_EUNSUPPORTED, d,
                                      "unsupported redux operation");
            }
            acc = c;
        }
        for (int l = 0; l < 32; l++)
            res[l] = acc;
        break;
    }
    case PTX_OP_ACTIVEMASK:
        for (int l = 0; l < 32; l++)
            res[l] = active;
        break;
    case PTX_OP_ELECT: {
        int leader = m ? __builtin_ctz(m) : 0;
        for (int l = 0; l < 32; l++) {
            res[l] = (uint64_t)leader;
            pres[l] = (uint64_t)(l == leader);
        }
        break;
    }
    default: return WL_EUNSUPPORTED;
    }
    if (in->op == PTX_OP_ELECT && dst->kind == XO_VEC) {
        /* elect.sync d|p: both optional */
    }
    if (ds >= 0) {
        for (int l = 0; l < 32; l++)
            res[l] &= dmask;
        xcommit(regs, ds, dnw, res, m);
    }
    if (ps >= 0)
        xcommit(regs, ps, pnw, pres, m);
    return WL_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Special registers and addresses computed before an instruction                              */
/* ------------------------------------------------------------------------------------------ */
/* Special register or address k of in when it is the same in every thread of the launch:
 * the grid's and block's shapes, the GPU's size, shared-memory sizes, and symbol addresses that
 * are not frame-relative. Returns 1 and the value in *v; 0 for the values that depend on the
 * block, the warp, the lane or the time. Also used before the launch (xalloc.c's
 * fold_launch_constants), so it reads only the program. */
int xwide_launch_value(const exec_prog *p, const xinsn *in, int k, uint64_t *v)
{
    const exec_grid *g = &p->g;
    uint16_t sr = in->pre[k].sreg;
    if (sr == UINT16_MAX) {
        const xop *o = &in->o[in->pre[k].opnd];
        if (o->base != XB_NONE)
            return 0;
        *v = (uint64_t)o->off;
        return 1;
    }
    switch (sr) {
    case PTX_SR_NTID_X: case PTX_SR_NTID_Y: case PTX_SR_NTID_Z:
        *v = g->block[sr - PTX_SR_NTID_X]; return 1;
    case PTX_SR_NCTAID_X: case PTX_SR_NCTAID_Y: case PTX_SR_NCTAID_Z:
        *v = g->grid[sr - PTX_SR_NCTAID_X]; return 1;
    case PTX_SR_NCLUSTERID_X: case PTX_SR_NCLUSTERID_Y: case PTX_SR_NCLUSTERID_Z:
        *v = g->grid[sr - PTX_SR_NCLUSTERID_X]; return 1;
    case PTX_SR_CLUSTER_NCTAID_X: case PTX_SR_CLUSTER_NCTAID_Y: case PTX_SR_CLUSTER_NCTAID_Z:
    case PTX_SR_CLUSTER_NCTARANK:
        *v = 1; return 1;
    case PTX_SR_NWARPID: *v = 64; return 1;
    case PTX_SR_NSMID: *v = (uint64_t)(g->num_sms > 0 ? g->num_sms : 132); return 1;
    case PTX_SR_GRIDID: *v = 1; return 1;
    case PTX_SR_DYNAMIC_SMEM_SIZE: *v = g->dyn_smem; return 1;
    case PTX_SR_TOTAL_SMEM_SIZE: *v = p->smem_bytes; return 1;
    case PTX_SR_AGGR_SMEM_SIZE: *v = p->smem_bytes + 1024u; return 1;
    default: return 0;
    }
}

/* Special register or address k of in when it is the same in every lane (addresses, and every
 * special register but %tid, %laneid and %lanemask_*): returns 1 and the value in *v. */
static int pre_uniform(exec_block *b, int warp, const xinsn *in, int k, uint64_t *v)
{
    const exec_prog *p = b->p;
    const exec_grid *g = &p->g;
    const xwarp *W = &b->w[warp];
    if (xwide_launch_value(p, in, k, v))
        return 1;
    uint16_t sr = in->pre[k].sreg;
    if (sr == UINT16_MAX) { /* frame-relative */
        const xop *o = &in->o[in->pre[k].opnd];
        *v = (uint64_t)o->off + W->frames[W->fp - 1].local_base;
        return 1;
    }
    int nsm = g->num_sms > 0 ? g->num_sms : 132;
    switch (sr) {
    case PTX_SR_TID_X: case PTX_SR_TID_Y: case PTX_SR_TID_Z: case PTX_SR_LANEID:
    case PTX_SR_LANEMASK_EQ: case PTX_SR_LANEMASK_LE: case PTX_SR_LANEMASK_LT:
    case PTX_SR_LANEMASK_GE: case PTX_SR_LANEMASK_GT:
        return 0;
    case PTX_SR_CTAID_X: case PTX_SR_CTAID_Y: case PTX_SR_CTAID_Z:
        *v = b->ctaid[sr - PTX_SR_CTAID_X]; break;
    case PTX_SR_CLUSTERID_X: case PTX_SR_CLUSTERID_Y: case PTX_SR_CLUSTERID_Z:
        *v = b->ctaid[sr - PTX_SR_CLUSTERID_X]; break;
    case PTX_SR_WARPID: *v = (uint64_t)warp; break;
    case PTX_SR_SMID: { /* functional mode: the block's linear index spread over the SMs */
        uint64_t lin = ((uint64_t)b->ctaid[2] * g->grid[1] + b->ctaid[1]) * g->grid[0] +
                       b->ctaid[0];
        *v = b->has_sm ? b->smid : lin % (uint64_t)nsm;
        break;
    }
    /* Functional mode has no clock: the block's warp-instruction count stands in for it
     * (monotonic and deterministic) unless the timing model set one (exec_block_set_clock). */
    case PTX_SR_CLOCK: case PTX_SR_CLOCK64:
        *v = b->has_clock ? b->clock : b->cnt.warp_insts; break;
    case PTX_SR_GLOBALTIMER: case PTX_SR_GLOBALTIMER_LO:
        *v = b->has_clock ? b->timer_ns : b->cnt.warp_insts; break;
    case PTX_SR_CLOCK_HI:
        *v = (b->has_clock ? b->clock : b->cnt.warp_insts) >> 32; break;
    case PTX_SR_GLOBALTIMER_HI:
        *v = (b->has_clock ? b->timer_ns : b->cnt.warp_insts) >> 32; break;
    default: *v = 0; break;
    }
    return 1;
}

/* Special register or address k of in, in all 32 lanes. */
static void pre_value(exec_block *b, int warp, const xinsn *in, int k, uint64_t *Dv)
{
    const xwarp *W = &b->w[warp];
    uint16_t sr = in->pre[k].sreg;
    uint64_t v;
    if (pre_uniform(b, warp, in, k, &v)) {
        for (int l = 0; l < 32; l++)
            Dv[l] = v;
        return;
    }
    switch (sr) {
    case PTX_SR_TID_X: case PTX_SR_TID_Y: case PTX_SR_TID_Z:
        for (int l = 0; l < 32; l++)
            Dv[l] = W->tid[sr - PTX_SR_TID_X][l];
        return;
    case PTX_SR_LANEID:
        for (int l = 0; l < 32; l++)
            Dv[l] = (uint64_t)l;
        return;
    default: /* %lanemask_* */
        for (int l = 0; l < 32; l++) {
            uint32_t eq = 1u << l, lt = eq - 1;
            Dv[l] = sr == PTX_SR_LANEMASK_EQ ? eq : sr == PTX_SR_LANEMASK_LE ? (lt | eq) :
                    sr == PTX_SR_LANEMASK_LT ? lt : sr == PTX_SR_LANEMASK_GE ? ~lt : ~(lt | eq);
        }
        return;
    }
}

/* A move of a uniform value or of %tid into a narrow register: its 32-bit lanes of m directly
 * (the commonest pre operations: a kernel's first moves). Returns 0 for the other kinds. */
static int pre_narrow_move(exec_block *b, int warp, const xinsn *in, int k, uint32_t *d,
                           uint32_t m)
{
    int bits = in->o[0].bits;
    uint16_t sr = in->pre[k].sreg;
    uint64_t v;
    if (pre_uniform(b, warp, in, k, &v)) {
        uint32_t u = (uint32_t)zx(v, bits);
        if (m == XFULL) {
            for (int l = 0; l < 32; l++)
                d[l] = u;
        } else {
            for (; m; m &= m - 1)
                d[__builtin_ctz(m)] = u;
        }
        return 1;
    }
    if (sr != PTX_SR_TID_X && sr != PTX_SR_TID_Y && sr != PTX_SR_TID_Z)
        return 0;
    const uint16_t *tid = b->w[warp].tid[sr - PTX_SR_TID_X];
    if (m == XFULL && bits >= 16) {
        for (int l = 0; l < 32; l++)
            d[l] = tid[l];
    } else {
        for (; m; m &= m - 1)
            d[__builtin_ctz(m)] = (uint32_t)zx(tid[__builtin_ctz(m)], bits);
    }
    return 1;
}

void xwide_pre(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m)
{
    for (int k = 0; k < in->npre; k++) {
        if (in->pre_dst && in->pre[k].nw &&
            pre_narrow_move(b, warp, in, k, XN(regs, in->pre[k].slot), m))
            continue;
        uint64_t tmp[32];
        /* a move's destination (xinsn.pre_dst): computed aside, then the move's lanes */
        uint64_t *Dv = in->pre_dst ? tmp : XR(regs, in->pre[k].slot);
        pre_value(b, warp, in, k, Dv);
        if (in->pre_dst) { /* as the move's handler would: masked to r's width, m's lanes */
            for (int l = 0; l < 32; l++)
                tmp[l] = zx(tmp[l], in->o[0].bits);
            xcommit(regs, in->pre[k].slot, in->pre[k].nw, tmp, m);
        }
    }
}
