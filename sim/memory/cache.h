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

#define CACHE_MAX_SECTORS 4

typedef struct {
    uint64_t busy;                      /* L2: the atomic unit is busy until then (1/256 cycles) */
    uint64_t near[2];                   /* L2: stamp of the last near touch per partition */
    uint64_t ready[CACHE_MAX_SECTORS];  /* cycle each sector's fill completes */
    uint8_t valid, dirty;               /* one bit per sector */
    /* 64 bytes (one host cache line) with 4 sectors; the tags (line numbers) and recency
     * ranks are kept apart so that a set scan touches only them */
} cache_line;

typedef struct cache cache_t;

/* A cache of about `lines` lines: the set count is the largest power of two <= lines / ways
 * and the associativity becomes lines / sets (>= ways), so capacity is kept within one set's
 * worth. hashed: XOR-hashed set index (else line modulo sets). NULL when out of memory,
 * lines == 0, or the associativity comes out above 32 (the recency ranks of a set fill one
 * 32-byte vector; ways <= 16 always gives at most 31). */
cache_t *cache_create(uint64_t lines, uint32_t ways, int hashed);
void cache_destroy(cache_t *c);
/* Lines the cache holds (sets x ways). */
uint64_t cache_capacity_lines(const cache_t *c);

/* The line holding `tag` (its sectors may all be invalid), or NULL; a found line becomes
 * most recently used. */
cache_line *cache_find(cache_t *c, uint64_t tag);
/* The same without counting as a use (the replacement order is unchanged). */
cache_line *cache_peek(cache_t *c, uint64_t tag);
/* Asks the host to bring the tags and recency ranks of tag's set, and the line a miss would
 * evict, into its caches: a hint for a lookup soon (changes nothing simulated). */
void cache_prefetch(const cache_t *c, uint64_t tag);
/* A later hint for the same lookup, once the tags are in the host's caches: brings in the
 * line a lookup of tag will use (the one holding it, else the one a miss would take). */
void cache_prefetch_line(const cache_t *c, uint64_t tag);
/* Allocates a way for `tag` (which must not be present), evicting the set's LRU line; the
 * evicted line's tag and dirty mask go to *vtag and *vdirty (*vdirty = 0 when the way was free
 * or clean). The returned line has no valid sectors but stays allocated (cache_find finds it)
 * until evicted. */
cache_line *cache_alloc(cache_t *c, uint64_t tag, uint64_t *vtag, uint8_t *vdirty);

/* Number of sectors (set bits) in a sector mask. */
static inline uint32_t cache_nsectors(uint8_t mask)
{
    return wl_popc32(mask);
}

/* 64-bit mixer (splitmix64 finaliser) used for set, slice, channel and partition hashing. */
uint64_t cache_hash(uint64_t x);

#endif
