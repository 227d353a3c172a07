// placement.cu: where the block scheduler puts the blocks of one launch, launch after launch, and
// what that does to the kernel's time (lesson 10, the sched_uneven cases of gpu/cases.txt).
//
// sched_uneven gives block b (b % 8 + 1) eighths of the work. With 1024-thread blocks two fit per
// SM (264 blocks: one wave on 132 SMs), so the kernel lasts as long as the SM whose two blocks
// carry the most work. If block b always shared its SM with block b + 132 (132 % 8 = 4), the
// heaviest SM would carry 4 + 8 = 12 eighths; a pair of two 8s carries 16. Whether such pairs
// occur depends on which SM the hardware hands each block, which this program records.
//
// For each launch configuration (b1024: 264 x 1024, b128: 2112 x 128, iters 2048 as in
// gpu/cases.txt) it times RUNS launches of the plain kernel back to back (one cudaEvent between
// consecutive launches, as the harness's warm series) and RUNS launches of the same kernel with
// the harness's timeline probe (gpu/kernels/wl_probe.h: %smid and %globaltimer per warp), each
// between its own pair of events. Per probed launch it reports the event time, the probe's span
// (first warp start to last warp end), the largest work of one SM in eighths (the sum of
// b % 8 + 1 over the blocks the probe saw on it) and how many SMs carry it.
//
// "after_k_blocks": does the placement depend on what ran before? Before each probed b1024
// launch, a launch of k one-warp blocks that do nothing (k = 0: none), REPS times per k; per
// launch the heaviest SM's work, the probe's span and the SMs of blocks 0 and 1, and for the
// first of each k the SM of each of the first 132 blocks. "after_memset": the same after a
// cudaMemsetAsync of twice the L2 (what the harness runs before each timed launch), against the
// same loop without it. Nothing here is typed by hand: every number is what the GPU reported.
#define WL_PROBE
#include "../kernels/wl_probe.h"
#include "../kernels/wl_math.h"
#include "mb_common.cuh"

#include <algorithm>
#include <map>
#include <vector>

#define ITERS 2048
#define RUNS 400

// The body of gpu/kernels/scheduling.cu's sched_uneven, with and without the probe.
__global__ void pl_plain(unsigned *out, int iters)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int trip = (int)((blockIdx.x % 8 + 1) * (unsigned)iters / 8);
    out[i] = wl_path_a(wl_mix(i), trip);
}

__global__ void pl_probe(unsigned *out, int iters)
{
    wl_probe_begin();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int trip = (int)((blockIdx.x % 8 + 1) * (unsigned)iters / 8);
    out[i] = wl_path_a(wl_mix(i), trip);
    wl_probe_end();
}

__global__ void pl_tick(unsigned *sink)
{
    if (threadIdx.x == 0 && sink[0] == 12345u) // never true: the block does nothing
        sink[1] = blockIdx.x;
}

static double pct(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    return v[(size_t)(p * (double)(v.size() - 1) + 0.5)];
}

static void stats(const char *key, const std::vector<double> &v, int last)
{
    double mean = 0;
    for (double x : v)
        mean += x;
    mean /= (double)v.size();
    printf("      \"%s\": {\"runs\": %zu, \"median\": %.3f, \"p10\": %.3f, \"p90\": %.3f, "
           "\"min\": %.3f, \"max\": %.3f, \"mean\": %.3f}%s\n",
           key, v.size(), pct(v, 0.5), pct(v, 0.1), pct(v, 0.9), pct(v, 0.0), pct(v, 1.0), mean,
           last ? "" : ",");
}

// One launch's probe records (grid blocks of wpb warps): the SM of each block (from its first
// warp), the probe's span in us, and the heaviest SM's work in eighths (the sum of b % 8 + 1
// over its blocks), with how many SMs carry it in *atmax.
static int analyse(const wl_probe_rec *p, int grid, int wpb, int nsm, std::vector<int> &sm_of,
                   double *span_us, int *atmax)
{
    std::vector<int> w(nsm, 0);
    unsigned long long t0 = ~0ull, t1 = 0;
    sm_of.assign(grid, -1);
    for (int b = 0; b < grid; ++b) {
        sm_of[b] = (int)p[(size_t)b * wpb].smid;
        if (sm_of[b] < nsm)
            w[sm_of[b]] += b % 8 + 1;
        for (int k = 0; k < wpb; ++k) {
            t0 = std::min(t0, p[(size_t)b * wpb + k].start);
            t1 = std::max(t1, p[(size_t)b * wpb + k].end);
        }
    }
    *span_us = (double)(t1 - t0) * 1e-3;
    int mw = *std::max_element(w.begin(), w.end());
    *atmax = (int)std::count(w.begin(), w.end(), mw);
    return mw;
}

static void variant(mb_json *j, const char *name, int grid, int block)
{
    unsigned *out;
    size_t n = (size_t)grid * block;
    MB_CHECK(cudaMalloc(&out, n * sizeof *out));
    int wpb = (block + 31) / 32;
    size_t recs = (size_t)grid * wpb;
    wl_probe_rec *buf;
    MB_CHECK(cudaMalloc(&buf, recs * RUNS * sizeof *buf));
    unsigned cap = (unsigned)recs;
    MB_CHECK(cudaMemcpyToSymbol(wl_probe_cap, &cap, sizeof cap));

    // warm-up
    for (int k = 0; k < 3; ++k)
        pl_plain<<<grid, block>>>(out, ITERS);
    MB_CHECK(cudaDeviceSynchronize());

    // plain launches back to back: run i = ev[i] .. ev[i + 1]
    std::vector<cudaEvent_t> ev(2 * RUNS + 1);
    for (cudaEvent_t &e : ev)
        MB_CHECK(cudaEventCreate(&e));
    MB_CHECK(cudaEventRecord(ev[0]));
    for (int r = 0; r < RUNS; ++r) {
        pl_plain<<<grid, block>>>(out, ITERS);
        MB_CHECK(cudaEventRecord(ev[r + 1]));
    }
    MB_CHECK(cudaEventSynchronize(ev[RUNS]));
    std::vector<double> plain(RUNS);
    for (int r = 0; r < RUNS; ++r) {
        float ms;
        MB_CHECK(cudaEventElapsedTime(&ms, ev[r], ev[r + 1]));
        plain[r] = ms * 1e3;
    }

    // probed launches, each into its own part of buf, between its own pair of events
    for (int r = 0; r < RUNS; ++r) {
        wl_probe_rec *p = buf + (size_t)r * recs;
        MB_CHECK(cudaMemcpyToSymbolAsync(wl_probe_buf, &p, sizeof p));
        MB_CHECK(cudaEventRecord(ev[2 * r]));
        pl_probe<<<grid, block>>>(out, ITERS);
        MB_CHECK(cudaEventRecord(ev[2 * r + 1]));
    }
    MB_CHECK(cudaEventSynchronize(ev[2 * RUNS - 1]));
    MB_CHECK(cudaGetLastError());
    std::vector<wl_probe_rec> h(recs * RUNS);
    MB_CHECK(cudaMemcpy(h.data(), buf, h.size() * sizeof h[0], cudaMemcpyDeviceToHost));

    int nsm = 0;
    MB_CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    std::vector<double> pev(RUNS), span(RUNS);
    std::vector<int> maxw(RUNS), atmax(RUNS);
    std::vector<std::vector<int>> first_sm(RUNS);
    for (int r = 0; r < RUNS; ++r) {
        float ms;
        MB_CHECK(cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]));
        pev[r] = ms * 1e3;
        maxw[r] = analyse(h.data() + (size_t)r * recs, grid, wpb, nsm, first_sm[r], &span[r],
                          &atmax[r]);
    }

    mb_key(j, name);
    printf("{\n      \"grid\": %d, \"block\": %d, \"iters\": %d,\n", grid, block, ITERS);
    stats("plain_event_us", plain, 0);
    stats("probe_event_us", pev, 0);
    stats("probe_span_us", span, 0);
    // launches grouped by the heaviest SM's work
    std::map<int, std::vector<double>> by_ev, by_span;
    for (int r = 0; r < RUNS; ++r) {
        by_ev[maxw[r]].push_back(pev[r]);
        by_span[maxw[r]].push_back(span[r]);
    }
    printf("      \"by_max_sm_eighths\": {");
    int first = 1;
    for (auto &kv : by_ev) {
        printf("%s\n        \"%d\": {\"launches\": %zu, \"event_us_median\": %.3f, "
               "\"span_us_median\": %.3f, \"span_us_min\": %.3f, \"span_us_max\": %.3f}",
               first ? "" : ",", kv.first, kv.second.size(), pct(kv.second, 0.5),
               pct(by_span[kv.first], 0.5), pct(by_span[kv.first], 0.0),
               pct(by_span[kv.first], 1.0));
        first = 0;
    }
    printf("\n      },\n      \"plain_event_us_all\": [");
    for (int r = 0; r < RUNS; ++r)
        printf("%s%.3f", r ? ", " : "", plain[r]);
    printf("],\n      \"probe_launches\": [");
    for (int r = 0; r < RUNS; ++r)
        printf("%s\n        [%.3f, %.3f, %d, %d]", r ? "," : "", pev[r], span[r], maxw[r],
               atmax[r]);
    printf("\n      ],\n      \"probe_launches_columns\": [\"event_us\", \"span_us\", "
           "\"max_sm_eighths\", \"sms_at_max\"],\n");
    // the block -> SM map of the first probed launch and of the first with the largest work
    int slow = (int)(std::max_element(maxw.begin(), maxw.end()) - maxw.begin());
    int fast = (int)(std::min_element(maxw.begin(), maxw.end()) - maxw.begin());
    const int show[2] = {fast, slow};
    const char *label[2] = {"sm_of_block_lightest", "sm_of_block_heaviest"};
    for (int s = 0; s < 2; ++s) {
        printf("      \"%s\": {\"launch\": %d, \"sm\": [", label[s], show[s]);
        for (int b = 0; b < grid; ++b)
            printf("%s%d", b ? "," : "", first_sm[show[s]][b]);
        printf("]}%s\n", s ? "" : ",");
    }
    printf("    }");
    fflush(stdout);
    for (cudaEvent_t &e : ev)
        MB_CHECK(cudaEventDestroy(e));
    MB_CHECK(cudaFree(buf));
    MB_CHECK(cudaFree(out));
}

// The heaviest SM's work (eighths) of one probed launch of grid x block, and its span (us).
static int probe_once(unsigned *out, wl_probe_rec *buf, int grid, int block, int nsm,
                      std::vector<int> &sm_of, double *span_us)
{
    int wpb = (block + 31) / 32;
    size_t recs = (size_t)grid * wpb;
    pl_probe<<<grid, block>>>(out, ITERS);
    MB_CHECK(cudaDeviceSynchronize());
    std::vector<wl_probe_rec> h(recs);
    MB_CHECK(cudaMemcpy(h.data(), buf, recs * sizeof h[0], cudaMemcpyDeviceToHost));
    int atmax;
    return analyse(h.data(), grid, wpb, nsm, sm_of, span_us, &atmax);
}

#define REPS 6

// A probe record per warp of grid x block, made the probe's buffer (free it with cudaFree).
static wl_probe_rec *probe_buffer(int grid, int block)
{
    wl_probe_rec *buf;
    MB_CHECK(cudaMalloc(&buf, (size_t)grid * (block / 32) * sizeof *buf));
    MB_CHECK(cudaMemcpyToSymbol(wl_probe_buf, &buf, sizeof buf));
    unsigned cap = (unsigned)(grid * (block / 32));
    MB_CHECK(cudaMemcpyToSymbol(wl_probe_cap, &cap, sizeof cap));
    return buf;
}

static void after_k_blocks(mb_json *j)
{
    const int grid = 264, block = 1024;
    const int ks[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 32, 64, 132, 133, 264};
    int nsm = 0;
    MB_CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    unsigned *out, *sink;
    MB_CHECK(cudaMalloc(&out, (size_t)grid * block * sizeof *out));
    MB_CHECK(cudaMalloc(&sink, 2 * sizeof *sink));
    MB_CHECK(cudaMemset(sink, 0, 2 * sizeof *sink));
    wl_probe_rec *buf = probe_buffer(grid, block);
    mb_key(j, "after_k_blocks");
    printf("{\n      \"grid\": %d, \"block\": %d, \"reps\": %d, \"columns\": "
           "[\"max_sm_eighths\", \"span_us\", \"sm_of_block0\", \"sm_of_block1\"],",
           grid, block, REPS);
    int first = 1;
    for (int k : ks) {
        std::vector<int> sm_of, first_sm;
        printf("%s\n      \"%d\": {\"launches\": [", first ? "" : ",", k);
        first = 0;
        for (int r = 0; r < REPS; ++r) {
            if (k > 0)
                pl_tick<<<k, 32>>>(sink);
            double span;
            int mw = probe_once(out, buf, grid, block, nsm, sm_of, &span);
            if (r == 0)
                first_sm = sm_of;
            printf("%s[%d, %.3f, %d, %d]", r ? ", " : "", mw, span, sm_of[0], sm_of[1]);
        }
        printf("], \"sm_of_first_132\": [");
        for (int b = 0; b < 132 && b < grid; ++b)
            printf("%s%d", b ? "," : "", first_sm[b]);
        printf("]}");
        fflush(stdout);
    }
    printf("\n    }");
    MB_CHECK(cudaFree(buf));
    MB_CHECK(cudaFree(sink));
    MB_CHECK(cudaFree(out));
}

#define MEMSET_REPS 100

// "after_memset": the harness (gpu/harness/harness.cu) clears the L2 before every timed launch
// with a cudaMemsetAsync of twice its size. Does that change where the blocks go? MEMSET_REPS
// probed b1024 launches each right after such a memset, and as many without (the control, the
// same loop with the memset left out); per launch the heaviest SM's work, the span and the SMs
// of blocks 0 and 1, and per series the count of launches by heaviest work.
static void after_memset(mb_json *j)
{
    const int grid = 264, block = 1024;
    int nsm = 0, l2 = 0;
    MB_CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    MB_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    size_t flush_bytes = 2 * (size_t)l2;
    unsigned *out;
    void *flush;
    MB_CHECK(cudaMalloc(&out, (size_t)grid * block * sizeof *out));
    MB_CHECK(cudaMalloc(&flush, flush_bytes));
    wl_probe_rec *buf = probe_buffer(grid, block);
    mb_key(j, "after_memset");
    printf("{\n      \"grid\": %d, \"block\": %d, \"reps\": %d, \"memset_bytes\": %zu, "
           "\"columns\": [\"max_sm_eighths\", \"span_us\", \"sm_of_block0\", "
           "\"sm_of_block1\"],",
           grid, block, MEMSET_REPS, flush_bytes);
    for (int with = 1; with >= 0; --with) {
        std::map<int, int> count;
        std::vector<int> sm_of;
        printf("\n      \"%s\": {\"launches\": [", with ? "with_memset" : "without_memset");
        for (int r = 0; r < MEMSET_REPS; ++r) {
            if (with)
                MB_CHECK(cudaMemsetAsync(flush, 0, flush_bytes));
            double span;
            int mw = probe_once(out, buf, grid, block, nsm, sm_of, &span);
            count[mw]++;
            printf("%s[%d, %.3f, %d, %d]", r ? ", " : "", mw, span, sm_of[0], sm_of[1]);
        }
        printf("], \"by_max_sm_eighths\": {");
        int first = 1;
        for (auto &kv : count) {
            printf("%s\"%d\": %d", first ? "" : ", ", kv.first, kv.second);
            first = 0;
        }
        printf("}}%s", with ? "," : "");
        fflush(stdout);
    }
    printf("\n    }");
    MB_CHECK(cudaFree(buf));
    MB_CHECK(cudaFree(flush));
    MB_CHECK(cudaFree(out));
}

int main()
{
    mb_begin("placement");
    mb_json j = {1};
    variant(&j, "b1024", 264, 1024);
    variant(&j, "b128", 2112, 128);
    after_k_blocks(&j);
    after_memset(&j);
    mb_end();
    return 0;
}
