/* wl-cases-dryrun: the GPU harness's case handling without a GPU.
 *
 *   wl-cases-dryrun [--no-ref] [--root DIR] CASEFILE [NAME...]
 *
 * For each case (or the named ones): parses the line, finds the kernel's `.entry` in its PTX
 * file, fills every argument with argspec exactly as the harness does, and runs the CPU
 * reference. Prints one line per case; exits 1 at the first bad case (FILE:LINE: message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cases.h"
#include "reference.h"
#include "wl_config.h"

static int dry_has_entry(const char *root, const cases_case *c, char *err, size_t errlen)
{
    char path[1024], pat[128];
    snprintf(path, sizeof path, "%s/%s", root, c->ptx);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open %s", path);
        return 0;
    }
    snprintf(pat, sizeof pat, ".entry %s(", c->kernel);
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, pat) != NULL;
    fclose(f);
    if (!found)
        snprintf(err, errlen, "%s has no .entry %s", path, c->kernel);
    return found;
}

static double dry_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *root = getenv("WARPLAB_ROOT") ? getenv("WARPLAB_ROOT") : WL_SOURCE_ROOT;
    int run_ref = 1, i = 1;
    for (; i < argc && argv[i][0] == '-'; ++i) {
        if (strcmp(argv[i], "--no-ref") == 0)
            run_ref = 0;
        else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
            root = argv[++i];
        else {
            fprintf(stderr, "usage: wl-cases-dryrun [--no-ref] [--root DIR] CASEFILE [NAME...]\n");
            return 1;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "usage: wl-cases-dryrun [--no-ref] [--root DIR] CASEFILE [NAME...]\n");
        return 1;
    }
    const char *file = argv[i++];
    cases_list l;
    diag_t d;
    diag_clear(&d);
    if (cases_load(file, &l, &d) != WL_OK) {
        char msg[1400];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    int status = 0, ran = 0;
    for (int k = 0; k < l.n && !status; ++k) {
        const cases_case *c = &l.v[k];
        int wanted = i >= argc;
        for (int j = i; j < argc; ++j)
            wanted |= strcmp(argv[j], c->name) == 0;
        if (!wanted)
            continue;
        char err[1200];
        cases_arg a[CASES_MAX_ARGS];
        if (!dry_has_entry(root, c, err, sizeof err)) {
            fprintf(stderr, "%s:%d: case %s: %s\n", file, c->line, c->name, err);
            status = 1;
            break;
        }
        uint64_t bytes = 0;
        if (cases_fill_args(c, a, &d) != WL_OK) {
            fprintf(stderr, "%s:%d: case %s: %s\n", file, c->line, c->name, d.msg);
            status = 1;
            break;
        }
        for (int j = 0; j < c->nargs; ++j)
            bytes += c->args[j].is_buffer ? a[j].bytes : 0;
        double t0 = dry_now();
        if (run_ref && ref_run(c, a, &d) != WL_OK) {
            fprintf(stderr, "%s:%d: %s\n", file, c->line, d.msg);
            status = 1;
        }
        printf("%-24s %-16s grid %u,%u,%u block %u,%u,%u  %8.1f MB  ref %.3f s\n", c->name,
               c->kernel, c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1],
               c->block[2], (double)bytes / 1e6, dry_now() - t0);
        cases_free_args(c, a);
        ++ran;
    }
    if (!status)
        printf("%d cases OK\n", ran);
    cases_free(&l);
    return status;
}
