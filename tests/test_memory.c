/* test_memory: the memory hierarchy (sim/memory) on the H200 arch file: latencies of each level,
 * pending-fill merging, store allocation, atomics serialising on one address, DRAM bandwidth
 * saturation, the near/far L2 footprint effect of the measured chase, the L1 carveout, local
 * memory tags, write-back traffic and the statistics.
 * Expected values come from sim/arch/h200.ini (read at run time, never typed here) and from the
 * model's documented rules (the headers in sim/memory/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cache.h"
#include "dram.h"
#include "memsys.h"
#include "testutil.h"

static arch_t A;

static int setup(void **state)
{
    (void)state;
    diag_t d;
    diag_clear(&d);
    if (arch_load(tu_path("sim/arch"), "h200", &A, &d) != WL_OK) {
        fprintf(stderr, "cannot load h200: %s\n", d.msg);
        return -1;
    }
    return 0;
}

static void expect(const char *what, uint64_t got, uint64_t want)
{
    if (got != want)
        fail_msg("%s: got %llu, expected %llu", what, (unsigned long long)got,
                 (unsigned long long)want);
}

static void expect_near(const char *what, double got, double want, double rel)
{
    double err = got > want ? got - want : want - got;
    if (err > rel * want)
        fail_msg("%s: got %.2f, expected %.2f within %.0f%%", what, got, want, rel * 100);
}

static uint64_t load1(memsys_t *m, uint32_t sm, uint64_t sector, uint64_t t)
{
    return memsys_access(m, sm, MEMSYS_LOAD, 0, t, &sector, 1, 0);
}

/* SM s belongs to partition s * 2 / 132: SMs 0-65 -> 0, 66-131 -> 1. */
static void test_levels(void **state)
{
    (void)state;
    memsys_t *m = memsys_create(&A);
    assert_non_null(m);
    uint64_t s = 12345;
    expect("cold load (DRAM)", load1(m, 0, s, 1000), 1000 + (uint64_t)A.lat_dram);
    expect("same SM again (L1 hit)", load1(m, 0, s, 5000), 5000 + (uint64_t)A.lat_l1_hit);
    expect("other SM, same partition (near L2)", load1(m, 1, s, 6000),
           6000 + (uint64_t)A.lat_l2_near);
    expect("SM of the other partition (far L2)", load1(m, 131, s, 7000),
           7000 + (uint64_t)A.lat_l2_far);
    expect("other partition again (copied near)", load1(m, 130, s, 8000),
           8000 + (uint64_t)A.lat_l2_near);
    /* a neighbouring sector of the same line is not there: sectors are fetched alone */
    expect("next sector of the line (DRAM)", load1(m, 0, s + 1, 9000), 9000 + (uint64_t)A.lat_dram);
    /* its burst partner (sectors 0-1 share a 64-byte DRAM access) came along into the L2 */
    expect("burst partner (near L2)", load1(m, 2, s - 1, 10000), 10000 + (uint64_t)A.lat_l2_near);
    memsys_stats st;
    memsys_get_stats(m, &st);
    expect("L1 load sectors", st.l1_load_sectors, 7);
    expect("L1 hits", st.l1_load_hits, 1);
    expect("L2 reads", st.l2_read_sectors, 6);
    expect("L2 hits", st.l2_read_hits, 4);
    expect("far hits", st.l2_far_hits, 1);
    /* two misses, each a 64-byte DRAM burst (the sector and its partner) */
    expect("DRAM bytes", st.dram_bytes, 2 * 2 * (uint64_t)A.sector_bytes);
    memsys_destroy(m);
}

static void test_pending_merge(void **state)
{
    (void)state;
    memsys_t *m = memsys_create(&A);
    uint64_t first = load1(m, 5, 777, 100);
    expect("second load waits for the pending fill", load1(m, 5, 777, 150), first);
    /* another SM of the partition merges in the L2 */
    expect("other SM merges in the L2", load1(m, 6, 777, 160), first);
    memsys_stats st;
    memsys_get_stats(m, &st);
    expect("one DRAM burst (2 sectors)", st.dram_read_sectors, 2);
    memsys_destroy(m);
}

static void test_store_allocates(void **state)
{
    (void)state;
    memsys_t *m = memsys_create(&A);
    uint64_t s = 4000;
    expect("store ack (near L2)",
           memsys_access(m, 2, MEMSYS_STORE, 0, 100, &s, 1, 0), 100 + (uint64_t)A.lat_l2_near);
    expect("load after own store hits L1", load1(m, 2, s, 200), 200 + (uint64_t)A.lat_l1_hit);
    expect("other SM of the partition: near L2", load1(m, 3, s, 300),
           300 + (uint64_t)A.lat_l2_near);
    expect("SM of the other partition: far L2", load1(m, 100, s, 400),
           400 + (uint64_t)A.lat_l2_far);
    memsys_stats st;
    memsys_get_stats(m, &st);
    expect("no DRAM traffic", st.dram_bytes, 0);
    memsys_destroy(m);
}

static void test_atomics(void **state)
{
    (void)state;
    memsys_t *m = memsys_create(&A);
    uint64_t s = 64;
    memsys_access(m, 0, MEMSYS_STORE, 0, 0, &s, 1, 0); /* the line is in the L2 */
    uint64_t lat = (uint64_t)A.lat_atomic_global;
    uint64_t one = memsys_access(m, 0, MEMSYS_ATOMIC, 0, 10000, &s, 1, 1);
    expect("1 lane", one, 10000 + lat);
    /* 32 lanes on one address: the L2 atomic unit serialises them (1 to 2 cycles each) */
    uint64_t w32 = memsys_access(m, 1, MEMSYS_ATOMIC, 0, 20000, &s, 1, 32) - 20000 - lat;
    if (w32 < 31 || w32 > 62)
        fail_msg("32 lanes on one address: %llu cycles after 1 lane, expected 31..62",
                 (unsigned long long)w32);
    /* two warps at the same cycle: the second waits for the first's 32 operations */
    uint64_t a = memsys_access(m, 2, MEMSYS_ATOMIC, 0, 30000, &s, 1, 32);
    uint64_t b = memsys_access(m, 3, MEMSYS_ATOMIC, 0, 30000, &s, 1, 32);
    if (b < a + 32 || b > a + 64)
        fail_msg("second warp at %llu, first at %llu: expected 32..64 cycles later",
                 (unsigned long long)b, (unsigned long long)a);
    /* 32 lanes on 32 distinct lines: no contention, but the lines leave the SM one by one */
    uint64_t many[32];
    for (int i = 0; i < 32; i++) {
        many[i] = 100000 + (uint64_t)i * 4;
        memsys_access(m, 0, MEMSYS_STORE, 0, 40000, &many[i], 1, 0);
    }
    uint64_t d32 = memsys_access(m, 4, MEMSYS_ATOMIC, 0, 50000, many, 32, 32) - 50000 - lat;
    if (d32 < 31 * 4 || d32 > 31 * 16)
        fail_msg("32 distinct lines: %llu cycles after 1 lane, expected 31 x 4..16",
                 (unsigned long long)d32);
    memsys_destroy(m);
}

/* Every SM requests one new 128-B line (4 sectors) per cycle; DRAM must limit the rate to its
 * sustained bandwidth for streaming reads (dram.json: 0.945 of the theoretical), above that of
 * a read/write mix (a copy: 0.823). */
static void test_dram_saturates(void **state)
{
    (void)state;
    memsys_t *m = memsys_create(&A);
    uint64_t last = 0, line = 0;
    const uint64_t cycles = 20000; /* long enough to amortise the final queue wait */
    for (uint64_t t = 0; t < cycles; t++)
        for (uint32_t sm = 0; sm < 132; sm++) {
            uint64_t sec[4];
            for (int i = 0; i < 4; i++)
                sec[i] = line * 4 + (uint64_t)i;
            line++;
            uint64_t done = memsys_access(m, sm, MEMSYS_LOAD, 0, t, sec, 4, 0);
            last = done > last ? done : last;
        }
    memsys_stats st;
    memsys_get_stats(m, &st);
    expect("bytes", st.dram_bytes, line * 128);
    double bpc = (double)st.dram_bytes / (double)(last - (uint64_t)A.lat_dram);
    expect_near("sustained DRAM read bytes/cycle", bpc, st.dram_read_bytes_per_cycle, 0.05);
    double peak = A.dram_bandwidth_gbs * 1e3 / A.sm_clock_mhz;
    if (st.dram_read_bytes_per_cycle > peak ||
        st.dram_read_bytes_per_cycle <= st.dram_bytes_per_cycle ||
        st.dram_bytes_per_cycle < 0.7 * peak)
        fail_msg("sustained %.1f (reads) and %.1f (mixed) B/cycle vs theoretical %.1f",
                 st.dram_read_bytes_per_cycle, st.dram_bytes_per_cycle, peak);
    memsys_destroy(m);
}

/* Half the sustained read bandwidth for a while: a new load waits about k x u / (1 - u) on top
 * of lat_dram (u = 0.5: about k, the documented 260 cycles); an idle DRAM adds nothing. */
static void test_dram_loaded_latency(void **state)
{
    (void)state;
    memsys_t *m = memsys_create(&A);
    memsys_stats st;
    memsys_get_stats(m, &st);
    uint32_t per_cycle = (uint32_t)(st.dram_read_bytes_per_cycle / 2 / 128 + 0.5); /* lines */
    uint64_t line = 0, t;
    for (t = 0; t < 20000; t++)
        for (uint32_t i = 0; i < per_cycle; i++, line++) {
            uint64_t sec[4] = {line * 4, line * 4 + 1, line * 4 + 2, line * 4 + 3};
            memsys_access(m, (uint32_t)(line % 132), MEMSYS_LOAD, 0, t, sec, 4, 0);
        }
    double u = per_cycle * 128.0 / st.dram_read_bytes_per_cycle;
    uint64_t probe = (line + 1000) * 4;
    double extra = (double)(load1(m, 7, probe, t) - t - (uint64_t)A.lat_dram);
    expect_near("loaded DRAM extra wait / (u / (1 - u))", extra / (u / (1 - u)), 260, 0.15);
    memsys_destroy(m);
    m = memsys_create(&A);
    expect("idle DRAM", load1(m, 7, probe, 1000000), 1000000 + (uint64_t)A.lat_dram);
    memsys_destroy(m);
}

/* One thread chasing 128-B lines through a footprint from SM 0: warm lap, then the average
 * latency of a timed lap (steps capped), like gpu/microbench/latency.cu. */
static double chase(memsys_t *m, uint64_t footprint, int warm, uint64_t cap)
{
    uint64_t n = footprint / 128, t = 0;
    if (warm)
        for (uint64_t k = 0; k < n; k++)
            t = load1(m, 0, k * 4, t);
    uint64_t steps = n < cap ? n : cap, t0 = t;
    for (uint64_t k = 0; k < steps; k++)
        t = load1(m, 0, (k * 4) | (1ull << 40) * !warm, t);
    return (double)(t - t0) / (double)steps;
}

static void test_footprints(void **state)
{
    (void)state;
    struct {
        uint64_t mb;
        int warm;
        int lat;
    } c[] = {{8, 1, A.lat_l2_near}, {24, 1, A.lat_l2_near}, {48, 1, A.lat_l2_far},
             {56, 1, A.lat_l2_far}, {256, 0, A.lat_dram}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        memsys_t *m = memsys_create(&A);
        memsys_set_smem_pool(m, (uint32_t)A.l1_smem_bytes); /* no L1: see the L2 */
        double avg = chase(m, c[i].mb << 20, c[i].warm, 65536);
        char what[64];
        snprintf(what, sizeof what, "%llu MB chase cycles/load", (unsigned long long)c[i].mb);
        expect_near(what, avg, c[i].lat, 0.06);
        memsys_destroy(m);
    }
}

static void test_l1_carveout(void **state)
{
    (void)state;
    const uint64_t fp = 64 << 10;
    memsys_t *m = memsys_create(&A);
    chase(m, fp, 1, 1 << 20);
    memsys_stats st;
    memsys_get_stats(m, &st);
    expect("L1 bytes without shared memory", st.l1_bytes_per_sm, (uint64_t)A.l1_smem_bytes);
    expect("64 KB lap 2 hits L1 (no smem)", st.l1_load_hits, fp / 128);
    memsys_destroy(m);

    m = memsys_create(&A);
    memsys_set_smem_pool(m, (uint32_t)A.smem_per_sm_max);
    chase(m, fp, 1, 1 << 20);
    memsys_get_stats(m, &st);
    expect("L1 bytes with the largest carveout", st.l1_bytes_per_sm,
           (uint64_t)(A.l1_smem_bytes - A.smem_per_sm_max));
    if (st.l1_load_hits > fp / 128 / 4)
        fail_msg("64 KB through a %llu-byte L1: %llu hits of %llu on lap 2, expected mostly misses",
                 (unsigned long long)st.l1_bytes_per_sm, (unsigned long long)st.l1_load_hits,
                 (unsigned long long)(fp / 128));
    memsys_destroy(m);
}

static void test_local_tags(void **state)
{
    (void)state;
    memsys_t *m = memsys_create(&A);
    uint64_t s = 99;
    load1(m, 0, s, 0);
    expect("local sector with a global's number misses",
           memsys_access(m, 0, MEMSYS_LOAD, 1, 2000, &s, 1, 0), 2000 + (uint64_t)A.lat_dram);
    expect("local store then load hits L1",
           (memsys_access(m, 0, MEMSYS_STORE, 1, 3000, &s, 1, 0),
            memsys_access(m, 0, MEMSYS_LOAD, 1, 4000, &s, 1, 0)),
           4000 + (uint64_t)A.lat_l1_hit);
    memsys_destroy(m);
}

static void test_writeback(void **state)
{
    (void)state;
    memsys_t *m = memsys_create(&A);
    uint64_t lines = 2 * (uint64_t)A.l2_bytes / 128;
    for (uint64_t k = 0; k < lines; k++) {
        uint64_t sec[4] = {k * 4, k * 4 + 1, k * 4 + 2, k * 4 + 3};
        memsys_access(m, (uint32_t)(k % 132), MEMSYS_STORE, 0, k / 64, sec, 4, 0);
    }
    memsys_stats st;
    memsys_get_stats(m, &st);
    /* writing twice the L2 evicts at least the first half's dirty sectors */
    if (st.dram_writeback_sectors < lines * 4 / 2 - lines / 8)
        fail_msg("write-backs %llu sectors after writing %llu sectors",
                 (unsigned long long)st.dram_writeback_sectors, (unsigned long long)(lines * 4));
    expect("DRAM bytes = write-backs", st.dram_bytes, st.dram_writeback_sectors * 32);
    memsys_destroy(m);
}

/* Streams `mb` MB of stores (write) or of loads of one array and stores to another, line k of
 * each in turn (copy), spread over the 132 SMs, and returns the MB the L2 still holds dirty at
 * the end: stored bytes minus the bytes written back to DRAM. */
static double dirty_left(const arch_t *a, uint64_t mb, int copy)
{
    memsys_t *m = memsys_create(a);
    memsys_set_smem_pool(m, (uint32_t)a->l1_smem_bytes); /* no L1: only the L2 */
    uint64_t lines = (mb << 20) / 128, src = 1ull << 30; /* sectors of the copy's source */
    for (uint64_t k = 0; k < lines; k++) {
        uint32_t sm = (uint32_t)(k % 132);
        uint64_t sec[4] = {k * 4, k * 4 + 1, k * 4 + 2, k * 4 + 3};
        if (copy) {
            uint64_t in[4] = {src + k * 4, src + k * 4 + 1, src + k * 4 + 2, src + k * 4 + 3};
            memsys_access(m, sm, MEMSYS_LOAD, 0, k, in, 4, 0);
        }
        memsys_access(m, sm, MEMSYS_STORE, 0, k, sec, 4, 0);
    }
    memsys_stats st;
    memsys_get_stats(m, &st);
    memsys_destroy(m);
    return (double)(lines * 4 - st.dram_writeback_sectors) * 32 / (1 << 20);
}

/* l2.h: a written line takes l2_write_copies lines of the L2, a read line one. So a stream of
 * stores ends with l2_bytes / copies dirty, a copy (a read line and a written line in turn)
 * with l2_bytes / (1 + copies): 30 and 20 MB on the H200 (60 MB, 2; it measured 28.4-28.7 and
 * 20.1-21.3, gpu/measured/h200/microbench/l2dirty-ncu.csv), 60 and 30 with one copy. Within
 * 5 %: the sets are hashed, so they do not all hold the same share of dirty lines. */
static void test_write_copies(void **state)
{
    (void)state;
    double l2mb = (double)A.l2_bytes / (1 << 20);
    assert_int_equal(A.l2_write_copies, 2);
    arch_t one = A;
    one.l2_write_copies = 1;
    const struct {
        const arch_t *a;
        int copy;
        double want;
    } c[] = {{&A, 0, l2mb / 2}, {&A, 1, l2mb / 3}, {&one, 0, l2mb}, {&one, 1, l2mb / 2}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char what[96];
        snprintf(what, sizeof what, "%s of 96 MB, %d copies: MB dirty at the end",
                 c[i].copy ? "copy" : "write", c[i].a->l2_write_copies);
        expect_near(what, dirty_left(c[i].a, 96, c[i].copy), c[i].want, 0.05);
    }
}

/* The last completion of n requests of 4 sectors (lines first..first+n-1) all issued by SM 0
 * at cycle t, minus t. */
static uint64_t burst(memsys_t *m, memsys_kind kind, uint64_t first, uint64_t n, uint64_t t)
{
    uint64_t last = 0;
    for (uint64_t k = first; k < first + n; k++) {
        uint64_t sec[4] = {k * 4, k * 4 + 1, k * 4 + 2, k * 4 + 3};
        uint64_t done = memsys_access(m, 0, kind, 0, t, sec, 4, 0);
        last = done > last ? done : last;
    }
    return last - t;
}

/* l2.h: a written sector costs its slice l2_write_copies operations. 4 MB of stores issued at
 * once keep every slice busy copies times as long as 4 MB of loads of lines the L2 holds (the
 * H200 measured 4.0-4.4 TB/s for stores against 8.2-8.4 for loads, l2dirty.json). The spans
 * less the latency: 32768 lines x 128 B over 120 slices of 36 B per cycle = 971 cycles per
 * operation, on average; hashed, the busiest slice takes more, so the ratio is checked within
 * 10 %. */
static void test_write_bandwidth(void **state)
{
    (void)state;
    const uint64_t n = 32768;
    for (int copies = 1; copies <= 2; copies++) {
        arch_t a = A;
        a.l2_write_copies = copies;
        memsys_t *m = memsys_create(&a);
        memsys_set_smem_pool(m, (uint32_t)a.l1_smem_bytes); /* no L1: only the L2 */
        burst(m, MEMSYS_STORE, 0, n, 0);                     /* the lines, in the L2 */
        double rd = (double)(burst(m, MEMSYS_LOAD, 0, n, 1000000) - (uint64_t)a.lat_l2_near);
        double wr = (double)(burst(m, MEMSYS_STORE, 0, n, 2000000) - (uint64_t)a.lat_l2_near);
        memsys_destroy(m);
        char what[96];
        snprintf(what, sizeof what, "%d copies: stores' span / loads' span", copies);
        expect_near(what, wr / rd, copies, 0.10);
        if (rd < 971 || rd > 971 * 1.5)
            fail_msg("loads of 4 MB took %.0f cycles beyond the latency, expected 971-1457", rd);
    }
}

static void test_bad_arch(void **state)
{
    (void)state;
    arch_t b = A;
    b.sector_bytes = 48; /* line not a whole number of sectors */
    assert_null(memsys_create(&b));
    b = A;
    b.sector_bytes = 8; /* 16 sectors per line: more than modelled */
    assert_null(memsys_create(&b));
}

/* The tag store against a reference LRU (each set a list of tags, most recent first) over a
 * long random sequence of finds, peeks and allocations: every hit and miss, every evicted tag
 * and its dirty bits must agree. The set count and associativity follow cache_create's rule
 * (cache.h); the hashed index is recomputed with cache_hash as cache.c does. */
#define REF_WAYS 64
typedef struct {
    uint64_t tag[REF_WAYS];
    uint8_t dirty[REF_WAYS];
    uint32_t n;
} ref_set;

/* hinted: every lookup prepared ahead as the L2 replay does (cache_hint_set 16 operations
 * before, cache_hint_way 4 before; some only one of them, some neither), and made with
 * cache_find_h / cache_alloc_h: the same hits, misses and victims as without. */
#define LRU_OPS 40000
static void check_lru(uint64_t lines, uint32_t ways_req, int hashed, uint32_t seed, int hinted)
{
    cache_t *c = cache_create(lines, ways_req, hashed);
    assert_non_null(c);
    uint64_t sets = 1;
    while (sets * 2 <= lines / ways_req)
        sets *= 2;
    uint32_t ways = (uint32_t)(lines / sets);
    assert_true(ways <= REF_WAYS);
    expect("capacity", cache_capacity_lines(c), sets * ways);
    ref_set *ref = calloc(sets, sizeof *ref);
    assert_non_null(ref);
    uint64_t x = seed, range = 2 * sets * ways + 7, hits = 0, evictions = 0;
    uint64_t *xs = malloc(LRU_OPS * sizeof *xs);
    cache_hint *h = calloc(LRU_OPS, sizeof *h);
    assert_true(xs && h);
    for (int op = 0; op < LRU_OPS; op++)
        xs[op] = x = x * 6364136223846793005ull + 1442695040888963407ull;
#define LRU_TAG(v) ((v) >> 33) % range + (hashed ? 1000003u : 0)
    for (int op = 0; op < LRU_OPS; op++) {
        x = xs[op];
        uint64_t tag = LRU_TAG(x);
        if (hinted && op + 16 < LRU_OPS && op % 7 != 3)
            cache_hint_set(c, LRU_TAG(xs[op + 16]), &h[op + 16]);
        if (hinted && op + 4 < LRU_OPS && op % 5 != 1)
            cache_hint_way(c, LRU_TAG(xs[op + 4]), &h[op + 4]);
        uint64_t set = hashed ? (tag ^ cache_hash(tag / sets)) & (sets - 1) : tag & (sets - 1);
        ref_set *r = &ref[set];
        uint32_t at = 0;
        while (at < r->n && r->tag[at] != tag)
            at++;
        int present = at < r->n;
        if ((x >> 20) % 8 == 0) { /* a peek: no change of order */
            cache_line *L = cache_peek(c, tag);
            if ((L != NULL) != present)
                fail_msg("op %d: peek of %llu: %s, reference %s", op, (unsigned long long)tag,
                         L ? "found" : "absent", present ? "present" : "absent");
            continue;
        }
        cache_line *L = hinted ? cache_find_h(c, tag, &h[op]) : cache_find(c, tag);
        if ((L != NULL) != present)
            fail_msg("op %d: find of %llu: %s, reference %s", op, (unsigned long long)tag,
                     L ? "hit" : "miss", present ? "hit" : "miss");
        uint8_t dirty = (uint8_t)((x >> 40) & 15);
        if (L) {
            hits++;
            uint8_t d0 = r->dirty[at];
            memmove(&r->tag[1], &r->tag[0], at * sizeof r->tag[0]);
            memmove(&r->dirty[1], &r->dirty[0], at * sizeof r->dirty[0]);
            r->tag[0] = tag;
            r->dirty[0] = d0 | dirty;
            L->dirty |= dirty;
            continue;
        }
        uint64_t vtag = 1;
        uint8_t vdirty = 1;
        L = hinted ? cache_alloc_h(c, tag, &h[op], &vtag, &vdirty)
                   : cache_alloc(c, tag, &vtag, &vdirty);
        assert_non_null(L);
        if (r->n == ways) { /* the reference's least recent goes */
            evictions++;
            if (vtag != r->tag[ways - 1] || vdirty != r->dirty[ways - 1])
                fail_msg("op %d: allocating %llu evicted %llu (dirty %u), reference %llu (%u)", op,
                         (unsigned long long)tag, (unsigned long long)vtag, vdirty,
                         (unsigned long long)r->tag[ways - 1], r->dirty[ways - 1]);
            r->n--;
        } else if (vtag != 0 || vdirty != 0) {
            fail_msg("op %d: a free way reported victim %llu", op, (unsigned long long)vtag);
        }
        memmove(&r->tag[1], &r->tag[0], r->n * sizeof r->tag[0]);
        memmove(&r->dirty[1], &r->dirty[0], r->n * sizeof r->dirty[0]);
        r->tag[0] = tag;
        r->dirty[0] = dirty;
        r->n++;
        L->dirty = dirty;
    }
    /* the sequence exercised both paths */
    assert_true(hits > 1000);
    assert_true(evictions > 1000);
#undef LRU_TAG
    free(xs);
    free(h);
    free(ref);
    cache_destroy(c);
}

static void test_cache_lru(void **state)
{
    (void)state;
    for (int hinted = 0; hinted < 2; hinted++) {
        check_lru(64, 16, 0, 1, hinted);   /* 4 sets of 16 ways */
        check_lru(62, 16, 0, 2, hinted);   /* 2 sets of 31 ways (the most cache_create makes) */
        check_lru(4096, 16, 1, 3, hinted); /* hashed: 256 sets of 16 */
        check_lru(480, 16, 1, 4, hinted);  /* hashed: 16 sets of 30 ways, as the H200's L2 */
        check_lru(8, 16, 0, 5, hinted);    /* fewer lines than ways: one set of 8 */
    }
}

/* Half-size records (cache_create_ready_in, the L1's): each line's ready times are its own
 * (a found line holds what was written into it, a new one starts cleared: a wrong record
 * stride or a full-size clear overwrites a neighbour), and cache_index/cache_line_at agree. */
static void test_cache_ready_records(void **state)
{
    (void)state;
    cache_t *c = cache_create_ready_in(96, 16, 0, NULL); /* 4 sets of 24 ways */
    assert_non_null(c);
    uint64_t x = 7, hits = 0, allocs = 0;
    for (int op = 0; op < 20000; op++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t tag = (x >> 33) % 211;
        cache_line *L = cache_find(c, tag);
        if (L) {
            hits++;
            for (uint32_t i = 0; i < CACHE_MAX_SECTORS; i++)
                if (L->ready[i] != tag * 4 + i + 1)
                    fail_msg("op %d: line %llu sector %u holds %llu", op,
                             (unsigned long long)tag, i, (unsigned long long)L->ready[i]);
        } else {
            allocs++;
            L = cache_alloc(c, tag, NULL, NULL);
            assert_non_null(L);
            for (uint32_t i = 0; i < CACHE_MAX_SECTORS; i++) {
                expect("cleared", L->ready[i], 0);
                L->ready[i] = tag * 4 + i + 1;
            }
        }
        assert_ptr_equal(cache_line_at(c, cache_index(c, L)), L);
        expect("index in range", cache_index(c, L) < cache_capacity_lines(c), 1);
    }
    assert_true(hits > 1000);
    assert_true(allocs > 1000);
    cache_destroy(c);
}

/* The channel of a line is hash(line) mod channels, computed without a division (dram.c's
 * fastmod): the same as the % operator for every channel count tried, over lines whose hashes
 * cover the 64-bit range. */
static void test_dram_channel(void **state)
{
    (void)state;
    static const uint32_t counts[] = {1, 2, 3, 5, 7, 11, 12, 13, 120, 127, 128, 131, 1000,
                                      65537, 1000003};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        dram_t *d = dram_create(counts[i], 100.0, 0, 1);
        assert_non_null(d);
        for (uint64_t line = 0; line < 20000; line++) {
            uint64_t x = line * 0x9e3779b97f4a7c15ull; /* spread over the 64-bit range */
            uint32_t want = (uint32_t)(cache_hash(x ^ 0x5bd1e995u) % counts[i]);
            if (dram_channel(d, x) != want)
                fail_msg("%u channels, line %llu: channel %u, expected %u", counts[i],
                         (unsigned long long)x, dram_channel(d, x), want);
        }
        dram_destroy(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_levels),         cmocka_unit_test(test_pending_merge),
        cmocka_unit_test(test_store_allocates), cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_dram_saturates), cmocka_unit_test(test_dram_loaded_latency),
        cmocka_unit_test(test_footprints),
        cmocka_unit_test(test_l1_carveout),    cmocka_unit_test(test_local_tags),
        cmocka_unit_test(test_writeback),      cmocka_unit_test(test_bad_arch),
        cmocka_unit_test(test_write_copies),   cmocka_unit_test(test_write_bandwidth),
        cmocka_unit_test(test_cache_lru),
        cmocka_unit_test(test_cache_ready_records),      cmocka_unit_test(test_dram_channel),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
