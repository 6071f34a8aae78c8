/* examples/compress_array.c: ghz-demo.
 *
 * Compresses the generated fields of datasets/ (at their default sizes) under three
 * REL bounds with the CPU reference codec on one thread, decompresses them, checks
 * every value against the bound the frame guarantees, and prints one table row per
 * (field, bound): ratio, bits/value, max error / bound, PSNR and throughput. Where the
 * CUDA codec is built and a GPU is present, every case runs on the GPU too, which must
 * write the CPU's bytes and decode to the CPU's values (demo_gpu.c).
 * Exits 1 when any bound is violated, the GPU differs, or any call fails.
 *
 *   ghz-demo [--reps N] [--cpu] [--rel LIST] [--json FILE]
 *
 * N: timed repetitions (default 3); --cpu: no GPU; LIST: the REL bounds, comma
 * separated (default 1e-2,1e-3,1e-4); FILE: the table's rows also as JSON lines, one
 * object per (field, bound), for scripts/codec_plots.py.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ghz/ghz.h"
#include "datasets/datasets.h"
#include "demo_gpu.h"

typedef struct {
    const char* name;
    int has_fill;
    float fill;
} field_t;

static const field_t FIELDS[] = {
    {"wave3d", 0, 0.0f},
    {"smooth2d", 0, 0.0f},
    {"noisy2d", 0, 0.0f},
    {"ocean2d", 1, GHZ_DS_OCEAN_FILL},
};
#define MAX_RELS 32
static double g_rels[MAX_RELS] = {1e-2, 1e-3, 1e-4};
static size_t g_nrels = 3;
static const uint64_t SEED = 1;
static int g_gpu;      /* run every case on the GPU too */
static FILE* g_json;   /* --json: one object per table row, or NULL */
static char g_gpu_name[256];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Compares the decoded values y with the input x: fill values and non-finite
 * inputs must come back bit for bit, every other value within eb_abs. */
typedef struct {
    double max_err; /* over the finite non-fill values */
    double sq_err;  /* sum of squared errors over the same values */
    size_t count;   /* how many values took part */
    size_t bad;     /* violations of any kind */
} check_t;

static check_t check_values(const float* x, const float* y, size_t n, const field_t* f,
                            double eb_abs)
{
    check_t c = {0.0, 0.0, 0, 0};
    const uint32_t fill_bits = f32_bits(f->fill);
    for (size_t i = 0; i < n; i++) {
        uint32_t xb = f32_bits(x[i]);
        if ((f->has_fill && xb == fill_bits) || !isfinite(x[i])) {
            if (f32_bits(y[i]) != xb)
                c.bad++;
            continue;
        }
        /* The difference of two floats, formed in double (exact for the
         * magnitudes these fields have). */
        double e = fabs((double)x[i] - (double)y[i]);
        if (!(e <= eb_abs))
            c.bad++;
        if (e > c.max_err)
            c.max_err = e;
        c.sq_err += e * e;
        c.count++;
    }
    return c;
}

static int fail(const char* what, const char* field, ghz_status_t st)
{
    fprintf(stderr, "ghz-demo: %s (%s): %s: %s\n", what, field, ghz_status_string(st),
            ghz_last_error_detail());
    return 1;
}

/* One table row as one JSON line (the printed digits' full values). */
typedef struct {
    const char* field;
    size_t nx, ny, nz, n;
    double rel, eb_abs, ratio, bpv, err_over_eb;
    double psnr;      /* dB; infinity: lossless; NaN: none */
    double comp_gbs, decomp_gbs;
    int ok;
    const demo_gpu_result_t* gpu; /* NULL: the GPU did not run */
} json_row_t;

static void json_row(const json_row_t* r)
{
    /* JSON has neither infinity nor NaN: a lossless row (infinite PSNR) and a row
     * without PSNR both write null, told apart by "lossless". */
    char psnr[32] = "null";
    if (isfinite(r->psnr))
        snprintf(psnr, sizeof psnr, "%.17g", r->psnr);
    fprintf(g_json,
            "{\"app\":\"ghz-demo\",\"version\":\"%s\",\"device\":\"CPU\",\"threads\":1,"
            "\"field\":\"%s\",\"dims\":[%zu,%zu,%zu],\"elements\":%zu,\"dtype\":\"f32\","
            "\"eb_mode\":\"rel\",\"rel\":%g,\"eb_abs\":%.17g,\"ratio\":%.17g,"
            "\"bits_per_value\":%.17g,\"max_err_over_eb\":%.17g,\"psnr\":%s,\"lossless\":%s,"
            "\"compress_gbs\":%.17g,\"decompress_gbs\":%.17g,\"ok\":%s",
            GHZ_VERSION_STRING, r->field, r->nx, r->ny, r->nz, r->n, r->rel, r->eb_abs, r->ratio,
            r->bpv, r->err_over_eb, psnr,
            isinf(r->psnr) ? "true" : "false", r->comp_gbs, r->decomp_gbs,
            r->ok ? "true" : "false");
    if (r->gpu)
        fprintf(g_json,
                ",\"gpu\":\"%s\",\"gpu_compress_gbs\":%.17g,\"gpu_decompress_gbs\":%.17g,"
                "\"gpu_identical\":%s",
                g_gpu_name, r->gpu->comp_gbs, r->gpu->decomp_gbs,
                r->gpu->same_bytes && r->gpu->decoded_same ? "true" : "false");
    fprintf(g_json, "}\n");
    fflush(g_json);
}

/* Parses "a,b,c" into g_rels; 0 when any value is not a positive number. */
static int parse_rels(const char* s)
{
    size_t k = 0;
    while (*s) {
        char* end;
        double v = strtod(s, &end);
        if (end == s || !(v > 0.0) || !isfinite(v) || k == MAX_RELS)
            return 0;
        g_rels[k++] = v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return 0;
    }
    if (k == 0)
        return 0;
    g_nrels = k;
    return 1;
}

/* Runs one field at every bound; returns the number of failures. */
static int run_field(const field_t* f, int reps)
{
    size_t dims[3] = {0, 0, 0};
    int rc = ghz_ds_default_dims(f->name, dims);
    if (rc != GHZ_DS_OK) {
        fprintf(stderr, "ghz-demo: %s: %s\n", f->name, ghz_ds_strerror(rc));
        return 1;
    }
    size_t nx = dims[0] ? dims[0] : 1, ny = dims[1] ? dims[1] : 1, nz = dims[2] ? dims[2] : 1;
    size_t n = nx * ny * nz;
    size_t cap = ghz_compress_bound(n, GHZ_F32);
    float* x = malloc(n * sizeof *x);
    float* y = malloc(n * sizeof *y);
    unsigned char* z = malloc(cap);
    int failures = 0;
    if (!x || !y || !z || cap == 0) {
        fprintf(stderr, "ghz-demo: out of memory for %s (%zu values)\n", f->name, n);
        failures = 1;
        goto done;
    }
    rc = ghz_ds_generate(f->name, nx, ny, nz, SEED, x);
    if (rc != GHZ_DS_OK) {
        fprintf(stderr, "ghz-demo: generating %s: %s\n", f->name, ghz_ds_strerror(rc));
        failures = 1;
        goto done;
    }

    /* Value range over the finite non-fill values, for PSNR. */
    ghz_params_t p = GHZ_PARAMS_INIT;
    p.dtype = GHZ_F32;
    p.has_fill = f->has_fill;
    p.fill = f->fill;
    double vmin = 0.0, vmax = 0.0;
    uint64_t nvalid = 0;
    ghz_status_t st = ghz_value_range(&p, x, n, &vmin, &vmax, &nvalid);
    if (st != GHZ_SUCCESS) {
        failures = fail("ghz_value_range", f->name, st);
        goto done;
    }
    double range = vmax - vmin;

    char shape[64];
    if (nz > 1)
        snprintf(shape, sizeof shape, "%zux%zux%zu", nx, ny, nz);
    else
        snprintf(shape, sizeof shape, "%zux%zu", nx, ny);

    for (size_t r = 0; r < g_nrels; r++) {
        p.eb_mode = GHZ_EB_REL;
        p.eb = g_rels[r];
        p.nthreads = 1;
        p.exec = GHZ_EXEC_CPU;

        size_t zsize = 0;
        double tc = INFINITY, td = INFINITY;
        for (int k = 0; k < reps; k++) {
            double t0 = now_s();
            st = ghz_compress(&p, x, n, z, cap, &zsize);
            double t1 = now_s();
            if (st != GHZ_SUCCESS) {
                failures += fail("ghz_compress", f->name, st);
                goto done;
            }
            if (t1 - t0 < tc)
                tc = t1 - t0;
        }
        for (int k = 0; k < reps; k++) {
            size_t nout = 0;
            memset(y, 0xFF, n * sizeof *y); /* stale output must not pass the check */
            double t0 = now_s();
            st = ghz_decompress_mt(z, zsize, y, n * sizeof *y, &nout, 1);
            double t1 = now_s();
            if (st != GHZ_SUCCESS || nout != n) {
                failures += fail("ghz_decompress_mt", f->name, st);
                goto done;
            }
            if (t1 - t0 < td)
                td = t1 - t0;
        }

        ghz_frame_info_t info;
        st = ghz_frame_info(z, zsize, &info);
        if (st != GHZ_SUCCESS) {
            failures += fail("ghz_frame_info", f->name, st);
            goto done;
        }
        check_t c = check_values(x, y, n, f, info.eb_abs);
        int ok = c.bad == 0;
        if (!ok) {
            fprintf(stderr, "ghz-demo: %s REL %.0e: %zu values violate the bound %.6g\n",
                    f->name, p.eb, c.bad, info.eb_abs);
            failures++;
        }

        double raw_bytes = (double)n * sizeof(float);
        double ratio = raw_bytes / (double)zsize;
        double bpv = 8.0 * (double)zsize / (double)n;
        double err_ratio = info.eb_abs > 0 ? c.max_err / info.eb_abs : 0.0;
        char psnr[32];
        double psnr_db = NAN; /* NaN: none (no values, or a constant field) */
        if (c.count == 0 || range <= 0) {
            snprintf(psnr, sizeof psnr, "n/a");
        } else if (c.sq_err == 0) {
            psnr_db = INFINITY;
            snprintf(psnr, sizeof psnr, "inf");
        } else {
            psnr_db = 20.0 * log10(range) - 10.0 * log10(c.sq_err / (double)c.count);
            snprintf(psnr, sizeof psnr, "%.2f", psnr_db);
        }
        char gpu[64] = "";
        demo_gpu_result_t g = {0};
        if (g_gpu) {
            st = demo_gpu_run(&p, x, n, z, zsize, y, reps, &g);
            if (st != GHZ_SUCCESS) {
                failures += fail("GPU codec", f->name, st);
                goto done;
            }
            if (!g.same_bytes || !g.decoded_same) {
                fprintf(stderr, "ghz-demo: %s REL %.0e: the GPU's %s differ from the CPU's\n",
                        f->name, p.eb, g.same_bytes ? "decoded values" : "bytes");
                failures++;
            }
            snprintf(gpu, sizeof gpu, "  %8.1f %7.1f  %s", g.comp_gbs, g.decomp_gbs,
                     g.same_bytes && g.decoded_same ? "same" : "DIFFER");
        }
        printf("%-9s %-13s %10zu  %5.0e %8.2f %6.3f %7.4f %8s %7.3f %7.3f  %-8s%s\n", f->name,
               shape, n, p.eb, ratio, bpv, err_ratio, psnr, raw_bytes / tc / 1e9,
               raw_bytes / td / 1e9, ok ? "ok" : "VIOLATED", gpu);
        fflush(stdout);
        if (g_json) {
            json_row_t row = {f->name, nx, ny, nz, n, p.eb, info.eb_abs, ratio, bpv, err_ratio,
                              psnr_db, raw_bytes / tc / 1e9, raw_bytes / td / 1e9, ok, g_gpu ? &g : NULL};
            json_row(&row);
        }
    }

done:
    free(x);
    free(y);
    free(z);
    return failures;
}

int main(int argc, char** argv)
{
    int reps = 3, use_gpu = 1;
    const char* json_path = NULL;
    static const char usage[] = "usage: ghz-demo [--reps N] [--cpu] [--rel LIST] [--json FILE]\n";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1)
                reps = 1;
        } else if (strcmp(argv[i], "--cpu") == 0) {
            use_gpu = 0;
        } else if (strcmp(argv[i], "--rel") == 0 && i + 1 < argc) {
            if (!parse_rels(argv[++i])) {
                fprintf(stderr, "ghz-demo: --rel wants up to %d positive numbers, comma "
                        "separated: %s\n", MAX_RELS, argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json_path = argv[++i];
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("%s", usage);
            return 0;
        } else {
            fprintf(stderr, "%s", usage);
            return 2;
        }
    }
    if (json_path && !(g_json = fopen(json_path, "w"))) {
        fprintf(stderr, "ghz-demo: cannot write %s\n", json_path);
        return 2;
    }

    printf("ghz %s (format v%u): error-bounded compression of the generated fields\n",
           GHZ_VERSION_STRING, ghz_format_version());
    g_gpu = use_gpu && demo_gpu_open(g_gpu_name, sizeof g_gpu_name);
    printf("CPU: reference backend, 1 thread (comp, decomp columns).\n");
    if (g_gpu)
        printf("GPU: %s, CUDA codec; it must write the CPU's bytes. GPU GB/s are for these\n"
               "     small fields (launch-bound); `ghz-bench codec` measures >= 1 GiB.\n",
               g_gpu_name);
    else
        printf("GPU: not used (%s): the demo runs on the CPU.\n",
               use_gpu ? g_gpu_name : "--cpu");
    printf("float32 data, REL bounds; max err/bound <= 1 on every non-fill value is "
           "checked, fill values must be exact.\n");
    printf("PSNR over non-fill values (range = max - min); GB/s of uncompressed data, "
           "best of %d.\n\n",
           reps);
    printf("%-9s %-13s %10s  %5s %8s %6s %7s %8s %7s %7s  %-8s%s\n", "field", "dims",
           "elements", "REL", "ratio", "bits/v", "err/eb", "PSNR dB", "comp", "decomp",
           "check", g_gpu ? "  GPU:comp  decomp  bytes" : "");
    printf("%-9s %-13s %10s  %5s %8s %6s %7s %8s %7s %7s  %-8s%s\n", "", "", "", "", "", "",
           "", "", "GB/s", "GB/s", "", g_gpu ? "      GB/s    GB/s" : "");

    int failures = 0;
    for (size_t i = 0; i < sizeof FIELDS / sizeof FIELDS[0]; i++)
        failures += run_field(&FIELDS[i], reps);

    demo_gpu_close();
    if (g_json && fclose(g_json) != 0) {
        fprintf(stderr, "ghz-demo: writing %s failed\n", json_path);
        failures++;
    }
    if (failures) {
        printf("\nFAILED: %d check(s) failed\n", failures);
        return 1;
    }
    printf("\nAll bounds hold.\n");
    return 0;
}
