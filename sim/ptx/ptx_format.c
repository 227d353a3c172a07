/* ptx_format.c: prints an IR instruction back as PTX text, from the decoded
 * fields (not from saved source text), so parse -> format -> parse is a
 * round trip. Used by the viewer, error messages and the tests. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ptx.h"

typedef struct {
    char *buf;
    size_t size, len; /* len: what would have been written */
} fmtbuf;

static void put(fmtbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(fmtbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->len < b->size ? b->size - b->len : 0;
    int n = vsnprintf(room ? b->buf + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
}

static const char *const cmp_names[PTX_CMP_COUNT] = {
    "", "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
    "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
};
static const char *const bool_names[] = {"", "and", "or", "xor"};
static const char *const round_names[PTX_RND_COUNT] = {
    "", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna",
};
static const char *const mul_names[] = {"", "lo", "hi", "wide"};
static const char *const cache_names[PTX_CACHE_COUNT] = {"", "ca", "cg", "cs", "lu", "cv", "wb", "wt"};
static const char *const aop_names[PTX_AOP_COUNT] = {
    "", "add", "inc", "dec", "min", "max", "exch", "cas", "and", "or", "xor", "popc",
};
static const char *const sem_names[] = {"", "weak", "volatile", "relaxed", "acquire", "release",
                                        "acq_rel", "sc", "mmio"};
static const char *const scope_names[] = {"", "cta", "cluster", "gpu", "sys"};
/* flag bit -> modifier name (bits printed elsewhere or never are NULL) */
static const char *const flag_names[32] = {
    "ftz", "sat", "approx", "full", NULL /* uni */, "aligned", "sync", "nc", "cc", NULL,
    "wrap", "clamp", NULL /* to */, "relu", "NaN", "xorsign", "abs", "shiftamt", "noinc",
    "expect_tx", NULL, NULL, NULL, NULL, "oob", "L2::cache_hint",
};

static const char *mode_name(const ptx_insn *in)
{
    static const char *const shfl[] = {"", "up", "down", "bfly", "idx"};
    static const char *const vote[] = {"", "all", "any", "uni", "ballot"};
    static const char *const match[] = {"", "any", "all"};
    static const char *const bar[] = {"", "sync", "arrive", "red"};
    static const char *const testp[] = {"", "finite", "infinite", "number", "notanumber",
                                        "normal", "subnormal"};
    static const char *const prmt[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
    static const char *const shf[] = {"", "l", "r"};
    static const char *const cpa[] = {"", "ca", "cg"};
    static const char *const gdc[] = {"", "launch_dependents", "wait"};
    unsigned m = in->mode;
#define PICK(a) (m < sizeof a / sizeof a[0] ? a[m] : "")
    switch (in->op) {
    case PTX_OP_SHFL: return PICK(shfl);
    case PTX_OP_VOTE: return PICK(vote);
    case PTX_OP_MATCH: return PICK(match);
    case PTX_OP_BAR: return PICK(bar);
    case PTX_OP_TESTP: return PICK(testp);
    case PTX_OP_PRMT: return PICK(prmt);
    case PTX_OP_SHF: return PICK(shf);
    case PTX_OP_CP_ASYNC: return PICK(cpa);
    case PTX_OP_GRIDDEPCONTROL: return PICK(gdc);
    case PTX_OP_MBAR_TRY_WAIT: case PTX_OP_MBAR_TEST_WAIT: return m ? "parity" : "";
    default: return "";
    }
#undef PICK
}

static void mod(fmtbuf *b, const char *s)
{
    if (s && *s)
        put(b, ".%s", s);
}

static void reg_name(fmtbuf *b, const ptx_func *f, int32_t r)
{
    if (r < 0 || (uint32_t)r >= f->nregs) {
        put(b, "_");
        return;
    }
    if (f->regs[r].num >= 0)
        put(b, "%s%d", f->regs[r].name, f->regs[r].num);
    else
        put(b, "%s", f->regs[r].name);
}

static const char *sym_name(const ptx_module *m, const ptx_func *f, const ptx_operand *o)
{
    uint32_t s = (uint32_t)o->sym;
    switch (o->symkind) {
    case PTX_SYM_MODVAR: return s < m->nvars ? m->vars[s].name : "?";
    case PTX_SYM_PARAM: return s < f->nparams ? f->params[s].name : "?";
    case PTX_SYM_RET: return s < f->nrets ? f->rets[s].name : "?";
    case PTX_SYM_LOCAL: return s < f->nlocals ? f->locals[s].name : "?";
    case PTX_SYM_FUNC: return s < m->nfuncs ? m->funcs[s].name : "?";
    default: return "?";
    }
}

static void operand(fmtbuf *b, const ptx_module *m, const ptx_func *f, const ptx_operand *o)
{
    switch (o->kind) {
    case PTX_OPND_REG:
        if (o->neg)
            put(b, "!");
        reg_name(b, f, o->reg);
        break;
    case PTX_OPND_IMM:
        if ((int64_t)o->imm < 0)
            put(b, "%" PRId64, (int64_t)o->imm);
        else
            put(b, "%" PRIu64, o->imm);
        break;
    case PTX_OPND_FIMM:
        if (ptx_type_size((ptx_type)o->type) == 8)
            put(b, "0d%016" PRIX64, o->imm);
        else
            put(b, "0f%08" PRIX32, (uint32_t)o->imm);
        break;
    case PTX_OPND_SREG: put(b, "%s", ptx_sreg_name((ptx_sreg)o->sreg)); break;
    case PTX_OPND_ADDR:
        put(b, "[");
        if (o->reg >= 0)
            reg_name(b, f, o->reg);
        else if (o->sym >= 0)
            put(b, "%s", sym_name(m, f, o));
        if (o->reg < 0 && o->sym < 0)
            put(b, "%" PRId64, o->off);
        else if (o->off)
            put(b, "%+" PRId64, o->off);
        put(b, "]");
        break;
    case PTX_OPND_SYM: put(b, "%s", sym_name(m, f, o)); break;
    case PTX_OPND_VEC:
        put(b, "{");
        for (unsigned i = 0; i < o->nvec && i < 4; i++) {
            if (i)
                put(b, ", ");
            reg_name(b, f, o->vec[i]);
        }
        put(b, "}");
        break;
    case PTX_OPND_PAIR:
        reg_name(b, f, o->vec[0]);
        put(b, "|");
        reg_name(b, f, o->vec[1]);
        break;
    case PTX_OPND_LABEL: {
        /* labels are stored in source order, so their insn indices are sorted */
        const char *nm = NULL;
        uint32_t lo = 0, hi = f->nlabels;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if ((int32_t)f->labels[mid].insn < o->sym)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < f->nlabels && (int32_t)f->labels[lo].insn == o->sym)
            nm = f->labels[lo].name;
        if (nm)
            put(b, "%s", nm);
        else
            put(b, "$L__insn%d", o->sym);
        break;
    }
    default: put(b, "?"); break;
    }
}

int ptx_insn_format(const ptx_module *m, const ptx_func *f, uint32_t i, char *buf, size_t size)
{
    fmtbuf b = {buf, size, 0};
    if (size)
        buf[0] = '\0';
    if (!m || !f || i >= f->ninsns)
        return 0;
    const ptx_insn *in = &f->insns[i];
    if (in->guard >= 0) {
        put(&b, "@%s", in->guard_neg ? "!" : "");
        reg_name(&b, f, in->guard);
        put(&b, " ");
    }
    if (in->op == PTX_OP_BAR && !(in->flags & PTX_F_ALIGNED))
        put(&b, "barrier");
    else
        put(&b, "%s", isa_name(in->op));
    if (in->op == PTX_OP_WMMA_LOAD || in->op == PTX_OP_WMMA_STORE) {
        static const char frag[] = "abcd";
        put(&b, ".%c.sync.aligned.%s.m16n16k16", frag[in->mode & PTX_WMMA_FRAG],
            in->mode & PTX_WMMA_COL ? "col" : "row");
        mod(&b, ptx_space_name((ptx_space)in->space));
        put(&b, ".%s", ptx_type_name((ptx_type)in->type[0]));
    } else if (in->op == PTX_OP_WMMA_MMA) {
        put(&b, ".sync.aligned.%s.%s.m16n16k16.f32", in->mode & PTX_WMMA_A_COL ? "col" : "row",
            in->mode & PTX_WMMA_B_COL ? "col" : "row");
        if (in->type[1] == PTX_T_BF16)
            put(&b, ".bf16.bf16");
        put(&b, ".f32");
    } else if (in->op == PTX_OP_MMA) { /* its form as written (the parser accepts only these) */
        const char *ab = ptx_type_name((ptx_type)in->type[1]);
        put(&b, ".sync.aligned.%s.row.col.%s.%s.%s.%s",
            in->mode == PTX_MMA_M16N8K8 ? "m16n8k8" : "m16n8k16",
            ptx_type_name((ptx_type)in->type[0]), ab, ab, ptx_type_name((ptx_type)in->type[2]));
    } else if (in->op == PTX_OP_CP_ASYNC) {
        mod(&b, mode_name(in));
        put(&b, ".shared.global");
    } else {
        mod(&b, sem_names[in->sem < 9 ? in->sem : 0]);
        /* membar spells the GPU scope .gl */
        mod(&b, in->op == PTX_OP_MEMBAR && in->scope == PTX_SCOPE_GPU
                    ? "gl" : scope_names[in->scope < 5 ? in->scope : 0]);
        if (in->flags & PTX_F_TO)
            put(&b, ".to");
        mod(&b, ptx_space_name((ptx_space)in->space));
        mod(&b, mode_name(in));
    }
    if (in->op != PTX_OP_MMA && in->op != PTX_OP_WMMA_LOAD && in->op != PTX_OP_WMMA_STORE &&
        in->op != PTX_OP_WMMA_MMA) { /* the modifiers and types the fields hold */
        mod(&b, in->cmp < PTX_CMP_COUNT ? cmp_names[in->cmp] : "");
        mod(&b, in->boolop < 4 ? bool_names[in->boolop] : "");
        mod(&b, in->aop < PTX_AOP_COUNT ? aop_names[in->aop] : "");
        mod(&b, in->mul < 4 ? mul_names[in->mul] : "");
        mod(&b, in->round < PTX_RND_COUNT ? round_names[in->round] : "");
        for (unsigned k = 0; k < 32; k++)
            if ((in->flags >> k & 1u) && flag_names[k] &&
                !(in->op == PTX_OP_BAR && (1u << k) == PTX_F_ALIGNED) &&
                !(in->op == PTX_OP_BAR && (1u << k) == PTX_F_SYNC && in->mode == PTX_BAR_SYNC))
                mod(&b, flag_names[k]);
        if (in->flags & PTX_F_UNI)
            put(&b, ".uni");
        mod(&b, in->cache < PTX_CACHE_COUNT ? cache_names[in->cache] : "");
        if (in->vec > 1)
            put(&b, ".v%u", in->vec);
        for (unsigned k = 0; k < 3; k++)
            mod(&b, in->type[k] ? ptx_type_name((ptx_type)in->type[k]) : "");
    }
    const ptx_operand *ops = f->ops ? f->ops + in->op0 : NULL; /* a body of operand-less insns */
    if (in->op == PTX_OP_CALL) {
        put(&b, " ");
        if (in->nret) {
            put(&b, "(");
            for (unsigned k = 0; k < in->nret; k++) {
                put(&b, k ? ", " : "");
                operand(&b, m, f, &ops[k]);
            }
            put(&b, "), ");
        }
        put(&b, "%s", in->target >= 0 && (uint32_t)in->target < m->nfuncs
                          ? m->funcs[in->target].name : "?");
        if (in->nops > in->nret) {
            put(&b, ", (");
            for (unsigned k = in->nret; k < in->nops; k++) {
                put(&b, k > in->nret ? ", " : "");
                operand(&b, m, f, &ops[k]);
            }
            put(&b, ")");
        }
    } else {
        for (unsigned k = 0; k < in->nops; k++) {
            put(&b, k ? ", " : " ");
            /* a wmma fragment of 8 registers is two VEC operands of 4 (ir.h): one vector */
            if (ops[k].kind == PTX_OPND_VEC && k + 1 < in->nops &&
                ops[k + 1].kind == PTX_OPND_VEC && ops[k + 1].neg) {
                put(&b, "{");
                for (unsigned e = 0; e < 8; e++) {
                    put(&b, e ? ", " : "");
                    reg_name(&b, f, ops[k + e / 4].vec[e % 4]);
                }
                put(&b, "}");
                k++;
                continue;
            }
            operand(&b, m, f, &ops[k]);
        }
    }
    put(&b, ";");
    return (int)b.len;
}
