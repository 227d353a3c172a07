// blocklife.cu: the life of a warp in a streaming copy of many short blocks, timed from inside.
// co_stride1 (gpu/cases.txt: 65536 blocks of 256 threads, each thread copies one float) runs at
// 2.08 TB/s on the H200, far below the 4.4 TB/s it streams (dram.json), and the model frees its
// warps too late (drain, docs/validation.md) yet predicts it too fast once they leave on time.
// This kernel is that copy with clock64 stamps, so the model (the same PTX through `warplab
// run`) can be compared step by step:
//   t0  the warp's first instruction (before its load)
//   t1  its loaded value is in a register (the clock read waits on a predicate computed from it)
//   t2  after its store has issued
//   sm  %smid
// Lane 0 of each warp writes {sm, t0, t1, t2} (4 x 64 bits). Results: the load-to-use latency
// t1 - t0 under the copy's own load, t2 - t1, each block's life (first t0 to last t2 of its
// warps) and, per SM, the gap from a block's end to the start of the block that takes its slot
// (the i-th end against the (i + resident)-th start, both sorted); per warp index in the block,
// the median offsets of its t0 and t2 from the block's first t0, and per block its slowest
// warp's load-to-use and the spread (slowest - fastest) among its warps; for each pair of warp
// indices, the correlation of their load-to-use times over the blocks and the median of their
// difference (do neighbouring lines wait alike?). Also the kernel's duration
// (cudaEvent, best of 5, caches evicted before each run).
#include <algorithm>
#include <cmath>
#include <vector>

#include "mb_common.cuh"

// The first float of a loaded value (the predicate that orders the clock read tests it).
__device__ __forceinline__ float first_of(float v) { return v; }
__device__ __forceinline__ float first_of(float2 v) { return v.x; }
__device__ __forceinline__ float first_of(float4 v) { return v.x; }

template <typename T>
__device__ __forceinline__ void copy_timed(const T *in, T *out, unsigned long long *rec)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    long long t0 = clock64();
    T v = in[i];
    long long t1 = 0;
    // never false for the inputs: orders the clock read after the load's value
    if (__float_as_uint(first_of(v)) != 0xffffffffu)
        t1 = clock64();
    out[i] = v;
    long long t2 = clock64();
    if ((threadIdx.x & 31) == 0) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        unsigned long long *r = rec + (size_t)(i / 32) * 4;
        r[0] = sm;
        r[1] = (unsigned long long)t0;
        r[2] = (unsigned long long)t1;
        r[3] = (unsigned long long)t2;
    }
}

// One float per thread (co_stride1's copy, ~2 TB/s), and the same copy with two or four floats
// per thread (one 8- or 16-byte load each: more bytes in flight, the DRAM nearer saturation),
// to see how the load-to-use distribution grows with the load (`blocklife 2`, `blocklife 4`).
extern "C" __global__ void bl_copy(const float *in, float *out, unsigned long long *rec)
{
    copy_timed(in, out, rec);
}

extern "C" __global__ void bl_copy2(const float2 *in, float2 *out, unsigned long long *rec)
{
    copy_timed(in, out, rec);
}

extern "C" __global__ void bl_copy4(const float4 *in, float4 *out, unsigned long long *rec)
{
    copy_timed(in, out, rec);
}

static double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static double mean(const std::vector<double> &v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? 0 : s / (double)v.size();
}

int main(int argc, char **argv)
{
    // floats per thread: 1 (the default, blocklife.json), 2 or 4 (blocklife-v2/-v4.json)
    const int vec = argc > 1 ? atoi(argv[1]) : 1;
    if (vec != 1 && vec != 2 && vec != 4) {
        fprintf(stderr, "usage: blocklife [1|2|4]   (floats copied per thread)\n");
        return 2;
    }
    const int blocks = 65536, threads = 256, per_sm_resident = 8; // 2048 threads per SM
    const size_t warps = (size_t)blocks * threads / 32;
    const size_t n = (size_t)blocks * threads * vec; // floats
    float *in, *out;
    unsigned long long *rec;
    MB_CHECK(cudaMalloc(&in, n * 4));
    MB_CHECK(cudaMalloc(&out, n * 4));
    MB_CHECK(cudaMalloc(&rec, warps * 32));
    std::vector<float> h(n);
    for (size_t k = 0; k < n; k++)
        h[k] = (float)(k % 1000) * 0.001f;
    MB_CHECK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    // a buffer twice the L2 to evict it before each run (cold caches, as the model starts)
    size_t flush_bytes = (size_t)2 * mb_attr(cudaDevAttrL2CacheSize, 0);
    void *flush;
    MB_CHECK(cudaMalloc(&flush, flush_bytes));
    mb_begin(vec == 1 ? "blocklife" : vec == 2 ? "blocklife-v2" : "blocklife-v4");
    mb_json top = {1};
    float best = 1e30f;
    for (int r = 0; r < 5; r++) {
        MB_CHECK(cudaMemset(flush, r, flush_bytes));
        mb_timer t;
        mb_timer_start(&t);
        if (vec == 1)
            bl_copy<<<blocks, threads>>>(in, out, rec);
        else if (vec == 2)
            bl_copy2<<<blocks, threads>>>((const float2 *)in, (float2 *)out, rec);
        else
            bl_copy4<<<blocks, threads>>>((const float4 *)in, (float4 *)out, rec);
        float ms = mb_timer_stop(&t);
        best = ms < best ? ms : best;
    }
    MB_CHECK(cudaGetLastError());
    std::vector<unsigned long long> R(warps * 4);
    MB_CHECK(cudaMemcpy(R.data(), rec, warps * 32, cudaMemcpyDeviceToHost));
    mb_key(&top, "launch");
    printf("{\"blocks\": %d, \"threads\": %d, \"floats_per_thread\": %d, "
           "\"kernel_us_best_of_5\": %.3f, \"tb_per_s\": %.3f}",
           blocks, threads, vec, best * 1e3, 2.0 * (double)n * 4 / (best * 1e-3) / 1e12);
    // per warp (the last run's records)
    std::vector<double> ltu, st, life;
    int sms = mb_attr(cudaDevAttrMultiProcessorCount, 0);
    std::vector<std::vector<double>> starts(sms), ends(sms);
    const int wpb = threads / 32;
    std::vector<std::vector<double>> w_start(wpb), w_end(wpb); // by warp index, from b0
    std::vector<double> bmax, bspread; // per block: its slowest warp's load, slowest - fastest
    for (int b = 0; b < blocks; b++) {
        unsigned long long b0 = ~0ull, b2 = 0;
        int sm = -1;
        double lo = 1e30, hi = 0;
        for (int w = 0; w < wpb; w++) {
            const unsigned long long *r = &R[((size_t)b * wpb + w) * 4];
            ltu.push_back((double)(r[2] - r[1]));
            lo = std::min(lo, (double)(r[2] - r[1]));
            hi = std::max(hi, (double)(r[2] - r[1]));
            st.push_back((double)(r[3] - r[2]));
            b0 = std::min(b0, r[1]);
            b2 = std::max(b2, r[3]);
            sm = (int)r[0];
        }
        for (int w = 0; w < wpb; w++) {
            const unsigned long long *r = &R[((size_t)b * wpb + w) * 4];
            w_start[w].push_back((double)(r[1] - b0));
            w_end[w].push_back((double)(r[3] - b0));
        }
        life.push_back((double)(b2 - b0));
        bmax.push_back(hi);
        bspread.push_back(hi - lo);
        if (sm >= 0 && sm < sms) {
            starts[sm].push_back((double)b0);
            ends[sm].push_back((double)b2);
        }
    }
    std::vector<double> gaps, span;
    for (int s = 0; s < sms; s++) {
        std::sort(starts[s].begin(), starts[s].end());
        std::sort(ends[s].begin(), ends[s].end());
        for (size_t k = 0; k + per_sm_resident < starts[s].size(); k++)
            gaps.push_back(starts[s][k + per_sm_resident] - ends[s][k]);
        if (!starts[s].empty())
            span.push_back(ends[s].back() - starts[s].front());
    }
    std::vector<double> l2 = ltu;
    std::sort(l2.begin(), l2.end());
    mb_key(&top, "warps");
    printf("{\"count\": %zu, \"load_to_use_median\": %.1f, \"load_to_use_mean\": %.1f, "
           "\"load_to_use_p10\": %.1f, \"load_to_use_p90\": %.1f, \"store_issue_median\": %.1f}",
           ltu.size(), median(ltu), mean(ltu), l2[l2.size() / 10], l2[l2.size() * 9 / 10],
           median(st));
    mb_key(&top, "blocks");
    printf("{\"life_median\": %.1f, \"life_mean\": %.1f, \"slot_gap_median\": %.1f, "
           "\"slot_gap_mean\": %.1f, \"sm_span_median\": %.1f, \"per_sm_blocks_median\": %.1f}",
           median(life), mean(life), median(gaps), mean(gaps), median(span),
           (double)blocks / sms);
    // each warp index's first instruction and store, from its block's first t0 (medians)
    mb_key(&top, "warp_in_block");
    printf("{\"start_offset_median\": [");
    for (int w = 0; w < wpb; w++)
        printf("%s%.1f", w ? ", " : "", median(w_start[w]));
    printf("], \"end_offset_median\": [");
    for (int w = 0; w < wpb; w++)
        printf("%s%.1f", w ? ", " : "", median(w_end[w]));
    printf("], \"slowest_load_median\": %.1f, \"load_spread_median\": %.1f", median(bmax),
           median(bspread));
    // Which warps' loads wait alike: for each pair (i, j) of warp indices of a block (warp i
    // reads the block's i-th 128-byte line), the correlation over blocks of their load-to-use
    // times and the median of |ltu_i - ltu_j|. Pairs that share the DRAM's interleaving granule
    // (same channel, same row) should wait alike; the model can be set to the granule it shows.
    printf(", \"load_corr\": [");
    for (int a = 0; a < wpb; a++) {
        printf("%s[", a ? ", " : "");
        for (int c = 0; c < wpb; c++) {
            double sa = 0, sc = 0, saa = 0, scc = 0, sac = 0;
            for (int b = 0; b < blocks; b++) {
                const unsigned long long *ra = &R[((size_t)b * wpb + a) * 4];
                const unsigned long long *rc = &R[((size_t)b * wpb + c) * 4];
                double x = (double)(ra[2] - ra[1]), y = (double)(rc[2] - rc[1]);
                sa += x; sc += y; saa += x * x; scc += y * y; sac += x * y;
            }
            double nb = (double)blocks, va = saa / nb - (sa / nb) * (sa / nb),
                   vc = scc / nb - (sc / nb) * (sc / nb), cv = sac / nb - sa / nb * sc / nb;
            printf("%s%.3f", c ? ", " : "", va > 0 && vc > 0 ? cv / sqrt(va * vc) : 0.0);
        }
        printf("]");
    }
    printf("], \"load_absdiff_median\": [");
    for (int a = 0; a < wpb; a++) {
        printf("%s[", a ? ", " : "");
        for (int c = 0; c < wpb; c++) {
            std::vector<double> d;
            for (int b = 0; b < blocks; b++) {
                const unsigned long long *ra = &R[((size_t)b * wpb + a) * 4];
                const unsigned long long *rc = &R[((size_t)b * wpb + c) * 4];
                d.push_back(fabs((double)(ra[2] - ra[1]) - (double)(rc[2] - rc[1])));
            }
            printf("%s%.1f", c ? ", " : "", median(d));
        }
        printf("]");
    }
    printf("]}");
    mb_end();
    MB_CHECK(cudaFree(in));
    MB_CHECK(cudaFree(out));
    MB_CHECK(cudaFree(rec));
    MB_CHECK(cudaFree(flush));
    return 0;
}
