/* arch: loading, validating and printing a GPU description (sim/arch/<name>.ini).
 *
 * The file format is plain ini, parsed by inih. One static table below names every key: its
 * section, its type, its range and its unit. Loading, validation (missing, unknown, duplicate,
 * non-numeric, out of range) and printing are all driven by that table, so adding a number to
 * the model means adding one row here, one field to arch_t and one line to each .ini file.
 *
 * Numbers may carry a K (x1024) or M (x1048576) suffix: "228K" is 233472 bytes.
 */
#include "arch.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "inifile.h"

typedef enum { K_INT, K_DOUBLE, K_STR, K_LIST, K_CC } field_kind;

typedef struct {
    const char *section;
    const char *key;
    field_kind kind;
    size_t offset;       /* of the value (list: of the first element) in arch_t */
    size_t aux;          /* string: buffer size; list: offset of the count */
    double min, max;     /* inclusive range of each number (of each element of a list) */
    const char *unit;    /* "B" prints as bytes with KB/MB; others verbatim */
    int cap;             /* list: capacity */
} arch_field;

#define F_INT(s, k, f, lo, hi, u) {s, #k, K_INT, offsetof(arch_t, f), 0, lo, hi, u, 0}
#define F_DBL(s, k, f, lo, hi, u) {s, #k, K_DOUBLE, offsetof(arch_t, f), 0, lo, hi, u, 0}
#define F_STR(s, k, f) {s, #k, K_STR, offsetof(arch_t, f), sizeof(((arch_t *)0)->f), 0, 0, "", 0}
#define F_LIST(s, k, f, cnt, lo, hi, u)                                                       \
    {s, #k, K_LIST, offsetof(arch_t, f), offsetof(arch_t, cnt), lo, hi, u,                    \
     (int)(sizeof(((arch_t *)0)->f) / sizeof(int))}

#define KB 1024.0
#define MB (1024.0 * 1024.0)

static const arch_field fields[] = {
    F_STR("gpu", name, name),
    F_STR("gpu", full_name, full_name),
    {"gpu", "compute_capability", K_CC, offsetof(arch_t, cc_major), 0, 3, 12, "", 0},
    F_INT("gpu", sm_count, sm_count, 1, 1024, "SMs"),
    F_LIST("gpu", gpc_sms, gpc_sms, gpc_count, 1, 64, "SMs"),
    F_INT("gpu", sms_per_tpc, sms_per_tpc, 1, 4, "SMs"),
    F_INT("gpu", sm_clock_mhz, sm_clock_mhz, 100, 5000, "MHz"),
    F_INT("gpu", mem_clock_mhz, mem_clock_mhz, 100, 20000, "MHz"),
    F_DBL("gpu", dram_bandwidth_gbs, dram_bandwidth_gbs, 1, 100000, "GB/s"),

    F_INT("sm", sub_partitions, sub_partitions, 1, 8, ""),
    F_INT("sm", warp_size, warp_size, 32, 32, "threads"),
    F_INT("sm", max_warps_per_sm, max_warps_per_sm, 1, 128, "warps"),
    F_INT("sm", max_threads_per_sm, max_threads_per_sm, 32, 4096, "threads"),
    F_INT("sm", max_blocks_per_sm, max_blocks_per_sm, 1, 64, "blocks"),
    F_INT("sm", max_threads_per_block, max_threads_per_block, 32, 1024, "threads"),
    F_INT("sm", regs_per_sm, regs_per_sm, 1024, 1 << 20, "registers"),
    F_INT("sm", regs_per_block, regs_per_block, 1024, 1 << 20, "registers"),
    F_INT("sm", max_regs_per_thread, max_regs_per_thread, 16, 255, "registers"),
    F_INT("sm", reg_alloc_unit, reg_alloc_unit, 1, 4096, "registers per warp"),
    F_STR("sm", sched_policy, sched_policy),
    F_INT("sm", issue_per_cycle, issue_per_cycle, 1, 2, "instructions per scheduler"),

    F_INT("smem", smem_per_sm_max, smem_per_sm_max, 0, 16 * MB, "B"),
    F_INT("smem", smem_per_block_default, smem_per_block_default, 0, 16 * MB, "B"),
    F_INT("smem", smem_per_block_optin, smem_per_block_optin, 0, 16 * MB, "B"),
    F_INT("smem", smem_reserved_per_block, smem_reserved_per_block, 0, 64 * KB, "B"),
    F_INT("smem", smem_alloc_unit, smem_alloc_unit, 1, 64 * KB, "B"),
    F_LIST("smem", carveouts, carveouts, carveout_count, 0, 16 * MB, "B"),
    F_INT("smem", l1_smem_bytes, l1_smem_bytes, 0, 16 * MB, "B"),
    F_INT("smem", smem_banks, smem_banks, 1, 64, "banks"),
    F_INT("smem", smem_bank_bytes, smem_bank_bytes, 1, 16, "B"),

    F_INT("memory", l2_bytes, l2_bytes, 64 * KB, 1024 * MB, "B"),
    F_INT("memory", l2_partitions, l2_partitions, 1, 8, ""),
    F_INT("memory", l2_write_copies, l2_write_copies, 1, 2, "lines per written line"),
    F_INT("memory", line_bytes, line_bytes, 32, 256, "B"),
    F_INT("memory", sector_bytes, sector_bytes, 8, 256, "B"),
    F_INT("memory", mem_bus_bits, mem_bus_bits, 32, 16384, "bits"),

    F_INT("latency", alu, lat_alu, 1, 100000, "cycles"),
    F_INT("latency", fma, lat_fma, 1, 100000, "cycles"),
    F_INT("latency", imad, lat_imad, 1, 100000, "cycles"),
    F_INT("latency", fp64, lat_fp64, 1, 100000, "cycles"),
    F_INT("latency", mma16816, lat_mma16816, 1, 100000, "cycles"),
    F_INT("latency", mma1688, lat_mma1688, 1, 100000, "cycles"),
    F_INT("latency", sfu, lat_sfu, 1, 100000, "cycles"),
    F_INT("latency", shfl, lat_shfl, 1, 100000, "cycles"),
    F_INT("latency", ldc, lat_ldc, 1, 100000, "cycles"),
    F_INT("latency", ldc_first, lat_ldc_first, 1, 100000, "cycles"),
    F_INT("latency", smem, lat_smem, 1, 100000, "cycles"),
    F_INT("latency", smem_conflict, lat_smem_conflict, 0, 100000, "cycles per extra way"),
    F_INT("latency", l1_hit, lat_l1_hit, 1, 100000, "cycles"),
    F_INT("latency", l2_near, lat_l2_near, 1, 100000, "cycles"),
    F_INT("latency", l2_far, lat_l2_far, 1, 100000, "cycles"),
    F_INT("latency", dram, lat_dram, 1, 100000, "cycles"),
    F_INT("latency", atomic_global, lat_atomic_global, 1, 100000, "cycles"),
    F_INT("latency", barrier, lat_barrier, 0, 100000, "cycles"),
    F_INT("latency", barrier_per_warp, lat_barrier_per_warp, 0, 100000, "cycles per warp"),
    F_INT("latency", its_sync, lat_its_sync, 0, 100000, "cycles"),
    F_INT("latency", block_launch, lat_block_launch, 0, 1000000, "cycles"),
    F_INT("latency", kernel_launch, lat_kernel_launch, 0, 10000000, "cycles"),

    F_INT("pipes", alu, issue_alu, 1, 1024, "cycles per warp instruction"),
    F_INT("pipes", fma, issue_fma, 1, 1024, "cycles per warp instruction"),
    F_INT("pipes", fp64, issue_fp64, 1, 1024, "cycles per warp instruction"),
    F_INT("pipes", mma16816, issue_mma16816, 1, 1024, "cycles per warp instruction"),
    F_INT("pipes", mma1688, issue_mma1688, 1, 1024, "cycles per warp instruction"),
    F_INT("pipes", sfu, issue_sfu, 1, 1024, "cycles per warp instruction"),
    F_INT("pipes", lsu, issue_lsu, 1, 1024, "cycles per warp instruction"),
    F_INT("pipes", its_sync, issue_its_sync, 0, 100000, "cycles per divergent __syncwarp"),
    /* at most 16: the timing model's queue rings (TIMING_QUEUE_RING) */
    F_INT("pipes", lsu_queue_depth, lsu_queue_depth, 1, 16, "instructions"),
    F_INT("pipes", mio_queue_depth, mio_queue_depth, 1, 16, "instructions"),
    F_INT("pipes", fma_heavy_lite, fma_heavy_lite, 0, 1, "(1: FMA-heavy + FMA-lite halves)"),
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static const char *const sections[] = {"gpu", "sm", "smem", "memory", "latency", "pipes"};
#define NSECTIONS (sizeof sections / sizeof sections[0])

/* Parsing state shared by the line reader and the inih handler. */
typedef struct {
    ini_file src;               /* the file, the line being handled, the first error */
    int field_line[NFIELDS];    /* where each key was set; 0 = not yet */
    int section_line[NSECTIONS];
    arch_t *out;
} load_ctx;

static void *field_ptr(arch_t *a, const arch_field *fd)
{
    return (char *)a + fd->offset;
}

/* The handlers' error: the first one is kept, at the line being handled (inifile.h). */
#define fail(c, ...) ini_file_fail(&(c)->src, __VA_ARGS__)

/* inih's reader (ini_file_reader: counts lines, for the errors), noting where each known
 * section's header is, so a missing key can point at its section. */
static char *reader(char *str, int num, void *stream)
{
    load_ctx *c = stream;
    char *r = ini_file_reader(str, num, &c->src);
    if (!r || c->src.header_line != c->src.line)
        return r;
    const char *p = str;
    while (isspace((unsigned char)*p))
        p++;
    for (size_t i = 0; i < NSECTIONS; i++) {
        size_t len = strlen(sections[i]);
        if (!strncmp(p + 1, sections[i], len) && p[1 + len] == ']')
            c->section_line[i] = c->src.line;
    }
    return str;
}

/* One number: decimal integer or real, optional K/M suffix; must be entirely consumed. */
static int parse_number(const char *s, int want_int, double *v)
{
    char *end;
    errno = 0;
    double x = want_int ? (double)strtoll(s, &end, 10) : strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(x))
        return 0;
    if (*end == 'K' || *end == 'M') {
        x *= *end == 'K' ? KB : MB;
        end++;
    }
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return 0;
    *v = x;
    return 1;
}

static int set_number(load_ctx *c, const arch_field *fd, const char *sec, const char *key,
                      const char *tok, void *dst)
{
    double v;
    if (!parse_number(tok, fd->kind != K_DOUBLE, &v))
        return fail(c, "[%s] %s: '%s' is not a number", sec, key, tok);
    if (v < fd->min || v > fd->max)
        return fail(c, "[%s] %s: %s is out of range [%.15g, %.15g]", sec, key, tok, fd->min,
                    fd->max);
    if (fd->kind == K_DOUBLE)
        *(double *)dst = v;
    else
        *(int *)dst = (int)v;
    return 1;
}

static int set_list(load_ctx *c, const arch_field *fd, const char *sec, const char *key,
                    const char *value)
{
    int *vals = field_ptr(c->out, fd);
    int *count = (int *)((char *)c->out + fd->aux);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", value);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        if (n == fd->cap)
            return fail(c, "[%s] %s: more than %d values", sec, key, fd->cap);
        double v;
        if (!parse_number(tok, 1, &v))
            return fail(c, "[%s] %s: '%s' is not a number", sec, key, tok);
        if (v < fd->min || v > fd->max)
            return fail(c, "[%s] %s: %s is out of range [%.15g, %.15g]", sec, key, tok, fd->min,
                        fd->max);
        vals[n++] = (int)v;
    }
    if (n == 0)
        return fail(c, "[%s] %s: empty list", sec, key);
    *count = n;
    return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    load_ctx *c = user;
    if (c->src.failed)
        return 0;
    int known_section = 0;
    for (size_t i = 0; i < NSECTIONS; i++)
        known_section |= !strcmp(section, sections[i]);
    if (!*section)
        return fail(c, "key '%s' before any [section]", name);
    if (!known_section) {
        c->src.line = c->src.header_line; /* point at the header, not its first key */
        return fail(c, "unknown section [%s]", section);
    }
    const arch_field *fd = NULL;
    size_t idx = 0;
    for (; idx < NFIELDS; idx++)
        if (!strcmp(fields[idx].section, section) && !strcmp(fields[idx].key, name)) {
            fd = &fields[idx];
            break;
        }
    if (!fd)
        return fail(c, "[%s] unknown key '%s'", section, name);
    if (c->field_line[idx])
        return fail(c, "[%s] %s: given twice (first on line %d; an indented line continues "
                       "the key above)", section, name, c->field_line[idx]);
    c->field_line[idx] = c->src.line;
    void *dst = field_ptr(c->out, fd);
    switch (fd->kind) {
    case K_STR:
        if (!*value || strlen(value) >= fd->aux)
            return fail(c, "[%s] %s: '%s' is empty or too long", section, name, value);
        memcpy(dst, value, strlen(value) + 1);
        return 1;
    case K_CC: {
        int maj, min, used = 0;
        if (sscanf(value, "%d.%d%n", &maj, &min, &used) != 2 || value[used] || min < 0 ||
            min > 9 || maj < (int)fd->min || maj > (int)fd->max)
            return fail(c, "[%s] %s: '%s' is not a compute capability from 3.0 to 12.9", section,
                        name, value);
        c->out->cc_major = maj;
        c->out->cc_minor = min;
        snprintf(c->out->sm_target, sizeof c->out->sm_target, "sm_%d%d", maj, min);
        return 1;
    }
    case K_LIST:
        return set_list(c, fd, section, name, value);
    case K_INT:
    case K_DOUBLE:
        return set_number(c, fd, section, name, value, dst);
    }
    return 0;
}

/* Relations between keys; each error points at the line of the key named. */
static wl_status check_consistency(load_ctx *c, const char *stem)
{
    const arch_t *a = c->out;
    struct {
        int bad;
        const char *key;
        char msg[200];
    } checks[8];
    int n = 0;
#define CHECK(cond, k, ...)                                                                   \
    do {                                                                                      \
        checks[n].bad = !(cond);                                                              \
        checks[n].key = k;                                                                    \
        snprintf(checks[n].msg, sizeof checks[n].msg, __VA_ARGS__);                           \
        n++;                                                                                  \
    } while (0)
    int sum = 0;
    for (int i = 0; i < a->gpc_count; i++)
        sum += a->gpc_sms[i];
    CHECK(!strcmp(a->name, stem), "name", "name '%s' differs from the file name '%s'", a->name,
          stem);
    CHECK(sum == a->sm_count, "gpc_sms", "the GPCs hold %d SMs but sm_count is %d", sum,
          a->sm_count);
    CHECK(a->max_threads_per_sm == a->max_warps_per_sm * a->warp_size, "max_threads_per_sm",
          "%d threads is not max_warps_per_sm (%d) x warp_size (%d)", a->max_threads_per_sm,
          a->max_warps_per_sm, a->warp_size);
    CHECK(a->smem_per_block_optin + a->smem_reserved_per_block <= a->smem_per_sm_max &&
              a->smem_per_block_default <= a->smem_per_block_optin,
          "smem_per_block_optin",
          "opt-in %d + reserved %d must fit in smem_per_sm_max %d and be >= the default %d",
          a->smem_per_block_optin, a->smem_reserved_per_block, a->smem_per_sm_max,
          a->smem_per_block_default);
    int asc = 1;
    for (int i = 1; i < a->carveout_count; i++)
        asc &= a->carveouts[i] > a->carveouts[i - 1];
    CHECK(asc && a->carveouts[a->carveout_count - 1] == a->smem_per_sm_max, "carveouts",
          "carveout sizes must ascend and end at smem_per_sm_max (%d)", a->smem_per_sm_max);
    CHECK(!strcmp(a->sched_policy, "lrr") || !strcmp(a->sched_policy, "gto") ||
              !strcmp(a->sched_policy, "gty") || !strcmp(a->sched_policy, "brr") ||
              !strcmp(a->sched_policy, "two-level"),
          "sched_policy", "sched_policy '%s' is not one of lrr, gto, gty, brr, two-level",
          a->sched_policy);
    CHECK(a->max_warps_per_sm % a->sub_partitions == 0, "sub_partitions",
          "max_warps_per_sm %d is not a multiple of sub_partitions %d", a->max_warps_per_sm,
          a->sub_partitions);
#undef CHECK
    for (int i = 0; i < n; i++) {
        if (!checks[i].bad)
            continue;
        int line = 0;
        for (size_t k = 0; k < NFIELDS; k++)
            if (!strcmp(fields[k].key, checks[i].key))
                line = line ? line : c->field_line[k];
        return diag_set(c->src.d, WL_EUSAGE, c->src.path, line, 0, "%s: %s", checks[i].key,
                        checks[i].msg);
    }
    return WL_OK;
}

static void file_stem(const char *path, char *stem, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(stem, size, "%s", base);
    char *dot = strrchr(stem, '.');
    if (dot && !strcmp(dot, ".ini"))
        *dot = '\0';
}

wl_status arch_load_file(const char *path, arch_t *out, diag_t *d)
{
    load_ctx c;
    memset(&c, 0, sizeof c);
    memset(out, 0, sizeof *out);
    c.src.path = path;
    c.out = out;
    c.src.d = d;
    c.src.f = fopen(path, "r");
    if (!c.src.f)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "cannot read arch file: %s", strerror(errno));
    int rc = ini_parse_stream(reader, &c, handler, &c);
    fclose(c.src.f);
    if (c.src.failed)
        return d->status;
    if (rc != 0)
        return diag_set(d, WL_EUSAGE, path, rc > 0 ? rc : 0, 0,
                        "malformed line (expected [section] or key = value)");
    for (size_t i = 0; i < NFIELDS; i++) {
        if (c.field_line[i])
            continue;
        int sec_line = 0;
        for (size_t s = 0; s < NSECTIONS; s++)
            if (!strcmp(sections[s], fields[i].section))
                sec_line = c.section_line[s];
        if (!sec_line)
            return diag_set(d, WL_EUSAGE, path, 0, 0, "missing section [%s] (first key: %s)",
                            fields[i].section, fields[i].key);
        return diag_set(d, WL_EUSAGE, path, sec_line, 0, "[%s] missing key '%s'",
                        fields[i].section, fields[i].key);
    }
    char stem[ARCH_NAME_MAX + 8];
    file_stem(path, stem, sizeof stem);
    return check_consistency(&c, stem);
}

static int cmp_names(const void *x, const void *y)
{
    return strcmp(x, y);
}

int arch_list(const char *arch_dir, char names[][ARCH_NAME_MAX], int max)
{
    DIR *dir = opendir(arch_dir);
    if (!dir)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && n < max) {
        size_t len = strlen(e->d_name);
        if (len > 4 && len - 4 < ARCH_NAME_MAX && !strcmp(e->d_name + len - 4, ".ini") &&
            e->d_name[0] != '.') {
            memcpy(names[n], e->d_name, len - 4);
            names[n][len - 4] = '\0';
            n++;
        }
    }
    closedir(dir);
    qsort(names, (size_t)n, sizeof names[0], cmp_names);
    return n;
}

wl_status arch_load(const char *arch_dir, const char *name, arch_t *out, diag_t *d)
{
    char names[64][ARCH_NAME_MAX];
    int n = arch_list(arch_dir, names, 64);
    if (n < 0)
        return diag_set(d, WL_EUSAGE, arch_dir, 0, 0, "cannot read the arch directory");
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i], name))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.ini", arch_dir, name);
        return arch_load_file(path, out, d);
    }
    char avail[1024] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof avail; i++)
        used += (size_t)snprintf(avail + used, sizeof avail - used, "%s%s", i ? ", " : "",
                                 names[i]);
    return diag_set(d, WL_EUSAGE, NULL, 0, 0, "unknown arch '%s' (available: %s)", name,
                    n ? avail : "none");
}

/* Bytes as "233472 B (228 KB)" when a whole number of KB or MB. */
static void print_bytes(FILE *f, long long v)
{
    if (v >= MB && v % (1024 * 1024) == 0)
        fprintf(f, "%lld B (%lld MB)", v, v / (1024 * 1024));
    else if (v >= KB && v % 1024 == 0)
        fprintf(f, "%lld B (%lld KB)", v, v / 1024);
    else
        fprintf(f, "%lld B", v);
}

void arch_print(const arch_t *a, FILE *f)
{
    fprintf(f, "%s (%s), compute capability %d.%d, ptxas target %s\n", a->name, a->full_name,
            a->cc_major, a->cc_minor, a->sm_target);
    const char *cur = "";
    for (size_t i = 0; i < NFIELDS; i++) {
        const arch_field *fd = &fields[i];
        if (strcmp(cur, fd->section)) {
            cur = fd->section;
            fprintf(f, "\n[%s]\n", cur);
        }
        const void *p = (const char *)a + fd->offset;
        fprintf(f, "  %-24s ", fd->key);
        switch (fd->kind) {
        case K_STR:
            fprintf(f, "%s", (const char *)p);
            break;
        case K_CC:
            fprintf(f, "%d.%d", a->cc_major, a->cc_minor);
            break;
        case K_DOUBLE:
            fprintf(f, "%.1f %s", *(const double *)p, fd->unit);
            break;
        case K_INT:
            if (!strcmp(fd->unit, "B"))
                print_bytes(f, *(const int *)p);
            else
                fprintf(f, "%d %s", *(const int *)p, fd->unit);
            break;
        case K_LIST: {
            const int *v = p;
            int cnt = *(const int *)((const char *)a + fd->aux);
            for (int k = 0; k < cnt; k++)
                if (!strcmp(fd->unit, "B"))
                    fprintf(f, "%s%d", k ? ", " : "", v[k] / 1024);
                else
                    fprintf(f, "%s%d", k ? ", " : "", v[k]);
            fprintf(f, " %s", !strcmp(fd->unit, "B") ? "KB" : fd->unit);
            break;
        }
        }
        fputc('\n', f);
    }
}

void arch_print_summary(const arch_t *a, FILE *f)
{
    fprintf(f, "%-10s cc %d.%d  %4d SMs  %4d MHz  %s\n", a->name, a->cc_major, a->cc_minor,
            a->sm_count, a->sm_clock_mhz, a->full_name);
}
