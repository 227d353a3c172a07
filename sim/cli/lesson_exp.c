/* lesson_exp: running a lesson's experiments and judging its claims (see lesson_exp.h).
 *
 * A metric that is null (not modelled yet) or a file that is absent (not measured yet) never
 * makes a claim pass: such a check is reported as not verified, with the lesson's `requires`
 * reason when it has one, and as a failure when it has none. */
#include "lesson_exp.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* ---------------------------------------------------------------- spawning ourselves */


void lexp_proc_free(lexp_proc *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

static int append_fd(int fd, char **buf, size_t *len, size_t *cap)
{
    char tmp[8192];
    ssize_t n = read(fd, tmp, sizeof tmp);
    if (n <= 0)
        return 0;
    if (*len + (size_t)n + 1 > *cap) {
        size_t nc = (*cap ? *cap * 2 : 16384);
        while (nc < *len + (size_t)n + 1)
            nc *= 2;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return 0;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, tmp, (size_t)n);
    *len += (size_t)n;
    (*buf)[*len] = '\0';
    return 1;
}

/* Runs argv (argv[0] a path, or a name looked up on PATH) and captures stdout and stderr. */
void lexp_proc_run(const char *const argv[], lexp_proc *r)
{
    int po[2], pe[2];
    r->status = -1;
    r->out = calloc(1, 1);
    r->err = calloc(1, 1);
    if (!r->out || !r->err || pipe(po) || pipe(pe))
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return;
    }
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        char *cargv[128];
        size_t n = 0;
        while (argv[n] && n < 127)
            n++;
        memcpy(cargv, argv, n * sizeof *cargv); /* execvp's prototype predates const */
        cargv[n] = NULL;
        execvp(cargv[0], cargv);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    size_t lo = 0, co = 1, le = 0, ce = 1;
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (!append_fd(fds[i].fd, i ? &r->err : &r->out, i ? &le : &lo, i ? &ce : &co)) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    int ws;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* The first line of a text, for one-line messages. */
const char *lexp_first_line(const char *s, char *buf, size_t n)
{
    size_t i = 0;
    while (s[i] && s[i] != '\n' && i + 1 < n) {
        buf[i] = s[i];
        i++;
    }
    buf[i] = '\0';
    return buf;
}

/* ---------------------------------------------------------------- lexp_session state */



const char *lexp_tr(const lexp_session *s, const char *en, const char *zh)
{
    return s->zh && zh && *zh ? zh : en;
}

/* The measured case a run names (measured =, else case =), "" for none. */
static const char *measured_case(const lesson_run *r)
{
    return r->measured[0] ? r->measured : r->case_name;
}

static int same_full_launch(const lesson_run *a, const lesson_run *b)
{
    return measured_case(a)[0] && !strcmp(measured_case(a), measured_case(b)) &&
           a->regs == b->regs;
}

/* Appends the launch of case `name` from `file` (gpu/cases-sim.txt, the small launches, or
 * gpu/cases.txt, the H200's) to av (tokens after the name; the PTX path made absolute;
 * --check pairs dropped). *store keeps the strings. */
static int case_argv(lexp_session *s, const char *file, const char *name,
                     const char *ptx_override, const char *kernel_override, const char **av,
                     int *ac, char *store, size_t cap, char *err, size_t errn)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", s->root, file);
    char *text = lesson_read_file(path, NULL);
    if (!text) {
        snprintf(err, errn, "cannot read %s", file);
        return -1;
    }
    size_t used = 0;
    int found = 0;
    for (char *line = strtok(text, "\n"); line && !found; line = strtok(NULL, "\n")) {
        char *save, *tok = strtok_r(line, " \t\r", &save);
        if (!tok || tok[0] == '#' || strcmp(tok, name))
            continue;
        found = 1;
        int idx = 0, skip = 0, next_is_kernel = 0;
        while ((tok = strtok_r(NULL, " \t\r", &save)) && *ac < 60) {
            const char *v = tok;
            char buf[1200];
            if (skip) {
                skip = 0;
                continue;
            }
            if (!strcmp(tok, "--check")) {
                skip = 1;
                continue;
            }
            if (idx++ == 0) {
                if (ptx_override)
                    v = ptx_override;
                else {
                    snprintf(buf, sizeof buf, "%s/%s", s->root, tok);
                    v = buf;
                }
            } else if (next_is_kernel && kernel_override) {
                v = kernel_override;
            }
            next_is_kernel = !strcmp(tok, "--kernel");
            size_t n = strlen(v) + 1;
            if (used + n > cap)
                break;
            memcpy(store + used, v, n);
            av[(*ac)++] = store + used;
            used += n;
        }
    }
    free(text);
    if (!found)
        snprintf(err, errn, "no case '%s' in %s", name, file);
    return found ? 0 : -1;
}

static void load_measured(lexp_session *s, const char *case_name, lexp_result *e)
{
    if (!case_name || !case_name[0])
        return;
    char path[1400];
    snprintf(path, sizeof path, "%s/gpu/measured/%s/%s.json", s->root, s->l->arch, case_name);
    char *t = lesson_read_file(path, NULL);
    if (t) {
        e->measured = cJSON_Parse(t);
        free(t);
    }
}

/* Runs `warplab SUBCOMMAND ... --json` (av[1] names it) and keeps its JSON object in e, or
 * why there is none in e->error. */
/* Keeps the first three distinct "warning: ..." texts of a run's stderr, without the
 * "warplab: FILE:LINE:COL: " prefix (FILE is a temporary copy; the source line is named). */
static void keep_warnings(const char *err, char *out, size_t n)
{
    size_t used = 0;
    int kept = 0;
    out[0] = '\0';
    for (const char *p = err; p && *p && kept < 3; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *w = strstr(p, "warning: ");
        const char *eol = strchr(p, '\n');
        if (!w || (eol && w > eol))
            continue;
        int len = (int)(eol ? (size_t)(eol - w) : strlen(w));
        char line[400];
        snprintf(line, sizeof line, "%.*s", len, w);
        if (strstr(out, line))
            continue;
        int k = snprintf(out + used, n - used, "%s\n", line);
        if (k < 0 || (size_t)k >= n - used)
            break;
        used += (size_t)k;
        kept++;
    }
}

static void run_json(const char *const av[], lexp_result *e)
{
    char buf[600];
    lexp_proc pr;
    lexp_proc_run(av, &pr);
    e->done = 1;
    e->status = pr.status;
    if (pr.status == 0)
        e->json = cJSON_Parse(pr.out);
    keep_warnings(pr.err, e->warnings, sizeof e->warnings);
    if (pr.status == 0 && !cJSON_IsObject(e->json))
        snprintf(e->error, sizeof e->error, "warplab %s printed no JSON object", av[1]);
    else if (pr.status)
        snprintf(e->error, sizeof e->error, "warplab %s exited %d: %.560s", av[1], pr.status,
                 lexp_first_line(pr.err, buf, sizeof buf));
    lexp_proc_free(&pr);
}

/* Runs one kernel launch of the lesson (or the student's version when student_ptx is set). */
void lexp_run(lexp_session *s, const lesson_run *r, lexp_result *e, const char *student_ptx,
              const char *trace, const char *dump)
{
    const char *av[80];
    char store[8192], buf[1400], smem[32], regs[16];
    int ac = 0;
    size_t used = 0;
    av[ac++] = s->self;
    av[ac++] = "run";
    const char *entry = student_ptx && s->l->ex_entry[0] ? s->l->ex_entry : NULL;
    if (r->regs && !student_ptx) {
        snprintf(regs, sizeof regs, "%d", r->regs);
        av[ac++] = "--regs";
        av[ac++] = regs;
    }
    const char *measured = measured_case(r);
    if (s->full && measured[0] && !student_ptx && !trace && !dump && !s->sanitize) {
        if (case_argv(s, "gpu/cases.txt", measured, NULL, NULL, av, &ac, store, sizeof store,
                      e->error, sizeof e->error))
            return;
    } else if (r->case_name[0]) {
        if (case_argv(s, "gpu/cases-sim.txt", r->case_name, student_ptx, entry, av, &ac, store,
                      sizeof store, e->error, sizeof e->error))
            return;
    } else {
        snprintf(buf, sizeof buf, "%s/%s", s->root, r->ptx);
        av[ac++] = student_ptx ? student_ptx : buf;
        av[ac++] = "--kernel";
        av[ac++] = entry ? entry : r->kernel;
        av[ac++] = "--grid";
        av[ac++] = r->grid;
        av[ac++] = "--block";
        av[ac++] = r->block;
        if (r->smem >= 0) {
            snprintf(smem, sizeof smem, "%ld", r->smem);
            av[ac++] = "--smem";
            av[ac++] = smem;
        }
        char copy[sizeof r->args], *save;
        snprintf(copy, sizeof copy, "%s", r->args);
        for (char *t = strtok_r(copy, " ", &save); t && ac < 70; t = strtok_r(NULL, " ", &save)) {
            size_t n = strlen(t) + 1;
            if (used + n > sizeof store)
                break;
            memcpy(store + used, t, n);
            av[ac++] = "--arg";
            av[ac++] = store + used;
            used += n;
        }
    }
    av[ac++] = "--arch";
    av[ac++] = s->l->arch;
    av[ac++] = "--json";
    if (s->sanitize)
        av[ac++] = "--sanitize";
    else if (trace) {
        av[ac++] = "--trace";
        av[ac++] = trace;
    }
    if (dump) {
        av[ac++] = "--dump";
        av[ac++] = dump;
    }
    av[ac] = NULL;
    run_json(av, e);
    if (!student_ptx)
        load_measured(s, measured, e);
}

/* blocks_per_sm that CUDA's occupancy API gave on the H200 for this launch, or -1. */
static int sweep_lookup(lexp_session *s, const lesson_occ *o)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/gpu/measured/%s/occupancy-sweep.csv", s->root, s->l->arch);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    int found = -1;
    while (fgets(line, sizeof line, f)) {
        int b, r, c, bps;
        long sm;
        if (sscanf(line, "%d,%d,%ld,%d,%d", &b, &r, &sm, &c, &bps) == 5 && b == o->block &&
            r == o->regs && sm == (o->smem < 0 ? 0 : o->smem) && c == o->carveout) {
            found = bps;
            break;
        }
    }
    fclose(f);
    return found;
}

static void do_occ(lexp_session *s, const lesson_occ *o, lexp_result *e)
{
    char b[16], r[16], sm[32], cv[16];
    snprintf(b, sizeof b, "%d", o->block);
    snprintf(r, sizeof r, "%d", o->regs);
    snprintf(sm, sizeof sm, "%ld", o->smem < 0 ? 0 : o->smem);
    snprintf(cv, sizeof cv, "%d", o->carveout);
    const char *av[] = {s->self, "occupancy", "--arch", s->l->arch, "--block", b, "--regs", r,
                        "--smem", sm, "--json", "--carveout", cv, NULL};
    if (o->carveout < 0)
        av[11] = NULL; /* not set: the driver's choice */
    run_json(av, e);
    e->h200_blocks = o->measured ? sweep_lookup(s, o) : -1;
}

void lexp_run_all(lexp_session *s)
{
    const lesson_t *l = s->l;
    for (int i = 0; i < l->narchs; i++) {
        diag_t d;
        lexp_result *e = &s->archs[i];
        e->done = 1;
        if (arch_load(cli_arch_dir(), l->archs[i].arch, &e->arch, &d)) {
            e->status = 1;
            snprintf(e->error, sizeof e->error, "%.300s", d.msg);
        }
    }
    for (int i = 0; i < l->noccs; i++)
        do_occ(s, &l->occs[i], &s->occs[i]);
    for (int i = 0; i < l->nruns; i++) {
        /* --full: rows that name the same measured case (with the same register count) run the
         * same launch, so it runs once (lesson 4's two "no branch" rows are div_none) */
        int j = i;
        while (s->full && j-- > 0 && !same_full_launch(&l->runs[i], &l->runs[j]))
            ;
        if (s->full && j >= 0) {
            lexp_result *e = &s->runs[i];
            *e = s->runs[j];
            e->json = s->runs[j].json ? cJSON_Duplicate(s->runs[j].json, 1) : NULL;
            e->measured = s->runs[j].measured ? cJSON_Duplicate(s->runs[j].measured, 1) : NULL;
            continue;
        }
        fprintf(stderr, "%s %s ...\n", lexp_tr(s, "running", "运行"), l->runs[i].name);
        lexp_run(s, &l->runs[i], &s->runs[i], NULL, NULL, NULL);
    }
}

/* ---------------------------------------------------------------- metrics */

static void json_value(const cJSON *j, lesson_value *v)
{
    if (cJSON_IsNumber(j)) {
        v->kind = LESSON_V_NUM;
        v->num = j->valuedouble;
    } else if (cJSON_IsString(j)) {
        v->kind = LESSON_V_STR;
        snprintf(v->str, sizeof v->str, "%s", j->valuestring);
    } else if (cJSON_IsBool(j)) {
        v->kind = LESSON_V_NUM; /* true = 1, false = 0 */
        v->num = cJSON_IsTrue(j);
    } else if (cJSON_IsNull(j)) {
        v->kind = LESSON_V_NULL;
    } else {
        v->kind = LESSON_V_MISSING;
    }
}

/* Follows a dotted path ("stalls.barrier") in a JSON object. */
static const cJSON *json_path(const cJSON *j, const char *path)
{
    char buf[96], *save;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *t = strtok_r(buf, ".", &save); t && j; t = strtok_r(NULL, ".", &save))
        j = cJSON_GetObjectItemCaseSensitive(j, t);
    return j;
}

/* A measured value of a case (gpu/harness's JSON: timing.median_us, attributes.num_regs,
 * occupancy_api.blocks_per_sm, ncu.stalls...). time_us means timing.median_us, the median of
 * the CUDA-event timings. */
void lexp_measured(const lexp_result *e, const char *key, lesson_value *v)
{
    v->kind = LESSON_V_NULL; /* not measured (yet) */
    if (!e->measured)
        return;
    const cJSON *j = json_path(e->measured, !strcmp(key, "time_us") ? "timing.median_us" : key);
    if (j)
        json_value(j, v);
    if (v->kind == LESSON_V_MISSING) /* e.g. ncu.* where Nsight Compute was not available */
        v->kind = LESSON_V_NULL;
}

void lexp_run_metric(const lexp_result *e, const char *key, lesson_value *v)
{
    v->kind = LESSON_V_MISSING;
    if (!e->json)
        return;
    if (!strncmp(key, "h200.", 5)) {
        lexp_measured(e, key + 5, v);
        return;
    }
    if (!strncmp(key, "stall_share.", 12)) {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(e->json, "stalls"), *it;
        if (cJSON_IsNull(st)) {
            v->kind = LESSON_V_NULL;
            return;
        }
        double total = 0, mine = 0;
        cJSON_ArrayForEach(it, st) if (cJSON_IsNumber(it))
        {
            total += it->valuedouble;
            if (!strcmp(it->string, key + 12))
                mine = it->valuedouble;
        }
        if (cJSON_IsObject(st)) {
            v->kind = total > 0 ? LESSON_V_NUM : LESSON_V_NULL;
            v->num = total > 0 ? mine / total : 0;
        }
        return;
    }
    if (!strcmp(key, "same_output")) {
        v->kind = e->same_output < 0 ? LESSON_V_NULL : LESSON_V_NUM;
        v->num = e->same_output;
        return;
    }
    const cJSON *j;
    if (!strncmp(key, "opcodes.", 8)) /* opcode names have dots: opcodes.bar.warp.sync */
        j = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(e->json, "opcodes"), key + 8);
    else
        j = json_path(e->json, key);
    const char *dot = strchr(key, '.');
    if (!j && dot) {
        /* stalls.X / opcodes.X: a reason never charged or an opcode never run counts 0 */
        char parent[96];
        snprintf(parent, sizeof parent, "%.*s", (int)(dot - key), key);
        j = cJSON_GetObjectItemCaseSensitive(e->json, parent);
        if (cJSON_IsObject(j)) {
            v->kind = LESSON_V_NUM;
            v->num = 0;
            return;
        }
    }
    json_value(j, v);
}

void lexp_occ_metric(lexp_session *s, const lesson_occ *o, const lexp_result *e, const char *key,
                       lesson_value *v)
{
    v->kind = LESSON_V_MISSING;
    if (!strncmp(key, "h200.", 5)) {
        v->kind = LESSON_V_NULL;
        if (e->h200_blocks < 0)
            return;
        double wpb = (o->block + 31) / 32, bps = e->h200_blocks;
        v->kind = LESSON_V_NUM;
        if (!strcmp(key + 5, "blocks_per_sm"))
            v->num = bps;
        else if (!strcmp(key + 5, "warps_per_sm"))
            v->num = bps * wpb;
        else if (!strcmp(key + 5, "occupancy") && s->lesson_arch.max_warps_per_sm)
            v->num = bps * wpb / s->lesson_arch.max_warps_per_sm;
        else
            v->kind = LESSON_V_MISSING;
        return;
    }
    if (e->json)
        json_value(json_path(e->json, key), v);
}

void lexp_lookup(void *ctx, const char *ref, lesson_value *v)
{
    lexp_session *s = ctx;
    char exp[LESSON_NAME_MAX + 1];
    const char *dot = strchr(ref, '.');
    size_t n = (size_t)(dot - ref);
    snprintf(exp, sizeof exp, "%.*s", (int)(n < LESSON_NAME_MAX ? n : LESSON_NAME_MAX), ref);
    const char *key = dot + 1;
    const lesson_t *l = s->l;
    v->kind = LESSON_V_MISSING;
    if (!strcmp(exp, "student") && s->has_student)
        lexp_run_metric(&s->student, key, v);
    else if (lesson_find_run(l, exp))
        lexp_run_metric(&s->runs[lesson_find_run(l, exp) - l->runs], key, v);
    else if (lesson_find_occ(l, exp)) {
        const lesson_occ *o = lesson_find_occ(l, exp);
        lexp_occ_metric(s, o, &s->occs[o - l->occs], key, v);
    } else if (lesson_find_arch(l, exp)) {
        const lexp_result *e = &s->archs[lesson_find_arch(l, exp) - l->archs];
        if (!e->status && lesson_arch_metric(&e->arch, key, &v->num))
            v->kind = LESSON_V_NUM;
    }
}

/* ---------------------------------------------------------------- checks */

/* Why a claim could not be decided, in plain words. */
static void unknown_reason(lexp_session *s, const lesson_check *c, const lesson_outcome *o, char *buf,
                           size_t n)
{
    char exp[LESSON_NAME_MAX + 1] = "";
    const char *dot = strchr(o->missing, '.');
    if (dot)
        snprintf(exp, sizeof exp, "%.*s", (int)(dot - o->missing), o->missing);
    const lesson_run *r = lesson_find_run(s->l, exp);
    const lexp_result *e = r ? &s->runs[r - s->l->runs] : !strcmp(exp, "student") ? &s->student
                                                                                  : NULL;
    if (e && e->error[0] && !e->json)
        snprintf(buf, n, "%s", e->error);
    else
        snprintf(buf, n, "%s: %s", o->missing,
                 strstr(o->missing, ".h200.") ? lexp_tr(s, "not measured on the H200 yet",
                                                        "H200 上尚无实测数据")
                 : o->verdict == LESSON_UNKNOWN ? lexp_tr(s, "not modelled yet (null)",
                                                          "模型尚未给出 (null)")
                                                : lexp_tr(s, "no such metric in the result",
                                                          "结果中没有这个指标"));
}

static void fmt_side(const lesson_outcome *o, int right, char *buf, size_t n)
{
    const char *str = right ? o->rhs_str : o->lhs_str;
    double v = right ? o->rhs : o->lhs;
    if (str[0])
        snprintf(buf, n, "\"%s\"", str);
    else if (v < 1e15 && v > -1e15 && v == (double)(long long)v)
        snprintf(buf, n, "%lld", (long long)v);
    else
        snprintf(buf, n, "%.4g", v);
}


/* Evaluates and prints the checks (goals when goals is set). Lines start with PASS, FAIL or
 * SKIP (a `requires` that is not satisfied yet) so tests and graders can read them. */
void lexp_checks(lexp_session *s, int goals, lexp_tally *t)
{
    const lesson_t *l = s->l;
    for (int i = 0; i < l->nchecks; i++) {
        const lesson_check *c = &l->checks[i];
        if (c->is_goal != goals)
            continue;
        lesson_outcome o;
        char a[128], b[128], why[700];
        lesson_expr_eval(&c->x, c->tolerance, lexp_lookup, s, &o);
        const char *tag;
        if (o.verdict == LESSON_HOLDS) {
            tag = "PASS";
            t->passed++;
        } else if (o.verdict == LESSON_UNKNOWN && c->requires != LESSON_REQ_NONE) {
            tag = "SKIP";
            t->unmet++;
        } else {
            tag = "FAIL";
            t->failed++;
        }
        printf("  %s  %s: %s", tag, c->name, c->x.text);
        if (c->tolerance > 0)
            printf("  (%s %.0f%%)", lexp_tr(s, "tolerance", "容差"), 100 * c->tolerance);
        printf("\n");
        if (o.verdict == LESSON_HOLDS || o.verdict == LESSON_FAILS) {
            fmt_side(&o, 0, a, sizeof a);
            fmt_side(&o, 1, b, sizeof b);
            printf("        %s: %s %s %s\n", lexp_tr(s, "values", "数值"), a, lesson_cmp_str(c->x.cmp), b);
        } else {
            unknown_reason(s, c, &o, why, sizeof why);
            if (!strcmp(tag, "SKIP"))
                printf("        %s %s: %s\n", lexp_tr(s, "not verified: requires", "未验证：需要"),
                       lesson_req_str(c->requires), why);
            else
                printf("        %s: %s\n", lexp_tr(s, "cannot decide", "无法判定"), why);
        }
        lexp_wrap(lexp_tr(s, c->why, c->why_zh), 8, 92);
    }
}


/* ---------------------------------------------------------------- temporary files */

int lexp_mktmp(lexp_session *s)
{
    const char *base = getenv("TMPDIR");
    snprintf(s->tmp, sizeof s->tmp, "%s/warplab-lesson-XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(s->tmp) ? 0 : -1;
}

/* Removes dir's files and sub-folders (one level deep: what we wrote), then dir. */
static void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char p[1400];
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (snprintf(p, sizeof p, "%s/%s", dir, de->d_name) >= (int)sizeof p)
            continue; /* (not a name we wrote) */
        if (unlink(p) && depth < 1)
            remove_tree(p, depth + 1);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

void lexp_rmtmp(lexp_session *s)
{
    if (s->tmp[0])
        remove_tree(s->tmp, 0);
    s->tmp[0] = '\0';
}

/* 1 when every argN.bin in both folders exists in both with the same bytes, 0 when not
 * (what differs goes to why), -1 when neither folder has any. */
int lexp_same_dumps(const char *a, const char *b, char *why, size_t n)
{
    int any = 0;
    for (int i = 0; i < 32; i++) {
        char pa[1400], pb[1400];
        snprintf(pa, sizeof pa, "%s/arg%d.bin", a, i);
        snprintf(pb, sizeof pb, "%s/arg%d.bin", b, i);
        FILE *fa = fopen(pa, "rb"), *fb = fopen(pb, "rb");
        int same = 1;
        long pos = 0;
        if (fa && fb) {
            int ca, cb;
            do {
                ca = getc(fa);
                cb = getc(fb);
                pos++;
            } while (ca == cb && ca != EOF);
            same = ca == cb;
        } else if (fa || fb) {
            same = 0;
        }
        any |= fa || fb;
        if (fa)
            fclose(fa);
        if (fb)
            fclose(fb);
        if (!same) {
            snprintf(why, n, "buffer argument %d differs (first at byte %ld)", i, pos - 1);
            return 0;
        }
    }
    return any ? 1 : -1;
}

/* Terminal columns of a UTF-8 string: CJK characters (3-byte forms from U+3000) take two. */
int lexp_cols(const char *s, size_t n)
{
    int cols = 0;
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c & 0xC0) != 0x80)
            cols += c >= 0xE3 ? 2 : 1;
    }
    return cols;
}

/* Prints text wrapped at width columns, every line indented by indent blanks. Words break at
 * blanks; Chinese text (no blanks) may break after any character. */
void lexp_wrap(const char *text, int indent, int width)
{
    int col = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        /* a token: one multi-byte character, or a run of single-byte non-blank characters */
        size_t n = 0;
        if ((unsigned char)*p >= 0x80) {
            n = 1;
            while (p[n] && ((unsigned char)p[n] & 0xC0) == 0x80)
                n++;
        } else {
            while (p[n] && p[n] != ' ' && (unsigned char)p[n] < 0x80)
                n++;
        }
        int w = lexp_cols(p, n);
        int space = col > 0 && p > text && p[-1] == ' ';
        if (col > 0 && col + space + w > width) {
            printf("\n");
            col = 0;
            space = 0;
        }
        if (col == 0)
            printf("%*s", indent, "");
        printf("%s%.*s", space ? " " : "", (int)n, p);
        col += space + w;
        p += n;
    }
    printf("\n");
}
