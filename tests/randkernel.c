/* randkernel: random PTX kernels against a CPU evaluation (randkernel.h). */
#include "randkernel.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devmem.h"
#include "launch.h"
#include "ptx.h"
#include "stall.h"
#include "timing.h"
#include "trace.h"

static uint32_t rnd(rk_prog *p, uint32_t n)
{
    if (p->pos < p->nchoices) /* a fuzzer's input steers the choices */
        p->rng ^= (uint64_t)p->choices[p->pos++] * 0x9e3779b97f4a7c15ull;
    p->rng = p->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(p->rng >> 33) % n;
}

static uint32_t rnd_imm(rk_prog *p)
{
    static const uint32_t special[] = {0, 1, 2, 3, 7, 31, 32, 255, 0x7fffffffu, 0x80000000u,
                                       0xffffffffu, 0x12345678u};
    return rnd(p, 2) ? special[rnd(p, sizeof special / sizeof special[0])]
                     : (uint32_t)(p->rng >> 20);
}

static int new_node(rk_prog *p, int kind)
{
    rk_node *x = &p->n[p->nn];
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
static void gen_block(rk_prog *p, rk_node *parent, int side, int depth)
{
    int want = 1 + (int)rnd(p, 5);
    for (int i = 0; i < want && parent->nkid[side] < MAX_KIDS && p->nn < MAX_NODES - 4; i++) {
        int r = (int)rnd(p, 23), k;
        if (r < 1 && depth < 2) {
            k = new_node(p, N_IF);
            gen_block(p, &p->n[k], 0, depth + 1);
            if (rnd(p, 2))
                gen_block(p, &p->n[k], 1, depth + 1);
        } else if (r < 2 && depth < 2) {
            k = new_node(p, N_LOOP);
            gen_block(p, &p->n[k], 0, depth + 1);
        } else if (r >= 20 && parent->kind == N_LOOP) {
            k = new_node(p, N_BREAK);
        } else {
            static const int kinds[] = {N_MAD, N_SELP,  N_FOP, N_PRED, N_GLD, N_GST, N_W64,
                                        N_LOCAL, N_PST, N_ATOM, N_GEN, N_V4, N_F64, N_PLOG};
            k = new_node(p, r >= 2 && r < 2 + 14 ? kinds[r - 2] : N_ALU); /* 0, 1 at depth 2 */
            if (p->n[k].kind == N_PRED && p->n[k].op >= OP_BFE)
                p->n[k].op = OP_ADD;
        }
        parent->kid[side][parent->nkid[side]++] = k;
    }
}

/* Top-level statements into list (at most MAX_KIDS): compute regions, exchanges (a barrier
 * each side), shuffles, reductions, exits and one level of uniform loops around them. */
/* gone: bit 0 once some threads of a warp have exited (no more shuffles or votes over the whole
 * warp), bit 1 once any thread has (no more named barriers counting every thread). */
static void gen_top(rk_prog *p, int *list, int *n, int max, int in_loop, int *gone)
{
    int whole_warps = p->block % 32 == 0; /* shuffles need every lane of the warp */
    uint32_t nwarps = (p->block + 31) / 32;
    int want = 2 + (int)rnd(p, 5);
    for (int i = 0; i < want && *n < max && p->nn < MAX_NODES - 8; i++) {
        int r = (int)rnd(p, 13), k;
        if (r < 2) {
            static const uint32_t mul[] = {1, 1, 2, 3, 32, 33}; /* 32, 33: bank conflicts */
            k = new_node(p, N_EXCHANGE);
            p->n[k].imm = rnd(p, p->block);
            p->n[k].c = (int)mul[rnd(p, 6)];
        } else if (r < 4 && whole_warps && !(*gone & 1)) {
            k = new_node(p, N_SHUFFLE);
            p->n[k].op = (int)rnd(p, 4);
            p->n[k].imm = p->n[k].op == SH_BFLY ? 1u << rnd(p, 5) : rnd(p, 32);
        } else if (r < 5) {
            k = new_node(p, rnd(p, 3) ? N_RED : N_SRED);
            p->n[k].op = (int)rnd(p, 6);
        } else if (r == 12 && whole_warps && nwarps >= 2 && !(*gone & 2)) {
            k = new_node(p, N_PC);
            p->n[k].op = 1 + (int)rnd(p, nwarps - 1); /* producer warps */
            p->n[k].imm = rnd(p, 32u * (uint32_t)p->n[k].op);
        } else if (r >= 10 && whole_warps && !(*gone & 1)) {
            k = new_node(p, rnd(p, 4) ? N_VOTE : N_WSYNC);
            p->n[k].op = (int)rnd(p, 3);
        } else if (r < 6 && !in_loop) {
            k = new_node(p, N_EXIT);
            p->n[k].op = (int)rnd(p, 4);
            *gone |= p->n[k].op & 1 ? 3 : 2;
        } else if (r < 7 && !in_loop) {
            k = new_node(p, N_ULOOP);
            p->n[k].imm = 1 + rnd(p, 3);
            gen_top(p, p->n[k].kid[0], &p->n[k].nkid[0], MAX_KIDS, 1, gone);
        } else { /* a compute region */
            rk_node tmp = {0};
            gen_block(p, &tmp, 0, 0);
            for (int j = 0; j < tmp.nkid[0] && *n < max; j++)
                list[(*n)++] = tmp.kid[0][j];
            continue;
        }
        list[(*n)++] = k;
    }
}

void rk_generate(rk_prog *p, uint64_t seed, const uint8_t *choices, size_t nchoices)
{
    memset(p, 0, sizeof *p);
    p->rng = seed * 0x9e3779b97f4a7c15ull + 12345;
    p->choices = choices;
    p->nchoices = nchoices;
    static const uint32_t blocks[] = {32, 64, 96, 128, 48, 80, 200};
    /* block shapes for each size, x fastest: warps are formed from the linear thread index */
    static const uint32_t shapes[7][3][3] = {
        {{32, 1, 1}, {8, 4, 1}, {4, 4, 2}},    {{64, 1, 1}, {32, 2, 1}, {16, 2, 2}},
        {{96, 1, 1}, {32, 3, 1}, {16, 3, 2}},  {{128, 1, 1}, {32, 4, 1}, {8, 4, 4}},
        {{48, 1, 1}, {16, 3, 1}, {8, 3, 2}},   {{80, 1, 1}, {16, 5, 1}, {40, 2, 1}},
        {{200, 1, 1}, {20, 10, 1}, {10, 5, 4}}};
    uint32_t bi = rnd(p, sizeof blocks / sizeof blocks[0]), sh = rnd(p, 3);
    p->block = blocks[bi];
    memcpy(p->bdim, shapes[bi][sh], sizeof p->bdim);
    p->grid = 1 + rnd(p, 6);
    uint32_t gs = rnd(p, 4), g = p->grid;
    p->gdim[0] = gs == 0 ? g : gs == 3 && g % 2 == 0 ? 2 : 1;
    p->gdim[1] = gs == 1 ? g : gs == 3 && g % 2 == 0 ? g / 2 : 1;
    p->gdim[2] = gs == 2 ? g : 1;
    if (p->gdim[0] * p->gdim[1] * p->gdim[2] != g) /* gs 3 with an odd count */
        p->gdim[0] = g, p->gdim[1] = p->gdim[2] = 1;
    int gone = 0;
    gen_top(p, p->top, &p->ntop, MAX_KIDS * 2, 0, &gone);
    p->exit_reg = rnd(p, 3) ? (int)rnd(p, NREG) : -1;
    p->choices = NULL;
    p->nchoices = p->pos = 0;
}

/* ---- the CPU reference ------------------------------------------------------------------- */

static int cmp_eval(int cmp, uint32_t a, uint32_t b)
{
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    switch (cmp) {
    case CMP_SLT: return sa < sb;
    case CMP_SGT: return sa > sb;
    case CMP_SEQ: return sa == sb;
    case CMP_SNE: return sa != sb;
    case CMP_SLE: return sa <= sb;
    case CMP_SGE: return sa >= sb;
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
    case OP_SHRS: return (uint32_t)((int32_t)a >> (b & 31)); /* arithmetic in GCC and clang */
    case OP_DIVS: return (uint32_t)((int32_t)a / (int32_t)b); /* b in 1..13 */
    case OP_MINS: return (int32_t)a < (int32_t)b ? a : b;
    case OP_MAXS: return (int32_t)a > (int32_t)b ? a : b;
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
static uint32_t alu_b(const rk_node *x, const uint32_t *r)
{
    uint32_t b = x->use_imm ? x->imm : r[x->b];
    if (x->op == OP_SHL || x->op == OP_SHR)
        b = x->imm & 31;
    if (x->op == OP_SHRS)
        b = x->imm & 31;
    if (x->op == OP_REM || x->op == OP_DIV || x->op == OP_DIVS)
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
    uint32_t *sm;   /* its word of the shared array sm */
} ref_ctx;

/* Returns 1 when a break left the block (N_BREAK: the enclosing loop ends). */
static int ref_block(const rk_prog *p, const int *kids, int n, uint32_t *r, const ref_ctx *cx)
{
    const uint32_t *in = cx->in, nt = cx->nt, g = cx->g;
    uint32_t *out = cx->out;
    for (int i = 0; i < n; i++) {
        const rk_node *x = &p->n[kids[i]];
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
        case N_F64: {
            volatile double h = (double)r[x->a] * 0.25; /* two roundings, as the PTX */
            double v = h + (double)r[x->b];
            r[x->d] = v <= 0.0 || isnan(v) ? 0 : v >= 4294967296.0 ? 0xffffffffu : (uint32_t)v;
            break;
        }
        case N_PLOG: {
            int p1 = cmp_eval(x->cmp, r[x->a], x->imm), p2 = cmp_eval(x->cmp, r[x->b], r[x->c]);
            int k = x->op % 4, v = k == 0 ? p1 && p2 : k == 1 ? p1 || p2 : k == 2 ? p1 != p2 : !p1;
            r[x->d] = v ? r[x->a] : r[x->b];
            break;
        }
        case N_FOP: {
            float fa = (float)r[x->a], fb = (float)r[x->b];
            volatile float h = fa * 0.5f; /* two roundings, as mul.rn then add.rn */
            r[x->d] = f2u_rzi(x->op & 1 ? fmaf(fa, 0.5f, fb) : h + fb); /* or fma.rn: one */
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
        case N_ATOM: {
            uint32_t *w = &out[g * NREG], old = *w, v = r[x->b];
            int k = x->op % 4;
            *w = k == 0 ? old + v : k == 1 ? v : k == 2 ? (v > old ? v : old)
                                             : (old == r[x->c] ? v : old);
            r[x->d] = old;
            break;
        }
        case N_GEN:
            *cx->sm = r[x->a];
            r[x->d] = *cx->sm + out[g * NREG];
            break;
        case N_V4: {
            uint32_t v4 = r[x->a] % (nt / 2); /* the 16-byte group */
            for (int j = 0; j < 4; j++)
                r[(x->d + j) % NREG] = in[4 * v4 + (uint32_t)j];
            break;
        }
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

static void ref_top(const rk_prog *p, const int *list, int n, ref_state *S, uint32_t *out)
{
    uint32_t nt = S->nt;
    for (int i = 0; i < n; i++) {
        const rk_node *x = &p->n[list[i]];
        if (x->kind == N_EXCHANGE) {
            int v = x->op % 4 == 3 ? 1 : x->op % 4; /* a 64-bit word holds the pair as v2 does */
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
        } else if (x->kind == N_PC) { /* every thread lives (gen_top) */
            uint32_t np = 32u * (uint32_t)x->op;
            for (uint32_t g = 0; g < nt; g++)
                if (g % p->block < np)
                    S->sm[g] = S->R[g][x->a];
            for (uint32_t g = 0; g < nt; g++) {
                uint32_t tid = g % p->block;
                if (tid >= np)
                    S->R[g][x->d] = S->sm[g - tid + (tid + x->imm) % np];
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
                    ref_ctx cx = {S->in, out, nt, g, S->loc[g], &S->sm[g]};
                    ref_block(p, &list[i], 1, S->R[g], &cx);
                }
        }
    }
}

void rk_reference(const rk_prog *p, const uint32_t *in, uint32_t *out)
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

__attribute__((format(printf, 2, 3))) static void emit(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    if (!b->s && !(b->s = malloc(b->cap = 4096)))
        abort();
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
        if (!b->s)
            abort();
    }
}

static const char *const cmp_name[CMP_COUNT] = {"lt.u32", "gt.u32", "eq.u32", "ne.u32",
                                                "le.u32", "ge.u32", "lt.s32", "gt.s32",
                                                "eq.s32", "ne.s32", "le.s32", "ge.s32"};

/* setp of register a against the immediate (written signed for a signed compare) */
static void emit_setp_imm(sbuf *b, int q, const rk_node *x)
{
    if (x->cmp >= CMP_SLT)
        emit(b, " setp.%s %%p%d, %%r%d, %d;\n", cmp_name[x->cmp], q, x->a, (int32_t)x->imm);
    else
        emit(b, " setp.%s %%p%d, %%r%d, %u;\n", cmp_name[x->cmp], q, x->a, x->imm);
}

/* One ALU statement; guard is "" or a predicate guard such as "@%p3 " (N_PRED, which uses
 * only the ops before OP_BFE). */
static void emit_alu(sbuf *b, const rk_node *x, const char *guard)
{
    static const char *const name[OP_COUNT] = {
        "add.s32", "sub.s32", "mul.lo.s32", "and.b32", "or.b32", "xor.b32", "shl.b32",
        "shr.u32", "min.u32", "max.u32", "mul.hi.u32", "rem.u32", "div.u32", "bfe.u32",
        "bfi.b32", "shr.s32", "div.s32", "min.s32", "max.s32", "not.b32", "popc.b32",
        "brev.b32"};
    const char *op = name[x->op];
    if (x->op >= OP_NOT)
        emit(b, " %s%s %%r%d, %%r%d;\n", guard, op, x->d, x->a);
    else if (x->op == OP_SHL || x->op == OP_SHR || x->op == OP_SHRS)
        emit(b, " %s%s %%r%d, %%r%d, %u;\n", guard, op, x->d, x->a, x->imm & 31);
    else if (x->op == OP_REM || x->op == OP_DIV || x->op == OP_DIVS)
        emit(b, " %s%s %%r%d, %%r%d, %u;\n", guard, op, x->d, x->a, x->imm % 13 + 1);
    else if (x->op == OP_BFE)
        emit(b, " %s%s %%r%d, %%r%d, %u, %u;\n", guard, op, x->d, x->a, x->imm & 31,
             (x->imm >> 8) % 32 + 1);
    else if (x->op == OP_BFI)
        emit(b, " %s%s %%r%d, %%r%d, %%r%d, %u, %u;\n", guard, op, x->d, x->a, x->b,
             x->imm & 31, (x->imm >> 8) % 32 + 1);
    else if (x->use_imm && (x->op == OP_MINS || x->op == OP_MAXS))
        emit(b, " %s%s %%r%d, %%r%d, %d;\n", guard, op, x->d, x->a, (int32_t)x->imm);
    else if (x->use_imm)
        emit(b, " %s%s %%r%d, %%r%d, %u;\n", guard, op, x->d, x->a, x->imm);
    else
        emit(b, " %s%s %%r%d, %%r%d, %%r%d;\n", guard, op, x->d, x->a, x->b);
}

static void emit_block(sbuf *b, const rk_prog *p, const int *kids, int n, int depth)
{
    for (int i = 0; i < n; i++) {
        const rk_node *x = &p->n[kids[i]];
        switch (x->kind) {
        case N_ALU: emit_alu(b, x, ""); break;
        case N_PRED: {
            int q = b->pred++;
            char guard[24];
            emit_setp_imm(b, q, x);
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
        case N_ATOM: {
            static const char *const op[4] = {"add.u32", "exch.b32", "max.u32", "cas.b32"};
            if (x->op % 4 == 3)
                emit(b, " atom.global.cas.b32 %%r%d, [%%rd4], %%r%d, %%r%d;\n", x->d, x->c, x->b);
            else
                emit(b, " atom.global.%s %%r%d, [%%rd4], %%r%d;\n", op[x->op % 4], x->d, x->b);
            break;
        }
        case N_GEN:
            emit(b, " cvt.u64.u32 %%rd9, %%r31;\n cvta.shared.u64 %%rd9, %%rd9;\n");
            emit(b, " st.u32 [%%rd9], %%r%d;\n ld.u32 %%r24, [%%rd9];\n", x->a);
            emit(b, " cvta.global.u64 %%rd10, %%rd4;\n ld.u32 %%r%d, [%%rd10];\n", x->d);
            emit(b, " add.s32 %%r%d, %%r24, %%r%d;\n", x->d, x->d);
            break;
        case N_V4:
            emit(b, " shr.u32 %%r24, %%r25, 1;\n rem.u32 %%r24, %%r%d, %%r24;\n", x->a);
            emit(b, " mul.wide.u32 %%rd9, %%r24, 16;\n add.s64 %%rd9, %%rd1, %%rd9;\n");
            emit(b, " ld.global.v4.u32 {%%r%d, %%r%d, %%r%d, %%r%d}, [%%rd9];\n", x->d,
                 (x->d + 1) % NREG, (x->d + 2) % NREG, (x->d + 3) % NREG);
            break;
        case N_PST: {
            int q = b->pred++;
            emit_setp_imm(b, q, x);
            emit(b, " @%%p%d st.global.u32 [%%rd4], %%r%d;\n", q, x->b);
            emit(b, " ld.global.u32 %%r%d, [%%rd4];\n", x->d);
            break;
        }
        case N_VOTE: {
            int q = b->pred++;
            emit_setp_imm(b, q, x);
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
            emit(b, " setp.%s %%p%d, %%r%d, %%r%d;\n", cmp_name[x->cmp], q, x->a, x->b);
            emit(b, " selp.b32 %%r%d, %%r%d, %%r%d, %%p%d;\n", x->d, x->c, x->a, q);
            break;
        }
        case N_F64:
            emit(b, " cvt.rn.f64.u32 %%fd1, %%r%d;\n cvt.rn.f64.u32 %%fd2, %%r%d;\n", x->a, x->b);
            emit(b, " mul.rn.f64 %%fd3, %%fd1, 0d3FD0000000000000;\n");
            emit(b, " add.rn.f64 %%fd4, %%fd3, %%fd2;\n cvt.rzi.u32.f64 %%r%d, %%fd4;\n", x->d);
            break;
        case N_PLOG: {
            static const char *const op[3] = {"and", "or", "xor"};
            int q1 = b->pred++, q2 = b->pred++, q3 = b->pred++;
            emit_setp_imm(b, q1, x);
            emit(b, " setp.%s %%p%d, %%r%d, %%r%d;\n", cmp_name[x->cmp], q2, x->b, x->c);
            if (x->op % 4 == 3)
                emit(b, " not.pred %%p%d, %%p%d;\n", q3, q1);
            else
                emit(b, " %s.pred %%p%d, %%p%d, %%p%d;\n", op[x->op % 4], q3, q1, q2);
            emit(b, " selp.b32 %%r%d, %%r%d, %%r%d, %%p%d;\n", x->d, x->a, x->b, q3);
            break;
        }
        case N_WSYNC:
            emit(b, " bar.warp.sync -1;\n");
            break;
        case N_FOP:
            emit(b, " cvt.rn.f32.u32 %%f1, %%r%d;\n cvt.rn.f32.u32 %%f2, %%r%d;\n", x->a, x->b);
            if (x->op & 1)
                emit(b, " fma.rn.f32 %%f4, %%f1, 0f3F000000, %%f2;\n");
            else
                emit(b, " mul.rn.f32 %%f3, %%f1, 0f3F000000;\n add.rn.f32 %%f4, %%f3, %%f2;\n");
            emit(b, " cvt.rzi.u32.f32 %%r%d, %%f4;\n", x->d);
            break;
        case N_IF: {
            int q = b->pred++, l = b->label;
            b->label += 2;
            emit_setp_imm(b, q, x);
            emit(b, " @!%%p%d bra $L_%d;\n", q, l);
            emit_block(b, p, x->kid[0], x->nkid[0], depth + 1);
            if (x->nkid[1] == 0) { /* no else, as nvcc writes it: a short straight-line body
                                    * is what ptx_schedule if-converts (ptx_sched.c) */
                emit(b, "$L_%d:\n", l);
                break;
            }
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
            emit_setp_imm(b, q, x);
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
            int v = x->op % 4;
            if (v == 0) {
                emit(b, " st.shared.u32 [%%r31], %%r%d;\n", x->a);
            } else if (v == 1) {
                emit(b, " st.shared.v2.u32 [%%r19], {%%r%d, %%r%d};\n", x->a, x->b);
            } else if (v == 2) {
                emit(b, " st.shared.u8 [%%r16], %%r%d;\n", x->a);
            } else {
                emit(b, " cvt.u64.u32 %%rd8, %%r%d;\n cvt.u64.u32 %%rd9, %%r%d;\n", x->a, x->b);
                emit(b, " shl.b64 %%rd9, %%rd9, 32;\n or.b64 %%rd8, %%rd8, %%rd9;\n");
                emit(b, " st.shared.u64 [%%r19], %%rd8;\n");
            }
            emit(b, " bar.sync 0;\n mad.lo.s32 %%r24, %%r29, %d, %u;\n", x->c, x->imm);
            emit(b, " rem.u32 %%r24, %%r24, %%r30;\n shl.b32 %%r24, %%r24, %d;\n",
                 v == 0 ? 2 : v == 2 ? 0 : 3);
            emit(b, " add.s32 %%r24, %%r%d, %%r24;\n", v == 0 ? 28 : v == 2 ? 17 : 18);
            if (v == 0) {
                emit(b, " ld.shared.u32 %%r%d, [%%r24];\n", x->d);
            } else if (v == 1) {
                emit(b, " ld.shared.v2.u32 {%%r%d, %%r%d}, [%%r24];\n", x->d, (x->d + 1) % NREG);
            } else if (v == 2) {
                emit(b, " ld.shared.u8 %%r%d, [%%r24];\n", x->d);
            } else {
                emit(b, " ld.shared.u64 %%rd8, [%%r24];\n cvt.u32.u64 %%r%d, %%rd8;\n", x->d);
                emit(b, " shr.u64 %%rd8, %%rd8, 32;\n cvt.u32.u64 %%r%d, %%rd8;\n",
                     (x->d + 1) % NREG);
            }
            emit(b, " bar.sync 0;\n");
            break;
        }
        case N_PC: { /* warps below op produce, the others consume: warp specialisation */
            int q = b->pred++, l = b->label;
            uint32_t np = 32u * (uint32_t)x->op;
            b->label += 2;
            emit(b, " shr.u32 %%r24, %%r29, 5;\n setp.lt.u32 %%p%d, %%r24, %d;\n", q, x->op);
            emit(b, " @!%%p%d bra $L_%d;\n st.shared.u32 [%%r31], %%r%d;\n", q, l, x->a);
            emit(b, " bar.arrive 1, %u;\n bra.uni $L_%d;\n$L_%d:\n", p->block, l + 1, l);
            emit(b, " bar.sync 1, %u;\n add.s32 %%r24, %%r29, %u;\n", p->block, x->imm);
            emit(b, " rem.u32 %%r24, %%r24, %u;\n shl.b32 %%r24, %%r24, 2;\n", np);
            emit(b, " add.s32 %%r24, %%r28, %%r24;\n ld.shared.u32 %%r%d, [%%r24];\n", x->d);
            emit(b, "$L_%d:\n bar.sync 0;\n", l + 1);
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
char *rk_ptx(const rk_prog *p)
{
    sbuf b = {0};
    emit(&b, ".version 8.0\n.target sm_90\n.address_size 64\n\n");
    emit(&b, ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n");
    emit(&b, " .reg .pred %%p<%d>;\n .reg .b32 %%r<32>;\n .reg .f32 %%f<8>;\n", 2 * MAX_NODES);
    emit(&b, " .reg .b64 %%rd<12>;\n .reg .f64 %%fd<8>;\n .shared .align 4 .b32 sm[%u];\n",
         p->block);
    emit(&b, " .shared .align 8 .b32 sm2[%u];\n .shared .align 1 .b8 smb[%u];\n", 2 * p->block,
         p->block);
    emit(&b, " .shared .align 4 .b32 sacc[4];\n");
    emit(&b, " .local .align 4 .b8 loc[64];\n\n mov.u64 %%rd11, loc;\n");
    emit(&b, " ld.param.u64 %%rd1, [pin];\n ld.param.u64 %%rd2, [pout];\n");
    emit(&b, " cvta.to.global.u64 %%rd1, %%rd1;\n cvta.to.global.u64 %%rd2, %%rd2;\n");
    /* linear thread index %r29 and block size %r30, linear block index %r3 and count %r24 */
    static const char *const lin[2][4] = {{"tid", "ntid", "r29", "r30"},
                                          {"ctaid", "nctaid", "r3", "r24"}};
    for (int k = 0; k < 2; k++) {
        const char *const *v = lin[k];
        emit(&b, " mov.u32 %%r12, %%%s.z;\n mov.u32 %%r13, %%%s.y;\n", v[0], v[1]);
        emit(&b, " mov.u32 %%r14, %%%s.y;\n mad.lo.s32 %%r12, %%r12, %%r13, %%r14;\n", v[0]);
        emit(&b, " mov.u32 %%r13, %%%s.x;\n mov.u32 %%r14, %%%s.x;\n", v[1], v[0]);
        emit(&b, " mad.lo.s32 %%%s, %%r12, %%r13, %%r14;\n mov.u32 %%r12, %%%s.y;\n", v[2], v[1]);
        emit(&b, " mul.lo.s32 %%r12, %%r12, %%r13;\n mov.u32 %%r14, %%%s.z;\n", v[1]);
        emit(&b, " mul.lo.s32 %%%s, %%r12, %%r14;\n", v[3]);
    }
    emit(&b, " mov.u32 %%r4, %%r29;\n mad.lo.s32 %%r0, %%r3, %%r30, %%r29;\n");
    emit(&b, " mov.u32 %%r26, %%r0;\n");
    emit(&b, " mul.lo.s32 %%r25, %%r24, %%r30;\n");
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
    const rk_prog *p;
    const char *ptx;
    const uint32_t *in, *want;
    uint64_t seed;
    char *msg;
    size_t msize;
} rcase;

__attribute__((format(printf, 2, 3))) static int fail(const rcase *rc, const char *fmt, ...)
{
    va_list ap;
    const uint32_t *g = rc->p->gdim, *t = rc->p->bdim;
    int k = snprintf(rc->msg, rc->msize, "seed %llu (grid %u,%u,%u, block %u,%u,%u): ",
                     (unsigned long long)rc->seed, g[0], g[1], g[2], t[0], t[1], t[2]);
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < rc->msize)
        vsnprintf(rc->msg + k, rc->msize - (size_t)k, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", rc->ptx);
    return 1;
}

/* Fresh buffers for one run: in (2 words per thread) and out (zeros, then the reduction words'
 * starting values); NULL when out of memory. */
static devmem_t *make_mem(const rcase *rc, uint8_t params[16], uint64_t *out_addr)
{
    uint32_t nt = rc->p->grid * rc->p->block;
    uint64_t nout = ((uint64_t)nt * NREG + NACC) * 4, ain, aout;
    diag_t d = {0};
    devmem_t *mem = devmem_create(0);
    if (!mem || devmem_alloc(mem, (uint64_t)nt * 8, NULL, &ain, &d) != WL_OK ||
        devmem_alloc(mem, nout, NULL, &aout, &d) != WL_OK) {
        devmem_destroy(mem);
        return NULL;
    }
    memcpy(devmem_translate(mem, ain, (uint64_t)nt * 8), rc->in, (size_t)nt * 8);
    uint32_t *o = (uint32_t *)(void *)devmem_translate(mem, aout, nout);
    memset(o, 0, (size_t)nout);
    acc_init(o + (size_t)nt * NREG);
    memcpy(params, &ain, 8);
    memcpy(params + 8, &aout, 8);
    *out_addr = aout;
    return mem;
}

static int compare(const rcase *rc, devmem_t *mem, uint64_t aout, const char *how)
{
    uint32_t nt = rc->p->grid * rc->p->block, nw = nt * NREG + NACC;
    const uint32_t *got =
        (const uint32_t *)(const void *)devmem_translate(mem, aout, (uint64_t)nw * 4);
    for (uint32_t i = 0; i < nw; i++)
        if (got[i] != rc->want[i])
            return fail(rc, "%s: out[%u] = 0x%08x, CPU 0x%08x (the PTX is on stderr)", how, i,
                        got[i], rc->want[i]);
    return 0;
}

/* Branches ptx_schedule if-converted, over every scheduled parse so far (the test checks that
 * the random kernels exercise it). */
static uint64_t rk_ifcvt;

uint64_t rk_if_converted(void)
{
    return rk_ifcvt;
}

static ptx_module *parse(const rcase *rc, int schedule, diag_t *d)
{
    ptx_module *m = NULL;
    if (ptx_parse_string(rc->ptx, strlen(rc->ptx), "random.ptx", &m, d) != WL_OK)
        return NULL;
    if (schedule && ptx_schedule(m, d) != WL_OK) {
        ptx_module_free(m);
        return NULL;
    }
    for (uint32_t f = 0; schedule && f < m->nfuncs; f++)
        for (uint32_t i = 0; i < m->funcs[f].ninsns; i++)
            rk_ifcvt += (m->funcs[f].insns[i].flags & PTX_F_IFCVT) != 0;
    return m;
}

/* The trace of a timed run against its result: it reads back, and holds one record per block
 * and per warp, one issue per warp instruction, and state intervals covering exactly the
 * resident warp-cycles, within the run's cycles. */
static int check_trace(const rcase *rc, const char *path, const timing_result *r,
                       const char *how)
{
    trace_t t;
    diag_t d = {0};
    char dm[1400];
    if (trace_open_read(path, &t, &d) != WL_OK) {
        diag_format(&d, dm, sizeof dm);
        return fail(rc, "%s, trace: %s", how, dm);
    }
    uint64_t covered = 0, nwarps = (uint64_t)rc->p->grid * ((rc->p->block + 31) / 32);
    int bad = 0;
    for (size_t i = 0; i < t.n_intervals && !bad; i++) {
        covered += t.intervals[i].end - t.intervals[i].start;
        bad = t.intervals[i].end > t.total_cycles;
    }
    if (bad || t.total_cycles != r->cycles || t.n_blocks != rc->p->grid ||
        t.n_warps != nwarps || t.n_issues != r->warp_instructions ||
        covered != r->resident_warp_cycles)
        bad = fail(rc,
                   "%s, trace: %llu cycles (run %llu), %zu blocks, %zu warps (%llu), %zu issues "
                   "(%llu), %llu warp-cycles in intervals (resident %llu)%s",
                   how, (unsigned long long)t.total_cycles, (unsigned long long)r->cycles,
                   t.n_blocks, t.n_warps, (unsigned long long)nwarps, t.n_issues,
                   (unsigned long long)r->warp_instructions, (unsigned long long)covered,
                   (unsigned long long)r->resident_warp_cycles,
                   bad ? ", an interval past the end" : "");
    trace_close(&t);
    return bad;
}

/* run_one's flags: timing_config's lazy_always, no_ahead */
#define RK_LAZY 1
#define RK_NO_AHEAD 2

/* Evaluations made by SMs running ahead, over every timed run so far (the test checks that
 * the random kernels exercise it). */
static uint64_t rk_ahead;

uint64_t rk_ahead_evaluations(void)
{
    return rk_ahead;
}

/* One run: functional (policy < 0) or timed (with a trace when trace_path is not NULL; flags:
 * RK_*); 0 when it matches the CPU. A timed run's cycles and stall totals go to sums when it
 * is not NULL (STALL_COUNT + 1 entries). */
static int run_one(const rcase *rc, const arch_t *a, int schedule, int policy, int flags,
                   const char *trace_path, uint64_t *sums)
{
    char how[80], dm[1400];
    snprintf(how, sizeof how, "%s, %s, %s", policy < 0 ? "functional" : "timed",
             policy < 0 ? "-" : sched_policy_name(policy), schedule ? "scheduled" : "PTX order");
    if (policy >= 0 && a->sm_count == 1)
        snprintf(how + strlen(how), sizeof how - strlen(how), ", one SM");
    if (flags & RK_LAZY)
        snprintf(how + strlen(how), sizeof how - strlen(how), ", lazy");
    if (flags & RK_NO_AHEAD)
        snprintf(how + strlen(how), sizeof how - strlen(how), ", no run-ahead");
    diag_t d = {0};
    ptx_module *m = parse(rc, schedule, &d);
    if (!m) {
        diag_format(&d, dm, sizeof dm);
        return fail(rc, "%s: %s", how, dm);
    }
    uint8_t params[16];
    uint64_t aout;
    devmem_t *mem = make_mem(rc, params, &aout);
    int bad = 0;
    if (!mem) {
        bad = fail(rc, "out of memory");
    } else if (policy < 0) {
        launch_config cfg = {.params = params, .params_size = sizeof params};
        memcpy(cfg.grid, rc->p->gdim, sizeof cfg.grid);
        memcpy(cfg.block, rc->p->bdim, sizeof cfg.block);
        if (launch_kernel(m, ptx_find_func(m, "k"), &cfg, mem, NULL, &d) != WL_OK) {
            diag_format(&d, dm, sizeof dm);
            bad = fail(rc, "%s: %s", how, dm);
        } else {
            bad = compare(rc, mem, aout, how);
        }
    } else {
        timing_config cfg = {0};
        memcpy(cfg.grid, rc->p->gdim, sizeof cfg.grid);
        memcpy(cfg.block, rc->p->bdim, sizeof cfg.block);
        cfg.regs_per_thread = 32;
        cfg.policy = policy;
        cfg.params = params;
        cfg.params_size = sizeof params;
        cfg.trace_path = trace_path;
        cfg.lazy_always = (flags & RK_LAZY) != 0;
        cfg.no_ahead = (flags & RK_NO_AHEAD) != 0;
        timing_result r;
        memset(&r, 0, sizeof r);
        if (timing_run(m, ptx_find_func(m, "k"), a, &cfg, mem, &r, &d) != WL_OK) {
            diag_format(&d, dm, sizeof dm);
            bad = fail(rc, "%s: %s", how, dm);
        } else if (!(bad = compare(rc, mem, aout, how))) {
            uint64_t sum = 0;
            for (int i = 0; i < STALL_COUNT; i++)
                sum += r.stalls[i];
            if (sum != r.resident_warp_cycles || r.stalls[STALL_SELECTED] != r.warp_instructions)
                bad = fail(rc, "%s: stall sum %llu, resident %llu, selected %llu, issued %llu",
                           how, (unsigned long long)sum,
                           (unsigned long long)r.resident_warp_cycles,
                           (unsigned long long)r.stalls[STALL_SELECTED],
                           (unsigned long long)r.warp_instructions);
            else if (trace_path)
                bad = check_trace(rc, trace_path, &r, how);
            rk_ahead += r.ahead_evaluations;
            if (sums) {
                memcpy(sums, r.stalls, STALL_COUNT * sizeof *sums);
                sums[STALL_COUNT] = r.cycles;
            }
        }
        timing_result_free(&r);
    }
    devmem_destroy(mem);
    ptx_module_free(m);
    return bad;
}

int rk_check(const rk_prog *p, const arch_t *a, uint64_t seed, char *msg, size_t msize)
{
    uint32_t nt = p->grid * p->block;
    static uint32_t in[MAX_THREADS * 3 * 2], want[MAX_THREADS * 3 * NREG + NACC];
    uint64_t s = seed + 1;
    for (uint32_t i = 0; i < 2 * nt; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        in[i] = (uint32_t)(s >> 32);
        if (i % 5 == 0)
            in[i] &= 0xff; /* small values too, so comparisons go both ways */
    }
    rk_reference(p, in, want);
    char *ptx = rk_ptx(p);
    if (!ptx) {
        snprintf(msg, msize, "out of memory");
        return 1;
    }
    rcase rc = {p, ptx, in, want, seed, msg, msize};
    /* a GPU of one SM holding at most two blocks: the grid runs in waves, and a block that
     * retires hands its slot, warp records and register files to the next (block reuse) */
    arch_t one = *a;
    one.sm_count = one.gpc_count = one.gpc_sms[0] = 1;
    one.max_blocks_per_sm = 2;
    /* the one-SM run writes a trace (a scratch file) that must agree with its result */
    char tpath[] = "/tmp/warplab-randkernel-XXXXXX";
    int fd = mkstemp(tpath);
    if (fd >= 0)
        close(fd);
    /* and the same run without a trace, which looks at fewer warps per cycle (sched_eval's
     * mask path: held and unpicked warps left alone), must give the same cycles and stall
     * totals; so must the same without a trace in the lazy mode from the first cycle
     * (lazy_always), under gto and lrr (their picks in that mode read sp's arrays). The
     * paths without masks, where a scheduler skips held warps once it pays: two-level, and an
     * SM of one scheduler that may hold 128 warps (too many for a mask), lazy from the first
     * cycle, against their traced runs. */
    /* three SMs of one block each: the grid runs in waves, so a run-ahead that retired a block
     * would hand out the next one in another order */
    arch_t few = *a;
    few.sm_count = few.gpc_sms[0] = 3;
    few.gpc_count = 1;
    few.max_blocks_per_sm = 1;
    arch_t wide = one;
    wide.sub_partitions = 1;
    wide.max_warps_per_sm = 128;
    wide.max_threads_per_sm = 128 * wide.warp_size;
    uint64_t with[STALL_COUNT + 1] = {0}, without[STALL_COUNT + 1] = {0},
             lazy[STALL_COUNT + 1] = {0}, lrr_with[STALL_COUNT + 1] = {0},
             lrr_lazy[STALL_COUNT + 1] = {0}, tl_with[STALL_COUNT + 1] = {0},
             tl_lazy[STALL_COUNT + 1] = {0}, wide_with[STALL_COUNT + 1] = {0},
             wide_lazy[STALL_COUNT + 1] = {0}, gto_all[STALL_COUNT + 1] = {0},
             gto_behind[STALL_COUNT + 1] = {0}, gty_with[STALL_COUNT + 1] = {0},
             gty_lazy[STALL_COUNT + 1] = {0}, brr_with[STALL_COUNT + 1] = {0},
             brr_lazy[STALL_COUNT + 1] = {0};
    int bad = run_one(&rc, a, 0, -1, 0, NULL, NULL) || run_one(&rc, a, 1, -1, 0, NULL, NULL) ||
              run_one(&rc, a, 1, SCHED_LRR, 0, NULL, NULL) ||
              run_one(&rc, a, 1, SCHED_GTO, 0, NULL, NULL) ||
              run_one(&rc, a, 1, SCHED_TWO_LEVEL, 0, NULL, NULL) ||
              run_one(&rc, a, 1, SCHED_GTY, 0, NULL, NULL) ||
              run_one(&rc, a, 1, SCHED_BRR, 0, NULL, NULL) ||
              run_one(&rc, a, 0, SCHED_GTO, 0, NULL, NULL) ||
              run_one(&rc, &one, 1, SCHED_GTO, 0, fd >= 0 ? tpath : NULL, with) ||
              run_one(&rc, &one, 1, SCHED_GTO, 0, NULL, without) ||
              run_one(&rc, &one, 1, SCHED_GTO, RK_LAZY, NULL, lazy) ||
              run_one(&rc, &one, 1, SCHED_LRR, 0, fd >= 0 ? tpath : NULL, lrr_with) ||
              run_one(&rc, &one, 1, SCHED_LRR, RK_LAZY, NULL, lrr_lazy) ||
              run_one(&rc, &one, 1, SCHED_GTY, 0, fd >= 0 ? tpath : NULL, gty_with) ||
              run_one(&rc, &one, 1, SCHED_GTY, RK_LAZY, NULL, gty_lazy) ||
              run_one(&rc, &one, 1, SCHED_BRR, 0, fd >= 0 ? tpath : NULL, brr_with) ||
              run_one(&rc, &one, 1, SCHED_BRR, RK_LAZY, NULL, brr_lazy) ||
              run_one(&rc, &one, 1, SCHED_TWO_LEVEL, 0, fd >= 0 ? tpath : NULL, tl_with) ||
              run_one(&rc, &one, 1, SCHED_TWO_LEVEL, RK_LAZY, NULL, tl_lazy) ||
              run_one(&rc, &wide, 1, SCHED_GTO, 0, fd >= 0 ? tpath : NULL, wide_with) ||
              run_one(&rc, &wide, 1, SCHED_GTO, RK_LAZY, NULL, wide_lazy) ||
              run_one(&rc, &few, 1, SCHED_GTO, 0, NULL, gto_all) ||
              run_one(&rc, &few, 1, SCHED_GTO, RK_NO_AHEAD, NULL, gto_behind);
    static const char *const what[] = {"with a trace and without", "with a trace and lazy",
                                       "lrr, with a trace and lazy",
                                       "gty, with a trace and lazy",
                                       "brr, with a trace and lazy",
                                       "two-level, with a trace and lazy",
                                       "one scheduler of 128 warps, with a trace and lazy",
                                       "three SMs, with run-ahead and without"};
    const uint64_t *pair[][2] = {{with, without},
                                 {with, lazy},
                                 {lrr_with, lrr_lazy},
                                 {gty_with, gty_lazy},
                                 {brr_with, brr_lazy},
                                 {tl_with, tl_lazy},
                                 {wide_with, wide_lazy},
                                 {gto_all, gto_behind}};
    for (int q = 0; q < 8 && !bad && fd >= 0; q++)
        for (int i = 0; i <= STALL_COUNT && !bad; i++)
            if (pair[q][0][i] != pair[q][1][i])
                bad = fail(&rc, "%s%s: %s %llu and %llu", q < 7 ? "one SM, " : "", what[q],
                           i < STALL_COUNT ? stall_name(i) : "cycles",
                           (unsigned long long)pair[q][0][i], (unsigned long long)pair[q][1][i]);
    if (fd >= 0)
        unlink(tpath);
    free(ptx);
    return bad;
}
