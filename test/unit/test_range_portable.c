/* The value-range scan's plain lanes: what codec/range.c compiles where SSE2 is not there
 * (aarch64, GH200's host, and any non-x86 build), which the library here (x86-64)
 * never runs. range.c is compiled once more in this test under GHZ_RANGE_PORTABLE, its
 * two public names renamed so that they do not clash with the library's, and checked
 * against the library's scan (the SSE2 one here) and tu_range on data with non-finite
 * values, zeros of both signs and the type's extremes at every position class. */
#define GHZ_RANGE_PORTABLE 1
#define ghz_range_scan portable_range_scan
#define ghz_rel_bound portable_rel_bound
#include "../../ghz/codec/range.c"
#undef ghz_range_scan
#undef ghz_rel_bound

#include <criterion/criterion.h>
#include <stdlib.h>

#include "testutil.h"

/* One scan of n values both ways and by tu_range: the same count, and the same extremes
 * (== : either zero may be the extreme of {-0, +0}). */
static void check(const void* a, ghz_dtype_t t, size_t n, const char* what)
{
    ghz_enc_params e;
    ghz_params_t p = tu_params(t, GHZ_EB_REL, 1e-3);
    double lo, hi, plo, phi, elo, ehi;
    uint64_t count = 0, pcount = 0;
    size_t ecount;
    memset(&e, 0, sizeof e);
    e.dtype = t;
    e.elem = t == GHZ_F64 ? 8 : 4;
    p.nthreads = 1;
    cr_assert_eq(ghz_value_range(&p, a, n, &lo, &hi, &count), GHZ_SUCCESS);
    cr_assert_eq(portable_range_scan(&e, a, n, 1, &plo, &phi, &pcount), GHZ_SUCCESS);
    ecount = tu_range(a, t, n, 0, 0, &elo, &ehi);
    cr_assert(pcount == ecount && count == ecount, "%s, f%d, n %zu: counts %llu (plain), %llu (library), %zu",
              what, t == GHZ_F64 ? 64 : 32, n, (unsigned long long)pcount, (unsigned long long)count, ecount);
    if (!ecount) {
        cr_assert(isnan(plo) && isnan(phi) && isnan(lo) && isnan(hi), "%s, n %zu: no finite value", what, n);
        return;
    }
    cr_assert(plo == elo && phi == ehi && lo == elo && hi == ehi,
              "%s, f%d, n %zu: plain [%g, %g], library [%g, %g], expected [%g, %g]", what, t == GHZ_F64 ? 64 : 32,
              n, plo, phi, lo, hi, elo, ehi);
}

Test(range_portable, every_length_and_special_position)
{
    int k;
    for (k = 0; k < 2; k++) {
        const ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        unsigned char* buf = malloc(100 * (k ? 8 : 4));
        size_t n, at;
        for (n = 0; n <= 80; n++)
            for (at = 0; at < (n ? n : 1); at++) {
                tu_range_case(buf, t, n, at);
                check(buf, t, n, "pattern");
            }
        free(buf);
    }
}

/* Long random inputs (many iterations of the lanes) with sparse non-finite values, all
 * non-finite, and all one value. */
Test(range_portable, long_random)
{
    tu_rng_t r;
    const size_t n = 100003;
    int k, round;
    tu_seed(&r, 15);
    for (k = 0; k < 2; k++) {
        const ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        unsigned char* buf = malloc(n * 8);
        size_t i;
        for (round = 0; round < 4; round++) {
            for (i = 0; i < n; i++) tu_set(buf, t, i, tu_normal(&r) * 1e3);
            for (i = 0; i < (size_t)round * 7; i++)
                tu_set(buf, t, tu_below(&r, n), i % 3 ? NAN : (i % 2 ? INFINITY : -INFINITY));
            check(buf, t, n - round, "random");
        }
        for (i = 0; i < n; i++) tu_set(buf, t, i, i % 2 ? NAN : -INFINITY);
        check(buf, t, n, "all non-finite");
        for (i = 0; i < n; i++) tu_set(buf, t, i, -2.5);
        check(buf, t, n, "constant");
        free(buf);
    }
}
