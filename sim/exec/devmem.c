/* devmem: the simulated device address space (see devmem.h for the model). */
#include "devmem.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct devmem {
    devmem_region *regs; /* sorted by base: addresses only grow */
    size_t count, cap;
    uint64_t limit;      /* cap on the sum of sizes */
    uint64_t used;       /* sum of sizes */
    uint64_t next;       /* base of the next allocation */
    uint64_t committed;  /* bytes of allocations committed up front (commit_pages) */
    size_t last;         /* last-hit cache for devmem_translate (index, < count when valid) */
};

devmem_t *devmem_create(uint64_t limit_bytes)
{
    devmem_t *m = (devmem_t *)calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->limit = limit_bytes ? limit_bytes : DEVMEM_DEFAULT_LIMIT;
    m->next = DEVMEM_BASE;
    m->last = SIZE_MAX;
    return m;
}

void devmem_destroy(devmem_t *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->count; i++) {
        free(m->regs[i].host);
        free((char *)(uintptr_t)m->regs[i].label);
    }
    free(m->regs);
    free(m);
}

/* Host memory committed at allocation (commit_pages): up to this many bytes in all, from
 * allocations of DEVMEM_COMMIT_MIN bytes on. */
#define DEVMEM_COMMIT_MAX (1ull << 30)
#define DEVMEM_COMMIT_MIN (1ull << 20)

/* cudaMalloc hands out memory that is physically there before the launch. calloc's big blocks
 * are committed page by page on first touch instead, so a kernel's output buffer was committed
 * (one host page fault and a page zeroed per 4 KB) inside the simulated launch and counted in
 * its host time: about 2 % of lat_copy's (docs/performance.md, forty-third session). Committing
 * the pages here moves that work to the allocation, where the program pays it on a GPU too;
 * the process does the same work. Big buffers only, and at most DEVMEM_COMMIT_MAX bytes in
 * all, so that a huge allocation a kernel touches only in part stays lazily backed. A hint:
 * where the host refuses, pages are committed on first touch as before. */
static void commit_pages(devmem_t *m, uint8_t *host, uint64_t size)
{
    if (size < DEVMEM_COMMIT_MIN || size > DEVMEM_COMMIT_MAX - m->committed)
        return;
    m->committed += size;
    uintptr_t a = ((uintptr_t)host + 4095u) & ~(uintptr_t)4095u;
    uintptr_t e = ((uintptr_t)host + (uintptr_t)size) & ~(uintptr_t)4095u;
    if (e <= a)
        return;
#ifdef MADV_POPULATE_WRITE
    if (madvise((void *)a, e - a, MADV_POPULATE_WRITE) == 0)
        return;
#endif
    for (volatile uint8_t *p = (volatile uint8_t *)a; p < (volatile uint8_t *)e; p += 4096)
        *p = 0; /* zero already (calloc): the write commits the page */
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

wl_status devmem_alloc(devmem_t *m, uint64_t size, const char *label, uint64_t *addr,
                       diag_t *d)
{
    char name[32];
    if (!label) {
        snprintf(name, sizeof name, "alloc%zu", m->count);
        label = name;
    }
    if (size > m->limit - m->used)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "device allocation '%s' of %" PRIu64 " bytes exceeds the simulated "
                        "device memory limit (%" PRIu64 " of %" PRIu64 " bytes already used)",
                        label, size, m->used, m->limit);
    /* The address space is 2^64 wide and the total is capped by limit, so the
     * bump pointer cannot wrap for any limit below about 2^63. */
    uint64_t span = round_up(size ? size : 1, DEVMEM_ALIGN) + DEVMEM_GUARD;
    if (m->next > UINT64_MAX - span)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "simulated device address space exhausted");
    if (m->count == m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 16;
        devmem_region *n = (devmem_region *)realloc(m->regs, ncap * sizeof *n);
        if (!n)
            return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of host memory for allocation '%s'",
                            label);
        m->regs = n;
        m->cap = ncap;
    }
    uint8_t *host = NULL;
    if (size) {
        if (size > SIZE_MAX || !(host = (uint8_t *)calloc(1, (size_t)size)))
            return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                            "out of host memory for device allocation '%s' (%" PRIu64 " bytes)",
                            label, size);
    }
    if (host)
        commit_pages(m, host, size);
    size_t ln = strlen(label);
    char *lab = (char *)malloc(ln + 1);
    if (!lab) {
        free(host);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of host memory");
    }
    memcpy(lab, label, ln + 1);
    devmem_region *r = &m->regs[m->count++];
    r->base = m->next;
    r->size = size;
    r->label = lab;
    r->host = host;
    m->next += span;
    m->used += size;
    *addr = r->base;
    return WL_OK;
}

/* Index of the last region whose base <= addr, or SIZE_MAX when none. */
static size_t find_floor(const devmem_t *m, uint64_t addr)
{
    size_t lo = 0, hi = m->count; /* answer in [lo-1, hi) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->regs[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : SIZE_MAX;
}

static int region_holds(const devmem_region *r, uint64_t addr, uint64_t size)
{
    return addr >= r->base && addr - r->base < r->size && size <= r->size - (addr - r->base);
}

uint8_t *devmem_translate(devmem_t *m, uint64_t addr, uint64_t size)
{
    if (size == 0)
        size = 1;
    if (m->last < m->count) {
        const devmem_region *r = &m->regs[m->last];
        if (region_holds(r, addr, size))
            return r->host + (addr - r->base);
    }
    size_t i = find_floor(m, addr);
    if (i == SIZE_MAX || !region_holds(&m->regs[i], addr, size))
        return NULL;
    m->last = i;
    return m->regs[i].host + (addr - m->regs[i].base);
}

const devmem_region *devmem_find(const devmem_t *m, uint64_t addr)
{
    size_t i = find_floor(m, addr);
    if (i == SIZE_MAX || !region_holds(&m->regs[i], addr, 1))
        return NULL;
    return &m->regs[i];
}

size_t devmem_count(const devmem_t *m)
{
    return m->count;
}

const devmem_region *devmem_region_at(const devmem_t *m, size_t i)
{
    return i < m->count ? &m->regs[i] : NULL;
}

uint64_t devmem_used(const devmem_t *m)
{
    return m->used;
}

static int region_text(const devmem_region *r, char *buf, size_t n)
{
    return snprintf(buf, n, "allocation '%s' (0x%" PRIx64 "-0x%" PRIx64 ", %" PRIu64 " bytes)",
                    r->label, r->base, r->base + r->size, r->size);
}

/* "Near" means within the guard gap: farther away, naming an allocation would
 * mislead more than it helps (a wild pointer, not an overrun). */
void devmem_describe(const devmem_t *m, uint64_t addr, char *buf, size_t n)
{
    if (!n)
        return;
    char what[512];
    size_t i = find_floor(m, addr);
    const devmem_region *below = i == SIZE_MAX ? NULL : &m->regs[i];
    const devmem_region *above = i == SIZE_MAX ? (m->count ? &m->regs[0] : NULL)
                                 : (i + 1 < m->count ? &m->regs[i + 1] : NULL);
    if (below && region_holds(below, addr, 1)) {
        region_text(below, what, sizeof what);
        snprintf(buf, n, "0x%" PRIx64 " is inside %s at offset %" PRIu64, addr, what,
                 addr - below->base);
        return;
    }
    uint64_t after = below ? addr - (below->base + below->size) : UINT64_MAX;
    uint64_t before = above ? above->base - addr : UINT64_MAX;
    uint64_t near = round_up(1, DEVMEM_ALIGN) + DEVMEM_GUARD;
    if (below && after <= before && after < near + DEVMEM_ALIGN) {
        region_text(below, what, sizeof what);
        snprintf(buf, n, "0x%" PRIx64 " is %" PRIu64 " byte%s after the end of %s", addr, after,
                 after == 1 ? "" : "s", what);
    } else if (above && before < near) {
        region_text(above, what, sizeof what);
        snprintf(buf, n, "0x%" PRIx64 " is %" PRIu64 " byte%s before the start of %s", addr,
                 before, before == 1 ? "" : "s", what);
    } else {
        snprintf(buf, n, "0x%" PRIx64 " is not in or near any allocation", addr);
    }
}
