/* ldst: the cost of one warp memory instruction (sim/timing/ldst.c) against a brute-force
 * reference written from the rules alone:
 *   global: distinct 32-byte sectors and 128-byte lines touched by the active lanes;
 *   shared: 32 banks of 4 bytes; lanes are split into groups of 128 bytes worth of accesses
 *   (32 lanes up to 4 bytes each, 16 lanes of 8 bytes, 8 lanes of 16 bytes); a group costs the
 *   largest number of distinct words any one bank holds; ideal = groups with an active lane.
 * The patterns include the ones ldst.c takes a shortcut for (consecutive elements, full or
 * partial masks) and ones it must not (gaps, strides, broadcasts, random addresses). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "timing_int.h"

/* The sectors in lane order, each at its first lane (what the memory model is given: its
 * requests group the consecutive sectors of one line), and the number of lines. */
static uint32_t ref_sectors(const exec_step_info *in, uint32_t *nlines, uint64_t *s)
{
    uint64_t l[64 * 32];
    uint32_t ns = 0, nl = 0;
    for (int lane = 0; lane < 32; lane++) {
        if (!((in->exec_mask >> lane) & 1))
            continue;
        for (uint64_t b = in->addr[lane]; b < in->addr[lane] + in->mem_size; b++) {
            uint64_t sec = b / 32, line = b / 128;
            int seen = 0;
            for (uint32_t i = 0; i < ns; i++)
                seen |= s[i] == sec;
            if (!seen)
                s[ns++] = sec;
            seen = 0;
            for (uint32_t i = 0; i < nl; i++)
                seen |= l[i] == line;
            if (!seen)
                l[nl++] = line;
        }
    }
    *nlines = nl;
    return ns;
}

static void ref_banks(const exec_step_info *in, uint32_t *wf, uint32_t *ideal)
{
    uint32_t size = in->mem_size, per = size <= 4 ? 32 : 128 / size;
    *wf = *ideal = 0;
    for (uint32_t g0 = 0; g0 < 32; g0 += per) {
        uint64_t words[32][64];
        uint32_t n[32] = {0}, any = 0, worst = 0;
        for (uint32_t lane = g0; lane < g0 + per; lane++) {
            if (!((in->exec_mask >> lane) & 1))
                continue;
            any = 1;
            for (uint64_t w = in->addr[lane] / 4; w <= (in->addr[lane] + size - 1) / 4; w++) {
                uint32_t b = (uint32_t)(w % 32);
                int seen = 0;
                for (uint32_t i = 0; i < n[b]; i++)
                    seen |= words[b][i] == w;
                if (!seen)
                    words[b][n[b]++] = w;
                worst = n[b] > worst ? n[b] : worst;
            }
        }
        *wf += worst;
        *ideal += any;
    }
}

/* stride: lane l at base + l * stride (0: every lane at base, a broadcast); scattered 1: lane l
 * at a pseudo-random element instead; 2: at base + l * stride but the last lane at base + stride
 * (one lane off the stride) */
/* ldst_coalesce and ldst_shared on `in` against the references computed from `ref` (the same
 * accesses with explicit lane addresses). */
static void check_in(const char *what, const exec_step_info *in, const exec_step_info *ref,
                     uint64_t base, uint64_t stride)
{
    uint32_t mask = in->exec_mask, size = in->mem_size;
    uint64_t secs[64];
    uint32_t nl = 0, rnl = 0;
    uint64_t rsecs[64 * 32];
    uint32_t ns = ldst_coalesce(in, 32, 128, secs, &nl);
    uint32_t rns = ref_sectors(ref, &rnl, rsecs);
    if (ns != rns || nl != rnl)
        fail_msg("%s (mask %08x size %u base %llu stride %llu): %u sectors %u lines, reference "
                 "%u and %u", what, mask, size, (unsigned long long)base,
                 (unsigned long long)stride, ns, nl, rns, rnl);
    for (uint32_t i = 0; i < ns; i++)
        if (secs[i] != rsecs[i])
            fail_msg("%s (mask %08x size %u base %llu stride %llu): sector %u is %llu, reference "
                     "%llu (lane order)", what, mask, size, (unsigned long long)base,
                     (unsigned long long)stride, i, (unsigned long long)secs[i],
                     (unsigned long long)rsecs[i]);
    for (uint32_t i = 1; i < ns; i++)
        for (uint32_t j = 0; j < i; j++)
            if (secs[i] == secs[j])
                fail_msg("%s: sector %llu listed twice", what, (unsigned long long)secs[i]);
    if (base % size == 0 && stride % size == 0) { /* shared accesses are aligned */
        uint32_t wf, id, rwf, rid;
        ldst_shared(in, 32, 4, &wf, &id);
        ref_banks(ref, &rwf, &rid);
        if (wf != rwf || id != rid)
            fail_msg("%s (mask %08x size %u base %llu stride %llu): %u wavefronts %u ideal, "
                     "reference %u and %u", what, mask, size, (unsigned long long)base,
                     (unsigned long long)stride, wf, id, rwf, rid);
    }
}

static void check(const char *what, uint32_t mask, uint32_t size, uint64_t base, uint64_t stride,
                  int scattered)
{
    exec_step_info in;
    memset(&in, 0, sizeof in);
    in.exec_mask = mask;
    in.mem_size = size;
    for (int l = 0; l < 32; l++)
        in.addr[l] = scattered == 1 ? base + (uint64_t)(((uint32_t)l * 2654435761u) >> 20) * size
                     : scattered == 2 && l == 31 ? base + stride
                                                 : base + (uint64_t)l * stride;
    check_in(what, &in, &in, base, stride);
    if (scattered)
        return;
    /* the same lanes as the executor reports a whole-warp form: a line of addresses, addr[]
     * not written (exec_step_addr) */
    exec_step_info ln = in;
    memset(ln.addr, 0xa5, sizeof ln.addr);
    ln.addr_linear = 1;
    ln.addr_base = base;
    ln.addr_step = stride;
    check_in(what, &ln, &in, base, stride);
}

static void test_patterns(void **state)
{
    (void)state;
    static const uint32_t masks[] = {0xffffffffu, 0x0000ffffu, 0x00ff0000u, 0x1u, 0x80000000u,
                                     0x0000fff0u, 0xf0f0f0f0u, 0x7fffffffu, 0xaaaaaaaau};
    static const uint32_t sizes[] = {1, 2, 4, 8, 16};
    static const uint64_t bases[] = {0, 4, 16, 100, 128, 4096 + 64, 1ull << 40};
    for (size_t mi = 0; mi < sizeof masks / sizeof *masks; mi++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (size_t bi = 0; bi < sizeof bases / sizeof *bases; bi++) {
                uint32_t sz = sizes[si];
                uint64_t b = bases[bi];
                check("consecutive", masks[mi], sz, b, sz, 0);
                check("broadcast", masks[mi], sz, b, 0, 0);
                check("stride 2", masks[mi], sz, b, 2u * sz, 0);
                check("stride 32 words", masks[mi], sz, b, 128, 0);
                check("stride 33 words", masks[mi], sz, b, 132, 0);
                check("scattered", masks[mi], sz, b, 0, 1);
            }
}

/* Two half-warps over consecutive elements each (ldst.c's shortcut for tiles 16 wide), the
 * second half at many offsets from the first: after it (a row further on), sharing its last
 * sector or line, overlapping it, the same, below it; all lanes and some (no shortcut); the
 * sectors in lane order against the reference. */
static void test_half_warps(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {1, 2, 4, 8, 16};
    static const uint64_t bases[] = {0, 4, 16, 100, 128, 4096 + 64};
    static const int64_t offs[] = {0, 1, 4, 31, 32, 60, 64, 96, 124, 128, 160, 4096, -4, -64,
                                   -512};
    static const uint32_t masks[] = {0xffffffffu, 0xfffffffeu, 0x0000ffffu};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (size_t bi = 0; bi < sizeof bases / sizeof *bases; bi++)
            for (size_t oi = 0; oi < sizeof offs / sizeof *offs; oi++)
                for (int k = 0; k < 2; k++)
                    for (size_t mi = 0; mi < sizeof masks / sizeof *masks; mi++) {
                        uint32_t sz = sizes[si];
                        uint64_t b0 = bases[bi] + 1024;
                        /* the second half k = 0: offs bytes after the first half's end; k =
                         * 1: offs elements after its start */
                        uint64_t b1 = k ? b0 + (uint64_t)(offs[oi] * (int64_t)sz)
                                        : b0 + 16u * sz + (uint64_t)offs[oi];
                        exec_step_info in;
                        memset(&in, 0, sizeof in);
                        in.exec_mask = masks[mi];
                        in.mem_size = sz;
                        for (int l = 0; l < 16; l++) {
                            in.addr[l] = b0 + (uint64_t)l * sz;
                            in.addr[16 + l] = b1 + (uint64_t)l * sz;
                        }
                        check_in("half-warps", &in, &in, b0, b1 - b0);
                    }
}

/* Every stride of whole accesses of 4, 8 and 16 bytes, negative ones too, with all lanes
 * active (ldst_shared's shortcut for strided accesses: gcd(stride, 32 / words per lane)
 * wavefronts per group of lanes), and the same with one lane off the stride (no shortcut). */
static void test_word_strides(void **state)
{
    (void)state;
    static const uint32_t masks[] = {0xffffffffu, 0x7fffffffu};
    static const uint32_t sizes[] = {4, 8, 16};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (size_t mi = 0; mi < sizeof masks / sizeof *masks; mi++)
            for (int64_t k = -70; k <= 70; k++)
                for (uint32_t off = 0; off < 2; off++) {
                    uint32_t sz = sizes[si];
                    uint64_t stride = (uint64_t)(k * (int64_t)sz), base = (1u << 20) + sz * off;
                    check("access stride", masks[mi], sz, base, stride, 0);
                    check("access stride, one lane off", masks[mi], sz, base, stride, 2);
                }
}

/* gpu/kernels/bank_conflicts.cu's bk_stride: lane l reads element (l * stride + k) % m of a
 * table of m elements, which wraps for most k and so misses ldst_shared's shortcuts (its
 * generic path counts the distinct words of each bank with a hash set); small tables make
 * lanes share words (broadcasts inside a conflict). Against the reference, every mask above. */
static void test_wrapping_strides(void **state)
{
    (void)state;
    static const uint32_t masks[] = {0xffffffffu, 0x7fffffffu, 0xaaaaaaaau, 0x0000ffffu};
    static const uint32_t sizes[] = {4, 8, 16};
    static const uint32_t strides[] = {1, 2, 3, 16, 31, 32, 33, 64};
    static const uint32_t tables[] = {1024, 256, 48, 8};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (size_t mi = 0; mi < sizeof masks / sizeof *masks; mi++)
            for (size_t ki = 0; ki < sizeof strides / sizeof *strides; ki++)
                for (size_t ti = 0; ti < sizeof tables / sizeof *tables; ti++)
                    for (uint32_t k = 0; k < 70; k += 23) {
                        exec_step_info in;
                        memset(&in, 0, sizeof in);
                        in.exec_mask = masks[mi];
                        in.mem_size = sizes[si];
                        for (uint32_t l = 0; l < 32; l++)
                            in.addr[l] = 8192 + (uint64_t)((l * strides[ki] + k) % tables[ti]) *
                                                    sizes[si];
                        check_in("wrapping stride", &in, &in, 8192, sizes[si]);
                    }
}

/* Hand-derived for 8-byte accesses (doubles): lane l at 8 * 16 * l (a stride of 16 doubles,
 * gpu/kernels/bank_conflicts.cu's bk_double with stride 16): each half warp's 16 lanes all use
 * banks 0 and 1, 16 distinct words each: 16 wavefronts per half, 32 in all, ideal 2; a stride
 * of 2 doubles: lanes l and l + 8 of a half share banks: 2 per half, 4 in all. */
static void test_double_strides(void **state)
{
    (void)state;
    static const struct { uint32_t stride, wf; } cases[] = {{128, 32}, {16, 4}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        exec_step_info in;
        memset(&in, 0, sizeof in);
        in.exec_mask = 0xffffffffu;
        in.mem_size = 8;
        for (int l = 0; l < 32; l++)
            in.addr[l] = 4096 + cases[c].stride * (uint32_t)l;
        uint32_t wf, id;
        ldst_shared(&in, 32, 4, &wf, &id);
        assert_int_equal(wf, cases[c].wf);
        assert_int_equal(id, 2);
    }
}

/* Hand-derived: 32 lanes x 4 bytes from a 128-byte boundary = 4 sectors in 1 line, 1
 * wavefront; shifted by 4 bytes = 5 sectors over 2 lines; 32 lanes reading one word = 1
 * sector, 1 wavefront (broadcast); stride 128 bytes = 32 sectors, 32 lines, 32 wavefronts. */
static void test_hand_derived(void **state)
{
    (void)state;
    exec_step_info in;
    memset(&in, 0, sizeof in);
    in.exec_mask = 0xffffffffu;
    in.mem_size = 4;
    uint64_t secs[64];
    uint32_t nl, wf, id;
    for (int l = 0; l < 32; l++)
        in.addr[l] = 1024 + 4u * (uint32_t)l;
    assert_int_equal(ldst_coalesce(&in, 32, 128, secs, &nl), 4);
    assert_int_equal(nl, 1);
    ldst_shared(&in, 32, 4, &wf, &id);
    assert_int_equal(wf, 1);
    for (int l = 0; l < 32; l++)
        in.addr[l] = 1028 + 4u * (uint32_t)l;
    assert_int_equal(ldst_coalesce(&in, 32, 128, secs, &nl), 5);
    assert_int_equal(nl, 2);
    for (int l = 0; l < 32; l++)
        in.addr[l] = 1024;
    assert_int_equal(ldst_coalesce(&in, 32, 128, secs, &nl), 1);
    ldst_shared(&in, 32, 4, &wf, &id);
    assert_int_equal(wf, 1);
    for (int l = 0; l < 32; l++)
        in.addr[l] = 1024 + 128u * (uint32_t)l;
    assert_int_equal(ldst_coalesce(&in, 32, 128, secs, &nl), 32);
    assert_int_equal(nl, 32);
    ldst_shared(&in, 32, 4, &wf, &id);
    assert_int_equal(wf, 32);
    assert_int_equal(id, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_derived),
        cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_half_warps),
        cmocka_unit_test(test_word_strides),
        cmocka_unit_test(test_double_strides),
        cmocka_unit_test(test_wrapping_strides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
