/* datasets/frames.c: stacks of astronomical frames of one scene (datasets.h, "frame
 * stacks"; README.md says what the model is and why).
 *
 * A frame is made in three steps:
 *  1. the expected signal in e- per pixel: the sky (fixed to the detector) plus the
 *     sources rendered analytically at the frame's sub-pixel shift, so jitter does not
 *     blur the scene the way resampling would, times the frame's transparency, plus
 *     the sensor's hot pixels;
 *  2. noise drawn per pixel from a counter-based hash of (seed, frame, pixel), so the
 *     result does not depend on traversal order: photon noise (exact Poisson below
 *     30 e-, above it a near-Gaussian sum of four uniforms with the Poisson variance),
 *     read noise likewise, and cosmic-ray hits;
 *  3. readout: e- / gain rounded to whole ADU and clipped to [0, saturation].
 * Everything is computed in double with the libm-free helpers of ds_internal.h, in a
 * fixed order, so frames are bit-identical across platforms (datasets.h). */
#include "datasets/datasets.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/ds_internal.h"

/* Stream tags for rng_make, apart from datasets.c's 1..5. */
enum {
    TAG_STARS = 11,
    TAG_GALAXY = 12,
    TAG_SENSOR = 13,
    TAG_FRAME = 14,
    TAG_PIXEL = 15
};

#define PHOTON_POISSON_MAX 30.0 /* below this mean, photon counts are drawn exactly */
#define RENDER_FLOOR 0.01       /* e-: a source is not rendered where it is fainter */
#define MOFFAT_BETA 3.0         /* (1 + r^2/a^2)^-3: integer power, no pow() needed */

void ghz_ds_frames_params_init(ghz_ds_frames_params_t* p)
{
    if (!p)
        return;
    p->sky = 300.0;
    p->sky_gradient = 0.3;
    p->read_noise = 5.0;
    p->gain = 1.0;
    p->saturation = 65535.0;
    p->fwhm = 3.0;
    p->jitter = 0.5;
    p->transparency = 0.02;
    p->stars = -1;
    p->hot_pixels = -1;
    p->cosmic_rays = -1;
    p->galaxies = -1;
    p->spiral = 1;
}

static int params_ok(const ghz_ds_frames_params_t* p)
{
    /* written so that NaN fails every test */
    return p->sky >= 0.0 && p->sky_gradient >= 0.0 && p->sky_gradient <= 2.0 &&
           p->read_noise >= 0.0 && p->gain > 0.0 && p->saturation >= 0.0 &&
           p->fwhm > 0.0 && p->fwhm <= 1000.0 && p->jitter >= 0.0 && p->jitter <= 1e6 &&
           p->transparency >= 0.0 && p->transparency < 1.0;
}

/* A count parameter: the given value, or one per `area` pixels (at least lo). */
static size_t count_or_default(long given, size_t npix, size_t area, size_t lo)
{
    if (given >= 0)
        return (size_t)given;
    size_t n = npix / area;
    return n < lo ? lo : n;
}

/* ---- the scene model -------------------------------------------------------------- */

typedef struct {
    double x, y, flux; /* position in pixels (pixel i covers [i - 0.5, i + 0.5]), e- */
} star_t;

/* An exponential disk seen at an inclination; the big one also has a bulge and arms. */
typedef struct {
    double x, y;       /* centre */
    double cth, sth;   /* position angle of the major axis */
    double iq;         /* 1 / axis ratio (>= 1) */
    double h;          /* disk scale length, pixels */
    double i0;         /* central disk surface brightness, e- per pixel */
    double bulge;      /* bulge brightness at its effective radius (0: none) */
    double re;         /* bulge effective radius */
    double arms;       /* arm contrast (0: none) */
    double wind;       /* arm winding: phase change per e-fold of radius */
    double rmax;       /* rendering radius */
} galaxy_t;

typedef struct {
    size_t idx;
    double excess; /* dark signal, e- per frame */
} hot_t;

typedef struct {
    size_t w, h;
    ghz_ds_frames_params_t p;
    double alpha, norm;      /* Moffat core width and 1 / integral */
    double gx, gy;           /* sky gradient per pixel, as a fraction of sky */
    size_t nstars, ngal, nhot, ncr;
    star_t* stars;
    galaxy_t* gal;
    hot_t* hot;
} model_t;

static void model_free(model_t* m)
{
    free(m->stars);
    free(m->gal);
    free(m->hot);
    memset(m, 0, sizeof *m);
}

/* Power-law star counts, N(> F) ~ F^-0.8 (a rough slope for field stars at moderate
 * latitude): F = fmin u^(-1/0.8), capped at fmax. Most stars are faint, a few are
 * bright enough to saturate. */
static double star_flux(rng_t* r)
{
    const double fmin = 300.0, fmax = 3e6;
    double u = 1.0 - rng_u01(r); /* (0, 1] */
    double f = fmin * ds_exp(-ds_log(u) / 0.8);
    return f < fmax ? f : fmax;
}

static void galaxy_draw(galaxy_t* g, rng_t* r, double x, double y, double h, double i0)
{
    double th = rng_uniform(r, 0.0, DS_PI);
    ds_sincos(th, &g->sth, &g->cth);
    g->x = x;
    g->y = y;
    g->iq = 1.0 / rng_uniform(r, 0.35, 1.0);
    g->h = h;
    g->i0 = i0;
    g->bulge = 0.0;
    g->re = 1.0;
    g->arms = 0.0;
    g->wind = 0.0;
    /* where the disk falls below RENDER_FLOOR along the major axis */
    g->rmax = h * ds_log(i0 / RENDER_FLOOR > 2.0 ? i0 / RENDER_FLOOR : 2.0);
}

static int model_init(model_t* m, size_t w, size_t h, uint64_t seed,
                      const ghz_ds_frames_params_t* params)
{
    memset(m, 0, sizeof *m);
    m->w = w;
    m->h = h;
    if (params)
        m->p = *params;
    else
        ghz_ds_frames_params_init(&m->p);
    if (!params_ok(&m->p))
        return GHZ_DS_ERR_ARG;
    const size_t npix = w * h;
    /* Moffat: FWHM = 2 alpha sqrt(2^(1/beta) - 1); sqrt(2^(1/3) - 1) = 0.50982... */
    m->alpha = m->p.fwhm / (2.0 * 0.5098245285339782);
    m->norm = (MOFFAT_BETA - 1.0) / (DS_PI * m->alpha * m->alpha);

    rng_t rs = rng_make(seed, TAG_STARS), rg = rng_make(seed, TAG_GALAXY),
          rh = rng_make(seed, TAG_SENSOR);
    double gth = rng_uniform(&rs, 0.0, 2.0 * DS_PI), gs, gc;
    ds_sincos(gth, &gs, &gc);
    /* a plane across the diagonal-free extent: edge to edge along the direction */
    double ext = (double)w * fabs(gc) + (double)h * fabs(gs);
    m->gx = m->p.sky_gradient * gc / (ext > 0.0 ? ext : 1.0);
    m->gy = m->p.sky_gradient * gs / (ext > 0.0 ? ext : 1.0);

    m->nstars = count_or_default(m->p.stars, npix, 1500, 8);
    m->nhot = count_or_default(m->p.hot_pixels, npix, 40000, 3);
    m->ncr = count_or_default(m->p.cosmic_rays, npix, 100000, 1);
    const size_t nsmall = m->p.galaxies >= 0 ? (size_t)m->p.galaxies : npix / 20000 + 2;
    m->ngal = nsmall + (m->p.spiral ? 1 : 0);
    m->stars = malloc((m->nstars + 1) * sizeof *m->stars);
    m->gal = malloc((m->ngal + 1) * sizeof *m->gal);
    m->hot = malloc((m->nhot + 1) * sizeof *m->hot);
    if (!m->stars || !m->gal || !m->hot) {
        model_free(m);
        return GHZ_DS_ERR_NOMEM;
    }
    /* stars fall anywhere, also just off the edges, so wings and jitter bring light in */
    for (size_t s = 0; s < m->nstars; s++) {
        m->stars[s].x = rng_uniform(&rs, -8.0, (double)w + 8.0);
        m->stars[s].y = rng_uniform(&rs, -8.0, (double)h + 8.0);
        m->stars[s].flux = star_flux(&rs);
    }
    const double side = (double)(w < h ? w : h);
    size_t g = 0;
    if (m->p.spiral) {
        galaxy_t* big = &m->gal[g++];
        galaxy_draw(big, &rg, rng_uniform(&rg, 0.35, 0.65) * (double)w,
                    rng_uniform(&rg, 0.35, 0.65) * (double)h, side / 14.0,
                    rng_uniform(&rg, 400.0, 900.0));
        big->iq = 1.0 / rng_uniform(&rg, 0.55, 0.9); /* close to face-on: arms show */
        big->re = big->h / 3.0;
        big->bulge = rng_uniform(&rg, 100.0, 200.0);
        big->arms = rng_uniform(&rg, 0.35, 0.6);
        big->wind = rng_uniform(&rg, 2.5, 4.0) * rng_sign(&rg);
    }
    for (size_t k = 0; k < nsmall; k++)
        galaxy_draw(&m->gal[g++], &rg, rng_uniform(&rg, 0.0, (double)w),
                    rng_uniform(&rg, 0.0, (double)h), rng_loguniform(&rg, 0.8, 4.0),
                    rng_loguniform(&rg, 15.0, 300.0));
    for (size_t k = 0; k < m->nhot; k++) {
        m->hot[k].idx = (size_t)(rng_u01(&rh) * (double)npix);
        if (m->hot[k].idx >= npix)
            m->hot[k].idx = npix - 1;
        m->hot[k].excess = rng_loguniform(&rh, 500.0, 30000.0);
    }
    return GHZ_DS_OK;
}

/* ---- rendering ---------------------------------------------------------------------- */

/* The inclusive pixel range [lo, hi] within [0, n) whose centres lie within r of c;
 * returns 0 when it is empty. */
static int pixel_span(double c, double r, size_t n, size_t* lo, size_t* hi)
{
    double a = ceil(c - r), b = floor(c + r);
    if (b < 0.0 || a > (double)n - 1.0 || a > b)
        return 0;
    *lo = a < 0.0 ? 0 : (size_t)a;
    *hi = b > (double)n - 1.0 ? n - 1 : (size_t)b;
    return 1;
}

static void render_star(const model_t* m, const star_t* s, double dx, double dy,
                        double scale, double* img)
{
    const double peak = s->flux * m->norm * scale;
    if (!(peak > RENDER_FLOOR))
        return;
    /* (1 + r^2/a^2)^-3 = floor / peak  <=>  r^2 = a^2 ((peak / floor)^(1/3) - 1) */
    double q = ds_exp(ds_log(peak / RENDER_FLOOR) / 3.0) - 1.0;
    double r = m->alpha * sqrt(q);
    if (r > 200.0)
        r = 200.0;
    const double cx = s->x + dx, cy = s->y + dy, ia2 = 1.0 / (m->alpha * m->alpha);
    size_t i0, i1, j0, j1;
    if (!pixel_span(cx, r, m->w, &i0, &i1) || !pixel_span(cy, r, m->h, &j0, &j1))
        return;
    for (size_t j = j0; j <= j1; j++) {
        const double yy = ((double)j - cy) * ((double)j - cy);
        for (size_t i = i0; i <= i1; i++) {
            double t = 1.0 + (((double)i - cx) * ((double)i - cx) + yy) * ia2;
            img[j * m->w + i] += peak / (t * t * t);
        }
    }
}

/* Surface brightness of a galaxy at offset (u, v) along its axes, r = sqrt(u^2 + v^2). */
static double galaxy_sb(const galaxy_t* g, double u, double v, double r)
{
    double sb = g->i0 * ds_exp(-r / g->h);
    if (g->arms > 0.0) {
        /* two arms: 1 + A cos(2 theta - wind ln(r / h)), faded in towards the centre;
         * cos 2theta and sin 2theta from (u, v) directly, no atan */
        double r2 = r * r;
        if (r2 > 0.0) {
            double c2 = (u * u - v * v) / r2, s2 = 2.0 * u * v / r2, sp, cp;
            ds_sincos(g->wind * ds_log(r / g->h), &sp, &cp);
            double fade = r2 / (r2 + 0.25 * g->h * g->h);
            sb *= 1.0 + g->arms * fade * (c2 * cp + s2 * sp);
        }
    }
    if (g->bulge > 0.0) {
        /* Sersic n = 2 (b_2 = 3.67): bright, compact, finite at the centre */
        double x = r / g->re;
        sb += g->bulge * ds_exp(-3.67 * (sqrt(x) - 1.0));
    }
    return sb;
}

static void render_galaxy(const model_t* m, const galaxy_t* g, double dx, double dy,
                          double scale, double* img)
{
    const double cx = g->x + dx, cy = g->y + dy;
    double r = g->rmax;
    if (g->bulge > 0.0 && r < 12.0 * g->re)
        r = 12.0 * g->re;
    size_t i0, i1, j0, j1;
    if (!pixel_span(cx, r, m->w, &i0, &i1) || !pixel_span(cy, r, m->h, &j0, &j1))
        return;
    for (size_t j = j0; j <= j1; j++) {
        const double ey = (double)j - cy;
        for (size_t i = i0; i <= i1; i++) {
            const double ex = (double)i - cx;
            double u = ex * g->cth + ey * g->sth;
            double v = (ey * g->cth - ex * g->sth) * g->iq;
            double rr = sqrt(u * u + v * v);
            if (rr > r)
                continue;
            img[j * m->w + i] += scale * galaxy_sb(g, u, v, rr);
        }
    }
}

/* img = the expected signal in e-: sky (unshifted) plus sources shifted by (dx, dy),
 * both scaled by `scale`. */
static void render_scene(const model_t* m, double dx, double dy, double scale, double* img)
{
    const double xc = 0.5 * ((double)m->w - 1.0), yc = 0.5 * ((double)m->h - 1.0);
    for (size_t j = 0; j < m->h; j++)
        for (size_t i = 0; i < m->w; i++)
            img[j * m->w + i] =
                scale * m->p.sky *
                (1.0 + m->gx * ((double)i - xc) + m->gy * ((double)j - yc));
    for (size_t g = 0; g < m->ngal; g++)
        render_galaxy(m, &m->gal[g], dx, dy, scale, img);
    for (size_t s = 0; s < m->nstars; s++)
        render_star(m, &m->stars[s], dx, dy, scale, img);
}

/* Bilinear sample of a scene at (x, y), clamped at the edges. */
static double sample_bilinear(const float* sc, size_t w, size_t h, double x, double y)
{
    double mx = (double)w - 1.0, my = (double)h - 1.0;
    x = x < 0.0 ? 0.0 : (x > mx ? mx : x);
    y = y < 0.0 ? 0.0 : (y > my ? my : y);
    double fx = floor(x), fy = floor(y);
    size_t i = (size_t)fx, j = (size_t)fy;
    size_t i1 = i + 1 < w ? i + 1 : i, j1 = j + 1 < h ? j + 1 : j;
    double ax = x - fx, ay = y - fy;
    double top = (double)sc[j * w + i] * (1.0 - ax) + (double)sc[j * w + i1] * ax;
    double bot = (double)sc[j1 * w + i] * (1.0 - ax) + (double)sc[j1 * w + i1] * ax;
    return top * (1.0 - ay) + bot * ay;
}

/* ---- noise and readout ----------------------------------------------------------- */

/* Irwin-Hall: the sum of four uniforms from the 16-bit quarters of h, scaled to unit
 * variance (near Gaussian, |z| <= 2 sqrt 3). */
static double unit_noise(uint64_t h)
{
    double s = (double)(h & 0xFFFF) + (double)((h >> 16) & 0xFFFF) +
               (double)((h >> 32) & 0xFFFF) + (double)(h >> 48) - 131070.0;
    return s * (1.7320508075688772 / 65536.0);
}

/* Photon count of mean lambda: Knuth's product-of-uniforms Poisson sampler for small
 * means (exact), the moment-matched near-Gaussian above. */
static double photons(double lambda, uint64_t h)
{
    if (!(lambda > 0.0))
        return 0.0;
    if (lambda >= PHOTON_POISSON_MAX)
        return lambda + sqrt(lambda) * unit_noise(h);
    rng_t r;
    r.s = h;
    const double lim = ds_exp(-lambda);
    double prod = rng_u01(&r);
    double k = 0.0;
    while (prod > lim) {
        prod *= rng_u01(&r);
        k += 1.0;
    }
    return k;
}

typedef struct {
    double dx, dy, scale;
    uint64_t key;
} frame_draw_t;

static frame_draw_t frame_draw(uint64_t seed, const ghz_ds_frames_params_t* p, uint64_t index)
{
    frame_draw_t f;
    rng_t r = rng_make(seed ^ mix64(index + UINT64_C(0x243F6A8885A308D3)), TAG_FRAME);
    f.dx = rng_uniform(&r, -p->jitter, p->jitter);
    f.dy = rng_uniform(&r, -p->jitter, p->jitter);
    f.scale = 1.0 + rng_uniform(&r, -p->transparency, p->transparency);
    f.key = rng_next(&r) + TAG_PIXEL;
    return f;
}

/* Turns the expected signal sig[] (e-, frame transparency applied) into a read-out
 * frame: hot pixels, photon and read noise, cosmic rays, ADU, clipping. */
static void expose(const model_t* m, const frame_draw_t* f, double* sig, float* out)
{
    const size_t n = m->w * m->h;
    for (size_t k = 0; k < m->nhot; k++)
        sig[m->hot[k].idx] += m->hot[k].excess;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = mix64(f->key + (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15));
        double e = photons(sig[i], h);
        e += m->p.read_noise * unit_noise(mix64(h ^ UINT64_C(0xC2B2AE3D27D4EB4F)));
        sig[i] = e;
    }
    /* cosmic rays: a hit pixel and, half the time, a weaker neighbour (a short track) */
    rng_t r = rng_make(f->key, TAG_SENSOR);
    for (size_t c = 0; c < m->ncr; c++) {
        size_t idx = (size_t)(rng_u01(&r) * (double)n);
        if (idx >= n)
            idx = n - 1;
        double e = rng_loguniform(&r, 2000.0, 40000.0);
        sig[idx] += e;
        if (rng_u01(&r) < 0.5 && (idx % m->w) + 1 < m->w)
            sig[idx + 1] += 0.4 * e;
    }
    const double sat = m->p.saturation;
    for (size_t i = 0; i < n; i++) {
        double adu = floor(sig[i] / m->p.gain + 0.5);
        if (adu < 0.0)
            adu = 0.0;
        if (sat > 0.0 && adu > sat)
            adu = sat;
        out[i] = (float)adu;
    }
}

/* ---- the public functions --------------------------------------------------------- */

/* Checks the dimensions, builds the scene model and allocates a w x h image of
 * doubles; on failure nothing is left allocated. */
static int model_open(size_t w, size_t h, uint64_t seed, const ghz_ds_frames_params_t* params,
                      model_t* m, double** img)
{
    *img = NULL;
    if (w == 0 || h == 0 || h > SIZE_MAX / w || w * h > SIZE_MAX / sizeof(double))
        return GHZ_DS_ERR_DIMS;
    int rc = model_init(m, w, h, seed, params);
    if (rc != GHZ_DS_OK)
        return rc;
    *img = malloc(w * h * sizeof **img);
    if (!*img) {
        model_free(m);
        return GHZ_DS_ERR_NOMEM;
    }
    return GHZ_DS_OK;
}

int ghz_ds_frames_scene(size_t width, size_t height, uint64_t seed,
                        const ghz_ds_frames_params_t* params, double dx, double dy,
                        float* out)
{
    if (!out || !(fabs(dx) <= 1e6) || !(fabs(dy) <= 1e6))
        return GHZ_DS_ERR_ARG;
    model_t m;
    double* img;
    int rc = model_open(width, height, seed, params, &m, &img);
    if (rc != GHZ_DS_OK)
        return rc;
    render_scene(&m, dx, dy, 1.0, img);
    for (size_t i = 0; i < width * height; i++)
        out[i] = (float)(img[i] / m.p.gain);
    free(img);
    model_free(&m);
    return GHZ_DS_OK;
}

int ghz_ds_frame_jitter(uint64_t seed, const ghz_ds_frames_params_t* params, uint64_t index,
                        double* dx, double* dy)
{
    ghz_ds_frames_params_t p;
    if (params)
        p = *params;
    else
        ghz_ds_frames_params_init(&p);
    if (!dx || !dy || !params_ok(&p))
        return GHZ_DS_ERR_ARG;
    frame_draw_t f = frame_draw(seed, &p, index);
    *dx = f.dx;
    *dy = f.dy;
    return GHZ_DS_OK;
}

/* One frame, from the model's scene (scene == NULL) or from a given image. */
static int make_frame(const float* scene, size_t w, size_t h, uint64_t seed,
                      const ghz_ds_frames_params_t* params, uint64_t index, float* out)
{
    if (!out)
        return GHZ_DS_ERR_ARG;
    model_t m;
    double* sig;
    int rc = model_open(w, h, seed, params, &m, &sig);
    if (rc != GHZ_DS_OK)
        return rc;
    frame_draw_t f = frame_draw(seed, &m.p, index);
    if (!scene) {
        render_scene(&m, f.dx, f.dy, f.scale, sig);
    } else {
        for (size_t j = 0; j < h; j++)
            for (size_t i = 0; i < w; i++)
                sig[j * w + i] =
                    f.scale * sample_bilinear(scene, w, h, (double)i - f.dx, (double)j - f.dy);
    }
    expose(&m, &f, sig, out);
    free(sig);
    model_free(&m);
    return GHZ_DS_OK;
}

int ghz_ds_frame(size_t width, size_t height, uint64_t seed,
                 const ghz_ds_frames_params_t* params, uint64_t index, float* out)
{
    return make_frame(NULL, width, height, seed, params, index, out);
}

int ghz_ds_frame_from_scene(const float* scene, size_t width, size_t height,
                            uint64_t seed, const ghz_ds_frames_params_t* params,
                            uint64_t index, float* out)
{
    if (!scene || scene == out)
        return GHZ_DS_ERR_ARG;
    return make_frame(scene, width, height, seed, params, index, out);
}

/* The "frames" field of ghz_ds_generate: nz frames with the default parameters. The
 * values are whole numbers below 2^24, so the f32 and f64 outputs hold the same values. */
int ghz_ds_internal_frames(size_t nx, size_t ny, size_t nz, uint64_t seed, sink_t out)
{
    const size_t n = nx * ny;
    float* tmp = out.f ? NULL : malloc(n * sizeof *tmp);
    if (!out.f && !tmp)
        return GHZ_DS_ERR_NOMEM;
    int rc = GHZ_DS_OK;
    for (size_t k = 0; k < nz && rc == GHZ_DS_OK; k++) {
        float* dst = out.f ? out.f + k * n : tmp;
        rc = ghz_ds_frame(nx, ny, seed, NULL, k, dst);
        if (rc == GHZ_DS_OK && !out.f)
            for (size_t i = 0; i < n; i++)
                out.d[k * n + i] = (double)tmp[i];
    }
    free(tmp);
    return rc;
}
