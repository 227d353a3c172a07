/* viz_model: what the viewer shows, in memory, with a level-of-detail index.
 *
 * The model is filled either from a warplab trace (viz_model_from_trace, through sim/'s trace
 * reader) or directly (tests) with viz_model_add_*; viz_model_finish() then sorts everything and
 * builds the indices the views draw from:
 * - per warp slot (row = sm * slots_per_sm + slot): its intervals and issues, contiguous;
 * - a level-of-detail pyramid per row: level 0 cuts the kernel into at most VIZ_LOD_BUCKETS
 *   buckets of `lod_bucket` cycles, each storing the reason that covers most of its cycles
 *   (the dominant reason, exact) and the mean active lanes of its issues; level k+1 merges pairs
 *   of level k (again exactly, from per-reason cycle counts). A view zoomed out to C cycles per
 *   pixel reads one byte per pixel column from the level whose buckets are <= C cycles wide, so
 *   a frame costs O(rows x pixels) whatever the number of events; zoomed in further than one
 *   bucket per pixel it draws the few intervals in view directly.
 * - blocks: a lane per block inside its SM's row (the first lane free when it starts) and its
 *   wave (rank by start time / blocks the GPU holds at once); the last wave is the tail when it
 *   is partial;
 * - totals: cycles per stall reason per SM and for the kernel, issues and stalls per PTX line
 *   (a stalled cycle is charged, like Nsight Compute's PC sampling, to the line of the
 *   instruction the warp issues next).
 * Reasons are stall.h indices (Nsight Compute's names).
 */
#ifndef WL_VIZ_MODEL_H
#define WL_VIZ_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "stall.h"

#define VIZ_NREASON STALL_COUNT
#define VIZ_NONE 0xffu        /* LOD byte: no resident warp in this bucket (or no issue) */
#define VIZ_LOD_BUCKETS 1024u /* level-0 buckets per row (at most) */

typedef struct {
    uint32_t sm, slot, reason;
    uint64_t t0, t1; /* [t0, t1) cycles */
} viz_iv;

typedef struct {
    uint32_t sm, slot, line, lanes; /* lanes: active lanes (popcount of the mask) */
    uint64_t cycle;
} viz_issue;

typedef struct {
    uint32_t id, sm;
    uint32_t lane, wave; /* filled by finish */
    uint64_t t0, t1;     /* cycles (simulated) or ns from the first block (measured) */
} viz_block;

typedef struct {
    uint32_t sm, slot, block, warp;
    uint64_t t0, t1;
} viz_warp;

/* A per-block timeline measured on a GPU (gpu/measured JSON), times in ns. */
typedef struct {
    char gpu[64], name[64];
    double time_us;       /* the harness's timed run (median), 0 when absent */
    double probe_span_us; /* last block end - first block start of the probe run */
    viz_block *blocks;
    size_t nblocks;
    viz_warp *warps; /* slot = the hardware warp id (%warpid) */
    size_t nwarps;
    uint32_t sm_count, lanes_max; /* lanes_max: most blocks seen at once on one SM */
    uint32_t hw_slots;            /* 1 + the largest %warpid seen */
    int has_stalls;
    double stalls[VIZ_NREASON]; /* Nsight Compute warp-state breakdown, any unit; sums to 1 */
} viz_measured;

typedef struct {
    char kernel[128], arch[32], ptx_path[512];
    uint32_t sm_count, gpc_count, scheds, slots; /* slots: warp slots per SM */
    uint32_t *sm_gpc;                            /* GPC of each SM */
    uint32_t clock_mhz;
    uint32_t grid[3], block[3];
    uint64_t total_cycles;

    viz_iv *ivs;
    size_t nivs, cap_ivs;
    viz_issue *issues;
    size_t nissues, cap_issues;
    viz_block *blocks;
    size_t nblocks, cap_blocks;
    viz_warp *warps;
    size_t nwarps, cap_warps;

    char **lines; /* PTX source lines (1-based: lines[0] is line 1), may be empty */
    size_t nlines;
    char **cu_lines; /* the CUDA file of `.file 1` when found (viz_model_load_cuda), or NULL */
    size_t ncu_lines;
    char cu_name[128]; /* its file name */

    /* built by viz_model_finish */
    size_t *row_iv;                  /* rows+1 offsets into ivs */
    size_t *row_issue;               /* rows+1 offsets into issues */
    uint64_t lod_bucket;             /* cycles per level-0 bucket */
    uint32_t lod_levels;             /* levels in the pyramid */
    uint32_t lod_off[40], lod_n[40]; /* per level: offset inside a row's index, buckets */
    uint32_t lod_stride;             /* bytes per row */
    uint32_t *lod_index;             /* per row: its place in lod_*, UINT32_MAX if unused */
    uint8_t *lod_reason;             /* used rows x lod_stride: dominant reason or VIZ_NONE */
    uint8_t *lod_lanes;              /* used rows x lod_stride: mean active lanes or VIZ_NONE */
    uint32_t lanes_max;              /* most blocks at once on one SM */
    uint32_t waves, tail_blocks;     /* waves; blocks in the last wave when partial, else 0 */
    uint64_t *sm_reason;             /* sm_count x VIZ_NREASON warp-cycles */
    uint64_t kernel_reason[VIZ_NREASON];
    uint64_t *line_issues; /* nlines+1 (index = line) */
    uint64_t *line_stall;  /* (nlines+1) x VIZ_NREASON stalled warp-cycles */
    int finished;

    viz_measured *meas; /* optional, owned */
} viz_model;

/* Starts an empty model of sm_count SMs (GPC of SM i = i * gpc_count / sm_count until set),
 * scheds schedulers and slots warp slots per SM, at clock_mhz. Usage error on zero sizes. */
wl_status viz_model_init(viz_model *m, uint32_t sm_count, uint32_t gpc_count, uint32_t scheds,
                         uint32_t slots, uint32_t clock_mhz, diag_t *d);
void viz_model_free(viz_model *m);

/* Add records (any order). Out-of-range sm/slot/reason or t1 < t0 -> WL_EUSAGE. */
wl_status viz_model_add_interval(viz_model *m, const viz_iv *iv, diag_t *d);
wl_status viz_model_add_issue(viz_model *m, const viz_issue *is, diag_t *d);
wl_status viz_model_add_block(viz_model *m, const viz_block *b, diag_t *d);
wl_status viz_model_add_warp(viz_model *m, const viz_warp *w, diag_t *d);
/* Copies the PTX text (split into lines). */
wl_status viz_model_set_source(viz_model *m, const char *text, diag_t *d);

/* Reads a whole file, NUL-terminated (caller frees); NULL if it cannot. *len gets its size. */
char *viz_model_read_file(const char *path, size_t *len);

/* Looks for the CUDA file the PTX names (`.file 1 "PATH"`): as written, under root_dir, beside
 * the PTX file; loads its lines when found. Not finding it is not an error. */
void viz_model_load_cuda(viz_model *m, const char *root_dir);

/* Sorts and builds the indices; total_cycles 0 means "the latest end seen". */
wl_status viz_model_finish(viz_model *m, uint64_t total_cycles, diag_t *d);

/* Reads a warplab trace file into m (init + add + finish). */
wl_status viz_model_from_trace(viz_model *m, const char *path, diag_t *d);

/* Row helpers. */
static inline uint32_t viz_row(const viz_model *m, uint32_t sm, uint32_t slot)
{
    return sm * m->slots + slot;
}

/* The LOD level to read at `cycles_per_px` (the coarsest whose buckets are not wider than a
 * pixel), or -1 when zoomed in past level 0 (draw intervals). */
int viz_model_lod_level(const viz_model *m, double cycles_per_px);
/* Dominant reason / mean lanes of the bucket of `level` holding cycle t, VIZ_NONE if empty. */
uint8_t viz_model_lod_reason(const viz_model *m, uint32_t row, int level, uint64_t t);
uint8_t viz_model_lod_lanes(const viz_model *m, uint32_t row, int level, uint64_t t);

/* The interval of (sm, slot) covering cycle t, or NULL. */
const viz_iv *viz_model_interval_at(const viz_model *m, uint32_t sm, uint32_t slot, uint64_t t);
/* The last issue of (sm, slot) at or before cycle t (NULL if none), and the warp resident on
 * (sm, slot) at t (NULL if none). */
const viz_issue *viz_model_issue_at(const viz_model *m, uint32_t sm, uint32_t slot, uint64_t t);
const viz_warp *viz_model_warp_at(const viz_model *m, uint32_t sm, uint32_t slot, uint64_t t);
/* The next issue of (sm, slot) after an interval ending at t1 (the instruction it stalls on). */
const viz_issue *viz_model_next_issue(const viz_model *m, uint32_t sm, uint32_t slot, uint64_t t);

/* Simulated time in microseconds of c cycles. */
double viz_model_us(const viz_model *m, double cycles);

/* Frees a measured timeline. */
void viz_measured_free(viz_measured *mm);

#endif
