/* cases: the case list of the GPU harness and the simulator tests (gpu/cases.txt,
 * gpu/cases-sim.txt; the grammar is documented at the top of gpu/cases.txt).
 *
 * One line is one launch, in the option grammar of `warplab run`:
 *   NAME  PTXFILE  --kernel K --grid X[,Y[,Z]] --block X[,Y[,Z]] [--smem N] --arg SPEC ...
 *         --check I:exact | --check I:rel=TOL | --check I:abs=TOL ...
 * Arguments are parsed and filled by sim/argspec.c, the same code `warplab run` uses, so the GPU,
 * the simulator and the CPU reference all start from identical bytes.
 * Plain C17 that also compiles as C++ (the CUDA harness includes this header).
 */
#ifndef WL_CASES_H
#define WL_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "argspec.h"
#include "diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CASES_MAX_ARGS 8
#define CASES_MAX_CHECKS 8

typedef enum { CASES_CHECK_EXACT, CASES_CHECK_REL, CASES_CHECK_ABS } cases_check_mode;

typedef struct {
    int arg;               /* 0-based parameter position; must be a buffer */
    cases_check_mode mode;
    double tol;            /* rel / abs tolerance; 0 for exact */
} cases_check;

typedef struct {
    char name[64];
    char ptx[256];         /* relative to the repository root, e.g. gpu/ptx/latency.ptx */
    char kernel[64];
    unsigned grid[3], block[3];
    unsigned smem;         /* dynamic shared memory bytes */
    int nargs;
    char argtext[CASES_MAX_ARGS][128]; /* the SPEC text as written */
    argspec args[CASES_MAX_ARGS];
    int nchecks;
    cases_check checks[CASES_MAX_CHECKS];
    int line;              /* line in the case file */
} cases_case;

typedef struct {
    cases_case *v;
    int n;
} cases_list;

/* Reads a case file. On error: WL_EUSAGE with FILE:LINE:COL in d; *out is then empty. */
wl_status cases_load(const char *path, cases_list *out, diag_t *d);
/* Parses one line (no comment, not blank) into c. file/line only label errors. */
wl_status cases_parse_line(const char *text, const char *file, int line, cases_case *c,
                           diag_t *d);
void cases_free(cases_list *l);
const cases_case *cases_find(const cases_list *l, const char *name);

/* Host copies of a case's arguments: p points to the filled bytes (a buffer's contents or a
 * scalar's value), count is the element count (1 for a scalar). */
typedef struct {
    void *p;
    uint64_t count;
    uint64_t bytes;
} cases_arg;

/* Allocates and fills every argument (argspec_fill); free with cases_free_args. */
wl_status cases_fill_args(const cases_case *c, cases_arg *args, diag_t *d);
void cases_free_args(const cases_case *c, cases_arg *args);

/* Compares one checked buffer: got against want (both the buffer's bytes). Returns the number
 * of mismatching elements; msg gets the first mismatch ("arg 1 [17]: got 3 want 4"). */
uint64_t cases_compare(const cases_case *c, const cases_check *chk, const void *got,
                       const void *want, char *msg, size_t msglen);

/* Work-list helpers for the harness: total threads, and warps of the launch. */
uint64_t cases_threads(const cases_case *c);
uint64_t cases_warps(const cases_case *c);

#ifdef __cplusplus
}
#endif

#endif
