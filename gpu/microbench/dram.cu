// dram.cu: DRAM bandwidth by access pattern, timed with CUDA events (best of 5 launches).
//
// throughput.cu's dram_bw reads with one float4 load in flight per thread per loop trip; here
// the memory-level parallelism and the direction vary, to separate what the DRAM sustains for
// reads, for writes and for a mix (the timing model's DRAM efficiencies, sim/memory/memsys.c):
//   read_mlpU    U independent float4 loads per thread per trip (U = 1, 4, 8), 4 GiB streamed
//   write        float4 stores only (2 GiB), no loads
//   copy_mlp4    4 float4 loads then 4 stores per trip, 2 GiB -> 2 GiB (bytes = read + written)
//   scatter128   each lane reads one 4-byte word per 128-byte line (a warp touches 32 lines):
//                the bytes DRAM moves are not counted here (they depend on the burst size);
//                reported as words per second and as GB/s at 64 B and at 32 B per access
// All kernels: 132 x 8 blocks of 256 threads, grid-stride loops, __ldcs/__stcs (streaming) so
// lines are not kept. Buffers are larger than the 60 MB L2 by 30x or more.
#include "mb_common.cuh"

template <int U>
__global__ void k_read(const float4 *__restrict__ p, size_t n, float *sink)
{
    float acc = 0.f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k + (U - 1) * stride < n;
         k += U * stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = __ldcs(p + k + u * stride);
#pragma unroll
        for (int u = 0; u < U; u++)
            acc += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    if (acc == 1234.5f)
        sink[0] = acc;
}

__global__ void k_write(float4 *p, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += stride)
        __stcs(p + k, make_float4(1.f, 2.f, 3.f, (float)k));
}

__global__ void k_copy4(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k + 3 * stride < n;
         k += 4 * stride) {
        float4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = __ldcs(a + k + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++)
            __stcs(b + k + u * stride, v[u]);
    }
}

// words: number of 4-byte words read, one per 128-byte line.
__global__ void k_scatter(const float *__restrict__ p, size_t words, float *sink)
{
    float acc = 0.f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k + 3 * stride < words;
         k += 4 * stride) {
        float v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = __ldcs(p + (k + u * stride) * 32);
#pragma unroll
        for (int u = 0; u < 4; u++)
            acc += v[u];
    }
    if (acc == 1234.5f)
        sink[0] = acc;
}

template <typename F>
static float best_ms(F launch)
{
    float best = 1e30f;
    for (int r = 0; r < 5; r++) {
        mb_timer t;
        mb_timer_start(&t);
        launch();
        float ms = mb_timer_stop(&t);
        best = ms < best ? ms : best;
    }
    return best;
}

int main(void)
{
    mb_begin("dram");
    mb_json top = {1};
    int sms = mb_attr(cudaDevAttrMultiProcessorCount, 0);
    const int grid = sms * 8, block = 256;
    float *sink;
    MB_CHECK(cudaMalloc(&sink, 4));
    size_t bytes = (size_t)4 << 30;
    float4 *a, *b;
    MB_CHECK(cudaMalloc(&a, bytes));
    MB_CHECK(cudaMalloc(&b, bytes / 2));
    size_t n = bytes / sizeof(float4);
    k_write<<<grid, block>>>(a, n);
    k_write<<<grid, block>>>(b, n / 2);
    MB_CHECK(cudaDeviceSynchronize());

    float ms1 = best_ms([&] { k_read<1><<<grid, block>>>(a, n, sink); });
    float ms4 = best_ms([&] { k_read<4><<<grid, block>>>(a, n, sink); });
    float ms8 = best_ms([&] { k_read<8><<<grid, block>>>(a, n, sink); });
    mb_key(&top, "read");
    printf("{\"bytes\": %zu, \"mlp1_ms\": %.4f, \"mlp1_gbs\": %.1f, \"mlp4_ms\": %.4f, "
           "\"mlp4_gbs\": %.1f, \"mlp8_ms\": %.4f, \"mlp8_gbs\": %.1f}",
           bytes, ms1, bytes / ms1 / 1e6, ms4, bytes / ms4 / 1e6, ms8, bytes / ms8 / 1e6);

    size_t wbytes = bytes / 2;
    float msw = best_ms([&] { k_write<<<grid, block>>>(b, wbytes / sizeof(float4)); });
    mb_key(&top, "write");
    printf("{\"bytes\": %zu, \"ms\": %.4f, \"gbs\": %.1f}", wbytes, msw, wbytes / msw / 1e6);

    float msc = best_ms([&] { k_copy4<<<grid, block>>>(a, b, wbytes / sizeof(float4)); });
    mb_key(&top, "copy_mlp4");
    printf("{\"bytes_moved\": %zu, \"ms\": %.4f, \"gbs\": %.1f}", 2 * wbytes, msc,
           2 * wbytes / msc / 1e6);

    size_t words = bytes / 128;
    float mss = best_ms([&] { k_scatter<<<grid, block>>>((const float *)a, words, sink); });
    mb_key(&top, "scatter128");
    printf("{\"words\": %zu, \"ms\": %.4f, \"gwords_per_s\": %.3f, \"gbs_at_64B\": %.1f, "
           "\"gbs_at_32B\": %.1f}",
           words, mss, words / mss / 1e6, words * 64.0 / mss / 1e6, words * 32.0 / mss / 1e6);

    MB_CHECK(cudaFree(a));
    MB_CHECK(cudaFree(b));
    MB_CHECK(cudaFree(sink));
    mb_end();
    return 0;
}
