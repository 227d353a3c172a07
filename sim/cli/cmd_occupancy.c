/* warplab occupancy: blocks and warps per SM, the limiter, and the "impact of varying" series.
 *
 *   warplab occupancy --arch A --block B --regs R [--smem S] [--json] [--suggest]
 *   warplab occupancy --arch A --batch FILE.csv          (header block,regs,smem; JSON lines)
 *   warplab occupancy KERNEL.ptx --kernel NAME --arch A [--block B]   (regs from ptxas)
 *
 * --smem is the dynamic shared memory of the launch. A launch asking for more than 48 KB is
 * taken as opted in (the kernel set cudaFuncAttributeMaxDynamicSharedMemorySize), so the
 * per-block limit is the arch's opt-in maximum; more than that is an error. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cli.h"
#include "occupancy.h"
#include "cudac.h"
#include "ptx.h"
#include "ptxas.h"

#define CMD "occupancy"
#define SERIES_MAX 96

typedef struct {
    const char *arch, *batch, *ptx, *kernel;
    char only[256]; /* the file's only kernel, when --kernel is left out */
    int block, regs, smem, static_smem, carveout, barriers;
    int json, suggest;
} occ_opts;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: warplab occupancy --arch NAME --block B --regs R [--smem BYTES] [--json] "
            "[--suggest]\n"
            "       warplab occupancy --arch NAME --batch FILE.csv\n"
            "       warplab occupancy KERNEL.ptx [--kernel NAME] --arch NAME [--block B] [--regs R]\n"
            "\n"
            "Blocks and warps that fit on one SM, as cudaOccupancyMaxActiveBlocksPerMultiprocessor\n"
            "computes them, which resource limits them, and how occupancy changes with the block\n"
            "size, the registers per thread and the shared memory per block.\n"
            "\n"
            "  --arch NAME         GPU description (warplab arch list; default h200, as for run)\n"
            "  --block B           threads per block, 1..1024\n"
            "  --regs R            registers per thread as ptxas reports them, 1..255\n"
            "  --smem BYTES        dynamic shared memory per block (K suffix = x1024); above 48 KB\n"
            "                      the kernel is taken as opted in to the arch's per-block maximum\n"
            "  --static-smem BYTES static __shared__ bytes per block (default 0, or from ptxas)\n"
            "  --carveout PCT      preferred shared-memory carveout 0..100 (default: not set)\n"
            "  --barriers N        named barriers per block (default 1, as CUDA assumes)\n"
            "  --suggest           also run cudaOccupancyMaxPotentialBlockSize's search\n"
            "  --json              one JSON object instead of text\n"
            "  --batch FILE.csv    header block,regs,smem (optional columns static_smem,\n"
            "                      carveout); one JSON object per row on stdout\n"
            "  KERNEL.ptx --kernel NAME   registers and static shared memory from ptxas -v;\n"
            "                      --regs overrides; block = --block, else --suggest's, else 256;\n"
            "                      KERNEL.cu: compiled first with nvcc -ptx (when nvcc is here);\n"
            "                      --kernel may be left out when the file holds one kernel\n");
}

/* A non-negative integer with an optional K suffix; -1 when malformed. */
static long parse_count(const char *s)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    long v = strtol(s, &end, 10);
    if (end == s || errno == ERANGE)
        return -1;
    if (*end == 'K' || *end == 'k') {
        if (v > 0x7fffffff / 1024)
            return -1;
        v *= 1024;
        end++;
    }
    return *end || v > 0x7fffffff ? -1 : v;
}

static int parse_opts(int argc, char **argv, occ_opts *o)
{
    memset(o, 0, sizeof *o);
    o->block = o->regs = o->smem = o->static_smem = o->barriers = -1;
    o->carveout = -2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (!strcmp(a, "--suggest")) {
            o->suggest = 1;
            continue;
        }
        if (a[0] != '-') {
            if (o->ptx)
                return cli_usage_error(CMD, "more than one PTX file ('%s', '%s')", o->ptx, a);
            o->ptx = a;
            continue;
        }
        static const char *const names[] = {"--arch",     "--batch",       "--kernel",
                                            "--block",    "--regs",        "--smem",
                                            "--carveout", "--static-smem", "--barriers"};
        int k = -1;
        for (int n = 0; n < (int)(sizeof names / sizeof names[0]); n++)
            if (!strcmp(a, names[n]))
                k = n;
        if (k < 0)
            return cli_usage_error(CMD, "unknown option '%s'", a);
        if (i + 1 >= argc)
            return cli_usage_error(CMD, "%s needs a value", a);
        const char *v = argv[++i];
        if (k == 0)
            o->arch = v;
        else if (k == 1)
            o->batch = v;
        else if (k == 2)
            o->kernel = v;
        else if (k == 6 && !strcmp(v, "-1"))
            o->carveout = -1;
        else {
            long n = parse_count(v);
            if (n < 0)
                return cli_usage_error(CMD, "%s: '%s' is not a non-negative integer", a, v);
            int *dst[] = {&o->block, &o->regs, &o->smem, &o->carveout, &o->static_smem,
                          &o->barriers};
            *dst[k - 3] = (int)n;
        }
    }
    return WL_OK;
}

/* Range checks shared by the options and the CSV rows; message into d. */
static wl_status check_launch(const arch_t *a, const occ_input *in, const char *file, int line,
                              diag_t *d)
{
    if (in->block_size < 1 || in->block_size > a->max_threads_per_block)
        return diag_set(d, WL_EUSAGE, file, line, 0, "block size %d is outside 1..%d",
                        in->block_size, a->max_threads_per_block);
    if (in->regs_per_thread < 1 || in->regs_per_thread > a->max_regs_per_thread)
        return diag_set(d, WL_EUSAGE, file, line, 0,
                        "%d registers per thread is outside 1..%d", in->regs_per_thread,
                        a->max_regs_per_thread);
    if (in->static_smem > a->smem_per_block_default)
        return diag_set(d, WL_EUSAGE, file, line, 0,
                        "static shared memory %d B is above ptxas's limit of %d B",
                        in->static_smem, a->smem_per_block_default);
    if ((long)in->dyn_smem + in->static_smem > a->smem_per_block_optin)
        return diag_set(d, WL_EUSAGE, file, line, 0,
                        "shared memory %d B dynamic + %d B static is above the opt-in limit of "
                        "%d B per block on %s",
                        in->dyn_smem, in->static_smem, a->smem_per_block_optin, a->name);
    if (in->carveout_pct < -1 || in->carveout_pct > 100)
        return diag_set(d, WL_EUSAGE, file, line, 0, "carveout %d%% is outside 0..100",
                        in->carveout_pct);
    return WL_OK;
}

static cJSON *limit_json(int v)
{
    return v == OCC_UNLIMITED ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

/* The L1 the launch gets: the unified array less the carveout the driver picks (occupancy.h). */
static int l1_bytes(const arch_t *a, const occ_result *r)
{
    int l1 = a->l1_smem_bytes - r->launch_smem_pool;
    return l1 > 0 ? l1 : 0;
}

static void add_result(cJSON *o, const arch_t *a, const occ_result *r)
{
    cJSON_AddNumberToObject(o, "blocks_per_sm", r->blocks_per_sm);
    cJSON_AddNumberToObject(o, "warps_per_sm", r->warps_per_sm);
    cJSON_AddNumberToObject(o, "occupancy", r->occupancy);
    cJSON_AddStringToObject(o, "limiter", occ_first_limiter(r->limiters));
    cJSON *arr = cJSON_AddArrayToObject(o, "limiters");
    for (int i = 0; i < OCC_NUM_LIMITS; i++)
        if (r->limiters & (1u << i))
            cJSON_AddItemToArray(arr, cJSON_CreateString(occ_limit_name(1u << i)));
    cJSON *lim = cJSON_AddObjectToObject(o, "limits");
    cJSON_AddItemToObject(lim, "warps", limit_json(r->limit_warps));
    cJSON_AddItemToObject(lim, "registers", limit_json(r->limit_regs));
    cJSON_AddItemToObject(lim, "shared_memory", limit_json(r->limit_smem));
    cJSON_AddItemToObject(lim, "blocks", limit_json(r->limit_blocks));
    cJSON_AddItemToObject(lim, "barriers", limit_json(r->limit_barriers));
    cJSON_AddNumberToObject(o, "warps_per_block", r->warps_per_block);
    cJSON_AddNumberToObject(o, "regs_per_block", r->regs_per_block_alloc);
    cJSON_AddNumberToObject(o, "smem_per_block", r->smem_per_block_alloc);
    cJSON_AddNumberToObject(o, "smem_per_block_limit", r->smem_per_block_limit);
    cJSON_AddNumberToObject(o, "smem_pool", r->smem_pool);
    cJSON_AddNumberToObject(o, "launch_smem_pool", r->launch_smem_pool);
    cJSON_AddNumberToObject(o, "l1_bytes", l1_bytes(a, r));
}


static void add_inputs(cJSON *o, const arch_t *a, const occ_input *in)
{
    cJSON_AddStringToObject(o, "arch", a->name);
    cJSON_AddNumberToObject(o, "block", in->block_size);
    cJSON_AddNumberToObject(o, "regs", in->regs_per_thread);
    cJSON_AddNumberToObject(o, "smem", in->dyn_smem);
    cJSON_AddNumberToObject(o, "static_smem", in->static_smem);
    cJSON_AddNumberToObject(o, "carveout", in->carveout_pct);
    cJSON_AddNumberToObject(o, "barriers", in->num_barriers);
}

static const char *const vary_names[] = {"block_size", "registers", "shared_memory"};

/* Each series as columns: values[i] with blocks_per_sm[i], warps_per_sm[i], occupancy[i]. */
static void add_series(cJSON *o, const arch_t *a, const occ_input *in)
{
    cJSON *s = cJSON_AddObjectToObject(o, "series");
    for (int w = 0; w < 3; w++) {
        occ_point pts[SERIES_MAX];
        int n = occ_series(a, in, (occ_vary)w, pts, SERIES_MAX);
        int v[SERIES_MAX], b[SERIES_MAX], wp[SERIES_MAX];
        double occ[SERIES_MAX];
        for (int i = 0; i < n; i++) {
            v[i] = pts[i].value;
            b[i] = pts[i].blocks_per_sm;
            wp[i] = pts[i].warps_per_sm;
            occ[i] = pts[i].occupancy;
        }
        cJSON *c = cJSON_AddObjectToObject(s, vary_names[w]);
        cJSON_AddItemToObject(c, "values", cJSON_CreateIntArray(v, n));
        cJSON_AddItemToObject(c, "blocks_per_sm", cJSON_CreateIntArray(b, n));
        cJSON_AddItemToObject(c, "warps_per_sm", cJSON_CreateIntArray(wp, n));
        cJSON_AddItemToObject(c, "occupancy", cJSON_CreateDoubleArray(occ, n));
    }
}

static int print_json(cJSON *o, int pretty)
{
    char *text = pretty ? cJSON_Print(o) : cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text) {
        fprintf(stderr, "warplab occupancy: error: out of memory\n");
        return WL_EUSAGE;
    }
    printf("%s\n", text);
    free(text);
    return WL_OK;
}

static void print_limit(const char *name, int v, const char *detail)
{
    if (v == OCC_UNLIMITED)
        printf("  %-14s %9s   %s\n", name, "-", detail);
    else
        printf("  %-14s %9d   %s\n", name, v, detail);
}

static void print_text(const arch_t *a, const occ_input *in, const occ_result *r)
{
    char buf[256];
    printf("%s (%s, cc %d.%d): block %d threads (%d warps), %d registers/thread, shared "
           "memory %d B static + %d B dynamic\n\n",
           a->name, a->full_name, a->cc_major, a->cc_minor, in->block_size, r->warps_per_block,
           in->regs_per_thread, in->static_smem, in->dyn_smem);
    printf("  blocks per SM  %9d\n", r->blocks_per_sm);
    printf("  warps per SM   %9d   of %d\n", r->warps_per_sm, a->max_warps_per_sm);
    printf("  occupancy      %8.1f%%\n", 100.0 * r->occupancy);
    printf("  limited by     ");
    for (int i = 0, first = 1; i < OCC_NUM_LIMITS; i++)
        if (r->limiters & (1u << i)) {
            printf("%s%s", first ? "" : ", ", occ_limit_name(1u << i));
            first = 0;
        }
    printf("\n\n  limit          blocks/SM   why\n");
    snprintf(buf, sizeof buf, "%d warps per SM / %d warps per block", a->max_warps_per_sm,
             r->warps_per_block);
    print_limit("warps", r->limit_warps, buf);
    snprintf(buf, sizeof buf,
             "%d registers per block (%d per warp in %d-register units, 4 sub-partitions of %d)",
             r->regs_per_block_alloc, r->warps_per_block ? r->regs_per_block_alloc / r->warps_per_block : 0,
             a->reg_alloc_unit, a->regs_per_sm / a->sub_partitions);
    print_limit("registers", r->limit_regs, buf);
    snprintf(buf, sizeof buf,
             "%d B per block (incl. %d B reserved, %d B units; limit %d B), pool %d B",
             r->smem_per_block_alloc, a->smem_reserved_per_block, a->smem_alloc_unit,
             r->smem_per_block_limit, r->smem_pool);
    print_limit("shared_memory", r->limit_smem, buf);
    print_limit("blocks", r->limit_blocks, "hardware block slots per SM");
    snprintf(buf, sizeof buf, "%s", a->cc_major >= 9 ? "2 x block slots / barriers per block"
                                                     : "no barrier limit before cc 9.0");
    print_limit("barriers", r->limit_barriers, buf);
    printf("\n  at launch: a %d KB shared-memory carveout (the driver picks the smallest that "
           "holds the resident blocks'), so the L1 gets %d KB\n", r->launch_smem_pool / 1024,
           l1_bytes(a, r) / 1024);

    static const char *const titles[] = {"block size (threads)", "registers per thread",
                                         "dynamic shared memory per block (bytes)"};
    const int current[] = {in->block_size, in->regs_per_thread, in->dyn_smem};
    for (int w = 0; w < 3; w++) {
        occ_point pts[SERIES_MAX];
        int n = occ_series(a, in, (occ_vary)w, pts, SERIES_MAX);
        printf("\nimpact of varying %s (> marks this launch)\n", titles[w]);
        printf("    %8s  %9s  %8s  %9s\n", "value", "blocks/SM", "warps/SM", "occupancy");
        for (int i = 0; i < n; i++)
            printf("  %c %8d  %9d  %8d  %8.1f%%\n", pts[i].value == current[w] ? '>' : ' ',
                   pts[i].value, pts[i].blocks_per_sm, pts[i].warps_per_sm,
                   100.0 * pts[i].occupancy);
    }
}

/* Splits a CSV line in place; returns the number of fields (at most max). */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line;;) {
        if (n == max)
            return max + 1;
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    for (int i = 0; i < n; i++) {
        while (*fields[i] == ' ' || *fields[i] == '\t')
            fields[i]++;
        size_t len = strlen(fields[i]);
        while (len > 0 && (fields[i][len - 1] == ' ' || fields[i][len - 1] == '\t'))
            fields[i][--len] = '\0';
    }
    return n;
}

static int run_batch(const arch_t *a, const char *path)
{
    diag_t d;
    diag_clear(&d);
    FILE *f = fopen(path, "r");
    if (!f) {
        diag_set(&d, WL_EUSAGE, path, 0, 0, "cannot read: %s", strerror(errno));
        return cli_report(&d);
    }
    enum { C_BLOCK, C_REGS, C_SMEM, C_STATIC, C_CARVEOUT, NCOLS };
    static const char *const cols[NCOLS] = {"block", "regs", "smem", "static_smem", "carveout"};
    int col_of[8]; /* CSV column -> C_* */
    int ncols = 0, lineno = 0;
    char line[1024];
    cJSON *out = cJSON_CreateArray(); /* printed only when every row is valid */
    wl_status st = WL_OK;
    while (st == WL_OK && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            st = diag_set(&d, WL_EUSAGE, path, lineno, 0, "line longer than %d characters",
                          (int)sizeof line - 2);
            break;
        }
        char *fld[8];
        int n = split_csv(line, fld, 8);
        if (n == 1 && !*fld[0])
            continue; /* blank line */
        if (!ncols) {
            int seen = 0;
            for (int i = 0; i < n && st == WL_OK; i++) {
                int c = -1;
                for (int k = 0; k < NCOLS; k++)
                    if (i < 8 && !strcmp(fld[i], cols[k]))
                        c = k;
                if (c < 0 || (seen & (1 << c)))
                    st = diag_set(&d, WL_EUSAGE, path, lineno, 0,
                                  "header: unexpected column '%s' (want block,regs,smem[,"
                                  "static_smem][,carveout])",
                                  i < 8 ? fld[i] : "...");
                else {
                    col_of[i] = c;
                    seen |= 1 << c;
                }
            }
            if (st == WL_OK && (seen & 7) != 7)
                st = diag_set(&d, WL_EUSAGE, path, lineno, 0,
                              "header must name block, regs and smem");
            ncols = n;
            continue;
        }
        if (n != ncols) {
            st = diag_set(&d, WL_EUSAGE, path, lineno, 0, "%d fields, the header has %d",
                          n > 8 ? 9 : n, ncols);
            break;
        }
        occ_input in;
        occ_input_defaults(&in);
        int *dst[NCOLS] = {&in.block_size, &in.regs_per_thread, &in.dyn_smem, &in.static_smem,
                           &in.carveout_pct};
        for (int i = 0; i < n && st == WL_OK; i++) {
            int unset = col_of[i] == C_CARVEOUT && !strcmp(fld[i], "-1");
            long v = unset ? -1 : parse_count(fld[i]);
            if (v < 0 && !unset)
                st = diag_set(&d, WL_EUSAGE, path, lineno, 0,
                              "%s: '%s' is not a non-negative integer", cols[col_of[i]], fld[i]);
            else
                *dst[col_of[i]] = (int)v;
        }
        if (st != WL_OK || check_launch(a, &in, path, lineno, &d) != WL_OK) {
            st = WL_EUSAGE;
            break;
        }
        occ_result r;
        if ((st = occ_compute(a, &in, &r, &d)) != WL_OK)
            break;
        cJSON *o = cJSON_CreateObject();
        add_inputs(o, a, &in);
        add_result(o, a, &r);
        cJSON_AddItemToArray(out, o);
    }
    fclose(f);
    if (st == WL_OK && !ncols)
        st = diag_set(&d, WL_EUSAGE, path, 0, 0, "empty file: expected a header block,regs,smem");
    if (st != WL_OK) {
        cJSON_Delete(out);
        return cli_report(&d);
    }
    for (cJSON *o = out->child; o; o = o->next) {
        char *text = cJSON_PrintUnformatted(o);
        if (text)
            printf("%s\n", text);
        free(text);
    }
    cJSON_Delete(out);
    return WL_OK;
}

/* Registers and static shared memory from ptxas for KERNEL.ptx (KERNEL.cu: its PTX, made by
 * nvcc); --regs overrides. */
/* Without --kernel: the name of the only kernel in `ptx` into o->only (o->kernel points there);
 * a usage error naming them when there are several, or none. */
static int only_kernel(occ_opts *o, const char *ptx)
{
    diag_t d;
    diag_clear(&d);
    ptx_module *m = NULL;
    if (ptx_parse_file(ptx, &m, &d) != WL_OK)
        return cli_report(&d);
    int n = 0;
    char list[512] = "";
    size_t len = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *g = &m->funcs[i];
        if (!g->is_entry || g->is_decl)
            continue;
        if (n++ == 0)
            snprintf(o->only, sizeof o->only, "%s", g->name);
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                    g->name);
    }
    ptx_module_free(m);
    if (n != 1)
        return cli_usage_error(CMD, "missing --kernel NAME: %s has %d kernels%s%s", o->ptx, n,
                               n ? ": " : "", list);
    o->kernel = o->only;
    return WL_OK;
}

static int from_ptx(occ_opts *o, const arch_t *a, occ_input *in, const char **regs_src,
                    ptxas_info *info, int *ran)
{
    diag_t d;
    diag_clear(&d);
    cudac_out cu;
    memset(&cu, 0, sizeof cu);
    if (cudac_is_source(o->ptx) && cudac_compile_or_say(CMD, o->ptx, a->sm_target, &cu))
        return WL_EUSAGE;
    int rc = o->kernel ? WL_OK : only_kernel(o, cu.ptx[0] ? cu.ptx : o->ptx);
    if (rc != WL_OK) {
        cudac_remove(&cu);
        return rc;
    }
    wl_status st = ptxas_query_info(cu.ptx[0] ? cu.ptx : o->ptx, o->kernel, a->sm_target, info, &d);
    if (st == WL_OK || st == PTXAS_ENOTFOUND)
        cudac_remove(&cu);
    else if (cu.ptx[0]) { /* ptxas's message names the PTX: keep it */
        fprintf(stderr, "warplab occupancy: note: the PTX nvcc made of %s is kept at %s\n", o->ptx,
                cu.ptx);
        free(cu.log);
    }
    if (st == PTXAS_ENOTFOUND && o->regs < 0)
        return cli_usage_error(CMD, "ptxas is not on the PATH: give the register count with "
                                    "--regs N");
    if (st != WL_OK && st != PTXAS_ENOTFOUND)
        return cli_report(&d);
    *ran = st == WL_OK;
    if (st == WL_OK) {
        in->regs_per_thread = info->regs;
        in->static_smem = info->static_smem;
        in->num_barriers = info->barriers;
        *regs_src = "ptxas";
    }
    if (o->regs >= 0) {
        in->regs_per_thread = o->regs;
        *regs_src = "option";
    }
    return WL_OK;
}

int cmd_occupancy(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return WL_OK;
    }
    occ_opts o;
    if (parse_opts(argc, argv, &o) != WL_OK)
        return WL_EUSAGE;
    if (!o.arch) /* as `warplab run` */
        o.arch = "h200";
    arch_t a;
    diag_t d;
    diag_clear(&d);
    if (arch_load(cli_arch_dir(), o.arch, &a, &d) != WL_OK)
        return cli_report(&d);
    if (o.batch) {
        if (o.ptx || o.block >= 0 || o.regs >= 0 || o.smem >= 0 || o.suggest)
            return cli_usage_error(CMD, "--batch takes no other launch options");
        return run_batch(&a, o.batch);
    }
    if (o.kernel && !o.ptx)
        return cli_usage_error(CMD, "--kernel needs a KERNEL.ptx file");
    occ_input in;
    occ_input_defaults(&in);
    const char *regs_src = "option";
    ptxas_info info = {0, 0, 0, 0, 0};
    int ptxas_ran = 0;
    if (o.ptx) {
        int st = from_ptx(&o, &a, &in, &regs_src, &info, &ptxas_ran);
        if (st != WL_OK)
            return st;
    } else if (o.regs < 0) {
        return cli_usage_error(CMD, "--regs R is required (or give KERNEL.ptx --kernel NAME)");
    } else {
        in.regs_per_thread = o.regs;
    }
    if (o.block < 0 && !o.ptx && !o.suggest)
        return cli_usage_error(CMD, "--block B is required (or use --suggest)");
    if (o.static_smem >= 0)
        in.static_smem = o.static_smem;
    if (o.smem >= 0)
        in.dyn_smem = o.smem;
    if (o.carveout >= -1)
        in.carveout_pct = o.carveout;
    if (o.barriers >= 0)
        in.num_barriers = o.barriers;
    /* check everything but the block size before searching for one */
    in.block_size = o.block >= 0 ? o.block : a.warp_size;
    if (check_launch(&a, &in, NULL, 0, &d) != WL_OK)
        return cli_report(&d);
    int sug_block = 0, min_grid = 0;
    if (o.suggest && occ_suggest(&a, &in, &sug_block, &min_grid, &d) != WL_OK)
        return cli_report(&d);
    const char *block_src = "option";
    if (o.block < 0) {
        in.block_size = o.suggest ? sug_block : 256;
        block_src = o.suggest ? "suggest" : "default";
        if (in.block_size == 0)
            return cli_usage_error(CMD, "no block size can launch with these resources");
    }
    occ_result r;
    if (occ_compute(&a, &in, &r, &d) != WL_OK)
        return cli_report(&d);
    if (o.json) {
        cJSON *j = cJSON_CreateObject();
        add_inputs(j, &a, &in);
        cJSON_AddStringToObject(j, "block_source", block_src);
        cJSON_AddStringToObject(j, "regs_source", regs_src);
        if (o.ptx)
            cJSON_AddStringToObject(j, "kernel", o.kernel);
        if (ptxas_ran) {
            cJSON_AddNumberToObject(j, "local_bytes", info.local_bytes);
            cJSON_AddNumberToObject(j, "spill_bytes", info.spill_bytes);
        }
        add_result(j, &a, &r);
        if (o.suggest) {
            cJSON_AddNumberToObject(j, "suggested_block", sug_block);
            cJSON_AddNumberToObject(j, "min_grid", min_grid);
        }
        add_series(j, &a, &in);
        return print_json(j, 1);
    }
    if (ptxas_ran)
        printf("kernel %s: %d registers (%s), %d B static shared memory, %d B stack, %d B "
               "spilled per thread\n",
               o.kernel, in.regs_per_thread, regs_src, in.static_smem, info.local_bytes,
               info.spill_bytes);
    else if (o.ptx)
        printf("kernel %s: %d registers (%s); ptxas not found, static shared memory taken as "
               "%d B\n",
               o.kernel, in.regs_per_thread, regs_src, in.static_smem);
    if (strcmp(block_src, "option"))
        printf("block size %d: %s\n", in.block_size,
               o.suggest ? "the suggested one" : "the default (use --block or --suggest)");
    print_text(&a, &in, &r);
    if (o.suggest)
        printf("\nsuggested block size (cudaOccupancyMaxPotentialBlockSize): %d threads, "
               "min grid %d blocks (%d SMs)\n",
               sug_block, min_grid, a.sm_count);
    return WL_OK;
}
