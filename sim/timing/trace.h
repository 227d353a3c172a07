/* trace: the warplab trace file (`warplab run ... --trace FILE`), writer and reader.
 *
 * A trace records, for one kernel launch, what every resident warp did on every cycle: warp
 * state intervals (one stall reason over [start, end)), each instruction issue (with its PTX
 * line and active lanes), block events (which SM, when it started and retired) and warp spans.
 * The viewer (viz/) and `warplab export --chrome` read it through this API only. The byte
 * layout is documented in docs/trace.md; in short:
 *
 *   magic "WLTRACE1" | u32 version | header (LEB128 varints and length-prefixed strings)
 *   | records, each one tag byte + varints | end record (tag 0xFF) with the record counts
 *
 * Conventions
 * - Cycles are SM clock cycles from the launch (cycle 0 = the first block may be dispatched);
 *   one cycle lasts 1000 / clock_mhz nanoseconds.
 * - Intervals are half-open [start, end): a warp issuing on cycles 10 and 11 has one
 *   `selected` interval [10, 12). Consecutive intervals of one warp never overlap.
 * - `slot` is the warp slot inside its SM (0 .. warp_slots_per_sm-1); the warp's scheduler
 *   (sub-partition) is slot % subpartitions. A slot is reused by later blocks; (sm, slot, time)
 *   identifies a warp, and the warp records (trace_warp) tell which block/warp it was.
 * - `reason` indexes reason_names[] of the header (stall.h order when written by warplab).
 * - `ptx_line` is the 1-based line in the PTX file (ptx_path); 0 when unknown.
 *
 * The reader validates everything: bad magic, unknown version, truncation, over-long varints,
 * out-of-range indices (sm, slot, reason), intervals with end < start, a missing end record or
 * counts that disagree with it all give WL_EUSAGE and a one-line message naming the byte
 * offset; it never crashes on any input (fuzzed by fuzz/fuzz_trace).
 *
 * After reading, arrays are sorted: intervals and issues by (sm, slot, start/cycle), warps by
 * (sm, slot, start), blocks by (start, block id). So one warp slot's history is contiguous:
 * use trace_find_slot() to get its range.
 */
#ifndef WL_TRACE_H
#define WL_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

#define TRACE_VERSION 1u
#define TRACE_MAX_REASONS 64u

/* ---- records ---------------------------------------------------------------------------- */

typedef struct {
    uint32_t sm, slot;
    uint32_t reason;      /* index into trace header reason_names */
    uint64_t start, end;  /* [start, end), end > start */
} trace_interval;

typedef struct {
    uint32_t sm, slot;
    uint64_t cycle;
    uint32_t ptx_line;    /* 1-based line in ptx_path, 0 unknown */
    uint32_t active_mask; /* lanes that executed it (bit i = lane i) */
} trace_issue;

typedef struct {
    uint32_t block;       /* linear block id: x + y*grid_x + z*grid_x*grid_y */
    uint32_t sm;
    uint64_t start, end;  /* dispatched to the SM .. retired (all warps done, stores drained) */
} trace_block;

typedef struct {
    uint32_t sm, slot;
    uint32_t block;       /* linear block id */
    uint32_t warp;        /* warp index inside its block */
    uint64_t start, end;  /* resident from start to end */
} trace_warp;

/* ---- header ------------------------------------------------------------------------------ */

/* What the writer is told up front. Strings may be NULL (written as empty). */
typedef struct {
    const char *kernel;        /* PTX entry name */
    const char *arch;          /* arch short name, "h200" */
    const char *ptx_path;      /* the PTX file as given on the command line */
    const char *source;        /* full PTX text, embedded so the viewer can show lines; or NULL */
    uint32_t sm_count;
    uint32_t gpc_count;
    const uint32_t *sm_gpc;    /* sm_count entries: GPC of each SM; NULL means all in GPC 0 */
    uint32_t subpartitions;    /* schedulers per SM */
    uint32_t warp_slots_per_sm;
    uint32_t clock_mhz;        /* SM clock */
    uint32_t grid[3], block[3];
    uint32_t n_reasons;        /* <= TRACE_MAX_REASONS */
    const char *const *reason_names;
} trace_header;

/* ---- writer ------------------------------------------------------------------------------ */

typedef struct trace_writer trace_writer;

/* Creates/truncates path and writes the header. WL_EUSAGE if the file cannot be opened. */
wl_status trace_writer_open(const char *path, const trace_header *h, trace_writer **out,
                            diag_t *d);
/* Appends one record. Records may come in any order; write errors are remembered and
 * reported by trace_writer_close. A NULL writer is accepted and ignored (tracing off). */
void trace_write_interval(trace_writer *w, const trace_interval *r);
void trace_write_issue(trace_writer *w, const trace_issue *r);
void trace_write_block(trace_writer *w, const trace_block *r);
void trace_write_warp(trace_writer *w, const trace_warp *r);
/* Writes the end record (total cycles and counts), closes and frees. Returns WL_EUSAGE if any
 * write failed. NULL w is WL_OK. */
wl_status trace_writer_close(trace_writer *w, uint64_t total_cycles, diag_t *d);

/* ---- reader ------------------------------------------------------------------------------ */

typedef struct {
    uint32_t version;
    char *kernel, *arch, *ptx_path; /* never NULL (possibly "") */
    uint32_t sm_count, gpc_count, subpartitions, warp_slots_per_sm, clock_mhz;
    uint32_t *sm_gpc;               /* sm_count entries */
    uint32_t grid[3], block[3];
    uint32_t n_reasons;
    char **reason_names;            /* n_reasons strings */
    uint64_t total_cycles;          /* from the end record */

    trace_interval *intervals; size_t n_intervals;
    trace_issue *issues;       size_t n_issues;
    trace_block *blocks;       size_t n_blocks;
    trace_warp *warps;         size_t n_warps;

    /* private: embedded PTX text split into lines */
    char *source_;
    char **lines_;
    size_t n_lines_;
} trace_t;

/* Reads and validates a whole trace file into t (zeroed first). On error t is left empty
 * (safe to trace_close) and d says what is wrong, with the byte offset. */
wl_status trace_open_read(const char *path, trace_t *t, diag_t *d);
/* Same from memory (used by the fuzzer and tests); name appears in messages. */
wl_status trace_read_mem(const void *buf, size_t len, const char *name, trace_t *t, diag_t *d);
/* Frees everything; t becomes empty. Safe on a zeroed or already-closed t. */
void trace_close(trace_t *t);

/* Text of PTX line `line` (1-based) without the newline, or NULL if the trace embeds no source
 * or the line is out of range. */
const char *trace_source_line(const trace_t *t, uint32_t line);
/* Name of a reason index, "?" if out of range. */
const char *trace_reason_name(const trace_t *t, uint32_t reason);

/* Range [*first, *first + *count) of t->intervals (and, separately, of issues and warps) that
 * belong to (sm, slot). Arrays are sorted so the range is contiguous; count 0 if none. */
void trace_find_slot(const trace_t *t, uint32_t sm, uint32_t slot, size_t *iv_first,
                     size_t *iv_count, size_t *is_first, size_t *is_count);

/* Writes t as Chrome trace-event JSON (Perfetto, chrome://tracing): one process per SM, one
 * thread per warp slot, intervals as complete events named by reason, issues as instant events,
 * blocks as async spans. Returns 0, or -1 if writing failed. */
int trace_write_chrome(const trace_t *t, FILE *f);

#endif
