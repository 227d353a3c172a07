/* libFuzzer target for the executor and the timing model: each input becomes a random PTX
 * kernel (tests/randkernel.h: its first 8 bytes are the seed, every further byte steers one of
 * the generator's choices), which runs functionally and in the timing model seventeen ways; every
 * output word must equal the CPU's evaluation of the same program and every timed run must keep
 * the stall-sum invariant. A difference, an error or a crash aborts with the seed, the way that
 * differed and the PTX (on stderr). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "randkernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static arch_t a;
    static int loaded;
    if (!loaded) { /* the source tree's H200 file: run from the tree or set WARPLAB_ROOT */
        char dir[4096];
        const char *root = getenv("WARPLAB_ROOT");
        snprintf(dir, sizeof dir, "%s/sim/arch", root ? root : ".");
        diag_t d = {0};
        if (arch_load(dir, "h200", &a, &d) != WL_OK) {
            fprintf(stderr, "fuzz_kernels: %s\n", d.msg);
            abort();
        }
        loaded = 1;
    }
    uint64_t seed = 0;
    memcpy(&seed, data, size < 8 ? size : 8);
    static rk_prog p;
    rk_generate(&p, seed, size > 8 ? data + 8 : NULL, size > 8 ? size - 8 : 0);
    char msg[1600];
    if (rk_check(&p, &a, seed, msg, sizeof msg)) {
        fprintf(stderr, "fuzz_kernels: %s\n", msg);
        abort();
    }
    return 0;
}
