/* kname: a mangled kernel's C++ name; see kname.h.
 *
 * The Itanium C++ ABI mangles a function as _Z <name> <parameter types>, the name being
 *   <source-name>                     = <decimal length> <identifier>      (3add)
 *   N <source-name>... [template args] E                                  (N2ns5scaleE)
 * optionally followed by template arguments I ... E (4fillIfE). We read the source names up to
 * the first character that is not part of one (skipping the template arguments of a nested
 * name's component): the rest (parameter types, substitutions) is not needed to name the
 * function. CV-qualifiers of a member function's
 * nested name (NK...) are skipped. */
#include "kname.h"

#include <string.h>

/* Reads one <source-name> at *p into out (appending after "::" when out is not empty); 0 when
 * *p does not start one or it does not fit. */
static int source_name(const char **p, char *out, size_t n, size_t *len)
{
    const char *s = *p;
    if (*s < '1' || *s > '9')
        return 0;
    size_t k = 0;
    while (*s >= '0' && *s <= '9') {
        k = k * 10 + (size_t)(*s - '0');
        if (k > 4096)
            return 0;
        s++;
    }
    if (strlen(s) < k)
        return 0;
    size_t need = (*len ? 2 : 0) + k;
    if (*len + need + 1 > n)
        return 0;
    if (*len) {
        out[(*len)++] = ':';
        out[(*len)++] = ':';
    }
    memcpy(out + *len, s, k);
    *len += k;
    out[*len] = '\0';
    *p = s + k;
    return 1;
}

/* Skips template arguments I ... E at *p (the 'I' included): the constructs that open a run
 * closed by 'E' (I, N, X, J) nest, a literal (L ... E) is skipped to its E, and a source name
 * whole (its identifier may hold any letter). 0 when the symbol ends first. */
static int skip_template_args(const char **p)
{
    const char *s = *p + 1;
    int depth = 1;
    while (depth > 0) {
        char c = *s;
        if (!c)
            return 0;
        if (c >= '1' && c <= '9') {
            size_t k = 0;
            while (*s >= '0' && *s <= '9' && k <= 4096)
                k = k * 10 + (size_t)(*s++ - '0');
            if (k > 4096 || strlen(s) < k)
                return 0;
            s += k;
            continue;
        }
        if (c == 'L') { /* a literal, L <type> <value> E: its digits are a value */
            const char *e = strchr(s, 'E');
            if (!e)
                return 0;
            s = e + 1;
            continue;
        }
        depth += c == 'I' || c == 'N' || c == 'X' || c == 'J';
        depth -= c == 'E';
        s++;
    }
    *p = s;
    return 1;
}

int kname_base(const char *sym, char *out, size_t n)
{
    if (!n)
        return 0;
    out[0] = '\0';
    if (!sym || strncmp(sym, "_Z", 2) != 0)
        return 0;
    const char *p = sym + 2;
    size_t len = 0;
    if (*p == 'N') {
        p++;
        while (*p == 'K' || *p == 'V' || *p == 'r') /* CV-qualifiers of a member function */
            p++;
        /* the components, a template's arguments after its name skipped (ns::impl<int>::run
         * is N 2ns 4impl IiE 3run E) */
        int got = 0;
        while (source_name(&p, out, n, &len)) {
            got = 1;
            if (*p == 'I' && !skip_template_args(&p))
                break;
        }
        if (!got)
            out[0] = '\0';
        return got;
    }
    if (!source_name(&p, out, n, &len)) {
        out[0] = '\0';
        return 0;
    }
    return 1;
}

int kname_matches(const char *sym, const char *name)
{
    if (!sym || !name)
        return 0;
    if (strcmp(sym, name) == 0)
        return 1;
    char base[512];
    if (!kname_base(sym, base, sizeof base))
        return 0;
    if (strcmp(base, name) == 0)
        return 1;
    const char *last = base;
    for (const char *q = strstr(base, "::"); q; q = strstr(q + 2, "::"))
        last = q + 2;
    return last != base && strcmp(last, name) == 0;
}
