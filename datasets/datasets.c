/* datasets/datasets.c: the field generators and the raw-file loader of datasets.h.
 *
 * Everything here is deterministic: a splitmix64 PRNG seeded from (seed, field), no
 * threads, fixed loop orders, and exp/sin/cos implemented below from + - * / only, so
 * that the output does not depend on the C library's libm (see datasets.h). */
#include "datasets/datasets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/ds_internal.h"

/* ---- multi-scale 2-D fields: plane waves plus compact smooth bumps ------------------
 *
 * Coordinates are in units of L = max(nx, ny) cells: x = (i + 0.5) / L, y likewise,
 * so features are isotropic on a non-square grid. A field is the sum of
 *  - plane waves a * sin(kx x + ky y + phase + omega t), evaluated separably as
 *    a * (sin(kx x) cos(ky y + ...) + cos(kx x) sin(ky y + ...)) with per-column tables;
 *  - elliptic bumps a * (1 - q)^4 for q < 1, q = (u/ra)^2 + (w/rb)^2 in axes rotated by
 *    theta: a C^3 compact bump (a Gaussian look-alike that costs no exp and touches only
 *    its bounding box).
 * t is the slice index: waves drift in phase and bumps move, slowly, from slice to slice. */

typedef struct {
    double kx, ky, amp, phase, omega;
} wave_t;

typedef struct {
    double cx, cy, vx, vy;   /* centre and drift per slice (units of L) */
    double cth, sth, ira2, irb2, hx, hy, amp;
} bump_t;

typedef struct {
    int count;
    double rmin, rmax;   /* major semi-axis range (units of L), log-uniform */
    double amin, amax;   /* amplitude range */
    double aspect;       /* max ratio of major to minor semi-axis */
    int positive;        /* 1: amplitudes > 0; 0: random sign */
} bump_class_t;

typedef struct {
    int nwaves;
    double lmin, lmax;   /* wavelength range (units of L), log-uniform */
    double wamp;         /* amplitude of a wave of wavelength lmax */
    double slope;        /* amplitude ~ (lambda/lmax)^slope (a red spectrum) */
    double omega_max;    /* phase drift per slice */
    double drift_max;    /* bump speed per slice (units of L) */
    int nclasses;
    bump_class_t classes[4];
} f2_spec_t;

typedef struct {
    size_t nx, ny;
    double L;
    int nw, nb;
    wave_t* w;
    bump_t* b;
    double* tsin; /* nw x nx: sin(kx x_i) */
    double* tcos;
} f2_t;

static void f2_free(f2_t* f)
{
    free(f->w);
    free(f->b);
    free(f->tsin);
    free(f->tcos);
    memset(f, 0, sizeof *f);
}

static int f2_init(f2_t* f, size_t nx, size_t ny, rng_t* r, const f2_spec_t* sp)
{
    memset(f, 0, sizeof *f);
    f->nx = nx;
    f->ny = ny;
    f->L = (double)(nx > ny ? nx : ny);
    f->nw = sp->nwaves;
    f->nb = 0;
    for (int c = 0; c < sp->nclasses; c++)
        f->nb += sp->classes[c].count;
    f->w = calloc((size_t)f->nw + 1, sizeof *f->w);
    f->b = calloc((size_t)f->nb + 1, sizeof *f->b);
    f->tsin = malloc(((size_t)f->nw * nx + 1) * sizeof(double));
    f->tcos = malloc(((size_t)f->nw * nx + 1) * sizeof(double));
    if (!f->w || !f->b || !f->tsin || !f->tcos) {
        f2_free(f);
        return GHZ_DS_ERR_NOMEM;
    }
    for (int k = 0; k < f->nw; k++) {
        wave_t* w = &f->w[k];
        double lambda = rng_loguniform(r, sp->lmin, sp->lmax);
        double theta = rng_uniform(r, 0.0, DS_PI);
        double kk = 2.0 * DS_PI / lambda;
        w->kx = kk * ds_cos(theta);
        w->ky = kk * ds_sin(theta);
        w->amp = sp->wamp * ds_exp(sp->slope * ds_log(lambda / sp->lmax)) *
                 rng_uniform(r, 0.5, 1.0);
        w->phase = rng_uniform(r, 0.0, 2.0 * DS_PI);
        w->omega = rng_uniform(r, -sp->omega_max, sp->omega_max);
        for (size_t i = 0; i < nx; i++)
            ds_sincos(w->kx * (((double)i + 0.5) / f->L), &f->tsin[(size_t)k * nx + i],
                      &f->tcos[(size_t)k * nx + i]);
    }
    double xext = (double)nx / f->L, yext = (double)ny / f->L;
    int nb = 0;
    for (int c = 0; c < sp->nclasses; c++) {
        const bump_class_t* bc = &sp->classes[c];
        for (int k = 0; k < bc->count; k++) {
            bump_t* b = &f->b[nb++];
            double ra = rng_loguniform(r, bc->rmin, bc->rmax);
            double rb = ra / rng_uniform(r, 1.0, bc->aspect);
            double th = rng_uniform(r, 0.0, DS_PI);
            b->cx = rng_uniform(r, -0.05, 1.05) * xext;
            b->cy = rng_uniform(r, -0.05, 1.05) * yext;
            b->vx = rng_uniform(r, -sp->drift_max, sp->drift_max);
            b->vy = rng_uniform(r, -sp->drift_max, sp->drift_max);
            ds_sincos(th, &b->sth, &b->cth);
            b->ira2 = 1.0 / (ra * ra);
            b->irb2 = 1.0 / (rb * rb);
            /* half-widths of the rotated ellipse's bounding box */
            b->hx = sqrt(ra * ra * b->cth * b->cth + rb * rb * b->sth * b->sth);
            b->hy = sqrt(ra * ra * b->sth * b->sth + rb * rb * b->cth * b->cth);
            b->amp = rng_uniform(r, bc->amin, bc->amax) * (bc->positive ? 1.0 : rng_sign(r));
        }
    }
    return GHZ_DS_OK;
}

/* Adds row j of slice t of the field to row[0 .. nx). */
static void f2_add_row(const f2_t* f, size_t j, double t, double* row)
{
    const size_t nx = f->nx;
    const double y = ((double)j + 0.5) / f->L;
    for (int k = 0; k < f->nw; k++) {
        const wave_t* w = &f->w[k];
        double sa, ca;
        ds_sincos(w->ky * y + w->phase + w->omega * t, &sa, &ca);
        const double as = w->amp * ca, ac = w->amp * sa;
        const double* ts = f->tsin + (size_t)k * nx;
        const double* tc = f->tcos + (size_t)k * nx;
        for (size_t i = 0; i < nx; i++)
            row[i] += as * ts[i] + ac * tc[i];
    }
    for (int k = 0; k < f->nb; k++) {
        const bump_t* b = &f->b[k];
        double cy = b->cy + b->vy * t;
        double dy = y - cy;
        if (!(dy > -b->hy && dy < b->hy))
            continue;
        double cx = b->cx + b->vx * t;
        /* columns whose centre lies within the box: (i + 0.5)/L in (cx - hx, cx + hx) */
        double ilo = floor((cx - b->hx) * f->L - 0.5);
        double ihi = floor((cx + b->hx) * f->L - 0.5) + 1.0;
        if (ihi < 0.0 || ilo >= (double)nx)
            continue;
        size_t i0 = ilo < 0.0 ? 0 : (size_t)ilo;
        size_t i1 = ihi >= (double)nx ? nx - 1 : (size_t)ihi;
        for (size_t i = i0; i <= i1; i++) {
            double dx = ((double)i + 0.5) / f->L - cx;
            double u = dx * b->cth + dy * b->sth;
            double v = dy * b->cth - dx * b->sth;
            double q = u * u * b->ira2 + v * v * b->irb2;
            if (q < 1.0) {
                double s = 1.0 - q;
                s *= s;
                row[i] += b->amp * (s * s);
            }
        }
    }
}

/* Field tags for rng_make: one independent stream per part. */
enum {
    TAG_SMOOTH = 1,
    TAG_NOISE = 2,
    TAG_SST = 3,
    TAG_LAND = 4,
    TAG_WAVE = 5
};

/* smooth2d: a surface-temperature-like field in kelvin, 230..320 K or so: a zonal
 * profile (warm in the middle rows, cold at the first and last), plus 16 plane waves
 * of wavelengths L/24 .. 1.5 L with a red spectrum, plus 36 bumps at three scales. */
static const f2_spec_t SMOOTH_SPEC = {
    16, 1.0 / 24.0, 1.5, 6.0, 0.8, 0.08, 0.003, 3,
    {{6, 0.10, 0.25, 3.0, 8.0, 2.0, 0},
     {12, 0.025, 0.07, 1.5, 4.0, 2.5, 0},
     {18, 0.005, 0.02, 0.5, 2.0, 2.5, 0},
     {0, 0, 0, 0, 0, 0, 0}}};

static double smooth_base(size_t j, size_t ny)
{
    double v = ((double)j + 0.5) / (double)ny;
    return 255.0 + 45.0 * ds_cos(DS_PI * (v - 0.5));
}

typedef struct {
    double vmin, vmax;
} range_t;

/* Evaluates smooth2d into out (nothing is stored when out has no buffer), adding
 * noise of standard deviation noise_sd when it is > 0 (noisy2d), and stores the range
 * of the values in *range when range is not NULL. Returns 0 or GHZ_DS_ERR_NOMEM. */

static int gen_smooth(size_t nx, size_t ny, size_t nz, uint64_t seed, sink_t out,
                      double noise_sd, range_t* range)
{
    rng_t r = rng_make(seed, TAG_SMOOTH);
    f2_t f;
    int rc = f2_init(&f, nx, ny, &r, &SMOOTH_SPEC);
    if (rc != GHZ_DS_OK)
        return rc;
    double* row = malloc(nx * sizeof *row);
    if (!row) {
        f2_free(&f);
        return GHZ_DS_ERR_NOMEM;
    }
    /* noisy2d: sum of four uniforms (Irwin-Hall, nearly Gaussian, |z| <= 2 sqrt 3 sd),
     * counter-based from the flat index so any traversal gives the same noise. */
    const uint64_t nkey = mix64(seed ^ UINT64_C(0xD1B54A32D192ED03)) + TAG_NOISE;
    const double nscale = noise_sd * 1.7320508075688772 / 65536.0; /* sd * sqrt(3) */
    double vmin = HUGE_VAL, vmax = -HUGE_VAL;
    for (size_t k = 0; k < nz; k++) {
        for (size_t j = 0; j < ny; j++) {
            double base = smooth_base(j, ny);
            for (size_t i = 0; i < nx; i++)
                row[i] = base;
            f2_add_row(&f, j, (double)k, row);
            size_t off = (k * ny + j) * nx;
            if (noise_sd > 0.0) {
                for (size_t i = 0; i < nx; i++) {
                    uint64_t h = mix64(nkey + (uint64_t)(off + i) * UINT64_C(0x9E3779B97F4A7C15));
                    double s = (double)(h & 0xFFFF) + (double)((h >> 16) & 0xFFFF) +
                               (double)((h >> 32) & 0xFFFF) + (double)(h >> 48) -
                               131070.0; /* 65536 times a sum of four U(-1/2, 1/2) */
                    row[i] += nscale * s;
                }
            }
            for (size_t i = 0; i < nx; i++) {
                if (row[i] < vmin)
                    vmin = row[i];
                if (row[i] > vmax)
                    vmax = row[i];
            }
            if (out.f || out.d)
                sink_row(out, off, row, nx);
        }
    }
    if (range) {
        range->vmin = vmin;
        range->vmax = vmax;
    }
    free(row);
    f2_free(&f);
    return GHZ_DS_OK;
}

static int gen_noisy(size_t nx, size_t ny, size_t nz, uint64_t seed, sink_t out)
{
    /* Pass 1 finds the range of the smooth field (nothing stored), pass 2 regenerates it
     * with noise of standard deviation 2% of that range. Regenerating (rather than
     * re-reading the output) keeps the f32 output the exact rounding of the f64 one. */
    range_t rg;
    sink_t none = {NULL, NULL};
    int rc = gen_smooth(nx, ny, nz, seed, none, 0.0, &rg);
    if (rc != GHZ_DS_OK)
        return rc;
    return gen_smooth(nx, ny, nz, seed, out, 0.02 * (rg.vmax - rg.vmin), NULL);
}

/* ---- ocean2d ------------------------------------------------------------------------
 *
 * Rows span latitude -90 (j = 0) .. +90; columns span longitude. Sea surface temperature
 * in deg C: a zonal profile -1.8 + 30 cos^2(lat) (28 C at the equator), plus eddies and
 * fronts (24 plane waves of wavelengths L/60 .. L/4, 96 bumps at three scales), clamped
 * below at -1.8 C (sea water freezes; real SST products hold exactly that value under
 * sea ice). Land: a separate smooth "elevation" field (6 continent-sized bumps, 24 bays
 * and peninsulas, 16 islands, 12 coastline waves, an Antarctic cap south of about -70) is
 * thresholded at its 70th percentile, so land is 30% of the grid (to within ties) and
 * forms continent-shaped blobs. Land values are GHZ_DS_OCEAN_FILL. With nz > 1 the SST
 * evolves from slice to slice and the land mask stays the same. */

static const f2_spec_t SST_SPEC = {
    24, 1.0 / 60.0, 1.0 / 4.0, 0.5, 0.5, 0.1, 0.002, 3,
    {{6, 0.05, 0.15, 0.5, 1.5, 2.0, 0},
     {30, 0.01, 0.03, 0.4, 1.2, 2.5, 0},
     {60, 0.003, 0.01, 0.2, 0.8, 2.0, 0},
     {0, 0, 0, 0, 0, 0, 0}}};

static const f2_spec_t LAND_SPEC = {
    12, 1.0 / 30.0, 1.0 / 6.0, 0.08, 0.3, 0.0, 0.0, 3,
    {{6, 0.12, 0.22, 1.0, 1.5, 2.5, 1},
     {24, 0.02, 0.06, 0.2, 0.5, 3.0, 0},
     {16, 0.003, 0.012, 0.3, 1.2, 2.0, 1},
     {0, 0, 0, 0, 0, 0, 0}}};

static double lat_deg(size_t j, size_t ny)
{
    return -90.0 + 180.0 * (((double)j + 0.5) / (double)ny);
}

/* k-th smallest of a[0..n) (Wirth's selection; reorders a). */
static float select_kth(float* a, size_t n, size_t k)
{
    ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (l < m) {
        float x = a[kk];
        ptrdiff_t i = l, j = m;
        do {
            while (a[i] < x)
                i++;
            while (x < a[j])
                j--;
            if (i <= j) {
                float tmp = a[i];
                a[i] = a[j];
                a[j] = tmp;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk)
            l = i;
        if (kk < i)
            m = j;
    }
    return a[kk];
}

static int gen_ocean(size_t nx, size_t ny, size_t nz, uint64_t seed, sink_t out)
{
    const size_t n2 = nx * ny;
    rng_t rs = rng_make(seed, TAG_SST), rl = rng_make(seed, TAG_LAND);
    f2_t sst, land;
    int rc = f2_init(&sst, nx, ny, &rs, &SST_SPEC);
    if (rc != GHZ_DS_OK)
        return rc;
    rc = f2_init(&land, nx, ny, &rl, &LAND_SPEC);
    if (rc != GHZ_DS_OK) {
        f2_free(&sst);
        return rc;
    }
    double* row = malloc(nx * sizeof *row);
    float* elev = malloc(n2 * sizeof *elev);
    float* tmp = malloc(n2 * sizeof *tmp);
    if (!row || !elev || !tmp) {
        rc = GHZ_DS_ERR_NOMEM;
        goto done;
    }
    /* The land "elevation" and its 70th percentile. */
    for (size_t j = 0; j < ny; j++) {
        double lat = lat_deg(j, ny);
        /* Antarctic cap: a smoothstep from 0 at -64 to 3 at -76 degrees. */
        double a = (-64.0 - lat) / 12.0;
        a = a < 0.0 ? 0.0 : a > 1.0 ? 1.0 : a;
        double cap = 3.0 * a * a * (3.0 - 2.0 * a);
        for (size_t i = 0; i < nx; i++)
            row[i] = cap;
        f2_add_row(&land, j, 0.0, row);
        for (size_t i = 0; i < nx; i++)
            elev[j * nx + i] = (float)row[i];
    }
    memcpy(tmp, elev, n2 * sizeof *tmp);
    float thr = select_kth(tmp, n2, (size_t)((double)n2 * 0.70));
    free(tmp);
    tmp = NULL;

    for (size_t k = 0; k < nz; k++) {
        for (size_t j = 0; j < ny; j++) {
            double c = ds_cos(lat_deg(j, ny) * (DS_PI / 180.0));
            double base = -1.8 + 30.0 * c * c;
            for (size_t i = 0; i < nx; i++)
                row[i] = base;
            f2_add_row(&sst, j, (double)k, row);
            for (size_t i = 0; i < nx; i++) {
                if (row[i] < -1.8)
                    row[i] = -1.8;
                if (elev[j * nx + i] > thr)
                    row[i] = GHZ_DS_OCEAN_FILL_F64;
            }
            sink_row(out, (k * ny + j) * nx, row, nx);
        }
    }
done:
    free(row);
    free(elev);
    free(tmp);
    f2_free(&sst);
    f2_free(&land);
    return rc;
}

/* ---- wave3d: finite-difference time-domain acoustic wave snapshot -------------------
 *
 * Physics. The constant-density acoustic wave equation for the pressure p(x, t),
 *     d2p/dt2 = v(x)^2 lap(p) + v(x)^2 s(x, t),
 * in a layered earth model, the kind of wavefield that reverse-time migration (RTM)
 * stores at every time step and that the compression papers use as test data.
 *
 * Discretisation. Grid spacing h = 10 m on every axis. Second-order central differences
 * in time (leapfrog) and fourth-order central differences in space:
 *     lap(p) ~ sum over axes of (-p[-2] + 16 p[-1] - 30 p[0] + 16 p[+1] - p[+2]) / (12 h^2)
 *     p^{n+1} = 2 p^n - p^{n-1} + (v dt / h)^2 (h^2 lap(p^n) + h^2 s^n).
 * Von Neumann stability: the stencil's symbol is at most 16/3 per axis (at the Nyquist
 * wavenumber), so with D active axes the scheme is stable for the Courant number
 * C = v_max dt / h <= sqrt(3 / (4 D)) (0.5 in 3-D). We take C = 0.8 of that limit.
 *
 * Velocity model (seeded). The depth axis is z (k increases downward; in a 2-D run
 * it is y). A water layer at 1500 m/s on top (its bottom, the sea floor, at 12-18% of
 * the depth), then four sediment layers whose velocities increase with depth
 * (1700-2000 m/s for the first, +250..600 m/s per layer), each with a 10% compaction
 * gradient; every interface undulates (three seeded sinusoids of 1-3% of the depth
 * each, plus a dip), and an ellipsoidal salt body at 4500 m/s sits in the lower half.
 *
 * Sources. Four point sources with Ricker wavelets (peak frequency 12 Hz, delay
 * 1.2 / f0), each spread over a 3x3x3 (1,2,1)/4 stencil to limit grid noise: a shot
 * near the surface firing at t = 0, and three more at seeded positions inside the
 * volume, seeded amplitudes and signs, firing at seeded times within the first half
 * of the run, so that the snapshot holds wavefronts at several radii, their reflections
 * and transmissions at the interfaces and the salt, and the surface ghosts.
 * At 12 Hz the shortest significant wavelength (30 Hz in water) is 5 cells, which the
 * fourth-order stencil resolves with mild numerical dispersion.
 *
 * Boundaries. The top (z = 0) is a free surface: p = 0 above it (Dirichlet halo), which
 * reflects with opposite polarity as the sea surface does. The other five sides get an
 * absorbing border of 12 extra cells outside the output domain in which a damping term
 * 2 eta dp/dt is added (eta ramps quadratically to its maximum at the outer edge):
 *     p^{n+1} = (2 p^n - (1 - a) p^{n-1} + (v dt/h)^2 h^2 lap(p^n)) / (1 + a),  a = eta dt,
 * and the border is cropped from the output. Outside the border p = 0 (Dirichlet).
 *
 * Run length. Snapshot time T = 1.2 / f0 + 0.6 * (largest extent) / (mean velocity),
 * i.e. the first shot's wavefront has crossed about 60% of the domain: for 128^3 that
 * is 441 time steps of 0.89 ms. The snapshot is scaled so that max |p| = 1.
 *
 * Arithmetic is float, in a fixed order, single-threaded: deterministic. */

#define WV_H 10.0       /* grid spacing, m */
#define WV_NB 12        /* absorbing border width, cells */
#define WV_AMAX 0.25    /* eta dt at the outer edge of the border */
#define WV_F0 12.0      /* Ricker peak frequency, Hz */
#define WV_NSRC 4
#define WV_NLAYER 5     /* water + four sediment layers */
#ifndef WV_JBLOCK
#define WV_JBLOCK 16    /* rows per cache block of the sweep */
#endif

typedef struct {
    double pos[3];  /* interior cell coordinates (output domain), per axis */
    double amp, tfire;
} wv_src_t;

typedef struct {
    double zbar;               /* mean depth, cells */
    double a[3], kx[3], ky[3], ph[3];
    double dipx, dipy;         /* cells of depth per cell */
} wv_iface_t;

typedef struct {
    int dax;                   /* depth axis */
    int lat[2];                /* lateral axes (-1: none) */
    double zext;               /* depth extent, cells */
    double latc[2];            /* lateral centres */
    wv_iface_t iface[WV_NLAYER - 1];
    double vlayer[WV_NLAYER];
    double salt_c[3], salt_r[3];
    double v_salt;
} wv_model_t;

/* Depth (cells) of interface l below the lateral offsets (lx, ly) from the centre. */
static double wv_iface_depth(const wv_model_t* m, int l, double lx, double ly)
{
    const wv_iface_t* f = &m->iface[l];
    double z = f->zbar + f->dipx * lx + f->dipy * ly;
    for (int k = 0; k < 3; k++)
        z += f->a[k] * ds_sin(f->kx[k] * lx + f->ky[k] * ly + f->ph[k]);
    return z;
}

/* Velocity (m/s) at output-domain cell coordinates x[3] (may lie in the border), with
 * z[] the depths of the interfaces in that column. */
static double wv_velocity(const wv_model_t* m, const double x[3], const double* z)
{
    double depth = m->dax >= 0 ? x[m->dax] : 0.0;
    double q = 0.0; /* salt body */
    for (int a = 0; a < 3; a++) {
        double d = (x[a] - m->salt_c[a]) / m->salt_r[a];
        q += d * d;
    }
    if (q < 1.0)
        return m->v_salt;
    int layer = 0;
    for (int l = 0; l < WV_NLAYER - 1; l++)
        if (depth >= z[l])
            layer++;
    if (layer == 0)
        return m->vlayer[0];
    double rel = depth / m->zext;
    rel = rel < 0.0 ? 0.0 : rel > 1.0 ? 1.0 : rel;
    return m->vlayer[layer] * (1.0 + 0.1 * rel);
}

static double ricker(double t)
{
    double a = DS_PI * WV_F0 * t;
    a *= a;
    return (1.0 - 2.0 * a) * ds_exp(-a);
}

/* The fourth-order Laplacian times h^2 at cell c (x stride 1, y stride s1, z stride
 * s2; an inactive axis has weights 0). Fixed evaluation order: deterministic. */
#define WV_LAP(c)                                                                     \
    (w0 * p[c] + w1x * (p[(c) - 1] + p[(c) + 1]) + w2x * (p[(c) - 2] + p[(c) + 2]) +   \
     w1y * (p[(c) - s1] + p[(c) + s1]) + w2y * (p[(c) - 2 * s1] + p[(c) + 2 * s1]) +   \
     w1z * (p[(c) - s2] + p[(c) + s2]) + w2z * (p[(c) - 2 * s2] + p[(c) + 2 * s2]))

/* Values below 1e-20 in magnitude are set to 0. Ahead of every wavefront the discrete
 * stencil spreads a precursor two cells per step whose values fall off faster than
 * exponentially; without this flush most of the grid would hold subnormal floats for
 * much of the run, and subnormal arithmetic is 10-100 times slower on many CPUs (a 4x
 * slower run on Intel Xeons). Source amplitudes are O(0.01 .. 1), so the flush is 18+
 * orders of magnitude below anything visible, and it is a plain comparison: the output
 * stays deterministic and identical across platforms. */
#define WV_TINY 1e-20f
#define WV_FLUSH(v) (((v) < WV_TINY && (v) > -WV_TINY) ? 0.0f : (v))

/* One time step over cells [base + i0, base + i1) of one x row: pn, which holds p^{n-1},
 * receives p^{n+1}. damped: with the absorbing term a = dyz + damp0[i]. The bodies run
 * in groups of 8 cells (a fixed trip count that compilers vectorise even at -O2), then
 * one by one; the value of each cell is the same either way. */
static void wv_row(float* restrict pn, const float* restrict p, const float* restrict c2,
                   size_t base, size_t i0, size_t i1, size_t s1, size_t s2, float w0,
                   float w1x, float w2x, float w1y, float w2y, float w1z, float w2z,
                   const float* restrict damp0, float dyz, int damped)
{
    size_t i = i0;
    if (!damped) {
        for (; i + 8 <= i1; i += 8)
            for (size_t u = 0; u < 8; u++) {
                size_t c = base + i + u;
                float v = 2.0f * p[c] - pn[c] + c2[c] * WV_LAP(c);
                pn[c] = WV_FLUSH(v);
            }
        for (; i < i1; i++) {
            size_t c = base + i;
            float v = 2.0f * p[c] - pn[c] + c2[c] * WV_LAP(c);
            pn[c] = WV_FLUSH(v);
        }
    } else {
        for (; i + 8 <= i1; i += 8)
            for (size_t u = 0; u < 8; u++) {
                size_t c = base + i + u;
                float a = dyz + damp0[i + u];
                float v = (2.0f * p[c] - (1.0f - a) * pn[c] + c2[c] * WV_LAP(c)) / (1.0f + a);
                pn[c] = WV_FLUSH(v);
            }
        for (; i < i1; i++) {
            size_t c = base + i;
            float a = dyz + damp0[i];
            float v = (2.0f * p[c] - (1.0f - a) * pn[c] + c2[c] * WV_LAP(c)) / (1.0f + a);
            pn[c] = WV_FLUSH(v);
        }
    }
}

static int gen_wave(size_t nx, size_t ny, size_t nz, uint64_t seed, sink_t out)
{
    const size_t n[3] = {nx, ny, nz};
    int act[3], D = 0, dax = -1;
    size_t lo[3], E[3], hl[3], A[3];
    for (int a = 0; a < 3; a++) {
        act[a] = n[a] > 1;
        D += act[a];
        if (act[a])
            dax = a;
    }
    for (int a = 0; a < 3; a++) {
        lo[a] = (act[a] && a != dax) ? WV_NB : 0; /* no border above the free surface */
        size_t hi = act[a] ? WV_NB : 0;
        /* a halo of 2 zero cells (the Dirichlet condition) around active axes, and
         * always along x, whose stencil reads p[c +- 1], p[c +- 2] unconditionally */
        hl[a] = (act[a] || a == 0) ? 2 : 0;
        E[a] = n[a] + lo[a] + hi;
        A[a] = E[a] + 2 * hl[a];
    }
    /* sizes: n already fits in size_t (checked by the caller); A is n plus borders */
    size_t total = A[0];
    if (A[1] > SIZE_MAX / total)
        return GHZ_DS_ERR_DIMS;
    total *= A[1];
    if (A[2] > SIZE_MAX / total || total * A[2] > SIZE_MAX / (3 * sizeof(float)))
        return GHZ_DS_ERR_DIMS;
    total *= A[2];
    const size_t s1 = A[0], s2 = A[0] * A[1];
    const size_t st[3] = {1, s1, s2};

    int rc = GHZ_DS_OK;
    float* p = calloc(total, sizeof *p);
    float* pn = calloc(total, sizeof *pn);
    float* c2 = calloc(total, sizeof *c2);
    float* damp[3] = {NULL, NULL, NULL};
    double* zt = NULL;
    for (int a = 0; a < 3; a++)
        damp[a] = calloc(E[a], sizeof(float));
    if (!p || !pn || !c2 || !damp[0] || !damp[1] || !damp[2]) {
        rc = GHZ_DS_ERR_NOMEM;
        goto done;
    }

    /* --- the velocity model --- */
    rng_t r = rng_make(seed, TAG_WAVE);
    wv_model_t m;
    memset(&m, 0, sizeof m);
    m.dax = dax;
    m.lat[0] = m.lat[1] = -1;
    {
        int nl = 0;
        for (int a = 0; a < 3; a++)
            if (act[a] && a != dax)
                m.lat[nl++] = a;
    }
    m.zext = dax >= 0 ? (double)n[dax] : 1.0;
    double latext = 1.0; /* largest lateral extent, cells */
    for (int l = 0; l < 2; l++) {
        if (m.lat[l] >= 0) {
            m.latc[l] = 0.5 * (double)n[m.lat[l]];
            if ((double)n[m.lat[l]] > latext)
                latext = (double)n[m.lat[l]];
        }
    }
    m.vlayer[0] = 1500.0;
    m.vlayer[1] = rng_uniform(&r, 1700.0, 2000.0);
    for (int l = 2; l < WV_NLAYER; l++)
        m.vlayer[l] = m.vlayer[l - 1] + rng_uniform(&r, 250.0, 600.0);
    {
        double zf = rng_uniform(&r, 0.12, 0.18);
        for (int l = 0; l < WV_NLAYER - 1; l++) {
            wv_iface_t* f = &m.iface[l];
            f->zbar = zf * m.zext;
            for (int k = 0; k < 3; k++) {
                double lambda = rng_uniform(&r, 0.3, 1.2) * latext;
                double th = rng_uniform(&r, 0.0, 2.0 * DS_PI);
                f->a[k] = rng_uniform(&r, 0.01, 0.03) * m.zext;
                f->kx[k] = 2.0 * DS_PI / lambda * ds_cos(th);
                f->ky[k] = 2.0 * DS_PI / lambda * ds_sin(th);
                f->ph[k] = rng_uniform(&r, 0.0, 2.0 * DS_PI);
            }
            f->dipx = rng_uniform(&r, -0.08, 0.08);
            f->dipy = rng_uniform(&r, -0.08, 0.08);
            zf += rng_uniform(&r, 0.12, 0.2);
        }
    }
    for (int a = 0; a < 3; a++) {
        double na = (double)n[a];
        if (!act[a]) {
            m.salt_c[a] = 0.0;
            m.salt_r[a] = 1.0; /* a flat axis: |x - c| = 0 */
        } else if (a == dax) {
            m.salt_c[a] = rng_uniform(&r, 0.6, 0.75) * na;
            m.salt_r[a] = rng_uniform(&r, 0.1, 0.16) * na;
        } else {
            m.salt_c[a] = rng_uniform(&r, 0.3, 0.7) * na;
            m.salt_r[a] = rng_uniform(&r, 0.12, 0.2) * na;
        }
    }
    m.v_salt = 4500.0;

    /* v into c2 (as v for now), its maximum and its mean over the output domain */
    const size_t nl0 = m.lat[0] >= 0 ? E[m.lat[0]] : 1;
    const size_t nl1 = m.lat[1] >= 0 ? E[m.lat[1]] : 1;
    zt = malloc(nl0 * nl1 * (WV_NLAYER - 1) * sizeof *zt);
    if (!zt) {
        rc = GHZ_DS_ERR_NOMEM;
        goto done;
    }
    for (size_t b = 0; b < nl1; b++)
        for (size_t a = 0; a < nl0; a++) {
            double lx = m.lat[0] >= 0 ? (double)a - (double)lo[m.lat[0]] - m.latc[0] : 0.0;
            double ly = m.lat[1] >= 0 ? (double)b - (double)lo[m.lat[1]] - m.latc[1] : 0.0;
            for (int l = 0; l < WV_NLAYER - 1; l++)
                zt[(b * nl0 + a) * (WV_NLAYER - 1) + (size_t)l] = wv_iface_depth(&m, l, lx, ly);
        }
    double vmax = 0.0, vsum = 0.0;
    for (size_t k = 0; k < E[2]; k++) {
        for (size_t j = 0; j < E[1]; j++) {
            for (size_t i = 0; i < E[0]; i++) {
                size_t e[3] = {i, j, k};
                double x[3];
                int inside = 1;
                for (int a = 0; a < 3; a++) {
                    x[a] = (double)e[a] - (double)lo[a];
                    if (e[a] < lo[a] || e[a] >= lo[a] + n[a])
                        inside = 0;
                }
                size_t ea = m.lat[0] >= 0 ? e[m.lat[0]] : 0;
                size_t eb = m.lat[1] >= 0 ? e[m.lat[1]] : 0;
                double v = wv_velocity(&m, x, zt + (eb * nl0 + ea) * (WV_NLAYER - 1));
                if (v > vmax)
                    vmax = v;
                if (inside)
                    vsum += v;
                c2[(k + hl[2]) * s2 + (j + hl[1]) * s1 + i + hl[0]] = (float)v;
            }
        }
    }
    const double vmean = vsum / ((double)nx * (double)ny * (double)nz);
    const double courant = D > 0 ? 0.8 * sqrt(3.0 / (4.0 * (double)D)) : 0.5;
    const double dt = courant * WV_H / vmax;
    for (size_t c = 0; c < total; c++) {
        double cv = (double)c2[c] * dt / WV_H;
        c2[c] = (float)(cv * cv);
    }

    /* damping profiles: a = AMAX (d / NB)^2 at d cells into the border */
    for (int a = 0; a < 3; a++) {
        for (size_t e = 0; e < E[a]; e++) {
            double d = 0.0;
            if (e < lo[a])
                d = (double)(lo[a] - e);
            else if (e >= lo[a] + n[a])
                d = (double)(e - (lo[a] + n[a]) + 1);
            damp[a][e] = (float)(WV_AMAX * (d / WV_NB) * (d / WV_NB));
        }
    }

    /* --- run length and sources --- */
    double lmax = 1.0;
    for (int a = 0; a < 3; a++)
        if (act[a] && (double)n[a] > lmax)
            lmax = (double)n[a];
    const double t0 = 1.2 / WV_F0;
    const double T = t0 + 0.6 * lmax * WV_H / vmean;
    const long nt = (long)ceil(T / dt);

    wv_src_t src[WV_NSRC];
    for (int s = 0; s < WV_NSRC; s++) {
        for (int a = 0; a < 3; a++) {
            double na = (double)n[a];
            if (!act[a])
                src[s].pos[a] = 0.0;
            else if (s == 0 && a == dax)
                src[s].pos[a] = floor(0.04 * na) + 1.0; /* shot just below the surface */
            else if (s == 0)
                src[s].pos[a] = floor(rng_uniform(&r, 0.35, 0.65) * na);
            else
                src[s].pos[a] = floor(rng_uniform(&r, 0.15, 0.85) * na);
            if (src[s].pos[a] > na - 1.0)
                src[s].pos[a] = na - 1.0;
        }
        src[s].amp = s == 0 ? 1.0 : rng_uniform(&r, 0.6, 1.0) * rng_sign(&r);
        src[s].tfire = s == 0 ? 0.0 : rng_uniform(&r, 0.1, 0.5) * (T - t0);
    }

    /* --- time loop --- */
    const float W1 = 4.0f / 3.0f, W2 = -1.0f / 12.0f;
    const float w1x = act[0] ? W1 : 0.0f, w2x = act[0] ? W2 : 0.0f;
    const float w1y = act[1] ? W1 : 0.0f, w2y = act[1] ? W2 : 0.0f;
    const float w1z = act[2] ? W1 : 0.0f, w2z = act[2] ? W2 : 0.0f;
    const float w0 = -2.5f * (float)D;
    /* inactive axes: the halo is 0 wide, so their strides must not be used: weight 0
     * and stride 0 read p[c] itself, which a zero weight cancels exactly */
    const size_t sy = act[1] ? s1 : 0, sz = act[2] ? s2 : 0;
    for (long it = 0; it < nt; it++) {
        /* y-blocked sweep: the 5 planes the z-stencil touches stay in cache */
        for (size_t jb = 0; jb < E[1]; jb += WV_JBLOCK)
        for (size_t k = 0; k < E[2]; k++) {
            size_t jend = jb + WV_JBLOCK < E[1] ? jb + WV_JBLOCK : E[1];
            for (size_t j = jb; j < jend; j++) {
                size_t base = (k + hl[2]) * s2 + (j + hl[1]) * s1 + hl[0];
                float dyz = damp[1][j] + damp[2][k];
                if (dyz != 0.0f) {
                    wv_row(pn, p, c2, base, 0, E[0], sy, sz, w0, w1x, w2x, w1y, w2y, w1z,
                           w2z, damp[0], dyz, 1);
                } else {
                    size_t a0 = lo[0], a1 = lo[0] + n[0];
                    wv_row(pn, p, c2, base, 0, a0, sy, sz, w0, w1x, w2x, w1y, w2y, w1z, w2z,
                           damp[0], 0.0f, 1);
                    wv_row(pn, p, c2, base, a0, a1, sy, sz, w0, w1x, w2x, w1y, w2y, w1z, w2z,
                           damp[0], 0.0f, 0);
                    wv_row(pn, p, c2, base, a1, E[0], sy, sz, w0, w1x, w2x, w1y, w2y, w1z,
                           w2z, damp[0], 0.0f, 1);
                }
            }
        }
        /* sources, injected into p^{n+1} as (v dt/h)^2 s(t_n), spread (1,2,1)/4 per axis */
        const double t = (double)it * dt;
        for (int s = 0; s < WV_NSRC; s++) {
            double w = ricker(t - src[s].tfire - t0);
            if (t < src[s].tfire || fabs(w) < 1e-12)
                continue; /* not fired yet, or the wavelet's negligible tails */
            size_t ec[3];
            for (int a = 0; a < 3; a++)
                ec[a] = (size_t)src[s].pos[a] + lo[a];
            size_t cc = (ec[2] + hl[2]) * s2 + (ec[1] + hl[1]) * s1 + ec[0] + hl[0];
            float f = (float)((double)c2[cc] * src[s].amp * w);
            for (int dz = -1; dz <= 1; dz++) {
                for (int dy = -1; dy <= 1; dy++) {
                    for (int dx = -1; dx <= 1; dx++) {
                        int d[3] = {dx, dy, dz};
                        float wt = 1.0f;
                        int ok = 1;
                        for (int a = 0; a < 3; a++) {
                            if (!act[a]) {
                                if (d[a] != 0)
                                    ok = 0;
                                continue;
                            }
                            if ((d[a] < 0 && ec[a] == 0) || (d[a] > 0 && ec[a] + 1 >= E[a]))
                                ok = 0;
                            wt *= d[a] == 0 ? 0.5f : 0.25f;
                        }
                        if (!ok)
                            continue;
                        size_t cell = cc;
                        for (int a = 0; a < 3; a++) {
                            if (d[a] > 0)
                                cell += st[a];
                            else if (d[a] < 0)
                                cell -= st[a];
                        }
                        pn[cell] += wt * f;
                    }
                }
            }
        }
        float* sw = p;
        p = pn;
        pn = sw;
    }

    /* --- the snapshot, cropped and scaled to max |p| = 1 --- */
    {
        double pmax = 0.0;
        for (size_t k = 0; k < nz; k++)
            for (size_t j = 0; j < ny; j++) {
                size_t base = (k + lo[2] + hl[2]) * s2 + (j + lo[1] + hl[1]) * s1 + lo[0] + hl[0];
                for (size_t i = 0; i < nx; i++) {
                    double v = fabs((double)p[base + i]);
                    if (v > pmax)
                        pmax = v;
                }
            }
        const double scale = pmax > 0.0 ? 1.0 / pmax : 0.0;
        double* row = malloc(nx * sizeof *row);
        if (!row) {
            rc = GHZ_DS_ERR_NOMEM;
            goto done;
        }
        for (size_t k = 0; k < nz; k++)
            for (size_t j = 0; j < ny; j++) {
                size_t base = (k + lo[2] + hl[2]) * s2 + (j + lo[1] + hl[1]) * s1 + lo[0] + hl[0];
                for (size_t i = 0; i < nx; i++)
                    row[i] = (double)p[base + i] * scale;
                sink_row(out, (k * ny + j) * nx, row, nx);
            }
        free(row);
    }

done:
    free(zt);
    free(p);
    free(pn);
    free(c2);
    for (int a = 0; a < 3; a++)
        free(damp[a]);
    return rc;
}

/* ---- the public API -------------------------------------------------------------- */

typedef int (*gen_fn)(size_t, size_t, size_t, uint64_t, sink_t);

static int gen_smooth_only(size_t nx, size_t ny, size_t nz, uint64_t seed, sink_t out)
{
    return gen_smooth(nx, ny, nz, seed, out, 0.0, NULL);
}

typedef struct {
    const char* name;
    size_t dims[3];
    gen_fn fn;
    const char* desc;
} field_def_t;

static const field_def_t FIELDS[] = {
    {"wave3d", {128, 128, 128}, gen_wave,
     "3-D acoustic wave snapshot (FDTD, layered model with salt, 4 Ricker sources), max |p| = 1"},
    {"smooth2d", {2048, 1024, 1}, gen_smooth_only,
     "smooth multi-scale 2-D field, temperature-like, in K"},
    {"noisy2d", {2048, 1024, 1}, gen_noisy,
     "smooth2d plus white noise (sd = 2% of its range)"},
    {"ocean2d", {1440, 720, 1}, gen_ocean,
     "sea-surface-temperature-like field in deg C, ~30% land = -1e34f (fill)"},
    {"frames", {512, 512, 16}, ghz_ds_internal_frames,
     "nz astronomical frames of one scene (stars, galaxies, sky), noise, jitter, hot pixels, ADU"},
};
#define NFIELDS (sizeof FIELDS / sizeof FIELDS[0])

static const char* const NAMES[] = {"wave3d", "smooth2d", "noisy2d", "ocean2d", "frames", NULL};

static const field_def_t* find_field(const char* name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(FIELDS[i].name, name) == 0)
            return &FIELDS[i];
    return NULL;
}

const char* ghz_ds_strerror(int code)
{
    switch (code) {
    case GHZ_DS_OK: return "success";
    case GHZ_DS_ERR_ARG: return "invalid argument";
    case GHZ_DS_ERR_NAME: return "unknown field name";
    case GHZ_DS_ERR_DIMS: return "dimensions too large";
    case GHZ_DS_ERR_NOMEM: return "out of memory";
    case GHZ_DS_ERR_OPEN: return "cannot open file";
    case GHZ_DS_ERR_READ: return "read error";
    case GHZ_DS_ERR_WRITE: return "write error";
    case GHZ_DS_ERR_SIZE: return "file size is not a multiple of the element size";
    case GHZ_DS_ERR_TOO_BIG: return "file too large for memory";
    default: return "unknown error";
    }
}

const char* const* ghz_ds_names(void)
{
    return NAMES;
}

const char* ghz_ds_description(const char* name)
{
    const field_def_t* f = find_field(name);
    return f ? f->desc : NULL;
}

int ghz_ds_default_dims(const char* name, size_t dims[3])
{
    if (!name || !dims)
        return GHZ_DS_ERR_ARG;
    const field_def_t* f = find_field(name);
    if (!f)
        return GHZ_DS_ERR_NAME;
    dims[0] = f->dims[0];
    dims[1] = f->dims[1];
    dims[2] = f->dims[2];
    return GHZ_DS_OK;
}

static int generate(const char* name, size_t nx, size_t ny, size_t nz, uint64_t seed,
                    sink_t out, size_t elem)
{
    if (!name)
        return GHZ_DS_ERR_ARG;
    const field_def_t* f = find_field(name);
    if (!f)
        return GHZ_DS_ERR_NAME;
    if (nx == 0 || ny == 0 || nz == 0)
        return GHZ_DS_OK;
    if (!out.f && !out.d)
        return GHZ_DS_ERR_ARG;
    if (ny > SIZE_MAX / nx || nz > SIZE_MAX / (nx * ny) ||
        nx * ny * nz > SIZE_MAX / 8 / elem)
        return GHZ_DS_ERR_DIMS;
    return f->fn(nx, ny, nz, seed, out);
}

int ghz_ds_generate(const char* name, size_t nx, size_t ny, size_t nz, uint64_t seed,
                    float* out)
{
    sink_t s = {out, NULL};
    return generate(name, nx, ny, nz, seed, s, sizeof(float));
}

int ghz_ds_generate_f64(const char* name, size_t nx, size_t ny, size_t nz, uint64_t seed,
                        double* out)
{
    sink_t s = {NULL, out};
    return generate(name, nx, ny, nz, seed, s, sizeof(double));
}

/* ---- raw files ------------------------------------------------------------------- */

static int host_is_big_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 0;
}

static void byteswap(unsigned char* p, size_t n, size_t elem)
{
    for (size_t e = 0; e < n; e++, p += elem)
        for (size_t a = 0, b = elem - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

int ghz_ds_load_raw(const char* path, size_t elem_size, void** out, size_t* n)
{
    if (out)
        *out = NULL;
    if (n)
        *n = 0;
    if (!path || !out || !n || elem_size == 0)
        return GHZ_DS_ERR_ARG;
    FILE* fp = fopen(path, "rb");
    if (!fp)
        return GHZ_DS_ERR_OPEN;

    /* The file size, as a hint only: ftell is a long, a pipe has none, and a directory
     * may claim any size. The first 64 KiB are read into a small buffer; only a file
     * that delivers them gets a buffer of the hinted size, and the loop grows the
     * buffer (doubling) whenever the hint was short. */
    size_t hint = 0;
    if (fseek(fp, 0, SEEK_END) == 0) {
        long end = ftell(fp);
        if (end > 0 && (unsigned long)end < SIZE_MAX)
            hint = (size_t)end;
    }
    if (fseek(fp, 0, SEEK_SET) != 0 && hint > 0) {
        fclose(fp);
        return GHZ_DS_ERR_READ;
    }
    clearerr(fp);
    const size_t first = (size_t)1 << 16;
    size_t cap = (hint > 0 && hint < first ? hint : first) + 1; /* +1 detects EOF */
    unsigned char* buf = malloc(cap);
    if (!buf) {
        fclose(fp);
        return GHZ_DS_ERR_NOMEM;
    }
    size_t len = 0;
    int rc = GHZ_DS_OK;
    for (;;) {
        if (len == cap) {
            size_t want;
            if (hint >= cap && hint < SIZE_MAX)
                want = hint + 1;
            else if (cap <= SIZE_MAX / 2)
                want = cap * 2;
            else {
                rc = GHZ_DS_ERR_TOO_BIG;
                break;
            }
            unsigned char* nb = realloc(buf, want);
            if (!nb) {
                rc = GHZ_DS_ERR_NOMEM;
                break;
            }
            buf = nb;
            cap = want;
        }
        size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (len < cap) {
            if (ferror(fp))
                rc = GHZ_DS_ERR_READ;
            else if (!feof(fp))
                continue; /* a short read without EOF or error: read on */
            break;
        }
    }
    fclose(fp);
    if (rc == GHZ_DS_OK && len % elem_size != 0)
        rc = GHZ_DS_ERR_SIZE;
    if (rc != GHZ_DS_OK) {
        free(buf);
        return rc;
    }
    if (len + 1 < cap) { /* give back the slack (keep at least one byte) */
        unsigned char* nb = realloc(buf, len ? len : 1);
        if (nb)
            buf = nb;
    }
    if (host_is_big_endian() && (elem_size == 2 || elem_size == 4 || elem_size == 8))
        byteswap(buf, len / elem_size, elem_size);
    *out = buf;
    *n = len / elem_size;
    return GHZ_DS_OK;
}

int ghz_ds_save_raw(const char* path, const void* data, size_t bytes)
{
    if (!path || (!data && bytes > 0))
        return GHZ_DS_ERR_ARG;
    FILE* fp = fopen(path, "wb");
    if (!fp)
        return GHZ_DS_ERR_OPEN;
    int rc = GHZ_DS_OK;
    if (bytes > 0 && fwrite(data, 1, bytes, fp) != bytes)
        rc = GHZ_DS_ERR_WRITE;
    if (fclose(fp) != 0 && rc == GHZ_DS_OK)
        rc = GHZ_DS_ERR_WRITE;
    return rc;
}
