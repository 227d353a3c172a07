/* Tensor cores (lesson topics 1 and 3): C = A x B for n x n matrices on the tensor cores through
 * the CUDA wmma API (m16n16k16, f16 inputs, f32 accumulate), the classic tiled form. A block of
 * 4 warps computes a 32 x 32 tile of C, one 16 x 16 tile per warp; for each step of 16 along k
 * the block's 128 threads load a 32 x 16 slice of A and a 16 x 32 slice of B (f32 in global
 * memory, row-major), round them to f16 into shared memory, and each warp loads its two
 * fragments from there and issues one mma. tc_gemm keeps one buffer (two barriers per step);
 * tc_gemm_db the same with two shared buffers, so the next slice is stored while the warps
 * compute on the current one (one barrier per step).
 * The inputs the cases give are small integers (affine), exact in f16, whose products and sums
 * stay exact in f32: the result is the same whatever order the tensor cores add in, so the
 * check is exact. Needs n a multiple of 32, grid (n / 32, n / 32), block 128. */
#include <cuda_fp16.h>
#include <mma.h>

#include "wl_probe.h"

using namespace nvcuda;

#define TC_TILE 32 /* the block's tile of C */
#define TC_K 16    /* one mma step along k */

/* Thread t of the block's 128 stores 4 of the 512 elements of each slice, as f16. */
static __device__ __forceinline__ void tc_stage(const float *A, const float *B, int n, int k0,
                                                __half (*sa)[TC_K], __half (*sb)[TC_TILE])
{
    int t = threadIdx.x;
    int row0 = blockIdx.y * TC_TILE, col0 = blockIdx.x * TC_TILE;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        int i = t + 128 * e;            /* 0..511 */
        int ar = i / TC_K, ac = i % TC_K;   /* A slice: 32 rows x 16 */
        int br = i / TC_TILE, bc = i % TC_TILE; /* B slice: 16 rows x 32 */
        sa[ar][ac] = __float2half_rn(A[(size_t)(row0 + ar) * n + k0 + ac]);
        sb[br][bc] = __float2half_rn(B[(size_t)(k0 + br) * n + col0 + bc]);
    }
}

static __device__ __forceinline__ void tc_store(float *C, int n,
                                                const wmma::fragment<wmma::accumulator, 16, 16,
                                                                     16, float> &acc)
{
    int w = threadIdx.x >> 5, wr = w >> 1, wc = w & 1;
    float *c = C + (size_t)(blockIdx.y * TC_TILE + 16 * wr) * n + blockIdx.x * TC_TILE + 16 * wc;
    wmma::store_matrix_sync(c, acc, n, wmma::mem_row_major);
}

extern "C" __global__ void tc_gemm(const float *A, const float *B, float *C, int n)
{
    WL_PROBE_BEGIN();
    __shared__ __half sa[TC_TILE][TC_K];
    __shared__ __half sb[TC_K][TC_TILE];
    int w = threadIdx.x >> 5, wr = w >> 1, wc = w & 1;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < n; k0 += TC_K) {
        tc_stage(A, B, n, k0, sa, sb);
        __syncthreads();
        wmma::load_matrix_sync(fa, &sa[16 * wr][0], TC_K);
        wmma::load_matrix_sync(fb, &sb[0][16 * wc], TC_TILE);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads(); /* before the next slice overwrites this one */
    }
    tc_store(C, n, acc);
    WL_PROBE_END();
}

extern "C" __global__ void tc_gemm_db(const float *A, const float *B, float *C, int n)
{
    WL_PROBE_BEGIN();
    __shared__ __half sa[2][TC_TILE][TC_K];
    __shared__ __half sb[2][TC_K][TC_TILE];
    int w = threadIdx.x >> 5, wr = w >> 1, wc = w & 1;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    tc_stage(A, B, n, 0, sa[0], sb[0]);
    __syncthreads();
    for (int k0 = 0, s = 0; k0 < n; k0 += TC_K, s ^= 1) {
        if (k0 + TC_K < n) /* the next slice into the other buffer, while this one is used */
            tc_stage(A, B, n, k0 + TC_K, sa[s ^ 1], sb[s ^ 1]);
        wmma::load_matrix_sync(fa, &sa[s][16 * wr][0], TC_K);
        wmma::load_matrix_sync(fb, &sb[s][0][16 * wc], TC_TILE);
        wmma::mma_sync(acc, fa, fb, acc);
        /* one barrier: the other buffer is full, and nobody reads this one again before the
         * step after next overwrites it (which comes after that step's barrier) */
        __syncthreads();
    }
    tc_store(C, n, acc);
    WL_PROBE_END();
}
