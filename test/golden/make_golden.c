/* test/golden/make_golden.c: writes the golden inputs (<name>.raw) and streams
 * (<name>.ghz) of golden_cases.h. Built with the tests, run only by hand:
 *
 *     ./build/test/make_golden [output-dir]      (default: the source test/golden)
 *
 * Regenerating changes the frozen bytes, which means the stream format or the writer
 * changed: see README.md. The <name>.v02.ghz files are never written here. The inputs come from an integer-only PRNG and exact integer-to-float
 * conversions scaled by powers of two (no libm, no rounding), so they are the same on
 * every platform. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_cases.h"

#ifndef GHZ_TEST_DATA_DIR
#define GHZ_TEST_DATA_DIR "."
#endif

static uint64_t rng_state;

static uint64_t next_u64(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A uniform integer in [lo, hi]. */
static int64_t next_in(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

static void put(unsigned char* raw, ghz_dtype_t t, size_t i, double v)
{
    if (t == GHZ_F32) {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, 4);
        raw[4 * i] = (unsigned char)b;
        raw[4 * i + 1] = (unsigned char)(b >> 8);
        raw[4 * i + 2] = (unsigned char)(b >> 16);
        raw[4 * i + 3] = (unsigned char)(b >> 24);
    } else {
        uint64_t b;
        int k;
        memcpy(&b, &v, 8);
        for (k = 0; k < 8; k++) raw[8 * i + k] = (unsigned char)(b >> (8 * k));
    }
}

static void put_bits(unsigned char* raw, ghz_dtype_t t, size_t i, uint64_t b)
{
    size_t es = t == GHZ_F32 ? 4 : 8, k;
    for (k = 0; k < es; k++) raw[es * i + k] = (unsigned char)(b >> (8 * k));
}

/* The input of case c (raw little-endian bytes of its dtype). The host is assumed
 * little-endian for the values handed to ghz_compress, as the test assumes. */
static void make_input(size_t c, unsigned char* raw)
{
    const golden_case_t* g = &golden_cases[c];
    size_t i, n = g->n;
    int64_t s = 0;
    rng_state = 0x67687A00u + c; /* "ghz" + case */
    switch (c) {
    case 0: /* walk in steps of 2^-10, jumps every 200 */
        for (i = 0; i < n; i++) {
            s += next_in(-1000, 1000);
            if (i % 200 == 199) s += next_in(-100000, 100000);
            put(raw, g->dtype, i, (double)s * 0x1p-10);
        }
        break;
    case 1: /* walk in steps of 2^-30 with specials */
        for (i = 0; i < n; i++) {
            s += next_in(-(1 << 20), 1 << 20);
            if (i % 97 == 0) s += next_in(-(1ll << 34), 1ll << 34);
            put(raw, g->dtype, i, (double)s * 0x1p-30);
        }
        put_bits(raw, g->dtype, 100, 0x7FF8000000000000ull); /* NaN */
        put_bits(raw, g->dtype, 101, 0x7FF0000000000000ull); /* +Inf */
        put_bits(raw, g->dtype, 102, 0x8000000000000000ull); /* -0.0 */
        for (i = 320; i < 352; i++) put_bits(raw, g->dtype, i, 0xFFF0000000000000ull);
        put_bits(raw, g->dtype, 500, 0x7FF4000000000123ull); /* signalling NaN, payload */
        break;
    case 2: /* walk with fill runs */
        for (i = 0; i < n; i++) {
            s += next_in(-300, 300);
            put(raw, g->dtype, i, (double)s * 0x1p-8);
        }
        for (i = 0; i < 64; i++) put(raw, g->dtype, i, g->fill);
        for (i = 100; i <= 110; i++) put(raw, g->dtype, i, g->fill);
        for (i = 200; i < 400; i += 17) put(raw, g->dtype, i, g->fill);
        put_bits(raw, g->dtype, 450, 0x7FC00000u);
        put(raw, g->dtype, 451, g->fill);
        for (i = 480; i < n; i++) put(raw, g->dtype, i, g->fill);
        break;
    case 4: /* walk with NaN runs (land), another NaN and an Inf */
        for (i = 0; i < n; i++) {
            s += next_in(-500, 500);
            put(raw, g->dtype, i, (double)s * 0x1p-12);
        }
        for (i = 40; i < 100; i++) put_bits(raw, g->dtype, i, 0x7FC00000u); /* the fill */
        for (i = 130; i < 150; i++) put_bits(raw, g->dtype, i, 0x7FC00000u);
        for (i = 200; i < 400; i += 13) put_bits(raw, g->dtype, i, 0x7FC00000u);
        put_bits(raw, g->dtype, 420, 0xFFC00000u); /* x86's default NaN: not the fill */
        put_bits(raw, g->dtype, 421, 0x7FC00000u);
        put_bits(raw, g->dtype, 450, 0x7F800000u); /* +Inf */
        for (i = 480; i < 512; i++) put_bits(raw, g->dtype, i, 0xFFC00000u);
        for (i = 560; i < n; i++) put_bits(raw, g->dtype, i, 0x7FC00000u);
        break;
    default: /* multiples of 0.125 with bound 0.25: many halfway points */
        for (i = 0; i < n; i++) put(raw, g->dtype, i, (double)next_in(-32, 31) * 0.125);
        put(raw, g->dtype, 3, g->fill);
        put(raw, g->dtype, 4, g->fill);
        put(raw, g->dtype, 36, g->fill);
        break;
    }
}

static int write_file(const char* dir, const char* name, const char* ext, const void* p,
                      size_t size)
{
    char path[4096];
    FILE* f;
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    f = fopen(path, "wb");
    if (!f || fwrite(p, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "make_golden: cannot write %s\n", path);
        return 1;
    }
    printf("wrote %s (%zu bytes)\n", path, size);
    return 0;
}

int main(int argc, char** argv)
{
    const char* dir = argc > 1 ? argv[1] : GHZ_TEST_DATA_DIR;
    size_t c;
    int rc = 0;
    for (c = 0; c < GOLDEN_N_CASES; c++) {
        const golden_case_t* g = &golden_cases[c];
        size_t es = ghz_dtype_size(g->dtype), cap = ghz_compress_bound(g->n, g->dtype), size;
        unsigned char* raw = malloc(g->n * es);
        unsigned char* out = malloc(cap);
        ghz_params_t p = GHZ_PARAMS_INIT;
        ghz_status_t st;
        make_input(c, raw);
        p.dtype = g->dtype;
        p.eb_mode = g->eb_mode;
        p.eb = g->eb;
        p.has_fill = g->has_fill;
        p.fill = g->fill;
        st = ghz_compress(&p, raw, g->n, out, cap, &size);
        if (st != GHZ_SUCCESS) {
            fprintf(stderr, "make_golden: %s: %s\n", g->name, ghz_status_string(st));
            return 1;
        }
        rc |= write_file(dir, g->name, ".raw", raw, g->n * es);
        rc |= write_file(dir, g->name, ".ghz", out, size);
        free(raw);
        free(out);
    }
    return rc;
}
