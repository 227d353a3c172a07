// halves.cu: the f16/bf16 arithmetic of tests/data/run/run_kernels.cu's `halves` kernel on the
// GPU, for the simulator's 16-bit float path to be compared with bit for bit: y[i] =
// bf16(f16(x[i] * s)) + b, with x, s and b made by sim/argspec.c from the same --arg specs the
// simulator takes (so both sides start from the same bits). Prints one JSON object (mb_common):
// the specs and y as one hex string of 16-bit words, element 0 first.
//   nvcc -arch=sm_90 -O3 -std=c++17 -I sim -o halves gpu/microbench/halves.cu sim/argspec.c \
//        sim/diag.c && ./halves > halves.json
// Compare: warplab run tests/data/run/run_kernels.cu --kernel halves --grid 16 --block 256 \
//   --arg 'f16[4096]:random(-300,300,3)' --arg f16:0.3 --arg bf16:-1.25 \
//   --arg 'bf16[4096]:zeros' --arg s32:4096 --dump DIR   (DIR/arg3.bin: y, little-endian)
#include "../../tests/data/run/run_kernels.cu"
#include "mb_common.cuh"

#include <cstring>

extern "C" {
#include "argspec.h"
}

static void fill(const char *spec, void **host, size_t *bytes)
{
    argspec a;
    diag_t d;
    if (argspec_parse(spec, &a, &d) != WL_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    *bytes = (size_t)argspec_bytes(&a);
    *host = malloc(*bytes);
    if (!*host || argspec_fill(&a, *host, &d) != WL_OK)
        exit(1);
}

int main()
{
    const char *xs = "f16[4096]:random(-300,300,3)", *ss = "f16:0.3", *bs = "bf16:-1.25";
    const int n = 4096;
    void *hx, *hs, *hb;
    size_t nx, ns, nb;
    fill(xs, &hx, &nx);
    fill(ss, &hs, &ns);
    fill(bs, &hb, &nb);
    __half s, *dx;
    __nv_bfloat16 b, *dy;
    memcpy(&s, hs, 2);
    memcpy(&b, hb, 2);
    MB_CHECK(cudaMalloc(&dx, nx));
    MB_CHECK(cudaMalloc(&dy, (size_t)n * 2));
    MB_CHECK(cudaMemcpy(dx, hx, nx, cudaMemcpyHostToDevice));
    MB_CHECK(cudaMemset(dy, 0, (size_t)n * 2));
    halves<<<(n + 255) / 256, 256>>>(dx, s, b, dy, n);
    MB_CHECK(cudaGetLastError());
    unsigned short *hy = (unsigned short *)malloc((size_t)n * 2);
    MB_CHECK(cudaMemcpy(hy, dy, (size_t)n * 2, cudaMemcpyDeviceToHost));
    mb_begin("halves");
    mb_json j = {1};
    mb_key(&j, "halves");
    printf("{\"grid\": %d, \"block\": 256, \"n\": %d, \"x\": \"%s\", \"s\": \"%s\", \"b\": \"%s\", "
           "\"y_hex\": \"",
           (n + 255) / 256, n, xs, ss, bs);
    for (int i = 0; i < n; i++)
        printf("%04x", hy[i]);
    printf("\"}");
    mb_end();
    return 0;
}
