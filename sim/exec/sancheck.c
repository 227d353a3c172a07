/* sancheck: shared-memory initcheck and racecheck over the executor's step API (sancheck.h). */
#include "sancheck.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "ptx.h"

/* Warp steps a warp may take before the others get a turn: lets spin-waits on another warp's
 * flag make progress without tying the sweep to one warp. */
#define SANCK_TURN 1024

enum { K_UNINIT, K_RAW, K_WAR, K_WAW };

/* Shadow of one shared-memory byte. Epochs are stored +1 so that 0 means "never". */
typedef struct {
    uint32_t w_epoch;   /* epoch+1 of the last plain write, 0: none */
    uint32_t r_epoch;   /* epoch+1 the reader mask belongs to */
    uint32_t r_mask;    /* warps (bit per warp, <= 32 per block) that read in r_epoch */
    uint32_t w_line;    /* PTX line of the last plain write */
    uint16_t r_line;    /* low bits of a reader's line, only for the message */
    uint8_t w_warp;
    uint8_t init;
} shadow;

typedef struct {
    const ptx_module *m;
    shadow *sh;
    size_t nsh;          /* bytes covered */
    uint32_t epoch;
    uint32_t seen[256];  /* (kind, line) pairs already reported, open addressing */
    int nseen;
    sanck_report *rep;
} sanck;

static int seen_before(sanck *s, int kind, uint32_t line)
{
    uint32_t key = (line << 2 | (uint32_t)kind) + 1u;
    uint32_t h = (key * 2654435761u) & 255u;
    for (int i = 0; i < 256; i++, h = (h + 1) & 255u) {
        if (s->seen[h] == key)
            return 1;
        if (!s->seen[h]) {
            if (s->nseen >= 192) /* table nearly full: stop deduplicating, just count */
                return 0;
            s->seen[h] = key;
            s->nseen++;
            return 0;
        }
    }
    return 0;
}

static void warn(sanck *s, int kind, const exec_step_info *in, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void warn(sanck *s, int kind, const exec_step_info *in, const char *fmt, ...)
{
    if (seen_before(s, kind, in->line))
        return;
    sanck_report *r = s->rep;
    if (r->nwarnings >= SANCK_MAX_WARNINGS) {
        r->suppressed++;
        return;
    }
    char *m = r->msg[r->nwarnings++];
    int n = snprintf(m, SANCK_MSG, "%s:%u:%u: warning: ", s->m->name ? s->m->name : "?",
                     in->line, in->col);
    if (n < 0 || n >= SANCK_MSG)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m + n, SANCK_MSG - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Grows the shadow to cover [0, end). Returns 0 on out of memory. */
static int cover(sanck *s, size_t end)
{
    if (end <= s->nsh)
        return 1;
    size_t n = s->nsh ? s->nsh : 1024;
    while (n < end)
        n *= 2;
    shadow *nb = realloc(s->sh, n * sizeof *nb);
    if (!nb)
        return 0;
    memset(nb + s->nsh, 0, (n - s->nsh) * sizeof *nb);
    s->sh = nb;
    s->nsh = n;
    return 1;
}

static const char *src_line(const exec_step_info *in, char *buf, size_t size)
{
    if (in->loc_line)
        snprintf(buf, size, " (source line %u)", in->loc_line);
    else
        buf[0] = '\0';
    return buf;
}

/* One lane's shared access of size bytes at offset a by warp w. */
static void access_bytes(sanck *s, const exec_step_info *in, const uint32_t ctaid[3], int w,
                         int lane, uint64_t a, int ordered)
{
    char sl[48];
    uint32_t ep = s->epoch + 1;
    int store = in->mem_store || in->mem_atomic;
    int load = in->mem_load || in->mem_atomic;
    for (uint32_t i = 0; i < in->mem_size; i++) {
        shadow *x = &s->sh[a + i];
        if (load && !x->init && !store)
            warn(s, K_UNINIT, in,
                 "uninitialised __shared__ read of %u bytes at offset 0x%llx by thread %d (warp %d, "
                 "lane %d) in block (%u,%u,%u): no thread of the block wrote it%s",
                 in->mem_size, (unsigned long long)a, w * 32 + lane, w, lane, ctaid[0], ctaid[1],
                 ctaid[2], src_line(in, sl, sizeof sl));
        if (!ordered && x->w_epoch == ep && x->w_warp != (uint8_t)w)
            warn(s, store ? K_WAW : K_RAW, in,
                 "__shared__ %s hazard at offset 0x%llx: warp %d %s what warp %u wrote at PTX "
                 "line %u with no barrier between, in block (%u,%u,%u)%s",
                 store ? "write-after-write" : "read-after-write", (unsigned long long)(a + i), w,
                 store ? "overwrites" : "reads", x->w_warp, x->w_line, ctaid[0], ctaid[1],
                 ctaid[2], src_line(in, sl, sizeof sl));
        if (!ordered && store && x->r_epoch == ep && (x->r_mask & ~(1u << w)))
            warn(s, K_WAR, in,
                 "__shared__ write-after-read hazard at offset 0x%llx: warp %d overwrites what "
                 "another warp read with no barrier between, in block (%u,%u,%u)%s",
                 (unsigned long long)(a + i), w, ctaid[0], ctaid[1], ctaid[2],
                 src_line(in, sl, sizeof sl));
        if (store) {
            x->init = 1;
            if (!ordered) {
                x->w_epoch = ep;
                x->w_warp = (uint8_t)w;
                x->w_line = in->line;
            }
        }
        if (load && !ordered) {
            if (x->r_epoch != ep) {
                x->r_epoch = ep;
                x->r_mask = 0;
            }
            x->r_mask |= 1u << w;
            x->r_line = (uint16_t)in->line;
        }
    }
}

static int feed(sanck *s, const exec_step_info *in, const uint32_t ctaid[3], int w)
{
    if (in->mem_space != PTX_SPACE_SHARED || !in->mem_size || w >= 32)
        return 1;
    const char *name = isa_name(in->opcode);
    int ordered = in->mem_atomic || !strncmp(name, "mbarrier", 8) || !strncmp(name, "cp.async", 8);
    for (int l = 0; l < 32; l++) {
        if (!(in->exec_mask >> l & 1))
            continue;
        uint64_t a = exec_step_addr(in, l);
        if (!cover(s, (size_t)a + in->mem_size))
            return 0;
        access_bytes(s, in, ctaid, w, l, a, ordered);
    }
    return 1;
}

/* Runs one block to the end with every step checked. */
static wl_status run_block(sanck *s, exec_block *b, const uint32_t ctaid[3], uint64_t *budget,
                           diag_t *d)
{
    int nw = exec_block_nwarps(b);
    exec_warp_state prev[32];
    for (int w = 0; w < nw && w < 32; w++)
        prev[w] = exec_warp_state_of(b, w);
    s->epoch = 0;
    if (s->nsh) /* a block starts with every byte unwritten */
        memset(s->sh, 0, s->nsh * sizeof *s->sh);
    exec_step_info *in = malloc(sizeof *in);
    if (!in)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    wl_status st = WL_OK;
    while (st == WL_OK && !exec_block_done(b)) {
        int progressed = 0;
        for (int w = 0; w < nw && st == WL_OK; w++) {
            for (int k = 0; k < SANCK_TURN && exec_warp_state_of(b, w) == EXEC_WARP_READY; k++) {
                if (*budget == 0) {
                    st = diag_set(d, WL_EDEADLOCK, s->m->name, 0, 0,
                                  "block (%u,%u,%u) ran past the --max-cycles bound of warp "
                                  "instructions (a runaway loop, or a spin wait that never ends?)",
                                  ctaid[0], ctaid[1], ctaid[2]);
                    break;
                }
                st = exec_warp_step(b, w, in, d);
                if (st != WL_OK)
                    break;
                (*budget)--;
                progressed = 1;
                if (!feed(s, in, ctaid, w)) {
                    st = diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
                    break;
                }
                /* a barrier released its warps: a new epoch for the block */
                int released = 0;
                for (int v = 0; v < nw && v < 32; v++) {
                    exec_warp_state now = exec_warp_state_of(b, v);
                    released |= prev[v] == EXEC_WARP_BARRIER && now != EXEC_WARP_BARRIER;
                    prev[v] = now;
                }
                s->epoch += (uint32_t)released;
            }
        }
        if (st == WL_OK && !progressed && !exec_block_done(b))
            st = exec_block_stuck(b, d);
    }
    free(in);
    return st;
}

static void add_stats(launch_stats *st, const exec_counts *c)
{
    st->warp_insts += c->warp_insts;
    st->thread_insts += c->thread_insts;
    st->branches += c->branches;
    st->divergent_branches += c->divergent_branches;
    for (int i = 0; i < PTX_OP_COUNT; i++)
        st->op_count[i] += c->op_count[i];
    st->blocks_done++;
}

wl_status sanck_launch(const ptx_module *m, const ptx_func *k, const launch_config *cfg,
                       devmem_t *mem, launch_stats *st, sanck_report *rep, diag_t *d)
{
    memset(rep, 0, sizeof *rep);
    launch_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    exec_grid g;
    memset(&g, 0, sizeof g);
    memcpy(g.grid, cfg->grid, sizeof g.grid);
    memcpy(g.block, cfg->block, sizeof g.block);
    g.dyn_smem = cfg->dyn_smem;
    g.params = cfg->params;
    g.params_size = cfg->params_size;
    g.num_sms = cfg->num_sms > 0 ? cfg->num_sms : LAUNCH_DEFAULT_SMS;
    g.print = cfg->print;
    g.print_ctx = cfg->print_ctx;
    exec_prog *p;
    wl_status rc = exec_prog_create(m, k, &g, mem, &p, d);
    if (rc != WL_OK)
        return rc;
    sanck s;
    memset(&s, 0, sizeof s);
    s.m = m;
    s.rep = rep;
    uint64_t budget = cfg->max_warp_insts ? cfg->max_warp_insts : LAUNCH_DEFAULT_MAX_WARP_INSTS;
    uint64_t nblocks = (uint64_t)g.grid[0] * g.grid[1] * g.grid[2];
    exec_block *b = NULL;
    for (uint64_t id = 0; id < nblocks && rc == WL_OK; id++) {
        uint32_t c[3] = {(uint32_t)(id % g.grid[0]), (uint32_t)(id / g.grid[0] % g.grid[1]),
                         (uint32_t)(id / ((uint64_t)g.grid[0] * g.grid[1]))};
        if (b)
            exec_block_reset(b, c);
        else if (!(b = exec_block_create(p, c, d)))
            rc = WL_EUSAGE;
        if (rc == WL_OK)
            rc = run_block(&s, b, c, &budget, d);
        if (rc == WL_OK)
            add_stats(st, exec_block_counts(b));
    }
    if (b)
        exec_block_destroy(b);
    exec_prog_destroy(p);
    free(s.sh);
    st->branch_efficiency =
        st->branches ? 1.0 - (double)st->divergent_branches / (double)st->branches : 1.0;
    st->avg_active_lanes = st->warp_insts ? (double)st->thread_insts / (double)st->warp_insts : 0;
    return rc;
}
