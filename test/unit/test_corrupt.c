/* test/unit/test_corrupt.c: truncated and corrupted streams are rejected with the
 * right status and never read or write out of bounds. Every input sits at the very end
 * of a readable mapping followed by a PROT_NONE page, and every output buffer too, so
 * a single byte of over-read or over-write crashes the test. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct {
    unsigned char* s;
    size_t size;
    size_t n;
    ghz_dtype_t t;
    ghz_eb_mode_t mode;
    int has_fill;
} stream_t;

/* S0: f32 ABS, no fill (a frame of 0.2: FORMAT.md, NaN as the fill value), QUANT + RAW
 * (NaN) + CONST (Inf) blocks, short last block.
 * S1: f32 REL with fill (FILLED, masked QUANT).  S2: f64 ABS with fill.
 * S3: f32 ABS written without a declared fill today: NaN the fill (FILLED, masked QUANT),
 * a NaN of other bits (RAW). */
#define N_STREAMS 4
static stream_t make_stream(int which)
{
    stream_t st;
    ghz_params_t p;
    void* a;
    size_t i;
    memset(&st, 0, sizeof st);
    switch (which) {
    case 0:
        st.n = 300;
        st.t = GHZ_F32;
        st.mode = GHZ_EB_ABS;
        a = tu_make(st.t, TU_NOISY, st.n, 1);
        tu_set(a, st.t, 100, NAN);
        for (i = 160; i < 192; i++) tu_set(a, st.t, i, INFINITY);
        p = tu_params(st.t, st.mode, 1e-3);
        st.s = malloc(ghz_compress_bound(st.n, st.t));
        st.size = tu_ref_compress_v02(&p, a, st.n, st.s);
        free(a);
        return st;
    case 1:
        st.n = 200;
        st.t = GHZ_F32;
        st.mode = GHZ_EB_REL;
        st.has_fill = 1;
        a = tu_make(st.t, TU_WALK, st.n, 2);
        for (i = 0; i < 40; i++) tu_set(a, st.t, i, -9999.0);
        for (i = 70; i < 200; i += 9) tu_set(a, st.t, i, -9999.0);
        p = tu_params(st.t, st.mode, 1e-3);
        p.has_fill = 1;
        p.fill = -9999.0;
        break;
    case 3:
        st.n = 250;
        st.t = GHZ_F32;
        st.mode = GHZ_EB_ABS;
        st.has_fill = 1;
        a = tu_make(st.t, TU_SMOOTH, st.n, 4);
        for (i = 32; i < 64; i++) tu_set_bits(a, st.t, i, 0x7FC00000u);
        for (i = 90; i < 250; i += 7) tu_set_bits(a, st.t, i, 0x7FC00000u);
        tu_set_bits(a, st.t, 200, 0xFFC00000u);
        p = tu_params(st.t, st.mode, 1e-3);
        break;
    default:
        st.n = 100;
        st.t = GHZ_F64;
        st.mode = GHZ_EB_ABS;
        st.has_fill = 1;
        a = tu_make(st.t, TU_SMOOTH, st.n, 3);
        for (i = 0; i < 32; i++) tu_set(a, st.t, i, -1e34);
        tu_set(a, st.t, 50, -1e34);
        p = tu_params(st.t, st.mode, 1e-4);
        p.has_fill = 1;
        p.fill = -1e34;
        break;
    }
    st.s = tu_compress(&p, a, st.n, &st.size);
    free(a);
    return st;
}

/* Decodes src[0..len) from a guarded copy into a guarded output of out_cap bytes. */
static ghz_status_t guarded_decode(const unsigned char* src, size_t len, size_t out_cap,
                                   size_t* n_out, int mt, void* copy_out)
{
    tu_guard_t gi, go;
    unsigned char* in = tu_guard_copy(&gi, src, len);
    unsigned char* zeros = calloc(out_cap + 1, 1);
    unsigned char* out = tu_guard_copy(&go, zeros, out_cap);
    ghz_status_t st;
    *n_out = (size_t)-1;
    st = mt ? ghz_decompress_mt(in, len, out, out_cap, n_out, 2)
            : ghz_decompress(in, len, out, out_cap, n_out);
    if (copy_out && st == GHZ_SUCCESS) memcpy(copy_out, out, out_cap);
    free(zeros);
    tu_guard_free(&gi);
    tu_guard_free(&go);
    return st;
}

static int is_reject(ghz_status_t st)
{
    return st == GHZ_ERR_CORRUPT || st == GHZ_ERR_TRUNCATED;
}

/* ---- (a) truncation ------------------------------------------------------------------ */
Test(corrupt, every_truncation_rejected)
{
    int w;
    for (w = 0; w < N_STREAMS; w++) {
        stream_t s = make_stream(w);
        size_t len, cap = s.n * ghz_dtype_size(s.t);
        for (len = 0; len < s.size; len++) {
            size_t n_out;
            ghz_status_t st = guarded_decode(s.s, len, cap, &n_out, len % 2, NULL);
            tu_guard_t g;
            unsigned char* in = tu_guard_copy(&g, s.s, len);
            ghz_frame_info_t fi;
            uint64_t nt, nf;
            ghz_dtype_t dt;
            ghz_status_t si = ghz_frame_info(in, len, &fi);
            ghz_status_t ss = ghz_stream_info(in, len, &nt, &nf, &dt);
            tu_guard_free(&g);
            cr_assert(st != GHZ_SUCCESS && si != GHZ_SUCCESS && ss != GHZ_SUCCESS,
                      "stream %d cut to %zu of %zu bytes accepted (%d %d %d)", w, len, s.size,
                      (int)st, (int)si, (int)ss);
            if (len >= 4) /* the magic is there: the frame is cut short */
                cr_assert(st == GHZ_ERR_TRUNCATED && si == GHZ_ERR_TRUNCATED &&
                              ss == GHZ_ERR_TRUNCATED,
                          "stream %d cut to %zu of %zu: status %d / %d / %d, expected "
                          "GHZ_ERR_TRUNCATED",
                          w, len, s.size, (int)st, (int)si, (int)ss);
        }
        {
            size_t n_out;
            cr_assert_eq(guarded_decode(s.s, s.size, cap, &n_out, 0, NULL), GHZ_SUCCESS);
            cr_assert_eq(n_out, s.n);
        }
        free(s.s);
    }
}

/* A two-frame stream cut anywhere inside its second frame. */
Test(corrupt, truncated_second_frame_rejected)
{
    stream_t s = make_stream(0);
    unsigned char* two = malloc(2 * s.size);
    size_t len, cap = 2 * s.n * 4, n_out;
    memcpy(two, s.s, s.size);
    memcpy(two + s.size, s.s, s.size);
    for (len = s.size + 1; len < 2 * s.size; len++) {
        ghz_status_t st = guarded_decode(two, len, cap, &n_out, 0, NULL);
        cr_assert(st == GHZ_ERR_TRUNCATED, "cut at %zu of %zu: status %d", len, 2 * s.size,
                  (int)st);
    }
    cr_assert_eq(guarded_decode(two, s.size, cap, &n_out, 0, NULL), GHZ_SUCCESS);
    cr_assert_eq(n_out, s.n);
    cr_assert_eq(guarded_decode(two, 2 * s.size, cap, &n_out, 0, NULL), GHZ_SUCCESS);
    cr_assert_eq(n_out, 2 * s.n);
    free(two);
    free(s.s);
}

/* ---- (b) every single-bit flip of the header ------------------------------------------ */
enum expect { MUST_NOT_GHZ, MUST_VERSION, MUST_FIXED_MODE, MUST_REJECT, MAY_ACCEPT, MUST_ACCEPT_SAME };

static int bad_eb_abs(double e, ghz_eb_mode_t mode)
{
    return !isfinite(e) || e < 0.0 || !isfinite(2.0 * e) || (e == 0.0 && mode == GHZ_EB_ABS) ||
           signbit(e);
}

/* What FORMAT.md's validation rules say about the header with bit `bit` of byte `byte`
 * flipped. *same: when accepted, the output must equal the original's. */
static enum expect classify(const stream_t* s, const unsigned char* h, int byte, int bit,
                            int* same)
{
    uint64_t fld, flipped;
    *same = 0;
    if (byte < 4) return MUST_NOT_GHZ;
    /* version 3 (RATIO.md) holds block frames too, with byte 12 = 0: the same frame */
    if (byte == 4 && bit == 0) {
        *same = 1;
        return MUST_ACCEPT_SAME;
    }
    if (byte < 6) return MUST_VERSION;
    /* mode 3 is a fixed-rate frame (FIXED.md): unsupported here, not corrupt */
    if (byte == 9 && (h[9] ^ (1u << bit)) == 3u) return MUST_FIXED_MODE;
    if (byte < 11) return MUST_REJECT; /* header_size, dtype, eb_mode, block_log2 */
    if (byte == 11) {
        if (bit > 0) return MUST_REJECT;
        /* Clearing the flag leaves fill_bits nonzero (our fills are nonzero); setting it
         * declares +0.0 the fill value, a valid header. */
        return s->has_fill ? MUST_REJECT : MAY_ACCEPT;
    }
    if (byte < 16) return MUST_REJECT; /* reserved */
    if (byte < 24) {                   /* n: valid only while ceil(n/32) == n_blocks */
        fld = tu_rd(h + 16, 8);
        flipped = fld ^ ((uint64_t)1 << (8 * (byte - 16) + bit));
        return flipped / 32 + (flipped % 32 != 0) != tu_rd(h + 24, 8) ? MUST_REJECT
                                                                         : MAY_ACCEPT;
    }
    if (byte < 40) return MUST_REJECT; /* n_blocks, payload_size */
    if (byte < 48) {                   /* eb_user: finite and > 0; decoding ignores it */
        double e;
        fld = tu_rd(h + 40, 8) ^ ((uint64_t)1 << (8 * (byte - 40) + bit));
        e = tu_dbl_from_bits(fld);
        if (!(isfinite(e) && e > 0.0)) return MUST_REJECT;
        *same = 1;
        /* A REL frame's eb_user is only the factor; an ABS reader may insist that
         * eb_abs == eb_user, but must not decode with a different bound. */
        return s->mode == GHZ_EB_REL ? MUST_ACCEPT_SAME : MAY_ACCEPT;
    }
    if (byte < 56) {
        fld = tu_rd(h + 48, 8) ^ ((uint64_t)1 << (8 * (byte - 48) + bit));
        return bad_eb_abs(tu_dbl_from_bits(fld), s->mode) ? MUST_REJECT : MAY_ACCEPT;
    }
    /* fill_bits: zero unless flagged, high half zero for f32 */
    if (!s->has_fill) return MUST_REJECT;
    if (s->t == GHZ_F32 && byte >= 60) return MUST_REJECT;
    return MAY_ACCEPT;
}

Test(corrupt, header_bit_flips)
{
    int w;
    for (w = 0; w < N_STREAMS; w++) {
        stream_t s = make_stream(w);
        size_t cap = s.n * ghz_dtype_size(s.t), n_out;
        unsigned char* ref = malloc(cap);
        unsigned char* got = malloc(cap);
        unsigned char* buf = malloc(s.size);
        int byte, bit, rejected = 0, accepted = 0;
        cr_assert_eq(guarded_decode(s.s, s.size, cap, &n_out, 0, ref), GHZ_SUCCESS);
        for (byte = 0; byte < 64; byte++)
            for (bit = 0; bit < 8; bit++) {
                int same;
                enum expect e = classify(&s, s.s, byte, bit, &same);
                ghz_status_t st, fi_st;
                ghz_frame_info_t fi;
                tu_guard_t g;
                memcpy(buf, s.s, s.size);
                buf[byte] ^= (unsigned char)(1u << bit);
                st = guarded_decode(buf, s.size, cap, &n_out, 0, got);
                fi_st = ghz_frame_info(tu_guard_copy(&g, buf, s.size), s.size, &fi);
                tu_guard_free(&g);
                rejected += st != GHZ_SUCCESS;
                accepted += st == GHZ_SUCCESS;
                switch (e) {
                case MUST_NOT_GHZ:
                    cr_assert(st == GHZ_ERR_NOT_GHZ && fi_st == GHZ_ERR_NOT_GHZ,
                              "stream %d, magic byte %d bit %d: %d / %d", w, byte, bit, (int)st,
                              (int)fi_st);
                    break;
                case MUST_VERSION:
                    cr_assert(st == GHZ_ERR_VERSION && fi_st == GHZ_ERR_VERSION,
                              "stream %d, version byte %d bit %d: %d / %d", w, byte, bit,
                              (int)st, (int)fi_st);
                    break;
                case MUST_FIXED_MODE:
                    cr_assert(st == GHZ_ERR_UNSUPPORTED && fi_st == GHZ_ERR_UNSUPPORTED,
                              "stream %d, mode byte bit %d: %d / %d", w, bit, (int)st,
                              (int)fi_st);
                    cr_assert(strstr(ghz_last_error_detail(), "fixed-rate") != NULL,
                              "detail: %s", ghz_last_error_detail());
                    break;
                case MUST_REJECT:
                    cr_assert(is_reject(st), "stream %d, header byte %d bit %d: status %d (%s)",
                              w, byte, bit, (int)st, ghz_status_string(st));
                    /* Fields ghz_frame_info validates itself (all but payload_size, whose
                     * sum only the full decoder checks). */
                    if (byte < 32 || byte >= 40)
                        cr_assert(is_reject(fi_st),
                                  "stream %d, header byte %d bit %d: frame_info status %d", w,
                                  byte, bit, (int)fi_st);
                    break;
                case MUST_ACCEPT_SAME:
                    cr_assert(st == GHZ_SUCCESS,
                              "stream %d, header byte %d bit %d (eb_user) rejected: %d", w, byte,
                              bit, (int)st);
                    /* fall through */
                case MAY_ACCEPT:
                    cr_assert(st == GHZ_SUCCESS || st == GHZ_ERR_CORRUPT ||
                                  st == GHZ_ERR_TRUNCATED || st == GHZ_ERR_DST_TOO_SMALL,
                              "stream %d, header byte %d bit %d: status %d", w, byte, bit,
                              (int)st);
                    if (st == GHZ_SUCCESS) {
                        cr_assert(n_out == tu_rd(buf + 16, 8), "n_out %zu", n_out);
                        if (same)
                            cr_assert(memcmp(ref, got, cap) == 0,
                                      "stream %d, eb_user bit flip (byte %d bit %d) changed "
                                      "the decoded values",
                                      w, byte, bit);
                    }
                    break;
                }
            }
        cr_assert(rejected > 300 && accepted > 0, "rejected %d accepted %d", rejected, accepted);
        free(ref);
        free(got);
        free(buf);
        free(s.s);
    }
}

/* ---- (c) codes and payload ------------------------------------------------------------- */
Test(corrupt, every_bit_flip_after_header_is_safe)
{
    int w;
    for (w = 0; w < N_STREAMS; w++) {
        stream_t s = make_stream(w);
        size_t cap = s.n * ghz_dtype_size(s.t), n_out, pos;
        unsigned char* buf = malloc(s.size);
        int bit, rejected = 0;
        for (pos = 64; pos < s.size; pos++)
            for (bit = 0; bit < 8; bit++) {
                ghz_status_t st;
                memcpy(buf, s.s, s.size);
                buf[pos] ^= (unsigned char)(1u << bit);
                st = guarded_decode(buf, s.size, cap, &n_out, (pos + bit) % 5 == 0, NULL);
                cr_assert(st == GHZ_SUCCESS || st == GHZ_ERR_CORRUPT,
                          "stream %d byte %zu bit %d: status %d", w, pos, bit, (int)st);
                if (st == GHZ_SUCCESS) cr_assert_eq(n_out, s.n);
                rejected += st != GHZ_SUCCESS;
                /* Any flip in a code byte or its padding is caught: the code becomes
                 * invalid, the padding nonzero, or the block sizes no longer sum up. */
                if (pos < 64 + tu_codes_bytes(s.n))
                    cr_assert(st == GHZ_ERR_CORRUPT,
                              "stream %d: flip of code byte %zu bit %d accepted (code %02x -> "
                              "%02x)",
                              w, pos - 64, bit, s.s[pos], buf[pos]);
            }
        cr_assert(rejected > 0);
        free(buf);
        free(s.s);
    }
}

Test(corrupt, random_corruption_is_safe)
{
    tu_rng_t r;
    int w, it;
    tu_seed(&r, 77);
    for (w = 0; w < N_STREAMS; w++) {
        stream_t s = make_stream(w);
        size_t cap = s.n * ghz_dtype_size(s.t) + 64, n_out;
        unsigned char* buf = malloc(s.size);
        for (it = 0; it < 3000; it++) {
            int k, nk = 1 + (int)tu_below(&r, 6), header = tu_below(&r, 4) == 0;
            ghz_status_t st;
            memcpy(buf, s.s, s.size);
            for (k = 0; k < nk; k++) {
                size_t at = header ? tu_below(&r, s.size) : 64 + tu_below(&r, s.size - 64);
                buf[at] ^= (unsigned char)(1 + tu_below(&r, 255));
            }
            st = guarded_decode(buf, s.size, cap, &n_out, it % 3 == 0, NULL);
            cr_assert(st == GHZ_SUCCESS || (st >= GHZ_ERR_DST_TOO_SMALL && st <= GHZ_ERR_VERSION),
                      "stream %d iteration %d: status %d", w, it, (int)st);
            if (st == GHZ_SUCCESS && !header) cr_assert_eq(n_out, s.n);
        }
        free(buf);
        free(s.s);
    }
}

/* ---- (d) specific invalid codes, padding and QUANT payloads ------------------------------ */

/* One-block f32 frame (ABS 0.5, so q = value) from q[0..m) with the given mask. */
static size_t quant_frame(unsigned char* out, const int32_t* qin, unsigned m, uint32_t fmask,
                          int has_fill, unsigned char* code_out)
{
    int32_t q[32];
    unsigned char pay[160];
    unsigned code, i;
    size_t ps;
    int32_t prev = 0;
    for (i = 0; i < m; i++) q[i] = qin[i];
    for (i = 0; i < m; i++) { /* fills take the previous q (leading: the first non-fill) */
        if (fmask >> i & 1) continue;
        prev = q[i];
        break;
    }
    for (i = 0; i < m; i++) {
        if (fmask >> i & 1) q[i] = prev;
        else prev = q[i];
    }
    for (i = m; i < 32; i++) q[i] = q[m - 1];
    ps = tu_quant_payload(q, m, fmask, pay, &code);
    *code_out = (unsigned char)code;
    return tu_build_frame(out, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, has_fill,
                          has_fill ? tu_flt_bits(-9999.0f) : 0, m, code_out, pay, ps);
}

static ghz_status_t decode_frame(const unsigned char* f, size_t size)
{
    size_t n_out;
    return guarded_decode(f, size, 32 * 8, &n_out, 0, NULL);
}

static const int32_t walk[32] = {5, 6, 4, 4, 7, 3, 3, 2, 9, 10, 10, 8, 8, 8, 6, 5,
                                 5, 4, 3, 3, 1, 0, -2, -2, -1, 0, 0, 0, 3, 2, 2, 1};

Test(corrupt, quant_plane_rules)
{
    unsigned char f[512], code;
    size_t size = quant_frame(f, walk, 32, 0, 0, &code);
    const size_t pay = 64 + 16;
    unsigned w = code & 31, zb = (code >> 5 & 3) == 3 ? 4 : (code >> 5 & 3);
    size_t sign = pay + zb, plane0 = sign + 4, top = sign + 4 * w;
    cr_assert_eq(w, 3, "test setup: w %u", w);
    cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS, "valid base frame rejected: %s",
                 ghz_last_error_detail());
    /* bit 0 of the sign plane */
    f[sign] ^= 1;
    cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "sign bit 0 set");
    f[sign] ^= 1;
    /* bit 0 of a magnitude plane */
    f[plane0] ^= 1;
    cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "plane 0 bit 0 set");
    f[plane0] ^= 1;
    /* sign of a zero delta (d_3 = 0, d_12 = 0) */
    f[sign] ^= 1u << 3;
    cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "sign of zero delta 3 set");
    f[sign] ^= 1u << 3;
    f[sign + 1] ^= 1u << 4;
    cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "sign of zero delta 12 set");
    f[sign + 1] ^= 1u << 4;
    /* top plane all zero: rewrite with an extra zero plane and w + 1 */
    {
        unsigned char g[512];
        size_t ps = size - pay, gs;
        unsigned char c2 = (unsigned char)((code & ~31u) | (w + 1));
        unsigned char p2[200];
        memcpy(p2, f + pay, ps);
        memset(p2 + ps, 0, 4);
        gs = tu_build_frame(g, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, 0, 0, 32, &c2, p2, ps + 4);
        cr_assert_eq(decode_frame(g, gs), GHZ_ERR_CORRUPT, "zero top plane accepted");
    }
    (void)top;
    cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS, "restored frame");
}

Test(corrupt, short_block_bits_beyond_m)
{
    unsigned char f[512], code;
    const unsigned m = 10;
    size_t size = quant_frame(f, walk, m, 0, 0, &code);
    unsigned zb = (code >> 5 & 3) == 3 ? 4 : (code >> 5 & 3), w = code & 31, k;
    size_t sign = 64 + 16 + zb;
    cr_assert(w > 0);
    cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS, "valid base: %s", ghz_last_error_detail());
    for (k = 0; k <= w; k++) { /* sign plane, then each magnitude plane: bit 12 >= m */
        f[sign + 4 * k + 1] ^= 1u << 4;
        cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "plane %u bit 12 (m = 10)", k);
        f[sign + 4 * k + 1] ^= 1u << 4;
        f[sign + 4 * k + 3] ^= 0x80; /* bit 31 */
        cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "plane %u bit 31 (m = 10)", k);
        f[sign + 4 * k + 3] ^= 0x80;
    }
    cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS);
}

Test(corrupt, fill_mask_rules)
{
    unsigned char f[512], code;
    const unsigned m = 10;
    size_t size = quant_frame(f, walk, m, 0x0C1u, 1, &code), mask = 64 + 16;
    cr_assert(code & 0x80);
    cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS, "valid base: %s", ghz_last_error_detail());
    f[mask + 1] |= 1u << 4; /* bit 12 >= m */
    cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "mask bit 12 with m = 10");
    f[mask + 1] &= (unsigned char)~(1u << 4);
    tu_wr(f + mask, 0x3FF, 4); /* all m bits: must have been FILLED */
    cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "mask with all m bits set");
    /* Constant q (w = 0, no planes), so only the mask itself can be wrong. */
    {
        int32_t cq[32];
        unsigned i;
        for (i = 0; i < 32; i++) cq[i] = 5;
        size = quant_frame(f, cq, m, 0x2u, 1, &code);
        cr_assert_eq(code & 31, 0);
        cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS, "valid base: %s", ghz_last_error_detail());
        tu_wr(f + mask, 0x3FF, 4);
        cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "w = 0: mask with all m bits set");
        tu_wr(f + mask, 0x402, 4);
        cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "w = 0: mask bit 10 with m = 10");
        size = quant_frame(f, cq, 32, 0x80000001u, 1, &code);
        cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS, "valid base 32: %s",
                     ghz_last_error_detail());
        tu_wr(f + mask, 0xFFFFFFFFu, 4);
        cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "w = 0: mask 0xFFFFFFFF");
    }
}

Test(corrupt, q_beyond_qmax)
{
    unsigned char f[512], code;
    int32_t q[32];
    size_t size;
    unsigned i;
    for (i = 0; i < 32; i++) q[i] = TU_QMAX;
    size = quant_frame(f, q, 32, 0, 0, &code);
    cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS, "q = QMAX everywhere is valid: %s",
                 ghz_last_error_detail());
    q[0] = TU_QMAX + 1; /* q0 itself too large */
    for (i = 1; i < 32; i++) q[i] = TU_QMAX + 1;
    size = quant_frame(f, q, 32, 0, 0, &code);
    cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "q0 = QMAX + 1");
    for (i = 0; i < 32; i++) q[i] = i < 20 ? TU_QMAX : TU_QMAX + 1; /* a delta steps out */
    size = quant_frame(f, q, 32, 0, 0, &code);
    cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "q_20 = QMAX + 1");
    for (i = 0; i < 32; i++) q[i] = i < 31 ? -TU_QMAX : -TU_QMAX - 1;
    size = quant_frame(f, q, 32, 0, 0, &code);
    cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "q_31 = -QMAX - 1");
    /* zz = 0xFFFFFFFF: q0 = -2^31 */
    for (i = 0; i < 32; i++) q[i] = 5;
    size = quant_frame(f, q, 32, 0, 0, &code);
    {
        unsigned char g[512];
        unsigned char c3 = 3 << 5;
        unsigned char pz[4] = {0xFF, 0xFF, 0xFF, 0xFF};
        size_t gs = tu_build_frame(g, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, 0, 0, 32, &c3, pz, 4);
        cr_assert_eq(decode_frame(g, gs), GHZ_ERR_CORRUPT, "zz 0xFFFFFFFF");
        pz[0] = 0xFE; /* zz = 2^32 - 2: q0 = 2^31 - 1 */
        gs = tu_build_frame(g, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, 0, 0, 32, &c3, pz, 4);
        cr_assert_eq(decode_frame(g, gs), GHZ_ERR_CORRUPT, "zz 0xFFFFFFFE");
    }
}

Test(corrupt, reserved_and_misused_codes)
{
    static const unsigned char bad[] = {0x7F, 0x9F, 0xBF, 0xDF, 0xFF};
    static const size_t sizes[] = {0, 4, 8, 128, 256};
    unsigned char f[1024], pay[256];
    size_t i, j, size;
    memset(pay, 0, sizeof pay);
    for (i = 0; i < sizeof bad; i++)
        for (j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            size = tu_build_frame(f, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, 1, 0x3F800000u, 32, &bad[i],
                                  pay, sizes[j]);
            cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "code %02x, payload %zu",
                         bad[i], sizes[j]);
        }
    /* FILLED needs the fill flag. */
    {
        unsigned char c = 0x5F;
        size = tu_build_frame(f, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, 0, 0, 32, &c, pay, 0);
        cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "FILLED without fill flag");
        size = tu_build_frame(f, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, 1, 0x3F800000u, 32, &c, pay, 0);
        cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS, "FILLED with fill flag: %s",
                     ghz_last_error_detail());
    }
    /* Valid special codes with the right sizes, as a baseline. */
    {
        unsigned char c = 0x1F;
        size = tu_build_frame(f, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, 0, 0, 32, &c, pay, 128);
        cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS, "RAW");
        size = tu_build_frame(f, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, 0, 0, 32, &c, pay, 124);
        cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "RAW with 124 bytes");
        c = 0x3F;
        size = tu_build_frame(f, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, 0, 0, 32, &c, pay, 4);
        cr_assert_eq(decode_frame(f, size), GHZ_SUCCESS, "CONST");
        size = tu_build_frame(f, GHZ_F32, GHZ_EB_ABS, 0.5, 0.5, 0, 0, 32, &c, pay, 8);
        cr_assert_eq(decode_frame(f, size), GHZ_ERR_CORRUPT, "CONST with 8 bytes");
    }
}

Test(corrupt, nonzero_code_padding)
{
    stream_t s = make_stream(0); /* n = 300: 10 code bytes, 6 of padding */
    size_t nb = (s.n + 31) / 32, pos, cap = s.n * 4, n_out;
    unsigned char* buf = malloc(s.size);
    cr_assert_eq(tu_codes_bytes(s.n) - nb, 6);
    for (pos = 64 + nb; pos < 64 + tu_codes_bytes(s.n); pos++) {
        memcpy(buf, s.s, s.size);
        cr_assert_eq(buf[pos], 0, "padding byte %zu is %02x", pos - 64, buf[pos]);
        buf[pos] = 0x01;
        cr_assert_eq(guarded_decode(buf, s.size, cap, &n_out, 0, NULL), GHZ_ERR_CORRUPT,
                     "padding byte %zu = 01 accepted", pos - 64);
        buf[pos] = 0x80;
        cr_assert_eq(guarded_decode(buf, s.size, cap, &n_out, 0, NULL), GHZ_ERR_CORRUPT,
                     "padding byte %zu = 80 accepted", pos - 64);
    }
    free(buf);
    free(s.s);
}

/* The decoder writes nothing past n elements even when dst is larger, and nothing at
 * all beyond dst_capacity when it is too small (the guard page would fault). */
Test(corrupt, output_never_overrun)
{
    int w;
    for (w = 0; w < N_STREAMS; w++) {
        stream_t s = make_stream(w);
        size_t es = ghz_dtype_size(s.t), n_out, cap;
        for (cap = 0; cap < s.n * es; cap += es * 7) {
            ghz_status_t st = guarded_decode(s.s, s.size, cap, &n_out, cap % 2, NULL);
            cr_assert_eq(st, GHZ_ERR_DST_TOO_SMALL, "capacity %zu of %zu", cap, s.n * es);
        }
        cr_assert_eq(guarded_decode(s.s, s.size, s.n * es, &n_out, 1, NULL), GHZ_SUCCESS);
        free(s.s);
    }
}

/* Specific header values, each on a valid one-block CONST frame (n = 32, payload 4). */
static ghz_status_t with_field(unsigned off, unsigned bytes, uint64_t v, ghz_eb_mode_t mode)
{
    unsigned char f[256], c = 0x3F, pay[4] = {0, 0, 0x80, 0x3F};
    size_t size = tu_build_frame(f, GHZ_F32, mode, 1e-3, 1e-3, 0, 0, 32, &c, pay, 4);
    tu_wr(f + off, v, bytes);
    return decode_frame(f, size);
}

Test(corrupt, header_field_values)
{
    static const uint64_t u64_huge[] = {0xFFFFFFFFFFFFFFFFull, 0x8000000000000000ull,
                                        0x0800000000000000ull, 0x7FFFFFFFFFFFFFE0ull,
                                        0xFFFFFFFFFFFFFFC0ull};
    size_t i;
    cr_assert_eq(with_field(0, 1, 0xF9, GHZ_EB_ABS), GHZ_SUCCESS, "baseline: %s",
                 ghz_last_error_detail());
    cr_assert_eq(with_field(4, 2, 0, GHZ_EB_ABS), GHZ_ERR_VERSION, "version 0");
    cr_assert_eq(with_field(4, 2, 1, GHZ_EB_ABS), GHZ_ERR_VERSION, "version 1 (the f32 quantum was 2E)");
    cr_assert_eq(with_field(4, 2, 3, GHZ_EB_ABS), GHZ_SUCCESS, "version 3: a block frame as well");
    cr_assert_eq(with_field(4, 2, 4, GHZ_EB_ABS), GHZ_ERR_VERSION, "version 4");
    cr_assert_eq(with_field(4, 2, 0xFFFF, GHZ_EB_ABS), GHZ_ERR_VERSION, "version 65535");
    cr_assert_eq(with_field(6, 2, 65, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "header_size 65");
    cr_assert_eq(with_field(6, 2, 0, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "header_size 0");
    cr_assert_eq(with_field(8, 1, 0, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "dtype 0");
    cr_assert_eq(with_field(8, 1, 3, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "dtype 3");
    cr_assert_eq(with_field(9, 1, 0, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "eb_mode 0");
    /* 3 is the fixed-rate mode (FIXED.md): a frame this reader does not read */
    cr_assert_eq(with_field(9, 1, 3, GHZ_EB_ABS), GHZ_ERR_UNSUPPORTED, "eb_mode 3");
    cr_assert_eq(with_field(9, 1, 4, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "eb_mode 4");
    cr_assert_eq(with_field(10, 1, 4, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "block_log2 4");
    cr_assert_eq(with_field(10, 1, 6, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "block_log2 6");
    cr_assert_eq(with_field(11, 1, 0x80, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "flags 0x80");
    cr_assert_eq(with_field(15, 1, 1, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "reserved byte 15");
    /* eb_user: finite and > 0 */
    cr_assert_eq(with_field(40, 8, tu_dbl_bits(0.0), GHZ_EB_REL), GHZ_ERR_CORRUPT, "eb_user 0");
    cr_assert_eq(with_field(40, 8, tu_dbl_bits(-1e-3), GHZ_EB_REL), GHZ_ERR_CORRUPT, "eb_user < 0");
    cr_assert_eq(with_field(40, 8, tu_dbl_bits(INFINITY), GHZ_EB_REL), GHZ_ERR_CORRUPT, "eb_user Inf");
    cr_assert_eq(with_field(40, 8, tu_dbl_bits(NAN), GHZ_EB_REL), GHZ_ERR_CORRUPT, "eb_user NaN");
    /* eb_abs: finite, >= 0, 0 only with REL, 2 * eb_abs finite */
    cr_assert_eq(with_field(48, 8, 0, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "eb_abs 0 with ABS");
    cr_assert_eq(with_field(48, 8, 0, GHZ_EB_REL), GHZ_SUCCESS, "eb_abs 0 with REL: %s",
                 ghz_last_error_detail());
    cr_assert_eq(with_field(48, 8, tu_dbl_bits(-1e-3), GHZ_EB_REL), GHZ_ERR_CORRUPT, "eb_abs < 0");
    cr_assert_eq(with_field(48, 8, tu_dbl_bits(NAN), GHZ_EB_REL), GHZ_ERR_CORRUPT, "eb_abs NaN");
    cr_assert_eq(with_field(48, 8, tu_dbl_bits(INFINITY), GHZ_EB_REL), GHZ_ERR_CORRUPT,
                 "eb_abs Inf");
    cr_assert_eq(with_field(48, 8, tu_dbl_bits(1e308), GHZ_EB_REL), GHZ_ERR_CORRUPT,
                 "eb_abs 1e308: 2 * eb_abs overflows");
    cr_assert_eq(with_field(48, 8, tu_dbl_bits(8e307), GHZ_EB_REL), GHZ_SUCCESS,
                 "eb_abs 8e307 is usable");
    /* fill_bits without the flag */
    cr_assert_eq(with_field(56, 8, 1, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "fill_bits without flag");
    /* n_blocks must match n */
    cr_assert_eq(with_field(24, 8, 2, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "n_blocks 2 for n 32");
    cr_assert_eq(with_field(24, 8, 0, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "n_blocks 0 for n 32");
    cr_assert_eq(with_field(16, 8, 33, GHZ_EB_ABS), GHZ_ERR_CORRUPT, "n 33 with 1 block");
    /* Huge sizes: overflow-checked, never a wild read. */
    for (i = 0; i < sizeof u64_huge / sizeof u64_huge[0]; i++) {
        unsigned char f[256], c = 0x3F, pay[4] = {0, 0, 0x80, 0x3F};
        uint64_t n = u64_huge[i];
        size_t size = tu_build_frame(f, GHZ_F32, GHZ_EB_ABS, 1e-3, 1e-3, 0, 0, 32, &c, pay, 4);
        ghz_status_t st;
        tu_wr(f + 16, n, 8);
        tu_wr(f + 24, n / 32 + (n % 32 != 0), 8);
        st = decode_frame(f, size);
        cr_assert(is_reject(st), "n = %llx with matching n_blocks: %d", (unsigned long long)n,
                  (int)st);
        tu_wr(f + 16, 32, 8);
        tu_wr(f + 24, 1, 8);
        tu_wr(f + 32, u64_huge[i], 8);
        st = decode_frame(f, size);
        cr_assert(is_reject(st), "payload_size = %llx: %d", (unsigned long long)u64_huge[i],
                  (int)st);
        {
            ghz_frame_info_t fi;
            tu_guard_t g;
            st = ghz_frame_info(tu_guard_copy(&g, f, size), size, &fi);
            tu_guard_free(&g);
            cr_assert(is_reject(st), "frame_info, payload_size = %llx: %d",
                      (unsigned long long)u64_huge[i], (int)st);
        }
    }
}

/* The threaded decoder on a corrupted large stream: still no out-of-bounds access. */
Test(corrupt, threaded_decoder_on_corrupt_large_stream)
{
    const size_t n = 600000;
    void* a = tu_make(GHZ_F32, TU_NOISY, n, 5);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    size_t size, n_out;
    unsigned char* c;
    unsigned char* buf;
    tu_rng_t r;
    int it;
    tu_set(a, GHZ_F32, 12345, NAN);
    c = tu_compress(&p, a, n, &size);
    buf = malloc(size);
    tu_seed(&r, 8);
    cr_assert_eq(guarded_decode(c, size, n * 4, &n_out, 1, NULL), GHZ_SUCCESS);
    for (it = 0; it < 40; it++) {
        ghz_status_t st;
        size_t k;
        memcpy(buf, c, size);
        for (k = 0; k < 3; k++) {
            size_t at = it % 2 ? 64 + tu_below(&r, tu_codes_bytes(n)) : 64 + tu_below(&r, size - 64);
            buf[at] ^= (unsigned char)(1 + tu_below(&r, 255));
        }
        st = guarded_decode(buf, size, n * 4, &n_out, 1, NULL);
        cr_assert(st == GHZ_SUCCESS || st == GHZ_ERR_CORRUPT, "iteration %d: %d", it, (int)st);
        if (it % 2) cr_assert_eq(st, GHZ_ERR_CORRUPT, "corrupted code bytes accepted");
    }
    free(buf);
    free(c);
    free(a);
}
