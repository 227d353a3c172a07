/* warplab run, end to end through the binary: every usage error with its exit code
 * and message, the --json keys and their types, --dump contents checked against a C
 * reference, scalar widths, dynamic shared memory, faults, --max-cycles and a
 * 1,000,000-block grid in bounded memory. Kernels: tests/data/run/run_kernels.cu. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>

#include "argspec.h"
#include "semf.h"
#include "testutil.h"

#define PTX "tests/data/run/run_kernels.ptx"

/* Runs warplab with the NULL-terminated args; checks status, that stderr holds
 * want (when not NULL) on exactly one line, and returns the result. */
static void expect(tu_result *r, int status, const char *want, ...)
{
    const char *args[64];
    int n = 0;
    va_list ap;
    va_start(ap, want);
    for (const char *a; n < 63 && (a = va_arg(ap, const char *)) != NULL;)
        args[n++] = a;
    va_end(ap);
    tu_warplabv(r, n, args);
    char cmd[2048] = "";
    for (int i = 0; i < n; i++) {
        strncat(cmd, args[i], sizeof cmd - strlen(cmd) - 2);
        strcat(cmd, " ");
    }
    if (r->status != status)
        fail_msg("warplab %s\n  exit %d, want %d\n  stderr: %s\n  stdout: %.500s", cmd, r->status,
                 status, r->err, r->out);
    if (want) {
        if (!strstr(r->err, want))
            fail_msg("warplab %s\n  stderr '%s' lacks '%s'", cmd, r->err, want);
        const char *nl = strchr(r->err, '\n');
        if (status != 0 && (!nl || nl[1] != '\0'))
            fail_msg("warplab %s\n  stderr is not exactly one line: '%s'", cmd, r->err);
    }
}

static void test_help(void **state)
{
    (void)state;
    tu_result r;
    expect(&r, 0, NULL, "run", "--help", NULL);
    assert_non_null(strstr(r.out, "usage: warplab run KERNEL.ptx --kernel NAME"));
    assert_non_null(strstr(r.out, "affine(A,C,M)"));
    tu_free(&r);
}

static void test_usage_errors(void **state)
{
    (void)state;
    const char *ptx = tu_path(PTX);
    tu_result r;
#define E(want, ...)                                  \
    do {                                              \
        expect(&r, 1, want, "run", __VA_ARGS__, NULL); \
        tu_free(&r);                                  \
    } while (0)
#define SAXPY ptx, "--kernel", "saxpy"
#define SAXPY_ARGS "--arg", "s32:4", "--arg", "f32:2", "--arg", "f32[4]:iota", "--arg", "f32[4]:zeros"
    E("missing KERNEL.ptx", "--kernel", "saxpy");
    E("missing --kernel NAME: ", ptx, "--grid", "1", "--block", "32");
    E("run_kernels.ptx has 8 kernels: saxpy, widths", ptx, "--grid", "1", "--block", "32");
    E("missing --grid", SAXPY, "--block", "32");
    E("missing --block", SAXPY, "--grid", "1");
    E("more than one PTX file", SAXPY, "other.ptx", "--grid", "1", "--block", "32");
    E("unknown option '--frobnicate'", SAXPY, "--frobnicate");
    E("unknown option '-x'", SAXPY, "-x");
    E("option --grid needs a value", SAXPY, "--block", "32", "--grid");
    E("option --kernel needs a non-empty value", ptx, "--kernel=", "--grid", "1", "--block", "1");
    E("--grid '0': '0' is not a positive integer", SAXPY, "--grid", "0", "--block", "32");
    E("--grid 'a': 'a' is not a positive integer", SAXPY, "--grid", "a", "--block", "32");
    E("--grid '1,,2': expected X[,Y[,Z]]", SAXPY, "--grid", "1,,2", "--block", "32");
    E("--grid '1,': expected X[,Y[,Z]]", SAXPY, "--grid", "1,", "--block", "32");
    E("--block '1,2,3,4': at most 3 dimensions", SAXPY, "--grid", "1", "--block", "1,2,3,4");
    E("'99999999999' is not a positive integer", SAXPY, "--grid", "99999999999", "--block", "1");
    E("--smem '-1': expected a byte count", SAXPY, "--grid", "1", "--block", "32", "--smem", "-1");
    E("--regs '0': expected registers per thread, 1..255", SAXPY, "--grid", "1", "--block", "32",
      "--regs", "0");
    E("--regs '256'", SAXPY, "--grid", "1", "--block", "32", "--regs", "256");
    E("--max-cycles 'x': expected a positive integer", SAXPY, "--grid", "1", "--block", "32",
      "--max-cycles", "x");
    E("--policy 'fifo': expected lrr, gto, gty, brr or two-level", SAXPY, "--grid", "1", "--block", "32",
      "--policy", "fifo");
    /* launch limits (checked after the arch and the PTX load) */
    E("--block 1025: x dimension 1025 exceeds CUDA's limit 1024", SAXPY, SAXPY_ARGS, "--grid",
      "1", "--block", "1025");
    E("--block 1,1,65: z dimension 65 exceeds CUDA's limit 64", SAXPY, SAXPY_ARGS, "--grid", "1",
      "--block", "1,1,65");
    E("2048 threads per block exceeds the h200 limit of 1024", SAXPY, SAXPY_ARGS, "--grid", "1",
      "--block", "32,32,2");
    E("--grid 2147483648: x dimension 2147483648 exceeds CUDA's limit 2147483647", SAXPY,
      SAXPY_ARGS, "--grid", "2147483648", "--block", "1");
    E("--grid 1,65536: y dimension 65536 exceeds CUDA's limit 65535", SAXPY, SAXPY_ARGS, "--grid",
      "1,65536", "--block", "1");
    E("exceeds the h200 per-block limit of", SAXPY, SAXPY_ARGS, "--grid", "1", "--block", "32",
      "--smem", "300000");
    /* inputs */
    E("x100", ptx, "--kernel", "saxpy", "--arch", "x100", "--grid", "1", "--block", "1");
    E("/nonexistent.ptx", "/nonexistent.ptx", "--kernel", "k", "--grid", "1", "--block", "1");
    E("no kernel 'saxpyi' in", SAXPY "i", "--grid", "1", "--block", "1");
    E("kernels: saxpy, widths, count_blocks, overrun, by_value, reverse_smem, call_twice", ptx,
      "--kernel", "nope", "--grid", "1", "--block", "1");
    E("'twice' in", ptx, "--kernel", "twice", "--grid", "1", "--block", "1");
    E("is a device function (.func), not a kernel", ptx, "--kernel", "twice", "--grid", "1",
      "--block", "1");
    /* arguments */
    E("kernel 'saxpy' has 4 parameters, got 3 --arg options", SAXPY, "--grid", "1", "--block",
      "32", "--arg", "s32:4", "--arg", "f32:2", "--arg", "f32[4]:iota");
    E("kernel 'saxpy' has 4 parameters, got 0 --arg options", SAXPY, "--grid", "1", "--block",
      "32");
    E("parameter 0 'saxpy_param_0' is .u32, but --arg 'f32[4]:zeros' is a buffer", SAXPY, "--grid",
      "1", "--block", "32", "--arg", "f32[4]:zeros", "--arg", "f32:2", "--arg", "f32[4]:iota",
      "--arg", "f32[4]:zeros");
    E("parameter 1 'saxpy_param_1' is .f32 (4 bytes), but --arg 'f64:2' is 8 bytes", SAXPY,
      "--grid", "1", "--block", "32", "--arg", "s32:4", "--arg", "f64:2", "--arg", "f32[4]:iota",
      "--arg", "f32[4]:zeros");
    E("parameter 2 'saxpy_param_2' is .u64 (8 bytes), but --arg 'u32:0' is 4 bytes", SAXPY,
      "--grid", "1", "--block", "32", "--arg", "s32:4", "--arg", "f32:2", "--arg", "u32:0",
      "--arg", "f32[4]:zeros");
    E("--arg 'f32[4]:ones': unknown INIT 'ones'", SAXPY, "--grid", "1", "--block", "32", "--arg",
      "s32:4", "--arg", "f32:2", "--arg", "f32[4]:ones", "--arg", "f32[4]:zeros");
    E("--arg 'u8:300': u8 value '300' is out of range", ptx, "--kernel", "widths", "--grid", "1",
      "--block", "1", "--arg", "u8:300", "--arg", "s16:1", "--arg", "u32:1", "--arg", "f64:1",
      "--arg", "f64[1]:zeros");
    E("a file is in the way", ptx, "--kernel", "overrun", "--grid", "1", "--block", "32",
      "--arg", "f32[32]:zeros", "--arg", "s32:0", "--dump", ptx);
    E("parameter 0 'by_value_param_0' is an aggregate of 8 bytes", ptx, "--kernel", "by_value",
      "--grid", "1", "--block", "1", "--arg", "u64:0", "--arg", "s32[1]:zeros");
    E("(a __half or __nv_bfloat16 by value: f16:V or bf16:V)", ptx, "--kernel", "halves",
      "--grid", "1", "--block", "1", "--arg", "f16[1]:zeros", "--arg", "u16:1", "--arg",
      "bf16:1", "--arg", "bf16[1]:zeros", "--arg", "s32:1");
#undef E
}

/* Runs saxpy with --json and checks every key's presence and type. */
static void test_json_keys(void **state)
{
    (void)state;
    tu_result r;
    expect(&r, 0, NULL, "run", tu_path(PTX), "--kernel", "saxpy", "--arch", "h200", "--grid",
           "4", "--block", "256", "--json", "--arg", "s32:1000", "--arg", "f32:2", "--arg",
           "f32[1000]:iota", "--arg", "f32[1000]:const(1)", NULL);
    cJSON *j = cJSON_Parse(r.out);
    if (!j)
        fail_msg("stdout is not JSON: %s", r.out);
    const char *nums[] = {"regs", "blocks_per_sm", "theoretical_occupancy", "warp_instructions",
                          "thread_instructions", "branch_efficiency", "sim_seconds"};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (!cJSON_IsNumber(cJSON_GetObjectItem(j, nums[i])))
            fail_msg("key '%s' missing or not a number in %s", nums[i], r.out);
    /* the timing model's keys (docs/model.md, section 10) */
    const char *timed[] = {"achieved_occupancy", "cycles", "time_us", "ipc",
                           "shared_bank_conflicts", "l1_hit_rate", "l2_hit_rate", "dram_bytes"};
    for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++)
        if (!cJSON_IsNumber(cJSON_GetObjectItem(j, timed[i])))
            fail_msg("key '%s' missing or not a number: %s", timed[i], r.out);
    if (!cJSON_IsObject(cJSON_GetObjectItem(j, "stalls")))
        fail_msg("key 'stalls' missing or not an object: %s", r.out);
    assert_string_equal(cJSON_GetObjectItem(j, "kernel")->valuestring, "saxpy");
    assert_string_equal(cJSON_GetObjectItem(j, "arch")->valuestring, "h200");
    assert_string_equal(cJSON_GetObjectItem(j, "mode")->valuestring, "timed");
    const char *src = cJSON_GetObjectItem(j, "regs_source")->valuestring;
    if (strcmp(src, "ptxas") != 0 && strcmp(src, "estimate") != 0)
        fail_msg("regs_source '%s' is neither ptxas nor estimate", src);
    cJSON *grid = cJSON_GetObjectItem(j, "grid"), *block = cJSON_GetObjectItem(j, "block");
    assert_true(cJSON_IsArray(grid) && cJSON_GetArraySize(grid) == 3);
    assert_int_equal(cJSON_GetArrayItem(grid, 0)->valueint, 4);
    assert_int_equal(cJSON_GetArrayItem(block, 0)->valueint, 256);
    assert_int_equal(cJSON_GetArrayItem(block, 2)->valueint, 1);
    /* 4 blocks of 8 warps; every thread runs at least the bounds check */
    double wi = cJSON_GetObjectItem(j, "warp_instructions")->valuedouble;
    double ti = cJSON_GetObjectItem(j, "thread_instructions")->valuedouble;
    if (!(wi >= 32 * 5 && ti > wi && ti <= 32 * wi))
        fail_msg("warp_instructions %g, thread_instructions %g implausible", wi, ti);
    cJSON *ops = cJSON_GetObjectItem(j, "opcodes");
    assert_true(cJSON_IsObject(ops));
    double sum = 0;
    for (cJSON *o = ops->child; o; o = o->next)
        sum += o->valuedouble;
    if (sum != wi)
        fail_msg("opcode counts sum to %g, warp_instructions is %g", sum, wi);
    if (!cJSON_GetObjectItem(ops, "fma") || !cJSON_GetObjectItem(ops, "ld"))
        fail_msg("opcodes lacks fma or ld: %s", r.out);
    /* 1000 of 1024 threads pass `if (i < n)`: one divergent warp branch */
    double be = cJSON_GetObjectItem(j, "branch_efficiency")->valuedouble;
    if (!(be > 0 && be < 1))
        fail_msg("branch_efficiency %g, want in (0,1): warp 31 diverges at i < 1000", be);
    cJSON_Delete(j);
    tu_free(&r);
}

/* The dumped file DIR/NAME, which must exist with exactly want bytes (caller frees). */
static char *dumped(const char *dir, const char *name, size_t want)
{
    char path[512];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *b = tu_read_file(path, &len);
    if (!b)
        fail_msg("--dump did not write %s", path);
    if (len != want)
        fail_msg("%s has %zu bytes, want %zu", path, len, want);
    return b;
}

/* y = a*x + y on random data, checked bit-exactly against fmaf (nvcc contracts to fma.rn). */
static void test_dump_saxpy(void **state)
{
    (void)state;
    char dir[256];
    snprintf(dir, sizeof dir, "%s/dump/nested", tu_tmpdir()); /* parents are created */
    const char *xs = "f32[1000]:random(-1,1,7)", *ys = "f32[1000]:random(0,100,8)";
    char dumpopt[300];
    snprintf(dumpopt, sizeof dumpopt, "--dump=%s", dir); /* the --opt=VALUE form */
    tu_result r;
    expect(&r, 0, NULL, "run", tu_path(PTX), "--kernel=saxpy", "--grid", "4", "--block=256",
           "--arg", "s32:1000", "--arg=f32:-1.5", "--arg", xs, "--arg", ys, dumpopt, NULL);
    assert_non_null(strstr(r.out, "kernel saxpy on h200"));
    tu_free(&r);
    char *bx = dumped(dir, "arg2.bin", 4000), *by = dumped(dir, "arg3.bin", 4000);
    char scalar[512];
    snprintf(scalar, sizeof scalar, "%s/arg0.bin", dir);
    assert_null(tu_read_file(scalar, NULL)); /* scalars are not dumped */
    argspec ax, ay;
    diag_t d;
    assert_int_equal(argspec_parse(xs, &ax, &d), WL_OK);
    assert_int_equal(argspec_parse(ys, &ay, &d), WL_OK);
    float x[1000], y[1000];
    argspec_fill(&ax, x, &d);
    argspec_fill(&ay, y, &d);
    assert_memory_equal(bx, x, 4000); /* x is read-only: unchanged */
    for (int i = 0; i < 1000; i++) {
        float got, want = fmaf(-1.5f, x[i], y[i]);
        memcpy(&got, by + 4 * i, 4);
        if (got != want)
            fail_msg("y[%d] = %.9g, want -1.5 * %.9g + %.9g = %.9g", i, (double)got, (double)x[i],
                     (double)y[i], (double)want);
    }
    free(bx);
    free(by);
}

/* Every scalar width reaches the kernel: out = u8 + s16 (sign-extended) + u32 + f64. */
static void test_scalar_widths(void **state)
{
    (void)state;
    char dir[256];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir());
    tu_result r;
    expect(&r, 0, NULL, "run", tu_path(PTX), "--kernel", "widths", "--grid", "1", "--block", "2",
           "--arg", "u8:200", "--arg", "s16:-5", "--arg", "u32:0x186a0", "--arg", "f64:0.25",
           "--arg", "f64[2]:const(-1)", "--dump", dir, NULL);
    tu_free(&r);
    char *b = dumped(dir, "arg4.bin", 16);
    double v[2];
    memcpy(v, b, 16);
    if (v[0] != 100195.25 || v[1] != 100195.25)
        fail_msg("widths: out = {%.17g, %.17g}, want 200 - 5 + 100000 + 0.25 = 100195.25", v[0],
                 v[1]);
    free(b);
}

/* 16-bit floats end to end: f16 and bf16 buffers and by-value scalars (nvcc's 2-byte
 * aggregates), y = bf16(f16(x * s)) + b with one rounding per operation, each checked against
 * the rounding of the exact value (semf_round). */
static void test_half_args(void **state)
{
    (void)state;
    char dir[256];
    snprintf(dir, sizeof dir, "%s/halves", tu_tmpdir());
    const char *xs = "f16[300]:random(-4,4,3)";
    tu_result r;
    expect(&r, 0, NULL, "run", tu_path(PTX), "--kernel", "halves", "--grid", "2", "--block",
           "256", "--arg", xs, "--arg", "f16:0.3", "--arg", "bf16:-1.25", "--arg",
           "bf16[300]:zeros", "--arg", "s32:300", "--dump", dir, NULL);
    tu_free(&r);
    char *bx = dumped(dir, "arg0.bin", 600), *by = dumped(dir, "arg3.bin", 600);
    double s = semf_decode(semf_round(0.3, 0, SEMF_F16, SEMF_RN), SEMF_F16);
    assert_true(s == 0x1.334p-2); /* 0.3 as f16: 0.300048828125 */
    for (int i = 0; i < 300; i++) {
        double x = argspec_load_float(ARGSPEC_F16, bx + 2 * i);
        double p = semf_decode(semf_round(x * s, 0, SEMF_F16, SEMF_RN), SEMF_F16);
        double q = semf_decode(semf_round(p, 0, SEMF_BF16, SEMF_RN), SEMF_BF16);
        double want = semf_decode(semf_round(q - 1.25, 0, SEMF_BF16, SEMF_RN), SEMF_BF16);
        double got = argspec_load_float(ARGSPEC_BF16, by + 2 * i);
        assert_true(x >= -4 && x < 4);
        if (got != want)
            fail_msg("y[%d] = %.9g, want bf16(f16(%.9g x %.9g)) - 1.25 = %.9g", i, got, x, s,
                     want);
    }
    free(bx);
    free(by);
    /* the H200's results of the same kernel on 4096 elements (gpu/microbench/halves.cu, its
     * inputs made from the same specs): equal bit for bit */
    char *mj = tu_read_file(tu_path("gpu/measured/h200/microbench/halves.json"), NULL);
    assert_non_null(mj);
    cJSON *m = cJSON_Parse(mj), *h = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "results"),
                                                          "halves");
    assert_non_null(h);
    const char *hex = cJSON_GetObjectItem(h, "y_hex")->valuestring;
    assert_int_equal(strlen(hex), 4096 * 4);
    char xspec[80];
    snprintf(xspec, sizeof xspec, "%s", cJSON_GetObjectItem(h, "x")->valuestring);
    snprintf(dir, sizeof dir, "%s/halves-h200", tu_tmpdir());
    expect(&r, 0, NULL, "run", tu_path(PTX), "--kernel", "halves", "--grid", "16", "--block",
           "256", "--arg", xspec, "--arg", cJSON_GetObjectItem(h, "s")->valuestring, "--arg",
           cJSON_GetObjectItem(h, "b")->valuestring, "--arg", "bf16[4096]:zeros", "--arg",
           "s32:4096", "--dump", dir, NULL);
    tu_free(&r);
    by = dumped(dir, "arg3.bin", 8192);
    for (int i = 0; i < 4096; i++) {
        unsigned want = 0;
        assert_int_equal(sscanf(hex + 4 * i, "%4x", &want), 1);
        unsigned got = (unsigned char)by[2 * i] | (unsigned char)by[2 * i + 1] << 8;
        if (got != want)
            fail_msg("halves y[%d] = 0x%04x, the H200's 0x%04x", i, got, want);
    }
    free(by);
    cJSON_Delete(m);
    free(mj);
}

/* ---- tensor cores: mma.sync (tests/data/mma/mma_kernels.cu, sim/exec/xmma.c) ---------------- */
#define MMA_PTX "tests/data/mma/mma_kernels.ptx"

/* Runs mma kernel k on `tiles` warp tiles from the specs, dumping into a new folder (to dir, 256
 * bytes), and returns D (tiles x 128 floats). */
static float *mma_run(const char *k, const char *as, const char *bs, const char *cs, int tiles,
                      char *dir)
{
    char grid[16], dspec[32], n[16];
    snprintf(dir, 256, "%s/mma", tu_tmpdir());
    snprintf(grid, sizeof grid, "%d", (tiles * 32 + 127) / 128);
    snprintf(dspec, sizeof dspec, "f32[%d]:zeros", tiles * 128);
    snprintf(n, sizeof n, "s32:%d", tiles);
    tu_result r;
    expect(&r, 0, NULL, "run", tu_path(MMA_PTX), "--kernel", k, "--grid", grid, "--block", "128",
           "--arg", as, "--arg", bs, "--arg", cs, "--arg", dspec, "--arg", n, "--dump", dir,
           NULL);
    tu_free(&r);
    return (float *)(void *)dumped(dir, "arg3.bin", (size_t)tiles * 512);
}

/* The H200's results of the three kernels (gpu/microbench/mma.cu: 64 tiles each, small
 * integers and random values, inputs made from the same specs) equal the model's bit for bit:
 * the fragment layout and the tensor core's adder (aligned to the largest exponent, 3 extra
 * bits, cut toward zero). */
static void test_mma_h200(void **state)
{
    (void)state;
    char *mj = tu_read_file(tu_path("gpu/measured/h200/microbench/mma.json"), NULL);
    assert_non_null(mj);
    cJSON *m = cJSON_Parse(mj), *res = cJSON_GetObjectItem(m, "results");
    static const struct {
        const char *key, *kernel;
    } runs[] = {{"f16_int", "mma_f16"},       {"f16_random", "mma_f16"},
                {"bf16_int", "mma_bf16"},     {"bf16_random", "mma_bf16"},
                {"f16_k8_int", "mma_f16_k8"}, {"f16_k8_random", "mma_f16_k8"}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        cJSON *h = cJSON_GetObjectItem(res, runs[i].key);
        assert_non_null(h);
        int tiles = cJSON_GetObjectItem(h, "tiles")->valueint;
        const char *hex = cJSON_GetObjectItem(h, "d_hex")->valuestring;
        assert_int_equal(strlen(hex), (size_t)tiles * 128 * 8);
        char dir[256];
        float *d = mma_run(runs[i].kernel, cJSON_GetObjectItem(h, "a")->valuestring,
                           cJSON_GetObjectItem(h, "b")->valuestring,
                           cJSON_GetObjectItem(h, "c")->valuestring, tiles, dir);
        for (int e = 0; e < tiles * 128; e++) {
            unsigned want = 0;
            uint32_t got;
            memcpy(&got, &d[e], 4);
            assert_int_equal(sscanf(hex + 8 * e, "%8x", &want), 1);
            if (got != want)
                fail_msg("%s: D[%d] = 0x%08x (%.9g), the H200's 0x%08x", runs[i].key, e, got,
                         (double)d[e], want);
        }
        free(d);
    }
    cJSON_Delete(m);
    free(mj);
}

/* Against the exact product (each element's 16 products and C summed in a long double from the
 * dumped inputs), over values spread across many binades: the tensor core's sum keeps 27 bits
 * below the largest term's window E (docs/exec.md) and cuts the rest, so each of the 17 terms
 * loses less than 2^(E-27) and the result's cut toward zero at most one f32 ulp more. The
 * element layout is the PTX ISA's (row-major A, column-major B). */
static void test_mma_exact_bound(void **state)
{
    (void)state;
    const int tiles = 8;
    const char *as = "f16[2048]:random(-60000,60000,11)", *bs = "f16[1024]:random(-0.01,0.01,12)",
               *cs = "f32[1024]:random(-500,500,13)";
    char dir[256];
    float *d = mma_run("mma_f16", as, bs, cs, tiles, dir);
    char *A = dumped(dir, "arg0.bin", 4096), *B = dumped(dir, "arg1.bin", 2048);
    float *C = (float *)(void *)dumped(dir, "arg2.bin", 4096);
    int checked = 0;
    for (int t = 0; t < tiles; t++)
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 8; j++) {
                long double s = C[128 * t + 8 * i + j];
                int e = INT32_MIN, ex;
                (void)frexp(C[128 * t + 8 * i + j], &ex);
                e = C[128 * t + 8 * i + j] != 0 ? ex + 1 : e; /* C's window: its exponent + 1 */
                for (int k = 0; k < 16; k++) {
                    double a = argspec_load_float(ARGSPEC_F16, A + 2 * (256 * t + 16 * i + k));
                    double b = argspec_load_float(ARGSPEC_F16, B + 2 * (128 * t + 16 * j + k));
                    int ea, eb;
                    (void)frexp(a, &ea);
                    (void)frexp(b, &eb);
                    if (a != 0 && b != 0 && ea + eb > e)
                        e = ea + eb;
                    s += (long double)a * b;
                }
                double got = d[128 * t + 8 * i + j];
                double bound = 17 * ldexp(1, e - 27) + fabs((double)s) * 0x1p-23;
                if (fabsl((long double)got - s) > bound)
                    fail_msg("tile %d D[%d][%d] = %.9g, exact %.9Lg, bound %.3g", t, i, j, got, s,
                             bound);
                checked++;
            }
    assert_int_equal(checked, tiles * 128);
    free(d);
    free(A);
    free(B);
    free(C);
}

/* A warp with lanes off at an mma.sync (undefined on the GPU) is a fault naming the first
 * missing thread and the PTX line; with all 32 lanes the same kernel runs, and so does an mma
 * whose guard is false in every lane (no lane executes it). */
static void test_mma_partial_warp(void **state)
{
    (void)state;
    tu_result r;
    expect(&r, 3, "mma.sync.aligned needs all 32 lanes of the warp (only lanes 0x0000ffff", "run",
           tu_path(MMA_PTX), "--kernel", "mma_partial", "--grid", "1", "--block", "32", "--arg",
           "f16[256]:zeros", "--arg", "f16[128]:zeros", "--arg", "f32[128]:zeros", "--arg",
           "f32[128]:zeros", "--arg", "s32:16", NULL);
    if (!strstr(r.err, "by thread (16,0,0) in block (0,0,0)") || !strstr(r.err, ".ptx:"))
        fail_msg("%s", r.err);
    tu_free(&r);
    expect(&r, 0, NULL, "run", tu_path(MMA_PTX), "--kernel", "mma_partial", "--grid", "1",
           "--block", "32", "--arg", "f16[256]:zeros", "--arg", "f16[128]:zeros", "--arg",
           "f32[128]:zeros", "--arg", "f32[128]:zeros", "--arg", "s32:32", NULL);
    tu_free(&r);
    static const char off[] =
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
        ".reg .pred %p<2>;\n.reg .f32 %f<8>;\n.reg .b32 %r<4>;\nmov.u32 %r1, %tid.x;\n"
        "setp.gt.u32 %p1, %r1, 100;\n"
        "@%p1 mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r1}, "
        "{%r1}, {%f5, %f5, %f5, %f5};\nret;\n}\n";
    char path[512];
    assert_non_null(tu_tmpfile("off.ptx", off, path, sizeof path));
    expect(&r, 0, NULL, "run", path, "--kernel", "k", "--grid", "1", "--block", "32", NULL);
    tu_free(&r);
}

/* ---- wmma (tests/data/wmma/wmma_kernels.cu, sim/exec/xmem.c do_wmma, xmma.c) ---------------- */
#define WMMA_PTX "tests/data/wmma/wmma_kernels.ptx"

/* Compares the words of dump file DIR/NAME with the H200's hex string (words of 32 bits). */
static void same_words(const char *what, const char *dir, const char *name, const char *hex)
{
    size_t n = strlen(hex) / 8;
    char *d = dumped(dir, name, n * 4);
    for (size_t e = 0; e < n; e++) {
        unsigned want = 0;
        uint32_t got;
        memcpy(&got, d + 4 * e, 4);
        assert_int_equal(sscanf(hex + 8 * e, "%8x", &want), 1);
        if (got != want)
            fail_msg("%s: word %zu = 0x%08x, the H200's 0x%08x", what, e, got, want);
    }
    free(d);
}

/* The H200's wmma (gpu/microbench/wmma.cu, gpu/measured/h200/microbench/wmma.json): the
 * fragment layouts (where each lane's elements come from, for A and B in both layouts, bf16,
 * and C loaded row- and column-major), 32 tiles of D = A x B + s C in every layout pair and
 * bf16, and a 32 x 32 x 32 product through shared memory that chains two mma per tile: the
 * model's equal the H200's bit for bit. */
static void test_wmma_h200(void **state)
{
    (void)state;
    char *mj = tu_read_file(tu_path("gpu/measured/h200/microbench/wmma.json"), NULL);
    assert_non_null(mj);
    cJSON *m = cJSON_Parse(mj), *res = cJSON_GetObjectItem(m, "results");
    static const char *const layouts[][2] = {
        {"layout_a_row", "wl_a_row"}, {"layout_a_col", "wl_a_col"},
        {"layout_b_row", "wl_b_row"}, {"layout_b_col", "wl_b_col"},
        {"layout_a_row_bf16", "wl_a_row_bf16"}, {"layout_c_row", "wl_c_row"},
        {"layout_c_col", "wl_c_col"}};
    tu_result r;
    char dir[256];
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        cJSON *h = cJSON_GetObjectItem(res, layouts[i][0]), *el;
        assert_non_null(h);
        snprintf(dir, sizeof dir, "%s/wl", tu_tmpdir());
        expect(&r, 0, NULL, "run", tu_path(WMMA_PTX), "--kernel", layouts[i][1], "--grid", "1",
               "--block", "32", "--arg", cJSON_GetObjectItem(h, "matrix")->valuestring, "--arg",
               "f32[512]:zeros", "--dump", dir, NULL);
        tu_free(&r);
        float *out = (float *)(void *)dumped(dir, "arg1.bin", 2048);
        int e = 0;
        cJSON_ArrayForEach(el, cJSON_GetObjectItem(h, "element"))
        {
            if ((int)out[e] != el->valueint)
                fail_msg("%s: lane %d element %d holds %d, on the H200 %d", layouts[i][0], e / 16,
                         e % 16, (int)out[e], el->valueint);
            e++;
        }
        assert_int_equal(e, 512);
        free(out);
    }
    static const char *const tiles[][2] = {{"rc_int", "wmma_rc"},   {"rc_random", "wmma_rc"},
                                           {"rr_random", "wmma_rr"}, {"cc_random", "wmma_cc"},
                                           {"cr_random", "wmma_cr"},
                                           {"bf16_rc_random", "wmma_bf16_rc"}};
    for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++) {
        cJSON *h = cJSON_GetObjectItem(res, tiles[i][0]);
        assert_non_null(h);
        int t = cJSON_GetObjectItem(h, "tiles")->valueint;
        char grid[16], dspec[32], s[48], n[16];
        snprintf(grid, sizeof grid, "%d", cJSON_GetObjectItem(h, "grid")->valueint);
        snprintf(dspec, sizeof dspec, "f32[%d]:zeros", 256 * t);
        snprintf(s, sizeof s, "f32:%.9g", cJSON_GetObjectItem(h, "s")->valuedouble);
        snprintf(n, sizeof n, "s32:%d", t);
        snprintf(dir, sizeof dir, "%s/wt", tu_tmpdir());
        expect(&r, 0, NULL, "run", tu_path(WMMA_PTX), "--kernel", tiles[i][1], "--grid", grid,
               "--block", "128", "--arg", cJSON_GetObjectItem(h, "a")->valuestring, "--arg",
               cJSON_GetObjectItem(h, "b")->valuestring, "--arg",
               cJSON_GetObjectItem(h, "c")->valuestring, "--arg", dspec, "--arg", s, "--arg", n,
               "--dump", dir, NULL);
        tu_free(&r);
        same_words(tiles[i][0], dir, "arg3.bin", cJSON_GetObjectItem(h, "d_hex")->valuestring);
    }
    cJSON *h = cJSON_GetObjectItem(res, "shared");
    assert_non_null(h);
    snprintf(dir, sizeof dir, "%s/ws", tu_tmpdir());
    expect(&r, 0, NULL, "run", tu_path(WMMA_PTX), "--kernel", "wmma_shared", "--grid", "1",
           "--block", "128", "--arg", cJSON_GetObjectItem(h, "a")->valuestring, "--arg",
           cJSON_GetObjectItem(h, "b")->valuestring, "--arg", "f32[1024]:zeros", "--dump", dir,
           NULL);
    tu_free(&r);
    same_words("shared", dir, "arg2.bin", cJSON_GetObjectItem(h, "d_hex")->valuestring);
    cJSON_Delete(m);
    free(mj);
}

/* A wmma.load past its buffer is a fault naming the thread and the address; a warp with lanes
 * off at a wmma.load is one too. */
static void test_wmma_faults(void **state)
{
    (void)state;
    tu_result r;
    /* one tile more than the buffers hold: warp 1 reads A at element 256 */
    expect(&r, 3, "invalid __global__ read of size 2 bytes", "run", tu_path(WMMA_PTX),
           "--kernel", "wmma_rc", "--grid", "1", "--block", "64", "--arg", "f16[256]:zeros",
           "--arg", "f16[512]:zeros", "--arg", "f32[512]:zeros", "--arg", "f32[512]:zeros",
           "--arg", "f32:1", "--arg", "s32:2", NULL);
    if (!strstr(r.err, "out of bounds") || !strstr(r.err, "in block (0,0,0)"))
        fail_msg("%s", r.err);
    tu_free(&r);
    static const char partial[] =
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k(.param .u64 a)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<12>;\n"
        ".reg .b64 %rd<2>;\nld.param.u64 %rd1, [a];\nmov.u32 %r10, %tid.x;\n"
        "setp.lt.u32 %p1, %r10, 8;\n@%p1 bra DONE;\n"
        "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, "
        "%r8}, [%rd1], 16;\nDONE:\nret;\n}\n";
    char path[512];
    assert_non_null(tu_tmpfile("partial.ptx", partial, path, sizeof path));
    expect(&r, 3, "wmma.load.sync.aligned needs all 32 lanes of the warp (only lanes 0xffffff00",
           "run", path, "--kernel", "k", "--grid", "1", "--block", "32", "--arg",
           "f16[256]:zeros", NULL);
    if (!strstr(r.err, "by thread (0,0,0)"))
        fail_msg("%s", r.err);
    tu_free(&r);
}

/* The executor moves a wmma fragment two ways (sim/exec/xmem.c): the whole 16 x 16 tile at once
 * when every lane has the same address in global or shared memory (CUDA's usual case, which
 * test_wmma_h200 checks against the H200), else lane by lane: here a tile in local memory
 * (through a generic address), where each lane reads its own copy. Both loads of the same
 * random halves must give every lane the same fragment registers; fails when either way puts
 * an element in the wrong place. */
static void test_wmma_paths(void **state)
{
    (void)state;
    static const char ptx[] =
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k(.param .u64 pm, .param .u64 pout)\n{\n"
        ".local .align 16 .b8 buf[512];\n.reg .pred %p<2>;\n.reg .b16 %rs<2>;\n"
        ".reg .b32 %r<30>;\n.reg .b64 %rd<12>;\n"
        "ld.param.u64 %rd1, [pm];\nld.param.u64 %rd7, [pout];\n"
        "mov.u64 %rd2, buf;\ncvta.local.u64 %rd3, %rd2;\nmov.u32 %r20, 0;\n"
        "COPY:\nmul.wide.u32 %rd4, %r20, 2;\nadd.s64 %rd5, %rd1, %rd4;\n"
        "ld.global.u16 %rs1, [%rd5];\nadd.s64 %rd6, %rd2, %rd4;\nst.local.u16 [%rd6], %rs1;\n"
        "add.u32 %r20, %r20, 1;\nsetp.lt.u32 %p1, %r20, 256;\n@%p1 bra COPY;\n"
        "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, "
        "[%rd3], 16;\n"
        "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r9, %r10, %r11, %r12, %r13, %r14, "
        "%r15, %r16}, [%rd1], 16;\n"
        "mov.u32 %r21, %tid.x;\nmul.wide.u32 %rd8, %r21, 32;\nadd.s64 %rd9, %rd7, %rd8;\n"
        "add.s64 %rd10, %rd9, 1024;\n"
        "st.global.v4.u32 [%rd9], {%r1, %r2, %r3, %r4};\n"
        "st.global.v4.u32 [%rd9+16], {%r5, %r6, %r7, %r8};\n"
        "st.global.v4.u32 [%rd10], {%r9, %r10, %r11, %r12};\n"
        "st.global.v4.u32 [%rd10+16], {%r13, %r14, %r15, %r16};\nret;\n}\n";
    char path[512], dir[512];
    assert_non_null(tu_tmpfile("wmma_paths.ptx", ptx, path, sizeof path));
    snprintf(dir, sizeof dir, "%s/wp", tu_tmpdir());
    tu_result r;
    expect(&r, 0, NULL, "run", path, "--kernel", "k", "--grid", "1", "--block", "32", "--arg",
           "u16[256]:random(5)", "--arg", "u32[512]:zeros", "--dump", dir, NULL);
    tu_free(&r);
    uint32_t *w = (uint32_t *)(void *)dumped(dir, "arg1.bin", 2048);
    int nonzero = 0;
    for (int e = 0; e < 256; e++) {
        if (w[e] != w[256 + e])
            fail_msg("lane %d register %d: 0x%08x from local memory, 0x%08x from global", e / 8,
                     e % 8, w[e], w[256 + e]);
        nonzero += w[e] != 0;
    }
    assert_true(nonzero > 200); /* random halves: nearly every register holds a nonzero pair */
    free(w);
}

/* ---- the scheduler's issue order, against the H200 ----------------------------------------
 * gpu/microbench/sched.cu ran sched_order_i8 (tests/data/sched) on the H200 with one block of
 * 32 warps: 8 warps on each scheduler, each with 8 independent FFMA chains, 17 %clock stamps
 * per warp. On the H200 the younger warps of a scheduler finish first: on every scheduler of
 * every launch, warp w + 28 (the youngest) ends first and warp w (the oldest) last. The model
 * runs the same PTX: under gty (greedy then youngest) its warps end in that order, under gto
 * (greedy then oldest) in the reverse one. (How far apart they end is another matter:
 * docs/model.md, section 2.) */
#define SCHED_PTX "tests/data/sched/sched_kernels.ptx"

/* The block's first stamp (17 stamps per warp, 32 warps; %clock wraps: compared as a
 * difference). */
static unsigned first_stamp(const unsigned *st)
{
    unsigned lo = st[0];
    for (int i = 1; i < 32; i++)
        lo = (int)(st[17 * i] - lo) < 0 ? st[17 * i] : lo;
    return lo;
}

/* Warp w's last stamp minus the block's first. */
static long long order_end(const unsigned *st, int w)
{
    return (long long)(st[17 * w + 16] - first_stamp(st));
}

/* 1: on every scheduler the youngest warp ends first and the oldest last; -1: the reverse. */
static int order_of(const unsigned *st)
{
    int young = 1, old = 1;
    for (int s = 0; s < 4; s++) /* scheduler s: warps s (the oldest), s + 4, ..., s + 28 */
        for (int w = s + 4; w < s + 28; w += 4) {
            long long first = order_end(st, s), last = order_end(st, s + 28);
            young &= last < order_end(st, w) && order_end(st, w) < first;
            old &= first < order_end(st, w) && order_end(st, w) < last;
        }
    return young ? 1 : old ? -1 : 0;
}

/* The 544 stamps of kernel k (one block of 32 warps) in the model under policy. */
static unsigned *sched_stamps(const char *k, const char *policy)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/sched_%s_%s", tu_tmpdir(), k, policy);
    tu_result r;
    expect(&r, 0, NULL, "run", tu_path(SCHED_PTX), "--kernel", k, "--grid", "1", "--block",
           "1024", "--arg", "u32[544]:zeros", "--arg", "f32[1024]:zeros", "--arg", "f32:1.0001",
           "--arg", "f32:0.5", "--arg", "s32:16", "--policy", policy, "--dump", dir, NULL);
    tu_free(&r);
    return (unsigned *)(void *)dumped(dir, "arg0.bin", 544 * 4);
}

static void sched_order_model(const char *policy, int want)
{
    unsigned *st = sched_stamps("sched_order_i8", policy);
    if (order_of(st) != want)
        fail_msg("--policy %s: warps do not end %s first", policy,
                 want > 0 ? "youngest" : "oldest");
    free(st);
}

/* Launch i of a configuration on the H200: 32 warps x 17 stamps; 0 when there is none. */
static int h200_stamps(cJSON *res, const char *key, int i, unsigned *st)
{
    cJSON *h = cJSON_GetObjectItem(res, key);
    assert_non_null(h);
    cJSON *launch = cJSON_GetArrayItem(cJSON_GetObjectItem(h, "stamps"), i);
    if (!launch)
        return 0;
    assert_int_equal(cJSON_GetArraySize(launch), 32);
    for (int w = 0; w < 32; w++)
        for (int k = 0; k < 17; k++)
            st[17 * w + k] =
                (unsigned)cJSON_GetArrayItem(cJSON_GetArrayItem(launch, w), k)->valuedouble;
    return 1;
}

/* How far two runs' per-warp progress is apart (scripts/sched-order.py's distance): every
 * warp's 16 stamps after its first, as fractions of the block's time, the mean absolute
 * difference. */
static double progress_distance(const unsigned *a, const unsigned *b)
{
    double ta = 0, tb = 0, d = 0;
    unsigned la = first_stamp(a), lb = first_stamp(b);
    for (int w = 0; w < 32; w++) {
        ta = fmax(ta, (double)order_end(a, w));
        tb = fmax(tb, (double)order_end(b, w));
    }
    for (int w = 0; w < 32; w++)
        for (int k = 1; k <= 16; k++)
            d += fabs((double)(a[17 * w + k] - la) / ta - (double)(b[17 * w + k] - lb) / tb);
    return d / (32.0 * 16.0);
}

static void test_sched_order_h200(void **state)
{
    (void)state;
    char *mj = tu_read_file(tu_path("gpu/measured/h200/microbench/sched.json"), NULL);
    assert_non_null(mj);
    cJSON *m = cJSON_Parse(mj), *res = cJSON_GetObjectItem(m, "results");
    unsigned st[544];
    int n = 0;
    for (; h200_stamps(res, "order_i8_w32", n, st); n++)
        if (order_of(st) != 1)
            fail_msg("H200 launch %d: the youngest warps do not end first", n);
    assert_int_equal(n, 4);
    sched_order_model("gty", 1);
    sched_order_model("gto", -1);
    /* Dependent chains, 8 warps per scheduler: on the H200 the warps advance together (the
     * first to end at 0.93 of the last one's time). The default policy (brr) follows within
     * 0.03 (scripts/sched-order.py: 0.016); gto runs the oldest warps ahead (0.255). */
    assert_true(h200_stamps(res, "order_i1_w32", 0, st));
    unsigned *b = sched_stamps("sched_order_i1", "brr"), *g = sched_stamps("sched_order_i1", "gto");
    double db = progress_distance(st, b), dg = progress_distance(st, g);
    if (db > 0.03 || dg < 0.15)
        fail_msg("progress apart from the H200's: brr %.3f (want <= 0.03), gto %.3f (>= 0.15)", db,
                 dg);
    free(b);
    free(g);
    cJSON_Delete(m);
    free(mj);
}

/* Without --kernel, a file's only kernel runs (a one-kernel .cu needs no name): the same JSON
 * as with it; a file of several kernels is a usage error naming them (test_usage_errors). */
static void test_only_kernel(void **state)
{
    (void)state;
    const char *ptx = tu_path("gpu/ptx/latency.ptx");
    tu_result a, b;
    expect(&a, 0, NULL, "run", ptx, "--grid", "2", "--block", "64", "--arg", "f32[256]:iota",
           "--arg", "f32[256]:zeros", "--arg", "s32:256", "--json", NULL);
    expect(&b, 0, NULL, "run", ptx, "--kernel", "lat_copy", "--grid", "2", "--block", "64",
           "--arg", "f32[256]:iota", "--arg", "f32[256]:zeros", "--arg", "s32:256", "--json",
           NULL);
    cJSON *ja = cJSON_Parse(a.out), *jb = cJSON_Parse(b.out);
    assert_non_null(ja);
    assert_non_null(jb);
    assert_string_equal(cJSON_GetObjectItem(ja, "kernel")->valuestring, "lat_copy");
    cJSON_DeleteItemFromObject(ja, "sim_seconds");
    cJSON_DeleteItemFromObject(jb, "sim_seconds");
    if (!cJSON_Compare(ja, jb, 1))
        fail_msg("without --kernel:\n%s\nwith it:\n%s", a.out, b.out);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    tu_free(&a);
    tu_free(&b);
}

/* KERNEL.cu: compiled with nvcc first (run and occupancy), or a clear error without nvcc. */
static void test_cuda_source(void **state)
{
    (void)state;
    const char *cu = tu_path("tests/data/run/run_kernels.cu");
    tu_result r;
    /* no nvcc: exit 1, saying what to do ($NVCC names one that is not there) */
    setenv("NVCC", "/nonexistent/nvcc", 1);
    expect(&r, 1, "is CUDA C++ and nvcc is not installed here", "run", cu, "--kernel", "saxpy",
           "--grid", "1", "--block", "32", "--arg", "s32:4", "--arg", "f32:2", "--arg",
           "f32[4]:iota", "--arg", "f32[4]:zeros", NULL);
    assert_non_null(strstr(r.err, "nvcc -ptx -arch=sm_90 -lineinfo"));
    tu_free(&r);
    expect(&r, 1, "is CUDA C++ and nvcc is not installed here", "occupancy", cu, "--kernel",
           "saxpy", "--arch", "h200", NULL);
    tu_free(&r);
    unsetenv("NVCC");
    if (!tu_have_tool("nvcc")) {
        printf("nvcc not installed: KERNEL.cu is not compiled here\n");
        return;
    }
    /* the same launch as from the committed PTX (made by nvcc from this file): the same JSON
     * but for the host time */
    char dir[256], dumpopt[300];
    snprintf(dir, sizeof dir, "%s/cu-dump", tu_tmpdir());
    snprintf(dumpopt, sizeof dumpopt, "--dump=%s", dir);
    expect(&r, 0, NULL, "run", cu, "--kernel", "saxpy", "--grid", "4", "--block", "256", "--arg",
           "s32:1000", "--arg", "f32:-1.5", "--arg", "f32[1000]:random(-1,1,7)", "--arg",
           "f32[1000]:random(0,100,8)", "--json", dumpopt, NULL);
    tu_result p;
    expect(&p, 0, NULL, "run", tu_path(PTX), "--kernel", "saxpy", "--grid", "4", "--block",
           "256", "--arg", "s32:1000", "--arg", "f32:-1.5", "--arg", "f32[1000]:random(-1,1,7)",
           "--arg", "f32[1000]:random(0,100,8)", "--json", NULL);
    cJSON *a = cJSON_Parse(r.out), *b = cJSON_Parse(p.out);
    assert_non_null(a);
    assert_non_null(b);
    cJSON_DeleteItemFromObject(a, "sim_seconds");
    cJSON_DeleteItemFromObject(b, "sim_seconds");
    if (!cJSON_Compare(a, b, 1))
        fail_msg("saxpy from run_kernels.cu differs from run_kernels.ptx:\n%s\n%s", r.out, p.out);
    cJSON_Delete(a);
    cJSON_Delete(b);
    tu_free(&r);
    tu_free(&p);
    free(dumped(dir, "arg3.bin", 4000));
    expect(&r, 0, NULL, "occupancy", cu, "--kernel", "saxpy", "--arch", "h200", NULL);
    assert_non_null(strstr(r.out, "registers (ptxas)"));
    tu_free(&r);
    /* nvcc's own message for a file it cannot compile, exit 1 */
    static const char broken[] =
        "extern \"C\" __global__ void k(int *p) { p[0] = undeclared_name; }\n";
    char bad[300];
    assert_non_null(tu_tmpfile("broken.cu", broken, bad, sizeof bad));
    int st = tu_warplab(&r, "run", bad, "--kernel", "k", "--grid", "1", "--block", "1", "--arg",
                        "s32[1]:zeros", NULL);
    if (st != 1 || !strstr(r.err, "nvcc could not compile") || !strstr(r.err, "undeclared_name"))
        fail_msg("run broken.cu exited %d, want 1 and nvcc's message:\n%s", st, r.err);
    tu_free(&r);
}

/* A file holding a kernel with an instruction the simulator does not model: the other kernels
 * run; that one exits 2 naming the instruction's line, before anything else is said. */
static void test_unsupported_other_kernel(void **state)
{
    (void)state;
    static const char two[] =
        ".version 8.0\n.target sm_90a\n.address_size 64\n"
        ".visible .entry ok(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n"
        "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd2, %rd2, %rd3;\nmov.u32 %r2, 7;\n"
        "st.global.u32 [%rd2], %r2;\nret;\n}\n"
        ".visible .entry tc()\n{\nwgmma.fence.sync.aligned;\nret;\n}\n";
    char ptx[300];
    assert_non_null(tu_tmpfile("two.ptx", two, ptx, sizeof ptx));
    char dir[300];
    snprintf(dir, sizeof dir, "%s/two-dump", tu_tmpdir());
    tu_result r;
    expect(&r, 0, NULL, "run", ptx, "--kernel", "ok", "--grid", "1", "--block", "32", "--arg",
           "u32[32]:zeros", "--regs", "16", "--dump", dir, NULL);
    tu_free(&r);
    char *b = dumped(dir, "arg0.bin", 128);
    for (int i = 0; i < 32; i++) {
        uint32_t v;
        memcpy(&v, b + 4 * i, 4);
        assert_int_equal(v, 7);
    }
    free(b);
    expect(&r, 2, "two.ptx:19:1: error: unsupported instruction 'wgmma.fence.sync.aligned'", "run",
           ptx, "--kernel", "tc", "--grid", "1", "--block", "32", NULL);
    tu_free(&r);
}

/* Kernels not declared extern "C" are named in the PTX by their mangled C++ names: --kernel
 * takes the C++ name (add for _Z3addPfi, scale or ns::scale for _ZN2ns5scaleEPff), and an
 * ambiguous one (two instances of a template) is an error listing them. */
static void test_mangled_kernel_names(void **state)
{
    (void)state;
    static const char src[] =
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry _Z3addPfi(.param .u64 a, .param .u32 n)\n{\nret;\n}\n"
        ".visible .entry _ZN2ns5scaleEPff(.param .u64 a, .param .f32 s)\n{\nret;\n}\n"
        ".visible .entry _Z4fillIfEvPT_S0_(.param .u64 a, .param .f32 v)\n{\nret;\n}\n"
        ".visible .entry _Z4fillIiEvPT_S0_(.param .u64 a, .param .u32 v)\n{\nret;\n}\n";
    char ptx[300];
    assert_non_null(tu_tmpfile("mangled.ptx", src, ptx, sizeof ptx));
    tu_result r;
    const char *names[] = {"add", "scale", "ns::scale"}, *syms[] = {"_Z3addPfi",
                                                                     "_ZN2ns5scaleEPff",
                                                                     "_ZN2ns5scaleEPff"};
    const char *second[] = {"u32:4", "f32:2", "f32:2"};
    for (int i = 0; i < 3; i++) {
        expect(&r, 0, NULL, "run", ptx, "--kernel", names[i], "--grid", "1", "--block", "32",
               "--arg", "f32[32]:zeros", "--arg", second[i], "--regs", "16", "--json", NULL);
        cJSON *j = cJSON_Parse(r.out);
        assert_non_null(j);
        assert_string_equal(cJSON_GetObjectItem(j, "kernel")->valuestring, syms[i]);
        cJSON_Delete(j);
        tu_free(&r);
    }
    expect(&r, 1, "'fill' names 2 kernels", "run", ptx, "--kernel", "fill", "--grid", "1",
           "--block", "32", "--arg", "f32[32]:zeros", "--arg", "f32:1", NULL);
    assert_non_null(strstr(r.err, "_Z4fillIfEvPT_S0_ (fill), _Z4fillIiEvPT_S0_ (fill)"));
    tu_free(&r);
    expect(&r, 1, "kernels: _Z3addPfi (add), _ZN2ns5scaleEPff (ns::scale)", "run", ptx,
           "--kernel", "mul", "--grid", "1", "--block", "32", NULL);
    tu_free(&r);
}

/* Dynamic shared memory: reverse within each block. */
static void test_dynamic_smem(void **state)
{
    (void)state;
    char dir[256];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir());
    tu_result r;
    expect(&r, 0, NULL, "run", tu_path(PTX), "--kernel", "reverse_smem", "--grid", "2",
           "--block", "128", "--smem", "512", "--arg", "s32[256]:iota", "--arg", "s32[256]:zeros",
           "--dump", dir, "--json", NULL);
    tu_free(&r);
    char *b = dumped(dir, "arg1.bin", 1024);
    for (int i = 0; i < 256; i++) {
        int32_t got, want = (i / 128) * 128 + 127 - i % 128;
        memcpy(&got, b + 4 * i, 4);
        if (got != want)
            fail_msg("reverse_smem out[%d] = %d, want %d", i, got, want);
    }
    free(b);
    /* --smem for a kernel without an extern shared array: a note, not an error */
    expect(&r, 0, "declares no extern (dynamic) shared array", "run", tu_path(PTX), "--kernel",
           "overrun", "--grid", "1", "--block", "32", "--smem", "64", "--arg", "f32[32]:zeros",
           "--arg", "s32:0", NULL);
    tu_free(&r);
    /* without --smem the extern array has no bytes: the store faults */
    expect(&r, 3, NULL, "run", tu_path(PTX), "--kernel", "reverse_smem", "--grid", "1",
           "--block", "32", "--arg", "s32[32]:iota", "--arg", "s32[32]:zeros", NULL);
    tu_free(&r);
}

static void test_fault_and_limits(void **state)
{
    (void)state;
    tu_result r;
    /* x[32] of a 32-element buffer: 0 bytes after the end of arg0 */
    expect(&r, 3, "arg0", "run", tu_path(PTX), "--kernel", "overrun", "--grid", "1", "--block",
           "32", "--arg", "f32[32]:zeros", "--arg", "s32:1", NULL);
    tu_free(&r);
    expect(&r, 0, NULL, "run", tu_path(PTX), "--kernel", "overrun", "--grid", "1", "--block",
           "32", "--arg", "f32[32]:zeros", "--arg", "s32:0", NULL);
    tu_free(&r);
    /* --max-cycles: a run past cycle N stops with exit 4 */
    expect(&r, 4, NULL, "run", tu_path(PTX), "--kernel", "saxpy", "--grid", "64", "--block",
           "256", "--max-cycles", "10", "--arg", "s32:16384", "--arg", "f32:2", "--arg",
           "f32[16384]:iota", "--arg", "f32[16384]:zeros", NULL);
    tu_free(&r);
    /* --trace writes a trace the reader accepts (tests/test_timing_trace.c checks its content) */
    char trace[512];
    snprintf(trace, sizeof trace, "%s/overrun.wlt", tu_tmpdir());
    expect(&r, 0, NULL, "run", tu_path(PTX), "--kernel", "overrun", "--grid", "1", "--block",
           "32", "--arg", "f32[32]:zeros", "--arg", "s32:0", "--trace", trace, "--policy", "gto",
           NULL);
    tu_free(&r);
    size_t tlen;
    char *tb = tu_read_file(trace, &tlen);
    if (!tb || tlen < 12 || memcmp(tb, "WLTRACE1", 8) != 0)
        fail_msg("--trace %s: no trace written (%zu bytes)", trace, tb ? tlen : 0);
    free(tb);
}

/* A 1,000,000-block grid runs to completion, counts every block, and stays
 * within bounded memory (blocks run as they become resident). */
static void test_million_blocks(void **state)
{
    (void)state;
    char dir[256];
    snprintf(dir, sizeof dir, "%s", tu_tmpdir());
    tu_result r;
    expect(&r, 0, NULL, "run", tu_path(PTX), "--kernel", "count_blocks", "--grid", "1000000",
           "--block", "64", "--arg", "u32[1]:zeros", "--dump", dir, "--json", NULL);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    assert_int_equal((long)cJSON_GetObjectItem(j, "blocks")->valuedouble, 1000000);
    cJSON_Delete(j);
    tu_free(&r);
    char *b = dumped(dir, "arg0.bin", 4);
    uint32_t count;
    memcpy(&count, b, 4);
    assert_int_equal(count, 1000000);
    free(b);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    /* All 64 million threads' registers at once would take gigabytes. ASan keeps
     * up to 256 MiB of freed memory in quarantine, hence its larger bound. */
#if defined(__SANITIZE_ADDRESS__)
    const long max_kib = 1024 * 1024;
#else
    const long max_kib = 256 * 1024;
#endif
    if (ru.ru_maxrss > max_kib)
        fail_msg("peak RSS of a child was %ld KiB, want < %ld KiB", ru.ru_maxrss, max_kib);
}

/* Runs saxpy (grid 1, block 256) with --json and the extra args; returns the parsed object. */
static cJSON *saxpy_json(const char *extra1, const char *extra2)
{
    tu_result r;
    const char *args[32] = {"run", tu_path(PTX), "--kernel", "saxpy", "--grid", "1",
                            "--block", "256", "--json", "--arg", "s32:256", "--arg", "f32:2",
                            "--arg", "f32[256]:iota", "--arg", "f32[256]:zeros"};
    int n = 0;
    while (args[n])
        n++;
    if (extra1)
        args[n++] = extra1;
    if (extra2)
        args[n++] = extra2;
    tu_warplabv(&r, n, args);
    if (r.status != 0)
        fail_msg("saxpy %s %s: exit %d, stderr %s", extra1 ? extra1 : "", extra2 ? extra2 : "",
                 r.status, r.err);
    cJSON *j = cJSON_Parse(r.out);
    if (!j)
        fail_msg("not JSON: %s", r.out);
    tu_free(&r);
    return j;
}

/* Registers: --regs wins; without ptxas the IR estimate is used. */
static void test_regs_sources(void **state)
{
    (void)state;
    /* 255 registers -> 256 per thread after the 8-register step: one 256-thread block uses
     * 65536 registers, all of an H200 SM: 1 block, 8 of 64 warps (CUDA's calculator agrees). */
    cJSON *j = saxpy_json("--regs", "255");
    assert_string_equal(cJSON_GetObjectItem(j, "regs_source")->valuestring, "option");
    assert_int_equal(cJSON_GetObjectItem(j, "regs")->valueint, 255);
    assert_int_equal(cJSON_GetObjectItem(j, "blocks_per_sm")->valueint, 1);
    assert_true(cJSON_GetObjectItem(j, "theoretical_occupancy")->valuedouble == 0.125);
    assert_string_equal(cJSON_GetObjectItem(j, "occupancy_limiter")->valuestring, "registers");
    cJSON_Delete(j);
    /* no ptxas reachable: the documented estimate, a multiple of 8 in 16..255 */
    char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    char *ptxas = getenv("PTXAS") ? strdup(getenv("PTXAS")) : NULL;
    setenv("PATH", "/nonexistent", 1);
    unsetenv("PTXAS");
    j = saxpy_json(NULL, NULL);
    if (path)
        setenv("PATH", path, 1);
    if (ptxas)
        setenv("PTXAS", ptxas, 1);
    free(path);
    free(ptxas);
    assert_string_equal(cJSON_GetObjectItem(j, "regs_source")->valuestring, "estimate");
    int regs = cJSON_GetObjectItem(j, "regs")->valueint;
    if (regs < 16 || regs > 255 || regs % 8 != 0)
        fail_msg("estimated regs %d: want a multiple of 8 in 16..255", regs);
    cJSON_Delete(j);
}

/* With ptxas reporting spill code (a stand-in script: the CI machine may have no CUDA), the
 * JSON carries spill_bytes and the text report warns that the time is optimistic; without
 * spills there is no warning. */
static void test_spill_warning(void **state)
{
    (void)state;
    char *ptxas = getenv("PTXAS") ? strdup(getenv("PTXAS")) : NULL;
    setenv("PTXAS", tu_path("tests/data/run/fake-ptxas.sh"), 1);
    setenv("FAKE_PTXAS_STORES", "1020", 1);
    setenv("FAKE_PTXAS_LOADS", "1200", 1);
    cJSON *j = saxpy_json(NULL, NULL);
    assert_string_equal(cJSON_GetObjectItem(j, "regs_source")->valuestring, "ptxas");
    assert_int_equal(cJSON_GetObjectItem(j, "regs")->valueint, 40);
    assert_int_equal(cJSON_GetObjectItem(j, "spill_bytes")->valueint, 2220);
    cJSON_Delete(j);
    tu_result r;
    const char *args[] = {"run", tu_path(PTX), "--kernel", "saxpy", "--grid", "1", "--block", "256",
                          "--arg", "s32:256", "--arg", "f32:2", "--arg", "f32[256]:iota",
                          "--arg", "f32[256]:zeros"};
    tu_warplabv(&r, (int)(sizeof args / sizeof args[0]), args);
    if (r.status != 0 || !strstr(r.out, "spills      ptxas spills to fit 40 registers") ||
        !strstr(r.out, "2220 B per thread") || !strstr(r.out, "time is optimistic"))
        fail_msg("exit %d, no spill warning in:\n%s", r.status, r.out);
    tu_free(&r);
    setenv("FAKE_PTXAS_STORES", "0", 1);
    setenv("FAKE_PTXAS_LOADS", "0", 1);
    tu_warplabv(&r, (int)(sizeof args / sizeof args[0]), args);
    if (r.status != 0 || strstr(r.out, "spills "))
        fail_msg("exit %d, a spill warning without spills:\n%s", r.status, r.out);
    tu_free(&r);
    unsetenv("FAKE_PTXAS_STORES");
    unsetenv("FAKE_PTXAS_LOADS");
    if (ptxas)
        setenv("PTXAS", ptxas, 1);
    else
        unsetenv("PTXAS");
    free(ptxas);
}

/* The spill map beside the PTX (gpu/ptx/occupancy_regs.spills) is used by default and named
 * in the JSON; --no-spills ignores it; a bad --spills map is an error naming its line. */
static void test_spill_map(void **state)
{
    (void)state;
    const char *ptx = tu_path("gpu/ptx/occupancy_regs.ptx");
    const char *base[] = {"run", ptx, "--kernel", "or_regs_lb8", "--grid", "1", "--block", "32",
                          "--regs", "32", "--arg", "u32[2304]:random(3)", "--arg", "u32[32]:zeros",
                          "--arg", "s32:32", "--arg", "s32:2", "--json", NULL, NULL};
    int nb = (int)(sizeof base / sizeof base[0]) - 2;
    tu_result r;
    tu_warplabv(&r, nb, base);
    cJSON *j = r.status == 0 ? cJSON_Parse(r.out) : NULL;
    if (!j)
        fail_msg("exit %d: %s", r.status, r.err);
    cJSON *map = cJSON_GetObjectItem(j, "spill_map"), *ops = cJSON_GetObjectItem(j, "spill_ops");
    if (!cJSON_IsString(map) || !strstr(map->valuestring, "occupancy_regs.spills") ||
        !cJSON_IsNumber(ops) || ops->valueint <= 0 ||
        cJSON_GetObjectItem(j, "local_requests")->valuedouble <= 0)
        fail_msg("no spill map in the JSON: %.600s", r.out);
    cJSON_Delete(j);
    tu_free(&r);
    /* the map is of ptxas's code at 32 registers: another count is said, not refused */
    const char *regs64[sizeof base / sizeof base[0]];
    memcpy(regs64, base, sizeof base);
    regs64[9] = "64";
    tu_warplabv(&r, nb, regs64);
    if (r.status != 0 || !strstr(r.err, "at 32 registers, this run has 64"))
        fail_msg("--regs 64 with the map of 32: exit %d, stderr %s", r.status, r.err);
    tu_free(&r);
    base[nb] = "--no-spills";
    tu_warplabv(&r, nb + 1, base);
    j = r.status == 0 ? cJSON_Parse(r.out) : NULL;
    if (!j || cJSON_GetObjectItem(j, "spill_map") ||
        cJSON_GetObjectItem(j, "local_requests")->valuedouble != 0)
        fail_msg("--no-spills: exit %d, %.600s", r.status, r.out);
    cJSON_Delete(j);
    tu_free(&r);
    char bad[1024];
    assert_non_null(tu_tmpfile("bad.spills", "[or_regs_lb8]\nframe = 8\nop = stl 1 4 8\n", bad,
                               sizeof bad));
    base[nb] = "--spills";
    base[nb + 1] = bad;
    tu_warplabv(&r, nb + 2, base);
    char want[1100];
    snprintf(want, sizeof want, "%s:3", bad);
    if (r.status != 1 || !strstr(r.err, want) || !strstr(r.err, "outside the 8-byte frame"))
        fail_msg("bad map: exit %d, stderr %s", r.status, r.err);
    tu_free(&r);
    remove(bad);
    expect(&r, 1, "--spills and --no-spills together", "run", ptx, "--kernel", "or_regs_lb8",
           "--grid", "1", "--block", "32", "--spills", bad, "--no-spills", NULL);
    tu_free(&r);
}

/* Two identical runs give identical JSON apart from host time. */
static void test_device_printf(void **state)
{
    (void)state;
    /* tests/data/exec/printf_assert.cu: threads 3 and 19 print; with --json the text goes to
     * stderr so stdout stays one JSON object. */
    const char *ptx = tu_path("tests/data/exec/printf_assert.ptx");
    tu_result r;
    expect(&r, 0, NULL, "run", ptx, "--kernel", "pk", "--grid", "1", "--block", "32", "--arg",
           "u32[32]:zeros", "--arg", "u32:64", NULL);
    assert_non_null(strstr(r.out, "thread 3:  4.50 ok D 102 -3000000000000|"));
    assert_non_null(strstr(r.out, "thread 19: 28.50 ok T 112 -19000000000000|"));
    tu_free(&r);
    expect(&r, 0, NULL, "run", ptx, "--kernel", "pk", "--grid", "1", "--block", "4", "--arg",
           "u32[32]:zeros", "--arg", "u32:64", "--json", NULL);
    assert_non_null(strstr(r.err, "thread 3:  4.50 ok D 102 -3000000000000|"));
    assert_null(strstr(r.out, "thread 3"));
    tu_free(&r);
}

static void test_deterministic(void **state)
{
    (void)state;
    char *out[2];
    for (int k = 0; k < 2; k++) {
        tu_result r;
        expect(&r, 0, NULL, "run", tu_path(PTX), "--kernel", "saxpy", "--grid", "3", "--block",
               "100", "--json", "--arg", "s32:290", "--arg", "f32:3", "--arg",
               "f32[300]:random(-5,5)", "--arg", "f32[300]:random", NULL);
        cJSON *j = cJSON_Parse(r.out);
        assert_non_null(j);
        cJSON_DeleteItemFromObject(j, "sim_seconds");
        out[k] = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
        tu_free(&r);
    }
    assert_string_equal(out[0], out[1]);
    free(out[0]);
    free(out[1]);
}

/* --ptx-order: the same dumped results, but the ILP kernel's loop takes longer without the
 * scheduling and unrolling model (docs/model.md, section 9). */
static void test_ptx_order(void **state)
{
    (void)state;
    char dir[2][512], *bin[2];
    double cycles[2];
    for (int k = 0; k < 2; k++) {
        snprintf(dir[k], sizeof dir[k], "%s/order%d", tu_tmpdir(), k);
        mkdir(dir[k], 0755);
        tu_result r;
        expect(&r, 0, NULL, "run", tu_path("gpu/ptx/ilp.ptx"), "--kernel", "ilp_dep", "--grid",
               "2", "--block", "64", "--json", "--arg", "f32[128]:random(0,1,6)", "--arg",
               "f32[128]:zeros", "--arg", "s32:512", "--dump", dir[k],
               k ? "--ptx-order" : "--json", NULL);
        cJSON *j = cJSON_Parse(r.out);
        assert_non_null(j);
        cycles[k] = cJSON_GetObjectItem(j, "cycles")->valuedouble;
        cJSON_Delete(j);
        tu_free(&r);
        char path[1300];
        snprintf(path, sizeof path, "%s/arg1.bin", dir[k]);
        size_t len = 0;
        bin[k] = tu_read_file(path, &len);
        assert_non_null(bin[k]);
        assert_int_equal(len, 128 * 4);
    }
    if (memcmp(bin[0], bin[1], 128 * 4))
        fail_msg("--ptx-order changed the results");
    if (!(cycles[1] > 1.2 * cycles[0]))
        fail_msg("cycles: scheduled %g, --ptx-order %g: expected the PTX order to be slower",
                 cycles[0], cycles[1]);
    free(bin[0]);
    free(bin[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_only_kernel),
        cmocka_unit_test(test_json_keys),
        cmocka_unit_test(test_dump_saxpy),
        cmocka_unit_test(test_scalar_widths),
        cmocka_unit_test(test_half_args),
        cmocka_unit_test(test_mma_h200),
        cmocka_unit_test(test_sched_order_h200),
        cmocka_unit_test(test_mma_exact_bound),
        cmocka_unit_test(test_mma_partial_warp),
        cmocka_unit_test(test_wmma_h200),
        cmocka_unit_test(test_wmma_faults),
        cmocka_unit_test(test_wmma_paths),
        cmocka_unit_test(test_cuda_source),
        cmocka_unit_test(test_unsupported_other_kernel),
        cmocka_unit_test(test_mangled_kernel_names),
        cmocka_unit_test(test_dynamic_smem),
        cmocka_unit_test(test_fault_and_limits),
        cmocka_unit_test(test_million_blocks),
        cmocka_unit_test(test_regs_sources),
        cmocka_unit_test(test_spill_warning),
        cmocka_unit_test(test_spill_map),
        cmocka_unit_test(test_device_printf),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_ptx_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
