/* Placeholder until this subcommand's module lands; replaced by its owner. */
#include <stdio.h>

#include "cli.h"

int cmd_run(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: warplab run ... (not implemented yet)\n");
        return WL_OK;
    }
    fprintf(stderr, "warplab run: not implemented yet\n");
    return WL_EUSAGE;
}
