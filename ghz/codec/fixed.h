/* ghz/codec/fixed.h: the fixed-rate block mode (FIXED.md). Two parts:
 *
 *  1. (Advanced tier, docs/API.md: compiled only where GHZ_ADVANCED is defined before
 *     the include; no stability promise between 0.x versions.) Header-only GHZ_HD
 *     inline code (C99/C11, C++ and CUDA): splitting a value,
 *     the block word, codes, decoding, block encode/check, and the element accessor
 *     (ghz_fixed_view_t: load element i, store element i, dot product) that users call
 *     inside their own kernels. The CPU reference, the CUDA kernels and users' code all
 *     run these same functions, which is why their bytes agree.
 *  2. (Stable tier.) The CPU reference API (ghz_fixed_compress / _decompress / _info /
 *     _size, GHZ_FIXED_SIZE), in libghz. The CUDA API is ghz/codec/fixed_cuda.h.
 *
 * Everything that decides a code is integer arithmetic on the value's bits; decoding
 * is one binary64 product (two when the scale is subnormal, the first exact), spelled
 * with the _rn intrinsics on the device so no FMA contraction can change it.
 */
#ifndef GHZ_CODEC_FIXED_H
#define GHZ_CODEC_FIXED_H

#include <stdint.h>
#include <string.h>

#if defined(GHZ_ADVANCED)
#include "ghz/codec/block.h"
#endif
#include "ghz/errors.h"
#include "ghz/types.h"
#include "ghz/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Byte 9 of the header (FIXED.md, Header). */
#define GHZ_FIXED_MODE 3u
/* Bias of the block exponent in the block word; 0 marks a zero block. */
#define GHZ_FIXED_BIAS 1100
#define GHZ_FIXED_WORD_B_MASK 0x0FFFu
#define GHZ_FIXED_WORD_K_SHIFT 12
/* Value classes (the K field for non-finite ones). */
#define GHZ_FIXED_FINITE 0
#define GHZ_FIXED_NAN 1
#define GHZ_FIXED_PINF 2
#define GHZ_FIXED_NINF 3
/* "No exponent": the top of a zero value, below every real one. */
#define GHZ_FIXED_NO_TOP (-32768)

/* Exact frame size of n elements at l bits (FIXED.md, Frame), for bits 8/16/32;
 * a constant expression when its arguments are (no overflow check: ghz_fixed_size). */
#define GHZ_FIXED_WORDS_BYTES(n) (((((size_t)(n) + 31u) / 32u) * 2u + 15u) & ~(size_t)15u)
#define GHZ_FIXED_SIZE(n, bits) \
    ((size_t)64u + GHZ_FIXED_WORDS_BYTES(n) + (((size_t)(n) + 31u) / 32u) * 4u * (size_t)(bits))

/* What a valid fixed-rate header says. */
typedef struct {
    ghz_dtype_t dtype;
    unsigned bits;          /* l */
    uint64_t n;
    uint64_t n_blocks;
    uint64_t payload_size;  /* words (padded) and codes */
    uint64_t frame_size;    /* 64 + payload_size */
} ghz_fixed_info_t;

#if defined(GHZ_ADVANCED) /* ---- the advanced tier: inline building blocks ----------- */

GHZ_HD static inline int ghz_fixed_bits_ok(unsigned bits)
{
    return bits == 8u || bits == 16u || bits == 32u;
}

/* ---- one value, split into integers ------------------------------------------- */

/* x = (neg ? -1 : 1) * m * 2^lsb for a finite x; top = lsb + bit length of m, i.e. the
 * least e with |x| < 2^e (GHZ_FIXED_NO_TOP for +-0). cls: GHZ_FIXED_FINITE or the
 * class of a non-finite x. */
typedef struct {
    uint64_t m;
    int lsb;
    int top;
    int neg;
    int cls;
} ghz_fixed_split_t;

GHZ_HD static inline int ghz_fixed_bitlen(uint64_t v)
{
#if defined(__CUDA_ARCH__)
    return 64 - __clzll((long long)v);
#elif defined(__GNUC__) || defined(__clang__)
    return v ? 64 - __builtin_clzll(v) : 0;
#else
    int n = 0;
    while (v) {
        ++n;
        v >>= 1;
    }
    return n;
#endif
}

/* Splits the bit pattern of an IEEE binary value with mant_bits fraction bits and
 * exp_bits exponent bits (23/8 for float32, 52/11 for float64). */
GHZ_HD static inline ghz_fixed_split_t ghz_fixed_split_bits(uint64_t u, int mant_bits,
                                                             int exp_bits)
{
    ghz_fixed_split_t s;
    int emax = (1 << exp_bits) - 1, bias = (1 << (exp_bits - 1)) - 1;
    int be = (int)((u >> mant_bits) & (uint64_t)emax);
    uint64_t frac = u & (((uint64_t)1 << mant_bits) - 1u);
    s.neg = (int)((u >> (mant_bits + exp_bits)) & 1u);
    s.cls = GHZ_FIXED_FINITE;
    if (be == emax) {
        s.cls = frac ? GHZ_FIXED_NAN : s.neg ? GHZ_FIXED_NINF : GHZ_FIXED_PINF;
        s.m = 0;
        s.lsb = 0;
        s.top = GHZ_FIXED_NO_TOP;
        return s;
    }
    if (be == 0) { /* subnormal or zero */
        s.m = frac;
        s.lsb = 1 - bias - mant_bits;
    } else {
        s.m = frac | ((uint64_t)1 << mant_bits);
        s.lsb = be - bias - mant_bits;
    }
    s.top = s.m ? s.lsb + ghz_fixed_bitlen(s.m) : GHZ_FIXED_NO_TOP;
    return s;
}

GHZ_HD static inline ghz_fixed_split_t ghz_fixed_split_f32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return ghz_fixed_split_bits(u, 23, 8);
}

GHZ_HD static inline ghz_fixed_split_t ghz_fixed_split_f64(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return ghz_fixed_split_bits(u, 52, 11);
}

/* ---- the block word --------------------------------------------------------- */

/* Bit of a value's class in the mask that ghz_fixed_word reduces (0 for finite). */
GHZ_HD static inline unsigned ghz_fixed_class_bit(int cls)
{
    return cls == GHZ_FIXED_FINITE ? 0u : 1u << cls;
}

/* The block word from the largest top over the block's values and the OR of their
 * class bits (FIXED.md, Block word): one kind of non-finite value keeps its kind, a
 * mix decodes as NaN. */
GHZ_HD static inline uint16_t ghz_fixed_word(int max_top, unsigned class_mask)
{
    unsigned b = max_top == GHZ_FIXED_NO_TOP ? 0u : (unsigned)(max_top + GHZ_FIXED_BIAS);
    unsigned k = class_mask == 0u                          ? 0u
                 : class_mask == (1u << GHZ_FIXED_PINF) ? (unsigned)GHZ_FIXED_PINF
                 : class_mask == (1u << GHZ_FIXED_NINF) ? (unsigned)GHZ_FIXED_NINF
                                                           : (unsigned)GHZ_FIXED_NAN;
    return (uint16_t)(b | (k << GHZ_FIXED_WORD_K_SHIFT));
}

GHZ_HD static inline unsigned ghz_fixed_word_b(uint16_t w)
{
    return w & GHZ_FIXED_WORD_B_MASK;
}

GHZ_HD static inline unsigned ghz_fixed_word_k(uint16_t w)
{
    return (w >> GHZ_FIXED_WORD_K_SHIFT) & 3u;
}

/* The marker code -2^(l-1) (a non-finite element). */
GHZ_HD static inline int32_t ghz_fixed_marker(unsigned bits)
{
    return (int32_t)(-(((int64_t)1) << (bits - 1u)));
}

/* ---- codes -------------------------------------------------------------------- */

/* The code of a finite value s under block exponent e (B != 0): sign * min(rne(|x|/u),
 * 2^(l-1) - 1) with u = 2^(e-l+1), on integers. *saturated is set to 1 when the clamp
 * acted (the value is not within its block's bound), else left alone. */
GHZ_HD static inline int32_t ghz_fixed_code(const ghz_fixed_split_t* s, int e, unsigned bits,
                                            int* saturated)
{
    uint64_t cmax = ((uint64_t)1 << (bits - 1u)) - 1u, mag;
    int k = e - (int)bits + 1 - s->lsb; /* mag = rne(m * 2^-k) */
    if (s->m == 0) return 0;
    if (s->top > e) {
        mag = cmax + 1u;
    } else if (k <= 0) {
        mag = s->m << -k; /* < 2^(l-1): top <= e */
    } else if (k >= 64) {
        mag = 0; /* m < 2^53 <= 2^(k-1): below half a unit */
    } else {
        uint64_t rem = s->m & ((((uint64_t)1) << k) - 1u), half = ((uint64_t)1) << (k - 1);
        mag = s->m >> k;
        mag += rem > half || (rem == half && (mag & 1u));
    }
    if (mag > cmax) {
        mag = cmax;
        *saturated = 1;
    }
    return s->neg ? -(int32_t)mag : (int32_t)mag;
}

/* float32 shortcuts of ghz_fixed_split_f32 + ghz_fixed_code for the GPU encoder:
 * 32-bit integer arithmetic only (a float's significand has 24 bits), the same top,
 * class and code; test_fixed compares them with the general functions. u is the
 * float's bit pattern. ghz_fixed_top_f32 sets *class_bit as ghz_fixed_class_bit. */
GHZ_HD static inline int ghz_fixed_top_f32(uint32_t u, unsigned* class_bit)
{
    unsigned be = (u >> 23) & 0xFFu;
    uint32_t frac = u & 0x7FFFFFu;
    *class_bit = 0;
    if (be == 0xFFu) {
        *class_bit = 1u << (frac ? GHZ_FIXED_NAN : (u >> 31) ? GHZ_FIXED_NINF : GHZ_FIXED_PINF);
        return GHZ_FIXED_NO_TOP;
    }
    if (be) return (int)be - 126;
    return frac ? ghz_fixed_bitlen(frac) - 149 : GHZ_FIXED_NO_TOP;
}

/* The code of the finite float with bits u under block exponent e. */
GHZ_HD static inline int32_t ghz_fixed_code_f32(uint32_t u, int e, unsigned bits, int* saturated)
{
    unsigned be = (u >> 23) & 0xFFu;
    uint32_t m = (u & 0x7FFFFFu) | (be ? 0x800000u : 0u);
    uint32_t cmax = (uint32_t)((((uint64_t)1) << (bits - 1u)) - 1u), mag;
    int lsb = (be ? (int)be : 1) - 150, k = e - (int)bits + 1 - lsb;
    if (m == 0) return 0;
    if (lsb + ghz_fixed_bitlen(m) > e) {
        mag = cmax + 1u;
    } else if (k <= 0) {
        mag = m << -k; /* < 2^(l-1) */
    } else {
        /* m < 2^24: a shift by 31 already rounds to 0, as any larger one would */
        unsigned kk = k > 31 ? 31u : (unsigned)k;
        uint32_t rem = m & ((1u << kk) - 1u), half = 1u << (kk - 1u);
        mag = m >> kk;
        mag += rem > half || (rem == half && (mag & 1u));
    }
    if (mag > cmax) {
        mag = cmax;
        *saturated = 1;
    }
    return (u >> 31) ? -(int32_t)mag : (int32_t)mag;
}

/* Fused multiply-add with one rounding (the shortcuts below rely on it). */
#if defined(__CUDA_ARCH__)
#  define GHZ_FIXED_FMA(a, b, c) __fma_rn((a), (b), (c))
#  define GHZ_FIXED_FMAF(a, b, c) __fmaf_rn((a), (b), (c))
#else
#  define GHZ_FIXED_FMA(a, b, c) fma((a), (b), (c))
#  define GHZ_FIXED_FMAF(a, b, c) fmaf((a), (b), (c))
#endif

/* Floating-point encode shortcuts (the GPU encoder's: the integer functions above cost
 * ~40 integer instructions per value, and integer issue would limit the encoder below
 * the memory's speed). For a block with exponent e and p = l - 1 - e, the code of a finite
 * x is clamp(rne(x 2^p)), and with m = 1.5 * 2^q (q = 23 or 52), fma(x, 2^p, m) is
 * rne(x 2^p) + m exactly: the product is not rounded, |x 2^p| < 2^(l-1) <= 2^31 keeps the
 * sum in [2^q, 2^(q+1)) where the spacing is 1, and the one rounding is to nearest even,
 * symmetric as the reference's sign * rne(|x| / u). The code is then the sum's bit
 * pattern minus m's. Valid when 2^p is a normal number (float32 also needs l <= 16, so
 * that the code is below 2^22); fast = 0 sends the caller to ghz_fixed_code. A zero
 * block (e = GHZ_FIXED_NO_TOP, all finite values +-0) takes s = 0. test_fixed compares
 * them with ghz_fixed_code. Needs subnormal inputs kept (no -ftz). */
typedef struct {
    float s; /* 2^p */
    int fast;
} ghz_fixed_enc_f32_t;

typedef struct {
    double s; /* 2^p */
    int fast;
} ghz_fixed_enc_f64_t;

GHZ_HD static inline ghz_fixed_enc_f32_t ghz_fixed_enc_f32_make(int e, unsigned bits)
{
    ghz_fixed_enc_f32_t sc;
    int p = (int)bits - 1 - e;
    uint32_t u = e == GHZ_FIXED_NO_TOP ? 0u : (uint32_t)(p + 127) << 23;
    sc.fast = bits <= 16u && (e == GHZ_FIXED_NO_TOP || (p >= -126 && p <= 127));
    if (!sc.fast) u = 0u;
    memcpy(&sc.s, &u, sizeof sc.s);
    return sc;
}

GHZ_HD static inline ghz_fixed_enc_f64_t ghz_fixed_enc_f64_make(int e, unsigned bits)
{
    ghz_fixed_enc_f64_t sc;
    int p = (int)bits - 1 - e;
    uint64_t u = e == GHZ_FIXED_NO_TOP ? 0u : (uint64_t)(p + 1023) << 52;
    sc.fast = e == GHZ_FIXED_NO_TOP || (p >= -1022 && p <= 1023);
    if (!sc.fast) u = 0u;
    memcpy(&sc.s, &u, sizeof sc.s);
    return sc;
}

/* The code of the finite float x by the shortcut (sc.fast). */
GHZ_HD static inline int32_t ghz_fixed_code_f32_fast(ghz_fixed_enc_f32_t sc, float x, unsigned bits)
{
    int32_t cmax = (int32_t)((1u << (bits - 1u)) - 1u), c;
    float t = GHZ_FIXED_FMAF(x, sc.s, 12582912.0f); /* 1.5 * 2^23 */
    uint32_t u;
    memcpy(&u, &t, sizeof u);
    c = (int32_t)(u - 0x4B400000u);
    return c > cmax ? cmax : c < -cmax ? -cmax : c;
}

/* The code of the finite double x by the shortcut (sc.fast). |rne| <= 2^31, so the low
 * word is the code except at +-2^31 (l = 32), told apart by the high word. */
GHZ_HD static inline int32_t ghz_fixed_code_f64_fast(ghz_fixed_enc_f64_t sc, double x, unsigned bits)
{
    int32_t cmax = (int32_t)((((uint64_t)1) << (bits - 1u)) - 1u), c;
    double t = GHZ_FIXED_FMA(x, sc.s, 6755399441055744.0); /* 1.5 * 2^52 */
    uint64_t u;
    memcpy(&u, &t, sizeof u);
    if (bits == 32u && (uint32_t)u == 0x80000000u) return (uint32_t)(u >> 32) == 0x43380000u ? cmax : -cmax;
    c = (int32_t)(uint32_t)u;
    return c > cmax ? cmax : c < -cmax ? -cmax : c;
}

/* 2^k as a double, for -1022 <= k <= 1023 (built from bits: exact). */
GHZ_HD static inline double ghz_fixed_pow2(int k)
{
    uint64_t u = (uint64_t)(k + 1023) << 52;
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* The scale of a block: element value = (code * s1) * s2 (FIXED.md, Decoding). When
 * 2^k is a normal double, s1 = 2^k and s2 = 1 (a product by 1 is exact); else
 * s1 = 2^(k+200), exact for |code| < 2^31, and s2 = 2^-200 rounds once. Kernels make
 * it once per block and apply it per element. */
typedef struct {
    double s1, s2;
} ghz_fixed_scale_t;


/* The exponent k of a block's unit u = 2^k (FIXED.md, Decoding); 0 for a zero
 * block, whose codes are 0 or markers. */
GHZ_HD static inline int ghz_fixed_unit_exp(uint16_t word, unsigned bits)
{
    unsigned b = ghz_fixed_word_b(word);
    return b == 0u ? 0 : (int)b - GHZ_FIXED_BIAS - (int)bits + 1;
}

GHZ_HD static inline ghz_fixed_scale_t ghz_fixed_scale_make(uint16_t word, unsigned bits)
{
    ghz_fixed_scale_t sc;
    int k = ghz_fixed_unit_exp(word, bits);
    sc.s1 = ghz_fixed_pow2(k >= -1022 ? k : k + 200);
    sc.s2 = k >= -1022 ? 1.0 : ghz_fixed_pow2(-200);
    return sc;
}

/* (double)c without a conversion instruction (16 per SM and clock on recent GPUs,
 * too few to decode at memory speed): c is added to the significand of 1.5 * 2^52 and
 * the constant subtracted, both exact for |c| < 2^51. */
GHZ_HD static inline double ghz_fixed_int_to_f64(int32_t c)
{
    uint64_t u = 0x4338000000000000ull + (uint64_t)(int64_t)c;
    double v;
    memcpy(&v, &u, sizeof v);
    return GHZ_DSUB(v, 6755399441055744.0);
}

/* Element value in binary64 from its block's word and scale. For float32 data round
 * the result with GHZ_TO_F32. */
GHZ_HD static inline double ghz_fixed_apply(ghz_fixed_scale_t sc, uint16_t word, int32_t code,
                                            unsigned bits)
{
    if (code == ghz_fixed_marker(bits)) {
        unsigned kind = ghz_fixed_word_k(word);
        uint64_t u = kind == GHZ_FIXED_PINF   ? 0x7FF0000000000000ull
                     : kind == GHZ_FIXED_NINF ? 0xFFF0000000000000ull
                                              : 0x7FF8000000000000ull;
        double v;
        memcpy(&v, &u, sizeof v);
        return v;
    }
    /* a zero block's codes are 0 (validated), and 0 * s1 * s2 = +0 */
    return GHZ_DMUL(GHZ_DMUL(ghz_fixed_int_to_f64(code), sc.s1), sc.s2);
}

/* Element value (FIXED.md, Decoding) in binary64 from its word and code alone. */
GHZ_HD static inline double ghz_fixed_decode_f64(uint16_t word, int32_t code, unsigned bits)
{
    return ghz_fixed_apply(ghz_fixed_scale_make(word, bits), word, code, bits);
}

GHZ_HD static inline float ghz_fixed_decode_f32(uint16_t word, int32_t code, unsigned bits)
{
    return GHZ_TO_F32(ghz_fixed_decode_f64(word, code, bits));
}

/* A float32 shortcut for l <= 16 (the GPU's decoders use it): with t = 1.5 * 2^23 + c
 * (exact, from bits, |c| < 2^22), fma(t, 2^k, -1.5 * 2^(23+k)) is the exact c * 2^k
 * rounded once to binary32, which is GHZ_TO_F32 of the exact binary64 product. One
 * integer add and one FMA per value. Valid when 2^k and 1.5 * 2^(23+k) are normal
 * floats: -126 <= k <= 104; fast = 0 sends the caller to ghz_fixed_apply. Needs
 * subnormal floats (no -ftz / --use_fast_math). test_fixed checks it exhaustively. */
typedef struct {
    float s;   /* 2^k */
    float off; /* -1.5 * 2^(23+k) */
    int fast;
} ghz_fixed_scale_f32_t;

GHZ_HD static inline ghz_fixed_scale_f32_t ghz_fixed_scale_f32_make(uint16_t word, unsigned bits)
{
    ghz_fixed_scale_f32_t sc;
    int k = ghz_fixed_unit_exp(word, bits);
    uint32_t us, uo;
    sc.fast = bits <= 16u && k >= -126 && k <= 104;
    if (!sc.fast) k = 0;
    us = (uint32_t)(k + 127) << 23;
    uo = 0x80000000u | ((uint32_t)(k + 23 + 127) << 23) | 0x400000u;
    memcpy(&sc.s, &us, sizeof sc.s);
    memcpy(&sc.off, &uo, sizeof sc.off);
    return sc;
}

/* The value of a code that is not the marker, by the shortcut. */
GHZ_HD static inline float ghz_fixed_f32_fast_value(ghz_fixed_scale_f32_t sc, int32_t code)
{
    uint32_t u = 0x4B400000u + (uint32_t)code;
    float t;
    memcpy(&t, &u, sizeof t);
    return GHZ_FIXED_FMAF(t, sc.s, sc.off);
}

GHZ_HD static inline float ghz_fixed_apply_f32_fast(ghz_fixed_scale_f32_t sc, uint16_t word,
                                                    int32_t code, unsigned bits)
{
    if (code == ghz_fixed_marker(bits)) return ghz_fixed_decode_f32(word, code, bits);
    return ghz_fixed_f32_fast_value(sc, code);
}

/* The binary64 counterpart (the GPU's decoders use it for float64 data and for l = 32):
 * with t = 2^52 + 2^31 + c (exact, from bits: |c| <= 2^31), fma(t, 2^k, -(2^52 + 2^31)
 * 2^k) is the exact c * 2^k rounded once, as ghz_fixed_apply computes it. One 32-bit
 * add and one FMA per value. Valid for -1074 <= k <= 971 (2^k and the offset
 * representable); fast = 0 sends the caller to ghz_fixed_apply. */
typedef struct {
    double s;   /* 2^k */
    double off; /* -(2^52 + 2^31) * 2^k */
    int fast;
} ghz_fixed_scale_fma_t;

GHZ_HD static inline ghz_fixed_scale_fma_t ghz_fixed_scale_fma_make(uint16_t word, unsigned bits)
{
    ghz_fixed_scale_fma_t sc;
    int k = ghz_fixed_unit_exp(word, bits);
    uint64_t us;
    sc.fast = k >= -1074 && k <= 971;
    if (!sc.fast) k = 0;
    /* 2^k from bits: normal, or subnormal 2^(k+1074) ulps of 2^-1074 */
    us = k >= -1022 ? (uint64_t)(k + 1023) << 52 : (uint64_t)1 << (k + 1074);
    memcpy(&sc.s, &us, sizeof sc.s);
    sc.off = GHZ_DMUL(-4503601774854144.0, sc.s); /* exact: (2^21 + 1) 2^31 2^k, k >= -1074 */
    return sc;
}

/* The value of a code that is not the marker, by the shortcut. */
GHZ_HD static inline double ghz_fixed_fma_value(ghz_fixed_scale_fma_t sc, int32_t code)
{
    uint64_t u = 0x4330000000000000ull | (uint64_t)((uint32_t)code ^ 0x80000000u);
    double t;
    memcpy(&t, &u, sizeof t);
    return GHZ_FIXED_FMA(t, sc.s, sc.off);
}

/* ---- whole blocks (serial; the GPU does the same per warp) --------------------- */

/* Encodes m <= 32 values (float32 when is_f32, else float64) into codes[0..32)
 * (positions >= m get 0) and returns the block word. */
GHZ_HD static inline uint16_t ghz_fixed_encode_block(const void* x, int is_f32, unsigned m,
                                                     unsigned bits, int32_t* codes)
{
    ghz_fixed_split_t s[32];
    int top = GHZ_FIXED_NO_TOP, sat = 0;
    unsigned i, mask = 0;
    uint16_t w;
    for (i = 0; i < m; ++i) {
        s[i] = is_f32 ? ghz_fixed_split_f32(((const float*)x)[i])
                      : ghz_fixed_split_f64(((const double*)x)[i]);
        top = s[i].top > top ? s[i].top : top;
        mask |= ghz_fixed_class_bit(s[i].cls);
    }
    w = ghz_fixed_word(top, mask);
    for (i = 0; i < 32u; ++i)
        codes[i] = i >= m                          ? 0
                   : s[i].cls != GHZ_FIXED_FINITE ? ghz_fixed_marker(bits)
                                                  : ghz_fixed_code(&s[i], top, bits, &sat);
    return w;
}

/* Why a block fails validation (FIXED.md, Validation); 0 when it is valid. */
enum {
    GHZ_FIXED_BLOCK_OK = 0,
    GHZ_FIXED_BLOCK_WORD_BITS,   /* bits 14..15 set */
    GHZ_FIXED_BLOCK_EXPONENT,    /* B outside the dtype's range */
    GHZ_FIXED_BLOCK_MARKER,      /* a marker in a block with K = 0 */
    GHZ_FIXED_BLOCK_ZERO_CODES,  /* a nonzero code in a zero block */
    GHZ_FIXED_BLOCK_PADDING      /* a nonzero code past n */
};

/* Valid range of B for a dtype: e in [-148, 128] (f32) or [-1073, 1024] (f64). */
GHZ_HD static inline int ghz_fixed_b_ok(unsigned b, int is_f32)
{
    int e = (int)b - GHZ_FIXED_BIAS;
    return b == 0u || (is_f32 ? (e >= -148 && e <= 128) : (e >= -1073 && e <= 1024));
}

/* Checks a block word alone. */
GHZ_HD static inline int ghz_fixed_word_check(uint16_t word, int is_f32)
{
    if (word >> 14) return GHZ_FIXED_BLOCK_WORD_BITS;
    if (!ghz_fixed_b_ok(ghz_fixed_word_b(word), is_f32)) return GHZ_FIXED_BLOCK_EXPONENT;
    return GHZ_FIXED_BLOCK_OK;
}

/* Checks one code of a block with word `word`; is_elem: the position is < n. A K
 * without a marker is valid: element stores may replace the last one. */
GHZ_HD static inline int ghz_fixed_code_check(uint16_t word, int32_t code, int is_elem,
                                              unsigned bits)
{
    if (!is_elem) return code != 0 ? GHZ_FIXED_BLOCK_PADDING : GHZ_FIXED_BLOCK_OK;
    if (code == ghz_fixed_marker(bits))
        return ghz_fixed_word_k(word) == 0u ? GHZ_FIXED_BLOCK_MARKER : GHZ_FIXED_BLOCK_OK;
    return code != 0 && ghz_fixed_word_b(word) == 0u ? GHZ_FIXED_BLOCK_ZERO_CODES
                                                      : GHZ_FIXED_BLOCK_OK;
}

/* Checks one block: its word and its 32 codes (m of them elements); the first
 * failure found. */
GHZ_HD static inline int ghz_fixed_block_check(uint16_t word, const int32_t* codes, unsigned m,
                                               unsigned bits, int is_f32)
{
    unsigned i;
    int why = ghz_fixed_word_check(word, is_f32);
    for (i = 0; i < 32u && why == GHZ_FIXED_BLOCK_OK; ++i)
        why = ghz_fixed_code_check(word, codes[i], i < m, bits);
    return why;
}

/* ---- the header ----------------------------------------------------------------- */

GHZ_HD static inline uint64_t ghz_fixed_words_bytes(uint64_t n_blocks)
{
    return (2u * n_blocks + 15u) & ~(uint64_t)15u;
}

/* Serialises the 64-byte header of a frame of n values of dtype at l bits. */
GHZ_HD static inline void ghz_fixed_header_pack(uint8_t* dst, ghz_dtype_t dtype, unsigned bits,
                                                uint64_t n)
{
    uint64_t nb = n / 32u + (n % 32u != 0);
    unsigned i;
    for (i = 0; i < 64u; ++i) dst[i] = 0;
    dst[0] = 0xF9u;
    dst[1] = 0x47u;
    dst[2] = 0x48u;
    dst[3] = 0x5Au;
    ghz_store_le(dst + 4, 2u, 2); /* format_version 2, the version FIXED.md was written for */
    ghz_store_le(dst + 6, 64u, 2);
    dst[8] = (uint8_t)dtype;
    dst[9] = (uint8_t)GHZ_FIXED_MODE;
    dst[10] = 5;
    dst[11] = (uint8_t)bits;
    ghz_store_le(dst + 16, n, 8);
    ghz_store_le(dst + 24, nb, 8);
    ghz_store_le(dst + 32, ghz_fixed_words_bytes(nb) + nb * 4u * bits, 8);
}


/* Which header check failed (messages in fixed.c). */
enum {
    GHZ_FIXED_HDR_OK = 0,
    GHZ_FIXED_HDR_SHORT_MAGIC,
    GHZ_FIXED_HDR_MAGIC,
    GHZ_FIXED_HDR_SHORT_VERSION,
    GHZ_FIXED_HDR_VERSION,
    GHZ_FIXED_HDR_SHORT,
    GHZ_FIXED_HDR_HEADER_SIZE,
    GHZ_FIXED_HDR_DTYPE,
    GHZ_FIXED_HDR_OTHER_MODE,
    GHZ_FIXED_HDR_MODE,
    GHZ_FIXED_HDR_BLOCK_LOG2,
    GHZ_FIXED_HDR_BITS,
    GHZ_FIXED_HDR_RESERVED,
    GHZ_FIXED_HDR_N_BLOCKS,
    GHZ_FIXED_HDR_PAYLOAD,
    GHZ_FIXED_HDR_FRAME_SIZE
};

/* Checks the header at src (src_size readable bytes, of which only the 64 header
 * bytes are read) and fills *info; returns a ghz_status_t value, *why the check. */
GHZ_HD static inline int ghz_fixed_header_unpack(const uint8_t* src, uint64_t src_size,
                                                 ghz_fixed_info_t* info, int* why)
{
    uint64_t n, nb, payload, words, i;
    unsigned bits;
#define GHZ_FIXED_FAIL(st, w) \
    do {                      \
        *why = (w);           \
        return (st);          \
    } while (0)
    if (src_size < 4) GHZ_FIXED_FAIL(GHZ_ERR_TRUNCATED, GHZ_FIXED_HDR_SHORT_MAGIC);
    if (src[0] != 0xF9u || src[1] != 0x47u || src[2] != 0x48u || src[3] != 0x5Au)
        GHZ_FIXED_FAIL(GHZ_ERR_NOT_GHZ, GHZ_FIXED_HDR_MAGIC);
    if (src_size < 6) GHZ_FIXED_FAIL(GHZ_ERR_TRUNCATED, GHZ_FIXED_HDR_SHORT_VERSION);
    if (ghz_load_le(src + 4, 2) != 2u) GHZ_FIXED_FAIL(GHZ_ERR_VERSION, GHZ_FIXED_HDR_VERSION);
    if (src_size < 64) GHZ_FIXED_FAIL(GHZ_ERR_TRUNCATED, GHZ_FIXED_HDR_SHORT);
    if (ghz_load_le(src + 6, 2) != 64u) GHZ_FIXED_FAIL(GHZ_ERR_CORRUPT, GHZ_FIXED_HDR_HEADER_SIZE);
    if (src[8] != GHZ_F32 && src[8] != GHZ_F64) GHZ_FIXED_FAIL(GHZ_ERR_CORRUPT, GHZ_FIXED_HDR_DTYPE);
    if (src[9] == GHZ_EB_ABS || src[9] == GHZ_EB_REL)
        GHZ_FIXED_FAIL(GHZ_ERR_UNSUPPORTED, GHZ_FIXED_HDR_OTHER_MODE);
    if (src[9] != GHZ_FIXED_MODE) GHZ_FIXED_FAIL(GHZ_ERR_CORRUPT, GHZ_FIXED_HDR_MODE);
    if (src[10] != 5) GHZ_FIXED_FAIL(GHZ_ERR_CORRUPT, GHZ_FIXED_HDR_BLOCK_LOG2);
    bits = src[11];
    if (!ghz_fixed_bits_ok(bits)) GHZ_FIXED_FAIL(GHZ_ERR_CORRUPT, GHZ_FIXED_HDR_BITS);
    if (ghz_load_le(src + 12, 4) != 0) GHZ_FIXED_FAIL(GHZ_ERR_CORRUPT, GHZ_FIXED_HDR_RESERVED);
    for (i = 40; i < 64; ++i)
        if (src[i] != 0) GHZ_FIXED_FAIL(GHZ_ERR_CORRUPT, GHZ_FIXED_HDR_RESERVED);
    n = ghz_load_le(src + 16, 8);
    nb = ghz_load_le(src + 24, 8);
    payload = ghz_load_le(src + 32, 8);
    if (nb != n / 32u + (n % 32u != 0)) GHZ_FIXED_FAIL(GHZ_ERR_CORRUPT, GHZ_FIXED_HDR_N_BLOCKS);
    /* nb <= 2^59, so 4 * bits * nb cannot overflow; words + codes is checked */
    words = ghz_fixed_words_bytes(nb);
    if (nb > (UINT64_MAX - 64u) / 256u || payload != words + nb * 4u * bits)
        GHZ_FIXED_FAIL(GHZ_ERR_CORRUPT, GHZ_FIXED_HDR_PAYLOAD);
    if (payload > src_size - 64u) GHZ_FIXED_FAIL(GHZ_ERR_TRUNCATED, GHZ_FIXED_HDR_FRAME_SIZE);
#undef GHZ_FIXED_FAIL
    info->dtype = (ghz_dtype_t)src[8];
    info->bits = bits;
    info->n = n;
    info->n_blocks = nb;
    info->payload_size = payload;
    info->frame_size = 64u + payload;
    *why = GHZ_FIXED_HDR_OK;
    return GHZ_SUCCESS;
}

/* ---- the element accessor (users' kernels) --------------------------------------- */

/* A fixed-rate frame in memory (host or device): block words and codes found by
 * arithmetic. The frame must be at least 4-byte aligned (16 for vector loads of
 * codes; cudaMalloc and malloc give that). No validation: make it from a frame that
 * ghz_fixed_info (or the GPU decoder's status) accepted. */
typedef struct {
    uint16_t* words;
    void* codes;
    uint64_t n;
    unsigned bits;
    ghz_dtype_t dtype;
} ghz_fixed_view_t;

/* The view of the frame at `frame` holding n values of dtype at l bits. */
GHZ_HD static inline ghz_fixed_view_t ghz_fixed_view_make(void* frame, ghz_dtype_t dtype,
                                                          unsigned bits, uint64_t n)
{
    ghz_fixed_view_t v;
    uint64_t nb = n / 32u + (n % 32u != 0);
    v.words = (uint16_t*)((uint8_t*)frame + 64);
    v.codes = (uint8_t*)frame + 64 + ghz_fixed_words_bytes(nb);
    v.n = n;
    v.bits = bits;
    v.dtype = dtype;
    return v;
}

/* Code of element i (native little-endian load). */
GHZ_HD static inline int32_t ghz_fixed_code_at(const ghz_fixed_view_t* v, uint64_t i)
{
    if (v->bits == 8u) return ((const int8_t*)v->codes)[i];
    if (v->bits == 16u) return ((const int16_t*)v->codes)[i];
    return ((const int32_t*)v->codes)[i];
}

GHZ_HD static inline void ghz_fixed_code_put(const ghz_fixed_view_t* v, uint64_t i, int32_t c)
{
    if (v->bits == 8u)
        ((int8_t*)v->codes)[i] = (int8_t)c;
    else if (v->bits == 16u)
        ((int16_t*)v->codes)[i] = (int16_t)c;
    else
        ((int32_t*)v->codes)[i] = c;
}

/* Element i of a float32 frame. Through the exact shortcuts above where they apply
 * (they are what makes this fast in a kernel), else the reference decode. */
GHZ_HD static inline float ghz_fixed_load_f32(const ghz_fixed_view_t* v, uint64_t i)
{
    const uint16_t w = v->words[i / 32u];
    const int32_t c = ghz_fixed_code_at(v, i);
    const ghz_fixed_scale_f32_t sf = ghz_fixed_scale_f32_make(w, v->bits);
    if (sf.fast) return ghz_fixed_apply_f32_fast(sf, w, c, v->bits);
    return ghz_fixed_decode_f32(w, c, v->bits);
}

/* Element i decoded in binary64 (the float32 value, widened, for f32 frames). */
GHZ_HD static inline double ghz_fixed_load(const ghz_fixed_view_t* v, uint64_t i)
{
    uint16_t w;
    int32_t c;
    ghz_fixed_scale_fma_t sd;
    if (v->dtype == GHZ_F32) return (double)ghz_fixed_load_f32(v, i);
    w = v->words[i / 32u];
    c = ghz_fixed_code_at(v, i);
    sd = ghz_fixed_scale_fma_make(w, v->bits);
    if (sd.fast && c != ghz_fixed_marker(v->bits)) return ghz_fixed_fma_value(sd, c);
    return ghz_fixed_decode_f64(w, c, v->bits);
}

/* Stores x into element i under the block's existing word, which is not changed
 * (FIXED.md, Element stores): threads may store different elements of one block at
 * once. Returns 1 when x is represented within its block's bound, else 0 (a finite x
 * saturated or not zero in a zero block; a non-finite x whose kind K does not hold is
 * not stored). */
GHZ_HD static inline int ghz_fixed_store(const ghz_fixed_view_t* v, uint64_t i, double x)
{
    uint16_t w = v->words[i / 32u];
    ghz_fixed_split_t s = v->dtype == GHZ_F32 ? ghz_fixed_split_f32(GHZ_TO_F32(x))
                                              : ghz_fixed_split_f64(x);
    int sat = 0;
    if (s.cls != GHZ_FIXED_FINITE) {
        if (ghz_fixed_word_k(w) != (unsigned)s.cls) return 0;
        ghz_fixed_code_put(v, i, ghz_fixed_marker(v->bits));
        return 1;
    }
    if (ghz_fixed_word_b(w) == 0u) {
        ghz_fixed_code_put(v, i, 0);
        return s.m == 0;
    }
    ghz_fixed_code_put(v, i, ghz_fixed_code(&s, (int)ghz_fixed_word_b(w) - GHZ_FIXED_BIAS,
                                            v->bits, &sat));
    return !sat;
}

/* sum of load(i) * y[i - begin] for i in [begin, end), in index order, in binary64.
 * A helper for one thread's share of a dot product; combine the shares yourself. */
GHZ_HD static inline double ghz_fixed_dot(const ghz_fixed_view_t* v, const double* y,
                                          uint64_t begin, uint64_t end)
{
    double acc = 0.0;
    uint64_t i;
    for (i = begin; i < end; ++i) acc = GHZ_DADD(acc, GHZ_DMUL(ghz_fixed_load(v, i), y[i - begin]));
    return acc;
}

#endif /* GHZ_ADVANCED */

/* ---- CPU reference API (libghz) --------------------------------------------------- */

/* Exact frame size of n values at l bits (any dtype); 0 for bits other than 8, 16,
 * 32 or a size beyond size_t. */
GHZ_API size_t ghz_fixed_size(size_t n, unsigned bits);

/* Compresses n values of dtype at src into one fixed-rate frame at dst.
 * GHZ_ERR_UNSUPPORTED for bits other than 8/16/32, GHZ_ERR_DST_TOO_SMALL when
 * dst_capacity < ghz_fixed_size(n, bits), GHZ_ERR_INVALID_ARG for NULL or a bad dtype. */
GHZ_API ghz_status_t ghz_fixed_compress(ghz_dtype_t dtype, unsigned bits, const void* src,
                                        size_t n, void* dst, size_t dst_capacity,
                                        size_t* dst_size);

/* Validates the header of the frame at src and that the frame fits in src_size. */
GHZ_API ghz_status_t ghz_fixed_info(const void* src, size_t src_size, ghz_fixed_info_t* info);

/* Validates the frame completely (header, exact size: no trailing bytes, every block)
 * and decodes its n values into dst (dst_capacity bytes). n_out may be NULL. */
GHZ_API ghz_status_t ghz_fixed_decompress(const void* src, size_t src_size, void* dst,
                                          size_t dst_capacity, size_t* n_out);

#ifdef __cplusplus
}
#endif
#endif
