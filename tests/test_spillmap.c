/* spillmap: the spill maps of scripts/sass-spills.py (spillmap.h): what a map says, and a clear
 * error with the file's line for every malformed one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spillmap.h"
#include "testutil.h"

/* The test's temporary folder (one for the run; main removes it). */
static char tmp[64];

/* Writes text to a file in it; returns its path (static buffer). */
static const char *write_map(const char *name, const char *text)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_reads_a_map(void **state)
{
    (void)state;
    const char *p = write_map("ok.spills", "; comment\n"
                                           "[k1]\nframe = 16\nregs = 40\n"
                                           "op = stl 12 4 0\n"
                                           "op = ldl 13 8 8 20\n"
                                           "op = ldl 14 16 0\n"
                                           "\n[k2]\nframe = 4\nop = stl 3 4 0x0\n");
    spillmap *m = NULL;
    diag_t d;
    diag_clear(&d);
    assert_int_equal(spillmap_load(p, &m, &d), WL_OK);
    assert_int_equal(m->nkernels, 2);
    const spill_kernel *k = spillmap_find(m, "k1");
    assert_non_null(k);
    assert_int_equal(k->frame, 16);
    assert_int_equal(k->regs, 40);
    assert_int_equal(spillmap_find(m, "k2")->regs, 0); /* not said */
    assert_int_equal(k->nops, 3);
    assert_int_equal(k->ops[0].store, 1);
    assert_int_equal(k->ops[0].after_line, 12);
    assert_int_equal(k->ops[0].bytes, 4);
    assert_int_equal(k->ops[0].use_line, 0);
    assert_int_equal(k->ops[1].store, 0);
    assert_int_equal(k->ops[1].bytes, 8);
    assert_int_equal(k->ops[1].offset, 8);
    assert_int_equal(k->ops[1].use_line, 20);
    assert_int_equal(k->ops[1].map_line, 6);
    assert_int_equal(k->ops[2].use_line, 0); /* a reload nobody waits for */
    assert_non_null(spillmap_find(m, "k2"));
    assert_null(spillmap_find(m, "k3"));
    spillmap_free(m);
}

/* Each malformed map: the line the error names and a phrase of its reason. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int line;
        const char *reason;
    } bad[] = {
        {"frame = 8\n", 1, "before any [kernel]"},
        {"[k]\nframe = 8\nop = xyz 1 4 0\n", 3, "expected 'stl' or 'ldl'"},
        {"[k]\nframe = 8\nop = stl 1 4\n", 3, "AFTER_LINE BYTES OFFSET"},
        {"[k]\nframe = 8\nop = stl 1 3 0\n", 3, "bytes per lane"},
        {"[k]\nframe = 8\nop = ldl 1 8 4 9\n", 3, "misaligned"},
        {"[k]\nframe = 8\nop = ldl 1 4 8\n", 3, "outside the 8-byte frame"},
        {"[k]\nop = stl 1 4 0\n", 2, "op before 'frame'"},
        {"[k]\nframe = 8\nop = stl 0 4 0\n", 3, "lines start at 1"},
        {"[k]\nframe = 8\nop = stl 2 4 0 7\n", 3, "unexpected"},
        {"[k]\nframe = 8\nsize = 3\n", 3, "unknown key 'size'"},
        {"[k]\nframe = 8\nframe = 8\n", 3, "given twice"},
        {"[k]\nframe = -1\n", 2, "frame: expected"},
        {"[k]\nframe = 8\n[j]\nframe = 4\n[k]\nframe = 8\n", 5, "appears twice"},
        {"[k]\nframe = 8\nthis is not ini\n", 3, "malformed line"},
        {"[k]\nframe = 8\nregs = 256\n", 3, "regs: expected"},
        {"[k]\nregs = 32\nregs = 32\n", 3, "regs given twice"},
        {"[k]\nframe = 8\nop = stl 99999999999 4 0\n", 3, "AFTER_LINE BYTES OFFSET"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p = write_map("bad.spills", bad[i].text);
        spillmap *m = (spillmap *)1;
        diag_t d;
        diag_clear(&d);
        wl_status st = spillmap_load(p, &m, &d);
        if (st != WL_EUSAGE || m != NULL || d.line != bad[i].line || !strstr(d.msg, bad[i].reason))
            fail_msg("case %zu: status %d, line %d (want %d), message '%s' (want '%s')", i,
                     (int)st, d.line, bad[i].line, d.msg, bad[i].reason);
        if (strcmp(d.file, p) != 0)
            fail_msg("case %zu: the error names '%s', not the map", i, d.file);
    }
    spillmap *m = NULL;
    diag_t d;
    diag_clear(&d);
    assert_int_equal(spillmap_load("/nonexistent/x.spills", &m, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "cannot read spill map"));
}

/* X.ptx -> X.spills beside it, only when the file exists. */
static void test_beside(void **state)
{
    (void)state;
    char out[1024];
    write_map("kern.spills", "[k]\nframe = 4\n");
    char ptx[1024];
    snprintf(ptx, sizeof ptx, "%s/kern.ptx", tmp);
    assert_int_equal(spillmap_beside(ptx, out, sizeof out), 1);
    assert_non_null(strstr(out, "/kern.spills"));
    snprintf(ptx, sizeof ptx, "%s/other.ptx", tmp);
    assert_int_equal(spillmap_beside(ptx, out, sizeof out), 0);
    spillmap *m = (spillmap *)1;
    diag_t d;
    diag_clear(&d);
    assert_int_equal(spillmap_load_beside(ptx, &m, &d), WL_OK);
    assert_null(m);
    /* the committed map of the lesson kernels loads */
    assert_int_equal(spillmap_load_beside(tu_path("gpu/ptx/occupancy_regs.ptx"), &m, &d), WL_OK);
    assert_non_null(m);
    assert_non_null(spillmap_find(m, "or_regs_lb8"));
    assert_non_null(spillmap_find(m, "or_regs_lb4"));
    assert_null(spillmap_find(m, "or_regs_free")); /* no spills without a cap */
    spillmap_free(m);
}

int main(void)
{
    const char *t = tu_tmpdir();
    if (!t)
        return 1;
    snprintf(tmp, sizeof tmp, "%s", t);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_a_map),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_beside),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    static const char *const files[] = {"ok.spills", "bad.spills", "kern.spills"};
    char path[1024];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmp, files[i]);
        remove(path);
    }
    remove(tmp);
    return rc;
}
