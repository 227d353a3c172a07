/* launch: a whole grid, functionally (see launch.h). */
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

wl_status launch_kernel(const ptx_module *m, const ptx_func *k, const launch_config *cfg,
                        devmem_t *mem, launch_stats *st, diag_t *d)
{
    exec_grid g;
    memset(&g, 0, sizeof g);
    memcpy(g.grid, cfg->grid, sizeof g.grid);
    memcpy(g.block, cfg->block, sizeof g.block);
    g.dyn_smem = cfg->dyn_smem;
    g.params = cfg->params;
    g.params_size = cfg->params_size;
    g.num_sms = cfg->num_sms > 0 ? cfg->num_sms : LAUNCH_DEFAULT_SMS;
    g.print = cfg->print;
    g.print_ctx = cfg->print_ctx;
    uint64_t max_insts = cfg->max_warp_insts ? cfg->max_warp_insts : LAUNCH_DEFAULT_MAX_WARP_INSTS;
    int resident = cfg->max_resident_blocks > 0 ? cfg->max_resident_blocks
                                                : LAUNCH_DEFAULT_RESIDENT;
    exec_prog *p;
    wl_status s = exec_prog_create(m, k, &g, mem, &p, d);
    if (s != WL_OK)
        return s;
    uint64_t nblocks = (uint64_t)g.grid[0] * g.grid[1] * g.grid[2];
    if ((uint64_t)resident > nblocks)
        resident = (int)nblocks;
    exec_block **res = calloc((size_t)resident, sizeof *res);
    exec_block **spare = calloc((size_t)resident, sizeof *spare); /* retired, for reuse */
    int nspare = 0;
    exec_counts *cnt = calloc(1, sizeof *cnt);
    if (!res || !cnt || !spare) {
        free(res);
        free(spare);
        free(cnt);
        exec_prog_destroy(p);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    }
    uint64_t next = 0, done = 0;
    /* Blocks become resident in block-index order (x fastest) as earlier ones retire; resident
     * blocks take turns, one scheduling round each, so blocks that wait on each other through
     * global memory and mbarriers can still make progress. */
    while (s == WL_OK && done < nblocks) {
        int any = 0;
        for (int i = 0; i < resident && s == WL_OK; i++) {
            if (!res[i] && next < nblocks) {
                uint32_t c[3] = {(uint32_t)(next % g.grid[0]),
                                 (uint32_t)(next / g.grid[0] % g.grid[1]),
                                 (uint32_t)(next / ((uint64_t)g.grid[0] * g.grid[1]))};
                if (nspare > 0) {
                    res[i] = spare[--nspare];
                    exec_block_reset(res[i], c);
                } else {
                    res[i] = exec_block_create(p, c, d);
                }
                next++;
                if (!res[i]) {
                    s = WL_EUSAGE;
                    break;
                }
            }
            if (!res[i])
                continue;
            int progressed;
            uint64_t budget = max_insts > cnt->warp_insts ? max_insts - cnt->warp_insts : 0;
            s = exec_block_round(res[i], budget, &progressed, d);
            if (s == WL_EDEADLOCK) {
                /* only the instruction budget stops a round: name the launch-wide limit */
                char why[sizeof d->msg];
                snprintf(why, sizeof why, "%s", d->msg);
                diag_set(d, WL_EDEADLOCK, d->file, d->line, 0,
                         "the launch exceeded %llu warp instructions "
                         "(the limit; raise it with --max-cycles): %s", (unsigned long long)max_insts, why);
            }
            if (s != WL_OK)
                break;
            any |= progressed;
            if (exec_block_done(res[i])) {
                exec_counts_add(cnt, exec_block_counts(res[i]));
                spare[nspare++] = res[i];
                res[i] = NULL;
                done++;
                any = 1;
            }
        }
        if (s == WL_OK && !any) {
            for (int i = 0; i < resident; i++)
                if (res[i]) {
                    s = exec_block_stuck(res[i], d);
                    break;
                }
        }
    }
    for (int i = 0; i < resident; i++) {
        if (res[i] && st)
            exec_counts_add(cnt, exec_block_counts(res[i]));
        exec_block_destroy(res[i]);
    }
    if (st) {
        memset(st, 0, sizeof *st);
        st->warp_insts = cnt->warp_insts;
        st->thread_insts = cnt->thread_insts;
        st->blocks_done = done;
        st->branches = cnt->branches;
        st->divergent_branches = cnt->divergent_branches;
        st->branch_efficiency = cnt->branches ?
            1.0 - (double)cnt->divergent_branches / (double)cnt->branches : 1.0;
        st->avg_active_lanes = cnt->warp_insts ?
            (double)cnt->thread_insts / (double)cnt->warp_insts : 0.0;
        memcpy(st->op_count, cnt->op_count, sizeof st->op_count);
    }
    for (int i = 0; i < nspare; i++)
        exec_block_destroy(spare[i]);
    free(res);
    free(spare);
    free(cnt);
    exec_prog_destroy(p);
    return s;
}
