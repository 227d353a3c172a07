/* exec: functional SIMT execution of one CTA's warps, one warp instruction at a time.
 *
 * The timing model decides WHEN a warp issues; exec decides WHAT the instruction does:
 * exec_warp_step() executes the warp's next instruction and reports the opcode, unit, active
 * lanes, registers read and written, per-lane memory addresses, and barrier/branch/exit effects.
 *
 * Model (see docs/exec.md):
 * - 32 lanes per warp; a register is a slot of 32 lanes holding its bits zero-extended: 32-bit
 *   lanes for registers of up to 32 bits (predicates hold 0/1), 64-bit lanes for wider ones.
 * - SIMT reconvergence stack per warp: a divergent branch pushes the two paths, both reconverging
 *   at the immediate post-dominator of the branch's block (from the IR). Calls push a frame.
 *   The warp runs one path at a time until it reaches the reconvergence point. Volta's
 *   independent thread scheduling is modelled only where code synchronises explicitly:
 *   __syncwarp (bar.warp.sync) on one side of a divergent branch parks those lanes and switches
 *   to the sibling path until every lane of the mask has arrived. Code that needs lanes of one
 *   warp to progress on different paths without __syncwarp (intra-warp spin locks, divergent
 *   __syncthreads on both paths) deadlocks here where a Volta+ GPU might not.
 * - Barriers count threads: a warp arriving adds its active lanes; without a thread count the
 *   barrier expects every thread of the CTA that has not exited (exited threads count as
 *   arrived, as on the hardware); with a count it expects exactly that many.
 */
#ifndef WL_EXEC_H
#define WL_EXEC_H

#include <stdint.h>

#include "devmem.h"
#include "diag.h"
#include "hugemem.h"
#include "ir.h"

/* Generic-address windows (generic = what cvta produces and plain ld/st use):
 * shared: EXEC_SHARED_WINDOW + offset in the CTA's shared memory;
 * local:  EXEC_LOCAL_WINDOW + offset in the thread's local memory;
 * everything else is a global (devmem) address; .const variables live in devmem too, so a
 * const-space address equals its generic address. */
#define EXEC_SHARED_WINDOW UINT64_C(0x00007d0000000000)
#define EXEC_LOCAL_WINDOW UINT64_C(0x00007e0000000000)
#define EXEC_WINDOW_SIZE UINT64_C(0x0000000100000000)

typedef struct exec_prog exec_prog;   /* a kernel pre-decoded for one launch */
typedef struct exec_block exec_block; /* one resident CTA */

/* What a launch needs to know about the grid (a subset of launch_config). */
typedef struct {
    uint32_t grid[3], block[3];
    uint32_t dyn_smem;
    const void *params;
    size_t params_size;
    int num_sms;
    void (*print)(void *ctx, const char *text); /* device printf output, NULL: discarded */
    void *print_ctx;
} exec_grid;

/* Pre-decodes kernel k (and every .func it calls) for one launch: resolves symbols (module
 * .global/.const variables are allocated in mem here), lays out frames, turns operands into slot
 * indices. Errors: WL_EUNSUPPORTED for constructs exec cannot run (with file:line:col),
 * WL_EUSAGE for a bad grid/param size. */
wl_status exec_prog_create(const ptx_module *m, const ptx_func *k, const exec_grid *g,
                           devmem_t *mem, exec_prog **out, diag_t *d);
void exec_prog_destroy(exec_prog *p);
/* Register-file slots of the kernel's frame: *regs hold its virtual
 * registers, shared by registers whose live ranges do not overlap (xalloc.c), *imm its
 * immediates; *declared is the number of virtual registers the PTX declares. */
void exec_prog_slots(const exec_prog *p, uint32_t *regs, uint32_t *imm, uint32_t *declared);
/* Of those register slots, how many are narrow (32 lanes x 32 bits: registers of up to 32
 * bits) and how many wide (32 lanes x 64 bits); see exec_int.h, xfunc. */
void exec_prog_slot_widths(const exec_prog *p, uint32_t *narrow, uint32_t *wide);
/* From now on exec_warp_step passes over the moves ptxas folds away whose execution has no
 * effect: `mov` of an immediate into a register whose every reader takes the immediate instead
 * (xalloc.c propagate_constants; the move writes the sink) and which no other instruction
 * writes. They still count as executed (exec_counts) and exec_step_info.passed reports them.
 * For the timing model, which counts such moves as folded and never issues them; the register's
 * scoreboard entry they would set (ready at once) is never waited on, as nothing else writes it. */
void exec_prog_pass_folded(exec_prog *p);
/* From now on blocks do not count warp instructions per opcode (exec_counts.op_count stays
 * zero; the other counts are kept): for the timing model, which counts what it issues itself.
 * Saves a host cache line per step and 1.6 KB of clearing per block. */
void exec_prog_no_op_counts(exec_prog *p);
/* From now on exec_warp_step fills only what identifies the instruction and its lanes (opcode,
 * func, pc, active, live, exec_mask) and what the run sets (memory, control, passed); unit,
 * latclass, line, col, loc_line and the register lists are left as they were. For a caller
 * that keeps what it derived from an instruction (the timing model's tstatic) and reads those
 * once per instruction with exec_insn_describe. */
void exec_prog_lean_steps(exec_prog *p);
/* From now on a reused block asks the host for its warps' register lines before writing them:
 * for the timing model, whose blocks run interleaved with thousands of others, so a retired
 * block's registers have left the host's caches (launch_kernel runs blocks one at a time and
 * finds them cached: there the hints would cost, vecadd -7 %). Changes nothing simulated. */
void exec_prog_prefetch_reuse(exec_prog *p);

/* A CTA at block index (x, y, z), all its warps at the first instruction. NULL on out of memory
 * (d set). */
exec_block *exec_block_create(const exec_prog *p, const uint32_t ctaid[3], diag_t *d);
/* The same with the block's memory (its record, warps, register files, shared and local
 * memory) carved from arena a (huge pages, hugemem.h), for the timing model's pooled blocks;
 * exec_block_destroy then releases only what a block grew on the heap, the arena the rest. */
exec_block *exec_block_create_in(const exec_prog *p, const uint32_t ctaid[3], diag_t *d,
                                 hugemem_arena *a);
void exec_block_destroy(exec_block *b);
/* The timing model's time for %clock/%clock64 (SM cycles) and %globaltimer (ns) as seen by the
 * block's next instructions. Without it they read the block's warp-instruction count. */
void exec_block_set_clock(exec_block *b, uint64_t cycles, uint64_t ns);
/* The SM the timing model placed the block on, as %smid reads it; without it (functional
 * runs) %smid is the block's linear index modulo the SM count. exec_block_reset forgets it. */
void exec_block_set_sm(exec_block *b, uint32_t smid);
/* Reuses b for another block index: as if freshly created (zeroed registers and memories). */
void exec_block_reset(exec_block *b, const uint32_t ctaid[3]);
int exec_block_nwarps(const exec_block *b);

typedef enum {
    EXEC_WARP_READY,   /* can issue */
    EXEC_WARP_BARRIER, /* waiting at a bar.sync / barrier.sync */
    EXEC_WARP_DONE,    /* every lane exited */
} exec_warp_state;
exec_warp_state exec_warp_state_of(const exec_block *b, int warp);
int exec_block_done(const exec_block *b);

#define EXEC_MAX_REGS 32 /* wmma.mma: 8 written, 24 read, a guard (32 keeps the arrays in whole
                            host lines) */
/* What one warp instruction did. */
typedef struct {
    uint16_t opcode;      /* ptx_opcode */
    uint8_t unit;         /* ptx_unit (resolved) */
    uint8_t latclass;     /* ptx_latclass (resolved) */
    int func;             /* module->funcs index of the function executing */
    uint32_t pc;          /* instruction index in that function */
    uint32_t line, col;   /* PTX position */
    uint32_t loc_line;    /* .loc source line (0 when none) */
    uint32_t active;      /* lanes active at issue (SIMT stack top) */
    uint32_t live;        /* lanes of the warp that have not exited (active is a subset) */
    uint32_t exec_mask;   /* lanes that executed (active and guard true) */
    uint8_t nsrc, ndst;   /* registers read / written (IR register indices of `func`) */
    int32_t src[EXEC_MAX_REGS], dst[EXEC_MAX_REGS];
    /* memory */
    uint8_t mem_space;    /* ptx_space actually accessed (generic resolved); NONE if no memory */
    uint8_t mem_load, mem_store, mem_atomic;
    uint32_t mem_size;    /* bytes per lane */
    /* 1 when the executor found lane l's address to be addr_base + l * addr_step for all 32
     * lanes (addr_step == mem_size: the coalesced "thread i takes element i" access; 0: one
     * address; else a stride, modulo 2^64). addr[] is then left unwritten: read lane addresses
     * with exec_step_addr. */
    uint8_t addr_linear;
    /* wmma.load/store: the access is mem_parts accesses of mem_size bytes per lane (the
     * fragment's element pairs or elements), part q at lane l's address + exec_step_part_off;
     * 0: one access */
    uint8_t mem_parts;
    uint64_t part_off[3];
    uint64_t addr_base, addr_step;
    uint64_t addr[32];    /* per lane, valid in exec_mask (space-relative for shared/local) */
    /* control */
    uint8_t is_branch, divergent, is_barrier, exited, yielded, is_call, is_ret;
    uint8_t bar_id;
    uint32_t bar_count;   /* threads expected (0 = whole CTA) */
    uint32_t exit_mask;   /* lanes that exited on this instruction */
    /* exec_prog_pass_folded: the no-op moves passed over just before this instruction (or
     * before the warp finished, when exited is set and nothing ran); each is counted in
     * exec_counts as executed */
    uint32_t passed;
    uint8_t ran;          /* exec_warp_step ran an instruction. 0: the warp waits at a barrier
                           * (only passed is new) or has finished (exited set, the fields
                           * before addr[] cleared) */
} exec_step_info;

/* Offset of part q of a memory step with mem_parts parts: bit k of q adds part_off[k]. */
static inline uint64_t exec_step_part_off(const exec_step_info *in, uint32_t q)
{
    return (q & 1 ? in->part_off[0] : 0) + (q & 2 ? in->part_off[1] : 0) +
           (q & 4 ? in->part_off[2] : 0);
}

/* Lane l's address of a memory step (space-relative for shared/local). */
static inline uint64_t exec_step_addr(const exec_step_info *in, int l)
{
    return in->addr_linear ? in->addr_base + (uint64_t)l * in->addr_step : in->addr[l];
}

/* Describes the warp's next instruction without running it (opcode, unit, pc, line, active
 * lanes, registers read and written; no addresses, exec_mask 0): what a scheduler needs to
 * check dependencies before it issues. Returns 0 when the warp has finished. A warp waiting at a
 * barrier reports the instruction after the barrier. */
int exec_warp_peek(exec_block *b, int warp, exec_step_info *out);
/* The step info of instruction pc of function func before it runs: every field but active,
 * live, exec_mask and what the run sets (all 0). */
void exec_insn_describe(const exec_prog *p, int func, uint32_t pc, exec_step_info *out);

/* Executes warp's next instruction. out may be NULL (the fast functional path). The warp must be
 * READY. Errors: WL_EFAULT (bad access: message like compute-sanitizer), WL_EUNSUPPORTED,
 * WL_EDEADLOCK (SIMT stack / recursion overflow). */
wl_status exec_warp_step(exec_block *b, int warp, exec_step_info *out, diag_t *d);

/* Host-cache hints for the timing model, which steps thousands of resident warps in turn, so a
 * warp's data is rarely still cached when it issues: exec_warp_prefetch_state asks for the
 * lines of the warp's stack state (given the warp's handle, so that no other line is needed to
 * find it); exec_warp_prefetch_regs (best once those have arrived) for the register lines of
 * its current frame (those its next instruction reads and writes when the frame is large, or
 * when `next_only`: a warp expected to issue one instruction soon, not several). Neither
 * changes anything. */
const void *exec_warp_handle(const exec_block *b, int warp);
void exec_warp_prefetch_state(const void *handle);
void exec_warp_prefetch_regs(const exec_block *b, int warp, int next_only);
/* exec_warp_prefetch_data: when the warp's next instruction is a global load or store whose
 * lanes' addresses lie within 512 bytes, the host lines of the simulated memory it will move
 * (its address registers as they are now; to be written for a store). Changes nothing. */
void exec_warp_prefetch_data(const exec_block *b, int warp);
/* 0 when the instruction at pc of function func always hands over to pc + 1 (no branch, call,
 * return, exit, trap or barrier) and that one is no global load or store (or there is none):
 * exec_warp_prefetch_data after it finds nothing to do, whatever the warp. 1 otherwise. */
int exec_insn_next_global(const exec_prog *p, int func, uint32_t pc);

/* What a block executed: warp instructions, guard-true lanes summed, branch instructions (bra,
 * per warp) and how many of them diverged, warp instructions per opcode. */
typedef struct {
    uint64_t warp_insts, thread_insts, branches, divergent_branches;
    uint64_t op_count[PTX_OP_COUNT];
} exec_counts;
const exec_counts *exec_block_counts(const exec_block *b);

/* Runs the block's warps round-robin until all exit: each warp runs until it blocks at a
 * barrier, yields (failed mbarrier wait, nanosleep) or exits. Stops with WL_EDEADLOCK when the
 * block has executed more than max_insts warp instructions or no warp can progress (the message
 * names the barrier, the waiting warps and the arrival count). Adds the block's counts to *c
 * (may be NULL). */
wl_status exec_block_run(exec_block *b, uint64_t max_insts, exec_counts *c, diag_t *d);
/* One scheduling round of exec_block_run (each ready warp runs until it blocks, yields or exits);
 * *progressed is 0 when no warp could run. exec_block_stuck fills the deadlock diag. */
wl_status exec_block_round(exec_block *b, uint64_t max_insts, int *progressed, diag_t *d);
wl_status exec_block_stuck(const exec_block *b, diag_t *d);
void exec_counts_add(exec_counts *c, const exec_counts *x);

#endif
