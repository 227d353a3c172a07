// throughput.cu: GPU-wide rates, timed with CUDA events (and clock64 for the barrier).
//
//   dram_bw    float4 streaming read of 2 GiB (grid-stride, 8 blocks of 256 per SM), and a copy
//              of 1 GiB -> 1 GiB (read + write bytes); best of 5 launches.
//   l2_bw      __ldcg float4 reads of an 8/16/24/32/48 MiB working set that stays in the L2,
//              repeated so ~4 GiB move; best of 3.
//   barrier    one block of W warps (W = 1..32) doing 1024 back-to-back __syncthreads; cycles
//              per barrier from thread 0's clock64.
//   launch     empty kernels with 1 block and with 132 x K blocks (block 32 and 256 threads);
//              ns per block = (t(N) - t(1)) / (N - 1), and the 1-block kernel's time.
//   atomics    atomicAdd without return (RED) from 132 x 8 blocks of 256 threads, 64 each:
//              all on one address, and each thread on its own word; operations per second.
#include "mb_common.cuh"

__global__ void k_read(const float4 *__restrict__ p, size_t n, float *sink)
{
    float acc = 0.f;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
         k += (size_t)gridDim.x * blockDim.x) {
        float4 v = __ldcs(p + k);
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1234.5f)
        sink[0] = acc;
}

__global__ void k_copy(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
         k += (size_t)gridDim.x * blockDim.x)
        b[k] = a[k];
}

__global__ void k_l2read(const float4 *__restrict__ p, size_t n, int reps, float *sink)
{
    float acc = 0.f;
    for (int r = 0; r < reps; r++)
        for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
             k += (size_t)gridDim.x * blockDim.x) {
            float4 v = __ldcg(p + k);
            acc += v.x + v.y + v.z + v.w;
        }
    if (acc == 1234.5f)
        sink[0] = acc;
}

__global__ void k_fill(float4 *p, size_t n)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
         k += (size_t)gridDim.x * blockDim.x)
        p[k] = make_float4(0.f, 1.f, 2.f, 3.f);
}

__global__ void k_barrier(int iters, long long *cyc)
{
    __syncthreads();
    long long t0 = clock64();
    for (int i = 0; i < iters; i++)
        __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0)
        cyc[0] = t1 - t0;
}

__global__ void k_empty(void) {}

__global__ void k_red(unsigned *p, unsigned mask, int iters)
{
    unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) & mask;
    for (int k = 0; k < iters; k++)
        atomicAdd(p + i, 1u);
}

int main(void)
{
    int sms = 0;
    MB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    mb_begin("throughput");
    mb_json top = {1};
    float *sink;
    MB_CHECK(cudaMalloc(&sink, 4));
    const int grid = sms * 8, block = 256;

    // ---- DRAM ----
    {
        size_t bytes = (size_t)2 << 30;
        float4 *a, *b;
        MB_CHECK(cudaMalloc(&a, bytes));
        MB_CHECK(cudaMalloc(&b, bytes / 2));
        size_t n = bytes / sizeof(float4);
        k_fill<<<grid, block>>>(a, n);
        k_fill<<<grid, block>>>(b, n / 2);
        float best_r = 1e30f, best_c = 1e30f;
        for (int r = 0; r < 5; r++) {
            mb_timer t;
            mb_timer_start(&t);
            k_read<<<grid, block>>>(a, n, sink);
            float ms = mb_timer_stop(&t);
            best_r = ms < best_r ? ms : best_r;
            mb_timer_start(&t);
            k_copy<<<grid, block>>>(a, b, n / 2);
            ms = mb_timer_stop(&t);
            best_c = ms < best_c ? ms : best_c;
        }
        mb_key(&top, "dram_bw");
        printf("{\"read_bytes\": %zu, \"read_ms\": %.4f, \"read_gbs\": %.1f, "
               "\"copy_bytes_moved\": %zu, \"copy_ms\": %.4f, \"copy_gbs\": %.1f}",
               bytes, best_r, (double)bytes / best_r / 1e6, bytes, best_c,
               (double)bytes / best_c / 1e6);
        MB_CHECK(cudaFree(a));
        MB_CHECK(cudaFree(b));
    }

    // ---- L2 ----
    mb_key(&top, "l2_bw");
    printf("[");
    static const int sets_mb[] = {8, 16, 24, 32, 48};
    for (int i = 0; i < 5; i++) {
        size_t bytes = (size_t)sets_mb[i] << 20;
        float4 *a;
        MB_CHECK(cudaMalloc(&a, bytes));
        size_t n = bytes / sizeof(float4);
        k_fill<<<grid, block>>>(a, n);
        int reps = (int)(((size_t)4 << 30) / bytes);
        k_l2read<<<grid, block>>>(a, n, 1, sink); // warm
        float best = 1e30f;
        for (int r = 0; r < 3; r++) {
            mb_timer t;
            mb_timer_start(&t);
            k_l2read<<<grid, block>>>(a, n, reps, sink);
            float ms = mb_timer_stop(&t);
            best = ms < best ? ms : best;
        }
        printf("%s\n    {\"working_set_bytes\": %zu, \"bytes_read\": %zu, \"ms\": %.4f, "
               "\"gbs\": %.1f}",
               i ? "," : "", bytes, bytes * reps, best, (double)bytes * reps / best / 1e6);
        MB_CHECK(cudaFree(a));
    }
    printf("]");

    // ---- barrier ----
    {
        long long *c, h = 0;
        MB_CHECK(cudaMalloc(&c, sizeof h));
        mb_key(&top, "barrier_cycles");
        printf("{");
        const int iters = 1024;
        for (int w = 1; w <= 32; w *= 2) {
            k_barrier<<<1, 32 * w>>>(8, c);
            k_barrier<<<1, 32 * w>>>(iters, c);
            MB_CHECK(cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost));
            printf("%s\"warps_%d\": %.2f", w > 1 ? ", " : "", w, (double)h / iters);
        }
        printf("}");
        MB_CHECK(cudaFree(c));
    }

    // ---- block launch ----
    {
        mb_key(&top, "launch");
        printf("{");
        static const int bs[] = {32, 256};
        for (int i = 0; i < 2; i++) {
            int nb = sms * 2048;
            float t1 = 1e30f, tn = 1e30f;
            for (int r = 0; r < 5; r++) {
                mb_timer t;
                mb_timer_start(&t);
                k_empty<<<1, bs[i]>>>();
                float ms = mb_timer_stop(&t);
                t1 = ms < t1 ? ms : t1;
                mb_timer_start(&t);
                k_empty<<<nb, bs[i]>>>();
                ms = mb_timer_stop(&t);
                tn = ms < tn ? ms : tn;
            }
            printf("%s\"block_%d\": {\"one_block_us\": %.3f, \"blocks\": %d, \"blocks_us\": %.3f, "
                   "\"ns_per_block\": %.4f, \"ns_per_block_per_sm\": %.3f}",
                   i ? ", " : "", bs[i], t1 * 1e3, nb, tn * 1e3,
                   (tn - t1) * 1e6 / (nb - 1), (tn - t1) * 1e6 / (nb - 1) * sms);
        }
        printf("}");
    }

    // ---- atomics ----
    {
        unsigned *p;
        size_t words = (size_t)grid * block;
        MB_CHECK(cudaMalloc(&p, words * sizeof(unsigned)));
        MB_CHECK(cudaMemset(p, 0, words * sizeof(unsigned)));
        const int iters = 64;
        mb_key(&top, "atomics");
        printf("{");
        for (int m = 0; m < 2; m++) {
            unsigned mask = m ? 0xffffffffu : 0u;
            k_red<<<grid, block>>>(p, mask, 2);
            float best = 1e30f;
            for (int r = 0; r < 3; r++) {
                mb_timer t;
                mb_timer_start(&t);
                k_red<<<grid, block>>>(p, mask, iters);
                float ms = mb_timer_stop(&t);
                best = ms < best ? ms : best;
            }
            double ops = (double)words * iters;
            printf("%s\"%s\": {\"ops\": %.0f, \"ms\": %.4f, \"gops\": %.3f}", m ? ", " : "",
                   m ? "distinct_words" : "one_address", ops, best, ops / best / 1e6);
        }
        printf("}");
        MB_CHECK(cudaFree(p));
    }
    MB_CHECK(cudaFree(sink));
    mb_end();
    return 0;
}
