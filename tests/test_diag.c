/* diag: error formatting, and the CLI's top-level contract (help, unknown command). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "diag.h"
#include "testutil.h"

static void test_format_full_position(void **state)
{
    (void)state;
    diag_t d;
    char buf[2048];
    diag_clear(&d);
    assert_int_equal(diag_set(&d, WL_EUNSUPPORTED, "k.ptx", 12, 5, "unsupported '%s'", "tex"),
                     WL_EUNSUPPORTED);
    diag_format(&d, buf, sizeof buf);
    assert_string_equal(buf, "k.ptx:12:5: error: unsupported 'tex'");
}

static void test_format_partial_position(void **state)
{
    (void)state;
    diag_t d;
    char buf[2048];
    diag_set(&d, WL_EUSAGE, "a.ini", 3, 0, "bad key");
    diag_format(&d, buf, sizeof buf);
    assert_string_equal(buf, "a.ini:3: error: bad key");
    diag_set(&d, WL_EUSAGE, NULL, 0, 0, "no file");
    diag_format(&d, buf, sizeof buf);
    assert_string_equal(buf, "error: no file");
}

static void test_cli_unknown_command(void **state)
{
    (void)state;
    tu_result r;
    assert_int_equal(tu_warplab(&r, "frobnicate", NULL), 1);
    assert_non_null(strstr(r.err, "unknown command 'frobnicate'"));
    tu_free(&r);
}

static void test_cli_every_command_has_help(void **state)
{
    (void)state;
    const char *cmds[] = {"run", "occupancy", "view", "export", "lesson", "validate", "arch"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        tu_result r;
        int st = tu_warplab(&r, cmds[i], "--help", NULL);
        if (st != 0 || !strstr(r.out, "usage: warplab"))
            fail_msg("'warplab %s --help' exited %d, stdout: %s", cmds[i], st, r.out);
        tu_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_full_position),
        cmocka_unit_test(test_format_partial_position),
        cmocka_unit_test(test_cli_unknown_command),
        cmocka_unit_test(test_cli_every_command_has_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
