/* occupancy: CUDA's occupancy rules, bit for bit.
 *
 * What the hardware does: an SM accepts another block only while it has a free block slot,
 * enough free warp slots, enough registers in every sub-partition and enough shared memory in
 * the pool the L1/shared carveout leaves. CUDA's cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * computes the resulting count with fixed rules (cuda_occupancy.h); this file applies the same
 * rules, in the same order and with the same integer roundings, to an arch_t:
 *
 *   warps     (max_threads_per_sm / warp_size) / ceil(block / warp_size)
 *   registers regs/warp = roundUp(regs * 32, 256); a block fails outright when
 *             regs/warp * roundUp(warps/block, 4) > regs_per_block (the hardware assumes all
 *             four sub-partitions are allocated at once); otherwise each sub-partition holds
 *             (regs_per_sm / 4) / regs/warp warps, so the limit is that * 4 / warps/block
 *   blocks    max_blocks_per_sm
 *   smem      per block roundUp(static + reserved + dynamic, unit); 0 blocks when that exceeds
 *             the per-block limit (48 KB, or the opt-in maximum, plus the reserved 1 KB from
 *             CC 8.0); the SM pool is the carveout preference rounded up to a legal carveout
 *             size, or the block's own need rounded up when the preference is smaller
 *   barriers  CC >= 9 only: 2 * max_blocks_per_sm / barriers per block (never the minimum
 *             with CUDA's default of 1 barrier)
 *
 * The result is the minimum; every limit equal to it is reported as a limiter.
 * Simplifications: no partitioned global caching (CUDA's default is off), no clusters, and the
 * legacy cudaFuncSetCacheConfig preference is not modelled (only the carveout percentage).
 */
#include "occupancy.h"

#include <string.h>

static long long round_up(long long x, long long unit)
{
    return unit > 0 ? (x + unit - 1) / unit * unit : x;
}

static int imin(int a, int b)
{
    return a < b ? a : b;
}

void occ_input_defaults(occ_input *in)
{
    memset(in, 0, sizeof *in);
    in->carveout_pct = -1;
    in->num_barriers = 1;
    in->smem_optin = -1;
}

/* cudaOccAlignUpShmemSizeVoltaPlus: the smallest legal carveout that holds size bytes;
 * -1 when none does. */
static long long align_carveout(const arch_t *a, long long size)
{
    for (int i = 0; i < a->carveout_count; i++)
        if (size <= a->carveouts[i])
            return a->carveouts[i];
    return -1;
}

static wl_status check_input(const arch_t *a, const occ_input *in, diag_t *d)
{
    if (in->block_size <= 0 || in->block_size > a->max_threads_per_block)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "block size %d is outside 1..%d for %s",
                        in->block_size, a->max_threads_per_block, a->name);
    if (in->regs_per_thread < 0 || in->regs_per_thread > a->max_regs_per_thread)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "%d registers per thread is outside 0..%d (ptxas never allocates more)",
                        in->regs_per_thread, a->max_regs_per_thread);
    if (in->static_smem < 0 || in->static_smem > a->smem_per_block_default)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "static shared memory %d bytes is outside 0..%d (ptxas's limit)",
                        in->static_smem, a->smem_per_block_default);
    if (in->dyn_smem < 0)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "dynamic shared memory %d is negative",
                        in->dyn_smem);
    if (in->carveout_pct < -1 || in->carveout_pct > 100)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "carveout preference %d%% is outside -1 (not set) .. 100",
                        in->carveout_pct);
    if (in->num_barriers < 0 || in->num_barriers > 16)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "%d barriers per block is outside 0..16",
                        in->num_barriers);
    return WL_OK;
}

/* cudaOccMaxBlocksPerSMRegsLimit. */
static int regs_limit(const arch_t *a, const occ_input *in, int warps_per_block,
                      occ_result *r)
{
    long long per_warp = round_up((long long)in->regs_per_thread * a->warp_size,
                                  a->reg_alloc_unit);
    long long per_block = per_warp * warps_per_block;
    long long assumed = per_warp * round_up(warps_per_block, a->sub_partitions);
    r->regs_per_block_alloc = (int)per_block;
    if (a->regs_per_block < assumed || a->regs_per_block < per_block)
        return 0;
    if (per_warp == 0)
        return OCC_UNLIMITED;
    long long warps_per_subpartition = (a->regs_per_sm / a->sub_partitions) / per_warp;
    return (int)(warps_per_subpartition * a->sub_partitions / warps_per_block);
}

/* cudaOccMaxBlocksPerSMSmemLimit with cudaOccSMemPerBlock and the Volta+ carveout rules. */
static int smem_limit(const arch_t *a, const occ_input *in, occ_result *r)
{
    long long fixed = (long long)in->static_smem + a->smem_reserved_per_block;
    long long alloc = round_up(fixed + in->dyn_smem, a->smem_alloc_unit);
    int opted = in->smem_optin < 0
                    ? (long long)in->static_smem + in->dyn_smem > a->smem_per_block_default
                    : in->smem_optin;
    /* cudaFuncAttributeMaxDynamicSharedMemorySize: 48 KB - static by default; an opted-in
     * kernel raised it to the device maximum. */
    long long max_dyn =
        (opted ? a->smem_per_block_optin : a->smem_per_block_default) - in->static_smem;
    long long per_block_limit = fixed + max_dyn > a->smem_per_block_default
                                    ? a->smem_per_block_optin
                                    : a->smem_per_block_default;
    if (a->cc_major >= 8) /* from Ampere the driver's reserved 1 KB is on top of the limit */
        per_block_limit += a->smem_reserved_per_block;
    r->smem_per_block_alloc = alloc > 0x7fffffff ? 0x7fffffff : (int)alloc;
    r->smem_per_block_limit = (int)per_block_limit;

    long long pref = in->carveout_pct < 0
                         ? a->smem_per_sm_max
                         : (long long)in->carveout_pct * a->smem_per_sm_max / 100;
    pref = align_carveout(a, pref);
    r->smem_pool = (int)pref;
    if (in->dyn_smem > max_dyn || alloc > per_block_limit)
        return 0;
    long long pool = pref >= alloc ? pref : align_carveout(a, alloc);
    if (pool < 0) /* cannot happen for a consistent arch: the limit fits the largest carveout */
        return 0;
    r->smem_pool = (int)pool;
    return alloc > 0 ? (int)(pool / alloc) : OCC_UNLIMITED;
}

wl_status occ_compute(const arch_t *a, const occ_input *in, occ_result *out, diag_t *d)
{
    memset(out, 0, sizeof *out);
    wl_status st = check_input(a, in, d);
    if (st != WL_OK)
        return st;
    int wpb = (in->block_size + a->warp_size - 1) / a->warp_size;
    out->warps_per_block = wpb;
    out->limit_warps = (a->max_threads_per_sm / a->warp_size) / wpb;
    out->limit_regs = regs_limit(a, in, wpb, out);
    out->limit_smem = smem_limit(a, in, out);
    out->limit_blocks = a->max_blocks_per_sm;
    out->limit_barriers = OCC_UNLIMITED;
    if (a->cc_major >= 9 && in->num_barriers > 0)
        out->limit_barriers = a->max_blocks_per_sm * 2 / in->num_barriers;

    const int lim[OCC_NUM_LIMITS] = {out->limit_warps, out->limit_regs, out->limit_smem,
                                     out->limit_blocks, out->limit_barriers};
    int best = lim[0];
    for (int i = 1; i < OCC_NUM_LIMITS; i++)
        best = imin(best, lim[i]);
    for (int i = 0; i < OCC_NUM_LIMITS; i++)
        if (lim[i] == best)
            out->limiters |= 1u << i;
    out->blocks_per_sm = best;
    out->warps_per_sm = best * wpb;
    out->occupancy = (double)out->warps_per_sm / a->max_warps_per_sm;
    out->launch_smem_pool = out->smem_pool;
    if (in->carveout_pct < 0 && best > 0) { /* the driver's choice (occupancy.h) */
        long long need = (long long)out->smem_per_block_alloc * best;
        long long pool = align_carveout(a, need);
        if (pool >= 0 && pool < out->smem_pool)
            out->launch_smem_pool = (int)pool;
    }
    return WL_OK;
}

wl_status occ_suggest(const arch_t *a, const occ_input *in, int *block_size, int *min_grid,
                      diag_t *d)
{
    occ_input t = *in;
    int best_block = 0, best_blocks = 0, best_threads = 0;
    int limit = a->max_threads_per_block;
    int start = (int)round_up(limit, a->warp_size);
    for (int aligned = start; aligned > 0; aligned -= a->warp_size) {
        t.block_size = aligned > limit ? limit : aligned;
        occ_result r;
        wl_status st = occ_compute(a, &t, &r, d);
        if (st != WL_OK)
            return st;
        int threads = t.block_size * r.blocks_per_sm;
        if (threads > best_threads) { /* strictly greater: ties keep the larger block */
            best_block = t.block_size;
            best_blocks = r.blocks_per_sm;
            best_threads = threads;
        }
        if (best_threads == a->max_threads_per_sm)
            break;
    }
    *block_size = best_block;
    *min_grid = best_blocks * a->sm_count;
    return WL_OK;
}

static const char *const limit_names[OCC_NUM_LIMITS] = {"warps", "registers", "shared_memory",
                                                        "blocks", "barriers"};

const char *occ_limit_name(unsigned bit)
{
    for (int i = 0; i < OCC_NUM_LIMITS; i++)
        if (bit == 1u << i)
            return limit_names[i];
    return "none";
}

const char *occ_first_limiter(unsigned limiters)
{
    for (int i = 0; i < OCC_NUM_LIMITS; i++)
        if (limiters & (1u << i))
            return limit_names[i];
    return "none";
}

static int add_point(const arch_t *a, const occ_input *base, occ_vary what, int v,
                     occ_point *out, int n, int max)
{
    if (n >= max)
        return n;
    for (int i = 0; i < n; i++)
        if (out[i].value == v)
            return n;
    occ_input t = *base;
    if (what == OCC_VARY_BLOCK)
        t.block_size = v;
    else if (what == OCC_VARY_REGS)
        t.regs_per_thread = v;
    else
        t.dyn_smem = v;
    occ_result r;
    occ_point p = {v, 0, 0, 0.0};
    if (occ_compute(a, &t, &r, NULL) == WL_OK) {
        p.blocks_per_sm = r.blocks_per_sm;
        p.warps_per_sm = r.warps_per_sm;
        p.occupancy = r.occupancy;
    }
    /* keep the points sorted by value */
    int at = n;
    while (at > 0 && out[at - 1].value > v) {
        out[at] = out[at - 1];
        at--;
    }
    out[at] = p;
    return n + 1;
}

int occ_series(const arch_t *a, const occ_input *in, occ_vary what, occ_point *out, int max)
{
    int n = 0;
    if (what == OCC_VARY_BLOCK) {
        for (int b = a->warp_size; b <= a->max_threads_per_block; b += a->warp_size)
            n = add_point(a, in, what, b, out, n, max);
        n = add_point(a, in, what, in->block_size, out, n, max);
    } else if (what == OCC_VARY_REGS) {
        for (int r = 8; r < a->max_regs_per_thread; r += 8)
            n = add_point(a, in, what, r, out, n, max);
        n = add_point(a, in, what, a->max_regs_per_thread, out, n, max);
        n = add_point(a, in, what, in->regs_per_thread, out, n, max);
    } else {
        int top = a->smem_per_block_optin - in->static_smem;
        for (int s = 0; s < top; s += 8 * 1024)
            n = add_point(a, in, what, s, out, n, max);
        n = add_point(a, in, what, top, out, n, max);
        n = add_point(a, in, what, in->dyn_smem, out, n, max);
    }
    return n;
}
