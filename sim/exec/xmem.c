/* xmem: memory instructions of the executor: ld/st in every state space (with .v2/.v4),
 * generic addressing through the shared/local windows, atomics, cp.async and mbarrier objects.
 * Every access is bounds- and alignment-checked per lane and faults like compute-sanitizer. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec_int.h"
#include "ptx.h"
#include "sem.h"
#include "semf.h"

static const char *space_label(int s)
{
    switch (s) {
    case XS_GLOBAL: return "__global__";
    case XS_SHARED: return "__shared__";
    case XS_LOCAL: return "__local__";
    case XS_KPARAM: return "__param__";
    default: return "generic";
    }
}

static int ptx_space_of(int s)
{
    switch (s) {
    case XS_GLOBAL: return PTX_SPACE_GLOBAL;
    case XS_SHARED: return PTX_SPACE_SHARED;
    case XS_LOCAL: return PTX_SPACE_LOCAL;
    case XS_KPARAM: return PTX_SPACE_PARAM;
    default: return PTX_SPACE_NONE;
    }
}

/* The current frame's register slots of a warp. */
static uint64_t *frame_regs(xwarp *W)
{
    return XR(W->regs, W->frames[W->fp - 1].reg_off);
}

/* The address of an XO_ADDR operand for lane l (space-relative, frame bases added). */
static uint64_t lane_addr(const xwarp *W, const uint64_t *regs, const xop *o, int l)
{
    uint64_t a = (uint64_t)o->off;
    if (o->slot >= 0)
        a += xslot_get(regs, o->slot, o->nw, l);
    if (o->base != XB_NONE)
        a += W->frames[W->fp - 1].local_base;
    return a;
}

/* The space a generic address falls in (the shared and the local window, else global), with
 * *a made relative to it. */
static int generic_space(uint64_t *a)
{
    if (*a - EXEC_SHARED_WINDOW < EXEC_WINDOW_SIZE) {
        *a -= EXEC_SHARED_WINDOW;
        return XS_SHARED;
    }
    if (*a - EXEC_LOCAL_WINDOW < EXEC_WINDOW_SIZE) {
        *a -= EXEC_LOCAL_WINDOW;
        return XS_LOCAL;
    }
    return XS_GLOBAL;
}

/* Translates lane l's access of size bytes; resolves generic addresses (*space is updated to the
 * space really accessed, *addr to the space-relative address). NULL + fault diag on error. */
static uint8_t *xlate(exec_block *b, int warp, int l, const xinsn *in, int *space, uint64_t *addr,
                      uint32_t size, int write, diag_t *d, wl_status *st)
{
    const exec_prog *p = b->p;
    xwarp *W = &b->w[warp];
    uint64_t a = *addr;
    if (*space == XS_GENERIC) {
        *space = generic_space(&a);
        *addr = a;
    }
    const char *what = write ? "write" : "read";
    if (size > 1 && (a & (size - 1)) != 0) {
        *st = exec_fail(b, warp, l, in, WL_EFAULT, d,
                        "invalid %s %s of size %u bytes: address 0x%llx is misaligned",
                        space_label(*space), what, size, (unsigned long long)a);
        return NULL;
    }
    uint8_t *h = NULL;
    switch (*space) {
    case XS_GLOBAL:
        h = devmem_translate(p->mem, a, size);
        if (!h) {
            char desc[300];
            devmem_describe(p->mem, a, desc, sizeof desc);
            *st = exec_fail(b, warp, l, in, WL_EFAULT, d,
                            "invalid __global__ %s of size %u bytes: address 0x%llx is out of "
                            "bounds (%s)", what, size, (unsigned long long)a, desc);
            return NULL;
        }
        return h;
    case XS_SHARED:
        if (a < p->smem_bytes && size <= p->smem_bytes - a)
            return b->smem + a;
        *st = exec_fail(b, warp, l, in, WL_EFAULT, d,
                        "invalid __shared__ %s of size %u bytes: offset 0x%llx is out of bounds "
                        "(the block has %u bytes of shared memory)", what, size,
                        (unsigned long long)a, p->smem_bytes);
        return NULL;
    case XS_LOCAL:
        if (a < p->local_bytes && size <= p->local_bytes - a)
            return W->local + (size_t)l * p->local_bytes + a;
        *st = exec_fail(b, warp, l, in, WL_EFAULT, d,
                        "invalid __local__ %s of size %u bytes: offset 0x%llx is out of bounds "
                        "(each thread has %u bytes of local memory)", what, size,
                        (unsigned long long)a, p->local_bytes);
        return NULL;
    case XS_KPARAM:
        if (!write && a < p->params_size && size <= p->params_size - a)
            return p->params + a;
        *st = exec_fail(b, warp, l, in, WL_EFAULT, d,
                        "invalid kernel-parameter %s of size %u bytes at offset 0x%llx "
                        "(%u bytes of parameters)", what, size, (unsigned long long)a,
                        p->params_size);
        return NULL;
    default:
        *st = exec_fail(b, warp, l, in, WL_EUNSUPPORTED, d,
                        "unsupported by the executor: state space of '%s'",
                        isa_name(in->ir->op));
        return NULL;
    }
}

/* Lane l's access of size bytes at *addr when it is in bounds of one space (generic resolved as
 * xlate does; *space and *addr updated likewise), else NULL without a fault: the caller then
 * translates element by element (xlate) and reports the fault there. Alignment is the caller's. */
static uint8_t *span(exec_block *b, int warp, int l, int *space, uint64_t *addr, uint64_t size,
                     int write)
{
    const exec_prog *p = b->p;
    uint64_t a = *addr;
    if (*space == XS_GENERIC) {
        *space = generic_space(&a);
        if (*space == XS_GLOBAL &&
            !(a + size <= EXEC_SHARED_WINDOW || a >= EXEC_LOCAL_WINDOW + EXEC_WINDOW_SIZE))
            return NULL; /* a global span that runs into a window */
        *addr = a;
    }
    switch (*space) {
    case XS_GLOBAL: return devmem_translate(p->mem, a, size);
    case XS_SHARED: return a < p->smem_bytes && size <= p->smem_bytes - a ? b->smem + a : NULL;
    case XS_LOCAL:
        return a < p->local_bytes && size <= p->local_bytes - a
                   ? b->w[warp].local + (size_t)l * p->local_bytes + a
                   : NULL;
    case XS_KPARAM: return !write && a < p->params_size && size <= p->params_size - a
                               ? p->params + a : NULL;
    default: return NULL;
    }
}

static uint64_t load_le(const uint8_t *h, uint32_t n)
{
    uint64_t v = 0;
    memcpy(&v, h, n); /* little-endian host */
    return v;
}

static void note(exec_step_info *out, int l, uint64_t a, int space, uint32_t size)
{
    if (!out)
        return;
    out->addr[l] = a;
    out->mem_space = (uint8_t)ptx_space_of(space);
    out->mem_size = size;
}

/* Moves nv elements of esz bytes between lane l's registers and host memory h. */
static inline void lane_move(uint64_t *regs, const xop *v, int l, uint8_t *h, uint32_t esz,
                             uint32_t nv, int store, int sgn)
{
    for (uint32_t e = 0; e < nv; e++) {
        int32_t slot = v->kind == XO_VEC ? v->vec[e] : v->slot;
        int bits = v->kind == XO_VEC ? v->vbits[e] : v->bits;
        int nw = v->kind == XO_VEC ? v->vnw[e] : v->nw;
        if (slot < 0)
            continue;
        if (store) {
            uint64_t x = xslot_get(regs, slot, nw, l);
            memcpy(h + e * esz, &x, esz);
        } else {
            uint64_t x = load_le(h + e * esz, esz);
            if (sgn)
                x = sem_sext(x, (int)esz * 8);
            xslot_put(regs, slot, nw, l, bits >= 64 ? x : x & ((UINT64_C(1) << bits) - 1));
        }
    }
}

/* Whole-warp forms of ldst_fast's data move, for one element of esz 4 or 8 bytes (2 with a
 * narrow register) into a register at least as wide, when lane l's address is a0 + l * step for all 32 lanes (modulo
 * 2^64): consecutive lanes at consecutive addresses (step == esz: the coalesced access of nearly
 * every kernel) move one block of 32 * esz bytes when all lanes run; a load where every lane
 * reads the same address (step 0: kernel parameters, broadcast values) reads it once; any
 * other stride (a column of a tile) moves lane by lane without per-lane address work. */
enum { XW_NONE = 0, XW_CONSEC, XW_UNIFORM, XW_STRIDED };

static int form_of(uint64_t step, uint32_t esz, int store)
{
    if (step == esz)
        return XW_CONSEC;
    if (step == 0)
        return store ? XW_NONE : XW_UNIFORM; /* lanes storing to one word: the lane order */
    return XW_STRIDED;
}

/* Lane l's address is base + R[l]: a whole-warp form when R[l] - R[0] == l * (R[1] - R[0])
 * for every l (modulo 2^64, as the addresses are); *step = R[1] - R[0]. Two lanes per step (GCC/
 * Clang vector extension: one SSE2 operation), no early exit. */
typedef uint64_t xv2 __attribute__((vector_size(16)));
typedef uint32_t xv4 __attribute__((vector_size(16)));

static int warp_form(const uint64_t *R, uint32_t esz, int store, uint64_t *step)
{
    *step = 0;
    if (!R)
        return form_of(0, esz, store);
    uint64_t d = R[1] - R[0];
    xv2 r0 = {R[0], R[0]}, at = {0, d}, inc = {2u * d, 2u * d}, dc = {0, 0};
    for (int l = 0; l < 32; l += 2) {
        xv2 r;
        memcpy(&r, R + l, sizeof r);
        dc |= (r - r0) ^ at;
        at += inc;
    }
    if ((dc[0] | dc[1]) != 0)
        return XW_NONE;
    *step = d;
    return form_of(d, esz, store);
}

/* warp_form for a narrow address register (32 lanes of 32 bits, zero-extended as addresses):
 * affine in 32-bit arithmetic, which is exact when no lane's address wraps past 2^32 (the
 * stride taken as signed). Four lanes per SSE2 operation. */
static int warp_form32(const uint32_t *R, uint32_t esz, int store, uint64_t *step)
{
    uint32_t d = R[1] - R[0];
    xv4 r0 = {R[0], R[0], R[0], R[0]}, at = {0, d, 2u * d, 3u * d};
    xv4 inc = {4u * d, 4u * d, 4u * d, 4u * d}, dc = {0, 0, 0, 0};
    for (int l = 0; l < 32; l += 4) {
        xv4 r;
        memcpy(&r, R + l, sizeof r);
        dc |= (r - r0) ^ at;
        at += inc;
    }
    *step = 0;
    int64_t last = (int64_t)R[0] + 31 * (int64_t)(int32_t)d;
    if ((dc[0] | dc[1] | dc[2] | dc[3]) != 0 || last < 0 || last > (int64_t)UINT32_MAX)
        return XW_NONE;
    *step = (uint64_t)(int64_t)(int32_t)d;
    return form_of(*step, esz, store);
}

/* Lane l's host address in a whole-warp form: h is lane 0's. */
static inline uint8_t *lane_at(uint8_t *h, uint64_t step, int l)
{
    return h + (ptrdiff_t)((uint64_t)l * step);
}

/* Value x into the lanes of m of D (all 32: one loop the compiler vectorises). */
#define SET_LANES(D, x, m)                                                                     \
    do {                                                                                       \
        const uint64_t x_ = (x);                                                               \
        if ((m) == XFULL)                                                                      \
            for (int l_ = 0; l_ < 32; l_++)                                                    \
                (D)[l_] = x_;                                                                  \
        else                                                                                   \
            for (uint32_t m_ = (m); m_; m_ &= m_ - 1)                                          \
                (D)[__builtin_ctz(m_)] = x_;                                                   \
    } while (0)

/* Moves the lanes of m (all 32 or some) in one of the whole-warp forms; h is lane 0's address. */
static void warp_move(uint64_t *D, uint8_t *h, uint32_t esz, int form, uint64_t step, int store,
                      uint32_t m)
{
    if (form == XW_UNIFORM) { /* a load */
        SET_LANES(D, load_le(h, esz), m);
    } else if (m != XFULL || form == XW_STRIDED) {
        /* lanes that do not execute touch neither memory nor registers */
        for (; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            uint8_t *hl = lane_at(h, step, l);
            if (store)
                memcpy(hl, &D[l], esz); /* little-endian host: the low esz bytes */
            else
                D[l] = load_le(hl, esz);
        }
    } else if (esz == 8) {
        if (store)
            memcpy(h, D, 32 * 8);
        else
            memcpy(D, h, 32 * 8);
    } else if (store) {
        uint32_t t[32];
        for (int l = 0; l < 32; l++)
            t[l] = (uint32_t)D[l];
        memcpy(h, t, sizeof t);
    } else {
        uint32_t t[32];
        memcpy(t, h, sizeof t);
        for (int l = 0; l < 32; l++)
            D[l] = t[l];
    }
}

/* warp_move for a narrow register (esz 4: ldst_fast picks a form for a narrow register only
 * then): a consecutive access of all lanes is one 128-byte copy. */
static void warp_move32(uint32_t *D, uint8_t *h, int form, uint64_t step, int store, uint32_t m)
{
    if (form == XW_UNIFORM) { /* a load */
        uint32_t x;
        memcpy(&x, h, 4);
        SET_LANES(D, x, m);
    } else if (m != XFULL || form == XW_STRIDED) {
        for (; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            uint8_t *hl = lane_at(h, step, l);
            if (store)
                memcpy(hl, &D[l], 4);
            else
                memcpy(&D[l], hl, 4);
        }
    } else if (store) {
        memcpy(h, D, 32 * 4);
    } else {
        memcpy(D, h, 32 * 4);
    }
}

/* warp_move32 for 2-byte elements and a narrow register (ldst_fast: f16 and 16-bit integer
 * moves of half-precision kernels): a store writes each lane's low 16 bits, a load zero-extends
 * them, as the lane-by-lane loop does; a consecutive access of all lanes is one 64-byte copy. */
static void warp_move16(uint32_t *D, uint8_t *h, int form, uint64_t step, int store, uint32_t m)
{
    if (form == XW_UNIFORM) { /* a load */
        uint16_t x;
        memcpy(&x, h, 2);
        SET_LANES(D, x, m);
    } else if (m != XFULL || form == XW_STRIDED) {
        for (; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            uint8_t *hl = lane_at(h, step, l);
            uint16_t x = (uint16_t)D[l];
            if (store)
                memcpy(hl, &x, 2);
            else {
                memcpy(&x, hl, 2);
                D[l] = x;
            }
        }
    } else {
        uint16_t t[32];
        if (store) {
            for (int l = 0; l < 32; l++)
                t[l] = (uint16_t)D[l];
            memcpy(h, t, sizeof t);
        } else {
            memcpy(t, h, sizeof t);
            for (int l = 0; l < 32; l++)
                D[l] = t[l];
        }
    }
}

/* Lanes 0-15 at consecutive words from ad[0], lanes 16-31 from ad[16]. */
static int halves(const uint64_t *ad)
{
    int ok = 1;
    for (int l = 1; l < 16; l++)
        ok &= (ad[l] == ad[0] + 4u * (uint64_t)l) & (ad[16 + l] == ad[16] + 4u * (uint64_t)l);
    return ok;
}

/* Fast path: when every active lane's access lies in one allocation / window and is aligned,
 * translate once for the warp. Returns 0 when the per-lane path must decide (and report). */
static int ldst_fast(exec_block *b, int warp, const xinsn *in, uint32_t m, uint64_t *regs,
                     const xop *a, const xop *v, uint32_t esz, uint32_t nv, int store, int sgn,
                     exec_step_info *out)
{
    const exec_prog *p = b->p;
    xwarp *W = &b->w[warp];
    uint64_t ad[32], lo = UINT64_MAX, hi = 0, orr = 0, a0 = 0, step = 0;
    uint32_t size = esz * nv;
    uint64_t base = (uint64_t)a->off + (a->base != XB_NONE ? W->frames[W->fp - 1].local_base : 0);
    /* the address register: wide (R) or narrow (N), or none */
    const uint64_t *R = a->slot >= 0 && !a->nw ? XR(regs, a->slot) : NULL;
    const uint32_t *N = a->slot >= 0 && a->nw ? XNC(regs, a->slot) : NULL;
    int form = XW_NONE;
    /* with some lanes idle, the form is still tested on all 32 (their registers hold values
     * too): a stricter test (the whole span must be mapped) than the lanes need */
    if (nv == 1 && v->kind == XO_SLOT && v->slot >= 0 && !sgn &&
        ((esz == 4 && v->bits >= 32) || (esz == 8 && v->bits >= 64 && !v->nw) ||
         (esz == 2 && v->bits >= 16 && v->nw)))
        form = N ? warp_form32(N, esz, store, &step) : warp_form(R, esz, store, &step);
    if (form != XW_NONE) { /* lanes at a0 + l * step: the ends are lanes 0 and 31 */
        a0 = base + (R ? R[0] : N ? N[0] : 0);
        uint64_t a31 = a0 + 31u * step;
        int down = (int64_t)step < 0;
        lo = down ? a31 : a0;
        hi = down ? a0 : a31;
        orr = a0 | step; /* every lane aligned when lane 0 and the stride are */
    } else if (m == XFULL) { /* (one loop per register width, no lane test: vectorised) */
        if (R)
            for (int l = 0; l < 32; l++)
                ad[l] = base + R[l];
        else if (N)
            for (int l = 0; l < 32; l++)
                ad[l] = base + N[l];
        else
            for (int l = 0; l < 32; l++)
                ad[l] = base;
        for (int l = 0; l < 32; l++) {
            lo = ad[l] < lo ? ad[l] : lo;
            hi = ad[l] > hi ? ad[l] : hi;
            orr |= ad[l];
        }
    } else {
        for (int l = 0; l < 32; l++) {
            ad[l] = base + (R ? R[l] : N ? N[l] : 0);
            if ((m >> l) & 1) {
                lo = ad[l] < lo ? ad[l] : lo;
                hi = ad[l] > hi ? ad[l] : hi;
                orr |= ad[l];
            }
        }
    }
    if (size > 1 && (orr & (size - 1)) != 0)
        return 0;
    int space = in->space;
    uint64_t shift = 0;
    if (space == XS_GENERIC) {
        if (lo - EXEC_SHARED_WINDOW < EXEC_WINDOW_SIZE && hi - EXEC_SHARED_WINDOW < EXEC_WINDOW_SIZE) {
            space = XS_SHARED;
            shift = EXEC_SHARED_WINDOW;
        } else if (lo - EXEC_LOCAL_WINDOW < EXEC_WINDOW_SIZE &&
                   hi - EXEC_LOCAL_WINDOW < EXEC_WINDOW_SIZE) {
            space = XS_LOCAL;
            shift = EXEC_LOCAL_WINDOW;
        } else if (hi < EXEC_SHARED_WINDOW || lo >= EXEC_LOCAL_WINDOW + EXEC_WINDOW_SIZE) {
            space = XS_GLOBAL;
        } else {
            return 0;
        }
        lo -= shift;
        hi -= shift;
        a0 -= shift;
    }
    if (hi - lo > (UINT64_C(1) << 40))
        return 0;
    uint8_t *h0;
    size_t stride = 0; /* per-lane host offset (local memory) */
    switch (space) {
    case XS_GLOBAL:
        h0 = devmem_translate(p->mem, lo, hi - lo + size);
        break;
    case XS_SHARED:
        h0 = hi < p->smem_bytes && size <= p->smem_bytes - hi ? b->smem + lo : NULL;
        break;
    case XS_LOCAL:
        h0 = hi < p->local_bytes && size <= p->local_bytes - hi ? W->local + lo : NULL;
        stride = p->local_bytes;
        break;
    case XS_KPARAM:
        h0 = !store && hi < p->params_size && size <= p->params_size - hi ? p->params + lo : NULL;
        break;
    default: return 0;
    }
    if (!h0)
        return 0;
    if (out) {
        out->mem_space = (uint8_t)ptx_space_of(space);
        out->mem_size = size;
    }
    if (form != XW_NONE && stride == 0) { /* local memory is per lane: not one host block */
        uint8_t *h = h0 + (a0 - lo); /* lane 0's */
        if (v->nw && esz == 2)
            warp_move16(XN(regs, v->slot), h, form, step, store, m);
        else if (v->nw)
            warp_move32(XN(regs, v->slot), h, form, step, store, m);
        else
            warp_move(XR(regs, v->slot), h, esz, form, step, store, m);
        if (out) { /* the lanes' addresses as a line (addr[] unwritten: exec_step_addr) */
            out->addr_linear = 1;
            out->addr_base = a0;
            out->addr_step = step;
        }
        return 1;
    }
    if (form != XW_NONE)
        for (int l = 0; l < 32; l++)
            ad[l] = base + (R ? R[l] : N ? N[l] : 0);
    if (nv == 1 && esz <= 4 && v->kind == XO_SLOT && v->slot >= 0 && v->bits >= 8 * esz &&
        !sgn) { /* one element into a register at least as wide, zero-extended */
        /* one loop per direction, element size and register width (the lanes in m in
         * ascending order, as the general loop below: of two lanes storing to one place the
         * higher's value stays); a store moves the register's low bytes (little-endian) */
#define LDST_LANES(BODY)                                                                   \
    for (uint32_t mm_ = m; mm_; mm_ &= mm_ - 1) {                                          \
        int l = __builtin_ctz(mm_);                                                        \
        uint8_t *h = h0 + (ad[l] - shift - lo) + stride * (size_t)l;                        \
        BODY;                                                                              \
    }
#define LDST_SIZES(LANE)                                                                   \
    switch (esz) {                                                                         \
    case 4: LANE(4); break;                                                                \
    case 2: LANE(2); break;                                                                \
    default: LANE(1); break;                                                               \
    }
        if (m == XFULL && v->nw && esz == 4 && stride == 0 && halves(ad)) {
            /* two half-warps over consecutive words each (a tile 16 wide): two 64-byte
             * copies; where the halves overlap, the second (the higher lanes) is written
             * last, as in the lane loop */
            uint8_t *ha = h0 + (ad[0] - shift - lo), *hb = h0 + (ad[16] - shift - lo);
            uint32_t *r = XN(regs, v->slot);
            if (store) {
                memcpy(ha, r, 64);
                memcpy(hb, r + 16, 64);
            } else {
                memcpy(r, ha, 64);
                memcpy(r + 16, hb, 64);
            }
        } else if (store && v->nw) {
            const uint32_t *src = XNC(regs, v->slot);
#define ST_N(n) LDST_LANES(memcpy(h, &src[l], n))
            LDST_SIZES(ST_N)
        } else if (store) {
            const uint64_t *src = XR(regs, v->slot);
#define ST_W(n) LDST_LANES(memcpy(h, &src[l], n))
            LDST_SIZES(ST_W)
        } else if (v->nw) {
            uint32_t *dst = XN(regs, v->slot);
#define LD_N(n) LDST_LANES(uint32_t x_ = 0; memcpy(&x_, h, n); dst[l] = x_)
            LDST_SIZES(LD_N)
        } else {
            uint64_t *dst = XR(regs, v->slot);
#define LD_W(n) LDST_LANES(uint32_t x_ = 0; memcpy(&x_, h, n); dst[l] = x_)
            LDST_SIZES(LD_W)
        }
#undef ST_N
#undef ST_W
#undef LD_N
#undef LD_W
#undef LDST_SIZES
#undef LDST_LANES
        if (out && m == XFULL)
            for (int l = 0; l < 32; l++)
                out->addr[l] = ad[l] - shift;
        else if (out)
            for (uint32_t mm = m; mm; mm &= mm - 1) {
                int l = __builtin_ctz(mm);
                out->addr[l] = ad[l] - shift;
            }
        return 1;
    }
    for (int l = 0; l < 32; l++) {
        if (!((m >> l) & 1))
            continue;
        lane_move(regs, v, l, h0 + (ad[l] - shift - lo) + stride * (size_t)l, esz, nv, store,
                  sgn);
        if (out)
            out->addr[l] = ad[l] - shift;
    }
    return 1;
}

static wl_status do_ldst(exec_block *b, int warp, const xinsn *in, uint32_t m,
                         exec_step_info *out, diag_t *d)
{
    xwarp *W = &b->w[warp];
    uint64_t *regs = frame_regs(W);
    int ai;
    const xop *a = xaddr_opnd(in, &ai);
    int store = in->op == PTX_OP_ST;
    if (!a || ai + 1 >= in->nops + (store ? 0 : 1))
        return exec_fail(b, warp, -1, in, WL_EUNSUPPORTED, d, "memory operand missing");
    const xop *v = store ? &in->o[ai + 1] : &in->o[0];
    uint32_t esz = in->w0 / 8, nv = in->vec;
    if (in->w0 == 128 || esz == 0)
        return exec_fail(b, warp, -1, in, WL_EUNSUPPORTED, d,
                         "unsupported by the executor: %u-bit memory access", in->w0);
    int sgn = in->k0 == XK_S;
    if (out) {
        out->mem_load = (uint8_t)!store;
        out->mem_store = (uint8_t)store;
    }
    if (ldst_fast(b, warp, in, m, regs, a, v, esz, nv, store, sgn, out))
        return WL_OK;
    wl_status st = WL_OK;
    for (int l = 0; l < 32; l++) {
        if (!((m >> l) & 1))
            continue;
        int space = in->space;
        uint64_t addr = lane_addr(W, regs, a, l);
        uint8_t *h = xlate(b, warp, l, in, &space, &addr, esz * nv, store, d, &st);
        if (!h)
            return st;
        note(out, l, addr, space, esz * nv);
        lane_move(regs, v, l, h, esz, nv, store, sgn);
    }
    return WL_OK;
}

static uint64_t atom_apply(const xinsn *in, uint64_t old, uint64_t bv, uint64_t cv, int w)
{
    int s = in->k0 == XK_S;
    uint64_t mask = w >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
    old &= mask;
    bv &= mask;
    switch (in->aop) {
    case PTX_AOP_ADD:
        if (in->k0 == XK_F && w == 32) /* atom.add.f32: round to nearest, subnormals flushed */
            return semf_bits32(semf_ftz(semf_ftz(semf_f32((uint32_t)old)) +
                                        semf_ftz(semf_f32((uint32_t)bv))));
        if (in->k0 == XK_F)
            return semf_bits64(semf_f64(old) + semf_f64(bv));
        return (old + bv) & mask;
    case PTX_AOP_INC: return old >= bv ? 0 : old + 1;
    case PTX_AOP_DEC: return (old == 0 || old > bv) ? bv : old - 1;
    case PTX_AOP_MIN:
        if (in->k0 == XK_F)
            return w == 32 ? semf_bits32((float)semf_min(semf_f32((uint32_t)old),
                                                         semf_f32((uint32_t)bv), 0))
                           : semf_bits64(semf_min(semf_f64(old), semf_f64(bv), 0));
        return sem_min(s ? sem_sext(old, w) : old, s ? sem_sext(bv, w) : bv, s) & mask;
    case PTX_AOP_MAX:
        if (in->k0 == XK_F)
            return w == 32 ? semf_bits32((float)semf_max(semf_f32((uint32_t)old),
                                                         semf_f32((uint32_t)bv), 0))
                           : semf_bits64(semf_max(semf_f64(old), semf_f64(bv), 0));
        return sem_max(s ? sem_sext(old, w) : old, s ? sem_sext(bv, w) : bv, s) & mask;
    case PTX_AOP_EXCH: return bv;
    case PTX_AOP_CAS: return old == bv ? (cv & mask) : old;
    case PTX_AOP_AND: return old & bv;
    case PTX_AOP_OR: return old | bv;
    case PTX_AOP_XOR: return old ^ bv;
    default: return old;
    }
}

static wl_status do_atom(exec_block *b, int warp, const xinsn *in, uint32_t m,
                         exec_step_info *out, diag_t *d)
{
    xwarp *W = &b->w[warp];
    uint64_t *regs = frame_regs(W);
    int ai;
    const xop *a = xaddr_opnd(in, &ai);
    int red = in->op == PTX_OP_RED;
    if (!a || ai + 1 >= in->nops || (in->aop == PTX_AOP_CAS && ai + 2 >= in->nops))
        return exec_fail(b, warp, -1, in, WL_EUNSUPPORTED, d, "atomic operand missing");
    const xop *dst = red ? NULL : &in->o[0];
    uint64_t tb[32], tc[32];
    const uint64_t *B = XSRC(&in->o[ai + 1], regs, tb);
    const uint64_t *C = in->aop == PTX_AOP_CAS ? XSRC(&in->o[ai + 2], regs, tc) : NULL;
    int w = in->w0;
    uint32_t size = (uint32_t)w / 8;
    if ((w != 32 && w != 64) || in->aop == PTX_AOP_NONE || in->vec > 1 ||
        (in->k0 != XK_U && in->k0 != XK_S && in->k0 != XK_B && in->k0 != XK_F))
        return exec_fail(b, warp, -1, in, WL_EUNSUPPORTED, d,
                         "unsupported by the executor: this form of '%s'", isa_name(in->ir->op));
    if (out)
        out->mem_atomic = 1;
    wl_status st = WL_OK;
    /* Lanes apply their operations one after another in lane order (deterministic). */
    for (int l = 0; l < 32; l++) {
        if (!((m >> l) & 1))
            continue;
        int space = in->space;
        uint64_t addr = lane_addr(W, regs, a, l);
        uint8_t *h = xlate(b, warp, l, in, &space, &addr, size, 1, d, &st);
        if (!h)
            return st;
        note(out, l, addr, space, size);
        uint64_t old = load_le(h, size);
        uint64_t nv = atom_apply(in, old, B[l], C ? C[l] : 0, w);
        memcpy(h, &nv, size);
        if (dst && dst->slot >= 0)
            xslot_put(regs, dst->slot, dst->nw, l,
                      old & (dst->bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << dst->bits) - 1));
    }
    return WL_OK;
}

/* mbarrier object (8 bytes of shared memory): bits 0-19 pending arrivals, 20-39 expected
 * arrivals per phase, bit 63 the current phase parity. The state token returned by arrive holds
 * the phase parity at arrival in bit 63. Transaction counts (expect_tx) are not modelled. */
#define MB_CNT(v) ((v) & 0xfffffu)
#define MB_EXP(v) (((v) >> 20) & 0xfffffu)
#define MB_PHASE(v) ((v) >> 63)

static uint64_t mb_make(uint64_t pending, uint64_t expected, uint64_t phase)
{
    return (pending & 0xfffff) | ((expected & 0xfffff) << 20) | (phase << 63);
}

static uint64_t mb_arrive(uint8_t *h, uint32_t count, int drop)
{
    uint64_t v = load_le(h, 8);
    uint64_t tok = MB_PHASE(v) << 63;
    uint64_t pend = MB_CNT(v), exp = MB_EXP(v), ph = MB_PHASE(v);
    if (drop && exp > 0)
        exp--;
    pend = pend > count ? pend - count : 0;
    if (pend == 0) {
        ph ^= 1;
        pend = exp;
    }
    v = mb_make(pend, exp, ph);
    memcpy(h, &v, 8);
    return tok;
}

static wl_status do_mbar(exec_block *b, int warp, const xinsn *in, uint32_t m,
                         exec_step_info *out, diag_t *d)
{
    xwarp *W = &b->w[warp];
    uint64_t *regs = frame_regs(W);
    if (in->op == PTX_OP_MBAR_PENDING_COUNT) {
        for (int l = 0; l < 32; l++)
            if ((m >> l) & 1)
                xslot_put(regs, in->o[0].slot, in->o[0].nw, l, MB_CNT(xget(&in->o[1], regs, l)));
        return WL_OK;
    }
    int ai;
    const xop *a = xaddr_opnd(in, &ai);
    if (!a)
        return exec_fail(b, warp, -1, in, WL_EUNSUPPORTED, d, "mbarrier without an address");
    wl_status st = WL_OK;
    int failed = 0;
    for (int l = 0; l < 32; l++) {
        if (!((m >> l) & 1))
            continue;
        int space = in->space;
        uint64_t addr = lane_addr(W, regs, a, l);
        uint8_t *h = xlate(b, warp, l, in, &space, &addr, 8, 1, d, &st);
        if (!h)
            return st;
        note(out, l, addr, space, 8);
        switch (in->op) {
        case PTX_OP_MBAR_INIT: {
            uint64_t c = xget(&in->o[ai + 1], regs, l);
            uint64_t v = mb_make(c, c, 0);
            memcpy(h, &v, 8);
            break;
        }
        case PTX_OP_MBAR_INVAL: memset(h, 0, 8); break;
        case PTX_OP_MBAR_ARRIVE: case PTX_OP_MBAR_ARRIVE_DROP: {
            uint32_t c = in->nops > ai + 1 ? (uint32_t)xget(&in->o[ai + 1], regs, l) : 1;
            uint64_t tok = mb_arrive(h, c, in->op == PTX_OP_MBAR_ARRIVE_DROP);
            if (ai > 0 && in->o[0].kind == XO_SLOT && in->o[0].slot >= 0)
                xslot_put(regs, in->o[0].slot, in->o[0].nw, l, tok);
            break;
        }
        case PTX_OP_CP_ASYNC_MBAR_ARRIVE:
            /* copies are complete at once: without .noinc the pending count is raised and
             * then lowered again (no net effect); with .noinc it is one arrival */
            if (in->flags & PTX_F_NOINC)
                mb_arrive(h, 1, 0);
            break;
        case PTX_OP_MBAR_TEST_WAIT: case PTX_OP_MBAR_TRY_WAIT: {
            uint64_t v = load_le(h, 8);
            uint64_t arg = xget(&in->o[ai + 1], regs, l);
            uint64_t want = in->mode == PTX_MBAR_PARITY ? (arg & 1) : MB_PHASE(arg);
            int done = MB_PHASE(v) != want;
            xslot_put(regs, in->o[0].slot, in->o[0].nw, l, (uint64_t)done);
            failed |= !done;
            break;
        }
        default: break; /* expect_tx / complete_tx: transaction counts not modelled */
        }
    }
    if (failed) { /* let the other warps run: the phase completes only through them */
        W->yield = 1;
        if (out)
            out->yielded = 1;
    }
    return WL_OK;
}

static wl_status do_cp_async(exec_block *b, int warp, const xinsn *in, uint32_t m,
                             exec_step_info *out, diag_t *d)
{
    xwarp *W = &b->w[warp];
    uint64_t *regs = frame_regs(W);
    const xop *da = &in->o[0], *sa = &in->o[1];
    if (da->kind != XO_ADDR || sa->kind != XO_ADDR || in->nops < 3)
        return exec_fail(b, warp, -1, in, WL_EUNSUPPORTED, d, "unsupported form of cp.async");
    wl_status st = WL_OK;
    if (out)
        out->mem_load = out->mem_store = 1;
    for (int l = 0; l < 32; l++) {
        if (!((m >> l) & 1))
            continue;
        uint32_t n = (uint32_t)xget(&in->o[2], regs, l);
        uint32_t srcn = in->nops > 3 ? (uint32_t)xget(&in->o[3], regs, l) : n;
        if (n != 4 && n != 8 && n != 16)
            return exec_fail(b, warp, l, in, WL_EFAULT, d, "cp.async size %u is not 4, 8 or 16",
                             n);
        if (srcn > n)
            srcn = n;
        int ds = XS_SHARED, ss = XS_GLOBAL;
        uint64_t dad = lane_addr(W, regs, da, l), sad = lane_addr(W, regs, sa, l);
        uint8_t *dh = xlate(b, warp, l, in, &ds, &dad, n, 1, d, &st);
        if (!dh)
            return st;
        uint8_t *sh = srcn ? xlate(b, warp, l, in, &ss, &sad, srcn, 0, d, &st) : dh;
        if (!sh)
            return st;
        note(out, l, dad, ds, n);
        memmove(dh, sh, srcn);
        memset(dh + srcn, 0, n - srcn);
    }
    return WL_OK;
}

/* do_wmma's usual case, as CUDA's wmma::load_matrix_sync and store_matrix_sync issue it: every
 * lane has the same matrix address and the same stride, the address is aligned, and the whole
 * 16 x 16 tile (its first element to its last, the gaps between rows included) lies in bounds of
 * one space other than local (whose lanes each have their own memory). Then the tile is
 * translated once, and lane l's element i is at the lane's first element plus an offset that
 * depends on i only (xwmma_coord: row and column are the lane's first plus a step of i). The
 * same results as do_wmma's general loop (loads register by register, which leaves the same
 * values; stores lane by lane, in its order). 0 (nothing done): not this case; the general
 * loop then does it, faults included. */
static int wmma_tile(exec_block *b, int warp, const xinsn *in, uint64_t *regs, const xop *a,
                     int f0, int si, int nregs, uint32_t esz, exec_step_info *out,
                     uint64_t *ld0)
{
    const xwarp *W = &b->w[warp];
    int load = in->op == PTX_OP_WMMA_LOAD, frag = in->ir->mode & PTX_WMMA_FRAG;
    int col = (in->ir->mode & PTX_WMMA_COL) != 0, bfrag = frag == PTX_WMMA_B;
    uint64_t ld = si < in->nops ? (uint32_t)xget(&in->o[si], regs, 0) : 16;
    uint64_t base = lane_addr(W, regs, a, 0);
    for (int l = 1; l < 32; l++)
        if ((si < in->nops && (uint32_t)xget(&in->o[si], regs, l) != ld) ||
            lane_addr(W, regs, a, l) != base)
            return 0;
    if (base & (esz - 1))
        return 0;
    int space = in->space;
    uint64_t addr = base, size = (15 * ld + 16) * esz;
    uint8_t *h = span(b, warp, 0, &space, &addr, size, !load);
    if (!h || space == XS_LOCAL)
        return 0;
    /* matrix position (r, c) at (row-major) r ld + c or (column-major) c ld + r elements */
    uint64_t rs = col ? esz : ld * esz, cs = col ? ld * esz : esz;
    uint64_t lane0[32], step[8];
    for (int l = 0; l < 32; l++) {
        int r, c;
        xwmma_coord(bfrag, l, 0, &r, &c);
        lane0[l] = (uint64_t)r * rs + (uint64_t)c * cs;
    }
    for (int i = 0; i < 8; i++) {
        int r, c;
        xwmma_coord(bfrag, 0, i, &r, &c); /* lane 0's first element is (0, 0) */
        step[i] = (uint64_t)r * rs + (uint64_t)c * cs;
    }
    for (int l = 0; l < 32; l++)
        note(out, l, addr + lane0[l], space, esz);
    if (load) {
        /* register by register (the same values as lane by lane: reading memory changes
         * nothing, and a slot named twice ends with its last register's either way) */
        uint32_t xs[4][32]; /* 16-bit elements: registers 4-7 hold what 0-3 hold */
        for (int j = 0; j < nregs; j++) {
            const xop *v = &in->o[f0 + j / 4];
            int32_t slot = v->vec[j % 4];
            int e = esz == 2 ? 2 * (j % 4) : j, nw = v->vnw[j % 4];
            const uint8_t *h0 = h + step[e], *h1 = h + step[esz == 2 ? e + 1 : e];
            uint32_t *x = xs[j % 4];
            /* (16-bit: register j >= 4 has register j - 4's elements, e above, already in x) */
            if (esz == 4 || (j < 4 && h1 == h0 + 2)) {
                /* one 32-bit read per lane: an f32 element, or two f16 halves that lie side
                 * by side (A row-major, B column-major), low half first (little-endian host) */
                for (int l = 0; l < 32; l++)
                    memcpy(&x[l], h0 + lane0[l], 4);
            } else if (j < 4) {
                for (int l = 0; l < 32; l++) {
                    uint16_t a16, b16;
                    memcpy(&a16, h0 + lane0[l], 2);
                    memcpy(&b16, h1 + lane0[l], 2);
                    x[l] = a16 | (uint32_t)b16 << 16;
                }
            }
            if (slot < 0)
                continue;
            if (nw)
                memcpy(XN(regs, slot), x, 32 * sizeof *x);
            else
                for (int l = 0; l < 32; l++)
                    XR(regs, slot)[l] = x[l];
        }
        *ld0 = ld;
        return 1;
    }
    for (int l = 0; l < 32; l++) { /* stores lane by lane: overlapping elements (a stride
                                      below 16) are written in the general loop's order */
        uint8_t *hl = h + lane0[l];
        for (int j = 0; j < nregs; j++) {
            const xop *v = &in->o[f0 + j / 4];
            int32_t slot = v->vec[j % 4];
            int e = esz == 2 ? 2 * (j % 4) : j;
            if (esz == 4 || j < 4) {
                uint64_t x = slot < 0 ? 0 : xslot_get(regs, slot, v->vnw[j % 4], l);
                memcpy(hl + step[e], &x, esz);
                if (esz == 2) {
                    x >>= 16;
                    memcpy(hl + step[e + 1], &x, 2);
                }
            }
        }
    }
    *ld0 = ld;
    return 1;
}

/* wmma.load and wmma.store (m16n16k16): each lane moves its fragment's elements (exec_int.h,
 * xwmma_coord) from or to their places in the 16 x 16 matrix at its address, `stride` elements
 * between rows (row-major) or columns (column-major; B: column-major means its k runs along
 * memory), 16 without a stride operand. The H200's SASS moves them as 4 accesses per lane when
 * an element pair is contiguous in memory (LDG.E of 2 halves, LDG.E.64 of 2 floats), else one
 * per element; out reports that as mem_parts parts of mem_size bytes (the timing model looks
 * up each). Every lane must execute it (.aligned). Alignment is checked per element. */
static wl_status do_wmma(exec_block *b, int warp, const xinsn *in, uint32_t m,
                         exec_step_info *out, diag_t *d)
{
    if (m != XFULL)
        return xmma_need_all(b, warp, in, m, d);
    xwarp *W = &b->w[warp];
    uint64_t *regs = frame_regs(W);
    int ai;
    const xop *a = xaddr_opnd(in, &ai);
    int load = in->op == PTX_OP_WMMA_LOAD, frag = in->ir->mode & PTX_WMMA_FRAG;
    int col = (in->ir->mode & PTX_WMMA_COL) != 0, bfrag = frag == PTX_WMMA_B;
    int nregs = xwmma_regs(frag, in->ir->type[0]), nx = nregs / 4;
    int f0 = load ? 0 : ai + 1, si = load ? ai + 1 : ai + 1 + nx; /* fragment, stride */
    if (!a || f0 + nx > in->nops)
        return exec_fail(b, warp, -1, in, WL_EUNSUPPORTED, d, "memory operand missing");
    uint32_t esz = frag <= PTX_WMMA_B ? 2 : 4;
    wl_status st = WL_OK;
    uint64_t ld0 = 16; /* lane 0's stride: the parts' offsets (the stride is uniform in CUDA) */
    int tiled = wmma_tile(b, warp, in, regs, a, f0, si, nregs, esz, out, &ld0);
    for (int l = 0; l < 32 && !tiled; l++) {
        uint64_t ld = si < in->nops ? (uint32_t)xget(&in->o[si], regs, l) : 16;
        ld0 = l == 0 ? ld : ld0;
        /* memory index of matrix position (r, c): row-major r ld + c, column-major c ld + r
         * (for B, r is k and c is n; its `col` layout keeps k contiguous) */
        uint64_t base = lane_addr(W, regs, a, l), ea[8], lo = UINT64_MAX, hi = 0, orr = 0;
        for (int i = 0; i < 8; i++) {
            int r, c;
            xwmma_coord(bfrag, l, i, &r, &c);
            uint64_t idx = col ? (uint64_t)c * ld + (uint64_t)r : (uint64_t)r * ld + (uint64_t)c;
            ea[i] = base + idx * esz;
            lo = ea[i] < lo ? ea[i] : lo;
            hi = ea[i] > hi ? ea[i] : hi;
            orr |= ea[i];
        }
        /* the lane's elements at once when they are aligned and lie in one space's bounds (a
         * stride that wraps is left to the element-wise translation and its fault) */
        int sp0 = in->space;
        uint64_t lo0 = lo;
        uint8_t *hl = (orr & (esz - 1)) == 0 && hi - lo < (UINT64_C(1) << 32)
                          ? span(b, warp, l, &sp0, &lo0, hi - lo + esz, !load) : NULL;
        uint8_t *hp[8];
        for (int i = 0; i < 8; i++) {
            int space = sp0;
            uint64_t addr = ea[i];
            if (hl) {
                hp[i] = hl + (ea[i] - lo);
                addr = lo0 + (ea[i] - lo);
            } else {
                space = in->space;
                hp[i] = xlate(b, warp, l, in, &space, &addr, esz, !load, d, &st);
                if (!hp[i])
                    return st;
            }
            if (i == 0)
                note(out, l, addr, space, esz);
        }
        /* fragment register j holds element j (f32) or elements 2j, 2j + 1 (16-bit, the first
         * in the low half); f16 a and b hold them twice, in registers j and j + 4 (a register
         * nothing reads shares the sink slot, so each copy is written from memory, not from
         * the other); a store writes the first copy's elements */
        for (int j = 0; j < nregs; j++) {
            const xop *v = &in->o[f0 + j / 4];
            int32_t slot = v->vec[j % 4];
            int e = esz == 2 ? 2 * (j % 4) : j; /* its (first) element */
            if (load) {
                if (slot < 0)
                    continue;
                uint32_t x = (uint32_t)load_le(hp[e], esz);
                if (esz == 2)
                    x |= (uint32_t)load_le(hp[e + 1], 2) << 16;
                xslot_put(regs, slot, v->vnw[j % 4], l, x);
            } else if (esz == 4 || j < 4) {
                uint64_t x = slot < 0 ? 0 : xslot_get(regs, slot, v->vnw[j % 4], l);
                memcpy(hp[e], &x, esz);
                if (esz == 2) {
                    x >>= 16;
                    memcpy(hp[e + 1], &x, 2);
                }
            }
        }
    }
    if (out) {
        /* element pairs (i, i + 1) neighbour in memory when the layout runs along them: A, C
         * and D row-major, B column-major (a pair is two columns of A, C, D, two k of B); then 4
         * parts of two elements (pair p: bit 0 +8 rows (B: k), bit 1 +8 columns (B: n)), else 8
         * of one (element i: bit 0 the pair's second, bit 1 +8 rows, bit 2 +8 columns) */
        int pairs = bfrag ? col : !col;
        uint64_t rows8 = 8 * (col ? 1 : ld0) * esz, cols8 = 8 * (col ? ld0 : 1) * esz;
        uint64_t one = (bfrag ? rows8 : cols8) / 8;
        out->part_off[0] = pairs ? rows8 : one;
        out->part_off[1] = pairs ? cols8 : rows8;
        out->part_off[2] = cols8;
        out->mem_parts = (uint8_t)(pairs ? 4 : 8);
        out->mem_size = pairs ? 2 * esz : esz;
        out->mem_load = (uint8_t)load;
        out->mem_store = (uint8_t)!load;
        out->addr_linear = 0;
    }
    return WL_OK;
}

wl_status xmem_exec(exec_block *b, int warp, const xinsn *in, uint32_t m, exec_step_info *out,
                    diag_t *d)
{
    switch (in->op) {
    case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_ST: return do_ldst(b, warp, in, m, out, d);
    case PTX_OP_ATOM: case PTX_OP_RED: return do_atom(b, warp, in, m, out, d);
    case PTX_OP_CP_ASYNC: return do_cp_async(b, warp, in, m, out, d);
    case PTX_OP_WMMA_LOAD: case PTX_OP_WMMA_STORE: return do_wmma(b, warp, in, m, out, d);
    default: return do_mbar(b, warp, in, m, out, d);
    }
}

int xmem_peek(exec_block *b, int warp, int lane, uint64_t gaddr, void *dst, uint32_t n)
{
    const exec_prog *p = b->p;
    const xwarp *W = &b->w[warp];
    const uint8_t *h = NULL;
    if (gaddr - EXEC_SHARED_WINDOW < EXEC_WINDOW_SIZE) {
        uint64_t a = gaddr - EXEC_SHARED_WINDOW;
        if (a < p->smem_bytes && n <= p->smem_bytes - a)
            h = b->smem + a;
    } else if (gaddr - EXEC_LOCAL_WINDOW < EXEC_WINDOW_SIZE) {
        uint64_t a = gaddr - EXEC_LOCAL_WINDOW;
        if (a < p->local_bytes && n <= p->local_bytes - a)
            h = W->local + (size_t)lane * p->local_bytes + a;
    } else {
        h = devmem_translate(p->mem, gaddr, n);
    }
    if (!h)
        return 0;
    memcpy(dst, h, n);
    return 1;
}

/* A NUL-terminated string at a generic address, at most size-1 bytes. */
static void peek_string(exec_block *b, int warp, int lane, uint64_t a, char *s, size_t size)
{
    size_t i = 0;
    for (; i + 1 < size; i++) {
        char c;
        if (!xmem_peek(b, warp, lane, a + i, &c, 1) || c == 0)
            break;
        s[i] = c;
    }
    s[i] = 0;
}

/* The conversion specs passed to snprintf below are rebuilt from a whitelist (flags, digits,
 * '.', one conversion letter), so a non-literal format is safe here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* Device-side printf: the format string is in device memory, the arguments packed in the
 * caller's local memory, each aligned to its size (int 4, long/double/pointer 8; float and
 * char/short arrive promoted). %s reads a device string. */
size_t xmem_printf(exec_block *b, int warp, int lane, uint64_t fmt, uint64_t args, char *buf,
                   size_t size)
{
    char f[1024], spec[32], piece[512];
    peek_string(b, warp, lane, fmt, f, sizeof f);
    size_t n = 0;
    uint64_t off = 0;
    buf[0] = 0;
    for (const char *c = f; *c && n + 1 < size; c++) {
        if (*c != '%' || c[1] == '%') {
            buf[n++] = *c;
            c += *c == '%';
            continue;
        }
        const char *st = c++;
        while (*c && strchr("-+ #0123456789.", *c))
            c++;
        int longs = 0;
        while (*c && strchr("hlzjtL", *c)) {
            longs += *c == 'l' || *c == 'z' || *c == 'j' || *c == 't' || *c == 'L';
            c++;
        }
        if (!*c)
            break;
        size_t flen = (size_t)(c - st);
        if (flen > sizeof spec - 4)
            flen = sizeof spec - 4;
        memcpy(spec, st, flen);
        while (flen > 1 && strchr("hlzjtL", spec[flen - 1]))
            flen--; /* re-added below as ll where needed */
        char conv = *c;
        int isint = strchr("diuxXoc", conv) != NULL, isflt = strchr("fFeEgGaA", conv) != NULL;
        uint32_t asz = (isint && longs == 0 && conv != 'p') ? 4 : 8;
        off = (off + asz - 1) & ~(uint64_t)(asz - 1);
        uint64_t v = 0;
        if (!xmem_peek(b, warp, lane, args + off, &v, asz))
            break;
        off += asz;
        if (isint && conv != 'c') {
            spec[flen] = 'l';
            spec[flen + 1] = 'l';
            spec[flen + 2] = conv;
            spec[flen + 3] = 0;
            if (conv == 'd' || conv == 'i')
                snprintf(piece, sizeof piece, spec, asz == 4 ? (long long)(int32_t)v : (long long)v);
            else
                snprintf(piece, sizeof piece, spec,
                         asz == 4 ? (unsigned long long)(uint32_t)v : (unsigned long long)v);
        } else {
            spec[flen] = conv;
            spec[flen + 1] = 0;
            if (isflt) {
                double x;
                memcpy(&x, &v, 8);
                snprintf(piece, sizeof piece, spec, x);
            } else if (conv == 'c') {
                snprintf(piece, sizeof piece, spec, (int)(char)v);
            } else if (conv == 's') {
                char str[256];
                peek_string(b, warp, lane, v, str, sizeof str);
                snprintf(piece, sizeof piece, spec, str);
            } else if (conv == 'p') {
                snprintf(piece, sizeof piece, "0x%llx", (unsigned long long)v);
            } else {
                snprintf(piece, sizeof piece, "%%%c", conv);
            }
        }
        size_t pl = strlen(piece);
        if (pl > size - 1 - n)
            pl = size - 1 - n;
        memcpy(buf + n, piece, pl);
        n += pl;
    }
    buf[n] = 0;
    return n;
}
#pragma GCC diagnostic pop
