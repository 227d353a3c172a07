/* reference: CPU versions of partial_warps.cu, latency.cu, occupancy_regs.cu, divergence.cu,
 * reduction.cu and ilp.cu (one function per kernel; see reference.h). Each mirrors its kernel's
 * thread-to-data mapping exactly, including which outputs the launch leaves untouched. */
#include "reference.h"
#include "wl_math.h"

#include <math.h>

#define REF_MIN(a, b) ((a) < (b) ? (a) : (b))

/* Elements an `if (i < n)` one-element-per-thread kernel writes: min(n, threads); n >= 0. */
static wl_status ref_covered(const cases_case *c, const cases_arg *a, int ni, uint64_t *out,
                             diag_t *d)
{
    int32_t n = ref_i32(a, ni);
    if (c->grid[1] != 1 || c->grid[2] != 1 || c->block[1] != 1 || c->block[2] != 1)
        return ref_fail(c, d, "needs a 1-D launch");
    if (n < 0)
        return ref_fail(c, d, "needs n >= 0");
    *out = REF_MIN((uint64_t)n, ref_threads_1d(c));
    return WL_OK;
}

wl_status ref_pw_poly(const cases_case *c, cases_arg *a, diag_t *d)
{
    uint64_t m = 0;
    if (ref_covered(c, a, 2, &m, d) || ref_need(c, a, 0, m, d) || ref_need(c, a, 1, m, d))
        return WL_EUSAGE;
    const float *in = (const float *)a[0].p;
    float *out = (float *)a[1].p;
    int iters = ref_i32(a, 3);
    for (uint64_t i = 0; i < m; ++i)
        out[i] = wl_poly(in[i], iters);
    return WL_OK;
}

wl_status ref_lat_copy(const cases_case *c, cases_arg *a, diag_t *d)
{
    int32_t n = ref_i32(a, 2);
    uint64_t m = n > 0 ? (uint64_t)n : 0;
    if (ref_need(c, a, 0, m, d) || ref_need(c, a, 1, m, d))
        return WL_EUSAGE;
    const float *in = (const float *)a[0].p;
    float *out = (float *)a[1].p;
    for (uint64_t i = 0; i < m; ++i)
        out[i] = in[i];
    return WL_OK;
}

#define OR_WORDS 72

/* or_regs_free / _lb4 / _lb8 share one body: 72 words per thread from 72 arrays of n. */
static wl_status ref_or_body(const cases_case *c, cases_arg *a, diag_t *d)
{
    uint64_t m = 0;
    if (ref_covered(c, a, 2, &m, d))
        return WL_EUSAGE;
    uint64_t n = (uint64_t)ref_i32(a, 2);
    if (ref_need(c, a, 0, m ? OR_WORDS * n : 0, d) || ref_need(c, a, 1, m, d))
        return WL_EUSAGE;
    const uint32_t *in = (const uint32_t *)a[0].p;
    uint32_t *out = (uint32_t *)a[1].p;
    int rounds = ref_i32(a, 3);
    for (uint64_t i = 0; i < m; ++i) {
        uint32_t v[OR_WORDS];
        for (int j = 0; j < OR_WORDS; ++j)
            v[j] = in[(uint64_t)j * n + i];
        for (int r = 0; r < rounds; ++r)
            for (int j = 0; j < OR_WORDS; ++j)
                v[j] = v[j] * 2654435761U +
                       (v[(j + 29) % OR_WORDS] ^ (v[(j + 53) % OR_WORDS] >> 3));
        uint32_t s = 0;
        for (int j = 0; j < OR_WORDS; ++j)
            s ^= v[j] + (uint32_t)j;
        out[i] = s;
    }
    return WL_OK;
}

wl_status ref_or_regs_free(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_or_body(c, a, d);
}

wl_status ref_or_regs_lb4(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_or_body(c, a, d);
}

wl_status ref_or_regs_lb8(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_or_body(c, a, d);
}

/* The divergence kernels: out[i] = f(tid, i, wl_mix(in[i])) for i < min(n, threads). */
typedef enum { DIV_NONE, DIV_PARITY, DIV_NESTED, DIV_WARP, DIV_SHORT, DIV_LOOP_LANE,
               DIV_LOOP_WARP } ref_div_kind;

static wl_status ref_div(const cases_case *c, cases_arg *a, diag_t *d, ref_div_kind kind)
{
    uint64_t m = 0;
    if (ref_covered(c, a, 2, &m, d) || ref_need(c, a, 0, m, d) || ref_need(c, a, 1, m, d))
        return WL_EUSAGE;
    const uint32_t *in = (const uint32_t *)a[0].p;
    uint32_t *out = (uint32_t *)a[1].p;
    int iters = ref_i32(a, 3);
    for (uint64_t i = 0; i < m; ++i) {
        uint32_t tid = (uint32_t)(i % c->block[0]);
        uint32_t x = wl_mix(in[i]);
        switch (kind) {
        case DIV_NONE: x = wl_path_a(x, iters); break;
        case DIV_PARITY: x = tid % 2 == 0 ? wl_path_a(x, iters) : wl_path_b(x, iters); break;
        case DIV_NESTED:
            if (tid & 1)
                x = (tid & 2) ? wl_path_a(x, iters) : wl_path_b(x, iters);
            else
                x = (tid & 2) ? wl_path_c(x, iters) : wl_path_d(x, iters);
            break;
        case DIV_WARP:
            x = (tid / 32) % 2 == 0 ? wl_path_a(x, iters) : wl_path_b(x, iters);
            break;
        case DIV_SHORT: x = wl_short_branch(x, iters); break;
        case DIV_LOOP_LANE:
            x = wl_path_a(x, (int)(((tid % 32) + 1) * (uint32_t)iters / 32));
            break;
        case DIV_LOOP_WARP:
            x = wl_path_a(x, (int)((((uint32_t)i / 32) % 32 + 1) * (uint32_t)iters / 32));
            break;
        }
        out[i] = x;
    }
    return WL_OK;
}

#define REF_DIV(name, kind)                                                                       \
    wl_status ref_##name(const cases_case *c, cases_arg *a, diag_t *d)                            \
    {                                                                                             \
        return ref_div(c, a, d, kind);                                                            \
    }
REF_DIV(div_none, DIV_NONE)
REF_DIV(div_parity, DIV_PARITY)
REF_DIV(div_nested, DIV_NESTED)
REF_DIV(div_warp, DIV_WARP)
REF_DIV(div_short, DIV_SHORT)
REF_DIV(div_loop_lane, DIV_LOOP_LANE)
REF_DIV(div_loop_warp, DIV_LOOP_WARP)
#undef REF_DIV

/* Block sums: out[b] = sum of in[b*B .. b*B+B-1] (wrapping); B a power of two in 64..1024. */
static wl_status ref_red(const cases_case *c, cases_arg *a, diag_t *d, unsigned smem_words)
{
    unsigned bs = c->block[0];
    if (c->block[1] != 1 || c->block[2] != 1 || bs < 64 || bs > 1024 || (bs & (bs - 1)))
        return ref_fail(c, d, "needs a 1-D block, a power of two from 64 to 1024");
    if (c->smem < 4u * smem_words)
        return ref_fail(c, d, "needs --smem of 4 bytes per shared word (4 x blockDim.x)");
    uint64_t g = c->grid[0];
    if (ref_need(c, a, 0, g * bs, d) || ref_need(c, a, 1, g, d))
        return WL_EUSAGE;
    const uint32_t *in = (const uint32_t *)a[0].p;
    uint32_t *out = (uint32_t *)a[1].p;
    for (uint64_t b = 0; b < g; ++b) {
        uint32_t s = 0;
        for (unsigned t = 0; t < bs; ++t)
            s += in[b * bs + t];
        out[b] = s;
    }
    return WL_OK;
}

wl_status ref_red_interleaved(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_red(c, a, d, c->block[0]);
}

wl_status ref_red_sequential(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_red(c, a, d, c->block[0]);
}

wl_status ref_red_shuffle(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_red(c, a, d, c->block[0] / 32);
}

/* ilp_dep / ilp_indep4: every thread, no bounds check: buffers need grid.x * block.x. */
static wl_status ref_ilp(const cases_case *c, cases_arg *a, diag_t *d, int chains)
{
    uint64_t t = ref_threads_1d(c);
    if (c->grid[1] != 1 || c->grid[2] != 1 || c->block[1] != 1 || c->block[2] != 1)
        return ref_fail(c, d, "needs a 1-D launch");
    if (ref_need(c, a, 0, t, d) || ref_need(c, a, 1, t, d))
        return WL_EUSAGE;
    const float *in = (const float *)a[0].p;
    float *out = (float *)a[1].p;
    int iters = ref_i32(a, 2);
    for (uint64_t i = 0; i < t; ++i)
        out[i] = chains == 1 ? wl_chain1(in[i], iters) : wl_chain4(in[i], iters);
    return WL_OK;
}

wl_status ref_ilp_dep(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_ilp(c, a, d, 1);
}

wl_status ref_ilp_indep4(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_ilp(c, a, d, 4);
}
