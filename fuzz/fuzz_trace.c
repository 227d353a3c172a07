/* libFuzzer target for the trace reader (sim/timing/trace.c), the file format the viewer and
 * `warplab export` read: any bytes must read or fail with WL_EUSAGE and a one-line message,
 * never crash, hang or leak. A trace that reads must keep the reader's promises (indices in
 * range, intervals non-empty and sorted by slot, trace_find_slot's ranges exact), export to
 * Chrome JSON, and survive a round trip: written back with the writer and read again it gives
 * the same records. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_invariants(const trace_t *t)
{
    if (!t->kernel || !t->arch || !t->ptx_path || t->n_reasons == 0 ||
        t->n_reasons > TRACE_MAX_REASONS || !t->sm_gpc)
        abort();
    for (size_t i = 0; i < t->n_intervals; i++) {
        const trace_interval *e = &t->intervals[i];
        if (e->sm >= t->sm_count || e->slot >= t->warp_slots_per_sm ||
            e->reason >= t->n_reasons || e->end <= e->start || e->end > t->total_cycles)
            abort();
        if (!trace_reason_name(t, e->reason))
            abort();
    }
    for (size_t i = 0; i < t->n_issues; i++) {
        const trace_issue *e = &t->issues[i];
        if (e->sm >= t->sm_count || e->slot >= t->warp_slots_per_sm || e->cycle >= t->total_cycles)
            abort();
        const char *line = trace_source_line(t, e->ptx_line);
        if (line && strchr(line, '\n'))
            abort();
    }
    for (size_t i = 0; i < t->n_blocks; i++)
        if (t->blocks[i].sm >= t->sm_count || t->blocks[i].end < t->blocks[i].start)
            abort();
    for (size_t i = 0; i < t->n_warps; i++)
        if (t->warps[i].sm >= t->sm_count || t->warps[i].slot >= t->warp_slots_per_sm)
            abort();
    if (strcmp(trace_reason_name(t, t->n_reasons), "?"))
        abort();
    /* trace_find_slot over every slot that appears: the ranges hold exactly its records */
    for (size_t i = 0; i < t->n_intervals + t->n_issues; i++) {
        uint32_t sm, slot;
        if (i < t->n_intervals) {
            sm = t->intervals[i].sm;
            slot = t->intervals[i].slot;
        } else {
            sm = t->issues[i - t->n_intervals].sm;
            slot = t->issues[i - t->n_intervals].slot;
        }
        size_t ivf, ivn, isf, isn;
        trace_find_slot(t, sm, slot, &ivf, &ivn, &isf, &isn);
        if (ivf + ivn > t->n_intervals || isf + isn > t->n_issues || (ivn == 0 && isn == 0))
            abort();
        for (size_t k = ivf; k < ivf + ivn; k++)
            if (t->intervals[k].sm != sm || t->intervals[k].slot != slot)
                abort();
        for (size_t k = isf; k < isf + isn; k++)
            if (t->issues[k].sm != sm || t->issues[k].slot != slot)
                abort();
        if (i > 64) /* bounded work per input: the first slots are enough */
            break;
    }
}

/* Writes t with the trace writer to path (without the embedded source). */
static int write_back(const trace_t *t, const char *path)
{
    trace_header h;
    memset(&h, 0, sizeof h);
    h.kernel = t->kernel;
    h.arch = t->arch;
    h.ptx_path = t->ptx_path;
    h.sm_count = t->sm_count;
    h.gpc_count = t->gpc_count;
    h.sm_gpc = t->sm_gpc;
    h.subpartitions = t->subpartitions;
    h.warp_slots_per_sm = t->warp_slots_per_sm;
    h.clock_mhz = t->clock_mhz;
    memcpy(h.grid, t->grid, sizeof h.grid);
    memcpy(h.block, t->block, sizeof h.block);
    h.n_reasons = t->n_reasons;
    h.reason_names = (const char *const *)t->reason_names;
    trace_writer *w;
    diag_t d;
    diag_clear(&d);
    if (trace_writer_open(path, &h, &w, &d) != WL_OK)
        return -1;
    for (size_t i = 0; i < t->n_intervals; i++)
        trace_write_interval(w, &t->intervals[i]);
    for (size_t i = 0; i < t->n_issues; i++)
        trace_write_issue(w, &t->issues[i]);
    for (size_t i = 0; i < t->n_blocks; i++)
        trace_write_block(w, &t->blocks[i]);
    for (size_t i = 0; i < t->n_warps; i++)
        trace_write_warp(w, &t->warps[i]);
    return trace_writer_close(w, t->total_cycles, &d) == WL_OK ? 0 : -1;
}

static void round_trip(const trace_t *t)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_trace.%ld", (long)getpid());
    if (write_back(t, path)) {
        remove(path);
        return; /* disk trouble, not the code's */
    }
    trace_t u;
    diag_t d;
    diag_clear(&d);
    wl_status st = trace_open_read(path, &u, &d);
    remove(path);
    if (st != WL_OK) {
        fprintf(stderr, "round trip failed: %s\n", d.msg);
        abort();
    }
    if (u.n_intervals != t->n_intervals || u.n_issues != t->n_issues ||
        u.n_blocks != t->n_blocks || u.n_warps != t->n_warps ||
        u.total_cycles != t->total_cycles || u.sm_count != t->sm_count ||
        strcmp(u.kernel, t->kernel) || strcmp(u.arch, t->arch))
        abort();
    if ((t->n_intervals &&
         memcmp(u.intervals, t->intervals, t->n_intervals * sizeof *t->intervals)) ||
        (t->n_issues && memcmp(u.issues, t->issues, t->n_issues * sizeof *t->issues)) ||
        (t->n_blocks && memcmp(u.blocks, t->blocks, t->n_blocks * sizeof *t->blocks)) ||
        (t->n_warps && memcmp(u.warps, t->warps, t->n_warps * sizeof *t->warps)))
        abort();
    trace_close(&u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    trace_t t;
    diag_t d;
    diag_clear(&d);
    wl_status st = trace_read_mem(data, size, "fuzz.wlt", &t, &d);
    if (st != WL_OK) {
        if (st != WL_EUSAGE || !d.msg[0] || strchr(d.msg, '\n') || t.intervals || t.kernel)
            abort();
        trace_close(&t); /* safe on the emptied trace */
        return 0;
    }
    check_invariants(&t);
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
        if (trace_write_chrome(&t, devnull) != 0)
            abort();
        fclose(devnull);
    }
    round_trip(&t);
    trace_close(&t);
    return 0;
}
