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

void ldst_shared(const exec_step_info *in, uint32_t banks, uint32_t bank_bytes,
                 uint32_t *wavefronts, uint32_t *ideal)
{
    uint32_t size = in->mem_size ? in->mem_size : 4;
    uint32_t group_bytes = banks * bank_bytes; /* 128 */
    uint32_t per = size <= bank_bytes ? 32 : group_bytes / size;
    if (per == 0)
        per = 1;
    uint32_t wf = 0, id = 0;
    for (uint32_t g0 = 0; g0 < 32; g0 += per) {
        uint64_t words[64];
        uint32_t nw = 0;
        uint8_t count[64] = {0};
        uint32_t maxc = 0;
        for (uint32_t l = g0; l < g0 + per && l < 32; l++) {
            if (!((in->exec_mask >> l) & 1))
                continue;
            uint64_t w0 = in->addr[l] / bank_bytes;
            uint64_t w1 = (in->addr[l] + size - 1) / bank_bytes;
            for (uint64_t w = w0; w <= w1 && nw < 64; w++) {
                int seen = 0;
                for (uint32_t i = nw; i-- > 0;)
                    if (words[i] == w) {
                        seen = 1;
                        break;
                    }
                if (seen)
                    continue;
                words[nw++] = w;
                uint32_t b = (uint32_t)(w % banks) & 63u;
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

uint32_t ldst_coalesce(const exec_step_info *in, uint32_t sector_bytes, uint32_t line_bytes,
                       uint64_t *sectors, uint32_t *nlines)
{
    uint32_t n = 0, nl = 0;
    uint64_t lines[64];
    uint32_t size = in->mem_size ? in->mem_size : 1;
    uint32_t spl = line_bytes / sector_bytes ? line_bytes / sector_bytes : 1;
    for (int l = 0; l < 32; l++) {
        if (!((in->exec_mask >> l) & 1))
            continue;
        uint64_t s0 = in->addr[l] / sector_bytes, s1 = (in->addr[l] + size - 1) / sector_bytes;
        for (uint64_t s = s0; s <= s1; s++) {
            int seen = 0;
            for (uint32_t i = n; i-- > 0;)
                if (sectors[i] == s) {
                    seen = 1;
                    break;
                }
            if (seen || n == 64)
                continue;
            sectors[n++] = s;
            uint64_t line = s / spl;
            int lseen = 0;
            for (uint32_t i = nl; i-- > 0;)
                if (lines[i] == line) {
                    lseen = 1;
                    break;
                }
            if (!lseen && nl < 64)
                lines[nl++] = line;
        }
    }
    *nlines = nl;
    return n;
}
