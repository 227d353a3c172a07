/* viz_render: draws one frame of any view onto an SDL_Renderer.
 *
 * The same code draws into the window and, headless, into an SDL_Surface through SDL's software
 * renderer (viz_png). A frame depends only on the model, the context (arch and launch numbers
 * for the occupancy view, language) and the input state, so tests can render a view and look
 * at its pixels. Timelines are drawn from the model's level-of-detail index: the cost of a
 * frame grows with the window's pixels, not with the number of events.
 */
#ifndef WL_VIZ_RENDER_H
#define WL_VIZ_RENDER_H

#include <SDL.h>

#include "arch.h"
#include "occupancy.h"
#include "viz_font.h"
#include "viz_input.h"
#include "viz_model.h"

typedef struct {
    const viz_model *m;
    int has_arch;
    arch_t arch;        /* for the occupancy view */
    occ_input occ;      /* the launch: block size, registers, shared memory */
    char regs_note[64]; /* where the register count came from */
    const char *lang;   /* "en" or "zh": legend descriptions */
} viz_ctx;

/* What is under the mouse (or the cursor) in the current view. */
typedef struct {
    int valid;
    int sm, slot, block, warp, reason, lanes;
    uint32_t line;
    uint64_t cycle;
    char text[512]; /* one line for the status bar */
} viz_hover;

/* Draws the whole window: toolbar, the view, legend, status bar, help overlay. */
void viz_render_frame(SDL_Renderer *r, viz_font *f, const viz_ctx *c, const viz_state *s);

/* What lies at window position (x, y) in the current view. */
void viz_render_hover(const viz_ctx *c, const viz_state *s, int x, int y, viz_hover *h);

/* SM view geometry: the y and height of a warp slot's row (0 height when filtered out or never
 * used on this SM), and
 * the slot at window y (-1 if none). GPU view: the SM row at y (-1 if none). */
void viz_render_sm_row(const viz_ctx *c, const viz_state *s, int slot, int *y, int *h);
int viz_render_slot_at(const viz_ctx *c, const viz_state *s, int y);
int viz_render_gpu_sm_at(const viz_ctx *c, const viz_state *s, int y);

#endif
