/* stats: stall accounting, trace intervals, and the JSON and text reports.
 *
 * Every cycle of every resident warp is charged to exactly one reason (stall.h); the sum over
 * reasons is the resident warp-cycles, from which achieved occupancy follows (Nsight
 * Compute: average active warps per active cycle / maximum warps per SM). The text report
 * follows Nsight Compute's sections so the two can be read side by side.
 */
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "ptx.h"
#include "timing_int.h"

void stats_trace_run(tctx *c, const tw *w)
{
    trace_write_interval(c->tr, &(trace_interval){w->blk->sm, w->slot, w->run_reason,
                                                   w->run_start, w->charged});
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void set_num(cJSON *o, const char *key, double v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddNumberToObject(o, key, v);
}

static void set_obj(cJSON *o, const char *key, cJSON *v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddItemToObject(o, key, v);
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* Opcode indices with a nonzero count, by count descending then name order. */
static int sorted_ops(const timing_result *r, int *idx)
{
    int n = 0;
    for (int i = 0; i < PTX_OP_COUNT; i++)
        if (r->op_count[i])
            idx[n++] = i;
    for (int i = 1; i < n; i++) /* insertion sort: stable, few entries */
        for (int j = i; j > 0 && r->op_count[idx[j]] > r->op_count[idx[j - 1]]; j--) {
            int x = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = x;
        }
    return n;
}

void timing_result_to_json(const timing_result *r, cJSON *o)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, "mode");
    cJSON_AddStringToObject(o, "mode", "timed");
    cJSON_DeleteItemFromObjectCaseSensitive(o, "policy");
    cJSON_AddStringToObject(o, "policy", sched_policy_name(r->policy));
    set_num(o, "blocks_per_sm", r->blocks_per_sm);
    set_num(o, "theoretical_occupancy", r->theoretical_occupancy);
    set_num(o, "achieved_occupancy", r->achieved_occupancy);
    set_num(o, "cycles", (double)r->cycles);
    set_num(o, "time_us", r->time_us);
    set_num(o, "waves", (double)r->waves_x100 / 100.0);
    set_num(o, "blocks", (double)r->nblocks);
    set_num(o, "warp_instructions", (double)r->warp_instructions);
    set_num(o, "thread_instructions", (double)r->thread_instructions);
    set_num(o, "folded_instructions", (double)r->folded_instructions);
    set_num(o, "ipc", r->ipc);
    set_num(o, "sm_active_cycles", (double)r->sm_active_cycles);
    set_num(o, "sim_evaluations", (double)r->evaluations);
    cJSON *st = cJSON_CreateObject();
    for (int i = 0; i < STALL_COUNT; i++)
        cJSON_AddNumberToObject(st, stall_name(i), (double)r->stalls[i]);
    set_obj(o, "stalls", st);
    set_num(o, "resident_warp_cycles", (double)r->resident_warp_cycles);
    cJSON *sc = cJSON_CreateObject();
    cJSON_AddNumberToObject(sc, "active_cycles", (double)r->sched_active_cycles);
    cJSON_AddNumberToObject(sc, "issue_cycles", (double)r->sched_issue_cycles);
    cJSON_AddNumberToObject(sc, "issue_slot_utilization",
                            ratio(r->sched_issue_cycles, r->sched_active_cycles));
    cJSON_AddNumberToObject(sc, "active_warps_per_scheduler",
                            ratio(r->resident_warp_cycles, r->sched_active_cycles));
    cJSON_AddNumberToObject(sc, "eligible_warps_per_scheduler",
                            ratio(r->eligible_warp_cycles, r->sched_active_cycles));
    set_obj(o, "scheduler", sc);
    set_num(o, "branches", (double)r->branches);
    set_num(o, "divergent_branches", (double)r->divergent_branches);
    set_num(o, "branch_efficiency", r->branch_efficiency);
    set_num(o, "shared_requests", (double)r->shared_requests);
    set_num(o, "shared_wavefronts", (double)r->shared_wavefronts);
    set_num(o, "shared_bank_conflicts", (double)r->shared_bank_conflicts);
    set_num(o, "global_load_requests", (double)r->global_load_requests);
    set_num(o, "global_load_sectors", (double)r->global_load_sectors);
    set_num(o, "global_store_requests", (double)r->global_store_requests);
    set_num(o, "global_store_sectors", (double)r->global_store_sectors);
    set_num(o, "global_atomic_requests", (double)r->global_atomic_requests);
    set_num(o, "local_requests", (double)r->local_requests);
    set_num(o, "local_sectors", (double)r->local_sectors);
    set_num(o, "l1_hit_rate", r->l1_hit_rate);
    set_num(o, "l2_hit_rate", r->l2_hit_rate);
    set_num(o, "dram_bytes", (double)r->dram_bytes);
    cJSON_DeleteItemFromObjectCaseSensitive(o, "memory_model");
    cJSON_AddStringToObject(o, "memory_model", r->memory_model ? r->memory_model : "?");
    int idx[PTX_OP_COUNT];
    int n = sorted_ops(r, idx);
    cJSON *ops = cJSON_CreateObject();
    for (int i = 0; i < n; i++)
        cJSON_AddNumberToObject(ops, isa_name(idx[i]), (double)r->op_count[idx[i]]);
    set_obj(o, "opcodes", ops);
}

/* ---- text ---------------------------------------------------------------------------------- */

void timing_report_text(const timing_result *r, FILE *f)
{
    uint64_t issued = r->warp_instructions;
    fprintf(f, "  Section: Launch\n");
    fprintf(f, "    kernel                        %s on %s (%d SMs x %d schedulers, %.0f MHz)\n",
            r->kernel, r->arch, r->sm_count, r->subpartitions, r->clock_mhz);
    fprintf(f, "    grid / block                  (%u,%u,%u) x (%u,%u,%u)  %llu blocks, "
            "%.2f waves\n",
            r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2],
            (unsigned long long)r->nblocks, (double)r->waves_x100 / 100.0);
    fprintf(f, "    duration                      %llu cycles, %.3f us (first dispatch to last "
            "retire)\n", (unsigned long long)r->cycles, r->time_us);
    fprintf(f, "    scheduler policy              %s\n", sched_policy_name(r->policy));
    fprintf(f, "  Section: Occupancy\n");
    fprintf(f, "    theoretical occupancy         %.1f %%  (%d blocks/SM, limiter: %s)\n",
            100.0 * r->theoretical_occupancy, r->blocks_per_sm,
            r->occupancy_limiter ? r->occupancy_limiter : "?");
    fprintf(f, "    achieved occupancy            %.1f %%  (%.2f active warps per SM)\n",
            100.0 * r->achieved_occupancy, r->achieved_occupancy * r->max_warps_per_sm);
    fprintf(f, "  Section: Scheduler Statistics\n");
    double act = (double)r->sched_active_cycles;
    fprintf(f, "    active warps per scheduler    %.2f\n",
            act ? (double)r->resident_warp_cycles / act : 0);
    fprintf(f, "    eligible warps per scheduler  %.2f\n",
            act ? (double)r->eligible_warp_cycles / act : 0);
    fprintf(f, "    issued warps per scheduler    %.2f\n",
            act ? (double)r->sched_issue_cycles / act : 0);
    fprintf(f, "    no eligible                   %.1f %%\n",
            act ? 100.0 * (1.0 - (double)r->sched_issue_cycles / act) : 0);
    fprintf(f, "    executed ipc (per active SM)  %.3f\n", r->ipc);
    fprintf(f, "  Section: Warp State Statistics\n");
    fprintf(f, "    warp cycles per issued instr  %.2f\n",
            issued ? (double)r->resident_warp_cycles / (double)issued : 0);
    fprintf(f, "    avg. active threads per warp  %.2f\n",
            issued ? (double)r->thread_instructions / (double)issued : 0);
    fprintf(f, "    branch efficiency             %.1f %%  (%llu of %llu branches diverged)\n",
            100.0 * r->branch_efficiency, (unsigned long long)r->divergent_branches,
            (unsigned long long)r->branches);
    int order[STALL_COUNT];
    for (int i = 0; i < STALL_COUNT; i++)
        order[i] = i;
    for (int i = 1; i < STALL_COUNT; i++)
        for (int j = i; j > 0 && r->stalls[order[j]] > r->stalls[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    fprintf(f, "    warp state (cycles per issued instruction, all resident warp-cycles):\n");
    for (int i = 0; i < STALL_COUNT; i++) {
        int s = order[i];
        if (!r->stalls[s])
            continue;
        fprintf(f, "      %-20s %10.2f  %5.1f %%\n", stall_name(s),
                issued ? (double)r->stalls[s] / (double)issued : 0,
                100.0 * ratio(r->stalls[s], r->resident_warp_cycles));
    }
    fprintf(f, "  Section: Memory (%s model)\n", r->memory_model ? r->memory_model : "?");
    fprintf(f, "    global loads                  %llu requests, %llu sectors (%.2f per request)\n",
            (unsigned long long)r->global_load_requests, (unsigned long long)r->global_load_sectors,
            ratio(r->global_load_sectors, r->global_load_requests));
    fprintf(f, "    global stores                 %llu requests, %llu sectors (%.2f per request)\n",
            (unsigned long long)r->global_store_requests,
            (unsigned long long)r->global_store_sectors,
            ratio(r->global_store_sectors, r->global_store_requests));
    fprintf(f, "    shared memory                 %llu requests, %llu wavefronts, %llu bank "
            "conflicts\n", (unsigned long long)r->shared_requests,
            (unsigned long long)r->shared_wavefronts,
            (unsigned long long)r->shared_bank_conflicts);
    fprintf(f, "    DRAM bytes                    %llu\n", (unsigned long long)r->dram_bytes);
}
