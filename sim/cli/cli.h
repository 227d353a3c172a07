/* cli: the `warplab` command. One function per subcommand, each in cmd_<name>.c.
 * A subcommand gets argv with argv[0] = its own name, returns the exit status of
 * the contract in ../shared/DESIGN.md (see wl_status in diag.h). */
#ifndef WL_CLI_H
#define WL_CLI_H

#include <stdio.h>

#include "diag.h"

typedef int (*cli_fn)(int argc, char **argv);

int cmd_run(int argc, char **argv);
int cmd_occupancy(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_lesson(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_arch(int argc, char **argv);

/* Prints a diag as one line on stderr, prefixed "warplab: ", returns its status. */
int cli_report(const diag_t *d);
/* Prints "warplab CMD: MESSAGE" on stderr and returns WL_EUSAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when argv has -h or --help. */
int cli_wants_help(int argc, char **argv);

/* Directory holding the arch .ini files: $WARPLAB_ARCH_DIR, else the source tree's sim/arch. */
const char *cli_arch_dir(void);
/* The repository root (for gpu/, lessons/): $WARPLAB_ROOT, else the source tree. */
const char *cli_root_dir(void);

#endif
