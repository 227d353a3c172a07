/* lesson: lesson-file reader and claim expressions. See lesson.h for the format.
 *
 * The file is read with inih through a line reader of our own, so that every key knows its
 * line (the library's handler gets none), over-long lines are an error instead of being split,
 * and an indented line that continues a value can be told from a repeated key. */
#include "lesson.h"
#include "fileio.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "arch.h"

/* Metric names a claim may use after EXPERIMENT. (validated when the file is read, so a typo
 * is a line-numbered error, not a silently failing check). Run metrics are warplab run --json's
 * keys (DESIGN.md); occupancy metrics are warplab occupancy --json's. */
static const char *const run_keys[] = {
    "regs", "blocks_per_sm", "warps_per_sm", "theoretical_occupancy", "achieved_occupancy",
    "cycles", "time_us", "warp_instructions", "thread_instructions", "ipc", "stalls",
    "stall_share", "shared_bank_conflicts", "branches", "divergent_branches",
    "branch_efficiency", "avg_active_lanes", "l1_hit_rate", "l2_hit_rate", "dram_bytes",
    "global_load_requests", "global_load_sectors", "static_smem", "blocks", "opcodes", "h200",
    "same_output", NULL};
static const char *const occ_keys[] = {"blocks_per_sm", "warps_per_sm", "occupancy", "limiter",
                                       "warps_per_block", "regs_per_block", "smem_per_block",
                                       "h200", NULL};
/* arch metrics: fields of arch_t (arch.h), plus tpc_count = sm_count / sms_per_tpc. */
#define ARCH_INT(f) {#f, offsetof(arch_t, f), 0}
static const struct {
    const char *name;
    size_t off;
    int is_double;
} arch_fields[] = {
    ARCH_INT(sm_count), ARCH_INT(gpc_count), ARCH_INT(sms_per_tpc), ARCH_INT(sm_clock_mhz),
    ARCH_INT(sub_partitions), ARCH_INT(warp_size), ARCH_INT(max_warps_per_sm),
    ARCH_INT(max_threads_per_sm), ARCH_INT(max_blocks_per_sm), ARCH_INT(max_threads_per_block),
    ARCH_INT(regs_per_sm), ARCH_INT(max_regs_per_thread), ARCH_INT(issue_per_cycle),
    ARCH_INT(smem_per_sm_max), ARCH_INT(smem_banks), ARCH_INT(smem_bank_bytes),
    ARCH_INT(l2_bytes), ARCH_INT(lat_fma), ARCH_INT(lat_dram), ARCH_INT(lat_smem),
    {"dram_bandwidth_gbs", offsetof(arch_t, dram_bandwidth_gbs), 1},
    {"tpc_count", 0, 2},
};

int lesson_arch_metric(const arch_t *a, const char *key, double *v)
{
    for (size_t i = 0; i < sizeof arch_fields / sizeof arch_fields[0]; i++) {
        if (strcmp(arch_fields[i].name, key))
            continue;
        if (!a)
            return 1;
        const char *base = (const char *)a + arch_fields[i].off;
        if (arch_fields[i].is_double == 2)
            *v = a->sms_per_tpc ? (double)(a->sm_count / a->sms_per_tpc) : 0;
        else if (arch_fields[i].is_double)
            memcpy(v, base, sizeof(double));
        else {
            int x;
            memcpy(&x, base, sizeof x);
            *v = x;
        }
        return 1;
    }
    return 0;
}

/* Nsight Compute's warp-state names (DESIGN.md "Stall reasons"). */
static const char *const stall_names[] = {
    "selected", "not_selected", "long_scoreboard", "short_scoreboard", "wait", "barrier",
    "membar", "mio_throttle", "lg_throttle", "math_pipe_throttle", "dispatch_stall",
    "no_instruction", "branch_resolving", "drain", "sleeping", "misc", NULL};

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strcmp(*list, s))
            return 1;
    return 0;
}

const char *lesson_req_str(lesson_req r)
{
    return r == LESSON_REQ_TIMING ? "timing" : r == LESSON_REQ_MEASURED ? "measured" : "none";
}

/* ---- the file ---- */

const lesson_run *lesson_find_run(const lesson_t *l, const char *name)
{
    for (int i = 0; i < l->nruns; i++)
        if (!strcmp(l->runs[i].name, name))
            return &l->runs[i];
    return NULL;
}

const lesson_occ *lesson_find_occ(const lesson_t *l, const char *name)
{
    for (int i = 0; i < l->noccs; i++)
        if (!strcmp(l->occs[i].name, name))
            return &l->occs[i];
    return NULL;
}

const lesson_archref *lesson_find_arch(const lesson_t *l, const char *name)
{
    for (int i = 0; i < l->narchs; i++)
        if (!strcmp(l->archs[i].name, name))
            return &l->archs[i];
    return NULL;
}

lesson_exp_kind lesson_kind_of(const lesson_t *l, const char *name)
{
    if (lesson_find_run(l, name))
        return LESSON_EXP_RUN;
    if (lesson_find_occ(l, name))
        return LESSON_EXP_OCC;
    if (lesson_find_arch(l, name))
        return LESSON_EXP_ARCH;
    return !strcmp(name, "student") ? LESSON_EXP_STUDENT : LESSON_EXP_NONE;
}

typedef struct {
    const char *text;
    size_t len, pos;
    int line;          /* line of the text inih is parsing now */
    int indented;      /* that line starts with a blank (a continuation) */
    int header;        /* a [section] line was read since the last key */
    int header_line;   /* its line */
    int too_long;      /* line number of an over-long line, or 0 */
    int nul;           /* line number holding a NUL byte, or 0 */
} reader_ctx;

static char *reader(char *str, int num, void *stream)
{
    reader_ctx *r = stream;
    if (r->pos >= r->len || num < 2)
        return NULL;
    r->line++;
    r->indented = r->text[r->pos] == ' ' || r->text[r->pos] == '\t';
    size_t k = r->pos;
    while (k < r->len && (r->text[k] == ' ' || r->text[k] == '\t'))
        k++;
    if (k < r->len && r->text[k] == '[') {
        r->header = 1; /* a section starts here, even if it repeats the previous name */
        r->header_line = r->line;
    }
    size_t n = 0;
    while (r->pos < r->len) {
        char ch = r->text[r->pos++];
        if (ch == '\0') {
            r->nul = r->line;
            return NULL;
        }
        if ((int)n >= num - 2 && ch != '\n') {
            r->too_long = r->line;
            return NULL;
        }
        str[n++] = ch;
        if (ch == '\n')
            break;
    }
    str[n] = '\0';
    return str;
}

typedef enum { SEC_NONE, SEC_LESSON, SEC_RUN, SEC_OCC, SEC_ARCH, SEC_CHECK, SEC_EXERCISE } sec_kind;

typedef struct {
    lesson_t *l;
    reader_ctx *rd;
    diag_t *d;
    wl_status st;
    char cur_section[80];
    sec_kind kind;
    void *entry;              /* the run/occ/arch/check being filled */
    char last_key[64];        /* for continuation lines */
    char seen[32][64];        /* keys seen in the current section */
    int nseen;
    int has_lesson;
    int err_line;             /* when set, errors name this line instead of the current one */
} parse_ctx;

static int perr(parse_ctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(parse_ctx *p, const char *fmt, ...)
{
    if (p->st == WL_OK) {
        va_list ap;
        va_start(ap, fmt);
        p->st = diag_vset(p->d, WL_EUSAGE, p->l->path, p->err_line ? p->err_line : p->rd->line,
                          0, fmt, ap);
        va_end(ap);
    }
    return 0;
}

static int valid_ident(const char *s)
{
    if (!*s || strlen(s) >= LESSON_NAME_MAX || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* Stores value into dst (size n); appends with a blank for a continuation line. */
static int put_text(parse_ctx *p, char *dst, size_t n, const char *value, int append)
{
    size_t used = append ? strlen(dst) : 0;
    size_t need = used + (append ? 1 : 0) + strlen(value);
    if (need >= n)
        return perr(p, "value of '%s' too long (at most %zu bytes)", p->last_key, n - 1);
    if (append)
        dst[used++] = ' ';
    strcpy(dst + used, value);
    return 1;
}

static int put_long(parse_ctx *p, const char *key, const char *value, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || *end || errno || v < lo || v > hi) {
        char range[64];
        snprintf(range, sizeof range, "an integer in %ld..%ld", lo, hi);
        return perr(p, "'%s' must be %s", key, range);
    }
    *out = v;
    return 1;
}

static int put_int(parse_ctx *p, const char *key, const char *value, long lo, long hi, int *out)
{
    long v = 0;
    if (!put_long(p, key, value, lo, hi, &v))
        return 0;
    *out = (int)v;
    return 1;
}

static int unknown_section(parse_ctx *p, const char *section)
{
    return perr(p, "unknown section [%s] (lesson, run.NAME, occupancy.NAME, arch.NAME, "
                   "check.NAME, exercise, goal.NAME)", section);
}

static int new_section(parse_ctx *p, const char *section)
{
    lesson_t *l = p->l;
    snprintf(p->cur_section, sizeof p->cur_section, "%s", section);
    p->nseen = 0;
    p->last_key[0] = '\0';
    p->entry = NULL;
    if (!strcmp(section, "lesson")) {
        if (p->has_lesson)
            return perr(p, "section [%s] appears twice", section);
        p->has_lesson = 1;
        p->kind = SEC_LESSON;
        return 1;
    }
    if (!strcmp(section, "exercise")) {
        if (l->has_exercise)
            return perr(p, "section [%s] appears twice", section);
        l->has_exercise = 1;
        p->kind = SEC_EXERCISE;
        return 1;
    }
    const char *dot = strchr(section, '.');
    if (!dot)
        return unknown_section(p, section);
    size_t plen = (size_t)(dot - section);
    const char *name = dot + 1;
    if (!valid_ident(name))
        return perr(p, "bad name '%s' in [%s] (letters, digits, _; at most 31)", name, section);
    int is_check = (plen == 5 && !strncmp(section, "check", 5)) ||
                   (plen == 4 && !strncmp(section, "goal", 4));
    /* experiments share one namespace; checks and goals have their own */
    if (!is_check && (lesson_kind_of(l, name) != LESSON_EXP_NONE || !strcmp(name, "h200")))
        return perr(p, "experiment name '%s' is already used or reserved", name);
    if (plen == 3 && !strncmp(section, "run", 3)) {
        if (l->nruns >= LESSON_MAX_RUNS)
            return perr(p, "too many [run.*] sections");
        lesson_run *r = &l->runs[l->nruns++];
        snprintf(r->name, sizeof r->name, "%s", name);
        r->smem = -1;
        r->line = p->rd->line;
        p->entry = r;
        p->kind = SEC_RUN;
    } else if (plen == 9 && !strncmp(section, "occupancy", 9)) {
        if (l->noccs >= LESSON_MAX_OCCS)
            return perr(p, "too many [occupancy.*] sections");
        lesson_occ *o = &l->occs[l->noccs++];
        snprintf(o->name, sizeof o->name, "%s", name);
        o->carveout = -1;
        o->line = p->rd->line;
        p->entry = o;
        p->kind = SEC_OCC;
    } else if (plen == 4 && !strncmp(section, "arch", 4)) {
        if (l->narchs >= LESSON_MAX_ARCHS)
            return perr(p, "too many [arch.*] sections");
        lesson_archref *a = &l->archs[l->narchs++];
        snprintf(a->name, sizeof a->name, "%s", name);
        a->line = p->rd->line;
        p->entry = a;
        p->kind = SEC_ARCH;
    } else if (is_check) {
        for (int i = 0; i < l->nchecks; i++)
            if (!strcmp(l->checks[i].name, name))
                return perr(p, "check name '%s' is used twice", name);
        if (l->nchecks >= LESSON_MAX_CHECKS)
            return perr(p, "too many checks and goals");
        lesson_check *c = &l->checks[l->nchecks++];
        snprintf(c->name, sizeof c->name, "%s", name);
        c->is_goal = plen == 4;
        c->x.lhs = c->x.rhs = -1;
        c->line = p->rd->line;
        p->entry = c;
        p->kind = SEC_CHECK;
    } else {
        return unknown_section(p, section);
    }
    return 1;
}

#define TEXT(dst) put_text(p, (dst), sizeof(dst), value, append)

static int set_lesson(parse_ctx *p, const char *k, const char *value, int append)
{
    lesson_t *l = p->l;
    if (!strcmp(k, "number")) return put_int(p, k, value, 1, 99, &l->number);
    if (!strcmp(k, "topic")) return put_int(p, k, value, 1, 11, &l->topic);
    if (!strcmp(k, "title")) return TEXT(l->title);
    if (!strcmp(k, "title_zh")) return TEXT(l->title_zh);
    if (!strcmp(k, "takeaway")) return TEXT(l->takeaway);
    if (!strcmp(k, "takeaway_zh")) return TEXT(l->takeaway_zh);
    if (!strcmp(k, "arch")) return TEXT(l->arch);
    if (!strcmp(k, "view")) return TEXT(l->view_run);
    if (!strcmp(k, "view_kind")) return TEXT(l->view_kind);
    return -1;
}

static int set_run(parse_ctx *p, lesson_run *r, const char *k, const char *value, int append)
{
    if (!strcmp(k, "case")) return TEXT(r->case_name);
    if (!strcmp(k, "ptx")) return TEXT(r->ptx);
    if (!strcmp(k, "kernel")) return TEXT(r->kernel);
    if (!strcmp(k, "grid")) return TEXT(r->grid);
    if (!strcmp(k, "block")) return TEXT(r->block);
    if (!strcmp(k, "args")) return TEXT(r->args);
    if (!strcmp(k, "measured")) return TEXT(r->measured);
    if (!strcmp(k, "label")) return TEXT(r->label);
    if (!strcmp(k, "label_zh")) return TEXT(r->label_zh);
    if (!strcmp(k, "smem")) return put_long(p, k, value, 0, 1L << 20, &r->smem);
    if (!strcmp(k, "regs")) return put_int(p, k, value, 1, 255, &r->regs);
    return -1;
}

static int set_occ(parse_ctx *p, lesson_occ *o, const char *k, const char *value, int append)
{
    if (!strcmp(k, "block")) return put_int(p, k, value, 1, 1024, &o->block);
    if (!strcmp(k, "regs")) return put_int(p, k, value, 1, 255, &o->regs);
    if (!strcmp(k, "smem")) return put_long(p, k, value, 0, 1L << 20, &o->smem);
    if (!strcmp(k, "carveout")) return put_int(p, k, value, -1, 100, &o->carveout);
    if (!strcmp(k, "label")) return TEXT(o->label);
    if (!strcmp(k, "label_zh")) return TEXT(o->label_zh);
    if (!strcmp(k, "measured")) {
        if (strcmp(value, "yes") && strcmp(value, "no"))
            return perr(p, "'%s' must be yes or no", k);
        o->measured = !strcmp(value, "yes");
        return 1;
    }
    return -1;
}

static int set_check(parse_ctx *p, lesson_check *c, const char *k, const char *value, int append)
{
    if (!strcmp(k, "expect")) {
        c->line = p->rd->line; /* later errors about the claim point at it */
        if (append)
            return perr(p, "a claim must fit on one line");
        return lesson_expr_parse(value, p->l->path, p->rd->line, &c->x, p->d) == WL_OK
                   ? 1
                   : (p->st = WL_EUSAGE, 0);
    }
    if (!strcmp(k, "tolerance")) {
        char *end;
        double t = strtod(value, &end);
        if (end == value || *end || !(t >= 0 && t <= 10))
            return perr(p, "'%s' must be a number in 0..10 (a fraction: 0.1 = 10%%)", k);
        c->tolerance = t;
        return 1;
    }
    if (!strcmp(k, "why")) return TEXT(c->why);
    if (!strcmp(k, "why_zh")) return TEXT(c->why_zh);
    if (!strcmp(k, "requires")) {
        if (!strcmp(value, "timing"))
            c->requires = LESSON_REQ_TIMING;
        else if (!strcmp(value, "measured"))
            c->requires = LESSON_REQ_MEASURED;
        else
            return perr(p, "'requires' must be timing or measured, not '%s'", value);
        return 1;
    }
    return -1;
}

static int set_exercise(parse_ctx *p, const char *k, const char *value, int append)
{
    lesson_t *l = p->l;
    if (!strcmp(k, "task")) return TEXT(l->task);
    if (!strcmp(k, "task_zh")) return TEXT(l->task_zh);
    if (!strcmp(k, "kernel")) return TEXT(l->ex_kernel);
    if (!strcmp(k, "run")) return TEXT(l->ex_run);
    if (!strcmp(k, "entry")) return TEXT(l->ex_entry);
    return -1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    parse_ctx *p = user;
    if (p->st != WL_OK)
        return 0;
    if (p->rd->header || strcmp(section, p->cur_section)) {
        p->rd->header = 0;
        p->err_line = p->rd->header_line; /* section errors name the [section] line */
        int ok = new_section(p, section);
        p->err_line = 0;
        if (!ok)
            return 0;
    }
    int append = p->rd->indented && !strcmp(name, p->last_key);
    if (!append) {
        for (int i = 0; i < p->nseen; i++)
            if (!strcmp(p->seen[i], name))
                return perr(p, "key '%s' given twice in [%s]", name, section);
        if (p->nseen < 32)
            snprintf(p->seen[p->nseen++], sizeof p->seen[0], "%s", name);
        snprintf(p->last_key, sizeof p->last_key, "%s", name);
    }
    int r = -1;
    switch (p->kind) {
    case SEC_LESSON: r = set_lesson(p, name, value, append); break;
    case SEC_RUN: r = set_run(p, p->entry, name, value, append); break;
    case SEC_OCC: r = set_occ(p, p->entry, name, value, append); break;
    case SEC_ARCH:
        if (!strcmp(name, "name")) r = put_text(p, ((lesson_archref *)p->entry)->arch, 32, value, append);
        else if (!strcmp(name, "label")) r = TEXT(((lesson_archref *)p->entry)->label);
        else if (!strcmp(name, "label_zh")) r = TEXT(((lesson_archref *)p->entry)->label_zh);
        break;
    case SEC_CHECK: r = set_check(p, p->entry, name, value, append); break;
    case SEC_EXERCISE: r = set_exercise(p, name, value, append); break;
    default: break;
    }
    if (r < 0)
        return perr(p, "unknown key '%s' in [%s]", name, section);
    return r && p->st == WL_OK;
}

/* Checks one metric reference against the experiments and their known keys. */
static wl_status check_ref(const lesson_t *l, const lesson_check *c, const char *ref, diag_t *d)
{
    char exp[96], key[96], sub[96] = "";
    const char *dot = strchr(ref, '.');
    snprintf(exp, sizeof exp, "%.*s", (int)(dot - ref), ref);
    snprintf(key, sizeof key, "%s", dot + 1);
    char *dot2 = strchr(key, '.');
    if (dot2) {
        snprintf(sub, sizeof sub, "%s", dot2 + 1);
        *dot2 = '\0';
    }
    lesson_exp_kind k = lesson_kind_of(l, exp);
    const char *const *keys = k == LESSON_EXP_OCC ? occ_keys : run_keys;
    double dummy;
    if (k == LESSON_EXP_NONE || (k == LESSON_EXP_STUDENT && !c->is_goal))
        return diag_set(d, WL_EUSAGE, l->path, c->line, 0,
                        "check '%s': '%s' is not an experiment of this lesson", c->name, exp);
    if (k == LESSON_EXP_ARCH ? (sub[0] || !lesson_arch_metric(NULL, key, &dummy))
                             : !in_list(keys, key))
        return diag_set(d, WL_EUSAGE, l->path, c->line, 0, "check '%s': unknown metric '%s' of %s",
                        c->name, key, exp);
    int needs_sub = !strcmp(key, "stalls") || !strcmp(key, "stall_share") ||
                    !strcmp(key, "h200") || !strcmp(key, "opcodes");
    if (!strcmp(key, "same_output") && k != LESSON_EXP_STUDENT)
        return diag_set(d, WL_EUSAGE, l->path, c->line, 0,
                        "check '%s': same_output exists for student. only", c->name);
    if (needs_sub != (sub[0] != '\0'))
        return diag_set(d, WL_EUSAGE, l->path, c->line, 0, "check '%s': '%s' %s", c->name, ref,
                        needs_sub ? "needs a sub-key (stalls.barrier, opcodes.bar, h200.time_us)"
                                  : "has no sub-keys");
    if ((!strcmp(key, "stalls") || !strcmp(key, "stall_share")) && !in_list(stall_names, sub))
        return diag_set(d, WL_EUSAGE, l->path, c->line, 0,
                        "check '%s': unknown stall reason '%s' (Nsight Compute's names)", c->name,
                        sub);
    return WL_OK;
}

static wl_status validate(const lesson_t *l, diag_t *d)
{
    const char *path = l->path;
    if (!l->number || !l->title[0] || !l->title_zh[0] || !l->takeaway[0] ||
        !l->takeaway_zh[0] || !l->topic)
        return diag_set(d, WL_EUSAGE, path, 0, 0,
                        "[lesson] needs number, topic, title, title_zh, takeaway, takeaway_zh");
    if (l->view_run[0] && !lesson_find_run(l, l->view_run))
        return diag_set(d, WL_EUSAGE, path, 0, 0, "[lesson] view = %s: no [run.%s]", l->view_run,
                        l->view_run);
    for (int i = 0; i < l->nruns; i++) {
        const lesson_run *r = &l->runs[i];
        int spelled = r->ptx[0] || r->kernel[0] || r->grid[0] || r->block[0] || r->args[0];
        if (r->case_name[0] && (spelled || r->smem >= 0))
            return diag_set(d, WL_EUSAGE, path, r->line, 0,
                            "[run.%s]: give either case or ptx/kernel/grid/block/smem/args",
                            r->name);
        if (!r->case_name[0] && !(r->ptx[0] && r->kernel[0] && r->grid[0] && r->block[0]))
            return diag_set(d, WL_EUSAGE, path, r->line, 0,
                            "[run.%s]: needs case, or ptx, kernel, grid and block", r->name);
        if (!r->label[0] || !r->label_zh[0])
            return diag_set(d, WL_EUSAGE, path, r->line, 0, "[run.%s]: needs label and label_zh",
                            r->name);
    }
    for (int i = 0; i < l->noccs; i++)
        if (!l->occs[i].block || !l->occs[i].regs || !l->occs[i].label[0] ||
            !l->occs[i].label_zh[0])
            return diag_set(d, WL_EUSAGE, path, l->occs[i].line, 0,
                            "[occupancy.%s]: needs block, regs, label and label_zh",
                            l->occs[i].name);
    for (int i = 0; i < l->narchs; i++)
        if (!l->archs[i].arch[0] || !l->archs[i].label[0] || !l->archs[i].label_zh[0])
            return diag_set(d, WL_EUSAGE, path, l->archs[i].line, 0,
                            "[arch.%s]: needs name, label and label_zh", l->archs[i].name);
    int ngoals = 0;
    for (int i = 0; i < l->nchecks; i++) {
        const lesson_check *c = &l->checks[i];
        if (c->x.lhs < 0 || !c->why[0] || !c->why_zh[0])
            return diag_set(d, WL_EUSAGE, path, c->line, 0, "[%s.%s]: needs expect, why, why_zh",
                            c->is_goal ? "goal" : "check", c->name);
        for (int j = 0; j < c->x.nnodes; j++)
            if (c->x.nodes[j].kind == LESSON_N_REF && check_ref(l, c, c->x.nodes[j].text, d))
                return WL_EUSAGE;
        ngoals += c->is_goal;
    }
    if (ngoals && !l->has_exercise)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "[goal.*] sections need an [exercise]");
    if (l->has_exercise) {
        if (!l->task[0] || !l->task_zh[0] || !l->ex_kernel[0] || !l->ex_run[0] || !ngoals)
            return diag_set(d, WL_EUSAGE, path, 0, 0,
                            "[exercise] needs task, task_zh, kernel, run and at least one [goal.*]");
        if (!lesson_find_run(l, l->ex_run))
            return diag_set(d, WL_EUSAGE, path, 0, 0, "[exercise] run = %s: no [run.%s]",
                            l->ex_run, l->ex_run);
    }
    return WL_OK;
}

wl_status lesson_parse(const char *text, size_t len, const char *path, lesson_t *out, diag_t *d)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->arch, sizeof out->arch, "h200");
    snprintf(out->view_kind, sizeof out->view_kind, "sm");
    reader_ctx rd = {text, len, 0, 0, 0, 0, 0, 0, 0};
    parse_ctx p;
    memset(&p, 0, sizeof p);
    p.l = out;
    p.rd = &rd;
    p.d = d;
    int r = ini_parse_stream(reader, &rd, handler, &p);
    if (p.st != WL_OK)
        return p.st;
    if (rd.nul)
        return diag_set(d, WL_EUSAGE, path, rd.nul, 0, "NUL byte in the file");
    if (rd.too_long)
        return diag_set(d, WL_EUSAGE, path, rd.too_long, 0,
                        "line too long: continue the value on an indented next line");
    if (r > 0)
        return diag_set(d, WL_EUSAGE, path, r, 0,
                        "not an ini line ([section], key = value, or ; comment)");
    if (r < 0)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "cannot parse (out of memory)");
    return validate(out, d);
}

char *lesson_read_file(const char *path, size_t *len)
{
    return fio_read_file(path, (size_t)64 << 20, len);
}

wl_status lesson_load(const char *path, const char *label, lesson_t *out, diag_t *d)
{
    size_t n = 0;
    errno = 0;
    char *buf = lesson_read_file(path, &n);
    if (!buf)
        return diag_set(d, WL_EUSAGE, label ? label : path, 0, 0, "cannot read: %s",
                        errno ? strerror(errno) : "too large");
    wl_status st = lesson_parse(buf, n, label ? label : path, out, d);
    free(buf);
    return st;
}
