/* exec: warps of one CTA, the SIMT reconvergence stack, calls, barriers, warp-wide operations
 * (shfl/vote/match/redux), and the step API (see exec.h for the model). */
#include "exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_int.h"
#include "ptx.h"

static uint32_t align16(uint64_t v)
{
    return (uint32_t)((v + 15) & ~UINT64_C(15));
}

wl_status exec_fail(const exec_block *b, int warp, int lane, const xinsn *in, wl_status st,
                    diag_t *d, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const xwarp *W = &b->w[warp];
    char src[64] = "";
    if (in && in->ir->loc_line)
        snprintf(src, sizeof src, " (source line %u)", in->ir->loc_line);
    if (lane >= 0)
        diag_set(d, st, b->p->m->name, in ? (int)in->ir->line : 0, in ? (int)in->ir->col : 0,
                 "%s by thread (%u,%u,%u) in block (%u,%u,%u)%s", msg, W->tid[0][lane],
                 W->tid[1][lane], W->tid[2][lane], b->ctaid[0], b->ctaid[1], b->ctaid[2], src);
    else
        diag_set(d, st, b->p->m->name, in ? (int)in->ir->line : 0, in ? (int)in->ir->col : 0,
                 "%s in warp %d of block (%u,%u,%u)%s", msg, warp, b->ctaid[0], b->ctaid[1],
                 b->ctaid[2], src);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Program                                                                                    */
/* ------------------------------------------------------------------------------------------ */
wl_status exec_prog_create(const ptx_module *m, const ptx_func *k, const exec_grid *g,
                           devmem_t *mem, exec_prog **out, diag_t *d)
{
    *out = NULL;
    int ki = (int)(k - m->funcs);
    if (ki < 0 || (uint32_t)ki >= m->nfuncs || !k->is_entry || k->is_decl)
        return diag_set(d, WL_EUSAGE, m->name, (int)k->line, (int)k->col,
                        "'%s' is not a kernel (.entry) with a body", k->name);
    uint64_t nthreads = (uint64_t)g->block[0] * g->block[1] * g->block[2];
    if (nthreads == 0 || nthreads > 1024)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "block of %llu threads: must be 1..1024", (unsigned long long)nthreads);
    if ((uint64_t)g->grid[0] * g->grid[1] * g->grid[2] == 0)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "grid has zero blocks");
    if (g->block[0] > 1024 || g->block[1] > 1024 || g->block[2] > 64 || g->grid[1] > 65535 ||
        g->grid[2] > 65535)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "grid or block dimension out of range");
    if (k->param_size > 0 && (!g->params || g->params_size < k->param_size))
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "kernel '%s' takes %u bytes of parameters, %zu given", k->name,
                        k->param_size, g->params ? g->params_size : 0);
    exec_prog *p = calloc(1, sizeof *p);
    if (!p)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    p->m = m;
    p->k = k;
    p->kindex = ki;
    p->g = *g;
    p->mem = mem;
    p->funcs = calloc(m->nfuncs, sizeof *p->funcs);
    p->var_addr = calloc(m->nvars ? m->nvars : 1, sizeof *p->var_addr);
    p->params_size = k->param_size;
    p->params = calloc(1, k->param_size ? k->param_size : 1);
    if (!p->funcs || !p->var_addr || !p->params) {
        exec_prog_destroy(p);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    }
    if (k->param_size)
        memcpy(p->params, g->params, k->param_size);
    for (uint32_t i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        if ((v->space != PTX_SPACE_GLOBAL && v->space != PTX_SPACE_CONST) || v->size == 0)
            continue;
        wl_status st = devmem_alloc(mem, v->size, v->name, &p->var_addr[i], d);
        if (st != WL_OK) {
            exec_prog_destroy(p);
            return st;
        }
        if (v->init && v->init_size)
            memcpy(devmem_translate(mem, p->var_addr[i], v->size), v->init,
                   v->init_size < v->size ? v->init_size : v->size);
    }
    uint32_t dyn_base = k->dyn_smem_var != PTX_NONE ? k->dyn_smem_offset : align16(k->smem_static);
    uint64_t smem = (uint64_t)dyn_base + g->dyn_smem;
    if (smem < k->smem_static)
        smem = k->smem_static;
    if (smem > (UINT64_C(1) << 24)) {
        exec_prog_destroy(p);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "%llu bytes of shared memory per block",
                        (unsigned long long)smem);
    }
    p->smem_bytes = (uint32_t)smem;
    wl_status st = xdec_func(p, ki, d);
    if (st != WL_OK) {
        exec_prog_destroy(p);
        return st;
    }
    /* Local memory per thread: every decoded function's frame once (enough for any call chain
     * without recursion; recursion deeper than that faults as a stack overflow). */
    uint64_t local = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (p->funcs[i].decoded)
            local += p->funcs[i].frame_bytes;
    if (local > (UINT64_C(1) << 24)) {
        exec_prog_destroy(p);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "%llu bytes of local memory per thread",
                        (unsigned long long)local);
    }
    p->local_bytes = (uint32_t)local;
    *out = p;
    return WL_OK;
}

void exec_prog_destroy(exec_prog *p)
{
    if (!p)
        return;
    if (p->funcs)
        for (uint32_t i = 0; i < p->m->nfuncs; i++) {
            free(p->funcs[i].ins);
            free(p->funcs[i].imm);
        }
    for (uint32_t i = 0; i < p->ncalls; i++)
        free(p->calls[i].ret_src);
    free(p->calls);
    free(p->funcs);
    free(p->var_addr);
    free(p->params);
    free(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Blocks and warps                                                                           */
/* ------------------------------------------------------------------------------------------ */
static void fill_imm(const xfunc *xf, uint64_t *regs)
{
    for (uint32_t i = 0; i < xf->nimm; i++) {
        uint64_t *r = XR(regs, xf->nregs + i);
        for (int l = 0; l < 32; l++)
            r[l] = xf->imm[i];
    }
}

/* Puts every warp at the kernel's first instruction with zeroed registers, local and shared
 * memory, for block index ctaid (allocations are reused). */
void exec_block_reset(exec_block *b, const uint32_t ctaid[3])
{
    const exec_prog *p = b->p;
    memcpy(b->ctaid, ctaid, sizeof b->ctaid);
    b->exited = 0;
    memset(b->bars, 0, sizeof b->bars);
    memset(&b->cnt, 0, sizeof b->cnt);
    memset(b->smem, 0, p->smem_bytes);
    const xfunc *kf = &p->funcs[p->kindex];
    for (int w = 0; w < b->nwarps; w++) {
        xwarp *W = &b->w[w];
        memset(W->regs, 0, (size_t)kf->nregs * 32 * sizeof *W->regs);
        fill_imm(kf, W->regs);
        if (W->local)
            memset(W->local, 0, (size_t)32 * p->local_bytes);
        uint32_t live = 0;
        for (int l = 0; l < 32; l++)
            if ((uint32_t)w * 32 + (uint32_t)l < b->nthreads)
                live |= 1u << l;
        W->live = live;
        W->simt[0] = (xsimt){0, XPC_END, live};
        W->sp = 1;
        W->frames[0] = (xframe){p->kindex, 0, 0, 0, 0, -1};
        W->fp = 1;
        W->state = EXEC_WARP_READY;
        W->bar = -1;
        W->red_slot = -1;
        W->carry = W->wsync = 0;
        W->yield = 0;
    }
}

exec_block *exec_block_create(const exec_prog *p, const uint32_t ctaid[3], diag_t *d)
{
    exec_block *b = calloc(1, sizeof *b);
    if (!b) {
        diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        return NULL;
    }
    b->p = p;
    const uint32_t *bd = p->g.block;
    b->nthreads = bd[0] * bd[1] * bd[2];
    b->nwarps = (int)((b->nthreads + 31) / 32);
    b->w = calloc((size_t)b->nwarps, sizeof *b->w);
    b->smem = calloc(1, p->smem_bytes ? p->smem_bytes : 1);
    if (!b->w || !b->smem) {
        exec_block_destroy(b);
        diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        return NULL;
    }
    const xfunc *kf = &p->funcs[p->kindex];
    for (int w = 0; w < b->nwarps; w++) {
        xwarp *W = &b->w[w];
        W->regs_cap = kf->nslots;
        W->regs = calloc((size_t)W->regs_cap * 32, sizeof *W->regs);
        W->local = p->local_bytes ? calloc(32, p->local_bytes) : NULL;
        if (!W->regs || (p->local_bytes && !W->local)) {
            exec_block_destroy(b);
            diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
            return NULL;
        }
        for (int l = 0; l < 32; l++) {
            uint32_t t = (uint32_t)w * 32 + (uint32_t)l;
            W->tid[0][l] = (uint16_t)(t % bd[0]);
            W->tid[1][l] = (uint16_t)(t / bd[0] % bd[1]);
            W->tid[2][l] = (uint16_t)(t / (bd[0] * bd[1]));
        }
    }
    exec_block_reset(b, ctaid);
    return b;
}

void exec_block_destroy(exec_block *b)
{
    if (!b)
        return;
    if (b->w)
        for (int w = 0; w < b->nwarps; w++) {
            free(b->w[w].regs);
            free(b->w[w].local);
        }
    free(b->w);
    free(b->smem);
    free(b);
}

int exec_block_nwarps(const exec_block *b)
{
    return b->nwarps;
}

exec_warp_state exec_warp_state_of(const exec_block *b, int warp)
{
    return (exec_warp_state)b->w[warp].state;
}

int exec_block_done(const exec_block *b)
{
    for (int w = 0; w < b->nwarps; w++)
        if (b->w[w].state != EXEC_WARP_DONE)
            return 0;
    return 1;
}

const exec_counts *exec_block_counts(const exec_block *b)
{
    return &b->cnt;
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
                    W->regs[(size_t)W->red_slot * 32 + (size_t)l] = v;
            W->red_slot = -1;
        }
        W->state = EXEC_WARP_READY;
        W->bar = -1;
    }
    memset(br, 0, sizeof *br);
}

static wl_status exec_bar(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m,
                          exec_step_info *out, diag_t *d)
{
    xwarp *W = &b->w[warp];
    int red = in->mode == PTX_BAR_RED;
    int first = red ? 1 : 0; /* bar.red d, id, [count,] pred */
    int lane = m ? __builtin_ctz(m) : 0;
    uint64_t id = XR(regs, in->o[first].slot)[lane];
    uint32_t count = 0;
    int nsrc = in->nops - first - (red ? 1 : 0);
    if (nsrc > 1)
        count = (uint32_t)XR(regs, in->o[first + 1].slot)[lane];
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
    br->arrived += (uint32_t)xpopc(m);
    if (red) {
        const xop *po = &in->o[in->nops - 1];
        uint32_t t = 0;
        for (int l = 0; l < 32; l++)
            if ((m >> l) & 1) {
                int v = XR(regs, po->slot)[l] != 0;
                if (po->neg)
                    v = !v;
                t |= (uint32_t)v << l;
            }
        if (br->arrived == (uint32_t)xpopc(m)) {
            br->red_and = 1;
            br->red_or = 0;
        }
        br->red_aop = in->aop;
        br->red_popc += (uint32_t)xpopc(t);
        br->red_and = br->red_and && t == m;
        br->red_or = br->red_or || t != 0;
        const xframe *fr = &W->frames[W->fp - 1];
        W->red_slot = (int32_t)(fr->reg_off + (uint32_t)in->o[0].slot);
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
static void exit_lanes(exec_block *b, xwarp *W, uint32_t m)
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
    b->exited += (uint32_t)xpopc(m);
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

static wl_status do_call(exec_block *b, int warp, const xinsn *in, uint32_t m, diag_t *d)
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
    uint32_t base = fr->local_base + xf->frame_bytes;
    if ((uint64_t)base + cx->frame_bytes > p->local_bytes)
        return exec_fail(b, warp, m ? __builtin_ctz(m) : -1, in, WL_EFAULT, d,
                         "local-memory stack overflow calling '%s' (recursion deeper than %u "
                         "bytes per thread)", cx->f->name, p->local_bytes);
    uint32_t reg_off = fr->reg_off + xf->nslots;
    if (reg_off + cx->nslots > W->regs_cap) {
        uint32_t nc = (reg_off + cx->nslots) * 2;
        uint64_t *nr = realloc(W->regs, (size_t)nc * 32 * sizeof *nr);
        if (!nr)
            return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
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
    uint64_t *regs = W->regs + (size_t)reg_off * 32;
    memset(regs, 0, (size_t)cx->nregs * 32 * sizeof *regs);
    fill_imm(cx, regs);
    W->simt[W->sp - 1].pc++; /* the caller resumes after the call */
    W->simt[W->sp] = (xsimt){0, XPC_END, m};
    W->frames[W->fp] = (xframe){c->callee, reg_off, base, (uint32_t)W->sp, 0,
                                (int32_t)(in - xf->ins)};
    W->sp++;
    W->fp++;
    return WL_OK;
}

/* Pops finished SIMT entries and frames until the top entry has an instruction to run.
 * Returns 0 when the warp has finished. */
static int settle(exec_block *b, xwarp *W)
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
                exit_lanes(b, W, t->mask); /* fell off the end of the kernel */
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
static void warp_sync(xwarp *W, xsimt *t, uint32_t mask, uint32_t m)
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

static wl_status do_branch(exec_block *b, int warp, const xinsn *in, uint32_t active,
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

/* ------------------------------------------------------------------------------------------ */
/* Warp-wide operations                                                                       */
/* ------------------------------------------------------------------------------------------ */
static wl_status exec_warpwide(exec_block *b, int warp, const xinsn *in, uint64_t *regs,
                               uint32_t active, uint32_t m, diag_t *d)
{
    const xop *dst = &in->o[0];
    int32_t ds = dst->kind == XO_VEC ? dst->vec[0] : dst->slot;
    int32_t ps = dst->kind == XO_VEC && dst->n > 1 ? dst->vec[1] : -1;
    int dbits = dst->kind == XO_VEC ? dst->vbits[0] : dst->bits;
    uint64_t res[32], pres[32];
    uint64_t dmask = dbits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << dbits) - 1;
    switch (in->op) {
    case PTX_OP_SHFL: {
        const uint64_t *A = XR(regs, in->o[1].slot), *B = XR(regs, in->o[2].slot);
        const uint64_t *C = XR(regs, in->o[3].slot);
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
                int v = XR(regs, po->slot)[l] != 0;
                bal |= (uint32_t)(po->neg ? !v : v) << l;
            }
        uint64_t v = in->mode == PTX_VOTE_ALL ? bal == m : in->mode == PTX_VOTE_ANY ? bal != 0 :
                     in->mode == PTX_VOTE_UNI ? (bal == 0 || bal == m) : bal;
        for (int l = 0; l < 32; l++)
            res[l] = v;
        break;
    }
    case PTX_OP_MATCH: {
        const uint64_t *A = XR(regs, in->o[1].slot);
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
        const uint64_t *A = XR(regs, in->o[1].slot);
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
    for (int l = 0; l < 32; l++) {
        if (!((m >> l) & 1))
            continue;
        if (ds >= 0)
            XR(regs, ds)[l] = res[l] & dmask;
        if (ps >= 0)
            XR(regs, ps)[l] = pres[l];
    }
    return WL_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Special registers and addresses computed before an instruction                              */
/* ------------------------------------------------------------------------------------------ */
static void compute_pre(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m)
{
    const exec_prog *p = b->p;
    const exec_grid *g = &p->g;
    xwarp *W = &b->w[warp];
    const xframe *fr = &W->frames[W->fp - 1];
    for (int k = 0; k < in->npre; k++) {
        uint64_t *Dv = XR(regs, in->pre[k].slot);
        uint16_t sr = in->pre[k].sreg;
        if (sr == UINT16_MAX) {
            const xop *o = &in->o[in->pre[k].opnd];
            uint64_t v = (uint64_t)o->off + (o->base != XB_NONE ? fr->local_base : 0);
            for (int l = 0; l < 32; l++)
                Dv[l] = v;
            continue;
        }
        uint64_t v = 0;
        uint64_t lin = ((uint64_t)b->ctaid[2] * g->grid[1] + b->ctaid[1]) * g->grid[0] +
                       b->ctaid[0];
        int nsm = g->num_sms > 0 ? g->num_sms : 132;
        switch (sr) {
        case PTX_SR_TID_X: case PTX_SR_TID_Y: case PTX_SR_TID_Z:
            for (int l = 0; l < 32; l++)
                Dv[l] = W->tid[sr - PTX_SR_TID_X][l];
            continue;
        case PTX_SR_LANEID:
            for (int l = 0; l < 32; l++)
                Dv[l] = (uint64_t)l;
            continue;
        case PTX_SR_LANEMASK_EQ: case PTX_SR_LANEMASK_LE: case PTX_SR_LANEMASK_LT:
        case PTX_SR_LANEMASK_GE: case PTX_SR_LANEMASK_GT:
            for (int l = 0; l < 32; l++) {
                uint32_t eq = 1u << l, lt = eq - 1;
                Dv[l] = sr == PTX_SR_LANEMASK_EQ ? eq : sr == PTX_SR_LANEMASK_LE ? (lt | eq) :
                        sr == PTX_SR_LANEMASK_LT ? lt : sr == PTX_SR_LANEMASK_GE ? ~lt : ~(lt | eq);
            }
            continue;
        case PTX_SR_NTID_X: case PTX_SR_NTID_Y: case PTX_SR_NTID_Z:
            v = g->block[sr - PTX_SR_NTID_X]; break;
        case PTX_SR_CTAID_X: case PTX_SR_CTAID_Y: case PTX_SR_CTAID_Z:
            v = b->ctaid[sr - PTX_SR_CTAID_X]; break;
        case PTX_SR_NCTAID_X: case PTX_SR_NCTAID_Y: case PTX_SR_NCTAID_Z:
            v = g->grid[sr - PTX_SR_NCTAID_X]; break;
        case PTX_SR_CLUSTERID_X: case PTX_SR_CLUSTERID_Y: case PTX_SR_CLUSTERID_Z:
            v = b->ctaid[sr - PTX_SR_CLUSTERID_X]; break;
        case PTX_SR_NCLUSTERID_X: case PTX_SR_NCLUSTERID_Y: case PTX_SR_NCLUSTERID_Z:
            v = g->grid[sr - PTX_SR_NCLUSTERID_X]; break;
        case PTX_SR_CLUSTER_NCTAID_X: case PTX_SR_CLUSTER_NCTAID_Y: case PTX_SR_CLUSTER_NCTAID_Z:
        case PTX_SR_CLUSTER_NCTARANK:
            v = 1; break;
        case PTX_SR_WARPID: v = (uint64_t)warp; break;
        case PTX_SR_NWARPID: v = 64; break;
        case PTX_SR_SMID: v = lin % (uint64_t)nsm; break;
        case PTX_SR_NSMID: v = (uint64_t)nsm; break;
        case PTX_SR_GRIDID: v = 1; break;
        /* Functional mode has no clock: the block's warp-instruction count stands in for it
         * (monotonic and deterministic); the timing model supplies real cycles. */
        case PTX_SR_CLOCK: case PTX_SR_CLOCK64: case PTX_SR_GLOBALTIMER:
        case PTX_SR_GLOBALTIMER_LO:
            v = b->cnt.warp_insts; break;
        case PTX_SR_CLOCK_HI: case PTX_SR_GLOBALTIMER_HI: v = b->cnt.warp_insts >> 32; break;
        case PTX_SR_DYNAMIC_SMEM_SIZE: v = g->dyn_smem; break;
        case PTX_SR_TOTAL_SMEM_SIZE: v = p->smem_bytes; break;
        case PTX_SR_AGGR_SMEM_SIZE: v = p->smem_bytes + 1024u; break;
        default: v = 0; break;
        }
        for (int l = 0; l < 32; l++)
            Dv[l] = v;
    }
    (void)m;
}

/* ------------------------------------------------------------------------------------------ */
/* The step                                                                                   */
/* ------------------------------------------------------------------------------------------ */
/* Registers an instruction reads and writes, as IR register indices (immediate and scratch slots
 * are not registers). */
static void fill_regs(const xinsn *in, uint32_t nregs, exec_step_info *out)
{
    const ptx_insn *ir = in->ir;
    int ndst = 0;
    switch (ir->op) {
    case PTX_OP_ST: case PTX_OP_RED: case PTX_OP_BRA: case PTX_OP_CALL: case PTX_OP_RET:
    case PTX_OP_EXIT: case PTX_OP_CP_ASYNC: case PTX_OP_MBAR_INIT: case PTX_OP_BAR_WARP_SYNC:
        ndst = 0; break;
    case PTX_OP_BAR: ndst = in->mode == PTX_BAR_RED; break;
    default: ndst = in->nops > 0 ? 1 : 0; break;
    }
    for (int k = 0; k < in->nops; k++) {
        const xop *o = &in->o[k];
        int32_t rs[5];
        int n = 0;
        if ((o->kind == XO_SLOT || o->kind == XO_ADDR) && o->slot >= 0 &&
            (uint32_t)o->slot < nregs)
            rs[n++] = o->slot;
        else if (o->kind == XO_VEC)
            for (int v = 0; v < o->n; v++)
                if (o->vec[v] >= 0 && (uint32_t)o->vec[v] < nregs)
                    rs[n++] = o->vec[v];
        for (int i = 0; i < n; i++) {
            int isdst = k < ndst && o->kind != XO_ADDR;
            if (isdst && out->ndst < EXEC_MAX_REGS)
                out->dst[out->ndst++] = rs[i];
            else if (!isdst && out->nsrc < EXEC_MAX_REGS)
                out->src[out->nsrc++] = rs[i];
        }
    }
    if (in->guard >= 0 && out->nsrc < EXEC_MAX_REGS)
        out->src[out->nsrc++] = in->guard;
}

wl_status exec_warp_step(exec_block *b, int warp, exec_step_info *out, diag_t *d)
{
    xwarp *W = &b->w[warp];
    if (W->state != EXEC_WARP_READY)
        return WL_OK;
    if (!settle(b, W)) {
        W->state = EXEC_WARP_DONE;
        if (out) {
            memset(out, 0, offsetof(exec_step_info, addr));
            out->exited = 1;
        }
        return WL_OK;
    }
    const exec_prog *p = b->p;
    xframe *fr = &W->frames[W->fp - 1];
    const xfunc *xf = &p->funcs[fr->func];
    xsimt *t = &W->simt[W->sp - 1];
    const xinsn *in = &xf->ins[t->pc];
    uint64_t *regs = W->regs + (size_t)fr->reg_off * 32;
    uint32_t active = t->mask, m = active;
    if (in->npre)
        compute_pre(b, warp, in, regs, active);
    if (in->guard >= 0) {
        const uint64_t *G = XR(regs, in->guard);
        uint32_t g = 0;
        for (int l = 0; l < 32; l++)
            g |= (uint32_t)(G[l] != 0) << l;
        m = active & (in->guard_neg ? ~g : g);
    }
    if (out) {
        memset(out, 0, offsetof(exec_step_info, addr));
        out->opcode = in->ir->op;
        out->unit = in->unit;
        out->latclass = in->lat;
        out->func = fr->func;
        out->pc = t->pc;
        out->line = in->ir->line;
        out->col = in->ir->col;
        out->loc_line = in->ir->loc_line;
        out->active = active;
        out->exec_mask = m;
        fill_regs(in, xf->nregs, out);
    }
    b->cnt.warp_insts++;
    b->cnt.thread_insts += (uint64_t)xpopc(m);
    if (in->op < PTX_OP_COUNT)
        b->cnt.op_count[in->op]++;
    wl_status st = WL_OK;
    switch (in->op) {
    case PTX_OP_BRA:
        return do_branch(b, warp, in, active, m, out, d);
    case PTX_OP_CALL:
        if (out)
            out->is_call = 1;
        if (m == 0) {
            t->pc++;
            return WL_OK;
        }
        return do_call(b, warp, in, m, d);
    case PTX_OP_RET:
        if (out)
            out->is_ret = 1;
        if (W->fp == 1) {
            if (out) {
                out->exited = 1;
                out->exit_mask = m;
            }
            t->pc++;
            exit_lanes(b, W, m);
        } else {
            fr->returned |= m;
            for (int i = (int)fr->simt_base; i < W->sp; i++)
                W->simt[i].mask &= ~m;
            t->pc++;
        }
        break;
    case PTX_OP_EXIT:
        if (out) {
            out->exited = 1;
            out->exit_mask = m;
        }
        t->pc++;
        exit_lanes(b, W, m);
        break;
    case PTX_OP_TRAP:
        if (m)
            return exec_fail(b, warp, __builtin_ctz(m), in, WL_EFAULT, d,
                             "trap: the kernel aborted (e.g. a failed assert)");
        t->pc++;
        break;
    case PTX_OP_BAR:
        t->pc++;
        st = exec_bar(b, warp, in, regs, m, out, d);
        break;
    case PTX_OP_NANOSLEEP:
        W->yield = 1;
        if (out)
            out->yielded = 1;
        t->pc++;
        break;
    case PTX_OP_BAR_WARP_SYNC:
        t->pc++;
        if (m)
            warp_sync(W, t, (uint32_t)XR(regs, in->o[0].slot)[__builtin_ctz(m)], m);
        break;
    case PTX_OP_MEMBAR: case PTX_OP_FENCE: case PTX_OP_BRKPT:
    case PTX_OP_PMEVENT: case PTX_OP_GRIDDEPCONTROL: case PTX_OP_PREFETCH: case PTX_OP_PREFETCHU:
    case PTX_OP_CP_ASYNC_COMMIT_GROUP: case PTX_OP_CP_ASYNC_WAIT_GROUP:
    case PTX_OP_CP_ASYNC_WAIT_ALL:
        /* fences: functional execution is sequentially consistent; cp.async copies complete
         * at once. */
        t->pc++;
        break;
    case PTX_OP_SHFL: case PTX_OP_VOTE: case PTX_OP_MATCH: case PTX_OP_REDUX:
    case PTX_OP_ACTIVEMASK: case PTX_OP_ELECT:
        t->pc++;
        st = exec_warpwide(b, warp, in, regs, active, m, d);
        break;
    case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_ST: case PTX_OP_ATOM: case PTX_OP_RED:
    case PTX_OP_CP_ASYNC: case PTX_OP_CP_ASYNC_MBAR_ARRIVE: case PTX_OP_MBAR_INIT:
    case PTX_OP_MBAR_ARRIVE: case PTX_OP_MBAR_ARRIVE_DROP: case PTX_OP_MBAR_TEST_WAIT:
    case PTX_OP_MBAR_TRY_WAIT: case PTX_OP_MBAR_INVAL: case PTX_OP_MBAR_PENDING_COUNT:
    case PTX_OP_MBAR_EXPECT_TX: case PTX_OP_MBAR_COMPLETE_TX:
        t->pc++;
        if (m)
            st = xmem_exec(b, warp, in, m, out, d);
        break;
    case PTX_OP_COUNT:
        return exec_fail(b, warp, -1, in, WL_EUNSUPPORTED, d,
                         "unsupported by the executor: an operand of '%s' (symbol or address "
                         "where a value belongs)", isa_name(in->ir->op));
    default:
        t->pc++;
        if (m)
            st = xop_exec(in, regs, m, &W->carry, d);
        break;
    }
    if (st == WL_EUNSUPPORTED && (d->line == 0 || d->file[0] == 0)) {
        char msg[sizeof d->msg];
        memcpy(msg, d->msg, sizeof msg);
        return exec_fail(b, warp, -1, in, st, d, "%s", msg);
    }
    return st;
}

static wl_status deadlock(const exec_block *b, diag_t *d)
{
    /* Name every barrier that has waiting warps (the first one gives the position). */
    char msg[900];
    size_t n = 0;
    int first = -1;
    for (int id = 0; id < 16; id++) {
        const xbar *br = &b->bars[id];
        if (!br->waiting)
            continue;
        if (first < 0)
            first = id;
        char ws[200] = "";
        size_t k = 0;
        for (int w = 0; w < b->nwarps && k + 8 < sizeof ws; w++)
            if ((br->waiting >> w) & 1)
                k += (size_t)snprintf(ws + k, sizeof ws - k, "%s%d", k ? "," : "", w);
        uint32_t need = br->expected ? br->expected : b->nthreads - b->exited;
        if (n < sizeof msg)
            n += (size_t)snprintf(msg + n, sizeof msg - n,
                                  "%sbarrier %d (line %u) can never complete: warps %s wait, %u of "
                                  "%u threads arrived", n ? "; " : "", id, br->line, ws,
                                  br->arrived, need);
    }
    if (first < 0)
        return diag_set(d, WL_EDEADLOCK, b->p->m->name, 0, 0,
                        "deadlock: no warp of block (%u,%u,%u) can make progress", b->ctaid[0],
                        b->ctaid[1], b->ctaid[2]);
    return diag_set(d, WL_EDEADLOCK, b->p->m->name, (int)b->bars[first].line,
                    (int)b->bars[first].col, "deadlock in block (%u,%u,%u): %s; %u threads exited",
                    b->ctaid[0], b->ctaid[1], b->ctaid[2], msg, b->exited);
}

wl_status exec_block_round(exec_block *b, uint64_t max_insts, int *progressed, diag_t *d)
{
    wl_status st = WL_OK;
    *progressed = 0;
    for (int w = 0; w < b->nwarps && st == WL_OK; w++) {
        xwarp *W = &b->w[w];
        if (W->state != EXEC_WARP_READY)
            continue;
        *progressed = 1;
        while (W->state == EXEC_WARP_READY) {
            st = exec_warp_step(b, w, NULL, d);
            if (st != WL_OK)
                break;
            if (b->cnt.warp_insts > max_insts) {
                st = diag_set(d, WL_EDEADLOCK, b->p->m->name, 0, 0,
                              "block (%u,%u,%u) exceeded %llu warp instructions (a runaway loop, "
                              "or a spin wait that never ends?)", b->ctaid[0], b->ctaid[1],
                              b->ctaid[2], (unsigned long long)max_insts);
                break;
            }
            if (W->yield) {
                W->yield = 0;
                break;
            }
        }
    }
    return st;
}

wl_status exec_block_stuck(const exec_block *b, diag_t *d)
{
    return deadlock(b, d);
}

void exec_counts_add(exec_counts *c, const exec_counts *x)
{
    c->warp_insts += x->warp_insts;
    c->thread_insts += x->thread_insts;
    c->branches += x->branches;
    c->divergent_branches += x->divergent_branches;
    for (int i = 0; i < PTX_OP_COUNT; i++)
        c->op_count[i] += x->op_count[i];
}

wl_status exec_block_run(exec_block *b, uint64_t max_insts, exec_counts *c, diag_t *d)
{
    wl_status st = WL_OK;
    while (!exec_block_done(b)) {
        int progressed;
        st = exec_block_round(b, max_insts, &progressed, d);
        if (st != WL_OK)
            break;
        if (!progressed && !exec_block_done(b)) {
            st = deadlock(b, d);
            break;
        }
    }
    if (c)
        exec_counts_add(c, &b->cnt);
    return st;
}
