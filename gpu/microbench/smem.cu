// smem.cu: shared-memory loads under load, as the warps of one SM add up.
// The model gives a shared load a fixed latency (23 cycles, latency.json) and one warp
// instruction per `lsu` cycles per scheduler (sim/arch/h200.ini, from a secondary source); on
// the reductions it charges far less short_scoreboard than Nsight Compute (docs/validation.md).
// These numbers are what a model of the shared-memory pipe under load would be checked against.
//   tput   W warps of one block per SM, each thread running ITERS rounds of 8 independent
//          conflict-free 32-bit loads (volatile: one LDS each): SM cycles per warp-level load
//          (clock64 of the block's first thread around the loop, the blocks' median)
//   chase  the same W warps, each thread a dependent chain of loads, each giving the next's
//          byte offset (conflict-free: lane l reads bank l on every step): cycles per step,
//          the load-to-use latency while the other warps load too
//   store  as tput with 8 independent 32-bit stores per round
// One block per SM (132 blocks; W = 1 .. 32 warps). Cycles are clock64 ticks.
#include <algorithm>
#include <vector>

#include "mb_common.cuh"

#define ITERS 2048
#define WORDS 4096 // 16 KB of shared memory per block

__global__ void k_tput(unsigned *out, long long *cyc, int iters)
{
    __shared__ unsigned s[WORDS];
    unsigned tid = threadIdx.x;
    for (unsigned i = tid; i < WORDS; i += blockDim.x)
        s[i] = i * 2654435761u;
    __syncthreads();
    volatile unsigned *vs = s;
    unsigned a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    long long c0 = clock64();
    for (int k = 0; k < iters; ++k) {
        unsigned b = (tid + (unsigned)k * 32u) & (WORDS - 1); // lanes on 32 banks
        a0 += vs[b];
        a1 += vs[b ^ 256u];
        a2 += vs[b ^ 512u];
        a3 += vs[b ^ 768u];
        a4 += vs[b ^ 1024u];
        a5 += vs[b ^ 1280u];
        a6 += vs[b ^ 1536u];
        a7 += vs[b ^ 1792u];
    }
    long long c1 = clock64();
    out[blockIdx.x * blockDim.x + tid] = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
    if (tid == 0)
        cyc[blockIdx.x] = c1 - c0;
}

__global__ void k_store(unsigned *out, long long *cyc, int iters)
{
    __shared__ unsigned s[WORDS];
    unsigned tid = threadIdx.x;
    volatile unsigned *vs = s;
    __syncthreads();
    long long c0 = clock64();
    for (int k = 0; k < iters; ++k) {
        unsigned b = (tid + (unsigned)k * 32u) & (WORDS - 1);
        unsigned v = (unsigned)k ^ tid;
        vs[b] = v;
        vs[b ^ 256u] = v + 1;
        vs[b ^ 512u] = v + 2;
        vs[b ^ 768u] = v + 3;
        vs[b ^ 1024u] = v + 4;
        vs[b ^ 1280u] = v + 5;
        vs[b ^ 1536u] = v + 6;
        vs[b ^ 1792u] = v + 7;
    }
    long long c1 = clock64();
    __syncthreads();
    out[blockIdx.x * blockDim.x + tid] = s[tid];
    if (tid == 0)
        cyc[blockIdx.x] = c1 - c0;
}

__global__ void k_chase(unsigned *out, long long *cyc, int iters)
{
    __shared__ unsigned s[WORDS];
    unsigned tid = threadIdx.x;
    for (unsigned i = tid; i < WORDS; i += blockDim.x)
        s[i] = ((i + 32u) & (WORDS - 1)) * 4u; // byte offset of the next word of the same bank
    __syncthreads();
    const char *base = (const char *)s;
    unsigned x = (tid & (WORDS - 1)) * 4u;
    long long c0 = clock64();
    for (int k = 0; k < iters; ++k) // one LDS per step, no address arithmetic between
        x = *(const unsigned *)(base + x);
    long long c1 = clock64();
    out[blockIdx.x * blockDim.x + tid] = x;
    if (tid == 0)
        cyc[blockIdx.x] = c1 - c0;
}

// The median over the blocks of one launch (warm-up launch first).
static double run(void (*k)(unsigned *, long long *, int), int warps, int sms)
{
    unsigned *out;
    long long *cyc;
    MB_CHECK(cudaMalloc(&out, (size_t)sms * warps * 32 * sizeof *out));
    MB_CHECK(cudaMalloc(&cyc, (size_t)sms * sizeof *cyc));
    k<<<sms, warps * 32>>>(out, cyc, ITERS);
    k<<<sms, warps * 32>>>(out, cyc, ITERS);
    MB_CHECK(cudaGetLastError());
    std::vector<long long> h(sms);
    MB_CHECK(cudaMemcpy(h.data(), cyc, (size_t)sms * sizeof *cyc, cudaMemcpyDeviceToHost));
    std::sort(h.begin(), h.end());
    MB_CHECK(cudaFree(out));
    MB_CHECK(cudaFree(cyc));
    return (double)h[sms / 2];
}

int main(void)
{
    mb_begin("smem");
    int sms = mb_attr(cudaDevAttrMultiProcessorCount, 0);
    mb_json j = {1};
    static const int ws[] = {1, 2, 4, 8, 16, 32};
    const char *names[] = {"tput", "store", "chase"};
    void (*ks[])(unsigned *, long long *, int) = {k_tput, k_store, k_chase};
    for (int m = 0; m < 3; m++) {
        mb_key(&j, names[m]);
        printf("{\"iters\": %d, \"blocks\": %d, \"points\": [", ITERS, sms);
        for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
            double c = run(ks[m], ws[i], sms);
            // per warp-level access of the whole SM (tput, store: 8 per round per warp), or
            // per step of one warp's chain (chase)
            double per = m < 2 ? c / ((double)ITERS * 8.0 * ws[i]) : c / (double)ITERS;
            printf("%s{\"warps_per_sm\": %d, \"median_block_cycles\": %.0f, \"%s\": %.3f}",
                   i ? ", " : "", ws[i], c, m < 2 ? "sm_cycles_per_warp_access" : "cycles_per_step",
                   per);
            fflush(stdout);
        }
        printf("]}");
    }
    mb_end();
    return 0;
}
