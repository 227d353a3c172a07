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

#include "exec_int.h"
#include "semf.h"

enum { MMA_M = 16, MMA_N = 8, MMA_KMAX = 16 };

/* One D element: c + sum of a[j] b[j] (j < k) as the tensor core adds it (header). */
static uint32_t dot(const double *a, const double *b, int bstride, int k, double c)
{
    int e = INT_MIN, ex, finite = isfinite(c);
    double plain = c;
    for (int j = 0; j < k; j++) {
        double x = a[j], y = b[j * bstride];
        finite &= isfinite(x) && isfinite(y);
        plain += x * y;
        if (x != 0 && y != 0) {
            int ea, eb;
            (void)frexp(x, &ea);
            (void)frexp(y, &eb);
            e = ea + eb > e ? ea + eb : e;
        }
    }
    if (!finite)
        return (uint32_t)semf_round(plain, 0, SEMF_F32, SEMF_RN);
    if (c != 0) { /* C counts one above its exponent, like a product of two significands
                   * in [1, 2): every term sits in a window of 2 integer bits */
        (void)frexp(c, &ex);
        e = ex + 1 > e ? ex + 1 : e;
    }
    if (e == INT_MIN)
        return 0; /* every term zero: +0 */
    /* terms below 2^e in magnitude: at most 2^27 units of 2^(e - 27) each, 17 of them fit */
    int64_t s = (int64_t)ldexp(c, 27 - e);
    for (int j = 0; j < k; j++)
        s += (int64_t)ldexp(a[j] * b[j * bstride], 27 - e);
    return (uint32_t)semf_round(ldexp((double)s, e - 27), 0, SEMF_F32, SEMF_RZ);
}

/* Element e of vector operand o in lane l (32 bits). */
static uint32_t vget(const xop *o, const uint64_t *regs, int e, int l)
{
    int32_t s = o->vec[e];
    return s < 0 ? 0 : (uint32_t)xslot_get(regs, s, o->vnw[e], l);
}

wl_status xmma_exec(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m,
                    diag_t *d)
{
    if (m != XFULL) {
        int lane = m ? __builtin_ctz(~m) : 0;
        return exec_fail(b, warp, lane, in, WL_EFAULT, d,
                         "mma.sync.aligned needs all 32 lanes of the warp (only lanes 0x%08x "
                         "execute it); it is skipped", m);
    }
    const int k = in->mode == PTX_MMA_M16N8K8 ? 8 : 16;
    const semf_fmt ab = in->ir->type[1] == PTX_T_BF16 ? SEMF_BF16 : SEMF_F16;
    double A[MMA_M][MMA_KMAX], B[MMA_KMAX][MMA_N], C[MMA_M][MMA_N];
    const xop *od = &in->o[0], *oa = &in->o[1], *ob = &in->o[2], *oc = &in->o[3];
    for (int l = 0; l < 32; l++) {
        int g = l >> 2, t = l & 3;
        for (int i = 0; i < k / 2; i++) { /* A: k/4 registers of two halves */
            uint32_t r = vget(oa, regs, i >> 1, l);
            A[g + 8 * ((i >> 1) & 1)][2 * t + (i & 1) + 8 * (i >> 2)] =
                semf_decode(i & 1 ? r >> 16 : r & 0xffff, ab);
        }
        for (int i = 0; i < k / 4; i++) { /* B: k/8 registers of two halves */
            uint32_t r = vget(ob, regs, i >> 1, l);
            B[2 * t + (i & 1) + 8 * (i >> 1)][g] = semf_decode(i & 1 ? r >> 16 : r & 0xffff, ab);
        }
        for (int i = 0; i < 4; i++)
            C[g + 8 * (i >> 1)][2 * t + (i & 1)] = semf_f32(vget(oc, regs, i, l));
    }
    /* all of C is read before any of D is written (d may name c's registers) */
    for (int l = 0; l < 32; l++) {
        int g = l >> 2, t = l & 3;
        for (int i = 0; i < 4; i++) {
            int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
            int32_t slot = od->vec[i];
            if (slot >= 0)
                xslot_put(regs, slot, od->vnw[i], l, dot(A[row], &B[0][col], MMA_N, k, C[row][col]));
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
    if (m != XFULL) {
        int lane = __builtin_ctz(~m);
        return exec_fail(b, warp, lane, in, WL_EFAULT, d,
                         "wmma.mma.sync.aligned needs all 32 lanes of the warp (only lanes "
                         "0x%08x execute it); it is skipped", m);
    }
    const int bf16 = in->ir->type[1] == PTX_T_BF16, nx = bf16 ? 1 : 2;
    const semf_fmt ab = bf16 ? SEMF_BF16 : SEMF_F16;
    const xop *od = &in->o[0], *oa = &in->o[2], *ob = &in->o[2 + nx], *oc = &in->o[2 + 2 * nx];
    double A[16][16], B[16][16], C[16][16];
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 8; i++) {
            int r, c;
            uint32_t ra = vget(oa, regs, i >> 1, l), rb = vget(ob, regs, i >> 1, l);
            xwmma_coord(0, l, i, &r, &c);
            A[r][c] = semf_decode(i & 1 ? ra >> 16 : ra & 0xffff, ab);
            C[r][c] = semf_f32(vget(&oc[i >> 2], regs, i & 3, l));
            xwmma_coord(1, l, i, &r, &c);
            B[r][c] = semf_decode(i & 1 ? rb >> 16 : rb & 0xffff, ab);
        }
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 8; i++) {
            int r, c;
            xwmma_coord(0, l, i, &r, &c);
            const xop *o = &od[i >> 2];
            int32_t slot = o->vec[i & 3];
            if (slot >= 0)
                xslot_put(regs, slot, o->vnw[i & 3], l, dot(A[r], &B[0][c], 16, 16, C[r][c]));
        }
    return WL_OK;
}
