/* argspec: the `--arg SPEC` grammar (see argspec.h).
 *
 * Written in the common subset of C17 and C++ (explicit casts from void *, no
 * designated initializers, no compound literals) because the GPU harness compiles
 * this same file with nvcc; it must stay a leaf (diag.h only). Float arithmetic
 * here is plain IEEE double (no contraction in ISO C mode), so host fills on both
 * sides produce the same bytes.
 */
#include "argspec.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ull
#define MAX_TOKEN 127 /* longest VALUE / argument we read */

static const char *const type_names[] = {"u8",  "s8",  "u16", "s16", "u32", "s32",
                                         "u64", "s64", "f32", "f64", "f16", "bf16"};
static const unsigned char type_sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 2, 2};
#define NTYPES (sizeof type_sizes / sizeof type_sizes[0])

size_t argspec_elem_size(argspec_type t)
{
    return (unsigned)t < NTYPES ? type_sizes[t] : 0;
}

const char *argspec_type_name(argspec_type t)
{
    return (unsigned)t < NTYPES ? type_names[t] : "?";
}

int argspec_type_is_float(argspec_type t)
{
    return t == ARGSPEC_F32 || t == ARGSPEC_F64 || t == ARGSPEC_F16 || t == ARGSPEC_BF16;
}

/* ---- 16-bit floats ---------------------------------------------------------------- */

/* A 16-bit float format: exponent and fraction bits (sign 1, so 1 + e + m = 16). */
typedef struct {
    int e, m;
} half_fmt;

static half_fmt half_of(argspec_type t)
{
    half_fmt f = {5, 10}; /* f16 */
    if (t == ARGSPEC_BF16)
        f.e = 8, f.m = 7;
    return f;
}

static int is_half(argspec_type t)
{
    return t == ARGSPEC_F16 || t == ARGSPEC_BF16;
}

/* x rounded to format f, to nearest with ties to even (overflow: infinity; NaN: the quiet NaN
 * of the sign), as its 16 bits. Exact from the double: no rounding through f32 first. */
static uint16_t half_bits(half_fmt f, double x)
{
    uint16_t sign = signbit(x) ? 0x8000u : 0u;
    uint16_t inf = (uint16_t)(((1u << f.e) - 1u) << f.m);
    if (isnan(x))
        return (uint16_t)(sign | inf | (1u << (f.m - 1)));
    double a = fabs(x);
    if (a == 0.0 || isinf(a))
        return (uint16_t)(sign | (a == 0.0 ? 0u : inf));
    int bias = (1 << (f.e - 1)) - 1, emin = 1 - bias;
    int k;
    frexp(a, &k); /* a in [2^(k-1), 2^k) */
    int ex = k - 1 < emin ? emin : k - 1; /* a's exponent; emin below the normals */
    /* the significand in units of the last place at that exponent: [2^m, 2^(m+1)) for a
     * normal, below 2^m for a subnormal; the scaling is exact, the rounding the host's default
     * (to nearest, ties to even) */
    double r = nearbyint(ldexp(a, f.m - ex));
    /* encoding: the biased exponent ex - emin + 1 above the fraction r - 2^m, i.e.
     * (ex - emin) x 2^m + r; a subnormal (ex = emin, r < 2^m) is r itself, and a rounding that
     * carries (r = 2^(m+1), or 2^m from a subnormal) lands on the next exponent's first value */
    uint64_t bits = (uint64_t)(ex - emin) * (1ull << f.m) + (uint64_t)r;
    return (uint16_t)(sign | (bits >= inf ? inf : bits));
}

/* The value of 16 bits of format f (exact). */
static double half_value(half_fmt f, uint16_t b)
{
    int bias = (1 << (f.e - 1)) - 1;
    uint32_t ex = (uint32_t)(b & 0x7fffu) >> f.m, fr = b & ((1u << f.m) - 1u);
    double v;
    if (ex == (1u << f.e) - 1u)
        v = fr ? NAN : INFINITY;
    else if (ex == 0)
        v = ldexp((double)fr, 1 - bias - f.m);
    else
        v = ldexp((double)(fr | (1u << f.m)), (int)ex - bias - f.m);
    return b & 0x8000u ? -v : v;
}

/* The largest finite value of format f: exponent one below infinity's, fraction all ones. */
static double half_max(half_fmt f)
{
    return half_value(f, (uint16_t)(((1u << f.e) - 2u) << f.m | ((1u << f.m) - 1u)));
}

/* The largest value of format f below the one of bits b (b not NaN, not -infinity). */
static uint16_t half_below(uint16_t b)
{
    if ((b & 0x7fffu) == 0) /* +0 or -0: the smallest negative subnormal */
        return 0x8001u;
    return b & 0x8000u ? (uint16_t)(b + 1u) : (uint16_t)(b - 1u);
}

double argspec_load_float(argspec_type t, const void *p)
{
    const uint8_t *q = (const uint8_t *)p;
    if (is_half(t))
        return half_value(half_of(t), (uint16_t)(q[0] | q[1] << 8));
    if (t == ARGSPEC_F32) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    if (t == ARGSPEC_F64) {
        double g;
        memcpy(&g, p, 8);
        return g;
    }
    return 0.0;
}

int argspec_type_is_signed(argspec_type t)
{
    return t == ARGSPEC_S8 || t == ARGSPEC_S16 || t == ARGSPEC_S32 || t == ARGSPEC_S64;
}

uint64_t argspec_bytes(const argspec *a)
{
    return a->count * argspec_elem_size(a->type);
}

/* ---- errors ------------------------------------------------------------------ */

/* Every message starts with the spec as given (shortened if long), so a command
 * line with several --arg options says which one is wrong. */
typedef struct {
    const char *spec;
    diag_t *d;
} ctx;

static wl_status bad(const ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static wl_status bad(const ctx *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t len = strlen(c->spec);
    return diag_set(c->d, WL_EUSAGE, NULL, 0, 0, "--arg '%.*s%s': %s", 60, c->spec,
                    len > 60 ? "..." : "", msg);
}

/* A slice of the spec, copied NUL-terminated for messages and strtod. */
typedef struct {
    char s[MAX_TOKEN + 1];
    int too_long;
} token;

static void tok_copy(token *t, const char *p, size_t n)
{
    t->too_long = n > MAX_TOKEN;
    if (n > MAX_TOKEN)
        n = MAX_TOKEN;
    memcpy(t->s, p, n);
    t->s[n] = '\0';
}

/* ---- numbers ----------------------------------------------------------------- */

/* Unsigned decimal or 0x hex, digits only, no sign or spaces. Returns 0 on
 * success, 1 on bad syntax, 2 on overflow of 64 bits. */
static int parse_u64(const char *s, uint64_t *out)
{
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!*s)
        return 1;
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned dgt;
        if (*s >= '0' && *s <= '9')
            dgt = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            dgt = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            dgt = (unsigned)(*s - 'A' + 10);
        else
            return 1;
        if (v > (UINT64_MAX - dgt) / base)
            return 2;
        v = v * base + dgt;
    }
    *out = v;
    return 0;
}

static void int_limits(argspec_type t, int64_t *smin, int64_t *smax, uint64_t *umax)
{
    unsigned bits = (unsigned)argspec_elem_size(t) * 8u;
    *umax = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    *smax = (int64_t)(*umax >> 1);
    *smin = -*smax - 1;
}

/* Parses one value of type t from tok into *v. what names it in messages
 * ("value", "LO", ...). */
static wl_status parse_value(const ctx *c, argspec_type t, const token *tok, const char *what,
                             argspec_value *v)
{
    const char *tn = argspec_type_name(t);
    if (tok->too_long)
        return bad(c, "%s %s '%.20s...' is too long", tn, what, tok->s);
    if (!tok->s[0])
        return bad(c, "missing %s %s", tn, what);
    if (argspec_type_is_float(t)) {
        const char *s = tok->s;
        if (!(s[0] == '-' || s[0] == '+' || s[0] == '.' || (s[0] >= '0' && s[0] <= '9') ||
              s[0] == 'i' || s[0] == 'I' || s[0] == 'n' || s[0] == 'N'))
            return bad(c, "bad %s %s '%s' (expected a decimal number, inf or nan)", tn, what, s);
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (end == s || *end)
            return bad(c, "bad %s %s '%s' (expected a decimal number, inf or nan)", tn, what, s);
        double max = t == ARGSPEC_F32 ? (double)FLT_MAX
                     : is_half(t)     ? half_max(half_of(t))
                                      : INFINITY;
        if ((errno == ERANGE && isinf(x)) || (isfinite(x) && fabs(x) > max))
            return bad(c, "%s %s '%s' is out of range", tn, what, s);
        v->f = t == ARGSPEC_F32 ? (double)(float)x
               : is_half(t)     ? half_value(half_of(t), half_bits(half_of(t), x))
                                : x;
        return WL_OK;
    }
    int64_t smin, smax;
    uint64_t umax, mag;
    int_limits(t, &smin, &smax, &umax);
    const char *s = tok->s;
    int neg = s[0] == '-';
    if (s[0] == '-' || s[0] == '+')
        s++;
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    int rc = parse_u64(s, &mag);
    if (rc == 1)
        return bad(c, "bad %s %s '%s' (expected a decimal or 0x hex integer)", tn, what, tok->s);
    if (!argspec_type_is_signed(t)) {
        if (rc == 2 || neg || mag > umax)
            return bad(c, "%s %s '%s' is out of range 0..%" PRIu64, tn, what, tok->s, umax);
        v->u = mag;
        return WL_OK;
    }
    /* Signed: a decimal must fit [smin, smax]; an unsigned hex is also accepted
     * as a bit pattern up to the width's unsigned maximum (s8:0xff = -1). */
    if (rc == 0 && !neg && hex && mag <= umax) {
        uint64_t sign = (umax >> 1) + 1;
        v->s = (mag & sign) ? (int64_t)(mag - sign) + smin : (int64_t)mag;
        return WL_OK;
    }
    if (rc == 2 || (!neg && mag > (uint64_t)smax) || (neg && mag > (uint64_t)smax + 1))
        return bad(c, "%s %s '%s' is out of range %" PRId64 "..%" PRId64, tn, what, tok->s, smin,
                   smax);
    v->s = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return WL_OK;
}

static wl_status parse_unsigned(const ctx *c, const token *tok, const char *what, uint64_t *v)
{
    if (tok->too_long)
        return bad(c, "%s '%.20s...' is too long", what, tok->s);
    int rc = parse_u64(tok->s, v);
    if (rc == 1)
        return bad(c, "bad %s '%s' (expected an unsigned decimal or 0x hex integer)", what,
                   tok->s);
    if (rc == 2)
        return bad(c, "%s '%s' does not fit in 64 bits", what, tok->s);
    return WL_OK;
}

/* ---- size limit ------------------------------------------------------------ */

static int env_max_bytes(uint64_t *out, const char **raw)
{
    const char *e = getenv(ARGSPEC_MAX_BYTES_ENV);
    *raw = e;
    *out = ARGSPEC_DEFAULT_MAX_BYTES;
    if (!e)
        return 0;
    uint64_t v;
    if (parse_u64(e, &v) != 0 || v == 0)
        return -1;
    *out = v;
    return 0;
}

uint64_t argspec_max_bytes(void)
{
    uint64_t v;
    const char *raw;
    return env_max_bytes(&v, &raw) == 0 ? v : ARGSPEC_DEFAULT_MAX_BYTES;
}

/* ---- INIT -------------------------------------------------------------------- */

#define INIT_FORMS "zeros, const(V), iota, random(LO,HI[,SEED]), random[(SEED)] or affine(A,C,M)"

/* Splits "name(a,b,c)" into up to 3 argument tokens. Returns the argument count,
 * 0 for a bare name, or -1 when the parentheses are malformed. */
static int split_args(const char *p, size_t n, token args[3])
{
    const char *open = (const char *)memchr(p, '(', n);
    if (!open)
        return 0;
    if (p[n - 1] != ')')
        return -1;
    const char *q = open + 1, *end = p + n - 1;
    int k = 0;
    for (;;) {
        const char *comma = q;
        while (comma < end && *comma != ',')
            comma++;
        if (k == 3 || memchr(q, '(', (size_t)(comma - q)) || memchr(q, ')', (size_t)(comma - q)))
            return -1;
        tok_copy(&args[k++], q, (size_t)(comma - q));
        if (comma == end)
            return k;
        q = comma + 1;
    }
}

static int name_is(const char *p, size_t n, const char *name)
{
    size_t ln = strlen(name);
    return n >= ln && memcmp(p, name, ln) == 0 && (n == ln || p[ln] == '(');
}

static wl_status parse_random(const ctx *c, argspec *a, const token *args, int nargs)
{
    a->init = ARGSPEC_INIT_RANDOM;
    a->seed = ARGSPEC_DEFAULT_SEED;
    if (nargs == 0)
        return WL_OK;
    if (nargs == 1)
        return parse_unsigned(c, &args[0], "random SEED", &a->seed);
    if (nargs != 2 && nargs != 3)
        return bad(c, "random takes (SEED) or (LO,HI[,SEED]), got %d arguments", nargs);
    a->has_range = 1;
    wl_status st = parse_value(c, a->type, &args[0], "LO", &a->lo);
    if (!st)
        st = parse_value(c, a->type, &args[1], "HI", &a->hi);
    if (!st && nargs == 3)
        st = parse_unsigned(c, &args[2], "random SEED", &a->seed);
    if (st)
        return st;
    if (argspec_type_is_float(a->type)) {
        if (!isfinite(a->lo.f) || !isfinite(a->hi.f) || !isfinite(a->hi.f - a->lo.f))
            return bad(c, "random(LO,HI) needs finite bounds with a finite difference");
        if (!(a->lo.f < a->hi.f))
            return bad(c, "random(LO,HI) needs LO < HI for floats (draws in [LO,HI)), got %s >= %s",
                       args[0].s, args[1].s);
    } else if (argspec_type_is_signed(a->type) ? a->lo.s > a->hi.s : a->lo.u > a->hi.u) {
        return bad(c, "random(LO,HI) needs LO <= HI, got %s > %s", args[0].s, args[1].s);
    }
    return WL_OK;
}

static wl_status parse_init(const ctx *c, argspec *a, const char *p, size_t n)
{
    token args[3];
    int nargs = n ? split_args(p, n, args) : 0;
    token all;
    tok_copy(&all, p, n);
    if (nargs < 0)
        return bad(c, "malformed INIT '%s' (expected " INIT_FORMS ")", all.s);
    if (n == 5 && memcmp(p, "zeros", 5) == 0) {
        a->init = ARGSPEC_INIT_ZEROS;
    } else if (n == 4 && memcmp(p, "iota", 4) == 0) {
        a->init = ARGSPEC_INIT_IOTA;
    } else if (name_is(p, n, "const") && nargs) {
        if (nargs != 1)
            return bad(c, "const takes one value, got %d", nargs);
        a->init = ARGSPEC_INIT_CONST;
        return parse_value(c, a->type, &args[0], "const value", &a->value);
    } else if (name_is(p, n, "random") && (n == 6 || nargs)) {
        return parse_random(c, a, args, nargs);
    } else if (name_is(p, n, "affine") && nargs) {
        if (nargs != 3)
            return bad(c, "affine takes (A,C,M), got %d arguments", nargs);
        a->init = ARGSPEC_INIT_AFFINE;
        wl_status st = parse_unsigned(c, &args[0], "affine A", &a->a);
        if (!st)
            st = parse_unsigned(c, &args[1], "affine C", &a->c);
        if (!st)
            st = parse_unsigned(c, &args[2], "affine M", &a->m);
        if (!st && a->m == 0)
            return bad(c, "affine M must be at least 1");
        return st;
    } else {
        return bad(c, "unknown INIT '%s' (expected " INIT_FORMS ")", all.s);
    }
    return WL_OK;
}

/* ---- the spec ------------------------------------------------------------------ */

wl_status argspec_parse(const char *spec, argspec *out, diag_t *d)
{
    ctx c;
    c.spec = spec ? spec : "";
    c.d = d;
    memset(out, 0, sizeof *out);
    out->count = 1;
    out->init = ARGSPEC_INIT_CONST;
    out->seed = ARGSPEC_DEFAULT_SEED;
    const char *colon = strchr(c.spec, ':');
    if (!c.spec[0] || !colon)
        return bad(&c, "expected TYPE:VALUE or TYPE[COUNT]:INIT");
    const char *lb = (const char *)memchr(c.spec, '[', (size_t)(colon - c.spec));
    size_t tlen = (size_t)((lb ? lb : colon) - c.spec);
    token tt;
    tok_copy(&tt, c.spec, tlen);
    unsigned ti = 0;
    while (ti < NTYPES && !(strlen(type_names[ti]) == tlen && memcmp(type_names[ti], c.spec, tlen) == 0))
        ti++;
    if (ti == NTYPES)
        return bad(&c, "unknown type '%s' (expected u8 s8 u16 s16 u32 s32 u64 s64 f32 f64)", tt.s);
    out->type = (argspec_type)ti;
    const char *val = colon + 1;
    size_t vlen = strlen(val);
    if (!lb) {
        token v;
        tok_copy(&v, val, vlen);
        return parse_value(&c, out->type, &v, "value", &out->value);
    }
    out->is_buffer = 1;
    if (colon[-1] != ']' || colon - 1 == lb + 1)
        return bad(&c, "expected TYPE[COUNT]:INIT with COUNT between the brackets");
    token ct;
    tok_copy(&ct, lb + 1, (size_t)(colon - 1 - (lb + 1)));
    if (strchr(ct.s, '[') || strchr(ct.s, ']'))
        return bad(&c, "expected TYPE[COUNT]:INIT with COUNT between the brackets");
    wl_status st = parse_unsigned(&c, &ct, "COUNT", &out->count);
    if (st)
        return st;
    if (out->count == 0)
        return bad(&c, "COUNT must be at least 1");
    uint64_t maxb;
    const char *raw;
    if (env_max_bytes(&maxb, &raw) != 0)
        return bad(&c, "%s='%.40s' is not a positive byte count", ARGSPEC_MAX_BYTES_ENV, raw);
    size_t es = argspec_elem_size(out->type);
    if (out->count > maxb / es)
        return bad(&c, "buffer of %" PRIu64 " x %zu bytes exceeds the limit of %" PRIu64
                       " bytes (set %s to raise it)",
                   out->count, es, maxb, ARGSPEC_MAX_BYTES_ENV);
    if (!vlen)
        return bad(&c, "missing INIT (expected " INIT_FORMS ")");
    return parse_init(&c, out, val, vlen);
}

/* ---- filling --------------------------------------------------------------- */

/* The i-th output of splitmix64 started at seed (Steele, Lea, Flood 2014). */
static uint64_t splitmix64_at(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * SPLITMIX_GAMMA;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* High 64 bits of the 128-bit product a*b, portably. */
static uint64_t mulhi64(uint64_t a, uint64_t b)
{
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t p0 = al * bl, p1 = al * bh, p2 = ah * bl, p3 = ah * bh;
    uint64_t mid = (p0 >> 32) + (p1 & 0xffffffffu) + (p2 & 0xffffffffu);
    return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}

static void put_le(uint8_t *p, uint64_t bits, size_t n)
{
    for (size_t k = 0; k < n; k++)
        p[k] = (uint8_t)(bits >> (8 * k));
}

/* Bit pattern of a float-typed value. */
static uint64_t float_bits(argspec_type t, double x)
{
    if (is_half(t))
        return half_bits(half_of(t), x);
    if (t == ARGSPEC_F32) {
        float f = (float)x;
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    uint64_t b;
    memcpy(&b, &x, 8);
    return b;
}

/* Bit pattern of element value v (of the spec's type). */
static uint64_t value_bits(argspec_type t, argspec_value v)
{
    return argspec_type_is_float(t) ? float_bits(t, v.f) : v.u;
}

/* An integer counter value converted to type t (iota, affine). */
static uint64_t count_bits(argspec_type t, uint64_t n)
{
    if (t == ARGSPEC_F32) {
        float f = (float)n; /* correctly rounded from the integer */
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    /* (16-bit floats through the double: exact below 2^53, far above their range) */
    return t == ARGSPEC_F64 || is_half(t) ? float_bits(t, (double)n) : n;
}

static uint64_t random_bits(const argspec *a, uint64_t i)
{
    uint64_t r = splitmix64_at(a->seed, i);
    if (!argspec_type_is_float(a->type)) {
        if (!a->has_range)
            return r;
        uint64_t span = a->hi.u - a->lo.u + 1; /* 0 means all 2^64 values */
        return span ? a->lo.u + mulhi64(r, span) : r;
    }
    double u = (double)(r >> 11) * (1.0 / 9007199254740992.0); /* [0,1) in 2^-53 steps */
    if (!a->has_range) {
        /* u in [1 - 2^-25, 1) rounds up to 1 as an f32, in [1 - 2^-12, 1) as an f16: the value
         * below 1 instead, so that the draw stays in [0, 1) */
        if (is_half(a->type) && half_value(half_of(a->type), half_bits(half_of(a->type), u)) >= 1.0)
            return half_below(half_bits(half_of(a->type), 1.0));
        if (a->type == ARGSPEC_F32 && (float)u >= 1.0f)
            return float_bits(a->type, (double)nextafterf(1.0f, 0.0f));
        return float_bits(a->type, u);
    }
    double x = a->lo.f + (a->hi.f - a->lo.f) * u;
    if (a->type == ARGSPEC_F32) {
        float f = (float)x, hi = (float)a->hi.f;
        if (f >= hi)
            f = nextafterf(hi, -INFINITY);
        return float_bits(a->type, (double)f);
    }
    if (is_half(a->type)) {
        half_fmt f = half_of(a->type);
        uint16_t b = half_bits(f, x), hi = half_bits(f, a->hi.f);
        return half_value(f, b) >= a->hi.f ? half_below(hi) : b;
    }
    if (x >= a->hi.f)
        x = nextafter(a->hi.f, -INFINITY);
    return float_bits(a->type, x);
}

/* The two commonest fillings, f32 and 32-bit integers drawn from a range, with random_bits'
 * arithmetic hoisted out of the loop and 4-byte stores (the host is little-endian, as
 * cmd_run assumes): the same bytes (checked against the loop below on every range form),
 * in half the time (co_stride32's 64 M-word input: 0.32 -> 0.16 s of host time; it was 0.4 s
 * of a 5 s run). 0 when the spec is another form. */
static int fill_random32(const argspec *a, uint8_t *p, uint64_t n)
{
    if (a->init != ARGSPEC_INIT_RANDOM || !a->has_range)
        return 0;
    if (a->type == ARGSPEC_F32) {
        const double lo = a->lo.f, span = a->hi.f - a->lo.f;
        const float hi = (float)a->hi.f, below = nextafterf(hi, -INFINITY);
        for (uint64_t i = 0; i < n; i++) {
            double u = (double)(splitmix64_at(a->seed, i) >> 11) * (1.0 / 9007199254740992.0);
            float f = (float)(lo + span * u);
            f = f >= hi ? below : f;
            memcpy(p + 4 * i, &f, 4);
        }
        return 1;
    }
    if (a->type == ARGSPEC_U32 || a->type == ARGSPEC_S32) {
        const uint64_t lo = a->lo.u, span = a->hi.u - a->lo.u + 1; /* never 0 for 32 bits */
        for (uint64_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)(lo + mulhi64(splitmix64_at(a->seed, i), span));
            memcpy(p + 4 * i, &v, 4);
        }
        return 1;
    }
    return 0;
}

wl_status argspec_fill(const argspec *a, void *dst, diag_t *d)
{
    if (!a || !dst || (unsigned)a->type >= NTYPES || a->count == 0)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "argspec_fill: invalid argument");
    uint8_t *p = (uint8_t *)dst;
    size_t es = argspec_elem_size(a->type);
    uint64_t n = a->count;
    if (!a->is_buffer || a->init == ARGSPEC_INIT_CONST || a->init == ARGSPEC_INIT_ZEROS) {
        if (a->is_buffer && a->init == ARGSPEC_INIT_ZEROS) {
            memset(p, 0, (size_t)(n * es));
            return WL_OK;
        }
        /* One element, then doubling copies. */
        put_le(p, value_bits(a->type, a->value), es);
        uint64_t done = 1;
        while (done < n) {
            uint64_t k = done < n - done ? done : n - done;
            memcpy(p + done * es, p, (size_t)(k * es));
            done += k;
        }
        return WL_OK;
    }
    if (fill_random32(a, p, n))
        return WL_OK;
    for (uint64_t i = 0; i < n; i++, p += es) {
        uint64_t bits;
        if (a->init == ARGSPEC_INIT_IOTA)
            bits = count_bits(a->type, i);
        else if (a->init == ARGSPEC_INIT_AFFINE)
            bits = count_bits(a->type, (a->a * i + a->c) % a->m);
        else
            bits = random_bits(a, i);
        put_le(p, bits, es);
    }
    return WL_OK;
}

/* ---- description --------------------------------------------------------------- */

static int fmt_value(argspec_type t, argspec_value v, char *buf, size_t n)
{
    /* enough digits to read back the same value: 17 for f64, 9 for f32, 5 for f16, 4 for bf16 */
    if (argspec_type_is_float(t))
        return snprintf(buf, n, "%.*g",
                        t == ARGSPEC_F64   ? 17
                        : t == ARGSPEC_F32 ? 9
                        : t == ARGSPEC_F16 ? 5
                                           : 4,
                        v.f);
    if (argspec_type_is_signed(t))
        return snprintf(buf, n, "%" PRId64, v.s);
    return snprintf(buf, n, "%" PRIu64, v.u);
}

int argspec_format(const argspec *a, char *buf, size_t n)
{
    char v1[48], v2[48];
    const char *tn = argspec_type_name(a->type);
    if (!a->is_buffer) {
        fmt_value(a->type, a->value, v1, sizeof v1);
        return snprintf(buf, n, "%s:%s", tn, v1);
    }
    switch (a->init) {
    case ARGSPEC_INIT_ZEROS:
        return snprintf(buf, n, "%s[%" PRIu64 "]:zeros", tn, a->count);
    case ARGSPEC_INIT_IOTA:
        return snprintf(buf, n, "%s[%" PRIu64 "]:iota", tn, a->count);
    case ARGSPEC_INIT_CONST:
        fmt_value(a->type, a->value, v1, sizeof v1);
        return snprintf(buf, n, "%s[%" PRIu64 "]:const(%s)", tn, a->count, v1);
    case ARGSPEC_INIT_AFFINE:
        return snprintf(buf, n, "%s[%" PRIu64 "]:affine(%" PRIu64 ",%" PRIu64 ",%" PRIu64 ")", tn,
                        a->count, a->a, a->c, a->m);
    case ARGSPEC_INIT_RANDOM:
        if (!a->has_range)
            return snprintf(buf, n, "%s[%" PRIu64 "]:random(%" PRIu64 ")", tn, a->count, a->seed);
        fmt_value(a->type, a->lo, v1, sizeof v1);
        fmt_value(a->type, a->hi, v2, sizeof v2);
        return snprintf(buf, n, "%s[%" PRIu64 "]:random(%s,%s,%" PRIu64 ")", tn, a->count, v1, v2,
                        a->seed);
    }
    return snprintf(buf, n, "%s[%" PRIu64 "]:?", tn, a->count);
}
