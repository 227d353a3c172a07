// Tensor-core kernels for tests/test_run_cli.c and gpu/microbench/mma.cu: one warp per tile,
// D = A x B + C with mma.sync (PTX ISA 9.7.14.5.8: A 16 x K row-major, B K x 8 column-major,
// C and D 16 x 8 f32, row-major), the fragments loaded in the layout the PTX ISA gives.
// Tile w: A at A + 16 K w, B at B + 8 K w (element (k, n) at k + K n), C and D at 128 w.
// Regenerate: nvcc -ptx -arch=sm_90 -lineinfo -o mma_kernels.ptx mma_kernels.cu
//   (then the `.file` path made relative to the repository root: sed 's|"/.*/tests/data/|"tests/data/|')
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T> __device__ unsigned short bits16(T v);
template <> __device__ unsigned short bits16(__half v) { return __half_as_ushort(v); }
template <> __device__ unsigned short bits16(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }

template <int K, typename T> __device__ void tile(const T *A, const T *B, const float *C, float *D)
{
    int l = threadIdx.x & 31, g = l >> 2, t = l & 3;
    unsigned a[4] = {0, 0, 0, 0}, b[2] = {0, 0};
    float c[4], d[4];
    for (int i = 0; i < K / 2; i++) { // A: element i in register i / 2, low half first
        int row = g + 8 * ((i >> 1) & 1), col = 2 * t + (i & 1) + 8 * (i >> 2);
        a[i >> 1] |= (unsigned)bits16(A[row * K + col]) << (16 * (i & 1));
    }
    for (int i = 0; i < K / 4; i++) { // B: row (k) 2t + (i & 1) + 8 (i >> 1), column g
        int k = 2 * t + (i & 1) + 8 * (i >> 1);
        b[i >> 1] |= (unsigned)bits16(B[k + K * g]) << (16 * (i & 1));
    }
    for (int i = 0; i < 4; i++)
        c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
    if (K == 16) {
        if (sizeof(T) == 2 && __is_same(T, __half))
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                         : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                           "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
        else
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                         : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                           "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    } else {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5}, {%6}, {%7,%8,%9,%10};"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
                       "f"(c[3]));
    }
    for (int i = 0; i < 4; i++)
        D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
}

#define TILE_KERNEL(name, K, T)                                                                \
    extern "C" __global__ void name(const T *A, const T *B, const float *C, float *D, int n)  \
    {                                                                                          \
        int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;                                  \
        if (w < n)                                                                             \
            tile<K, T>(A + 16 * K * w, B + 8 * K * w, C + 128 * w, D + 128 * w);               \
    }
TILE_KERNEL(mma_f16, 16, __half)
TILE_KERNEL(mma_bf16, 16, __nv_bfloat16)
TILE_KERNEL(mma_f16_k8, 8, __half)

// A fault: the first `lanes` lanes of the warp execute the mma, the others skip it.
extern "C" __global__ void mma_partial(const __half *A, const __half *B, const float *C, float *D,
                                       int lanes)
{
    if ((int)(threadIdx.x & 31) < lanes)
        tile<16, __half>(A, B, C, D);
}

// Timing: each warp runs n iterations of 8 x CH mmas in CH independent accumulate chains
// (each mma's D is its C: d and c the same registers) between two clock64 reads, and writes
// the cycles to cycles[warp]. CH = 1: the dependent latency; CH = 4, 8: the issue interval.
// a and b are distinct registers (a shared one would make ptxas copy it into a register
// quadruple every iteration).
template <int K, int CH> __device__ void clocked(long long *cycles, float *out, int n)
{
    unsigned a0 = 0x3c003c00u ^ (threadIdx.x & 1), a1 = a0 ^ 2u, a2 = a0 ^ 4u, a3 = a0 ^ 8u;
    unsigned b0 = 0x38003800u ^ (threadIdx.x & 2), b1 = b0 ^ 1u; // f16 pairs near 1 and 0.5
    float c[CH][4];
    for (int h = 0; h < CH; h++)
        c[h][0] = c[h][1] = c[h][2] = c[h][3] = 0.f;
    long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int r = 0; r < 8; r++)
#pragma unroll
            for (int h = 0; h < CH; h++) {
                if (K == 16)
                    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                                 : "+f"(c[h][0]), "+f"(c[h][1]), "+f"(c[h][2]), "+f"(c[h][3])
                                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
                else
                    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                                 : "+f"(c[h][0]), "+f"(c[h][1]), "+f"(c[h][2]), "+f"(c[h][3])
                                 : "r"(a0), "r"(a1), "r"(b0));
            }
    }
    long long t1 = clock64();
    float s = 0.f;
    for (int h = 0; h < CH; h++)
        s += c[h][0] + c[h][1] + c[h][2] + c[h][3];
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if ((threadIdx.x & 31) == 0)
        cycles[w] = t1 - t0;
}

#define CLOCK_KERNEL(name, K, CH)                                                              \
    extern "C" __global__ void name(long long *cycles, float *out, int n)                     \
    {                                                                                          \
        clocked<K, CH>(cycles, out, n);                                                        \
    }
CLOCK_KERNEL(mma_clock_k16_c1, 16, 1)
CLOCK_KERNEL(mma_clock_k16_c2, 16, 2)
CLOCK_KERNEL(mma_clock_k16_c4, 16, 4)
CLOCK_KERNEL(mma_clock_k8_c1, 8, 1)
CLOCK_KERNEL(mma_clock_k8_c2, 8, 2)
CLOCK_KERNEL(mma_clock_k8_c4, 8, 4)
