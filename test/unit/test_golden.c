/* test/unit/test_golden.c: the frozen streams of test/golden/ (see its README.md).
 * Compressing each frozen input must reproduce the frozen bytes exactly, and decoding
 * each frozen stream must give values within its bound. A failure here means the
 * format or the writer changed: either a bug, or a deliberate change that must be
 * documented (a format change also bumps GHZ_FORMAT_VERSION) before the files are
 * regenerated. The frames of 0.2 (<name>.v02.ghz) must still be read. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_cases.h"
#include "testutil.h"

#ifndef GHZ_TEST_DATA_DIR
#error "GHZ_TEST_DATA_DIR must name test/golden"
#endif

static unsigned char* read_file(const char* name, const char* ext, size_t* size)
{
    char path[4096];
    FILE* f;
    long len;
    unsigned char* p;
    snprintf(path, sizeof path, "%s/%s%s", GHZ_TEST_DATA_DIR, name, ext);
    f = fopen(path, "rb");
    cr_assert(f != NULL, "cannot open %s (generate with make_golden, see README.md)", path);
    cr_assert(fseek(f, 0, SEEK_END) == 0);
    len = ftell(f);
    cr_assert(len >= 0);
    rewind(f);
    p = malloc((size_t)len + 1);
    cr_assert(fread(p, 1, (size_t)len, f) == (size_t)len, "short read of %s", path);
    fclose(f);
    *size = (size_t)len;
    return p;
}

static ghz_params_t case_params(const golden_case_t* g)
{
    ghz_params_t p = tu_params(g->dtype, g->eb_mode, g->eb);
    p.has_fill = g->has_fill;
    p.fill = g->fill;
    return p;
}

Test(golden, compress_reproduces_frozen_bytes)
{
    size_t c;
    for (c = 0; c < GOLDEN_N_CASES; c++) {
        const golden_case_t* g = &golden_cases[c];
        ghz_params_t p = case_params(g);
        size_t raw_size, gold_size, size, i;
        unsigned char* raw = read_file(g->name, ".raw", &raw_size);
        unsigned char* gold = read_file(g->name, ".ghz", &gold_size);
        unsigned char* out;
        cr_assert_eq(raw_size, g->n * ghz_dtype_size(g->dtype), "%s.raw size", g->name);
        out = tu_compress(&p, raw, g->n, &size);
        cr_assert_eq(size, gold_size, "%s: compressed to %zu bytes, frozen stream has %zu",
                     g->name, size, gold_size);
        for (i = 0; i < size; i++)
            cr_assert(out[i] == gold[i], "%s: byte %zu is %02x, frozen %02x", g->name, i,
                      out[i], gold[i]);
        /* The frozen bytes are also what FORMAT.md prescribes (testutil's encoder). */
        {
            unsigned char* ref = malloc(ghz_compress_bound(g->n, g->dtype));
            size_t rs = tu_ref_compress(&p, raw, g->n, ref);
            cr_assert(rs == gold_size && memcmp(ref, gold, rs) == 0,
                      "%s: frozen stream differs from the spec encoder's", g->name);
            free(ref);
        }
        /* and with threads */
        p.nthreads = 0;
        free(out);
        out = tu_compress(&p, raw, g->n, &size);
        cr_assert(size == gold_size && memcmp(out, gold, size) == 0, "%s with nthreads 0",
                  g->name);
        free(out);
        free(raw);
        free(gold);
    }
}

Test(golden, frozen_streams_decode_within_bound)
{
    size_t c;
    for (c = 0; c < GOLDEN_N_CASES; c++) {
        const golden_case_t* g = &golden_cases[c];
        size_t raw_size, gold_size, bad;
        unsigned char* raw = read_file(g->name, ".raw", &raw_size);
        unsigned char* gold = read_file(g->name, ".ghz", &gold_size);
        ghz_frame_info_t fi;
        void* out;
        char msg[512];
        cr_assert_eq(ghz_frame_info(gold, gold_size, &fi), GHZ_SUCCESS, "%s", g->name);
        cr_assert(fi.format_version == 2 && fi.dtype == g->dtype && fi.eb_mode == g->eb_mode &&
                      fi.eb_user == g->eb && fi.n == g->n && fi.frame_size == gold_size &&
                      fi.has_fill == 1,
                  "%s: header fields", g->name);
        /* FORMAT.md, NaN as the fill value: without a declared fill, the canonical NaN */
        cr_assert_eq(fi.fill_bits, g->has_fill ? tu_bits_of(g->dtype, g->fill)
                                   : g->dtype == GHZ_F32 ? 0x7FC00000u : 0x7FF8000000000000ull,
                     "%s: fill bits", g->name);
        out = tu_decompress(gold, gold_size, g->dtype, g->n);
        bad = tu_check_bound(raw, out, g->n, g->dtype, fi.eb_abs, g->has_fill,
                             g->has_fill ? tu_bits_of(g->dtype, g->fill) : 0, msg, sizeof msg);
        cr_assert(bad == (size_t)-1, "%s: %s", g->name, msg);
        free(out);
        free(raw);
        free(gold);
    }
}

/* The frames 0.2 wrote without a fill (NaN an ordinary value) are still read, within
 * their bound with NaN and Inf bit for bit; the spec encoder's v02 mode writes them; and
 * the frame of today differs only in its header (flag bit 0 and fill_bits) and decodes
 * to the same values. */
Test(golden, frames_of_0_2_still_decode)
{
    size_t c, seen = 0;
    for (c = 0; c < GOLDEN_N_CASES; c++) {
        const golden_case_t* g = &golden_cases[c];
        const ghz_params_t p = case_params(g);
        size_t raw_size, old_size, gold_size, bad, i;
        unsigned char *raw, *old, *gold, *ref;
        ghz_frame_info_t fi;
        void *out, *now;
        char name[256], msg[512];
        if (!g->v02) continue;
        seen++;
        snprintf(name, sizeof name, "%s.v02", g->name);
        raw = read_file(g->name, ".raw", &raw_size);
        old = read_file(name, ".ghz", &old_size);
        gold = read_file(g->name, ".ghz", &gold_size);
        cr_assert_eq(ghz_frame_info(old, old_size, &fi), GHZ_SUCCESS, "%s", name);
        cr_assert(fi.format_version == 2 && fi.dtype == g->dtype && fi.eb_mode == g->eb_mode &&
                      fi.n == g->n && fi.frame_size == old_size && !fi.has_fill && fi.fill_bits == 0,
                  "%s: header fields", name);
        out = tu_decompress(old, old_size, g->dtype, g->n);
        bad = tu_check_bound(raw, out, g->n, g->dtype, fi.eb_abs, 0, 0, msg, sizeof msg);
        cr_assert(bad == (size_t)-1, "%s: %s", name, msg);
        ref = malloc(ghz_compress_bound(g->n, g->dtype));
        cr_assert(tu_ref_compress_v02(&p, raw, g->n, ref) == old_size && memcmp(ref, old, old_size) == 0,
                  "%s: differs from the spec encoder's v02 frame", name);
        /* both inputs' canonical NaNs (f64_rel_mixed: one, next to an Inf) sit in blocks
         * that hold a value neither quantizable nor fill, so only the header changed */
        cr_assert_eq(gold_size, old_size, "%s", g->name);
        for (i = 0; i < old_size; i++)
            cr_assert(gold[i] == old[i] || i == 11 || (i >= 56 && i < 64),
                      "%s: byte %zu differs from 0.2's frame outside the fill fields", g->name, i);
        now = tu_decompress(gold, gold_size, g->dtype, g->n);
        cr_assert(memcmp(now, out, g->n * ghz_dtype_size(g->dtype)) == 0, "%s: decoded values", g->name);
        free(now);
        free(ref);
        free(out);
        free(raw);
        free(old);
        free(gold);
    }
    cr_assert_eq(seen, 2);
}

/* The golden set stays small and covers every block kind. */
Test(golden, covers_every_block_kind)
{
    size_t c, total = 0;
    int seen_raw = 0, seen_const = 0, seen_filled = 0, seen_mask = 0, seen_quant = 0;
    for (c = 0; c < GOLDEN_N_CASES; c++) {
        size_t gold_size, raw_size, b;
        unsigned char* gold = read_file(golden_cases[c].name, ".ghz", &gold_size);
        unsigned char* raw = read_file(golden_cases[c].name, ".raw", &raw_size);
        uint64_t nb = tu_rd(gold + 24, 8);
        total += gold_size + raw_size;
        for (b = 0; b < nb; b++) {
            unsigned code = gold[64 + b];
            seen_raw |= code == 0x1F;
            seen_const |= code == 0x3F;
            seen_filled |= code == 0x5F;
            seen_mask |= (code & 31) < 31 && (code & 0x80);
            seen_quant |= (code & 31) < 31 && (code & 31) > 0;
        }
        free(gold);
        free(raw);
    }
    cr_assert(seen_raw && seen_const && seen_filled && seen_mask && seen_quant,
              "raw %d const %d filled %d mask %d quant %d", seen_raw, seen_const, seen_filled,
              seen_mask, seen_quant);
    cr_assert(total < 50 * 1024, "golden files take %zu bytes", total);
}

/* Ratio frames of format version 3 (RATIO.md), written by ghz 0.2.0 (ghz-cli compress
 * --prefer ratio, see README.md) and frozen with that library's decoded output: every
 * later reader must read them to the same bits, on one thread and on several. */
typedef struct {
    const char* name; /* <name>.raw, <name>.v3.ghz, <name>.v3.out */
    ghz_dtype_t dtype;
    size_t n;
    int has_fill;
    double fill;
} golden_v3_t;

static const golden_v3_t golden_ratio_v3[] = {
    {"ratio_f32_3d", GHZ_F32, 30 * 20 * 10, 1, -9999.0}, /* fill, NaN, outliers */
    {"ratio_f64_2d", GHZ_F64, 40 * 30, 0, 0.0},          /* Inf, outliers */
    {"ratio_f32_1d", GHZ_F32, 3000, 0, 0.0},             /* REL, NaN */
};

Test(golden, ratio_frames_of_version_3_still_decode)
{
    size_t c;
    for (c = 0; c < sizeof golden_ratio_v3 / sizeof golden_ratio_v3[0]; c++) {
        const golden_v3_t* g = &golden_ratio_v3[c];
        const size_t bytes = g->n * ghz_dtype_size(g->dtype);
        size_t raw_size, frame_size, want_size, n_out = 0, bad;
        char name[256], msg[512];
        unsigned char *raw, *frame, *want;
        ghz_frame_info_t fi;
        void *out, *mt;
        snprintf(name, sizeof name, "%s.v3", g->name);
        raw = read_file(g->name, ".raw", &raw_size);
        frame = read_file(name, ".ghz", &frame_size);
        want = read_file(name, ".out", &want_size);
        cr_assert(raw_size == bytes && want_size == bytes, "%s: file sizes", g->name);
        cr_assert_eq(ghz_frame_info(frame, frame_size, &fi), GHZ_SUCCESS, "%s", name);
        cr_assert(fi.format_version == 3 && fi.prefer == GHZ_PREFER_RATIO && fi.dtype == g->dtype &&
                      fi.n == g->n && fi.frame_size == frame_size,
                  "%s: header fields", name);
        out = tu_decompress(frame, frame_size, g->dtype, g->n);
        cr_assert(memcmp(out, want, bytes) == 0, "%s: decoded values differ from version 3's reader's", name);
        mt = tu_alloc(g->dtype, g->n);
        cr_assert_eq(ghz_decompress_mt(frame, frame_size, mt, bytes, &n_out, 0), GHZ_SUCCESS, "%s: %s", name,
                     ghz_last_error_detail());
        cr_assert(n_out == g->n && memcmp(mt, want, bytes) == 0, "%s: threaded decoding", name);
        bad = tu_check_bound(raw, out, g->n, g->dtype, fi.eb_abs, g->has_fill,
                             g->has_fill ? tu_bits_of(g->dtype, g->fill) : 0, msg, sizeof msg);
        cr_assert(bad == (size_t)-1, "%s: %s", name, msg);
        free(mt);
        free(out);
        free(raw);
        free(frame);
        free(want);
    }
}
