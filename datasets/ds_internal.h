/* datasets/ds_internal.h: what the generators of datasets/ share (internal, not
 * installed): the splitmix64 PRNG, exp/sin/cos/log made of + - * / (so that the output
 * does not depend on the C library's libm, see datasets.h), and the float-or-double
 * output sink. Everything is static inline: each generator file gets its own copy. */
#ifndef GHZ_DATASETS_DS_INTERNAL_H
#define GHZ_DATASETS_DS_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* No contraction of a*b+c into fused multiply-adds, whatever the flags (Clang honours
 * the standard pragma; GCC ignores it, but does not contract in ISO C mode, and the
 * CMake target passes -ffp-contract=off anyway). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
/* The "frames" field (frames.c): nz frames of the default stack. */
int ghz_ds_internal_frames(size_t nx, size_t ny, size_t nz, uint64_t seed, sink_t out);

#endif

/* ---- PRNG: splitmix64 (Steele, Lea, Flood 2014), the same on every platform ---- */

typedef struct {
    uint64_t s;
} rng_t;

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline uint64_t rng_next(rng_t* r)
{
    r->s += UINT64_C(0x9E3779B97F4A7C15);
    return mix64(r->s);
}

/* An independent stream per (seed, tag): the tags name the fields' parts. */
static inline rng_t rng_make(uint64_t seed, uint64_t tag)
{
    rng_t r;
    r.s = mix64(seed ^ mix64(tag + UINT64_C(0x6A09E667F3BCC909)));
    return r;
}

/* Uniform in [0, 1), 53 random bits. */
static inline double rng_u01(rng_t* r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double rng_uniform(rng_t* r, double a, double b)
{
    return a + (b - a) * rng_u01(r);
}

/* +1 or -1 with equal probability. */
static inline double rng_sign(rng_t* r)
{
    return (rng_next(r) >> 63) ? -1.0 : 1.0;
}

/* ---- exp, sin, cos from basic arithmetic (libm-independent) ---------------------- */

/* exp(x) to about 1e-15 relative: x = k ln2 + r, |r| <= ln2/2, Taylor polynomial of
 * degree 13 in r, then an exact scaling by 2^k. Results below 1e-300 flush to 0. */
static inline double ds_exp(double x)
{
    if (!(x > -690.0))
        return 0.0; /* also NaN: never happens here */
    if (x > 709.0)
        return HUGE_VAL;
    const double ln2_hi = 6.93147180369123816490e-01; /* fdlibm's split of ln 2 */
    const double ln2_lo = 1.90821492927058770002e-10;
    double kf = floor(x * 1.44269504088896338700 + 0.5);
    double r = (x - kf * ln2_hi) - kf * ln2_lo;
    double p = 1.0 / 6227020800.0; /* 1/13! */
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    return ldexp(p, (int)kf); /* exact: the result is a normal number */
}

/* sin(x) and cos(x) to about 1e-15 absolute for |x| < 1e6: x = k pi/2 + r with a
 * three-part pi/2 (fdlibm's constants), Taylor polynomials on |r| <= pi/4. */
static inline void ds_sincos(double x, double* s, double* c)
{
    const double pio2_1 = 1.57079632673412561417e+00; /* first 33 bits of pi/2 */
    const double pio2_2 = 6.07710050630396597660e-11; /* next 33 bits */
    const double pio2_3 = 2.02226624879595063154e-21; /* the rest */
    double kf = floor(x * 6.36619772367581382433e-01 + 0.5);
    double r = ((x - kf * pio2_1) - kf * pio2_2) - kf * pio2_3;
    double r2 = r * r;
    double ps = -1.0 / 1307674368000.0; /* -1/15! */
    ps = ps * r2 + 1.0 / 6227020800.0;
    ps = ps * r2 - 1.0 / 39916800.0;
    ps = ps * r2 + 1.0 / 362880.0;
    ps = ps * r2 - 1.0 / 5040.0;
    ps = ps * r2 + 1.0 / 120.0;
    ps = ps * r2 - 1.0 / 6.0;
    double sr = r + r * r2 * ps;
    double pc = 1.0 / 20922789888000.0; /* 1/16! */
    pc = pc * r2 - 1.0 / 87178291200.0;
    pc = pc * r2 + 1.0 / 479001600.0;
    pc = pc * r2 - 1.0 / 3628800.0;
    pc = pc * r2 + 1.0 / 40320.0;
    pc = pc * r2 - 1.0 / 720.0;
    pc = pc * r2 + 1.0 / 24.0;
    pc = pc * r2 - 0.5;
    double cr = 1.0 + r2 * pc;
    double q = kf - 4.0 * floor(kf * 0.25); /* k mod 4, exact */
    if (q == 0.0) {
        *s = sr;
        *c = cr;
    } else if (q == 1.0) {
        *s = cr;
        *c = -sr;
    } else if (q == 2.0) {
        *s = -sr;
        *c = -cr;
    } else {
        *s = -cr;
        *c = sr;
    }
}

static inline double ds_sin(double x)
{
    double s, c;
    ds_sincos(x, &s, &c);
    return s;
}

static inline double ds_cos(double x)
{
    double s, c;
    ds_sincos(x, &s, &c);
    return c;
}

#define DS_PI 3.14159265358979323846

/* ln(y) for y > 0: y = m 2^e with m in [0.5, 1) (frexp, exact), ln m by Newton's
 * iteration on ds_exp (quadratic convergence from m - 1; 8 steps are plenty). */
static inline double ds_log(double y)
{
    int e;
    double m = frexp(y, &e);
    double l = m - 1.0; /* start */
    for (int it = 0; it < 8; it++)
        l = l - 1.0 + m / ds_exp(l);
    return (double)e * 6.93147180559945309417e-01 + l;
}

/* Log-uniform in [a, b], 0 < a <= b: a (b/a)^u. */
static inline double rng_loguniform(rng_t* r, double a, double b)
{
    return a * ds_exp(rng_u01(r) * ds_log(b / a));
}

/* ---- output sink: float or double ---------------------------------------------- */

typedef struct {
    float* f;
    double* d;
} sink_t;

static inline void sink_row(sink_t s, size_t off, const double* row, size_t n)
{
    if (s.f) {
        for (size_t i = 0; i < n; i++)
            s.f[off + i] = (float)row[i];
    } else {
        memcpy(s.d + off, row, n * sizeof *row);
    }
}

/* The "frames" field (frames.c): nz frames of the default stack. */
int ghz_ds_internal_frames(size_t nx, size_t ny, size_t nz, uint64_t seed, sink_t out);

#endif
