// wmma.cu: tests/data/wmma/wmma_kernels.cu (the CUDA wmma API, m16n16k16) on the GPU, for the
// simulator's wmma.load/mma/store (sim/exec/xmma.c) to be compared with. Prints one JSON object
// (mb_common): the fragment layouts the H200 uses (lane l's element i of each fragment kind:
// the index of the matrix element it holds, -1 past num_elements), then per tile kernel and
// input set the specs and D as one hex string of 32-bit words, element 0 first; then the
// 32 x 32 x 32 product through shared memory.
//   nvcc -arch=sm_90 -O3 -std=c++17 -I sim -o wmma gpu/microbench/wmma.cu sim/argspec.c \
//        sim/diag.c && ./wmma > wmma.json
#include "../../tests/data/wmma/wmma_kernels.cu"
#include "mb_argspec.cuh"

static void layout_run(mb_json *j, const char *key, const void *k, const char *spec)
{
    size_t nm;
    void *m = mb_fill_device(spec, &nm);
    float *out;
    MB_CHECK(cudaMalloc(&out, 512 * sizeof(float)));
    void *args[] = {&m, &out};
    MB_CHECK(cudaLaunchKernel(k, dim3(1), dim3(32), args, 0, 0));
    MB_CHECK(cudaDeviceSynchronize());
    float h[512];
    MB_CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    mb_key(j, key);
    printf("{\"matrix\": \"%s\", \"element\": [", spec);
    for (int i = 0; i < 512; i++)
        printf("%s%d", i ? ", " : "", (int)h[i]);
    printf("]}");
    cudaFree(m);
    cudaFree(out);
}

int main()
{
    mb_begin("wmma");
    mb_json j = {1};
    layout_run(&j, "layout_a_row", (const void *)wl_a_row, "f16[256]:iota");
    layout_run(&j, "layout_a_col", (const void *)wl_a_col, "f16[256]:iota");
    layout_run(&j, "layout_b_row", (const void *)wl_b_row, "f16[256]:iota");
    layout_run(&j, "layout_b_col", (const void *)wl_b_col, "f16[256]:iota");
    layout_run(&j, "layout_a_row_bf16", (const void *)wl_a_row_bf16, "bf16[256]:iota");
    layout_run(&j, "layout_c_row", (const void *)wl_c_row, "f32[256]:iota");
    layout_run(&j, "layout_c_col", (const void *)wl_c_col, "f32[256]:iota");
    const int t = 32;
    const struct {
        const char *key;
        const void *k;
        const char *a, *b, *c;
        float s;
    } runs[] = {
        {"rc_int", (const void *)wmma_rc, "f16[8192]:affine(7,3,9)", "f16[8192]:affine(5,1,7)",
         "f32[8192]:affine(3,2,11)", 2.f},
        {"rc_random", (const void *)wmma_rc, "f16[8192]:random(-2,2,1)",
         "f16[8192]:random(-2,2,2)", "f32[8192]:random(-1,1,3)", 0.5f},
        {"rr_random", (const void *)wmma_rr, "f16[8192]:random(-2,2,4)",
         "f16[8192]:random(-2,2,5)", "f32[8192]:random(-1,1,6)", 1.f},
        {"cc_random", (const void *)wmma_cc, "f16[8192]:random(-2,2,7)",
         "f16[8192]:random(-2,2,8)", "f32[8192]:random(-1,1,9)", 1.f},
        {"cr_random", (const void *)wmma_cr, "f16[8192]:random(-2,2,10)",
         "f16[8192]:random(-2,2,11)", "f32[8192]:random(-1,1,12)", -1.f},
        {"bf16_rc_random", (const void *)wmma_bf16_rc, "bf16[8192]:random(-2,2,13)",
         "bf16[8192]:random(-2,2,14)", "f32[8192]:random(-1,1,15)", 1.f},
    };
    for (const auto &r : runs)
        mb_tile_run(&j, r.key, r.k, r.a, r.b, r.c, &r.s, t, 256); /* D: 16 x 16 f32 */
    {
        size_t na, nb;
        const char *as = "f16[1024]:random(-1,1,16)", *bs = "f16[1024]:random(-1,1,17)";
        void *A = mb_fill_device(as, &na), *B = mb_fill_device(bs, &nb);
        float *D;
        MB_CHECK(cudaMalloc(&D, 1024 * 4));
        void *args[] = {&A, &B, &D};
        MB_CHECK(cudaLaunchKernel((const void *)wmma_shared, dim3(1), dim3(128), args, 0, 0));
        MB_CHECK(cudaDeviceSynchronize());
        mb_key(&j, "shared");
        printf("{\"grid\": 1, \"block\": 128, \"a\": \"%s\", \"b\": \"%s\", \"d_hex\": \"", as, bs);
        mb_hex_out(D, 1024);
        printf("\"}");
    }
    mb_end();
    return 0;
}
