/* hugemem: huge-page backed mappings and an arena (see hugemem.h). */
#include "hugemem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Under AddressSanitizer mappings and arena pieces are heap blocks instead, so that the
 * sanitizer still sees an overrun of a register file, of shared memory or of a cache's arrays
 * (pieces of one chunk would have no red zones between them, mappings are not tracked). */
#if defined(__SANITIZE_ADDRESS__)
#define HUGEMEM_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HUGEMEM_HEAP 1
#endif
#endif

void *hugemem_zalloc(size_t size, size_t align)
{
    size_t s = (size + align - 1) & ~(align - 1); /* aligned_alloc wants a multiple */
    void *p = s < size ? NULL : aligned_alloc(align, s ? s : align);
    if (p)
        memset(p, 0, s);
    return p;
}

#ifndef HUGEMEM_HEAP
/* Map size bytes (size > 0) at a 2 MB boundary: ask for size + 2 MB and give back the
 * unaligned head and the tail, so that every 2 MB of the range can be one huge page. */
static void *map_aligned(size_t size)
{
    size_t len = size + HUGEMEM_PAGE;
    if (len < size)
        return NULL;
    uint8_t *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uintptr_t a = ((uintptr_t)raw + HUGEMEM_PAGE - 1) & ~(uintptr_t)(HUGEMEM_PAGE - 1);
    uint8_t *p = (uint8_t *)a;
    size_t head = (size_t)(p - raw), tail = len - head - size;
    if (head)
        munmap(raw, head);
    if (tail)
        munmap(p + size, tail);
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE); /* a hint: failure leaves 4 KB pages */
#endif
    return p;
}

static size_t page_round(size_t size)
{
    return (size + 4095) & ~(size_t)4095;
}
#endif

void *hugemem_map(size_t size)
{
    if (!size)
        return NULL;
#ifdef HUGEMEM_HEAP
    return hugemem_zalloc(size, size >= HUGEMEM_PAGE ? HUGEMEM_PAGE : 4096); /* as mapped */
#else
    size_t s = page_round(size);
    if (s < size)
        return NULL;
    if (s < HUGEMEM_PAGE) {
        void *p = mmap(NULL, s, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    return map_aligned(s);
#endif
}

void hugemem_unmap(void *p, size_t size)
{
#ifdef HUGEMEM_HEAP
    (void)size;
    free(p);
#else
    if (p)
        munmap(p, page_round(size));
#endif
}

/* The arena's chunks form a list through a header at the start of each chunk. */
typedef struct chunk {
    struct chunk *next;
    size_t size;
} chunk;

struct hugemem_arena {
    chunk *chunks;    /* newest first */
    uint8_t *cur;     /* next free byte of the newest chunk */
    uint8_t *end;     /* end of the newest chunk */
    void **heap;      /* HUGEMEM_HEAP: every piece, for hugemem_arena_destroy */
    size_t nheap, capheap;
};

hugemem_arena *hugemem_arena_create(void)
{
    return calloc(1, sizeof(hugemem_arena));
}

#ifdef HUGEMEM_HEAP
static void *heap_piece(hugemem_arena *a, size_t size, size_t align)
{
    if (a->nheap == a->capheap) {
        size_t n = a->capheap ? 2 * a->capheap : 64;
        void **h = realloc(a->heap, n * sizeof *h);
        if (!h)
            return NULL;
        a->heap = h;
        a->capheap = n;
    }
    void *p = hugemem_zalloc(size, align);
    if (p)
        a->heap[a->nheap++] = p;
    return p;
}
#endif

void *hugemem_arena_alloc(hugemem_arena *a, size_t size, size_t align)
{
    if (!size)
        size = 1;
    if (!align || (align & (align - 1)) || align > 4096)
        return NULL;
#ifdef HUGEMEM_HEAP
    return heap_piece(a, size, align);
#else
    uintptr_t p = ((uintptr_t)a->cur + align - 1) & ~(uintptr_t)(align - 1);
    if (!a->cur || p > (uintptr_t)a->end || size > (size_t)((uintptr_t)a->end - p)) {
        /* a new chunk: 2 MB, or the piece plus its header rounded up to 2 MB pages (the
         * rest of the current chunk is left unused) */
        size_t need = size + 4096;
        if (need < size)
            return NULL;
        size_t csz = (need + HUGEMEM_PAGE - 1) & ~(HUGEMEM_PAGE - 1);
        chunk *c = map_aligned(csz);
        if (!c)
            return NULL;
        c->next = a->chunks;
        c->size = csz;
        a->chunks = c;
        a->cur = (uint8_t *)(c + 1);
        a->end = (uint8_t *)c + csz;
        p = ((uintptr_t)a->cur + align - 1) & ~(uintptr_t)(align - 1);
    }
    a->cur = (uint8_t *)p + size;
    return (void *)p; /* fresh anonymous pages: already zero */
#endif
}

void hugemem_arena_destroy(hugemem_arena *a)
{
    if (!a)
        return;
    for (chunk *c = a->chunks, *n; c; c = n) {
        n = c->next;
        munmap(c, c->size);
    }
    for (size_t i = 0; i < a->nheap; i++)
        free(a->heap[i]);
    free(a->heap);
    free(a);
}
