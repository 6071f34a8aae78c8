/* test/unit/test_determinism.c: the output is a function of the input and the bound
 * only: the same bytes on every call, for every thread count, whatever the destination
 * held before. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Compresses with nthreads into a destination prefilled with `junk`. */
static unsigned char* compress_nt(ghz_params_t p, const void* a, size_t n, int nthreads,
                                  unsigned char junk, size_t* size)
{
    size_t cap = ghz_compress_bound(n, p.dtype);
    unsigned char* d = malloc(cap);
    ghz_status_t st;
    cr_assert(d != NULL);
    memset(d, junk, cap);
    p.nthreads = nthreads;
    st = ghz_compress(&p, a, n, d, cap, size);
    cr_assert_eq(st, GHZ_SUCCESS, "nthreads %d: %s", nthreads, ghz_last_error_detail());
    return d;
}

static void same_for_all_threads(ghz_params_t p, const void* a, size_t n)
{
    static const int nts[] = {1, 0, 2, 3, 7};
    size_t ref_size, i;
    unsigned char* ref = compress_nt(p, a, n, 1, 0x00, &ref_size);
    void* out1 = tu_alloc(p.dtype, n);
    void* out2 = tu_alloc(p.dtype, n);
    size_t es = ghz_dtype_size(p.dtype), n_out;
    for (i = 0; i < sizeof nts / sizeof nts[0]; i++) {
        size_t size;
        unsigned char* c = compress_nt(p, a, n, nts[i], (unsigned char)(0x5A + i), &size);
        cr_assert_eq(size, ref_size, "nthreads %d: %zu bytes, serial %zu", nts[i], size,
                     ref_size);
        cr_assert(memcmp(c, ref, size) == 0, "nthreads %d: bytes differ from serial", nts[i]);
        free(c);
    }
    cr_assert_eq(ghz_decompress_mt(ref, ref_size, out1, n * es, &n_out, 1), GHZ_SUCCESS);
    cr_assert_eq(n_out, n);
    for (i = 0; i < sizeof nts / sizeof nts[0]; i++) {
        memset(out2, 0xEE, n * es);
        cr_assert_eq(ghz_decompress_mt(ref, ref_size, out2, n * es, &n_out, nts[i]),
                     GHZ_SUCCESS);
        cr_assert(n_out == n && memcmp(out1, out2, n * es) == 0,
                  "decompress with %d threads differs", nts[i]);
    }
    cr_assert_eq(ghz_decompress(ref, ref_size, out2, n * es, &n_out), GHZ_SUCCESS);
    cr_assert(memcmp(out1, out2, n * es) == 0, "ghz_decompress differs from _mt(1)");
    free(out1);
    free(out2);
    free(ref);
}

Test(determinism, twice_identical)
{
    int k;
    for (k = 0; k < 4; k++) {
        ghz_dtype_t t = k % 2 ? GHZ_F64 : GHZ_F32;
        const size_t n = 100000;
        void* a = tu_make(t, k < 2 ? TU_NOISY : TU_WIDE, n, 9 + k);
        ghz_params_t p = tu_params(t, k < 2 ? GHZ_EB_REL : GHZ_EB_ABS, 1e-3);
        size_t s1, s2;
        unsigned char* c1 = compress_nt(p, a, n, 1, 0x00, &s1);
        unsigned char* c2 = compress_nt(p, a, n, 1, 0xFF, &s2);
        cr_assert(s1 == s2 && memcmp(c1, c2, s1) == 0,
                  "two calls differ (or depend on the destination's old contents)");
        free(c1);
        free(c2);
        free(a);
    }
}

/* Several million elements, so that every thread gets many blocks. */
Test(determinism, threads_f32_rel_fill, .timeout = 200)
{
    const size_t n = 4000037;
    void* a = tu_make(GHZ_F32, TU_NOISY, n, 1);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_REL, 1e-4);
    size_t i;
    for (i = 0; i < n; i += 997) tu_set(a, GHZ_F32, i, -1e34);
    for (i = 2000000; i < 2100000; i++) tu_set(a, GHZ_F32, i, -1e34);
    for (i = 5; i < n; i += 100003) tu_set(a, GHZ_F32, i, NAN);
    p.has_fill = 1;
    p.fill = -1e34;
    same_for_all_threads(p, a, n);
    free(a);
}

Test(determinism, threads_f64_abs, .timeout = 200)
{
    const size_t n = 2000003;
    void* a = tu_make(GHZ_F64, TU_WALK, n, 2);
    ghz_params_t p = tu_params(GHZ_F64, GHZ_EB_ABS, 1e-5);
    size_t i;
    for (i = 17; i < n; i += 65537) tu_set(a, GHZ_F64, i, 1e300); /* RAW blocks */
    same_for_all_threads(p, a, n);
    free(a);
}

/* REL's range scan must not depend on the thread split either: put the extremes in
 * the last and first elements. */
Test(determinism, threads_rel_range_extremes, .timeout = 200)
{
    const size_t n = 3000001;
    void* a = tu_make(GHZ_F32, TU_SMOOTH, n, 3);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_REL, 1e-3);
    tu_set(a, GHZ_F32, n - 1, 1000.0);
    tu_set(a, GHZ_F32, 0, -1000.0);
    same_for_all_threads(p, a, n);
    free(a);
}
