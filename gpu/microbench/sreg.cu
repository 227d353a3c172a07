// sreg.cu: how long a warp waits for a special register (%tid, %ctaid: SASS S2R) and for a
// constant-bank load with a register index (LDC), against a fixed-latency integer add.
// The model treats `mov %r, %tid.x` as a fixed-latency ALU move (ready 5 cycles later), but
// Nsight Compute charges co_stride1 and co_offset0 8.9-9.3 % short_scoreboard, which only
// variable-latency instructions cause; in their SASS the first instructions of every block are
// S2R SR_CTAID.X, S2R SR_TID.X and LDCs of the parameters (docs/validation.md).
// Each kernel times, 64 times in a loop, clock64 -> the instruction -> a compare of its result
// -> clock64 (the second clock read waits for the compare, as in blocklife.cu); per warp
// (lane 0) the first of the 64 differences (the block's start, as in the real kernels) and
// their median. The baseline's instruction is an IADD of the first clock value, so the
// difference to it is the instruction's dependent latency beyond an IADD's. ptxas keeps one
// S2R per kernel whatever the asm says (%tid and %ctaid do not change): for s2r_* only the
// first difference times an S2R (the SASS shows it, sass.txt); the LDC is in every iteration. Launched twice: one warp alone (unloaded), and 132 x 8 blocks of 256 threads (every
// warp slot of the GPU busy doing the same: the queueing a block start meets).
#include "mb_clock.cuh"
#include "mb_common.cuh"

__constant__ unsigned sr_tab[64];

extern "C" __global__ void sr_base(unsigned long long *rec, unsigned bias)
{
    (void)bias; // not read: a parameter is a constant-bank load (ULDC) of its own
    MB_CLOCK_LOOP(v = (unsigned)t0 ^ 0x5a5au);
}

extern "C" __global__ void sr_tid(unsigned long long *rec, unsigned bias)
{
    (void)bias;
    MB_CLOCK_LOOP(asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v)));
}

extern "C" __global__ void sr_ctaid(unsigned long long *rec, unsigned bias)
{
    (void)bias;
    MB_CLOCK_LOOP(asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v)));
}

extern "C" __global__ void sr_ldc(unsigned long long *rec, unsigned bias)
{
    (void)bias;
    MB_CLOCK_LOOP(v = sr_tab[(unsigned)t0 & 63]);
}

typedef void (*sr_kernel)(unsigned long long *, unsigned);

int main()
{
    const int sms = mb_attr(cudaDevAttrMultiProcessorCount, 0);
    const int blocks = sms * 8, threads = 256, warps = blocks * threads / 32;
    unsigned long long *rec;
    MB_CHECK(cudaMalloc(&rec, (size_t)warps * 16));
    std::vector<unsigned> tab(64);
    for (int i = 0; i < 64; i++)
        tab[i] = (unsigned)i * 7u;
    MB_CHECK(cudaMemcpyToSymbol(sr_tab, tab.data(), sizeof(unsigned) * 64));
    static const struct {
        const char *name;
        sr_kernel k;
    } ks[] = {{"iadd_baseline", sr_base}, {"s2r_tid", sr_tid}, {"s2r_ctaid", sr_ctaid},
              {"ldc_indexed", sr_ldc}};
    mb_begin("sreg");
    mb_json top = {1};
    for (const auto &k : ks) {
        std::vector<unsigned long long> h(2 * (size_t)warps);
        // one warp alone
        k.k<<<1, 32>>>(rec, 0);
        MB_CHECK(cudaDeviceSynchronize());
        MB_CHECK(cudaMemcpy(h.data(), rec, 16, cudaMemcpyDeviceToHost));
        double alone_first = (double)h[0], alone_median = (double)h[1];
        // every warp slot busy
        k.k<<<blocks, threads>>>(rec, 0);
        MB_CHECK(cudaDeviceSynchronize());
        MB_CHECK(cudaMemcpy(h.data(), rec, (size_t)warps * 16, cudaMemcpyDeviceToHost));
        std::vector<double> first, med;
        for (int w = 0; w < warps; w++) {
            first.push_back((double)h[2 * (size_t)w]);
            med.push_back((double)h[2 * (size_t)w + 1]);
        }
        std::vector<double> s = first;
        std::sort(s.begin(), s.end());
        mb_key(&top, k.name);
        printf("{\"alone_first\": %.1f, \"alone_median\": %.1f, \"full_first_median\": %.1f, "
               "\"full_first_p10\": %.1f, \"full_first_p90\": %.1f, \"full_median\": %.1f, "
               "\"full_warps\": %d}",
               alone_first, alone_median, mb_median(first), s[s.size() / 10],
               s[s.size() * 9 / 10], mb_median(med), warps);
    }
    mb_end();
    MB_CHECK(cudaFree(rec));
    return 0;
}
