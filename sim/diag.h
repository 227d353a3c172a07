/* diag: how library code reports errors.
 *
 * Library code never prints, aborts or exits on bad input. It fills a diag_t with
 * a status (the exit code the command line will use), a position and a one-line
 * message, and returns the status. The command line prints it as
 *   FILE:LINE:COL: error: MESSAGE
 * (position parts omitted when unknown) and exits with the status.
 */
#ifndef WL_DIAG_H
#define WL_DIAG_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses of the command-line contract (../shared/DESIGN.md). */
typedef enum {
    WL_OK = 0,
    WL_EUSAGE = 1,       /* bad usage, unreadable or malformed input */
    WL_EUNSUPPORTED = 2, /* PTX construct the simulator does not support yet */
    WL_EFAULT = 3,       /* fault inside the simulated kernel (like compute-sanitizer) */
    WL_EDEADLOCK = 4,    /* barrier deadlock or --max-cycles exceeded */
} wl_status;

typedef struct {
    wl_status status;
    char file[256]; /* empty when not tied to a file */
    int line;       /* 1-based; 0 when unknown */
    int col;        /* 1-based; 0 when unknown */
    char msg[1024];
} diag_t;

void diag_clear(diag_t *d);

/* Records the error and returns its status, so callers can `return diag_set(...)`.
 * file may be NULL; line/col may be 0. */
wl_status diag_set(diag_t *d, wl_status status, const char *file, int line, int col,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
wl_status diag_vset(diag_t *d, wl_status status, const char *file, int line, int col,
                    const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

/* Writes "file:line:col: error: msg" (parts present only) into buf. */
void diag_format(const diag_t *d, char *buf, unsigned long size);

#ifdef __cplusplus
}
#endif

#endif
