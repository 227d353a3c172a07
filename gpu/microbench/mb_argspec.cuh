// mb_argspec.cuh: device buffers made by sim/argspec.c from `warplab run --arg` specs, so a
// microbenchmark and the simulator start from the same bits (halves.cu's host copy aside), and
// a buffer printed as hex words for the JSON. Needs -I sim and sim/argspec.c, sim/diag.c linked.
#ifndef WL_MB_ARGSPEC_CUH
#define WL_MB_ARGSPEC_CUH

#include "mb_common.cuh"

extern "C" {
#include "argspec.h"
}

// A device buffer holding what spec makes (its size to *bytes); exits on a bad spec.
static void *mb_fill_device(const char *spec, size_t *bytes)
{
    argspec a;
    diag_t d;
    if (argspec_parse(spec, &a, &d) != WL_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    *bytes = (size_t)argspec_bytes(&a);
    void *h = malloc(*bytes), *dev = NULL;
    if (!h || argspec_fill(&a, h, &d) != WL_OK)
        exit(1);
    MB_CHECK(cudaMalloc(&dev, *bytes));
    MB_CHECK(cudaMemcpy(dev, h, *bytes, cudaMemcpyHostToDevice));
    free(h);
    return dev;
}

// The first `words` 32-bit words of device buffer dev as hex digits, word 0 first.
static void mb_hex_out(const void *dev, size_t words)
{
    unsigned *h = (unsigned *)malloc(words * 4);
    MB_CHECK(cudaMemcpy(h, dev, words * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < words; i++)
        printf("%08x", h[i]);
    free(h);
}

// One launch of a tile kernel k(A, B, C, D, n) (or k(A, B, C, D, *s, n) when s is given): A, B
// and C made from specs, D zeroed, `words` 32-bit words of D per tile, 128 threads per block,
// one warp per tile; prints its JSON object under key: the launch, the specs, s when given,
// and D as hex.
static void mb_tile_run(mb_json *j, const char *key, const void *k, const char *as,
                        const char *bs, const char *cs, const float *s, int tiles, int words)
{
    size_t na, nb, nc;
    void *A = mb_fill_device(as, &na), *B = mb_fill_device(bs, &nb);
    void *C = mb_fill_device(cs, &nc);
    float *D, sv = s ? *s : 0.f;
    MB_CHECK(cudaMalloc(&D, (size_t)tiles * words * 4));
    MB_CHECK(cudaMemset(D, 0, (size_t)tiles * words * 4));
    int block = 128, grid = (tiles * 32 + block - 1) / block, n = tiles;
    void *args5[] = {&A, &B, &C, &D, &n}, *args6[] = {&A, &B, &C, &D, &sv, &n};
    MB_CHECK(cudaLaunchKernel(k, dim3(grid), dim3(block), s ? args6 : args5, 0, 0));
    MB_CHECK(cudaDeviceSynchronize());
    mb_key(j, key);
    printf("{\"grid\": %d, \"block\": %d, \"tiles\": %d, \"a\": \"%s\", \"b\": \"%s\", "
           "\"c\": \"%s\", ", grid, block, tiles, as, bs, cs);
    if (s)
        printf("\"s\": %.9g, ", (double)*s);
    printf("\"d_hex\": \"");
    mb_hex_out(D, (size_t)tiles * words);
    printf("\"}");
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(D);
}

#endif
