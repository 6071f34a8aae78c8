/* ghz/codec/fixed.cuh: CUDA helpers for reading fixed-rate frames (FIXED.md) at
 * memory speed inside your own kernels: one thread takes a 16-byte *chunk* of codes
 * (16, 8 or 4 consecutive elements of one block at l = 8, 16, 32) with one vector
 * load, plus its block word, and decodes it in registers. The library's decoder and
 * ghz-bench use these; element-wise access is ghz_fixed_load in fixed.h.
 *
 * Fetching and decoding are separate calls so that a kernel can issue the loads of
 * several chunks before it decodes the first: a thread that waits for one 16-byte load
 * at a time keeps too few bytes in flight to reach the memory's bandwidth (at l = 8 a
 * chunk is 16 values of work for 16 bytes).
 *
 *     ghz::fixed_raw r[4];
 *     for (j...) r[j] = ghz::fixed_chunk_fetch<16>(v, chunk + j * stride);
 *     for (j...) ghz::fixed_chunk_values<float, 16>(r[j], vals);   // then use vals
 *
 * CUDA C++ only (templates). The frame must be 16-byte aligned (cudaMalloc is). */
#ifndef GHZ_CODEC_FIXED_CUH
#define GHZ_CODEC_FIXED_CUH

/* Advanced tier (docs/API.md): device building blocks, no stability promise. */
#if !defined(GHZ_ADVANCED)
#error "ghz/codec/fixed.cuh is ghz's advanced tier (no stability promise): #define GHZ_ADVANCED before including it"
#endif

#include "ghz/codec/fixed.h"

namespace ghz {
inline namespace GHZ_ABI_NS {

/* Elements per 16-byte chunk of codes at BITS bits, and chunks of a frame. */
template <unsigned BITS>
struct fixed_chunk {
    static_assert(BITS == 8 || BITS == 16 || BITS == 32, "l is 8, 16 or 32");
    static constexpr unsigned elems = 128u / BITS;
    static constexpr unsigned per_block = 32u / elems;
    /* each code plus 2^(l-1), taken as unsigned: XOR of the sign bit of every code */
    static constexpr uint32_t bias = BITS == 8u ? 0x80808080u : BITS == 16u ? 0x80008000u : 0x80000000u;
    __host__ __device__ static uint64_t count(uint64_t n_blocks) { return n_blocks * per_block; }
};

/* A chunk as loaded: its 16 bytes of codes and its block's word. */
struct fixed_raw {
    uint4 q;
    uint16_t word;
};

template <unsigned BITS>
__device__ __forceinline__ fixed_raw fixed_chunk_fetch(const ghz_fixed_view_t& v, uint64_t chunk)
{
    fixed_raw r;
    r.q = __ldg(reinterpret_cast<const uint4*>(v.codes) + chunk);
    r.word = __ldg(v.words + chunk / fixed_chunk<BITS>::per_block);
    return r;
}

/* The chunk's codes, sign-extended. */
template <unsigned BITS>
__device__ __forceinline__ void fixed_chunk_codes(const fixed_raw& r, int32_t (&c)[fixed_chunk<BITS>::elems])
{
    const uint32_t w[4] = {r.q.x, r.q.y, r.q.z, r.q.w};
#pragma unroll
    for (unsigned j = 0; j < fixed_chunk<BITS>::elems; ++j) {
        const uint32_t word = w[j * BITS / 32u];
        /* sign extension by a shift pair (constants after unrolling). Not __byte_perm:
         * CUDA documents only the low 3 bits of its selector nibbles, and with the
         * sign-replicate bit relied on, negative codes decode as large positive ones
         * on sm_90. */
        const unsigned off = (j * BITS) % 32u;
        c[j] = BITS == 32u ? (int32_t)word : (int32_t)(word << (32u - BITS - off)) >> (32u - BITS);
    }
}

/* The biased code (code + 2^(l-1), 0 .. 2^l - 1) of element j of a chunk whose words
 * were XORed with fixed_chunk<BITS>::bias, zero-extended to 32 bits with `hi` in the
 * bytes above it: one byte permute (plain byte selectors only, see above). */
template <unsigned BITS>
__device__ __forceinline__ uint32_t fixed_biased(const uint32_t (&w)[4], unsigned j, uint32_t hi)
{
    const uint32_t x = w[j * BITS / 32u];
    if (BITS == 32u) return x;
    const unsigned pos = (j * BITS) % 32u / 8u; /* first byte of the code in x */
    /* bytes 0-3 select from x, 4-7 from hi: [x.pos, (x.pos+1 | hi.1), hi.2, hi.3] */
    const unsigned sel = BITS == 8u ? pos | (5u << 4) | (6u << 8) | (7u << 12)
                                    : pos | ((pos + 1u) << 4) | (6u << 8) | (7u << 12);
    return __byte_perm(x, hi, sel);
}

/* The values of a chunk (T = float or double), exactly as ghz_fixed_load for a valid
 * frame. The common case (no marker in the block, l <= 16 for float, a normal scale)
 * costs one byte permute and one FMA per value (an add and a multiply for float blocks
 * above 2^104, such as a -1e34 fill): with t the float 2^23 + b (b the
 * biased code, placed in the significand by bits), fma(t, 2^k, -(2^23 + 2^(l-1)) 2^k)
 * is the exact code * 2^k rounded once, which is what FIXED.md's decoding gives (for
 * double: t = 2^52 + b). Elements past v.n decode as whatever their codes say (0 in a
 * valid frame): the caller masks them. */
template <typename T, unsigned BITS>
__device__ __forceinline__ void fixed_chunk_values(const fixed_raw& r, T (&out)[fixed_chunk<BITS>::elems])
{
    using C = fixed_chunk<BITS>;
    const uint16_t word = r.word;
    const int k = ghz_fixed_unit_exp(word, BITS);
    const uint32_t w[4] = {r.q.x ^ C::bias, r.q.y ^ C::bias, r.q.z ^ C::bias, r.q.w ^ C::bias};
    if (ghz_fixed_word_k(word) == 0u) {
        if (sizeof(T) == 4 && BITS <= 16u && k >= -126 && k <= 127) {
            const float s = __uint_as_float((uint32_t)(k + 127) << 23);
            if (k <= 104) {
                const float off = __uint_as_float(0x80000000u | ((uint32_t)(k + 150) << 23) | (1u << (BITS - 1u)));
#pragma unroll
                for (unsigned j = 0; j < C::elems; ++j)
                    out[j] = (T)__fmaf_rn(__uint_as_float(fixed_biased<BITS>(w, j, 0x4B000000u)), s, off);
            } else { /* the offset would overflow: subtract first (exact), then scale (exact:
                      * |code| 2^k < 2^e <= 2^128, and a code has at most 15 bits) */
                const float c0 = 8388608.0f + (float)(1u << (BITS - 1u));
#pragma unroll
                for (unsigned j = 0; j < C::elems; ++j)
                    out[j] = (T)__fmul_rn(__fsub_rn(__uint_as_float(fixed_biased<BITS>(w, j, 0x4B000000u)), c0), s);
            }
            return;
        }
        if (k >= -1074 && k <= 971) {
            /* 2^k from bits: normal, or subnormal 2^(k+1074) ulps of 2^-1074 */
            const double s = __longlong_as_double(k >= -1022 ? (long long)(k + 1023) << 52 : 1ll << (k + 1074));
            const double off = __dmul_rn(-(4503599627370496.0 + (double)(1u << (BITS - 1u))), s); /* exact */
#pragma unroll
            for (unsigned j = 0; j < C::elems; ++j) {
                const double t = __hiloint2double(0x43300000, (int)fixed_biased<BITS>(w, j, 0u));
                const double d = __fma_rn(t, s, off);
                out[j] = sizeof(T) == 4 ? (T)__double2float_rn(d) : (T)d;
            }
            return;
        }
    }
    /* markers, or a scale at the ends of the range: the general path */
    int32_t c[C::elems];
    fixed_chunk_codes<BITS>(r, c);
    const ghz_fixed_scale_t sc = ghz_fixed_scale_make(word, BITS);
#pragma unroll
    for (unsigned j = 0; j < C::elems; ++j) {
        const double d = ghz_fixed_apply(sc, word, c[j], BITS);
        out[j] = sizeof(T) == 4 ? (T)GHZ_TO_F32(d) : (T)d;
    }
}

/* FIXED.md's validation of a chunk whose first `valid` elements are < n (the rest
 * padding): 0 when valid. A whole chunk of a block without markers is checked on its
 * words at once: a marker has biased code 0, so it is a zero byte (half, word) of the
 * biased words; in a zero block every code must be 0. */
template <unsigned BITS>
__device__ __forceinline__ int fixed_chunk_check(const fixed_raw& r, unsigned valid, int is_f32)
{
    using C = fixed_chunk<BITS>;
    if (ghz_fixed_word_check(r.word, is_f32)) return 1;
    if (valid == C::elems && ghz_fixed_word_k(r.word) == 0u) {
        const uint32_t w[4] = {r.q.x ^ C::bias, r.q.y ^ C::bias, r.q.z ^ C::bias, r.q.w ^ C::bias};
        /* a zero field in x: (x - ones) & ~x & highs (no false positive for "any") */
        const uint32_t ones = BITS == 8u ? 0x01010101u : BITS == 16u ? 0x00010001u : 1u;
        uint32_t marker = 0;
#pragma unroll
        for (unsigned i = 0; i < 4u; ++i)
            marker |= BITS == 32u ? (uint32_t)(w[i] == 0u) : (w[i] - ones) & ~w[i] & C::bias;
        const uint32_t any = r.q.x | r.q.y | r.q.z | r.q.w;
        return marker != 0u || (ghz_fixed_word_b(r.word) == 0u && any != 0u);
    }
    int32_t c[C::elems];
    fixed_chunk_codes<BITS>(r, c);
    int bad = 0;
#pragma unroll
    for (unsigned j = 0; j < C::elems; ++j) bad |= ghz_fixed_code_check(r.word, c[j], j < valid, BITS);
    return bad;
}

/* Fetch and decode in one call (one chunk in flight): out[] as fixed_chunk_values,
 * c[] the codes; returns the block word. */
template <typename T, unsigned BITS>
__device__ __forceinline__ uint16_t fixed_chunk_decode(const ghz_fixed_view_t& v, uint64_t chunk,
                                                       T (&out)[fixed_chunk<BITS>::elems],
                                                       int32_t (&c)[fixed_chunk<BITS>::elems])
{
    const fixed_raw r = fixed_chunk_fetch<BITS>(v, chunk);
    fixed_chunk_codes<BITS>(r, c);
    fixed_chunk_values<T, BITS>(r, out);
    return r.word;
}

} // namespace GHZ_ABI_NS
} // namespace ghz

#endif
