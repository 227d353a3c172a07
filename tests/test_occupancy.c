/* occupancy: CUDA's rules on worked examples and hand-derived edge cases, the block-size
 * search, the ptxas report parser, the `warplab occupancy` command, and (when the lead has
 * committed it) every row CUDA's own API returned on the real H200. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arch.h"
#include "occupancy.h"
#include "ptxas.h"
#include "testutil.h"

static void load(const char *name, arch_t *a)
{
    diag_t d;
    diag_clear(&d);
    if (arch_load(tu_path("sim/arch"), name, a, &d) != WL_OK)
        fail_msg("arch %s: %s", name, d.msg);
}

/* CUDA's defaults with a block size and a register count. */
static occ_input launch(int block, int regs)
{
    occ_input in;
    occ_input_defaults(&in);
    in.block_size = block;
    in.regs_per_thread = regs;
    return in;
}

/* Computes one launch and checks blocks/SM and the limiter bits. */
static occ_result check(const char *arch, int block, int regs, int static_smem, int dyn,
                        int carveout, int want_blocks, unsigned want_limiters)
{
    arch_t a;
    load(arch, &a);
    occ_input in = launch(block, regs);
    in.static_smem = static_smem;
    in.dyn_smem = dyn;
    in.carveout_pct = carveout;
    occ_result r;
    diag_t d;
    diag_clear(&d);
    if (occ_compute(&a, &in, &r, &d) != WL_OK)
        fail_msg("%s block %d regs %d: unexpected error %s", arch, block, regs, d.msg);
    if (r.blocks_per_sm != want_blocks || r.limiters != want_limiters)
        fail_msg("%s block %d regs %d smem %d+%d carveout %d: got %d blocks limiters 0x%x "
                 "(warps %d regs %d smem %d blocks %d barriers %d), want %d blocks 0x%x",
                 arch, block, regs, static_smem, dyn, carveout, r.blocks_per_sm, r.limiters,
                 r.limit_warps, r.limit_regs, r.limit_smem, r.limit_blocks, r.limit_barriers,
                 want_blocks, want_limiters);
    assert_int_equal(r.warps_per_sm, r.blocks_per_sm * ((block + 31) / 32));
    return r;
}

/* occupancy-stalls-teaching.md 1.1: CC 8.6, 256 threads, 64 registers, no shared memory. */
static void test_worked_example_cc86(void **state)
{
    (void)state;
    occ_result r = check("rtx3090", 256, 64, 0, 0, -1, 4, OCC_LIMIT_REGISTERS);
    assert_int_equal(r.limit_warps, 6);
    assert_int_equal(r.limit_blocks, 16);
    assert_int_equal(r.limit_smem, 100); /* 102400 / the reserved 1024 */
    assert_int_equal(r.limit_barriers, OCC_UNLIMITED); /* CC 8: no barrier limit */
    assert_int_equal(r.regs_per_block_alloc, 16384);
    assert_int_equal(r.warps_per_sm, 32);
    assert_true(r.occupancy > 0.6666 && r.occupancy < 0.6667);
}

/* lesson-topics.md section 3: article A (1 KB shared, 40 -> 32 registers) and article B's
 * A100 numbers (32 -> 64 registers) and __launch_bounds__(256, 6) -> 40 registers, 75%. */
static void test_lesson_examples(void **state)
{
    (void)state;
    occ_result r = check("a100", 256, 40, 1024, 0, -1, 6, OCC_LIMIT_REGISTERS);
    assert_int_equal(r.warps_per_sm, 48);
    assert_true(r.occupancy == 0.75);
    r = check("a100", 256, 32, 1024, 0, -1, 8, OCC_LIMIT_WARPS | OCC_LIMIT_REGISTERS);
    assert_true(r.occupancy == 1.0);
    r = check("a100", 256, 32, 0, 0, -1, 8, OCC_LIMIT_WARPS | OCC_LIMIT_REGISTERS);
    assert_int_equal(r.warps_per_sm, 64);
    r = check("a100", 256, 64, 0, 0, -1, 4, OCC_LIMIT_REGISTERS);
    assert_true(r.occupancy == 0.5);
    check("h200", 256, 40, 0, 0, -1, 6, OCC_LIMIT_REGISTERS);
    /* article B's "96 registers -> 37.5 %" does not follow from CUDA's rules: 3072 registers
     * per warp leave 5 warps per sub-partition, 20 per SM, 2 blocks of 256 = 25 %; 37.5 %
     * needs 80 registers (2560 per warp, 6 per sub-partition, 3 blocks) */
    r = check("a100", 256, 96, 0, 0, -1, 2, OCC_LIMIT_REGISTERS);
    assert_true(r.occupancy == 0.25);
    r = check("a100", 256, 80, 0, 0, -1, 3, OCC_LIMIT_REGISTERS);
    assert_true(r.occupancy == 0.375);
}

/* Registers are split over 4 sub-partitions: 40 regs = 1280 per warp, 16384 / 1280 = 12 warps
 * per sub-partition, 48 per SM (not 65536 / 1280 = 51), so 3-warp blocks get 16, not 17. */
static void test_subpartition_split(void **state)
{
    (void)state;
    occ_result r = check("h200", 96, 40, 0, 0, -1, 16, OCC_LIMIT_REGISTERS);
    assert_int_equal(r.limit_warps, 21);
}

/* A block that cannot launch: 72 regs x 32 warps = 73728 > 65536 (software check), and
 * 80 regs x 25 warps = 64000 fits but 80 regs x roundUp(25, 4) = 71680 does not (the
 * hardware check assumes all 4 sub-partitions are allocated at once). */
static void test_per_block_register_check(void **state)
{
    (void)state;
    occ_result r = check("h200", 1024, 72, 0, 0, -1, 0, OCC_LIMIT_REGISTERS);
    assert_int_equal(r.limit_regs, 0);
    check("h200", 800, 80, 0, 0, -1, 0, OCC_LIMIT_REGISTERS);
    /* 24 warps of 80 regs (61440, and roundUp(24,4) = 24) launch: 16384/2560 = 6 per
     * sub-partition, 24 per SM, 1 block */
    check("h200", 768, 80, 0, 0, -1, 1, OCC_LIMIT_REGISTERS);
}

/* 255 registers round to 8192 per warp: 8 warps per SM; 256 threads fit, 288 do not. */
static void test_255_registers(void **state)
{
    (void)state;
    check("h200", 256, 255, 0, 0, -1, 1, OCC_LIMIT_REGISTERS);
    check("h200", 288, 255, 0, 0, -1, 0, OCC_LIMIT_REGISTERS);
    check("h200", 32, 255, 0, 0, -1, 8, OCC_LIMIT_REGISTERS);
}

static void test_1024_threads(void **state)
{
    (void)state;
    check("h200", 1024, 32, 0, 0, -1, 2, OCC_LIMIT_WARPS | OCC_LIMIT_REGISTERS);
    check("h200", 1024, 64, 0, 0, -1, 1, OCC_LIMIT_REGISTERS);
    check("rtx3090", 1024, 16, 0, 0, -1, 1, OCC_LIMIT_WARPS);
}

/* The reserved 1 KB per block: 32 KB dynamic takes 33 KB, 233472 / 33792 = 6 (7 without).
 * On CC 8.6 50 KB dynamic takes 51 KB: 1 block in 100 KB (2 without). */
static void test_reserved_smem(void **state)
{
    (void)state;
    occ_result r = check("h200", 64, 32, 0, 32768, -1, 6, OCC_LIMIT_SHARED_MEMORY);
    assert_int_equal(r.smem_per_block_alloc, 33792);
    check("rtx3090", 64, 32, 0, 50 * 1024, -1, 1, OCC_LIMIT_SHARED_MEMORY);
    /* exactly the opt-in maximum still launches (the reserved KB is on top of the limit) */
    check("h200", 128, 32, 0, 227 * 1024, -1, 1, OCC_LIMIT_SHARED_MEMORY);
    check("rtx3090", 128, 32, 0, 99 * 1024, -1, 1, OCC_LIMIT_SHARED_MEMORY);
    /* one allocation unit more does not */
    check("h200", 128, 32, 0, 227 * 1024 + 1, -1, 0, OCC_LIMIT_SHARED_MEMORY);
    /* static smem + dynamic share the per-block budget: 1 KB static + 226 KB + 1 B */
    check("h200", 128, 32, 1024, 226 * 1024 + 1, -1, 0, OCC_LIMIT_SHARED_MEMORY);
    /* Volta has no reserved bytes and a 256-byte unit: 100 B -> 256 B, 96 KB / 256 = 384 */
    const unsigned wrb = OCC_LIMIT_WARPS | OCC_LIMIT_REGISTERS | OCC_LIMIT_BLOCKS;
    r = check("v100", 64, 32, 100, 0, -1, 32, wrb);
    assert_int_equal(r.smem_per_block_alloc, 256);
    assert_int_equal(r.limit_smem, 384);
    /* no shared memory at all on Volta: no limit */
    r = check("v100", 64, 32, 0, 0, -1, 32, wrb);
    assert_int_equal(r.limit_smem, OCC_UNLIMITED);
}

/* Without opt-in the limit is 48 KB dynamic; an explicit "not opted in" kernel asking for
 * more gets 0 blocks. */
static void test_optin(void **state)
{
    (void)state;
    arch_t a;
    load("h200", &a);
    occ_input in = launch(128, 32);
    in.dyn_smem = 48 * 1024;
    in.smem_optin = 0;
    occ_result r;
    assert_int_equal(occ_compute(&a, &in, &r, NULL), WL_OK);
    assert_int_equal(r.blocks_per_sm, 4); /* 233472 / 50176 */
    in.dyn_smem = 48 * 1024 + 1;
    assert_int_equal(occ_compute(&a, &in, &r, NULL), WL_OK);
    assert_int_equal(r.blocks_per_sm, 0);
    in.smem_optin = 1;
    assert_int_equal(occ_compute(&a, &in, &r, NULL), WL_OK);
    assert_int_equal(r.blocks_per_sm, 4); /* 233472 / roundUp(50177, 128) = 50304 */
}

/* Carveout preference: a percentage of 228 KB rounded UP to a legal size; a preference
 * smaller than one block becomes the block's own need rounded up. */
static void test_carveout_rounding(void **state)
{
    (void)state;
    /* 50% = 116736 -> 132 KB = 135168; 135168 / 17408 = 7 (6 without the rounding) */
    occ_result r = check("h200", 128, 32, 0, 16384, 50, 7, OCC_LIMIT_SHARED_MEMORY);
    assert_int_equal(r.smem_pool, 135168);
    /* 0% -> 0 KB, below one block's 17408: pool = 32 KB -> 1 block */
    r = check("h200", 128, 32, 0, 16384, 0, 1, OCC_LIMIT_SHARED_MEMORY);
    assert_int_equal(r.smem_pool, 32768);
    /* 100% and -1 (not set) both mean the maximum */
    check("h200", 128, 32, 0, 16384, 100, 13, OCC_LIMIT_SHARED_MEMORY);
    check("h200", 128, 32, 0, 16384, -1, 13, OCC_LIMIT_SHARED_MEMORY);
    /* 1% = 2334 B -> 8 KB: no smem beyond the reserved 1 KB -> 8 blocks, warps 16 */
    r = check("h200", 128, 32, 0, 0, 1, 8, OCC_LIMIT_SHARED_MEMORY);
    assert_int_equal(r.smem_pool, 8192);
}

/* The carveout a launch gets (occupancy.h): without a preference the smallest legal carveout
 * holding blocks_per_sm blocks (H200 carveouts 0, 8, 16, 32, 64, 100, ... KB), with one the
 * preference's. Derived by hand from sim/arch/h200.ini. */
static void test_launch_carveout(void **state)
{
    (void)state;
    /* no shared memory, 256 threads, 24 registers: 8 blocks x 1 KB reserved = 8 KB -> 8 KB
     * (the occupancy calculator assumes the largest, 228 KB) */
    occ_result r = check("h200", 256, 24, 0, 0, -1, 8, OCC_LIMIT_WARPS);
    assert_int_equal(r.smem_pool, 228 * 1024);
    assert_int_equal(r.launch_smem_pool, 8192);
    /* one thread per block (the latency chase): 32 blocks x 1 KB = 32 KB -> 32 KB */
    r = check("h200", 1, 16, 0, 0, -1, 32, OCC_LIMIT_BLOCKS);
    assert_int_equal(r.launch_smem_pool, 32768);
    /* 4224 B static (bk_transpose33): 5 KB x 8 blocks = 40 KB -> 64 KB */
    r = check("h200", 256, 26, 4224, 0, -1, 8, OCC_LIMIT_WARPS | OCC_LIMIT_REGISTERS);
    assert_int_equal(r.launch_smem_pool, 65536);
    /* shared memory limits: 13 x 17 KB = 221 KB -> 228 KB, the same as the calculator's */
    r = check("h200", 128, 32, 0, 16384, -1, 13, OCC_LIMIT_SHARED_MEMORY);
    assert_int_equal(r.launch_smem_pool, r.smem_pool);
    /* a preference is kept: 50% -> 132 KB */
    r = check("h200", 128, 32, 0, 16384, 50, 7, OCC_LIMIT_SHARED_MEMORY);
    assert_int_equal(r.launch_smem_pool, 135168);
}

/* CC 9: 2 barriers per block slot; a block using 16 named barriers limits to 64/16 = 4. */
static void test_barrier_limit(void **state)
{
    (void)state;
    arch_t a;
    load("h200", &a);
    occ_input in = launch(32, 16);
    in.num_barriers = 16;
    occ_result r;
    assert_int_equal(occ_compute(&a, &in, &r, NULL), WL_OK);
    assert_int_equal(r.blocks_per_sm, 4);
    assert_int_equal(r.limiters, OCC_LIMIT_BARRIERS);
    assert_string_equal(occ_first_limiter(r.limiters), "barriers");
    in.num_barriers = 1; /* CUDA's default: 64, never the limit */
    assert_int_equal(occ_compute(&a, &in, &r, NULL), WL_OK);
    assert_int_equal(r.limit_barriers, 64);
    assert_int_equal(r.blocks_per_sm, 32);
    load("a100", &a); /* no barrier limit before CC 9 */
    in.num_barriers = 16;
    assert_int_equal(occ_compute(&a, &in, &r, NULL), WL_OK);
    assert_int_equal(r.limit_barriers, OCC_UNLIMITED);
    assert_int_equal(r.blocks_per_sm, 32);
}

static void test_invalid_input(void **state)
{
    (void)state;
    arch_t a;
    load("h200", &a);
    const int bad[][4] = {/* block, regs, dyn, carveout */
                          {0, 32, 0, -1},   {1025, 32, 0, -1}, {-5, 32, 0, -1},
                          {256, 256, 0, -1}, {256, -1, 0, -1},  {256, 32, -1, -1},
                          {256, 32, 0, 101}, {256, 32, 0, -2}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        occ_input in = launch(bad[i][0], bad[i][1]);
        in.dyn_smem = bad[i][2];
        in.carveout_pct = bad[i][3];
        occ_result r;
        diag_t d;
        diag_clear(&d);
        if (occ_compute(&a, &in, &r, &d) != WL_EUSAGE || !d.msg[0])
            fail_msg("row %zu (block %d regs %d dyn %d carveout %d) not rejected", i,
                     bad[i][0], bad[i][1], bad[i][2], bad[i][3]);
    }
}

/* cudaOccupancyMaxPotentialBlockSize: from 1024 down, strictly greater wins, early stop. */
static void test_suggest(void **state)
{
    (void)state;
    arch_t a;
    occ_input in;
    occ_input_defaults(&in);
    int block = -1, grid = -1;
    load("h200", &a);
    /* 72 regs: 7 warps per sub-partition = 28 warps per SM; 1024..928 cannot launch, 896
     * gives 896 threads, and nothing smaller gives more (448 ties and loses) */
    in.regs_per_thread = 72;
    assert_int_equal(occ_suggest(&a, &in, &block, &grid, NULL), WL_OK);
    assert_int_equal(block, 896);
    assert_int_equal(grid, 132);
    /* 32 regs: 1024 already fills the SM (2 blocks, 2048 threads): early stop */
    in.regs_per_thread = 32;
    assert_int_equal(occ_suggest(&a, &in, &block, &grid, NULL), WL_OK);
    assert_int_equal(block, 1024);
    assert_int_equal(grid, 264);
    /* CC 8.6, 1536 threads per SM: 1024 gives 1 block; the first size reaching 1536 is 768 */
    load("rtx3090", &a);
    assert_int_equal(occ_suggest(&a, &in, &block, &grid, NULL), WL_OK);
    assert_int_equal(block, 768);
    assert_int_equal(grid, 2 * 82);
    /* 255 regs: 8 warps per SM at most, 256 threads is the largest block reaching it */
    in.regs_per_thread = 255;
    assert_int_equal(occ_suggest(&a, &in, &block, &grid, NULL), WL_OK);
    assert_int_equal(block, 256);
}

static void test_series(void **state)
{
    (void)state;
    arch_t a;
    load("h200", &a);
    occ_input in = launch(100, 40); /* 100 is not a multiple of 32: added to the series */
    occ_point p[96];
    int n = occ_series(&a, &in, OCC_VARY_BLOCK, p, 96);
    assert_int_equal(n, 33);
    int found = 0;
    for (int i = 0; i < n; i++) {
        if (i)
            assert_true(p[i].value > p[i - 1].value);
        if (p[i].value == 100) { /* 4 warps: 48 / 4 = 12 blocks by registers */
            found = 1;
            assert_int_equal(p[i].blocks_per_sm, 12);
        }
    }
    assert_true(found);
    n = occ_series(&a, &in, OCC_VARY_REGS, p, 96);
    assert_int_equal(p[n - 1].value, 255);
    for (int i = 0; i < n; i++)
        if (p[i].value == 128) /* 4096/warp: 4 per sub-partition, 16 warps, 4 blocks */
            assert_int_equal(p[i].blocks_per_sm, 4);
    n = occ_series(&a, &in, OCC_VARY_SMEM, p, 96);
    assert_int_equal(p[0].value, 0);
    assert_int_equal(p[n - 1].value, 227 * 1024);
    assert_int_equal(p[n - 1].blocks_per_sm, 1);
}

static void test_ptxas_report_parser(void **state)
{
    (void)state;
    const char *report =
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function 'spill' for 'sm_90'\n"
        "ptxas info    : Function properties for spill\n"
        "    256 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads\n"
        "ptxas info    : Used 32 registers, used 0 barriers, 256 bytes cumulative stack size\n"
        "ptxas info    : Compiling entry function 'sm' for 'sm_90'\n"
        "ptxas info    : Function properties for sm\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 10 registers, used 1 barriers, 4096 bytes smem, 384 bytes "
        "cmem[0]\n";
    ptxas_info info;
    diag_t d;
    assert_int_equal(ptxas_parse_report(report, "sm", &info, &d), WL_OK);
    assert_int_equal(info.regs, 10);
    assert_int_equal(info.static_smem, 4096);
    assert_int_equal(info.barriers, 1);
    assert_int_equal(info.local_bytes, 0);
    assert_int_equal(ptxas_parse_report(report, "spill", &info, &d), WL_OK);
    assert_int_equal(info.regs, 32);
    assert_int_equal(info.static_smem, 0);
    assert_int_equal(info.local_bytes, 256);
    assert_int_equal(info.spill_bytes, 20);
    assert_int_equal(ptxas_parse_report(report, "missing", &info, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "missing"));
    assert_int_equal(ptxas_parse_report("garbage", "sm", &info, &d), WL_EUSAGE);
    /* kernels not declared extern "C": found by their C++ name (kname.h), unless it is
     * ambiguous (a template's two instances) */
    const char *mangled =
        "ptxas info    : Compiling entry function '_Z3addPfi' for 'sm_90'\n"
        "ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function '_Z4fillIfEvPT_S0_' for 'sm_90'\n"
        "ptxas info    : Used 6 registers, used 0 barriers, 364 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function '_Z4fillIiEvPT_S0_' for 'sm_90'\n"
        "ptxas info    : Used 7 registers, used 0 barriers, 364 bytes cmem[0]\n";
    assert_int_equal(ptxas_parse_report(mangled, "add", &info, &d), WL_OK);
    assert_int_equal(info.regs, 8);
    assert_int_equal(ptxas_parse_report(mangled, "_Z4fillIiEvPT_S0_", &info, &d), WL_OK);
    assert_int_equal(info.regs, 7);
    assert_int_equal(ptxas_parse_report(mangled, "fill", &info, &d), WL_EUSAGE);
    assert_non_null(strstr(d.msg, "names several entry functions"));
}


/* Opens a measured H200 file and loads h200.ini; skips the test when the file is absent. */
static FILE *open_measured(const char *path, arch_t *a)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        print_message("SKIP: %s is not committed yet\n", path);
        skip();
    }
    load("h200", a);
    return f;
}

/* Ground truth: cudaOccupancyMaxActiveBlocksPerMultiprocessor on the real H200, one row per
 * measured configuration (gpu/measured/h200/occupancy-sweep.csv, committed by the lead:
 * block,regs,dyn_smem,carveout,blocks_per_sm; static smem 0; carveout -1 = not set). */
static void test_measured_h200_sweep(void **state)
{
    (void)state;
    const char *path = tu_path("gpu/measured/h200/occupancy-sweep.csv");
    arch_t a;
    FILE *f = open_measured(path, &a);
    char line[512], report[2048] = "";
    int rows = 0, bad = 0, lineno = 0;
    size_t used = 0;
    int col[5] = {-1, -1, -1, -1, -1}; /* block, regs, dyn_smem, carveout, blocks_per_sm */
    static const char *const names[5] = {"block", "regs", "dyn_smem", "carveout",
                                         "blocks_per_sm"};
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *fld[16];
        int n = 0;
        for (char *save = NULL, *t = strtok_r(line, ",", &save); t && n < 16;
             t = strtok_r(NULL, ",", &save))
            fld[n++] = t;
        if (col[0] < 0) { /* header */
            for (int i = 0; i < n; i++)
                for (int k = 0; k < 5; k++)
                    if (!strcmp(fld[i], names[k]))
                        col[k] = i;
            for (int k = 0; k < 5; k++)
                if (col[k] < 0)
                    fail_msg("%s: header lacks column '%s'", path, names[k]);
            continue;
        }
        int v[5];
        for (int k = 0; k < 5; k++) {
            if (col[k] >= n)
                fail_msg("%s:%d: only %d fields", path, lineno, n);
            v[k] = atoi(fld[col[k]]);
        }
        occ_input in = launch(v[0], v[1]);
        in.dyn_smem = v[2];
        in.carveout_pct = v[3];
        in.smem_optin = 1; /* README: every kernel was opted in to sharedMemPerBlockOptin */
        occ_result r;
        diag_t d;
        diag_clear(&d);
        int got = occ_compute(&a, &in, &r, &d) == WL_OK ? r.blocks_per_sm : -1;
        rows++;
        if (got != v[4]) {
            bad++;
            if (used < sizeof report - 200)
                used += (size_t)snprintf(report + used, sizeof report - used,
                                         "\n  line %d: block %d regs %d dyn %d carveout %d: "
                                         "CUDA %d, warplab %d%s%s",
                                         lineno, v[0], v[1], v[2], v[3], v[4], got,
                                         got < 0 ? " " : "", got < 0 ? d.msg : "");
        }
    }
    fclose(f);
    if (rows == 0)
        fail_msg("%s has no data rows", path);
    if (bad)
        fail_msg("%d of %d measured rows differ:%s", bad, rows, report);
    print_message("all %d measured H200 rows match CUDA's API exactly\n", rows);
}

/* Ground truth for --suggest: cudaOccupancyMaxPotentialBlockSize on the H200 for each
 * kernel and dynamic size (gpu/measured/h200/occupancy-suggest.csv:
 * regs,dyn_smem,min_grid,block_size). */
static void test_measured_h200_suggest(void **state)
{
    (void)state;
    const char *path = tu_path("gpu/measured/h200/occupancy-suggest.csv");
    arch_t a;
    FILE *f = open_measured(path, &a);
    char line[256];
    int rows = 0, bad = 0, lineno = 0;
    if (!fgets(line, sizeof line, f) || strncmp(line, "regs,dyn_smem,min_grid,block_size", 33))
        fail_msg("%s: unexpected header %s", path, line);
    lineno = 1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        int regs, dyn, grid, block;
        if (sscanf(line, "%d,%d,%d,%d", &regs, &dyn, &grid, &block) != 4)
            continue;
        occ_input in = launch(0, regs);
        in.dyn_smem = dyn;
        in.smem_optin = 1;
        int got_block = -1, got_grid = -1;
        diag_t d;
        occ_suggest(&a, &in, &got_block, &got_grid, &d);
        rows++;
        if (got_block != block || got_grid != grid) {
            if (bad++ < 5)
                print_message("line %d: regs %d dyn %d: CUDA block %d grid %d, warplab %d %d\n",
                              lineno, regs, dyn, block, grid, got_block, got_grid);
        }
    }
    fclose(f);
    if (rows == 0 || bad)
        fail_msg("%d of %d suggest rows differ", bad, rows);
    print_message("all %d measured suggest rows match\n", rows);
}

/* ---- the command line ---- */

static cJSON *run_json(int want_status, const char *const *args, int n)
{
    tu_result r;
    int st = tu_warplabv(&r, n, args);
    if (st != want_status)
        fail_msg("exit %d (want %d); stderr: %s", st, want_status, r.err);
    cJSON *j = cJSON_Parse(r.out);
    if (!j)
        fail_msg("stdout is not JSON: %.300s", r.out);
    tu_free(&r);
    return j;
}

static int jint(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        fail_msg("key '%s' missing or not a number", key);
    return v->valueint;
}

static void test_cli_json(void **state)
{
    (void)state;
    const char *args[] = {"occupancy", "--arch", "rtx3090", "--block", "256",
                          "--regs",    "64",     "--json"};
    cJSON *j = run_json(0, args, 8);
    assert_int_equal(jint(j, "blocks_per_sm"), 4);
    assert_int_equal(jint(j, "warps_per_sm"), 32);
    const cJSON *occ = cJSON_GetObjectItemCaseSensitive(j, "occupancy");
    assert_true(cJSON_IsNumber(occ) && occ->valuedouble > 0.6666 && occ->valuedouble < 0.6667);
    const cJSON *lim = cJSON_GetObjectItemCaseSensitive(j, "limiter");
    assert_true(cJSON_IsString(lim));
    assert_string_equal(lim->valuestring, "registers");
    const cJSON *lims = cJSON_GetObjectItemCaseSensitive(j, "limiters");
    assert_int_equal(cJSON_GetArraySize(lims), 1);
    const cJSON *per = cJSON_GetObjectItemCaseSensitive(j, "limits");
    assert_int_equal(jint(per, "warps"), 6);
    assert_int_equal(jint(per, "registers"), 4);
    assert_int_equal(jint(per, "shared_memory"), 100);
    assert_int_equal(jint(per, "blocks"), 16);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(per, "barriers")));
    const cJSON *series = cJSON_GetObjectItemCaseSensitive(j, "series");
    const cJSON *regs = cJSON_GetObjectItemCaseSensitive(series, "registers");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(regs, "values")), 32);
    cJSON_Delete(j);

    /* two limiters at once, and --suggest */
    const char *args2[] = {"occupancy", "--arch", "h200", "--block", "256", "--regs", "32",
                           "--json",    "--suggest"};
    j = run_json(0, args2, 9);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "limiter")->valuestring, "warps");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "limiters")), 2);
    assert_int_equal(jint(j, "suggested_block"), 1024);
    assert_int_equal(jint(j, "min_grid"), 264);
    /* the launch's carveout: 8 blocks x 1 KB reserved -> 8 KB; L1 256 - 8 KB (occupancy.h) */
    assert_int_equal(jint(j, "smem_pool"), 233472);
    assert_int_equal(jint(j, "launch_smem_pool"), 8192);
    assert_int_equal(jint(j, "l1_bytes"), 253952);
    cJSON_Delete(j);

    /* --suggest without --block uses the suggestion, and says so */
    const char *args3[] = {"occupancy", "--arch", "h200", "--regs", "72", "--suggest", "--json"};
    j = run_json(0, args3, 7);
    assert_int_equal(jint(j, "block"), 896);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "block_source")->valuestring,
                        "suggest");
    cJSON_Delete(j);
}

static void test_cli_text(void **state)
{
    (void)state;
    tu_result r;
    assert_int_equal(tu_warplab(&r, "occupancy", "--arch", "h200", "--block", "96", "--regs",
                                "40", NULL),
                     0);
    if (!strstr(r.out, "blocks per SM         16") || !strstr(r.out, "limited by     registers") ||
        !strstr(r.out, "impact of varying block size") ||
        !strstr(r.out, "impact of varying registers") ||
        !strstr(r.out, "impact of varying dynamic shared memory") ||
        !strstr(r.out, ">       96         16        48      75.0%") ||
        /* 16 blocks x 1 KB reserved: a 16 KB carveout, 256 - 16 KB of L1 */
        !strstr(r.out, "at launch: a 16 KB shared-memory carveout") ||
        !strstr(r.out, "so the L1 gets 240 KB"))
        fail_msg("text output:\n%s", r.out);
    tu_free(&r);
    assert_int_equal(tu_warplab(&r, "occupancy", "--help", NULL), 0);
    assert_non_null(strstr(r.out, "usage: warplab occupancy"));
    tu_free(&r);
}

/* Every bad input: exit 1, one line on stderr, nothing on stdout. */
static void test_cli_errors(void **state)
{
    (void)state;
    static const struct {
        const char *args[10];
        const char *needle;
    } cases[] = {
        {{"--arch", "h300", "--block", "256", "--regs", "32"}, "unknown arch 'h300'"},
        {{"--arch", "h200", "--block", "1025", "--regs", "32"}, "1..1024"},
        {{"--arch", "h200", "--block", "0", "--regs", "32"}, "1..1024"},
        {{"--arch", "h200", "--block", "-4", "--regs", "32"}, "not a non-negative integer"},
        {{"--arch", "h200", "--block", "12x", "--regs", "32"}, "not a non-negative integer"},
        {{"--arch", "h200", "--block", "256", "--regs", "256"}, "1..255"},
        {{"--arch", "h200", "--block", "256", "--regs", "0"}, "1..255"},
        {{"--arch", "h200", "--block", "256", "--regs", "32", "--smem", "232449"},
         "opt-in limit"},
        {{"--arch", "h200", "--block", "256", "--regs", "32", "--smem", "99999999999"},
         "not a non-negative integer"},
        {{"--arch", "h200", "--block", "256"}, "--regs"},
        {{"--arch", "h200", "--regs", "32"}, "--block"},
        {{"--arch", "h200", "--block", "256", "--regs", "32", "--bogus"}, "unknown option"},
        {{"--arch", "h200", "--block"}, "needs a value"},
        {{"--arch", "h200", "--batch", "/nonexistent.csv"}, "cannot read"},
        {{"--arch", "h200", "--block", "256", "--regs", "32", "--carveout", "101"},
         "carveout"},
        {{"/nonexistent.ptx", "--arch", "h200"}, "cannot open"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[12] = {"occupancy"};
        int n = 1;
        while (n < 11 && cases[i].args[n - 1])
            argv[n] = cases[i].args[n - 1], n++;
        tu_result r;
        int st = tu_warplabv(&r, n, argv);
        int lines = 0;
        for (const char *p = r.err; *p; p++)
            lines += *p == '\n';
        if (st != 1 || lines != 1 || !strstr(r.err, cases[i].needle) || *r.out)
            fail_msg("case %zu (%s %s %s ...): exit %d, stderr '%s' (want '%s'), stdout '%.80s'",
                     i, argv[1], argv[2], argv[3], st, r.err, cases[i].needle, r.out);
        tu_free(&r);
    }
}

static void test_cli_batch(void **state)
{
    (void)state;
    tu_result r;
    assert_int_equal(tu_warplab(&r, "occupancy", "--arch", "h200", "--batch",
                                tu_path("tests/data/occupancy-good.csv"), NULL),
                     0);
    /* hand-derived: 4 (regs), 8, 0 (255 regs x 32 warps), 4 (smem), 16 (sub-partitions),
     * 2 (96 KB opted in: 233472 / 99328) */
    const int want[] = {4, 8, 0, 4, 16, 2};
    int n = 0;
    for (char *line = r.out, *nl; *line; line = nl + 1, n++) {
        nl = strchr(line, '\n');
        assert_non_null(nl);
        *nl = '\0';
        cJSON *j = cJSON_Parse(line);
        if (!j || n >= 6)
            fail_msg("row %d is not JSON or too many rows: %s", n, line);
        if (jint(j, "blocks_per_sm") != want[n] || !cJSON_GetObjectItem(j, "block") ||
            !cJSON_GetObjectItem(j, "limiter"))
            fail_msg("row %d: %s (want %d blocks)", n, line, want[n]);
        cJSON_Delete(j);
    }
    assert_int_equal(n, 6);
    tu_free(&r);

    assert_int_equal(tu_warplab(&r, "occupancy", "--arch", "h200", "--batch",
                                tu_path("tests/data/occupancy-extra-cols.csv"), NULL),
                     0);
    if (!strstr(r.out, "\"blocks_per_sm\":7") || !strstr(r.out, "\"blocks_per_sm\":13") ||
        !strstr(r.out, "\"blocks_per_sm\":1,"))
        fail_msg("carveout rows: %s", r.out);
    tu_free(&r);

    assert_int_equal(tu_warplab(&r, "occupancy", "--arch", "h200", "--batch",
                                tu_path("tests/data/occupancy-bad-row.csv"), NULL),
                     1);
    if (!strstr(r.err, "occupancy-bad-row.csv:4: error: regs: 'abc'") || *r.out)
        fail_msg("bad row: stderr %s stdout %s", r.err, r.out);
    tu_free(&r);
    assert_int_equal(tu_warplab(&r, "occupancy", "--arch", "h200", "--batch",
                                tu_path("tests/data/occupancy-bad-header.csv"), NULL),
                     1);
    assert_non_null(strstr(r.err, "occupancy-bad-header.csv:1: error: header"));
    tu_free(&r);
}

/* A PTX kernel: registers from ptxas when it is installed, otherwise an error asking for
 * --regs; --regs always works. */
static void test_cli_ptx(void **state)
{
    (void)state;
    const char *dir = tu_tmpdir();
    char path[256];
    snprintf(path, sizeof path, "%s/k.ptx", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(".version 8.0\n.target sm_90\n.address_size 64\n"
          ".visible .entry k(.param .u64 p)\n{\n .reg .b64 %rd<3>;\n .reg .b32 %r<3>;\n"
          " .shared .align 4 .b8 buf[2048];\n"
          " ld.param.u64 %rd1, [p];\n cvta.to.global.u64 %rd2, %rd1;\n"
          " mov.u32 %r1, %tid.x;\n st.global.u32 [%rd2], %r1;\n"
          " st.shared.u32 [buf], %r1;\n ret;\n}\n",
          f);
    fclose(f);
    tu_result r;
    int st = tu_warplab(&r, "occupancy", path, "--kernel", "k", "--arch", "h200", "--json",
                        NULL);
    if (ptxas_available()) {
        cJSON *j = cJSON_Parse(r.out);
        if (st != 0 || !j)
            fail_msg("with ptxas: exit %d, stderr %s", st, r.err);
        assert_string_equal(cJSON_GetObjectItem(j, "regs_source")->valuestring, "ptxas");
        assert_int_equal(jint(j, "static_smem"), 2048);
        assert_int_equal(jint(j, "block"), 256);
        assert_string_equal(cJSON_GetObjectItem(j, "block_source")->valuestring, "default");
        cJSON_Delete(j);
    } else if (st != 1 || !strstr(r.err, "--regs")) {
        fail_msg("without ptxas: exit %d, stderr %s", st, r.err);
    }
    tu_free(&r);
    assert_int_equal(tu_warplab(&r, "occupancy", path, "--kernel", "k", "--arch", "h200",
                                "--regs", "40", "--block", "96", NULL),
                     0);
    assert_non_null(strstr(r.out, "40 registers (option)"));
    tu_free(&r);
    /* without --kernel (the file's only one) and --arch (h200, as for run) */
    assert_int_equal(tu_warplab(&r, "occupancy", path, "--regs", "40", "--block", "96", NULL), 0);
    assert_non_null(strstr(r.out, "kernel k: 40 registers (option)"));
    assert_non_null(strstr(r.out, "h200 (NVIDIA H200"));
    tu_free(&r);
    /* two kernels: which one? */
    char two[256];
    snprintf(two, sizeof two, "%s/k2.ptx", dir);
    f = fopen(two, "w");
    assert_non_null(f);
    fputs(".version 8.0\n.target sm_90\n.address_size 64\n"
          ".visible .entry k()\n{\n ret;\n}\n.visible .entry k2()\n{\n ret;\n}\n",
          f);
    fclose(f);
    assert_int_equal(tu_warplab(&r, "occupancy", two, "--regs", "40", NULL), 1);
    assert_non_null(strstr(r.err, "missing --kernel NAME: "));
    assert_non_null(strstr(r.err, "k2.ptx has 2 kernels: k, k2"));
    tu_free(&r);
    if (ptxas_available()) { /* a kernel name ptxas did not report */
        assert_int_equal(tu_warplab(&r, "occupancy", path, "--kernel", "nope", "--arch", "h200",
                                    NULL),
                         1);
        assert_non_null(strstr(r.err, "no entry function 'nope'"));
        tu_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example_cc86),
        cmocka_unit_test(test_lesson_examples),
        cmocka_unit_test(test_subpartition_split),
        cmocka_unit_test(test_per_block_register_check),
        cmocka_unit_test(test_255_registers),
        cmocka_unit_test(test_1024_threads),
        cmocka_unit_test(test_reserved_smem),
        cmocka_unit_test(test_optin),
        cmocka_unit_test(test_carveout_rounding),
        cmocka_unit_test(test_launch_carveout),
        cmocka_unit_test(test_barrier_limit),
        cmocka_unit_test(test_invalid_input),
        cmocka_unit_test(test_suggest),
        cmocka_unit_test(test_series),
        cmocka_unit_test(test_ptxas_report_parser),
        cmocka_unit_test(test_measured_h200_sweep),
        cmocka_unit_test(test_measured_h200_suggest),
        cmocka_unit_test(test_cli_json),
        cmocka_unit_test(test_cli_text),
        cmocka_unit_test(test_cli_errors),
        cmocka_unit_test(test_cli_batch),
        cmocka_unit_test(test_cli_ptx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
