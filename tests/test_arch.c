/* arch: every shipped GPU file loads and says what the reference tables say; broken copies
 * give an error naming the file, the key and the line; the `warplab arch` command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "testutil.h"

static const char *arch_dir(void)
{
    return tu_path("sim/arch");
}

static void load_or_fail(const char *name, arch_t *a)
{
    diag_t d;
    diag_clear(&d);
    if (arch_load(arch_dir(), name, a, &d) != WL_OK)
        fail_msg("arch %s: %s:%d: %s", name, d.file, d.line, d.msg);
}

static void test_every_file_loads(void **state)
{
    (void)state;
    char names[64][ARCH_NAME_MAX];
    int n = arch_list(arch_dir(), names, 64);
    if (n < 5)
        fail_msg("arch_list found %d files in %s, expected at least 5", n, arch_dir());
    const char *want[] = {"a100", "h100", "h200", "rtx3090", "v100"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        int found = 0;
        for (int i = 0; i < n; i++)
            found |= !strcmp(names[i], want[w]);
        if (!found)
            fail_msg("arch '%s' is missing from %s", want[w], arch_dir());
    }
    for (int i = 0; i < n; i++) {
        arch_t a;
        load_or_fail(names[i], &a);
        assert_string_equal(a.name, names[i]);
        /* the derived relations every loader check guarantees */
        int sum = 0;
        for (int g = 0; g < a.gpc_count; g++)
            sum += a.gpc_sms[g];
        if (sum != a.sm_count || a.carveouts[a.carveout_count - 1] != a.smem_per_sm_max)
            fail_msg("%s: GPC sum %d vs %d SMs, last carveout %d vs %d", a.name, sum,
                     a.sm_count, a.carveouts[a.carveout_count - 1], a.smem_per_sm_max);
    }
    assert_int_equal(arch_list("/nonexistent/dir", names, 64), -1);
}

/* Numbers the occupancy rules depend on, against the tables in the reference notes. */
static void test_reference_numbers(void **state)
{
    (void)state;
    arch_t a;
    load_or_fail("h200", &a);
    assert_int_equal(a.cc_major, 9);
    assert_int_equal(a.cc_minor, 0);
    assert_string_equal(a.sm_target, "sm_90");
    assert_int_equal(a.sm_count, 132);
    assert_int_equal(a.gpc_count, 8);
    assert_int_equal(a.max_warps_per_sm, 64);
    assert_int_equal(a.max_blocks_per_sm, 32);
    assert_int_equal(a.smem_per_sm_max, 228 * 1024);
    assert_int_equal(a.smem_per_block_optin, 227 * 1024);
    assert_int_equal(a.smem_reserved_per_block, 1024);
    assert_int_equal(a.smem_alloc_unit, 128);
    assert_int_equal(a.carveout_count, 10);
    assert_int_equal(a.carveouts[5], 100 * 1024);
    assert_int_equal(a.l2_bytes, 62914560);
    assert_int_equal(a.sm_clock_mhz, 1980);
    assert_int_equal(a.reg_alloc_unit, 256);
    assert_string_equal(a.sched_policy, "brr");

    load_or_fail("rtx3090", &a);
    assert_int_equal(a.max_warps_per_sm, 48);
    assert_int_equal(a.max_blocks_per_sm, 16);
    assert_int_equal(a.smem_per_sm_max, 100 * 1024);
    assert_int_equal(a.carveout_count, 6);

    load_or_fail("v100", &a);
    assert_int_equal(a.smem_alloc_unit, 256);
    assert_int_equal(a.smem_reserved_per_block, 0);
    assert_int_equal(a.carveouts[a.carveout_count - 1], 96 * 1024);
    assert_string_equal(a.sm_target, "sm_70");
}

/* Writes sim/arch/h200.ini into a fresh directory with `from` replaced by `to` (which must
 * occur). Returns the 1-based line where `from` was (0 if to is appended). */
static int broken_copy(const char *dir, const char *from, const char *to)
{
    size_t len;
    char *text = tu_read_file(tu_path("sim/arch/h200.ini"), &len);
    assert_non_null(text);
    char *at = strstr(text, from);
    if (!at)
        fail_msg("'%s' not in h200.ini", from);
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    char path[512];
    snprintf(path, sizeof path, "%s/h200.ini", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite(text, 1, (size_t)(at - text), f);
    fputs(to, f);
    fputs(at + strlen(from), f);
    fclose(f);
    free(text);
    return line;
}

/* Loads the broken copy and checks the error names the file, the line and each needle. */
static void expect_error(const char *from, const char *to, int want_line, const char *needle1,
                         const char *needle2)
{
    const char *dir = tu_tmpdir();
    assert_non_null(dir);
    int line = broken_copy(dir, from, to);
    if (want_line < 0)
        want_line = line;
    arch_t a;
    diag_t d;
    diag_clear(&d);
    wl_status st = arch_load(dir, "h200", &a, &d);
    char buf[2048];
    diag_format(&d, buf, sizeof buf);
    if (st != WL_EUSAGE || !strstr(d.file, "h200.ini") || d.line != want_line ||
        !strstr(d.msg, needle1) || (needle2 && !strstr(d.msg, needle2)))
        fail_msg("replacing '%s' by '%s': status %d, got \"%s\", want line %d with '%s' '%s'",
                 from, to, st, buf, want_line, needle1, needle2 ? needle2 : "");
}

static void test_bad_value(void **state)
{
    (void)state;
    expect_error("sm_count = 132", "sm_count = 13x2", -1, "sm_count", "not a number");
    expect_error("sm_count = 132", "sm_count =", -1, "sm_count", "not a number");
    expect_error("warp_size = 32", "warp_size = 64", -1, "warp_size", "out of range");
    expect_error("max_regs_per_thread = 255", "max_regs_per_thread = -3", -1,
                 "max_regs_per_thread", "out of range");
    expect_error("carveouts = 0,8K", "carveouts = 0,eightK", -1, "carveouts", "'eightK'");
    expect_error("compute_capability = 9.0", "compute_capability = nine", -1,
                 "compute_capability", NULL);
    expect_error("sched_policy = brr", "sched_policy = random", -1, "sched_policy", "random");
}

static void test_unknown_and_duplicate_keys(void **state)
{
    (void)state;
    expect_error("warp_size = 32", "warp_sise = 32", -1, "unknown key 'warp_sise'", NULL);
    expect_error("[pipes]", "[pipez]", -1, "unknown section [pipez]", NULL);
    expect_error("l2_partitions = 2", "this line has no equals sign", -1, "malformed", NULL);
}

static void test_duplicate_line_number(void **state)
{
    (void)state;
    const char *dir = tu_tmpdir();
    int line = broken_copy(dir, "sm_clock_mhz = 1980", "sm_clock_mhz = 1980\nsm_clock_mhz = 1");
    arch_t a;
    diag_t d;
    diag_clear(&d);
    assert_int_equal(arch_load(dir, "h200", &a, &d), WL_EUSAGE);
    if (d.line != line + 1 || !strstr(d.msg, "sm_clock_mhz") || !strstr(d.msg, "given twice"))
        fail_msg("duplicate at line %d: got line %d: %s", line + 1, d.line, d.msg);
}

static void test_missing_key_points_at_section(void **state)
{
    (void)state;
    const char *dir = tu_tmpdir();
    broken_copy(dir, "l2_bytes = 60M", "; l2_bytes removed");
    /* the error points at the [memory] header */
    size_t len;
    char *text = tu_read_file(tu_path("sim/arch/h200.ini"), &len);
    int sec_line = 1;
    for (const char *p = text; p < strstr(text, "[memory]"); p++)
        sec_line += *p == '\n';
    free(text);
    arch_t a;
    diag_t d;
    diag_clear(&d);
    assert_int_equal(arch_load(dir, "h200", &a, &d), WL_EUSAGE);
    if (d.line != sec_line || !strstr(d.msg, "missing key 'l2_bytes'"))
        fail_msg("want line %d 'missing key l2_bytes', got line %d: %s", sec_line, d.line, d.msg);
}

static void test_inconsistent_files(void **state)
{
    (void)state;
    expect_error("gpc_sms = 18,18,18,18,18,18,16,8", "gpc_sms = 18,18,18,18,18,18,16,9", -1,
                 "133 SMs", "132");
    expect_error("max_threads_per_sm = 2048", "max_threads_per_sm = 1536", -1,
                 "max_threads_per_sm", NULL);
    expect_error("228K  ;", "229K  ;", -1, "carveouts", NULL);
    expect_error("name = h200", "name = h100", -1, "differs from the file name", NULL);
}

static void test_unknown_arch_lists_available(void **state)
{
    (void)state;
    arch_t a;
    diag_t d;
    diag_clear(&d);
    assert_int_equal(arch_load(arch_dir(), "h300", &a, &d), WL_EUSAGE);
    if (!strstr(d.msg, "unknown arch 'h300'") || !strstr(d.msg, "a100, h100, h200"))
        fail_msg("got: %s", d.msg);
    assert_int_equal(arch_load_file("/nonexistent/x.ini", &a, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "cannot read"));
}

static void test_cli(void **state)
{
    (void)state;
    tu_result r;
    assert_int_equal(tu_warplab(&r, "arch", "list", NULL), 0);
    int lines = 0;
    for (const char *p = r.out; *p; p++)
        lines += *p == '\n';
    if (lines < 5 || !strstr(r.out, "h200") || !strstr(r.out, "cc 9.0") ||
        !strstr(r.out, "132 SMs") || !strstr(r.out, "1980 MHz"))
        fail_msg("arch list: %d lines:\n%s", lines, r.out);
    tu_free(&r);

    assert_int_equal(tu_warplab(&r, "arch", "h200", NULL), 0);
    if (!strstr(r.out, "[smem]") || !strstr(r.out, "233472 B (228 KB)") ||
        !strstr(r.out, "0, 8, 16, 32, 64, 100, 132, 164, 196, 228 KB") ||
        !strstr(r.out, "1980 MHz"))
        fail_msg("arch h200:\n%s", r.out);
    tu_free(&r);

    assert_int_equal(tu_warplab(&r, "arch", "nope", NULL), 1);
    if (!strstr(r.err, "unknown arch 'nope'") || !strstr(r.err, "rtx3090") || *r.out)
        fail_msg("arch nope: stderr %s", r.err);
    tu_free(&r);

    assert_int_equal(tu_warplab(&r, "arch", "h200", "extra", NULL), 1);
    tu_free(&r);
    assert_int_equal(tu_warplab(&r, "arch", "--help", NULL), 0);
    assert_non_null(strstr(r.out, "usage: warplab arch"));
    tu_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_file_loads),
        cmocka_unit_test(test_reference_numbers),
        cmocka_unit_test(test_bad_value),
        cmocka_unit_test(test_unknown_and_duplicate_keys),
        cmocka_unit_test(test_duplicate_line_number),
        cmocka_unit_test(test_missing_key_points_at_section),
        cmocka_unit_test(test_inconsistent_files),
        cmocka_unit_test(test_unknown_arch_lists_available),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
