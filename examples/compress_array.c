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
 *   ghz-demo [--reps N] [--cpu]   (N: timed repetitions, default 3; --cpu: no GPU)
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
static const double RELS[] = {1e-2, 1e-3, 1e-4};
static const uint64_t SEED = 1;
static int g_gpu; /* run every case on the GPU too */

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

    for (size_t r = 0; r < sizeof RELS / sizeof RELS[0]; r++) {
        p.eb_mode = GHZ_EB_REL;
        p.eb = RELS[r];
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
        if (c.count == 0 || range <= 0)
            snprintf(psnr, sizeof psnr, "n/a");
        else if (c.sq_err == 0)
            snprintf(psnr, sizeof psnr, "inf");
        else
            snprintf(psnr, sizeof psnr, "%.2f",
                     20.0 * log10(range) - 10.0 * log10(c.sq_err / (double)c.count));
        char gpu[64] = "";
        if (g_gpu) {
            demo_gpu_result_t g;
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
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1)
                reps = 1;
        } else if (strcmp(argv[i], "--cpu") == 0) {
            use_gpu = 0;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: ghz-demo [--reps N] [--cpu]\n");
            return 0;
        } else {
            fprintf(stderr, "usage: ghz-demo [--reps N] [--cpu]\n");
            return 2;
        }
    }

    printf("ghz %s (format v%u): error-bounded compression of the generated fields\n",
           GHZ_VERSION_STRING, ghz_format_version());
    char gpu_name[256];
    g_gpu = use_gpu && demo_gpu_open(gpu_name, sizeof gpu_name);
    printf("CPU: reference backend, 1 thread (comp, decomp columns).\n");
    if (g_gpu)
        printf("GPU: %s, CUDA codec; it must write the CPU's bytes. GPU GB/s are for these\n"
               "     small fields (launch-bound); `ghz-bench codec` measures >= 1 GiB.\n",
               gpu_name);
    else
        printf("GPU: not used (%s): the demo runs on the CPU.\n",
               use_gpu ? gpu_name : "--cpu");
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
    if (failures) {
        printf("\nFAILED: %d check(s) failed\n", failures);
        return 1;
    }
    printf("\nAll bounds hold.\n");
    return 0;
}
