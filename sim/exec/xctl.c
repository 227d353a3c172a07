/* xctl: control flow of a warp: the SIMT reconvergence stack (divergent branches, __syncwarp),
 * calls and returns (frames, parameter copies, the built-in printf/assert), thread exit, and CTA
 * barriers (bar.sync / bar.arrive / bar.red with ids and thread counts). See exec.h. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "exec_int.h"
#include "ptx.h"

/* Fills a frame's immediate slots (read-only registers holding the function's constants). */
void xctl_fill_imm(const xfunc *xf, uint64_t *regs)
{
    for (uint32_t i = 0; i < xf->nimm; i++) {
        uint64_t *r = XR(regs, xf->nregs + 2 * i); /* wide, two units each (xfunc) */
        for (int l = 0; l < 32; l++)
            r[l] = xf->imm[i];
    }
}


/* ------------------------------------------------------------------------------------------ */
/* Barriers                                                                                   */
/* ------------------------------------------------------------------------------------------ */
/* Completes barrier id when enough threads arrived: wakes its warps, delivers bar.red. */
static void bar_try_complete(exec_block *b, int id)
{
    xbar *br = &b->bars[id];
    if (br->arrived == 0)
        return;
    uint32_t need = br->expected ? br->expected : b->nthreads - b->exited;
    if (br->arrived < need)
        return;
    for (int w = 0; w < b->nwarps; w++) {
        if (!((br->waiting >> w) & 1))
            continue;
        xwarp *W = &b->w[w];
        if (W->red_slot >= 0) {
            uint64_t v = br->red_aop == PTX_AOP_POPC ? br->red_popc :
                         br->red_aop == PTX_AOP_AND ? br->red_and : br->red_or;
            for (int l = 0; l < 32; l++)
                if ((W->red_mask >> l) & 1)
                    xslot_put(W->regs, W->red_slot, W->red_nw, l, v);
            W->red_slot = -1;
        }
        W->state = EXEC_WARP_READY;
        W->bar = -1;
    }
    memset(br, 0, sizeof *br);
}

wl_status xctl_bar(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m,
                          exec_step_info *out, diag_t *d)
{
    xwarp *W = &b->w[warp];
    int red = in->mode == PTX_BAR_RED;
    int first = red ? 1 : 0; /* bar.red d, id, [count,] pred */
    int lane = m ? __builtin_ctz(m) : 0;
    uint64_t id = xget(&in->o[first], regs, lane);
    uint32_t count = 0;
    int nsrc = in->nops - first - (red ? 1 : 0);
    if (nsrc > 1)
        count = (uint32_t)xget(&in->o[first + 1], regs, lane);
    if (id > 15)
        return exec_fail(b, warp, lane, in, WL_EFAULT, d, "barrier id %llu out of range 0..15",
                         (unsigned long long)id);
    if (count && (count % 32 != 0 || count > 1024))
        return exec_fail(b, warp, lane, in, WL_EFAULT, d,
                         "barrier %llu thread count %u is not a multiple of 32 in 32..1024",
                         (unsigned long long)id, count);
    xbar *br = &b->bars[id];
    if (br->arrived && br->expected != count)
        return exec_fail(b, warp, lane, in, WL_EDEADLOCK, d,
                         "barrier %llu used with thread counts %u and %u in the same phase",
                         (unsigned long long)id, br->expected, count);
    if (out) {
        out->is_barrier = 1;
        out->bar_id = (uint8_t)id;
        out->bar_count = count;
    }
    br->expected = count;
    br->line = in->ir->line;
    br->col = in->ir->col;
    if (m == 0)
        return WL_OK;
    br->arrived += wl_popc32(m);
    if (red) {
        const xop *po = &in->o[in->nops - 1];
        uint32_t t = 0;
        for (int l = 0; l < 32; l++)
            if ((m >> l) & 1) {
                int v = xget(po, regs, l) != 0;
                if (po->neg)
                    v = !v;
                t |= (uint32_t)v << l;
            }
        if (br->arrived == wl_popc32(m)) {
            br->red_and = 1;
            br->red_or = 0;
        }
        br->red_aop = in->aop;
        br->red_popc += wl_popc32(t);
        br->red_and = br->red_and && t == m;
        br->red_or = br->red_or || t != 0;
        const xframe *fr = &W->frames[W->fp - 1];
        W->red_slot = (int32_t)(fr->reg_off + (uint32_t)in->o[0].slot);
        W->red_nw = in->o[0].nw;
        W->red_mask = m;
    }
    if (in->mode != PTX_BAR_ARRIVE) {
        W->state = EXEC_WARP_BARRIER;
        W->bar = (int)id;
        br->waiting |= 1u << warp;
    }
    bar_try_complete(b, (int)id);
    return WL_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* SIMT stack, calls, exits                                                                   */
/* ------------------------------------------------------------------------------------------ */
void xctl_exit_lanes(exec_block *b, xwarp *W, uint32_t m)
{
    m &= W->live;
    if (!m)
        return;
    for (int i = 0; i < W->sp; i++)
        W->simt[i].mask &= ~m;
    for (int i = 0; i < W->fp; i++)
        W->frames[i].returned &= ~m;
    W->live &= ~m;
    W->wsync &= ~m;
    if (W->live == 0)
        W->state = EXEC_WARP_DONE; /* at once, so a scheduler never picks it again */
    b->exited += wl_popc32(m);
    /* Exited threads no longer count towards barriers without a thread count. */
    for (int id = 0; id < 16; id++)
        bar_try_complete(b, id);
}

/* Returns from the top frame: copies the return values of lanes that called, pops the frame. */
static void do_return(exec_block *b, xwarp *W)
{
    const exec_prog *p = b->p;
    xframe *fr = &W->frames[W->fp - 1];
    xframe *caller = &W->frames[W->fp - 2];
    uint32_t mask = (W->simt[fr->simt_base].mask | fr->returned) & W->live;
    const xinsn *ci = &p->funcs[caller->func].ins[fr->call_insn];
    const xcall *c = &p->calls[ci->target];
    for (uint32_t i = 0; i < c->nret; i++)
        for (int l = 0; l < 32; l++)
            if ((mask >> l) & 1) {
                uint8_t *loc = W->local + (size_t)l * p->local_bytes;
                memmove(loc + caller->local_base + c->ret_dst[i],
                        loc + fr->local_base + c->ret_src[i], c->ret_size[i]);
            }
    W->sp = (int)fr->simt_base;
    W->fp--;
}

/* The 64-bit argument i of a builtin call for lane l (from the caller's call-parameter area). */
static uint64_t call_arg(const exec_block *b, const xwarp *W, const xcall *c, uint32_t i, int l)
{
    uint64_t v = 0;
    if (i < c->narg) {
        const uint8_t *loc = W->local + (size_t)l * b->p->local_bytes +
                             W->frames[W->fp - 1].local_base;
        memcpy(&v, loc + c->arg_src[i], c->arg_size[i] < 8 ? c->arg_size[i] : 8);
    }
    return v;
}

/* vprintf / __assertfail / other external functions, lane by lane in lane order. */
static wl_status call_builtin(exec_block *b, int warp, const xinsn *in, const xcall *c,
                              uint32_t m, diag_t *d)
{
    const exec_prog *p = b->p;
    xwarp *W = &b->w[warp];
    const ptx_func *cf = &p->m->funcs[c->callee];
    if (c->builtin == XCALL_EXTERN)
        return exec_fail(b, warp, __builtin_ctz(m), in, WL_EUNSUPPORTED, d,
                         "unsupported by the executor: call of external function '%s'", cf->name);
    for (int l = 0; l < 32; l++) {
        if (!((m >> l) & 1))
            continue;
        if (c->builtin == XCALL_ASSERT) {
            char msg[200] = "?", file[200] = "?", fn[120] = "?";
            size_t k;
            for (k = 0; k + 1 < sizeof msg && xmem_peek(b, warp, l, call_arg(b, W, c, 0, l) + k,
                                                       msg + k, 1) && msg[k]; k++)
                ;
            msg[k] = 0;
            for (k = 0; k + 1 < sizeof file && xmem_peek(b, warp, l, call_arg(b, W, c, 1, l) + k,
                                                        file + k, 1) && file[k]; k++)
                ;
            file[k] = 0;
            for (k = 0; k + 1 < sizeof fn && xmem_peek(b, warp, l, call_arg(b, W, c, 3, l) + k,
                                                      fn + k, 1) && fn[k]; k++)
                ;
            fn[k] = 0;
            return exec_fail(b, warp, l, in, WL_EFAULT, d,
                             "device-side assertion `%s' failed (%s:%u in %s)", msg, file,
                             (uint32_t)call_arg(b, W, c, 2, l), fn);
        }
        char text[2048];
        size_t n = xmem_printf(b, warp, l, call_arg(b, W, c, 0, l), call_arg(b, W, c, 1, l),
                               text, sizeof text);
        if (p->g.print)
            p->g.print(p->g.print_ctx, text);
        if (c->nret) {
            int32_t r = (int32_t)n;
            uint8_t *loc = W->local + (size_t)l * p->local_bytes + W->frames[W->fp - 1].local_base;
            memcpy(loc + c->ret_dst[0], &r, c->ret_size[0] < 4 ? c->ret_size[0] : 4);
        }
    }
    W->simt[W->sp - 1].pc++;
    return WL_OK;
}

wl_status xctl_call(exec_block *b, int warp, const xinsn *in, uint32_t m, diag_t *d)
{
    const exec_prog *p = b->p;
    xwarp *W = &b->w[warp];
    xframe *fr = &W->frames[W->fp - 1];
    const xfunc *xf = &p->funcs[fr->func];
    const xcall *c = &p->calls[in->target];
    if (c->builtin != XCALL_NONE)
        return call_builtin(b, warp, in, c, m, d);
    const xfunc *cx = &p->funcs[c->callee];
    if (W->fp >= XMAX_FRAMES || W->sp >= XMAX_SIMT)
        return exec_fail(b, warp, -1, in, WL_EFAULT, d,
                         "call stack overflow (more than %d nested calls)", XMAX_FRAMES);
    if (!xctl_grow_stacks(W, W->sp + 1, W->fp + 1))
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    fr = &W->frames[W->fp - 1];
    uint32_t base = fr->local_base + xf->frame_bytes;
    if ((uint64_t)base + cx->frame_bytes > p->local_bytes)
        return exec_fail(b, warp, m ? __builtin_ctz(m) : -1, in, WL_EFAULT, d,
                         "local-memory stack overflow calling '%s' (recursion deeper than %u "
                         "bytes per thread)", cx->f->name, p->local_bytes);
    uint32_t reg_off = fr->reg_off + xf->nslots;
    if (reg_off + cx->nslots > W->regs_cap) {
        uint32_t nc = (reg_off + cx->nslots) * 2;
        /* the first growth leaves the block's region (its slot there stays unused) */
        uint64_t *nr = W->regs_own ? realloc(W->regs, (size_t)nc * XUNIT * sizeof *nr)
                                   : malloc((size_t)nc * XUNIT * sizeof *nr);
        if (!nr)
            return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        if (!W->regs_own)
            memcpy(nr, W->regs, (size_t)W->regs_cap * XUNIT * sizeof *nr);
        W->regs_own = 1;
        W->regs = nr;
        W->regs_cap = nc;
    }
    for (uint32_t i = 0; i < c->narg; i++)
        for (int l = 0; l < 32; l++)
            if ((m >> l) & 1) {
                uint8_t *loc = W->local + (size_t)l * p->local_bytes;
                memmove(loc + base + c->arg_dst[i], loc + fr->local_base + c->arg_src[i],
                        c->arg_size[i]);
            }
    uint64_t *regs = XR(W->regs, reg_off);
    memset(regs, 0, (size_t)cx->nregs * XUNIT * sizeof *regs);
    xctl_fill_imm(cx, regs);
    W->simt[W->sp - 1].pc++; /* the caller resumes after the call */
    W->simt[W->sp] = (xsimt){0, XPC_END, m};
    W->frames[W->fp] = (xframe){c->callee, reg_off, base, (uint32_t)W->sp, 0,
                                (int32_t)(in - xf->ins)};
    W->sp++;
    W->fp++;
    return WL_OK;
}

int xctl_grow_stacks(xwarp *W, int simt, int frames)
{
    if (W->simt != W->simt_in || (simt <= XSIMT_IN && frames <= XFRAMES_IN))
        return 1; /* on the heap already (at the full depths), or room in the record */
    xsimt *s = malloc(XMAX_SIMT * sizeof *s);
    xframe *f = malloc(XMAX_FRAMES * sizeof *f);
    if (!s || !f) {
        free(s);
        free(f);
        return 0;
    }
    memcpy(s, W->simt_in, sizeof W->simt_in);
    memcpy(f, W->frames_in, sizeof W->frames_in);
    W->simt = s;
    W->frames = f;
    return 1;
}

void xctl_free_stacks(xwarp *W)
{
    if (W->simt != W->simt_in) {
        free(W->simt);
        free(W->frames);
        xwarp_init_stacks(W);
    }
}

/* Pops finished SIMT entries and frames until the top entry has an instruction to run.
 * Returns 0 when the warp has finished. */
int xctl_settle(exec_block *b, xwarp *W)
{
    const exec_prog *p = b->p;
    for (;;) {
        if (W->sp == 0 || W->live == 0)
            return 0;
        xframe *fr = &W->frames[W->fp - 1];
        xsimt *t = &W->simt[W->sp - 1];
        uint32_t n = p->funcs[fr->func].n;
        if ((uint32_t)(W->sp - 1) == fr->simt_base) {
            if (t->pc != XPC_END && t->pc < n && t->mask != 0)
                return 1;
            if (W->fp == 1) {
                xctl_exit_lanes(b, W, t->mask); /* fell off the end of the kernel */
                W->sp = 0;
                return 0;
            }
            do_return(b, W);
            continue;
        }
        if (t->mask == 0 || t->pc == t->rpc) {
            W->sp--;
            continue;
        }
        if (t->pc >= n) { /* ran past the last instruction: treat like reaching the end */
            t->pc = XPC_END;
            continue;
        }
        return 1;
    }
}

/* __syncwarp(mask) / bar.warp.sync. Converged (all lanes of mask present): nothing to do.
 * Divergent (Volta-style code where both sides of a branch meet at __syncwarp): the lanes that
 * arrived wait, and the warp switches to a sibling path (same reconvergence point) that still has
 * lanes to run; when every live lane of mask has arrived, all are released. If no sibling path can
 * arrive, the waiting lanes are released anyway (lenient: a GPU would hang or be undefined). */
void xctl_warp_sync(xwarp *W, xsimt *t, uint32_t mask, uint32_t m)
{
    mask &= W->live;
    W->wsync |= m;
    if ((mask & ~W->wsync) == 0) {
        W->wsync &= ~mask;
        return;
    }
    int base = (int)W->frames[W->fp - 1].simt_base;
    for (int i = W->sp - 2; i > base && W->simt[i].rpc == t->rpc; i--) {
        if ((W->simt[i].mask & ~W->wsync) != 0) {
            xsimt tmp = W->simt[i];
            W->simt[i] = *t;
            *t = tmp;
            return;
        }
    }
    W->wsync &= ~mask;
}

wl_status xctl_branch(exec_block *b, int warp, const xinsn *in, uint32_t active,
                           uint32_t taken, exec_step_info *out, diag_t *d)
{
    xwarp *W = &b->w[warp];
    xsimt *t = &W->simt[W->sp - 1];
    uint32_t nt = active & ~taken;
    b->cnt.branches++;
    if (out)
        out->is_branch = 1;
    if (taken == 0) {
        t->pc++;
        return WL_OK;
    }
    if (nt == 0) {
        t->pc = (uint32_t)in->target;
        return WL_OK;
    }
    b->cnt.divergent_branches++;
    if (out)
        out->divergent = 1;
    if (W->sp + 2 > XMAX_SIMT)
        return exec_fail(b, warp, -1, in, WL_EUNSUPPORTED, d,
                         "SIMT stack overflow (more than %d nested divergent paths)", XMAX_SIMT);
    if (!xctl_grow_stacks(W, W->sp + 2, W->fp))
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    t = &W->simt[W->sp - 1];
    uint32_t r = in->reconv, next = t->pc + 1;
    if (t->rpc == r && (uint32_t)(W->sp - 1) != W->frames[W->fp - 1].simt_base) {
        /* already inside a region reconverging at r: reuse the entry */
        *t = (xsimt){next, r, nt};
    } else {
        t->pc = r;
        W->simt[W->sp++] = (xsimt){next, r, nt};
    }
    W->simt[W->sp++] = (xsimt){(uint32_t)in->target, r, taken};
    return WL_OK;
}
