/* viz_render internals shared by viz_render.c (frame, toolbar, legend, axis, help),
 * viz_render_tl.c (GPU, SM and measured timelines) and viz_render_ch.c (breakdown,
 * occupancy and source views). Not a public interface. */
#ifndef WL_VIZ_RENDER_INT_H
#define WL_VIZ_RENDER_INT_H

#include "viz_render.h"

typedef struct {
    SDL_Renderer *r;
    viz_font *f;
    const viz_ctx *c;
    const viz_model *m;
    const viz_state *s;
    const viz_layout *L;
} viz_draw;

void vr_fill(const viz_draw *d, int x, int y, int w, int h, viz_rgb c);
void vr_blend(const viz_draw *d, int x, int y, int w, int h, viz_rgb c, uint8_t alpha);
void vr_frame(const viz_draw *d, int x, int y, int w, int h, viz_rgb c);
void vr_line(const viz_draw *d, int x0, int y0, int x1, int y1, viz_rgb c);
int vr_text(const viz_draw *d, int x, int y, const char *t, int color, int style);
viz_rgb vr_ui(int which);
/* A reason's colour, greyed out when a reason filter hides it. */
viz_rgb vr_reason(const viz_draw *d, int reason);
/* The time axis over the plot; unit "cyc" or "us". */
void vr_time_axis(const viz_draw *d, int y);
/* Vertical cursor line over [y0, y1). */
void vr_cursor(const viz_draw *d, int y0, int y1);
/* "12.3k" style numbers. */
void vr_num(char *buf, size_t cap, double v);
/* A message centred in the plot. */
void vr_message(const viz_draw *d, const char *line1, const char *line2);

void vr_view_gpu(const viz_draw *d);
void vr_view_sm(const viz_draw *d);
void vr_view_measured(const viz_draw *d);
void vr_view_breakdown(const viz_draw *d);
void vr_view_occupancy(const viz_draw *d);
void vr_view_source(const viz_draw *d);
/* Legend of the GPU / measured views (waves, tail, measured). */
void vr_legend_blocks(const viz_draw *d, int y);

void vr_hover_timeline(const viz_ctx *c, const viz_state *s, int x, int y, viz_hover *h);

#endif
