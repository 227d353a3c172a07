/* ptx front end: every committed PTX file parses; specific constructs decode
 * to the expected IR fields; malformed and unsupported input gives the right
 * status at the right line:col; hostile input is bounded; parsing is fast. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptx.h"
#include "test_ptx_files.h"
#include "testutil.h"

/* Expects a failure with this status at line:col and a message containing sub. */
static void parse_err(const char *src, size_t len, wl_status want, int line, int col,
                      const char *sub)
{
    ptx_module *m = (ptx_module *)1;
    diag_t d;
    wl_status st = ptx_parse_string(src, len, "t.ptx", &m, &d);
    if (st == WL_OK && want == WL_EUNSUPPORTED) { /* an instruction refused at launch instead */
        for (uint32_t f = 0; f < m->nfuncs && st == WL_OK; f++)
            if (m->funcs[f].is_entry)
                st = ptx_check_supported(m, &m->funcs[f], &d);
        ptx_module_free(m);
        m = NULL;
    }
    char b[2048];
    diag_format(&d, b, sizeof b);
    if (st != want || m != NULL || (line && d.line != line) || (col && d.col != col) ||
        (sub && !strstr(d.msg, sub)))
        fail_msg("want status %d at %d:%d containing '%s'; got status %d: %s", want, line, col,
                 sub ? sub : "", st, b);
}


/* Kernel "k" with the given body lines and some registers declared. */
static ptx_module *kernel(const char *body)
{
    static char buf[8192];
    snprintf(buf, sizeof buf,
             HDR ".shared .align 4 .b8 smem[64];\n"
                 ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)\n{\n"
                 ".reg .pred %%p<4>;\n.reg .b32 %%r<10>;\n.reg .f32 %%f<8>;\n"
                 ".reg .b64 %%rd<6>;\n.reg .f64 %%fd<4>;\n%s\nret;\n}\n",
             body);
    return parse_ok(buf);
}

static const ptx_operand *opnd(const ptx_func *f, uint32_t i, unsigned k)
{
    assert_true(i < f->ninsns);
    assert_true(k < f->insns[i].nops);
    return &f->ops[f->insns[i].op0 + k];
}

static void assert_format(const ptx_module *m, const ptx_func *f, uint32_t i, const char *want)
{
    char b[512];
    ptx_insn_format(m, f, i, b, sizeof b);
    if (strcmp(b, want) != 0)
        fail_msg("insn %u formats as '%s', want '%s'", i, b, want);
}

/* ---- every committed PTX file parses ---- */
static void parse_one(const char *path, void *ctx)
{
    unsigned *ninsns = ctx;
    ptx_module *m;
    diag_t d;
    wl_status st = ptx_parse_file(path, &m, &d);
    if (st != WL_OK) {
        char b[2048];
        diag_format(&d, b, sizeof b);
        fail_msg("%s does not parse: %s", path, b);
    }
    unsigned entries = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        entries += f->is_entry;
        for (uint32_t j = 0; j < f->ninsns; j++) {
            char b[1024];
            ptx_insn_format(m, f, j, b, sizeof b);
            if (strchr(b, '?'))
                fail_msg("%s: %s insn %u prints as '%s'", path, f->name, j, b);
        }
        *ninsns += f->ninsns;
    }
    if (entries == 0)
        fail_msg("%s has no .entry", path);
    ptx_module_free(m);
}

static void test_all_files_parse(void **state)
{
    (void)state;
    unsigned ni = 0;
    unsigned n = ptx_for_each_file("tests/data/ptx", parse_one, &ni);
    if (n < 4)
        fail_msg("only %u files in tests/data/ptx", n);
    ni = 0;
    n = ptx_for_each_committed(parse_one, &ni);
    print_message("parsed %u files, %u instructions\n", n, ni);
    assert_true(ni > 1000);
}

/* ---- printing round trip: replace every instruction of a real file by its
 * printed form, parse again, and compare the decoded fields ---- */
typedef struct {
    size_t start, end; /* bytes [start, end] replaced (end is the ';') */
    char text[1024];
} rt_edit;

static int cmp_edit(const void *a, const void *b)
{
    const rt_edit *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void same_insn(const char *path, const ptx_func *f1, const ptx_func *f2, uint32_t i,
                      const char *text)
{
    const ptx_insn *a = &f1->insns[i], *b = &f2->insns[i];
    /* cache-eviction hints are accepted and dropped, a preceding .pragma "nounroll" is a
     * directive: neither is printed with the instruction */
    const uint32_t np = PTX_F_LEVEL_EVICT | PTX_F_NOUNROLL;
    uint32_t fa = a->flags & ~np, fb = b->flags & ~np;
    if (a->op != b->op || memcmp(a->type, b->type, 3) || a->cmp != b->cmp ||
        a->boolop != b->boolop || a->round != b->round || a->mul != b->mul ||
        a->space != b->space || a->cache != b->cache || a->vec != b->vec || a->mode != b->mode ||
        a->aop != b->aop || a->sem != b->sem || a->scope != b->scope || fa != fb ||
        a->guard != b->guard || a->guard_neg != b->guard_neg || a->nops != b->nops ||
        a->nret != b->nret || a->target != b->target)
        fail_msg("%s %s insn %u: fields differ after printing as '%s'", path, f1->name, i, text);
    for (unsigned k = 0; k < a->nops; k++)
        if (memcmp(&f1->ops[a->op0 + k], &f2->ops[b->op0 + k], sizeof(ptx_operand)) != 0)
            fail_msg("%s %s insn %u: operand %u differs after printing as '%s'", path, f1->name,
                     i, k, text);
}

static void roundtrip_one(const char *path, void *ctx)
{
    unsigned *count = ctx;
    size_t len;
    char *src = tu_read_file(path, &len);
    assert_non_null(src);
    ptx_module *m1, *m2;
    diag_t d;
    assert_int_equal(ptx_parse_string(src, len, path, &m1, &d), WL_OK);
    size_t nlines = 1;
    for (size_t i = 0; i < len; i++)
        nlines += src[i] == '\n';
    size_t *ls = malloc((nlines + 1) * sizeof(size_t)), ne = 0, cap = 0;
    size_t l = 1;
    ls[1] = 0;
    for (size_t i = 0; i < len; i++)
        if (src[i] == '\n')
            ls[++l] = i + 1;
    for (uint32_t fi = 0; fi < m1->nfuncs; fi++)
        cap += m1->funcs[fi].ninsns;
    rt_edit *ed = calloc(cap ? cap : 1, sizeof(rt_edit));
    for (uint32_t fi = 0; fi < m1->nfuncs; fi++) {
        const ptx_func *f = &m1->funcs[fi];
        for (uint32_t i = 0; i < f->ninsns; i++) {
            rt_edit *e = &ed[ne++];
            size_t st = ls[f->insns[i].line] + f->insns[i].col - 1;
            if (f->insns[i].guard >= 0) /* the printed form starts at the guard */
                while (st > 0 && src[st] != '@')
                    st--;
            size_t en = st;
            while (en < len && src[en] != ';')
                en++;
            e->start = st;
            e->end = en;
            ptx_insn_format(m1, f, i, e->text, sizeof e->text);
        }
    }
    qsort(ed, ne, sizeof *ed, cmp_edit);
    size_t outcap = len + ne * 1024 + 1, o = 0, pos = 0;
    char *out = malloc(outcap);
    for (size_t k = 0; k < ne; k++) {
        memcpy(out + o, src + pos, ed[k].start - pos);
        o += ed[k].start - pos;
        size_t tl = strlen(ed[k].text);
        memcpy(out + o, ed[k].text, tl);
        o += tl;
        pos = ed[k].end + 1;
    }
    memcpy(out + o, src + pos, len - pos);
    o += len - pos;
    if (ptx_parse_string(out, o, path, &m2, &d) != WL_OK) {
        char b[2048];
        diag_format(&d, b, sizeof b);
        fail_msg("%s: printed form does not parse: %s", path, b);
    }
    assert_int_equal(m2->nfuncs, m1->nfuncs);
    for (uint32_t fi = 0; fi < m1->nfuncs; fi++) {
        const ptx_func *f1 = &m1->funcs[fi], *f2 = &m2->funcs[fi];
        assert_int_equal(f1->ninsns, f2->ninsns);
        for (uint32_t i = 0; i < f1->ninsns; i++) {
            char text[1024];
            ptx_insn_format(m1, f1, i, text, sizeof text);
            same_insn(path, f1, f2, i, text);
        }
        *count += f1->ninsns;
    }
    ptx_module_free(m1);
    ptx_module_free(m2);
    free(out);
    free(ed);
    free(ls);
    free(src);
}

static void test_format_roundtrip(void **state)
{
    (void)state;
    unsigned n = 0;
    ptx_for_each_committed(roundtrip_one, &n);
    print_message("%u instructions printed and parsed back identically\n", n);
    assert_true(n > 1000);
}

/* ---- module header, params, directives, variables ---- */
static void test_module_header(void **state)
{
    (void)state;
    ptx_module *m;
    diag_t d;
    assert_int_equal(ptx_parse_file(tu_path("tests/data/ptx/reduce.ptx"), &m, &d), WL_OK);
    assert_int_equal(m->version_major, 9);
    assert_int_equal(m->version_minor, 0);
    assert_int_equal(m->sm, 90);
    assert_string_equal(m->target, "sm_90");
    assert_int_equal(m->address_size, 64);
    assert_true(m->nfiles >= 2);
    assert_non_null(m->files[1]);
    assert_non_null(strstr(m->files[1], "reduce.cu"));
    const ptx_func *f = ptx_find_func(m, "reduce_sum");
    assert_non_null(f);
    assert_true(f->is_entry);
    assert_int_equal(f->linkage, PTX_LINK_VISIBLE);
    assert_int_equal(f->nparams, 3);
    assert_int_equal(f->params[0].offset, 0);
    assert_int_equal(f->params[0].size, 8);
    assert_int_equal(f->params[1].offset, 8);
    assert_int_equal(f->params[2].offset, 16);
    assert_int_equal(f->params[2].size, 4);
    assert_int_equal(f->param_size, 20);
    assert_int_equal(f->maxntid[0], 256);
    assert_int_equal(f->maxntid[1], 1);
    assert_int_equal(f->minnctapersm, 2);
    /* __shared__ float warp_sums[32] */
    assert_int_equal(f->nsmem, 1);
    assert_int_equal(f->smem_static, 128);
    assert_int_equal(f->dyn_smem_var, PTX_NONE);
    /* every instruction carries a .loc into reduce.cu */
    unsigned with_loc = 0;
    for (uint32_t i = 0; i < f->ninsns; i++)
        with_loc += f->insns[i].loc_file == 1 && f->insns[i].loc_line > 0;
    assert_true(with_loc > f->ninsns / 2);
    assert_null(ptx_find_func(m, "nope"));
    ptx_module_free(m);

    /* kernels whose bodies are mostly inlined from CUDA/CUB headers: every
     * header .loc chains back (inlined_at, possibly to a site named hundreds of
     * lines earlier) to the kernel's own .cu file, file 1 */
    static const char *const inl[][2] = {
        {"tests/data/ptx/async.ptx", "cp_async_copy"},
        {"tests/data/ptx/async.ptx", "coop_groups"},
        {"tests/data/ptx/cub_pipeline.ptx", "sort_scan"},
        {"tests/data/ptx/cub_pipeline.ptx", "pipe_copy"},
    };
    for (size_t k = 0; k < sizeof inl / sizeof inl[0]; k++) {
        assert_int_equal(ptx_parse_file(tu_path(inl[k][0]), &m, &d), WL_OK);
        f = ptx_find_func(m, inl[k][1]);
        assert_non_null(f);
        unsigned in_header = 0, mapped = 0;
        for (uint32_t i = 0; i < f->ninsns; i++) {
            const ptx_insn *in = &f->insns[i];
            if (in->loc_file > 1 && in->loc_line > 0) {
                in_header++;
                mapped += in->src_file == 1 && in->src_line > 0;
            }
        }
        print_message("%s: %u instructions from headers, %u mapped to the .cu\n", inl[k][1],
                      in_header, mapped);
        ptx_module_free(m);
        assert_true(in_header > 0);
        assert_int_equal(mapped, in_header);
    }
}

static void test_variables_and_smem(void **state)
{
    (void)state;
    ptx_module *m = parse_ok(
        HDR ".const .align 4 .f32 c[4] = {0f3F800000, 0f40000000, 1.5, -2};\n"
            ".global .align 8 .u64 t[3] = {1, 0xffffffffffff, 3};\n"
            ".global .s32 g = -7;\n"
            ".global .align 4 .b8 big[4000000000];\n"
            ".shared .align 16 .b8 a[100];\n"
            ".shared .align 8 .b8 b[8];\n"
            ".extern .shared .align 16 .b8 dyn[];\n"
            ".visible .entry k()\n{\n.reg .b32 %r<3>;\n"
            "mov.u32 %r0, a;\nmov.u32 %r1, dyn;\nld.shared.u32 %r2, [b+4];\nret;\n}\n");
    assert_int_equal(m->nvars, 7);
    const ptx_var *c = &m->vars[0];
    assert_string_equal(c->name, "c");
    assert_int_equal(c->space, PTX_SPACE_CONST);
    assert_int_equal(c->size, 16);
    assert_int_equal(c->init_size, 16);
    uint32_t w[4];
    memcpy(w, c->init, 16);
    assert_int_equal(w[0], 0x3F800000);
    assert_int_equal(w[1], 0x40000000);
    assert_int_equal(w[2], 0x3FC00000);
    assert_int_equal(w[3], 0xC0000000);
    uint64_t q[3];
    memcpy(q, m->vars[1].init, 24);
    assert_int_equal(q[1], 0xffffffffffffull);
    int32_t g;
    memcpy(&g, m->vars[2].init, 4);
    assert_int_equal(g, -7);
    assert_int_equal(m->vars[3].size, 4000000000ull); /* no bytes allocated for it */
    assert_null(m->vars[3].init);
    assert_true(m->vars[6].unsized);
    const ptx_func *f = ptx_find_func(m, "k");
    assert_int_equal(f->nsmem, 2);
    assert_int_equal(f->smem_off[4], 0);   /* a */
    assert_int_equal(f->smem_off[5], 104); /* b: 100 aligned up to 8 */
    assert_int_equal(f->smem_static, 112);
    assert_int_equal(f->dyn_smem_var, 6);
    assert_int_equal(f->dyn_smem_offset, 112);
    assert_int_equal(f->smem_off[6], 112);
    assert_int_equal(f->smem_off[0], UINT32_MAX);
    const ptx_operand *o = opnd(f, 2, 1);
    assert_int_equal(o->kind, PTX_OPND_ADDR);
    assert_int_equal(o->symkind, PTX_SYM_MODVAR);
    assert_int_equal(o->sym, 5);
    assert_int_equal(o->space, PTX_SPACE_SHARED);
    assert_int_equal(o->off, 4);
    ptx_module_free(m);
}

static void test_registers(void **state)
{
    (void)state;
    ptx_module *m = kernel("{\n.reg .b32 inner, %r<2>;\nmov.u32 inner, %r1;\n}\nmov.u32 %r9, %r1;");
    const ptx_func *f = ptx_find_func(m, "k");
    /* 4 + 10 + 8 + 6 + 4 outer registers, then `inner` and a shadowing %r<2> */
    assert_int_equal(f->nregs, 32 + 1 + 2);
    assert_int_equal(f->regs[0].type, PTX_T_PRED);
    assert_string_equal(f->regs[4].name, "%r");
    assert_int_equal(f->regs[13].num, 9);
    const ptx_operand *src = opnd(f, 0, 1);
    assert_int_equal(src->reg, 34); /* the inner %r1 */
    assert_int_equal(opnd(f, 1, 1)->reg, 5); /* the outer %r1 after the scope closed */
    assert_int_equal(opnd(f, 1, 0)->reg, 13);
    ptx_module_free(m);
}

/* ---- instruction decoding ---- */
static void test_decode_memory(void **state)
{
    (void)state;
    ptx_module *m = kernel(
        "ld.global.nc.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];\n"
        "st.shared.v2.u32 [%r1+-8], {%r2, %r3};\n"
        "ld.param.u64 %rd1, [k_param_0];\n"
        "cvta.to.global.u64 %rd2, %rd1;\n"
        "mov.u64 %rd3, smem;\n"
        "ld.global.cs.L1::no_allocate.u32 %r1, [%rd2];\n"
        "atom.global.cas.b32 %r1, [%rd2], %r2, %r3;\n"
        "red.relaxed.gpu.global.add.f32 [%rd2], %f1;\n"
        "atom.shared.add.u64 %rd4, [smem+8], 1;\n"
        "ld.volatile.shared.u32 %r5, [0x10];\n"
        "cp.async.cg.shared.global [%r1], [%rd2], 16, 16;\n"
        "ld.global.L2::cache_hint.u32 %r1, [%rd2], %rd3;\n");
    const ptx_func *f = ptx_find_func(m, "k");
    const ptx_insn *in = &f->insns[0];
    assert_int_equal(in->op, PTX_OP_LD);
    assert_int_equal(in->space, PTX_SPACE_GLOBAL);
    assert_true(in->flags & PTX_F_NC);
    assert_int_equal(in->vec, 4);
    assert_int_equal(in->type[0], PTX_T_F32);
    const ptx_operand *v = opnd(f, 0, 0);
    assert_int_equal(v->kind, PTX_OPND_VEC);
    assert_int_equal(v->nvec, 4);
    assert_int_equal(v->vec[2], PTX_NONE);
    const ptx_operand *a = opnd(f, 0, 1);
    assert_int_equal(a->kind, PTX_OPND_ADDR);
    assert_int_equal(a->off, 16);
    assert_int_equal(a->sym, PTX_NONE);
    assert_int_equal(opnd(f, 1, 0)->off, -8);
    assert_int_equal(f->insns[1].op, PTX_OP_ST);
    assert_int_equal(opnd(f, 2, 1)->symkind, PTX_SYM_PARAM);
    assert_int_equal(opnd(f, 2, 1)->sym, 0);
    assert_true(f->insns[3].flags & PTX_F_TO);
    assert_int_equal(f->insns[3].space, PTX_SPACE_GLOBAL);
    assert_int_equal(opnd(f, 4, 1)->kind, PTX_OPND_SYM);
    assert_int_equal(opnd(f, 4, 1)->space, PTX_SPACE_SHARED);
    assert_int_equal(f->insns[5].cache, PTX_CACHE_CS);
    assert_int_equal(f->insns[6].aop, PTX_AOP_CAS);
    assert_int_equal(f->insns[6].nops, 4);
    assert_int_equal(f->insns[7].op, PTX_OP_RED);
    assert_int_equal(f->insns[7].sem, PTX_SEM_RELAXED);
    assert_int_equal(f->insns[7].scope, PTX_SCOPE_GPU);
    assert_int_equal(f->insns[7].aop, PTX_AOP_ADD);
    assert_int_equal(isa_unit(&f->insns[8]), PTX_UNIT_ATOM);
    assert_int_equal(opnd(f, 8, 2)->imm, 1);
    assert_int_equal(opnd(f, 8, 2)->type, PTX_T_U64);
    assert_int_equal(opnd(f, 9, 1)->off, 16);
    assert_int_equal(f->insns[9].sem, PTX_SEM_VOLATILE);
    assert_int_equal(isa_unit(&f->insns[9]), PTX_UNIT_SHMEM);
    assert_int_equal(isa_latclass(&f->insns[9]), PTX_LAT_SHMEM);
    assert_int_equal(f->insns[10].op, PTX_OP_CP_ASYNC);
    assert_int_equal(f->insns[10].mode, PTX_CPASYNC_CG);
    assert_format(m, f, 0, "ld.global.nc.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];");
    assert_format(m, f, 1, "st.shared.v2.u32 [%r1-8], {%r2, %r3};");
    assert_format(m, f, 3, "cvta.to.global.u64 %rd2, %rd1;");
    assert_format(m, f, 10, "cp.async.cg.shared.global [%r1], [%rd2], 16, 16;");
    assert_int_equal(f->insns[11].nops, 3);
    assert_true(f->insns[11].flags & PTX_F_CACHE_HINT);
    assert_format(m, f, 11, "ld.global.L2::cache_hint.u32 %r1, [%rd2], %rd3;");
    ptx_module_free(m);
}

static void test_decode_arith(void **state)
{
    (void)state;
    ptx_module *m = kernel(
        "setp.lt.and.s32 %p1|%p2, %r1, -5, !%p3;\n"
        "cvt.rzi.s32.f64 %r1, %fd1;\n"
        "mul.wide.s32 %rd1, %r1, 4;\n"
        "mov.f32 %f1, 0f3F800000;\n"
        "add.f32 %f1, %f1, 1;\n"
        "add.f64 %fd1, %fd1, 0f3F800000;\n"
        "mov.b32 %r2, 0xFFFFFFFF;\n"
        "mov.u64 %rd2, 0x8000000000000000;\n"
        "fma.rn.ftz.sat.f32 %f2, %f1, %f1, %f1;\n"
        "mad.hi.cc.u32 %r3, %r1, %r2, %r3;\n"
        "ex2.approx.ftz.f32 %f3, %f2;\n"
        "setp.hi.u32 %p1, %r1, %r2;\n"
        "div.rn.f64 %fd2, %fd1, %fd1;\n"
        "set.gt.u32.f32 %r4, %f1, %f2;\n"
        "selp.b32 %r5, 1, 0, %p1;\n"
        "shf.l.wrap.b32 %r6, %r1, %r2, 3;\n"
        "lop3.b32 %r7, %r1, %r2, %r3, 0x96;\n"
        "testp.notanumber.f32 %p2, %f1;\n"
        "prmt.b32.rc8 %r8, %r1, 0, 0;\n");
    const ptx_func *f = ptx_find_func(m, "k");
    const ptx_insn *s = &f->insns[0];
    assert_int_equal(s->op, PTX_OP_SETP);
    assert_int_equal(s->cmp, PTX_CMP_LT);
    assert_int_equal(s->boolop, PTX_BOOL_AND);
    assert_int_equal(opnd(f, 0, 0)->kind, PTX_OPND_PAIR);
    assert_int_equal(opnd(f, 0, 0)->vec[1], 2);
    assert_int_equal((int64_t)opnd(f, 0, 2)->imm, -5);
    assert_int_equal(opnd(f, 0, 2)->type, PTX_T_S32);
    assert_true(opnd(f, 0, 3)->neg);
    assert_int_equal(f->insns[1].type[0], PTX_T_S32);
    assert_int_equal(f->insns[1].type[1], PTX_T_F64);
    assert_int_equal(f->insns[1].round, PTX_RND_RZI);
    assert_int_equal(f->insns[2].mul, PTX_MUL_WIDE);
    assert_int_equal(isa_unit(&f->insns[2]), PTX_UNIT_FMA);
    assert_int_equal(opnd(f, 3, 1)->kind, PTX_OPND_FIMM);
    assert_int_equal(opnd(f, 3, 1)->imm, 0x3F800000);
    /* an integer literal in a float operand becomes that value's bits */
    assert_int_equal(opnd(f, 4, 2)->kind, PTX_OPND_FIMM);
    assert_int_equal(opnd(f, 4, 2)->imm, 0x3F800000);
    /* an f32 literal in an f64 operand is widened */
    assert_int_equal(opnd(f, 5, 2)->imm, 0x3FF0000000000000ull);
    assert_int_equal(opnd(f, 5, 2)->type, PTX_T_F64);
    assert_int_equal(isa_unit(&f->insns[5]), PTX_UNIT_FP64);
    assert_int_equal(isa_latclass(&f->insns[5]), PTX_LAT_FP64);
    assert_int_equal(opnd(f, 6, 1)->imm, 0xFFFFFFFFull);
    assert_int_equal(opnd(f, 7, 1)->imm, 0x8000000000000000ull);
    assert_int_equal(f->insns[8].flags & (PTX_F_FTZ | PTX_F_SAT), PTX_F_FTZ | PTX_F_SAT);
    assert_int_equal(f->insns[8].round, PTX_RND_RN);
    assert_int_equal(f->insns[9].mul, PTX_MUL_HI);
    assert_true(f->insns[9].flags & PTX_F_CC);
    assert_int_equal(isa_unit(&f->insns[10]), PTX_UNIT_SFU);
    assert_true(f->insns[10].flags & PTX_F_APPROX);
    assert_int_equal(f->insns[11].cmp, PTX_CMP_HI);
    assert_int_equal(f->insns[11].mul, PTX_MUL_NONE);
    assert_int_equal(f->insns[13].type[0], PTX_T_U32);
    assert_int_equal(f->insns[13].type[1], PTX_T_F32);
    assert_int_equal(opnd(f, 14, 1)->imm, 1);
    assert_int_equal(f->insns[15].mode, PTX_SHF_L);
    assert_true(f->insns[15].flags & PTX_F_WRAP);
    assert_int_equal(opnd(f, 16, 4)->imm, 0x96);
    assert_int_equal(f->insns[17].mode, PTX_TESTP_NOTANUMBER);
    assert_int_equal(f->insns[18].mode, PTX_PRMT_RC8);
    assert_format(m, f, 0, "setp.lt.and.s32 %p1|%p2, %r1, -5, !%p3;");
    assert_format(m, f, 4, "add.f32 %f1, %f1, 0f3F800000;");
    assert_format(m, f, 9, "mad.hi.cc.u32 %r3, %r1, %r2, %r3;");
    ptx_module_free(m);
}

static void test_decode_control(void **state)
{
    (void)state;
    ptx_module *m = kernel(
        ".loc 1 42 7\n"
        "@!%p1 bra $L__BB0_2;\n"
        "bra.uni $L__BB0_2;\n"
        "$L__BB0_2:\n"
        ".loc 2 5 3, function_name $L__info_string0, inlined_at 1 40 3\n"
        "shfl.sync.bfly.b32 %r2|%p1, %r1, 16, 31, -1;\n"
        "vote.sync.ballot.b32 %r1, %p1, -1;\n"
        "bar.sync 1, 64;\n"
        "barrier.sync 0;\n"
        "bar.red.popc.u32 %r3, 0, %p2;\n"
        "bar.warp.sync -1;\n"
        "membar.gl;\n"
        "fence.acq_rel.gpu;\n"
        "match.any.sync.b32 %r4, %r1, -1;\n"
        "redux.sync.max.u32 %r5, %r1, -1;\n"
        "mov.u32 %r6, %ctaid.y;\n"
        "mov.u64 %rd1, %clock64;\n"
        "activemask.b32 %r7;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r1], %r2;\n"
        "nanosleep.u32 100;\n"
        "@%p1 exit;\n");
    const ptx_func *f = ptx_find_func(m, "k");
    const ptx_insn *b = &f->insns[0];
    assert_int_equal(b->op, PTX_OP_BRA);
    assert_int_equal(b->guard, 1);
    assert_true(b->guard_neg);
    assert_int_equal(b->target, 2);
    assert_int_equal(b->loc_file, 1);
    assert_int_equal(b->loc_line, 42);
    assert_int_equal(b->loc_col, 7);
    assert_int_equal(b->line, 13);
    assert_int_equal(b->col, 7); /* the opcode's column */
    assert_true(f->insns[1].flags & PTX_F_UNI);
    assert_int_equal(opnd(f, 1, 0)->kind, PTX_OPND_LABEL);
    assert_int_equal(opnd(f, 1, 0)->sym, 2);
    const ptx_insn *sh = &f->insns[2];
    assert_int_equal(sh->mode, PTX_SHFL_BFLY);
    assert_true(sh->flags & PTX_F_SYNC);
    assert_int_equal(sh->loc_file, 2);
    assert_int_equal(sh->loc_line, 5);
    /* the outermost location is the inlined_at site */
    assert_int_equal(sh->src_file, 1);
    assert_int_equal(sh->src_line, 40);
    assert_int_equal(sh->src_col, 3);
    assert_int_equal(b->src_line, 42); /* not inlined: same as .loc */
    assert_int_equal(opnd(f, 2, 4)->imm, 0xFFFFFFFFFFFFFFFFull);
    assert_int_equal(f->insns[3].mode, PTX_VOTE_BALLOT);
    assert_int_equal(f->insns[4].mode, PTX_BAR_SYNC);
    assert_true(f->insns[4].flags & PTX_F_ALIGNED);
    assert_int_equal(opnd(f, 4, 1)->imm, 64);
    assert_int_equal(f->insns[5].mode, PTX_BAR_SYNC);
    assert_false(f->insns[5].flags & PTX_F_ALIGNED);
    assert_int_equal(f->insns[6].mode, PTX_BAR_RED);
    assert_int_equal(f->insns[6].aop, PTX_AOP_POPC);
    assert_int_equal(f->insns[7].op, PTX_OP_BAR_WARP_SYNC);
    assert_int_equal(f->insns[8].scope, PTX_SCOPE_GPU);
    assert_int_equal(f->insns[9].sem, PTX_SEM_ACQ_REL);
    assert_int_equal(f->insns[10].mode, PTX_MATCH_ANY);
    assert_int_equal(f->insns[11].aop, PTX_AOP_MAX);
    assert_int_equal(opnd(f, 12, 1)->kind, PTX_OPND_SREG);
    assert_int_equal(opnd(f, 12, 1)->sreg, PTX_SR_CTAID_Y);
    assert_int_equal(opnd(f, 13, 1)->sreg, PTX_SR_CLOCK64);
    assert_int_equal(f->insns[14].op, PTX_OP_ACTIVEMASK);
    assert_int_equal(f->insns[15].op, PTX_OP_MBAR_TRY_WAIT);
    assert_int_equal(f->insns[15].mode, PTX_MBAR_PARITY);
    assert_int_equal(f->insns[15].space, PTX_SPACE_SHARED);
    assert_int_equal(f->insns[17].op, PTX_OP_EXIT);
    assert_format(m, f, 0, "@!%p1 bra $L__BB0_2;");
    assert_format(m, f, 4, "bar.sync 1, 64;");
    assert_format(m, f, 5, "barrier.sync 0;");
    assert_format(m, f, 8, "membar.gl;");
    ptx_module_free(m);
}

static void test_decode_call(void **state)
{
    (void)state;
    ptx_module *m = parse_ok(
        HDR ".func (.param .b32 func_retval0) add1(.param .b32 add1_param_0);\n"
            ".visible .entry k()\n{\n.reg .b32 %r<3>;\n"
            "mov.u32 %r1, 5;\n{ // callseq 0\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n"
            ".param .b32 retval0;\ncall.uni (retval0), \nadd1, \n(\nparam0\n);\n"
            "ld.param.b32 %r2, [retval0+0];\n} // callseq 0\nret;\n}\n"
            ".func (.param .b32 func_retval0) add1(.param .b32 add1_param_0)\n{\n"
            ".reg .b32 %r<3>;\nld.param.u32 %r1, [add1_param_0];\nadd.s32 %r2, %r1, 1;\n"
            "st.param.b32 [func_retval0+0], %r2;\nret;\n}\n");
    /* arity must match the callee's signature */
    const char *bad = HDR ".func (.param .b32 r) f(.param .b32 a);\n"
                          ".visible .entry k()\n{\n.param .b32 x;\ncall.uni f, (x);\nret;\n}\n";
    parse_err(bad, strlen(bad), WL_EUSAGE, 8, 10, "0 return value(s) and 1 argument(s); it has 1 and 1");
    const char *kcall = HDR ".visible .entry k()\n{\ncall.uni k;\nret;\n}\n";
    parse_err(kcall, strlen(kcall), WL_EUSAGE, 6, 10, "call to the kernel 'k'");
    const ptx_func *k = ptx_find_func(m, "k");
    int callee = ptx_find_func_index(m, "add1");
    assert_int_equal(m->nfuncs, 2);
    const ptx_insn *c = &k->insns[2];
    assert_int_equal(c->op, PTX_OP_CALL);
    assert_int_equal(c->target, callee);
    assert_int_equal(c->nret, 1);
    assert_int_equal(c->nops, 2);
    assert_int_equal(opnd(k, 2, 0)->symkind, PTX_SYM_LOCAL);
    assert_int_equal(opnd(k, 2, 1)->symkind, PTX_SYM_LOCAL);
    assert_int_equal(k->nlocals, 2);
    assert_int_equal(k->locals[0].space, PTX_SPACE_PARAM);
    assert_int_equal(k->locals[1].offset, 4);
    assert_int_equal(k->callparam_size, 8);
    /* two call sequences in sibling scopes share the scratch space */
    const char *two = HDR ".func (.param .b32 r) f(.param .b32 a);\n"
                          ".visible .entry k()\n{\n"
                          "{\n.param .b32 x;\n.param .b32 y;\ncall.uni (y), f, (x);\n}\n"
                          "{\n.param .b64 z;\n.param .b32 x;\n.param .b32 y;\ncall.uni (y), f, (x);\n}\n"
                          "ret;\n}\n";
    ptx_module *m2 = parse_ok(two);
    const ptx_func *k2 = ptx_find_func(m2, "k");
    assert_int_equal(k2->nlocals, 5);
    assert_int_equal(k2->locals[2].offset, 0);  /* z reuses the first scope's space */
    assert_int_equal(k2->locals[4].offset, 12); /* y after z (8) and x (4) */
    assert_int_equal(k2->callparam_size, 16);
    ptx_module_free(m2);
    const ptx_func *a = &m->funcs[callee];
    assert_false(a->is_decl);
    assert_int_equal(a->nrets, 1);
    assert_int_equal(opnd(a, 2, 0)->symkind, PTX_SYM_RET);
    assert_format(m, k, 2, "call.uni (retval0), add1, (param0);");
    ptx_module_free(m);
}

/* ---- errors ---- */
typedef struct {
    const char *body;
    wl_status st;
    int line, col;
    const char *sub;
} err_case;

static void test_errors(void **state)
{
    (void)state;
    /* bodies go at line 12 (see kernel()) */
    static const err_case cases[] = {
        {"foo.bar %r1;", WL_EUSAGE, 12, 1, "unknown instruction 'foo.bar'"},
        {"  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f1, %f2}];", WL_EUNSUPPORTED, 12, 3,
         "unsupported instruction 'tex.2d"},
        {"wgmma.fence.sync.aligned;", WL_EUNSUPPORTED, 12, 1, "wgmma"},
        {"cvt.rn.satfinite.e4m3x2.f32 %r1, %f1, %f2;", WL_EUNSUPPORTED, 12, 1, "satfinite"},
        {".reg .b32 %q<99999999>;", WL_EUSAGE, 12, 0, "too large"},
        {"bra $L_nowhere;", WL_EUSAGE, 12, 5, "undefined label '$L_nowhere'"},
        {"mov.u32 %r1, %r2", WL_EUSAGE, 13, 1, "expected ',' or ';'"},
        {"mov.u32 %r1, %zz3;", WL_EUSAGE, 12, 14, "undeclared register"},
        {"mov.u32 %r1, %r10;", WL_EUSAGE, 12, 14, "undeclared"},
        {"mov.u64 %rd1, 999999999999999999999999;", WL_EUSAGE, 12, 15, "too large or malformed"},
        {"add.q32 %r1, %r1, %r1;", WL_EUSAGE, 12, 1, "unknown modifier '.q32'"},
        {"add.s32 %r1, %r1;", WL_EUSAGE, 12, 1, "add takes 3 to 3 operands, found 2"},
        {"@%r1 bra $L;", WL_EUSAGE, 12, 2, "not a predicate"},
        {"$L: $L: ret;", WL_EUSAGE, 12, 5, "duplicate label"},
        {"/* never closed", WL_EUSAGE, 12, 1, "unterminated comment"},
        {"call.uni %rd1, (%r1);", WL_EUNSUPPORTED, 12, 10, "indirect call"},
        {"call.uni nosuch;", WL_EUSAGE, 12, 10, "undeclared function"},
        {"mov.u32 %r1, %pm0;", WL_EUNSUPPORTED, 12, 14, "special register"},
        {"mov.u32 %r1, %reserved_smem_offset_1;", WL_EUNSUPPORTED, 12, 14, "special register"},
        {".surfref s;", WL_EUNSUPPORTED, 12, 1, "unsupported directive '.surfref'"},
        {"ld.global.v8.f32 {%f1}, [%rd1];", WL_EUNSUPPORTED, 12, 1, ".v8"},
        {"st.global.u32 [%rd1+1x], %r1;", WL_EUSAGE, 12, 0, "address offset"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[4096];
        snprintf(buf, sizeof buf,
                 HDR ".shared .align 4 .b8 smem[64];\n"
                     ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)\n{\n"
                     ".reg .pred %%p<4>;\n.reg .b32 %%r<10>;\n.reg .f32 %%f<8>;\n"
                     ".reg .b64 %%rd<6>;\n.reg .f64 %%fd<4>;\n%s\nret;\n}\n",
                 cases[i].body);
        print_message("case %zu: %s\n", i, cases[i].body);
        parse_err(buf, strlen(buf), cases[i].st, cases[i].line, cases[i].col, cases[i].sub);
    }
}

/* An instruction the simulator does not model is skipped by the parser and refused when a
 * kernel that reaches it is launched (ptx_check_supported): the file's other kernels run. */
/* A tensor-core instruction alone in a kernel that declares %r, %f and %rd registers: parsing
 * fails with status st at its line (9) and a message containing msg. */
static void tensor_err(const char *insn, wl_status st, const char *msg)
{
    char src[1024];
    snprintf(src, sizeof src,
             HDR ".entry k()\n{\n.reg .b32 %%r<10>;\n.reg .f32 %%f<10>;\n.reg .b64 %%rd<2>;\n"
                 "%s;\nret;\n}\n",
             insn);
    parse_err(src, strlen(src), st, 9, 1, msg);
}

/* mma.sync: the four forms parse into shape (mode) and types, print back as written, and check
 * their operands; other mma forms are skipped and refused per kernel like any unsupported
 * instruction. */
static void test_mma_forms(void **state)
{
    (void)state;
    static const struct {
        const char *form, *ops;
        unsigned mode, ab;
    } ok[] = {
        {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
         "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4}",
         PTX_MMA_M16N8K16, PTX_T_F16},
        {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
         "{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f7}",
         PTX_MMA_M16N8K16, PTX_T_BF16},
        {"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
         "{%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5}, {%f5, %f6, %f7, %f7}", PTX_MMA_M16N8K8,
         PTX_T_F16},
        {"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
         "{%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5}, {%f5, %f6, %f7, %f7}", PTX_MMA_M16N8K8,
         PTX_T_BF16},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char body[512], want[512];
        snprintf(body, sizeof body, "%s %s;", ok[i].form, ok[i].ops);
        ptx_module *m = kernel(body);
        const ptx_func *f = &m->funcs[0];
        const ptx_insn *in = &f->insns[0];
        assert_int_equal(in->op, PTX_OP_MMA);
        assert_int_equal(in->mode, ok[i].mode);
        assert_int_equal(in->type[0], PTX_T_F32);
        assert_int_equal(in->type[1], ok[i].ab);
        assert_int_equal(in->type[2], PTX_T_F32);
        assert_int_equal(in->nops, 4);
        assert_int_equal(isa_unit(in), PTX_UNIT_TENSOR);
        snprintf(want, sizeof want, "%s %s;", ok[i].form, ok[i].ops);
        assert_format(m, f, 0, want);
        ptx_module_free(m);
    }
    /* a wrong count, a 64-bit register, a scalar where a vector belongs */
    static const struct {
        const char *ops, *msg;
    } bad[] = {
        {"{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3}, {%r5, %r6}, {%f1, %f2, %f3, %f4}",
         "operand 2 must be a vector of 4 32-bit registers"},
        {"{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%rd1, %r6}, {%f1, %f2, %f3, %f4}",
         "operand 3 must be a vector of 2 32-bit registers"},
        {"{%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, %f1",
         "operand 4 must be a vector of 4 32-bit registers (d, a, b, c: {4}, {4}, {2}, {4})"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char insn[512];
        snprintf(insn, sizeof insn, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 %s",
                 bad[i].ops);
        tensor_err(insn, WL_EUSAGE, bad[i].msg);
    }
    /* other mma forms: skipped, the kernel refused at its position */
    static const char *const other[] = {
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, "
        "%r4}, {%r1, %r2}, {%r1, %r2, %r3, %r4}",
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r1, %r2, %r3, %r4}, "
        "{%r1, %r2}, {%r1, %r2}",
        "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, "
        "%r3, %r4}, {%r1, %r2, %r3, %r4}, {%f1, %f2, %f3, %f4}, %r1, 0x0",
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        tensor_err(other[i], WL_EUNSUPPORTED, "unsupported instruction 'mma.");
}

/* wmma (m16n16k16, f16/bf16 into f32): the forms nvcuda::wmma writes parse, keep the fragment
 * of 8 registers as two VEC operands, print back as written; others are skipped. */
static void test_wmma_forms(void **state)
{
    (void)state;
    static const char *const ok[] = {
        "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, "
        "%r8}, [%rd1], %r9;",
        "wmma.load.b.sync.aligned.col.m16n16k16.shared.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, "
        "%r8}, [%rd1], 32;",
        "wmma.load.a.sync.aligned.row.m16n16k16.bf16 {%r1, %r2, %r3, %r4}, [%rd1], %r9;",
        "wmma.load.c.sync.aligned.col.m16n16k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "
        "%f0}, [%rd1];",
        "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, "
        "%f6, %f7, %f0}, %r9;",
        "wmma.mma.sync.aligned.row.col.m16n16k16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f0}, "
        "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, "
        "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f0};",
        "wmma.mma.sync.aligned.col.row.m16n16k16.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4, %f5, "
        "%f6, %f7, %f0}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4, %f5, "
        "%f6, %f7, %f0};",
    };
    static const unsigned nops[] = {4, 4, 3, 3, 4, 8, 6};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char body[512], want[512];
        /* wmma.mma.f32.f32 is written with both types; the printed form names d's only */
        snprintf(body, sizeof body, "%s", ok[i]);
        if (i == 5)
            snprintf(body, sizeof body, "%s",
                     "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, "
                     "%f6, %f7, %f0}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r1, %r2, %r3, "
                     "%r4, %r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f0};");
        ptx_module *m = kernel(body);
        const ptx_func *f = &m->funcs[0];
        assert_int_equal(f->insns[0].nops, nops[i]);
        snprintf(want, sizeof want, "%s", ok[i]);
        if (i == 5) /* f16 inputs: .f32.f32 as nvcc writes it */
            snprintf(want, sizeof want, "%s", body);
        assert_format(m, f, 0, want);
        ptx_module_free(m);
    }
    ptx_module *m = kernel(ok[0]);
    const ptx_insn *in = &m->funcs[0].insns[0];
    assert_int_equal(in->op, PTX_OP_WMMA_LOAD);
    assert_int_equal(in->mode, PTX_WMMA_A);
    assert_int_equal(in->space, PTX_SPACE_GLOBAL);
    assert_int_equal(in->type[0], PTX_T_F16);
    ptx_module_free(m);
    m = kernel(ok[6]);
    in = &m->funcs[0].insns[0];
    assert_int_equal(in->op, PTX_OP_WMMA_MMA);
    assert_int_equal(in->mode, PTX_WMMA_A_COL);
    assert_int_equal(in->type[1], PTX_T_BF16);
    ptx_module_free(m);
    static const struct {
        const char *insn, *msg;
    } bad[] = {
        {"wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4}, [%rd1], %r9",
         "operand 1 must be a vector of 8 32-bit registers"},
        {"wmma.store.d.sync.aligned.row.m16n16k16.global.f32 %rd1, {%f1, %f2, %f3, %f4, %f5, "
         "%f6, %f7, %f0}, %r9", "must be an address"},
        {"wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, "
         "%f0}, [%rd1], %f1", "the stride must be an integer register or constant"},
        {"wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4, %f5, "
         "%f6, %f7, %f0}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}, {%f1, "
         "%f2, %f3, %f4, %f5, %f6, %f7, %f0}", "operand 2 must be a vector of 4 32-bit"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tensor_err(bad[i].insn, WL_EUSAGE, bad[i].msg);
    static const char *const other[] = {
        "wmma.load.a.sync.aligned.row.m32n8k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, "
        "%r8}, [%rd1], %r9",
        "wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16 {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, "
        "%r4, %r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}",
        "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%r1, %r2, %r3, %r4}, [%rd1], %r9",
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        tensor_err(other[i], WL_EUNSUPPORTED, "unsupported instruction 'wmma.");
}

static void test_unsupported_deferred(void **state)
{
    (void)state;
    static const char src[] =
        HDR ".func (.param .b32 r) uses_tex(.param .b64 t)\n{\n.reg .b32 %r<2>;\n"
            "tex.1d.v4.s32.s32 {%r1, %r1, %r1, %r1}, [t, {%r1}];\n"
            "st.param.b32 [r], %r1;\nret;\n}\n"
            ".entry plain(.param .u64 p)\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, 1;\nret;\n}\n"
            ".entry tensor()\n{\n.reg .pred %p<2>;\n"
            "@%p1 wgmma.fence.sync.aligned;\n  wmma.mma.sync.aligned.row.col.m32n8k16.f32.f32 "
            "{%f1}, {%f2}, {%f3}, {%f4};\nret;\n}\n"
            ".entry caller()\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n{\n"
            ".param .b64 a;\n.param .b32 b;\nst.param.b64 [a], %rd1;\n"
            "call.uni (b), uses_tex, (a);\nld.param.b32 %r1, [b];\n}\nret;\n}\n";
    ptx_module *m = NULL;
    diag_t d;
    diag_clear(&d);
    assert_int_equal(ptx_parse_string(src, strlen(src), "u.ptx", &m, &d), WL_OK);
    const ptx_func *plain = ptx_find_func(m, "plain"), *tensor = ptx_find_func(m, "tensor"),
                   *caller = ptx_find_func(m, "caller");
    assert_non_null(plain);
    assert_non_null(tensor);
    assert_non_null(caller);
    assert_int_equal(ptx_check_supported(m, plain, &d), WL_OK);
    assert_null(plain->unsup_insn);
    /* the first one of the kernel: line 20, column 6 (after the guard); the instructions
     * skipped, up to their ';' (the operand braces included) */
    diag_clear(&d);
    assert_int_equal(ptx_check_supported(m, tensor, &d), WL_EUNSUPPORTED);
    assert_int_equal(d.line, 20);
    assert_int_equal(d.col, 6);
    assert_non_null(strstr(d.msg, "unsupported instruction 'wgmma.fence.sync.aligned'"));
    assert_int_equal(tensor->ninsns, 1); /* only ret */
    /* through a call: the callee's instruction, naming both */
    diag_clear(&d);
    assert_int_equal(ptx_check_supported(m, caller, &d), WL_EUNSUPPORTED);
    assert_int_equal(d.line, 7);
    assert_int_equal(d.col, 1);
    assert_non_null(strstr(d.msg, "'tex.1d.v4.s32.s32' (in uses_tex, which kernel caller calls)"));
    assert_string_equal(d.file, "u.ptx");
    ptx_module_free(m);
    /* a file that ends inside a skipped instruction is still malformed */
    static const char cut[] = HDR ".entry k()\n{\nwgmma.fence.sync.aligned\n";
    parse_err(cut, strlen(cut), WL_EUSAGE, 0, 0, "expected ';'");
}

static void test_module_errors(void **state)
{
    (void)state;
    parse_err(HDR ".global .u64 p = generic(x);\n", strlen(HDR) + 30, WL_EUNSUPPORTED, 4, 18,
              "address initializer");
    parse_err(HDR ".global .texref t;\n", strlen(HDR) + 19, WL_EUNSUPPORTED, 4, 9, ".texref");
    parse_err(HDR ".entry k(\n", strlen(HDR) + 10, WL_EUSAGE, 5, 1, "expected");
    const char *dup = HDR ".entry k(.param .u32 a, .param .u32 a)\n{\nret;\n}\n";
    parse_err(dup, strlen(dup), WL_EUSAGE, 4, 37, "duplicate parameter 'a'");
    char mods[256];
    snprintf(mods, sizeof mods, HDR ".entry k()\n{\n.reg .b32 %%r<2>;\n"
             "ld.global.global.global.global.global.global.global.global.global.global.global."
             "global.global.global.global.global.global.u32 %%r1, [%%r0];\nret;\n}\n");
    parse_err(mods, strlen(mods), WL_EUSAGE, 7, 1, "too many modifiers");
    parse_err(HDR ".entry k()\n{\nret;\n", strlen(HDR) + 17, WL_EUSAGE, 0, 0, "unterminated body");
    parse_err("\x01\x02garbage", 9, WL_EUSAGE, 1, 1, "unexpected character");
    parse_err(HDR "\0.entry", strlen(HDR) + 7, WL_EUSAGE, 4, 1, "NUL byte");
    const char *tm = ".version 9.0\n.target sm_90, texmode_independent\n";
    parse_err(tm, strlen(tm), WL_EUNSUPPORTED, 2, 16, "texmode");
    parse_err(HDR ".entry k()\n{\nret;\n}\n.entry k()\n{\nret;\n}\n", strlen(HDR) + 36, WL_EUSAGE,
              8, 8, "defined twice");
    /* labels belong to their function (fuzzer find: a branch resolved to another
     * function's label and indexed past the instructions) */
    const char *lab = HDR ".entry a()\n{\n$L1: ret;\n}\n.entry b()\n{\nbra $L1;\nret;\n}\n";
    parse_err(lab, strlen(lab), WL_EUSAGE, 10, 5, "undefined label '$L1'");
    ptx_module *ml = parse_ok(HDR ".entry a()\n{\n$L1: ret;\n}\n.entry b()\n{\nbra $L1;\n$L1: ret;\n}\n");
    assert_int_equal(ml->funcs[1].insns[0].target, 1);
    ptx_module_free(ml);
    /* an empty or comment-only file is an empty module */
    ptx_module *m = parse_ok("// nothing here\n");
    assert_int_equal(m->nfuncs, 0);
    ptx_module_free(m);
    diag_t d;
    assert_int_equal(ptx_parse_file("/nonexistent/x.ptx", &m, &d), WL_EUSAGE);
    assert_null(m);
}

/* Deep nesting, huge lines, every truncation of a real file: bounded, no crash. */
static void test_hostile_inputs(void **state)
{
    (void)state;
    size_t n = 10u << 20;
    char *big = malloc(n + 256);
    assert_non_null(big);
    /* 10 MB of '{' inside a body: rejected at the nesting limit */
    int h = snprintf(big, 256, HDR ".entry k()\n");
    memset(big + h, '{', n);
    parse_err(big, (size_t)h + n, WL_EUSAGE, 5, PTX_MAX_NESTING, "nested too deeply");
    /* 10 MB of '{' in an initializer (was a stack overflow: recursion is bounded now) */
    h = snprintf(big, 256, HDR ".global .b8 x[4] = ");
    memset(big + h, '{', n);
    parse_err(big, (size_t)h + n, WL_EUSAGE, 4, 20 + PTX_MAX_NESTING, "initializer nested too deeply");
    /* many functions with maximal register ranges: the module-wide cap stops them */
    {
        size_t o = (size_t)snprintf(big, 256, HDR);
        for (int i = 0; i < 10; i++)
            o += (size_t)snprintf(big + o, n - o, ".entry e%d()\n{\n.reg .b32 %%r<%u>;\nret;\n}\n", i,
                                  PTX_MAX_RANGE);
        parse_err(big, o, WL_EUSAGE, 0, 0, "too many registers in the module");
    }
    /* a 10 MB line of spaces, then a bad token at its end */
    h = snprintf(big, 256, HDR);
    memset(big + h, ' ', n);
    memcpy(big + h + n, "?", 1);
    parse_err(big, (size_t)h + n + 1, WL_EUSAGE, 4, (int)n + 1, "unexpected character");
    /* a 10 MB identifier */
    memset(big + h, 'a', n);
    parse_err(big, (size_t)h + n, WL_EUSAGE, 4, 1, "expected a directive");
    free(big);

    /* 20,000 entries x 20,000 shared variables: the per-entry layout is bounded */
    {
        size_t cap = 4u << 20, o = 0;
        char *s = malloc(cap);
        assert_non_null(s);
        o += (size_t)snprintf(s, cap, HDR);
        for (int i = 0; i < 20000; i++)
            o += (size_t)snprintf(s + o, cap - o, ".shared .b8 v%d[4];\n", i);
        for (int i = 0; i < 20000; i++)
            o += (size_t)snprintf(s + o, cap - o, ".entry e%d()\n{\nret;\n}\n", i);
        struct timespec t0, t1;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        parse_err(s, o, WL_EUSAGE, 0, 0, "module too large to lay out");
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
        double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        free(s);
        if (sec > 10.0)
            fail_msg("rejecting the 20000 x 20000 module took %.2f s CPU", sec);
    }
    size_t len;
    char *src = tu_read_file(tu_path("tests/data/ptx/calls.ptx"), &len);
    assert_non_null(src);
    unsigned ok = 0, bad = 0;
    for (size_t cut = 0; cut < len; cut += 37) {
        ptx_module *m;
        diag_t d;
        wl_status st = ptx_parse_string(src, cut, "cut.ptx", &m, &d);
        if (st == WL_OK) {
            ok++;
            ptx_module_free(m);
        } else {
            if (st != WL_EUSAGE && st != WL_EUNSUPPORTED)
                fail_msg("cut at %zu: status %d", cut, st);
            if (d.msg[0] == '\0')
                fail_msg("cut at %zu: empty message", cut);
            bad++;
        }
    }
    print_message("truncations: %u parse, %u rejected\n", ok, bad);
    assert_true(bad > 0 && ok > 0);
    free(src);
}

/* A kernel of 200,000 instructions parses in well under a second. */
static void test_speed(void **state)
{
    (void)state;
    const unsigned ni = 200000;
    size_t cap = (size_t)ni * 48 + 1024, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s, cap, HDR ".visible .entry big(.param .u64 p)\n{\n"
                                        ".reg .pred %%p<2>;\n.reg .b32 %%r<64>;\n.reg .b64 %%rd<4>;\n"
                                        "ld.param.u64 %%rd1, [p];\n$L0:\n");
    for (unsigned i = 0; i < ni; i++) {
        unsigned a = i % 61, b = (i * 7) % 61;
        switch (i % 4) {
        case 0: len += (size_t)snprintf(s + len, cap - len, "add.s32 %%r%u, %%r%u, %u;\n", a, b, i); break;
        case 1: len += (size_t)snprintf(s + len, cap - len, "ld.global.u32 %%r%u, [%%rd1+%u];\n", a, i); break;
        case 2: len += (size_t)snprintf(s + len, cap - len, "setp.lt.s32 %%p1, %%r%u, %%r%u;\n", a, b); break;
        default: len += (size_t)snprintf(s + len, cap - len, "@%%p1 bra $L0;\n"); break;
        }
    }
    len += (size_t)snprintf(s + len, cap - len, "ret;\n}\n");
    /* CPU time, so other processes on a loaded machine do not count */
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    ptx_module *m;
    diag_t d;
    assert_int_equal(ptx_parse_string(s, len, "big.ptx", &m, &d), WL_OK);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    const ptx_func *f = ptx_find_func(m, "big");
    uint32_t got = f->ninsns;
    ptx_module_free(m);
    free(s);
    assert_int_equal(got, ni + 2);
    print_message("parsed %u instructions (%zu bytes) in %.3f s CPU\n", got, len, sec);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
    const double limit = 20.0; /* sanitizers slow parsing ~10x */
#else
    const double limit = 1.0; /* ~0.3 s at -O2 */
#endif
    if (sec > limit)
        fail_msg("parsing %u instructions took %.3f s CPU (limit %.1f s)", got, sec, limit);
}

/* ---- the opcode table ---- */
static void test_isa_table(void **state)
{
    (void)state;
    for (int op = 0; op < PTX_OP_COUNT; op++) {
        const char *nm = isa_name(op);
        assert_true(nm[0] != '\0' && strcmp(nm, "?") != 0);
        for (int o2 = 0; o2 < op; o2++)
            if (strcmp(nm, isa_name(o2)) == 0)
                fail_msg("opcode name '%s' appears twice (%d and %d)", nm, o2, op);
        unsigned nd, smin, smax;
        isa_shape(op, &nd, &smin, &smax);
        if (smin > smax || nd > 1)
            fail_msg("%s: bad shape %u, %u..%u", nm, nd, smin, smax);
        ptx_insn in;
        memset(&in, 0, sizeof in);
        in.op = (uint16_t)op;
        for (int t = PTX_T_PRED; t < PTX_T_COUNT; t++) {
            in.type[0] = (uint8_t)t;
            ptx_unit u = isa_unit(&in);
            if (u == PTX_UNIT_ARITH || u >= PTX_UNIT_COUNT)
                fail_msg("%s.%s: unit %s not resolved", nm, ptx_type_name((ptx_type)t),
                         isa_unit_name(u));
            assert_true(isa_latclass(&in) < PTX_LAT_COUNT);
        }
    }
    /* docs/ptx.md lists every opcode (generated from isa.def; must not drift) */
    size_t dlen;
    char *doc = tu_read_file(tu_path("docs/ptx.md"), &dlen);
    assert_non_null(doc);
    for (int op = 0; op < PTX_OP_COUNT; op++) {
        char cell[64];
        snprintf(cell, sizeof cell, "| `%s` |", isa_name(op));
        if (!strstr(doc, cell))
            fail_msg("docs/ptx.md's opcode table lacks %s", isa_name(op));
    }
    free(doc);
    assert_string_equal(isa_name(-1), "?");
    assert_string_equal(isa_name(PTX_OP_COUNT), "?");
    /* type-dependent units: integer ALU, IMAD on the FMA pipe, FP32, FP64 */
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.op = PTX_OP_ADD;
    in.type[0] = PTX_T_S32;
    assert_int_equal(isa_unit(&in), PTX_UNIT_ALU);
    in.type[0] = PTX_T_F32;
    assert_int_equal(isa_unit(&in), PTX_UNIT_FMA);
    in.type[0] = PTX_T_F64;
    assert_int_equal(isa_unit(&in), PTX_UNIT_FP64);
    assert_int_equal(isa_latclass(&in), PTX_LAT_FP64);
    in.op = PTX_OP_MAD;
    in.type[0] = PTX_T_U32;
    assert_int_equal(isa_unit(&in), PTX_UNIT_FMA);
    in.op = PTX_OP_LD;
    in.space = PTX_SPACE_GLOBAL;
    assert_int_equal(isa_unit(&in), PTX_UNIT_LSU);
    assert_int_equal(isa_latclass(&in), PTX_LAT_MEM);
    in.space = PTX_SPACE_SHARED;
    assert_int_equal(isa_unit(&in), PTX_UNIT_SHMEM);
    in.op = PTX_OP_SHFL;
    assert_int_equal(isa_unit(&in), PTX_UNIT_SHFL);
    assert_string_equal(ptx_type_name(PTX_T_BF16X2), "bf16x2");
    assert_int_equal(ptx_type_size(PTX_T_F64), 8);
    assert_int_equal(ptx_type_size(PTX_T_PRED), 1);
    assert_string_equal(ptx_sreg_name(PTX_SR_CTAID_Z), "%ctaid.z");
    assert_string_equal(ptx_sreg_name((ptx_sreg)(PTX_SR_ENVREG0 + 31)), "%envreg31");
    assert_string_equal(ptx_space_name(PTX_SPACE_SHARED), "shared");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_files_parse),
        cmocka_unit_test(test_format_roundtrip),
        cmocka_unit_test(test_module_header),
        cmocka_unit_test(test_variables_and_smem),
        cmocka_unit_test(test_registers),
        cmocka_unit_test(test_decode_memory),
        cmocka_unit_test(test_decode_arith),
        cmocka_unit_test(test_decode_control),
        cmocka_unit_test(test_decode_call),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_module_errors),
        cmocka_unit_test(test_mma_forms),
        cmocka_unit_test(test_wmma_forms),
        cmocka_unit_test(test_unsupported_deferred),
        cmocka_unit_test(test_hostile_inputs),
        cmocka_unit_test(test_speed),
        cmocka_unit_test(test_isa_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
