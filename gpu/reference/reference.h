/* reference: CPU versions of every kernel in gpu/kernels/ (*.cu).
 *
 * Given a case's launch (grid, block, smem) and its arguments as the kernel received them
 * (cases_fill_args: buffer contents and scalar values), a reference overwrites the output
 * buffers with the contents the kernel must leave there; inputs stay as they are. Used by the GPU
 * harness (is the H200's answer right?) and by tests/test_kernels.c (is the simulator's?).
 * The arithmetic is shared with the kernels through gpu/kernels/wl_math.h, so integer results
 * are bit-exact and float results differ only where a case's --check allows it.
 *
 * A reference first checks that the launch and the buffer sizes are ones the kernel handles
 * without going out of bounds (the same conditions the kernel's comment states), and refuses
 * the case (WL_EUSAGE and a message) otherwise: a wrong case never makes the reference read or
 * write outside its buffers.
 */
#ifndef WL_REFERENCE_H
#define WL_REFERENCE_H

#include "cases.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks arguments and launch shape, then computes. Returns WL_OK or WL_EUSAGE (d says why). */
typedef wl_status (*ref_fn)(const cases_case *c, cases_arg *a, diag_t *d);

typedef struct {
    const char *kernel; /* the extern "C" name */
    const char *params; /* one letter per parameter: F f32*, D f64*, U u32/s32*, i 32-bit scalar */
    ref_fn fn;
} ref_entry;

/* NULL when no reference has that kernel name. */
const ref_entry *ref_lookup(const char *kernel);
/* The whole table (n gets its length), e.g. to list kernels without a case. */
const ref_entry *ref_table(int *n);
/* Looks the case's kernel up, checks the parameter kinds against the argspecs, then runs it. */
wl_status ref_run(const cases_case *c, cases_arg *a, diag_t *d);

/* Helpers for the reference files. */
uint64_t ref_threads_1d(const cases_case *c);               /* grid.x * block.x */
wl_status ref_need(const cases_case *c, const cases_arg *a, int i, uint64_t count, diag_t *d);
int32_t ref_i32(const cases_arg *a, int i);                  /* scalar parameter i */
wl_status ref_fail(const cases_case *c, diag_t *d, const char *what);

/* One function per kernel (ref_basic.c, ref_more.c). */
#define REF_KERNELS(X)                                                                    \
    X(pw_poly, "FFii") X(lat_copy, "FFi") X(or_regs_free, "UUii") X(or_regs_lb4, "UUii")  \
    X(or_regs_lb8, "UUii") X(div_none, "UUii") X(div_parity, "UUii")                      \
    X(div_nested, "UUii") X(div_warp, "UUii") X(div_short, "UUii")                        \
    X(div_loop_lane, "UUii") X(div_loop_warp, "UUii") X(red_interleaved, "UU")            \
    X(red_sequential, "UU") X(red_shuffle, "UU") X(ilp_dep, "FFi") X(ilp_indep4, "FFi")   \
    X(co_aos_norm, "FFi") X(co_soa_norm, "FFFFi") X(co_strided, "FFiii")                  \
    X(co_offset, "FFii") X(bk_transpose32, "FFii") X(bk_transpose33, "FFii")              \
    X(bk_stride, "UUii") X(bk_double, "DDii") X(sched_uniform, "Ui")                      \
    X(sched_uneven, "Ui") X(ws_pipeline, "UUiii") X(ws_plain, "UUii") X(its_swap, "UUi")  \
    X(its_warp_sum, "UU") X(tc_gemm, "FFFi") X(tc_gemm_db, "FFFi")

#define REF_DECLARE(name, params) wl_status ref_##name(const cases_case *c, cases_arg *a, diag_t *d);
REF_KERNELS(REF_DECLARE)
#undef REF_DECLARE

#ifdef __cplusplus
}
#endif

#endif
