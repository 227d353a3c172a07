/* viz_model and viz_measured: records in, indices out (LOD dominant reasons, lookups, lanes,
 * waves, per-line stall attribution), trace files and measured files read or rejected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stall.h"
#include "testutil.h"
#include "trace.h"
#include "viz_measured.h"
#include "viz_model.h"

static void add_iv(viz_model *m, uint32_t sm, uint32_t slot, int reason, uint64_t a, uint64_t b)
{
    diag_t d;
    viz_iv iv = {sm, slot, (uint32_t)reason, a, b};
    assert_int_equal(viz_model_add_interval(m, &iv, &d), WL_OK);
}

static void add_issue(viz_model *m, uint32_t sm, uint32_t slot, uint64_t c, uint32_t line,
                      uint32_t lanes)
{
    diag_t d;
    viz_issue is = {sm, slot, line, lanes, c};
    assert_int_equal(viz_model_add_issue(m, &is, &d), WL_OK);
}

/* One SM slot: issue at 0, long_scoreboard [1, 5000), issue at 5000, barrier [5001, 5100),
 * issue at 5100 (line 3, 16 lanes), then selected [5101, 10000) with no issues. */
static void small_model(viz_model *m)
{
    diag_t d;
    assert_int_equal(viz_model_init(m, 2, 1, 4, 8, 1000, &d), WL_OK);
    add_iv(m, 1, 2, STALL_SELECTED, 0, 1);
    add_issue(m, 1, 2, 0, 1, 32);
    add_iv(m, 1, 2, STALL_LONG_SCOREBOARD, 1, 5000);
    add_iv(m, 1, 2, STALL_SELECTED, 5000, 5001);
    add_issue(m, 1, 2, 5000, 2, 32);
    add_iv(m, 1, 2, STALL_BARRIER, 5001, 5100);
    add_iv(m, 1, 2, STALL_SELECTED, 5100, 10000);
    add_issue(m, 1, 2, 5100, 3, 16);
    assert_int_equal(viz_model_set_source(m, "ld.global\nadd\nbar.sync\n", &d), WL_OK);
    viz_warp w = {1, 2, 7, 1, 0, 10000};
    assert_int_equal(viz_model_add_warp(m, &w, &d), WL_OK);
    assert_int_equal(viz_model_finish(m, 0, &d), WL_OK);
}

static void test_lod_dominant(void **state)
{
    (void)state;
    viz_model m;
    small_model(&m);
    assert_int_equal(m.total_cycles, 10000);
    /* 10000 cycles over at most 1024 buckets: 10 cycles each */
    assert_int_equal(m.lod_bucket, 10);
    uint32_t row = viz_row(&m, 1, 2);
    assert_int_equal(viz_model_lod_reason(&m, row, 0, 2500), STALL_LONG_SCOREBOARD);
    assert_int_equal(viz_model_lod_reason(&m, row, 0, 7000), STALL_SELECTED);
    /* the barrier bucket [5050, 5060) is all barrier */
    assert_int_equal(viz_model_lod_reason(&m, row, 0, 5055), STALL_BARRIER);
    /* coarser: one bucket of 5120 cycles over [0, 5120): long_scoreboard dominates */
    int top = (int)m.lod_levels - 1;
    assert_int_equal(viz_model_lod_reason(&m, row, top, 0), STALL_LONG_SCOREBOARD);
    assert_int_equal(viz_model_lod_reason(&m, row, top - 1, 0), STALL_LONG_SCOREBOARD);
    assert_int_equal(viz_model_lod_reason(&m, row, top - 1, 9000), STALL_SELECTED);
    /* a slot nobody used is empty everywhere */
    assert_int_equal(viz_model_lod_reason(&m, viz_row(&m, 0, 0), 0, 2500), VIZ_NONE);
    /* lanes: the bucket of the 16-lane issue at 5100 */
    assert_int_equal(viz_model_lod_lanes(&m, row, 0, 5100), 16);
    assert_int_equal(viz_model_lod_lanes(&m, row, 0, 0), 32);
    assert_int_equal(viz_model_lod_lanes(&m, row, 0, 2500), VIZ_NONE);
    viz_model_free(&m);
}

static void test_lod_level_choice(void **state)
{
    (void)state;
    viz_model m;
    small_model(&m);
    assert_int_equal(viz_model_lod_level(&m, 1.0), -1); /* finer than a bucket: intervals */
    assert_int_equal(viz_model_lod_level(&m, 10.0), 0);
    assert_int_equal(viz_model_lod_level(&m, 25.0), 1); /* 20-cycle buckets <= 25 < 40 */
    assert_int_equal(viz_model_lod_level(&m, 1e9), (int)m.lod_levels - 1);
    viz_model_free(&m);
}

static void test_lookups(void **state)
{
    (void)state;
    viz_model m;
    small_model(&m);
    const viz_iv *iv = viz_model_interval_at(&m, 1, 2, 4999);
    assert_non_null(iv);
    assert_int_equal(iv->reason, STALL_LONG_SCOREBOARD);
    assert_int_equal(iv->t0, 1);
    assert_null(viz_model_interval_at(&m, 1, 2, 10000));
    assert_null(viz_model_interval_at(&m, 0, 2, 10));
    const viz_issue *is = viz_model_issue_at(&m, 1, 2, 4999);
    assert_non_null(is);
    assert_int_equal(is->cycle, 0);
    is = viz_model_next_issue(&m, 1, 2, 1);
    assert_non_null(is);
    assert_int_equal(is->cycle, 5000);
    assert_int_equal(is->line, 2);
    const viz_warp *w = viz_model_warp_at(&m, 1, 2, 300);
    assert_non_null(w);
    assert_int_equal(w->block, 7);
    assert_null(viz_model_warp_at(&m, 1, 3, 300));
    viz_model_free(&m);
}

static void test_line_attribution(void **state)
{
    (void)state;
    viz_model m;
    small_model(&m);
    /* long_scoreboard [1, 5000) waits for the issue at 5000 (line 2), the barrier [5001, 5100)
     * for the one at 5100 (line 3); selected cycles are not stalls */
    assert_int_equal(m.line_stall[2 * VIZ_NREASON + STALL_LONG_SCOREBOARD], 4999);
    assert_int_equal(m.line_stall[3 * VIZ_NREASON + STALL_BARRIER], 99);
    assert_int_equal(m.line_stall[1 * VIZ_NREASON + STALL_LONG_SCOREBOARD], 0);
    assert_int_equal(m.line_issues[1], 1);
    assert_int_equal(m.line_issues[3], 1);
    assert_int_equal(m.kernel_reason[STALL_SELECTED], 1 + 1 + 4900);
    assert_int_equal(m.sm_reason[1 * VIZ_NREASON + STALL_BARRIER], 99);
    assert_int_equal(m.nlines, 3);
    assert_string_equal(m.lines[2], "bar.sync");
    viz_model_free(&m);
}

static void test_waves_and_lanes(void **state)
{
    (void)state;
    viz_model m;
    diag_t d;
    assert_int_equal(viz_model_init(&m, 4, 2, 4, 8, 1000, &d), WL_OK);
    /* 10 blocks, 2 at once per SM: 8 fit at once, so 2 waves and a tail of 2 */
    for (uint32_t b = 0; b < 10; b++) {
        uint32_t wave = b / 8, sm = b % 4, lane = (b / 4) % 2;
        viz_block blk = {b, sm, 0, 0, wave * 1000 + lane * 10, wave * 1000 + lane * 10 + 900};
        assert_int_equal(viz_model_add_block(&m, &blk, &d), WL_OK);
    }
    assert_int_equal(viz_model_finish(&m, 0, &d), WL_OK);
    assert_int_equal(m.lanes_max, 2);
    assert_int_equal(m.waves, 2);
    assert_int_equal(m.tail_blocks, 2);
    assert_int_equal(m.sm_gpc[0], 0);
    assert_int_equal(m.sm_gpc[3], 1);
    for (size_t i = 0; i < m.nblocks; i++) {
        uint32_t want_lane = m.blocks[i].t0 % 1000 ? 1 : 0;
        if (m.blocks[i].lane != want_lane)
            fail_msg("block %u: lane %u, want %u", m.blocks[i].id, m.blocks[i].lane, want_lane);
    }
    viz_model_free(&m);
}

static void test_bad_records(void **state)
{
    (void)state;
    viz_model m;
    diag_t d;
    assert_int_equal(viz_model_init(&m, 0, 1, 4, 8, 1000, &d), WL_EUSAGE);
    assert_int_equal(viz_model_init(&m, 2, 1, 4, 8, 1000, &d), WL_OK);
    viz_iv bad_sm = {2, 0, 0, 0, 1}, bad_reason = {0, 0, VIZ_NREASON, 0, 1}, back = {0, 0, 0, 5, 4};
    assert_int_equal(viz_model_add_interval(&m, &bad_sm, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "SM 2"));
    assert_int_equal(viz_model_add_interval(&m, &bad_reason, &d), WL_EUSAGE);
    assert_int_equal(viz_model_add_interval(&m, &back, &d), WL_EUSAGE);
    viz_issue lanes = {0, 0, 1, 33, 0};
    assert_int_equal(viz_model_add_issue(&m, &lanes, &d), WL_EUSAGE);
    viz_model_free(&m);
}

/* The CUDA file named by `.file 1` is found under the repository root; a missing one is not
 * an error. */
static void test_cuda_source(void **state)
{
    (void)state;
    viz_model m;
    diag_t d;
    assert_int_equal(viz_model_init(&m, 1, 1, 4, 8, 1000, &d), WL_OK);
    assert_int_equal(viz_model_set_source(&m, "\t.loc 1 12 5\n\tret;\n\t.file\t1 "
                                              "\"gpu/kernels/latency.cu\"\n",
                                          &d),
                     WL_OK);
    viz_model_load_cuda(&m, tu_path("."));
    assert_string_equal(m.cu_name, "latency.cu");
    assert_true(m.ncu_lines > 12);
    if (!strstr(m.cu_lines[11], "out[i] = in[i]"))
        fail_msg("latency.cu line 12: '%s'", m.cu_lines[11]);
    viz_model_free(&m);
    assert_int_equal(viz_model_init(&m, 1, 1, 4, 8, 1000, &d), WL_OK);
    assert_int_equal(viz_model_set_source(&m, ".file 1 \"no/such.cu\"\n", &d), WL_OK);
    viz_model_load_cuda(&m, tu_path("."));
    assert_null(m.cu_lines);
    assert_int_equal(m.ncu_lines, 0);
    viz_model_free(&m);
}

/* Writes a small trace with F's writer; returns its path. */
static const char *write_trace(const char *name, uint32_t n_reasons)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name);
    const char *names[STALL_COUNT];
    for (int i = 0; i < STALL_COUNT; i++)
        names[i] = stall_name(i);
    uint32_t gpc[2] = {0, 1};
    trace_header h = {"k", "h200", "k.ptx", "a\nb\n",  2,          2,         gpc,
                      4,   8,      1500,    {2, 1, 1}, {64, 1, 1}, n_reasons, names};
    trace_writer *w;
    diag_t d;
    assert_int_equal(trace_writer_open(path, &h, &w, &d), WL_OK);
    trace_interval iv = {1, 3, STALL_LONG_SCOREBOARD, 10, 400};
    trace_write_interval(w, &iv);
    trace_issue is = {1, 3, 400, 2, 0xffu};
    trace_write_issue(w, &is);
    trace_block b = {1, 1, 0, 500};
    trace_write_block(w, &b);
    trace_warp wr = {1, 3, 1, 0, 0, 500};
    trace_write_warp(w, &wr);
    assert_int_equal(trace_writer_close(w, 500, &d), WL_OK);
    return path;
}

static void test_from_trace(void **state)
{
    (void)state;
    viz_model m;
    diag_t d;
    const char *p = write_trace("t.wlt", STALL_COUNT);
    if (viz_model_from_trace(&m, p, &d) != WL_OK)
        fail_msg("reading %s: %s", p, d.msg);
    assert_string_equal(m.kernel, "k");
    assert_string_equal(m.arch, "h200");
    assert_int_equal(m.sm_count, 2);
    assert_int_equal(m.clock_mhz, 1500);
    assert_int_equal(m.total_cycles, 500);
    assert_int_equal(m.nivs, 1);
    assert_int_equal(m.issues[0].lanes, 8); /* popcount of 0xff */
    assert_int_equal(m.nlines, 2);
    assert_int_equal(m.line_stall[2 * VIZ_NREASON + STALL_LONG_SCOREBOARD], 390);
    viz_model_free(&m);
}

static void test_corrupt_trace(void **state)
{
    (void)state;
    const char *p = write_trace("cut.wlt", STALL_COUNT);
    size_t len;
    char *buf = tu_read_file(p, &len);
    assert_non_null(buf);
    for (size_t cut = 0; cut < len; cut += len / 7 + 1) { /* truncated anywhere: an error */
        FILE *f = fopen(p, "wb");
        assert_non_null(f);
        fwrite(buf, 1, cut, f);
        fclose(f);
        viz_model m;
        diag_t d;
        diag_clear(&d);
        if (viz_model_from_trace(&m, p, &d) != WL_EUSAGE)
            fail_msg("a trace cut at %zu of %zu bytes was accepted", cut, len);
        if (!d.msg[0])
            fail_msg("no message for a trace cut at %zu", cut);
    }
    free(buf);
}

static void test_measured(void **state)
{
    (void)state;
    viz_measured *mm;
    diag_t d;
    if (viz_measured_load(tu_path("tests/data/viz/measured_small.json"), &mm, &d) != WL_OK)
        fail_msg("%s", d.msg);
    assert_string_equal(mm->name, "viz_small");
    assert_int_equal(mm->nblocks, 12);
    assert_int_equal(mm->sm_count, 4);
    assert_int_equal(mm->lanes_max, 2);
    assert_true(mm->time_us > 2.49 && mm->time_us < 2.51);
    assert_int_equal(mm->blocks[0].t0, 0); /* relative to the first block */
    assert_int_equal(mm->nwarps, 24);
    assert_int_equal(mm->hw_slots, 4); /* %warpid 0..3 */
    assert_true(mm->has_stalls);
    /* 3 / 6 long_scoreboard, tex_throttle (0.5 / 6) folded into misc */
    assert_true(mm->stalls[STALL_LONG_SCOREBOARD] > 0.499 &&
                mm->stalls[STALL_LONG_SCOREBOARD] < 0.501);
    assert_true(mm->stalls[STALL_MISC] > 0.083 && mm->stalls[STALL_MISC] < 0.084);
    viz_measured_free(mm);

    if (viz_measured_load(tu_path("tests/data/viz/measured_warps_only.json"), &mm, &d) != WL_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(mm->nblocks, 12); /* 24 warps folded into their 12 blocks */
    assert_false(mm->has_stalls);
    viz_measured_free(mm);

    assert_int_equal(viz_measured_load(tu_path("tests/data/viz/measured_bad.json"), &mm, &d),
                     WL_EUSAGE);
    assert_int_equal(d.line, 3);
    assert_null(mm);
    assert_int_equal(viz_measured_load(tu_path("tests/data/viz/measured_empty.json"), &mm, &d),
                     WL_EUSAGE);
    assert_non_null(strstr(d.msg, "median_us"));
    assert_int_equal(viz_measured_load("/nonexistent/x.json", &mm, &d), WL_EUSAGE);
}

/* Mutated measured files (bytes flipped, truncated): loaded or rejected, never a crash (run
 * under ASan/UBSan too); a rejection always has a message. */
static void test_measured_mutations(void **state)
{
    (void)state;
    size_t len;
    char *orig = tu_read_file(tu_path("tests/data/viz/measured_small.json"), &len);
    assert_non_null(orig);
    char path[4200];
    snprintf(path, sizeof path, "%s/mutant.json", tu_tmpdir());
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int ok = 0, rejected = 0;
    for (int round = 0; round < 300; round++) {
        char *buf = malloc(len);
        assert_non_null(buf);
        memcpy(buf, orig, len);
        size_t n = len;
        for (int k = 0; k < 1 + round % 4; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t at = (size_t)(x % len);
            const char pool[] = "0123456789-.e,:{}[]\"x ";
            buf[at] = pool[(x >> 32) % (sizeof pool - 1)];
        }
        if (round % 5 == 0)
            n = (size_t)(x % len);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(buf, 1, n, f);
        fclose(f);
        free(buf);
        viz_measured *mm = NULL;
        diag_t d;
        diag_clear(&d);
        if (viz_measured_load(path, &mm, &d) == WL_OK) {
            assert_non_null(mm);
            for (size_t i = 0; i < mm->nblocks; i++)
                if (mm->blocks[i].t1 < mm->blocks[i].t0)
                    fail_msg("round %d: block %zu ends before it starts", round, i);
            viz_measured_free(mm);
            ok++;
        } else {
            assert_null(mm);
            if (!d.msg[0])
                fail_msg("round %d: rejected without a message", round);
            rejected++;
        }
    }
    free(orig);
    if (!ok || !rejected)
        fail_msg("mutations: %d loaded, %d rejected; want some of each", ok, rejected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lod_dominant),    cmocka_unit_test(test_lod_level_choice),
        cmocka_unit_test(test_lookups),         cmocka_unit_test(test_line_attribution),
        cmocka_unit_test(test_waves_and_lanes), cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_from_trace),      cmocka_unit_test(test_corrupt_trace),
        cmocka_unit_test(test_measured),
        cmocka_unit_test(test_measured_mutations),
        cmocka_unit_test(test_cuda_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
