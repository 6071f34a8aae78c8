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

/* ghz_quant_decode for a block in a shared staging buffer: the fields are read as
 * 32-bit words at any byte offset, each from two aligned loads and a funnel shift
 * (consecutive planes share a load), where the byte reader needs four loads a word;
 * the staging buffer has slack on both sides, so the words around the block are
 * readable (which a block in global memory does not promise: use ghz_quant_decode
 * there). Checks and integers are ghz_quant_rebuild's, as on the CPU. Returns 0, or
 * -1 for a block that is not canonical. */
__device__ __forceinline__ int read_and_rebuild(const uint8_t* p, unsigned code, unsigned m, int32_t q[32],
                                                uint32_t* fmask)
{
    const unsigned w = code & GHZ_CODE_W_MASK, nb = ghz_q0_bytes((code >> 5) & 3u);
    const uintptr_t a0 = (uintptr_t)p;
    const uint32_t* const base = (const uint32_t*)(a0 & ~(uintptr_t)3);
    const unsigned sh = (unsigned)(a0 & 3u) * 8u;
    unsigned o = 0; /* word index of the next field, in base */
    uint32_t mask = 0, zz, sign = 0, a[32], lo = base[0], hi;
    if (code & GHZ_CODE_FILL_BIT) {
        hi = base[1];
        mask = __funnelshift_r(lo, hi, sh);
        lo = hi;
        o = 1;
    }
    /* zz: nb of 0, 1, 2 or 4 bytes; the fields after it start nb bytes further */
    hi = base[o + 1];
    zz = nb ? __funnelshift_r(lo, hi, sh) & (0xFFFFFFFFu >> (32u - 8u * nb)) : 0u;
    const uintptr_t a1 = a0 + 4u * o + nb;
    const uint32_t* const pb = (const uint32_t*)(a1 & ~(uintptr_t)3);
    const unsigned sh1 = (unsigned)(a1 & 3u) * 8u;
#pragma unroll
    for (unsigned k = 0; k < 32u; ++k) a[k] = 0;
    if (w) {
        lo = pb[0];
        hi = pb[1];
        sign = __funnelshift_r(lo, hi, sh1);
#pragma unroll
        for (unsigned k = 0; k < GHZ_MAX_W; ++k) {
            if (k >= w) break; /* a branch, not 30 predicated loads */
            lo = hi;
            hi = pb[k + 2];
            a[k] = __funnelshift_r(lo, hi, sh1);
        }
    }
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
 * ghz_facts_finish) to o: QUANT from its integers q and fill mask (ghz_quant_encode),
 * RAW and CONST from value(i), the bit pattern of value i (size / elem values; the
 * caller knows where they are), FILLED nothing. kUnrolled: the value loop is unrolled,
 * for a value() that reads a thread's register arrays (a run-time index would move
 * them to local memory); a plain loop otherwise, which costs the compressor, whose
 * values come from memory, no registers. */
template <bool kUnrolled, typename ValueAt>
__device__ __forceinline__ void emit_block(unsigned code, unsigned size, const int32_t q[32], uint32_t fmask,
                                           unsigned elem, uint8_t* o, ValueAt value)
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
        ghz_quant_encode(q, fmask, o);
    }
}

} // namespace detail
} // namespace ghz

#endif
