// Tensor-core kernels written with the CUDA wmma API (nvcuda::wmma, m16n16k16), for
// tests/test_run_cli.c and gpu/microbench/wmma.cu.
// Regenerate: nvcc -ptx -arch=sm_90 -lineinfo -std=c++17 -o wmma_kernels.ptx wmma_kernels.cu
//   (then the `.file` path made relative to the repository root: sed 's|"/.*/tests/data/|"tests/data/|')
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// Fragment layouts: one warp loads the 16 x 16 matrix m (element e = its index, exact in f16
// and f32) and lane l writes its fragment's element i to out[l * 16 + i] (-1 past the
// fragment's num_elements).
template <typename Use, typename T, typename Layout>
__device__ void layout(const T *m, float *out, wmma::layout_t acc_layout)
{
    wmma::fragment<Use, 16, 16, 16, T, Layout> f;
    if constexpr (std::is_same<Layout, void>::value)
        wmma::load_matrix_sync(f, m, 16, acc_layout);
    else
        wmma::load_matrix_sync(f, m, 16);
    int l = threadIdx.x & 31;
    for (int i = 0; i < 16; i++)
        out[l * 16 + i] = i < f.num_elements ? (float)f.x[i] : -1.f;
}
extern "C" __global__ void wl_a_row(const __half *m, float *out)
{
    layout<wmma::matrix_a, __half, wmma::row_major>(m, out, wmma::mem_row_major);
}
extern "C" __global__ void wl_a_col(const __half *m, float *out)
{
    layout<wmma::matrix_a, __half, wmma::col_major>(m, out, wmma::mem_row_major);
}
extern "C" __global__ void wl_b_row(const __half *m, float *out)
{
    layout<wmma::matrix_b, __half, wmma::row_major>(m, out, wmma::mem_row_major);
}
extern "C" __global__ void wl_b_col(const __half *m, float *out)
{
    layout<wmma::matrix_b, __half, wmma::col_major>(m, out, wmma::mem_row_major);
}
extern "C" __global__ void wl_a_row_bf16(const __nv_bfloat16 *m, float *out)
{
    layout<wmma::matrix_a, __nv_bfloat16, wmma::row_major>(m, out, wmma::mem_row_major);
}
extern "C" __global__ void wl_c_row(const float *m, float *out)
{
    layout<wmma::accumulator, float, void>(m, out, wmma::mem_row_major);
}
extern "C" __global__ void wl_c_col(const float *m, float *out)
{
    layout<wmma::accumulator, float, void>(m, out, wmma::mem_col_major);
}

// D = A x B + C per warp tile (tile w: A, B at 256 w, C, D at 256 w), A and B in the given
// layouts (ld 16), C loaded and D stored row-major; the accumulator scaled by s element by
// element before the mma (layout-free, as CUDA code does it).
template <typename T, typename LA, typename LB>
__device__ void tile(const T *A, const T *B, const float *C, float *D, float s, int n)
{
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (w >= n)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, LA> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, LB> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, A + 256 * w, 16);
    wmma::load_matrix_sync(fb, B + 256 * w, 16);
    wmma::load_matrix_sync(fc, C + 256 * w, 16, wmma::mem_row_major);
    for (int i = 0; i < fc.num_elements; i++)
        fc.x[i] *= s;
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D + 256 * w, fc, 16, wmma::mem_row_major);
}
#define TILE(name, T, LA, LB)                                                                  \
    extern "C" __global__ void name(const T *A, const T *B, const float *C, float *D, float s, \
                                    int n)                                                     \
    {                                                                                          \
        tile<T, wmma::LA, wmma::LB>(A, B, C, D, s, n);                                         \
    }
TILE(wmma_rc, __half, row_major, col_major)
TILE(wmma_rr, __half, row_major, row_major)
TILE(wmma_cc, __half, col_major, col_major)
TILE(wmma_cr, __half, col_major, row_major)
TILE(wmma_bf16_rc, __nv_bfloat16, row_major, col_major)

// A 32 x 32 x 32 product from shared memory, stored column-major: four warps, each one 16 x 16
// tile of D over two k steps (ld 32), a zero-filled accumulator.
extern "C" __global__ void wmma_shared(const __half *A, const __half *B, float *D)
{
    __shared__ __half sa[32 * 32], sb[32 * 32];
    for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
        sa[i] = A[i], sb[i] = B[i];
    __syncthreads();
    int w = threadIdx.x >> 5, tm = w >> 1, tn = w & 1;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.f);
    for (int k = 0; k < 32; k += 16) {
        wmma::load_matrix_sync(fa, sa + 16 * tm * 32 + k, 32);      // A row-major, ld 32
        wmma::load_matrix_sync(fb, sb + 16 * tn * 32 + k, 32);      // B column-major, ld 32
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(D + 16 * tn * 32 + 16 * tm, fc, 32, wmma::mem_col_major);
}
