/* scoreboard (sim/timing/sb.c): per-warp pending register writes, checked against the rules
 * alone: a read waits until the value is available, under the reason of its producer's kind
 * (fixed latency: wait; MIO: short_scoreboard; L1TEX: long_scoreboard); an overwrite waits only
 * on a variable-latency producer; an entry whose cycle is past is gone. Where a key is stored
 * (its two inline slots, or the overflow list) must never change an answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "timing_int.h"

/* The conditions a read (waw 0) or an overwrite (waw 1) of key at `now` gets. */
static void deps(const sb_t *s, uint32_t key, int waw, uint64_t now, uint64_t T[C_COUNT])
{
    memset(T, 0, C_COUNT * sizeof *T);
    sb_deps(s, &key, 1, waw, now, T);
}

/* Asserts that a read of key at now waits until `until` under condition k (until <= now: none). */
static void expect(const sb_t *s, uint32_t key, uint64_t now, int k, uint64_t until)
{
    uint64_t T[C_COUNT];
    deps(s, key, 0, now, T);
    for (int c = 0; c < C_COUNT; c++) {
        uint64_t want = c == k && until > now ? until : 0;
        if (T[c] != want)
            fail_msg("key %u at %llu: condition %d is %llu, want %llu", key,
                     (unsigned long long)now, c, (unsigned long long)T[c],
                     (unsigned long long)want);
    }
}

/* expect() for each row of a table. */
typedef struct {
    uint32_t key;
    uint64_t now;
    int k;
    uint64_t until;
} sb_want;

static void expect_all(const sb_t *s, const sb_want *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        expect(s, w[i].key, w[i].now, w[i].k, w[i].until);
}

static void test_read_and_overwrite(void **state)
{
    (void)state;
    sb_t s;
    memset(&s, 0, sizeof s);
    assert_int_equal(sb_set(&s, 5, 10, SB_SHORT, 0), 0);
    assert_int_equal(sb_set(&s, 6, 20, SB_LONG, 0), 0);
    assert_int_equal(sb_set(&s, 7, 4, SB_FIXED, 0), 0);
    expect(&s, 5, 3, C_SHORT, 10);
    expect(&s, 6, 3, C_LONG, 20);
    expect(&s, 7, 3, C_WAIT, 4);
    expect(&s, 8, 3, C_WAIT, 0); /* never written */
    expect(&s, 5, 10, C_SHORT, 0);  /* available at 10 */
    /* overwrites wait on MIO and L1TEX producers only (fixed latencies retire in order) */
    uint64_t T[C_COUNT];
    deps(&s, 7, 1, 3, T);
    for (int c = 0; c < C_COUNT; c++)
        assert_int_equal(T[c], 0);
    deps(&s, 6, 1, 3, T);
    assert_int_equal(T[C_LONG], 20);
    /* several keys: the latest of each kind */
    uint32_t keys[3] = {5, 6, 7};
    memset(T, 0, sizeof T);
    sb_deps(&s, keys, 3, 0, 1, T);
    assert_int_equal(T[C_SHORT], 10);
    assert_int_equal(T[C_LONG], 20);
    assert_int_equal(T[C_WAIT], 4);
    sb_free(&s);
}

/* Keys that are equal modulo SB_SLOTS share their two inline slots (key % SB_SLOTS and that
 * slot + SB_SLOTS / 2), and so does a key SB_SLOTS / 2 away. Named below for 32 slots as
 * K3 = 3, K35 = 35 (shfl's d|p: indices 32 apart), K67, K99 and K19, K51; the same relations
 * hold for any SB_SLOTS (with 16: 3, 19, 35, 51 and 11, 27). Whatever set of them is pending,
 * every answer is the rule's; two pending fit inline, a third goes to the overflow list. */
#define K3 3u
#define K35 (3u + SB_SLOTS)
#define K67 (3u + 2u * SB_SLOTS)
#define K99 (3u + 3u * SB_SLOTS)
#define K19 (3u + SB_SLOTS / 2u)
#define K51 (3u + 3u * SB_SLOTS / 2u)
static void test_shared_slots(void **state)
{
    (void)state;
    sb_t s;
    memset(&s, 0, sizeof s);
    assert_int_equal(sb_set(&s, K3, 50, SB_SHORT, 0), 0);
    assert_int_equal(sb_set(&s, K35, 60, SB_SHORT, 0), 0);
    assert_int_equal(s.nov, 0);
    assert_int_equal(sb_set(&s, K67, 70, SB_LONG, 0), 0);
    assert_int_equal(s.nov, 1);
    assert_int_equal(sb_set(&s, K19, 80, SB_FIXED, 0), 0);
    static const sb_want at1[] = {{K3, 1, C_SHORT, 50},  {K35, 1, C_SHORT, 60},
                                  {K67, 1, C_LONG, 70},  {K19, 1, C_WAIT, 80},
                                  {K99, 1, C_WAIT, 0},   {K51, 1, C_WAIT, 0}};
    expect_all(&s, at1, sizeof at1 / sizeof *at1);
    /* K3 has expired at 55: K35 writes again (its own slot), then K3, then K99 */
    assert_int_equal(sb_set(&s, K35, 100, SB_LONG, 55), 0);
    assert_int_equal(sb_set(&s, K3, 90, SB_SHORT, 56), 0);
    assert_int_equal(sb_set(&s, K99, 95, SB_SHORT, 57), 0);
    static const sb_want at58[] = {{K35, 58, C_LONG, 100}, {K3, 58, C_SHORT, 90},
                                   {K99, 58, C_SHORT, 95}, {K67, 58, C_LONG, 70},
                                   {K67, 70, C_LONG, 0}};
    expect_all(&s, at58, sizeof at58 / sizeof *at58);
    /* a key written again while it is pending: the new cycle (earlier or later) */
    assert_int_equal(sb_set(&s, K67, 65, SB_FIXED, 60), 0);
    expect(&s, K67, 61, C_WAIT, 65);
    assert_int_equal(sb_set(&s, K3, 200, SB_LONG, 61), 0);
    expect(&s, K3, 62, C_LONG, 200);
    /* a key in its second slot stays there when its first frees up: else its older entry
     * (here later than its newer one) would come back once another key takes the first */
    sb_clear(&s);
    assert_int_equal(sb_set(&s, K3, 50, SB_SHORT, 0), 0);
    assert_int_equal(sb_set(&s, K35, 100, SB_SHORT, 0), 0);
    assert_int_equal(sb_set(&s, K35, 60, SB_FIXED, 55), 0);
    assert_int_equal(sb_set(&s, K67, 90, SB_SHORT, 61), 0);
    expect(&s, K35, 62, C_WAIT, 0);
    expect(&s, K67, 62, C_SHORT, 90);
    /* cleared: nothing pending, the table's entries included; usable again */
    sb_clear(&s);
    for (uint32_t k = 0; k < 4 * SB_SLOTS; k++)
        expect(&s, k, 0, C_WAIT, 0);
    assert_int_equal(sb_set(&s, K67, 30, SB_SHORT, 0), 0);
    expect(&s, K67, 1, C_SHORT, 30);
    expect(&s, K3, 1, C_WAIT, 0);
    sb_free(&s);
}

/* Memory tokens (deferred L2/DRAM answers) are replaced by their cycle wherever they sit. */
static void test_tokens(void **state)
{
    (void)state;
    sb_t s;
    memset(&s, 0, sizeof s);
    uint64_t t1 = MEM_TOKEN + 1, t2 = MEM_TOKEN + 2;
    assert_int_equal(sb_set(&s, 4, t1, SB_LONG, 0), 0);
    assert_int_equal(sb_set(&s, 4 + SB_SLOTS, t2, SB_LONG, 0), 0);
    assert_int_equal(sb_set(&s, 4 + 2 * SB_SLOTS, t1, SB_LONG, 0), 0); /* in the table */
    expect(&s, 4, 5, C_LONG, t1);
    sb_resolve(&s, t1, 400);
    expect(&s, 4, 5, C_LONG, 400);
    expect(&s, 4 + 2 * SB_SLOTS, 5, C_LONG, 400);
    expect(&s, 4 + SB_SLOTS, 5, C_LONG, t2);
    sb_resolve(&s, t2, 300);
    expect(&s, 4 + SB_SLOTS, 5, C_LONG, 300);
    expect(&s, 4 + SB_SLOTS, 300, C_LONG, 0);
    sb_free(&s);
}

/* Many keys at once, against a plain array of the rule: random writes and reads. */
static void test_random_against_rule(void **state)
{
    (void)state;
    enum { NK = 200 };
    uint64_t ready[NK] = {0};
    uint8_t kind[NK] = {0};
    sb_t s;
    memset(&s, 0, sizeof s);
    uint32_t x = 12345;
    uint64_t now = 0;
    for (int step = 0; step < 20000; step++) {
        x = x * 1103515245u + 12345u;
        uint32_t k = (x >> 8) % NK;
        now += (x >> 20) % 3;
        if ((x >> 4) & 1) {
            uint64_t r = now + 1 + (x >> 12) % 40;
            uint8_t kd = (uint8_t)((x >> 24) % 3);
            assert_int_equal(sb_set(&s, k, r, kd, now), 0);
            ready[k] = r;
            kind[k] = kd;
        } else {
            static const int cond[3] = {C_WAIT, C_SHORT, C_LONG};
            expect(&s, k, now, cond[kind[k]], ready[k]);
        }
        if (step % 5000 == 4999) {
            sb_clear(&s);
            memset(ready, 0, sizeof ready);
        }
    }
    sb_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_and_overwrite),
        cmocka_unit_test(test_shared_slots),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_random_against_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
