/* timing_model: micro-kernels whose cycle counts are derived by hand from the H200 arch file
 * (sim/arch/h200.ini), the stall-sum invariant, policies, determinism and the trace.
 *
 * H200 numbers used below: lat_alu 5, lat_fma 4, lat_sfu 17, lat_smem 23, smem_conflict 2,
 * lat_barrier 13 + 2 per warp, issue intervals alu 2, fma 1, sfu 8, lsu 4, lsu_queue_depth 5,
 * lat_dram 660, lat_l2_near 282 (store acknowledgement).
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

static void tt_open(tt *t, const char *text, const char *kernel)
{
    memset(t, 0, sizeof *t);
    if (arch_load(tu_path("sim/arch"), "h200", &t->a, &t->d) != WL_OK)
        fail_msg("arch: %s", t->d.msg);
    if (ptx_parse_string(text, strlen(text), "t.ptx", &t->m, &t->d) != WL_OK) {
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

static void expect_u64(const char *what, uint64_t got, uint64_t want)
{
    if (got != want)
        fail_msg("%s: got %llu, expected %llu", what, (unsigned long long)got,
                 (unsigned long long)want);
}

#define HDR ".version 8.0\n.target sm_90\n.address_size 64\n"

/* ---- a dependent FMA chain ------------------------------------------------------------------ */
static const char fma_chain[] = HDR
    ".visible .entry k()\n{\n .reg .f32 %f<8>;\n"
    " mov.f32 %f1, 0f3F800000;\n"       /* cycle 0 (ALU, result at 5) */
    " fma.rn.f32 %f2, %f1, %f1, %f1;\n" /* 5: waits 4 cycles on %f1 */
    " fma.rn.f32 %f3, %f2, %f2, %f2;\n" /* 9 */
    " fma.rn.f32 %f4, %f3, %f3, %f3;\n" /* 13 */
    " fma.rn.f32 %f5, %f4, %f4, %f4;\n" /* 17 */
    " ret;\n}\n";                       /* 18; retires at 19 */

static void test_dependent_fma_chain(void **state)
{
    (void)state;
    tt t;
    tt_open(&t, fma_chain, "k");
    tt_run_ok(&t);
    expect_u64("cycles", t.r.cycles, 19);
    expect_u64("warp instructions", t.r.warp_instructions, 6);
    /* waits: 4 cycles before the first fma (ALU 5), 3 before each next (FMA 4) */
    expect_u64("wait", t.r.stalls[STALL_WAIT], 4 + 3 * 3);
    expect_u64("resident", t.r.resident_warp_cycles, 19);
    tt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_fma_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
