/* argspec: every form of the --arg grammar, the bytes argspec_fill writes, and
 * every error with its message. Expected values are computed by hand or taken
 * from splitmix64's published reference outputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argspec.h"
#include "semf.h"

/* Parses spec, expecting success. */
static argspec ok(const char *spec)
{
    argspec a;
    diag_t d;
    diag_clear(&d);
    wl_status st = argspec_parse(spec, &a, &d);
    if (st != WL_OK)
        fail_msg("argspec_parse('%s') failed: %s", spec, d.msg);
    return a;
}

/* Parses spec, expecting WL_EUSAGE with a message containing want. */
static void err(const char *spec, const char *want)
{
    argspec a;
    diag_t d;
    diag_clear(&d);
    wl_status st = argspec_parse(spec, &a, &d);
    if (st != WL_EUSAGE)
        fail_msg("argspec_parse('%s') returned %d, expected usage error containing '%s'", spec,
                 (int)st, want);
    if (d.status != WL_EUSAGE || !strstr(d.msg, want))
        fail_msg("argspec_parse('%s'): message '%s' lacks '%s'", spec, d.msg, want);
    if (!strstr(d.msg, "--arg '"))
        fail_msg("argspec_parse('%s'): message '%s' does not quote the spec", spec, d.msg);
}

/* Fills a parsed spec into a fresh buffer (caller frees). */
static uint8_t *fill(const argspec *a)
{
    uint64_t n = argspec_bytes(a);
    uint8_t *buf = (uint8_t *)malloc((size_t)n + 16);
    memset(buf, 0xAB, (size_t)n + 16);
    diag_t d;
    assert_int_equal(argspec_fill(a, buf, &d), WL_OK);
    for (int k = 0; k < 16; k++) /* never writes past COUNT elements */
        assert_int_equal(buf[n + (uint64_t)k], 0xAB);
    return buf;
}

static void test_scalars(void **state)
{
    (void)state;
    argspec a = ok("u32:42");
    assert_int_equal(a.is_buffer, 0);
    assert_int_equal(a.type, ARGSPEC_U32);
    assert_int_equal(a.count, 1);
    assert_int_equal(a.value.u, 42);
    assert_int_equal(argspec_bytes(&a), 4);
    assert_int_equal(ok("s32:-1").value.s, -1);
    assert_int_equal(ok("s8:-128").value.s, -128);
    assert_int_equal(ok("s8:127").value.s, 127);
    assert_int_equal(ok("s8:0xff").value.s, -1);   /* hex bit pattern */
    assert_int_equal(ok("s8:0x80").value.s, -128);
    assert_int_equal(ok("s16:-0x8000").value.s, -32768);
    assert_int_equal(ok("u8:255").value.u, 255);
    assert_int_equal(ok("u16:0xFFFF").value.u, 65535);
    assert_int_equal(ok("u64:18446744073709551615").value.u, UINT64_MAX);
    assert_int_equal(ok("s64:-9223372036854775808").value.s, INT64_MIN);
    assert_int_equal(ok("s64:0xffffffffffffffff").value.s, -1);
    assert_int_equal(ok("u32:+7").value.u, 7);
    assert_true(ok("f32:2.0").value.f == 2.0);
    assert_true(ok("f64:-1.5e-3").value.f == -1.5e-3);
    assert_true(ok("f32:0.1").value.f == (double)0.1f); /* stored rounded to float */
    assert_true(isinf(ok("f32:inf").value.f) && ok("f32:-inf").value.f < 0);
    assert_true(isnan(ok("f64:nan").value.f));
    assert_true(ok("f64:1e-310").value.f > 0); /* a denormal is fine */

    /* fill writes the one value, little-endian */
    argspec s = ok("s16:-2");
    uint8_t *b = fill(&s);
    assert_int_equal(b[0], 0xFE);
    assert_int_equal(b[1], 0xFF);
    free(b);
    s = ok("f32:1.0");
    b = fill(&s);
    uint32_t bits;
    memcpy(&bits, b, 4);
    assert_int_equal(bits, 0x3F800000u);
    free(b);
}

static void test_scalar_errors(void **state)
{
    (void)state;
    err("", "expected TYPE:VALUE or TYPE[COUNT]:INIT");
    err("u32", "expected TYPE:VALUE or TYPE[COUNT]:INIT");
    err("x32:1", "unknown type 'x32'");
    err("U32:1", "unknown type 'U32'");
    err(":1", "unknown type ''");
    err("u32:", "missing u32 value");
    err("u32:abc", "bad u32 value 'abc'");
    err("u32:1.5", "bad u32 value '1.5'");
    err("u32: 1", "bad u32 value ' 1'");
    err("u32:0x", "bad u32 value '0x'");
    err("u8:256", "u8 value '256' is out of range 0..255");
    err("u8:-1", "u8 value '-1' is out of range 0..255");
    err("s8:128", "s8 value '128' is out of range -128..127");
    err("s8:-129", "s8 value '-129' is out of range -128..127");
    err("s8:0x100", "s8 value '0x100' is out of range -128..127");
    err("u64:18446744073709551616", "u64 value '18446744073709551616' is out of range");
    err("s64:9223372036854775808", "out of range -9223372036854775808..9223372036854775807");
    err("f32:1e39", "f32 value '1e39' is out of range");
    err("f64:1e999", "f64 value '1e999' is out of range");
    err("f32:abc", "bad f32 value 'abc'");
    err("f32:1.0x", "bad f32 value '1.0x'");
    err("f32: 1", "bad f32 value ' 1'");
    char longv[300];
    memset(longv, '1', sizeof longv);
    memcpy(longv, "u32:", 4);
    longv[sizeof longv - 1] = '\0';
    err(longv, "is too long");
}

static void test_zeros_const_iota(void **state)
{
    (void)state;
    argspec a = ok("u32[1000]:zeros");
    assert_int_equal(a.is_buffer, 1);
    assert_int_equal(a.count, 1000);
    assert_int_equal(a.init, ARGSPEC_INIT_ZEROS);
    assert_int_equal(argspec_bytes(&a), 4000);
    uint8_t *b = fill(&a);
    for (int i = 0; i < 4000; i++)
        assert_int_equal(b[i], 0);
    free(b);

    a = ok("f32[7]:const(2.5)");
    b = fill(&a);
    for (int i = 0; i < 7; i++) {
        float f;
        memcpy(&f, b + 4 * i, 4);
        assert_true(f == 2.5f);
    }
    free(b);
    a = ok("s16[3]:const(-3)");
    b = fill(&a);
    assert_memory_equal(b, "\xfd\xff\xfd\xff\xfd\xff", 6);
    free(b);

    a = ok("u8[300]:iota"); /* wraps modulo 256 */
    b = fill(&a);
    assert_int_equal(b[0], 0);
    assert_int_equal(b[255], 255);
    assert_int_equal(b[256], 0);
    assert_int_equal(b[299], 43);
    free(b);
    a = ok("f64[5]:iota");
    b = fill(&a);
    double x;
    memcpy(&x, b + 8 * 4, 8);
    assert_true(x == 4.0);
    free(b);
    a = ok("u64[0x10]:iota");
    assert_int_equal(a.count, 16);
}

static void test_affine(void **state)
{
    (void)state;
    argspec a = ok("u32[10]:affine(3,1,7)"); /* (3i+1) mod 7 */
    uint8_t *b = fill(&a);
    const uint32_t want[10] = {1, 4, 0, 3, 6, 2, 5, 1, 4, 0};
    for (int i = 0; i < 10; i++) {
        uint32_t v;
        memcpy(&v, b + 4 * i, 4);
        if (v != want[i])
            fail_msg("affine(3,1,7)[%d] = %u, want %u", i, v, want[i]);
    }
    free(b);
    /* 64-bit wrap: A*i + C computed modulo 2^64 before the mod */
    a = ok("u64[3]:affine(0x8000000000000000,0,0xffffffffffffffff)");
    b = fill(&a);
    uint64_t v;
    memcpy(&v, b + 16, 8); /* i=2: 2^64 wraps to 0 */
    assert_int_equal(v, 0);
    memcpy(&v, b + 8, 8);
    assert_int_equal(v, 0x8000000000000000ull);
    free(b);
    /* floats get the integer result converted */
    a = ok("f32[4]:affine(2,1,5)");
    b = fill(&a);
    float f;
    memcpy(&f, b + 12, 4); /* (2*3+1) mod 5 = 2 */
    assert_true(f == 2.0f);
    free(b);
    /* s8 keeps the low 8 bits */
    a = ok("s8[2]:affine(1,200,1000)");
    b = fill(&a);
    assert_int_equal((int8_t)b[1], (int8_t)201);
    free(b);
}

__extension__ typedef unsigned __int128 u128; /* reference for the portable mulhi64 */

/* splitmix64 reference outputs for seed 0 (Vigna's splitmix64.c). */
static const uint64_t sm0[3] = {0xe220a8397b1dcdafull, 0x6e789e6aa1b965f4ull,
                                0x06c45d188009454full};

static void test_random_integers(void **state)
{
    (void)state;
    argspec a = ok("u64[3]:random(0)");
    assert_int_equal(a.init, ARGSPEC_INIT_RANDOM);
    assert_int_equal(a.has_range, 0);
    assert_int_equal(a.seed, 0);
    uint8_t *b = fill(&a);
    for (int i = 0; i < 3; i++) {
        uint64_t v;
        memcpy(&v, b + 8 * i, 8);
        if (v != sm0[i])
            fail_msg("splitmix64 seed 0 output %d = %#llx, want %#llx", i,
                     (unsigned long long)v, (unsigned long long)sm0[i]);
    }
    free(b);
    a = ok("u16[2]:random(0)"); /* low bits */
    b = fill(&a);
    assert_int_equal(b[0] | (b[1] << 8), 0xcdaf);
    assert_int_equal(b[2] | (b[3] << 8), 0x65f4);
    free(b);
    a = ok("u32[1]:random");
    assert_int_equal(a.seed, ARGSPEC_DEFAULT_SEED);

    /* range [LO,HI] inclusive: LO + high64(r * (HI-LO+1)) */
    a = ok("s32[3]:random(-10,10,0)");
    b = fill(&a);
    for (int i = 0; i < 3; i++) {
        int32_t v;
        memcpy(&v, b + 4 * i, 4);
        /* high 64 bits of r*21 = floor(r*21 / 2^64) */
        int32_t want = -10 + (int32_t)(((u128)sm0[i] * 21u) >> 64);
        if (v != want)
            fail_msg("s32 random(-10,10,0)[%d] = %d, want %d", i, v, want);
    }
    free(b);
    a = ok("u8[100000]:random(5,9,42)");
    b = fill(&a);
    int seen[10] = {0};
    for (int i = 0; i < 100000; i++) {
        if (b[i] < 5 || b[i] > 9)
            fail_msg("u8 random(5,9)[%d] = %d out of [5,9]", i, b[i]);
        seen[b[i]]++;
    }
    for (int k = 5; k <= 9; k++) /* each of 5 values ~20000 times */
        if (seen[k] < 19000 || seen[k] > 21000)
            fail_msg("value %d drawn %d times of 100000 (expected ~20000)", k, seen[k]);
    free(b);
    /* full-range bounds and LO == HI */
    a = ok("s64[4]:random(-9223372036854775808,9223372036854775807,0)");
    b = fill(&a);
    int64_t v64;
    memcpy(&v64, b, 8);
    assert_int_equal((uint64_t)v64, sm0[0]); /* span 2^64: the raw output */
    free(b);
    a = ok("u32[4]:random(7,7)");
    b = fill(&a);
    for (int i = 0; i < 4; i++)
        assert_int_equal(b[4 * i], 7);
    free(b);
    /* determinism and seed sensitivity */
    argspec x = ok("u32[64]:random(1)"), y = ok("u32[64]:random(1)"), z = ok("u32[64]:random(2)");
    uint8_t *bx = fill(&x), *by = fill(&y), *bz = fill(&z);
    assert_memory_equal(bx, by, 256);
    assert_memory_not_equal(bx, bz, 256);
    free(bx);
    free(by);
    free(bz);
}

static void test_random_floats(void **state)
{
    (void)state;
    argspec a = ok("f64[3]:random(0)"); /* [0,1): (r >> 11) * 2^-53 */
    uint8_t *b = fill(&a);
    for (int i = 0; i < 3; i++) {
        double v, want = (double)(sm0[i] >> 11) / 9007199254740992.0;
        memcpy(&v, b + 8 * i, 8);
        if (v != want)
            fail_msg("f64 random(0)[%d] = %.17g, want %.17g", i, v, want);
    }
    free(b);
    a = ok("f32[3]:random(-1,1,0)");
    b = fill(&a);
    for (int i = 0; i < 3; i++) {
        float v, want = (float)(-1.0 + 2.0 * ((double)(sm0[i] >> 11) / 9007199254740992.0));
        memcpy(&v, b + 4 * i, 4);
        if (v != want)
            fail_msg("f32 random(-1,1,0)[%d] = %.9g, want %.9g", i, (double)v, (double)want);
    }
    free(b);
    a = ok("f32[200000]:random(10,10.000001,3)"); /* tiny range: rounding must stay < HI */
    b = fill(&a);
    float hi = 10.000001f;
    for (int i = 0; i < 200000; i++) {
        float v;
        memcpy(&v, b + 4 * i, 4);
        if (!(v >= 10.0f && v < hi))
            fail_msg("f32 random(10,10.000001)[%d] = %.9g outside [10,%.9g)", i, (double)v,
                     (double)hi);
    }
    free(b);
}

static void test_buffer_errors(void **state)
{
    (void)state;
    err("u32[]:zeros", "COUNT between the brackets");
    err("u32[4:zeros", "COUNT between the brackets");
    err("u32[4]x:zeros", "COUNT between the brackets");
    err("u32[[4]]:zeros", "COUNT between the brackets");
    err("u32[-4]:zeros", "bad COUNT '-4'");
    err("u32[abc]:zeros", "bad COUNT 'abc'");
    err("u32[0]:zeros", "COUNT must be at least 1");
    err("u32[99999999999999999999]:zeros", "COUNT '99999999999999999999' does not fit in 64 bits");
    err("u32[18446744073709551615]:zeros", "exceeds the limit of 4294967296 bytes");
    err("u8[4294967297]:zeros", "exceeds the limit");
    err("u32[4]:", "missing INIT");
    err("u32[4]:ones", "unknown INIT 'ones'");
    err("u32[4]:zeros(1)", "unknown INIT 'zeros(1)'");
    err("u32[4]:const", "unknown INIT 'const'");
    err("u32[4]:const(1", "malformed INIT 'const(1'");
    err("u32[4]:const(1)x", "malformed INIT");
    err("u32[4]:const((1))", "malformed INIT");
    err("u32[4]:const(1,2)", "const takes one value, got 2");
    err("u32[4]:const()", "missing u32 const value");
    err("u8[4]:const(300)", "u8 const value '300' is out of range 0..255");
    err("u32[4]:random(1,2,3,4)", "malformed INIT");
    err("u32[4]:random()", "bad random SEED ''");
    err("u32[4]:random(-1)", "bad random SEED '-1'");
    err("u32[4]:random(9,3)", "needs LO <= HI, got 9 > 3");
    err("s32[4]:random(1,-1)", "needs LO <= HI, got 1 > -1");
    err("u8[4]:random(0,256)", "u8 HI '256' is out of range 0..255");
    err("f32[4]:random(1,1)", "needs LO < HI for floats");
    err("f32[4]:random(0,inf)", "needs finite bounds");
    err("f64[4]:random(-1e308,1e308)", "needs finite bounds");
    err("f32[4]:random(a,1)", "bad f32 LO 'a'");
    err("f32[4]:random(0,1,x)", "bad random SEED 'x'");
    err("u32[4]:randomx", "unknown INIT 'randomx'");
    err("u32[4]:affine(1,2)", "affine takes (A,C,M), got 2 arguments");
    err("u32[4]:affine(1,2,0)", "affine M must be at least 1");
    err("u32[4]:affine(-1,2,3)", "bad affine A '-1'");
    err("u32[4]:iota(3)", "unknown INIT 'iota(3)'");
    err("u32[4]:random(99999999999999999999)",
        "random SEED '99999999999999999999' does not fit in 64 bits");
    err("u32[4]:affine(1,x,3)", "bad affine C 'x'");
    err("u32[4]:affine(1,2,0x)", "bad affine M '0x'");
    err("f32[4]:random(,1)", "missing f32 LO");
    err("f32[4]:random(0,)", "missing f32 HI");
    /* long specs are quoted shortened; long tokens are refused, not truncated */
    char longc[200];
    snprintf(longc, sizeof longc, "u32[%0150d]:zeros", 1);
    err(longc, "COUNT '00000000000000000000...' is too long");
    char quoted[100];
    snprintf(quoted, sizeof quoted, "--arg '%.60s...': ", longc); /* first 60 characters */
    err(longc, quoted);
}

static void test_size_limit_env(void **state)
{
    (void)state;
    assert_int_equal(argspec_max_bytes(), ARGSPEC_DEFAULT_MAX_BYTES);
    ok("u8[4294967296]:zeros"); /* exactly 4 GiB is allowed (parse only) */
    setenv(ARGSPEC_MAX_BYTES_ENV, "1024", 1);
    assert_int_equal(argspec_max_bytes(), 1024);
    ok("u32[256]:zeros");
    err("u32[257]:zeros", "buffer of 257 x 4 bytes exceeds the limit of 1024 bytes (set "
                          "WARPLAB_MAX_ARG_BYTES to raise it)");
    setenv(ARGSPEC_MAX_BYTES_ENV, "lots", 1);
    err("u32[1]:zeros", "WARPLAB_MAX_ARG_BYTES='lots' is not a positive byte count");
    assert_int_equal(argspec_max_bytes(), ARGSPEC_DEFAULT_MAX_BYTES);
    unsetenv(ARGSPEC_MAX_BYTES_ENV);
}

/* argspec_format gives canonical text that parses back to the same bytes. */
static void test_format_round_trip(void **state)
{
    (void)state;
    const char *specs[] = {"u32:42", "s8:-5", "f32:0.1", "f64:-inf", "u16[9]:zeros",
                           "s32[5]:const(-7)", "f32[6]:iota", "u64[4]:affine(3,1,7)",
                           "u32[8]:random", "f32[8]:random(-1,1,9)", "s64[3]:random(-5,5)",
                           "f16:0.1", "bf16:0.1", "f16[7]:random(-2,3,5)", "bf16[4]:iota"};
    const char *canon[] = {"u32:42", "s8:-5", "f32:0.100000001", "f64:-inf", "u16[9]:zeros",
                           "s32[5]:const(-7)", "f32[6]:iota", "u64[4]:affine(3,1,7)",
                           "u32[8]:random(24301)", "f32[8]:random(-1,1,9)",
                           "s64[3]:random(-5,5,24301)", "f16:0.099976", "bf16:0.1001",
                           "f16[7]:random(-2,3,5)", "bf16[4]:iota"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        argspec a = ok(specs[i]);
        char buf[128];
        argspec_format(&a, buf, sizeof buf);
        if (strcmp(buf, canon[i]) != 0)
            fail_msg("format('%s') = '%s', want '%s'", specs[i], buf, canon[i]);
        argspec b = ok(buf);
        uint8_t *x = fill(&a), *y = fill(&b);
        assert_int_equal(argspec_bytes(&a), argspec_bytes(&b));
        assert_memory_equal(x, y, (size_t)argspec_bytes(&a));
        free(x);
        free(y);
    }
}

/* The 16 bits argspec_fill writes for the scalar spec. */
static uint16_t half_of_spec(const char *spec)
{
    argspec a = ok(spec);
    assert_int_equal(argspec_bytes(&a), 2);
    uint8_t *b = fill(&a);
    uint16_t v = (uint16_t)(b[0] | b[1] << 8);
    free(b);
    return v;
}

/* f16 and bf16 values, by hand: rounding to nearest with ties to even at 1 (f16 ulp 2^-10,
 * bf16 2^-7), subnormals, the largest finite values, signed zero, range errors. */
static void test_half_scalars(void **state)
{
    (void)state;
    assert_int_equal(half_of_spec("f16:1"), 0x3c00);
    assert_int_equal(half_of_spec("f16:-2"), 0xc000);
    assert_int_equal(half_of_spec("f16:-0"), 0x8000);
    assert_int_equal(half_of_spec("f16:65504"), 0x7bff);
    assert_int_equal(half_of_spec("f16:0x1p-24"), 0x0001);          /* smallest subnormal */
    assert_int_equal(half_of_spec("f16:0x1p-25"), 0x0000);          /* tie: to even (0) */
    assert_int_equal(half_of_spec("f16:0x1.8p-24"), 0x0002);        /* tie 1.5: to even (2) */
    assert_int_equal(half_of_spec("f16:0x1.ffcp-15"), 0x0400);      /* tie at the top: into the normals */
    assert_int_equal(half_of_spec("f16:0x1.002p0"), 0x3c00);        /* 1 + 2^-11: tie, to 1 */
    assert_int_equal(half_of_spec("f16:0x1.006p0"), 0x3c02);        /* 1 + 3 x 2^-11: tie, up */
    assert_int_equal(half_of_spec("f16:inf"), 0x7c00);
    assert_int_equal(half_of_spec("f16:nan") & 0x7e00, 0x7e00);
    assert_int_equal(half_of_spec("bf16:1"), 0x3f80);
    assert_int_equal(half_of_spec("bf16:0x1.01p0"), 0x3f80);        /* 1 + 2^-8: tie, to 1 */
    assert_int_equal(half_of_spec("bf16:0x1.03p0"), 0x3f82);        /* 1 + 3 x 2^-8: up */
    assert_int_equal(half_of_spec("bf16:0x1.fep127"), 0x7f7f);      /* largest finite */
    assert_int_equal(half_of_spec("bf16:0x1p-133"), 0x0001);        /* smallest subnormal */
    assert_int_equal(half_of_spec("bf16:-1e-300"), 0x8000);
    err("f16:65505", "f16 value '65505' is out of range"); /* above the max, as f32's rule */
    err("bf16:3.4e38", "bf16 value '3.4e38' is out of range");
    err("f16[4]:random(1,1.0001)", "needs LO < HI"); /* both round to 1 */
    uint8_t b[2] = {0x00, 0x3c};
    assert_true(argspec_load_float(ARGSPEC_F16, b) == 1.0);
    b[1] = 0x3f;
    b[0] = 0x80;
    assert_true(argspec_load_float(ARGSPEC_BF16, b) == 1.0);
}

/* Every f16 and bf16 conversion against an independent one: the functional engine's
 * semf_round (PTX cvt.rn.f16 / cvt.rn.bf16), over values that hit every binade, the
 * subnormals, ties and overflow; and the decoding of all 65536 bit patterns back. */
static void test_half_against_semf(void **state)
{
    (void)state;
    const argspec_type ts[2] = {ARGSPEC_F16, ARGSPEC_BF16};
    const semf_fmt fs[2] = {SEMF_F16, SEMF_BF16};
    for (int k = 0; k < 2; k++) {
        for (uint32_t bits = 0; bits < 65536; bits++) { /* decode, and encode back */
            uint8_t b[2] = {(uint8_t)bits, (uint8_t)(bits >> 8)};
            double v = argspec_load_float(ts[k], b), want = semf_decode(bits, fs[k]);
            if (isnan(want)) {
                assert_true(isnan(v));
                continue;
            }
            assert_true(v == want && signbit(v) == signbit(want));
            if (isinf(v))
                continue;
            char spec[64];
            snprintf(spec, sizeof spec, "%s:%a", argspec_type_name(ts[k]), v);
            assert_int_equal(half_of_spec(spec), bits);
        }
        uint64_t x = 12345;
        for (int i = 0; i < 20000; i++) { /* random doubles over the format's range */
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            int e = k == 0 ? (int)(x >> 58) - 30 : (int)(x >> 56) - 140; /* -30..33, -140..115 */
            double v = ldexp((double)(x >> 11 & 0xfffffffffull) / 68719476736.0 + 1.0, e);
            v = (x & 1) ? -v : v;
            uint16_t want = (uint16_t)semf_round(v, 0, fs[k], SEMF_RN);
            if ((want & 0x7fff) == (k == 0 ? 0x7c00 : 0x7f80)) /* rounds to infinity: refused */
                continue;
            char spec[64];
            snprintf(spec, sizeof spec, "%s:%a", argspec_type_name(ts[k]), v);
            if (fabs(v) > (k == 0 ? 65504.0 : 0x1.fep127))
                continue; /* above the largest finite value yet rounding to it: refused too */
            if (half_of_spec(spec) != want)
                fail_msg("%s: got 0x%04x, semf 0x%04x", spec, half_of_spec(spec), want);
        }
    }
}

/* random(LO,HI) for 16-bit floats stays in [LO,HI) after rounding; random in [0,1). */
static void test_half_random(void **state)
{
    (void)state;
    const char *specs[] = {"f16[4096]:random(-1,1,3)", "bf16[4096]:random(0,0.01,4)",
                           "f16[65536]:random", "bf16[65536]:random(9)"};
    const double lo[] = {-1, 0, 0, 0}, hi[] = {1, 0.01, 1, 1}; /* (0.01: as rounded, a.hi) */
    for (int s = 0; s < 4; s++) {
        argspec a = ok(specs[s]);
        uint8_t *b = fill(&a);
        int below_half = 0;
        for (uint64_t i = 0; i < a.count; i++) {
            double v = argspec_load_float(a.type, b + 2 * i);
            double h = s == 1 ? a.hi.f : hi[s];
            if (!(v >= lo[s] && v < h))
                fail_msg("%s [%llu] = %g outside [%g, %g)", specs[s], (unsigned long long)i, v,
                         lo[s], hi[s]);
            below_half += v < (lo[s] + h) / 2;
        }
        /* uniform: about half below the middle (4096 draws: 5 sigma is 160) */
        assert_true(abs(below_half - (int)a.count / 2) < (a.count > 4096 ? 650 : 160));
        free(b);
    }
}

/* x ^= x >> k undone (k >= 1). */
static uint64_t unxorshift(uint64_t y, int k)
{
    uint64_t x = y;
    for (int i = 0; i < 64 / k + 1; i++)
        x = y ^ (x >> k);
    return x;
}

/* The inverse of an odd 64-bit multiplier (Newton's iteration, exact modulo 2^64). */
static uint64_t inverse64(uint64_t a)
{
    uint64_t x = a; /* correct to 3 bits; each step doubles that */
    for (int i = 0; i < 5; i++)
        x *= 2 - a * x;
    return x;
}

/* The SEED whose first splitmix64 output is z (the finaliser is a bijection, undone step by
 * step), so a test can ask for a draw at the very top of [0, 1). */
static uint64_t seed_for_first(uint64_t z)
{
    z = unxorshift(z, 31);
    z *= inverse64(0x94D049BB133111EBull);
    z = unxorshift(z, 27);
    z *= inverse64(0xBF58476D1CE4E5B9ull);
    z = unxorshift(z, 30);
    return z - 0x9E3779B97F4A7C15ull;
}

/* random without a range draws u = (r >> 11) x 2^-53 in [0, 1); rounded to f32 (f16) a u within
 * 2^-25 (2^-12) of 1 would become 1: it gives the value just below 1 instead. */
static void test_random_float_below_one(void **state)
{
    (void)state;
    uint64_t z = ~0ull; /* u = 1 - 2^-53, the largest draw */
    uint64_t seed = seed_for_first(z);
    char spec[80];
    snprintf(spec, sizeof spec, "f32[1]:random(%llu)", (unsigned long long)seed);
    argspec a = ok(spec);
    uint8_t *b = fill(&a);
    float f;
    memcpy(&f, b, 4);
    free(b);
    assert_true(f == nextafterf(1.0f, 0.0f));
    snprintf(spec, sizeof spec, "f64[1]:random(%llu)", (unsigned long long)seed);
    a = ok(spec);
    b = fill(&a);
    double g;
    memcpy(&g, b, 8);
    free(b);
    assert_true(g == 1.0 - 0x1p-53); /* exact in f64 */
    snprintf(spec, sizeof spec, "f16[1]:random(%llu)", (unsigned long long)seed);
    a = ok(spec);
    b = fill(&a);
    assert_true(argspec_load_float(ARGSPEC_F16, b) == 1.0 - 0x1p-11); /* f16 just below 1 */
    free(b);
    /* a draw that rounds below 1 keeps its own value */
    seed = seed_for_first(((1ull << 53) - (1ull << 30)) << 11); /* u = 1 - 2^-23 */
    snprintf(spec, sizeof spec, "f32[1]:random(%llu)", (unsigned long long)seed);
    a = ok(spec);
    b = fill(&a);
    memcpy(&f, b, 4);
    free(b);
    assert_true(f == 1.0f - 0x1p-23f);
}

static void test_type_helpers(void **state)
{
    (void)state;
    const size_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 2, 2};
    for (int t = ARGSPEC_U8; t <= ARGSPEC_BF16; t++)
        assert_int_equal(argspec_elem_size((argspec_type)t), sizes[t]);
    assert_string_equal(argspec_type_name(ARGSPEC_S16), "s16");
    assert_true(argspec_type_is_float(ARGSPEC_F32));
    assert_true(argspec_type_is_float(ARGSPEC_F16));
    assert_true(argspec_type_is_float(ARGSPEC_BF16));
    assert_false(argspec_type_is_float(ARGSPEC_U64));
    assert_false(argspec_type_is_signed(ARGSPEC_F16));
    assert_string_equal(argspec_type_name(ARGSPEC_BF16), "bf16");
    assert_true(argspec_type_is_signed(ARGSPEC_S64));
    assert_false(argspec_type_is_signed(ARGSPEC_U8));
    diag_t d;
    assert_int_equal(argspec_fill(NULL, NULL, &d), WL_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_scalar_errors),
        cmocka_unit_test(test_zeros_const_iota),
        cmocka_unit_test(test_affine),
        cmocka_unit_test(test_random_integers),
        cmocka_unit_test(test_random_floats),
        cmocka_unit_test(test_buffer_errors),
        cmocka_unit_test(test_size_limit_env),
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_type_helpers),
        cmocka_unit_test(test_half_scalars),
        cmocka_unit_test(test_half_against_semf),
        cmocka_unit_test(test_half_random),
        cmocka_unit_test(test_random_float_below_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
