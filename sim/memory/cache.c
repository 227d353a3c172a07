/* cache: sectored set-associative tag store; see cache.h. */
#include "cache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct cache {
    uint64_t *tags;         /* sets x ways: tag + 1, 0 = free (the scan touches only these) */
    uint64_t *lru;          /* sets x ways: last-use stamps */
    cache_line *lines;      /* sets x ways, page-aligned (mmap): one line = one host cache line */
    size_t lines_bytes;
    uint64_t sets;
    uint32_t ways;
    int hashed;
    uint64_t stamp;
};

uint64_t cache_hash(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

uint32_t cache_nsectors(uint8_t mask)
{
    uint32_t n = 0;
    for (; mask; mask &= (uint8_t)(mask - 1))
        n++;
    return n;
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
    c->hashed = hashed;
    /* anonymous mmap: page-aligned and zero-filled lazily (untouched sets cost nothing) */
    c->lines_bytes = (size_t)(c->sets * c->ways) * sizeof *c->lines;
    void *p = mmap(NULL, c->lines_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    c->lines = p == MAP_FAILED ? NULL : p;
    c->tags = calloc((size_t)(c->sets * c->ways), sizeof *c->tags);
    c->lru = calloc((size_t)(c->sets * c->ways), sizeof *c->lru);
    if (!c->lines || !c->tags || !c->lru) {
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
    free(c->lru);
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
    return ((tag ^ (c->hashed ? cache_hash(tag / c->sets) : 0)) & (c->sets - 1)) * c->ways;
}

cache_line *cache_find(cache_t *c, uint64_t tag)
{
    uint64_t base = set_of(c, tag), *t = c->tags + base;
    for (uint32_t w = 0; w < c->ways; w++)
        if (t[w] == tag + 1) {
            c->lru[base + w] = ++c->stamp;
            return &c->lines[base + w];
        }
    return NULL;
}

void cache_prefetch(const cache_t *c, uint64_t tag)
{
    uint64_t base = set_of(c, tag);
    for (uint32_t w = 0; w < c->ways; w += 8) { /* 8 per 64-byte host line */
        __builtin_prefetch(c->tags + base + w);
        __builtin_prefetch(c->lru + base + w);
    }
}

cache_line *cache_peek(cache_t *c, uint64_t tag)
{
    uint64_t base = set_of(c, tag), *t = c->tags + base;
    for (uint32_t w = 0; w < c->ways; w++)
        if (t[w] == tag + 1)
            return &c->lines[base + w];
    return NULL;
}

cache_line *cache_alloc(cache_t *c, uint64_t tag, uint64_t *vtag, uint8_t *vdirty)
{
    uint64_t base = set_of(c, tag), *t = c->tags + base, *lru = c->lru + base;
    uint32_t v = 0;
    for (uint32_t w = 0; w < c->ways; w++) {
        if (!t[w]) {
            v = w;
            break;
        }
        if (lru[w] < lru[v])
            v = w;
    }
    cache_line *L = &c->lines[base + v];
    *vtag = t[v] ? t[v] - 1 : 0;
    *vdirty = t[v] ? L->dirty : 0;
    memset(L, 0, sizeof *L);
    t[v] = tag + 1;
    lru[v] = ++c->stamp;
    return L;
}
