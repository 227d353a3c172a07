/* viz_render_tl: the timelines. GPU view (SMs grouped by GPC x time, one bar per block, waves
 * and the tail), SM view (warp slots grouped by scheduler x cycles, coloured by warp state from
 * the LOD index) and measured vs simulated (per-block timelines of both on one time axis). */
#include "viz_render_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stall.h"

/* ---- GPU view geometry: SMs ordered by GPC, a small gap between GPCs ----------------------- */

typedef struct {
    double row_h, gap;
    int y0;
    uint16_t pos[4096];      /* row index of each SM */
    uint16_t gpc_rank[4096]; /* how many GPC gaps lie above the SM */
} gpu_geom;

/* Rows of sm_count SMs in [top, top + height); grouped by the model's GPCs when by_gpc. */
static void gpu_layout(const viz_model *m, uint32_t sm_count, int by_gpc, int top, int height,
                       gpu_geom *g)
{
    uint32_t n = sm_count < 4096 ? sm_count : 4096, gpcs = 0, k = 0;
    for (uint32_t gp = 0; gp < (by_gpc ? m->gpc_count : 1); gp++) {
        int used = 0;
        for (uint32_t sm = 0; sm < n; sm++)
            if (!by_gpc || m->sm_gpc[sm] == gp) {
                g->pos[sm] = (uint16_t)k++;
                g->gpc_rank[sm] = (uint16_t)gpcs;
                used = 1;
            }
        gpcs += (uint32_t)used;
    }
    g->gap = gpcs > 1 ? fmin(6.0, height * 0.15 / (gpcs - 1)) : 0;
    g->row_h = (height - g->gap * (gpcs > 1 ? gpcs - 1 : 0)) / (n ? n : 1);
    g->y0 = top;
}

static int gpu_row_y(const gpu_geom *g, uint32_t sm)
{
    return g->y0 + (int)floor(g->pos[sm] * g->row_h + g->gpc_rank[sm] * g->gap);
}

static int gpu_row_h(const gpu_geom *g)
{
    int h = (int)floor(g->row_h);
    return h < 1 ? 1 : h;
}

/* Blocks of one timeline (simulated or measured) as bars, lanes stacked inside each SM row.
 * ns_scale converts the blocks' times to cycles (1 for simulated). Culls blocks outside the
 * view and skips bars that would land on pixels already painted on their lane. */
static void draw_blocks(const viz_draw *d, const viz_block *b, size_t n, uint32_t lanes_max,
                        const gpu_geom *g, double to_cycles, int measured, uint32_t sm_limit)
{
    const viz_state *s = d->s;
    const viz_rect *p = &d->L->plot;
    int rh = gpu_row_h(g);
    uint32_t fit = lanes_max ? lanes_max : 1;
    if ((uint32_t)rh < fit)
        fit = (uint32_t)rh; /* lanes thinner than a pixel share pixels */
    double lane_h = (double)rh / fit;
    double tend = s->t0 + s->cpp * p->w;
    size_t first_tail = d->m->tail_blocks ? n - d->m->tail_blocks : n;
    /* right edge painted so far per (SM, lane): blocks come in start order, so a bar ending
     * there is already covered (zoomed out, thousands of blocks share a few pixels) */
    int *painted = calloc((size_t)sm_limit * fit, sizeof *painted);
    for (size_t i = 0; i < n; i++) {
        double a = b[i].t0 * to_cycles, e = b[i].t1 * to_cycles;
        if (e < s->t0 || a > tend || b[i].sm >= sm_limit)
            continue;
        int x0 = (int)floor(viz_input_x_of(s, a)), x1 = (int)ceil(viz_input_x_of(s, e));
        if (x0 < p->x)
            x0 = p->x;
        if (x1 > p->x + p->w)
            x1 = p->x + p->w;
        if (x1 - x0 > 3)
            x1--; /* a pixel of background between consecutive blocks */
        if (x1 <= x0)
            x1 = x0 + 1;
        viz_rgb c = measured          ? vr_ui(VIZ_C_MEASURED)
                    : i >= first_tail ? vr_ui(VIZ_C_TAIL)
                                      : vr_ui(b[i].wave % 2 ? VIZ_C_WAVE_B : VIZ_C_WAVE_A);
        if (measured && b[i].lane % 2)
            c = (viz_rgb){(uint8_t)(c.r * 4 / 5), (uint8_t)(c.g * 4 / 5), (uint8_t)(c.b * 4 / 5)};
        int *edge = painted ? &painted[(size_t)b[i].sm * fit + b[i].lane % fit] : NULL;
        if (edge && x1 <= *edge)
            continue;
        if (edge)
            *edge = x1;
        int y = gpu_row_y(g, b[i].sm) + (int)floor((b[i].lane % fit) * lane_h);
        int h = (int)floor(lane_h) > 1 ? (int)floor(lane_h) - (lane_h >= 4) : 1;
        vr_fill(d, x0, y, x1 - x0, h, c);
    }
    free(painted);
}

static void gpu_labels(const viz_draw *d, const gpu_geom *g, uint32_t sm_count, int show_gpc)
{
    const viz_rect *p = &d->L->plot;
    int lh = viz_font_height(d->f, VIZ_TEXT_SMALL), last = -1000;
    uint32_t last_gpc = UINT32_MAX;
    for (uint32_t k = 0; k < sm_count; k++) {
        uint32_t sm = 0;
        while (sm < sm_count && g->pos[sm] != k)
            sm++;
        if (sm == sm_count)
            continue;
        int y = gpu_row_y(g, sm);
        uint32_t gpc = show_gpc ? d->m->sm_gpc[sm] : 0;
        if (show_gpc && gpc != last_gpc) {
            char t[32];
            snprintf(t, sizeof t, "GPC %u", gpc);
            vr_text(d, d->L->pad, y, t, VIZ_C_TEXT, VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
            last = y;
            last_gpc = gpc;
        }
        if (y - last >= lh) {
            char t[32];
            snprintf(t, sizeof t, "SM %u", sm);
            vr_text(d, p->x - d->L->pad, y + (gpu_row_h(g) - lh) / 2, t, VIZ_C_DIM,
                    VIZ_TEXT_SMALL | VIZ_TEXT_RIGHT);
            last = y;
        }
    }
}

void vr_view_gpu(const viz_draw *d)
{
    const viz_model *m = d->m;
    const viz_rect *p = &d->L->plot;
    vr_fill(d, p->x, p->y, p->w, p->h, vr_ui(VIZ_C_PANEL));
    vr_time_axis(d, p->y - d->L->font_px - d->L->pad);
    if (!m->nblocks) {
        vr_message(d, "This trace has no block records.", "Nothing ran, or it was cut short.");
        return;
    }
    gpu_geom g;
    gpu_geom *gg = &g;
    gpu_layout(m, m->sm_count, 1, p->y, p->h, gg);
    draw_blocks(d, m->blocks, m->nblocks, m->lanes_max, gg, 1.0, 0, m->sm_count);
    gpu_labels(d, gg, m->sm_count, 1);
    /* wave starts: a line where the first block of each wave starts */
    size_t per = m->waves > 1 ? (m->nblocks - m->tail_blocks + m->waves - 2) / (m->waves - 1) : 0;
    int last_x = -1000;
    for (uint32_t w = 1; per && w < m->waves; w++) {
        size_t i = (size_t)w * per;
        if (i >= m->nblocks)
            break;
        int x = (int)lround(viz_input_x_of(d->s, (double)m->blocks[i].t0));
        if (x < p->x || x >= p->x + p->w)
            continue;
        vr_line(d, x, p->y, x, p->y + p->h, vr_ui(VIZ_C_TEXT));
        if (x - last_x > 70 * d->L->scale) {
            char t[32];
            snprintf(t, sizeof t,
                     w + 1 == m->waves && m->tail_blocks ? "tail (wave %u)" : "wave %u", w + 1);
            vr_text(d, x + 3, p->y + 2, t, VIZ_C_TEXT, VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
            last_x = x;
        }
    }
    vr_cursor(d, p->y, p->y + p->h);
}

void vr_legend_blocks(const viz_draw *d, int y)
{
    const viz_model *m = d->m;
    const viz_layout *L = d->L;
    int x = L->legend.x + L->pad, sw = L->font_px, lh = viz_font_height(d->f, 0);
    char t[128];
    vr_text(d, x, y, "blocks", VIZ_C_TEXT, VIZ_TEXT_BOLD);
    y += lh + L->pad / 2;
    struct {
        int color;
        const char *label;
    } items[] = {{VIZ_C_WAVE_A, "waves 1, 3, 5 ..."},
                 {VIZ_C_WAVE_B, "waves 2, 4, 6 ..."},
                 {VIZ_C_TAIL, "tail: last, partial wave"},
                 {VIZ_C_MEASURED, "measured on the GPU"}};
    for (size_t i = 0; i < 4; i++) {
        if (i == 3 && d->s->view != VIZ_VIEW_MEASURED)
            break;
        vr_fill(d, x, y + 2, sw, sw - 2, vr_ui(items[i].color));
        vr_text(d, x + sw + L->pad, y, items[i].label, VIZ_C_TEXT, VIZ_TEXT_SMALL);
        y += lh;
    }
    y += L->pad;
    const char *lines[6];
    char b0[96], b1[96], b2[96], b3[96];
    snprintf(b0, sizeof b0, "%zu blocks on %u SMs", m->nblocks, m->sm_count);
    snprintf(b1, sizeof b1, "up to %u at once per SM", m->lanes_max);
    snprintf(b2, sizeof b2, "%u wave%s", m->waves, m->waves == 1 ? "" : "s");
    if (m->tail_blocks)
        snprintf(b3, sizeof b3, "tail: %u blocks", m->tail_blocks);
    else
        snprintf(b3, sizeof b3, "no partial tail wave");
    lines[0] = b0, lines[1] = b1, lines[2] = b2, lines[3] = b3;
    for (int i = 0; i < 4; i++, y += lh)
        vr_text(d, x, y, lines[i], VIZ_C_DIM, VIZ_TEXT_SMALL);
    snprintf(t, sizeof t, "kernel: %.2f us", viz_model_us(m, (double)m->total_cycles));
    vr_text(d, x, y, t, VIZ_C_DIM, VIZ_TEXT_SMALL);
}

/* ---- SM view ------------------------------------------------------------------------------ */

/* True when the SM's warp slot held a warp at some time. */
static int slot_used(const viz_model *m, uint32_t sm, int slot)
{
    uint32_t row = viz_row(m, sm, (uint32_t)slot);
    return m->row_iv[row + 1] > m->row_iv[row];
}

/* Rows shown: with a warp filter only that slot; with a scheduler filter only its slots; and
 * only the slots the SM ever used (a small kernel leaves most of the 64 empty), unless it used
 * none. */
static int slot_shown(const viz_ctx *c, const viz_state *s, int slot)
{
    if (s->warp_filter >= 0)
        return slot == s->warp_filter;
    if (s->sched_filter >= 0 && slot % (int)s->scheds != s->sched_filter)
        return 0;
    const viz_model *m = c->m;
    uint32_t sm = (uint32_t)s->sm < m->sm_count ? (uint32_t)s->sm : 0;
    if (!m->row_iv || (uint32_t)slot >= m->slots || slot_used(m, sm, slot))
        return 1;
    for (int sl = 0; sl < (int)m->slots; sl++)
        if (slot_used(m, sm, sl))
            return 0;
    return 1;
}

void viz_render_sm_row(const viz_ctx *c, const viz_state *s, int slot, int *y, int *h)
{
    const viz_rect *p = &s->lay.plot;
    int groups = 0, rows = 0;
    for (int k = 0; k < (int)s->scheds; k++) {
        int any = 0;
        for (int sl = k; sl < (int)s->slots; sl += (int)s->scheds)
            if (slot_shown(c, s, sl)) {
                rows++;
                any = 1;
            }
        groups += any;
    }
    *y = *h = 0;
    if (slot < 0 || slot >= (int)s->slots || !slot_shown(c, s, slot) || !rows)
        return;
    int head = s->lay.font_px + s->lay.pad / 2;
    double rh = (double)(p->h - groups * head) / rows;
    if (rh > 6 * s->lay.font_px)
        rh = 6 * s->lay.font_px;
    int g = 0, r = 0;
    for (int k = 0; k < (int)s->scheds; k++) {
        int any = 0;
        for (int sl = k; sl < (int)s->slots; sl += (int)s->scheds) {
            if (!slot_shown(c, s, sl))
                continue;
            if (!any)
                g++;
            any = 1;
            if (sl == slot) {
                *y = p->y + g * head + (int)floor(r * rh);
                *h = (int)floor((r + 1) * rh) - (int)floor(r * rh);
                if (*h < 1)
                    *h = 1;
                return;
            }
            r++;
        }
    }
}

int viz_render_slot_at(const viz_ctx *c, const viz_state *s, int y)
{
    for (int sl = 0; sl < (int)s->slots; sl++) {
        int ry, rh;
        viz_render_sm_row(c, s, sl, &ry, &rh);
        if (rh && y >= ry && y < ry + rh)
            return sl;
    }
    return -1;
}

/* Idle lanes of a divergent warp: a dark band over the top of the row. */
static void lanes_overlay(const viz_draw *d, int x, int w, int y, int h, uint8_t lanes)
{
    if (lanes == VIZ_NONE || lanes >= 32)
        return;
    int dh = (int)lround(h * (32 - lanes) / 32.0);
    vr_blend(d, x, y, w, dh, (viz_rgb){0, 0, 0}, 170);
}

static void sm_row(const viz_draw *d, uint32_t sm, int slot, int y, int h)
{
    const viz_model *m = d->m;
    const viz_state *s = d->s;
    const viz_rect *p = &d->L->plot;
    uint32_t row = viz_row(m, sm, (uint32_t)slot);
    int level = viz_model_lod_level(m, s->cpp), bar = h > 3 ? h - 1 : h;
    if (level >= 0) {
        /* one LOD byte per pixel column; runs of one reason become one rectangle */
        int run_x = p->x;
        uint8_t run = VIZ_NONE;
        for (int px = 0; px <= p->w; px++) {
            uint8_t r = VIZ_NONE, ln = VIZ_NONE;
            if (px < p->w) {
                double t = s->t0 + (px + 0.5) * s->cpp;
                r = t < 0 ? VIZ_NONE : viz_model_lod_reason(m, row, level, (uint64_t)t);
                ln = t < 0 ? VIZ_NONE : viz_model_lod_lanes(m, row, level, (uint64_t)t);
            }
            if (px == p->w || r != run) {
                if (run != VIZ_NONE)
                    vr_fill(d, run_x, y, p->x + px - run_x, bar, vr_reason(d, run));
                run = r;
                run_x = p->x + px;
            }
            if (px < p->w && r != VIZ_NONE)
                lanes_overlay(d, p->x + px, 1, y, bar, ln);
        }
        return;
    }
    /* zoomed in: the intervals in view, then the issues' active lanes */
    double tend = s->t0 + s->cpp * p->w;
    for (size_t i = m->row_iv[row]; i < m->row_iv[row + 1]; i++) {
        const viz_iv *iv = &m->ivs[i];
        if ((double)iv->t1 <= s->t0)
            continue;
        if ((double)iv->t0 >= tend)
            break;
        int x0 = (int)floor(viz_input_x_of(s, (double)iv->t0));
        int x1 = (int)floor(viz_input_x_of(s, (double)iv->t1));
        x0 = x0 < p->x ? p->x : x0;
        x1 = x1 > p->x + p->w ? p->x + p->w : x1;
        vr_fill(d, x0, y, x1 > x0 ? x1 - x0 : 1, bar, vr_reason(d, (int)iv->reason));
    }
    const viz_issue *is =
        viz_model_issue_at(m, sm, (uint32_t)slot, (uint64_t)(s->t0 > 0 ? s->t0 : 0));
    size_t i = is ? (size_t)(is - m->issues) : m->row_issue[row];
    for (; i < m->row_issue[row + 1] && (double)m->issues[i].cycle < tend; i++) {
        int x0 = (int)floor(viz_input_x_of(s, (double)m->issues[i].cycle));
        int w = (int)ceil(1 / s->cpp);
        if (x0 + w > p->x && x0 < p->x + p->w)
            lanes_overlay(d, x0 < p->x ? p->x : x0, w, y, bar, (uint8_t)m->issues[i].lanes);
    }
}

void vr_view_sm(const viz_draw *d)
{
    const viz_model *m = d->m;
    const viz_state *s = d->s;
    const viz_ctx *c = d->c;
    const viz_rect *p = &d->L->plot;
    uint32_t sm = (uint32_t)s->sm < m->sm_count ? (uint32_t)s->sm : 0;
    vr_fill(d, p->x, p->y, p->w, p->h, vr_ui(VIZ_C_BG));
    vr_time_axis(d, p->y - d->L->font_px - d->L->pad);
    int lh = viz_font_height(d->f, VIZ_TEXT_SMALL), last_label = -1000;
    for (int k = 0; k < (int)s->scheds; k++) /* in display order: scheduler by scheduler */
        for (int slot = k; slot < (int)m->slots; slot += (int)s->scheds) {
            int y, h;
            viz_render_sm_row(c, s, slot, &y, &h);
            if (!h)
                continue;
            vr_fill(d, p->x, y, p->w, h > 3 ? h - 1 : h, vr_ui(VIZ_C_PANEL));
            sm_row(d, sm, slot, y, h);
            if (y - last_label >= lh) {
                char t[24];
                snprintf(t, sizeof t, "slot %d", slot);
                vr_text(d, p->x - d->L->pad, y + (h - lh) / 2, t, VIZ_C_DIM,
                        VIZ_TEXT_SMALL | VIZ_TEXT_RIGHT);
                last_label = y;
            }
        }
    if (!m->nivs)
        vr_message(d, "This trace has no warp states.", "No warp ran, or it was cut short.");
    /* a warp arriving in a slot (a new block's warp): a thin gap where it starts */
    for (size_t i = 0; i < m->nwarps; i++) {
        const viz_warp *w = &m->warps[i];
        int y, h;
        if (w->sm != sm || !w->t0)
            continue;
        viz_render_sm_row(c, s, (int)w->slot, &y, &h);
        int x = (int)floor(viz_input_x_of(s, (double)w->t0));
        if (h && x > p->x && x < p->x + p->w)
            vr_fill(d, x - 1, y, 2, h > 3 ? h - 1 : h, vr_ui(VIZ_C_BG));
    }
    /* scheduler headers above each group */
    for (int k = 0; k < (int)s->scheds; k++)
        for (int sl = k; sl < (int)s->slots; sl += (int)s->scheds) {
            int y, h;
            viz_render_sm_row(c, s, sl, &y, &h);
            if (!h)
                continue;
            char t[96];
            snprintf(t, sizeof t, "SM %u  ·  scheduler %d  (slots %d, %d, %d ...)", sm, k, k,
                     k + (int)s->scheds, k + 2 * (int)s->scheds);
            vr_text(d, p->x + d->L->pad, y - d->L->font_px - d->L->pad / 4, t, VIZ_C_TEXT,
                    VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
            break;
        }
    vr_cursor(d, p->y, p->y + p->h);
}

/* ---- measured vs simulated ---------------------------------------------------------------- */

/* Warps of one SM as bars, one row per warp slot (0 .. nrows-1) in [top, top + height); block
 * parity picks the shade so consecutive blocks in a slot stay apart. */
static void draw_warps(const viz_draw *d, const viz_warp *w, size_t n, uint32_t sm, uint32_t nrows,
                       int top, int height, double to_cycles, viz_rgb even, viz_rgb odd)
{
    const viz_state *s = d->s;
    const viz_rect *p = &d->L->plot;
    double rh = (double)height / (nrows ? nrows : 1), tend = s->t0 + s->cpp * p->w;
    for (size_t i = 0; i < n; i++) {
        if (w[i].sm != sm || w[i].slot >= nrows)
            continue;
        double a = (double)w[i].t0 * to_cycles, e = (double)w[i].t1 * to_cycles;
        if (e < s->t0 || a > tend)
            continue;
        int x0 = (int)floor(viz_input_x_of(s, a)), x1 = (int)ceil(viz_input_x_of(s, e));
        x0 = x0 < p->x ? p->x : x0;
        x1 = x1 > p->x + p->w ? p->x + p->w : x1;
        int y = top + (int)floor(w[i].slot * rh), h = (int)floor(rh) > 2 ? (int)floor(rh) - 1 : 1;
        vr_fill(d, x0, y, x1 > x0 + 2 ? x1 - x0 - 1 : 1, h, w[i].block % 2 ? odd : even);
    }
}

/* 1 + the highest slot any warp of this SM used (rows to draw), at least 1. */
static uint32_t slots_in_use(const viz_warp *w, size_t n, uint32_t sm)
{
    uint32_t most = 1;
    for (size_t i = 0; i < n; i++)
        if (w[i].sm == sm && w[i].slot + 1 > most)
            most = w[i].slot + 1;
    return most;
}

/* The per-warp comparison of one SM: simulated warps by slot above, the GPU's by %warpid. */
static void measured_per_warp(const viz_draw *d, int top, int half, int lh)
{
    const viz_model *m = d->m;
    const viz_measured *mm = m->meas;
    const viz_rect *p = &d->L->plot;
    uint32_t sm = (uint32_t)d->s->sm;
    char t[256];
    viz_rgb dim = vr_ui(VIZ_C_MEASURED);
    dim = (viz_rgb){(uint8_t)(dim.r * 3 / 4), (uint8_t)(dim.g * 3 / 4), (uint8_t)(dim.b * 3 / 4)};
    vr_fill(d, p->x, top + lh, p->w, half - lh / 2, vr_ui(VIZ_C_PANEL));
    vr_fill(d, p->x, top + half + 2 * lh, p->w, half - lh / 2, vr_ui(VIZ_C_PANEL));
    uint32_t rows_sim = slots_in_use(m->warps, m->nwarps, sm);
    uint32_t rows_hw = slots_in_use(mm->warps, mm->nwarps, sm);
    draw_warps(d, m->warps, m->nwarps, sm, rows_sim, top + lh, half - lh / 2, 1.0,
               vr_ui(VIZ_C_WAVE_A), vr_ui(VIZ_C_WAVE_B));
    draw_warps(d, mm->warps, mm->nwarps, sm, rows_hw, top + half + 2 * lh, half - lh / 2,
               m->clock_mhz / 1000.0, vr_ui(VIZ_C_MEASURED), dim);
    snprintf(t, sizeof t,
             "simulated SM %u: one row per warp slot (0..%u), the shade alternates by block", sm,
             rows_sim - 1);
    vr_text(d, p->x + d->L->pad, top, t, VIZ_C_TEXT, VIZ_TEXT_BOLD | VIZ_TEXT_SMALL);
    snprintf(t, sizeof t, "%s, SM %u (%%smid): one row per %%warpid (0..%u)%s", mm->gpu, sm,
             rows_hw - 1, mm->nwarps ? "" : ": this file has no per-warp records");
    vr_text(d, p->x + d->L->pad, top + half + lh, t, VIZ_C_TEXT, VIZ_TEXT_BOLD | VIZ_TEXT_SMALL);
}

/* Height of a panel title line in the measured view (from the layout, so hover agrees). */
static int measured_lh(const viz_layout *L)
{
    return L->font_px + L->pad;
}

/* The measured view's two panels: simulated blocks above, measured below. */
static void measured_panels(const viz_model *m, const viz_rect *p, int lh, gpu_geom *gs,
                            gpu_geom *gm)
{
    int half = (p->h - 2 * lh) / 2;
    uint32_t msms = m->meas && m->meas->sm_count ? m->meas->sm_count : 1;
    gpu_layout(m, m->sm_count, 0, p->y + lh, half - lh / 2, gs);
    gpu_layout(m, msms, 0, p->y + half + 2 * lh, half - lh / 2, gm);
}

void vr_view_measured(const viz_draw *d)
{
    const viz_model *m = d->m;
    const viz_measured *mm = m->meas;
    const viz_rect *p = &d->L->plot;
    int lh = measured_lh(d->L);
    vr_time_axis(d, p->y - d->L->font_px - d->L->pad);
    double sim_us = viz_model_us(m, (double)m->total_cycles);
    char t[256];
    if (!mm) {
        vr_fill(d, p->x, p->y, p->w, p->h, vr_ui(VIZ_C_PANEL));
        snprintf(t, sizeof t, "simulated: %.2f us. No measurement loaded.", sim_us);
        vr_message(d, t, "Add --measured gpu/measured/h200/CASE.json to compare with the H200.");
        return;
    }
    int half = (p->h - 2 * lh) / 2;
    if (d->s->per_warp) {
        measured_per_warp(d, p->y, half, lh);
        vr_cursor(d, p->y + lh, p->y + p->h);
        return;
    }
    gpu_geom gs, gm; /* one row per SM id in both (%smid does not tell the GPC) */
    uint32_t msms = mm->sm_count ? mm->sm_count : 1;
    measured_panels(m, p, lh, &gs, &gm);
    vr_fill(d, p->x, p->y + lh, p->w, half - lh / 2, vr_ui(VIZ_C_PANEL));
    vr_fill(d, p->x, p->y + half + 2 * lh, p->w, half - lh / 2, vr_ui(VIZ_C_PANEL));
    draw_blocks(d, m->blocks, m->nblocks, m->lanes_max, &gs, 1.0, 0, m->sm_count);
    draw_blocks(d, mm->blocks, mm->nblocks, mm->lanes_max, &gm, m->clock_mhz / 1000.0, 1, msms);
    snprintf(t, sizeof t, "simulated (%s, %u MHz): %.2f us, first block to last", m->arch,
             m->clock_mhz, sim_us);
    vr_text(d, p->x + d->L->pad, p->y, t, VIZ_C_TEXT, VIZ_TEXT_BOLD | VIZ_TEXT_SMALL);
    double meas_us = mm->time_us > 0 ? mm->time_us : mm->probe_span_us;
    if (mm->time_us > 0)
        snprintf(t, sizeof t,
                 "measured on %s: %.2f us (median, uninstrumented); timeline from "
                 "the probe run, span %.2f us",
                 mm->gpu, mm->time_us, mm->probe_span_us);
    else
        snprintf(t, sizeof t, "measured on %s: probe span %.2f us", mm->gpu, mm->probe_span_us);
    vr_text(d, p->x + d->L->pad, p->y + half + lh, t, VIZ_C_TEXT, VIZ_TEXT_BOLD | VIZ_TEXT_SMALL);
    if (meas_us > 0) {
        double err = 100.0 * (sim_us - meas_us) / meas_us;
        snprintf(t, sizeof t, "error: %+.1f%%  (simulated %s measured)", err,
                 err > 0 ? "slower than" : "faster than");
        vr_text(d, p->x + p->w - d->L->pad, p->y, t, fabs(err) <= 20 ? VIZ_C_ACCENT : VIZ_C_TAIL,
                VIZ_TEXT_BOLD | VIZ_TEXT_SMALL | VIZ_TEXT_RIGHT);
    }
    if (!mm->nblocks)
        vr_text(d, p->x + p->w / 2, p->y + half + 2 * lh + half / 3,
                "this measurement has no per-block timeline (probe run missing)", VIZ_C_DIM,
                VIZ_TEXT_CENTER);
    vr_cursor(d, p->y + lh, p->y + p->h);
}

/* ---- hover -------------------------------------------------------------------------------- */

static void hover_gpu(const viz_ctx *c, const viz_state *s, int x, int y, viz_hover *h)
{
    const viz_model *m = c->m;
    gpu_geom g;
    gpu_layout(m, m->sm_count, 1, s->lay.plot.y, s->lay.plot.h, &g);
    double t = viz_input_cycle_at(s, x);
    for (uint32_t sm = 0; sm < m->sm_count; sm++) {
        int ry = gpu_row_y(&g, sm), rh = gpu_row_h(&g);
        if (y < ry || y >= ry + rh)
            continue;
        h->valid = 1;
        h->sm = (int)sm;
        h->cycle = t > 0 ? (uint64_t)t : 0;
        int n = snprintf(h->text, sizeof h->text, "SM %u (GPC %u)  ·  cycle %llu", sm,
                         m->sm_gpc[sm], (unsigned long long)h->cycle);
        int found = 0;
        for (size_t i = 0; i < m->nblocks; i++) {
            const viz_block *b = &m->blocks[i];
            if (b->sm == sm && (double)b->t0 <= t && t < (double)b->t1) {
                n += snprintf(h->text + n, sizeof h->text - (size_t)n,
                              "%s block %u (wave %u: %llu..%llu = %.2f us)", found ? "," : "  ·",
                              b->id, b->wave + 1, (unsigned long long)b->t0,
                              (unsigned long long)b->t1, viz_model_us(m, (double)(b->t1 - b->t0)));
                if (!found)
                    h->block = (int)b->id;
                if (++found == 2 || n > 400)
                    break;
            }
        }
        if (!found)
            snprintf(h->text + n, sizeof h->text - (size_t)n, "  ·  idle");
        return;
    }
}

int viz_render_gpu_sm_at(const viz_ctx *c, const viz_state *s, int y)
{
    viz_hover h;
    viz_state t = *s;
    t.view = VIZ_VIEW_GPU;
    viz_render_hover(c, &t, s->lay.plot.x, y, &h);
    return h.valid ? h.sm : -1;
}

static void hover_sm(const viz_ctx *c, const viz_state *s, int x, int y, viz_hover *h)
{
    const viz_model *m = c->m;
    int slot = viz_render_slot_at(c, s, y);
    double t = viz_input_cycle_at(s, x);
    if (slot < 0 || t < 0)
        return;
    uint32_t sm = (uint32_t)s->sm < m->sm_count ? (uint32_t)s->sm : 0;
    h->valid = 1;
    h->sm = (int)sm;
    h->slot = slot;
    h->cycle = (uint64_t)t;
    int n = snprintf(h->text, sizeof h->text, "SM %u  ·  scheduler %d  ·  slot %d  ·  cycle %llu",
                     sm, slot % (int)m->scheds, slot, (unsigned long long)h->cycle);
    const viz_warp *w = viz_model_warp_at(m, sm, (uint32_t)slot, h->cycle);
    if (w) {
        h->block = (int)w->block;
        h->warp = (int)w->warp;
        n += snprintf(h->text + n, sizeof h->text - (size_t)n, "  ·  block %u warp %u", w->block,
                      w->warp);
    }
    const viz_iv *iv = viz_model_interval_at(m, sm, (uint32_t)slot, h->cycle);
    if (!iv) {
        snprintf(h->text + n, sizeof h->text - (size_t)n, "  ·  no warp resident");
        return;
    }
    h->reason = (int)iv->reason;
    n += snprintf(h->text + n, sizeof h->text - (size_t)n, "  ·  %s", stall_name(h->reason));
    /* the instruction: the one issued now, or the one the warp is stalled on (issued next) */
    const viz_issue *is = viz_model_issue_at(m, sm, (uint32_t)slot, h->cycle);
    if (!is || is->cycle != h->cycle)
        is = viz_model_next_issue(m, sm, (uint32_t)slot, h->cycle);
    if (is) {
        h->line = is->line;
        h->lanes = (int)is->lanes;
        const char *src = is->line && is->line <= m->nlines ? m->lines[is->line - 1] : "";
        while (*src == ' ' || *src == '\t')
            src++;
        snprintf(h->text + n, sizeof h->text - (size_t)n, "  ·  %u/32 lanes  ·  PTX %u: %.90s",
                 is->lanes, is->line, src);
    }
}

/* The block of blocks[0..n) on SM row `sm` whose lane covers y and whose span covers t. */
static const viz_block *block_at(const viz_block *b, size_t n, const gpu_geom *g, uint32_t lanes,
                                 uint32_t sm, int y, double t, double to_cycles)
{
    int rh = gpu_row_h(g);
    uint32_t fit = lanes ? lanes : 1;
    fit = (uint32_t)rh < fit ? (uint32_t)rh : fit;
    uint32_t lane = (uint32_t)((y - gpu_row_y(g, sm)) * (int)fit / (rh ? rh : 1));
    for (size_t i = 0; i < n; i++)
        if (b[i].sm == sm && b[i].lane % fit == lane && (double)b[i].t0 * to_cycles <= t &&
            t < (double)b[i].t1 * to_cycles)
            return &b[i];
    return NULL;
}

static void hover_measured(const viz_ctx *c, const viz_state *s, int x, int y, viz_hover *h)
{
    const viz_model *m = c->m;
    const viz_measured *mm = m->meas;
    double t = viz_input_cycle_at(s, x);
    h->valid = 1;
    h->cycle = t > 0 ? (uint64_t)t : 0;
    int n = snprintf(h->text, sizeof h->text, "cycle %llu = %.3f us from the first block",
                     (unsigned long long)h->cycle, viz_model_us(m, t > 0 ? t : 0));
    if (!mm || s->per_warp)
        return;
    gpu_geom gs, gm;
    measured_panels(m, &s->lay.plot, measured_lh(&s->lay), &gs, &gm);
    double ns = m->clock_mhz / 1000.0; /* measured ns -> cycles */
    const viz_block *b = NULL;
    const char *who = "";
    for (uint32_t sm = 0; sm < m->sm_count && !b; sm++)
        if (y >= gpu_row_y(&gs, sm) && y < gpu_row_y(&gs, sm) + gpu_row_h(&gs)) {
            b = block_at(m->blocks, m->nblocks, &gs, m->lanes_max, sm, y, t, 1.0);
            who = "simulated";
            ns = 1.0;
        }
    uint32_t msms = mm->sm_count ? mm->sm_count : 1;
    for (uint32_t sm = 0; sm < msms && !b && !who[0]; sm++)
        if (y >= gpu_row_y(&gm, sm) && y < gpu_row_y(&gm, sm) + gpu_row_h(&gm)) {
            b = block_at(mm->blocks, mm->nblocks, &gm, mm->lanes_max, sm, y, t, ns);
            who = mm->gpu;
        }
    if (!b)
        return;
    /* times in us: cycles at the model's clock, or the GPU's nanoseconds */
    double a = ns == 1.0 ? viz_model_us(m, (double)b->t0) : (double)b->t0 / 1000.0;
    double e = ns == 1.0 ? viz_model_us(m, (double)b->t1) : (double)b->t1 / 1000.0;
    snprintf(h->text + n, sizeof h->text - (size_t)n,
             "  ·  %s: block %u on SM %u, %.2f .. %.2f us (%.2f us)", who, b->id, b->sm, a, e,
             e - a);
    h->block = (int)b->id;
    h->sm = (int)b->sm;
}

void vr_hover_timeline(const viz_ctx *c, const viz_state *s, int x, int y, viz_hover *h)
{
    if (s->view == VIZ_VIEW_GPU)
        hover_gpu(c, s, x, y, h);
    else if (s->view == VIZ_VIEW_SM)
        hover_sm(c, s, x, y, h);
    else
        hover_measured(c, s, x, y, h);
}
