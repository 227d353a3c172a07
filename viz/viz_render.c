/* viz_render: the frame around the views: toolbar, time axis, legend, status bar, help. */
#include "viz_render_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stall.h"

/* ---- primitives ------------------------------------------------------------------------- */

void vr_fill(const viz_draw *d, int x, int y, int w, int h, viz_rgb c)
{
    if (w <= 0 || h <= 0)
        return;
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_NONE);
    SDL_SetRenderDrawColor(d->r, c.r, c.g, c.b, 255);
    SDL_RenderFillRect(d->r, &(SDL_Rect){x, y, w, h});
}

void vr_blend(const viz_draw *d, int x, int y, int w, int h, viz_rgb c, uint8_t alpha)
{
    if (w <= 0 || h <= 0)
        return;
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(d->r, c.r, c.g, c.b, alpha);
    SDL_RenderFillRect(d->r, &(SDL_Rect){x, y, w, h});
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_NONE);
}

void vr_frame(const viz_draw *d, int x, int y, int w, int h, viz_rgb c)
{
    SDL_SetRenderDrawColor(d->r, c.r, c.g, c.b, 255);
    SDL_RenderDrawRect(d->r, &(SDL_Rect){x, y, w, h});
}

void vr_line(const viz_draw *d, int x0, int y0, int x1, int y1, viz_rgb c)
{
    SDL_SetRenderDrawColor(d->r, c.r, c.g, c.b, 255);
    SDL_RenderDrawLine(d->r, x0, y0, x1, y1);
}

viz_rgb vr_ui(int which)
{
    return viz_palette_ui(which);
}

int vr_text(const viz_draw *d, int x, int y, const char *t, int color, int style)
{
    return viz_font_draw(d->f, x, y, t, vr_ui(color), style);
}

viz_rgb vr_reason(const viz_draw *d, int reason)
{
    viz_rgb c = viz_palette_reason(reason);
    if (d->s->reason_filter >= 0 && reason != d->s->reason_filter) {
        /* filtered out: a dark grey keeping a hint of the hue */
        c.r = (uint8_t)(0x30 + c.r / 8);
        c.g = (uint8_t)(0x34 + c.g / 8);
        c.b = (uint8_t)(0x3c + c.b / 8);
    }
    return c;
}

void vr_num(char *buf, size_t cap, double v)
{
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(buf, cap, "%.3gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(buf, cap, "%.3gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(buf, cap, "%.3gk", v / 1e3);
    else if (a == floor(a))
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.3g", v);
}

void vr_message(const viz_draw *d, const char *line1, const char *line2)
{
    const viz_rect *p = &d->L->plot;
    int cx = p->x + p->w / 2, cy = p->y + p->h / 2 - d->L->font_px;
    vr_text(d, cx, cy, line1, VIZ_C_TEXT, VIZ_TEXT_CENTER | VIZ_TEXT_BOLD);
    if (line2)
        vr_text(d, cx, cy + 2 * d->L->font_px, line2, VIZ_C_DIM, VIZ_TEXT_CENTER);
}

/* ---- time axis and cursor --------------------------------------------------------------- */

void vr_time_axis(const viz_draw *d, int y)
{
    const viz_state *s = d->s;
    const viz_rect *p = &d->L->plot;
    double span = s->cpp * p->w;
    /* a "nice" step (1, 2, 5 x 10^k cycles) giving ticks about 110 px apart */
    double raw = span * 110 * d->L->scale / p->w, mag = pow(10, floor(log10(raw > 0 ? raw : 1)));
    double stepv = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    if (stepv < 1)
        stepv = 1;
    int show_us = d->m->clock_mhz && span / d->m->clock_mhz >= 0.5;
    for (double t = ceil(s->t0 / stepv) * stepv; t <= s->t0 + span; t += stepv) {
        int x = (int)lround(viz_input_x_of(s, t));
        vr_line(d, x, y + d->L->font_px + d->L->pad / 2, x, p->y + p->h - 1, vr_ui(VIZ_C_GRID));
        char a[32], b[48];
        vr_num(a, sizeof a, t);
        if (show_us)
            snprintf(b, sizeof b, "%s (%.3g us)", a, viz_model_us(d->m, t));
        else
            snprintf(b, sizeof b, "%s", a);
        int half = viz_font_width(d->f, b, VIZ_TEXT_SMALL) / 2;
        if (x - half >= p->x && x + half <= p->x + p->w) /* labels stay over the plot */
            vr_text(d, x, y, b, VIZ_C_DIM, VIZ_TEXT_CENTER | VIZ_TEXT_SMALL);
    }
    vr_text(d, p->x - d->L->pad, y, "cycle", VIZ_C_DIM, VIZ_TEXT_RIGHT | VIZ_TEXT_SMALL);
}

void vr_cursor(const viz_draw *d, int y0, int y1)
{
    if (d->s->cursor < 0)
        return;
    int x = (int)floor(viz_input_x_of(d->s, (double)d->s->cursor));
    const viz_rect *p = &d->L->plot;
    if (x < p->x || x >= p->x + p->w)
        return;
    /* the cursor cycle's column, outlined by lines as thick as the scale (visible on 4K) */
    int w = d->s->cpp < 0.5 ? (int)ceil(1 / d->s->cpp) : 1;
    int t = d->L->scale > 1.5 ? (int)lround(d->L->scale) : 1;
    vr_fill(d, x - t, y0, t, y1 - y0, vr_ui(VIZ_C_ACCENT));
    vr_fill(d, x + w, y0, t, y1 - y0, vr_ui(VIZ_C_ACCENT));
}

/* ---- toolbar, legend, status, help ------------------------------------------------------- */

static const char *const button_labels[VIZ_VIEW_COUNT] = {
    "1 GPU", "2 SM", "3 Breakdown", "4 Measured", "5 Occupancy", "6 Source"};

static void toolbar(const viz_draw *d)
{
    const viz_layout *L = d->L;
    vr_fill(d, 0, 0, L->toolbar.w, L->toolbar.h, vr_ui(VIZ_C_TOOLBAR));
    for (int i = 0; i < VIZ_VIEW_COUNT; i++) {
        int x = L->pad + i * L->button_w, on = (int)d->s->view == i;
        if (on)
            vr_fill(d, x + 1, L->pad / 2, L->button_w - 2, L->toolbar.h - L->pad,
                    vr_ui(VIZ_C_ACCENT));
        else
            vr_frame(d, x + 1, L->pad / 2, L->button_w - 2, L->toolbar.h - L->pad,
                     vr_ui(VIZ_C_GRID));
        viz_font_draw(d->f, x + L->button_w / 2, L->pad * 3 / 2, button_labels[i],
                      on ? vr_ui(VIZ_C_BG) : vr_ui(VIZ_C_TEXT), VIZ_TEXT_CENTER | VIZ_TEXT_BOLD);
    }
    char t[320];
    const viz_model *m = d->m;
    snprintf(t, sizeof t, "%s  ·  %s  ·  grid %u,%u,%u  block %u,%u,%u  ·  %llu cycles = %.2f us",
             m->kernel[0] ? m->kernel : "?", m->arch[0] ? m->arch : "?", m->grid[0], m->grid[1],
             m->grid[2], m->block[0], m->block[1], m->block[2], (unsigned long long)m->total_cycles,
             viz_model_us(m, (double)m->total_cycles));
    int x0 = L->pad + VIZ_VIEW_COUNT * L->button_w + 2 * L->pad;
    if (x0 + viz_font_width(d->f, t, VIZ_TEXT_SMALL) < L->toolbar.w - L->pad)
        vr_text(d, L->toolbar.w - L->pad, L->pad * 2, t, VIZ_C_DIM,
                VIZ_TEXT_RIGHT | VIZ_TEXT_SMALL);
}

/* Draws text word-wrapped into width w (CJK text may break between any two characters). */
static void wrap_text(const viz_draw *d, int x, int y, int w, const char *text)
{
    char line[512];
    size_t n = 0, last_space = 0;
    int lh = viz_font_height(d->f, VIZ_TEXT_SMALL);
    for (const char *p = text; *p;) {
        unsigned char c = (unsigned char)*p; /* k: bytes of this UTF-8 character */
        size_t k = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        if (n + k + 1 >= sizeof line)
            break;
        memcpy(line + n, p, k);
        line[n + k] = 0;
        if (viz_font_width(d->f, line, VIZ_TEXT_SMALL) > w && n > 0) {
            /* break at the last space if there is one, else before this character */
            line[n] = 0; /* this character goes to the next line */
            size_t cut = last_space ? last_space : n;
            line[cut] = 0;
            vr_text(d, x, y, line, VIZ_C_DIM, VIZ_TEXT_SMALL);
            y += lh;
            const char *rest = last_space ? line + cut + 1 : line + cut;
            size_t rn = last_space ? strlen(rest) : 0;
            memmove(line, rest, rn);
            n = rn;
            last_space = 0;
            continue; /* retry this character on the new line */
        }
        if (*p == ' ')
            last_space = n;
        n += k;
        p += k;
    }
    line[n] = 0;
    vr_text(d, x, y, line, VIZ_C_DIM, VIZ_TEXT_SMALL);
}

/* Legend: each reason's colour, name and share of the kernel's warp-cycles. */
static void legend_reasons(const viz_draw *d, int y)
{
    const viz_layout *L = d->L;
    int x = L->legend.x + L->pad, sw = L->font_px, lh = viz_font_height(d->f, 0);
    vr_text(d, x, y, "warp states", VIZ_C_TEXT, VIZ_TEXT_BOLD);
    y += lh + L->pad / 2;
    if (d->s->view == VIZ_VIEW_BREAKDOWN && d->m->meas && d->m->meas->has_stalls) {
        vr_text(d, x, y, "share: simulated | measured", VIZ_C_DIM, VIZ_TEXT_SMALL);
        y += lh;
    }
    uint64_t total = 0;
    for (int i = 0; i < VIZ_NREASON; i++)
        total += d->m->kernel_reason[i];
    for (int i = 0; i < VIZ_NREASON; i++) {
        vr_fill(d, x, y + 2, sw, sw - 2, vr_reason(d, i));
        char t[64];
        const viz_measured *mm = d->m->meas;
        if (total && d->s->view == VIZ_VIEW_BREAKDOWN && mm && mm->has_stalls)
            snprintf(t, sizeof t, "%s %.1f%% | %.1f%%", stall_name(i),
                     100.0 * (double)d->m->kernel_reason[i] / (double)total, 100.0 * mm->stalls[i]);
        else if (total)
            snprintf(t, sizeof t, "%s %.1f%%", stall_name(i),
                     100.0 * (double)d->m->kernel_reason[i] / (double)total);
        else
            snprintf(t, sizeof t, "%s", stall_name(i));
        int on = d->s->reason_filter < 0 || d->s->reason_filter == i;
        vr_text(d, x + sw + L->pad, y, t, on ? VIZ_C_TEXT : VIZ_C_DIM, VIZ_TEXT_SMALL);
        y += lh;
    }
    if (d->s->view == VIZ_VIEW_SM) {
        y += L->pad;
        vr_fill(d, x, y + 2, sw, sw - 2, viz_palette_reason(STALL_SELECTED));
        vr_blend(d, x, y + 2, sw, (sw - 2) / 2, (viz_rgb){0, 0, 0}, 170);
        vr_text(d, x + sw + L->pad, y, "dark top: idle lanes", VIZ_C_DIM, VIZ_TEXT_SMALL);
        y += lh;
        vr_text(d, x + sw + L->pad, y, "(divergence)", VIZ_C_DIM, VIZ_TEXT_SMALL);
        y += lh;
    }
    /* what the hovered (or filtered) reason means, in the chosen language */
    viz_hover h;
    viz_render_hover(d->c, d->s, d->s->mouse_x, d->s->mouse_y, &h);
    int r = h.valid && h.reason >= 0 ? h.reason : d->s->reason_filter;
    if (r >= 0) {
        y += L->pad;
        vr_fill(d, x, y + 2, sw, sw - 2, viz_palette_reason(r));
        vr_text(d, x + sw + L->pad, y, stall_name(r), VIZ_C_TEXT, VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
        y += lh;
        wrap_text(d, x, y, L->legend.w - 2 * L->pad, stall_describe(r, d->c->lang));
    }
}

static void legend(const viz_draw *d)
{
    const viz_layout *L = d->L;
    if (d->s->view == VIZ_VIEW_OCCUPANCY)
        return; /* the charts use the whole width */
    vr_fill(d, L->legend.x, L->legend.y, L->legend.w, L->legend.h, vr_ui(VIZ_C_BG));
    int y = L->legend.y + L->pad;
    switch (d->s->view) {
    case VIZ_VIEW_GPU:
    case VIZ_VIEW_MEASURED: vr_legend_blocks(d, y); break;
    default: legend_reasons(d, y);
    }
}

static void status_bar(const viz_draw *d)
{
    const viz_layout *L = d->L;
    vr_fill(d, L->status.x, L->status.y, L->status.w, L->status.h, vr_ui(VIZ_C_TOOLBAR));
    viz_hover h;
    viz_render_hover(d->c, d->s, d->s->mouse_x, d->s->mouse_y, &h);
    char filt[160] = "";
    size_t k = 0;
    if (d->s->sched_filter >= 0)
        k += (size_t)snprintf(filt + k, sizeof filt - k, " scheduler %d", d->s->sched_filter);
    if (d->s->warp_filter >= 0 && k < sizeof filt)
        k += (size_t)snprintf(filt + k, sizeof filt - k, " slot %d", d->s->warp_filter);
    if (d->s->reason_filter >= 0 && k < sizeof filt)
        snprintf(filt + k, sizeof filt - k, " %s", stall_name(d->s->reason_filter));
    char t[768];
    snprintf(t, sizeof t, "%s%s%s%s", filt[0] ? "filter:" : "", filt, filt[0] ? "   " : "",
             h.valid ? h.text
                     : "F1 or ? for keys  ·  wheel zooms, drag pans, f fits, . and , step a "
                       "cycle, space plays");
    if (d->s->cursor >= 0 && !h.valid) /* where stepping / playing is */
        snprintf(t + strlen(t), sizeof t - strlen(t), "   cursor: cycle %lld (%.3f us)",
                 (long long)d->s->cursor, viz_model_us(d->m, (double)d->s->cursor));
    if (d->s->playing)
        snprintf(t + strlen(t), sizeof t - strlen(t), "   ▶ playing");
    vr_text(d, L->pad, L->status.y + L->pad, t, h.valid || filt[0] ? VIZ_C_TEXT : VIZ_C_DIM,
            VIZ_TEXT_SMALL);
}

/* The help in English, then Chinese (--lang zh), key by key in the same order. */
static const char *const help_lines_zh[] = {
    "切换视图：GPU、SM、停顿分布、实测与模拟对比、占用率、源代码",
    "放大 / 缩小（以鼠标 / 光标为中心）",
    "平移（按住 Shift：半屏）",
    "显示整个内核 / 跳到末尾",
    "把周期光标放在单击处",
    "光标前进 / 后退一个周期（Shift：100 个周期）",
    "播放 / 暂停：光标随时间前进",
    "上一个 / 下一个 SM（SM 视图）；GPU 视图中 Enter 打开鼠标下的 SM",
    "实测视图：所有 SM 的线程块 / 一个 SM 的线程束（[ 和 ] 选择 SM）",
    "按调度器 / 线程束槽位 / 停顿原因筛选（Shift：反向）",
    "清除筛选（或关闭帮助）",
    "滚动源代码视图",
    "本帮助",
    "退出",
};

static const char *const help_lines[][2] = {
    {"1 .. 6, Tab", "views: GPU, SM, breakdown, measured vs simulated, occupancy, source"},
    {"wheel, + / -", "zoom in / out (at the mouse / the cursor)"},
    {"drag, Left / Right", "pan (Shift: by half a screen)"},
    {"f, Home / End", "fit the whole kernel / go to its end"},
    {"click", "put the cycle cursor there"},
    {". / ,", "step the cursor one cycle (Shift: 100)"},
    {"Space", "play / pause: the cursor runs through time"},
    {"[ / ]", "previous / next SM (SM view); Enter on the GPU view opens the SM under the mouse"},
    {"p", "measured view: blocks of every SM / warps of one SM ([ and ] pick it)"},
    {"s / w / r", "filter by scheduler / warp slot / stall reason (Shift: backwards)"},
    {"Esc", "clear the filters (or close this help)"},
    {"Up / Down, PgUp / PgDn", "scroll the source view"},
    {"F1, ?, h", "this help"},
    {"q", "quit"},
};

static void help_overlay(const viz_draw *d)
{
    const viz_layout *L = d->L;
    int n = (int)(sizeof help_lines / sizeof help_lines[0]), lh = viz_font_height(d->f, 0);
    int w = (int)(760 * L->scale), h = (n + 3) * lh + 2 * L->pad;
    int x = (L->toolbar.w - w) / 2, y = (L->status.y + L->toolbar.h - h) / 2;
    vr_blend(d, 0, 0, L->toolbar.w, L->status.y + L->status.h, (viz_rgb){0, 0, 0}, 150);
    vr_fill(d, x, y, w, h, vr_ui(VIZ_C_PANEL));
    vr_frame(d, x, y, w, h, vr_ui(VIZ_C_ACCENT));
    int zh = d->c->lang && !strcmp(d->c->lang, "zh") && viz_font_has_cjk(d->f) &&
             sizeof help_lines_zh / sizeof help_lines_zh[0] == (size_t)n;
    vr_text(d, x + L->pad * 2, y + L->pad, zh ? "warplab 可视化工具：按键" : "warplab viewer: keys",
            VIZ_C_TEXT, VIZ_TEXT_BOLD);
    for (int i = 0; i < n; i++) {
        int yy = y + L->pad + (i + 2) * lh;
        vr_text(d, x + L->pad * 2, yy, help_lines[i][0], VIZ_C_ACCENT, 0);
        vr_text(d, x + (int)(230 * L->scale), yy, zh ? help_lines_zh[i] : help_lines[i][1],
                VIZ_C_TEXT, 0);
    }
}

void viz_render_frame(SDL_Renderer *r, viz_font *f, const viz_ctx *c, const viz_state *s)
{
    viz_font_resize(f, s->lay.font_px);
    viz_draw d = {r, f, c, c->m, s, &s->lay};
    vr_fill(&d, 0, 0, s->win_w, s->win_h, vr_ui(VIZ_C_BG));
    switch (s->view) {
    case VIZ_VIEW_GPU: vr_view_gpu(&d); break;
    case VIZ_VIEW_SM: vr_view_sm(&d); break;
    case VIZ_VIEW_BREAKDOWN: vr_view_breakdown(&d); break;
    case VIZ_VIEW_MEASURED: vr_view_measured(&d); break;
    case VIZ_VIEW_OCCUPANCY: vr_view_occupancy(&d); break;
    case VIZ_VIEW_SOURCE: vr_view_source(&d); break;
    default: break;
    }
    legend(&d);
    toolbar(&d);
    status_bar(&d);
    if (s->help)
        help_overlay(&d);
}

void viz_render_hover(const viz_ctx *c, const viz_state *s, int x, int y, viz_hover *h)
{
    memset(h, 0, sizeof *h);
    h->sm = h->slot = h->block = h->warp = h->reason = h->lanes = -1;
    const viz_rect *p = &s->lay.plot;
    if (x < p->x || x >= p->x + p->w || y < p->y || y >= p->y + p->h)
        return;
    if (s->view == VIZ_VIEW_GPU || s->view == VIZ_VIEW_SM || s->view == VIZ_VIEW_MEASURED)
        vr_hover_timeline(c, s, x, y, h);
}
