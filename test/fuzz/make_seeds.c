/* test/fuzz/make_seeds.c: writes the seed corpus of the fuzz targets, real streams
 * made by the library being fuzzed, so the repository holds no binary seeds:
 *
 *   make_seeds OUTDIR    ->  OUTDIR/{decode,cli_reader,roundtrip,homo}/seed-NNN
 *
 * (the directories are created; existing seeds of the same names are overwritten)
 *
 * The streams cover both dtypes, both bound modes, fill values, checksums, every block
 * kind (QUANT with and without mask, RAW, CONST, FILLED), short last blocks, empty
 * frames and multi-frame streams, and (for the CLI's reader) fixed-rate frames alone
 * and after an error-bounded one, each under 4 KiB so the fuzzer mutates them fast.
 *
 * Ratio frames (RATIO.md, prefer ratio) of 1-D, 2-D and 3-D shapes, f32 and f64, ABS and
 * REL, with specials (NaN, -Inf, runs of them), outliers (values no code reaches),
 * fill values and checksums; a lossless one (E = 0), one of 2^18 constant values
 * whose passes span several chunks of 32 lanes, and streams that mix them with block
 * frames; and ratio frames as operands of the homomorphic target (which refuses
 * them) and parameters of the round trip that ask for prefer ratio and a shape. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ghz/codec/fixed.h"
#include "ghz/ghz.h"

static const char* g_out;
static unsigned g_count;

static void put(const char* target, const void* a, size_t la, const void* b, size_t lb)
{
    char path[4096];
    FILE* f;
    snprintf(path, sizeof path, "%s/%s/seed-%03u", g_out, target, g_count++);
    f = fopen(path, "wb");
    if (!f || fwrite(a, 1, la, f) != la || (lb && fwrite(b, 1, lb, f) != lb) || fclose(f) != 0) {
        fprintf(stderr, "make_seeds: cannot write %s\n", path);
        exit(1);
    }
}

/* n values of a walk with NaN, Inf, a run of one constant, and fill values. */
static void values(double* v, size_t n, unsigned seed, double fill)
{
    double x = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        seed = seed * 1103515245u + 12345u;
        x += ((seed >> 16) % 2001 - 1000) / 1000.0;
        v[i] = x;
    }
    for (i = 0; i < n; ++i) {
        if (i % 97 == 13) v[i] = NAN;
        if (i % 131 == 7) v[i] = -INFINITY;
        if (i >= 64 && i < 96) v[i] = 1e300;   /* CONST in f64, RAW-ish in f32 */
        if (i >= 128 && i < 160) v[i] = fill;  /* FILLED when the fill is declared */
        if (i % 41 == 3) v[i] = fill;          /* masked QUANT */
    }
}

/* The parameters of configuration cfg (0..15): bit 0 f64, bit 1 REL (else ABS), bit 2
 * the fill value -9999, bit 3 a checksum. */
static void params_of(unsigned cfg, ghz_params_t* p)
{
    p->dtype = (cfg & 1) ? GHZ_F64 : GHZ_F32;
    p->eb_mode = (cfg & 2) ? GHZ_EB_REL : GHZ_EB_ABS;
    p->eb = (cfg & 2) ? 1e-3 : 0.05;
    p->has_fill = (cfg & 4) != 0;
    p->fill = -9999.0;
    p->checksum = (cfg & 8) != 0;
}

/* Compresses n values under p (converted to p->dtype) into z; returns the size. */
static size_t frame(const ghz_params_t* p, const double* v, size_t n, unsigned char* z, size_t cap)
{
    static float f[1024];
    size_t size = 0, i;
    const void* src = v;
    ghz_status_t st;
    if (p->dtype == GHZ_F32) {
        for (i = 0; i < n; ++i) f[i] = (float)v[i];
        src = f;
    }
    st = ghz_compress(p, src, n, z, cap, &size);
    if (st != GHZ_SUCCESS) {
        fprintf(stderr, "make_seeds: ghz_compress: %s (%s)\n", ghz_status_string(st),
                ghz_last_error_detail());
        exit(1);
    }
    return size;
}

/* n values of a smooth field over a d0 x d1 x d2 grid (fastest first) with NaN, -Inf,
 * a run of NaN along the slowest axis, fill values and (under an ABS bound) outliers:
 * 1e30 jumps that no code of |k| <= QMAX reaches. */
static void ratio_values(double* v, const size_t d[3], unsigned seed, double fill, int outliers)
{
    const size_t n = d[0] * d[1] * d[2];
    size_t i;
    for (i = 0; i < n; ++i) {
        const double x = (double)(i % d[0]), y = (double)(i / d[0] % d[1]), z = (double)(i / d[0] / d[1]);
        v[i] = 40.0 * sin(0.3 * x + 0.2 * y + seed) * cos(0.25 * z - 0.1 * y) + 0.01 * x * y + 280.0;
    }
    for (i = 0; i < n; ++i) {
        if (i % 89 == 11) v[i] = NAN;
        if (i % 113 == 50) v[i] = -INFINITY;
        if (i % d[0] == 3 && i / d[0] % 5 == 2) v[i] = NAN; /* runs along the slower axes */
        if (i % 67 == 5) v[i] = fill;
        if (outliers && i % 71 == 30) v[i] = (i & 1) ? 1e30 : -1e30;
    }
}

/* One ratio frame of the values of ratio_values under p (prefer ratio, shape d) into
 * z; exits when the writer fell back to a block frame (the seed would not be one). */
static size_t ratio_frame(ghz_params_t* p, const size_t d[3], double* v, unsigned seed,
                          unsigned char* z, size_t cap)
{
    ghz_frame_info_t fi;
    size_t size;
    p->prefer = GHZ_PREFER_RATIO;
    p->dims[0] = d[1] * d[2] == 1 ? 0 : d[0];
    p->dims[1] = d[1] * d[2] == 1 ? 0 : d[1];
    p->dims[2] = d[1] * d[2] == 1 ? 0 : d[2];
    ratio_values(v, d, seed, p->fill, p->eb_mode == GHZ_EB_ABS);
    size = frame(p, v, d[0] * d[1] * d[2], z, cap);
    if (ghz_frame_info(z, size, &fi) != GHZ_SUCCESS || fi.prefer != GHZ_PREFER_RATIO) {
        fprintf(stderr, "make_seeds: a %zux%zux%zu frame was not written as a ratio frame\n",
                d[0], d[1], d[2]);
        exit(1);
    }
    return size;
}

/* The ratio seeds (see the top of the file). */
static void ratio_seeds(void)
{
    static const size_t shapes[][3] = {{300, 1, 1}, {24, 20, 1}, {8, 8, 10}, {5, 7, 9}};
    static double v[1024];
    static unsigned char z[3][16384];
    size_t sz[3], k;
    unsigned cfg;
    for (cfg = 0; cfg < 16; ++cfg) {
        ghz_params_t p = GHZ_PARAMS_INIT;
        params_of(cfg, &p);
        for (k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
            sz[0] = ratio_frame(&p, shapes[k], v, cfg * 4 + (unsigned)k, z[0], sizeof z[0]);
            put("decode", z[0], sz[0], NULL, 0);
            put("cli_reader", z[0], sz[0], NULL, 0);
        }
        /* A stream: ratio frame, block frame, ratio frame of another shape. */
        sz[0] = ratio_frame(&p, shapes[cfg % 4], v, cfg, z[0], sizeof z[0]);
        p.prefer = GHZ_PREFER_SPEED;
        values(v, 100, cfg, -9999.0);
        sz[1] = frame(&p, v, 100, z[1], sizeof z[1]);
        sz[2] = ratio_frame(&p, shapes[(cfg + 1) % 4], v, cfg + 1, z[2], sizeof z[2]);
        memcpy(z[0] + sz[0], z[1], sz[1]);
        memcpy(z[0] + sz[0] + sz[1], z[2], sz[2]);
        put("decode", z[0], sz[0] + sz[1] + sz[2], NULL, 0);
        put("cli_reader", z[0], sz[0] + sz[1] + sz[2], NULL, 0);
        /* Homomorphic operands: a ratio frame and a block frame of as many values (the
         * operations refuse ratio frames: GHZ_ERR_UNSUPPORTED). */
        sz[0] = ratio_frame(&p, shapes[2], v, cfg + 9, z[0] + 5, sizeof z[0] - 5);
        p.prefer = GHZ_PREFER_SPEED;
        sz[1] = frame(&p, v, 640, z[1], sizeof z[1]);
        z[0][0] = (unsigned char)cfg;
        for (k = 0; k < 4; ++k) z[0][1 + k] = (unsigned char)(sz[0] >> (8 * k));
        if (cfg & 1)
            put("homo", z[0], 5 + sz[0], z[1], sz[1]);
        else
            put("homo", z[0], 5 + sz[0], z[0] + 5, sz[0]);
    }
    {
        /* Lossless (REL over a constant field: E = 0), with NaN among the values. */
        ghz_params_t p = GHZ_PARAMS_INIT;
        const size_t d[3] = {6, 6, 6};
        for (k = 0; k < 216; ++k) v[k] = k % 37 == 4 ? NAN : 2.5;
        p.prefer = GHZ_PREFER_RATIO;
        p.dims[0] = d[0];
        p.dims[1] = d[1];
        p.dims[2] = d[2];
        sz[0] = frame(&p, v, 216, z[0], sizeof z[0]);
        put("decode", z[0], sz[0], NULL, 0);
        put("cli_reader", z[0], sz[0], NULL, 0);
    }
    {
        /* 2^18 equal f32 values, 64^3: passes of more than 2^16 symbols take two chunks
         * of 32 lanes; the symbols cost no bits, so the frame stays small. */
        ghz_params_t p = GHZ_PARAMS_INIT;
        const size_t n = (size_t)1 << 18;
        float* c = (float*)malloc(n * sizeof *c);
        unsigned char* out = (unsigned char*)malloc(ghz_compress_bound(n, GHZ_F32));
        ghz_frame_info_t fi;
        size_t size = 0;
        if (!c || !out) exit(1);
        for (k = 0; k < n; ++k) c[k] = 7.0f;
        p.eb_mode = GHZ_EB_ABS;
        p.eb = 0.01;
        p.prefer = GHZ_PREFER_RATIO;
        p.dims[0] = p.dims[1] = p.dims[2] = 64;
        if (ghz_compress(&p, c, n, out, ghz_compress_bound(n, GHZ_F32), &size) != GHZ_SUCCESS ||
            ghz_frame_info(out, size, &fi) != GHZ_SUCCESS || fi.prefer != GHZ_PREFER_RATIO ||
            size > 8192) {
            fprintf(stderr, "make_seeds: the constant 64^3 ratio frame failed (%zu bytes)\n", size);
            exit(1);
        }
        put("decode", out, size, NULL, 0);
        put("cli_reader", out, size, NULL, 0);
        free(c);
        free(out);
    }
}

int main(int argc, char** argv)
{
    static const size_t ns[] = {0, 1, 33, 200, 300};
    static double v[1024];
    static unsigned char z[3][16384];
    size_t sz[3];
    unsigned cfg;
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds OUTDIR\n");
        return 2;
    }
    g_out = argv[1];
    {
        static const char* const dirs[] = {"", "/decode", "/cli_reader", "/roundtrip", "/homo"};
        char path[4096];
        for (cfg = 0; cfg < 5; ++cfg) {
            snprintf(path, sizeof path, "%s%s", g_out, dirs[cfg]);
            mkdir(path, 0755); /* an existing directory is fine; a failure shows in put() */
        }
    }
    for (cfg = 0; cfg < 16; ++cfg) {
        ghz_params_t p = GHZ_PARAMS_INIT;
        unsigned char rt[16 + 8 * 300];
        size_t k, n;
        params_of(cfg, &p);
        for (k = 0; k < sizeof ns / sizeof ns[0]; ++k) {
            n = ns[k];
            values(v, n, 100 + cfg * 7 + (unsigned)k, -9999.0);
            sz[0] = frame(&p, v, n, z[0], sizeof z[0]);
            put("decode", z[0], sz[0], NULL, 0);
            put("cli_reader", z[0], sz[0], NULL, 0);
        }
        /* A stream of three frames (one empty) under one bound. */
        values(v, 300, cfg, -9999.0);
        sz[0] = frame(&p, v, 150, z[0], sizeof z[0]);
        sz[1] = frame(&p, v + 150, 0, z[1], sizeof z[1]);
        sz[2] = frame(&p, v + 150, 150, z[2], sizeof z[2]);
        memcpy(z[0] + sz[0], z[1], sz[1]);
        memcpy(z[0] + sz[0] + sz[1], z[2], sz[2]);
        put("decode", z[0], sz[0] + sz[1] + sz[2], NULL, 0);
        put("cli_reader", z[0], sz[0] + sz[1] + sz[2], NULL, 0);

        /* Fixed-rate frames (FIXED.md) for the CLI's reader, which takes both modes: one
         * alone (each l and dtype, sizes from ns), and one after an error-bounded frame. */
        {
            static const unsigned ls[] = {8, 16, 32};
            static float vf[300];
            const unsigned l = ls[cfg % 3];
            const size_t nf = ns[cfg % 5];
            size_t fsz = 0, j;
            values(v, nf, cfg + 70, -9999.0);
            for (j = 0; j < nf; ++j) vf[j] = (float)v[j];
            if (ghz_fixed_compress(p.dtype, l, p.dtype == GHZ_F32 ? (const void*)vf : (const void*)v, nf, z[1],
                                   sizeof z[1], &fsz) != GHZ_SUCCESS) {
                fprintf(stderr, "make_seeds: ghz_fixed_compress failed\n");
                exit(1);
            }
            put("cli_reader", z[1], fsz, NULL, 0);
            sz[0] = frame(&p, v, nf, z[0], sizeof z[0]);
            put("cli_reader", z[0], sz[0], z[1], fsz);
        }

        /* Homomorphic operands: two frames of the same shape and bound, and a pair
         * that differs in length. Input: op, length of A (u32 LE), A, B. */
        values(v, 200, cfg + 50, -9999.0);
        sz[0] = frame(&p, v, 200, z[0] + 5, sizeof z[0] - 5);
        values(v, 200, cfg + 60, -9999.0);
        sz[1] = frame(&p, v, 200 - (cfg & 1) * 7, z[1], sizeof z[1]);
        z[0][0] = (unsigned char)cfg;
        for (k = 0; k < 4; ++k) z[0][1 + k] = (unsigned char)(sz[0] >> (8 * k));
        put("homo", z[0], 5 + sz[0], z[1], sz[1]);

        /* Round-trip input: the 16 parameter bytes of fuzz_roundtrip.c, then values. */
        memset(rt, 0, sizeof rt);
        rt[0] = (unsigned char)cfg;
        rt[1] = (unsigned char)(cfg * 37);
        rt[2] = (unsigned char)(30 + cfg);
        values(v, 300, cfg + 90, -9999.0);
        if (p.dtype == GHZ_F32) {
            float fl = -9999.0f;
            memcpy(rt + 8, &fl, 4);
            for (k = 0; k < 300; ++k) {
                float x = (float)v[k];
                memcpy(rt + 16 + 4 * k, &x, 4);
            }
            put("roundtrip", rt, 16 + 4 * 300, NULL, 0);
        } else {
            double d = -9999.0;
            memcpy(rt + 8, &d, 8);
            memcpy(rt + 16, v, 8 * 300);
            put("roundtrip", rt, 16 + 8 * 300, NULL, 0);
        }
        /* The same with prefer ratio (bit 4) and a shape (bytes 3..5: fuzz_roundtrip.c):
         * 1-D, 15 x 20, 5 x 6 x 10. */
        rt[0] = (unsigned char)(cfg | 16u);
        rt[3] = (unsigned char)(cfg % 3);
        rt[4] = (unsigned char)(cfg % 3 == 1 ? 14 : 4);
        rt[5] = 5;
        put("roundtrip", rt, 16 + (p.dtype == GHZ_F32 ? 4 : 8) * 300, NULL, 0);
    }
    ratio_seeds();
    printf("make_seeds: %u seeds in %s\n", g_count, g_out);
    return 0;
}
