/* timing: the cycle-level model of one kernel launch (public entry).
 *
 * The functional engine (exec.h) decides WHAT each warp instruction does; this model decides
 * WHEN each warp issues, on which SM and sub-partition, and why a warp did not issue on a given
 * cycle (Nsight Compute's stall reasons, stall.h). docs/model.md explains every part in plain
 * words: the block dispatcher (gpu.c), the four schedulers per SM and their policies (sched.c),
 * the per-warp scoreboard (sb.c), shared-memory banks and global coalescing (ldst.c), the memory
 * behind one request/response interface (mem.c), statistics and reports (stats.c) and the trace
 * file (trace.h).
 *
 * Time: one clock (SM cycles), an event queue of scheduler wake-ups, cycles in which nothing can
 * happen are skipped, never looped over; stall accounting over skipped cycles is exact. Runs are
 * deterministic: the same inputs give the same cycles, statistics and trace bytes.
 */
#ifndef WL_TIMING_H
#define WL_TIMING_H

#include <stdint.h>
#include <stdio.h>

#include "arch.h"
#include "devmem.h"
#include "diag.h"
#include "ir.h"
#include "spillmap.h"
#include "stall.h"

typedef struct cJSON cJSON;

typedef enum {
    SCHED_LRR,
    SCHED_GTO,
    SCHED_TWO_LEVEL,
    SCHED_GTY,
    SCHED_BRR,
    SCHED_POLICY_COUNT
} sched_policy;

/* "lrr", "gto", "two-level", "gty", "brr"; -1 for anything else. */
int sched_policy_from_name(const char *name);
const char *sched_policy_name(int policy);

typedef struct {
    uint32_t grid[3], block[3];
    uint32_t dyn_smem;          /* bytes of dynamic shared memory */
    const void *params;         /* the kernel's .param space, packed at the IR's offsets */
    size_t params_size;
    int regs_per_thread;        /* for residency (occupancy rules); 0..255 */
    int policy;                 /* sched_policy, or -1 for the arch file's default */
    uint64_t max_cycles;        /* 0: no limit; exceeded -> WL_EDEADLOCK */
    uint32_t window;            /* SMs advance in windows of at most this many cycles; 0 or
                                   more than the shortest L2-side latency: that latency (281 on
                                   the H200); 1: one cycle at a time (docs/model.md, section 8) */
    const char *trace_path;     /* NULL: no trace */
    int lazy_always;            /* 1: every scheduler defers the charges of the warps it does
                                   not look at from its first evaluation, instead of choosing
                                   to once it pays (sched.c, sched_eval). The results are the
                                   same either way; the tests use it to check that. */
    int no_ahead;               /* 1: no SM runs ahead of the window (gpu.c run_loop); the
                                   results are the same either way (the tests compare) */
    const spill_kernel *spills; /* ptxas's spill code of this kernel (spillmap.h), issued as
                                   local-memory warp instructions; NULL: none */
    const char *spills_path;    /* its map file, for errors (may be NULL) */
    const char *ptx_path;       /* recorded in the trace header (may be NULL) */
    const char *ptx_source;     /* PTX text embedded in the trace (may be NULL) */
    /* Called about every million warp instructions (NULL: never); the CLI prints progress. */
    void (*progress)(void *ctx, uint64_t cycle, uint64_t blocks_done, uint64_t blocks_total);
    void *progress_ctx;
    /* Device printf: each formatted string goes to print(print_ctx, text); NULL discards it. */
    void (*print)(void *ctx, const char *text);
    void *print_ctx;
} timing_config;

typedef struct {
    uint32_t block;             /* linear block id */
    uint32_t sm;
    uint64_t start, end;        /* cycles: warps resident from start; last warp retired at end */
} timing_block_rec;

typedef struct {
    /* launch */
    char kernel[128];
    char arch[ARCH_NAME_MAX];
    uint32_t grid[3], block[3];
    int policy;
    int sm_count, subpartitions;
    double clock_mhz;
    /* occupancy */
    int blocks_per_sm, warps_per_block, max_warps_per_sm;
    double theoretical_occupancy;
    double achieved_occupancy;      /* resident warp-cycles / SM active cycles / max warps */
    const char *occupancy_limiter;
    /* time */
    uint64_t cycles;                /* launch (cycle 0) to last block retired */
    uint64_t first_dispatch, last_retire;
    double time_us;                 /* (last_retire - first_dispatch) / clock */
    uint64_t sm_active_cycles;      /* summed over SMs: cycles with >= 1 resident block */
    uint64_t waves_x100;            /* blocks / (blocks_per_sm * SMs) * 100 */
    /* instructions */
    uint64_t warp_instructions, thread_instructions; /* issued */
    uint64_t folded_instructions;   /* executed PTX instructions ptxas folds away (not issued) */
    double ipc;                     /* warp instructions per active SM cycle */
    uint64_t op_count[PTX_OP_COUNT];
    uint64_t branches, divergent_branches;
    double branch_efficiency;       /* 1 - divergent/branches (1 without branches) */
    /* scheduler statistics (per scheduler, averaged over active scheduler cycles) */
    uint64_t sched_active_cycles;   /* summed over schedulers: cycles with >= 1 resident warp */
    uint64_t sched_issue_cycles;    /* ... of which an instruction was issued */
    uint64_t eligible_warp_cycles;  /* warp-cycles in selected or not_selected */
    uint64_t evaluations;           /* scheduler evaluations: the model's work, not cycles */
    uint64_t ahead_evaluations;     /* those made by an SM running ahead (gpu.c run_loop; not
                                       printed: the tests check that it happens) */
    /* warp states: warp-cycles per reason; their sum is resident_warp_cycles */
    uint64_t stalls[STALL_COUNT];
    uint64_t resident_warp_cycles;
    /* memory */
    uint64_t shared_requests, shared_wavefronts, shared_bank_conflicts;
    uint64_t global_load_requests, global_load_sectors;
    uint64_t global_store_requests, global_store_sectors;
    uint64_t global_atomic_requests;
    uint64_t local_requests, local_sectors;
    uint64_t dram_bytes;
    double l1_hit_rate, l2_hit_rate;
    const char *memory_model;       /* "fixed-latency" until the memory-hierarchy issue */
    /* blocks */
    uint64_t nblocks;
    timing_block_rec *blocks;       /* nblocks records, block id order; owned */
    double sim_seconds;             /* host time of timing_run (filled by the caller) */
} timing_result;

/* Runs kernel k of module m on arch a. mem holds the buffers the params point at (module
 * globals are added to it). On success res holds every statistic; free with
 * timing_result_free. Errors: WL_EUSAGE (bad config, a block that cannot be resident, trace
 * not writable), WL_EUNSUPPORTED, WL_EFAULT (from the functional engine, with PTX position),
 * WL_EDEADLOCK (barrier deadlock naming the barrier and warps, or max_cycles exceeded). */
wl_status timing_run(const ptx_module *m, const ptx_func *k, const arch_t *a,
                     const timing_config *cfg, devmem_t *mem, timing_result *res, diag_t *d);
void timing_result_free(timing_result *res);

/* Adds the keys of `run --json` that the timing model owns: cycles, time_us, ipc,
 * achieved_occupancy, warp_instructions, thread_instructions, stalls {...},
 * shared_bank_conflicts, branch_efficiency, l1_hit_rate, l2_hit_rate, dram_bytes, sectors and
 * requests, opcodes {...}, scheduler statistics, blocks (count). Existing keys are replaced. */
void timing_result_to_json(const timing_result *r, cJSON *obj);

/* A text report modelled on Nsight Compute's sections: Launch, Occupancy, Scheduler Statistics,
 * Warp State Statistics, Memory. */
void timing_report_text(const timing_result *r, FILE *f);

#endif
