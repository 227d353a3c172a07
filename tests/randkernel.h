/* randkernel: random PTX kernels, their CPU evaluation, and the check of every execution path
 * against it (tests/test_random_kernels.c runs fixed seeds, fuzz/fuzz_kernels.c lets libFuzzer
 * steer the choices).
 *
 * A program is a tree of 32-bit integer (signed and unsigned), FP32 (mul and add, or fma) and
 * FP64 arithmetic, predicate logic, divergent if/else, loops with
 * data-dependent trip counts (some left early by a break), guarded instructions, gathers, a
 * store read back, global atomics (add, exch, max, cas) on a thread's own word, generic
 * addresses into shared and global memory, v4 loads, 64-bit arithmetic, a per-thread local
 * array, and at its top level (where every living thread of a block arrives together)
 * shared-memory exchanges across barriers (32-bit words, v2 pairs, bytes, 64-bit words; strides
 * that conflict in banks), shared and global reductions,
 * shuffles, votes, __syncwarp, producer and consumer warps meeting at a named barrier (bar.arrive /
 * bar.sync 1 with a thread count), uniform loops around those, and exits of whole warps or
 * of some threads (some just after a barrier); blocks and grids of one, two or three
 * dimensions (the program works on linear indices). rk_ptx writes it as PTX the way nvcc writes
 * such code; rk_reference evaluates it on the CPU, thread by thread; rk_check runs the PTX
 *   - functionally (launch_kernel), in the PTX order and after ptx_schedule's reordering,
 *   - in the timing model with each scheduling policy (lrr, gto, gty, brr, two-level) after
 *     ptx_schedule, with the PTX order, and on a GPU of one SM holding two blocks at a time
 *     (later blocks reuse a retired block's slot, warp records and registers),
 * and compares every output word with the CPU's; a timed run also keeps the stall-sum invariant
 * (every resident warp-cycle charged to one reason, `selected` = instructions issued), and the
 * one-SM run's trace must read back and agree with its result (cycles, one record per block and
 * warp, one issue per warp instruction, intervals covering exactly the resident warp-cycles);
 * the one-SM run is made again without a trace (sched_eval then leaves warps whose queue or
 * pipe is busy, and eligible warps not selected, alone and charges their cycles later: its mask
 * path), and without a trace with lazy_always set (timing_config), and the traced and the
 * untraced one-SM runs again under lrr, gty, brr, under two-level (no mask path: held warps skipped, in
 * the lazy mode from the first cycle) and on an SM of one scheduler that may hold 128 warps
 * (too many for masks: the same path as two-level, under gto): each must give the same cycles
 * and stall totals as its traced run; and on a GPU of three SMs holding one block each, under gto
 * with SMs running ahead of the window (gpu.c run_loop) and without (timing_config.no_ahead):
 * the same cycles and stall totals (seventeen ways in all).
 * Relies on two choices of the model (docs/robustness.md): shared memory and local memory read
 * as zeros before the first write (the executor clears them at block start).
 */
#ifndef WL_RANDKERNEL_H
#define WL_RANDKERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "arch.h"

#define NREG 12       /* the program's values %r0..%r11, all 32-bit */
#define MAX_NODES 160 /* statements per program */
#define MAX_KIDS 8    /* statements per block */
#define MAX_THREADS 512
#define NACC 24 /* reduction words after the threads' values: 4 per red operation */

/* ---- the program ------------------------------------------------------------------------- */

enum {
    N_ALU,      /* d = op(a, b or imm) */
    N_MAD,      /* d = a * b + c */
    N_SELP,     /* d = cmp(a, b) ? c : a */
    N_FOP,      /* d = cvt.rzi.u32(cvt.rn.f32(a) * 0.5 + cvt.rn.f32(b)); op odd: one fma.rn */
    N_F64,      /* the same in double with 0.25: cvt.rn.f64, mul.rn.f64, add.rn.f64, cvt.rzi */
    N_PLOG,     /* d = (cmp(a, imm) OP cmp(b, c)) ? a : b, OP and.pred or xor not(first) */
    N_IF,       /* if (cmp(a, imm)) then-block else else-block */
    N_LOOP,     /* (a & 3) + 1 iterations of the block */
    N_EXCHANGE, /* sm[tid] = a; bar; d = sm[(tid * c + k) % ntid]; bar (top level only);
                 * op % 4: 32-bit words, pairs (a, b) into (d, d + 1) with v2 accesses, bytes
                 * (a & 0xff), or the pair as one 64-bit word (u64 accesses) */
    N_WSYNC,    /* bar.warp.sync -1 (top level, whole warps) */
    N_SRED,     /* red.shared.add sacc[a & 3] with b; bar; d = sacc[c & 3]; bar (top level) */
    N_PST,      /* @p out[tid's first word] = b, p = cmp(a, imm); d = that word */
    N_SHUFFLE,  /* d = shfl.mode(a, k) over the whole warp (top level only) */
    N_RED,      /* red.OP out[acc + 4 OP + (a & 3)] with b, OP add min max and or xor */
    N_PRED,     /* @p (or @!p) d = op(a, b or imm), p = cmp(a, imm): a guarded instruction */
    N_GLD,      /* d = in[a % (2 nthreads)]: a gather from global memory */
    N_GST,      /* out[tid's first word] = a, then d = that word: a store read back */
    N_VOTE,     /* d = ballot, any or all of cmp(a, imm) over the warp (top level only) */
    N_BREAK,    /* leave the enclosing loop when cmp(a, imm) (directly in a loop's body) */
    N_W64,      /* d = low word of ((u64)a OP (u64)b) >> (imm % 64), OP mul add sub xor */
    N_LOCAL,    /* loc[a & 15] = b, then d = loc[c & 15]: a thread's local array */
    N_ATOM,     /* d = atom.global.OP(out[tid's first word], b), OP add exch max cas(c, b) */
    N_GEN,      /* through generic addresses: sm[tid] = a (cvta.shared), d = sm[tid] + out word */
    N_V4,       /* d .. d + 3 = in[4 i .. 4 i + 3], i = a % (nthreads / 2): ld.global.v4 */
    N_EXIT,     /* some threads return: a whole warp (op & 1 == 0) or those with (a & 7) == 0;
                 * op & 2: a barrier just before the return (the last warp to arrive
                 * fetches the return as the barrier releases) */
    N_ULOOP,    /* imm (1-3) iterations of top-level statements: barriers inside a loop */
    N_PC,       /* warps < op write sm[tid] = a and bar.arrive 1; the others bar.sync 1 and read
                 * d = sm[(tid + imm) % (32 op)]; then bar.sync 0 (warp specialisation) */
};
enum { OP_ADD, OP_SUB, OP_MUL, OP_AND, OP_OR, OP_XOR, OP_SHL, OP_SHR, OP_MIN, OP_MAX,
       OP_MULHI, OP_REM, OP_DIV, OP_BFE, OP_BFI, OP_SHRS, OP_DIVS, OP_MINS, OP_MAXS,
       OP_NOT, OP_POPC, OP_BREV, OP_COUNT }; /* from OP_NOT on: one operand */
enum { CMP_LT, CMP_GT, CMP_EQ, CMP_NE, CMP_LE, CMP_GE,           /* unsigned */
       CMP_SLT, CMP_SGT, CMP_SEQ, CMP_SNE, CMP_SLE, CMP_SGE, CMP_COUNT }; /* signed */
enum { SH_BFLY, SH_DOWN, SH_UP, SH_IDX };

typedef struct {
    int kind, op, cmp, d, a, b, c, use_imm;
    uint32_t imm;
    int nkid[2], kid[2][MAX_KIDS];
} rk_node;

typedef struct {
    rk_node n[MAX_NODES];
    int nn, top[MAX_KIDS * 2], ntop;
    int exit_reg; /* threads with (r[exit_reg] & 3) == 0 return before the stores; -1: none */
    uint32_t grid, block;         /* blocks, threads per block */
    uint32_t gdim[3], bdim[3];    /* their shapes (the kernel works on linear indices) */
    uint64_t rng;
    const uint8_t *choices; /* rk_generate's bytes, each mixed into one choice, then none */
    size_t nchoices, pos;
} rk_prog;

/* A program from seed; choices (may be NULL) are mixed into the first choices, one byte each. */
void rk_generate(rk_prog *p, uint64_t seed, const uint8_t *choices, size_t nchoices);
/* Its PTX (kernel `k`, parameters in and out), malloc'd; NULL when out of memory. */
char *rk_ptx(const rk_prog *p);
/* The CPU's evaluation: in holds 2 words per thread; out gets NREG words per thread, then NACC
 * reduction words (what the kernel's out buffer must hold). */
void rk_reference(const rk_prog *p, const uint32_t *in, uint32_t *out);
/* Runs p's kernel the seventeen ways above on arch a (h200) with inputs derived from seed; 0 when
 * every run matches the CPU, else 1 with what differed in msg (the PTX goes to stderr). */
int rk_check(const rk_prog *p, const arch_t *a, uint64_t seed, char *msg, size_t msize);
/* Evaluations made by SMs running ahead of the window (gpu.c run_loop) over every timed run of
 * rk_check so far. */
uint64_t rk_ahead_evaluations(void);
/* Branches ptx_schedule if-converted (ptx_sched.c) over every scheduled parse so far. */
uint64_t rk_if_converted(void);

#endif
