/* cases: reads the harness's case list (see cases.h and the header of gpu/cases.txt). */
#include "cases.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CASES_MAX_LINE 4096
#define CASES_MAX_TOKENS 64

typedef struct {
    const char *s; /* NUL-terminated copy inside the line buffer */
    int col;       /* 1-based column in the line */
} cases_tok;

static int cases_tokenize(char *buf, cases_tok *t, int max)
{
    int n = 0;
    char *p = buf;
    while (*p) {
        while (*p && isspace((unsigned char)*p))
            ++p;
        if (!*p)
            break;
        if (n == max)
            return -1;
        t[n].s = p;
        t[n].col = (int)(p - buf) + 1;
        ++n;
        while (*p && !isspace((unsigned char)*p))
            ++p;
        if (*p)
            *p++ = '\0';
    }
    return n;
}

/* X[,Y[,Z]]: each 1 .. 2^31-1 */
static int cases_parse_dim(const char *s, unsigned v[3])
{
    v[0] = v[1] = v[2] = 1;
    for (int i = 0; i < 3; ++i) {
        char *end;
        if (!isdigit((unsigned char)*s))
            return -1;
        errno = 0;
        unsigned long x = strtoul(s, &end, 10);
        if (errno || x == 0 || x > 0x7fffffffUL)
            return -1;
        v[i] = (unsigned)x;
        if (*end == '\0')
            return 0;
        if (*end != ',' || i == 2)
            return -1;
        s = end + 1;
    }
    return -1;
}

/* I:exact | I:rel=TOL | I:abs=TOL */
static int cases_parse_check(const char *s, cases_check *c)
{
    char *end;
    errno = 0;
    long i = strtol(s, &end, 10);
    if (errno || end == s || i < 0 || i >= CASES_MAX_ARGS || *end != ':')
        return -1;
    c->arg = (int)i;
    s = end + 1;
    if (strcmp(s, "exact") == 0) {
        c->mode = CASES_CHECK_EXACT;
        c->tol = 0;
        return 0;
    }
    if (strncmp(s, "rel=", 4) == 0)
        c->mode = CASES_CHECK_REL;
    else if (strncmp(s, "abs=", 4) == 0)
        c->mode = CASES_CHECK_ABS;
    else
        return -1;
    c->tol = strtod(s + 4, &end);
    if (end == s + 4 || *end != '\0' || !(c->tol >= 0) || !isfinite(c->tol))
        return -1;
    return 0;
}

static int cases_copy(char *dst, size_t n, const char *src)
{
    if (strlen(src) >= n)
        return -1;
    memcpy(dst, src, strlen(src) + 1);
    return 0;
}

wl_status cases_parse_line(const char *text, const char *file, int line, cases_case *c,
                           diag_t *d)
{
    char buf[CASES_MAX_LINE];
    cases_tok t[CASES_MAX_TOKENS];
    memset(c, 0, sizeof *c);
    c->line = line;
    c->grid[0] = c->grid[1] = c->grid[2] = 1;
    c->block[0] = c->block[1] = c->block[2] = 1;
    if (strlen(text) >= sizeof buf)
        return diag_set(d, WL_EUSAGE, file, line, 1, "line longer than %d characters",
                        CASES_MAX_LINE - 1);
    memcpy(buf, text, strlen(text) + 1);
    int n = cases_tokenize(buf, t, CASES_MAX_TOKENS);
    if (n < 0)
        return diag_set(d, WL_EUSAGE, file, line, 1, "more than %d fields", CASES_MAX_TOKENS);
    if (n < 2)
        return diag_set(d, WL_EUSAGE, file, line, 1, "expected NAME PTXFILE --kernel ...");
    if (cases_copy(c->name, sizeof c->name, t[0].s) || t[0].s[0] == '-')
        return diag_set(d, WL_EUSAGE, file, line, t[0].col, "bad case name '%s'", t[0].s);
    if (cases_copy(c->ptx, sizeof c->ptx, t[1].s) || t[1].s[0] == '-')
        return diag_set(d, WL_EUSAGE, file, line, t[1].col, "bad PTX file name '%s'", t[1].s);
    int have_grid = 0, have_block = 0;
    for (int i = 2; i < n; i += 2) {
        const char *opt = t[i].s;
        if (i + 1 >= n)
            return diag_set(d, WL_EUSAGE, file, line, t[i].col, "option '%s' needs a value",
                            opt);
        const char *val = t[i + 1].s;
        int col = t[i + 1].col;
        if (strcmp(opt, "--kernel") == 0) {
            if (cases_copy(c->kernel, sizeof c->kernel, val))
                return diag_set(d, WL_EUSAGE, file, line, col, "kernel name too long");
        } else if (strcmp(opt, "--grid") == 0 || strcmp(opt, "--block") == 0) {
            int is_grid = opt[2] == 'g';
            if (cases_parse_dim(val, is_grid ? c->grid : c->block))
                return diag_set(d, WL_EUSAGE, file, line, col,
                                "bad %s '%s' (want X[,Y[,Z]], each >= 1)", opt, val);
            if (is_grid)
                have_grid = 1;
            else
                have_block = 1;
        } else if (strcmp(opt, "--smem") == 0) {
            char *end;
            errno = 0;
            unsigned long v = strtoul(val, &end, 10);
            if (errno || end == val || *end || v > 0x7fffffffUL || val[0] == '-')
                return diag_set(d, WL_EUSAGE, file, line, col, "bad --smem '%s'", val);
            c->smem = (unsigned)v;
        } else if (strcmp(opt, "--arg") == 0) {
            if (c->nargs == CASES_MAX_ARGS)
                return diag_set(d, WL_EUSAGE, file, line, col, "more than %d --arg",
                                CASES_MAX_ARGS);
            if (cases_copy(c->argtext[c->nargs], sizeof c->argtext[0], val))
                return diag_set(d, WL_EUSAGE, file, line, col, "--arg spec too long");
            diag_t ad;
            diag_clear(&ad);
            if (argspec_parse(val, &c->args[c->nargs], &ad) != WL_OK)
                return diag_set(d, WL_EUSAGE, file, line, col, "%s", ad.msg);
            c->nargs++;
        } else if (strcmp(opt, "--check") == 0) {
            if (c->nchecks == CASES_MAX_CHECKS)
                return diag_set(d, WL_EUSAGE, file, line, col, "more than %d --check",
                                CASES_MAX_CHECKS);
            if (cases_parse_check(val, &c->checks[c->nchecks]))
                return diag_set(d, WL_EUSAGE, file, line, col,
                                "bad --check '%s' (want I:exact, I:rel=TOL or I:abs=TOL)", val);
            c->nchecks++;
        } else {
            return diag_set(d, WL_EUSAGE, file, line, t[i].col, "unknown option '%s'", opt);
        }
    }
    if (!c->kernel[0] || !have_grid || !have_block)
        return diag_set(d, WL_EUSAGE, file, line, 1, "case '%s' needs --kernel, --grid and --block",
                        c->name);
    if (c->nchecks == 0)
        return diag_set(d, WL_EUSAGE, file, line, 1, "case '%s' checks no buffer (--check)",
                        c->name);
    for (int k = 0; k < c->nchecks; ++k) {
        const cases_check *chk = &c->checks[k];
        if (chk->arg >= c->nargs || !c->args[chk->arg].is_buffer)
            return diag_set(d, WL_EUSAGE, file, line, 1,
                            "case '%s': --check %d does not name a buffer argument", c->name,
                            chk->arg);
        if (chk->mode != CASES_CHECK_EXACT && !argspec_type_is_float(c->args[chk->arg].type))
            return diag_set(d, WL_EUSAGE, file, line, 1,
                            "case '%s': integer buffer %d must be checked exact", c->name,
                            chk->arg);
    }
    return WL_OK;
}

const cases_case *cases_find(const cases_list *l, const char *name)
{
    for (int i = 0; i < l->n; ++i)
        if (strcmp(l->v[i].name, name) == 0)
            return &l->v[i];
    return NULL;
}

wl_status cases_load(const char *path, cases_list *out, diag_t *d)
{
    out->v = NULL;
    out->n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return diag_set(d, WL_EUSAGE, path, 0, 0, "cannot open: %s", strerror(errno));
    char line[CASES_MAX_LINE + 2];
    int lineno = 0, cap = 0;
    wl_status st = WL_OK;
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            st = diag_set(d, WL_EUSAGE, path, lineno, 1, "line too long");
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line;
        while (*p && isspace((unsigned char)*p))
            ++p;
        if (!*p)
            continue;
        if (out->n == cap) {
            int ncap = cap ? cap * 2 : 32;
            cases_case *nv = (cases_case *)realloc(out->v, (size_t)ncap * sizeof *nv);
            if (!nv) {
                st = diag_set(d, WL_EUSAGE, path, lineno, 1, "out of memory");
                break;
            }
            out->v = nv;
            cap = ncap;
        }
        st = cases_parse_line(line, path, lineno, &out->v[out->n], d);
        if (st != WL_OK)
            break;
        if (cases_find(out, out->v[out->n].name)) {
            st = diag_set(d, WL_EUSAGE, path, lineno, 1, "duplicate case name '%s'",
                          out->v[out->n].name);
            break;
        }
        out->n++;
    }
    fclose(f);
    if (st != WL_OK)
        cases_free(out);
    return st;
}

void cases_free(cases_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

wl_status cases_fill_args(const cases_case *c, cases_arg *args, diag_t *d)
{
    memset(args, 0, sizeof(cases_arg) * CASES_MAX_ARGS);
    for (int i = 0; i < c->nargs; ++i) {
        uint64_t bytes = argspec_bytes(&c->args[i]);
        args[i].bytes = bytes;
        args[i].count = c->args[i].count;
        args[i].p = malloc(bytes ? (size_t)bytes : 1);
        if (!args[i].p) {
            cases_free_args(c, args);
            return diag_set(d, WL_EUSAGE, NULL, c->line, 0, "case %s: cannot allocate %" PRIu64
                            " bytes for argument %d", c->name, bytes, i);
        }
        if (argspec_fill(&c->args[i], args[i].p, d) != WL_OK) {
            cases_free_args(c, args);
            return WL_EUSAGE;
        }
    }
    return WL_OK;
}

void cases_free_args(const cases_case *c, cases_arg *args)
{
    for (int i = 0; i < c->nargs; ++i) {
        free(args[i].p);
        args[i].p = NULL;
    }
}

static double cases_load_float(argspec_type t, const unsigned char *p, uint64_t i)
{
    return argspec_load_float(t, p + i * argspec_elem_size(t));
}

uint64_t cases_compare(const cases_case *c, const cases_check *chk, const void *got,
                       const void *want, char *msg, size_t msglen)
{
    const argspec *a = &c->args[chk->arg];
    size_t es = argspec_elem_size(a->type);
    const unsigned char *g = (const unsigned char *)got, *w = (const unsigned char *)want;
    uint64_t bad = 0;
    if (msglen)
        msg[0] = '\0';
    for (uint64_t i = 0; i < a->count; ++i) {
        int ok;
        double gv = 0, wv = 0;
        if (chk->mode == CASES_CHECK_EXACT) {
            ok = memcmp(g + i * es, w + i * es, es) == 0;
        } else {
            gv = cases_load_float(a->type, g, i);
            wv = cases_load_float(a->type, w, i);
            double err = fabs(gv - wv);
            double lim = chk->mode == CASES_CHECK_REL ? chk->tol * fabs(wv) : chk->tol;
            ok = err <= lim || (isnan(gv) && isnan(wv)) || gv == wv;
        }
        if (ok)
            continue;
        if (bad++ == 0 && msglen) {
            if (argspec_type_is_float(a->type)) {
                gv = cases_load_float(a->type, g, i);
                wv = cases_load_float(a->type, w, i);
                snprintf(msg, msglen, "arg %d [%" PRIu64 "]: got %.9g want %.9g", chk->arg, i,
                         gv, wv);
            } else {
                uint64_t gu = 0, wu = 0;
                memcpy(&gu, g + i * es, es); /* little-endian host */
                memcpy(&wu, w + i * es, es);
                snprintf(msg, msglen, "arg %d [%" PRIu64 "]: got %" PRIu64 " want %" PRIu64,
                         chk->arg, i, gu, wu);
            }
        }
    }
    return bad;
}

uint64_t cases_threads(const cases_case *c)
{
    return (uint64_t)c->grid[0] * c->grid[1] * c->grid[2] *
           ((uint64_t)c->block[0] * c->block[1] * c->block[2]);
}

uint64_t cases_warps(const cases_case *c)
{
    uint64_t tpb = (uint64_t)c->block[0] * c->block[1] * c->block[2];
    return (uint64_t)c->grid[0] * c->grid[1] * c->grid[2] * ((tpb + 31) / 32);
}
