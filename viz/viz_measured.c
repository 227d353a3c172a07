/* viz_measured: the measured per-block timeline (see viz_measured.h). */
#include "viz_measured.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t viz_assign_lanes(viz_block *b, size_t n, uint32_t sm_count); /* viz_model.c */

static double num(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static int cmp_block(const void *a, const void *b)
{
    const viz_block *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_id(const void *a, const void *b)
{
    const viz_block *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Reads the "warps" records (hw_warp as the slot); returns 0 or an error text. */
static const char *read_warps(const cJSON *arr, viz_measured *mm)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), k = 0;
    mm->warps = calloc(n ? n : 1, sizeof *mm->warps);
    if (!mm->warps)
        return "out of memory";
    const cJSON *r;
    cJSON_ArrayForEach(r, arr)
    {
        double b = num(r, "block", -1), w = num(r, "warp", 0), sm = num(r, "sm", -1),
               hw = num(r, "hw_warp", 0), s = num(r, "start_ns", -1), e = num(r, "end_ns", -1);
        if (b < 0 || b > 4e9 || w < 0 || w > 4e9 || sm < 0 || sm > 4095 || hw < 0 || hw > 4095 ||
            s < 0 || e < s || e > 1e18)
            return "a warp record lacks block/sm/start_ns/end_ns, or ends before it starts";
        mm->warps[k++] = (viz_warp){(uint32_t)sm, (uint32_t)hw, (uint32_t)b, (uint32_t)w,
                                    (uint64_t)s, (uint64_t)e};
        if ((uint32_t)sm + 1 > mm->sm_count)
            mm->sm_count = (uint32_t)sm + 1;
        if ((uint32_t)hw + 1 > mm->hw_slots)
            mm->hw_slots = (uint32_t)hw + 1;
    }
    mm->nwarps = k;
    return NULL;
}

/* Reads the "blocks" records; returns 0 or an error text. */
static const char *read_block_records(const cJSON *arr, viz_measured *mm)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), k = 0;
    mm->blocks = calloc(n ? n : 1, sizeof *mm->blocks);
    if (!mm->blocks)
        return "out of memory";
    const cJSON *r;
    cJSON_ArrayForEach(r, arr)
    {
        double b = num(r, "block", -1), sm = num(r, "sm", -1), s = num(r, "start_ns", -1),
               e = num(r, "end_ns", -1);
        if (b < 0 || sm < 0 || sm > 4095 || s < 0 || e < s || b > 4e9 || e > 1e18)
            return "a block record lacks block/sm/start_ns/end_ns, or ends before it starts";
        mm->blocks[k++] = (viz_block){(uint32_t)b, (uint32_t)sm, 0, 0, (uint64_t)s, (uint64_t)e};
        if ((uint32_t)sm + 1 > mm->sm_count)
            mm->sm_count = (uint32_t)sm + 1;
    }
    mm->nblocks = k;
    return NULL;
}

/* Without "blocks": a block spans its warps (min start .. max end). */
static const char *blocks_from_warps(viz_measured *mm)
{
    mm->blocks = calloc(mm->nwarps ? mm->nwarps : 1, sizeof *mm->blocks);
    if (!mm->blocks)
        return "out of memory";
    size_t k = 0;
    for (size_t i = 0; i < mm->nwarps; i++) {
        const viz_warp *w = &mm->warps[i];
        mm->blocks[k++] = (viz_block){w->block, w->sm, 0, 0, w->t0, w->t1};
    }
    if (k) {
        qsort(mm->blocks, k, sizeof *mm->blocks, cmp_id);
        size_t o = 0;
        for (size_t i = 1; i < k; i++) {
            viz_block *ob = &mm->blocks[o];
            if (mm->blocks[i].id == ob->id) {
                ob->t0 = mm->blocks[i].t0 < ob->t0 ? mm->blocks[i].t0 : ob->t0;
                ob->t1 = mm->blocks[i].t1 > ob->t1 ? mm->blocks[i].t1 : ob->t1;
            } else {
                mm->blocks[++o] = mm->blocks[i];
            }
        }
        k = o + 1;
    }
    mm->nblocks = k;
    return NULL;
}

/* Reads the timeline: warps, and blocks (or blocks folded from warps), with times made
 * relative to the first start; returns 0 or an error text. */
static const char *read_timeline(const cJSON *root, viz_measured *mm)
{
    const cJSON *warps = cJSON_GetObjectItemCaseSensitive(root, "warps");
    const cJSON *blocks = cJSON_GetObjectItemCaseSensitive(root, "blocks");
    const char *err = NULL;
    if (cJSON_IsArray(warps))
        err = read_warps(warps, mm);
    if (!err && cJSON_IsArray(blocks) && cJSON_GetArraySize(blocks))
        err = read_block_records(blocks, mm);
    else if (!err && mm->nwarps)
        err = blocks_from_warps(mm);
    if (err || !mm->nblocks)
        return err;
    uint64_t t0 = UINT64_MAX, end = 0;
    for (size_t i = 0; i < mm->nblocks; i++)
        t0 = mm->blocks[i].t0 < t0 ? mm->blocks[i].t0 : t0;
    for (size_t i = 0; i < mm->nwarps; i++)
        t0 = mm->warps[i].t0 < t0 ? mm->warps[i].t0 : t0;
    for (size_t i = 0; i < mm->nblocks; i++) {
        mm->blocks[i].t0 -= t0;
        mm->blocks[i].t1 -= t0;
        end = mm->blocks[i].t1 > end ? mm->blocks[i].t1 : end;
    }
    for (size_t i = 0; i < mm->nwarps; i++) {
        mm->warps[i].t0 -= t0;
        mm->warps[i].t1 -= t0;
    }
    qsort(mm->blocks, mm->nblocks, sizeof *mm->blocks, cmp_block);
    mm->lanes_max = viz_assign_lanes(mm->blocks, mm->nblocks, mm->sm_count ? mm->sm_count : 1);
    if (!mm->probe_span_us)
        mm->probe_span_us = (double)end / 1000.0;
    return NULL;
}

static void read_stalls(const cJSON *root, viz_measured *mm)
{
    const cJSON *ncu = cJSON_GetObjectItemCaseSensitive(root, "ncu");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(ncu, "stalls");
    if (!cJSON_IsObject(st))
        return;
    double sum = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, st)
    {
        if (!cJSON_IsNumber(v) || v->valuedouble < 0 || !v->string)
            continue;
        int r = stall_from_name(v->string);
        /* Nsight reasons the model does not have (tex_throttle, imc_miss, ...) count as misc */
        mm->stalls[r >= 0 ? r : STALL_MISC] += v->valuedouble;
        sum += v->valuedouble;
    }
    if (sum > 0) {
        for (int i = 0; i < VIZ_NREASON; i++)
            mm->stalls[i] /= sum;
        mm->has_stalls = 1;
    }
}

wl_status viz_measured_load(const char *path, viz_measured **out, diag_t *d)
{
    *out = NULL;
    size_t len = 0;
    char *text = viz_model_read_file(path, &len);
    if (!text)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "cannot read the measured file");
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root || !cJSON_IsObject(root)) {
        /* cJSON points at the error; turn it into a line and column */
        const char *at = cJSON_GetErrorPtr();
        int line = 1, col = 1;
        for (const char *p = text; at && p < at && p < text + len; p++, col++)
            if (*p == '\n') {
                line++;
                col = 0;
            }
        cJSON_Delete(root);
        free(text);
        return diag_set(d, WL_EUSAGE, path, at ? line : 0, at ? col : 0,
                        "not a measured-results JSON object");
    }
    free(text);
    viz_measured *mm = calloc(1, sizeof *mm);
    if (!mm) {
        cJSON_Delete(root);
        return diag_set(d, WL_EUSAGE, path, 0, 0, "out of memory");
    }
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "case");
    snprintf(mm->name, sizeof mm->name, "%s", cJSON_IsString(c) ? c->valuestring : "");
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(root, "gpu");
    const cJSON *gname = cJSON_GetObjectItemCaseSensitive(gpu, "name");
    snprintf(mm->gpu, sizeof mm->gpu, "%s", cJSON_IsString(gname) ? gname->valuestring : "GPU");
    double smc = num(gpu, "sm_count", 0);
    mm->sm_count = smc > 0 && smc < 4096 ? (uint32_t)smc : 0;
    mm->time_us = num(cJSON_GetObjectItemCaseSensitive(root, "timing"), "median_us", 0);
    mm->probe_span_us = num(cJSON_GetObjectItemCaseSensitive(root, "probe"), "span_ns", 0) / 1e3;
    const char *err = read_timeline(root, mm);
    read_stalls(root, mm);
    cJSON_Delete(root);
    if (!err && mm->time_us <= 0 && !mm->nblocks)
        err = "has neither \"timing\".\"median_us\" nor a \"blocks\" timeline";
    if (err) {
        viz_measured_free(mm);
        return diag_set(d, WL_EUSAGE, path, 0, 0, "%s", err);
    }
    *out = mm;
    return WL_OK;
}
