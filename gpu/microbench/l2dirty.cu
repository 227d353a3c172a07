// l2dirty.cu: how much written data the L2 keeps at a kernel's end, by footprint.
//
// The copies of gpu/kernels (lat_copy, co_stride1, bk_transpose33, ws_*: 64 MB read, 64 MB
// written) moved about 115 MB through the H200's DRAM under Nsight Compute (its cache control
// flushes and invalidates the caches before each kernel), where the timing model moved about
// 102 MB: the model kept a third more of the written lines in its L2 at the end. This program
// launches the plain, one-element-per-thread patterns those kernels use (default cache
// operators: ld.global / st.global, no streaming hints), at footprints from 8 to 128 MB:
//   write  N MB written (p[i] = f(i))
//   copy   N MB read and N MB written (b[i] = a[i])
//   read   N MB read (a sum nobody uses, kept by a compare)
//   local  N MB of local memory written (each thread fills a 512-byte array the compiler must
//          keep in local memory: dynamic indices), then read back once and summed; the
//          threads are all resident at once (N / 512 bytes of threads, at most 2048 per SM),
//          so each has its own local lines (spilled registers live there too)
// 256 threads per block, one 4-byte element per thread. Run it under Nsight Compute with
// --cache-control all and read dram__bytes_read.sum / dram__bytes_write.sum per launch: the
// written bytes that did not reach DRAM are what the L2 still held dirty at the end.
// Without ncu (no argument "ncu") each launch is also timed with CUDA events after a memset of
// twice the L2 (cold L2, as gpu/harness does). Prints one JSON object: the GPU, the date and,
// per launch in launch order, its pattern, footprint and (without ncu) time; without ncu also
// "l2_bw": the L2's bandwidth for stores and for loads of a working set it holds (8 and 16 MB,
// written or read 256 times by 132 x 8 blocks of 256 threads, grid-stride, 4-byte and 16-byte
// accesses, plain st.global / ld.global.cg), timed with CUDA events after one warm pass.
#include "mb_common.cuh"

#include <cstring>

__global__ void k_write(float *p, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = (float)(i & 1023) * 0.5f;
}

__global__ void k_copy(const float *__restrict__ a, float *__restrict__ b, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = a[i];
}

__global__ void k_read(const float *__restrict__ a, size_t n, float *sink)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n && a[i] == 1234.5f)
        sink[0] = a[i];
}

#define LOCAL_WORDS 128
__global__ void __launch_bounds__(256, 8) k_local(unsigned *out, size_t n, unsigned salt)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned v[LOCAL_WORDS];
    unsigned k = (unsigned)i ^ salt;
#pragma unroll 1
    for (int j = 0; j < LOCAL_WORDS; j++) /* the index depends on salt: local memory */
        v[(j + salt) % LOCAL_WORDS] = k + (unsigned)j;
    unsigned s = 0;
#pragma unroll 1
    for (int j = 0; j < LOCAL_WORDS; j++)
        s += v[(j * 7 + salt) % LOCAL_WORDS];
    if (i < n && s == 0x12345678u)
        out[0] = s;
}

template <typename T>
__global__ void k_l2write(T *p, size_t n, int reps)
{
    for (int r = 0; r < reps; r++)
        for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
             k += (size_t)gridDim.x * blockDim.x) {
            T v;
            memset(&v, r & 0xff, sizeof v);
            p[k] = v;
        }
}

template <typename T>
__global__ void k_l2read(const T *__restrict__ p, size_t n, int reps, float *sink)
{
    unsigned acc = 0;
    for (int r = 0; r < reps; r++)
        for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
             k += (size_t)gridDim.x * blockDim.x) {
            T v = __ldcg(p + k);
            unsigned w;
            memcpy(&w, &v, sizeof w);
            acc += w;
        }
    if (acc == 0x12345678u)
        sink[0] = (float)acc;
}

/* One L2 bandwidth figure: stores (write) or loads of ws_mb MB, 256 passes; GB/s. */
template <typename T>
static double l2_bw(float *buf, int ws_mb, int write, float *sink)
{
    size_t n = ((size_t)ws_mb << 20) / sizeof(T);
    const int reps = 256;
    cudaEvent_t e0, e1;
    MB_CHECK(cudaEventCreate(&e0));
    MB_CHECK(cudaEventCreate(&e1));
    for (int pass = 0; pass < 2; pass++) { /* the first warms the L2 */
        MB_CHECK(cudaEventRecord(e0));
        if (write)
            k_l2write<T><<<132 * 8, 256>>>((T *)buf, n, pass ? reps : 1);
        else
            k_l2read<T><<<132 * 8, 256>>>((const T *)buf, n, pass ? reps : 1, sink);
        MB_CHECK(cudaEventRecord(e1));
        MB_CHECK(cudaEventSynchronize(e1));
        MB_CHECK(cudaGetLastError());
    }
    float ms = 0.f;
    MB_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    return (double)n * sizeof(T) * reps / (ms * 1e-3) / 1e9;
}

int main(int argc, char **argv)
{
    int under_ncu = argc > 1 && strcmp(argv[1], "ncu") == 0;
    const int mbs[] = {8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128};
    const int nmb = (int)(sizeof mbs / sizeof mbs[0]);
    size_t max_bytes = (size_t)128 << 20;
    float *a, *b, *sink;
    MB_CHECK(cudaMalloc(&a, max_bytes));
    MB_CHECK(cudaMalloc(&b, max_bytes));
    MB_CHECK(cudaMalloc(&sink, 64));
    MB_CHECK(cudaMemset(a, 0, max_bytes));
    int dev = 0, l2 = mb_attr(cudaDevAttrL2CacheSize, dev);
    size_t flush_bytes = (size_t)l2 * 2;
    void *flush = nullptr;
    if (!under_ncu)
        MB_CHECK(cudaMalloc(&flush, flush_bytes));
    cudaEvent_t e0, e1;
    MB_CHECK(cudaEventCreate(&e0));
    MB_CHECK(cudaEventCreate(&e1));
    mb_begin("l2dirty");
    mb_json j = {1};
    mb_key(&j, "launches");
    printf("[");
    int first = 1;
    for (int m = 0; m < nmb; m++)
        for (int pat = 0; pat < 4; pat++) {
            size_t n = ((size_t)mbs[m] << 20) / sizeof(float);
            if (pat == 3) /* threads with 512 bytes of local memory each */
                n = ((size_t)mbs[m] << 20) / (LOCAL_WORDS * sizeof(unsigned));
            unsigned blocks = (unsigned)((n + 255) / 256);
            if (!under_ncu)
                MB_CHECK(cudaMemset(flush, pat + 1, flush_bytes));
            MB_CHECK(cudaEventRecord(e0));
            if (pat == 0)
                k_write<<<blocks, 256>>>(b, n);
            else if (pat == 1)
                k_copy<<<blocks, 256>>>(a, b, n);
            else if (pat == 2)
                k_read<<<blocks, 256>>>(a, n, sink);
            else
                k_local<<<blocks, 256>>>((unsigned *)sink, n, (unsigned)m);
            MB_CHECK(cudaEventRecord(e1));
            MB_CHECK(cudaEventSynchronize(e1));
            MB_CHECK(cudaGetLastError());
            float ms = 0.f;
            MB_CHECK(cudaEventElapsedTime(&ms, e0, e1));
            static const char *names[] = {"write", "copy", "read", "local"};
            printf("%s\n    {\"pattern\": \"%s\", \"mb\": %d, \"blocks\": %u, \"event_ms\": %.5f}",
                   first ? "" : ",", names[pat], mbs[m], blocks, under_ncu ? 0.0 : ms);
            first = 0;
        }
    printf("]");
    if (!under_ncu) {
        mb_key(&j, "l2_bw");
        printf("[");
        const int wss[] = {8, 16};
        for (int w = 0; w < 2; w++) {
            double w4 = l2_bw<float>(b, wss[w], 1, sink), w16 = l2_bw<float4>(b, wss[w], 1, sink);
            double r4 = l2_bw<float>(b, wss[w], 0, sink), r16 = l2_bw<float4>(b, wss[w], 0, sink);
            printf("%s\n    {\"working_set_mb\": %d, \"write_4B_gbs\": %.1f, \"write_16B_gbs\": "
                   "%.1f, \"read_4B_gbs\": %.1f, \"read_16B_gbs\": %.1f}", w ? "," : "", wss[w],
                   w4, w16, r4, r16);
        }
        printf("]");
    }
    mb_key(&j, "under_ncu");
    printf("%d", under_ncu);
    mb_end();
    return 0;
}
