/* `warplab lesson`: list, run and check the classroom lessons (lessons/NN-name/lesson.ini).
 *
 * A lesson's experiments are run by spawning this same binary (`warplab run ... --json`,
 * `warplab occupancy ... --json`, `warplab view TRACE --png`) and reading the JSON with cJSON:
 * the lesson depends on the command-line contract of DESIGN.md only, never on the internals of
 * the simulator. Measured H200 numbers come from gpu/measured/<arch>/ (a case's JSON, or the
 * occupancy sweep CSV). A metric that is null (not modelled yet) or a file that is absent (not
 * measured yet) never makes a claim pass: such a check is reported as not verified, with the
 * lesson's `requires` reason, and `--check` exits 1. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "arch.h"
#include "cli.h"
#include "cudac.h"
#include "lesson.h"
#include "lesson_exp.h"

#define CMD "lesson"
#define MAX_LESSONS 64

static const char usage_text[] =
    "usage: warplab lesson [list | N [--check [FILE.cu|FILE.ptx]] [--view] [--png DIR]]\n"
    "                      [--full] [--lang en|zh]\n\n"
    "  list                 the lessons, in teaching order\n"
    "  N                    run lesson N's experiments in the model; print the table and the\n"
    "                       takeaway\n"
    "  --check              verify the lesson's claims in the model and against the measured\n"
    "                       H200 data (exit 0 only if every claim holds)\n"
    "  --check FILE         run the exercise with your kernel (.cu: compiled with nvcc -ptx\n"
    "                       -arch=sm_90 -lineinfo; .ptx: used as is) and say whether it meets\n"
    "                       the goals, and why\n"
    "  --view               open the viewer on the lesson's most telling trace\n"
    "  --png DIR            write the lesson's pictures into DIR (needs the viewer)\n"
    "  --full               run the launches the H200 measured (gpu/cases.txt) instead of the\n"
    "                       small ones: the model's time then predicts the H200 column, with\n"
    "                       its error (slower: up to a few minutes a lesson; not with --check)\n"
    "  --lang zh            Chinese texts (also when $LANG starts with zh)\n";

/* ---------------------------------------------------------------- printing */

/* Prints s padded to w terminal columns (CJK characters take two). */
/* Prints s right-aligned in w terminal columns. */
static void rcell(const char *s, int w)
{
    int cols = lexp_cols(s, strlen(s));
    printf("%*s%s", cols < w ? w - cols : 0, "", s);
}

static void pad(const char *s, int w)
{
    int cols = lexp_cols(s, strlen(s));
    printf("%s%*s", s, cols < w ? w - cols : 0, "");
}

/* One right-aligned number of a run: decimals 0 or 2, or percent (x 100, no decimals). */
static void num_cell(const lexp_result *e, const char *key, int w, int decimals, int percent)
{
    lesson_value v;
    char b[64];
    lexp_run_metric(e, key, &v);
    if (v.kind == LESSON_V_NUM && percent)
        snprintf(b, sizeof b, "%.0f%%", 100 * v.num);
    else if (v.kind == LESSON_V_NUM)
        snprintf(b, sizeof b, "%.*f", decimals, v.num);
    else
        snprintf(b, sizeof b, "%s", v.kind == LESSON_V_NULL ? "n/m" : "-");
    printf("%*s", w, b);
}

/* Achieved / theoretical occupancy, "12/100%": what the run kept resident on average, and what
 * its registers, shared memory and block size allow; "-/100%" while achieved is not modelled. */
static void occ_cell(const lexp_result *e, int w)
{
    lesson_value a, t;
    char ab[16], b[48];
    lexp_run_metric(e, "achieved_occupancy", &a);
    lexp_run_metric(e, "theoretical_occupancy", &t);
    if (a.kind == LESSON_V_NUM)
        snprintf(ab, sizeof ab, "%.0f", 100 * a.num);
    else
        snprintf(ab, sizeof ab, "-");
    if (t.kind == LESSON_V_NUM)
        snprintf(b, sizeof b, "%s/%.0f%%", ab, 100 * t.num);
    else
        snprintf(b, sizeof b, "%s/-", ab);
    printf("%*s", w, b);
}

static void top_stalls_of(const cJSON *st, char *out, size_t n);

/* The two largest stall reasons of a run (not `selected`), with their share; while the model
 * has none, the H200's as Nsight Compute measured them, marked "H200:". */
static void top_stalls(const lexp_result *e, char *out, size_t n)
{
    const cJSON *st = e->json ? cJSON_GetObjectItemCaseSensitive(e->json, "stalls") : NULL;
    const cJSON *hw = e->measured ? cJSON_GetObjectItemCaseSensitive(
                                        cJSON_GetObjectItemCaseSensitive(e->measured, "ncu"),
                                        "stalls")
                                  : NULL;
    out[0] = '\0';
    if (!cJSON_IsObject(st) && cJSON_IsObject(hw)) {
        size_t u = (size_t)snprintf(out, n, "H200: ");
        top_stalls_of(hw, out + u, n - u);
        return;
    }
    if (!cJSON_IsObject(st)) {
        snprintf(out, n, "%s", cJSON_IsNull(st) ? "n/m" : "-");
        return;
    }
    top_stalls_of(st, out, n);
}

static void top_stalls_of(const cJSON *st, char *out, size_t n)
{
    double total = 0;
    const cJSON *it, *best[2] = {NULL, NULL};
    cJSON_ArrayForEach(it, st)
    {
        if (!cJSON_IsNumber(it))
            continue;
        total += it->valuedouble;
        if (!strcmp(it->string, "selected"))
            continue;
        if (!best[0] || it->valuedouble > best[0]->valuedouble)
            best[1] = best[0], best[0] = it;
        else if (!best[1] || it->valuedouble > best[1]->valuedouble)
            best[1] = it;
    }
    for (int i = 0; i < 2 && total > 0; i++)
        if (best[i] && best[i]->valuedouble > 0) {
            size_t u = strlen(out);
            snprintf(out + u, n - u, "%s%s %.0f%%", i ? ", " : "", best[i]->string,
                     100 * best[i]->valuedouble / total);
        }
}

static void print_tables(lexp_session *s)
{
    const lesson_t *l = s->l;
    for (int i = 0; i < l->narchs; i++) {
        const lexp_result *e = &s->archs[i];
        if (i == 0)
            printf("\n  %-34s %5s %5s %5s %10s %9s %10s %10s\n", lexp_tr(s, "GPU", "GPU"), "SMs",
                   "GPCs", "TPCs", "sched/SM", "warps/SM", "regs/SM", "smem/SM");
        printf("  ");
        pad(lexp_tr(s, l->archs[i].label, l->archs[i].label_zh), 34);
        if (e->status) {
            printf(" %s\n", e->error);
            continue;
        }
        const arch_t *a = &e->arch;
        printf(" %5d %5d %5d %10d %9d %10d %8d KB\n", a->sm_count, a->gpc_count,
               a->sms_per_tpc ? a->sm_count / a->sms_per_tpc : 0, a->sub_partitions,
               a->max_warps_per_sm, a->regs_per_sm, a->smem_per_sm_max / 1024);
    }
    for (int i = 0; i < l->noccs; i++) {
        const lexp_result *e = &s->occs[i];
        if (i == 0)
            printf("\n  %-34s %9s %9s %9s %-14s %s\n", lexp_tr(s, "launch", "启动配置"), "blocks/SM",
                   "warps/SM", "occupancy", "limiter", "H200 blocks/SM");
        printf("  ");
        pad(lexp_tr(s, l->occs[i].label, l->occs[i].label_zh), 34);
        if (!e->json) {
            printf(" %s\n", e->error);
            continue;
        }
        lesson_value b, w, o, lim;
        lexp_occ_metric(s, &l->occs[i], e, "blocks_per_sm", &b);
        lexp_occ_metric(s, &l->occs[i], e, "warps_per_sm", &w);
        lexp_occ_metric(s, &l->occs[i], e, "occupancy", &o);
        lexp_occ_metric(s, &l->occs[i], e, "limiter", &lim);
        printf(" %9.0f %9.0f %8.1f%% %-14s ", b.num, w.num, 100 * o.num,
               lim.kind == LESSON_V_STR ? lim.str : "?");
        if (e->h200_blocks >= 0)
            printf("%d%s\n", e->h200_blocks,
                   e->h200_blocks == (int)b.num ? "" : lexp_tr(s, "  (differs!)", "  (不一致!)"));
        else
            printf("%s\n", l->occs[i].measured ? lexp_tr(s, "not measured", "未测") : "");
    }
    if (l->nruns) {
        printf("\n  ");
        pad(lexp_tr(s, "configuration", "配置"), 34);
        rcell(lexp_tr(s, "warp insts", "warp 指令"), 11);
        rcell(lexp_tr(s, "model us", "模型 us"), 10);
        rcell("H200 us", 10);
        if (s->full)
            rcell(lexp_tr(s, "error", "误差"), 8);
        rcell(lexp_tr(s, "occ. a/t", "实/理占用"), 10);
        rcell(lexp_tr(s, "bank cf.", "bank 冲突"), 10);
        rcell(lexp_tr(s, "branch", "分支效率"), 9);
        printf("  %s\n", lexp_tr(s, "top stalls", "主要停顿"));
    }
    for (int i = 0; i < l->nruns; i++) {
        const lexp_result *e = &s->runs[i];
        char ts[128];
        printf("  ");
        pad(lexp_tr(s, l->runs[i].label, l->runs[i].label_zh), 34);
        if (!e->json) {
            printf(" %s\n", e->error);
            continue;
        }
        num_cell(e, "warp_instructions", 11, 0, 0);
        num_cell(e, "time_us", 10, 2, 0);
        lesson_value mv;
        char mb[32];
        /* --full compares as `warplab validate` does: Nsight Compute's kernel duration (caches
         * flushed, like the model's cold start), else the cudaEvent median */
        if (s->full)
            lexp_measured(e, "ncu.gpu_time_us", &mv);
        if (!s->full || mv.kind != LESSON_V_NUM)
            lexp_measured(e, "time_us", &mv);
        if (mv.kind == LESSON_V_NUM)
            snprintf(mb, sizeof mb, "%.1f", mv.num);
        else
            snprintf(mb, sizeof mb, "-");
        printf("%10s", mb);
        if (s->full) {
            lesson_value pv;
            lexp_run_metric(e, "time_us", &pv);
            if (mv.kind == LESSON_V_NUM && pv.kind == LESSON_V_NUM && mv.num > 0)
                printf("%+7.1f%%", 100.0 * (pv.num - mv.num) / mv.num);
            else
                printf("%8s", "-");
        }
        occ_cell(e, 10);
        num_cell(e, "shared_bank_conflicts", 10, 0, 0);
        num_cell(e, "branch_efficiency", 9, 0, 1);
        top_stalls(e, ts, sizeof ts);
        printf("  %s\n", ts);
    }
    if (l->nruns && s->full)
        printf("\n  %s\n", lexp_tr(s,
               "n/m = not modelled yet; '-' = not measured yet; \"H200:\" = Nsight Compute's "
               "stall reasons on the H200.\n  occ. a/t = achieved / theoretical occupancy (lesson "
               "3). --full: the model ran the launches the H200\n  measured (gpu/cases.txt); "
               "H200 us = Nsight Compute's kernel duration where it was collected, as\n  "
               "warplab validate compares (docs/validation.md); error = model against it. The "
               "pictures\n  keep the small launches.",
               "n/m = 模型尚未给出；'-' = 尚无实测；“H200:” = Nsight Compute 在 H200 上测得的停顿原因。\n"
               "  实/理占用 = 实际 / 理论占用率（第 3 课）。--full：模型运行的是 H200 实测过的启动配置\n"
               "  （gpu/cases.txt）；H200 us = Nsight Compute 测得的 kernel 时长（如有），与 warplab validate\n"
               "  的比较方式相同（docs/validation.md）；误差 = 模型相对它的偏差。图片仍使用小规模启动。"));
    else if (l->nruns)
        printf("\n  %s\n", lexp_tr(s,
               "n/m = not modelled yet; '-' = not measured yet; \"H200:\" = Nsight Compute's "
               "stall reasons on the H200.\n  occ. a/t = achieved / theoretical occupancy: the "
               "warp slots the run kept filled on average / what its block size,\n  registers "
               "and shared memory allow (lesson 3).\n  The model runs the small launches of "
               "gpu/cases-sim.txt, the H200 the full-size ones of gpu/cases.txt:\n  compare "
               "ratios between rows, not absolute times (--full runs the H200's launches).",
               "n/m = 模型尚未给出；'-' = 尚无实测；“H200:” = Nsight Compute 在 H200 上测得的停顿原因。\n"
               "  实/理占用 = 实际 / 理论占用率：运行中平均占用了 64 个 warp 槽位的几成，以及 block 大小、\n"
               "  寄存器和共享内存允许的上限（第 3 课）。\n"
               "  模型跑的是 gpu/cases-sim.txt 里的小规模启动，H200 实测的是 gpu/cases.txt 里的完整规模：\n"
               "  请比较行与行之间的比值，而不是绝对时间（--full 运行 H200 的启动配置）。"));
}

/* ---------------------------------------------------------------- student's kernel */

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}


/* A goal failed: runs the student's kernel once more under `warplab run --sanitize`
 * (functional, any warp order) and prints its race warnings, which name the source line: a
 * missing barrier can give the right answer in one timed run and still be wrong. */
static void sanitizer_hint(lexp_session *s, const lesson_run *r, const char *ptx)
{
    lexp_result e;
    memset(&e, 0, sizeof e);
    s->sanitize = 1;
    lexp_run(s, r, &e, ptx, NULL, NULL);
    s->sanitize = 0;
    cJSON_Delete(e.json);
    cJSON_Delete(e.measured);
    if (!e.warnings[0])
        return;
    printf("\n  %s\n", lexp_tr(s, "warplab run --sanitize says about your kernel:",
                              "warplab run --sanitize 对你的 kernel 的提示："));
    char *save = NULL;
    for (char *ln = strtok_r(e.warnings, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save))
        lexp_wrap(ln, 4, 94);
}

/* The student's source line behind PTX line `pl`: the last `.loc F L C` before it whose file F
 * is fidx (for a helper inlined into the kernel, the line it was inlined at); 0 when unknown. */
static int source_line(const char *ptx, int pl, int fidx)
{
    int line = 1, src = 0;
    for (const char *p = ptx; p && *p && line < pl; line++) {
        const char *eol = strchr(p, '\n');
        char buf[400];
        snprintf(buf, sizeof buf, "%.*s", (int)(eol ? (size_t)(eol - p) : strlen(p)), p);
        const char *loc = strstr(buf, ".loc"), *at = strstr(buf, "inlined_at");
        int f, l;
        if (at && sscanf(at, "inlined_at %d %d", &f, &l) == 2 && f == fidx)
            src = l;
        else if (loc && sscanf(loc, ".loc %d %d", &f, &l) == 2 && f == fidx)
            src = l;
        p = eol ? eol + 1 : NULL;
    }
    return src;
}

/* The `.file N "PATH"` index of the student's source (PATH's last component equals src's), or -1. */
static int source_file(const char *ptx, const char *src)
{
    const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
    for (const char *p = strstr(ptx, ".file"); p; p = strstr(p + 5, ".file")) {
        int n;
        char path[600];
        if (sscanf(p, ".file %d \"%599[^\"]\"", &n, path) != 2)
            continue;
        const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (!strcmp(b, base))
            return n;
    }
    return -1;
}

/* A failed run's message names lines of the temporary PTX compiled from the student's .cu:
 * "TMP/student.ptx:156" and "(line 156)". Adds the .cu line to each, from -lineinfo's .loc. */
static void name_source_lines(const char *ptx_path, const char *src, char *msg, size_t n)
{
    char *ptx = lesson_read_file(ptx_path, NULL);
    int fidx = ptx ? source_file(ptx, src) : -1;
    const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
    char out[sizeof ((lexp_result *)0)->error] = "";
    size_t used = 0, plen = strlen(ptx_path);
    for (const char *p = msg; fidx >= 0 && *p && used + 64 < sizeof out;) {
        int d = 0, k = 0;
        if (!strncmp(p, ptx_path, plen) && sscanf(p + plen, ":%d%n", &d, &k) == 1) {
            k += (int)plen;
            used += (size_t)snprintf(out + used, sizeof out - used, "PTX:%d [%s:%d]", d, base,
                                     source_line(ptx, d, fidx));
        } else if (sscanf(p, "(line %d)%n", &d, &k) == 1 && k > 0) {
            used += (size_t)snprintf(out + used, sizeof out - used, "(PTX line %d, %s:%d)", d,
                                     base, source_line(ptx, d, fidx));
        } else {
            out[used++] = *p;
            out[used] = '\0';
            k = 1;
        }
        p += k;
    }
    if (fidx >= 0)
        snprintf(msg, n, "%s", out);
    free(ptx);
}

static int check_student(lexp_session *s, const char *file)
{
    const lesson_t *l = s->l;
    char ptx[1400];
    if (access(file, R_OK))
        return cli_usage_error(CMD, "cannot read '%s'", file);
    if (lexp_mktmp(s))
        return cli_usage_error(CMD, "cannot create a temporary folder");
    cudac_out cu;
    memset(&cu, 0, sizeof cu);
    if (cudac_is_source(file)) {
        char inc[1200];
        snprintf(inc, sizeof inc, "%s/gpu/kernels", s->root); /* wl_probe.h, wl_math.h */
        cudac_status st = cudac_compile(file, "sm_90", inc, s->tmp, &cu); /* lexp_rmtmp's */
        if (st == CUDAC_NO_NVCC)
            fprintf(stderr, "%s\n", lexp_tr(s, "warplab lesson: nvcc is not installed here: compile "
                                          "with `nvcc -ptx -arch=sm_90 -lineinfo` elsewhere and "
                                          "pass the .ptx",
                                       "warplab lesson: 这里没有 nvcc：请在别处用 `nvcc -ptx "
                                       "-arch=sm_90 -lineinfo` 编译，再把 .ptx 交给本命令"));
        else if (st != CUDAC_OK)
            fprintf(stderr, "%s:\n%s", lexp_tr(s, "warplab lesson: nvcc could not compile your kernel",
                                          "warplab lesson: nvcc 编译失败"),
                    cu.log ? cu.log : "");
        free(cu.log);
        if (st != CUDAC_OK)
            return WL_EUSAGE;
        snprintf(ptx, sizeof ptx, "%s", cu.ptx);
    } else if (ends_with(file, ".ptx")) {
        snprintf(ptx, sizeof ptx, "%s", file);
    } else {
        return cli_usage_error(CMD, "'%s': give a .cu or a .ptx file", file);
    }
    lexp_run_all(s);
    const lesson_run *r = lesson_find_run(l, l->ex_run);
    fprintf(stderr, "%s ...\n", lexp_tr(s, "running your kernel", "运行你的 kernel"));
    char ref_dump[1400], stu_dump[1400], why[300] = "";
    lexp_result ref;
    memset(&ref, 0, sizeof ref);
    snprintf(ref_dump, sizeof ref_dump, "%s/reference", s->tmp);
    snprintf(stu_dump, sizeof stu_dump, "%s/student", s->tmp);
    lexp_run(s, r, &ref, NULL, NULL, ref_dump);
    lexp_run(s, r, &s->student, ptx, NULL, stu_dump);
    s->student.same_output = ref.json && s->student.json
                                 ? lexp_same_dumps(ref_dump, stu_dump, why, sizeof why)
                                 : -1;
    cJSON_Delete(ref.json);
    cJSON_Delete(ref.measured);
    s->has_student = 1;
    if (s->zh)
        printf("\n第 %d 课练习\n", l->number);
    else
        printf("\nExercise of lesson %d\n", l->number);
    lexp_wrap(lexp_tr(s, l->task, l->task_zh), 2, 94);
    printf("\n");
    int wants_same = 0;
    for (int i = 0; i < l->nchecks; i++)
        wants_same |= l->checks[i].is_goal && strstr(l->checks[i].x.text, "student.same_output");
    if (s->student.same_output == 0 && wants_same)
        printf("  %s: %s\n\n",
               lexp_tr(s, "Your kernel's result differs from the original's",
                       "你的 kernel 的结果与原版不同"),
               why);
    if (!s->student.json) {
        if (cudac_is_source(file))
            name_source_lines(ptx, file, s->student.error, sizeof s->student.error);
        printf("  %s:\n", lexp_tr(s, "your kernel did not run", "你的 kernel 没能运行"));
        lexp_wrap(s->student.error, 4, 92);
        return s->student.status > 0 && s->student.status < 128 ? s->student.status : WL_EUSAGE;
    }
    lexp_tally t = {0, 0, 0};
    lexp_checks(s, 1, &t);
    if (t.failed)
        sanitizer_hint(s, r, ptx);
    if (t.failed == 0 && t.unmet == 0)
        printf("\n  %s\n", lexp_tr(s, "Goal met. Well done.", "达成目标，做得好。"));
    else if (t.failed == 0)
        printf("\n  %s\n", lexp_tr(s, "Every goal the model can judge today is met; the others need "
                                 "data the model does not produce yet.",
                              "模型目前能判定的目标都已达成；其余目标所需的数据模型还给不出。"));
    else
        printf("\n  %s\n", lexp_tr(s, "Not yet: read the reasons above and try again.",
                              "还没有达成：看看上面的原因，再试一次。"));
    return t.failed || t.unmet ? WL_EUSAGE : WL_OK;
}

/* ---------------------------------------------------------------- pictures */

static int pictures(lexp_session *s, const char *png_dir, int interactive)
{
    const lesson_t *l = s->l;
    const lesson_run *r = l->view_run[0] ? lesson_find_run(l, l->view_run)
                                         : l->nruns ? &l->runs[0] : NULL;
    if (!r) {
        fprintf(stderr, "warplab lesson: %s\n",
                lexp_tr(s, "this lesson has no kernel run to show", "这一课没有可以显示的 kernel 运行"));
        return WL_EUSAGE;
    }
    if (png_dir && mkdir(png_dir, 0777) && errno != EEXIST)
        return cli_usage_error(CMD, "cannot create '%s': %s", png_dir, strerror(errno));
    if (lexp_mktmp(s))
        return cli_usage_error(CMD, "cannot create a temporary folder");
    int rc = WL_OK;
    /* the most telling run first; --png also draws every other run */
    for (int k = -1; k < l->nruns && rc == WL_OK; k++) {
        const lesson_run *x = k < 0 ? r : &l->runs[k];
        if (k >= 0 && (x == r || interactive))
            continue;
        char trace[1400], png[1400];
        lexp_result e;
        memset(&e, 0, sizeof e);
        snprintf(trace, sizeof trace, "%s/%s.trace", s->tmp, x->name);
        fprintf(stderr, "%s %s ...\n", lexp_tr(s, "tracing", "记录"), x->name);
        lexp_run(s, x, &e, NULL, trace, NULL);
        cJSON_Delete(e.json);
        cJSON_Delete(e.measured);
        if (e.status) {
            fprintf(stderr, "warplab lesson: %s\n", e.error);
            rc = e.status > 0 && e.status < 128 ? e.status : WL_EUSAGE;
            break;
        }
        if (access(trace, R_OK)) {
            fprintf(stderr, "warplab lesson: %s\n",
                    lexp_tr(s, "warplab run wrote no trace: this build's model has no timing "
                               "yet, so there is nothing to draw",
                            "warplab run 没有写出 trace：这个版本的模型还没有计时，没有可画的内容"));
            rc = WL_EUSAGE;
            break;
        }
        snprintf(png, sizeof png, "%s/lesson%02d-%s.png", png_dir ? png_dir : ".", l->number,
                 x->name);
        const char *av[] = {s->self, "view", trace,  "--lang", s->zh ? "zh" : "en",
                            "--png", png, "--view", l->view_kind, NULL};
        if (interactive)
            av[5] = NULL;
        lexp_proc pr;
        lexp_proc_run(av, &pr);
        if (pr.status) {
            char b[300];
            fprintf(stderr, "warplab lesson: %s (%s)\n",
                    lexp_tr(s, "the viewer is not available", "查看器不可用"),
                    lexp_first_line(pr.err, b, sizeof b));
            rc = WL_EUSAGE;
        } else if (png_dir) {
            printf("%s\n", png);
        }
        lexp_proc_free(&pr);
    }
    lexp_rmtmp(s);
    return rc;
}

/* ---------------------------------------------------------------- finding lessons */

typedef struct {
    int number;
    char dir[256]; /* "03-occupancy" */
} lesson_entry;

static int entry_cmp(const void *a, const void *b)
{
    return ((const lesson_entry *)a)->number - ((const lesson_entry *)b)->number;
}

static int find_lessons(const char *root, lesson_entry *v, int max)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/lessons", root);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        if (!isdigit((unsigned char)de->d_name[0]) || !isdigit((unsigned char)de->d_name[1]) ||
            de->d_name[2] != '-' || strlen(de->d_name) >= sizeof v[0].dir)
            continue;
        v[n].number = atoi(de->d_name);
        snprintf(v[n].dir, sizeof v[n].dir, "%s", de->d_name);
        n++;
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof v[0], entry_cmp);
    return n;
}

static int load_entry(const char *root, const lesson_entry *e, lesson_t *l)
{
    char path[1400], label[300];
    diag_t d;
    snprintf(path, sizeof path, "%s/lessons/%s/lesson.ini", root, e->dir);
    snprintf(label, sizeof label, "lessons/%s/lesson.ini", e->dir);
    if (lesson_load(path, label, l, &d) == WL_OK)
        return WL_OK;
    char buf[1600];
    diag_format(&d, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
    return WL_EUSAGE;
}

static int do_list(const char *root, int zh)
{
    lesson_entry v[MAX_LESSONS];
    int n = find_lessons(root, v, MAX_LESSONS), rc = WL_OK;
    if (n < 0)
        return cli_usage_error(CMD, "no lessons/ folder under %s", root);
    lesson_t *l = malloc(sizeof *l);
    if (!l)
        return WL_EUSAGE;
    for (int i = 0; i < n; i++) {
        if (load_entry(root, &v[i], l)) {
            rc = WL_EUSAGE;
            continue;
        }
        printf("%2d  %-22s %s\n", l->number, v[i].dir, zh ? l->title_zh : l->title);
    }
    free(l);
    return rc;
}

static int wants_zh(const char *lang)
{
    if (lang)
        return !strncmp(lang, "zh", 2);
    const char *vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *e = getenv(vars[i]);
        if (e && *e)
            return !strncmp(e, "zh", 2);
    }
    return 0;
}

static void free_results(lexp_session *s)
{
    lexp_result *all[] = {s->runs, s->occs, s->archs};
    int counts[] = {LESSON_MAX_RUNS, LESSON_MAX_OCCS, LESSON_MAX_ARCHS};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < counts[k]; i++) {
            cJSON_Delete(all[k][i].json);
            cJSON_Delete(all[k][i].measured);
        }
    cJSON_Delete(s->student.json);
}

static int lesson_main(lexp_session *s, int check, const char *check_file, int view,
                       const char *png_dir)
{
    const lesson_t *l = s->l;
    diag_t d;
    if (arch_load(cli_arch_dir(), l->arch, &s->lesson_arch, &d))
        return cli_report(&d);
    /* `lesson N --png DIR` is the README's main job: the lesson's report first, then its
     * pictures; with --view or --check the pictures come alone, as before. */
    int report_then_png = png_dir && !view && !check && !check_file;
    if ((view || png_dir) && !report_then_png)
        return pictures(s, png_dir, view && !png_dir);
    if (check_file) {
        if (!l->has_exercise)
            return cli_usage_error(CMD, "lesson %d has no exercise", l->number);
        int rc = check_student(s, check_file);
        lexp_rmtmp(s);
        return rc;
    }
    lexp_run_all(s);
    if (s->zh)
        printf("第 %d 课：%s\n", l->number, l->title_zh);
    else
        printf("Lesson %d: %s\n", l->number, l->title);
    print_tables(s);
    printf("\n%s\n", lexp_tr(s, "Takeaway:", "要点："));
    lexp_wrap(lexp_tr(s, l->takeaway, l->takeaway_zh), 2, 94);
    if (!check) {
        if (l->has_exercise) {
            printf("\n%s\n", lexp_tr(s, "Exercise:", "练习："));
            lexp_wrap(lexp_tr(s, l->task, l->task_zh), 2, 94);
            printf("  %s cp %s mine.cu; warplab lesson %d --check mine.cu\n",
                   lexp_tr(s, "then:", "然后："), l->ex_kernel, l->number);
        }
        if (report_then_png) {
            int gpu_view = !strcmp(l->view_kind, "gpu");
            printf("\n%s\n",
                   gpu_view ? lexp_tr(s, "Pictures (the blocks on every SM in each run):",
                                      "图片（每个实验中每个 SM 上的 block）：")
                            : lexp_tr(s, "Pictures (the warps of one SM in each run):",
                                      "图片（每个实验中一个 SM 上的 warp）："));
            fflush(stdout);
            return pictures(s, png_dir, 0);
        }
        return WL_OK;
    }
    lexp_tally t = {0, 0, 0};
    printf("\n%s\n", lexp_tr(s, "Checks:", "检查："));
    lexp_checks(s, 0, &t);
    printf("\n%d %s, %d %s, %d %s\n", t.passed, lexp_tr(s, "passed", "通过"), t.failed,
           lexp_tr(s, "failed", "失败"), t.unmet,
           lexp_tr(s, "not verified (need timing or measured data not available yet)",
              "未验证（所需的计时或实测数据尚未就绪）"));
    return t.failed || t.unmet ? WL_EUSAGE : WL_OK;
}

int cmd_lesson(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("%s", usage_text);
        return WL_OK;
    }
    const char *which = NULL, *check_file = NULL, *png_dir = NULL, *lang = NULL;
    int check = 0, view = 0, full = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--check")) {
            check = 1;
            if (i + 1 < argc && argv[i + 1][0] != '-')
                check_file = argv[++i];
        } else if (!strcmp(a, "--view")) {
            view = 1;
        } else if (!strcmp(a, "--full")) {
            full = 1;
        } else if (!strcmp(a, "--png") || !strcmp(a, "--lang")) {
            if (i + 1 >= argc)
                return cli_usage_error(CMD, "%s needs a value", a);
            *(a[2] == 'p' ? &png_dir : &lang) = argv[++i];
        } else if (a[0] == '-') {
            return cli_usage_error(CMD, "unknown option '%s'", a);
        } else if (!which) {
            which = a;
        } else if (check && !check_file) {
            check_file = a; /* lesson N --check --lang zh FILE */
        } else {
            return cli_usage_error(CMD, "unexpected argument '%s'", a);
        }
    }
    if (lang && strcmp(lang, "en") && strcmp(lang, "zh"))
        return cli_usage_error(CMD, "--lang takes en or zh, not '%s'", lang);
    /* the claims and goals are written for the lesson's own launches (a loop's divergence, say,
     * is diluted by the H200 case's many more trips) */
    if (full && check)
        return cli_usage_error(CMD, "--full is for the table: --check verifies the lesson's "
                                    "claims on its own launches");
    int zh = wants_zh(lang);
    const char *root = cli_root_dir();
    if (!which || !strcmp(which, "list")) {
        if (check || view || png_dir || full)
            return cli_usage_error(CMD, "--check, --view, --png and --full need a lesson number");
        return do_list(root, zh);
    }
    char *end;
    long num = strtol(which, &end, 10);
    if (*end || num < 1 || num > 99)
        return cli_usage_error(CMD, "'%s' is not a lesson number (see: warplab lesson list)",
                               which);
    lesson_entry v[MAX_LESSONS];
    int n = find_lessons(root, v, MAX_LESSONS), k = -1;
    for (int i = 0; i < n; i++)
        if (v[i].number == num)
            k = i;
    if (k < 0)
        return cli_usage_error(CMD, "no lesson %ld (see: warplab lesson list)", num);
    lexp_session *s = calloc(1, sizeof *s);
    lesson_t *l = malloc(sizeof *l);
    int rc = WL_EUSAGE;
    if (s && l && load_entry(root, &v[k], l) == WL_OK) {
        s->l = l;
        s->zh = zh;
        s->full = full;
        snprintf(s->root, sizeof s->root, "%s", root);
        snprintf(s->dir, sizeof s->dir, "%s/lessons/%s", root, v[k].dir);
        ssize_t m = readlink("/proc/self/exe", s->self, sizeof s->self - 1);
        if (m > 0)
            s->self[m] = '\0';
        else
            snprintf(s->self, sizeof s->self, "warplab");
        rc = lesson_main(s, check, check_file, view, png_dir);
        free_results(s);
    }
    free(l);
    free(s);
    return rc;
}
