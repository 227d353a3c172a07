// occ_sweep: ground truth for warplab's occupancy calculator.
//
// Asks CUDA's own occupancy API (cudaOccupancyMaxActiveBlocksPerMultiprocessor and
// cudaOccupancyMaxPotentialBlockSize) on the real GPU, over block sizes, register counts,
// dynamic shared memory sizes and shared-memory carveout preferences, and writes:
//   occupancy-sweep.csv     block,regs,dyn_smem,carveout,blocks_per_sm
//   occupancy-suggest.csv   regs,dyn_smem,min_grid,block_size
//   occupancy-device.json   the device properties the rules depend on, driver, date
// Register counts come from kernels compiled with __maxnreg__(N) and enough live values to
// use them all; the CSV holds the count cudaFuncGetAttributes reports, not the cap.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x)                                                                     \
    do {                                                                          \
        cudaError_t e_ = (x);                                                     \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,            \
                    cudaGetErrorString(e_));                                      \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

// A kernel with many simultaneously live values, so ptxas uses as many registers as allowed.
#define PRESSURE_KERNEL(N)                                                        \
    extern "C" __global__ void __maxnreg__(N) occ_r##N(float *o, const float *in, int n) \
    {                                                                             \
        float a[240];                                                             \
        _Pragma("unroll") for (int i = 0; i < 240; i++) a[i] = in[threadIdx.x + i * n]; \
        float s = 0;                                                              \
        _Pragma("unroll") for (int i = 0; i < 240; i++) s += a[i] * a[239 - i] + a[(i * 7) % 240]; \
        o[threadIdx.x] = s;                                                       \
    }

PRESSURE_KERNEL(16)
PRESSURE_KERNEL(24)
PRESSURE_KERNEL(32)
PRESSURE_KERNEL(33)
PRESSURE_KERNEL(37)
PRESSURE_KERNEL(40)
PRESSURE_KERNEL(48)
PRESSURE_KERNEL(56)
PRESSURE_KERNEL(63)
PRESSURE_KERNEL(64)
PRESSURE_KERNEL(65)
PRESSURE_KERNEL(72)
PRESSURE_KERNEL(80)
PRESSURE_KERNEL(96)
PRESSURE_KERNEL(100)
PRESSURE_KERNEL(128)
PRESSURE_KERNEL(150)
PRESSURE_KERNEL(168)
PRESSURE_KERNEL(200)
PRESSURE_KERNEL(232)
PRESSURE_KERNEL(255)

typedef void (*kfn)(float *, const float *, int);
static const kfn kernels[] = {occ_r16, occ_r24, occ_r32, occ_r33, occ_r37, occ_r40, occ_r48, occ_r56, occ_r63, occ_r64, occ_r65, occ_r72, occ_r80, occ_r96, occ_r100, occ_r128, occ_r150, occ_r168, occ_r200, occ_r232, occ_r255};

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    int dev = 0;
    cudaDeviceProp p;
    CK(cudaSetDevice(dev));
    CK(cudaGetDeviceProperties(&p, dev));
    int drv = 0, rt = 0;
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    int clk = 0, memclk = 0;
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, dev);

    snprintf(path, sizeof path, "%s/occupancy-device.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return 1; }
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "{\n  \"gpu\": \"%s\",\n  \"date\": \"%s\",\n  \"cuda_driver_version\": %d,\n"
               "  \"cuda_runtime_version\": %d,\n  \"compute_capability\": \"%d.%d\",\n"
               "  \"multiProcessorCount\": %d,\n  \"maxThreadsPerMultiProcessor\": %d,\n"
               "  \"maxThreadsPerBlock\": %d,\n  \"maxBlocksPerMultiProcessor\": %d,\n"
               "  \"regsPerMultiprocessor\": %d,\n  \"regsPerBlock\": %d,\n"
               "  \"sharedMemPerMultiprocessor\": %zu,\n  \"sharedMemPerBlock\": %zu,\n"
               "  \"sharedMemPerBlockOptin\": %zu,\n  \"reservedSharedMemPerBlock\": %zu,\n"
               "  \"l2CacheSize\": %d,\n  \"persistingL2CacheMaxSize\": %d,\n"
               "  \"memoryBusWidth\": %d,\n  \"clockRate_kHz\": %d,\n  \"memoryClockRate_kHz\": %d,\n"
               "  \"warpSize\": %d,\n  \"totalGlobalMem\": %zu\n}\n",
            p.name, date, drv, rt, p.major, p.minor, p.multiProcessorCount,
            p.maxThreadsPerMultiProcessor, p.maxThreadsPerBlock, p.maxBlocksPerMultiProcessor,
            p.regsPerMultiprocessor, p.regsPerBlock, p.sharedMemPerMultiprocessor,
            p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock,
            p.l2CacheSize, p.persistingL2CacheMaxSize, p.memoryBusWidth, clk, memclk, p.warpSize,
            p.totalGlobalMem);
    fclose(f);

    static const int blocks[] = {1,   17,  32,  64,  96,  100, 128, 160, 192, 224, 256, 288, 320, 384,
                                 448, 512, 544, 576, 640, 672, 768, 800, 896, 992, 1000, 1023, 1024};
    static const int smems[] = {0,     1024,  2048,  4096,   8192,   12288,  16384,  24576,  32768,
                                40000, 49152, 65536, 98304,  100000, 131072, 163840, 200000, 232448};
    static const int carveouts[] = {-1, 0, 25, 50, 100};
    const int nk = (int)(sizeof kernels / sizeof kernels[0]);

    snprintf(path, sizeof path, "%s/occupancy-sweep.csv", dir);
    FILE *c = fopen(path, "w");
    snprintf(path, sizeof path, "%s/occupancy-suggest.csv", dir);
    FILE *s = fopen(path, "w");
    if (!c || !s) { perror("csv"); return 1; }
    fprintf(c, "block,regs,dyn_smem,carveout,blocks_per_sm\n");
    fprintf(s, "regs,dyn_smem,min_grid,block_size\n");
    long rows = 0;
    for (int k = 0; k < nk; k++) {
        cudaFuncAttributes a;
        CK(cudaFuncGetAttributes(&a, kernels[k]));
        if (a.sharedSizeBytes != 0) { fprintf(stderr, "unexpected static smem\n"); return 1; }
        // Opt in to the largest dynamic shared memory the device allows for this kernel.
        CK(cudaFuncSetAttribute(kernels[k], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)p.sharedMemPerBlockOptin));
        for (unsigned ci = 0; ci < sizeof carveouts / sizeof carveouts[0]; ci++) {
            CK(cudaFuncSetAttribute(kernels[k], cudaFuncAttributePreferredSharedMemoryCarveout,
                                    carveouts[ci]));
            for (unsigned si = 0; si < sizeof smems / sizeof smems[0]; si++) {
                for (unsigned bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
                    int nb = -1;
                    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                        &nb, kernels[k], blocks[bi], (size_t)smems[si]);
                    if (e != cudaSuccess) {
                        cudaGetLastError();
                        nb = -1; // the API refused the configuration
                    }
                    fprintf(c, "%d,%d,%d,%d,%d\n", blocks[bi], a.numRegs, smems[si], carveouts[ci], nb);
                    rows++;
                }
                if (carveouts[ci] == -1) {
                    int mg = -1, bs = -1;
                    cudaError_t e = cudaOccupancyMaxPotentialBlockSize(&mg, &bs, kernels[k],
                                                                       (size_t)smems[si], 0);
                    if (e != cudaSuccess) { cudaGetLastError(); mg = bs = -1; }
                    fprintf(s, "%d,%d,%d,%d\n", a.numRegs, smems[si], mg, bs);
                }
            }
        }
    }
    fclose(c);
    fclose(s);
    printf("%s: %ld occupancy rows, driver %d, runtime %d\n", p.name, rows, drv, rt);
    return 0;
}
