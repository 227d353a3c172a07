/* viz_scatter: headless log-log scatter plot; see viz_scatter.h. */
#include "viz_scatter.h"

#include <math.h>
#include <stdio.h>

#include <SDL_image.h>

#include "stall.h"
#include "viz_font.h"
#include "viz_palette.h"

/* plot area inside the image */
#define ML 100
#define MR 40
#define MT 70
#define MB 80

int viz_scatter_decades(const viz_scatter_data *p, int *lo, int *hi)
{
    double mn = INFINITY, mx = -INFINITY;
    for (int i = 0; i < p->n; i++)
        for (int k = 0; k < 2; k++) {
            double v = k ? p->y[i] : p->x[i];
            if (v > 0 && isfinite(v)) {
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
            }
        }
    if (!(mn <= mx))
        return -1;
    *lo = (int)floor(log10(mn));
    *hi = (int)ceil(log10(mx));
    if (*hi <= *lo)
        *hi = *lo + 1;
    return 0;
}

int viz_scatter_pos(double v, int lo, int hi, int len)
{
    return (int)lround((log10(v) - lo) / (double)(hi - lo) * len);
}

static void color(SDL_Renderer *r, viz_rgb c)
{
    SDL_SetRenderDrawColor(r, c.r, c.g, c.b, 255);
}

static void disc(SDL_Renderer *r, int cx, int cy, int rad)
{
    for (int dy = -rad; dy <= rad; dy++) {
        int dx = (int)sqrt((double)(rad * rad - dy * dy));
        SDL_RenderDrawLine(r, cx - dx, cy + dy, cx + dx, cy + dy);
    }
}

/* The line y = k x across the plot (clipped to the square). */
static void ratio_line(SDL_Renderer *r, double k, int lo, int hi, int w, int h)
{
    double a = pow(10, lo), b = pow(10, hi);
    double x0 = k > 1 ? a : a / k, x1 = k > 1 ? b / k : b;
    SDL_RenderDrawLine(r, ML + viz_scatter_pos(x0, lo, hi, w), MT + h - viz_scatter_pos(k * x0, lo, hi, h),
                       ML + viz_scatter_pos(x1, lo, hi, w), MT + h - viz_scatter_pos(k * x1, lo, hi, h));
}

static void draw(SDL_Renderer *r, viz_font *f, const viz_scatter_data *p, int lo, int hi)
{
    const int w = VIZ_SCATTER_W - ML - MR, h = VIZ_SCATTER_H - MT - MB;
    color(r, viz_palette_ui(VIZ_C_BG));
    SDL_RenderClear(r);
    color(r, viz_palette_ui(VIZ_C_PANEL));
    SDL_RenderFillRect(r, &(SDL_Rect){ML, MT, w, h});
    viz_rgb text = viz_palette_ui(VIZ_C_TEXT), dim = viz_palette_ui(VIZ_C_DIM);
    viz_rgb grid = viz_palette_ui(VIZ_C_GRID), panel = viz_palette_ui(VIZ_C_PANEL);
    viz_rgb minor = {(uint8_t)((grid.r + panel.r) / 2), (uint8_t)((grid.g + panel.g) / 2),
                     (uint8_t)((grid.b + panel.b) / 2)}; /* 2x and 5x lines */
    /* grid: decades (labelled) and 2x, 5x */
    static const int mult[] = {1, 2, 5};
    for (int e = lo; e <= hi; e++)
        for (int mi = 0; mi < 3; mi++) {
            int m = mult[mi];
            double v = m * pow(10, e);
            if (v > pow(10, hi) * 1.0001)
                break;
            int px = viz_scatter_pos(v, lo, hi, w), py = viz_scatter_pos(v, lo, hi, h);
            color(r, m == 1 ? grid : minor);
            SDL_RenderDrawLine(r, ML + px, MT, ML + px, MT + h);
            SDL_RenderDrawLine(r, ML, MT + h - py, ML + w, MT + h - py);
            if (m == 1) {
                char lab[32];
                snprintf(lab, sizeof lab, "%g", v);
                viz_font_draw(f, ML + px, MT + h + 6, lab, text, VIZ_TEXT_CENTER);
                viz_font_draw(f, ML - 8, MT + h - py - viz_font_height(f, 0) / 2, lab, text,
                              VIZ_TEXT_RIGHT);
            }
        }
    /* diagonal and band */
    color(r, dim);
    if (p->band > 0) {
        ratio_line(r, 1 + p->band, lo, hi, w, h);
        ratio_line(r, 1 - p->band, lo, hi, w, h);
    }
    color(r, viz_palette_ui(VIZ_C_ACCENT));
    ratio_line(r, 1.0, lo, hi, w, h);
    /* points: inside the band first, the labelled outliers on top */
    viz_rgb in = viz_palette_reason(STALL_SELECTED), out = viz_palette_reason(STALL_LONG_SCOREBOARD);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->n; i++) {
            double x = p->x[i], y = p->y[i];
            if (!(x > 0 && y > 0 && isfinite(x) && isfinite(y)))
                continue;
            int outside = fabs(y / x - 1) > p->band;
            if (outside != pass)
                continue;
            int px = ML + viz_scatter_pos(x, lo, hi, w), py = MT + h - viz_scatter_pos(y, lo, hi, h);
            color(r, outside ? out : in);
            disc(r, px, py, 5);
            if (outside && p->labels && p->labels[i])
                viz_font_draw(f, px + 8, py - viz_font_height(f, VIZ_TEXT_SMALL) / 2, p->labels[i],
                              text, VIZ_TEXT_SMALL);
        }
    if (p->title)
        viz_font_draw(f, VIZ_SCATTER_W / 2, 20, p->title, text, VIZ_TEXT_CENTER | VIZ_TEXT_BOLD);
    if (p->xlabel)
        viz_font_draw(f, ML + w / 2, VIZ_SCATTER_H - 40, p->xlabel, text, VIZ_TEXT_CENTER);
    if (p->ylabel)
        viz_font_draw(f, ML, MT - 26, p->ylabel, text, 0);
    char note[96];
    snprintf(note, sizeof note, "diagonal: predicted = measured;  thin lines: +-%.0f%%",
             p->band * 100);
    viz_font_draw(f, ML + w, MT - 26, note, dim, VIZ_TEXT_RIGHT | VIZ_TEXT_SMALL);
}

SDL_Surface *viz_scatter_draw(const viz_scatter_data *p, diag_t *d)
{
    int lo, hi;
    if (viz_scatter_decades(p, &lo, &hi)) {
        diag_set(d, WL_EUSAGE, NULL, 0, 0, "scatter plot: no point with positive coordinates");
        return NULL;
    }
    SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, VIZ_SCATTER_W, VIZ_SCATTER_H, 32,
                                                       SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = surf ? SDL_CreateSoftwareRenderer(surf) : NULL;
    viz_font *f = NULL;
    if (!r || viz_font_open(r, 16, &f, d)) {
        if (!r)
            diag_set(d, WL_EUSAGE, NULL, 0, 0, "software renderer: %s", SDL_GetError());
        if (r)
            SDL_DestroyRenderer(r);
        SDL_FreeSurface(surf);
        return NULL;
    }
    draw(r, f, p, lo, hi);
    SDL_RenderPresent(r);
    viz_font_close(f);
    SDL_DestroyRenderer(r);
    return surf;
}

wl_status viz_scatter_save(const viz_scatter_data *p, const char *path, diag_t *d)
{
    SDL_Surface *surf = viz_scatter_draw(p, d);
    if (!surf)
        return d->status;
    int rc = IMG_SavePNG(surf, path);
    SDL_FreeSurface(surf);
    if (rc != 0)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "cannot write the PNG: %s", IMG_GetError());
    return WL_OK;
}

wl_status viz_scatter_png(const char *path, const double *x, const double *y,
                          const char *const *labels, int n, const char *title, const char *xlabel,
                          const char *ylabel, diag_t *d)
{
    viz_scatter_data p = {.x = x, .y = y, .labels = labels, .n = n, .title = title,
                          .xlabel = xlabel, .ylabel = ylabel, .band = 0.15};
    return viz_scatter_save(&p, path, d);
}
