/* warplab: command-line entry point. Dispatches to one subcommand per file. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "wl_config.h"

typedef struct {
    const char *name;
    cli_fn fn;
    const char *summary;
} cli_command;

static const cli_command commands[] = {
    {"run", cmd_run, "simulate a PTX kernel launch and report what happened"},
    {"occupancy", cmd_occupancy, "blocks and warps per SM, the limiter, and what-if series"},
    {"view", cmd_view, "open the viewer on a trace (or render it to PNG)"},
    {"export", cmd_export, "convert a trace for Perfetto / chrome://tracing"},
    {"lesson", cmd_lesson, "list, run and check the classroom lessons"},
    {"validate", cmd_validate, "replay every measured case and compare with the model"},
    {"arch", cmd_arch, "list the GPU descriptions or print one"},
};

static void usage(FILE *f)
{
    fprintf(f, "warplab %s: a cycle-level model of NVIDIA GPU scheduling that runs real PTX\n\n",
            WL_VERSION);
    fprintf(f, "usage: warplab COMMAND [options]   (warplab COMMAND --help for details)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nexit status: 0 ok, 1 bad usage or input, 2 unsupported PTX, 3 fault in the\n"
               "simulated kernel, 4 deadlock or --max-cycles exceeded\n");
}

int cli_report(const diag_t *d)
{
    char buf[1600];
    diag_format(d, buf, sizeof buf);
    fprintf(stderr, "warplab: %s\n", buf);
    return d->status ? (int)d->status : WL_EUSAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "warplab %s: error: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (try: warplab %s --help)\n", cmd);
    va_end(ap);
    return WL_EUSAGE;
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    return 0;
}

const char *cli_root_dir(void)
{
    const char *e = getenv("WARPLAB_ROOT");
    return (e && *e) ? e : WL_SOURCE_ROOT;
}

const char *cli_arch_dir(void)
{
    static char buf[4096]; /* read-only after first call; the CLI is single-threaded */
    const char *e = getenv("WARPLAB_ARCH_DIR");
    if (e && *e)
        return e;
    snprintf(buf, sizeof buf, "%s/sim/arch", cli_root_dir());
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return argc < 2 ? WL_EUSAGE : WL_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("warplab %s\n", WL_VERSION);
        return WL_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "warplab: error: unknown command '%s' (commands: run, occupancy, view, export, "
                    "lesson, validate, arch; try: warplab --help)\n", argv[1]);
    return WL_EUSAGE;
}
