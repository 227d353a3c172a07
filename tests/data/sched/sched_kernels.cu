// Issue-order kernels for gpu/microbench/sched.cu and the model: which warp a scheduler picks
// when several can issue. Each warp of one block runs 16 segments of m loop iterations, each
// iteration 8 x ILP FFMAs in ILP independent chains (ILP = 1: every FFMA waits for the one
// before; ILP >= 4: one warp alone can issue an FFMA every cycle), and reads %clock (32 bits)
// before the first segment and after each: 17 stamps per warp, written to
// stamps[17 * warp + k] (lane 0), relative to nothing (the reader subtracts the block's first).
// Warp w runs on scheduler w % 4: with a block of 4 n warps, n warps share each scheduler. A
// greedy scheduler lets one warp run its segments alone while the others wait; a round-robin
// one advances them together.
// Regenerate: nvcc -ptx -arch=sm_90 -lineinfo -o sched_kernels.ptx sched_kernels.cu
//   (then the `.file` path made relative to the repository root: sed 's|"/.*/tests/data/|"tests/data/|')

template <int ILP> __device__ void order(unsigned *stamps, float *out, float x, float y, int m)
{
    float a[ILP];
#pragma unroll
    for (int h = 0; h < ILP; h++)
        a[h] = (float)threadIdx.x * 1e-3f + (float)h;
    unsigned s[17];
    __syncthreads();
    s[0] = clock();
#pragma unroll
    for (int k = 0; k < 16; k++) {
#pragma unroll 1
        for (int i = 0; i < m; i++) {
#pragma unroll
            for (int r = 0; r < 8; r++)
#pragma unroll
                for (int h = 0; h < ILP; h++)
                    a[h] = fmaf(a[h], x, y);
        }
        s[k + 1] = clock();
    }
    float sum = 0.f;
#pragma unroll
    for (int h = 0; h < ILP; h++)
        sum += a[h];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if ((threadIdx.x & 31) == 0)
#pragma unroll
        for (int k = 0; k < 17; k++)
            stamps[17 * w + k] = s[k];
}

#define ORDER_KERNEL(name, ILP)                                                                \
    extern "C" __global__ void name(unsigned *stamps, float *out, float x, float y, int m)     \
    {                                                                                          \
        order<ILP>(stamps, out, x, y, m);                                                      \
    }
ORDER_KERNEL(sched_order_i1, 1)
ORDER_KERNEL(sched_order_i2, 2)
ORDER_KERNEL(sched_order_i4, 4)
ORDER_KERNEL(sched_order_i8, 8)
