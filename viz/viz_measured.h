/* viz_measured: reads a GPU harness result (gpu/measured/<gpu>/<case>.json, written by
 * gpu/harness/harness.cu and gpu/harness/merge.py) into a viz_measured timeline.
 *
 * Used keys: "case", "gpu" {"name", "sm_count"}, "timing" {"median_us"}, "probe" {"span_ns"},
 * "blocks" [{"block", "sm", "start_ns", "end_ns"}] (or, without blocks, "warps" with the same
 * keys plus "warp", from which a block is its warps' min start .. max end), and "ncu"
 * {"stalls" {name: average warps stalled per issue}} when Nsight Compute ran. Every other key is
 * ignored. A file that is not JSON, or has no timing and no blocks, is a usage error.
 */
#ifndef WL_VIZ_MEASURED_H
#define WL_VIZ_MEASURED_H

#include "diag.h"
#include "viz_model.h"

/* *out is allocated (free with viz_measured_free). */
wl_status viz_measured_load(const char *path, viz_measured **out, diag_t *d);

#endif
