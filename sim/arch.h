/* arch: one GPU described by a data file (sim/arch/<name>.ini), loaded and validated.
 *
 * The .ini files are data, not code: every number carries a comment naming its source. This
 * module turns one file into a typed arch_t; any missing key, unknown key, duplicate key,
 * non-numeric or out-of-range value is an error naming the file, the key and the line
 * (status WL_EUSAGE). Sizes are in bytes, clocks in MHz, latencies and issue intervals in SM
 * clock cycles. Nothing here is computed from a table of compute capabilities: what the
 * occupancy calculator and the timing model need is read from the file.
 */
#ifndef WL_ARCH_H
#define WL_ARCH_H

#include <stdio.h>

#include "diag.h"

#define ARCH_NAME_MAX 32
#define ARCH_MAX_CARVEOUTS 16
#define ARCH_MAX_GPCS 16

typedef struct {
    /* [gpu] */
    char name[ARCH_NAME_MAX];     /* short name, the file's stem: "h200" */
    char full_name[64];           /* "NVIDIA H200" */
    int cc_major, cc_minor;       /* compute capability, e.g. 9 and 0 */
    char sm_target[16];           /* ptxas target derived from the CC: "sm_90" */
    int sm_count;                 /* SMs enabled on the product */
    int gpc_count;                /* GPCs enabled */
    int gpc_sms[ARCH_MAX_GPCS];   /* SMs in each GPC (sums to sm_count) */
    int sms_per_tpc;              /* 2 on every listed GPU */
    int sm_clock_mhz;             /* boost / max SM clock */
    int mem_clock_mhz;            /* memory clock as the driver reports it */
    double dram_bandwidth_gbs;    /* theoretical DRAM bandwidth, GB/s */

    /* [sm] */
    int sub_partitions;           /* SMSPs per SM: one warp scheduler each */
    int warp_size;
    int max_warps_per_sm;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int max_threads_per_block;
    int regs_per_sm;              /* 32-bit registers */
    int regs_per_block;
    int max_regs_per_thread;      /* documented limit (255) */
    int reg_alloc_unit;           /* registers per warp are allocated in units of this (256) */
    char sched_policy[16];        /* default warp-scheduler policy: "lrr", "gto", "gty",
                                     "brr" or "two-level" */
    int issue_per_cycle;          /* instructions one scheduler issues per cycle */

    /* [smem] */
    int smem_per_sm_max;          /* largest shared-memory carveout, bytes */
    int smem_per_block_default;   /* per-block limit without opt-in (48 KB) */
    int smem_per_block_optin;     /* per-block limit with opt-in (excludes the reserved part) */
    int smem_reserved_per_block;  /* driver-reserved per block (1 KB from CC 8.0) */
    int smem_alloc_unit;          /* allocation granularity per block */
    int carveout_count;
    int carveouts[ARCH_MAX_CARVEOUTS]; /* legal shared-memory pool sizes, bytes, ascending */
    int l1_smem_bytes;            /* unified L1 + shared memory per SM */
    int smem_banks;
    int smem_bank_bytes;

    /* [memory] */
    int l2_bytes;
    int l2_partitions;            /* 2 when the L2 has near/far halves */
    int l2_write_copies;          /* L2 lines a written (dirty) line takes: 2 on Hopper */
    int line_bytes;               /* L1/L2 line */
    int sector_bytes;             /* L1/L2 sector: the unit of a memory transaction */
    int mem_bus_bits;

    /* [latency] cycles, dependent issue to dependent issue (load-to-use for memory) */
    int lat_alu;                  /* integer add/logic */
    int lat_fma;                  /* FP32 FFMA/FADD/FMUL */
    int lat_imad;                 /* integer multiply-add */
    int lat_fp64;                 /* DFMA */
    int lat_mma16816, lat_mma1688; /* mma.sync m16n8k16 / m16n8k8 (HMMA.16816 / .1688) */
    int lat_sfu;                  /* MUFU (ex2, rsqrt, sin...) */
    int lat_shfl;                 /* SHFL */
    int lat_ldc;                  /* LDC: a constant-bank load into a register (pointer
                                   * parameters, %ntid) */
    int lat_ldc_first;            /* the first LDC of a launch on an SM (the constant cache
                                   * fetches the parameter bank) */
    int lat_smem;                 /* shared load, no conflict */
    int lat_smem_conflict;        /* extra cycles per extra way of a bank conflict */
    int lat_l1_hit;
    int lat_l2_near;
    int lat_l2_far;
    int lat_dram;
    int lat_atomic_global;
    int lat_barrier;              /* bar.sync base cost */
    int lat_barrier_per_warp;     /* added per warp taking part */
    int lat_its_sync;             /* a divergent __syncwarp: from its issue to the warp's next */
    int lat_block_launch;         /* from a block slot freeing to the next block starting */
    int lat_kernel_launch;        /* GPU-side kernel start, not counted in time_us */

    /* [pipes] cycles between two warp instructions on one SMSP's unit (32 lanes / unit width) */
    int issue_alu;
    int issue_fma;
    int issue_fp64;
    int issue_mma16816, issue_mma1688; /* the SMSP's tensor core between two mma.sync */
    int issue_sfu;
    int issue_lsu;
    int issue_its_sync;           /* a divergent __syncwarp holds its SMSP's unit this long */
    int lsu_queue_depth;          /* global/local instructions one SMSP can have queued (LG) */
    int mio_queue_depth;          /* shared, shuffle and SFU instructions queued (MIO) */
    /* 1: the FMA pipe is two halves, FMA-heavy (FP32 and IMAD) and FMA-lite (FP32 only), each
     * taking a warp instruction every 2 * issue_fma cycles (GA10x, GH100); 0: one pipe (GV100,
     * GA100) taking FP32 and IMAD every issue_fma cycles. */
    int fma_heavy_lite;
} arch_t;

/* Loads and validates one arch file. The name is the file's stem. */
wl_status arch_load_file(const char *path, arch_t *out, diag_t *d);

/* Loads arch_dir/<name>.ini; an unknown name is an error listing the available ones. */
wl_status arch_load(const char *arch_dir, const char *name, arch_t *out, diag_t *d);

/* Fills names[] with the stems of the .ini files in arch_dir, sorted; returns how many
 * (at most max), or -1 if the directory cannot be read. */
int arch_list(const char *arch_dir, char names[][ARCH_NAME_MAX], int max);

/* Prints every field, grouped by section, with units (`warplab arch NAME`). */
void arch_print(const arch_t *a, FILE *f);

/* One line: name, CC, SMs, clock (`warplab arch list`). */
void arch_print_summary(const arch_t *a, FILE *f);

#endif
