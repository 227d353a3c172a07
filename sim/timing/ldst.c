/* ldst: what one warp memory instruction costs in the SM's load/store path.
 *
 * Shared memory (hardware, [CPG]): 32 banks of 4 bytes; successive 4-byte words go to
 * successive banks. A warp access is served in wavefronts: each wavefront reads at most one
 * word per bank, and lanes reading the same word share it (broadcast, free). Accesses wider
 * than 4 bytes are split first: 8-byte accesses are served per half warp (16 lanes x 8 B =
 * 128 B), 16-byte ones per quarter warp; conflicts count only inside one such group.
 * Model: exactly that. wavefronts = sum over groups of the largest number of distinct words
 * any bank holds; ideal = number of groups with an active lane; bank conflicts = the
 * difference (Nsight Compute's l1tex__data_bank_conflicts_pipe_lsu_mem_shared). 1- and
 * 2-byte accesses count by the 4-byte word they fall in.
 *
 * Global memory ([BPG], cc >= 6.0): a warp access costs the number of distinct 32-byte
 * sectors its active lanes touch; sectors group into 128-byte lines (L1 tag lookups).
 */
#include <string.h>

#include "timing_int.h"

/* The divisions below become shifts where the arch numbers are powers of two (wl_log2_exact);
 * the general case stays exact. */
static inline uint64_t div_by(uint64_t v, uint64_t d, int sh)
{
    return sh >= 0 ? v >> sh : v / d;
}

static inline uint64_t mod_by(uint64_t v, uint64_t d, int sh)
{
    return sh >= 0 ? v & (d - 1) : v % d;
}

/* Is w among the first n entries of list (searched newest first)? */
static int listed(const uint64_t *list, uint32_t n, uint64_t w)
{
    for (uint32_t i = n; i-- > 0;)
        if (list[i] == w)
            return 1;
    return 0;
}

/* A set of at most 64 words (ldst_shared: those of one group that are not the first of their
 * bank), open addressing over 128 slots: emptied by clearing the two words of `used`. An
 * n-way conflict asks it n - 1 times per bank; a search of a list was n^2 / 2 compares (bk_stride
 * at a stride of 32, whose wrapping addresses miss the closed forms above: 500 per access). */
typedef struct {
    uint64_t used[2];
    uint64_t key[128];
} word_set;

/* Adds w to s; 1 when it was not there. */
static inline int word_set_add(word_set *s, uint64_t w)
{
    uint32_t h = (uint32_t)((w * UINT64_C(0x9E3779B97F4A7C15)) >> 57);
    for (;; h = (h + 1) & 127u) {
        uint64_t bit = UINT64_C(1) << (h & 63u);
        if (!(s->used[h >> 6] & bit)) {
            s->used[h >> 6] |= bit;
            s->key[h] = w;
            return 1;
        }
        if (s->key[h] == w)
            return 0;
    }
}

/* Do the active lanes access base + lane * size, for one base? (The common "thread i takes
 * element i" pattern.) Sets *base. */
static int lane_linear(const exec_step_info *in, uint32_t size, uint64_t *base)
{
    uint32_t m = in->exec_mask;
    if (!m)
        return 0;
    int l0 = __builtin_ctz(m);
    if (in->addr_linear) { /* the executor saw the lanes on a line already */
        if (in->addr_step == size) {
            *base = in->addr_base;
            return 1;
        }
        /* another stride: linear only with one active lane (as the loop below finds) */
        *base = in->addr_base + (uint64_t)l0 * in->addr_step - (uint64_t)l0 * size;
        return (m & (m - 1)) == 0;
    }
    uint64_t b = exec_step_addr(in, l0) - (uint64_t)l0 * size;
    int ok = 1;
    for (int l = l0 + 1; l < 32; l++)
        ok &= !((m >> l) & 1) || exec_step_addr(in, l) == b + (uint64_t)l * size;
    *base = b;
    return ok;
}

/* Lanes 0-15 at *b0 + l size and lanes 16-31 at *b1 + (l - 16) size (addresses listed per lane:
 * a line of them is lane_linear's case). */
static int halves_linear(const exec_step_info *in, uint32_t size, uint64_t *b0, uint64_t *b1)
{
    if (in->addr_linear)
        return 0;
    uint64_t a = in->addr[0], b = in->addr[16];
    int ok = 1;
    for (int l = 1; l < 16; l++)
        ok &= (in->addr[l] == a + (uint64_t)l * size) & (in->addr[16 + l] == b + (uint64_t)l * size);
    *b0 = a;
    *b1 = b;
    return ok;
}

/* lane_linear with a base aligned to the access size (then no lane's access straddles). */
static int base_aligned_linear(const exec_step_info *in, uint32_t size, uint64_t *base)
{
    return lane_linear(in, size, base) && mod_by(*base, size, wl_log2_exact(size)) == 0;
}

void ldst_shared(const exec_step_info *in, uint32_t banks, uint32_t bank_bytes,
                 uint32_t *wavefronts, uint32_t *ideal)
{
    uint32_t size = in->mem_size ? in->mem_size : 4;
    uint32_t group_bytes = banks * bank_bytes; /* 128 */
    int bsh = wl_log2_exact(bank_bytes), ksh = wl_log2_exact(banks); /* shifts, not divisions */
    uint32_t per =
        size <= bank_bytes ? 32 : (uint32_t)div_by(group_bytes, size, wl_log2_exact(size));
    if (per == 0)
        per = 1;
    uint64_t base;
    if (size == bank_bytes * (32 / per) && banks == 32 && base_aligned_linear(in, size, &base)) {
        /* each group of `per` lanes reads `banks` consecutive words: one per bank, one
         * wavefront per group with an active lane */
        uint32_t g = 0;
        for (uint32_t g0 = 0; g0 < 32; g0 += per)
            g += (in->exec_mask >> g0 & (per == 32 ? 0xffffffffu : (1u << per) - 1u)) != 0;
        *wavefronts = *ideal = g;
        return;
    }
    if (32u * size < group_bytes && in->exec_mask && lane_linear(in, size, &base)) {
        /* lanes on consecutive elements narrower than a word (16-bit stores of half-precision
         * kernels): fewer than group_bytes bytes, so fewer consecutive words than banks, each
         * word in a bank of its own: one wavefront */
        *wavefronts = *ideal = 1;
        return;
    }
    uint32_t q = size / bank_bytes; /* words per lane: 1, 2 or 4 (then `per` = 32 / q) */
    if ((q == 1 || q == 2 || q == 4) && size == bank_bytes * q && banks == 32 &&
        in->exec_mask == 0xffffffffu &&
        mod_by(exec_step_addr(in, 0), size, wl_log2_exact(size)) == 0) {
        /* all lanes at one stride of k whole accesses (a column of a padded tile: k = 33; a
         * row of doubles at a stride of 16): lane l's access is unit u0 + l * k of `size`
         * bytes, words q * (u0 + l * k) ... + q - 1, in the q banks of bank group
         * (u0 + l * k) mod per. In each group of `per` lanes the units are distinct (k != 0)
         * and each bank group that is hit holds gcd(k, per) of them, one wavefront each; the
         * q groups alike. k = 0: one access, a broadcast, one wavefront per group. */
        uint64_t d = in->addr_linear ? in->addr_step : in->addr[1] - in->addr[0];
        int ssh = wl_log2_exact(size);
        int ok = mod_by(d, size, ssh) == 0;
        for (int l = 2; l < 32 && ok && !in->addr_linear; l++)
            ok = in->addr[l] - in->addr[l - 1] == d;
        if (ok) {
            uint64_t k = div_by(d, size, ssh); /* mod 2^64: a negative stride's residue mod
                                                * per (a power of two) */
            uint32_t km = (uint32_t)(k & (per - 1u));
            uint32_t each = d == 0 ? 1u : km == 0 ? per : 1u << __builtin_ctz(km);
            *wavefronts = q * each;
            *ideal = q;
            return;
        }
    }
    uint32_t wf = 0, id = 0;
    for (uint32_t g0 = 0; g0 < 32; g0 += per) {
        uint32_t nw = 0;
        uint8_t count[64]; /* words per bank, set when the bank is first seen (clearing all
                              64 made GCC emit `rep stosd` here, slow to start) */
        uint64_t first[64];       /* the first word seen in each bank */
        uint64_t banks_seen = 0;  /* bit b: bank b (mod 64) holds a word */
        uint32_t maxc = 0;
        word_set set; /* (an initializer would clear its keys too: 1 KB per group) */
        set.used[0] = set.used[1] = 0;
        for (uint32_t l = g0; l < g0 + per && l < 32; l++) {
            if (!((in->exec_mask >> l) & 1))
                continue;
            uint64_t a = exec_step_addr(in, (int)l);
            uint64_t w0 = div_by(a, bank_bytes, bsh);
            uint64_t w1 = div_by(a + size - 1, bank_bytes, bsh);
            for (uint64_t w = w0; w <= w1 && nw < 64; w++) {
                uint32_t b = (uint32_t)(ksh >= 0 ? w & (banks - 1u) : w % banks) & 63u;
                /* a word is new when its bank holds none yet; the same word as the bank's
                 * first is a broadcast; anything else (a conflict) asks the set of the
                 * group's words seen after a bank's first */
                if ((banks_seen >> b) & 1) {
                    if (first[b] == w || !word_set_add(&set, w))
                        continue;
                } else {
                    banks_seen |= UINT64_C(1) << b;
                    first[b] = w;
                    count[b] = 0;
                }
                nw++;
                if (++count[b] > maxc)
                    maxc = count[b];
            }
        }
        if (nw) {
            wf += maxc;
            id++;
        }
    }
    *wavefronts = wf;
    *ideal = id;
}

/* Is v among the n entries of list? up: the list is strictly ascending so far, so a value above
 * the last entry is new without a search. */
static inline int seen_sorted(const uint64_t *list, uint32_t n, int up, uint64_t v)
{
    if (n == 0 || (up && v > list[n - 1]))
        return 0;
    return list[n - 1] == v || listed(list, n, v);
}

/* Sectors s0..s1 after the ones listed, which are in ascending order and end at or below s0:
 * each is new unless it equals the last (at most 64), its line likewise (the lane loop of
 * ldst_coalesce on ascending lanes). */
static inline void add_ascending(uint64_t s0, uint64_t s1, uint32_t spl, int lsh,
                                 uint64_t *sectors, uint32_t *n, uint64_t *lines, uint32_t *nl)
{
    for (uint64_t s = s0; s <= s1; s++) {
        if ((*n && sectors[*n - 1] == s) || *n == 64)
            continue;
        sectors[(*n)++] = s;
        uint64_t line = div_by(s, spl, lsh);
        if (!(*nl && lines[*nl - 1] == line) && *nl < 64)
            lines[(*nl)++] = line;
    }
}

uint32_t ldst_coalesce(const exec_step_info *in, uint32_t sector_bytes, uint32_t line_bytes,
                       uint64_t *sectors, uint32_t *nlines)
{
    uint32_t n = 0, nl = 0;
    uint64_t lines[64];
    uint32_t size = in->mem_size ? in->mem_size : 1;
    int ssh = wl_log2_exact(sector_bytes);
    uint32_t spl = (uint32_t)div_by(line_bytes, sector_bytes, ssh);
    spl = spl ? spl : 1;
    int lsh = wl_log2_exact(spl);
    uint32_t m = in->exec_mask;
    uint64_t base;
    if (m && ((m >> __builtin_ctz(m)) & ((m >> __builtin_ctz(m)) + 1)) == 0 &&
        lane_linear(in, size, &base)) {
        /* one contiguous run of lanes over consecutive elements: one byte range, so its
         * sectors and lines are consecutive (what the loop below finds, directly) */
        int lo = __builtin_ctz(m), hi = 31 - __builtin_clz(m);
        uint64_t a0 = base + (uint64_t)lo * size, a1 = base + (uint64_t)(hi + 1) * size - 1;
        uint64_t s0 = div_by(a0, sector_bytes, ssh), s1 = div_by(a1, sector_bytes, ssh);
        if (s1 - s0 < 64) {
            for (uint64_t s = s0; s <= s1; s++)
                sectors[n++] = s;
            *nlines = (uint32_t)(div_by(s1, spl, lsh) - div_by(s0, spl, lsh) + 1);
            return n;
        }
    }
    /* Lanes on a line at a stride of at least the access size, upwards (a structure's field,
     * a strided loop): each active lane's bytes lie above the previous one's, so sectors and
     * lines come in ascending order (what the loop below finds, without its searches) */
    if (in->addr_linear && in->addr_step >= size && in->addr_step < (UINT64_C(1) << 31) &&
        in->addr_base <= UINT64_MAX - 32 * in->addr_step) {
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            uint64_t a = in->addr_base + (uint64_t)__builtin_ctz(mm) * in->addr_step;
            add_ascending(div_by(a, sector_bytes, ssh), div_by(a + size - 1, sector_bytes, ssh),
                          spl, lsh, sectors, &n, lines, &nl);
        }
        *nlines = nl;
        return n;
    }
    /* All lanes in two half-warps, each over consecutive elements, the second at or above the
     * first's last sector (a tile 16 elements wide: rows of 16 threads, as 16 x 16 blocks and
     * wmma staging loops make): two ascending runs of sectors */
    uint64_t h0, h1;
    if (m == 0xffffffffu && halves_linear(in, size, &h0, &h1)) {
        uint64_t s0 = div_by(h0, sector_bytes, ssh), s1 = div_by(h0 + 16 * size - 1, sector_bytes, ssh);
        uint64_t t0 = div_by(h1, sector_bytes, ssh), t1 = div_by(h1 + 16 * size - 1, sector_bytes, ssh);
        if (t0 >= s1 && s1 - s0 < 32 && t1 - t0 < 32) {
            add_ascending(s0, s1, spl, lsh, sectors, &n, lines, &nl);
            add_ascending(t0, t1, spl, lsh, sectors, &n, lines, &nl);
            *nlines = nl;
            return n;
        }
    }
    /* Lanes usually touch ascending sectors: while the lists are strictly ascending, a value
     * above the last entry is new and one equal to it is not, without a search. */
    int s_up = 1, l_up = 1;
    for (int l = 0; l < 32; l++) {
        if (!((in->exec_mask >> l) & 1))
            continue;
        uint64_t a = exec_step_addr(in, l);
        uint64_t s0 = div_by(a, sector_bytes, ssh);
        uint64_t s1 = div_by(a + size - 1, sector_bytes, ssh);
        for (uint64_t s = s0; s <= s1; s++) {
            if (seen_sorted(sectors, n, s_up, s) || n == 64)
                continue;
            if (n && s < sectors[n - 1])
                s_up = 0;
            sectors[n++] = s;
            uint64_t line = div_by(s, spl, lsh);
            if (!seen_sorted(lines, nl, l_up, line) && nl < 64) {
                if (nl && line < lines[nl - 1])
                    l_up = 0;
                lines[nl++] = line;
            }
        }
    }
    *nlines = nl;
    return n;
}
