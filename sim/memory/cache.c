/* cache: sectored set-associative tag store; see cache.h. */
#include "cache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CACHE_X86 1
#endif

/* Replacement is exact LRU kept as one doubly linked recency list per set (most recent at the
 * head), so a hit moves its way to the head and a miss takes the tail: no scan of use stamps.
 * Ways are used in order 0, 1, ... (never freed), so a set's free ways are those >= fill. */
struct cache {
    uint64_t *tags;         /* sets x ways: tag + 1, 0 = free (the scan touches only these) */
    uint16_t *prev, *next;  /* sets x ways: the recency list (way indexes within the set) */
    uint16_t *head, *tail;  /* per set: most and least recently used way */
    uint16_t *fill;         /* per set: ways in use */
    cache_line *lines;      /* sets x ways, page-aligned (mmap): one line = one host cache line */
    size_t lines_bytes;
    uint64_t sets;
    int sets_shift;         /* log2(sets) */
    uint32_t ways;
    int hashed;
    /* the way of a set holding key (tag + 1), or `ways`: picked once for the host (AVX2
     * compares four tags per instruction; tags are unique in a set, so the first match is the
     * only one and every scan finds the same way) */
    uint32_t (*scan)(const uint64_t *t, uint32_t ways, uint64_t key);
    /* the last hashed set computed (find, then alloc of the same tag on a miss) */
    uint64_t memo_tag, memo_set;
};

static uint32_t scan_scalar(const uint64_t *t, uint32_t ways, uint64_t key)
{
    uint32_t w = 0;
    while (w < ways && t[w] != key)
        w++;
    return w;
}

#ifdef CACHE_X86
__attribute__((target("avx2"))) static uint32_t scan_avx2(const uint64_t *t, uint32_t ways,
                                                           uint64_t key)
{
    __m256i k = _mm256_set1_epi64x((long long)key);
    uint32_t w = 0;
    for (; w + 4 <= ways; w += 4) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(t + w));
        int m = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, k)));
        if (m)
            return w + (uint32_t)__builtin_ctz((unsigned)m);
    }
    return w + scan_scalar(t + w, ways - w, key);
}
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

cache_t *cache_create(uint64_t lines, uint32_t ways, int hashed)
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
    c->sets_shift = __builtin_ctzll(c->sets);
    c->hashed = hashed;
    c->scan = scan_scalar;
#ifdef CACHE_X86
    if (__builtin_cpu_supports("avx2"))
        c->scan = scan_avx2;
#endif
    c->memo_tag = UINT64_MAX; /* no line number is all ones (a 128-byte line of 2^64 bytes) */
    /* anonymous mmap: page-aligned and zero-filled lazily (untouched sets cost nothing) */
    c->lines_bytes = (size_t)(c->sets * c->ways) * sizeof *c->lines;
    void *p = mmap(NULL, c->lines_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    c->lines = p == MAP_FAILED ? NULL : p;
#ifdef MADV_HUGEPAGE
    /* sets are picked at random: with 4 KB pages nearly every lookup in a large L2 (31 MB of
     * lines on the H200) would also miss the host's TLB; ask for 2 MB pages (Linux
     * transparent huge pages, where the kernel offers them; a hint, nothing else changes) */
    if (c->lines && c->lines_bytes >= (2u << 20))
        madvise(p, c->lines_bytes, MADV_HUGEPAGE);
#endif
    size_t n = (size_t)(c->sets * c->ways);
    c->tags = calloc(n, sizeof *c->tags);
    c->prev = malloc(n * sizeof *c->prev);
    c->next = malloc(n * sizeof *c->next);
    c->head = calloc((size_t)c->sets, sizeof *c->head);
    c->tail = calloc((size_t)c->sets, sizeof *c->tail);
    c->fill = calloc((size_t)c->sets, sizeof *c->fill);
    if (!c->lines || !c->tags || !c->prev || !c->next || !c->head || !c->tail || !c->fill ||
        c->ways > UINT16_MAX) {
        cache_destroy(c);
        return NULL;
    }
    return c;
}

void cache_destroy(cache_t *c)
{
    if (!c)
        return;
    if (c->lines)
        munmap(c->lines, c->lines_bytes);
    free(c->tags);
    free(c->prev);
    free(c->next);
    free(c->head);
    free(c->tail);
    free(c->fill);
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

/* Makes way w of the set at `base` (index set) the most recently used; `fresh`: w is not in
 * the list yet. */
static void touch(cache_t *c, uint64_t set, uint64_t base, uint16_t w, int fresh)
{
    uint16_t *prev = c->prev + base, *next = c->next + base;
    if (!fresh) {
        if (c->head[set] == w)
            return;
        /* unlink (w is not the head, so it has a predecessor) */
        next[prev[w]] = next[w];
        if (c->tail[set] == w)
            c->tail[set] = prev[w];
        else
            prev[next[w]] = prev[w];
    } else if (c->fill[set] == 1) { /* the set's first way */
        c->head[set] = c->tail[set] = w;
        return;
    }
    next[w] = c->head[set];
    prev[c->head[set]] = w;
    c->head[set] = w;
}

cache_line *cache_find(cache_t *c, uint64_t tag)
{
    uint64_t set = set_memo(c, tag), base = set * c->ways;
    uint32_t w = c->scan(c->tags + base, c->ways, tag + 1);
    if (w == c->ways)
        return NULL;
    touch(c, set, base, (uint16_t)w, 0);
    return &c->lines[base + w];
}

/* The way a miss in `set` would take (cache_alloc's choice). */
static uint16_t victim(const cache_t *c, uint64_t set)
{
    return c->fill[set] < c->ways ? c->fill[set] : c->tail[set];
}

void cache_prefetch(const cache_t *c, uint64_t tag)
{
    uint64_t set = set_of(c, tag), base = set * c->ways;
    for (uint32_t w = 0; w < c->ways; w += 8) /* 8 per 64-byte host line */
        __builtin_prefetch(c->tags + base + w);
    __builtin_prefetch(c->prev + base);
    __builtin_prefetch(c->next + base);
    /* the line a miss would evict and clear (fill and tail are small: a set's 2 bytes each) */
    __builtin_prefetch(&c->lines[base + victim(c, set)], 1);
}

void cache_prefetch_line(const cache_t *c, uint64_t tag)
{
    uint64_t set = set_of(c, tag), base = set * c->ways;
    uint32_t w = c->scan(c->tags + base, c->ways, tag + 1);
    __builtin_prefetch(&c->lines[base + (w < c->ways ? w : victim(c, set))], 1);
}

cache_line *cache_peek(cache_t *c, uint64_t tag)
{
    uint64_t base = set_memo(c, tag) * c->ways;
    uint32_t w = c->scan(c->tags + base, c->ways, tag + 1);
    return w == c->ways ? NULL : &c->lines[base + w];
}

cache_line *cache_alloc(cache_t *c, uint64_t tag, uint64_t *vtag, uint8_t *vdirty)
{
    uint64_t set = set_memo(c, tag), base = set * c->ways, *t = c->tags + base;
    uint16_t v;
    int fresh = c->fill[set] < c->ways;
    if (fresh) /* a free way: the lowest one */
        v = c->fill[set]++;
    else       /* the least recently used */
        v = c->tail[set];
    cache_line *L = &c->lines[base + v];
    *vtag = t[v] ? t[v] - 1 : 0;
    *vdirty = t[v] ? L->dirty : 0;
    memset(L, 0, sizeof *L);
    t[v] = tag + 1;
    touch(c, set, base, v, fresh);
    return L;
}
