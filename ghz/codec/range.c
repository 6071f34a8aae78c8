/* ghz/codec/range.c: the value range and the absolute bound of REL mode
 * (FORMAT.md, Quantization). */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ghz/codec/detail/encode.h"
#include "ghz/detail/error.h"

typedef struct {
    double lo, hi;
    uint64_t count;
} range_acc;

static void range_scan(const ghz_enc_params* e, const uint8_t* src, size_t begin, size_t end,
                       range_acc* acc)
{
    size_t i;
    for (i = begin; i < end; ++i) {
        uint64_t bits;
        double x = ghz_load_value(e, src, i, &bits);
        if (!isfinite(x) || (e->has_fill && bits == e->fill_bits)) continue;
        if (x < acc->lo) acc->lo = x;
        if (x > acc->hi) acc->hi = x;
        acc->count++;
    }
}

ghz_status_t ghz_range_scan(const ghz_enc_params* e, const void* src, size_t n, int nthreads,
                            double* vmin, double* vmax, uint64_t* count)
{
    range_acc all = {INFINITY, -INFINITY, 0};
#ifdef _OPENMP
    int t, nt = ghz_threads_for(nthreads, n);
    if (nt > 1) {
        range_acc part[256];
        if (nt > 256) nt = 256;
#pragma omp parallel for num_threads(nt) schedule(static, 1)
        for (t = 0; t < nt; ++t) {
            range_acc a = {INFINITY, -INFINITY, 0};
            range_scan(e, (const uint8_t*)src, n / (size_t)nt * (size_t)t,
                       t == nt - 1 ? n : n / (size_t)nt * (size_t)(t + 1), &a);
            part[t] = a;
        }
        for (t = 0; t < nt; ++t) {
            if (part[t].lo < all.lo) all.lo = part[t].lo;
            if (part[t].hi > all.hi) all.hi = part[t].hi;
            all.count += part[t].count;
        }
    } else
#endif
    {
        (void)nthreads;
        range_scan(e, (const uint8_t*)src, 0, n, &all);
    }
    *vmin = all.count ? all.lo : NAN;
    *vmax = all.count ? all.hi : NAN;
    if (count) *count = all.count;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_rel_bound(double rel, double vmin, double vmax, double* eb_abs)
{
    if (ghz_rel_eb(rel, vmin, vmax, eb_abs) != 0)
        return ghz_fail(GHZ_ERR_BAD_BOUND, "REL bound %g times the range %g is too large", rel,
                        vmax - vmin);
    return GHZ_SUCCESS;
}
