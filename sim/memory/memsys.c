/* memsys: per-SM L1 + partitioned L2 + DRAM channels; see memsys.h.
 *
 * Numbers the arch file does not carry (yet); each names its source ([MB] = our H200
 * microbenchmarks, gpu/measured/h200/microbench/{latency,throughput}.json):
 *   L1 ways      >= 16: not published; keeps a 128-B-stride chase of most of the capacity in L1.
 *   L2 ways      >= 16: [ACCEL] SM90_H100 dl2 16-way.
 *   L2 slices    l2_bytes / 512 KB ([A100WP] 80 slices x 512 KB); sustained bandwidth 36 B per SM
 *                cycle per slice: [MB] l2_bw 8424-8588 GB/s for 8-48 MB working sets = 4337 B
 *                per 1.98 GHz cycle over 120 slices (hardware-numbers.md's earlier 16.5-26.4 TB/s
 *                is not reproduced by our kernel; docs/memory.md).
 *   DRAM         channels = bus bits / 512 (one per 512-bit controller, [H100WP]). What a
 *                channel sustains depends on the traffic ([MB] dram.json, 2026-11-29 15:24,
 *                bytes and durations from Nsight Compute, of 4814 GB/s theoretical):
 *                streaming reads 4550 GB/s (0.945; k_read with 4 or 8 loads in flight),
 *                streaming writes 4320 (0.898), a copy 3960 (0.823: reads and writes mixed pay
 *                a turnaround: 1/0.823 = 0.5/0.945 + 0.5/0.898 + 0.519 x 0.25), 64-byte reads
 *                one per 128-byte line 3790 (f = 1.270 = 1/0.945 + 0.212). dram.c turns these
 *                into a per-transfer cost from the recent write fraction and the burst size.
 *                (throughput.json's dram_bw read of 4213 GB/s had one load in flight per trip
 *                and event timing; dram.json's mlp1 read reached 4441.)
 *                Load-dependent wait 260 x u / (1 - u) cycles (u = utilisation of the sustained
 *                bandwidth over ~2000 cycles): fitted to the copy kernel at 1, 2, 4, 8 blocks per
 *                SM (gpu/measured/h200/lat_copy_*bpsm.json, Nsight Compute durations and DRAM
 *                bytes): its load-to-use latency grows from ~810 to ~1390 cycles as the
 *                utilisation goes from 0.15 to 0.69, k = 183, 256, 261, 274 at the four points.
 *   DRAM burst   64 bytes (2 sectors): Nsight Compute counted 1141.2 MB of DRAM traffic for
 *                co_stride32 (gpu/measured/h200/co_stride32.json), whose 16.8 M lanes each read
 *                one 4-byte word in its own sector (537 MB at 32 B, 1074 MB at 64 B) and write
 *                67 MB coalesced: 64-byte reads match to 0.01%.
 *   atomics      the L2 atomic unit takes 1.45 cycles per operation on one line: [MB] atomics
 *                one_address 1.368 Gops/s at 1.98 GHz; a warp's atomic touching several lines
 *                sends them one after another, 8.45 cycles apart: [MB] global_32lanes_distinct
 *                595.00 vs global_1lane 333.36 cycles = 31 x 8.45.
 */
#include "memsys.h"

#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "cache.h"
#include "dram.h"
#include "l2.h"

#define MEMSYS_L1_WAYS 16u
#define MEMSYS_L2_WAYS 16u
#define MEMSYS_L2_SLICE_BYTES (512u * 1024u)
#define MEMSYS_L2_SLICE_BYTES_PER_CYCLE 36.0
#define MEMSYS_DRAM_READ 0.945
#define MEMSYS_DRAM_WRITE 0.898
#define MEMSYS_DRAM_TURNAROUND 0.519
#define MEMSYS_DRAM_PARTIAL 0.212
#define MEMSYS_DRAM_MIXED 0.823 /* the copy: reported as the sustained bandwidth */
#define MEMSYS_DRAM_QUEUE_CYCLES 260.0
#define MEMSYS_DRAM_TAU 2000.0
#define MEMSYS_DRAM_SECTORS 2u
#define MEMSYS_ATOMIC_CYCLES 1.45
#define MEMSYS_ATOMIC_LINE_CYCLES 8.45
#define MEMSYS_LOCAL_TAG (1ull << 60) /* local lines get their own tag space */

struct memsys {
    const arch_t *a;
    uint32_t nsm, spl;      /* SMs, sectors per line */
    int spl_shift;          /* log2(spl) when spl is a power of two, else -1 */
    uint32_t *part_of;      /* per SM: its L2 partition, sm * partitions / nsm */
    uint32_t partitions;
    uint64_t l1_lines;
    cache_t **l1;           /* per SM, created at its first access */
    hugemem_arena *arena;   /* the caches' arrays (L1s and L2) on huge pages (hugemem.h) */
    l2_t *l2;
    dram_t *dram;
    memsys_stats st;
    int oom;                /* an L1 could not be allocated: that SM runs without L1 */
    /* deferred L2 work of the current window (memsys_access_deferred, memsys_resolve) */
    struct dreq *dq;
    size_t ndq, capdq;
    struct dop *dops;
    size_t ndops, capdops;
    uint32_t *deps;
    size_t ndeps, capdeps;
    uint32_t *order;        /* replay order (indices into dq) */
    size_t capord;
    uint32_t *flat;         /* the L2 operations in replay order (indices into dops) */
    size_t capflat;
    memsys_done *out;
    size_t capout;
    size_t *cnt;            /* counting sort by issue cycle */
    size_t capcnt;
    int dfail;              /* out of memory while recording: reported by memsys_resolve */
};

/* One deferred request: its L1 part is done; its L2 operations wait for the replay. */
struct dreq {
    uint64_t issue;         /* replay key: cycle the request was issued */
    uint64_t known;         /* completion as far as the L1 part knows it */
    void *owner;
    uint32_t sm, part;
    uint32_t op0, nop;      /* its L2 operations: dops[op0 .. op0 + nop) */
    uint32_t dep0, ndep;    /* pending fills (L2 operations of earlier requests) it hit */
    int store;              /* memsys_done.store */
};
struct dop {
    uint64_t line, t;
    uint64_t value;         /* its completion, once replayed */
    union {
        uint32_t ops;       /* an atomic: its operations */
        uint32_t l1;        /* a load: the L1 line waiting for its fill (cache_index), or
                               DOP_NO_L1; the replay finds it there without a tag lookup */
    };
    uint8_t mask, kind;
    uint16_t sm;            /* its request's SM (the L1 a load's fill goes to) */
    cache_hint hint;        /* its L2 lookup, prepared during the replay (memsys_resolve) */
};
#define DOP_NO_L1 UINT32_MAX

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}


memsys_t *memsys_create(const arch_t *a)
{
    if (a->sm_count <= 0 || a->sm_count > UINT16_MAX || a->line_bytes <= 0 ||
        a->sector_bytes <= 0 || a->line_bytes % a->sector_bytes ||
        a->line_bytes / a->sector_bytes > CACHE_MAX_SECTORS || a->l2_bytes <= 0)
        return NULL;
    memsys_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->a = a;
    m->nsm = (uint32_t)a->sm_count;
    m->spl = (uint32_t)(a->line_bytes / a->sector_bytes);
    m->spl_shift = wl_log2_exact(m->spl);
    m->partitions = a->l2_partitions > 0 ? (uint32_t)a->l2_partitions : 1;
    m->l1 = calloc(m->nsm, sizeof *m->l1);
    m->arena = hugemem_arena_create();
    m->part_of = calloc(m->nsm, sizeof *m->part_of);
    for (uint32_t sm = 0; m->part_of && sm < m->nsm; sm++)
        m->part_of[sm] = (uint32_t)((uint64_t)sm * m->partitions / m->nsm);
    double clk = a->sm_clock_mhz > 0 ? a->sm_clock_mhz : 1000.0;
    uint32_t channels = a->mem_bus_bits >= 512 ? (uint32_t)(a->mem_bus_bits / 512) : 1;
    m->dram = dram_create(channels, a->dram_bandwidth_gbs * 1e3 / clk, MEMSYS_DRAM_QUEUE_CYCLES,
                          MEMSYS_DRAM_TAU);
    if (m->dram)
        dram_set_efficiency(m->dram, &(dram_eff){MEMSYS_DRAM_READ, MEMSYS_DRAM_WRITE,
                                                 MEMSYS_DRAM_TURNAROUND, MEMSYS_DRAM_PARTIAL,
                                                 (uint32_t)a->line_bytes});
    uint32_t slices = (uint32_t)((uint64_t)a->l2_bytes / MEMSYS_L2_SLICE_BYTES);
    slices = slices < m->partitions ? m->partitions : slices;
    l2_config c = {.bytes = (uint64_t)a->l2_bytes,
                   .line_bytes = (uint32_t)a->line_bytes,
                   .sector_bytes = (uint32_t)a->sector_bytes,
                   .partitions = m->partitions,
                   .ways = MEMSYS_L2_WAYS,
                   .slices = slices,
                   .bytes_per_cycle = slices * MEMSYS_L2_SLICE_BYTES_PER_CYCLE,
                   .lat_near = (uint32_t)a->lat_l2_near,
                   .lat_far = (uint32_t)(m->partitions > 1 ? a->lat_l2_far : a->lat_l2_near),
                   .lat_dram = (uint32_t)a->lat_dram,
                   .lat_atomic = (uint32_t)a->lat_atomic_global,
                   .atomic_cycles = MEMSYS_ATOMIC_CYCLES,
                   .dram_sectors = MEMSYS_DRAM_SECTORS,
                   .write_copies = a->l2_write_copies > 1 ? (uint32_t)a->l2_write_copies : 1,
                   .arena = m->arena};
    m->l2 = m->dram && m->arena ? l2_create(&c, m->dram) : NULL;
    if (!m->l1 || !m->part_of || !m->l2) {
        memsys_destroy(m);
        return NULL;
    }
    memsys_set_smem_pool(m, 0);
    m->st.l2_bytes = (uint64_t)a->l2_bytes;
    m->st.dram_bytes_per_cycle = a->dram_bandwidth_gbs * 1e3 / clk * MEMSYS_DRAM_MIXED;
    m->st.dram_read_bytes_per_cycle = a->dram_bandwidth_gbs * 1e3 / clk * MEMSYS_DRAM_READ;
    m->st.l2_bytes_per_cycle = c.bytes_per_cycle;
    return m;
}

void memsys_destroy(memsys_t *m)
{
    if (!m)
        return;
    if (m->l1)
        for (uint32_t s = 0; s < m->nsm; s++)
            cache_destroy(m->l1[s]);
    free(m->l1);
    free(m->part_of);
    l2_destroy(m->l2);
    hugemem_arena_destroy(m->arena); /* after the caches whose arrays it holds */
    dram_destroy(m->dram);
    free(m->dq);
    free(m->dops);
    free(m->deps);
    free(m->order);
    free(m->flat);
    free(m->out);
    free(m->cnt);
    free(m);
}

void memsys_set_smem_pool(memsys_t *m, uint32_t smem_bytes)
{
    uint64_t unified = m->a->l1_smem_bytes > 0 ? (uint64_t)m->a->l1_smem_bytes : 0;
    uint64_t l1 = unified > smem_bytes ? unified - smem_bytes : 0;
    m->l1_lines = l1 / (uint64_t)m->a->line_bytes;
    m->st.l1_bytes_per_sm = m->l1_lines * (uint64_t)m->a->line_bytes;
}

static cache_t *l1_of(memsys_t *m, uint32_t sm)
{
    if (!m->l1[sm] && m->l1_lines && !m->oom) {
        m->l1[sm] = cache_create_ready_in(m->l1_lines, MEMSYS_L1_WAYS, 0, m->arena);
        m->oom = m->l1[sm] == NULL;
    }
    return m->l1[sm];
}

/* Makes *p (elements of size sz) hold at least n; 0 when out of memory. */
static int reserve(void **p, size_t *cap, size_t n, size_t sz)
{
    if (n <= *cap)
        return 1;
    size_t nc = *cap ? *cap : 256;
    while (nc < n)
        nc *= 2;
    void *q = realloc(*p, nc * sz);
    if (!q)
        return 0;
    *p = q;
    *cap = nc;
    return 1;
}

/* Deferred mode: the L2 operation is recorded in request q, to be replayed later. Returns the
 * token its fill's sectors carry in the L1 until then (MEMSYS_TOKEN + its index). */
static uint64_t defer_op(memsys_t *m, struct dreq *q, memsys_kind kind, uint64_t line,
                         uint8_t mask, uint64_t t, uint32_t ops)
{
    if (!reserve((void **)&m->dops, &m->capdops, m->ndops + 1, sizeof *m->dops)) {
        m->dfail = 1;
        return t;
    }
    /* field by field: a compound literal made GCC clear the record with `rep stosd` first (a
     * microcoded store that costs tens of host cycles to start; one per L2 operation) */
    struct dop *d = &m->dops[m->ndops];
    d->line = line;
    d->t = t;
    d->value = 0;
    d->ops = ops;
    d->mask = mask;
    d->kind = (uint8_t)kind;
    d->sm = (uint16_t)q->sm;
    d->hint = (cache_hint){0};
    q->nop++;
    return MEMSYS_TOKEN + m->ndops++;
}

/* Deferred mode: a hit on a sector whose fill is still pending (L2 operation `dep` of an
 * earlier request of this window): q completes no earlier than that fill. */
static void defer_dep(memsys_t *m, struct dreq *q, uint32_t dep)
{
    for (uint32_t i = 0; i < q->ndep; i++)
        if (m->deps[q->dep0 + i] == dep)
            return;
    if (!reserve((void **)&m->deps, &m->capdeps, m->ndeps + 1, sizeof *m->deps)) {
        m->dfail = 1;
        return;
    }
    m->deps[m->ndeps++] = dep;
    q->ndep++;
}

/* The valid sectors of an L1 line: those with a ready time (cache_create_ready_in: the L1's
 * records hold nothing else). Every ready time the L1 stores is at least 1: a store's is
 * t + lat_l1_hit (>= 1, arch.c), a fill's the L2's answer (>= lat_l2_near >= 1 after the
 * request) or a token (>= MEMSYS_TOKEN). */
static inline uint8_t l1_valid(const cache_line *L)
{
    uint8_t v = 0;
    for (uint32_t i = 0; i < CACHE_MAX_SECTORS; i++)
        v |= (uint8_t)((L->ready[i] != 0) << i);
    return v;
}

/* One line of a request: the sectors in mask. q NULL: everything now; else (deferred) the L1
 * part now and the L2 part recorded in q, its pending fill's sectors marked with a token. */
static uint64_t access_line(memsys_t *m, cache_t *l1, uint32_t part, memsys_kind kind,
                            uint64_t line, uint8_t mask, uint64_t t, uint32_t ops,
                            struct dreq *q)
{
    const arch_t *a = m->a;
    /* the L1 is write-through: an evicted line needs no write-back (cache_alloc is not asked
     * for the victim, so it does not read the old line) */
    cache_line *L = l1 ? cache_find(l1, line) : NULL;
    uint64_t done = t;
    switch (kind) {
    case MEMSYS_LOAD: {
        uint8_t had = L ? l1_valid(L) : 0; /* the line's valid sectors (none when absent) */
        uint8_t hit = (uint8_t)(had & mask), miss = (uint8_t)(mask & ~hit);
        m->st.l1_load_sectors += cache_nsectors(mask);
        m->st.l1_load_hits += cache_nsectors(hit);
        for (uint32_t i = 0; hit >> i; i++) /* a pending fill: wait for it (MSHR merge) */
            if (hit >> i & 1) {
                uint64_t r = L->ready[i];
                if (q && r >= MEMSYS_TOKEN) {
                    defer_dep(m, q, (uint32_t)(r - MEMSYS_TOKEN));
                    r = 0;
                }
                done = max64(done, max64(r, t + (uint64_t)a->lat_l1_hit));
            }
        if (miss) {
            uint64_t r = q ? defer_op(m, q, kind, line, miss, t, 0)
                           : l2_read(m->l2, line, miss, part, t);
            if (l1 && !L)
                L = cache_alloc(l1, line, NULL, NULL);
            if (q && r >= MEMSYS_TOKEN) /* defer_op's record: where its fill goes */
                m->dops[r - MEMSYS_TOKEN].l1 = L ? cache_index(l1, L) : DOP_NO_L1;
            if (L) /* (now valid: a ready time) */
                cache_set_ready(L, miss, r);
            if (!q)
                done = max64(done, r);
        }
        break;
    }
    case MEMSYS_STORE:
        if (l1) { /* allocate/update: a later load by this SM hits */
            if (!L)
                L = cache_alloc(l1, line, NULL, NULL);
            cache_set_ready(L, mask, t + (uint64_t)a->lat_l1_hit); /* (now valid) */
        }
        if (q)
            defer_op(m, q, kind, line, mask, t, 0);
        else
            done = l2_write(m->l2, line, mask, part, t);
        break;
    case MEMSYS_ATOMIC:
        if (L) /* the L2 holds the new value: invalid */
            cache_set_ready(L, mask, 0);
        if (q)
            defer_op(m, q, kind, line, mask, t, ops);
        else
            done = l2_atomic(m->l2, line, mask, part, t, ops);
        break;
    }
    return done;
}

/* The line of sector s (a shift, not a division, in the usual case of 4 sectors per line:
 * this runs for every sector of every request). */
static inline uint64_t line_of(const memsys_t *m, uint64_t s)
{
    return m->spl_shift >= 0 ? s >> m->spl_shift : s / m->spl;
}

/* The lines of one request (shared by the immediate and the deferred path). */
static uint64_t access_lines(memsys_t *m, uint32_t sm, memsys_kind kind, int local, uint64_t t,
                             const uint64_t *sectors, uint32_t n, uint32_t ops, struct dreq *q)
{
    uint32_t part = m->part_of[sm];
    cache_t *l1 = l1_of(m, sm);
    uint64_t done = t;
    uint32_t nl = 0; /* lines so far */
    if (q)
        q->part = part;
    /* sectors come in lane order: consecutive sectors of one line are handled together */
    for (uint32_t i = 0; i < n;) {
        uint64_t line = line_of(m, sectors[i]);
        uint8_t mask = 0;
        uint32_t j = i;
        for (; j < n && line_of(m, sectors[j]) == line; j++)
            mask |= (uint8_t)(1u << (sectors[j] - line * m->spl));
        /* an atomic's lanes spread over its sectors in proportion; its lines leave the SM
         * one after another */
        uint32_t lops = kind == MEMSYS_ATOMIC && ops ? (ops * (j - i) + n - 1) / n : 0;
        uint64_t tl = kind == MEMSYS_ATOMIC ? t + (uint64_t)(nl * MEMSYS_ATOMIC_LINE_CYCLES) : t;
        done = max64(done, access_line(m, l1, part, kind, line | (local ? MEMSYS_LOCAL_TAG : 0),
                                       mask, tl, lops, q));
        nl++;
        i = j;
    }
    return done;
}

uint64_t memsys_access(memsys_t *m, uint32_t sm, memsys_kind kind, int local, uint64_t t,
                       const uint64_t *sectors, uint32_t n, uint32_t ops)
{
    return access_lines(m, sm % m->nsm, kind, local, t, sectors, n, ops, NULL);
}

uint64_t memsys_access_deferred(memsys_t *m, uint32_t sm, memsys_kind kind, int local,
                                uint64_t t, uint64_t issue, const uint64_t *sectors, uint32_t n,
                                uint32_t ops, void *owner)
{
    sm %= m->nsm;
    if (!reserve((void **)&m->dq, &m->capdq, m->ndq + 1, sizeof *m->dq)) {
        m->dfail = 1;
        return access_lines(m, sm, kind, local, t, sectors, n, ops, NULL);
    }
    struct dreq *q = &m->dq[m->ndq];
    /* (field by field, as defer_op does: no `rep stosd` first) */
    q->issue = issue;
    q->owner = owner;
    q->sm = sm;
    q->op0 = (uint32_t)m->ndops;
    q->dep0 = (uint32_t)m->ndeps;
    q->part = 0;
    q->nop = q->ndep = 0;
    q->store = kind == MEMSYS_STORE;
    q->known = access_lines(m, sm, kind, local, t, sectors, n, ops, q);
    if (q->nop == 0 && q->ndep == 0)
        return q->known; /* all in the L1: nothing pending, the record is dropped */
    return MEMSYS_TOKEN + m->ndq++;
}

void memsys_prefetch(const memsys_t *m, uint32_t sm, int local, const uint64_t *sectors,
                     uint32_t n)
{
    const cache_t *l1 = m->l1[sm % m->nsm];
    for (uint32_t i = 0; l1 && i < n; i++)
        if (i == 0 || line_of(m, sectors[i]) != line_of(m, sectors[i - 1]))
            cache_prefetch(l1, line_of(m, sectors[i]) | (local ? MEMSYS_LOCAL_TAG : 0));
}

uint64_t memsys_min_l2_latency(const arch_t *a)
{
    /* l2.c: a read hit completes >= lat_l2_near (far: lat_l2_far) after it reaches the L2, a
     * miss >= lat_dram, a write is acknowledged after lat_l2_near, an atomic's result is back
     * >= lat_atomic_global */
    int m = a->lat_l2_near;
    if (a->l2_partitions > 1 && a->lat_l2_far < m)
        m = a->lat_l2_far;
    if (a->lat_dram < m)
        m = a->lat_dram;
    if (a->lat_atomic_global < m)
        m = a->lat_atomic_global;
    return m > 1 ? (uint64_t)m : 1u;
}

#define MEMSYS_HINT_SET_AHEAD 48u
#define MEMSYS_HINT_WAY_AHEAD 12u

/* The replay's hints for L2 operation p (memsys_resolve): its set, then its way. */
static void hint_set(memsys_t *m, struct dop *p)
{
    l2_hint_set(m->l2, p->line, &p->hint);
    if (p->kind == MEMSYS_STORE) /* and where its second entry goes (l2.h) */
        l2_hint_write(m->l2, p->line);
}

static void hint_way(memsys_t *m, struct dop *p)
{
    l2_hint_way(m->l2, p->line, &p->hint);
    if (p->kind == MEMSYS_LOAD && p->l1 != DOP_NO_L1)
        __builtin_prefetch(cache_line_at(m->l1[p->sm], p->l1), 1);
}

int memsys_resolve(memsys_t *m, const memsys_done **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (m->dfail)
        return -1;
    size_t nq = m->ndq;
    if (!nq)
        return 0;
    if (!reserve((void **)&m->order, &m->capord, nq, sizeof *m->order) ||
        !reserve((void **)&m->flat, &m->capflat, m->ndops, sizeof *m->flat) ||
        !reserve((void **)&m->out, &m->capout, nq, sizeof *m->out))
        return -1;
    /* replay order: by issue cycle; requests of one cycle in recording order (the SM order,
     * then each SM's own order), as if every SM had advanced one cycle at a time. A counting
     * sort over the window's cycles (stable). */
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < nq; i++) {
        lo = m->dq[i].issue < lo ? m->dq[i].issue : lo;
        hi = m->dq[i].issue > hi ? m->dq[i].issue : hi;
    }
    if (hi - lo >= (1u << 20)) /* a window is at most the shortest L2 latency (281 on the H200) */
        return -2;
    size_t span = (size_t)(hi - lo) + 1;
    if (!reserve((void **)&m->cnt, &m->capcnt, span + 1, sizeof *m->cnt))
        return -1;
    memset(m->cnt, 0, (span + 1) * sizeof *m->cnt);
    for (size_t i = 0; i < nq; i++)
        m->cnt[m->dq[i].issue - lo + 1]++;
    for (size_t c = 1; c <= span; c++)
        m->cnt[c] += m->cnt[c - 1];
    for (size_t i = 0; i < nq; i++)
        m->order[m->cnt[m->dq[i].issue - lo]++] = (uint32_t)i;
    /* The replay knows what comes: its L2 operations, listed in replay order (flat), are
     * prepared ahead of it, MEMSYS_HINT_SET_AHEAD operations ahead asking the host for each
     * one's L2 set (tags, recency record, victim byte), MEMSYS_HINT_WAY_AHEAD ahead finding the
     * way (its tags now at hand) and asking for that line (a miss: the line it will evict, known
     * from the victim byte now at hand) and for a load's L1 line (whose SM ran long ago) that
     * the fill below writes. Counted in operations, not requests: a request of 32 scattered
     * lines has 32 of them. (A prepared L2 lookup stays exact while fewer than 65536
     * allocations enter its set before it is made, cache.h: here at most
     * MEMSYS_HINT_SET_AHEAD.) */
    size_t nf = 0;
    for (size_t k = 0; k < nq; k++) {
        const struct dreq *q = &m->dq[m->order[k]];
        for (uint32_t o = 0; o < q->nop; o++)
            m->flat[nf++] = q->op0 + o;
    }
    for (size_t j = 0; j < nf && j < MEMSYS_HINT_SET_AHEAD; j++)
        hint_set(m, &m->dops[m->flat[j]]);
    for (size_t j = 0; j < nf && j < MEMSYS_HINT_WAY_AHEAD; j++)
        hint_way(m, &m->dops[m->flat[j]]);
    size_t f = 0; /* the next operation in flat */
    for (size_t k = 0; k < nq; k++) {
        uint32_t i = m->order[k];
        struct dreq *q = &m->dq[i];
        uint64_t v = q->known;
        for (uint32_t d = 0; d < q->ndep; d++) /* replayed before q: issued before it */
            v = max64(v, m->dops[m->deps[q->dep0 + d]].value);
        cache_t *l1 = m->l1[q->sm];
        for (uint32_t o = 0; o < q->nop; o++) {
            struct dop *p = &m->dops[q->op0 + o];
            uint64_t token = MEMSYS_TOKEN + q->op0 + o;
            uint64_t r;
            if (f + MEMSYS_HINT_SET_AHEAD < nf)
                hint_set(m, &m->dops[m->flat[f + MEMSYS_HINT_SET_AHEAD]]);
            if (f + MEMSYS_HINT_WAY_AHEAD < nf)
                hint_way(m, &m->dops[m->flat[f + MEMSYS_HINT_WAY_AHEAD]]);
            f++;
            switch (p->kind) {
            case MEMSYS_LOAD: {
                r = l2_read_h(m->l2, p->line, p->mask, q->part, p->t, &p->hint);
                /* the fill, unless its line was replaced since: a token is unique within the
                 * window, and a line allocated again starts cleared (cache_alloc) */
                cache_line *L = p->l1 != DOP_NO_L1 ? cache_line_at(l1, p->l1) : NULL;
                for (uint32_t s = 0; L && p->mask >> s; s++)
                    if ((p->mask >> s & 1) && L->ready[s] == token)
                        L->ready[s] = r;
                break;
            }
            case MEMSYS_STORE:
                r = l2_write_h(m->l2, p->line, p->mask, q->part, p->t, &p->hint);
                break;
            default:
                r = l2_atomic_h(m->l2, p->line, p->mask, q->part, p->t, p->ops, &p->hint);
            }
            p->value = r;
            v = max64(v, r);
        }
        m->out[k] = (memsys_done){q->owner, MEMSYS_TOKEN + i, v, q->store, q->sm};
    }
    m->ndq = m->ndops = m->ndeps = 0;
    *out = m->out;
    *n = nq;
    return 0;
}

void memsys_get_stats(const memsys_t *m, memsys_stats *s)
{
    *s = m->st;
    const l2_stats *l = l2_get_stats(m->l2);
    s->l2_read_sectors = l->sector_reads;
    s->l2_read_hits = l->sector_read_hits;
    s->l2_far_hits = l->far_hits;
    s->l2_write_sectors = l->sector_writes;
    s->l2_atomics = l->atomics;
    s->dram_read_sectors = l->dram_reads;
    s->dram_writeback_sectors = l->dram_writebacks;
    s->dram_bytes = dram_bytes(m->dram);
}
