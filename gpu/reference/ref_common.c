/* reference: the table of CPU references and the checks shared by all of them. */
#include "reference.h"

#include <inttypes.h>
#include <string.h>

static const ref_entry ref_entries[] = {
#define REF_ENTRY(name, params) {#name, params, ref_##name},
    REF_KERNELS(REF_ENTRY)
#undef REF_ENTRY
};

const ref_entry *ref_table(int *n)
{
    *n = (int)(sizeof ref_entries / sizeof ref_entries[0]);
    return ref_entries;
}

const ref_entry *ref_lookup(const char *kernel)
{
    int n;
    const ref_entry *t = ref_table(&n);
    for (int i = 0; i < n; ++i)
        if (strcmp(t[i].kernel, kernel) == 0)
            return &t[i];
    return NULL;
}

static int ref_kind_ok(char kind, const argspec *s)
{
    switch (kind) {
    case 'F': return s->is_buffer && s->type == ARGSPEC_F32;
    case 'D': return s->is_buffer && s->type == ARGSPEC_F64;
    case 'U': return s->is_buffer && (s->type == ARGSPEC_U32 || s->type == ARGSPEC_S32);
    case 'i': return !s->is_buffer && argspec_elem_size(s->type) == 4 &&
                     !argspec_type_is_float(s->type);
    default: return 0;
    }
}

wl_status ref_run(const cases_case *c, cases_arg *a, diag_t *d)
{
    const ref_entry *e = ref_lookup(c->kernel);
    if (!e)
        return diag_set(d, WL_EUSAGE, NULL, c->line, 0, "case %s: no CPU reference for kernel %s",
                        c->name, c->kernel);
    int np = (int)strlen(e->params);
    if (c->nargs != np)
        return diag_set(d, WL_EUSAGE, NULL, c->line, 0,
                        "case %s: kernel %s takes %d arguments, the case gives %d", c->name,
                        c->kernel, np, c->nargs);
    for (int i = 0; i < np; ++i)
        if (!ref_kind_ok(e->params[i], &c->args[i]))
            return diag_set(d, WL_EUSAGE, NULL, c->line, 0,
                            "case %s: argument %d of %s must be %s", c->name, i, c->kernel,
                            e->params[i] == 'F'   ? "an f32 buffer"
                            : e->params[i] == 'D' ? "an f64 buffer"
                            : e->params[i] == 'U' ? "a u32/s32 buffer"
                                                  : "a 32-bit integer scalar");
    return e->fn(c, a, d);
}

uint64_t ref_threads_1d(const cases_case *c)
{
    return (uint64_t)c->grid[0] * c->block[0];
}

wl_status ref_need(const cases_case *c, const cases_arg *a, int i, uint64_t count, diag_t *d)
{
    if (a[i].count >= count)
        return WL_OK;
    return diag_set(d, WL_EUSAGE, NULL, c->line, 0,
                    "case %s: buffer argument %d has %" PRIu64 " elements, %s needs %" PRIu64,
                    c->name, i, a[i].count, c->kernel, count);
}

int32_t ref_i32(const cases_arg *a, int i)
{
    int32_t v;
    memcpy(&v, a[i].p, 4);
    return v;
}

wl_status ref_fail(const cases_case *c, diag_t *d, const char *what)
{
    return diag_set(d, WL_EUSAGE, NULL, c->line, 0, "case %s: %s %s", c->name, c->kernel, what);
}
