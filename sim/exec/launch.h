/* launch: run a whole kernel launch functionally (no timing).
 *
 * What the hardware does: the grid's blocks are dispatched to SMs as resources free up; a block's
 * warps are interleaved by the warp schedulers and meet at barriers.
 * What we model: blocks run in linear block-index order (x fastest), at most
 * max_resident_blocks at a time (so a 1,000,000-block grid needs memory for a bounded set only);
 * inside a block, each warp runs until it blocks on a barrier, spins (a failed mbarrier try_wait),
 * or exits, then the next warp in round-robin order; when a whole round makes no progress the
 * block is deadlocked (WL_EDEADLOCK naming the barrier and the waiting warps).
 * Module .global/.const variables are allocated in devmem (with their initializers) before the
 * first block starts. Deterministic: the same inputs give the same results and counts.
 */
#ifndef WL_LAUNCH_H
#define WL_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "devmem.h"
#include "diag.h"
#include "ir.h"

#define LAUNCH_DEFAULT_SMS 132               /* H100/H200 SXM */
#define LAUNCH_DEFAULT_RESIDENT 16           /* blocks alive at once when 0 is given */
#define LAUNCH_DEFAULT_MAX_WARP_INSTS (UINT64_C(1) << 36) /* runaway bound when 0 is given */

typedef struct {
    uint32_t grid[3], block[3];
    uint32_t dyn_smem;          /* bytes of dynamic shared memory */
    const void *params;         /* the kernel's .param space, packed at the IR's param offsets */
    size_t params_size;         /* must be >= kernel->param_size */
    int num_sms;                /* %nsmid, and %smid = block index mod num_sms; 0 -> 132 */
    int max_resident_blocks;    /* blocks executed concurrently (bounded memory); 0 -> 16 */
    uint64_t max_warp_insts;    /* runaway bound -> WL_EDEADLOCK; 0 -> 2^36 */
    /* Device-side printf: each formatted string (one printf call of one thread, in execution
     * order) goes to print(print_ctx, text); NULL discards it. A failed device assert() is a
     * fault (WL_EFAULT) naming the assertion, its file and line. */
    void (*print)(void *ctx, const char *text);
    void *print_ctx;
} launch_config;

typedef struct {
    uint64_t warp_insts, thread_insts, blocks_done;
    /* Branch instructions (bra) executed, counted once per warp; divergent ones split the
     * warp. branch_efficiency = 1 - divergent/branches, which is Nsight Compute's
     * "Branch Efficiency" (non-divergent / total branches); 1.0 when there are no branches. */
    uint64_t branches, divergent_branches;
    double branch_efficiency;
    double avg_active_lanes;    /* thread_insts / warp_insts (guard-true lanes) */
    uint64_t op_count[PTX_OP_COUNT]; /* warp instructions per opcode */
} launch_stats;

/* Runs kernel k of module m over the grid. mem holds the buffers the params point at; module
 * globals are added to it. st may be NULL. Errors: WL_EUSAGE (bad config), WL_EUNSUPPORTED
 * (construct met at run time, with the PTX position), WL_EFAULT (bad access, with space, address,
 * allocation, block, thread, PTX line), WL_EDEADLOCK (barrier or runaway loop). */
wl_status launch_kernel(const ptx_module *m, const ptx_func *k, const launch_config *cfg,
                        devmem_t *mem, launch_stats *st, diag_t *d);

#endif
