/* cache: sectored set-associative tag store; see cache.h. */
#include "cache.h"

#include <stdlib.h>
#include <string.h>

struct cache {
    cache_line *lines;      /* sets x ways */
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

cache_t *cache_create(uint64_t lines, uint32_t ways, int hashed)
{
    if (lines == 0 || ways == 0)
        return NULL;
    if (ways > lines)
        ways = (uint32_t)lines;
    cache_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    /* a power-of-two set count (the largest <= lines / ways), the ways take up the rest */
    c->sets = 1;
    while (c->sets * 2 <= lines / ways)
        c->sets *= 2;
    c->ways = (uint32_t)(lines / c->sets);
    c->hashed = hashed;
    c->lines = calloc((size_t)(c->sets * c->ways), sizeof *c->lines);
    if (!c->lines) {
        free(c);
        return NULL;
    }
    return c;
}

void cache_destroy(cache_t *c)
{
    if (!c)
        return;
    free(c->lines);
    free(c);
}

uint64_t cache_capacity_lines(const cache_t *c)
{
    return c->sets * c->ways;
}

static cache_line *set_of(cache_t *c, uint64_t tag)
{
    /* hashed: the low bits XOR a hash of the high bits, a permutation of every aligned block
     * of `sets` lines (contiguous data spread evenly, strides do not pile up in one set) */
    uint64_t s = (tag ^ (c->hashed ? cache_hash(tag / c->sets) : 0)) & (c->sets - 1);
    return c->lines + s * c->ways;
}

cache_line *cache_find(cache_t *c, uint64_t tag)
{
    cache_line *set = set_of(c, tag);
    for (uint32_t w = 0; w < c->ways; w++)
        if (set[w].valid && set[w].tag == tag) {
            set[w].lru = ++c->stamp;
            return &set[w];
        }
    return NULL;
}

cache_line *cache_alloc(cache_t *c, uint64_t tag, cache_line *victim)
{
    cache_line *set = set_of(c, tag), *v = &set[0];
    for (uint32_t w = 0; w < c->ways; w++) {
        if (!set[w].valid) {
            v = &set[w];
            break;
        }
        if (set[w].lru < v->lru)
            v = &set[w];
    }
    *victim = *v;
    memset(v, 0, sizeof *v);
    v->tag = tag;
    v->lru = ++c->stamp;
    return v;
}
