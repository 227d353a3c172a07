/* memsys: the memory hierarchy behind the SMs: per-SM L1, the L2 and DRAM.
 *
 * Hardware (Volta and later, measured on H200 where marked [OURS]): each SM has an L1 data
 * cache sharing one 256 KB array with shared memory (L1 = unified size minus the shared-memory
 * carveout); 128-byte lines, 32-byte sectors; a miss fetches only the missing sectors. Loads
 * allocate; stores write through to the L2 and also allocate/update the L1 (a thread's load of
 * data it just stored hits L1 at 31.5 cycles, whether the line was present or not [OURS]).
 * Global atomics bypass the L1 and execute in the L2. Local memory (spills, stack) is cached in
 * the L1 like global data.
 * Model: tags only (the data are in devmem), so memory use is bounded by the cache sizes
 * (about 30 MB for the H200's L2 tags, 64 B per 128-B line) and each sector costs a hash and a
 * few tag compares. Latencies are load-to-use as the arch file gives them: L1 hit lat_l1_hit,
 * L2 near lat_l2_near, far lat_l2_far, DRAM lat_dram, plus any queueing in the L2 slices and
 * DRAM channels. L1 bandwidth (lines per cycle) is charged by the timing model before the
 * request gets here (sched.c). Caches start cold at every launch (like a kernel that follows a
 * cudaMemcpy of more than the L2; back-to-back timing loops on a real GPU may keep data warm
 * in the L2: see docs/memory.md).
 * Simplified: ld.global.cg/.cs/.lu are cached like ld.global (the request does not carry the
 * cache operator); no MSHR limits; no texture/constant caches; one op count per request for
 * atomics (spread over its sectors).
 */
#ifndef WL_MEMORY_MEMSYS_H
#define WL_MEMORY_MEMSYS_H

#include <stdint.h>

#include "arch.h"

typedef enum { MEMSYS_LOAD, MEMSYS_STORE, MEMSYS_ATOMIC } memsys_kind;

typedef struct {
    uint64_t l1_load_sectors, l1_load_hits;   /* global + local loads */
    uint64_t l2_read_sectors, l2_read_hits, l2_far_hits;
    uint64_t l2_write_sectors, l2_atomics;
    uint64_t dram_bytes, dram_read_sectors, dram_writeback_sectors;
    uint64_t l1_bytes_per_sm, l2_bytes;        /* capacities modelled */
    double dram_bytes_per_cycle, l2_bytes_per_cycle; /* sustained bandwidths modelled (DRAM:
                                                        reads and writes mixed, a copy) */
    double dram_read_bytes_per_cycle;               /* DRAM, streaming reads only */
} memsys_stats;

typedef struct memsys memsys_t;

/* A memory system for arch a (borrowed; must outlive it). NULL when out of memory or the arch
 * lacks sizes. The L1 capacity is l1_smem_bytes until memsys_set_smem_pool says otherwise. */
memsys_t *memsys_create(const arch_t *a);
void memsys_destroy(memsys_t *m);
/* The shared-memory pool per SM the launch uses (occupancy's carveout); the L1 gets the rest of
 * the unified array. Call before the first access (later calls affect SMs not yet used). */
void memsys_set_smem_pool(memsys_t *m, uint32_t smem_bytes);
/* One warp request of n sectors (sector numbers = address / sector_bytes) from SM sm, leaving
 * the L1 stage at cycle t. local: local memory. ops: lanes of an atomic (0: one per sector).
 * Returns the completion cycle (load data usable, store acknowledged, atomic result back). */
uint64_t memsys_access(memsys_t *m, uint32_t sm, memsys_kind kind, int local, uint64_t t,
                       const uint64_t *sectors, uint32_t n, uint32_t ops);
void memsys_get_stats(const memsys_t *m, memsys_stats *s);

/* Deferred mode, for a caller that simulates SMs one after another over a window of cycles
 * (timing_run). The L1 is per SM, so its part of a request is done at once; the L2 and DRAM
 * are shared, so their part is recorded and replayed by memsys_resolve in the order of the
 * issue cycles, as if all SMs had advanced together one cycle at a time. That is exact when
 * the window is no longer than the shortest L2-side latency (no L2 result can be needed
 * inside the window that asked for it).
 * memsys_access_deferred returns the completion cycle when the L1 answers alone, else a token
 * >= MEMSYS_TOKEN that stands for it until memsys_resolve; issue is the cycle the warp issued
 * the request (t may be later: the L1 stage's queue); owner is the caller's. */
#define MEMSYS_TOKEN (1ull << 62)
typedef struct {
    void *owner;
    uint64_t token, cycle;
    int store;              /* the request was a store (its cycle: the L2's acknowledgement) */
    uint32_t sm;            /* the SM that made it (the caller need not read its owner's) */
} memsys_done;
uint64_t memsys_access_deferred(memsys_t *m, uint32_t sm, memsys_kind kind, int local,
                                uint64_t t, uint64_t issue, const uint64_t *sectors, uint32_t n,
                                uint32_t ops, void *owner);
/* A host-cache hint: SM sm accesses these sectors soon (changes nothing simulated). */
void memsys_prefetch(const memsys_t *m, uint32_t sm, int local, const uint64_t *sectors,
                     uint32_t n);
/* The shortest time any L2-side access takes (from reaching the L2 to completion) with arch a:
 * the longest window for which the deferred mode is exact. */
uint64_t memsys_min_l2_latency(const arch_t *a);
/* Replays the recorded L2 work; *out lists every pending request's completion in replay
 * order (valid until the next call). -1 when out of memory, -2 when the recorded requests span
 * 2^20 cycles or more (the caller's windows are far longer than the deferred mode allows). */
int memsys_resolve(memsys_t *m, const memsys_done **out, size_t *n);

#endif
