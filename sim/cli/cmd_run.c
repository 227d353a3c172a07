/* warplab run: parse a PTX file, set up one kernel launch (arch, grid, block,
 * arguments in a simulated device address space), run it on the cycle-level timing model
 * (sim/timing/timing.h, docs/model.md) and report: cycles, time, stall reasons, occupancy,
 * memory counters, as a text report modelled on Nsight Compute's sections or as JSON.
 * --sanitize runs functionally instead (the shared-memory checker works on the functional
 * launcher): instruction counts only, the timing keys are null, --max-cycles bounds warp
 * instructions.
 *
 * What CUDA does and we mirror: a launch fails with "invalid configuration"
 * for blocks above 1024 threads (1024 x 1024 x 64 per dimension) or grids above
 * 2^31-1 x 65535 x 65535, and with "too many resources requested" when a block
 * cannot fit on an SM (registers or shared memory); dynamic shared memory is
 * checked against the device's opt-in per-block maximum. */
#include <cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "argspec.h"
#include "cli.h"
#include "cudac.h"
#include "devmem.h"
#include "kname.h"
#include "launch.h"
#include "lesson.h"
#include "occupancy.h"
#include "ptx.h"
#include "ptxas.h"
#include "spillmap.h"
#include "timing.h"
#include "sancheck.h"

#define CMD "run"
#define MAX_ARGS 256 /* --arg options (the param space is at most 64 KiB anyway) */

static const char usage[] =
    "usage: warplab run KERNEL.ptx --kernel NAME [--arch h200] --grid X[,Y[,Z]] --block X[,Y[,Z]]\n"
    "                   [--smem DYNAMIC_BYTES] [--regs N] [--arg SPEC]... [--json]\n"
    "                   [--trace FILE] [--dump DIR] [--policy lrr|gto|gty|brr|two-level]\n"
    "                   [--max-cycles N] [--sanitize] [--ptx-order]\n"
    "                   [--spills MAP | --no-spills]\n"
    "\n"
    "Runs one kernel launch on the simulated GPU, cycle by cycle (docs/model.md). KERNEL.cu\n"
    "instead of KERNEL.ptx: compiled first with nvcc -ptx -arch=<the arch's sm> -lineinfo\n"
    "($NVCC, else nvcc on the PATH; an error without one). --kernel may be left out when the\n"
    "file holds one kernel.\n"
    "--arg SPEC, one per kernel parameter, in order:\n"
    "  scalar TYPE:VALUE           u32:42  s32:-1  f32:2.0  (TYPE u8 s8 u16 s16 u32 s32 u64 s64 f32\n"
    "                              f64 f16 bf16; f16/bf16 also fill a __half/__nv_bfloat16 by value)\n"
    "  buffer TYPE[COUNT]:INIT     f32[1024]:zeros  u32[256]:iota  s32[64]:const(-1)\n"
    "                              f32[4096]:random(-1,1[,SEED])  u32[16]:random[(SEED)]\n"
    "                              u32[1024]:affine(A,C,M)  (element i = (A*i + C) mod M)\n"
    "--dump DIR writes each buffer after the kernel as DIR/argN.bin (N = parameter position).\n"
    "--max-cycles N stops a timed run still going at cycle N (exit 4); default 100000000\n"
    "  (50 ms of H200 time, 48x the longest measured lesson case), so a kernel that never ends\n"
    "  stops instead of hanging. With --sanitize (functional) it bounds warp instructions.\n"
    "--sanitize warns about uninitialised shared-memory reads and shared-memory races between\n"
    "  warps with no barrier between them (docs/robustness.md); it runs functionally.\n"
    "--policy picks the warp each scheduler issues: lrr (round robin), gto (greedy, then\n"
    "  the oldest), gty (greedy, then the youngest), brr (the oldest block, round robin among\n"
    "  its warps), two-level; default: the arch file's (h200: brr; docs/model.md, section 2).\n"
    "--ptx-order issues the PTX in the order nvcc wrote it; by default each basic block is first\n"
    "  reordered the way ptxas schedules it (same results; docs/model.md, compiler model).\n"
    "--spills MAP issues the spill stores and reloads ptxas adds to the kernel, read from MAP\n"
    "  (scripts/sass-spills.py writes it); by default from KERNEL.spills beside KERNEL.ptx\n"
    "  when it exists. --no-spills ignores it (docs/model.md, section 9).\n"
    "Exit status: 0 ok, 1 usage, 2 unsupported PTX, 3 fault in the kernel, 4 deadlock/--max-cycles.\n"
    "See docs/run.md.\n";

/* Default --max-cycles of a timed run: far above any real lesson kernel (the longest measured
 * H200 case ran about 2.1 million cycles), low enough that a kernel which never ends stops in
 * seconds of host time rather than hanging. */
#define RUN_DEFAULT_MAX_CYCLES UINT64_C(100000000)

typedef struct {
    const char *ptx, *kernel, *arch, *trace, *dump, *policy, *spills;
    const char *grid_s, *block_s;
    uint32_t grid[3], block[3];
    uint64_t smem, max_cycles;
    int regs; /* -1: not given */
    int json;
    int ptx_order; /* --ptx-order: no ptxas scheduling model */
    int sanitize; /* --sanitize: shared-memory initcheck/racecheck warnings (sancheck.h) */
    int no_spills; /* --no-spills: no spill map, not even the one beside the PTX */
    const char *args[MAX_ARGS];
    int nargs;
} run_opts;

/* Everything one run owns, released by run_free. */
typedef struct {
    arch_t arch;
    ptx_module *mod;
    const ptx_func *fn;
    devmem_t *mem;
    uint8_t *params;
    argspec specs[MAX_ARGS];
    uint64_t addr[MAX_ARGS]; /* device address of buffer args, 0 for scalars */
    int regs;
    const char *regs_source;
    int spill_bytes;        /* ptxas: spill stores + loads per thread; -1 when unknown */
    spillmap *spills;       /* --spills, or the map beside the PTX; NULL: none */
    const spill_kernel *sk; /* its entry for the kernel; NULL: none */
    occ_result occ;
    launch_stats st;     /* --sanitize (functional) runs */
    timing_result tr;    /* timed runs; --sanitize fills its instruction counts */
    int functional;
    double sim_seconds;
    cudac_out cu;        /* KERNEL.cu: its PTX, made by nvcc ("" otherwise) */
} run_state;

/* ---- option parsing ------------------------------------------------------------ */

/* Unsigned decimal (or 0x hex) with nothing else; 0 on success. */
static int parse_num(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s)
        return -1;
    int base = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
    const char *p = base == 16 ? s + 2 : s;
    if (!*p)
        return -1;
    for (const char *q = p; *q; q++)
        if (!(base == 16 ? (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') ||
                               (*q >= 'A' && *q <= 'F')
                         : (*q >= '0' && *q <= '9')))
            return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, base);
    if (errno == ERANGE || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

/* "X[,Y[,Z]]", each at least 1; missing components are 1. */
static int parse_dims(const char *opt, const char *s, uint32_t out[3])
{
    char buf[96];
    if (strlen(s) >= sizeof buf)
        return cli_usage_error(CMD, "%s '%.40s...': too long", opt, s);
    snprintf(buf, sizeof buf, "%s", s);
    out[0] = out[1] = out[2] = 1;
    int k = 0;
    char *save = NULL;
    if (!buf[0] || buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
        return cli_usage_error(CMD, "%s '%s': expected X[,Y[,Z]] with positive integers", opt, s);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (k == 3)
            return cli_usage_error(CMD, "%s '%s': at most 3 dimensions (X,Y,Z)", opt, s);
        if (parse_num(t, UINT32_MAX, &v) != 0 || v == 0)
            return cli_usage_error(CMD, "%s '%s': '%s' is not a positive integer (at most %u)",
                                   opt, s, t, UINT32_MAX);
        out[k++] = (uint32_t)v;
    }
    return WL_OK;
}

static int parse_opts(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->arch = "h200";
    o->regs = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            if (o->ptx)
                return cli_usage_error(CMD, "more than one PTX file ('%s' and '%s')", o->ptx, a);
            o->ptx = a;
            continue;
        }
        if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (!strcmp(a, "--ptx-order")) {
            o->ptx_order = 1;
            continue;
        }
        if (!strcmp(a, "--sanitize")) {
            o->sanitize = 1;
            continue;
        }
        if (!strcmp(a, "--no-spills")) {
            o->no_spills = 1;
            continue;
        }
        /* Every other option takes a value: --opt VALUE or --opt=VALUE. */
        static const char *const valued[] = {"--kernel", "--arch",   "--grid",   "--block",
                                             "--smem",   "--regs",   "--arg",    "--trace",
                                             "--dump",   "--policy", "--max-cycles",
                                             "--spills"};
        const char *val = NULL, *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        int which = -1;
        for (int k = 0; k < (int)(sizeof valued / sizeof valued[0]); k++)
            if (strlen(valued[k]) == nlen && !strncmp(a, valued[k], nlen))
                which = k;
        if (which < 0)
            return cli_usage_error(CMD, "unknown option '%s'", a);
        if (eq)
            val = eq + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        else
            return cli_usage_error(CMD, "option %s needs a value", valued[which]);
        const char *name = valued[which];
        uint64_t v;
        if (!strcmp(name, "--kernel"))
            o->kernel = val;
        else if (!strcmp(name, "--arch"))
            o->arch = val;
        else if (!strcmp(name, "--grid"))
            o->grid_s = val;
        else if (!strcmp(name, "--block"))
            o->block_s = val;
        else if (!strcmp(name, "--trace"))
            o->trace = val;
        else if (!strcmp(name, "--dump"))
            o->dump = val;
        else if (!strcmp(name, "--policy"))
            o->policy = val;
        else if (!strcmp(name, "--spills"))
            o->spills = val;
        else if (!strcmp(name, "--arg")) {
            if (o->nargs == MAX_ARGS)
                return cli_usage_error(CMD, "more than %d --arg options", MAX_ARGS);
            o->args[o->nargs++] = val;
        } else if (!strcmp(name, "--smem")) {
            if (parse_num(val, UINT32_MAX, &v) != 0)
                return cli_usage_error(CMD, "--smem '%s': expected a byte count", val);
            o->smem = v;
        } else if (!strcmp(name, "--regs")) {
            if (parse_num(val, 255, &v) != 0 || v == 0)
                return cli_usage_error(CMD, "--regs '%s': expected registers per thread, 1..255",
                                       val);
            o->regs = (int)v;
        } else { /* --max-cycles */
            if (parse_num(val, UINT64_MAX, &v) != 0 || v == 0)
                return cli_usage_error(CMD, "--max-cycles '%s': expected a positive integer", val);
            o->max_cycles = v;
        }
        if (!*val && strcmp(name, "--arg") != 0)
            return cli_usage_error(CMD, "option %s needs a non-empty value", name);
    }
    if (!o->ptx)
        return cli_usage_error(CMD, "missing KERNEL.ptx");
    if (o->spills && o->no_spills)
        return cli_usage_error(CMD, "--spills and --no-spills together");
    if (!o->grid_s)
        return cli_usage_error(CMD, "missing --grid X[,Y[,Z]]");
    if (!o->block_s)
        return cli_usage_error(CMD, "missing --block X[,Y[,Z]]");
    if (parse_dims("--grid", o->grid_s, o->grid) || parse_dims("--block", o->block_s, o->block))
        return WL_EUSAGE;
    if (o->policy && sched_policy_from_name(o->policy) < 0)
        return cli_usage_error(CMD, "--policy '%s': expected lrr, gto, gty, brr or two-level",
                               o->policy);
    return WL_OK;
}

/* ---- launch checks --------------------------------------------------------------- */

static int check_launch(const run_opts *o, run_state *s)
{
    const arch_t *a = &s->arch;
    static const uint32_t bmax[3] = {1024, 1024, 64};
    static const uint32_t gmax[3] = {2147483647u, 65535, 65535};
    static const char xyz[] = "xyz";
    for (int k = 0; k < 3; k++) {
        if (o->block[k] > bmax[k])
            return cli_usage_error(CMD, "--block %s: %c dimension %u exceeds CUDA's limit %u",
                                   o->block_s, xyz[k], o->block[k], bmax[k]);
        if (o->grid[k] > gmax[k])
            return cli_usage_error(CMD, "--grid %s: %c dimension %u exceeds CUDA's limit %u",
                                   o->grid_s, xyz[k], o->grid[k], gmax[k]);
    }
    uint64_t threads = (uint64_t)o->block[0] * o->block[1] * o->block[2];
    if (threads > (uint64_t)a->max_threads_per_block)
        return cli_usage_error(CMD, "--block %s: %" PRIu64 " threads per block exceeds the %s "
                               "limit of %d",
                               o->block_s, threads, a->name, a->max_threads_per_block);
    uint64_t stat = s->fn->smem_static;
    if (o->smem + stat > (uint64_t)a->smem_per_block_optin)
        return cli_usage_error(CMD, "--smem %" PRIu64 ": dynamic plus %" PRIu64 " bytes of static "
                               "shared memory exceeds the %s per-block limit of %d bytes",
                               o->smem, stat, a->name, a->smem_per_block_optin);
    if (o->smem && s->fn->dyn_smem_var == PTX_NONE)
        fprintf(stderr, "warplab run: note: --smem %" PRIu64 " given but kernel '%s' declares no "
                "extern (dynamic) shared array\n", o->smem, o->kernel);
    return WL_OK;
}

/* The kernels of the module as a list for messages: "a, _Z3addPfi (add), ..."; only those
 * kname_matches with name when name is not NULL. Returns how many. */
static int kernel_list(const ptx_module *m, const char *name, char *list, size_t n)
{
    size_t len = 0;
    int count = 0;
    list[0] = '\0';
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *g = &m->funcs[i];
        if (!g->is_entry || g->is_decl || (name && !kname_matches(g->name, name)))
            continue;
        count++;
        char base[256];
        if (len < n)
            len += (size_t)snprintf(list + len, n - len, "%s%s", len ? ", " : "", g->name);
        if (len < n && kname_base(g->name, base, sizeof base))
            len += (size_t)snprintf(list + len, n - len, " (%s)", base);
    }
    return count;
}

/* --kernel NAME: the entry of that name, else the one whose C++ name it is (a kernel not
 * declared extern "C" has a mangled name in the PTX: `add` finds _Z3addPfi, kname.h). From here
 * on o->kernel is the PTX's name. */
static int find_kernel(run_opts *o, run_state *s)
{
    char list[1024];
    if (!o->kernel) { /* without --kernel: the module's only kernel, as a one-kernel .cu has */
        int n = kernel_list(s->mod, NULL, list, sizeof list);
        for (uint32_t i = 0; n == 1 && i < s->mod->nfuncs; i++) {
            const ptx_func *g = &s->mod->funcs[i];
            if (g->is_entry && !g->is_decl) {
                s->fn = g;
                o->kernel = g->name;
                return WL_OK;
            }
        }
        return cli_usage_error(CMD, "missing --kernel NAME: %s has %d kernels%s%s", o->ptx, n,
                               n ? ": " : "", list);
    }
    const ptx_func *f = ptx_find_func(s->mod, o->kernel);
    if (f && f->is_entry && !f->is_decl) {
        s->fn = f;
        return WL_OK;
    }
    if (!f) {
        int n = kernel_list(s->mod, o->kernel, list, sizeof list);
        if (n > 1)
            return cli_usage_error(CMD, "'%s' names %d kernels in %s: %s; give the PTX name of "
                                   "one", o->kernel, n, o->ptx, list);
        for (uint32_t i = 0; n == 1 && i < s->mod->nfuncs; i++) {
            const ptx_func *g = &s->mod->funcs[i];
            if (g->is_entry && !g->is_decl && kname_matches(g->name, o->kernel)) {
                s->fn = g;
                o->kernel = g->name;
                return WL_OK;
            }
        }
    }
    int len = kernel_list(s->mod, NULL, list, sizeof list);
    if (f)
        return cli_usage_error(CMD, "'%s' in %s is a device function (.func), not a kernel; "
                               "kernels: %s", o->kernel, o->ptx, len ? list : "none");
    return cli_usage_error(CMD, "no kernel '%s' in %s; kernels: %s", o->kernel, o->ptx,
                           len ? list : "none");
}

/* ---- arguments -------------------------------------------------------------------- */

static int bind_args(const run_opts *o, run_state *s)
{
    const ptx_func *f = s->fn;
    diag_t d;
    diag_clear(&d);
    if ((uint32_t)o->nargs != f->nparams)
        return cli_usage_error(CMD, "kernel '%s' has %u parameter%s, got %d --arg option%s",
                               o->kernel, f->nparams, f->nparams == 1 ? "" : "s", o->nargs,
                               o->nargs == 1 ? "" : "s");
    s->params = (uint8_t *)calloc(1, f->param_size ? f->param_size : 1);
    s->mem = devmem_create(DEVMEM_DEFAULT_LIMIT);
    if (!s->params || !s->mem)
        return cli_usage_error(CMD, "out of memory");
    for (int i = 0; i < o->nargs; i++) {
        const ptx_var *p = &f->params[i];
        argspec *sp = &s->specs[i];
        if (argspec_parse(o->args[i], sp, &d) != WL_OK)
            return cli_report(&d);
        unsigned psize = (unsigned)p->size;
        const char *ptype = ptx_type_name((ptx_type)p->type);
        /* nvcc passes a __half or __nv_bfloat16 by value as a 2-byte aggregate
         * (.param .align 2 .b8 name[2]): an f16 or bf16 scalar fills its two bytes */
        int half_aggr = !sp->is_buffer && p->count == 2 && p->vec == 1 && psize == 2 &&
                        (sp->type == ARGSPEC_F16 || sp->type == ARGSPEC_BF16) &&
                        (p->type == PTX_T_B8 || p->type == PTX_T_U8 || p->type == PTX_T_S8);
        if (!half_aggr && (p->count != 1 || p->vec != 1))
            return cli_usage_error(CMD, "parameter %d '%s' is an aggregate of %u bytes "
                                   "(.%s[%" PRIu64 "]); --arg fills scalars and pointers only%s",
                                   i, p->name, psize, ptype, p->count,
                                   psize == 2 ? " (a __half or __nv_bfloat16 by value: f16:V or "
                                                "bf16:V)"
                                              : "");
        if (p->offset + psize > f->param_size)
            return cli_usage_error(CMD, "parameter %d '%s' (%u bytes at offset %u) lies outside "
                                   "the kernel's %u bytes of parameters", i, p->name, psize,
                                   (unsigned)p->offset, (unsigned)f->param_size);
        if (sp->is_buffer) {
            if (psize != 8 || (p->type != PTX_T_U64 && p->type != PTX_T_B64 &&
                               p->type != PTX_T_S64))
                return cli_usage_error(CMD, "parameter %d '%s' is .%s, but --arg '%s' is a "
                                       "buffer, which needs a 64-bit pointer parameter "
                                       "(.u64/.b64/.s64)", i, p->name, ptype, o->args[i]);
            char label[16];
            snprintf(label, sizeof label, "arg%d", i);
            uint64_t bytes = argspec_bytes(sp);
            if (devmem_alloc(s->mem, bytes, label, &s->addr[i], &d) != WL_OK)
                return cli_report(&d);
            /* devmem memory starts zeroed (and untouched pages cost nothing), so
             * zeros needs no fill: a 4 GiB zero buffer stays cheap until used. */
            if (sp->init != ARGSPEC_INIT_ZEROS &&
                argspec_fill(sp, devmem_translate(s->mem, s->addr[i], bytes), &d) != WL_OK)
                return cli_report(&d);
            memcpy(s->params + p->offset, &s->addr[i], 8); /* little-endian host */
        } else {
            size_t es = argspec_elem_size(sp->type);
            if (es != psize)
                return cli_usage_error(CMD, "parameter %d '%s' is .%s (%u bytes), but --arg '%s' "
                                       "is %zu bytes", i, p->name, ptype, psize, o->args[i], es);
            if (argspec_fill(sp, s->params + p->offset, &d) != WL_OK)
                return cli_report(&d);
        }
    }
    return WL_OK;
}

/* ---- registers and occupancy --------------------------------------------------- */

/* Without ptxas: an estimate from the IR. nvcc's PTX uses fresh virtual registers freely and
 * ptxas packs them into far fewer physical ones, so we take the PTX's register pressure (the
 * most 32-bit registers live at once, ptx_pressure: 64-bit = 2, predicates 0) plus two (the
 * median gap to ptxas: it keeps the stack pointer in R1 and a few address temporaries), round
 * up to the per-thread allocation step of 8 and clamp to 16..255. For the kernels of
 * gpu/kernels, ptxas 13.0 for sm_90 chose between 3 fewer and 9 more registers than the
 * pressure, except or_regs_free (95 against ptxas's 80). A function too large to analyse falls
 * back to counting every declared register. Reported as "estimate". */
static int estimate_regs(const ptx_func *f)
{
    uint64_t slots = ptx_pressure(f, NULL, NULL);
    if (slots)
        slots += 2;
    else
        for (uint32_t i = 0; i < f->nregs; i++) {
            unsigned sz = ptx_type_size((ptx_type)f->regs[i].type);
            if (f->regs[i].type == PTX_T_PRED)
                continue;
            slots += ((sz + 3) / 4) * (f->regs[i].vec ? f->regs[i].vec : 1);
        }
    slots = (slots + 7) / 8 * 8;
    return slots < 16 ? 16 : slots > 255 ? 255 : (int)slots;
}

static int pick_regs(const run_opts *o, run_state *s)
{
    s->spill_bytes = -1;
    if (o->regs > 0) {
        if (o->regs > s->arch.max_regs_per_thread)
            return cli_usage_error(CMD, "--regs %d exceeds the %s limit of %d per thread", o->regs,
                                   s->arch.name, s->arch.max_regs_per_thread);
        s->regs = o->regs;
        s->regs_source = "option";
        return WL_OK;
    }
    if (ptxas_available()) {
        diag_t d;
        diag_clear(&d);
        int regs = 0, spill = 0;
        if (ptxas_query(o->ptx, o->kernel, s->arch.sm_target, &regs, NULL, NULL, &spill, &d) ==
            WL_OK) {
            s->regs = regs;
            s->regs_source = "ptxas";
            s->spill_bytes = spill;
            return WL_OK;
        }
        fprintf(stderr, "warplab run: note: ptxas could not report registers (%s); using the "
                "estimate\n", d.msg);
    }
    s->regs = estimate_regs(s->fn);
    s->regs_source = "estimate";
    return WL_OK;
}

static int compute_occupancy(const run_opts *o, run_state *s)
{
    occ_input in;
    diag_t d;
    diag_clear(&d);
    occ_input_defaults(&in);
    in.block_size = (int)(o->block[0] * o->block[1] * o->block[2]);
    in.regs_per_thread = s->regs;
    in.static_smem = (int)s->fn->smem_static;
    in.dyn_smem = (int)o->smem;
    if (occ_compute(&s->arch, &in, &s->occ, &d) != WL_OK)
        return cli_report(&d);
    if (s->occ.blocks_per_sm == 0)
        return cli_usage_error(CMD, "too many resources requested for launch: a block of %d "
                               "threads with %d registers/thread and %d bytes of shared memory "
                               "does not fit on one %s SM (limited by %s)",
                               in.block_size, s->regs, in.static_smem + in.dyn_smem, s->arch.name,
                               occ_first_limiter(s->occ.limiters));
    return WL_OK;
}

/* ---- output --------------------------------------------------------------------- */

/* mkdir -p DIR, before the launch so a bad --dump fails before a long run. */
static int make_dump_dir(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return cli_usage_error(CMD, "--dump: path too long");
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        struct stat sb;
        if (mkdir(path, 0777) != 0 && !(errno == EEXIST && stat(path, &sb) == 0 &&
                                         S_ISDIR(sb.st_mode)))
            return cli_usage_error(CMD, "--dump %s: cannot create directory %s: %s", dir, path,
                                   errno == EEXIST ? "a file is in the way" : strerror(errno));
        if (!c)
            return WL_OK;
        *p = c;
    }
}

static int write_dumps(const run_opts *o, const run_state *s)
{
    for (int i = 0; i < o->nargs; i++) {
        if (!s->specs[i].is_buffer)
            continue;
        const devmem_region *r = devmem_find(s->mem, s->addr[i]);
        char path[4096];
        snprintf(path, sizeof path, "%s/arg%d.bin", o->dump, i);
        FILE *fp = fopen(path, "wb");
        if (!fp)
            return cli_usage_error(CMD, "--dump: cannot write %s: %s", path, strerror(errno));
        size_t n = r ? (size_t)r->size : 0;
        int bad = (n && fwrite(r->host, 1, n, fp) != n);
        bad |= fclose(fp) != 0;
        if (bad)
            return cli_usage_error(CMD, "--dump: error writing %s", path);
    }
    return WL_OK;
}

static cJSON *dims_json(const uint32_t d[3])
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < 3; k++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(d[k]));
    return a;
}

static void print_json(const run_opts *o, const run_state *s)
{
    const timing_result *r = &s->tr;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "kernel", o->kernel);
    cJSON_AddStringToObject(j, "arch", s->arch.name);
    cJSON_AddItemToObject(j, "grid", dims_json(o->grid));
    cJSON_AddItemToObject(j, "block", dims_json(o->block));
    cJSON_AddNumberToObject(j, "dynamic_smem", (double)o->smem);
    cJSON_AddNumberToObject(j, "static_smem", s->fn->smem_static);
    cJSON_AddNumberToObject(j, "regs", s->regs);
    cJSON_AddStringToObject(j, "regs_source", s->regs_source);
    if (s->spill_bytes >= 0) /* only when ptxas said */
        cJSON_AddNumberToObject(j, "spill_bytes", s->spill_bytes);
    if (s->sk) { /* spill code simulated (docs/model.md, section 9) */
        cJSON_AddStringToObject(j, "spill_map", s->spills->path);
        cJSON_AddNumberToObject(j, "spill_ops", s->sk->nops);
    }
    cJSON_AddNumberToObject(j, "warps_per_sm", s->occ.warps_per_sm);
    cJSON_AddStringToObject(j, "occupancy_limiter", occ_first_limiter(s->occ.limiters));
    /* cycles, time_us, stalls, occupancy, memory counters, opcodes, ... */
    timing_result_to_json(r, j);
    cJSON_AddNumberToObject(j, "avg_active_lanes",
                            r->warp_instructions ? (double)r->thread_instructions /
                                                       (double)r->warp_instructions : 0.0);
    if (s->functional) { /* --sanitize: no time was modelled */
        static const char *const timed[] = {"achieved_occupancy", "cycles", "time_us", "ipc",
                                            "stalls", "shared_bank_conflicts", "l1_hit_rate",
                                            "l2_hit_rate", "dram_bytes"};
        for (size_t k = 0; k < sizeof timed / sizeof timed[0]; k++)
            cJSON_ReplaceItemInObjectCaseSensitive(j, timed[k], cJSON_CreateNull());
        cJSON_ReplaceItemInObjectCaseSensitive(j, "mode", cJSON_CreateString("functional"));
    }
    if (o->trace && !s->functional)
        cJSON_AddStringToObject(j, "trace", o->trace);
    cJSON_AddNumberToObject(j, "sim_seconds", s->sim_seconds);
    char *txt = cJSON_PrintUnformatted(j);
    if (txt)
        printf("%s\n", txt);
    free(txt);
    cJSON_Delete(j);
}

static void print_text(const run_opts *o, const run_state *s)
{
    const timing_result *r = &s->tr;
    char cxx[256], named[300] = ""; /* a mangled kernel's C++ name beside it */
    if (kname_base(o->kernel, cxx, sizeof cxx))
        snprintf(named, sizeof named, " (%s)", cxx);
    printf("kernel %s%s on %s (%s)%s\n", o->kernel, named, s->arch.name, s->arch.full_name,
           s->functional ? ", functional run (--sanitize): instruction counts, no timing" : "");
    printf("  resources   %d registers/thread (%s), %u B static + %" PRIu64 " B dynamic shared\n",
           s->regs, s->regs_source, s->fn->smem_static, o->smem);
    if (s->sk && !s->functional)
        printf("  spills      ptxas's %u spill stores and reloads (%s, a %u B frame per thread)\n"
               "              run as local-memory instructions (docs/model.md, section 9)\n",
               s->sk->nops, s->spills->path, s->sk->frame);
    else if (s->spill_bytes > 0)
        printf("  spills      ptxas spills to fit %d registers (spill stores + loads in the code: "
               "%d B per thread);\n              without a spill map (scripts/sass-spills.py) the "
               "model does not simulate\n              that traffic: this time is optimistic "
               "(docs/model.md, section 9)\n", s->regs, s->spill_bytes);
    if (s->functional)
        printf("  executed    %" PRIu64 " warp instructions, %" PRIu64 " thread instructions, "
               "branch efficiency %.1f%%\n", r->warp_instructions, r->thread_instructions,
               100.0 * r->branch_efficiency);
    else
        timing_report_text(r, stdout);
    printf("  host time   %.3f s (%.2f million warp instructions per second)\n", s->sim_seconds,
           s->sim_seconds > 0 ? (double)r->warp_instructions / s->sim_seconds / 1e6 : 0.0);
    if (o->trace && !s->functional)
        printf("  trace       %s (warplab view %s, or warplab export %s --chrome OUT.json)\n",
               o->trace, o->trace, o->trace);
}

/* ---- the command ---------------------------------------------------------------- */

static void run_free(run_state *s)
{
    timing_result_free(&s->tr);
    devmem_destroy(s->mem);
    free(s->params);
    ptx_module_free(s->mod);
    spillmap_free(s->spills);
}

/* The spill map: --spills, else the one beside the PTX; its entry for the kernel. */
static int load_spills(const run_opts *o, run_state *s)
{
    if (o->no_spills || o->sanitize)
        return WL_OK;
    diag_t d;
    diag_clear(&d);
    wl_status st = o->spills ? spillmap_load(o->spills, &s->spills, &d)
                             : spillmap_load_beside(o->ptx, &s->spills, &d);
    if (st != WL_OK)
        return cli_report(&d);
    s->sk = spillmap_find(s->spills, o->kernel);
    if (o->spills && !s->sk)
        fprintf(stderr, "warplab run: note: %s has no [%s]: no spill code simulated\n", o->spills,
                o->kernel);
    return WL_OK;
}

/* A map is of the code ptxas made at one register count: another count (--regs, another
 * ptxas) would spill differently. Said, not refused: the run shows that code's cost. */
static void check_spill_regs(const run_state *s)
{
    if (s->sk && s->sk->regs && (int)s->sk->regs != s->regs)
        fprintf(stderr, "warplab run: note: %s is of %s's code at %u registers, this run has %d "
                "(%s): its spill code may differ\n", s->spills->path, s->sk->kernel,
                s->sk->regs, s->regs, s->regs_source);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Device printf output goes to stdout, as on a GPU; with --json it goes to stderr so that
 * stdout stays one JSON object. */
static void run_print(void *ctx, const char *text)
{
    fputs(text, (FILE *)ctx);
}

static int run_functional(const run_opts *o, run_state *s)
{
    diag_t d;
    diag_clear(&d);
    launch_config cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.grid, o->grid, sizeof cfg.grid);
    memcpy(cfg.block, o->block, sizeof cfg.block);
    cfg.dyn_smem = (uint32_t)o->smem;
    cfg.params = s->params;
    cfg.params_size = s->fn->param_size;
    cfg.num_sms = s->arch.sm_count;
    /* Functionally, residency only bounds memory: a few blocks at a time are
     * enough (blocks of one grid cannot rely on each other's progress anyway). */
    int resident = s->occ.blocks_per_sm * s->arch.sm_count;
    cfg.max_resident_blocks = resident < LAUNCH_DEFAULT_RESIDENT ? resident : LAUNCH_DEFAULT_RESIDENT;
    /* A functional run has no cycles: --max-cycles bounds warp instructions (docs/run.md). */
    cfg.max_warp_insts = o->max_cycles;
    cfg.print = run_print;
    cfg.print_ctx = o->json ? stderr : stdout;
    double t0 = now_seconds();
    wl_status stt;
    if (o->sanitize) {
        /* functional run with shadow checks; warnings go to stderr, the status is the run's */
        sanck_report *rep = (sanck_report *)calloc(1, sizeof *rep);
        if (!rep)
            return cli_usage_error(CMD, "out of memory");
        stt = sanck_launch(s->mod, s->fn, &cfg, s->mem, &s->st, rep, &d);
        for (int i = 0; i < rep->nwarnings; i++)
            fprintf(stderr, "warplab: %s\n", rep->msg[i]);
        if (rep->suppressed)
            fprintf(stderr, "warplab: note: %llu more sanitizer warnings not shown\n",
                    (unsigned long long)rep->suppressed);
        free(rep);
    } else {
        stt = launch_kernel(s->mod, s->fn, &cfg, s->mem, &s->st, &d);
    }
    s->sim_seconds = now_seconds() - t0;
    if (stt != WL_OK)
        return cli_report(&d);
    return WL_OK;
}

/* The instruction counts of a functional run, in the timed result the printers read. */
static void counts_from_launch(const run_opts *o, run_state *s)
{
    timing_result *r = &s->tr;
    r->policy = sched_policy_from_name(o->policy ? o->policy : s->arch.sched_policy);
    const launch_stats *st = &s->st;
    snprintf(r->kernel, sizeof r->kernel, "%s", s->fn->name);
    snprintf(r->arch, sizeof r->arch, "%s", s->arch.name);
    r->blocks_per_sm = s->occ.blocks_per_sm;
    r->theoretical_occupancy = s->occ.occupancy;
    r->nblocks = st->blocks_done;
    r->warp_instructions = st->warp_insts;
    r->thread_instructions = st->thread_insts;
    r->branches = st->branches;
    r->divergent_branches = st->divergent_branches;
    r->branch_efficiency = st->branch_efficiency;
    memcpy(r->op_count, st->op_count, sizeof r->op_count);
    r->memory_model = "none";
}

/* A progress line on stderr (interactive terminals only) once a run takes over a second. */
typedef struct {
    double t0;
    int shown;
} progress_state;

static void progress(void *ctx, uint64_t cycle, uint64_t done, uint64_t total)
{
    progress_state *p = (progress_state *)ctx;
    if (!isatty(2) || now_seconds() - p->t0 < 1.0)
        return;
    fprintf(stderr, "\rwarplab run: cycle %" PRIu64 ", %" PRIu64 " of %" PRIu64 " blocks done ",
            cycle, done, total);
    p->shown = 1;
}

static int run_timed(const run_opts *o, run_state *s)
{
    diag_t d;
    diag_clear(&d);
    timing_config cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.grid, o->grid, sizeof cfg.grid);
    memcpy(cfg.block, o->block, sizeof cfg.block);
    cfg.dyn_smem = (uint32_t)o->smem;
    cfg.params = s->params;
    cfg.params_size = s->fn->param_size;
    cfg.regs_per_thread = s->regs;
    cfg.policy = o->policy ? sched_policy_from_name(o->policy) : -1;
    cfg.max_cycles = o->max_cycles ? o->max_cycles : RUN_DEFAULT_MAX_CYCLES;
    cfg.trace_path = o->trace;
    cfg.ptx_path = o->ptx;
    cfg.spills = s->sk;
    cfg.spills_path = s->spills ? s->spills->path : NULL;
    /* the PTX text, embedded in the trace so the viewer can show lines (NULL: not embedded) */
    char *source = o->trace ? lesson_read_file(o->ptx, NULL) : NULL;
    cfg.ptx_source = source;
    progress_state ps = {now_seconds(), 0};
    cfg.progress = progress;
    cfg.progress_ctx = &ps;
    cfg.print = run_print;
    cfg.print_ctx = o->json ? stderr : stdout;
    double t0 = now_seconds();
    wl_status stt = timing_run(s->mod, s->fn, &s->arch, &cfg, s->mem, &s->tr, &d);
    s->sim_seconds = now_seconds() - t0;
    s->tr.sim_seconds = s->sim_seconds;
    free(source);
    if (ps.shown)
        fputc('\n', stderr);
    if (stt != WL_OK)
        return cli_report(&d);
    return WL_OK;
}

static int run_launch(const run_opts *o, run_state *s)
{
    if (!o->sanitize)
        return run_timed(o, s);
    s->functional = 1;
    if (o->trace)
        fprintf(stderr, "warplab run: note: --trace %s not written: --sanitize runs "
                "functionally, without time\n", o->trace);
    int rc = run_functional(o, s);
    if (!rc)
        counts_from_launch(o, s);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return WL_OK;
    }
    run_opts *o = (run_opts *)calloc(1, sizeof *o);
    run_state *s = (run_state *)calloc(1, sizeof *s);
    int rc = (o && s) ? WL_OK : cli_usage_error(CMD, "out of memory");
    diag_t d;
    diag_clear(&d);
    if (!rc)
        rc = parse_opts(argc, argv, o);
    if (!rc && arch_load(cli_arch_dir(), o->arch, &s->arch, &d) != WL_OK)
        rc = cli_report(&d);
    const char *cu = NULL; /* KERNEL.cu as given: from here on o->ptx is its PTX */
    if (!rc && cudac_is_source(o->ptx)) {
        cu = o->ptx;
        rc = cudac_compile_or_say(CMD, cu, s->arch.sm_target, &s->cu);
        if (!rc)
            o->ptx = s->cu.ptx;
    }
    if (!rc && ptx_parse_file(o->ptx, &s->mod, &d) != WL_OK)
        rc = cli_report(&d);
    if (!rc && !o->ptx_order && !o->sanitize && ptx_schedule(s->mod, &d) != WL_OK)
        rc = cli_report(&d);
    if (!rc)
        rc = find_kernel(o, s);
    /* an instruction the simulator does not model, in the kernel or what it calls: exit 2 now,
     * before ptxas and the arguments (the launch would refuse it too) */
    if (!rc && ptx_check_supported(s->mod, s->fn, &d) != WL_OK)
        rc = cli_report(&d);
    if (!rc)
        rc = load_spills(o, s);
    if (!rc)
        rc = check_launch(o, s);
    if (!rc)
        rc = bind_args(o, s);
    if (!rc)
        rc = pick_regs(o, s);
    if (!rc)
        check_spill_regs(s);
    if (!rc)
        rc = compute_occupancy(o, s);
    if (!rc && o->dump)
        rc = make_dump_dir(o->dump);
    if (!rc)
        rc = run_launch(o, s);
    if (!rc && o->dump)
        rc = write_dumps(o, s);
    if (!rc) {
        if (o->json)
            print_json(o, s);
        else
            print_text(o, s);
    }
    if (s && cu && s->cu.ptx[0]) {
        if (rc) /* messages may name the PTX's lines: keep it to read them */
            fprintf(stderr, "warplab run: note: the PTX nvcc made of %s is kept at %s\n", cu,
                    s->cu.ptx);
        else
            cudac_remove(&s->cu);
        free(s->cu.log);
    }
    if (s)
        run_free(s);
    free(o);
    free(s);
    return rc;
}
