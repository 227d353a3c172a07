/* exec: whole kernels compiled by nvcc (the .cu files of tests/data/exec, with their .ptx) run
 * on the functional executor and checked against C references computed here; faults, deadlocks,
 * printf/assert, robustness. Hand-written PTX cases are in test_exec_ptx.c. */
#include "test_exec_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec.h"

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

static void test_recursion(void **state)
{
    (void)state;
    kt t;
    kt_open(&t, "tests/data/exec/basic.ptx", "recurse");
    unsigned long long out[64];
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d);
    RUN_OK(kt_run(&t, 1, 64, 0));
    kt_get(&t, d, out, sizeof out);
    for (int i = 0; i < 64; i++) {
        unsigned long long f = 1;
        for (int k = 2; k <= i % 21; k++)
            f *= (unsigned long long)k;
        if (out[i] != f)
            fail_msg("fact(%d) = %llu, want %llu", i % 21, out[i], f);
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
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_intops),
        cmocka_unit_test(test_fmath),
        cmocka_unit_test(test_dmath),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_pipeline_cp_async),
        cmocka_unit_test(test_mbarrier_phases),
        cmocka_unit_test(test_million_blocks),
        cmocka_unit_test(test_printf_assert),
        cmocka_unit_test(test_fault_oob),
        cmocka_unit_test(test_fault_misaligned),
        cmocka_unit_test(test_fault_shared),
        cmocka_unit_test(test_deadlock_divergent_sync),
        cmocka_unit_test(test_runaway),
        cmocka_unit_test(test_garbage_params_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
