/* timing_model: micro-kernels whose cycle counts are derived by hand from the H200 arch file
 * (sim/arch/h200.ini), the stall-sum invariant, policies, determinism and the trace.
 *
 * H200 numbers used below: lat_alu 5, lat_fma 4, lat_imad 4, lat_sfu 17, lat_smem 23, lat_ldc 34
 * (the first LDC of a launch on an SM: lat_ldc_first 93),
 * smem_conflict 2, lat_barrier 13 + 2 per warp, issue intervals alu 2, fma 1 (two halves,
 * FMA-heavy and FMA-lite, one warp instruction per 2 cycles each: fma_heavy_lite = 1), sfu 8,
 * lsu 4, lsu_queue_depth 5, mio_queue_depth 12, lat_dram 664, lat_l2_near 281 (store acknowledgement).
 * Compiler model (docs/model.md): a `mov` of a constant or of a variable's address is folded
 * (not issued; its value is ready at once); 32-bit integer add/sub/mov/shl-by-constant issue to
 * the ALU or, when it is busy, to FMA-heavy; integer multiplies to FMA-heavy only; FP32 to
 * FMA-lite or FMA-heavy; a 64-bit ld.param (a pointer) and %ntid/%nctaid are constant-bank
 * loads (LDC) through the MIO, their registers released on the short scoreboard (other ld.param
 * are constant operands: ALU). Every kernel goes through ptx_schedule first, as `warplab run` does;
 * the blocks below are already in the order it chooses.
 * Common facts: the first wave starts at cycle 0; a warp's next instruction can issue the cycle
 * after the previous one; `ret` of the last lanes issues, the warp retires the next cycle
 * (no outstanding stores), so cycles = issue cycle of ret + 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "devmem.h"
#include "exec.h"
#include "ptx.h"
#include "testutil.h"
#include "timing.h"
#include "trace.h"

typedef struct {
    arch_t a;
    ptx_module *m;
    devmem_t *mem;
    const ptx_func *k;
    uint8_t params[256];
    size_t nparams;
    timing_config cfg;
    timing_result r;
    diag_t d;
    char err[1400];
} tt;

/* schedule: run ptx_schedule (the default, as `warplab run` does) or keep the PTX order
 * (`warplab run --ptx-order`). */
static void tt_open_order(tt *t, const char *text, const char *kernel, int schedule)
{
    memset(t, 0, sizeof *t);
    if (arch_load(tu_path("sim/arch"), "h200", &t->a, &t->d) != WL_OK)
        fail_msg("arch: %s", t->d.msg);
    if (ptx_parse_string(text, strlen(text), "t.ptx", &t->m, &t->d) != WL_OK ||
        (schedule && ptx_schedule(t->m, &t->d) != WL_OK)) {
        diag_format(&t->d, t->err, sizeof t->err);
        fail_msg("parse: %s", t->err);
    }
    t->k = ptx_find_func(t->m, kernel);
    if (!t->k)
        fail_msg("kernel %s not found", kernel);
    t->mem = devmem_create(0);
    t->cfg.grid[0] = t->cfg.grid[1] = t->cfg.grid[2] = 1;
    t->cfg.block[0] = 32;
    t->cfg.block[1] = t->cfg.block[2] = 1;
    t->cfg.regs_per_thread = 32;
    t->cfg.policy = -1;
}

static void tt_open(tt *t, const char *text, const char *kernel)
{
    tt_open_order(t, text, kernel, 1);
}

/* A GPU of `sms` SMs in one GPC (the H200's SMs otherwise). */
static void tt_few_sms(tt *t, int sms)
{
    t->a.sm_count = t->a.gpc_sms[0] = sms;
    t->a.gpc_count = 1;
}

/* Appends a pointer parameter to a fresh buffer of n bytes; returns its address. */
static uint64_t tt_buffer(tt *t, uint64_t n)
{
    uint64_t addr;
    if (devmem_alloc(t->mem, n, NULL, &addr, &t->d) != WL_OK)
        fail_msg("alloc: %s", t->d.msg);
    memcpy(t->params + t->nparams, &addr, 8);
    t->nparams += 8;
    return addr;
}

/* Appends a 32-bit scalar parameter. */
static void tt_param_u32(tt *t, uint32_t v)
{
    memcpy(t->params + t->nparams, &v, 4);
    t->nparams += 4;
}

static wl_status tt_run(tt *t)
{
    t->cfg.params = t->params;
    t->cfg.params_size = t->nparams ? t->nparams : 8;
    diag_clear(&t->d);
    wl_status st = timing_run(t->m, t->k, &t->a, &t->cfg, t->mem, &t->r, &t->d);
    if (st != WL_OK)
        diag_format(&t->d, t->err, sizeof t->err);
    return st;
}

static void tt_run_ok(tt *t)
{
    wl_status st = tt_run(t);
    if (st != WL_OK)
        fail_msg("timing_run: %d %s", (int)st, t->err);
    /* the invariant: every resident warp-cycle is charged to exactly one reason */
    uint64_t sum = 0;
    for (int i = 0; i < STALL_COUNT; i++)
        sum += t->r.stalls[i];
    if (sum != t->r.resident_warp_cycles)
        fail_msg("stall sum %llu != resident %llu", (unsigned long long)sum,
                 (unsigned long long)t->r.resident_warp_cycles);
    if (t->r.stalls[STALL_SELECTED] != t->r.warp_instructions)
        fail_msg("selected %llu != issued %llu", (unsigned long long)t->r.stalls[STALL_SELECTED],
                 (unsigned long long)t->r.warp_instructions);
}

static void tt_close(tt *t)
{
    timing_result_free(&t->r);
    ptx_module_free(t->m);
    devmem_destroy(t->mem);
}

/* tt_run_ok, then the result to *r (the caller frees it: timing_result_free) and t closed. */
static void tt_run_keep(tt *t, timing_result *r)
{
    tt_run_ok(t);
    *r = t->r;
    t->r.blocks = NULL; /* kept by the caller */
    tt_close(t);
}


static void expect_u64(const char *what, uint64_t got, uint64_t want)
{
    if (got != want)
        fail_msg("%s: got %llu, expected %llu", what, (unsigned long long)got,
                 (unsigned long long)want);
}

/* Two runs of one launch that must agree: cycles, every stall total, and each block's SM, start
 * and end (x is the run named `how`, y the reference). */
static void expect_same_run(const char *how, const timing_result *x, const timing_result *y)
{
    expect_u64("cycles", x->cycles, y->cycles);
    expect_u64("warp instructions", x->warp_instructions, y->warp_instructions);
    for (int i = 0; i < STALL_COUNT; i++)
        if (x->stalls[i] != y->stalls[i])
            fail_msg("stall %s: %s %llu, reference %llu", stall_name(i), how,
                     (unsigned long long)x->stalls[i], (unsigned long long)y->stalls[i]);
    for (uint64_t b = 0; b < y->nblocks; b++)
        if (x->blocks[b].sm != y->blocks[b].sm || x->blocks[b].start != y->blocks[b].start ||
            x->blocks[b].end != y->blocks[b].end)
            fail_msg("block %llu: SM %u %llu-%llu %s, reference SM %u %llu-%llu",
                     (unsigned long long)b, x->blocks[b].sm,
                     (unsigned long long)x->blocks[b].start,
                     (unsigned long long)x->blocks[b].end, how, y->blocks[b].sm,
                     (unsigned long long)y->blocks[b].start,
                     (unsigned long long)y->blocks[b].end);
}

#define HDR ".version 8.0\n.target sm_90\n.address_size 64\n"
/* Spill reloads one instruction of fma_chain may not wait for (its source register, %f2 three
 * times, is listed once): more than the model keeps beside its registers (timing_int.h:
 * TS_MAX_SRC, EXEC_MAX_REGS + 4). */
#define TS_RELOADS_OVER (EXEC_MAX_REGS + 4)

/* ---- a dependent FMA chain ------------------------------------------------------------------ */
static const char fma_chain[] = HDR
    ".visible .entry k()\n{\n .reg .f32 %f<8>;\n"
    " mov.f32 %f1, 0f3F800000;\n"       /* folded: %f1 ready at 0 */
    " fma.rn.f32 %f2, %f1, %f1, %f1;\n" /* 0 */
    " fma.rn.f32 %f3, %f2, %f2, %f2;\n" /* 4: waits 3 cycles on %f2 */
    " fma.rn.f32 %f4, %f3, %f3, %f3;\n" /* 8 */
    " fma.rn.f32 %f5, %f4, %f4, %f4;\n" /* 12 */
    " ret;\n}\n";                       /* 13; retires at 14 */

static void test_dependent_fma_chain(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, fma_chain, "k");
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 14);
    expect_u64("warp instructions", t.r.warp_instructions, 5);
    expect_u64("folded instructions", t.r.folded_instructions, 1);
    /* waits: 3 before each fma after the first (FMA 4) */
    expect_u64("wait", t.r.stalls[STALL_WAIT], 3 * 3);
    expect_u64("resident", t.r.resident_warp_cycles, 14);
    /* no --policy: the arch file's default (h200.ini: brr) */
    expect_u64("default policy", (uint64_t)t.r.policy,
               (uint64_t)sched_policy_from_name(t.a.sched_policy));
    expect_u64("h200 policy", (uint64_t)t.r.policy, SCHED_BRR);
    tt_close(&t);
}


/* The same chain in two warps (a block of 64 threads), with 1, 2, 3 and 4 schedulers per SM (a
 * warp's scheduler is its warp id modulo the count). On separate schedulers the warps run side
 * by side: 14 cycles, as one. On one scheduler warp 1 issues while warp 0 waits on its FMA:
 * warp 0 at 0, 4, 8, 12 and its ret at 13; warp 1, ready at 0 too (not selected), at 1, 5, 9,
 * then cycle 13 goes to warp 0's ret (gto: the older warp; not selected again), 14, ret 15,
 * retired at 16. Each warp waits 3 x 3 cycles either way. Also the SM's choice of the next
 * scheduler for counts other than 4 (gpu.c sm_next). Derived for gto, which it runs. */
static void test_subpartitions(void **state)
{
    (void)state;
    static const struct {
        int sub;
        uint64_t cycles, not_selected;
    } cases[] = {{1, 16, 2}, {2, 14, 0}, {3, 14, 0}, {4, 14, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tt t;
        tt_open(&t, fma_chain, "k");
        t.a.sub_partitions = cases[i].sub;
        t.cfg.block[0] = 64;
        t.cfg.policy = SCHED_GTO;
        tt_run_ok(&t);
        char what[64];
        snprintf(what, sizeof what, "cycles with %d schedulers", cases[i].sub);
        expect_u64(what, t.r.cycles, cases[i].cycles);
        snprintf(what, sizeof what, "wait with %d schedulers", cases[i].sub);
        expect_u64(what, t.r.stalls[STALL_WAIT], 2 * 3 * 3);
        snprintf(what, sizeof what, "not_selected with %d schedulers", cases[i].sub);
        expect_u64(what, t.r.stalls[STALL_NOT_SELECTED], cases[i].not_selected);
        expect_u64("warp instructions", t.r.warp_instructions, 10);
        tt_close(&t);
    }
}

/* ---- two independent chains: the same work as fma_chain's tail, overlapped ----------------- */
static const char two_chains[] = HDR
    ".visible .entry k()\n{\n .reg .f32 %f<8>;\n"
    " mov.f32 %f1, 0f3F800000;\n"       /* folded */
    " mov.f32 %f2, 0f40000000;\n"       /* folded */
    " fma.rn.f32 %f3, %f1, %f1, %f1;\n" /* 0 on FMA-lite (busy to 2), %f3 at 4 */
    " fma.rn.f32 %f4, %f2, %f2, %f2;\n" /* 1 on FMA-heavy (busy to 3), %f4 at 5 */
    " fma.rn.f32 %f5, %f3, %f3, %f3;\n" /* 2, 3 wait; 4 on FMA-lite (busy to 6) */
    " fma.rn.f32 %f6, %f4, %f4, %f4;\n" /* 5 on FMA-heavy: lite is busy */
    " ret;\n}\n";                       /* 6; retires at 7 */

static void test_independent_chains(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, two_chains, "k");
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 7);
    expect_u64("selected", t.r.stalls[STALL_SELECTED], 5);
    expect_u64("math_pipe_throttle", t.r.stalls[STALL_MATH_PIPE_THROTTLE], 0);
    expect_u64("wait", t.r.stalls[STALL_WAIT], 2);
    tt_close(&t);
}

/* ---- full pipes: independent instructions on the ALU, on FMA-heavy, and on both -------------
 * Each kernel starts with mov %r1, %tid.x (issued: a special register is not a constant) at 0,
 * on the ALU (free; busy to 2), %r1 at 5; cycles 1..4 wait. Then four independent operations:
 *  shr (ALU only, one per 2 cycles): 5, 6 wait, 7, 8 wait, 9, 10 wait, 11; ret 12
 *  mul.lo (IMAD: FMA-heavy only, one per 2 cycles): the same times
 *  add (ALU or FMA-heavy as IMAD.IADD): 5 ALU, 6 FMA-heavy, 7 ALU, 8 FMA-heavy; ret 9
 * The cycles 6, 8 and 10 wait for a pipe the warp's own previous instruction took: ptxas paces
 * those with the stall count, so they are `wait` (sched.c own_pace), not math_pipe_throttle. */
static const char *pipe_kernel(char *text, size_t size, const char *op)
{
    snprintf(text, size, HDR
             ".visible .entry k()\n{\n .reg .b32 %%r<8>;\n mov.u32 %%r1, %%tid.x;\n"
             " %s %%r2, %%r1, 1;\n %s %%r3, %%r1, 2;\n %s %%r4, %%r1, 3;\n"
             " %s %%r5, %%r1, 4;\n ret;\n}\n", op, op, op, op);
    return text;
}

static void run_pipe(const char *op, uint64_t cycles, uint64_t wait)
{
    char text[1024];
    tt t;
    tt_open(&t, pipe_kernel(text, sizeof text, op), "k");
    tt_run_ok(&t);
    expect_u64(op, t.r.cycles, cycles);
    expect_u64(op, t.r.stalls[STALL_MATH_PIPE_THROTTLE], 0);
    expect_u64(op, t.r.stalls[STALL_WAIT], wait);
    tt_close(&t);
}

/* The shr kernel in two warps on one scheduler (1 sub-partition, gto): a pipe the other warp
 * took is math_pipe_throttle. Warp 0: mov 0, waits 1..4 for %r1, shr 5, 7, 9, 11 (own pace
 * 6, 8, 10), ret 12, retired at 13. Warp 1: not selected at 0; 1 math_pipe_throttle (warp 0's
 * mov holds the ALU); mov 2; waits 3..6 for %r1; at 7, 9, 11 eligible and not selected (gto
 * keeps warp 0); at 8, 10, 12 the ALU is warp 0's: math_pipe_throttle; shr 13, 15, 17, 19 (own
 * pace 14, 16, 18), ret 20, retired at 21. Totals: selected 12, not_selected 4,
 * math_pipe_throttle 4, wait 7 + 7. Derived for gto, which it runs. */
static void test_pipe_two_warps(void **state)
{
    (void)state;
    char text[1024];
    tt t;
    tt_open(&t, pipe_kernel(text, sizeof text, "shr.u32"), "k");
    t.a.sub_partitions = 1;
    t.cfg.block[0] = 64;
    t.cfg.policy = SCHED_GTO;
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 21);
    expect_u64("selected", t.r.stalls[STALL_SELECTED], 12);
    expect_u64("not_selected", t.r.stalls[STALL_NOT_SELECTED], 4);
    expect_u64("math_pipe_throttle", t.r.stalls[STALL_MATH_PIPE_THROTTLE], 4);
    expect_u64("wait", t.r.stalls[STALL_WAIT], 14);
    expect_u64("resident", t.r.resident_warp_cycles, 13 + 21);
    tt_close(&t);
}

static void test_full_pipe(void **state)
{
    (void)state;
    run_pipe("shr.u32", 13, 4 + 3);
    run_pipe("mul.lo.u32", 13, 4 + 3);
    run_pipe("add.u32", 10, 4);
}

/* ---- tensor cores: mma.sync latency and the tensor pipe ------------------------------------
 * H200: mma16816 latency 24, pipe 6; mma1688 latency 17, pipe 4 (sim/arch/h200.ini, measured by
 * gpu/microbench/mma.cu). The movs of constants are folded.
 * dep: three m16n8k16 each reading the last's D as C: 0, 24 (waits 23), 48 (waits 23); ret 49,
 *   retired at 50 (a pending mma result does not hold the warp back: only stores drain).
 * ind: two m16n8k16 and an m16n8k8 into different registers: 0; 6 (the warp's own pipe use:
 *   5 cycles `wait`); 12 (5 more); ret 13, retired at 14.
 * one, two warps on one scheduler: warp 0 mma 0, ret 1, retired 2; warp 1 not selected at 0,
 *   the tensor pipe held by warp 0 at 1..5 (math_pipe_throttle 5), mma 6, ret 7, retired 8.
 * wdep: two wmma.mma (m16n16k16: two HMMA.16816 back to back, the result 6 + 24 cycles after
 *   issue), the second reading the first's D: 0, 30 (waits 29); ret 31, retired at 32. */
#define MMA16 "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
static const char mma_kernels[] = HDR
    ".visible .entry dep()\n{\n .reg .f32 %f<16>;\n .reg .b32 %r<4>;\n"
    " mov.b32 %r1, 1006648320;\n mov.f32 %f5, 0f00000000;\n"
    " " MMA16 "{%f1,%f2,%f3,%f4}, {%r1,%r1,%r1,%r1}, {%r1,%r1}, {%f5,%f5,%f5,%f5};\n"
    " " MMA16 "{%f1,%f2,%f3,%f4}, {%r1,%r1,%r1,%r1}, {%r1,%r1}, {%f1,%f2,%f3,%f4};\n"
    " " MMA16 "{%f1,%f2,%f3,%f4}, {%r1,%r1,%r1,%r1}, {%r1,%r1}, {%f1,%f2,%f3,%f4};\n"
    " ret;\n}\n"
    ".visible .entry ind()\n{\n .reg .f32 %f<16>;\n .reg .b32 %r<4>;\n"
    " mov.b32 %r1, 1006648320;\n mov.f32 %f5, 0f00000000;\n"
    " " MMA16 "{%f1,%f2,%f3,%f4}, {%r1,%r1,%r1,%r1}, {%r1,%r1}, {%f5,%f5,%f5,%f5};\n"
    " " MMA16 "{%f6,%f7,%f8,%f9}, {%r1,%r1,%r1,%r1}, {%r1,%r1}, {%f5,%f5,%f5,%f5};\n"
    " mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f10,%f11,%f12,%f13}, {%r1,%r1}, {%r1},"
    " {%f5,%f5,%f5,%f5};\n"
    " ret;\n}\n"
    ".visible .entry one()\n{\n .reg .f32 %f<16>;\n .reg .b32 %r<4>;\n"
    " mov.b32 %r1, 1006648320;\n mov.f32 %f5, 0f00000000;\n"
    " " MMA16 "{%f1,%f2,%f3,%f4}, {%r1,%r1,%r1,%r1}, {%r1,%r1}, {%f5,%f5,%f5,%f5};\n"
    " ret;\n}\n"
    ".visible .entry wdep()\n{\n .reg .f32 %f<16>;\n .reg .b32 %r<4>;\n"
    " mov.b32 %r1, 1006648320;\n mov.f32 %f1, 0f00000000;\n"
    " wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2,%f3,%f4,%f5,%f6,%f7,%f8,%f9},"
    " {%r1,%r1,%r1,%r1,%r1,%r1,%r1,%r1}, {%r1,%r1,%r1,%r1,%r1,%r1,%r1,%r1},"
    " {%f1,%f1,%f1,%f1,%f1,%f1,%f1,%f1};\n"
    " wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2,%f3,%f4,%f5,%f6,%f7,%f8,%f9},"
    " {%r1,%r1,%r1,%r1,%r1,%r1,%r1,%r1}, {%r1,%r1,%r1,%r1,%r1,%r1,%r1,%r1},"
    " {%f2,%f3,%f4,%f5,%f6,%f7,%f8,%f9};\n"
    " ret;\n}\n";

static void test_mma(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, mma_kernels, "dep");
    expect_u64("h200 mma16816 latency", (uint64_t)t.a.lat_mma16816, 24);
    expect_u64("h200 mma16816 pipe", (uint64_t)t.a.issue_mma16816, 6);
    expect_u64("h200 mma1688 pipe", (uint64_t)t.a.issue_mma1688, 4);
    tt_run_ok(&t);
    expect_u64("dep cycles", t.r.cycles, 50);
    expect_u64("dep wait", t.r.stalls[STALL_WAIT], 2 * 23);
    expect_u64("dep warp instructions", t.r.warp_instructions, 4);
    expect_u64("dep mma count", t.r.op_count[PTX_OP_MMA], 3);
    tt_close(&t);
    tt_open(&t, mma_kernels, "ind");
    tt_run_ok(&t);
    expect_u64("ind cycles", t.r.cycles, 14);
    expect_u64("ind wait", t.r.stalls[STALL_WAIT], 5 + 5);
    expect_u64("ind math_pipe_throttle", t.r.stalls[STALL_MATH_PIPE_THROTTLE], 0);
    tt_close(&t);
    tt_open(&t, mma_kernels, "one");
    t.a.sub_partitions = 1;
    t.cfg.block[0] = 64;
    tt_run_ok(&t);
    expect_u64("two warps cycles", t.r.cycles, 8);
    expect_u64("two warps selected", t.r.stalls[STALL_SELECTED], 4);
    expect_u64("two warps not_selected", t.r.stalls[STALL_NOT_SELECTED], 1);
    expect_u64("two warps math_pipe_throttle", t.r.stalls[STALL_MATH_PIPE_THROTTLE], 5);
    expect_u64("two warps resident", t.r.resident_warp_cycles, 2 + 8);
    tt_close(&t);
    tt_open(&t, mma_kernels, "wdep");
    tt_run_ok(&t);
    expect_u64("wdep cycles", t.r.cycles, 32);
    expect_u64("wdep wait", t.r.stalls[STALL_WAIT], 29);
    expect_u64("wdep wmma count", t.r.op_count[PTX_OP_WMMA_MMA], 2);
    tt_close(&t);
}

/* ---- an unrolled loop: its control issues in one iteration of 4 ----------------------------
 * 8 iterations of fma; add; setp; @p bra (ptx_schedule marks the add, setp and bra). Control
 * issues in iterations 3 and 7 only: issued 8 fma + 2 x 3 + ret = 15; folded: the mov of a
 * constant + 6 x 3 = 19; together the 34 PTX instructions the functional engine executed. */
static const char unrolled[] = HDR
    ".visible .entry k()\n{\n .reg .f32 %f<4>;\n .reg .b32 %r<4>;\n .reg .pred %p<2>;\n"
    " mov.u32 %r1, 8;\n"
    "L:\n fma.rn.f32 %f1, %f1, %f2, %f3;\n add.s32 %r1, %r1, -1;\n"
    " setp.ne.s32 %p1, %r1, 0;\n @%p1 bra L;\n ret;\n}\n";

static void test_unrolled_loop(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, unrolled, "k");
    tt_run_ok(&t);
    expect_u64("issued", t.r.warp_instructions, 15);
    expect_u64("folded", t.r.folded_instructions, 19);
    /* the dependent fma chain sets the pace: 8 x 4 cycles, plus the two issued branches'
     * resolution; far below the 8 x (4 + 5 + 5 + 5) of issuing every iteration's control */
    if (t.r.cycles > 8 * 4 + 2 * 10 + 4)
        fail_msg("cycles %llu", (unsigned long long)t.r.cycles);
    tt_close(&t);
}

/* ---- the MIO queue: fifteen independent MUFU.EX2 on one scheduler ---------------------------
 * The SFU takes one warp instruction per 8 cycles; the MIO queue holds 12 (h200.ini
 * mio_queue_depth). The mov is folded, so ex2 #1 issues at 0 and leaves the queue at 0, #k
 * (k = 2..14) at cycle k - 1, leaving at 8 (k - 1); #14 at 13 leaves 12 queued (#3..#14); #15
 * finds the queue full on cycles 14 and 15 (mio_throttle) until #3 leaves at 16, issues at 16,
 * leaves at 112, result at 112 + 17 = 129. The add waits for it (short_scoreboard 17..128),
 * issues at 129, ret at 130, retire at 131. This case keeps the PTX order: the scheduling
 * model would issue ex2 #15, the add's only producer, first (as ptxas would), and the add
 * would not wait behind the queue. */
static const char sfu_flood[] = HDR
    ".visible .entry k()\n{\n .reg .f32 %f<20>;\n"
    " mov.f32 %f1, 0f3F800000;\n"
    " ex2.approx.f32 %f2, %f1;\n ex2.approx.f32 %f3, %f1;\n ex2.approx.f32 %f4, %f1;\n"
    " ex2.approx.f32 %f5, %f1;\n ex2.approx.f32 %f6, %f1;\n ex2.approx.f32 %f7, %f1;\n"
    " ex2.approx.f32 %f8, %f1;\n ex2.approx.f32 %f9, %f1;\n ex2.approx.f32 %f10, %f1;\n"
    " ex2.approx.f32 %f11, %f1;\n ex2.approx.f32 %f12, %f1;\n ex2.approx.f32 %f13, %f1;\n"
    " ex2.approx.f32 %f14, %f1;\n ex2.approx.f32 %f15, %f1;\n ex2.approx.f32 %f16, %f1;\n"
    " add.f32 %f17, %f16, %f1;\n"
    " ret;\n}\n";

static void test_mio_throttle(void **state)
{
    (void)state;
    tt t;
    tt_open_order(&t, sfu_flood, "k", 0);
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 131);
    expect_u64("mio_throttle", t.r.stalls[STALL_MIO_THROTTLE], 2);
    expect_u64("short_scoreboard", t.r.stalls[STALL_SHORT_SCOREBOARD], 112);
    expect_u64("wait", t.r.stalls[STALL_WAIT], 0);
    tt_close(&t);
}

/* ---- an n-way shared-memory bank conflict --------------------------------------------------
 * Lane i reads word i*n: n lanes share each bank -> n wavefronts, +2 cycles per extra way.
 *  0 mov %r1,%tid.x (ALU, at 5)   5 shl (waits 4; at 10)   mov %r3,sm is folded, and so is
 *  the add (ptxas writes LDS [R2+UR]: ptx_sched.c, PTX_F_ADDR_FOLD): %r4 ready with %r2 at 10
 *  6..9 wait, 10 ld.shared: result 10 + 23 + 2(n-1)
 *  st.shared waits for it (short_scoreboard), issues at 33 + 2(n-1); ret next; retire +1:
 *  cycles = 35 + 2(n-1); conflicts = (n-1) for the load and (n-1) for the store. */
static void run_conflict(int shift, uint64_t n)
{
    char text[1024];
    snprintf(text, sizeof text, HDR
             ".visible .entry k()\n{\n .reg .b32 %%r<8>;\n .shared .align 4 .b8 sm[8192];\n"
             " mov.u32 %%r1, %%tid.x;\n shl.b32 %%r2, %%r1, %d;\n mov.u32 %%r3, sm;\n"
             " add.u32 %%r4, %%r3, %%r2;\n ld.shared.u32 %%r5, [%%r4];\n"
             " st.shared.u32 [%%r4], %%r5;\n ret;\n}\n", shift);
    tt t;
    tt_open(&t, text, "k");
    tt_run_ok(&t);
    char what[64];
    snprintf(what, sizeof what, "%llu-way cycles", (unsigned long long)n);
    expect_u64(what, t.r.cycles, 35 + 2 * (n - 1));
    snprintf(what, sizeof what, "%llu-way conflicts", (unsigned long long)n);
    expect_u64(what, t.r.shared_bank_conflicts, 2 * (n - 1));
    expect_u64("shared requests", t.r.shared_requests, 2);
    expect_u64("folded", t.r.folded_instructions, 2);
    tt_close(&t);
}

static void test_bank_conflicts(void **state)
{
    (void)state;
    run_conflict(2, 1);  /* stride 1 word: conflict-free */
    run_conflict(3, 2);  /* stride 2 words: 2-way */
    run_conflict(5, 8);  /* stride 8: 8-way */
    run_conflict(7, 32); /* stride 32: every lane in bank 0 */
}

/* ---- one shared load, many shapes (sched.c's wavefront memo) -------------------------------
 * Four warps run the same ld.shared four times; warp w's lanes read words (lane ^ 1) * s_w +
 * 3 it (iteration it; lanes swapped in pairs, so the addresses are not on a line, which is
 * counted directly): s = 1, 32, 2, 32 for warps 0..3, so 1, 32, 2 and 32 wavefronts, whatever the
 * iteration's shift of 3 words (not a multiple of the 32 banks) does to the banks. Conflicts
 * (wavefronts - 1): (0 + 31 + 1 + 31) x 4 = 252 over 16 requests. The memo that remembers a
 * shape's count must tell the warps' shapes apart and keep a shifted one's. */
static const char smem_shapes[] = HDR
    ".visible .entry k()\n{\n .reg .pred %p<3>;\n .reg .b32 %r<20>;\n"
    " .shared .align 4 .b8 sm[8192];\n"
    " mov.u32 %r1, %tid.x;\n and.b32 %r2, %r1, 31;\n shr.u32 %r3, %r1, 5;\n"
    " and.b32 %r4, %r3, 1;\n setp.ne.u32 %p1, %r4, 0;\n shr.u32 %r5, %r3, 1;\n"
    " add.u32 %r6, %r5, 1;\n selp.u32 %r7, 32, %r6, %p1;\n xor.b32 %r16, %r2, 1;\n"
    " mul.lo.u32 %r8, %r16, %r7;\n"
    " mov.u32 %r9, sm;\n mov.u32 %r10, 0;\n"
    "L1:\n mul.lo.u32 %r11, %r10, 3;\n add.u32 %r12, %r8, %r11;\n shl.b32 %r13, %r12, 2;\n"
    " add.u32 %r14, %r9, %r13;\n ld.shared.u32 %r15, [%r14];\n add.u32 %r10, %r10, 1;\n"
    " setp.lt.u32 %p2, %r10, 4;\n @%p2 bra L1;\n ret;\n}\n";

static void test_smem_shapes(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, smem_shapes, "k");
    t.cfg.block[0] = 128;
    tt_run_ok(&t);
    expect_u64("shared requests", t.r.shared_requests, 16);
    expect_u64("bank conflicts", t.r.shared_bank_conflicts, 252);
    tt_close(&t);
}

/* ---- an if-converted branch (ptx_sched.c): every lane skips the body, which still issues ------
 * ptxas predicates a short body instead of branching around it: `@%p1 bra L` is not issued,
 * the load and the add run guarded by !%p1, with no lane on (all 32 have tid < 32).
 *  0 mov %r1,%tid.x (ALU, at 5)   5 setp (at 10)   the bra: folded
 *  10 ld.shared, predicated off: still one MIO trip, %r2 released at 10 + 23 = 33
 *  11..32 short_scoreboard, 33 add (predicated off), 34 the add after L, 35 ret, retire at 36.
 * (L is not the ret itself: a branch to the kernel's end is ptxas's `@P EXIT`, not converted.)
 * In the PTX order (no if-conversion) the branch is taken: 10 bra, branch_resolving 11..14,
 * 15 add, 16 ret, retire at 17. */
static const char ifcvt_skip[] = HDR
    ".visible .entry k()\n{\n .reg .b32 %r<4>;\n .reg .pred %p<2>;\n .shared .align 4 .b8 sm[128];\n"
    " mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 32;\n @%p1 bra L;\n"
    " ld.shared.u32 %r2, [sm];\n add.u32 %r3, %r2, 1;\n"
    "L:\n add.u32 %r3, %r1, 2;\n ret;\n}\n";

static void test_if_converted_branch(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, ifcvt_skip, "k");
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 36);
    expect_u64("short_scoreboard", t.r.stalls[STALL_SHORT_SCOREBOARD], 22);
    expect_u64("branch_resolving", t.r.stalls[STALL_BRANCH_RESOLVING], 0);
    expect_u64("warp instructions", t.r.warp_instructions, 6);
    expect_u64("thread instructions", t.r.thread_instructions, 4 * 32);
    expect_u64("folded", t.r.folded_instructions, 1);
    expect_u64("shared requests", t.r.shared_requests, 1);
    expect_u64("branches", t.r.branches, 0);
    tt_close(&t);
    tt_open_order(&t, ifcvt_skip, "k", 0);
    tt_run_ok(&t);
    expect_u64("PTX order: cycles", t.r.cycles, 17);
    expect_u64("PTX order: branch_resolving", t.r.stalls[STALL_BRANCH_RESOLVING], 4);
    expect_u64("PTX order: shared requests", t.r.shared_requests, 0);
    tt_close(&t);
}

/* ---- an integer remainder by a register: ptxas's 17 instructions ------------------------------
 * One warp (h200: ALU latency 5, issue intervals ALU 2, FMA-heavy 2, SFU 8). 0 mov (%r1 at 5),
 * 5 add (%r2 at 10), 10 rem: its first instruction (ALU, %r3 at 110), then the 16 it adds
 * (sched.c xfill_res), each an issue of its own: 11 MUFU/XU, 12 ALU, 14 ALU (ALU pipe busy at
 * 13), 15 XU, 16 ALU, 17 XU, 18 IMAD, 20, 22, 24 IMAD (the FMA-heavy pipe takes one every 2),
 * 25 ALU, 26 IMAD, 27 ALU, 28 IMAD, 29 ALU, 31 ALU (busy at 30); then the add waits for %r3
 * until 110, ret 111, retire at 112. Issues 21; wait 4 + 4 + 5 (13, 19, 21, 23, 30: pipes its
 * own previous instruction took, sched.c own_pace) + 78 (32..109). By a constant: the rem at 10
 * (%r3 at 10 + 9) and one added ALU instruction at 12 (the pipe is busy at 11, by the rem):
 * add 19, ret 20, retire at 21 (wait 4 + 4 + 1 + 6 (13..18)). No math_pipe_throttle: one warp
 * alone only ever waits for its own pipes. */
static const char rem_reg[] = HDR
    ".visible .entry k()\n{\n .reg .b32 %r<8>;\n"
    " mov.u32 %r1, %tid.x;\n add.u32 %r2, %r1, 3;\n rem.u32 %r3, %r1, %r2;\n"
    " add.u32 %r4, %r3, 1;\n ret;\n}\n";
static const char rem_imm[] = HDR
    ".visible .entry k()\n{\n .reg .b32 %r<8>;\n"
    " mov.u32 %r1, %tid.x;\n add.u32 %r2, %r1, 3;\n rem.u32 %r3, %r2, 7;\n"
    " add.u32 %r4, %r3, 1;\n ret;\n}\n";

static void test_expanded_remainder(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, rem_reg, "k");
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 112);
    expect_u64("warp instructions", t.r.warp_instructions, 21);
    expect_u64("selected", t.r.stalls[STALL_SELECTED], 21);
    expect_u64("math_pipe_throttle", t.r.stalls[STALL_MATH_PIPE_THROTTLE], 0);
    expect_u64("wait", t.r.stalls[STALL_WAIT], 91);
    expect_u64("thread instructions", t.r.thread_instructions, 21 * 32);
    tt_close(&t);
    tt_open(&t, rem_imm, "k");
    tt_run_ok(&t);
    expect_u64("by a constant: cycles", t.r.cycles, 21);
    expect_u64("by a constant: warp instructions", t.r.warp_instructions, 6);
    expect_u64("by a constant: wait", t.r.stalls[STALL_WAIT], 15);
    expect_u64("by a constant: math_pipe_throttle", t.r.stalls[STALL_MATH_PIPE_THROTTLE], 0);
    tt_close(&t);
    /* a spill store after the rem (file line 9) issues after the added instruction: at 13, so
     * the kernel ends at its acknowledgement, 13 + 281 = 294 (before it: 11 + 281) */
    spill_op op = {.store = 1, .bytes = 4, .offset = 0, .after_line = 9, .map_line = 1};
    spill_kernel sk = {.kernel = "k", .frame = 4, .ops = &op, .nops = 1};
    tt_open(&t, rem_imm, "k");
    t.cfg.spills = &sk;
    tt_run_ok(&t);
    expect_u64("spill after it: cycles", t.r.cycles, 294);
    expect_u64("spill after it: warp instructions", t.r.warp_instructions, 7);
    expect_u64("spill after it: local requests", t.r.local_requests, 1);
    tt_close(&t);
}

/* ---- a barrier with a slow warp --------------------------------------------------------------
 * Two warps (schedulers 0 and 1). Both: 0 mov, 5 setp, 10 bra (branch_resolving 11..14).
 * Warp 1 jumps to the barrier and issues bar.sync at 15. Warp 0: mov %f1 is folded, fma 15
 * (at 19), fma 19, bar.sync 20 (no register operand). Release at 20 + 13 + 2 * 2 warps = 37:
 * both ret at 37, retire at 38. Barrier cycles: warp 1 16..36 (21), warp 0 21..36 (16). */
static const char slow_barrier[] = HDR
    ".visible .entry k()\n{\n .reg .b32 %r<4>;\n .reg .f32 %f<4>;\n .reg .pred %p<2>;\n"
    " mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 32;\n @!%p1 bra SKIP;\n"
    " mov.f32 %f1, 0f3F800000;\n fma.rn.f32 %f2, %f1, %f1, %f1;\n"
    " fma.rn.f32 %f3, %f2, %f2, %f2;\n"
    "SKIP:\n bar.sync 0;\n ret;\n}\n";

static void test_barrier_slow_warp(void **state)
{
    (void)state;
    tt t;
    /* in the PTX order: ptxas would predicate this 3-instruction body (ptx_sched.c, as in
     * test_if_converted_branch); here the point is the barrier */
    tt_open_order(&t, slow_barrier, "k", 0);
    t.cfg.block[0] = 64;
    t.cfg.trace_path = getenv("TT_TRACE");
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 38);
    expect_u64("barrier", t.r.stalls[STALL_BARRIER], 21 + 16);
    expect_u64("branch_resolving", t.r.stalls[STALL_BRANCH_RESOLVING], 2 * 4);
    expect_u64("divergent branches", t.r.divergent_branches, 0);
    tt_close(&t);
}

/* ---- a warp that exits right after the barrier it completes ----------------------------------
 * Three warps. Warp 2 is late at barrier 1 (a chain of adds) and exits right after it; warp 1's
 * lane 0 is late at barrier 2 (another chain) and stores 64 to shared memory before it; warps 0
 * and 1 read the word after barrier 2 and write it out. The last warp to arrive at a barrier
 * fetches its next instruction when the barrier releases (bar.c bar_release): here warp 2's
 * exit. That exit must be counted once, when it issues: counted also at the barrier (the
 * exit mask read from the record the fetch had overwritten), barrier 2 needed 96 - 64 threads
 * and released warp 0 alone (the run stopped with "warp 0 of block 0 has no instruction to
 * issue" before the fix). */
static const char exit_after_barrier[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .pred %p<4>;\n .reg .b32 %r<8>;\n"
    " .reg .b64 %rd<4>;\n .reg .f32 %f<12>;\n .shared .align 4 .b32 sm[1];\n"
    " mov.u32 %r1, %tid.x;\n setp.ge.u32 %p1, %r1, 64;\n @!%p1 bra FAST;\n"
    " mov.f32 %f1, 0f3F800000;\n add.f32 %f2, %f1, %f1;\n add.f32 %f3, %f2, %f2;\n"
    " add.f32 %f4, %f3, %f3;\n add.f32 %f5, %f4, %f4;\n"
    "FAST:\n bar.sync 0;\n @%p1 ret;\n setp.ne.u32 %p3, %r1, 32;\n @%p3 bra SKIP;\n"
    " mov.f32 %f1, 0f3F800000;\n add.f32 %f2, %f1, %f1;\n add.f32 %f3, %f2, %f2;\n"
    " add.f32 %f4, %f3, %f3;\n add.f32 %f5, %f4, %f4;\n add.f32 %f6, %f5, %f5;\n"
    " add.f32 %f7, %f6, %f6;\n cvt.rzi.u32.f32 %r2, %f7;\n st.shared.u32 [sm], %r2;\n"
    "SKIP:\n bar.sync 0;\n ld.shared.u32 %r3, [sm];\n ld.param.u64 %rd1, [out];\n"
    " cvta.to.global.u64 %rd2, %rd1;\n mul.wide.u32 %rd3, %r1, 4;\n"
    " add.s64 %rd2, %rd2, %rd3;\n st.global.u32 [%rd2], %r3;\n ret;\n}\n";

static void test_exit_after_barrier(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, exit_after_barrier, "k");
    t.cfg.block[0] = 96;
    uint64_t out = tt_buffer(&t, 96 * 4);
    tt_run_ok(&t);
    const uint32_t *v = (const uint32_t *)(const void *)devmem_translate(t.mem, out, 96 * 4);
    for (int i = 0; i < 96; i++) /* CPU reference: 2^6 for warps 0 and 1, warp 2 writes none */
        if (v[i] != (i < 64 ? 64u : 0u))
            fail_msg("out[%d] = %u, expected %u", i, v[i], i < 64 ? 64u : 0u);
    tt_close(&t);
}

/* ---- a global load and store: long scoreboard and drain --------------------------------------
 *  0 ld.param.u64 (a pointer: an LDC through the MIO; the SM's first of the launch, so it waits
 *  for the parameter bank's fetch: ready at 0 + ldc_first 93)   1 mov %r1,%tid.x (ALU, at 6)
 *  6 mul.wide (IMAD 4, at 10)   add.s64 waits for the LDC, which comes after the product
 *  (short_scoreboard 7..92, 86 cycles), issues at 93 (64-bit: ALU, at 98)
 *  98 ld.global: 4 sectors, DRAM 664 -> 762
 *  762 st.global (long_scoreboard 99..761): the L1 stage 762, then the L1's pipeline as for a
 *  hit: it has left the SM at 763 + 32 = 795; the L2 acknowledges it at 762 + 281 = 1043
 *  763 ret; the warp drains 764..794 and retires at 795; the kernel ends at 1043, when its
 *  last store is acknowledged. */
static const char ldst_global[] = HDR
    ".visible .entry k(.param .u64 p)\n{\n .reg .b32 %r<4>;\n .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [p];\n mov.u32 %r1, %tid.x;\n mul.wide.u32 %rd2, %r1, 4;\n"
    " add.s64 %rd3, %rd1, %rd2;\n ld.global.u32 %r2, [%rd3];\n st.global.u32 [%rd3], %r2;\n"
    " ret;\n}\n";

static void test_global_load_store(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, ldst_global, "k");
    tt_buffer(&t, 4096);
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 1043);
    expect_u64("short_scoreboard", t.r.stalls[STALL_SHORT_SCOREBOARD], 86);
    expect_u64("long_scoreboard", t.r.stalls[STALL_LONG_SCOREBOARD], 663);
    expect_u64("drain", t.r.stalls[STALL_DRAIN], 31);
    expect_u64("load sectors", t.r.global_load_sectors, 4);
    expect_u64("store sectors", t.r.global_store_sectors, 4);
    expect_u64("dram bytes", t.r.dram_bytes, 128); /* load from DRAM; the store stays in L2 */
    tt_close(&t);
}

/* ---- constant-bank loads into registers (LDC): short scoreboard -------------------------------
 * In the PTX's order (no ptx_schedule): 0 ld.param.u32 (a constant operand: takes the ALU,
 *  its value ready at once)
 *  1 mov %ntid.x (LDC through the MIO, the SM's first of the launch: the parameter bank is
 *  fetched, at 1 + ldc_first 93 = 94)   add waits for it (short_scoreboard 2..93, 92 cycles),
 *  issues at 94 (at 99)   95 ld.param.u64 (LDC, the bank held: at 95 + ldc 34 = 129)
 *  st.global waits for the pointer (short_scoreboard 96..128, 33 cycles), issues at 129: the L1
 *  stage 129, it leaves the SM at 130 + 32 = 162, the L2 acknowledges it at 129 + 281 = 410
 *  130 ret; the warp drains 131..161 and retires at 162; the kernel ends at 410. */
static const char ldc_kernel[] = HDR
    ".visible .entry k(.param .u64 p, .param .u32 n)\n{\n .reg .b32 %r<4>;\n .reg .b64 %rd<2>;\n"
    " ld.param.u32 %r1, [n];\n mov.u32 %r2, %ntid.x;\n add.u32 %r3, %r1, %r2;\n"
    " ld.param.u64 %rd1, [p];\n st.global.u32 [%rd1], %r3;\n ret;\n}\n";

static void test_ldc(void **state)
{
    (void)state;
    tt t;
    tt_open_order(&t, ldc_kernel, "k", 0);
    uint64_t addr = tt_buffer(&t, 64);
    tt_param_u32(&t, 5);
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 410);
    expect_u64("selected", t.r.stalls[STALL_SELECTED], 6);
    expect_u64("short_scoreboard", t.r.stalls[STALL_SHORT_SCOREBOARD], 125);
    expect_u64("drain", t.r.stalls[STALL_DRAIN], 31);
    expect_u64("resident", t.r.resident_warp_cycles, 162);
    const uint8_t *h = devmem_translate(t.mem, addr, 4);
    uint32_t v;
    memcpy(&v, h, 4);
    expect_u64("n + blockDim.x", v, 5 + 32);
    tt_close(&t);
}

/* ---- ptxas's spill code (spillmap.h; docs/model.md, section 9) -----------------------------
 * fma_chain (file lines: 7 mov, 8-11 the four fma, 12 ret) with a spill store and a reload of
 * frame offset 0 after the first fma, the reload waited for by the third:
 *  0 fma %f2 (line 8)   1 STL: the LSU's address stage takes it at 1 (busy to 5), the L1 at 1
 *  (its line allocated, ready at 1 + 32 = 33), acknowledged by the L2 at 1 + 281 = 282
 *  2 LDL: address stage at 5 (busy), L1 at 5, a hit on the line the store wrote: 5 + 32 = 37
 *  3 fma %f3 waits on %f2 (wait 1 cycle), issues at 4   37 fma %f4 (long_scoreboard 5..36, 32
 *  cycles: the reload comes before %f3's fixed-latency wait)   41 fma %f5 (wait 38..40)
 *  42 ret: the store left the SM at 2 + 32 = 34, nothing to drain: the warp retires at 43; the
 *  kernel ends at 282, the store's acknowledgement. */
static spill_op spill_chain_ops[] = {
    {.store = 1, .bytes = 4, .offset = 0, .after_line = 8, .map_line = 1},
    {.store = 0, .bytes = 4, .offset = 0, .after_line = 8, .use_line = 10, .map_line = 2},
};

static void test_spill_code(void **state)
{
    (void)state;
    spill_kernel sk = {.kernel = "k", .frame = 4, .ops = spill_chain_ops, .nops = 2};
    tt t;
    tt_open(&t, fma_chain, "k");
    t.cfg.spills = &sk;
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 282);
    expect_u64("warp instructions", t.r.warp_instructions, 7); /* 5 PTX + 2 spill ops */
    expect_u64("wait", t.r.stalls[STALL_WAIT], 4);
    expect_u64("long_scoreboard", t.r.stalls[STALL_LONG_SCOREBOARD], 32);
    expect_u64("drain", t.r.stalls[STALL_DRAIN], 0);
    expect_u64("local requests", t.r.local_requests, 2);
    expect_u64("local sectors", t.r.local_sectors, 8); /* 32 lanes x 4 B each */
    expect_u64("fma count", t.r.op_count[PTX_OP_FMA], 4); /* spill ops count as no opcode */
    tt_close(&t);
    /* a warp of 16 threads: each op touches its 16 lanes' 64 bytes, 2 sectors */
    tt_open(&t, fma_chain, "k");
    t.cfg.spills = &sk;
    t.cfg.block[0] = 16;
    tt_run_ok(&t);
    expect_u64("local requests, 16 lanes", t.r.local_requests, 2);
    expect_u64("local sectors, 16 lanes", t.r.local_sectors, 4);
    tt_close(&t);
    /* the map names an instruction the op cannot follow, or a line without one */
    static const struct {
        uint32_t after, use;
        const char *reason;
    } bad[] = {{12, 0, "branch, exit, return or barrier"},
               {6, 0, "no instruction of kernel k at PTX line 6"},
               {8, 13, "the reload's use"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        spill_op op = {.bytes = 4, .after_line = bad[i].after, .use_line = bad[i].use,
                       .map_line = 7};
        spill_kernel one = {.kernel = "k", .frame = 4, .ops = &op, .nops = 1};
        tt_open(&t, fma_chain, "k");
        t.cfg.spills = &one;
        t.cfg.spills_path = "k.spills";
        expect_u64("status", (uint64_t)tt_run(&t), WL_EUSAGE);
        if (!strstr(t.err, bad[i].reason) || !strstr(t.err, "k.spills:7"))
            fail_msg("bad map %zu: %s", i, t.err);
        tt_close(&t);
    }
    /* more reloads waited for by one instruction than the model keeps beside its registers */
    spill_op many[TS_RELOADS_OVER];
    for (uint32_t i = 0; i < TS_RELOADS_OVER; i++)
        many[i] = (spill_op){.bytes = 4, .offset = 4 * i, .after_line = 8, .use_line = 9,
                             .map_line = i + 1};
    spill_kernel lots = {.kernel = "k", .frame = 4 * TS_RELOADS_OVER, .ops = many,
                         .nops = TS_RELOADS_OVER};
    tt_open(&t, fma_chain, "k");
    t.cfg.spills = &lots;
    t.cfg.spills_path = "k.spills";
    expect_u64("status", (uint64_t)tt_run(&t), WL_EUSAGE);
    char want[64];
    snprintf(want, sizeof want, "PTX line 9 waits for %d spill reloads", TS_RELOADS_OVER);
    if (!strstr(t.err, want) || !strstr(t.err, "k.spills"))
        fail_msg("too many waits: %s", t.err);
    tt_close(&t);
}

/* The committed map of or_regs_lb8 (gpu/ptx/occupancy_regs.spills), one warp, 0, 1 and 2 rounds
 * of its loop: each spill op runs once each time the instruction it follows runs, so the local
 * requests grow by the same count per round, and the ops before and after the loop plus those
 * of one round are every op of the map. */
static void test_spill_map_counts(void **state)
{
    (void)state;
    spillmap *map = NULL;
    diag_t d;
    diag_clear(&d);
    const char *ptx = tu_path("gpu/ptx/occupancy_regs.ptx");
    if (spillmap_load_beside(ptx, &map, &d) != WL_OK || !map)
        fail_msg("spill map: %s", d.msg);
    const spill_kernel *sk = spillmap_find(map, "or_regs_lb8");
    assert_non_null(sk);
    uint64_t req[3];
    for (int rounds = 0; rounds < 3; rounds++) {
        tt t;
        memset(&t, 0, sizeof t);
        if (arch_load(tu_path("sim/arch"), "h200", &t.a, &t.d) != WL_OK ||
            ptx_parse_file(ptx, &t.m, &t.d) != WL_OK || ptx_schedule(t.m, &t.d) != WL_OK)
            fail_msg("setup: %s", t.d.msg);
        t.k = ptx_find_func(t.m, "or_regs_lb8");
        assert_non_null(t.k);
        t.mem = devmem_create(0);
        t.cfg.grid[0] = t.cfg.grid[1] = t.cfg.grid[2] = 1;
        t.cfg.block[0] = 32;
        t.cfg.block[1] = t.cfg.block[2] = 1;
        t.cfg.regs_per_thread = 32;
        t.cfg.policy = -1;
        t.cfg.spills = sk;
        tt_buffer(&t, 72 * 32 * 4); /* in: 72 words per thread */
        tt_buffer(&t, 32 * 4);      /* out */
        int32_t n = 32;
        tt_param_u32(&t, (uint32_t)n);
        tt_param_u32(&t, (uint32_t)rounds);
        tt_run_ok(&t);
        req[rounds] = t.r.local_requests;
        tt_close(&t);
    }
    uint64_t per_round = req[1] - req[0];
    if (per_round == 0 || req[2] - req[1] != per_round || req[0] + per_round != sk->nops)
        fail_msg("local requests %llu, %llu, %llu for 0, 1, 2 rounds; %u ops in the map",
                 (unsigned long long)req[0], (unsigned long long)req[1],
                 (unsigned long long)req[2], sk->nops);
    spillmap_free(map);
}

/* ---- a divergent branch -----------------------------------------------------------------------
 * 0 mov %r1,%tid.x (at 5); 5 setp (at 10); 10 @%p1 bra: lanes 0-15 jump, 16-31 fall through;
 * the warp runs one path at a time, the taken one first (pre-Volta stack order of the
 * executor). Taken path: add at 15 (ALU, busy to 17), falls into END = the reconvergence point;
 * other path: add issues at 16 on FMA-heavy as IMAD.IADD (no wait on %r2: a fixed-latency
 * write after write does not stall), bra END at 17 (branch_resolving 18..21); ret at 22 with all
 * lanes, retire at 23. */
static const char divergent[] = HDR
    ".visible .entry k()\n{\n .reg .b32 %r<4>;\n .reg .pred %p<2>;\n"
    " mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 16;\n @%p1 bra TAKEN;\n"
    " add.u32 %r2, %r1, 1;\n bra END;\n"
    "TAKEN:\n add.u32 %r2, %r1, 2;\n"
    "END:\n ret;\n}\n";

static void test_divergent_branch(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, divergent, "k");
    t.cfg.trace_path = getenv("TT_TRACE");
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 23);
    expect_u64("math_pipe_throttle", t.r.stalls[STALL_MATH_PIPE_THROTTLE], 0);
    expect_u64("wait", t.r.stalls[STALL_WAIT], 8);
    expect_u64("warp instructions", t.r.warp_instructions, 7);
    /* mov, setp, ret: 32 lanes; the guarded bra executes for its 16 true lanes; each path 16 */
    expect_u64("thread instructions", t.r.thread_instructions, 3 * 32 + 4 * 16);
    expect_u64("branch_resolving", t.r.stalls[STALL_BRANCH_RESOLVING], 8);
    expect_u64("divergent branches", t.r.divergent_branches, 1);
    if (t.r.branch_efficiency >= 1.0)
        fail_msg("branch efficiency %f, expected < 1", t.r.branch_efficiency);
    tt_close(&t);
}

/* ---- __syncwarp in a diverged warp (independent thread scheduling) ---------------------------
 * H200: lat_its_sync 182, issue_its_sync 41 (warpsync.json). mov 0, setp 5, bra 10 (divergent;
 * branch_resolving 11-14); the taken half's bar.warp.sync at 15 (16 of 32 live lanes: the warp
 * is diverged) parks its lanes and the warp switches to the other half, whose first instruction
 * waits until 15 + 182 = 197 (branch_resolving 16-196); that half's bar.warp.sync at 197 is
 * diverged too (the unit is free again since 15 + 41), so `bra END` waits until 197 + 182 = 379;
 * ret at 384 after branch_resolving 380-383; retires at 385. The same code converged (one
 * path) would pay nothing extra for __syncwarp. */
static const char its_sync[] = HDR
    ".visible .entry k()\n{\n .reg .b32 %r<4>;\n .reg .pred %p<2>;\n"
    " mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 16;\n @%p1 bra TAKEN;\n"
    " bar.warp.sync -1;\n bra END;\n"
    "TAKEN:\n bar.warp.sync -1;\n"
    "END:\n ret;\n}\n";

static void test_divergent_syncwarp(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, its_sync, "k");
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 385);
    expect_u64("warp instructions", t.r.warp_instructions, 7);
    expect_u64("branch_resolving", t.r.stalls[STALL_BRANCH_RESOLVING], 4 + 181 + 181 + 4);
    expect_u64("wait", t.r.stalls[STALL_WAIT], 8);
    tt_close(&t);
}

/* ---- scheduler policies on a crafted case -------------------------------------------------
 * A block of 5 warps: scheduler 0 holds warps 0 and 4 (slots 0 and 4), each with three
 * independent FP32 adds (FMA pipe, one per cycle) and ret.
 * gto: warp 0 issues at 0,1,2,3 and retires at 4; warp 4 waits not_selected 0..3, issues at
 *      4..7 -> the scheduler's not_selected total is 4.
 * gty: the younger warp first: warp 4 issues at 0,1,2,3 (then greedy), warp 0 waits
 *      not_selected 0..3 and issues at 4..7 -> not_selected 4.
 * lrr: the two alternate: warp 0 at 0,2,4,6, warp 4 at 1,3,5,7 -> not_selected 4 + 3 = 7.
 * two-level: both fit the active set of 4, round robin inside it: same as lrr.
 * Every other scheduler holds one warp (never not_selected); all end at cycle 8. */
static const char five_warps[] = HDR
    ".visible .entry k()\n{\n .reg .f32 %f<8>;\n"
    " add.f32 %f2, %f1, %f1;\n add.f32 %f3, %f1, %f1;\n add.f32 %f4, %f1, %f1;\n ret;\n}\n";

static void run_policy(const char *policy, uint64_t not_selected, const uint64_t *slot0_issues)
{
    tt t;
    char path[512];
    snprintf(path, sizeof path, "%s/p.wlt", tu_tmpdir());
    tt_open(&t, five_warps, "k");
    t.cfg.block[0] = 160;
    t.cfg.policy = sched_policy_from_name(policy);
    t.cfg.trace_path = path;
    tt_run_ok(&t);
    expect_u64(policy, t.r.cycles, 8);
    expect_u64(policy, t.r.stalls[STALL_NOT_SELECTED], not_selected);
    trace_t tr;
    diag_t d;
    if (trace_open_read(path, &tr, &d) != WL_OK)
        fail_msg("trace: %s", d.msg);
    size_t a, n, b, m;
    trace_find_slot(&tr, 0, 0, &a, &n, &b, &m);
    expect_u64("slot 0 issues", m, 4);
    for (size_t i = 0; i < m; i++)
        if (tr.issues[b + i].cycle != slot0_issues[i])
            fail_msg("%s: slot 0 issue %zu at %llu, expected %llu", policy, i,
                     (unsigned long long)tr.issues[b + i].cycle,
                     (unsigned long long)slot0_issues[i]);
    trace_close(&tr);
    tt_close(&t);
}

static void test_policies(void **state)
{
    (void)state;
    static const uint64_t greedy[4] = {0, 1, 2, 3}, alternate[4] = {0, 2, 4, 6},
                          second[4] = {4, 5, 6, 7};
    run_policy("gto", 4, greedy);
    run_policy("gty", 4, second);
    run_policy("lrr", 7, alternate);
    run_policy("two-level", 7, alternate);
    run_policy("brr", 7, alternate); /* one block: round robin */
}

/* Two blocks of two warps on one SM of one scheduler (slots 0, 1: block 0; 2, 3: block 1), the
 * same four instructions each, 16 issues in all, one per cycle:
 * gto: slot 0 at 0..3, slot 1 at 4..7, slot 2 at 8..11, slot 3 at 12..15.
 * lrr: the four in turn: slot 0 at 0, 4, 8, 12; slot 2 at 2, 6, 10, 14.
 * brr: block 0's warps in turn first (slot 0 at 0, 2, 4, 6), then block 1's (slot 2 at 8, 10,
 *      12, 14). */
static void run_blocks(const char *policy, const uint64_t *s0, const uint64_t *s2)
{
    tt t;
    char path[512];
    snprintf(path, sizeof path, "%s/b.wlt", tu_tmpdir());
    tt_open(&t, five_warps, "k");
    tt_few_sms(&t, 1);
    t.a.sub_partitions = 1;
    t.cfg.grid[0] = 2;
    t.cfg.block[0] = 64;
    t.cfg.policy = sched_policy_from_name(policy);
    t.cfg.trace_path = path;
    tt_run_ok(&t);
    trace_t tr;
    diag_t d;
    if (trace_open_read(path, &tr, &d) != WL_OK)
        fail_msg("trace: %s", d.msg);
    for (uint32_t slot = 0; slot <= 2; slot += 2) {
        const uint64_t *want = slot ? s2 : s0;
        size_t a, n, b, m;
        trace_find_slot(&tr, 0, slot, &a, &n, &b, &m);
        expect_u64("issues", m, 4);
        for (size_t i = 0; i < m; i++)
            if (tr.issues[b + i].cycle != want[i])
                fail_msg("%s: slot %u issue %zu at %llu, expected %llu", policy, slot, i,
                         (unsigned long long)tr.issues[b + i].cycle,
                         (unsigned long long)want[i]);
    }
    expect_u64(policy, t.r.cycles, 16);
    trace_close(&tr);
    tt_close(&t);
}

static void test_policy_blocks(void **state)
{
    (void)state;
    static const uint64_t g0[4] = {0, 1, 2, 3}, g2[4] = {8, 9, 10, 11}, l0[4] = {0, 4, 8, 12},
                          l2[4] = {2, 6, 10, 14}, b0[4] = {0, 2, 4, 6}, b2[4] = {8, 10, 12, 14};
    run_blocks("gto", g0, g2);
    run_blocks("lrr", l0, l2);
    run_blocks("brr", b0, b2);
}

/* ---- errors: deadlock at a barrier, --max-cycles ------------------------------------------ */
static const char bar_deadlock[] = HDR
    ".visible .entry k()\n{\n .reg .b32 %r<4>;\n .reg .pred %p<2>;\n"
    " mov.u32 %r1, %tid.x;\n setp.lt.u32 %p1, %r1, 32;\n @%p1 bra DONE;\n"
    " bar.sync 1, 64;\n"
    "DONE:\n ret;\n}\n";

static void test_errors(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, bar_deadlock, "k");
    t.cfg.block[0] = 64;
    expect_u64("deadlock status", (uint64_t)tt_run(&t), WL_EDEADLOCK);
    if (!strstr(t.err, "barrier 1") || !strstr(t.err, "warps 1 wait"))
        fail_msg("deadlock message: %s", t.err);
    tt_close(&t);
    tt_open(&t, fma_chain, "k");
    t.cfg.max_cycles = 10;
    expect_u64("max-cycles status", (uint64_t)tt_run(&t), WL_EDEADLOCK);
    if (!strstr(t.err, "--max-cycles 10"))
        fail_msg("max-cycles message: %s", t.err);
    tt_close(&t);
    tt_open(&t, fma_chain, "k");
    t.cfg.trace_path = "/nonexistent-dir/t.wlt";
    expect_u64("unwritable trace", (uint64_t)tt_run(&t), WL_EUSAGE);
    if (!strstr(t.err, "cannot write trace"))
        fail_msg("trace message: %s", t.err);
    tt_close(&t);
    tt_open(&t, fma_chain, "k");
    t.cfg.regs_per_thread = 255;
    t.cfg.block[0] = 1024;
    expect_u64("too many registers", (uint64_t)tt_run(&t), WL_EUSAGE);
    if (!strstr(t.err, "cannot be resident"))
        fail_msg("residency message: %s", t.err);
    tt_close(&t);
}

/* ---- a real kernel: results, invariants, determinism, trace round trip ---------------------- */
static uint8_t *run_reduction(const char *kernel, const char *trace, size_t *trace_len,
                              timing_result *keep)
{
    size_t len;
    char *text = tu_read_file(tu_path("gpu/ptx/reduction.ptx"), &len);
    if (!text)
        fail_msg("cannot read gpu/ptx/reduction.ptx");
    char *z = realloc(text, len + 1);
    z[len] = 0;
    tt t;
    tt_open(&t, z, kernel);
    enum { B = 64, N = 256 };
    uint64_t in = tt_buffer(&t, B * N * 4), out = tt_buffer(&t, B * 4);
    uint32_t *hin = (uint32_t *)devmem_translate(t.mem, in, B * N * 4);
    for (uint32_t i = 0; i < B * N; i++)
        hin[i] = i % 1000;
    t.cfg.grid[0] = B;
    t.cfg.block[0] = N;
    t.cfg.dyn_smem = N * 4;
    t.cfg.trace_path = trace;
    tt_run_ok(&t);
    const uint32_t *hout = (const uint32_t *)devmem_translate(t.mem, out, B * 4);
    for (uint32_t b = 0; b < B; b++) {
        uint32_t want = 0;
        for (uint32_t i = 0; i < N; i++)
            want += (b * N + i) % 1000;
        if (hout[b] != want)
            fail_msg("%s block %u: sum %u, expected %u", kernel, b, hout[b], want);
    }
    expect_u64("blocks", t.r.nblocks, B);
    for (uint32_t b = 0; b < B; b++) {
        const timing_block_rec *br = &t.r.blocks[b];
        if (br->block != b || br->end <= br->start || br->end > t.r.cycles || br->sm != b)
            fail_msg("block %u record: id %u sm %u [%llu, %llu)", b, br->block, br->sm,
                     (unsigned long long)br->start, (unsigned long long)br->end);
    }
    /* a scheduler holds at most max_warps / 4 warps */
    if (t.r.sched_active_cycles == 0 ||
        (double)t.r.resident_warp_cycles / (double)t.r.sched_active_cycles >
            t.a.max_warps_per_sm / t.a.sub_partitions)
        fail_msg("active warps per scheduler %f (resident %llu / active %llu)",
                 (double)t.r.resident_warp_cycles / (double)t.r.sched_active_cycles,
                 (unsigned long long)t.r.resident_warp_cycles,
                 (unsigned long long)t.r.sched_active_cycles);
    if (t.r.achieved_occupancy <= 0 || t.r.achieved_occupancy > t.r.theoretical_occupancy + 1e-9)
        fail_msg("achieved occupancy %f (theoretical %f)", t.r.achieved_occupancy,
                 t.r.theoretical_occupancy);
    if (keep) {
        *keep = t.r;
        t.r.blocks = NULL;
    }
    tt_close(&t);
    free(z);
    return trace ? (uint8_t *)tu_read_file(trace, trace_len) : NULL;
}

static void test_real_kernel_trace(void **state)
{
    (void)state;
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/r1.wlt", tu_tmpdir());
    snprintf(p2, sizeof p2, "%s/r2.wlt", tu_tmpdir());
    size_t n1, n2;
    timing_result r;
    uint8_t *a = run_reduction("red_sequential", p1, &n1, &r);
    uint8_t *b = run_reduction("red_sequential", p2, &n2, NULL);
    if (n1 != n2 || memcmp(a, b, n1) != 0)
        fail_msg("two runs gave different traces (%zu and %zu bytes)", n1, n2);
    trace_t tr;
    diag_t d;
    if (trace_open_read(p1, &tr, &d) != WL_OK)
        fail_msg("trace: %s", d.msg);
    expect_u64("trace issues", tr.n_issues, r.warp_instructions);
    expect_u64("trace blocks", tr.n_blocks, r.nblocks);
    expect_u64("trace warps", tr.n_warps, r.nblocks * 8);
    expect_u64("trace total", tr.total_cycles, r.cycles);
    uint64_t sum = 0, per[STALL_COUNT] = {0};
    for (size_t i = 0; i < tr.n_intervals; i++) {
        sum += tr.intervals[i].end - tr.intervals[i].start;
        per[tr.intervals[i].reason] += tr.intervals[i].end - tr.intervals[i].start;
    }
    expect_u64("trace interval cycles", sum, r.resident_warp_cycles);
    for (int i = 0; i < STALL_COUNT; i++)
        expect_u64(stall_name(i), per[i], r.stalls[i]);
    /* every warp's intervals tile its resident span exactly */
    for (size_t i = 0; i < tr.n_warps; i++) {
        const trace_warp *w = &tr.warps[i];
        uint64_t cov = 0;
        for (size_t j = 0; j < tr.n_intervals; j++) {
            const trace_interval *v = &tr.intervals[j];
            if (v->sm == w->sm && v->slot == w->slot && v->start >= w->start && v->end <= w->end)
                cov += v->end - v->start;
        }
        if (cov != w->end - w->start)
            fail_msg("warp %zu (sm %u slot %u): intervals cover %llu of %llu cycles", i, w->sm,
                     w->slot, (unsigned long long)cov, (unsigned long long)(w->end - w->start));
    }
    if (r.stalls[STALL_BARRIER] == 0 || r.stalls[STALL_LONG_SCOREBOARD] == 0 ||
        r.stalls[STALL_SHORT_SCOREBOARD] == 0)
        fail_msg("reduction should stall on barrier/long/short scoreboard: %llu %llu %llu",
                 (unsigned long long)r.stalls[STALL_BARRIER],
                 (unsigned long long)r.stalls[STALL_LONG_SCOREBOARD],
                 (unsigned long long)r.stalls[STALL_SHORT_SCOREBOARD]);
    trace_close(&tr);
    free(a);
    free(b);
    /* Neither version conflicts: in red_interleaved the lanes active at stride s are
     * tid = 32w + 2sk, reading words tid and tid + s, whose banks 2sk and 2sk + s (mod 32) are
     * distinct for the 16/s active lanes. Neither diverges at its `if` either: ptxas predicates
     * the short body (ptx_sched.c), so both split a warp only at the final `if (tid == 0)`, once
     * per block. The interleaved one is slower by its `%` (a 17-instruction sequence). */
    timing_result ri;
    free(run_reduction("red_interleaved", NULL, NULL, &ri));
    if (ri.shared_bank_conflicts != 0 || r.shared_bank_conflicts != 0)
        fail_msg("bank conflicts: interleaved %llu, sequential %llu",
                 (unsigned long long)ri.shared_bank_conflicts,
                 (unsigned long long)r.shared_bank_conflicts);
    if (ri.divergent_branches != r.divergent_branches || r.divergent_branches == 0 ||
        !(ri.cycles > r.cycles))
        fail_msg("divergent branches: interleaved %llu, sequential %llu; cycles %llu, %llu",
                 (unsigned long long)ri.divergent_branches,
                 (unsigned long long)r.divergent_branches, (unsigned long long)ri.cycles,
                 (unsigned long long)r.cycles);
    timing_result rs;
    free(run_reduction("red_shuffle", NULL, NULL, &rs));
    timing_result_free(&r);
    timing_result_free(&ri);
    timing_result_free(&rs);
}

/* ---- idle cycles are skipped: one thread chasing pointers ------------------------------------
 * 100000 dependent loads, each at least an L1 hit (32 cycles): millions of cycles, yet the
 * schedulers are evaluated about once per instruction, never once per idle cycle. */
static const char chase[] = HDR
    ".visible .entry k(.param .u64 p, .param .u32 n)\n{\n .reg .b64 %rd<4>;\n"
    " .reg .b32 %r<4>;\n .reg .pred %p<2>;\n"
    " ld.param.u64 %rd1, [p];\n ld.param.u32 %r1, [n];\n mov.u32 %r2, 0;\n"
    "LOOP:\n ld.global.u64 %rd1, [%rd1];\n add.u32 %r2, %r2, 1;\n"
    " setp.lt.u32 %p1, %r2, %r1;\n @%p1 bra LOOP;\n ret;\n}\n";

static void test_idle_cycles_skipped(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, chase, "k");
    t.cfg.block[0] = 1;
    uint64_t base = tt_buffer(&t, 64 * 8);
    uint64_t *h = (uint64_t *)devmem_translate(t.mem, base, 64 * 8);
    for (int i = 0; i < 64; i++)
        h[i] = base + (uint64_t)((i + 1) % 64) * 8;
    uint32_t n = 100000;
    tt_param_u32(&t, n);
    tt_run_ok(&t);
    if (t.r.cycles < (uint64_t)n * (uint64_t)t.a.lat_l1_hit)
        fail_msg("cycles %llu < %u hops x %d", (unsigned long long)t.r.cycles, n, t.a.lat_l1_hit);
    if (t.r.evaluations > 2 * t.r.warp_instructions)
        fail_msg("%llu evaluations for %llu instructions over %llu cycles",
                 (unsigned long long)t.r.evaluations, (unsigned long long)t.r.warp_instructions,
                 (unsigned long long)t.r.cycles);
    /* ld.param x2, then per hop the load and, in one hop of 4, the loop control (add, setp,
     * bra: a small counted loop ptxas unrolls), ret; mov %r2, 0 and the other control folded */
    expect_u64("instructions", t.r.warp_instructions, 2 + (uint64_t)n + 3 * (uint64_t)n / 4 + 1);
    expect_u64("folded", t.r.folded_instructions, 1 + 3 * 3 * (uint64_t)n / 4);
    tt_close(&t);
}


/* ---- %clock64 reads the simulated cycle --------------------------------------------------------
 * A clock read returns the first cycle it can issue: the warp's start for its first instruction,
 * else the cycle after the previous issue. Here: the first read issues at 0; the three dependent
 * FMAs at 1, 5, 9 (lat_fma 4); the second read is fetched when the last FMA issues and reads 10. */
static const char clock_chain[] = HDR
    ".visible .entry k(.param .u64 p)\n{\n .reg .f32 %f<8>;\n .reg .b64 %rd<6>;\n"
    " mov.u64 %rd2, %clock64;\n mov.f32 %f1, 0f3F800000;\n"
    " fma.rn.f32 %f2, %f1, %f1, %f1;\n fma.rn.f32 %f3, %f2, %f2, %f2;\n"
    " fma.rn.f32 %f4, %f3, %f3, %f3;\n mov.u64 %rd3, %clock64;\n"
    " ld.param.u64 %rd1, [p];\n sub.s64 %rd4, %rd3, %rd2;\n st.global.u64 [%rd1], %rd4;\n"
    " ret;\n}\n";

static void test_clock_reads(void **state)
{
    (void)state;
    tt t;
    tt_open_order(&t, clock_chain, "k", 0);
    uint64_t addr = tt_buffer(&t, 8);
    tt_run_ok(&t);
    uint64_t v;
    memcpy(&v, devmem_translate(t.mem, addr, 8), 8);
    expect_u64("clock64 difference", v, 10);
    tt_close(&t);
}

/* ---- %smid reads the SM the block runs on ----------------------------------------------------
 * 400 blocks of 1024 threads (two resident per SM, so 136 wait for a free SM); block i first
 * loops (i * 7) % 13 times, so blocks finish out of order and the late blocks land on SMs that
 * are not i % 132 (what a functional run reports). Thread 0 stores %smid and %nsmid. */
static const char smid_kernel[] = HDR
    ".visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<8>;\n .reg .b64 %rd<5>;\n"
    " .reg .pred %p<3>;\n"
    " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, %ctaid.x;\n"
    " mul.lo.u32 %r5, %r2, 7;\n rem.u32 %r5, %r5, 13;\n"
    "LOOP:\n setp.eq.u32 %p2, %r5, 0;\n @%p2 bra OUT;\n sub.u32 %r5, %r5, 1;\n bra LOOP;\n"
    "OUT:\n setp.ne.u32 %p1, %r1, 0;\n"
    " @%p1 bra DONE;\n mov.u32 %r3, %smid;\n mov.u32 %r4, %nsmid;\n"
    " mul.wide.u32 %rd2, %r2, 8;\n add.s64 %rd3, %rd1, %rd2;\n"
    " st.global.v2.u32 [%rd3], {%r3, %r4};\n"
    "DONE:\n ret;\n}\n";

static void test_smid(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, smid_kernel, "k");
    t.cfg.grid[0] = 400;
    t.cfg.block[0] = 1024;
    uint64_t out = tt_buffer(&t, 400 * 8);
    tt_run_ok(&t);
    const uint32_t *v = (const uint32_t *)devmem_translate(t.mem, out, 400 * 8);
    assert_non_null(v);
    expect_u64("block records", t.r.nblocks, 400);
    int moved = 0;
    for (uint32_t i = 0; i < 400; i++) {
        const timing_block_rec *br = &t.r.blocks[i];
        if (br->block != i || v[2 * i] != br->sm || v[2 * i + 1] != 132)
            fail_msg("block %u: %%smid %u, %%nsmid %u; ran on SM %u", i, v[2 * i], v[2 * i + 1],
                     br->sm);
        moved += br->sm != i % 132; /* not the functional mode's guess */
    }
    if (moved == 0)
        fail_msg("every block ran on SM (block %% 132): the test cannot tell the two apart");
    tt_close(&t);
}

/* ---- SM windows are exact for memory ----------------------------------------------------------
 * SMs are simulated one after another over windows of up to the shortest L2-side latency
 * (281 cycles on the H200), and each window's L2/DRAM work is replayed in cycle order at its
 * end (docs/model.md, section 8). For one wave (every block dispatched at cycle 0, so no
 * dispatch decision depends on the window) that must give exactly what advancing all SMs
 * together one cycle at a time gives. The kernel contends for DRAM (a scattered load per
 * thread), hits lines whose fills are still pending (two warps of a block load the same
 * scattered lines), runs global atomics on one word, stores, and waits at a membar on them. */
static const char contend[] = HDR
    ".visible .entry k(.param .u64 a, .param .u64 out, .param .u64 cnt)\n{\n"
    " .reg .b64 %rd<12>;\n .reg .b32 %r<12>;\n .reg .f32 %f<8>;\n"
    " ld.param.u64 %rd1, [a];\n ld.param.u64 %rd2, [out];\n ld.param.u64 %rd3, [cnt];\n"
    " mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n mov.u32 %r3, %tid.x;\n"
    " mad.lo.s32 %r4, %r1, %r2, %r3;\n mul.wide.u32 %rd4, %r4, 4;\n"
    " add.s64 %rd5, %rd1, %rd4;\n ld.global.f32 %f1, [%rd5];\n"
    " and.b32 %r5, %r3, 63;\n mad.lo.s32 %r6, %r1, 64, %r5;\n mul.lo.s32 %r6, %r6, 37;\n"
    " and.b32 %r6, %r6, 65535;\n mul.wide.u32 %rd6, %r6, 4;\n add.s64 %rd7, %rd1, %rd6;\n"
    " ld.global.f32 %f2, [%rd7];\n add.f32 %f3, %f1, %f2;\n"
    " atom.global.add.u32 %r7, [%rd3], 1;\n add.s64 %rd8, %rd2, %rd4;\n"
    " st.global.f32 [%rd8], %f3;\n membar.gl;\n ld.global.f32 %f4, [%rd5];\n"
    " cvt.rn.f32.u32 %f5, %r7;\n add.f32 %f6, %f4, %f5;\n st.global.f32 [%rd8], %f6;\n"
    " ret;\n}\n";

static void run_contend(uint32_t window, timing_result *r)
{
    tt t;
    tt_open(&t, contend, "k");
    t.cfg.grid[0] = 264; /* two blocks per SM: one wave */
    t.cfg.block[0] = 256;
    t.cfg.window = window;
    tt_buffer(&t, 67584 * 4);
    tt_buffer(&t, 67584 * 4);
    tt_buffer(&t, 64);
    tt_run_keep(&t, r);
}

static void test_windows_exact(void **state)
{
    (void)state;
    timing_result one, win;
    run_contend(1, &one);
    run_contend(0, &win);
    expect_same_run("in windows (the reference: cycle by cycle)", &win, &one);
    expect_u64("dram bytes", win.dram_bytes, one.dram_bytes);
    expect_u64("atomics", win.global_atomic_requests, one.global_atomic_requests);
    if (win.l1_hit_rate != one.l1_hit_rate || win.l2_hit_rate != one.l2_hit_rate)
        fail_msg("hit rates L1 %.6f/%.6f L2 %.6f/%.6f", win.l1_hit_rate, one.l1_hit_rate,
                 win.l2_hit_rate, one.l2_hit_rate);
    /* the case must exercise what it claims: DRAM contention and long waits */
    if (one.dram_bytes < 200000 || one.stalls[STALL_LONG_SCOREBOARD] == 0 ||
        one.stalls[STALL_MEMBAR] == 0)
        fail_msg("dram %llu, long_scoreboard %llu, membar %llu",
                 (unsigned long long)one.dram_bytes,
                 (unsigned long long)one.stalls[STALL_LONG_SCOREBOARD],
                 (unsigned long long)one.stalls[STALL_MEMBAR]);
    timing_result_free(&one);
    timing_result_free(&win);
}

/* ---- SMs running ahead of the window are exact ------------------------------------------------
 * An SM that waits for no replayed answer runs on into the next windows while it stays inside
 * itself, and stops before an evaluation that could issue a global access or retire a warp
 * (docs/model.md, section 8). Here blocks of different lengths (a loop of 64 to 704 FMAs, by
 * block id) touch no global memory, so run-ahead is limited only by retirements: on a GPU of
 * three SMs holding one block each, 24 blocks run in waves and each freed SM takes the next
 * block. Run-ahead that retired a warp would let an SM that is ahead take a block out of turn;
 * every block's SM, start and end must be those of the run without run-ahead. */
static const char uneven[] = HDR
    ".visible .entry k()\n{\n .reg .b32 %r<8>;\n .reg .f32 %f<4>;\n .reg .pred %p<2>;\n"
    " mov.u32 %r1, %ctaid.x;\n mul.lo.u32 %r2, %r1, 7;\n rem.u32 %r2, %r2, 11;\n"
    " add.u32 %r2, %r2, 1;\n shl.b32 %r2, %r2, 6;\n mov.f32 %f1, 0f3F800000;\n"
    " mov.u32 %r3, 0;\nL1:\n fma.rn.f32 %f1, %f1, %f1, %f1;\n add.u32 %r3, %r3, 1;\n"
    " setp.lt.u32 %p1, %r3, %r2;\n @%p1 bra L1;\n ret;\n}\n";

static void run_uneven(int no_ahead, timing_result *r)
{
    tt t;
    tt_open(&t, uneven, "k");
    tt_few_sms(&t, 3);
    t.a.max_blocks_per_sm = 1;
    t.cfg.grid[0] = 24;
    t.cfg.block[0] = 64;
    t.cfg.no_ahead = no_ahead;
    tt_run_keep(&t, r);
}

static void test_run_ahead_exact(void **state)
{
    (void)state;
    timing_result ahead, behind;
    run_uneven(0, &ahead);
    run_uneven(1, &behind);
    if (ahead.ahead_evaluations == 0 || behind.ahead_evaluations != 0)
        fail_msg("evaluations ahead of the window: %llu with run-ahead, %llu without",
                 (unsigned long long)ahead.ahead_evaluations,
                 (unsigned long long)behind.ahead_evaluations);
    expect_same_run("with run-ahead (the reference: without)", &ahead, &behind);
    timing_result_free(&ahead);
    timing_result_free(&behind);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_fma_chain),
        cmocka_unit_test(test_subpartitions),
        cmocka_unit_test(test_independent_chains),
        cmocka_unit_test(test_full_pipe),
        cmocka_unit_test(test_mma),
        cmocka_unit_test(test_pipe_two_warps),
        cmocka_unit_test(test_unrolled_loop),
        cmocka_unit_test(test_mio_throttle),
        cmocka_unit_test(test_bank_conflicts),
        cmocka_unit_test(test_smem_shapes),
        cmocka_unit_test(test_if_converted_branch),
        cmocka_unit_test(test_expanded_remainder),
        cmocka_unit_test(test_barrier_slow_warp),
        cmocka_unit_test(test_exit_after_barrier),
        cmocka_unit_test(test_global_load_store),
        cmocka_unit_test(test_ldc),
        cmocka_unit_test(test_spill_code),
        cmocka_unit_test(test_spill_map_counts),
        cmocka_unit_test(test_divergent_branch),
        cmocka_unit_test(test_divergent_syncwarp),
        cmocka_unit_test(test_smid),
        cmocka_unit_test(test_policies),
        cmocka_unit_test(test_policy_blocks),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_real_kernel_trace),
        cmocka_unit_test(test_idle_cycles_skipped),
        cmocka_unit_test(test_windows_exact),
        cmocka_unit_test(test_run_ahead_exact),
        cmocka_unit_test(test_clock_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
