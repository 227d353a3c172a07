/* ptx_sched.c: a model of ptxas's instruction scheduling, applied to the PTX before timing.
 *
 * What the hardware runs: ptxas list-schedules every basic block of the SASS it emits, so
 * independent work sits between an instruction and its first consumer and the loop counter
 * update and compare of a loop are hoisted next to the first arithmetic of the body (any
 * sm_90 SASS shows it: the IADD3/ISETP of a counted loop come right after its first FFMA).
 * The PTX nvcc writes is in source order: a dependent chain's loop-control sits after the
 * chain, so an in-order issue model executing the PTX as written waits on both, one after
 * the other, where the hardware overlaps them.
 *
 * What we model: inside each basic block, instructions are reordered by a classic list
 * scheduler (one issue per cycle; priority: the longest latency-weighted path to the end of
 * the block, then program order), respecting every register dependency (read after write,
 * write after read, write after write; a guarded instruction also reads its destinations).
 * Two memory accesses keep their order when one of them writes and their state spaces may
 * overlap (generic addresses may be anything; .global, .shared, .local, .param are apart):
 * loads pass loads, and a global load passes a shared store, as ptxas hoists the four LDGs of
 * a tiled transpose above its STSs. Warp-collective operations and clock reads keep their
 * order with every memory access; control transfers, calls and barriers stay where they are
 * and nothing moves across them. The reordering never changes what a thread computes, so functional
 * results are those of the PTX as written.
 *
 * Unrolling: ptxas unrolls small innermost loops 4 times more (nvcc's PTX already unrolled
 * them 4 times): CUDA 13.0 on sm_90 turns ilp_dep's 8-instruction PTX loop (4 FMAs) into 16
 * FFMAs per back branch, ilp_indep4's 20-instruction one into 64 and div_none's 15 into 48
 * instructions of body, but leaves PTX bodies of 26 or more instructions (bk_double,
 * bk_stride), loops stepping by a register (the grid-stride and blockDim-stride copies), loops
 * with a barrier (the reductions) and loops marked `.pragma "nounroll"` as they are. We mark
 * the control of single-block loops of at most PTX_UNROLL_MAX instructions without barrier,
 * call or nounroll whose counter steps by a constant: the back branch, the setp that guards it
 * and the counter update `r = r +/- constant` feeding the setp (PTX_F_UNROLL_CTL). The timing model
 * issues them in one iteration out of 4 and folds them in the other three: the unrolled SASS
 * runs the same body instructions with a quarter of the loop control.
 *
 * Selects: `selp d, a, b, p` whose operands a and b are both computed in its block by
 * unguarded instructions and read nowhere else is not an instruction in SASS: ptxas writes a
 * into d and predicates b's producer to overwrite d where p is false (div_short's loop, CUDA 13.0
 * sm_90: `IMAD R4 = x*3+1; @P1 SHF.R R4 = x>>1` for `mad; shr; selp`). We mark such a selp
 * (PTX_F_SELECT_FOLD); the timing model does not issue it, and its result is ready when a, b and
 * p are. A selp with an immediate or a shared operand stays an instruction (SEL or a move).
 *
 * If-conversion: ptxas turns a short forward branch around straight-line code into predication:
 * `@p bra L; body; L:` becomes the body guarded by !p, and no branch (CUDA 13.0, sm_90: the
 * reductions' `if (tid < s) red_s[tid] += red_s[tid + s];` is `@!P1 LDS; @!P1 LDS; @!P1 IADD;
 * @!P1 STS` with no BRA, and so are red_shuffle's `if (tid % 32 == 0)` store and the five steps
 * of its_warp_sum). Every warp then issues the body, also a warp whose lanes are all off: its
 * predicated-off loads still wait on the scoreboard (the H200's red_sequential spends 21.6 % of
 * its warps' cycles on short_scoreboard, more than at the barrier). We convert a branch whose
 * body is one basic block of at most PTX_IFCVT_MAX unguarded instructions of the arithmetic,
 * load/store and shared-memory units, without integer division (ptxas expands it to a long
 * sequence: ws_pipeline's `div.s32` body keeps its BRA), that does not write the branch's
 * predicate, when L is not a `ret` or `exit` (there ptxas writes `@p EXIT`, and the body stays
 * unpredicated: every coalescing kernel's `if (i < n)`). The body's instructions get the
 * negated guard and the branch is marked (PTX_F_IFCVT): the executor passes over it and the
 * timing model does not issue it. What a thread computes is unchanged.
 *
 * Shared addresses: SASS addresses shared memory as [R + UR + imm], a .shared variable's address
 * in a uniform register, so `add d, base, r; ld.shared [d]` is one LDS ([R11+UR5] in
 * bk_stride, CUDA 13.0 sm_90). An unguarded 32-bit add of such an address (a register written
 * once, by a mov of the symbol) and another register, whose result is written nowhere else and
 * read only as the base of ld.shared/st.shared addresses, is marked (PTX_F_ADDR_FOLD,
 * mark_addr_folds): the timing model does not issue it, and its result is ready when its
 * operands are.
 *
 * Parameter loads past an early exit: ptxas loads a kernel's pointer parameters (LDC.64) where
 * they are first needed, not where nvcc's PTX reads them: co_strided's PTX loads both pointers
 * before its bounds check, its SASS (CUDA 13.0, sm_90) after the `@P0 EXIT`, so a warp waits
 * for the blockDim LDC before the check and for the pointers after it. When a kernel's block
 * ends with `@p bra L` to a `ret` or `exit` and falls through into a block nothing else enters,
 * each unguarded ld.param of the block whose register nothing later in the block reads or
 * writes (nor its address register; nor anything the block's scheduling keeps it before, such as
 * a store that may write parameter space) moves to the start of the fall-through block
 * (sink_params; in their order), where the block's scheduling places it.
 * Device functions (.func) keep theirs: their parameters are registers in SASS, and their ret
 * returns to the caller.
 *
 * What we simplify: ptxas's own latency table is not public; we use the H200's measured
 * latencies rounded (docs/memory.md). Blocks longer than PTX_SCHED_MAX instructions are left
 * as written (the cost of scheduling stays linear). Unrolling is modelled only by its loop
 * control (no cross-iteration scheduling); no register allocation.
 */
#include <stdlib.h>
#include <string.h>

#include "ptx.h"

#define PTX_SCHED_MAX 512  /* longest segment scheduled */
#define MAXR 8             /* registers per instruction we track (more: treated as pinned) */
#define SP_ALL 255         /* an ordered instruction that is not a plain memory access */
#define PTX_UNROLL_MAX 24  /* longest single-block loop body ptxas unrolls (see above) */
#define PTX_IFCVT_MAX 8    /* longest branch body ptxas predicates (see above) */

typedef struct {
    int32_t dst[MAXR], src[MAXR];
    uint8_t ndst, nsrc;
    uint8_t kind;          /* 0 pure, 1 ordered, 2 fixed (nothing crosses it) */
    uint8_t space;         /* ordered: ptx_space of the access; SP_ALL: conflicts with all */
    uint8_t load;          /* ordered: a plain load (loads never conflict with each other) */
    uint16_t lat;
} sinfo;

static uint16_t latency_of(const ptx_insn *in)
{
    switch (isa_latclass(in)) {
    case PTX_LAT_ALU: return 5;
    case PTX_LAT_FMA: return 4;
    case PTX_LAT_FP64: return 8;
    case PTX_LAT_SFU: return 17;
    case PTX_LAT_CONV: return 12;
    case PTX_LAT_SHMEM: return 25;
    case PTX_LAT_SHFL: return 26;
    case PTX_LAT_MEM: case PTX_LAT_ATOM: return 300;
    default: return 1;
    }
}

static void add_reg(int32_t *v, uint8_t *n, int32_t r, int *overflow)
{
    if (r < 0)
        return;
    for (unsigned i = 0; i < *n; i++)
        if (v[i] == r)
            return;
    if (*n >= MAXR) {
        *overflow = 1;
        return;
    }
    v[(*n)++] = r;
}

static void describe(const ptx_func *f, const ptx_insn *in, sinfo *s)
{
    memset(s, 0, sizeof *s);
    s->lat = latency_of(in);
    ptx_unit u = isa_unit(in);
    int pure = u == PTX_UNIT_ALU || u == PTX_UNIT_FMA || u == PTX_UNIT_FP64 || u == PTX_UNIT_SFU;
    if (in->flags & PTX_F_CC || in->op == PTX_OP_ADDC || in->op == PTX_OP_SUBC ||
        in->op == PTX_OP_MADC)
        pure = 0; /* the carry flag is an implicit register: keep carry chains in order */
    /* fixed: control, barriers, tensor-core instructions and wmma's loads and stores (whose
     * fragments of 8 registers take two operands: isa_shape's count does not describe them) */
    if (u == PTX_UNIT_BRANCH || u == PTX_UNIT_BARRIER || u == PTX_UNIT_TENSOR ||
        u == PTX_UNIT_CTRL || in->target != PTX_NONE || in->op == PTX_OP_WMMA_LOAD ||
        in->op == PTX_OP_WMMA_STORE) {
        s->kind = 2;
        return;
    }
    unsigned ndst, nsmin, nsmax;
    isa_shape(in->op, &ndst, &nsmin, &nsmax);
    int over = 0;
    for (unsigned k = 0; k < in->nops; k++) {
        const ptx_operand *o = &f->ops[in->op0 + k];
        int isdst = k < ndst;
        int32_t *v = isdst ? s->dst : s->src;
        uint8_t *n = isdst ? &s->ndst : &s->nsrc;
        switch (o->kind) {
        case PTX_OPND_REG: add_reg(v, n, o->reg, &over); break;
        case PTX_OPND_ADDR: add_reg(s->src, &s->nsrc, o->reg, &over); break;
        case PTX_OPND_VEC: case PTX_OPND_PAIR:
            for (unsigned e = 0; e < o->nvec && e < 4; e++)
                add_reg(v, n, o->vec[e], &over);
            break;
        case PTX_OPND_SREG:
            if (ptx_sreg_reads_time(o->sreg))
                pure = 0; /* time reads keep their place among the ordered instructions */
            break;
        case PTX_OPND_LABEL: over = 1; break;
        default: break;
        }
    }
    if (in->guard != PTX_NONE) {
        add_reg(s->src, &s->nsrc, in->guard, &over);
        for (unsigned i = 0; i < s->ndst; i++) /* not written when the guard is false */
            add_reg(s->src, &s->nsrc, s->dst[i], &over);
    }
    s->kind = over ? 2 : pure ? 0 : 1;
    int mem = u == PTX_UNIT_LSU || u == PTX_UNIT_SHMEM || u == PTX_UNIT_ATOM;
    s->space = mem && in->op != PTX_OP_CP_ASYNC ? in->space : SP_ALL;
    s->load = mem && (in->op == PTX_OP_LD || in->op == PTX_OP_LDU);
}

/* Must ordered instructions a (earlier) and b keep their order? */
static int conflict(const sinfo *a, const sinfo *b)
{
    if (a->load && b->load)
        return 0;
    if (a->space == SP_ALL || b->space == SP_ALL || a->space == PTX_SPACE_NONE ||
        b->space == PTX_SPACE_NONE)
        return 1;
    int sa = a->space == PTX_SPACE_SHARED_CLUSTER ? PTX_SPACE_SHARED : a->space;
    int sb = b->space == PTX_SPACE_SHARED_CLUSTER ? PTX_SPACE_SHARED : b->space;
    return sa == sb;
}

typedef struct {
    int32_t to;
    uint16_t lat;
    int32_t next;
} sedge;

typedef struct {
    sinfo *info;
    sedge *e;
    size_t ne, cap;
    int32_t *head, *npred, *order, *lastw, *lastr_head, *rnext, *rins;
    int64_t *height, *earliest;
    uint8_t *done;
    size_t nr;           /* reader records in use */
    uint32_t *touched;
    uint32_t ntouched;
    uint8_t *is_touched;
} sctx;

static int add_edge(sctx *c, int32_t from, int32_t to, uint16_t lat)
{
    if (from < 0 || from == to)
        return 0;
    if (c->ne == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 1024;
        sedge *ne = realloc(c->e, nc * sizeof *ne);
        if (!ne)
            return -1;
        c->e = ne;
        c->cap = nc;
    }
    c->e[c->ne] = (sedge){to, lat, c->head[from]};
    c->head[from] = (int32_t)c->ne++;
    c->npred[to]++;
    return 0;
}

static void touch(sctx *c, int32_t r)
{
    if (!c->is_touched[r]) {
        c->is_touched[r] = 1;
        c->touched[c->ntouched++] = (uint32_t)r;
    }
}

/* Schedules the n instructions starting at f->insns[first] (none of kind 2). */
static int sched_segment(sctx *c, ptx_func *f, uint32_t first, uint32_t n, ptx_insn *tmp)
{
    sinfo *si = c->info + first;
    c->ne = 0;
    c->nr = 0;
    for (uint32_t i = 0; i < n; i++) {
        c->head[i] = -1;
        c->npred[i] = 0;
        c->done[i] = 0;
        c->earliest[i] = 0;
    }
    for (uint32_t j = 0; j < n; j++) {
        const sinfo *s = &si[j];
        for (unsigned k = 0; k < s->nsrc; k++) { /* read after write; note the read */
            int32_t r = s->src[k];
            touch(c, r);
            int32_t w = c->lastw[r];
            if (w >= 0 && add_edge(c, w, (int32_t)j, si[w].lat))
                return -1;
            c->rins[c->nr] = (int32_t)j;
            c->rnext[c->nr] = c->lastr_head[r];
            c->lastr_head[r] = (int32_t)c->nr++;
        }
        for (unsigned k = 0; k < s->ndst; k++) { /* write after write / after read */
            int32_t r = s->dst[k];
            touch(c, r);
            if (add_edge(c, c->lastw[r], (int32_t)j, 1))
                return -1;
            for (int32_t x = c->lastr_head[r]; x >= 0; x = c->rnext[x])
                if (add_edge(c, c->rins[x], (int32_t)j, 0))
                    return -1;
            c->lastr_head[r] = -1;
            c->lastw[r] = (int32_t)j;
        }
        if (s->kind == 1) /* against every earlier ordered instruction it conflicts with */
            for (uint32_t i = 0; i < j; i++)
                if (si[i].kind == 1 && conflict(&si[i], s) &&
                    add_edge(c, (int32_t)i, (int32_t)j, 1))
                    return -1;
    }
    for (uint32_t t = 0; t < c->ntouched; t++) {
        c->lastw[c->touched[t]] = -1;
        c->lastr_head[c->touched[t]] = -1;
        c->is_touched[c->touched[t]] = 0;
    }
    c->ntouched = 0;
    /* heights: edges go forward in program order, so one backward pass */
    for (uint32_t i = n; i-- > 0;) {
        int64_t h = 0;
        for (int32_t x = c->head[i]; x >= 0; x = c->e[x].next) {
            int64_t v = (int64_t)c->e[x].lat + c->height[c->e[x].to];
            if (v > h)
                h = v;
        }
        c->height[i] = h + 1;
    }
    /* cycle-driven list scheduling, one instruction per cycle */
    int64_t t = 0;
    for (uint32_t k = 0; k < n; k++) {
        int32_t best = -1, soon = -1; /* ready now, highest; not ready yet, soonest */
        for (uint32_t i = 0; i < n; i++) {
            if (c->done[i] || c->npred[i])
                continue;
            if (c->earliest[i] <= t) {
                if (best < 0 || c->height[i] > c->height[best])
                    best = (int32_t)i;
            } else if (soon < 0 || c->earliest[i] < c->earliest[soon]) {
                soon = (int32_t)i;
            }
        }
        if (best < 0) {
            best = soon;
            t = c->earliest[soon];
        }
        c->done[best] = 1;
        c->order[k] = best;
        for (int32_t x = c->head[best]; x >= 0; x = c->e[x].next) {
            int32_t to = c->e[x].to;
            int64_t at = t + c->e[x].lat;
            if (at > c->earliest[to])
                c->earliest[to] = at;
            c->npred[to]--;
        }
        t++;
    }
    for (uint32_t k = 0; k < n; k++)
        tmp[k] = f->insns[first + (uint32_t)c->order[k]];
    memcpy(&f->insns[first], tmp, n * sizeof *tmp);
    return 0;
}

/* The last instruction of [lo, at) writing register r (PTX_NONE if none). */
static int32_t last_writer(const ptx_func *f, const sinfo *si, uint32_t lo, uint32_t at,
                           int32_t r)
{
    for (uint32_t i = at; i-- > lo;)
        for (unsigned k = 0; k < si[i].ndst; k++)
            if (si[i].dst[k] == r && f->insns[i].guard == PTX_NONE)
                return (int32_t)i;
    return PTX_NONE;
}

/* Marks the loop control of the single-block loops ptxas unrolls (see the top). Runs on the
 * order as written, before the block is scheduled. */
static void mark_unrolled(ptx_func *f, const ptx_block *bl, const sinfo *si)
{
    uint32_t lo = bl->first, hi = bl->last;
    const ptx_insn *br = &f->insns[hi];
    if (br->op != PTX_OP_BRA || br->guard == PTX_NONE || br->target != (int32_t)lo ||
        hi - lo + 1 > PTX_UNROLL_MAX)
        return;
    for (uint32_t i = lo; i < hi; i++) {
        ptx_unit u = isa_unit(&f->insns[i]);
        if (f->insns[i].flags & PTX_F_NOUNROLL || u == PTX_UNIT_BARRIER ||
            u == PTX_UNIT_BRANCH || si[i].kind == 2)
            return;
    }
    if (f->insns[lo].flags & PTX_F_NOUNROLL || f->insns[hi].flags & PTX_F_NOUNROLL)
        return;
    int32_t cmp = last_writer(f, si, lo, hi, br->guard);
    if (cmp == PTX_NONE || f->insns[cmp].op != PTX_OP_SETP)
        return;
    for (unsigned k = 0; k < si[cmp].nsrc; k++) { /* the counter: r = r +/- constant */
        int32_t w = last_writer(f, si, lo, (uint32_t)cmp, si[cmp].src[k]);
        if (w == PTX_NONE)
            continue;
        const ptx_insn *u = &f->insns[w];
        const ptx_operand *ops = &f->ops[u->op0];
        if ((u->op == PTX_OP_ADD || u->op == PTX_OP_SUB) && u->nops == 3 &&
            ops[0].kind == PTX_OPND_REG && ops[1].kind == PTX_OPND_REG &&
            ops[0].reg == ops[1].reg && ops[2].kind == PTX_OPND_IMM) {
            f->insns[w].flags |= PTX_F_UNROLL_CTL;
            f->insns[cmp].flags |= PTX_F_UNROLL_CTL;
            f->insns[hi].flags |= PTX_F_UNROLL_CTL;
            return;
        }
    }
}

/* Marks the selps of block bl that ptxas folds (see the top); uses[r] counts the reads of each
 * register in the function. Runs on the order as written. */
static void mark_select_folds(ptx_func *f, const ptx_block *bl, const sinfo *si,
                              const uint32_t *uses)
{
    for (uint32_t i = bl->first; i <= bl->last && i < f->ninsns; i++) {
        const ptx_insn *in = &f->insns[i];
        if (in->op != PTX_OP_SELP || in->nops != 4 || in->guard != PTX_NONE)
            continue;
        const ptx_operand *ops = &f->ops[in->op0];
        int ok = 1;
        for (int k = 1; k <= 2 && ok; k++) {
            int32_t r = ops[k].reg;
            ok = ops[k].kind == PTX_OPND_REG && r >= 0 && (uint32_t)r < f->nregs && uses[r] == 1;
            int32_t w = ok ? last_writer(f, si, bl->first, i, r) : PTX_NONE;
            ok = ok && w != PTX_NONE && si[w].kind == 0 && si[w].ndst == 1;
        }
        if (ok && ops[1].reg != ops[2].reg)
            f->insns[i].flags |= PTX_F_SELECT_FOLD;
    }
}

/* Marks in bad[] the registers instruction `in` (described by s) refers to otherwise than as
 * the base of a shared-memory ld/st address or as the destination it writes (an unguarded
 * operand 0 that s lists as written). */
static void other_uses(const ptx_func *f, const ptx_insn *in, const sinfo *s, uint8_t *bad,
                       size_t nr)
{
#define BAD(r) do { if ((r) >= 0 && (size_t)(r) < nr) bad[(r)] = 1; } while (0)
    BAD(in->guard);
    int shared_ldst = (in->op == PTX_OP_LD || in->op == PTX_OP_ST) && in->space == PTX_SPACE_SHARED;
    for (unsigned k = 0; k < in->nops; k++) {
        const ptx_operand *o = &f->ops[in->op0 + k];
        int written = 0;
        switch (o->kind) {
        case PTX_OPND_REG:
            for (unsigned w = 0; k == 0 && in->guard == PTX_NONE && w < s->ndst; w++)
                written |= s->dst[w] == o->reg;
            if (!written)
                BAD(o->reg);
            break;
        case PTX_OPND_ADDR:
            if (!shared_ldst)
                BAD(o->reg);
            break;
        case PTX_OPND_VEC:
        case PTX_OPND_PAIR:
            for (unsigned v = 0; v < (o->kind == PTX_OPND_PAIR ? 2u : o->nvec) && v < 4; v++)
                BAD(o->vec[v]);
            break;
        default:
            break;
        }
    }
#undef BAD
}

/* Marks the address adds ptxas folds into shared-memory accesses (see the top): an unguarded
 * 32-bit `add d, a, b` where a (or b) holds a .shared variable's address (written once, by a
 * mov of the symbol), d is written only here and read only as the base of ld.shared/st.shared
 * addresses. SASS addresses shared memory as [R + UR + imm], the variable's address in a
 * uniform register: `LDS R12, [R11+UR5]` for bk_stride's `add; ld.shared` (CUDA 13.0, sm_90).
 * Two passes over the function: linear in its length. */
static void mark_addr_folds(ptx_func *f, const sinfo *si, size_t nr)
{
    uint32_t *writes = calloc(nr, sizeof *writes);
    uint8_t *sbase = calloc(nr, 1), *bad = calloc(nr, 1);
    if (!writes || !sbase || !bad)
        goto out; /* nothing marked: the PTX as written */
    for (uint32_t i = 0; i < f->ninsns; i++) {
        const ptx_insn *in = &f->insns[i];
        for (unsigned k = 0; k < si[i].ndst; k++)
            if (si[i].dst[k] >= 0 && (uint32_t)si[i].dst[k] < nr)
                writes[si[i].dst[k]]++;
        other_uses(f, in, &si[i], bad, nr);
        if (in->op != PTX_OP_MOV || in->nops != 2 || in->guard != PTX_NONE)
            continue;
        const ptx_operand *o = &f->ops[in->op0]; /* (ops exist: nops > 0) */
        if (o[0].kind == PTX_OPND_REG && o[0].reg >= 0 && (size_t)o[0].reg < nr &&
            o[1].kind == PTX_OPND_SYM && o[1].space == PTX_SPACE_SHARED)
            sbase[o[0].reg] = 1;
    }
    for (uint32_t i = 0; i < f->ninsns; i++) {
        ptx_insn *in = &f->insns[i];
        unsigned t = in->type[0];
        if (in->op != PTX_OP_ADD || in->nops != 3 || in->guard != PTX_NONE ||
            (t != PTX_T_U32 && t != PTX_T_S32 && t != PTX_T_B32) || in->flags & PTX_F_SAT)
            continue;
        const ptx_operand *o = &f->ops[in->op0];
        if (o[0].kind != PTX_OPND_REG || o[1].kind != PTX_OPND_REG || o[2].kind != PTX_OPND_REG)
            continue;
        int32_t d = o[0].reg, a = o[1].reg, b = o[2].reg;
        if (d < 0 || a < 0 || b < 0 || (size_t)d >= nr || (size_t)a >= nr || (size_t)b >= nr)
            continue;
        int ba = sbase[a] && writes[a] == 1, bb = sbase[b] && writes[b] == 1;
        if (ba != bb && writes[d] == 1 && d != a && d != b && !bad[d])
            in->flags |= PTX_F_ADDR_FOLD;
    }
out:
    free(writes);
    free(sbase);
    free(bad);
}

/* Must load x stay before instruction y (both described)? When y reads or writes x's
 * register or writes a register x reads (its address), or when the block's own scheduling would
 * keep them in order (conflict: a store that may write parameter space, a warp-collective or
 * clock read); a fixed instruction (and one with more registers than MAXR) lists no registers:
 * always. */
static int holds_back(const sinfo *x, const sinfo *y)
{
    if (y->kind == 2 || (y->kind == 1 && conflict(x, y)))
        return 1;
    for (unsigned k = 0; k < y->ndst; k++) {
        if (y->dst[k] == x->dst[0])
            return 1;
        for (unsigned j = 0; j < x->nsrc; j++)
            if (y->dst[k] == x->src[j])
                return 1;
    }
    for (unsigned k = 0; k < y->nsrc; k++)
        if (y->src[k] == x->dst[0])
            return 1;
    return 0;
}

/* Sinks parameter loads past an early exit (see the top). Block b ends with `@p bra L` where L
 * is a `ret` or `exit` and falls through to block s, which nothing else enters; every unguarded
 * ld.param of b that nothing after it in b holds back (holds_back) moves to the start of s
 * (the rest of b shifts up by one; s then starts one instruction earlier). Runs on the order
 * as written, before the blocks are scheduled; si moves with the instructions. */
static void sink_params(ptx_func *f, sinfo *si, const uint8_t *entered)
{
    if (!f->is_entry)
        return; /* a .func's parameters are registers in SASS, and its ret returns */
    for (uint32_t b = 0; b + 1 < f->nblocks; b++) {
        ptx_block *bl = &f->blocks[b], *sb = &f->blocks[b + 1];
        uint32_t hi = bl->last;
        const ptx_insn *br = &f->insns[hi];
        if (br->op != PTX_OP_BRA || br->guard == PTX_NONE || br->target == PTX_NONE ||
            (uint32_t)br->target >= f->ninsns || sb->first != hi + 1 || entered[hi + 1] ||
            bl->nsucc < 1 || bl->succ[0] != b + 1)
            continue;
        int op = f->insns[br->target].op;
        if (op != PTX_OP_RET && op != PTX_OP_EXIT)
            continue;
        for (uint32_t i = hi; i-- > bl->first;) {
            const ptx_insn *in = &f->insns[i];
            if (in->op != PTX_OP_LD || in->space != PTX_SPACE_PARAM || in->guard != PTX_NONE ||
                si[i].ndst != 1 || si[i].kind == 2)
                continue;
            int held = 0;
            for (uint32_t k = i + 1; k < bl->last && !held; k++) /* (the branch reads its guard) */
                held = holds_back(&si[i], &si[k]);
            if (held)
                continue;
            ptx_insn x = f->insns[i];
            sinfo xs = si[i];
            uint32_t last = bl->last;
            memmove(&f->insns[i], &f->insns[i + 1], (last - i) * sizeof *f->insns);
            memmove(&si[i], &si[i + 1], (last - i) * sizeof *si);
            f->insns[last] = x;
            f->insns[last].block = (int32_t)(b + 1);
            si[last] = xs;
            bl->last = last - 1;
            sb->first = last;
        }
    }
}

/* Can ptxas predicate this instruction of a branch body (see the top)? */
static int ifcvt_insn_ok(const ptx_func *f, const ptx_insn *in, int32_t pred)
{
    if (in->guard != PTX_NONE || (in->flags & (PTX_F_SELECT_FOLD | PTX_F_UNROLL_CTL)))
        return 0;
    switch (isa_unit(in)) {
    case PTX_UNIT_ALU: case PTX_UNIT_FMA: case PTX_UNIT_FP64: case PTX_UNIT_SFU:
    case PTX_UNIT_LSU: case PTX_UNIT_SHMEM: break;
    default: return 0;
    }
    if ((in->op == PTX_OP_DIV || in->op == PTX_OP_REM) && ptx_type_is_int(in->type[0]))
        return 0;
    sinfo s;
    describe(f, in, &s);
    if (s.kind == 2)
        return 0;
    for (unsigned k = 0; k < s.ndst; k++)
        if (s.dst[k] == pred)
            return 0;
    return 1;
}

/* Per instruction: does a branch jump there? (NULL when out of memory; the caller frees it.) */
static uint8_t *branch_targets(const ptx_func *f)
{
    uint8_t *entered = calloc(f->ninsns, 1);
    for (uint32_t i = 0; entered && i < f->ninsns; i++)
        if (f->insns[i].op == PTX_OP_BRA && f->insns[i].target >= 0 &&
            (uint32_t)f->insns[i].target < f->ninsns)
            entered[f->insns[i].target] = 1;
    return entered;
}

/* If-conversion (see the top): after scheduling, so the blocks keep their own order. */
static int if_convert(ptx_func *f)
{
    uint8_t *entered = branch_targets(f);
    if (!entered)
        return -1;
    for (uint32_t i = 0; i + 1 < f->ninsns; i++) {
        ptx_insn *br = &f->insns[i];
        if (br->op != PTX_OP_BRA || br->guard == PTX_NONE || br->target == PTX_NONE ||
            (br->flags & PTX_F_UNROLL_CTL) || (uint32_t)br->target <= i + 1 ||
            (uint32_t)br->target >= f->ninsns || (uint32_t)br->target - (i + 1) > PTX_IFCVT_MAX)
            continue;
        uint32_t end = (uint32_t)br->target; /* the body is [i + 1, end) */
        int32_t bb = f->insns[i + 1].block;
        if (entered[i + 1] || bb < 0 || (uint32_t)bb >= f->nblocks ||
            f->blocks[bb].first != i + 1 || f->blocks[bb].last != end - 1)
            continue;
        int op = f->insns[end].op;
        if (op == PTX_OP_RET || op == PTX_OP_EXIT)
            continue;
        int ok = 1;
        for (uint32_t k = i + 1; k < end && ok; k++)
            ok = ifcvt_insn_ok(f, &f->insns[k], br->guard);
        if (!ok)
            continue;
        for (uint32_t k = i + 1; k < end; k++) {
            f->insns[k].guard = br->guard;
            f->insns[k].guard_neg = (uint8_t)!br->guard_neg;
        }
        br->flags |= PTX_F_IFCVT;
        i = end - 1;
    }
    free(entered);
    return 0;
}

static int sched_func(ptx_func *f)
{
    if (f->is_decl || !f->ninsns || !f->nblocks)
        return 0;
    sctx c;
    memset(&c, 0, sizeof c);
    size_t nr = f->nregs ? f->nregs : 1;
    c.info = malloc(f->ninsns * sizeof *c.info);
    c.head = malloc(PTX_SCHED_MAX * sizeof *c.head);
    c.npred = malloc(PTX_SCHED_MAX * sizeof *c.npred);
    c.order = malloc(PTX_SCHED_MAX * sizeof *c.order);
    c.height = malloc(PTX_SCHED_MAX * sizeof *c.height);
    c.earliest = malloc(PTX_SCHED_MAX * sizeof *c.earliest);
    c.done = malloc(PTX_SCHED_MAX);
    c.rnext = malloc(PTX_SCHED_MAX * MAXR * sizeof *c.rnext);
    c.rins = malloc(PTX_SCHED_MAX * MAXR * sizeof *c.rins);
    c.lastw = malloc(nr * sizeof *c.lastw);
    c.lastr_head = malloc(nr * sizeof *c.lastr_head);
    c.touched = malloc(nr * sizeof *c.touched);
    c.is_touched = calloc(nr, 1);
    ptx_insn *tmp = malloc(PTX_SCHED_MAX * sizeof *tmp);
    int rc = -1;
    if (!c.info || !c.head || !c.npred || !c.order || !c.height || !c.earliest || !c.done ||
        !c.rnext || !c.rins || !c.lastw || !c.lastr_head || !c.touched || !c.is_touched || !tmp)
        goto out;
    for (size_t r = 0; r < nr; r++)
        c.lastw[r] = c.lastr_head[r] = -1;
    for (uint32_t i = 0; i < f->ninsns; i++)
        describe(f, &f->insns[i], &c.info[i]);
    for (uint32_t b = 0; b < f->nblocks; b++)
        mark_unrolled(f, &f->blocks[b], c.info);
    uint32_t *uses = calloc(nr, sizeof *uses);
    if (!uses)
        goto out;
    for (uint32_t i = 0; i < f->ninsns; i++)
        for (unsigned k = 0; k < c.info[i].nsrc; k++)
            if (c.info[i].src[k] >= 0 && (uint32_t)c.info[i].src[k] < nr)
                uses[c.info[i].src[k]]++;
    for (uint32_t b = 0; b < f->nblocks; b++)
        mark_select_folds(f, &f->blocks[b], c.info, uses);
    free(uses);
    mark_addr_folds(f, c.info, nr);
    uint8_t *entered = branch_targets(f);
    if (!entered)
        goto out;
    sink_params(f, c.info, entered);
    free(entered);
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const ptx_block *bl = &f->blocks[b];
        uint32_t i = bl->first;
        while (i <= bl->last && i < f->ninsns) {
            uint32_t j = i;
            while (j <= bl->last && c.info[j].kind != 2)
                j++;
            uint32_t n = j - i;
            if (n > 1 && n <= PTX_SCHED_MAX && sched_segment(&c, f, i, n, tmp))
                goto out;
            i = j + 1; /* past the fixed instruction */
        }
    }
    if (if_convert(f))
        goto out;
    rc = 0;
out:
    free(c.info); free(c.e); free(c.head); free(c.npred); free(c.order); free(c.height);
    free(c.earliest); free(c.done); free(c.rnext); free(c.rins); free(c.lastw);
    free(c.lastr_head); free(c.touched); free(c.is_touched); free(tmp);
    return rc;
}

wl_status ptx_schedule(ptx_module *m, diag_t *d)
{
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (sched_func(&m->funcs[i]))
            return diag_set(d, WL_EUSAGE, m->name, 0, 0, "out of memory scheduling '%s'",
                            m->funcs[i].name);
    return WL_OK;
}

/* ---- register pressure ------------------------------------------------------------------------
 * Live virtual registers at each instruction, in 32-bit units (64-bit registers count 2,
 * predicates 0: they live in the separate predicate file), from a backward liveness analysis
 * over the CFG. ptxas allocates physical registers with its own (better) heuristics; this is the
 * PTX's own demand, which the timing model compares with the register count ptxas chose to
 * estimate where spill code runs. */
static unsigned reg_units(const ptx_func *f, int32_t r)
{
    unsigned t = f->regs[r].type;
    if (t == PTX_T_PRED)
        return 0;
    unsigned b = ptx_type_size((ptx_type)t) * (f->regs[r].vec ? f->regs[r].vec : 1u);
    return (b + 3) / 4;
}

#define PRESSURE_MAX_WORDS (4u << 20) /* bitset words for all blocks; larger: not analysed */

uint32_t ptx_pressure(const ptx_func *f, uint16_t *live, uint8_t *regio)
{
    if (f->is_decl || !f->ninsns || !f->nblocks || !f->nregs)
        return 0;
    size_t nw = (f->nregs + 63) / 64, nb = f->nblocks;
    if (nw * nb * 2 > PRESSURE_MAX_WORDS)
        return 0;
    uint64_t *in = calloc(nw * nb, 8), *out = calloc(nw * nb, 8), *cur = calloc(nw, 8);
    sinfo *si = malloc(f->ninsns * sizeof *si);
    uint32_t best = 0;
    if (!in || !out || !cur || !si)
        goto done;
    for (uint32_t i = 0; i < f->ninsns; i++) {
        describe(f, &f->insns[i], &si[i]);
        if (regio) {
            unsigned ns = 0, nd = 0;
            for (unsigned k = 0; k < si[i].nsrc; k++)
                ns += reg_units(f, si[i].src[k]) ? 1u : 0u;
            for (unsigned k = 0; k < si[i].ndst; k++)
                nd += reg_units(f, si[i].dst[k]) ? 1u : 0u;
            regio[i] = (uint8_t)(ns | nd << 4);
        }
    }
    for (int changed = 1, rounds = 0; changed && rounds < 1000; rounds++) {
        changed = 0;
        for (uint32_t b = (uint32_t)nb; b-- > 0;) {
            const ptx_block *bl = &f->blocks[b];
            uint64_t *o = out + b * nw;
            for (unsigned s = 0; s < bl->nsucc; s++)
                if (bl->succ[s] < nb)
                    for (size_t w = 0; w < nw; w++)
                        o[w] |= in[bl->succ[s] * nw + w];
            memcpy(cur, o, nw * 8);
            for (uint32_t i = bl->last + 1; i-- > bl->first;) {
                for (unsigned k = 0; k < si[i].ndst; k++)
                    if (f->insns[i].guard == PTX_NONE)
                        cur[si[i].dst[k] / 64] &= ~(1ull << (si[i].dst[k] % 64));
                for (unsigned k = 0; k < si[i].nsrc; k++)
                    cur[si[i].src[k] / 64] |= 1ull << (si[i].src[k] % 64);
            }
            if (memcmp(cur, in + b * nw, nw * 8)) {
                memcpy(in + b * nw, cur, nw * 8);
                changed = 1;
            }
        }
    }
    for (uint32_t b = 0; b < nb; b++) {
        const ptx_block *bl = &f->blocks[b];
        memcpy(cur, out + b * nw, nw * 8);
        uint32_t n = 0;
        for (size_t w = 0; w < nw; w++)
            for (uint64_t x = cur[w]; x; x &= x - 1)
                n += reg_units(f, (int32_t)(w * 64 + (size_t)__builtin_ctzll(x)));
        for (uint32_t i = bl->last + 1; i-- > bl->first;) {
            for (unsigned k = 0; k < si[i].ndst; k++) {
                int32_t r = si[i].dst[k];
                if (!(cur[r / 64] >> (r % 64) & 1)) { /* a value defined here occupies a register */
                    cur[r / 64] |= 1ull << (r % 64);
                    n += reg_units(f, r);
                }
            }
            uint32_t here = n;
            for (unsigned k = 0; k < si[i].ndst; k++) {
                int32_t r = si[i].dst[k];
                if (f->insns[i].guard == PTX_NONE && cur[r / 64] >> (r % 64) & 1) {
                    cur[r / 64] &= ~(1ull << (r % 64));
                    n -= reg_units(f, r);
                }
            }
            for (unsigned k = 0; k < si[i].nsrc; k++) {
                int32_t r = si[i].src[k];
                if (!(cur[r / 64] >> (r % 64) & 1)) {
                    cur[r / 64] |= 1ull << (r % 64);
                    n += reg_units(f, r);
                }
            }
            /* registers needed here: those live after it with its results, or those live
             * before it (a source that dies can give its register to a result) */
            here = here > n ? here : n;
            if (live)
                live[i] = (uint16_t)(here > 65535 ? 65535 : here);
            best = here > best ? here : best;
        }
    }
done:
    free(in); free(out); free(cur); free(si);
    return best;
}
