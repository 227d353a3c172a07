/* viz_input: the viewer's interaction as a state machine, without SDL.
 *
 * The window loop (viz_app) turns SDL events into viz_ev and feeds them here; tests feed
 * synthetic ones. The state holds everything a frame depends on besides the model: the view,
 * the visible time range (left edge + cycles per pixel), the cursor cycle that stepping and
 * playing move, the selected SM and the filters, the hovered position and the help overlay.
 * The layout (toolbar, plot, legend, status bar) is a pure function of the window size so that
 * input and drawing agree on what is under the mouse.
 */
#ifndef WL_VIZ_INPUT_H
#define WL_VIZ_INPUT_H

#include <stdint.h>

typedef enum {
    VIZ_VIEW_GPU,
    VIZ_VIEW_SM,
    VIZ_VIEW_BREAKDOWN,
    VIZ_VIEW_MEASURED,
    VIZ_VIEW_OCCUPANCY,
    VIZ_VIEW_SOURCE,
    VIZ_VIEW_COUNT
} viz_view;

/* "gpu", "sm", "breakdown", "measured", "occupancy", "source"; -1 for an unknown name. */
const char *viz_view_name(int view);
int viz_view_from_name(const char *name);

/* Keys: printable ASCII as themselves, the rest from here. */
enum {
    VIZ_K_LEFT = 256,
    VIZ_K_RIGHT,
    VIZ_K_UP,
    VIZ_K_DOWN,
    VIZ_K_PAGEUP,
    VIZ_K_PAGEDOWN,
    VIZ_K_HOME,
    VIZ_K_END,
    VIZ_K_ESC,
    VIZ_K_F1
};

typedef enum {
    VIZ_EV_KEY,    /* key, shift */
    VIZ_EV_WHEEL,  /* dy (> 0: away from the user = zoom in), x, y: mouse */
    VIZ_EV_DOWN,   /* left button pressed at x, y */
    VIZ_EV_UP,     /* released at x, y */
    VIZ_EV_MOTION, /* mouse at x, y */
    VIZ_EV_RESIZE, /* w, h */
    VIZ_EV_TICK,   /* dt seconds passed (playing) */
} viz_ev_type;

typedef struct {
    viz_ev_type type;
    int key, shift;
    int x, y, dy;
    int w, h;
    double dt;
} viz_ev;

typedef struct {
    int x, y, w, h;
} viz_rect;

typedef struct {
    double scale; /* font and margin scale: 1 at 1366x768 */
    int font_px;  /* body text height */
    viz_rect toolbar, plot, legend, status;
    int button_w; /* toolbar buttons: VIZ_VIEW_COUNT of them from toolbar.x + pad */
    int pad;
} viz_layout;

typedef struct {
    viz_view view;
    int win_w, win_h;
    double dpi_scale; /* extra scale from the display's DPI (1 = 96 dpi) */
    viz_layout lay;
    double extent;  /* cycles on the time axis (simulated end, or longer when measured is) */
    double t0, cpp; /* left edge (cycles) and cycles per pixel */
    int64_t cursor; /* the stepping cursor, cycles; -1 hidden */
    int playing;
    uint32_t sm_count, slots, scheds;
    int sm;            /* the SM shown in the SM view */
    int sched_filter;  /* -1: every scheduler */
    int warp_filter;   /* warp slot, -1: every slot */
    int reason_filter; /* stall reason, -1: every reason */
    int src_scroll;    /* first source line shown */
    int src_lines;     /* lines in the source (scroll limit) */
    int per_warp;      /* measured view: warps of one SM instead of every block */
    int hover_slot;    /* the warp slot last hovered in the SM view (-1: none), and when: */
    int64_t hover_cycle; /* the source view highlights that warp's line */
    int help;
    int dragging, drag_x;
    double drag_t0;
    int mouse_x, mouse_y;
    int quit;
} viz_state;

/* The layout of a w x h window (dpi: 1 for 96 dpi). */
viz_layout viz_layout_compute(int w, int h, double dpi);

/* A fresh state fitted to the whole kernel. */
void viz_state_init(viz_state *s, double extent_cycles, uint32_t sm_count, uint32_t slots,
                    uint32_t scheds, int w, int h);
/* Applies one event; returns 1 when the frame changed. */
int viz_input_handle(viz_state *s, const viz_ev *e);

/* Fit the whole time axis into the plot. */
void viz_input_fit(viz_state *s);
/* Cycle at window x (may be outside the kernel) and window x of a cycle. */
double viz_input_cycle_at(const viz_state *s, int x);
double viz_input_x_of(const viz_state *s, double cycle);
/* Toolbar button under (x, y), or -1. */
int viz_input_button_at(const viz_state *s, int x, int y);

#endif
