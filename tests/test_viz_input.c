/* viz_input: the viewer's state machine driven by synthetic events, no window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "stall.h"
#include "viz_input.h"

#define EXTENT 100000.0

static viz_state fresh(void)
{
    viz_state s;
    viz_state_init(&s, EXTENT, 132, 64, 4, 1366, 768);
    return s;
}

static int send(viz_state *s, viz_ev e)
{
    return viz_input_handle(s, &e);
}

static int key(viz_state *s, int k, int shift)
{
    return send(s, (viz_ev){.type = VIZ_EV_KEY, .key = k, .shift = shift});
}

#define assert_near(a, b, tol)                                                                     \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (fabs(a_ - b_) > (tol))                                                                 \
            fail_msg("%s = %.6g, want %.6g (+- %g)", #a, a_, b_, (double)(tol));                   \
    } while (0)

static void test_starts_fitted(void **state)
{
    (void)state;
    viz_state s = fresh();
    assert_int_equal(s.view, VIZ_VIEW_GPU);
    assert_near(s.t0, 0, 0);
    assert_near(s.cpp * s.lay.plot.w, EXTENT, 1e-6);
    assert_int_equal(s.cursor, -1);
    /* the layout fits the window: plot inside, legend on the right */
    assert_true(s.lay.plot.x + s.lay.plot.w <= s.lay.legend.x);
    assert_true(s.lay.plot.y + s.lay.plot.h <= s.lay.status.y);
}

static void test_wheel_zoom_keeps_point_under_mouse(void **state)
{
    (void)state;
    viz_state s = fresh();
    int x = s.lay.plot.x + s.lay.plot.w / 3, y = s.lay.plot.y + 10;
    double before = viz_input_cycle_at(&s, x), cpp = s.cpp;
    assert_int_equal(send(&s, (viz_ev){.type = VIZ_EV_WHEEL, .dy = 2, .x = x, .y = y}), 1);
    assert_near(s.cpp, cpp / (1.25 * 1.25), 1e-9);
    assert_near(viz_input_cycle_at(&s, x), before, 1e-6);
    send(&s, (viz_ev){.type = VIZ_EV_WHEEL, .dy = -2, .x = x, .y = y});
    assert_near(s.cpp, cpp, 1e-9);
}

static void test_zoom_limits(void **state)
{
    (void)state;
    viz_state s = fresh();
    for (int i = 0; i < 200; i++)
        key(&s, '+', 0);
    assert_near(s.cpp, 1.0 / 48, 1e-12); /* at most 48 px per cycle */
    for (int i = 0; i < 200; i++)
        key(&s, '-', 0);
    assert_near(s.cpp * s.lay.plot.w, EXTENT * 1.5, 1e-6);
    assert_near(s.t0, 0, 0);
}

static void test_pan_keys_and_clamp(void **state)
{
    (void)state;
    viz_state s = fresh();
    key(&s, '+', 0);
    key(&s, '+', 0); /* span = extent / 2.25 */
    double span = s.cpp * s.lay.plot.w, t0 = s.t0;
    key(&s, VIZ_K_RIGHT, 0);
    assert_near(s.t0, t0 + span * 0.1, 1e-6);
    key(&s, VIZ_K_RIGHT, 1);
    assert_near(s.t0, t0 + span * 0.6, 1e-6);
    for (int i = 0; i < 50; i++)
        key(&s, VIZ_K_RIGHT, 1);
    assert_near(s.t0, EXTENT - span, 1e-6); /* never past the end */
    for (int i = 0; i < 50; i++)
        key(&s, VIZ_K_LEFT, 1);
    assert_near(s.t0, 0, 0);
    key(&s, VIZ_K_END, 0);
    assert_near(s.t0, EXTENT - span, 1e-6);
    key(&s, 'f', 0);
    assert_near(s.t0, 0, 0);
    assert_near(s.cpp * s.lay.plot.w, EXTENT, 1e-6);
}

static void test_drag_pans_click_sets_cursor(void **state)
{
    (void)state;
    viz_state s = fresh();
    for (int i = 0; i < 4; i++)
        key(&s, '+', 0);
    key(&s, VIZ_K_RIGHT, 1);
    double t0 = s.t0;
    int x = s.lay.plot.x + 400, y = s.lay.plot.y + 50;
    send(&s, (viz_ev){.type = VIZ_EV_DOWN, .x = x, .y = y});
    send(&s, (viz_ev){.type = VIZ_EV_MOTION, .x = x - 100, .y = y});
    assert_near(s.t0, t0 + 100 * s.cpp, 1e-6); /* dragging left shows later cycles */
    send(&s, (viz_ev){.type = VIZ_EV_UP, .x = x - 100, .y = y});
    assert_int_equal(s.cursor, -1); /* a drag is not a click */
    send(&s, (viz_ev){.type = VIZ_EV_DOWN, .x = x, .y = y});
    send(&s, (viz_ev){.type = VIZ_EV_UP, .x = x + 1, .y = y});
    assert_int_equal(s.cursor, (int64_t)viz_input_cycle_at(&s, x + 1));
}

static void test_step_and_follow(void **state)
{
    (void)state;
    viz_state s = fresh();
    key(&s, '.', 0); /* first step starts at the left edge */
    assert_int_equal(s.cursor, 1);
    key(&s, '.', 0);
    key(&s, '.', 0);
    assert_int_equal(s.cursor, 3);
    key(&s, ',', 0);
    assert_int_equal(s.cursor, 2);
    key(&s, '.', 1); /* Shift: 100 */
    assert_int_equal(s.cursor, 102);
    for (int i = 0; i < 5; i++)
        key(&s, ',', 1);
    assert_int_equal(s.cursor, 0); /* not below 0 */
    /* zoomed in, stepping past the right edge pans the view to keep the cursor visible */
    for (int i = 0; i < 30; i++)
        key(&s, '+', 0);
    double span = s.cpp * s.lay.plot.w;
    for (int i = 0; i < (int)span + 5; i++)
        key(&s, '.', 0);
    assert_true(s.cursor >= s.t0 && s.cursor < s.t0 + span);
}

static void test_play_ticks(void **state)
{
    (void)state;
    viz_state s = fresh();
    assert_int_equal(send(&s, (viz_ev){.type = VIZ_EV_TICK, .dt = 0.1}), 0); /* paused */
    key(&s, ' ', 0);
    assert_true(s.playing);
    assert_int_equal(s.cursor, 0);
    send(&s, (viz_ev){.type = VIZ_EV_TICK, .dt = 1.0});
    /* one second crosses an eighth of the visible range */
    assert_int_equal(s.cursor, (int64_t)(EXTENT / 8));
    for (int i = 0; i < 20; i++)
        send(&s, (viz_ev){.type = VIZ_EV_TICK, .dt = 1.0});
    assert_int_equal(s.cursor, (int64_t)EXTENT - 1);
    assert_false(s.playing); /* stops at the end */
}

static void test_views_toolbar_help(void **state)
{
    (void)state;
    viz_state s = fresh();
    key(&s, '2', 0);
    assert_int_equal(s.view, VIZ_VIEW_SM);
    key(&s, '\t', 0);
    assert_int_equal(s.view, VIZ_VIEW_BREAKDOWN);
    key(&s, '\t', 1);
    assert_int_equal(s.view, VIZ_VIEW_SM);
    int bx = s.lay.pad + 5 * s.lay.button_w + 3, by = s.lay.toolbar.y + s.lay.toolbar.h / 2;
    assert_int_equal(viz_input_button_at(&s, bx, by), VIZ_VIEW_SOURCE);
    send(&s, (viz_ev){.type = VIZ_EV_DOWN, .x = bx, .y = by});
    assert_int_equal(s.view, VIZ_VIEW_SOURCE);
    key(&s, VIZ_K_F1, 0);
    assert_true(s.help);
    key(&s, VIZ_K_ESC, 0);
    assert_false(s.help);
    key(&s, 'p', 0);
    assert_true(s.per_warp);
    key(&s, 'p', 0);
    assert_false(s.per_warp);
    key(&s, 'q', 0);
    assert_true(s.quit);
    assert_int_equal(viz_view_from_name("measured"), VIZ_VIEW_MEASURED);
    assert_int_equal(viz_view_from_name("nope"), -1);
}

static void test_filters_and_sm(void **state)
{
    (void)state;
    viz_state s = fresh();
    key(&s, '[', 0);
    assert_int_equal(s.sm, 131); /* wraps */
    key(&s, ']', 0);
    key(&s, ']', 0);
    assert_int_equal(s.sm, 1);
    key(&s, 's', 0);
    assert_int_equal(s.sched_filter, 0);
    for (int i = 0; i < 4; i++)
        key(&s, 's', 0);
    assert_int_equal(s.sched_filter, -1); /* 0, 1, 2, 3, then all again */
    key(&s, 'r', 1);
    assert_int_equal(s.reason_filter, STALL_COUNT - 1);
    key(&s, 'w', 0);
    assert_int_equal(s.warp_filter, 0);
    key(&s, VIZ_K_ESC, 0);
    assert_int_equal(s.reason_filter, -1);
    assert_int_equal(s.warp_filter, -1);
}

static void test_resize_keeps_range(void **state)
{
    (void)state;
    viz_state s = fresh();
    for (int i = 0; i < 3; i++)
        key(&s, '+', 0);
    key(&s, VIZ_K_RIGHT, 1);
    double t0 = s.t0, span = s.cpp * s.lay.plot.w;
    send(&s, (viz_ev){.type = VIZ_EV_RESIZE, .w = 3840, .h = 2160});
    assert_int_equal(s.win_w, 3840);
    assert_true(s.lay.font_px >= 30); /* fonts scale up on a 4K screen */
    assert_near(s.t0, t0, 1e-6);
    assert_near(s.cpp * s.lay.plot.w, span, 1e-6);
    assert_int_equal(send(&s, (viz_ev){.type = VIZ_EV_RESIZE, .w = 0, .h = 10}), 0);
}

static void test_source_scroll(void **state)
{
    (void)state;
    viz_state s = fresh();
    s.view = VIZ_VIEW_SOURCE;
    s.src_lines = 50;
    key(&s, VIZ_K_PAGEDOWN, 0);
    assert_int_equal(s.src_scroll, 30);
    key(&s, VIZ_K_PAGEDOWN, 0);
    assert_int_equal(s.src_scroll, 49);
    send(&s, (viz_ev){.type = VIZ_EV_WHEEL, .dy = 2});
    assert_int_equal(s.src_scroll, 43);
    key(&s, VIZ_K_UP, 1);
    key(&s, VIZ_K_UP, 1);
    key(&s, VIZ_K_UP, 1);
    key(&s, VIZ_K_UP, 1);
    key(&s, VIZ_K_UP, 1);
    assert_int_equal(s.src_scroll, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_starts_fitted),
        cmocka_unit_test(test_wheel_zoom_keeps_point_under_mouse),
        cmocka_unit_test(test_zoom_limits),
        cmocka_unit_test(test_pan_keys_and_clamp),
        cmocka_unit_test(test_drag_pans_click_sets_cursor),
        cmocka_unit_test(test_step_and_follow),
        cmocka_unit_test(test_play_ticks),
        cmocka_unit_test(test_views_toolbar_help),
        cmocka_unit_test(test_filters_and_sm),
        cmocka_unit_test(test_resize_keeps_range),
        cmocka_unit_test(test_source_scroll),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
