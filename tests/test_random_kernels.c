/* random_kernels: generated PTX kernels against a CPU evaluation, through every execution path
 * (tests/randkernel.h says what the programs hold and the seventeen ways each one runs).
 *
 * The seeds are fixed (deterministic); WL_RANDOM_KERNELS=N runs N seeds instead of the
 * default, WL_RANDOM_SEED=S starts at S (a long campaign: docs/robustness.md), and
 * WL_RANDOM_PRINT=S prints seed S's PTX.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "randkernel.h"
#include "testutil.h"

/* Seeds by default: 1000 take 8 s; under AddressSanitizer about 20 times as long (each run maps
 * and releases the whole H200 model's memory), so fewer there: memory errors show on any seed. */
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_SEEDS 200
#else
#define DEFAULT_SEEDS 1000
#endif

static void test_random_kernels(void **state)
{
    (void)state;
    arch_t a;
    diag_t d = {0};
    if (arch_load(tu_path("sim/arch"), "h200", &a, &d) != WL_OK)
        fail_msg("arch: %s", d.msg);
    const char *ns = getenv("WL_RANDOM_KERNELS"), *ss = getenv("WL_RANDOM_SEED");
    const char *show = getenv("WL_RANDOM_PRINT"); /* a seed: its PTX on stdout */
    uint64_t n = ns ? strtoull(ns, NULL, 10) : DEFAULT_SEEDS, s0 = ss ? strtoull(ss, NULL, 10) : 1;
    static rk_prog p;
    char msg[1600];
    for (uint64_t s = s0; s < s0 + n; s++) {
        rk_generate(&p, s, NULL, 0);
        if (show && strtoull(show, NULL, 10) == s) {
            char *ptx = rk_ptx(&p);
            printf("%s", ptx ? ptx : "");
            free(ptx);
        }
        if (rk_check(&p, &a, s, msg, sizeof msg))
            fail_msg("%s", msg);
    }
    /* the seeds must exercise the run-ahead that the last two ways compare with its absence */
    if (rk_ahead_evaluations() == 0)
        fail_msg("no SM ran ahead of the window in any timed run");
    /* ...and the if-conversion of short else-less bodies (ptx_sched.c) */
    if (n >= 100 && rk_if_converted() == 0)
        fail_msg("no branch was if-converted in %llu kernels", (unsigned long long)n);
    printf("random_kernels: %llu kernels from seed %llu, each in 17 ways, all equal to the CPU "
           "(%llu evaluations ahead of the window, %llu if-converted branches)\n",
           (unsigned long long)n, (unsigned long long)s0,
           (unsigned long long)rk_ahead_evaluations(), (unsigned long long)rk_if_converted());
}

/* The reference itself, on a hand-checked case: a shuffle down by 5 of tid.x. */
static void test_reference_shuffle(void **state)
{
    (void)state;
    rk_prog p;
    memset(&p, 0, sizeof p);
    p.grid = 1;
    p.block = 32;
    p.exit_reg = -1;
    int k = p.nn++;
    p.n[k] = (rk_node){.kind = N_SHUFFLE, .op = SH_DOWN, .d = 6, .a = 4, .imm = 5};
    p.top[p.ntop++] = k;
    uint32_t in[64] = {0}, out[32 * NREG + NACC];
    rk_reference(&p, in, out);
    for (int l = 0; l < 32; l++) /* r6 = tid.x of lane + 5, or its own past lane 26 */
        assert_int_equal(out[l * NREG + 6], (uint32_t)(l + 5 > 31 ? l : l + 5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_shuffle),
        cmocka_unit_test(test_random_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
