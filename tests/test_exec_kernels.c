/* exec: whole kernels compiled by nvcc (tests/data/exec/basic.cu -> basic.ptx) run on the
 * functional executor and checked against C references computed here; hand-written PTX for the
 * control-flow, barrier and fault cases nvcc will not emit on purpose. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"
#include "exec.h"
#include "launch.h"
#include "ptx.h"
#include "testutil.h"

typedef struct {
    ptx_module *m;
    devmem_t *mem;
    const ptx_func *k;
    uint8_t params[4096];
    diag_t d;
    launch_stats st;
    char err[1400];
} kt;

static void kt_kernel(kt *t, const char *kernel)
{
    t->k = ptx_find_func(t->m, kernel);
    if (!t->k)
        fail_msg("kernel '%s' not found", kernel);
    memset(t->params, 0, sizeof t->params);
}

static void kt_open(kt *t, const char *rel, const char *kernel)
{
    memset(t, 0, sizeof *t);
    if (ptx_parse_file(tu_path(rel), &t->m, &t->d) != WL_OK) {
        diag_format(&t->d, t->err, sizeof t->err);
        fail_msg("parse %s: %s", rel, t->err);
    }
    t->mem = devmem_create(0);
    kt_kernel(t, kernel);
}

static void kt_text(kt *t, const char *text, const char *kernel)
{
    memset(t, 0, sizeof *t);
    if (ptx_parse_string(text, strlen(text), "t.ptx", &t->m, &t->d) != WL_OK) {
        diag_format(&t->d, t->err, sizeof t->err);
        fail_msg("parse: %s", t->err);
    }
    t->mem = devmem_create(0);
    kt_kernel(t, kernel);
}

static void kt_close(kt *t)
{
    ptx_module_free(t->m);
    devmem_destroy(t->mem);
}

static uint64_t kt_buf(kt *t, const void *data, size_t n)
{
    uint64_t a;
    if (devmem_alloc(t->mem, n, NULL, &a, &t->d) != WL_OK)
        fail_msg("alloc %zu: %s", n, t->d.msg);
    if (data)
        memcpy(devmem_translate(t->mem, a, n), data, n);
    return a;
}

static void kt_get(kt *t, uint64_t a, void *dst, size_t n)
{
    uint8_t *h = devmem_translate(t->mem, a, n);
    assert_non_null(h);
    memcpy(dst, h, n);
}

static void kt_arg(kt *t, uint32_t i, uint64_t v)
{
    if (i >= t->k->nparams)
        fail_msg("param %u of %u", i, t->k->nparams);
    memcpy(t->params + t->k->params[i].offset, &v, t->k->params[i].size);
}

static void kt_argf(kt *t, uint32_t i, float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    kt_arg(t, i, b);
}

static wl_status kt_run3(kt *t, uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by, uint32_t dyn)
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

static wl_status kt_run(kt *t, uint32_t grid, uint32_t block, uint32_t dyn)
{
    return kt_run3(t, grid, 1, block, 1, dyn);
}

#define RUN_OK(expr)                                                                               \
    do {                                                                                           \
        wl_status s_ = (expr);                                                                     \
        if (s_ != WL_OK)                                                                           \
            fail_msg("launch failed with %d: %s", s_, t.err);                                      \
    } while (0)

static uint32_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* ----------------------------------------------------------------------------------------- */
static void test_vecadd(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "vecadd");
    enum { N = 1000 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = 1.0f / (float)(i + 1);
    }
    uint64_t da = kt_buf(&t, a, sizeof a), db = kt_buf(&t, b, sizeof b), dc = kt_buf(&t, NULL, sizeof c);
    kt_arg(&t, 0, da); kt_arg(&t, 1, db); kt_arg(&t, 2, dc); kt_arg(&t, 3, N);
    RUN_OK(kt_run(&t, (N + 127) / 128, 128, 0));
    kt_get(&t, dc, c, sizeof c);
    for (int i = 0; i < N; i++)
        if (c[i] != a[i] + b[i])
            fail_msg("c[%d] = %.9g, want %.9g", i, c[i], a[i] + b[i]);
    assert_int_equal(t.st.blocks_done, 8);
    /* 8 blocks x 4 warps; the last block has 1000-896 = 104 live threads */
    if (t.st.warp_insts < 32 * 8 || t.st.branch_efficiency <= 0.0)
        fail_msg("warp_insts %llu, branch efficiency %f", (unsigned long long)t.st.warp_insts,
                 t.st.branch_efficiency);
    kt_close(&t);
}

static void test_saxpy2d(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "saxpy2d");
    enum { W = 37, H = 21 };
    float x[W * H], y[W * H], r[W * H];
    for (int i = 0; i < W * H; i++) {
        x[i] = (float)(i % 17) - 3.25f;
        y[i] = (float)(i % 5) * 0.125f;
    }
    uint64_t dx = kt_buf(&t, x, sizeof x), dy = kt_buf(&t, y, sizeof y);
    kt_argf(&t, 0, 1.5f); kt_arg(&t, 1, dx); kt_arg(&t, 2, dy); kt_arg(&t, 3, W); kt_arg(&t, 4, H);
    RUN_OK(kt_run3(&t, (W + 15) / 16, (H + 7) / 8, 16, 8, 0));
    kt_get(&t, dy, r, sizeof r);
    for (int i = 0; i < W * H; i++) {
        float want = fmaf(1.5f, x[i], y[i]);
        if (r[i] != want)
            fail_msg("y[%d] = %.9g, want %.9g", i, r[i], want);
    }
    kt_close(&t);
}

static void test_diverge(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "diverge");
    enum { N = 300 };
    int in[N], out[N], want[N];
    uint64_t s = 5;
    for (int i = 0; i < N; i++) {
        in[i] = (int)(rng(&s) % 200) + 1;
        want[i] = -12345;
        int v = in[i], r = 0, early = 0;
        if (v & 1)
            r = (v & 2) ? v * 3 : v - 7;
        else {
            for (int k = 0; k < (v & 15); k++)
                r += k * v;
            early = r > 100;
        }
        if (early)
            continue;
        int c = 0;
        while (v > 1) {
            v = (v & 1) ? 3 * v + 1 : v / 2;
            c++;
        }
        want[i] = r + c;
    }
    for (int i = 0; i < N; i++)
        out[i] = -12345;
    uint64_t di = kt_buf(&t, in, sizeof in), dout = kt_buf(&t, out, sizeof out);
    kt_arg(&t, 0, di); kt_arg(&t, 1, dout); kt_arg(&t, 2, N);
    RUN_OK(kt_run(&t, 3, 128, 0));
    kt_get(&t, dout, out, sizeof out);
    for (int i = 0; i < N; i++)
        if (out[i] != want[i])
            fail_msg("out[%d] = %d, want %d (in %d)", i, out[i], want[i], in[i]);
    if (!(t.st.divergent_branches > 0 && t.st.branch_efficiency < 1.0))
        fail_msg("divergent %llu of %llu branches", (unsigned long long)t.st.divergent_branches,
                 (unsigned long long)t.st.branches);
    kt_close(&t);
}

static void test_reduce(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "reduce");
    enum { N = 5000 };
    int in[N];
    long long want = 0;
    for (int i = 0; i < N; i++) {
        in[i] = (i * 37) % 101 - 50;
        want += in[i];
    }
    int zero = 0, got;
    uint64_t di = kt_buf(&t, in, sizeof in), dout = kt_buf(&t, &zero, 4);
    kt_arg(&t, 0, di); kt_arg(&t, 1, dout); kt_arg(&t, 2, N);
    RUN_OK(kt_run(&t, (N + 511) / 512, 256, 256 * 4));
    kt_get(&t, dout, &got, 4);
    if (got != want)
        fail_msg("sum %d, want %lld", got, want);
    kt_close(&t);
}

static void test_histo_atomics(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "histo");
    enum { N = 3000 };
    unsigned in[N], hist[16] = {0}, want[16] = {0};
    int mx[3] = {INT32_MIN, INT32_MAX, 0};
    unsigned xr = 0;
    int wmax = INT32_MIN, wmin = INT32_MAX;
    uint64_t s = 11;
    for (int i = 0; i < N; i++) {
        in[i] = rng(&s) % 100000;
        want[in[i] & 15]++;
        if ((int)in[i] > wmax) wmax = (int)in[i];
        if ((int)in[i] < wmin) wmin = (int)in[i];
        xr ^= in[i];
    }
    unsigned cas[2] = {0, 0};
    uint64_t di = kt_buf(&t, in, sizeof in), dh = kt_buf(&t, hist, sizeof hist);
    uint64_t dm = kt_buf(&t, mx, sizeof mx), dc = kt_buf(&t, cas, sizeof cas);
    kt_arg(&t, 0, di); kt_arg(&t, 1, dh); kt_arg(&t, 2, dm); kt_arg(&t, 3, dc); kt_arg(&t, 4, N);
    RUN_OK(kt_run(&t, 4, 256, 0));
    kt_get(&t, dh, hist, sizeof hist);
    kt_get(&t, dm, mx, sizeof mx);
    kt_get(&t, dc, cas, sizeof cas);
    for (int i = 0; i < 16; i++)
        if (hist[i] != want[i])
            fail_msg("hist[%d] = %u, want %u", i, hist[i], want[i]);
    if (mx[0] != wmax || mx[1] != wmin || (unsigned)mx[2] != xr)
        fail_msg("max %d/%d min %d/%d xor %u/%u", mx[0], wmax, mx[1], wmin, (unsigned)mx[2], xr);
    /* the first CAS in execution order wins: some input + 1 */
    int found = 0;
    for (int i = 0; i < N; i++)
        found |= cas[0] == in[i] + 1;
    if (!found)
        fail_msg("cas %u is not an input + 1", cas[0]);
    /* atomicInc wraps at 7: N increments from 0 end at N mod 8 */
    if (cas[1] != N % 8)
        fail_msg("inc %u, want %u", cas[1], N % 8);
    kt_close(&t);
}

static void test_warpops(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "warpops");
    int in[32];
    unsigned out[32 * 8];
    for (int i = 0; i < 32; i++)
        in[i] = (i * 13) % 23;
    uint64_t di = kt_buf(&t, in, sizeof in), dout = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, di); kt_arg(&t, 1, dout);
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_get(&t, dout, out, sizeof out);
    unsigned ballot = 0, any7 = 0, sum = 0, mx = 0;
    for (int i = 0; i < 32; i++) {
        ballot |= (unsigned)(in[i] > 10) << i;
        any7 |= in[i] == 7;
        sum += (unsigned)in[i];
        if ((unsigned)in[i] > mx) mx = (unsigned)in[i];
    }
    for (int l = 0; l < 32; l++) {
        const unsigned *o = out + l * 8;
        unsigned match = 0;
        for (int j = 0; j < 32; j++)
            match |= (unsigned)((in[j] & 3) == (in[l] & 3)) << j;
        int up = (l % 16) >= 3 ? l - 3 : l;
        unsigned want[8] = {ballot, 1, any7, (unsigned)in[(l * 7) & 31], (unsigned)in[up],
                            (unsigned)in[l ^ 5], match, sum + mx};
        for (int k = 0; k < 8; k++)
            if (o[k] != want[k])
                fail_msg("lane %d result %d = 0x%x, want 0x%x", l, k, o[k], want[k]);
    }
    kt_close(&t);
}

static int poly_ref(int x, int k, int *scratch)
{
    int acc = 0;
    for (int j = 0; j < k; j++) {
        scratch[j & 7] = acc;
        acc = (int)((unsigned)acc * (unsigned)x + (unsigned)j + (unsigned)scratch[(j * 3) & 7]);
    }
    return acc;
}

static void test_calls_local(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "calls");
    enum { N = 100 };
    int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = i * 3 - 40;
    uint64_t di = kt_buf(&t, in, sizeof in), dout = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, di); kt_arg(&t, 1, dout); kt_arg(&t, 2, N);
    RUN_OK(kt_run(&t, 2, 64, 0));
    kt_get(&t, dout, out, sizeof out);
    for (int i = 0; i < N; i++) {
        int local[8] = {0};
        int x = in[i];
        int r = (x & 1) ? poly_ref(x, x & 7, local) : -poly_ref(x, 3, local);
        int want = r + local[x & 7];
        if (out[i] != want)
            fail_msg("out[%d] = %d, want %d", i, out[i], want);
    }
    kt_close(&t);
}

static unsigned brev32(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((x >> i) & 1u) << (31 - i);
    return r;
}

static unsigned prmt_ref(unsigned a, unsigned b, unsigned c)
{
    unsigned long long v = ((unsigned long long)b << 32) | a;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) {
        unsigned sel = (c >> (4 * i)) & 15;
        unsigned byte = (unsigned)(v >> (8 * (sel & 7))) & 0xff;
        if (sel & 8)
            byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (8 * i);
    }
    return r;
}

static void test_intops(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "intops");
    unsigned a[32], b[32], out[32 * 12];
    uint64_t s = 99;
    for (int i = 0; i < 32; i++) {
        a[i] = rng(&s) ^ (rng(&s) << 16);
        b[i] = i % 5 == 0 ? 0 : rng(&s) >> (i % 17);
    }
    a[3] = 0;
    a[4] = 0x80000000u;
    b[4] = 0xffffffffu;
    uint64_t da = kt_buf(&t, a, sizeof a), db = kt_buf(&t, b, sizeof b);
    uint64_t dout = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, da); kt_arg(&t, 1, db); kt_arg(&t, 2, dout);
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_get(&t, dout, out, sizeof out);
    for (int i = 0; i < 32; i++) {
        unsigned x = a[i], y = b[i];
        unsigned w[12];
        w[0] = (unsigned)__builtin_popcount(x);
        w[1] = x ? (unsigned)__builtin_clz(x) : 32;
        w[2] = brev32(x);
        w[3] = (unsigned)(((unsigned long long)x * y) >> 32);
        w[4] = (unsigned)(((long long)(int)x * (int)y) >> 32);
        w[5] = prmt_ref(x, y, y & 0x7777);
        long long m24 = (long long)((int)(x << 8) >> 8) * (long long)((int)(y << 8) >> 8);
        w[6] = (unsigned)m24;
        w[7] = y ? x / y : 0;
        w[8] = !y ? 1 : (y | 1) == 0xffffffffu ? 0 : (unsigned)((int)x % (int)(y | 1));
        w[9] = (x >> (y & 31)) | (x << ((32 - (y & 31)) & 31));
        unsigned sh = (unsigned)i & 31;
        w[10] = sh ? (y << sh) | (x >> (32 - sh)) : y;
        w[11] = (unsigned)(((unsigned long long)x * y) >> 7);
        for (int k = 0; k < 12; k++)
            if (out[i * 12 + k] != w[k])
                fail_msg("lane %d op %d (a=0x%x b=0x%x): 0x%x, want 0x%x", i, k, x, y,
                         out[i * 12 + k], w[k]);
    }
    kt_close(&t);
}

static void test_fmath(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "fmath");
    float a[32], out[32 * 8];
    for (int i = 0; i < 32; i++)
        a[i] = (float)(i - 16) * 0.37f;
    uint64_t da = kt_buf(&t, a, sizeof a), dout = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, da); kt_arg(&t, 1, dout);
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_get(&t, dout, out, sizeof out);
    for (int i = 0; i < 32; i++) {
        double x = a[i];
        double w[8] = {exp(x), log(fabs(x) + 1.0), sin(x), cos(x), 1.0 / sqrt(fabs(x) + 0.5),
                       sqrt(fabs(x)), x / 3.0, (x * x - 1.0) / (x + 4.0)};
        for (int k = 0; k < 8; k++) {
            double err = fabs(out[i * 8 + k] - w[k]);
            /* approximate SFU forms: within 4 ulp of the float result or 1e-6 absolute */
            if (err > 4 * fabs(w[k]) * 1.2e-7 + 1e-6)
                fail_msg("lane %d fn %d (x=%g): %.9g, want %.9g", i, k, x, out[i * 8 + k], w[k]);
        }
    }
    kt_close(&t);
}

static void test_dmath(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "dmath");
    double a[32], out[32 * 3];
    int iout[32 * 3];
    for (int i = 0; i < 32; i++)
        a[i] = (i - 10) * 1.37 + (i == 5 ? 0.5 : 0) + (i == 6 ? -2.5 : 0);
    uint64_t da = kt_buf(&t, a, sizeof a), dout = kt_buf(&t, NULL, sizeof out);
    uint64_t di = kt_buf(&t, NULL, sizeof iout);
    kt_arg(&t, 0, da); kt_arg(&t, 1, dout); kt_arg(&t, 2, di);
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_get(&t, dout, out, sizeof out);
    kt_get(&t, di, iout, sizeof iout);
    for (int i = 0; i < 32; i++) {
        double x = a[i];
        double w[3] = {fma(x, x, 1.0 / (x + 3.0)), sqrt(fabs(x)) + (double)(float)x,
                       (double)(long long)(x * 1000.0)};
        for (int k = 0; k < 3; k++)
            if (out[i * 3 + k] != w[k])
                fail_msg("lane %d op %d: %.17g, want %.17g", i, k, out[i * 3 + k], w[k]);
        double t10 = x * 10.0;
        int wi[3] = {(int)x, (int)nearbyint(x), (int)(t10 <= 0 ? 0u : (unsigned)t10)};
        for (int k = 0; k < 3; k++)
            if (iout[i * 3 + k] != wi[k])
                fail_msg("lane %d cvt %d (x=%.17g): %d, want %d", i, k, x, iout[i * 3 + k], wi[k]);
    }
    kt_close(&t);
}

static void test_transpose(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "transpose");
    enum { W = 40, H = 35 };
    float in[W * H], out[W * H];
    for (int i = 0; i < W * H; i++)
        in[i] = (float)i;
    uint64_t di = kt_buf(&t, in, sizeof in), dout = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, di); kt_arg(&t, 1, dout); kt_arg(&t, 2, W); kt_arg(&t, 3, H);
    RUN_OK(kt_run3(&t, (W + 15) / 16, (H + 15) / 16, 16, 16, 0));
    kt_get(&t, dout, out, sizeof out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (out[x * H + y] != in[y * W + x])
                fail_msg("out[%d][%d] = %g, want %g", x, y, out[x * H + y], in[y * W + x]);
    kt_close(&t);
}

static void test_pipeline_cp_async(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/async.ptx", "pipe_scale");
    enum { TILES = 5, BLOCKS = 3, N = TILES * BLOCKS * 256 };
    static float in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)(i % 1000) * 0.25f;
    uint64_t di = kt_buf(&t, in, sizeof in), dout = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, di); kt_arg(&t, 1, dout); kt_arg(&t, 2, TILES);
    RUN_OK(kt_run(&t, BLOCKS, 256, 0));
    kt_get(&t, dout, out, sizeof out);
    for (int b = 0; b < BLOCKS; b++)
        for (int k = 0; k < TILES; k++)
            for (int i = 0; i < 256; i++) {
                size_t o = (size_t)(b * TILES + k) * 256;
                float want = 2.0f * in[o + (size_t)((i + 1) % 256)] + 1.0f;
                if (out[o + (size_t)i] != want)
                    fail_msg("block %d tile %d [%d] = %g, want %g", b, k, i, out[o + (size_t)i], want);
            }
    if (t.st.op_count[PTX_OP_CP_ASYNC] == 0 || t.st.op_count[PTX_OP_CP_ASYNC_WAIT_GROUP] == 0)
        fail_msg("cp.async %llu, wait_group %llu", (unsigned long long)t.st.op_count[PTX_OP_CP_ASYNC],
                 (unsigned long long)t.st.op_count[PTX_OP_CP_ASYNC_WAIT_GROUP]);
    kt_close(&t);
}

static void test_mbarrier_phases(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/async.ptx", "mbar_phases");
    enum { B = 2, T = 96, P = 4 };
    int out[B * T];
    uint64_t dout = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, dout); kt_arg(&t, 1, P);
    RUN_OK(kt_run(&t, B, T, 0));
    kt_get(&t, dout, out, sizeof out);
    for (int i = 0; i < B * T; i++) {
        int want = 0;
        for (int p = 0; p < P; p++)
            want += ((i % T + 1) % T) * (p + 1);
        if (out[i] != want)
            fail_msg("out[%d] = %d, want %d", i, out[i], want);
    }
    if (t.st.op_count[PTX_OP_MBAR_ARRIVE] == 0 || t.st.op_count[PTX_OP_MBAR_TRY_WAIT] == 0)
        fail_msg("mbarrier ops not executed");
    kt_close(&t);
}

/* ----------------------------------------------------------------------------------------- */
/* Hand-written PTX                                                                          */
#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n"

/* Warp specialisation: warps 0-1 produce into shared memory and bar.arrive on named barrier 1
 * (128 threads), warps 2-3 bar.sync on it and consume; then bar.red.popc over the block. */
static const char named_ptx[] = HDR
    ".visible .entry ws(.param .u64 out)\n{\n"
    ".reg .pred %p<4>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<6>;\n"
    ".shared .align 4 .b32 sh[64];\n"
    "mov.u32 %r1, %tid.x;\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "setp.ge.u32 %p1, %r1, 64;\n"
    "@%p1 bra CONS;\n"
    "mul.lo.u32 %r2, %r1, 3;\nshl.b32 %r3, %r1, 2;\nmov.u32 %r4, sh;\nadd.u32 %r5, %r4, %r3;\n"
    "st.shared.u32 [%r5], %r2;\n"
    "bar.arrive 1, 128;\n"
    "bra.uni RED;\n"
    "CONS:\n"
    "bar.sync 1, 128;\n"
    "sub.u32 %r6, %r1, 64;\nshl.b32 %r7, %r6, 2;\nmov.u32 %r4, sh;\nadd.u32 %r8, %r4, %r7;\n"
    "ld.shared.u32 %r9, [%r8];\n"
    "mul.wide.u32 %rd3, %r6, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r9;\n"
    "RED:\n"
    "and.b32 %r10, %r1, 3;\nsetp.eq.u32 %p2, %r10, 0;\n"
    "bar.red.popc.u32 %r11, 0, %p2;\n"
    "bar.red.and.pred %p3, 0, %p1;\n"
    "selp.u32 %r10, 1000, 0, %p3;\nadd.u32 %r11, %r11, %r10;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4+512], %r11;\n"
    "ret;\n}\n";

static void test_named_barriers(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, named_ptx, "ws");
    unsigned out[256];
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d);
    RUN_OK(kt_run(&t, 1, 128, 0));
    kt_get(&t, d, out, sizeof out);
    for (unsigned i = 0; i < 64; i++)
        if (out[i] != i * 3)
            fail_msg("consumer %u read %u, want %u", i, out[i], i * 3);
    for (unsigned i = 0; i < 128; i++)
        if (out[128 + i] != 32) /* popc of tid%4==0 over 128 threads; .and of tid>=64: false */
            fail_msg("bar.red result of thread %u = %u, want 32", i, out[128 + i]);
    kt_close(&t);
}

static void test_named_barrier_deadlock(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, named_ptx, "ws");
    uint64_t d = kt_buf(&t, NULL, 4 * 256);
    kt_arg(&t, 0, d);
    /* 96 threads: warp 2 waits for 128 threads on barrier 1, only 64 + 32 can ever arrive */
    assert_int_equal(kt_run(&t, 1, 96, 0), WL_EDEADLOCK);
    if (!strstr(t.err, "barrier 1") || !strstr(t.err, "warps 2 wait") ||
        !strstr(t.err, "96 of 128 threads arrived") || !strstr(t.err, "t.ptx:"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

static const char mismatch_ptx[] = HDR
    ".visible .entry mm()\n{\n.reg .pred %p<2>;\n.reg .b32 %r<3>;\n"
    "mov.u32 %r1, %tid.x;\nsetp.ge.u32 %p1, %r1, 32;\n@%p1 bra B;\n"
    "bar.sync 2, 64;\nret;\nB:\nbar.sync 2, 96;\nret;\n}\n";

static void test_barrier_count_mismatch(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, mismatch_ptx, "mm");
    assert_int_equal(kt_run(&t, 1, 96, 0), WL_EDEADLOCK);
    if (!strstr(t.err, "barrier 2 used with thread counts 64 and 96"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

/* A .func with a divergent early return, called by half the lanes; a value comes back through
 * the return parameter. */
static const char call_ptx[] = HDR
    ".func (.param .b32 rv) f(.param .b32 a)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<5>;\n"
    "ld.param.b32 %r1, [a];\nsetp.lt.s32 %p1, %r1, 10;\n"
    "@%p1 bra SMALL;\nmul.lo.s32 %r2, %r1, 100;\nst.param.b32 [rv], %r2;\nret;\n"
    "SMALL:\nadd.s32 %r3, %r1, 7;\nst.param.b32 [rv], %r3;\nret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<6>;\n"
    ".reg .b64 %rd<5>;\n"
    "mov.u32 %r1, %tid.x;\nmov.u32 %r5, 0;\n"
    "and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 1;\n@%p1 bra SKIP;\n"
    "{\n.param .b32 pa;\n.param .b32 pr;\nst.param.b32 [pa], %r1;\n"
    "call.uni (pr), f, (pa);\nld.param.b32 %r5, [pr];\n}\n"
    "SKIP:\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r5;\n"
    "ret;\n}\n";

static void test_divergent_call_return(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, call_ptx, "k");
    int out[64];
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d);
    RUN_OK(kt_run(&t, 1, 64, 0));
    kt_get(&t, d, out, sizeof out);
    for (int i = 0; i < 64; i++) {
        int want = (i & 1) ? 0 : i < 10 ? i + 7 : i * 100;
        if (out[i] != want)
            fail_msg("out[%d] = %d, want %d", i, out[i], want);
    }
    kt_close(&t);
}

/* The step API on one warp: what each instruction reports. */
static const char step_ptx[] = HDR
    ".visible .entry s(.param .u64 p)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<4>;\n"
    ".reg .b64 %rd<5>;\n"
    "ld.param.u64 %rd1, [p];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
    "setp.lt.u32 %p1, %r1, 8;\n"
    "@%p1 bra L;\n"
    "ld.global.u32 %r2, [%rd3];\n"
    "L:\n"
    "exit;\n}\n";

static void test_step_api(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, step_ptx, "s");
    uint64_t d = kt_buf(&t, NULL, 4 * 32);
    kt_arg(&t, 0, d);
    exec_grid g;
    memset(&g, 0, sizeof g);
    g.grid[0] = g.grid[1] = g.grid[2] = 1;
    g.block[0] = 20; g.block[1] = g.block[2] = 1;
    g.params = t.params;
    g.params_size = t.k->param_size;
    exec_prog *p;
    assert_int_equal(exec_prog_create(t.m, t.k, &g, t.mem, &p, &t.d), WL_OK);
    uint32_t c[3] = {0, 0, 0};
    exec_block *b = exec_block_create(p, c, &t.d);
    assert_non_null(b);
    exec_step_info in;
    int n = 0, saw_ld = 0, saw_div = 0, saw_exit = 0;
    while (exec_warp_state_of(b, 0) == EXEC_WARP_READY && n < 50) {
        assert_int_equal(exec_warp_step(b, 0, &in, &t.d), WL_OK);
        n++;
        if (in.exited && in.opcode == 0 && in.exec_mask == 0)
            break;
        if (in.opcode == PTX_OP_BRA) {
            if (!in.is_branch || !in.divergent || in.active != 0xfffffu || in.exec_mask != 0xffu)
                fail_msg("bra: branch %d divergent %d active 0x%x exec 0x%x", in.is_branch,
                         in.divergent, in.active, in.exec_mask);
            saw_div = 1;
        }
        if (in.opcode == PTX_OP_LD && in.mem_space == PTX_SPACE_GLOBAL) {
            if (in.active != 0xfff00u || in.mem_size != 4 || !in.mem_load ||
                in.addr[8] != d + 32 || in.addr[19] != d + 76 || in.unit != PTX_UNIT_LSU)
                fail_msg("ld: active 0x%x size %u addr8 0x%llx unit %d", in.active, in.mem_size,
                         (unsigned long long)in.addr[8], in.unit);
            /* ld.global.u32 %r2, [%rd3]: writes %r2, reads %rd3 (IR register indices) */
            if (in.ndst != 1 || in.nsrc != 1 ||
                strcmp(t.k->regs[in.dst[0]].name, "%r") != 0 || t.k->regs[in.dst[0]].num != 2 ||
                strcmp(t.k->regs[in.src[0]].name, "%rd") != 0 || t.k->regs[in.src[0]].num != 3)
                fail_msg("ld regs: %d dst %d src", in.ndst, in.nsrc);
            saw_ld = 1;
        }
        if (in.opcode == PTX_OP_EXIT) {
            saw_exit |= in.exit_mask;
            if (in.line == 0)
                fail_msg("exit without a line");
        }
    }
    if (!saw_ld || !saw_div || saw_exit != 0xfffff)
        fail_msg("ld %d divergent bra %d exits 0x%x after %d steps", saw_ld, saw_div, saw_exit, n);
    assert_int_equal(exec_warp_state_of(b, 0), EXEC_WARP_DONE);
    assert_int_equal(exec_block_done(b), 1);
    const exec_counts *cn = exec_block_counts(b);
    if (cn->branches != 1 || cn->divergent_branches != 1)
        fail_msg("branches %llu divergent %llu", (unsigned long long)cn->branches,
                 (unsigned long long)cn->divergent_branches);
    exec_block_destroy(b);
    exec_prog_destroy(p);
    kt_close(&t);
}

static const char unsup_ptx[] = HDR
    ".visible .entry u(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n"
    "mov.u32 %r1, %tid.x;\nsetp.gt.u32 %p1, %r1, 100;\n"
    "@%p1 fns.b32 %r2, %r1, 0, 1;\n"
    "ret;\n}\n";

static void test_unsupported_at_run_time(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, unsup_ptx, "u");
    /* guard false for every lane: the instruction issues but does nothing, so the launch works */
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_close(&t);
    kt_text(&t, unsup_ptx, "u");
    assert_int_equal(kt_run(&t, 1, 128, 0), WL_EUNSUPPORTED);
    if (!strstr(t.err, "t.ptx:10:") || !strstr(t.err, "fns"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

/* Instruction modifiers through the decoder: rounding, .ftz, .sat, cvt forms, f16, predicates. */
static const char mods_ptx[] = HDR
    ".visible .entry mods(.param .u64 out, .param .f32 one, .param .f32 tiny, .param .f32 sub,\n"
    "                     .param .f64 dthird, .param .s32 neg)\n{\n"
    ".reg .pred %p<4>;\n.reg .b16 %h<3>;\n.reg .b32 %r<40>;\n.reg .f32 %f<20>;\n"
    ".reg .b64 %rd<6>;\n.reg .f64 %fd<4>;\n"
    "ld.param.u64 %rd1, [out];\nld.param.f32 %f1, [one];\nld.param.f32 %f2, [tiny];\n"
    "ld.param.f32 %f3, [sub];\nld.param.f64 %fd1, [dthird];\nld.param.s32 %r1, [neg];\n"
    "add.rn.f32 %f4, %f1, %f2;\nst.global.f32 [%rd1+0], %f4;\n"      /* 1 + 2^-24: tie -> 1 */
    "add.rp.f32 %f5, %f1, %f2;\nst.global.f32 [%rd1+4], %f5;\n"      /* next float up */
    "add.ftz.f32 %f6, %f3, %f3;\nst.global.f32 [%rd1+8], %f6;\n"     /* subnormal in: 0 */
    "add.f32 %f7, %f3, %f3;\nst.global.f32 [%rd1+12], %f7;\n"        /* kept: 2*sub */
    "mul.sat.f32 %f8, %f1, 0f40400000;\nst.global.f32 [%rd1+16], %f8;\n" /* 3 -> 1.0 */
    "sub.sat.f32 %f9, %f2, %f1;\nst.global.f32 [%rd1+20], %f9;\n"    /* negative -> 0 */
    "cvt.rn.f32.f64 %f10, %fd1;\nst.global.f32 [%rd1+24], %f10;\n"
    "cvt.rz.f32.f64 %f11, %fd1;\nst.global.f32 [%rd1+28], %f11;\n"
    "cvt.rni.s32.f32 %r2, 0f40200000;\nst.global.u32 [%rd1+32], %r2;\n" /* 2.5 -> 2 */
    "cvt.rmi.s32.f32 %r3, 0fC0200000;\nst.global.u32 [%rd1+36], %r3;\n" /* -2.5 -> -3 */
    "cvt.rzi.u8.f32 %r4, 0f43960000;\nst.global.u32 [%rd1+40], %r4;\n"  /* 300 -> 255 */
    "cvt.sat.u8.s32 %r5, %r1;\nst.global.u32 [%rd1+44], %r5;\n"        /* -5 -> 0 */
    "cvt.s64.s32 %rd2, %r1;\nst.global.u64 [%rd1+48], %rd2;\n"         /* sign extension */
    "cvt.rn.f16.f32 %h1, %f10;\ncvt.u32.u16 %r6, %h1;\nst.global.u32 [%rd1+56], %r6;\n"
    "cvt.f32.f16 %f12, %h1;\nst.global.f32 [%rd1+60], %f12;\n"
    "setp.ltu.f32 %p1, %f1, 0f7FC00000;\nselp.u32 %r7, 1, 0, %p1;\nst.global.u32 [%rd1+64], %r7;\n"
    "setp.lt.f32 %p2, %f1, 0f7FC00000;\nselp.u32 %r8, 1, 0, %p2;\nst.global.u32 [%rd1+68], %r8;\n"
    "setp.gt.s32.and %p3|%p2, %r1, -10, %p1;\nselp.u32 %r9, 1, 0, %p3;\nselp.u32 %r10, 2, 0, %p2;\n"
    "add.u32 %r9, %r9, %r10;\nst.global.u32 [%rd1+72], %r9;\n"       /* p=1, q=0 -> 1 */
    "shl.b32 %r11, %r1, 33;\nst.global.u32 [%rd1+76], %r11;\n"         /* >= width: 0 */
    "shr.s32 %r12, %r1, 40;\nst.global.u32 [%rd1+80], %r12;\n"         /* sign fill */
    "div.u32 %r13, 7, 0;\nst.global.u32 [%rd1+84], %r13;\n"
    "rem.s32 %r14, %r1, 3;\nst.global.u32 [%rd1+88], %r14;\n"          /* -5 % 3 = -2 */
    "mul.hi.s32 %r15, %r1, 1073741824;\nst.global.u32 [%rd1+92], %r15;\n" /* -5*2^30 >> 32 */
    "mul.wide.s32 %rd3, %r1, 1000000;\nst.global.u64 [%rd1+96], %rd3;\n"
    "add.cc.u32 %r16, -1, 2;\naddc.u32 %r17, 10, 20;\nst.global.u32 [%rd1+104], %r17;\n" /* 31 */
    "min.s32 %r18, %r1, 3;\nst.global.u32 [%rd1+108], %r18;\n"
    "max.u32 %r19, %r1, 3;\nst.global.u32 [%rd1+112], %r19;\n"
    "abs.s32 %r20, %r1;\nst.global.u32 [%rd1+116], %r20;\n"
    "neg.f32 %f13, %f1;\nst.global.f32 [%rd1+120], %f13;\n"
    "div.rz.f64 %fd2, 0d3FF0000000000000, 0d4008000000000000;\nst.global.f64 [%rd1+128], %fd2;\n"
    "fma.rn.f64 %fd3, %fd1, 0d4008000000000000, 0dBFF0000000000000;\nst.global.f64 [%rd1+136], %fd3;\n"
    "testp.subnormal.f32 %p1, %f3;\nselp.u32 %r21, 1, 0, %p1;\nst.global.u32 [%rd1+144], %r21;\n"
    "copysign.f32 %f14, %f13, %f1;\nst.global.f32 [%rd1+148], %f14;\n" /* |1| with sign of -1 */
    "bfe.s32 %r22, 0xF000, 12, 4;\nst.global.u32 [%rd1+152], %r22;\n"
    "prmt.b32 %r23, 0x33221100, 0x77665544, 0x1234;\nst.global.u32 [%rd1+156], %r23;\n"
    "lop3.b32 %r24, 12, 10, 9, 0x96;\nst.global.u32 [%rd1+160], %r24;\n"
    "add.sat.s32 %r25, 2147483647, 1;\nst.global.u32 [%rd1+164], %r25;\n"
    "cvt.rn.bf16.f32 %h2, %f10;\ncvt.u32.u16 %r26, %h2;\nst.global.u32 [%rd1+168], %r26;\n"
    "ex2.approx.ftz.f32 %f15, 0f41200000;\nst.global.f32 [%rd1+172], %f15;\n"
    "rcp.rn.f32 %f16, 0f40400000;\nst.global.f32 [%rd1+176], %f16;\n"
    "sqrt.rp.f32 %f17, 0f40000000;\nst.global.f32 [%rd1+180], %f17;\n"
    "ret;\n}\n";

static void test_modifiers(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, mods_ptx, "mods");
    uint8_t out[184];
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d);
    kt_argf(&t, 1, 1.0f);
    kt_argf(&t, 2, ldexpf(1, -24));
    kt_argf(&t, 3, ldexpf(1, -130));
    double third = 1.0 / 3.0;
    uint64_t tb;
    memcpy(&tb, &third, 8);
    kt_arg(&t, 4, tb);
    kt_arg(&t, 5, (uint32_t)-5);
    RUN_OK(kt_run(&t, 1, 1, 0));
    kt_get(&t, d, out, sizeof out);
    struct { int off, size; uint64_t want; const char *what; } c[] = {
        {0, 4, 0x3f800000, "add.rn tie"}, {4, 4, 0x3f800001, "add.rp"},
        {8, 4, 0, "add.ftz subnormal"}, {12, 4, 0x00100000, "add subnormal kept"},
        {16, 4, 0x3f800000, "mul.sat"}, {20, 4, 0, "sub.sat"},
        {24, 4, 0x3eaaaaab, "cvt.rn.f32.f64"}, {28, 4, 0x3eaaaaaa, "cvt.rz.f32.f64"},
        {32, 4, 2, "cvt.rni"}, {36, 4, 0xfffffffd, "cvt.rmi"}, {40, 4, 255, "cvt.rzi.u8 sat"},
        {44, 4, 0, "cvt.sat.u8.s32"}, {48, 8, 0xfffffffffffffffbull, "cvt.s64.s32"},
        {56, 4, 0x3555, "cvt.rn.f16"}, {60, 4, 0x3eaaa000, "cvt.f32.f16"},
        {64, 4, 1, "setp.ltu NaN"}, {68, 4, 0, "setp.lt NaN"}, {72, 4, 1, "setp.and p|q"},
        {76, 4, 0, "shl >= width"}, {80, 4, 0xffffffff, "shr.s >= width"},
        {84, 4, 0xffffffff, "div.u32 by 0"}, {88, 4, 0xfffffffe, "rem.s32"},
        {92, 4, 0xfffffffe, "mul.hi.s32"}, {96, 8, (uint64_t)-5000000ll, "mul.wide.s32"},
        {104, 4, 31, "addc carry"}, {108, 4, 0xfffffffb, "min.s32"}, {112, 4, 0xfffffffb, "max.u32"},
        {116, 4, 5, "abs.s32"}, {120, 4, 0xbf800000, "neg.f32"},
        {128, 8, 0x3fd5555555555555ull, "div.rz.f64"}, {136, 8, 0xbc90000000000000ull, "fma.rn.f64: 3*(1/3) - 1 exactly"},
        {144, 4, 1, "testp.subnormal"}, {148, 4, 0xbf800000, "copysign"},
        {152, 4, 0xffffffff, "bfe.s32"}, {156, 4, 0x11223344, "prmt"}, {160, 4, 15, "lop3"},
        {164, 4, 0x7fffffff, "add.sat.s32"}, {168, 4, 0x3eab, "cvt.rn.bf16"},
        {172, 4, 0x44800000, "ex2"}, {176, 4, 0x3eaaaaab, "rcp.rn"}, {180, 4, 0x3fb504f4, "sqrt.rp"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        uint64_t v = 0;
        memcpy(&v, out + c[i].off, (size_t)c[i].size);
        if (v != c[i].want)
            fail_msg("%s: 0x%llx, want 0x%llx", c[i].what, (unsigned long long)v,
                     (unsigned long long)c[i].want);
    }
    kt_close(&t);
}

/* A grid of a million blocks runs in bounded memory (blocks are reused as they retire). */
static void test_million_blocks(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "vecadd");
    enum { N = 1000000 };
    uint64_t da = kt_buf(&t, NULL, N * 4), db = kt_buf(&t, NULL, N * 4), dc = kt_buf(&t, NULL, N * 4);
    float *a = (float *)devmem_translate(t.mem, da, N * 4), *b = (float *)devmem_translate(t.mem, db, N * 4);
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 2.0f;
    }
    kt_arg(&t, 0, da); kt_arg(&t, 1, db); kt_arg(&t, 2, dc); kt_arg(&t, 3, N);
    RUN_OK(kt_run(&t, N, 1, 0));
    assert_int_equal(t.st.blocks_done, N);
    const float *c = (const float *)devmem_translate(t.mem, dc, N * 4);
    for (int i = 0; i < N; i += 9973)
        if (c[i] != (float)i + 2.0f)
            fail_msg("c[%d] = %g", i, c[i]);
    if (c[N - 1] != (float)(N - 1) + 2.0f)
        fail_msg("last element %g", c[N - 1]);
    kt_close(&t);
}

/* Warp-wide forms nvcc rarely emits from CUDA C: vote.uni, match.all with its predicate,
 * redux.min/and, activemask and %lanemask_lt inside a divergent branch, shfl.idx with a segment
 * mask in c (width 8), out-of-segment shfl.down keeps the own value and clears the predicate. */
static const char warp2_ptx[] = HDR
    ".visible .entry w2(.param .u64 out)\n{\n"
    ".reg .pred %p<6>;\n.reg .b32 %r<30>;\n.reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %laneid;\n"
    "mul.wide.u32 %rd2, %r1, 64;\nadd.s64 %rd3, %rd1, %rd2;\n"
    "and.b32 %r2, %r1, 3;\nsetp.lt.u32 %p1, %r1, 40;\n"        /* true for all 32 lanes */
    "vote.sync.uni.pred %p2, %p1, -1;\nselp.u32 %r3, 1, 0, %p2;\nst.global.u32 [%rd3], %r3;\n"
    "match.all.sync.b32 %r4|%p3, %r2, -1;\nselp.u32 %r5, 1, 0, %p3;\n"
    "st.global.u32 [%rd3+4], %r4;\nst.global.u32 [%rd3+8], %r5;\n"
    "sub.s32 %r6, 100, %r1;\nredux.sync.min.s32 %r7, %r6, -1;\nst.global.u32 [%rd3+12], %r7;\n"
    "or.b32 %r8, %r1, 0xF0;\nredux.sync.and.b32 %r9, %r8, -1;\nst.global.u32 [%rd3+16], %r9;\n"
    "mov.u32 %r10, %lanemask_lt;\nst.global.u32 [%rd3+20], %r10;\n"
    "mov.u32 %r11, 0x1807;\n"                                  /* segmask 0x18: width 8, clamp 7 */
    "shfl.sync.idx.b32 %r12|%p4, %r1, 2, %r11, -1;\nst.global.u32 [%rd3+24], %r12;\n"
    "shfl.sync.down.b32 %r13|%p5, %r1, 6, 0x1f, -1;\nselp.u32 %r14, 1, 0, %p5;\n"
    "st.global.u32 [%rd3+28], %r13;\nst.global.u32 [%rd3+32], %r14;\n"
    "setp.eq.u32 %p1, %r2, 1;\nmov.u32 %r15, 0;\n@!%p1 bra SKIP;\n"
    "activemask.b32 %r15;\n"
    "SKIP:\nst.global.u32 [%rd3+36], %r15;\n"
    "ret;\n}\n";

static void test_warp_forms(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, warp2_ptx, "w2");
    uint32_t out[32 * 16];
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d);
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_get(&t, d, out, sizeof out);
    for (uint32_t l = 0; l < 32; l++) {
        const uint32_t *o = out + l * 16;
        uint32_t idx = (l & ~7u) | 2u;
        uint32_t want[10] = {1, 0, 0, 100 - 31, 0xf0, (1u << l) - 1, idx, l + 6 <= 31 ? l + 6 : l,
                             l + 6 <= 31, (l & 3) == 1 ? 0x22222222u : 0};
        for (int k = 0; k < 10; k++)
            if (o[k] != want[k])
                fail_msg("lane %u result %d = 0x%x, want 0x%x", l, k, o[k], want[k]);
    }
    kt_close(&t);
}

static void collect(void *ctx, const char *text)
{
    char *buf = ctx;
    size_t n = strlen(buf);
    snprintf(buf + n, 1024 - n, "%s", text);
}

/* Device printf goes to the launch's callback in execution order; a failed assert() faults. */
static void test_printf_assert(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/printf_assert.ptx", "pk");
    int in[32] = {0};
    uint64_t d = kt_buf(&t, in, sizeof in);
    kt_arg(&t, 0, d); kt_arg(&t, 1, 10);
    char out[1024] = "";
    launch_config c;
    memset(&c, 0, sizeof c);
    c.grid[0] = c.grid[1] = c.grid[2] = 1;
    c.block[0] = 32; c.block[1] = c.block[2] = 1;
    c.params = t.params;
    c.params_size = t.k->param_size;
    c.print = collect;
    c.print_ctx = out;
    if (launch_kernel(t.m, t.k, &c, t.mem, NULL, &t.d) != WL_OK)
        fail_msg("launch: %s", t.d.msg);
    assert_string_equal(out, "thread 3:  4.50 ok D 102 -3000000000000|\n"
                             "thread 19: 28.50 ok T 112 -19000000000000|\n");
    in[7] = 99; /* thread 7 fails assert(p[i] < n) */
    memcpy(devmem_translate(t.mem, d, sizeof in), in, sizeof in);
    out[0] = 0;
    diag_clear(&t.d);
    assert_int_equal(launch_kernel(t.m, t.k, &c, t.mem, NULL, &t.d), WL_EFAULT);
    diag_format(&t.d, t.err, sizeof t.err);
    if (!strstr(t.err, "device-side assertion `p[i] < n' failed (printf_assert.cu:12 in void pk(int *, int))") ||
        !strstr(t.err, "thread (7,0,0) in block (0,0,0)"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

/* ----------------------------------------------------------------------------------------- */
/* Faults and deadlocks                                                                      */
static void test_fault_oob(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "oob");
    uint64_t p = kt_buf(&t, NULL, 64 * 4);
    kt_arg(&t, 0, p); kt_arg(&t, 1, 64);
    assert_int_equal(kt_run(&t, 1, 32, 0), WL_EFAULT);
    if (!strstr(t.err, "invalid __global__ write of size 4 bytes") ||
        !strstr(t.err, "is out of bounds") || !strstr(t.err, "thread (0,0,0) in block (0,0,0)") ||
        !strstr(t.err, "basic.ptx:") || !strstr(t.err, "source line"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

static void test_fault_misaligned(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "misaligned");
    uint64_t p = kt_buf(&t, NULL, 1024);
    kt_arg(&t, 0, p);
    assert_int_equal(kt_run(&t, 1, 32, 0), WL_EFAULT);
    if (!strstr(t.err, "misaligned") || !strstr(t.err, "__global__ write of size 4"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

static void test_fault_shared(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "shared_oob");
    uint64_t p = kt_buf(&t, NULL, 1024);
    kt_arg(&t, 0, p); kt_arg(&t, 1, 40);
    assert_int_equal(kt_run(&t, 1, 32, 0), WL_EFAULT);
    if (!strstr(t.err, "__shared__ write of size 4") || !strstr(t.err, "thread (24,0,0)"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

static const char local_ptx[] = HDR
    ".visible .entry la(.param .u64 out, .param .u32 k)\n{\n"
    ".local .align 4 .b8 arr[16];\n"
    ".reg .b32 %r<6>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<3>;\n"
    "ld.param.u64 %rd1, [out];\nld.param.u32 %r1, [k];\nmov.u32 %r2, %tid.x;\n"
    "cvt.rn.f32.u32 %f1, %r2;\natom.global.add.f32 %f2, [%rd1], %f1;\n"
    "red.global.add.u64 [%rd1+8], 5;\n"
    "atom.global.exch.b32 %r3, [%rd1+16], %r2;\n"
    "mov.u64 %rd2, arr;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n"
    "st.local.u32 [%rd4], %r2;\nld.local.u32 %r4, [arr];\n"
    "mul.wide.u32 %rd5, %r2, 4;\nadd.s64 %rd6, %rd1, %rd5;\nst.global.u32 [%rd6+32], %r4;\n"
    "ret;\n}\n";

static void test_local_and_atomics(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, local_ptx, "la");
    uint8_t out[32 + 64 * 4];
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d); kt_arg(&t, 1, 0);
    RUN_OK(kt_run(&t, 1, 64, 0));
    kt_get(&t, d, out, sizeof out);
    float sum;
    uint64_t red;
    uint32_t exch, loc[64];
    memcpy(&sum, out, 4);
    memcpy(&red, out + 8, 8);
    memcpy(&exch, out + 16, 4);
    memcpy(loc, out + 32, sizeof loc);
    if (sum != 2016.0f || red != 320 || exch != 63)
        fail_msg("atom.add.f32 %g (want 2016), red.add.u64 %llu (want 320), exch %u (want 63)",
                 sum, (unsigned long long)red, exch);
    for (uint32_t i = 0; i < 64; i++)
        if (loc[i] != i) /* each thread's own local array */
            fail_msg("thread %u read %u from its local array", i, loc[i]);
    kt_close(&t);
    kt_text(&t, local_ptx, "la");
    d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d); kt_arg(&t, 1, 4); /* arr[4]: one past the 16-byte frame */
    assert_int_equal(kt_run(&t, 1, 64, 0), WL_EFAULT);
    if (!strstr(t.err, "invalid __local__ write of size 4 bytes: offset 0x10 is out of bounds") ||
        !strstr(t.err, "thread (0,0,0)") || !strstr(t.err, "t.ptx:20:"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

static void test_deadlock_divergent_sync(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "divergent_sync");
    uint64_t p = kt_buf(&t, NULL, 1024);
    kt_arg(&t, 0, p);
    assert_int_equal(kt_run(&t, 1, 64, 0), WL_EDEADLOCK);
    /* warp 1 skips the barrier and exits (exited threads count as arrived), warp 0 waits with
     * only its lanes 0-15: 16 of the 32 remaining threads ever arrive */
    if (!strstr(t.err, "barrier 0") || !strstr(t.err, "warps 0 wait") ||
        !strstr(t.err, "16 of 32 threads arrived; 32 threads exited"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

static void test_runaway(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "spin");
    uint64_t p = kt_buf(&t, NULL, 4);
    kt_arg(&t, 0, p);
    assert_int_equal(kt_run(&t, 1, 32, 0), WL_EDEADLOCK);
    if (!strstr(t.err, "exceeded 50000000 warp instructions"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

/* Every kernel we have, launched with garbage parameters (random 64-bit values, or pointers to
 * a small buffer): each launch must end with a status (ok, fault, deadlock, unsupported), never a
 * crash or hang. Runs under ASan+UBSan in CI. */
static void test_garbage_params_never_crash(void **state)
{
    (void)state;
    const char *files[] = {"tests/data/exec/basic.ptx", "tests/data/exec/async.ptx",
                           "gpu/ptx/reduction.ptx", "gpu/ptx/divergence.ptx",
                           "gpu/ptx/warp_spec.ptx", "gpu/ptx/syncwarp.ptx",
                           "gpu/ptx/bank_conflicts.ptx", "gpu/ptx/latency.ptx"};
    uint64_t seed = 1234;
    int runs = 0, by_status[5] = {0};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        ptx_module *m;
        diag_t d;
        if (ptx_parse_file(tu_path(files[f]), &m, &d) != WL_OK)
            continue; /* a lesson file not committed yet */
        for (uint32_t k = 0; k < m->nfuncs; k++) {
            const ptx_func *fn = &m->funcs[k];
            if (!fn->is_entry || fn->is_decl)
                continue;
            for (int trial = 0; trial < 3; trial++) {
                devmem_t *mem = devmem_create(1 << 24);
                uint64_t buf;
                devmem_alloc(mem, 4096, "buf", &buf, &d);
                uint8_t params[4096];
                for (size_t i = 0; i < sizeof params; i++)
                    params[i] = (uint8_t)rng(&seed);
                for (uint32_t i = 0; i < fn->nparams && trial == 1; i++)
                    if (fn->params[i].size == 8)
                        memcpy(params + fn->params[i].offset, &buf, 8);
                for (uint32_t i = 0; i < fn->nparams && trial == 2; i++) {
                    uint64_t v = fn->params[i].size == 8 ? buf : rng(&seed) % 64;
                    memcpy(params + fn->params[i].offset, &v, fn->params[i].size);
                }
                launch_config c;
                memset(&c, 0, sizeof c);
                c.grid[0] = 2; c.grid[1] = c.grid[2] = 1;
                c.block[0] = trial == 0 ? 96 : 64; c.block[1] = c.block[2] = 1;
                c.dyn_smem = 1024;
                c.params = params;
                c.params_size = fn->param_size;
                c.max_warp_insts = 200000;
                diag_clear(&d);
                wl_status st = launch_kernel(m, fn, &c, mem, NULL, &d);
                if (st == WL_EUSAGE || (int)st < 0 || (int)st > 4)
                    fail_msg("%s %s: status %d: %s", files[f], fn->name, st, d.msg);
                if (st != WL_OK && d.msg[0] == 0)
                    fail_msg("%s %s: status %d without a message", files[f], fn->name, st);
                by_status[st]++;
                runs++;
                devmem_destroy(mem);
            }
        }
        ptx_module_free(m);
    }
    if (runs < 30 || by_status[WL_EFAULT] == 0 || by_status[WL_OK] == 0)
        fail_msg("%d runs: %d ok, %d faults, %d deadlocks, %d unsupported", runs, by_status[0],
                 by_status[3], by_status[4], by_status[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vecadd),
        cmocka_unit_test(test_saxpy2d),
        cmocka_unit_test(test_diverge),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_histo_atomics),
        cmocka_unit_test(test_warpops),
        cmocka_unit_test(test_calls_local),
        cmocka_unit_test(test_intops),
        cmocka_unit_test(test_fmath),
        cmocka_unit_test(test_dmath),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_pipeline_cp_async),
        cmocka_unit_test(test_mbarrier_phases),
        cmocka_unit_test(test_modifiers),
        cmocka_unit_test(test_million_blocks),
        cmocka_unit_test(test_warp_forms),
        cmocka_unit_test(test_printf_assert),
        cmocka_unit_test(test_named_barriers),
        cmocka_unit_test(test_named_barrier_deadlock),
        cmocka_unit_test(test_barrier_count_mismatch),
        cmocka_unit_test(test_divergent_call_return),
        cmocka_unit_test(test_step_api),
        cmocka_unit_test(test_unsupported_at_run_time),
        cmocka_unit_test(test_fault_oob),
        cmocka_unit_test(test_fault_misaligned),
        cmocka_unit_test(test_fault_shared),
        cmocka_unit_test(test_local_and_atomics),
        cmocka_unit_test(test_deadlock_divergent_sync),
        cmocka_unit_test(test_runaway),
        cmocka_unit_test(test_garbage_params_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
