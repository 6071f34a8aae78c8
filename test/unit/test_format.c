/* test/unit/test_format.c: the library and FORMAT.md agree, byte for byte.
 *
 *  - Two frames written by hand from the spec (the hex below was produced by a small
 *    Python transcription of FORMAT.md, independent of the library and of testutil)
 *    decode to the values the spec says, and compressing their inputs reproduces them
 *    (make_format_vectors.py derives the hex).
 *  - testutil's tu_ref_compress, a second transcription of the spec, gives the same
 *    bytes as ghz_compress on hundreds of random inputs with every feature mixed in.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Frame A: f32, ABS 128/255 (Q = 128/255 * 1.9921875 = 1 exactly), no fill, n = 100:
 *   block 0 QUANT q0 = -3 (zz 5, c = 1), w = 3   code 0x23, 17 payload bytes
 *   block 1 CONST NaN 0x7FC01234                  code 0x3F, 4 bytes
 *   block 2 RAW (NaN, -0.0, denormal, Inf, ...)   code 0x1F, 128 bytes
 *   block 3 QUANT m = 4, q = 1000 1000 1001 999   code 0x42 (w 2, c 2), 14 bytes */
static const char stream_a_hex[] =
    "f947485a02004000010105000000000064000000000000000400000000000000a300000000000000"
    "101010101010e03f101010101010e03f0000000000000000233f1f42000000000000000000000000"
    "052450a024aad3f0b00c600033608000043412c07f0000803f0000c07f0000008001000000000080"
    "7f79e9f642000080ffabaaaa3e0000803fffff7f7f00000080010000000000807f79e9f642000080"
    "ffabaaaa3e0000803f0000c8c200000080010000000000807f79e9f642000080ffabaaaa3e000080"
    "3f0000c07f00000080010000000000807f79e9f642000080ffabaaaa3ed007080000000400000008"
    "000000";

/* Frame B: f64, ABS 0.25 (Q = 0.5), fill -9999.0, n = 102:
 *   block 0 FILLED                                           code 0x5F
 *   block 1 QUANT with mask 0x80020003, q0 -100000 (c = 3), w 3  code 0xE3, 24 bytes
 *   block 2 CONST +Inf                                       code 0x3F, 8 bytes
 *   block 3 QUANT m = 6, mask 0x20, q0 0 (c = 0), w 2          code 0x82, 16 bytes */
static const char stream_b_hex[] =
    "f947485a020040000201050100000000660000000000000004000000000000003000000000000000"
    "000000000000d03f000000000000d03f000000008087c3c05fe33f82000000000000000000000000"
    "030002803f0d03000000fc7ff8fffd7ff8fffd7f0000fc7f000000000000f07f2000000004000000"
    "0600000010000000";

static size_t unhex(const char* h, unsigned char* out)
{
    size_t n = strlen(h) / 2, i;
    for (i = 0; i < n; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
    return n;
}

static const int32_t a_q0[32] = {-3, -2, -4, -1, -1, -6, -2, -1, 0, 1, 1, 1, 0, 2, -1, 4,
                                 4,  4,  4,  4,  5,  4,  5,  4, 6, 8, 4, 4, 7, 4, 4,      5};
static const uint32_t a_raw[8] = {0x3F800000u, 0x7FC00000u, 0x80000000u, 0x00000001u,
                                  0x7F800000u, 0x42F6E979u, 0xFF800000u, 0x3EAAAAABu};

/* Input of frame A (with halfway points that round to even) and its decoded values. */
static void frame_a_values(float* in, float* out)
{
    int i;
    for (i = 0; i < 32; i++) in[i] = out[i] = (float)a_q0[i];
    in[1] = -2.5f;  /* rint(-2.5) = -2, |err| = 0.5 <= E: accepted */
    in[2] = -3.5f;  /* rint(-3.5) = -4 */
    in[8] = 0.5f;   /* rint(0.5) = 0 */
    in[13] = 2.5f;  /* -> 2 */
    in[15] = 4.3f;  /* -> 4 */
    in[20] = 4.75f; /* -> 5 */
    in[24] = 5.5f;  /* -> 6 */
    in[25] = 8.5f;  /* -> 8 */
    for (i = 32; i < 64; i++) in[i] = out[i] = tu_flt_from_bits(0x7FC01234u);
    for (i = 64; i < 96; i++) in[i] = out[i] = tu_flt_from_bits(a_raw[i % 8]);
    in[64 + 9] = out[64 + 9] = FLT_MAX;
    in[64 + 17] = out[64 + 17] = -100.0f;
    in[96] = out[96] = 1000.0f;
    in[97] = 1000.25f;
    out[97] = 1000.0f;
    in[98] = out[98] = 1001.0f;
    in[99] = out[99] = 999.0f;
}

static const double b_fill = -9999.0;

static void frame_b_values(double* in, double* out)
{
    int i;
    for (i = 0; i < 32; i++) in[i] = out[i] = b_fill;
    for (i = 2; i <= 16; i++) in[32 + i] = out[32 + i] = 0.5 * (-100000 + 3 * (i - 2));
    for (i = 18; i <= 30; i++) in[32 + i] = out[32 + i] = 0.5 * (-99958 - 7 * (i - 17));
    in[32] = in[33] = in[32 + 17] = in[32 + 31] = b_fill;
    out[32] = out[33] = out[32 + 17] = out[32 + 31] = b_fill;
    for (i = 64; i < 96; i++) in[i] = out[i] = INFINITY;
    in[96] = 0.0;   out[96] = 0.0;
    in[97] = 0.5;   out[97] = 0.5;
    in[98] = -0.0;  out[98] = 0.0; /* q = 0 decodes to +0.0 */
    in[99] = 0.25;  out[99] = 0.0; /* rint(0.5) = 0 */
    in[100] = 0.75; out[100] = 1.0; /* rint(1.5) = 2 */
    in[101] = b_fill; out[101] = b_fill;
}

Test(format, hand_built_frame_a_decodes)
{
    unsigned char s[512];
    size_t size = unhex(stream_a_hex, s), n_out = 0, i;
    float in[100], expect[100], got[100];
    ghz_frame_info_t fi;
    frame_a_values(in, expect);
    cr_assert_eq(size, 243);
    cr_assert_eq(ghz_frame_info(s, size, &fi), GHZ_SUCCESS, "%s", ghz_last_error_detail());
    cr_assert(fi.format_version == 2 && fi.dtype == GHZ_F32 && fi.eb_mode == GHZ_EB_ABS &&
              fi.eb_user == 128.0 / 255.0 && fi.eb_abs == 128.0 / 255.0 && !fi.has_fill && fi.n == 100 &&
              fi.n_blocks == 4 && fi.payload_size == 163 && fi.frame_size == 243);
    cr_assert_eq(ghz_decompress(s, size, got, sizeof got, &n_out), GHZ_SUCCESS, "%s",
                 ghz_last_error_detail());
    cr_assert_eq(n_out, 100);
    for (i = 0; i < 100; i++)
        cr_assert(tu_flt_bits(got[i]) == tu_flt_bits(expect[i]),
                  "element %zu: got %a (%08x), FORMAT.md says %a (%08x)", i, got[i],
                  tu_flt_bits(got[i]), expect[i], tu_flt_bits(expect[i]));
}

Test(format, hand_built_frame_a_is_what_compress_writes)
{
    unsigned char s[512], c[1024];
    size_t size = unhex(stream_a_hex, s), csize = 0, i;
    float in[100], expect[100];
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 128.0 / 255.0); /* Q = 1 */
    frame_a_values(in, expect);
    cr_assert_eq(ghz_compress(&p, in, 100, c, sizeof c, &csize), GHZ_SUCCESS);
    cr_assert_eq(csize, size, "compressed size %zu, FORMAT.md says %zu", csize, size);
    /* Frame A has no fill, as 0.2 wrote it; written today without a declared fill it
     * declares the canonical NaN (FORMAT.md, NaN as the fill value): flag bit 0 and
     * fill_bits 0x7FC00000. Its one canonical NaN shares block 2 with an Inf, so every
     * block is the same. */
    s[11] |= 1u;
    s[58] = 0xc0;
    s[59] = 0x7f;
    for (i = 0; i < size; i++)
        cr_assert(c[i] == s[i], "byte %zu: library %02x, FORMAT.md %02x", i, c[i], s[i]);
}

Test(format, hand_built_frame_b_decodes)
{
    unsigned char s[512];
    size_t size = unhex(stream_b_hex, s), n_out = 0, i;
    double in[102], expect[102], got[102];
    ghz_frame_info_t fi;
    frame_b_values(in, expect);
    cr_assert_eq(size, 128);
    cr_assert_eq(ghz_frame_info(s, size, &fi), GHZ_SUCCESS, "%s", ghz_last_error_detail());
    cr_assert(fi.dtype == GHZ_F64 && fi.has_fill && fi.fill_bits == tu_dbl_bits(b_fill) &&
              fi.n == 102 && fi.n_blocks == 4 && fi.payload_size == 48 && fi.eb_abs == 0.25);
    cr_assert_eq(ghz_decompress(s, size, got, sizeof got, &n_out), GHZ_SUCCESS, "%s",
                 ghz_last_error_detail());
    cr_assert_eq(n_out, 102);
    for (i = 0; i < 102; i++)
        cr_assert(tu_dbl_bits(got[i]) == tu_dbl_bits(expect[i]),
                  "element %zu: got %a, FORMAT.md says %a", i, got[i], expect[i]);
}

Test(format, hand_built_frame_b_is_what_compress_writes)
{
    unsigned char s[512], c[2048];
    size_t size = unhex(stream_b_hex, s), csize = 0, i;
    double in[102], expect[102];
    ghz_params_t p = tu_params(GHZ_F64, GHZ_EB_ABS, 0.25);
    p.has_fill = 1;
    p.fill = b_fill;
    frame_b_values(in, expect);
    cr_assert_eq(ghz_compress(&p, in, 102, c, sizeof c, &csize), GHZ_SUCCESS);
    cr_assert_eq(csize, size, "compressed size %zu, FORMAT.md says %zu", csize, size);
    for (i = 0; i < size; i++)
        cr_assert(c[i] == s[i], "byte %zu: library %02x, FORMAT.md %02x", i, c[i], s[i]);
}

/* The header fields of a library-written frame, one by one. */
Test(format, header_fields)
{
    const size_t n = 1000;
    void* a = tu_make(GHZ_F32, TU_NOISY, n, 4);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_REL, 1e-3);
    size_t size;
    unsigned char* c;
    double lo, hi;
    p.has_fill = 1;
    p.fill = -1e34;
    tu_set(a, GHZ_F32, 17, -1e34);
    c = tu_compress(&p, a, n, &size);
    tu_range(a, GHZ_F32, n, 1, tu_bits_of(GHZ_F32, -1e34), &lo, &hi);
    cr_assert(c[0] == 0xF9 && c[1] == 0x47 && c[2] == 0x48 && c[3] == 0x5A, "magic");
    cr_assert(tu_rd(c + 4, 2) == 2, "format_version %llu", (unsigned long long)tu_rd(c + 4, 2));
    cr_assert(tu_rd(c + 6, 2) == 64, "header_size");
    cr_assert(c[8] == 1 && c[9] == 2 && c[10] == 5 && c[11] == 1, "dtype/mode/log2/flags");
    cr_assert(tu_rd(c + 12, 4) == 0, "reserved");
    cr_assert(tu_rd(c + 16, 8) == n && tu_rd(c + 24, 8) == 32, "n / n_blocks");
    cr_assert(tu_rd(c + 32, 8) == size - 64 - 32, "payload_size %llu, frame %zu",
              (unsigned long long)tu_rd(c + 32, 8), size);
    cr_assert(tu_rd(c + 40, 8) == tu_dbl_bits(1e-3), "eb_user");
    cr_assert(tu_rd(c + 48, 8) == tu_dbl_bits(tu_rel_bound(1e-3, lo, hi)),
              "eb_abs %a, FORMAT.md %a", tu_dbl_from_bits(tu_rd(c + 48, 8)),
              tu_rel_bound(1e-3, lo, hi));
    cr_assert(tu_rd(c + 56, 8) == tu_flt_bits(-1e34f), "fill_bits: f32 in the low half, %llx",
              (unsigned long long)tu_rd(c + 56, 8));
    cr_assert_eq(ghz_format_version(), 3); /* the newest version read */
    free(c);
    free(a);
}

/* Widest deltas (w = 30) and |q| = QMAX at both ends. */
Test(format, extreme_integers)
{
    double in[64];
    float fin[32];
    ghz_params_t p = tu_params(GHZ_F64, GHZ_EB_ABS, 0.5);
    size_t size, i;
    unsigned char* c;
    double* out;
    for (i = 0; i < 64; i++) in[i] = (i % 2 ? 1.0 : -1.0) * (double)TU_QMAX;
    in[40] = 0.0;
    c = tu_compress(&p, in, 64, &size);
    cr_assert(c[64] == (30 | 3 << 5), "code %02x, expected w 30 c 3", c[64]);
    /* payload: zz(-QMAX) = 2^30 - 3 in 4 bytes, then sign + 30 planes */
    cr_assert(tu_rd(c + 64 + 16, 4) == 1073741821u, "zz %llx",
              (unsigned long long)tu_rd(c + 64 + 16, 4));
    out = tu_decompress(c, size, GHZ_F64, 64);
    for (i = 0; i < 64; i++) cr_assert(out[i] == in[i], "element %zu: %.17g", i, out[i]);
    free(out);
    free(c);
    /* f32: alternating +-536870880: w = 30, c = 3, payload 4 + 4 + 120 = 128 = RAW's
     * size, so QUANT (only a larger QUANT becomes RAW); with one fill value the mask
     * makes it 132 > 128: RAW. */
    for (i = 0; i < 32; i++) fin[i] = (i % 2 ? 1.0f : -1.0f) * 536870880.0f;
    p = tu_params(GHZ_F32, GHZ_EB_ABS, 128.0 / 255.0); /* Q = 1 */
    c = tu_compress(&p, fin, 32, &size);
    cr_assert(c[64] == (30 | 3 << 5) && size == 64 + 16 + 128, "code %02x size %zu", c[64],
              size);
    free(c);
    p.has_fill = 1;
    p.fill = 7.0;
    fin[5] = 7.0f;
    c = tu_compress(&p, fin, 32, &size);
    cr_assert(c[64] == 0x1F && size == 64 + 16 + 128, "code %02x size %zu", c[64], size);
    free(c);
}

/* ---- the library against the independent encoder ---------------------------------- */
static void describe_diff(const unsigned char* lib, size_t ls, const unsigned char* ref,
                          size_t rs, uint64_t n, char* msg, size_t len)
{
    size_t cb = tu_codes_bytes(n), i, m = ls < rs ? ls : rs;
    for (i = 0; i < m && lib[i] == ref[i]; i++) {}
    if (i < 64)
        snprintf(msg, len, "header byte %zu: library %02x, spec %02x (sizes %zu / %zu)", i,
                 lib[i], ref[i], ls, rs);
    else if (i < 64 + cb)
        snprintf(msg, len, "code of block %zu: library %02x, spec %02x (sizes %zu / %zu)",
                 i - 64, lib[i], ref[i], ls, rs);
    else if (i < m)
        snprintf(msg, len, "payload byte %zu: library %02x, spec %02x (sizes %zu / %zu)",
                 i - 64 - cb, lib[i], ref[i], ls, rs);
    else
        snprintf(msg, len, "sizes differ: library %zu, spec %zu", ls, rs);
}

static void compare_with_ref(const ghz_params_t* p, const void* a, size_t n, const char* what)
{
    size_t cap = ghz_compress_bound(n, p->dtype), ls = 0, rs;
    unsigned char* lib = malloc(cap);
    unsigned char* ref = malloc(cap);
    ghz_status_t st = ghz_compress(p, a, n, lib, cap, &ls);
    char msg[256];
    cr_assert_eq(st, GHZ_SUCCESS, "%s: %s", what, ghz_last_error_detail());
    rs = tu_ref_compress(p, a, n, ref);
    if (ls != rs || memcmp(lib, ref, ls) != 0) {
        describe_diff(lib, ls, ref, rs, n, msg, sizeof msg);
        cr_assert_fail("%s (dtype %d mode %d eb %g fill %d n %zu): %s", what, (int)p->dtype,
                       (int)p->eb_mode, p->eb, p->has_fill, n, msg);
    }
    free(lib);
    free(ref);
}

static double pick_eb(tu_rng_t* r)
{
    static const double ebs[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 0.5, 1.0 / 3.0,
                                 0.3, 7.0, 1e-30, 1e30, 2.5e-9, 1e-12, 1e-310, 8e307};
    return ebs[tu_below(r, sizeof ebs / sizeof ebs[0])];
}

Test(format, library_matches_spec_encoder_random)
{
    tu_rng_t r;
    int iter;
    tu_seed(&r, 2024);
    for (iter = 0; iter < 600; iter++) {
        ghz_dtype_t t = tu_below(&r, 2) ? GHZ_F64 : GHZ_F32;
        ghz_eb_mode_t mode = tu_below(&r, 2) ? GHZ_EB_REL : GHZ_EB_ABS;
        size_t n = tu_below(&r, 4) == 0 ? tu_below(&r, 70) : tu_below(&r, 3000);
        tu_pattern_t pat = (tu_pattern_t)tu_below(&r, 7);
        void* a = tu_make(t, pat, n, tu_next(&r));
        ghz_params_t p = tu_params(t, mode, pick_eb(&r));
        while (mode == GHZ_EB_REL && p.eb > 1.0) p.eb = pick_eb(&r); /* no overflow */
        size_t i, k;
        char what[64];
        double scale = tu_below(&r, 3) == 0 ? pow(10.0, (double)tu_below(&r, 20) - 10.0) : 1.0;
        for (i = 0; i < n; i++) tu_set(a, t, i, tu_get(a, t, i) * scale);
        if (tu_below(&r, 2) && n) { /* specials */
            size_t cnt = tu_below(&r, n / 8 + 2);
            static const double sp[] = {NAN, INFINITY, -INFINITY, -0.0, 1e30, -1e34, 5e-324,
                                        1.4e-45, 3.4028234663852886e38, 0.0};
            for (k = 0; k < cnt; k++) tu_set(a, t, tu_below(&r, n), sp[tu_below(&r, 10)]);
        }
        if (tu_below(&r, 2) && n) { /* fill value: runs and single positions */
            size_t cnt = tu_below(&r, 6);
            p.has_fill = 1;
            p.fill = tu_below(&r, 3) ? -1e34 : tu_get(a, t, tu_below(&r, n));
            for (k = 0; k < cnt; k++) {
                size_t at = tu_below(&r, n), len = tu_below(&r, 70), j;
                for (j = at; j < n && j < at + len; j++) tu_set(a, t, j, p.fill);
            }
        }
        if (mode == GHZ_EB_REL && tu_below(&r, 4) == 0) {
            p.has_range = 1;
            p.range_min = -50.0 * scale;
            p.range_max = 75.0 * scale;
        }
        if (tu_below(&r, 3) == 0) p.nthreads = 0;
        snprintf(what, sizeof what, "iteration %d, %s", iter, tu_pattern_names[pat]);
        compare_with_ref(&p, a, n, what);
        free(a);
    }
}

/* Every q0 byte class boundary and delta width 0..30. */
Test(format, library_matches_spec_encoder_widths)
{
    int w, k;
    for (k = 0; k < 2; k++) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        for (w = 0; w <= 30; w++) {
            const size_t n = 32 * 6;
            void* a = tu_alloc(t, n);
            ghz_params_t p = tu_params(t, GHZ_EB_ABS, 0.5);
            static const int32_t q0s[] = {0, -1, 127, -128, 128, 32767, -32768, 32768, 1000000};
            size_t i, b;
            for (b = 0; b < 6; b++)
                for (i = 0; i < 32; i++) {
                    int64_t base = q0s[(b + w) % 9];
                    int64_t d = w == 0 ? 0 : (int64_t)1 << (w - 1);
                    int64_t q = base + ((i * 7 + b) % 3 == 0 ? d : 0);
                    if (i == 0) q = base;
                    if (q > TU_QMAX) q = TU_QMAX;
                    tu_set(a, t, 32 * b + i, (double)q);
                }
            compare_with_ref(&p, a, n, "width sweep");
            free(a);
        }
    }
}
