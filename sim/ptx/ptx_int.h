/* ptx_int.h: internals shared by the front end's files (ptx_parse.c,
 * ptx_insn.c, ptx_ir.c, ptx_cfg.c). Not for use outside sim/ptx/. */
#ifndef WL_PTX_INT_H
#define WL_PTX_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "ptx_lex.h"

/* ---- arena: one per module, freed at once ---- */
typedef struct ptx_arena ptx_arena;
ptx_arena *parena_new(void);
void parena_free(ptx_arena *a);
/* Zeroed, 16-byte aligned; NULL when out of memory (or n absurdly large). */
void *parena_alloc(ptx_arena *a, size_t n);
/* Copies n bytes and appends a NUL. */
char *parena_strndup(ptx_arena *a, const char *s, size_t n);
void *parena_memdup(ptx_arena *a, const void *s, size_t n);

/* ---- growable vector used while parsing ---- */
typedef struct {
    void *p;
    size_t n, cap, esz;
} pvec;
void pvec_init(pvec *v, size_t esz);
void pvec_free(pvec *v);
/* Appends one zeroed element; NULL when out of memory. */
void *pvec_push(pvec *v);
#define PVEC_AT(v, T, i) (((T *)(v).p)[i])

/* ---- scoped symbol table ---- */
typedef enum {
    PSYM_REG,    /* index = register */
    PSYM_RANGE,  /* `%r<N>`: index = first register, count = N */
    PSYM_LOCAL,  /* func->locals */
    PSYM_PARAM,  /* func->params */
    PSYM_RET,    /* func->rets */
    PSYM_MODVAR, /* module->vars */
    PSYM_FUNC,   /* module->funcs */
    PSYM_LABEL   /* label table: index = label */
} psym_kind;

typedef struct {
    const char *name;
    uint32_t len;
    uint8_t kind;
    uint32_t depth;
    int32_t index;
    uint32_t count;
    int32_t next; /* chain in the bucket */
} psym;

typedef struct {
    psym *e;
    uint32_t n, cap;
    int32_t *bucket;
    uint32_t nbucket; /* power of two */
} psymtab;

int psym_init(psymtab *t, uint32_t nbucket);
void psym_free(psymtab *t);
/* Adds a symbol (name must outlive the table). Returns 0, -1 on OOM. */
int psym_add(psymtab *t, const char *name, size_t len, psym_kind k, uint32_t depth,
             int32_t index, uint32_t count);
/* Most recent symbol with this exact name, or NULL. */
const psym *psym_find(const psymtab *t, const char *name, size_t len);
/* Removes every symbol with depth > depth. */
void psym_pop(psymtab *t, uint32_t depth);

/* ---- the parser ---- */
#define PTX_MAX_NESTING_INT 64 /* == PTX_MAX_NESTING (ptx.h) */
typedef struct {
    const char *name;
    size_t len;
    uint32_t op;    /* operand index in ops */
    uint32_t line, col;
} plabel_ref;

typedef struct pparse {
    plex lx;
    plex_tok tok, peek;
    int have_peek;
    diag_t *d;
    const char *fname;

    ptx_module *m;
    ptx_arena *arena;
    pvec vars;   /* ptx_var */
    pvec funcs;  /* ptx_func */
    pvec files;  /* const char * */
    psymtab syms;

    /* the function being parsed */
    ptx_func *cur;   /* NULL at module scope */
    uint32_t depth;
    pvec regs, locals, insns, ops, labels, params, rets, lrefs;
    psymtab labsyms;
    uint32_t loc_file, loc_line, loc_col;
    uint32_t src_file, src_line, src_col; /* outermost (see ptx_insn.src_*) */
    /* every .loc of the current function -> its outermost location (open
     * addressing on (file, line, col)), to follow inlined_at chains */
    struct ploc {
        uint32_t f, l, c, of, ol, oc;
        uint8_t used;
    } *locs;
    uint32_t nlocs, loccap;
    uint64_t local_off, callparam_off, callparam_max;
    uint64_t scope_callparam[PTX_MAX_NESTING_INT]; /* callparam_off at each '{' */
    uint64_t module_regs; /* registers declared in all functions so far */
    int pragma_nounroll;  /* a `.pragma "nounroll";` waits for the next instruction */
    plex_tok unsup;       /* the function's first unsupported instruction (len 0: none) */
} pparse;

/* Error at a token's position; returns the status. */
wl_status perr(pparse *p, const plex_tok *t, wl_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
wl_status pnext(pparse *p);            /* advance; lexical errors become diags */
const plex_tok *ppeek(pparse *p);      /* one-token lookahead */
wl_status pexpect(pparse *p, char c);  /* current token must be c; advance */

#define TRY(x)               \
    do {                     \
        wl_status st_ = (x); \
        if (st_ != WL_OK)    \
            return st_;      \
    } while (0)

wl_status punexpected(pparse *p, const char *what); /* "expected WHAT, found X" */
wl_status poom(pparse *p);
const char *ptokdesc(const plex_tok *t, char *buf, size_t n);

/* Declarations (ptx_parse.c). */
int ptype_from_word(const char *s, size_t n);   /* ".u32" -> PTX_T_U32, 0 if none */
int pspace_from_word(const plex_tok *t);         /* ".global" -> PTX_SPACE_GLOBAL, 0 */
int pis_ident(const plex_tok *t);
uint64_t palign_up(uint64_t v, uint64_t a);
wl_status pdecl_var(pparse *p, ptx_var *v, int space, int allow_init, const char **name,
                    size_t *nlen);
wl_status pdecl_check_redecl(pparse *p, const char *name, size_t n, uint32_t line, uint32_t col);
wl_status pdecl_reg(pparse *p);
wl_status pdecl_modvar(pparse *p, int space, int linkage);
wl_status pdecl_local(pparse *p, int space);
wl_status pdecl_loc(pparse *p);
wl_status pdecl_pragma(pparse *p);
wl_status pdecl_skip_section(pparse *p);

/* Numbers. Returns 0 or -1 (not a number / overflow). */
int pnum_int(const char *s, size_t len, uint64_t *out);
/* 0f/0d bit patterns and decimal floats: *is_double set for 0d and decimals. */
int pnum_float(const char *s, size_t len, uint64_t *bits, int *is_double);

/* Parses one instruction (with guard) at the current token, appends it. */
wl_status pinsn_parse(pparse *p);
/* Resolves label operands and bra targets of the current function. */
wl_status pinsn_resolve_labels(pparse *p);

/* CFG + immediate post-dominators of a finished function (blocks into arena). */
wl_status pcfg_build(ptx_func *f, ptx_arena *a, diag_t *d, const char *fname);
/* Shared-memory layout of every entry (after all functions are parsed). */
wl_status pcfg_layout_smem(ptx_module *m, ptx_arena *a, diag_t *d, const char *fname);

#endif
