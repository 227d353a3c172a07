/* Shared by the ptx tests: visit every committed .ptx file (tests/data/ptx
 * and gpu/ptx, which other engineers keep adding to). */
#ifndef WL_TEST_PTX_FILES_H
#define WL_TEST_PTX_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

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

#endif
