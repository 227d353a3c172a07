/* test_validate: `warplab validate` end to end on crafted measured files (tests/data/validate/:
 * two tiny ilp kernels with made-up "measured" times, a pairs file, broken inputs). Checks the
 * per-case figures against the JSON's own numbers, the aggregates against values recomputed
 * here, the pairs' ratios against the crafted times, determinism across -j, the --predictions
 * round trip, and every error path (exit status and one line naming the problem). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "testutil.h"

#define MEAS "tests/data/validate/measured"
#define PAIRS "tests/data/validate/pairs.txt"

static void expect_status(const tu_result *r, int want, const char *what)
{
    if (r->status != want)
        fail_msg("%s: exit %d, expected %d\nstdout: %s\nstderr: %s", what, r->status, want, r->out,
                 r->err);
}

static void expect_has(const char *text, const char *needle, const char *what)
{
    if (!strstr(text, needle))
        fail_msg("%s: '%s' not in:\n%s", what, needle, text);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    if (!cJSON_IsNumber(v))
        fail_msg("key %s missing or not a number", key);
    return v->valuedouble;
}

static const cJSON *case_of(const cJSON *j, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(j, "cases"))
    {
        const cJSON *n = cJSON_GetObjectItem(c, "case");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
            return c;
    }
    fail_msg("case %s not in the JSON", name);
    return NULL;
}

static cJSON *run_json_policy(const char *jobs, const char *policy)
{
    tu_result r;
    if (policy)
        tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
                   tu_path(PAIRS), "--json", "-j", jobs, "--policy", policy, NULL);
    else
        tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
                   tu_path(PAIRS), "--json", "-j", jobs, NULL);
    expect_status(&r, 0, "validate --json");
    expect_has(r.err, "[2/2]", "progress on stderr");
    cJSON *j = cJSON_Parse(r.out);
    if (!j)
        fail_msg("stdout is not JSON:\n%s", r.out);
    tu_free(&r);
    return j;
}

static cJSON *run_json(const char *jobs)
{
    return run_json_policy(jobs, NULL);
}

/* The policy every case ran under: the arch file's (h200: brr), or --policy's. */
static void test_policy(void **state)
{
    (void)state;
    const char *want[] = {NULL, "gto"};
    for (int i = 0; i < 2; i++) {
        cJSON *j = run_json_policy("1", want[i]);
        const cJSON *p = cJSON_GetObjectItem(j, "policy");
        if (!cJSON_IsString(p) || strcmp(p->valuestring, want[i] ? want[i] : "brr"))
            fail_msg("policy %s, expected %s", cJSON_IsString(p) ? p->valuestring : "(none)",
                     want[i] ? want[i] : "brr");
        cJSON_Delete(j);
    }
    tu_result r;
    tu_warplab(&r, "validate", "--arch", "h200", "--policy", "fifo", NULL);
    expect_status(&r, 1, "--policy fifo");
    expect_has(r.err, "expected lrr, gto, gty, brr or two-level", "--policy fifo");
    tu_free(&r);
}

static void test_json_figures(void **state)
{
    (void)state;
    cJSON *j = run_json("1");
    const cJSON *dep = case_of(j, "tiny_dep"), *ind = case_of(j, "tiny_indep");
    double md = num(dep, "measured_us"), pd = num(dep, "predicted_us");
    double mi = num(ind, "measured_us"), pi = num(ind, "predicted_us");
    /* tiny_dep has Nsight Compute's duration (12.0), tiny_indep only the event median (4.0) */
    if (md != 12.0 || mi != 4.0 || num(dep, "event_us") != 12.5)
        fail_msg("measured times %.3f %.3f (event %.3f), expected the crafted 12.0, 4.0 (12.5)",
                 md, mi, num(dep, "event_us"));
    const cJSON *src = cJSON_GetObjectItem(dep, "measured_source");
    if (!cJSON_IsString(src) || strcmp(src->valuestring, "ncu"))
        fail_msg("tiny_dep measured_source is not \"ncu\"");
    if (!(pd > 0 && pi > 0))
        fail_msg("predicted %.3f %.3f, expected > 0", pd, pi);
    if (fabs(num(dep, "error") - (pd - md) / md) > 1e-9)
        fail_msg("error %.6f vs (p - m) / m = %.6f", num(dep, "error"), (pd - md) / md);
    if (num(dep, "cycles") <= 0 || num(dep, "warp_instructions") <= 0)
        fail_msg("cycles %.0f, instructions %.0f", num(dep, "cycles"),
                 num(dep, "warp_instructions"));
    /* dependent FMA chains run longer than independent ones in the model too */
    if (!(pd > pi))
        fail_msg("predicted dependent %.3f us <= independent %.3f us", pd, pi);
    /* only tiny_dep (12.0 us) is >= 10 us: MAPE is its |error|, all-case MAPE the mean */
    if (num(j, "cases_counted") != 1)
        fail_msg("cases counted %.0f, expected 1", num(j, "cases_counted"));
    double e1 = fabs(pd - md) / md * 100, e2 = fabs(pi - mi) / mi * 100;
    if (fabs(num(j, "mape_pct") - e1) > 1e-6 || fabs(num(j, "mape_all_pct") - (e1 + e2) / 2) > 1e-6)
        fail_msg("mape %.4f / all %.4f, expected %.4f / %.4f", num(j, "mape_pct"),
                 num(j, "mape_all_pct"), e1, (e1 + e2) / 2);
    if (cJSON_GetObjectItem(j, "pearson_log"))
        fail_msg("Pearson reported from a single counted case");
    const cJSON *st = cJSON_GetObjectItem(j, "stall_agreement");
    if (num(st, "cases") != 1)
        fail_msg("stall agreement over %.0f cases, expected 1 (only tiny_dep has ncu)",
                 num(st, "cases"));
    /* agreeing with the top reason is also being among the top two */
    if (!cJSON_GetObjectItem(st, "top2") || num(st, "top2") < num(st, "agree") ||
        num(st, "top2") > num(st, "cases"))
        fail_msg("stall agreement: top %.0f, among the top two %.0f, of %.0f", num(st, "agree"),
                 num(st, "top2"), num(st, "cases"));
    /* pairs: ratio slow/fast from the crafted times; the missing case has no ratio */
    const cJSON *pairs = cJSON_GetObjectItem(j, "pairs");
    if (cJSON_GetArraySize(pairs) != 2)
        fail_msg("%d pairs, expected 2", cJSON_GetArraySize(pairs));
    const cJSON *p0 = cJSON_GetArrayItem(pairs, 0), *p1 = cJSON_GetArrayItem(pairs, 1);
    if (fabs(num(p0, "measured_ratio") - 12.0 / 4.0) > 1e-9 ||
        fabs(num(p0, "predicted_ratio") - pd / pi) > 1e-9)
        fail_msg("pair ratios %.4f %.4f, expected %.4f %.4f", num(p0, "measured_ratio"),
                 num(p0, "predicted_ratio"), 12.0 / 4.0, pd / pi);
    if (!cJSON_IsTrue(cJSON_GetObjectItem(p0, "direction_ok")))
        fail_msg("pair direction: predicted ratio %.3f, measured 3.0", pd / pi);
    if (cJSON_GetObjectItem(p1, "measured_ratio"))
        fail_msg("a pair with an unmeasured case got a ratio");
    cJSON_Delete(j);
}

static void test_parallel_same(void **state)
{
    (void)state;
    cJSON *a = run_json("1"), *b = run_json("2");
    const char *names[] = {"tiny_dep", "tiny_indep"};
    for (int i = 0; i < 2; i++) {
        double x = num(case_of(a, names[i]), "cycles"), y = num(case_of(b, names[i]), "cycles");
        if (x != y)
            fail_msg("%s: %.0f cycles with -j 1, %.0f with -j 2", names[i], x, y);
    }
    /* the model's stall breakdown comes back through the child's pipe */
    double x = num(case_of(a, "tiny_dep"), "stall_distance");
    double y = num(case_of(b, "tiny_dep"), "stall_distance");
    if (x != y)
        fail_msg("tiny_dep: stall distance %.17g with -j 1, %.17g with -j 2", x, y);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void test_text_and_predictions(void **state)
{
    (void)state;
    tu_result r;
    tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
               tu_path(PAIRS), "--json", NULL);
    expect_status(&r, 0, "validate --json");
    char path[1024];
    snprintf(path, sizeof path, "%s/pred.json", tu_tmpdir());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(r.out, f);
    fclose(f);
    tu_free(&r);
    tu_result t, u;
    tu_warplab(&t, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
               tu_path(PAIRS), NULL);
    tu_warplab(&u, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
               tu_path(PAIRS), "--predictions", path, NULL);
    expect_status(&t, 0, "validate (text)");
    expect_status(&u, 0, "validate --predictions");
    if (strcmp(t.out, u.out))
        fail_msg("--predictions report differs:\n%s\n---\n%s", t.out, u.out);
    if (strstr(u.err, "[1/2]"))
        fail_msg("--predictions simulated again:\n%s", u.err);
    expect_has(t.out, "Mean absolute error", "text report");
    expect_has(t.out, "tiny_indep", "text report");
    expect_has(t.out, "direction right", "pairs in the text report");
    expect_has(t.out, "not measured or not predicted", "missing pair");
    tu_free(&t);
    tu_free(&u);
    tu_warplab(&t, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
               tu_path(PAIRS), "--predictions", path, "--markdown", NULL);
    expect_status(&t, 0, "validate --markdown");
    expect_has(t.out, "| tiny_dep | 12.00 |", "markdown row");
    expect_has(t.out, "| independent vs dependent chains | tiny_indep | tiny_dep |", "markdown pair");
    tu_free(&t);
}

/* The stall mix: Nsight Compute's breakdown of the crafted tiny_dep (wait 3, selected 1,
 * long_scoreboard 0.5) as shares, the model's shares summing to 1, the distance between them;
 * then, from a crafted prediction (wait 0.5, selected 0.5), the hand-computed distance
 * (|0.5 - 2/3| + |0.5 - 2/9| + |0 - 1/9|) / 2 = 5/18, in the JSON, the text and the one-case
 * breakdown; a prediction with an unknown reason is refused. */
static void test_stall_mix(void **state)
{
    (void)state;
    cJSON *j = run_json("1");
    const cJSON *dep = case_of(j, "tiny_dep");
    const cJSON *ncu = cJSON_GetObjectItem(dep, "stall_shares_ncu");
    const cJSON *mod = cJSON_GetObjectItem(dep, "stall_shares_model");
    if (!cJSON_IsObject(ncu) || !cJSON_IsObject(mod))
        fail_msg("tiny_dep: stall_shares_ncu or stall_shares_model missing");
    if (fabs(num(ncu, "wait") - 3.0 / 4.5) > 1e-12 ||
        fabs(num(ncu, "selected") - 1.0 / 4.5) > 1e-12 ||
        fabs(num(ncu, "long_scoreboard") - 0.5 / 4.5) > 1e-12 || cJSON_GetArraySize(ncu) != 3)
        fail_msg("Nsight Compute's shares are not the crafted values over their total 4.5");
    double sum = 0, diff = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, mod)
    {
        sum += e->valuedouble;
        const cJSON *n = cJSON_GetObjectItem(ncu, e->string);
        diff += fabs(e->valuedouble - (n ? n->valuedouble : 0));
    }
    cJSON_ArrayForEach(e, ncu)
    {
        if (!cJSON_GetObjectItem(mod, e->string))
            diff += e->valuedouble;
    }
    if (fabs(sum - 1) > 1e-9)
        fail_msg("the model's shares sum to %.12f", sum);
    if (fabs(num(dep, "stall_distance") - diff / 2) > 1e-12)
        fail_msg("stall_distance %.6f, half the summed differences %.6f",
                 num(dep, "stall_distance"), diff / 2);
    if (cJSON_GetObjectItem(case_of(j, "tiny_indep"), "stall_distance"))
        fail_msg("tiny_indep has no Nsight Compute data but got a stall distance");
    const cJSON *sd = cJSON_GetObjectItem(j, "stall_distance");
    if (num(sd, "cases") != 1 || num(sd, "mean") != num(dep, "stall_distance") ||
        num(sd, "median") != num(sd, "mean") || num(sd, "max") != num(sd, "mean"))
        fail_msg("stall_distance summary is not that of its one case");
    cJSON_Delete(j);

    const char *dir = tu_tmpdir();
    char good[1024], bad[1024];
    snprintf(good, sizeof good, "%s/good.json", dir);
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    static const char *const pred =
        "{\"cases\": [{\"case\": \"tiny_dep\", \"predicted_us\": 10, \"cycles\": 1,"
        " \"top_stall_model\": \"wait\", \"stall_shares_model\": {%s}},"
        " {\"case\": \"tiny_indep\", \"predicted_us\": 5}]}";
    FILE *f = fopen(good, "w");
    assert_non_null(f);
    fprintf(f, pred, "\"wait\": 0.5, \"selected\": 0.5");
    fclose(f);
    f = fopen(bad, "w");
    assert_non_null(f);
    fprintf(f, pred, "\"waiting\": 1");
    fclose(f);
    tu_result r;
    tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
               tu_path(PAIRS), "--predictions", good, "--json", NULL);
    expect_status(&r, 0, "validate --predictions (crafted shares) --json");
    j = cJSON_Parse(r.out);
    if (!j || fabs(num(case_of(j, "tiny_dep"), "stall_distance") - 5.0 / 18.0) > 1e-12)
        fail_msg("crafted shares: stall distance is not 5/18:\n%s", r.out);
    cJSON_Delete(j);
    tu_free(&r);
    tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
               tu_path(PAIRS), "--predictions", good, "--cases", "tiny_dep", NULL);
    expect_status(&r, 0, "validate --predictions (crafted shares), one case");
    expect_has(r.out, "28%", "5/18 in the text");
    expect_has(r.out, "Stall breakdown of tiny_dep", "one case: its breakdown");
    expect_has(r.out, "  wait                    50.0%    66.7%", "one case: wait row");
    expect_has(r.out, "  long_scoreboard          0.0%    11.1%", "one case: long_scoreboard row");
    /* the pair about tiny_indep and a case never measured is only counted */
    expect_has(r.out, "tiny_indep < tiny_dep: not measured or not predicted", "one case: its pair");
    expect_has(r.out, "(1 more about cases not in this run)", "one case: other pairs counted");
    tu_free(&r);
    tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
               tu_path(PAIRS), "--predictions", bad, NULL);
    expect_status(&r, 1, "validate --predictions (unknown reason)");
    expect_has(r.err, "bad stall_shares_model entry 'waiting'", "unknown reason");
    tu_free(&r);
}

/* The DRAM traffic comparison: tiny_dep's crafted Nsight Compute count is 2 MB (tiny_indep has
 * none); predictions of 2.3 MB (15 % more: outside 10 %) and 1.9 MB (5 % less: inside). */
static void test_dram_traffic(void **state)
{
    (void)state;
    const char *dir = tu_tmpdir();
    static const double pred[2] = {2300000, 1900000};
    for (int k = 0; k < 2; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/dram%d.json", dir, k);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f,
                "{\"cases\": [{\"case\": \"tiny_dep\", \"predicted_us\": 10, \"dram_bytes\": "
                "%.0f}, {\"case\": \"tiny_indep\", \"predicted_us\": 5, \"dram_bytes\": 5000}]}",
                pred[k]);
        fclose(f);
        tu_result r;
        tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
                   tu_path(PAIRS), "--predictions", path, "--json", NULL);
        expect_status(&r, 0, "validate --predictions (crafted DRAM bytes) --json");
        cJSON *j = cJSON_Parse(r.out);
        if (!j)
            fail_msg("stdout is not JSON:\n%s", r.out);
        double want = pred[k] / 2000000 - 1;
        const cJSON *dep = case_of(j, "tiny_dep"), *dd = cJSON_GetObjectItem(j, "dram_agreement");
        if (num(dep, "dram_bytes_ncu") != 2000000 || fabs(num(dep, "dram_diff") - want) > 1e-12)
            fail_msg("tiny_dep: dram_bytes_ncu %.0f, dram_diff %.6f (want 2000000, %.6f)",
                     num(dep, "dram_bytes_ncu"), num(dep, "dram_diff"), want);
        if (cJSON_GetObjectItem(case_of(j, "tiny_indep"), "dram_diff"))
            fail_msg("tiny_indep has no Nsight Compute count but got a DRAM difference");
        if (num(dd, "cases") != 1 || num(dd, "within_10pct") != k ||
            fabs(num(dd, "mean_abs") - fabs(want)) > 1e-12 ||
            strcmp(cJSON_GetObjectItem(dd, "max_case")->valuestring, "tiny_dep"))
            fail_msg("dram_agreement is not that of tiny_dep alone (%s)", r.out);
        cJSON_Delete(j);
        tu_free(&r);
        tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
                   tu_path(PAIRS), "--predictions", path, NULL);
        expect_status(&r, 0, "validate --predictions (crafted DRAM bytes)");
        static const char *const line[2] = {
            "within 10% on 0 of 1, 15.0% apart on average, farthest tiny_dep +15.0%",
            "within 10% on 1 of 1, 5.0% apart on average, farthest tiny_dep -5.0%"};
        expect_has(r.out, line[k], "DRAM line");
        tu_free(&r);
    }
}

static void test_errors(void **state)
{
    (void)state;
    struct {
        const char *dir, *extra, *needle;
        int status;
    } c[] = {
        {"tests/data/validate/empty", NULL, "no measured cases", 1},
        {"tests/data/validate/does-not-exist", NULL, "no measured directory", 1},
        {"tests/data/validate/bad", NULL, "broken.json: not valid JSON", 1},
        {"tests/data/validate/nogrid", NULL, "nogrid.json: missing or bad \"grid\"", 1},
        {"tests/data/validate/nokernel", NULL, "no kernel 'no_such_kernel'", 1},
        {MEAS, "nomatch*", "no measured cases matching 'nomatch*'", 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        tu_result r;
        if (c[i].extra)
            tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(c[i].dir),
                       "--cases", c[i].extra, NULL);
        else
            tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(c[i].dir), NULL);
        expect_status(&r, c[i].status, c[i].dir);
        expect_has(r.err, c[i].needle, c[i].dir);
        tu_free(&r);
    }
    const char *bad[][4] = {
        {"validate", NULL, NULL, NULL},
        {"validate", "--arch", "h200", "-j"},
        {"validate", "--arch", "h200", "--bogus"},
        {"validate", "--arch", "nosuch", NULL},
    };
    const char *needles[] = {"--arch NAME is required", "-j needs", "unknown option", "nosuch"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_result r;
        int n = 0;
        while (n < 4 && bad[i][n])
            n++;
        tu_warplabv(&r, n, bad[i]);
        expect_status(&r, 1, needles[i]);
        expect_has(r.err, needles[i], "usage error");
        tu_free(&r);
    }
    tu_result r;
    tu_warplab(&r, "validate", "--arch", "h200", "-j", "0", NULL);
    expect_status(&r, 1, "-j 0");
    tu_free(&r);
    tu_warplab(&r, "validate", "--arch", "h200", "--json", "--markdown", NULL);
    expect_status(&r, 1, "--json --markdown");
    expect_has(r.err, "exclude", "--json --markdown");
    tu_free(&r);
}

static void test_png(void **state)
{
    (void)state;
    char png[1024];
    snprintf(png, sizeof png, "%s/scatter.png", tu_tmpdir());
    tu_result r;
    tu_warplab(&r, "validate", "--arch", "h200", "--measured", tu_path(MEAS), "--pairs",
               tu_path(PAIRS), "--png", png, NULL);
    if (r.status == 1 && strstr(r.err, "without the viewer")) {
        tu_free(&r); /* a build without SDL says so plainly */
        return;
    }
    expect_status(&r, 0, "validate --png");
    size_t len = 0;
    char *data = tu_read_file(png, &len);
    if (!data || len < 1000 || memcmp(data, "\x89PNG", 4))
        fail_msg("%s: %zu bytes, not a PNG", png, len);
    free(data);
    tu_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_figures),
        cmocka_unit_test(test_policy), cmocka_unit_test(test_parallel_same),
        cmocka_unit_test(test_text_and_predictions), cmocka_unit_test(test_dram_traffic),
        cmocka_unit_test(test_stall_mix),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_png),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
