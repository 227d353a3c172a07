/* ptx_cfg: basic blocks, successors and immediate post-dominators
 * (reconvergence points) on crafted graphs, crafted PTX control flow and the
 * committed kernels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "ptx_cfg.h"
#include "test_ptx_files.h"
#include "testutil.h"

/* ---- the algorithm on raw graphs (node n is the exit) ---- */
typedef struct {
    const char *name;
    uint32_t n;
    uint32_t succ[16][2];
    uint8_t nsucc[16];
    int32_t want[16];
} graph_case;

static void check_graph(const graph_case *g)
{
    uint32_t succ[32];
    int32_t got[16];
    for (uint32_t i = 0; i < g->n; i++) {
        succ[2 * i] = g->succ[i][0];
        succ[2 * i + 1] = g->succ[i][1];
    }
    assert_int_equal(ptx_postdom(g->n, succ, g->nsucc, got), 0);
    for (uint32_t i = 0; i < g->n; i++)
        if (got[i] != g->want[i])
            fail_msg("%s: ipdom(%u) = %d, want %d", g->name, i, got[i], g->want[i]);
}

static void test_postdom_graphs(void **state)
{
    (void)state;
    static const graph_case cases[] = {
        /* 0 -> {1,2} -> 3 -> exit(4) */
        {"diamond", 4, {{1, 2}, {3, 0}, {3, 0}, {4, 0}}, {2, 1, 1, 1}, {3, 3, 3, 4}},
        /* nested if/else, inner and outer join at 5: 0->{1,4}; 1->{2,3}; 2,3,4->5 */
        {"nested", 6,
         {{1, 4}, {2, 3}, {5, 0}, {5, 0}, {5, 0}, {6, 0}},
         {2, 2, 1, 1, 1, 1},
         {5, 5, 5, 5, 5, 6}},
        /* loop with a break: 0->1; 1->{2,4}; 2->{3,4} (break); 3->1; 4->exit */
        {"loop-break", 5, {{1, 0}, {2, 4}, {3, 4}, {1, 0}, {5, 0}}, {1, 2, 2, 1, 1},
         {1, 4, 4, 1, 5}},
        /* early return: 0->{1,2}; 1->exit; 2->3; 3->exit: paths meet only at exit */
        {"early-exit", 4, {{1, 2}, {4, 0}, {3, 0}, {4, 0}}, {2, 1, 1, 1}, {4, 4, 3, 4}},
        /* infinite loop: 0->{1,2}; 1->1 (never exits); 2->exit */
        {"infinite", 3, {{1, 2}, {1, 0}, {3, 0}}, {2, 1, 1}, {2, -1, 3}},
        /* irreducible: 0->{1,2}; 1->2; 2->{1,3}; 3->exit */
        {"irreducible", 4, {{1, 2}, {2, 0}, {1, 3}, {4, 0}}, {2, 1, 2, 1}, {2, 2, 3, 4}},
        /* unreachable-from-entry node 3 still gets its post-dominator */
        {"dead-code", 4, {{1, 0}, {2, 0}, {4, 0}, {2, 0}}, {1, 1, 1, 1}, {1, 2, 4, 2}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_graph(&cases[i]);
}

/* A long chain of loop exits (quadratic for Cooper-Harvey-Kennedy). */
static void test_postdom_long_chain(void **state)
{
    (void)state;
    const uint32_t n = 200000;
    uint32_t *succ = malloc(2 * n * sizeof(uint32_t));
    uint8_t *ns = malloc(n);
    int32_t *ip = malloc(n * sizeof(int32_t));
    assert_true(succ && ns && ip);
    for (uint32_t i = 0; i < n; i++) {
        succ[2 * i] = i + 1;          /* fall through (the last falls into the exit) */
        succ[2 * i + 1] = 0;          /* branch back to the top */
        ns[i] = i + 1 < n ? 2 : 1;
    }
    assert_int_equal(ptx_postdom(n, succ, ns, ip), 0);
    for (uint32_t i = 0; i < n; i++)
        if (ip[i] != (int32_t)(i + 1))
            fail_msg("ipdom(%u) = %d, want %u", i, ip[i], i + 1);
    free(succ);
    free(ns);
    free(ip);
}

/* ---- crafted PTX ---- */
/* Block containing the instruction after label `name`. */
static int32_t block_at(const ptx_func *f, const char *name)
{
    for (uint32_t i = 0; i < f->nlabels; i++)
        if (strcmp(f->labels[i].name, name) == 0)
            return f->labels[i].insn < f->ninsns ? f->insns[f->labels[i].insn].block
                                                 : (int32_t)f->nblocks;
    fail_msg("no label %s", name);
    return -1;
}

static void expect_ipdom(const ptx_func *f, const char *from, const char *to)
{
    int32_t a = block_at(f, from);
    int32_t want = to ? block_at(f, to) : (int32_t)f->nblocks;
    if (f->blocks[a].ipdom != want)
        fail_msg("ipdom(block of %s = B%d) = B%d, want B%d (%s)", from, a, f->blocks[a].ipdom,
                 want, to ? to : "exit");
}

static void test_cfg_if_else_nested(void **state)
{
    (void)state;
    /* if (a) { if (b) x; else y; } else z; join */
    ptx_module *m = parse_ok(
        HDR ".visible .entry k()\n{\n.reg .pred %p<3>;\n.reg .b32 %r<4>;\n"
            "A: mov.u32 %r1, %tid.x;\nsetp.eq.s32 %p1, %r1, 0;\n@%p1 bra ELSE;\n"
            "THEN: setp.eq.s32 %p2, %r1, 1;\n@%p2 bra INNER_ELSE;\n"
            "INNER_THEN: add.s32 %r2, %r1, 1;\nbra.uni INNER_JOIN;\n"
            "INNER_ELSE: add.s32 %r2, %r1, 2;\n"
            "INNER_JOIN: add.s32 %r3, %r2, 3;\nbra.uni JOIN;\n"
            "ELSE: mov.u32 %r3, 7;\n"
            "JOIN: add.s32 %r1, %r3, 1;\nret;\n}\n");
    const ptx_func *f = &m->funcs[0];
    assert_int_equal(f->nblocks, 7);
    expect_ipdom(f, "A", "JOIN");
    expect_ipdom(f, "THEN", "INNER_JOIN");
    expect_ipdom(f, "INNER_THEN", "INNER_JOIN");
    expect_ipdom(f, "INNER_ELSE", "INNER_JOIN");
    expect_ipdom(f, "INNER_JOIN", "JOIN");
    expect_ipdom(f, "ELSE", "JOIN");
    expect_ipdom(f, "JOIN", NULL);
    /* successors: fall-through first, then the branch target */
    const ptx_block *a = &f->blocks[block_at(f, "A")];
    assert_int_equal(a->nsucc, 2);
    assert_int_equal(a->succ[0], (uint32_t)block_at(f, "THEN"));
    assert_int_equal(a->succ[1], (uint32_t)block_at(f, "ELSE"));
    const ptx_block *j = &f->blocks[block_at(f, "JOIN")];
    assert_int_equal(j->nsucc, 1);
    assert_int_equal(j->succ[0], f->nblocks);
    ptx_module_free(m);
}

static void test_cfg_loop_break_and_exit(void **state)
{
    (void)state;
    ptx_module *m = parse_ok(
        HDR ".visible .entry k()\n{\n.reg .pred %p<4>;\n.reg .b32 %r<4>;\n"
            "TOP: mov.u32 %r1, 0;\nmov.u32 %r2, %tid.x;\n"
            "HEAD: setp.ge.s32 %p1, %r1, %r2;\n@%p1 bra AFTER;\n"
            "BODY: setp.eq.s32 %p2, %r1, 5;\n@%p2 bra AFTER;\n"
            "CONT: add.s32 %r1, %r1, 1;\n@%p3 exit;\n"
            "LATCH: bra.uni HEAD;\n"
            "AFTER: setp.eq.s32 %p3, %r2, 3;\n@%p3 bra EARLY;\n"
            "NORMAL: add.s32 %r3, %r1, 1;\nret;\n"
            "EARLY: exit;\n}\n");
    const ptx_func *f = &m->funcs[0];
    expect_ipdom(f, "TOP", "HEAD");
    /* the loop has an exit inside it, so the loop header reconverges only at thread exit */
    expect_ipdom(f, "HEAD", NULL);
    expect_ipdom(f, "BODY", NULL);
    expect_ipdom(f, "CONT", NULL);
    expect_ipdom(f, "LATCH", "HEAD");
    expect_ipdom(f, "AFTER", NULL); /* ret and exit only meet at the exit node */
    expect_ipdom(f, "NORMAL", NULL);
    const ptx_block *c = &f->blocks[block_at(f, "CONT")];
    assert_int_equal(c->nsucc, 2); /* guarded exit: fall-through and the exit node */
    assert_int_equal(c->succ[1], f->nblocks);
    ptx_module_free(m);

    /* without the exit inside, the loop reconverges at AFTER */
    m = parse_ok(HDR ".visible .entry k()\n{\n.reg .pred %p<4>;\n.reg .b32 %r<4>;\n"
                     "HEAD: setp.ge.s32 %p1, %r1, %r2;\n@%p1 bra AFTER;\n"
                     "BODY: setp.eq.s32 %p2, %r1, 5;\n@%p2 bra AFTER;\n"
                     "LATCH: add.s32 %r1, %r1, 1;\nbra.uni HEAD;\n"
                     "AFTER: ret;\n}\n");
    f = &m->funcs[0];
    expect_ipdom(f, "HEAD", "AFTER");
    expect_ipdom(f, "BODY", "AFTER");
    expect_ipdom(f, "LATCH", "HEAD");
    ptx_module_free(m);
}

/* Every committed kernel: block ranges tile the instructions, every
 * instruction's block is right, ipdoms are in range and never the block itself. */
static void check_module_cfg(const char *path)
{
    ptx_module *m;
    diag_t d;
    if (ptx_parse_file(path, &m, &d) != WL_OK)
        fail_msg("%s does not parse: %s", path, d.msg);
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        const ptx_func *f = &m->funcs[fi];
        uint32_t next = 0;
        for (uint32_t b = 0; b < f->nblocks; b++) {
            const ptx_block *bl = &f->blocks[b];
            if (bl->first != next || bl->last < bl->first)
                fail_msg("%s %s: block %u covers %u..%u, expected to start at %u", path, f->name,
                         b, bl->first, bl->last, next);
            for (uint32_t i = bl->first; i <= bl->last; i++)
                if (f->insns[i].block != (int32_t)b)
                    fail_msg("%s %s: insn %u in block %d, expected %u", path, f->name, i,
                             f->insns[i].block, b);
            if (bl->ipdom == (int32_t)b || bl->ipdom > (int32_t)f->nblocks)
                fail_msg("%s %s: block %u has ipdom %d", path, f->name, b, bl->ipdom);
            next = bl->last + 1;
        }
        if (next != f->ninsns)
            fail_msg("%s %s: blocks end at %u of %u", path, f->name, next, f->ninsns);
    }
    ptx_module_free(m);
}

static void check_file(const char *path, void *ctx)
{
    (void)ctx;
    check_module_cfg(path);
}

static void test_cfg_real_kernels(void **state)
{
    (void)state;
    unsigned n = ptx_for_each_committed(check_file, NULL);
    assert_true(n >= 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_postdom_graphs),
        cmocka_unit_test(test_postdom_long_chain),
        cmocka_unit_test(test_cfg_if_else_nested),
        cmocka_unit_test(test_cfg_loop_break_and_exit),
        cmocka_unit_test(test_cfg_real_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
