// sched.cu: which warp a scheduler picks when several can issue (the issue policy), from
// tests/data/sched/sched_kernels.cu: one block of 4 n warps (n = 1, 2, 4, 8 per scheduler) on
// one SM, each warp 16 segments of m iterations of 8 x ILP FFMAs (ILP 1, 2, 4, 8 independent
// chains) with a %clock stamp before the first segment and after each. A greedy scheduler
// lets one warp run its segments while the others on its scheduler wait; a round-robin one
// advances them together: the stamps show which. Prints one JSON object (mb_common): per
// kernel and block, for each of 4 launches (after a warm-up) every warp's 17 stamps minus the
// block's earliest first stamp.
//   nvcc -arch=sm_90 -O3 -std=c++17 -o sched gpu/microbench/sched.cu && ./sched > sched.json
#include "../../tests/data/sched/sched_kernels.cu"
#include "mb_common.cuh"

int main()
{
    mb_begin("sched");
    mb_json j = {1};
    const struct {
        const char *name;
        const void *k;
    } ks[] = {{"i1", (const void *)sched_order_i1},
              {"i2", (const void *)sched_order_i2},
              {"i4", (const void *)sched_order_i4},
              {"i8", (const void *)sched_order_i8}};
    const int warps[] = {4, 8, 16, 32}, launches = 4;
    int m = 16;
    float x = 1.0001f, y = 0.5f;
    unsigned *st, hs[32 * 17];
    float *out;
    MB_CHECK(cudaMalloc(&st, sizeof hs));
    MB_CHECK(cudaMalloc(&out, 1024 * sizeof(float)));
    for (const auto &k : ks)
        for (int w : warps) {
            void *args[] = {&st, &out, &x, &y, &m};
            char key[32];
            snprintf(key, sizeof key, "order_%s_w%d", k.name, w);
            mb_key(&j, key);
            printf("{\"kernel\": \"sched_order_%s\", \"block\": %d, \"m\": %d, \"stamps\": [",
                   k.name, 32 * w, m);
            for (int rep = 0; rep <= launches; rep++) { /* rep 0: a warm-up */
                MB_CHECK(cudaLaunchKernel(k.k, dim3(1), dim3(32 * w), args, 0, 0));
                MB_CHECK(cudaDeviceSynchronize());
                if (rep == 0)
                    continue;
                MB_CHECK(cudaMemcpy(hs, st, (size_t)w * 17 * sizeof *hs,
                                    cudaMemcpyDeviceToHost));
                unsigned lo = hs[0];
                for (int i = 1; i < w; i++)
                    lo = (int)(hs[17 * i] - lo) < 0 ? hs[17 * i] : lo;
                printf("%s[", rep > 1 ? ", " : "");
                for (int i = 0; i < w; i++) {
                    printf("%s[", i ? ", " : "");
                    for (int s = 0; s < 17; s++)
                        printf("%s%u", s ? ", " : "", hs[17 * i + s] - lo);
                    printf("]");
                }
                printf("]");
            }
            printf("]}");
            fflush(stdout);
        }
    mb_end();
    cudaFree(st);
    cudaFree(out);
    return 0;
}
