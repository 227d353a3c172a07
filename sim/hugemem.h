/* hugemem: host memory for the simulator's large, long-lived state, backed by 2 MB pages where
 * the host kernel offers them (Linux transparent huge pages, asked for with madvise).
 *
 * Why: a full-size run touches tens of megabytes of the model's own state (the register
 * files, warp records and shared memory of every resident block on 132 SMs, the 132 L1s' and
 * the L2's records), much of it for the first time inside the run. On 2 MB pages that is one
 * page fault per 2 MB instead of 512, and fewer host TLB entries for the same state (how much
 * of that survives inside a virtual machine depends on the pages of the host below it).
 * Measured, not assumed: docs/performance.md, twelfth session (lat_copy +7 %, bk_transpose33
 * +4 % alone). Device memory stays on 4 KB pages (devmem.h: slower on huge pages). The pages
 * are a hint: where the kernel has none, or is not Linux, this is plain zeroed memory and
 * nothing else changes. */
#ifndef WL_HUGEMEM_H
#define WL_HUGEMEM_H

#include <stddef.h>

/* Sizes from which a mapping is 2 MB aligned and asked for huge pages. */
#define HUGEMEM_PAGE ((size_t)2 << 20)

/* A zero-filled mapping of size bytes (pages committed on first touch), 4 KB aligned, and
 * 2 MB aligned from HUGEMEM_PAGE bytes on; NULL when out of memory or size is 0. Release with
 * hugemem_unmap and the same size. Under AddressSanitizer mappings and arena pieces are heap
 * blocks (hugemem.c). */
void *hugemem_map(size_t size);
void hugemem_unmap(void *p, size_t size);

/* A zeroed heap block of size bytes aligned to align (a power of two), released with free;
 * NULL when out of memory. What the arena and the mappings are under AddressSanitizer, and
 * the heap form of a piece where there is no arena (exec_block_create). */
void *hugemem_zalloc(size_t size, size_t align);

/* An arena: many small zeroed pieces carved from 2 MB-aligned huge-page chunks, all released
 * at once by hugemem_arena_destroy (no single free). For state that lives as long as a run,
 * such as the pooled blocks of the timing model. */
typedef struct hugemem_arena hugemem_arena;

hugemem_arena *hugemem_arena_create(void);
/* size bytes aligned to align (a power of two, at most 4096), zeroed; NULL when out of
 * memory. */
void *hugemem_arena_alloc(hugemem_arena *a, size_t size, size_t align);
void hugemem_arena_destroy(hugemem_arena *a);

#endif
