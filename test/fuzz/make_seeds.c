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
 * and after an error-bounded one, each under 4 KiB so the fuzzer mutates them fast. */
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
        p.dtype = (cfg & 1) ? GHZ_F64 : GHZ_F32;
        p.eb_mode = (cfg & 2) ? GHZ_EB_REL : GHZ_EB_ABS;
        p.eb = (cfg & 2) ? 1e-3 : 0.05;
        p.has_fill = (cfg & 4) != 0;
        p.fill = -9999.0;
        p.checksum = (cfg & 8) != 0;
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
    }
    printf("make_seeds: %u seeds in %s\n", g_count, g_out);
    return 0;
}
