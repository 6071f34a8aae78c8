/* test_frames.c: the astronomical frame-stack generator of datasets/frames.c.
 * Determinism (same inputs, same bits; frames independent of the order they are made
 * in), and the statistics the model promises: sky level, Poisson and read noise,
 * jitter range, fixed hot pixels, clipping, and the stack converging on the scene. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"

#define W 96
#define H 80
#define N (W * H)

static float* fbuf(size_t n)
{
    float* p = malloc(n * sizeof *p);
    cr_assert_not_null(p);
    return p;
}

/* A bare sensor looking at a flat sky: no sources, no defects, no jitter. */
static ghz_ds_frames_params_t flat_sky(double sky, double read_noise)
{
    ghz_ds_frames_params_t p;
    ghz_ds_frames_params_init(&p);
    p.sky = sky;
    p.sky_gradient = 0.0;
    p.read_noise = read_noise;
    p.stars = 0;
    p.galaxies = 0;
    p.spiral = 0;
    p.hot_pixels = 0;
    p.cosmic_rays = 0;
    p.jitter = 0.0;
    p.transparency = 0.0;
    return p;
}

static void mean_var(const float* v, size_t n, double* mean, double* var)
{
    double s = 0.0, s2 = 0.0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++)
        s2 += ((double)v[i] - *mean) * ((double)v[i] - *mean);
    *var = s2 / (double)(n - 1);
}

Test(frames, deterministic_and_order_free)
{
    float *a = fbuf(N), *b = fbuf(N), *c = fbuf(N);
    cr_assert_eq(ghz_ds_frame(W, H, 7, NULL, 3, a), 0);
    cr_assert_eq(ghz_ds_frame(W, H, 7, NULL, 0, c), 0); /* another frame in between */
    cr_assert_eq(ghz_ds_frame(W, H, 7, NULL, 3, b), 0);
    cr_assert(memcmp(a, b, N * sizeof *a) == 0, "frame 3 differs between two calls");
    cr_assert(memcmp(a, c, N * sizeof *a) != 0, "frames 0 and 3 are identical");
    cr_assert_eq(ghz_ds_frame(W, H, 8, NULL, 3, b), 0);
    cr_assert(memcmp(a, b, N * sizeof *a) != 0, "seeds 7 and 8 give the same frame");
    free(a);
    free(b);
    free(c);
}

Test(frames, generate_field_matches_frames)
{
    float* all = fbuf(2 * N);
    float* one = fbuf(N);
    double* d = malloc(2 * N * sizeof *d);
    cr_assert_not_null(d);
    cr_assert_eq(ghz_ds_generate("frames", W, H, 2, 5, all), 0);
    cr_assert_eq(ghz_ds_generate_f64("frames", W, H, 2, 5, d), 0);
    for (uint64_t k = 0; k < 2; k++) {
        cr_assert_eq(ghz_ds_frame(W, H, 5, NULL, k, one), 0);
        cr_assert(memcmp(all + k * N, one, N * sizeof *one) == 0, "slice %d", (int)k);
    }
    for (size_t i = 0; i < 2 * N; i++)
        cr_assert_eq(d[i], (double)all[i], "f64 value %zu", i);
    free(all);
    free(one);
    free(d);
}

Test(frames, readout_is_whole_adu_in_range)
{
    float* f = fbuf(N);
    cr_assert_eq(ghz_ds_frame(W, H, 1, NULL, 0, f), 0);
    for (size_t i = 0; i < N; i++) {
        cr_assert(f[i] >= 0.0f && f[i] <= 65535.0f, "value %g at %zu", (double)f[i], i);
        cr_assert_eq(f[i], floorf(f[i]), "not whole: %g", (double)f[i]);
    }
    /* clipping: a sky brighter than the full well reads as the full well */
    ghz_ds_frames_params_t p = flat_sky(2000.0, 5.0);
    p.saturation = 1000.0;
    cr_assert_eq(ghz_ds_frame(W, H, 1, &p, 0, f), 0);
    for (size_t i = 0; i < N; i++)
        cr_assert_eq(f[i], 1000.0f);
    free(f);
}

/* Gaussian-like regime: mean = sky, variance = sky + read^2 + 1/12 (rounding). */
Test(frames, photon_and_read_noise)
{
    const size_t w = 256, h = 256;
    float* f = fbuf(w * h);
    ghz_ds_frames_params_t p = flat_sky(400.0, 6.0);
    cr_assert_eq(ghz_ds_frame(w, h, 2, &p, 0, f), 0);
    double m, v;
    mean_var(f, w * h, &m, &v);
    const double want = 400.0 + 36.0 + 1.0 / 12.0;
    cr_assert(fabs(m - 400.0) < 0.5, "mean %g, want 400", m);
    cr_assert(fabs(v / want - 1.0) < 0.05, "variance %g, want %g", v, want);

    /* exact Poisson regime, no read noise: mean = variance = 4, and P(0) = e^-4 */
    p = flat_sky(4.0, 0.0);
    cr_assert_eq(ghz_ds_frame(w, h, 3, &p, 0, f), 0);
    mean_var(f, w * h, &m, &v);
    size_t zeros = 0;
    for (size_t i = 0; i < w * h; i++)
        zeros += f[i] == 0.0f;
    cr_assert(fabs(m - 4.0) < 0.05, "Poisson mean %g", m);
    cr_assert(fabs(v - 4.0) < 0.15, "Poisson variance %g", v);
    cr_assert(fabs((double)zeros / (double)(w * h) - exp(-4.0)) < 0.004, "P(0) = %g",
              (double)zeros / (double)(w * h));
    free(f);
}

Test(frames, jitter_within_range_and_varied)
{
    ghz_ds_frames_params_t p;
    ghz_ds_frames_params_init(&p);
    p.jitter = 0.75;
    double lo = 1.0, hi = -1.0;
    for (uint64_t k = 0; k < 64; k++) {
        double dx, dy;
        cr_assert_eq(ghz_ds_frame_jitter(9, &p, k, &dx, &dy), 0);
        cr_assert(fabs(dx) <= 0.75 && fabs(dy) <= 0.75, "shift %g %g", dx, dy);
        lo = fmin(lo, fmin(dx, dy));
        hi = fmax(hi, fmax(dx, dy));
    }
    cr_assert(hi - lo > 1.0, "64 frames' shifts span only %g px", hi - lo);
}

/* Hot pixels are the sensor's: the same pixels, in every frame, well above the sky. */
Test(frames, hot_pixels_are_fixed)
{
    ghz_ds_frames_params_t p = flat_sky(300.0, 5.0);
    p.hot_pixels = 6;
    float* f[3];
    for (int k = 0; k < 3; k++) {
        f[k] = fbuf(N);
        cr_assert_eq(ghz_ds_frame(W, H, 4, &p, (uint64_t)k, f[k]), 0);
    }
    size_t hot_in_all = 0, hot_any = 0;
    for (size_t i = 0; i < N; i++) {
        int c = (f[0][i] > 700.0f) + (f[1][i] > 700.0f) + (f[2][i] > 700.0f);
        hot_in_all += c == 3;
        hot_any += c > 0;
    }
    /* 6 draws of a position (two may coincide); a 300 e- sky never reaches 700 */
    cr_assert(hot_in_all >= 5 && hot_in_all <= 6, "%zu pixels hot in all frames", hot_in_all);
    cr_assert_eq(hot_any, hot_in_all, "a hot pixel moved");
    for (int k = 0; k < 3; k++)
        free(f[k]);
}

/* The default scene (stars, galaxies, sky gradient): the faintest pixel near the sky
 * level, and the mean of many frames converging on the mean of the noise-free scenes
 * at the frames' shifts (what stacking is for). Hot pixels, cosmic rays and the
 * transparency change are off here: they do not average out. */
Test(frames, stack_converges_on_scene)
{
    const int nf = 24;
    ghz_ds_frames_params_t p;
    ghz_ds_frames_params_init(&p);
    p.hot_pixels = 0;
    p.cosmic_rays = 0;
    p.transparency = 0.0;
    p.saturation = 0.0;
    float* sc = fbuf(N);
    float* f = fbuf(N);
    double* sum = calloc(N, sizeof *sum);
    double* want = calloc(N, sizeof *want);
    cr_assert(sum && want);
    for (int k = 0; k < nf; k++) {
        double dx, dy;
        cr_assert_eq(ghz_ds_frame_jitter(11, &p, (uint64_t)k, &dx, &dy), 0);
        cr_assert_eq(ghz_ds_frames_scene(W, H, 11, &p, dx, dy, sc), 0);
        cr_assert_eq(ghz_ds_frame(W, H, 11, &p, (uint64_t)k, f), 0);
        for (size_t i = 0; i < N; i++) {
            sum[i] += f[i];
            want[i] += sc[i];
        }
    }
    /* the last frame's residual, and the stack's: sqrt(24) = 4.9 times smaller */
    double e1 = 0.0, es = 0.0, smin = 1e30, smax = 0.0;
    for (size_t i = 0; i < N; i++) {
        double d1 = (double)f[i] - sc[i], ds = (sum[i] - want[i]) / nf;
        e1 += d1 * d1;
        es += ds * ds;
        smin = fmin(smin, sc[i]);
        smax = fmax(smax, sc[i]);
    }
    e1 = sqrt(e1 / N);
    es = sqrt(es / N);
    cr_assert(smin > 200.0 && smin < 320.0, "faintest scene pixel %g (sky 300 - gradient)",
              smin);
    cr_assert(smax > 2000.0, "brightest scene pixel %g: no sources?", smax);
    cr_assert(es < e1 / 4.0 && es > e1 / 6.0, "stack rms error %g vs one frame's %g", es, e1);
    free(sc);
    free(f);
    free(sum);
    free(want);
}

Test(frames, from_scene)
{
    float* sc = fbuf(N);
    float* f = fbuf(N);
    for (size_t i = 0; i < N; i++)
        sc[i] = (float)(100.0 + (double)(i % W)); /* a ramp, 100 .. 195 e- */
    ghz_ds_frames_params_t p = flat_sky(0.0, 0.0);
    p.jitter = 0.5;
    cr_assert_eq(ghz_ds_frame_from_scene(sc, W, H, 1, &p, 2, f), 0);
    double dx, dy, err = 0.0;
    cr_assert_eq(ghz_ds_frame_jitter(1, &p, 2, &dx, &dy), 0);
    /* away from the clamped edges the expected value is the ramp shifted by dx */
    for (size_t j = 0; j < H; j++)
        for (size_t i = 2; i + 2 < W; i++)
            err += (double)f[j * W + i] - (100.0 + (double)i - dx);
    err /= (double)H * (W - 4);
    cr_assert(fabs(err) < 0.3, "mean residual %g", err);
    cr_assert_eq(ghz_ds_frame_from_scene(f, W, H, 1, &p, 0, f), GHZ_DS_ERR_ARG);
    free(sc);
    free(f);
}

Test(frames, bad_arguments)
{
    float v[4];
    ghz_ds_frames_params_t p;
    ghz_ds_frames_params_init(&p);
    cr_assert_eq(ghz_ds_frame(2, 2, 1, &p, 0, NULL), GHZ_DS_ERR_ARG);
    cr_assert_eq(ghz_ds_frame(0, 2, 1, &p, 0, v), GHZ_DS_ERR_DIMS);
    p.gain = 0.0;
    cr_assert_eq(ghz_ds_frame(2, 2, 1, &p, 0, v), GHZ_DS_ERR_ARG);
    ghz_ds_frames_params_init(&p);
    p.fwhm = NAN;
    cr_assert_eq(ghz_ds_frames_scene(2, 2, 1, &p, 0.0, 0.0, v), GHZ_DS_ERR_ARG);
    double dx, dy;
    cr_assert_eq(ghz_ds_frame_jitter(1, NULL, 0, &dx, NULL), GHZ_DS_ERR_ARG);
    (void)dy;
}
