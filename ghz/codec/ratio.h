/* ghz/codec/ratio.h: the arithmetic of the ratio frame (RATIO.md) as inline functions
 * that compile as C (the CPU reference) and as CUDA __host__ __device__ code (the GPU
 * codec), so that both compute every prediction, code, table and rANS state alike.
 * The section of RATIO.md each function implements is named next to it. The binary64
 * discipline of block.h holds here too: one rounding per operation, no FMA. */
#ifndef GHZ_CODEC_RATIO_H
#define GHZ_CODEC_RATIO_H

#if !defined(GHZ_ADVANCED)
#error "ghz/codec/ratio.h is ghz's advanced tier (no stability promise): #define GHZ_ADVANCED before including it"
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ghz/codec/block.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GHZ_RATIO_CODEC 1u          /* header byte 12 */
#define GHZ_RATIO_VERSION 3u        /* header bytes 4..5 */
#define GHZ_RATIO_SECTION 64u       /* bytes of the section after the header */
#define GHZ_RATIO_PROB_BITS 12u
#define GHZ_RATIO_M 4096u           /* 2^prob_bits: the table's sum */
#define GHZ_RATIO_LANES 32u         /* rANS lanes of a full chunk (a warp) */
#define GHZ_RATIO_LANE_LOG2 7u      /* lanes take >= 2^7 symbols, less the frame's shrink */
#define GHZ_RATIO_SHRINK_MAX 2u     /* header byte 14 */
#define GHZ_RATIO_CHUNK_LOG2 16u    /* what writers use; readers accept 10..24 */
#define GHZ_RATIO_CHUNK_LOG2_MIN 10u
#define GHZ_RATIO_CHUNK_LOG2_MAX 24u
#define GHZ_RATIO_NSYM_MAX 133u
#define GHZ_RATIO_NCTX 8u           /* tables per frame, one per context */
/* Bytes of a chunk's words (u16, padded to 4 bytes), and of the chunk (then its
 * extra-bit u32 words), from its directory entry's counts. */
#define GHZ_RATIO_WORD_BYTES(words) ((2 * (uint64_t)(words) + 3u) & ~(uint64_t)3u)
#define GHZ_RATIO_CHUNK_BYTES(words, bits) (GHZ_RATIO_WORD_BYTES(words) + 4 * (((uint64_t)(bits) + 31u) / 32u))
#define GHZ_RATIO_STATE_LOW 65536u  /* rANS states live in [2^16, 2^32) */
#define GHZ_RATIO_Z_LIMIT (1u << 30)
/* The writer costs 1/GHZ_RATIO_SAMPLE of a pass's points: runs of GHZ_RATIO_SAMPLE_RUN
 * consecutive points (in pass order), one run at the start of every SAMPLE * RUN. A
 * run's values and neighbours lie side by side, so a GPU warp reads its four runs in a
 * few memory sectors where single points each take their own; longer runs are hardly
 * faster and choose worse on small fields (docs/RESULTS.md). */
#define GHZ_RATIO_SAMPLE 16u
#define GHZ_RATIO_SAMPLE_RUN 8u
/* Spread (header byte 13, RATIO.md, Chunks): S >= 1 cuts each pass into about 2^S
 * chunks of 2^(12 - k) to 2^chunk_log2 symbols (k: the shrink); writers spread arrays
 * of more than 2^26 values, so that a GPU finds enough chunks to decode at once in
 * every large pass, and shrink them by 2, so that a coarse pass's chunks take a
 * quarter of the steps. */
#define GHZ_RATIO_SPREAD_CHUNK_LOG2 12u
#define GHZ_RATIO_SPREAD_MAX 40u
#define GHZ_RATIO_SPREAD_FROM_LOG2 26u

/* ---- geometry (RATIO.md, Prediction) ------------------------------------------ */

/* Bits needed to write v - 1 (0 for v <= 1): the least b with 2^b >= v. */
GHZ_HD static inline unsigned ghz_ratio_ceil_log2(uint64_t v)
{
    unsigned b = 0;
    while (b < 64u && ((uint64_t)1 << b) < v) ++b;
    return b;
}

/* Lanes of a chunk of K >= 1 symbols (RATIO.md, Chunks) in a frame of shrink k (header
 * byte 14): one per 2^(7 - k) symbols, at most 32, so that small chunks (coarse passes)
 * do not store 32 states. */
GHZ_HD static inline unsigned ghz_ratio_chunk_lanes(uint64_t K, unsigned shrink)
{
    const unsigned lg = GHZ_RATIO_LANE_LOG2 - shrink;
    return K >= ((uint64_t)GHZ_RATIO_LANES << lg) ? GHZ_RATIO_LANES : (unsigned)((K + (1u << lg) - 1u) >> lg);
}

/* Directory bytes of a chunk of K symbols: words, extra_bits, one state per lane. */
GHZ_HD static inline uint64_t ghz_ratio_dir_entry(uint64_t K, unsigned shrink)
{
    return 8u + 4u * (uint64_t)ghz_ratio_chunk_lanes(K, shrink);
}

/* log2 of the symbols a chunk of a pass of `points` symbols holds (RATIO.md, Chunks):
 * 2^chunk_log2 without spread; with spread S and shrink k, 2^(ceil(log2 points) - S),
 * kept between 2^(12 - k) and 2^chunk_log2. A pass's last chunk may hold fewer. */
GHZ_HD static inline unsigned ghz_ratio_pass_chunk_log2(uint64_t points, unsigned chunk_log2, unsigned spread,
                                                        unsigned shrink)
{
    const unsigned lo = GHZ_RATIO_SPREAD_CHUNK_LOG2 - shrink;
    unsigned b;
    if (spread == 0) return chunk_log2;
    b = ghz_ratio_ceil_log2(points);
    b = b >= spread + lo ? b - spread : lo;
    return b < chunk_log2 ? b : chunk_log2;
}

/* The spread writers choose for n values: 0 up to 2^26 values, then ceil(log2 n) - 17
 * (the largest pass keeps chunks of 2^16 symbols). */
GHZ_HD static inline unsigned ghz_ratio_spread_for(uint64_t n)
{
    const unsigned b = ghz_ratio_ceil_log2(n);
    return b > GHZ_RATIO_SPREAD_FROM_LOG2 ? b - 17u : 0u;
}

/* The shrink writers choose for a spread: 2 for spread frames (coarse passes of 2^10
 * symbols a chunk, 32 a lane: a GPU decodes them in a quarter of the steps, for
 * directory bytes that are a few percent of a 1 GiB frame at REL 1e-2 and well under
 * one at 1e-4), 0 otherwise (a small array's coarse passes would pay up to a bit a
 * symbol more, and no GPU waits on them long). */
GHZ_HD static inline unsigned ghz_ratio_shrink_for(unsigned spread)
{
    return spread ? GHZ_RATIO_SHRINK_MAX : 0u;
}

/* The pass order index of sampled point v (0, 1, ...), and how many of a pass's n
 * points are sampled. */
GHZ_HD static inline uint64_t ghz_ratio_sample_point(uint64_t v)
{
    return v / GHZ_RATIO_SAMPLE_RUN * (GHZ_RATIO_SAMPLE_RUN * GHZ_RATIO_SAMPLE) + v % GHZ_RATIO_SAMPLE_RUN;
}

GHZ_HD static inline uint64_t ghz_ratio_samples(uint64_t n)
{
    const uint64_t every = GHZ_RATIO_SAMPLE_RUN * GHZ_RATIO_SAMPLE, rest = n % every;
    return n / every * GHZ_RATIO_SAMPLE_RUN + (rest < GHZ_RATIO_SAMPLE_RUN ? rest : GHZ_RATIO_SAMPLE_RUN);
}

/* L: the least integer with 2^L >= max(d0, d1, d2). */
GHZ_HD static inline unsigned ghz_ratio_levels(uint64_t d0, uint64_t d1, uint64_t d2)
{
    uint64_t m = d0 > d1 ? d0 : d1;
    unsigned l = 0;
    if (d2 > m) m = d2;
    while (((uint64_t)1 << l) < m) ++l;
    return l;
}

/* Multiples of s below d (0 included) and odd multiples of s below d. */
GHZ_HD static inline uint64_t ghz_ratio_mults(uint64_t d, uint64_t s)
{
    return (d + s - 1) / s;
}
GHZ_HD static inline uint64_t ghz_ratio_odds(uint64_t d, uint64_t s)
{
    return d > s ? (d - s + 2 * s - 1) / (2 * s) : 0;
}

/* One pass: which coordinates it visits along each dimension: coordinate
 * first[x] + step[x] * i for i < count[x]. */
typedef struct {
    uint64_t count[3];
    uint64_t first[3];
    uint64_t step[3];
    uint64_t points; /* count[0] * count[1] * count[2] */
    unsigned axis;
    uint64_t s;
} ghz_ratio_pass_t;

/* Pass q (0..2) of level l >= 1 of an array d[3], whose three passes run along the
 * axes order[0], order[1], order[2] (a permutation of 0, 1, 2). */
GHZ_HD static inline ghz_ratio_pass_t ghz_ratio_pass(const uint64_t d[3], unsigned l,
                                                     const unsigned order[3], unsigned q)
{
    ghz_ratio_pass_t p;
    uint64_t s = (uint64_t)1 << (l - 1);
    unsigned x, r;
    p.axis = order[q];
    p.s = s;
    for (r = 0; r < 3; ++r) {
        x = order[r];
        if (r == q) {
            p.count[x] = ghz_ratio_odds(d[x], s);
            p.first[x] = s;
            p.step[x] = 2 * s;
        } else if (r < q) {
            p.count[x] = ghz_ratio_mults(d[x], s);
            p.first[x] = 0;
            p.step[x] = s;
        } else {
            p.count[x] = ghz_ratio_mults(d[x], 2 * s);
            p.first[x] = 0;
            p.step[x] = 2 * s;
        }
    }
    p.points = p.count[0] * p.count[1] * p.count[2];
    return p;
}

/* Rows: a row is the points of one (y, z), numbered y + d1 z. A pass visits its points
 * row by row in increasing order, so the points of a range of rows are a range of the
 * pass's points; a reader that decodes chunks of several passes at once waits for
 * ranges of chunks this way. */

/* The row of point k of pass p. */
GHZ_HD static inline uint64_t ghz_ratio_pass_row(const ghz_ratio_pass_t* p, const uint64_t d[3], uint64_t k)
{
    const uint64_t t = k / p->count[0];
    return p->first[1] + p->step[1] * (t % p->count[1]) + d[1] * (p->first[2] + p->step[2] * (t / p->count[1]));
}

/* The first point of pass p in row R or a later one (p->points when none). */
GHZ_HD static inline uint64_t ghz_ratio_pass_first_row(const ghz_ratio_pass_t* p, const uint64_t d[3], uint64_t R)
{
    const uint64_t zR = R / d[1], yR = R % d[1];
    uint64_t i2, i1 = 0;
    if (!p->points) return 0;
    i2 = zR <= p->first[2] ? 0 : (zR - p->first[2] + p->step[2] - 1) / p->step[2];
    if (i2 < p->count[2] && p->first[2] + p->step[2] * i2 == zR) { /* R's plane is one of the pass's */
        /* at most count[1] (yR < d1), which is the next plane's first point */
        i1 = yR <= p->first[1] ? 0 : (yR - p->first[1] + p->step[1] - 1) / p->step[1];
    }
    return i2 >= p->count[2] ? p->points : p->count[0] * (i1 + p->count[1] * i2);
}

/* The rows [*r0, *r1] that points k0..k1 (k0 <= k1) of pass p predict from: their own
 * rows, and along p's axis s and 3 s away (ghz_ratio_predict's neighbours), which is
 * 3 s rows either side for axis 1 and 3 s planes for axis 2. */
GHZ_HD static inline void ghz_ratio_input_rows(const ghz_ratio_pass_t* p, const uint64_t d[3], uint64_t k0,
                                               uint64_t k1, uint64_t* r0, uint64_t* r1)
{
    const uint64_t rows = d[1] * d[2], m = 3u * p->s * (p->axis == 0 ? 0u : p->axis == 1 ? 1u : d[1]);
    const uint64_t a = ghz_ratio_pass_row(p, d, k0), b = ghz_ratio_pass_row(p, d, k1);
    *r0 = a > m ? a - m : 0;
    *r1 = rows - 1 - b > m ? b + m : rows - 1;
}

/* The choice byte of a pass (RATIO.md, Choices): bit 0 cubic, bits 1..2 the axis. */
#define GHZ_RATIO_CHOICE(axis, cubic) ((uint8_t)(((axis) << 1) | ((cubic) & 1u)))

/* ---- prediction (RATIO.md, Prediction) ---------------------------------------- */

/* Reconstructed value i of a dtype array as a double (exact). */
GHZ_HD static inline double ghz_ratio_get(const void* xr, int is_f32, uint64_t i)
{
    if (is_f32) return (double)((const float*)xr)[i];
    return ((const double*)xr)[i];
}

/* The formulas of RATIO.md, Prediction, on the neighbours b = x'(t-s), c = x'(t+s),
 * u = x'(t-3s), v = x'(t+3s); a prediction that is not finite becomes 0. */
GHZ_HD static inline double ghz_ratio_finite(double p)
{
    return isfinite(p) ? p : 0.0;
}
GHZ_HD static inline double ghz_ratio_cubic(double u, double b, double c, double v)
{
    return ghz_ratio_finite(GHZ_DMUL(GHZ_DSUB(GHZ_DMUL(GHZ_DADD(b, c), 9.0), GHZ_DADD(u, v)), 0.0625));
}
GHZ_HD static inline double ghz_ratio_quad_u(double u, double b, double c)
{
    return ghz_ratio_finite(GHZ_DMUL(GHZ_DSUB(GHZ_DADD(GHZ_DMUL(b, 6.0), GHZ_DMUL(c, 3.0)), u), 0.125));
}
GHZ_HD static inline double ghz_ratio_quad_v(double b, double c, double v)
{
    return ghz_ratio_finite(GHZ_DMUL(GHZ_DSUB(GHZ_DADD(GHZ_DMUL(b, 3.0), GHZ_DMUL(c, 6.0)), v), 0.125));
}
GHZ_HD static inline double ghz_ratio_linear(double b, double c)
{
    return ghz_ratio_finite(GHZ_DMUL(GHZ_DADD(b, c), 0.5));
}

/* The context of an element with both neighbours b and c (RATIO.md, Contexts), r =
 * 1/Q: how far apart they are in quanta, as a power-of-two bucket. */
GHZ_HD static inline unsigned ghz_ratio_ctx_of(double b, double c, double r)
{
    /* From the exponent field E of g (sign ignored): g < 1 has E <= 1022 (context 0),
     * 2^k <= g < 2^(k+1) has E = 1023 + k (context 1 + k up to 6), g >= 64, Inf and
     * NaN have E >= 1029 (context 7). No branch: this runs once per element. */
    const double g = GHZ_DMUL(fabs(GHZ_DSUB(c, b)), r);
    uint64_t bits;
    int e;
    memcpy(&bits, &g, 8);
    e = (int)((bits >> 52) & 0x7FFu) - 1022;
    e = e < 0 ? 0 : e;
    return (unsigned)(e > 7 ? 7 : e);
}

/* The prediction of element `idx`, at coordinate t along the pass's axis, whose
 * neighbours along the axis are `stride` elements apart in storage (so neighbour
 * t + j s is at idx + j * s * stride). */
GHZ_HD static inline double ghz_ratio_predict(const void* xr, int is_f32, uint64_t idx,
                                              uint64_t t, uint64_t s, uint64_t stride,
                                              uint64_t extent, unsigned cubic)
{
    const uint64_t off = s * stride;
    double b = ghz_ratio_get(xr, is_f32, idx - off), c;
    int has_u, has_v;
    if (t + s >= extent) return ghz_ratio_finite(b);
    c = ghz_ratio_get(xr, is_f32, idx + off);
    has_u = cubic && t >= 3 * s;
    has_v = cubic && t + 3 * s < extent;
    if (has_u && has_v)
        return ghz_ratio_cubic(ghz_ratio_get(xr, is_f32, idx - 3 * off), b, c,
                               ghz_ratio_get(xr, is_f32, idx + 3 * off));
    if (has_u) return ghz_ratio_quad_u(ghz_ratio_get(xr, is_f32, idx - 3 * off), b, c);
    if (has_v) return ghz_ratio_quad_v(b, c, ghz_ratio_get(xr, is_f32, idx + 3 * off));
    return ghz_ratio_linear(b, c);
}

/* The context of an element (RATIO.md, Contexts); the last context also takes
 * elements without a right neighbour. */
GHZ_HD static inline unsigned ghz_ratio_context(const void* xr, int is_f32, uint64_t idx,
                                                uint64_t t, uint64_t s, uint64_t stride,
                                                uint64_t extent, double r)
{
    const uint64_t off = s * stride;
    if (t + s >= extent) return GHZ_RATIO_NCTX - 1u;
    return ghz_ratio_ctx_of(ghz_ratio_get(xr, is_f32, idx - off), ghz_ratio_get(xr, is_f32, idx + off), r);
}

/* ---- quantization (RATIO.md, Quantization) ------------------------------------ */

/* rint(t) (ties to even) wherever |t| < 2^51, by adding and subtracting 1.5 * 2^52,
 * which is exact there in round-to-nearest binary64; beyond, t itself (already beyond
 * every accepted code, so the callers refuse it as they would rint(t); NaN stays NaN).
 * Baseline x86-64 has no rounding instruction, and a call to libm's rint per element
 * costs more than the rest of the quantization. */
GHZ_HD static inline double ghz_ratio_rint(double t)
{
    const double big = 6755399441055744.0; /* 1.5 * 2^52 */
    return fabs(t) < 2251799813685248.0 ? GHZ_DSUB(GHZ_DADD(t, big), big) : t;
}

/* p + k * Q rounded to the dtype. */
GHZ_HD static inline double ghz_ratio_recon(const ghz_quantizer_t* z, double p, int32_t k)
{
    double v = GHZ_DADD(p, GHZ_DMUL((double)k, z->q));
    return z->is_f32 ? (double)GHZ_TO_F32(v) : v;
}

/* Quantizes a finite, non-fill x against prediction p: returns 1 with *k and the
 * reconstruction *xr when a code is accepted, 0 for an outlier. x_bits is x's bit
 * pattern in the dtype (for E = 0). */
GHZ_HD static inline int ghz_ratio_quantize(const ghz_quantizer_t* z, double x, uint64_t x_bits,
                                            double p, int32_t* k, double* xr)
{
    double c, y;
    int32_t ki;
    if (!(z->eb > 0.0)) {
        y = z->is_f32 ? (double)GHZ_TO_F32(p) : p;
        uint64_t yb;
        if (z->is_f32) {
            yb = ghz_f32_bits((float)y);
        } else {
            memcpy(&yb, &y, 8);
        }
        if (yb != x_bits) return 0;
        *k = 0;
        *xr = y;
        return 1;
    }
    c = ghz_ratio_rint(GHZ_DMUL(GHZ_DSUB(x, p), z->r));
    if (!(fabs(c) <= (double)GHZ_QMAX)) return 0;
    ki = (int32_t)c;
    y = ghz_ratio_recon(z, p, ki);
    if (ghz_within(x, y, z->eb)) {
        *k = ki;
        *xr = y;
        return 1;
    }
    ki = x > y ? ki + 1 : ki - 1;
    if (ki > GHZ_QMAX || ki < -GHZ_QMAX) return 0;
    y = ghz_ratio_recon(z, p, ki);
    if (!ghz_within(x, y, z->eb)) return 0;
    *k = ki;
    *xr = y;
    return 1;
}

/* ---- symbols (RATIO.md, Symbols) ------------------------------------------------ */

GHZ_HD static inline uint32_t ghz_ratio_zigzag(int32_t k)
{
    return ((uint32_t)k << 1) ^ (uint32_t)(k >> 31); /* no branch on the sign */
}

GHZ_HD static inline int32_t ghz_ratio_unzigzag(uint32_t z)
{
    return (int32_t)((z >> 1) ^ (0u - (z & 1u)));
}

/* Symbol of code k (>= 1; 0 is the outlier symbol); *nbits extra bits *extra. */
GHZ_HD static inline unsigned ghz_ratio_symbol(int32_t k, uint32_t* extra, unsigned* nbits)
{
    uint32_t z = ghz_ratio_zigzag(k);
    unsigned e;
    if (z < 32u) {
        *extra = 0;
        *nbits = 0;
        return 1u + z;
    }
    e = ghz_bit_width(z) - 1u;
    *nbits = e - 2u;
    *extra = z & ((1u << (e - 2u)) - 1u);
    return 33u + 4u * (e - 5u) + ((z >> (e - 2u)) & 3u);
}

/* Extra bits that follow symbol s (s >= 1). */
GHZ_HD static inline unsigned ghz_ratio_extra_bits(unsigned s)
{
    return s < 33u ? 0u : (s - 33u) / 4u + 3u;
}

/* z of symbol s (1 <= s < GHZ_RATIO_NSYM_MAX) with its extra bits. */
GHZ_HD static inline uint32_t ghz_ratio_unsymbol(unsigned s, uint32_t extra)
{
    unsigned e, nb;
    if (s < 33u) return s - 1u;
    e = (s - 33u) / 4u + 5u;
    nb = e - 2u;
    return (1u << e) | (((s - 33u) & 3u) << nb) | extra;
}

/* The writer's cost of a candidate code (RATIO.md, Writer's choices). */
GHZ_HD static inline unsigned ghz_ratio_cost(const ghz_quantizer_t* z, double x, double p)
{
    double c;
    if (!(z->eb > 0.0)) return 0;
    c = ghz_ratio_rint(GHZ_DMUL(GHZ_DSUB(x, p), z->r));
    if (!(fabs(c) <= (double)GHZ_QMAX)) return 31u; /* also NaN */
    return ghz_bit_width(ghz_ratio_zigzag((int32_t)c));
}

/* ---- table (RATIO.md, Table) ------------------------------------------------------ */

/* f[0..GHZ_RATIO_NSYM_MAX) from counts (total n > 0); returns nsym. */
GHZ_HD static inline unsigned ghz_ratio_normalize(const uint64_t* cnt, uint64_t n, uint16_t* f)
{
    unsigned s, best = 0, nsym = 0;
    int64_t sum = 0;
    for (s = 0; s < GHZ_RATIO_NSYM_MAX; ++s) {
        uint64_t v = 0;
        if (cnt[s]) {
            v = cnt[s] * GHZ_RATIO_M / n;
            if (v < 1) v = 1;
            nsym = s + 1;
            if (cnt[s] > cnt[best]) best = s;
        }
        f[s] = (uint16_t)v;
        sum += (int64_t)v;
    }
    if (sum < (int64_t)GHZ_RATIO_M) f[best] = (uint16_t)(f[best] + (GHZ_RATIO_M - sum));
    while (sum > (int64_t)GHZ_RATIO_M) {
        unsigned big = 0;
        int64_t take;
        for (s = 1; s < GHZ_RATIO_NSYM_MAX; ++s)
            if (f[s] > f[big]) big = s;
        take = sum - (int64_t)GHZ_RATIO_M;
        if (take > (int64_t)f[big] - 1) take = (int64_t)f[big] - 1;
        f[big] = (uint16_t)(f[big] - take);
        sum -= take;
    }
    return nsym;
}

/* ---- rANS (RATIO.md, Chunks) ------------------------------------------------------ */

/* The reciprocal of a frequency f (1..M) for ghz_rans_put: *sh = floor(log2 f) and
 * m = floor(2^(32 + sh) / f), or 2^32 - 1 where that is 2^32 (f a power of two). For
 * every v < 2^32, q = floor(v m / 2^(32 + sh)) is floor(v / f) or one less: m f lies
 * in (2^(32 + sh) - f, 2^(32 + sh)], so v m / 2^(32 + sh) is below v / f by less than
 * v / 2^(32 + sh) < 1. */
GHZ_HD static inline uint32_t ghz_rans_recip(uint32_t f, unsigned* sh)
{
    const unsigned s = ghz_bit_width(f) - 1u;
    const uint64_t m = ((uint64_t)1 << (32u + s)) / f;
    *sh = s;
    return m > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)m;
}

/* Encodes symbol (f, cum) into *x; returns 1 and the word *w when one is emitted.
 * (m, sh) = ghz_rans_recip(f): the quotient floor(v / f) by a multiplication and one
 * correction, exactly the integer division's. */
GHZ_HD static inline int ghz_rans_put(uint32_t* x, uint32_t f, uint32_t m, unsigned sh, uint32_t cum, uint16_t* w)
{
    uint32_t v = *x, q, r;
    int out = 0;
    if ((v >> 20) >= f) { /* v >= f 2^20: the state would leave [2^16, 2^32) */
        *w = (uint16_t)(v & 0xFFFFu);
        v >>= 16;
        out = 1;
    }
    q = (uint32_t)(((uint64_t)v * m) >> 32) >> sh;
    r = v - q * f;
    if (r >= f) {
        ++q;
        r -= f;
    }
    *x = (q << GHZ_RATIO_PROB_BITS) + r + cum;
    return out;
}

/* Advances *x past the symbol in slot r = x mod M (of frequency f, start cum);
 * the caller refills it with a word while it is below 2^16. */
GHZ_HD static inline void ghz_rans_take(uint32_t* x, uint32_t f, uint32_t cum)
{
    *x = f * (*x >> GHZ_RATIO_PROB_BITS) + (*x & (GHZ_RATIO_M - 1u)) - cum;
}

#ifdef __cplusplus
}
#endif
#endif
