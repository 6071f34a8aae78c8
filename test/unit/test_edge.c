/* test/unit/test_edge.c: lengths 0..33 (empty, one short block, block boundaries),
 * the sizes FORMAT.md promises for special blocks, and concatenated frames. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

Test(edge, every_tiny_length)
{
    static const tu_pattern_t pats[] = {TU_RANDOM, TU_WALK, TU_CONSTANT, TU_WIDE};
    size_t n, pi;
    int k, mode;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        for (mode = 1; mode <= 2; mode++)
            for (pi = 0; pi < sizeof pats / sizeof pats[0]; pi++)
                for (n = 0; n <= 33; n++) {
                    void* a = tu_make(t, pats[pi], n, 31 * n + pi);
                    ghz_params_t p = tu_params(t, (ghz_eb_mode_t)mode, 1e-2);
                    size_t size = tu_roundtrip(&p, a, n, NULL);
                    size_t nb = (n + 31) / 32;
                    cr_assert(size >= 64 + tu_codes_bytes(n), "n %zu: size %zu", n, size);
                    cr_assert(size <= 64 + tu_codes_bytes(n) + n * ghz_dtype_size(t),
                              "n %zu: size %zu above the worst case", n, size);
                    cr_assert(tu_codes_bytes(n) == (nb + 15) / 16 * 16);
                    free(a);
                }
    }
}

Test(edge, empty_frame)
{
    ghz_params_t p = tu_params(GHZ_F64, GHZ_EB_ABS, 1e-3);
    unsigned char buf[64];
    size_t size = 0, n_out = 99;
    ghz_frame_info_t fi;
    double dummy = 0.0;
    memset(buf, 0xAA, sizeof buf);
    cr_assert_eq(ghz_compress(&p, &dummy, 0, buf, sizeof buf, &size), GHZ_SUCCESS);
    cr_assert_eq(size, 64, "empty frame is the bare header, got %zu", size);
    cr_assert_eq(ghz_frame_info(buf, size, &fi), GHZ_SUCCESS);
    cr_assert(fi.n == 0 && fi.n_blocks == 0 && fi.payload_size == 0 && fi.frame_size == 64);
    cr_assert_eq(ghz_decompress(buf, size, &dummy, 0, &n_out), GHZ_SUCCESS);
    cr_assert_eq(n_out, 0);
    /* ghz_compress_bound agrees: 64 bytes for n = 0. */
    cr_assert_eq(ghz_compress_bound(0, GHZ_F32), 64);
}

/* FORMAT.md, Blocks: "a block of 32 zeros costs no payload byte". */
Test(edge, zeros_cost_header_and_codes)
{
    size_t n;
    int k;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        for (n = 1; n <= 100000; n = n * 7 + 3) {
            void* a = tu_make(t, TU_ZERO, n, 0);
            ghz_params_t p = tu_params(t, GHZ_EB_ABS, 1e-4);
            size_t size = tu_roundtrip(&p, a, n, NULL);
            cr_assert_eq(size, 64 + tu_codes_bytes(n), "n %zu zeros: %zu bytes", n, size);
            free(a);
        }
    }
}

/* "a block of one repeated quantizable value costs 0 to 4 bytes". */
Test(edge, repeated_quantizable_value_costs_at_most_4_bytes)
{
    const size_t n = 32 * 50;
    void* a = tu_alloc(GHZ_F32, n);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    size_t i, size;
    for (i = 0; i < n; i++) tu_set(a, GHZ_F32, i, 12.345); /* q ~ 6172, zz ~ 12345: 2 bytes */
    size = tu_roundtrip(&p, a, n, NULL);
    cr_assert_eq(size, 64 + tu_codes_bytes(n) + 2 * (n / 32), "size %zu", size);
    free(a);
}

/* FORMAT.md, Costs: an undeclared fill value such as -1e34 repeated costs sizeof(T)
 * bytes per block (CONST). */
Test(edge, repeated_unquantizable_value_is_const)
{
    size_t k;
    for (k = 1; k <= 40; k += 13) {
        const size_t n = 32 * k;
        void* a = tu_alloc(GHZ_F32, n);
        void* b = tu_alloc(GHZ_F64, n);
        ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
        size_t i, size;
        for (i = 0; i < n; i++) {
            tu_set(a, GHZ_F32, i, -1e34);
            tu_set(b, GHZ_F64, i, -1e34);
        }
        size = tu_roundtrip(&p, a, n, NULL);
        cr_assert_eq(size, 64 + tu_codes_bytes(n) + 4 * k, "f32 k %zu: size %zu", k, size);
        p.dtype = GHZ_F64;
        size = tu_roundtrip(&p, b, n, NULL);
        cr_assert_eq(size, 64 + tu_codes_bytes(n) + 8 * k, "f64 k %zu: size %zu", k, size);
        free(a);
        free(b);
    }
}

/* REL on constant data: range 0, so E = 0 and every block is stored losslessly
 * (CONST: sizeof(T) bytes each). */
Test(edge, rel_constant_is_lossless)
{
    const size_t n = 1000;
    void* a = tu_make(GHZ_F64, TU_CONSTANT, n, 0);
    ghz_params_t p = tu_params(GHZ_F64, GHZ_EB_REL, 1e-3);
    double eb = -1.0;
    size_t size = tu_roundtrip(&p, a, n, &eb);
    cr_assert(eb == 0.0, "eb_abs %g", eb);
    cr_assert_eq(size, 64 + tu_codes_bytes(n) + 8 * ((n + 31) / 32), "size %zu", size);
    free(a);
}

/* Concatenated frames decode to the concatenation; ghz_stream_info counts them. */
Test(edge, concatenated_frames)
{
    const size_t na = 1000, nb = 77, nc = 0;
    void* a = tu_make(GHZ_F32, TU_NOISY, na, 1);
    void* b = tu_make(GHZ_F32, TU_WIDE, nb, 2);
    ghz_params_t pa = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-2);
    ghz_params_t pb = tu_params(GHZ_F32, GHZ_EB_REL, 1e-4);
    size_t sa, sb, sc, i, n_out = 0;
    unsigned char* ca = tu_compress(&pa, a, na, &sa);
    unsigned char* cb = tu_compress(&pb, b, nb, &sb);
    unsigned char* cc = tu_compress(&pa, a, nc, &sc);
    unsigned char* all = malloc(sa + sb + sc + sa);
    float* out = malloc((na + nb + na) * 4);
    float* da = tu_decompress(ca, sa, GHZ_F32, na);
    float* db = tu_decompress(cb, sb, GHZ_F32, nb);
    uint64_t n_total = 0, n_frames = 0;
    ghz_dtype_t dt = (ghz_dtype_t)0;
    memcpy(all, ca, sa);
    memcpy(all + sa, cb, sb);
    memcpy(all + sa + sb, cc, sc);
    memcpy(all + sa + sb + sc, ca, sa);
    cr_assert_eq(ghz_stream_info(all, sa + sb + sc + sa, &n_total, &n_frames, &dt),
                 GHZ_SUCCESS);
    cr_assert(n_total == na + nb + na && n_frames == 4 && dt == GHZ_F32,
              "n_total %llu frames %llu dtype %d", (unsigned long long)n_total,
              (unsigned long long)n_frames, (int)dt);
    {
        /* ghz_frame_info describes the first frame only */
        ghz_frame_info_t fi;
        cr_assert_eq(ghz_frame_info(all, sa + sb + sc + sa, &fi), GHZ_SUCCESS);
        cr_assert(fi.n == na && fi.frame_size == sa && fi.eb_mode == GHZ_EB_ABS);
        cr_assert_eq(ghz_frame_info(all + sa, sb + sc + sa, &fi), GHZ_SUCCESS);
        cr_assert(fi.n == nb && fi.frame_size == sb && fi.eb_mode == GHZ_EB_REL);
    }
    cr_assert_eq(ghz_decompress(all, sa + sb + sc + sa, out, (na + nb + na) * 4, &n_out),
                 GHZ_SUCCESS);
    cr_assert_eq(n_out, na + nb + na);
    cr_assert(memcmp(out, da, na * 4) == 0, "frame 1 differs from its lone decode");
    cr_assert(memcmp(out + na, db, nb * 4) == 0, "frame 2 differs from its lone decode");
    cr_assert(memcmp(out + na + nb, da, na * 4) == 0, "frame 4 differs from its lone decode");
    /* Capacity for all but the last element is too small. */
    cr_assert_eq(ghz_decompress(all, sa + sb + sc + sa, out, (na + nb + na) * 4 - 4, &n_out),
                 GHZ_ERR_DST_TOO_SMALL);
    /* The multi-threaded decoder gives the same. */
    memset(out, 0, (na + nb + na) * 4);
    cr_assert_eq(ghz_decompress_mt(all, sa + sb + sc + sa, out, (na + nb + na) * 4, &n_out, 2),
                 GHZ_SUCCESS);
    cr_assert(memcmp(out + na, db, nb * 4) == 0 && memcmp(out, da, na * 4) == 0);
    (void)i;
    free(a); free(b); free(ca); free(cb); free(cc); free(all); free(out); free(da); free(db);
}

Test(edge, concatenated_frames_mixed_dtypes_rejected)
{
    const size_t n = 100;
    void* a = tu_make(GHZ_F32, TU_RANDOM, n, 1);
    void* b = tu_make(GHZ_F64, TU_RANDOM, n, 2);
    ghz_params_t pa = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-2);
    ghz_params_t pb = tu_params(GHZ_F64, GHZ_EB_ABS, 1e-2);
    size_t sa, sb, n_out;
    unsigned char* ca = tu_compress(&pa, a, n, &sa);
    unsigned char* cb = tu_compress(&pb, b, n, &sb);
    unsigned char* all = malloc(sa + sb);
    unsigned char* out = malloc(n * 16);
    uint64_t nt, nf;
    ghz_dtype_t dt;
    memcpy(all, ca, sa);
    memcpy(all + sa, cb, sb);
    cr_assert_eq(ghz_stream_info(all, sa + sb, &nt, &nf, &dt), GHZ_ERR_CORRUPT);
    cr_assert_eq(ghz_decompress(all, sa + sb, out, n * 16, &n_out), GHZ_ERR_CORRUPT);
    free(a); free(b); free(ca); free(cb); free(all); free(out);
}

/* Trailing bytes that do not form a frame make the stream invalid. */
Test(edge, trailing_garbage_rejected)
{
    const size_t n = 100;
    void* a = tu_make(GHZ_F32, TU_RANDOM, n, 1);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-2);
    size_t s, n_out, extra;
    unsigned char* c = tu_compress(&p, a, n, &s);
    unsigned char* all = malloc(s + 100);
    float out[200];
    uint64_t nt, nf;
    ghz_dtype_t dt;
    for (extra = 1; extra <= 100; extra += 33) {
        ghz_status_t st1, st2;
        memcpy(all, c, s);
        memset(all + s, 0, extra);
        st1 = ghz_stream_info(all, s + extra, &nt, &nf, &dt);
        st2 = ghz_decompress(all, s + extra, out, sizeof out, &n_out);
        cr_assert(st1 != GHZ_SUCCESS && st2 != GHZ_SUCCESS,
                  "%zu zero bytes after a frame accepted (%d, %d)", extra, (int)st1, (int)st2);
    }
    free(a); free(c); free(all);
}
