/* mem: the memory system behind the SM, one request/response interface.
 *
 * Hardware: L1 (per SM) -> L2 (two partitions on Hopper) -> DRAM, with sectored caches, MSHRs
 * and a finite DRAM bandwidth.
 * Model (placeholder until the memory-hierarchy issue replaces this file behind the same
 * interface): every global load misses to DRAM and costs the arch's DRAM load-to-use latency
 * (lat_dram); global atomics cost lat_atomic_global; local memory (spills, stack) hits L1
 * (lat_l1_hit); stores are acknowledged after the near-L2 latency (lat_l2_near). DRAM
 * bandwidth is a single token bucket: every sector moved between L2 and DRAM takes
 * sector_bytes / (dram_bandwidth_gbs / sm_clock) cycles of the bus, so streaming kernels
 * saturate at the arch's DRAM bandwidth.
 * Simplified: no caches (l1/l2 hit rates are 0), no queueing inside L2, requests are served in
 * the order they are made (their cycles are not monotone across SMs).
 */
#include <math.h>
#include <stdlib.h>

#include "timing_int.h"

struct mem {
    const arch_t *a;
    double bytes_per_cycle;
    double bus_free;        /* cycle the DRAM bus is free again */
    uint64_t dram_bytes;
};

mem_t *mem_create(const arch_t *a)
{
    mem_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->a = a;
    m->bytes_per_cycle = a->dram_bandwidth_gbs * 1e3 / (a->sm_clock_mhz > 0 ? a->sm_clock_mhz : 1);
    if (m->bytes_per_cycle <= 0)
        m->bytes_per_cycle = 1e9; /* no bandwidth figure: unlimited */
    return m;
}

void mem_destroy(mem_t *m)
{
    free(m);
}

uint64_t mem_access(mem_t *m, const mem_req *r)
{
    const arch_t *a = m->a;
    if (r->space == PTX_SPACE_LOCAL)
        return r->cycle + (uint64_t)a->lat_l1_hit;
    uint64_t bytes = (uint64_t)r->nsectors * (uint64_t)a->sector_bytes;
    m->dram_bytes += bytes;
    double start = (double)r->cycle > m->bus_free ? (double)r->cycle : m->bus_free;
    m->bus_free = start + (double)bytes / m->bytes_per_cycle;
    /* a request waits for the bus to be free, then sees the full latency */
    uint64_t base = (uint64_t)ceil(start);
    switch (r->kind) {
    case MEM_STORE: return base + (uint64_t)a->lat_l2_near;
    case MEM_ATOMIC: return base + (uint64_t)a->lat_atomic_global;
    default: return base + (uint64_t)a->lat_dram;
    }
}

void mem_fill_result(const mem_t *m, timing_result *res)
{
    res->dram_bytes = m->dram_bytes;
    res->l1_hit_rate = 0.0;
    res->l2_hit_rate = 0.0;
    res->memory_model = "fixed-latency";
}
