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

/* The common case, no fill value, in RANGE_LANES independent lanes whose selects and
 * compares the compiler turns into vector min/max (17 GB/s on one core of a 2-core VM
 * against 4 GB/s for the general loop below: the collectives scan staged inputs on the
 * host, collectives.c). A value is finite when its exponent bits are not all ones. The
 * result equals the general loop's, but for the sign of a zero extreme (either zero is
 * the min of {-0, +0}; every use takes hi - lo or magnitudes). */
#define RANGE_LANES 16
#define RANGE_FAST(NAME, T, U, EXP)                                                              \
    static void NAME(const uint8_t* src, size_t begin, size_t end, range_acc* acc)               \
    {                                                                                            \
        T lo[RANGE_LANES], hi[RANGE_LANES];                                                      \
        uint32_t c[RANGE_LANES];                                                                 \
        size_t i = begin;                                                                        \
        int j;                                                                                   \
        for (j = 0; j < RANGE_LANES; ++j) {                                                      \
            lo[j] = (T)INFINITY;                                                                 \
            hi[j] = (T)-INFINITY;                                                                \
            c[j] = 0;                                                                            \
        }                                                                                        \
        for (; i + RANGE_LANES <= end; i += RANGE_LANES)                                         \
            for (j = 0; j < RANGE_LANES; ++j) {                                                  \
                U b;                                                                             \
                T v;                                                                             \
                memcpy(&b, src + sizeof(T) * (i + (size_t)j), sizeof b);                         \
                memcpy(&v, &b, sizeof v);                                                        \
                const int fin = (b & (EXP)) != (EXP);                                            \
                const T vl = fin ? v : (T)INFINITY, vh = fin ? v : (T)-INFINITY;                 \
                lo[j] = vl < lo[j] ? vl : lo[j];                                                 \
                hi[j] = vh > hi[j] ? vh : hi[j];                                                 \
                c[j] += (uint32_t)fin;                                                           \
            }                                                                                    \
        for (j = 0; j < RANGE_LANES; ++j) {                                                      \
            if (lo[j] < acc->lo) acc->lo = lo[j];                                                \
            if (hi[j] > acc->hi) acc->hi = hi[j];                                                \
            acc->count += c[j];                                                                  \
        }                                                                                        \
        for (; i < end; ++i) {                                                                   \
            T v;                                                                                 \
            memcpy(&v, src + sizeof(T) * i, sizeof v);                                           \
            if (!isfinite(v)) continue;                                                          \
            if (v < acc->lo) acc->lo = v;                                                        \
            if (v > acc->hi) acc->hi = v;                                                        \
            acc->count++;                                                                        \
        }                                                                                        \
    }
RANGE_FAST(range_fast_f32, float, uint32_t, 0x7f800000u)
RANGE_FAST(range_fast_f64, double, uint64_t, 0x7ff0000000000000ull)

static void range_scan(const ghz_enc_params* e, const uint8_t* src, size_t begin, size_t end,
                       range_acc* acc)
{
    size_t i, stop;
    /* (a lane counts at most 2^32 - 1 values: longer spans go in pieces) */
    const size_t piece = (size_t)RANGE_LANES << 31;
    if (!e->has_fill) {
        for (i = begin; i < end; i = stop) {
            stop = end - i < piece ? end : i + piece;
            if (e->dtype == GHZ_F32) range_fast_f32(src, i, stop, acc);
            else range_fast_f64(src, i, stop, acc);
        }
        return;
    }
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
