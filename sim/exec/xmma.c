/* xmma: mma.sync on the tensor cores (PTX ISA 9.7.14.5: mma.sync.aligned.m16n8k16 and
 * m16n8k8, .row.col, f16 or bf16 inputs, f32 accumulators).
 *
 * Hardware: the 32 lanes of a warp hold the fragments of A (16 x K, row-major), B (K x 8,
 * column-major), C and D (16 x 8) in registers, in the layout the PTX ISA fixes (below); one
 * instruction multiplies them on the SM sub-partition's tensor core (HMMA.16816 / HMMA.1688 in
 * SASS). Every lane must execute it (.aligned); the result is D = A x B + C in f32.
 * Model: the warp's fragments are gathered into the three matrices and each D element is
 * formed the way the H200's tensor core was measured to form it (gpu/microbench/mma.cu,
 * gpu/measured/h200/microbench/mma.json: 24,576 random f16 and bf16 results, all equal bit
 * for bit; and wmma's chained accumulations, gpu/microbench/wmma.cu): the K products are exact;
 * the terms (products and the C element) are aligned to the largest exponent E among them,
 * where a term counts with the top of a window of two integer bits (a product of two
 * significands in [1, 2) lies in [1, 4): the sum of its factors' frexp exponents; C: its frexp
 * exponent + 1), and each term keeps its bits down to 2^(E - 27), the rest cut toward zero; the
 * fixed-point sum is rounded to f32 toward zero. Non-finite inputs (inf,
 * NaN) take the IEEE result of the plain sum instead (not measured). Subnormal inputs and
 * results are as the formula gives them (not measured either).
 * Fragment layout (lane = 4 g + t, g = lane >> 2 the group, t = lane & 3 the thread in it):
 *   A, element i of a lane's 2K/8 halves (register i/2, low half first):
 *     row g + 8 ((i >> 1) & 1), column 2t + (i & 1) + 8 (i >> 2)
 *   B, element i of K/8 registers' halves: row (k) 2t + (i & 1) + 8 (i >> 1), column g
 *   C and D, element i of 4 f32 registers: row g + 8 (i >> 1), column 2t + (i & 1)
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "exec_int.h"
#include "ptx.h"
#include "semf.h"

enum { MMA_M = 16, MMA_N = 8, MMA_KMAX = 16 };

/* An input value with its frexp exponent (x = m 2^e, 0.5 <= |m| < 1), read straight from its
 * bits: the adder below needs the exponent of every term, and frexp itself costs a library
 * call per term. */
typedef struct {
    double v;
    int e; /* XM_ZERO for 0, XM_NONFIN for inf and NaN */
} xterm;
#define XM_ZERO INT_MIN
#define XM_NONFIN INT_MAX

/* 2^n for -1022 <= n <= 1023. */
static inline double pow2(int n)
{
    uint64_t b = (uint64_t)(n + 1023) << 52;
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static int frexp_e(double x) /* subnormal inputs only */
{
    int e;
    (void)frexp(x, &e);
    return e;
}

/* f16 or bf16 bits h as a term (exact). */
static inline xterm half_term(uint32_t h, int bf16)
{
    xterm t;
    if (bf16) {
        uint32_t f = h << 16;
        float x;
        memcpy(&x, &f, sizeof x);
        t.v = x;
        uint32_t ex = h >> 7 & 0xff;
        t.e = ex == 0xff ? XM_NONFIN : ex ? (int)ex - 126 : (h & 0x7f) ? frexp_e(t.v) : XM_ZERO;
        return t;
    }
    uint32_t ex = h >> 10 & 31, mt = h & 1023;
    double mag;
    if (ex == 31) {
        mag = mt ? NAN : INFINITY;
        t.e = XM_NONFIN;
    } else if (ex) {
        mag = (double)(1024 + mt) * pow2((int)ex - 25);
        t.e = (int)ex - 14;
    } else {
        mag = (double)mt * 0x1p-24;
        t.e = mt ? frexp_e(mag) : XM_ZERO;
    }
    t.v = h & 0x8000 ? -mag : mag;
    return t;
}

static inline xterm f32_term(uint32_t u)
{
    xterm t;
    t.v = semf_f32(u);
    uint32_t ex = u >> 23 & 0xff;
    t.e = ex == 0xff ? XM_NONFIN : ex ? (int)ex - 126 : (u & 0x7fffff) ? frexp_e(t.v) : XM_ZERO;
    return t;
}

/* x (a double with at most 33 significant bits) rounded to f32 toward zero: within f32's
 * normal range by dropping the low 29 bits of the double's significand. */
static inline uint32_t f32_rz(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint32_t ex = (uint32_t)(b >> 52) & 0x7ff;
    if (ex < 1023 - 126 || ex > 1023 + 127)
        return x == 0 ? 0 : (uint32_t)semf_round(x, 0, SEMF_F32, SEMF_RZ);
    b &= ~((UINT64_C(1) << 29) - 1);
    memcpy(&x, &b, sizeof x);
    return semf_bits32((float)x); /* exact */
}

/* The operands of one multiply, as separate arrays of values and exponents (the loops over k
 * then vectorise): A's rows, B's columns (transposed), C; a zero's exponent is XM_LOW, so that
 * a product with a zero factor never holds the largest exponent; nonfin: the row or column
 * holds an inf or a NaN. */
#define XM_LOW (-100000)
typedef struct {
    double av[MMA_M][MMA_KMAX], bv[MMA_M][MMA_KMAX];
    int ae[MMA_M][MMA_KMAX], be[MMA_M][MMA_KMAX];
    uint8_t anf[MMA_M], bnf[MMA_M];
    xterm c[MMA_M][MMA_M];
} xmul;

static void put_a(xmul *x, int r, int k, xterm t)
{
    x->av[r][k] = t.v;
    x->ae[r][k] = t.e == XM_ZERO ? XM_LOW : t.e == XM_NONFIN ? 0 : t.e;
    x->anf[r] |= t.e == XM_NONFIN;
}

static void put_b(xmul *x, int k, int n, xterm t)
{
    x->bv[n][k] = t.v;
    x->be[n][k] = t.e == XM_ZERO ? XM_LOW : t.e == XM_NONFIN ? 0 : t.e;
    x->bnf[n] |= t.e == XM_NONFIN;
}

/* D[r][n] = C[r][n] + sum of A[r][j] B[j][n] (j < k) as the tensor core adds it (header). */
static uint32_t dot(const xmul *x, int r, int n, int k)
{
    const double *av = x->av[r], *bv = x->bv[n];
    const int *ae = x->ae[r], *be = x->be[n];
    xterm c = x->c[r][n];
    if (x->anf[r] || x->bnf[n] || c.e == XM_NONFIN) { /* inf or NaN: the IEEE plain sum */
        double plain = c.v;
        for (int j = 0; j < k; j++)
            plain += av[j] * bv[j];
        return (uint32_t)semf_round(plain, 0, SEMF_F32, SEMF_RN);
    }
    int e = c.e == XM_ZERO ? XM_LOW : c.e + 1;
    for (int j = 0; j < k; j++)
        e = ae[j] + be[j] > e ? ae[j] + be[j] : e;
    if (e < XM_LOW / 2)
        return 0; /* every term zero: +0 */
    /* terms below 2^e in magnitude: fewer than 2^27 units of 2^(e - 27) each (so each fits
     * an int32), 17 of them an int64; each product is exact in a double, its scaling too, the
     * conversion cuts toward zero */
    double sc = pow2(27 - e);
    int64_t s = (int32_t)(c.v * sc);
    for (int j = 0; j < k; j++)
        s += (int32_t)(av[j] * bv[j] * sc);
    return f32_rz((double)s * pow2(e - 27));
}

/* Element e of vector operand o in lane l (32 bits). */
static uint32_t vget(const xop *o, const uint64_t *regs, int e, int l)
{
    int32_t s = o->vec[e];
    return s < 0 ? 0 : (uint32_t)xslot_get(regs, s, o->vnw[e], l);
}

wl_status xmma_need_all(const exec_block *b, int warp, const xinsn *in, uint32_t m, diag_t *d)
{
    return exec_fail(b, warp, __builtin_ctz(~m), in, WL_EFAULT, d,
                     "%s.sync.aligned needs all 32 lanes of the warp (only lanes 0x%08x execute "
                     "it); it is skipped", isa_name(in->ir->op), m);
}

wl_status xmma_exec(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m,
                    diag_t *d)
{
    if (m != XFULL)
        return xmma_need_all(b, warp, in, m, d);
    const int k = in->mode == PTX_MMA_M16N8K8 ? 8 : 16;
    const int bf16 = in->ir->type[1] == PTX_T_BF16;
    xmul x;
    memset(x.anf, 0, sizeof x.anf);
    memset(x.bnf, 0, sizeof x.bnf);
    const xop *od = &in->o[0], *oa = &in->o[1], *ob = &in->o[2], *oc = &in->o[3];
    for (int l = 0; l < 32; l++) {
        int g = l >> 2, t = l & 3;
        for (int i = 0; i < k / 2; i++) { /* A: k/4 registers of two halves */
            uint32_t r = vget(oa, regs, i >> 1, l);
            put_a(&x, g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2),
                  half_term(i & 1 ? r >> 16 : r & 0xffff, bf16));
        }
        for (int i = 0; i < k / 4; i++) { /* B: k/8 registers of two halves */
            uint32_t r = vget(ob, regs, i >> 1, l);
            put_b(&x, 2 * t + (i & 1) + 8 * (i >> 1), g,
                  half_term(i & 1 ? r >> 16 : r & 0xffff, bf16));
        }
        for (int i = 0; i < 4; i++)
            x.c[g + 8 * (i >> 1)][2 * t + (i & 1)] = f32_term(vget(oc, regs, i, l));
    }
    /* all of C is read before any of D is written (d may name c's registers) */
    for (int l = 0; l < 32; l++) {
        int g = l >> 2, t = l & 3;
        for (int i = 0; i < 4; i++) {
            int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
            int32_t slot = od->vec[i];
            if (slot >= 0)
                xslot_put(regs, slot, od->vnw[i], l, dot(&x, row, col, k));
        }
    }
    return WL_OK;
}

/* wmma.mma.sync m16n16k16: D = A x B + C over the warp's fragments (exec_int.h: xwmma_coord),
 * each 16 x 8 half of D as one HMMA.16816 (the SASS has two), so each element is formed as
 * mma.sync's (dot above); A and B of f16 are read from their first four registers (the
 * second four are copies). Operands: d (2 VEC), a, b (2, or 1 of bf16), c (2). */
wl_status xmma_wmma(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m,
                    diag_t *d)
{
    if (m != XFULL)
        return xmma_need_all(b, warp, in, m, d);
    const int bf16 = in->ir->type[1] == PTX_T_BF16, nx = bf16 ? 1 : 2;
    const xop *od = &in->o[0], *oa = &in->o[2], *ob = &in->o[2 + nx], *oc = &in->o[2 + 2 * nx];
    xmul x;
    memset(x.anf, 0, sizeof x.anf);
    memset(x.bnf, 0, sizeof x.bnf);
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 8; i++) {
            int r, c;
            uint32_t ra = vget(oa, regs, i >> 1, l), rb = vget(ob, regs, i >> 1, l);
            xwmma_coord(0, l, i, &r, &c);
            put_a(&x, r, c, half_term(i & 1 ? ra >> 16 : ra & 0xffff, bf16));
            x.c[r][c] = f32_term(vget(&oc[i >> 2], regs, i & 3, l));
            xwmma_coord(1, l, i, &r, &c);
            put_b(&x, r, c, half_term(i & 1 ? rb >> 16 : rb & 0xffff, bf16));
        }
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 8; i++) {
            int r, c;
            xwmma_coord(0, l, i, &r, &c);
            const xop *o = &od[i >> 2];
            int32_t slot = o->vec[i & 3];
            if (slot >= 0)
                xslot_put(regs, slot, o->vnw[i & 3], l, dot(&x, r, c, 16));
        }
    return WL_OK;
}
