/* trace (Chrome export): a trace as Chrome trace-event JSON, for Perfetto / chrome://tracing.
 *
 * Layout: one process per SM ("SM 12 (GPC 1)"), one thread per warp slot ("slot 5, scheduler
 * 1"); each warp-state interval is a complete event ("ph":"X") named by its stall reason; each
 * instruction issue an instant event with its PTX line (and the line's text when the trace
 * embeds the PTX); each block an async span ("ph":"b"/"e") on its SM. Times are microseconds
 * at the trace's SM clock (cycle / clock_mhz); args carry the cycles. Written as a stream, so
 * memory stays flat for large traces.
 */
#include <inttypes.h>
#include <stdio.h>

#include "trace.h"

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static double us(const trace_t *t, uint64_t cycle)
{
    return (double)cycle / (double)t->clock_mhz;
}

int trace_write_chrome(const trace_t *t, FILE *f)
{
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"kernel\":");
    json_str(f, t->kernel);
    fprintf(f, ",\"arch\":");
    json_str(f, t->arch);
    fprintf(f, ",\"clock_mhz\":%u,\"total_cycles\":%" PRIu64 "},\n\"traceEvents\":[\n",
            t->clock_mhz, t->total_cycles);
    const char *sep = "";
    for (uint32_t s = 0; s < t->sm_count; s++) {
        fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":"
                "\"SM %u (GPC %u)\"}}", sep, s, s, t->sm_gpc[s]);
        sep = ",\n";
        fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"args\":"
                "{\"sort_index\":%u}}", s, s);
    }
    uint32_t last_sm = UINT32_MAX, last_slot = UINT32_MAX;
    for (size_t i = 0; i < t->n_warps; i++) { /* name the slots that were used */
        const trace_warp *w = &t->warps[i];
        if (w->sm == last_sm && w->slot == last_slot)
            continue;
        last_sm = w->sm;
        last_slot = w->slot;
        fprintf(f, "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,\"args\":"
                "{\"name\":\"slot %u, scheduler %u\"}}", sep, w->sm, w->slot, w->slot,
                w->slot % t->subpartitions);
    }
    for (size_t i = 0; i < t->n_intervals; i++) {
        const trace_interval *v = &t->intervals[i];
        fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"warp_state\",\"name\":", sep);
        json_str(f, trace_reason_name(t, v->reason));
        fprintf(f, ",\"pid\":%u,\"tid\":%u,\"ts\":%.6f,\"dur\":%.6f,\"args\":{\"start_cycle\":"
                "%" PRIu64 ",\"cycles\":%" PRIu64 "}}", v->sm, v->slot, us(t, v->start),
                us(t, v->end) - us(t, v->start), v->start, v->end - v->start);
    }
    for (size_t i = 0; i < t->n_issues; i++) {
        const trace_issue *e = &t->issues[i];
        fprintf(f, "%s{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"issue\",\"name\":\"line %u\","
                "\"pid\":%u,\"tid\":%u,\"ts\":%.6f,\"args\":{\"cycle\":%" PRIu64 ",\"lanes\":%d",
                sep, e->ptx_line, e->sm, e->slot, us(t, e->cycle), e->cycle,
                __builtin_popcount(e->active_mask));
        const char *text = trace_source_line(t, e->ptx_line);
        if (text) {
            fprintf(f, ",\"ptx\":");
            json_str(f, text);
        }
        fprintf(f, "}}");
    }
    for (size_t i = 0; i < t->n_blocks; i++) {
        const trace_block *b = &t->blocks[i];
        fprintf(f, "%s{\"ph\":\"b\",\"cat\":\"block\",\"name\":\"block %u\",\"id\":%u,"
                "\"pid\":%u,\"tid\":0,\"ts\":%.6f,\"args\":{\"start_cycle\":%" PRIu64 "}}", sep,
                b->block, b->block, b->sm, us(t, b->start), b->start);
        fprintf(f, ",\n{\"ph\":\"e\",\"cat\":\"block\",\"name\":\"block %u\",\"id\":%u,"
                "\"pid\":%u,\"tid\":0,\"ts\":%.6f,\"args\":{\"end_cycle\":%" PRIu64 "}}",
                b->block, b->block, b->sm, us(t, b->end), b->end);
    }
    fprintf(f, "\n]}\n");
    return ferror(f) ? -1 : 0;
}
