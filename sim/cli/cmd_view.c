/* `warplab view`: the SDL2 viewer (viz/), or a clear message when warplab was built without it.
 *
 * The viewer lives in libwarplab_viz (viz/viz_app.h: viz_main), linked in and announced by
 * WL_HAVE_VIEWER only when SDL2, SDL2_ttf and SDL2_image were found at configure time, so sim/
 * and the rest of the command line build and run without SDL. */
#include <stdio.h>

#include "cli.h"

#ifdef WL_HAVE_VIEWER
#include "viz_app.h"
#endif

static const char view_usage[] =
    "usage: warplab view TRACE [--measured FILE.json] [--png OUT.png [--view NAME] [--size WxH]]\n"
    "       warplab view KERNEL.ptx --kernel NAME ...run options... [--measured FILE.json]\n"
    "\n"
    "Opens the viewer on a trace written by `warplab run ... --trace FILE` (or simulates the\n"
    "kernel first). --png renders one view to a PNG without a window; NAME is one of gpu, sm,\n"
    "breakdown, measured, occupancy, source (default gpu); --size defaults to 1366x768.\n"
    "\n"
    "  --sm N          the SM of the sm view (default 0)\n"
    "  --range A:B     show cycles A..B (default: the whole kernel)\n"
    "  --cursor C      put the cycle cursor at C (source view: highlights that warp's line)\n"
    "  --reason NAME   highlight one stall reason (Nsight name), grey the others\n"
    "  --sched K       show only scheduler K's warps in the sm view\n"
    "  --per-warp      measured view: the warps of SM --sm instead of every SM's blocks\n"
    "  --regs N, --smem BYTES   the launch's registers / shared memory for the occupancy view\n"
    "                  (default: ptxas -v on the trace's PTX when available)\n"
    "  --lang en|zh    language of the legend descriptions and the help\n"
    "  --show-help     draw the key help over the view (for --png)\n"
    "Keys are listed by F1 in the window and in docs/viewer.md.\n";

int cmd_view(int argc, char **argv)
{
#ifdef WL_HAVE_VIEWER
    if (cli_wants_help(argc, argv)) {
        printf("%s", view_usage);
        return WL_OK;
    }
    viz_host host = {cli_arch_dir(), cli_root_dir(), cmd_run};
    return viz_main(argc, argv, &host);
#else
    if (cli_wants_help(argc, argv)) {
        printf("%s\nstatus: this warplab was built without the viewer.\n", view_usage);
        return WL_OK;
    }
    fprintf(stderr, "warplab view: error: this warplab was built without the viewer (it needs "
                    "SDL2, SDL2_ttf and SDL2_image: install them and reconfigure with "
                    "-Dviewer=enabled)\n");
    return WL_EUSAGE;
#endif
}
