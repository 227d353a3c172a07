/* ptx_cfg.c: basic blocks, CFG, immediate post-dominators, and the per-entry
 * shared-memory layout.
 *
 * Hardware: since Volta each thread has its own PC and the compiler places
 * BSSY/BSYNC pairs at reconvergence points it computes from the CFG. Classic
 * SIMT (and GPGPU-Sim's PDOM model) reconverges a divergent warp at the
 * branch's immediate post-dominator. We compute it here and the executor uses
 * it; exit/ret/trap lead to a virtual exit node so that paths that only meet
 * at thread exit have ipdom == nblocks.
 *
 * Algorithm: Lengauer & Tarjan, "A Fast Algorithm for Finding Dominators in a
 * Flowgraph" (1979), simple version, O(E log V), run on the reverse CFG rooted
 * at the virtual exit; DFS and path compression are iterative, so huge
 * functions cannot overflow the C stack. (Cooper-Harvey-Kennedy is simpler but
 * quadratic on long chains of loop exits, which hostile input can build.)
 */
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "ptx_cfg.h"
#include "ptx_int.h"

/* Path compression for eval(): walks v's ancestor chain iteratively (a
 * recursive compress could overflow the C stack on long chains). Arrays are
 * indexed by DFS preorder number. */
static void lt_compress(int32_t v, int32_t *anc, int32_t *label, const int32_t *semi,
                        int32_t *path)
{
    uint32_t n = 0;
    while (anc[anc[v]] >= 0) {
        path[n++] = v;
        v = anc[v];
    }
    while (n-- > 0) {
        int32_t x = path[n];
        if (semi[label[anc[x]]] < semi[label[x]])
            label[x] = label[anc[x]];
        anc[x] = anc[anc[x]];
    }
}

int ptx_postdom(uint32_t n, const uint32_t *succ, const uint8_t *nsucc, int32_t *ipdom)
{
    /* Lengauer-Tarjan (simple version, O(E log V)) on the reverse CFG rooted
     * at the exit: the reverse graph's successors are CFG predecessors. */
    uint32_t N = n + 1, ne = 0;
    for (uint32_t i = 0; i < n; i++)
        ne += nsucc[i];
    uint32_t *pstart = calloc(N + 1, sizeof(uint32_t));
    uint32_t *pred = malloc((ne ? ne : 1) * sizeof(uint32_t));
    int32_t *dfn = malloc(N * sizeof(int32_t)), *vertex = malloc(N * sizeof(int32_t));
    int32_t *parent = malloc(N * sizeof(int32_t)), *semi = malloc(N * sizeof(int32_t));
    int32_t *anc = malloc(N * sizeof(int32_t)), *label = malloc(N * sizeof(int32_t));
    int32_t *idom = malloc(N * sizeof(int32_t)), *bhead = malloc(N * sizeof(int32_t));
    int32_t *bnext = malloc(N * sizeof(int32_t)), *path = malloc(N * sizeof(int32_t));
    uint32_t *stk = malloc(N * sizeof(uint32_t)), *it = calloc(N, sizeof(uint32_t));
    int rc = -1;
    if (!pstart || !pred || !dfn || !vertex || !parent || !semi || !anc || !label || !idom ||
        !bhead || !bnext || !path || !stk || !it)
        goto out;
    for (uint32_t i = 0; i < n; i++)
        for (unsigned k = 0; k < nsucc[i]; k++)
            pstart[succ[2 * i + k] + 1]++;
    for (uint32_t i = 0; i < N; i++)
        pstart[i + 1] += pstart[i];
    for (uint32_t i = 0; i < n; i++) /* fill, using `it` as per-node cursors */
        for (unsigned k = 0; k < nsucc[i]; k++) {
            uint32_t s = succ[2 * i + k];
            pred[pstart[s] + it[s]++] = i;
        }
    memset(it, 0, N * sizeof(uint32_t));
    for (uint32_t i = 0; i < N; i++)
        dfn[i] = -1;
    /* 1. preorder DFS from the exit over CFG predecessors */
    uint32_t sp = 0, cnt = 0;
    stk[sp++] = n;
    dfn[n] = (int32_t)cnt;
    vertex[cnt] = (int32_t)n;
    parent[cnt++] = -1;
    while (sp) {
        uint32_t v = stk[sp - 1];
        if (pstart[v] + it[v] < pstart[v + 1]) {
            uint32_t u = pred[pstart[v] + it[v]++];
            if (dfn[u] < 0) {
                dfn[u] = (int32_t)cnt;
                vertex[cnt] = (int32_t)u;
                parent[cnt++] = dfn[v];
                stk[sp++] = u;
            }
        } else {
            sp--;
        }
    }
    for (uint32_t i = 0; i < cnt; i++) {
        semi[i] = label[i] = (int32_t)i;
        anc[i] = bhead[i] = -1;
        idom[i] = 0;
    }
    /* 2. semidominators in reverse preorder; buckets give tentative idoms */
    for (uint32_t w = cnt - 1; w >= 1; w--) {
        uint32_t node = (uint32_t)vertex[w];
        for (unsigned k = 0; node < n && k < nsucc[node]; k++) { /* reverse-graph preds */
            int32_t v = dfn[succ[2 * node + k]];
            if (v < 0)
                continue;
            int32_t u = v;
            if (anc[v] >= 0) {
                lt_compress(v, anc, label, semi, path);
                u = label[v];
            }
            if (semi[u] < semi[w])
                semi[w] = semi[u];
        }
        bnext[w] = bhead[semi[w]];
        bhead[semi[w]] = (int32_t)w;
        int32_t pw = parent[w];
        anc[w] = pw; /* link */
        for (int32_t v = bhead[pw]; v >= 0; v = bnext[v]) {
            int32_t u = v;
            if (anc[v] >= 0) {
                lt_compress(v, anc, label, semi, path);
                u = label[v];
            }
            idom[v] = semi[u] < semi[v] ? u : pw;
        }
        bhead[pw] = -1;
    }
    /* 3. final idoms in preorder */
    for (uint32_t w = 1; w < cnt; w++)
        if (idom[w] != semi[w])
            idom[w] = idom[idom[w]];
    for (uint32_t i = 0; i < n; i++)
        ipdom[i] = dfn[i] > 0 ? vertex[idom[dfn[i]]] : -1;
    rc = 0;
out:
    free(pstart);
    free(pred);
    free(dfn);
    free(vertex);
    free(parent);
    free(semi);
    free(anc);
    free(label);
    free(idom);
    free(bhead);
    free(bnext);
    free(path);
    free(stk);
    free(it);
    return rc;
}

static int ends_thread(unsigned op)
{
    return op == PTX_OP_RET || op == PTX_OP_EXIT || op == PTX_OP_TRAP;
}

wl_status pcfg_build(ptx_func *f, ptx_arena *a, diag_t *d, const char *fname)
{
    uint32_t ni = f->ninsns;
    f->nblocks = 0;
    f->blocks = NULL;
    if (ni == 0)
        return WL_OK;
    uint8_t *lead = calloc(ni + 1, 1);
    if (!lead)
        return diag_set(d, WL_EUSAGE, fname, 0, 0, "out of memory");
    lead[0] = 1;
    for (uint32_t i = 0; i < ni; i++) {
        const ptx_insn *in = &f->insns[i];
        if (in->op == PTX_OP_BRA) {
            if (in->target < 0 || (uint32_t)in->target > ni) { /* parser invariant */
                free(lead);
                return diag_set(d, WL_EUSAGE, fname, (int)in->line, (int)in->col,
                                "branch target out of range in '%s'", f->name);
            }
            lead[in->target] = 1;
            lead[i + 1] = 1;
        } else if (ends_thread(in->op)) {
            lead[i + 1] = 1;
        }
    }
    uint32_t nb = 0;
    for (uint32_t i = 0; i < ni; i++)
        nb += lead[i];
    ptx_block *b = parena_alloc(a, nb * sizeof(ptx_block));
    uint32_t *succ = malloc(2 * (size_t)nb * sizeof(uint32_t));
    uint8_t *ns = malloc(nb);
    int32_t *ip = malloc(nb * sizeof(int32_t));
    wl_status st = WL_OK;
    if (!b || !succ || !ns || !ip) {
        st = diag_set(d, WL_EUSAGE, fname, 0, 0, "out of memory");
        goto out;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < ni; i++) {
        if (lead[i]) {
            if (i > 0)
                b[k - 1].last = i - 1;
            b[k].first = i;
            k++;
        }
        f->insns[i].block = (int32_t)(k - 1);
    }
    b[nb - 1].last = ni - 1;
    for (uint32_t j = 0; j < nb; j++) {
        const ptx_insn *last = &f->insns[b[j].last];
        uint32_t fall = j + 1; /* == nb (exit) after the last block */
        uint32_t s[2];
        unsigned n = 0;
        if (last->op == PTX_OP_BRA) {
            uint32_t t = (uint32_t)last->target < ni ? (uint32_t)f->insns[last->target].block : nb;
            if (last->guard >= 0)
                s[n++] = fall;
            if (n == 0 || s[0] != t)
                s[n++] = t;
        } else if (ends_thread(last->op)) {
            if (last->guard >= 0)
                s[n++] = fall;
            if (n == 0 || s[0] != nb)
                s[n++] = nb;
        } else {
            s[n++] = fall;
        }
        b[j].nsucc = (uint8_t)n;
        for (unsigned q = 0; q < 2; q++)
            b[j].succ[q] = succ[2 * j + q] = q < n ? s[q] : nb;
        ns[j] = (uint8_t)n;
    }
    if (ptx_postdom(nb, succ, ns, ip) < 0) {
        st = diag_set(d, WL_EUSAGE, fname, 0, 0, "out of memory");
        goto out;
    }
    for (uint32_t j = 0; j < nb; j++)
        b[j].ipdom = ip[j];
    f->blocks = b;
    f->nblocks = nb;
out:
    free(lead);
    free(succ);
    free(ns);
    free(ip);
    return st;
}

/* Functions reachable from entry e through calls (worklist). seen[] holds
 * stamps (the entry's index + 1), so nothing is cleared between entries. Adds
 * the instructions scanned to *cost. */
static uint32_t reachable(const ptx_module *m, uint32_t e, uint32_t *seen, uint32_t *work,
                          uint64_t *cost)
{
    uint32_t nw = 0, head = 0, stamp = e + 1;
    seen[e] = stamp;
    work[nw++] = e;
    while (head < nw) {
        const ptx_func *f = &m->funcs[work[head++]];
        *cost += f->ninsns;
        for (uint32_t i = 0; i < f->ninsns; i++) {
            int32_t t = f->insns[i].target;
            if (f->insns[i].op == PTX_OP_CALL && t >= 0 && seen[t] != stamp) {
                seen[t] = stamp;
                work[nw++] = (uint32_t)t;
            }
        }
    }
    return nw;
}

/* Work bound for the per-entry layout (entries x (reachable code + variables)):
 * real modules are far below it; hostile ones get an error, not a hang. */
#define PCFG_LAYOUT_MAX_COST (1ull << 25)

wl_status pcfg_layout_smem(ptx_module *m, ptx_arena *a, diag_t *d, const char *fname)
{
    if (m->nfuncs == 0)
        return WL_OK;
    uint32_t *seen = calloc(m->nfuncs, sizeof(uint32_t));
    uint32_t *used = calloc(m->nvars ? m->nvars : 1, sizeof(uint32_t));
    uint32_t *work = malloc(m->nfuncs * sizeof(uint32_t));
    uint64_t cost = 0;
    wl_status st = WL_OK;
    if (!seen || !used || !work) {
        st = diag_set(d, WL_EUSAGE, fname, 0, 0, "out of memory");
        goto out;
    }
    for (uint32_t e = 0; e < m->nfuncs && st == WL_OK; e++) {
        ptx_func *f = &m->funcs[e];
        f->dyn_smem_var = PTX_NONE;
        if (!f->is_entry || f->is_decl)
            continue;
        uint32_t nw = reachable(m, e, seen, work, &cost);
        uint32_t stamp = e + 1;
        for (uint32_t w = 0; w < nw; w++) {
            const ptx_func *g = &m->funcs[work[w]];
            cost += g->nops;
            for (uint32_t i = 0; i < g->nops; i++) {
                const ptx_operand *o = &g->ops[i];
                if ((o->kind == PTX_OPND_ADDR || o->kind == PTX_OPND_SYM) &&
                    o->symkind == PTX_SYM_MODVAR && o->space == PTX_SPACE_SHARED)
                    used[o->sym] = stamp;
            }
        }
        cost += m->nvars;
        if (cost > PCFG_LAYOUT_MAX_COST) {
            st = diag_set(d, WL_EUSAGE, fname, (int)f->line, (int)f->col,
                          "module too large to lay out: %u functions, %u variables", m->nfuncs,
                          m->nvars);
            break;
        }
        uint32_t n = 0, dyn_align = 16;
        for (uint32_t v = 0; v < m->nvars; v++)
            n += used[v] == stamp && !m->vars[v].unsized;
        f->smem = parena_alloc(a, (n ? n : 1) * sizeof(ptx_smem));
        f->smem_off = parena_alloc(a, (m->nvars ? m->nvars : 1) * sizeof(uint32_t));
        if (!f->smem || !f->smem_off) {
            st = diag_set(d, WL_EUSAGE, fname, 0, 0, "out of memory");
            break;
        }
        uint64_t off = 0;
        for (uint32_t v = 0; v < m->nvars; v++) {
            const ptx_var *var = &m->vars[v];
            f->smem_off[v] = UINT32_MAX;
            if (used[v] != stamp)
                continue;
            if (var->unsized) {
                if (f->dyn_smem_var < 0)
                    f->dyn_smem_var = (int32_t)v;
                if (var->align > dyn_align)
                    dyn_align = var->align;
                continue;
            }
            off = palign_up(off, var->align);
            f->smem[f->nsmem].var = v;
            f->smem[f->nsmem].offset = (uint32_t)off;
            f->smem_off[v] = (uint32_t)off;
            f->nsmem++;
            off += var->size;
            if (off > PTX_MAX_SMEM_BYTES) {
                st = diag_set(d, WL_EUSAGE, fname, (int)f->line, (int)f->col,
                              "static shared memory of '%s' exceeds %u bytes", f->name,
                              PTX_MAX_SMEM_BYTES);
                break;
            }
        }
        f->smem_static = (uint32_t)off;
        f->dyn_smem_offset = (uint32_t)palign_up(off, dyn_align);
        for (uint32_t v = 0; v < m->nvars; v++)
            if (used[v] == stamp && m->vars[v].unsized)
                f->smem_off[v] = f->dyn_smem_offset;
    }
out:
    free(seen);
    free(used);
    free(work);
    return st;
}
