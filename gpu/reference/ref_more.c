/* reference: CPU versions of coalescing.cu, bank_conflicts.cu, scheduling.cu, warp_spec.cu,
 * syncwarp.cu and tensor_gemm.cu (one function per kernel; see reference.h). */
#include "reference.h"
#include "wl_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int ref_is_1d(const cases_case *c)
{
    return c->grid[1] == 1 && c->grid[2] == 1 && c->block[1] == 1 && c->block[2] == 1;
}

/* min(n, threads) for the one-element-per-thread coalescing kernels; -1 if n < 0 or not 1-D. */
static int64_t ref_count(const cases_case *c, const cases_arg *a, int ni)
{
    int32_t n = ref_i32(a, ni);
    if (n < 0 || !ref_is_1d(c))
        return -1;
    uint64_t t = ref_threads_1d(c);
    return (int64_t)((uint64_t)n < t ? (uint64_t)n : t);
}

static float ref_norm(float x, float y, float z)
{
    return fmaf(z, z, fmaf(y, y, x * x));
}

wl_status ref_co_aos_norm(const cases_case *c, cases_arg *a, diag_t *d)
{
    int64_t m = ref_count(c, a, 2);
    if (m < 0)
        return ref_fail(c, d, "needs a 1-D launch and n >= 0");
    if (ref_need(c, a, 0, 3 * (uint64_t)m, d) || ref_need(c, a, 1, (uint64_t)m, d))
        return WL_EUSAGE;
    const float *xyz = (const float *)a[0].p;
    float *out = (float *)a[1].p;
    for (int64_t i = 0; i < m; ++i)
        out[i] = ref_norm(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
    return WL_OK;
}

wl_status ref_co_soa_norm(const cases_case *c, cases_arg *a, diag_t *d)
{
    int64_t m = ref_count(c, a, 4);
    if (m < 0)
        return ref_fail(c, d, "needs a 1-D launch and n >= 0");
    for (int k = 0; k < 4; ++k)
        if (ref_need(c, a, k, (uint64_t)m, d))
            return WL_EUSAGE;
    const float *xs = (const float *)a[0].p, *ys = (const float *)a[1].p;
    const float *zs = (const float *)a[2].p;
    float *out = (float *)a[3].p;
    for (int64_t i = 0; i < m; ++i)
        out[i] = ref_norm(xs[i], ys[i], zs[i]);
    return WL_OK;
}

wl_status ref_co_strided(const cases_case *c, cases_arg *a, diag_t *d)
{
    int64_t m = ref_count(c, a, 2);
    int32_t mask = ref_i32(a, 4);
    if (m < 0 || mask < 0)
        return ref_fail(c, d, "needs a 1-D launch, n >= 0 and mask >= 0");
    if (ref_need(c, a, 0, (uint64_t)mask + 1, d) || ref_need(c, a, 1, (uint64_t)m, d))
        return WL_EUSAGE;
    const float *in = (const float *)a[0].p;
    float *out = (float *)a[1].p;
    uint32_t stride = (uint32_t)ref_i32(a, 3);
    for (int64_t i = 0; i < m; ++i)
        out[i] = in[((uint32_t)i * stride) & (uint32_t)mask];
    return WL_OK;
}

wl_status ref_co_offset(const cases_case *c, cases_arg *a, diag_t *d)
{
    int64_t m = ref_count(c, a, 2);
    int32_t off = ref_i32(a, 3);
    if (m < 0 || off < 0)
        return ref_fail(c, d, "needs a 1-D launch, n >= 0 and offset >= 0");
    if (ref_need(c, a, 0, (uint64_t)m + (uint64_t)off, d) || ref_need(c, a, 1, (uint64_t)m, d))
        return WL_EUSAGE;
    const float *in = (const float *)a[0].p;
    float *out = (float *)a[1].p;
    for (int64_t i = 0; i < m; ++i)
        out[i] = in[i + off];
    return WL_OK;
}

/* Both transposes: block (32, 8), grid (width/32, height/32); out = in transposed. */
static wl_status ref_transpose(const cases_case *c, cases_arg *a, diag_t *d)
{
    int32_t w = ref_i32(a, 2), h = ref_i32(a, 3);
    if (c->block[0] != 32 || c->block[1] != 8 || c->block[2] != 1 || c->grid[2] != 1)
        return ref_fail(c, d, "needs --block 32,8");
    if (w <= 0 || h <= 0 || (uint64_t)w != 32ull * c->grid[0] ||
        (uint64_t)h != 32ull * c->grid[1])
        return ref_fail(c, d, "needs width = 32 x grid.x and height = 32 x grid.y");
    uint64_t n = (uint64_t)w * (uint64_t)h;
    if (ref_need(c, a, 0, n, d) || ref_need(c, a, 1, n, d))
        return WL_EUSAGE;
    const float *in = (const float *)a[0].p;
    float *out = (float *)a[1].p;
    for (uint64_t r = 0; r < (uint64_t)h; ++r)
        for (uint64_t col = 0; col < (uint64_t)w; ++col)
            out[col * (uint64_t)h + r] = in[r * (uint64_t)w + col];
    return WL_OK;
}

wl_status ref_bk_transpose32(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_transpose(c, a, d);
}

wl_status ref_bk_transpose33(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_transpose(c, a, d);
}

wl_status ref_bk_stride(const cases_case *c, cases_arg *a, diag_t *d)
{
    uint64_t t = ref_threads_1d(c);
    if (!ref_is_1d(c))
        return ref_fail(c, d, "needs a 1-D launch");
    if (ref_need(c, a, 0, 1024, d) || ref_need(c, a, 1, t, d))
        return WL_EUSAGE;
    const uint32_t *s = (const uint32_t *)a[0].p;
    uint32_t *out = (uint32_t *)a[1].p;
    uint32_t stride = (uint32_t)ref_i32(a, 2);
    int iters = ref_i32(a, 3);
    for (uint64_t i = 0; i < t; ++i) {
        uint32_t tid = (uint32_t)(i % c->block[0]), lane = tid % 32, acc = tid;
        for (int k = 0; k < iters; ++k)
            acc += s[(lane * stride + (uint32_t)k) % 1024] ^ acc;
        out[i] = acc;
    }
    return WL_OK;
}

wl_status ref_bk_double(const cases_case *c, cases_arg *a, diag_t *d)
{
    uint64_t t = ref_threads_1d(c);
    if (!ref_is_1d(c))
        return ref_fail(c, d, "needs a 1-D launch");
    if (ref_need(c, a, 0, 2048, d) || ref_need(c, a, 1, t, d))
        return WL_EUSAGE;
    const double *s = (const double *)a[0].p;
    double *out = (double *)a[1].p;
    uint32_t stride = (uint32_t)ref_i32(a, 2);
    int iters = ref_i32(a, 3);
    for (uint64_t i = 0; i < t; ++i) {
        uint32_t lane = (uint32_t)(i % c->block[0]) % 32;
        double acc = 0.0;
        for (int k = 0; k < iters; ++k)
            acc += s[(lane * stride + (uint32_t)k) % 2048];
        out[i] = acc;
    }
    return WL_OK;
}

static wl_status ref_sched(const cases_case *c, cases_arg *a, diag_t *d, int uneven)
{
    uint64_t t = ref_threads_1d(c);
    if (!ref_is_1d(c))
        return ref_fail(c, d, "needs a 1-D launch");
    if (ref_need(c, a, 0, t, d))
        return WL_EUSAGE;
    uint32_t *out = (uint32_t *)a[0].p;
    int iters = ref_i32(a, 1);
    for (uint64_t i = 0; i < t; ++i) {
        uint32_t b = (uint32_t)(i / c->block[0]);
        int trip = uneven ? (int)((b % 8 + 1) * (uint32_t)iters / 8) : iters;
        out[i] = wl_path_a(wl_mix((uint32_t)i), trip);
    }
    return WL_OK;
}

wl_status ref_sched_uniform(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_sched(c, a, d, 0);
}

wl_status ref_sched_uneven(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_sched(c, a, d, 1);
}

static void ref_ws_apply(const uint32_t *in, uint32_t *out, uint64_t n, int rounds)
{
    for (uint64_t i = 0; i < n; ++i)
        out[i] = wl_path_a(in[i], rounds);
}

wl_status ref_ws_pipeline(const cases_case *c, cases_arg *a, diag_t *d)
{
    int32_t nchunks = ref_i32(a, 2), pw = ref_i32(a, 3);
    unsigned bs = c->block[0];
    if (!ref_is_1d(c) || bs % 32 != 0 || bs > 1024)
        return ref_fail(c, d, "needs a 1-D launch, blockDim.x a multiple of 32");
    if (pw < 1 || (unsigned)pw * 32 >= bs)
        return ref_fail(c, d, "needs 1 <= producer_warps < warps per block (else it deadlocks)");
    if (nchunks < 0)
        return ref_fail(c, d, "needs nchunks >= 0");
    uint64_t n = (uint64_t)nchunks * 1024;
    if (ref_need(c, a, 0, n, d) || ref_need(c, a, 1, n, d))
        return WL_EUSAGE;
    /* Block b handles chunks b, b + grid, ...: together every chunk < nchunks. */
    ref_ws_apply((const uint32_t *)a[0].p, (uint32_t *)a[1].p, n, ref_i32(a, 4));
    return WL_OK;
}

wl_status ref_ws_plain(const cases_case *c, cases_arg *a, diag_t *d)
{
    int32_t n = ref_i32(a, 2);
    if (!ref_is_1d(c) || n < 0)
        return ref_fail(c, d, "needs a 1-D launch and n >= 0");
    if (ref_need(c, a, 0, (uint64_t)n, d) || ref_need(c, a, 1, (uint64_t)n, d))
        return WL_EUSAGE;
    ref_ws_apply((const uint32_t *)a[0].p, (uint32_t *)a[1].p, (uint64_t)n, ref_i32(a, 3));
    return WL_OK;
}

static wl_status ref_its_shape(const cases_case *c, diag_t *d)
{
    if (!ref_is_1d(c) || c->block[0] % 32 != 0 || c->block[0] > 1024)
        return ref_fail(c, d, "needs a 1-D launch, blockDim.x a multiple of 32 up to 1024");
    return WL_OK;
}

wl_status ref_its_swap(const cases_case *c, cases_arg *a, diag_t *d)
{
    uint64_t t = ref_threads_1d(c);
    if (ref_its_shape(c, d) || ref_need(c, a, 0, t, d) || ref_need(c, a, 1, t, d))
        return WL_EUSAGE;
    const uint32_t *in = (const uint32_t *)a[0].p;
    uint32_t *out = (uint32_t *)a[1].p;
    int iters = ref_i32(a, 2);
    for (uint64_t w = 0; w < t / 32; ++w) {
        uint32_t x[32], y[32];
        memcpy(x, in + w * 32, sizeof x);
        for (int k = 0; k < iters; ++k) {
            for (int l = 0; l < 16; ++l) {
                y[l] = x[l + 16] * 3U + (uint32_t)k;
                y[l + 16] = x[l] ^ (uint32_t)k;
            }
            memcpy(x, y, sizeof x);
        }
        memcpy(out + w * 32, x, sizeof x);
    }
    return WL_OK;
}

wl_status ref_its_warp_sum(const cases_case *c, cases_arg *a, diag_t *d)
{
    uint64_t t = ref_threads_1d(c);
    if (ref_its_shape(c, d) || ref_need(c, a, 0, t, d) || ref_need(c, a, 1, t / 32, d))
        return WL_EUSAGE;
    const uint32_t *in = (const uint32_t *)a[0].p;
    uint32_t *out = (uint32_t *)a[1].p;
    for (uint64_t w = 0; w < t / 32; ++w) {
        uint32_t s = 0;
        for (int l = 0; l < 32; ++l)
            s += in[w * 32 + (uint64_t)l];
        out[w] = s;
    }
    return WL_OK;
}

/* x rounded to the nearest f16 value, ties to even (__float2half_rn): 11 significant bits,
 * spacing 2^-24 below f16's normal range, infinity past its largest finite value 65504. */
static float ref_f16(float x)
{
    if (!isfinite(x) || x == 0.0f)
        return x;
    int e;
    frexpf(x, &e); /* x = m 2^e, 0.5 <= |m| < 1 */
    int q = e - 11 < -24 ? -24 : e - 11;
    float r = ldexpf(rintf(ldexpf(x, -q)), q); /* exact scalings; rintf rounds to even */
    return fabsf(r) > 65504.0f ? copysignf(INFINITY, x) : r;
}

/* tc_gemm / tc_gemm_db (tensor_gemm.cu): C = A x B, n x n row-major, A and B rounded to f16
 * as the kernels store them, the products summed in double and rounded once. The tensor cores
 * add in their own order with f32 sums: the same result exactly when every partial sum is exact
 * in f32 (the cases' small-integer inputs), else within a few f32 ulps per step. */
static wl_status ref_tc(const cases_case *c, cases_arg *a, diag_t *d)
{
    int32_t n = ref_i32(a, 3);
    if (n <= 0 || n % 32 != 0 || c->grid[0] != (unsigned)n / 32 ||
        c->grid[1] != (unsigned)n / 32 || c->grid[2] != 1 || c->block[0] != 128 ||
        c->block[1] != 1 || c->block[2] != 1)
        return ref_fail(c, d, "needs n a positive multiple of 32, grid (n/32, n/32), block 128");
    uint64_t nn = (uint64_t)n * (uint64_t)n;
    if (ref_need(c, a, 0, nn, d) || ref_need(c, a, 1, nn, d) || ref_need(c, a, 2, nn, d))
        return WL_EUSAGE;
    const float *A = (const float *)a[0].p, *B = (const float *)a[1].p;
    float *C = (float *)a[2].p;
    float *bt = (float *)malloc(nn * sizeof *bt); /* B rounded and transposed: rows in order */
    if (!bt)
        return ref_fail(c, d, "out of host memory");
    for (uint64_t k = 0; k < (uint64_t)n; ++k)
        for (uint64_t j = 0; j < (uint64_t)n; ++j)
            bt[j * (uint64_t)n + k] = ref_f16(B[k * (uint64_t)n + j]);
    float *ar = (float *)malloc((size_t)n * sizeof *ar);
    if (!ar) {
        free(bt);
        return ref_fail(c, d, "out of host memory");
    }
    for (uint64_t i = 0; i < (uint64_t)n; ++i) {
        for (uint64_t k = 0; k < (uint64_t)n; ++k)
            ar[k] = ref_f16(A[i * (uint64_t)n + k]);
        for (uint64_t j = 0; j < (uint64_t)n; ++j) {
            const float *b = bt + j * (uint64_t)n;
            double s = 0.0;
            for (uint64_t k = 0; k < (uint64_t)n; ++k)
                s += (double)ar[k] * (double)b[k];
            C[i * (uint64_t)n + j] = (float)s;
        }
    }
    free(ar);
    free(bt);
    return WL_OK;
}

wl_status ref_tc_gemm(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_tc(c, a, d);
}

wl_status ref_tc_gemm_db(const cases_case *c, cases_arg *a, diag_t *d)
{
    return ref_tc(c, a, d);
}
