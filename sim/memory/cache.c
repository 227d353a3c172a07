/* cache: sectored set-associative tag store; see cache.h. */
#include "cache.h"
#include "hugemem.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CACHE_X86 1
#endif

/* Replacement is exact LRU kept as a recency rank per way (0 = most recently used, fill - 1 =
 * least), all of a set's ranks and its fill count in one 64-byte record: a use of the way of
 * rank r adds one to every rank below r and makes its own 0 (one vector operation on 32 ranks),
 * a miss takes the way of rank ways - 1 (a vector compare). Ways are used in order 0, 1, ...
 * (never freed), so a set's free ways are those >= fill; their rank is CACHE_RANK_FREE, which no
 * use ever lowers. (The same order a doubly linked recency list keeps, in one host line instead
 * of five arrays.) */
#define CACHE_RANK_FREE 0x7f
#define CACHE_META_WAYS 32 /* ranks per record: cache_create keeps ways <= this */
typedef struct {
    _Alignas(64) uint8_t rank[CACHE_META_WAYS];
    uint8_t fill;           /* ways in use */
    uint8_t pad_;
    uint16_t allocs;        /* allocations in this set so far (wraps): cache_find_h */
    uint8_t pad2_[28];
} cache_meta;

struct cache {
    uint64_t *tags;         /* sets x ways: tag + 1, 0 = free */
    uint16_t *digests;      /* sets x CACHE_META_WAYS: a 16-bit digest of each way's tag (of
                               any value when free), one 64-byte host line per set: the scan
                               compares these and reads a tag only where its digest matches */
    cache_meta *meta;       /* per set: recency ranks and fill (page-aligned, lazily zeroed) */
    size_t meta_bytes;
    uint8_t *vict;          /* per set: the way a miss takes (fill, or the least recent), kept
                               apart so that a prefetch hint finds it without the record */
    unsigned char *recs;    /* sets x ways line records, page-aligned: a full record is one
                               host cache line, a ready-only one half of one (rec) */
    size_t lines_bytes;
    int rec_shift;          /* log2(bytes per record): 6, or 5 (cache_create_ready_in) */
    int in_arena;           /* the arrays are pieces of an arena (cache_create_in) */
    uint64_t sets;
    int sets_shift;         /* log2(sets) */
    uint32_t ways;
    int hashed;
    uint32_t waymask;       /* bits 0 .. ways - 1 */
    /* the way of `set` holding tag, or `ways`: picked once for the host (AVX2 compares the
     * set's 32 digests in two instructions; tags are unique in a set, so every scan finds the
     * same way). verify 0: the first way whose digest matches, not checked against the tag (a
     * host-cache hint: cache_hint_way), `ways` when none does (then the tag is absent). */
    uint32_t (*scan)(const struct cache *c, uint64_t set, uint64_t tag, int verify);
    /* makes way w, of rank r, the most recent: every rank below r goes up by one and w's
     * becomes 0; returns the way whose rank is then `last`, or CACHE_META_WAYS when none
     * (picked once for the host, like scan). The ranks are read once and written once, with
     * no byte store in between: a vector load that overlaps an earlier narrower store cannot
     * take its data from the store buffer and waits until every older store has reached the
     * host's cache, those to cold line records included (perf, co_stride32: a tenth of the
     * run waited there when touch stored w's byte and then read the ranks back) */
    uint32_t (*promote)(uint8_t *rank, uint32_t w, uint8_t r, uint8_t last);
    /* the last hashed set computed (find, then alloc of the same tag on a miss) */
    uint64_t memo_tag, memo_set;
};

/* The record of line position i. */
static inline cache_line *rec(const cache_t *c, uint64_t i)
{
    return (cache_line *)(void *)(c->recs + (i << c->rec_shift));
}

/* The digest of a tag: the 16 bits above the set index (the bits below are the set's own, or
 * hashed into it). Two tags of one set share a digest only when they differ by a multiple of
 * 2^16 lines above the set bits (2^30 lines apart on the H200's L2, 2^22 on its L1: a scan then
 * reads both tags). (Folding in the higher bits as well cost a tenth of the memory system's
 * host instructions on co_stride32.) */
static inline uint16_t digest_of(const cache_t *c, uint64_t tag)
{
    return (uint16_t)(tag >> c->sets_shift);
}

static uint32_t scan_scalar(const cache_t *c, uint64_t set, uint64_t tag, int verify)
{
    const uint64_t *t = c->tags + set * c->ways;
    const uint16_t *d = c->digests + set * CACHE_META_WAYS;
    uint16_t dg = digest_of(c, tag);
    uint32_t w = 0;
    while (w < c->ways && (d[w] != dg || (verify && t[w] != tag + 1)))
        w++;
    return w;
}

#ifdef CACHE_X86
__attribute__((target("avx2"))) static uint32_t scan_avx2(const cache_t *c, uint64_t set,
                                                           uint64_t tag, int verify)
{
    /* the 32 digests (16 bits) in two vectors, compared, packed to bytes (packs works per
     * 128-bit half: the permute puts ways 8-15 back after 0-7) and one mask bit per way */
    const __m256i *d = (const __m256i *)(const void *)(c->digests + set * CACHE_META_WAYS);
    __m256i k = _mm256_set1_epi16((short)digest_of(c, tag));
    __m256i e = _mm256_packs_epi16(_mm256_cmpeq_epi16(_mm256_load_si256(d), k),
                                   _mm256_cmpeq_epi16(_mm256_load_si256(d + 1), k));
    uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_permute4x64_epi64(e, 0xD8)) & c->waymask;
    if (!verify)
        return m ? (uint32_t)__builtin_ctz(m) : c->ways;
    const uint64_t *t = c->tags + set * c->ways;
    for (; m; m &= m - 1) {
        uint32_t w = (uint32_t)__builtin_ctz(m);
        if (t[w] == tag + 1)
            return w;
    }
    return c->ways;
}
#endif

static uint32_t promote_scalar(uint8_t *rank, uint32_t w, uint8_t r, uint8_t last)
{
    uint32_t found = CACHE_META_WAYS;
    for (uint32_t i = 0; i < CACHE_META_WAYS; i++) {
        uint8_t k = i == w ? 0 : (uint8_t)(rank[i] + (rank[i] < r));
        rank[i] = k;
        found = k == last && found == CACHE_META_WAYS ? i : found;
    }
    return found;
}

#ifdef CACHE_X86
__attribute__((target("avx2"))) static uint32_t promote_avx2(uint8_t *rank, uint32_t w,
                                                              uint8_t r, uint8_t last)
{
    /* ranks are below 0x80 (CACHE_RANK_FREE included): a signed byte compare is exact */
    const __m256i lane = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                          16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                                          29, 30, 31);
    __m256i v = _mm256_load_si256((const __m256i *)(const void *)rank);
    __m256i lt = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)r), v); /* rank < r: all ones */
    __m256i isw = _mm256_cmpeq_epi8(lane, _mm256_set1_epi8((char)w));
    v = _mm256_andnot_si256(isw, _mm256_sub_epi8(v, lt));
    _mm256_store_si256((__m256i *)(void *)rank, v);
    uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)last)));
    return m ? (uint32_t)__builtin_ctz(m) : CACHE_META_WAYS;
}
#endif


/* The scan and the promotion: called directly where the build's target has AVX2 (-march=native
 * on such a host: scripts/build-fast.sh), so that they inline (no indirect call per lookup);
 * else through the pointers picked at run time. */
#if defined(CACHE_X86) && defined(__AVX2__)
#define CACHE_SCAN(c, set, tag, verify) scan_avx2(c, set, tag, verify)
#define CACHE_PROMOTE(c, rank, w, r, last) promote_avx2(rank, w, r, last)
#else
#define CACHE_SCAN(c, set, tag, verify) (c)->scan(c, set, tag, verify)
#define CACHE_PROMOTE(c, rank, w, r, last) (c)->promote(rank, w, r, last)
#endif

uint64_t cache_hash(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static cache_t *create(uint64_t lines, uint32_t ways, int hashed, hugemem_arena *a,
                       int rec_shift)
{
    if (lines == 0 || ways == 0)
        return NULL;
    if (ways > lines)
        ways = (uint32_t)lines;
    cache_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    /* a power-of-two set count (the largest <= lines / ways), the ways take up the rest
     * (between ways and 2 x ways - 1) */
    c->sets = 1;
    while (c->sets * 2 <= lines / ways)
        c->sets *= 2;
    c->ways = (uint32_t)(lines / c->sets);
    if (c->sets * c->ways > UINT32_MAX) { /* line positions are 32-bit (cache_index) */
        free(c);
        return NULL;
    }
    c->sets_shift = __builtin_ctzll(c->sets);
    c->waymask = c->ways >= 32 ? UINT32_MAX : (1u << c->ways) - 1;
    c->hashed = hashed;
    c->scan = scan_scalar;
    c->promote = promote_scalar;
#ifdef CACHE_X86
    if (__builtin_cpu_supports("avx2")) {
        c->scan = scan_avx2;
        c->promote = promote_avx2;
    }
#endif
    c->memo_tag = UINT64_MAX; /* no line number is all ones (a 128-byte line of 2^64 bytes) */
    size_t n = (size_t)(c->sets * c->ways);
    c->rec_shift = rec_shift;
    c->lines_bytes = n << rec_shift;
    c->meta_bytes = (size_t)c->sets * sizeof *c->meta;
    if (c->ways > CACHE_META_WAYS) { /* the recency record of a set has no room */
        free(c);
        return NULL;
    }
    if (a) {
        /* pieces of the arena: 2 MB pages (hugemem.h) shared by all the caches of a memory
         * system, so that the 132 L1s and the L2's records take a few dozen host TLB entries
         * (each L1 on its own would be a few 4 KB pages among thousands) */
        c->in_arena = 1;
        c->recs = hugemem_arena_alloc(a, c->lines_bytes, 4096);
        c->tags = hugemem_arena_alloc(a, n * sizeof *c->tags, 64);
        c->digests = hugemem_arena_alloc(a, c->sets * CACHE_META_WAYS * sizeof *c->digests, 64);
        c->meta = hugemem_arena_alloc(a, c->meta_bytes, 64);
        c->vict = hugemem_arena_alloc(a, (size_t)c->sets, 64);
    } else {
        /* mappings: page-aligned and zero-filled lazily (untouched sets cost nothing); from
         * 2 MB on on huge pages (sets are picked at random: with 4 KB pages nearly every lookup
         * in a large L2, 31 MB of lines on the H200, would also miss the host's TLB) */
        c->recs = hugemem_map(c->lines_bytes);
        c->tags = hugemem_map(n * sizeof *c->tags);
        c->digests = hugemem_map(c->sets * CACHE_META_WAYS * sizeof *c->digests);
        c->meta = hugemem_map(c->meta_bytes);
        c->vict = hugemem_map((size_t)c->sets);
    }
    /* free ranks are set on a set's first use (cache_alloc), so untouched sets stay untouched
     * pages */
    if (!c->recs || !c->tags || !c->digests || !c->meta || !c->vict) {
        cache_destroy(c);
        return NULL;
    }
    return c;
}

cache_t *cache_create_in(uint64_t lines, uint32_t ways, int hashed, hugemem_arena *a)
{
    _Static_assert(sizeof(cache_line) == 64, "a line record is one host cache line");
    return create(lines, ways, hashed, a, 6);
}

cache_t *cache_create_ready_in(uint64_t lines, uint32_t ways, int hashed, hugemem_arena *a)
{
    _Static_assert(offsetof(cache_line, ready) == 0 &&
                       sizeof(((cache_line *)0)->ready) == 32,
                   "a ready-only record is the first 32 bytes of cache_line");
    return create(lines, ways, hashed, a, 5);
}

cache_t *cache_create(uint64_t lines, uint32_t ways, int hashed)
{
    return cache_create_in(lines, ways, hashed, NULL);
}

void cache_destroy(cache_t *c)
{
    if (!c)
        return;
    if (!c->in_arena) {
        size_t n = (size_t)(c->sets * c->ways);
        hugemem_unmap(c->recs, c->lines_bytes);
        hugemem_unmap(c->tags, n * sizeof *c->tags);
        hugemem_unmap(c->digests, c->sets * CACHE_META_WAYS * sizeof *c->digests);
        hugemem_unmap(c->meta, c->meta_bytes);
        hugemem_unmap(c->vict, (size_t)c->sets);
    }
    free(c);
}

uint64_t cache_capacity_lines(const cache_t *c)
{
    return c->sets * c->ways;
}

static uint64_t set_of(const cache_t *c, uint64_t tag)
{
    /* hashed: the low bits XOR a hash of the high bits, a permutation of every aligned block
     * of `sets` lines (contiguous data spread evenly, strides do not pile up in one set) */
    return (tag ^ (c->hashed ? cache_hash(tag >> c->sets_shift) : 0)) & (c->sets - 1);
}

/* set_of, remembering the last hashed set (a miss's find and alloc hash the tag once). */
static uint64_t set_memo(cache_t *c, uint64_t tag)
{
    if (!c->hashed)
        return tag & (c->sets - 1);
    if (tag != c->memo_tag) {
        c->memo_tag = tag;
        c->memo_set = set_of(c, tag);
    }
    return c->memo_set;
}

/* Makes way w of set `set`, whose rank is r, the most recently used; a full set's next victim
 * changes when w was the least recent. */
static inline void touch_r(cache_t *c, uint64_t set, uint32_t w, uint8_t r)
{
    cache_meta *mt = &c->meta[set];
    if (r == 0) /* already the most recent (a one-way set's victim stays itself) */
        return;
    uint32_t last = CACHE_PROMOTE(c, mt->rank, w, r, (uint8_t)(c->ways - 1));
    if (mt->fill == c->ways && r == c->ways - 1)
        c->vict[set] = (uint8_t)last;
}

static inline void touch(cache_t *c, uint64_t set, uint32_t w)
{
    touch_r(c, set, w, c->meta[set].rank[w]);
}

static inline __attribute__((always_inline)) cache_line *find_in(cache_t *c, uint64_t set,
                                                                 uint64_t tag)
{
    uint32_t w = CACHE_SCAN(c, set, tag, 1);
    if (w == c->ways)
        return NULL;
    touch(c, set, w);
    return rec(c, set * c->ways + w);
}

cache_line *cache_find(cache_t *c, uint64_t tag)
{
    return find_in(c, set_memo(c, tag), tag);
}

/* The way a miss in `set` would take (cache_alloc's choice). */
static uint32_t victim(const cache_t *c, uint64_t set)
{
    return c->vict[set];
}

/* Asks for what a lookup in `set` reads: its tags and its recency record; then either the
 * line a miss would evict and clear (victim_line: found through the set's victim byte, a load
 * the host waits for), or only that byte (cache_hint_way asks for the line later). */
static void prefetch_set(const cache_t *c, uint64_t set, int victim_line)
{
    uint64_t base = set * c->ways;
    __builtin_prefetch(c->digests + set * CACHE_META_WAYS); /* (one host line) */
    __builtin_prefetch(&c->meta[set], 1);
    if (victim_line)
        __builtin_prefetch(rec(c, base + victim(c, set)), 1);
    else
        __builtin_prefetch(&c->vict[set]);
}

void cache_prefetch(const cache_t *c, uint64_t tag)
{
    prefetch_set(c, set_of(c, tag), 1);
}

cache_line *cache_peek(cache_t *c, uint64_t tag)
{
    uint64_t set = set_memo(c, tag);
    uint32_t w = CACHE_SCAN(c, set, tag, 1);
    return w == c->ways ? NULL : rec(c, set * c->ways + w);
}

uint32_t cache_index(const cache_t *c, const cache_line *L)
{
    return (uint32_t)(((const unsigned char *)L - c->recs) >> c->rec_shift);
}

cache_line *cache_line_at(cache_t *c, uint32_t index)
{
    return rec(c, index);
}

static inline __attribute__((always_inline)) cache_line *alloc_in(cache_t *c, uint64_t set,
                                                                  uint64_t tag, uint64_t *vtag,
                                                                  uint8_t *vdirty)
{
    uint64_t base = set * c->ways, *t = c->tags + base;
    cache_meta *mt = &c->meta[set];
    mt->allocs++;
    uint32_t v;
    if (mt->fill == 0) /* the set's first use: every way free */
        memset(mt->rank, CACHE_RANK_FREE, sizeof mt->rank);
    v = c->vict[set]; /* a free way (the lowest), else the least recently used */
    uint8_t r = (uint8_t)(c->ways - 1); /* the victim's rank in a full set */
    if (mt->fill < c->ways) /* a free way: ranked below every used one until touched */
        r = mt->fill++;
    cache_line *L = rec(c, base + v);
    if (vtag) { /* (a write-through cache does not ask: the line is not read, only cleared) */
        *vtag = t[v] ? t[v] - 1 : 0;
        *vdirty = t[v] ? L->dirty : 0;
    }
    if (c->rec_shift == 5) /* (constant sizes: two or one vector stores, not a call) */
        memset(L, 0, 32);
    else
        memset(L, 0, sizeof *L);
    t[v] = tag + 1;
    c->digests[set * CACHE_META_WAYS + v] = digest_of(c, tag);
    /* touch_r without its shortcut (a new set's first way has rank 0 but its byte says
     * free); a free way's byte, CACHE_RANK_FREE, is not below r */
    uint32_t last = CACHE_PROMOTE(c, mt->rank, v, r, (uint8_t)(c->ways - 1));
    c->vict[set] = (uint8_t)(mt->fill < c->ways ? mt->fill : last);
    return L;
}

cache_line *cache_alloc(cache_t *c, uint64_t tag, uint64_t *vtag, uint8_t *vdirty)
{
    return alloc_in(c, set_memo(c, tag), tag, vtag, vdirty);
}

void cache_hint_set(const cache_t *c, uint64_t tag, cache_hint *h)
{
    h->set = (uint32_t)set_of(c, tag);
    h->state = CACHE_HINT_SET;
    prefetch_set(c, h->set, 0);
}

void cache_hint_way(const cache_t *c, uint64_t tag, cache_hint *h)
{
    if (h->state == CACHE_HINT_NONE)
        h->set = (uint32_t)set_of(c, tag);
    uint64_t base = (uint64_t)h->set * c->ways;
    /* the way whose digest matches (cache_find_h checks its tag, asked for here, and looks
     * again when another tag had the same digest) */
    uint32_t w = CACHE_SCAN(c, h->set, tag, 0);
    h->way = (uint8_t)w;
    h->allocs = c->meta[h->set].allocs;
    h->state = CACHE_HINT_WAY;
    if (w < c->ways)
        __builtin_prefetch(c->tags + base + w);
    __builtin_prefetch(rec(c, base + (w < c->ways ? w : victim(c, h->set))), 1);
}

cache_line *cache_find_h(cache_t *c, uint64_t tag, const cache_hint *h)
{
    if (!h || h->state == CACHE_HINT_NONE)
        return cache_find(c, tag);
    if (h->state == CACHE_HINT_WAY) {
        uint64_t base = (uint64_t)h->set * c->ways;
        if (h->way < c->ways && c->tags[base + h->way] == tag + 1) { /* still there */
            touch(c, h->set, h->way);
            return rec(c, base + h->way);
        }
        /* absent then, and no tag has entered the set since */
        if (h->way == c->ways && c->meta[h->set].allocs == h->allocs)
            return NULL;
    }
    return find_in(c, h->set, tag);
}

cache_line *cache_alloc_h(cache_t *c, uint64_t tag, const cache_hint *h, uint64_t *vtag,
                          uint8_t *vdirty)
{
    if (!h || h->state == CACHE_HINT_NONE)
        return cache_alloc(c, tag, vtag, vdirty);
    return alloc_in(c, h->set, tag, vtag, vdirty);
}
