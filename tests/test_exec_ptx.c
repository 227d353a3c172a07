/* exec: hand-written PTX for what nvcc does not emit on purpose or where exact instruction forms
 * matter: named barriers and bar.red, barrier misuse, divergent .func returns, the step API,
 * unsupported opcodes at run time, instruction modifiers through the decoder, warp-wide forms,
 * local memory and atomics. */
#include "test_exec_util.h"

#include <math.h>
#include <stdio.h>

#include "exec.h"

/* ----------------------------------------------------------------------------------------- */
/* Hand-written PTX                                                                          */

/* Warp specialisation: warps 0-1 produce into shared memory and bar.arrive on named barrier 1
 * (128 threads), warps 2-3 bar.sync on it and consume; then bar.red.popc over the block. */
static const char named_ptx[] = HDR
    ".visible .entry ws(.param .u64 out)\n{\n"
    ".reg .pred %p<4>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<6>;\n"
    ".shared .align 4 .b32 sh[64];\n"
    "mov.u32 %r1, %tid.x;\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "setp.ge.u32 %p1, %r1, 64;\n"
    "@%p1 bra CONS;\n"
    "mul.lo.u32 %r2, %r1, 3;\nshl.b32 %r3, %r1, 2;\nmov.u32 %r4, sh;\nadd.u32 %r5, %r4, %r3;\n"
    "st.shared.u32 [%r5], %r2;\n"
    "bar.arrive 1, 128;\n"
    "bra.uni RED;\n"
    "CONS:\n"
    "bar.sync 1, 128;\n"
    "sub.u32 %r6, %r1, 64;\nshl.b32 %r7, %r6, 2;\nmov.u32 %r4, sh;\nadd.u32 %r8, %r4, %r7;\n"
    "ld.shared.u32 %r9, [%r8];\n"
    "mul.wide.u32 %rd3, %r6, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r9;\n"
    "RED:\n"
    "and.b32 %r10, %r1, 3;\nsetp.eq.u32 %p2, %r10, 0;\n"
    "bar.red.popc.u32 %r11, 0, %p2;\n"
    "bar.red.and.pred %p3, 0, %p1;\n"
    "selp.u32 %r10, 1000, 0, %p3;\nadd.u32 %r11, %r11, %r10;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4+512], %r11;\n"
    "ret;\n}\n";

static void test_named_barriers(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, named_ptx, "ws");
    unsigned out[256];
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d);
    RUN_OK(kt_run(&t, 1, 128, 0));
    kt_get(&t, d, out, sizeof out);
    for (unsigned i = 0; i < 64; i++)
        if (out[i] != i * 3)
            fail_msg("consumer %u read %u, want %u", i, out[i], i * 3);
    for (unsigned i = 0; i < 128; i++)
        if (out[128 + i] != 32) /* popc of tid%4==0 over 128 threads; .and of tid>=64: false */
            fail_msg("bar.red result of thread %u = %u, want 32", i, out[128 + i]);
    kt_close(&t);
}

static void test_named_barrier_deadlock(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, named_ptx, "ws");
    uint64_t d = kt_buf(&t, NULL, 4 * 256);
    kt_arg(&t, 0, d);
    /* 96 threads: warp 2 waits for 128 threads on barrier 1, only 64 + 32 can ever arrive */
    assert_int_equal(kt_run(&t, 1, 96, 0), WL_EDEADLOCK);
    if (!strstr(t.err, "barrier 1") || !strstr(t.err, "warps 2 wait") ||
        !strstr(t.err, "96 of 128 threads arrived") || !strstr(t.err, "t.ptx:"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

static const char mismatch_ptx[] = HDR
    ".visible .entry mm()\n{\n.reg .pred %p<2>;\n.reg .b32 %r<3>;\n"
    "mov.u32 %r1, %tid.x;\nsetp.ge.u32 %p1, %r1, 32;\n@%p1 bra B;\n"
    "bar.sync 2, 64;\nret;\nB:\nbar.sync 2, 96;\nret;\n}\n";

static void test_barrier_count_mismatch(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, mismatch_ptx, "mm");
    assert_int_equal(kt_run(&t, 1, 96, 0), WL_EDEADLOCK);
    if (!strstr(t.err, "barrier 2 used with thread counts 64 and 96"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

/* A .func with a divergent early return, called by half the lanes; a value comes back through
 * the return parameter. */
static const char call_ptx[] = HDR
    ".func (.param .b32 rv) f(.param .b32 a)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<5>;\n"
    "ld.param.b32 %r1, [a];\nsetp.lt.s32 %p1, %r1, 10;\n"
    "@%p1 bra SMALL;\nmul.lo.s32 %r2, %r1, 100;\nst.param.b32 [rv], %r2;\nret;\n"
    "SMALL:\nadd.s32 %r3, %r1, 7;\nst.param.b32 [rv], %r3;\nret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<6>;\n"
    ".reg .b64 %rd<5>;\n"
    "mov.u32 %r1, %tid.x;\nmov.u32 %r5, 0;\n"
    "and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 1;\n@%p1 bra SKIP;\n"
    "{\n.param .b32 pa;\n.param .b32 pr;\nst.param.b32 [pa], %r1;\n"
    "call.uni (pr), f, (pa);\nld.param.b32 %r5, [pr];\n}\n"
    "SKIP:\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r5;\n"
    "ret;\n}\n";

/* The same call, guarded instead of branched around (@%p call): the guard is a register like
 * any other operand, renumbered when registers share slots (xalloc.c). Many registers before
 * it, so that its slot differs from its register number. */
static const char gcall_ptx[] = HDR
    ".func (.param .b32 rv) f(.param .b32 a)\n{\n.reg .b32 %r<3>;\n"
    "ld.param.b32 %r1, [a];\nadd.s32 %r2, %r1, 7;\nst.param.b32 [rv], %r2;\nret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<12>;\n"
    ".reg .b64 %rd<5>;\n"
    "mov.u32 %r1, %tid.x;\nmov.u32 %r5, 0;\n"
    "add.u32 %r6, %r1, 1;\nadd.u32 %r7, %r6, 1;\nadd.u32 %r8, %r7, 1;\nadd.u32 %r9, %r8, 1;\n"
    "and.b32 %r2, %r9, 1;\nsetp.eq.u32 %p1, %r2, 1;\n"
    "{\n.param .b32 pa;\n.param .b32 pr;\nst.param.b32 [pa], %r1;\n"
    "@%p1 call (pr), f, (pa);\nld.param.b32 %r5, [pr];\n}\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r5;\n"
    "ret;\n}\n";

/* Runs kernel k of ptx (one u32 per thread out) with 64 threads; out[i] must be want(i). */
static void run_call_case(const char *ptx, int (*want)(int))
{
    kt t;
    int out[64];
    kt_run_out(&t, ptx, "k", 64, out, sizeof out);
    for (int i = 0; i < 64; i++)
        if (out[i] != want(i))
            fail_msg("out[%d] = %d, want %d", i, out[i], want(i));
    kt_close(&t);
}

/* Lanes whose guard is false skip the call and read the return slot never written. */
static int guarded_want(int i)
{
    return ((i + 4) & 1) ? i + 7 : 0;
}

static void test_guarded_call(void **state)
{
    (void)state;
    run_call_case(gcall_ptx, guarded_want);
}

static int divergent_want(int i)
{
    return (i & 1) ? 0 : i < 10 ? i + 7 : i * 100;
}

/* Two functions with different register layouts called at the same depth, one after the other
 * and on the two sides of a divergent branch: fn keeps only narrow (32-bit) registers, fw only
 * wide (64-bit) ones, so their frames put 32-bit and 64-bit lanes in the same bytes of the
 * warp's register stack at different times (xctl_call clears a callee's frame). */
static const char layouts_ptx[] = HDR
    ".func (.param .b32 rv) fn(.param .b32 a)\n{\n.reg .b32 %r<6>;\n"
    "ld.param.b32 %r1, [a];\nmul.lo.u32 %r2, %r1, 3;\nadd.u32 %r3, %r2, 11;\n"
    "xor.b32 %r4, %r3, %r1;\nst.param.b32 [rv], %r4;\nret;\n}\n"
    ".func (.param .b64 rv) fw(.param .b64 a)\n{\n.reg .b64 %rd<6>;\n"
    "ld.param.b64 %rd1, [a];\nmul.lo.u64 %rd2, %rd1, 4294967297;\nadd.u64 %rd3, %rd2, 5;\n"
    "xor.b64 %rd4, %rd3, %rd1;\nst.param.b64 [rv], %rd4;\nret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<12>;\n"
    ".reg .b64 %rd<12>;\n"
    "mov.u32 %r1, %tid.x;\n"
    "{\n.param .b32 pa;\n.param .b32 pr;\nst.param.b32 [pa], %r1;\n"
    "call.uni (pr), fn, (pa);\nld.param.b32 %r5, [pr];\n}\n"
    "cvt.u64.u32 %rd5, %r5;\n"
    "{\n.param .b64 qa;\n.param .b64 qr;\nst.param.b64 [qa], %rd5;\n"
    "call.uni (qr), fw, (qa);\nld.param.b64 %rd6, [qr];\n}\n"
    "cvt.u32.u64 %r6, %rd6;\nshr.u64 %rd7, %rd6, 32;\ncvt.u32.u64 %r7, %rd7;\n"
    "{\n.param .b32 pa;\n.param .b32 pr;\nst.param.b32 [pa], %r7;\n"
    "call.uni (pr), fn, (pa);\nld.param.b32 %r8, [pr];\n}\n"
    "and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 1;\nmov.u32 %r9, 0;\n@%p1 bra ODD;\n"
    "cvt.u64.u32 %rd8, %r1;\n"
    "{\n.param .b64 qa;\n.param .b64 qr;\nst.param.b64 [qa], %rd8;\n"
    "call (qr), fw, (qa);\nld.param.b64 %rd9, [qr];\n}\n"
    "cvt.u32.u64 %r9, %rd9;\nbra.uni JOIN;\n"
    "ODD:\nadd.u32 %r10, %r1, 1000;\n"
    "{\n.param .b32 pa;\n.param .b32 pr;\nst.param.b32 [pa], %r10;\n"
    "call (pr), fn, (pa);\nld.param.b32 %r9, [pr];\n}\n"
    "JOIN:\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n"
    "st.global.u32 [%rd4], %r5;\nst.global.u32 [%rd4+256], %r6;\n"
    "st.global.u32 [%rd4+512], %r8;\nst.global.u32 [%rd4+768], %r9;\n"
    "ret;\n}\n";

static uint32_t lay_fn(uint32_t a)
{
    return (a * 3u + 11u) ^ a;
}

static uint64_t lay_fw(uint64_t a)
{
    return (a * UINT64_C(4294967297) + 5u) ^ a;
}

static void test_call_layouts(void **state)
{
    (void)state;
    kt t;
    uint32_t out[4 * 64];
    kt_run_out(&t, layouts_ptx, "k", 64, out, sizeof out);
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t r5 = lay_fn(i);
        uint64_t rd6 = lay_fw(r5);
        uint32_t want[4] = {r5, (uint32_t)rd6, lay_fn((uint32_t)(rd6 >> 32)),
                            i & 1 ? lay_fn(i + 1000) : (uint32_t)lay_fw(i)};
        for (int k = 0; k < 4; k++)
            if (out[k * 64 + i] != want[k])
                fail_msg("value %d of thread %u: %u, want %u", k, i, out[k * 64 + i], want[k]);
    }
    kt_close(&t);
}

static void test_divergent_call_return(void **state)
{
    (void)state;
    run_call_case(call_ptx, divergent_want);
}

/* The step API on one warp: what each instruction reports. */
static const char step_ptx[] = HDR
    ".visible .entry s(.param .u64 p)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<4>;\n"
    ".reg .b64 %rd<5>;\n"
    "ld.param.u64 %rd1, [p];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
    "setp.lt.u32 %p1, %r1, 8;\n"
    "@%p1 bra L;\n"
    "ld.global.u32 %r2, [%rd3];\n"
    "L:\n"
    "exit;\n}\n";

/* A program for t's kernel on a 1-D grid (the step API's tests drive its blocks themselves). */
static exec_prog *kt_prog(kt *t, uint32_t grid, uint32_t block, uint32_t dyn, int num_sms)
{
    exec_grid g;
    memset(&g, 0, sizeof g);
    g.grid[0] = grid; g.grid[1] = g.grid[2] = 1;
    g.block[0] = block; g.block[1] = g.block[2] = 1;
    g.dyn_smem = dyn;
    g.num_sms = num_sms;
    g.params = t->params;
    g.params_size = t->k->param_size;
    exec_prog *p;
    assert_int_equal(exec_prog_create(t->m, t->k, &g, t->mem, &p, &t->d), WL_OK);
    return p;
}

static void test_step_api(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, step_ptx, "s");
    uint64_t d = kt_buf(&t, NULL, 4 * 32);
    kt_arg(&t, 0, d);
    exec_prog *p = kt_prog(&t, 1, 20, 0, 0);
    uint32_t c[3] = {0, 0, 0};
    exec_block *b = exec_block_create(p, c, &t.d);
    assert_non_null(b);
    exec_step_info in;
    int n = 0, saw_ld = 0, saw_div = 0, saw_exit = 0;
    while (exec_warp_state_of(b, 0) == EXEC_WARP_READY && n < 50) {
        exec_step_info pk;
        assert_int_equal(exec_warp_peek(b, 0, &pk), 1);
        assert_int_equal(exec_warp_step(b, 0, &in, &t.d), WL_OK);
        /* peek describes exactly the instruction step then runs */
        if (pk.opcode != in.opcode || pk.pc != in.pc || pk.active != in.active ||
            pk.nsrc != in.nsrc || pk.ndst != in.ndst || pk.line != in.line)
            fail_msg("peek %d@%u active 0x%x, step %d@%u active 0x%x", pk.opcode, pk.pc,
                     pk.active, in.opcode, in.pc, in.active);
        n++;
        if (in.exited && in.opcode == 0 && in.exec_mask == 0)
            break;
        if (in.opcode == PTX_OP_BRA) {
            if (!in.is_branch || !in.divergent || in.active != 0xfffffu || in.exec_mask != 0xffu)
                fail_msg("bra: branch %d divergent %d active 0x%x exec 0x%x", in.is_branch,
                         in.divergent, in.active, in.exec_mask);
            saw_div = 1;
        }
        if (in.opcode == PTX_OP_LD && in.mem_space == PTX_SPACE_GLOBAL) {
            if (in.active != 0xfff00u || in.mem_size != 4 || !in.mem_load ||
                exec_step_addr(&in, 8) != d + 32 || exec_step_addr(&in, 19) != d + 76 ||
                in.unit != PTX_UNIT_LSU)
                fail_msg("ld: active 0x%x size %u addr8 0x%llx unit %d", in.active, in.mem_size,
                         (unsigned long long)exec_step_addr(&in, 8), in.unit);
            /* ld.global.u32 %r2, [%rd3]: writes %r2, reads %rd3 (IR register indices) */
            if (in.ndst != 1 || in.nsrc != 1 ||
                strcmp(t.k->regs[in.dst[0]].name, "%r") != 0 || t.k->regs[in.dst[0]].num != 2 ||
                strcmp(t.k->regs[in.src[0]].name, "%rd") != 0 || t.k->regs[in.src[0]].num != 3)
                fail_msg("ld regs: %d dst %d src", in.ndst, in.nsrc);
            saw_ld = 1;
        }
        if (in.opcode == PTX_OP_EXIT) {
            saw_exit |= in.exit_mask;
            if (in.line == 0)
                fail_msg("exit without a line");
        }
    }
    if (!saw_ld || !saw_div || saw_exit != 0xfffff)
        fail_msg("ld %d divergent bra %d exits 0x%x after %d steps", saw_ld, saw_div, saw_exit, n);
    assert_int_equal(exec_warp_state_of(b, 0), EXEC_WARP_DONE);
    assert_int_equal(exec_block_done(b), 1);
    exec_step_info none;
    assert_int_equal(exec_warp_peek(b, 0, &none), 0);
    const exec_counts *cn = exec_block_counts(b);
    if (cn->branches != 1 || cn->divergent_branches != 1)
        fail_msg("branches %llu divergent %llu", (unsigned long long)cn->branches,
                 (unsigned long long)cn->divergent_branches);
    exec_block_destroy(b);
    exec_prog_destroy(p);
    kt_close(&t);
}

/* A reused block must equal a fresh one: block 1 reads %r5, which only block 0 writes (guarded),
 * and lane 3 of its warp 0 exits before writing %r7, which the shfl then reads from that lane;
 * the loop reads %r11 before its first write (0 + 0 + 1 + 2 + 3 from a zero start). */
static const char reuse_ptx[] = HDR
    ".visible .entry reuse(.param .u64 out)\n{\n"
    ".reg .pred %p<4>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<6>;\n"
    "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "setp.eq.u32 %p1, %r2, 0;\n"
    "@%p1 mov.u32 %r5, 7;\n"
    "add.u32 %r6, %r1, %r5;\n"
    "setp.eq.u32 %p2, %r1, 3;\nsetp.eq.u32 %p3, %r2, 1;\nand.pred %p2, %p2, %p3;\n"
    "@%p2 exit;\n"
    "mul.lo.u32 %r7, %r1, 10;\n"
    "activemask.b32 %r9;\n"
    "shfl.sync.idx.b32 %r8, %r7, 3, 31, %r9;\n"
    "shl.b32 %r10, %r2, 6;\nadd.u32 %r10, %r10, %r1;\n"
    "mul.wide.u32 %rd3, %r10, 4;\nadd.s64 %rd4, %rd2, %rd3;\n"
    "st.global.u32 [%rd4], %r6;\nst.global.u32 [%rd4+512], %r8;\n"
    "mov.u32 %r3, 0;\n"
    "LOOP:\nadd.u32 %r11, %r11, %r3;\nadd.u32 %r3, %r3, 1;\nsetp.lt.u32 %p1, %r3, 4;\n"
    "@%p1 bra LOOP;\n"
    "st.global.u32 [%rd4+1024], %r11;\n"
    "ret;\n}\n";

static void run_reuse(int resident, unsigned *out)
{
    kt t;
    kt_text(&t, reuse_ptx, "reuse");
    uint64_t d = kt_buf(&t, NULL, 384 * 4);
    kt_arg(&t, 0, d);
    launch_config c;
    memset(&c, 0, sizeof c);
    c.grid[0] = 2; c.grid[1] = c.grid[2] = 1;
    c.block[0] = 64; c.block[1] = c.block[2] = 1;
    c.params = t.params;
    c.params_size = t.k->param_size;
    c.max_resident_blocks = resident; /* 1: block 1 runs in block 0's storage */
    wl_status s = launch_kernel(t.m, t.k, &c, t.mem, &t.st, &t.d);
    diag_format(&t.d, t.err, sizeof t.err);
    if (s != WL_OK)
        fail_msg("resident %d: %s", resident, t.err);
    kt_get(&t, d, out, 384 * 4);
    kt_close(&t);
}

static void test_block_reuse(void **state)
{
    (void)state;
    unsigned fresh[384], reused[384];
    run_reuse(2, fresh);
    run_reuse(1, reused);
    for (unsigned i = 0; i < 384; i++)
        if (fresh[i] != reused[i])
            fail_msg("word %u: %u in a fresh block, %u in a reused one", i, fresh[i], reused[i]);
    for (unsigned i = 0; i < 64; i++) {
        unsigned want0 = i + 7, want1 = i == 3 ? 0 : i; /* block 1: %r5 unwritten (0) */
        if (reused[i] != want0 || reused[64 + i] != want1)
            fail_msg("thread %u: %u / %u, want %u / %u", i, reused[i], reused[64 + i], want0,
                     want1);
    }
    /* shfl from lane 3: 30 / 350 in block 0; in block 1 lane 3 of warp 0 exited before
     * writing %r7, so it still holds the zero of a new block */
    if (reused[128] != 30 || reused[128 + 32] != 350 || reused[192] != 0 ||
        reused[192 + 32] != 350)
        fail_msg("shfl: %u %u %u %u, want 30 350 0 350", reused[128], reused[160], reused[192],
                 reused[224]);
    for (unsigned i = 0; i < 128; i++)
        if (reused[256 + i] != (i == 64 + 3 ? 0u : 6u))
            fail_msg("loop sum of thread %u of block %u: %u, want 6", i % 64, i / 64,
                     reused[256 + i]);
}

static const char unsup_ptx[] = HDR
    ".visible .entry u(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n"
    "mov.u32 %r1, %tid.x;\nsetp.gt.u32 %p1, %r1, 100;\n"
    "@%p1 fns.b32 %r2, %r1, 0, 1;\n"
    "ret;\n}\n";

static void test_unsupported_at_run_time(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, unsup_ptx, "u");
    /* guard false for every lane: the instruction issues but does nothing, so the launch works */
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_close(&t);
    kt_text(&t, unsup_ptx, "u");
    assert_int_equal(kt_run(&t, 1, 128, 0), WL_EUNSUPPORTED);
    if (!strstr(t.err, "t.ptx:10:") || !strstr(t.err, "fns"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

/* Instruction modifiers through the decoder: rounding, .ftz, .sat, cvt forms, f16, predicates. */
static const char mods_ptx[] = HDR
    ".visible .entry mods(.param .u64 out, .param .f32 one, .param .f32 tiny, .param .f32 sub,\n"
    "                     .param .f64 dthird, .param .s32 neg)\n{\n"
    ".reg .pred %p<4>;\n.reg .b16 %h<3>;\n.reg .b32 %r<40>;\n.reg .f32 %f<20>;\n"
    ".reg .b64 %rd<6>;\n.reg .f64 %fd<4>;\n"
    "ld.param.u64 %rd1, [out];\nld.param.f32 %f1, [one];\nld.param.f32 %f2, [tiny];\n"
    "ld.param.f32 %f3, [sub];\nld.param.f64 %fd1, [dthird];\nld.param.s32 %r1, [neg];\n"
    "add.rn.f32 %f4, %f1, %f2;\nst.global.f32 [%rd1+0], %f4;\n"      /* 1 + 2^-24: tie -> 1 */
    "add.rp.f32 %f5, %f1, %f2;\nst.global.f32 [%rd1+4], %f5;\n"      /* next float up */
    "add.ftz.f32 %f6, %f3, %f3;\nst.global.f32 [%rd1+8], %f6;\n"     /* subnormal in: 0 */
    "add.f32 %f7, %f3, %f3;\nst.global.f32 [%rd1+12], %f7;\n"        /* kept: 2*sub */
    "mul.sat.f32 %f8, %f1, 0f40400000;\nst.global.f32 [%rd1+16], %f8;\n" /* 3 -> 1.0 */
    "sub.sat.f32 %f9, %f2, %f1;\nst.global.f32 [%rd1+20], %f9;\n"    /* negative -> 0 */
    "cvt.rn.f32.f64 %f10, %fd1;\nst.global.f32 [%rd1+24], %f10;\n"
    "cvt.rz.f32.f64 %f11, %fd1;\nst.global.f32 [%rd1+28], %f11;\n"
    "cvt.rni.s32.f32 %r2, 0f40200000;\nst.global.u32 [%rd1+32], %r2;\n" /* 2.5 -> 2 */
    "cvt.rmi.s32.f32 %r3, 0fC0200000;\nst.global.u32 [%rd1+36], %r3;\n" /* -2.5 -> -3 */
    "cvt.rzi.u8.f32 %r4, 0f43960000;\nst.global.u32 [%rd1+40], %r4;\n"  /* 300 -> 255 */
    "cvt.sat.u8.s32 %r5, %r1;\nst.global.u32 [%rd1+44], %r5;\n"        /* -5 -> 0 */
    "cvt.s64.s32 %rd2, %r1;\nst.global.u64 [%rd1+48], %rd2;\n"         /* sign extension */
    "cvt.rn.f16.f32 %h1, %f10;\ncvt.u32.u16 %r6, %h1;\nst.global.u32 [%rd1+56], %r6;\n"
    "cvt.f32.f16 %f12, %h1;\nst.global.f32 [%rd1+60], %f12;\n"
    "setp.ltu.f32 %p1, %f1, 0f7FC00000;\nselp.u32 %r7, 1, 0, %p1;\nst.global.u32 [%rd1+64], %r7;\n"
    "setp.lt.f32 %p2, %f1, 0f7FC00000;\nselp.u32 %r8, 1, 0, %p2;\nst.global.u32 [%rd1+68], %r8;\n"
    "setp.gt.s32.and %p3|%p2, %r1, -10, %p1;\nselp.u32 %r9, 1, 0, %p3;\nselp.u32 %r10, 2, 0, %p2;\n"
    "add.u32 %r9, %r9, %r10;\nst.global.u32 [%rd1+72], %r9;\n"       /* p=1, q=0 -> 1 */
    "shl.b32 %r11, %r1, 33;\nst.global.u32 [%rd1+76], %r11;\n"         /* >= width: 0 */
    "shr.s32 %r12, %r1, 40;\nst.global.u32 [%rd1+80], %r12;\n"         /* sign fill */
    "div.u32 %r13, 7, 0;\nst.global.u32 [%rd1+84], %r13;\n"
    "rem.s32 %r14, %r1, 3;\nst.global.u32 [%rd1+88], %r14;\n"          /* -5 % 3 = -2 */
    "mul.hi.s32 %r15, %r1, 1073741824;\nst.global.u32 [%rd1+92], %r15;\n" /* -5*2^30 >> 32 */
    "mul.wide.s32 %rd3, %r1, 1000000;\nst.global.u64 [%rd1+96], %rd3;\n"
    "add.cc.u32 %r16, -1, 2;\naddc.u32 %r17, 10, 20;\nst.global.u32 [%rd1+104], %r17;\n" /* 31 */
    "min.s32 %r18, %r1, 3;\nst.global.u32 [%rd1+108], %r18;\n"
    "max.u32 %r19, %r1, 3;\nst.global.u32 [%rd1+112], %r19;\n"
    "abs.s32 %r20, %r1;\nst.global.u32 [%rd1+116], %r20;\n"
    "neg.f32 %f13, %f1;\nst.global.f32 [%rd1+120], %f13;\n"
    "div.rz.f64 %fd2, 0d3FF0000000000000, 0d4008000000000000;\nst.global.f64 [%rd1+128], %fd2;\n"
    "fma.rn.f64 %fd3, %fd1, 0d4008000000000000, 0dBFF0000000000000;\nst.global.f64 [%rd1+136], %fd3;\n"
    "testp.subnormal.f32 %p1, %f3;\nselp.u32 %r21, 1, 0, %p1;\nst.global.u32 [%rd1+144], %r21;\n"
    "copysign.f32 %f14, %f13, %f1;\nst.global.f32 [%rd1+148], %f14;\n" /* |1| with sign of -1 */
    "bfe.s32 %r22, 0xF000, 12, 4;\nst.global.u32 [%rd1+152], %r22;\n"
    "prmt.b32 %r23, 0x33221100, 0x77665544, 0x1234;\nst.global.u32 [%rd1+156], %r23;\n"
    "lop3.b32 %r24, 12, 10, 9, 0x96;\nst.global.u32 [%rd1+160], %r24;\n"
    "add.sat.s32 %r25, 2147483647, 1;\nst.global.u32 [%rd1+164], %r25;\n"
    "cvt.rn.bf16.f32 %h2, %f10;\ncvt.u32.u16 %r26, %h2;\nst.global.u32 [%rd1+168], %r26;\n"
    "ex2.approx.ftz.f32 %f15, 0f41200000;\nst.global.f32 [%rd1+172], %f15;\n"
    "rcp.rn.f32 %f16, 0f40400000;\nst.global.f32 [%rd1+176], %f16;\n"
    "sqrt.rp.f32 %f17, 0f40000000;\nst.global.f32 [%rd1+180], %f17;\n"
    "ret;\n}\n";

static void test_modifiers(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, mods_ptx, "mods");
    uint8_t out[184];
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d);
    kt_argf(&t, 1, 1.0f);
    kt_argf(&t, 2, ldexpf(1, -24));
    kt_argf(&t, 3, ldexpf(1, -130));
    double third = 1.0 / 3.0;
    uint64_t tb;
    memcpy(&tb, &third, 8);
    kt_arg(&t, 4, tb);
    kt_arg(&t, 5, (uint32_t)-5);
    RUN_OK(kt_run(&t, 1, 1, 0));
    kt_get(&t, d, out, sizeof out);
    struct { int off, size; uint64_t want; const char *what; } c[] = {
        {0, 4, 0x3f800000, "add.rn tie"}, {4, 4, 0x3f800001, "add.rp"},
        {8, 4, 0, "add.ftz subnormal"}, {12, 4, 0x00100000, "add subnormal kept"},
        {16, 4, 0x3f800000, "mul.sat"}, {20, 4, 0, "sub.sat"},
        {24, 4, 0x3eaaaaab, "cvt.rn.f32.f64"}, {28, 4, 0x3eaaaaaa, "cvt.rz.f32.f64"},
        {32, 4, 2, "cvt.rni"}, {36, 4, 0xfffffffd, "cvt.rmi"}, {40, 4, 255, "cvt.rzi.u8 sat"},
        {44, 4, 0, "cvt.sat.u8.s32"}, {48, 8, 0xfffffffffffffffbull, "cvt.s64.s32"},
        {56, 4, 0x3555, "cvt.rn.f16"}, {60, 4, 0x3eaaa000, "cvt.f32.f16"},
        {64, 4, 1, "setp.ltu NaN"}, {68, 4, 0, "setp.lt NaN"}, {72, 4, 1, "setp.and p|q"},
        {76, 4, 0, "shl >= width"}, {80, 4, 0xffffffff, "shr.s >= width"},
        {84, 4, 0xffffffff, "div.u32 by 0"}, {88, 4, 0xfffffffe, "rem.s32"},
        {92, 4, 0xfffffffe, "mul.hi.s32"}, {96, 8, (uint64_t)-5000000ll, "mul.wide.s32"},
        {104, 4, 31, "addc carry"}, {108, 4, 0xfffffffb, "min.s32"}, {112, 4, 0xfffffffb, "max.u32"},
        {116, 4, 5, "abs.s32"}, {120, 4, 0xbf800000, "neg.f32"},
        {128, 8, 0x3fd5555555555555ull, "div.rz.f64"}, {136, 8, 0xbc90000000000000ull, "fma.rn.f64: 3*(1/3) - 1 exactly"},
        {144, 4, 1, "testp.subnormal"}, {148, 4, 0xbf800000, "copysign"},
        {152, 4, 0xffffffff, "bfe.s32"}, {156, 4, 0x11223344, "prmt"}, {160, 4, 15, "lop3"},
        {164, 4, 0x7fffffff, "add.sat.s32"}, {168, 4, 0x3eab, "cvt.rn.bf16"},
        {172, 4, 0x44800000, "ex2"}, {176, 4, 0x3eaaaaab, "rcp.rn"}, {180, 4, 0x3fb504f4, "sqrt.rp"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        uint64_t v = 0;
        memcpy(&v, out + c[i].off, (size_t)c[i].size);
        if (v != c[i].want)
            fail_msg("%s: 0x%llx, want 0x%llx", c[i].what, (unsigned long long)v,
                     (unsigned long long)c[i].want);
    }
    kt_close(&t);
}

/* A grid of a million blocks runs in bounded memory (blocks are reused as they retire). */
static const char warp2_ptx[] = HDR
    ".visible .entry w2(.param .u64 out)\n{\n"
    ".reg .pred %p<6>;\n.reg .b32 %r<30>;\n.reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %laneid;\n"
    "mul.wide.u32 %rd2, %r1, 64;\nadd.s64 %rd3, %rd1, %rd2;\n"
    "and.b32 %r2, %r1, 3;\nsetp.lt.u32 %p1, %r1, 40;\n"        /* true for all 32 lanes */
    "vote.sync.uni.pred %p2, %p1, -1;\nselp.u32 %r3, 1, 0, %p2;\nst.global.u32 [%rd3], %r3;\n"
    "match.all.sync.b32 %r4|%p3, %r2, -1;\nselp.u32 %r5, 1, 0, %p3;\n"
    "st.global.u32 [%rd3+4], %r4;\nst.global.u32 [%rd3+8], %r5;\n"
    "sub.s32 %r6, 100, %r1;\nredux.sync.min.s32 %r7, %r6, -1;\nst.global.u32 [%rd3+12], %r7;\n"
    "or.b32 %r8, %r1, 0xF0;\nredux.sync.and.b32 %r9, %r8, -1;\nst.global.u32 [%rd3+16], %r9;\n"
    "mov.u32 %r10, %lanemask_lt;\nst.global.u32 [%rd3+20], %r10;\n"
    "mov.u32 %r11, 0x1807;\n"                                  /* segmask 0x18: width 8, clamp 7 */
    "shfl.sync.idx.b32 %r12|%p4, %r1, 2, %r11, -1;\nst.global.u32 [%rd3+24], %r12;\n"
    "shfl.sync.down.b32 %r13|%p5, %r1, 6, 0x1f, -1;\nselp.u32 %r14, 1, 0, %p5;\n"
    "st.global.u32 [%rd3+28], %r13;\nst.global.u32 [%rd3+32], %r14;\n"
    "setp.eq.u32 %p1, %r2, 1;\nmov.u32 %r15, 0;\n@!%p1 bra SKIP;\n"
    "activemask.b32 %r15;\n"
    "SKIP:\nst.global.u32 [%rd3+36], %r15;\n"
    "ret;\n}\n";

static void test_warp_forms(void **state)
{
    (void)state;
    kt t;
    uint32_t out[32 * 16];
    kt_run_out(&t, warp2_ptx, "w2", 32, out, sizeof out);
    for (uint32_t l = 0; l < 32; l++) {
        const uint32_t *o = out + l * 16;
        uint32_t idx = (l & ~7u) | 2u;
        uint32_t want[10] = {1, 0, 0, 100 - 31, 0xf0, (1u << l) - 1, idx, l + 6 <= 31 ? l + 6 : l,
                             l + 6 <= 31, (l & 3) == 1 ? 0x22222222u : 0};
        for (int k = 0; k < 10; k++)
            if (o[k] != want[k])
                fail_msg("lane %u result %d = 0x%x, want 0x%x", l, k, o[k], want[k]);
    }
    kt_close(&t);
}

/* shfl.sync up/down/bfly over the whole warp with immediate offset and clamp (xwide.c moves
 * whole runs of lanes) against the same shuffles with the offset and clamp in registers (the
 * per-lane rule of the PTX ISA), and against the rule written here. */
static const char shfl_ptx[] = HDR
    ".visible .entry sf(.param .u64 p)\n{\n.reg .pred %p<12>;\n.reg .b32 %r<40>;\n"
    ".reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\n"
    "mul.lo.u32 %r2, %r1, 7;\nadd.u32 %r2, %r2, 3;\n"
    "mul.wide.u32 %rd2, %r1, 80;\nadd.s64 %rd3, %rd1, %rd2;\n"
    /* 5, 0, 31 in registers (computed, so not constants) */
    "add.u32 %r30, %r1, 5;\nsub.u32 %r30, %r30, %r1;\n"
    "sub.u32 %r31, %r1, %r1;\n"
    "add.u32 %r32, %r1, 31;\nsub.u32 %r32, %r32, %r1;\n"
    "shfl.sync.up.b32 %r3|%p1, %r2, 5, 0, -1;\n"
    "shfl.sync.up.b32 %r4|%p2, %r2, %r30, %r31, -1;\n"
    "shfl.sync.down.b32 %r5|%p3, %r2, 5, 31, -1;\n"
    "shfl.sync.down.b32 %r6|%p4, %r2, %r30, %r32, -1;\n"
    "shfl.sync.bfly.b32 %r7|%p5, %r2, 5, 31, -1;\n"
    "shfl.sync.bfly.b32 %r8|%p6, %r2, %r30, %r32, -1;\n"
    "shfl.sync.up.b32 %r9|%p7, %r2, 31, 0, -1;\n"
    "shfl.sync.down.b32 %r10|%p8, %r2, 0, 31, -1;\n"
    "st.global.u32 [%rd3], %r3;\nst.global.u32 [%rd3+4], %r4;\nst.global.u32 [%rd3+8], %r5;\n"
    "st.global.u32 [%rd3+12], %r6;\nst.global.u32 [%rd3+16], %r7;\nst.global.u32 [%rd3+20], %r8;\n"
    "st.global.u32 [%rd3+24], %r9;\nst.global.u32 [%rd3+28], %r10;\n"
    "selp.u32 %r11, 1, 0, %p1;\nst.global.u32 [%rd3+32], %r11;\n"
    "selp.u32 %r12, 1, 0, %p2;\nst.global.u32 [%rd3+36], %r12;\n"
    "selp.u32 %r13, 1, 0, %p3;\nst.global.u32 [%rd3+40], %r13;\n"
    "selp.u32 %r14, 1, 0, %p4;\nst.global.u32 [%rd3+44], %r14;\n"
    "selp.u32 %r15, 1, 0, %p5;\nst.global.u32 [%rd3+48], %r15;\n"
    "selp.u32 %r16, 1, 0, %p6;\nst.global.u32 [%rd3+52], %r16;\n"
    "selp.u32 %r17, 1, 0, %p7;\nst.global.u32 [%rd3+56], %r17;\n"
    "selp.u32 %r18, 1, 0, %p8;\nst.global.u32 [%rd3+60], %r18;\n"
    "ret;\n}\n";

static void test_shfl_whole_warp(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, shfl_ptx, "sf");
    uint32_t out[32 * 20];
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d);
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_get(&t, d, out, sizeof out);
    for (uint32_t l = 0; l < 32; l++) {
        const uint32_t *o = out + l * 20;
#define V(x) (7u * (x) + 3u)
        uint32_t want[16] = {l >= 5 ? V(l - 5) : V(l), l >= 5 ? V(l - 5) : V(l),
                             l + 5 <= 31 ? V(l + 5) : V(l), l + 5 <= 31 ? V(l + 5) : V(l),
                             V(l ^ 5u), V(l ^ 5u), l >= 31 ? V(0) : V(l), V(l),
                             l >= 5, l >= 5, l + 5 <= 31, l + 5 <= 31, 1, 1, l >= 31, 1};
#undef V
        for (int k = 0; k < 16; k++)
            if (o[k] != want[k])
                fail_msg("lane %u result %d = %u, want %u", l, k, o[k], want[k]);
    }
    kt_close(&t);
}

static const char local_ptx[] = HDR
    ".visible .entry la(.param .u64 out, .param .u32 k)\n{\n"
    ".local .align 4 .b8 arr[16];\n"
    ".reg .b32 %r<6>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<3>;\n"
    "ld.param.u64 %rd1, [out];\nld.param.u32 %r1, [k];\nmov.u32 %r2, %tid.x;\n"
    "cvt.rn.f32.u32 %f1, %r2;\natom.global.add.f32 %f2, [%rd1], %f1;\n"
    "red.global.add.u64 [%rd1+8], 5;\n"
    "atom.global.exch.b32 %r3, [%rd1+16], %r2;\n"
    "mov.u64 %rd2, arr;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n"
    "st.local.u32 [%rd4], %r2;\nld.local.u32 %r4, [arr];\n"
    "mul.wide.u32 %rd5, %r2, 4;\nadd.s64 %rd6, %rd1, %rd5;\nst.global.u32 [%rd6+32], %r4;\n"
    "ret;\n}\n";

static void test_local_and_atomics(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, local_ptx, "la");
    uint8_t out[32 + 64 * 4];
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d); kt_arg(&t, 1, 0);
    RUN_OK(kt_run(&t, 1, 64, 0));
    kt_get(&t, d, out, sizeof out);
    float sum;
    uint64_t red;
    uint32_t exch, loc[64];
    memcpy(&sum, out, 4);
    memcpy(&red, out + 8, 8);
    memcpy(&exch, out + 16, 4);
    memcpy(loc, out + 32, sizeof loc);
    if (sum != 2016.0f || red != 320 || exch != 63)
        fail_msg("atom.add.f32 %g (want 2016), red.add.u64 %llu (want 320), exch %u (want 63)",
                 sum, (unsigned long long)red, exch);
    for (uint32_t i = 0; i < 64; i++)
        if (loc[i] != i) /* each thread's own local array */
            fail_msg("thread %u read %u from its local array", i, loc[i]);
    kt_close(&t);
    kt_text(&t, local_ptx, "la");
    d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, d); kt_arg(&t, 1, 4); /* arr[4]: one past the 16-byte frame */
    assert_int_equal(kt_run(&t, 1, 64, 0), WL_EFAULT);
    if (!strstr(t.err, "invalid __local__ write of size 4 bytes: offset 0x10 is out of bounds") ||
        !strstr(t.err, "thread (0,0,0)") || !strstr(t.err, "t.ptx:20:"))
        fail_msg("message: %s", t.err);
    kt_close(&t);
}

/* Special registers: ids, sizes, and the clock the timing model sets. */
static const char sreg_ptx[] = HDR
    ".visible .entry sr(.param .u64 out)\n{\n.reg .b32 %r<12>;\n.reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 64;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "mov.u64 %rd4, %clock64;\nst.global.u64 [%rd3], %rd4;\n"
    "mov.u64 %rd5, %globaltimer;\nst.global.u64 [%rd3+8], %rd5;\n"
    "mov.u32 %r2, %smid;\nst.global.u32 [%rd3+16], %r2;\n"
    "mov.u32 %r3, %nsmid;\nst.global.u32 [%rd3+20], %r3;\n"
    "mov.u32 %r4, %warpid;\nst.global.u32 [%rd3+24], %r4;\n"
    "mov.u32 %r5, %ntid.y;\nst.global.u32 [%rd3+28], %r5;\n"
    "mov.u32 %r6, %nctaid.x;\nst.global.u32 [%rd3+32], %r6;\n"
    "mov.u32 %r7, %dynamic_smem_size;\nst.global.u32 [%rd3+36], %r7;\n"
    "mov.u32 %r8, %ctaid.x;\nst.global.u32 [%rd3+40], %r8;\n"
    "mov.u32 %r9, %laneid;\nst.global.u32 [%rd3+44], %r9;\n"
    "ret;\n}\n";

static void test_special_registers(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, sreg_ptx, "sr");
    uint64_t d = kt_buf(&t, NULL, 64 * 64);
    kt_arg(&t, 0, d);
    exec_prog *p = kt_prog(&t, 300, 64, 512, 132);
    uint32_t c[3] = {140, 0, 0};
    exec_block *b = exec_block_create(p, c, &t.d);
    assert_non_null(b);
    exec_block_set_clock(b, 123456789012ull, 5000000000ull);
    assert_int_equal(exec_block_run(b, 100000, NULL, &t.d), WL_OK);
    uint8_t out[64 * 64];
    kt_get(&t, d, out, sizeof out);
    for (int th = 0; th < 64; th++) {
        const uint8_t *o = out + th * 64;
        uint64_t clk, tim;
        uint32_t v[8];
        memcpy(&clk, o, 8);
        memcpy(&tim, o + 8, 8);
        memcpy(v, o + 16, sizeof v);
        uint32_t want[8] = {140 % 132, 132, (uint32_t)th / 32, 1, 300, 512, 140, (uint32_t)th % 32};
        if (clk != 123456789012ull || tim != 5000000000ull)
            fail_msg("thread %d: clock %llu timer %llu", th, (unsigned long long)clk,
                     (unsigned long long)tim);
        for (int k = 0; k < 8; k++)
            if (v[k] != want[k])
                fail_msg("thread %d sreg %d = %u, want %u", th, k, v[k], want[k]);
    }
    exec_block_destroy(b);
    exec_prog_destroy(p);
    kt_close(&t);
}

/* ----------------------------------------------------------------------------------------- */
/* Register slots shared by liveness, constants propagated (xalloc.c)                        */

/* A chain of 20 temporaries, each read once right after it is written: a handful of slots. */
static const char chain_ptx[] = HDR
    ".visible .entry chain(.param .u64 out)\n{\n"
    ".reg .b32 %r<24>;\n.reg .b64 %rd<5>;\n"
    "mov.u32 %r1, %tid.x;\n"
    "add.u32 %r2, %r1, 1;\nadd.u32 %r3, %r2, 2;\nadd.u32 %r4, %r3, 3;\nadd.u32 %r5, %r4, 4;\n"
    "add.u32 %r6, %r5, 5;\nadd.u32 %r7, %r6, 6;\nadd.u32 %r8, %r7, 7;\nadd.u32 %r9, %r8, 8;\n"
    "add.u32 %r10, %r9, 9;\nadd.u32 %r11, %r10, 10;\nadd.u32 %r12, %r11, 11;\n"
    "add.u32 %r13, %r12, 12;\nadd.u32 %r14, %r13, 13;\nadd.u32 %r15, %r14, 14;\n"
    "add.u32 %r16, %r15, 15;\nadd.u32 %r17, %r16, 16;\nadd.u32 %r18, %r17, 17;\n"
    "add.u32 %r19, %r18, 18;\nadd.u32 %r20, %r19, 19;\nadd.u32 %r21, %r20, 20;\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r21;\n"
    "ret;\n}\n";

/* %r1 is written once, by a mov of 5, but the loop reads it before that mov on the first trip
 * (0 then): the sum is 0 + 5 + 5 = 10, and 15 if the reader took the constant. %r3 = tid gets a
 * guarded second value (7, lanes < 16) in a block placed before the one that writes tid into
 * it: a guarded write does not end the old value's life, so %r5 and %r6, alive after the first
 * write, must not take %r3's slot (lanes >= 16 would store 3 tid or 3 tid + 1). */
static const char xalloc_ptx[] = HDR
    ".visible .entry xa(.param .u64 out)\n{\n"
    ".reg .pred %p<3>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<5>;\n"
    "mov.u32 %r4, %tid.x;\nmov.u32 %r2, 0;\nmov.u32 %r7, 0;\n"
    "LOOP:\nadd.u32 %r2, %r2, %r1;\nmov.u32 %r1, 5;\nadd.u32 %r7, %r7, 1;\n"
    "setp.lt.u32 %p1, %r7, 3;\n@%p1 bra LOOP;\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mul.wide.u32 %rd3, %r4, 12;\nadd.s64 %rd4, %rd2, %rd3;\n"
    "st.global.u32 [%rd4], %r2;\nsetp.lt.u32 %p2, %r4, 16;\nbra.uni L2;\n"
    "L1:\n@%p2 mov.u32 %r3, 7;\nst.global.u32 [%rd4+4], %r3;\nret;\n"
    "L2:\nmov.u32 %r3, %r4;\nmul.lo.u32 %r5, %r4, 3;\nadd.u32 %r6, %r5, 1;\n"
    "st.global.u32 [%rd4+8], %r6;\nbra.uni L1;\n"
    "}\n";

/* exec_prog_pass_folded (and exec_prog_no_op_counts): %r2's move (every reader takes the 7), %r7's (never read, just before
 * the branch's reconvergence point) and %r8's (never read, just before ret) are passed over;
 * %r3's is not (a guarded second write), nor %r1's (a special register). */
static const char fold_ptx[] = HDR
    ".visible .entry f(.param .u64 p)\n{\n.reg .pred %p<3>;\n.reg .b32 %r<9>;\n"
    ".reg .b64 %rd<5>;\n"
    "ld.param.u64 %rd1, [p];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, 7;\n"
    "mov.u32 %r3, 5;\n"
    "add.u32 %r4, %r1, %r2;\n"
    "setp.lt.u32 %p1, %r1, 16;\n"
    "@%p1 mov.u32 %r3, 9;\n"
    "add.u32 %r5, %r4, %r3;\n"
    "setp.lt.u32 %p2, %r1, 8;\n"
    "@%p2 bra L;\n"
    "add.u32 %r5, %r5, 100;\n"
    "mov.u32 %r7, 11;\n"
    "L:\n"
    "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r5;\n"
    "mov.u32 %r8, 1;\n"
    "ret;\n}\n";

/* Steps warp 0 of a block of p to the end: the opcodes it ran, the moves passed over. */
static int fold_steps(kt *t, exec_prog *p, uint16_t *ops, uint32_t *passed, exec_counts *cnt)
{
    uint32_t c[3] = {0, 0, 0};
    exec_block *b = exec_block_create(p, c, &t->d);
    assert_non_null(b);
    exec_step_info in;
    int n = 0;
    *passed = 0;
    while (exec_warp_state_of(b, 0) == EXEC_WARP_READY && n < 64) {
        assert_int_equal(exec_warp_step(b, 0, &in, &t->d), WL_OK);
        *passed += in.passed;
        if (in.exited && in.opcode == 0 && in.exec_mask == 0)
            break;
        ops[n++] = in.opcode;
    }
    *cnt = *exec_block_counts(b);
    exec_block_destroy(b);
    return n;
}

static void test_pass_folded(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, fold_ptx, "f");
    uint64_t d = kt_buf(&t, NULL, 4 * 32);
    kt_arg(&t, 0, d);
    exec_prog *p = kt_prog(&t, 1, 32, 0, 0);
    uint16_t all[64], lean[64];
    uint32_t pass_all, pass_lean;
    exec_counts c_all, c_lean;
    int n_all = fold_steps(&t, p, all, &pass_all, &c_all);
    unsigned out[32];
    kt_get(&t, d, out, sizeof out);
    for (unsigned i = 0; i < 32; i++)
        if (out[i] != i + 7 + (i < 16 ? 9 : 5) + (i < 8 ? 0 : 100))
            fail_msg("stepped: lane %u = %u", i, out[i]);
    memset(devmem_translate(t.mem, d, sizeof out), 0, sizeof out);
    exec_prog_pass_folded(p);
    int n_lean = fold_steps(&t, p, lean, &pass_lean, &c_lean);
    kt_get(&t, d, out, sizeof out);
    /* exec_prog_no_op_counts: the same counts but none per opcode */
    exec_prog_no_op_counts(p);
    exec_counts c_noop;
    uint32_t pass_noop;
    fold_steps(&t, p, lean, &pass_noop, &c_noop);
    exec_prog_destroy(p);
    for (int i = 0; i < PTX_OP_COUNT; i++)
        if (c_noop.op_count[i])
            fail_msg("no_op_counts: opcode %d counted %llu", i,
                     (unsigned long long)c_noop.op_count[i]);
    if (c_noop.warp_insts != c_all.warp_insts || c_noop.thread_insts != c_all.thread_insts ||
        c_noop.branches != c_all.branches || c_noop.divergent_branches != c_all.divergent_branches)
        fail_msg("no_op_counts: other counts changed");
    for (unsigned i = 0; i < 32; i++)
        if (out[i] != i + 7 + (i < 16 ? 9 : 5) + (i < 8 ? 0 : 100))
            fail_msg("passing: lane %u = %u", i, out[i]);
    /* the same instructions less the three moves, which still count as executed */
    if (pass_all != 0 || pass_lean != 3 || n_lean != n_all - 3)
        fail_msg("passed %u and %u, steps %d and %d", pass_all, pass_lean, n_all, n_lean);
    int movs_all = 0, movs_lean = 0;
    for (int i = 0; i < n_all; i++)
        movs_all += all[i] == PTX_OP_MOV;
    for (int i = 0; i < n_lean; i++)
        movs_lean += lean[i] == PTX_OP_MOV;
    if (movs_all != 6 || movs_lean != 3)
        fail_msg("moves stepped: %d and %d", movs_all, movs_lean);
    if (memcmp(&c_all, &c_lean, sizeof c_all) != 0)
        fail_msg("counts differ: %llu/%llu warp instructions, %llu/%llu thread instructions",
                 (unsigned long long)c_all.warp_insts, (unsigned long long)c_lean.warp_insts,
                 (unsigned long long)c_all.thread_insts, (unsigned long long)c_lean.thread_insts);
    kt_close(&t);
}

/* exec_prog_lean_steps: the same steps as a full program, with the instruction's description
 * (unit, latency class, position, registers) from exec_insn_describe instead. */
static void test_lean_steps(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, step_ptx, "s");
    uint64_t d = kt_buf(&t, NULL, 4 * 32);
    kt_arg(&t, 0, d);
    exec_prog *pf = kt_prog(&t, 1, 20, 0, 0), *pl = kt_prog(&t, 1, 20, 0, 0);
    exec_prog_lean_steps(pl);
    uint32_t c[3] = {0, 0, 0};
    exec_block *bf = exec_block_create(pf, c, &t.d), *bl = exec_block_create(pl, c, &t.d);
    assert_non_null(bf);
    assert_non_null(bl);
    int n = 0;
    while (exec_warp_state_of(bf, 0) == EXEC_WARP_READY && n < 50) {
        exec_step_info f, l, ds;
        memset(&l, 0xa5, sizeof l); /* stale fields: what lean steps leave alone */
        assert_int_equal(exec_warp_step(bf, 0, &f, &t.d), WL_OK);
        assert_int_equal(exec_warp_step(bl, 0, &l, &t.d), WL_OK);
        n++;
        if (f.exited && f.opcode == 0 && f.exec_mask == 0) {
            if (!l.exited || l.exec_mask != 0)
                fail_msg("lean: not finished with the full program");
            break;
        }
        if (l.opcode != f.opcode || l.func != f.func || l.pc != f.pc || l.active != f.active ||
            l.live != f.live || l.exec_mask != f.exec_mask || l.mem_space != f.mem_space ||
            l.mem_load != f.mem_load || l.mem_store != f.mem_store || l.mem_size != f.mem_size ||
            l.is_branch != f.is_branch || l.divergent != f.divergent || l.exited != f.exited ||
            l.exit_mask != f.exit_mask || l.addr_linear != f.addr_linear || l.passed != f.passed ||
            !l.ran || !f.ran)
            fail_msg("step %d (pc %u): lean and full steps differ", n, f.pc);
        for (int k = 0; k < 32; k++)
            if (((f.exec_mask >> k) & 1) && f.mem_space &&
                exec_step_addr(&l, k) != exec_step_addr(&f, k))
                fail_msg("step %d: lane %d address", n, k);
        exec_insn_describe(pl, l.func, l.pc, &ds);
        if (ds.opcode != f.opcode || ds.unit != f.unit || ds.latclass != f.latclass ||
            ds.line != f.line || ds.col != f.col || ds.loc_line != f.loc_line ||
            ds.nsrc != f.nsrc || ds.ndst != f.ndst ||
            memcmp(ds.src, f.src, sizeof ds.src) != 0 || memcmp(ds.dst, f.dst, sizeof ds.dst) != 0)
            fail_msg("step %d (pc %u): exec_insn_describe differs from the step", n, f.pc);
    }
    if (n < 6)
        fail_msg("only %d steps", n);
    exec_block_destroy(bf);
    exec_block_destroy(bl);
    exec_prog_destroy(pf);
    exec_prog_destroy(pl);
    kt_close(&t);
}

/* mov of a special register: the value goes straight into the destination (xinsn.pre_dst),
 * for the lanes that execute the move only (here after a divergent branch). */
static const char pre_dst_ptx[] = HDR
    ".visible .entry pd(.param .u64 p)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<4>;\n"
    ".reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [p];\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r3, %tid.x;\n"
    "add.u32 %r1, %r1, 1000;\n"
    "setp.lt.u32 %p1, %r3, 16;\n"
    "@%p1 bra L;\n"
    "mov.u32 %r1, %laneid;\n"
    "L:\n"
    "mul.wide.u32 %rd2, %r3, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r1;\n"
    "ret;\n}\n";

static void test_pre_dst(void **state)
{
    (void)state;
    for (int stepped = 0; stepped < 2; stepped++) {
        kt t;
        kt_text(&t, pre_dst_ptx, "pd");
        uint64_t d = kt_buf(&t, NULL, 4 * 64);
        kt_arg(&t, 0, d);
        if (stepped) { /* exec_warp_step, as the timing model runs it */
            exec_prog *p = kt_prog(&t, 1, 64, 0, 0);
            uint32_t c[3] = {0, 0, 0};
            exec_block *b = exec_block_create(p, c, &t.d);
            assert_non_null(b);
            exec_step_info in;
            for (int w = 0; w < 2; w++)
                for (int n = 0; exec_warp_state_of(b, w) == EXEC_WARP_READY && n < 64; n++)
                    assert_int_equal(exec_warp_step(b, w, &in, &t.d), WL_OK);
            exec_block_destroy(b);
            exec_prog_destroy(p);
        } else {
            RUN_OK(kt_run(&t, 1, 64, 0));
        }
        unsigned out[64];
        kt_get(&t, d, out, sizeof out);
        for (unsigned i = 0; i < 64; i++) {
            unsigned want = i < 16 ? i + 1000 : i % 32;
            if (out[i] != want)
                fail_msg("%s: thread %u = %u, want %u", stepped ? "stepped" : "run", i, out[i],
                         want);
        }
        kt_close(&t);
    }
}

/* Narrow slots (32 lanes x 32 bits, xalloc_layout) written by every kind of writer with only
 * some lanes executing, each result checked in every lane: lanes that do not execute keep their
 * value. Lanes 16-31 run the branch's fall-through: a narrow fast handler whose destination is
 * its source, fma.rn.f32 with its destination among its sources, a special register moved
 * straight into its register, a narrow load and store through a narrow (shared) address. Then
 * all lanes: a shuffle with a predicate output, selp, a narrow load, a strided narrow load
 * (not one block), an atomic's old value, bar.red into a narrow register, 64-bit pack and
 * unpack of narrow halves, cvt to narrow. */
static const char narrow_ptx[] = HDR
    ".visible .entry nw(.param .u64 out)\n{\n"
    ".reg .pred %p<4>;\n.reg .b32 %r<20>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<6>;\n"
    ".shared .align 4 .b32 sh[32];\n"
    "mov.u32 %r1, %tid.x;\nadd.u32 %r2, %r1, 100;\ncvt.rn.f32.u32 %f1, %r1;\n"
    "mov.u32 %r3, sh;\nshl.b32 %r4, %r1, 2;\nadd.u32 %r5, %r3, %r4;\n"
    "st.shared.u32 [%r5], %r2;\n"
    "setp.lt.u32 %p1, %r1, 16;\n@%p1 bra LOW;\n"
    "add.u32 %r2, %r2, %r2;\nfma.rn.f32 %f1, %f1, %f1, %f1;\nmov.u32 %r6, %laneid;\n"
    "ld.shared.u32 %r7, [%r5+-64];\nst.shared.u32 [%r5], %r7;\n"
    "bra.uni JOIN;\n"
    "LOW:\nadd.u32 %r6, %r1, 1000;\n"
    "JOIN:\n"
    "shfl.sync.down.b32 %r8|%p2, %r2, 8, 31, -1;\nselp.u32 %r9, 1, 0, %p2;\n"
    "ld.shared.u32 %r10, [%r5];\n"
    "and.b32 %r16, %r1, 15;\nshl.b32 %r17, %r16, 3;\nadd.u32 %r18, %r3, %r17;\n"
    "ld.shared.u32 %r19, [%r18];\n"
    "atom.shared.add.u32 %r11, [%r3], 1;\n"
    "bar.red.popc.u32 %r12, 0, %p1;\n"
    "mov.b64 %rd5, {%r1, %r2};\nmov.b64 {%r13, %r14}, %rd5;\ncvt.u32.u64 %r15, %rd5;\n"
    "add.u32 %r13, %r13, %r15;\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n"
    "st.global.u32 [%rd4], %r2;\nst.global.f32 [%rd4+128], %f1;\n"
    "st.global.u32 [%rd4+256], %r6;\nst.global.u32 [%rd4+384], %r8;\n"
    "st.global.u32 [%rd4+512], %r9;\nst.global.u32 [%rd4+640], %r10;\n"
    "st.global.u32 [%rd4+768], %r11;\nst.global.u32 [%rd4+896], %r12;\n"
    "st.global.u32 [%rd4+1024], %r14;\nst.global.u32 [%rd4+1152], %r13;\n"
    "st.global.u32 [%rd4+1280], %r19;\n"
    "ret;\n}\n";

static void test_narrow_partial_writes(void **state)
{
    (void)state;
    kt t;
    uint32_t out[11 * 32];
    kt_run_out(&t, narrow_ptx, "nw", 32, out, sizeof out);
    uint32_t r2[32];
    for (uint32_t l = 0; l < 32; l++)
        r2[l] = l < 16 ? l + 100 : 2 * (l + 100);
    for (uint32_t l = 0; l < 32; l++) {
        float f = l < 16 ? (float)l : (float)(l * l + l), got;
        memcpy(&got, &out[32 + l], 4);
        uint32_t s2 = 2 * (l & 15); /* the strided load's word */
        uint32_t want[11] = {r2[l], 0, l < 16 ? l + 1000 : l, l + 8 <= 31 ? r2[l + 8] : r2[l],
                             l + 8 <= 31, l < 16 ? l + 100 : l + 84, 100 + l, 16, r2[l],
                             2 * l, s2 < 16 ? s2 + 100 : s2 + 84};
        for (int k = 0; k < 11; k++)
            if (k != 1 && out[k * 32 + l] != want[k])
                fail_msg("value %d of lane %u: %u, want %u", k, l, out[k * 32 + l], want[k]);
        if (got != f)
            fail_msg("fma of lane %u: %g, want %g", l, (double)got, (double)f);
    }
    uint32_t narrow, wide;
    exec_prog *p = kt_prog(&t, 1, 32, 0, 0);
    exec_prog_slot_widths(p, &narrow, &wide);
    exec_prog_destroy(p);
    if (narrow == 0 || wide == 0)
        fail_msg("%u narrow and %u wide slots: both kinds expected", narrow, wide);
    kt_close(&t);
}

static void test_register_slots(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, chain_ptx, "chain");
    uint64_t d = kt_buf(&t, NULL, 32 * 4);
    kt_arg(&t, 0, d);
    exec_prog *p = kt_prog(&t, 1, 32, 0, 0);
    uint32_t regs, imm, declared, narrow, wide;
    exec_prog_slots(p, &regs, &imm, &declared);
    exec_prog_slot_widths(p, &narrow, &wide);
    exec_prog_destroy(p);
    /* 29 registers declared. Narrow registers share only narrow slots, wide ones wide slots
     * (xalloc.c): two narrow slots, for %r1 (read again for the address) and the chain (each
     * add reads its operand for the last time and writes its result over it, xa_last); one
     * wide one: %rd1 and %rd2 hold the parameter, a launch constant read as an immediate (the
     * 21st: one value for both, fold_launch_constants), so %rd3, then %rd4 over it */
    if (declared != 29 || regs != 3 || imm != 21 || narrow != 2 || wide != 1)
        fail_msg("chain: %u registers -> %u slots (%u narrow, %u wide), %u immediates",
                 declared, regs, narrow, wide, imm);
    RUN_OK(kt_run(&t, 1, 32, 0));
    unsigned out[32];
    kt_get(&t, d, out, sizeof out);
    for (unsigned i = 0; i < 32; i++)
        if (out[i] != i + 210)
            fail_msg("chain: lane %u = %u, want %u", i, out[i], i + 210);
    kt_close(&t);

    kt_text(&t, xalloc_ptx, "xa");
    d = kt_buf(&t, NULL, 32 * 12);
    kt_arg(&t, 0, d);
    RUN_OK(kt_run(&t, 1, 32, 0));
    unsigned o[96];
    kt_get(&t, d, o, sizeof o);
    for (unsigned i = 0; i < 32; i++)
        if (o[3 * i] != 10 || o[3 * i + 1] != (i < 16 ? 7 : i) || o[3 * i + 2] != 3 * i + 1)
            fail_msg("lane %u: %u %u %u, want 10 %u %u", i, o[3 * i], o[3 * i + 1], o[3 * i + 2],
                     i < 16 ? 7 : i, 3 * i + 1);
    kt_close(&t);
}

/* Slot sharing in a function with wmma.mma, whose operands name 32 registers (xalloc.c: the
 * liveness pass once gave up on any instruction naming more than 16, and such a function kept a
 * slot per register). Two products in a row: D1 = A B + C, D2 = A B + D1, with A and B all
 * 1.0 and C zero: every element of D2 is 32. A, B and C are dead once the first product has
 * read C, so D2 can take C's slots, and D1's die at the second product. */
static const char wmma_slots_ptx[] = HDR
    ".visible .entry ws(.param .u64 pa, .param .u64 pc, .param .u64 pd)\n{\n"
    ".reg .b32 %r<17>;\n.reg .f32 %f<25>;\n.reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [pa];\nld.param.u64 %rd2, [pc];\nld.param.u64 %rd3, [pd];\n"
    "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, "
    "[%rd1], 16;\n"
    "wmma.load.b.sync.aligned.row.m16n16k16.global.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, "
    "%r16}, [%rd1], 16;\n"
    "wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, "
    "[%rd2], 16;\n"
    "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {%f9, %f10, %f11, %f12, %f13, %f14, %f15, "
    "%f16}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, "
    "%r16}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};\n"
    "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {%f17, %f18, %f19, %f20, %f21, %f22, %f23, "
    "%f24}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, "
    "%r16}, {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16};\n"
    "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd3], {%f17, %f18, %f19, %f20, %f21, "
    "%f22, %f23, %f24}, 16;\nret;\n}\n";

static void test_register_slots_wmma(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, wmma_slots_ptx, "ws");
    uint16_t ones[256];
    for (int i = 0; i < 256; i++)
        ones[i] = 0x3c00; /* f16 1.0 */
    float zero[256] = {0}, out[256];
    uint64_t a = kt_buf(&t, ones, sizeof ones), c = kt_buf(&t, zero, sizeof zero);
    uint64_t d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, a);
    kt_arg(&t, 1, c);
    kt_arg(&t, 2, d);
    exec_prog *p = kt_prog(&t, 1, 32, 0, 0);
    uint32_t regs, imm, declared;
    exec_prog_slots(p, &regs, &imm, &declared);
    exec_prog_destroy(p);
    /* 46 registers declared; in slots: A and B (16, live throughout), C then D2 (8: C's last
     * reader is the first product, D2's writer the second), D1 (8: it is read by the product
     * that writes D2, and an instruction's result takes no slot of its own operands) and the
     * 3 addresses: 35. One slot per register: 46 */
    if (regs > 35)
        fail_msg("a function with wmma.mma: %u of %u registers in slots of their own", regs,
                 declared);
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_get(&t, d, out, sizeof out);
    for (int i = 0; i < 256; i++)
        if (out[i] != 32.0f)
            fail_msg("element %d = %g, want 32", i, (double)out[i]);
    kt_close(&t);
}

/* wmma in each layout of A and B (row- and column-major in memory: wmma_tile's loads, which
 * read two f16 halves side by side as one word where the layout puts them so, and
 * xmma_wmma's copies between fragments and matrices), with a leading dimension larger than
 * the tile: D = A B + C on small integers, exact in f16 and f32, against the product computed
 * here. A[r][k] = (r + 2k) mod 5 - 2, B[k][n] = (3k + n) mod 7 - 3, C[r][n] = r - 2n. */
static void test_wmma_layouts(void **state)
{
    (void)state;
    enum { LD = 24 }; /* elements per stored row (or column) of each matrix */
    for (int v = 0; v < 4; v++) {
        const char *la = v & 1 ? "col" : "row", *lb = v & 2 ? "col" : "row";
        char ptx[2048];
        snprintf(ptx, sizeof ptx, HDR
                 ".visible .entry wl(.param .u64 pa, .param .u64 pb, .param .u64 pc, "
                 ".param .u64 pd)\n{\n"
                 ".reg .b32 %%r<17>;\n.reg .f32 %%f<17>;\n.reg .b64 %%rd<5>;\n"
                 "ld.param.u64 %%rd1, [pa];\nld.param.u64 %%rd2, [pb];\n"
                 "ld.param.u64 %%rd3, [pc];\nld.param.u64 %%rd4, [pd];\n"
                 "wmma.load.a.sync.aligned.%s.m16n16k16.global.f16 {%%r1, %%r2, %%r3, %%r4, "
                 "%%r5, %%r6, %%r7, %%r8}, [%%rd1], %d;\n"
                 "wmma.load.b.sync.aligned.%s.m16n16k16.global.f16 {%%r9, %%r10, %%r11, %%r12, "
                 "%%r13, %%r14, %%r15, %%r16}, [%%rd2], %d;\n"
                 "wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%%f1, %%f2, %%f3, %%f4, "
                 "%%f5, %%f6, %%f7, %%f8}, [%%rd3], %d;\n"
                 "wmma.mma.sync.aligned.%s.%s.m16n16k16.f32.f32 {%%f9, %%f10, %%f11, %%f12, "
                 "%%f13, %%f14, %%f15, %%f16}, {%%r1, %%r2, %%r3, %%r4, %%r5, %%r6, %%r7, %%r8}, "
                 "{%%r9, %%r10, %%r11, %%r12, %%r13, %%r14, %%r15, %%r16}, {%%f1, %%f2, %%f3, "
                 "%%f4, %%f5, %%f6, %%f7, %%f8};\n"
                 "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%%rd4], {%%f9, %%f10, "
                 "%%f11, %%f12, %%f13, %%f14, %%f15, %%f16}, %d;\nret;\n}\n",
                 la, LD, lb, LD, LD, la, lb, LD);
        static const uint16_t h[5] = {0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000}; /* -2 .. 2 */
        static const uint16_t g[7] = {0xc200, 0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000, 0x4200};
        uint16_t A[16 * LD] = {0}, B[16 * LD] = {0};
        float C[16 * LD] = {0}, D[16 * LD];
        for (int r = 0; r < 16; r++)
            for (int k = 0; k < 16; k++) {
                A[v & 1 ? k * LD + r : r * LD + k] = h[(r + 2 * k) % 5];
                B[v & 2 ? r * LD + k : k * LD + r] = g[(3 * k + r) % 7]; /* B[k][n = r] */
                C[r * LD + k] = (float)(r - 2 * k);
            }
        kt t;
        kt_text(&t, ptx, "wl");
        uint64_t a = kt_buf(&t, A, sizeof A), b = kt_buf(&t, B, sizeof B);
        uint64_t c = kt_buf(&t, C, sizeof C), d = kt_buf(&t, NULL, sizeof D);
        kt_arg(&t, 0, a);
        kt_arg(&t, 1, b);
        kt_arg(&t, 2, c);
        kt_arg(&t, 3, d);
        RUN_OK(kt_run(&t, 1, 32, 0));
        kt_get(&t, d, D, sizeof D);
        for (int r = 0; r < 16; r++)
            for (int n = 0; n < 16; n++) {
                int want = r - 2 * n;
                for (int k = 0; k < 16; k++)
                    want += ((r + 2 * k) % 5 - 2) * ((3 * k + n) % 7 - 3);
                if (D[r * LD + n] != (float)want)
                    fail_msg("A %s, B %s: D[%d][%d] = %g, want %d", la, lb, r, n,
                             (double)D[r * LD + n], want);
            }
        kt_close(&t);
    }
}

/* cvt.rn.f16.f32 (xfast.c: eight lanes at a time, through F16C where the host has it; the
 * baseline CPU step of CI runs the scalar form): rounding to nearest even at the ties, overflow
 * to inf, subnormal and zero results, infinities, and NaNs (the canonical f16 NaN, also for a
 * signalling one), all 32 lanes at once and, for the same inputs, only the odd lanes (the
 * others keep the destination's old value). Groups of eight lanes with and without a NaN. */
static const char cvth_ptx[] = HDR
    ".visible .entry cvth(.param .u64 in, .param .u64 out)\n{\n"
    ".reg .pred %p<2>;\n.reg .b16 %h<3>;\n.reg .b32 %r<6>;\n.reg .f32 %f<2>;\n"
    ".reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [in];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "ld.param.u64 %rd3, [out];\ncvta.to.global.u64 %rd4, %rd3;\n"
    "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd5, %r1, 4;\nadd.s64 %rd6, %rd2, %rd5;\n"
    "ld.global.f32 %f1, [%rd6];\n"
    "cvt.rn.f16.f32 %h1, %f1;\n"
    "and.b32 %r2, %r1, 1;\nsetp.ne.u32 %p1, %r2, 0;\nmov.b16 %h2, 0x1234;\n"
    "@%p1 cvt.rn.f16.f32 %h2, %f1;\n"
    "cvt.u32.u16 %r3, %h1;\ncvt.u32.u16 %r4, %h2;\n"
    "add.s64 %rd7, %rd4, %rd5;\nst.global.u32 [%rd7], %r3;\nst.global.u32 [%rd7+128], %r4;\n"
    "ret;\n}\n";

static void test_cvt_f16(void **state)
{
    (void)state;
    /* f32 bits -> f16 bits, derived by hand */
    static const uint32_t in[32] = {
        0x3f800000, 0xc0000000, 0x477fe000, 0x477ff000, 0x477fef00, 0x4e6e6b28, 0xce6e6b28,
        0x7f800000, /* 1, -2, 65504, 65520 (the tie: to inf), just below it, +-1e9, inf */
        0xff800000, 0x7fc00000, 0x33800000, 0x33000000, 0x33400000, 0x38800000, 0x80000000,
        0x3f801000, /* -inf, NaN, 2^-24, 2^-25 (tie: to 0), 1.5 x 2^-25, 2^-14, -0, 1 + 2^-11 */
        0x3f803000, 0x3f801008, 0xffc00001, 0x7f800001, 0x3dcccccd, 0x00000001, 0x387fe000,
        0x3f802000, /* 1 + 3 x 2^-11, above the tie, -NaN, signalling NaN, 0.1, an f32
                       subnormal (to 0), 1023.5 x 2^-24 (the tie: up to 2^-14), 1 + 2^-10 */
        0x00000000, 0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000,
        0x40e00000}; /* 0 .. 7 */
    static const uint32_t want[32] = {
        0x3c00, 0xc000, 0x7bff, 0x7c00, 0x7bff, 0x7c00, 0xfc00, 0x7c00,
        0xfc00, 0x7fff, 0x0001, 0x0000, 0x0001, 0x0400, 0x8000, 0x3c00,
        0x3c02, 0x3c01, 0x7fff, 0x7fff, 0x2e66, 0x0000, 0x0400, 0x3c01,
        0x0000, 0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700};
    kt t;
    kt_text(&t, cvth_ptx, "cvth");
    uint32_t out[64];
    uint64_t a = kt_buf(&t, in, sizeof in), d = kt_buf(&t, NULL, sizeof out);
    kt_arg(&t, 0, a);
    kt_arg(&t, 1, d);
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_get(&t, d, out, sizeof out);
    for (int l = 0; l < 32; l++) {
        if (out[l] != want[l])
            fail_msg("lane %d: f32 0x%08x -> f16 0x%04x, want 0x%04x", l, in[l], out[l], want[l]);
        uint32_t odd = l & 1 ? want[l] : 0x1234;
        if (out[32 + l] != odd)
            fail_msg("odd lanes only, lane %d: 0x%04x, want 0x%04x", l, out[32 + l], odd);
    }
    kt_close(&t);
}

/* 16-bit loads and stores of narrow registers (xmem.c: whole-warp forms for 2-byte elements):
 * consecutive lanes (all 32, and the odd lanes only), every lane at one address, a stride of two
 * elements and a descending one; a store writes the register's low 16 bits, a load
 * zero-extends into a 16- or 32-bit register (values with the top bit set). */
static const char move16_ptx[] = HDR
    ".visible .entry mv16(.param .u64 out)\n{\n"
    ".reg .pred %p<2>;\n.reg .b16 %h<6>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<5>;\n"
    ".shared .align 4 .b16 sh[128];\n"
    "mov.u32 %r1, %tid.x;\nmov.u32 %r2, sh;\nshl.b32 %r3, %r1, 1;\nadd.u32 %r4, %r2, %r3;\n"
    "mul.lo.u32 %r5, %r1, 0x101;\nor.b32 %r5, %r5, 0x8000;\n" /* 0x8000 | 257 l */
    "add.u32 %r6, %r5, 0x70000;\n"                            /* high bits a store drops */
    "st.shared.b16 [%r4], %r6;\n"                              /* consecutive, all lanes */
    "cvt.u16.u32 %h1, %r1;\nst.shared.b16 [%r4+64], %h1;\n"   /* sh[32 + l] = l */
    "and.b32 %r7, %r1, 1;\nsetp.ne.u32 %p1, %r7, 0;\n"
    "cvt.u16.u32 %h2, %r5;\n@%p1 st.shared.b16 [%r4+64], %h2;\n" /* odd lanes overwrite */
    "bar.sync 0;\n"
    "ld.shared.u16 %h3, [%r4];\n"                             /* consecutive: back */
    "ld.shared.u16 %r8, [sh+6];\n"                            /* every lane: sh[3] */
    "sub.u32 %r9, 31, %r1;\nshl.b32 %r9, %r9, 1;\nadd.u32 %r9, %r2, %r9;\n"
    "ld.shared.u16 %r10, [%r9];\n"                            /* descending: sh[31 - l] */
    "shl.b32 %r11, %r1, 2;\nand.b32 %r11, %r11, 127;\nadd.u32 %r11, %r2, %r11;\n"
    "ld.shared.u16 %r12, [%r11+64];\n"                        /* stride 2: sh[32 + 2 l] */
    "cvt.u32.u16 %r13, %h3;\n"
    "ld.shared.u16 %r14, [%r4+64];\n"                        /* the odd lanes' stores */
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n"
    "st.global.u32 [%rd4], %r13;\nst.global.u32 [%rd4+128], %r8;\n"
    "st.global.u32 [%rd4+256], %r10;\nst.global.u32 [%rd4+384], %r12;\n"
    "st.global.u32 [%rd4+512], %r14;\n"
    "ret;\n}\n";

static void test_move16_forms(void **state)
{
    (void)state;
    kt t;
    uint32_t out[5 * 32];
    kt_run_out(&t, move16_ptx, "mv16", 32, out, sizeof out);
    uint32_t sh[128] = {0}; /* shared memory starts zeroed */
    for (uint32_t l = 0; l < 32; l++) {
        sh[l] = (0x8000u | 257u * l) & 0xffff;
        sh[32 + l] = l & 1 ? sh[l] : l;
    }
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t want[5] = {sh[l], sh[3], sh[31 - l], sh[32 + 2 * l], sh[32 + l]};
        for (int k = 0; k < 5; k++)
            if (out[k * 32 + l] != want[k])
                fail_msg("value %d of lane %u: 0x%x, want 0x%x", k, l, out[k * 32 + l], want[k]);
    }
    kt_close(&t);
}

/* 32-bit moves of two half-warps over consecutive words each (xmem.c: two 64-byte copies): a
 * store whose halves overlap (lanes 16-23 write the words of lanes 8-15: the higher lanes'
 * values stay, as lane by lane), a load of two halves apart, and the region read back whole. */
static const char halves_ptx[] = HDR
    ".visible .entry hw(.param .u64 out)\n{\n"
    ".reg .b32 %r<16>;\n.reg .b64 %rd<5>;\n"
    ".shared .align 4 .b32 sh[96];\n"
    "mov.u32 %r1, %tid.x;\nmov.u32 %r2, sh;\n"
    "and.b32 %r3, %r1, 15;\nshr.u32 %r4, %r1, 4;\n"
    "mul.lo.u32 %r5, %r4, 8;\nadd.u32 %r5, %r5, %r3;\nshl.b32 %r5, %r5, 2;\n"
    "add.u32 %r5, %r2, %r5;\n"                               /* word (l & 15) + 8 (l >> 4) */
    "mad.lo.u32 %r6, %r1, 7, 1;\nst.shared.u32 [%r5], %r6;\n"
    "mul.lo.u32 %r7, %r4, 40;\nadd.u32 %r7, %r7, %r3;\nshl.b32 %r7, %r7, 2;\n"
    "add.u32 %r7, %r2, %r7;\n"                               /* word (l & 15) + 40 (l >> 4) */
    "mul.lo.u32 %r8, %r1, 3;\nst.shared.u32 [%r7+64], %r8;\n" /* words 16-31, 56-71 */
    "bar.sync 0;\n"
    "ld.shared.u32 %r9, [%r7+64];\n"
    "shl.b32 %r10, %r1, 2;\nadd.u32 %r10, %r2, %r10;\nld.shared.u32 %r11, [%r10];\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n"
    "st.global.u32 [%rd4], %r9;\nst.global.u32 [%rd4+128], %r11;\n"
    "ret;\n}\n";

static void test_half_warp_moves(void **state)
{
    (void)state;
    kt t;
    uint32_t out[2 * 32], sh[96] = {0};
    kt_run_out(&t, halves_ptx, "hw", 32, out, sizeof out);
    for (uint32_t l = 0; l < 32; l++) /* in lane order: lanes 16-23 after lanes 8-15 */
        sh[(l & 15) + 8 * (l >> 4)] = 7 * l + 1;
    for (uint32_t l = 0; l < 32; l++)
        sh[16 + (l & 15) + 40 * (l >> 4)] = 3 * l;
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t want[2] = {3 * l, sh[l]};
        for (int k = 0; k < 2; k++)
            if (out[k * 32 + l] != want[k])
                fail_msg("value %d of lane %u: %u, want %u", k, l, out[k * 32 + l], want[k]);
    }
    kt_close(&t);
}

/* A result written over an operand read for the last time (xalloc.c, xa_last) only where the
 * handler is lane by lane: %r3 = %r5 + %r1 takes %r5's slot, but the shuffle, whose lane l
 * reads lane l - 1's %r4, must not write %r5 over %r4 (lane l - 1's value would be gone
 * before lane l reads it): three narrow slots (%r1, %r4, %r5 then %r3), not two; and one
 * wide one (%rd1 and %rd2 are the parameter, read as an immediate: %rd3, %rd4 over it). */
static const char inplace_ptx[] = HDR
    ".visible .entry ip(.param .u64 out)\n{\n"
    ".reg .b32 %r<6>;\n.reg .b64 %rd<5>;\n"
    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
    "mov.u32 %r1, %tid.x;\nmul.lo.u32 %r4, %r1, 3;\n"
    "shfl.sync.up.b32 %r5, %r4, 1, 0, -1;\nadd.u32 %r3, %r5, %r1;\n"
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n"
    "st.global.u32 [%rd4], %r3;\nret;\n}\n";

static void test_register_inplace(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, inplace_ptx, "ip");
    uint64_t d = kt_buf(&t, NULL, 32 * 4);
    kt_arg(&t, 0, d);
    exec_prog *p = kt_prog(&t, 1, 32, 0, 0);
    uint32_t narrow, wide;
    exec_prog_slot_widths(p, &narrow, &wide);
    exec_prog_destroy(p);
    if (narrow != 3 || wide != 1)
        fail_msg("%u narrow and %u wide slots, want 3 and 1", narrow, wide);
    RUN_OK(kt_run(&t, 1, 32, 0));
    unsigned out[32];
    kt_get(&t, d, out, sizeof out);
    for (unsigned i = 0; i < 32; i++)
        if (out[i] != (i ? 3 * (i - 1) : 0) + i)
            fail_msg("lane %u = %u, want %u", i, out[i], (i ? 3 * (i - 1) : 0) + i);
    kt_close(&t);
}

/* Launch constants (xalloc.c, fold_launch_constants): registers that hold one value for the
 * whole launch are read as immediates and need no slot: the parameters (a pointer, a negative
 * s32, a count), cvta of the pointer, %ntid.x * %nctaid.x, a shared array's address, a
 * sign-extending mul.wide of the negative parameter, and a stride computed in a block that
 * is not the entry but comes before the loop on every path. Not %r11: only the even threads
 * write it (the odd ones branch around the add), so it is live at the entry and each thread
 * must read its own value, the add's result or the zero a new block starts with. Two blocks
 * of 64 threads, a grid-stride loop over n = 300 words: out[i] = i + 3 * neg for i < n, and
 * out[n + thread] = what that thread wrote to shared memory through the folded address and
 * read back (%r11). */
static const char launch_const_ptx[] = HDR
    ".visible .entry lc(.param .u64 out, .param .s32 neg, .param .u32 n)\n{\n"
    ".reg .pred %p<4>;\n.reg .b32 %r<20>;\n.reg .b64 %rd<12>;\n"
    ".shared .align 4 .b8 sh[256];\n"
    "ld.param.u64 %rd1, [out];\nld.param.s32 %r1, [neg];\nld.param.u32 %r2, [n];\n"
    "cvta.to.global.u64 %rd2, %rd1;\n"
    "mov.u32 %r3, %ntid.x;\nmov.u32 %r4, %nctaid.x;\nmul.lo.s32 %r5, %r3, %r4;\n"
    "mov.u32 %r6, %tid.x;\nmov.u32 %r7, %ctaid.x;\nmad.lo.s32 %r8, %r7, %r3, %r6;\n"
    "mov.u32 %r9, sh;\nmul.wide.s32 %rd3, %r1, 3;\n"
    "and.b32 %r10, %r6, 1;\nsetp.eq.u32 %p2, %r10, 1;\n@%p2 bra SKIP;\n"
    "add.u32 %r11, %r3, 1;\n"
    "SKIP:\n"
    "shl.b32 %r12, %r6, 2;\nadd.u32 %r13, %r9, %r12;\nst.shared.u32 [%r13], %r11;\n"
    "ld.shared.u32 %r14, [%r13];\n"
    "add.u32 %r15, %r2, %r8;\nmul.wide.u32 %rd9, %r15, 8;\nadd.s64 %rd10, %rd2, %rd9;\n"
    "cvt.u64.u32 %rd11, %r14;\nst.global.u64 [%rd10], %rd11;\n"
    "setp.ge.u32 %p1, %r8, %r2;\n@%p1 bra DONE;\n"
    "mul.wide.u32 %rd4, %r5, 8;\nmul.wide.u32 %rd5, %r8, 8;\nadd.s64 %rd6, %rd2, %rd5;\n"
    "LOOP:\n"
    "cvt.u64.u32 %rd7, %r8;\nadd.s64 %rd8, %rd7, %rd3;\nst.global.u64 [%rd6], %rd8;\n"
    "add.s64 %rd6, %rd6, %rd4;\nadd.u32 %r8, %r8, %r5;\nsetp.lt.u32 %p3, %r8, %r2;\n"
    "@%p3 bra LOOP;\n"
    "DONE:\nret;\n}\n";

static void test_launch_constants(void **state)
{
    (void)state;
    enum { N = 300, THREADS = 128 };
    kt t;
    kt_text(&t, launch_const_ptx, "lc");
    uint64_t d = kt_buf(&t, NULL, (N + THREADS) * 8);
    kt_arg(&t, 0, d);
    kt_arg(&t, 1, (uint32_t)-5);
    kt_arg(&t, 2, N);
    exec_prog *p = kt_prog(&t, 2, 64, 0, 0);
    uint32_t regs, imm, declared, narrow, wide;
    exec_prog_slots(p, &regs, &imm, &declared);
    (void)imm;
    exec_prog_slot_widths(p, &narrow, &wide);
    exec_prog_destroy(p);
    /* Folded: %rd1-%rd4, %r1-%r5, %r9. What is left needs four narrow slots where the most
     * narrow registers are live, at the and: %r11 (live from the entry), %r6 (read again by
     * the shl), %r8, and %r10 (%p2 over it: setp reads it for the last time); and two wide
     * ones: %rd10 and %rd11 at the store, %rd6 and %rd7 (%rd8 over it) in the loop. Without
     * the folding: 12 slots, 8 narrow and 4 wide (the pointer, n, the strides, 3 * neg are
     * live in the loop); without the entry-liveness rule %r11 is folded too and the odd
     * threads read 65 (both checked by breaking xalloc.c). */
    if (regs != 6 || narrow != 4 || wide != 2)
        fail_msg("%u slots (%u narrow, %u wide) for %u registers, want 6 (4 narrow, 2 wide)",
                 regs, narrow, wide, declared);
    RUN_OK(kt_run(&t, 2, 64, 0));
    uint64_t out[N + THREADS];
    kt_get(&t, d, out, sizeof out);
    for (uint32_t i = 0; i < N; i++)
        if (out[i] != (uint64_t)((int64_t)i - 15))
            fail_msg("out[%u] = %lld, want %lld", i, (long long)out[i], (long long)i - 15);
    for (uint32_t g = 0; g < THREADS; g++) {
        uint64_t want = (g % 64) & 1 ? 0 : 65;
        if (out[N + g] != want)
            fail_msg("thread %u read %llu from shared memory, want %llu", g,
                     (unsigned long long)out[N + g], (unsigned long long)want);
    }
    kt_close(&t);
}

/* exec_step_info.ran: set when the step ran an instruction; a warp waiting at a barrier or
 * finished runs nothing. */
static const char bar2_ptx[] = HDR
    ".visible .entry b2()\n{\nbar.sync 0;\nexit;\n}\n";

static void test_step_ran(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, bar2_ptx, "b2");
    exec_prog *p = kt_prog(&t, 1, 64, 0, 0);
    uint32_t c[3] = {0, 0, 0};
    exec_block *b = exec_block_create(p, c, &t.d);
    assert_non_null(b);
    static const struct { int warp, ran, exited; } seq[] = {
        {0, 1, 0}, /* bar.sync: warp 0 waits for warp 1 */
        {0, 0, 0}, /* nothing to run */
        {1, 1, 0}, /* bar.sync: both go on */
        {0, 1, 1}, /* exit */
        {0, 0, 1}, /* finished */
    };
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
        exec_step_info in;
        memset(&in, 0xa5, sizeof in);
        assert_int_equal(exec_warp_step(b, seq[i].warp, &in, &t.d), WL_OK);
        if (in.ran != seq[i].ran || (seq[i].exited && !in.exited))
            fail_msg("step %zu (warp %d): ran %d exited %d, want %d and %d", i, seq[i].warp,
                     in.ran, in.exited, seq[i].ran, seq[i].exited);
    }
    exec_block_destroy(b);
    exec_prog_destroy(p);
    kt_close(&t);
}

/* Whole-warp access forms at any stride (xmem.c warp_form: lane l at a0 + l * step): shared
 * memory filled with word i = i + 7, then read back at a stride of 33 words, at -31 words, as
 * 8-byte elements 16 bytes apart into a 64-bit register, one word by the odd lanes only (a
 * uniform load with lanes idle: the even lanes keep 99), 3-word strided stores by the even
 * lanes only (the odd lanes' words stay 0), and a global load 8 bytes apart through a 64-bit
 * address. Each value checked in every lane. */
static const char stride_ptx[] = HDR
    ".visible .entry sd(.param .u64 out, .param .u64 in)\n{\n"
    ".reg .pred %p<4>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<20>;\n"
    ".shared .align 8 .b8 sh[4096];\n"
    "mov.u32 %r1, %tid.x;\nmov.u32 %r2, sh;\nmov.u32 %r3, 0;\n"
    "FILL:\nshl.b32 %r4, %r3, 5;\nadd.u32 %r5, %r4, %r1;\nadd.u32 %r6, %r5, 7;\n"
    "shl.b32 %r7, %r5, 2;\nadd.u32 %r8, %r2, %r7;\nst.shared.u32 [%r8], %r6;\n"
    "add.u32 %r3, %r3, 1;\nsetp.lt.u32 %p1, %r3, 32;\n@%p1 bra FILL;\n"
    "bar.sync 0;\n"
    "mul.lo.u32 %r10, %r1, 132;\nadd.u32 %r11, %r2, %r10;\nld.shared.u32 %r12, [%r11];\n"
    "mul.lo.u32 %r13, %r1, 124;\nsub.u32 %r14, 4092, %r13;\nadd.u32 %r15, %r2, %r14;\n"
    "ld.shared.u32 %r16, [%r15];\n"
    "shl.b32 %r17, %r1, 4;\nadd.u32 %r18, %r2, %r17;\nld.shared.u64 %rd1, [%r18];\n"
    "cvt.u32.u64 %r19, %rd1;\nshr.u64 %rd2, %rd1, 32;\ncvt.u32.u64 %r20, %rd2;\n"
    "and.b32 %r21, %r1, 1;\nsetp.eq.u32 %p2, %r21, 1;\nmov.u32 %r22, 99;\n"
    "@%p2 ld.shared.u32 %r22, [%r2+40];\n"
    "ld.param.u64 %rd3, [out];\nld.param.u64 %rd4, [in];\n"
    "mul.wide.u32 %rd5, %r1, 4;\nadd.s64 %rd6, %rd3, %rd5;\n"
    "mul.wide.u32 %rd7, %r1, 12;\nadd.s64 %rd8, %rd3, %rd7;\nadd.s64 %rd9, %rd8, 1024;\n"
    "add.u32 %r23, %r1, 5000;\n@!%p2 st.global.u32 [%rd9], %r23;\n"
    "mul.wide.u32 %rd10, %r1, 8;\nadd.s64 %rd11, %rd4, %rd10;\nld.global.u32 %r24, [%rd11];\n"
    "st.global.u32 [%rd6], %r12;\nst.global.u32 [%rd6+128], %r16;\n"
    "st.global.u32 [%rd6+256], %r19;\nst.global.u32 [%rd6+384], %r20;\n"
    "st.global.u32 [%rd6+512], %r22;\nst.global.u32 [%rd6+640], %r24;\n"
    "st.global.u32 [%rd3+1408], %r1;\n" /* every lane to one word: the last lane's stays */
    "shl.b32 %r25, %r1, 2;\nsetp.eq.u32 %p3, %r1, 31;\nselp.u32 %r26, 160, %r25, %p3;\n"
    "add.u32 %r27, %r2, %r26;\nld.shared.u32 %r28, [%r27];\n" /* consecutive but lane 31 */
    "st.global.u32 [%rd6+768], %r28;\n"
    "ret;\n}\n";

static void test_strided_forms(void **state)
{
    (void)state;
    kt t;
    kt_text(&t, stride_ptx, "sd");
    uint32_t out[256 + 96 + 1], in[64];
    for (uint32_t i = 0; i < 64; i++)
        in[i] = 3000 + i;
    uint64_t d = kt_buf(&t, NULL, sizeof out), di = kt_buf(&t, in, sizeof in);
    kt_arg(&t, 0, d);
    kt_arg(&t, 1, di);
    RUN_OK(kt_run(&t, 1, 32, 0));
    kt_get(&t, d, out, sizeof out);
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t want[7] = {33 * l + 7, 1023 - 31 * l + 7, 4 * l + 7, 4 * l + 8,
                            l & 1 ? 10 + 7 : 99, 3000 + 2 * l, l < 31 ? l + 7 : 40 + 7};
        for (int k = 0; k < 7; k++)
            if (out[k * 32 + l] != want[k])
                fail_msg("value %d of lane %u: %u, want %u", k, l, out[k * 32 + l], want[k]);
    }
    for (uint32_t w = 0; w < 96; w++) { /* the strided stores: word 3 l of the even lanes */
        uint32_t want = w % 3 == 0 && (w / 3) % 2 == 0 ? 5000 + w / 3 : 0;
        if (out[256 + w] != want)
            fail_msg("stored word %u: %u, want %u", w, out[256 + w], want);
    }
    if (out[352] != 31)
        fail_msg("all lanes storing to one word: %u, want 31 (the last lane)", out[352]);
    /* the step records of the shared loads after the fill: each a line of addresses */
    exec_prog *p = kt_prog(&t, 1, 32, 0, 0);
    uint32_t c[3] = {0, 0, 0};
    exec_block *b = exec_block_create(p, c, &t.d);
    assert_non_null(b);
    const uint64_t steps[4] = {132, (uint64_t)-124, 16, 0};
    int nld = 0;
    for (int n = 0; exec_warp_state_of(b, 0) == EXEC_WARP_READY && n < 1000; n++) {
        exec_step_info f;
        assert_int_equal(exec_warp_step(b, 0, &f, &t.d), WL_OK);
        if (f.mem_space != PTX_SPACE_SHARED || !f.mem_load)
            continue;
        if (nld < 4 && (!f.addr_linear || f.addr_step != steps[nld] ||
                        exec_step_addr(&f, 31) - exec_step_addr(&f, 0) != 31u * steps[nld]))
            fail_msg("shared load %d: linear %d step %lld", nld, f.addr_linear,
                     (long long)f.addr_step);
        if (nld == 4 && (f.addr_linear || exec_step_addr(&f, 31) - exec_step_addr(&f, 0) != 160))
            fail_msg("shared load 4 (lane 31 off the line): linear %d", f.addr_linear);
        nld++;
    }
    if (nld != 5)
        fail_msg("%d shared loads stepped, want 5", nld);
    exec_block_destroy(b);
    exec_prog_destroy(p);
    kt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_named_barriers),
        cmocka_unit_test(test_named_barrier_deadlock),
        cmocka_unit_test(test_barrier_count_mismatch),
        cmocka_unit_test(test_divergent_call_return),
        cmocka_unit_test(test_call_layouts),
        cmocka_unit_test(test_guarded_call),
        cmocka_unit_test(test_step_api),
        cmocka_unit_test(test_pass_folded),
        cmocka_unit_test(test_lean_steps),
        cmocka_unit_test(test_pre_dst),
        cmocka_unit_test(test_shfl_whole_warp),
        cmocka_unit_test(test_block_reuse),
        cmocka_unit_test(test_unsupported_at_run_time),
        cmocka_unit_test(test_modifiers),
        cmocka_unit_test(test_warp_forms),
        cmocka_unit_test(test_local_and_atomics),
        cmocka_unit_test(test_special_registers),
        cmocka_unit_test(test_register_slots),
        cmocka_unit_test(test_register_slots_wmma),
        cmocka_unit_test(test_wmma_layouts),
        cmocka_unit_test(test_register_inplace),
        cmocka_unit_test(test_cvt_f16),
        cmocka_unit_test(test_move16_forms),
        cmocka_unit_test(test_half_warp_moves),
        cmocka_unit_test(test_launch_constants),
        cmocka_unit_test(test_narrow_partial_writes),
        cmocka_unit_test(test_strided_forms),
        cmocka_unit_test(test_step_ran),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
