/* viz_model: the viewer's data and its level-of-detail index (see viz_model.h). */
#include "viz_model.h"
#include "fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

wl_status viz_model_init(viz_model *m, uint32_t sm_count, uint32_t gpc_count, uint32_t scheds,
                         uint32_t slots, uint32_t clock_mhz, diag_t *d)
{
    memset(m, 0, sizeof *m);
    if (!sm_count || !gpc_count || !scheds || !slots || !clock_mhz || sm_count > 4096 ||
        slots > 4096 || scheds > slots || (uint64_t)sm_count * slots > (1u << 20))
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "bad GPU shape: %u SMs, %u GPCs, %u schedulers, %u warp slots, %u MHz",
                        sm_count, gpc_count, scheds, slots, clock_mhz);
    m->sm_count = sm_count;
    m->gpc_count = gpc_count;
    m->scheds = scheds;
    m->slots = slots;
    m->clock_mhz = clock_mhz;
    m->sm_gpc = calloc(sm_count, sizeof *m->sm_gpc);
    if (!m->sm_gpc)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    for (uint32_t i = 0; i < sm_count; i++)
        m->sm_gpc[i] = (uint32_t)((uint64_t)i * gpc_count / sm_count);
    return WL_OK;
}

void viz_measured_free(viz_measured *mm)
{
    if (!mm)
        return;
    free(mm->blocks);
    free(mm->warps);
    free(mm);
}

void viz_model_free(viz_model *m)
{
    free(m->sm_gpc);
    free(m->ivs);
    free(m->issues);
    free(m->blocks);
    free(m->warps);
    if (m->lines) {
        free(m->lines[0]);
        free(m->lines);
    }
    if (m->cu_lines) {
        free(m->cu_lines[0]);
        free(m->cu_lines);
    }
    free(m->row_iv);
    free(m->row_issue);
    free(m->lod_index);
    free(m->lod_reason);
    free(m->lod_lanes);
    free(m->sm_reason);
    free(m->line_issues);
    free(m->line_stall);
    viz_measured_free(m->meas);
    memset(m, 0, sizeof *m);
}

/* Grows an array by doubling; 0 on out of memory. */
static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 1;
    size_t nc = *cap ? *cap * 2 : 1024;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return 0;
    *p = q;
    *cap = nc;
    return 1;
}

/* Sets the capacity to exactly n (n > 0); 0 on out of memory. */
static int reserve(void **p, size_t *cap, size_t n, size_t elem)
{
    if (!n || n <= *cap)
        return 1;
    void *q = realloc(*p, n * elem);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

static wl_status check_place(const viz_model *m, uint32_t sm, uint32_t slot, diag_t *d)
{
    if (sm >= m->sm_count || slot >= m->slots)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "record on SM %u slot %u: the GPU has %u SMs "
                        "of %u warp slots",
                        sm, slot, m->sm_count, m->slots);
    return WL_OK;
}

wl_status viz_model_add_interval(viz_model *m, const viz_iv *iv, diag_t *d)
{
    if (check_place(m, iv->sm, iv->slot, d))
        return d->status;
    if (iv->reason >= VIZ_NREASON || iv->t1 < iv->t0)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "bad interval: reason %u, [%llu, %llu)",
                        iv->reason, (unsigned long long)iv->t0, (unsigned long long)iv->t1);
    if (!grow((void **)&m->ivs, &m->cap_ivs, m->nivs, sizeof *m->ivs))
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    m->ivs[m->nivs++] = *iv;
    return WL_OK;
}

wl_status viz_model_add_issue(viz_model *m, const viz_issue *is, diag_t *d)
{
    if (check_place(m, is->sm, is->slot, d))
        return d->status;
    if (is->lanes > 32)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "issue with %u active lanes", is->lanes);
    if (!grow((void **)&m->issues, &m->cap_issues, m->nissues, sizeof *m->issues))
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    m->issues[m->nissues++] = *is;
    return WL_OK;
}

wl_status viz_model_add_block(viz_model *m, const viz_block *b, diag_t *d)
{
    if (b->sm >= m->sm_count || b->t1 < b->t0)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "bad block %u: SM %u, [%llu, %llu)", b->id, b->sm,
                        (unsigned long long)b->t0, (unsigned long long)b->t1);
    if (!grow((void **)&m->blocks, &m->cap_blocks, m->nblocks, sizeof *m->blocks))
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    m->blocks[m->nblocks++] = *b;
    return WL_OK;
}

wl_status viz_model_add_warp(viz_model *m, const viz_warp *w, diag_t *d)
{
    if (check_place(m, w->sm, w->slot, d))
        return d->status;
    if (w->t1 < w->t0)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "warp span ends before it starts");
    if (!grow((void **)&m->warps, &m->cap_warps, m->nwarps, sizeof *m->warps))
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    m->warps[m->nwarps++] = *w;
    return WL_OK;
}

/* Splits a copy of text into lines (lines[0] owns the copy); 0 on out of memory. */
static int split_lines(const char *text, char ***out, size_t *count)
{
    size_t len = strlen(text), n = 1;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    char *copy = malloc(len + 1);
    char **lines = calloc(n, sizeof *lines);
    if (!copy || !lines) {
        free(copy);
        free(lines);
        return 0;
    }
    memcpy(copy, text, len + 1);
    size_t k = 0;
    lines[k++] = copy;
    for (size_t i = 0; i < len; i++)
        if (copy[i] == '\n') {
            copy[i] = 0;
            if (i > 0 && copy[i - 1] == '\r')
                copy[i - 1] = 0;
            lines[k++] = copy + i + 1;
        }
    if (k > 1 && !*lines[k - 1])
        k--; /* a final newline does not start a line */
    *out = lines;
    *count = k;
    return 1;
}

wl_status viz_model_set_source(viz_model *m, const char *text, diag_t *d)
{
    if (!text || !*text)
        return WL_OK;
    if (!split_lines(text, &m->lines, &m->nlines))
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    return WL_OK;
}

/* Reads a whole file, NUL-terminated (see viz_model.h). */
char *viz_model_read_file(const char *path, size_t *len)
{
    size_t n = 0;
    char *buf = fio_read_file(path, 0, &n);
    *len = buf ? n : 0;
    return buf;
}

void viz_model_load_cuda(viz_model *m, const char *root_dir)
{
    /* the PTX names its CUDA file in `.file 1 "PATH"` (nvcc -lineinfo / -G, or by default) */
    char name[400] = "";
    for (size_t i = 0; i < m->nlines && !name[0]; i++) {
        const char *q = m->lines[i] + strspn(m->lines[i], " \t");
        if (!strncmp(q, ".file", 5) && sscanf(q + 5, " 1 \"%399[^\"]\"", name) != 1)
            name[0] = 0;
    }
    if (!name[0])
        return;
    /* as written, under the repository root, or beside the PTX file */
    char cand[3][1024];
    const char *slash = strrchr(m->ptx_path, '/'), *base = strrchr(name, '/');
    snprintf(cand[0], sizeof cand[0], "%s", name);
    snprintf(cand[1], sizeof cand[1], "%s/%s", root_dir ? root_dir : ".", name);
    snprintf(cand[2], sizeof cand[2], "%.*s%s", slash ? (int)(slash - m->ptx_path + 1) : 0,
             m->ptx_path, base ? base + 1 : name);
    for (int k = 0; k < 3; k++) {
        size_t len;
        char *text = viz_model_read_file(cand[k], &len);
        if (!text)
            continue;
        int ok = split_lines(text, &m->cu_lines, &m->ncu_lines);
        free(text);
        if (ok)
            snprintf(m->cu_name, sizeof m->cu_name, "%s", base ? base + 1 : name);
        return;
    }
}

/* ---- sorting ------------------------------------------------------------------------------ */

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_iv(const void *a, const void *b)
{
    const viz_iv *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return cmp_u64(x->t0, y->t0);
}

static int cmp_issue(const void *a, const void *b)
{
    const viz_issue *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return cmp_u64(x->cycle, y->cycle);
}

static int cmp_warp(const void *a, const void *b)
{
    const viz_warp *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return cmp_u64(x->t0, y->t0);
}

static int cmp_block(const void *a, const void *b)
{
    const viz_block *x = a, *y = b;
    int c = cmp_u64(x->t0, y->t0);
    return c ? c : (x->id < y->id ? -1 : x->id > y->id);
}

/* The trace reader already sorts in this order: check in one pass before paying for qsort. */
static void sort_if_needed(void *base, size_t n, size_t size,
                           int (*cmp)(const void *, const void *))
{
    const char *p = base;
    for (size_t i = 1; i < n; i++)
        if (cmp(p + (i - 1) * size, p + i * size) > 0) {
            qsort(base, n, size, cmp);
            return;
        }
}

/* ---- blocks: lanes and waves -------------------------------------------------------------- */

/* Gives every block (sorted by start) the lowest lane of its SM free at its start; returns the
 * most lanes any SM needed. lane_end: sm_count x cap scratch. Shared with the measured loader. */
uint32_t viz_assign_lanes(viz_block *b, size_t n, uint32_t sm_count);
uint32_t viz_assign_lanes(viz_block *b, size_t n, uint32_t sm_count)
{
    enum { CAP = 64 };
    uint64_t *lane_end = calloc((size_t)sm_count * CAP, sizeof *lane_end);
    uint32_t most = n ? 1 : 0;
    if (!lane_end)
        return most;
    for (size_t i = 0; i < n; i++) {
        uint64_t *le = lane_end + (size_t)b[i].sm * CAP;
        uint32_t l = 0;
        while (l < CAP - 1 && le[l] > b[i].t0)
            l++;
        le[l] = b[i].t1 > b[i].t0 ? b[i].t1 : b[i].t0 + 1;
        b[i].lane = l;
        if (l + 1 > most)
            most = l + 1;
    }
    free(lane_end);
    return most;
}

static void assign_waves(viz_model *m)
{
    /* The GPU holds (per SM, the most blocks seen at once) summed over SMs; each run of that
     * many blocks, in start order, is one wave. */
    uint32_t *per_sm = calloc(m->sm_count, sizeof *per_sm);
    if (!per_sm)
        return;
    for (size_t i = 0; i < m->nblocks; i++)
        if (m->blocks[i].lane + 1 > per_sm[m->blocks[i].sm])
            per_sm[m->blocks[i].sm] = m->blocks[i].lane + 1;
    uint64_t at_once = 0;
    for (uint32_t s = 0; s < m->sm_count; s++)
        at_once += per_sm[s];
    free(per_sm);
    if (!at_once)
        at_once = 1;
    for (size_t i = 0; i < m->nblocks; i++)
        m->blocks[i].wave = (uint32_t)(i / at_once);
    m->waves = m->nblocks ? (uint32_t)((m->nblocks + at_once - 1) / at_once) : 0;
    m->tail_blocks = (uint32_t)(m->nblocks % at_once);
    if (m->waves < 2)
        m->tail_blocks = 0; /* a single partial wave is the whole kernel, not a tail */
}

/* ---- LOD pyramid ------------------------------------------------------------------------ */

static uint8_t dominant(const uint64_t *h, uint64_t empty)
{
    uint64_t best = empty;
    uint8_t r = VIZ_NONE;
    for (int i = 0; i < VIZ_NREASON; i++)
        if (h[i] > best) {
            best = h[i];
            r = (uint8_t)i;
        }
    return r;
}

static wl_status build_lod(viz_model *m, diag_t *d)
{
    uint64_t T = m->total_cycles ? m->total_cycles : 1;
    m->lod_bucket = (T + VIZ_LOD_BUCKETS - 1) / VIZ_LOD_BUCKETS;
    uint32_t n0 = (uint32_t)((T + m->lod_bucket - 1) / m->lod_bucket), off = 0, lv = 0;
    for (uint32_t n = n0;; n = (n + 1) / 2) {
        m->lod_off[lv] = off;
        m->lod_n[lv] = n;
        off += n;
        lv++;
        if (n == 1 || lv == 40)
            break;
    }
    m->lod_levels = lv;
    m->lod_stride = off;
    /* storage only for rows that ever held a warp: memory follows the trace, not its header */
    size_t rows = (size_t)m->sm_count * m->slots, used = 0;
    m->lod_index = malloc(rows * sizeof *m->lod_index);
    for (size_t row = 0; m->lod_index && row < rows; row++) {
        int any = m->row_iv[row + 1] > m->row_iv[row] || m->row_issue[row + 1] > m->row_issue[row];
        m->lod_index[row] = any ? (uint32_t)used++ : UINT32_MAX;
    }
    m->lod_reason = malloc(used * off + 1);
    m->lod_lanes = malloc(used * off + 1);
    /* scratch: per bucket of the current level, cycles per reason (+ empty) and lanes sums */
    uint64_t *h = calloc((size_t)n0 * (VIZ_NREASON + 1), sizeof *h);
    uint64_t *ls = calloc((size_t)n0 * 2, sizeof *ls);
    if (!m->lod_index || !m->lod_reason || !m->lod_lanes || !h || !ls) {
        free(h);
        free(ls);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0,
                        "out of memory for the level-of-detail index "
                        "(%zu warp slots x %u buckets)",
                        used, off);
    }
    const int H = VIZ_NREASON + 1;
    for (size_t row = 0; row < rows; row++) {
        if (m->lod_index[row] == UINT32_MAX)
            continue;
        size_t at = (size_t)m->lod_index[row] * off;
        uint8_t *R = m->lod_reason + at, *L = m->lod_lanes + at;
        memset(h, 0, (size_t)n0 * H * sizeof *h);
        memset(ls, 0, (size_t)n0 * 2 * sizeof *ls);
        for (size_t i = m->row_iv[row]; i < m->row_iv[row + 1]; i++) {
            const viz_iv *iv = &m->ivs[i];
            for (uint64_t t = iv->t0; t < iv->t1 && t < T;) {
                uint64_t b = t / m->lod_bucket, e = (b + 1) * m->lod_bucket;
                if (e > iv->t1)
                    e = iv->t1;
                h[b * H + iv->reason] += e - t;
                t = e;
            }
        }
        for (size_t i = m->row_issue[row]; i < m->row_issue[row + 1]; i++) {
            uint64_t b = m->issues[i].cycle / m->lod_bucket;
            if (b < n0) {
                ls[b * 2] += m->issues[i].lanes;
                ls[b * 2 + 1]++;
            }
        }
        for (uint32_t level = 0; level < lv; level++) {
            uint32_t n = m->lod_n[level];
            uint64_t width = m->lod_bucket << level;
            for (uint32_t b = 0; b < n; b++) {
                if (level > 0) { /* merge children 2b and 2b+1 into b (in place, b <= 2b) */
                    for (int k = 0; k < H; k++) {
                        uint64_t c = h[(2 * b) * H + k];
                        if (2 * b + 1 < m->lod_n[level - 1])
                            c += h[(2 * b + 1) * H + k];
                        h[b * H + k] = c;
                    }
                    for (int k = 0; k < 2; k++) {
                        uint64_t c = ls[(2 * b) * 2 + k];
                        if (2 * b + 1 < m->lod_n[level - 1])
                            c += ls[(2 * b + 1) * 2 + k];
                        ls[b * 2 + k] = c;
                    }
                }
                uint64_t busy = 0;
                for (int k = 0; k < VIZ_NREASON; k++)
                    busy += h[b * H + k];
                /* the bucket shows a reason when a warp was resident at least half of it */
                R[m->lod_off[level] + b] = busy * 2 >= width ? dominant(h + b * H, 0) : VIZ_NONE;
                L[m->lod_off[level] + b] =
                    ls[b * 2 + 1] ? (uint8_t)((ls[b * 2] + ls[b * 2 + 1] / 2) / ls[b * 2 + 1])
                                  : VIZ_NONE;
            }
        }
    }
    free(h);
    free(ls);
    return WL_OK;
}

int viz_model_lod_level(const viz_model *m, double cycles_per_px)
{
    if (!m->lod_levels || cycles_per_px < (double)m->lod_bucket)
        return -1;
    int level = 0;
    while ((uint32_t)level + 1 < m->lod_levels &&
           (double)(m->lod_bucket << (level + 1)) <= cycles_per_px)
        level++;
    return level;
}

static uint8_t lod_get(const viz_model *m, const uint8_t *arr, uint32_t row, int level, uint64_t t)
{
    if (!arr || level < 0 || (uint32_t)level >= m->lod_levels || row >= m->sm_count * m->slots ||
        m->lod_index[row] == UINT32_MAX)
        return VIZ_NONE;
    uint64_t b = t / (m->lod_bucket << level);
    if (b >= m->lod_n[level])
        return VIZ_NONE;
    return arr[(size_t)m->lod_index[row] * m->lod_stride + m->lod_off[level] + b];
}

uint8_t viz_model_lod_reason(const viz_model *m, uint32_t row, int level, uint64_t t)
{
    return lod_get(m, m->lod_reason, row, level, t);
}

uint8_t viz_model_lod_lanes(const viz_model *m, uint32_t row, int level, uint64_t t)
{
    return lod_get(m, m->lod_lanes, row, level, t);
}

/* ---- totals ----------------------------------------------------------------------------- */

static wl_status build_totals(viz_model *m, diag_t *d)
{
    m->sm_reason = calloc((size_t)m->sm_count * VIZ_NREASON, sizeof *m->sm_reason);
    m->line_issues = calloc(m->nlines + 1, sizeof *m->line_issues);
    m->line_stall = calloc((m->nlines + 1) * VIZ_NREASON, sizeof *m->line_stall);
    if (!m->sm_reason || !m->line_issues || !m->line_stall)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < m->nissues; i++)
        if (m->issues[i].line <= m->nlines)
            m->line_issues[m->issues[i].line]++;
    for (size_t i = 0; i < m->nivs; i++) {
        const viz_iv *iv = &m->ivs[i];
        uint64_t c = iv->t1 - iv->t0;
        m->sm_reason[(size_t)iv->sm * VIZ_NREASON + iv->reason] += c;
        m->kernel_reason[iv->reason] += c;
        if (iv->reason == STALL_SELECTED)
            continue;
        const viz_issue *nx = viz_model_next_issue(m, iv->sm, iv->slot, iv->t0);
        if (nx && nx->line <= m->nlines)
            m->line_stall[(size_t)nx->line * VIZ_NREASON + iv->reason] += c;
    }
    return WL_OK;
}

wl_status viz_model_finish(viz_model *m, uint64_t total_cycles, diag_t *d)
{
    sort_if_needed(m->ivs, m->nivs, sizeof *m->ivs, cmp_iv);
    sort_if_needed(m->issues, m->nissues, sizeof *m->issues, cmp_issue);
    sort_if_needed(m->warps, m->nwarps, sizeof *m->warps, cmp_warp);
    sort_if_needed(m->blocks, m->nblocks, sizeof *m->blocks, cmp_block);
    uint64_t end = 0;
    for (size_t i = 0; i < m->nivs; i++)
        end = m->ivs[i].t1 > end ? m->ivs[i].t1 : end;
    for (size_t i = 0; i < m->nblocks; i++)
        end = m->blocks[i].t1 > end ? m->blocks[i].t1 : end;
    for (size_t i = 0; i < m->nissues; i++)
        end = m->issues[i].cycle + 1 > end ? m->issues[i].cycle + 1 : end;
    m->total_cycles = total_cycles > end ? total_cycles : end;

    size_t rows = (size_t)m->sm_count * m->slots;
    m->row_iv = calloc(rows + 1, sizeof *m->row_iv);
    m->row_issue = calloc(rows + 1, sizeof *m->row_issue);
    if (!m->row_iv || !m->row_issue)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < m->nivs; i++)
        m->row_iv[viz_row(m, m->ivs[i].sm, m->ivs[i].slot) + 1]++;
    for (size_t i = 0; i < m->nissues; i++)
        m->row_issue[viz_row(m, m->issues[i].sm, m->issues[i].slot) + 1]++;
    for (size_t r = 0; r < rows; r++) {
        m->row_iv[r + 1] += m->row_iv[r];
        m->row_issue[r + 1] += m->row_issue[r];
    }
    m->lanes_max = viz_assign_lanes(m->blocks, m->nblocks, m->sm_count);
    assign_waves(m);
    if (build_lod(m, d) || build_totals(m, d))
        return d->status;
    m->finished = 1;
    return WL_OK;
}

/* ---- lookups ---------------------------------------------------------------------------- */

const viz_iv *viz_model_interval_at(const viz_model *m, uint32_t sm, uint32_t slot, uint64_t t)
{
    if (!m->finished || sm >= m->sm_count || slot >= m->slots)
        return NULL;
    uint32_t row = viz_row(m, sm, slot);
    size_t lo = m->row_iv[row], hi = m->row_iv[row + 1];
    while (lo < hi) { /* first interval with t0 > t */
        size_t mid = lo + (hi - lo) / 2;
        if (m->ivs[mid].t0 <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == m->row_iv[row])
        return NULL;
    const viz_iv *iv = &m->ivs[lo - 1];
    return t < iv->t1 ? iv : NULL;
}

/* Index of the first issue of row with cycle > t (binary search). */
static size_t issue_after(const viz_model *m, uint32_t row, uint64_t t)
{
    size_t lo = m->row_issue[row], hi = m->row_issue[row + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->issues[mid].cycle <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const viz_issue *viz_model_issue_at(const viz_model *m, uint32_t sm, uint32_t slot, uint64_t t)
{
    if (!m->row_issue || sm >= m->sm_count || slot >= m->slots)
        return NULL;
    uint32_t row = viz_row(m, sm, slot);
    size_t i = issue_after(m, row, t);
    return i > m->row_issue[row] ? &m->issues[i - 1] : NULL;
}

const viz_issue *viz_model_next_issue(const viz_model *m, uint32_t sm, uint32_t slot, uint64_t t)
{
    if (!m->row_issue || sm >= m->sm_count || slot >= m->slots)
        return NULL;
    uint32_t row = viz_row(m, sm, slot);
    size_t i = issue_after(m, row, t ? t - 1 : 0);
    if (t == 0 && i > m->row_issue[row] && m->issues[i - 1].cycle == 0)
        i--;
    return i < m->row_issue[row + 1] ? &m->issues[i] : NULL;
}

const viz_warp *viz_model_warp_at(const viz_model *m, uint32_t sm, uint32_t slot, uint64_t t)
{
    /* warps are sorted by (sm, slot, t0): binary search the slot's range */
    size_t lo = 0, hi = m->nwarps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const viz_warp *w = &m->warps[mid];
        if (w->sm < sm || (w->sm == sm && (w->slot < slot || (w->slot == slot && w->t0 <= t))))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const viz_warp *w = &m->warps[lo - 1];
    return w->sm == sm && w->slot == slot && t >= w->t0 && t < w->t1 ? w : NULL;
}

double viz_model_us(const viz_model *m, double cycles)
{
    return cycles / (double)(m->clock_mhz ? m->clock_mhz : 1);
}

/* ---- from a trace file -------------------------------------------------------------------- */

static unsigned popcount32(uint32_t x)
{
    unsigned n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

wl_status viz_model_from_trace(viz_model *m, const char *path, diag_t *d)
{
    trace_t t;
    memset(m, 0, sizeof *m);
    if (trace_open_read(path, &t, d))
        return d->status;
    wl_status st = viz_model_init(m, t.sm_count, t.gpc_count ? t.gpc_count : 1, t.subpartitions,
                                  t.warp_slots_per_sm, t.clock_mhz, d);
    int map[TRACE_MAX_REASONS];
    for (uint32_t r = 0; r < t.n_reasons && r < TRACE_MAX_REASONS; r++) {
        map[r] = stall_from_name(t.reason_names[r]);
        if (map[r] < 0)
            map[r] = STALL_MISC; /* a reason this viewer does not know: shown as misc */
    }
    if (!st) {
        copy_str(m->kernel, sizeof m->kernel, t.kernel);
        copy_str(m->arch, sizeof m->arch, t.arch);
        copy_str(m->ptx_path, sizeof m->ptx_path, t.ptx_path);
        memcpy(m->grid, t.grid, sizeof m->grid);
        memcpy(m->block, t.block, sizeof m->block);
        for (uint32_t i = 0; t.sm_gpc && i < t.sm_count; i++)
            m->sm_gpc[i] = t.sm_gpc[i] < m->gpc_count ? t.sm_gpc[i] : 0;
    }
    /* exact sizes up front, and each of the reader's arrays freed once copied: a big trace
     * never sits in memory twice over */
    if (!st && !(reserve((void **)&m->ivs, &m->cap_ivs, t.n_intervals, sizeof *m->ivs) &&
                 reserve((void **)&m->issues, &m->cap_issues, t.n_issues, sizeof *m->issues) &&
                 reserve((void **)&m->blocks, &m->cap_blocks, t.n_blocks, sizeof *m->blocks) &&
                 reserve((void **)&m->warps, &m->cap_warps, t.n_warps, sizeof *m->warps)))
        st = diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory for %zu intervals",
                      t.n_intervals);
    for (size_t i = 0; !st && i < t.n_intervals; i++) {
        const trace_interval *r = &t.intervals[i];
        viz_iv iv = {r->sm, r->slot, r->reason < t.n_reasons ? (uint32_t)map[r->reason] : 0,
                     r->start, r->end};
        st = viz_model_add_interval(m, &iv, d);
    }
    free(t.intervals);
    t.intervals = NULL;
    t.n_intervals = 0;
    for (size_t i = 0; !st && i < t.n_issues; i++) {
        const trace_issue *r = &t.issues[i];
        viz_issue is = {r->sm, r->slot, r->ptx_line, popcount32(r->active_mask), r->cycle};
        st = viz_model_add_issue(m, &is, d);
    }
    free(t.issues);
    t.issues = NULL;
    t.n_issues = 0;
    for (size_t i = 0; !st && i < t.n_blocks; i++) {
        const trace_block *r = &t.blocks[i];
        viz_block b = {r->block, r->sm, 0, 0, r->start, r->end};
        st = viz_model_add_block(m, &b, d);
    }
    for (size_t i = 0; !st && i < t.n_warps; i++) {
        const trace_warp *r = &t.warps[i];
        viz_warp w = {r->sm, r->slot, r->block, r->warp, r->start, r->end};
        st = viz_model_add_warp(m, &w, d);
    }
    /* the embedded PTX text, joined back from the reader's lines */
    size_t total = 0, n = 0;
    for (uint32_t l = 1; !st && trace_source_line(&t, l); l++, n++)
        total += strlen(trace_source_line(&t, l)) + 1;
    if (!st && n) {
        char *text = malloc(total + 1), *p = text;
        if (!text)
            st = diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        for (uint32_t l = 1; text && l <= n; l++) {
            size_t k = strlen(trace_source_line(&t, l));
            memcpy(p, trace_source_line(&t, l), k);
            p[k] = '\n'; /* a separator: the last one is overwritten by the terminator */
            p += k + 1;
        }
        if (text) {
            p[-1] = 0;
            st = viz_model_set_source(m, text, d);
            free(text);
        }
    }
    uint64_t total_cycles = t.total_cycles;
    trace_close(&t);
    if (!st)
        st = viz_model_finish(m, total_cycles, d);
    if (st) {
        viz_model_free(m);
        if (!d->file[0])
            snprintf(d->file, sizeof d->file, "%s", path);
    }
    return st;
}
