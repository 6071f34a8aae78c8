/* ghz/codec/block.h: the block-level building blocks of the ghz format, as inline
 * functions that compile as C (the CPU reference) and as CUDA __host__ __device__
 * code (the GPU codec, and users' own kernels). FORMAT.md is the specification; the
 * section each function implements is named next to it.
 *
 * Floating-point discipline: everything that decides a stored integer or a decoded
 * value is one IEEE-754 binary64 operation rounded to nearest (a product, a sum, a
 * conversion, rint). No operation may be contracted into an FMA, so device code spells
 * the products and sums with the _rn intrinsics and host code is built with
 * -ffp-contract=off. That is what makes CPU and GPU streams identical.
 */
#ifndef GHZ_CODEC_BLOCK_H
#define GHZ_CODEC_BLOCK_H

#include <math.h>
#include <stdint.h>

#include "ghz/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest |q| a quantized value may have (FORMAT.md, Quantization): 2^29 - 1, so a
 * delta of two of them fits in 30 bits and their sum in an int32. */
#define GHZ_QMAX 536870911

/* Code byte (FORMAT.md, Code byte). */
#define GHZ_CODE_W_MASK 0x1Fu
#define GHZ_CODE_W_SPECIAL 31u
#define GHZ_CODE_FILL_BIT 0x80u
#define GHZ_CODE_RAW 0x1Fu
#define GHZ_CODE_CONST 0x3Fu
#define GHZ_CODE_FILLED 0x5Fu
#define GHZ_MAX_W 30u
/* Largest payload of one block of any kind, in bytes (a RAW f64 block). */
#define GHZ_BLOCK_MAX_BYTES 256u
/* Returned by ghz_block_size for a code byte that is not valid. */
#define GHZ_BLOCK_INVALID 0xFFFFFFFFu

/* ---- exact binary64 arithmetic, one rounding each ----------------------------- */
#if defined(__CUDA_ARCH__)
#  define GHZ_DMUL(a, b) __dmul_rn((a), (b))
#  define GHZ_DADD(a, b) __dadd_rn((a), (b))
#  define GHZ_DSUB(a, b) __dsub_rn((a), (b))
#  define GHZ_TO_F32(a) __double2float_rn(a)
#else
#  define GHZ_DMUL(a, b) ((a) * (b))
#  define GHZ_DADD(a, b) ((a) + (b))
#  define GHZ_DSUB(a, b) ((a) - (b))
#  define GHZ_TO_F32(a) ((float)(a))
#endif

/* The quantizer of one frame: E = eb_abs, Q the quantum, R = 1/Q. E == 0 means
 * lossless: nothing is quantizable.
 *
 * f64: Q = 2E. f32: Q = E * GHZ_F32_QSCALE (one binary64 rounding), a little below 2E.
 * Why: a float32 reconstruction is rounded to the float grid, up to half an ulp of the
 * value away from q*Q. With Q = 2E the nearest integer can be E - tiny away from x, and
 * that rounding then pushes it past E; neither neighbour fits, and its whole block goes
 * lossless. On a noisy field at REL 1e-4 (|x|/E ~ 4e4) that was 5 % of the blocks and
 * cost 12 % of the ratio. Q/2 = E (1 - 2^-8) leaves E 2^-8 of slack, which covers the
 * rounding wherever |x|/E < 2^17, for about 0.006 bits per value. */
#define GHZ_F32_QSCALE 1.9921875 /* 2 - 2^-7, exact in binary64 */
typedef struct {
    double eb;   /* E */
    double q;    /* Q */
    double r;    /* R */
    int is_f32;  /* reconstruct in float32 */
    float rf;    /* R rounded to float, for ghz_quantize_f32_fast */
    int fast;    /* rf is a normal float: the fast path may be used */
} ghz_quantizer_t;

GHZ_HD static inline ghz_quantizer_t ghz_quantizer_make(double eb_abs, int is_f32)
{
    ghz_quantizer_t z;
    z.eb = eb_abs;
    z.q = is_f32 ? GHZ_DMUL(eb_abs, GHZ_F32_QSCALE) : GHZ_DADD(eb_abs, eb_abs);
    z.r = eb_abs > 0.0 ? 1.0 / z.q : 0.0;
    z.is_f32 = is_f32;
    z.rf = GHZ_TO_F32(z.r);
    z.fast = is_f32 && eb_abs > 0.0 && z.rf >= 1.17549435e-38f && z.rf <= 3.40282347e+38f;
    return z;
}

/* recon(q) = q * Q in binary64, then rounded to float32 for f32 data. */
GHZ_HD static inline double ghz_recon(const ghz_quantizer_t* z, int32_t q)
{
    double v = GHZ_DMUL((double)q, z->q);
    return z->is_f32 ? (double)GHZ_TO_F32(v) : v;
}

/* Exactly |x - y| <= eb, for finite eb > 0 and any x, y (non-finite -> false).
 * s + e == x - y exactly (Knuth's two-sum); rounding is monotone and eb is a double,
 * so |s| < eb implies |x - y| <= eb and |s| > eb implies |x - y| > eb; at |s| == eb
 * the sign of the error term decides. */
GHZ_HD static inline int ghz_within(double x, double y, double eb)
{
    double b = -y;
    double s = GHZ_DADD(x, b);
    double bv = GHZ_DSUB(s, x);
    double av = GHZ_DSUB(s, bv);
    double e = GHZ_DADD(GHZ_DSUB(x, av), GHZ_DSUB(b, bv));
    double as = fabs(s);
    if (as < eb) return 1;
    if (!(as == eb)) return 0; /* greater, or NaN */
    return e == 0.0 || ((e < 0.0) != (s < 0.0));
}

/* FORMAT.md, Quantization, steps 1-4: returns 1 and sets *q when x is quantizable. */
GHZ_HD static inline int ghz_quantize(const ghz_quantizer_t* z, double x, int32_t* q)
{
    double c, y;
    int32_t qi;
    if (!(z->eb > 0.0)) return 0;
    c = rint(GHZ_DMUL(x, z->r));
    if (!(fabs(c) <= (double)GHZ_QMAX)) return 0; /* also rejects NaN and Inf */
    qi = (int32_t)c;
    y = ghz_recon(z, qi);
    if (ghz_within(x, y, z->eb)) {
        *q = qi;
        return 1;
    }
    qi = x > y ? qi + 1 : qi - 1;
    if (qi > GHZ_QMAX || qi < -GHZ_QMAX) return 0;
    if (!ghz_within(x, ghz_recon(z, qi), z->eb)) return 0;
    *q = qi;
    return 1;
}

/* FORMAT.md, REL mode: the absolute bound rel * (vmax - vmin), rounded down so that it
 * never exceeds the exact product; 0 (lossless) for an empty (NaN) or zero range.
 * Halving first keeps max - min from overflowing; the three ulps taken off cover the
 * roundings of the halves, the difference and the products. Returns 0, or -1 when the
 * bound is not finite (or twice it is not). */
GHZ_HD static inline int ghz_rel_eb(double rel, double vmin, double vmax, double* eb)
{
    double p;
    int i;
    *eb = 0.0;
    if (!(isfinite(vmin) && isfinite(vmax)) || !(vmax > vmin)) return 0;
    p = GHZ_DMUL(GHZ_DMUL(rel, GHZ_DSUB(GHZ_DMUL(0.5, vmax), GHZ_DMUL(0.5, vmin))), 2.0);
    for (i = 0; i < 3; ++i) p = nextafter(p, 0.0);
    if (!isfinite(p) || !isfinite(GHZ_DADD(p, p))) return -1;
    *eb = p > 0.0 ? p : 0.0;
    return 0;
}

/* A float32 shortcut to ghz_quantize for f32 data, for speed (the GPU uses it): it
 * answers only where it can prove ghz_quantize's answer, and returns -1 otherwise.
 * Proof sketch, with t = x * rf in float and c = rint(t), d = |t - c|: rf and the
 * product each err by at most 2^-24 relatively, so |t - x/Q| <= |t| 2^-23 (+2^-53
 * for R). When |t| <= 2^21 and d <= 0.5 - m, m = (|t| + 1) 2^-21, the binary64 candidate
 * rint(x * R) is also c (it lies within 0.5 - margin of c), and
 * |x - recon(c)| <= Q (0.5 - m + |t| 2^-23) + Q |c| (2^-24 + 2^-53) < Q/2 <= E, so the
 * exact check accepts c, m being about 2.7 times the sum of those terms. Hence both
 * return q = c. NaN, Inf, near-ties and large |t|
 * fail the test and take the exact path. Requires z->fast (rf a normal float). */
GHZ_HD static inline int ghz_quantize_f32_fast(const ghz_quantizer_t* z, float x, int32_t* q)
{
    const float t = x * z->rf;
    const float c = rintf(t);
    const float a = fabsf(t);
    if (a <= 2097152.0f && fabsf(t - c) <= 0.5f - (a + 1.0f) * 4.76837158203125e-07f) {
        *q = (int32_t)c;
        return 1;
    }
    return -1;
}

/* ---- code bytes and sizes ------------------------------------------------------ */

GHZ_HD static inline uint32_t ghz_zigzag(int32_t v)
{
    return ((uint32_t)v << 1) ^ (0u - (uint32_t)(v < 0));
}

GHZ_HD static inline int32_t ghz_unzigzag(uint32_t u)
{
    uint32_t v = (u >> 1) ^ (0u - (u & 1u));
    return v <= 0x7FFFFFFFu ? (int32_t)v : -(int32_t)(~v) - 1;
}

/* Class c of the first value's zigzag code, and its byte length. */
GHZ_HD static inline unsigned ghz_q0_class(uint32_t zz)
{
    return zz == 0u ? 0u : zz < 0x100u ? 1u : zz < 0x10000u ? 2u : 3u;
}

GHZ_HD static inline unsigned ghz_q0_bytes(unsigned cls)
{
    return cls == 3u ? 4u : cls;
}

/* Bit length of v (0 for 0). */
GHZ_HD static inline unsigned ghz_bit_width(uint32_t v)
{
    unsigned w = 0;
    while (v) {
        ++w;
        v >>= 1;
    }
    return w;
}

GHZ_HD static inline unsigned ghz_code_quant(unsigned w, unsigned cls, int fill)
{
    return w | (cls << 5) | (fill ? GHZ_CODE_FILL_BIT : 0u);
}

/* Payload bytes of a QUANT block with width w, q0 class cls and an optional mask. */
GHZ_HD static inline unsigned ghz_quant_size(unsigned w, unsigned cls, int fill)
{
    return (fill ? 4u : 0u) + ghz_q0_bytes(cls) + (w ? 4u * (w + 1u) : 0u);
}

/* Payload bytes of a block of m values (1..32) with this code byte, for elements of
 * elem bytes, in a frame whose fill flag is has_fill; GHZ_BLOCK_INVALID when the code
 * byte is reserved, needs a fill value the frame lacks, or is not canonical (a QUANT
 * block larger than RAW). */
GHZ_HD static inline uint32_t ghz_block_size(unsigned code, unsigned m, unsigned elem,
                                             int has_fill)
{
    unsigned w = code & GHZ_CODE_W_MASK, size;
    if (w == GHZ_CODE_W_SPECIAL) {
        if (code == GHZ_CODE_RAW) return m * elem;
        if (code == GHZ_CODE_CONST) return elem;
        if (code == GHZ_CODE_FILLED && has_fill) return 0;
        return GHZ_BLOCK_INVALID;
    }
    if (w > GHZ_MAX_W || ((code & GHZ_CODE_FILL_BIT) && !has_fill)) return GHZ_BLOCK_INVALID;
    size = ghz_quant_size(w, (code >> 5) & 3u, (code & GHZ_CODE_FILL_BIT) != 0);
    return size <= m * elem ? size : GHZ_BLOCK_INVALID;
}

/* The facts about one block from which FORMAT.md's choice of kind follows. The CPU
 * gathers them with loops, the GPU with ballots and reductions; both then choose with
 * ghz_block_choose, so the choice is written once. */
typedef struct {
    unsigned m;      /* values in the block, 1..32 */
    uint32_t fmask;  /* positions holding the fill value */
    int quantizable; /* every non-fill value is quantizable */
    int all_same;    /* all m values bit-identical (consulted only when !quantizable) */
    unsigned w;      /* delta width of the filled-in integers (quantizable blocks) */
    int32_t q0;      /* first filled-in integer (quantizable blocks) */
} ghz_block_facts_t;

/* FORMAT.md, "Which kind the encoder chooses": returns the code byte and sets *size
 * to the payload bytes. */
GHZ_HD static inline unsigned ghz_block_choose(const ghz_block_facts_t* f, int has_fill,
                                               unsigned elem, unsigned* size)
{
    const uint32_t used = f->m >= 32u ? 0xFFFFFFFFu : ((1u << f->m) - 1u);
    if (has_fill && f->fmask == used) {
        *size = 0;
        return GHZ_CODE_FILLED;
    }
    if (f->quantizable) {
        const unsigned cls = ghz_q0_class(ghz_zigzag(f->q0));
        const unsigned s = ghz_quant_size(f->w, cls, f->fmask != 0);
        if (s <= f->m * elem) {
            *size = s;
            return ghz_code_quant(f->w, cls, f->fmask != 0);
        }
    } else if (f->all_same) {
        *size = elem;
        return GHZ_CODE_CONST;
    }
    *size = f->m * elem;
    return GHZ_CODE_RAW;
}

/* Bit width of the largest |q[i] - q[i-1]|, i = 1..31. */
GHZ_HD static inline unsigned ghz_delta_width(const int32_t q[32])
{
    uint32_t any = 0;
    unsigned i;
    for (i = 1; i < 32; ++i) {
        const int32_t d = q[i] - q[i - 1];
        any |= (uint32_t)(d < 0 ? -d : d);
    }
    return ghz_bit_width(any);
}

/* ---- little-endian byte access --------------------------------------------------- */

GHZ_HD static inline void ghz_store_le(uint8_t* p, uint64_t v, unsigned bytes)
{
    unsigned i;
    for (i = 0; i < bytes; ++i) p[i] = (uint8_t)(v >> (8u * i));
}

GHZ_HD static inline uint64_t ghz_load_le(const uint8_t* p, unsigned bytes)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < bytes; ++i) v |= (uint64_t)p[i] << (8u * i);
    return v;
}

/* ---- one QUANT block, one thread (the reference; the GPU uses a warp) --------------- */

/* Encodes the integers q[0..31] of a QUANT block (fill positions and positions >= m
 * already carry the values FORMAT.md assigns them) with fill mask `fmask` (0: none).
 * Writes ghz_quant_size() bytes to out and returns the code byte. */
GHZ_HD static inline unsigned ghz_quant_encode(const int32_t q[32], uint32_t fmask,
                                               uint8_t* out)
{
    uint32_t mag[32], sign = 0, any = 0, zz = ghz_zigzag(q[0]);
    unsigned i, k, w, cls = ghz_q0_class(zz), nb = ghz_q0_bytes(cls);
    mag[0] = 0;
    for (i = 1; i < 32; ++i) {
        int32_t d = q[i] - q[i - 1]; /* |d| < 2^30: no overflow */
        mag[i] = (uint32_t)(d < 0 ? -d : d);
        sign |= (uint32_t)(d < 0) << i;
        any |= mag[i];
    }
    w = ghz_bit_width(any);
    if (fmask) {
        ghz_store_le(out, fmask, 4);
        out += 4;
    }
    ghz_store_le(out, zz, nb);
    out += nb;
    if (w) {
        ghz_store_le(out, sign, 4);
        out += 4;
        for (k = 0; k < w; ++k) {
            uint32_t plane = 0;
            for (i = 1; i < 32; ++i) plane |= ((mag[i] >> k) & 1u) << i;
            ghz_store_le(out + 4u * k, plane, 4);
        }
    }
    return ghz_code_quant(w, cls, fmask != 0);
}

/* Decodes a QUANT block of m values with code byte `code` from p (ghz_block_size(code)
 * bytes, already bounds-checked) into q[0..m-1] and *fmask. Returns 0, or -1 when the
 * block is not canonical (FORMAT.md: bits that must be zero, top plane non-zero, class
 * matching q0, |q| <= QMAX): a reader rejects it as corrupt. */
GHZ_HD static inline int ghz_quant_decode(const uint8_t* p, unsigned code, unsigned m,
                                          int32_t q[32], uint32_t* fmask)
{
    unsigned w = code & GHZ_CODE_W_MASK, cls = (code >> 5) & 3u, i, k;
    uint32_t used = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u);
    uint32_t mask = 0, zz, sign = 0, orbits = 0, top = 0, mag[32];
    int64_t v;
    if (code & GHZ_CODE_FILL_BIT) {
        mask = (uint32_t)ghz_load_le(p, 4);
        p += 4;
        if (mask == 0 || (mask & ~used) || mask == used) return -1;
    }
    zz = (uint32_t)ghz_load_le(p, ghz_q0_bytes(cls));
    p += ghz_q0_bytes(cls);
    if (ghz_q0_class(zz) != cls) return -1;
    for (i = 0; i < 32; ++i) mag[i] = 0;
    if (w) {
        sign = (uint32_t)ghz_load_le(p, 4);
        p += 4;
        for (k = 0; k < w; ++k) {
            uint32_t plane = (uint32_t)ghz_load_le(p + 4u * k, 4);
            orbits |= plane;
            top = plane;
            for (i = 0; i < 32; ++i) mag[i] |= ((plane >> i) & 1u) << k;
        }
        /* lane 0 and lanes >= m carry no delta, fill lanes a zero one, no -0, top plane set */
        if (((orbits | sign) & (~used | 1u | mask)) || (sign & ~orbits) || top == 0) return -1;
    }
    v = ghz_unzigzag(zz);
    if (v > GHZ_QMAX || v < -GHZ_QMAX) return -1;
    q[0] = (int32_t)v;
    for (i = 1; i < m; ++i) {
        v += (sign >> i) & 1u ? -(int64_t)mag[i] : (int64_t)mag[i];
        if (v > GHZ_QMAX || v < -GHZ_QMAX) return -1;
        q[i] = (int32_t)v;
    }
    *fmask = mask;
    return 0;
}

#ifdef __cplusplus
}
#endif
#endif
