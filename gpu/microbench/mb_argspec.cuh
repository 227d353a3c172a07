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

#endif
