/* bench_exec: functional-execution speed of the executor, in warp instructions per second on one
 * core, for a few kernels of tests/data/exec/basic.ptx (run with `meson test --benchmark` or
 * directly). Each launch runs BENCH_RUNS times (a launch takes 0.04-0.6 s, short enough for a
 * timer tick or another process to move one run by 10 %); the line gives the median run and the
 * spread. Prints one line per kernel and exits 0; numbers depend on the machine.
 * Usage: bench_exec [KERNEL] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devmem.h"
#include "launch.h"
#include "ptx.h"
#include "testutil.h"

/* CPU time of this process: on a loaded machine wall time would count other programs' turns. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    const char *kernel;
    uint32_t grid, block, dyn;
    uint64_t scalar; /* value of the int parameter */
    int nbuf;        /* leading pointer parameters */
    size_t buf_bytes;
} bench_case;

#define BENCH_RUNS 5

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One launch of case c: its CPU time in *dt and its statistics in *st. */
static int run_once(const ptx_module *m, const ptx_func *k, const bench_case *c, double *dt,
                    launch_stats *st)
{
    devmem_t *mem = devmem_create(0);
    uint8_t params[256] = {0};
    diag_t d;
    diag_clear(&d);
    for (uint32_t i = 0; i < k->nparams; i++) {
        uint64_t v = c->scalar;
        if ((int)i < c->nbuf) {
            devmem_alloc(mem, c->buf_bytes, NULL, &v, &d);
            /* small non-zero data: keeps loops bounded and divergent kernels busy */
            uint32_t *h = (uint32_t *)devmem_translate(mem, v, c->buf_bytes);
            for (size_t j = 0; j < c->buf_bytes / 4; j++)
                h[j] = (uint32_t)(j * 2654435761u % 97u) + 1u;
        }
        memcpy(params + k->params[i].offset, &v, k->params[i].size);
    }
    launch_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.grid[0] = c->grid; cfg.grid[1] = cfg.grid[2] = 1;
    cfg.block[0] = c->block; cfg.block[1] = cfg.block[2] = 1;
    cfg.dyn_smem = c->dyn;
    cfg.params = params;
    cfg.params_size = k->param_size;
    double t0 = now();
    wl_status s = launch_kernel(m, k, &cfg, mem, st, &d);
    *dt = now() - t0;
    devmem_destroy(mem);
    if (s != WL_OK) {
        char buf[1400];
        diag_format(&d, buf, sizeof buf);
        fprintf(stderr, "bench: %s: %s\n", c->kernel, buf);
        return 1;
    }
    return 0;
}

static int run_case(const ptx_module *m, const bench_case *c)
{
    const ptx_func *k = ptx_find_func(m, c->kernel);
    if (!k) {
        fprintf(stderr, "bench: kernel %s not found\n", c->kernel);
        return 1;
    }
    double dt[BENCH_RUNS];
    launch_stats st;
    for (int r = 0; r < BENCH_RUNS; r++)
        if (run_once(m, k, c, &dt[r], &st) != 0)
            return 1;
    qsort(dt, BENCH_RUNS, sizeof dt[0], cmp_double);
    double med = dt[BENCH_RUNS / 2], w = (double)st.warp_insts * 1e-6;
    printf("%-10s grid %7u x %4u: %11llu warp insts in %7.3f s CPU = %6.1f M warp insts/s "
           "(median of %d runs, %.1f-%.1f; %.1f lanes active)\n", c->kernel, c->grid, c->block,
           (unsigned long long)st.warp_insts, med, w / med, BENCH_RUNS, w / dt[BENCH_RUNS - 1],
           w / dt[0], st.avg_active_lanes);
    return 0;
}

int main(int argc, char **argv)
{
    ptx_module *m;
    diag_t d;
    if (ptx_parse_file(tu_path("tests/data/exec/basic.ptx"), &m, &d) != WL_OK) {
        fprintf(stderr, "bench: cannot parse basic.ptx: %s\n", d.msg);
        return 1;
    }
    const bench_case cases[] = {
        {"busy", 64, 256, 0, 2000, 1, 64 * 256 * 4},
        {"vecadd", 16384, 256, 0, 16384 * 256, 3, 16384 * 256 * 4},
        {"reduce", 4096, 256, 1024, 4096 * 512, 2, 4096 * 512 * 4},
        {"diverge", 4096, 256, 0, 4096 * 256, 2, 4096 * 256 * 4},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (argc < 2 || strcmp(argv[1], cases[i].kernel) == 0) /* optional: one kernel */
            rc |= run_case(m, &cases[i]);
    ptx_module_free(m);
    return rc;
}
