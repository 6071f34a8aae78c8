/* examples/image_stacking/stacking.c: ghz-image-stacking, the mean of many frames over
 * MPI with a compressed allreduce under a stated bound.
 *
 *   mpirun -np N ghz-image-stacking [options] FRAME...
 *
 * Each rank sums its block of the frames locally, then one ghz_allreduce (SUM, f32)
 * adds the partial sums of all ranks, lossy under the bound given by --abs or --rel;
 * dividing by the frame count gives the stacked (mean) image. The same allreduce with
 * acc = NULL (exact) is the reference: the program reports PSNR and NRMSE of the lossy
 * stack against it, the maximum error against the bound the library resolved
 * (ghz_comm_info), the compression ratio, and the measured time of both collectives,
 * and exits 1 if any pixel breaks the bound. Rank 0 writes the stack as raw f32, 16-bit
 * PGM and an 8-bit PNG with a display stretch.
 * Exit status: 0 success, 1 failure or a broken bound, 2 usage error. */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"
#include "frame_list.h"
#include "ghz/coll/coll_mpi.h"
#include "image_io.h"

static const char* PROG = "ghz-image-stacking";

typedef struct {
    size_t width, height;
    size_t generate;  /* > 0: this many generated frames instead of files */
    unsigned long long seed;
    ghz_eb_mode_t mode;
    double bound;     /* --abs: on the mean, in pixel units; --rel: passed to ghz */
    ghz_path_t path;
    ghz_algo_t algo;
    int reps;
    const char* out;  /* output prefix, NULL: write nothing */
    int json;
    char** files;     /* the FRAME operands, wherever they stand among the options */
    int n_files;
} options_t;

static void usage(FILE* fp)
{
    fprintf(fp,
            "usage: mpirun -np N %s [options] FRAME... (options may follow FRAMEs; -- ends them)\n"
            "       mpirun -np N %s [options] --generate COUNT\n"
            "\n"
            "Stacks (averages) the frames over the ranks with a compressed ghz_allreduce\n"
            "whose error on the final result is bounded, and compares it with the exact\n"
            "allreduce. FRAME files: raw little-endian float32 (one or more frames of\n"
            "--width x --height each) or binary PGM (8 or 16 bit).\n"
            "\n"
            "  -W, --width N        raw frame width\n"
            "  -H, --height N       raw frame height\n"
            "      --generate COUNT stack COUNT synthetic frames (datasets/frames.c; size\n"
            "                       from --width/--height, default 512 x 512)\n"
            "      --seed S         scene seed of --generate (default 1)\n"
            "      --abs E          |stack - exact stack| <= E for every pixel (pixel units)\n"
            "      --rel E          ghz's REL bound on the sum: |sum - exact| <= E * (max -\n"
            "                       min of all ranks' partial sums); the stack's bound is\n"
            "                       that over the frame count (default: --rel 1e-4)\n"
            "      --path P         auto | homo | doc (default auto)\n"
            "      --algo A         auto | ring | recdbl | pairwise (default auto)\n"
            "      --reps N         timed repetitions of each allreduce (default 5)\n"
            "  -o, --out PREFIX     write PREFIX.f32, PREFIX.pgm, PREFIX.png (default stack)\n"
            "      --no-write       write no image\n"
            "      --json           also print one JSON line with the results\n"
            "  -h, --help           this help\n",
            PROG, PROG);
}

static int parse_size(const char* s, size_t* v)
{
    char* end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end || x == 0 || x > 1000000000ULL)
        return -1;
    *v = (size_t)x;
    return 0;
}

static int parse_bound(const char* s, double* v)
{
    char* end;
    if (!s)
        return -1;
    errno = 0;
    *v = strtod(s, &end);
    return (errno || *end || !(*v > 0.0) || !isfinite(*v)) ? -1 : 0;
}

/* Returns 0 to run, 1 for --help, 2 for a usage error (printed by rank 0). */
static int parse(int argc, char** argv, options_t* o, int rank)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->mode = GHZ_EB_REL;
    o->bound = 1e-4;
    o->path = GHZ_PATH_AUTO;
    o->algo = GHZ_ALGO_AUTO;
    o->reps = 5;
    o->out = "stack";
    const char* bad = NULL;
    int i, only_files = 0;
    o->files = (char**)calloc((size_t)argc, sizeof *o->files);
    if (!o->files) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        return 2;
    }
    for (i = 1; i < argc && !bad; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        size_t z;
        if (only_files || a[0] != '-' || !a[1]) {
            o->files[o->n_files++] = argv[i]; /* a FRAME ("-" alone too) */
        } else if (!strcmp(a, "--")) {
            only_files = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (rank == 0)
                usage(stdout);
            return 1;
        } else if (!strcmp(a, "-W") || !strcmp(a, "--width")) {
            bad = parse_size(v, &o->width) ? a : NULL;
            i++;
        } else if (!strcmp(a, "-H") || !strcmp(a, "--height")) {
            bad = parse_size(v, &o->height) ? a : NULL;
            i++;
        } else if (!strcmp(a, "--generate")) {
            bad = parse_size(v, &o->generate) ? a : NULL;
            i++;
        } else if (!strcmp(a, "--seed")) {
            bad = parse_size(v, &z) ? a : NULL;
            o->seed = z;
            i++;
        } else if (!strcmp(a, "--abs") || !strcmp(a, "--rel")) {
            o->mode = a[2] == 'a' ? GHZ_EB_ABS : GHZ_EB_REL;
            bad = parse_bound(v, &o->bound) ? a : NULL;
            i++;
        } else if (!strcmp(a, "--path")) {
            o->path = !v ? (ghz_path_t)-1
                    : !strcmp(v, "auto") ? GHZ_PATH_AUTO
                    : !strcmp(v, "homo") ? GHZ_PATH_HOMO
                    : !strcmp(v, "doc")  ? GHZ_PATH_DOC : (ghz_path_t)-1;
            bad = (int)o->path < 0 ? a : NULL;
            i++;
        } else if (!strcmp(a, "--algo")) {
            o->algo = !v ? (ghz_algo_t)-1
                    : !strcmp(v, "auto")     ? GHZ_ALGO_AUTO
                    : !strcmp(v, "ring")     ? GHZ_ALGO_RING
                    : !strcmp(v, "recdbl")   ? GHZ_ALGO_RECURSIVE_DOUBLING
                    : !strcmp(v, "pairwise") ? GHZ_ALGO_PAIRWISE : (ghz_algo_t)-1;
            bad = (int)o->algo < 0 ? a : NULL;
            i++;
        } else if (!strcmp(a, "--reps")) {
            bad = parse_size(v, &z) || z > 100000 ? a : NULL;
            o->reps = (int)z;
            i++;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            bad = v ? NULL : a;
            o->out = v;
            i++;
        } else if (!strcmp(a, "--no-write")) {
            o->out = NULL;
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else {
            bad = a;
        }
    }
    if (!bad && o->generate == 0 && o->n_files == 0)
        bad = "no FRAME given";
    if (!bad && o->generate > 0 && o->n_files > 0)
        bad = "FRAME files and --generate";
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "%s: bad or missing value: %s\nTry '%s --help'.\n", PROG, bad,
                    PROG);
        return 2;
    }
    if (o->generate > 0) {
        o->width = o->width ? o->width : 512;
        o->height = o->height ? o->height : 512;
    }
    return 0;
}

/* Nonzero on every rank when ok is nonzero on every rank. */
static int all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* Runs the allreduce reps times (after one untimed call); returns the best over the
 * repetitions of the slowest rank's time, in seconds, or a negative value on failure.
 * The result of the last call stays in out. */
static double timed_allreduce(const float* in, float* out, size_t n,
                              const ghz_accuracy_t* acc, ghz_comm_t* comm, int reps,
                              ghz_status_t* st)
{
    double best = HUGE_VAL;
    for (int r = -1; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        *st = ghz_allreduce(in, out, n, GHZ_F32, GHZ_OP_SUM, acc, comm, NULL);
        double t = MPI_Wtime() - t0, tmax = 0.0;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (!all_ok(*st == GHZ_SUCCESS))
            return -1.0;
        if (r >= 0 && tmax < best)
            best = tmax;
    }
    return best;
}

typedef struct {
    double maxerr;     /* max |lossy - exact| over the mean image */
    double rmse;
    double range;      /* max - min of the exact mean */
    double psnr, nrmse;
    size_t worst;      /* where maxerr is */
} compare_t;

static compare_t compare(const float* lossy, const float* exact, size_t n, double scale)
{
    compare_t c = {0.0, 0.0, 0.0, 0.0, 0.0, 0};
    double lo = HUGE_VAL, hi = -HUGE_VAL, s2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = (double)exact[i] * scale, d = fabs((double)lossy[i] * scale - e);
        if (d > c.maxerr) {
            c.maxerr = d;
            c.worst = i;
        }
        s2 += d * d;
        lo = fmin(lo, e);
        hi = fmax(hi, e);
    }
    c.rmse = sqrt(s2 / (double)(n ? n : 1));
    c.range = hi - lo;
    c.nrmse = c.range > 0.0 ? c.rmse / c.range : 0.0;
    c.psnr = c.rmse > 0.0 ? 20.0 * log10(c.range / c.rmse) : INFINITY;
    return c;
}

/* How the lossy call combined: ghz runs small messages exact even when asked for a
 * bound (GHZ_PATH_AUTO), which the report must say. */
static const char* path_name(const ghz_coll_info_t* info)
{
    if (!info->lossy || info->path == GHZ_PATH_AUTO)
        return "exact (GHZ_PATH_AUTO chose it: below its size threshold, or compression measured slower here)";
    return info->path == GHZ_PATH_HOMO ? "homo" : info->path == GHZ_PATH_DOC ? "doc" : "auto";
}

static int write_outputs(const char* prefix, const float* mean, size_t w, size_t h)
{
    char path[4096], err[IMG_ERR_LEN];
    const size_t n = w * h;
    float lo = mean[0], hi = mean[0];
    for (size_t i = 1; i < n; i++) {
        lo = mean[i] < lo ? mean[i] : lo;
        hi = mean[i] > hi ? mean[i] : hi;
    }
    unsigned char* px = malloc(n);
    int rc = px ? 0 : -1;
    snprintf(path, sizeof path, "%s.f32", prefix);
    if (rc == 0 && ghz_ds_save_raw(path, mean, n * sizeof *mean) != 0) {
        snprintf(err, sizeof err, "cannot write the .f32 file");
        rc = -1;
    }
    snprintf(path, sizeof path, "%s.pgm", prefix);
    if (rc == 0)
        rc = img_write_pgm16(path, mean, w, h, lo, hi, err);
    snprintf(path, sizeof path, "%s.png", prefix);
    if (rc == 0) {
        img_stretch8(mean, n, px);
        rc = img_write_png8(path, px, w, h, err);
    }
    free(px);
    if (rc != 0)
        fprintf(stderr, "%s: %s\n", PROG, px ? err : "out of memory");
    else
        printf("wrote %s.f32 (the mean, raw float32), %s.pgm (16-bit, %g .. %g), "
               "%s.png (asinh stretch)\n",
               prefix, prefix, (double)lo, (double)hi, prefix);
    return rc;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    options_t o;
    int prc = parse(argc, argv, &o, rank);
    if (prc != 0) {
        free(o.files);
        MPI_Finalize();
        return prc == 1 ? 0 : 2;
    }

    char err[IMG_ERR_LEN] = "";
    frame_list_t fl;
    int ok = 1;
    if (o.generate > 0)
        frames_generated(&fl, o.generate, o.width, o.height, o.seed);
    else
        ok = frames_open(&fl, o.n_files, o.files, o.width, o.height,
                         err) == 0;
    if (!all_ok(ok)) {
        if (!ok)
            fprintf(stderr, "%s: rank %d: %s\n", PROG, rank, err);
        frames_close(&fl);
        MPI_Finalize();
        return 1;
    }
    const size_t n = fl.width * fl.height;
    size_t first, count;
    frames_share(&fl, rank, size, &first, &count);

    float* sum = malloc(n * sizeof *sum);
    float* scratch = malloc(n * sizeof *scratch);
    float* exact = malloc(n * sizeof *exact);
    float* lossy = malloc(n * sizeof *lossy);
    double vmin = HUGE_VAL, vmax = -HUGE_VAL;
    ok = sum && scratch && exact && lossy;
    if (!ok)
        snprintf(err, sizeof err, "out of memory");
    double t_read = MPI_Wtime();
    if (ok)
        ok = frames_sum(&fl, first, count, sum, scratch, &vmin, &vmax, err) == 0;
    t_read = MPI_Wtime() - t_read;
    ghz_comm_t* comm = NULL;
    ghz_status_t st = GHZ_SUCCESS;
    if (all_ok(ok)) {
        ghz_comm_config_t cfg;
        ghz_comm_config_init(&cfg);
        cfg.allreduce_algo = o.algo;
        st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &comm);
        if (st != GHZ_SUCCESS) {
            snprintf(err, sizeof err, "ghz_comm_init: %s", ghz_last_error_detail());
            ok = 0;
        }
    } else {
        ok = 0;
    }
    if (!all_ok(ok)) {
        if (err[0])
            fprintf(stderr, "%s: rank %d: %s\n", PROG, rank, err);
        ghz_comm_destroy(comm);
        MPI_Finalize();
        return 1;
    }
    double gmin, gmax;
    MPI_Allreduce(&vmin, &gmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&vmax, &gmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    /* --abs bounds the mean: the sum may then be off by the frame count times more */
    const double frames = (double)fl.total;
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    acc.mode = o.mode;
    acc.bound = o.mode == GHZ_EB_ABS ? o.bound * frames : o.bound;
    acc.path = o.path;

    double t_exact = timed_allreduce(sum, exact, n, NULL, comm, o.reps, &st);
    double t_lossy = t_exact >= 0.0 ? timed_allreduce(sum, lossy, n, &acc, comm, o.reps, &st)
                                    : -1.0;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    if (t_lossy >= 0.0)
        st = ghz_comm_info(comm, &info);
    if (t_exact < 0.0 || t_lossy < 0.0 || st != GHZ_SUCCESS) {
        if (st != GHZ_SUCCESS)
            fprintf(stderr, "%s: rank %d: %s: %s\n", PROG, rank, ghz_status_string(st),
                    ghz_last_error_detail());
        ghz_comm_destroy(comm);
        MPI_Finalize();
        return 1;
    }

    /* the bound is checked on the sum (what the library guarantees) on every rank */
    compare_t cs = compare(lossy, exact, n, 1.0);
    int held = cs.maxerr <= info.bound_abs;
    int all_held = all_ok(held);
    unsigned long long wire = info.wire_bytes, logical = info.logical_bytes, twire = 0,
                       tlogical = 0;
    MPI_Reduce(&wire, &twire, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&logical, &tlogical, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double t_read_max = 0.0;
    MPI_Reduce(&t_read, &t_read_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    int rc = all_held ? 0 : 1;
    if (rank == 0) {
        const double inv = 1.0 / frames;
        for (size_t i = 0; i < n; i++) {
            lossy[i] = (float)((double)lossy[i] * inv);
            exact[i] = (float)((double)exact[i] * inv);
        }
        compare_t cm = compare(lossy, exact, n, 1.0);
        const double mean_bound = info.bound_abs * inv;
        const double ratio = twire > 0 ? (double)tlogical / (double)twire : 0.0;
        printf("ghz-image-stacking: %zu frames of %zu x %zu over %d ranks (%zu..%zu per "
               "rank), pixel values %g .. %g, read and summed in %.3f s\n",
               fl.total, fl.width, fl.height, size, fl.total / (size_t)size,
               (fl.total + (size_t)size - 1) / (size_t)size, gmin, gmax, t_read_max);
        printf("bound on the stack: %.6g per pixel (%s %g on the sum, resolved by ghz to "
               "%.6g; divided by %zu frames)\n",
               mean_bound, o.mode == GHZ_EB_ABS ? "ABS" : "REL", acc.bound, info.bound_abs,
               fl.total);
        printf("allreduce of %zu floats (%.2f MiB), measured here: exact %.3f ms, ghz %s/%s "
               "%.3f ms (%.2fx the exact time)\n",
               n, (double)n * 4.0 / 1048576.0, t_exact * 1e3, ghz_algo_name(info.algo),
               path_name(&info), t_lossy * 1e3, t_exact > 0.0 ? t_lossy / t_exact : 0.0);
        if (info.lossy && info.path != GHZ_PATH_AUTO)
            printf("bytes sent by all ranks: %.2f MiB of values as %.2f MiB compressed, ratio %.2f\n",
                   (double)tlogical / 1048576.0, (double)twire / 1048576.0, ratio);
        else /* AUTO ran exact: nothing was compressed, so there is no ratio to show */
            printf("bytes sent by all ranks: %.2f MiB, uncompressed (GHZ_PATH_AUTO ran the exact "
                   "allreduce, faster on this link; --path homo runs the compressed one)\n",
                   (double)tlogical / 1048576.0);
        printf("stack vs exact stack: max error %.6g (%.3f of the bound) at pixel (%zu, %zu), "
               "PSNR %.2f dB, NRMSE %.3g\n",
               cm.maxerr, mean_bound > 0.0 ? cm.maxerr / mean_bound : 0.0, cm.worst % fl.width,
               cm.worst / fl.width, cm.psnr, cm.nrmse);
        printf("bound %s (sum: max error %.6g <= %.6g on every rank: %s)\n",
               all_held ? "HELD" : "BROKEN", cs.maxerr, info.bound_abs,
               all_held ? "yes" : "no");
        char psnr_json[32] = "null"; /* JSON has no infinity: identical images */
        if (isfinite(cm.psnr))
            snprintf(psnr_json, sizeof psnr_json, "%.4f", cm.psnr);
        if (o.json)
            printf("{\"app\":\"image_stacking\",\"coll\":\"allreduce\",\"size\":%zu,"
                   "\"frames\":%zu,\"width\":%zu,\"height\":%zu,"
                   "\"nranks\":%d,\"algo\":\"%s\",\"path\":\"%s\",\"bound_abs\":%.9g,"
                   "\"maxerr\":%.9g,\"psnr\":%s,\"nrmse\":%.6g,\"ratio\":%.4f,"
                   "\"time_exact_us\":%.3f,\"time_us\":%.3f,\"held\":%s}\n",
                   n * sizeof(float), fl.total, fl.width, fl.height, size,
                   ghz_algo_name(info.algo),
                   path_name(&info)[0] == 'e' ? "exact" : path_name(&info), mean_bound,
                   cm.maxerr, psnr_json, cm.nrmse, ratio,
                   t_exact * 1e6, t_lossy * 1e6, all_held ? "true" : "false");
        if (o.out && write_outputs(o.out, lossy, fl.width, fl.height) != 0)
            rc = 1;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(sum);
    free(scratch);
    free(exact);
    free(o.files);
    free(lossy);
    frames_close(&fl);
    ghz_comm_destroy(comm);
    MPI_Finalize();
    return rc;
}
