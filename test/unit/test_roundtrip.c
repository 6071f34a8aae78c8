/* test/unit/test_roundtrip.c: compress -> decompress holds the error bound on every
 * element, for many data shapes, both dtypes, both modes and bounds from tiny to huge.
 * The bound is checked exactly (tu_within) against the eb_abs the frame header states,
 * and REL's eb_abs is checked against rel * (max - min) exactly. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "testutil.h"

static const tu_pattern_t all_patterns[] = {TU_RANDOM,   TU_SMOOTH, TU_NOISY, TU_CONSTANT,
                                            TU_ZERO,     TU_WALK,   TU_WIDE};
#define N_PATTERNS (sizeof all_patterns / sizeof all_patterns[0])
static const double bounds[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
#define N_BOUNDS (sizeof bounds / sizeof bounds[0])

/* REL: eb_abs is FORMAT.md's formula over the finite range, never above
 * rel * (max - min), and not needlessly small. */
static void check_rel_eb(double eb_abs, double rel, const void* a, ghz_dtype_t t, size_t n)
{
    double lo, hi;
    size_t cnt = tu_range(a, t, n, 0, 0, &lo, &hi);
    if (cnt == 0 || lo == hi) {
        cr_assert(eb_abs == 0.0, "REL on a zero range must be lossless, eb_abs %g", eb_abs);
        return;
    }
    cr_assert(tu_rel_holds(eb_abs, rel, lo, hi),
              "REL eb_abs %.17g exceeds rel %g * (%.17g - %.17g)", eb_abs, rel, hi, lo);
    cr_assert(eb_abs >= rel * (hi - lo) * (1.0 - 1e-12),
              "REL eb_abs %.17g needlessly below rel * range %.17g", eb_abs, rel * (hi - lo));
    cr_assert(eb_abs == tu_rel_bound(rel, lo, hi),
              "REL eb_abs %.17g differs from FORMAT.md's formula %.17g", eb_abs,
              tu_rel_bound(rel, lo, hi));
}

static void sweep(ghz_dtype_t t, ghz_eb_mode_t mode, size_t n)
{
    size_t pi, bi;
    for (pi = 0; pi < N_PATTERNS; pi++) {
        void* a = tu_make(t, all_patterns[pi], n, 1000 + pi);
        for (bi = 0; bi < N_BOUNDS; bi++) {
            ghz_params_t p = tu_params(t, mode, bounds[bi]);
            double eb_abs;
            tu_roundtrip(&p, a, n, &eb_abs);
            if (mode == GHZ_EB_REL) check_rel_eb(eb_abs, bounds[bi], a, t, n);
        }
        free(a);
    }
}

Test(roundtrip, f32_abs) { sweep(GHZ_F32, GHZ_EB_ABS, 50000); }
Test(roundtrip, f32_rel) { sweep(GHZ_F32, GHZ_EB_REL, 50000); }
Test(roundtrip, f64_abs) { sweep(GHZ_F64, GHZ_EB_ABS, 50000); }
Test(roundtrip, f64_rel) { sweep(GHZ_F64, GHZ_EB_REL, 50000); }

/* Lengths that are not a multiple of 32 (a short last block) and large. */
Test(roundtrip, odd_length)
{
    const size_t n = 1000003;
    void* a = tu_make(GHZ_F32, TU_NOISY, n, 7);
    void* b = tu_make(GHZ_F64, TU_WALK, n, 8);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    double eb;
    tu_roundtrip(&p, a, n, NULL);
    p = tu_params(GHZ_F64, GHZ_EB_REL, 1e-4);
    tu_roundtrip(&p, b, n, &eb);
    check_rel_eb(eb, 1e-4, b, GHZ_F64, n);
    free(a);
    free(b);
}

/* A bound so tiny nothing is quantizable: everything comes back bit-exact. */
Test(roundtrip, tiny_abs_bound)
{
    const size_t n = 10000;
    int k;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        void* a = tu_make(t, TU_RANDOM, n, 11);
        ghz_params_t p = tu_params(t, GHZ_EB_ABS, 1e-30);
        size_t size, i;
        unsigned char* c = tu_compress(&p, a, n, &size);
        void* out = tu_decompress(c, size, t, n);
        for (i = 0; i < n; i++)
            cr_assert(tu_bits(a, t, i) == tu_bits(out, t, i), "element %zu not bit-exact", i);
        /* Nothing quantizes: every block RAW, the worst case is reached exactly. */
        cr_assert(size == ghz_compress_bound(n, t), "size %zu, bound %zu", size,
                  ghz_compress_bound(n, t));
        free(a);
        free(out);
        free(c);
    }
}

/* A huge bound: every ordinary value quantizes to q = 0, so no payload at all. */
Test(roundtrip, huge_abs_bound)
{
    const size_t n = 10000;
    int k;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        void* a = tu_make(t, TU_WIDE, n, 12);
        ghz_params_t p = tu_params(t, GHZ_EB_ABS, 1e30);
        size_t size = tu_roundtrip(&p, a, n, NULL);
        cr_assert(size == 64 + tu_codes_bytes(n), "size %zu, expected header + codes %zu",
                  size, 64 + tu_codes_bytes(n));
        free(a);
    }
}

/* Values near the bound's grid: halfway points and their float neighbours, where a
 * quantizer that trusts rounding would step outside the bound. */
Test(roundtrip, grid_halfway_points)
{
    const size_t n = 32 * 200;
    static const double ebs[] = {0.1, 1e-3, 0.3, 1.0 / 3.0, 0.5, 0.7e-5};
    size_t e, i;
    int k;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        for (e = 0; e < sizeof ebs / sizeof ebs[0]; e++) {
            void* a = tu_alloc(t, n);
            ghz_params_t p = tu_params(t, GHZ_EB_ABS, ebs[e]);
            double Q = 2.0 * ebs[e];
            tu_rng_t r;
            tu_seed(&r, 99 + e);
            for (i = 0; i < n; i++) {
                double base = ((double)tu_below(&r, 2000001) - 1000000.0) + 0.5;
                double v = base * Q;
                if (t == GHZ_F32) {
                    float f = (float)v;
                    int step = (int)tu_below(&r, 5) - 2;
                    while (step > 0) { f = nextafterf(f, INFINITY); step--; }
                    while (step < 0) { f = nextafterf(f, -INFINITY); step++; }
                    v = f;
                } else {
                    int step = (int)tu_below(&r, 5) - 2;
                    while (step > 0) { v = nextafter(v, INFINITY); step--; }
                    while (step < 0) { v = nextafter(v, -INFINITY); step++; }
                }
                tu_set(a, t, i, v);
            }
            tu_roundtrip(&p, a, n, NULL);
            free(a);
        }
    }
}

/* Smooth data must actually compress: a codec storing everything raw would still hold
 * the bound. */
Test(roundtrip, compresses_smooth_data)
{
    const size_t n = 100000;
    void* s = tu_make(GHZ_F32, TU_SMOOTH, n, 1);
    void* z = tu_make(GHZ_F32, TU_NOISY, n, 2);
    void* d = tu_make(GHZ_F64, TU_SMOOTH, n, 3);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_REL, 1e-3);
    size_t size = tu_roundtrip(&p, s, n, NULL);
    cr_assert(size * 6 < n * 4, "smooth f32 REL 1e-3: %zu bytes for %zu values", size, n);
    size = tu_roundtrip(&p, z, n, NULL);
    cr_assert(size * 2 < n * 4, "noisy f32 REL 1e-3: %zu bytes for %zu values", size, n);
    p = tu_params(GHZ_F64, GHZ_EB_REL, 1e-3);
    size = tu_roundtrip(&p, d, n, NULL);
    cr_assert(size * 12 < n * 8, "smooth f64 REL 1e-3: %zu bytes for %zu values", size, n);
    free(s);
    free(z);
    free(d);
}

/* REL over data whose range spans the whole float range, and over a tiny range. */
Test(roundtrip, rel_extreme_ranges)
{
    const size_t n = 4096;
    void* a = tu_make(GHZ_F32, TU_RANDOM, n, 5);
    void* b = tu_make(GHZ_F64, TU_RANDOM, n, 6);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_REL, 1e-3);
    double eb;
    size_t i;
    tu_set(a, GHZ_F32, 10, FLT_MAX);
    tu_set(a, GHZ_F32, 20, -FLT_MAX);
    tu_roundtrip(&p, a, n, &eb);
    check_rel_eb(eb, 1e-3, a, GHZ_F32, n);
    /* f64 values in [1, 1 + 1e-9): tiny range, bound far below the values' ulp scale. */
    for (i = 0; i < n; i++) tu_set(b, GHZ_F64, i, 1.0 + tu_get(b, GHZ_F64, i) * 1e-11);
    p = tu_params(GHZ_F64, GHZ_EB_REL, 1e-2);
    tu_roundtrip(&p, b, n, &eb);
    check_rel_eb(eb, 1e-2, b, GHZ_F64, n);
    p.dtype = GHZ_F64;
    tu_set(b, GHZ_F64, 3, DBL_MAX / 4);
    tu_set(b, GHZ_F64, 4, -DBL_MAX / 4);
    tu_roundtrip(&p, b, n, &eb);
    check_rel_eb(eb, 1e-2, b, GHZ_F64, n);
    free(a);
    free(b);
}

/* Bounds at the ends of the double range: R = 1/Q overflows to Inf for a denormal E
 * (nothing quantizes), and E near DBL_MAX/2 still has a finite Q. */
Test(roundtrip, extreme_bounds)
{
    static const double ebs[] = {1e-310, 5e-324, 1e-300, 8e307, 1e307};
    const size_t n = 2000;
    size_t e, i;
    int k;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        void* a = tu_make(t, TU_WIDE, n, 21);
        for (i = 0; i < 64; i++) tu_set(a, t, i, 0.0);
        tu_set(a, t, 100, t == GHZ_F32 ? FLT_MAX : DBL_MAX);
        tu_set(a, t, 101, t == GHZ_F32 ? -FLT_MAX : -DBL_MAX);
        tu_set(a, t, 102, t == GHZ_F32 ? FLT_TRUE_MIN : DBL_TRUE_MIN);
        for (e = 0; e < sizeof ebs / sizeof ebs[0]; e++) {
            ghz_params_t p = tu_params(t, GHZ_EB_ABS, ebs[e]);
            tu_roundtrip(&p, a, n, NULL);
        }
        free(a);
    }
}

/* REL over ranges made of denormals: E underflows towards 0 (lossless) or is a few
 * denormal ulps. */
Test(roundtrip, rel_denormal_ranges)
{
    const size_t n = 1000;
    double* a = malloc(n * 8);
    static const double rels[] = {1e-3, 0.1, 0.5};
    size_t i, r;
    for (r = 0; r < 3; r++) {
        double eb;
        for (i = 0; i < n; i++) a[i] = (double)(i % 97) * DBL_TRUE_MIN * (r == 2 ? 1e6 : 1.0);
        {
            ghz_params_t p = tu_params(GHZ_F64, GHZ_EB_REL, rels[r]);
            double lo, hi;
            tu_roundtrip(&p, a, n, &eb);
            tu_range(a, GHZ_F64, n, 0, 0, &lo, &hi);
            cr_assert(eb == tu_rel_bound(rels[r], lo, hi), "eb_abs %a, FORMAT.md %a", eb,
                      tu_rel_bound(rels[r], lo, hi));
        }
    }
    free(a);
}

/* FORMAT.md's f32 quantum (Q = E(2 - 2^-7)) leaves room for the float32 rounding of
 * the reconstruction: noise on a large offset (|x|/E ~ 4e4, as a temperature field in
 * kelvin at REL 1e-4) must quantize everywhere. With Q = 2E about 5 % of these blocks
 * went lossless (RAW). Uniform noise is the worst case: every distance to the grid
 * is equally likely. */
Test(roundtrip, f32_offset_noise_needs_no_lossless_blocks)
{
    const size_t n = 32 * 4000;
    float* a = tu_alloc(GHZ_F32, n);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_REL, 1e-4);
    tu_rng_t r;
    size_t size = 0, i, raw = 0;
    unsigned char* c;
    tu_seed(&r, 2024);
    for (i = 0; i < n; i++) a[i] = (float)(240.0 + 70.0 * tu_uniform(&r));
    c = tu_compress(&p, a, n, &size);
    for (i = 0; i < n / 32; i++) raw += c[64 + i] == 0x1F;
    cr_assert_eq(raw, 0, "%zu of %zu blocks stored losslessly", raw, n / 32);
    free(c);
    free(a);
}
