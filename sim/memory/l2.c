/* l2: home store + per-partition near stores, slices, atomic unit; see l2.h. */
#include "l2.h"

#include <stdlib.h>

#include "cache.h"

#define L2_MAX_PARTITIONS 8

struct l2 {
    l2_config cfg;
    cache_t *home;
    cache_t *near[L2_MAX_PARTITIONS]; /* NULL with one partition */
    dram_t *slices;         /* the slices are bandwidth servers like DRAM channels */
    dram_t *dram;           /* borrowed */
    l2_stats st;
};

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

l2_t *l2_create(const l2_config *cfg, dram_t *dram)
{
    if (cfg->partitions == 0 || cfg->partitions > L2_MAX_PARTITIONS || cfg->line_bytes == 0 ||
        cfg->sector_bytes == 0 || cfg->line_bytes / cfg->sector_bytes > CACHE_MAX_SECTORS)
        return NULL;
    l2_t *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->cfg = *cfg;
    l->dram = dram;
    uint64_t lines = cfg->bytes / cfg->line_bytes;
    l->home = cache_create(lines, cfg->ways, 1);
    int ok = l->home != NULL;
    for (uint32_t p = 0; ok && cfg->partitions > 1 && p < cfg->partitions; p++)
        ok = (l->near[p] = cache_create(lines / cfg->partitions, cfg->ways, 1)) != NULL;
    l->slices = ok ? dram_create(cfg->slices, cfg->bytes_per_cycle) : NULL;
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
    for (uint32_t p = 0; p < L2_MAX_PARTITIONS; p++)
        cache_destroy(l->near[p]);
    dram_destroy(l->slices);
    free(l);
}

const l2_stats *l2_get_stats(const l2_t *l)
{
    return &l->st;
}

static uint32_t popcount8(uint8_t v)
{
    uint32_t n = 0;
    for (; v; v &= (uint8_t)(v - 1))
        n++;
    return n;
}

/* The line for `line` in c, allocated when absent; evicting a dirty line writes its dirty
 * sectors back to DRAM (only the home store holds dirty lines). */
static cache_line *get_line(l2_t *l, cache_t *c, uint64_t line, uint64_t t)
{
    cache_line *L = cache_find(c, line);
    if (L)
        return L;
    cache_line victim;
    L = cache_alloc(c, line, &victim);
    if (victim.valid && victim.dirty) {
        uint32_t n = popcount8(victim.dirty);
        l->st.dram_writebacks += n;
        dram_transfer(l->dram, victim.tag, t, n * l->cfg.sector_bytes);
    }
    return L;
}

static void fill(cache_line *L, uint32_t sidx, uint64_t ready)
{
    L->valid |= (uint8_t)(1u << sidx);
    L->ready[sidx] = ready;
}

/* The cycle the request enters its slice's pipeline (after waiting for the slice). */
static uint64_t slice(l2_t *l, uint64_t line, uint64_t t)
{
    return t + dram_transfer(l->slices, line, t, l->cfg.sector_bytes);
}

uint64_t l2_read(l2_t *l, uint64_t line, uint32_t sidx, uint32_t p, uint64_t t)
{
    const l2_config *k = &l->cfg;
    uint8_t bit = (uint8_t)(1u << sidx);
    cache_t *near = l->near[p % k->partitions];
    l->st.sector_reads++;
    uint64_t tt = slice(l, line, t);
    cache_line *N = near ? cache_find(near, line) : NULL;
    if (N && (N->valid & bit)) {
        l->st.sector_read_hits++;
        return max64(N->ready[sidx], tt + k->lat_near);
    }
    cache_line *H = cache_find(l->home, line);
    uint64_t done;
    if (H && (H->valid & bit)) {
        l->st.sector_read_hits++;
        if (!near)
            return max64(H->ready[sidx], tt + k->lat_near);
        l->st.far_hits++;
        done = max64(H->ready[sidx], tt + k->lat_far);
    } else {
        l->st.dram_reads++;
        done = tt + dram_transfer(l->dram, line, tt, k->sector_bytes) + k->lat_dram;
        fill(H ? H : get_line(l, l->home, line, t), sidx, done);
    }
    if (near)
        fill(N ? N : get_line(l, near, line, t), sidx, done); /* copied near */
    return done;
}

uint64_t l2_write(l2_t *l, uint64_t line, uint32_t sidx, uint32_t p, uint64_t t)
{
    const l2_config *k = &l->cfg;
    l->st.sector_writes++;
    uint64_t tt = slice(l, line, t);
    cache_line *H = get_line(l, l->home, line, t);
    fill(H, sidx, tt);
    H->dirty |= (uint8_t)(1u << sidx);
    cache_t *near = l->near[p % k->partitions];
    if (near) /* the writer's partition keeps a copy: its SMs read it near */
        fill(get_line(l, near, line, t), sidx, tt);
    return tt + k->lat_near;
}

uint64_t l2_atomic(l2_t *l, uint64_t line, uint32_t sidx, uint32_t p, uint64_t t, uint32_t ops)
{
    const l2_config *k = &l->cfg;
    uint8_t bit = (uint8_t)(1u << sidx);
    if (ops == 0)
        ops = 1;
    l->st.atomics += ops;
    (void)p;
    uint64_t tt = slice(l, line, t);
    cache_line *H = get_line(l, l->home, line, t);
    /* the request travels to the L2 in half the round trip; the sector must be present */
    uint64_t half = k->lat_atomic / 2;
    uint64_t arrive = tt + half;
    if (!(H->valid & bit)) {
        l->st.dram_reads++;
        arrive += dram_transfer(l->dram, line, tt, k->sector_bytes) +
                  (k->lat_dram > k->lat_near ? k->lat_dram - k->lat_near : 0);
        fill(H, sidx, arrive);
    }
    uint64_t begin = max64(arrive, max64(H->busy, H->ready[sidx]));
    H->busy = begin + (uint64_t)ops * k->atomic_cycles;
    H->dirty |= bit;
    /* the first operation's result is back (lat_atomic - half) after it began; each queued
     * operation adds atomic_cycles */
    return H->busy - k->atomic_cycles + (k->lat_atomic - half);
}
