/* Shared-memory bank conflicts (lesson topic 8). 32 banks of 4 bytes; bank = (byte address/4)%32.
 *   bk_transpose32  tile[32][32]: the column read tile[threadIdx.x][k] puts all 32 lanes of a
 *                   warp on one bank (32-way conflict)
 *   bk_transpose33  tile[32][33]: one pad word per row shifts each row by one bank: conflict-free
 *     Both: a width x height matrix (multiples of 32), block (32, 8), grid (width/32, height/32);
 *     out (height x width) = transpose of in.
 *   bk_stride       each lane reads s[(lane * stride + k) % 1024] for k < iters: stride 1 and odd
 *                   strides are conflict-free, stride 2 is 2-way, 32 is 32-way
 *   bk_double       the same with 8-byte doubles (2048 of them, 16 KB): a warp's 256 bytes are
 *                   served in two conflict-free halves at stride 1; stride 2 becomes 2-way, 16 16-way
 * bk_stride / bk_double: one block's table is filled from `in` (1024 words / 2048 doubles),
 * each thread writes one result to out[global thread index]. */
#include "wl_probe.h"

#define BK_TILE 32
#define BK_ROWS 8

/* The transpose body; PAD words of padding per tile row (0: tile[32][32], 1: tile[32][33]). */
template <int PAD>
static __device__ __forceinline__ void bk_transpose(const float *in, float *out, int width,
                                                    int height)
{
    __shared__ float tile[BK_TILE][BK_TILE + PAD];
    int x = blockIdx.x * BK_TILE + threadIdx.x;
    int y = blockIdx.y * BK_TILE + threadIdx.y;
    for (int j = 0; j < BK_TILE; j += BK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * width + x]; /* row: no conflict */
    __syncthreads();
    x = blockIdx.y * BK_TILE + threadIdx.x;
    y = blockIdx.x * BK_TILE + threadIdx.y;
    for (int j = 0; j < BK_TILE; j += BK_ROWS)
        out[(size_t)(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j]; /* column */
}

extern "C" __global__ void bk_transpose32(const float *in, float *out, int width, int height)
{
    WL_PROBE_BEGIN();
    bk_transpose<0>(in, out, width, height);
    WL_PROBE_END();
}

extern "C" __global__ void bk_transpose33(const float *in, float *out, int width, int height)
{
    WL_PROBE_BEGIN();
    bk_transpose<1>(in, out, width, height);
    WL_PROBE_END();
}

#define BK_WORDS 1024

extern "C" __global__ void bk_stride(const unsigned *in, unsigned *out, int stride, int iters)
{
    __shared__ unsigned s[BK_WORDS];
    WL_PROBE_BEGIN();
    for (unsigned j = threadIdx.x; j < BK_WORDS; j += blockDim.x)
        s[j] = in[j];
    __syncthreads();
    unsigned lane = threadIdx.x % 32, acc = threadIdx.x;
    for (int k = 0; k < iters; ++k)
        acc += s[(lane * (unsigned)stride + (unsigned)k) % BK_WORDS] ^ acc;
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    WL_PROBE_END();
}

#define BK_DOUBLES 2048

extern "C" __global__ void bk_double(const double *in, double *out, int stride, int iters)
{
    __shared__ double sd[BK_DOUBLES];
    WL_PROBE_BEGIN();
    for (unsigned j = threadIdx.x; j < BK_DOUBLES; j += blockDim.x)
        sd[j] = in[j];
    __syncthreads();
    unsigned lane = threadIdx.x % 32;
    double acc = 0.0;
    for (int k = 0; k < iters; ++k)
        acc += sd[(lane * (unsigned)stride + (unsigned)k) % BK_DOUBLES];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    WL_PROBE_END();
}
