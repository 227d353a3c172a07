/* viz_app: `warplab view` -- argument parsing, loading, the window loop, and --png.
 *
 *   warplab view TRACE [--measured FILE.json] [--png OUT.png [--view NAME] [--size WxH]]
 *                      [--sm N] [--range A:B] [--cursor C] [--reason NAME] [--sched K]
 *                      [--regs N] [--smem BYTES] [--lang en|zh]
 *   warplab view KERNEL.ptx --kernel NAME ...run options...  (simulates with `run`, then shows)
 *
 * The window loop turns SDL events into viz_input events and redraws only when something
 * changed (or while playing); --png renders the same frame headless (viz_png).
 */
#ifndef WL_VIZ_APP_H
#define WL_VIZ_APP_H

/* What the command line provides: where the arch files are, and `warplab run` for the
 * simulate-then-view form (called with argv[0] = "run"; NULL: that form is unavailable). */
typedef struct {
    const char *arch_dir;
    const char *root_dir; /* the repository root: CUDA files named by the PTX are found there */
    int (*run)(int argc, char **argv);
} viz_host;

/* argv[0] is "view". Returns the exit status (0, 1 usage/input, or run's status). */
int viz_main(int argc, char **argv, const viz_host *host);

#endif
