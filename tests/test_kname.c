/* kname: the C++ names of mangled kernel symbols, as nvcc 13 writes them (the symbols below
 * are from `nvcc -ptx -arch=sm_90` of kernels without extern "C"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kname.h"

static void base_is(const char *sym, const char *want)
{
    char out[256];
    int ok = kname_base(sym, out, sizeof out);
    if (!want) {
        if (ok || out[0])
            fail_msg("kname_base('%s') = '%s', want none", sym, out);
        return;
    }
    if (!ok || strcmp(out, want) != 0)
        fail_msg("kname_base('%s') = %d '%s', want '%s'", sym, ok, out, want);
}

static void test_base(void **state)
{
    (void)state;
    base_is("_Z3addPfi", "add");                       /* void add(float *, int) */
    base_is("_ZN2ns5scaleEPff", "ns::scale");          /* ns::scale(float *, float) */
    base_is("_Z4fillIfEvPT_S0_", "fill");              /* fill<float>(float *, float) */
    base_is("_ZN2ns4implIiE3runEv", "ns::impl::run");  /* ns::impl<int>::run() */
    base_is("_ZN1AI5EigenE3runEv", "A::run");          /* A<Eigen>::run(): letters of a name */
    base_is("_ZN1AILi5EE3runEv", "A::run");            /* A<5>::run(): a literal's E */
    base_is("_ZNK1S3getEv", "S::get");                 /* const member function */
    base_is("saxpy", NULL);                            /* extern "C" */
    base_is("_Z", NULL);
    base_is("_Z9ab", NULL);                            /* length past the end */
    base_is("_ZN3abcIiE", "abc");                      /* cut short: the name read so far */
    base_is("_ZN3ab", NULL);
    char small[4];
    assert_int_equal(kname_base("_Z5hello", small, sizeof small), 0); /* does not fit */
    assert_string_equal(small, "");
}

static void test_matches(void **state)
{
    (void)state;
    assert_true(kname_matches("_Z3addPfi", "add"));
    assert_true(kname_matches("_Z3addPfi", "_Z3addPfi"));
    assert_true(kname_matches("saxpy", "saxpy"));
    assert_true(kname_matches("_ZN2ns5scaleEPff", "scale"));
    assert_true(kname_matches("_ZN2ns5scaleEPff", "ns::scale"));
    assert_false(kname_matches("_ZN2ns5scaleEPff", "ns"));
    assert_false(kname_matches("_Z3addPfi", "ad"));
    assert_false(kname_matches("_Z3addPfi", "addPfi"));
    assert_false(kname_matches("saxpy", "sax"));
    assert_false(kname_matches(NULL, "add"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base),
        cmocka_unit_test(test_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
