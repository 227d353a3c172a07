/* occupancy: how many blocks of a kernel fit on one SM, and what limits them.
 *
 * Reproduces CUDA's cudaOccupancyMaxActiveBlocksPerMultiprocessor (the rules of
 * cuda_occupancy.h, restated in docs/occupancy.md) from the numbers of an arch_t: warps,
 * registers (256-register warp allocation, 4 sub-partitions), shared memory (reserved bytes
 * per block, allocation unit, carveout steps), the blocks-per-SM cap and, on CC >= 9, barriers.
 * cudaOccupancyMaxPotentialBlockSize is occ_suggest().
 */
#ifndef WL_OCCUPANCY_H
#define WL_OCCUPANCY_H

#include "arch.h"
#include "diag.h"

/* Limiter bits, in the order CUDA's limitingFactors uses. */
enum {
    OCC_LIMIT_WARPS = 1u << 0,
    OCC_LIMIT_REGISTERS = 1u << 1,
    OCC_LIMIT_SHARED_MEMORY = 1u << 2,
    OCC_LIMIT_BLOCKS = 1u << 3,
    OCC_LIMIT_BARRIERS = 1u << 4,
};
#define OCC_NUM_LIMITS 5

/* "No limit" value of a per-limit field (CUDA uses INT_MAX the same way). */
#define OCC_UNLIMITED 0x7fffffff

typedef struct {
    int block_size;      /* threads per block, 1..max_threads_per_block */
    int regs_per_thread; /* as ptxas reports it; 0..255 (0: no registers, no register limit) */
    int static_smem;     /* bytes of static __shared__ */
    int dyn_smem;        /* bytes of dynamic shared memory at launch */
    int carveout_pct;    /* cudaFuncAttributePreferredSharedMemoryCarveout: -1 (not set) or 0..100 */
    int num_barriers;    /* named barriers a block uses; CUDA's default attribute is 1 */
    int smem_optin;      /* 1: the kernel raised its dynamic smem limit
                            (cudaFuncAttributeMaxDynamicSharedMemorySize) to the device's opt-in
                            maximum; -1: automatic, opted in when dyn_smem > 48 KB; 0: not */
} occ_input;

typedef struct {
    int blocks_per_sm;
    int warps_per_sm;
    double occupancy;    /* warps_per_sm / max_warps_per_sm, 0..1 */
    unsigned limiters;   /* OCC_LIMIT_* bits: every limit equal to the minimum */
    int limit_warps, limit_regs, limit_smem, limit_blocks, limit_barriers; /* blocks per SM */
    int warps_per_block;
    int smem_per_block_alloc;  /* bytes allocated per block: static+reserved+dynamic, rounded */
    int smem_per_block_limit;  /* the per-block limit it was checked against (incl. reserved) */
    int regs_per_block_alloc;  /* registers allocated per block */
    int smem_pool;             /* shared memory per SM after carveout rounding, bytes */
    int launch_smem_pool;      /* the carveout a launch gets (occ_compute), bytes */
} occ_result;

/* Fills an occ_input with CUDA's defaults: carveout -1, 1 barrier, automatic opt-in. */
void occ_input_defaults(occ_input *in);

/* The occupancy of one launch configuration. smem_pool is the carveout the occupancy calculator
 * assumes (CUDA's cudaOccupancy*: the preference, else the largest); launch_smem_pool the one
 * the driver sets when the kernel runs: "the driver automatically configures the shared memory
 * capacity for each kernel to avoid shared memory occupancy bottlenecks" (CUDA C++ Programming
 * Guide, compute capabilities 8.x and 9.0), i.e. without a preference the smallest legal
 * carveout that holds blocks_per_sm blocks, and the L1 gets the rest. Measured on the H200: a
 * one-thread chase (32 blocks of 1 KB reserved per SM: a 32 KB carveout, a 224 KB L1) hits the
 * L1 up to 192 KB, partly at 224 KB, not at 256 KB (gpu/measured/h200/microbench/latency.json),
 * where the largest carveout would leave 28 KB. With a preference, both are the preference's.
 * Invalid input (block size <= 0 or above the Invalid input (block size <= 0 or above the
 * arch's limit, negative sizes, registers > 255, carveout outside -1..100) -> WL_EUSAGE.
 * A configuration that cannot launch (too much shared memory or registers per block) is not
 * an error: blocks_per_sm is 0 and the failing limit is 0. */
wl_status occ_compute(const arch_t *a, const occ_input *in, occ_result *out, diag_t *d);

/* cudaOccupancyMaxPotentialBlockSize with a constant dynamic smem: tries block sizes from the
 * largest multiple of the warp size down to one warp, keeps the one with strictly more active
 * threads per SM (ties go to the larger block), stops early at full occupancy. block_size in
 * `in` is ignored. *min_grid = best blocks per SM * SM count. */
wl_status occ_suggest(const arch_t *a, const occ_input *in, int *block_size, int *min_grid,
                      diag_t *d);

/* Name of a single limiter bit: "warps", "registers", "shared_memory", "blocks", "barriers". */
const char *occ_limit_name(unsigned bit);
/* The first limiter in that order, or "none" when limiters is 0. */
const char *occ_first_limiter(unsigned limiters);

/* "Impact of varying ..." series, like Nsight Compute's occupancy charts: the input with one
 * quantity replaced by each of n values; out[i] gets blocks/warps/occupancy (or all zero when
 * that point is invalid). */
typedef enum { OCC_VARY_BLOCK, OCC_VARY_REGS, OCC_VARY_SMEM } occ_vary;
typedef struct {
    int value;
    int blocks_per_sm, warps_per_sm;
    double occupancy;
} occ_point;

/* The values Nsight Compute would plot: block sizes 32..max in warp steps, registers 8..255
 * (every 8, and 255), dynamic shared memory 0..(opt-in max - static) every 8 KB and the
 * maximum; the input's own value is always added. Points are sorted by value; at most 40
 * are produced on the shipped arch files, pass max >= 64. Returns how many were written. */
int occ_series(const arch_t *a, const occ_input *in, occ_vary what, occ_point *out, int max);

#endif
