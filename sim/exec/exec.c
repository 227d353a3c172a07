/* exec: pre-decoded programs, CTAs and their warps, and the step API (see exec.h for the model).
 * Control flow, calls and barriers are in xctl.c, warp-wide ops and special registers in
 * xwide.c, arithmetic in xop.c, memory in xmem.c. */
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
    /* an instruction the parser skipped (tensor cores, textures, ...) in k or what it calls */
    wl_status su = ptx_check_supported(m, k, d);
    if (su != WL_OK)
        return su;
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
    p->nz_mask = xfast_pick_nz_mask();
    p->nz_mask32 = xfast_pick_nz_mask32();
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
    if (st == WL_OK)
        st = xinit_clear_runs(p, ki, d);
    if (st != WL_OK) {
        exec_prog_destroy(p);
        return st;
    }
    /* Local memory per thread: every decoded function's frame once (enough for any call chain
     * without recursion), plus XRECURSION of the largest frame when some call is recursive;
     * deeper recursion faults as a stack overflow. */
    uint64_t local = 0, maxf = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (p->funcs[i].decoded) {
            local += p->funcs[i].frame_bytes;
            maxf = p->funcs[i].frame_bytes > maxf ? p->funcs[i].frame_bytes : maxf;
        }
    if (p->recursive)
        local += XRECURSION * maxf;
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
            free(p->funcs[i].immlanes);
            free(p->funcs[i].immlanes32);
            free(p->funcs[i].ukind);
            free(p->funcs[i].clear);
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
/* Register files up to this many units (4 KB per warp) are prefetched whole. */
#define XPREFETCH_UNITS 32u
/* Asks for the n register units at regs (two host lines each) in the host's L2; rw 1: to be
 * written. Changes nothing. */
#define PREFETCH_UNITS(regs, n, rw)                                                        \
    do {                                                                                   \
        for (uint32_t u_ = 0; u_ < (n); u_++) {                                            \
            __builtin_prefetch(XR(regs, u_), rw, 1);                                       \
            __builtin_prefetch(XR(regs, u_) + 8, rw, 1);                                   \
        }                                                                                  \
    } while (0)

/* Puts every warp at the kernel's first instruction with zeroed registers, local and shared
 * memory, for block index ctaid (allocations are reused). fresh: the register files were just
 * allocated (zeroed), else they hold a retired block's values. */
static void block_reset(exec_block *b, const uint32_t ctaid[3], int fresh)
{
    const exec_prog *p = b->p;
    memcpy(b->ctaid, ctaid, sizeof b->ctaid);
    b->exited = 0;
    memset(b->bars, 0, sizeof b->bars);
    memset(&b->cnt, 0, p->no_op_counts ? offsetof(exec_counts, op_count) : sizeof b->cnt);
    b->has_clock = 0;
    b->has_sm = 0;
    b->clock = b->timer_ns = 0;
    memset(b->smem, 0, p->smem_bytes);
    const xfunc *kf = &p->funcs[p->kindex];
    for (int w = 0; w < b->nwarps; w++) {
        xwarp *W = &b->w[w];
        /* Every slot a retired block can have left a value in that a new block could read: a
         * reused block equals a new one. Not needed: registers written before every read
         * (xinit.c), the immediates when no instruction writes them (they still hold the
         * kernel's constants), the scratch slots (xwide_pre writes the first ones in all 32
         * lanes before the instruction that reads them; the sink of `_` and of registers
         * nothing reads is written, never read; the others are not used), and the frames of
         * called functions (xctl_call clears a callee's registers). A new block's registers
         * are zero (exec_block_create clears their region). */
        if (!fresh && p->prefetch_reuse && kf->nregs <= XPREFETCH_UNITS) /* written soon */
            PREFETCH_UNITS(W->regs, kf->nregs, 1);
        if (!fresh) /* the registers it may read before writing them (xinit.c) */
            for (uint32_t k = 0; k < kf->nclear; k++)
                memset(XR(W->regs, kf->clear[2 * k]), 0,
                       (size_t)kf->clear[2 * k + 1] * XUNIT * sizeof *W->regs);
        if (fresh || kf->imm_clobbered)
            xctl_fill_imm(kf, W->regs);
        if (W->local)
            memset(W->local, 0, (size_t)32 * p->local_bytes);
        /* the lanes holding threads: all 32 but in a partial last warp */
        uint32_t left = (uint32_t)b->nthreads - (uint32_t)w * 32u; /* >= 1: w < nwarps */
        uint32_t live = left >= 32 ? ~0u : (1u << left) - 1u;
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

void exec_block_reset(exec_block *b, const uint32_t ctaid[3])
{
    block_reset(b, ctaid, 0);
}

void exec_prog_pass_folded(exec_prog *p)
{
    p->pass_folded = 1;
}

void exec_prog_no_op_counts(exec_prog *p)
{
    p->no_op_counts = 1;
}

void exec_prog_lean_steps(exec_prog *p)
{
    p->lean_steps = 1;
}

void exec_prog_prefetch_reuse(exec_prog *p)
{
    p->prefetch_reuse = 1;
}

void exec_prog_slots(const exec_prog *p, uint32_t *regs, uint32_t *imm, uint32_t *declared)
{
    const xfunc *kf = &p->funcs[p->kindex];
    *regs = kf->rslots;
    *imm = kf->nimm;
    *declared = p->k->nregs;
}

void exec_prog_slot_widths(const exec_prog *p, uint32_t *narrow, uint32_t *wide)
{
    const xfunc *kf = &p->funcs[p->kindex];
    *narrow = *wide = 0;
    for (uint32_t u = 0; u < kf->nregs; u++) {
        *narrow += kf->ukind[u] == XU_NARROW;
        *wide += kf->ukind[u] == XU_WIDE;
    }
}

/* A zeroed piece of a block: from the arena when there is one, else from the heap. */
static void *block_piece(hugemem_arena *a, size_t size, size_t align)
{
    return a ? hugemem_arena_alloc(a, size, align) : hugemem_zalloc(size, align);
}

exec_block *exec_block_create(const exec_prog *p, const uint32_t ctaid[3], diag_t *d)
{
    return exec_block_create_in(p, ctaid, d, NULL);
}

exec_block *exec_block_create_in(const exec_prog *p, const uint32_t ctaid[3], diag_t *d,
                                 hugemem_arena *a)
{
    exec_block *b = block_piece(a, sizeof(exec_block), _Alignof(exec_block));
    if (!b) {
        diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        return NULL;
    }
    b->arena = a != NULL;
    b->p = p;
    const uint32_t *bd = p->g.block;
    b->nthreads = bd[0] * bd[1] * bd[2];
    b->nwarps = (int)((b->nthreads + 31) / 32);
    /* 64-byte aligned for the layout of xwarp (exec_int.h) */
    b->w = block_piece(a, (size_t)b->nwarps * sizeof *b->w, _Alignof(xwarp));
    b->smem = block_piece(a, p->smem_bytes ? p->smem_bytes : 1, 64);
    if (!b->w || !b->smem) {
        exec_block_destroy(b);
        diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        return NULL;
    }
    const xfunc *kf = &p->funcs[p->kindex];
    /* the register files in one region, each 64-byte aligned: a 128-byte unit is then two host
     * lines, not three (malloc aligns to 16), and no allocator headers come between them
     * (red_shuffle and bk_transpose33 +2 %: docs/performance.md, eleventh session) */
    size_t stride = ((size_t)(kf->nslots ? kf->nslots : 1) * XUNIT * sizeof(uint64_t) + 63) &
                    ~(size_t)63;
    b->regs_mem = block_piece(a, (size_t)b->nwarps * stride, 64);
    if (!b->regs_mem) {
        exec_block_destroy(b);
        diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        return NULL;
    }
    for (int w = 0; w < b->nwarps; w++) {
        xwarp *W = &b->w[w];
        xwarp_init_stacks(W);
        W->regs_cap = kf->nslots;
        W->regs = b->regs_mem + (size_t)w * (stride / sizeof(uint64_t));
        W->local = p->local_bytes ? block_piece(a, (size_t)32 * p->local_bytes, 64) : NULL;
        if (p->local_bytes && !W->local) {
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
    block_reset(b, ctaid, 1);
    return b;
}

void exec_block_destroy(exec_block *b)
{
    if (!b)
        return;
    if (b->w)
        for (int w = 0; w < b->nwarps; w++) {
            if (b->w[w].regs_own)
                free(b->w[w].regs);
            if (!b->arena)
                free(b->w[w].local);
            xctl_free_stacks(&b->w[w]);
        }
    if (b->arena)
        return; /* the rest belongs to the arena */
    free(b->w);
    free(b->regs_mem);
    free(b->smem);
    free(b);
}

void exec_block_set_sm(exec_block *b, uint32_t smid)
{
    b->has_sm = 1;
    b->smid = smid;
}

void exec_block_set_clock(exec_block *b, uint64_t cycles, uint64_t ns)
{
    b->has_clock = 1;
    b->clock = cycles;
    b->timer_ns = ns;
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
/* The step                                                                                   */
/* ------------------------------------------------------------------------------------------ */
/* Registers an instruction reads and writes, as IR register indices (immediate and scratch slots
 * are not registers). */
int exec_dst_operands(const xinsn *in)
{
    switch (in->ir->op) {
    case PTX_OP_ST: case PTX_OP_RED: case PTX_OP_BRA: case PTX_OP_CALL: case PTX_OP_RET:
    case PTX_OP_EXIT: case PTX_OP_CP_ASYNC: case PTX_OP_MBAR_INIT: case PTX_OP_BAR_WARP_SYNC:
        return 0;
    case PTX_OP_BAR: return in->mode == PTX_BAR_RED;
    case PTX_OP_WMMA_STORE: return 0;
    case PTX_OP_WMMA_LOAD: /* its fragment: one or two VEC operands */
        return xwmma_regs(in->ir->mode & PTX_WMMA_FRAG, in->ir->type[0]) / 4;
    case PTX_OP_WMMA_MMA: return 2;
    default: return in->nops > 0 ? 1 : 0;
    }
}

int exec_operand_regs(const xop *o, uint32_t nregs, int32_t rs[4])
{
    int n = 0;
    if ((o->kind == XO_SLOT || o->kind == XO_ADDR) && o->slot >= 0 && (uint32_t)o->slot < nregs)
        rs[n++] = o->slot;
    else if (o->kind == XO_VEC)
        for (int v = 0; v < o->n && v < 4; v++)
            if (o->vec[v] >= 0 && (uint32_t)o->vec[v] < nregs)
                rs[n++] = o->vec[v];
    return n;
}

void exec_list_regs(xinsn *in, uint32_t nregs)
{
    int ndst = exec_dst_operands(in);
    in->nsrc = in->ndst = 0;
    for (int k = 0; k < in->nops; k++) {
        const xop *o = &in->o[k];
        int32_t rs[4];
        int n = exec_operand_regs(o, nregs, rs);
        for (int i = 0; i < n; i++) {
            int isdst = k < ndst && o->kind != XO_ADDR, seen = 0;
            for (int j = 0; j < (isdst ? in->ndst : in->nsrc); j++) /* each register once */
                seen |= (isdst ? in->dst[j] : in->src[j]) == rs[i];
            if (seen)
                continue;
            if (isdst && in->ndst < EXEC_MAX_REGS)
                in->dst[in->ndst++] = rs[i];
            else if (!isdst && in->nsrc < EXEC_MAX_REGS)
                in->src[in->nsrc++] = rs[i];
        }
    }
    if (in->guard >= 0 && in->nsrc < EXEC_MAX_REGS)
        in->src[in->nsrc++] = in->guard;
}

/* Makes the top SIMT entry runnable (pops finished entries, returns from calls); marks the warp
 * DONE and returns 0 when nothing is left to run. */
static int ready_slow(exec_block *b, xwarp *W)
{
    if (xctl_settle(b, W))
        return 1;
    W->state = EXEC_WARP_DONE;
    return 0;
}

static inline int ready_top(exec_block *b, xwarp *W)
{
    if (W->state != EXEC_WARP_READY)
        return 0;
    const xsimt *top = &W->simt[W->sp - 1];
    /* fast check: the top entry has lanes and an instruction to run */
    if (W->sp > 0 && top->mask != 0 && top->pc != top->rpc &&
        top->pc < b->p->funcs[W->frames[W->fp - 1].func].n)
        return 1;
    return ready_slow(b, W);
}

/* The static part of the step info: what the instruction is, before it runs. */
/* What the instruction is, before it runs (no warp: func, pc, active and live are the caller's). */
static void describe(const xinsn *in, exec_step_info *out)
{
    /* Everything but the per-lane addresses (256 bytes, filled only for memory instructions).
     * In 16-byte pieces of constant size, which the compiler writes as stores: a call to the
     * C library's memset for the whole prefix costs a host branch misprediction per warp
     * instruction (its size dispatch). */
    enum { PRE = offsetof(exec_step_info, addr), POST = offsetof(exec_step_info, addr) + 256 };
    _Static_assert(sizeof out->addr == 256, "exec_step_info.addr");
    char *o = (char *)out;
    size_t i = 0;
    for (; i + 16 <= PRE; i += 16)
        memset(o + i, 0, 16);
    memset(o + i, 0, PRE - i);
    memset(o + POST, 0, sizeof *out - POST);
    out->opcode = in->ir->op;
    out->unit = in->unit;
    out->latclass = in->lat;
    out->line = in->ir->line;
    out->col = in->ir->col;
    out->loc_line = in->ir->loc_line;
    out->nsrc = in->nsrc;
    out->ndst = in->ndst;
    /* the first 16 of each list at a constant size (no library call), the rest only for the
     * rare instruction with more (wmma.mma) */
    memcpy(out->src, in->src, 16 * sizeof *out->src);
    memcpy(out->dst, in->dst, 16 * sizeof *out->dst);
    if (in->nsrc > 16 || in->ndst > 16) {
        memcpy(out->src + 16, in->src + 16, (EXEC_MAX_REGS - 16) * sizeof *out->src);
        memcpy(out->dst + 16, in->dst + 16, (EXEC_MAX_REGS - 16) * sizeof *out->dst);
    }
}

/* The step info before the instruction runs. Lean (exec_prog_lean_steps, for steps only):
 * only what a run may set is cleared, and only what identifies the instruction and its lanes is
 * written. */
static void fill_static(int lean, const xwarp *W, const xinsn *in, exec_step_info *out)
{
    if (lean) {
        enum { M0 = offsetof(exec_step_info, mem_space), M1 = offsetof(exec_step_info, addr),
               POST = offsetof(exec_step_info, addr) + 256 };
        _Static_assert(offsetof(exec_step_info, is_branch) == POST, "exec_step_info layout");
        memset((char *)out + M0, 0, M1 - M0);
        memset((char *)out + POST, 0, sizeof *out - POST);
        /* in->op is the PTX opcode but for forms the executor rejects (PTX_OP_COUNT): the
         * IR's line is read only then */
        out->opcode = in->op < PTX_OP_COUNT ? in->op : in->ir->op;
    } else {
        describe(in, out);
    }
    out->func = W->frames[W->fp - 1].func;
    out->pc = W->simt[W->sp - 1].pc;
    out->active = W->simt[W->sp - 1].mask;
    out->live = W->live;
}

void exec_insn_describe(const exec_prog *p, int func, uint32_t pc, exec_step_info *out)
{
    describe(&p->funcs[func].ins[pc], out);
    out->func = func;
    out->pc = pc;
}

int exec_warp_peek(exec_block *b, int warp, exec_step_info *out)
{
    xwarp *W = &b->w[warp];
    if (W->state == EXEC_WARP_BARRIER) {
        /* blocked: report the instruction it will run once released, without settling */
        const xinsn *in = &b->p->funcs[W->frames[W->fp - 1].func].ins[W->simt[W->sp - 1].pc];
        if (W->simt[W->sp - 1].pc >= b->p->funcs[W->frames[W->fp - 1].func].n)
            return 0;
        fill_static(0, W, in, out);
        return 1;
    }
    if (!ready_top(b, W))
        return 0;
    const xfunc *xf = &b->p->funcs[W->frames[W->fp - 1].func];
    fill_static(0, W, &xf->ins[W->simt[W->sp - 1].pc], out);
    return 1;
}

const void *exec_warp_handle(const exec_block *b, int warp)
{
    return &b->w[warp];
}

/* The lanes of `active` whose guard predicate (if any) lets them execute. */
static inline uint32_t guarded(const exec_prog *p, const xinsn *in, const uint64_t *regs,
                               uint32_t active)
{
    if (in->guard < 0)
        return active;
    uint32_t g = in->guard_nw ? p->nz_mask32(XNC(regs, in->guard))
                              : p->nz_mask(XR(regs, in->guard));
    return active & (in->guard_neg ? ~g : g);
}

void exec_warp_prefetch_state(const void *handle)
{
    const xwarp *W = handle;
    __builtin_prefetch(W);
    __builtin_prefetch((const char *)W + 64);
}

static inline void prefetch_slot(const uint64_t *regs, int32_t slot, int nw)
{
    const uint64_t *r = XR(regs, slot);
    for (int k = 0; k < (nw ? 16 : 32); k += 8) /* 128 or 256 bytes: two or four lines */
        __builtin_prefetch(r + k, 0, 1); /* to L2: many lines, L1 is small */
}

/* The warp's next instruction (NULL when it has none) and its frame's function and registers. */
static const xinsn *next_insn(const exec_block *b, int warp, const xfunc **xfp,
                              const uint64_t **regs)
{
    const xwarp *W = &b->w[warp];
    if (W->sp < 1 || W->fp < 1)
        return NULL;
    const xframe *fr = &W->frames[W->fp - 1];
    const xfunc *xf = &b->p->funcs[fr->func];
    uint32_t pc = W->simt[W->sp - 1].pc;
    if (pc >= xf->n)
        return NULL;
    *xfp = xf;
    *regs = XR(W->regs, fr->reg_off);
    return &xf->ins[pc];
}

/* The instructions exec_warp_prefetch_data acts on: global loads and stores of the fast lane. */
static inline int global_ldst(const xinsn *in)
{
    return in->lane == XL_LDST && in->space == XS_GLOBAL;
}

void exec_warp_prefetch_data(const exec_block *b, int warp)
{
    const xwarp *W = &b->w[warp];
    const xfunc *xf;
    const uint64_t *regs;
    const xinsn *in = W->state == EXEC_WARP_READY ? next_insn(b, warp, &xf, &regs) : NULL;
    uint32_t m = W->sp >= 1 ? W->simt[W->sp - 1].mask : 0;
    if (!in || !m || !global_ldst(in))
        return;
    int ai;
    const xop *a = xaddr_opnd(in, &ai);
    if (!a || a->slot < 0 || a->nw)
        return;
    /* the lowest and the highest lane's addresses: one span when the lanes are close */
    const uint64_t *r = XR(regs, a->slot);
    uint64_t a0 = r[__builtin_ctz(m)] + (uint64_t)a->off;
    uint64_t a1 = r[31 - __builtin_clz(m)] + (uint64_t)a->off + (uint64_t)(in->w0 / 8u) * in->vec;
    if (a1 <= a0 || a1 - a0 > 512)
        return;
    const uint8_t *h = devmem_translate(b->p->mem, a0, a1 - a0);
    if (!h)
        return;
    if (in->op == PTX_OP_ST) /* to be written: asked for as such (no second request later) */
        for (uint64_t o = 0; o < a1 - a0 + 63; o += 64)
            __builtin_prefetch(h + o, 1, 3);
    else
        for (uint64_t o = 0; o < a1 - a0 + 63; o += 64)
            __builtin_prefetch(h + o, 0, 3);
}

int exec_insn_next_global(const exec_prog *p, int func, uint32_t pc)
{
    const xfunc *xf = &p->funcs[func];
    if (pc >= xf->n)
        return 1;
    /* the cases of exec_warp_step that set the pc otherwise than by t->pc++ on the stack's
     * top entry, or may (the barriers: xctl_bar, xctl_warp_sync), or fail */
    switch (xf->ins[pc].op) {
    case PTX_OP_BRA: case PTX_OP_CALL: case PTX_OP_RET: case PTX_OP_EXIT: case PTX_OP_TRAP:
    case PTX_OP_BAR: case PTX_OP_BAR_WARP_SYNC: case PTX_OP_COUNT:
        return 1;
    default:
        break;
    }
    if (pc + 1 >= xf->n)
        return 0; /* next_insn finds none */
    return global_ldst(&xf->ins[pc + 1]);
}

void exec_warp_prefetch_regs(const exec_block *b, int warp, int next_only)
{
    const xfunc *xf;
    const uint64_t *regs;
    const xinsn *next = next_insn(b, warp, &xf, &regs);
    if (!next)
        return;
    /* The whole register file of the frame when it is small (most kernels after xalloc: 5-20
     * units of 128 bytes): a warp runs several instructions in the window that follows, each
     * touching other slots, and the lines of all of them are wanted, not only the next one's
     * (red_shuffle +10 %, lat_copy +7 %: docs/performance.md, tenth session). Immediates are
     * read from the function's shared copy, scratch slots are written before they are read. */
    if (xf->nregs <= XPREFETCH_UNITS && !next_only) {
        PREFETCH_UNITS(regs, xf->nregs, 0); /* to L2: many lines, L1 is small */
        return;
    }
    /* else the next instruction's (more were tried: docs/performance.md, eighth session):
     * registers and scratch slots (immediates are read from the function's shared copy,
     * xop.cptr, which stays cached) */
    int32_t ns = (int32_t)xf->nslots;
    if (next->guard >= 0 && next->guard < ns)
        prefetch_slot(regs, next->guard, next->guard_nw);
    for (int k = 0; k < next->nops; k++) {
        const xop *o = &next->o[k];
        if (o->cptr)
            continue;
        if ((o->kind == XO_SLOT || o->kind == XO_ADDR) && o->slot >= 0 && o->slot < ns)
            prefetch_slot(regs, o->slot, o->nw);
        else if (o->kind == XO_VEC)
            for (int v = 0; v < o->n && v < 4; v++)
                if (o->vec[v] >= 0 && o->vec[v] < ns)
                    prefetch_slot(regs, o->vec[v], o->vnw[v]);
    }
}

/* An instruction's status; an unsupported form reported without a position gets the
 * instruction's. */
static wl_status step_status(const exec_block *b, int warp, const xinsn *in, wl_status st,
                             diag_t *d)
{
    if (st == WL_EUNSUPPORTED && (d->line == 0 || d->file[0] == 0)) {
        char msg[sizeof d->msg];
        memcpy(msg, d->msg, sizeof msg);
        return exec_fail(b, warp, -1, in, st, d, "%s", msg);
    }
    return st;
}

/* Counts one warp instruction of opcode op run by lanes m (exec_counts). */
static inline void count_insn(exec_block *b, unsigned op, uint32_t m)
{
    b->cnt.warp_insts++;
    b->cnt.thread_insts += m == XFULL ? 32u : (uint64_t)wl_popc32(m);
    if (op < PTX_OP_COUNT && !b->p->no_op_counts)
        b->cnt.op_count[op]++;
}

/* exec_prog_pass_folded: passes over the no-op moves at the warp's pc, counting each as
 * executed; returns how many. The warp is READY with a runnable top entry (ready_top). */
static uint32_t pass_noops(exec_block *b, xwarp *W)
{
    uint32_t n = 0;
    for (;;) {
        xsimt *t = &W->simt[W->sp - 1];
        const xinsn *in = &b->p->funcs[W->frames[W->fp - 1].func].ins[t->pc];
        if (!in->noop)
            return n;
        count_insn(b, PTX_OP_MOV, t->mask);
        t->pc++;
        n++;
        if (!ready_top(b, W))
            return n;
    }
}

wl_status exec_warp_step(exec_block *b, int warp, exec_step_info *out, diag_t *d)
{
    xwarp *W = &b->w[warp];
    uint32_t passed = 0;
    const exec_prog *p = b->p;
    xframe *fr;
    const xfunc *xf;
    xsimt *t;
    const xinsn *in = NULL;
    if (ready_top(b, W)) {
        fr = &W->frames[W->fp - 1];
        xf = &p->funcs[fr->func];
        t = &W->simt[W->sp - 1];
        in = &xf->ins[t->pc];
        if (in->noop && p->pass_folded) { /* the rare case: moves to pass over first */
            passed = pass_noops(b, W);
            in = NULL;
        }
    }
    if (W->state != EXEC_WARP_READY) {
        if (out && W->state == EXEC_WARP_DONE) {
            memset(out, 0, offsetof(exec_step_info, addr));
            out->exited = 1;
        }
        if (out) {
            out->passed = passed;
            out->ran = 0;
        }
        return WL_OK;
    }
    if (!in) { /* after passing over moves */
        fr = &W->frames[W->fp - 1];
        xf = &p->funcs[fr->func];
        t = &W->simt[W->sp - 1];
        in = &xf->ins[t->pc];
    }
    uint64_t *regs = XR(W->regs, fr->reg_off);
    uint32_t active = t->mask;
    if (in->npre)
        xwide_pre(b, warp, in, regs, active);
    uint32_t m = guarded(b->p, in, regs, active);
    if (out) {
        fill_static(p->lean_steps, W, in, out);
        out->exec_mask = m;
        out->passed = passed;
        out->ran = 1;
    }
    count_insn(b, in->op, m);
    wl_status st = WL_OK;
    switch (in->op) {
    case PTX_OP_BRA:
        if (in->flags & PTX_F_IFCVT) { /* its body is predicated instead (ptx_sched.c) */
            t->pc++;
            break;
        }
        return xctl_branch(b, warp, in, active, m, out, d);
    case PTX_OP_CALL:
        if (out)
            out->is_call = 1;
        if (m == 0) {
            t->pc++;
            return WL_OK;
        }
        return xctl_call(b, warp, in, m, d);
    case PTX_OP_RET:
        if (out)
            out->is_ret = 1;
        if (W->fp == 1) {
            if (out) {
                out->exited = 1;
                out->exit_mask = m;
            }
            t->pc++;
            xctl_exit_lanes(b, W, m);
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
        xctl_exit_lanes(b, W, m);
        break;
    case PTX_OP_TRAP:
        if (m)
            return exec_fail(b, warp, __builtin_ctz(m), in, WL_EFAULT, d,
                             "trap: the kernel aborted (e.g. a failed assert)");
        t->pc++;
        break;
    case PTX_OP_BAR:
        t->pc++;
        st = xctl_bar(b, warp, in, regs, m, out, d);
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
            xctl_warp_sync(W, t, (uint32_t)xget(&in->o[0], regs, __builtin_ctz(m)), m);
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
        st = xwide_exec(b, warp, in, regs, active, m, d);
        break;
    case PTX_OP_MMA: /* (a guard false in every lane: not executed at all) */
        t->pc++;
        if (m)
            st = xmma_exec(b, warp, in, regs, m, d);
        break;
    case PTX_OP_WMMA_MMA:
        t->pc++;
        if (m)
            st = xmma_wmma(b, warp, in, regs, m, d);
        break;
    case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_ST: case PTX_OP_ATOM: case PTX_OP_RED:
    case PTX_OP_CP_ASYNC: case PTX_OP_CP_ASYNC_MBAR_ARRIVE: case PTX_OP_MBAR_INIT:
    case PTX_OP_MBAR_ARRIVE: case PTX_OP_MBAR_ARRIVE_DROP: case PTX_OP_MBAR_TEST_WAIT:
    case PTX_OP_MBAR_TRY_WAIT: case PTX_OP_MBAR_INVAL: case PTX_OP_MBAR_PENDING_COUNT:
    case PTX_OP_MBAR_EXPECT_TX: case PTX_OP_MBAR_COMPLETE_TX:
    case PTX_OP_WMMA_LOAD: case PTX_OP_WMMA_STORE:
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
        if (m && in->fast)
            in->fast(in, regs, m);
        else if (m)
            st = xop_exec(in, regs, m, &W->carry, d);
        break;
    }
    return step_status(b, warp, in, st, d);
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

/* The functional fast lane: runs w's instructions that have a direct handler (xop_pick_fast,
 * special registers computed first as in exec_warp_step), its plain loads and stores and its
 * branches that do not diverge, without the general step's dispatch, exactly as exec_warp_step
 * would (same counts, same pc updates, same errors), until an instruction needs the general step
 * or the instruction limit is passed. The current frame, stack entry and register base stay in
 * registers (loads and stores change none of them). */
static wl_status run_fast(exec_block *b, xwarp *W, uint64_t max_insts, diag_t *d)
{
    if (W->sp < 1 || W->fp < 1)
        return WL_OK;
    const xframe *fr = &W->frames[W->fp - 1];
    const xfunc *xf = &b->p->funcs[fr->func];
    xsimt *t = &W->simt[W->sp - 1];
    uint64_t *regs = XR(W->regs, fr->reg_off);
    uint32_t active = t->mask;
    if (active == 0)
        return WL_OK;
    exec_counts *cnt = &b->cnt;
    int warp = (int)(W - b->w);
    while (t->pc != t->rpc && t->pc < xf->n && cnt->warp_insts <= max_insts) {
        const xinsn *in = &xf->ins[t->pc];
        if (in->lane == XL_NONE)
            return WL_OK;
        if (in->npre)
            xwide_pre(b, warp, in, regs, active);
        uint32_t m = guarded(b->p, in, regs, active);
        if (in->lane == XL_BRA) {
            if (m != 0 && m != active)
                return WL_OK; /* divergent: xctl_branch pushes the paths (and counts) */
            cnt->branches++;
            t->pc = m ? (uint32_t)in->target : t->pc + 1;
        } else {
            t->pc++;
        }
        count_insn(b, in->op, m);
        if (m && in->lane == XL_FAST) {
            in->fast(in, regs, m);
        } else if (m && in->lane == XL_LDST) {
            wl_status st = xmem_exec(b, warp, in, m, NULL, d);
            if (st != WL_OK)
                return step_status(b, warp, in, st, d);
        }
    }
    return WL_OK;
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
            st = run_fast(b, W, max_insts, d);
            if (st != WL_OK)
                break;
            if (b->cnt.warp_insts <= max_insts) {
                st = exec_warp_step(b, w, NULL, d);
                if (st != WL_OK)
                    break;
            }
            if (b->cnt.warp_insts > max_insts) {
                exec_step_info at;
                uint32_t line = exec_warp_peek(b, w, &at) ? at.line : 0;
                st = diag_set(d, WL_EDEADLOCK, b->p->m->name, (int)line, 0,
                              "block (%u,%u,%u) warp %d was still running at PTX line %u when the "
                              "instruction limit was reached (a runaway loop, or a spin wait that "
                              "never ends?)", b->ctaid[0], b->ctaid[1], b->ctaid[2], w, line);
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
