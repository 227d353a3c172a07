/* viz_palette: the one colour table of the viewer (views, legend, docs/viewer.md use it).
 *
 * One colour per Nsight Compute stall reason, chosen so the reasons a student meets most are
 * told apart at a glance and, as far as 16 colours allow, by colour-blind readers too (the main
 * pairs differ in lightness, not only in hue): issuing is green (selected; not_selected a pale
 * green: ready, but another warp won), waiting on memory is red (long_scoreboard) or magenta
 * (short_scoreboard), synchronisation is orange (barrier) or brown (membar), full queues are
 * purples and blues, and the rare reasons are greys. The background is dark so light and
 * saturated colours both stand out.
 */
#ifndef WL_VIZ_PALETTE_H
#define WL_VIZ_PALETTE_H

#include <stdint.h>

typedef struct {
    uint8_t r, g, b;
} viz_rgb;

/* Colour of a stall reason (stall.h index); a neutral grey for anything else. */
viz_rgb viz_palette_reason(int reason);
/* "#rrggbb" of a reason (docs). buf >= 8 bytes. */
void viz_palette_hex(int reason, char *buf);

/* Interface colours. */
enum {
    VIZ_C_BG,       /* window background */
    VIZ_C_PANEL,    /* plot area */
    VIZ_C_GRID,     /* grid lines */
    VIZ_C_TEXT,     /* normal text */
    VIZ_C_DIM,      /* secondary text */
    VIZ_C_ACCENT,   /* selection, cursor */
    VIZ_C_WAVE_A,   /* GPU view: blocks of even waves */
    VIZ_C_WAVE_B,   /* ... odd waves */
    VIZ_C_TAIL,     /* blocks of the partial last wave */
    VIZ_C_MEASURED, /* measured blocks */
    VIZ_C_TOOLBAR,
    VIZ_C_COUNT
};
viz_rgb viz_palette_ui(int which);

#endif
