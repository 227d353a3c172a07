/* test_ptx_fresh: the committed gpu/ptx/NAME.ptx must be what nvcc makes now from
 * gpu/kernels/NAME.cu (the build regenerates them with gpu/regen-ptx.sh into $WL_FRESH_PTX_DIR).
 * Lines are compared exactly, except `.file` directives, compared by file name only: nvcc writes
 * absolute paths there (regen-ptx.sh strips the repository root, but CUDA's own headers, e.g.
 * sm_30_intrinsics.hpp for __shfl_down_sync, keep the toolkit's install path). No timestamps
 * appear in nvcc 13.0's PTX. Without nvcc (WL_FRESH_PTX_DIR empty) the test is skipped (exit 77).
 * Fix a failure with gpu/regen-ptx.sh and commit gpu/ptx/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Copies one line into out, a `.file N "dir/name"` reduced to `.file N "name"`. */
static void normalise(const char *line, size_t len, char *out, size_t outlen)
{
    if (len >= outlen)
        len = outlen - 1;
    memcpy(out, line, len);
    out[len] = '\0';
    char *f = strstr(out, ".file");
    char *q1 = f ? strchr(f, '"') : NULL;
    char *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
    if (!q2)
        return;
    char *base = q1 + 1;
    for (char *p = q1 + 1; p < q2; ++p)
        if (*p == '/')
            base = p + 1;
    memmove(q1 + 1, base, strlen(base) + 1);
}

/* 0 when equal; else fills msg with the first differing line. */
static int compare_ptx(const char *a, const char *b, char *msg, size_t msglen)
{
    int line = 1;
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        char na[2048], nb[2048];
        normalise(a, la, na, sizeof na);
        normalise(b, lb, nb, sizeof nb);
        if (strcmp(na, nb) != 0) {
            snprintf(msg, msglen, "line %d: committed '%.200s' vs fresh '%.200s'", line, na, nb);
            return 1;
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
        ++line;
    }
    return 0;
}

static void test_normalise(void **state)
{
    (void)state;
    char msg[512];
    assert_int_equal(compare_ptx(".file 2 \"/usr/x/sm_30.hpp\"\nadd\n", ".file 2 \"/opt/y/sm_30.hpp\"\nadd\n",
                                 msg, sizeof msg), 0);
    assert_int_equal(compare_ptx("add.s32 %r1;\n", "add.s32 %r2;\n", msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "line 1"));
    assert_int_equal(compare_ptx("a\n", "a\nb\n", msg, sizeof msg), 1);
}

static void test_committed_ptx_fresh(void **state)
{
    (void)state;
    const char *fresh = getenv("WL_FRESH_PTX_DIR");
    DIR *dp = opendir(tu_path("gpu/kernels"));
    assert_non_null(dp);
    struct dirent *e;
    int checked = 0;
    char failures[4096] = "";
    while ((e = readdir(dp)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".cu") != 0)
            continue;
        char rel[512], fpath[4096], msg[600];
        snprintf(rel, sizeof rel, "gpu/ptx/%.*s.ptx", (int)(n - 3), e->d_name);
        snprintf(fpath, sizeof fpath, "%s/%.*s.ptx", fresh, (int)(n - 3), e->d_name);
        size_t la, lb;
        char *committed = tu_read_file(tu_path(rel), &la);
        char *now = tu_read_file(fpath, &lb);
        if (!committed)
            snprintf(msg, sizeof msg, "%s is missing; ", rel);
        else if (!now)
            snprintf(msg, sizeof msg, "%.500s was not generated; ", fpath);
        else {
            char diff[480];
            if (compare_ptx(committed, now, diff, sizeof diff) == 0)
                msg[0] = '\0';
            else
                snprintf(msg, sizeof msg, "%.100s is stale (%s); ", rel, diff);
        }
        strncat(failures, msg, sizeof failures - strlen(failures) - 1);
        free(committed);
        free(now);
        ++checked;
    }
    closedir(dp);
    if (failures[0])
        fail_msg("%s run gpu/regen-ptx.sh and commit gpu/ptx/", failures);
    if (checked < 11)
        fail_msg("only %d kernel files found in gpu/kernels", checked);
}

int main(void)
{
    const char *fresh = getenv("WL_FRESH_PTX_DIR");
    if (!fresh || !fresh[0]) {
        printf("SKIP: nvcc not found at configure time, committed PTX not checked\n");
        return 77;
    }
    static const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalise),
        cmocka_unit_test(test_committed_ptx_fresh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
