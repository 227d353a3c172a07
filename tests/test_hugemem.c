/* hugemem: mappings and the arena give zeroed, aligned, separate memory of the sizes asked
 * for (whether the host backs them with 2 MB pages is the kernel's choice and not tested). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "hugemem.h"

static int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static void test_map(void **state)
{
    (void)state;
    assert_null(hugemem_map(0));
    size_t small = 100, big = 5 * HUGEMEM_PAGE + 12345;
    uint8_t *s = hugemem_map(small), *b = hugemem_map(big);
    assert_non_null(s);
    assert_non_null(b);
    assert_int_equal((uintptr_t)s % 4096, 0);
    assert_int_equal((uintptr_t)b % HUGEMEM_PAGE, 0); /* every 2 MB of it can be one page */
    assert_true(all_zero(s, small));
    assert_true(all_zero(b, big));
    memset(s, 0xa5, small);
    memset(b, 0x5a, big); /* all of it is writable, to the last byte */
    assert_int_equal(b[big - 1], 0x5a);
    assert_int_equal(s[small - 1], 0xa5);
    hugemem_unmap(s, small);
    hugemem_unmap(b, big);
    hugemem_unmap(NULL, 10); /* nothing */
}

/* Heap blocks: aligned as asked, zeroed, writable to the last byte. */
static void test_zalloc(void **state)
{
    (void)state;
    static const size_t aligns[] = {8, 64, 4096};
    for (int i = 0; i < 3; i++) {
        size_t n = 1000 + (size_t)i * 77;
        uint8_t *p = hugemem_zalloc(n, aligns[i]);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % aligns[i], 0);
        assert_true(all_zero(p, n));
        memset(p, 0x3c, n);
        assert_int_equal(p[n - 1], 0x3c);
        free(p);
    }
}

/* Pieces of many sizes and alignments, across several chunks: each aligned, zeroed when
 * handed out, and none overlapping another (each is filled with its own byte, then all are
 * checked). */
static void test_arena_pieces(void **state)
{
    (void)state;
    hugemem_arena *a = hugemem_arena_create();
    assert_non_null(a);
    enum { N = 600 };
    static uint8_t *p[N];
    static size_t len[N];
    static const size_t aligns[] = {1, 8, 16, 64, 4096};
    for (int i = 0; i < N; i++) {
        size_t al = aligns[i % 5];
        len[i] = (size_t)(i * 7919 % 20000) + 1; /* 1 .. 20000 bytes: about 6 MB in all */
        if (i == 300)
            len[i] = 3 * HUGEMEM_PAGE; /* bigger than a chunk: a chunk of its own */
        p[i] = hugemem_arena_alloc(a, len[i], al);
        assert_non_null(p[i]);
        assert_int_equal((uintptr_t)p[i] % al, 0);
        assert_true(all_zero(p[i], len[i]));
        memset(p[i], (i % 251) + 1, len[i]);
    }
    for (int i = 0; i < N; i++)
        for (size_t k = 0; k < len[i]; k += 97)
            assert_int_equal(p[i][k], (i % 251) + 1);
    assert_null(hugemem_arena_alloc(a, 8, 3));    /* not a power of two */
    assert_null(hugemem_arena_alloc(a, 8, 8192)); /* beyond a page */
    assert_non_null(hugemem_arena_alloc(a, 0, 8)); /* an empty piece is still a pointer */
    hugemem_arena_destroy(a);
    hugemem_arena_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_zalloc),
        cmocka_unit_test(test_arena_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
