/* mem: the memory system behind the SM, one request/response interface.
 *
 * A thin adapter onto sim/memory/ (memsys.h): per-SM sectored L1 (capacity = unified L1/shared
 * array minus the launch's shared-memory pool), a two-partition sectored L2 with near/far
 * latencies, slices with finite bandwidth and an atomic unit per line, and DRAM channels with
 * queueing. docs/memory.md describes the model, its numbers and their sources.
 */
#include <stdlib.h>

#include "memsys.h"
#include "timing_int.h"

struct mem {
    memsys_t *ms;
};

mem_t *mem_create(const arch_t *a)
{
    mem_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->ms = memsys_create(a);
    if (!m->ms) {
        free(m);
        return NULL;
    }
    return m;
}

void mem_destroy(mem_t *m)
{
    if (!m)
        return;
    memsys_destroy(m->ms);
    free(m);
}

void mem_set_smem_pool(mem_t *m, uint32_t smem_bytes)
{
    memsys_set_smem_pool(m->ms, smem_bytes);
}

uint64_t mem_access(mem_t *m, const mem_req *r)
{
    memsys_kind k = r->kind == MEM_STORE ? MEMSYS_STORE
                    : r->kind == MEM_ATOMIC ? MEMSYS_ATOMIC
                                            : MEMSYS_LOAD;
    return memsys_access_deferred(m->ms, r->sm, k, r->space == PTX_SPACE_LOCAL, r->cycle,
                                  r->issue, r->sectors, r->nsectors, r->lanes, r->owner);
}

void mem_prefetch(const mem_t *m, uint32_t sm, int local, const uint64_t *sectors, uint32_t n)
{
    memsys_prefetch(m->ms, sm, local, sectors, n);
}

int mem_resolve(mem_t *m, const memsys_done **out, size_t *n)
{
    return memsys_resolve(m->ms, out, n);
}

uint64_t mem_min_l2_latency(const arch_t *a)
{
    return memsys_min_l2_latency(a);
}

void mem_fill_result(const mem_t *m, timing_result *res)
{
    memsys_stats s;
    memsys_get_stats(m->ms, &s);
    res->dram_bytes = s.dram_bytes;
    res->l1_hit_rate = s.l1_load_sectors ? (double)s.l1_load_hits / (double)s.l1_load_sectors : 0.0;
    res->l2_hit_rate = s.l2_read_sectors ? (double)s.l2_read_hits / (double)s.l2_read_sectors : 0.0;
    res->memory_model = "l1-l2-dram";
}
