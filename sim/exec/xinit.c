/* xinit: which registers a reused CTA must clear.
 *
 * A block that starts must see every register zero, as if freshly allocated (exec.h), but the
 * timing model and the launcher reuse a retired block's register files, and clearing all of them
 * costs more than many short blocks execute. A thread can only observe a register's old value by
 * reading it before it wrote it, so only registers read somewhere that is not "definitely
 * assigned" need clearing. Definitely assigned at an instruction: every path from the kernel's
 * first instruction to it passes an unguarded instruction that writes the register in every lane
 * that executes it (a forward must-analysis over the IR's basic blocks). Under SIMT each thread
 * still follows one path of the CFG, and lanes that do not execute an instruction do not consume
 * its operands (results are committed for executing lanes only), with one exception: shfl reads
 * its source value from other lanes, which may have exited or never existed, so that register is
 * always cleared (so are all registers of vote, match and redux, conservatively). Anything not
 * understood counts as a read, and only instructions known to write every executing lane count
 * as writes. */
#include <stdlib.h>
#include <string.h>

#include "exec_int.h"
#include "ptx.h"

/* The registers x writes in every lane that executes it (into defs[], at most 2): the count. */
static int full_defs(const xinsn *x, uint32_t nr, int32_t defs[2])
{
    int n = 0;
    if (x->guard >= 0 || x->nops < 1 || x->op >= PTX_OP_COUNT)
        return 0;
    const xop *o = &x->o[0];
    switch (x->op) {
    case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_CVT: case PTX_OP_CVTA: case PTX_OP_MOV:
        if (o->kind == XO_SLOT)
            defs[n++] = o->slot;
        break;
    case PTX_OP_SHFL: /* d or d|p, both written in every executing lane (xwide.c) */
        if (o->kind == XO_SLOT) {
            defs[n++] = o->slot;
        } else if (o->kind == XO_VEC) {
            for (int v = 0; v < o->n && v < 2; v++)
                defs[n++] = o->vec[v];
        }
        break;
    default:
        if (x->fast && o->kind == XO_SLOT)
            defs[n++] = o->slot;
        break;
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (defs[i] >= 0 && (uint32_t)defs[i] < nr)
            defs[k++] = defs[i];
    return k;
}

#define HAS(s, r) (((s)[(r) / 64] >> ((r) % 64)) & 1)

/* Marks in need[] the registers x reads while not in the assigned set a (NULL: none is). */
static void mark_uses(const xinsn *x, uint32_t nr, const uint64_t *a, uint8_t *need)
{
    int32_t defs[2];
    int ndef = full_defs(x, nr, defs);
    for (int k = 0; k < x->nops; k++) {
        const xop *o = &x->o[k];
        int32_t rs[4];
        int all = xcross_lane(x, k);
        if (k == 0 && ndef > 0)
            continue; /* the destination: written, not read */
        int n = exec_operand_regs(o, nr, rs);
        for (int i = 0; i < n; i++)
            if (all || !a || !HAS(a, (uint32_t)rs[i]))
                need[rs[i]] = 1;
    }
    if (x->guard >= 0 && (uint32_t)x->guard < nr && (!a || !HAS(a, (uint32_t)x->guard)))
        need[x->guard] = 1;
}

static void apply_defs(const xinsn *x, uint32_t nr, uint64_t *a)
{
    int32_t defs[2];
    int n = full_defs(x, nr, defs);
    for (int i = 0; i < n; i++)
        a[defs[i] / 64] |= UINT64_C(1) << (defs[i] % 64);
}

/* need[r] = 1 for the registers of function xf that a reused block must clear. */
static int analyse(const xfunc *xf, uint8_t *need)
{
    const ptx_func *f = xf->f;
    uint32_t nr = xf->nregs, nb = f->nblocks, nw = (nr + 63) / 64;
    if (nb == 0 || !f->blocks) {
        memset(need, 1, nr);
        return 0;
    }
    uint64_t *in = malloc((size_t)nb * nw * sizeof *in), *cur = malloc(nw * sizeof *cur);
    if (!in || !cur) {
        free(in);
        free(cur);
        return -1;
    }
    memset(in, 0xff, (size_t)nb * nw * sizeof *in); /* unknown: everything (the meet is AND) */
    memset(in, 0, nw * sizeof *in);                  /* the entry: nothing assigned */
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t b = 0; b < nb; b++) {
            const ptx_block *bl = &f->blocks[b];
            memcpy(cur, in + (size_t)b * nw, nw * sizeof *cur);
            for (uint32_t i = bl->first; i <= bl->last && i < xf->n; i++)
                apply_defs(&xf->ins[i], nr, cur);
            for (int s = 0; s < bl->nsucc && s < 2; s++) {
                uint32_t t = bl->succ[s];
                if (t >= nb)
                    continue;
                uint64_t *ts = in + (size_t)t * nw;
                for (uint32_t w = 0; w < nw; w++)
                    if ((ts[w] & cur[w]) != ts[w]) {
                        ts[w] &= cur[w];
                        changed = 1;
                    }
            }
        }
    }
    for (uint32_t b = 0; b < nb; b++) {
        const ptx_block *bl = &f->blocks[b];
        memcpy(cur, in + (size_t)b * nw, nw * sizeof *cur);
        for (uint32_t i = bl->first; i <= bl->last && i < xf->n; i++) {
            mark_uses(&xf->ins[i], nr, cur, need);
            apply_defs(&xf->ins[i], nr, cur);
        }
    }
    free(in);
    free(cur);
    return 0;
}

wl_status xinit_clear_runs(exec_prog *p, int fi, diag_t *d)
{
    xfunc *xf = &p->funcs[fi];
    uint32_t nr = xf->nregs;
    uint8_t *need = calloc(nr + 1, 1);
    if (!need || analyse(xf, need) != 0) {
        free(need);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    }
    /* registers are named by their first unit (xalloc_layout): a wide one's second unit goes
     * with it */
    for (uint32_t r = 0; r + 1 < nr; r++)
        if (need[r] && xf->ukind && xf->ukind[r] == XU_WIDE)
            need[++r] = 1;
    uint32_t n = 0;
    for (uint32_t r = 0; r < nr; r++)
        n += need[r] && (r == 0 || !need[r - 1]);
    xf->clear = malloc((n ? n : 1) * 2 * sizeof *xf->clear);
    if (!xf->clear) {
        free(need);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    }
    xf->nclear = 0;
    for (uint32_t r = 0; r < nr; r++) {
        if (!need[r])
            continue;
        if (r == 0 || !need[r - 1]) {
            xf->clear[2 * xf->nclear] = r;
            xf->clear[2 * xf->nclear + 1] = 0;
            xf->nclear++;
        }
        xf->clear[2 * xf->nclear - 1]++;
    }
    free(need);
    return WL_OK;
}
