/* ptx_sched: the ptxas scheduling model (sim/ptx/ptx_sched.c) on crafted blocks: what moves,
 * what keeps its order, what nothing crosses; and on every committed PTX file, that each block
 * keeps its instructions (a permutation) and its terminator. That results are unchanged is
 * tested end to end: test_kernels runs every gpu/cases-sim.txt case through `warplab run`,
 * which schedules, and compares the buffers with the C references. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "test_ptx_files.h"
#include "testutil.h"

#define parse parse_ok

/* The PTX source line of each instruction of function 0, in (scheduled) order. */
static void expect_lines(const ptx_module *m, const uint32_t *want, uint32_t n)
{
    const ptx_func *f = &m->funcs[0];
    if (f->ninsns != n)
        fail_msg("%u instructions, want %u", f->ninsns, n);
    char got[256] = "", exp[256] = "";
    for (uint32_t i = 0; i < n; i++) {
        snprintf(got + strlen(got), sizeof got - strlen(got), " %u", f->insns[i].line);
        snprintf(exp + strlen(exp), sizeof exp - strlen(exp), " %u", want[i]);
    }
    if (strcmp(got, exp))
        fail_msg("order (PTX lines):%s, want%s", got, exp);
}

/* A counted loop around a dependent FMA chain, as nvcc writes it: the counter update and
 * compare move up between the FMAs, as in ptxas's SASS. (Line numbers count the 3-line HDR.) */
static const char loop[] = HDR
    ".visible .entry k(.param .u32 n)\n{\n .reg .f32 %f<8>;\n .reg .b32 %r<4>;\n .reg .pred %p<2>;\n"
    " ld.param.u32 %r1, [n];\n"                  /* line 9 */
    "L:\n fma.rn.f32 %f1, %f1, %f2, %f3;\n"      /* 11 */
    " fma.rn.f32 %f1, %f1, %f2, %f3;\n"          /* 12 */
    " fma.rn.f32 %f1, %f1, %f2, %f3;\n"          /* 13 */
    " add.s32 %r1, %r1, -1;\n"                   /* 14 */
    " setp.ne.s32 %p1, %r1, 0;\n"                /* 15 */
    " @%p1 bra L;\n ret;\n}\n";                  /* 16, 17 */

static void test_loop_control_hoisted(void **state)
{
    (void)state;
    ptx_module *m = parse(loop);
    diag_t d;
    assert_int_equal(ptx_schedule(m, &d), WL_OK);
    /* latency-weighted heights: fma 4+4+1 = 9 > add 5+1+... = 6: the chain starts (cycle 0),
     * the add fills cycle 1, fma 2 issues at 4 when fma 1's result is ready, the setp at 6
     * (the add's result), fma 3 at 8; the branch stays last */
    static const uint32_t want[] = {9, 11, 14, 12, 15, 13, 16, 17};
    expect_lines(m, want, 8);
    /* scheduling twice changes nothing */
    assert_int_equal(ptx_schedule(m, &d), WL_OK);
    expect_lines(m, want, 8);
    ptx_module_free(m);
}

/* The loop control of a small counted loop is marked as unrolled (issued 1 time in 4); with
 * `.pragma "nounroll"`, a register step or a barrier in the body it is not. */
static uint32_t ctl_lines(const ptx_module *m, char *buf, size_t n)
{
    const ptx_func *f = &m->funcs[0];
    uint32_t k = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < f->ninsns; i++)
        if (f->insns[i].flags & PTX_F_UNROLL_CTL) {
            snprintf(buf + strlen(buf), n - strlen(buf), " %u", f->insns[i].line);
            k++;
        }
    return k;
}

static void expect_ctl(const char *text, const char *want)
{
    ptx_module *m = parse(text);
    diag_t d;
    assert_int_equal(ptx_schedule(m, &d), WL_OK);
    char got[128];
    ctl_lines(m, got, sizeof got);
    if (strcmp(got, want))
        fail_msg("unrolled loop control at lines '%s', want '%s'", got, want);
    ptx_module_free(m);
}

static void test_unrolled_loop_control(void **state)
{
    (void)state;
    expect_ctl(loop, " 14 15 16"); /* add, setp, bra */
    /* the same loop after `.pragma "nounroll"` (as nvcc marks its remainder loops) */
    expect_ctl(HDR ".visible .entry k(.param .u32 n)\n{\n .reg .f32 %f<8>;\n .reg .b32 %r<4>;\n"
               " .reg .pred %p<2>;\n ld.param.u32 %r1, [n];\n"
               "L:\n .pragma \"nounroll\";\n fma.rn.f32 %f1, %f1, %f2, %f3;\n"
               " add.s32 %r1, %r1, -1;\n setp.ne.s32 %p1, %r1, 0;\n @%p1 bra L;\n ret;\n}\n",
               "");
    /* a register step (a grid-stride loop): not unrolled */
    expect_ctl(HDR ".visible .entry k(.param .u32 n)\n{\n .reg .f32 %f<8>;\n .reg .b32 %r<4>;\n"
               " .reg .pred %p<2>;\n ld.param.u32 %r1, [n];\n"
               "L:\n fma.rn.f32 %f1, %f1, %f2, %f3;\n"
               " add.s32 %r1, %r1, %r2;\n setp.ne.s32 %p1, %r1, 0;\n @%p1 bra L;\n ret;\n}\n",
               "");
}

/* Schedules `text` and checks `flag` on its instructions of opcode `op` (64-bit ones left out:
 * the address tests' add.s64): set on at least one of them (want 1) or on none (want 0). */
static void expect_flag(const char *text, int op, uint32_t flag, int want, const char *what,
                        const char *body)
{
    ptx_module *m = parse(text);
    diag_t d;
    assert_int_equal(ptx_schedule(m, &d), WL_OK);
    const ptx_func *f = &m->funcs[0];
    int got = -1;
    for (uint32_t i = 0; i < f->ninsns; i++) {
        const ptx_insn *in = &f->insns[i];
        if (in->op == op && in->type[0] != PTX_T_U64 && in->type[0] != PTX_T_S64 && got != 1)
            got = (in->flags & flag) != 0;
    }
    if (got != want)
        fail_msg("%s %d, want %d in:\n%s", what, got, want, body);
    ptx_module_free(m);
}

/* Selects ptxas folds into a predicated write (div_short's loop): both operands computed in
 * the block and read only by the selp. Not folded: an operand read again, an immediate
 * operand, an operand computed in another block. */
static void expect_select_fold(const char *body, int want)
{
    char text[1024];
    snprintf(text, sizeof text,
             HDR ".visible .entry k(.param .u32 n)\n{\n .reg .b32 %%r<12>;\n .reg .pred %%p<3>;\n"
                 " ld.param.u32 %%r1, [n];\n%s ret;\n}\n", body);
    expect_flag(text, PTX_OP_SELP, PTX_F_SELECT_FOLD, want, "selp folded", body);
}

static void test_select_fold(void **state)
{
    (void)state;
    const char *pre = " and.b32 %r2, %r1, 1;\n setp.eq.b32 %p1, %r2, 1;\n";
    char b[512];
    snprintf(b, sizeof b, "%s mad.lo.s32 %%r3, %%r1, 3, 1;\n shr.u32 %%r4, %%r1, 1;\n"
             " selp.b32 %%r5, %%r3, %%r4, %%p1;\n add.s32 %%r6, %%r5, 7;\n", pre);
    expect_select_fold(b, 1);
    snprintf(b, sizeof b, "%s mad.lo.s32 %%r3, %%r1, 3, 1;\n shr.u32 %%r4, %%r1, 1;\n"
             " selp.b32 %%r5, %%r3, %%r4, %%p1;\n add.s32 %%r6, %%r5, %%r4;\n", pre);
    expect_select_fold(b, 0); /* %r4 is read again */
    snprintf(b, sizeof b, "%s mad.lo.s32 %%r3, %%r1, 3, 1;\n"
             " selp.b32 %%r5, %%r3, 9, %%p1;\n add.s32 %%r6, %%r5, 7;\n", pre);
    expect_select_fold(b, 0); /* an immediate: a SEL */
    snprintf(b, sizeof b, " mad.lo.s32 %%r3, %%r1, 3, 1;\n shr.u32 %%r4, %%r1, 1;\n"
             " setp.eq.s32 %%p2, %%r1, 0;\n @%%p2 bra L;\nL:\n%s"
             " selp.b32 %%r5, %%r3, %%r4, %%p1;\n add.s32 %%r6, %%r5, 7;\n", pre);
    expect_select_fold(b, 0); /* operands from another block */
}

/* Address adds ptxas folds into a shared-memory access ([R + UR]: bk_stride's LDS): an add of
 * a .shared variable's address and a register, read only as ld/st.shared address bases. Not
 * folded: the sum also read as a value or as a global address, an add of two registers that
 * are not the variable's address, the variable's address register written twice. */
static void expect_addr_fold(const char *body, int want)
{
    char text[1536];
    snprintf(text, sizeof text,
             HDR ".visible .entry k(.param .u32 n, .param .u64 g)\n{\n .reg .b32 %%r<12>;\n"
                 " .reg .b64 %%rd<4>;\n .shared .align 4 .b8 s[4096];\n"
                 " ld.param.u32 %%r1, [n];\n ld.param.u64 %%rd1, [g];\n"
                 " mov.u32 %%r2, s;\n shl.b32 %%r3, %%r1, 2;\n%s ret;\n}\n", body);
    expect_flag(text, PTX_OP_ADD, PTX_F_ADDR_FOLD, want, "address add folded", body);
}

static void test_addr_fold(void **state)
{
    (void)state;
    /* the base either side, an offset in the address, a load and a store */
    expect_addr_fold(" add.s32 %r4, %r2, %r3;\n ld.shared.u32 %r5, [%r4];\n"
                     " st.shared.u32 [%r4+4], %r5;\n", 1);
    expect_addr_fold(" add.s32 %r4, %r3, %r2;\n ld.shared.u32 %r5, [%r4+8];\n", 1);
    /* the sum is also a value: an IADD in SASS */
    expect_addr_fold(" add.s32 %r4, %r2, %r3;\n ld.shared.u32 %r5, [%r4];\n"
                     " st.shared.u32 [%r4], %r4;\n", 0);
    expect_addr_fold(" add.s32 %r4, %r2, %r3;\n ld.shared.u32 %r5, [%r4];\n"
                     " add.s32 %r6, %r4, %r5;\n", 0);
    /* the sum is a global address */
    expect_addr_fold(" add.s32 %r4, %r2, %r3;\n cvt.u64.u32 %rd2, %r4;\n"
                     " add.s64 %rd3, %rd1, %rd2;\n ld.global.u32 %r5, [%rd3];\n", 0);
    /* neither operand is the variable's address */
    expect_addr_fold(" add.s32 %r4, %r1, %r3;\n ld.shared.u32 %r5, [%r4];\n", 0);
    /* the address register is written again */
    expect_addr_fold(" add.s32 %r4, %r2, %r3;\n ld.shared.u32 %r5, [%r4];\n"
                     " mov.u32 %r2, 0;\n", 0);
}

/* If-conversion: ptxas predicates a short body instead of branching around it. `want` is one
 * character per bra in order, '1' for a branch marked PTX_F_IFCVT; the body of a marked branch
 * must carry its negated guard. */
static void expect_ifcvt(const char *body, const char *want)
{
    char text[2048];
    snprintf(text, sizeof text,
             HDR ".visible .entry k(.param .u32 n)\n{\n .reg .b32 %%r<12>;\n .reg .pred %%p<3>;\n"
                 " ld.param.u32 %%r1, [n];\n setp.lt.u32 %%p1, %%r1, 16;\n"
                 " setp.lt.u32 %%p2, %%r1, 8;\n%s add.s32 %%r9, %%r1, 1;\n ret;\n}\n", body);
    ptx_module *m = parse(text);
    diag_t d;
    assert_int_equal(ptx_schedule(m, &d), WL_OK);
    const ptx_func *f = &m->funcs[0];
    char got[16] = "";
    for (uint32_t i = 0; i < f->ninsns && strlen(got) + 1 < sizeof got; i++) {
        const ptx_insn *br = &f->insns[i];
        if (br->op != PTX_OP_BRA)
            continue;
        int on = (br->flags & PTX_F_IFCVT) != 0;
        strcat(got, on ? "1" : "0");
        for (int32_t k = (int32_t)i + 1; on && k < br->target; k++)
            if (f->insns[k].guard != br->guard || f->insns[k].guard_neg == br->guard_neg)
                fail_msg("instruction %d (line %u) of a converted body: guard %d/%d, want %d/%d",
                         k, f->insns[k].line, f->insns[k].guard, f->insns[k].guard_neg,
                         br->guard, !br->guard_neg);
    }
    if (strcmp(got, want))
        fail_msg("if-converted branches '%s', want '%s' in:\n%s", got, want, body);
    ptx_module_free(m);
}

static void test_if_conversion(void **state)
{
    (void)state;
    /* the reductions' shape: shared loads, an add, a store */
    expect_ifcvt(" @%p1 bra L;\n add.s32 %r2, %r1, 4;\n ld.shared.u32 %r3, [%r2];\n"
                 " ld.shared.u32 %r4, [%r2+4];\n add.s32 %r5, %r3, %r4;\n"
                 " st.shared.u32 [%r2], %r5;\nL:\n", "1");
    expect_ifcvt(" @!%p1 bra L;\n mul.lo.s32 %r2, %r1, 3;\nL:\n", "1"); /* a negated guard */
    /* eight instructions are converted, nine are not */
    expect_ifcvt(" @%p1 bra L;\n add.s32 %r2, %r1, 1;\n add.s32 %r2, %r2, 1;\n"
                 " add.s32 %r2, %r2, 1;\n add.s32 %r2, %r2, 1;\n add.s32 %r2, %r2, 1;\n"
                 " add.s32 %r2, %r2, 1;\n add.s32 %r2, %r2, 1;\n add.s32 %r2, %r2, 1;\nL:\n",
                 "1");
    expect_ifcvt(" @%p1 bra L;\n add.s32 %r2, %r1, 1;\n add.s32 %r2, %r2, 1;\n"
                 " add.s32 %r2, %r2, 1;\n add.s32 %r2, %r2, 1;\n add.s32 %r2, %r2, 1;\n"
                 " add.s32 %r2, %r2, 1;\n add.s32 %r2, %r2, 1;\n add.s32 %r2, %r2, 1;\n"
                 " add.s32 %r2, %r2, 1;\nL:\n", "0");
    /* an integer division (a long SASS sequence: ws_pipeline keeps its BRA) */
    expect_ifcvt(" @%p1 bra L;\n div.s32 %r2, %r1, %r3;\nL:\n", "0");
    /* the body writes the branch's predicate */
    expect_ifcvt(" @%p1 bra L;\n setp.eq.s32 %p1, %r1, 3;\nL:\n", "0");
    /* already guarded, a shuffle, a barrier in the body */
    expect_ifcvt(" @%p1 bra L;\n @%p2 add.s32 %r2, %r1, 1;\nL:\n", "0");
    expect_ifcvt(" @%p1 bra L;\n shfl.sync.down.b32 %r2, %r1, 1, 31, -1;\nL:\n", "0");
    expect_ifcvt(" @%p1 bra L;\n add.s32 %r2, %r1, 1;\n bar.sync 0;\nL:\n", "0");
    /* a branch to the kernel's ret: ptxas writes @P EXIT and leaves the body as it is */
    expect_ifcvt(" @%p1 bra L;\n add.s32 %r2, %r1, 1;\nL:\n ret;\n", "0");
    /* another branch enters the body: not converted (the first skips nothing) */
    expect_ifcvt(" @%p2 bra M;\n @%p1 bra L;\nM:\n add.s32 %r2, %r1, 1;\nL:\n", "00");
    /* two bodies one after the other */
    expect_ifcvt(" @%p1 bra L;\n add.s32 %r2, %r1, 1;\nL:\n @%p2 bra L2;\n"
                 " add.s32 %r3, %r1, 2;\nL2:\n", "11");
}

/* Memory accesses keep their order among themselves (a load never passes a store), barriers
 * are fixed, a guarded write keeps its place relative to readers of the old value. */
static const char mem[] = HDR
    ".visible .entry k(.param .u64 p)\n{\n .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n .reg .pred %p<2>;\n"
    " ld.param.u64 %rd1, [p];\n"                 /* 9 */
    " st.global.u32 [%rd1], %r1;\n"              /* 10 */
    " ld.global.u32 %r2, [%rd1+4];\n"            /* 11 */
    " add.s32 %r3, %r4, %r5;\n"                  /* 12: independent, moves up */
    " bar.sync 0;\n"                             /* 13: fixed */
    " mul.lo.s32 %r6, %r3, %r3;\n"               /* 14 */
    " setp.eq.s32 %p1, %r6, 0;\n"                /* 15 */
    " @%p1 mov.u32 %r3, 7;\n"                    /* 16: guarded: reads %r3's old value too */
    " add.s32 %r7, %r3, 1;\n"                    /* 17 */
    " ret;\n}\n";                                /* 18 */

static void test_memory_and_barrier_order(void **state)
{
    (void)state;
    ptx_module *m = parse(mem);
    diag_t d;
    assert_int_equal(ptx_schedule(m, &d), WL_OK);
    static const uint32_t want[] = {9, 12, 10, 11, 13, 14, 15, 16, 17, 18};
    expect_lines(m, want, 10);
    ptx_module_free(m);
}

/* A global load passes a shared store (different spaces), as in a tiled transpose. */
static const char tile[] = HDR
    ".visible .entry k(.param .u64 p)\n{\n .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [p];\n"                 /* 8 */
    " ld.global.u32 %r1, [%rd1];\n"              /* 9 */
    " st.shared.u32 [%r5], %r1;\n"               /* 10 */
    " ld.global.u32 %r2, [%rd1+4];\n"            /* 11: moves above the st.shared */
    " st.shared.u32 [%r5+4], %r2;\n"             /* 12 */
    " ret;\n}\n";                                /* 13 */

static void test_loads_pass_other_spaces(void **state)
{
    (void)state;
    ptx_module *m = parse(tile);
    diag_t d;
    assert_int_equal(ptx_schedule(m, &d), WL_OK);
    static const uint32_t want[] = {8, 9, 11, 10, 12, 13};
    expect_lines(m, want, 6);
    ptx_module_free(m);
}

/* Parameter loads sink past an early exit, as ptxas places co_strided's two LDC.64 after its
 * `@P0 EXIT` (CUDA 13.0, sm_90). The pointers' loads leave block 0 for block 1, in their order;
 * n's load stays (the setp reads it). Block 1 is then scheduled: the loads first (latency 300),
 * the cvta of p when p arrives (cycle 300), q's cvta at 301 ahead of the global load (ready at
 * 305), the load at 305, the store last. */
#define SINK_BODY                                                                            \
    ".visible .entry k(.param .u64 p, .param .u64 q, .param .u32 n)\n{\n"                  \
    " .reg .b32 %r<8>;\n .reg .b64 %rd<8>;\n .reg .pred %p<2>;\n"                          \
    " ld.param.u64 %rd1, [p];\n"                /* 9: sinks */                               \
    " ld.param.u64 %rd2, [q];\n"                /* 10: sinks */                              \
    " ld.param.u32 %r1, [n];\n"                 /* 11: stays */                              \
    " mov.u32 %r2, %tid.x;\n"                   /* 12 */                                     \
    " setp.ge.s32 %p1, %r2, %r1;\n"             /* 13 */                                     \
    " @%p1 bra L;\n"                            /* 14 */                                     \
    " cvta.to.global.u64 %rd3, %rd1;\n"         /* 15 */                                     \
    " ld.global.u32 %r3, [%rd3];\n"             /* 16 */                                     \
    " cvta.to.global.u64 %rd4, %rd2;\n"         /* 17 */                                     \
    " st.global.u32 [%rd4], %r3;\n"             /* 18 */                                     \
    "L:\n"
static const char sink[] = HDR SINK_BODY " ret;\n}\n"; /* 20 */
/* the branch jumps to a join, not an exit: the other path may read the registers */
static const char nosink[] = HDR SINK_BODY " add.s32 %r4, %r1, 1;\n ret;\n}\n";
/* loads that their own block reads (%rd1) or writes again (%rd2) stay */
static const char held[] = HDR
    ".visible .entry k(.param .u64 p, .param .u32 n)\n{\n"
    " .reg .b32 %r<8>;\n .reg .b64 %rd<8>;\n .reg .pred %p<2>;\n"
    " ld.param.u64 %rd1, [p];\n ld.param.u64 %rd2, [p];\n ld.param.u32 %r1, [n];\n"
    " cvt.u32.u64 %r2, %rd1;\n mov.u64 %rd2, 0;\n setp.ge.s32 %p1, %r2, %r1;\n @%p1 bra L;\n"
    " st.global.u64 [%rd2], %rd1;\nL:\n ret;\n}\n";

static void test_params_sink_past_exit(void **state)
{
    (void)state;
    ptx_module *m = parse(sink);
    diag_t d;
    assert_int_equal(ptx_schedule(m, &d), WL_OK);
    static const uint32_t want[] = {11, 12, 13, 14, 9, 10, 15, 17, 16, 18, 20};
    expect_lines(m, want, 11);
    const ptx_func *f = &m->funcs[0];
    assert_int_equal(f->blocks[0].last, 3);
    assert_int_equal(f->blocks[1].first, 4);
    assert_int_equal(f->insns[4].block, 1);
    ptx_module_free(m);
    m = parse(nosink); /* nothing moves */
    assert_int_equal(ptx_schedule(m, &d), WL_OK);
    assert_int_equal(m->funcs[0].blocks[0].last, 5);
    ptx_module_free(m);
    m = parse(held);
    assert_int_equal(ptx_schedule(m, &d), WL_OK);
    assert_int_equal(m->funcs[0].blocks[0].last, 6);
    ptx_module_free(m);
}

/* Register pressure: the loop keeps %f1..%f3 and %r1 live (4 units; %p1 is a predicate: 0);
 * or_regs keeps its 72 words live across the mixing rounds by construction (gpu/kernels/
 * occupancy_regs.cu), so its pressure is at least 72. */
static void test_pressure(void **state)
{
    (void)state;
    ptx_module *m = parse(loop);
    uint16_t live[16];
    uint8_t io[16];
    assert_int_equal(ptx_pressure(&m->funcs[0], live, io), 4);
    /* the fma: reads %f1 %f2 %f3, writes %f1 */
    assert_int_equal(io[1], 3 | 1 << 4);
    ptx_module_free(m);
    diag_t d;
    if (ptx_parse_file(tu_path("gpu/ptx/occupancy_regs.ptx"), &m, &d) != WL_OK)
        fail_msg("%s", d.msg);
    const ptx_func *f = ptx_find_func(m, "or_regs_free");
    assert_non_null(f);
    uint32_t p = ptx_pressure(f, NULL, NULL);
    if (p < 72 || p > 128)
        fail_msg("or_regs_free pressure %u, want 72..128", p);
    ptx_module_free(m);
}

/* Every committed PTX file: each basic block holds the same instructions after scheduling
 * (but for the parameter loads a kernel's block may pass to the next one, sink_params), its
 * last instruction (branch, ret, exit) is still last, and the blocks still tile the function. */
static void check_file(const char *path, void *ctx)
{
    (void)ctx;
    ptx_module *a = NULL, *b = NULL;
    diag_t d;
    diag_clear(&d);
    if (ptx_parse_file(path, &a, &d) != WL_OK || ptx_parse_file(path, &b, &d) != WL_OK)
        fail_msg("%s: %s", path, d.msg);
    assert_int_equal(ptx_schedule(b, &d), WL_OK);
    for (uint32_t fi = 0; fi < a->nfuncs; fi++) {
        const ptx_func *fa = &a->funcs[fi], *fb = &b->funcs[fi];
        assert_int_equal(fa->ninsns, fb->ninsns);
        assert_int_equal(fa->nblocks, fb->nblocks);
        uint64_t sa = 0, sb = 0;
        for (uint32_t i = 0; i < fa->ninsns; i++) {
            sa += (uint64_t)fa->insns[i].line * 2654435761u;
            sb += (uint64_t)fb->insns[i].line * 2654435761u;
        }
        if (sa != sb)
            fail_msg("%s: %s: not a permutation", path, fa->name);
        for (uint32_t bl = 0; bl < fa->nblocks; bl++) {
            uint32_t lo = fb->blocks[bl].first, hi = fb->blocks[bl].last;
            if (lo != (bl ? fb->blocks[bl - 1].last + 1 : 0))
                fail_msg("%s: %s block %u starts at %u", path, fa->name, bl, lo);
            for (uint32_t i = lo; i <= hi; i++) {
                const ptx_insn *in = &fb->insns[i];
                if (in->block != (int32_t)bl)
                    fail_msg("%s: %s block %u: instruction %u says block %d", path, fa->name,
                             bl, i, in->block);
                int32_t was = -1; /* its block before scheduling (lines are unique) */
                for (uint32_t j = 0; j < fa->ninsns && was < 0; j++)
                    if (fa->insns[j].line == in->line && fa->insns[j].op == in->op)
                        was = fa->insns[j].block;
                int sunk = fa->is_entry && was + 1 == (int32_t)bl && in->op == PTX_OP_LD &&
                           in->space == PTX_SPACE_PARAM;
                if (was != (int32_t)bl && !sunk)
                    fail_msg("%s: %s: line %u moved from block %d to %u", path, fa->name,
                             in->line, was, bl);
            }
            const ptx_insn *ta = &fa->insns[fa->blocks[bl].last], *tb = &fb->insns[hi];
            if (isa_unit(ta) == PTX_UNIT_BRANCH && ta->line != tb->line)
                fail_msg("%s: %s block %u: terminator moved", path, fa->name, bl);
        }
    }
    ptx_module_free(a);
    ptx_module_free(b);
}

static void test_committed_files(void **state)
{
    (void)state;
    unsigned n = ptx_for_each_committed(check_file, NULL);
    if (n < 10)
        fail_msg("only %u PTX files checked", n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_control_hoisted),
        cmocka_unit_test(test_unrolled_loop_control),
        cmocka_unit_test(test_select_fold),
        cmocka_unit_test(test_addr_fold),
        cmocka_unit_test(test_if_conversion),
        cmocka_unit_test(test_memory_and_barrier_order),
        cmocka_unit_test(test_loads_pass_other_spaces),
        cmocka_unit_test(test_params_sink_past_exit),
        cmocka_unit_test(test_pressure),
        cmocka_unit_test(test_committed_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
