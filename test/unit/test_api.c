/* test/unit/test_api.c: the smaller API: parameter defaults, versions, the size bound,
 * buffer descriptors, value ranges and the REL bound helpers (chunked compression). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

Test(api, params_init_matches_macro)
{
    ghz_params_t a = GHZ_PARAMS_INIT, b;
    memset(&b, 0xA5, sizeof b);
    ghz_params_init(&b);
    cr_assert_eq(a.struct_size, sizeof(ghz_params_t));
    cr_assert(a.dtype == GHZ_F32 && a.eb_mode == GHZ_EB_REL && a.eb == 1e-4 && a.has_fill == 0 &&
              a.nthreads == 1 && a.exec == GHZ_EXEC_CPU && a.has_range == 0);
    cr_assert(b.struct_size == a.struct_size && b.dtype == a.dtype && b.eb_mode == a.eb_mode &&
              b.eb == a.eb && b.has_fill == a.has_fill && b.fill == a.fill &&
              b.nthreads == a.nthreads && b.exec == a.exec && b.has_range == a.has_range &&
              b.range_min == a.range_min && b.range_max == a.range_max,
              "ghz_params_init differs from GHZ_PARAMS_INIT");
}

Test(api, versions)
{
    cr_assert_eq(ghz_version_number(), GHZ_VERSION_NUMBER);
    cr_assert_eq(ghz_version_number(),
                 GHZ_VERSION_MAJOR * 10000 + GHZ_VERSION_MINOR * 100 + GHZ_VERSION_PATCH);
    cr_assert_eq(ghz_format_version(), GHZ_FORMAT_VERSION);
    cr_assert_eq(GHZ_FORMAT_VERSION, 3); /* the newest read; block frames are written as 2 */
    cr_assert_eq(GHZ_HEADER_SIZE, 64);
    cr_assert_eq(GHZ_BLOCK_ELEMS, 32);
}

Test(api, compress_bound)
{
    size_t n;
    for (n = 0; n < 5000; n += 1 + n / 3) {
        size_t nb = (n + 31) / 32;
        size_t expect4 = 64 + (nb + 15) / 16 * 16 + 4 * n;
        size_t expect8 = 64 + (nb + 15) / 16 * 16 + 8 * n;
        cr_assert_eq(ghz_compress_bound(n, GHZ_F32), expect4, "n %zu", n);
        cr_assert_eq(ghz_compress_bound(n, GHZ_F64), expect8, "n %zu", n);
        cr_assert_eq(GHZ_COMPRESS_BOUND(n, GHZ_F32), expect4, "macro, n %zu", n);
        cr_assert_eq(GHZ_COMPRESS_BOUND(n, GHZ_F64), expect8, "macro, n %zu", n);
    }
    /* Does not fit in size_t: 0. */
    cr_assert_eq(ghz_compress_bound(SIZE_MAX / 4, GHZ_F64), 0);
    cr_assert_eq(ghz_compress_bound(SIZE_MAX, GHZ_F32), 0);
    cr_assert_eq(ghz_compress_bound(SIZE_MAX / 4 - 100, GHZ_F32), 0);
    cr_assert_eq(ghz_compress_bound(10, (ghz_dtype_t)0), 0);
    {
        /* A constant expression: usable as an array size. */
        static unsigned char buf[GHZ_COMPRESS_BOUND(100, GHZ_F32)];
        cr_assert_eq(sizeof buf, 64 + 16 + 400);
    }
}

Test(api, buffer_forms)
{
    const size_t n = 5000;
    void* a = tu_make(GHZ_F32, TU_NOISY, n, 1);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    ghz_buf_t b = GHZ_BUF_INIT;
    size_t size, n_out = 0;
    unsigned char* ref = tu_compress(&p, a, n, &size);
    float* out = malloc(n * 4);
    cr_assert(b.struct_size == sizeof(ghz_buf_t) && b.data == NULL && b.size == 0 &&
              b.capacity == 0 && b.where == GHZ_MEM_HOST);
    b.capacity = ghz_compress_bound(n, GHZ_F32);
    b.data = malloc(b.capacity);
    cr_assert_eq(ghz_compress_buf(&p, a, n, &b), GHZ_SUCCESS, "%s", ghz_last_error_detail());
    cr_assert(b.size == size && memcmp(b.data, ref, size) == 0, "buf form differs: %zu / %zu",
              b.size, size);
    cr_assert_eq(ghz_decompress_buf(&b, out, n * 4, &n_out), GHZ_SUCCESS);
    cr_assert_eq(n_out, n);
    {
        void* plain = tu_decompress(ref, size, GHZ_F32, n);
        cr_assert(memcmp(plain, out, n * 4) == 0);
        free(plain);
    }
    /* decompress_buf reads only data[0..size): trailing capacity is ignored. */
    memset((unsigned char*)b.data + b.size, 0x77, b.capacity - b.size);
    cr_assert_eq(ghz_decompress_buf(&b, out, n * 4, &n_out), GHZ_SUCCESS);
    /* Too small a capacity. */
    b.capacity = size - 1;
    cr_assert_eq(ghz_compress_buf(&p, a, n, &b), GHZ_ERR_DST_TOO_SMALL);
    b.capacity = size;
    cr_assert_eq(ghz_compress_buf(&p, a, n, &b), GHZ_SUCCESS);
    /* NULL data with a capacity. */
    {
        ghz_buf_t z = GHZ_BUF_INIT;
        z.capacity = 100000;
        cr_assert_eq(ghz_compress_buf(&p, a, n, &z), GHZ_ERR_INVALID_ARG);
    }
    free(b.data);
    free(ref);
    free(out);
    free(a);
}

Test(api, value_range)
{
    const size_t n = 10000;
    int k;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        void* a = tu_make(t, TU_WIDE, n, 4);
        ghz_params_t p = tu_params(t, GHZ_EB_REL, 1e-3);
        double lo, hi, elo, ehi;
        uint64_t count;
        size_t ecount, i;
        for (i = 0; i < n; i += 13) tu_set(a, t, i, -1e34);
        tu_set(a, t, 5, NAN);
        tu_set(a, t, 6, INFINITY);
        tu_set(a, t, 7, -INFINITY);
        p.has_fill = 1;
        p.fill = -1e34;
        cr_assert_eq(ghz_value_range(&p, a, n, &lo, &hi, &count), GHZ_SUCCESS);
        ecount = tu_range(a, t, n, 1, tu_bits_of(t, -1e34), &elo, &ehi);
        cr_assert(lo == elo && hi == ehi && count == ecount,
                  "range [%g, %g] count %llu, expected [%g, %g] count %zu", lo, hi,
                  (unsigned long long)count, elo, ehi, ecount);
        p.has_fill = 0;
        cr_assert_eq(ghz_value_range(&p, a, n, &lo, &hi, NULL), GHZ_SUCCESS);
        cr_assert(lo == (t == GHZ_F32 ? (double)-1e34f : -1e34), "without fill: min %g", lo);
        /* No value takes part: NaN and count 0. */
        for (i = 0; i < 40; i++) tu_set(a, t, i, i % 2 ? NAN : INFINITY);
        cr_assert_eq(ghz_value_range(&p, a, 40, &lo, &hi, &count), GHZ_SUCCESS);
        cr_assert(count == 0 && isnan(lo) && isnan(hi), "count %llu lo %g hi %g",
                  (unsigned long long)count, lo, hi);
        cr_assert_eq(ghz_value_range(&p, a, 0, &lo, &hi, &count), GHZ_SUCCESS);
        cr_assert(count == 0 && isnan(lo) && isnan(hi));
        free(a);
    }
}

/* Without a fill value the scan runs in lanes (codec/range.c): every length around the
 * lane count, every start offset, the extremes at every position (lanes and tail),
 * non-finite values anywhere and values at the type's ends, against tu_range. */
Test(api, value_range_lanes)
{
    int k;
    for (k = 0; k < 2; k++) {
        const ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        const size_t e = k ? 8 : 4, cap = 80;
        unsigned char* buf = malloc((cap + 1) * e);
        ghz_params_t p = tu_params(t, GHZ_EB_REL, 1e-3);
        size_t n, off, at;
        for (n = 0; n <= 50; n++)
            for (off = 0; off < 2; off++)
                for (at = 0; at < (n ? n : 1); at++) {
                    void* a = buf + off * e;
                    double lo, hi, elo, ehi;
                    uint64_t count;
                    size_t ecount;
                    tu_range_case(a, t, n, at);
                    cr_assert_eq(ghz_value_range(&p, a, n, &lo, &hi, &count), GHZ_SUCCESS);
                    ecount = tu_range(a, t, n, 0, 0, &elo, &ehi);
                    cr_assert(count == ecount && (ecount ? lo == elo && hi == ehi : isnan(lo) && isnan(hi)),
                              "f%d n %zu offset %zu at %zu: [%g, %g] count %llu, expected [%g, %g] count %zu",
                              k ? 64 : 32, n, off, at, lo, hi, (unsigned long long)count, elo, ehi, ecount);
                }
        free(buf);
    }
}

Test(api, abs_bound)
{
    ghz_params_t p = tu_params(GHZ_F64, GHZ_EB_ABS, 0.125);
    double e = -1;
    static const double ranges[][2] = {{0.0, 1.0}, {-3.5, 1e6}, {1.0, 1.0 + 1e-12},
                                       {-DBL_MAX / 2, DBL_MAX / 2}, {-1e-300, 1e-300}};
    static const double rels[] = {1e-1, 1e-3, 1e-6, 0.37, 1e-12};
    size_t i, j;
    cr_assert_eq(ghz_abs_bound(&p, 0.0, 1.0, &e), GHZ_SUCCESS);
    cr_assert(e == 0.125, "ABS: %g", e);
    p.eb_mode = GHZ_EB_REL;
    for (i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        for (j = 0; j < sizeof rels / sizeof rels[0]; j++) {
            p.eb = rels[j];
            cr_assert_eq(ghz_abs_bound(&p, ranges[i][0], ranges[i][1], &e), GHZ_SUCCESS);
            cr_assert(e == tu_rel_bound(rels[j], ranges[i][0], ranges[i][1]),
                      "REL %g over [%g, %g]: %.17g, FORMAT.md %.17g", rels[j], ranges[i][0],
                      ranges[i][1], e, tu_rel_bound(rels[j], ranges[i][0], ranges[i][1]));
            cr_assert(tu_rel_holds(e, rels[j], ranges[i][0], ranges[i][1]),
                      "REL bound above rel * range");
        }
    p.eb = 1e-3;
    cr_assert_eq(ghz_abs_bound(&p, 2.0, 2.0, &e), GHZ_SUCCESS);
    cr_assert(e == 0.0, "zero range: %g", e);
    cr_assert_eq(ghz_abs_bound(&p, NAN, NAN, &e), GHZ_SUCCESS);
    cr_assert(e == 0.0, "empty range: %g", e);
}

/* One array as several frames under one REL bound (has_range), as ghz-cli and the
 * collectives do it. */
Test(api, chunked_rel_with_has_range)
{
    const size_t n = 30000, chunk = 7000;
    void* a = tu_make(GHZ_F64, TU_NOISY, n, 8);
    ghz_params_t p = tu_params(GHZ_F64, GHZ_EB_REL, 1e-4);
    double lo = INFINITY, hi = -INFINITY, e_expect;
    size_t off, total = 0, n_out = 0;
    unsigned char* all = malloc(ghz_compress_bound(n, GHZ_F64) + 5 * 128);
    double* out = malloc(n * 8);
    char msg[256];
    for (off = 0; off < n; off += chunk) {
        size_t m = n - off < chunk ? n - off : chunk;
        double clo, chi;
        cr_assert_eq(ghz_value_range(&p, (double*)a + off, m, &clo, &chi, NULL), GHZ_SUCCESS);
        if (clo < lo) lo = clo;
        if (chi > hi) hi = chi;
    }
    p.has_range = 1;
    p.range_min = lo;
    p.range_max = hi;
    e_expect = tu_rel_bound(1e-4, lo, hi);
    for (off = 0; off < n; off += chunk) {
        size_t m = n - off < chunk ? n - off : chunk, size;
        ghz_frame_info_t fi;
        cr_assert_eq(ghz_compress(&p, (double*)a + off, m, all + total,
                                  ghz_compress_bound(m, GHZ_F64), &size),
                     GHZ_SUCCESS);
        cr_assert_eq(ghz_frame_info(all + total, size, &fi), GHZ_SUCCESS);
        cr_assert(fi.eb_abs == e_expect, "chunk at %zu: eb_abs %.17g, expected %.17g", off,
                  fi.eb_abs, e_expect);
        total += size;
    }
    cr_assert_eq(ghz_decompress(all, total, out, n * 8, &n_out), GHZ_SUCCESS);
    cr_assert_eq(n_out, n);
    cr_assert(tu_check_bound(a, out, n, GHZ_F64, e_expect, 0, 0, msg, sizeof msg) == (size_t)-1,
              "%s", msg);
    /* A given range narrower than the data still holds the bound on every element. */
    p.range_min = -1.0;
    p.range_max = 1.0;
    {
        double eb;
        tu_roundtrip(&p, a, n, &eb);
        cr_assert(eb == tu_rel_bound(1e-4, -1.0, 1.0));
    }
    free(all);
    free(out);
    free(a);
}

/* "All functions are thread-safe: they share no mutable state", and the error detail
 * is per thread. Four threads compress and decompress different inputs at once, and
 * each also provokes errors, while the results must equal the serial ones. */
typedef struct {
    int id;
    void* data;
    size_t n;
    ghz_params_t p;
    unsigned char* expect;
    size_t expect_size;
    int failures;
} worker_t;

static void* worker(void* arg)
{
    worker_t* w = arg;
    size_t cap = ghz_compress_bound(w->n, w->p.dtype), size, n_out, it;
    unsigned char* c = malloc(cap);
    void* out = malloc(w->n * ghz_dtype_size(w->p.dtype) + 1);
    for (it = 0; it < 30; it++) {
        ghz_params_t bad = w->p;
        bad.eb = -1.0;
        if (ghz_compress(&bad, w->data, w->n, c, cap, &size) != GHZ_ERR_BAD_BOUND) w->failures++;
        if (ghz_last_error_detail()[0] == '\0') w->failures++;
        if (ghz_compress(&w->p, w->data, w->n, c, cap, &size) != GHZ_SUCCESS ||
            size != w->expect_size || memcmp(c, w->expect, size) != 0)
            w->failures++;
        if (ghz_decompress(c, size, out, w->n * ghz_dtype_size(w->p.dtype), &n_out) !=
                GHZ_SUCCESS ||
            n_out != w->n)
            w->failures++;
    }
    free(c);
    free(out);
    return NULL;
}

Test(api, concurrent_calls_are_independent)
{
    worker_t w[4];
    pthread_t th[4];
    int i;
    for (i = 0; i < 4; i++) {
        ghz_dtype_t t = i % 2 ? GHZ_F64 : GHZ_F32;
        w[i].id = i;
        w[i].n = 20000 + 1000 * (size_t)i;
        w[i].data = tu_make(t, (tu_pattern_t)(i + 1), w[i].n, 100 + (uint64_t)i);
        w[i].p = tu_params(t, i < 2 ? GHZ_EB_REL : GHZ_EB_ABS, i < 2 ? 1e-3 : 1e-2);
        w[i].expect = tu_compress(&w[i].p, w[i].data, w[i].n, &w[i].expect_size);
        w[i].failures = 0;
    }
    for (i = 0; i < 4; i++) cr_assert_eq(pthread_create(&th[i], NULL, worker, &w[i]), 0);
    for (i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (i = 0; i < 4; i++) {
        cr_assert_eq(w[i].failures, 0, "thread %d: %d failures", i, w[i].failures);
        free(w[i].data);
        free(w[i].expect);
    }
}
