/* libFuzzer target for the spill-map loader (sim/spillmap.c, inih underneath) and the timing
 * model's use of a map: any bytes must load or fail with WL_EUSAGE and a one-line message naming
 * the file, never crash, hang or leak. A map that loads must keep its promises (bytes 4, 8 or
 * 16, every access inside the frame, a frame for every kernel), and its entry for the small
 * kernel below must either be refused by timing_run with a message naming the map (a line
 * without an instruction, an op after a branch or `ret`) or run to the end of the launch. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "devmem.h"
#include "fuzz_scratch.h"
#include "ptx.h"
#include "spillmap.h"
#include "timing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Lines 7-11 are instructions (a folded mov, three fma, ret): a map naming them runs. */
static const char kernel_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                 ".visible .entry k()\n{\n .reg .f32 %f<8>;\n"
                                 " mov.f32 %f1, 0f3F800000;\n"
                                 " fma.rn.f32 %f2, %f1, %f1, %f1;\n"
                                 " fma.rn.f32 %f3, %f2, %f2, %f2;\n"
                                 " fma.rn.f32 %f4, %f3, %f3, %f3;\n"
                                 " ret;\n}\n";

static void check_map(const spillmap *m)
{
    for (uint32_t i = 0; i < m->nkernels; i++) {
        const spill_kernel *k = &m->kernels[i];
        if (!k->frame || spillmap_find(m, k->kernel) != k)
            abort();
        for (uint32_t j = 0; j < k->nops; j++) {
            const spill_op *op = &k->ops[j];
            if ((op->bytes != 4 && op->bytes != 8 && op->bytes != 16) || op->after_line == 0 ||
                op->offset % op->bytes || (uint64_t)op->offset + op->bytes > k->frame)
                abort();
        }
    }
}

/* The map's [k] on the kernel above: one warp, one block. */
static void run_kernel(const spillmap *m, const char *path)
{
    const spill_kernel *sk = spillmap_find(m, "k");
    if (!sk)
        return;
    static arch_t a;
    static int have_arch = -1;
    diag_t d;
    diag_clear(&d);
    if (have_arch < 0) {
        const char *root = getenv("WARPLAB_ROOT");
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/sim/arch", root ? root : ".");
        have_arch = arch_load(dir, "h200", &a, &d) == WL_OK;
    }
    if (!have_arch)
        return;
    ptx_module *mod = NULL;
    if (ptx_parse_string(kernel_ptx, sizeof kernel_ptx - 1, "k.ptx", &mod, &d) != WL_OK)
        abort();
    devmem_t *mem = devmem_create(0);
    timing_config cfg = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .regs_per_thread = 32,
                         .policy = -1, .params_size = 8, .spills = sk, .spills_path = path,
                         .max_cycles = 1000000};
    uint8_t params[8] = {0};
    cfg.params = params;
    timing_result r;
    wl_status st = timing_run(mod, ptx_find_func(mod, "k"), &a, &cfg, mem, &r, &d);
    if (st == WL_OK) {
        if (r.warp_instructions < 4 || r.local_requests > sk->nops)
            abort();
        timing_result_free(&r);
    } else if (st != WL_EUSAGE || strcmp(d.file, path) != 0 || !d.msg[0]) {
        abort();
    }
    devmem_destroy(mem);
    ptx_module_free(mod);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[64], path[128];
    snprintf(dir, sizeof dir, "/tmp/fuzz_spills.%ld", (long)getpid());
    mkdir(dir, 0700); /* EEXIST after the first input */
    snprintf(path, sizeof path, "%s/k.spills", dir);
    if (fuzz_write_scratch(path, data, size))
        return 0; /* disk trouble, not the loader's */
    spillmap *m = NULL;
    diag_t d;
    diag_clear(&d);
    wl_status st = spillmap_load(path, &m, &d);
    remove(path);
    if (st != WL_OK) {
        if (st != WL_EUSAGE || m || !d.msg[0] || strcmp(d.file, path) || strchr(d.msg, '\n'))
            abort();
        return 0;
    }
    check_map(m);
    run_kernel(m, path);
    spillmap_free(m);
    return 0;
}
