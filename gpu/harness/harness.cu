/* wl-harness: runs every case of gpu/cases.txt on a real NVIDIA GPU.
 *
 *   wl-harness --cases gpu/cases.txt --out DIR [--only NAME]... [--ncu] [--min-time S]
 *
 * Per case (timing build):  fill the arguments with sim/argspec.c (the bytes `warplab run` uses),
 * run once and compare the checked buffers with the CPU reference (gpu/reference/), query
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor and cudaFuncGetAttributes, warm up, then time
 * every run with its own pair of CUDA events (>= --min-time seconds in total, 200 runs at least,
 * 5000 at most) and write DIR/NAME.json.
 * The probe build (compiled with -DWL_PROBE, binary wl-harness-probe) instead launches the
 * instrumented kernels once and writes DIR/NAME.probe.json with per-warp and per-block SM,
 * start and end (%globaltimer); gpu/harness/merge.py folds it into NAME.json.
 * --ncu: launch each selected case exactly once, no checks, no timing: the target of one
 * `ncu` process over all cases (ncu's launch IDs follow the case order, listed in DIR/ncu-order.txt).
 * The kernels are linked in (kernels_all.cuh), looked up by name in the table below.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

extern "C" {
#include "diag.h" /* a C header without C++ guards: give its functions C linkage */
}
#include "cases.h"
#include "reference.h"
#include "kernels_all.cuh"

struct h_kernel {
    const char *name;
    const void *fn;
};

static const h_kernel h_kernels[] = {
#define H_ENTRY(name, params) {#name, (const void *)name},
    REF_KERNELS(H_ENTRY)
#undef H_ENTRY
};

static const void *h_lookup(const char *name)
{
    for (const h_kernel &k : h_kernels)
        if (strcmp(k.name, name) == 0)
            return k.fn;
    return nullptr;
}

#define H_CHECK(call)                                                                         \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_));                   \
            goto fail;                                                                        \
        }                                                                                     \
    } while (0)

static void h_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void h_device_json(FILE *f)
{
    int dev = 0, v = 0, drv = 0, rt = 0;
    cudaDeviceProp p;
    memset(&p, 0, sizeof p); /* stays zero (name "") when there is no usable GPU */
    cudaGetDevice(&dev);
    cudaGetDeviceProperties(&p, dev);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    fprintf(f, "  \"gpu\": {\"name\": ");
    h_json_str(f, p.name);
    fprintf(f, ", \"cc\": \"%d.%d\", \"sm_count\": %d", p.major, p.minor, p.multiProcessorCount);
    cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev);
    fprintf(f, ", \"sm_clock_max_khz\": %d", v);
    cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev);
    fprintf(f, ", \"mem_clock_khz\": %d", v);
    cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, dev);
    fprintf(f, ", \"mem_bus_bits\": %d", v);
    fprintf(f, ", \"l2_bytes\": %d, \"driver_version\": %d, \"runtime_version\": %d},\n",
            p.l2CacheSize, drv, rt);
    char date[64];
    time_t now = time(nullptr);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "  \"date\": \"%s\",\n", date);
}

static void h_case_json(FILE *f, const cases_case *c)
{
    fprintf(f, "  \"case\": ");
    h_json_str(f, c->name);
    fprintf(f, ",\n  \"ptx\": ");
    h_json_str(f, c->ptx);
    fprintf(f, ",\n  \"kernel\": ");
    h_json_str(f, c->kernel);
    fprintf(f, ",\n  \"grid\": [%u, %u, %u],\n  \"block\": [%u, %u, %u],\n  \"smem\": %u,\n",
            c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2], c->smem);
    fprintf(f, "  \"args\": [");
    for (int i = 0; i < c->nargs; ++i) {
        fprintf(f, i ? ", " : "");
        h_json_str(f, c->argtext[i]);
    }
    fprintf(f, "],\n");
}

/* DIR/NAME.json (timing build) or DIR/NAME.probe.json (probe build), opened with the device and
 * the launch already written; h_close_record adds "status" and closes it. */
static FILE *h_open_record(const char *dir, const cases_case *c, char *path, size_t n)
{
#ifdef WL_PROBE
    snprintf(path, n, "%s/%s.probe.json", dir, c->name);
#else
    snprintf(path, n, "%s/%s.json", dir, c->name);
#endif
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "{\n");
        h_device_json(f);
        h_case_json(f, c);
    }
    return f;
}

static void h_close_record(FILE *f, const char *status)
{
    fprintf(f, "  \"status\": ");
    h_json_str(f, status);
    fprintf(f, "\n}\n");
    fclose(f);
}

struct h_run {
    const cases_case *c;
    const void *fn;
    cases_arg host[CASES_MAX_ARGS];
    void *dev[CASES_MAX_ARGS];
    void *params[CASES_MAX_ARGS];
};

static void h_release(h_run *r)
{
    for (int i = 0; i < r->c->nargs; ++i)
        if (r->dev[i])
            cudaFree(r->dev[i]);
    cases_free_args(r->c, r->host);
}

/* Fills the host arguments and uploads the buffers. */
static int h_prepare(h_run *r, const cases_case *c, char *err, size_t errlen)
{
    diag_t d;
    diag_clear(&d);
    memset(r, 0, sizeof *r);
    r->c = c;
    r->fn = h_lookup(c->kernel);
    if (!r->fn) {
        snprintf(err, errlen, "kernel %s is not linked into the harness", c->kernel);
        return -1;
    }
    if (cases_fill_args(c, r->host, &d) != WL_OK) {
        snprintf(err, errlen, "%s", d.msg);
        return -1;
    }
    if (c->smem > 48 * 1024) /* above 48 KB dynamic shared memory needs an opt-in */
        H_CHECK(cudaFuncSetAttribute(r->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)c->smem));
    for (int i = 0; i < c->nargs; ++i) {
        if (c->args[i].is_buffer) {
            H_CHECK(cudaMalloc(&r->dev[i], r->host[i].bytes ? r->host[i].bytes : 1));
            H_CHECK(cudaMemcpy(r->dev[i], r->host[i].p, r->host[i].bytes, cudaMemcpyHostToDevice));
            r->params[i] = &r->dev[i];
        } else {
            r->params[i] = r->host[i].p;
        }
    }
    return 0;
fail:
    h_release(r);
    return -1;
}

static cudaError_t h_launch(h_run *r)
{
    const cases_case *c = r->c;
    dim3 g(c->grid[0], c->grid[1], c->grid[2]), b(c->block[0], c->block[1], c->block[2]);
    cudaError_t e = cudaLaunchKernel(r->fn, g, b, r->params, c->smem, 0);
    return e != cudaSuccess ? e : cudaGetLastError();
}

#ifndef WL_PROBE
/* One run from the initial contents, compared with the CPU reference. */
static int h_check(h_run *r, FILE *f, char *err, size_t errlen)
{
    const cases_case *c = r->c;
    diag_t d;
    diag_clear(&d);
    int ok = 1;
    std::vector<std::vector<unsigned char>> got((size_t)c->nchecks);
    H_CHECK(h_launch(r));
    H_CHECK(cudaDeviceSynchronize());
    for (int k = 0; k < c->nchecks; ++k) { /* every CUDA call first: the JSON is written whole */
        const cases_check *chk = &c->checks[k];
        got[(size_t)k].resize(r->host[chk->arg].bytes);
        H_CHECK(cudaMemcpy(got[(size_t)k].data(), r->dev[chk->arg], got[(size_t)k].size(),
                           cudaMemcpyDeviceToHost));
    }
    if (ref_run(c, r->host, &d) != WL_OK) {
        snprintf(err, errlen, "%s", d.msg);
        return -1;
    }
    fprintf(f, "  \"check\": [");
    for (int k = 0; k < c->nchecks; ++k) {
        const cases_check *chk = &c->checks[k];
        char msg[256];
        uint64_t bad = cases_compare(c, chk, got[(size_t)k].data(), r->host[chk->arg].p, msg,
                                     sizeof msg);
        fprintf(f, "%s{\"arg\": %d, \"mode\": \"%s\", \"tol\": %g, \"mismatches\": %llu, \"first\": ",
                k ? ", " : "", chk->arg,
                chk->mode == CASES_CHECK_EXACT ? "exact" : chk->mode == CASES_CHECK_REL ? "rel" : "abs",
                chk->tol, (unsigned long long)bad);
        h_json_str(f, msg);
        fprintf(f, "}");
        if (bad) {
            ok = 0;
            fprintf(stderr, "  %s: MISMATCH %llu elements, %s\n", c->name, (unsigned long long)bad, msg);
        }
    }
    fprintf(f, "],\n  \"correct\": %s,\n", ok ? "true" : "false");
    return ok ? 0 : 1;
fail:
    return -1;
}

static int h_info(h_run *r, FILE *f, char *err, size_t errlen)
{
    const cases_case *c = r->c;
    int blocks = 0;
    cudaFuncAttributes at;
    unsigned tpb = c->block[0] * c->block[1] * c->block[2];
    H_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, r->fn, (int)tpb, c->smem));
    H_CHECK(cudaFuncGetAttributes(&at, r->fn));
    fprintf(f, "  \"occupancy_api\": {\"blocks_per_sm\": %d, \"warps_per_sm\": %u},\n", blocks,
            blocks * ((tpb + 31) / 32));
    fprintf(f, "  \"attributes\": {\"num_regs\": %d, \"local_size_bytes\": %zu, "
               "\"shared_size_bytes\": %zu, \"const_size_bytes\": %zu, \"max_threads_per_block\": %d, "
               "\"ptx_version\": %d, \"binary_version\": %d},\n",
            at.numRegs, at.localSizeBytes, at.sharedSizeBytes, at.constSizeBytes,
            at.maxThreadsPerBlock, at.ptxVersion, at.binaryVersion);
    return 0;
fail:
    return -1;
}

static double h_pct(std::vector<float> &v, double p)
{
    size_t i = (size_t)std::lround(p * (double)(v.size() - 1));
    return v[i];
}

/* Times `ms.size()` launches. flush == nullptr: back-to-back launches with one event between
 * consecutive ones (run i = ev[i] .. ev[i+1]). Otherwise, before each launch a cudaMemsetAsync
 * over `flush` (twice the L2) evicts the kernel's data from L2, outside the run's own pair of
 * events (run i = ev[2i] .. ev[2i+1]): every run starts with a cold L2, like a fresh simulation
 * and like ncu's default --cache-control all. */
static int h_series(h_run *r, void *flush, size_t flush_bytes, std::vector<float> &ms, char *err,
                    size_t errlen)
{
    size_t runs = ms.size(), nev = flush ? 2 * runs : runs + 1;
    std::vector<cudaEvent_t> ev(nev, nullptr);
    int st = -1;
    for (cudaEvent_t &e : ev)
        H_CHECK(cudaEventCreate(&e));
    if (!flush)
        H_CHECK(cudaEventRecord(ev[0]));
    for (size_t i = 0; i < runs; ++i) {
        if (flush) {
            H_CHECK(cudaMemsetAsync(flush, (int)(i & 0xff), flush_bytes));
            H_CHECK(cudaEventRecord(ev[2 * i]));
        }
        H_CHECK(h_launch(r));
        H_CHECK(cudaEventRecord(ev[flush ? 2 * i + 1 : i + 1]));
    }
    H_CHECK(cudaEventSynchronize(ev[nev - 1]));
    for (size_t i = 0; i < runs; ++i)
        H_CHECK(cudaEventElapsedTime(&ms[i], ev[flush ? 2 * i : i], ev[flush ? 2 * i + 1 : i + 1]));
    st = 0;
fail:
    for (cudaEvent_t e : ev)
        if (e)
            cudaEventDestroy(e);
    return st;
}

static void h_stats_json(FILE *f, const char *key, const char *method, std::vector<float> ms,
                         float first_ms)
{
    double sum = 0;
    for (float x : ms)
        sum += x;
    std::sort(ms.begin(), ms.end());
    fprintf(f, "  \"%s\": {\"method\": \"%s\", \"runs\": %zu, \"median_us\": %.3f, \"p10_us\": %.3f, "
               "\"p90_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f, \"mean_us\": %.3f, "
               "\"first_us\": %.3f},\n",
            key, method, ms.size(), 1e3 * h_pct(ms, 0.5), 1e3 * h_pct(ms, 0.1), 1e3 * h_pct(ms, 0.9),
            1e3 * ms.front(), 1e3 * ms.back(), 1e3 * sum / (double)ms.size(), 1e3 * first_ms);
}

/* "timing" (cold L2 before every run) and "timing_warm" (back-to-back, data left in L2 by the
 * previous run when it fits). */
static int h_time(h_run *r, FILE *f, double min_time, char *err, size_t errlen)
{
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    void *flush = nullptr;
    int l2 = 0, dev = 0, st = -1;
    float one = 0;
    H_CHECK(cudaEventCreate(&e0));
    H_CHECK(cudaEventCreate(&e1));
    for (int w = 0; w < 3; ++w)
        H_CHECK(h_launch(r)); /* warm-up: clocks, lazy module loading */
    H_CHECK(cudaEventRecord(e0));
    H_CHECK(h_launch(r));
    H_CHECK(cudaEventRecord(e1));
    H_CHECK(cudaEventSynchronize(e1));
    H_CHECK(cudaEventElapsedTime(&one, e0, e1));
    {
        size_t runs = (size_t)std::min(5000.0, std::max(200.0, std::ceil(min_time * 1e3 /
                                                                         std::max(one, 1e-3f))));
        std::vector<float> ms(runs);
        H_CHECK(cudaGetDevice(&dev));
        H_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        size_t flush_bytes = 2 * (size_t)std::max(l2, 1 << 20);
        if (cudaMalloc(&flush, flush_bytes) == cudaSuccess) {
            if (h_series(r, flush, flush_bytes, ms, err, errlen))
                goto fail;
            h_stats_json(f, "timing", "cudaEvent pair per run after 3 warm-ups; before each run a "
                         "cudaMemsetAsync of twice the L2 evicts the data (cold L2)", ms, one);
        } else {
            cudaGetLastError(); /* clear the failed allocation */
            fprintf(f, "  \"timing_note\": \"no memory for the L2 flush buffer: no cold timing\",\n");
        }
        if (h_series(r, nullptr, 0, ms, err, errlen))
            goto fail;
        h_stats_json(f, "timing_warm", "back-to-back launches, one cudaEvent between consecutive "
                     "runs (data left in L2 by the previous run)", ms, one);
    }
    st = 0;
fail:
    if (flush)
        cudaFree(flush);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return st;
}
#else
/* The instrumented run: per-warp records, blocks derived from their warps. */
#define H_PROBE_CAP (1u << 21)
#define H_JSON_WARPS 8192
#define H_JSON_BLOCKS 8192

/* Which of n records go into the JSON: all when n <= cap, else the first and the last cap/2
 * (the start of the first wave and the tail); every record names its block and warp. */
static bool h_keep(unsigned i, unsigned n, unsigned cap)
{
    return n <= cap || i < cap / 2 || i >= n - cap / 2;
}

static int h_probe(h_run *r, FILE *f, double /* min_time: timing build only */, char *err,
                   size_t errlen)
{
    const cases_case *c = r->c;
    uint64_t nw = cases_warps(c);
    unsigned cap = (unsigned)std::min<uint64_t>(nw, H_PROBE_CAP);
    unsigned tpb = c->block[0] * c->block[1] * c->block[2], wpb = (tpb + 31) / 32;
    wl_probe_rec *d = nullptr;
    std::vector<wl_probe_rec> h(cap);
    H_CHECK(cudaMalloc(&d, (size_t)cap * sizeof(wl_probe_rec)));
    H_CHECK(cudaMemset(d, 0, (size_t)cap * sizeof(wl_probe_rec)));
    H_CHECK(cudaMemcpyToSymbol(wl_probe_buf, &d, sizeof d));
    H_CHECK(cudaMemcpyToSymbol(wl_probe_cap, &cap, sizeof cap));
    H_CHECK(h_launch(r)); /* warm-up, then the recorded run */
    H_CHECK(cudaDeviceSynchronize());
    H_CHECK(cudaMemset(d, 0, (size_t)cap * sizeof(wl_probe_rec)));
    H_CHECK(h_launch(r));
    H_CHECK(cudaDeviceSynchronize());
    H_CHECK(cudaMemcpy(h.data(), d, (size_t)cap * sizeof(wl_probe_rec), cudaMemcpyDeviceToHost));
    cudaFree(d);
    d = nullptr;
    {
        unsigned long long t0 = ~0ull, t1 = 0;
        for (const wl_probe_rec &w : h) {
            t0 = std::min(t0, w.start);
            t1 = std::max(t1, w.end);
        }
        unsigned nb = cap / wpb;
        /* How finely %globaltimer ticks: the smallest gap between distinct readings. */
        std::vector<unsigned long long> ts;
        ts.reserve(2 * (size_t)cap);
        for (const wl_probe_rec &w : h) {
            ts.push_back(w.start);
            ts.push_back(w.end);
        }
        std::sort(ts.begin(), ts.end());
        unsigned long long step = 0;
        for (size_t i = 1; i < ts.size(); ++i)
            if (ts[i] != ts[i - 1] && (step == 0 || ts[i] - ts[i - 1] < step))
                step = ts[i] - ts[i - 1];
        fprintf(f, "  \"probe\": {\"clock\": \"%%globaltimer ns, relative to the first warp start\", "
                   "\"span_ns\": %llu, \"timer_step_ns\": %llu, \"warps_total\": %llu, \"warps_recorded\": %u, "
                   "\"warps_in_json\": %u, \"blocks_in_json\": %u, \"truncated\": %s, \"kept\": "
                   "\"all, or the first and last halves of the cap\"},\n",
                t1 - t0, step, (unsigned long long)nw, cap, std::min(cap, (unsigned)H_JSON_WARPS),
                std::min(nb, (unsigned)H_JSON_BLOCKS),
                (nw > H_JSON_WARPS || nb > H_JSON_BLOCKS) ? "true" : "false");
        fprintf(f, "  \"blocks\": [");
        for (unsigned b = 0, first = 1; b < nb; ++b) {
            if (!h_keep(b, nb, H_JSON_BLOCKS))
                continue;
            unsigned long long s = ~0ull, e = 0;
            for (unsigned w = 0; w < wpb; ++w) {
                s = std::min(s, h[(size_t)b * wpb + w].start);
                e = std::max(e, h[(size_t)b * wpb + w].end);
            }
            fprintf(f, "%s\n    {\"block\": %u, \"sm\": %u, \"start_ns\": %llu, \"end_ns\": %llu}",
                    first ? "" : ",", b, h[(size_t)b * wpb].smid, s - t0, e - t0);
            first = 0;
        }
        fprintf(f, "],\n  \"warps\": [");
        for (unsigned i = 0, first = 1; i < cap; ++i) {
            if (!h_keep(i, cap, H_JSON_WARPS))
                continue;
            fprintf(f, "%s\n    {\"block\": %u, \"warp\": %u, \"sm\": %u, \"hw_warp\": %u, "
                       "\"start_ns\": %llu, \"end_ns\": %llu}",
                    first ? "" : ",", i / wpb, i % wpb, h[i].smid, h[i].warpid, h[i].start - t0,
                    h[i].end - t0);
            first = 0;
        }
        fprintf(f, "],\n");
    }
    return 0;
fail:
    if (d)
        cudaFree(d);
    return -1;
}
#endif

int main(int argc, char **argv)
{
    const char *cases_path = "gpu/cases.txt", *out = nullptr;
    std::vector<const char *> only;
    int ncu = 0;
    double min_time = 0.3;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc)
            cases_path = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only.push_back(argv[++i]);
        else if (!strcmp(argv[i], "--ncu"))
            ncu = 1;
        else if (!strcmp(argv[i], "--min-time") && i + 1 < argc)
            min_time = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: %s --cases FILE --out DIR [--only NAME]... [--ncu] "
                            "[--min-time S]\n", argv[0]);
            return 1;
        }
    }
    if (!out) {
        fprintf(stderr, "%s: --out DIR is required\n", argv[0]);
        return 1;
    }
    cases_list l;
    diag_t d;
    diag_clear(&d);
    if (cases_load(cases_path, &l, &d) != WL_OK) {
        char msg[1400];
        diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    int failures = 0;
    FILE *order = nullptr;
    if (ncu) {
        char p[1024];
        snprintf(p, sizeof p, "%s/ncu-order.txt", out);
        order = fopen(p, "w");
    }
    for (int k = 0; k < l.n; ++k) {
        const cases_case *c = &l.v[k];
        bool want = only.empty();
        for (const char *o : only)
            want |= strcmp(o, c->name) == 0;
        if (!want)
            continue;
        char err[1024] = "", path[1024];
        h_run r;
        if (h_prepare(&r, c, err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", c->name, err);
            ++failures;
            FILE *f = ncu ? nullptr : h_open_record(out, c, path, sizeof path);
            if (f) /* still leave a record saying why */
                h_close_record(f, err);
            continue;
        }
        if (ncu) {
            cudaError_t e = h_launch(&r);
            if (e == cudaSuccess)
                e = cudaDeviceSynchronize();
            if (e != cudaSuccess) {
                fprintf(stderr, "%s: %s\n", c->name, cudaGetErrorString(e));
                ++failures;
            } else if (order) {
                fprintf(order, "%s\n", c->name);
            }
            h_release(&r);
            continue;
        }
        FILE *f = h_open_record(out, c, path, sizeof path);
        if (!f) {
            fprintf(stderr, "%s: cannot write %s\n", c->name, path);
            h_release(&r);
            return 1;
        }
        int st;
#ifdef WL_PROBE
        st = h_probe(&r, f, min_time, err, sizeof err);
#else
        st = h_check(&r, f, err, sizeof err);
        if (st >= 0 && h_info(&r, f, err, sizeof err))
            st = -1;
        if (st >= 0 && h_time(&r, f, min_time, err, sizeof err))
            st = -1;
#endif
        h_close_record(f, st < 0 ? err : st ? "wrong result" : "ok");
        printf("%-20s %s\n", c->name, st < 0 ? err : st ? "WRONG RESULT" : "ok");
        fflush(stdout);
        failures += st != 0;
        h_release(&r);
        if (st < 0 && cudaDeviceSynchronize() != cudaSuccess) {
            fprintf(stderr, "sticky CUDA error after %s: stopping\n", c->name);
            return 2;
        }
    }
    if (order)
        fclose(order);
    cases_free(&l);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
