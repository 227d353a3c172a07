/* lesson_expr: the claims of lesson checks (see lesson_expr.h). A recursive-descent parser
 * over one line into a small node array, and an evaluator that asks the caller for metrics. */
#include "lesson_expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- claim expressions: recursive descent over one line ---- */

typedef struct {
    const char *s;
    size_t pos;
    lesson_expr *c;
    const char *path;
    int line;
    diag_t *d;
    wl_status st;
} xparse;

static int xerr(xparse *p, const char *fmt, const char *arg)
{
    if (p->st == WL_OK)
        p->st = diag_set(p->d, WL_EUSAGE, p->path, p->line, 0, "expect, column %d: %s%s%s",
                         (int)p->pos + 1, fmt, arg ? arg : "", arg ? "'" : "");
    return -1;
}

static void xskip(xparse *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
        p->pos++;
}

static int xnode(xparse *p, lesson_node_kind k, int a, int b)
{
    if (p->c->nnodes >= LESSON_MAX_NODES)
        return xerr(p, "claim too long (at most 32 terms)", NULL);
    lesson_node *n = &p->c->nodes[p->c->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = k;
    n->a = a;
    n->b = b;
    return p->c->nnodes++;
}

static int xsum(xparse *p, int depth);

static int xfactor(xparse *p, int depth)
{
    xskip(p);
    if (depth > 16)
        return xerr(p, "parentheses nested too deeply", NULL);
    char ch = p->s[p->pos];
    if (ch == '(') {
        p->pos++;
        int r = xsum(p, depth + 1);
        if (r < 0)
            return r;
        xskip(p);
        if (p->s[p->pos] != ')')
            return xerr(p, "missing ')'", NULL);
        p->pos++;
        return r;
    }
    if (ch == '-') {
        p->pos++;
        int a = xfactor(p, depth + 1);
        return a < 0 ? a : xnode(p, LESSON_N_NEG, a, -1);
    }
    if (isdigit((unsigned char)ch) || ch == '.') {
        char *end;
        errno = 0;
        double v = strtod(p->s + p->pos, &end);
        if (end == p->s + p->pos || errno || !isfinite(v))
            return xerr(p, "bad number", NULL);
        p->pos = (size_t)(end - p->s);
        int n = xnode(p, LESSON_N_NUM, -1, -1);
        if (n >= 0)
            p->c->nodes[n].num = v;
        return n;
    }
    if (ch == '"') {
        size_t start = ++p->pos;
        while (p->s[p->pos] && p->s[p->pos] != '"')
            p->pos++;
        if (p->s[p->pos] != '"')
            return xerr(p, "unterminated string", NULL);
        size_t len = p->pos - start;
        p->pos++;
        if (len >= sizeof p->c->nodes[0].text)
            return xerr(p, "string too long", NULL);
        int n = xnode(p, LESSON_N_STR, -1, -1);
        if (n >= 0) {
            memcpy(p->c->nodes[n].text, p->s + start, len);
            p->c->nodes[n].text[len] = '\0';
        }
        return n;
    }
    if (isalpha((unsigned char)ch) || ch == '_') {
        size_t start = p->pos, parts = 1;
        for (;;) {
            while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_')
                p->pos++;
            if (p->s[p->pos] != '.')
                break;
            p->pos++;
            if (!isalpha((unsigned char)p->s[p->pos]) && p->s[p->pos] != '_')
                return xerr(p, "a name must follow '.'", NULL);
            parts++;
        }
        size_t len = p->pos - start;
        if (parts < 2) {
            char tmp[64];
            snprintf(tmp, sizeof tmp, "%.*s", (int)(len < 60 ? len : 60), p->s + start);
            return xerr(p, "a metric is EXPERIMENT.KEY, not '", tmp);
        }
        if (len >= sizeof p->c->nodes[0].text)
            return xerr(p, "metric name too long", NULL);
        int n = xnode(p, LESSON_N_REF, -1, -1);
        if (n >= 0) {
            memcpy(p->c->nodes[n].text, p->s + start, len);
            p->c->nodes[n].text[len] = '\0';
        }
        return n;
    }
    return xerr(p, ch ? "expected a number, a metric or '('" : "claim ends too early", NULL);
}

/* A left-associative chain of binary operators: level 0 is + and -, level 1 is * and /. */
static int xbinary(xparse *p, int depth, int level)
{
    static const char ops[2][3] = {"+-", "*/"};
    static const lesson_node_kind kinds[2][2] = {{LESSON_N_ADD, LESSON_N_SUB},
                                                 {LESSON_N_MUL, LESSON_N_DIV}};
    int a = level ? xfactor(p, depth) : xbinary(p, depth, 1);
    for (;;) {
        if (a < 0)
            return a;
        xskip(p);
        char ch = p->s[p->pos];
        const char *op = ch ? strchr(ops[level], ch) : NULL;
        if (!op)
            return a;
        p->pos++;
        int b = level ? xfactor(p, depth) : xbinary(p, depth, 1);
        if (b < 0)
            return b;
        a = xnode(p, kinds[level][op - ops[level]], a, b);
    }
}

static int xsum(xparse *p, int depth)
{
    return xbinary(p, depth, 0);
}

static int xcmp(xparse *p, lesson_cmp *out)
{
    static const struct { const char *op; lesson_cmp c; } ops[] = {
        {"<=", LESSON_LE}, {">=", LESSON_GE}, {"==", LESSON_EQ}, {"!=", LESSON_NE},
        {"<", LESSON_LT},  {">", LESSON_GT}};
    xskip(p);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t n = strlen(ops[i].op);
        if (!strncmp(p->s + p->pos, ops[i].op, n)) {
            p->pos += n;
            *out = ops[i].c;
            return 0;
        }
    }
    return xerr(p, p->s[p->pos] ? "expected a comparison (< <= > >= == !=)"
                                : "a claim compares two sides (< <= > >= == !=)",
                NULL);
}

wl_status lesson_expr_parse(const char *text, const char *path, int line, lesson_expr *c,
                            diag_t *d)
{
    xparse p = {text, 0, c, path, line, d, WL_OK};
    c->nnodes = 0;
    c->lhs = xsum(&p, 0);
    if (c->lhs >= 0 && xcmp(&p, &c->cmp) == 0)
        c->rhs = xsum(&p, 0);
    if (p.st != WL_OK)
        return p.st;
    xskip(&p);
    if (p.s[p.pos])
        return (wl_status)(xerr(&p, "unexpected text after the claim", NULL), p.st);
    int ls = c->nodes[c->lhs].kind == LESSON_N_STR, rs = c->nodes[c->rhs].kind == LESSON_N_STR;
    if ((ls || rs) && c->cmp != LESSON_EQ && c->cmp != LESSON_NE)
        return diag_set(d, WL_EUSAGE, path, line, 0, "strings compare only with == or !=");
    if (ls && rs)
        return diag_set(d, WL_EUSAGE, path, line, 0, "a claim between two strings is constant");
    for (int i = 0; i < c->nnodes; i++) {
        lesson_node_kind k = c->nodes[i].kind;
        if (k >= LESSON_N_ADD && (c->nodes[c->nodes[i].a].kind == LESSON_N_STR ||
                                  (k != LESSON_N_NEG && c->nodes[c->nodes[i].b].kind == LESSON_N_STR)))
            return diag_set(d, WL_EUSAGE, path, line, 0, "no arithmetic on strings");
    }
    if (strlen(text) >= sizeof c->text)
        return diag_set(d, WL_EUSAGE, path, line, 0, "claim too long");
    snprintf(c->text, sizeof c->text, "%s", text);
    return WL_OK;
}

/* ---- evaluation ---- */

typedef struct {
    const lesson_expr *c;
    lesson_lookup_fn fn;
    void *ctx;
    lesson_outcome *o;
} xeval;

/* Returns 0 ok, 1 unknown (null), 2 error. */
static int eval_node(xeval *e, int i, double *v, lesson_value *sv)
{
    const lesson_node *n = &e->c->nodes[i];
    double a = 0, b = 0;
    int r;
    switch (n->kind) {
    case LESSON_N_NUM:
        *v = n->num;
        return 0;
    case LESSON_N_STR:
        sv->kind = LESSON_V_STR;
        snprintf(sv->str, sizeof sv->str, "%s", n->text);
        return 0;
    case LESSON_N_REF: {
        lesson_value lv = {LESSON_V_MISSING, 0, ""};
        e->fn(e->ctx, n->text, &lv);
        if (lv.kind == LESSON_V_NUM) {
            *v = lv.num;
            return 0;
        }
        if (lv.kind == LESSON_V_STR && sv) {
            *sv = lv;
            return 0;
        }
        if (!e->o->missing[0])
            snprintf(e->o->missing, sizeof e->o->missing, "%s", n->text);
        return lv.kind == LESSON_V_NULL ? 1 : 2;
    }
    case LESSON_N_NEG:
        r = eval_node(e, n->a, &a, NULL);
        *v = -a;
        return r;
    default:
        break;
    }
    int ra = eval_node(e, n->a, &a, NULL), rb = eval_node(e, n->b, &b, NULL);
    if (ra || rb)
        return ra > rb ? ra : rb;
    switch (n->kind) {
    case LESSON_N_ADD: *v = a + b; break;
    case LESSON_N_SUB: *v = a - b; break;
    case LESSON_N_MUL: *v = a * b; break;
    default:
        if (b == 0) {
            snprintf(e->o->missing, sizeof e->o->missing, "division by zero");
            return 2;
        }
        *v = a / b;
        break;
    }
    return 0;
}

void lesson_expr_eval(const lesson_expr *c, double tolerance, lesson_lookup_fn lookup, void *ctx,
                      lesson_outcome *o)
{
    memset(o, 0, sizeof *o);
    xeval e = {c, lookup, ctx, o};
    lesson_value ls = {LESSON_V_NUM, 0, ""}, rs = {LESSON_V_NUM, 0, ""};
    int rl = eval_node(&e, c->lhs, &o->lhs, &ls), rr = eval_node(&e, c->rhs, &o->rhs, &rs);
    if (rl == 2 || rr == 2) {
        o->verdict = LESSON_ERROR;
        return;
    }
    if (rl || rr) {
        o->verdict = LESSON_UNKNOWN;
        return;
    }
    if (ls.kind == LESSON_V_STR || rs.kind == LESSON_V_STR) {
        if (ls.kind != rs.kind) {
            snprintf(o->missing, sizeof o->missing, "a string compared with a number");
            o->verdict = LESSON_ERROR;
            return;
        }
        snprintf(o->lhs_str, sizeof o->lhs_str, "%s", ls.str);
        snprintf(o->rhs_str, sizeof o->rhs_str, "%s", rs.str);
        int eq = !strcmp(ls.str, rs.str);
        o->verdict = (c->cmp == LESSON_EQ ? eq : !eq) ? LESSON_HOLDS : LESSON_FAILS;
        return;
    }
    double a = o->lhs, b = o->rhs, slack = tolerance * fabs(b);
    int ok;
    switch (c->cmp) {
    case LESSON_LT: ok = a < b + slack; break;
    case LESSON_LE: ok = a <= b + slack; break;
    case LESSON_GT: ok = a > b - slack; break;
    case LESSON_GE: ok = a >= b - slack; break;
    case LESSON_EQ: ok = fabs(a - b) <= slack; break;
    default: ok = fabs(a - b) > slack; break;
    }
    o->verdict = ok ? LESSON_HOLDS : LESSON_FAILS;
}

const char *lesson_cmp_str(lesson_cmp c)
{
    static const char *const s[] = {"<", "<=", ">", ">=", "==", "!="};
    return s[c];
}

