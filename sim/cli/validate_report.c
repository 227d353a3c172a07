/* validate_report: figures and reports of `warplab validate`; see validate_report.h. */
#include "validate_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#ifdef WL_HAVE_VIEWER
#include "viz_scatter.h"
#endif

#define MAX_PAIRS 64
#define N_OUTLIERS 5

typedef struct {
    char name[64], fast[96], slow[96], what[160];
    int line;
    int ok;                     /* both cases predicted */
    double meas_ratio, pred_ratio; /* slow / fast */
    int direction_ok, within;
} vpair;

typedef struct {
    int ran, failed, included, stall_total, stall_agree, stall_top2;
    int dist_cases, dist_worst;         /* cases with both breakdowns; the farthest one */
    double dist_mean, dist_median, dist_max;
    int dram_cases, dram_within, dram_worst; /* DRAM traffic compared; within 10%; farthest */
    double dram_mean;                   /* mean |model / Nsight Compute - 1| */
    double mape, mape_all, pearson;
    int outliers[N_OUTLIERS], noutliers;
    vpair pairs[MAX_PAIRS];
    int npairs, pairs_direction_ok, pairs_within, pairs_ok;
    int pairs_missing_file;
} vsummary;

static double err_of(const vcase *c)
{
    return (c->predicted_us - c->measured_us) / c->measured_us;
}

static int included(const vcase *c)
{
    return c->status == 0 && c->measured_us >= VREP_MIN_US;
}

double vrep_stall_distance(const vcase *c)
{
    if (c->status || !c->model_shares || !c->ncu_shares)
        return NAN;
    double d = c->ncu_other; /* reasons the model never charges */
    for (int i = 0; i < STALL_COUNT; i++)
        d += fabs(c->model_share[i] - c->ncu_share[i]);
    return d / 2;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Mean, median and farthest case of the stall-breakdown distances. */
static void summarise_distances(const vcase *v, int n, vsummary *s)
{
    double *d = n > 0 ? malloc((size_t)n * sizeof *d) : NULL, sum = 0;
    s->dist_cases = 0;
    s->dist_worst = -1;
    for (int i = 0; d && i < n; i++) {
        double x = vrep_stall_distance(&v[i]);
        if (isnan(x))
            continue;
        d[s->dist_cases++] = x;
        sum += x;
        if (s->dist_worst < 0 || x > s->dist_max) {
            s->dist_worst = i;
            s->dist_max = x;
        }
    }
    s->dist_mean = s->dist_median = NAN;
    if (s->dist_cases) {
        qsort(d, (size_t)s->dist_cases, sizeof *d, by_value);
        int k = s->dist_cases;
        s->dist_mean = sum / k;
        s->dist_median = k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2;
    }
    free(d);
}

/* The model's DRAM traffic against Nsight Compute's: model / measured - 1, NAN where either is
 * missing or the kernel moved less than VREP_DRAM_MIN bytes (a few lines of difference would
 * dominate). */
static double dram_diff(const vcase *c)
{
    if (c->status || c->ncu_dram_bytes < VREP_DRAM_MIN || c->dram_bytes == 0)
        return NAN;
    return (double)c->dram_bytes / c->ncu_dram_bytes - 1;
}

static void summarise_dram(const vcase *v, int n, vsummary *s)
{
    double sum = 0;
    s->dram_cases = s->dram_within = 0;
    s->dram_worst = -1;
    for (int i = 0; i < n; i++) {
        double x = dram_diff(&v[i]);
        if (isnan(x))
            continue;
        s->dram_cases++;
        s->dram_within += fabs(x) <= VREP_DRAM_TOL;
        sum += fabs(x);
        if (s->dram_worst < 0 || fabs(x) > fabs(dram_diff(&v[s->dram_worst])))
            s->dram_worst = i;
    }
    s->dram_mean = s->dram_cases ? sum / s->dram_cases : NAN;
}

static const vcase *find(const vcase *v, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i].name, name))
            return &v[i];
    return NULL;
}

/* Reads the pairs file; 0 ok (a missing file is noted, not an error), else WL_EUSAGE. */
static int read_pairs(const char *path, const vcase *v, int n, vsummary *s)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        s->pairs_missing_file = 1;
        return 0;
    }
    char buf[512];
    int line = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        if (!strchr(buf, '\n') && !feof(f)) {
            fclose(f);
            fprintf(stderr, "warplab validate: %s:%d: line longer than 510 characters\n", path, line);
            return WL_EUSAGE;
        }
        char *p = buf + strspn(buf, " \t");
        if (*p == '#' || *p == '\n' || !*p)
            continue;
        if (s->npairs == MAX_PAIRS) {
            fclose(f);
            fprintf(stderr, "warplab validate: %s:%d: more than %d pairs\n", path, line, MAX_PAIRS);
            return WL_EUSAGE;
        }
        vpair *q = &s->pairs[s->npairs];
        memset(q, 0, sizeof *q);
        int used = 0;
        if (sscanf(p, "%63s %95s %95s %n", q->name, q->fast, q->slow, &used) != 3) {
            fclose(f);
            fprintf(stderr, "warplab validate: %s:%d:1: expected NAME FAST_CASE SLOW_CASE "
                            "DESCRIPTION\n", path, line);
            return WL_EUSAGE;
        }
        snprintf(q->what, sizeof q->what, "%s", p + used);
        q->what[strcspn(q->what, "\n")] = 0;
        q->line = line;
        const vcase *a = find(v, n, q->fast), *b = find(v, n, q->slow);
        s->npairs++;
        if (!a || !b || a->status || b->status)
            continue; /* not measured or not predicted: shown as n/a */
        q->ok = 1;
        q->meas_ratio = b->measured_us / a->measured_us;
        q->pred_ratio = b->predicted_us / a->predicted_us;
        q->direction_ok = (q->meas_ratio >= 1) == (q->pred_ratio >= 1);
        q->within = fabs(q->pred_ratio / q->meas_ratio - 1.0) <= VREP_PAIR_TOL;
        s->pairs_ok++;
        s->pairs_direction_ok += q->direction_ok;
        s->pairs_within += q->direction_ok && q->within;
    }
    fclose(f);
    return 0;
}

static void summarise(const vcase *v, int n, vsummary *s)
{
    double sum = 0, sum_all = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        const vcase *c = &v[i];
        if (c->status) {
            s->failed++;
            continue;
        }
        s->ran++;
        sum_all += fabs(err_of(c));
        if (c->ncu_top[0]) {
            s->stall_total++;
            s->stall_agree += !strcmp(c->ncu_top, c->top);
            s->stall_top2 += !strcmp(c->ncu_top, c->top) || !strcmp(c->ncu_top2, c->top);
        }
        if (!included(c))
            continue;
        s->included++;
        sum += fabs(err_of(c));
        double x = log(c->measured_us), y = log(c->predicted_us);
        sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
    }
    summarise_distances(v, n, s);
    summarise_dram(v, n, s);
    s->mape = s->included ? 100.0 * sum / s->included : NAN;
    s->mape_all = s->ran ? 100.0 * sum_all / s->ran : NAN;
    double k = s->included;
    double cov = sxy - sx * sy / k, vx = sxx - sx * sx / k, vy = syy - sy * sy / k;
    s->pearson = k >= 2 && vx > 0 && vy > 0 ? cov / sqrt(vx * vy) : NAN;
    /* the largest |error| first (selection: n is small) */
    for (int o = 0; o < N_OUTLIERS; o++) {
        int best = -1;
        for (int i = 0; i < n; i++) {
            int taken = v[i].status != 0;
            for (int j = 0; j < s->noutliers; j++)
                taken |= s->outliers[j] == i;
            if (!taken && (best < 0 || fabs(err_of(&v[i])) > fabs(err_of(&v[best]))))
                best = i;
        }
        if (best < 0)
            break;
        s->outliers[s->noutliers++] = best;
    }
}

/* ---- text and markdown ---------------------------------------------------------------------- */

/* The lesson relationships; in the text report a pair neither of whose cases is among the
 * measured cases of this run (--cases) is only counted. */
static void print_pairs_text(const vcase *v, int n, const vsummary *s, const char *pairs_file,
                             int md)
{
    int unrelated = 0;
    if (s->pairs_missing_file) {
        printf("%s(no pairs file %s)\n", md ? "\n" : "", pairs_file);
        return;
    }
    if (md)
        printf("\n| relationship | faster | slower | measured ratio | predicted ratio | direction | "
               "within %.0f%% |\n|---|---|---|---:|---:|---|---|\n", VREP_PAIR_TOL * 100);
    else
        printf("\nLesson relationships (%s): slower / faster time\n", pairs_file);
    for (int i = 0; i < s->npairs; i++) {
        const vpair *q = &s->pairs[i];
        if (md && !q->ok)
            printf("| %s | %s | %s | n/a | n/a | n/a | n/a |\n", q->what, q->fast, q->slow);
        else if (md)
            printf("| %s | %s | %s | %.2fx | %.2fx | %s | %s |\n", q->what, q->fast, q->slow,
                   q->meas_ratio, q->pred_ratio, q->direction_ok ? "right" : "WRONG",
                   q->within ? "yes" : "no");
        else if (!q->ok && !find(v, n, q->fast) && !find(v, n, q->slow))
            unrelated++;
        else if (!q->ok)
            printf("  %-22s %s < %s: not measured or not predicted\n", q->name, q->fast, q->slow);
        else
            printf("  %-22s %-16s < %-16s measured %5.2fx  predicted %5.2fx  %s%s%s\n", q->name,
                   q->fast, q->slow, q->meas_ratio, q->pred_ratio,
                   q->direction_ok ? "direction right" : "DIRECTION WRONG",
                   q->within ? ", within 25%" : ", off by more than 25%",
                   q->meas_ratio < 1 ? " (the hardware has them the other way round)" : "");
    }
    if (!md && unrelated)
        printf("  (%d more about cases not in this run)\n", unrelated);
    if (!md)
        printf("  %d of %d in the right direction, %d of them within %.0f%% of the measured ratio\n",
               s->pairs_direction_ok, s->pairs_ok, s->pairs_within, VREP_PAIR_TOL * 100);
}

/* A number with `digits` decimals and a suffix, or "n/a" when it is not finite (no case
 * counted, fewer than two cases). */
static void fmt_num(char *buf, size_t size, int digits, const char *suffix, double v)
{
    if (isfinite(v))
        snprintf(buf, size, "%.*f%s", digits, v, suffix);
    else
        snprintf(buf, size, "n/a");
}

/* One case's two stall breakdowns side by side (validate --cases NAME): every reason with a
 * share of 0.5 % or more on either side. */
static void print_breakdown(const vcase *c)
{
    printf("\nStall breakdown of %s (each reason's share of the warps' cycles)\n"
           "  %-20s %8s %8s\n", c->name, "reason", "model", "ncu");
    for (int i = 0; i < STALL_COUNT; i++)
        if (c->model_share[i] >= 0.005 || c->ncu_share[i] >= 0.005)
            printf("  %-20s %7.1f%% %7.1f%%\n", stall_name(i), 100 * c->model_share[i],
                   100 * c->ncu_share[i]);
    if (c->ncu_other >= 0.0005)
        printf("  %-20s %8s %7.1f%%\n", "(others: not modelled)", "", 100 * c->ncu_other);
    printf("  %-20s %8s %7.0f%%\n", "mix apart", "", 100 * vrep_stall_distance(c));
}

static void print_text(const char *arch, const vcase *v, int n, const vsummary *s,
                       const char *pairs_file, int md)
{
    if (md)
        printf("| case | measured us | predicted us | error | top stall: model | top stall: "
               "Nsight Compute | stall mix apart |\n|---|---:|---:|---:|---|---|---:|\n");
    else
        printf("warplab validate: %s, %d measured cases\n%-20s %12s %12s %8s  %-18s %-18s %s\n",
               arch, n, "case", "measured_us", "predicted_us", "error", "top stall (model)",
               "(ncu)", "mix apart");
    for (int i = 0; i < n; i++) {
        const vcase *c = &v[i];
        const char *mark = c->measured_us < VREP_MIN_US ? " *" : "";
        char dist[32];
        fmt_num(dist, sizeof dist, 0, "%", 100 * vrep_stall_distance(c));
        if (c->status && md)
            printf("| %s | %.2f | failed | | | %s | |\n", c->name, c->measured_us, c->ncu_top);
        else if (c->status)
            printf("%-20s %12.2f %12s %8s  %s\n", c->name, c->measured_us, "FAILED", "", c->msg);
        else if (md)
            printf("| %s%s | %.2f | %.2f | %+.1f%% | %s | %s | %s |\n", c->name, mark,
                   c->measured_us, c->predicted_us, 100 * err_of(c), c->top,
                   c->ncu_top[0] ? c->ncu_top : "n/a", dist);
        else
            printf("%-20s %12.2f %12.2f %+7.1f%%  %-18s %-18s %9s%s\n", c->name, c->measured_us,
                   c->predicted_us, 100 * err_of(c), c->top, c->ncu_top[0] ? c->ncu_top : "n/a",
                   dist, mark);
    }
    char mape[32], all[32], r[32];
    fmt_num(mape, sizeof mape, 1, "%", s->mape);
    fmt_num(all, sizeof all, 1, "%", s->mape_all);
    fmt_num(r, sizeof r, 3, "", s->pearson);
    printf("\n%sMean absolute error: %s over %d cases of %.0f us or more (%s over all %d "
           "predicted)%s\n", md ? "- " : "", mape, s->included, VREP_MIN_US, all, s->ran,
           md ? "" : "; * = shorter, not counted");
    printf("%sCorrelation (Pearson, log time): %s\n", md ? "- " : "", r);
    printf("%sTop stall reason agrees with Nsight Compute: %d of %d cases (among its two largest: "
           "%d)\n", md ? "- " : "", s->stall_agree, s->stall_total, s->stall_top2);
    if (s->dist_cases) {
        char mean[32], med[32], worst[32];
        fmt_num(mean, sizeof mean, 0, "%", 100 * s->dist_mean);
        fmt_num(med, sizeof med, 0, "%", 100 * s->dist_median);
        fmt_num(worst, sizeof worst, 0, "%", 100 * s->dist_max);
        printf("%sStall mix against Nsight Compute's (half the summed differences of the "
               "reasons' shares, 0%% = the same): %s apart on average over %d cases, median %s, "
               "farthest %s %s\n", md ? "- " : "", mean, s->dist_cases, med,
               v[s->dist_worst].name, worst);
    }
    if (s->dram_cases)
        printf("%sDRAM traffic against Nsight Compute's (cases that moved %.0f MB or more): within "
               "%.0f%% on %d of %d, %.1f%% apart on average, farthest %s %+.1f%%\n",
               md ? "- " : "", VREP_DRAM_MIN / 1e6, 100 * VREP_DRAM_TOL, s->dram_within,
               s->dram_cases, 100 * s->dram_mean, v[s->dram_worst].name,
               100 * dram_diff(&v[s->dram_worst]));
    if (s->failed)
        printf("%sCases that failed to run: %d\n", md ? "- " : "", s->failed);
    printf("%sBiggest outliers:", md ? "- " : "");
    for (int i = 0; i < s->noutliers; i++)
        printf("%s %s %+.1f%%", i ? "," : "", v[s->outliers[i]].name, 100 * err_of(&v[s->outliers[i]]));
    printf("\n");
    print_pairs_text(v, n, s, pairs_file, md);
    if (!md && n == 1 && !isnan(vrep_stall_distance(&v[0])))
        print_breakdown(&v[0]);
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static void print_json(const char *arch, const char *policy, const vcase *v, int n,
                       const vsummary *s)
{
    cJSON *o = cJSON_CreateObject(), *cases = cJSON_AddArrayToObject(o, "cases");
    cJSON_AddStringToObject(o, "arch", arch);
    if (policy)
        cJSON_AddStringToObject(o, "policy", policy);
    for (int i = 0; i < n; i++) {
        const vcase *c = &v[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "case", c->name);
        cJSON_AddNumberToObject(j, "measured_us", c->measured_us);
        cJSON_AddStringToObject(j, "measured_source", c->from_ncu ? "ncu" : "event");
        cJSON_AddNumberToObject(j, "event_us", c->event_us);
        cJSON_AddStringToObject(j, "top_stall_ncu", c->ncu_top);
        if (c->ncu_dram_bytes > 0)
            cJSON_AddNumberToObject(j, "dram_bytes_ncu", c->ncu_dram_bytes);
        if (c->ncu_shares) {
            cJSON *sh = cJSON_AddObjectToObject(j, "stall_shares_ncu");
            for (int r = 0; r < STALL_COUNT; r++)
                if (c->ncu_share[r] > 0)
                    cJSON_AddNumberToObject(sh, stall_name(r), c->ncu_share[r]);
            if (c->ncu_other > 0)
                cJSON_AddNumberToObject(sh, "other", c->ncu_other);
        }
        if (c->status == 0) {
            cJSON_AddNumberToObject(j, "predicted_us", c->predicted_us);
            cJSON_AddNumberToObject(j, "error", err_of(c));
            cJSON_AddBoolToObject(j, "counted", included(c));
            cJSON_AddNumberToObject(j, "cycles", (double)c->cycles);
            cJSON_AddNumberToObject(j, "warp_instructions", (double)c->warp_instructions);
            cJSON_AddNumberToObject(j, "dram_bytes", (double)c->dram_bytes);
            cJSON_AddNumberToObject(j, "l1_hit_rate", c->l1_hit);
            cJSON_AddNumberToObject(j, "l2_hit_rate", c->l2_hit);
            cJSON_AddStringToObject(j, "top_stall_model", c->top);
            if (c->model_shares) {
                cJSON *sh = cJSON_AddObjectToObject(j, "stall_shares_model");
                for (int r = 0; r < STALL_COUNT; r++)
                    if (c->model_share[r] > 0)
                        cJSON_AddNumberToObject(sh, stall_name(r), c->model_share[r]);
            }
            if (!isnan(vrep_stall_distance(c)))
                cJSON_AddNumberToObject(j, "stall_distance", vrep_stall_distance(c));
            if (!isnan(dram_diff(c)))
                cJSON_AddNumberToObject(j, "dram_diff", dram_diff(c));
            cJSON_AddNumberToObject(j, "sim_seconds", c->sim_s);
        } else {
            cJSON_AddNumberToObject(j, "status", c->status);
            cJSON_AddStringToObject(j, "error_message", c->msg);
        }
        cJSON_AddItemToArray(cases, j);
    }
    cJSON_AddNumberToObject(o, "min_us", VREP_MIN_US);
    cJSON_AddNumberToObject(o, "cases_counted", s->included);
    cJSON_AddNumberToObject(o, "cases_failed", s->failed);
    if (isfinite(s->mape))
        cJSON_AddNumberToObject(o, "mape_pct", s->mape);
    if (isfinite(s->mape_all))
        cJSON_AddNumberToObject(o, "mape_all_pct", s->mape_all);
    if (isfinite(s->pearson))
        cJSON_AddNumberToObject(o, "pearson_log", s->pearson);
    cJSON *out = cJSON_AddArrayToObject(o, "outliers");
    for (int i = 0; i < s->noutliers; i++)
        cJSON_AddItemToArray(out, cJSON_CreateString(v[s->outliers[i]].name));
    cJSON *st = cJSON_AddObjectToObject(o, "stall_agreement");
    cJSON_AddNumberToObject(st, "agree", s->stall_agree);
    cJSON_AddNumberToObject(st, "top2", s->stall_top2);
    cJSON_AddNumberToObject(st, "cases", s->stall_total);
    if (s->dist_cases) {
        cJSON *sd = cJSON_AddObjectToObject(o, "stall_distance");
        cJSON_AddNumberToObject(sd, "cases", s->dist_cases);
        cJSON_AddNumberToObject(sd, "mean", s->dist_mean);
        cJSON_AddNumberToObject(sd, "median", s->dist_median);
        cJSON_AddNumberToObject(sd, "max", s->dist_max);
        cJSON_AddStringToObject(sd, "max_case", v[s->dist_worst].name);
    }
    if (s->dram_cases) {
        cJSON *dd = cJSON_AddObjectToObject(o, "dram_agreement");
        cJSON_AddNumberToObject(dd, "min_bytes", VREP_DRAM_MIN);
        cJSON_AddNumberToObject(dd, "cases", s->dram_cases);
        cJSON_AddNumberToObject(dd, "within_10pct", s->dram_within);
        cJSON_AddNumberToObject(dd, "mean_abs", s->dram_mean);
        cJSON_AddStringToObject(dd, "max_case", v[s->dram_worst].name);
        cJSON_AddNumberToObject(dd, "max_diff", dram_diff(&v[s->dram_worst]));
    }
    cJSON *pairs = cJSON_AddArrayToObject(o, "pairs");
    for (int i = 0; i < s->npairs; i++) {
        const vpair *q = &s->pairs[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "name", q->name);
        cJSON_AddStringToObject(j, "faster", q->fast);
        cJSON_AddStringToObject(j, "slower", q->slow);
        cJSON_AddStringToObject(j, "description", q->what);
        if (q->ok) {
            cJSON_AddNumberToObject(j, "measured_ratio", q->meas_ratio);
            cJSON_AddNumberToObject(j, "predicted_ratio", q->pred_ratio);
            cJSON_AddBoolToObject(j, "direction_ok", q->direction_ok);
            cJSON_AddBoolToObject(j, "within_25pct", q->within);
        }
        cJSON_AddItemToArray(pairs, j);
    }
    char *text = cJSON_Print(o);
    if (text)
        printf("%s\n", text);
    free(text);
    cJSON_Delete(o);
}

static int write_png(const char *path, const vcase *v, int n, const vsummary *s)
{
#ifdef WL_HAVE_VIEWER
    double *x = calloc((size_t)n + 1, sizeof *x), *y = calloc((size_t)n + 1, sizeof *y);
    const char **lab = calloc((size_t)n + 1, sizeof *lab);
    int k = 0;
    for (int i = 0; x && y && lab && i < n; i++)
        if (v[i].status == 0) {
            x[k] = v[i].measured_us;
            y[k] = v[i].predicted_us;
            lab[k++] = v[i].name;
        }
    char title[160], mape[32], r[32];
    fmt_num(mape, sizeof mape, 1, "%", s->mape);
    fmt_num(r, sizeof r, 3, "", s->pearson);
    snprintf(title, sizeof title, "predicted vs measured kernel time: mean |error| %s, r(log) %s",
             mape, r);
    diag_t d;
    diag_clear(&d);
    wl_status st = x && y && lab ? viz_scatter_png(path, x, y, lab, k, title,
                                                   "measured on the H200 (us)",
                                                   "predicted by warplab (us)", &d)
                                 : diag_set(&d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    free(x);
    free(y);
    free(lab);
    return st == WL_OK ? 0 : cli_report(&d);
#else
    (void)v, (void)n, (void)s;
    return cli_usage_error("validate", "--png %s: this warplab was built without the viewer "
                                       "(SDL2, SDL2_ttf, SDL2_image)", path);
#endif
}

int vrep_print(const char *arch, const char *policy, const vcase *v, int n,
               const char *pairs_file, vrep_format fmt, const char *png)
{
    vsummary s;
    memset(&s, 0, sizeof s);
    summarise(v, n, &s);
    if (read_pairs(pairs_file, v, n, &s))
        return WL_EUSAGE;
    if (fmt == VREP_JSON)
        print_json(arch, policy, v, n, &s);
    else
        print_text(arch, v, n, &s, pairs_file, fmt == VREP_MARKDOWN);
    fflush(stdout);
    return png ? write_png(png, v, n, &s) : 0;
}
