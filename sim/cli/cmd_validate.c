/* warplab validate: the model against the real GPU.
 *
 * For every measured case gpu/measured/<arch>/<case>.json written by the GPU harness (not the
 * occupancy-* files, not microbench/), replays the same launch (PTX file, kernel, grid, block,
 * dynamic shared memory, --arg specs, all taken from the JSON) through the timing model at full
 * size, with the register count the GPU's compiler chose (attributes.num_regs, so occupancy is
 * the hardware's). It compares the predicted time with the kernel's duration as Nsight Compute
 * measured it (ncu.gpu_time_us: caches flushed before the kernel, like the model's cold start),
 * or, for a case without ncu data, the median of cold cudaEvent runs (timing.median_us), and
 * prints per case the error, then the mean absolute percentage error over the cases of 10 us or
 * more (issue #6), Pearson's correlation of log times, the biggest outliers, the "A is faster
 * than B" relationships of gpu/validate-pairs.txt with measured and predicted ratios, how
 * often the model's top stall reason is Nsight Compute's, and how far apart the two stall
 * breakdowns are (validate_report.h, vrep_stall_distance).
 *
 * Options: --arch NAME (required), --json, --markdown (the table of docs/validation.md),
 * --cases GLOB[,GLOB...] (case names, fnmatch), --measured DIR, --pairs FILE, -j N (cases
 * simulated in parallel child processes; results do not depend on N), --predictions FILE (reuse the
 * predictions of an earlier --json run instead of simulating), --png FILE (log-log scatter of
 * predicted vs measured; needs the viewer build). Progress goes to stderr.
 * Exit: 0 when every case ran; the failing status (2, 3, 4) when a case failed to run; 1 for bad
 * usage or when there is no measured case.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "arch.h"
#include "argspec.h"
#include "cli.h"
#include "devmem.h"
#include "ptx.h"
#include "spillmap.h"
#include "timing.h"
#include "validate_report.h"

#define CMD "validate"

static const char usage_text[] =
    "usage: warplab validate --arch NAME [--json | --markdown] [--cases GLOB[,GLOB]] [-j N]\n"
    "                        [--measured DIR] [--pairs FILE] [--predictions FILE.json]\n"
    "                        [--png FILE.png] [--policy lrr|gto|gty|brr|two-level]\n"
    "Replays every measured case of gpu/measured/NAME/ through the timing model and prints\n"
    "measured vs predicted time, the error per case, the mean absolute percentage error (cases\n"
    ">= 10 us), the correlation of log times, the biggest outliers, the lesson relationships of\n"
    "gpu/validate-pairs.txt, the top-stall agreement with Nsight Compute and how far apart the\n"
    "model's and Nsight Compute's stall breakdowns are (\"mix apart\"; with --cases NAME\n"
    "matching one case, the two breakdowns side by side). --policy runs every case under that\n"
    "scheduling policy instead of the arch file's (docs/model.md, section 2).\n";


typedef struct {
    const char *arch;
    int json, markdown, jobs;
    const char *glob, *measured_dir, *pairs_file, *predictions, *png, *policy;
} vopts;

/* ---- measured files ----------------------------------------------------------------------- */

static int json_dims(const cJSON *a, uint32_t out[3])
{
    out[0] = out[1] = out[2] = 1;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 || cJSON_GetArraySize(a) > 3)
        return -1;
    for (int i = 0; i < cJSON_GetArraySize(a); i++) {
        const cJSON *v = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 4294967295.0)
            return -1;
        out[i] = (uint32_t)v->valuedouble;
    }
    return 0;
}

/* Largest entry of a {reason: number} object ("" when empty). */
/* The largest and second largest stall reasons (first wins a tie). */
static void top_of(const cJSON *stalls, char *out, char *out2, size_t size)
{
    double best = -1, second = -1;
    out[0] = out2[0] = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, stalls)
    {
        if (!cJSON_IsNumber(s) || !s->string)
            continue;
        if (s->valuedouble > best) {
            second = best;
            snprintf(out2, size, "%s", out);
            best = s->valuedouble;
            snprintf(out, size, "%s", s->string);
        } else if (s->valuedouble > second) {
            second = s->valuedouble;
            snprintf(out2, size, "%s", s->string);
        }
    }
}

/* Nsight Compute's stall breakdown (reason -> warp cycles per issued instruction,
 * smsp__average_warps_issue_stalled_*_per_issue_active) as shares: c->ncu_share per reason the
 * model has, c->ncu_other for the rest. Nothing when there are none. */
static void shares_of(const cJSON *stalls, vcase *c)
{
    double total = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, stalls)
    {
        if (cJSON_IsNumber(s) && s->string && s->valuedouble > 0)
            total += s->valuedouble;
    }
    if (!(total > 0))
        return;
    cJSON_ArrayForEach(s, stalls)
    {
        if (!cJSON_IsNumber(s) || !s->string || !(s->valuedouble > 0))
            continue;
        int r = stall_from_name(s->string);
        if (r >= 0)
            c->ncu_share[r] += s->valuedouble / total;
        else
            c->ncu_other += s->valuedouble / total;
    }
    c->ncu_shares = 1;
}

static char *read_all(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max, f) : 0;
    int too_big = buf && n == max && fgetc(f) != EOF;
    fclose(f);
    if (!buf || too_big) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

/* Fills c from one measured JSON. 0 ok, else a one-line message in err. */
static int load_case(const char *path, vcase *c, char *err, size_t errsize)
{
    char *text = read_all(path, 64u << 20);
    if (!text) {
        snprintf(err, errsize, "%s: cannot read (missing or over 64 MB)", path);
        return -1;
    }
    cJSON *j = cJSON_Parse(text);
    free(text);
    if (!j) {
        snprintf(err, errsize, "%s: not valid JSON", path);
        return -1;
    }
    memset(c, 0, sizeof *c);
    c->status = -1;
    const char *what = NULL;
    const cJSON *name = cJSON_GetObjectItem(j, "case"), *ptx = cJSON_GetObjectItem(j, "ptx"),
                *kernel = cJSON_GetObjectItem(j, "kernel"), *args = cJSON_GetObjectItem(j, "args"),
                *smem = cJSON_GetObjectItem(j, "smem"),
                *attr = cJSON_GetObjectItem(j, "attributes"),
                *timing = cJSON_GetObjectItem(j, "timing"),
                *med = cJSON_GetObjectItem(timing, "median_us"),
                *regs = cJSON_GetObjectItem(attr, "num_regs"), *ncu = cJSON_GetObjectItem(j, "ncu");
    if (!cJSON_IsString(name) || strlen(name->valuestring) >= sizeof c->name)
        what = "\"case\" (a name)";
    else if (!cJSON_IsString(ptx) || strlen(ptx->valuestring) >= sizeof c->ptx)
        what = "\"ptx\" (a path)";
    else if (!cJSON_IsString(kernel) || strlen(kernel->valuestring) >= sizeof c->kernel)
        what = "\"kernel\"";
    else if (json_dims(cJSON_GetObjectItem(j, "grid"), c->grid))
        what = "\"grid\" ([x, y, z] >= 1)";
    else if (json_dims(cJSON_GetObjectItem(j, "block"), c->block))
        what = "\"block\" ([x, y, z] >= 1)";
    else if (smem && (!cJSON_IsNumber(smem) || smem->valuedouble < 0 || smem->valuedouble > 1e9))
        what = "\"smem\" (bytes)";
    else if (!cJSON_IsArray(args) || cJSON_GetArraySize(args) > MAX_ARGS)
        what = "\"args\" (up to 16 --arg specs)";
    else if (!cJSON_IsNumber(med) || !(med->valuedouble > 0))
        what = "\"timing.median_us\" (> 0)";
    else if (regs && (!cJSON_IsNumber(regs) || regs->valuedouble < 1 || regs->valuedouble > 255))
        what = "\"attributes.num_regs\" (1..255)";
    for (int i = 0; !what && i < cJSON_GetArraySize(args); i++)
        if (!cJSON_IsString(cJSON_GetArrayItem(args, i)))
            what = "\"args\" (strings)";
    if (what) {
        snprintf(err, errsize, "%s: missing or bad %s", path, what);
        cJSON_Delete(j);
        return -1;
    }
    snprintf(c->name, sizeof c->name, "%s", name->valuestring);
    snprintf(c->ptx, sizeof c->ptx, "%s", ptx->valuestring);
    snprintf(c->kernel, sizeof c->kernel, "%s", kernel->valuestring);
    c->smem = smem ? (uint32_t)smem->valuedouble : 0;
    c->regs = regs ? (int)regs->valuedouble : 32;
    /* the kernel's own duration when Nsight Compute measured it: the event pair adds the
     * launch (~2 us) and the write-back of the dirty lines the harness's L2-evicting memset left;
     * the model predicts first block dispatched to last block retired */
    const cJSON *gpu_us = cJSON_GetObjectItem(ncu, "gpu_time_us");
    c->event_us = med->valuedouble;
    c->from_ncu = cJSON_IsNumber(gpu_us) && gpu_us->valuedouble > 0;
    c->measured_us = c->from_ncu ? gpu_us->valuedouble : c->event_us;
    c->nargs = cJSON_GetArraySize(args);
    for (int i = 0; i < c->nargs; i++)
        c->args[i] = strdup(cJSON_GetArrayItem(args, i)->valuestring);
    top_of(cJSON_GetObjectItem(ncu, "stalls"), c->ncu_top, c->ncu_top2, sizeof c->ncu_top);
    shares_of(cJSON_GetObjectItem(ncu, "stalls"), c);
    /* the bytes DRAM moved during the kernel (its caches flushed before it, as in the model) */
    const cJSON *dram = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(ncu, "metrics"), "dram__bytes.sum"), "value");
    if (cJSON_IsNumber(dram) && dram->valuedouble > 0 && dram->valuedouble < 1e15)
        c->ncu_dram_bytes = dram->valuedouble;
    cJSON_Delete(j);
    return 0;
}

static void free_case(vcase *c)
{
    for (int i = 0; i < c->nargs; i++)
        free(c->args[i]);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const vcase *)a)->name, ((const vcase *)b)->name);
}

/* Every <case>.json of dir whose case name matches glob. *out sorted by name. */
/* Whether name matches one of the comma-separated globs (NULL: every name). */
static int glob_match(const char *globs, const char *name)
{
    if (!globs)
        return 1;
    char one[256];
    for (const char *p = globs; *p;) {
        size_t len = strcspn(p, ",");
        if (len < sizeof one) {
            memcpy(one, p, len);
            one[len] = 0;
            if (!fnmatch(one, name, 0))
                return 1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

static int load_cases(const char *dir, const char *glob, vcase **out, int *n)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return cli_usage_error(CMD, "%s: no measured directory (run the GPU harness first: "
                                    "docs/measurements.md)", dir);
    vcase *v = NULL;
    int cnt = 0, cap = 0, bad = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") || !strncmp(e->d_name, "occupancy-", 10))
            continue;
        char path[1400], err[1700];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        vcase c;
        if (load_case(path, &c, err, sizeof err)) {
            fprintf(stderr, "warplab validate: %s\n", err);
            bad = 1;
            break;
        }
        if (!glob_match(glob, c.name)) {
            free_case(&c);
            continue;
        }
        if (cnt == cap) {
            cap = cap ? 2 * cap : 64;
            vcase *nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) {
                free_case(&c);
                bad = 1;
                break;
            }
            v = nv;
        }
        v[cnt++] = c;
    }
    closedir(dp);
    if (!bad && cnt)
        qsort(v, (size_t)cnt, sizeof *v, by_name);
    *out = v;
    *n = cnt;
    return bad ? WL_EUSAGE : WL_OK;
}

/* ---- simulation ----------------------------------------------------------------------------- */

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(vcase *c, wl_status st, const diag_t *d)
{
    diag_format(d, c->msg, sizeof c->msg);
    c->status = st;
    return st;
}

/* Runs one case through timing_run; fills the prediction fields. */
static int simulate(const arch_t *a, vcase *c)
{
    diag_t d;
    diag_clear(&d);
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", cli_root_dir(), c->ptx);
    ptx_module *m = NULL;
    wl_status st = ptx_parse_file(path, &m, &d);
    if (st == WL_OK)
        st = ptx_schedule(m, &d);
    if (st != WL_OK)
        return fail(c, st, &d);
    const ptx_func *k = ptx_find_func(m, c->kernel);
    devmem_t *mem = devmem_create(0);
    uint8_t params[4096] = {0};
    if (!k || !mem)
        st = mem ? diag_set(&d, WL_EUSAGE, path, 0, 0, "no kernel '%s' in this PTX", c->kernel)
                 : diag_set(&d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    else if ((int)k->nparams != c->nargs)
        st = diag_set(&d, WL_EUSAGE, NULL, 0, 0, "kernel %s has %u parameters, the case gives %d",
                      c->kernel, (unsigned)k->nparams, c->nargs);
    for (int i = 0; st == WL_OK && i < c->nargs; i++) {
        argspec s;
        if ((st = argspec_parse(c->args[i], &s, &d)) != WL_OK)
            break;
        uint32_t off = k->params[i].offset;
        if (off + 8 > sizeof params) {
            st = diag_set(&d, WL_EUSAGE, NULL, 0, 0, "parameter %d beyond 4 KB", i);
        } else if (s.is_buffer) {
            uint64_t addr = 0;
            if ((st = devmem_alloc(mem, argspec_bytes(&s), NULL, &addr, &d)) == WL_OK)
                st = argspec_fill(&s, devmem_translate(mem, addr, argspec_bytes(&s)), &d);
            memcpy(params + off, &addr, 8);
        } else {
            st = argspec_fill(&s, params + off, &d);
        }
    }
    spillmap *sm = NULL; /* ptxas's spill code, from the map beside the PTX (spillmap.h) */
    if (st == WL_OK)
        st = spillmap_load_beside(path, &sm, &d);
    if (st == WL_OK) {
        timing_config cfg = {.dyn_smem = c->smem, .params = params,
                             .params_size = k->param_size ? k->param_size : 8,
                             .regs_per_thread = c->regs, .policy = -1,
                             .spills = spillmap_find(sm, c->kernel),
                             .spills_path = sm ? sm->path : NULL};
        memcpy(cfg.grid, c->grid, sizeof cfg.grid);
        memcpy(cfg.block, c->block, sizeof cfg.block);
        timing_result r;
        double t0 = cpu_seconds();
        st = timing_run(m, k, a, &cfg, mem, &r, &d);
        c->sim_s = cpu_seconds() - t0;
        if (st == WL_OK) {
            c->predicted_us = r.time_us;
            c->cycles = r.cycles;
            c->warp_instructions = r.warp_instructions;
            c->dram_bytes = r.dram_bytes;
            c->l1_hit = r.l1_hit_rate;
            c->l2_hit = r.l2_hit_rate;
            int best = 0;
            for (int i = 1; i < STALL_COUNT; i++)
                if (r.stalls[i] > r.stalls[best])
                    best = i;
            snprintf(c->top, sizeof c->top, "%s", stall_name(best));
            uint64_t total = 0;
            for (int i = 0; i < STALL_COUNT; i++)
                total += r.stalls[i];
            for (int i = 0; total && i < STALL_COUNT; i++)
                c->model_share[i] = (double)r.stalls[i] / (double)total;
            c->model_shares = total > 0;
            timing_result_free(&r);
        }
    }
    devmem_destroy(mem);
    ptx_module_free(m);
    spillmap_free(sm);
    if (st != WL_OK)
        return fail(c, st, &d);
    c->status = WL_OK;
    return WL_OK;
}

/* What a child sends back through its pipe. */
typedef struct {
    int status;
    double predicted_us, sim_s, l1_hit, l2_hit;
    uint64_t cycles, warp_instructions, dram_bytes;
    char top[32], msg[512];
    int model_shares;
    double model_share[STALL_COUNT];
} vresult;

static void to_result(const vcase *c, vresult *r)
{
    memset(r, 0, sizeof *r);
    r->status = c->status;
    r->predicted_us = c->predicted_us;
    r->sim_s = c->sim_s;
    r->l1_hit = c->l1_hit;
    r->l2_hit = c->l2_hit;
    r->cycles = c->cycles;
    r->warp_instructions = c->warp_instructions;
    r->dram_bytes = c->dram_bytes;
    memcpy(r->top, c->top, sizeof r->top);
    memcpy(r->msg, c->msg, sizeof r->msg);
    r->model_shares = c->model_shares;
    memcpy(r->model_share, c->model_share, sizeof r->model_share);
}

static void from_result(vcase *c, const vresult *r)
{
    c->status = r->status;
    c->predicted_us = r->predicted_us;
    c->sim_s = r->sim_s;
    c->l1_hit = r->l1_hit;
    c->l2_hit = r->l2_hit;
    c->cycles = r->cycles;
    c->warp_instructions = r->warp_instructions;
    c->dram_bytes = r->dram_bytes;
    memcpy(c->top, r->top, sizeof c->top);
    memcpy(c->msg, r->msg, sizeof c->msg);
    c->model_shares = r->model_shares;
    memcpy(c->model_share, r->model_share, sizeof c->model_share);
    c->top[sizeof c->top - 1] = c->msg[sizeof c->msg - 1] = 0;
}

static void progress(const vcase *c, int done, int n)
{
    if (c->status == WL_OK)
        fprintf(stderr, "[%d/%d] %-20s predicted %10.2f us, measured %10.2f us (%+.1f%%), %.1f s\n",
                done, n, c->name, c->predicted_us, c->measured_us,
                100.0 * (c->predicted_us - c->measured_us) / c->measured_us, c->sim_s);
    else
        fprintf(stderr, "[%d/%d] %-20s FAILED: %s\n", done, n, c->name, c->msg);
}

/* Simulates every case, `jobs` child processes at a time (in this process when jobs == 1). */
static void simulate_all(const arch_t *a, vcase *v, int n, int jobs)
{
    if (jobs <= 1) {
        for (int i = 0; i < n; i++) {
            simulate(a, &v[i]);
            progress(&v[i], i + 1, n);
        }
        return;
    }
    pid_t *pid = calloc((size_t)n, sizeof *pid);
    int *fd = calloc((size_t)n, sizeof *fd);
    int next = 0, running = 0, done = 0;
    while (pid && fd && done < n) {
        while (running < jobs && next < n) {
            int p[2];
            if (pipe(p)) {
                snprintf(v[next].msg, sizeof v[next].msg, "pipe failed");
                v[next].status = WL_EUSAGE;
                progress(&v[next], ++done, n);
                next++;
                continue;
            }
            fflush(NULL);
            pid_t c = fork();
            if (c == 0) {
                close(p[0]);
                simulate(a, &v[next]);
                vresult r;
                to_result(&v[next], &r);
                ssize_t w = write(p[1], &r, sizeof r);
                _exit(w == (ssize_t)sizeof r ? 0 : 1);
            }
            close(p[1]);
            if (c < 0) {
                close(p[0]);
                snprintf(v[next].msg, sizeof v[next].msg, "fork failed");
                v[next].status = WL_EUSAGE;
                progress(&v[next], ++done, n);
            } else {
                pid[next] = c;
                fd[next] = p[0];
                running++;
            }
            next++;
        }
        if (!running)
            break;
        int wst;
        pid_t w = wait(&wst);
        for (int i = 0; w > 0 && i < next; i++) {
            if (pid[i] != w)
                continue;
            vresult r;
            memset(&r, 0, sizeof r);
            ssize_t got = read(fd[i], &r, sizeof r);
            close(fd[i]);
            pid[i] = 0;
            running--;
            if (got == (ssize_t)sizeof r) {
                from_result(&v[i], &r);
            } else {
                v[i].status = WL_EUSAGE;
                snprintf(v[i].msg, sizeof v[i].msg, "the simulation process died (%s %d)",
                         WIFSIGNALED(wst) ? "signal" : "exit",
                         WIFSIGNALED(wst) ? WTERMSIG(wst) : WEXITSTATUS(wst));
            }
            progress(&v[i], ++done, n);
        }
    }
    free(pid);
    free(fd);
}

/* Predictions from an earlier `validate --json`: cases matched by name. */
static int load_predictions(const char *path, vcase *v, int n)
{
    char *text = read_all(path, 64u << 20);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *cases = cJSON_GetObjectItem(j, "cases");
    if (!cJSON_IsArray(cases)) {
        cJSON_Delete(j);
        return cli_usage_error(CMD, "%s: not the output of `warplab validate --json`", path);
    }
    for (int i = 0; i < n; i++) {
        const cJSON *c;
        snprintf(v[i].msg, sizeof v[i].msg, "not in %s", path);
        v[i].status = WL_EUSAGE;
        cJSON_ArrayForEach(c, cases)
        {
            const cJSON *nm = cJSON_GetObjectItem(c, "case");
            const cJSON *p = cJSON_GetObjectItem(c, "predicted_us");
            if (!cJSON_IsString(nm) || strcmp(nm->valuestring, v[i].name))
                continue;
            if (!cJSON_IsNumber(p) || !(p->valuedouble > 0))
                break;
            const cJSON *top = cJSON_GetObjectItem(c, "top_stall_model");
            const cJSON *cyc = cJSON_GetObjectItem(c, "cycles");
            const cJSON *dram = cJSON_GetObjectItem(c, "dram_bytes");
            v[i].predicted_us = p->valuedouble;
            v[i].cycles = cJSON_IsNumber(cyc) ? (uint64_t)cyc->valuedouble : 0;
            v[i].dram_bytes = cJSON_IsNumber(dram) && dram->valuedouble > 0 &&
                                      dram->valuedouble < 1e18
                                  ? (uint64_t)dram->valuedouble
                                  : 0;
            snprintf(v[i].top, sizeof v[i].top, "%s", cJSON_IsString(top) ? top->valuestring : "");
            /* the model's breakdown (absent from files of before it was written) */
            const cJSON *sh = cJSON_GetObjectItem(c, "stall_shares_model"), *e;
            const cJSON *shares = cJSON_IsObject(sh) ? sh : NULL;
            cJSON_ArrayForEach(e, shares)
            {
                int r = e->string ? stall_from_name(e->string) : -1;
                if (r < 0 || !cJSON_IsNumber(e) || !(e->valuedouble >= 0)) {
                    int rc = cli_usage_error(CMD, "%s: case %s: bad stall_shares_model entry "
                                             "'%s'", path, v[i].name, e->string ? e->string : "");
                    cJSON_Delete(j);
                    return rc;
                }
                v[i].model_share[r] = e->valuedouble;
                v[i].model_shares = 1;
            }
            v[i].status = WL_OK;
            v[i].msg[0] = 0;
            break;
        }
    }
    cJSON_Delete(j);
    return WL_OK;
}

/* ---- the command ---------------------------------------------------------------------------- */

static int parse_opts(int argc, char **argv, vopts *o)
{
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = !strcmp(a, "--arch")          ? &o->arch
                           : !strcmp(a, "--cases")       ? &o->glob
                           : !strcmp(a, "--measured")    ? &o->measured_dir
                           : !strcmp(a, "--pairs")       ? &o->pairs_file
                           : !strcmp(a, "--predictions") ? &o->predictions
                           : !strcmp(a, "--png")         ? &o->png
                           : !strcmp(a, "--policy")      ? &o->policy
                                                         : NULL;
        if (dst) {
            if (i + 1 >= argc)
                return cli_usage_error(CMD, "%s needs a value", a);
            *dst = argv[++i];
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (!strcmp(a, "--markdown")) {
            o->markdown = 1;
        } else if (!strcmp(a, "-j")) {
            char *end = NULL;
            long j = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || !end || *end || j < 1 || j > 256)
                return cli_usage_error(CMD, "-j needs a number of processes, 1..256");
            o->jobs = (int)j;
            i++;
        } else {
            return cli_usage_error(CMD, "unknown option '%s' (see warplab validate --help)", a);
        }
    }
    if (!o->arch)
        return cli_usage_error(CMD, "--arch NAME is required (e.g. --arch h200)");
    if (o->json && o->markdown)
        return cli_usage_error(CMD, "--json and --markdown exclude each other");
    if (o->policy && sched_policy_from_name(o->policy) < 0)
        return cli_usage_error(CMD, "--policy '%s': expected lrr, gto, gty, brr or two-level",
                               o->policy);
    return WL_OK;
}

int cmd_validate(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        printf("%s", usage_text);
        return WL_OK;
    }
    vopts o;
    int st = parse_opts(argc, argv, &o);
    if (st != WL_OK)
        return st;
    arch_t a;
    diag_t d;
    diag_clear(&d);
    if (arch_load(cli_arch_dir(), o.arch, &a, &d) != WL_OK)
        return cli_report(&d);
    if (o.policy) /* every case's timing_config asks for the arch file's policy (-1) */
        snprintf(a.sched_policy, sizeof a.sched_policy, "%s", o.policy);
    char mdir[1024], pfile[1024];
    snprintf(mdir, sizeof mdir, "%s/gpu/measured/%s", cli_root_dir(), a.name);
    snprintf(pfile, sizeof pfile, "%s/gpu/validate-pairs.txt", cli_root_dir());
    const char *dir = o.measured_dir ? o.measured_dir : mdir;
    vcase *v = NULL;
    int n = 0;
    if ((st = load_cases(dir, o.glob, &v, &n)) != WL_OK) {
        for (int i = 0; i < n; i++)
            free_case(&v[i]);
        free(v);
        return st;
    }
    if (n == 0) {
        free(v);
        fprintf(stderr, "warplab validate: no measured cases%s%s%s in %s (the GPU harness writes "
                        "them: docs/measurements.md)\n", o.glob ? " matching '" : "",
                o.glob ? o.glob : "", o.glob ? "'" : "", dir);
        return WL_EUSAGE;
    }
    if (o.predictions) {
        st = load_predictions(o.predictions, v, n);
    } else {
        fprintf(stderr, "warplab validate: %d cases from %s on %s (policy %s), %d process%s\n", n,
                dir, a.name, a.sched_policy, o.jobs, o.jobs > 1 ? "es" : "");
        simulate_all(&a, v, n, o.jobs);
    }
    if (st == WL_OK)
        st = vrep_print(a.name, o.predictions ? NULL : a.sched_policy, v, n,
                        o.pairs_file ? o.pairs_file : pfile,
                        o.json ? VREP_JSON : o.markdown ? VREP_MARKDOWN : VREP_TEXT, o.png);
    /* a case that failed to run makes the whole run fail, with its status */
    for (int i = 0; st == WL_OK && i < n; i++)
        if (v[i].status != WL_OK)
            st = v[i].status > 0 ? v[i].status : WL_EUSAGE;
    for (int i = 0; i < n; i++)
        free_case(&v[i]);
    free(v);
    return st;
}
