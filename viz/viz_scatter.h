/* viz_scatter: a log-log scatter plot rendered headless to PNG (docs/validation.md's
 * predicted-vs-measured figure). Same machinery as viz_png: an SDL_Surface with SDL's software
 * renderer, text through viz_font, saved with SDL2_image; no window, no video driver.
 *
 * Both axes share one logarithmic scale spanning whole decades around the data, so the diagonal
 * (prediction = measurement) runs corner to corner; two thinner lines mark +-15 %. Points within
 * the band are green, the others red and labelled with their names. */
#ifndef WL_VIZ_SCATTER_H
#define WL_VIZ_SCATTER_H

#include <SDL.h>

#include "diag.h"

#define VIZ_SCATTER_W 960
#define VIZ_SCATTER_H 860

typedef struct {
    const double *x, *y;        /* n points, > 0 (others are skipped) */
    const char *const *labels;  /* n names or NULL */
    int n;
    const char *title, *xlabel, *ylabel;
    double band;                /* relative band around the diagonal, e.g. 0.15 */
} viz_scatter_data;

/* Decades covered by the positive values of x and y: 10^lo .. 10^hi, hi > lo. 0 ok, -1 when no
 * value is positive. */
int viz_scatter_decades(const viz_scatter_data *p, int *lo, int *hi);
/* Pixel of value v on an axis of `len` pixels spanning decades lo..hi (0 at 10^lo). */
int viz_scatter_pos(double v, int lo, int hi, int len);
/* Draws the plot into a new VIZ_SCATTER_W x VIZ_SCATTER_H ARGB8888 surface (SDL_FreeSurface it);
 * NULL and d set on failure (no positive point, no font, out of memory). */
SDL_Surface *viz_scatter_draw(const viz_scatter_data *p, diag_t *d);
/* Draws and saves as PNG. */
wl_status viz_scatter_save(const viz_scatter_data *p, const char *path, diag_t *d);
/* Convenience for `warplab validate --png`: measured x, predicted y, +-15 % band. */
wl_status viz_scatter_png(const char *path, const double *x, const double *y,
                          const char *const *labels, int n, const char *title, const char *xlabel,
                          const char *ylabel, diag_t *d);

#endif
