/* ghz/tools/cli/metrics.c: error statistics. Compiled without FP contraction (the
 * exact bound test below relies on an error-free transformation). */
#include <math.h>
#include <string.h>

#include "ghz/codec/codec.h"
#include "metrics.h"

void cli_metrics_init(cli_metrics* m)
{
    memset(m, 0, sizeof *m);
    m->vmin = m->vmax = NAN;
}

static double load(ghz_dtype_t t, const unsigned char* p, size_t i, uint64_t* bits)
{
    if (t == GHZ_F32) {
        float f;
        uint32_t u;
        memcpy(&f, p + 4 * i, 4);
        memcpy(&u, p + 4 * i, 4);
        *bits = u;
        return (double)f;
    } else {
        double d;
        memcpy(&d, p + 8 * i, 8);
        memcpy(bits, p + 8 * i, 8);
        return d;
    }
}

/* |x - y| > e for the exact real numbers. Rounding is monotone, so the rounded
 * difference decides unless it equals e; then the two-sum error term does. */
static int exceeds(double x, double y, double e)
{
    double s = x - y, a = fabs(s), bp, err;
    if (a != e) return a > e;
    bp = s - x;
    err = (x - (s - bp)) + (-y - bp);
    return (s > 0 && err > 0) || (s < 0 && err < 0);
}

/* Running figures of one call, in locals: the values are read through char
 * pointers, which may alias *m. A group is a run of values under one bound (a
 * frame, or a fixed-rate block). */
typedef struct {
    double lo, hi, max_err, max_ratio, group_max;
    long double sq;
    uint64_t valued, over;
} acc_t;

static void acc_start(acc_t* a, const cli_metrics* m)
{
    memset(a, 0, sizeof *a);
    a->lo = m->vmin;
    a->hi = m->vmax;
    a->max_err = m->max_err;
    a->max_ratio = m->max_ratio;
}

/* A finite original x (not fill) decoded as y, promised |x - y| <= e. */
static void acc_value(acc_t* a, double x, double y, double e)
{
    double d;
    a->valued++;
    if (!(x >= a->lo)) a->lo = x; /* also replaces the initial NaN */
    if (!(x <= a->hi)) a->hi = x;
    if (!isfinite(y)) {
        a->group_max = INFINITY;
        a->over++;
        return;
    }
    d = fabs(x - y);
    if (d > a->group_max) a->group_max = d;
    a->sq += (long double)d * (long double)d;
    if (exceeds(x, y, e)) a->over++;
}

/* Ends a group of `valued` measured values whose bound was e. */
static void acc_group_end(acc_t* a, uint64_t valued, double e)
{
    if (valued) {
        double r = e > 0 ? a->group_max / e : a->group_max > 0 ? INFINITY : 0.0;
        if (r > a->max_ratio) a->max_ratio = r;
    }
    if (a->group_max > a->max_err) a->max_err = a->group_max;
    a->group_max = 0.0;
}

static void acc_finish(const acc_t* a, cli_metrics* m, size_t n)
{
    m->n += n;
    m->n_valued += a->valued;
    m->vmin = a->lo;
    m->vmax = a->hi;
    m->sum_sq += a->sq;
    m->max_err = a->max_err;
    m->max_ratio = a->max_ratio;
    m->over_bound += a->over;
}

void cli_metrics_add(cli_metrics* m, ghz_dtype_t dtype, const void* orig, const void* dec,
                     size_t n, int has_fill, uint64_t fill_bits, double eb_abs)
{
    const unsigned char* a = (const unsigned char*)orig;
    const unsigned char* b = (const unsigned char*)dec;
    acc_t acc;
    size_t i;
    acc_start(&acc, m);
    for (i = 0; i < n; ++i) {
        uint64_t xa, xb;
        double x = load(dtype, a, i, &xa), y = load(dtype, b, i, &xb);
        if (!isfinite(x) || (has_fill && xa == fill_bits)) {
            if (xa != xb) m->not_exact++;
            continue;
        }
        acc_value(&acc, x, y, eb_abs);
    }
    acc_group_end(&acc, acc.valued, eb_abs);
    acc_finish(&acc, m, n);
}

/* FIXED.md's bound for a block of largest finite magnitude M, never below the exact
 * one: the quotient and sums below round, so the result is padded by 2^-50 of itself
 * (several ulps); the smallest subnormal of the dtype, twice, covers both r of a
 * subnormal result (at most half of it) and an underflow in ldexp. */
static double fixed_bound(ghz_dtype_t dtype, unsigned bits, double M)
{
    double e = ldexp(M, 1 - (int)bits) / (1.0 - ldexp(1.0, -(int)bits));
    if (dtype == GHZ_F32 && bits == 32) e += ldexp(M, -24); /* 31-bit codes in a float */
    e += e * 0x1p-50;
    return e + (dtype == GHZ_F32 ? 0x1p-148 : 0x1p-1073);
}

/* What FIXED.md promises for a NaN or Inf x: NaN stays NaN, Inf comes back as itself
 * or, in a block that mixes kinds, as NaN; never as a finite value. */
static int special_kept(double x, double y)
{
    return isnan(x) ? isnan(y) : isnan(y) || y == x;
}

void cli_metrics_add_fixed(cli_metrics* m, ghz_dtype_t dtype, unsigned bits, const void* orig,
                           const void* dec, size_t n)
{
    const unsigned char* a = (const unsigned char*)orig;
    const unsigned char* b = (const unsigned char*)dec;
    acc_t acc;
    size_t start, i;
    uint64_t bits_of;
    acc_start(&acc, m);
    for (start = 0; start < n; start += GHZ_BLOCK_ELEMS) {
        size_t end = n - start < GHZ_BLOCK_ELEMS ? n : start + GHZ_BLOCK_ELEMS;
        uint64_t before = acc.valued;
        double big = 0.0, e;
        for (i = start; i < end; ++i) {
            double x = fabs(load(dtype, a, i, &bits_of));
            if (isfinite(x) && x > big) big = x;
        }
        e = fixed_bound(dtype, bits, big);
        for (i = start; i < end; ++i) {
            double x = load(dtype, a, i, &bits_of), y = load(dtype, b, i, &bits_of);
            if (!isfinite(x)) {
                if (!special_kept(x, y)) m->not_exact++;
                continue;
            }
            acc_value(&acc, x, y, e);
        }
        acc_group_end(&acc, acc.valued - before, e);
    }
    acc_finish(&acc, m, n);
}

double cli_metrics_range(const cli_metrics* m)
{
    return m->n_valued ? m->vmax - m->vmin : NAN;
}

double cli_metrics_mse(const cli_metrics* m)
{
    return m->n_valued ? (double)(m->sum_sq / (long double)m->n_valued) : NAN;
}

double cli_metrics_psnr(const cli_metrics* m)
{
    double r = cli_metrics_range(m), mse = cli_metrics_mse(m);
    if (!(r > 0) || isnan(mse)) return NAN;
    if (mse == 0) return INFINITY;
    return 20.0 * log10(r) - 10.0 * log10(mse);
}

double cli_metrics_nrmse(const cli_metrics* m)
{
    double r = cli_metrics_range(m), mse = cli_metrics_mse(m);
    if (!(r > 0) || isnan(mse)) return NAN;
    return sqrt(mse) / r;
}
