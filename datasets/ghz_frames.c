/* datasets/ghz_frames.c: ghz-frames, writes a stack of astronomical frames as files.
 *
 *   ghz-frames [-W WIDTH] [-H HEIGHT] [-n FRAMES] [-s SEED] [options] -o PREFIX
 *
 * Frame k goes to PREFIX_kkk.f32 (raw little-endian float32, x fastest) or, with
 * --pgm, PREFIX_kkk.pgm (16-bit binary PGM), so each file is one frame that a tool
 * like ghz-image-stacking can take on its command line. ghz-datagen frames writes the
 * same frames concatenated into one file instead. Exit status: 0 success, 1 failure
 * while generating or writing, 2 usage error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"

static const char* PROG = "ghz-frames";

static void usage(FILE* fp)
{
    fprintf(fp,
            "usage: %s [-W WIDTH] [-H HEIGHT] [-n FRAMES] [-s SEED] [options] -o PREFIX\n"
            "\n"
            "Writes FRAMES frames of one synthetic sky scene (stars, galaxies, a sky\n"
            "gradient) with per-frame photon and read noise, sub-pixel jitter, hot pixels\n"
            "and cosmic rays, in whole ADU, to PREFIX_000.f32, PREFIX_001.f32, ...\n"
            "\n"
            "  -W, --width N          frame width (default 512)\n"
            "  -H, --height N         frame height (default 512)\n"
            "  -n, --frames N         number of frames (default 8)\n"
            "  -s, --seed N           scene and noise seed (default 1)\n"
            "  -o, --output PREFIX    output prefix (required)\n"
            "      --first K          index of the first frame (default 0)\n"
            "      --pgm              16-bit binary PGM files (values clipped to 65535)\n"
            "      --truth FILE       also write the noise-free, unshifted scene (raw f32)\n"
            "      --scene FILE       use this raw f32 WIDTH x HEIGHT image, in e-, as the\n"
            "                         scene (e.g. a real image from datasets/real_frames/)\n"
            "      --sky E            sky level, e- per pixel (default 300)\n"
            "      --read-noise E     read noise, e- rms (default 5)\n"
            "      --fwhm PX          PSF FWHM in pixels (default 3)\n"
            "      --jitter PX        max shift per axis, pixels (default 0.5)\n"
            "      --stars N          number of stars (default: one per 1500 pixels)\n"
            "      --hot-pixels N     hot pixels of the sensor (default: one per 40000)\n"
            "      --cosmic-rays N    hits per frame (default: one per 100000 pixels)\n"
            "      --galaxies N       small background galaxies (default: one per 20000\n"
            "                         pixels, plus 2)\n"
            "      --no-spiral        no large spiral galaxy\n"
            "  -h, --help             this help\n",
            PROG);
}

static int bad_usage(const char* what, const char* arg)
{
    fprintf(stderr, "%s: %s%s%s\nTry '%s --help'.\n", PROG, what, arg ? ": " : "",
            arg ? arg : "", PROG);
    return 2;
}

/* Whole-string numbers: a non-negative integer, or a finite double. */
static int to_count(const char* s, unsigned long long* v)
{
    char* end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return (errno || *end) ? -1 : 0;
}

static int to_real(const char* s, double* v)
{
    char* end;
    if (!s || !*s)
        return -1;
    errno = 0;
    *v = strtod(s, &end);
    return (errno || *end || !(*v == *v)) ? -1 : 0;
}

/* A 16-bit binary PGM (maxval 65535, big-endian samples, as the format says). */
static int save_pgm16(const char* path, const float* v, size_t w, size_t h)
{
    FILE* fp = fopen(path, "wb");
    if (!fp)
        return -1;
    fprintf(fp, "P5\n%zu %zu\n65535\n", w, h);
    int bad = 0;
    for (size_t i = 0; i < w * h && !bad; i++) {
        double x = v[i] < 0.0f ? 0.0 : (v[i] > 65535.0f ? 65535.0 : (double)v[i]);
        unsigned u = (unsigned)(x + 0.5);
        unsigned char b[2] = {(unsigned char)(u >> 8), (unsigned char)(u & 0xFF)};
        bad = fwrite(b, 1, 2, fp) != 2;
    }
    return (fclose(fp) != 0 || bad) ? -1 : 0;
}

int main(int argc, char** argv)
{
    unsigned long long width = 512, height = 512, nframes = 8, seed = 1, first = 0;
    const char *prefix = NULL, *truth = NULL, *scene_path = NULL;
    int pgm = 0;
    ghz_ds_frames_params_t p;
    ghz_ds_frames_params_init(&p);

    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long u;
        double d;
#define IS(s, l) (strcmp(a, s) == 0 || strcmp(a, l) == 0)
#define NEED_COUNT(dst)                                                      \
    do {                                                                     \
        if (to_count(v, &u) != 0)                                            \
            return bad_usage("expected a non-negative integer after", a);    \
        dst = u;                                                             \
        i++;                                                                 \
    } while (0)
#define NEED_REAL(dst)                                                       \
    do {                                                                     \
        if (to_real(v, &d) != 0)                                             \
            return bad_usage("expected a number after", a);                  \
        dst = d;                                                             \
        i++;                                                                 \
    } while (0)
        if (IS("-h", "--help")) {
            usage(stdout);
            return 0;
        } else if (IS("-W", "--width")) {
            NEED_COUNT(width);
        } else if (IS("-H", "--height")) {
            NEED_COUNT(height);
        } else if (IS("-n", "--frames")) {
            NEED_COUNT(nframes);
        } else if (IS("-s", "--seed")) {
            NEED_COUNT(seed);
        } else if (IS("--first", "--first")) {
            NEED_COUNT(first);
        } else if (IS("-o", "--output")) {
            if (!v)
                return bad_usage("expected a prefix after", a);
            prefix = argv[++i];
        } else if (IS("--truth", "--truth")) {
            if (!v)
                return bad_usage("expected a file after", a);
            truth = argv[++i];
        } else if (IS("--scene", "--scene")) {
            if (!v)
                return bad_usage("expected a file after", a);
            scene_path = argv[++i];
        } else if (IS("--pgm", "--pgm")) {
            pgm = 1;
        } else if (IS("--no-spiral", "--no-spiral")) {
            p.spiral = 0;
        } else if (IS("--galaxies", "--galaxies")) {
            NEED_COUNT(p.galaxies);
        } else if (IS("--sky", "--sky")) {
            NEED_REAL(p.sky);
        } else if (IS("--read-noise", "--read-noise")) {
            NEED_REAL(p.read_noise);
        } else if (IS("--fwhm", "--fwhm")) {
            NEED_REAL(p.fwhm);
        } else if (IS("--jitter", "--jitter")) {
            NEED_REAL(p.jitter);
        } else if (IS("--stars", "--stars")) {
            NEED_COUNT(p.stars);
        } else if (IS("--hot-pixels", "--hot-pixels")) {
            NEED_COUNT(p.hot_pixels);
        } else if (IS("--cosmic-rays", "--cosmic-rays")) {
            NEED_COUNT(p.cosmic_rays);
        } else {
            return bad_usage("unknown argument", a);
        }
#undef IS
#undef NEED_COUNT
#undef NEED_REAL
    }
    if (!prefix)
        return bad_usage("no output prefix (-o PREFIX)", NULL);
    if (width == 0 || height == 0 || width > 65536 || height > 65536)
        return bad_usage("width and height must be 1 .. 65536", NULL);
    if (nframes > 100000)
        return bad_usage("at most 100000 frames", NULL);

    const size_t w = (size_t)width, h = (size_t)height, n = w * h;
    float* frame = malloc(n * sizeof *frame);
    float* scene = NULL;
    int rc = frame ? 0 : GHZ_DS_ERR_NOMEM;
    if (rc == 0 && scene_path) {
        size_t got = 0;
        rc = ghz_ds_load_raw(scene_path, sizeof(float), (void**)&scene, &got);
        if (rc == 0 && got != n) {
            fprintf(stderr, "%s: %s holds %zu values, not %zu x %zu\n", PROG, scene_path,
                    got, w, h);
            free(scene);
            free(frame);
            return 1;
        }
    }
    if (rc == 0 && truth) {
        if (scene)
            rc = ghz_ds_save_raw(truth, scene, n * sizeof *scene);
        else if ((rc = ghz_ds_frames_scene(w, h, seed, &p, 0.0, 0.0, frame)) == 0)
            rc = ghz_ds_save_raw(truth, frame, n * sizeof *frame);
    }
    for (unsigned long long k = first; rc == 0 && k < first + nframes; k++) {
        rc = scene ? ghz_ds_frame_from_scene(scene, w, h, seed, &p, k, frame)
                   : ghz_ds_frame(w, h, seed, &p, k, frame);
        if (rc != 0)
            break;
        char path[4096];
        int len = snprintf(path, sizeof path, "%s_%03llu.%s", prefix, k, pgm ? "pgm" : "f32");
        if (len < 0 || (size_t)len >= sizeof path) {
            rc = GHZ_DS_ERR_ARG;
            break;
        }
        if (pgm ? save_pgm16(path, frame, w, h) != 0
                : ghz_ds_save_raw(path, frame, n * sizeof *frame) != 0) {
            fprintf(stderr, "%s: cannot write %s: %s\n", PROG, path, strerror(errno));
            free(scene);
            free(frame);
            return 1;
        }
    }
    free(scene);
    free(frame);
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", PROG, ghz_ds_strerror(rc));
        return 1;
    }
    fprintf(stderr, "%s: %llu frames %zux%zu seed %llu -> %s_%03llu.%s ..\n", PROG, nframes, w,
            h, seed, prefix, first, pgm ? "pgm" : "f32");
    return 0;
}
