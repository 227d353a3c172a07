/* trace: writer and validating reader of the warplab trace format (docs/trace.md).
 *
 * Encoding: unsigned LEB128 varints (7 bits per byte, low first, at most 10 bytes). Times are
 * stored as zigzag deltas from the previous record of the same kind, lengths as end - start,
 * so a trace written in (roughly) time order stays small: a typical interval takes 6-8 bytes.
 */
#include "trace.h"
#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_INTERVAL = 1, TAG_ISSUE = 2, TAG_BLOCK = 3, TAG_WARP = 4, TAG_END = 0xFF };
enum { KIND_COUNT = 4 };

static const char trace_magic[8] = {'W', 'L', 'T', 'R', 'A', 'C', 'E', '1'};

/* Bounds the reader accepts (far above any real GPU; they keep a corrupt file from asking for
 * absurd allocations). */
#define TRACE_MAX_SMS 4096u
#define TRACE_MAX_SLOTS 4096u
#define TRACE_MAX_GPCS 256u
#define TRACE_MAX_SUBPART 64u
#define TRACE_MAX_NAME 4096u
#define TRACE_MAX_SOURCE (64u << 20)

/* ---- writer ------------------------------------------------------------------------------ */

struct trace_writer {
    FILE *f;
    char path[256];
    int failed;
    uint64_t last[KIND_COUNT]; /* previous time per record kind, for deltas */
    uint64_t count[KIND_COUNT];
};

static void w_bytes(trace_writer *w, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, w->f) != n)
        w->failed = 1;
}

static void w_var(trace_writer *w, uint64_t v)
{
    unsigned char b[10];
    size_t n = 0;
    do {
        unsigned char c = (unsigned char)(v & 0x7f);
        v >>= 7;
        b[n++] = (unsigned char)(c | (v ? 0x80 : 0));
    } while (v);
    w_bytes(w, b, n);
}

static void w_str(trace_writer *w, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    w_var(w, n);
    w_bytes(w, s, n);
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Time t as a delta from the previous record of this kind. */
static void w_time(trace_writer *w, int kind, uint64_t t)
{
    w_var(w, zigzag((int64_t)(t - w->last[kind])));
    w->last[kind] = t;
}

wl_status trace_writer_open(const char *path, const trace_header *h, trace_writer **out,
                            diag_t *d)
{
    *out = NULL;
    if (h->n_reasons > TRACE_MAX_REASONS || h->sm_count == 0 || h->sm_count > TRACE_MAX_SMS)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "trace header out of range");
    trace_writer *w = calloc(1, sizeof *w);
    if (!w)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "out of memory");
    w->f = fopen(path, "wb");
    if (!w->f) {
        int e = errno;
        free(w);
        return diag_set(d, WL_EUSAGE, path, 0, 0, "cannot write trace: %s", strerror(e));
    }
    snprintf(w->path, sizeof w->path, "%s", path);
    unsigned char ver[4] = {TRACE_VERSION & 0xff, 0, 0, 0};
    w_bytes(w, trace_magic, sizeof trace_magic);
    w_bytes(w, ver, 4);
    w_str(w, h->kernel);
    w_str(w, h->arch);
    w_str(w, h->ptx_path);
    w_var(w, h->sm_count);
    w_var(w, h->gpc_count ? h->gpc_count : 1);
    for (uint32_t i = 0; i < h->sm_count; i++)
        w_var(w, h->sm_gpc ? h->sm_gpc[i] : 0);
    w_var(w, h->subpartitions);
    w_var(w, h->warp_slots_per_sm);
    w_var(w, h->clock_mhz);
    for (int i = 0; i < 3; i++)
        w_var(w, h->grid[i]);
    for (int i = 0; i < 3; i++)
        w_var(w, h->block[i]);
    w_var(w, h->n_reasons);
    for (uint32_t i = 0; i < h->n_reasons; i++)
        w_str(w, h->reason_names[i]);
    w_str(w, h->source);
    *out = w;
    return WL_OK;
}

void trace_write_interval(trace_writer *w, const trace_interval *r)
{
    if (!w)
        return;
    unsigned char tag = TAG_INTERVAL;
    w_bytes(w, &tag, 1);
    w_var(w, r->sm);
    w_var(w, r->slot);
    w_var(w, r->reason);
    w_time(w, 0, r->start);
    w_var(w, r->end - r->start);
    w->count[0]++;
}

void trace_write_issue(trace_writer *w, const trace_issue *r)
{
    if (!w)
        return;
    unsigned char tag = TAG_ISSUE;
    w_bytes(w, &tag, 1);
    w_var(w, r->sm);
    w_var(w, r->slot);
    w_time(w, 1, r->cycle);
    w_var(w, r->ptx_line);
    w_var(w, r->active_mask);
    w->count[1]++;
}

void trace_write_block(trace_writer *w, const trace_block *r)
{
    if (!w)
        return;
    unsigned char tag = TAG_BLOCK;
    w_bytes(w, &tag, 1);
    w_var(w, r->block);
    w_var(w, r->sm);
    w_time(w, 2, r->start);
    w_var(w, r->end - r->start);
    w->count[2]++;
}

void trace_write_warp(trace_writer *w, const trace_warp *r)
{
    if (!w)
        return;
    unsigned char tag = TAG_WARP;
    w_bytes(w, &tag, 1);
    w_var(w, r->sm);
    w_var(w, r->slot);
    w_var(w, r->block);
    w_var(w, r->warp);
    w_time(w, 3, r->start);
    w_var(w, r->end - r->start);
    w->count[3]++;
}

wl_status trace_writer_close(trace_writer *w, uint64_t total_cycles, diag_t *d)
{
    if (!w)
        return WL_OK;
    unsigned char tag = TAG_END;
    w_bytes(w, &tag, 1);
    w_var(w, total_cycles);
    for (int k = 0; k < KIND_COUNT; k++)
        w_var(w, w->count[k]);
    if (fclose(w->f) != 0)
        w->failed = 1;
    wl_status st = WL_OK;
    if (w->failed)
        st = diag_set(d, WL_EUSAGE, w->path, 0, 0, "error writing trace file");
    free(w);
    return st;
}

/* ---- reader ------------------------------------------------------------------------------ */

typedef struct {
    const unsigned char *p;
    size_t len, pos;
    const char *name;
    diag_t *d;
    wl_status st; /* first error */
} rd_t;

static wl_status rd_fail(rd_t *r, const char *what)
{
    if (r->st == WL_OK)
        r->st = diag_set(r->d, WL_EUSAGE, r->name, 0, 0, "bad trace at byte %zu: %s", r->pos,
                         what);
    return r->st;
}

static uint64_t rd_var(rd_t *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
        if (r->pos >= r->len) {
            rd_fail(r, "truncated");
            return 0;
        }
        unsigned c = r->p[r->pos++];
        if (i == 9 && c > 1) {
            rd_fail(r, "varint overflows 64 bits");
            return 0;
        }
        v |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80))
            return v;
    }
    rd_fail(r, "varint too long");
    return 0;
}

/* A varint that must lie in [lo, hi]. */
static uint32_t rd_u32(rd_t *r, uint64_t lo, uint64_t hi, const char *what)
{
    uint64_t v = rd_var(r);
    if (r->st == WL_OK && (v < lo || v > hi)) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s %llu out of range [%llu, %llu]", what,
                 (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
        rd_fail(r, msg);
    }
    return r->st == WL_OK ? (uint32_t)v : 0;
}

static char *rd_str(rd_t *r, size_t max)
{
    uint64_t n = rd_var(r);
    if (r->st != WL_OK)
        return NULL;
    if (n > max || n > r->len - r->pos) {
        rd_fail(r, n > max ? "string too long" : "truncated string");
        return NULL;
    }
    if (memchr(r->p + r->pos, 0, (size_t)n)) {
        rd_fail(r, "NUL byte inside a string");
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        rd_fail(r, "out of memory");
        return NULL;
    }
    memcpy(s, r->p + r->pos, (size_t)n);
    s[n] = 0;
    r->pos += (size_t)n;
    return s;
}

/* Start time from a zigzag delta; end from a length. Rejects wrap-around. */
static uint64_t rd_time(rd_t *r, uint64_t *last)
{
    int64_t dlt = unzigzag(rd_var(r));
    if (r->st != WL_OK)
        return 0;
    if ((dlt < 0 && (uint64_t)(-(dlt + 1)) >= *last) ||
        (dlt > 0 && (uint64_t)dlt > UINT64_MAX / 2 - *last)) {
        rd_fail(r, "time out of range");
        return 0;
    }
    *last = (uint64_t)((int64_t)*last + dlt);
    return *last;
}

static uint64_t rd_end(rd_t *r, uint64_t start)
{
    uint64_t len = rd_var(r);
    if (r->st == WL_OK && (len == 0 || len > UINT64_MAX / 2 - start))
        rd_fail(r, len == 0 ? "empty interval" : "interval end out of range");
    return start + len;
}

/* Growable array append: returns a pointer to the new zeroed element or NULL (error set). */
static void *rd_push(rd_t *r, void **arr, size_t *n, size_t *cap, size_t elem)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        void *na = realloc(*arr, nc * elem);
        if (!na) {
            rd_fail(r, "out of memory");
            return NULL;
        }
        *arr = na;
        *cap = nc;
    }
    void *e = (char *)*arr + (*n)++ * elem;
    memset(e, 0, elem);
    return e;
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)
#define CMP_RET(a, b)           \
    do {                        \
        int c_ = CMP(a, b);     \
        if (c_)                 \
            return c_;          \
    } while (0)

static int cmp_interval(const void *pa, const void *pb)
{
    const trace_interval *a = pa, *b = pb;
    CMP_RET(a->sm, b->sm);
    CMP_RET(a->slot, b->slot);
    CMP_RET(a->start, b->start);
    CMP_RET(a->end, b->end);
    return CMP(a->reason, b->reason);
}

static int cmp_issue(const void *pa, const void *pb)
{
    const trace_issue *a = pa, *b = pb;
    CMP_RET(a->sm, b->sm);
    CMP_RET(a->slot, b->slot);
    CMP_RET(a->cycle, b->cycle);
    CMP_RET(a->ptx_line, b->ptx_line);
    return CMP(a->active_mask, b->active_mask);
}

static int cmp_block(const void *pa, const void *pb)
{
    const trace_block *a = pa, *b = pb;
    CMP_RET(a->start, b->start);
    CMP_RET(a->block, b->block);
    CMP_RET(a->sm, b->sm);
    return CMP(a->end, b->end);
}

static int cmp_warp(const void *pa, const void *pb)
{
    const trace_warp *a = pa, *b = pb;
    CMP_RET(a->sm, b->sm);
    CMP_RET(a->slot, b->slot);
    CMP_RET(a->start, b->start);
    CMP_RET(a->end, b->end);
    CMP_RET(a->block, b->block);
    return CMP(a->warp, b->warp);
}

static void split_lines(trace_t *t, rd_t *r)
{
    if (!t->source_ || !t->source_[0])
        return;
    size_t n = 1;
    for (const char *c = t->source_; *c; c++)
        n += *c == '\n';
    t->lines_ = calloc(n, sizeof *t->lines_);
    if (!t->lines_) {
        rd_fail(r, "out of memory");
        return;
    }
    char *s = t->source_;
    for (;;) {
        t->lines_[t->n_lines_++] = s;
        char *nl = strchr(s, '\n');
        if (!nl)
            break;
        *nl = 0;
        if (nl > s && nl[-1] == '\r')
            nl[-1] = 0;
        s = nl + 1;
    }
}

static void rd_header(rd_t *r, trace_t *t)
{
    if (r->len < 12 || memcmp(r->p, trace_magic, 8) != 0) {
        rd_fail(r, "not a warplab trace (bad magic)");
        return;
    }
    t->version = (uint32_t)r->p[8] | (uint32_t)r->p[9] << 8 | (uint32_t)r->p[10] << 16 |
                 (uint32_t)r->p[11] << 24;
    r->pos = 12;
    if (t->version != TRACE_VERSION) {
        rd_fail(r, "unsupported trace version");
        return;
    }
    t->kernel = rd_str(r, TRACE_MAX_NAME);
    t->arch = rd_str(r, TRACE_MAX_NAME);
    t->ptx_path = rd_str(r, TRACE_MAX_NAME);
    t->sm_count = rd_u32(r, 1, TRACE_MAX_SMS, "sm_count");
    t->gpc_count = rd_u32(r, 1, TRACE_MAX_GPCS, "gpc_count");
    if (r->st)
        return;
    t->sm_gpc = calloc(t->sm_count, sizeof *t->sm_gpc);
    if (!t->sm_gpc) {
        rd_fail(r, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < t->sm_count && !r->st; i++)
        t->sm_gpc[i] = rd_u32(r, 0, t->gpc_count - 1, "SM's GPC");
    t->subpartitions = rd_u32(r, 1, TRACE_MAX_SUBPART, "subpartitions");
    t->warp_slots_per_sm = rd_u32(r, 1, TRACE_MAX_SLOTS, "warp_slots_per_sm");
    t->clock_mhz = rd_u32(r, 1, 100000, "clock_mhz");
    for (int i = 0; i < 3; i++)
        t->grid[i] = rd_u32(r, 1, UINT32_MAX, "grid dimension");
    for (int i = 0; i < 3; i++)
        t->block[i] = rd_u32(r, 1, 1024, "block dimension");
    t->n_reasons = rd_u32(r, 1, TRACE_MAX_REASONS, "reason count");
    if (r->st)
        return;
    t->reason_names = calloc(t->n_reasons, sizeof *t->reason_names);
    if (!t->reason_names) {
        rd_fail(r, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < t->n_reasons && !r->st; i++)
        t->reason_names[i] = rd_str(r, TRACE_MAX_NAME);
    t->source_ = rd_str(r, TRACE_MAX_SOURCE);
    split_lines(t, r);
}

static void rd_records(rd_t *r, trace_t *t)
{
    size_t cap[KIND_COUNT] = {0};
    uint64_t last[KIND_COUNT] = {0};
    uint64_t max_end = 0;
    uint32_t sms = t->sm_count, slots = t->warp_slots_per_sm;
    while (r->st == WL_OK) {
        if (r->pos >= r->len) {
            rd_fail(r, "truncated: no end record");
            return;
        }
        unsigned tag = r->p[r->pos++];
        if (tag == TAG_INTERVAL) {
            trace_interval *e = rd_push(r, (void **)&t->intervals, &t->n_intervals, &cap[0],
                                        sizeof *e);
            if (!e)
                return;
            e->sm = rd_u32(r, 0, sms - 1, "sm");
            e->slot = rd_u32(r, 0, slots - 1, "warp slot");
            e->reason = rd_u32(r, 0, t->n_reasons - 1, "reason");
            e->start = rd_time(r, &last[0]);
            e->end = rd_end(r, e->start);
            max_end = e->end > max_end ? e->end : max_end;
        } else if (tag == TAG_ISSUE) {
            trace_issue *e = rd_push(r, (void **)&t->issues, &t->n_issues, &cap[1], sizeof *e);
            if (!e)
                return;
            e->sm = rd_u32(r, 0, sms - 1, "sm");
            e->slot = rd_u32(r, 0, slots - 1, "warp slot");
            e->cycle = rd_time(r, &last[1]);
            e->ptx_line = rd_u32(r, 0, UINT32_MAX, "ptx line");
            e->active_mask = rd_u32(r, 0, UINT32_MAX, "active mask");
            max_end = e->cycle + 1 > max_end ? e->cycle + 1 : max_end;
        } else if (tag == TAG_BLOCK) {
            trace_block *e = rd_push(r, (void **)&t->blocks, &t->n_blocks, &cap[2], sizeof *e);
            if (!e)
                return;
            e->block = rd_u32(r, 0, UINT32_MAX, "block id");
            e->sm = rd_u32(r, 0, sms - 1, "sm");
            e->start = rd_time(r, &last[2]);
            e->end = rd_end(r, e->start);
            max_end = e->end > max_end ? e->end : max_end;
        } else if (tag == TAG_WARP) {
            trace_warp *e = rd_push(r, (void **)&t->warps, &t->n_warps, &cap[3], sizeof *e);
            if (!e)
                return;
            e->sm = rd_u32(r, 0, sms - 1, "sm");
            e->slot = rd_u32(r, 0, slots - 1, "warp slot");
            e->block = rd_u32(r, 0, UINT32_MAX, "block id");
            e->warp = rd_u32(r, 0, 1023, "warp index");
            e->start = rd_time(r, &last[3]);
            e->end = rd_end(r, e->start);
            max_end = e->end > max_end ? e->end : max_end;
        } else if (tag == TAG_END) {
            t->total_cycles = rd_var(r);
            uint64_t n[KIND_COUNT];
            for (int k = 0; k < KIND_COUNT; k++)
                n[k] = rd_var(r);
            if (r->st)
                return;
            if (n[0] != t->n_intervals || n[1] != t->n_issues || n[2] != t->n_blocks ||
                n[3] != t->n_warps)
                rd_fail(r, "record counts disagree with the end record");
            else if (max_end > t->total_cycles)
                rd_fail(r, "a record ends after the total cycle count");
            else if (r->pos != r->len)
                rd_fail(r, "trailing bytes after the end record");
            return;
        } else {
            r->pos--;
            rd_fail(r, "unknown record tag");
            return;
        }
    }
}

/* Within one slot, warp spans and intervals must not overlap (a slot holds one warp at once). */
static void rd_check_overlap(rd_t *r, trace_t *t)
{
    for (size_t i = 1; i < t->n_intervals && !r->st; i++) {
        const trace_interval *a = &t->intervals[i - 1], *b = &t->intervals[i];
        if (a->sm == b->sm && a->slot == b->slot && b->start < a->end)
            rd_fail(r, "overlapping warp state intervals in one slot");
    }
    for (size_t i = 1; i < t->n_warps && !r->st; i++) {
        const trace_warp *a = &t->warps[i - 1], *b = &t->warps[i];
        if (a->sm == b->sm && a->slot == b->slot && b->start < a->end)
            rd_fail(r, "overlapping warps in one slot");
    }
}

wl_status trace_read_mem(const void *buf, size_t len, const char *name, trace_t *t, diag_t *d)
{
    memset(t, 0, sizeof *t);
    rd_t r = {.p = buf, .len = len, .name = name, .d = d, .st = WL_OK};
    rd_header(&r, t);
    if (r.st == WL_OK)
        rd_records(&r, t);
    if (r.st == WL_OK) {
        if (t->n_intervals)
            qsort(t->intervals, t->n_intervals, sizeof *t->intervals, cmp_interval);
        if (t->n_issues)
            qsort(t->issues, t->n_issues, sizeof *t->issues, cmp_issue);
        if (t->n_blocks)
            qsort(t->blocks, t->n_blocks, sizeof *t->blocks, cmp_block);
        if (t->n_warps)
            qsort(t->warps, t->n_warps, sizeof *t->warps, cmp_warp);
        rd_check_overlap(&r, t);
    }
    if (r.st != WL_OK) {
        trace_close(t);
        return r.st;
    }
    if (!t->kernel || !t->arch || !t->ptx_path) { /* cannot happen after success; be safe */
        trace_close(t);
        return diag_set(d, WL_EUSAGE, name, 0, 0, "bad trace header");
    }
    return WL_OK;
}

wl_status trace_open_read(const char *path, trace_t *t, diag_t *d)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "cannot open trace: %s", strerror(errno));
    size_t n = 0;
    char *buf = fio_read_stream(f, 0, &n);
    fclose(f);
    if (!buf)
        return diag_set(d, WL_EUSAGE, path, 0, 0,
                        "cannot read trace (read error or out of memory)");
    wl_status st = trace_read_mem(buf, n, path, t, d);
    free(buf);
    return st;
}

void trace_close(trace_t *t)
{
    free(t->kernel);
    free(t->arch);
    free(t->ptx_path);
    free(t->sm_gpc);
    if (t->reason_names)
        for (uint32_t i = 0; i < t->n_reasons; i++)
            free(t->reason_names[i]);
    free(t->reason_names);
    free(t->intervals);
    free(t->issues);
    free(t->blocks);
    free(t->warps);
    free(t->lines_);
    free(t->source_);
    memset(t, 0, sizeof *t);
}

const char *trace_source_line(const trace_t *t, uint32_t line)
{
    if (line == 0 || line > t->n_lines_)
        return NULL;
    return t->lines_[line - 1];
}

const char *trace_reason_name(const trace_t *t, uint32_t reason)
{
    return reason < t->n_reasons && t->reason_names[reason] ? t->reason_names[reason] : "?";
}

/* First index in a sorted array whose (sm, slot) is >= the key. */
#define LOWER_BOUND(arr, n, key_sm, key_slot, out)                                           \
    do {                                                                                     \
        size_t lo_ = 0, hi_ = (n);                                                           \
        while (lo_ < hi_) {                                                                  \
            size_t mid_ = lo_ + (hi_ - lo_) / 2;                                             \
            if ((arr)[mid_].sm < (key_sm) ||                                                 \
                ((arr)[mid_].sm == (key_sm) && (arr)[mid_].slot < (key_slot)))               \
                lo_ = mid_ + 1;                                                              \
            else                                                                             \
                hi_ = mid_;                                                                  \
        }                                                                                    \
        (out) = lo_;                                                                         \
    } while (0)

void trace_find_slot(const trace_t *t, uint32_t sm, uint32_t slot, size_t *iv_first,
                     size_t *iv_count, size_t *is_first, size_t *is_count)
{
    size_t a = 0, b = 0;
    *iv_first = *iv_count = *is_first = *is_count = 0;
    if (slot >= TRACE_MAX_SLOTS)
        return;
    LOWER_BOUND(t->intervals, t->n_intervals, sm, slot, a);
    LOWER_BOUND(t->intervals, t->n_intervals, sm, slot + 1, b);
    *iv_first = a;
    *iv_count = b - a;
    LOWER_BOUND(t->issues, t->n_issues, sm, slot, a);
    LOWER_BOUND(t->issues, t->n_issues, sm, slot + 1, b);
    *is_first = a;
    *is_count = b - a;
}
