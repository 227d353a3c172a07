/* viz_palette: colours (see viz_palette.h). */
#include "viz_palette.h"

#include <stdio.h>

#include "stall.h"

/* Indexed by stall.h order. */
static const viz_rgb reason_colors[STALL_COUNT] = {
    [STALL_SELECTED] = {0x1a, 0x98, 0x50},           /* green: issued */
    [STALL_NOT_SELECTED] = {0xa6, 0xd9, 0x6a},       /* pale green: ready, not picked */
    [STALL_LONG_SCOREBOARD] = {0xe0, 0x31, 0x2b},    /* red: global/local memory */
    [STALL_SHORT_SCOREBOARD] = {0xe7, 0x4e, 0xb4},   /* magenta: shared memory, SFU */
    [STALL_WAIT] = {0xf6, 0xe0, 0x6e},               /* yellow: fixed latency */
    [STALL_BARRIER] = {0xf5, 0x8b, 0x1f},            /* orange: __syncthreads */
    [STALL_MEMBAR] = {0x9c, 0x5b, 0x2a},             /* brown: fence */
    [STALL_MIO_THROTTLE] = {0x8e, 0x5e, 0xc9},       /* purple: MIO queue full */
    [STALL_LG_THROTTLE] = {0xc3, 0xa5, 0xe8},        /* lilac: LSU queue full */
    [STALL_MATH_PIPE_THROTTLE] = {0x2f, 0x6f, 0xd0}, /* blue: pipe busy */
    [STALL_DISPATCH_STALL] = {0x7f, 0xc6, 0xf0},     /* light blue */
    [STALL_NO_INSTRUCTION] = {0x9e, 0x9e, 0x9e},     /* grey */
    [STALL_BRANCH_RESOLVING] = {0x2a, 0xb7, 0xa9},   /* teal */
    [STALL_DRAIN] = {0x6e, 0x6e, 0x6e},              /* dark grey */
    [STALL_SLEEPING] = {0xd8, 0xd8, 0xc0},           /* pale stone */
    [STALL_MISC] = {0x4f, 0x58, 0x66},               /* slate */
};

viz_rgb viz_palette_reason(int reason)
{
    if (reason < 0 || reason >= STALL_COUNT)
        return (viz_rgb){0x80, 0x80, 0x80};
    return reason_colors[reason];
}

void viz_palette_hex(int reason, char *buf)
{
    viz_rgb c = viz_palette_reason(reason);
    snprintf(buf, 8, "#%02x%02x%02x", c.r, c.g, c.b);
}

static const viz_rgb ui_colors[VIZ_C_COUNT] = {
    [VIZ_C_BG] = {0x16, 0x19, 0x1f},      [VIZ_C_PANEL] = {0x22, 0x26, 0x2e},
    [VIZ_C_GRID] = {0x3a, 0x40, 0x4c},    [VIZ_C_TEXT] = {0xe8, 0xea, 0xee},
    [VIZ_C_DIM] = {0x9a, 0xa2, 0xb0},     [VIZ_C_ACCENT] = {0x4d, 0xd0, 0xe1},
    [VIZ_C_WAVE_A] = {0x4c, 0x78, 0xa8},  [VIZ_C_WAVE_B] = {0x7a, 0xa6, 0xd6},
    [VIZ_C_TAIL] = {0xf2, 0xb7, 0x01},    [VIZ_C_MEASURED] = {0xb0, 0x7a, 0xa1},
    [VIZ_C_TOOLBAR] = {0x2c, 0x31, 0x3b},
};

viz_rgb viz_palette_ui(int which)
{
    if (which < 0 || which >= VIZ_C_COUNT)
        return ui_colors[VIZ_C_TEXT];
    return ui_colors[which];
}
