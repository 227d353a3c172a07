/* sched: one warp scheduler (an SM sub-partition, SMSP) and the warps assigned to it.
 *
 * Hardware ([CPG], [HUERTA]): each SM has four sub-partitions; a warp belongs to the one its
 * warp id selects (id % 4); each scheduler issues at most one instruction per cycle, picking
 * among its warps whose next instruction is ready. A warp that cannot issue is stalled for a
 * reason that Nsight Compute samples and names.
 *
 * Model: a warp's next instruction is executed functionally when it is fetched (right after
 * the previous one issued) and waits on a list of conditions, each "satisfied from cycle T"
 * (barrier release, sleep end, memory fence, branch resolution, register results by kind,
 * the MIO/LG queue having room, the math pipe being free). On any cycle the first condition not
 * yet satisfied, in that fixed order, is the warp's stall reason; a warp with none is eligible;
 * the policy picks one eligible warp (`selected`), the others are `not_selected`. Because the
 * conditions are times, the cycles between two evaluations of a scheduler are charged exactly
 * without visiting them, and the scheduler is evaluated again only at the first cycle at which
 * one of its warps can become eligible (or when another scheduler wakes it).
 *
 * Policies: lrr (loose round robin over warp slots), gto (greedy then oldest: keep issuing
 * the last warp while it can, else the oldest), gty (greedy then youngest: the same, else the
 * youngest, the policy [HUERTA] describes for Turing to Blackwell), brr (block round robin:
 * the oldest block that has an eligible warp, and among its warps loose round robin; what the
 * H200's issue order looks like, gpu/microbench/sched.cu), two-level (an active set of
 * TIMING_TWO_LEVEL_ACTIVE warps scheduled round robin; a warp waiting on a long-scoreboard
 * dependency leaves the set and the longest-waiting pending warp enters).
 *
 * Simplified: no instruction fetch or cache (no_instruction is never charged), no register-bank
 * conflicts or dispatch stalls (dispatch_stall, misc stay 0), one issue per cycle per scheduler.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "timing_int.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SCHED_X86 1
#endif

static const char *const policy_names[SCHED_POLICY_COUNT] = {"lrr", "gto", "two-level", "gty",
                                                                    "brr"};

int sched_policy_from_name(const char *name)
{
    for (int i = 0; name && i < SCHED_POLICY_COUNT; i++)
        if (strcmp(name, policy_names[i]) == 0)
            return i;
    return -1;
}

const char *sched_policy_name(int policy)
{
    return policy >= 0 && policy < SCHED_POLICY_COUNT ? policy_names[policy] : "?";
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static const ptx_insn *insn_of(const tctx *c, const exec_step_info *in)
{
    return &c->m->funcs[in->func].insns[in->pc];
}

/* Integer instructions ptxas may emit as IMAD forms on the FMA-heavy pipe instead of the ALU
 * (IMAD.IADD, IMAD.MOV.U32, IMAD.SHL.U32; [NVFORUM-PIPES], and visible in any sm_90 SASS):
 * 32-bit add/sub without carry, register moves, left shifts by a constant. */
static int int_on_fma(const tctx *c, const exec_step_info *in, const ptx_insn *ir)
{
    unsigned t = ir->type[0];
    if (!ptx_type_is_int(t) || t == PTX_T_B64 || t == PTX_T_U64 || t == PTX_T_S64 ||
        (ir->flags & PTX_F_CC))
        return 0;
    switch (ir->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MOV: return 1;
    case PTX_OP_SHL:
        return ir->nops == 3 && c->m->funcs[in->func].ops[ir->op0 + 2].kind == PTX_OPND_IMM;
    default: return 0;
    }
}

/* A __syncwarp (bar.warp.sync) in a diverged warp: some lanes that have not exited are on
 * another path. Since Volta each thread has its own program counter (independent thread
 * scheduling), and the SASS of such a __syncwarp is a WARPSYNC whose divergent case branches to
 * an out-of-line sequence that parks the arriving threads and switches the warp to the other
 * path (gpu/measured/h200/microbench/warpsync-sass.txt). On the H200 it costs about 180 cycles
 * before the warp goes on (Nsight Compute: branch_resolving) and holds a unit of the SMSP for
 * about 40 (warpsync.json). We model a unit per SMSP that takes one such __syncwarp every
 * issue_its_sync cycles; the warp waits for its turn and then lat_its_sync cycles, all of it
 * branch_resolving (the top stall of its_swap in Nsight Compute). A converged __syncwarp costs
 * what it did before (no unit, no wait). */
static int its_sync(const tctx *c, const exec_step_info *in)
{
    return in->opcode == PTX_OP_BAR_WARP_SYNC && in->exec_mask != 0 &&
           (in->active & in->live) != in->live && c->a->issue_its_sync > 0;
}

/* Which resource a memory access needs at issue: its queue by the space it reached. */
static uint8_t classify_mem(const exec_step_info *in, const tstatic *ts)
{
    switch (in->mem_space) {
    case PTX_SPACE_GLOBAL: case PTX_SPACE_LOCAL: return RES_LG;
    case PTX_SPACE_SHARED: case PTX_SPACE_SHARED_CLUSTER: return RES_MIO;
    case PTX_SPACE_PARAM: case PTX_SPACE_CONST: /* constant-bank operands, or an LDC (is_ldc) */
        return ts->flags & D_LDC ? RES_MIO : RES_ALU;
    default: return RES_LG;
    }
}

/* A constant-bank load into a register (SASS LDC). Hardware: a kernel's parameters are in
 * constant bank 0, which the launch fills. ptxas reads a 32-bit parameter as an operand of the
 * instruction that uses it (c[0x0][...], or ULDC into a uniform register: fixed latency), but
 * a 64-bit one, a pointer that IMAD.WIDE needs in a register pair, with LDC.64, and %ntid with
 * an LDC where the instruction using it has no constant operand left (the SASS of co_strided:
 * LDC R7, c[0x0][RZ] for blockDim.x, LDC.64 R2, c[0x0][0x210] for the first pointer). An LDC
 * goes through the MIO and its register is released on the short scoreboard: Nsight Compute
 * charges 8.9-9.3 % of the streaming kernels' warp cycles to short_scoreboard, at the start of
 * their short blocks. Model: a 64-bit ld.param of a kernel's own parameters and a read of
 * %ntid or %nctaid are MIO instructions whose result is ready lat_ldc cycles after they leave
 * the MIO queue (arch file: 34 on the H200, gpu/microbench/ldc.cu), except that the first LDC
 * of a launch on an SM starts the SM's constant cache fetching the parameter bank, and every
 * LDC of that SM waits until the fetch is done, lat_ldc_first cycles later (93 on the H200:
 * ldc.json's first load of a warp alone, 122 cycles clock to clock against 63 warm).
 * Simplified: every such read is an LDC (ptxas sometimes folds %ntid into an IMAD's constant
 * operand instead); the bank is one line, fetched once per SM and never evicted; no unit
 * limits the LDCs' rate. */
static int is_ldc(const tctx *c, const exec_step_info *in, const ptx_insn *ir)
{
    const ptx_func *f = &c->m->funcs[in->func];
    unsigned t = ir->type[0];
    if (ir->op == PTX_OP_LD)
        return ir->space == PTX_SPACE_PARAM && f->is_entry &&
               (t == PTX_T_U64 || t == PTX_T_S64 || t == PTX_T_B64);
    if (ir->op != PTX_OP_MOV || ir->nops != 2 || f->ops[ir->op0 + 1].kind != PTX_OPND_SREG)
        return 0;
    unsigned s = f->ops[ir->op0 + 1].sreg;
    return (s >= PTX_SR_NTID_X && s <= PTX_SR_NTID_Z) ||
           (s >= PTX_SR_NCTAID_X && s <= PTX_SR_NCTAID_Z);
}

/* Which resource the instruction needs at issue when it accesses no memory (see
 * timing_int.h): a property of the instruction alone (tstatic.res). */
static uint8_t classify_static(const tctx *c, const exec_step_info *in)
{
    const ptx_insn *ir = insn_of(c, in);
    if ((ir->op == PTX_OP_DIV || ir->op == PTX_OP_REM) && ptx_type_is_int(ir->type[0]))
        return RES_ALU; /* a sequence of ALU/IMAD/MUFU instructions: see expand() */
    switch (in->unit) {
    case PTX_UNIT_ALU: return int_on_fma(c, in, ir) ? RES_INT : RES_ALU;
    case PTX_UNIT_FMA: return ptx_type_is_int(ir->type[0]) ? RES_IMAD : RES_FMA;
    case PTX_UNIT_FP64: return RES_FP64;
    case PTX_UNIT_TENSOR: return RES_MMA;
    case PTX_UNIT_SFU: case PTX_UNIT_SHFL: return RES_MIO;
    /* A shared load or store whose lanes are all predicated off (one that runs lanes is
     * classify_mem's): the H200 still sends it down the MIO, and a load's destination is
     * released only when it comes back (ptxas's if-converted reductions, ptx_sched.c: the
     * H200's red_sequential waits 21.6 % of its warps' cycles on short_scoreboard, more than
     * at its barrier, although most of its warps have no lane on). One wavefront. */
    case PTX_UNIT_SHMEM: return RES_MIO;
    default: return RES_NONE; /* branch, barrier, control, other predicated-off memory ops */
    }
}

/* The pipe conditions of the math classes, from the three pipes' free cycles. */
static void pipes_ready(tsmsp *sp)
{
    uint64_t fma = sp->heavy_free < sp->lite_free ? sp->heavy_free : sp->lite_free;
    sp->pready[RES_ALU] = sp->alu_free;
    sp->pready[RES_FMA] = fma;
    sp->pready[RES_IMAD] = sp->heavy_free;
    sp->pready[RES_INT] = sp->alu_free < sp->heavy_free ? sp->alu_free : sp->heavy_free;
    /* these classes have no queue (qready 0) */
    sp->qp[RES_ALU] = sp->pready[RES_ALU];
    sp->qp[RES_FMA] = sp->pready[RES_FMA];
    sp->qp[RES_IMAD] = sp->pready[RES_IMAD];
    sp->qp[RES_INT] = sp->pready[RES_INT];
}

/* Occupies the math pipe a RES_ALU/FMA/IMAD/INT instruction of w issues to at cycle t. Each
 * FMA half takes a warp instruction every 2 * issue_fma cycles (16 of the SMSP's 32 FP32
 * lanes); without halves the one FMA pipe takes one every issue_fma. FP32 prefers the lite half
 * and integer work the ALU, keeping FMA-heavy for what only it can run. */
static void pipes_issue(const arch_t *a, tsmsp *sp, const tw *w, uint8_t res, uint64_t t)
{
    uint64_t heavy = (uint64_t)a->issue_fma * (a->fma_heavy_lite ? 2u : 1u);
    switch (res) {
    case RES_ALU: sp->alu_free = t + (uint64_t)a->issue_alu; sp->alu_by = w; break;
    case RES_IMAD: sp->heavy_free = t + heavy; sp->heavy_by = w; break;
    case RES_FMA:
        if (sp->lite_free <= t) {
            sp->lite_free = t + heavy;
            sp->lite_by = w;
        } else {
            sp->heavy_free = t + heavy;
            sp->heavy_by = w;
        }
        break;
    case RES_INT:
        if (sp->alu_free <= t) {
            sp->alu_free = t + (uint64_t)a->issue_alu;
            sp->alu_by = w;
        } else {
            sp->heavy_free = t + heavy;
            sp->heavy_by = w;
        }
        break;
    default: break;
    }
    pipes_ready(sp);
}

/* The pace of a warp's own instructions (called right after w issued at t and fetched its next
 * one). Hardware: ptxas knows each pipe's issue interval and writes it into the stall count of
 * an instruction followed by one of the same warp on the same pipe, so a warp waiting for a pipe
 * that its own previous instruction took is stalled on `wait` ("a fixed latency execution
 * dependency"); Nsight Compute's math_pipe_throttle is for a pipe that other warps keep busy
 * ("all active warps execute their next instruction on an oversubscribed pipe"). Model: when
 * the pipe the next instruction needs is busy past t + 1 and the unit that frees first was
 * taken by w, the next instruction's `wait` condition lasts until the pipe is free (w->pace).
 * The cycle it can issue is unchanged (the pipe condition held it until then anyway: a pipe's
 * free cycle only grows): only the reason of the cycles in between moves from
 * math_pipe_throttle to wait. Cycles another warp's later issue adds stay math_pipe_throttle. */
static void own_pace(const tsmsp *sp, tw *w, uint64_t t)
{
    uint8_t r = w->res;
    uint64_t p = sp->pready[r]; /* (0 for a class without a pipe) */
    if (p <= t + 1)             /* the usual case: free when the warp can next issue */
        return;
    const tw *by;
    switch (r) {
    case RES_ALU: by = sp->alu_by; break;
    case RES_IMAD: by = sp->heavy_by; break;
    case RES_FMA: by = sp->lite_free <= sp->heavy_free ? sp->lite_by : sp->heavy_by; break;
    case RES_INT: by = sp->alu_free <= sp->heavy_free ? sp->alu_by : sp->heavy_by; break;
    case RES_FP64: by = sp->fp64_by; break;
    case RES_MMA: by = sp->mma_by; break;
    default: return;
    }
    if (by == w) {
        w->pace = p;
        w->T[C_WAIT] = w->T[C_WAIT] > p ? w->T[C_WAIT] : p;
    }
}

/* Fills the scheduler-level conditions (queue, pipe) of w's pending instruction. */
static inline void shared_conds(const tsmsp *sp, tw *w)
{
    w->T[C_QUEUE] = sp->qready[w->res];
    w->T[C_PIPE] = sp->pready[w->res];
}

static int cond_reason(const tw *w, int k)
{
    static const int r[C_COUNT] = {STALL_BARRIER, STALL_SLEEPING, STALL_MEMBAR,
                                   STALL_BRANCH_RESOLVING, STALL_LONG_SCOREBOARD,
                                   STALL_SHORT_SCOREBOARD, STALL_WAIT, STALL_MIO_THROTTLE,
                                   STALL_MATH_PIPE_THROTTLE};
    if (k == C_QUEUE && w->res == RES_LG)
        return STALL_LG_THROTTLE;
    return r[k];
}

/* charge_to's walk over the conditions, the first k0 of which are known satisfied on every
 * cycle from w->charged on (0: none known). */
static void charge_walk(tctx *c, tw *w, uint64_t to, int k0)
{
    if (w->state == TW_DRAIN) { /* a warp released from a barrier may exit right away */
        if (w->T[C_BAR] > w->charged)
            stats_charge(c, w, STALL_BARRIER, w->T[C_BAR] < to ? w->T[C_BAR] : to);
        stats_charge(c, w, STALL_DRAIN, to);
        return;
    }
    /* the conditions do not change during the walk and the cycle only grows, so the first
     * condition not yet satisfied only moves on: the search resumes where it stopped */
    int k = k0;
    while (w->charged < to) {
        uint64_t t = w->charged;
        while (k < C_COUNT && w->T[k] <= t)
            k++;
        if (k == C_COUNT) { /* eligible on a cycle the scheduler did not visit: cannot happen */
            stats_charge(c, w, STALL_NOT_SELECTED, to);
            return;
        }
        stats_charge(c, w, cond_reason(w, k), w->T[k] < to ? w->T[k] : to);
    }
}

/* Charges w's cycles [w->charged, to) to the reasons its conditions give, cycle-exact. */
static inline void charge_to(tctx *c, tw *w, uint64_t to)
{
    if (w->charged < to) /* a warp looked at every cycle is usually charged up to now */
        charge_walk(c, w, to, 0);
}

/* charge_to for a warp sched_eval looks at: its own conditions are all satisfied from cycle
 * ready (its ens) on, so from w->charged >= ready only the queue and the pipe can hold it and
 * the walk starts there (a warp looked at on consecutive cycles skips seven compares). */
static inline void charge_looked(tctx *c, tw *w, uint64_t to, uint64_t ready)
{
    _Static_assert(C_QUEUE == 7 && C_PIPE == 8 && C_COUNT == 9,
                   "charge_looked: the queue and the pipe are the last conditions");
    if (w->charged < to)
        charge_walk(c, w, to, w->charged >= ready ? C_QUEUE : 0);
}

/* Fixed latency of a math instruction. */
static uint64_t math_latency(const tctx *c, const exec_step_info *in)
{
    const arch_t *a = c->a;
    switch (in->latclass) {
    case PTX_LAT_FMA: {
        const ptx_insn *ir = insn_of(c, in);
        int integer = ir->type[0] >= PTX_T_B8 && ir->type[0] <= PTX_T_S64;
        return (uint64_t)(integer ? a->lat_imad : a->lat_fma);
    }
    case PTX_LAT_FP64: return (uint64_t)a->lat_fp64;
    default: return (uint64_t)a->lat_alu;
    }
}

/* Integer division and remainder are not instructions on the GPU: ptxas expands them.
 * By a register, 32-bit (CUDA 13.0, sm_90, e.g. red_interleaved's `tid % (2 * s)`): I2F.U32.RP,
 * MUFU.RCP, F2I (a reciprocal estimate), then IMAD/IMAD.HI refinement and two ISETP + IADD
 * corrections: 17 instructions, 8 on the ALU, 6 on FMA-heavy, 3 through MUFU/conversion; the
 * dependent path is I2F, MUFU, VIADD, F2I, 3 IMAD, then 7 ALU/IMAD steps: with our measured
 * latencies (MUFU class 17 for the three XU/MUFU ones, IMAD 4, ALU 5) about 100 cycles.
 * 64-bit: a call to a division subroutine of roughly four times that (estimate, not traced).
 * By a constant: a multiply-high by a magic number and a shift (IMAD.HI + SHF), 9 cycles.
 * Model: the PTX instruction issues as the first of them (an ALU instruction whose result is
 * ready lat cycles later); the others follow as instructions of their own (xfill_fetch), each
 * taking an issue slot of the scheduler and its pipe, so that other warps wait for them
 * (not_selected) as they wait for any other warp's instructions. */
enum { XP_IMM, XP_32, XP_64 };

static void expand(const tctx *c, const exec_step_info *in, const ptx_insn *ir, tstatic *g)
{
    const ptx_operand *div = &c->m->funcs[in->func].ops[ir->op0 + 2];
    int wide = ir->type[0] == PTX_T_U64 || ir->type[0] == PTX_T_S64 || ir->type[0] == PTX_T_B64;
    g->flags |= D_EXPAND;
    if (div->kind == PTX_OPND_IMM)
        g->xissue = 2, g->xpat = XP_IMM, g->lat = 9;
    else if (!wide)
        g->xissue = 17, g->xpat = XP_32, g->lat = 100;
    else
        g->xissue = 68, g->xpat = XP_64, g->lat = 400;
}

/* The class of the i-th instruction an expansion adds after the PTX instruction (i from 0).
 * 32-bit by a register, in the SASS order of red_interleaved's loop (cuobjdump, CUDA 13.0,
 * sm_90): I2F, IADD3, ISETP, MUFU.RCP, VIADD, F2I, IMAD.MOV, IMAD, IMAD.HI, IMAD.HI, IADD3,
 * IMAD, ISETP, IMAD.IADD, ISETP, IADD3 (with the PTX instruction as the SHF before them and
 * the LOP3 after folded into it: 3 MUFU/XU, 8 ALU, 6 FMA-heavy). 64-bit: the same, then ALU
 * and FMA-heavy alternately (the subroutine's body: an estimate). By a constant: the SHF. */
static uint8_t xfill_res(uint8_t pat, uint32_t i)
{
    static const uint8_t x32[16] = {RES_MIO, RES_ALU, RES_ALU, RES_MIO, RES_ALU, RES_MIO,
                                    RES_IMAD, RES_IMAD, RES_IMAD, RES_IMAD, RES_ALU, RES_IMAD,
                                    RES_ALU, RES_IMAD, RES_ALU, RES_ALU};
    if (pat == XP_IMM)
        return RES_ALU;
    if (i < 16)
        return x32[i];
    return (i - 16) % 2 ? RES_IMAD : RES_ALU;
}

/* Makes ts, an instruction the PTX does not have (an expansion's or a spill op), w's pending
 * one at cycle now, for the lanes in mask: no register dependences, exits no lane. */
static void pend_inserted(tw *w, const tstatic *ts, uint8_t res, uint32_t mask, uint64_t now)
{
    tdigest *g = &w->dg;
    w->has_pending = 1;
    w->res = res;
    w->T[C_LONG] = w->T[C_SHORT] = w->T[C_WAIT] = 0;
    w->pace = 0;
    g->st = ts;
    g->fnow = now;
    g->exec_mask = mask;
    g->exit_mask = 0;
    g->flags = ts->flags;
}

/* The added instructions' static parts, one per class: no register read or written (the PTX
 * instruction's result is ready at its own lat), not a PTX opcode (op_count skips them). */
void sched_init_xfill(tctx *c)
{
    for (uint8_t r = 0; r < RES_COUNT; r++)
        c->xfill_ts[r] = (tstatic){.valid = 1, .res = r, .opcode = PTX_OP_COUNT,
                                   .flags = D_XFILL, .lat = (uint32_t)c->a->lat_alu};
}

/* w's next pending instruction: the next one its expansion (w->xts) adds, for the lanes of the
 * PTX instruction. It counts as a warp instruction and issues to its class's pipe (MUFU and
 * conversions through the MIO, as SFU instructions). */
static wl_status xfill_fetch(tctx *c, tw *w, uint64_t now)
{
    uint8_t r = xfill_res(w->xts->xpat, w->xpos++);
    pend_inserted(w, &c->xfill_ts[r], r, w->xmask, now);
    return WL_OK;
}

/* Points w->secs at room for n sectors of its pending access: the record's own TW_SECS_IN, else
 * a heap buffer of TW_MAX_SECS kept for the warp's slot. 0, or -1 when out of memory. */
static inline int secs_room(tw *w, uint32_t n)
{
    if (n > TW_SECS_IN && !w->secs_heap &&
        !(w->secs_heap = malloc(TW_MAX_SECS * sizeof *w->secs_heap)))
        return -1;
    w->secs = n > TW_SECS_IN ? w->secs_heap : w->secs_in;
    return 0;
}

/* A wmma.load/store's parts (exec_step_info.mem_parts: the SASS's 4 or 8 loads or stores per
 * lane): the shared-memory wavefronts of each part added up, or the sectors of all parts (each
 * once) and their lines. The model issues the instruction once; the parts only load the
 * memory path. */
static void parts_shared(const tctx *c, const exec_step_info *in, uint32_t *wf, uint32_t *ideal)
{
    exec_step_info p = *in;
    *wf = *ideal = 0;
    for (uint32_t q = 0; q < in->mem_parts; q++) {
        uint64_t off = exec_step_part_off(in, q);
        for (int l = 0; l < 32; l++)
            p.addr[l] = in->addr[l] + off;
        uint32_t w = 0, i = 0;
        ldst_shared(&p, (uint32_t)c->a->smem_banks, (uint32_t)c->a->smem_bank_bytes, &w, &i);
        *wf += w;
        *ideal += i;
    }
}

/* Shared-memory wavefronts depend on the lanes' addresses only relative to one another and to
 * a word boundary: moving every lane by k words moves each word it touches by k, to the bank k
 * further on (mod 32), so equal words stay equal, distinct ones distinct, and the most
 * distinct words any bank holds (a wavefront count, per group of lanes) stays what it was.
 * So an access with the same shape as an earlier one costs what that one cost. A loop's shared
 * accesses repeat their shape from iteration to iteration and from warp to warp, and one whose
 * lanes are not on a line (a column of a tile, a wmma fragment) is costly to count
 * (ldst_shared's sets of words): a small direct-mapped memo, per static instruction, keyed by
 * the shape (active lanes, size, parts, the first active lane's address within its word and
 * the other lanes' offsets from it), remembers the last count. The same numbers as counting,
 * sooner. */
#define SMEMO_N 256
struct tsmemo {
    const tstatic *ts; /* NULL: empty */
    uint32_t mask, size, parts, mod;
    uint64_t part_off[3];
    uint32_t wf, ideal;
    int32_t off[32]; /* lane l's address - the first active lane's (inactive lanes: 0) */
};

struct tsmemo *sched_smemo_new(void)
{
    return calloc(SMEMO_N, sizeof(struct tsmemo));
}

/* The wavefronts and the ideal count of shared access `in` (exec_mask != 0) by static
 * instruction ts: from the memo when its shape was seen last, else counted and remembered. */
static void smem_cost(tctx *c, const tstatic *ts, const exec_step_info *in, uint32_t *wf,
                      uint32_t *ideal)
{
    const arch_t *a = c->a;
    if (in->addr_linear && !in->mem_parts) { /* lanes on a line: counted at once */
        ldst_shared(in, (uint32_t)a->smem_banks, (uint32_t)a->smem_bank_bytes, wf, ideal);
        return;
    }
    struct tsmemo key, *e = &c->smemo[((uintptr_t)ts / sizeof *ts) % SMEMO_N];
    uint32_t m = in->exec_mask;
    int l0 = __builtin_ctz(m), fits = 1;
    uint64_t a0 = exec_step_addr(in, l0);
    for (int l = 0; l < 32; l++) {
        int64_t d = (m >> l) & 1 ? (int64_t)(exec_step_addr(in, l) - a0) : 0;
        key.off[l] = (int32_t)d;
        fits &= d == key.off[l];
    }
    key.mask = m;
    key.size = in->mem_size;
    key.parts = in->mem_parts;
    key.mod = (uint32_t)(a0 % (uint64_t)a->smem_bank_bytes);
    for (int q = 0; q < 3; q++)
        key.part_off[q] = in->mem_parts ? in->part_off[q] : 0;
    if (fits && e->ts == ts && e->mask == key.mask && e->size == key.size &&
        e->parts == key.parts && e->mod == key.mod &&
        !memcmp(e->part_off, key.part_off, sizeof key.part_off) &&
        !memcmp(e->off, key.off, sizeof key.off)) {
        *wf = e->wf;
        *ideal = e->ideal;
        return;
    }
    if (in->mem_parts)
        parts_shared(c, in, wf, ideal);
    else
        ldst_shared(in, (uint32_t)a->smem_banks, (uint32_t)a->smem_bank_bytes, wf, ideal);
    if (!fits)
        return; /* offsets beyond 32 bits */
    key.ts = ts;
    key.wf = *wf;
    key.ideal = *ideal;
    *e = key;
}

static uint32_t parts_coalesce(const tctx *c, const exec_step_info *in, uint64_t *secs,
                               uint32_t *nlines)
{
    exec_step_info p = *in;
    uint64_t part[64], lines[TW_MAX_SECS];
    uint32_t n = 0, nl = 0;
    uint32_t spl = (uint32_t)(c->a->line_bytes / c->a->sector_bytes);
    for (uint32_t q = 0; q < in->mem_parts; q++) {
        uint64_t off = exec_step_part_off(in, q);
        for (int l = 0; l < 32; l++)
            p.addr[l] = in->addr[l] + off;
        uint32_t pl, k = ldst_coalesce(&p, (uint32_t)c->a->sector_bytes,
                                       (uint32_t)c->a->line_bytes, part, &pl);
        for (uint32_t i = 0; i < k && n < TW_MAX_SECS; i++) {
            uint32_t j = 0;
            while (j < n && secs[j] != part[i])
                j++;
            if (j < n)
                continue;
            secs[n++] = part[i];
            uint64_t line = part[i] / spl;
            for (j = 0; j < nl && lines[j] != line; j++)
                ;
            if (j == nl)
                lines[nl++] = line;
        }
    }
    *nlines = nl;
    return n;
}

/* Everything issue needs from the functional record that depends on the lanes or the
 * addresses, read while it is in the host caches; the rest is the instruction's tstatic. */
/* 0, or -1 when out of memory (a warp's first access of more than TW_SECS_IN sectors). */
static int digest(tctx *c, tw *w, const exec_step_info *in, const tstatic *ts)
{
    const arch_t *a = c->a;
    tdigest *g = &w->dg;
    g->st = ts;
    g->exec_mask = in->exec_mask;
    g->exit_mask = in->exit_mask;
    g->flags = (uint16_t)(ts->flags & (uint16_t)~D_BAR_WAITS);
    if (in->is_branch)
        g->flags |= D_BRANCH;
    if (in->yielded)
        g->flags |= D_YIELD;
    if (in->is_barrier && in->exec_mask) {
        g->flags |= D_BARRIER | (ts->flags & D_BAR_WAITS);
        g->bar_id = in->bar_id;
        g->bar_count = in->bar_count;
    }
    if (its_sync(c, in))
        g->flags |= D_ITS;
    if (g->flags & D_SPILL_AFTER) /* spill ops follow it: their lanes (sched_issue) */
        w->spill_mask = in->active;
    if (w->res == RES_MIO && (in->mem_space == PTX_SPACE_SHARED ||
                              in->mem_space == PTX_SPACE_SHARED_CLUSTER || (g->flags & D_SHARED))) {
        g->flags |= D_SHARED;
        g->wf = 0;
        if (in->exec_mask) /* else predicated off: no address to look at */
            smem_cost(c, ts, in, &g->wf, &g->ideal);
        if (g->wf == 0)
            g->wf = g->ideal = 1;
    } else if (w->res == RES_LG) {
        g->space = in->mem_space;
        g->mkind = in->mem_atomic ? MEM_ATOMIC : in->mem_store ? MEM_STORE : MEM_LOAD;
        g->nsec = in->mem_parts ? parts_coalesce(c, in, c->scratch_secs, &g->nlines)
                                : ldst_coalesce(in, (uint32_t)a->sector_bytes,
                                                (uint32_t)a->line_bytes, c->scratch_secs,
                                                &g->nlines);
        if (secs_room(w, g->nsec))
            return -1;
        memcpy(w->secs, c->scratch_secs, (size_t)g->nsec * sizeof *w->secs);
        mem_prefetch(c->mem, w->blk->sm, in->mem_space == PTX_SPACE_LOCAL, w->secs, g->nsec);
    }
    return 0;
}

/* PTX instructions that ptxas folds away, so the hardware never issues them: a move of a
 * constant or of a variable's address (it becomes an immediate or constant-bank operand, or a
 * uniform register set once), cvta between global and generic (the same addresses on sm_90:
 * no SASS), and 32 <-> 64-bit integer truncation or zero extension (a register pair's low half
 * or RZ as the high half). Returns 1 for immediate/address sources (value ready at once), 2 for
 * register copies (ready when the source is). */
static int folds(const tctx *c, const exec_step_info *in)
{
    const ptx_insn *ir = insn_of(c, in);
    const ptx_func *f = &c->m->funcs[in->func];
    switch (ir->op) {
    case PTX_OP_MOV: {
        if (ir->nops != 2 || f->ops[ir->op0].kind != PTX_OPND_REG)
            return 0;
        int k = f->ops[ir->op0 + 1].kind;
        return k == PTX_OPND_IMM || k == PTX_OPND_FIMM || k == PTX_OPND_SYM;
    }
    case PTX_OP_CVTA: return ir->space == PTX_SPACE_GLOBAL ? 2 : 0;
    case PTX_OP_SELP: return ir->flags & PTX_F_SELECT_FOLD ? 2 : 0; /* ptx_sched.c */
    case PTX_OP_ADD: return ir->flags & PTX_F_ADDR_FOLD ? 2 : 0;     /* ptx_sched.c */
    case PTX_OP_CVT: {
        unsigned d = ir->type[0], s = ir->type[1];
        int d64 = d == PTX_T_U64 || d == PTX_T_S64 || d == PTX_T_B64;
        int s64 = s == PTX_T_U64 || s == PTX_T_S64 || s == PTX_T_B64;
        int d32 = d == PTX_T_U32 || d == PTX_T_S32 || d == PTX_T_B32;
        int s32 = s == PTX_T_U32 || s == PTX_T_B32;
        return ((d32 && s64) || (d64 && s32)) ? 2 : 0;
    }
    default: return 0;
    }
}

/* Fills ts from the first execution of its instruction: only fields that do not depend on
 * the lanes, the addresses or the time (see tstatic). */
static wl_status static_fill(tctx *c, tstatic *ts, const exec_step_info *in)
{
    const arch_t *a = c->a;
    const ptx_insn *ir = insn_of(c, in);
    ts->opcode = in->opcode;
    ts->line = in->line;
    ts->nsrc = in->nsrc;
    ts->ndst = in->ndst;
    for (int i = 0; i < in->nsrc; i++)
        ts->src[i] = (uint32_t)in->func * c->kstride + (uint32_t)in->src[i];
    for (int i = 0; i < in->ndst; i++)
        ts->dst[i] = (uint32_t)in->func * c->kstride + (uint32_t)in->dst[i];
    ts->unroll = (ir->flags & PTX_F_UNROLL_CTL) != 0;
    /* folds() names moves, cvta, selp and cvt (never a branch or a barrier); a fold has
     * one destination */
    ts->fold = ts->ndst == 1 ? (uint8_t)folds(c, in) : 0;
    if (ir->flags & PTX_F_IFCVT) /* a branch ptxas replaced by predication (ptx_sched.c) */
        ts->fold = 1;
    ts->res = classify_static(c, in);
    ts->flags = in->opcode == PTX_OP_MEMBAR || in->opcode == PTX_OP_FENCE ? D_MEMBAR : 0;
    if (is_ldc(c, in, ir)) {
        ts->res = RES_MIO;
        ts->flags |= D_LDC;
    }
    if (ir->mode != PTX_BAR_ARRIVE)
        ts->flags |= D_BAR_WAITS; /* used only when it is a barrier */
    ts->sleep = TIMING_SLEEP_CYCLES;
    ts->pf_data = (uint8_t)exec_insn_next_global(c->prog, in->func, in->pc);
    if (in->opcode == PTX_OP_NANOSLEEP && ir->nops >= 1) {
        const ptx_operand *o = &c->m->funcs[in->func].ops[ir->op0];
        if (o->kind == PTX_OPND_IMM)
            ts->sleep = (uint32_t)(o->imm * (uint64_t)a->sm_clock_mhz / 1000u + 1u);
    }
    switch (ts->res) {
    case RES_MMA: /* mma.sync: its shape's latency and tensor-core interval (arch [latency],
                   * [pipes] mma16816 and mma1688; gpu/microbench/mma.cu) */
        ts->lat = (uint32_t)(ir->mode == PTX_MMA_M16N8K8 ? a->lat_mma1688 : a->lat_mma16816);
        ts->pipe_issue =
            (uint32_t)(ir->mode == PTX_MMA_M16N8K8 ? a->issue_mma1688 : a->issue_mma16816);
        if (ir->op == PTX_OP_WMMA_MMA) { /* two HMMA.16816 back to back (its SASS): the pipe
                                          * twice as long, the result after the second */
            ts->lat = (uint32_t)(a->issue_mma16816 + a->lat_mma16816);
            ts->pipe_issue = 2u * (uint32_t)a->issue_mma16816;
        }
        break;
    case RES_ALU: case RES_FMA: case RES_IMAD: case RES_INT:
        ts->lat = (uint32_t)math_latency(c, in);
        if ((ir->op == PTX_OP_DIV || ir->op == PTX_OP_REM) && ptx_type_is_int(ir->type[0]) &&
            ir->nops == 3)
            expand(c, in, ir, ts);
        break;
    case RES_MIO:
        if (in->unit == PTX_UNIT_SHFL)
            ts->flags |= D_SHFL;
        if (in->unit == PTX_UNIT_SHMEM) /* ld/st.shared, also with no lane on (digest) */
            ts->flags |= D_SHARED;
        break;
    default: break;
    }
    if (c->spill_after && (uint32_t)in->func == c->spill_func) { /* ptxas's spill code */
        if (c->spill_after[in->pc]) {
            ts->flags |= D_SPILL_AFTER;
            ts->spill0 = c->spill_after[in->pc] - 1;
        }
        /* the reloads it waits for, as registers it reads */
        uint32_t nw = c->wait_count[in->pc];
        if (nw > TS_MAX_SRC - (uint32_t)ts->nsrc)
            return diag_set(c->d, WL_EUSAGE, c->cfg->spills_path, 0, 0,
                            "PTX line %u waits for %u spill reloads: more than the %u the "
                            "timing model keeps beside its %u registers", in->line, nw,
                            TS_MAX_SRC - (unsigned)ts->nsrc, (unsigned)ts->nsrc);
        memcpy(ts->src + ts->nsrc, c->spill_keys + c->wait_first[in->pc], nw * sizeof *ts->src);
        ts->nsrc = (uint8_t)(ts->nsrc + nw);
    }
    ts->valid = 1;
    return WL_OK;
}

/* static_fill for the instruction of a lean step (exec_prog_lean_steps), which lacks the
 * fields static_fill reads. Once per pc: kept out of line, so that sched_fetch, which runs for
 * every warp instruction, stays small (its stack frame and register use). */
__attribute__((noinline, cold)) static wl_status static_fill_once(tctx *c, tstatic *ts,
                                                                  const exec_step_info *lean)
{
    exec_step_info full;
    exec_insn_describe(c->prog, lean->func, lean->pc, &full);
    return static_fill(c, ts, &full);
}

/* ptxas's spill code (spillmap.h; docs/model.md, section 9). Hardware: a thread's stack frame
 * lives in local memory, which is laid out so that the same 4-byte word of the 32 threads of a
 * warp is 128 consecutive bytes (CUDA C++ Programming Guide, "Local Memory"), and sized for
 * every warp the GPU can hold. Model: warp slot `slot` of SM `sm` owns frame * 32 bytes at
 * (sm * max_warps_per_sm + slot) * frame * 32 of a local address space of its own (the memory
 * system tags local lines); a B-byte access at frame offset o takes lane l to o * 32 + l * B of
 * that (for B = 4 exactly the interleave above; wider accesses keep their lanes' bytes
 * together). Spill op idx, for the lanes in w->spill_mask, becomes w's pending instruction: an
 * LG-queue local access like an LDL/STL, a reload writing its key (waited for by its use). */
/* (Not inlined: most kernels have no spill code. Not marked cold either: where a kernel has
 * it, it can be half the instructions, occ_regs_lb8.) */
__attribute__((noinline)) static wl_status spill_fetch(tctx *c, tw *w, uint32_t idx, uint64_t now)
{
    const tstatic *ts = &c->spill_ts[idx];
    const spill_op *op = &c->spill_ops[idx];
    const arch_t *a = c->a;
    tdigest *g = &w->dg;
    pend_inserted(w, ts, RES_LG, w->spill_mask, now); /* flags: D_SPILL_AFTER if one follows */
    g->space = PTX_SPACE_LOCAL;
    g->mkind = op->store ? MEM_STORE : MEM_LOAD;
    uint64_t base = ((uint64_t)w->blk->sm * (uint64_t)a->max_warps_per_sm + w->slot) *
                        (uint64_t)c->spill_frame * 32u + (uint64_t)op->offset * 32u;
    uint64_t sb = (uint64_t)a->sector_bytes, spl = (uint64_t)a->line_bytes / sb;
    uint32_t n = 0, nl = 0;
    if (w->spill_mask == UINT32_MAX) { /* every lane (the usual case): one contiguous range */
        /* shifts where the sizes are powers of two (64-bit divisions were a tenth of this
         * function's host time on occ_regs_lb8) */
        int ssh = wl_log2_exact(sb), lsh = wl_log2_exact(spl);
        uint64_t end = base + 32u * op->bytes - 1;
        uint64_t s0 = ssh >= 0 ? base >> ssh : base / sb, s1 = ssh >= 0 ? end >> ssh : end / sb;
        n = (uint32_t)(s1 - s0 + 1);
        if (secs_room(w, n))
            return diag_set(c->d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        for (uint32_t i = 0; i < n; i++)
            w->secs[i] = s0 + i;
        nl = (uint32_t)(lsh >= 0 ? (s1 >> lsh) - (s0 >> lsh) + 1 : s1 / spl - s0 / spl + 1);
    } else {
        uint64_t *secs = c->scratch_secs;
        for (uint32_t m = w->spill_mask; m; m &= m - 1) { /* ascending addresses */
            uint64_t at = base + (uint64_t)__builtin_ctz(m) * op->bytes;
            for (uint64_t s = at / sb; s <= (at + op->bytes - 1) / sb; s++)
                if (n == 0 || secs[n - 1] < s) {
                    nl += n == 0 || secs[n - 1] / spl != s / spl;
                    secs[n++] = s;
                }
        }
        if (secs_room(w, n))
            return diag_set(c->d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        memcpy(w->secs, secs, (size_t)n * sizeof *w->secs);
    }
    g->nsec = n;
    g->nlines = nl;
    mem_prefetch(c->mem, w->blk->sm, 1, w->secs, n);
    sb_deps(&w->sb, ts->dst, ts->ndst, 1, now, w->T); /* the reload's previous write */
    return WL_OK;
}

wl_status sched_fetch(tctx *c, tw *w, uint64_t now)
{
    tblock *b = w->blk;
    for (;;) {
        w->has_pending = 0;
        exec_step_info *info = &c->info;
        /* %clock/%clock64/%globaltimer read the cycle the instruction can issue first: the
         * next cycle after the previous issue (at its first instruction, the warp's start).
         * Exact for a warp that is selected as soon as it is ready; one competing with other
         * warps of its scheduler reads a few cycles early. */
        if (c->reads_clock) {
            uint64_t at = w->issued ? now + 1 : now;
            uint64_t mhz = c->a->sm_clock_mhz > 0 ? (uint64_t)c->a->sm_clock_mhz : 1000u;
            exec_block_set_clock(b->eb, at, at * 1000u / mhz);
        }
        /* exec_warp_step clears every field but addr[] of an instruction it runs (and of a
         * finished warp everything before addr[]); the checks below read nothing else */
        wl_status st = exec_warp_step(b->eb, w->bw, info, c->d);
        if (st != WL_OK)
            return st;
        /* no-op moves the executor passed over (exec_prog_pass_folded): folded, as below */
        c->res->folded_instructions += info->passed;
        if (!info->ran) {
            if (exec_warp_state_of(b->eb, w->bw) == EXEC_WARP_DONE) {
                w->state = TW_DRAIN;
                w->t_drain = max64(now + 1, max64(w->ld_done, w->st_left));
                w->drain_base = now + 1;
                w->pend_drain = w->npend_ld > 0;
                if (w->pend_drain)
                    w->t_drain = T_PEND;
                return WL_OK;
            }
            return diag_set(c->d, WL_EDEADLOCK, c->m->name, 0, 0,
                            "internal: warp %d of block %u has no instruction to issue", w->bw,
                            b->id);
        }
        const exec_step_info *in = info;
        tstatic *ts = &c->stat[in->func][in->pc];
        if (!ts->valid) { /* once per pc */
            wl_status sf = static_fill_once(c, ts, in);
            if (sf != WL_OK)
                return sf;
        }
        w->T[C_LONG] = w->T[C_SHORT] = w->T[C_WAIT] = 0;
        w->pace = 0;
        w->dg.st = ts;
        w->dg.fnow = now;
        sb_deps(&w->sb, ts->src, ts->nsrc, 0, now, w->T);
        int fold = 0;
        if (ts->unroll) { /* issued in one iteration of 4 (ptx_sched.c) */
            fold = w->unroll_it % 4u != 3u ? 2 : 0;
            if (in->is_branch)
                w->unroll_it++;
        } else {
            fold = ts->fold; /* 0 unless a move-like instruction with one destination */
        }
        if (!fold)
            break;
        /* folded: not issued; its result is ready when its source is (now for constants) */
        uint64_t ready = now;
        uint8_t kind = SB_FIXED;
        if (fold == 2) {
            static const uint8_t kinds[3] = {SB_LONG, SB_SHORT, SB_FIXED};
            for (int k = 0; k < 3; k++)
                if (w->T[C_LONG + k] > ready) {
                    ready = w->T[C_LONG + k];
                    kind = kinds[k];
                }
        }
        c->res->folded_instructions++;
        for (int i = 0; i < ts->ndst; i++)
            if (sb_set(&w->sb, ts->dst[i], ready, kind, now))
                return diag_set(c->d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        if (__builtin_expect(ts->flags & D_SPILL_AFTER, 0)) { /* spill ops after it: issued */
            w->spill_mask = in->active;
            return spill_fetch(c, w, ts->spill0, now);
        }
    }
    w->has_pending = 1;
    const exec_step_info *in = &c->info;
    const tstatic *ts = w->dg.st;
    /* the simulated memory the instruction after this one touches, when it is a global load
     * or store: its address registers are final now, and it runs when this one issues, a few
     * evaluations from now (bk_transpose33 +7-10 %, lat_copy +3 %: sixteenth session). Only
     * where the next one can be such an access (pf_data): elsewhere the calls found nothing
     * and cost 4.8 % of bk_transpose33's host instructions. */
    if (ts->pf_data)
        exec_warp_prefetch_data(b->eb, w->bw);
    w->res = in->mem_load || in->mem_store || in->mem_atomic ? classify_mem(in, ts) : ts->res;
    if (digest(c, w, in, ts))
        return diag_set(c->d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    sb_deps(&w->sb, ts->dst, ts->ndst, 1, now, w->T);
    return WL_OK;
}

/* The cycle w's own conditions allow it to issue (retire when draining); T_INF at a barrier. */
static inline uint64_t own_ready(const tw *w)
{
    if (w->state == TW_DRAIN)
        return max64(w->t_drain, max64(w->start, w->T[C_BAR]));
    if (w->state == TW_BARRIER || !w->has_pending)
        return T_INF;
    /* max(start, T[0..C_QUEUE)) as two independent chains (the loop was not unrolled) */
    _Static_assert(C_QUEUE == 7, "own_ready: the conditions before C_QUEUE");
    const uint64_t *T = w->T;
    uint64_t e0 = max64(max64(w->start, T[0]), max64(T[1], T[2]));
    uint64_t e1 = max64(max64(T[3], T[4]), max64(T[5], T[6]));
    return max64(e0, e1);
}

/* Sets the class of the warp at position i (wres, and the class masks where kept). */
static inline void set_wres(const tctx *c, tsmsp *sp, int i, uint8_t r)
{
    if (c->wmask) {
        uint64_t bit = 1ull << i;
        sp->cmask[sp->wres[i]] &= ~bit;
        sp->cmask[r] |= bit;
    }
    sp->wres[i] = r;
}

void sched_add_warp(tctx *c, tsmsp *sp, tw *w)
{
    if (sp->nwarps == 0)
        sp->active_since = w->start;
    w->idx = sp->nwarps++;
    sp->warps[w->idx] = w;
    sp->ens[w->idx] = own_ready(w);
    set_wres(c, sp, w->idx, w->res);
    /* gto's pick (pick_mask) relies on this: ages grow with the position, since warps are
     * appended as they arrive (ages are given in arrival order, gpu.c) and removed in order */
    sp->wage[w->idx] = w->age;
    if (c->wmask)
        sp->lzm &= ~(1ull << w->idx);
    w->pend_seq = ++sp->pend_seq;
    tgpu_wake(c, sp, w->start);
}

void sched_refresh(tctx *c, tw *w)
{
    tsmsp *sp = tgpu_sp(c, w->blk->sm, w->slot);
    sp->ens[w->idx] = own_ready(w);
    set_wres(c, sp, w->idx, w->res);
    if (sp->ens[w->idx] != T_INF)
        tgpu_wake(c, sp, sp->ens[w->idx]);
}

void sched_resolve(tw *w, uint64_t token, uint64_t cycle, int store)
{
    w->mem_done = max64(w->mem_done, cycle);
    w->npend--;
    if (!store) {
        w->ld_done = max64(w->ld_done, cycle);
        w->npend_ld--;
    }
    sb_resolve(&w->sb, token, cycle);
}

void sched_settle(tctx *c, tw *w)
{
    /* only conditions that waited on a token change (to cycles >= the window's end): a warp
     * whose instruction did not need the result keeps its state and wake-up */
    int changed = 0;
    if (w->state == TW_ACTIVE && w->has_pending && w->T[C_LONG] >= MEM_TOKEN) {
        /* the scoreboard conditions of the pending instruction, as its fetch would have found
         * them had the cycles been known (sched_fetch) */
        w->T[C_LONG] = w->T[C_SHORT] = w->T[C_WAIT] = 0;
        const tstatic *ts = w->dg.st;
        sb_deps(&w->sb, ts->src, ts->nsrc, 0, w->dg.fnow, w->T);
        sb_deps(&w->sb, ts->dst, ts->ndst, 1, w->dg.fnow, w->T);
        w->T[C_WAIT] = max64(w->T[C_WAIT], w->pace); /* own_pace */
        changed = 1;
    }
    if (w->npend_ld == 0 && w->pend_drain) {
        w->pend_drain = 0;
        w->t_drain = max64(w->drain_base, max64(w->ld_done, w->st_left));
        changed = 1;
    }
    if (w->npend == 0 && w->pend_membar) {
        w->pend_membar = 0;
        w->T[C_MEMBAR] = max64(w->membar_base, w->mem_done);
        changed = 1;
    }
    if (changed)
        sched_refresh(c, w);
}

/* The MIO path: shared memory and shuffles through the SM's shared-memory unit, MUFU and
 * conversions through this scheduler's SFU. Returns the result cycle. */
static uint64_t issue_mio(tctx *c, tsmsp *sp, tw *w, uint64_t t)
{
    const arch_t *a = c->a;
    const tdigest *g = &w->dg;
    timing_result *r = c->res;
    uint64_t depart = max64(t, sp->mio_last), ready;
    if (g->flags & (D_SHARED | D_SHFL)) {
        uint32_t wf = 1;
        uint64_t base = (uint64_t)(g->flags & D_SHFL ? a->lat_shfl : a->lat_smem);
        if (g->flags & D_SHARED) {
            wf = g->wf;
            r->shared_requests++;
            r->shared_wavefronts += wf;
            r->shared_bank_conflicts += wf - g->ideal;
        }
        /* LDS/STS share the scheduler's address stage with the LG path; they pass it when
         * they are issued, before the MIO queue (an LDG issued later does not wait behind
         * the shared unit's backlog: docs/model.md, section 5) */
        if (!(g->flags & D_SHFL)) {
            uint64_t agu = max64(t, sp->lsu_free);
            sp->lsu_free = agu + (uint64_t)a->issue_lsu;
            depart = max64(depart, agu);
        }
        depart = max64(depart, sp->sm->shared_free);
        sp->sm->shared_free = depart + (uint64_t)wf * TIMING_SMEM_CYCLES_PER_WAVEFRONT;
        ready = depart + base + (uint64_t)(wf - 1) * (uint64_t)a->lat_smem_conflict;
    } else if (g->flags & D_LDC) { /* the constant cache (is_ldc) */
        tsm *sm = sp->sm;
        if (!sm->ldc_fill) /* the launch's first LDC on this SM: the bank is fetched */
            sm->ldc_fill = depart + (uint64_t)a->lat_ldc_first;
        ready = max64(depart + (uint64_t)a->lat_ldc, sm->ldc_fill);
    } else {
        depart = max64(depart, sp->sfu_free);
        sp->sfu_free = depart + (uint64_t)a->issue_sfu;
        ready = depart + (uint64_t)a->lat_sfu;
    }
    sp->mio_last = depart;
    sp->mio_ring[sp->mio_pos] = depart;
    if (++sp->mio_pos == c->mio_depth) /* a ring (not %: a division per issue) */
        sp->mio_pos = 0;
    /* room again when the oldest of the last `depth` entries has left */
    sp->qready[RES_MIO] = sp->qp[RES_MIO] = sp->mio_ring[sp->mio_pos]; /* no pipe: pready 0 */
    return ready;
}

/* The LG path: LSU address stage of this scheduler, the SM's L1 data stage, then memory. */
static uint64_t issue_lg(tctx *c, tsmsp *sp, tw *w, uint64_t t)
{
    const arch_t *a = c->a;
    const tdigest *g = &w->dg;
    timing_result *r = c->res;
    uint64_t depart = max64(max64(t, sp->lg_last), sp->lsu_free);
    sp->lsu_free = depart + (uint64_t)a->issue_lsu;
    sp->lg_last = depart;
    sp->lg_ring[sp->lg_pos] = depart;
    if (++sp->lg_pos == c->queue_depth)
        sp->lg_pos = 0;
    sp->qready[RES_LG] = sp->qp[RES_LG] = sp->lg_ring[sp->lg_pos]; /* no pipe: pready 0 */
    uint32_t ns = g->nsec;
    uint64_t start = max64(depart, sp->sm->l1_free);
    sp->sm->l1_free = start + (uint64_t)(g->nlines ? g->nlines : 1) * TIMING_L1_CYCLES_PER_LINE;
    mem_req q = {.cycle = start, .issue = t, .owner = w, .sm = (uint32_t)sp->sm->id,
                 .space = g->space,
                 .kind = g->mkind, .nsectors = ns, .sectors = w->secs,
                 .lanes = g->mkind == MEM_ATOMIC ? wl_popc32(g->exec_mask) : 0};
    uint64_t done = mem_access(c->mem, &q);
    if (g->space == PTX_SPACE_LOCAL) {
        r->local_requests++;
        r->local_sectors += ns;
    } else if (g->mkind == MEM_ATOMIC) {
        r->global_atomic_requests++;
    } else if (g->mkind == MEM_STORE) {
        r->global_store_requests++;
        r->global_store_sectors += ns;
    } else {
        r->global_load_requests++;
        r->global_load_sectors += ns;
    }
    /* drain: a store frees the warp once it has left the SM (the L1 stage, then its
     * pipeline as for a hit), not when the L2 acknowledges it, which a membar and the
     * kernel's end wait for (docs/model.md, section 7) */
    int store = g->mkind == MEM_STORE;
    if (store)
        w->st_left = max64(w->st_left, sp->sm->l1_free + (uint64_t)a->lat_l1_hit);
    if (done >= MEM_TOKEN) {
        w->npend++; /* sched_resolve */
        w->npend_ld += !store;
        sp->sm->npend++;
    } else {
        w->mem_done = max64(w->mem_done, done);
        if (!store)
            w->ld_done = max64(w->ld_done, done);
        else if (done > c->stores_done)
            c->stores_done = done;
    }
    return done;
}

static wl_status sched_issue(tctx *c, tsmsp *sp, tw *w, uint64_t t)
{
    const arch_t *a = c->a;
    const tdigest *g = &w->dg;
    const tstatic *ts = g->st;
    timing_result *r = c->res;
    tblock *b = w->blk;
    r->warp_instructions++;
    r->thread_instructions += (uint64_t)wl_popc32(g->exec_mask);
    if (ts->opcode < PTX_OP_COUNT)
        r->op_count[ts->opcode]++;
    if (c->tr)
        trace_write_issue(c->tr, &(trace_issue){(uint32_t)sp->sm->id, w->slot, t,
                                                g->flags & D_XFILL ? w->xts->line : ts->line,
                                                g->exec_mask});
    w->has_pending = 0;
    w->issued = 1;
    uint64_t ready = t + 1;
    uint8_t kind = SB_FIXED;
    switch (w->res) {
    case RES_ALU: case RES_FMA: case RES_IMAD: case RES_INT:
        pipes_issue(a, sp, w, w->res, t);
        ready = t + ts->lat;
        break;
    case RES_FP64:
        sp->pready[RES_FP64] = sp->qp[RES_FP64] = t + (uint64_t)a->issue_fp64;
        sp->fp64_by = w;
        ready = t + (uint64_t)a->lat_fp64;
        break;
    case RES_MMA:
        sp->pready[RES_MMA] = sp->qp[RES_MMA] = t + ts->pipe_issue;
        sp->mma_by = w;
        ready = t + ts->lat;
        break;
    case RES_MIO:
        ready = issue_mio(c, sp, w, t);
        kind = SB_SHORT;
        break;
    case RES_LG:
        ready = issue_lg(c, sp, w, t);
        kind = SB_LONG;
        break;
    default: break;
    }
    for (int i = 0; i < ts->ndst; i++)
        if (sb_set(&w->sb, ts->dst[i], ready, kind, t))
            return diag_set(c->d, WL_EUSAGE, NULL, 0, 0, "out of memory");

    wl_status st = WL_OK;
    if (g->flags & D_BRANCH)
        w->T[C_BRANCH] = t + (uint64_t)a->lat_alu; /* resolved on the integer pipe */
    if (g->flags & D_ITS) { /* the path switch of a divergent __syncwarp (its_sync) */
        uint64_t turn = max64(t, sp->its_free);
        sp->its_free = turn + (uint64_t)a->issue_its_sync;
        w->T[C_BRANCH] = max64(w->T[C_BRANCH], turn + (uint64_t)a->lat_its_sync);
    }
    if (g->flags & D_MEMBAR) {
        w->membar_base = t + 1;
        w->pend_membar = w->npend > 0;
        w->T[C_MEMBAR] = w->pend_membar ? T_PEND : max64(t + 1, w->mem_done);
    }
    if (g->flags & D_YIELD)
        w->T[C_SLEEP] = t + ts->sleep;
    /* read before the barrier: a barrier this warp completes fetches its next instruction
     * (bar_release), which overwrites g */
    uint32_t exit_mask = g->exit_mask;
    const tstatic *sts = ts; /* whose spill ops follow (spill_fetch) */
    if ((g->flags & D_EXPAND) && ts->xissue > 1) { /* its added instructions come next */
        w->xts = ts;
        w->xpos = 0;
        w->xmask = g->exec_mask;
        sts = NULL; /* its spill ops after them */
    } else if ((g->flags & D_XFILL) && w->xpos + 1u >= w->xts->xissue) { /* the last one */
        sts = w->xts;
        w->xts = NULL;
    }
    int spill = sts && (sts->flags & D_SPILL_AFTER);
    int arrives = (g->flags & D_BARRIER) != 0;
    int barrier = arrives || exit_mask; /* what can release a barrier */
    if (arrives)
        st = bar_arrive(c, b, w, t, (g->flags & D_BAR_WAITS) != 0);
    if (st == WL_OK && exit_mask)
        st = bar_exit(c, b, wl_popc32(exit_mask), t);
    /* has_pending was cleared above and only a barrier release (bar.c) can have fetched w
     * since: tested only then. (Read back with state, GCC loads the two bytes as one 16-bit
     * word that the byte store of has_pending cannot forward to: the load waits for the store
     * to reach the cache, 6 % of sched_eval's samples on bk_transpose33.) */
    if (st == WL_OK && w->state == TW_ACTIVE && (!barrier || !w->has_pending)) {
        if (w->xts)
            st = xfill_fetch(c, w, t);
        else if (__builtin_expect(spill && !barrier, 0))
            st = spill_fetch(c, w, sts->spill0, t);
        else
            st = sched_fetch(c, w, t);
        if (st == WL_OK && w->has_pending)
            own_pace(sp, w, t);
    }
    return st;
}

/* Warps one scheduler can hold: the arch allows at most 128 per SM (arch.c). */
#define EVAL_MAX_WARPS 129

/* Picks the warp to issue among the eligible ones (n > 0): their positions in sp's arrays. */
static int pick(tctx *c, tsmsp *sp, const int *el, int n)
{
    int best = -1;
    switch (c->policy) {
    case SCHED_GTO:
    case SCHED_GTY: {
        int last = sp->last_warp ? sp->last_warp->idx : -1; /* the greedy warp's position */
        int young = c->policy == SCHED_GTY;
        for (int i = 0; i < n; i++)
            if (el[i] == last)
                return el[i];
        for (int i = 0; i < n; i++)
            if (best < 0 || (young ? sp->wage[el[i]] > sp->wage[best]
                                   : sp->wage[el[i]] < sp->wage[best]))
                best = el[i];
        return best;
    }
    case SCHED_BRR: { /* the oldest eligible warp's block; round robin among its warps */
        int old = el[0];
        for (int i = 1; i < n; i++)
            if (sp->wage[el[i]] < sp->wage[old])
                old = el[i];
        uint64_t b0 = sp->wage[old] >> TW_AGE_BLOCK_SHIFT;
        int wrap = -1;
        for (int i = 0; i < n; i++) {
            uint64_t g = sp->wage[el[i]];
            if (g >> TW_AGE_BLOCK_SHIFT != b0)
                continue;
            if (TW_AGE_SLOT(g) > sp->last_slot && (best < 0 || g < sp->wage[best]))
                best = el[i];
            if (wrap < 0 || g < sp->wage[wrap])
                wrap = el[i];
        }
        return best >= 0 ? best : wrap;
    }
    default: { /* lrr, and two-level inside its active set */
        int wrap = -1;
        for (int i = 0; i < n; i++) {
            uint32_t s = sp->warps[el[i]]->slot;
            if (s > sp->last_slot && (best < 0 || s < sp->warps[best]->slot))
                best = el[i];
            if (wrap < 0 || s < sp->warps[wrap]->slot)
                wrap = el[i];
        }
        return best >= 0 ? best : wrap;
    }
    }
}

/* Two-level: keeps the active set filled with warps not waiting on long-latency results. */
static void two_level_update(tsmsp *sp, uint64_t t)
{
    int nact = 0;
    for (int i = 0; i < sp->nwarps; i++) {
        tw *w = sp->warps[i];
        if (!w->in_active)
            continue;
        if (w->state != TW_ACTIVE || w->T[C_LONG] > t) {
            w->in_active = 0;
            w->pend_seq = ++sp->pend_seq;
        } else {
            nact++;
        }
    }
    while (nact < TIMING_TWO_LEVEL_ACTIVE) {
        tw *best = NULL;
        for (int i = 0; i < sp->nwarps; i++) {
            tw *w = sp->warps[i];
            if (w->in_active || w->state != TW_ACTIVE || w->start > t || w->T[C_LONG] > t)
                continue;
            if (!best || w->pend_seq < best->pend_seq)
                best = w;
        }
        if (!best)
            break;
        best->in_active = 1;
        nact++;
    }
}

/* A drained warp leaves at t: its slot frees; its block may be done. */
static void retire(tctx *c, tsmsp *sp, tw *w, uint64_t t, tblock **done, int *ndone)
{
    stats_close_run(c, w);
    if (c->tr)
        trace_write_warp(c->tr, &(trace_warp){(uint32_t)sp->sm->id, w->slot, w->blk->id,
                                              (uint32_t)w->bw, w->start, t});
    sp->sm->slot_used[w->slot] = 0;
    if (sp->last_warp == w)
        sp->last_warp = NULL;
    if (--w->blk->live_warps == 0)
        done[(*ndone)++] = w->blk;
}

/* sched_eval's choice of skipping warps held by a busy class: periods of evaluations, and
 * held warps per evaluation beyond which it pays. */
#define SKIP_PERIOD 256u
#define SKIP_HELD 4u

/* The classes whose queue or pipe is busy at t (bit r: class r; RES_NONE has neither, its qp
 * stays 0). A class has either a queue (MIO, LG: qready, pready 0) or a pipe (the math
 * classes: pready, qready 0), and qp holds the one it has. */
static uint32_t busy_classes(const tsmsp *sp, uint64_t t)
{
    _Static_assert(RES_COUNT <= 32, "busy_classes: one bit per class");
    uint32_t busy = 0;
    for (int r = 0; r < RES_COUNT; r++)
        busy |= (uint32_t)(sp->qp[r] > t) << r;
    return busy;
}

#ifdef SCHED_X86
/* The same, eight classes per compare (once per evaluation: the loop above was 64 host
 * instructions of it). Unsigned order by the flipped sign bit, as look_avx2. */
__attribute__((target("avx2"))) static uint32_t busy_classes_avx2(const tsmsp *sp, uint64_t t)
{
    _Static_assert(RES_COUNT >= 8 && RES_COUNT <= 16, "busy_classes_avx2: 8 + a few classes");
    const __m256i sign = _mm256_set1_epi64x(INT64_MIN);
    const __m256i tt = _mm256_xor_si256(_mm256_set1_epi64x((long long)t), sign);
    const __m256i *v = (const __m256i *)(const void *)sp->qp;
    __m256i a = _mm256_xor_si256(_mm256_loadu_si256(v), sign);
    __m256i b = _mm256_xor_si256(_mm256_loadu_si256(v + 1), sign);
    uint32_t busy =
        (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, tt))) |
        (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(b, tt))) << 4;
    for (int r = 8; r < RES_COUNT; r++)
        busy |= (uint32_t)(sp->qp[r] > t) << r;
    return busy;
}
#endif

/* busy_classes, vector where the host can */
static inline uint32_t classes_busy(const tctx *c, const tsmsp *sp, uint64_t t)
{
#ifdef SCHED_X86
    return c->avx2 ? busy_classes_avx2(sp, t) : busy_classes(sp, t);
#else
    (void)c;
    return busy_classes(sp, t);
#endif
}

/* The cycles [w->charged, t) of an active warp that sched_eval did not look at on them (no
 * trace, a lazy scheduler: the busy mask of its first scan): up to its ens (its own conditions satisfied from then on) the reasons of
 * its own conditions, as always; from then on its class's queue or pipe, which was busy on
 * each of those cycles: on a cycle the scheduler was evaluated, the mask found it busy, and
 * on any other cycle the warp would have woken the scheduler (the wake-up scan's least
 * max(ens, qp)) had it been free. A warp looked at on every cycle, as with a trace, gets the
 * same reasons one cycle at a time. */
static void charge_skipped(tctx *c, tw *w, uint64_t t, uint64_t ens)
{
    uint8_t r = w->res;
    int queue = r == RES_MIO || r == RES_LG;
    w->T[C_QUEUE] = queue ? t : 0;
    w->T[C_PIPE] = !queue && r != RES_NONE ? t : 0;
    charge_looked(c, w, t, ens);
}

/* Evaluations (distinct cycles) of a lazy scheduler that found class r free. */
static inline uint64_t elig_of(const tsmsp *sp, uint8_t r)
{
    return sp->nevals - sp->busy_evals[r];
}

/* The cycles [charged, t) of the lazy warp at position i (sched_eval): not_selected on the
 * evaluations since its stretch began that found its class free, its class's queue or pipe on
 * the others (a class with neither, RES_NONE, is never busy: a warp of it has no such
 * cycles). The caller clears its bit of lzm. */
static void settle_lazy(tctx *c, tsmsp *sp, int i, uint64_t t)
{
    tw *w = sp->warps[i];
    uint8_t r = sp->wres[i];
    stats_charge(c, w, STALL_NOT_SELECTED, w->charged + (elig_of(sp, r) - sp->ns_snap[i]));
    stats_charge(c, w,
                 r == RES_MIO  ? STALL_MIO_THROTTLE
                 : r == RES_LG ? STALL_LG_THROTTLE
                               : STALL_MATH_PIPE_THROTTLE,
                 t);
}

/* How far sched_eval's scans run for n warps: n rounded up to a multiple of SCHED_SCAN_PAD
 * (ens is T_INF past the last warp), except for a few warps, where the extra entries would
 * cost more than the mispredicted loop exits they avoid (one warp per scheduler: -10 %). */
static int scan_count(int n)
{
    return n <= SCHED_SCAN_PAD / 2 ? n : (n + SCHED_SCAN_PAD - 1) / SCHED_SCAN_PAD * SCHED_SCAN_PAD;
}

/* sched_eval's first scan: the warps whose own conditions allow an issue at t (ens[k] <= t) and
 * whose class is not busy (bit wres[k] of busy clear), in array order, into look[]; their
 * count. */
static int look_scalar(const tsmsp *sp, int n, uint64_t t, uint32_t busy, int *look)
{
    const uint64_t *ens = sp->ens;
    const uint8_t *wres = sp->wres;
    int npad = scan_count(n), nlook = 0;
    /* blocks of 8 unrolled (the loop's own count and branch were a third of the scan), then
     * the few warps of a scheduler with at most SCHED_SCAN_PAD / 2 (scan_count) */
    int i0 = 0;
    if (!busy) { /* (sched_eval computes no mask for a few warps: the scan without it) */
        for (; i0 < npad; i0++) {
            look[nlook] = i0;
            nlook += ens[i0] <= t;
        }
        return nlook;
    }
    for (; i0 + SCHED_SCAN_PAD <= npad; i0 += SCHED_SCAN_PAD) {
#pragma GCC unroll 8
        for (int k = i0; k < i0 + SCHED_SCAN_PAD; k++) {
            look[nlook] = k;
            nlook += (ens[k] <= t) & !((busy >> wres[k]) & 1u);
        }
    }
    for (; i0 < npad; i0++) {
        look[nlook] = i0;
        nlook += (ens[i0] <= t) & !((busy >> wres[i0]) & 1u);
    }
    return nlook;
}

#ifdef SCHED_X86
/* The same, eight warps per step and without branches on the data (a loop over the set bits
 * of a mask mispredicts, as the scalar scan does not): two 4-wide compares give the mask of
 * the warps that pass, a table (tctx.look_idx, sched_init_look) their indices, stored as eight
 * entries of which the next pass overwrites those past the count. Reads up to n rounded up to
 * 8: ens has that room and is T_INF past the warps (tsmsp.ens). AVX2 has only signed 64-bit
 * compares: both sides have the sign bit flipped, which orders them as unsigned (T_INF =
 * UINT64_MAX stays the largest). */
__attribute__((target("avx2"))) static int look_avx2(const tctx *c, const tsmsp *sp, int n,
                                                     uint64_t t, uint32_t busy, int *look)
{
    const uint64_t *ens = sp->ens;
    const __m256i sign = _mm256_set1_epi64x(INT64_MIN);
    const __m256i tt = _mm256_xor_si256(_mm256_set1_epi64x((long long)t), sign);
    const __m256i bsy = _mm256_set1_epi32((int)busy);
    int nlook = 0;
    for (int k = 0; k < n; k += 8) {
        const __m256i *v = (const __m256i *)(const void *)(ens + k);
        __m256i a = _mm256_xor_si256(_mm256_loadu_si256(v), sign);
        __m256i b = _mm256_xor_si256(_mm256_loadu_si256(v + 1), sign);
        unsigned later =
            (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, tt))) |
            (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(b, tt))) << 4;
        unsigned held = 0;
        if (busy) { /* bit wres[k + j] of busy, for the eight warps: into each sign bit */
            __m256i r = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)
                                                             (sp->wres + k)));
            __m256i bit = _mm256_slli_epi32(_mm256_srlv_epi32(bsy, r), 31);
            held = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(bit));
        }
        unsigned m = ~(later | held) & 0xffu; /* ens <= t, class free */
        __m128i idx8 = _mm_loadl_epi64((const __m128i *)(const void *)c->look_idx[m]);
        __m256i idx = _mm256_add_epi32(_mm256_cvtepu8_epi32(idx8), _mm256_set1_epi32(k));
        _mm256_storeu_si256((__m256i *)(void *)(look + nlook), idx);
        nlook += c->look_cnt[m];
    }
    return nlook;
}
#endif

void sched_init_look(tctx *c)
{
    for (unsigned m = 0; m < 256; m++) {
        int n = 0;
        for (int b = 0; b < 8; b++)
            if (m >> b & 1)
                c->look_idx[m][n++] = (uint8_t)b;
        c->look_cnt[m] = (uint8_t)n;
    }
}

/* What sched_eval's look at one warp found (look_warp). */
enum { LOOK_HELD, LOOK_ELIGIBLE, LOOK_RETIRED };

/* sched_eval's look at the warp at position i, whose own conditions allow an issue at t
 * (ens[i] <= t): accounts its cycles since it was last charged (skipped: the scheduler may
 * have passed it over, charge_skipped), retires it when drained (its position then holds
 * NULL), charges this cycle when its queue or pipe holds it. */
static inline int look_warp(tctx *c, tsmsp *sp, int i, uint64_t t, int skipped, tblock **done,
                            int *ndone)
{
    tw *w = sp->warps[i];
    if (skipped && w->state == TW_ACTIVE && w->charged < t)
        charge_skipped(c, w, t, sp->ens[i]);
    shared_conds(sp, w);
    if (w->state == TW_DRAIN && w->t_drain <= t) {
        charge_to(c, w, t);
        retire(c, sp, w, t, done, ndone);
        sp->warps[i] = NULL;
        return LOOK_RETIRED;
    }
    /* own conditions satisfied (ens[i] <= t): eligible unless its queue or pipe is busy */
    if (w->state == TW_ACTIVE && w->has_pending && w->T[C_QUEUE] <= t && w->T[C_PIPE] <= t) {
        charge_looked(c, w, t, sp->ens[i]);
        return LOOK_ELIGIBLE;
    }
    charge_looked(c, w, t + 1, sp->ens[i]);
    sp->held++;
    return LOOK_HELD;
}

/* The warps whose own conditions allow an issue at t (ens[i] <= t), bit i for position i
 * (n <= 64). */
static uint64_t ready_mask_scalar(const tsmsp *sp, int n, uint64_t t)
{
    uint64_t m = 0;
    for (int i = 0; i < n; i++)
        m |= (uint64_t)(sp->ens[i] <= t) << i;
    return m;
}

#ifdef SCHED_X86
/* The same, eight warps per step (as look_avx2; ens is T_INF past the warps). */
__attribute__((target("avx2"))) static uint64_t ready_mask_avx2(const tsmsp *sp, int n,
                                                                uint64_t t)
{
    const __m256i sign = _mm256_set1_epi64x(INT64_MIN);
    const __m256i tt = _mm256_xor_si256(_mm256_set1_epi64x((long long)t), sign);
    uint64_t m = 0;
    for (int k = 0; k < n; k += 8) {
        const __m256i *v = (const __m256i *)(const void *)(sp->ens + k);
        __m256i a = _mm256_xor_si256(_mm256_loadu_si256(v), sign);
        __m256i b = _mm256_xor_si256(_mm256_loadu_si256(v + 1), sign);
        unsigned later =
            (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, tt))) |
            (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(b, tt))) << 4;
        m |= (uint64_t)(~later & 0xffu) << k;
    }
    return m;
}
#endif

/* The ready mask, vector from 5 warps on where the host can (below, the scalar loop has fewer
 * steps). */
static inline uint64_t ready_mask(const tctx *c, const tsmsp *sp, int n, uint64_t t)
{
#ifdef SCHED_X86
    return c->avx2 && n > SCHED_SCAN_PAD / 2 ? ready_mask_avx2(sp, n, t)
                                            : ready_mask_scalar(sp, n, t);
#else
    (void)c;
    return ready_mask_scalar(sp, n, t);
#endif
}

int sched_ahead_safe(const tctx *c, const tsmsp *sp, uint64_t t)
{
    uint64_t ready = ready_mask(c, sp, sp->nwarps, t);
    /* a global or local access could be picked: its L2 part is the window's */
    if ((ready & sp->cmask[RES_LG]) && sp->qp[RES_LG] <= t)
        return 0;
    /* a drained warp would retire (its ens is its retire cycle; lazy warps are active) */
    for (uint64_t m = ready & ~sp->lzm; m; m &= m - 1)
        if (sp->warps[__builtin_ctzll(m)]->state == TW_DRAIN)
            return 0;
    return 1;
}

/* The least ens over sched_eval's scan of n warps (scan_count: T_INF past the warps). (Until
 * the forty-eighth session an AVX2 version of it ran from 5 warps on; the speed build,
 * profile-guided with -march=native, compiled it into code that missed the least value (gcc
 * 12: found by comparing the two on every call), so that build woke schedulers late and its
 * results differed from every other build's. The compiler vectorises this loop itself where
 * it pays.) */
static inline uint64_t ens_least(const uint64_t *ens, int n)
{
    uint64_t m = T_INF;
    for (int k = 0; k < n; k++)
        m = ens[k] < m ? ens[k] : m;
    return m;
}

/* sched_eval's wake-up scan: the least max(ens[k], qp[wres[k]]) over n warps (scan_count:
 * T_INF past the warps, whose wres is some class). */
static uint64_t wake_least_scalar(const tsmsp *sp, int n)
{
    const uint64_t *ens = sp->ens, *qp = sp->qp;
    const uint8_t *wres = sp->wres;
    uint64_t next = T_INF;
    int j0 = 0;
    for (; j0 + SCHED_SCAN_PAD <= n; j0 += SCHED_SCAN_PAD) {
#pragma GCC unroll 8
        for (int k = j0; k < j0 + SCHED_SCAN_PAD; k++) {
            uint64_t e = max64(ens[k], qp[wres[k]]);
            next = e < next ? e : next;
        }
    }
    for (; j0 < n; j0++) {
        uint64_t e = max64(ens[j0], qp[wres[j0]]);
        next = e < next ? e : next;
    }
    return next;
}

#ifdef SCHED_X86
/* The same, four warps per step: their classes' qp gathered by wres (n a multiple of 8;
 * unsigned order by the flipped sign bit, as look_avx2). The scalar loop was 7 host
 * instructions per warp, and the scan ran on most evaluations of the slow cases (a class busy
 * past the least ens: or_regs_lb8, lat_copy, bk_transpose32, callgrind). */
__attribute__((target("avx2"))) static uint64_t wake_least_avx2(const tsmsp *sp, int n)
{
    const __m256i sign = _mm256_set1_epi64x(INT64_MIN);
    __m256i m = _mm256_set1_epi64x(INT64_MAX); /* T_INF flipped */
    for (int k = 0; k < n; k += 4) {
        uint32_t r4;
        memcpy(&r4, sp->wres + k, sizeof r4);
        __m256i idx = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)r4));
        __m256i q = _mm256_xor_si256(
            _mm256_i64gather_epi64((const long long *)(const void *)sp->qp, idx, 8), sign);
        __m256i e = _mm256_xor_si256(
            _mm256_loadu_si256((const __m256i *)(const void *)(sp->ens + k)), sign);
        __m256i v = _mm256_blendv_epi8(e, q, _mm256_cmpgt_epi64(q, e)); /* the later */
        m = _mm256_blendv_epi8(m, v, _mm256_cmpgt_epi64(m, v));         /* the least */
    }
    __m128i lo = _mm256_castsi256_si128(m), hi = _mm256_extracti128_si256(m, 1);
    lo = _mm_blendv_epi8(lo, hi, _mm_cmpgt_epi64(lo, hi));
    int64_t a = _mm_cvtsi128_si64(lo), b = _mm_extract_epi64(lo, 1); /* flipped: signed */
    return (uint64_t)(a < b ? a : b) ^ (uint64_t)INT64_MIN;
}
#endif

/* wake_least, vector from 5 warps on where the host can (n is then a multiple of 8). */
static inline uint64_t wake_least(const tctx *c, const tsmsp *sp, int n)
{
#ifdef SCHED_X86
    return c->avx2 && n > SCHED_SCAN_PAD / 2 ? wake_least_avx2(sp, n) : wake_least_scalar(sp, n);
#else
    (void)c;
    return wake_least_scalar(sp, n);
#endif
}

/* The warps of the classes in `classes` (tsmsp.cmask). */
static inline uint64_t class_warps(const tsmsp *sp, uint32_t classes)
{
    uint64_t m = 0;
    for (; classes; classes &= classes - 1)
        m |= sp->cmask[__builtin_ctz(classes)];
    return m;
}

/* pick over a mask of eligible positions (e != 0). gto: the greedy warp, else the oldest,
 * which is the lowest position (ages grow with it: sched_add_warp); gty: else the youngest,
 * the highest. The others through pick. */
static int pick_mask(tctx *c, tsmsp *sp, uint64_t e)
{
    if (!(e & (e - 1))) /* one eligible warp (most evaluations of the slow cases) */
        return __builtin_ctzll(e);
    if (c->policy == SCHED_GTO || c->policy == SCHED_GTY) {
        const tw *g = sp->last_warp;
        if (g && (e >> g->idx & 1))
            return g->idx;
        return c->policy == SCHED_GTO ? __builtin_ctzll(e) : 63 - __builtin_clzll(e);
    }
    if (c->policy == SCHED_BRR) {
        /* the oldest eligible warp is the lowest position; its block's warps sit at consecutive
         * positions (a block's warps arrive together), in slot order: round robin is the first
         * eligible one of its block above the last slot issued, else the first (ages carry
         * block and slot, timing_int.h) */
        int o = __builtin_ctzll(e);
        uint64_t b0 = sp->wage[o] >> TW_AGE_BLOCK_SHIFT;
        for (uint64_t r = e; r; r &= r - 1) {
            int i = __builtin_ctzll(r);
            uint64_t g = sp->wage[i];
            if (g >> TW_AGE_BLOCK_SHIFT != b0)
                break;
            if (TW_AGE_SLOT(g) > sp->last_slot)
                return i;
        }
        return o;
    }
    int el[64], n = 0;
    for (; e; e &= e - 1)
        el[n++] = __builtin_ctzll(e);
    return pick(c, sp, el, n);
}

/* The mask m of old positions as new positions (pos: sched_eval's compaction). */
static uint64_t remap_mask(uint64_t m, const int *pos)
{
    uint64_t o = 0;
    for (; m; m &= m - 1)
        o |= 1ull << pos[__builtin_ctzll(m)];
    return o;
}

/* Removes the retired warps (NULL) of sp's first n positions, keeping the order: pos[old]
 * is the new position of each. Returns the new count. */
static int compact(tctx *c, tsmsp *sp, int n, int *pos, uint64_t t)
{
    int o = 0;
    for (int i = 0; i < n; i++) {
        tw *w = sp->warps[i];
        pos[i] = o;
        if (!w)
            continue;
        if (o != i) {
            sp->warps[o] = w;
            sp->ens[o] = sp->ens[i];
            sp->wres[o] = sp->wres[i];
            sp->wage[o] = sp->wage[i];
            sp->ns_snap[o] = sp->ns_snap[i];
            w->idx = o;
        }
        o++;
    }
    for (int i = o; i < n; i++) /* the scans' padding */
        sp->ens[i] = T_INF;
    if (c->wmask) {
        sp->lzm = remap_mask(sp->lzm, pos); /* (retired warps were not lazy) */
        memset(sp->cmask, 0, sizeof sp->cmask);
        for (int i = 0; i < o; i++)
            sp->cmask[sp->wres[i]] |= 1ull << i;
    }
    sp->nwarps = o;
    if (o == 0) /* the scheduler became empty at t */
        c->res->sched_active_cycles += t - sp->active_since;
    return o;
}

/* The next cycle anything can happen on scheduler sp, from t1 (the cycle after an evaluation)
 * on, when neither the warp it issued nor one it found eligible can issue at t1: wakes it then. */
static inline void wake_scan(tctx *c, tsmsp *sp, uint64_t t1)
{
    /* max(ens, qp, t1) over the warps: the least of max(ens, qp), then at least t1 */
    int n = scan_count(sp->nwarps);
    /* Usually no class is busy past the least ens (or t1): then that is the answer, without
     * the walk over every warp's class below (which was a sixth of sched_eval's host
     * instructions on occ_regs_lb8 and lat_copy: callgrind). Exact: with e1 = max(least ens,
     * t1) and every class's qp <= e1, each max(ens, qp) lies in [ens, max(ens, e1)], so their
     * least lies in [least ens, e1], and at least t1 it is e1. */
    uint64_t emin = ens_least(sp->ens, n);
    if (emin == T_INF) /* every warp at a barrier or gone: nothing wakes the scheduler */
        return;
    uint64_t e1 = max64(emin, t1);
    if (!classes_busy(c, sp, e1)) {
        tgpu_wake(c, sp, e1);
        return;
    }
    uint64_t next = wake_least(c, sp, n);
    if (next != T_INF)
        tgpu_wake(c, sp, max64(next, t1));
}

/* Cycle t counts as an evaluation for every class free at it (cbusy: the classes busy at t),
 * once per cycle: the denominators of settle_lazy's not_selected/throttle split. */
static inline void count_eval(tsmsp *sp, uint32_t cbusy, uint64_t t)
{
    if (t >= sp->elig_t) {
        sp->nevals++;
        for (uint32_t b = cbusy; b; b &= b - 1)
            sp->busy_evals[__builtin_ctz(b)]++;
        sp->elig_t = t + 1;
    }
}

/* The selected warp w issues at t (already charged selected up to t + 1): the one path of
 * sched_eval and burst, so that the two cannot drift apart. */
static inline wl_status issue_selected(tctx *c, tsmsp *sp, tw *w, uint64_t t)
{
    c->res->sched_issue_cycles++;
    sp->last_slot = w->slot;
    sp->last_warp = w;
    wl_status st = sched_issue(c, sp, w, t);
    sp->ens[w->idx] = own_ready(w);
    set_wres(c, sp, w->idx, w->res);
    return st;
}

/* Whether run_sm's next evaluation is scheduler sp's at t (woken at t: no other scheduler of
 * the SM comes first) and burst may make it (inside the window). */
static inline int burst_next(const tctx *c, const tsmsp *sp, uint64_t t)
{
    int k = sp->sub;
    return t < c->burst_end && tgpu_sm_next(c, sp->sm, &k) == t && k == sp->sub;
}

/* A run of one warp: w issued at t - 1 and can issue at t (its own conditions, its class's
 * queue and pipe), and the scheduler is woken at t. Where run_sm's next evaluation is this
 * scheduler's at t (no other scheduler of the SM comes first, inside the window) and w is the
 * only warp sched_eval would look at then (every other warp's own conditions or busy class
 * holding it, none of them lazy and eligible), that evaluation is made here: w is selected
 * and issues, as sched_eval's would, without its masks' walk, the pick, the lazy warps'
 * bookkeeping and the return to run_sm (occ_regs_lb8, full size: 19.7 M of its 35.4 M
 * evaluations are such). Then the next, while they last. Only on sched_eval's mask path
 * (lns: no trace, not two-level, at most 64 warps). */
static wl_status burst(tctx *c, tsmsp *sp, tw *w, uint64_t t)
{
    tsm *sm = sp->sm;
    const uint64_t bit = 1ull << w->idx;
    for (;;) {
        if (w->state != TW_ACTIVE)
            return WL_OK;
        int n = sp->nwarps, skip = n > SCHED_SCAN_PAD / 2; /* as sched_eval's */
        uint32_t cbusy = classes_busy(c, sp, t);
        uint64_t ready = ready_mask(c, sp, n, t);
        uint64_t look = skip ? ready & ~class_warps(sp, cbusy) : ready;
        if (look != bit) /* another warp to look at: sched_eval */
            return WL_OK;
        /* run_sm's step, then sched_eval's: w was charged up to t (selected at t - 1) and is
         * eligible (its class is free: the caller's test) */
        sm->wake[sp->sub] = T_INF;
        c->res->evaluations++;
        shared_conds(sp, w);
        stats_charge(c, w, STALL_SELECTED, t + 1);
        count_eval(sp, cbusy, t);
        wl_status st = issue_selected(c, sp, w, t);
        if (st != WL_OK)
            return st;
        uint64_t t1 = t + 1;
        if (sp->ens[w->idx] > t1 || sp->qp[w->res] > t1) {
            wake_scan(c, sp, t1);
            return WL_OK;
        }
        tgpu_wake(c, sp, t1);
        t = t1;
        if (!burst_next(c, sp, t))
            return WL_OK;
    }
}

wl_status sched_eval(tctx *c, tsmsp *sp, uint64_t t)
{
    if (c->policy == SCHED_TWO_LEVEL)
        two_level_update(sp, t);
    /* Only warps whose own conditions are satisfied by t are looked at: the others keep
     * their reason (a higher-priority condition than any scheduler resource) and are charged
     * when they are next looked at. ens[] is kept exact (sched_add_warp, sched_refresh, after
     * each issue), so the scan reads only that array, not the warps. */
    int n = sp->nwarps;
    /* Without a trace, a warp whose class's queue or pipe is busy at t is not looked at
     * either (busy): it cannot issue, and the cycles it waits are charged when it is next
     * looked at (charge_skipped). With a trace every such warp is looked at, so that its
     * intervals are written in the order of the cycles (the sums are the same). */
    /* From 5 warps on. On the mask path (lns, below) always: the held warps are one mask
     * operation (class_warps), and skipping them costs fewer host instructions on every case
     * measured (red_interleaved -10 %, co_stride32 -5 %, none more: callgrind, 8-SM runs).
     * Elsewhere (two-level, more than 64 warps) only where it pays: on a scheduler that has
     * looked at more than SKIP_HELD warps held by a busy class per evaluation over a period of
     * SKIP_PERIOD (then for the rest of the run); there the mask and the later charges cost
     * more than the looks they save (red_shuffle, ilp_indep4: 3-6 % more host instructions);
     * a busy mask of 0 looks at every warp whose own conditions are met, as with a trace. The
     * choice follows the simulated state only: runs stay deterministic, and results are the
     * same either way. */
    const int lns = !c->tr && c->policy != SCHED_TWO_LEVEL && c->wmask;
    if (!lns && !sp->lazy && ++sp->evals == SKIP_PERIOD) {
        sp->lazy = sp->held > SKIP_HELD * SKIP_PERIOD;
        sp->held = sp->evals = 0;
    }
    /* the scheduler may have skipped warps on earlier evaluations (read once: the charges
     * below may alias it) */
    const int skipped = (sp->lazy || lns) && !c->tr;
    int skip = skipped && n > SCHED_SCAN_PAD / 2;
    /* Without a trace (and not two-level, whose inactive warps are charged differently; at
     * most 64 warps, the scheduler's sets as masks) an eligible warp that is not selected is
     * not charged each evaluation: it becomes "lazy" (bit of lzm) and is not looked at again,
     * its record untouched, until it is selected or its class is found busy. Its cycles since
     * then are charged at once (settle_lazy): the evaluations that found its class free
     * (elig_of counts them per class) found it eligible and picked another warp, so
     * not_selected; every other cycle its class was busy (an evaluated cycle: the mask said
     * so; any other: the warp would have woken the scheduler), so mio_throttle, lg_throttle
     * or math_pipe_throttle, as charge_skipped says. The same sums as charging each cycle. A
     * lazy warp costs a few mask operations per evaluation, none of them per warp, so this
     * holds on every scheduler, lazy (skipping held warps) or not. */
    tblock **done = c->scratch_blocks; /* max_warps_per_sm + 1 entries each */
    int el[EVAL_MAX_WARPS];
    int ndone = 0, nel = 0, nretired = 0, isel = -1;
    uint64_t emask = 0; /* lns: the eligible warps */
    if (lns) {
        uint32_t cbusy = classes_busy(c, sp, t);
        uint64_t ready = ready_mask(c, sp, n, t);
        uint64_t held = class_warps(sp, cbusy), lz = sp->lzm;
        uint64_t look = skip ? ready & ~held : ready;
        emask = look & lz & ~held; /* lazy and still eligible: nothing to do */
        /* the others, in position order (the order of retirements) */
        for (uint64_t m = look & ~emask; m; m &= m - 1) {
            int i = __builtin_ctzll(m);
            uint64_t bit = 1ull << i;
            if (lz & bit) { /* lazy, held by its class now (only below 5 warps: skip) */
                settle_lazy(c, sp, i, t);
                lz &= ~bit;
            }
            int k = look_warp(c, sp, i, t, skipped, done, &ndone);
            emask |= k == LOOK_ELIGIBLE ? bit : 0;
            nretired += k == LOOK_RETIRED;
        }
        if (emask) {
            isel = pick_mask(c, sp, emask);
            uint64_t sb = 1ull << isel;
            if (lz & sb)
                settle_lazy(c, sp, isel, t);
            stats_charge(c, sp->warps[isel], STALL_SELECTED, t + 1);
            /* the others not yet lazy were charged up to t: lazy from t on */
            for (uint64_t m = emask & ~lz & ~sb; m; m &= m - 1) {
                int i = __builtin_ctzll(m);
                sp->ns_snap[i] = elig_of(sp, sp->wres[i]);
            }
            lz = (lz | emask) & ~sb;
        }
        sp->lzm = lz;
        count_eval(sp, cbusy, t);
    } else {
        int look[EVAL_MAX_WARPS + SCHED_SCAN_PAD];
        uint32_t busy = skip ? classes_busy(c, sp, t) : 0;
#ifdef SCHED_X86
        /* the vector scan from 5 warps on: below, the scalar one has fewer steps
         * (scan_count) */
        int nlook = c->avx2 && n > SCHED_SCAN_PAD / 2 ? look_avx2(c, sp, n, t, busy, look)
                                                     : look_scalar(sp, n, t, busy, look);
#else
        int nlook = look_scalar(sp, n, t, busy, look);
#endif
        /* for each looked-at warp, in array order (the trace's order of intervals) */
        for (int j = 0; j < nlook; j++) {
            int i = look[j];
            int k = look_warp(c, sp, i, t, skipped, done, &ndone);
            if (k == LOOK_ELIGIBLE) {
                if (c->policy != SCHED_TWO_LEVEL || sp->warps[i]->in_active)
                    el[nel++] = i;
                else
                    stats_charge(c, sp->warps[i], STALL_NOT_SELECTED, t + 1);
            }
            nretired += k == LOOK_RETIRED;
        }
        /* the warp picked (its position; the retired warps are still in place) */
        isel = nel ? pick(c, sp, el, nel) : -1;
        for (int k = 0; k < nel; k++)
            stats_charge(c, sp->warps[el[k]], el[k] == isel ? STALL_SELECTED : STALL_NOT_SELECTED,
                         t + 1);
    }
    if (nretired) { /* remove the retired warps, keeping the order */
        int pos[EVAL_MAX_WARPS]; /* old position -> new (for el, emask and isel) */
        n = compact(c, sp, n, pos, t);
        if (lns)
            emask = remap_mask(emask, pos); /* (eligible warps were not retired) */
        for (int k = 0; k < nel; k++)
            el[k] = pos[el[k]];
        if (isel >= 0)
            isel = pos[isel];
    }
    tw *sel = isel >= 0 ? sp->warps[isel] : NULL;
    wl_status st = WL_OK;
    if (sel)
        st = issue_selected(c, sp, sel, t);
    for (int i = 0; i < ndone && st == WL_OK; i++)
        st = tgpu_block_done(c, done[i], t);
    if (st != WL_OK)
        return st;

    /* the next cycle anything can happen here: a warp's own conditions, its class's queue and
     * pipe, and never before t + 1 (a warp at a barrier has ens T_INF and never counts) */
    /* the usual cases of a busy scheduler: the warp that issued can issue its next
     * instruction at t + 1, or a warp that was eligible now and not picked (its own
     * conditions still hold) finds its queue and pipe free then: t + 1 is the earliest
     * possible cycle, so the scan below would give it */
    uint64_t t1 = t + 1;
    if (sel && sp->ens[sel->idx] <= t1 && sp->qp[sel->res] <= t1) {
        tgpu_wake(c, sp, t1);
        return lns && burst_next(c, sp, t1) ? burst(c, sp, sel, t1) : WL_OK;
    }
    if (lns) {
        uint64_t others = emask & ~(isel >= 0 ? 1ull << isel : 0);
        if (others & ~class_warps(sp, classes_busy(c, sp, t1))) {
            tgpu_wake(c, sp, t1);
            return WL_OK;
        }
    } else {
        for (int k = 0; k < nel; k++)
            if (el[k] != isel && sp->qp[sp->wres[el[k]]] <= t1) {
                tgpu_wake(c, sp, t1);
                return WL_OK;
            }
    }
    wake_scan(c, sp, t1);
    return WL_OK;
}
