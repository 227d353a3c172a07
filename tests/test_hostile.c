/* Hostile inputs, end to end through the `warplab` binary: absurd launch sizes, broken and
 * foreign files, faulting kernels. Every case must end with its DESIGN.md exit status and ONE
 * line on stderr a student can act on (file:line:col where it applies), never a crash, a hang
 * or unbounded memory. Data: tests/data/hostile/ (faults.cu/.ptx, arch/, trace/, cases/).
 *
 * With WL_HOSTILE_TABLE=FILE set, every case appends a Markdown table row (what was given, the
 * exit status, the message) to FILE: docs/robustness.md's table of error paths is generated
 * from this run (the command is in docs/robustness.md), not typed by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "testutil.h"

#define FAULTS "tests/data/hostile/faults.ptx"
#define RUNK "tests/data/run/run_kernels.ptx"
#define SAXPY_ARGS "--arg", "s32:32", "--arg", "f32:1", "--arg", "f32[32]:zeros", "--arg", "f32[32]:zeros"

/* The Markdown row for one case: `what | exit | message`, message without the newline and
 * with the tree's absolute prefix and the temporary directory stripped. */
static void table_row(const char *what, int status, const char *err)
{
    const char *path = getenv("WL_HOSTILE_TABLE");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", err);
    msg[strcspn(msg, "\n")] = '\0';
    const char *root = getenv("WARPLAB_ROOT"); /* not tu_path(): callers hold its buffers */
    size_t rl = root ? strlen(root) : 0;
    fprintf(f, "| %s | %d | `", what, status);
    for (const char *p = msg; *p; p++) {
        if (rl && !strncmp(p, root, rl)) {
            p += rl - (p[rl] == '/' ? 0 : 1); /* drop the root and its slash */
            continue;
        }
        if (!strncmp(p, "/tmp/", 5)) { /* a temporary directory: keep its last component */
            const char *end = p + strcspn(p, " :'");
            const char *slash = end;
            while (slash > p && slash[-1] != '/')
                slash--;
            fputs("TMP/", f);
            p = slash - 1;
            continue;
        }
        fputc(*p == '|' ? '/' : *p, f);
    }
    fputs("` |\n", f);
    fclose(f);
}

/* Runs warplab with the NULL-terminated args. Checks the exit status, that stderr is exactly one
 * line when the status is not 0, and that it contains want and want2 (when not NULL). */
static void hostile(const char *what, int status, const char *want, const char *want2, ...)
{
    const char *args[64];
    int n = 0;
    va_list ap;
    va_start(ap, want2);
    for (const char *a; n < 63 && (a = va_arg(ap, const char *)) != NULL;)
        args[n++] = a;
    va_end(ap);
    tu_result r;
    tu_warplabv(&r, n, args);
    char cmd[2048] = "";
    for (int i = 0; i < n; i++) {
        strncat(cmd, args[i], sizeof cmd - strlen(cmd) - 2);
        strcat(cmd, " ");
    }
    if (r.status != status)
        fail_msg("%s: warplab %s\n  exit %d, want %d\n  stderr: %s", what, cmd, r.status, status,
                 r.err);
    const char *nl = strchr(r.err, '\n');
    if (status != 0 && (!nl || nl[1] != '\0'))
        fail_msg("%s: warplab %s\n  stderr is not exactly one line: '%s'", what, cmd, r.err);
    if (want && !strstr(r.err, want))
        fail_msg("%s: warplab %s\n  stderr '%s' lacks '%s'", what, cmd, r.err, want);
    if (want2 && !strstr(r.err, want2))
        fail_msg("%s: warplab %s\n  stderr '%s' lacks '%s'", what, cmd, r.err, want2);
    table_row(what, r.status, r.err);
    tu_free(&r);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- resource bounds ------------------------------------------------------------------- */

static void test_launch_limits(void **state)
{
    (void)state;
    const char *ptx = tu_path(RUNK);
    hostile("block of 1024 threads x 255 registers", 1,
            "too many resources requested for launch", "limited by registers", "run", ptx,
            "--kernel", "saxpy", "--grid", "1", "--block", "1024", "--regs", "255", SAXPY_ARGS,
            NULL);
    hostile("--regs 256 (above the 255 limit)", 1, "--regs", NULL, "run", ptx, "--kernel",
            "saxpy", "--grid", "1", "--block", "32", "--regs", "256", SAXPY_ARGS, NULL);
    hostile("block of 1025 threads", 1, "1025", NULL, "run", ptx, "--kernel", "saxpy", "--grid",
            "1", "--block", "1025", SAXPY_ARGS, NULL);
    hostile("block 32x32x2 = 2048 threads", 1, "2048", NULL, "run", ptx, "--kernel", "saxpy",
            "--grid", "1", "--block", "32,32,2", SAXPY_ARGS, NULL);
    hostile("grid of 0 blocks", 1, "--grid", NULL, "run", ptx, "--kernel", "saxpy", "--grid",
            "0", "--block", "32", SAXPY_ARGS, NULL);
    hostile("grid.x of 2^31 (CUDA's limit is 2^31-1)", 1, "--grid", NULL, "run", ptx, "--kernel",
            "saxpy", "--grid", "2147483648", "--block", "32", SAXPY_ARGS, NULL);
    hostile("227 KB dynamic shared memory (the H200 opt-in maximum)", 0, NULL, NULL, "run",
            tu_path(RUNK), "--kernel", "reverse_smem", "--grid", "1", "--block", "32", "--smem",
            "232448", "--arg", "u32[32]:iota", "--arg", "u32[32]:zeros", NULL);
    hostile("228 KB dynamic shared memory", 1, "exceeds the h200 per-block limit of 232448 bytes",
            NULL, "run", ptx, "--kernel", "reverse_smem", "--grid", "1", "--block", "32",
            "--smem", "233472", "--arg", "u32[32]:iota", "--arg", "u32[32]:zeros", NULL);
    hostile("--arg buffer of 99999999999 bytes", 1, "exceeds the limit of", "WARPLAB_MAX_ARG_BYTES",
            "run", ptx, "--kernel", "saxpy", "--grid", "1", "--block", "32", "--arg", "s32:32",
            "--arg", "f32:1", "--arg", "u8[99999999999]:zeros", "--arg", "f32[32]:zeros", NULL);
    hostile("--arg element count overflowing 64 bits", 1, "--arg", NULL, "run", ptx, "--kernel",
            "saxpy", "--grid", "1", "--block", "32", "--arg", "s32:32", "--arg", "f32:1", "--arg",
            "f64[99999999999999999999]:zeros", "--arg", "f32[32]:zeros", NULL);
    hostile("--max-cycles 0", 1, "--max-cycles", NULL, "run", ptx, "--kernel", "saxpy", "--grid",
            "1", "--block", "32", "--max-cycles", "0", SAXPY_ARGS, NULL);
}

/* A grid of 2^31-1 blocks is legal CUDA; the simulator runs it block by block in bounded memory
 * and the --max-cycles bound stops it with exit 4, quickly. */
static void test_huge_grid_bounded(void **state)
{
    (void)state;
    double t0 = now_s();
    hostile("grid of 2^31-1 blocks, stopped by --max-cycles", 4, "exceeded", "warp instructions",
            "run", tu_path(RUNK), "--kernel", "count_blocks", "--grid", "2147483647", "--block",
            "32", "--arg", "u32[1]:zeros", "--max-cycles", "300000", NULL);
    double secs = now_s() - t0;
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
#if defined(__SANITIZE_ADDRESS__)
    const long max_kib = 1024 * 1024;
#else
    const long max_kib = 256 * 1024;
#endif
    if (ru.ru_maxrss > max_kib)
        fail_msg("peak RSS of a child was %ld KiB, want < %ld KiB", ru.ru_maxrss, max_kib);
    if (secs > 120)
        fail_msg("the bounded huge grid took %.1f s, want < 120 s", secs);
}

static void test_runaway_kernel(void **state)
{
    (void)state;
    hostile("kernel that spins forever, stopped by --max-cycles", 4, "exceeded",
            "a runaway loop, or a spin wait that never ends", "run", tu_path(FAULTS), "--kernel",
            "spin_forever", "--grid", "1", "--block", "32", "--arg", "u32[1]:zeros",
            "--max-cycles", "100000", NULL);
    /* without --max-cycles the default bound (10^8 cycles) stops it too, in seconds */
    hostile("kernel that spins forever, stopped by the default --max-cycles", 4,
            "--max-cycles 100000000 exceeded", "a runaway loop, or a spin wait that never ends",
            "run", tu_path(FAULTS), "--kernel", "spin_forever", "--grid", "1", "--block", "32",
            "--arg", "u32[1]:zeros", NULL);
}

/* ---- broken and foreign files -------------------------------------------------------- */

static void test_bad_ptx_files(void **state)
{
    (void)state;
    hostile("empty PTX file", 1, "no kernel 'k'", "kernels: none", "run",
            tu_path("tests/data/hostile/empty.ptx"), "--kernel", "k", "--grid", "1", "--block",
            "32", NULL);
    hostile("binary file as PTX", 1, "binary.ptx:1:1:", "unexpected character", "run",
            tu_path("tests/data/hostile/binary.ptx"), "--kernel", "k", "--grid", "1", "--block",
            "32", NULL);
    hostile("PTX cut off inside a kernel", 1, "truncated.ptx:42:22:", "undeclared identifier", "run",
            tu_path("tests/data/hostile/truncated.ptx"), "--kernel", "saxpy", "--grid", "1",
            "--block", "32", SAXPY_ARGS, NULL);
    /* found by fuzz_ptx on 2026-11-29 (a heap overflow in pcfg_build: a branch resolved to a label
     * of an earlier function, fixed in 96e851c "labels are per function") */
    hostile("branch to another function's label (fuzz regression)", 1,
            "regress-cfg-overflow.ptx:1170:12:", "undefined label '$L__BB1_5'", "run",
            tu_path("tests/data/hostile/regress-cfg-overflow.ptx"), "--kernel", "or_regs_free",
            "--grid", "1", "--block", "32", NULL);
    hostile("PTX instruction the simulator does not model", 2, "unsupported.ptx:47:2:",
            "unsupported instruction 'wgmma.fence.sync.aligned'", "run",
            tu_path("tests/data/hostile/unsupported.ptx"), "--kernel", "saxpy", "--grid", "1",
            "--block", "32", SAXPY_ARGS, NULL);
    hostile("missing PTX file", 1, "no-such-file.ptx", "No such file", "run",
            tu_path("tests/data/hostile/no-such-file.ptx"), "--kernel", "k", "--grid", "1",
            "--block", "32", NULL);
    hostile("a directory given as the PTX file", 1, "hostile", NULL, "run",
            tu_path("tests/data/hostile"), "--kernel", "k", "--grid", "1", "--block", "32", NULL);
    /* A file one byte over the parser's 64 MiB input limit: refused before parsing. */
    char path[512];
    snprintf(path, sizeof path, "%s/huge.ptx", tu_tmpdir());
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    static const char line[] = "// a comment line of sixty-four bytes, repeated to fill 64 MiB.\n";
    assert_int_equal(sizeof line - 1, 64);
    for (long i = 0; i < (64L << 20) / 64; i++)
        fputs(line, f);
    fputc('\n', f);
    assert_int_equal(fclose(f), 0);
    hostile("PTX file over 64 MiB", 1, "file too large", NULL, "run", path, "--kernel", "k",
            "--grid", "1", "--block", "32", NULL);
    remove(path);
}

static void test_bad_arch_files(void **state)
{
    (void)state;
    static const struct {
        const char *name, *want, *want2;
    } cases[] = {
        {"unknown_key", "unknown_key.ini:28:", "unknown key 'frobs_per_sm'"},
        {"out_of_range", "out_of_range.ini:27:", "warp_size: 64 is out of range"},
        {"not_a_number", "not_a_number.ini:17:", "'lots' is not a number"},
        {"gpc_sum", "gpc_sum.ini:19:", "the GPCs hold 131 SMs but sm_count is 132"},
        {"duplicate_key", "duplicate_key.ini:28:", "given twice (first on line 27"},
        {"missing_key", "missing_key.ini:25:", "missing key 'warp_size'"},
        {"bad_carveouts", "bad_carveouts.ini:46:", "carveout sizes must ascend"},
        {"long_line", "long_line.ini:92:", "line longer than"},
        {"no_section", "no_section.ini:40:", "unknown section [shmem]"},
        {"misnamed", "misnamed.ini:14:", "differs from the file name"},
        {"truncated", "truncated.ini", "missing section [gpu]"},
        {"binary", "binary.ini", "missing key"},
        {"empty", "empty.ini", NULL},
    };
    setenv("WARPLAB_ARCH_DIR", tu_path("tests/data/hostile/arch"), 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[128];
        snprintf(what, sizeof what, "arch file: %s.ini", cases[i].name);
        hostile(what, 1, cases[i].want, cases[i].want2, "arch", cases[i].name, NULL);
    }
    hostile("--arch naming no file", 1, "unknown arch 'h300'", "available:", "arch", "h300", NULL);
    setenv("WARPLAB_ARCH_DIR", tu_path("tests/data/hostile/no-such-dir"), 1);
    hostile("arch directory missing", 1, "cannot read the arch directory", NULL, "arch", "h200",
            NULL);
    unsetenv("WARPLAB_ARCH_DIR");
}

static void test_bad_traces(void **state)
{
    (void)state;
    static const struct {
        const char *file, *want;
    } cases[] = {
        {"empty.wlt", "bad magic"},
        {"truncated.wlt", "bad trace at byte 300: truncated"},
        {"trailing.wlt", "trailing bytes after the end record"},
        {"version2.wlt", "unsupported trace version"},
        {"bad_header.wlt", "out of range"},
    };
    char out[512];
    snprintf(out, sizeof out, "%s/out.json", tu_tmpdir());
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[128], in[256];
        snprintf(what, sizeof what, "trace: %s", cases[i].file);
        snprintf(in, sizeof in, "tests/data/hostile/trace/%s", cases[i].file);
        hostile(what, 1, cases[i].file, cases[i].want, "export", tu_path(in), "--chrome", out,
                NULL);
    }
    hostile("a PTX file given as a trace", 1, "bad magic", NULL, "export", tu_path(FAULTS),
            "--chrome", out, NULL);
    hostile("a directory given as a trace", 1, "cannot read trace", NULL, "export",
            tu_path("tests/data/hostile"), "--chrome", out, NULL);
    hostile("missing trace", 1, "cannot open trace", NULL, "export",
            tu_path("tests/data/hostile/none.wlt"), "--chrome", out, NULL);
    /* the viewer reads traces through the same reader (or says it was not built) */
    char png[512];
    snprintf(png, sizeof png, "%s/v.png", tu_tmpdir());
    const char *view[] = {"view", tu_path("tests/data/hostile/trace/truncated.wlt"), "--png", png};
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    tu_result r;
    tu_warplabv(&r, 4, view);
    const char *nl = strchr(r.err, '\n');
    if (r.status != 1 || !nl || nl[1] ||
        (!strstr(r.err, "bad trace at byte 300: truncated") &&
         !strstr(r.err, "built without the viewer")))
        fail_msg("view of a truncated trace: exit %d, stderr '%s'", r.status, r.err);
    table_row("trace: truncated.wlt given to `view`", r.status, r.err);
    tu_free(&r);
    /* the good seed exports: the failures above are about the files, not the command */
    hostile("a valid trace", 0, NULL, NULL, "export", tu_path("fuzz/corpus/trace/four_warps.wlt"),
            "--chrome", out, NULL);
    size_t len = 0;
    char *json = tu_read_file(out, &len);
    assert_non_null(json);
    if (len < 100 || !strstr(json, "traceEvents"))
        fail_msg("chrome export of the valid trace: %zu bytes, no traceEvents", len);
    free(json);
}

/* ---- other commands: each bad value named, exit 1 ------------------------------------ */

static void test_other_commands(void **state)
{
    (void)state;
    hostile("occupancy: block of 0 threads", 1, "block size 0 is outside 1..1024", NULL,
            "occupancy", "--arch", "h200", "--block", "0", "--regs", "32", NULL);
    hostile("occupancy: 300 registers", 1, "300 registers per thread is outside 1..255", NULL,
            "occupancy", "--arch", "h200", "--block", "256", "--regs", "300", NULL);
    hostile("occupancy: 300000 B shared memory", 1, "above the opt-in limit of 232448 B", NULL,
            "occupancy", "--arch", "h200", "--block", "256", "--regs", "32", "--smem", "300000",
            NULL);
    hostile("occupancy: missing batch file", 1, "cannot read", NULL, "occupancy", "--arch",
            "h200", "--batch", tu_path("tests/data/hostile/none.csv"), NULL);
    hostile("lesson that does not exist", 1, "no lesson 99", NULL, "lesson", "99", NULL);
    hostile("export without --chrome", 1, "need TRACE and --chrome OUT.json", NULL, "export",
            tu_path("fuzz/corpus/trace/one_warp.wlt"), NULL);
    hostile("export into a missing directory", 1, "cannot write", "No such file or directory",
            "export", tu_path("fuzz/corpus/trace/one_warp.wlt"), "--chrome",
            tu_path("tests/data/hostile/no-such-dir/x.json"), NULL);
    hostile("run without arguments", 1, "missing KERNEL.ptx", NULL, "run", NULL);
}

/* ---- faults in the simulated kernel ---------------------------------------------------- */

static void test_kernel_faults(void **state)
{
    (void)state;
    const char *ptx = tu_path(FAULTS);
    hostile("out-of-bounds global read", 3, "faults.ptx:49:2: error: invalid __global__ read of "
            "size 4 bytes", "by thread (64,0,0) in block (0,0,0) (source line 10)", "run", ptx,
            "--kernel", "global_oob_read", "--grid", "1", "--block", "128", "--arg",
            "u32[64]:iota", "--arg", "u32[1]:zeros", "--arg", "s32:128", NULL);
    hostile("out-of-bounds local read", 3, "invalid __local__ read of size 4 bytes",
            "each thread has 16 bytes of local memory", "run", ptx, "--kernel", "local_oob",
            "--grid", "1", "--block", "32", "--arg", "u32[32]:zeros", "--arg", "s32:100000", NULL);
    hostile("misaligned shared read", 3, "invalid __shared__ read of size 4 bytes: address 0x2 "
            "is misaligned", "block (0,0,0) (source line 28)", "run", ptx, "--kernel",
            "shared_misaligned", "--grid", "1", "--block", "64", "--arg", "u32[64]:zeros",
            "--arg", "s32:2", NULL);
    hostile("out-of-bounds shared write", 3, "__shared__ write of size 4", "thread (24,0,0)",
            "run", tu_path("tests/data/exec/basic.ptx"), "--kernel", "shared_oob", "--grid", "1",
            "--block", "32", "--arg", "u32[256]:zeros", "--arg", "s32:40", NULL);
    hostile("misaligned global write", 3, "misaligned", "__global__ write of size 4", "run",
            tu_path("tests/data/exec/basic.ptx"), "--kernel", "misaligned", "--grid", "1",
            "--block", "32", "--arg", "u32[256]:zeros", NULL);
    hostile("__syncthreads in divergent code", 4, "deadlock in block (0,0,0): barrier 0",
            "warps 0,1 wait, 32 of 64 threads arrived", "run", ptx, "--kernel",
            "divergent_syncthreads", "--grid", "1", "--block", "64", "--arg", "u32[64]:zeros",
            NULL);
    hostile("named barrier with mismatched thread counts", 4,
            "barrier 1 used with thread counts 64 and 128", "(source line 49)", "run", ptx,
            "--kernel", "named_barrier_mismatch", "--grid", "1", "--block", "64", "--arg",
            "u32[64]:zeros", NULL);
}

/* --sanitize: shared-memory initcheck and racecheck warnings (sim/exec/sancheck.h); the exit
 * status stays the run's own. */
static void test_sanitize(void **state)
{
    (void)state;
    const char *ptx = tu_path(FAULTS);
    tu_result r;
    /* without --sanitize both kernels run silently: the checks are what finds them */
    const char *plain[] = {"run", ptx, "--kernel", "shared_race", "--grid", "1", "--block", "64",
                           "--arg", "u32[64]:zeros"};
    assert_int_equal(tu_warplabv(&r, 10, plain), 0);
    if (r.err[0])
        fail_msg("shared_race without --sanitize printed: %s", r.err);
    tu_free(&r);
    hostile("--sanitize: uninitialised shared read", 0,
            "faults.ptx:264:2: warning: uninitialised __shared__ read of 4 bytes at offset 0xfc",
            "by thread 0 (warp 0, lane 0) in block (0,0,0): no thread of the block wrote it "
            "(source line 67)", "run", ptx, "--kernel", "shared_uninit", "--grid", "1", "--block",
            "64", "--arg", "u32[64]:zeros", "--sanitize", NULL);
    hostile("--sanitize: shared race between warps", 0,
            "faults.ptx:298:2: warning: __shared__ read-after-write hazard at offset 0x0: warp 1 "
            "reads what warp 0 wrote at PTX line 293 with no barrier between",
            "faults.ptx:293:2: warning: __shared__ write-after-read hazard", "run", ptx,
            "--kernel", "shared_race", "--grid", "1", "--block", "64", "--arg", "u32[64]:zeros",
            "--sanitize", NULL);
    /* a kernel with its __syncthreads in place is clean */
    const char *clean[] = {"run", tu_path(RUNK), "--kernel", "reverse_smem", "--grid", "2",
                           "--block", "64", "--smem", "256", "--arg", "u32[128]:iota", "--arg",
                           "u32[128]:zeros", "--sanitize"};
    assert_int_equal(tu_warplabv(&r, 15, clean), 0);
    if (r.err[0])
        fail_msg("reverse_smem --sanitize warned: %s", r.err);
    tu_free(&r);
    /* faults keep their exit status and message under --sanitize */
    hostile("--sanitize: out-of-bounds global read still faults", 3,
            "invalid __global__ read of size 4 bytes", "by thread (64,0,0) in block (0,0,0)", "run",
            ptx, "--kernel", "global_oob_read", "--grid", "1", "--block", "128", "--arg",
            "u32[64]:iota", "--arg", "u32[1]:zeros", "--arg", "s32:128", "--sanitize", NULL);
    hostile("--sanitize: divergent __syncthreads still deadlocks", 4, "barrier 0", "can never "
            "complete", "run", ptx, "--kernel", "divergent_syncthreads", "--grid", "1", "--block",
            "64", "--arg", "u32[64]:zeros", "--sanitize", NULL);
    hostile("--sanitize: runaway kernel stopped by --max-cycles", 4, "--max-cycles", NULL, "run",
            ptx, "--kernel", "spin_forever", "--grid", "1", "--block", "32", "--arg",
            "u32[1]:zeros", "--max-cycles", "10000", "--sanitize", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_limits),
        cmocka_unit_test(test_huge_grid_bounded),
        cmocka_unit_test(test_runaway_kernel),
        cmocka_unit_test(test_bad_ptx_files),
        cmocka_unit_test(test_bad_arch_files),
        cmocka_unit_test(test_bad_traces),
        cmocka_unit_test(test_other_commands),
        cmocka_unit_test(test_kernel_faults),
        cmocka_unit_test(test_sanitize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
