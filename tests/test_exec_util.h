/* test_exec_util: helpers shared by the executor's tests (test_exec_kernels.c, test_exec_ptx.c):
 * parse PTX, allocate device buffers, pack parameters, launch, read results. */
#ifndef WL_TEST_EXEC_UTIL_H
#define WL_TEST_EXEC_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "devmem.h"
#include "launch.h"
#include "ptx.h"
#include "testutil.h"

#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n"

typedef struct {
    ptx_module *m;
    devmem_t *mem;
    const ptx_func *k;
    uint8_t params[4096];
    diag_t d;
    launch_stats st;
    char err[1400];
} kt;

static inline void kt_kernel(kt *t, const char *kernel)
{
    t->k = ptx_find_func(t->m, kernel);
    if (!t->k)
        fail_msg("kernel '%s' not found", kernel);
    memset(t->params, 0, sizeof t->params);
}

static inline void kt_open(kt *t, const char *rel, const char *kernel)
{
    memset(t, 0, sizeof *t);
    if (ptx_parse_file(tu_path(rel), &t->m, &t->d) != WL_OK) {
        diag_format(&t->d, t->err, sizeof t->err);
        fail_msg("parse %s: %s", rel, t->err);
    }
    t->mem = devmem_create(0);
    kt_kernel(t, kernel);
}

static inline void kt_text(kt *t, const char *text, const char *kernel)
{
    memset(t, 0, sizeof *t);
    if (ptx_parse_string(text, strlen(text), "t.ptx", &t->m, &t->d) != WL_OK) {
        diag_format(&t->d, t->err, sizeof t->err);
        fail_msg("parse: %s", t->err);
    }
    t->mem = devmem_create(0);
    kt_kernel(t, kernel);
}

static inline void kt_close(kt *t)
{
    ptx_module_free(t->m);
    devmem_destroy(t->mem);
}

static inline uint64_t kt_buf(kt *t, const void *data, size_t n)
{
    uint64_t a;
    if (devmem_alloc(t->mem, n, NULL, &a, &t->d) != WL_OK)
        fail_msg("alloc %zu: %s", n, t->d.msg);
    if (data)
        memcpy(devmem_translate(t->mem, a, n), data, n);
    return a;
}

static inline void kt_get(kt *t, uint64_t a, void *dst, size_t n)
{
    uint8_t *h = devmem_translate(t->mem, a, n);
    assert_non_null(h);
    memcpy(dst, h, n);
}

static inline void kt_arg(kt *t, uint32_t i, uint64_t v)
{
    if (i >= t->k->nparams)
        fail_msg("param %u of %u", i, t->k->nparams);
    memcpy(t->params + t->k->params[i].offset, &v, t->k->params[i].size);
}

static inline void kt_argf(kt *t, uint32_t i, float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    kt_arg(t, i, b);
}

static inline wl_status kt_run3(kt *t, uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by, uint32_t dyn)
{
    launch_config c;
    memset(&c, 0, sizeof c);
    c.grid[0] = gx; c.grid[1] = gy; c.grid[2] = 1;
    c.block[0] = bx; c.block[1] = by; c.block[2] = 1;
    c.dyn_smem = dyn;
    c.params = t->params;
    c.params_size = t->k->param_size;
    c.max_warp_insts = 50000000;
    diag_clear(&t->d);
    wl_status s = launch_kernel(t->m, t->k, &c, t->mem, &t->st, &t->d);
    diag_format(&t->d, t->err, sizeof t->err);
    return s;
}

static inline wl_status kt_run(kt *t, uint32_t grid, uint32_t block, uint32_t dyn)
{
    return kt_run3(t, grid, 1, block, 1, dyn);
}

/* The usual shape of a test: kernel `kernel` of `ptx`, its first parameter an output buffer of
 * `bytes` (zeroed), one block of `threads`; the buffer is read back into out. t stays open
 * (kt_close). */
static inline void kt_run_out(kt *t, const char *ptx, const char *kernel, uint32_t threads,
                              void *out, size_t bytes)
{
    kt_text(t, ptx, kernel);
    uint64_t d = kt_buf(t, NULL, bytes);
    kt_arg(t, 0, d);
    wl_status s = kt_run(t, 1, threads, 0);
    if (s != WL_OK)
        fail_msg("launch of %s failed with %d: %s", kernel, s, t->err);
    kt_get(t, d, out, bytes);
}

#define RUN_OK(expr)                                                                               \
    do {                                                                                           \
        wl_status s_ = (expr);                                                                     \
        if (s_ != WL_OK)                                                                           \
            fail_msg("launch failed with %d: %s", s_, t.err);                                      \
    } while (0)

static inline uint32_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

#endif
