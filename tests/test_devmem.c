/* devmem: alignment, guard gaps, translation at every boundary, the limit, the
 * fault descriptions and iteration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "devmem.h"

static uint64_t alloc(devmem_t *m, uint64_t size, const char *label)
{
    uint64_t addr = 0;
    diag_t d;
    diag_clear(&d);
    if (devmem_alloc(m, size, label, &addr, &d) != WL_OK)
        fail_msg("devmem_alloc(%llu, %s) failed: %s", (unsigned long long)size,
                 label ? label : "NULL", d.msg);
    return addr;
}

static void expect_describe(const devmem_t *m, uint64_t addr, const char *want)
{
    char buf[512];
    devmem_describe(m, addr, buf, sizeof buf);
    if (strcmp(buf, want) != 0)
        fail_msg("describe(%#llx) = '%s'\n want '%s'", (unsigned long long)addr, buf, want);
}

static void test_alignment_and_gaps(void **state)
{
    (void)state;
    devmem_t *m = devmem_create(0);
    assert_non_null(m);
    uint64_t a = alloc(m, 4096, "arg0");
    uint64_t b = alloc(m, 1, "arg1");
    uint64_t c = alloc(m, 300, "arg2");
    assert_int_equal(a, DEVMEM_BASE);
    assert_int_equal(a % DEVMEM_ALIGN, 0);
    assert_int_equal(b % DEVMEM_ALIGN, 0);
    assert_int_equal(c % DEVMEM_ALIGN, 0);
    /* a guard gap follows each allocation's 256-byte-rounded end */
    assert_int_equal(b, a + 4096 + DEVMEM_GUARD);
    assert_int_equal(c, b + 256 + DEVMEM_GUARD);
    assert_int_equal(devmem_used(m), 4096 + 1 + 300);
    devmem_destroy(m);
}

static void test_translate_boundaries(void **state)
{
    (void)state;
    devmem_t *m = devmem_create(0);
    uint64_t a = alloc(m, 100, "x");
    uint64_t b = alloc(m, 4096, "y");
    uint8_t *pa = devmem_translate(m, a, 100);
    assert_non_null(pa);
    for (int i = 0; i < 100; i++) /* zero-initialised */
        assert_int_equal(pa[i], 0);
    pa[99] = 7;
    assert_ptr_equal(devmem_translate(m, a + 99, 1), pa + 99);
    assert_int_equal(*devmem_translate(m, a + 99, 1), 7);
    assert_null(devmem_translate(m, a + 100, 1));  /* one past the end */
    assert_null(devmem_translate(m, a + 97, 4));   /* straddles the end */
    assert_null(devmem_translate(m, a + 255, 1));  /* rounding padding is unmapped */
    assert_null(devmem_translate(m, a - 1, 1));    /* before the first allocation */
    assert_null(devmem_translate(m, 0, 4));        /* null pointer */
    assert_null(devmem_translate(m, UINT64_MAX, 1));
    assert_null(devmem_translate(m, a, UINT64_MAX)); /* huge size cannot wrap */
    assert_non_null(devmem_translate(m, a + 96, 4));
    assert_non_null(devmem_translate(m, a + 50, 0)); /* size 0 treated as 1 */
    /* alternate between allocations so the cache misses, then hits */
    for (int k = 0; k < 4; k++) {
        assert_non_null(devmem_translate(m, b + 4092, 4));
        assert_non_null(devmem_translate(m, a, 8));
    }
    assert_null(devmem_translate(m, b + 4093, 4));
    assert_null(devmem_translate(m, b - DEVMEM_GUARD, 1)); /* inside a guard gap */
    devmem_destroy(m);
}

static void test_many_allocations_binary_search(void **state)
{
    (void)state;
    devmem_t *m = devmem_create(0);
    uint64_t addr[500];
    for (int i = 0; i < 500; i++) {
        char lab[16];
        snprintf(lab, sizeof lab, "b%d", i);
        addr[i] = alloc(m, (uint64_t)(i % 7) * 64 + 8, lab);
        *devmem_translate(m, addr[i], 1) = (uint8_t)i;
    }
    assert_int_equal(devmem_count(m), 500);
    for (int i = 499; i >= 0; i -= 3) {
        uint8_t *p = devmem_translate(m, addr[i], 1);
        assert_non_null(p);
        assert_int_equal(*p, (uint8_t)i);
        const devmem_region *r = devmem_find(m, addr[i] + 7);
        assert_non_null(r);
        assert_int_equal(r->base, addr[i]);
        assert_null(devmem_find(m, addr[i] + r->size));
    }
    /* iteration is in address order with the labels given */
    for (size_t i = 1; i < devmem_count(m); i++)
        assert_true(devmem_region_at(m, i)->base > devmem_region_at(m, i - 1)->base);
    assert_string_equal(devmem_region_at(m, 123)->label, "b123");
    assert_null(devmem_region_at(m, 500));
    devmem_destroy(m);
}

static void test_limit_and_zero_size(void **state)
{
    (void)state;
    devmem_t *m = devmem_create(10000);
    alloc(m, 6000, "big");
    uint64_t addr = 0;
    diag_t d;
    diag_clear(&d);
    assert_int_equal(devmem_alloc(m, 4001, "arg3", &addr, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "device allocation 'arg3' of 4001 bytes exceeds the simulated "
                                  "device memory limit (6000 of 10000 bytes already used)"));
    assert_int_equal(devmem_count(m), 1);
    uint64_t z = alloc(m, 0, NULL); /* zero-size: unique address, nothing mapped */
    assert_int_equal(z % DEVMEM_ALIGN, 0);
    assert_null(devmem_translate(m, z, 1));
    assert_string_equal(devmem_region_at(m, 1)->label, "alloc1");
    assert_null(devmem_region_at(m, 1)->host);
    uint64_t last = alloc(m, 4000, "fits");
    assert_true(last > z);
    devmem_destroy(m);
    devmem_destroy(NULL);
}

static void test_describe(void **state)
{
    (void)state;
    devmem_t *m = devmem_create(0);
    expect_describe(m, 0x1000, "0x1000 is not in or near any allocation");
    uint64_t a = alloc(m, 4096, "arg1");
    uint64_t b = alloc(m, 256, "arg2");
    char want[512];
    snprintf(want, sizeof want,
             "0x%llx is 4 bytes after the end of allocation 'arg1' (0x7f0000000000-0x7f0000001000, "
             "4096 bytes)",
             (unsigned long long)(a + 4100));
    expect_describe(m, a + 4100, want);
    snprintf(want, sizeof want,
             "0x7f0000001000 is 0 bytes after the end of allocation 'arg1' "
             "(0x7f0000000000-0x7f0000001000, 4096 bytes)");
    expect_describe(m, a + 4096, want);
    expect_describe(m, a + 16,
                    "0x7f0000000010 is inside allocation 'arg1' (0x7f0000000000-0x7f0000001000, "
                    "4096 bytes) at offset 16");
    snprintf(want, sizeof want,
             "0x%llx is 1 byte before the start of allocation 'arg2' (0x%llx-0x%llx, 256 bytes)",
             (unsigned long long)(b - 1), (unsigned long long)b, (unsigned long long)(b + 256));
    expect_describe(m, b - 1, want);
    snprintf(want, sizeof want,
             "0x%llx is 8 bytes before the start of allocation 'arg1' (0x7f0000000000-0x7f0000001000, "
             "4096 bytes)",
             (unsigned long long)(a - 8));
    expect_describe(m, a - 8, want);
    expect_describe(m, 0, "0x0 is not in or near any allocation");
    expect_describe(m, 0xffffffffffffffffull,
                    "0xffffffffffffffff is not in or near any allocation");
    char small[8];
    devmem_describe(m, a, small, sizeof small); /* truncates, still terminated */
    assert_int_equal(strlen(small), 7);
    devmem_destroy(m);
}

/* A large allocation (its host backing mapped by the OS, not from the heap) next to small
 * ones: zeroed, every byte reachable, writes land where they should and nowhere else. */
static void test_large_allocation(void **state)
{
    (void)state;
    devmem_t *m = devmem_create(0);
    assert_non_null(m);
    uint64_t n = (5u << 20) + 100; /* 5 MB and a bit: not a multiple of the page */
    uint64_t s0 = alloc(m, 64, "small0");
    uint64_t big = alloc(m, n, "big");
    uint64_t s1 = alloc(m, 64, "small1");
    uint8_t *h = devmem_translate(m, big, n);
    assert_non_null(h);
    for (uint64_t i = 0; i < n; i += 4093)
        assert_int_equal(h[i], 0);
    assert_int_equal(h[n - 1], 0);
    uint8_t *last = devmem_translate(m, big + n - 4, 4);
    assert_ptr_equal(last, h + n - 4);
    memset(last, 0xee, 4);
    assert_null(devmem_translate(m, big + n - 4, 5)); /* one past the end */
    uint8_t *a = devmem_translate(m, s0, 64), *b = devmem_translate(m, s1, 64);
    for (int i = 0; i < 64; i++)
        assert_true(a[i] == 0 && b[i] == 0);
    assert_int_equal(h[n - 5], 0);
    assert_int_equal(h[n - 1], 0xee);
    devmem_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment_and_gaps),
        cmocka_unit_test(test_large_allocation),
        cmocka_unit_test(test_translate_boundaries),
        cmocka_unit_test(test_many_allocations_binary_search),
        cmocka_unit_test(test_limit_and_zero_size),
        cmocka_unit_test(test_describe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
