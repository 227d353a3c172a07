/* sem: PTX integer and bit-manipulation semantics (see sem.h for the conventions). */
#include "sem.h"

#include <string.h>

__extension__ typedef unsigned __int128 sem_u128;
__extension__ typedef __int128 sem_s128;

uint64_t sem_mul_hi(uint64_t a, uint64_t b, int bits, int is_signed)
{
    if (bits <= 32) {
        /* The 2*bits product fits in 64 bits. */
        if (is_signed) {
            int64_t p = (int64_t)sem_sext(a, bits) * (int64_t)sem_sext(b, bits);
            return sem_zext((uint64_t)(p >> bits), bits);
        }
        uint64_t p = sem_zext(a, bits) * sem_zext(b, bits);
        return sem_zext(p >> bits, bits);
    }
    if (is_signed) {
        sem_s128 p = (sem_s128)(int64_t)a * (sem_s128)(int64_t)b;
        return (uint64_t)(p >> 64);
    }
    sem_u128 p = (sem_u128)a * (sem_u128)b;
    return (uint64_t)(p >> 64);
}

uint32_t sem_mul24(uint32_t a, uint32_t b, int hi, int is_signed)
{
    int64_t p;
    if (is_signed)
        p = (int64_t)sem_sext(a, 24) * (int64_t)sem_sext(b, 24);
    else
        p = (int64_t)((uint64_t)(a & 0xffffffu) * (uint64_t)(b & 0xffffffu));
    uint64_t u = (uint64_t)p & ((UINT64_C(1) << 48) - 1);
    return hi ? (uint32_t)(u >> 16) : (uint32_t)u;
}

uint64_t sem_div(uint64_t a, uint64_t b, int bits, int is_signed)
{
    if (sem_zext(b, bits) == 0)
        return sem_zext(~UINT64_C(0), bits);
    if (!is_signed)
        return sem_zext(sem_zext(a, bits) / sem_zext(b, bits), bits);
    int64_t x = (int64_t)sem_sext(a, bits), y = (int64_t)sem_sext(b, bits);
    if (y == -1) /* avoids INT_MIN / -1 overflow: the result wraps to INT_MIN */
        return sem_zext((uint64_t)0 - (uint64_t)x, bits);
    return sem_zext((uint64_t)(x / y), bits);
}

uint64_t sem_rem(uint64_t a, uint64_t b, int bits, int is_signed)
{
    if (sem_zext(b, bits) == 0)
        return sem_zext(a, bits);
    if (!is_signed)
        return sem_zext(sem_zext(a, bits) % sem_zext(b, bits), bits);
    int64_t x = (int64_t)sem_sext(a, bits), y = (int64_t)sem_sext(b, bits);
    if (y == -1)
        return 0;
    return sem_zext((uint64_t)(x % y), bits);
}

uint64_t sem_shl(uint64_t a, uint32_t n, int bits)
{
    if (n >= (uint32_t)bits)
        return 0;
    return sem_zext(a << n, bits);
}

uint64_t sem_shr(uint64_t a, uint32_t n, int bits, int is_signed)
{
    if (is_signed) {
        int64_t x = (int64_t)sem_sext(a, bits);
        if (n >= (uint32_t)bits)
            n = (uint32_t)bits - 1;
        return sem_zext((uint64_t)(x >> n), bits);
    }
    if (n >= (uint32_t)bits)
        return 0;
    return sem_zext(a, bits) >> n;
}

uint32_t sem_shf(uint32_t a, uint32_t b, uint32_t n, int left, int clamp)
{
    n = clamp ? (n > 32 ? 32 : n) : (n & 31);
    uint64_t v = ((uint64_t)b << 32) | a;
    if (left)
        return (uint32_t)((v << n) >> 32);
    return (uint32_t)(v >> n);
}

uint64_t sem_bfe(uint64_t a, uint32_t pos, uint32_t len, int bits, int is_signed)
{
    pos &= 0xff;
    len &= 0xff;
    uint32_t msb = (uint32_t)bits - 1;
    a = sem_zext(a, bits);
    uint64_t sbit = 0;
    if (is_signed && len != 0) {
        uint32_t top = pos + len - 1;
        if (top > msb)
            top = msb;
        sbit = (a >> top) & 1;
    }
    uint64_t d = 0;
    for (uint32_t i = 0; i < (uint32_t)bits; i++) {
        uint64_t bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit;
        d |= bit << i;
    }
    return d;
}

uint64_t sem_bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int bits)
{
    pos &= 0xff;
    len &= 0xff;
    uint64_t d = sem_zext(b, bits);
    for (uint32_t i = 0; i < len && pos + i < (uint32_t)bits; i++) {
        uint64_t m = UINT64_C(1) << (pos + i);
        d = (d & ~m) | (((a >> i) & 1) << (pos + i));
    }
    return d;
}

uint32_t sem_prmt(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint64_t src = ((uint64_t)b << 32) | a; /* bytes 0..7: a0..a3 b0..b3 */
    uint8_t byte[8];
    for (int i = 0; i < 8; i++)
        byte[i] = (uint8_t)(src >> (8 * i));
    uint32_t sel[4];
    uint32_t n = c & 3;
    switch (mode) {
    case SEM_PRMT_DEFAULT: {
        uint32_t d = 0;
        for (int i = 0; i < 4; i++) {
            uint32_t s = (c >> (4 * i)) & 0xf;
            uint8_t v = byte[s & 7];
            if (s & 8) /* sign-replicate the selected byte's msb */
                v = (v & 0x80) ? 0xff : 0;
            d |= (uint32_t)v << (8 * i);
        }
        return d;
    }
    case SEM_PRMT_F4E: for (int i = 0; i < 4; i++) sel[i] = (n + (uint32_t)i) & 7; break;
    case SEM_PRMT_B4E: for (int i = 0; i < 4; i++) sel[i] = (n + 8 - (uint32_t)i) & 7; break;
    case SEM_PRMT_RC8: for (int i = 0; i < 4; i++) sel[i] = n; break;
    case SEM_PRMT_ECL:
        for (int i = 0; i < 4; i++) sel[i] = (uint32_t)i < n ? n : (uint32_t)i;
        break;
    case SEM_PRMT_ECR:
        for (int i = 0; i < 4; i++) sel[i] = (uint32_t)i > n ? n : (uint32_t)i;
        break;
    case SEM_PRMT_RC16: {
        uint32_t h = (c & 1) * 2;
        sel[0] = h; sel[1] = h + 1; sel[2] = h; sel[3] = h + 1;
        break;
    }
    default: return 0;
    }
    uint32_t d = 0;
    for (int i = 0; i < 4; i++)
        d |= (uint32_t)byte[sel[i]] << (8 * i);
    return d;
}

uint64_t sem_lop3(uint64_t a, uint64_t b, uint64_t c, uint32_t lut)
{
    uint64_t r = 0;
    for (uint32_t k = 0; k < 8; k++) {
        if (!((lut >> k) & 1))
            continue;
        uint64_t t = ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
        r |= t;
    }
    return r;
}

uint32_t sem_popc(uint64_t a, int bits)
{
    return (uint32_t)__builtin_popcountll(sem_zext(a, bits));
}

uint32_t sem_clz(uint64_t a, int bits)
{
    a = sem_zext(a, bits);
    if (a == 0)
        return (uint32_t)bits;
    return (uint32_t)(__builtin_clzll(a) - (64 - bits));
}

uint64_t sem_brev(uint64_t a, int bits)
{
    uint64_t r = 0;
    for (int i = 0; i < bits; i++)
        r |= ((a >> i) & 1) << (bits - 1 - i);
    return r;
}

uint32_t sem_bfind(uint64_t a, int bits, int is_signed, int shiftamt)
{
    a = sem_zext(a, bits);
    if (is_signed && ((a >> (bits - 1)) & 1))
        a = sem_zext(~a, bits); /* the most significant bit that differs from the sign */
    if (a == 0)
        return 0xffffffffu;
    uint32_t pos = (uint32_t)(63 - __builtin_clzll(a));
    return shiftamt ? (uint32_t)bits - 1 - pos : pos;
}

int32_t sem_add_sat_s32(int32_t a, int32_t b)
{
    int64_t s = (int64_t)a + b;
    return s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
}

int32_t sem_sub_sat_s32(int32_t a, int32_t b)
{
    int64_t s = (int64_t)a - b;
    return s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
}

uint64_t sem_min(uint64_t a, uint64_t b, int is_signed)
{
    if (is_signed)
        return (int64_t)a < (int64_t)b ? a : b;
    return a < b ? a : b;
}

uint64_t sem_max(uint64_t a, uint64_t b, int is_signed)
{
    if (is_signed)
        return (int64_t)a > (int64_t)b ? a : b;
    return a > b ? a : b;
}

static const char *const cmp_names[SEM_CMP_COUNT] = {
    "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
    "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
};

int sem_cmp_parse(const char *s)
{
    for (int i = 0; i < SEM_CMP_COUNT; i++)
        if (strcmp(s, cmp_names[i]) == 0)
            return i;
    return -1;
}

int sem_icmp(int cmp, uint64_t a, uint64_t b, int is_signed)
{
    /* a, b are extended to 64 bits by the caller (sign- or zero-), so one 64-bit compare works. */
    int lt = is_signed ? (int64_t)a < (int64_t)b : a < b;
    switch (cmp) {
    case SEM_CMP_EQ: case SEM_CMP_EQU: return a == b;
    case SEM_CMP_NE: case SEM_CMP_NEU: return a != b;
    case SEM_CMP_LT: case SEM_CMP_LTU: return lt;
    case SEM_CMP_LE: case SEM_CMP_LEU: return lt || a == b;
    case SEM_CMP_GT: case SEM_CMP_GTU: return !lt && a != b;
    case SEM_CMP_GE: case SEM_CMP_GEU: return !lt;
    case SEM_CMP_LO: return a < b;
    case SEM_CMP_LS: return a <= b;
    case SEM_CMP_HI: return a > b;
    case SEM_CMP_HS: return a >= b;
    case SEM_CMP_NUM: return 1;
    default: return 0;
    }
}
