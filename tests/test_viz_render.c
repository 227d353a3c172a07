/* viz_render, viz_png, viz_app: headless rendering checked by structure, not exact pixels --
 * image size, legend colours present, a known stalled interval drawn in its reason's colour at
 * its place, blocks in their wave colours, hover text -- and `warplab view` end to end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL_ttf.h>

#include "stall.h"
#include "testutil.h"
#include "trace.h"
#include "viz_measured.h"
#include "viz_png.h"
#include "viz_render.h"

/* 4 SMs in 2 GPCs, 8 warp slots, 4 schedulers, 1000 MHz. Ten blocks, two at once per SM
 * (waves: 8 + a tail of 2). SM 1 slot 2: selected [0, 2000), long_scoreboard [2000, 6000),
 * selected [6000, 10000); issues at 0 (line 1) and 6000 (line 2). */
static void fixture(viz_model *m, viz_ctx *c)
{
    diag_t d;
    assert_int_equal(viz_model_init(m, 4, 2, 4, 8, 1000, &d), WL_OK);
    snprintf(m->kernel, sizeof m->kernel, "fixture");
    snprintf(m->arch, sizeof m->arch, "h200");
    m->block[0] = 64;
    for (uint32_t b = 0; b < 10; b++) {
        uint32_t wave = b / 8, sm = b % 4, lane = (b / 4) % 2;
        viz_block blk = {b, sm, 0, 0, wave * 5000 + lane * 10, wave * 5000 + lane * 10 + 4900};
        assert_int_equal(viz_model_add_block(m, &blk, &d), WL_OK);
    }
    viz_iv ivs[] = {{1, 2, STALL_SELECTED, 0, 2000},
                    {1, 2, STALL_LONG_SCOREBOARD, 2000, 6000},
                    {1, 2, STALL_SELECTED, 6000, 10000}};
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(viz_model_add_interval(m, &ivs[i], &d), WL_OK);
    viz_issue is[] = {{1, 2, 1, 32, 0}, {1, 2, 2, 32, 6000}};
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(viz_model_add_issue(m, &is[i], &d), WL_OK);
    assert_int_equal(
        viz_model_set_source(m, "ld.global.f32 %f1, [%rd1];\nadd.f32 %f2, %f1, %f1;\n", &d), WL_OK);
    assert_int_equal(viz_model_finish(m, 10000, &d), WL_OK);
    memset(c, 0, sizeof *c);
    c->m = m;
    c->lang = "en";
    c->has_arch = arch_load(tu_path("sim/arch"), "h200", &c->arch, &d) == WL_OK;
    occ_input_defaults(&c->occ);
    c->occ.block_size = 64;
    c->occ.regs_per_thread = 32;
}

static viz_state state_for(const viz_model *m, viz_view v, int w, int h)
{
    viz_state s;
    viz_state_init(&s, (double)m->total_cycles, m->sm_count, m->slots, m->scheds, w, h);
    s.view = v;
    s.src_lines = (int)m->nlines;
    return s;
}

static SDL_Surface *draw(const viz_ctx *c, const viz_state *s)
{
    diag_t d;
    SDL_Surface *surf = viz_png_draw(c, s, &d);
    if (!surf)
        fail_msg("render failed: %s", d.msg);
    return surf;
}

static int same(viz_rgb a, viz_rgb b)
{
    return a.r == b.r && a.g == b.g && a.b == b.b;
}

#define assert_color(surf, x, y, want)                                                             \
    do {                                                                                           \
        viz_rgb got_ = viz_png_pixel(surf, x, y), want_ = (want);                                  \
        if (!same(got_, want_))                                                                    \
            fail_msg("pixel (%d, %d) is #%02x%02x%02x, want #%02x%02x%02x", (int)(x), (int)(y),    \
                     got_.r, got_.g, got_.b, want_.r, want_.g, want_.b);                           \
    } while (0)

static long count_color(const SDL_Surface *s, viz_rect r, viz_rgb c)
{
    long n = 0;
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++)
            n += same(viz_png_pixel(s, x, y), c);
    return n;
}

static void test_image_size_every_view(void **state)
{
    (void)state;
    viz_model m;
    viz_ctx c;
    fixture(&m, &c);
    int sizes[][2] = {{1366, 768}, {800, 600}, {3840, 2160}};
    for (int v = 0; v < VIZ_VIEW_COUNT; v++)
        for (size_t k = 0; k < 3; k++) {
            viz_state s = state_for(&m, (viz_view)v, sizes[k][0], sizes[k][1]);
            s.help = v == VIZ_VIEW_SOURCE; /* the help overlay too */
            SDL_Surface *surf = draw(&c, &s);
            if (surf->w != sizes[k][0] || surf->h != sizes[k][1])
                fail_msg("view %s: image %dx%d, want %dx%d", viz_view_name(v), surf->w, surf->h,
                         sizes[k][0], sizes[k][1]);
            /* the active toolbar button is drawn in the accent colour */
            viz_rect b = {s.lay.pad + v * s.lay.button_w, 0, s.lay.button_w, s.lay.toolbar.h};
            if (s.help) /* the overlay dims the window; its frame is in the accent colour */
                b = (viz_rect){0, 0, surf->w, surf->h};
            if (count_color(surf, b, viz_palette_ui(VIZ_C_ACCENT)) < 100)
                fail_msg("view %s at %dx%d: its toolbar button is not highlighted",
                         viz_view_name(v), sizes[k][0], sizes[k][1]);
            SDL_FreeSurface(surf);
        }
    viz_model_free(&m);
}

static void test_legend_has_every_reason(void **state)
{
    (void)state;
    viz_model m;
    viz_ctx c;
    fixture(&m, &c);
    viz_state s = state_for(&m, VIZ_VIEW_SM, 1366, 768);
    SDL_Surface *surf = draw(&c, &s);
    for (int r = 0; r < STALL_COUNT; r++) {
        long n = count_color(surf, s.lay.legend, viz_palette_reason(r));
        if (n < 20)
            fail_msg("legend: %ld pixels of %s's colour, want a swatch (>= 20)", n, stall_name(r));
    }
    SDL_FreeSurface(surf);
    viz_model_free(&m);
}

static void test_stalled_interval_in_place(void **state)
{
    (void)state;
    viz_model m;
    viz_ctx c;
    fixture(&m, &c);
    viz_state s = state_for(&m, VIZ_VIEW_SM, 1366, 768);
    s.sm = 1;
    int y, h;
    viz_render_sm_row(&c, &s, 2, &y, &h);
    assert_true(h > 2);
    SDL_Surface *surf = draw(&c, &s);
    int ym = y + h / 2;
    int x_ls = (int)viz_input_x_of(&s, 4000), x_sel = (int)viz_input_x_of(&s, 8000);
    assert_color(surf, x_ls, ym, viz_palette_reason(STALL_LONG_SCOREBOARD));
    assert_color(surf, x_sel, ym, viz_palette_reason(STALL_SELECTED));
    /* the interval's edges: just inside red, just outside green */
    assert_color(surf, (int)viz_input_x_of(&s, 2000) + 2, ym,
                 viz_palette_reason(STALL_LONG_SCOREBOARD));
    assert_color(surf, (int)viz_input_x_of(&s, 2000) - 2, ym, viz_palette_reason(STALL_SELECTED));
    /* the only red in the plot is this interval's: no other row has any */
    viz_rect above = {s.lay.plot.x, s.lay.plot.y, s.lay.plot.w, y - s.lay.plot.y};
    viz_rect below = {s.lay.plot.x, y + h, s.lay.plot.w, s.lay.plot.y + s.lay.plot.h - y - h};
    assert_int_equal(count_color(surf, above, viz_palette_reason(STALL_LONG_SCOREBOARD)), 0);
    assert_int_equal(count_color(surf, below, viz_palette_reason(STALL_LONG_SCOREBOARD)), 0);
    /* slot 3 never held a warp on SM 1: no row for it; on SM 0 (no warps at all) every slot
     * has one */
    int y3, h3;
    viz_render_sm_row(&c, &s, 3, &y3, &h3);
    assert_int_equal(h3, 0);
    s.sm = 0;
    viz_render_sm_row(&c, &s, 3, &y3, &h3);
    assert_true(h3 > 0);
    s.sm = 1;
    SDL_FreeSurface(surf);

    /* zoomed in past the LOD buckets: drawn from the intervals, same colour */
    s.t0 = 3990;
    s.cpp = 20.0 / s.lay.plot.w;
    surf = draw(&c, &s);
    assert_color(surf, (int)viz_input_x_of(&s, 4000), ym,
                 viz_palette_reason(STALL_LONG_SCOREBOARD));
    SDL_FreeSurface(surf);

    /* a reason filter greys the others out */
    viz_input_fit(&s);
    s.reason_filter = STALL_BARRIER;
    surf = draw(&c, &s);
    viz_rgb got = viz_png_pixel(surf, x_ls, ym);
    if (same(got, viz_palette_reason(STALL_LONG_SCOREBOARD)))
        fail_msg("with a barrier filter long_scoreboard is still drawn in red");
    SDL_FreeSurface(surf);
    viz_model_free(&m);
}

static void test_hover_names_interval(void **state)
{
    (void)state;
    viz_model m;
    viz_ctx c;
    fixture(&m, &c);
    viz_state s = state_for(&m, VIZ_VIEW_SM, 1366, 768);
    s.sm = 1;
    int y, h;
    viz_render_sm_row(&c, &s, 2, &y, &h);
    viz_hover hv;
    viz_render_hover(&c, &s, (int)viz_input_x_of(&s, 4000), y + h / 2, &hv);
    assert_true(hv.valid);
    assert_int_equal(hv.slot, 2);
    assert_int_equal(hv.reason, STALL_LONG_SCOREBOARD);
    assert_int_equal(hv.line, 2); /* waiting for the add on line 2 */
    if (!strstr(hv.text, "long_scoreboard") || !strstr(hv.text, "PTX 2: add.f32"))
        fail_msg("hover text: %s", hv.text);
    viz_render_hover(&c, &s, 2, 2, &hv); /* the toolbar: nothing */
    assert_false(hv.valid);
    viz_model_free(&m);
}

/* The source view highlights the line a warp hovered in the SM view waits on. */
static void test_source_highlights_hovered_warp(void **state)
{
    (void)state;
    viz_model m;
    viz_ctx c;
    fixture(&m, &c);
    viz_state s = state_for(&m, VIZ_VIEW_SOURCE, 1366, 768);
    s.sm = 1;
    viz_rgb hl = {0x1f, 0x4e, 0x5a};
    viz_rect all = {0, 0, 1366, 768};
    SDL_Surface *surf = draw(&c, &s);
    long before = count_color(surf, all, hl);
    SDL_FreeSurface(surf);
    s.hover_slot = 2;
    s.hover_cycle = 4000; /* in long_scoreboard, waiting for the add of line 2 */
    surf = draw(&c, &s);
    long after = count_color(surf, all, hl);
    SDL_FreeSurface(surf);
    if (before != 0 || after < 5000)
        fail_msg("highlight pixels: %ld without a hovered warp, %ld with (want 0, >= 5000)",
                 before, after);
    viz_model_free(&m);
}

static void test_gpu_view_waves(void **state)
{
    (void)state;
    viz_model m;
    viz_ctx c;
    fixture(&m, &c);
    viz_state s = state_for(&m, VIZ_VIEW_GPU, 1366, 768);
    SDL_Surface *surf = draw(&c, &s);
    int y0 = -1;
    for (int y = s.lay.plot.y; y < s.lay.plot.y + s.lay.plot.h && y0 < 0; y++)
        if (viz_render_gpu_sm_at(&c, &s, y) == 0)
            y0 = y;
    assert_true(y0 >= 0);
    /* SM 0, lane 0: block 0 (wave 1) in [0, 4900), block 8 (the tail) in [5000, 9900) */
    assert_color(surf, (int)viz_input_x_of(&s, 2500), y0 + 1, viz_palette_ui(VIZ_C_WAVE_A));
    assert_color(surf, (int)viz_input_x_of(&s, 7500), y0 + 1, viz_palette_ui(VIZ_C_TAIL));
    /* SM 2 has no tail block: idle panel there */
    int y2 = -1;
    for (int y = s.lay.plot.y; y < s.lay.plot.y + s.lay.plot.h && y2 < 0; y++)
        if (viz_render_gpu_sm_at(&c, &s, y) == 2)
            y2 = y;
    assert_color(surf, (int)viz_input_x_of(&s, 7500), y2 + 1, viz_palette_ui(VIZ_C_PANEL));
    SDL_FreeSurface(surf);
    viz_model_free(&m);
}

static void test_measured_beside_simulated(void **state)
{
    (void)state;
    viz_model m;
    viz_ctx c;
    diag_t d;
    fixture(&m, &c);
    viz_state s = state_for(&m, VIZ_VIEW_MEASURED, 1366, 768);
    SDL_Surface *surf = draw(&c, &s);
    long none = count_color(surf, s.lay.plot, viz_palette_ui(VIZ_C_MEASURED));
    SDL_FreeSurface(surf);
    assert_int_equal(none, 0);
    if (viz_measured_load(tu_path("tests/data/viz/measured_small.json"), &m.meas, &d))
        fail_msg("%s", d.msg);
    surf = draw(&c, &s);
    long with = count_color(surf, s.lay.plot, viz_palette_ui(VIZ_C_MEASURED));
    SDL_FreeSurface(surf);
    if (with < 1000)
        fail_msg("measured blocks: %ld pixels of their colour, want >= 1000", with);
    /* per warp (key p): the measured warps of SM 0 in the lower half, none in the upper */
    s.per_warp = 1;
    surf = draw(&c, &s);
    viz_rect top = {s.lay.plot.x, s.lay.plot.y, s.lay.plot.w, s.lay.plot.h / 2 - 20};
    viz_rect low = {s.lay.plot.x, s.lay.plot.y + s.lay.plot.h / 2 + 20, s.lay.plot.w,
                    s.lay.plot.h / 2 - 20};
    long up = count_color(surf, top, viz_palette_ui(VIZ_C_MEASURED));
    long down = count_color(surf, low, viz_palette_ui(VIZ_C_MEASURED));
    SDL_FreeSurface(surf);
    s.per_warp = 0;
    if (up != 0 || down < 1000)
        fail_msg("per-warp view: %ld measured pixels above, %ld below (want 0, >= 1000)", up,
                 down);
    /* hover names the block under the mouse in either panel */
    int found_sim = 0, found_gpu = 0;
    int hx = (int)viz_input_x_of(&s, 500);
    for (int y = s.lay.plot.y; y < s.lay.plot.y + s.lay.plot.h; y++) {
        viz_hover hv;
        viz_render_hover(&c, &s, hx, y, &hv);
        if (hv.block >= 0 && strstr(hv.text, "simulated: block"))
            found_sim++;
        if (hv.block >= 0 && strstr(hv.text, "Crafted GPU (test data): block"))
            found_gpu++;
    }
    if (!found_sim || !found_gpu)
        fail_msg("hover over the measured view: %d rows name a simulated block, %d a measured "
                 "one (want both > 0)",
                 found_sim, found_gpu);
    /* breakdown: the Nsight bar adds long_scoreboard red (half of the measured stalls) */
    s.view = VIZ_VIEW_BREAKDOWN;
    viz_measured *keep = m.meas;
    m.meas = NULL;
    surf = draw(&c, &s);
    long red0 = count_color(surf, s.lay.plot, viz_palette_reason(STALL_LONG_SCOREBOARD));
    SDL_FreeSurface(surf);
    m.meas = keep;
    surf = draw(&c, &s);
    long red1 = count_color(surf, s.lay.plot, viz_palette_reason(STALL_LONG_SCOREBOARD));
    SDL_FreeSurface(surf);
    if (red1 <= red0 + 1000)
        fail_msg("breakdown: %ld red pixels with Nsight's bar, %ld without", red1, red0);
    viz_model_free(&m);
}

/* ---- end to end through the warplab binary ---------------------------------------------- */

static const char *fixture_trace(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), name);
    const char *names[STALL_COUNT];
    for (int i = 0; i < STALL_COUNT; i++)
        names[i] = stall_name(i);
    trace_header h = {"k",         "h200", "k.ptx",   "ld.global.f32 %f1, [%rd1];\n",
                      2,           1,      NULL,      4,
                      8,           1980,   {2, 1, 1}, {64, 1, 1},
                      STALL_COUNT, names};
    trace_writer *w;
    diag_t d;
    assert_int_equal(trace_writer_open(path, &h, &w, &d), WL_OK);
    for (uint32_t sm = 0; sm < 2; sm++) {
        trace_interval iv = {sm, 0, STALL_LONG_SCOREBOARD, 0, 900};
        trace_write_interval(w, &iv);
        trace_block b = {sm, sm, 0, 1000};
        trace_write_block(w, &b);
    }
    assert_int_equal(trace_writer_close(w, 1000, &d), WL_OK);
    return path;
}

static unsigned be32(const unsigned char *p)
{
    return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}

static void test_cli_png(void **state)
{
    (void)state;
    tu_result r;
    const char *trace = fixture_trace("e2e.wlt");
    char out[4200];
    snprintf(out, sizeof out, "%s/sm.png", tu_tmpdir());
    int st = tu_warplab(&r, "view", trace, "--png", out, "--view", "sm", "--size", "640x480",
                        "--measured", tu_path("tests/data/viz/measured_small.json"), NULL);
    if (st != 0)
        fail_msg("exit %d: %s", st, r.err);
    tu_free(&r);
    size_t len;
    unsigned char *png = (unsigned char *)tu_read_file(out, &len);
    assert_non_null(png);
    assert_true(len > 33);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    assert_memory_equal(png + 12, "IHDR", 4);
    assert_int_equal(be32(png + 16), 640);
    assert_int_equal(be32(png + 20), 480);
    free(png);
    /* every viewer option at once, each view */
    const char *views[] = {"gpu", "sm", "breakdown", "measured", "occupancy", "source"};
    for (size_t i = 0; i < 6; i++) {
        st = tu_warplab(&r, "view", trace, "--png", out, "--view", views[i], "--sm", "1",
                        "--range", "100:800", "--cursor", "400", "--reason", "long_scoreboard",
                        "--sched", "0", "--regs", "40", "--smem", "4096", "--lang", "zh",
                        "--per-warp", "--show-help", "--measured",
                        tu_path("tests/data/viz/measured_small.json"), NULL);
        if (st != 0)
            fail_msg("view %s with every option: exit %d: %s", views[i], st, r.err);
        tu_free(&r);
    }
}

/* A bad input: exit 1 and exactly one line on stderr naming the problem. */
static void expect_error(const char *what, tu_result *r, int st, const char *needle)
{
    if (st != 1)
        fail_msg("%s: exit %d, want 1 (stderr: %s)", what, st, r->err);
    size_t n = strlen(r->err);
    if (!n || strchr(r->err, '\n') != r->err + n - 1)
        fail_msg("%s: want one line on stderr, got: %s", what, r->err);
    if (needle && !strstr(r->err, needle))
        fail_msg("%s: stderr lacks '%s': %s", what, needle, r->err);
    tu_free(r);
}

static void test_cli_errors(void **state)
{
    (void)state;
    tu_result r;
    const char *trace = fixture_trace("cut.wlt");
    size_t len;
    char *buf = tu_read_file(trace, &len);
    assert_non_null(buf);
    FILE *f = fopen(trace, "wb");
    assert_non_null(f);
    fwrite(buf, 1, len / 2, f); /* truncated */
    fclose(f);
    free(buf);
    char out[4200];
    snprintf(out, sizeof out, "%s/x.png", tu_tmpdir());
    expect_error("truncated trace", &r, tu_warplab(&r, "view", trace, "--png", out, NULL),
                 "cut.wlt");
    expect_error(
        "foreign file", &r,
        tu_warplab(&r, "view", tu_path("tests/data/viz/measured_small.json"), "--png", out, NULL),
        NULL);
    expect_error("missing file", &r, tu_warplab(&r, "view", "/nonexistent.wlt", NULL), NULL);
    const char *good = fixture_trace("good.wlt");
    expect_error("bad view", &r, tu_warplab(&r, "view", good, "--png", out, "--view", "x", NULL),
                 "unknown view");
    expect_error("bad size", &r, tu_warplab(&r, "view", good, "--png", out, "--size", "9x", NULL),
                 "--size");
    expect_error("bad measured", &r,
                 tu_warplab(&r, "view", good, "--png", out, "--measured",
                            tu_path("tests/data/viz/measured_bad.json"), NULL),
                 "measured_bad.json:3:");
    expect_error("no input", &r, tu_warplab(&r, "view", NULL), "missing");
    expect_error("unknown option", &r, tu_warplab(&r, "view", good, "--frobnicate", NULL),
                 "--frobnicate");
}

/* docs/viewer.md and its Chinese version list every reason with the colour the code uses. */
static void test_docs_colours_match(void **state)
{
    (void)state;
    const char *docs[] = {"docs/viewer.md", "docs/viewer.zh.md"};
    for (size_t k = 0; k < 2; k++) {
        size_t len;
        char *text = tu_read_file(tu_path(docs[k]), &len);
        if (!text)
            fail_msg("cannot read %s", docs[k]);
        for (int r = 0; r < STALL_COUNT; r++) {
            char key[64], hex[8];
            snprintf(key, sizeof key, "| `%s` | ", stall_name(r));
            viz_palette_hex(r, hex);
            const char *row = strstr(text, key);
            if (!row)
                fail_msg("%s: no table row for %s", docs[k], stall_name(r));
            const char *eol = strchr(row, '\n');
            const char *at = strstr(row + strlen(key), hex);
            if (!at || (eol && at > eol))
                fail_msg("%s: the row of %s does not give its colour %s", docs[k], stall_name(r),
                         hex);
        }
        free(text);
    }
}

/* The real window loop under SDL's offscreen driver, driven by queued keys and wheel steps
 * through every view, the filters, stepping, the help; 'q' quits with status 0. */
static void test_window_loop_scripted(void **state)
{
    (void)state;
    tu_result r;
    const char *trace = fixture_trace("win.wlt");
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    setenv("WARPLAB_VIEW_KEYS", "@1\r@1~~_23]s.,>.r 4?h56\tfw\x1bq", 1);
    /* SDL's video back end loads and unloads system libraries whose allocations LeakSanitizer
     * cannot attribute; leaks of our own code are caught by the --png tests above */
    setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    int st = tu_warplab(&r, "view", trace, "--measured",
                        tu_path("tests/data/viz/measured_small.json"), NULL);
    unsetenv("WARPLAB_VIEW_KEYS");
    unsetenv("ASAN_OPTIONS");
    if (st == 1 && strstr(r.err, "cannot open a window")) {
        tu_free(&r);
        skip(); /* no offscreen video driver in this SDL build */
    }
    if (st != 0)
        fail_msg("window loop: exit %d, stderr: %s", st, r.err);
    tu_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_size_every_view),
        cmocka_unit_test(test_legend_has_every_reason),
        cmocka_unit_test(test_stalled_interval_in_place),
        cmocka_unit_test(test_hover_names_interval),
        cmocka_unit_test(test_source_highlights_hovered_warp),
        cmocka_unit_test(test_gpu_view_waves),
        cmocka_unit_test(test_measured_beside_simulated),
        cmocka_unit_test(test_cli_png),
        cmocka_unit_test(test_cli_errors),
        cmocka_unit_test(test_window_loop_scripted),
        cmocka_unit_test(test_docs_colours_match),
    };
    /* fonts are opened per rendering; SDL_ttf must be initialised once */
    if (TTF_Init() < 0)
        return 1;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    TTF_Quit();
    return rc;
}
