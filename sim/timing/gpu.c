/* gpu (tgpu_): the whole GPU for one launch: block dispatch across GPCs and SMs, the event
 * queue, and timing_run.
 *
 * Hardware ([GILMAN], hardware-numbers.md section 5): the block scheduler places each next
 * block (in blockIdx order) on the SM with the most room for more blocks of the kernel, ties
 * broken by a fixed device order; on the H200 the first wave fills a GPC's SMs with consecutive
 * blocks, then the next GPC; a block is placed as soon as a finished one frees resources.
 * Model: the first wave (cycle 0) by most-room with ties to the lowest SM index, SMs numbered
 * GPC by GPC (so ties fill one GPC before the next); residency per SM from the occupancy rules
 * (occ_compute: warps, registers, shared memory, block slots). Afterwards every SM stays full
 * until the grid runs out, so the SM that just freed a block is the one with the most room: it
 * takes the next block, which starts lat_block_launch cycles (at least one) after the old one
 * retired. Only resident blocks exist in memory: a block is created when dispatched and
 * destroyed when its last warp retires. Waves and the tail effect follow from this.
 * Simplified: the H200's real smid numbering (TPC pairs strided across GPCs) is not
 * reproduced; SM ids here are positions in GPC order. Nor is its departure from most-room: SMs
 * 124-131 get two of a kernel's first 132 blocks and eight others none
 * (gpu/microbench/placement.cu), which changes which blocks share an SM (docs/validation.md,
 * sched_uneven_b1024).
 *
 * Time: per SM, each scheduler's next evaluation cycle; the smallest (cycle, scheduler index)
 * goes first, so ties are deterministic; SMs advance together in windows (run_loop). A scheduler
 * is evaluated only at cycles where one of its warps can change state; idle cycles are never
 * visited, and a window with no wake-up at all is skipped.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "occupancy.h"
#include "timing_int.h"

/* A queue's depth as its ring holds it (an arch_t built by hand is not range-checked). */
static uint32_t ring_depth(int d)
{
    return d < 1 ? 1 : d > TIMING_QUEUE_RING ? TIMING_QUEUE_RING : (uint32_t)d;
}

/* ---- block dispatch ------------------------------------------------------------------------ */

static wl_status oom(tctx *c)
{
    return diag_set(c->d, WL_EUSAGE, NULL, 0, 0, "out of memory");
}

/* The SM with the most room for another block; -1 if none has room. */
static int most_room(const tctx *c)
{
    int best = -1, room = 0;
    for (int s = 0; s < c->nsm; s++) {
        int r = c->res->blocks_per_sm - c->sms[s].resident_blocks;
        if (r > room) {
            room = r;
            best = s;
        }
    }
    return best;
}

/* What a block grew on the heap (the block, its warps and its functional state are pieces of
 * the run's arena). */
static void block_free(tblock *b)
{
    if (b->warps)
        for (int i = 0; i < b->nwarps; i++) {
            sb_free(&b->warps[i].sb);
            free(b->warps[i].secs_heap);
        }
    exec_block_destroy(b->eb);
}

static wl_status dispatch(tctx *c, int s, uint64_t start)
{
    tsm *sm = &c->sms[s];
    uint64_t lin = c->next_block++;
    uint32_t id = (uint32_t)lin; /* records keep 32 bits of the linear id */
    const uint32_t *g = c->res->grid;
    uint32_t ctaid[3] = {(uint32_t)(lin % g[0]), (uint32_t)(lin / g[0] % g[1]),
                         (uint32_t)(lin / g[0] / g[1])};
    tblock *b = c->free_blocks;
    if (b) {
        /* a retired block, as if freshly allocated (exec_block_reset: as if created) */
        c->free_blocks = b->next_free;
        exec_block *eb = b->eb;
        tw *warps = b->warps;
        for (int i = 0; i < b->nwarps; i++) {
            /* as new, but the scoreboard keeps its (emptied) overflow list, and the sector
             * lists (written before they are read) are not cleared */
            _Static_assert(offsetof(tw, sb) + sizeof(sb_t) == offsetof(tw, secs),
                           "the scoreboard lies between the cleared fields and the sectors");
            memset(&warps[i], 0, offsetof(tw, sb));
            sb_clear(&warps[i].sb);
        }
        memset(b, 0, sizeof *b);
        b->eb = eb;
        b->warps = warps;
        exec_block_reset(eb, ctaid);
    } else {
        b = hugemem_arena_alloc(c->arena, sizeof *b, _Alignof(tblock));
        if (!b)
            return oom(c);
        b->eb = exec_block_create_in(c->prog, ctaid, c->d, c->arena);
        b->warps = hugemem_arena_alloc(c->arena, (size_t)c->warps_per_block * sizeof *b->warps,
                                       _Alignof(tw));
        if (!b->eb || !b->warps) {
            wl_status st = b->eb ? oom(c) : c->d->status;
            block_free(b);
            return st;
        }
    }
    exec_block_set_sm(b->eb, (uint32_t)s); /* %smid: where it runs */
    b->id = id;
    b->sm = (uint32_t)s;
    b->start = start;
    b->nthreads = c->threads_per_block;
    b->nwarps = c->warps_per_block;
    b->live_warps = b->nwarps;
    int k = 0;
    while (sm->blocks[k])
        k++;
    sm->blocks[k] = b;
    if (sm->resident_blocks++ == 0)
        sm->active_since = start;
    if (start < c->res->first_dispatch)
        c->res->first_dispatch = start;
    uint32_t slot = 0;
    uint64_t bage = c->age_seq++ << TW_AGE_BLOCK_SHIFT;
    for (int i = 0; i < b->nwarps; i++) {
        tw *w = &b->warps[i];
        while (sm->slot_used[slot])
            slot++;
        sm->slot_used[slot] = 1;
        w->blk = b;
        w->eb = b->eb;
        w->bw = i;
        w->xw = exec_warp_handle(b->eb, i);
        w->slot = slot;
        w->age = bage | slot;
        w->start = w->charged = start;
        w->state = TW_ACTIVE;
        w->run_reason = 0xff;
        wl_status st = sched_fetch(c, w, start);
        if (st != WL_OK)
            return st;
        sched_add_warp(c, tgpu_sp(c, (uint32_t)s, slot), w);
    }
    return WL_OK;
}

wl_status tgpu_block_done(tctx *c, tblock *b, uint64_t t)
{
    timing_result *r = c->res;
    tsm *sm = &c->sms[b->sm];
    uint32_t b_sm = b->sm;
    if (r->blocks && b->id < r->nblocks)
        r->blocks[b->id] = (timing_block_rec){b->id, b->sm, b->start, t};
    if (c->tr)
        trace_write_block(c->tr, &(trace_block){b->id, b->sm, b->start, t});
    const exec_counts *ec = exec_block_counts(b->eb);
    r->branches += ec->branches;
    r->divergent_branches += ec->divergent_branches;
    for (int k = 0; k < c->res->blocks_per_sm; k++)
        if (sm->blocks[k] == b)
            sm->blocks[k] = NULL;
    if (--sm->resident_blocks == 0)
        r->sm_active_cycles += t - sm->active_since;
    b->next_free = c->free_blocks;
    c->free_blocks = b;
    c->blocks_done++;
    if (t > r->last_retire)
        r->last_retire = t;
    /* After the first wave every SM is full until the grid runs out, so the SM with the most
     * room is the one that just freed a block: it takes the next one. */
    if (c->next_block < c->nblocks) {
        uint64_t lat = c->a->lat_block_launch > 1 ? (uint64_t)c->a->lat_block_launch : 1;
        return dispatch(c, (int)b_sm, t + lat);
    }
    return WL_OK;
}

/* ---- setup and the run --------------------------------------------------------------------- */

/* Does any function of the module read %clock, %clock64 or %globaltimer? Only then does
 * sched_fetch tell the functional engine the cycle before each step. */
static int module_reads_clock(const ptx_module *m)
{
    for (uint32_t f = 0; f < m->nfuncs; f++)
        for (uint32_t i = 0; i < m->funcs[f].nops; i++) {
            const ptx_operand *o = &m->funcs[f].ops[i];
            if (o->kind == PTX_OPND_SREG && ptx_sreg_reads_time(o->sreg))
                return 1;
        }
    return 0;
}

/* May the SMs run this module ahead of the window (run_loop)? Not when blocks can talk to each
 * other through global memory in a way whose outcome depends on the order of their accesses:
 * atomics and reductions outside shared memory, and loads or stores with a memory-ordering
 * qualifier (volatile, relaxed, acquire, release: flags and spin loops); nor when it calls
 * printf or assert. Plain loads and stores of a race-free kernel read and write the same values
 * in any order. */
static int module_ahead_safe(const ptx_module *m)
{
    for (uint32_t f = 0; f < m->nfuncs; f++)
        for (uint32_t i = 0; i < m->funcs[f].ninsns; i++) {
            const ptx_insn *ir = &m->funcs[f].insns[i];
            int shared = ir->space == PTX_SPACE_SHARED || ir->space == PTX_SPACE_SHARED_CLUSTER;
            if ((ir->op == PTX_OP_ATOM || ir->op == PTX_OP_RED) && !shared)
                return 0;
            if ((ir->op == PTX_OP_LD || ir->op == PTX_OP_ST) && !shared &&
                ir->sem != PTX_SEM_NONE && ir->sem != PTX_SEM_WEAK)
                return 0;
            /* printf's lines and the first failed assert come out in the order the functional
             * engine runs the calls: keep the window's */
            if (ir->op == PTX_OP_CALL && ir->target >= 0 && (uint32_t)ir->target < m->nfuncs &&
                m->funcs[ir->target].is_decl)
                return 0;
        }
    return 1;
}

/* The pc of the kernel's instruction at PTX file line `line`, or -1. */
static int64_t pc_at_line(const ptx_func *f, uint32_t line)
{
    for (uint32_t pc = 0; pc < f->ninsns; pc++)
        if (f->insns[pc].line == line)
            return pc;
    return -1;
}

static int cmp_spill_after(const void *x, const void *y)
{
    const spill_op *a = x, *b = y;
    /* by the instruction they follow, then in the map's order (stable: map lines are unique) */
    if (a->after_line != b->after_line)
        return a->after_line < b->after_line ? -1 : 1;
    return a->map_line < b->map_line ? -1 : a->map_line > b->map_line;
}

/* ptxas's spill code (cfg->spills; spillmap.h) as tctx's tables: each op a tstatic that
 * spill_fetch (sched.c) makes a warp's pending instruction after the one it follows; each
 * reload a scoreboard key past every register's, which the instruction of its use line waits
 * for. Errors name the map's line: a PTX line with no instruction of the kernel, or an op after
 * a branch, exit, return or barrier (it would not run where ptxas put it). */
static wl_status spill_setup(tctx *c, const timing_config *cfg)
{
    const spill_kernel *sk = cfg->spills;
    if (!sk || sk->nops == 0)
        return WL_OK;
    const ptx_func *f = c->k;
    const char *path = cfg->spills_path ? cfg->spills_path : "spill map";
    uint32_t n = sk->nops;
    c->spill_func = (uint32_t)(f - c->m->funcs);
    c->spill_frame = sk->frame;
    c->spill_ops = malloc(n * sizeof *c->spill_ops);
    c->spill_ts = calloc(n, sizeof *c->spill_ts);
    c->spill_keys = malloc(n * sizeof *c->spill_keys);
    c->spill_after = calloc(f->ninsns + 1, sizeof *c->spill_after);
    c->wait_first = calloc(f->ninsns + 1, sizeof *c->wait_first);
    c->wait_count = calloc(f->ninsns + 1, sizeof *c->wait_count);
    if (!c->spill_ops || !c->spill_ts || !c->spill_keys || !c->spill_after || !c->wait_first ||
        !c->wait_count)
        return oom(c);
    memcpy(c->spill_ops, sk->ops, n * sizeof *c->spill_ops);
    qsort(c->spill_ops, n, sizeof *c->spill_ops, cmp_spill_after);
    c->nspill = n;
    uint32_t key0 = c->nf * c->kstride; /* past every register's key */
    int64_t prev = -1;
    for (uint32_t i = 0; i < n; i++) {
        const spill_op *op = &c->spill_ops[i];
        int64_t pc = pc_at_line(f, op->after_line);
        if (pc < 0)
            return diag_set(c->d, WL_EUSAGE, path, (int)op->map_line, 0,
                            "no instruction of kernel %s at PTX line %u", f->name,
                            op->after_line);
        switch (f->insns[pc].op) {
        case PTX_OP_BRA: case PTX_OP_CALL: case PTX_OP_RET: case PTX_OP_EXIT: case PTX_OP_BAR:
        case PTX_OP_BAR_WARP_SYNC:
            return diag_set(c->d, WL_EUSAGE, path, (int)op->map_line, 0,
                            "a spill op after PTX line %u, a branch, exit, return or barrier",
                            op->after_line);
        default: break;
        }
        if (op->use_line && pc_at_line(f, op->use_line) < 0)
            return diag_set(c->d, WL_EUSAGE, path, (int)op->map_line, 0,
                            "no instruction of kernel %s at PTX line %u (the reload's use)",
                            f->name, op->use_line);
        if (pc != prev)
            c->spill_after[pc] = i + 1;
        else /* the previous op of this pc has a next one */
            c->spill_ts[i - 1].flags = D_SPILL_AFTER;
        prev = pc;
        tstatic *ts = &c->spill_ts[i];
        ts->valid = 1;
        ts->res = RES_LG;
        ts->opcode = PTX_OP_COUNT; /* not a PTX instruction: no opcode count */
        ts->line = op->after_line;
        ts->spill0 = i + 1;
        if (!op->store) { /* the reload's result, a key of its own */
            ts->ndst = 1;
            ts->dst[0] = key0 + i;
        }
    }
    /* the reloads each use line waits for, grouped by its pc */
    uint32_t nk = 0;
    for (uint32_t pc = 0; pc < f->ninsns; pc++) {
        c->wait_first[pc] = nk;
        for (uint32_t i = 0; i < n; i++)
            if (c->spill_ops[i].use_line && c->spill_ops[i].use_line == f->insns[pc].line &&
                c->wait_count[pc] < UINT16_MAX) {
                c->spill_keys[nk++] = key0 + i;
                c->wait_count[pc]++;
            }
    }
    return WL_OK;
}

static wl_status setup(tctx *c, const timing_config *cfg)
{
    const arch_t *a = c->a;
    timing_result *r = c->res;
    c->nsm = a->sm_count;
    c->nsub = a->sub_partitions > 0 ? a->sub_partitions : 1;
    c->nf = c->m->nfuncs ? c->m->nfuncs : 1;
    c->kstride = SB_SLOTS;
    for (uint32_t f = 0; f < c->m->nfuncs; f++)
        while (c->kstride < c->m->funcs[f].nregs)
            c->kstride += SB_SLOTS;
    c->reads_clock = module_reads_clock(c->m);
#if defined(__x86_64__) || defined(__i386__)
    c->avx2 = __builtin_cpu_supports("avx2");
#endif
    c->wmask = a->max_warps_per_sm / c->nsub <= 64;
    c->ahead = c->wmask && !cfg->trace_path && !cfg->no_ahead && module_ahead_safe(c->m);
    sched_init_look(c);
    sched_init_xfill(c);
    c->queue_depth = ring_depth(a->lsu_queue_depth);
    c->mio_depth = ring_depth(a->mio_queue_depth);
    /* the run's long-lived state on huge pages (hugemem.h): these arrays, and the pooled blocks
     * (dispatch) */
    if (!(c->arena = hugemem_arena_create()))
        return oom(c);
    c->sms = hugemem_arena_alloc(c->arena, (size_t)c->nsm * sizeof *c->sms, _Alignof(tsm));
    c->sp = hugemem_arena_alloc(c->arena, (size_t)c->nsm * (size_t)c->nsub * sizeof *c->sp,
                                _Alignof(tsmsp));
    c->scratch_blocks = calloc((size_t)a->max_warps_per_sm + 1, sizeof *c->scratch_blocks);
    c->pfq_cap = 3 * ((uint32_t)a->max_warps_per_sm + 1); /* three SMs' warps at most */
    c->pfq = calloc(c->pfq_cap, sizeof *c->pfq);
    c->smemo = sched_smemo_new();
    c->stat = calloc(c->nf, sizeof *c->stat);
    for (uint32_t f = 0; c->stat && f < c->m->nfuncs; f++)
        if (c->m->funcs[f].ninsns &&
            !(c->stat[f] = calloc(c->m->funcs[f].ninsns, sizeof *c->stat[f])))
            return oom(c);
    if (!c->sms || !c->sp || !c->scratch_blocks || !c->pfq || !c->stat || !c->smemo)
        return oom(c);
    int gpc = 0, left = a->gpc_count > 0 ? a->gpc_sms[0] : c->nsm;
    for (int s = 0; s < c->nsm; s++) {
        while (left == 0 && gpc + 1 < a->gpc_count)
            left = a->gpc_sms[++gpc];
        left--;
        tsm *sm = &c->sms[s];
        sm->id = s;
        sm->gpc = gpc;
        sm->slot_used = hugemem_arena_alloc(c->arena, (size_t)a->max_warps_per_sm + 1, 1);
        sm->blocks = hugemem_arena_alloc(c->arena, (size_t)r->blocks_per_sm * sizeof *sm->blocks,
                                         _Alignof(tblock *));
        if (!sm->slot_used || !sm->blocks)
            return oom(c);
        for (int k = 0; k < c->nsub; k++) {
            tsmsp *sp = &c->sp[(size_t)s * (size_t)c->nsub + (size_t)k];
            sp->id = s * c->nsub + k;
            sp->sm = sm;
            sp->sub = k;
            sm->wake[k] = T_INF;
            sp->last_slot = UINT32_MAX;
            sp->lazy = cfg->lazy_always != 0;
            sp->lite_free = a->fma_heavy_lite ? 0 : T_INF; /* one FMA pipe: "heavy" is it */
            /* ens and wres up to a multiple of SCHED_SCAN_PAD past the warps (sched_eval) */
            size_t cap = (size_t)a->max_warps_per_sm + SCHED_SCAN_PAD;
            sp->warps = hugemem_arena_alloc(
                c->arena, ((size_t)a->max_warps_per_sm + 1) * sizeof *sp->warps, 64);
            sp->ens = hugemem_arena_alloc(c->arena, cap * sizeof *sp->ens, 64);
            sp->wres = hugemem_arena_alloc(c->arena, cap, 64);
            sp->wage = hugemem_arena_alloc(c->arena, cap * sizeof *sp->wage, 64);
            sp->ns_snap = hugemem_arena_alloc(c->arena, cap * sizeof *sp->ns_snap, 64);
            if (!sp->warps || !sp->ens || !sp->wres || !sp->wage || !sp->ns_snap)
                return oom(c);
            for (size_t i = 0; i < cap; i++)
                sp->ens[i] = T_INF;
        }
    }
    if (cfg->trace_path) {
        const char *names[STALL_COUNT];
        for (int i = 0; i < STALL_COUNT; i++)
            names[i] = stall_name(i);
        uint32_t *gpcs = calloc((size_t)c->nsm, sizeof *gpcs);
        if (!gpcs)
            return oom(c);
        for (int s = 0; s < c->nsm; s++)
            gpcs[s] = (uint32_t)c->sms[s].gpc;
        trace_header h = {.kernel = c->k->name, .arch = a->name, .ptx_path = cfg->ptx_path,
                          .source = cfg->ptx_source, .sm_count = (uint32_t)c->nsm,
                          .gpc_count = (uint32_t)(a->gpc_count > 0 ? a->gpc_count : 1),
                          .sm_gpc = gpcs, .subpartitions = (uint32_t)c->nsub,
                          .warp_slots_per_sm = (uint32_t)a->max_warps_per_sm,
                          .clock_mhz = (uint32_t)a->sm_clock_mhz,
                          .grid = {r->grid[0], r->grid[1], r->grid[2]},
                          .block = {r->block[0], r->block[1], r->block[2]},
                          .n_reasons = STALL_COUNT, .reason_names = names};
        wl_status st = trace_writer_open(cfg->trace_path, &h, &c->tr, c->d);
        free(gpcs);
        if (st != WL_OK)
            return st;
    }
    c->mem = mem_create(a);
    if (!c->mem)
        return oom(c);
    mem_set_smem_pool(c->mem, c->smem_pool);
    return spill_setup(c, cfg);
}

static wl_status occupancy(tctx *c, const timing_config *cfg)
{
    timing_result *r = c->res;
    occ_input in;
    occ_input_defaults(&in);
    in.block_size = (int)c->threads_per_block;
    in.regs_per_thread = cfg->regs_per_thread;
    in.static_smem = (int)c->k->smem_static;
    in.dyn_smem = (int)cfg->dyn_smem;
    occ_result o;
    wl_status st = occ_compute(c->a, &in, &o, c->d);
    if (st != WL_OK)
        return st;
    if (o.blocks_per_sm <= 0)
        return diag_set(c->d, WL_EUSAGE, NULL, 0, 0,
                        "a block of %d threads with %d registers/thread and %d bytes of shared "
                        "memory cannot be resident on an SM of %s (limited by %s)",
                        in.block_size, in.regs_per_thread, in.static_smem + in.dyn_smem,
                        c->a->name, occ_first_limiter(o.limiters));
    r->blocks_per_sm = o.blocks_per_sm;
    r->warps_per_block = o.warps_per_block;
    r->theoretical_occupancy = o.occupancy;
    r->occupancy_limiter = occ_first_limiter(o.limiters);
    c->smem_pool = o.launch_smem_pool > 0 ? (uint32_t)o.launch_smem_pool : 0;
    return WL_OK;
}

static void finish(tctx *c, timing_result *r)
{
    /* the kernel ends when its last block has retired and its last store is acknowledged
     * (a warp leaves before that: sched.c, drain) */
    if (c->stores_done > r->last_retire && r->nblocks)
        r->last_retire = c->stores_done;
    r->cycles = r->last_retire;
    if (r->first_dispatch > r->last_retire)
        r->first_dispatch = 0;
    r->time_us = (double)(r->last_retire - r->first_dispatch) / r->clock_mhz;
    for (int i = 0; i < STALL_COUNT; i++)
        r->resident_warp_cycles += r->stalls[i];
    r->eligible_warp_cycles = r->stalls[STALL_SELECTED] + r->stalls[STALL_NOT_SELECTED];
    r->ipc = r->sm_active_cycles ? (double)r->warp_instructions / (double)r->sm_active_cycles : 0;
    r->achieved_occupancy = r->sm_active_cycles
                                ? (double)r->resident_warp_cycles / (double)r->sm_active_cycles /
                                      (double)r->max_warps_per_sm
                                : 0;
    r->branch_efficiency =
        r->branches ? 1.0 - (double)r->divergent_branches / (double)r->branches : 1.0;
    uint64_t full = (uint64_t)r->blocks_per_sm * (uint64_t)r->sm_count;
    r->waves_x100 = full ? c->nblocks * 100 / full : 0;
    mem_fill_result(c->mem, r);
}

static void teardown(tctx *c)
{
    if (c->sms)
        for (int s = 0; s < c->nsm; s++) {
            tsm *sm = &c->sms[s];
            for (int k = 0; sm->blocks && k < c->res->blocks_per_sm; k++) {
                if (sm->blocks[k])
                    block_free(sm->blocks[k]);
            }
        }
    while (c->free_blocks) {
        tblock *b = c->free_blocks;
        c->free_blocks = b->next_free;
        block_free(b);
    }
    for (uint32_t f = 0; c->stat && f < c->nf; f++)
        free(c->stat[f]);
    free(c->stat);
    hugemem_arena_destroy(c->arena); /* the SMs, schedulers and blocks */
    free(c->scratch_blocks);
    free(c->pfq);
    free(c->smemo);
    free(c->scratch_resolve);
    free(c->spill_ops);
    free(c->spill_ts);
    free(c->spill_keys);
    free(c->spill_after);
    free(c->wait_first);
    free(c->wait_count);
    mem_destroy(c->mem);
    exec_prog_destroy(c->prog);
}

/* Host-cache prefetching across SMs (changes nothing simulated). SMs are simulated one after
 * another, and by the time an SM's turn comes back its warps' data has left the host caches;
 * their first touches would be misses one after another (scheduler -> its arrays -> warp
 * record -> its stack state -> its registers). So while SM s runs, the data of the next SMs
 * is asked for, one step of that chain per SM, each step reading what the step before
 * brought in: the SM and scheduler records of s+5, the schedulers' warp arrays of s+4, and for
 * the warps that can be looked at before `end`: warp records of s+3, stack state of s+2,
 * register lines of s+1. The last three are many lines (a warp's record 10, its register
 * file 10-40): asked for all at once at the start of s's run, they waited for the host's few
 * line-fill buffers in a burst. They are queued instead (queue_warps) and asked for a few
 * warps after each of s's evaluations (run_sm; lat_copy +3 %, bk_transpose33 +1-2 %:
 * docs/performance.md, sixteenth session). */
enum { PF_SM, PF_ARRAYS };
enum { PFQ_REGS, PFQ_STATE, PFQ_WARP }; /* queued steps, in the order they are wanted */
#define PFQ_PER_EVAL 2 /* queued warps asked for after each evaluation */
static void prefetch_lines(const void *p, size_t bytes)
{
    for (size_t l = 0; l < bytes; l += 64)
        __builtin_prefetch((const char *)p + l, 0, 1); /* to L2 */
}

static void prefetch_sm(const tctx *c, int s, int stage)
{
    if (s >= c->nsm)
        return;
    const tsmsp *sps = &c->sp[(size_t)s * (size_t)c->nsub];
    if (stage == PF_SM) {
        prefetch_lines(&c->sms[s], sizeof c->sms[s]);
        prefetch_lines(sps, (size_t)c->nsub * sizeof *sps);
        return;
    }
    for (int k = 0; k < c->nsub; k++) {
        const tsmsp *sp = &sps[k];
        prefetch_lines(sp->ens, (size_t)sp->nwarps * sizeof *sp->ens);
        prefetch_lines(sp->warps, (size_t)sp->nwarps * sizeof *sp->warps);
        prefetch_lines(sp->wres, (size_t)sp->nwarps);
    }
}

/* Queues step `step` for the warps of SM s that can be looked at before `end` (the register
 * lines and the stack state only of active warps). */
static void queue_warps(tctx *c, int s, uint64_t end, uint8_t step)
{
    if (s >= c->nsm)
        return;
    const tsmsp *sps = &c->sp[(size_t)s * (size_t)c->nsub];
    for (int k = 0; k < c->nsub; k++)
        for (int i = 0; i < sps[k].nwarps; i++) {
            const tw *w = sps[k].warps[i];
            /* its record: when sched_eval looks at it (own conditions met); its registers
             * and stack state: when it can also issue, its class's queue and pipe free as the
             * wake-up scan finds them now (a warp held by a full MIO queue, bk_double16, is
             * looked at on many cycles and issues on few) */
            uint64_t e = sps[k].ens[i], qe = sps[k].qp[sps[k].wres[i]];
            /* held by its queue: the warps of the class take turns, each issues about one
             * instruction in the window, and its whole register file is more lines than
             * that one needs (bk_double16: a fifth of the run waited on such prefetches) */
            uint8_t next_only = qe > e;
            if (step != PFQ_WARP && next_only)
                e = qe;
            if (e < end && (step == PFQ_WARP || w->state == TW_ACTIVE) &&
                c->pfq_n < c->pfq_cap)
                c->pfq[c->pfq_n++] = (tpfq){w, (uint32_t)s, step, next_only};
        }
}

/* One queued step. */
static void prefetch_queued(const tctx *c, const tpfq *q)
{
    const tw *w = q->w;
    switch (q->step) {
    case PFQ_REGS:
        exec_warp_prefetch_regs(w->eb, w->bw, q->next_only);
        break;
    case PFQ_STATE:
        exec_warp_prefetch_state(w->xw);
        __builtin_prefetch(w->eb);
        /* a pending global/local store or atomic: the L1 set it will look up at issue. Its
         * fetch asked for it too, but a store usually waits for its data (a load's result)
         * and issues windows later, when that is long gone; a load issues soon after its
         * fetch. (lat_copy +5 %: docs/performance.md.) */
        if (w->has_pending && w->res == RES_LG && w->dg.mkind != MEM_LOAD)
            mem_prefetch(c->mem, q->sm, w->dg.space == PTX_SPACE_LOCAL, w->secs, w->dg.nsec);
        break;
    default: /* and the first line of secs, which a global access's coalescing writes
              * (lat_copy +3 %) */
        prefetch_lines(w, offsetof(tw, secs_in) + 64);
        break;
    }
}

/* Processes SM s's wake-ups before cycle `end`. */
static wl_status run_sm(tctx *c, const timing_config *cfg, tsm *sm, uint64_t end)
{
    wl_status st = WL_OK;
    int k = 0;
    c->burst_end = cfg->max_cycles && cfg->max_cycles < end ? cfg->max_cycles + 1 : end;
    for (uint64_t t; st == WL_OK && (t = tgpu_sm_next(c, sm, &k)) < end;) {
        tsmsp *sp = &c->sp[(size_t)sm->id * (size_t)c->nsub + (size_t)k];
        if (cfg->max_cycles && t > cfg->max_cycles)
            return diag_set(c->d, WL_EDEADLOCK, c->m->name, 0, 0,
                            "--max-cycles %llu exceeded (%llu of %llu blocks done after %llu "
                            "warp instructions): a runaway loop, or a spin wait that never "
                            "ends?", (unsigned long long)cfg->max_cycles,
                            (unsigned long long)c->blocks_done, (unsigned long long)c->nblocks,
                            (unsigned long long)c->res->warp_instructions);
        sm->wake[k] = T_INF;
        c->res->evaluations++;
        st = sched_eval(c, sp, t);
        for (int r = 0; r < PFQ_PER_EVAL && c->pfq_i < c->pfq_n; r++)
            prefetch_queued(c, &c->pfq[c->pfq_i++]);
    }
    for (; c->pfq_i < c->pfq_n; c->pfq_i++)
        prefetch_queued(c, &c->pfq[c->pfq_i]);
    return st;
}

/* SMs interact only through block dispatch (a freed SM takes the next block itself) and the
 * L2/DRAM, so they are simulated one after the other over windows of cycles: each SM's warps
 * stay in the host caches for a whole window. Each SM's L1 answers at once (it is the SM's
 * own); what a request needs from the shared L2 and DRAM is recorded and replayed at the end of
 * the window in issue-cycle order, SM order within a cycle (memsys.h, deferred mode), which is
 * what advancing all SMs one cycle at a time would do. As no L2-side access completes sooner
 * than mem_min_l2_latency (281 cycles on the H200), a window no longer than that never needs
 * an answer it has not got: the memory system's timing is exact (test_windows_exact). What
 * still depends on the window: which SM takes which block when several free one inside a
 * window (here the lower SM first, not the earlier cycle), and the order in which the
 * functional engine applies different SMs' atomics and stores to the same global words.
 * Within an SM, wake-ups are processed in (cycle, scheduler) order; the order of SMs inside a
 * window is fixed, so runs are deterministic. */
/* How many completions ahead resolve_window asks for a warp's record. */
#define RESOLVE_AHEAD 16u

/* The end of a window: the L2/DRAM work its requests left pending is replayed in cycle order
 * (mem_resolve) and the warps waiting on it get their cycles (sched_resolve, sched_settle). */
static wl_status resolve_window(tctx *c)
{
    const memsys_done *dn;
    size_t n;
    int rc = mem_resolve(c->mem, &dn, &n);
    if (rc == -2)
        return diag_set(c->d, WL_EUSAGE, NULL, 0, 0,
                        "internal: the memory requests of one window span more than 2^20 cycles");
    if (rc != 0)
        return oom(c);
    tw **ws = c->scratch_resolve;
    size_t nw = 0;
    /* the completions belong to warps all over the GPU, whose records left the host's caches
     * since their SM's turn: each is asked for RESOLVE_AHEAD completions in advance (host-cache
     * hints, changing nothing; lat_copy +6 %, docs/performance.md, tenth session) */
    for (size_t i = 0; i < n; i++) {
        tw *w = dn[i].owner;
        if (i + RESOLVE_AHEAD < n)
            prefetch_lines(dn[i + RESOLVE_AHEAD].owner, offsetof(tw, secs));
        sched_resolve(w, dn[i].token, dn[i].cycle, dn[i].store);
        if (dn[i].store && dn[i].cycle > c->stores_done)
            c->stores_done = dn[i].cycle;
        c->sms[dn[i].sm].npend--; /* (w->blk: a second dependent host-cache miss) */
        if (!w->resolving) {
            w->resolving = 1;
            if (nw == c->cap_resolve) {
                size_t nc = c->cap_resolve ? c->cap_resolve * 2 : 1024;
                tw **r = realloc(c->scratch_resolve, nc * sizeof *r);
                if (!r)
                    return oom(c);
                c->scratch_resolve = ws = r;
                c->cap_resolve = nc;
            }
            ws[nw++] = w;
        }
    }
    for (size_t i = 0; i < nw; i++) { /* in the order their first request was replayed */
        if (i + 4 < nw) /* its scheduler's record (sched_refresh) */
            __builtin_prefetch(tgpu_sp(c, ws[i + 4]->blk->sm, ws[i + 4]->slot));
        ws[i]->resolving = 0;
        sched_settle(c, ws[i]);
    }
    return WL_OK;
}

/* How many windows an SM may run ahead of the others (run_loop). */
#define AHEAD_WINDOWS 16u

/* SM sm's evaluations before `end` while each stays inside the SM (sched_ahead_safe): run_loop's
 * run-ahead. 1 when it stopped before one that does not (or at max_cycles, which its own turn
 * reports), 0 when it reached `end`. */
static int run_sm_ahead(tctx *c, const timing_config *cfg, tsm *sm, uint64_t end, wl_status *st)
{
    int k = 0, stopped = 0;
    c->burst_end = 0; /* each evaluation is checked (sched_ahead_safe) */
    for (uint64_t t; *st == WL_OK && (t = tgpu_sm_next(c, sm, &k)) < end;) {
        tsmsp *sp = &c->sp[(size_t)sm->id * (size_t)c->nsub + (size_t)k];
        if ((cfg->max_cycles && t > cfg->max_cycles) || !sched_ahead_safe(c, sp, t)) {
            stopped = 1;
            break;
        }
        sm->wake[k] = T_INF;
        c->res->evaluations++;
        c->res->ahead_evaluations++;
        *st = sched_eval(c, sp, t);
        for (int r = 0; r < PFQ_PER_EVAL && c->pfq_i < c->pfq_n; r++)
            prefetch_queued(c, &c->pfq[c->pfq_i++]);
    }
    return stopped;
}

static wl_status run_loop(tctx *c, const timing_config *cfg)
{
    wl_status st = WL_OK;
    /* no longer than the shortest L2-side latency: then no request needs the shared memory
     * system's answer inside the window that issued it, and replaying its L2/DRAM part at the
     * window's end (resolve_window) is exact */
    uint64_t lmax = mem_min_l2_latency(c->a);
    uint64_t q = cfg->window && cfg->window < lmax ? cfg->window : lmax;
    uint64_t first = 0; /* every wake-up is at or after this cycle */
    while (first != T_INF) {
        uint64_t end = first - first % q + q, next = T_INF;
        for (int s = 0; s < c->nsm && st == WL_OK; s++) {
            tsm *sm = &c->sms[s];
            prefetch_sm(c, s + 5, PF_SM);
            prefetch_sm(c, s + 4, PF_ARRAYS);
            c->pfq_n = c->pfq_i = 0;
            queue_warps(c, s + 1, end, PFQ_REGS);
            queue_warps(c, s + 2, end, PFQ_STATE);
            queue_warps(c, s + 3, end, PFQ_WARP);
            st = run_sm(c, cfg, sm, end);
            /* Run-ahead: while the SM has no request waiting for the replay, its next windows
             * need nothing from the others, as long as it issues no global or local access
             * (whose L2 part belongs to a later replay) and retires no warp (a block done takes
             * the next block: in the window's SM order, as without run-ahead). It stops before
             * the first evaluation that would; its own turn in that window goes on from there.
             * What it simulates is what its turns would have: the same results, with the SM's
             * warps in the host caches for up to AHEAD_WINDOWS windows instead of one. (The
             * functional engine applies its loads and stores earlier than the other SMs' of the
             * skipped windows: the same values in a race-free kernel; module_ahead_safe keeps
             * atomics and ordered accesses out. A kernel that faults on several SMs may report
             * another of its faults first: each is a real one.) */
            for (uint64_t e = end; c->ahead && st == WL_OK && sm->npend == 0 &&
                                   e < end + (uint64_t)AHEAD_WINDOWS * q;) {
                e += q;
                if (run_sm_ahead(c, cfg, sm, e, &st))
                    break;
            }
        }
        if (st == WL_OK)
            st = resolve_window(c);
        if (st != WL_OK)
            return st;
        for (int s = 0, k = 0; s < c->nsm; s++) {
            uint64_t t = tgpu_sm_next(c, &c->sms[s], &k);
            next = t < next ? t : next;
        }
        first = next;
        if (cfg->progress && c->res->warp_instructions >= c->progress_next) {
            c->progress_next = c->res->warp_instructions + (1u << 20);
            cfg->progress(cfg->progress_ctx, end, c->blocks_done, c->nblocks);
        }
    }
    if (c->blocks_done < c->nblocks)
        st = bar_deadlock(c, c->d);
    return st;
}

wl_status timing_run(const ptx_module *m, const ptx_func *k, const arch_t *a,
                     const timing_config *cfg, devmem_t *mem, timing_result *res, diag_t *d)
{
    memset(res, 0, sizeof *res);
    tctx c = {.a = a, .m = m, .k = k, .cfg = cfg, .res = res, .d = d};
    c.policy = cfg->policy >= 0 ? cfg->policy : sched_policy_from_name(a->sched_policy);
    if (c.policy < 0 || c.policy >= SCHED_POLICY_COUNT)
        c.policy = SCHED_GTO;
    snprintf(res->kernel, sizeof res->kernel, "%s", k->name);
    snprintf(res->arch, sizeof res->arch, "%s", a->name);
    memcpy(res->grid, cfg->grid, sizeof res->grid);
    memcpy(res->block, cfg->block, sizeof res->block);
    res->policy = c.policy;
    res->sm_count = a->sm_count;
    res->subpartitions = a->sub_partitions;
    res->clock_mhz = a->sm_clock_mhz > 0 ? a->sm_clock_mhz : 1;
    res->max_warps_per_sm = a->max_warps_per_sm;
    res->first_dispatch = T_INF;
    res->memory_model = "fixed-latency";
    c.nblocks = (uint64_t)cfg->grid[0] * cfg->grid[1] * cfg->grid[2];
    c.threads_per_block = cfg->block[0] * cfg->block[1] * cfg->block[2];
    uint32_t ws = a->warp_size > 0 ? (uint32_t)a->warp_size : 32;
    c.warps_per_block = (int)((c.threads_per_block + ws - 1) / ws);
    if (c.nblocks == 0 || c.threads_per_block == 0 || a->sm_count <= 0 || a->max_warps_per_sm <= 0)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "empty grid or block, or an arch without SMs");
    wl_status st = occupancy(&c, cfg);
    if (st != WL_OK)
        return st;
    exec_grid g = {.dyn_smem = cfg->dyn_smem, .params = cfg->params,
                   .params_size = cfg->params_size, .num_sms = a->sm_count,
                   .print = cfg->print, .print_ctx = cfg->print_ctx};
    memcpy(g.grid, cfg->grid, sizeof g.grid);
    memcpy(g.block, cfg->block, sizeof g.block);
    st = exec_prog_create(m, k, &g, mem, &c.prog, d);
    if (st == WL_OK) {
        exec_prog_pass_folded(c.prog);
        exec_prog_no_op_counts(c.prog); /* the timing model counts what it issues */
        exec_prog_lean_steps(c.prog);   /* and keeps what it derives per instruction */
        exec_prog_prefetch_reuse(c.prog); /* blocks interleaved: a reused one is cold */
        st = setup(&c, cfg);
    }
    res->nblocks = c.nblocks;
    if (st == WL_OK && c.nblocks <= (UINT64_C(1) << 22)) {
        res->blocks = calloc((size_t)c.nblocks, sizeof *res->blocks);
        if (!res->blocks)
            st = oom(&c);
    }
    for (int s; st == WL_OK && c.next_block < c.nblocks && (s = most_room(&c)) >= 0;)
        st = dispatch(&c, s, 0);
    if (st == WL_OK)
        st = run_loop(&c, cfg);
    if (st == WL_OK)
        finish(&c, res);
    wl_status tst = trace_writer_close(c.tr, res->last_retire, st == WL_OK ? d : &(diag_t){0});
    if (st == WL_OK)
        st = tst;
    teardown(&c);
    if (st != WL_OK)
        timing_result_free(res);
    return st;
}

void timing_result_free(timing_result *res)
{
    free(res->blocks);
    res->blocks = NULL;
}
