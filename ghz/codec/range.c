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

/* The common case, no fill value, in RANGE_LANES independent lanes. A value is finite
 * when its exponent bits are not all ones; a non-finite one enters the minimum as +inf
 * and the maximum as -inf, so it changes neither. The result equals the general loop's
 * below, but for the sign of a zero extreme (either zero is the min of {-0, +0}; every
 * use takes hi - lo or magnitudes).
 *
 * On x86-64 the lanes are SSE2 registers written out (SSE2 is part of the ABI): the
 * plain loop of RANGE_FAST is left to the compiler's vectorizer, and whether it takes
 * it depends on the compiler (gcc 12 does; gcc 13 does not under this library's
 * -frounding-math, and the scalar loop is then about 30 times slower). MINPS is
 * exactly `a < b ? a : b`, the plain loop's select, and neither operand is ever a NaN
 * here. */
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
        range_tail_##T(src, i, end, lo, hi, c, acc);                                             \
    }

/* The lanes into acc, then the values after the last whole group of lanes. */
#define RANGE_TAIL(T)                                                                            \
    static void range_tail_##T(const uint8_t* src, size_t i, size_t end, const T* lo,            \
                               const T* hi, const uint32_t* c, range_acc* acc)                   \
    {                                                                                            \
        int j;                                                                                   \
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
RANGE_TAIL(float)
RANGE_TAIL(double)

#if defined(__SSE2__) && !defined(GHZ_RANGE_PORTABLE)
#include <emmintrin.h>

/* 16 floats an iteration in four registers of four lanes; a lane counts the non-finite
 * values it skips (a compare's all-ones is -1), its finite count is its share less them. */
static void range_fast_f32(const uint8_t* src, size_t begin, size_t end, range_acc* acc)
{
    const __m128i ex = _mm_set1_epi32(0x7f800000);
    const __m128 pinf = _mm_set1_ps(INFINITY), ninf = _mm_set1_ps(-INFINITY);
    __m128 lo[4], hi[4];
    __m128i skip[4];
    float l[RANGE_LANES], h[RANGE_LANES];
    uint32_t c[RANGE_LANES], s[RANGE_LANES];
    size_t i = begin;
    int j;
    for (j = 0; j < 4; ++j) {
        lo[j] = pinf;
        hi[j] = ninf;
        skip[j] = _mm_setzero_si128();
    }
    for (; i + RANGE_LANES <= end; i += RANGE_LANES)
        for (j = 0; j < 4; ++j) {
            const __m128i b = _mm_loadu_si128((const __m128i*)(const void*)(src + 4 * (i + 4 * (size_t)j)));
            const __m128 nf = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(b, ex), ex));
            const __m128 v = _mm_castsi128_ps(b);
            lo[j] = _mm_min_ps(_mm_or_ps(_mm_andnot_ps(nf, v), _mm_and_ps(nf, pinf)), lo[j]);
            hi[j] = _mm_max_ps(_mm_or_ps(_mm_andnot_ps(nf, v), _mm_and_ps(nf, ninf)), hi[j]);
            skip[j] = _mm_sub_epi32(skip[j], _mm_castps_si128(nf));
        }
    for (j = 0; j < 4; ++j) {
        _mm_storeu_ps(l + 4 * j, lo[j]);
        _mm_storeu_ps(h + 4 * j, hi[j]);
        _mm_storeu_si128((__m128i*)(void*)(s + 4 * j), skip[j]);
    }
    for (j = 0; j < RANGE_LANES; ++j) c[j] = (uint32_t)((i - begin) / RANGE_LANES) - s[j];
    range_tail_float(src, i, end, l, h, c, acc);
}

/* 16 doubles an iteration in eight registers of two lanes; SSE2 compares 32-bit lanes
 * only, so a double's exponent is tested in its high half and the mask copied to its low
 * half. */
static void range_fast_f64(const uint8_t* src, size_t begin, size_t end, range_acc* acc)
{
    const __m128i ex = _mm_set1_epi64x((long long)0x7ff0000000000000ull);
    const __m128d pinf = _mm_set1_pd(INFINITY), ninf = _mm_set1_pd(-INFINITY);
    __m128d lo[8], hi[8];
    __m128i skip[8];
    double l[RANGE_LANES], h[RANGE_LANES];
    uint32_t c[RANGE_LANES];
    uint64_t s[RANGE_LANES];
    size_t i = begin;
    int j;
    for (j = 0; j < 8; ++j) {
        lo[j] = pinf;
        hi[j] = ninf;
        skip[j] = _mm_setzero_si128();
    }
    for (; i + RANGE_LANES <= end; i += RANGE_LANES)
        for (j = 0; j < 8; ++j) {
            const __m128i b = _mm_loadu_si128((const __m128i*)(const void*)(src + 8 * (i + 2 * (size_t)j)));
            const __m128i hi32 = _mm_cmpeq_epi32(_mm_and_si128(b, ex), ex);
            const __m128d nf = _mm_castsi128_pd(_mm_shuffle_epi32(hi32, _MM_SHUFFLE(3, 3, 1, 1)));
            const __m128d v = _mm_castsi128_pd(b);
            lo[j] = _mm_min_pd(_mm_or_pd(_mm_andnot_pd(nf, v), _mm_and_pd(nf, pinf)), lo[j]);
            hi[j] = _mm_max_pd(_mm_or_pd(_mm_andnot_pd(nf, v), _mm_and_pd(nf, ninf)), hi[j]);
            skip[j] = _mm_sub_epi64(skip[j], _mm_castpd_si128(nf));
        }
    for (j = 0; j < 8; ++j) {
        _mm_storeu_pd(l + 2 * j, lo[j]);
        _mm_storeu_pd(h + 2 * j, hi[j]);
        _mm_storeu_si128((__m128i*)(void*)(s + 2 * j), skip[j]);
    }
    for (j = 0; j < RANGE_LANES; ++j) c[j] = (uint32_t)((i - begin) / RANGE_LANES - s[j]);
    range_tail_double(src, i, end, l, h, c, acc);
}
#else
RANGE_FAST(range_fast_f32, float, uint32_t, 0x7f800000u)
RANGE_FAST(range_fast_f64, double, uint64_t, 0x7ff0000000000000ull)
#endif

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
