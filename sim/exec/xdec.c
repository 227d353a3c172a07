/* xdec: pre-decodes a PTX function from the IR into the executor's compact form (exec_int.h):
 * operands become register-file slot indices (immediates get read-only slots filled when a frame
 * is created, special registers and symbol addresses get scratch slots computed just before the
 * instruction), symbols are resolved to addresses, branches carry their reconvergence pc, and
 * calls get their parameter copy lists. Decoding never fails on an opcode the executor cannot
 * run: that is reported with its PTX position when (and only if) it is executed. */
#include <stdlib.h>
#include <string.h>

#include "exec_int.h"
#include "ptx.h"

static uint32_t align16(uint64_t v)
{
    return (uint32_t)((v + 15) & ~UINT64_C(15));
}

static int type_bits(int t);

/* The bits register r's values need (its slot's width class, xalloc_layout): predicates hold
 * 0 or 1; 0 (wide) for no register (the sink) and for a .v2/.v4 register. */
static uint8_t value_bits(const ptx_func *f, int32_t r)
{
    if (r < 0 || (uint32_t)r >= f->nregs || f->regs[r].vec > 1) /* .v2/.v4: wide, as before */
        return 0;
    if (f->regs[r].type == PTX_T_PRED)
        return 1;
    return (uint8_t)type_bits(f->regs[r].type);
}

static int type_bits(int t)
{
    switch (t) {
    case PTX_T_PRED: return 64;
    case PTX_T_B8: case PTX_T_U8: case PTX_T_S8: return 8;
    case PTX_T_B16: case PTX_T_U16: case PTX_T_S16: case PTX_T_F16: case PTX_T_BF16: return 16;
    case PTX_T_B32: case PTX_T_U32: case PTX_T_S32: case PTX_T_F32: case PTX_T_F16X2:
    case PTX_T_BF16X2: case PTX_T_TF32: return 32;
    case PTX_T_B128: return 128;
    default: return 64;
    }
}

static int type_kind(int t)
{
    switch (t) {
    case PTX_T_NONE: return XK_NONE;
    case PTX_T_PRED: return XK_PRED;
    case PTX_T_U8: case PTX_T_U16: case PTX_T_U32: case PTX_T_U64: return XK_U;
    case PTX_T_S8: case PTX_T_S16: case PTX_T_S32: case PTX_T_S64: return XK_S;
    case PTX_T_F32: case PTX_T_F64: case PTX_T_TF32: return XK_F;
    case PTX_T_F16: return XK_H;
    case PTX_T_BF16: return XK_BF;
    case PTX_T_F16X2: return XK_H2;
    case PTX_T_BF16X2: return XK_BF2;
    default: return XK_B;
    }
}

/* Immediate slots, deduplicated with a small open-addressing table. */
typedef struct {
    uint64_t *vals;
    uint32_t n, cap;
    int32_t *hash;
    uint32_t hcap;
} immtab;

/* Instructions whose first operand is a source that may be an immediate (a barrier id, a
 * mask, a time, a count): no executor path writes it. Any other instruction with an immediate
 * first operand might write that immediate's slot, so exec_block_reset refills them all. */
static int imm_first_ok(const xinsn *x)
{
    switch (x->op) {
    case PTX_OP_BAR: return x->mode != PTX_BAR_RED;
    case PTX_OP_BAR_WARP_SYNC: case PTX_OP_NANOSLEEP: case PTX_OP_CP_ASYNC_WAIT_GROUP:
    case PTX_OP_PMEVENT: case PTX_OP_GRIDDEPCONTROL: return 1;
    default: return 0;
    }
}

static int imm_slot(immtab *t, uint64_t v, uint32_t base, int32_t *slot)
{
    if (t->n * 2 + 2 > t->hcap) {
        uint32_t nh = t->hcap ? t->hcap * 2 : 64;
        int32_t *h = malloc(nh * sizeof *h);
        if (!h)
            return -1;
        for (uint32_t i = 0; i < nh; i++)
            h[i] = -1;
        for (uint32_t i = 0; i < t->n; i++) {
            uint32_t j = (uint32_t)(t->vals[i] * UINT64_C(0x9e3779b97f4a7c15) >> 40) & (nh - 1);
            while (h[j] >= 0)
                j = (j + 1) & (nh - 1);
            h[j] = (int32_t)i;
        }
        free(t->hash);
        t->hash = h;
        t->hcap = nh;
    }
    uint32_t j = (uint32_t)(v * UINT64_C(0x9e3779b97f4a7c15) >> 40) & (t->hcap - 1);
    while (t->hash[j] >= 0) {
        if (t->vals[t->hash[j]] == v) {
            *slot = (int32_t)(base + (uint32_t)t->hash[j]);
            return 0;
        }
        j = (j + 1) & (t->hcap - 1);
    }
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 32;
        uint64_t *nv = realloc(t->vals, nc * sizeof *nv);
        if (!nv)
            return -1;
        t->vals = nv;
        t->cap = nc;
    }
    t->vals[t->n] = v;
    t->hash[j] = (int32_t)t->n;
    *slot = (int32_t)(base + t->n++);
    return 0;
}

static int is_mem_op(int op)
{
    switch (op) {
    case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_ST: case PTX_OP_ATOM: case PTX_OP_RED:
    case PTX_OP_PREFETCH: case PTX_OP_PREFETCHU: case PTX_OP_CP_ASYNC:
    case PTX_OP_CP_ASYNC_MBAR_ARRIVE: case PTX_OP_MBAR_INIT: case PTX_OP_MBAR_ARRIVE:
    case PTX_OP_MBAR_ARRIVE_DROP: case PTX_OP_MBAR_TEST_WAIT: case PTX_OP_MBAR_TRY_WAIT:
    case PTX_OP_MBAR_INVAL: case PTX_OP_MBAR_EXPECT_TX: case PTX_OP_MBAR_COMPLETE_TX:
    case PTX_OP_WMMA_LOAD: case PTX_OP_WMMA_STORE:
        return 1;
    default: return 0;
    }
}

/* Resolves a symbol reference to (base, offset, space); returns 0 or -1 when unsupported. */
static int resolve_sym(const exec_prog *p, const ptx_func *f, const xfunc *xf,
                       const ptx_operand *o, uint8_t *base, int64_t *off, uint8_t *space)
{
    *base = XB_NONE;
    *off = 0;
    *space = PTX_SPACE_NONE;
    if (o->sym < 0)
        return 0;
    switch (o->symkind) {
    case PTX_SYM_MODVAR: {
        if ((uint32_t)o->sym >= p->m->nvars)
            return -1;
        const ptx_var *v = &p->m->vars[o->sym];
        *space = v->space;
        if (v->space == PTX_SPACE_GLOBAL || v->space == PTX_SPACE_CONST) {
            *off = (int64_t)p->var_addr[o->sym];
            return 0;
        }
        if (v->space == PTX_SPACE_SHARED || v->space == PTX_SPACE_SHARED_CLUSTER) {
            if (!p->k->smem_off || p->k->smem_off[o->sym] == UINT32_MAX)
                return -1;
            *off = p->k->smem_off[o->sym];
            *space = PTX_SPACE_SHARED;
            return 0;
        }
        return -1;
    }
    case PTX_SYM_PARAM:
        if ((uint32_t)o->sym >= f->nparams)
            return -1;
        *space = PTX_SPACE_PARAM;
        *off = (int64_t)f->params[o->sym].offset;
        if (!f->is_entry) {
            *base = XB_PARAM;
            *off += xf->off_param;
        }
        return 0;
    case PTX_SYM_RET:
        if ((uint32_t)o->sym >= f->nrets)
            return -1;
        *space = PTX_SPACE_PARAM;
        *base = XB_RET;
        *off = (int64_t)(f->rets[o->sym].offset + xf->off_ret);
        return 0;
    case PTX_SYM_LOCAL: {
        if ((uint32_t)o->sym >= f->nlocals)
            return -1;
        const ptx_var *v = &f->locals[o->sym];
        *space = v->space;
        if (v->space == PTX_SPACE_LOCAL) {
            *base = XB_LOCAL;
            *off = (int64_t)(v->offset + xf->off_local);
        } else {
            *base = XB_CALLPARAM;
            *off = (int64_t)(v->offset + xf->off_cp);
        }
        return 0;
    }
    default: return -1;
    }
}

/* Frame-relative byte offset of a call operand (a .param variable), or -1. */
static int64_t call_opnd_off(const exec_prog *p, const ptx_func *f, const xfunc *xf,
                             const ptx_operand *o)
{
    uint8_t base, space;
    int64_t off;
    if (o->kind != PTX_OPND_SYM || resolve_sym(p, f, xf, o, &base, &off, &space) != 0 ||
        base == XB_NONE)
        return -1;
    return off;
}

static wl_status unsupported(const exec_prog *p, const ptx_insn *in, diag_t *d, const char *what)
{
    return diag_set(d, WL_EUNSUPPORTED, p->m->name, (int)in->line, (int)in->col,
                    "unsupported by the executor: %s", what);
}

static wl_status decode_call(exec_prog *p, const ptx_func *f, xfunc *xf, const ptx_insn *in,
                             xinsn *x, diag_t *d)
{
    if (in->target < 0 || (uint32_t)in->target >= p->m->nfuncs)
        return unsupported(p, in, d, "indirect call");
    const ptx_func *cf = &p->m->funcs[in->target];
    if (cf->is_entry)
        return unsupported(p, in, d, "call of a kernel");
    /* External functions: the CUDA runtime's device-side printf and assert are built in; any
     * other is reported if executed. */
    int builtin = !cf->is_decl ? XCALL_NONE :
                  strcmp(cf->name, "vprintf") == 0 ? XCALL_VPRINTF :
                  strcmp(cf->name, "__assertfail") == 0 ? XCALL_ASSERT : XCALL_EXTERN;
    if (builtin == XCALL_NONE && p->funcs[in->target].decoding)
        p->recursive = 1;
    if (builtin == XCALL_NONE) {
        wl_status st = xdec_func(p, in->target, d);
        if (st != WL_OK)
            return st;
    }
    const xfunc *cx = &p->funcs[in->target];
    uint32_t nret = in->nret, narg = in->nops - in->nret;
    if (nret > cf->nrets || narg > cf->nparams)
        return unsupported(p, in, d, "call with more arguments than the callee declares");
    if (p->ncalls == p->calls_cap) {
        uint32_t nc = p->calls_cap ? p->calls_cap * 2 : 8;
        xcall *ncl = realloc(p->calls, nc * sizeof *ncl);
        if (!ncl)
            return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        p->calls = ncl;
        p->calls_cap = nc;
    }
    xcall *c = &p->calls[p->ncalls];
    memset(c, 0, sizeof *c);
    c->callee = in->target;
    c->builtin = builtin;
    c->nret = nret;
    c->narg = narg;
    uint32_t *buf = calloc(3 * (size_t)(nret + narg) + 1, 2 * sizeof *buf);
    if (!buf)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    c->ret_src = buf;
    c->ret_dst = buf + nret;
    c->ret_size = buf + 2 * nret;
    c->arg_src = buf + 3 * nret;
    c->arg_dst = c->arg_src + narg;
    c->arg_size = c->arg_dst + narg;
    const ptx_operand *ops = f->ops ? &f->ops[in->op0] : NULL; /* NULL: no operands at all */
    for (uint32_t i = 0; i < nret; i++) {
        int64_t o = call_opnd_off(p, f, xf, &ops[i]);
        if (o < 0) {
            free(buf);
            return unsupported(p, in, d, "call return operand that is not a .param variable");
        }
        c->ret_dst[i] = (uint32_t)o;
        c->ret_src[i] = cx->off_ret + (uint32_t)cf->rets[i].offset;
        c->ret_size[i] = (uint32_t)cf->rets[i].size;
    }
    for (uint32_t i = 0; i < narg; i++) {
        int64_t o = call_opnd_off(p, f, xf, &ops[nret + i]);
        if (o < 0) {
            free(buf);
            return unsupported(p, in, d, "call argument that is not a .param variable");
        }
        c->arg_src[i] = (uint32_t)o;
        c->arg_dst[i] = cx->off_param + (uint32_t)cf->params[i].offset;
        c->arg_size[i] = (uint32_t)cf->params[i].size;
    }
    x->target = (int32_t)p->ncalls++;
    return WL_OK;
}

static uint8_t mem_space(const exec_prog *p, const ptx_func *f, const ptx_insn *in,
                         const xop *a)
{
    switch (in->space) {
    case PTX_SPACE_GLOBAL: case PTX_SPACE_CONST: return XS_GLOBAL;
    case PTX_SPACE_SHARED: case PTX_SPACE_SHARED_CLUSTER: return XS_SHARED;
    case PTX_SPACE_LOCAL: return XS_LOCAL;
    case PTX_SPACE_PARAM:
        if (a && a->base != XB_NONE)
            return XS_LOCAL;
        return f->is_entry ? XS_KPARAM : XS_LOCAL;
    case PTX_SPACE_NONE: return XS_GENERIC;
    default: (void)p; return XS_NONE;
    }
}

/* The function's immediates, 32 lanes each, shared by every warp (xop.cptr), unless some
 * instruction may write an immediate's slot (then each warp's own copy is the truth). */
static wl_status share_immediates(xfunc *xf, diag_t *d)
{
    if (xf->imm_clobbered || xf->nimm == 0)
        return WL_OK;
    xf->immlanes = malloc((size_t)xf->nimm * 32 * sizeof *xf->immlanes);
    xf->immlanes32 = malloc((size_t)xf->nimm * 32 * sizeof *xf->immlanes32);
    if (!xf->immlanes || !xf->immlanes32)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
    for (uint32_t i = 0; i < xf->nimm; i++)
        for (int l = 0; l < 32; l++) {
            xf->immlanes[(size_t)i * 32 + (size_t)l] = xf->imm[i];
            xf->immlanes32[(size_t)i * 32 + (size_t)l] = (uint32_t)xf->imm[i];
        }
    for (uint32_t i = 0; i < xf->n; i++) {
        xinsn *x = &xf->ins[i];
        if (x->op == PTX_OP_CALL)
            continue;
        for (int k = 0; k < x->nops; k++) {
            xop *o = &x->o[k];
            /* immediate i is wide, at unit nregs + 2 i (xalloc_layout) */
            if (o->kind == XO_SLOT && o->slot >= (int32_t)xf->nregs &&
                (uint32_t)o->slot < xf->nregs + 2 * xf->nimm) {
                size_t ii = (size_t)(o->slot - (int32_t)xf->nregs) / 2;
                o->cptr = xf->immlanes + ii * 32;
                o->cptr32 = xf->immlanes32 + ii * 32;
            }
        }
    }
    return WL_OK;
}

wl_status xdec_func(exec_prog *p, int fi, diag_t *d)
{
    xfunc *xf = &p->funcs[fi];
    if (xf->decoded)
        return WL_OK;
    xf->decoded = 1;
    xf->decoding = 1;
    const ptx_func *f = &p->m->funcs[fi];
    xf->f = f;
    xf->n = f->ninsns;
    xf->nregs = f->nregs;
    xf->off_local = 0;
    xf->off_cp = align16(f->local_size);
    xf->off_param = xf->off_cp + align16(f->callparam_size);
    xf->off_ret = xf->off_param + (f->is_entry ? 0 : align16(f->param_size));
    xf->frame_bytes = xf->off_ret + align16(f->ret_size);
    size_t nins = f->ninsns ? f->ninsns : 1;
    xf->ins = aligned_alloc(64, nins * sizeof *xf->ins); /* a multiple of 64 (exec_int.h) */
    if (xf->ins)
        memset(xf->ins, 0, nins * sizeof *xf->ins);
    if (!xf->ins)
        return diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory decoding '%s'", f->name);
    immtab it = {0};
    uint32_t immbase = f->nregs, scratch0 = 0; /* scratch slots follow the immediates */
    wl_status st = WL_OK;
    /* Immediates are numbered first so the scratch slots can follow them. */
    for (uint32_t i = 0; i < f->nops && st == WL_OK; i++) {
        const ptx_operand *o = &f->ops[i];
        if (o->kind == PTX_OPND_IMM || o->kind == PTX_OPND_FIMM) {
            int32_t s;
            int bits = o->type == PTX_T_NONE || o->type == PTX_T_PRED ? 64 : type_bits(o->type);
            uint64_t v = bits >= 64 ? o->imm : o->imm & ((UINT64_C(1) << bits) - 1);
            if (imm_slot(&it, v, immbase, &s) != 0)
                st = diag_set(d, WL_EUSAGE, NULL, 0, 0, "out of memory");
        }
    }
    xf->nimm = it.n;
    scratch0 = immbase + it.n;
    xf->nslots = scratch0 + XNSCRATCH;
    for (uint32_t i = 0; i < f->ninsns && st == WL_OK; i++) {
        const ptx_insn *in = &f->insns[i];
        xinsn *x = &xf->ins[i];
        x->ir = in;
        x->op = in->op;
        x->t0 = in->type[0];
        x->t1 = in->type[1];
        x->k0 = (uint8_t)type_kind(in->type[0]);
        x->k1 = (uint8_t)type_kind(in->type[1]);
        x->w0 = (uint8_t)type_bits(in->type[0]);
        x->w1 = (uint8_t)type_bits(in->type[1]);
        x->unit = (uint8_t)isa_unit(in);
        x->lat = (uint8_t)isa_latclass(in);
        x->vec = in->vec ? in->vec : 1;
        x->mode = in->mode;
        x->aop = in->aop;
        x->cmp = in->cmp;
        x->boolop = in->boolop;
        x->round = in->round;
        x->mul = in->mul;
        x->flags = in->flags;
        x->guard = in->guard;
        x->guard_neg = in->guard_neg;
        x->target = in->target;
        x->reconv = XPC_END;
        if (in->op == PTX_OP_BRA && in->block >= 0 && (uint32_t)in->block < f->nblocks) {
            int32_t ip = f->blocks[in->block].ipdom;
            if (ip >= 0 && (uint32_t)ip < f->nblocks)
                x->reconv = f->blocks[ip].first;
        }
        if (in->op == PTX_OP_CALL) {
            st = decode_call(p, f, xf, in, x, d);
            continue;
        }
        x->nops = in->nops > XMAX_OPS ? XMAX_OPS : in->nops;
        uint32_t nscr = 0;
        for (uint32_t k = 0; k < x->nops; k++) {
            const ptx_operand *o = &f->ops[in->op0 + k];
            xop *xo = &x->o[k];
            xo->neg = o->neg;
            switch (o->kind) {
            case PTX_OPND_REG:
                xo->kind = XO_SLOT;
                xo->slot = o->reg;
                xo->bits = (uint8_t)((uint32_t)o->reg < f->nregs ?
                                     type_bits(f->regs[o->reg].type) : 64);
                xo->sbits = value_bits(f, o->reg);
                break;
            case PTX_OPND_IMM: case PTX_OPND_FIMM: {
                int bits = o->type == PTX_T_NONE || o->type == PTX_T_PRED ? 64 : type_bits(o->type);
                uint64_t v = bits >= 64 ? o->imm : o->imm & ((UINT64_C(1) << bits) - 1);
                xo->kind = XO_SLOT;
                xo->bits = 64;
                imm_slot(&it, v, immbase, &xo->slot);
                break;
            }
            case PTX_OPND_SREG:
                if (nscr >= XNPRE) {
                    st = unsupported(p, in, d, "more than 3 special registers in one instruction");
                    break;
                }
                xo->kind = XO_SLOT;
                xo->bits = 64;
                xo->slot = (int32_t)(scratch0 + nscr);
                x->pre[nscr].slot = xo->slot;
                x->pre[nscr].sreg = o->sreg;
                x->pre[nscr].opnd = (uint8_t)k;
                nscr++;
                break;
            case PTX_OPND_ADDR: case PTX_OPND_SYM: {
                xo->kind = XO_ADDR;
                xo->slot = o->kind == PTX_OPND_ADDR ? o->reg : -1;
                xo->bits = (uint8_t)(xo->slot >= 0 && (uint32_t)xo->slot < f->nregs ?
                                     type_bits(f->regs[xo->slot].type) : 64);
                xo->sbits = value_bits(f, xo->slot);
                if (resolve_sym(p, f, xf, o, &xo->base, &xo->off, &xo->space) != 0) {
                    x->op = PTX_OP_COUNT; /* reported if executed */
                    break;
                }
                if (o->kind == PTX_OPND_ADDR)
                    xo->off += o->off;
                if (o->kind == PTX_OPND_SYM && !is_mem_op(in->op)) {
                    /* A symbol used as a value: its address, computed before execution. */
                    if (nscr >= XNPRE) {
                        st = unsupported(p, in, d, "too many symbol operands");
                        break;
                    }
                    x->pre[nscr].slot = (int32_t)(scratch0 + nscr);
                    x->pre[nscr].sreg = UINT16_MAX;
                    x->pre[nscr].opnd = (uint8_t)k;
                    nscr++;
                }
                break;
            }
            case PTX_OPND_VEC: case PTX_OPND_PAIR:
                xo->kind = XO_VEC;
                xo->n = o->nvec > 4 ? 4 : o->nvec;
                for (int v = 0; v < xo->n; v++) {
                    int32_t r = o->vec[v];
                    xo->vec[v] = r;
                    xo->vbits[v] = (uint8_t)(r >= 0 && (uint32_t)r < f->nregs ?
                                             type_bits(f->regs[r].type) : 64);
                    xo->vsbits[v] = value_bits(f, r);
                }
                break;
            case PTX_OPND_LABEL:
                xo->kind = XO_NONE;
                break;
            default: break;
            }
        }
        x->npre = (uint8_t)nscr;
        /* A symbol used as a value becomes a plain slot, computed before the instruction from
         * the operand's base and offset (kept in the xop). */
        for (uint32_t k = 0; k < nscr; k++) {
            if (x->pre[k].sreg == UINT16_MAX) {
                xop *xo = &x->o[x->pre[k].opnd];
                xo->kind = XO_SLOT;
                xo->bits = 64;
                xo->slot = x->pre[k].slot;
            }
        }
        /* Shapes the executor cannot run stay decodable but are reported if executed: an
         * address where a value belongs (outside memory instructions). A register operand
         * without a register (the sink `_`) writes to the last scratch slot. */
        for (uint32_t k = 0; k < x->nops; k++) {
            xop *xo = &x->o[k];
            if (xo->kind == XO_ADDR && !is_mem_op(in->op))
                x->op = PTX_OP_COUNT;
            if (xo->kind == XO_SLOT && (xo->slot < 0 || (uint32_t)xo->slot >= scratch0 + XNSCRATCH))
                xo->slot = (int32_t)(scratch0 + XNSCRATCH - 1);
            if (xo->kind == XO_VEC)
                for (int v = 0; v < 4; v++)
                    if (xo->vec[v] >= (int32_t)(scratch0 + XNSCRATCH))
                        xo->vec[v] = -1;
            if (xo->kind == XO_ADDR && xo->slot >= (int32_t)(scratch0 + XNSCRATCH))
                x->op = PTX_OP_COUNT;
        }
        if (x->guard >= (int32_t)(scratch0 + XNSCRATCH))
            x->op = PTX_OP_COUNT;
        if (is_mem_op(in->op)) {
            const xop *a = NULL;
            for (uint32_t k = 0; k < x->nops; k++)
                if (x->o[k].kind == XO_ADDR) {
                    a = &x->o[k];
                    break;
                }
            x->space = mem_space(p, f, in, a);
        } else if (in->op == PTX_OP_CVTA || in->op == PTX_OP_ISSPACEP) {
            x->space = mem_space(p, f, in, NULL);
        }
        xop_pick_fast(x); /* after the space: cvta's handler depends on it */
        /* mov r, %sreg (or a symbol's address), unguarded: xwide_pre computes the value into
         * r's slot directly (the lanes that execute, masked to r's width), and the move itself
         * has nothing left to do; not a scratch slot written and read again */
        if (x->op == PTX_OP_MOV && x->fast && x->guard < 0 && x->nops == 2 && x->npre == 1 &&
            x->pre[0].opnd == 1 && x->o[0].kind == XO_SLOT && x->o[0].slot >= 0 &&
            (uint32_t)x->o[0].slot < f->nregs) {
            x->pre_dst = 1;
            x->pre[0].slot = x->o[0].slot;
            x->fast = xop_nop;
        }
        x->lane = x->op >= PTX_OP_COUNT ? XL_NONE : x->fast ? XL_FAST :
                  x->op == PTX_OP_BRA && !(x->flags & PTX_F_IFCVT) ? XL_BRA :
                  (x->op == PTX_OP_LD || x->op == PTX_OP_LDU || x->op == PTX_OP_ST) ? XL_LDST :
                  XL_NONE;
        if (x->nops > 0 && (f->ops[in->op0].kind == PTX_OPND_IMM ||
                            f->ops[in->op0].kind == PTX_OPND_FIMM) && !imm_first_ok(x))
            xf->imm_clobbered = 1;
    }
    xf->decoding = 0;
    for (uint32_t i = 0; i < f->ninsns && st == WL_OK; i++)
        exec_list_regs(&xf->ins[i], xf->nregs);
    if (st == WL_OK) {
        xf->imm = it.vals;
        it.vals = NULL;
    }
    if (st == WL_OK)
        st = xalloc_func(p, xf, d);
    if (st == WL_OK)
        st = xalloc_layout(xf, d);
    if (st == WL_OK)
        st = share_immediates(xf, d);
    if (st == WL_OK) /* again, now that the slots' widths are known (xfast.c: narrow forms) */
        for (uint32_t i = 0; i < xf->n; i++) {
            xinsn *x = &xf->ins[i];
            if (x->pre_dst || x->op >= PTX_OP_COUNT || x->op == PTX_OP_CALL)
                continue;
            xop_pick_fast(x);
            if (x->fast && x->lane == XL_NONE) /* a form with a handler only when narrow */
                x->lane = XL_FAST;
        }
    free(it.vals);
    free(it.hash);
    return st;
}
