/* libFuzzer target for the GPU harness's case-list reader (gpu/harness/cases.c): any bytes must
 * load or fail with WL_EUSAGE and a one-line FILE:LINE message, never crash, hang or leak. A
 * list that loads must keep cases.h's promises (unique names, grid/block dims >= 1, at most
 * CASES_MAX_ARGS arguments, every check naming a buffer argument), and each small case's
 * arguments must fill and compare equal to themselves (cases_compare of a buffer against its
 * own bytes finds 0 mismatches, NaNs included).
 *
 * cases.c is compiled into this target (as fuzz_ptx does with the PTX front end) because it
 * lives in gpu/harness's own library, outside libwarplab. cases_load() reads a path, so each
 * input is written to a per-process scratch file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../gpu/harness/cases.c"
#include "fuzz_scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Fill and self-compare only cases whose buffers are small, so one input stays fast. */
#define FUZZ_CASES_MAX_BYTES (1u << 16)

static void check_case(const cases_list *l, const cases_case *c)
{
    if (!c->name[0] || c->name[0] == '-' || !c->kernel[0] || c->nargs > CASES_MAX_ARGS ||
        c->nchecks < 1 || c->nchecks > CASES_MAX_CHECKS || cases_find(l, c->name) != c)
        abort();
    for (int i = 0; i < 3; i++)
        if (c->grid[i] < 1 || c->block[i] < 1)
            abort();
    if (cases_threads(c) == 0 || cases_warps(c) == 0)
        abort();
    uint64_t total = 0;
    for (int i = 0; i < c->nargs; i++) {
        uint64_t b = argspec_bytes(&c->args[i]);
        total = b > FUZZ_CASES_MAX_BYTES ? FUZZ_CASES_MAX_BYTES + 1 : total + b;
        if (total > FUZZ_CASES_MAX_BYTES)
            return;
    }
    cases_arg args[CASES_MAX_ARGS];
    diag_t d;
    diag_clear(&d);
    if (cases_fill_args(c, args, &d) != WL_OK) {
        if (!d.msg[0])
            abort();
        return;
    }
    for (int k = 0; k < c->nchecks; k++) {
        const cases_check *chk = &c->checks[k];
        if (chk->arg < 0 || chk->arg >= c->nargs || !c->args[chk->arg].is_buffer)
            abort();
        char msg[128];
        uint64_t bad = cases_compare(c, chk, args[chk->arg].p, args[chk->arg].p, msg, sizeof msg);
        if (bad != 0) {
            fprintf(stderr, "case %s: a buffer differs from itself: %s\n", c->name, msg);
            abort();
        }
    }
    cases_free_args(c, args);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_cases.%ld.txt", (long)getpid());
    if (fuzz_write_scratch(path, data, size))
        return 0; /* disk trouble, not the loader's */
    cases_list l;
    diag_t d;
    diag_clear(&d);
    wl_status st = cases_load(path, &l, &d);
    remove(path);
    if (st != WL_OK) {
        if (st != WL_EUSAGE || !d.msg[0] || strchr(d.msg, '\n') || strcmp(d.file, path) ||
            d.line < 1 || l.v || l.n)
            abort();
        return 0;
    }
    for (int i = 0; i < l.n; i++)
        check_case(&l, &l.v[i]);
    cases_free(&l);
    return 0;
}
