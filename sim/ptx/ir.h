/* IR contract: the in-memory form of a parsed PTX module.
 *
 * Producer: the PTX front end (ptx_parse_file / ptx_parse_string in ptx.h).
 * Consumers: the functional executor (sim/exec), the `run` command (kernel
 * parameter packing), the timing model, the viewer (source mapping).
 *
 * Shape of the data:
 *   - Plain structs, plain arrays, indices rather than pointers between objects.
 *     The only pointers are to arrays and NUL-terminated strings, and all of them
 *     point into ONE arena owned by the module: ptx_module_free() releases
 *     everything at once. Consumers never free or resize anything in here.
 *   - Everything is read-only after parsing. The executor pre-decodes further
 *     into its own structures for speed.
 *   - Indices are 0-based. "-1" (or PTX_NONE) means "absent" wherever a field is
 *     a signed index.
 *
 * The executor may APPEND fields it needs at the end of a struct, marked with a
 * comment `EXEC:`; the parser keeps them zero-initialised and never removes them.
 *
 * PTX reference: PTX ISA 9.0 (CUDA 13.0), as emitted by `nvcc -ptx -arch=sm_90`.
 */
#ifndef WL_PTX_IR_H
#define WL_PTX_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PTX_NONE (-1)

/* ------------------------------------------------------------------------- */
/* Opcodes: generated from isa.def (one X(...) row per PTX opcode).            */
/* Row: X(ENUM, "ptx-name", UNIT, LATENCY_CLASS, NDST, NSRC_MIN, NSRC_MAX)     */
/* ------------------------------------------------------------------------- */
typedef enum {
#define X(en, name, unit, lat, ndst, nsmin, nsmax) PTX_OP_##en,
#include "isa.def"
#undef X
    PTX_OP_COUNT
} ptx_opcode;

/* Functional unit an instruction issues to. PTX_UNIT_ARITH in isa.def is a
 * placeholder meaning "depends on the type" (integer -> ALU, integer multiply
 * -> FMA (IMAD), f32/f16 -> FMA, f64 -> FP64); isa_unit() resolves it, so an
 * instruction's resolved unit is never ARITH. */
typedef enum {
    PTX_UNIT_ALU,     /* integer/logic pipe (IADD3, LOP3, SHF, ISETP, ...) */
    PTX_UNIT_FMA,     /* FP32 pipe; also IMAD */
    PTX_UNIT_FP64,    /* DFMA pipe (narrow on consumer parts) */
    PTX_UNIT_SFU,     /* MUFU: ex2/lg2/sin/cos/rsqrt/rcp/sqrt/tanh; also conversions (I2F/F2I) */
    PTX_UNIT_LSU,     /* global/local/const/param loads and stores (LDG/STG/LDL/...) */
    PTX_UNIT_SHMEM,   /* shared-memory loads/stores via the MIO queue (LDS/STS) */
    PTX_UNIT_BRANCH,  /* bra/call/ret/exit */
    PTX_UNIT_BARRIER, /* bar/barrier/membar/fence/mbarrier */
    PTX_UNIT_SHFL,    /* shfl/vote/match/redux (MIO-issued warp-wide ops) */
    PTX_UNIT_ATOM,    /* atom/red (global: L2 ROP; shared: ATOMS) */
    PTX_UNIT_TENSOR,  /* mma.sync (tensor cores; wmma/wgmma are not modelled) */
    PTX_UNIT_CTRL,    /* no execution unit: nanosleep, activemask, trap, pragma-ish ops */
    PTX_UNIT_ARITH,   /* isa.def only: resolved by type, see above */
    PTX_UNIT_COUNT
} ptx_unit;

/* Latency class: the timing model maps each class to cycles from the arch file. */
typedef enum {
    PTX_LAT_ALU,    /* fixed, ~4-5 cycles (IADD3/LOP3/SHF/ISETP) */
    PTX_LAT_FMA,    /* fixed, 4 cycles (FFMA/FADD/FMUL/IMAD) */
    PTX_LAT_FP64,   /* fixed, ~8 cycles on H100/H200 (DFMA) */
    PTX_LAT_SFU,    /* variable (MUFU ~17 cycles), short scoreboard */
    PTX_LAT_CONV,   /* conversions (I2F/F2I/F2F), ~SFU */
    PTX_LAT_MEM,    /* variable, long scoreboard (global/local/const/param memory) */
    PTX_LAT_SHMEM,  /* variable, short scoreboard (shared memory ~29 cycles) */
    PTX_LAT_SHFL,   /* variable, short scoreboard (~26 cycles) */
    PTX_LAT_ATOM,   /* variable, long scoreboard */
    PTX_LAT_BRANCH, /* control transfer */
    PTX_LAT_BAR,    /* barrier / fence: the warp waits on other warps or memory */
    PTX_LAT_NONE,   /* no result (e.g. nanosleep, trap) */
    PTX_LAT_COUNT
} ptx_latclass;

/* ------------------------------------------------------------------------- */
/* Types, state spaces and modifier enums                                     */
/* ------------------------------------------------------------------------- */
typedef enum {
    PTX_T_NONE = 0,
    PTX_T_PRED,
    PTX_T_B8, PTX_T_B16, PTX_T_B32, PTX_T_B64, PTX_T_B128,
    PTX_T_U8, PTX_T_U16, PTX_T_U32, PTX_T_U64,
    PTX_T_S8, PTX_T_S16, PTX_T_S32, PTX_T_S64,
    PTX_T_F16, PTX_T_F16X2, PTX_T_BF16, PTX_T_BF16X2, PTX_T_TF32,
    PTX_T_F32, PTX_T_F64,
    PTX_T_COUNT
} ptx_type;

/* The integer and untyped-bit types b8 .. s64 (b128 included: it sits between them). */
static inline int ptx_type_is_int(unsigned t)
{
    return t >= PTX_T_B8 && t <= PTX_T_S64;
}

typedef enum {
    PTX_SPACE_NONE = 0, /* generic addressing (no state-space qualifier) */
    PTX_SPACE_REG,
    PTX_SPACE_SREG,
    PTX_SPACE_CONST,
    PTX_SPACE_GLOBAL,
    PTX_SPACE_LOCAL,
    PTX_SPACE_PARAM,
    PTX_SPACE_SHARED,       /* .shared or .shared::cta */
    PTX_SPACE_SHARED_CLUSTER, /* .shared::cluster (parse-level; executor may reject) */
    PTX_SPACE_TEX,
    PTX_SPACE_COUNT
} ptx_space;

/* Comparison of setp/set/slct(sign)/... */
typedef enum {
    PTX_CMP_NONE = 0,
    PTX_CMP_EQ, PTX_CMP_NE, PTX_CMP_LT, PTX_CMP_LE, PTX_CMP_GT, PTX_CMP_GE,
    PTX_CMP_LO, PTX_CMP_LS, PTX_CMP_HI, PTX_CMP_HS,   /* unsigned integer forms */
    PTX_CMP_EQU, PTX_CMP_NEU, PTX_CMP_LTU, PTX_CMP_LEU, PTX_CMP_GTU, PTX_CMP_GEU,
    PTX_CMP_NUM, PTX_CMP_NAN,                        /* float: ordered/unordered */
    PTX_CMP_COUNT
} ptx_cmp;

/* setp.CMP.BOOLOP / set.CMP.BOOLOP combine with a third (predicate) source. */
typedef enum { PTX_BOOL_NONE = 0, PTX_BOOL_AND, PTX_BOOL_OR, PTX_BOOL_XOR } ptx_boolop;

typedef enum {
    PTX_RND_NONE = 0,
    PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP,     /* float results */
    PTX_RND_RNI, PTX_RND_RZI, PTX_RND_RMI, PTX_RND_RPI, /* round to integer */
    PTX_RND_RNA,                                        /* cvt.rna.tf32 */
    PTX_RND_COUNT
} ptx_round;

/* Integer multiply result selection: mul/mad/mul24/mad24 .hi/.lo/.wide. */
typedef enum { PTX_MUL_NONE = 0, PTX_MUL_LO, PTX_MUL_HI, PTX_MUL_WIDE } ptx_mulmode;

/* ld/st cache operators (.ca .cg .cs .lu .cv .wb .wt); ld.global.nc is a flag. */
typedef enum {
    PTX_CACHE_NONE = 0,
    PTX_CACHE_CA, PTX_CACHE_CG, PTX_CACHE_CS, PTX_CACHE_LU, PTX_CACHE_CV,
    PTX_CACHE_WB, PTX_CACHE_WT,
    PTX_CACHE_COUNT
} ptx_cacheop;

/* atom/red/redux/bar.red operation. */
typedef enum {
    PTX_AOP_NONE = 0,
    PTX_AOP_ADD, PTX_AOP_INC, PTX_AOP_DEC, PTX_AOP_MIN, PTX_AOP_MAX,
    PTX_AOP_EXCH, PTX_AOP_CAS, PTX_AOP_AND, PTX_AOP_OR, PTX_AOP_XOR,
    PTX_AOP_POPC, /* bar.red.popc */
    PTX_AOP_COUNT
} ptx_atomop;

/* Memory-consistency qualifiers, as parsed (ld/st/atom/red/fence/mbarrier). */
typedef enum {
    PTX_SEM_NONE = 0, PTX_SEM_WEAK, PTX_SEM_VOLATILE, PTX_SEM_RELAXED,
    PTX_SEM_ACQUIRE, PTX_SEM_RELEASE, PTX_SEM_ACQ_REL, PTX_SEM_SC, PTX_SEM_MMIO
} ptx_sem;

typedef enum {
    PTX_SCOPE_NONE = 0, PTX_SCOPE_CTA, PTX_SCOPE_CLUSTER, PTX_SCOPE_GPU, PTX_SCOPE_SYS
} ptx_scope;

/* ptx_insn.mode: one small enum whose meaning depends on the opcode. */
typedef enum { PTX_SHFL_UP = 1, PTX_SHFL_DOWN, PTX_SHFL_BFLY, PTX_SHFL_IDX } ptx_shflmode;
/* mma.sync shapes (mode); type[0] = d's type (f32), type[1] = a's and b's (f16 or bf16),
 * type[2] = c's (f32). Operands: {d x4}, {a x4|x2}, {b x2|x1}, {c x4} (PTX ISA 9.7.14.5.8). */
typedef enum { PTX_MMA_M16N8K16 = 1, PTX_MMA_M16N8K8 } ptx_mmashape;
/* wmma (m16n16k16 only): mode = the fragment (load a/b/c, store d) | PTX_WMMA_COL for a
 * column-major matrix in memory; wmma.mma: PTX_WMMA_A_COL, PTX_WMMA_B_COL for its layouts.
 * type[0]: the fragment's element type (load/store); wmma.mma: type[0] = d's (f32), type[1] =
 * a's and b's (f16, bf16), type[2] = c's (f32). space: global, shared or none (generic). */
enum { PTX_WMMA_A = 0, PTX_WMMA_B = 1, PTX_WMMA_C = 2, PTX_WMMA_D = 3, PTX_WMMA_FRAG = 3,
       PTX_WMMA_COL = 4, PTX_WMMA_A_COL = 4, PTX_WMMA_B_COL = 8 };
typedef enum { PTX_VOTE_ALL = 1, PTX_VOTE_ANY, PTX_VOTE_UNI, PTX_VOTE_BALLOT } ptx_votemode;
typedef enum { PTX_MATCH_ANY = 1, PTX_MATCH_ALL } ptx_matchmode;
/* bar / barrier: .sync, .arrive, .red (bar.sync == barrier.sync.aligned) */
typedef enum { PTX_BAR_SYNC = 1, PTX_BAR_ARRIVE, PTX_BAR_RED } ptx_barmode;
/* testp.finite/.infinite/.number/.notanumber/.normal/.subnormal */
typedef enum {
    PTX_TESTP_FINITE = 1, PTX_TESTP_INFINITE, PTX_TESTP_NUMBER, PTX_TESTP_NOTANUMBER,
    PTX_TESTP_NORMAL, PTX_TESTP_SUBNORMAL
} ptx_testpmode;
/* prmt.b32 (default) / .f4e .b4e .rc8 .ecl .ecr .rc16 */
typedef enum {
    PTX_PRMT_DEFAULT = 0, PTX_PRMT_F4E, PTX_PRMT_B4E, PTX_PRMT_RC8, PTX_PRMT_ECL,
    PTX_PRMT_ECR, PTX_PRMT_RC16
} ptx_prmtmode;
/* shf.l / shf.r: mode = direction; flag PTX_F_WRAP or PTX_F_CLAMP */
typedef enum { PTX_SHF_L = 1, PTX_SHF_R } ptx_shfmode;
/* mbarrier.try_wait / test_wait: mode 0 = state form, PTX_MBAR_PARITY = .parity form */
typedef enum { PTX_MBAR_PARITY = 1 } ptx_mbarmode;
/* cp.async: mode = cache operator of the copy */
typedef enum { PTX_CPASYNC_CA = 1, PTX_CPASYNC_CG } ptx_cpasyncmode;

/* ptx_insn.flags bits: single-keyword modifiers. */
enum {
    PTX_F_FTZ = 1u << 0,
    PTX_F_SAT = 1u << 1,
    PTX_F_APPROX = 1u << 2,
    PTX_F_FULL = 1u << 3,
    PTX_F_UNI = 1u << 4,       /* bra.uni / call.uni / vote.uni-shaped hints */
    PTX_F_ALIGNED = 1u << 5,   /* .aligned (bar.sync implies it) */
    PTX_F_SYNC = 1u << 6,      /* .sync (shfl.sync, vote.sync, barrier.sync ...) */
    PTX_F_NC = 1u << 7,        /* ld.global.nc (read-only data path) */
    PTX_F_CC = 1u << 8,        /* add.cc / sub.cc / mad.cc: write carry */
    PTX_F_CARRY_IN = 1u << 9,  /* addc / subc / madc: read carry */
    PTX_F_WRAP = 1u << 10,     /* shf.wrap */
    PTX_F_CLAMP = 1u << 11,    /* shf.clamp */
    PTX_F_TO = 1u << 12,       /* cvta.to.SPACE (generic -> space); without: space -> generic */
    PTX_F_RELU = 1u << 13,     /* max.relu / cvt.relu */
    PTX_F_NAN = 1u << 14,      /* min.NaN / max.NaN */
    PTX_F_XORSIGN = 1u << 15,  /* min/max .xorsign.abs */
    PTX_F_ABS = 1u << 16,      /* .abs companion of xorsign */
    PTX_F_SHIFTAMT = 1u << 17, /* bfind.shiftamt */
    PTX_F_NOINC = 1u << 18,    /* mbarrier ... .noinc */
    PTX_F_EXPECT_TX = 1u << 19,/* mbarrier.arrive.expect_tx (parse-only) */
    PTX_F_LEVEL_EVICT = 1u << 20, /* ld/st with L1::/L2:: eviction priority hint (ignored) */
    PTX_F_PREFETCH_SZ = 1u << 21, /* ld with L2::64B/128B/256B prefetch size hint (ignored) */
    PTX_F_NEG_RESULT = 1u << 22,  /* reserved */
    PTX_F_UNALIGNED = 1u << 23,   /* reserved */
    PTX_F_OOB = 1u << 24,         /* fma.oob (parse-only) */
    PTX_F_CACHE_HINT = 1u << 25,  /* .L2::cache_hint: the last operand is a 64-bit policy (ignored) */
    PTX_F_NOUNROLL = 1u << 26,    /* after `.pragma "nounroll";` (kept for the compiler model) */
    PTX_F_UNROLL_CTL = 1u << 27,  /* set by ptx_schedule: control (counter, compare, back
                                     branch) of a loop ptxas unrolls 4 times (ptx_sched.c) */
    PTX_F_SELECT_FOLD = 1u << 28, /* set by ptx_schedule: a selp ptxas turns into a predicated
                                     write of one of its operands (ptx_sched.c) */
    PTX_F_IFCVT = 1u << 29,       /* set by ptx_schedule: a branch ptxas replaces by predicating
                                     the body it jumps over (ptx_sched.c); never taken */
    PTX_F_ADDR_FOLD = 1u << 30,   /* set by ptx_schedule: an add of a shared variable's address
                                     that ptxas puts into the LDS/STS address (ptx_sched.c) */
};

/* Special registers. Components x/y/z are separate ids. */
typedef enum {
    PTX_SR_TID_X, PTX_SR_TID_Y, PTX_SR_TID_Z,
    PTX_SR_NTID_X, PTX_SR_NTID_Y, PTX_SR_NTID_Z,
    PTX_SR_CTAID_X, PTX_SR_CTAID_Y, PTX_SR_CTAID_Z,
    PTX_SR_NCTAID_X, PTX_SR_NCTAID_Y, PTX_SR_NCTAID_Z,
    PTX_SR_LANEID, PTX_SR_WARPID, PTX_SR_NWARPID,
    PTX_SR_SMID, PTX_SR_NSMID, PTX_SR_GRIDID,
    PTX_SR_LANEMASK_EQ, PTX_SR_LANEMASK_LE, PTX_SR_LANEMASK_LT,
    PTX_SR_LANEMASK_GE, PTX_SR_LANEMASK_GT,
    PTX_SR_CLOCK, PTX_SR_CLOCK_HI, PTX_SR_CLOCK64, PTX_SR_GLOBALTIMER,
    PTX_SR_GLOBALTIMER_LO, PTX_SR_GLOBALTIMER_HI,
    PTX_SR_DYNAMIC_SMEM_SIZE, PTX_SR_TOTAL_SMEM_SIZE, PTX_SR_AGGR_SMEM_SIZE,
    PTX_SR_CLUSTERID_X, PTX_SR_CLUSTERID_Y, PTX_SR_CLUSTERID_Z,
    PTX_SR_NCLUSTERID_X, PTX_SR_NCLUSTERID_Y, PTX_SR_NCLUSTERID_Z,
    PTX_SR_CLUSTER_CTAID_X, PTX_SR_CLUSTER_CTAID_Y, PTX_SR_CLUSTER_CTAID_Z,
    PTX_SR_CLUSTER_NCTAID_X, PTX_SR_CLUSTER_NCTAID_Y, PTX_SR_CLUSTER_NCTAID_Z,
    PTX_SR_CLUSTER_CTARANK, PTX_SR_CLUSTER_NCTARANK, PTX_SR_IS_EXPLICIT_CLUSTER,
    PTX_SR_ENVREG0, /* %envreg0..%envreg31 = PTX_SR_ENVREG0 + n */
    PTX_SR_COUNT = PTX_SR_ENVREG0 + 32
} ptx_sreg;

/* %clock, %clock64, %globaltimer and their halves: special registers that read time. */
static inline int ptx_sreg_reads_time(int sreg)
{
    return sreg >= PTX_SR_CLOCK && sreg <= PTX_SR_GLOBALTIMER_HI;
}

/* ------------------------------------------------------------------------- */
/* Operands                                                                   */
/* ------------------------------------------------------------------------- */
typedef enum {
    PTX_OPND_NONE = 0,
    PTX_OPND_REG,   /* reg: virtual-register index (PTX_NONE: the sink `_`, result dropped);
                       neg: `!%p` */
    PTX_OPND_IMM,   /* imm: integer value (sign-extended to 64 bits when negative) */
    PTX_OPND_FIMM,  /* imm: IEEE bits of a float literal (0f/0d/decimal) */
    PTX_OPND_SREG,  /* sreg: ptx_sreg id */
    PTX_OPND_ADDR,  /* [base + off]: see below */
    PTX_OPND_SYM,   /* address of a variable (or function) used as a value */
    PTX_OPND_VEC,   /* {a, b[, c, d]}: nvec registers in vec[], PTX_NONE for the sink `_`
                     * (at most 4: a wmma fragment of 8 is two VEC operands in a row, its
                     * first and last four) */
    PTX_OPND_PAIR,  /* setp/shfl `%p|%q`: vec[0], vec[1] (vec[1] may be PTX_NONE) */
    PTX_OPND_LABEL  /* sym: resolved instruction index in the same function */
} ptx_opnd_kind;

/* Which table a symbol index refers to. */
typedef enum {
    PTX_SYM_NONE = 0,
    PTX_SYM_MODVAR, /* module->vars[sym]: .global/.const/.shared (also function-scope
                       .shared/.global/.const, hoisted to module scope by the parser) */
    PTX_SYM_PARAM,  /* func->params[sym]: kernel params (entry) or .func input params */
    PTX_SYM_RET,    /* func->rets[sym]: .func return params */
    PTX_SYM_LOCAL,  /* func->locals[sym]: .local variables and call-site .param
                       variables declared inside the body (space tells which) */
    PTX_SYM_FUNC    /* module->funcs[sym] (function address, call target) */
} ptx_symkind;

/* ADDR operand: address = (reg >= 0 ? value of reg : 0)
 *                        + (sym >= 0 ? address of symbol in `space` : 0) + off.
 * space: the symbol's state space when sym >= 0 (so the executor needs no lookup);
 *        otherwise PTX_SPACE_NONE (the instruction's space field tells ld/st
 *        which space the register address is in).
 * IMM/FIMM: `type` is the type this operand position has in the instruction
 * (cvt's source type, u32 for shift amounts, pred for setp's c, ...) and `imm`
 * always holds the bits to use at that type's width: an integer literal in an
 * .f32/.f64 position becomes FIMM with the value's IEEE bits (`add.f32 d, a, 1`
 * stores 0x3F800000), an 0f literal in an .f64 position is widened to f64 bits,
 * an 0f literal in a .b32 position keeps its raw bits.
 * REG: `type` is the register's declared type. VEC: the instruction's type[0].
 * SYM of a variable: its address in its own space (a .shared variable's value is
 * its offset in the CTA's shared window, see ptx_func.smem_off). */
typedef struct ptx_operand {
    uint8_t kind;    /* ptx_opnd_kind */
    uint8_t type;    /* ptx_type */
    uint8_t neg;     /* 1 for `!%p` (predicate source negated); VEC: 1 for the second half of a
                        wmma fragment of 8 (the VEC operand before it holds the first four) */
    uint8_t space;   /* ptx_space, ADDR/SYM only */
    uint8_t symkind; /* ptx_symkind, ADDR/SYM only */
    uint8_t nvec;    /* VEC: 1..4 elements as written; PAIR: 2 */
    uint16_t sreg;   /* SREG: ptx_sreg */
    int32_t reg;     /* REG: register index; ADDR: base register or PTX_NONE */
    int32_t sym;     /* ADDR/SYM: symbol index per symkind, or PTX_NONE; LABEL: insn index */
    union {
        uint64_t imm;   /* IMM/FIMM */
        int64_t off;    /* ADDR */
        int32_t vec[4]; /* VEC/PAIR */
    };
} ptx_operand;

/* ------------------------------------------------------------------------- */
/* Instructions                                                               */
/* ------------------------------------------------------------------------- */
/* Operands are stored in func->ops[op0 .. op0+nops-1], in PTX source order:
 * destinations first (st/red have no destination: [addr] first, then values).
 * call: ops = nret return-parameter SYM operands (PTX_SYM_LOCAL .param vars),
 *       then the argument SYM operands (nops - nret of them); callee in `target`. */
typedef struct ptx_insn {
    uint16_t op;      /* ptx_opcode */
    uint8_t type[3];  /* ptx_type: [0] the instruction type, or destination type of
                         cvt/set/slct/cvt.pack; [1] source type (cvt, set, slct,
                         cvt.pack, mul.wide's type is [0] = source width);
                         [2] third type (cvt.pack .b32 c). NONE when absent. */
    uint8_t cmp;      /* ptx_cmp */
    uint8_t boolop;   /* ptx_boolop */
    uint8_t round;    /* ptx_round */
    uint8_t mul;      /* ptx_mulmode */
    uint8_t space;    /* ptx_space of ld/st/atom/red/cvta/isspacep/prefetch; NONE = generic */
    uint8_t cache;    /* ptx_cacheop */
    uint8_t vec;      /* 1, 2, 4 (ld/st .v2/.v4) */
    uint8_t mode;     /* per-opcode enum: shfl/vote/match/bar/testp/prmt/shf/mbar/cp.async;
                         griddepcontrol: 1 launch_dependents, 2 wait */
    uint8_t aop;      /* ptx_atomop: atom/red/redux/bar.red */
    uint8_t sem;      /* ptx_sem */
    uint8_t scope;    /* ptx_scope */
    uint8_t guard_neg;/* guard is `@!%p` */
    uint8_t nops;     /* operand count */
    uint16_t nret;    /* call: number of return operands */
    uint32_t flags;   /* PTX_F_* */
    int32_t guard;    /* guard predicate register, PTX_NONE when unguarded */
    uint32_t op0;     /* first operand in func->ops */
    int32_t target;   /* bra: target insn index; call: callee function index; else PTX_NONE */
    int32_t block;    /* basic block containing this instruction */
    uint32_t line;    /* position of the opcode in the .ptx file (1-based) */
    uint32_t col;
    uint32_t loc_line;/* current `.loc FILE LINE COL` (0 = no .loc seen); for inlined code */
    uint16_t loc_col; /*   this is the innermost location, not the inlined_at site */
    uint16_t loc_file;/* index into module->files */
    uint32_t src_line;/* outermost location: following `inlined_at` back to code that was */
    uint16_t src_col; /*   not inlined, i.e. the user's own line calling into headers */
    uint16_t src_file;/*   (cuda::barrier, cooperative groups ...); == loc_* if not inlined */
} ptx_insn;

/* ------------------------------------------------------------------------- */
/* Variables, parameters, registers                                           */
/* ------------------------------------------------------------------------- */
typedef enum { PTX_LINK_NONE = 0, PTX_LINK_VISIBLE, PTX_LINK_WEAK, PTX_LINK_EXTERN,
               PTX_LINK_COMMON } ptx_linkage;

/* A variable or parameter: `.space [.align N] .type name[count] [= init]`. */
typedef struct ptx_var {
    const char *name;
    uint8_t space;     /* ptx_space */
    uint8_t type;      /* element ptx_type */
    uint8_t linkage;   /* ptx_linkage */
    uint8_t is_ptr;    /* param with .ptr attribute */
    uint8_t ptr_space; /* .ptr.SPACE (PTX_SPACE_NONE = generic) */
    uint8_t unsized;   /* declared with [] (extern dynamic shared array) */
    uint8_t vec;       /* .v2/.v4 variable (1 otherwise) */
    uint8_t pad_;
    uint32_t align;    /* bytes (explicit .align, or the element size) */
    uint32_t ptr_align;/* .ptr .align N */
    uint64_t count;    /* elements (1 for a scalar; product of all dimensions) */
    uint64_t size;     /* bytes = elemsize * vec * count (0 when unsized) */
    uint64_t offset;   /* params/rets: byte offset in the param space;
                          locals: offset in the per-thread frame of its space
                          (.local frame or the call-site .param scratch);
                          module vars: 0 (shared layout is per entry, see ptx_func) */
    const uint8_t *init; /* initializer bytes (little-endian), init_size <= size; NULL = zeros */
    uint64_t init_size;
    uint32_t line, col;
} ptx_var;

typedef struct ptx_reg {
    const char *name;  /* "%r" for a range register, full name otherwise */
    int32_t num;       /* index within a `<N>` range (name + num), PTX_NONE if not a range */
    uint8_t type;      /* ptx_type (PTX_T_PRED for predicates) */
    uint8_t vec;       /* .v2/.v4 register (rare); 1 otherwise */
} ptx_reg;

typedef struct ptx_label {
    const char *name;
    uint32_t insn;     /* instruction index the label precedes (may equal ninsns) */
} ptx_label;

/* ------------------------------------------------------------------------- */
/* Basic blocks and reconvergence                                             */
/* ------------------------------------------------------------------------- */
/* Block ids are 0..nblocks-1; id nblocks is the VIRTUAL EXIT node: successor of
 * every block that ends the thread (ret from an entry, exit, trap) and of a `ret`
 * in a .func (returns to the caller). ipdom of a block is its immediate
 * post-dominator, the SIMT reconvergence point; == nblocks when the paths only
 * meet at thread exit. */
typedef struct ptx_block {
    uint32_t first, last; /* inclusive instruction range */
    uint32_t succ[2];     /* successor block ids (nblocks = virtual exit) */
    uint8_t nsucc;        /* 0..2: fallthrough first, then branch target */
    int32_t ipdom;        /* immediate post-dominator block id (nblocks = exit);
                             PTX_NONE for blocks that cannot reach the exit
                             (infinite loops) */
} ptx_block;

/* A module-scope .shared variable as placed in one entry's shared window. */
typedef struct ptx_smem {
    uint32_t var;      /* module->vars index */
    uint32_t offset;   /* byte offset in the CTA's shared window */
} ptx_smem;

/* ------------------------------------------------------------------------- */
/* Functions and the module                                                   */
/* ------------------------------------------------------------------------- */
typedef struct ptx_func {
    const char *name;
    uint8_t is_entry;      /* .entry (kernel) vs .func */
    uint8_t linkage;       /* ptx_linkage */
    uint8_t is_decl;       /* prototype only (no body): must not be executed */
    uint8_t noreturn;      /* .noreturn */
    uint32_t line, col;

    ptx_var *params;   uint32_t nparams;
    uint32_t param_size;   /* total bytes of the param space (params laid out with alignment) */
    ptx_var *rets;     uint32_t nrets;
    uint32_t ret_size;

    /* Performance directives; 0 = absent. */
    uint32_t maxntid[3], reqntid[3];
    uint32_t minnctapersm, maxnreg;

    ptx_reg *regs;     uint32_t nregs;   /* dense 0..nregs-1 (all scopes of the body) */

    /* .local variables and call-site .param variables declared in the body. */
    ptx_var *locals;   uint32_t nlocals;
    uint32_t local_size;       /* per-thread .local frame bytes (excl. callees) */
    uint32_t callparam_size;   /* per-thread scratch for call-site .param vars: the
                                  most live at once (a closed `{ }` scope's space is
                                  reused by the next call sequence) */

    /* Shared memory as laid out for this ENTRY (static variables reachable from it
     * and its callees, in declaration order, each aligned). Empty for .func. */
    ptx_smem *smem;    uint32_t nsmem;
    uint32_t smem_static;      /* total static shared bytes */
    int32_t dyn_smem_var;      /* an extern .shared [] var reachable, or PTX_NONE */
    uint32_t dyn_smem_offset;  /* where dynamic shared starts (aligned after static) */
    /* smem_off[v] for every module var v: its offset in this entry's window
     * (dynamic arrays: dyn_smem_offset), UINT32_MAX if not shared/not used. NULL for .func. */
    uint32_t *smem_off;

    ptx_insn *insns;   uint32_t ninsns;
    ptx_operand *ops;  uint32_t nops;
    ptx_block *blocks; uint32_t nblocks;
    ptx_label *labels; uint32_t nlabels;

    /* The first instruction of the body the simulator does not model (skipped by the parser,
     * refused at launch: ptx_check_supported): its opcode text, line and column; NULL when
     * there is none. */
    const char *unsup_insn;
    uint32_t unsup_line, unsup_col;
} ptx_func;

typedef struct ptx_module {
    const char *name;          /* file path or the name given to ptx_parse_string */
    uint32_t version_major, version_minor; /* .version 9.0 */
    uint32_t sm;               /* .target sm_90 -> 90 (0 if absent) */
    const char *target;        /* full target string, e.g. "sm_90a" */
    uint32_t address_size;     /* 32 or 64 (64 when absent) */

    ptx_var *vars;     uint32_t nvars;   /* module-scope variables */
    /* .file table: files[i] is the path of `.file i`; NULL where not declared. */
    const char **files; uint32_t nfiles;
    ptx_func *funcs;   uint32_t nfuncs;

    struct ptx_arena *arena;   /* owns every pointer above */
} ptx_module;

#endif
