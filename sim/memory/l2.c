/* l2: home store + per-partition near stores, slices, atomic unit; see l2.h. */
#include "l2.h"

#include <stdlib.h>

#include "cache.h"

#define L2_NEAR_MAX 2 /* partitions with their own near stamps; more share them */
/* the tag of a written line's second entry (write_copies = 2, l2.h): a bit no line number of a
 * 64-bit address has (line = address / line_bytes), apart from memsys's local-memory bit 60 */
#define L2_COPY_TAG (1ull << 62)

struct l2 {
    l2_config cfg;
    cache_t *home;
    uint64_t touch[L2_NEAR_MAX];  /* near touches so far, per partition */
    uint64_t near_lines;          /* near capacity per partition, lines */
    dram_t *slices;         /* the slices are bandwidth servers like DRAM channels */
    dram_t *dram;           /* borrowed */
    l2_stats st;
    /* per mask of missing sectors: the sectors DRAM moves (whole aligned bursts of
     * dram_sectors, within the line) */
    uint8_t burst[1u << CACHE_MAX_SECTORS];
};

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

l2_t *l2_create(const l2_config *cfg, dram_t *dram)
{
    if (cfg->partitions == 0 || cfg->line_bytes == 0 ||
        cfg->sector_bytes == 0 || cfg->line_bytes / cfg->sector_bytes > CACHE_MAX_SECTORS)
        return NULL;
    l2_t *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->cfg = *cfg;
    l->dram = dram;
    uint64_t lines = cfg->bytes / cfg->line_bytes;
    l->home = cache_create_in(lines, cfg->ways, 1, cfg->arena);
    l->near_lines = lines / cfg->partitions;
    uint32_t g = cfg->dram_sectors > 1 ? cfg->dram_sectors : 1;
    uint8_t in_line = (uint8_t)((1u << (cfg->line_bytes / cfg->sector_bytes)) - 1);
    for (uint32_t miss = 0; miss < (1u << CACHE_MAX_SECTORS); miss++) {
        uint8_t fetch = (uint8_t)miss;
        for (uint32_t i = 0; g > 1 && i < 8; i += g) {
            uint8_t grp = (uint8_t)(((1u << g) - 1) << i);
            if (miss & grp)
                fetch |= grp;
        }
        l->burst[miss] = fetch & in_line;
    }
    l->slices = l->home ? dram_create(cfg->slices, cfg->bytes_per_cycle, 0, 1) : NULL;
    if (!l->slices) {
        l2_destroy(l);
        return NULL;
    }
    return l;
}

void l2_destroy(l2_t *l)
{
    if (!l)
        return;
    cache_destroy(l->home);
    dram_destroy(l->slices);
    free(l);
}

const l2_stats *l2_get_stats(const l2_t *l)
{
    return &l->st;
}


/* A line allocated for `line` (absent from c); evicting a dirty line writes its dirty
 * sectors back to DRAM (only the home store holds dirty lines). */
static cache_line *new_line(l2_t *l, cache_t *c, uint64_t line, uint64_t t,
                            const cache_hint *h)
{
    uint64_t vtag;
    uint8_t vdirty;
    cache_line *L = cache_alloc_h(c, line, h, &vtag, &vdirty);
    if (vdirty) {
        uint32_t n = cache_nsectors(vdirty);
        l->st.dram_writebacks += n;
        dram_transfer(l->dram, vtag, t, n * l->cfg.sector_bytes, 1);
    }
    return L;
}

/* The line for `line` in c, allocated when absent. */
static cache_line *get_line(l2_t *l, cache_t *c, uint64_t line, uint64_t t,
                            const cache_hint *h)
{
    cache_line *L = cache_find_h(c, line, h);
    return L ? L : new_line(l, c, line, t, h);
}

/* Sectors `mask` of L (whose valid sectors were `had`) fill at `ready`. (valid is stored, not
 * or-ed in: a new line's record is usually not yet in the host's caches, and a byte load right
 * after cache_alloc cleared it waits for the record: access_line in memsys.c does the same.) */
static void fill_had(cache_line *L, uint8_t had, uint8_t mask, uint64_t ready)
{
    L->valid = (uint8_t)(had | mask);
    cache_set_ready(L, mask, ready);
}

static void fill(cache_line *L, uint8_t mask, uint64_t ready)
{
    fill_had(L, L->valid, mask, ready);
}

/* Latest ready cycle of the sectors in mask. */
static uint64_t ready_of(const cache_line *L, uint8_t mask)
{
    uint64_t r = 0;
    for (uint32_t i = 0; i < CACHE_MAX_SECTORS; i++)
        if (mask >> i & 1)
            r = max64(r, L->ready[i]);
    return r;
}

/* The cycle the request enters its slice's pipeline (after waiting for the slice). */
static uint64_t slice(l2_t *l, uint64_t line, uint64_t t, uint32_t nsec)
{
    return t + dram_serve(l->slices, line, t, nsec * l->cfg.sector_bytes);
}

/* Is the line held near partition p? Its near stamp must be among the partition's last
 * near_lines touches (an LRU stack-distance test; touches count re-references, so it errs
 * towards far). With one partition everything is near. */
static int is_near(const l2_t *l, const cache_line *H, uint32_t p)
{
    if (l->cfg.partitions < 2)
        return 1;
    uint64_t s = H->near[p % L2_NEAR_MAX];
    return s && l->touch[p % L2_NEAR_MAX] - s < l->near_lines;
}

static void touch_near(l2_t *l, cache_line *H, uint32_t p)
{
    if (l->cfg.partitions > 1)
        H->near[p % L2_NEAR_MAX] = ++l->touch[p % L2_NEAR_MAX];
}

void l2_hint_set(const l2_t *l, uint64_t line, cache_hint *h)
{
    cache_hint_set(l->home, line, h);
}

void l2_hint_write(const l2_t *l, uint64_t line)
{
    if (l->cfg.write_copies > 1)
        cache_prefetch(l->home, line | L2_COPY_TAG);
}

void l2_hint_way(const l2_t *l, uint64_t line, cache_hint *h)
{
    cache_hint_way(l->home, line, h);
}

uint64_t l2_read(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t)
{
    return l2_read_h(l, line, mask, p, t, NULL);
}

uint64_t l2_write(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t)
{
    return l2_write_h(l, line, mask, p, t, NULL);
}

uint64_t l2_atomic(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t, uint32_t ops)
{
    return l2_atomic_h(l, line, mask, p, t, ops, NULL);
}

uint64_t l2_read_h(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t,
                   const cache_hint *h)
{
    const l2_config *k = &l->cfg;
    uint32_t n = cache_nsectors(mask);
    l->st.sector_reads += n;
    uint64_t tt = slice(l, line, t, n), done = t;
    cache_line *H = cache_find_h(l->home, line, h);
    uint8_t had = H ? H->valid : 0; /* (none when absent) */
    uint8_t hit = (uint8_t)(had & mask), miss = (uint8_t)(mask & ~hit);
    if (hit) {
        l->st.sector_read_hits += cache_nsectors(hit);
        int nr = is_near(l, H, p);
        if (!nr)
            l->st.far_hits += cache_nsectors(hit);
        done = max64(ready_of(H, hit), tt + (nr ? k->lat_near : k->lat_far));
    }
    if (miss) {
        if (!H) /* cache_find just missed */
            H = new_line(l, l->home, line, t, h);
        /* DRAM moves whole bursts of dram_sectors aligned sectors: the partners come along */
        uint8_t fetch = (uint8_t)(l->burst[miss & ((1u << CACHE_MAX_SECTORS) - 1)] & ~had);
        uint32_t m = cache_nsectors(fetch);
        l->st.dram_reads += m;
        uint64_t r = tt + dram_transfer(l->dram, line, tt, m * k->sector_bytes, 0) + k->lat_dram;
        fill_had(H, had, fetch, r);
        done = max64(done, r);
    }
    touch_near(l, H, p); /* copied near */
    return done;
}

uint64_t l2_write_h(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t,
                    const cache_hint *h)
{
    const l2_config *k = &l->cfg;
    uint32_t n = cache_nsectors(mask);
    l->st.sector_writes += n;
    /* a written sector is kept twice (l2.h): two slice operations */
    uint64_t tt = slice(l, line, t, n * k->write_copies);
    cache_line *H = get_line(l, l->home, line, t, h);
    fill(H, mask, tt);
    uint8_t was_dirty = H->dirty;
    H->dirty |= mask;
    touch_near(l, H, p); /* the writer's partition keeps a copy: its SMs read it near */
    /* a line becoming dirty takes a second entry (l2.h); one still there is only touched */
    if (k->write_copies > 1 && !was_dirty && !cache_find(l->home, line | L2_COPY_TAG))
        new_line(l, l->home, line | L2_COPY_TAG, t, NULL);
    return tt + k->lat_near;
}

uint64_t l2_atomic_h(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t,
                     uint32_t ops, const cache_hint *h)
{
    const l2_config *k = &l->cfg;
    if (ops == 0)
        ops = cache_nsectors(mask);
    l->st.atomics += ops;
    (void)p;
    uint64_t tt = slice(l, line, t, cache_nsectors(mask));
    cache_line *H = get_line(l, l->home, line, t, h);
    /* the request travels to the L2 in half the round trip; the sectors must be present */
    uint64_t half = k->lat_atomic / 2;
    uint64_t arrive = tt + half;
    uint8_t miss = (uint8_t)(mask & ~H->valid);
    if (miss) {
        l->st.dram_reads += cache_nsectors(miss);
        arrive += dram_transfer(l->dram, line, tt, cache_nsectors(miss) * k->sector_bytes, 0) +
                  (k->lat_dram > k->lat_near ? k->lat_dram - k->lat_near : 0);
        fill(H, miss, arrive);
    }
    /* the atomic unit's time is kept in 1/256 cycles: a fractional cost per operation */
    uint64_t begin = max64((max64(arrive, ready_of(H, mask))) << 8, H->busy);
    uint64_t cost = (uint64_t)(k->atomic_cycles * 256.0 + 0.5);
    H->busy = begin + (uint64_t)ops * cost;
    H->dirty |= mask;
    /* the first operation's result is back (lat_atomic - half) after it began; each queued
     * operation adds atomic_cycles */
    return ((H->busy - cost + 255) >> 8) + (k->lat_atomic - half);
}
