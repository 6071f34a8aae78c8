/* ghz/codec/cuda/thread_block.cuh (private): one block, one thread. The reader of a
 * block staged in shared memory and the writer of a block's payload that the codec's
 * kernels (decompress.cu, compress.cu) and ghz/homo's fused kernel share, so that
 * every GPU path decodes and emits blocks with the same code (the checks and the bit
 * layout being block.h's, as on the CPU). */
#ifndef GHZ_CODEC_CUDA_THREAD_BLOCK_CUH
#define GHZ_CODEC_CUDA_THREAD_BLOCK_CUH

#include <stdint.h>
#include <string.h>

#include "ghz/codec/block.h"

namespace ghz {
namespace detail {

/* Planes k0 <= k < k1 of a block (k < w only, 0 above), where `prev` holds field
 * word k0 (the sign word being word 0, plane k word k + 1) of the fields that start
 * sh1 / 8 bytes into shared word o1. Each word is two aligned loads and a funnel
 * shift; the loads are predicated, not branched around: a branch per plane made the
 * compiler zero the planes not yet read at every exit (15 instructions a plane). */
template <unsigned k0, unsigned k1>
__device__ __forceinline__ void read_planes(const uint32_t* sw, unsigned o1, unsigned sh1, unsigned w,
                                            uint32_t& prev, uint32_t a[32])
{
#pragma unroll
    for (unsigned k = k0; k < k1; ++k) {
        const uint32_t next = k < w ? sw[o1 + k + 2u] : 0u;
        a[k] = k < w ? __funnelshift_r(prev, next, sh1) : 0u;
        prev = next;
    }
}

/* The fields of a QUANT block staged in shared memory at byte `off` of the 4-byte
 * aligned shared buffer sw, as ghz_quant_decode reads them: the mask (0 without one),
 * zz, the sign word and the magnitude planes a (a[k] = 0 for k >= w, and 0 throughout
 * when w = 0); with kTop, *top = plane w - 1 too (0 when w = 0). The fields are read
 * as 32-bit words at any byte offset, each from two aligned loads and a funnel shift
 * (consecutive words share a load), where the byte reader needs four loads a word.
 * Indexing the shared array itself (not a pointer rebuilt from an integer) keeps the
 * loads shared-memory ones with 32-bit addresses.
 * The buffer needs 8 readable bytes after the payload (the words around the block). */
template <bool kTop = false>
__device__ __forceinline__ void read_fields(const uint32_t* sw, unsigned off, unsigned code, uint32_t* mask,
                                            uint32_t* zz, uint32_t* sign, uint32_t a[32], uint32_t* top = nullptr)
{
    const unsigned w = code & GHZ_CODE_W_MASK, nb = ghz_q0_bytes((code >> 5) & 3u);
    const unsigned fill = (code & GHZ_CODE_FILL_BIT) ? 1u : 0u;
    const unsigned o = off >> 2, sh = (off & 3u) * 8u;
    const uint32_t w0 = sw[o], w1 = sw[o + 1u], w2 = fill ? sw[o + 2u] : 0u;
    *mask = fill ? __funnelshift_r(w0, w1, sh) : 0u;
    /* zz: nb of 0, 1, 2 or 4 bytes, after the mask when there is one */
    const uint32_t zword = fill ? __funnelshift_r(w1, w2, sh) : __funnelshift_r(w0, w1, sh);
    *zz = nb ? zword & (0xFFFFFFFFu >> (32u - 8u * nb)) : 0u;
    const unsigned off1 = off + 4u * fill + nb, o1 = off1 >> 2, sh1 = (off1 & 3u) * 8u;
    *sign = 0;
    if (kTop) *top = 0;
#pragma unroll
    for (unsigned k = 0; k < 32u; ++k) a[k] = 0;
    if (w) {
        /* three tiers (8, 16, 30 planes): a warp reads as far as its widest block */
        uint32_t prev = sw[o1 + 1u];
        *sign = __funnelshift_r(sw[o1], prev, sh1);
        read_planes<0, 8>(sw, o1, sh1, w, prev, a);
        if (w > 8u) {
            read_planes<8, 16>(sw, o1, sh1, w, prev, a);
            if (w > 16u) read_planes<16, GHZ_MAX_W>(sw, o1, sh1, w, prev, a);
        }
        /* plane w - 1 (field word w): a[w - 1] by a run-time index would move a to local memory */
        if (kTop) *top = __funnelshift_r(sw[o1 + w], sw[o1 + w + 1u], sh1);
    }
}

/* ghz_quant_decode for a block staged in shared memory (read_fields): checks and
 * integers are ghz_quant_rebuild's, as on the CPU. Returns 0, or -1 for a block that is
 * not canonical. */
__device__ __forceinline__ int read_and_rebuild(const uint32_t* sw, unsigned off, unsigned code, unsigned m,
                                                int32_t q[32], uint32_t* fmask)
{
    uint32_t mask, zz, sign, a[32];
    read_fields(sw, off, code, &mask, &zz, &sign, a);
    if (ghz_quant_rebuild(code, m, mask, zz, sign, a, q) != 0) return -1;
    *fmask = mask;
    return 0;
}

/* The bit pattern of recon(q) in the dtype T (float: exact, recon already rounded). */
template <typename T>
__device__ __forceinline__ uint64_t recon_bits(const ghz_quantizer_t& z, int32_t q)
{
    const double r = ghz_recon(&z, q);
    if (sizeof(T) == 4) return __float_as_uint((float)r);
    return (uint64_t)__double_as_longlong(r);
}

/* A value of the dtype T from its bit pattern, widened exactly to double. */
template <typename T>
__device__ __forceinline__ double value_of_bits(uint64_t bits)
{
    if (sizeof(T) == 4) return (double)__uint_as_float((uint32_t)bits);
    return __longlong_as_double((long long)bits);
}

/* Writes the payload of a block whose code byte and size the encoder chose (block.h:
 * ghz_facts_finish) to o: QUANT by quant(o) (ghz_quant_emit from the deltas, or
 * ghz_quant_encode from the integers), RAW and CONST from value(i), the bit pattern of
 * value i (size / elem values; the caller knows where they are), FILLED nothing.
 * kUnrolled: the value loop is unrolled, for a value() that reads a thread's register
 * arrays (a run-time index would move them to local memory); a plain loop otherwise,
 * which costs the compressor, whose values come from memory, no registers. */
template <bool kUnrolled, typename ValueAt, typename Quant>
__device__ __forceinline__ void emit_block(unsigned code, unsigned size, unsigned elem, uint8_t* o, ValueAt value,
                                           Quant quant)
{
    if (!size) return;
    if (code == GHZ_CODE_RAW || code == GHZ_CODE_CONST) {
        const unsigned count = size / elem;
        if (kUnrolled) {
#pragma unroll
            for (unsigned i = 0; i < 32u; ++i)
                if (i < count) ghz_store_le(o + i * elem, value(i), elem);
        } else {
            for (unsigned i = 0; i < count; ++i) ghz_store_le(o + i * elem, value(i), elem);
        }
    } else {
        quant(o);
    }
}

} // namespace detail
} // namespace ghz

#endif
