/* ptxas: ask NVIDIA's PTX assembler what a kernel really uses.
 *
 * Runs `ptxas -v -arch=sm_XX FILE -o /dev/null` when ptxas is on the PATH (or $PTXAS names it)
 * and parses its report for the named kernel:
 *   ptxas info    : Compiling entry function 'NAME' for 'sm_90'
 *   ptxas info    : Used 32 registers, used 1 barriers, 4096 bytes smem, 384 bytes cmem[0]
 *   4 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
 * Without ptxas the status is PTXAS_ENOTFOUND with the diag filled (status WL_EUSAGE), so a
 * caller can fall back to --regs or an estimate. */
#ifndef WL_PTXAS_H
#define WL_PTXAS_H

#include "diag.h"

/* Returned (as a wl_status value) when no ptxas binary can be run; d->status is WL_EUSAGE. */
#define PTXAS_ENOTFOUND ((wl_status)100)

typedef struct {
    int regs;          /* registers per thread */
    int static_smem;   /* bytes of static shared memory */
    int local_bytes;   /* stack frame, bytes per thread */
    int spill_bytes;   /* spill stores + spill loads, bytes per thread */
    int barriers;      /* named barriers used (0 when ptxas does not say) */
} ptxas_info;

/* True when a ptxas binary can be found ($PTXAS, else `ptxas` on the PATH). */
int ptxas_available(void);

/* Full report for one kernel. sm is the ptxas target ("sm_90"). Errors: the file unreadable,
 * ptxas rejecting it (its first error line is quoted), the kernel not in the file. */
wl_status ptxas_query_info(const char *ptx_path, const char *kernel, const char *sm,
                           ptxas_info *info, diag_t *d);

/* The same as separate outputs (any pointer may be NULL). */
wl_status ptxas_query(const char *ptx_path, const char *kernel, const char *sm, int *regs,
                      int *static_smem, int *local_bytes, int *spill_bytes, diag_t *d);

/* Parses ptxas -v output text (exposed for tests and fuzzing). Returns WL_OK when the kernel's
 * "Used" line was found. */
wl_status ptxas_parse_report(const char *text, const char *kernel, ptxas_info *info, diag_t *d);

#endif
