/* ptx_parse.c: the PTX parser, module and function level: directives,
 * declarations (variables, parameters, registers), scopes, and assembly of
 * the final IR into the module arena. Instructions are parsed in ptx_insn.c,
 * the CFG in ptx_cfg.c.
 *
 * What we accept is the PTX that nvcc 13.0 writes (PTX ISA 9.0). Debug
 * `.section` blocks (DWARF bytes with -G/-lineinfo) are skipped; `.loc` lines
 * are kept on every instruction; constructs we recognise but do not model
 * (textures, surfaces, indirect-call prototypes, address initializers) are
 * WL_EUNSUPPORTED with their position; anything else malformed is WL_EUSAGE.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "ptx_int.h"

/* ---------------- tokens and errors ---------------- */
wl_status perr(pparse *p, const plex_tok *t, wl_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vset(p->d, st, p->fname, t ? (int)t->line : 0, t ? (int)t->col : 0, fmt, ap);
    va_end(ap);
    return st;
}

static wl_status lexerr(pparse *p, const plex_tok *t)
{
    return perr(p, t, WL_EUSAGE, "%s", p->lx.err ? p->lx.err : "lexical error");
}

wl_status pnext(pparse *p)
{
    if (p->have_peek) {
        p->tok = p->peek;
        p->have_peek = 0;
    } else {
        p->tok = plex_next(&p->lx);
    }
    if (p->tok.kind == PLEX_ERROR)
        return lexerr(p, &p->tok);
    return WL_OK;
}

const plex_tok *ppeek(pparse *p)
{
    if (!p->have_peek) {
        p->peek = plex_next(&p->lx);
        p->have_peek = 1;
    }
    return &p->peek;
}

const char *ptokdesc(const plex_tok *t, char *buf, size_t n)
{
    if (t->kind == PLEX_EOF)
        return "end of file";
    size_t l = t->len > 40 ? 40 : t->len;
    snprintf(buf, n, "'%.*s%s'", (int)l, t->text, t->len > 40 ? "..." : "");
    return buf;
}

wl_status pexpect(pparse *p, char c)
{
    if (!plex_is(&p->tok, c)) {
        char b[64];
        return perr(p, &p->tok, WL_EUSAGE, "expected '%c', found %s", c,
                    ptokdesc(&p->tok, b, sizeof b));
    }
    return pnext(p);
}

wl_status punexpected(pparse *p, const char *what)
{
    char b[64];
    return perr(p, &p->tok, WL_EUSAGE, "expected %s, found %s", what,
                ptokdesc(&p->tok, b, sizeof b));
}

wl_status poom(pparse *p)
{
    return perr(p, &p->tok, WL_EUSAGE, "out of memory");
}


/* ---------------- numbers ---------------- */
/* Digits in base 2/8/10/16; -1 on a bad digit or 64-bit overflow. */
static int parse_digits(const char *s, size_t len, unsigned base, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned c = (unsigned char)s[i], dv;
        if (c >= '0' && c <= '9')
            dv = c - '0';
        else if (c >= 'a' && c <= 'f')
            dv = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            dv = c - 'A' + 10;
        else
            return -1;
        if (dv >= base)
            return -1;
        if (v > (UINT64_MAX - dv) / base)
            return -1; /* overflow */
        v = v * base + dv;
    }
    *out = v;
    return 0;
}

int pnum_int(const char *s, size_t len, uint64_t *out)
{
    size_t i = 0;
    unsigned base = 10;
    if (len && (s[len - 1] == 'U' || s[len - 1] == 'u'))
        len--; /* unsigned suffix */
    if (len == 0)
        return -1;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    } else if (len > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        i = 2;
    } else if (len > 1 && s[0] == '0') {
        base = 8;
        i = 1;
    }
    return parse_digits(s + i, len - i, base, out);
}

int pnum_float(const char *s, size_t len, uint64_t *bits, int *is_double)
{
    if (len >= 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
        int dbl = s[1] == 'd' || s[1] == 'D';
        size_t want = dbl ? 16 : 8;
        if (len != 2 + want)
            return -1;
        if (parse_digits(s + 2, want, 16, bits) < 0)
            return -1;
        *is_double = dbl;
        return 0;
    }
    /* decimal: digits with '.' or an exponent (the lexer never includes '+'/'-'
     * inside a word, so exponents are unsigned: 1e5, 1.5e10) */
    char buf[72];
    if (len == 0 || len >= sizeof buf)
        return -1;
    int dot = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '.' || c == 'e' || c == 'E')
            dot = 1;
        else if (!(c >= '0' && c <= '9'))
            return -1;
    }
    if (!dot)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    if (*end != '\0')
        return -1;
    memcpy(bits, &d, sizeof d);
    *is_double = 1;
    return 0;
}

/* ---------------- types and declarations ---------------- */
int ptype_from_word(const char *s, size_t n)
{
    for (int t = 1; t < PTX_T_COUNT; t++) {
        const char *nm = ptx_type_name((ptx_type)t);
        if (strlen(nm) + 1 == n && s[0] == '.' && memcmp(s + 1, nm, n - 1) == 0)
            return t;
    }
    return 0;
}

int pspace_from_word(const plex_tok *t)
{
    if (plex_word_is(t, ".global"))
        return PTX_SPACE_GLOBAL;
    if (plex_word_is(t, ".const"))
        return PTX_SPACE_CONST;
    if (plex_word_is(t, ".shared") || plex_word_is(t, ".shared::cta"))
        return PTX_SPACE_SHARED;
    if (plex_word_is(t, ".local"))
        return PTX_SPACE_LOCAL;
    if (plex_word_is(t, ".param"))
        return PTX_SPACE_PARAM;
    if (plex_word_is(t, ".reg"))
        return PTX_SPACE_REG;
    if (plex_word_is(t, ".tex"))
        return PTX_SPACE_TEX;
    if (plex_word_is(t, ".shared::cluster"))
        return PTX_SPACE_SHARED_CLUSTER;
    return 0;
}

int pis_ident(const plex_tok *t)
{
    if (t->kind != PLEX_WORD)
        return 0;
    char c = t->text[0];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%';
}

uint64_t palign_up(uint64_t v, uint64_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

/* Parses `= initializer` for a variable into init bytes (little-endian). */
static wl_status parse_init_value(pparse *p, ptx_var *v, pvec *bytes, unsigned depth)
{
    unsigned esz = ptx_type_size((ptx_type)v->type);
    if (plex_is(&p->tok, '{')) {
        if (depth >= PTX_MAX_NESTING) /* bounded recursion: hostile `{{{{...` */
            return perr(p, &p->tok, WL_EUSAGE, "initializer nested too deeply (limit %d)",
                        PTX_MAX_NESTING);
        TRY(pnext(p));
        for (;;) {
            TRY(parse_init_value(p, v, bytes, depth + 1));
            if (plex_is(&p->tok, ',')) {
                TRY(pnext(p));
                continue;
            }
            return pexpect(p, '}');
        }
    }
    int neg = 0;
    plex_tok at = p->tok;
    if (plex_is(&p->tok, '-')) {
        neg = 1;
        TRY(pnext(p));
    }
    if (p->tok.kind != PLEX_WORD)
        return punexpected(p, "an initializer value");
    uint64_t bits = 0;
    int isdbl = 0;
    const char *s = p->tok.text;
    size_t n = p->tok.len;
    int isnum = s[0] >= '0' && s[0] <= '9';
    if (!isnum) {
        return perr(p, &at, WL_EUNSUPPORTED,
                    "unsupported: address initializer '%.*s' (variables initialized with "
                    "addresses of other symbols)", (int)(n > 40 ? 40 : n), s);
    }
    int is_f = v->type == PTX_T_F32 || v->type == PTX_T_F64;
    if (pnum_float(s, n, &bits, &isdbl) == 0) {
        double d;
        float f;
        if (isdbl)
            memcpy(&d, &bits, 8);
        else {
            uint32_t b32 = (uint32_t)bits;
            memcpy(&f, &b32, 4);
            d = f;
        }
        if (neg)
            d = -d;
        if (v->type == PTX_T_F32) {
            f = (float)d;
            uint32_t b32;
            memcpy(&b32, &f, 4);
            bits = b32;
        } else if (v->type == PTX_T_F64) {
            memcpy(&bits, &d, 8);
        } else {
            return perr(p, &at, WL_EUSAGE, "floating-point initializer for a .%s variable",
                        ptx_type_name((ptx_type)v->type));
        }
    } else if (pnum_int(s, n, &bits) == 0) {
        if (neg)
            bits = (uint64_t)0 - bits;
        if (is_f) {
            double d = neg ? -(double)((uint64_t)0 - bits) : (double)bits;
            if (v->type == PTX_T_F32) {
                float f = (float)d;
                uint32_t b32;
                memcpy(&b32, &f, 4);
                bits = b32;
            } else {
                memcpy(&bits, &d, 8);
            }
        }
    } else {
        return perr(p, &p->tok, WL_EUSAGE, "bad number '%.*s'", (int)(n > 40 ? 40 : n), s);
    }
    if (bytes->n + esz > v->size && !v->unsized)
        return perr(p, &at, WL_EUSAGE, "too many initializers for '%s' (%llu bytes)",
                    v->name, (unsigned long long)v->size);
    for (unsigned i = 0; i < esz; i++) {
        unsigned char *b = pvec_push(bytes);
        if (!b)
            return poom(p);
        *b = (unsigned char)(bits >> (8 * i));
    }
    return pnext(p);
}

/* Parses the part of a variable declaration after the state space:
 *   [.align N] [.ptr [.space] [.align N]] [.vN] .type name[dims] [= init]
 * The caller has consumed the space word (and linkage). Fills v. */
wl_status pdecl_var(pparse *p, ptx_var *v, int space, int allow_init,
                                const char **name, size_t *nlen)
{
    v->space = (uint8_t)space;
    v->vec = 1;
    for (;;) {
        if (plex_word_is(&p->tok, ".align")) {
            TRY(pnext(p));
            uint64_t a;
            if (p->tok.kind != PLEX_WORD || pnum_int(p->tok.text, p->tok.len, &a) < 0 || a == 0 ||
                (a & (a - 1)) || a > 4096)
                return perr(p, &p->tok, WL_EUSAGE, ".align needs a power of two up to 4096");
            if (v->type && v->is_ptr)
                v->ptr_align = (uint32_t)a;
            else
                v->align = (uint32_t)a;
            TRY(pnext(p));
        } else if (plex_word_is(&p->tok, ".ptr")) {
            v->is_ptr = 1;
            TRY(pnext(p));
            int sp = pspace_from_word(&p->tok);
            if (sp) {
                v->ptr_space = (uint8_t)sp;
                TRY(pnext(p));
            }
            if (plex_word_is(&p->tok, ".align")) {
                TRY(pnext(p));
                uint64_t a;
                if (p->tok.kind != PLEX_WORD || pnum_int(p->tok.text, p->tok.len, &a) < 0 ||
                    a == 0 || a > 4096)
                    return perr(p, &p->tok, WL_EUSAGE, "bad .ptr .align");
                v->ptr_align = (uint32_t)a;
                TRY(pnext(p));
            }
        } else if (plex_word_is(&p->tok, ".v2") || plex_word_is(&p->tok, ".v4") ||
                   plex_word_is(&p->tok, ".v8")) {
            v->vec = (uint8_t)(p->tok.text[2] - '0');
            TRY(pnext(p));
        } else if (p->tok.kind == PLEX_WORD && p->tok.text[0] == '.' &&
                   ptype_from_word(p->tok.text, p->tok.len)) {
            if (v->type)
                return perr(p, &p->tok, WL_EUSAGE, "two types in one declaration");
            v->type = (uint8_t)ptype_from_word(p->tok.text, p->tok.len);
            TRY(pnext(p));
        } else if (plex_word_is(&p->tok, ".texref") || plex_word_is(&p->tok, ".samplerref") ||
                   plex_word_is(&p->tok, ".surfref")) {
            return perr(p, &p->tok, WL_EUNSUPPORTED, "unsupported: %.*s variables",
                        (int)p->tok.len, p->tok.text);
        } else {
            break;
        }
    }
    if (!v->type) {
        if (p->tok.kind == PLEX_WORD && p->tok.text[0] == '.')
            return perr(p, &p->tok, WL_EUNSUPPORTED, "unsupported type or attribute '%.*s'",
                        (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
        return punexpected(p, "a type (.u32, .f32, .b8 ...)");
    }
    if (!pis_ident(&p->tok))
        return punexpected(p, "a name");
    *name = p->tok.text;
    *nlen = p->tok.len;
    v->line = p->tok.line;
    v->col = p->tok.col;
    v->name = parena_strndup(p->arena, p->tok.text, p->tok.len);
    if (!v->name)
        return poom(p);
    TRY(pnext(p));
    uint64_t esz = (uint64_t)ptx_type_size((ptx_type)v->type) * v->vec;
    v->count = 1;
    while (plex_is(&p->tok, '[')) {
        plex_tok at = p->tok;
        TRY(pnext(p));
        if (plex_is(&p->tok, ']')) {
            v->unsized = 1; /* extern .shared .b8 smem[]; */
            TRY(pnext(p));
            continue;
        }
        uint64_t n;
        if (p->tok.kind != PLEX_WORD || pnum_int(p->tok.text, p->tok.len, &n) < 0)
            return punexpected(p, "an array size");
        if (n != 0 && v->count > PTX_MAX_VAR_BYTES / n)
            return perr(p, &at, WL_EUSAGE, "array '%s' too large (limit %llu bytes)", v->name,
                        (unsigned long long)PTX_MAX_VAR_BYTES);
        v->count *= n;
        TRY(pnext(p));
        TRY(pexpect(p, ']'));
    }
    if (v->count > PTX_MAX_VAR_BYTES / (esz ? esz : 1))
        return perr(p, &p->tok, WL_EUSAGE, "variable '%s' too large (limit %llu bytes)",
                    v->name, (unsigned long long)PTX_MAX_VAR_BYTES);
    v->size = v->unsized ? 0 : v->count * esz;
    if (!v->align)
        v->align = (uint32_t)(esz ? esz : 1);
    if (plex_is(&p->tok, '=')) {
        if (!allow_init)
            return perr(p, &p->tok, WL_EUSAGE, "initializer not allowed here");
        TRY(pnext(p));
        pvec bytes;
        pvec_init(&bytes, 1);
        wl_status st = parse_init_value(p, v, &bytes, 0);
        if (st == WL_OK && bytes.n) {
            v->init = parena_memdup(p->arena, bytes.p, bytes.n);
            v->init_size = bytes.n;
            if (!v->init)
                st = poom(p);
        }
        pvec_free(&bytes);
        TRY(st);
    }
    return WL_OK;
}

/* Checks a name is new in the innermost scope. */
wl_status pdecl_check_redecl(pparse *p, const char *name, size_t n, uint32_t line, uint32_t col)
{
    const psym *s = psym_find(&p->syms, name, n);
    if (s && s->depth == p->depth && !(s->kind == PSYM_FUNC)) {
        plex_tok t = {PLEX_WORD, name, n, line, col};
        return perr(p, &t, WL_EUSAGE, "redeclaration of '%.*s'", (int)(n > 60 ? 60 : n), name);
    }
    return WL_OK;
}

/* `.reg .type a, b<N>, ...;` inside a body. */
wl_status pdecl_reg(pparse *p)
{
    TRY(pnext(p));
    int vec = 1;
    if (plex_word_is(&p->tok, ".v2") || plex_word_is(&p->tok, ".v4")) {
        vec = p->tok.text[2] - '0';
        TRY(pnext(p));
    }
    if (p->tok.kind != PLEX_WORD || !ptype_from_word(p->tok.text, p->tok.len)) {
        if (p->tok.kind == PLEX_WORD && p->tok.text[0] == '.')
            return perr(p, &p->tok, WL_EUNSUPPORTED, "unsupported register type '%.*s'",
                        (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
        return punexpected(p, "a register type");
    }
    int type = ptype_from_word(p->tok.text, p->tok.len);
    TRY(pnext(p));
    for (;;) {
        if (!pis_ident(&p->tok))
            return punexpected(p, "a register name");
        plex_tok nt = p->tok;
        TRY(pdecl_check_redecl(p, nt.text, nt.len, nt.line, nt.col));
        char *name = parena_strndup(p->arena, nt.text, nt.len);
        if (!name)
            return poom(p);
        TRY(pnext(p));
        uint64_t count = 1;
        int range = 0;
        if (plex_is(&p->tok, '<')) {
            TRY(pnext(p));
            if (p->tok.kind != PLEX_WORD || pnum_int(p->tok.text, p->tok.len, &count) < 0)
                return punexpected(p, "a register count");
            if (count > PTX_MAX_RANGE)
                return perr(p, &p->tok, WL_EUSAGE, "register range %.*s<%llu> too large (limit %u)",
                            (int)nt.len, nt.text, (unsigned long long)count, PTX_MAX_RANGE);
            TRY(pnext(p));
            TRY(pexpect(p, '>'));
            range = 1;
        }
        if (p->regs.n + count > PTX_MAX_REGS_PER_FUNC)
            return perr(p, &nt, WL_EUSAGE, "too many registers in one function (limit %u)",
                        PTX_MAX_REGS_PER_FUNC);
        p->module_regs += count;
        if (p->module_regs > PTX_MAX_REGS_PER_MODULE)
            return perr(p, &nt, WL_EUSAGE, "too many registers in the module (limit %u)",
                        PTX_MAX_REGS_PER_MODULE);
        int32_t first = (int32_t)p->regs.n;
        for (uint64_t i = 0; i < count; i++) {
            ptx_reg *r = pvec_push(&p->regs);
            if (!r)
                return poom(p);
            r->name = name;
            r->num = range ? (int32_t)i : PTX_NONE;
            r->type = (uint8_t)type;
            r->vec = (uint8_t)vec;
        }
        if (psym_add(&p->syms, nt.text, nt.len, range ? PSYM_RANGE : PSYM_REG, p->depth, first,
                     (uint32_t)count) < 0)
            return poom(p);
        if (plex_is(&p->tok, ',')) {
            TRY(pnext(p));
            continue;
        }
        return pexpect(p, ';');
    }
}

/* A variable declared at module scope, or .shared/.global/.const in a body
 * (hoisted into module->vars but visible only in its scope). */
wl_status pdecl_modvar(pparse *p, int space, int linkage)
{
    ptx_var *v = pvec_push(&p->vars);
    if (!v)
        return poom(p);
    size_t idx = p->vars.n - 1;
    const char *nm;
    size_t nl;
    ptx_var tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.linkage = (uint8_t)linkage;
    wl_status st = pdecl_var(p, &tmp, space, 1, &nm, &nl);
    if (st != WL_OK)
        return st;
    if (tmp.unsized && space != PTX_SPACE_SHARED)
        return perr(p, &p->tok, WL_EUSAGE, "unsized array '%s' outside .extern .shared", tmp.name);
    if (space == PTX_SPACE_SHARED && tmp.size > PTX_MAX_SMEM_BYTES)
        return perr(p, &p->tok, WL_EUSAGE, "shared variable '%s' too large (%llu bytes, limit %u)",
                    tmp.name, (unsigned long long)tmp.size, PTX_MAX_SMEM_BYTES);
    TRY(pdecl_check_redecl(p, nm, nl, tmp.line, tmp.col));
    PVEC_AT(p->vars, ptx_var, idx) = tmp;
    if (psym_add(&p->syms, nm, nl, PSYM_MODVAR, p->depth, (int32_t)idx, 1) < 0)
        return poom(p);
    return pexpect(p, ';');
}

/* .local or call-site .param inside a body. */
wl_status pdecl_local(pparse *p, int space)
{
    ptx_var v;
    memset(&v, 0, sizeof v);
    const char *nm;
    size_t nl;
    TRY(pdecl_var(p, &v, space, space == PTX_SPACE_LOCAL, &nm, &nl));
    if (v.unsized)
        return perr(p, &p->tok, WL_EUSAGE, "unsized array '%s' in a function body", v.name);
    uint64_t *off = space == PTX_SPACE_LOCAL ? &p->local_off : &p->callparam_off;
    uint64_t o = palign_up(*off, v.align);
    uint64_t lim = space == PTX_SPACE_LOCAL ? PTX_MAX_LOCAL_BYTES : PTX_MAX_PARAM_BYTES * 16u;
    if (v.size > lim || o + v.size > lim)
        return perr(p, &p->tok, WL_EUSAGE, "%s frame too large in '%s' (limit %llu bytes)",
                    space == PTX_SPACE_LOCAL ? ".local" : "call .param", p->cur->name,
                    (unsigned long long)lim);
    v.offset = o;
    *off = o + v.size;
    if (p->callparam_off > p->callparam_max)
        p->callparam_max = p->callparam_off;
    TRY(pdecl_check_redecl(p, nm, nl, v.line, v.col));
    ptx_var *dst = pvec_push(&p->locals);
    if (!dst)
        return poom(p);
    *dst = v;
    if (psym_add(&p->syms, nm, nl, PSYM_LOCAL, p->depth, (int32_t)(p->locals.n - 1), 1) < 0)
        return poom(p);
    return pexpect(p, ';');
}

static uint32_t ploc_hash(uint32_t f, uint32_t l, uint32_t c)
{
    return (f * 2654435761u) ^ (l * 2246822519u) ^ (c * 3266489917u);
}

static struct ploc *ploc_find(pparse *p, uint32_t f, uint32_t l, uint32_t c)
{
    if (!p->loccap)
        return NULL;
    for (uint32_t i = ploc_hash(f, l, c) & (p->loccap - 1);; i = (i + 1) & (p->loccap - 1)) {
        struct ploc *e = &p->locs[i];
        if (!e->used)
            return NULL;
        if (e->f == f && e->l == l && e->c == c)
            return e;
    }
}

/* Records the current .loc's outermost location (of, ol, oc). */
static wl_status ploc_put(pparse *p, uint32_t of, uint32_t ol, uint32_t oc)
{
    struct ploc *e = ploc_find(p, p->loc_file, p->loc_line, p->loc_col);
    if (!e) {
        if (2 * (p->nlocs + 1) > p->loccap) { /* keep the load under 1/2 */
            uint32_t nc = p->loccap ? p->loccap * 2 : 256;
            struct ploc *old = p->locs, *nl = calloc(nc, sizeof *nl);
            if (!nl || nc > (1u << 26)) {
                free(nl);
                return poom(p);
            }
            uint32_t oldcap = p->loccap;
            p->locs = nl;
            p->loccap = nc;
            for (uint32_t i = 0; i < oldcap; i++)
                if (old[i].used) {
                    uint32_t j = ploc_hash(old[i].f, old[i].l, old[i].c) & (nc - 1);
                    while (nl[j].used)
                        j = (j + 1) & (nc - 1);
                    nl[j] = old[i];
                }
            free(old);
        }
        uint32_t j = ploc_hash(p->loc_file, p->loc_line, p->loc_col) & (p->loccap - 1);
        while (p->locs[j].used)
            j = (j + 1) & (p->loccap - 1);
        e = &p->locs[j];
        e->used = 1;
        e->f = p->loc_file;
        e->l = p->loc_line;
        e->c = p->loc_col;
        p->nlocs++;
    }
    e->of = of;
    e->ol = ol;
    e->oc = oc;
    return WL_OK;
}

/* `.loc file line col[, function_name X, inlined_at f l c]` */
wl_status pdecl_loc(pparse *p)
{
    uint64_t v[3] = {0, 0, 0};
    TRY(pnext(p));
    for (int i = 0; i < 3; i++) {
        if (p->tok.kind != PLEX_WORD || pnum_int(p->tok.text, p->tok.len, &v[i]) < 0 ||
            v[i] > 0xffffffffu)
            return punexpected(p, "a .loc number");
        TRY(pnext(p));
    }
    if (v[0] > 0xffff)
        return perr(p, &p->tok, WL_EUSAGE, ".loc file index %llu too large", (unsigned long long)v[0]);
    p->loc_file = (uint32_t)v[0];
    p->loc_line = (uint32_t)v[1];
    p->loc_col = v[2] > 0xffff ? 0xffff : (uint32_t)v[2];
    /* optional attributes: the rest of the line is `, function_name X, inlined_at F L C` */
    uint32_t line = p->tok.line;
    uint64_t at[3] = {0, 0, 0};
    int inlined = 0;
    while (plex_is(&p->tok, ',') && p->tok.line == line) {
        TRY(pnext(p));
        if (plex_word_is(&p->tok, "function_name")) {
            TRY(pnext(p));
            if (p->tok.kind != PLEX_WORD)
                return punexpected(p, "a function-name label");
            TRY(pnext(p));
        } else if (plex_word_is(&p->tok, "inlined_at")) {
            TRY(pnext(p));
            for (int i = 0; i < 3; i++) {
                if (p->tok.kind != PLEX_WORD || pnum_int(p->tok.text, p->tok.len, &at[i]) < 0 ||
                    at[i] > 0xffffffffu)
                    return punexpected(p, "an inlined_at number");
                TRY(pnext(p));
            }
            inlined = 1;
        } else {
            return punexpected(p, "function_name or inlined_at");
        }
    }
    /* nvcc writes an inlining chain as .loc lines each naming an earlier one
     * as its inlined_at site (not repeated when code returns to it); the
     * outermost is the first site that was not itself inlined. */
    uint32_t of = p->loc_file, ol = p->loc_line, oc = p->loc_col;
    if (!inlined && ol == 0) {
        /* line 0: compiler-generated code with no line of its own; it stays
         * attributed to the enclosing source line */
        of = p->src_file;
        ol = p->src_line;
        oc = p->src_col;
    } else if (inlined) {
        of = at[0] > 0xffff ? 0xffff : (uint32_t)at[0];
        ol = (uint32_t)at[1];
        oc = at[2] > 0xffff ? 0xffff : (uint32_t)at[2];
        const struct ploc *site = ploc_find(p, of, ol, oc);
        if (site) {
            of = site->of;
            ol = site->ol;
            oc = site->oc;
        }
    }
    TRY(ploc_put(p, of, ol, oc));
    p->src_file = of;
    p->src_line = ol;
    p->src_col = oc;
    return WL_OK;
}

wl_status pdecl_pragma(pparse *p)
{
    TRY(pnext(p));
    for (;;) {
        if (p->tok.kind != PLEX_STRING)
            return punexpected(p, "a pragma string");
        if (p->tok.len == 10 && !memcmp(p->tok.text, "\"nounroll\"", 10))
            p->pragma_nounroll = 1;
        TRY(pnext(p));
        if (!plex_is(&p->tok, ','))
            break;
        TRY(pnext(p));
    }
    return pexpect(p, ';');
}

/* Skips `.section NAME { ... }` (DWARF data) with brace matching. */
wl_status pdecl_skip_section(pparse *p)
{
    TRY(pnext(p));
    if (p->tok.kind != PLEX_WORD)
        return punexpected(p, "a section name");
    TRY(pnext(p));
    if (!plex_is(&p->tok, '{'))
        return punexpected(p, "'{'");
    unsigned depth = 0;
    do {
        if (p->tok.kind == PLEX_EOF)
            return perr(p, &p->tok, WL_EUSAGE, "unterminated .section");
        if (plex_is(&p->tok, '{'))
            depth++;
        else if (plex_is(&p->tok, '}'))
            depth--;
        TRY(pnext(p));
    } while (depth > 0);
    return WL_OK;
}

