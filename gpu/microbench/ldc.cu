// ldc.cu: how long a warp waits for a load from the kernel's parameter bank (SASS LDC from
// c[0x0][...], the constant bank the launch fills with the kernel's arguments), warm and at a
// block's start, against an integer op and against the user constant bank (__constant__,
// c[0x3][...], as sreg.cu's ldc_indexed).
// Why: ptxas turns a 64-bit ld.param (a pointer argument) into LDC.64 and %ntid into an LDC,
// variable-latency instructions that a dependent instruction waits for on the short
// scoreboard; the streaming kernels of gpu/kernels wait there 8.9-9.3 % of their warps'
// cycles in Nsight Compute (co_stride1, co_offset0). A load whose index is an immediate is
// hoisted by ptxas above any clock read, so the chain uses an index computed from the clock
// (LDC c[0x0][R+...], the same constant cache); the loop (mb_clock.cuh), the medians and the two
// launches are sreg.cu's. Three launches per kernel: one warp alone; 132 x 8 blocks of 256 threads (one full
// wave: every warp slot starts at once); 132 x 16 blocks (two waves: the second wave's blocks
// start on SMs whose constant cache the first wave filled). For the two-wave launch, warps of
// blocks 0 .. 1055 and 1056 .. 2111 are reported apart (blocks start roughly in index order).
#include "mb_clock.cuh"
#include "mb_common.cuh"

__constant__ unsigned lc_tab[64];

struct lc_params {
    unsigned v[64];
};

extern "C" __global__ void lc_base(unsigned long long *rec, const __grid_constant__ lc_params p)
{
    (void)p;
    MB_CLOCK_LOOP(v = (unsigned)t0 ^ 0x5a5au);
}

extern "C" __global__ void lc_const(unsigned long long *rec, const __grid_constant__ lc_params p)
{
    (void)p;
    MB_CLOCK_LOOP(v = lc_tab[(unsigned)t0 & 63]);
}

extern "C" __global__ void lc_param(unsigned long long *rec, const __grid_constant__ lc_params p)
{
    MB_CLOCK_LOOP(v = p.v[(unsigned)t0 & 63]);
}

// Without the loop's local array (whose stack pointer is itself an LDC of c[0x0][0x28] that
// every later instruction waits behind): the first constant-bank access of each warp, timed
// once (first = median = that one value).
#define LC_ONCE(READ)                                                                        \
    long long t0 = clock64();                                                               \
    unsigned v;                                                                             \
    READ;                                                                                   \
    long long t1 = 0;                                                                       \
    if (v != 0xfffffff0u)                                                                   \
        t1 = clock64();                                                                     \
    unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;                              \
    if ((threadIdx.x & 31) == 0)                                                            \
        rec[2 * w] = rec[2 * w + 1] = (unsigned long long)(t1 - t0) + (v == 1u ? 1 : 0)

extern "C" __global__ void lc_base_once(unsigned long long *rec,
                                        const __grid_constant__ lc_params p)
{
    (void)p;
    LC_ONCE(v = (unsigned)t0 ^ 0x5a5au);
}

extern "C" __global__ void lc_param_once(unsigned long long *rec,
                                         const __grid_constant__ lc_params p)
{
    LC_ONCE(v = p.v[(unsigned)t0 & 63]);
}

static double pct(std::vector<double> v, int p)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() * (size_t)p / 100];
}

typedef void (*lc_kernel)(unsigned long long *, lc_params);

int main()
{
    const int sms = mb_attr(cudaDevAttrMultiProcessorCount, 0);
    const int threads = 256, wave = sms * 8, wpb = threads / 32;
    unsigned long long *rec;
    MB_CHECK(cudaMalloc(&rec, (size_t)2 * wave * wpb * 16));
    lc_params prm;
    std::vector<unsigned> tab(64);
    for (int i = 0; i < 64; i++)
        prm.v[i] = tab[i] = (unsigned)i * 7u;
    MB_CHECK(cudaMemcpyToSymbol(lc_tab, tab.data(), sizeof(unsigned) * 64));
    static const struct {
        const char *name;
        lc_kernel k;
    } ks[] = {{"iadd_baseline", lc_base}, {"ldc_const_bank", lc_const},
              {"ldc_param_bank", lc_param}, {"iadd_baseline_once", lc_base_once},
              {"ldc_param_bank_once", lc_param_once}};
    mb_begin("ldc");
    mb_json top = {1};
    for (const auto &k : ks) {
        std::vector<unsigned long long> h(2 * (size_t)2 * wave * wpb);
        k.k<<<1, 32>>>(rec, prm); // one warp alone
        MB_CHECK(cudaDeviceSynchronize());
        MB_CHECK(cudaMemcpy(h.data(), rec, 16, cudaMemcpyDeviceToHost));
        double alone_first = (double)h[0], alone_median = (double)h[1];
        double r[2][4]; // [launch][first median, p10, p90, median of medians]
        double second[4] = {0, 0, 0, 0};
        for (int l = 0; l < 2; l++) {
            int blocks = wave * (l + 1), warps = blocks * wpb;
            k.k<<<blocks, threads>>>(rec, prm);
            MB_CHECK(cudaDeviceSynchronize());
            MB_CHECK(cudaMemcpy(h.data(), rec, (size_t)warps * 16, cudaMemcpyDeviceToHost));
            std::vector<double> f1, m1, f2, m2;
            for (int w = 0; w < warps; w++) {
                bool first_wave = w < wave * wpb;
                (first_wave ? f1 : f2).push_back((double)h[2 * (size_t)w]);
                (first_wave ? m1 : m2).push_back((double)h[2 * (size_t)w + 1]);
            }
            r[l][0] = mb_median(f1), r[l][1] = pct(f1, 10), r[l][2] = pct(f1, 90);
            r[l][3] = mb_median(m1);
            if (l == 1)
                second[0] = mb_median(f2), second[1] = pct(f2, 10), second[2] = pct(f2, 90),
                second[3] = mb_median(m2);
        }
        mb_key(&top, k.name);
        printf("{\"alone_first\": %.1f, \"alone_median\": %.1f, "
               "\"full_first_median\": %.1f, \"full_first_p10\": %.1f, "
               "\"full_first_p90\": %.1f, \"full_median\": %.1f, "
               "\"two_waves_first_wave_first_median\": %.1f, "
               "\"two_waves_second_wave_first_median\": %.1f, "
               "\"two_waves_second_wave_first_p10\": %.1f, "
               "\"two_waves_second_wave_first_p90\": %.1f, "
               "\"two_waves_second_wave_median\": %.1f, \"blocks_per_wave\": %d}",
               alone_first, alone_median, r[0][0], r[0][1], r[0][2], r[0][3], r[1][0],
               second[0], second[1], second[2], second[3], wave);
    }
    mb_end();
    MB_CHECK(cudaFree(rec));
    return 0;
}
