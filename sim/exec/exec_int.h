/* exec_int: the executor's internal data structures, shared by exec.c (warp stepping, SIMT,
 * barriers), xdec.c (pre-decoding), xop.c (per-lane arithmetic) and xmem.c (memory spaces).
 * Not part of the public API: the timing model and the CLI use exec.h and launch.h. */
#ifndef WL_EXEC_INT_H
#define WL_EXEC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "bits.h"
#include "devmem.h"
#include "diag.h"
#include "exec.h"
#include "ir.h"

#define XPC_END UINT32_MAX   /* reconvergence at the function's virtual exit */
#define XNSCRATCH 6          /* per-frame scratch slots for sregs/addresses used as values */
#define XNPRE 3              /* the first scratch slots: values computed before an instruction */
#define XMAX_OPS 8           /* operands kept per decoded instruction (call uses xcall; wmma.mma
                                with f16 fragments has 8: four fragments of two VEC operands) */
#define XMAX_SIMT 256        /* SIMT stack entries per warp */
#define XMAX_FRAMES 64       /* call depth per warp */
#define XFULL 0xffffffffu
#define XRECURSION 64       /* call depth of recursive device functions, in frames */

/* Frame-relative address bases (per thread, in local memory), or none. */
enum { XB_NONE = 0, XB_LOCAL, XB_CALLPARAM, XB_PARAM, XB_RET };
/* Operand kinds after decoding. */
enum { XO_NONE = 0, XO_SLOT, XO_ADDR, XO_VEC };
/* Memory spaces as the executor sees them. */
enum { XS_NONE = 0, XS_GLOBAL, XS_SHARED, XS_LOCAL, XS_KPARAM, XS_GENERIC };
/* Type kinds. */
enum { XK_NONE = 0, XK_B, XK_U, XK_S, XK_F, XK_H, XK_BF, XK_PRED, XK_H2, XK_BF2 };

typedef struct {
    uint8_t kind, neg, base, n;
    uint8_t bits;      /* XO_SLOT: declared width of the register (for writes); XO_ADDR: of the
                        * base register */
    uint8_t nw;        /* XO_SLOT, XO_ADDR: the slot is narrow (32 lanes of 32 bits, XN) */
    uint8_t vnw[4];    /* XO_VEC: the same for each element */
    uint8_t sbits;     /* XO_SLOT, XO_ADDR: bits the register's values need (predicates 1: their
                        * `bits` is 64, nothing masked), 0 for no register */
    uint8_t vsbits[4]; /* XO_VEC: the same for each element */
    uint8_t space;     /* XO_ADDR: space of the symbol (ptx_space) or NONE */
    uint8_t vbits[4];  /* XO_VEC: widths */
    int32_t slot;      /* XO_SLOT: slot; XO_ADDR: base-register slot or -1 */
    int32_t vec[4];    /* XO_VEC: slots, -1 for the sink `_` */
    int64_t off;       /* XO_ADDR: constant part (symbol address resolved) */
    /* XO_SLOT naming an immediate: its 32 lanes in the function's shared copy (xfunc.immlanes),
     * which the hottest handlers read (XSRC) instead of the warp's own copy, so that thousands
     * of warps share one set of host cache lines; NULL otherwise. */
    const uint64_t *cptr;
    const uint32_t *cptr32; /* the same immediate as 32 lanes of its low 32 bits */
} xop;

/* A value computed into a scratch slot before the instruction runs. */
typedef struct {
    int32_t slot;
    uint16_t sreg;     /* ptx_sreg, or UINT16_MAX for an address */
    uint8_t opnd;      /* which operand (for addresses) */
    uint8_t nw;        /* the slot is narrow (only a move's destination, xinsn.pre_dst) */
} xpre;

/* One decoded instruction. Layout for the host caches: what every step reads (the header up
 * to `ir`) fills the first 64 bytes, each operand has 64 bytes of its own, and the arrays of
 * instructions are 64-byte aligned (xdec.c), so a step touches its header's line and the lines
 * of the operands it uses. */
typedef struct xinsn_s {
    _Alignas(64) uint16_t op;
    uint8_t t0, t1, k0, k1, w0, w1; /* types, kinds, widths in bits */
    uint8_t unit, lat, vec, space;  /* space: XS_* for memory instructions */
    uint8_t mode, aop, cmp, boolop, round, mul, npre, nops;
    uint32_t flags;
    int32_t guard;                  /* slot or -1 */
    uint8_t guard_neg;
    uint8_t guard_nw;               /* the guard's slot is narrow */
    uint8_t lane;                   /* XL_*: how exec.c's functional fast lane runs it */
    uint8_t noop;                   /* a folded move without effect (xalloc.c mark_noops) */
    int32_t target;                 /* bra: insn index; call: index into prog->calls */
    uint32_t reconv;                /* bra: reconvergence pc (XPC_END: function end) */
    uint8_t pre_dst;                /* a move of a special register or address: xwide_pre
                                     * writes the destination itself (xdec.c) */
    /* Direct handler for the hottest plain forms (32-bit integer ALU ops, f32 add/mul/fma
     * round-to-nearest, moves); NULL: go through xop_exec's general dispatch. */
    void (*fast)(const struct xinsn_s *in, uint64_t *regs, uint32_t m);
    const ptx_insn *ir;
    xop o[XMAX_OPS];
    xpre pre[XNPRE];
    /* IR registers read and written (exec_step_info's src/dst), listed once at decode */
    uint8_t nsrc, ndst;
    int32_t src[EXEC_MAX_REGS], dst[EXEC_MAX_REGS];
} xinsn;
_Static_assert(offsetof(xinsn, ir) + sizeof(const ptx_insn *) <= 64, "xinsn: header in 64 bytes");
_Static_assert(offsetof(xinsn, o) % 64 == 0 && sizeof(xop) == 64, "xinsn: an operand per line");
_Static_assert(sizeof(xinsn) % 64 == 0, "xinsn: arrays keep the alignment");

/* Forms the functional fast lane runs itself (run_fast in exec.c); XL_NONE: the general step. */
enum { XL_NONE = 0, XL_FAST, XL_BRA, XL_LDST };

/* Calls of functions without a body that the executor provides itself. */
enum { XCALL_NONE = 0, XCALL_VPRINTF, XCALL_ASSERT, XCALL_EXTERN };

typedef struct {
    int callee;                      /* module func index */
    int builtin;                     /* XCALL_*: offsets of a builtin's arguments are in the
                                        caller's frame (arg_src); ret_dst likewise */
    uint32_t nret, narg;
    uint32_t *ret_src, *ret_dst, *ret_size; /* callee ret offsets -> caller call-param offsets */
    uint32_t *arg_src, *arg_dst, *arg_size; /* caller call-param offsets -> callee param offsets */
} xcall;

typedef struct {
    int decoded;
    int decoding;                    /* on the decode stack: a call to it is recursion */
    const ptx_func *f;
    xinsn *ins;
    uint32_t n;
    /* Register-file layout (xalloc_layout): slots are counted in units of 32 lanes x 32 bits
     * (128 bytes, XUNIT uint64_t). A narrow slot (a register of at most 32 bits: predicates,
     * .b32/.u32/.s32/.f32 and smaller) takes one unit, a wide one (64-bit registers, the
     * immediates, the scratch slots) two, as 32 lanes x 64 bits. Units [0, nregs) hold the
     * registers, immediate i the two units at nregs + 2 i, the scratch slots follow; nslots
     * units in all. Before the layout (decoding, xalloc) the same fields count slots. */
    uint32_t nregs, nimm, nslots;
    uint32_t rslots;                 /* register slots (exec_prog_slots; before the layout) */
    uint8_t *ukind;                  /* per unit: XU_NARROW, XU_WIDE (first unit), XU_HIGH */
    uint64_t *imm;                   /* values of the immediates */
    uint64_t *immlanes;              /* the same, 32 lanes each (read-only, shared by warps) */
    uint32_t *immlanes32;            /* their low 32 bits, 32 lanes each (narrow handlers) */
    uint32_t nclear, *clear;         /* registers a reused block clears: nclear runs of
                                        (first, count) (xinit.c; the kernel only) */
    int imm_clobbered;               /* some instruction may write an immediate slot (an
                                        immediate where PTX wants a destination) */
    uint32_t frame_bytes;            /* per-thread local-memory frame */
    uint32_t off_local, off_cp, off_param, off_ret;
} xfunc;

/* Units of the register layout (xfunc.ukind). */
enum { XU_NARROW = 0, XU_WIDE, XU_HIGH };

/* The lanes of a slot that are not zero, as a bit mask (guard predicates). */
typedef uint32_t (*xnz_fn)(const uint64_t *slot);
typedef uint32_t (*xnz32_fn)(const uint32_t *slot);

struct exec_prog {
    const ptx_module *m;
    const ptx_func *k;
    int kindex;
    exec_grid g;
    uint8_t *params;                 /* copy of the kernel's param space */
    uint32_t params_size;
    uint32_t smem_bytes;             /* static + dynamic */
    uint32_t local_bytes;            /* per thread: deepest chain of frames */
    xfunc *funcs;                    /* indexed like m->funcs */
    xcall *calls;
    uint32_t ncalls, calls_cap;
    uint64_t *var_addr;              /* devmem address of each module .global/.const var */
    int recursive;                   /* some call is recursive: room for XRECURSION frames */
    devmem_t *mem;
    xnz_fn nz_mask;                  /* xfast_pick_nz_mask: the host's fastest form */
    xnz32_fn nz_mask32;              /* the same for narrow slots */
    int pass_folded;                 /* exec_prog_pass_folded */
    int no_op_counts;                /* exec_prog_no_op_counts */
    int lean_steps;                  /* exec_prog_lean_steps */
    int prefetch_reuse;              /* exec_prog_prefetch_reuse */
};

typedef struct {
    uint32_t pc, rpc, mask;
} xsimt;

typedef struct {
    int func;
    uint32_t reg_off;                /* first unit of this frame in the warp's register stack */
    uint32_t local_base;             /* frame start in each thread's local memory */
    uint32_t simt_base;              /* index of this frame's base SIMT entry */
    uint32_t returned;               /* lanes that executed ret inside divergent code */
    int32_t call_insn;               /* caller's call instruction (index into caller's ins) */
} xframe;

/* SIMT stack entries and call frames a warp keeps in its record; a warp that goes deeper moves
 * both stacks to the heap at their full depths (xctl_grow_stacks; kept when its block is
 * reused). */
#define XSIMT_IN 4
#define XFRAMES_IN 2

/* One warp. Layout for the host caches (the timing model steps thousands of resident warps in
 * turn, so every step starts cold): what every step reads comes first, the stacks' pointers and
 * scalars, then the first SIMT entries and call frames, in the first two 64-byte lines (the
 * array of warps is 64-byte aligned and sizeof(xwarp) a multiple of 64). The stacks' full
 * depths (XMAX_SIMT, XMAX_FRAMES: 4.6 KB) live on the heap only for the warps that need them:
 * every warp of the first wave of a full GPU was zeroed at creation (page faults: eleventh
 * session, docs/performance.md). */
typedef struct {
    /* hot: read on every step */
    _Alignas(64) xsimt *simt;        /* SIMT stack: simt_in, or XMAX_SIMT entries on the heap */
    xframe *frames;                  /* call frames: frames_in, or XMAX_FRAMES on the heap */
    uint64_t *regs;                  /* register units (xfunc), frames stacked */
    int sp;
    int fp;
    uint32_t live;                   /* lanes not exited */
    int state;                       /* exec_warp_state */
    uint32_t carry;                  /* CC.CF per lane */
    uint32_t wsync;                  /* lanes waiting at a divergent __syncwarp */
    uint8_t yield;                   /* ran a failed try_wait / nanosleep: let others run */
    uint8_t red_pred;                /* bar.red destination is a predicate */
    uint8_t red_nw;                  /* bar.red destination slot is narrow */
    uint8_t pad_[1];
    xsimt simt_in[XSIMT_IN];
    xframe frames_in[XFRAMES_IN];
    /* cold */
    uint32_t regs_cap;               /* in units */
    int regs_own;                    /* regs is its own allocation (grown by a call), not in
                                        the block's regs_mem */
    int bar;                         /* barrier waited on */
    uint32_t bar_line;
    uint8_t *local;                  /* 32 x prog->local_bytes */
    uint16_t tid[3][32];
    int32_t red_slot;                /* bar.red destination: absolute slot, -1 when none */
    uint32_t red_mask;
} xwarp;

/* Points a zeroed warp record's stacks at its own entries. */
static inline void xwarp_init_stacks(xwarp *W)
{
    W->simt = W->simt_in;
    W->frames = W->frames_in;
}

typedef struct {
    uint32_t arrived;                /* threads arrived in the current phase */
    uint32_t expected;               /* 0: all non-exited threads */
    uint32_t waiting;                /* warps blocked (bitmask, <= 32 warps per CTA) */
    uint32_t red_popc;
    uint8_t red_and, red_or, red_aop;
    uint32_t line, col;
} xbar;

struct exec_block {
    const exec_prog *p;
    uint32_t ctaid[3];
    int nwarps;
    uint32_t nthreads, exited;
    xwarp *w;
    uint8_t *smem;
    uint64_t *regs_mem;              /* the warps' register files, one 64-byte-aligned region */
    exec_counts cnt;                 /* its first fields share the first line with the above */
    xbar bars[16];
    int has_clock;                   /* set by exec_block_set_clock */
    int has_sm;                      /* set by exec_block_set_sm */
    int arena;                       /* its memory is an arena's (exec_block_create_in) */
    uint32_t smid;
    uint64_t clock, timer_ns;
};

/* exec.c: fills in->nsrc/src/ndst/dst (called by the decoder once operands are final, before
 * xalloc renumbers the slots: these stay IR register indices). */
void exec_list_regs(xinsn *in, uint32_t nregs);
/* How many leading operands of in are destinations (the rest are read). */
int exec_dst_operands(const xinsn *in);
/* The registers (slots < nregs) operand o names, into rs[] (at most 4): the count. */
int exec_operand_regs(const xop *o, uint32_t nregs, int32_t rs[4]);
/* xalloc.c: shares register slots between registers whose live ranges do not overlap
 * (renumbers in->o/guard/pre slots and xf->nregs/nslots; after exec_list_regs). */
wl_status xalloc_func(const exec_prog *p, xfunc *xf, diag_t *d);
/* xalloc.c: lays the slots out in units (narrow and wide, see xfunc) and renumbers every slot
 * operand to its first unit, setting the nw flags (after xalloc_func). */
wl_status xalloc_layout(xfunc *xf, diag_t *d);
/* Operand k of x is read from lanes that may not execute x: shfl's source value (the lane it
 * reads may have exited or never existed); every operand of the other warp-wide operations
 * (conservatively). xinit clears such registers; xalloc gives them slots of their own. */
static inline int xcross_lane(const xinsn *x, int k)
{
    return (x->op == PTX_OP_SHFL && k == 1) || x->op == PTX_OP_VOTE ||
           x->op == PTX_OP_MATCH || x->op == PTX_OP_REDUX;
}
/* xdec.c */
wl_status xdec_func(exec_prog *p, int fi, diag_t *d);
/* xinit.c: fills p->funcs[fi].nclear/clear (after decoding). */
wl_status xinit_clear_runs(exec_prog *p, int fi, diag_t *d);
/* xop.c: executes an arithmetic/logic/conversion instruction for lanes in m.
 * Returns WL_OK or WL_EUNSUPPORTED (d set). */
wl_status xop_exec(const xinsn *in, uint64_t *regs, uint32_t m, uint32_t *carry, diag_t *d);
/* One-line WL_EUNSUPPORTED diag naming the opcode and type. */
wl_status xop_unsup(const xinsn *in, diag_t *d);
/* xopf.c: floating-point instructions into the lane temporary Dv; fma.rn.f32 of 32 lanes. */
wl_status xopf_exec(const xinsn *in, uint64_t *regs, uint64_t *Dv, diag_t *d);
void xopf_fma32_rn(const uint64_t *A, const uint64_t *B, const uint64_t *C, uint64_t *Dv);
void xopf_fma32_rn_n(const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *D);
/* xfast.c: picks in->fast for the forms that have a direct handler (called by the decoder). */
void xop_pick_fast(xinsn *in);
xnz_fn xfast_pick_nz_mask(void);
xnz32_fn xfast_pick_nz_mask32(void);
/* xmem.c */
wl_status xmem_exec(exec_block *b, int warp, const xinsn *in, uint32_t m, exec_step_info *out,
                    diag_t *d);
/* Reads n bytes at a generic address as lane `lane` sees it, without faulting: returns 0 when
 * the range is not mapped. */
int xmem_peek(exec_block *b, int warp, int lane, uint64_t gaddr, void *dst, uint32_t n);
/* Formats one device-side printf (format at generic address fmt, packed arguments at args) into
 * buf; returns the length. */
size_t xmem_printf(exec_block *b, int warp, int lane, uint64_t fmt, uint64_t args, char *buf,
                   size_t size);
/* xctl.c: SIMT stack, calls, exits, barriers. */
void xctl_fill_imm(const xfunc *xf, uint64_t *regs);
wl_status xctl_bar(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m,
                   exec_step_info *out, diag_t *d);
void xctl_exit_lanes(exec_block *b, xwarp *W, uint32_t m);
wl_status xctl_call(exec_block *b, int warp, const xinsn *in, uint32_t m, diag_t *d);
/* Pops finished stack entries and frames; 0 when the warp has finished. */
int xctl_settle(exec_block *b, xwarp *W);
/* Room for `simt` SIMT entries and `frames` frames (at most XMAX_SIMT, XMAX_FRAMES): moves the
 * stacks to the heap when the record's are too small. 0 when out of memory. Pointers into the
 * stacks taken before are stale after it. */
int xctl_grow_stacks(xwarp *W, int simt, int frames);
/* Frees what xctl_grow_stacks allocated. */
void xctl_free_stacks(xwarp *W);
void xctl_warp_sync(xwarp *W, xsimt *t, uint32_t mask, uint32_t m);
wl_status xctl_branch(exec_block *b, int warp, const xinsn *in, uint32_t active, uint32_t taken,
                      exec_step_info *out, diag_t *d);
/* wmma m16n16k16 fragments as the H200 lays them out (gpu/microbench/wmma.cu,
 * gpu/measured/h200/microbench/wmma.json; the same for row- and column-major memory): element
 * i (0-7) of lane l = 4g + t. A, C, D: row g + 8 ((i >> 1) & 1), column 2t + (i & 1) +
 * 8 (i >> 2); B: row (k) 2t + (i & 1) + 8 ((i >> 1) & 1), column (n) g + 8 (i >> 2). A and B
 * of f16 hold 16 elements, the second 8 a copy of the first. *r, *c: the row and column. */
static inline void xwmma_coord(int b_frag, int l, int i, int *r, int *c)
{
    int g = l >> 2, t = l & 3;
    if (b_frag) {
        *r = 2 * t + (i & 1) + 8 * ((i >> 1) & 1);
        *c = g + 8 * (i >> 2);
    } else {
        *r = g + 8 * ((i >> 1) & 1);
        *c = 2 * t + (i & 1) + 8 * (i >> 2);
    }
}
/* Registers in a wmma fragment: a and b of bf16 4, else 8 (two VEC operands of 4, ir.h). frag:
 * PTX_WMMA_A .. PTX_WMMA_D; t: the fragment's element type (a and b: f16 or bf16). */
static inline int xwmma_regs(int frag, int t)
{
    return frag <= PTX_WMMA_B && t == PTX_T_BF16 ? 4 : 8;
}
/* The fault of a warp that reaches a tensor-core instruction (mma, wmma) with lanes m only
 * (xmma.c): every lane must execute them (.aligned). */
wl_status xmma_need_all(const exec_block *b, int warp, const xinsn *in, uint32_t m, diag_t *d);
/* wmma.mma (xmma.c). */
wl_status xmma_wmma(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m,
                    diag_t *d);
/* mma.sync on the warp's fragments (xmma.c); m: the lanes executing (must be all 32). */
wl_status xmma_exec(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m,
                    diag_t *d);
/* xwide.c: warp-wide ops; values computed before an instruction (sregs, symbol addresses). */
wl_status xwide_exec(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t active,
                     uint32_t m, diag_t *d);
void xwide_pre(exec_block *b, int warp, const xinsn *in, uint64_t *regs, uint32_t m);
/* Pre value k of in when it is one value for the whole launch (grid and block shapes, GPU and
 * shared-memory sizes, symbol addresses that are not frame-relative): 1 and *v; else 0. */
int xwide_launch_value(const exec_prog *p, const xinsn *in, int k, uint64_t *v);
void xop_nop(const xinsn *in, uint64_t *regs, uint32_t m);
/* Fault / unsupported message helpers (exec.c). */
wl_status exec_fail(const exec_block *b, int warp, int lane, const xinsn *in, wl_status st,
                    diag_t *d, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* The address operand of a memory instruction and its index (*idx 0 when there is none). */
static inline const xop *xaddr_opnd(const xinsn *in, int *idx)
{
    *idx = 0;
    for (int k = 0; k < in->nops; k++)
        if (in->o[k].kind == XO_ADDR) {
            *idx = k;
            return &in->o[k];
        }
    return NULL;
}

/* Slot access. A slot number is its first unit (xfunc); a unit is XUNIT uint64_t. XR: the 32
 * 64-bit lanes of wide slot s in the current frame; XN: the 32 32-bit lanes of narrow slot s. A
 * narrow slot is only ever accessed through uint32_t, a wide one through uint64_t. */
#define XUNIT 16u
#define XR(regs, s) ((regs) + (size_t)(s) * XUNIT)
static inline uint32_t *XN(uint64_t *regs, int32_t s)
{
    return (uint32_t *)(void *)(regs + (size_t)s * XUNIT);
}
static inline const uint32_t *XNC(const uint64_t *regs, int32_t s)
{
    return (const uint32_t *)(const void *)(regs + (size_t)s * XUNIT);
}
/* A source operand's 32 lanes as 64-bit values (a register's bits zero-extended): the shared
 * copy of an immediate, a wide slot itself, or a narrow slot widened into tmp (32 entries). */
static inline const uint64_t *XSRC(const xop *o, const uint64_t *regs, uint64_t *tmp)
{
    if (o->cptr)
        return o->cptr;
    if (!o->nw)
        return XR(regs, o->slot);
    const uint32_t *n = XNC(regs, o->slot);
    for (int l = 0; l < 32; l++)
        tmp[l] = n[l];
    return tmp;
}
/* Lane l of slot s (nw: narrow), zero-extended. */
static inline uint64_t xslot_get(const uint64_t *regs, int32_t s, int nw, int l)
{
    return nw ? (uint64_t)XNC(regs, s)[l] : XR(regs, s)[l];
}
static inline void xslot_put(uint64_t *regs, int32_t s, int nw, int l, uint64_t v)
{
    if (nw)
        XN(regs, s)[l] = (uint32_t)v;
    else
        XR(regs, s)[l] = v;
}
/* Lane l of a source operand. */
static inline uint64_t xget(const xop *o, const uint64_t *regs, int l)
{
    return o->cptr ? o->cptr[l] : xslot_get(regs, o->slot, o->nw, l);
}
/* Copies the lanes in m of t (32 values) into slot s (nw: narrow, keeping the low 32 bits). */
static inline void xcommit(uint64_t *regs, int32_t s, int nw, const uint64_t *t, uint32_t m)
{
    if (nw) {
        uint32_t *d = XN(regs, s);
        if (m == XFULL) {
            for (int l = 0; l < 32; l++)
                d[l] = (uint32_t)t[l];
            return;
        }
        while (m) {
            int l = __builtin_ctz(m);
            d[l] = (uint32_t)t[l];
            m &= m - 1;
        }
        return;
    }
    uint64_t *d = XR(regs, s);
    if (m == XFULL) {
        for (int l = 0; l < 32; l++)
            d[l] = t[l];
        return;
    }
    while (m) {
        int l = __builtin_ctz(m);
        d[l] = t[l];
        m &= m - 1;
    }
}

#endif
