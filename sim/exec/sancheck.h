/* sancheck: `warplab run --sanitize`, shared-memory checks in the spirit of compute-sanitizer's
 * initcheck and racecheck, built on the executor's public step API (exec.h) only.
 *
 * What the hardware does: nothing. Reading shared memory nobody wrote returns whatever the last
 * kernel left there, and two warps touching one shared word without a barrier between them see
 * each other's accesses in an order the hardware does not promise. Both are bugs a student's
 * kernel can have while still printing the right answer on one GPU.
 *
 * What we model: every shared-memory byte of the running block carries a shadow: whether it
 * was ever written, the warp and the barrier epoch of its last write, and the warps that read it
 * in the current epoch. The epoch advances each time a barrier releases its waiting warps.
 * - initcheck: a load of a byte never written is a warning.
 * - racecheck: a write and a read, or two writes, of one byte by two different warps in the
 *   same epoch (no barrier between them) is a warning naming both PTX lines.
 * Atomics and mbarrier operations are ordered by the hardware: they initialise bytes but never
 * race. Warnings do not change the exit status; faults and deadlocks are reported as usual.
 *
 * What we simplify: blocks run one at a time, in linear order, each warp as far as it can go
 * before the next (a kernel whose blocks wait on each other ends as a runaway, exit 4). Any
 * barrier release starts a new epoch for the whole block, so races between warps outside a
 * named barrier's subset are missed. Lanes of one warp never race with each other (the
 * executor runs a warp's lanes in lock step). cp.async/mbarrier-synchronised pipelines may give
 * racecheck false positives. Each (kind, PTX line) is reported once; at most SANCK_MAX_WARNINGS.
 */
#ifndef WL_SANCHECK_H
#define WL_SANCHECK_H

#include <stdint.h>

#include "devmem.h"
#include "diag.h"
#include "ir.h"
#include "launch.h"

#define SANCK_MAX_WARNINGS 64
#define SANCK_MSG 400

typedef struct {
    int nwarnings;                      /* kept in msg[] */
    uint64_t suppressed;                /* further warnings not kept (over the cap) */
    char msg[SANCK_MAX_WARNINGS][SANCK_MSG]; /* "FILE:LINE:COL: warning: ..." one line each */
} sanck_report;

/* Runs the launch like launch_kernel (same config, memory and statistics) with the checks on.
 * rep gets the warnings. Returns what launch_kernel would: WL_OK, WL_EFAULT, WL_EDEADLOCK, ... */
wl_status sanck_launch(const ptx_module *m, const ptx_func *k, const launch_config *cfg,
                       devmem_t *mem, launch_stats *st, sanck_report *rep, diag_t *d);

#endif
