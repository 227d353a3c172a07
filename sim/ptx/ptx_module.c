/* ptx_module.c: the parser's top level: module directives, function
 * headers and bodies (scopes, labels), and assembly of the final IR into the
 * module arena. Public entry points: ptx_parse_string / ptx_parse_file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "ptx_int.h"

_Static_assert(PTX_MAX_NESTING_INT == PTX_MAX_NESTING, "ptx_int.h mirrors ptx.h");

/* `( .param decl, ... )`: params of an entry/func, laid out in order with
 * their alignment. Symbols are added by the caller (add_param_syms). */
static wl_status parse_param_list(pparse *p, pvec *out, uint32_t *total)
{
    TRY(pexpect(p, '('));
    uint64_t off = 0;
    while (!plex_is(&p->tok, ')')) {
        if (plex_word_is(&p->tok, ".reg"))
            return perr(p, &p->tok, WL_EUNSUPPORTED,
                        "unsupported: .reg function parameters (nvcc uses .param)");
        if (!plex_word_is(&p->tok, ".param"))
            return punexpected(p, "'.param' or ')'");
        TRY(pnext(p));
        ptx_var v;
        memset(&v, 0, sizeof v);
        const char *nm;
        size_t nl;
        TRY(pdecl_var(p, &v, PTX_SPACE_PARAM, 0, &nm, &nl));
        if (v.unsized)
            return perr(p, &p->tok, WL_EUSAGE, "unsized parameter '%s'", v.name);
        off = palign_up(off, v.align);
        v.offset = off;
        if (v.size > PTX_MAX_PARAM_BYTES || off + v.size > PTX_MAX_PARAM_BYTES)
            return perr(p, &p->tok, WL_EUSAGE, "parameter space too large (limit %u bytes)",
                        PTX_MAX_PARAM_BYTES);
        off += v.size;
        ptx_var *d = pvec_push(out);
        if (!d)
            return poom(p);
        *d = v;
        if (plex_is(&p->tok, ','))
            TRY(pnext(p));
        else if (!plex_is(&p->tok, ')'))
            return punexpected(p, "',' or ')'");
    }
    *total = (uint32_t)off;
    return pnext(p);
}

/* Adds the parameters to the function scope (depth 1), rejecting duplicates
 * among params and return params (a hash lookup each, not a pairwise scan). */
static wl_status add_param_syms(pparse *p, const pvec *v, psym_kind k)
{
    for (size_t i = 0; i < v->n; i++) {
        const ptx_var *pv = &PVEC_AT(*v, ptx_var, i);
        const psym *old = psym_find(&p->syms, pv->name, strlen(pv->name));
        if (old && old->depth == 1) {
            plex_tok t = {PLEX_WORD, pv->name, strlen(pv->name), pv->line, pv->col};
            return perr(p, &t, WL_EUSAGE, "duplicate parameter '%s'", pv->name);
        }
        if (psym_add(&p->syms, pv->name, strlen(pv->name), k, 1, (int32_t)i, 1) < 0)
            return poom(p);
    }
    return WL_OK;
}

static wl_status parse_dims(pparse *p, uint32_t out[3])
{
    const plex_tok at = p->tok;
    TRY(pnext(p));
    for (int i = 0; i < 3; i++) {
        uint64_t v;
        if (p->tok.kind != PLEX_WORD || pnum_int(p->tok.text, p->tok.len, &v) < 0 || v == 0 ||
            v > 0xffffffffu)
            return perr(p, &p->tok, WL_EUSAGE, "bad value for %.*s", (int)at.len, at.text);
        out[i] = (uint32_t)v;
        TRY(pnext(p));
        if (!plex_is(&p->tok, ','))
            break;
        TRY(pnext(p));
    }
    for (int i = 0; i < 3; i++)
        if (out[i] == 0)
            out[i] = 1;
    return WL_OK;
}

static wl_status parse_count(pparse *p, uint32_t *out)
{
    TRY(pnext(p));
    uint64_t v;
    if (p->tok.kind != PLEX_WORD || pnum_int(p->tok.text, p->tok.len, &v) < 0 || v > 0xffffffffu)
        return punexpected(p, "a number");
    *out = (uint32_t)v;
    return pnext(p);
}

/* Performance directives between the header and the body. */
static wl_status parse_perf_directives(pparse *p, ptx_func *f)
{
    for (;;) {
        uint32_t dummy3[3] = {0, 0, 0}, dummy;
        if (plex_word_is(&p->tok, ".maxntid"))
            TRY(parse_dims(p, f->maxntid));
        else if (plex_word_is(&p->tok, ".reqntid"))
            TRY(parse_dims(p, f->reqntid));
        else if (plex_word_is(&p->tok, ".minnctapersm"))
            TRY(parse_count(p, &f->minnctapersm));
        else if (plex_word_is(&p->tok, ".maxnreg"))
            TRY(parse_count(p, &f->maxnreg));
        else if (plex_word_is(&p->tok, ".maxnctapersm") || plex_word_is(&p->tok, ".maxclusterrank"))
            TRY(parse_count(p, &dummy));
        else if (plex_word_is(&p->tok, ".reqnctapercluster"))
            TRY(parse_dims(p, dummy3));
        else if (plex_word_is(&p->tok, ".noreturn")) {
            f->noreturn = 1;
            TRY(pnext(p));
        } else if (plex_word_is(&p->tok, ".explicitcluster"))
            TRY(pnext(p));
        else if (plex_word_is(&p->tok, ".pragma"))
            TRY(pdecl_pragma(p));
        else
            return WL_OK;
    }
}

static void reset_func_state(pparse *p)
{
    p->regs.n = p->locals.n = p->insns.n = p->ops.n = p->labels.n = 0;
    p->params.n = p->rets.n = p->lrefs.n = 0;
    p->pragma_nounroll = 0;
    memset(&p->unsup, 0, sizeof p->unsup);
    psym_pop(&p->labsyms, 0); /* labels (depth 1) are per function */
    p->loc_file = p->loc_line = p->loc_col = 0;
    p->src_file = p->src_line = p->src_col = 0;
    p->nlocs = 0;
    if (p->loccap)
        memset(p->locs, 0, p->loccap * sizeof *p->locs);
    p->local_off = p->callparam_off = p->callparam_max = 0;
}

static void *arena_copy(pparse *p, const pvec *v, int *fail)
{
    if (v->n == 0)
        return NULL;
    void *r = parena_memdup(p->arena, v->p, v->n * v->esz);
    if (!r)
        *fail = 1;
    return r;
}

static wl_status parse_label(pparse *p)
{
    plex_tok nt = p->tok;
    if (psym_find(&p->labsyms, nt.text, nt.len))
        return perr(p, &nt, WL_EUSAGE, "duplicate label '%.*s'", (int)(nt.len > 60 ? 60 : nt.len),
                    nt.text);
    TRY(pnext(p)); /* name */
    TRY(pnext(p)); /* ':' */
    if (plex_word_is(&p->tok, ".callprototype") || plex_word_is(&p->tok, ".branchtargets") ||
        plex_word_is(&p->tok, ".calltargets"))
        return perr(p, &p->tok, WL_EUNSUPPORTED, "unsupported: %.*s (indirect branches/calls)",
                    (int)p->tok.len, p->tok.text);
    ptx_label *l = pvec_push(&p->labels);
    if (!l)
        return poom(p);
    l->name = parena_strndup(p->arena, nt.text, nt.len);
    l->insn = (uint32_t)p->insns.n;
    if (!l->name ||
        psym_add(&p->labsyms, l->name, nt.len, PSYM_LABEL, 1, (int32_t)(p->labels.n - 1), 1) < 0)
        return poom(p);
    return WL_OK;
}

/* The body `{ ... }` of the current function; the current token is '{'. */
static wl_status parse_body(pparse *p)
{
    p->depth = 2;
    p->scope_callparam[1] = 0;
    TRY(pnext(p));
    for (;;) {
        const plex_tok *t = &p->tok;
        if (t->kind == PLEX_EOF)
            return perr(p, t, WL_EUSAGE, "unterminated body of '%s' (missing '}')", p->cur->name);
        if (plex_is(t, '}')) {
            /* call-site .param variables die with their scope: reuse the space */
            p->callparam_off = p->scope_callparam[p->depth - 1];
            p->depth--;
            psym_pop(&p->syms, p->depth);
            TRY(pnext(p));
            if (p->depth == 1)
                return WL_OK;
        } else if (plex_is(t, '{')) {
            if (p->depth >= PTX_MAX_NESTING)
                return perr(p, t, WL_EUSAGE, "scopes nested too deeply (limit %d)",
                            PTX_MAX_NESTING);
            p->scope_callparam[p->depth] = p->callparam_off;
            p->depth++;
            TRY(pnext(p));
        } else if (plex_word_is(t, ".reg")) {
            TRY(pdecl_reg(p));
        } else if (plex_word_is(t, ".local") || plex_word_is(t, ".param")) {
            int sp = pspace_from_word(t);
            TRY(pnext(p));
            TRY(pdecl_local(p, sp));
        } else if (plex_word_is(t, ".shared") || plex_word_is(t, ".global") ||
                   plex_word_is(t, ".const")) {
            int sp = pspace_from_word(t);
            TRY(pnext(p));
            TRY(pdecl_modvar(p, sp, PTX_LINK_NONE));
        } else if (plex_word_is(t, ".loc")) {
            TRY(pdecl_loc(p));
        } else if (plex_word_is(t, ".pragma")) {
            TRY(pdecl_pragma(p));
        } else if (t->kind == PLEX_WORD && t->text[0] != '.' && plex_is(ppeek(p), ':')) {
            TRY(parse_label(p));
        } else if (t->kind == PLEX_WORD && t->text[0] == '.') {
            return perr(p, t, WL_EUNSUPPORTED, "unsupported directive '%.*s' in a function body",
                        (int)(t->len > 40 ? 40 : t->len), t->text);
        } else {
            if (p->insns.n >= PTX_MAX_INSNS)
                return perr(p, t, WL_EUSAGE, "too many instructions in '%s' (limit %u)",
                            p->cur->name, PTX_MAX_INSNS);
            TRY(pinsn_parse(p));
        }
    }
}

/* Copies the function being parsed into the arena. */
static wl_status finish_func(pparse *p, ptx_func *f)
{
    TRY(pinsn_resolve_labels(p));
    int fail = 0;
    f->regs = arena_copy(p, &p->regs, &fail);
    f->nregs = (uint32_t)p->regs.n;
    f->locals = arena_copy(p, &p->locals, &fail);
    f->nlocals = (uint32_t)p->locals.n;
    f->local_size = (uint32_t)p->local_off;
    f->callparam_size = (uint32_t)p->callparam_max;
    f->insns = arena_copy(p, &p->insns, &fail);
    f->ninsns = (uint32_t)p->insns.n;
    f->ops = arena_copy(p, &p->ops, &fail);
    f->nops = (uint32_t)p->ops.n;
    f->labels = arena_copy(p, &p->labels, &fail);
    f->nlabels = (uint32_t)p->labels.n;
    if (p->unsup.len) {
        f->unsup_insn = parena_strndup(p->arena, p->unsup.text,
                                       p->unsup.len > 60 ? 60 : p->unsup.len);
        f->unsup_line = p->unsup.line;
        f->unsup_col = p->unsup.col;
        fail |= f->unsup_insn == NULL;
    }
    if (fail)
        return poom(p);
    f->is_decl = 0;
    return pcfg_build(f, p->arena, p->d, p->fname);
}

/* `.entry name (params) directives { body }` or `.func [(rets)] name [(params)] ...`.
 * The current token is .entry or .func. */
static wl_status parse_function(pparse *p, int linkage)
{
    int is_entry = plex_word_is(&p->tok, ".entry");
    reset_func_state(p);
    TRY(pnext(p));
    uint32_t ret_size = 0, param_size = 0;
    if (!is_entry && plex_is(&p->tok, '('))
        TRY(parse_param_list(p, &p->rets, &ret_size));
    if (!pis_ident(&p->tok))
        return punexpected(p, "a function name");
    plex_tok nt = p->tok;
    const psym *old = psym_find(&p->syms, nt.text, nt.len);
    int32_t idx;
    if (old && old->kind == PSYM_FUNC) {
        idx = old->index;
        if (!PVEC_AT(p->funcs, ptx_func, idx).is_decl)
            idx = -2; /* defined twice: checked below once we know this is a definition */
    } else if (old) {
        return perr(p, &nt, WL_EUSAGE, "'%.*s' redeclared as a function", (int)nt.len, nt.text);
    } else {
        ptx_func *nf = pvec_push(&p->funcs);
        if (!nf)
            return poom(p);
        idx = (int32_t)(p->funcs.n - 1);
        nf->name = parena_strndup(p->arena, nt.text, nt.len);
        nf->is_decl = 1;
        if (!nf->name || psym_add(&p->syms, nf->name, nt.len, PSYM_FUNC, 0, idx, 1) < 0)
            return poom(p);
    }
    TRY(pnext(p));
    if (plex_is(&p->tok, '('))
        TRY(parse_param_list(p, &p->params, &param_size));
    ptx_func f;
    memset(&f, 0, sizeof f);
    TRY(parse_perf_directives(p, &f));
    if (plex_is(&p->tok, ';')) { /* a declaration (prototype) */
        if (idx >= 0) {
            ptx_func *df = &PVEC_AT(p->funcs, ptx_func, idx);
            int fail = 0;
            df->is_entry = (uint8_t)is_entry;
            df->linkage = (uint8_t)linkage;
            df->params = arena_copy(p, &p->params, &fail);
            df->nparams = (uint32_t)p->params.n;
            df->param_size = param_size;
            df->rets = arena_copy(p, &p->rets, &fail);
            df->nrets = (uint32_t)p->rets.n;
            df->ret_size = ret_size;
            df->noreturn = f.noreturn;
            df->line = nt.line;
            df->col = nt.col;
            if (fail)
                return poom(p);
        }
        return pnext(p);
    }
    if (!plex_is(&p->tok, '{'))
        return punexpected(p, "'{' or ';'");
    if (idx == -2)
        return perr(p, &nt, WL_EUSAGE, "function '%.*s' defined twice", (int)nt.len, nt.text);
    f.name = PVEC_AT(p->funcs, ptx_func, idx).name;
    f.is_entry = (uint8_t)is_entry;
    f.linkage = (uint8_t)linkage;
    f.line = nt.line;
    f.col = nt.col;
    f.param_size = param_size;
    f.ret_size = ret_size;
    f.dyn_smem_var = PTX_NONE;
    TRY(add_param_syms(p, &p->params, PSYM_PARAM));
    TRY(add_param_syms(p, &p->rets, PSYM_RET));
    int fail = 0;
    f.params = arena_copy(p, &p->params, &fail);
    f.nparams = (uint32_t)p->params.n;
    f.rets = arena_copy(p, &p->rets, &fail);
    f.nrets = (uint32_t)p->rets.n;
    if (fail)
        return poom(p);
    {   /* the signature is visible to calls in the body (recursion) */
        ptx_func *df = &PVEC_AT(p->funcs, ptx_func, idx);
        df->params = f.params;
        df->nparams = f.nparams;
        df->rets = f.rets;
        df->nrets = f.nrets;
        df->is_entry = f.is_entry;
    }
    p->cur = &f;
    wl_status st = parse_body(p);
    if (st == WL_OK)
        st = finish_func(p, &f);
    p->cur = NULL;
    psym_pop(&p->syms, 0);
    p->depth = 0;
    if (st == WL_OK)
        PVEC_AT(p->funcs, ptx_func, idx) = f;
    return st;
}

static wl_status parse_version(pparse *p, ptx_module *m)
{
    TRY(pnext(p));
    const char *s = p->tok.text, *dot = p->tok.kind == PLEX_WORD ? memchr(s, '.', p->tok.len) : NULL;
    uint64_t a, b;
    if (!dot || pnum_int(s, (size_t)(dot - s), &a) < 0 ||
        pnum_int(dot + 1, p->tok.len - (size_t)(dot - s) - 1, &b) < 0 || a > 99 || b > 99)
        return punexpected(p, "a version like 9.0");
    m->version_major = (uint32_t)a;
    m->version_minor = (uint32_t)b;
    return pnext(p);
}

static wl_status parse_target(pparse *p, ptx_module *m)
{
    TRY(pnext(p));
    for (;;) {
        if (p->tok.kind != PLEX_WORD)
            return punexpected(p, "a target name");
        if (p->tok.len > 3 && memcmp(p->tok.text, "sm_", 3) == 0 && !m->target) {
            uint64_t sm = 0;
            size_t n = 3;
            while (n < p->tok.len && p->tok.text[n] >= '0' && p->tok.text[n] <= '9')
                n++;
            if (pnum_int(p->tok.text + 3, n - 3, &sm) < 0 || sm > 1000)
                return punexpected(p, "a target like sm_90");
            m->sm = (uint32_t)sm;
            m->target = parena_strndup(p->arena, p->tok.text, p->tok.len);
            if (!m->target)
                return poom(p);
        } else if (plex_word_is(&p->tok, "texmode_independent")) {
            return perr(p, &p->tok, WL_EUNSUPPORTED, "unsupported: target texmode_independent");
        }
        TRY(pnext(p));
        if (!plex_is(&p->tok, ','))
            return WL_OK;
        TRY(pnext(p));
    }
}

static wl_status parse_file_directive(pparse *p)
{
    TRY(pnext(p));
    uint64_t idx;
    if (p->tok.kind != PLEX_WORD || pnum_int(p->tok.text, p->tok.len, &idx) < 0 || idx > 0xffff)
        return punexpected(p, "a .file index (0..65535)");
    TRY(pnext(p));
    if (p->tok.kind != PLEX_STRING)
        return punexpected(p, "a file name string");
    while (p->files.n <= idx)
        if (!pvec_push(&p->files))
            return poom(p);
    char *path = parena_strndup(p->arena, p->tok.text + 1, p->tok.len - 2);
    if (!path)
        return poom(p);
    PVEC_AT(p->files, const char *, idx) = path;
    TRY(pnext(p));
    uint32_t line = p->tok.line;
    while (plex_is(&p->tok, ',') && p->tok.line == line) { /* , timestamp, size */
        TRY(pnext(p));
        if (p->tok.kind != PLEX_WORD)
            return punexpected(p, "a number");
        TRY(pnext(p));
    }
    return WL_OK;
}

static wl_status parse_module(pparse *p, ptx_module *m)
{
    TRY(pnext(p));
    while (p->tok.kind != PLEX_EOF) {
        const plex_tok *t = &p->tok;
        int linkage = PTX_LINK_NONE;
        if (plex_word_is(t, ".version")) {
            TRY(parse_version(p, m));
            continue;
        }
        if (plex_word_is(t, ".target")) {
            TRY(parse_target(p, m));
            continue;
        }
        if (plex_word_is(t, ".address_size")) {
            uint32_t a = 0;
            TRY(parse_count(p, &a));
            if (a != 32 && a != 64)
                return perr(p, t, WL_EUSAGE, ".address_size must be 32 or 64");
            m->address_size = a;
            continue;
        }
        if (plex_word_is(t, ".file")) {
            TRY(parse_file_directive(p));
            continue;
        }
        if (plex_word_is(t, ".section")) {
            TRY(pdecl_skip_section(p));
            continue;
        }
        if (plex_word_is(t, ".loc")) { /* between functions: no instruction to attach it to */
            TRY(pdecl_loc(p));
            continue;
        }
        if (plex_word_is(t, ".pragma")) {
            TRY(pdecl_pragma(p));
            continue;
        }
        if (plex_word_is(t, ".visible"))
            linkage = PTX_LINK_VISIBLE;
        else if (plex_word_is(t, ".weak"))
            linkage = PTX_LINK_WEAK;
        else if (plex_word_is(t, ".extern"))
            linkage = PTX_LINK_EXTERN;
        else if (plex_word_is(t, ".common"))
            linkage = PTX_LINK_COMMON;
        if (linkage != PTX_LINK_NONE)
            TRY(pnext(p));
        if (plex_word_is(&p->tok, ".entry") || plex_word_is(&p->tok, ".func")) {
            TRY(parse_function(p, linkage));
        } else if (plex_word_is(&p->tok, ".global") || plex_word_is(&p->tok, ".const") ||
                   plex_word_is(&p->tok, ".shared")) {
            int sp = pspace_from_word(&p->tok);
            TRY(pnext(p));
            TRY(pdecl_modvar(p, sp, linkage));
        } else if (p->tok.kind == PLEX_WORD && p->tok.text[0] == '.') {
            return perr(p, &p->tok, WL_EUNSUPPORTED, "unsupported directive '%.*s'",
                        (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
        } else {
            return punexpected(p, "a directive (.version, .target, .entry, .func, ...)");
        }
    }
    return WL_OK;
}

static void pparse_free(pparse *p)
{
    pvec *v[] = {&p->vars, &p->funcs, &p->files, &p->regs, &p->locals, &p->insns, &p->ops,
                 &p->labels, &p->params, &p->rets, &p->lrefs};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        pvec_free(v[i]);
    psym_free(&p->syms);
    psym_free(&p->labsyms);
    free(p->locs);
}

wl_status ptx_parse_string(const char *text, size_t len, const char *name, ptx_module **out,
                           diag_t *d)
{
    if (out)
        *out = NULL;
    if (!out || !d || (!text && len))
        return d ? diag_set(d, WL_EUSAGE, NULL, 0, 0, "ptx_parse_string: bad arguments")
                 : WL_EUSAGE;
    diag_clear(d);
    if (!name)
        name = "<string>";
    if (len > PTX_MAX_INPUT_BYTES)
        return diag_set(d, WL_EUSAGE, name, 0, 0, "input too large (%zu bytes, limit %u)", len,
                        PTX_MAX_INPUT_BYTES);
    pparse p;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.fname = name;
    p.arena = parena_new();
    ptx_module *m = p.arena ? parena_alloc(p.arena, sizeof *m) : NULL;
    pvec_init(&p.vars, sizeof(ptx_var));
    pvec_init(&p.funcs, sizeof(ptx_func));
    pvec_init(&p.files, sizeof(const char *));
    pvec_init(&p.regs, sizeof(ptx_reg));
    pvec_init(&p.locals, sizeof(ptx_var));
    pvec_init(&p.insns, sizeof(ptx_insn));
    pvec_init(&p.ops, sizeof(ptx_operand));
    pvec_init(&p.labels, sizeof(ptx_label));
    pvec_init(&p.params, sizeof(ptx_var));
    pvec_init(&p.rets, sizeof(ptx_var));
    pvec_init(&p.lrefs, sizeof(plabel_ref));
    wl_status st;
    if (!m || psym_init(&p.syms, 1024) < 0 || psym_init(&p.labsyms, 256) < 0) {
        st = diag_set(d, WL_EUSAGE, name, 0, 0, "out of memory");
        goto done;
    }
    p.m = m;
    m->arena = p.arena;
    m->address_size = 64;
    m->name = parena_strndup(p.arena, name, strlen(name));
    plex_init(&p.lx, text ? text : "", len);
    st = parse_module(&p, m);
    if (st != WL_OK)
        goto done;
    int fail = 0;
    m->vars = arena_copy(&p, &p.vars, &fail);
    m->nvars = (uint32_t)p.vars.n;
    m->funcs = arena_copy(&p, &p.funcs, &fail);
    m->nfuncs = (uint32_t)p.funcs.n;
    m->files = arena_copy(&p, &p.files, &fail);
    m->nfiles = (uint32_t)p.files.n;
    if (fail || !m->name) {
        st = diag_set(d, WL_EUSAGE, name, 0, 0, "out of memory");
        goto done;
    }
    st = pcfg_layout_smem(m, p.arena, d, name);
done:
    pparse_free(&p);
    if (st != WL_OK) {
        parena_free(p.arena);
        return st;
    }
    *out = m;
    return WL_OK;
}

wl_status ptx_parse_file(const char *path, ptx_module **out, diag_t *d)
{
    if (out)
        *out = NULL;
    if (!path || !out || !d)
        return d ? diag_set(d, WL_EUSAGE, NULL, 0, 0, "ptx_parse_file: bad arguments") : WL_EUSAGE;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    wl_status st = WL_OK;
    for (;;) {
        if (cap - n < 65536) {
            size_t nc = cap ? cap * 2 : 1 << 20;
            if (nc > (size_t)PTX_MAX_INPUT_BYTES + 65536) {
                st = diag_set(d, WL_EUSAGE, path, 0, 0, "file too large (limit %u bytes)",
                              PTX_MAX_INPUT_BYTES);
                break;
            }
            char *nb = realloc(buf, nc);
            if (!nb) {
                st = diag_set(d, WL_EUSAGE, path, 0, 0, "out of memory");
                break;
            }
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + n, 1, cap - n, fp);
        n += r;
        if (r == 0) {
            if (ferror(fp))
                st = diag_set(d, WL_EUSAGE, path, 0, 0, "cannot read: %s", strerror(errno));
            break;
        }
    }
    fclose(fp);
    if (st == WL_OK)
        st = ptx_parse_string(buf, n, path, out, d);
    free(buf);
    return st;
}
