/* test/unit/test_special.c: values the quantizer cannot or must not touch (NaN with
 * payloads, infinities, -0.0, denormals, FLT_MAX, values too large for the integer
 * range) and fill values (exact, excluded from the REL range, FILLED blocks). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Bit patterns of specials, per dtype. */
static const uint32_t f32_specials[] = {
    0x7FC00000u, /* quiet NaN */
    0xFFC00000u, /* negative quiet NaN */
    0x7FC12345u, /* quiet NaN with payload */
    0x7F800001u, /* signalling NaN */
    0xFFBFFFFFu, /* negative signalling NaN with payload */
    0x7F800000u, /* +Inf */
    0xFF800000u, /* -Inf */
};
static const uint64_t f64_specials[] = {
    0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF80000DEADBEEFull,
    0x7FF0000000000001ull, 0xFFF7FFFFFFFFFFFFull, 0x7FF0000000000000ull,
    0xFFF0000000000000ull,
};

/* Ordinary values around specials, in many block layouts: specials alone in a block,
 * mixed into quantizable values, whole blocks of one special. */
static void specials_layouts(ghz_dtype_t t, ghz_eb_mode_t mode, double eb)
{
    const size_t nsp = 7, n = 32 * 40 + 5;
    void* a = tu_make(t, TU_WALK, n, 42);
    size_t i, b;
    ghz_params_t p = tu_params(t, mode, eb);
    tu_rng_t r;
    tu_seed(&r, 5);
    for (b = 0; b < (n + 31) / 32; b++) {
        size_t lo = 32 * b, hi = lo + 32 < n ? lo + 32 : n;
        uint64_t sp = t == GHZ_F32 ? f32_specials[b % nsp] : f64_specials[b % nsp];
        switch (b % 5) {
        case 0: break;                                            /* ordinary */
        case 1: tu_set_bits(a, t, lo + tu_below(&r, hi - lo), sp); break; /* one special */
        case 2: for (i = lo; i < hi; i++) tu_set_bits(a, t, i, sp); break; /* CONST */
        case 3: for (i = lo; i < hi; i += 2) tu_set_bits(a, t, i, sp); break;
        case 4: /* different specials mixed */
            for (i = lo; i < hi; i++)
                tu_set_bits(a, t, i, t == GHZ_F32 ? f32_specials[i % nsp] : f64_specials[i % nsp]);
            break;
        }
    }
    tu_roundtrip(&p, a, n, NULL); /* checks non-finite values bit-exactly */
    free(a);
}

Test(special, nan_inf_bit_exact_f32_abs) { specials_layouts(GHZ_F32, GHZ_EB_ABS, 1e-3); }
Test(special, nan_inf_bit_exact_f32_rel) { specials_layouts(GHZ_F32, GHZ_EB_REL, 1e-3); }
Test(special, nan_inf_bit_exact_f64_abs) { specials_layouts(GHZ_F64, GHZ_EB_ABS, 1e-6); }
Test(special, nan_inf_bit_exact_f64_rel) { specials_layouts(GHZ_F64, GHZ_EB_REL, 1e-2); }

/* FORMAT.md, NaN as the fill value: a frame written without a declared fill declares
 * the canonical quiet NaN; a block of it costs nothing (FILLED), a block mixing it with
 * numbers its mask (4 bytes); a NaN of other bits or an Inf stays an ordinary value (a
 * block of it CONST, mixed RAW), all bit for bit. */
Test(special, canonical_nan_is_the_fill)
{
    int k;
    for (k = 0; k < 2; k++) {
        const ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        const uint64_t qnan = k ? 0x7FF8000000000000ull : 0x7FC00000u;
        const uint64_t neg = k ? 0xFFF8000000000000ull : 0xFFC00000u;
        const size_t n = 32 * 5;
        void* a = tu_make(t, TU_SMOOTH, n, 5);
        ghz_params_t p = tu_params(t, GHZ_EB_ABS, 1e-3);
        ghz_frame_info_t fi;
        size_t i, size;
        unsigned char* c;
        for (i = 0; i < 32; i++) tu_set_bits(a, t, i, qnan);        /* block 0: FILLED */
        for (i = 32; i < 64; i += 3) tu_set_bits(a, t, i, qnan);    /* block 1: masked */
        for (i = 64; i < 96; i++) tu_set_bits(a, t, i, neg);        /* block 2: CONST */
        tu_set_bits(a, t, 100, neg);                                /* block 3: RAW */
        tu_set_bits(a, t, 130, k ? 0x7FF0000000000000ull : 0x7F800000u); /* block 4: RAW */
        tu_set_bits(a, t, 131, qnan);
        tu_roundtrip(&p, a, n, NULL); /* every value within the bound, NaN and Inf exact */
        c = tu_compress(&p, a, n, &size);
        cr_assert_eq(ghz_frame_info(c, size, &fi), GHZ_SUCCESS);
        cr_assert(fi.has_fill == 1 && fi.fill_bits == qnan, "has_fill %d fill_bits %llx", fi.has_fill,
                  (unsigned long long)fi.fill_bits);
        cr_assert(c[64] == 0x5F && (c[65] & 0x80) && (c[65] & 31) < 31 && c[66] == 0x3F && c[67] == 0x1F &&
                      c[68] == 0x1F,
                  "%s codes %02x %02x %02x %02x %02x", k ? "f64" : "f32", c[64], c[65], c[66], c[67], c[68]);
        /* declared, the fill is the caller's, NaN or not */
        free(c);
        p.has_fill = 1;
        p.fill = -1e34;
        c = tu_compress(&p, a, n, &size);
        cr_assert_eq(ghz_frame_info(c, size, &fi), GHZ_SUCCESS);
        cr_assert(fi.has_fill == 1 && fi.fill_bits == tu_bits_of(t, -1e34) && c[64] == 0x3F);
        free(c);
        free(a);
    }
}

/* A block of one NaN of other bits than the fill costs sizeof(T) (CONST), bit for bit. */
Test(special, nan_block_is_const)
{
    const size_t n = 64;
    uint32_t a[64];
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    size_t i, size;
    unsigned char* c;
    for (i = 0; i < n; i++) a[i] = 0x7FC0BEEFu;
    size = tu_roundtrip(&p, a, n, NULL);
    cr_assert_eq(size, 64 + 16 + 8, "size %zu", size);
    c = tu_compress(&p, a, n, &size);
    cr_assert(c[64] == 0x3F && c[65] == 0x3F, "codes %02x %02x, expected CONST 3f", c[64],
              c[65]);
    cr_assert(tu_rd(c + 64 + 16, 4) == 0x7FC0BEEFu && tu_rd(c + 64 + 20, 4) == 0x7FC0BEEFu);
    free(c);
}

/* -0.0, denormals, the largest floats, and values too large for the integer range. */
Test(special, signed_zero_denormals_huge)
{
    int k;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        const size_t n = 32 * 8;
        void* a = tu_make(t, TU_RANDOM, n, 3);
        ghz_params_t p = tu_params(t, GHZ_EB_ABS, 1e-3);
        double tiny = t == GHZ_F32 ? (double)FLT_TRUE_MIN : DBL_TRUE_MIN;
        double big = t == GHZ_F32 ? (double)FLT_MAX : DBL_MAX;
        size_t i, size;
        unsigned char* c;
        void* out;
        for (i = 0; i < 32; i++) tu_set(a, t, i, -0.0);          /* block 0: -0.0 */
        for (i = 32; i < 64; i++) tu_set(a, t, i, tiny * (double)(i - 40)); /* denormals */
        tu_set(a, t, 70, big);                                  /* block 2: FLT_MAX */
        tu_set(a, t, 71, -big);
        tu_set(a, t, 100, 1e30);                                /* block 3: too large */
        tu_set(a, t, 101, -1e30);
        for (i = 128; i < 160; i++) tu_set(a, t, i, 1e30);      /* block 4: CONST 1e30 */
        tu_set(a, t, 170, 536870911.0 * 2e-3 + 1.0);            /* block 5: just past QMAX */
        tu_set(a, t, 200, -0.0);                                /* block 6: a lone -0.0 */
        tu_roundtrip(&p, a, n, NULL);
        c = tu_compress(&p, a, n, &size);
        out = tu_decompress(c, size, t, n);
        for (i = 64; i < 192; i++) {
            double x = tu_get(a, t, i);
            if (fabs(x) >= 1e29)
                cr_assert(tu_bits(out, t, i) == tu_bits(a, t, i), "huge element %zu changed", i);
        }
        /* -0.0 either survives or decodes to +0.0 (recon(0) = +0.0): both within bound. */
        cr_assert(tu_get(out, t, 0) == 0.0 && tu_get(out, t, 200) == 0.0);
        free(out);
        free(c);
        free(a);
    }
}

/* A bound far below the float grid (1e-9 against a spacing of 1.2e-7 near 1): the
 * only float within the bound is the value itself, so every value must come back
 * exactly, whether its block is quantized (recon lands on it) or stored raw. */
Test(special, f32_grid_coarser_than_bound)
{
    const size_t n = 320;
    void* a = tu_alloc(GHZ_F32, n);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-9);
    size_t i, size;
    void *c, *out;
    for (i = 0; i < n; i++) tu_set(a, GHZ_F32, i, 1.0 + (double)i * 0x1p-20);
    tu_roundtrip(&p, a, n, NULL);
    c = tu_compress(&p, a, n, &size);
    out = tu_decompress(c, size, GHZ_F32, n);
    for (i = 0; i < n; i++)
        cr_assert(tu_bits(out, GHZ_F32, i) == tu_bits(a, GHZ_F32, i), "element %zu changed", i);
    free(out);
    free(c);
    free(a);
}

/* ---- fill values ------------------------------------------------------------------ */

/* Blocks fully fill, partly fill (leading, trailing, interleaved, single), fill next
 * to NaN; every fill position decodes bit-identical. */
static void fill_layouts(ghz_dtype_t t, ghz_eb_mode_t mode, double eb, double fill)
{
    const size_t n = 32 * 12 + 7;
    void* a = tu_make(t, TU_NOISY, n, 77);
    uint64_t fb = tu_bits_of(t, fill);
    uint64_t nan = t == GHZ_F32 ? 0x7FC00001u : 0x7FF8000000000001ull;
    ghz_params_t p = tu_params(t, mode, eb);
    size_t i, size, frame_fill = 0;
    unsigned char* c;
    ghz_frame_info_t fi;
    p.has_fill = 1;
    p.fill = fill;
    for (i = 0; i < 32; i++) tu_set_bits(a, t, i, fb);           /* block 0: all fill */
    for (i = 32; i < 40; i++) tu_set_bits(a, t, i, fb);          /* block 1: leading */
    for (i = 90; i < 96; i++) tu_set_bits(a, t, i, fb);          /* block 2: trailing */
    for (i = 96; i < 128; i += 3) tu_set_bits(a, t, i, fb);      /* block 3: interleaved */
    tu_set_bits(a, t, 140, fb);                                  /* block 4: one */
    for (i = 160; i < 192; i++) tu_set_bits(a, t, i, i % 2 ? fb : nan); /* 5: fill + NaN */
    tu_set_bits(a, t, 200, fb);                                  /* block 6: fill + NaN + */
    tu_set_bits(a, t, 201, nan);                                 /* ordinary */
    for (i = 224; i < 255; i++) tu_set_bits(a, t, i, fb);        /* block 7: all but last */
    tu_set_bits(a, t, 256 + 31, fb);                             /* block 8: last only */
    for (i = 32 * 12; i < n; i++) tu_set_bits(a, t, i, fb);      /* short last block: all */
    tu_roundtrip(&p, a, n, NULL);
    c = tu_compress(&p, a, n, &size);
    cr_assert_eq(ghz_frame_info(c, size, &fi), GHZ_SUCCESS);
    cr_assert(fi.has_fill && fi.fill_bits == fb, "has_fill %d fill_bits %llx", fi.has_fill,
              (unsigned long long)fi.fill_bits);
    cr_assert(c[11] == 1, "flags byte %02x", c[11]);
    cr_assert(tu_rd(c + 56, 8) == fb, "fill_bits field %llx", (unsigned long long)tu_rd(c + 56, 8));
    /* FILLED code for the all-fill blocks 0 and the short last one. */
    cr_assert(c[64 + 0] == 0x5F && c[64 + 12] == 0x5F, "codes %02x %02x", c[64], c[76]);
    /* partly filled quantized blocks carry the mask flag */
    cr_assert((c[64 + 1] & 0x80) && (c[64 + 3] & 0x80) && (c[64 + 4] & 0x80),
              "codes %02x %02x %02x", c[65], c[67], c[68]);
    cr_assert(c[64 + 5] == 0x1F, "fill + NaN block: code %02x, expected RAW", c[69]);
    for (i = 0; i < 13; i++) frame_fill += c[64 + i] == 0x5F;
    cr_assert_eq(frame_fill, 2);
    free(c);
    free(a);
}

Test(special, fill_f32_abs) { fill_layouts(GHZ_F32, GHZ_EB_ABS, 1e-2, -1e34); }
Test(special, fill_f32_rel) { fill_layouts(GHZ_F32, GHZ_EB_REL, 1e-3, -9999.0); }
Test(special, fill_f64_abs) { fill_layouts(GHZ_F64, GHZ_EB_ABS, 1e-5, 9.96921e36); }
Test(special, fill_f64_rel) { fill_layouts(GHZ_F64, GHZ_EB_REL, 1e-4, -1e34); }
/* A fill value inside the data's range: it must still come back exactly. */
Test(special, fill_quantizable_value) { fill_layouts(GHZ_F32, GHZ_EB_ABS, 1e-2, 1.5); }
Test(special, fill_nan) { fill_layouts(GHZ_F64, GHZ_EB_ABS, 1e-2, NAN); }

/* A fully filled array costs header + codes only (FILLED blocks have no payload). */
Test(special, all_fill_costs_header_and_codes)
{
    size_t n;
    int k;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        for (n = 1; n < 5000; n = n * 5 + 2) {
            void* a = tu_alloc(t, n);
            ghz_params_t p = tu_params(t, k ? GHZ_EB_REL : GHZ_EB_ABS, 1e-3);
            size_t i, size;
            double eb;
            p.has_fill = 1;
            p.fill = -1e34;
            for (i = 0; i < n; i++) tu_set(a, t, i, -1e34);
            size = tu_roundtrip(&p, a, n, &eb);
            cr_assert_eq(size, 64 + tu_codes_bytes(n), "n %zu: %zu bytes", n, size);
            free(a);
        }
    }
}

/* REL range ignores fill values: eb_abs equals the one of the data without them. */
Test(special, rel_range_ignores_fill)
{
    int k;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        const size_t n = 5000;
        void* a = tu_make(t, TU_NOISY, n, 9);
        void* b = tu_alloc(t, n);
        ghz_params_t p = tu_params(t, GHZ_EB_REL, 1e-3);
        size_t i, m = 0;
        double eb_fill, eb_nofill, eb_unflagged, lo, hi;
        for (i = 0; i < n; i++) {
            if (i % 7 == 3 || (i >= 1000 && i < 1100)) tu_set(a, t, i, -1e34);
            else tu_set_bits(b, t, m++, tu_bits(a, t, i));
        }
        p.has_fill = 1;
        p.fill = -1e34;
        tu_roundtrip(&p, a, n, &eb_fill);
        p.has_fill = 0;
        tu_roundtrip(&p, b, m, &eb_nofill);
        cr_assert(eb_fill == eb_nofill, "eb_abs with fill %.17g, without the fill positions %.17g",
                  eb_fill, eb_nofill);
        tu_range(b, t, m, 0, 0, &lo, &hi);
        cr_assert(eb_fill == tu_rel_bound(1e-3, lo, hi));
        /* Without declaring the fill value, -1e34 widens the range enormously. */
        tu_roundtrip(&p, a, n, &eb_unflagged);
        cr_assert(eb_unflagged > 1e20 * eb_fill, "undeclared fill: eb_abs %g", eb_unflagged);
        free(a);
        free(b);
    }
}

/* REL range also ignores NaN and Inf. */
Test(special, rel_range_ignores_nonfinite)
{
    const size_t n = 3000;
    void* a = tu_make(GHZ_F32, TU_SMOOTH, n, 9);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_REL, 1e-2);
    double eb, lo, hi;
    tu_range(a, GHZ_F32, n, 0, 0, &lo, &hi);
    tu_set_bits(a, GHZ_F32, 5, 0x7F800000u);
    tu_set_bits(a, GHZ_F32, 6, 0xFF800000u);
    tu_set_bits(a, GHZ_F32, 7, 0x7FC00000u);
    tu_roundtrip(&p, a, n, &eb);
    {
        double lo2, hi2;
        tu_range(a, GHZ_F32, n, 0, 0, &lo2, &hi2);
        cr_assert(eb == tu_rel_bound(1e-2, lo2, hi2), "eb_abs %.17g, expected %.17g", eb,
                  tu_rel_bound(1e-2, lo2, hi2));
        cr_assert(isfinite(eb) && eb > 0.0);
    }
    free(a);
}

/* Only NaN, Inf and fill: no finite non-fill value, E = 0, lossless. */
Test(special, rel_no_finite_values)
{
    const size_t n = 100;
    uint32_t a[100];
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_REL, 1e-2);
    size_t i;
    double eb = -1;
    for (i = 0; i < n; i++) a[i] = i % 3 ? 0x7FC00000u : (i % 2 ? 0x7F800000u : 0xC61C3C00u);
    p.has_fill = 1;
    p.fill = -9999.0; /* 0xC61C3C00 */
    tu_roundtrip(&p, a, n, &eb);
    cr_assert(eb == 0.0, "eb_abs %g", eb);
}
