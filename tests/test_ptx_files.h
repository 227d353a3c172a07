/* Shared by the ptx tests: visit every committed .ptx file (other engineers
 * keep adding to these folders). */
#ifndef WL_TEST_PTX_FILES_H
#define WL_TEST_PTX_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "ptx.h"
#include "testutil.h"

#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n"

/* Parses text; fails the test with the diag if it does not parse. Needs
 * cmocka.h (and ptx.h) included first. */
static inline ptx_module *parse_ok(const char *src)
{
    ptx_module *m = NULL;
    diag_t d;
    wl_status st = ptx_parse_string(src, strlen(src), "t.ptx", &m, &d);
    if (st != WL_OK) {
        char b[2048];
        diag_format(&d, b, sizeof b);
        fail_msg("parse failed (status %d): %s", st, b);
    }
    return m;
}

/* Calls fn(path, ctx) for each *.ptx under the repository-relative dir;
 * returns how many files were visited. */
static inline unsigned ptx_for_each_file(const char *rel, void (*fn)(const char *path, void *ctx),
                                         void *ctx)
{
    const char *dir = tu_path(rel);
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".ptx") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        fn(path, ctx);
        n++;
    }
    closedir(dp);
    return n;
}

/* Every committed kernel: the front end's samples, the real kernels, the
 * other modules' test kernels and every lesson's PTX (one level below
 * lessons/). Returns the number of files visited. */
static inline unsigned ptx_for_each_committed(void (*fn)(const char *path, void *ctx), void *ctx)
{
    static const char *const dirs[] = {"tests/data/ptx", "tests/data/exec", "tests/data/run",
                                       "gpu/ptx"};
    unsigned n = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        n += ptx_for_each_file(dirs[i], fn, ctx);
    DIR *dp = opendir(tu_path("lessons"));
    if (dp) {
        struct dirent *e;
        while ((e = readdir(dp))) {
            if (e->d_name[0] == '.')
                continue;
            char rel[512];
            snprintf(rel, sizeof rel, "lessons/%s", e->d_name);
            n += ptx_for_each_file(rel, fn, ctx);
        }
        closedir(dp);
    }
    return n;
}

#endif
