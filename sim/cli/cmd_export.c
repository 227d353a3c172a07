/* warplab export TRACE --chrome OUT.json: a trace file (run --trace) as Chrome trace-event JSON
 * for Perfetto (ui.perfetto.dev) or chrome://tracing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "trace.h"

static const char usage[] =
    "usage: warplab export TRACE --chrome OUT.json\n\n"
    "  TRACE           a trace written by `warplab run ... --trace TRACE`\n"
    "  --chrome FILE   write Chrome trace-event JSON (open it in ui.perfetto.dev):\n"
    "                  one process per SM, one thread per warp slot, warp states as spans\n"
    "                  named by stall reason, issues as instants with their PTX line,\n"
    "                  blocks as async spans; times in microseconds at the SM clock\n";

int cmd_export(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("%s", usage);
        return WL_OK;
    }
    const char *in = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--chrome") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("export", "--chrome needs an output file");
            if (out)
                return cli_usage_error("export", "--chrome given twice");
            out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("export", "unknown option '%s' (see warplab export --help)",
                                   argv[i]);
        } else if (in) {
            return cli_usage_error("export", "more than one trace file ('%s', '%s')", in,
                                   argv[i]);
        } else {
            in = argv[i];
        }
    }
    if (!in || !out)
        return cli_usage_error("export", "need TRACE and --chrome OUT.json (see warplab export "
                               "--help)");
    trace_t t;
    diag_t d;
    diag_clear(&d);
    if (trace_open_read(in, &t, &d) != WL_OK)
        return cli_report(&d);
    FILE *f = strcmp(out, "-") == 0 ? stdout : fopen(out, "w");
    if (!f) {
        int e = errno;
        trace_close(&t);
        return cli_usage_error("export", "cannot write '%s': %s", out, strerror(e));
    }
    int bad = trace_write_chrome(&t, f);
    if (f != stdout && fclose(f) != 0)
        bad = -1;
    trace_close(&t);
    if (bad)
        return cli_usage_error("export", "error writing '%s'", out);
    return WL_OK;
}
