/* ptx_ir.c: the module arena, parser containers (vectors, scoped symbol
 * table), IR lookups, enum names and opcode-table queries. */
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "ptx_int.h"

/* The IR stays compact: the executor walks these arrays in its hot loop. */
_Static_assert(sizeof(ptx_operand) == 32, "ptx_operand is 32 bytes");
_Static_assert(sizeof(ptx_insn) == 64,
               "ptx_insn is 64 bytes (appending EXEC: fields is fine: update this check)");

/* ---------------- arena ---------------- */
/* A list of chunks; big requests get their own chunk. Everything a module
 * points to lives here, so freeing a module is freeing its chunks. */
typedef struct pchunk {
    struct pchunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
} pchunk;

struct ptx_arena {
    pchunk *head;
};

#define PARENA_CHUNK (256u * 1024u)
#define PARENA_MAX ((size_t)1 << 34) /* no single object beyond 16 GiB */

ptx_arena *parena_new(void)
{
    return calloc(1, sizeof(ptx_arena));
}

void parena_free(ptx_arena *a)
{
    if (!a)
        return;
    pchunk *c = a->head;
    while (c) {
        pchunk *n = c->next;
        free(c);
        c = n;
    }
    free(a);
}

void *parena_alloc(ptx_arena *a, size_t n)
{
    if (n > PARENA_MAX)
        return NULL;
    n = (n + 15u) & ~(size_t)15u;
    if (n == 0)
        n = 16;
    pchunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t sz = n > PARENA_CHUNK / 4 ? n : PARENA_CHUNK;
        pchunk *nc = malloc(sizeof(pchunk) + sz);
        if (!nc)
            return NULL;
        nc->size = sz;
        nc->used = 0;
        if (c && n > PARENA_CHUNK / 4) { /* big: keep the current chunk in front */
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
    }
    void *r = c->data + c->used;
    c->used += n;
    memset(r, 0, n);
    return r;
}

char *parena_strndup(ptx_arena *a, const char *s, size_t n)
{
    char *r = parena_alloc(a, n + 1);
    if (r) {
        memcpy(r, s, n);
        r[n] = '\0';
    }
    return r;
}

void *parena_memdup(ptx_arena *a, const void *s, size_t n)
{
    void *r = parena_alloc(a, n);
    if (r && n)
        memcpy(r, s, n);
    return r;
}

/* ---------------- vectors ---------------- */
void pvec_init(pvec *v, size_t esz)
{
    v->p = NULL;
    v->n = v->cap = 0;
    v->esz = esz;
}

void pvec_free(pvec *v)
{
    free(v->p);
    v->p = NULL;
    v->n = v->cap = 0;
}

void *pvec_push(pvec *v)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 16;
        if (nc > ((size_t)1 << 40) / v->esz)
            return NULL;
        void *np = realloc(v->p, nc * v->esz);
        if (!np)
            return NULL;
        v->p = np;
        v->cap = nc;
    }
    void *e = (unsigned char *)v->p + v->n * v->esz;
    memset(e, 0, v->esz);
    v->n++;
    return e;
}

/* ---------------- scoped symbol table ---------------- */
static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

int psym_init(psymtab *t, uint32_t nbucket)
{
    memset(t, 0, sizeof *t);
    t->nbucket = nbucket;
    t->bucket = malloc(nbucket * sizeof(int32_t));
    if (!t->bucket)
        return -1;
    for (uint32_t i = 0; i < nbucket; i++)
        t->bucket[i] = -1;
    return 0;
}

void psym_free(psymtab *t)
{
    free(t->e);
    free(t->bucket);
    memset(t, 0, sizeof *t);
}

static int psym_rehash(psymtab *t, uint32_t nb)
{
    int32_t *b = malloc(nb * sizeof(int32_t));
    if (!b)
        return -1;
    for (uint32_t i = 0; i < nb; i++)
        b[i] = -1;
    /* re-chain in insertion order so newer symbols stay first */
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t h = hash_name(t->e[i].name, t->e[i].len) & (nb - 1);
        t->e[i].next = b[h];
        b[h] = (int32_t)i;
    }
    free(t->bucket);
    t->bucket = b;
    t->nbucket = nb;
    return 0;
}

int psym_add(psymtab *t, const char *name, size_t len, psym_kind k, uint32_t depth,
             int32_t index, uint32_t count)
{
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 64;
        if (nc > (1u << 28))
            return -1;
        psym *ne = realloc(t->e, nc * sizeof(psym));
        if (!ne)
            return -1;
        t->e = ne;
        t->cap = nc;
    }
    if (t->n >= t->nbucket && t->nbucket < (1u << 26) && psym_rehash(t, t->nbucket * 4) < 0)
        return -1;
    psym *s = &t->e[t->n];
    s->name = name;
    s->len = (uint32_t)len;
    s->kind = (uint8_t)k;
    s->depth = depth;
    s->index = index;
    s->count = count;
    uint32_t h = hash_name(name, len) & (t->nbucket - 1);
    s->next = t->bucket[h];
    t->bucket[h] = (int32_t)t->n;
    t->n++;
    return 0;
}

const psym *psym_find(const psymtab *t, const char *name, size_t len)
{
    uint32_t h = hash_name(name, len) & (t->nbucket - 1);
    for (int32_t i = t->bucket[h]; i >= 0; i = t->e[i].next)
        if (t->e[i].len == len && memcmp(t->e[i].name, name, len) == 0)
            return &t->e[i];
    return NULL;
}

void psym_pop(psymtab *t, uint32_t depth)
{
    while (t->n > 0 && t->e[t->n - 1].depth > depth) {
        psym *s = &t->e[t->n - 1];
        uint32_t h = hash_name(s->name, s->len) & (t->nbucket - 1);
        t->bucket[h] = s->next; /* the newest symbol heads its chain */
        t->n--;
    }
}

/* ---------------- module ---------------- */
void ptx_module_free(ptx_module *m)
{
    if (!m)
        return;
    ptx_arena *a = m->arena;
    parena_free(a); /* the module itself lives in its arena */
}

int ptx_find_func_index(const ptx_module *m, const char *name)
{
    if (!m || !name)
        return PTX_NONE;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (strcmp(m->funcs[i].name, name) == 0)
            return (int)i;
    return PTX_NONE;
}

const ptx_func *ptx_find_func(const ptx_module *m, const char *name)
{
    int i = ptx_find_func_index(m, name);
    return i < 0 ? NULL : &m->funcs[i];
}

wl_status ptx_check_supported(const ptx_module *m, const ptx_func *k, diag_t *d)
{
    if (k->unsup_insn)
        return diag_set(d, WL_EUNSUPPORTED, m->name, (int)k->unsup_line, (int)k->unsup_col,
                        "unsupported instruction '%s'", k->unsup_insn);
    /* the functions k reaches through calls, each once (an explicit stack: call chains of a
     * generated file can be long) */
    uint32_t n = m->nfuncs ? m->nfuncs : 1, *stack = malloc(n * sizeof *stack), top = 0;
    uint8_t *seen = calloc(n, 1);
    if (!stack || !seen) {
        free(stack);
        free(seen);
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    }
    const ptx_func *bad = NULL;
    uint32_t ki = (uint32_t)(k - m->funcs);
    seen[ki] = 1;
    stack[top++] = ki;
    while (top && !bad) {
        const ptx_func *f = &m->funcs[stack[--top]];
        if (f->unsup_insn) {
            bad = f;
            break;
        }
        for (uint32_t i = 0; i < f->ninsns; i++) {
            int32_t t = f->insns[i].target;
            if (f->insns[i].op == PTX_OP_CALL && t >= 0 && (uint32_t)t < m->nfuncs && !seen[t]) {
                seen[t] = 1;
                stack[top++] = (uint32_t)t;
            }
        }
    }
    free(stack);
    free(seen);
    if (!bad)
        return WL_OK;
    return diag_set(d, WL_EUNSUPPORTED, m->name, (int)bad->unsup_line, (int)bad->unsup_col,
                    "unsupported instruction '%s' (in %s, which kernel %s calls)", bad->unsup_insn,
                    bad->name, k->name);
}

/* ---------------- names ---------------- */
static const char *const type_names[PTX_T_COUNT] = {
    "", "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
    "s8", "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64",
};
static const unsigned char type_sizes[PTX_T_COUNT] = {
    0, 1, 1, 2, 4, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 2, 4, 4, 4, 8,
};

const char *ptx_type_name(ptx_type t)
{
    return (unsigned)t < PTX_T_COUNT ? type_names[t] : "?";
}

unsigned ptx_type_size(ptx_type t)
{
    return (unsigned)t < PTX_T_COUNT ? type_sizes[t] : 0;
}

static const char *const space_names[PTX_SPACE_COUNT] = {
    "", "reg", "sreg", "const", "global", "local", "param", "shared", "shared::cluster", "tex",
};

const char *ptx_space_name(ptx_space s)
{
    return (unsigned)s < PTX_SPACE_COUNT ? space_names[s] : "?";
}

static const char *const sreg_names[PTX_SR_ENVREG0] = {
    "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z",
    "%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z",
    "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
    "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
    "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
    "%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size",
    "%clusterid.x", "%clusterid.y", "%clusterid.z",
    "%nclusterid.x", "%nclusterid.y", "%nclusterid.z",
    "%cluster_ctaid.x", "%cluster_ctaid.y", "%cluster_ctaid.z",
    "%cluster_nctaid.x", "%cluster_nctaid.y", "%cluster_nctaid.z",
    "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster",
};

const char *ptx_sreg_name(ptx_sreg s)
{
    static const char *const env[32] = {
        "%envreg0", "%envreg1", "%envreg2", "%envreg3", "%envreg4", "%envreg5", "%envreg6",
        "%envreg7", "%envreg8", "%envreg9", "%envreg10", "%envreg11", "%envreg12",
        "%envreg13", "%envreg14", "%envreg15", "%envreg16", "%envreg17", "%envreg18",
        "%envreg19", "%envreg20", "%envreg21", "%envreg22", "%envreg23", "%envreg24",
        "%envreg25", "%envreg26", "%envreg27", "%envreg28", "%envreg29", "%envreg30",
        "%envreg31",
    };
    if ((unsigned)s < PTX_SR_ENVREG0)
        return sreg_names[s];
    if ((unsigned)s < PTX_SR_COUNT)
        return env[s - PTX_SR_ENVREG0];
    return "?";
}

/* ---------------- opcode table ---------------- */
typedef struct {
    const char *name;
    uint8_t unit, lat, ndst, nsmin, nsmax;
} isa_row;

static const isa_row isa_rows[PTX_OP_COUNT] = {
#define X(en, nm, un, la, nd, smin, smax) \
    {nm, PTX_UNIT_##un, PTX_LAT_##la, nd, smin, smax},
#include "isa.def"
#undef X
};

const char *isa_name(int op)
{
    return op >= 0 && op < PTX_OP_COUNT ? isa_rows[op].name : "?";
}

ptx_unit isa_unit_class(int op)
{
    return op >= 0 && op < PTX_OP_COUNT ? (ptx_unit)isa_rows[op].unit : PTX_UNIT_CTRL;
}

void isa_shape(int op, unsigned *ndst, unsigned *nsmin, unsigned *nsmax)
{
    const isa_row *r = &isa_rows[op >= 0 && op < PTX_OP_COUNT ? op : 0];
    *ndst = r->ndst;
    *nsmin = r->nsmin;
    *nsmax = r->nsmax;
}

static int is_float_type(unsigned t)
{
    return t == PTX_T_F16 || t == PTX_T_F16X2 || t == PTX_T_BF16 || t == PTX_T_BF16X2 ||
           t == PTX_T_TF32 || t == PTX_T_F32 || t == PTX_T_F64;
}

ptx_unit isa_unit(const ptx_insn *in)
{
    ptx_unit u = isa_unit_class(in->op);
    unsigned t = in->type[0];
    if (in->op == PTX_OP_SETP || in->op == PTX_OP_SET)
        t = in->op == PTX_OP_SET ? in->type[1] : in->type[0];
    if (u == PTX_UNIT_ARITH) {
        if (t == PTX_T_F64)
            return PTX_UNIT_FP64;
        if (is_float_type(t)) {
            /* div/sqrt-like float ops without .approx are multi-instruction
             * sequences on hardware; we charge them to the SFU. */
            if (in->op == PTX_OP_DIV)
                return PTX_UNIT_SFU;
            return PTX_UNIT_FMA;
        }
        /* integer: multiplies run on the IMAD (FMA) pipe, the rest on the ALU */
        if (in->op == PTX_OP_MUL || in->op == PTX_OP_MAD)
            return PTX_UNIT_FMA;
        if (in->op == PTX_OP_DIV)
            return PTX_UNIT_SFU;
        return PTX_UNIT_ALU;
    }
    /* integer-to-integer cvt (sign/zero extension, truncation) is ALU work or nothing in SASS
     * (SHF.R.S32.HI, LOP3, PRMT), not a conversion on the XU/MUFU path */
    if (in->op == PTX_OP_CVT && ptx_type_is_int(in->type[0]) && ptx_type_is_int(in->type[1]))
        return PTX_UNIT_ALU;
    if (u == PTX_UNIT_SFU && t == PTX_T_F64 && in->op != PTX_OP_CVT)
        return PTX_UNIT_FP64; /* rcp/sqrt .f64 use the DFMA pipe (MUFU.RCP64H + DFMA) */
    if ((u == PTX_UNIT_LSU || u == PTX_UNIT_ATOM) && in->space == PTX_SPACE_SHARED &&
        in->op != PTX_OP_CP_ASYNC)
        return u == PTX_UNIT_ATOM ? PTX_UNIT_ATOM : PTX_UNIT_SHMEM;
    return u;
}

ptx_latclass isa_latclass(const ptx_insn *in)
{
    ptx_latclass c = (ptx_latclass)isa_rows[in->op < PTX_OP_COUNT ? in->op : 0].lat;
    ptx_unit u = isa_unit(in);
    if (c == PTX_LAT_MEM && in->space == PTX_SPACE_SHARED)
        return PTX_LAT_SHMEM;
    if (c == PTX_LAT_ALU || c == PTX_LAT_FMA) {
        if (u == PTX_UNIT_FP64)
            return PTX_LAT_FP64;
        if (u == PTX_UNIT_FMA)
            return PTX_LAT_FMA;
    }
    if (c == PTX_LAT_SFU && u == PTX_UNIT_FP64)
        return PTX_LAT_FP64;
    return c;
}

const char *isa_unit_name(ptx_unit u)
{
    static const char *const n[PTX_UNIT_COUNT] = {
        "ALU", "FMA", "FP64", "SFU", "LSU", "SHMEM", "BRANCH", "BARRIER", "SHFL", "ATOM",
        "TENSOR", "CTRL", "ARITH",
    };
    return (unsigned)u < PTX_UNIT_COUNT ? n[u] : "?";
}

const char *isa_latclass_name(ptx_latclass c)
{
    static const char *const n[PTX_LAT_COUNT] = {
        "ALU", "FMA", "FP64", "SFU", "CONV", "MEM", "SHMEM", "SHFL", "ATOM", "BRANCH", "BAR", "NONE",
    };
    return (unsigned)c < PTX_LAT_COUNT ? n[c] : "?";
}
