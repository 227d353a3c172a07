/* viz_render_ch: the chart views. Breakdown (stall reasons as stacked bars for the kernel, the
 * measured Nsight Compute breakdown, and every SM), occupancy (the three "impact of varying"
 * curves with the launch's point and limiter) and source (PTX lines with issue and stall
 * counts, the CUDA line from .loc, the line the selected warp is on at the cursor). */
#include "viz_render_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stall.h"

/* One horizontal bar of shares (sums to 1 or 0) from x over w pixels. */
static void stacked(const viz_draw *d, int x, int y, int w, int h, const double *share)
{
    double acc = 0;
    for (int i = 0; i < VIZ_NREASON; i++) {
        int a = (int)lround(x + acc * w);
        acc += share[i];
        int b = (int)lround(x + acc * w);
        vr_fill(d, a, y, b - a, h, vr_reason(d, i));
    }
}

static void shares(const uint64_t *cyc, double *out)
{
    double sum = 0;
    for (int i = 0; i < VIZ_NREASON; i++)
        sum += (double)cyc[i];
    for (int i = 0; i < VIZ_NREASON; i++)
        out[i] = sum > 0 ? (double)cyc[i] / sum : 0;
}

/* Labels the biggest segments of a bar with their percentage when they are wide enough. */
static void bar_labels(const viz_draw *d, int x, int y, int w, const double *share)
{
    double acc = 0;
    for (int i = 0; i < VIZ_NREASON; i++) {
        char t[48];
        snprintf(t, sizeof t, "%s %.0f%%", stall_name(i), share[i] * 100);
        int seg = (int)(share[i] * w);
        if (seg > viz_font_width(d->f, t, VIZ_TEXT_SMALL) + 6)
            viz_font_draw(d->f, x + (int)((acc + share[i] / 2) * w), y, t,
                          (viz_rgb){0x10, 0x10, 0x10}, VIZ_TEXT_SMALL | VIZ_TEXT_CENTER);
        acc += share[i];
    }
}

void vr_view_breakdown(const viz_draw *d)
{
    const viz_model *m = d->m;
    const viz_rect *p = &d->L->plot;
    int lh = viz_font_height(d->f, 0), bh = 2 * lh, y = p->y - lh;
    double sh[VIZ_NREASON];
    vr_text(d, p->x, y,
            "Where the warp-cycles went: share of each warp state (resident warps x "
            "cycles)",
            VIZ_C_TEXT, VIZ_TEXT_BOLD);
    y += lh + d->L->pad;
    shares(m->kernel_reason, sh);
    vr_text(d, p->x - d->L->pad, y + (bh - lh) / 2, "simulated", VIZ_C_TEXT,
            VIZ_TEXT_RIGHT | VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
    stacked(d, p->x, y, p->w, bh, sh);
    bar_labels(d, p->x, y + (bh - lh) / 2, p->w, sh);
    y += bh + d->L->pad;
    if (m->meas && m->meas->has_stalls) {
        vr_text(d, p->x - d->L->pad, y + (bh - lh) / 2, "measured", VIZ_C_TEXT,
                VIZ_TEXT_RIGHT | VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
        stacked(d, p->x, y, p->w, bh, m->meas->stalls);
        bar_labels(d, p->x, y + (bh - lh) / 2, p->w, m->meas->stalls);
    } else {
        vr_fill(d, p->x, y, p->w, bh, vr_ui(VIZ_C_PANEL));
        vr_text(d, p->x + p->w / 2, y + (bh - lh) / 2,
                m->meas ? "the measured file has no Nsight Compute breakdown"
                        : "no measured file (--measured gpu/measured/h200/CASE.json)",
                VIZ_C_DIM, VIZ_TEXT_CENTER | VIZ_TEXT_SMALL);
    }
    y += bh + lh;
    vr_text(d, p->x, y, "per SM", VIZ_C_TEXT, VIZ_TEXT_BOLD | VIZ_TEXT_SMALL);
    y += lh;
    int avail = p->y + p->h - y;
    double rh = (double)avail / (m->sm_count ? m->sm_count : 1);
    int last = -1000, slh = viz_font_height(d->f, VIZ_TEXT_SMALL);
    for (uint32_t sm = 0; sm < m->sm_count; sm++) {
        int ry = y + (int)floor(sm * rh), h = (int)floor((sm + 1) * rh) - (int)floor(sm * rh);
        uint64_t sum = 0;
        for (int i = 0; i < VIZ_NREASON; i++)
            sum += m->sm_reason[(size_t)sm * VIZ_NREASON + i];
        if (!sum) {
            vr_fill(d, p->x, ry, p->w, h > 2 ? h - 1 : h, vr_ui(VIZ_C_PANEL));
        } else {
            shares(m->sm_reason + (size_t)sm * VIZ_NREASON, sh);
            stacked(d, p->x, ry, p->w, h > 2 ? h - 1 : h, sh);
        }
        if (ry - last >= slh) {
            char t[24];
            snprintf(t, sizeof t, "SM %u", sm);
            vr_text(d, p->x - d->L->pad, ry, t, VIZ_C_DIM, VIZ_TEXT_SMALL | VIZ_TEXT_RIGHT);
            last = ry;
        }
    }
}

/* ---- occupancy ------------------------------------------------------------------------------ */

static void occ_chart(const viz_draw *d, viz_rect r, occ_vary what, const char *title,
                      const char *xlabel, int current, int max_warps)
{
    occ_point pts[600];
    const viz_ctx *c = d->c;
    int n = occ_series(&c->arch, &c->occ, what, pts, 600);
    int lh = viz_font_height(d->f, VIZ_TEXT_SMALL);
    vr_text(d, r.x, r.y, title, VIZ_C_TEXT, VIZ_TEXT_BOLD | VIZ_TEXT_SMALL);
    viz_rect a = {r.x + 3 * lh, r.y + lh + d->L->pad, r.w - 3 * lh - 2 * d->L->pad,
                  r.h - 3 * lh - d->L->pad};
    vr_fill(d, a.x, a.y, a.w, a.h, vr_ui(VIZ_C_PANEL));
    if (n < 2 || max_warps <= 0)
        return;
    double xmax = pts[n - 1].value > 0 ? pts[n - 1].value : 1;
    for (int k = 0; k <= 4; k++) { /* y grid: 0, 25, 50, 75, 100 % */
        int y = a.y + a.h - a.h * k / 4;
        vr_line(d, a.x, y, a.x + a.w, y, vr_ui(VIZ_C_GRID));
        char t[16];
        snprintf(t, sizeof t, "%d%%", 25 * k);
        vr_text(d, a.x - d->L->pad, y - lh / 2, t, VIZ_C_DIM, VIZ_TEXT_SMALL | VIZ_TEXT_RIGHT);
    }
    char t[64];
    vr_num(t, sizeof t, 0);
    vr_text(d, a.x, a.y + a.h + 2, t, VIZ_C_DIM, VIZ_TEXT_SMALL);
    vr_num(t, sizeof t, xmax);
    vr_text(d, a.x + a.w, a.y + a.h + 2, t, VIZ_C_DIM, VIZ_TEXT_SMALL | VIZ_TEXT_RIGHT);
    vr_text(d, a.x + a.w / 2, a.y + a.h + 2, xlabel, VIZ_C_DIM, VIZ_TEXT_SMALL | VIZ_TEXT_CENTER);
    /* the curve as steps: occupancy holds until the next point */
    viz_rgb col = vr_ui(VIZ_C_WAVE_B);
    for (int i = 0; i + 1 < n; i++) {
        int x0 = a.x + (int)lround(a.w * pts[i].value / xmax);
        int x1 = a.x + (int)lround(a.w * pts[i + 1].value / xmax);
        int y0 = a.y + a.h - (int)lround(a.h * pts[i].occupancy);
        int y1 = a.y + a.h - (int)lround(a.h * pts[i + 1].occupancy);
        vr_fill(d, x0, y0 - 1, x1 - x0 + 1, 3, col);
        vr_fill(d, x1 - 1, y0 < y1 ? y0 : y1, 3, abs(y1 - y0) + 1, col);
    }
    /* the launch's own point */
    occ_result res;
    diag_t dg;
    occ_input in = c->occ;
    if (occ_compute(&c->arch, &in, &res, &dg) == WL_OK) {
        int x = a.x + (int)lround(a.w * current / xmax),
            y = a.y + a.h - (int)lround(a.h * res.occupancy);
        int rad = (int)(4 * d->L->scale) + 1;
        vr_fill(d, x - rad, y - rad, 2 * rad + 1, 2 * rad + 1, vr_ui(VIZ_C_TAIL));
        snprintf(t, sizeof t, "this launch: %d -> %.0f%%", current, res.occupancy * 100);
        int ty = y - lh - rad < a.y + lh ? y + rad + 2 : y - lh - rad; /* below it near the top */
        vr_text(d, x + 2 * rad < a.x + a.w * 2 / 3 ? x + 2 * rad : x - 2 * rad, ty, t, VIZ_C_TAIL,
                VIZ_TEXT_SMALL | VIZ_TEXT_BOLD |
                    (x + 2 * rad < a.x + a.w * 2 / 3 ? 0 : VIZ_TEXT_RIGHT));
    }
}

void vr_view_occupancy(const viz_draw *d)
{
    const viz_ctx *c = d->c;
    const viz_layout *L = d->L;
    viz_rect p = {2 * L->pad, L->toolbar.h + L->pad, L->toolbar.w - 4 * L->pad,
                  L->status.y - L->toolbar.h - 2 * L->pad};
    if (!c->has_arch) {
        vr_message(d, "No GPU description for this trace's arch.",
                   "The occupancy view needs sim/arch/<arch>.ini.");
        return;
    }
    occ_result res;
    diag_t dg;
    int lh = viz_font_height(d->f, 0);
    char t[320];
    if (occ_compute(&c->arch, &c->occ, &res, &dg) != WL_OK) {
        vr_message(d, "This launch's occupancy cannot be computed:", dg.msg);
        return;
    }
    snprintf(t, sizeof t,
             "%s: %d threads/block, %d registers/thread (%s), %d B shared/block  ->  "
             "%d blocks = %d warps per SM = %.1f%% occupancy, limited by %s",
             c->arch.name, c->occ.block_size, c->occ.regs_per_thread, c->regs_note,
             c->occ.static_smem + c->occ.dyn_smem, res.blocks_per_sm, res.warps_per_sm,
             res.occupancy * 100, occ_first_limiter(res.limiters));
    vr_text(d, p.x, p.y, t, VIZ_C_TEXT, VIZ_TEXT_BOLD);
    snprintf(t, sizeof t,
             "blocks per SM allowed by each limit: warps %d, registers %d, shared "
             "memory %d, blocks %d, barriers %d",
             res.limit_warps, res.limit_regs, res.limit_smem, res.limit_blocks, res.limit_barriers);
    vr_text(d, p.x, p.y + lh, t, VIZ_C_DIM, VIZ_TEXT_SMALL);
    int top = p.y + 3 * lh, h = p.y + p.h - top, w3 = p.w / 3;
    int maxw = c->arch.max_warps_per_sm;
    occ_chart(d, (viz_rect){p.x, top, w3, h}, OCC_VARY_BLOCK, "occupancy vs threads per block",
              "threads per block", c->occ.block_size, maxw);
    occ_chart(d, (viz_rect){p.x + w3, top, w3, h}, OCC_VARY_REGS,
              "occupancy vs registers per thread", "registers per thread", c->occ.regs_per_thread,
              maxw);
    occ_chart(d, (viz_rect){p.x + 2 * w3, top, w3, h}, OCC_VARY_SMEM,
              "occupancy vs shared memory per block", "bytes of shared memory per block",
              c->occ.static_smem + c->occ.dyn_smem, maxw);
}

/* ---- source ------------------------------------------------------------------------------- */

/* CUDA source line of PTX line `line` (1-based): the last ".loc FILE LINE COL" above it. */
static int cuda_line(const viz_model *m, size_t line)
{
    for (size_t i = line; i-- > 0 && line - i < 400;) {
        const char *s = m->lines[i];
        while (*s == ' ' || *s == '\t')
            s++;
        if (!strncmp(s, ".loc", 4)) {
            int f, l;
            if (sscanf(s + 4, "%d %d", &f, &l) == 2)
                return l;
        }
        if (!strncmp(s, ".entry", 6) || !strncmp(s, ".visible", 8))
            return 0;
    }
    return 0;
}

void vr_view_source(const viz_draw *d)
{
    const viz_model *m = d->m;
    const viz_state *s = d->s;
    const viz_layout *L = d->L;
    viz_rect p = {L->pad, L->toolbar.h + L->pad, L->legend.x - 2 * L->pad,
                  L->status.y - L->toolbar.h - 2 * L->pad};
    if (!m->nlines) {
        vr_message(d, "This trace embeds no PTX source.",
                   "Re-run `warplab run ... --trace` to get it.");
        return;
    }
    int lh = viz_font_height(d->f, VIZ_TEXT_MONO);
    /* the line the selected warp (slot filter, else slot 0) of the shown SM is on at the cursor */
    /* the warp: the one last hovered in the SM view, else the slot filter's (or slot 0) at the
     * cursor */
    uint32_t hot = 0;
    int64_t at = s->hover_slot >= 0 ? s->hover_cycle : s->cursor;
    if (at >= 0) {
        uint32_t sm = (uint32_t)s->sm < m->sm_count ? (uint32_t)s->sm : 0;
        uint32_t slot = s->hover_slot >= 0    ? (uint32_t)s->hover_slot
                        : s->warp_filter >= 0 ? (uint32_t)s->warp_filter
                                              : 0;
        const viz_issue *is = viz_model_issue_at(m, sm, slot, (uint64_t)at);
        if (is && is->cycle != (uint64_t)at)
            is = viz_model_next_issue(m, sm, slot, (uint64_t)at);
        hot = is ? is->line : 0;
        if (hot) {
            char t[96];
            snprintf(t, sizeof t, "highlighted: SM %u slot %u at cycle %lld", sm, slot,
                     (long long)at);
            vr_text(d, p.x + p.w, p.y, t, VIZ_C_ACCENT, VIZ_TEXT_SMALL | VIZ_TEXT_RIGHT);
        }
    }
    uint64_t max_stall = 1, max_issue = 1;
    for (size_t l = 1; l <= m->nlines; l++) {
        uint64_t st = 0;
        for (int i = 1; i < VIZ_NREASON; i++)
            st += m->line_stall[l * VIZ_NREASON + i];
        max_stall = st > max_stall ? st : max_stall;
        max_issue = m->line_issues[l] > max_issue ? m->line_issues[l] : max_issue;
    }
    int cw = viz_font_width(d->f, "0", VIZ_TEXT_MONO);
    int x_line = p.x, x_cu = x_line + 6 * cw, x_iss = x_cu + 7 * cw, x_bar = x_iss + 9 * cw;
    int bar_w = 16 * cw, x_txt = x_bar + bar_w + 2 * cw;
    vr_text(d, x_line, p.y, "PTX", VIZ_C_DIM, VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
    vr_text(d, x_cu, p.y, ".cu", VIZ_C_DIM, VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
    vr_text(d, x_iss, p.y, "issues", VIZ_C_DIM, VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
    vr_text(d, x_bar, p.y, "stalled warp-cycles", VIZ_C_DIM, VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
    vr_text(d, x_txt, p.y, "instruction (stalls are charged to the instruction waited on)",
            VIZ_C_DIM, VIZ_TEXT_SMALL | VIZ_TEXT_BOLD);
    int rows = (p.h - lh) / lh;
    for (int k = 0; k < rows; k++) {
        size_t l = (size_t)s->src_scroll + 1 + (size_t)k;
        if (l > m->nlines)
            break;
        int y = p.y + lh + k * lh;
        if (l == hot)
            vr_fill(d, p.x, y, p.w, lh, (viz_rgb){0x1f, 0x4e, 0x5a});
        char t[32];
        snprintf(t, sizeof t, "%zu", l);
        vr_text(d, x_line, y, t, VIZ_C_DIM, VIZ_TEXT_MONO);
        const char *first = m->lines[l - 1] + strspn(m->lines[l - 1], " \t");
        int cl = *first && !strchr(".${}/", *first) ? cuda_line(m, l) : 0; /* instructions */
        if (cl > 0) {
            snprintf(t, sizeof t, "%d", cl);
            vr_text(d, x_cu, y, t, VIZ_C_DIM, VIZ_TEXT_MONO);
        }
        if (m->line_issues[l]) {
            vr_num(t, sizeof t, (double)m->line_issues[l]);
            vr_text(d, x_iss, y, t, VIZ_C_TEXT, VIZ_TEXT_MONO);
        }
        double acc = 0;
        for (int i = 1; i < VIZ_NREASON; i++) {
            double v = (double)m->line_stall[l * VIZ_NREASON + i] / (double)max_stall * bar_w;
            int a = (int)lround(acc), b = (int)lround(acc + v);
            vr_fill(d, x_bar + a, y + 2, b - a, lh - 4, vr_reason(d, i));
            acc += v;
        }
        char ln[512];
        size_t n = 0;
        int fidx, cline;
        if (m->cu_lines && !strncmp(first, ".loc", 4) &&
            sscanf(first + 4, "%d %d", &fidx, &cline) == 2 && fidx == 1 && cline > 0 &&
            (size_t)cline <= m->ncu_lines) {
            /* a .loc line shows the CUDA line it stands for */
            const char *cu = m->cu_lines[cline - 1];
            cu += strspn(cu, " \t");
            snprintf(ln, sizeof ln, "// %s:%d  %s", m->cu_name, cline, cu);
            vr_text(d, x_txt, y, ln, VIZ_C_ACCENT, VIZ_TEXT_MONO);
            continue;
        }
        for (const char *q = m->lines[l - 1]; *q && n + 5 < sizeof ln; q++)
            if (*q == '\t')
                for (int sp = 0; sp < 4; sp++)
                    ln[n++] = ' ';
            else
                ln[n++] = *q;
        ln[n] = 0;
        vr_text(d, x_txt, y, ln, l == hot ? VIZ_C_TEXT : VIZ_C_DIM, VIZ_TEXT_MONO);
    }
}
