/* viz_font: text for the viewer through SDL2_ttf.
 *
 * DejaVu Sans (and DejaVu Sans Mono for PTX) cover Latin text; DejaVu has no CJK glyphs, so a
 * string with CJK characters is drawn with WenQuanYi Micro Hei instead. Fonts are looked up in
 * $WARPLAB_FONT_DIR, then the Debian locations of fonts-dejavu-core and fonts-wqy-microhei.
 * Rendered strings are cached as textures (keyed by text, colour, style and size) so a frame
 * re-uses the labels of the last one instead of rasterising them again.
 */
#ifndef WL_VIZ_FONT_H
#define WL_VIZ_FONT_H

#include <SDL.h>

#include "diag.h"
#include "viz_palette.h"

typedef struct viz_font viz_font;

enum {
    VIZ_TEXT_MONO = 1, /* monospaced (PTX) */
    VIZ_TEXT_BOLD = 2,
    VIZ_TEXT_RIGHT = 4,  /* x is the right edge */
    VIZ_TEXT_CENTER = 8, /* x is the centre */
    VIZ_TEXT_SMALL = 16, /* 80 % size */
};

/* Opens the fonts at px pixels for drawing on r. WL_EUSAGE when no Latin font is found. */
wl_status viz_font_open(SDL_Renderer *r, int px, viz_font **out, diag_t *d);
void viz_font_close(viz_font *f);
/* Drops the cached textures (after SDL_RENDER_TARGETS_RESET / DEVICE_RESET lost them). */
void viz_font_reset(viz_font *f);
/* Changes the size (window resized); no-op when unchanged. */
void viz_font_resize(viz_font *f, int px);
int viz_font_px(const viz_font *f);
/* Line height of a style. */
int viz_font_height(viz_font *f, int style);
/* Width of text in a style. */
int viz_font_width(viz_font *f, const char *text, int style);
/* Draws text with its top at y; returns the width. */
int viz_font_draw(viz_font *f, int x, int y, const char *text, viz_rgb c, int style);
/* True when a CJK font was found (Chinese text can be shown). */
int viz_font_has_cjk(const viz_font *f);

#endif
