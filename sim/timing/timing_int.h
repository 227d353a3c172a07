/* timing_int: structures shared by the timing model's modules (not a public header).
 *
 * gpu.c   tgpu_  block dispatcher, event loop, timing_run
 * sched.c sched_ one scheduler (SM sub-partition): warp conditions, policies, issue, charging
 * sb.c    sb_    per-warp scoreboard of pending register writes
 * ldst.c  ldst_  shared-memory banks and global coalescing
 * mem.c   mem_   the memory behind one request/response interface
 * bar.c   bar_   CTA barriers as the timing model sees them (ids, counts, release)
 * stats.c stats_ stall accounting, trace intervals, JSON and text reports
 */
#ifndef WL_TIMING_INT_H
#define WL_TIMING_INT_H

#include <stdint.h>

#include "bits.h"
#include "exec.h"
#include "hugemem.h"
#include "memsys.h"
#include "timing.h"
#include "trace.h"

#define T_INF UINT64_MAX

/* ---- numbers the arch file does not carry yet (requested in docs/model.md) ---------------- */
/* Shared-memory / shuffle unit of one SM: one wavefront per cycle. [CPG] (shared memory,
 * compute capability 5.x and later): 32 banks, "each bank has a bandwidth of 32 bits per clock
 * cycle", i.e. 128 bytes, one conflict-free wavefront, per cycle. The H200 agrees: bk_stride32
 * (every LDS a 32-way conflict) took 1064.6 us = 2.108 M cycles for 2.10 M wavefronts per SM,
 * 1.00 cycle each (docs/validation.md). An earlier value of 2 (from [HUERTA]'s "1 request / 2
 * cycles" and the +2 cycles of latency per extra way) doubled every conflict-bound case. The
 * latency per extra way stays [latency] smem_conflict. Request: `smem_cycles_per_wavefront`. */
#define TIMING_SMEM_CYCLES_PER_WAVEFRONT 1u
/* L1 data stage: one 128-byte line (wavefront) per cycle per SM. Request: `l1_lines_per_cycle`. */
#define TIMING_L1_CYCLES_PER_LINE 1u
/* Entries the MIO and LG queue rings hold: the most `lsu_queue_depth` and `mio_queue_depth` may
 * ask for (arch.c refuses more). */
#define TIMING_QUEUE_RING 16
/* A warp that yields without a sleep time (failed mbarrier.try_wait, nanosleep with a register
 * operand) sleeps this many cycles. Request: `sleep_default`. */
#define TIMING_SLEEP_CYCLES 64u
/* Two-level scheduler: warps in the active (inner) set of one scheduler. */
#define TIMING_TWO_LEVEL_ACTIVE 4

/* Conditions a warp's next instruction waits on, in the order the stall reason is chosen:
 * the first condition not yet satisfied at a cycle names that cycle's reason. */
enum {
    C_BAR,    /* barrier */
    C_SLEEP,  /* sleeping */
    C_MEMBAR, /* membar */
    C_BRANCH, /* branch_resolving */
    C_LONG,   /* long_scoreboard */
    C_SHORT,  /* short_scoreboard */
    C_WAIT,   /* wait */
    C_QUEUE,  /* mio_throttle or lg_throttle (the queue this instruction needs) */
    C_PIPE,   /* math_pipe_throttle */
    C_COUNT
};

/* Resources an instruction needs at issue. The math pipes of one SMSP (GH100, [NVFORUM-PIPES]):
 * ALU (integer and logic), FMA-heavy (FP32 and IMAD) and FMA-lite (FP32 only).
 *   RES_ALU   ALU only (logic, compares, shifts, min/max ...)
 *   RES_FMA   FP32 add/mul/fma: FMA-heavy or FMA-lite, whichever is free
 *   RES_IMAD  integer multiply(-add): FMA-heavy only
 *   RES_INT   integer add/sub/move/shift-left: ALU, or FMA-heavy as IMAD.IADD/IMAD.MOV/IMAD.SHL,
 *             which ptxas emits to balance the two pipes */
enum { RES_NONE, RES_ALU, RES_FMA, RES_FP64, RES_MMA, RES_MIO, RES_LG, RES_IMAD, RES_INT,
       RES_COUNT };

/* Scoreboard kinds: which stall reason a pending register write gives. */
enum { SB_FIXED, SB_SHORT, SB_LONG };

/* SB_SLOTS entries, direct-mapped by key % SB_SLOTS: a register's pending write lives in its
 * slot unless another register's still-pending write holds it, then in the overflow list.
 * All zero is empty (ready at cycle 0). */
/* 16: 224 bytes of the warp record, which the timing model reads for every warp it steps (32
 * slots cost lat_copy 10 % for kernels that rarely have more than a few writes pending). */
#define SB_SLOTS 16
/* One overflow entry: a pending write that found both its inline slots taken. */
typedef struct {
    uint64_t ready;     /* cycle the register's value is available, or a memory token */
    uint32_t key;
    uint8_t kind;       /* SB_* */
} sb_ov;
/* The overflow filter's bit of a key (sb_t.ovkeys), one of 16. Not the key's low 4 bits
 * alone: those pick its slots (key % SB_SLOTS), and a key is listed when its slots were busy,
 * so listed keys share low bits; the next 4 bits are mixed in. */
#define SB_OV_BIT(key) (((key) ^ ((key) >> 4)) & 15u)
typedef struct {
    uint32_t key[SB_SLOTS];
    uint64_t at[SB_SLOTS];
    uint8_t kd[SB_SLOTS];
    uint32_t tokmask;   /* slots whose cycle may be a memory token (sb_resolve scans these) */
    uint8_t otok;       /* the overflow list may hold memory tokens (sb_resolve) */
    uint16_t ovkeys;    /* bit SB_OV_BIT(key) of every key in the overflow list (a superset:
                         * a key whose bit is clear is not listed, no scan and no host load
                         * of the list; sb_table_set recomputes it when it prunes) */
    uint32_t nov, capov;/* overflow entries in use, allocated */
    sb_ov *ov;          /* overflow list: one entry per key, only writes still pending when
                         * they were listed (a kernel with hundreds of registers and dozens of
                         * loads in flight keeps a few dozen here, not a table of every key) */
} sb_t;

typedef enum { TW_ACTIVE, TW_BARRIER, TW_DRAIN } tw_state;

/* The pending instruction, digested at fetch while the functional engine's record is still in
 * the host caches; issue reads only this (and, for global/local accesses, the sector list). */
enum { D_BRANCH = 1, D_MEMBAR = 2, D_YIELD = 4, D_BARRIER = 8, D_BAR_WAITS = 16, D_SHARED = 32,
       D_SHFL = 64, D_EXPAND = 128, D_ITS = 256,
       D_SPILL_AFTER = 512, /* spill ops follow the instruction (tstatic.spill0) */
       D_XFILL = 1024,      /* one of the instructions an expansion adds (xfill_fetch) */
       D_LDC = 2048 };      /* a constant-bank load into a register (sched.c is_ldc) */

/* Scoreboard keys an instruction waits for: its source registers and up to 4 spill reloads
 * (spillmap.h: ptxas 13.0's maps of the lesson kernels have at most 2 per instruction). */
#define TS_MAX_SRC (EXEC_MAX_REGS + 4)

/* What the timing model derives from an instruction alone (not from the lanes, addresses or
 * time): one entry per (function, pc), filled the first time a warp executes it (sched_fetch)
 * and read by every later execution, so the derivation runs once per instruction of the
 * program instead of once per warp instruction. */
typedef struct {
    uint8_t valid;
    uint8_t res;            /* RES_* unless the instruction accessed memory (then classify) */
    uint8_t fold;           /* folds(): 0, 1 or 2 */
    uint8_t unroll;         /* PTX_F_UNROLL_CTL */
    uint8_t nsrc, ndst;
    uint16_t opcode;
    uint16_t flags;         /* D_MEMBAR, D_SHFL, D_EXPAND, D_SPILL_AFTER; D_BAR_WAITS for a
                             * waiting bar */
    uint16_t xissue;        /* D_EXPAND: SASS instructions ptxas emits for it (issue slots) */
    uint8_t xpat;           /* D_EXPAND: which expansion (sched.c xfill_res) */
    uint8_t pf_data;        /* exec_insn_next_global: the data prefetch after it may pay */
    uint32_t line;
    uint32_t lat;           /* fixed latency of a math instruction (and of an mma.sync) */
    uint32_t pipe_issue;    /* RES_MMA: cycles its tensor core stays busy (per shape) */
    uint32_t sleep;         /* cycles to sleep when it yields */
    /* scoreboard keys read (its registers', then the keys of the spill reloads it waits for)
     * and written */
    uint32_t src[TS_MAX_SRC], dst[EXEC_MAX_REGS];
    uint32_t spill0;        /* D_SPILL_AFTER: the first spill op that follows (tctx.spill_ts) */
} tstatic;

typedef struct {
    const tstatic *st;      /* the instruction's static part (opcode, line, latency, keys) */
    uint32_t exec_mask, exit_mask;
    uint16_t flags;         /* D_* */
    uint8_t space;          /* ptx_space of the memory access */
    uint8_t mkind;          /* mem_kind */
    uint8_t bar_id;
    uint32_t bar_count;
    uint32_t nsec, nlines;  /* global/local: sectors (in tw.secs) and lines */
    uint32_t wf, ideal;     /* shared: wavefronts and the conflict-free number */
    /* for sched_settle (deferred memory): the fetch cycle */
    uint64_t fnow;
} tdigest;

struct tblock;

#define TW_SECS_IN 8   /* sectors a warp record holds (tw.secs_in) */
#define TW_MAX_SECS 64 /* 32 lanes, each access within two sectors */

/* A warp's age is its block's dispatch number shifted by this, plus its warp slot (fewer than
 * 2^16 slots per SM). A block's warps take the lowest free slots in warp order, so ages order
 * warps by block, then by warp; age >> TW_AGE_BLOCK_SHIFT names the block and the low bits
 * give the slot (brr's pick reads both from the scheduler's array of ages). */
#define TW_AGE_BLOCK_SHIFT 16
#define TW_AGE_SLOT(age) ((uint32_t)((age) & 0xffffu))

/* A resident warp. Hot fields first: the scheduler reads them every evaluation. */
typedef struct tw {
    uint8_t state;          /* tw_state */
    uint8_t has_pending;    /* dg holds the next instruction (already executed) */
    uint8_t res;            /* RES_* of the pending instruction */
    uint8_t in_active;      /* two-level: in the active set */
    uint8_t run_reason;     /* reason of the open run [run_start, charged); 0xff none */
    uint8_t issued;         /* has issued an instruction (clock reads: sched_fetch) */
    uint32_t slot;          /* warp slot in the SM; scheduler = slot % subpartitions */
    int idx;                /* position in its scheduler's arrays */
    uint64_t start;         /* first resident cycle */
    uint64_t charged;       /* cycles [start, charged) are accounted */
    uint64_t run_start;
    uint64_t T[C_COUNT];    /* cycle from which each condition is satisfied */
    uint64_t t_drain;       /* TW_DRAIN: cycle its outstanding memory accesses complete */
    tdigest dg;             /* the pending instruction */
    /* cold */
    uint64_t pace;          /* the pending instruction's own pace (sched.c own_pace), 0: none */
    struct tblock *blk;
    exec_block *eb;         /* blk->eb */
    const void *xw;         /* exec_warp_handle(eb, bw): for host-cache prefetching */
    int bw;                 /* warp index in the block */
    uint64_t age;           /* dispatch order (gto: oldest first): the block's dispatch number
                               << TW_AGE_BLOCK_SHIFT | the warp's slot */
    uint64_t pend_seq;      /* two-level: order in the pending set */
    uint64_t mem_done;      /* completion of every global/local access it issued (resolved) */
    uint64_t ld_done;       /* the same for its loads and atomics only (drain) */
    uint64_t st_left;       /* when its last store has left the SM (drain: sched_issue) */
    /* Deferred memory (gpu.c resolve_window): requests whose completion is still a token. */
    uint32_t npend, npend_ld; /* all of them; its loads and atomics among them */
    uint8_t pend_drain, pend_membar, resolving;
    uint64_t drain_base, membar_base;
    uint32_t unroll_it;     /* back branches of unrolled loops taken (PTX_F_UNROLL_CTL) */
    uint32_t spill_mask;    /* lanes active at the instruction spill ops follow (spill_fetch) */
    /* an expansion whose added instructions are still issuing (xfill_fetch): its
     * instruction (NULL: none), how many of them were fetched, its lanes */
    const tstatic *xts;
    uint16_t xpos;
    uint32_t xmask;
    int bar_id;             /* barrier it waits at (TW_BARRIER) */
    uint32_t bar_line;
    sb_t sb;
    /* Sectors of a pending global/local access (dg.nsec): secs_in when they fit (a coalesced
     * warp access touches 4), else a heap buffer of TW_MAX_SECS kept for the warp's slot (the
     * record stays 600 bytes, not 1 KB: eleventh session, docs/performance.md). */
    uint64_t *secs;
    uint64_t *secs_heap;
    uint64_t secs_in[TW_SECS_IN];
} tw;

typedef struct {
    uint32_t arrived, expected; /* threads */
    uint32_t nwaiting;
    uint32_t line;
} tbar;

typedef struct tblock {
    uint32_t id;
    uint32_t sm;
    exec_block *eb;
    int nwarps, live_warps;
    uint32_t nthreads, exited_threads;
    uint64_t start;
    tw *warps;
    tbar bars[16];
    struct tblock *next_free; /* in tctx.free_blocks */
} tblock;

/* Sub-partitions per SM at most (arch.c: sub_partitions 1..8). */
#define TIMING_MAX_SUB 8

/* sched_eval's scans run over the warps rounded up to a multiple of this (ens is T_INF past
 * the last warp; sched.c scan_count): the trip count then changes only when the warp count
 * crosses a multiple, so the host predicts the loops' exits. */
#define SCHED_SCAN_PAD 8

typedef struct tsmsp {
    int id;                 /* global index sm * nsub + sub */
    struct tsm *sm;
    tw **warps;             /* resident warps, in arrival order */
    uint64_t *ens;          /* per warp: cycle its own conditions allow an issue (or retire) */
    uint8_t *wres;          /* per warp: RES_* of its pending instruction */
    uint64_t *wage;         /* per warp: its age (gto's pick reads it here, not in the warp) */
    /* per warp, a lazy scheduler without a trace (sched_eval, warp masks): bit i of lzm is set
     * while the warp at position i is eligible and not selected, its cycles since `charged`
     * not yet charged; ns_snap[i] the count of evaluations that found its class free
     * (sched.c, elig_of) when the stretch began */
    uint64_t lzm;
    uint64_t *ns_snap;
    /* per RES_* class, the warps whose pending instruction is of it (bit i: position i); kept
     * only where a scheduler holds at most 64 warps (tctx.wmask) */
    uint64_t cmask[RES_COUNT];
    int nwarps;
    uint64_t active_since;  /* first cycle of the current stretch with resident warps */
    int sub;                /* index in its SM: the SM's wake[sub] is its next evaluation */
    uint64_t acct;          /* scheduler cycles [.., acct) are accounted */
    uint32_t last_slot;     /* lrr rotation / gto greedy warp */
    tw *last_warp;
    uint64_t pend_seq;
    /* per RES_* class: first cycle its queue has room / its pipe is free (0 when n/a) */
    uint64_t qready[RES_COUNT], pready[RES_COUNT];
    uint64_t qp[RES_COUNT]; /* max(qready, pready): the first cycle the class can issue */
    uint8_t lazy;           /* skip warps of busy classes (sched_eval: once they are many) */
    /* a lazy scheduler's evaluations (distinct cycles), and per class those that found it
     * busy (sched.c, elig_of); elig_t: the cycle of the last one counted, + 1 */
    uint64_t nevals, busy_evals[RES_COUNT], elig_t;
    uint32_t held, evals;   /* warps looked at and held by a busy class; evaluations (the
                             * current period of SKIP_PERIOD) */
    uint64_t sfu_free, lsu_free;
    uint64_t its_free;      /* the unit that runs __syncwarps of diverged warps (its_sync) */
    uint64_t alu_free, heavy_free, lite_free; /* math pipes: first free cycle (T_INF: absent) */
    /* the warp whose issue set each math pipe's free cycle (sched.c own_pace; compared, never
     * dereferenced: a retired warp's record reused by a new warp matches only while the old
     * warp's last pipe is still busy, which the new block's launch cost outlasts) */
    const struct tw *alu_by, *heavy_by, *lite_by, *fp64_by, *mma_by;
    /* departure cycles of the last `depth` entries of each queue */
    uint64_t lg_ring[TIMING_QUEUE_RING], mio_ring[TIMING_QUEUE_RING];
    uint32_t lg_pos, mio_pos;
    uint64_t lg_last, mio_last;
} tsmsp;

typedef struct tsm {
    int id, gpc;
    int resident_blocks;
    uint8_t *slot_used;     /* max_warps_per_sm */
    uint64_t shared_free;   /* shared-memory unit (all four SMSPs) */
    uint64_t ldc_fill;      /* the constant cache holds the parameter bank from this cycle on
                             * (0: no LDC yet in this launch; sched.c is_ldc) */
    uint64_t l1_free;       /* L1 data stage */
    uint64_t active_since;
    tblock **blocks;        /* resident blocks (blocks_per_sm entries, NULL free) */
    /* each scheduler's next evaluation (T_INF: asleep until woken); they are processed in
     * (cycle, scheduler) order, so a scan of these few finds the next one */
    uint64_t wake[TIMING_MAX_SUB];
    uint32_t npend;         /* its requests still waiting for the window's replay (tokens) */
} tsm;

typedef struct mem mem_t;

/* A queued host-cache prefetch step for warp w of SM sm (gpu.c). */
typedef struct {
    const tw *w;
    uint32_t sm;
    uint8_t step;
    uint8_t next_only;  /* PFQ_REGS: the next instruction's registers only */
} tpfq;

typedef struct tctx {
    const arch_t *a;
    const ptx_module *m;
    const ptx_func *k;
    const timing_config *cfg;
    exec_prog *prog;
    mem_t *mem;
    trace_writer *tr;
    timing_result *res;
    diag_t *d;
    int policy;
    uint32_t nf;            /* functions in the module */
    uint32_t kstride;       /* scoreboard keys: func * kstride + register, kstride a multiple of
                             * SB_SLOTS so a key's slot is its register's (the registers of the
                             * running function spread over all slots) */
    int avx2;               /* the host has AVX2 (sched_eval's scan) */
    int wmask;              /* a scheduler holds at most 64 warps: its warp sets are masks
                             * (tsmsp.cmask, lzm; sched_eval's lazy path) */
    int ahead;              /* SMs may run ahead of the window (gpu.c run_loop) */
    uint8_t look_idx[256][8], look_cnt[256]; /* the scan's table (sched_init_look) */
    int reads_clock;        /* the module reads %clock/%clock64/%globaltimer (sched_fetch) */
    int nsm, nsub;
    tsm *sms;
    tsmsp *sp;
    /* grid */
    uint64_t nblocks, next_block, blocks_done;
    int warps_per_block;
    uint32_t threads_per_block;
    uint64_t age_seq;       /* blocks dispatched so far (warp ages: tw.age) */
    uint32_t queue_depth;   /* LG queue entries per SMSP (arch lsu_queue_depth) */
    uint32_t mio_depth;     /* MIO queue entries per SMSP (arch mio_queue_depth) */
    uint32_t smem_pool;     /* shared memory per SM of the launch's carveout (occupancy's
                             * launch_smem_pool) */
    struct tblock **scratch_blocks; /* sched_eval's blocks done, max_warps_per_sm + 1 entries */
    tw **scratch_resolve;   /* resolve_window's warps */
    /* Host-cache prefetches of the next SMs' warps asked for while this SM runs, a few after
     * each evaluation (gpu.c queue_warps, run_sm): 3 x (max_warps_per_sm + 1) entries. */
    tpfq *pfq;
    uint32_t pfq_n, pfq_i, pfq_cap;
    uint64_t scratch_secs[TW_MAX_SECS]; /* digest's coalescing, before the warp's own list */
    struct tsmemo *smemo;   /* shared-memory wavefronts of recent access shapes (sched.c) */
    size_t cap_resolve;
    uint64_t progress_next;
    /* sched_eval's runs of one warp (sched.c burst) go on to the scheduler's next cycle
     * without returning to run_sm, before this cycle: run_sm's window end, or max_cycles + 1
     * (0 while an SM runs ahead: run_sm_ahead checks each evaluation) */
    uint64_t burst_end;
    /* The functional record of the instruction being fetched: one for the whole run, so it
     * stays in the host caches (sched_fetch digests it at once; nothing reads it later). */
    exec_step_info info;
    /* Retired blocks kept for the next dispatch (their memory is reused, still warm). */
    tblock *free_blocks;
    hugemem_arena *arena;   /* SMs, schedulers, blocks: freed at once at the end (hugemem.h) */
    /* tstatic entries: stat[f][pc] for function f of the module (sched_fetch fills them) */
    tstatic **stat;
    /* ptxas's spill code for the kernel (timing_config.spills; gpu.c spill_setup): one tstatic
     * and op per spill op, in the order they issue (grouped by the kernel's pc they follow);
     * per pc of the kernel the first op after it and the reload keys it waits for */
    tstatic *spill_ts;
    spill_op *spill_ops;
    uint32_t nspill, spill_frame, spill_func;
    uint32_t *spill_keys;
    uint32_t *spill_after, *wait_first; /* per pc: first op + 1 (0: none); first key */
    uint16_t *wait_count;
    tstatic xfill_ts[RES_COUNT]; /* an expansion's added instructions, per class
                                  * (sched_init_xfill) */
    uint64_t stores_done;   /* the last store's acknowledgement by the L2 (the kernel's end) */
} tctx;

/* sb.c */
void sb_free(sb_t *s);
/* Empties s (no pending writes), keeping its overflow list's memory. */
void sb_clear(sb_t *s);
/* sb_set's overflow list (sb.c): sets the entry of `key` (a new one, grown as needed), dropping
 * entries ready by `now`. 0 or WL_EUSAGE. */
int sb_table_set(sb_t *s, uint32_t key, uint64_t ready, uint8_t kind, uint64_t now);
/* sb_set and sb_deps (below, inline: called for every warp instruction). */

/* Replaces the placeholder `token` (timing_int.h MEM_TOKEN) by the resolved cycle. */
void sb_resolve(sb_t *s, uint64_t token, uint64_t cycle);

/* ldst.c */
/* Shared-memory wavefronts of one warp access (>= 1 when any lane is active) and the ideal
 * number (without conflicts). */
void ldst_shared(const exec_step_info *in, uint32_t banks, uint32_t bank_bytes,
                 uint32_t *wavefronts, uint32_t *ideal);
/* Distinct sectors (written to sectors[], up to 64) and distinct lines of a global access. */
uint32_t ldst_coalesce(const exec_step_info *in, uint32_t sector_bytes, uint32_t line_bytes,
                       uint64_t *sectors, uint32_t *nlines);

/* mem.c: the memory system behind one request/response interface. */
typedef enum { MEM_LOAD, MEM_STORE, MEM_ATOMIC } mem_kind;
typedef struct {
    uint64_t cycle;         /* when the request leaves the SM (L1 stage) */
    uint64_t issue;         /* when the warp issued it (the replay order) */
    void *owner;            /* the warp (tw), returned by mem_resolve */
    uint32_t sm;
    uint8_t space;          /* ptx_space: GLOBAL or LOCAL */
    uint8_t kind;           /* mem_kind */
    uint32_t nsectors;
    const uint64_t *sectors;/* sector addresses (address / sector_bytes) */
    uint32_t lanes;         /* MEM_ATOMIC: active lanes (operations); 0: one per sector */
} mem_req;
mem_t *mem_create(const arch_t *a);
void mem_destroy(mem_t *m);
/* Shared memory per SM the launch's carveout uses (occupancy's launch_smem_pool): the L1 gets
 * the rest of the unified array. Call before the first mem_access. */
void mem_set_smem_pool(mem_t *m, uint32_t smem_bytes);
/* Returns the cycle the response arrives (load data usable / store acknowledged), or, when
 * that needs the shared L2/DRAM, a token >= MEM_TOKEN resolved by mem_resolve at the end of
 * the window (memsys.h, deferred mode). */
#define MEM_TOKEN MEMSYS_TOKEN
/* Stand-in for a cycle that waits on tokens (< T_INF: the warp is not at a barrier). */
#define T_PEND (MEMSYS_TOKEN * 2)

/* The overflow list's entry of key, or -1. */
static inline int sb_ov_find(const sb_t *s, uint32_t key)
{
    if (!(s->ovkeys >> SB_OV_BIT(key) & 1))
        return -1;
    for (uint32_t i = 0; i < s->nov; i++)
        if (s->ov[i].key == key)
            return (int)i;
    return -1;
}

/* Sets register `key` ready at `ready` with kind, at cycle now. 0 or WL_EUSAGE (no memory).
 * The cycles `now` of one scoreboard's calls never decrease (issue, then fetch). */
static inline int sb_set(sb_t *s, uint32_t key, uint64_t ready, uint8_t kind, uint64_t now)
{
    uint32_t h = key % SB_SLOTS, g = h ^ (SB_SLOTS / 2);
    /* its own slot (of its two), else a free one (the first, then the second) */
    if (s->key[h] != key && (s->key[g] == key || s->at[h] > now))
        h = g;
    if (s->key[h] == key || s->at[h] <= now) {
        s->key[h] = key;
        s->at[h] = ready;
        s->kd[h] = kind;
        if (ready >= MEM_TOKEN)
            s->tokmask |= 1u << h;
        else
            s->tokmask &= ~(1u << h);
        if (s->nov) { /* an older entry there is superseded */
            int i = sb_ov_find(s, key);
            if (i >= 0)
                s->ov[i] = s->ov[--s->nov];
        }
        return 0;
    }
    if (ready >= MEM_TOKEN)
        s->otok = 1;
    return sb_table_set(s, key, ready, kind, now);
}

/* Raises T[C_LONG/C_SHORT/C_WAIT] for every listed register still pending after `now`;
 * waw: the registers are destinations (only variable-latency producers count). */
static inline void sb_deps(const sb_t *s, const uint32_t *keys, int n, int waw, uint64_t now,
                           uint64_t *T)
{
    static const int cond[3] = {C_WAIT, C_SHORT, C_LONG};
    for (int i = 0; i < n; i++) {
        uint32_t k = keys[i], h = k % SB_SLOTS;
        uint64_t at = 0;
        uint8_t kd = SB_FIXED;
        if (s->key[h] != k)
            h ^= SB_SLOTS / 2;
        if (s->key[h] == k) {
            at = s->at[h];
            kd = s->kd[h];
        }
        if (s->nov) {
            int o = sb_ov_find(s, k);
            if (o >= 0 && s->ov[o].ready > at) {
                at = s->ov[o].ready;
                kd = s->ov[o].kind;
            }
        }
        if (at <= now || (waw && kd == SB_FIXED))
            continue;
        uint64_t *t = &T[cond[kd]];
        if (at > *t)
            *t = at;
    }
}
uint64_t mem_access(mem_t *m, const mem_req *r);
/* Host-cache hint: SM sm's L1 is asked for these sectors soon (changes nothing simulated). */
void mem_prefetch(const mem_t *m, uint32_t sm, int local, const uint64_t *sectors, uint32_t n);
/* Replays the window's L2/DRAM work; *out: each deferred request's owner, token and cycle.
 * memsys_resolve's codes: -1 out of memory, -2 a window far too long. */
int mem_resolve(mem_t *m, const memsys_done **out, size_t *n);
/* The shortest latency of any L2-side access: the longest exact window. */
uint64_t mem_min_l2_latency(const arch_t *a);
/* Totals for the result (dram_bytes, hit rates). */
void mem_fill_result(const mem_t *m, timing_result *res);

/* bar.c */
/* A warp's bar instruction issued at `now`; returns 1 when the barrier completed (then every
 * waiting warp has been released with T[C_BAR] set and its scheduler woken). */
wl_status bar_arrive(tctx *c, tblock *b, tw *w, uint64_t now, int waits);
/* Threads exited at `now`: barriers without a count may complete. */
wl_status bar_exit(tctx *c, tblock *b, uint32_t nthreads, uint64_t now);
/* Fills d with the deadlock message naming a barrier and its waiting warps. */
wl_status bar_deadlock(tctx *c, diag_t *d);

/* sched.c */
/* Evaluates scheduler sp at cycle t: accounts cycles up to t, retires drained warps, issues at
 * most one instruction, computes the next cycle anything can happen. */
wl_status sched_eval(tctx *c, tsmsp *sp, uint64_t t);
/* Executes w's next instruction functionally (it is issued later) and fills its conditions. */
wl_status sched_fetch(tctx *c, tw *w, uint64_t now);
/* Fills the table of sched_eval's vector scan (tctx.look_idx/look_cnt); once, at setup. */
void sched_init_look(tctx *c);
/* The shared-memory wavefront memo (sched.c), zeroed; NULL when out of memory. */
struct tsmemo *sched_smemo_new(void);
/* Fills tctx.xfill_ts, the static parts of an expansion's added instructions; once, at setup. */
void sched_init_xfill(tctx *c);
/* Adds a warp starting at `start`. */
void sched_add_warp(tctx *c, tsmsp *sp, tw *w);
/* w's conditions changed outside its scheduler's evaluation (barrier release): refresh the
 * scheduler's summary of it and wake the scheduler. */
void sched_refresh(tctx *c, tw *w);
/* The request `token` of w completed at `cycle` (mem_resolve). */
void sched_resolve(tw *w, uint64_t token, uint64_t cycle, int store);
/* Would sp's evaluation at t stay inside its SM (no global load or store issued, no warp
 * retired, so no block done)? For an SM running ahead of the window (gpu.c run_loop); needs
 * tctx.wmask. */
int sched_ahead_safe(const tctx *c, const tsmsp *sp, uint64_t t);
/* After the window's sched_resolve calls: w's conditions from the resolved cycles. */
void sched_settle(tctx *c, tw *w);

/* gpu.c */
/* The scheduler of warp slot `slot` on SM sm (a warp's sub-partition is slot mod nsub). */
static inline tsmsp *tgpu_sp(const tctx *c, uint32_t sm, uint32_t slot)
{
    return &c->sp[(size_t)sm * (size_t)c->nsub + slot % (uint32_t)c->nsub];
}

/* Scheduler sp is evaluated at t at the latest (its SM's wake-up; a token is not a cycle: the
 * scheduler is woken when the token is resolved). Inline: once per evaluation. */
static inline void tgpu_wake(tctx *c, tsmsp *sp, uint64_t t)
{
    (void)c;
    uint64_t *w = &sp->sm->wake[sp->sub];
    if (t < *w && t < MEM_TOKEN)
        *w = t;
}
/* The SM's next evaluation: the scheduler with the smallest (cycle, index); T_INF if none
 * (then *sub stays). */
static inline uint64_t tgpu_sm_next(const tctx *c, const tsm *sm, int *sub)
{
    /* without branches: which scheduler comes next changes from one evaluation to the next,
     * and the host would mispredict a compare-and-branch; the lowest index wins a tie */
    const uint64_t *w = sm->wake;
    if (c->nsub == 4) { /* as in every arch file: a tree of three compares, not a loop */
        int l01 = w[1] < w[0], l23 = w[3] < w[2];
        uint64_t m01 = l01 ? w[1] : w[0], m23 = l23 ? w[3] : w[2];
        int s01 = l01, s23 = 2 + l23, lt = m23 < m01;
        uint64_t t = lt ? m23 : m01;
        int s = lt ? s23 : s01;
        *sub = t == T_INF ? *sub : s;
        return t;
    }
    uint64_t t = T_INF;
    int s = *sub;
    for (int k = 0; k < c->nsub; k++) {
        uint64_t v = w[k];
        int lt = v < t;
        t = lt ? v : t;
        s = lt ? k : s;
    }
    *sub = s;
    return t;
}
/* A block's last warp retired at t: frees its resources, dispatches the next block. */
wl_status tgpu_block_done(tctx *c, tblock *b, uint64_t t);

/* stats.c */
/* Writes w's open run [run_start, charged) of run_reason to the trace. */
void stats_trace_run(tctx *c, const tw *w);
/* Closes w's open run of one reason: adds it to the stall totals and the trace. */
static inline void stats_close_run(tctx *c, tw *w)
{
    if (w->run_reason >= STALL_COUNT || w->charged <= w->run_start)
        return;
    c->res->stalls[w->run_reason] += w->charged - w->run_start;
    if (c->tr)
        stats_trace_run(c, w);
    w->run_start = w->charged;
}
/* Charges w's cycles [w->charged, to) to reason. With a trace, the cycles of one reason in a
 * row make one run, written as one interval when the reason changes; without one they go to
 * the totals at once (no run is ever open then: run_reason stays 0xff). */
static inline void stats_charge(tctx *c, tw *w, int reason, uint64_t to)
{
    if (to <= w->charged)
        return;
    if (!c->tr) {
        c->res->stalls[reason] += to - w->charged;
        w->charged = to;
        return;
    }
    if (reason != w->run_reason) {
        stats_close_run(c, w);
        w->run_reason = (uint8_t)reason;
        w->run_start = w->charged;
    }
    w->charged = to;
}

#endif
