/* random_kernels: generated PTX kernels against a CPU reference, through every execution path.
 *
 * Each seed builds a small random program (a tree of 32-bit integer and FP32 arithmetic,
 * divergent if/else, loops with data-dependent trip counts, shared-memory exchanges across
 * __syncthreads, warp shuffles, global reductions, and an early exit of some threads), writes
 * it as PTX the way nvcc writes such code, and evaluates it here on the CPU, thread by thread.
 * The kernel then runs
 *   - functionally (launch_kernel), in the PTX order and after ptx_schedule's reordering,
 *   - in the timing model with each scheduling policy (lrr, gto, two-level), after
 *     ptx_schedule, and with the PTX order, and on a GPU of one SM holding two blocks at a
 *     time (later blocks reuse a retired block's slot, warp records and registers),
 * and every output word must equal the CPU's. A timed run also keeps the stall-sum invariant
 * (every resident warp-cycle charged to one reason, `selected` = instructions issued).
 * What this finds: wrong results from the executor's fast paths, the register allocator's
 * sharing of slots, the scheduler model's reordering, and timing-model bugs that stop a run
 * (a barrier released early, a warp with nothing to issue).
 *
 * The seeds are fixed (deterministic); WL_RANDOM_KERNELS=N runs N seeds instead of the
 * default, WL_RANDOM_SEED=S starts at S (a long campaign: docs/robustness.md), and
 * WL_RANDOM_PRINT=S prints seed S's PTX.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "devmem.h"
#include "launch.h"
#include "ptx.h"
#include "testutil.h"
#include "timing.h"

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
    N_FOP,      /* d = cvt.rzi.u32(cvt.rn.f32(a) * 0.5 + cvt.rn.f32(b)) */
    N_IF,       /* if (cmp(a, imm)) then-block else else-block */
    N_LOOP,     /* (a & 3) + 1 iterations of the block */
    N_EXCHANGE, /* sm[tid] = a; bar; d = sm[(tid * c + k) % ntid]; bar (top level only);
                 * op % 3: 32-bit words, pairs (a, b) into (d, d + 1) with v2 accesses, or
                 * bytes (a & 0xff) */
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
    N_EXIT,     /* some threads return: a whole warp (op & 1 == 0) or those with (a & 7) == 0;
                 * op & 2: a barrier just before the return (the last warp to arrive
                 * fetches the return as the barrier releases) */
    N_ULOOP,    /* imm (1-3) iterations of top-level statements: barriers inside a loop */
};
enum { OP_ADD, OP_SUB, OP_MUL, OP_AND, OP_OR, OP_XOR, OP_SHL, OP_SHR, OP_MIN, OP_MAX,
       OP_MULHI, OP_REM, OP_DIV, OP_BFE, OP_BFI, OP_NOT, OP_POPC, OP_BREV, OP_COUNT };
enum { CMP_LT, CMP_GT, CMP_EQ, CMP_NE, CMP_LE, CMP_GE, CMP_COUNT };
enum { SH_BFLY, SH_DOWN, SH_UP, SH_IDX };

typedef struct {
    int kind, op, cmp, d, a, b, c, use_imm;
    uint32_t imm;
    int nkid[2], kid[2][MAX_KIDS];
} node;

typedef struct {
    node n[MAX_NODES];
    int nn, top[MAX_KIDS * 2], ntop;
    int exit_reg; /* threads with (r[exit_reg] & 3) == 0 return before the stores; -1: none */
    uint32_t grid, block;
    uint64_t rng;
} prog;

static uint32_t rnd(prog *p, uint32_t n)
{
    p->rng = p->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(p->rng >> 33) % n;
}

static uint32_t rnd_imm(prog *p)
{
    static const uint32_t special[] = {0, 1, 2, 3, 7, 31, 32, 255, 0x7fffffffu, 0x80000000u,
                                       0xffffffffu, 0x12345678u};
    return rnd(p, 2) ? special[rnd(p, sizeof special / sizeof special[0])]
                     : (uint32_t)(p->rng >> 20);
}

static int new_node(prog *p, int kind)
{
    node *x = &p->n[p->nn];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->d = (int)rnd(p, NREG);
    x->a = (int)rnd(p, NREG);
    x->b = (int)rnd(p, NREG);
    x->c = (int)rnd(p, NREG);
    x->op = (int)rnd(p, OP_COUNT);
    x->cmp = (int)rnd(p, CMP_COUNT);
    x->use_imm = (int)rnd(p, 3) == 0;
    x->imm = rnd_imm(p);
    return p->nn++;
}

/* A block of straight-line statements, ifs and loops (depth <= 2 of control). */
static void gen_block(prog *p, node *parent, int side, int depth)
{
    int want = 1 + (int)rnd(p, 5);
    for (int i = 0; i < want && parent->nkid[side] < MAX_KIDS && p->nn < MAX_NODES - 4; i++) {
        int r = (int)rnd(p, 17), k;
        if (r < 1 && depth < 2) {
            k = new_node(p, N_IF);
            gen_block(p, &p->n[k], 0, depth + 1);
            if (rnd(p, 2))
                gen_block(p, &p->n[k], 1, depth + 1);
        } else if (r < 2 && depth < 2) {
            k = new_node(p, N_LOOP);
            gen_block(p, &p->n[k], 0, depth + 1);
        } else if (r >= 14 && parent->kind == N_LOOP) {
            k = new_node(p, N_BREAK);
        } else {
            static const int kinds[] = {N_MAD,  N_SELP, N_FOP,   N_PRED, N_GLD,
                                        N_GST, N_W64,  N_LOCAL, N_PST};
            k = new_node(p, r < 2 + 9 ? kinds[r - 2] : N_ALU);
            if (p->n[k].kind == N_PRED && p->n[k].op >= OP_BFE)
                p->n[k].op = OP_ADD;
        }
        parent->kid[side][parent->nkid[side]++] = k;
    }
}

/* Top-level statements into list (at most MAX_KIDS): compute regions, exchanges (a barrier
 * each side), shuffles, reductions, exits and one level of uniform loops around them. */
static void gen_top(prog *p, int *list, int *n, int max, int in_loop, int *lanes_gone)
{
    int whole_warps = p->block % 32 == 0; /* shuffles need every lane of the warp */
    int want = 2 + (int)rnd(p, 5);
    for (int i = 0; i < want && *n < max && p->nn < MAX_NODES - 8; i++) {
        int r = (int)rnd(p, 13), k;
        if (r < 2) {
            static const uint32_t mul[] = {1, 1, 2, 3, 32, 33}; /* 32, 33: bank conflicts */
            k = new_node(p, N_EXCHANGE);
            p->n[k].imm = rnd(p, p->block);
            p->n[k].c = (int)mul[rnd(p, 6)];
        } else if (r < 4 && whole_warps && !*lanes_gone) {
            k = new_node(p, N_SHUFFLE);
            p->n[k].op = (int)rnd(p, 4);
            p->n[k].imm = p->n[k].op == SH_BFLY ? 1u << rnd(p, 5) : rnd(p, 32);
        } else if (r < 5) {
            k = new_node(p, rnd(p, 3) ? N_RED : N_SRED);
            p->n[k].op = (int)rnd(p, 6);
        } else if (r >= 10 && whole_warps && !*lanes_gone) {
            k = new_node(p, N_VOTE);
            p->n[k].op = (int)rnd(p, 3);
        } else if (r < 6 && !in_loop) {
            k = new_node(p, N_EXIT);
            p->n[k].op = (int)rnd(p, 4);
            if (p->n[k].op & 1)
                *lanes_gone = 1;
        } else if (r < 7 && !in_loop) {
            k = new_node(p, N_ULOOP);
            p->n[k].imm = 1 + rnd(p, 3);
            gen_top(p, p->n[k].kid[0], &p->n[k].nkid[0], MAX_KIDS, 1, lanes_gone);
        } else { /* a compute region */
            node tmp = {0};
            gen_block(p, &tmp, 0, 0);
            for (int j = 0; j < tmp.nkid[0] && *n < max; j++)
                list[(*n)++] = tmp.kid[0][j];
            continue;
        }
        list[(*n)++] = k;
    }
}

static void gen_prog(prog *p, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->rng = seed * 0x9e3779b97f4a7c15ull + 12345;
    static const uint32_t blocks[] = {32, 64, 96, 128, 48, 80, 200};
    p->block = blocks[rnd(p, sizeof blocks / sizeof blocks[0])];
    p->grid = 1 + rnd(p, 6);
    int lanes_gone = 0;
    gen_top(p, p->top, &p->ntop, MAX_KIDS * 2, 0, &lanes_gone);
    p->exit_reg = rnd(p, 3) ? (int)rnd(p, NREG) : -1;
}

/* ---- the CPU reference ------------------------------------------------------------------- */

static int cmp_eval(int cmp, uint32_t a, uint32_t b)
{
    switch (cmp) {
    case CMP_LT: return a < b;
    case CMP_GT: return a > b;
    case CMP_EQ: return a == b;
    case CMP_NE: return a != b;
    case CMP_LE: return a <= b;
    default: return a >= b;
    }
}

static uint32_t alu_eval(int op, uint32_t a, uint32_t b)
{
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_AND: return a & b;
    case OP_OR: return a | b;
    case OP_XOR: return a ^ b;
    case OP_SHL: return a << (b & 31);
    case OP_SHR: return a >> (b & 31);
    case OP_MIN: return a < b ? a : b;
    case OP_MAX: return a > b ? a : b;
    case OP_MULHI: return (uint32_t)(((uint64_t)a * b) >> 32);
    case OP_REM: return a % b; /* b from alu_b: 1..13 */
    case OP_DIV: return a / b;
    case OP_NOT: return ~a;
    case OP_POPC: return (uint32_t)__builtin_popcount(a);
    default: {
        uint32_t r = 0;
        for (int i = 0; i < 32; i++)
            r |= ((a >> i) & 1u) << (31 - i);
        return r;
    }
    }
}

/* cvt.rzi.u32.f32: toward zero, saturating, NaN to 0 */
static uint32_t f2u_rzi(float f)
{
    if (isnan(f) || f <= 0.0f)
        return 0;
    if (f >= 4294967296.0f)
        return 0xffffffffu;
    return (uint32_t)f;
}

/* The operand b of an ALU statement as the PTX gets it (shift counts and the remainder's
 * divisor are immediates derived from it, see emit_alu). */
static uint32_t alu_b(const node *x, const uint32_t *r)
{
    uint32_t b = x->use_imm ? x->imm : r[x->b];
    if (x->op == OP_SHL || x->op == OP_SHR)
        b = x->imm & 31;
    if (x->op == OP_REM || x->op == OP_DIV)
        b = x->imm % 13 + 1;
    return b;
}

/* bfe.u32 and bfi.b32 with immediate position imm & 31 and length (imm >> 8) % 32 + 1: the
 * field's bits past bit 31 do not exist */
static uint32_t field_mask(uint32_t imm)
{
    uint32_t pos = imm & 31, len = (imm >> 8) % 32 + 1;
    uint64_t m = ((UINT64_C(1) << len) - 1) << pos;
    return (uint32_t)m;
}

static uint32_t bfe_eval(uint32_t a, uint32_t imm)
{
    return (a & field_mask(imm)) >> (imm & 31);
}

static uint32_t bfi_eval(uint32_t f, uint32_t b, uint32_t imm)
{
    uint32_t m = field_mask(imm);
    return (b & ~m) | ((f << (imm & 31)) & m);
}

/* The reduction words before the kernel: all ones for min and and (op 1 and 3), else 0. */
static void acc_init(uint32_t *acc)
{
    for (uint32_t i = 0; i < NACC; i++)
        acc[i] = i / 4 == 1 || i / 4 == 3 ? 0xffffffffu : 0;
}

/* What a thread's statements see besides its registers. */
typedef struct {
    const uint32_t *in;
    uint32_t *out;
    uint32_t nt, g; /* threads in the grid, this thread's index */
    uint32_t *loc;  /* its local array (16 words, zeros at the start as the model has them) */
} ref_ctx;

/* Returns 1 when a break left the block (N_BREAK: the enclosing loop ends). */
static int ref_block(const prog *p, const int *kids, int n, uint32_t *r, const ref_ctx *cx)
{
    const uint32_t *in = cx->in, nt = cx->nt, g = cx->g;
    uint32_t *out = cx->out;
    for (int i = 0; i < n; i++) {
        const node *x = &p->n[kids[i]];
        switch (x->kind) {
        case N_ALU:
            if (x->op == OP_BFE)
                r[x->d] = bfe_eval(r[x->a], x->imm);
            else if (x->op == OP_BFI)
                r[x->d] = bfi_eval(r[x->a], r[x->b], x->imm);
            else
                r[x->d] = alu_eval(x->op, r[x->a], alu_b(x, r));
            break;
        case N_PRED:
            if (cmp_eval(x->cmp, r[x->a], x->imm) == (x->c & 1))
                r[x->d] = alu_eval(x->op, r[x->a], alu_b(x, r));
            break;
        case N_GLD:
            r[x->d] = in[r[x->a] % (2 * nt)];
            break;
        case N_GST:
            out[g * NREG] = r[x->a];
            r[x->d] = r[x->a];
            break;
        case N_PST:
            if (cmp_eval(x->cmp, r[x->a], x->imm))
                out[g * NREG] = r[x->b];
            r[x->d] = out[g * NREG];
            break;
        case N_MAD: r[x->d] = r[x->a] * r[x->b] + r[x->c]; break;
        case N_SELP: r[x->d] = cmp_eval(x->cmp, r[x->a], r[x->b]) ? r[x->c] : r[x->a]; break;
        case N_FOP: {
            float fa = (float)r[x->a], fb = (float)r[x->b];
            volatile float h = fa * 0.5f; /* two roundings, as mul.rn then add.rn */
            r[x->d] = f2u_rzi(h + fb);
            break;
        }
        case N_IF:
            if (cmp_eval(x->cmp, r[x->a], x->imm))
                ref_block(p, x->kid[0], x->nkid[0], r, cx);
            else
                ref_block(p, x->kid[1], x->nkid[1], r, cx);
            break;
        case N_BREAK:
            if (cmp_eval(x->cmp, r[x->a], x->imm))
                return 1;
            break;
        case N_W64: {
            uint64_t a = r[x->a], b = r[x->b];
            int k = x->op % 4;
            uint64_t v = k == 0 ? a * b : k == 1 ? a + b : k == 2 ? a - b : a ^ b;
            r[x->d] = (uint32_t)(v >> (x->imm % 64));
            break;
        }
        case N_LOCAL:
            cx->loc[r[x->a] & 15] = r[x->b];
            r[x->d] = cx->loc[r[x->c] & 15];
            break;
        case N_LOOP: {
            uint32_t trips = (r[x->a] & 3u) + 1u;
            for (uint32_t t = 0; t < trips; t++)
                if (ref_block(p, x->kid[0], x->nkid[0], r, cx))
                    break;
            break;
        }
        default: break;
        }
    }
    return 0;
}

/* The whole grid at once, statement by statement: a top-level statement is a point every
 * (living) thread of a block reaches together, so the exchanges and shuffles read the values
 * all threads had there. */
typedef struct {
    uint32_t nt, R[MAX_THREADS * 3][NREG];
    uint32_t sm[MAX_THREADS * 3]; /* each block's shared array, zeros at the start (the
                                   * model clears it; an exited thread's slot keeps its last
                                   * value) */
    uint32_t sm2[MAX_THREADS * 3][2], sacc[8][4]; /* pairs; per-block shared reduction words */
    uint8_t smb[MAX_THREADS * 3];
    uint8_t alive[MAX_THREADS * 3];
    uint32_t loc[MAX_THREADS * 3][16];
    const uint32_t *in;
} ref_state;

static void ref_top(const prog *p, const int *list, int n, ref_state *S, uint32_t *out)
{
    uint32_t nt = S->nt;
    for (int i = 0; i < n; i++) {
        const node *x = &p->n[list[i]];
        if (x->kind == N_EXCHANGE) {
            int v = x->op % 3;
            for (uint32_t g = 0; g < nt; g++)
                if (S->alive[g]) {
                    if (v == 0)
                        S->sm[g] = S->R[g][x->a];
                    else if (v == 1)
                        S->sm2[g][0] = S->R[g][x->a], S->sm2[g][1] = S->R[g][x->b];
                    else
                        S->smb[g] = (uint8_t)S->R[g][x->a];
                }
            for (uint32_t g = 0; g < nt; g++) {
                uint32_t tid = g % p->block, base = g - tid;
                uint32_t from = base + (tid * (uint32_t)x->c + x->imm) % p->block;
                if (!S->alive[g])
                    continue;
                if (v == 0) {
                    S->R[g][x->d] = S->sm[from];
                } else if (v == 1) {
                    S->R[g][x->d] = S->sm2[from][0];
                    S->R[g][(x->d + 1) % NREG] = S->sm2[from][1];
                } else {
                    S->R[g][x->d] = S->smb[from];
                }
            }
        } else if (x->kind == N_SRED) {
            for (uint32_t g = 0; g < nt; g++)
                if (S->alive[g])
                    S->sacc[g / p->block][S->R[g][x->a] & 3u] += S->R[g][x->b];
            for (uint32_t g = 0; g < nt; g++)
                if (S->alive[g])
                    S->R[g][x->d] = S->sacc[g / p->block][S->R[g][x->c] & 3u];
        } else if (x->kind == N_SHUFFLE) { /* only while whole warps live */
            static uint32_t tmp[MAX_THREADS * 3];
            for (uint32_t g = 0; g < nt; g++)
                tmp[g] = S->R[g][x->a];
            for (uint32_t g = 0; g < nt; g++) {
                int lane = (int)(g % 32), src = lane, k = (int)x->imm;
                switch (x->op) {
                case SH_BFLY: src = lane ^ k; break;
                case SH_DOWN: src = lane + k > 31 ? lane : lane + k; break;
                case SH_UP: src = lane - k < 0 ? lane : lane - k; break;
                default: src = k; break;
                }
                if (S->alive[g])
                    S->R[g][x->d] = tmp[g - (uint32_t)lane + (uint32_t)src];
            }
        } else if (x->kind == N_RED) {
            for (uint32_t g = 0; g < nt; g++)
                if (S->alive[g]) {
                    uint32_t *w = &out[nt * NREG + 4u * (uint32_t)x->op + (S->R[g][x->a] & 3u)];
                    uint32_t v = S->R[g][x->b];
                    *w = x->op == 0   ? *w + v
                         : x->op == 1 ? (v < *w ? v : *w)
                         : x->op == 2 ? (v > *w ? v : *w)
                         : x->op == 3 ? *w & v
                         : x->op == 4 ? *w | v
                                      : *w ^ v;
                }
        } else if (x->kind == N_VOTE) { /* whole warps, all living or all gone */
            for (uint32_t w0 = 0; w0 < nt; w0 += 32) {
                uint32_t ballot = 0;
                for (uint32_t l = 0; l < 32; l++)
                    ballot |= (uint32_t)cmp_eval(x->cmp, S->R[w0 + l][x->a], x->imm) << l;
                uint32_t v = x->op == 0 ? ballot : x->op == 1 ? ballot != 0 : ballot == ~0u;
                for (uint32_t l = 0; l < 32; l++)
                    if (S->alive[w0 + l])
                        S->R[w0 + l][x->d] = v;
            }
        } else if (x->kind == N_EXIT) {
            uint32_t nwarps = (p->block + 31) / 32;
            for (uint32_t g = 0; g < nt; g++)
                if (!(x->op & 1) ? (g % p->block) / 32 == x->imm % nwarps
                               : (S->R[g][x->a] & 7u) == 0)
                    S->alive[g] = 0;
        } else if (x->kind == N_ULOOP) {
            for (uint32_t t = 0; t < x->imm; t++)
                ref_top(p, x->kid[0], x->nkid[0], S, out);
        } else {
            for (uint32_t g = 0; g < nt; g++)
                if (S->alive[g]) {
                    ref_ctx cx = {S->in, out, nt, g, S->loc[g]};
                    ref_block(p, &list[i], 1, S->R[g], &cx);
                }
        }
    }
}

/* out: NREG words per thread, then 4 reduction words. in: 2 words per thread. */
static void ref_run(const prog *p, const uint32_t *in, uint32_t *out)
{
    static ref_state S;
    uint32_t nt = S.nt = p->grid * p->block;
    S.in = in;
    for (uint32_t g = 0; g < nt; g++) {
        uint32_t *r = S.R[g];
        uint32_t tid = g % p->block, cta = g / p->block;
        r[0] = g;
        r[1] = in[g];
        r[2] = in[g + nt];
        r[3] = cta;
        r[4] = tid;
        for (int j = 5; j < NREG; j++)
            r[j] = (uint32_t)j * 0x01010101u;
        S.sm[g] = S.sm2[g][0] = S.sm2[g][1] = S.smb[g] = 0;
        S.alive[g] = 1;
        memset(S.loc[g], 0, sizeof S.loc[g]);
    }
    memset(S.sacc, 0, sizeof S.sacc);
    memset(out, 0, (nt * NREG + NACC) * sizeof *out);
    acc_init(out + nt * NREG);
    ref_top(p, p->top, p->ntop, &S, out);
    for (uint32_t g = 0; g < nt; g++) {
        if (!S.alive[g] || (p->exit_reg >= 0 && (S.R[g][p->exit_reg] & 3u) == 0))
            continue;
        for (int j = 0; j < NREG; j++)
            out[g * NREG + (uint32_t)j] = S.R[g][j];
    }
}

/* ---- PTX ------------------------------------------------------------------------------------ */

typedef struct {
    char *s;
    size_t n, cap;
    int label, pred, brk; /* brk: the innermost loop's exit label */
} sbuf;

static void emit(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if ((size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        b->cap = b->cap * 2 + (size_t)k + 64;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
}

static const char *const cmp_name[CMP_COUNT] = {"lt", "gt", "eq", "ne", "le", "ge"};

/* One ALU statement; guard is "" or a predicate guard such as "@%p3 " (N_PRED, which uses
 * only the ops before OP_BFE). */
static void emit_alu(sbuf *b, const node *x, const char *guard)
{
    static const char *const name[OP_COUNT] = {
        "add.s32", "sub.s32", "mul.lo.s32", "and.b32", "or.b32", "xor.b32", "shl.b32",
        "shr.u32", "min.u32", "max.u32", "mul.hi.u32", "rem.u32", "div.u32", "bfe.u32",
        "bfi.b32", "not.b32", "popc.b32", "brev.b32"};
    const char *op = name[x->op];
    if (x->op >= OP_NOT)
        emit(b, " %s%s %%r%d, %%r%d;\n", guard, op, x->d, x->a);
    else if (x->op == OP_SHL || x->op == OP_SHR)
        emit(b, " %s%s %%r%d, %%r%d, %u;\n", guard, op, x->d, x->a, x->imm & 31);
    else if (x->op == OP_REM || x->op == OP_DIV)
        emit(b, " %s%s %%r%d, %%r%d, %u;\n", guard, op, x->d, x->a, x->imm % 13 + 1);
    else if (x->op == OP_BFE)
        emit(b, " %s%s %%r%d, %%r%d, %u, %u;\n", guard, op, x->d, x->a, x->imm & 31,
             (x->imm >> 8) % 32 + 1);
    else if (x->op == OP_BFI)
        emit(b, " %s%s %%r%d, %%r%d, %%r%d, %u, %u;\n", guard, op, x->d, x->a, x->b,
             x->imm & 31, (x->imm >> 8) % 32 + 1);
    else if (x->use_imm)
        emit(b, " %s%s %%r%d, %%r%d, %u;\n", guard, op, x->d, x->a, x->imm);
    else
        emit(b, " %s%s %%r%d, %%r%d, %%r%d;\n", guard, op, x->d, x->a, x->b);
}

static void emit_block(sbuf *b, const prog *p, const int *kids, int n, int depth)
{
    for (int i = 0; i < n; i++) {
        const node *x = &p->n[kids[i]];
        switch (x->kind) {
        case N_ALU: emit_alu(b, x, ""); break;
        case N_PRED: {
            int q = b->pred++;
            char guard[24];
            emit(b, " setp.%s.u32 %%p%d, %%r%d, %u;\n", cmp_name[x->cmp], q, x->a, x->imm);
            snprintf(guard, sizeof guard, "@%s%%p%d ", x->c & 1 ? "" : "!", q);
            emit_alu(b, x, guard);
            break;
        }
        case N_GLD:
            emit(b, " rem.u32 %%r24, %%r%d, %%r23;\n mul.wide.u32 %%rd5, %%r24, 4;\n", x->a);
            emit(b, " add.s64 %%rd6, %%rd1, %%rd5;\n ld.global.u32 %%r%d, [%%rd6];\n", x->d);
            break;
        case N_GST:
            emit(b, " st.global.u32 [%%rd4], %%r%d;\n ld.global.u32 %%r%d, [%%rd4];\n", x->a,
                 x->d);
            break;
        case N_PST: {
            int q = b->pred++;
            emit(b, " setp.%s.u32 %%p%d, %%r%d, %u;\n", cmp_name[x->cmp], q, x->a, x->imm);
            emit(b, " @%%p%d st.global.u32 [%%rd4], %%r%d;\n", q, x->b);
            emit(b, " ld.global.u32 %%r%d, [%%rd4];\n", x->d);
            break;
        }
        case N_VOTE: {
            int q = b->pred++;
            emit(b, " setp.%s.u32 %%p%d, %%r%d, %u;\n", cmp_name[x->cmp], q, x->a, x->imm);
            if (x->op == 0) {
                emit(b, " vote.sync.ballot.b32 %%r%d, %%p%d, -1;\n", x->d, q);
            } else {
                int q2 = b->pred++;
                emit(b, " vote.sync.%s.pred %%p%d, %%p%d, -1;\n", x->op == 1 ? "any" : "all", q2,
                     q);
                emit(b, " selp.u32 %%r%d, 1, 0, %%p%d;\n", x->d, q2);
            }
            break;
        }
        case N_MAD:
            emit(b, " mad.lo.s32 %%r%d, %%r%d, %%r%d, %%r%d;\n", x->d, x->a, x->b, x->c);
            break;
        case N_SELP: {
            int q = b->pred++;
            emit(b, " setp.%s.u32 %%p%d, %%r%d, %%r%d;\n", cmp_name[x->cmp], q, x->a, x->b);
            emit(b, " selp.b32 %%r%d, %%r%d, %%r%d, %%p%d;\n", x->d, x->c, x->a, q);
            break;
        }
        case N_FOP:
            emit(b, " cvt.rn.f32.u32 %%f1, %%r%d;\n cvt.rn.f32.u32 %%f2, %%r%d;\n", x->a, x->b);
            emit(b, " mul.rn.f32 %%f3, %%f1, 0f3F000000;\n add.rn.f32 %%f4, %%f3, %%f2;\n");
            emit(b, " cvt.rzi.u32.f32 %%r%d, %%f4;\n", x->d);
            break;
        case N_IF: {
            int q = b->pred++, l = b->label;
            b->label += 2;
            emit(b, " setp.%s.u32 %%p%d, %%r%d, %u;\n", cmp_name[x->cmp], q, x->a, x->imm);
            emit(b, " @!%%p%d bra $L_%d;\n", q, l);
            emit_block(b, p, x->kid[0], x->nkid[0], depth + 1);
            emit(b, " bra.uni $L_%d;\n$L_%d:\n", l + 1, l);
            emit_block(b, p, x->kid[1], x->nkid[1], depth + 1);
            emit(b, "$L_%d:\n", l + 1);
            break;
        }
        case N_LOOP: {
            int l = b->label, saved = b->brk;
            b->label += 2;
            b->brk = l + 1; /* the loop's exit, for its N_BREAKs */
            emit(b, " and.b32 %%r%d, %%r%d, 3;\n add.s32 %%r%d, %%r%d, 1;\n", 20 + depth, x->a,
                 20 + depth, 20 + depth);
            emit(b, "$L_%d:\n", l);
            emit_block(b, p, x->kid[0], x->nkid[0], depth + 1);
            int q = b->pred++;
            emit(b, " add.s32 %%r%d, %%r%d, -1;\n setp.ne.s32 %%p%d, %%r%d, 0;\n", 20 + depth,
                 20 + depth, q, 20 + depth);
            emit(b, " @%%p%d bra $L_%d;\n$L_%d:\n", q, l, l + 1);
            b->brk = saved;
            break;
        }
        case N_BREAK: {
            int q = b->pred++;
            emit(b, " setp.%s.u32 %%p%d, %%r%d, %u;\n", cmp_name[x->cmp], q, x->a, x->imm);
            emit(b, " @%%p%d bra $L_%d;\n", q, b->brk);
            break;
        }
        case N_W64: {
            static const char *const op[4] = {"mul.lo.u64", "add.s64", "sub.s64", "xor.b64"};
            emit(b, " cvt.u64.u32 %%rd8, %%r%d;\n cvt.u64.u32 %%rd9, %%r%d;\n", x->a, x->b);
            emit(b, " %s %%rd10, %%rd8, %%rd9;\n shr.u64 %%rd10, %%rd10, %u;\n", op[x->op % 4],
                 x->imm % 64);
            emit(b, " cvt.u32.u64 %%r%d, %%rd10;\n", x->d);
            break;
        }
        case N_LOCAL:
            emit(b, " and.b32 %%r24, %%r%d, 15;\n mul.wide.u32 %%rd9, %%r24, 4;\n", x->a);
            emit(b, " add.s64 %%rd9, %%rd11, %%rd9;\n st.local.u32 [%%rd9], %%r%d;\n", x->b);
            emit(b, " and.b32 %%r24, %%r%d, 15;\n mul.wide.u32 %%rd9, %%r24, 4;\n", x->c);
            emit(b, " add.s64 %%rd9, %%rd11, %%rd9;\n ld.local.u32 %%r%d, [%%rd9];\n", x->d);
            break;
        case N_EXCHANGE: {
            int v = x->op % 3;
            if (v == 0)
                emit(b, " st.shared.u32 [%%r31], %%r%d;\n", x->a);
            else if (v == 1)
                emit(b, " st.shared.v2.u32 [%%r19], {%%r%d, %%r%d};\n", x->a, x->b);
            else
                emit(b, " st.shared.u8 [%%r16], %%r%d;\n", x->a);
            emit(b, " bar.sync 0;\n mad.lo.s32 %%r24, %%r29, %d, %u;\n", x->c, x->imm);
            emit(b, " rem.u32 %%r24, %%r24, %%r30;\n shl.b32 %%r24, %%r24, %d;\n",
                 v == 0 ? 2 : v == 1 ? 3 : 0);
            emit(b, " add.s32 %%r24, %%r%d, %%r24;\n", v == 0 ? 28 : v == 1 ? 18 : 17);
            if (v == 0)
                emit(b, " ld.shared.u32 %%r%d, [%%r24];\n", x->d);
            else if (v == 1)
                emit(b, " ld.shared.v2.u32 {%%r%d, %%r%d}, [%%r24];\n", x->d, (x->d + 1) % NREG);
            else
                emit(b, " ld.shared.u8 %%r%d, [%%r24];\n", x->d);
            emit(b, " bar.sync 0;\n");
            break;
        }
        case N_SRED:
            emit(b, " and.b32 %%r24, %%r%d, 3;\n shl.b32 %%r24, %%r24, 2;\n", x->a);
            emit(b, " add.s32 %%r24, %%r15, %%r24;\n red.shared.add.u32 [%%r24], %%r%d;\n", x->b);
            emit(b, " bar.sync 0;\n and.b32 %%r24, %%r%d, 3;\n shl.b32 %%r24, %%r24, 2;\n", x->c);
            emit(b, " add.s32 %%r24, %%r15, %%r24;\n ld.shared.u32 %%r%d, [%%r24];\n", x->d);
            emit(b, " bar.sync 0;\n");
            break;
        case N_SHUFFLE: {
            static const char *const mode[4] = {"bfly", "down", "up", "idx"};
            emit(b, " shfl.sync.%s.b32 %%r%d, %%r%d, %u, %d, -1;\n", mode[x->op], x->d, x->a,
                 x->imm, x->op == SH_UP ? 0 : 31);
            break;
        }
        case N_RED: {
            static const char *const red[6] = {"add.u32", "min.u32", "max.u32",
                                               "and.b32", "or.b32", "xor.b32"};
            emit(b, " and.b32 %%r24, %%r%d, 3;\n add.s32 %%r24, %%r24, %d;\n", x->a, 4 * x->op);
            emit(b, " mul.wide.u32 %%rd5, %%r24, 4;\n add.s64 %%rd6, %%rd7, %%rd5;\n");
            emit(b, " red.global.%s [%%rd6], %%r%d;\n", red[x->op], x->b);
            break;
        }
        case N_EXIT: {
            int q = b->pred++;
            if (!(x->op & 1))
                emit(b, " shr.u32 %%r24, %%r29, 5;\n setp.eq.u32 %%p%d, %%r24, %u;\n", q,
                     x->imm % ((p->block + 31) / 32));
            else
                emit(b, " and.b32 %%r24, %%r%d, 7;\n setp.eq.u32 %%p%d, %%r24, 0;\n", x->a, q);
            emit(b, "%s @%%p%d ret;\n", x->op & 2 ? " bar.sync 0;\n" : "", q);
            break;
        }
        case N_ULOOP: {
            int l = b->label++, q = b->pred++;
            emit(b, " mov.u32 %%r27, %u;\n$L_%d:\n", x->imm, l);
            emit_block(b, p, x->kid[0], x->nkid[0], depth);
            emit(b, " add.s32 %%r27, %%r27, -1;\n setp.ne.s32 %%p%d, %%r27, 0;\n", q);
            emit(b, " @%%p%d bra.uni $L_%d;\n", q, l);
            break;
        }
        default: break;
        }
    }
}

/* %r0..11 the values; %r15 sacc, %r16 &smb[tid.x], %r17 smb, %r18 sm2, %r19 &sm2[tid.x];
 * %r20..22 loop counters per depth; %r24 scratch; %r25 nthreads;
 * %r23 2 nthreads; %r26 the thread's index in the grid; %r27 the uniform loop's counter;
 * %r28 the shared array's address, %r29 tid.x, %r30 ntid.x, %r31 &sm[tid.x];
 * %rd1 in, %rd2 out, %rd4 the thread's first out word, %rd7 the reduction words,
 * %rd8..10 64-bit values, %rd11 the local array. */
static char *emit_prog(const prog *p)
{
    sbuf b = {0};
    emit(&b, ".version 8.0\n.target sm_90\n.address_size 64\n\n");
    emit(&b, ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n");
    emit(&b, " .reg .pred %%p<%d>;\n .reg .b32 %%r<32>;\n .reg .f32 %%f<8>;\n", 2 * MAX_NODES);
    emit(&b, " .reg .b64 %%rd<12>;\n .shared .align 4 .b32 sm[%u];\n", p->block);
    emit(&b, " .shared .align 8 .b32 sm2[%u];\n .shared .align 1 .b8 smb[%u];\n", 2 * p->block,
         p->block);
    emit(&b, " .shared .align 4 .b32 sacc[4];\n");
    emit(&b, " .local .align 4 .b8 loc[64];\n\n mov.u64 %%rd11, loc;\n");
    emit(&b, " ld.param.u64 %%rd1, [pin];\n ld.param.u64 %%rd2, [pout];\n");
    emit(&b, " cvta.to.global.u64 %%rd1, %%rd1;\n cvta.to.global.u64 %%rd2, %%rd2;\n");
    emit(&b, " mov.u32 %%r29, %%tid.x;\n mov.u32 %%r30, %%ntid.x;\n mov.u32 %%r3, %%ctaid.x;\n");
    emit(&b, " mov.u32 %%r4, %%r29;\n mad.lo.s32 %%r0, %%r3, %%r30, %%r29;\n");
    emit(&b, " mov.u32 %%r26, %%r0;\n");
    emit(&b, " mov.u32 %%r24, %%nctaid.x;\n mul.lo.s32 %%r25, %%r24, %%r30;\n");
    emit(&b, " mul.wide.u32 %%rd3, %%r0, 4;\n add.s64 %%rd4, %%rd1, %%rd3;\n");
    emit(&b, " ld.global.u32 %%r1, [%%rd4];\n mul.wide.u32 %%rd3, %%r25, 4;\n");
    emit(&b, " add.s64 %%rd4, %%rd4, %%rd3;\n ld.global.u32 %%r2, [%%rd4];\n");
    for (int j = 5; j < NREG; j++)
        emit(&b, " mov.u32 %%r%d, %u;\n", j, (uint32_t)j * 0x01010101u);
    emit(&b, " mov.u32 %%r28, sm;\n shl.b32 %%r24, %%r29, 2;\n add.s32 %%r31, %%r28, %%r24;\n");
    emit(&b, " mov.u32 %%r18, sm2;\n shl.b32 %%r24, %%r29, 3;\n add.s32 %%r19, %%r18, %%r24;\n");
    emit(&b, " mov.u32 %%r17, smb;\n add.s32 %%r16, %%r17, %%r29;\n mov.u32 %%r15, sacc;\n");
    emit(&b, " mul.lo.s32 %%r24, %%r25, %d;\n mul.wide.u32 %%rd3, %%r24, 4;\n", NREG);
    emit(&b, " add.s64 %%rd7, %%rd2, %%rd3;\n shl.b32 %%r23, %%r25, 1;\n");
    emit(&b, " mul.lo.s32 %%r24, %%r26, %d;\n mul.wide.u32 %%rd3, %%r24, 4;\n", NREG);
    emit(&b, " add.s64 %%rd4, %%rd2, %%rd3;\n");
    emit_block(&b, p, p->top, p->ntop, 0);
    if (p->exit_reg >= 0) {
        int q = b.pred++;
        emit(&b, " and.b32 %%r24, %%r%d, 3;\n setp.eq.s32 %%p%d, %%r24, 0;\n", p->exit_reg, q);
        emit(&b, " @%%p%d ret;\n", q);
    }
    for (int j = 0; j < NREG; j++)
        emit(&b, " st.global.u32 [%%rd4+%d], %%r%d;\n", 4 * j, j);
    emit(&b, " ret;\n}\n");
    return b.s;
}

/* ---- the runs ------------------------------------------------------------------------------ */

typedef struct {
    const prog *p;
    const char *ptx;
    const uint32_t *in, *want;
    uint64_t seed;
} rcase;

/* Fresh buffers for one run: in (2 words per thread) and out (zeros). */
static devmem_t *make_mem(const rcase *rc, uint8_t params[16], uint64_t *out_addr)
{
    uint32_t nt = rc->p->grid * rc->p->block;
    diag_t d = {0};
    devmem_t *mem = devmem_create(0);
    uint64_t ain, aout;
    assert_non_null(mem);
    if (devmem_alloc(mem, (uint64_t)nt * 8, NULL, &ain, &d) != WL_OK ||
        devmem_alloc(mem, ((uint64_t)nt * NREG + NACC) * 4, NULL, &aout, &d) != WL_OK)
        fail_msg("devmem_alloc: %s", d.msg);
    memcpy(devmem_translate(mem, ain, (uint64_t)nt * 8), rc->in, (size_t)nt * 8);
    uint32_t *o = (uint32_t *)(void *)devmem_translate(mem, aout, ((uint64_t)nt * NREG + NACC) * 4);
    memset(o, 0, ((size_t)nt * NREG + NACC) * 4);
    acc_init(o + (size_t)nt * NREG);
    memcpy(params, &ain, 8);
    memcpy(params + 8, &aout, 8);
    *out_addr = aout;
    return mem;
}

static void compare(const rcase *rc, devmem_t *mem, uint64_t aout, const char *how)
{
    uint32_t nt = rc->p->grid * rc->p->block, nw = nt * NREG + NACC;
    const uint32_t *got =
        (const uint32_t *)(const void *)devmem_translate(mem, aout, (uint64_t)nw * 4);
    for (uint32_t i = 0; i < nw; i++)
        if (got[i] != rc->want[i]) {
            fprintf(stderr, "%s\n", rc->ptx);
            fail_msg("seed %llu, %s: out[%u] = 0x%08x, CPU 0x%08x (grid %u, block %u; the PTX "
                     "is above)",
                     (unsigned long long)rc->seed, how, i, got[i], rc->want[i], rc->p->grid,
                     rc->p->block);
        }
}

static ptx_module *parse(const rcase *rc, int schedule)
{
    diag_t d = {0};
    ptx_module *m = NULL;
    if (ptx_parse_string(rc->ptx, strlen(rc->ptx), "random.ptx", &m, &d) != WL_OK ||
        (schedule && ptx_schedule(m, &d) != WL_OK)) {
        char msg[1400];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "%s\n", rc->ptx);
        fail_msg("seed %llu: %s", (unsigned long long)rc->seed, msg);
    }
    return m;
}

static void run_functional(const rcase *rc, int schedule)
{
    ptx_module *m = parse(rc, schedule);
    uint8_t params[16];
    uint64_t aout;
    devmem_t *mem = make_mem(rc, params, &aout);
    launch_config cfg = {.grid = {rc->p->grid, 1, 1}, .block = {rc->p->block, 1, 1},
                         .params = params, .params_size = sizeof params};
    diag_t d = {0};
    if (launch_kernel(m, ptx_find_func(m, "k"), &cfg, mem, NULL, &d) != WL_OK) {
        char msg[1400];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "%s\n", rc->ptx);
        fail_msg("seed %llu, functional: %s", (unsigned long long)rc->seed, msg);
    }
    compare(rc, mem, aout, schedule ? "functional, scheduled" : "functional, PTX order");
    devmem_destroy(mem);
    ptx_module_free(m);
}

static void run_timed(const rcase *rc, const arch_t *a, int schedule, int policy)
{
    ptx_module *m = parse(rc, schedule);
    uint8_t params[16];
    uint64_t aout;
    devmem_t *mem = make_mem(rc, params, &aout);
    timing_config cfg = {0};
    cfg.grid[0] = rc->p->grid;
    cfg.block[0] = rc->p->block;
    cfg.grid[1] = cfg.grid[2] = cfg.block[1] = cfg.block[2] = 1;
    cfg.regs_per_thread = 32;
    cfg.policy = policy;
    cfg.params = params;
    cfg.params_size = sizeof params;
    timing_result r;
    memset(&r, 0, sizeof r);
    diag_t d = {0};
    char how[64];
    snprintf(how, sizeof how, "timed, %s, %s", sched_policy_name(policy),
             schedule ? "scheduled" : "PTX order");
    if (timing_run(m, ptx_find_func(m, "k"), a, &cfg, mem, &r, &d) != WL_OK) {
        char msg[1400];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "%s\n", rc->ptx);
        fail_msg("seed %llu, %s: %s", (unsigned long long)rc->seed, how, msg);
    }
    compare(rc, mem, aout, how);
    uint64_t sum = 0;
    for (int i = 0; i < STALL_COUNT; i++)
        sum += r.stalls[i];
    if (sum != r.resident_warp_cycles || r.stalls[STALL_SELECTED] != r.warp_instructions)
        fail_msg("seed %llu, %s: stall sum %llu, resident %llu, selected %llu, issued %llu",
                 (unsigned long long)rc->seed, how, (unsigned long long)sum,
                 (unsigned long long)r.resident_warp_cycles,
                 (unsigned long long)r.stalls[STALL_SELECTED],
                 (unsigned long long)r.warp_instructions);
    timing_result_free(&r);
    devmem_destroy(mem);
    ptx_module_free(m);
}

static void one_seed(const arch_t *a, uint64_t seed)
{
    static prog p;
    gen_prog(&p, seed);
    uint32_t nt = p.grid * p.block;
    static uint32_t in[MAX_THREADS * 3 * 2], want[MAX_THREADS * 3 * NREG + NACC];
    uint64_t s = seed + 1;
    for (uint32_t i = 0; i < 2 * nt; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        in[i] = (uint32_t)(s >> 32);
        if (i % 5 == 0)
            in[i] &= 0xff; /* small values too, so comparisons go both ways */
    }
    ref_run(&p, in, want);
    char *ptx = emit_prog(&p);
    const char *show = getenv("WL_RANDOM_PRINT"); /* a seed: its PTX on stdout */
    if (show && strtoull(show, NULL, 10) == seed)
        printf("%s", ptx);
    rcase rc = {&p, ptx, in, want, seed};
    run_functional(&rc, 0);
    run_functional(&rc, 1);
    for (int pol = 0; pol < SCHED_POLICY_COUNT; pol++)
        run_timed(&rc, a, 1, pol);
    run_timed(&rc, a, 0, SCHED_GTO);
    /* a GPU of one SM holding at most two blocks: the grid runs in waves, and a block that
     * retires hands its slot, warp records and register files to the next (block reuse) */
    arch_t one = *a;
    one.sm_count = one.gpc_count = one.gpc_sms[0] = 1;
    one.max_blocks_per_sm = 2;
    run_timed(&rc, &one, 1, SCHED_GTO);
    free(ptx);
}

static void test_random_kernels(void **state)
{
    (void)state;
    arch_t a;
    diag_t d = {0};
    if (arch_load(tu_path("sim/arch"), "h200", &a, &d) != WL_OK)
        fail_msg("arch: %s", d.msg);
    const char *ns = getenv("WL_RANDOM_KERNELS"), *ss = getenv("WL_RANDOM_SEED");
    uint64_t n = ns ? strtoull(ns, NULL, 10) : 300, s0 = ss ? strtoull(ss, NULL, 10) : 1;
    for (uint64_t s = s0; s < s0 + n; s++)
        one_seed(&a, s);
    printf("random_kernels: %llu kernels from seed %llu, each in 7 ways, all equal to the CPU\n",
           (unsigned long long)n, (unsigned long long)s0);
}

/* The generator itself: the reference must see what the PTX does for a hand-checked case. */
static void test_reference_shuffle(void **state)
{
    (void)state;
    prog p;
    memset(&p, 0, sizeof p);
    p.grid = 1;
    p.block = 32;
    p.exit_reg = -1;
    int k = p.nn++;
    p.n[k] = (node){.kind = N_SHUFFLE, .op = SH_DOWN, .d = 6, .a = 4, .imm = 5};
    p.top[p.ntop++] = k;
    uint32_t in[64] = {0}, out[32 * NREG + NACC];
    ref_run(&p, in, out);
    for (int l = 0; l < 32; l++) /* r6 = tid.x of lane + 5, or its own past lane 26 */
        assert_int_equal(out[l * NREG + 6], (uint32_t)(l + 5 > 31 ? l : l + 5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_shuffle),
        cmocka_unit_test(test_random_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
