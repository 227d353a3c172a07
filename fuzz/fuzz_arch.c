/* libFuzzer target for the arch-file loader (sim/arch.c, inih underneath): any bytes must load
 * or fail with WL_EUSAGE and a one-line message naming the file, never crash, hang or leak.
 * A file that loads must satisfy the loader's own promises (the GPCs sum to sm_count, the
 * carveouts ascend and end at smem_per_sm_max, ...), print, and give the occupancy calculator
 * inputs it survives (every block size, with and without registers and shared memory).
 *
 * arch_load_file() reads a path, so each input is written to a per-process scratch directory.
 * The loader insists that the [gpu] name equals the file's stem; the stem is taken from the
 * input's own `name = ...` line (when it is a plain identifier) so valid files reach the
 * consistency checks and the success path. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "occupancy.h"
#include "fuzz_scratch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The identifier after the first "name =" at the start of a line, or "fuzz". */
static void stem_from_input(const uint8_t *data, size_t size, char *stem, size_t cap)
{
    snprintf(stem, cap, "fuzz");
    for (size_t i = 0; i + 4 < size; i++) {
        if ((i && data[i - 1] != '\n') || memcmp(data + i, "name", 4))
            continue;
        size_t k = i + 4;
        while (k < size && (data[k] == ' ' || data[k] == '\t'))
            k++;
        if (k >= size || data[k] != '=')
            continue;
        k++;
        while (k < size && (data[k] == ' ' || data[k] == '\t'))
            k++;
        size_t n = 0;
        while (k + n < size && n + 1 < cap && (isalnum(data[k + n]) || data[k + n] == '_'))
            n++;
        if (n) {
            memcpy(stem, data + k, n);
            stem[n] = '\0';
        }
        return;
    }
}

static void check_loaded(const arch_t *a)
{
    int sum = 0;
    for (int i = 0; i < a->gpc_count; i++)
        sum += a->gpc_sms[i];
    if (a->gpc_count < 1 || a->gpc_count > ARCH_MAX_GPCS || sum != a->sm_count)
        abort();
    if (a->carveout_count < 1 || a->carveout_count > ARCH_MAX_CARVEOUTS ||
        a->carveouts[a->carveout_count - 1] != a->smem_per_sm_max)
        abort();
    for (int i = 1; i < a->carveout_count; i++)
        if (a->carveouts[i] <= a->carveouts[i - 1])
            abort();
    if (a->max_threads_per_sm != a->max_warps_per_sm * a->warp_size ||
        a->max_warps_per_sm % a->sub_partitions)
        abort();
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
        arch_print(a, devnull);
        arch_print_summary(a, devnull);
        fclose(devnull);
    }
    /* The occupancy calculator on a file that loads: every result in range or a diag. */
    static const int regs[] = {0, 1, 32, 255};
    static const int smem[] = {0, 48 * 1024, 1 << 30};
    for (int bs = 1; bs <= a->max_threads_per_block + 1; bs += bs < 64 ? 1 : 61) {
        for (size_t r = 0; r < sizeof regs / sizeof regs[0]; r++) {
            for (size_t s = 0; s < sizeof smem / sizeof smem[0]; s++) {
                occ_input in;
                occ_input_defaults(&in);
                in.block_size = bs;
                in.regs_per_thread = regs[r];
                in.dyn_smem = smem[s];
                occ_result res;
                diag_t d;
                diag_clear(&d);
                if (occ_compute(a, &in, &res, &d) != WL_OK) {
                    if (!d.msg[0])
                        abort();
                    continue;
                }
                if (res.blocks_per_sm < 0 || res.occupancy < 0.0 || res.occupancy > 1.0 ||
                    res.warps_per_sm > a->max_warps_per_sm)
                    abort();
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[64], stem[ARCH_NAME_MAX], path[128];
    snprintf(dir, sizeof dir, "/tmp/fuzz_arch.%ld", (long)getpid());
    mkdir(dir, 0700); /* EEXIST after the first input */
    stem_from_input(data, size, stem, sizeof stem);
    snprintf(path, sizeof path, "%s/%s.ini", dir, stem);
    if (fuzz_write_scratch(path, data, size))
        return 0; /* disk trouble, not the loader's */
    arch_t a;
    diag_t d;
    diag_clear(&d);
    wl_status st = arch_load_file(path, &a, &d);
    remove(path);
    if (st != WL_OK) {
        /* one message, naming this file, no newline inside */
        if (st != WL_EUSAGE || !d.msg[0] || strcmp(d.file, path) || strchr(d.msg, '\n'))
            abort();
        return 0;
    }
    check_loaded(&a);
    return 0;
}
