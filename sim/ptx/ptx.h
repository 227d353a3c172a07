/* ptx: the PTX front end's public API (parse, look up, print).
 * The data structures are in ir.h (the IR contract). */
#ifndef WL_PTX_H
#define WL_PTX_H

#include <stddef.h>

#include "diag.h"
#include "ir.h"

/* Limits that keep hostile input bounded (exceeding one is a WL_EUSAGE diag). */
#define PTX_MAX_REGS_PER_FUNC (1u << 20)  /* virtual registers per function */
#define PTX_MAX_RANGE (1u << 20)          /* N in `%r<N>` */
#define PTX_MAX_REGS_PER_MODULE (1u << 23) /* all functions together */
#define PTX_MAX_INSNS (1u << 22)          /* instructions per function */
#define PTX_MAX_VAR_BYTES (1ull << 32)    /* one .global/.const variable */
#define PTX_MAX_SMEM_BYTES (1u << 20)     /* static shared per entry */
#define PTX_MAX_LOCAL_BYTES (1u << 20)    /* .local frame per function */
#define PTX_MAX_PARAM_BYTES (1u << 16)    /* param space per function */
#define PTX_MAX_NESTING 64                /* `{ }` scope depth (ptx_int.h repeats it) */
#define PTX_MAX_INPUT_BYTES (64u << 20)   /* one .ptx file (IR is at most ~12x its input) */

/* Parses a whole .ptx file. On success *out owns the module (free with
 * ptx_module_free) and WL_OK is returned. On error *out is NULL and d holds the
 * status (WL_EUSAGE malformed/unreadable, WL_EUNSUPPORTED valid-but-unsupported)
 * with file:line:col. An instruction the simulator does not model (tensor cores, textures,
 * ...: ptx_insn.c's list) is not an error of the module: it is skipped, its function remembers
 * the first one, and ptx_check_supported refuses the kernels that would reach it, so the other
 * kernels of the file still run. */
wl_status ptx_parse_file(const char *path, ptx_module **out, diag_t *d);

/* WL_OK when kernel k and every function it calls (transitively) hold only instructions the
 * simulator models; else WL_EUNSUPPORTED with the first such instruction's file:line:col and
 * name (and the function holding it, when not k). exec_prog_create asks before every launch. */
wl_status ptx_check_supported(const ptx_module *m, const ptx_func *k, diag_t *d);

/* Reorders the instructions inside each basic block the way ptxas's list scheduler would
 * (sim/ptx/ptx_sched.c): register dependencies, memory order and control flow are kept, so
 * results are unchanged; the timing model then issues them in that order. WL_EUSAGE only
 * when out of memory. */
wl_status ptx_schedule(ptx_module *m, diag_t *d);

/* Register pressure of f: returns the most 32-bit register units live at any instruction
 * (64-bit registers count 2, predicates 0) and, when live is not NULL, fills live[i] for each
 * of f's instructions; when regio is not NULL, regio[i] = sources | destinations << 4 (register
 * operands, predicates not counted). 0 for a function too large to analyse (or empty). */
uint32_t ptx_pressure(const ptx_func *f, uint16_t *live, uint8_t *regio);

/* Same, from memory (text need not be NUL-terminated; may contain NULs, which
 * are an error). name is used for diagnostics and module->name. */
wl_status ptx_parse_string(const char *text, size_t len, const char *name,
                           ptx_module **out, diag_t *d);

void ptx_module_free(ptx_module *m);

/* Function by name (entry or .func), NULL if absent. */
const ptx_func *ptx_find_func(const ptx_module *m, const char *name);
/* Index of a function, PTX_NONE if absent. */
int ptx_find_func_index(const ptx_module *m, const char *name);

/* Opcode table (isa.def) queries. */
const char *isa_name(int op);              /* "add", "cp.async.wait_group"; "?" if out of range */
ptx_unit isa_unit_class(int op);           /* as written in isa.def (may be PTX_UNIT_ARITH) */
ptx_unit isa_unit(const ptx_insn *in);     /* resolved by type: never PTX_UNIT_ARITH */
ptx_latclass isa_latclass(const ptx_insn *in); /* resolved (e.g. ld.shared -> SHMEM) */
/* Operand shape from isa.def: destinations, min and max sources. */
void isa_shape(int op, unsigned *ndst, unsigned *nsmin, unsigned *nsmax);
const char *isa_unit_name(ptx_unit u);     /* "ALU", "FMA", ... */
const char *isa_latclass_name(ptx_latclass c);

/* Names and sizes of IR enums. */
const char *ptx_type_name(ptx_type t);     /* "u32", "f64", "pred" ... */
unsigned ptx_type_size(ptx_type t);        /* bytes; pred 1; NONE 0 */
const char *ptx_space_name(ptx_space s);   /* "global", "shared" ... ("" for NONE) */
const char *ptx_sreg_name(ptx_sreg s);     /* "%tid.x" ... */

/* Prints instruction i of f back as PTX text (one line, no trailing newline,
 * e.g. "@!%p1 ld.global.v2.f32 {%f1, %f2}, [%rd4+8];"). Returns the length
 * snprintf would have written. */
int ptx_insn_format(const ptx_module *m, const ptx_func *f, uint32_t i, char *buf,
                    size_t size);

#endif
