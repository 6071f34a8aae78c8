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

/* The advanced tier (docs/API.md): the format's building blocks, their helpers
 * (ghz_pick32, ghz_transpose_stage, ...) and macros (GHZ_DMUL, ...) are what the
 * library's kernels are made of, and they change between 0.x versions without notice.
 * Opt in, as with zstd's ZSTD_STATIC_LINKING_ONLY. */
#if !defined(GHZ_ADVANCED)
#error "ghz/codec/block.h is ghz's advanced tier (no stability promise): #define GHZ_ADVANCED before including it"
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

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
#  define GHZ_FMUL(a, b) __fmul_rn((a), (b))
#  define GHZ_FADD(a, b) __fadd_rn((a), (b))
#  define GHZ_FSUB(a, b) __fsub_rn((a), (b))
#else
#  define GHZ_DMUL(a, b) ((a) * (b))
#  define GHZ_DADD(a, b) ((a) + (b))
#  define GHZ_DSUB(a, b) ((a) - (b))
#  define GHZ_TO_F32(a) ((float)(a))
#  define GHZ_FMUL(a, b) ((a) * (b))
#  define GHZ_FADD(a, b) ((a) + (b))
#  define GHZ_FSUB(a, b) ((a) - (b))
#endif

/* Loops over the 32 positions of a block are fully unrolled in device code, so that a
 * thread's per-position arrays live in registers (a run-time index would put them in
 * local memory). Host compilers decide for themselves. */
#if defined(__CUDA_ARCH__)
#  define GHZ_UNROLL _Pragma("unroll")
#else
#  define GHZ_UNROLL
#endif

/* The bit pattern of a float. */
GHZ_HD static inline uint32_t ghz_f32_bits(float f)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
#endif
}

/* The quantizer of one frame: E = eb_abs, Q the quantum, R = 1/Q. E == 0 means
 * lossless: nothing is quantizable.
 *
 * f64: Q = 2E. f32: Q = E * GHZ_F32_QSCALE (one binary64 rounding), a little below 2E.
 * Why: a float32 reconstruction is rounded to the float grid, up to half an ulp of the
 * value away from q*Q. With Q = 2E the nearest integer can be E - tiny away from x, and
 * that rounding then pushes it past E; neither neighbour fits, and its whole block goes
 * lossless: on a noisy field at REL 1e-4 (|x|/E ~ 4e4) about 5 % of the blocks, 12 % of
 * the ratio. Q/2 = E (1 - 2^-8) leaves E 2^-8 of slack, which covers the
 * rounding wherever |x|/E < 2^17, for about 0.006 bits per value. */
#define GHZ_F32_QSCALE 1.9921875 /* 2 - 2^-7, exact in binary64 */
typedef struct {
    double eb;   /* E */
    double q;    /* Q */
    double r;    /* R */
    int is_f32;  /* reconstruct in float32 */
    float rf;    /* R rounded to float, for ghz_quantize_f32_fast */
    int fast;    /* 2^-100 <= rf <= FLT_MAX: the fast path may be used */
} ghz_quantizer_t;

GHZ_HD static inline ghz_quantizer_t ghz_quantizer_make(double eb_abs, int is_f32)
{
    ghz_quantizer_t z;
    z.eb = eb_abs;
    z.q = is_f32 ? GHZ_DMUL(eb_abs, GHZ_F32_QSCALE) : GHZ_DADD(eb_abs, eb_abs);
    z.r = eb_abs > 0.0 ? 1.0 / z.q : 0.0;
    z.is_f32 = is_f32;
    z.rf = GHZ_TO_F32(z.r);
    /* rf >= 2^-100 lets the shortcut's |t| <= 2^21 imply |x| < 2^126 (see there); a
     * quantum above 2^99 takes the exact path */
    z.fast = is_f32 && eb_abs > 0.0 && z.rf >= 7.88860905e-31f && z.rf <= 3.40282347e+38f;
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

/* A float32 shortcut to ghz_quantize for f32 data, for speed (both encoders use it): it
 * answers only where it can prove ghz_quantize's answer, and returns -1 otherwise.
 * Proof sketch, with t = x * rf in float and c = rint(t), d = |t - c|: rf and the
 * product each err by at most 2^-24 relatively, so |t - x/Q| <= |t| 2^-23 (+2^-53
 * for R). When |t| <= 2^21 and d <= 0.5 - m, m = (|t| + 1) 2^-21, the binary64 candidate
 * rint(x * R) is also c (it lies within 0.5 - margin of c), and
 * |x - recon(c)| <= Q (0.5 - m + |t| 2^-23) + Q |c| (2^-24 + 2^-53) < Q/2 <= E, so the
 * exact check accepts c, m being about 2.7 times the sum of those terms. Hence both
 * return q = c, provided recon(c) is finite: |x| < 2^126 keeps recon(c) (at most
 * about 2|x|) below FLT_MAX, where a float32 reconstruction would overflow to Inf, and
 * z->fast (rf >= 2^-100) makes |t| <= 2^21 imply |x| <= 2^121 (1 + 2^-24). The test
 * d <= 0.5 - m needs no |t| <= 2^21 of its own: from |t| >= 2^20 - 1 on, m >= 0.5 and
 * no d >= 0 passes (both computations of the margin round a non-positive value to a
 * non-positive one). NaN, Inf, near-ties and large |t| fail the test and take the
 * exact path. Any sound margin gives the same streams (an accepted value gets
 * ghz_quantize's integer): the device computes it with one FMA, the host in three
 * roundings. Requires z->fast. */
GHZ_HD static inline int ghz_quantize_f32_fast(const ghz_quantizer_t* z, float x, int32_t* q)
{
    /* 1.5 * 2^23: for |t| <= 2^22 the sum t + M lies in [2^23, 2^24), where the float
     * grid is the integers, so the sum rounds t to an integer (ties to even, as rintf)
     * and its low bits are that integer plus 2^22. */
    const float M = 12582912.0f;
    const float t = GHZ_FMUL(x, z->rf);
    const float s = GHZ_FADD(t, M);
    const float c = GHZ_FSUB(s, M);
    const float a = fabsf(t);
#if defined(__CUDA_ARCH__)
    const float margin = __fmaf_rn(a, -4.76837158203125e-07f, 0.499999523162841796875f); /* 0.5 - 2^-21 */
#else
    const float margin = GHZ_FSUB(0.5f, GHZ_FMUL(GHZ_FADD(a, 1.0f), 4.76837158203125e-07f));
#endif
    if (fabsf(GHZ_FSUB(t, c)) <= margin) { /* false for NaN */
        *q = (int32_t)(ghz_f32_bits(s) - 0x4B400000u);
        return 1;
    }
    return -1;
}

/* Quantizes x (FORMAT.md, Quantization): through the float32 shortcut where it can
 * answer (f32 data, z->fast), else the exact procedure; both give the same integer
 * (test_fastpath), so the CPU and GPU encoders share this one entry point. */
GHZ_HD static inline int ghz_quantize_value(const ghz_quantizer_t* z, double x, int32_t* q)
{
    if (z->fast) {
        const int r = ghz_quantize_f32_fast(z, (float)x, q);
        if (r >= 0) return r;
    }
    return ghz_quantize(z, x, q);
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

/* Ones of x. */
GHZ_HD static inline unsigned ghz_popc32(uint32_t x)
{
#if defined(__CUDA_ARCH__)
    return (unsigned)__popc(x);
#else
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (x * 0x01010101u) >> 24;
#endif
}

/* Bit length of v (0 for 0). */
GHZ_HD static inline unsigned ghz_bit_width(uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return 32u - (unsigned)__clz(v);
#elif defined(__GNUC__) || defined(__clang__)
    return v ? 32u - (unsigned)__builtin_clz(v) : 0u;
#else
    unsigned w = 0;
    while (v) {
        ++w;
        v >>= 1;
    }
    return w;
#endif
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
 * encoder and the GPU library kernels (one thread per block) gather them value by
 * value with ghz_facts_take, warp.cuh's warp-cooperative encoder with ballots and
 * reductions; all choose with ghz_block_choose, so the choice is written once. */
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

/* The deltas of a block's integers as the format stores them: a[0] = 0, a[i] =
 * |q[i] - q[i-1]| (< 2^30: no overflow), bit i of *sign set where q[i] < q[i-1].
 * Returns the OR of the a[i], whose bit width is the block's w. */
GHZ_HD static inline uint32_t ghz_deltas(const int32_t q[32], uint32_t a[32], uint32_t* sign)
{
    uint32_t any = 0, s = 0;
    unsigned i;
    a[0] = 0;
    GHZ_UNROLL
    for (i = 1; i < 32; ++i) {
        const int32_t d = q[i] - q[i - 1];
        a[i] = (uint32_t)(d < 0 ? -d : d);
        s |= (uint32_t)(d < 0) << i;
        any |= a[i];
    }
    *sign = s;
    return any;
}

/* ---- one block's facts, gathered value by value (CPU and GPU encoders alike) ------ */

/* Starts the facts of a block of m values (1..32). */
GHZ_HD static inline void ghz_facts_begin(ghz_block_facts_t* f, unsigned m)
{
    f->m = m;
    f->fmask = 0;
    f->quantizable = 1;
    f->all_same = 1;
    f->w = 0;
    f->q0 = 0;
}

/* Takes value i (< m) of the block: x, its bit pattern in the dtype, and bits0, the
 * pattern of value 0. Fill positions are marked, not quantized; quantizing stops at
 * the first value that cannot be (the block is then CONST or RAW). */
GHZ_HD static inline void ghz_facts_take(ghz_block_facts_t* f, const ghz_quantizer_t* z, int has_fill,
                                         uint64_t fill_bits, unsigned i, double x, uint64_t bits,
                                         uint64_t bits0, int32_t* qi)
{
    if (has_fill && bits == fill_bits)
        f->fmask |= 1u << i;
    else if (f->quantizable)
        f->quantizable = ghz_quantize_value(z, x, qi);
    f->all_same &= bits == bits0;
}

/* q[i] for a run-time i < 32, by a tree of selects on the bits of i (16 + 8 + 4 + 2 +
 * 1): constant indices only, so that a GPU thread keeps q in registers (an indexed
 * read would move the array to local memory). */
GHZ_HD static inline int32_t ghz_pick32(const int32_t q[32], unsigned i)
{
    int32_t c[16];
    unsigned j;
    GHZ_UNROLL
    for (j = 0; j < 16u; ++j) c[j] = (i & 16u) ? q[j + 16u] : q[j];
    GHZ_UNROLL
    for (j = 0; j < 8u; ++j) c[j] = (i & 8u) ? c[j + 8u] : c[j];
    GHZ_UNROLL
    for (j = 0; j < 4u; ++j) c[j] = (i & 4u) ? c[j + 4u] : c[j];
    c[0] = (i & 2u) ? c[2] : c[0];
    c[1] = (i & 2u) ? c[3] : c[1];
    return (i & 1u) ? c[1] : c[0];
}

/* After all m values are taken: gives every position without an integer of its own the
 * one FORMAT.md assigns (a fill position or one past m repeats the nearest earlier
 * value, leading fills the first non-fill one), records w and q0, and returns the code
 * byte chosen by ghz_block_choose, with the payload bytes in *size. q[i] must hold the
 * integers of the non-fill positions below m. One forward pass of constant-indexed
 * selects carrying the last integer, started with the first live integer (picked by
 * ghz_pick32), so that the leading fills need no pass of their own and a GPU thread
 * keeps q in registers (a second, backward pass for the leading fills costs about 140
 * more instructions per block with fills, and on fields with land masks most warps
 * hold such a block). A quantizable block also leaves its deltas in a and *sign
 * (ghz_deltas), which ghz_quant_emit encodes: the encoders compute them once, not
 * again to encode. */
GHZ_HD static inline unsigned ghz_facts_finish_deltas(ghz_block_facts_t* f, int32_t q[32], int has_fill,
                                                      unsigned elem, unsigned* size, uint32_t a[32],
                                                      uint32_t* sign)
{
    const uint32_t used = f->m >= 32u ? 0xFFFFFFFFu : ((1u << f->m) - 1u);
    const uint32_t live = used & ~f->fmask;
    if (f->quantizable && live) {
        if (live != 0xFFFFFFFFu) { /* a full block without fills needs nothing */
            int32_t carry = ghz_pick32(q, ghz_bit_width(live & (0u - live)) - 1u);
            unsigned i;
            GHZ_UNROLL
            for (i = 0; i < 32u; ++i) {
                if (live >> i & 1u)
                    carry = q[i];
                else
                    q[i] = carry;
            }
        }
        f->w = ghz_bit_width(ghz_deltas(q, a, sign));
        f->q0 = q[0];
    }
    return ghz_block_choose(f, has_fill, elem, size);
}

/* ghz_facts_finish_deltas for a caller that encodes from q (ghz_quant_encode). */
GHZ_HD static inline unsigned ghz_facts_finish(ghz_block_facts_t* f, int32_t q[32], int has_fill,
                                               unsigned elem, unsigned* size)
{
    uint32_t a[32], sign;
    return ghz_facts_finish_deltas(f, q, has_fill, elem, size, a, &sign);
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

/* ---- one QUANT block, one thread -------------------------------------------------- */

/* One stage of a 32x32 bit-matrix transpose on rows [r0, r0 + rows): rows r and r+j
 * (r & j == 0) exchange their high and low column halves of every 2j-column group,
 * i.e. bit b = log2(j) of the row index trades places with bit b of the column index.
 * The five stages touch different index bits, so they commute: any order transposes. */
GHZ_HD static inline void ghz_transpose_stage(uint32_t a[32], int j, int r0, int rows)
{
    /* the low column of each pair of halves: 0x0000FFFF, 0x00FF00FF, ... 0x55555555 */
    const uint32_t lo = 0xFFFFFFFFu / ((1u << j) + 1u);
    int r;
    GHZ_UNROLL
    for (r = r0; r < r0 + rows; ++r) {
        if (r & j) continue;
        {
            const uint32_t t = ((a[r] >> j) ^ a[r + j]) & lo;
            a[r + j] ^= t;
            a[r] ^= t << j;
        }
    }
}

/* Transposes the 32x32 bit matrix whose row r is a[r] (bit c = column c): afterwards
 * bit c of a[r] is the old bit r of a[c]. Five stages of 16 masked swaps whatever the
 * contents, where building the planes one bit at a time costs 31 steps per plane. */
GHZ_HD static inline void ghz_transpose32(uint32_t a[32])
{
    int s;
    GHZ_UNROLL
    for (s = 0; s < 5; ++s) ghz_transpose_stage(a, 16 >> s, 0, 32);
}

/* The transpose of 32 values below 2^w into bit planes, done only as far as planes
 * 0..w-1 need it (a[k] for k >= w is left undefined): a block's magnitudes are mostly
 * a few bits wide, and the full transpose is the encoder's largest cost (a third of a
 * GPU thread's instructions per block). With every value below 2^16, stage 16 only
 * merges row r+16 into the empty high half of row r (one shift and or) and rows 16..31
 * are not needed any more; below 2^8 stage 8 likewise, leaving 3 stages on 8 rows. The
 * cases nest (shared code first), so a GPU warp whose blocks differ in width pays
 * little more than its widest one. */
GHZ_HD static inline void ghz_planes_of(uint32_t a[32], unsigned w)
{
    int r, s;
    if (w > 16u) {
        ghz_transpose_stage(a, 16, 0, 32);
    } else {
        GHZ_UNROLL
        for (r = 0; r < 16; ++r) a[r] |= a[r + 16] << 16;
    }
    if (w <= 8u) {
        GHZ_UNROLL
        for (r = 0; r < 8; ++r) a[r] |= a[r + 8] << 8;
        GHZ_UNROLL
        for (s = 0; s < 3; ++s) ghz_transpose_stage(a, 4 >> s, 0, 8);
        return;
    }
    GHZ_UNROLL
    for (s = 0; s < 4; ++s) ghz_transpose_stage(a, 8 >> s, 0, 16);
    if (w > 16u) {
        GHZ_UNROLL
        for (s = 0; s < 4; ++s) ghz_transpose_stage(a, 8 >> s, 16, 16);
    }
}

/* The reverse, for the decoder: planes a[0..w-1] (a[k] for k >= w must be 0) into the
 * 32 values, all of them. The same stages in the opposite order: the swaps among the
 * rows that hold planes first, then stages 8 and 16 only split rows into empty ones. */
GHZ_HD static inline void ghz_values_of_planes(uint32_t a[32], unsigned w)
{
    int r, s;
    if (w <= 8u) {
        GHZ_UNROLL
        for (s = 0; s < 3; ++s) ghz_transpose_stage(a, 1 << s, 0, 8);
        GHZ_UNROLL
        for (r = 0; r < 8; ++r) {
            a[r + 8] = (a[r] >> 8) & 0x00FF00FFu;
            a[r] &= 0x00FF00FFu;
        }
    } else {
        GHZ_UNROLL
        for (s = 0; s < 4; ++s) ghz_transpose_stage(a, 1 << s, 0, 16);
        if (w > 16u) {
            GHZ_UNROLL
            for (s = 0; s < 4; ++s) ghz_transpose_stage(a, 1 << s, 16, 16);
        }
    }
    if (w > 16u) {
        ghz_transpose_stage(a, 16, 0, 32);
    } else {
        GHZ_UNROLL
        for (r = 0; r < 16; ++r) {
            a[r + 16] = a[r] >> 16;
            a[r] &= 0xFFFFu;
        }
    }
}

/* All ones where bit i of x is set, else 0. On the GPU two shifts (the bit moved to the
 * top, then an arithmetic shift spreads it) where the portable form takes three
 * instructions; the decoders' rebuild runs it 31 times per block. */
GHZ_HD static inline uint32_t ghz_bit_mask(uint32_t x, unsigned i)
{
#if defined(__CUDA_ARCH__)
    return (uint32_t)((int32_t)(x << (31u - i)) >> 31);
#else
    return 0u - ((x >> i) & 1u);
#endif
}

/* Writes the fields of a QUANT block in FORMAT.md's order: the mask `fmask` (0: none),
 * q0's zigzag code, and when w > 0 the sign word and the magnitude planes (bit j of
 * plane k is bit k of |q[j] - q[j-1]|): ghz_quant_size() bytes to out. Returns the code
 * byte. With `deltas`, p holds the deltas themselves (ghz_deltas; overwritten by the
 * planes, ghz_quant_emit); without, the planes p[0..w-1] (ghz/homo's bit-plane sum,
 * whose deltas never leave the planes: homo_sliced.h). */
GHZ_HD static inline unsigned ghz_quant_write(int32_t q0, uint32_t p[32], uint32_t sign, unsigned w,
                                              uint32_t fmask, int deltas, uint8_t* out)
{
    const uint32_t zz = ghz_zigzag(q0);
    const unsigned cls = ghz_q0_class(zz), nb = ghz_q0_bytes(cls);
    unsigned i;
    if (fmask) {
        ghz_store_le(out, fmask, 4);
        out += 4;
    }
    ghz_store_le(out, zz, nb);
    out += nb;
    if (w) {
        ghz_store_le(out, sign, 4);
        out += 4;
        if (deltas) ghz_planes_of(p, w); /* p[k]: magnitude plane k */
        GHZ_UNROLL
        for (i = 0; i < GHZ_MAX_W; ++i) {
            if (i >= w) break; /* a branch, not 30 predicated stores */
            ghz_store_le(out + 4u * i, p[i], 4);
        }
    }
    return ghz_code_quant(w, cls, fmask != 0);
}

/* Writes the payload of a QUANT block from its first integer q0, its deltas a (a[0]
 * = 0; overwritten) and signs, and their width w (ghz_deltas; fill positions and
 * positions >= m already carry the integers FORMAT.md assigns them), with fill mask
 * `fmask` (0: none): ghz_quant_size() bytes to out. Returns the code byte. */
GHZ_HD static inline unsigned ghz_quant_emit(int32_t q0, uint32_t a[32], uint32_t sign, unsigned w,
                                             uint32_t fmask, uint8_t* out)
{
    return ghz_quant_write(q0, a, sign, w, fmask, 1, out);
}

/* Encodes the integers q[0..31] of a QUANT block (fill positions and positions >= m
 * already carry the values FORMAT.md assigns them) with fill mask `fmask` (0: none).
 * Writes ghz_quant_size() bytes to out and returns the code byte. */
GHZ_HD static inline unsigned ghz_quant_encode(const int32_t q[32], uint32_t fmask,
                                               uint8_t* out)
{
    uint32_t a[32], sign;
    const unsigned w = ghz_bit_width(ghz_deltas(q, a, &sign));
    return ghz_quant_emit(q[0], a, sign, w, fmask, out);
}

/* The checks of a QUANT block's fields that need no integers (FORMAT.md), in two parts:
 * the head (a mask that marks some but not all of the values in `used`, the block's
 * positions below m, and q0's class as the code byte says) and, for w > 0, the sign
 * word against `orbits`, the OR of the magnitude planes (no delta at lane 0, at lanes
 * >= m or at fill lanes, and no -0). Each returns 1 when its checks hold.
 * ghz_quant_rebuild and ghz/homo's bit-plane sum (homo_sliced.h) share them. */
GHZ_HD static inline int ghz_quant_head_ok(unsigned code, uint32_t used, uint32_t mask, uint32_t zz)
{
    return !((code & GHZ_CODE_FILL_BIT) && (mask == 0 || (mask & ~used) || mask == used)) &&
           ghz_q0_class(zz) == ((code >> 5) & 3u);
}

GHZ_HD static inline int ghz_quant_signs_ok(uint32_t used, uint32_t mask, uint32_t sign, uint32_t orbits)
{
    return !(((orbits | sign) & (~used | 1u | mask)) || (sign & ~orbits));
}

/* The second half of decoding a QUANT block of m values with code byte `code`, once
 * its fields are read (however the reader reaches the bytes): the mask (0 when the
 * code has none), zz, the sign plane (0 when w = 0) and the magnitude planes a[0..w-1]
 * with a[k] = 0 for k >= w. Checks that the block is canonical (FORMAT.md: bits that
 * must be zero, top plane non-zero, class matching q0, |q| <= QMAX) and rebuilds
 * q[0..31] (positions >= m repeat q[m-1]); a is overwritten. Returns 0, or -1 when a
 * reader must reject the block as corrupt. */
GHZ_HD static inline int ghz_quant_rebuild(unsigned code, unsigned m, uint32_t mask, uint32_t zz,
                                           uint32_t sign, uint32_t a[32], int32_t q[32])
{
    const unsigned w = code & GHZ_CODE_W_MASK;
    const uint32_t used = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u);
    uint32_t orbits = 0, any = 0;
    int32_t v;
    int bad;
    unsigned i;
    if (!ghz_quant_head_ok(code, used, mask, zz)) return -1;
    if (w) {
        GHZ_UNROLL
        for (i = 0; i < 32; ++i) orbits |= a[i];
        if (!ghz_quant_signs_ok(used, mask, sign, orbits)) return -1;
        ghz_values_of_planes(a, w); /* a[i]: |d_i| */
        GHZ_UNROLL
        for (i = 0; i < 32; ++i) any |= a[i];
        if (ghz_bit_width(any) != w) return -1; /* the top plane is zero */
    }
    v = ghz_unzigzag(zz);
    bad = v > GHZ_QMAX || v < -GHZ_QMAX;
    q[0] = v;
    /* Past m every delta is 0 (checked above), so running to 32 changes nothing. Sums
     * wrap as unsigned: up to the first out-of-range q each one is exact (|q| <= QMAX
     * and |d| < 2^30 fit an int32), and that one already condemns the block. Every
     * |q_i| is at most |q_0| + 31 (2^w - 1); where that bound is within QMAX (all but
     * the widest blocks) no q can leave the range and the test per value is left out:
     * the same verdict, a sixth fewer instructions in the GPU decoders' rebuild. */
    if (!bad && (uint64_t)(v < 0 ? -(int64_t)v : v) + 31u * ((UINT64_C(1) << w) - 1u) <= GHZ_QMAX) {
        GHZ_UNROLL
        for (i = 1; i < 32; ++i) {
            const uint32_t neg = ghz_bit_mask(sign, i);
            v = (int32_t)((uint32_t)v + ((a[i] ^ neg) - neg));
            q[i] = v;
        }
        return 0;
    }
    GHZ_UNROLL
    for (i = 1; i < 32; ++i) {
        const uint32_t neg = ghz_bit_mask(sign, i);
        v = (int32_t)((uint32_t)v + ((a[i] ^ neg) - neg));
        bad |= (uint32_t)v + (uint32_t)GHZ_QMAX > 2u * (uint32_t)GHZ_QMAX;
        q[i] = v;
    }
    return bad ? -1 : 0;
}

/* Decodes a QUANT block of m values with code byte `code` from p (ghz_block_size(code)
 * bytes, already bounds-checked) into q[0..31] and *fmask, reading byte by byte.
 * Returns 0, or -1 when the block is not canonical (ghz_quant_rebuild). */
GHZ_HD static inline int ghz_quant_decode(const uint8_t* p, unsigned code, unsigned m,
                                          int32_t q[32], uint32_t* fmask)
{
    const unsigned w = code & GHZ_CODE_W_MASK, nb = ghz_q0_bytes((code >> 5) & 3u);
    uint32_t mask = 0, zz, sign = 0, a[32];
    unsigned i;
    if (code & GHZ_CODE_FILL_BIT) {
        mask = (uint32_t)ghz_load_le(p, 4);
        p += 4;
    }
    zz = (uint32_t)ghz_load_le(p, nb);
    p += nb;
    if (w) {
        sign = (uint32_t)ghz_load_le(p, 4);
        p += 4;
    }
    GHZ_UNROLL
    for (i = 0; i < 32; ++i) a[i] = i < w ? (uint32_t)ghz_load_le(p + 4u * i, 4) : 0u;
    if (ghz_quant_rebuild(code, m, mask, zz, sign, a, q) != 0) return -1;
    *fmask = mask;
    return 0;
}

#ifdef __cplusplus
}
#endif
#endif
