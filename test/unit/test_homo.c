/* test/unit/test_homo.c: ghz/homo against DOC (HOMO.md): every operation's stream
 * must equal, byte for byte, decompress -> operate -> recompress under ABS with the
 * inputs' eb_abs. DOC here is written from HOMO.md with the public codec calls only,
 * and the data are built to reach every path: QUANT/RAW/CONST/FILLED blocks, fill
 * masks, NaN/Inf, tiny values, odd lengths, several frames, f32 integers near QMAX. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/homo/detail/homo_block.h"
#include "testutil.h"

enum { OP_SUM = GHZ_HOMO_SUM, OP_SUB, OP_MIN, OP_MAX, OP_NEG, OP_MUL, OP_SUMN };

/* ---- DOC, from HOMO.md -------------------------------------------------------------- */

static int isnan_bits(ghz_dtype_t t, uint64_t u)
{
    return t == GHZ_F32 ? (u & 0x7FFFFFFFu) > 0x7F800000u
                        : (u & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
}

static uint64_t quiet(ghz_dtype_t t, uint64_t u)
{
    return u | (t == GHZ_F32 ? 0x00400000ull : 0x0008000000000000ull);
}

/* One step of DOC's arithmetic on dtype bit patterns (HOMO.md, DOC step 2). */
static uint64_t doc_op(ghz_dtype_t t, int op, uint64_t a, uint64_t b, int32_t f)
{
    uint64_t r;
    if (op == OP_NEG) return a ^ (t == GHZ_F32 ? 0x80000000ull : 0x8000000000000000ull);
    if (isnan_bits(t, a)) return quiet(t, a);
    if (op != OP_MUL && isnan_bits(t, b)) return quiet(t, b);
    if (t == GHZ_F32) {
        float x = tu_flt_from_bits((uint32_t)a), y = tu_flt_from_bits((uint32_t)b), z;
        if (op == OP_MIN) return y < x ? b : a;
        if (op == OP_MAX) return y > x ? b : a;
        z = op == OP_SUB ? x - y : op == OP_MUL ? x * (float)f : x + y;
        r = tu_flt_bits(z);
        return isnan_bits(t, r) ? 0x7FC00000u : r;
    } else {
        double x = tu_dbl_from_bits(a), y = tu_dbl_from_bits(b), z;
        if (op == OP_MIN) return y < x ? b : a;
        if (op == OP_MAX) return y > x ? b : a;
        z = op == OP_SUB ? x - y : op == OP_MUL ? x * (double)f : x + y;
        r = tu_dbl_bits(z);
        return isnan_bits(t, r) ? 0x7FF8000000000000ull : r;
    }
}

/* DOC of k streams, frame by frame; returns a malloc'd stream, *size its bytes. */
static unsigned char* doc(int op, int32_t f, const unsigned char* const* in, const size_t* sz,
                          size_t k, size_t* size)
{
    size_t pos[64] = {0}, cap = 0, total = 0, i, j;
    unsigned char* out = NULL;
    cr_assert(k <= 64);
    while (pos[0] < sz[0]) {
        ghz_frame_info_t fi;
        ghz_params_t p;
        void *acc, *x;
        size_t n, fb, fsize = 0;
        cr_assert_eq(ghz_frame_info(in[0] + pos[0], sz[0] - pos[0], &fi), GHZ_SUCCESS);
        n = (size_t)fi.n;
        acc = tu_decompress(in[0] + pos[0], (size_t)fi.frame_size, fi.dtype, n);
        unsigned char* fill = calloc(n + 1, 1);
        for (j = 0; j < n; ++j) {
            uint64_t a = tu_bits(acc, fi.dtype, j);
            if (fi.has_fill && a == fi.fill_bits) fill[j] = 1;
            if (op == OP_NEG || op == OP_MUL) tu_set_bits(acc, fi.dtype, j, doc_op(fi.dtype, op, a, 0, f));
        }
        pos[0] += (size_t)fi.frame_size;
        for (i = 1; i < k; ++i) {
            ghz_frame_info_t fj;
            cr_assert_eq(ghz_frame_info(in[i] + pos[i], sz[i] - pos[i], &fj), GHZ_SUCCESS);
            x = tu_decompress(in[i] + pos[i], (size_t)fj.frame_size, fi.dtype, n);
            for (j = 0; j < n; ++j) {
                uint64_t b = tu_bits(x, fi.dtype, j);
                if (fi.has_fill && b == fi.fill_bits) fill[j] = 1;
                tu_set_bits(acc, fi.dtype, j,
                            doc_op(fi.dtype, op == OP_SUMN ? OP_SUM : op, tu_bits(acc, fi.dtype, j), b, f));
            }
            free(x);
            pos[i] += (size_t)fj.frame_size;
        }
        for (j = 0; j < n; ++j)
            if (fill[j]) tu_set_bits(acc, fi.dtype, j, fi.fill_bits);
        p = tu_params(fi.dtype, GHZ_EB_ABS, fi.eb_abs);
        p.has_fill = fi.has_fill;
        p.fill = fi.dtype == GHZ_F32 ? (double)tu_flt_from_bits((uint32_t)fi.fill_bits)
                                     : tu_dbl_from_bits(fi.fill_bits);
        fb = ghz_compress_bound(n, fi.dtype);
        if (total + fb > cap) {
            cap = (total + fb) * 2;
            out = realloc(out, cap);
        }
        if (fi.has_fill) {
            cr_assert_eq(ghz_compress(&p, acc, n, out + total, fb, &fsize), GHZ_SUCCESS, "%s",
                         ghz_last_error_detail());
        } else { /* inputs of 0.2 without a fill: the frame 0.2's ghz_compress wrote */
            fsize = tu_ref_compress_v02(&p, acc, n, out + total);
        }
        total += fsize;
        free(acc);
        free(fill);
    }
    *size = total;
    return out;
}

/* ---- test data --------------------------------------------------------------------- */

typedef struct {
    ghz_dtype_t t;
    double eb;
    int has_fill;
    double fill;
    int v02; /* written as 0.2 wrote a frame without a fill (no fill; NaN ordinary) */
} spec_t;

/* n values of a pattern with special blocks sprinkled in by block (seeded): a RAW
 * block (NaN among numbers), a CONST block (all +Inf), a FILLED block, a few fill
 * positions, tiny values, huge unquantizable ones. */
static void* make_data(const spec_t* s, tu_pattern_t pat, size_t n, uint64_t seed, int specials)
{
    void* a = tu_make(s->t, pat, n, seed);
    tu_rng_t r;
    size_t b, j;
    tu_seed(&r, seed * 7 + 1);
    if (!specials) return a;
    for (b = 0; b * 32 < n; ++b) {
        size_t lo = b * 32, hi = lo + 32 < n ? lo + 32 : n;
        switch (tu_below(&r, 12)) {
        case 0: tu_set(a, s->t, lo + tu_below(&r, hi - lo), NAN); break;
        case 1: for (j = lo; j < hi; ++j) tu_set(a, s->t, j, INFINITY); break;
        case 2: if (s->has_fill) for (j = lo; j < hi; ++j) tu_set(a, s->t, j, s->fill); break;
        case 3:
            if (s->has_fill)
                for (j = lo; j < hi; ++j)
                    if (tu_below(&r, 4) == 0) tu_set(a, s->t, j, s->fill);
            break;
        case 4: for (j = lo; j < hi; ++j) tu_set(a, s->t, j, 1e-30 * (double)(j % 5)); break;
        case 5: tu_set(a, s->t, lo, -1e30); break;
        case 6: tu_set(a, s->t, lo, -INFINITY); break;
        default: break;
        }
    }
    return a;
}

/* A stream of `frames` frames of n values each. */
static unsigned char* make_stream(const spec_t* s, tu_pattern_t pat, size_t n, unsigned frames,
                                  uint64_t seed, int specials, size_t* size)
{
    size_t cap = frames * ghz_compress_bound(n, s->t) + 1, total = 0;
    unsigned char* out = malloc(cap);
    unsigned f;
    ghz_params_t p = tu_params(s->t, GHZ_EB_ABS, s->eb);
    p.has_fill = s->has_fill;
    p.fill = s->fill;
    for (f = 0; f < frames; ++f) {
        void* a = make_data(s, pat, n, seed + 1000u * f, specials);
        size_t fs = 0;
        if (s->v02)
            fs = tu_ref_compress_v02(&p, a, n, out + total);
        else
            cr_assert_eq(ghz_compress(&p, a, n, out + total, cap - total, &fs), GHZ_SUCCESS);
        total += fs;
        free(a);
    }
    *size = total;
    return out;
}

static ghz_buf_t buf_of(void* data, size_t size, size_t cap)
{
    ghz_buf_t b = GHZ_BUF_INIT;
    b.data = data;
    b.size = size;
    b.capacity = cap;
    return b;
}

/* Runs op on the streams (k = 1 unary, 2 binary, more n-ary) and compares with DOC. */
static void expect_doc(int op, int32_t f, unsigned char* const* in, const size_t* sz, size_t k,
                       const char* what)
{
    size_t ref_size = 0, bound = 0, i;
    unsigned char* ref = doc(op, f, (const unsigned char* const*)in, sz, k, &ref_size);
    const ghz_buf_t* bp[64];
    ghz_buf_t bufs[64], out;
    unsigned char* o;
    ghz_status_t st;
    cr_assert_eq(ghz_homo_bound(in[0], sz[0], &bound), GHZ_SUCCESS);
    cr_assert(ref_size <= bound, "%s: DOC %zu > bound %zu", what, ref_size, bound);
    o = malloc(bound);
    out = buf_of(o, 0, bound);
    for (i = 0; i < k; ++i) {
        bufs[i] = buf_of(in[i], sz[i], sz[i]);
        bp[i] = &bufs[i];
    }
    if (op == OP_NEG) st = ghz_homo_negate(bp[0], &out);
    else if (op == OP_MUL) st = ghz_homo_mul(bp[0], f, &out);
    else if (op == OP_SUMN) st = ghz_homo_sum_n(bp, k, &out);
    else st = ghz_homo_binary((ghz_homo_op_t)op, bp[0], bp[1], &out);
    cr_assert_eq(st, GHZ_SUCCESS, "%s: %s (%s)", what, ghz_status_string(st), ghz_last_error_detail());
    cr_assert_eq(out.size, ref_size, "%s: size %zu, DOC %zu", what, out.size, ref_size);
    for (i = 0; i < ref_size; ++i)
        if (o[i] != ref[i]) cr_assert_fail("%s: byte %zu differs from DOC (0x%02x, DOC 0x%02x)",
                                           what, i, o[i], ref[i]);
    if (op >= OP_SUM && op <= OP_MAX) {
        /* the in-place form gives the same bytes, with capacity ghz_homo_bound only */
        unsigned char* a = malloc(bound);
        ghz_buf_t ab = buf_of(a, sz[0], bound);
        memcpy(a, in[0], sz[0]);
        st = ghz_homo_binary_inplace((ghz_homo_op_t)op, &ab, bp[1]);
        cr_assert_eq(st, GHZ_SUCCESS, "%s in place: %s", what, ghz_last_error_detail());
        cr_assert(ab.size == ref_size && memcmp(a, ref, ref_size) == 0, "%s: in place != DOC", what);
        free(a);
    }
    free(o);
    free(ref);
}

static const spec_t specs[] = {
    {GHZ_F32, 1e-2, 0, 0.0, 0},  {GHZ_F32, 1e-4, 1, -1e34, 0}, {GHZ_F32, 0.5, 1, 0.0, 0},
    {GHZ_F64, 1e-3, 0, 0.0, 0},  {GHZ_F64, 1e-7, 1, -1e34, 0}, {GHZ_F64, 0.25, 1, 1.0, 0},
    {GHZ_F32, 1e-6, 0, 0.0, 0},  /* f32 integers up to ~1e8: the float path near QMAX */
    /* frames of 0.2 without a fill: NaN an ordinary value (RAW and CONST blocks) */
    {GHZ_F32, 1e-2, 0, 0.0, 1}, {GHZ_F64, 1e-3, 0, 0.0, 1},
};
static const tu_pattern_t pats[] = {TU_RANDOM, TU_SMOOTH, TU_NOISY, TU_WALK, TU_WIDE, TU_ZERO};
static const size_t sizes[] = {1, 31, 33, 1000, 4099};

Test(homo, binary_ops_equal_doc)
{
    size_t si, pi, ni;
    int op;
    for (si = 0; si < sizeof specs / sizeof specs[0]; ++si)
        for (pi = 0; pi < sizeof pats / sizeof pats[0]; ++pi)
            for (ni = 0; ni < sizeof sizes / sizeof sizes[0]; ++ni) {
                size_t sz[2];
                unsigned char* in[2];
                unsigned frames = ni == 3 ? 3 : 1;
                int specials = (int)((si + pi + ni) % 2);
                char what[128];
                in[0] = make_stream(&specs[si], pats[pi], sizes[ni], frames, 11 * si + pi, specials, &sz[0]);
                in[1] = make_stream(&specs[si], pats[(pi + 1) % 6], sizes[ni], frames, 97 * ni + si,
                                    !specials, &sz[1]);
                for (op = OP_SUM; op <= OP_MAX; ++op) {
                    snprintf(what, sizeof what, "spec %zu pattern %s n %zu op %d", si,
                             tu_pattern_names[pats[pi]], sizes[ni], op);
                    expect_doc(op, 0, in, sz, 2, what);
                }
                free(in[0]);
                free(in[1]);
            }
}

Test(homo, unary_and_nary_equal_doc)
{
    static const int32_t factors[] = {0, 1, -1, 3, -7, 1000, 16777216};
    size_t si, pi, fi, k;
    for (si = 0; si < sizeof specs / sizeof specs[0]; ++si)
        for (pi = 0; pi < sizeof pats / sizeof pats[0]; ++pi) {
            unsigned char* in[6];
            size_t sz[6];
            char what[128];
            for (k = 0; k < 6; ++k)
                in[k] = make_stream(&specs[si], pats[(pi + k) % 6], 1000 + si, 2, 5 * k + pi, k % 2, &sz[k]);
            snprintf(what, sizeof what, "spec %zu pattern %s negate", si, tu_pattern_names[pats[pi]]);
            expect_doc(OP_NEG, 0, in, sz, 1, what);
            for (fi = 0; fi < sizeof factors / sizeof factors[0]; ++fi) {
                snprintf(what, sizeof what, "spec %zu pattern %s mul %d", si,
                         tu_pattern_names[pats[pi]], (int)factors[fi]);
                expect_doc(OP_MUL, factors[fi], in, sz, 1, what);
            }
            for (k = 1; k <= 6; ++k) {
                snprintf(what, sizeof what, "spec %zu pattern %s sum of %zu", si,
                         tu_pattern_names[pats[pi]], k);
                expect_doc(OP_SUMN, 0, in, sz, k, what);
            }
            for (k = 0; k < 6; ++k) free(in[k]);
        }
}

/* Streams that open with an empty frame (n = 0): it has no code bytes, so nothing
 * of it may be copied (the engine once passed a NULL buffer to memcpy here, which an
 * UBSan build reports); empty combines into empty, and the frames after it as DOC. */
Test(homo, empty_first_frame)
{
    spec_t s = {GHZ_F32, 1e-2, 1, -1e34, 0};
    unsigned char* in[2];
    size_t sz[2], empty[2], i;
    for (i = 0; i < 2; ++i) {
        size_t se, sr;
        unsigned char* e = make_stream(&s, TU_SMOOTH, 0, 1, 3 + i, 0, &se);
        unsigned char* r = make_stream(&s, TU_NOISY, 100, 2, 5 + i, 1, &sr);
        in[i] = malloc(se + sr);
        memcpy(in[i], e, se);
        memcpy(in[i] + se, r, sr);
        sz[i] = se + sr;
        empty[i] = se;
        free(e);
        free(r);
    }
    expect_doc(OP_SUM, 0, in, sz, 2, "empty first frame, sum");
    expect_doc(OP_SUB, 0, in, sz, 2, "empty first frame, sub");
    expect_doc(OP_MIN, 0, in, sz, 2, "empty first frame, min");
    expect_doc(OP_MAX, 0, in, sz, 2, "empty first frame, max");
    expect_doc(OP_NEG, 0, in, sz, 1, "empty first frame, negate");
    /* a stream of one empty frame gives one empty frame */
    expect_doc(OP_SUM, 0, in, empty, 2, "empty stream, sum");
    free(in[0]);
    free(in[1]);
}

/* A damaged checksummed input is named once: by input alone when it is one frame
 * (the caller, e.g. ghz-cli, knows which frame it passed), by input and frame when
 * the input holds several. */
Test(homo, checksum_detail_names_place_once)
{
    spec_t s = {GHZ_F32, 1e-2, 0, 0.0, 0};
    size_t sa, sb, so = 1 << 16, grown = 0;
    unsigned char* a = make_stream(&s, TU_NOISY, 100, 1, 1, 0, &sa);
    unsigned char* b = make_stream(&s, TU_NOISY, 100, 1, 2, 0, &sb);
    unsigned char* a2 = malloc(2 * (sa + GHZ_CHECKSUM_SIZE));
    unsigned char* o = malloc(so);
    ghz_buf_t ab, bb, ob = buf_of(o, 0, so);
    a = realloc(a, sa + GHZ_CHECKSUM_SIZE);
    cr_assert_eq(ghz_frame_add_checksum(a, sa, sa + GHZ_CHECKSUM_SIZE, &grown), GHZ_SUCCESS);
    sa = grown;
    memcpy(a2, a, sa);
    memcpy(a2 + sa, a, sa);
    a[sa - 10] ^= 1;
    ab = buf_of(a, sa, sa);
    bb = buf_of(b, sb, sb);
    cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &bb, &ab, &ob), GHZ_ERR_CORRUPT);
    cr_assert(strncmp(ghz_last_error_detail(), "input 1: checksum mismatch", 26) == 0, "%s",
              ghz_last_error_detail());
    a2[2 * sa - 10] ^= 1; /* the second frame of a two-frame input */
    memcpy(o, b, sb);
    memcpy(o + sb, b, sb);
    ab = buf_of(a2, 2 * sa, 2 * sa);
    bb = buf_of(o, 2 * sb, 2 * sb);
    ob = buf_of(o + 2 * sb, 0, so - 2 * sb);
    cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ab, &bb, &ob), GHZ_ERR_CORRUPT);
    cr_assert(strncmp(ghz_last_error_detail(), "input 0, frame 1: checksum mismatch", 35) == 0,
              "%s", ghz_last_error_detail());
    free(a);
    free(a2);
    free(b);
    free(o);
}

/* f32 with integers near QMAX: values of magnitude ~1e3 at E = 1e-6 quantize to
 * |q| ~ 5e8, so sums leave QMAX or the proven range; every block takes the float
 * path and must still be DOC. */
Test(homo, f32_near_qmax)
{
    spec_t s = {GHZ_F32, 1e-6, 0, 0.0, 0};
    size_t n = 2048, j, sz[2];
    unsigned char* in[2];
    int op, k;
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, s.eb);
    for (k = 0; k < 2; ++k) {
        float* a = malloc(n * sizeof *a);
        tu_rng_t r;
        tu_seed(&r, 77 + k);
        for (j = 0; j < n; ++j) a[j] = (float)((k ? -1 : 1) * (520.0 + 16.0 * tu_uniform(&r)));
        in[k] = tu_compress(&p, a, n, &sz[k]);
        free(a);
    }
    for (op = OP_SUM; op <= OP_MAX; ++op) expect_doc(op, 0, in, sz, 2, "near QMAX");
    expect_doc(OP_MUL, 2, in, sz, 1, "near QMAX * 2");
    expect_doc(OP_NEG, 0, in, sz, 1, "near QMAX negate");
    free(in[0]);
    free(in[1]);
}

/* In place, adversarial: every block of a is zeros (no payload), so every output
 * block grows, up to RAW; capacity exactly ghz_homo_bound. */
Test(homo, inplace_every_block_grows)
{
    int k;
    for (k = 0; k < 2; ++k) {
        ghz_dtype_t t = k ? GHZ_F64 : GHZ_F32;
        spec_t s = {t, 1e-3, 0, 0.0, 0};
        size_t n = 3 * 32 * 100 + 7, sz[2], j;
        unsigned char* in[2];
        void* bdata = tu_make(t, TU_RANDOM, n, 5);
        ghz_params_t p = tu_params(t, GHZ_EB_ABS, s.eb);
        for (j = 0; j < n; j += 32) tu_set(bdata, t, j + 1 < n ? j + 1 : j, NAN); /* RAW results */
        for (j = 64; j < n; j += 96) tu_set(bdata, t, j, 1.0); /* ... and QUANT ones */
        in[0] = make_stream(&s, TU_ZERO, n, 2, 1, 0, &sz[0]);
        in[1] = malloc(2 * ghz_compress_bound(n, t));
        {
            size_t f0 = 0, f1 = 0;
            void* bd2 = tu_make(t, TU_WIDE, n, 6);
            cr_assert_eq(ghz_compress(&p, bdata, n, in[1], ghz_compress_bound(n, t), &f0), GHZ_SUCCESS);
            cr_assert_eq(ghz_compress(&p, bd2, n, in[1] + f0, ghz_compress_bound(n, t), &f1), GHZ_SUCCESS);
            sz[1] = f0 + f1;
            free(bd2);
        }
        cr_assert(sz[1] > sz[0] * 4, "the adversarial result must grow a lot");
        expect_doc(OP_SUM, 0, in, sz, 2, "every block grows");
        expect_doc(OP_SUB, 0, in, sz, 2, "every block grows (sub)");
        {
            size_t bound = 0;
            unsigned char* a;
            ghz_buf_t ab, bb = buf_of(in[1], sz[1], sz[1]);
            cr_assert_eq(ghz_homo_bound(in[0], sz[0], &bound), GHZ_SUCCESS);
            a = malloc(bound);
            memcpy(a, in[0], sz[0]);
            ab = buf_of(a, sz[0], bound - 1);
            cr_assert_eq(ghz_homo_binary_inplace(GHZ_HOMO_SUM, &ab, &bb), GHZ_ERR_DST_TOO_SMALL);
            free(a);
        }
        free(in[0]);
        free(in[1]);
        free(bdata);
    }
}

Test(homo, mismatches_are_errors)
{
    spec_t s32 = {GHZ_F32, 1e-3, 0, 0.0, 0}, s64 = {GHZ_F64, 1e-3, 0, 0.0, 0};
    spec_t eb2 = {GHZ_F32, 2e-3, 0, 0.0, 0}, fl = {GHZ_F32, 1e-3, 1, -1e34, 0}, fl2 = {GHZ_F32, 1e-3, 1, -9.0, 0};
    size_t sa, sb, so = 1 << 20;
    unsigned char* a = make_stream(&s32, TU_SMOOTH, 1000, 1, 1, 0, &sa);
    unsigned char* o = malloc(so);
    struct {
        const spec_t* s;
        size_t n;
        unsigned frames;
        const char* what;
    } cases[] = {{&s64, 1000, 1, "dtype"},  {&s32, 999, 1, "element count"},
                 {&eb2, 1000, 1, "eb_abs"}, {&fl, 1000, 1, "fill flag"},
                 {&s32, 1000, 2, "frames"}, {&s32, 500, 2, "frame boundaries"}};
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        unsigned char* b = make_stream(cases[i].s, TU_SMOOTH, cases[i].n, cases[i].frames, 2, 0, &sb);
        ghz_buf_t ab = buf_of(a, sa, sa), bb = buf_of(b, sb, sb), ob = buf_of(o, 0, so);
        int op;
        for (op = OP_SUM; op <= OP_MAX; ++op) {
            ghz_status_t st = ghz_homo_binary((ghz_homo_op_t)op, &ab, &bb, &ob);
            cr_assert_eq(st, GHZ_ERR_MISMATCH, "%s: got %s", cases[i].what, ghz_status_string(st));
            st = ghz_homo_binary((ghz_homo_op_t)op, &bb, &ab, &ob);
            cr_assert_eq(st, GHZ_ERR_MISMATCH, "%s reversed: got %s", cases[i].what, ghz_status_string(st));
        }
        if (i == 2) cr_assert(strstr(ghz_last_error_detail(), "ABS") != NULL, "advice to use ABS");
        free(b);
    }
    {
        unsigned char *f1 = make_stream(&fl, TU_SMOOTH, 100, 1, 1, 0, &sa),
                      *f2 = make_stream(&fl2, TU_SMOOTH, 100, 1, 1, 0, &sb);
        ghz_buf_t ab = buf_of(f1, sa, sa), bb = buf_of(f2, sb, sb), ob = buf_of(o, 0, so);
        cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ab, &bb, &ob), GHZ_ERR_MISMATCH, "fill value");
        free(f1);
        free(f2);
    }
    free(a);
    free(o);
}

Test(homo, bad_arguments)
{
    spec_t s = {GHZ_F32, 1e-3, 0, 0.0, 0};
    size_t sa, so = 1 << 16;
    unsigned char* a = make_stream(&s, TU_SMOOTH, 100, 1, 1, 0, &sa);
    unsigned char* o = malloc(so);
    ghz_buf_t ab = buf_of(a, sa, sa), ob = buf_of(o, 0, so), small = buf_of(o, 0, 70);
    const ghz_buf_t* list[1] = {&ab};
    cr_assert_eq(ghz_homo_binary((ghz_homo_op_t)9, &ab, &ab, &ob), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, NULL, &ab, &ob), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ab, &ab, &ab), GHZ_ERR_INVALID_ARG, "overlap");
    cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ab, &ab, &small), GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_homo_sum_n(list, 0, &ob), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_homo_sum_n(list, 1, &ob), GHZ_SUCCESS);
    cr_assert_eq(ghz_homo_mul(&ab, 16777217, &ob), GHZ_ERR_OVERFLOW);
    cr_assert_eq(ghz_homo_mul(&ab, -16777217, &ob), GHZ_ERR_OVERFLOW);
    cr_assert_eq(ghz_homo_decode_scaled(&ab, INFINITY, o, so, NULL), GHZ_ERR_INVALID_ARG);
    ob.where = GHZ_MEM_DEVICE;
    cr_assert_eq(ghz_homo_negate(&ab, &ob), GHZ_ERR_INVALID_ARG);
    free(a);
    free(o);
}

/* Corrupted input: the operation fails exactly when the codec's decoder rejects the
 * input, and otherwise equals DOC of what the decoder reads; never a crash (the input
 * sits before a guard page). */
Test(homo, corrupt_inputs)
{
    spec_t s = {GHZ_F32, 1e-2, 1, -1e34, 0};
    size_t sa, sb, i;
    unsigned char* a = make_stream(&s, TU_NOISY, 700, 2, 3, 1, &sa);
    unsigned char* b = make_stream(&s, TU_SMOOTH, 700, 2, 4, 1, &sb);
    unsigned char* c = malloc(sa);
    size_t so = 2 * ghz_compress_bound(700, GHZ_F32);
    unsigned char* o = malloc(so);
    tu_rng_t r;
    tu_seed(&r, 99);
    for (i = 0; i < 600; ++i) {
        tu_guard_t g;
        unsigned char* gc;
        size_t len = sa, n_out = 0;
        float* tmp = malloc(1400 * sizeof *tmp);
        int dec_ok;
        ghz_buf_t cb, bb = buf_of(b, sb, sb), ob = buf_of(o, 0, so);
        ghz_status_t st;
        memcpy(c, a, sa);
        if (i % 5 == 4) len = (size_t)tu_below(&r, sa); /* truncation */
        else c[64 + tu_below(&r, sa - 64)] ^= (unsigned char)(1u << tu_below(&r, 8));
        gc = tu_guard_copy(&g, c, len);
        cb = buf_of(gc, len, len);
        dec_ok = len > 0 && ghz_decompress(gc, len, tmp, 1400 * sizeof *tmp, &n_out) == GHZ_SUCCESS &&
                 n_out == 1400;
        st = ghz_homo_binary(GHZ_HOMO_SUM, &cb, &bb, &ob);
        if (!dec_ok) {
            cr_assert_neq(st, GHZ_SUCCESS, "case %zu: corrupt input accepted", i);
        } else if (st != GHZ_ERR_MISMATCH) { /* a flipped header field may differ from b's */
            unsigned char* in[2] = {gc, b};
            size_t sz[2] = {len, sb};
            expect_doc(OP_SUM, 0, in, sz, 2, "decodable corruption");
        }
        tu_guard_free(&g);
        free(tmp);
    }
    free(a);
    free(b);
    free(c);
    free(o);
}

Test(homo, decode_scaled_is_a_mean)
{
    spec_t s = {GHZ_F64, 1e-4, 1, -1e34, 0};
    size_t sz[3], k, j, n = 999, n_out = 0, so = 1 << 20, ref_n = 0;
    unsigned char* in[3];
    unsigned char* o = malloc(so);
    double *mean = malloc(n * sizeof *mean), *ref = malloc(n * sizeof *ref);
    const ghz_buf_t* list[3];
    ghz_buf_t bufs[3], ob = buf_of(o, 0, so);
    for (k = 0; k < 3; ++k) {
        in[k] = make_stream(&s, TU_NOISY, n, 1, 40 + k, 1, &sz[k]);
        bufs[k] = buf_of(in[k], sz[k], sz[k]);
        list[k] = &bufs[k];
    }
    cr_assert_eq(ghz_homo_sum_n(list, 3, &ob), GHZ_SUCCESS);
    cr_assert_eq(ghz_homo_decode_scaled(&ob, 1.0 / 3.0, mean, n * sizeof *mean, &n_out), GHZ_SUCCESS);
    cr_assert_eq(n_out, n);
    cr_assert_eq(ghz_decompress(o, ob.size, ref, n * sizeof *ref, &ref_n), GHZ_SUCCESS);
    for (j = 0; j < n; ++j) {
        uint64_t rb = tu_dbl_bits(ref[j]), mb = tu_dbl_bits(mean[j]);
        if (rb == tu_dbl_bits(-1e34)) cr_assert_eq(mb, rb, "fill stays at %zu", j);
        else if (isnan(ref[j])) cr_assert(isnan(mean[j]));
        else cr_assert_eq(mb, tu_dbl_bits(ref[j] * (1.0 / 3.0)), "value %zu", j);
    }
    for (k = 0; k < 3; ++k) free(in[k]);
    free(o);
    free(mean);
    free(ref);
}

/* REL streams are combinable when their eb_abs agree (one shared range), and the
 * result is DOC; a lossless REL stream (eb_abs = 0, constant data) gives the exact
 * float results, kept losslessly under REL. */
Test(homo, rel_streams)
{
    size_t n = 3000, sz[2], k, j, so = 1 << 20, n_out = 0;
    unsigned char* in[2];
    unsigned char* o = malloc(so);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_REL, 1e-3);
    p.has_range = 1;
    p.range_min = -200.0;
    p.range_max = 200.0;
    for (k = 0; k < 2; ++k) {
        void* a = tu_make(GHZ_F32, k ? TU_NOISY : TU_RANDOM, n, 60 + k);
        in[k] = tu_compress(&p, a, n, &sz[k]);
        free(a);
    }
    expect_doc(OP_SUM, 0, in, sz, 2, "REL with one range");
    free(in[0]);
    free(in[1]);
    {
        ghz_params_t c = tu_params(GHZ_F32, GHZ_EB_REL, 1e-3);
        float* a = tu_make(GHZ_F32, TU_CONSTANT, n, 0);
        float* r = malloc(n * sizeof *r);
        ghz_frame_info_t fi;
        ghz_buf_t ab, ob = buf_of(o, 0, so);
        in[0] = tu_compress(&c, a, n, &sz[0]);
        ab = buf_of(in[0], sz[0], sz[0]);
        cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ab, &ab, &ob), GHZ_SUCCESS, "%s", ghz_last_error_detail());
        cr_assert_eq(ghz_frame_info(o, ob.size, &fi), GHZ_SUCCESS);
        cr_assert(fi.eb_abs == 0.0 && fi.eb_mode == GHZ_EB_REL, "lossless result stays REL with eb_abs 0");
        cr_assert_eq(ghz_decompress(o, ob.size, r, n * sizeof *r, &n_out), GHZ_SUCCESS);
        for (j = 0; j < n; ++j) cr_assert_eq(tu_flt_bits(r[j]), tu_flt_bits(a[j] + a[j]), "value %zu", j);
        free(a);
        free(r);
        free(in[0]);
    }
    free(o);
}

/* Inputs with a frame checksum (FORMAT.md, Checksum): verified before use, so a damaged
 * payload is an error, not a wrong sum; the result is DOC's, which carries no checksum
 * (the library's default), whatever the inputs carried. */
Test(homo, checksummed_inputs)
{
    static const spec_t s = {GHZ_F32, 1e-3, 0, 0.0, 0};
    const size_t n = 5000;
    size_t sa, sb, ca = 0, cb = 0, i;
    unsigned char* a = make_stream(&s, TU_SMOOTH, n, 1, 41, 1, &sa);
    unsigned char* b = make_stream(&s, TU_NOISY, n, 1, 42, 1, &sb);
    unsigned char *ac = malloc(sa + GHZ_CHECKSUM_SIZE), *bc = malloc(sb + GHZ_CHECKSUM_SIZE);
    unsigned char *r0 = malloc(2 * sa + 4096), *r1 = malloc(2 * sa + 4096);
    ghz_buf_t ba, bb, o0, o1;
    memcpy(ac, a, sa);
    memcpy(bc, b, sb);
    cr_assert_eq(ghz_frame_add_checksum(ac, sa, sa + GHZ_CHECKSUM_SIZE, &ca), GHZ_SUCCESS);
    cr_assert_eq(ghz_frame_add_checksum(bc, sb, sb + GHZ_CHECKSUM_SIZE, &cb), GHZ_SUCCESS);
    ba = buf_of(a, sa, sa);
    bb = buf_of(b, sb, sb);
    o0 = buf_of(r0, 0, 2 * sa + 4096);
    cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ba, &bb, &o0), GHZ_SUCCESS);
    ba = buf_of(ac, ca, ca);
    bb = buf_of(bc, cb, cb);
    o1 = buf_of(r1, 0, 2 * sa + 4096);
    cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ba, &bb, &o1), GHZ_SUCCESS, "%s",
                 ghz_last_error_detail());
    cr_assert(o1.size == o0.size && memcmp(r0, r1, o0.size) == 0,
              "checksummed inputs give other bytes");
    { /* in place over a checksummed stream of worst-case (RAW) frames, a 3-frame one */
        static const spec_t r = {GHZ_F32, 1e-3, 0, 0.0, 0};
        size_t s1, s2, s3 = 0, s4 = 0, bound = 0, pos = 0, k;
        unsigned char* x = make_stream(&r, TU_RANDOM, 4000, 3, 7, 0, &s1);
        unsigned char* y = make_stream(&r, TU_RANDOM, 4000, 3, 8, 0, &s2);
        unsigned char* xc = malloc(s1 + 3 * GHZ_CHECKSUM_SIZE);
        unsigned char* ref = malloc(2 * s1 + 4096);
        unsigned char* io;
        for (k = 0; k < 3; ++k) { /* seal each frame */
            ghz_frame_info_t fi;
            size_t grown = 0;
            cr_assert_eq(ghz_frame_info(x + pos, s1 - pos, &fi), GHZ_SUCCESS);
            memcpy(xc + s3, x + pos, fi.frame_size);
            cr_assert_eq(ghz_frame_add_checksum(xc + s3, fi.frame_size, fi.frame_size + 4, &grown),
                         GHZ_SUCCESS);
            s3 += grown;
            pos += fi.frame_size;
        }
        cr_assert_eq(ghz_homo_bound(xc, s3, &bound), GHZ_SUCCESS);
        cr_assert_geq(bound, s3, "the in-place capacity must hold the sealed input");
        io = malloc(bound);
        memcpy(io, xc, s3);
        ba = buf_of(xc, s3, s3);
        bb = buf_of(y, s2, s2);
        o0 = buf_of(ref, 0, 2 * s1 + 4096);
        cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUB, &ba, &bb, &o0), GHZ_SUCCESS, "%s",
                     ghz_last_error_detail());
        ba = buf_of(io, s3, bound);
        cr_assert_eq(ghz_homo_binary_inplace(GHZ_HOMO_SUB, &ba, &bb), GHZ_SUCCESS, "%s",
                     ghz_last_error_detail());
        s4 = ba.size;
        cr_assert(s4 == o0.size && memcmp(io, ref, s4) == 0, "in place differs");
        free(x);
        free(y);
        free(xc);
        free(ref);
        free(io);
    }
    ba = buf_of(ac, ca, ca);
    bb = buf_of(bc, cb, cb);
    for (i = 0; i < 3; ++i) { /* a flipped bit in the payload, the codes, the checksum */
        const size_t at[3] = {cb - 100, 64 + 3, cb - 1};
        bc[at[i]] ^= 0x10;
        o1 = buf_of(r1, 0, 2 * sa + 4096);
        cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ba, &bb, &o1), GHZ_ERR_CORRUPT,
                     "flip at %zu not caught", at[i]);
        bc[at[i]] ^= 0x10;
    }
    free(a);
    free(b);
    free(ac);
    free(bc);
    free(r0);
    free(r1);
}

/* ghz_homo_acc_pair, the GPU kernel's fold of two integers in 32-bit arithmetic, gives
 * the accumulator of ghz_homo_acc_first + ghz_homo_acc_next (the CPU engine's) for every
 * binary operation: integers at and around the limits of the exactness test (2^20 and
 * 2^21 for f32) and QMAX, with both signs, and random ones. */
Test(homo, pair_accumulator_equals_fold)
{
    static const int32_t edge[] = {0, 1, 2, 3, (1 << 19) - 1, 1 << 19, (1 << 19) + 1, (1 << 20) - 1, 1 << 20,
                                   (1 << 20) + 1, (1 << 21) - 1, 1 << 21, 1 << 28, GHZ_QMAX - 1, GHZ_QMAX};
    enum { NE = sizeof edge / sizeof edge[0], NV = 2 * NE + 300 };
    int32_t v[NV];
    tu_rng_t r;
    size_t i, j;
    int op;
    tu_seed(&r, 77);
    for (i = 0; i < NE; ++i) {
        v[2 * i] = edge[i];
        v[2 * i + 1] = -edge[i];
    }
    for (i = 2 * NE; i < NV; ++i) v[i] = (int32_t)tu_below(&r, 2u * GHZ_QMAX + 1u) - GHZ_QMAX;
    for (op = GHZ_HOMO_SUM; op <= GHZ_HOMO_MAX; ++op)
        for (i = 0; i < NV; ++i)
            for (j = 0; j < NV; ++j) {
                ghz_homo_acc_t f = ghz_homo_acc_first(op, v[i], 0);
                const ghz_homo_acc_t p = ghz_homo_acc_pair(op, v[i], v[j]);
                ghz_homo_acc_next(op, &f, v[j]);
                if (f.q != p.q || f.mag != p.mag)
                    cr_assert_fail("op %d, %d and %d: fold (%lld, %lld), pair (%lld, %lld)", op, v[i], v[j],
                                   (long long)f.q, (long long)f.mag, (long long)p.q, (long long)p.mag);
            }
}

/* NaN as the fill value (FORMAT.md) meets ghz/homo: every frame written without a
 * declared fill has the same fill, the canonical quiet NaN, so NaN-masked operands keep
 * the integer path. A NaN-masked field: land (a mask) as NaN of bits `land`, ocean a
 * smooth field; `odd` puts a NaN of other bits and an Inf in the ocean; v02 writes the
 * frame as 0.2 did (no fill). */
static unsigned char* nan_masked(ghz_dtype_t t, size_t n, uint64_t seed, uint64_t land, uint64_t odd, int v02,
                                 size_t* size)
{
    void* a = tu_make(t, TU_SMOOTH, n, seed);
    ghz_params_t p = tu_params(t, GHZ_EB_ABS, 1e-3);
    size_t i, cap = ghz_compress_bound(n, t);
    unsigned char* out = malloc(cap);
    for (i = 0; i < n; ++i)
        if ((i / 7) % 5 == 0 || (i > n / 3 && i < n / 2)) tu_set_bits(a, t, i, land);
    if (odd && n > 100) {
        tu_set_bits(a, t, 100, odd); /* a NaN of another payload: RAW, never fill */
        tu_set_bits(a, t, 101, t == GHZ_F32 ? 0x7F800000u : 0x7FF0000000000000ull);
    }
    if (v02)
        *size = tu_ref_compress_v02(&p, a, n, out);
    else
        cr_assert_eq(ghz_compress(&p, a, n, out, cap, size), GHZ_SUCCESS);
    free(a);
    return out;
}

Test(homo, nan_fills)
{
    int ti;
    for (ti = 0; ti < 2; ++ti) {
        const ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
        const uint64_t qnan = ti ? 0x7FF8000000000000ull : 0x7FC00000u;
        const uint64_t neg = ti ? 0xFFF8000000000000ull : 0xFFC00000u;
        const uint64_t snan = ti ? 0x7FF0000000000123ull : 0x7F800123u;
        const size_t n = 1000;
        struct {
            uint64_t la, oa, lb, ob;
            int v02;
            const char* what;
        } cases[] = {
            {qnan, 0, qnan, 0, 0, "NaN land (the fill: integer path)"},
            {qnan, neg, qnan, 0, 0, "NaN land, another NaN and an Inf in a"},
            {qnan, 0, neg, snan, 0, "NaN land in a, -NaN land in b (not the fill)"},
            {neg, 0, snan, 0, 0, "-NaN land and signalling NaN land (no fill position)"},
            {qnan, neg, qnan, 0, 1, "frames of 0.2: NaN an ordinary value"},
        };
        size_t c;
        for (c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
            unsigned char* in[2];
            size_t sz[2];
            char what[160];
            int op;
            in[0] = nan_masked(t, n, 1, cases[c].la, cases[c].oa, cases[c].v02, &sz[0]);
            in[1] = nan_masked(t, n, 2, cases[c].lb, cases[c].ob, cases[c].v02, &sz[1]);
            for (op = OP_SUM; op <= OP_MAX; ++op) {
                snprintf(what, sizeof what, "%s, %s, op %d", ti ? "f64" : "f32", cases[c].what, op);
                expect_doc(op, 0, in, sz, 2, what);
            }
            snprintf(what, sizeof what, "%s, %s, sum of 3", ti ? "f64" : "f32", cases[c].what);
            {
                unsigned char* three[3] = {in[0], in[1], in[0]};
                size_t s3[3] = {sz[0], sz[1], sz[0]};
                expect_doc(OP_SUMN, 0, three, s3, 3, what);
            }
            snprintf(what, sizeof what, "%s, %s, negate", ti ? "f64" : "f32", cases[c].what);
            expect_doc(OP_NEG, 0, in, sz, 1, what);
            snprintf(what, sizeof what, "%s, %s, times 3", ti ? "f64" : "f32", cases[c].what);
            expect_doc(OP_MUL, 3, in, sz, 1, what);
            free(in[0]);
            free(in[1]);
        }
    }
}

/* The integer path is kept: the sum of two NaN-masked fields is as small as its
 * operands (land FILLED or masked, not RAW), and its land is the canonical NaN. */
Test(homo, nan_masked_sum_stays_compressed)
{
    int ti;
    for (ti = 0; ti < 2; ++ti) {
        const ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
        const uint64_t qnan = ti ? 0x7FF8000000000000ull : 0x7FC00000u;
        const size_t n = 4096;
        size_t sa, sb, so, bound, i;
        unsigned char* a = nan_masked(t, n, 1, qnan, 0, 0, &sa);
        unsigned char* b = nan_masked(t, n, 2, qnan, 0, 0, &sb);
        unsigned char* o;
        ghz_buf_t ab, bb, ob;
        void* y;
        cr_assert_eq(ghz_homo_bound(a, sa, &bound), GHZ_SUCCESS);
        o = malloc(bound);
        ab = buf_of(a, sa, sa);
        bb = buf_of(b, sb, sb);
        ob = buf_of(o, 0, bound);
        cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ab, &bb, &ob), GHZ_SUCCESS, "%s", ghz_last_error_detail());
        so = ob.size;
        for (i = 0; i < (n + 31) / 32; ++i) cr_assert_neq(o[64 + i], 0x1F, "%s: block %zu RAW", ti ? "f64" : "f32", i);
        cr_assert(so < (sa > sb ? sa : sb) * 5 / 4, "%s: sum %zu bytes, operands %zu and %zu",
                  ti ? "f64" : "f32", so, sa, sb);
        y = tu_decompress(o, so, t, n);
        for (i = 0; i < n; ++i)
            if ((i / 7) % 5 == 0 || (i > n / 3 && i < n / 2)) cr_assert_eq(tu_bits(y, t, i), qnan);
        free(y);
        free(a);
        free(b);
        free(o);
    }
}

/* Frames of 0.2 written without a fill and frames written without one today (NaN the
 * fill) are not combined (HOMO.md, Operands must match): the call is refused with
 * GHZ_ERR_MISMATCH, in either order, with a detail that says how to fix it, whether
 * or not the old frame holds a NaN. */
Test(homo, frame_of_0_2_against_nan_fill_is_refused)
{
    int ti, v;
    for (ti = 0; ti < 2; ++ti)
        for (v = 0; v < 2; ++v) {
            const ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
            const uint64_t land = v ? (ti ? 0x7FF8000000000000ull : 0x7FC00000u) : 0;
            size_t sa, sb, so = 1 << 20;
            unsigned char* a = nan_masked(t, 1000, 1, land, 0, 1, &sa);
            unsigned char* b = nan_masked(t, 1000, 2, land, 0, 0, &sb);
            unsigned char* o = malloc(so);
            ghz_buf_t ab = buf_of(a, sa, sa), bb = buf_of(b, sb, sb), ob = buf_of(o, 0, so);
            const ghz_buf_t* k[2] = {&ab, &bb};
            cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ab, &bb, &ob), GHZ_ERR_MISMATCH);
            cr_assert(strstr(ghz_last_error_detail(), "0.2") != NULL, "%s", ghz_last_error_detail());
            cr_assert_eq(ghz_homo_binary(GHZ_HOMO_MAX, &bb, &ab, &ob), GHZ_ERR_MISMATCH);
            cr_assert(strstr(ghz_last_error_detail(), "compress") != NULL, "%s", ghz_last_error_detail());
            cr_assert_eq(ghz_homo_sum_n(k, 2, &ob), GHZ_ERR_MISMATCH);
            free(a);
            free(b);
            free(o);
        }
}

/* A declared fill that is not a NaN still has to match the NaN fill: refused as
 * before. */
Test(homo, declared_fill_against_nan_fill_is_refused)
{
    spec_t fl = {GHZ_F32, 1e-3, 1, -1e34, 0};
    size_t sa, sb, so = 1 << 20;
    unsigned char* a = make_stream(&fl, TU_SMOOTH, 1000, 1, 1, 0, &sa);
    unsigned char* b = nan_masked(GHZ_F32, 1000, 2, 0x7FC00000u, 0, 0, &sb);
    unsigned char* o = malloc(so);
    ghz_buf_t ab = buf_of(a, sa, sa), bb = buf_of(b, sb, sb), ob = buf_of(o, 0, so);
    cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &ab, &bb, &ob), GHZ_ERR_MISMATCH);
    cr_assert_eq(ghz_homo_binary(GHZ_HOMO_SUM, &bb, &ab, &ob), GHZ_ERR_MISMATCH);
    free(a);
    free(b);
    free(o);
}
