/* testutil: helpers shared by the cmocka tests. */
#ifndef WL_TESTUTIL_H
#define WL_TESTUTIL_H

#include <stddef.h>

typedef struct {
    int status; /* exit status; 128+signal when killed by a signal (a crash) */
    char *out;  /* captured stdout, NUL-terminated (never NULL) */
    char *err;  /* captured stderr, NUL-terminated (never NULL) */
} tu_result;

/* Runs $WARPLAB_BIN with the NULL-terminated argument list (argv[0] not included),
 * e.g. tu_warplab(&r, "occupancy", "--arch", "h200", NULL). Returns r->status. */
int tu_warplab(tu_result *r, ...);
/* Same with an argv array of n entries. */
int tu_warplabv(tu_result *r, int n, const char *const *args);
void tu_free(tu_result *r);

/* Path under the repository root ($WARPLAB_ROOT): returns a static buffer per call slot. */
const char *tu_path(const char *rel);
/* Reads a whole file; returns NULL if unreadable. *len gets its size. Caller frees. */
char *tu_read_file(const char *path, size_t *len);
/* A fresh temporary directory (mkdtemp; NULL on failure): it and what it holds are removed
 * when the test program exits. */
const char *tu_tmpdir(void);
/* Writes text to a new file NAME in a fresh tu_tmpdir(); its path goes to path (n bytes) and is
 * returned, NULL when it could not be written. */
const char *tu_tmpfile(const char *name, const char *text, char *path, size_t n);
/* True when an executable named tool is on $PATH (nvcc, ptxas: tests that need one skip
 * without it). */
int tu_have_tool(const char *tool);

#endif
