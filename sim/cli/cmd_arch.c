/* warplab arch [list | NAME]: the GPU descriptions in sim/arch/ (or $WARPLAB_ARCH_DIR). */
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: warplab arch [list | NAME]\n\n"
               "  list    one line per GPU description: name, compute capability, SMs, clock\n"
               "  NAME    every number of that GPU, grouped by section, with units\n"
               "          (the data file is sim/arch/NAME.ini; $WARPLAB_ARCH_DIR overrides the "
               "folder)\n");
}

static int list_all(const char *dir)
{
    char names[64][ARCH_NAME_MAX];
    int n = arch_list(dir, names, 64);
    if (n < 0)
        return cli_usage_error("arch", "cannot read the arch directory '%s'", dir);
    int status = WL_OK;
    for (int i = 0; i < n; i++) {
        arch_t a;
        diag_t d;
        diag_clear(&d);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
        if (arch_load_file(path, &a, &d) != WL_OK)
            status = cli_report(&d);
        else
            arch_print_summary(&a, stdout);
    }
    return status;
}

int cmd_arch(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return WL_OK;
    }
    if (argc > 2)
        return cli_usage_error("arch", "expected at most one argument, got %d", argc - 1);
    const char *dir = cli_arch_dir();
    if (argc == 1 || !strcmp(argv[1], "list"))
        return list_all(dir);
    if (argv[1][0] == '-')
        return cli_usage_error("arch", "unknown option '%s'", argv[1]);
    arch_t a;
    diag_t d;
    diag_clear(&d);
    if (arch_load(dir, argv[1], &a, &d) != WL_OK)
        return cli_report(&d);
    arch_print(&a, stdout);
    return WL_OK;
}
