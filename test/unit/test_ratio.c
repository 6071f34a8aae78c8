/* test/unit/test_ratio.c: the ratio frame (ghz/codec/RATIO.md): the bound on every
 * element over shapes, dtypes, modes and patterns; specials and outliers exact; the
 * lossless REL case; bad arguments; corrupted and cut frames refused without a fault;
 * the frame smaller than the block frame on smooth data; homo refusing it; chunks cut
 * with every spread read back; the reader on any number of threads; the rows a reader
 * of several passes at once waits for. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef GHZ_ADVANCED
#define GHZ_ADVANCED
#endif
#include "ghz/codec/detail/ratio.h"
#include "ghz/codec/ratio.h"
#include "ghz/homo/homo.h"
#include "testutil.h"

static ghz_params_t ratio_params(ghz_dtype_t t, ghz_eb_mode_t mode, double eb, size_t d0,
                                 size_t d1, size_t d2)
{
    ghz_params_t p = tu_params(t, mode, eb);
    p.prefer = GHZ_PREFER_RATIO;
    p.dims[0] = d0;
    p.dims[1] = d1;
    p.dims[2] = d2;
    return p;
}

/* Round trip with the bound checked at every element; asserts a ratio frame. */
static size_t check_shape(ghz_dtype_t t, tu_pattern_t pat, ghz_eb_mode_t mode, double eb,
                          size_t d0, size_t d1, size_t d2)
{
    const size_t n = d0 * (d1 ? d1 : 1) * (d2 ? d2 : 1);
    void* a = tu_make(t, pat, n, 7 + n);
    ghz_params_t p = ratio_params(t, mode, eb, d0, d1, d2);
    ghz_frame_info_t fi;
    size_t size;
    unsigned char* c = tu_compress(&p, a, n, &size);
    cr_assert_eq(ghz_frame_info(c, size, &fi), GHZ_SUCCESS, "%s", ghz_last_error_detail());
    if ((pat == TU_SMOOTH || pat == TU_WALK || pat == TU_CONSTANT || pat == TU_ZERO) && n >= 256)
        cr_assert_eq(fi.prefer, GHZ_PREFER_RATIO, "%s %zux%zux%zu: a block frame was written",
                     tu_pattern_names[pat], d0, d1, d2);
    free(c);
    size = tu_roundtrip(&p, a, n, NULL);
    free(a);
    return size;
}

Test(ratio, bound_over_shapes_patterns_and_modes)
{
    static const size_t shapes[][3] = {{1, 0, 0},   {2, 0, 0},    {31, 0, 0},   {1000, 0, 0},
                                       {70001, 0, 0}, {37, 29, 0}, {300, 250, 0}, {1, 77, 0},
                                       {17, 13, 11}, {64, 32, 40}, {5, 1, 9},   {0, 0, 0}};
    static const tu_pattern_t pats[] = {TU_SMOOTH, TU_NOISY, TU_WALK, TU_RANDOM, TU_WIDE,
                                        TU_CONSTANT, TU_ZERO};
    size_t s, k, m;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (k = 0; k < sizeof pats / sizeof pats[0]; ++k)
            for (m = 0; m < 4; ++m) {
                const ghz_dtype_t t = m & 1 ? GHZ_F64 : GHZ_F32;
                const ghz_eb_mode_t mode = m & 2 ? GHZ_EB_ABS : GHZ_EB_REL;
                size_t d0 = shapes[s][0] ? shapes[s][0] : 4096;
                check_shape(t, pats[k], mode, mode == GHZ_EB_ABS ? 1e-2 : 1e-3, d0, shapes[s][1],
                            shapes[s][2]);
            }
}

/* A field smooth along both axes (TU_SMOOTH is smooth along the storage order only). */
static float* smooth2d(size_t nx, size_t ny)
{
    float* a = (float*)malloc(nx * ny * sizeof(float));
    size_t i, j;
    for (j = 0; j < ny; ++j)
        for (i = 0; i < nx; ++i)
            a[i + nx * j] = (float)(10.0 * sin(0.05 * (double)i) * cos(0.03 * (double)j) + 0.001 * (double)(i * j));
    return a;
}

Test(ratio, smaller_than_the_block_frame_on_smooth_fields)
{
    const size_t nx = 256, ny = 192, n = nx * ny;
    float* a = smooth2d(nx, ny);
    double rel;
    for (rel = 1e-2; rel > 1e-5; rel /= 10) {
        ghz_params_t fast = tu_params(GHZ_F32, GHZ_EB_REL, rel);
        ghz_params_t r = ratio_params(GHZ_F32, GHZ_EB_REL, rel, nx, ny, 0);
        size_t sf = tu_roundtrip(&fast, a, n, NULL), sr = tu_roundtrip(&r, a, n, NULL);
        cr_assert(sr * 3 < sf * 2, "REL %g: ratio frame %zu bytes, block frame %zu", rel, sr, sf);
    }
    free(a);
}

static const uint32_t specials32[] = {0x7FC00000u, 0xFFC00000u, 0x7FC12345u, 0x7F800001u,
                                      0x7F800000u, 0xFF800000u};

Test(ratio, specials_fill_and_huge_values_come_back)
{
    const size_t nx = 97, ny = 61, n = nx * ny;
    size_t i;
    for (i = 0; i < 4; ++i) {
        const ghz_dtype_t t = i & 1 ? GHZ_F64 : GHZ_F32;
        void* a = tu_make(t, TU_SMOOTH, n, 11);
        ghz_params_t p = ratio_params(t, i & 2 ? GHZ_EB_ABS : GHZ_EB_REL, 1e-3, nx, ny, 0);
        size_t j;
        p.has_fill = 1;
        p.fill = -1e34;
        for (j = 0; j < n; ++j) {
            if (j % 97 < 20 && j / 97 > 30) tu_set(a, t, j, -1e34); /* a land mask */
            if (j % 101 == 5) {
                uint32_t b = specials32[j % 6];
                tu_set_bits(a, t, j,
                            t == GHZ_F32 ? b : ((uint64_t)(b & 0x80000000u) << 32) | 0x7FF0000000000000ull |
                                                    (b & 0x007FFFFFu ? 0x0008000000000123ull : 0));
            }
            if (j % 509 == 7) tu_set(a, t, j, t == GHZ_F32 ? FLT_MAX : 1e300); /* outliers */
            if (j % 211 == 3) tu_set(a, t, j, -0.0);
            if (j % 307 == 3) tu_set(a, t, j, t == GHZ_F32 ? 1e-42 : 4e-320); /* denormals */
        }
        tu_roundtrip(&p, a, n, NULL);
        free(a);
    }
}

Test(ratio, all_special_and_nan_first)
{
    const size_t n = 5000;
    float* a = (float*)tu_make(GHZ_F32, TU_SMOOTH, n, 2);
    ghz_params_t p = ratio_params(GHZ_F32, GHZ_EB_REL, 1e-3, 100, 50, 0);
    size_t i;
    tu_set_bits(a, GHZ_F32, 0, 0x7FC00001u); /* element 0 is special */
    tu_roundtrip(&p, a, n, NULL);
    for (i = 0; i < n; ++i) tu_set_bits(a, GHZ_F32, i, i % 3 ? 0x7FC00000u : 0xFF800000u);
    tu_roundtrip(&p, a, n, NULL); /* REL over no finite value: lossless */
    free(a);
}

Test(ratio, lossless_rel_on_constant_data)
{
    const size_t n = 3000;
    void* a = tu_make(GHZ_F64, TU_CONSTANT, n, 1);
    ghz_params_t p = ratio_params(GHZ_F64, GHZ_EB_REL, 1e-2, 30, 100, 0);
    double e = -1;
    size_t size = tu_roundtrip(&p, a, n, &e);
    cr_assert(e == 0.0, "eb_abs %g", e);
    cr_assert(size < 2000, "a constant array takes %zu bytes", size);
    tu_set(a, GHZ_F64, 17, -0.0 + 3.25 * 0); /* one other value: still exact */
    tu_roundtrip(&p, a, n, &e);
    free(a);
}

Test(ratio, tiny_bounds_make_outliers)
{
    const size_t n = 4000;
    void* a = tu_make(GHZ_F64, TU_WIDE, n, 9);
    ghz_params_t p = ratio_params(GHZ_F64, GHZ_EB_ABS, 1e-300, 40, 100, 0);
    tu_roundtrip(&p, a, n, NULL);
    free(a);
}

/* The writer on several threads (a pass's costs, codes and chunks cut into shares):
 * the bytes of one thread, over shapes, dtypes, specials and outliers. */
Test(ratio, same_bytes_for_every_thread_count)
{
    static const size_t shapes[3][3] = {{500, 400, 0}, {300000, 0, 0}, {60, 50, 90}};
    int k, nt;
    for (k = 0; k < 6; ++k) {
        const ghz_dtype_t dt = k % 2 ? GHZ_F64 : GHZ_F32;
        const size_t* sh = shapes[k / 2];
        const size_t n = sh[0] * (sh[1] ? sh[1] : 1) * (sh[2] ? sh[2] : 1);
        void* a = tu_make(dt, k < 2 ? TU_NOISY : TU_SMOOTH, n, 4 + (unsigned)k);
        ghz_params_t p = ratio_params(dt, GHZ_EB_ABS, k == 2 ? 1e-6 : 1e-3, sh[0], sh[1], sh[2]);
        size_t s1, s2, i;
        unsigned char *c1, *c2;
        for (i = 17; i < n; i += 5003) { /* specials, and outliers (|k| > QMAX) */
            if (dt == GHZ_F32) ((float*)a)[i] = i % 2 ? NAN : 1e7f;
            else ((double*)a)[i] = i % 2 ? NAN : 1e7;
        }
        p.nthreads = 1;
        c1 = tu_compress(&p, a, n, &s1);
        for (nt = 0; nt < 4; ++nt) {
            p.nthreads = nt == 0 ? 0 : nt + 1 + (nt == 3); /* all, 2, 3, 5 */
            c2 = tu_compress(&p, a, n, &s2);
            cr_assert(s1 == s2 && memcmp(c1, c2, s1) == 0, "shape %d, %d threads: other bytes", k, p.nthreads);
            free(c2);
        }
        free(c1);
        free(a);
    }
}

Test(ratio, shape_and_version_of_the_frame)
{
    const size_t n = 6 * 7 * 8;
    void* a = tu_make(GHZ_F32, TU_SMOOTH, n, 5);
    ghz_params_t p = ratio_params(GHZ_F32, GHZ_EB_ABS, 1e-3, 6, 7, 8);
    uint64_t d[3];
    size_t size;
    unsigned char* c = tu_compress(&p, a, n, &size);
    cr_assert_eq(ghz_frame_shape(c, size, d), GHZ_SUCCESS);
    cr_assert(d[0] == 6 && d[1] == 7 && d[2] == 8);
    cr_assert(tu_rd(c + 4, 2) == 3 && c[10] == 3 && c[12] == 1, "version, ndims, codec");
    free(c);
    p.prefer = GHZ_PREFER_SPEED;
    c = tu_compress(&p, a, n, &size);
    cr_assert_eq(ghz_frame_shape(c, size, d), GHZ_SUCCESS);
    cr_assert(d[0] == n && d[1] == 1 && d[2] == 1 && tu_rd(c + 4, 2) == 2);
    free(c);
    free(a);
}

Test(ratio, bad_arguments)
{
    const size_t n = 1000;
    void* a = tu_make(GHZ_F32, TU_SMOOTH, n, 5);
    unsigned char* c = (unsigned char*)malloc(ghz_compress_bound(n, GHZ_F32) + 8);
    size_t size = 0;
    ghz_params_t p = ratio_params(GHZ_F32, GHZ_EB_REL, 1e-3, 10, 99, 0);
    cr_assert_eq(ghz_compress(&p, a, n, c, ghz_compress_bound(n, GHZ_F32), &size), GHZ_ERR_INVALID_ARG,
                 "dims that do not multiply to n");
    cr_assert(strstr(ghz_last_error_detail(), "dims") != NULL, "%s", ghz_last_error_detail());
    p.dims[0] = 0;
    p.dims[1] = 10;
    cr_assert_eq(ghz_compress(&p, a, n, c, ghz_compress_bound(n, GHZ_F32), &size), GHZ_ERR_INVALID_ARG,
                 "a later extent without the first");
    p = ratio_params(GHZ_F32, GHZ_EB_REL, 1e-3, 10, 100, 0);
    p.prefer = (ghz_prefer_t)7;
    cr_assert_eq(ghz_compress(&p, a, n, c, ghz_compress_bound(n, GHZ_F32), &size), GHZ_ERR_INVALID_ARG);
    p.prefer = GHZ_PREFER_RATIO;
    cr_assert_eq(ghz_compress(&p, a, n, c, 100, &size), GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_compress(&p, a, 0, c, ghz_compress_bound(0, GHZ_F32), &size), GHZ_SUCCESS);
    cr_assert(tu_rd(c + 4, 2) == 2, "no values: a block frame");
    free(c);
    free(a);
}

/* A ratio frame with a checksum: every flipped bit is refused; without one, every
 * flipped byte and every cut is refused or decoded, never read past the frame. */
Test(ratio, corrupted_and_cut_frames)
{
    const size_t nx = 60, ny = 50, n = nx * ny;
    float* a = (float*)tu_make(GHZ_F32, TU_NOISY, n, 8);
    ghz_params_t p = ratio_params(GHZ_F32, GHZ_EB_REL, 1e-3, nx, ny, 0);
    float* out = (float*)malloc(n * sizeof(float));
    size_t size, i, n_out, refused = 0;
    unsigned char *c, *bad;
    a[100] = NAN;
    a[3000 - 7] = 3e38f;
    p.checksum = 1;
    c = tu_compress(&p, a, n, &size);
    bad = (unsigned char*)malloc(size);
    for (i = 0; i < size; i += 1 + i / 64) {
        tu_guard_t g;
        memcpy(bad, c, size);
        bad[i] ^= (unsigned char)(1u << (i % 8));
        cr_assert_neq(ghz_decompress(tu_guard_copy(&g, bad, size), size, out, n * sizeof(float), &n_out),
                      GHZ_SUCCESS, "flipped bit at byte %zu of %zu accepted", i, size);
        tu_guard_free(&g);
    }
    free(c);
    free(bad);
    p.checksum = 0;
    c = tu_compress(&p, a, n, &size);
    bad = (unsigned char*)malloc(size);
    for (i = 0; i < size; ++i) {
        tu_guard_t g;
        memcpy(bad, c, size);
        bad[i] = (unsigned char)(bad[i] + 1 + i % 251);
        refused += ghz_decompress(tu_guard_copy(&g, bad, size), size, out, n * sizeof(float), &n_out) !=
                   GHZ_SUCCESS;
        tu_guard_free(&g);
    }
    cr_assert(refused > size / 4, "only %zu of %zu changed bytes refused", refused, size);
    for (i = 0; i < size; i += 1 + i / 16) {
        tu_guard_t g;
        cr_assert_neq(ghz_decompress(tu_guard_copy(&g, c, i), i, out, n * sizeof(float), &n_out),
                      GHZ_SUCCESS, "cut at %zu accepted", i);
        tu_guard_free(&g);
    }
    free(bad);
    free(c);
    free(out);
    free(a);
}

Test(ratio, streams_mix_ratio_and_block_frames)
{
    const size_t n = 4096;
    void* a = tu_make(GHZ_F64, TU_WALK, 2 * n, 6);
    ghz_params_t r = ratio_params(GHZ_F64, GHZ_EB_ABS, 1e-3, 64, 64, 0);
    ghz_params_t f = tu_params(GHZ_F64, GHZ_EB_ABS, 1e-3);
    size_t s1, s2;
    unsigned char* c1 = tu_compress(&r, a, n, &s1);
    unsigned char* c2 = tu_compress(&f, (double*)a + n, n, &s2);
    unsigned char* both = (unsigned char*)malloc(s1 + s2);
    double* out;
    size_t i;
    memcpy(both, c1, s1);
    memcpy(both + s1, c2, s2);
    out = (double*)tu_decompress(both, s1 + s2, GHZ_F64, 2 * n);
    for (i = 0; i < 2 * n; ++i) cr_assert(fabs(out[i] - ((double*)a)[i]) <= 1e-3);
    free(out);
    free(both);
    free(c1);
    free(c2);
    free(a);
}

Test(ratio, homo_refuses_ratio_frames)
{
    const size_t n = 2048;
    void* a = tu_make(GHZ_F32, TU_SMOOTH, n, 5);
    ghz_params_t p = ratio_params(GHZ_F32, GHZ_EB_ABS, 1e-3, 32, 64, 0);
    size_t size;
    unsigned char* c = tu_compress(&p, a, n, &size);
    unsigned char* out = (unsigned char*)malloc(2 * size + 4096);
    ghz_buf_t in = GHZ_BUF_INIT, res = GHZ_BUF_INIT;
    ghz_status_t st;
    in.data = c;
    in.size = in.capacity = size;
    res.data = out;
    res.capacity = 2 * size + 4096;
    st = ghz_homo_binary(GHZ_HOMO_SUM, &in, &in, &res);
    cr_assert_eq(st, GHZ_ERR_UNSUPPORTED, "%d: %s", (int)st, ghz_last_error_detail());
    cr_assert(strstr(ghz_last_error_detail(), "ratio") != NULL, "%s", ghz_last_error_detail());
    free(out);
    free(c);
    free(a);
}

/* ghz_rans_put's quotient by multiplication equals the integer division for every
 * frequency, the states around many multiples of it, and many others. */
Test(ratio, rans_put_equals_the_division)
{
    tu_rng_t rng;
    uint32_t f;
    tu_seed(&rng, 77);
    for (f = 1; f <= GHZ_RATIO_M; ++f) {
        unsigned sh;
        const uint32_t m = ghz_rans_recip(f, &sh);
        const uint64_t top = (uint64_t)f << 20; /* the states ghz_rans_put divides */
        unsigned k;
        for (k = 0; k < 200; ++k) {
            /* random states, then states next to random multiples of f */
            uint64_t v = k < 100 ? tu_below(&rng, top) : tu_below(&rng, (uint64_t)1 << 20) * f + (k % 3) - 1;
            uint32_t x, want;
            uint16_t w;
            if (v < GHZ_RATIO_STATE_LOW || v >= top) continue;
            x = (uint32_t)v;
            want = (uint32_t)(((v / f) << GHZ_RATIO_PROB_BITS) + v % f + 5);
            cr_assert_eq(ghz_rans_put(&x, f, m, sh, 5, &w), 0);
            cr_assert_eq(x, want, "f %u v %llu", f, (unsigned long long)v);
        }
        {
            uint32_t x = (uint32_t)(top - 1), want = (uint32_t)((((top - 1) / f) << 12) + (top - 1) % f);
            uint16_t w;
            (void)ghz_rans_put(&x, f, m, sh, 0, &w);
            cr_assert_eq(x, want, "f %u at the top", f);
        }
    }
}

/* A land mask costs the same as NaN as it does as a declared fill value (NaN masks
 * that cost little). */
Test(ratio, nan_masks_cost_what_fill_masks_cost)
{
    const size_t nx = 300, ny = 200, n = nx * ny;
    float* a = smooth2d(nx, ny);
    float* b = (float*)malloc(n * sizeof(float));
    ghz_params_t pf = ratio_params(GHZ_F32, GHZ_EB_REL, 1e-3, nx, ny, 0);
    ghz_params_t pn = pf;
    size_t i, sf, sn, s0;
    pf.has_fill = 1;
    pf.fill = -1e34;
    s0 = tu_roundtrip(&pn, a, n, NULL);
    for (i = 0; i < n; ++i) { /* a coast: land where a smooth function is positive */
        const double x = (double)(i % nx) / nx, y = (double)(i / nx) / ny;
        const int land = sin(9.0 * x) * cos(7.0 * y) + 0.3 * sin(23.0 * x * y) > 0.4;
        b[i] = land ? -1e34f : a[i];
        if (land) a[i] = NAN;
    }
    sf = tu_roundtrip(&pf, b, n, NULL);
    sn = tu_roundtrip(&pn, a, n, NULL);
    cr_assert(sn <= sf + sf / 100, "NaN mask %zu bytes, fill mask %zu", sn, sf);
    cr_assert(s0 > 0);
    free(a);
    free(b);
}

/* ghz_stream_index and ghz_decompress_range over a stream written chunk by chunk
 * (ratio and block frames, one REL range): every range gives the full decode's values;
 * a damaged frame outside the range is never read; ranges past the end are refused. */
Test(ratio, stream_index_and_ranges)
{
    const size_t nx = 40, ny = 30, slabs = 7, n = nx * ny * slabs;
    float* a = (float*)tu_make(GHZ_F32, TU_SMOOTH, n, 12);
    unsigned char* s = (unsigned char*)malloc(slabs * (ghz_compress_bound(nx * ny, GHZ_F32) + 4));
    float *all, *got = (float*)malloc(n * sizeof(float));
    ghz_frame_entry_t e[8];
    size_t pos = 0, k, nf = 0;
    double lo, hi;
    ghz_params_t p = ratio_params(GHZ_F32, GHZ_EB_REL, 1e-3, nx, ny, 1);
    cr_assert_eq(ghz_value_range(&p, a, n, &lo, &hi, NULL), GHZ_SUCCESS);
    p.has_range = 1;
    p.range_min = lo;
    p.range_max = hi;
    p.checksum = 1;
    for (k = 0; k < slabs; ++k) { /* odd slabs as block frames */
        size_t sz;
        p.prefer = k % 2 ? GHZ_PREFER_SPEED : GHZ_PREFER_RATIO;
        cr_assert_eq(ghz_compress(&p, a + k * nx * ny, nx * ny, s + pos,
                                  ghz_compress_bound(nx * ny, GHZ_F32) + 4, &sz), GHZ_SUCCESS);
        pos += sz;
    }
    cr_assert_eq(ghz_stream_index(s, pos, e, 8, &nf), GHZ_SUCCESS);
    cr_assert_eq(nf, slabs);
    for (k = 0; k < slabs; ++k) cr_assert(e[k].first == k * nx * ny && e[k].n == nx * ny);
    all = (float*)tu_decompress(s, pos, GHZ_F32, n);
    {
        static const size_t ranges[][2] = {{0, 1}, {0, 1200}, {5, 3000}, {1199, 2}, {4000, 4400}, {8399, 1}, {3, 0}};
        for (k = 0; k < sizeof ranges / sizeof ranges[0]; ++k) {
            cr_assert_eq(ghz_decompress_range(NULL, s, pos, ranges[k][0], ranges[k][1], got, n * 4),
                         GHZ_SUCCESS, "%s", ghz_last_error_detail());
            cr_assert(memcmp(got, all + ranges[k][0], ranges[k][1] * 4) == 0, "range %zu", k);
        }
    }
    cr_assert_eq(ghz_decompress_range(NULL, s, pos, 8000, 401, got, n * 4), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_decompress_range(NULL, s, pos, 0, 100, got, 40), GHZ_ERR_DST_TOO_SMALL);
    s[e[5].offset + e[5].size - 10] ^= 1; /* damage frame 5 (checksummed) */
    cr_assert_eq(ghz_decompress_range(NULL, s, pos, 0, 5 * nx * ny, got, n * 4), GHZ_SUCCESS);
    cr_assert_eq(ghz_decompress_range(NULL, s, pos, 5 * nx * ny + 7, 3, got, n * 4), GHZ_ERR_CORRUPT);
    free(all);
    free(got);
    free(s);
    free(a);
}

/* The frame of a writes with spread S and shrink k (RATIO.md, Chunks), without
 * checksum: the writer's own entry, as ghz_compress calls it with ghz_ratio_spread_for(n)
 * and ghz_ratio_shrink_for(S). */
static unsigned char* spread_frame(const float* a, size_t d0, size_t d1, double eb, unsigned S, unsigned k,
                                   size_t* size)
{
    const size_t n = d0 * d1, dims[3] = {d0, d1, 0};
    const size_t cap = ghz_compress_bound(n, GHZ_F32);
    unsigned char* c = (unsigned char*)malloc(cap);
    ghz_enc_params e;
    ghz_frame_info_t fi;
    uint64_t fs = 0;
    memset(&e, 0, sizeof e);
    e.dtype = GHZ_F32;
    e.elem = 4;
    e.z = ghz_quantizer_make(eb, 1);
    memset(&fi, 0, sizeof fi);
    fi.dtype = GHZ_F32;
    fi.eb_mode = GHZ_EB_ABS;
    fi.eb_user = fi.eb_abs = eb;
    fi.n = n;
    cr_assert_not_null(c);
    cr_assert_eq(ghz_ratio_encode(&e, &fi, dims, S, k, (const uint8_t*)a, c, cap, &fs, 1), GHZ_SUCCESS,
                 "spread %u, shrink %u: %s", S, k, ghz_last_error_detail());
    *size = (size_t)fs;
    return c;
}

Test(ratio, every_spread_reads_back)
{
    const size_t d0 = 512, d1 = 300, n = d0 * d1;
    const double eb = 1e-3;
    float* a = smooth2d(d0, d1);
    float* b = (float*)malloc(n * sizeof(float));
    size_t base = 0, size, i, at_k0 = 0;
    unsigned S, k;
    cr_assert_eq(ghz_ratio_spread_for(n), 0u, "small arrays are not spread");
    cr_assert_eq(ghz_ratio_spread_for((uint64_t)1 << 26), 0u);
    cr_assert_eq(ghz_ratio_spread_for(((uint64_t)1 << 26) + 1), 10u);
    cr_assert_eq(ghz_ratio_spread_for((uint64_t)1 << 28), 11u);
    cr_assert_eq(ghz_ratio_shrink_for(0), 0u, "unspread frames keep lanes of 128 symbols");
    cr_assert_eq(ghz_ratio_shrink_for(10), 2u);
    /* k = 0: the frames written before the shrink existed, which must still read */
    for (S = 0; S <= 8; ++S)
        for (k = 0; k <= GHZ_RATIO_SHRINK_MAX; ++k) {
            unsigned char* c = spread_frame(a, d0, d1, eb, S, k, &size);
            cr_assert_eq(c[13], S);
            cr_assert_eq(c[14], k);
            size_t got = 0;
            cr_assert_eq(ghz_decompress(c, size, b, n * sizeof(float), &got), GHZ_SUCCESS, "spread %u, shrink %u: %s",
                         S, k, ghz_last_error_detail());
            cr_assert_eq(got, n);
            for (i = 0; i < n; ++i)
                cr_assert_leq(fabs((double)b[i] - (double)a[i]), eb, "spread %u, shrink %u, element %zu", S, k, i);
            /* the largest pass holds 2^16 or more symbols: a spread of 5 and up cuts it
             * finer, each chunk costing a directory entry; a shrink gives small chunks
             * more lanes, and with spread cuts the smaller passes finer still */
            if (S == 0 && k == 0) base = size;
            if (S >= 5 && k == 0) cr_assert_gt(size, base, "spread %u: %zu bytes, %zu without", S, size, base);
            if (k == 0) at_k0 = size;
            if (k > 0) cr_assert_geq(size, at_k0, "spread %u, shrink %u: %zu bytes, %zu", S, k, size, at_k0);
            if (S == 8 && k == GHZ_RATIO_SHRINK_MAX) { /* above the limits of 40 and 2, the header is refused */
                c[13] = 41;
                cr_assert_eq(ghz_decompress(c, size, b, n * sizeof(float), &got), GHZ_ERR_CORRUPT);
                c[13] = (unsigned char)S;
                c[14] = GHZ_RATIO_SHRINK_MAX + 1u;
                cr_assert_eq(ghz_decompress(c, size, b, n * sizeof(float), &got), GHZ_ERR_CORRUPT);
                c[14] = 0; /* read with lanes of 128 symbols: the directory no longer fits */
                cr_assert_eq(ghz_decompress(c, size, b, n * sizeof(float), &got), GHZ_ERR_CORRUPT);
            }
            free(c);
        }
    free(a);
    free(b);
}

/* The reader on several threads (a pass's chunks cut into shares, the outliers filled
 * in pass order after): the values and the verdicts of one thread, on a frame of many
 * chunks per pass (spread 6) holding specials and outliers, whole and damaged. */
Test(ratio, decoding_on_any_number_of_threads)
{
    const size_t d0 = 512, d1 = 300, n = d0 * d1;
    const double eb = 1e-3;
    float* a = smooth2d(d0, d1);
    float *b1 = (float*)malloc(n * sizeof(float)), *bt = (float*)malloc(n * sizeof(float));
    size_t size, i, got;
    int nt;
    unsigned char *c, *bad;
    for (i = 0; i < n; i += 997) a[i] = (float)(i % 3 ? 1e30 : -2e29); /* outliers */
    for (i = 5; i < n; i += 4099) a[i] = NAN;
    c = spread_frame(a, d0, d1, eb, 6, ghz_ratio_shrink_for(6), &size);
    cr_assert_eq(ghz_decompress_mt(c, size, b1, n * sizeof(float), &got, 1), GHZ_SUCCESS, "%s",
                 ghz_last_error_detail());
    for (i = 0; i < n; ++i)
        if (!isnan(a[i])) cr_assert_leq(fabs((double)b1[i] - (double)a[i]), eb, "element %zu", i);
    for (nt = 2; nt <= 5; ++nt) {
        cr_assert_eq(ghz_decompress_mt(c, size, bt, n * sizeof(float), &got, nt), GHZ_SUCCESS, "%d threads: %s", nt,
                     ghz_last_error_detail());
        cr_assert(memcmp(b1, bt, n * sizeof(float)) == 0, "%d threads decode other values", nt);
    }
    bad = (unsigned char*)malloc(size);
    for (i = 64; i < size; i += 1 + i / 40) {
        ghz_status_t s1, s3;
        memcpy(bad, c, size);
        bad[i] ^= (unsigned char)(1u << (i % 8));
        s1 = ghz_decompress_mt(bad, size, b1, n * sizeof(float), &got, 1);
        s3 = ghz_decompress_mt(bad, size, bt, n * sizeof(float), &got, 3);
        cr_assert_eq(s1, s3, "byte %zu: %d on one thread, %d on three", i, (int)s1, (int)s3);
        if (s1 == GHZ_SUCCESS) cr_assert(memcmp(b1, bt, n * sizeof(float)) == 0, "byte %zu", i);
    }
    free(bad);
    free(c);
    free(a);
    free(b1);
    free(bt);
}

/* The coordinates of point k of pass p. */
static void pass_point(const ghz_ratio_pass_t* p, uint64_t k, uint64_t c[3])
{
    c[0] = p->first[0] + p->step[0] * (k % p->count[0]);
    c[1] = p->first[1] + p->step[1] * (k / p->count[0] % p->count[1]);
    c[2] = p->first[2] + p->step[2] * (k / p->count[0] / p->count[1]);
}

/* A reader that decodes chunks of several passes at once waits, in each earlier pass,
 * for the points of the rows ghz_ratio_input_rows gives (ratio.h). Over shapes, axis
 * orders and chunk sizes: the passes cover every point but the first once, a pass's rows
 * never decrease, ghz_ratio_pass_first_row finds the first point at or past each row,
 * and every neighbour a chunk's points may predict from (s and 3 s away along the
 * pass's axis) lies in an earlier pass, within the points of those rows. */
Test(ratio, chunk_inputs_lie_in_the_rows_waited_for)
{
    static const uint64_t shapes[][3] = {{300, 1, 1}, {37, 29, 1}, {64, 64, 1}, {100, 3, 1}, {3, 100, 1},
                                         {13, 9, 17}, {20, 1, 30}, {2, 2, 50}, {33, 17, 9}, {16, 16, 16}};
    static const unsigned perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    static const uint64_t sizes[] = {1, 3, 16, 64};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
        const uint64_t* d = shapes[si];
        const uint64_t n = d[0] * d[1] * d[2], rows = d[1] * d[2];
        const unsigned L = ghz_ratio_levels(d[0], d[1], d[2]), np = 3u * L;
        int* hp = malloc(n * sizeof *hp); /* the pass holding each point, -1 for point 0 */
        uint64_t* hk = malloc(n * sizeof *hk);
        ghz_ratio_pass_t ps[3 * 64];
        cr_assert(hp && hk && L <= 64);
        for (unsigned rep = 0; rep < 3; ++rep) {
            for (uint64_t i = 0; i < n; ++i) hp[i] = -2;
            hp[0] = -1;
            for (unsigned P = 0; P < np; ++P) {
                const unsigned l = L - P / 3u;
                ps[P] = ghz_ratio_pass(d, l, perms[(l + 2u * rep + si) % 6u], P % 3u);
                const ghz_ratio_pass_t* p = &ps[P];
                uint64_t last = 0;
                for (uint64_t k = 0; k < p->points; ++k) {
                    uint64_t c[3];
                    pass_point(p, k, c);
                    const uint64_t x = c[0], y = c[1], z = c[2];
                    const uint64_t idx = x + d[0] * (y + d[1] * z), row = ghz_ratio_pass_row(p, d, k);
                    cr_assert(x < d[0] && y < d[1] && z < d[2]);
                    cr_assert_eq(hp[idx], -2, "shape %zu: point %llu in two passes", si, (unsigned long long)idx);
                    hp[idx] = (int)P;
                    hk[idx] = k;
                    cr_assert_eq(row, y + d[1] * z);
                    cr_assert(row >= last, "shape %zu pass %u: rows decrease", si, P);
                    last = row;
                }
                for (uint64_t R = 0; R <= rows; ++R) {
                    uint64_t k = 0;
                    while (k < p->points && ghz_ratio_pass_row(p, d, k) < R) ++k;
                    cr_assert_eq(ghz_ratio_pass_first_row(p, d, R), k, "shape %zu pass %u row %llu", si, P,
                                 (unsigned long long)R);
                }
            }
            for (uint64_t i = 0; i < n; ++i) cr_assert_neq(hp[i], -2, "shape %zu: point %llu in no pass", si,
                                                           (unsigned long long)i);
            for (size_t ci = 0; ci < sizeof sizes / sizeof sizes[0]; ++ci)
                for (unsigned P = 0; P < np; ++P) {
                    const ghz_ratio_pass_t* p = &ps[P];
                    const unsigned ax = p->axis;
                    for (uint64_t k0 = 0; k0 < p->points; k0 += sizes[ci]) {
                        const uint64_t k1 = (k0 + sizes[ci] < p->points ? k0 + sizes[ci] : p->points) - 1;
                        uint64_t r0, r1, a[3 * 64], b[3 * 64];
                        ghz_ratio_input_rows(p, d, k0, k1, &r0, &r1);
                        for (unsigned Q = 0; Q < P; ++Q) {
                            a[Q] = ghz_ratio_pass_first_row(&ps[Q], d, r0);
                            b[Q] = ghz_ratio_pass_first_row(&ps[Q], d, r1 + 1);
                        }
                        for (uint64_t k = k0; k <= k1; ++k) {
                            uint64_t c[3];
                            pass_point(p, k, c);
                            for (int j = 0; j < 4; ++j) {
                                const uint64_t dist = (j < 2 ? 1u : 3u) * p->s;
                                uint64_t e[3] = {c[0], c[1], c[2]};
                                if (j % 2 == 0 ? c[ax] < dist : c[ax] + dist >= d[ax]) continue;
                                e[ax] = j % 2 == 0 ? c[ax] - dist : c[ax] + dist;
                                const uint64_t idx = e[0] + d[0] * (e[1] + d[1] * e[2]);
                                const int Q = hp[idx];
                                if (Q == -1) continue;
                                cr_assert(Q >= 0 && (unsigned)Q < P, "shape %zu pass %u: a neighbour of a later pass",
                                          si, P);
                                cr_assert(hk[idx] >= a[Q] && hk[idx] < b[Q],
                                          "shape %zu, chunks of %llu, pass %u: a neighbour in pass %d outside the "
                                          "rows waited for",
                                          si, (unsigned long long)sizes[ci], P, Q);
                            }
                        }
                    }
                }
        }
        free(hp);
        free(hk);
    }
}
