/* Lesson 8 exercise: the tiled transpose of gpu/kernels/bank_conflicts.cu (bk_transpose32).
 *
 * A block (32, 8) copies a 32 x 32 tile into shared memory row by row (conflict-free), then
 * reads it column by column: tile[threadIdx.x][threadIdx.y + j] puts the 32 lanes of a warp on
 * words 32 apart, all in the same bank: a 32-way conflict.
 * Task: keep the name and the result, and remove the bank conflict (hint: the bank of word w is
 * w % 32; change the shape of the tile so that column neighbours fall in different banks).
 * Check: warplab lesson 8 --check YOUR_COPY.cu   (launch: --block 32,8) */
#include "wl_probe.h"

#define BK_TILE 32
#define BK_ROWS 8

extern "C" __global__ void bk_transpose32(const float *in, float *out, int width, int height)
{
    __shared__ float tile[BK_TILE][BK_TILE];
    WL_PROBE_BEGIN();
    int x = blockIdx.x * BK_TILE + threadIdx.x;
    int y = blockIdx.y * BK_TILE + threadIdx.y;
    for (int j = 0; j < BK_TILE; j += BK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * BK_TILE + threadIdx.x;
    y = blockIdx.x * BK_TILE + threadIdx.y;
    for (int j = 0; j < BK_TILE; j += BK_ROWS)
        out[(size_t)(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
    WL_PROBE_END();
}
