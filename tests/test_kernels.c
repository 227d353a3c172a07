/* test_kernels: the lesson kernels, their case lists and CPU references, and the simulator
 * against those references.
 *
 * - gpu/cases.txt and gpu/cases-sim.txt parse; every case of cases.txt has a namesake in
 *   cases-sim.txt with the same kernel and PTX file; every kernel with a reference has a case;
 *   every case's PTX file has its `.entry`.
 * - Bad case lines give FILE:LINE:COL errors; a reference refuses launches that would take its
 *   kernel out of bounds; cases_compare finds and describes mismatches.
 * - Measured results (gpu/measured/h200/NAME.json, written by gpu/harness) describe exactly the
 *   launch of the case of that name in gpu/cases.txt, and say the GPU computed the right result:
 *   a case changed after its measurement makes this fail (skipped while nothing is measured).
 * - One test per case of gpu/cases-sim.txt: `warplab run PTX --kernel .. --grid .. --block ..
 *   [--smem ..] --arg .. --dump DIR`, then each --check'ed DIR/argN.bin is compared with the CPU
 *   reference computed from the same initial buffers (argspec_fill). These fail until the
 *   simulator executes the kernel correctly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases.h"
#include "reference.h"
#include "testutil.h"

static void load_or_fail(const char *rel, cases_list *l)
{
    diag_t d;
    diag_clear(&d);
    if (cases_load(tu_path(rel), l, &d) != WL_OK) {
        char msg[1400];
        diag_format(&d, msg, sizeof msg);
        fail_msg("%s: %s", rel, msg);
    }
}

static int ptx_has_entry(const cases_case *c)
{
    size_t len;
    char *text = tu_read_file(tu_path(c->ptx), &len);
    char pat[128];
    snprintf(pat, sizeof pat, ".entry %s(", c->kernel);
    int found = text && strstr(text, pat) != NULL;
    free(text);
    return found;
}

static void test_case_lists_consistent(void **state)
{
    (void)state;
    cases_list full, sim;
    load_or_fail("gpu/cases.txt", &full);
    load_or_fail("gpu/cases-sim.txt", &sim);
    assert_true(full.n >= 40);
    for (int i = 0; i < full.n; ++i) {
        const cases_case *c = &full.v[i], *s = cases_find(&sim, c->name);
        if (!s)
            fail_msg("case %s (gpu/cases.txt:%d) has no small variant in gpu/cases-sim.txt",
                     c->name, c->line);
        if (strcmp(s->kernel, c->kernel) || strcmp(s->ptx, c->ptx) || s->nargs != c->nargs)
            fail_msg("case %s: cases-sim.txt runs %s/%s with %d args, cases.txt %s/%s with %d",
                     c->name, s->ptx, s->kernel, s->nargs, c->ptx, c->kernel, c->nargs);
        if (!ptx_has_entry(c))
            fail_msg("case %s: %s has no .entry %s", c->name, c->ptx, c->kernel);
    }
    if (sim.n != full.n)
        fail_msg("cases-sim.txt has %d cases, cases.txt %d", sim.n, full.n);
    int nref;
    const ref_entry *t = ref_table(&nref);
    for (int k = 0; k < nref; ++k) {
        int used = 0;
        for (int i = 0; i < full.n && !used; ++i)
            used = strcmp(full.v[i].kernel, t[k].kernel) == 0;
        if (!used)
            fail_msg("kernel %s has a reference but no case in gpu/cases.txt", t[k].kernel);
    }
    cases_free(&full);
    cases_free(&sim);
}

/* A bad line must fail with line 7 and the column where `at` starts (column 1 when at is NULL). */
static void expect_parse_error(const char *line, const char *at, const char *want)
{
    cases_case c;
    diag_t d;
    diag_clear(&d);
    int col = at ? (int)(strstr(line, at) - line) + 1 : 1;
    wl_status st = cases_parse_line(line, "x.txt", 7, &c, &d);
    if (st != WL_EUSAGE || d.line != 7 || d.col != col || !strstr(d.msg, want))
        fail_msg("'%s': status %d line %d col %d msg '%s'; want 1, 7, %d, '%s'", line, st, d.line,
                 d.col, d.msg, col, want);
}

static void test_case_line_errors(void **state)
{
    (void)state;
    const char *ok = "a p.ptx --kernel k --grid 2 --block 32 --arg u32[64]:zeros --check 0:exact";
    cases_case c;
    diag_t d;
    diag_clear(&d);
    assert_int_equal(cases_parse_line(ok, "x", 1, &c, &d), WL_OK);
    assert_int_equal(c.grid[0], 2);
    assert_int_equal(c.block[0], 32);
    assert_int_equal(c.nargs, 1);
    assert_int_equal((int)c.args[0].count, 64);
    expect_parse_error("a p.ptx --kernel k --grid 0 --block 32 --check 0:exact", "0 ", "bad --grid");
    expect_parse_error("a p.ptx --kernel k --grid 1 --block 32,1,1,1 --check 0:exact", "32,",
                       "bad --block");
    expect_parse_error("a p.ptx --kernel k --grid 1 --block 32 --arg u33[4]:zeros", "u33", "u33");
    expect_parse_error("a p.ptx --kernel k --grid 1 --block 32 --arg u32[4]:zeros --check 0:fuzzy",
                       "0:fuzzy", "bad --check");
    expect_parse_error("a p.ptx --kernel k --grid 1 --block 32 --arg u32:4 --check 0:exact", NULL,
                       "does not name a buffer");
    expect_parse_error("a p.ptx --kernel k --grid 1 --block 32 --arg u32[4]:zeros --check 0:rel=1",
                       NULL, "must be checked exact");
    expect_parse_error("a p.ptx --kernel k --grid 1 --block 32 --frob 1", "--frob",
                       "unknown option");
    expect_parse_error("a p.ptx --kernel k --grid 1 --block", "--block", "needs a value");
    expect_parse_error("a p.ptx --grid 1 --block 32 --arg u32[4]:zeros --check 0:exact", NULL,
                       "needs --kernel");
}

/* A launch bigger than its buffers must be refused, never computed out of bounds. */
static void test_reference_refuses_bad_launch(void **state)
{
    (void)state;
    static const char *bad[] = {
        "a p --kernel lat_copy --grid 1 --block 32 --arg f32[8]:zeros --arg f32[8]:zeros "
        "--arg s32:9 --check 1:exact",
        "a p --kernel red_sequential --grid 2 --block 256 --smem 1024 --arg u32[256]:zeros "
        "--arg u32[2]:zeros --check 1:exact",
        "a p --kernel red_sequential --grid 1 --block 256 --smem 512 --arg u32[256]:zeros "
        "--arg u32[1]:zeros --check 1:exact",
        "a p --kernel bk_transpose33 --grid 2,2 --block 32,8 --arg f32[4096]:zeros "
        "--arg f32[4096]:zeros --arg s32:64 --arg s32:32 --check 1:exact",
        "a p --kernel ws_pipeline --grid 1 --block 512 --arg u32[1024]:zeros "
        "--arg u32[1024]:zeros --arg s32:1 --arg s32:16 --arg s32:1 --check 1:exact",
        "a p --kernel div_none --grid 1 --block 32 --arg u32[32]:zeros --arg u32[32]:zeros "
        "--arg s32:32 --check 1:exact",
        "a p --kernel no_such_kernel --grid 1 --block 32 --arg u32[32]:zeros --check 0:exact",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        cases_case c;
        cases_arg a[CASES_MAX_ARGS];
        diag_t d;
        diag_clear(&d);
        if (cases_parse_line(bad[i], "x", 1, &c, &d) != WL_OK)
            fail_msg("line %zu does not parse: %s", i, d.msg);
        assert_int_equal(cases_fill_args(&c, a, &d), WL_OK);
        wl_status st = ref_run(&c, a, &d);
        if (st != WL_EUSAGE || !d.msg[0])
            fail_msg("line %zu (%s): ref_run gave %d '%s', want a refusal", i, c.kernel, st, d.msg);
        cases_free_args(&c, a);
    }
}

static void test_compare_reports_mismatch(void **state)
{
    (void)state;
    cases_case c;
    diag_t d;
    diag_clear(&d);
    assert_int_equal(cases_parse_line("a p --kernel k --grid 1 --block 1 --arg f32[4]:iota "
                                      "--arg u32[4]:iota --check 0:rel=1e-3 --check 1:exact",
                                      "x", 1, &c, &d), WL_OK);
    float want[4] = {0, 1, 2, 3}, got[4] = {0, 1.0005f, 2.01f, 3};
    uint32_t wu[4] = {0, 1, 2, 3}, gu[4] = {0, 1, 2, 4};
    char msg[256];
    uint64_t bad = cases_compare(&c, &c.checks[0], got, want, msg, sizeof msg);
    if (bad != 1 || !strstr(msg, "arg 0 [2]"))
        fail_msg("rel check: %llu mismatches '%s', want 1 at [2]", (unsigned long long)bad, msg);
    bad = cases_compare(&c, &c.checks[1], gu, wu, msg, sizeof msg);
    if (bad != 1 || !strstr(msg, "arg 1 [3]: got 4 want 3"))
        fail_msg("exact check: %llu mismatches '%s'", (unsigned long long)bad, msg);
    assert_int_equal(cases_compare(&c, &c.checks[1], wu, wu, msg, sizeof msg), 0);
}

/* One measured file against its case; returns a message or NULL. */
static const char *measured_mismatch(const cases_case *c, const cJSON *j, char *buf, size_t n)
{
    const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(j, "kernel");
    const cJSON *smem = cJSON_GetObjectItemCaseSensitive(j, "smem");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(j, "args");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(j, "status");
    const cJSON *correct = cJSON_GetObjectItemCaseSensitive(j, "correct");
    if (!cJSON_IsString(kernel) || strcmp(kernel->valuestring, c->kernel) != 0)
        return "kernel differs";
    const char *keys[2] = {"grid", "block"};
    const unsigned *dims[2] = {c->grid, c->block};
    for (int k = 0; k < 2; ++k) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, keys[k]);
        if (cJSON_GetArraySize(a) != 3)
            return "grid/block missing";
        for (int i = 0; i < 3; ++i)
            if (cJSON_GetArrayItem(a, i)->valuedouble != (double)dims[k][i])
                return k ? "block differs" : "grid differs";
    }
    if (!cJSON_IsNumber(smem) || smem->valuedouble != (double)c->smem)
        return "smem differs";
    if (cJSON_GetArraySize(args) != c->nargs)
        return "number of args differs";
    for (int i = 0; i < c->nargs; ++i) {
        const cJSON *a = cJSON_GetArrayItem(args, i);
        if (!cJSON_IsString(a) || strcmp(a->valuestring, c->argtext[i]) != 0) {
            snprintf(buf, n, "arg %d was '%s', the case now says '%s'", i,
                     cJSON_IsString(a) ? a->valuestring : "?", c->argtext[i]);
            return buf;
        }
    }
    if (!cJSON_IsString(status) || strcmp(status->valuestring, "ok") != 0) {
        snprintf(buf, n, "status '%s'", cJSON_IsString(status) ? status->valuestring : "?");
        return buf;
    }
    if (!cJSON_IsTrue(correct))
        return "the GPU's result did not match the CPU reference";
    return NULL;
}

static void test_measured_match_cases(void **state)
{
    (void)state;
    cases_list full;
    load_or_fail("gpu/cases.txt", &full);
    int measured = 0;
    char failures[2048] = "";
    for (int i = 0; i < full.n; ++i) {
        char rel[256], buf[512];
        snprintf(rel, sizeof rel, "gpu/measured/h200/%s.json", full.v[i].name);
        char *text = tu_read_file(tu_path(rel), NULL);
        if (!text)
            continue;
        ++measured;
        cJSON *j = cJSON_Parse(text);
        const char *why = j ? measured_mismatch(&full.v[i], j, buf, sizeof buf) : "not JSON";
        if (why) {
            size_t len = strlen(failures);
            snprintf(failures + len, sizeof failures - len, "%s: %s; ", rel, why);
        }
        cJSON_Delete(j);
        free(text);
    }
    cases_free(&full);
    if (failures[0])
        fail_msg("%s(re-measure with gpu/harness/measure.sh)", failures);
    if (measured == 0) {
        printf("no gpu/measured/h200/<case>.json yet\n");
        skip();
    }
}

/* ---- the simulator against the references, one cmocka test per case ---- */

static void remove_dir(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(dp);
    rmdir(dir);
}

static void test_sim_case(void **state)
{
    const cases_case *c = (const cases_case *)*state;
    char dir[128], grid[64], block[64], smem[32], path[4200];
    const char *tmp = tu_tmpdir();
    assert_non_null(tmp);
    snprintf(dir, sizeof dir, "%s", tmp);
    snprintf(grid, sizeof grid, "%u,%u,%u", c->grid[0], c->grid[1], c->grid[2]);
    snprintf(block, sizeof block, "%u,%u,%u", c->block[0], c->block[1], c->block[2]);
    snprintf(smem, sizeof smem, "%u", c->smem);
    const char *args[64];
    int n = 0;
    args[n++] = "run";
    args[n++] = tu_path(c->ptx);
    args[n++] = "--kernel";
    args[n++] = c->kernel;
    args[n++] = "--arch";
    args[n++] = "h200";
    args[n++] = "--grid";
    args[n++] = grid;
    args[n++] = "--block";
    args[n++] = block;
    args[n++] = "--smem";
    args[n++] = smem;
    for (int i = 0; i < c->nargs; ++i) {
        args[n++] = "--arg";
        args[n++] = c->argtext[i];
    }
    args[n++] = "--dump";
    args[n++] = dir;
    tu_result r;
    tu_warplabv(&r, n, args);
    if (r.status != 0) {
        remove_dir(dir);
        fail_msg("case %s: warplab run exit %d: %.400s", c->name, r.status, r.err);
    }
    tu_free(&r);

    cases_arg a[CASES_MAX_ARGS];
    diag_t d;
    diag_clear(&d);
    assert_int_equal(cases_fill_args(c, a, &d), WL_OK);
    if (ref_run(c, a, &d) != WL_OK)
        fail_msg("case %s: reference refused: %s", c->name, d.msg);
    char failure[600] = "";
    for (int k = 0; k < c->nchecks && !failure[0]; ++k) {
        const cases_check *chk = &c->checks[k];
        size_t len = 0;
        snprintf(path, sizeof path, "%s/arg%d.bin", dir, chk->arg);
        char *got = tu_read_file(path, &len);
        if (!got) {
            snprintf(failure, sizeof failure, "no dump %.500s", path);
        } else if (len != a[chk->arg].bytes) {
            snprintf(failure, sizeof failure, "arg%d.bin has %zu bytes, want %llu", chk->arg, len,
                     (unsigned long long)a[chk->arg].bytes);
        } else {
            char msg[256];
            uint64_t bad = cases_compare(c, chk, got, a[chk->arg].p, msg, sizeof msg);
            if (bad)
                snprintf(failure, sizeof failure, "%llu of %llu elements differ, first %s",
                         (unsigned long long)bad, (unsigned long long)c->args[chk->arg].count,
                         msg);
        }
        free(got);
    }
    cases_free_args(c, a);
    remove_dir(dir);
    if (failure[0])
        fail_msg("case %s (%s): %s", c->name, c->kernel, failure);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_case_lists_consistent),
        cmocka_unit_test(test_case_line_errors),
        cmocka_unit_test(test_reference_refuses_bad_launch),
        cmocka_unit_test(test_compare_reports_mismatch),
        cmocka_unit_test(test_measured_match_cases),
    };
    int failed = cmocka_run_group_tests_name("kernels", fixed, NULL, NULL);

    cases_list sim;
    diag_t d;
    diag_clear(&d);
    if (cases_load(tu_path("gpu/cases-sim.txt"), &sim, &d) != WL_OK) {
        fprintf(stderr, "gpu/cases-sim.txt: %s\n", d.msg);
        return 1;
    }
    struct CMUnitTest *t = calloc((size_t)sim.n, sizeof *t);
    if (!t)
        return 1;
    for (int i = 0; i < sim.n; ++i) {
        t[i].name = sim.v[i].name;
        t[i].test_func = test_sim_case;
        t[i].initial_state = &sim.v[i];
    }
    failed += _cmocka_run_group_tests("simulator vs reference", t, (size_t)sim.n, NULL, NULL);
    free(t);
    cases_free(&sim);
    return failed ? 1 : 0;
}
