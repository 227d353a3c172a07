/* timing_trace: the trace file writer and its validating reader (sim/timing/trace.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "stall.h"
#include "trace.h"
#include "testutil.h"

static const char *reason_names[STALL_COUNT];

/* Writes a small trace: 2 SMs, 2 slots each, a few records in scrambled order. */
static void write_sample(const char *path)
{
    for (int i = 0; i < STALL_COUNT; i++)
        reason_names[i] = stall_name(i);
    uint32_t gpc[2] = {0, 1};
    trace_header h = {.kernel = "k", .arch = "h200", .ptx_path = "k.ptx",
                      .source = "line one\nline two\r\nline three",
                      .sm_count = 2, .gpc_count = 2, .sm_gpc = gpc, .subpartitions = 4,
                      .warp_slots_per_sm = 64, .clock_mhz = 1980,
                      .grid = {3, 1, 1}, .block = {64, 1, 1},
                      .n_reasons = STALL_COUNT, .reason_names = reason_names};
    trace_writer *w;
    diag_t d;
    assert_int_equal(trace_writer_open(path, &h, &w, &d), WL_OK);
    trace_write_interval(w, &(trace_interval){1, 0, STALL_WAIT, 12, 20});
    trace_write_interval(w, &(trace_interval){0, 1, STALL_SELECTED, 5, 6});
    trace_write_interval(w, &(trace_interval){0, 1, STALL_LONG_SCOREBOARD, 6, 400});
    trace_write_interval(w, &(trace_interval){1, 0, STALL_SELECTED, 10, 12});
    trace_write_issue(w, &(trace_issue){0, 1, 5, 2, 0xffffffffu});
    trace_write_issue(w, &(trace_issue){1, 0, 10, 3, 0x0000ffffu});
    trace_write_issue(w, &(trace_issue){1, 0, 11, 1, 1});
    trace_write_block(w, &(trace_block){2, 1, 100, 700});
    trace_write_block(w, &(trace_block){0, 0, 0, 500});
    trace_write_warp(w, &(trace_warp){0, 1, 0, 1, 0, 500});
    trace_write_warp(w, &(trace_warp){1, 0, 2, 0, 100, 700});
    assert_int_equal(trace_writer_close(w, 700, &d), WL_OK);
}

static void test_round_trip(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/t.wlt", tu_tmpdir());
    write_sample(path);
    trace_t t;
    diag_t d;
    assert_int_equal(trace_open_read(path, &t, &d), WL_OK);
    assert_string_equal(t.kernel, "k");
    assert_string_equal(t.arch, "h200");
    assert_string_equal(t.ptx_path, "k.ptx");
    assert_int_equal(t.sm_count, 2);
    assert_int_equal(t.sm_gpc[1], 1);
    assert_int_equal(t.subpartitions, 4);
    assert_int_equal(t.warp_slots_per_sm, 64);
    assert_int_equal(t.clock_mhz, 1980);
    assert_int_equal(t.grid[0], 3);
    assert_int_equal(t.block[0], 64);
    assert_int_equal(t.total_cycles, 700);
    assert_int_equal(t.n_reasons, STALL_COUNT);
    assert_string_equal(trace_reason_name(&t, STALL_LONG_SCOREBOARD), "long_scoreboard");
    assert_string_equal(trace_reason_name(&t, 999), "?");
    /* sorted by (sm, slot, start) */
    assert_int_equal(t.n_intervals, 4);
    assert_int_equal(t.intervals[0].sm, 0);
    assert_int_equal(t.intervals[0].start, 5);
    assert_int_equal(t.intervals[1].reason, STALL_LONG_SCOREBOARD);
    assert_int_equal(t.intervals[1].end, 400);
    assert_int_equal(t.intervals[2].sm, 1);
    assert_int_equal(t.intervals[2].start, 10);
    assert_int_equal(t.intervals[3].reason, STALL_WAIT);
    assert_int_equal(t.n_issues, 3);
    assert_int_equal(t.issues[0].active_mask, 0xffffffffu);
    assert_int_equal(t.issues[2].cycle, 11);
    assert_int_equal(t.issues[2].ptx_line, 1);
    assert_int_equal(t.n_blocks, 2);
    assert_int_equal(t.blocks[0].block, 0);
    assert_int_equal(t.blocks[1].start, 100);
    assert_int_equal(t.blocks[1].end, 700);
    assert_int_equal(t.n_warps, 2);
    assert_int_equal(t.warps[1].block, 2);
    assert_string_equal(trace_source_line(&t, 2), "line two");
    assert_string_equal(trace_source_line(&t, 3), "line three");
    assert_null(trace_source_line(&t, 4));
    assert_null(trace_source_line(&t, 0));
    size_t a, n, b, m;
    trace_find_slot(&t, 1, 0, &a, &n, &b, &m);
    assert_int_equal(a, 2);
    assert_int_equal(n, 2);
    assert_int_equal(b, 1);
    assert_int_equal(m, 2);
    trace_find_slot(&t, 1, 5, &a, &n, &b, &m);
    assert_int_equal(n, 0);
    assert_int_equal(m, 0);
    trace_close(&t);
    trace_close(&t); /* idempotent */
}

/* Every truncation and every single-byte corruption is either rejected with WL_EUSAGE and a
 * message, or (for bytes that only change values) accepted; never a crash (ASan run). */
static void test_truncation_and_corruption(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/t.wlt", tu_tmpdir());
    write_sample(path);
    size_t len;
    char *buf = tu_read_file(path, &len);
    assert_non_null(buf);
    trace_t t;
    diag_t d;
    for (size_t n = 0; n < len; n++) {
        diag_clear(&d);
        wl_status st = trace_read_mem(buf, n, "cut", &t, &d);
        if (st != WL_EUSAGE)
            fail_msg("truncated at %zu of %zu: status %d", n, len, (int)st);
        if (!strstr(d.msg, "bad trace") && !strstr(d.msg, "not a warplab"))
            fail_msg("truncated at %zu: message '%s'", n, d.msg);
        assert_int_equal(t.n_intervals, 0);
    }
    unsigned char *c = malloc(len);
    int rejected = 0, rejected_head = 0;
    for (size_t i = 0; i < len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(c, buf, len);
            c[i] ^= (unsigned char)(1u << bit);
            wl_status st = trace_read_mem(c, len, "flip", &t, &d);
            rejected += st != WL_OK;
            rejected_head += i < 12 && st != WL_OK;
            if (st != WL_OK && st != WL_EUSAGE)
                fail_msg("flip %zu.%d: status %d", i, bit, (int)st);
            trace_close(&t);
        }
    }
    /* every flip in the magic and version is rejected; flips inside strings are legal */
    if (rejected_head != 12 * 8)
        fail_msg("only %d of 96 flips of magic/version rejected", rejected_head);
    if (rejected == 0)
        fail_msg("no flip of %zu bytes rejected", len);
    free(c);
    free(buf);
}

static void test_foreign_and_missing(void **state)
{
    (void)state;
    trace_t t;
    diag_t d;
    assert_int_equal(trace_read_mem("GIF89a......", 12, "x.gif", &t, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "bad magic"));
    char path[512];
    snprintf(path, sizeof path, "%s/none.wlt", tu_tmpdir());
    assert_int_equal(trace_open_read(path, &t, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "cannot open trace"));
    /* a record whose SM is out of range is named */
    for (int i = 0; i < STALL_COUNT; i++)
        reason_names[i] = stall_name(i);
    trace_header h = {.kernel = "k", .sm_count = 1, .subpartitions = 4,
                      .warp_slots_per_sm = 8, .clock_mhz = 1000, .grid = {1, 1, 1},
                      .block = {32, 1, 1}, .n_reasons = STALL_COUNT,
                      .reason_names = reason_names};
    trace_writer *w;
    snprintf(path, sizeof path, "%s/bad.wlt", tu_tmpdir());
    assert_int_equal(trace_writer_open(path, &h, &w, &d), WL_OK);
    trace_write_interval(w, &(trace_interval){3, 0, 0, 0, 1});
    assert_int_equal(trace_writer_close(w, 1, &d), WL_OK);
    assert_int_equal(trace_open_read(path, &t, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "sm 3 out of range"));
    /* overlapping intervals in one slot */
    assert_int_equal(trace_writer_open(path, &h, &w, &d), WL_OK);
    trace_write_interval(w, &(trace_interval){0, 0, 0, 0, 5});
    trace_write_interval(w, &(trace_interval){0, 0, 1, 4, 6});
    assert_int_equal(trace_writer_close(w, 6, &d), WL_OK);
    assert_int_equal(trace_open_read(path, &t, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "overlapping"));
    /* a record past the total cycle count */
    assert_int_equal(trace_writer_open(path, &h, &w, &d), WL_OK);
    trace_write_interval(w, &(trace_interval){0, 0, 0, 0, 9});
    assert_int_equal(trace_writer_close(w, 6, &d), WL_OK);
    assert_int_equal(trace_open_read(path, &t, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "after the total"));
}

static void test_stall_names(void **state)
{
    (void)state;
    assert_int_equal(STALL_COUNT, 16);
    assert_string_equal(stall_name(STALL_MATH_PIPE_THROTTLE), "math_pipe_throttle");
    assert_int_equal(stall_from_name("drain"), STALL_DRAIN);
    assert_int_equal(stall_from_name("nope"), -1);
    assert_string_equal(stall_name(-1), "?");
    assert_non_null(strstr(stall_describe(STALL_BARRIER, "zh"), "屏障"));
    assert_non_null(strstr(stall_describe(STALL_BARRIER, "en"), "barrier"));
}

/* `warplab export TRACE --chrome OUT.json`: valid JSON with one event per record, and errors. */
static void test_export_chrome(void **state)
{
    (void)state;
    char path[512], out[512], bad[512];
    snprintf(path, sizeof path, "%s/t.wlt", tu_tmpdir());
    snprintf(out, sizeof out, "%s/t.json", tu_tmpdir());
    snprintf(bad, sizeof bad, "%s/bad.wlt", tu_tmpdir());
    write_sample(path);
    tu_result r;
    if (tu_warplab(&r, "export", path, "--chrome", out, NULL) != 0)
        fail_msg("export: status %d, stderr %s", r.status, r.err);
    tu_free(&r);
    size_t len;
    char *text = tu_read_file(out, &len);
    assert_non_null(text);
    cJSON *j = cJSON_ParseWithLength(text, len);
    if (!j)
        fail_msg("export wrote invalid JSON: %.200s", text);
    cJSON *ev = cJSON_GetObjectItemCaseSensitive(j, "traceEvents");
    int nx = 0, ni = 0, nb = 0, ne = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, ev) {
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "ph"));
        nx += strcmp(ph, "X") == 0;
        ni += strcmp(ph, "i") == 0;
        nb += strcmp(ph, "b") == 0;
        ne += strcmp(ph, "e") == 0;
    }
    if (nx != 4 || ni != 3 || nb != 2 || ne != 2)
        fail_msg("events: %d X, %d i, %d b, %d e (expected 4 3 2 2)", nx, ni, nb, ne);
    /* the issue on line 2 carries the PTX text of that line */
    if (!strstr(text, "\"ptx\":\"line two\""))
        fail_msg("no PTX text in the issue events");
    cJSON_Delete(j);
    free(text);
    /* errors: missing output, corrupt trace, missing file -> exit 1 with one line */
    assert_int_equal(tu_warplab(&r, "export", path, NULL), 1);
    tu_free(&r);
    FILE *f = fopen(bad, "wb");
    fputs("WLTRACE1garbage", f);
    fclose(f);
    assert_int_equal(tu_warplab(&r, "export", bad, "--chrome", out, NULL), 1);
    if (!strstr(r.err, "bad trace") && !strstr(r.err, "unsupported trace version"))
        fail_msg("corrupt trace message: %s", r.err);
    tu_free(&r);
    assert_int_equal(tu_warplab(&r, "export", "/nonexistent.wlt", "--chrome", out, NULL), 1);
    tu_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_truncation_and_corruption),
        cmocka_unit_test(test_foreign_and_missing),
        cmocka_unit_test(test_stall_names),
        cmocka_unit_test(test_export_chrome),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
