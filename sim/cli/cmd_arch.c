/* Placeholder until this subcommand's module lands; replaced by its owner. */
#include <stdio.h>

#include "cli.h"

int cmd_arch(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("usage: warplab arch ... (not implemented yet)\n");
        return WL_OK;
    }
    fprintf(stderr, "warplab arch: not implemented yet\n");
    return WL_EUSAGE;
}
