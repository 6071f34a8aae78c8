/* ghz/tools/cli/metrics.c: error statistics. Compiled without FP contraction (the
 * exact bound test below relies on an error-free transformation). */
#include <math.h>
#include <string.h>

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

void cli_metrics_add(cli_metrics* m, ghz_dtype_t dtype, const void* orig, const void* dec,
                     size_t n, int has_fill, uint64_t fill_bits, double eb_abs)
{
    const unsigned char* a = (const unsigned char*)orig;
    const unsigned char* b = (const unsigned char*)dec;
    double lo = m->vmin, hi = m->vmax, frame_max = 0.0;
    long double sq = 0.0L;
    uint64_t valued = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        uint64_t xa, xb;
        double x = load(dtype, a, i, &xa), y = load(dtype, b, i, &xb), d;
        if (!isfinite(x) || (has_fill && xa == fill_bits)) {
            if (xa != xb) m->not_exact++;
            continue;
        }
        valued++;
        if (!(x >= lo)) lo = x; /* also replaces the initial NaN */
        if (!(x <= hi)) hi = x;
        if (!isfinite(y)) {
            frame_max = INFINITY;
            m->over_bound++;
            continue;
        }
        d = fabs(x - y);
        if (d > frame_max) frame_max = d;
        sq += (long double)d * (long double)d;
        if (exceeds(x, y, eb_abs)) m->over_bound++;
    }
    m->n += n;
    m->n_valued += valued;
    m->vmin = lo;
    m->vmax = hi;
    m->sum_sq += sq;
    if (frame_max > m->max_err) m->max_err = frame_max;
    if (valued) {
        double r = eb_abs > 0 ? frame_max / eb_abs : frame_max > 0 ? INFINITY : 0.0;
        if (r > m->max_ratio) m->max_ratio = r;
    }
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
