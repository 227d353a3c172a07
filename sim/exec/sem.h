/* sem: PTX integer and bit-manipulation semantics as pure functions on lane values.
 *
 * Every function computes what one lane of the PTX instruction produces (PTX ISA 9.0,
 * "Integer Arithmetic" / "Logic and Shift" instructions). Values are passed widened to 64 bits;
 * `bits` is the operand width (8, 16, 32 or 64) where the result depends on it. The execution
 * engine (exec.c) calls these for the non-trivial operations and open-codes add/and/... itself.
 *
 * Where PTX leaves a result unspecified we pick what current NVIDIA hardware returns and say so:
 * - integer division by zero: unsigned x/0 = all ones, signed x/0 = -1 (all ones), x%0 = x;
 * - signed INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0 (two's complement wrap, no trap).
 */
#ifndef WL_SEM_H
#define WL_SEM_H

#include <stdint.h>

/* Truncates v to `bits` and sign-extends (sext) or zero-extends back to 64 bits. */
static inline uint64_t sem_zext(uint64_t v, int bits)
{
    return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}
static inline uint64_t sem_sext(uint64_t v, int bits)
{
    if (bits >= 64)
        return v;
    uint64_t m = UINT64_C(1) << (bits - 1);
    v = sem_zext(v, bits);
    return (v ^ m) - m;
}

/* mul.hi of the full 2*bits product (bits 32 or 64; 16 handled via 32); signed or unsigned. */
uint64_t sem_mul_hi(uint64_t a, uint64_t b, int bits, int is_signed);
/* mul24.lo / mul24.hi: the low 24 bits of each operand (sign-extended when signed) give a 48-bit
 * product; .lo returns its bits 31..0, .hi its bits 47..16. */
uint32_t sem_mul24(uint32_t a, uint32_t b, int hi, int is_signed);
/* div and rem with the zero / overflow conventions above. a, b are already extended. */
uint64_t sem_div(uint64_t a, uint64_t b, int bits, int is_signed);
uint64_t sem_rem(uint64_t a, uint64_t b, int bits, int is_signed);
/* shl / shr with the amount taken as an unsigned 32-bit value: amounts >= bits give 0
 * (shl, shr.u) or sign fill (shr.s). */
uint64_t sem_shl(uint64_t a, uint32_t n, int bits);
uint64_t sem_shr(uint64_t a, uint32_t n, int bits, int is_signed);
/* shf.l / shf.r (funnel shift of b:a, 32-bit): wrap masks the amount to 5 bits, clamp limits it
 * to 32. */
uint32_t sem_shf(uint32_t a, uint32_t b, uint32_t n, int left, int clamp);
/* bfe: extract len = c&0xff bits at pos = b&0xff; signed fills with the field's top bit. */
uint64_t sem_bfe(uint64_t a, uint32_t pos, uint32_t len, int bits, int is_signed);
/* bfi: insert the low len bits of a into b at pos (bfi.bits d, a, b, pos, len). */
uint64_t sem_bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int bits);
/* prmt.b32 with mode: 0 default, 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16. */
enum { SEM_PRMT_DEFAULT, SEM_PRMT_F4E, SEM_PRMT_B4E, SEM_PRMT_RC8, SEM_PRMT_ECL, SEM_PRMT_ECR,
       SEM_PRMT_RC16 };
uint32_t sem_prmt(uint32_t a, uint32_t b, uint32_t c, int mode);
/* lop3.b32: bit i of the result is lut bit (a_i<<2 | b_i<<1 | c_i). */
uint64_t sem_lop3(uint64_t a, uint64_t b, uint64_t c, uint32_t lut);
uint32_t sem_popc(uint64_t a, int bits);
uint32_t sem_clz(uint64_t a, int bits);
uint64_t sem_brev(uint64_t a, int bits);
/* bfind: position of the most significant non-sign bit, 0xffffffff when none; shiftamt returns
 * bits-1-pos instead. */
uint32_t sem_bfind(uint64_t a, int bits, int is_signed, int shiftamt);
/* add.sat.s32 / sub.sat.s32: clamp to [INT32_MIN, INT32_MAX]. */
int32_t sem_add_sat_s32(int32_t a, int32_t b);
int32_t sem_sub_sat_s32(int32_t a, int32_t b);
/* min/max on extended values. */
uint64_t sem_min(uint64_t a, uint64_t b, int is_signed);
uint64_t sem_max(uint64_t a, uint64_t b, int is_signed);
/* Integer comparison for setp/set: cmp is one of the SEM_CMP_* codes below. */
enum {
    SEM_CMP_EQ, SEM_CMP_NE, SEM_CMP_LT, SEM_CMP_LE, SEM_CMP_GT, SEM_CMP_GE,
    SEM_CMP_LO, SEM_CMP_LS, SEM_CMP_HI, SEM_CMP_HS,
    SEM_CMP_EQU, SEM_CMP_NEU, SEM_CMP_LTU, SEM_CMP_LEU, SEM_CMP_GTU, SEM_CMP_GEU,
    SEM_CMP_NUM, SEM_CMP_NAN, SEM_CMP_COUNT
};
/* Parses "eq", "ltu", ...; returns -1 when unknown. */
int sem_cmp_parse(const char *s);
int sem_icmp(int cmp, uint64_t a, uint64_t b, int is_signed);

#endif
