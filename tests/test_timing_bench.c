/* timing_bench: the speed of the timing model on real kernels at full size (a meson benchmark,
 * `meson test -C BUILD --benchmark`, not a timed test). Prints one table row per case: warp
 * instructions, simulated cycles, host seconds and warp instructions per host second.
 * The last two columns say how much of the CPU time the kernel spent for the process (page
 * faults: zeroing the run's fresh memory) and how many page faults there were: on a VM whose
 * host takes back freed memory, the first touches of fresh 2 MB pages cost a host fault
 * each and can be a tenth of a run (docs/performance.md, fifteenth session).
 * Usage: test_timing_bench [--window N] [CASE-NAME...]   (no names: every case; --window: SM
 * windows of at most N cycles, timing_config.window, to measure what the window buys) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>

#include "arch.h"
#include "argspec.h"
#include "devmem.h"
#include "ptx.h"
#include "testutil.h"
#include "timing.h"

typedef struct {
    const char *name, *ptx, *kernel;
    uint32_t grid[3], block[3], smem;
    const char *args[5];
} bench_case;

/* Full-size cases of gpu/cases.txt. */
static const bench_case cases[] = {
    {"red_sequential_32M", "gpu/ptx/reduction.ptx", "red_sequential", {131072, 1, 1},
     {256, 1, 1}, 1024, {"u32[33554432]:random(0,1000,5)", "u32[131072]:zeros"}},
    {"red_sequential_2M", "gpu/ptx/reduction.ptx", "red_sequential", {8192, 1, 1}, {256, 1, 1},
     1024, {"u32[2097152]:random(0,1000,5)", "u32[8192]:zeros"}},
    {"red_shuffle_32M", "gpu/ptx/reduction.ptx", "red_shuffle", {131072, 1, 1}, {256, 1, 1},
     1024, {"u32[33554432]:random(0,1000,5)", "u32[131072]:zeros"}},
    {"lat_copy_16M", "gpu/ptx/latency.ptx", "lat_copy", {528, 1, 1}, {256, 1, 1}, 0,
     {"f32[16777216]:random(0,1,2)", "f32[16777216]:zeros", "s32:16777216"}},
    {"ilp_indep4_full", "gpu/ptx/ilp.ptx", "ilp_indep4", {2112, 1, 1}, {128, 1, 1}, 0,
     {"f32[270336]:random(0,1,6)", "f32[270336]:zeros", "s32:8192"}},
    {"ilp_indep4_small", "gpu/ptx/ilp.ptx", "ilp_indep4", {132, 1, 1}, {128, 1, 1}, 0,
     {"f32[16896]:random(0,1,6)", "f32[16896]:zeros", "s32:8192"}},
    {"bk_transpose33_4k", "gpu/ptx/bank_conflicts.ptx", "bk_transpose33", {128, 128, 1},
     {32, 8, 1}, 0,
     {"f32[16777216]:random(0,1,12)", "f32[16777216]:zeros", "s32:4096", "s32:4096"}},
};

/* CPU time of this process: the machine is shared, wall time would measure the neighbours. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The process's kernel-mode CPU time (seconds) and page faults so far. */
static void sys_usage(double *sys, long *faults)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    *sys = (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
    *faults = u.ru_minflt + u.ru_majflt;
}

static int run_case(const arch_t *a, const bench_case *c, uint32_t window)
{
    diag_t d;
    diag_clear(&d);
    ptx_module *m;
    char msg[1400];
    /* the PTX as `warplab run` times it: after the ptxas scheduling model */
    if (ptx_parse_file(tu_path(c->ptx), &m, &d) != WL_OK || ptx_schedule(m, &d) != WL_OK) {
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", c->name, msg);
        return 1;
    }
    const ptx_func *k = ptx_find_func(m, c->kernel);
    devmem_t *mem = devmem_create(0);
    uint8_t params[256] = {0};
    int bad = !k || !mem;
    for (uint32_t i = 0; !bad && i < k->nparams && c->args[i]; i++) {
        argspec s;
        bad = argspec_parse(c->args[i], &s, &d) != WL_OK;
        if (bad)
            break;
        if (s.is_buffer) {
            uint64_t addr;
            bad = devmem_alloc(mem, argspec_bytes(&s), NULL, &addr, &d) != WL_OK ||
                  argspec_fill(&s, devmem_translate(mem, addr, argspec_bytes(&s)), &d) != WL_OK;
            memcpy(params + k->params[i].offset, &addr, 8);
        } else {
            bad = argspec_fill(&s, params + k->params[i].offset, &d) != WL_OK;
        }
    }
    int status = 1;
    if (!bad) {
        timing_config cfg = {.dyn_smem = c->smem, .params = params,
                             .params_size = k->param_size ? k->param_size : 8,
                             .regs_per_thread = 32, .policy = -1};
        cfg.window = window;
        memcpy(cfg.grid, c->grid, sizeof cfg.grid);
        memcpy(cfg.block, c->block, sizeof cfg.block);
        timing_result r;
        double sys0, sys1;
        long f0, f1;
        sys_usage(&sys0, &f0);
        double t0 = now_s();
        wl_status st = timing_run(m, k, a, &cfg, mem, &r, &d);
        double dt = now_s() - t0;
        sys_usage(&sys1, &f1);
        if (st == WL_OK) {
            printf("| %-20s | %12llu | %10llu | %8.2f | %8.2f | %5.3f | %7ld |\n", c->name,
                   (unsigned long long)r.warp_instructions, (unsigned long long)r.cycles, dt,
                   (double)r.warp_instructions / dt / 1e6, sys1 - sys0, f1 - f0);
            fflush(stdout);
            status = 0;
        }
        timing_result_free(&r);
    }
    if (status) {
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "%s: %s\n", c->name, msg);
    }
    devmem_destroy(mem);
    ptx_module_free(m);
    return status;
}

int main(int argc, char **argv)
{
    arch_t a;
    diag_t d;
    if (arch_load(tu_path("sim/arch"), "h200", &a, &d) != WL_OK) {
        fprintf(stderr, "arch: %s\n", d.msg);
        return 1;
    }
    printf("| case                 | warp instrs  | cycles     | CPU s    | Minstr/s "
           "| sys s | faults  |\n");
    printf("|----------------------|--------------|------------|----------|----------"
           "|-------|---------|\n");
    int status = 0, first = 1;
    uint32_t window = 0;
    if (argc > 2 && strcmp(argv[1], "--window") == 0) {
        window = (uint32_t)strtoul(argv[2], NULL, 10);
        first = 3;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int want = argc <= first;
        for (int j = first; j < argc; j++)
            want |= strcmp(argv[j], cases[i].name) == 0;
        if (want)
            status |= run_case(&a, &cases[i], window);
    }
    return status;
}
