// latency.cu: dependent-chain latencies on one SM, timed with clock64 (SM cycles).
//
// What it measures (each as cycles per step of a dependent chain, loop overhead amortised over
// 256 unrolled steps):
//   instr   FFMA, IMAD, IADD, DFMA, MUFU ex2/rsqrt/sin, POPC, SHFL: one PTX instruction per step
//           written with inline PTX so nvcc keeps it; ptxas may still fuse or expand (measure.sh
//           dumps the SASS so the step->SASS mapping can be checked). The simulator executes PTX,
//           so cycles per PTX step is the number it needs.
//   smem    one warp chasing shared addresses (each word holds its own address, so a step is
//           one LDS with no address arithmetic) with n lanes per bank (n-way conflict,
//           n = 1..32) and with all lanes on one word (broadcast).
//   chase   one thread chasing 64-bit pointers at 128-B granularity through a footprint:
//           ld.global (L1) for small footprints, ld.global.cg (L2) for larger ones, each after a
//           warm-up lap IN THE SAME LAUNCH (a launch invalidates the L1; the first run, with the
//           warm-up in its own launch, saw no L1 hits), ld.global.cg on a cold footprint after
//           flushing the L2 (DRAM). The ring
//           visits lines in a large co-prime stride so consecutive steps are far apart.
//   atomic  returning atom.global.add dependent on the previous result (1 lane, 32 lanes on one
//           address, 32 lanes on distinct lines) and atom.shared.add (1 lane).
#include "mb_common.cuh"

#define UNROLL 256

// One kernel per instruction: x = OP(x, y) UNROLL x iters times; cycles to out_cyc.
#define CHAIN(NAME, T, C, ASM)                                                             \
    __global__ void k_##NAME(T *out, T y, long long *cyc, int iters)                     \
    {                                                                                      \
        T x = out[threadIdx.x];                                                            \
        int lane = threadIdx.x & 31;                                                       \
        (void)lane;                                                                        \
        __syncwarp();                                                                      \
        long long t0 = clock64();                                                          \
        for (int i = 0; i < iters; i++) {                                                  \
            _Pragma("unroll") for (int j = 0; j < UNROLL; j++) asm volatile(ASM            \
                                                                            : "+" C(x)     \
                                                                            : C(y), "r"(lane)); \
        }                                                                                  \
        long long t1 = clock64();                                                          \
        out[threadIdx.x] = x;                                                              \
        if (threadIdx.x == 0)                                                              \
            cyc[0] = t1 - t0;                                                              \
    }

CHAIN(ffma, float, "f", "fma.rn.f32 %0, %0, %1, %1;")
CHAIN(fadd, float, "f", "add.f32 %0, %0, %1;")
CHAIN(imad, int, "r", "mad.lo.s32 %0, %0, %1, %1;")
CHAIN(iadd, int, "r", "add.s32 %0, %0, %1;")
CHAIN(dfma, double, "d", "fma.rn.f64 %0, %0, %1, %1;")
CHAIN(ex2, float, "f", "ex2.approx.ftz.f32 %0, %0;")
CHAIN(rsqrt, float, "f", "rsqrt.approx.ftz.f32 %0, %0;")
CHAIN(sin, float, "f", "sin.approx.ftz.f32 %0, %0;")
CHAIN(popc, int, "r", "popc.b32 %0, %0;")
CHAIN(shfl, int, "r", "shfl.sync.idx.b32 %0, %0, %2, 31, -1;")

template <typename T>
static double run_chain(void (*k)(T *, T, long long *, int), T init, T y, int threads)
{
    T *d;
    long long *c, h = 0;
    T hx[32];
    for (int i = 0; i < 32; i++)
        hx[i] = init;
    const int iters = 64;
    MB_CHECK(cudaMalloc(&d, sizeof hx));
    MB_CHECK(cudaMalloc(&c, sizeof h));
    MB_CHECK(cudaMemcpy(d, hx, sizeof hx, cudaMemcpyHostToDevice));
    k<<<1, threads>>>(d, y, c, 2); // warm the instruction cache
    MB_CHECK(cudaMemcpy(d, hx, sizeof hx, cudaMemcpyHostToDevice));
    k<<<1, threads>>>(d, y, c, iters);
    MB_CHECK(cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost));
    MB_CHECK(cudaFree(d));
    MB_CHECK(cudaFree(c));
    return (double)h / ((double)iters * UNROLL);
}

// ---- shared memory: n-way bank conflicts --------------------------------------------------
// Lane l reads word (l % (32/n)) + (l / (32/n)) * 32: n lanes on each of 32/n banks, distinct
// words. ways = 0 means broadcast (every lane on word 0).
__global__ void k_smem(int ways, long long *cyc, unsigned *sink, int iters)
{
    /* each word holds its own shared-window address: the chase needs no address arithmetic */
    __shared__ unsigned s[32 * 32];
    for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
        s[i] = (unsigned)__cvta_generic_to_shared(&s[i]);
    __syncthreads();
    int l = threadIdx.x;
    unsigned idx = ways == 0 ? 0u : (unsigned)((l % (32 / ways)) + (l / (32 / ways)) * 32);
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[idx]);
    long long t0 = clock64();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int j = 0; j < UNROLL; j++)
            asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a));
    }
    long long t1 = clock64();
    sink[l] = a;
    if (l == 0)
        cyc[0] = t1 - t0;
}

static double run_smem(int ways)
{
    long long *c, h = 0;
    unsigned *sink;
    const int iters = 32;
    MB_CHECK(cudaMalloc(&c, sizeof h));
    MB_CHECK(cudaMalloc(&sink, 32 * sizeof(unsigned)));
    k_smem<<<1, 32>>>(ways, c, sink, 1);
    k_smem<<<1, 32>>>(ways, c, sink, iters);
    MB_CHECK(cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost));
    MB_CHECK(cudaFree(c));
    MB_CHECK(cudaFree(sink));
    return (double)h / ((double)iters * UNROLL);
}

// ---- global pointer chase -------------------------------------------------------------------
// Line k (128 B apart) holds the address of line (k + P) mod n.
__global__ void k_ring(unsigned long long *buf, size_t n, size_t P)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
         k += (size_t)gridDim.x * blockDim.x)
        buf[k * 16] = (unsigned long long)(buf + ((k + P) % n) * 16);
}

__global__ void k_flush(float4 *p, size_t n)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
         k += (size_t)gridDim.x * blockDim.x)
        p[k] = make_float4(1.f, 2.f, 3.f, (float)k);
}

/* warm steps first (not timed), then `steps` timed ones, in ONE launch: a kernel launch
 * invalidates the L1, so a warm-up in an earlier launch would leave the L1 cold. */
template <int CG>
__global__ void k_chase(unsigned long long *start, long long warm, long long steps,
                        long long *cyc, unsigned long long *sink)
{
    unsigned long long p = (unsigned long long)start;
    long long t0 = 0;
    for (long long i = 0; i < warm + steps; i += 16) {
        if (i == warm)
            t0 = clock64();
#pragma unroll
        for (int j = 0; j < 16; j++) {
            if (CG)
                asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p));
            else
                asm volatile("ld.global.u64 %0, [%0];" : "+l"(p));
        }
    }
    long long t1 = clock64();
    sink[0] = p;
    cyc[0] = t1 - t0;
}

static int is_prime(size_t v)
{
    if (v < 2)
        return 0;
    for (size_t d = 2; d * d <= v; d++)
        if (v % d == 0)
            return 0;
    return 1;
}

// mode: 0 = L1 (ld.global, warm), 1 = L2 (cg, warm), 2 = DRAM (cg, cold: L2 flushed)
static double run_chase(size_t footprint, int mode, long long *steps_out)
{
    size_t n = footprint / 128;
    size_t P = n < 4 ? 1 : (size_t)((double)n * 0.618);
    while (n >= 4 && (!is_prime(P) || n % P == 0))
        P++;
    unsigned long long *buf, *sink;
    long long *c, h = 0;
    MB_CHECK(cudaMalloc(&buf, footprint));
    MB_CHECK(cudaMalloc(&c, sizeof h));
    MB_CHECK(cudaMalloc(&sink, 8));
    k_ring<<<264, 256>>>(buf, n, P);
    MB_CHECK(cudaGetLastError());
    long long steps = (long long)n, warm = 0;
    if (mode == 2) {
        size_t fl = (size_t)256 << 20;
        float4 *f;
        MB_CHECK(cudaMalloc(&f, fl));
        k_flush<<<264, 256>>>(f, fl / sizeof(float4));
        MB_CHECK(cudaDeviceSynchronize());
        MB_CHECK(cudaFree(f));
        steps = 8192;
    } else {
        warm = (steps + 15) / 16 * 16; /* one full lap, rounded up to the unroll */
        if (steps > 65536)
            steps = 65536;
    }
    steps = (steps + 15) / 16 * 16;
    if (mode == 0)
        k_chase<0><<<1, 1>>>(buf, warm, steps, c, sink);
    else
        k_chase<1><<<1, 1>>>(buf, warm, steps, c, sink);
    MB_CHECK(cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost));
    MB_CHECK(cudaFree(buf));
    MB_CHECK(cudaFree(c));
    MB_CHECK(cudaFree(sink));
    *steps_out = steps;
    return (double)h / (double)steps;
}

// ---- atomics (returning, dependent) ---------------------------------------------------------
// Each lane: x = atomicAdd(base + lane*stride + (x >> 30), 1); x stays small so the offset term
// is 0 but the compiler must wait for x: address math (~2 ALU ops) is part of each step.
__global__ void k_atom_global(unsigned *base, int stride, int iters, long long *cyc, unsigned *sink)
{
    unsigned x = 0;
    unsigned *p = base + threadIdx.x * stride;
    long long t0 = clock64();
    for (int i = 0; i < iters; i++)
        x = atomicAdd(p + (x >> 30), 1u);
    long long t1 = clock64();
    sink[threadIdx.x] = x;
    if (threadIdx.x == 0)
        cyc[0] = t1 - t0;
}

__global__ void k_atom_shared(int iters, long long *cyc, unsigned *sink)
{
    __shared__ unsigned s[64];
    s[threadIdx.x] = 0;
    __syncthreads();
    unsigned x = 0;
    long long t0 = clock64();
    for (int i = 0; i < iters; i++)
        x = atomicAdd(&s[x >> 30], 1u);
    long long t1 = clock64();
    sink[threadIdx.x] = x;
    cyc[0] = t1 - t0;
}

static double run_atom(int lanes, int stride, int shared)
{
    unsigned *base, *sink;
    long long *c, h = 0;
    const int iters = 2048;
    MB_CHECK(cudaMalloc(&base, 32 * 64 * sizeof(unsigned)));
    MB_CHECK(cudaMemset(base, 0, 32 * 64 * sizeof(unsigned)));
    MB_CHECK(cudaMalloc(&sink, 32 * sizeof(unsigned)));
    MB_CHECK(cudaMalloc(&c, sizeof h));
    for (int rep = 0; rep < 2; rep++) {
        if (shared)
            k_atom_shared<<<1, lanes>>>(rep ? iters : 16, c, sink);
        else
            k_atom_global<<<1, lanes>>>(base, stride, rep ? iters : 16, c, sink);
    }
    MB_CHECK(cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost));
    MB_CHECK(cudaFree(base));
    MB_CHECK(cudaFree(sink));
    MB_CHECK(cudaFree(c));
    return (double)h / iters;
}

int main(void)
{
    mb_begin("latency");
    mb_json top = {1};

    mb_key(&top, "instr_cycles_per_step");
    printf("{\"ffma\": %.2f, \"fadd\": %.2f, \"imad\": %.2f, \"iadd\": %.2f, \"dfma\": %.2f, "
           "\"mufu_ex2\": %.2f, \"mufu_rsqrt\": %.2f, \"mufu_sin\": %.2f, \"popc\": %.2f, "
           "\"shfl_idx\": %.2f}",
           run_chain<float>(k_ffma, 1.0f, 0.5f, 1), run_chain<float>(k_fadd, 1.0f, 0.5f, 1),
           run_chain<int>(k_imad, 3, 5, 1), run_chain<int>(k_iadd, 3, 5, 1),
           run_chain<double>(k_dfma, 1.0, 0.5, 1), run_chain<float>(k_ex2, -4.0f, 0.f, 1),
           run_chain<float>(k_rsqrt, 2.0f, 0.f, 1), run_chain<float>(k_sin, 1.0f, 0.f, 1),
           run_chain<int>(k_popc, 12345, 0, 1), run_chain<int>(k_shfl, 7, 0, 32));

    mb_key(&top, "smem_cycles_per_load");
    printf("{\"broadcast\": %.2f", run_smem(0));
    for (int w = 1; w <= 32; w *= 2)
        printf(", \"ways_%d\": %.2f", w, run_smem(w));
    printf("}");

    mb_key(&top, "chase");
    printf("[");
    static const struct {
        size_t kb;
        int mode;
    } fp[] = {{8, 0},          {32, 0},         {128, 0},        {192, 0},
              {224, 0},        {256, 0},        {1024, 1},       {8192, 1},
              {24576, 1},      {32768, 1},      {40960, 1},      {49152, 1},
              {57344, 1},      {262144, 2},     {1048576, 2}};
    static const char *modes[] = {"l1_warm", "l2_cg_warm", "dram_cg_cold"};
    for (size_t i = 0; i < sizeof fp / sizeof fp[0]; i++) {
        long long steps = 0;
        double cyc = run_chase(fp[i].kb * 1024, fp[i].mode, &steps);
        printf("%s\n    {\"footprint_bytes\": %zu, \"mode\": \"%s\", \"steps\": %lld, "
               "\"cycles_per_load\": %.2f}",
               i ? "," : "", fp[i].kb * 1024, modes[fp[i].mode], steps, cyc);
        fflush(stdout);
    }
    printf("]");

    mb_key(&top, "atomic_cycles_per_op");
    printf("{\"global_1lane\": %.2f, \"global_32lanes_same_addr\": %.2f, "
           "\"global_32lanes_distinct_lines\": %.2f, \"shared_1lane\": %.2f}",
           run_atom(1, 0, 0), run_atom(32, 0, 0), run_atom(32, 32, 0), run_atom(1, 0, 1));
    mb_end();
    return 0;
}
