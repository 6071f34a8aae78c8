/* ghz/codec/fixed.cuh: CUDA helpers for reading fixed-rate frames (FIXED.md) at
 * memory speed inside your own kernels: one thread takes a 16-byte *chunk* of codes
 * (16, 8 or 4 consecutive elements of one block at l = 8, 16, 32) with one vector
 * load, plus its block word, and decodes it in registers. The library's decoder and
 * ghz-bench use these; element-wise access is ghz_fixed_load in fixed.h.
 *
 * CUDA C++ only (templates). The frame must be 16-byte aligned (cudaMalloc is). */
#ifndef GHZ_CODEC_FIXED_CUH
#define GHZ_CODEC_FIXED_CUH

#include "ghz/codec/fixed.h"

namespace ghz {

/* Elements per 16-byte chunk of codes at BITS bits, and chunks of a frame. */
template <unsigned BITS>
struct fixed_chunk {
    static_assert(BITS == 8 || BITS == 16 || BITS == 32, "l is 8, 16 or 32");
    static constexpr unsigned elems = 128u / BITS;
    static constexpr unsigned per_block = 32u / elems;
    __host__ __device__ static uint64_t count(uint64_t n_blocks) { return n_blocks * per_block; }
};

/* The codes of chunk `chunk` (one 16-byte load), sign-extended. */
template <unsigned BITS>
__device__ __forceinline__ void fixed_chunk_codes(const ghz_fixed_view_t& v, uint64_t chunk,
                                                  int32_t (&c)[fixed_chunk<BITS>::elems])
{
    const uint4 q = __ldg(reinterpret_cast<const uint4*>(v.codes) + chunk);
    const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (unsigned j = 0; j < fixed_chunk<BITS>::elems; ++j) {
        const uint32_t word = w[j * BITS / 32u];
        /* sign extension by a shift pair (constants after unrolling). Not __byte_perm:
         * CUDA documents only the low 3 bits of its selector nibbles, and with the
         * sign-replicate bit relied on, negative codes decoded as large positive ones
         * on an H200 (every l = 8 and 16 bound check of ghz-bench fixed failed). */
        const unsigned off = (j * BITS) % 32u;
        c[j] = BITS == 32u ? (int32_t)word : (int32_t)(word << (32u - BITS - off)) >> (32u - BITS);
    }
}

/* Decodes chunk `chunk` into out[] (T = float or double), exactly as ghz_fixed_load
 * for a valid frame (a block with K = 0 has no marker, so its codes are not compared
 * with it); returns its block word. Elements past v.n decode as whatever their codes
 * say (0 in a valid frame): the caller masks them. */
template <typename T, unsigned BITS>
__device__ __forceinline__ uint16_t fixed_chunk_decode(const ghz_fixed_view_t& v, uint64_t chunk,
                                                       T (&out)[fixed_chunk<BITS>::elems],
                                                       int32_t (&c)[fixed_chunk<BITS>::elems])
{
    const uint16_t word = __ldg(v.words + chunk / fixed_chunk<BITS>::per_block);
    fixed_chunk_codes<BITS>(v, chunk, c);
    if (sizeof(T) == 4 && BITS <= 16u) {
        const ghz_fixed_scale_f32_t sf = ghz_fixed_scale_f32_make(word, BITS);
        if (sf.fast && ghz_fixed_word_k(word) == 0u) { /* the common case: no marker */
#pragma unroll
            for (unsigned j = 0; j < fixed_chunk<BITS>::elems; ++j)
                out[j] = (T)ghz_fixed_f32_fast_value(sf, c[j]);
            return word;
        }
        if (sf.fast) {
#pragma unroll
            for (unsigned j = 0; j < fixed_chunk<BITS>::elems; ++j)
                out[j] = (T)ghz_fixed_apply_f32_fast(sf, word, c[j], BITS);
            return word;
        }
    }
    const ghz_fixed_scale_fma_t sd = ghz_fixed_scale_fma_make(word, BITS);
    if (sd.fast && ghz_fixed_word_k(word) == 0u) { /* one FMA per value, no marker */
#pragma unroll
        for (unsigned j = 0; j < fixed_chunk<BITS>::elems; ++j) {
            const double d = ghz_fixed_fma_value(sd, c[j]);
            out[j] = sizeof(T) == 4 ? (T)GHZ_TO_F32(d) : (T)d;
        }
        return word;
    }
    const ghz_fixed_scale_t sc = ghz_fixed_scale_make(word, BITS);
#pragma unroll
    for (unsigned j = 0; j < fixed_chunk<BITS>::elems; ++j) {
        const double d = ghz_fixed_apply(sc, word, c[j], BITS);
        out[j] = sizeof(T) == 4 ? (T)GHZ_TO_F32(d) : (T)d;
    }
    return word;
}

} // namespace ghz

#endif
