/* l2: the GPU-wide L2 cache: partitions, slices, near/far latency, atomics, write-back.
 *
 * Hardware: the Hopper L2 (60 MiB on H200) is split in two partitions of many slices; lines are
 * spread over them by an address hash. An SM reaching data held only by the other partition
 * pays a longer "far" latency, and such data are copied into the SM's own partition
 * (duplication, [GTC21 Ampere talk via notes]). Our H200 chase from one SM shows near ~282
 * cycles flat up to 28 MB, a mix at 32 MB and ~510 (far) at 40-56 MB [OURS]: footprints up to
 * about half the L2 are served near, larger ones far, until they exceed the L2 (DRAM).
 * The L2 is write-back and allocates on write; global atomics execute in the L2 and serialise
 * on one address.
 * Model (fitted to that measured behaviour, not a floor plan): one sectored store of the full
 * capacity holds every line (the point of coherence; dirty lines are written back to DRAM when
 * evicted). Each line also remembers, per partition, when that partition's SMs last touched it
 * (read or wrote: a copy is then held near them); a partition holds capacity / partitions lines
 * near, so a line is near if it is among the partition's last (capacity / partitions) touches,
 * an LRU stack-distance test in O(1). A read of a present sector costs lat_near when the line is
 * near, else lat_far (and the line becomes near); a missing sector is fetched from DRAM
 * (lat_dram), together with the other sectors of its DRAM burst (dram_sectors aligned
 * sectors: 2 on the H200, a 64-byte access). With one partition everything is near. Writes
 * and atomics go to the line (dirty). Every sector access occupies one slice (hash of the line)
 * for sector_bytes / slice bandwidth cycles, so the L2 saturates at its bandwidth. An atomic
 * occupies its line's atomic unit for atomic_cycles per operation, so contention on one
 * address serialises.
 * Written data take twice the room on the H200 (write_copies = 2): a kernel that writes N MB
 * (N >= 32) ends with 28.4-28.7 MB of it dirty in the L2, half the 60 MB, and a copy (N MB read,
 * N written) with 20.1-21.3 MB, as if each written line took two lines and each read line one
 * (60 / 2 = 30; 60 / (1 + 2) = 20) [OURS: gpu/measured/h200/microbench/l2dirty-ncu.csv, Nsight
 * Compute's DRAM bytes written after its cache flush]. The Nsight Compute counts of the
 * repository's copies agree (about 115 MB of DRAM traffic for 134 MB moved). Why the hardware
 * does so is not documented (the writer's partition keeping its own copy of a line whose home
 * is the other would explain it only for half the lines); the model gives a line that becomes
 * dirty a second entry in the store, a tag of its own (line | L2_COPY_TAG) with no data that
 * takes a way like any line and ages by LRU; its eviction writes nothing back. A written
 * sector also costs its slice write_copies operations: the same program measured the L2's
 * store bandwidth at 4.0-4.4 TB/s against 8.2-8.4 TB/s for loads (8 and 16 MB working sets,
 * l2dirty.json "l2_bw"), half, as two copies would take.
 * Simplified: near copies do not take capacity from the store (the measured chase shows no loss
 * of capacity for data shared by both halves); re-references count as touches, which errs
 * towards far; near copies of more than 2 partitions share stamps; no L2 MSHR limit;
 * partial-sector writes do not fetch the rest of the sector from DRAM.
 */
#ifndef WL_MEMORY_L2_H
#define WL_MEMORY_L2_H

#include <stdint.h>

#include "dram.h"
#include "cache.h"

typedef struct {
    uint64_t bytes;             /* total capacity */
    uint32_t line_bytes, sector_bytes;
    uint32_t partitions;        /* >= 1 */
    uint32_t ways;
    uint32_t slices;            /* total, over all partitions */
    double bytes_per_cycle;     /* sustained L2 bandwidth of all slices, bytes per SM cycle */
    uint32_t lat_near, lat_far, lat_dram, lat_atomic; /* load-to-use from the L1 stage */
    double atomic_cycles;       /* per atomic operation on one line */
    uint32_t dram_sectors;      /* sectors DRAM moves per access (aligned group), >= 1 */
    uint32_t write_copies;      /* lines a written line takes (2: a second copy, below), >= 1 */
    hugemem_arena *arena;       /* where the cache's arrays live (NULL: their own mappings) */
} l2_config;

typedef struct {
    uint64_t sector_reads, sector_read_hits, far_hits;
    uint64_t sector_writes, atomics, dram_reads, dram_writebacks;
} l2_stats;

typedef struct l2 l2_t;

/* dram is borrowed (the caller owns it). NULL when out of memory or the config is unusable. */
l2_t *l2_create(const l2_config *cfg, dram_t *dram);
void l2_destroy(l2_t *l);
/* Completion cycle (data back at the SM) of a read of the sectors in `mask` (bit i = sector i)
 * of `line`, requested by an SM of partition p at cycle t. */
uint64_t l2_read(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t);
/* A lookup of `line` prepared ahead (cache_hint_set, then cache_hint_way, some requests
 * later): host-cache hints that also spare the lookup's work; nothing simulated changes. */
void l2_hint_set(const l2_t *l, uint64_t line, cache_hint *h);
void l2_hint_way(const l2_t *l, uint64_t line, cache_hint *h);
/* Host-cache hint for a write of `line` to come: asks for the set of the second entry a line
 * that becomes dirty takes (write_copies > 1); nothing simulated changes. */
void l2_hint_write(const l2_t *l, uint64_t line);
/* Acknowledgement cycle of a write of the sectors in mask. */
uint64_t l2_write(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t);
/* Completion cycle of `ops` atomic operations (0: one per sector) on the sectors in mask of one
 * line (returning atomics): the line's atomic unit serialises them. */
uint64_t l2_atomic(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t, uint32_t ops);
/* The same three with a prepared lookup (h NULL or zeroed: none). */
uint64_t l2_read_h(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t,
                   const cache_hint *h);
uint64_t l2_write_h(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t,
                    const cache_hint *h);
uint64_t l2_atomic_h(l2_t *l, uint64_t line, uint8_t mask, uint32_t p, uint64_t t,
                     uint32_t ops, const cache_hint *h);
const l2_stats *l2_get_stats(const l2_t *l);

#endif
