/* viz_input: zoom, pan, step, play, select, filter (see viz_input.h). */
#include "viz_input.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stall.h"

static const char *const view_names[VIZ_VIEW_COUNT] = {"gpu",      "sm",        "breakdown",
                                                       "measured", "occupancy", "source"};

const char *viz_view_name(int view)
{
    return view >= 0 && view < VIZ_VIEW_COUNT ? view_names[view] : "?";
}

int viz_view_from_name(const char *name)
{
    for (int i = 0; name && i < VIZ_VIEW_COUNT; i++)
        if (!strcmp(name, view_names[i]))
            return i;
    return -1;
}

viz_layout viz_layout_compute(int w, int h, double dpi)
{
    viz_layout L;
    /* 1 at 1366x768; grows with the smaller of the two ratios so 4K text is readable */
    double sw = w / 1366.0, sh = h / 768.0, sc = (sw < sh ? sw : sh) * (dpi > 0 ? dpi : 1);
    if (sc < 0.75)
        sc = 0.75;
    if (sc > 4)
        sc = 4;
    L.scale = sc;
    L.font_px = (int)lround(13 * sc);
    L.pad = (int)lround(6 * sc);
    int bar = L.font_px + 3 * L.pad;
    L.toolbar = (viz_rect){0, 0, w, bar};
    L.status = (viz_rect){0, h - bar, w, bar};
    int legend_w = (int)lround(190 * sc);
    int label_w = (int)lround(70 * sc);
    int axis_h = L.font_px + 2 * L.pad;
    L.legend = (viz_rect){w - legend_w, bar, legend_w, h - 2 * bar};
    L.plot = (viz_rect){label_w, bar + L.pad + axis_h, w - legend_w - label_w - L.pad,
                        h - 2 * bar - 2 * L.pad - axis_h};
    if (L.plot.w < 16)
        L.plot.w = 16;
    if (L.plot.h < 16)
        L.plot.h = 16;
    L.button_w = (int)lround(118 * sc);
    return L;
}

static double min_cpp(void)
{
    return 1.0 / 48; /* zoomed in: one cycle 48 px wide */
}

static double max_cpp(const viz_state *s)
{
    return s->extent / (s->lay.plot.w > 0 ? s->lay.plot.w : 1) * 1.5;
}

/* Keeps the view inside [0, extent] as far as its width allows. */
static void clamp_view(viz_state *s)
{
    if (s->cpp < min_cpp())
        s->cpp = min_cpp();
    if (s->cpp > max_cpp(s))
        s->cpp = max_cpp(s);
    double span = s->cpp * s->lay.plot.w;
    if (s->t0 > s->extent - span)
        s->t0 = s->extent - span;
    if (s->t0 < 0)
        s->t0 = 0;
}

void viz_input_fit(viz_state *s)
{
    s->t0 = 0;
    s->cpp = s->extent / (s->lay.plot.w > 0 ? s->lay.plot.w : 1);
    clamp_view(s);
}

void viz_state_init(viz_state *s, double extent_cycles, uint32_t sm_count, uint32_t slots,
                    uint32_t scheds, int w, int h)
{
    memset(s, 0, sizeof *s);
    s->dpi_scale = 1;
    s->win_w = w;
    s->win_h = h;
    s->lay = viz_layout_compute(w, h, 1);
    s->extent = extent_cycles > 1 ? extent_cycles : 1;
    s->sm_count = sm_count ? sm_count : 1;
    s->slots = slots ? slots : 1;
    s->scheds = scheds ? scheds : 1;
    s->cursor = -1;
    s->sched_filter = s->warp_filter = s->reason_filter = -1;
    s->hover_slot = -1;
    viz_input_fit(s);
}

double viz_input_cycle_at(const viz_state *s, int x)
{
    return s->t0 + (x - s->lay.plot.x) * s->cpp;
}

double viz_input_x_of(const viz_state *s, double cycle)
{
    return s->lay.plot.x + (cycle - s->t0) / s->cpp;
}

int viz_input_button_at(const viz_state *s, int x, int y)
{
    const viz_layout *L = &s->lay;
    if (y < L->toolbar.y || y >= L->toolbar.y + L->toolbar.h || x < L->pad)
        return -1;
    int i = (x - L->pad) / L->button_w;
    return i < VIZ_VIEW_COUNT ? i : -1;
}

/* Zoom by factor f (< 1 zooms in) keeping the cycle under window x where it is. */
static void zoom_at(viz_state *s, double f, int x)
{
    double c = viz_input_cycle_at(s, x);
    s->cpp *= f;
    clamp_view(s);
    s->t0 = c - (x - s->lay.plot.x) * s->cpp;
    clamp_view(s);
}

/* Keeps the cursor inside the visible range, panning by whole views. */
static void follow_cursor(viz_state *s)
{
    double span = s->cpp * s->lay.plot.w;
    if (s->cursor < s->t0 || s->cursor >= s->t0 + span) {
        s->t0 = (double)s->cursor - span * 0.1;
        clamp_view(s);
    }
}

static void step(viz_state *s, int64_t by)
{
    int64_t c = (s->cursor < 0 ? (int64_t)s->t0 : s->cursor) + by, end = (int64_t)s->extent - 1;
    s->cursor = c < 0 ? 0 : c > end ? end : c;
    follow_cursor(s);
}

static int cycle_filter(int v, int n, int dir)
{
    /* -1, 0, 1, ..., n-1, -1 ... */
    v += dir;
    if (v >= n)
        v = -1;
    if (v < -1)
        v = n - 1;
    return v;
}

static void clamp_src(viz_state *s)
{
    if (s->src_scroll > s->src_lines - 1)
        s->src_scroll = s->src_lines - 1;
    if (s->src_scroll < 0)
        s->src_scroll = 0;
}

static int handle_key(viz_state *s, int key, int shift)
{
    const viz_layout *L = &s->lay;
    double span = s->cpp * L->plot.w;
    int mid = L->plot.x + L->plot.w / 2;
    if (key >= '1' && key < '1' + VIZ_VIEW_COUNT) {
        s->view = (viz_view)(key - '1');
        return 1;
    }
    switch (key) {
    case '\t':
        s->view = (viz_view)((s->view + (shift ? VIZ_VIEW_COUNT - 1 : 1)) % VIZ_VIEW_COUNT);
        return 1;
    case '+':
    case '=':
        zoom_at(s, 1 / 1.5, s->cursor >= 0 ? (int)viz_input_x_of(s, (double)s->cursor) : mid);
        return 1;
    case '-':
    case '_': zoom_at(s, 1.5, mid); return 1;
    case VIZ_K_LEFT:
        s->t0 -= span * (shift ? 0.5 : 0.1);
        clamp_view(s);
        return 1;
    case VIZ_K_RIGHT:
        s->t0 += span * (shift ? 0.5 : 0.1);
        clamp_view(s);
        return 1;
    case 'f':
    case VIZ_K_HOME: viz_input_fit(s); return 1;
    case VIZ_K_END:
        s->t0 = s->extent;
        clamp_view(s);
        return 1;
    case '.':
    case '>': step(s, shift || key == '>' ? 100 : 1); return 1;
    case ',':
    case '<': step(s, shift || key == '<' ? -100 : -1); return 1;
    case ' ':
        s->playing = !s->playing;
        if (s->playing && s->cursor < 0)
            s->cursor = (int64_t)s->t0;
        return 1;
    case '[': s->sm = (s->sm + (int)s->sm_count - 1) % (int)s->sm_count; return 1;
    case ']': s->sm = (s->sm + 1) % (int)s->sm_count; return 1;
    case 's':
    case 'S':
        s->sched_filter =
            cycle_filter(s->sched_filter, (int)s->scheds, shift || key == 'S' ? -1 : 1);
        return 1;
    case 'w':
    case 'W':
        s->warp_filter = cycle_filter(s->warp_filter, (int)s->slots, shift || key == 'W' ? -1 : 1);
        return 1;
    case 'r':
    case 'R':
        s->reason_filter =
            cycle_filter(s->reason_filter, STALL_COUNT, shift || key == 'R' ? -1 : 1);
        return 1;
    case VIZ_K_UP: s->src_scroll -= shift ? 10 : 1; break;
    case VIZ_K_DOWN: s->src_scroll += shift ? 10 : 1; break;
    case VIZ_K_PAGEUP: s->src_scroll -= 30; break;
    case VIZ_K_PAGEDOWN: s->src_scroll += 30; break;
    case VIZ_K_F1:
    case '?':
    case 'h': s->help = !s->help; return 1;
    case VIZ_K_ESC:
        if (s->help)
            s->help = 0;
        else
            s->sched_filter = s->warp_filter = s->reason_filter = -1;
        return 1;
    case 'p': s->per_warp = !s->per_warp; return 1;
    case 'q': s->quit = 1; return 1;
    default: return 0;
    }
    clamp_src(s);
    return 1;
}

static int in_plot(const viz_state *s, int x, int y)
{
    const viz_rect *p = &s->lay.plot;
    return x >= p->x && x < p->x + p->w && y >= p->y && y < p->y + p->h;
}

int viz_input_handle(viz_state *s, const viz_ev *e)
{
    switch (e->type) {
    case VIZ_EV_KEY: return handle_key(s, e->key, e->shift);
    case VIZ_EV_WHEEL:
        if (s->view == VIZ_VIEW_SOURCE) {
            s->src_scroll -= 3 * e->dy;
            clamp_src(s);
            return 1;
        }
        if (!e->dy)
            return 0;
        zoom_at(s, e->dy > 0 ? pow(1 / 1.25, e->dy) : pow(1.25, -e->dy),
                in_plot(s, e->x, e->y) ? e->x : s->lay.plot.x + s->lay.plot.w / 2);
        return 1;
    case VIZ_EV_DOWN: {
        int b = viz_input_button_at(s, e->x, e->y);
        if (b >= 0) {
            s->view = (viz_view)b;
            return 1;
        }
        if (in_plot(s, e->x, e->y)) {
            s->dragging = 1;
            s->drag_x = e->x;
            s->drag_t0 = s->t0;
        }
        return 0;
    }
    case VIZ_EV_UP:
        if (s->dragging && abs(e->x - s->drag_x) < 3 && in_plot(s, e->x, e->y)) {
            /* a click, not a drag: put the cursor there */
            double c = viz_input_cycle_at(s, e->x);
            s->cursor = c < 0 ? 0 : (int64_t)c;
        }
        s->dragging = 0;
        return 1;
    case VIZ_EV_MOTION:
        s->mouse_x = e->x;
        s->mouse_y = e->y;
        if (s->dragging) {
            s->t0 = s->drag_t0 - (e->x - s->drag_x) * s->cpp;
            clamp_view(s);
        }
        return 1;
    case VIZ_EV_RESIZE: {
        if (e->w < 1 || e->h < 1)
            return 0;
        double left = s->t0, span = s->cpp * s->lay.plot.w;
        s->win_w = e->w;
        s->win_h = e->h;
        s->lay = viz_layout_compute(e->w, e->h, s->dpi_scale);
        s->t0 = left; /* keep the same time range visible */
        s->cpp = span / s->lay.plot.w;
        clamp_view(s);
        return 1;
    }
    case VIZ_EV_TICK:
        if (!s->playing)
            return 0;
        /* playing crosses the visible range in about eight seconds, at least a cycle a tick */
        {
            double by = s->cpp * s->lay.plot.w / 8 * e->dt;
            step(s, by < 1 ? 1 : (int64_t)by);
            if (s->cursor >= (int64_t)s->extent - 1)
                s->playing = 0;
        }
        return 1;
    }
    return 0;
}
