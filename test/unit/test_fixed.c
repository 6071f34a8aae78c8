/* test/unit/test_fixed.c: the fixed-rate mode (FIXED.md) on the CPU: sizes, the
 * error bound relative to the block maximum, agreement with an independent encoder
 * written from FIXED.md (frexp/ldexp/rint), random access through the accessor,
 * special values, element stores, the dot helper, and bad input. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/fixed.h"
#include "testutil.h"

static const unsigned bits_all[] = {8, 16, 32};
static const ghz_dtype_t dtypes[] = {GHZ_F32, GHZ_F64};

/* Runs f for every dtype and every l. */
static void each_case(void (*f)(ghz_dtype_t t, unsigned bits))
{
    size_t d, j;
    for (d = 0; d < 2; d++)
        for (j = 0; j < 3; j++) f(dtypes[d], bits_all[j]);
}

static unsigned char* fixed_compress(ghz_dtype_t t, unsigned bits, const void* x, size_t n,
                                     size_t* size)
{
    size_t cap = ghz_fixed_size(n, bits);
    unsigned char* buf = malloc(cap ? cap : 1);
    ghz_status_t st;
    cr_assert(cap && buf);
    st = ghz_fixed_compress(t, bits, x, n, buf, cap, size);
    cr_assert_eq(st, GHZ_SUCCESS, "compress: %s", ghz_last_error_detail());
    cr_assert_eq(*size, cap, "size %zu, ghz_fixed_size %zu", *size, cap);
    return buf;
}

static void* fixed_decompress(const unsigned char* buf, size_t size, ghz_dtype_t t, size_t n)
{
    void* y = tu_alloc(t, n);
    size_t n_out = 0;
    ghz_status_t st = ghz_fixed_decompress(buf, size, y, n * ghz_dtype_size(t), &n_out);
    cr_assert_eq(st, GHZ_SUCCESS, "decompress: %s", ghz_last_error_detail());
    cr_assert_eq(n_out, n);
    return y;
}

/* FIXED.md's bound: 2^(1-l) M / (1 - 2^-l) plus the rounding to the dtype. The
 * multiplier (1 + 2^(1-l)) exceeds 1 / (1 - 2^-l) by far more than the rounding of
 * this computation. */
static double bound_of(double M, unsigned bits, ghz_dtype_t t)
{
    double b = ldexp(M, 1 - (int)bits) * (1.0 + ldexp(1.0, 1 - (int)bits));
    if (t == GHZ_F32) b += (bits == 32 ? ldexp(M, -24) : 0.0) + ldexp(1.0, -149);
    else b += ldexp(1.0, -1074);
    return b;
}

/* Checks every element of x (n values) against y; returns the largest error / M seen. */
static double check_bound(const void* x, const void* y, size_t n, ghz_dtype_t t, unsigned bits)
{
    size_t b, i;
    double worst = 0.0;
    for (b = 0; b * 32 < n; b++) {
        size_t end = b * 32 + 32 < n ? b * 32 + 32 : n;
        double M = 0.0;
        for (i = b * 32; i < end; i++)
            if (isfinite(tu_get(x, t, i))) M = fmax(M, fabs(tu_get(x, t, i)));
        for (i = b * 32; i < end; i++) {
            double xi = tu_get(x, t, i), yi = tu_get(y, t, i);
            if (!isfinite(xi)) {
                cr_assert(!isfinite(yi), "element %zu: non-finite %g decoded as %g", i, xi, yi);
                continue;
            }
            cr_assert(tu_within(xi, yi, bound_of(M, bits, t)),
                      "dtype %d l=%u element %zu: %.17g decoded %.17g, block max %.17g", (int)t,
                      bits, i, xi, yi, M);
            if (M > 0.0) worst = fmax(worst, fabs(xi - yi) / M);
        }
    }
    return worst;
}

Test(fixed, size_is_exact_and_known_in_advance)
{
    static const size_t ns[] = {0, 1, 31, 32, 33, 255, 256, 257, 1000, 4096 + 7};
    size_t k, j;
    for (k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (j = 0; j < 3; j++) {
            size_t n = ns[k], nb = (n + 31) / 32, size;
            unsigned bits = bits_all[j];
            void* x = tu_make(GHZ_F64, TU_RANDOM, n, 7 + n);
            unsigned char* buf = fixed_compress(GHZ_F64, bits, x, n, &size);
            cr_assert_eq(size, 64 + ((2 * nb + 15) / 16) * 16 + nb * 4 * bits, "n %zu l %u", n,
                         bits);
            cr_assert_eq(size, GHZ_FIXED_SIZE(n, bits));
            free(buf);
            free(x);
        }
    cr_assert_eq(ghz_fixed_size(10, 0), 0);
    cr_assert_eq(ghz_fixed_size(10, 12), 0);
    cr_assert_eq(ghz_fixed_size(10, 64), 0);
    cr_assert_eq(ghz_fixed_size(SIZE_MAX, 32), 0, "overflow gives 0");
}

static void bound_case(ghz_dtype_t t, unsigned bits)
{
    static const tu_pattern_t pats[] = {TU_RANDOM, TU_SMOOTH, TU_NOISY, TU_WALK, TU_WIDE,
                                        TU_CONSTANT, TU_ZERO};
    const size_t n = 20000 + 13;
    size_t p;
    for (p = 0; p < sizeof pats / sizeof pats[0]; p++) {
        size_t size;
        void* x = tu_make(t, pats[p], n, 100 + p);
        unsigned char* buf = fixed_compress(t, bits, x, n, &size);
        void* y = fixed_decompress(buf, size, t, n);
        double worst = check_bound(x, y, n, t, bits);
        /* the bound is tight: on random data some errors come near half a unit,
         * 2^-l of the block maximum or more */
        if (pats[p] == TU_RANDOM && !(t == GHZ_F32 && bits == 32))
            cr_assert(worst > ldexp(1.0, -(int)bits) * 0.9,
                      "pattern %s l=%u: worst error / M = %g, suspiciously small",
                      tu_pattern_names[pats[p]], bits, worst);
        free(buf);
        free(x);
        free(y);
    }
}

Test(fixed, error_bound_every_element)
{
    each_case(bound_case);
}

/* An independent encoder from FIXED.md: e from frexp of the block maximum,
 * c = rint(x * 2^(l-1-e)) clamped (x * 2^k is exact unless far below 1/2). */
static void reference_frame(const void* x, size_t n, ghz_dtype_t t, unsigned bits,
                            unsigned char* out)
{
    size_t nb = (n + 31) / 32, b, i, words = (2 * nb + 15) / 16 * 16;
    unsigned bytes = bits / 8;
    double cmax = ldexp(1.0, (int)bits - 1) - 1.0;
    memset(out, 0, 64 + words + nb * 4 * bits);
    memcpy(out, "\xF9GHZ", 4);
    tu_wr(out + 4, 2, 2); /* format_version (FIXED.md) */
    tu_wr(out + 6, 64, 2);
    out[8] = (unsigned char)t;
    out[9] = 3;
    out[10] = 5;
    out[11] = (unsigned char)bits;
    tu_wr(out + 16, n, 8);
    tu_wr(out + 24, nb, 8);
    tu_wr(out + 32, words + nb * 4 * bits, 8);
    for (b = 0; b < nb; b++) {
        size_t end = b * 32 + 32 < n ? b * 32 + 32 : n;
        double M = 0.0;
        int e = 0, has_nan = 0, has_pinf = 0, has_ninf = 0, k;
        for (i = b * 32; i < end; i++) {
            double v = tu_get(x, t, i);
            if (isnan(v)) has_nan = 1;
            else if (isinf(v)) *(v > 0 ? &has_pinf : &has_ninf) = 1;
            else M = fmax(M, fabs(v));
        }
        k = has_nan || (has_pinf && has_ninf) ? 1 : has_pinf ? 2 : has_ninf ? 3 : 0;
        if (M > 0.0) frexp(M, &e);
        tu_wr(out + 64 + 2 * b, (M > 0.0 ? (uint64_t)(e + 1100) : 0) | ((uint64_t)k << 12), 2);
        for (i = b * 32; i < end; i++) {
            double v = tu_get(x, t, i), c;
            if (!isfinite(v)) c = -ldexp(1.0, (int)bits - 1);
            else if (M == 0.0) c = 0.0;
            else c = fmin(fmax(rint(ldexp(v, (int)bits - 1 - e)), -cmax), cmax);
            tu_wr(out + 64 + words + i * bytes, (uint64_t)(int64_t)c, bytes);
        }
    }
}

static void* special_mix(ghz_dtype_t t, size_t n, uint64_t seed)
{
    void* x = tu_make(t, TU_WIDE, n, seed);
    tu_rng_t r;
    size_t i;
    tu_seed(&r, seed);
    for (i = 0; i < n; i++) {
        uint64_t pick = tu_below(&r, 64);
        if (pick == 0) tu_set(x, t, i, NAN);
        else if (pick == 1) tu_set(x, t, i, INFINITY);
        else if (pick == 2) tu_set(x, t, i, -INFINITY);
        else if (pick == 3) tu_set(x, t, i, -0.0);
        else if (pick < 8) /* subnormals of the dtype */
            tu_set(x, t, i, (t == GHZ_F32 ? ldexp(1.0, -140) : ldexp(1.0, -1060)) *
                                (tu_uniform(&r) - 0.5));
        else if (pick < 10) /* values just below a power of two: saturation */
            tu_set(x, t, i, t == GHZ_F32 ? (double)nextafterf(1.0f, 0.0f) : nextafter(1.0, 0.0));
        else if (pick < 11)
            tu_set(x, t, i, t == GHZ_F32 ? FLT_MAX : DBL_MAX);
        else if (pick < 14) /* whole blocks of subnormals or zeros */
            tu_set(x, t, i, (i / 32) % 2 ? 0.0 : (t == GHZ_F32 ? 1e-40 : 1e-310));
    }
    return x;
}

static void conformance_case(ghz_dtype_t t, unsigned bits)
{
    size_t s;
    for (s = 0; s < 4; s++) {
        size_t n = 3000 + 7 * s, size, k;
        void* x = s < 2 ? tu_make(t, s ? TU_NOISY : TU_WIDE, n, 40 + s)
                        : special_mix(t, n, 50 + s);
        unsigned char* buf = fixed_compress(t, bits, x, n, &size);
        unsigned char* ref = malloc(size);
        reference_frame(x, n, t, bits, ref);
        for (k = 0; k < size; k++)
            cr_assert(buf[k] == ref[k], "dtype %d l=%u set %zu: byte %zu is %02x, FIXED.md says %02x",
                      (int)t, bits, s, k, buf[k], ref[k]);
        free(ref);
        free(buf);
        free(x);
    }
}

Test(fixed, same_bytes_as_an_independent_encoder)
{
    each_case(conformance_case);
}

static void access_case(ghz_dtype_t t, unsigned bits)
{
    size_t n = 5000 + 3, size, i;
    void* x = special_mix(t, n, 77 + bits);
    unsigned char* buf = fixed_compress(t, bits, x, n, &size);
    void* y = fixed_decompress(buf, size, t, n);
    ghz_fixed_view_t v = ghz_fixed_view_make(buf, t, bits, n);
    check_bound(x, y, n, t, bits);
    for (i = 0; i < n; i++) {
        double xi = tu_get(x, t, i), yi = tu_get(y, t, i), got = ghz_fixed_load(&v, i);
        /* random access: element i alone, bit for bit the full decode */
        cr_assert(tu_bits_of(t, got) == tu_bits(y, t, i), "element %zu: %g vs %g", i,
                  got, yi);
        if (t == GHZ_F32)
            cr_assert(tu_flt_bits(ghz_fixed_load_f32(&v, i)) == tu_bits(y, t, i));
        if (xi == 0.0) cr_assert(tu_bits(y, t, i) == 0, "zero decodes as +0");
        if (fabs(xi) == (t == GHZ_F32 ? FLT_MAX : DBL_MAX))
            cr_assert(isfinite(yi), "the largest finite value stays finite");
    }
    free(buf);
    free(x);
    free(y);
}

Test(fixed, specials_and_random_access)
{
    each_case(access_case);
}

/* One block of given values; returns the decoded block and the block word. */
static uint16_t one_block(ghz_dtype_t t, unsigned bits, const double* vals, unsigned m,
                          double* out)
{
    void* x = tu_alloc(t, m);
    unsigned char* buf;
    size_t size, i;
    void* y;
    uint16_t w;
    for (i = 0; i < m; i++) tu_set(x, t, i, vals[i]);
    buf = fixed_compress(t, bits, x, m, &size);
    y = fixed_decompress(buf, size, t, m);
    for (i = 0; i < m; i++) out[i] = tu_get(y, t, i);
    w = (uint16_t)tu_rd(buf + 64, 2);
    free(buf);
    free(x);
    free(y);
    return w;
}

Test(fixed, special_blocks_defined_exactly)
{
    double in[4], out[4];
    size_t d;
    for (d = 0; d < 2; d++) {
        ghz_dtype_t t = dtypes[d];
        uint16_t w;
        in[0] = NAN, in[1] = 1.5, in[2] = -0.0, in[3] = NAN;
        w = one_block(t, 16, in, 4, out);
        cr_assert(isnan(out[0]) && isnan(out[3]) && out[1] == 1.5 && out[2] == 0.0 &&
                  !signbit(out[2]));
        cr_assert_eq(w, (1u << 12) | (1 + 1100), "word %04x", w);
        in[0] = INFINITY, in[3] = INFINITY;
        w = one_block(t, 8, in, 4, out);
        cr_assert(out[0] == INFINITY && out[3] == INFINITY && w >> 12 == 2);
        in[0] = -INFINITY, in[3] = -INFINITY;
        w = one_block(t, 8, in, 4, out);
        cr_assert(out[0] == -INFINITY && out[3] == -INFINITY && w >> 12 == 3);
        in[0] = INFINITY; /* +Inf and -Inf: both decode as NaN, never finite */
        w = one_block(t, 32, in, 4, out);
        cr_assert(isnan(out[0]) && isnan(out[3]) && w >> 12 == 1);
        in[0] = -0.0, in[1] = 0.0, in[2] = -0.0, in[3] = 0.0; /* zero block */
        w = one_block(t, 32, in, 4, out);
        cr_assert(w == 0 && !signbit(out[0]) && out[0] == 0.0 && !signbit(out[2]));
        in[0] = NAN, in[1] = NAN, in[2] = NAN, in[3] = NAN; /* no finite value */
        w = one_block(t, 32, in, 4, out);
        cr_assert(w == 1u << 12 && isnan(out[0]) && isnan(out[3]));
        /* saturation: the largest value just below 2^e decodes to (2^(l-1)-1) u */
        in[0] = t == GHZ_F32 ? (double)nextafterf(1.0f, 0.0f) : nextafter(1.0, 0.0);
        in[1] = 0.25, in[2] = -in[0], in[3] = 0.0;
        w = one_block(t, 8, in, 4, out);
        cr_assert(w == 1100 && out[0] == 127.0 / 128.0 && out[2] == -127.0 / 128.0 &&
                  out[1] == 0.25, "word %04x, %g %g", w, out[0], out[2]);
        /* the smallest subnormal, alone: exact at every l */
        in[0] = t == GHZ_F32 ? ldexp(1.0, -149) : ldexp(1.0, -1074);
        in[1] = -in[0], in[2] = 0.0, in[3] = in[0];
        w = one_block(t, 8, in, 4, out);
        cr_assert(out[0] == in[0] && out[1] == in[1] && out[3] == in[0], "%g", out[0]);
        cr_assert_eq((int)w - 1100, t == GHZ_F32 ? -148 : -1073);
        /* the largest finite value: largest exponent, no overflow */
        in[0] = t == GHZ_F32 ? FLT_MAX : DBL_MAX;
        w = one_block(t, 8, in, 1, out);
        cr_assert(isfinite(out[0]) && (int)w - 1100 == (t == GHZ_F32 ? 128 : 1024));
    }
}

Test(fixed, f32_at_l32_keeps_values_near_the_maximum_exactly)
{
    size_t n = 4096, size, i;
    float* x = tu_make(GHZ_F32, TU_RANDOM, n, 5);
    unsigned char* buf;
    float* y;
    for (i = 0; i < n; i += 32) x[i] = 99.0f; /* every block's max is in [64, 128) */
    buf = fixed_compress(GHZ_F32, 32, x, n, &size);
    y = fixed_decompress(buf, size, GHZ_F32, n);
    for (i = 0; i < n; i++)
        if (fabsf(x[i]) >= 1.0f) /* 24-bit significand within 31 bits of 2^7 */
            cr_assert(x[i] == y[i], "element %zu: %.9g vs %.9g", i, x[i], y[i]);
    free(buf);
    free(x);
    free(y);
}

static void store_case(ghz_dtype_t t, unsigned bits)
{
    size_t n = 100, size, i;
    void* x = tu_make(t, TU_RANDOM, n, 9);
    unsigned char* buf;
    ghz_fixed_view_t v;
    void* y;
    tu_set(x, t, 40, NAN);
    for (i = 64; i < 96; i++) tu_set(x, t, i, 0.0); /* block 2 is a zero block */
    buf = fixed_compress(t, bits, x, n, &size);
    v = ghz_fixed_view_make(buf, t, bits, n);
    for (i = 0; i < 32; i++) { /* in range: within the bound of 2^e */
        double nv = tu_get(x, t, i) * 0.5;
        cr_assert_eq(ghz_fixed_store(&v, i, nv), 1);
        cr_assert(fabs(ghz_fixed_load(&v, i) - nv) <= ldexp(128.0, 1 - (int)bits),
                  "l=%u element %zu", bits, i);
    }
    cr_assert_eq(ghz_fixed_store(&v, 1, 1e6), 0, "saturates");
    { /* (2^(l-1) - 1) u with u = 2^(7-l+1): block 0's maximum is in [64, 100) */
        double sat = ldexp(ldexp(1.0, (int)bits - 1) - 1, 8 - (int)bits);
        if (t == GHZ_F32) sat = (float)sat;
        cr_assert(ghz_fixed_load(&v, 1) == sat, "saturated value %.17g", ghz_fixed_load(&v, 1));
    }
    cr_assert_eq(ghz_fixed_store(&v, 2, INFINITY), 0, "no K for Inf in block 0");
    cr_assert_eq(ghz_fixed_store(&v, 41, NAN), 1, "block 1 has K = NaN");
    cr_assert(isnan(ghz_fixed_load(&v, 41)));
    cr_assert_eq(ghz_fixed_store(&v, 40, 3.0), 1, "marker replaced by a finite value");
    cr_assert_eq(ghz_fixed_store(&v, 41, 4.0), 1, "K stays, with no marker left: still valid");
    cr_assert_eq(ghz_fixed_store(&v, 70, 1.0), 0, "zero block");
    cr_assert_eq(ghz_fixed_load(&v, 70), 0.0);
    cr_assert_eq(ghz_fixed_store(&v, 71, 0.0), 1);
    /* stores keep the frame valid, and loads agree with the full decode */
    y = fixed_decompress(buf, size, t, n);
    for (i = 0; i < n; i++)
        cr_assert(tu_bits_of(t, ghz_fixed_load(&v, i)) == tu_bits(y, t, i));
    free(buf);
    free(x);
    free(y);
}

Test(fixed, element_store)
{
    each_case(store_case);
}

Test(fixed, dot_helper)
{
    size_t n = 1000, size, i;
    double* x = tu_make(GHZ_F64, TU_SMOOTH, n, 3);
    double* yv = tu_make(GHZ_F64, TU_RANDOM, n, 4);
    unsigned char* buf = fixed_compress(GHZ_F64, 16, x, n, &size);
    double* dec = fixed_decompress(buf, size, GHZ_F64, n);
    ghz_fixed_view_t v = ghz_fixed_view_make(buf, GHZ_F64, 16, n);
    double want = 0.0, exact = 0.0, got = ghz_fixed_dot(&v, yv + 10, 10, n);
    for (i = 10; i < n; i++) {
        want += dec[i] * yv[i];
        exact += x[i] * yv[i];
    }
    cr_assert(got == want, "dot %.17g, decoded-then-summed %.17g", got, want);
    cr_assert(fabs(got - exact) < 1e-2 * fabs(exact) + 1.0, "dot %g vs uncompressed %g", got,
              exact);
    free(buf);
    free(x);
    free(yv);
    free(dec);
}

/* ---- bad input ------------------------------------------------------------------ */

static ghz_status_t decode_guarded(const unsigned char* buf, size_t size)
{
    tu_guard_t g;
    double out[64];
    size_t n_out;
    ghz_status_t st = ghz_fixed_decompress(tu_guard_copy(&g, buf, size), size, out, sizeof out,
                                           &n_out);
    tu_guard_free(&g);
    return st;
}

Test(fixed, bad_arguments)
{
    float x[40] = {1.0f};
    unsigned char buf[GHZ_FIXED_SIZE(40, 32)];
    size_t size;
    cr_assert_eq(ghz_fixed_compress(GHZ_F32, 12, x, 40, buf, sizeof buf, &size),
                 GHZ_ERR_UNSUPPORTED);
    cr_assert(strstr(ghz_last_error_detail(), "8, 16 or 32") != NULL);
    cr_assert_eq(ghz_fixed_compress(GHZ_F32, 0, x, 40, buf, sizeof buf, &size), GHZ_ERR_UNSUPPORTED);
    cr_assert_eq(ghz_fixed_compress(GHZ_F32, 64, x, 40, buf, sizeof buf, &size), GHZ_ERR_UNSUPPORTED);
    cr_assert_eq(ghz_fixed_compress((ghz_dtype_t)3, 8, x, 40, buf, sizeof buf, &size),
                 GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_fixed_compress(GHZ_F32, 8, NULL, 40, buf, sizeof buf, &size),
                 GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_fixed_compress(GHZ_F32, 8, x, 40, NULL, sizeof buf, &size),
                 GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_fixed_compress(GHZ_F32, 32, x, 40, buf, sizeof buf - 1, &size),
                 GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_fixed_compress(GHZ_F32, 32, x, 40, buf, sizeof buf, &size), GHZ_SUCCESS);
    {
        float out[40];
        cr_assert_eq(ghz_fixed_decompress(buf, size, out, sizeof out - 1, NULL),
                     GHZ_ERR_DST_TOO_SMALL);
        cr_assert_eq(ghz_fixed_decompress(buf, size, NULL, sizeof out, NULL), GHZ_ERR_INVALID_ARG);
        cr_assert_eq(ghz_fixed_decompress(NULL, size, out, sizeof out, NULL), GHZ_ERR_INVALID_ARG);
    }
}

Test(fixed, modes_reject_each_other)
{
    float x[40];
    unsigned char fixed[GHZ_FIXED_SIZE(40, 16)], main_fmt[GHZ_COMPRESS_BOUND(40, GHZ_F32)];
    ghz_params_t p = GHZ_PARAMS_INIT;
    ghz_frame_info_t fi;
    ghz_fixed_info_t xi;
    float out[40];
    size_t size, msize, i;
    for (i = 0; i < 40; i++) x[i] = (float)i;
    cr_assert_eq(ghz_fixed_compress(GHZ_F32, 16, x, 40, fixed, sizeof fixed, &size), GHZ_SUCCESS);
    cr_assert_eq(ghz_compress(&p, x, 40, main_fmt, sizeof main_fmt, &msize), GHZ_SUCCESS);
    cr_assert_eq(ghz_decompress(fixed, size, out, sizeof out, NULL), GHZ_ERR_UNSUPPORTED);
    cr_assert(strstr(ghz_last_error_detail(), "ghz_fixed_decompress") != NULL);
    cr_assert_eq(ghz_frame_info(fixed, size, &fi), GHZ_ERR_UNSUPPORTED);
    cr_assert_eq(ghz_fixed_decompress(main_fmt, msize, out, sizeof out, NULL), GHZ_ERR_UNSUPPORTED);
    cr_assert(strstr(ghz_last_error_detail(), "ghz_decompress") != NULL, "%s",
              ghz_last_error_detail());
    cr_assert_eq(ghz_fixed_info(main_fmt, msize, &xi), GHZ_ERR_UNSUPPORTED);
    cr_assert_eq(ghz_fixed_info(fixed, size, &xi), GHZ_SUCCESS);
    cr_assert(xi.dtype == GHZ_F32 && xi.bits == 16 && xi.n == 40 && xi.n_blocks == 2 &&
              xi.frame_size == size);
}

static unsigned char* sample(ghz_dtype_t t, unsigned bits, size_t n, size_t* size)
{
    void* x = special_mix(t, n, 11);
    unsigned char* buf = fixed_compress(t, bits, x, n, size);
    free(x);
    return buf;
}

Test(fixed, truncated_header_and_trailing_bytes)
{
    size_t size, k;
    unsigned char* buf = sample(GHZ_F64, 16, 50, &size);
    unsigned char* longer = malloc(size + 1);
    for (k = 0; k < size; k++) {
        ghz_status_t st = decode_guarded(buf, k);
        cr_assert(st == GHZ_ERR_TRUNCATED, "%zu of %zu bytes: %s", k, size, ghz_status_string(st));
    }
    memcpy(longer, buf, size);
    longer[size] = 0;
    cr_assert_eq(decode_guarded(longer, size + 1), GHZ_ERR_CORRUPT, "trailing byte");
    cr_assert_eq(decode_guarded(buf, size), GHZ_SUCCESS);
    free(longer);
    free(buf);
}

static ghz_status_t with_byte(const unsigned char* buf, size_t size, size_t at, unsigned v)
{
    unsigned char* c = malloc(size);
    ghz_status_t st;
    memcpy(c, buf, size);
    c[at] = (unsigned char)v;
    st = decode_guarded(c, size);
    free(c);
    return st;
}

Test(fixed, corrupt_header_fields)
{
    static const struct {
        size_t at;
        unsigned value;
        ghz_status_t want;
        const char* what;
    } cases[] = {
        {0, 0xF8, GHZ_ERR_NOT_GHZ, "magic"},
        {4, 1, GHZ_ERR_VERSION, "version 1"},
        {4, 3, GHZ_ERR_VERSION, "version 3"},
        {6, 65, GHZ_ERR_CORRUPT, "header_size"},
        {8, 3, GHZ_ERR_CORRUPT, "dtype"},
        {9, 4, GHZ_ERR_CORRUPT, "mode 4"},
        {9, 1, GHZ_ERR_UNSUPPORTED, "mode 1"},
        {10, 4, GHZ_ERR_CORRUPT, "block_log2"},
        {11, 12, GHZ_ERR_CORRUPT, "bits 12"},
        {11, 16, GHZ_ERR_CORRUPT, "bits 16: payload mismatch"},
        {13, 1, GHZ_ERR_CORRUPT, "reserved 13"},
        {63, 1, GHZ_ERR_CORRUPT, "reserved 63"},
        {16, 100, GHZ_ERR_CORRUPT, "n without n_blocks"},
        {24, 3, GHZ_ERR_CORRUPT, "n_blocks"},
        {32, 0, GHZ_ERR_CORRUPT, "payload_size"},
        {23, 0x80, GHZ_ERR_CORRUPT, "huge n"},
    };
    size_t size, k;
    unsigned char* buf = sample(GHZ_F32, 8, 50, &size);
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ghz_status_t st = with_byte(buf, size, cases[k].at, cases[k].value);
        cr_assert_eq(st, cases[k].want, "%s: %s", cases[k].what, ghz_status_string(st));
    }
    free(buf);
}

Test(fixed, every_header_bit_flip_is_safe)
{
    size_t size, byte;
    unsigned char* buf = sample(GHZ_F64, 32, 50, &size);
    int rejected = 0;
    for (byte = 0; byte < 64; byte++) {
        unsigned bit;
        for (bit = 0; bit < 8; bit++) {
            ghz_status_t st = with_byte(buf, size, byte, buf[byte] ^ (1u << bit));
            /* n may change within the last block (n = 50 -> 51 ...): then a zero
             * padding code becomes an element, still a valid frame */
            cr_assert(st != GHZ_SUCCESS || (byte >= 16 && byte < 17),
                      "byte %zu bit %u accepted", byte, bit);
            rejected += st != GHZ_SUCCESS;
        }
    }
    cr_assert(rejected >= 64 * 8 - 8);
    free(buf);
}

Test(fixed, corrupt_blocks)
{
    size_t size, codes;
    unsigned char* buf = sample(GHZ_F32, 16, 50, &size); /* 2 blocks */
    uint16_t w0 = (uint16_t)tu_rd(buf + 64, 2);
    unsigned char* c = malloc(size);
    codes = 64 + 16;
    cr_assert(w0 != 0);
#define RESET memcpy(c, buf, size)
    RESET;
    tu_wr(c + 64, w0 | 0x4000u, 2);
    cr_assert_eq(decode_guarded(c, size), GHZ_ERR_CORRUPT, "word bit 14");
    RESET;
    tu_wr(c + 64, (w0 & 0xF000u) | (1100 + 129), 2);
    cr_assert_eq(decode_guarded(c, size), GHZ_ERR_CORRUPT, "exponent 129 for f32");
    RESET;
    tu_wr(c + 64, (w0 & 0xF000u) | (1100 - 149), 2);
    cr_assert_eq(decode_guarded(c, size), GHZ_ERR_CORRUPT, "exponent -149 for f32");
    RESET;
    tu_wr(c + 64, w0 & 0x0FFFu, 2); /* K = 0 ... */
    tu_wr(c + codes + 2 * 5, 0x8000u, 2); /* ... and a marker */
    cr_assert_eq(decode_guarded(c, size), GHZ_ERR_CORRUPT, "marker without K");
    RESET;
    tu_wr(c + 64, w0 & 0xF000u, 2); /* zero block with nonzero codes */
    cr_assert_eq(decode_guarded(c, size), GHZ_ERR_CORRUPT, "zero block codes");
    RESET;
    tu_wr(c + codes + 2 * 63, 1, 2); /* code of position 63 > n = 50 */
    cr_assert_eq(decode_guarded(c, size), GHZ_ERR_CORRUPT, "padding code");
    RESET;
    c[64 + 4] = 1; /* word padding */
    cr_assert_eq(decode_guarded(c, size), GHZ_ERR_CORRUPT, "word padding");
    RESET;
    cr_assert_eq(decode_guarded(c, size), GHZ_SUCCESS);
#undef RESET
    free(c);
    free(buf);
}

/* The GPU's binary32 shortcut equals the binary64 reference for every code of l = 8
 * and 16 under every float32 block word (including subnormal results, the zero block
 * and the markers of each K). */
Test(fixed, f32_shortcut_equals_reference_exhaustively)
{
    unsigned j;
    for (j = 0; j < 2; j++) {
        unsigned bits = bits_all[j], b, kind, fast_words = 0;
        for (b = 0; b <= 1228; b += b == 0 ? 952 : 1)
            for (kind = 0; kind < 4; kind++) {
                uint16_t w = (uint16_t)(b | (kind << 12));
                ghz_fixed_scale_f32_t sf = ghz_fixed_scale_f32_make(w, bits);
                int32_t c, lo = -(1 << (bits - 1)), hi = (1 << (bits - 1)) - 1;
                if (!sf.fast) continue;
                fast_words++;
                for (c = lo; c <= hi; c++) {
                    float want = ghz_fixed_decode_f32(w, c, bits);
                    float got = ghz_fixed_apply_f32_fast(sf, w, c, bits);
                    cr_assert(tu_flt_bits(got) == tu_flt_bits(want) || (kind == 0 && c == lo),
                              "l=%u word %04x code %d: %a vs %a", bits, w, c, got, want);
                }
            }
        /* all but the blocks of extreme exponents take the shortcut */
        cr_assert(fast_words > 4 * 200, "l=%u: %u words fast", bits, fast_words);
    }
    cr_assert(ghz_fixed_int_to_f64(INT32_MIN) == -2147483648.0);
    cr_assert(ghz_fixed_int_to_f64(INT32_MAX) == 2147483647.0);
}

/* The GPU encoder's 32-bit float shortcuts give the general functions' top, class and
 * code, for floats of every exponent against every block exponent at or above theirs
 * (and above, which element stores meet). */
Test(fixed, f32_encode_shortcut_equals_general)
{
    tu_rng_t r;
    long k;
    tu_seed(&r, 123);
    for (k = 0; k < 3000000; k++) {
        uint32_t u = (uint32_t)tu_next(&r);
        unsigned bits = bits_all[k % 3], cb;
        float x;
        ghz_fixed_split_t s;
        int e, sat_a = 0, sat_b = 0, top;
        if (k % 7 == 0) u &= 0x807FFFFFu | ((uint32_t)tu_below(&r, 3) << 23); /* subnormals */
        memcpy(&x, &u, 4);
        s = ghz_fixed_split_f32(x);
        top = ghz_fixed_top_f32(u, &cb);
        cr_assert(top == s.top && cb == ghz_fixed_class_bit(s.cls), "top of %08x", u);
        if (s.cls != GHZ_FIXED_FINITE) continue;
        e = (s.top == GHZ_FIXED_NO_TOP ? -148 : s.top) + (int)tu_below(&r, 40) - 2;
        if (e < -148) e = -148;
        if (e > 128) e = 128;
        cr_assert(ghz_fixed_code_f32(u, e, bits, &sat_a) == ghz_fixed_code(&s, e, bits, &sat_b) &&
                      sat_a == sat_b,
                  "code of %08x at e=%d l=%u", u, e, bits);
    }
}

/* The GPU's binary64 FMA shortcut equals the reference decode for every block
 * exponent of either dtype (and the zero block), every l, the extreme codes and
 * random ones, including subnormal results. */
Test(fixed, fma_shortcut_equals_reference)
{
    tu_rng_t r;
    unsigned j, b;
    long fast = 0;
    tu_seed(&r, 77);
    for (j = 0; j < 3; j++) {
        unsigned bits = bits_all[j];
        int32_t cmax = (int32_t)((((int64_t)1) << (bits - 1)) - 1);
        for (b = 0; b <= 2124; b += b == 0 ? 27 : 1) {
            ghz_fixed_scale_fma_t sc = ghz_fixed_scale_fma_make((uint16_t)b, bits);
            int t;
            if (!sc.fast) continue;
            fast++;
            for (t = 0; t < 400; t++) {
                int32_t c = t < 6 ? (int32_t[]){0, 1, -1, cmax, -cmax, cmax / 3}[t]
                                  : (int32_t)(tu_below(&r, 2 * (uint64_t)cmax + 1) - (uint64_t)cmax);
                double want = ghz_fixed_decode_f64((uint16_t)b, c, bits);
                double got = ghz_fixed_fma_value(sc, c);
                cr_assert(tu_dbl_bits(got) == tu_dbl_bits(want), "l=%u B=%u code %d: %a vs %a", bits, b,
                          c, got, want);
            }
        }
    }
    cr_assert(fast > 3 * 2000, "%ld words took the shortcut", fast);
}

/* The GPU encoder's floating-point shortcuts (one FMA per value) give the integer
 * reference's code for every finite value against every block exponent at or above its
 * top, float32 at l = 8, 16 and float64 at every l: random bit patterns (subnormals
 * included), exact ties c + 1/2 in units of the block, values just below 2^e (which
 * saturate), and the zero block. */
Test(fixed, fma_encode_shortcuts_equal_reference)
{
    tu_rng_t r;
    long k, fast32 = 0, fast64 = 0;
    tu_seed(&r, 4242);
    for (k = 0; k < 2000000; k++) {
        unsigned bits = bits_all[k % 3];
        int sat = 0, e;
        int32_t cmax = (int32_t)((((int64_t)1) << (bits - 1)) - 1);
        if (bits <= 16) { /* float32 */
            uint32_t u = (uint32_t)tu_next(&r) & 0xFF7FFFFFu; /* exponent below 0xFF: finite */
            float x;
            ghz_fixed_split_t s;
            ghz_fixed_enc_f32_t sc;
            if (k % 7 == 0) u &= 0x807FFFFFu; /* subnormal or zero */
            memcpy(&x, &u, 4);
            s = ghz_fixed_split_f32(x);
            e = (s.top == GHZ_FIXED_NO_TOP ? -148 : s.top) + (int)tu_below(&r, 40);
            if (k % 5 == 0) { /* a tie or the top of the range, in units 2^(e-l+1) of a normal block */
                int32_t c = (int32_t)tu_below(&r, 2 * (uint64_t)cmax + 2) - cmax - 1;
                e = (int)tu_below(&r, 197) - 70; /* <= 126: 2^e and c 2^(e-l+1) finite */
                x = ldexpf((float)c + (k % 10 == 0 ? 0.5f : 0.0f), e - (int)bits + 1);
                if ((k / 3) % 3 == 0) x = nextafterf(ldexpf(1.0f, e), 0.0f) * (k % 2 ? -1.0f : 1.0f);
                s = ghz_fixed_split_f32(x);
            }
            if (e > 128) e = 128;
            if (s.top != GHZ_FIXED_NO_TOP && e < s.top) continue;
            sc = ghz_fixed_enc_f32_make(e, bits);
            if (!sc.fast) continue;
            fast32++;
            cr_assert(ghz_fixed_code_f32_fast(sc, x, bits) == ghz_fixed_code(&s, e, bits, &sat),
                      "f32 %a at e=%d l=%u: %d vs %d", (double)x, e, bits, ghz_fixed_code_f32_fast(sc, x, bits),
                      ghz_fixed_code(&s, e, bits, &sat));
        }
        { /* float64 */
            uint64_t u = tu_next(&r) & 0xFFEFFFFFFFFFFFFFull;
            double x;
            ghz_fixed_split_t s;
            ghz_fixed_enc_f64_t sc;
            if (k % 7 == 0) u &= 0x800FFFFFFFFFFFFFull;
            memcpy(&x, &u, 8);
            s = ghz_fixed_split_f64(x);
            e = (s.top == GHZ_FIXED_NO_TOP ? -1073 : s.top) + (int)tu_below(&r, 80);
            if (k % 5 == 0) {
                int32_t c = (int32_t)((int64_t)tu_below(&r, 2 * (uint64_t)cmax + 2) - cmax - 1);
                e = (int)tu_below(&r, 1200) - 600;
                x = ldexp((double)c + (k % 10 == 0 ? 0.5 : 0.0), e - (int)bits + 1);
                if ((k / 3) % 3 == 0) x = nextafter(ldexp(1.0, e), 0.0) * (k % 2 ? -1.0 : 1.0);
                s = ghz_fixed_split_f64(x);
            }
            if (e > 1024) e = 1024;
            if (s.top != GHZ_FIXED_NO_TOP && e < s.top) continue;
            sc = ghz_fixed_enc_f64_make(e, bits);
            if (!sc.fast) continue;
            fast64++;
            cr_assert(ghz_fixed_code_f64_fast(sc, x, bits) == ghz_fixed_code(&s, e, bits, &sat),
                      "f64 %a at e=%d l=%u: %d vs %d", x, e, bits, ghz_fixed_code_f64_fast(sc, x, bits),
                      ghz_fixed_code(&s, e, bits, &sat));
        }
    }
    { /* the zero block */
        ghz_fixed_split_t z = ghz_fixed_split_f32(-0.0f);
        int sat = 0;
        cr_assert(ghz_fixed_enc_f32_make(GHZ_FIXED_NO_TOP, 8).fast);
        cr_assert_eq(ghz_fixed_code_f32_fast(ghz_fixed_enc_f32_make(GHZ_FIXED_NO_TOP, 8), -0.0f, 8),
                     ghz_fixed_code(&z, GHZ_FIXED_NO_TOP, 8, &sat));
        cr_assert_eq(ghz_fixed_code_f64_fast(ghz_fixed_enc_f64_make(GHZ_FIXED_NO_TOP, 32), 0.0, 32), 0);
    }
    cr_assert(fast32 > 800000 && fast64 > 1500000, "%ld / %ld values took the shortcuts", fast32, fast64);
}
