/* cache: a sectored, set-associative tag store (tags only: the data live in devmem).
 *
 * Hardware: NVIDIA L1 and L2 caches hold 128-byte lines of four 32-byte sectors; a line's tag is
 * allocated on a miss and only the sectors actually requested are fetched ([FORUM-L1], [MT4G]).
 * Model: each line keeps its tag, a valid and a dirty bit per sector, and per sector the cycle
 * its fill completes (a sector whose fill is still in flight is "pending": a second request
 * waits for that fill instead of fetching again, like an MSHR merge). Replacement is LRU within
 * a set. Sets are indexed by the line number's low bits, or XOR-hashed with its high bits
 * (real L2s hash addresses over slices and sets so that strides do not pile up).
 * Simplified: no MSHR limit (unbounded outstanding misses per cache), no bank conflicts inside
 * the cache, no write-combining buffer.
 */
#ifndef WL_MEMORY_CACHE_H
#define WL_MEMORY_CACHE_H

#include <stdint.h>

#include "bits.h"
#include "hugemem.h"

#define CACHE_MAX_SECTORS 4

typedef struct {
    uint64_t ready[CACHE_MAX_SECTORS];  /* cycle each sector's fill completes */
    /* (a cache made by cache_create_ready_in keeps only the fields above: see there) */
    uint64_t busy;                      /* L2: the atomic unit is busy until then (1/256 cycles) */
    uint64_t near[2];                   /* L2: stamp of the last near touch per partition */
    uint8_t valid, dirty;               /* one bit per sector */
    /* 64 bytes (one host cache line) with 4 sectors; the tags (line numbers), their 16-bit
     * digests and the recency ranks are kept apart so that a set scan touches only the
     * digests and the tag they point to */
} cache_line;

typedef struct cache cache_t;

/* A cache of about `lines` lines: the set count is the largest power of two <= lines / ways
 * and the associativity becomes lines / sets (>= ways), so capacity is kept within one set's
 * worth. hashed: XOR-hashed set index (else line modulo sets). NULL when out of memory,
 * lines == 0, or the associativity comes out above 32 (the recency ranks of a set fill one
 * 32-byte vector; ways <= 16 always gives at most 31). */
cache_t *cache_create(uint64_t lines, uint32_t ways, int hashed);
/* The same with the arrays carved from arena a (huge pages, hugemem.h), released with it;
 * cache_destroy then frees only the handle. */
cache_t *cache_create_in(uint64_t lines, uint32_t ways, int hashed, hugemem_arena *a);
/* The same with half-size line records (32 bytes, two to a host cache line): only the ready
 * times exist (the other fields of cache_line must not be touched), and the caller keeps a
 * sector valid exactly when its ready time is not 0 (an allocated line starts cleared: no
 * valid sector). For the L1, whose ready times are all at least one cycle: its 132 copies'
 * records on the H200 are 8.5 MB instead of 17, fewer host-cache misses and fewer fresh pages
 * to clear. cache_alloc must then be given no victim pointers (a write-through cache). */
cache_t *cache_create_ready_in(uint64_t lines, uint32_t ways, int hashed, hugemem_arena *a);
void cache_destroy(cache_t *c);
/* Lines the cache holds (sets x ways). */
uint64_t cache_capacity_lines(const cache_t *c);

/* The line holding `tag` (its sectors may all be invalid), or NULL; a found line becomes
 * most recently used. */
cache_line *cache_find(cache_t *c, uint64_t tag);
/* The same without counting as a use (the replacement order is unchanged). */
cache_line *cache_peek(cache_t *c, uint64_t tag);
/* A line's position in the cache (constant while the cache exists), and the line at a
 * position: a caller that will come back to a line it just used keeps the position instead
 * of looking the tag up again (the line may hold another tag by then: the caller checks). */
uint32_t cache_index(const cache_t *c, const cache_line *L);
cache_line *cache_line_at(cache_t *c, uint32_t index);
/* Asks the host to bring the tags and recency ranks of tag's set, and the line a miss would
 * evict, into its caches: a hint for a lookup soon (changes nothing simulated). */
void cache_prefetch(const cache_t *c, uint64_t tag);
/* A lookup prepared ahead (host-cache hints that also save its work): cache_hint_set
 * computes tag's set and asks for its tag digests (one host line: cache.c), recency record and
 * victim byte; cache_hint_way, later, once those are in the host's caches, finds the way whose
 * digest matches tag's (or none) and asks for its tag and line. cache_find_h and cache_alloc_h
 * then give what cache_find and cache_alloc would, checking the remembered way with one
 * compare: a tag found is still there when its way still holds it (another tag with the same
 * digest: looked up again); a tag absent is still absent when no allocation has entered the
 * set since (a 16-bit count per set: exact as long as fewer than 65536 allocations in one set
 * come between cache_hint_way and the lookup). A zeroed hint (state CACHE_HINT_NONE) means none. */
enum { CACHE_HINT_NONE, CACHE_HINT_SET, CACHE_HINT_WAY };
typedef struct {
    uint32_t set;
    uint16_t allocs;
    uint8_t way, state;
} cache_hint;
void cache_hint_set(const cache_t *c, uint64_t tag, cache_hint *h);
void cache_hint_way(const cache_t *c, uint64_t tag, cache_hint *h);
cache_line *cache_find_h(cache_t *c, uint64_t tag, const cache_hint *h);
cache_line *cache_alloc_h(cache_t *c, uint64_t tag, const cache_hint *h, uint64_t *vtag,
                          uint8_t *vdirty);
/* Allocates a way for `tag` (which must not be present), evicting the set's LRU line; the
 * evicted line's tag and dirty mask go to *vtag and *vdirty (*vdirty = 0 when the way was free
 * or clean); vtag and vdirty NULL: not wanted (a write-through cache, whose lines are never
 * dirty: the evicted line is then not read). The returned line has no valid sectors but stays
 * allocated (cache_find finds it) until evicted. */
cache_line *cache_alloc(cache_t *c, uint64_t tag, uint64_t *vtag, uint8_t *vdirty);

/* Sets the ready time of the sectors of L in mask (the L1's and the L2's fills, stores and
 * invalidations: a ready-only record's sector is invalid at 0). */
static inline void cache_set_ready(cache_line *L, uint8_t mask, uint64_t ready)
{
    for (uint32_t i = 0; mask >> i; i++)
        if (mask >> i & 1)
            L->ready[i] = ready;
}

/* Number of sectors (set bits) in a sector mask. */
static inline uint32_t cache_nsectors(uint8_t mask)
{
    return wl_popc32(mask);
}

/* 64-bit mixer (splitmix64 finaliser) used for set, slice, channel and partition hashing. */
uint64_t cache_hash(uint64_t x);

#endif
