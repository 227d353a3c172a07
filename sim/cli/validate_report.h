/* validate_report: the figures and reports of `warplab validate` (cmd_validate.c runs the
 * cases): error per case, mean absolute percentage error, Pearson correlation of log times,
 * outliers, lesson relationships (gpu/validate-pairs.txt), top-stall agreement, the distance
 * between the model's and Nsight Compute's stall breakdowns and how close the model's DRAM
 * traffic comes to Nsight Compute's; text, JSON, Markdown and the scatter PNG. */
#ifndef WL_VALIDATE_REPORT_H
#define WL_VALIDATE_REPORT_H

#include <stdint.h>

#include "stall.h"

#define VREP_MIN_US 10.0   /* issue #6: the accuracy target covers cases of 10 us or more */
#define VREP_PAIR_TOL 0.25 /* a predicted ratio within 25% of the measured one */
#define VREP_DRAM_MIN 1e6  /* DRAM traffic is compared where Nsight Compute counted 1 MB or more */
#define VREP_DRAM_TOL 0.10 /* ... and agrees within 10% */
#define MAX_ARGS 16

typedef struct {
    char name[96], ptx[256], kernel[128];
    uint32_t grid[3], block[3], smem;
    int nargs, regs;
    char *args[MAX_ARGS];
    double measured_us;     /* Nsight Compute's kernel duration, else the event median */
    double event_us;        /* timing.median_us: cudaEvent pair, cold L2 */
    int from_ncu;
    char ncu_top[32];       /* Nsight Compute's largest stall ("" without ncu data) */
    char ncu_top2[32];      /* ... and its second largest ("" if none) */
    /* Nsight Compute's stall breakdown (its warp cycles per issued instruction, per reason) as
     * shares (sum 1 with ncu_other), when ncu_shares: per reason of the model's vocabulary, and
     * the share of reasons the model does not have (gmma, imc_miss, tex_throttle) */
    int ncu_shares;
    double ncu_share[STALL_COUNT], ncu_other;
    double ncu_dram_bytes;  /* Nsight Compute's dram__bytes.sum (read + written); 0: none */
    /* prediction */
    int status;             /* wl_status of the run; -1 not run */
    double predicted_us, sim_s, l1_hit, l2_hit;
    uint64_t cycles, warp_instructions, dram_bytes;
    char top[32];
    int model_shares;       /* model_share holds the model's breakdown (shares of warp cycles) */
    double model_share[STALL_COUNT];
    char msg[512];
} vcase;

/* How far apart the model's and Nsight Compute's stall breakdowns of c are: the total
 * variation distance, half the sum over reasons of the absolute difference of the shares
 * (0: the same mix, 1: nothing in common); NAN when either breakdown is missing. */
double vrep_stall_distance(const vcase *c);

typedef enum { VREP_TEXT, VREP_JSON, VREP_MARKDOWN } vrep_format;

/* Prints the report of n cases (status WL_OK = predicted) in the given format on stdout.
 * policy: the scheduling policy the predictions were made with (the JSON's "policy"), or NULL.
 * pairs_file: "NAME FAST SLOW DESCRIPTION..." lines (missing file: no pairs, a note). png: a
 * scatter plot path or NULL. Returns 0, or WL_EUSAGE when the pairs file or the PNG fails. */
int vrep_print(const char *arch, const char *policy, const vcase *v, int n,
               const char *pairs_file, vrep_format fmt, const char *png);

#endif
