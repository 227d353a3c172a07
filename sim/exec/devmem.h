/* devmem: the simulated 64-bit device (global) address space.
 *
 * What the hardware does: cudaMalloc hands out virtual addresses in the GPU's
 * unified 49-bit virtual address space, aligned to at least 256 bytes; a kernel
 * that touches an address outside any mapping gets an "illegal address" fault,
 * and compute-sanitizer names the nearest allocation.
 *
 * What we model: allocations live at addresses from DEVMEM_BASE upwards, each
 * base 256-byte aligned, with an unmapped guard gap of DEVMEM_GUARD bytes between
 * consecutive allocations so that off-by-one (and off-by-a-row) overruns fault
 * instead of silently landing in the neighbouring buffer. Bytes between an
 * allocation's end and its 256-byte rounded end are NOT mapped either: an access
 * there is an out-of-bounds fault (compute-sanitizer reports those too).
 *
 * What we simplify: no free/reuse (a launch allocates, runs, dumps, destroys);
 * host backing is one zeroed calloc per allocation (committed at allocation for big
 * buffers up to 1 GB in all, as cudaMalloc's memory is there before a launch, devmem.c
 * commit_pages; beyond that lazily by the OS; ordinary 4 KB pages on purpose: on 2 MB pages, hugemem.h, lat_copy and
 * bk_transpose33 ran 7-13 % slower, also with each buffer at a different offset modulo 2 MB,
 * so not for cache-set aliasing alone: docs/performance.md, twelfth session); the total is
 * capped by the limit given to devmem_create.
 *
 * devmem_translate is on the executor's hot path: it checks a one-entry last-hit
 * cache, then binary-searches the allocations (kept sorted by address, since
 * addresses only grow). It mutates the cache, hence the non-const handle.
 * Not thread-safe: one devmem_t per simulated launch.
 */
#ifndef WL_DEVMEM_H
#define WL_DEVMEM_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define DEVMEM_BASE 0x7f0000000000ull /* first allocation's address */
#define DEVMEM_ALIGN 256u              /* cudaMalloc's guaranteed alignment */
#define DEVMEM_GUARD 0x10000ull        /* unmapped bytes after each allocation's rounded end */
#define DEVMEM_DEFAULT_LIMIT (16ull << 30) /* default total-bytes cap used by `warplab run` */

typedef struct devmem devmem_t;

/* One allocation, as seen by iteration (--dump) and fault messages. */
typedef struct {
    uint64_t base;     /* device address, DEVMEM_ALIGN-aligned */
    uint64_t size;     /* bytes requested (mapped range is [base, base+size)) */
    const char *label; /* e.g. "arg1"; owned by the devmem_t */
    uint8_t *host;     /* host backing of size bytes (NULL when size is 0) */
} devmem_region;

/* A new empty address space whose allocations may total at most limit_bytes
 * (0 means DEVMEM_DEFAULT_LIMIT). Returns NULL only when out of host memory. */
devmem_t *devmem_create(uint64_t limit_bytes);
void devmem_destroy(devmem_t *m);

/* Allocates size zeroed bytes labelled label (copied; NULL means "alloc<N>").
 * *addr gets the device address. A size of 0 gets a unique address with nothing
 * mapped (any access faults), like a zero-size cudaMalloc.
 * Errors: WL_EUSAGE when the total would exceed the limit or host memory runs out. */
wl_status devmem_alloc(devmem_t *m, uint64_t size, const char *label, uint64_t *addr,
                       diag_t *d);

/* Host pointer for [addr, addr+size) when that range lies entirely inside one
 * allocation, else NULL (size 0 is treated as 1). Alignment is the caller's check. */
uint8_t *devmem_translate(devmem_t *m, uint64_t addr, uint64_t size);

/* Describes where addr lies, for fault messages, e.g.
 *   "0x7f0000001000 is 4 bytes after the end of allocation 'arg1' (0x7f0000000000-0x7f0000001000, 4096 bytes)"
 *   "0x7f0000000010 is inside allocation 'arg0' (0x7f0000000000-0x7f0000000100, 256 bytes) at offset 16"
 *   "0x10 is not in or near any allocation"
 * Always NUL-terminates buf when n > 0. */
void devmem_describe(const devmem_t *m, uint64_t addr, char *buf, size_t n);

/* Iteration in address order (= allocation order): i in [0, devmem_count). */
size_t devmem_count(const devmem_t *m);
const devmem_region *devmem_region_at(const devmem_t *m, size_t i);
/* The allocation containing addr (within [base, base+size)), or NULL. */
const devmem_region *devmem_find(const devmem_t *m, uint64_t addr);
/* Sum of the sizes allocated so far. */
uint64_t devmem_used(const devmem_t *m);

#endif
