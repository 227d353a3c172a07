// mma.cu: tests/data/mma/mma_kernels.cu's tensor-core kernels on the GPU, for the simulator's
// mma.sync (sim/exec/xmma.c) to be compared with: D = A x B + C per warp tile, A, B and C made
// by sim/argspec.c from the same --arg specs the simulator takes. Two input sets per kernel:
// small integers (affine: every product and sum exact, so any adder gives the same f32) and
// random values (where the tensor core's adder and the model's double sum may round apart).
// Prints one JSON object (mb_common): per run the specs and D as one hex string of 32-bit
// words, element 0 first. Then the timing of the mma_clock_* kernels (one block of 1, 4, 8 or
// 16 warps on one SM, n iterations of 8 x CH mmas in CH accumulate chains between two clock64
// reads): each warp's cycles and the slowest warp's cycles per mma (the first launch of each is
// a warm-up).
//   nvcc -arch=sm_90 -O3 -std=c++17 -I sim -o mma gpu/microbench/mma.cu sim/argspec.c \
//        sim/diag.c && ./mma > mma.json
#include "../../tests/data/mma/mma_kernels.cu"
#include "mb_argspec.cuh"

int main()
{
    const int t = 64; /* tiles: 64 warps, 16 blocks of 128 threads */
    mb_begin("mma");
    mb_json j = {1};
    const struct {
        const char *key;
        const void *k;
        const char *a, *b, *c;
    } runs[] = {
        {"f16_int", (const void *)mma_f16, "f16[16384]:affine(7,3,9)", "f16[8192]:affine(5,1,7)",
         "f32[8192]:affine(3,2,11)"},
        {"f16_random", (const void *)mma_f16, "f16[16384]:random(-2,2,1)",
         "f16[8192]:random(-2,2,2)", "f32[8192]:random(-1,1,3)"},
        {"bf16_int", (const void *)mma_bf16, "bf16[16384]:affine(7,3,9)",
         "bf16[8192]:affine(5,1,7)", "f32[8192]:affine(3,2,11)"},
        {"bf16_random", (const void *)mma_bf16, "bf16[16384]:random(-2,2,4)",
         "bf16[8192]:random(-2,2,5)", "f32[8192]:random(-1,1,6)"},
        {"f16_k8_int", (const void *)mma_f16_k8, "f16[8192]:affine(7,3,9)",
         "f16[4096]:affine(5,1,7)", "f32[8192]:affine(3,2,11)"},
        {"f16_k8_random", (const void *)mma_f16_k8, "f16[8192]:random(-2,2,7)",
         "f16[4096]:random(-2,2,8)", "f32[8192]:random(-1,1,9)"},
    };
    for (const auto &r : runs) /* D: 16 x 8 f32 per tile */
        mb_tile_run(&j, r.key, r.k, r.a, r.b, r.c, NULL, t, 128);
    const struct {
        const char *name;
        const void *k;
        int ch;
    } clk[] = {{"k16_c1", (const void *)mma_clock_k16_c1, 1},
               {"k16_c2", (const void *)mma_clock_k16_c2, 2},
               {"k16_c4", (const void *)mma_clock_k16_c4, 4},
               {"k8_c1", (const void *)mma_clock_k8_c1, 1},
               {"k8_c2", (const void *)mma_clock_k8_c2, 2},
               {"k8_c4", (const void *)mma_clock_k8_c4, 4}};
    const int warps[] = {1, 4, 8, 16}, n = 1024;
    long long *cyc, hc[16];
    float *out;
    MB_CHECK(cudaMalloc(&cyc, sizeof hc));
    MB_CHECK(cudaMalloc(&out, 16 * 32 * sizeof(float)));
    for (const auto &c : clk)
        for (int w : warps) {
            int nn = n;
            void *args[] = {&cyc, &out, &nn};
            for (int rep = 0; rep < 2; rep++) /* the first: a warm-up */
                MB_CHECK(cudaLaunchKernel(c.k, dim3(1), dim3(32 * w), args, 0, 0));
            MB_CHECK(cudaDeviceSynchronize());
            MB_CHECK(cudaMemcpy(hc, cyc, (size_t)w * sizeof *hc, cudaMemcpyDeviceToHost));
            char key[32];
            snprintf(key, sizeof key, "clock_%s_w%d", c.name, w);
            mb_key(&j, key);
            long long lo = hc[0], hi = hc[0];
            for (int i = 1; i < w; i++)
                lo = hc[i] < lo ? hc[i] : lo, hi = hc[i] > hi ? hc[i] : hi;
            printf("{\"kernel\": \"mma_clock_%s\", \"block\": %d, \"n\": %d, \"chains\": %d, "
                   "\"warp_cycles\": [", c.name, 32 * w, n, c.ch);
            for (int i = 0; i < w; i++)
                printf("%s%lld", i ? ", " : "", hc[i]);
            printf("], \"cycles_per_mma_max_warp\": %.3f}", (double)hi / (8.0 * n * c.ch));
        }
    mb_end();
    return 0;
}
