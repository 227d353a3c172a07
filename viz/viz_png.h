/* viz_png: renders a view without a window, onto an SDL_Surface through SDL's software
 * renderer, and saves it as PNG with SDL2_image. Needs no display and no video driver, so it
 * runs in CI, in docs scripts and on a headless GPU machine. */
#ifndef WL_VIZ_PNG_H
#define WL_VIZ_PNG_H

#include <SDL.h>

#include "diag.h"
#include "viz_render.h"

/* Draws the state's view at its window size into a new ARGB8888 surface (free with
 * SDL_FreeSurface). NULL and d set on failure (no font, out of memory). */
SDL_Surface *viz_png_draw(const viz_ctx *c, const viz_state *s, diag_t *d);
/* viz_png_draw, then IMG_SavePNG to path. */
wl_status viz_png_render(const viz_ctx *c, const viz_state *s, const char *path, diag_t *d);
/* The pixel at (x, y) of a surface made by viz_png_draw. */
viz_rgb viz_png_pixel(const SDL_Surface *surf, int x, int y);

#endif
