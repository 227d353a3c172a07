/* Subcommands whose issue has not landed yet. Each says so plainly and exits 1.
 * Remove a stub from this file when its real cmd_<name>.c arrives. */
#include <stdio.h>

#include "cli.h"

static int not_yet(const char *name, const char *usage_text, const char *what, int argc,
                   char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("%s", usage_text);
        printf("\nstatus: not implemented yet (%s).\n", what);
        return WL_OK;
    }
    fprintf(stderr, "warplab %s: not implemented yet (%s)\n", name, what);
    return WL_EUSAGE;
}

int cmd_validate(int argc, char **argv)
{
    return not_yet("validate", "usage: warplab validate --arch NAME\n",
                   "validation arrives with the calibration issue", argc, argv);
}
