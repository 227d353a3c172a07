/* argspec: one `--arg SPEC` of `warplab run` (grammar in ../docs/run.md and DESIGN.md).
 *
 * A LEAF module: it depends on nothing in sim/ but diag.h, and is written in the
 * common subset of C17 and C++ so the GPU harness (CUDA C++) compiles this same
 * file and both sides build byte-identical launch arguments.
 *
 *   scalar:  TYPE:VALUE             f32:2.0  s32:-1  u32:0xff  f64:inf  f16:0.5
 *   buffer:  TYPE[COUNT]:INIT       INIT = zeros | const(V) | iota | random(LO,HI[,SEED])
 *                                          | random | random(SEED) | affine(A,C,M)
 *   TYPE:    u8 s8 u16 s16 u32 s32 u64 s64 f32 f64 f16 bf16
 *
 * f16 is IEEE binary16 (CUDA's __half: 5 exponent bits, 10 fraction bits, largest 65504),
 * bf16 bfloat16 (__nv_bfloat16: f32's 8 exponent bits, 7 fraction bits); their values are
 * rounded to nearest, ties to even, from the double the text or the generator gives, with
 * subnormals kept.
 *
 * Values: integers in decimal (optionally signed) or hex 0x... (signed types also
 * take a hex bit pattern up to the width's unsigned max, e.g. s8:0xff = -1);
 * floats as strtod reads them (decimal, exponent, inf, nan, hex floats).
 *
 * Random numbers: element i uses the i-th output of splitmix64 seeded with SEED
 * (ARGSPEC_DEFAULT_SEED when absent): r_i = mix(SEED + (i+1) * 0x9E3779B97F4A7C15),
 * a counter-based generator, so any element can be computed independently.
 *   integers random(LO,HI): uniform over [LO,HI] inclusive: LO + mulhi64(r_i, HI-LO+1)
 *   integers random / random(SEED): the low bits of r_i (full range of the type)
 *   floats random(LO,HI): LO + (HI-LO) * u, u = (r_i >> 11) * 2^-53 in [0,1),
 *            computed in double, rounded to TYPE, kept strictly below HI
 *   floats random / random(SEED): uniform in [0,1)
 * affine(A,C,M): element i = (A*i + C) mod M, with A, C, M unsigned 64-bit and
 *   A*i + C wrapping modulo 2^64; integers keep the low bits of the result (two's
 *   complement), floats get the result converted to the nearest value of the type.
 * iota: element i = i (integers wrap modulo 2^bits; floats get the nearest value).
 *
 * Size limit: COUNT * element size must not exceed argspec_max_bytes(), 4 GiB
 * unless the environment variable WARPLAB_MAX_ARG_BYTES gives another number.
 */
#ifndef WL_ARGSPEC_H
#define WL_ARGSPEC_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ARGSPEC_DEFAULT_SEED 0x5eedull
#define ARGSPEC_DEFAULT_MAX_BYTES (4ull << 30)
#define ARGSPEC_MAX_BYTES_ENV "WARPLAB_MAX_ARG_BYTES"

typedef enum {
    ARGSPEC_U8, ARGSPEC_S8, ARGSPEC_U16, ARGSPEC_S16, ARGSPEC_U32,
    ARGSPEC_S32, ARGSPEC_U64, ARGSPEC_S64, ARGSPEC_F32, ARGSPEC_F64,
    ARGSPEC_F16, ARGSPEC_BF16,
} argspec_type;

typedef enum {
    ARGSPEC_INIT_ZEROS,  /* buffer of zeros */
    ARGSPEC_INIT_CONST,  /* every element = value */
    ARGSPEC_INIT_IOTA,   /* element i = i */
    ARGSPEC_INIT_RANDOM, /* random(LO,HI[,SEED]) when has_range, else random[(SEED)] */
    ARGSPEC_INIT_AFFINE, /* (a*i + c) mod m */
} argspec_init;

/* A value of the spec's TYPE: .u for unsigned, .s for signed, .f for floats
 * (an f32, f16 or bf16 value is stored already rounded to its type). */
typedef union {
    uint64_t u;
    int64_t s;
    double f;
} argspec_value;

typedef struct {
    int is_buffer;      /* 0: scalar TYPE:VALUE, 1: buffer TYPE[COUNT]:INIT */
    argspec_type type;
    uint64_t count;     /* elements; 1 for a scalar */
    argspec_init init;  /* buffers only; a scalar is ARGSPEC_INIT_CONST */
    argspec_value value; /* scalar value, or const(V) */
    int has_range;      /* random(LO,HI[,SEED]) */
    argspec_value lo, hi;
    uint64_t seed;      /* random: ARGSPEC_DEFAULT_SEED unless given */
    uint64_t a, c, m;   /* affine */
} argspec;

/* Parses one spec. On error fills d (WL_EUSAGE, message quoting the spec and
 * naming what is wrong) and returns WL_EUSAGE; *out is then unspecified. */
wl_status argspec_parse(const char *spec, argspec *out, diag_t *d);

/* The value of one element of float type t stored (little-endian) at p, as a double (exact);
 * 0 for a type that is not a float. */
double argspec_load_float(argspec_type t, const void *p);

/* Bytes of one element of type t (1, 2, 4 or 8). */
size_t argspec_elem_size(argspec_type t);
/* COUNT * element size (never overflows once parsed). */
uint64_t argspec_bytes(const argspec *a);
/* The size limit in force: $WARPLAB_MAX_ARG_BYTES if set to a valid number, else 4 GiB. */
uint64_t argspec_max_bytes(void);

/* Writes COUNT elements (argspec_bytes(a) bytes, little-endian) to dst; for a
 * scalar, its one value. Returns WL_OK, or WL_EUSAGE for a NULL/invalid argument. */
wl_status argspec_fill(const argspec *a, void *dst, diag_t *d);

/* Helpers to describe it. */
const char *argspec_type_name(argspec_type t); /* "u8" ... "bf16" */
int argspec_type_is_float(argspec_type t);
int argspec_type_is_signed(argspec_type t);  /* s8..s64 (not floats) */
/* Canonical text of the spec, e.g. "f32[1024]:random(-1,1,7)" or "u32:42";
 * returns what snprintf returns. */
int argspec_format(const argspec *a, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
