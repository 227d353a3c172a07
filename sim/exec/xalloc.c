/* xalloc: register-file slots for a decoded function, shared by virtual registers whose live
 * ranges do not overlap.
 *
 * What the hardware does: ptxas maps the PTX's virtual registers (nvcc writes a fresh one for
 * almost every value: 20-200 per kernel) onto a few dozen physical registers. Why we do the
 * same: a slot is 32 lanes x 32 or 64 bits (128 or 256 bytes, xalloc_layout below), and one
 * slot per virtual register takes 5-50 KB per warp for the project's kernels; with thousands of
 * warps resident on 132 SMs that is far more than the host's caches hold, and the timing model
 * waits on host memory (docs/performance.md). Sharing slots by liveness (red_shuffle: 77
 * registers in 6 slots) gives the same results with a fraction of the footprint. Before that,
 * registers that only ever hold one immediate are replaced by it (propagate_constants), and
 * registers that hold one value for the whole launch by that value (fold_launch_constants).
 *
 * Method: a backward liveness analysis over the CFG's basic blocks gives each register the set of
 * instructions where it is live; its interval is the hull of those points, in instruction order,
 * together with every instruction that reads or writes it. Registers with disjoint intervals
 * share a slot (greedy interval colouring, optimal for intervals). Why this is exact under SIMT:
 * each thread still executes one path of the CFG, and an instruction writes only the lanes that
 * execute it, so each lane's slot holds what that thread's register would hold wherever the
 * register is live on the thread's path. Conservative choices:
 * - a guarded write, or a bar.red destination (delivered when the barrier completes), does not
 *   end the register's previous live range (lanes whose guard is false keep the old value);
 * - an instruction's destinations share no slot with its own operands (some handlers write a
 *   lane's result before reading another lane's operand), except where the instruction works
 *   lane by lane, has one destination and reads that operand for the last time (inplace_ok,
 *   xa_last): then its result may be written over the operand, as `add %r1, %r1, %r2` is;
 * - vote, match and redux read only lanes that execute them, where the register is live; so
 *   does shfl.sync when its membermask is the immediate 0xffffffff (every lane must execute it).
 *   Any other shfl's source register gets a slot of its own for the whole function: a lane that
 *   exited or waits elsewhere still shows that register's last value (or the zero of a new
 *   block), as with one slot per register (tests/test_exec_ptx.c, test_block_reuse);
 * - a register nothing reads is written to the sink slot of `_`;
 * - a function with .v2/.v4 registers, or too large for the bit sets, keeps one slot per
 *   register.
 * Scoreboard keys and exec_step_info's register lists stay IR register indices (exec_list_regs
 * runs before this).
 *
 * Layout (xalloc_layout): a register whose values need at most 32 bits (predicates hold 0 or 1)
 * gets a narrow slot, 32 lanes of 32 bits; the others a wide one, 32 lanes of 64 bits. Narrow
 * and wide registers are coloured separately, so a slot is one or the other; slots are then
 * numbered by their first 128-byte unit. Narrow slots halve the bytes a 32-bit operand moves
 * and let the narrow handlers (xfast.c) work on eight lanes per AVX2 instruction. */
#include <stdlib.h>
#include <string.h>

#include "exec_int.h"
#include "ptx.h"
#include "xlane.h"

#define XALLOC_MAX_WORDS (4u << 20) /* bit-set words for all blocks; larger: not shared */

/* The IR registers (< nr) an instruction reads and writes: up to XA_OPS of each, enough for
 * wmma.mma's 32 (8 of d written, 8 each of a, b and c read). */
#define XA_OPS 32
typedef struct {
    int32_t uses[XA_OPS], defs[XA_OPS];
    int nuse, ndef, kill; /* kill: the definitions write every lane that executes x */
    int32_t pin;          /* a register read from lanes that may not execute x, or -1 */
} xa_ops;

static void add(int32_t *v, int *n, int32_t r, uint32_t nr)
{
    if (r >= 0 && (uint32_t)r < nr && *n < XA_OPS)
        v[(*n)++] = r;
}

/* shfl.sync with the immediate membermask 0xffffffff: every lane of the warp executes it (CUDA
 * requires it), so the lanes it reads are lanes that execute it. */
static int shfl_full(const xfunc *xf, const xinsn *x)
{
    if (x->nops < 5 || x->o[4].kind != XO_SLOT)
        return 0;
    int32_t s = x->o[4].slot;
    return s >= (int32_t)xf->nregs && (uint32_t)s < xf->nregs + xf->nimm && !xf->imm_clobbered &&
           (uint32_t)xf->imm[s - (int32_t)xf->nregs] == 0xffffffffu;
}

/* Returns 0 when x has more register operands than xa_ops holds (the caller gives up). */
static int collect(const xfunc *xf, const xinsn *x, uint32_t nr, xa_ops *o)
{
    o->nuse = o->ndef = 0;
    o->pin = -1;
    if (x->op == PTX_OP_SHFL && x->nops > 1 && x->o[1].kind == XO_SLOT && x->o[1].slot >= 0 &&
        (uint32_t)x->o[1].slot < nr && !shfl_full(xf, x))
        o->pin = x->o[1].slot;
    int nd = exec_dst_operands(x);
    int total = 0;
    for (int k = 0; k < x->nops; k++) {
        const xop *op = &x->o[k];
        int32_t rs[4];
        int n = exec_operand_regs(op, nr, rs);
        for (int i = 0; i < n; i++) {
            total++;
            if (k < nd && op->kind != XO_ADDR)
                add(o->defs, &o->ndef, rs[i], nr);
            else
                add(o->uses, &o->nuse, rs[i], nr);
        }
    }
    if (x->guard >= 0 && (uint32_t)x->guard < nr) {
        add(o->uses, &o->nuse, x->guard, nr);
        total++;
    }
    o->kill = x->guard < 0 && x->op != PTX_OP_BAR && x->op < PTX_OP_COUNT;
    return total <= XA_OPS; /* (so neither list was cut short) */
}

#define BIT(s, r) (((s)[(r) / 64] >> ((r) % 64)) & 1)
#define SET(s, r) ((s)[(r) / 64] |= UINT64_C(1) << ((r) % 64))
#define CLR(s, r) ((s)[(r) / 64] &= ~(UINT64_C(1) << ((r) % 64)))

/* The live set before x from the one after it (cur, updated in place). */
static void live_before(uint64_t *cur, const xa_ops *x)
{
    if (x->kill)
        for (int k = 0; k < x->ndef; k++)
            CLR(cur, x->defs[k]);
    for (int k = 0; k < x->nuse; k++)
        SET(cur, x->uses[k]);
}

/* The blocks' live-in and live-out sets (nw = (nregs + 63) / 64 words each, zeroed by the
 * caller; cur: nw words of room) from each instruction's operands (ops[], filled here): the
 * backward fixed point. Returns 0 to give up (too many operands in one instruction, or blocks
 * that do not cover the instructions once, in order, as ptx_cfg builds them). */
static int liveness(const xfunc *xf, xa_ops *ops, uint64_t *in, uint64_t *out, uint64_t *cur)
{
    const ptx_func *f = xf->f;
    uint32_t nr = xf->nregs, nb = f->nblocks, n = xf->n;
    size_t nw = (nr + 63) / 64;
    for (uint32_t i = 0; i < n; i++)
        if (!collect(xf, &xf->ins[i], nr, &ops[i]))
            return 0;
    for (uint32_t b = 0, next = 0; b < nb; b++) {
        if (f->blocks[b].first != next || f->blocks[b].last < f->blocks[b].first ||
            f->blocks[b].last >= n)
            return 0;
        next = f->blocks[b].last + 1;
        if (b == nb - 1 && next != n)
            return 0;
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t b = nb; b-- > 0;) {
            const ptx_block *bl = &f->blocks[b];
            uint64_t *o = out + (size_t)b * nw;
            for (unsigned s = 0; s < bl->nsucc; s++)
                if (bl->succ[s] < nb)
                    for (size_t w = 0; w < nw; w++)
                        o[w] |= in[(size_t)bl->succ[s] * nw + w];
            memcpy(cur, o, nw * 8);
            for (uint32_t i = bl->last + 1; i-- > bl->first;)
                live_before(cur, &ops[i]);
            uint64_t *bi = in + (size_t)b * nw;
            for (size_t w = 0; w < nw; w++)
                if ((cur[w] | bi[w]) != bi[w]) {
                    bi[w] |= cur[w];
                    changed = 1;
                }
        }
    }
    return 1;
}

/* Up to this many registers an instruction reads for the last time are recorded (xa_last). */
#define XA_LAST 4

/* For each instruction: the register it alone defines when it may write it over a register
 * it reads for the last time (-1: none, inplace_ok), and those registers (-1 past the last). */
typedef struct {
    int32_t def;
    int32_t last[XA_LAST];
} xa_last;

/* Does the instruction of L read r for the last time? */
static int reads_last(const xa_last *L, uint32_t r)
{
    for (int j = 0; j < XA_LAST; j++)
        if (L->last[j] == (int32_t)r)
            return 1;
    return 0;
}

/* Instructions whose handlers compute each lane from that lane's operands only and read them
 * before writing that lane's result (xfast.c's handlers test whether the destination's slot is
 * a source's and then go through a temporary, as xop.c's and xopf.c's always do; PTX itself
 * writes `add.s32 %r1, %r1, %r2`), with one destination register: their destination may take
 * the slot of a register they read for the last time. */
static int inplace_ok(const xinsn *x)
{
    switch (x->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_FMA:
    case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_NOT: case PTX_OP_SHL:
    case PTX_OP_SHR: case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_NEG: case PTX_OP_ABS:
    case PTX_OP_SELP: case PTX_OP_SETP: case PTX_OP_CVT: case PTX_OP_CVTA: case PTX_OP_MOV:
        break;
    default: return 0;
    }
    if (x->flags & PTX_F_CC || exec_dst_operands(x) != 1 || x->nops < 2 ||
        x->o[0].kind != XO_SLOT)
        return 0;
    for (int k = 0; k < x->nops; k++)
        if (x->o[k].kind == XO_VEC || x->o[k].kind == XO_ADDR)
            return 0;
    return 1;
}

/* Live intervals [lo[r], hi[r]] (instruction indices); lo > hi for a register never named;
 * read[r] = 1 for a register some instruction reads; last[i] as xa_last says, from the
 * liveness after each instruction. Returns -1 to give up. */
static int intervals(const xfunc *xf, uint32_t *lo, uint32_t *hi, uint8_t *read, xa_last *last)
{
    const ptx_func *f = xf->f;
    uint32_t nr = xf->nregs, nb = f->nblocks, n = xf->n;
    size_t nw = (nr + 63) / 64;
    if (nb == 0 || n == 0 || !f->blocks || nw * nb * 2 > XALLOC_MAX_WORDS)
        return -1;
    for (uint32_t r = 0; r < nr; r++) {
        lo[r] = UINT32_MAX;
        hi[r] = 0;
    }
    xa_ops *ops = malloc((size_t)n * sizeof *ops);
    uint8_t *pinned = calloc(nr, 1);
    uint64_t *in = calloc(nw * nb, 8), *out = calloc(nw * nb, 8), *cur = calloc(nw, 8);
    int rc = -1;
    if (!ops || !in || !out || !cur || !pinned)
        goto done;
    if (!liveness(xf, ops, in, out, cur))
        goto done;
    /* what each instruction reads for the last time: walking each block back from its
     * live-out set, a register it reads that is not live after it */
    for (uint32_t b = 0; b < nb; b++) {
        const ptx_block *bl = &f->blocks[b];
        memcpy(cur, out + (size_t)b * nw, nw * 8);
        for (uint32_t i = bl->last + 1; i-- > bl->first;) {
            const xa_ops *x = &ops[i];
            xa_last *L = &last[i];
            int nl = 0;
            L->def = x->ndef == 1 && x->kill && inplace_ok(&xf->ins[i]) ? x->defs[0] : -1;
            for (int k = 0; k < x->nuse && L->def >= 0; k++) {
                int32_t r = x->uses[k], seen = 0;
                for (int j = 0; j < nl; j++)
                    seen |= L->last[j] == r;
                if (r != L->def && !BIT(cur, r) && !seen && nl < XA_LAST)
                    L->last[nl++] = r;
            }
            for (int j = nl; j < XA_LAST; j++)
                L->last[j] = -1;
            live_before(cur, x);
        }
    }
    for (uint32_t b = 0; b < nb; b++) {
        const ptx_block *bl = &f->blocks[b];
        const uint64_t *bi = in + (size_t)b * nw, *bo = out + (size_t)b * nw;
        for (size_t w = 0; w < nw; w++) {
            for (uint64_t x = bi[w]; x; x &= x - 1) {
                uint32_t r = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(x));
                if (bl->first < lo[r]) lo[r] = bl->first;
                if (bl->first > hi[r]) hi[r] = bl->first;
            }
            for (uint64_t x = bo[w]; x; x &= x - 1) {
                uint32_t r = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(x));
                if (bl->last < lo[r]) lo[r] = bl->last;
                if (bl->last > hi[r]) hi[r] = bl->last;
            }
        }
    }
    memset(read, 0, nr);
    for (uint32_t i = 0; i < n; i++) {
        const xa_ops *x = &ops[i];
        if (x->pin >= 0) /* the whole function: a slot of its own */
            pinned[x->pin] = 1;
        for (int k = 0; k < x->nuse; k++)
            read[x->uses[k]] = 1;
        for (int k = 0; k < x->nuse + x->ndef; k++) {
            uint32_t r = (uint32_t)(k < x->nuse ? x->uses[k] : x->defs[k - x->nuse]);
            if (i < lo[r]) lo[r] = i;
            if (i > hi[r]) hi[r] = i;
        }
    }
    for (uint32_t r = 0; r < nr; r++)
        if (pinned[r]) {
            lo[r] = 0;
            hi[r] = n - 1;
        }
    rc = 0;
done:
    free(pinned);
    free(ops);
    free(in);
    free(out);
    free(cur);
    return rc;
}

typedef struct {
    uint32_t lo, hi, r;
} xa_iv;

static int by_lo(const void *a, const void *b)
{
    const xa_iv *x = a, *y = b;
    return x->lo != y->lo ? (x->lo < y->lo ? -1 : 1) : (x->r < y->r ? -1 : x->r > y->r);
}

/* def[r]: the instruction that writes register r, UINT32_MAX for none; ok[r] = 1 when that is
 * its only writer (a destination operand) and r is named only as a plain operand (not in a
 * vector, as an address base or as a guard). Not for functions with calls (a call's return
 * registers are written but not named as destinations). */
static void single_defs(const xfunc *xf, uint32_t *def, uint8_t *ok)
{
    uint32_t nr = xf->nregs;
    for (uint32_t r = 0; r < nr; r++) {
        def[r] = UINT32_MAX;
        ok[r] = 1;
    }
    for (uint32_t i = 0; i < xf->n; i++) {
        const xinsn *x = &xf->ins[i];
        int nd = exec_dst_operands(x);
        for (int k = 0; k < x->nops; k++) {
            const xop *o = &x->o[k];
            int dst = k < nd && o->kind != XO_ADDR;
            if (o->kind == XO_VEC) {
                for (int v = 0; v < o->n && v < 4; v++)
                    if (o->vec[v] >= 0 && (uint32_t)o->vec[v] < nr)
                        ok[o->vec[v]] = 0; /* written or read as part of a vector */
            } else if (o->kind == XO_ADDR) {
                if (o->slot >= 0 && (uint32_t)o->slot < nr)
                    ok[o->slot] = 0;
            } else if (o->kind == XO_SLOT && dst && o->slot >= 0 && (uint32_t)o->slot < nr) {
                uint32_t r = (uint32_t)o->slot;
                ok[r] = ok[r] && def[r] == UINT32_MAX;
                def[r] = i;
            }
        }
        if (x->guard >= 0 && (uint32_t)x->guard < nr)
            ok[x->guard] = 0;
    }
}

/* Registers that only ever hold one immediate: nvcc writes `mov.u32 %r12, 16;` and then names
 * %r12 where the instruction could take 16 (shfl offsets and clamps, loop steps). A register
 * written once, by an unguarded mov of an immediate that fits its width, in the entry block or
 * the block of each of its readers, before them, holds that value wherever it is read: the
 * readers read the immediate instead (the function's shared copy, xop.cptr) and the register
 * is no longer read (its mov writes the sink). Scoreboard keys are unchanged (exec_list_regs
 * ran before), so the timing is too. */
static void propagate_constants(xfunc *xf)
{
    const ptx_func *f = xf->f;
    uint32_t nr = xf->nregs, n = xf->n;
    if (xf->imm_clobbered || xf->nimm == 0 || n == 0 || !f->blocks)
        return;
    uint32_t *blk = malloc(n * sizeof *blk), *def = malloc(nr * sizeof *def);
    uint8_t *ok = malloc(nr);
    if (!blk || !def || !ok)
        goto done;
    for (uint32_t i = 0; i < n; i++)
        blk[i] = UINT32_MAX;
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = f->blocks[b].first; i <= f->blocks[b].last && i < n; i++)
            blk[i] = b;
    single_defs(xf, def, ok);
    for (uint32_t r = 0; r < nr; r++) {
        if (!ok[r] || def[r] == UINT32_MAX) {
            ok[r] = 0;
            continue;
        }
        const xinsn *x = &xf->ins[def[r]];
        int32_t s = x->nops == 2 && x->o[1].kind == XO_SLOT ? x->o[1].slot : -1;
        uint64_t mask = x->o[0].bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << x->o[0].bits) - 1;
        ok[r] = x->op == PTX_OP_MOV && x->guard < 0 && x->o[0].kind == XO_SLOT &&
                s >= (int32_t)nr && (uint32_t)s < nr + xf->nimm &&
                (xf->imm[s - (int32_t)nr] & ~mask) == 0 && blk[def[r]] != UINT32_MAX;
    }
    /* every reader must come after the definition on every path */
    for (uint32_t i = 0; i < n; i++) {
        const xinsn *x = &xf->ins[i];
        int nd = exec_dst_operands(x);
        for (int k = nd; k < x->nops; k++) {
            const xop *o = &x->o[k];
            if (o->kind != XO_SLOT || o->slot < 0 || (uint32_t)o->slot >= nr || !ok[o->slot])
                continue;
            uint32_t r = (uint32_t)o->slot, db = blk[def[r]];
            if (!((blk[i] == db && i > def[r]) || (db == 0 && blk[i] != 0 && blk[i] != UINT32_MAX)))
                ok[r] = 0;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        xinsn *x = &xf->ins[i];
        int nd = exec_dst_operands(x);
        for (int k = nd; k < x->nops; k++) {
            xop *o = &x->o[k];
            if (o->kind == XO_SLOT && o->slot >= 0 && (uint32_t)o->slot < nr && ok[o->slot])
                o->slot = xf->ins[def[o->slot]].o[1].slot;
        }
    }
done:
    free(blk);
    free(def);
    free(ok);
}

/* Launch constants. Every thread of a launch reads the same kernel parameters and the same grid
 * and block shapes, and nvcc keeps what it computes from them in registers for the whole
 * kernel: the buffers' addresses (`ld.param.u64`, `cvta.to.global`), a grid-stride loop's
 * stride (`mov %ntid.x`, `mov %nctaid.x`, `mul.lo`, `mul.wide`), a shared array's address.
 * ptxas does much the same on the GPU: parameters are read from the constant bank as operands,
 * and uniform values go to the uniform datapath, not to a register per thread. Here a register
 * that holds one such value is read as an immediate (the function's shared copy, xop.cptr)
 * and needs no slot: lat_copy's scheduled loop keeps two addresses, the stride in elements and
 * in bytes, and the element count alive, 8 of its 27 units.
 *
 * A register qualifies when it is written once, by an unguarded instruction whose value is the
 * same in every lane of every warp and known before the launch (fold_value), and it is not live
 * at the function's entry: then every path from the entry to a read passes through that one
 * write, so every read sees that value. Its writer still runs (into the sink slot), the timing
 * model still sees its register and its latency (scoreboard keys are IR registers, listed
 * before this), so only the host's work changes. Moves of a PTX immediate are left to
 * propagate_constants, whose rule decides which moves the timing model folds (mark_noops). */

/* The value the destination of x holds after x when it is a launch constant: 1 and *v, else 0.
 * known[r]/val[r]: the registers already found to be launch constants. Arithmetic runs through
 * xop_exec itself on a scratch register file, so a folded value is the value the executor
 * would have written, bit for bit. */
static int fold_value(const exec_prog *p, const xfunc *xf, const xinsn *x, const uint8_t *known,
                      const uint64_t *val, uint64_t *v)
{
    uint32_t nr = xf->nregs;
    if (x->guard >= 0 || x->op >= PTX_OP_COUNT || (x->flags & PTX_F_CC) || x->nops < 2 ||
        x->nops > XMAX_OPS || exec_dst_operands(x) != 1 || x->o[0].kind != XO_SLOT)
        return 0;
    const xop *dst = &x->o[0];
    int bits = dst->bits;
    uint64_t r = 0;
    if (x->op == PTX_OP_MOV && x->npre) { /* a special register or a symbol's address */
        if (!x->pre_dst || x->npre != 1 || !xwide_launch_value(p, x, 0, &r))
            return 0;
        r = zx(r, bits);
    } else if (x->op == PTX_OP_LD) { /* a kernel parameter */
        const xop *a = &x->o[1];
        uint32_t esz = x->w0 / 8u;
        if (x->space != XS_KPARAM || x->vec != 1 || x->nops != 2 || a->kind != XO_ADDR ||
            a->slot >= 0 || a->base != XB_NONE || esz == 0 || esz > 8 || a->off < 0 ||
            (uint64_t)a->off + esz > p->params_size)
            return 0;
        memcpy(&r, p->params + a->off, esz); /* little-endian host, as xmem.c */
        if (x->k0 == XK_S)
            r = sem_sext(r, (int)esz * 8);
        r = zx(r, bits);
    } else {
        switch (x->op) {
        case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_AND:
        case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_NOT: case PTX_OP_SHL: case PTX_OP_SHR:
        case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_NEG: case PTX_OP_CVT: case PTX_OP_CVTA:
        case PTX_OP_MOV:
            break;
        default: return 0;
        }
        int ints = (x->k0 == XK_B || x->k0 == XK_U || x->k0 == XK_S) &&
                   (x->op != PTX_OP_CVT || x->k1 == XK_B || x->k1 == XK_U || x->k1 == XK_S);
        if (!ints || x->npre)
            return 0;
        const ptx_func *f = xf->f;
        if (x->op == PTX_OP_MOV && x->ir && x->ir->nops == 2 &&
            (f->ops[x->ir->op0 + 1].kind == PTX_OPND_IMM ||
             f->ops[x->ir->op0 + 1].kind == PTX_OPND_FIMM))
            return 0; /* propagate_constants' (and mark_noops') */
        _Alignas(64) uint64_t regs[XMAX_OPS * 2 * XUNIT];
        xinsn t = *x;
        t.guard = -1;
        for (int k = 0; k < x->nops; k++) {
            const xop *o = &x->o[k];
            if (o->kind != XO_SLOT || o->slot < 0)
                return 0;
            uint64_t c;
            uint32_t s = (uint32_t)o->slot;
            if (k == 0)
                c = 0;
            else if (s < nr && known[s])
                c = val[s];
            else if (s >= nr && s < nr + xf->nimm)
                c = xf->imm[s - nr];
            else
                return 0;
            t.o[k].slot = 2 * k; /* a wide slot each, as the layout's units */
            t.o[k].nw = 0;
            t.o[k].cptr = NULL;
            t.o[k].cptr32 = NULL;
            for (int l = 0; l < 32; l++)
                XR(regs, t.o[k].slot)[l] = c;
        }
        uint32_t carry = 0;
        diag_t d;
        diag_clear(&d);
        if (xop_exec(&t, regs, XFULL, &carry, &d) != WL_OK)
            return 0;
        r = regs[0];
        for (int l = 1; l < 32; l++)
            if (regs[l] != r)
                return 0;
    }
    /* a narrow slot keeps the low 32 bits (xalloc_layout: sbits <= 32) */
    if (dst->sbits && dst->sbits <= 32)
        r = (uint32_t)r;
    *v = r;
    return 1;
}

/* The immediate slot holding value v (slots before the layout: nr + index), appended to
 * xf->imm when new; -1 when out of memory. */
static int32_t imm_of(xfunc *xf, uint32_t nr, uint64_t v, uint32_t *cap)
{
    for (uint32_t j = 0; j < xf->nimm; j++)
        if (xf->imm[j] == v)
            return (int32_t)(nr + j);
    if (xf->nimm == *cap) {
        uint32_t nc = *cap ? 2 * *cap : 16;
        uint64_t *q = realloc(xf->imm, nc * sizeof *q);
        if (!q)
            return -1;
        xf->imm = q;
        *cap = nc;
    }
    xf->imm[xf->nimm] = v;
    return (int32_t)(nr + xf->nimm++);
}

static void shift_scratch(int32_t *s, uint32_t from, uint32_t by)
{
    if (*s >= 0 && (uint32_t)*s >= from)
        *s += (int32_t)by;
}

static void fold_launch_constants(const exec_prog *p, xfunc *xf)
{
    const ptx_func *f = xf->f;
    uint32_t nr = xf->nregs, n = xf->n, nb = f->nblocks;
    size_t nw = (nr + 63) / 64;
    if (xf->imm_clobbered || n == 0 || nr == 0 || nb == 0 || !f->blocks ||
        nw * nb * 2 > XALLOC_MAX_WORDS)
        return;
    for (uint32_t i = 0; i < n; i++)
        if (xf->ins[i].op == PTX_OP_CALL)
            return;
    uint32_t *def = malloc(nr * sizeof *def);
    uint8_t *ok = malloc(nr), *known = calloc(nr, 1);
    uint64_t *val = calloc(nr, sizeof *val);
    int32_t *slot = malloc(nr * sizeof *slot);
    xa_ops *ops = malloc((size_t)n * sizeof *ops);
    uint64_t *in = calloc(nw * nb, 8), *out = calloc(nw * nb, 8), *cur = calloc(nw, 8);
    if (!def || !ok || !known || !val || !slot || !ops || !in || !out || !cur ||
        !liveness(xf, ops, in, out, cur))
        goto done;
    single_defs(xf, def, ok);
    uint32_t nfold = 0;
    for (int changed = 1; changed;) { /* a value may come from values found earlier */
        changed = 0;
        for (uint32_t r = 0; r < nr; r++) {
            uint64_t v;
            if (ok[r] && !known[r] && def[r] != UINT32_MAX && !BIT(in, r) /* block 0: entry */ &&
                fold_value(p, xf, &xf->ins[def[r]], known, val, &v)) {
                known[r] = 1;
                val[r] = v;
                changed = 1;
                nfold++;
            }
        }
    }
    if (!nfold)
        goto done;
    /* the immediates grow: the scratch slots that follow them move up */
    uint32_t nimm0 = xf->nimm, cap = xf->nimm;
    for (uint32_t r = 0; r < nr; r++)
        if (known[r] && (slot[r] = imm_of(xf, nr, val[r], &cap)) < 0) {
            known[r] = 0; /* out of memory: r keeps its slot */
            nfold--;
        }
    uint32_t added = xf->nimm - nimm0, from = nr + nimm0;
    for (uint32_t i = 0; i < n && added; i++) {
        xinsn *x = &xf->ins[i];
        shift_scratch(&x->guard, from, added);
        for (int k = 0; k < x->npre; k++)
            shift_scratch(&x->pre[k].slot, from, added);
        for (int k = 0; k < x->nops; k++) {
            xop *o = &x->o[k];
            if (o->kind == XO_SLOT || o->kind == XO_ADDR)
                shift_scratch(&o->slot, from, added);
            else if (o->kind == XO_VEC)
                for (int v = 0; v < o->n && v < 4; v++)
                    shift_scratch(&o->vec[v], from, added);
        }
    }
    xf->nslots += added;
    for (uint32_t i = 0; i < n; i++) { /* the reads */
        xinsn *x = &xf->ins[i];
        for (int k = exec_dst_operands(x); k < x->nops; k++) {
            xop *o = &x->o[k];
            if (o->kind == XO_SLOT && o->slot >= 0 && (uint32_t)o->slot < nr && known[o->slot])
                o->slot = slot[o->slot];
        }
    }
done:
    free(def);
    free(ok);
    free(known);
    free(val);
    free(slot);
    free(ops);
    free(in);
    free(out);
    free(cur);
}

#define XA_SINK UINT32_MAX /* map[]: a register nothing reads: its writes go to the sink slot */

/* wide[s] = 1 for the slots (< nr) some operand names as a register whose values need more
 * than 32 bits (those need 32 lanes of 64 bits, xalloc_layout; predicates hold 0 or 1). */
static void wide_slots(const xfunc *xf, uint32_t nr, uint8_t *wide)
{
    memset(wide, 0, nr ? nr : 1);
    for (uint32_t i = 0; i < xf->n; i++) {
        const xinsn *x = &xf->ins[i];
        for (int k = 0; k < x->nops; k++) {
            const xop *o = &x->o[k];
            if ((o->kind == XO_SLOT || o->kind == XO_ADDR) && o->slot >= 0 &&
                (uint32_t)o->slot < nr && (o->sbits == 0 || o->sbits > 32))
                wide[o->slot] = 1;
            if (o->kind == XO_VEC)
                for (int v = 0; v < o->n && v < 4; v++)
                    if (o->vec[v] >= 0 && (uint32_t)o->vec[v] < nr &&
                        (o->vsbits[v] == 0 || o->vsbits[v] > 32))
                        wide[o->vec[v]] = 1;
        }
    }
}

/* map[r] = slot for every register (XA_SINK for one never read); returns the number of slots,
 * or 0 to keep one per register. Greedy colouring in order of interval start: a slot is reused
 * once the interval that held it ended before the new one starts, by a register of the same
 * width class (narrow or wide, xalloc_layout), so that narrow registers keep narrow slots. */
static uint32_t colour(const xfunc *xf, uint32_t *map)
{
    uint32_t nr = xf->nregs;
    uint32_t *lo = malloc(nr * sizeof *lo), *hi = malloc(nr * sizeof *hi);
    uint8_t *read = malloc(nr), *wide = malloc(nr), *slot_wide = malloc(nr);
    xa_iv *iv = malloc(nr * sizeof *iv);
    uint32_t *slot_end = malloc(nr * sizeof *slot_end), *slot_reg = malloc(nr * sizeof *slot_reg);
    xa_last *last = malloc((xf->n ? xf->n : 1) * sizeof *last);
    uint32_t nslot = 0, niv = 0;
    if (!lo || !hi || !read || !wide || !slot_wide || !iv || !slot_end || !slot_reg || !last ||
        intervals(xf, lo, hi, read, last) != 0)
        goto done;
    wide_slots(xf, nr, wide);
    for (uint32_t r = 0; r < nr; r++) {
        map[r] = read[r] ? 0 : XA_SINK;
        if (lo[r] <= hi[r] && read[r])
            iv[niv++] = (xa_iv){lo[r], hi[r], r};
    }
    qsort(iv, niv, sizeof *iv, by_lo);
    /* Slots are few (tens): a linear search for the free one with the lowest index keeps the
     * assignment deterministic and simple. */
    for (uint32_t k = 0; k < niv; k++) {
        uint32_t s = 0;
        uint8_t w = wide[iv[k].r];
        /* a slot whose register ended before, or ends at the instruction that defines this
         * one (its interval starts there) by reading it for the last time (xa_last) */
        const xa_last *L = &last[iv[k].lo];
        while (s < nslot &&
               (slot_wide[s] != w ||
                (slot_end[s] >= iv[k].lo &&
                 !(slot_end[s] == iv[k].lo && L->def == (int32_t)iv[k].r &&
                   reads_last(L, slot_reg[s])))))
            s++;
        if (s == nslot)
            nslot++;
        slot_end[s] = iv[k].hi;
        slot_reg[s] = iv[k].r;
        slot_wide[s] = w;
        map[iv[k].r] = s;
    }
    if (nslot == 0)
        nslot = 1;
done:
    free(lo);
    free(hi);
    free(read);
    free(wide);
    free(slot_wide);
    free(iv);
    free(slot_end);
    free(slot_reg);
    free(last);
    return nslot;
}

static void remap(int32_t *s, const uint32_t *map, uint32_t nr, uint32_t np, uint32_t sink)
{
    if (*s < 0)
        return;
    if ((uint32_t)*s >= nr)
        *s = *s - (int32_t)nr + (int32_t)np;
    else
        *s = map[*s] == XA_SINK ? (int32_t)sink : (int32_t)map[*s];
}

/* Marks the moves exec_prog_pass_folded lets the executor pass over: `mov` of a PTX immediate
 * into a register, unguarded, that now writes the sink (propagate_constants gave every reader
 * the immediate, or nothing reads it), where no other instruction writes that register (so the
 * scoreboard entry the timing model would give it, ready at once, can never be waited on).
 * Functions with calls are left alone: a call's return registers are written but not listed
 * as destinations. */
static int mark_noops(xfunc *xf, uint32_t nr, int32_t sink)
{
    const ptx_func *f = xf->f;
    uint8_t *writers = calloc(nr ? nr : 1, 1); /* 0, 1, or 2 for more */
    if (!writers)
        return -1;
    int calls = 0;
    for (uint32_t i = 0; i < xf->n; i++) {
        const xinsn *x = &xf->ins[i];
        calls |= x->op == PTX_OP_CALL;
        for (int j = 0; j < x->ndst; j++)
            if (x->dst[j] >= 0 && (uint32_t)x->dst[j] < nr && writers[x->dst[j]] < 2)
                writers[x->dst[j]]++;
    }
    for (uint32_t i = 0; i < xf->n && !calls; i++) {
        xinsn *x = &xf->ins[i];
        const ptx_insn *ir = x->ir;
        if (x->op != PTX_OP_MOV || x->guard >= 0 || x->nops != 2 || x->npre || x->ndst != 1 ||
            x->nsrc != 0 || x->o[0].kind != XO_SLOT || x->o[0].slot != sink || !ir ||
            ir->nops != 2 || (ir->flags & PTX_F_UNROLL_CTL))
            continue;
        int k0 = f->ops[ir->op0].kind, k1 = f->ops[ir->op0 + 1].kind;
        if (k0 == PTX_OPND_REG && (k1 == PTX_OPND_IMM || k1 == PTX_OPND_FIMM) &&
            (uint32_t)x->dst[0] < nr && writers[x->dst[0]] == 1)
            x->noop = 1;
    }
    free(writers);
    return 0;
}

wl_status xalloc_func(const exec_prog *p, xfunc *xf, diag_t *d)
{
    uint32_t nr = xf->nregs;
    if (nr == 0)
        return WL_OK;
    for (uint32_t r = 0; r < nr; r++)
        if (xf->f->regs[r].vec > 1)
            return WL_OK;
    uint32_t *map = malloc(nr * sizeof *map);
    if (!map)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    propagate_constants(xf);
    fold_launch_constants(p, xf);
    uint32_t np = colour(xf, map);
    if (np == 0 || np > nr) {
        free(map);
        return WL_OK;
    }
    uint32_t sink = np + xf->nimm + XNSCRATCH - 1; /* xdec's sink for `_` (after renumbering) */
    for (uint32_t i = 0; i < xf->n; i++) {
        xinsn *x = &xf->ins[i];
        if (x->op == PTX_OP_CALL) { /* no register operands; a guard perhaps */
            remap(&x->guard, map, nr, np, sink);
            continue;
        }
        for (int k = 0; k < x->nops; k++) {
            xop *o = &x->o[k];
            if (o->kind == XO_SLOT || o->kind == XO_ADDR)
                remap(&o->slot, map, nr, np, sink);
            else if (o->kind == XO_VEC)
                for (int v = 0; v < o->n && v < 4; v++)
                    remap(&o->vec[v], map, nr, np, sink);
        }
        remap(&x->guard, map, nr, np, sink);
        for (int k = 0; k < x->npre; k++)
            remap(&x->pre[k].slot, map, nr, np, sink);
    }
    xf->nslots = xf->nslots - nr + np;
    xf->nregs = np;
    free(map);
    if (mark_noops(xf, nr, (int32_t)sink) != 0)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    return WL_OK;
}

/* The unit of slot s (units[] of the slots before the layout); -1 stays -1. */
static void to_unit(int32_t *s, const uint32_t *units, uint32_t nslots)
{
    if (*s >= 0 && (uint32_t)*s < nslots)
        *s = (int32_t)units[*s];
}

wl_status xalloc_layout(xfunc *xf, diag_t *d)
{
    uint32_t nr = xf->nregs, ns = xf->nslots;
    uint8_t *wide = malloc(ns ? ns : 1);
    uint32_t *units = malloc((ns ? ns : 1) * sizeof *units);
    if (!wide || !units) {
        free(wide);
        free(units);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    }
    wide_slots(xf, nr, wide);
    for (uint32_t s = nr; s < ns; s++) /* immediates and scratch slots hold 64 bits */
        wide[s] = 1;
    uint32_t nu = 0, nregs_u = 0;
    for (uint32_t s = 0; s < ns; s++) {
        units[s] = nu;
        nu += wide[s] ? 2u : 1u;
        if (s + 1 == nr)
            nregs_u = nu;
    }
    free(xf->ukind);
    xf->ukind = malloc(nu ? nu : 1);
    if (!xf->ukind) {
        free(wide);
        free(units);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    }
    for (uint32_t s = 0; s < ns; s++) {
        xf->ukind[units[s]] = wide[s] ? XU_WIDE : XU_NARROW;
        if (wide[s])
            xf->ukind[units[s] + 1] = XU_HIGH;
    }
    for (uint32_t i = 0; i < xf->n; i++) {
        xinsn *x = &xf->ins[i];
        if (x->guard >= 0 && (uint32_t)x->guard < ns)
            x->guard_nw = !wide[x->guard];
        to_unit(&x->guard, units, ns);
        for (int k = 0; k < x->npre; k++) {
            if (x->pre[k].slot >= 0 && (uint32_t)x->pre[k].slot < ns)
                x->pre[k].nw = !wide[x->pre[k].slot];
            to_unit(&x->pre[k].slot, units, ns);
        }
        for (int k = 0; k < x->nops; k++) {
            xop *o = &x->o[k];
            if (o->kind == XO_SLOT || o->kind == XO_ADDR) {
                if (o->slot >= 0 && (uint32_t)o->slot < ns)
                    o->nw = !wide[o->slot];
                to_unit(&o->slot, units, ns);
            } else if (o->kind == XO_VEC) {
                for (int v = 0; v < o->n && v < 4; v++) {
                    if (o->vec[v] >= 0 && (uint32_t)o->vec[v] < ns)
                        o->vnw[v] = !wide[o->vec[v]];
                    to_unit(&o->vec[v], units, ns);
                }
            }
        }
    }
    xf->rslots = nr;
    xf->nregs = nregs_u;
    xf->nslots = nu;
    free(wide);
    free(units);
    return WL_OK;
}
