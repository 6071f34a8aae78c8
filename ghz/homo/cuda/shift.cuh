/* ghz/homo/cuda/shift.cuh (private): the in-place shift of ghz/homo on the GPU (HOMO.md,
 * "In place on the GPU"): a's frame moved to the end of its capacity, as the CPU's
 * ghz_homo_binary_inplace's memmove does, and its code bytes copied aside, before the
 * combining kernel reads it. Shared by the k-input path (nary_prep.cu: SUM and SUB) and
 * the fused two-input one (binary.cu: MIN and MAX; homo_kernels.cuh,
 * GHZ_CUDA_HOMO_BINARY_SLICED). */
#ifndef GHZ_HOMO_CUDA_SHIFT_CUH
#define GHZ_HOMO_CUDA_SHIFT_CUH

#include "ghz/codec/cuda/tile.cuh"
#include "ghz/codec/detail/header.h"
#include "ghz/ghz.h"

namespace ghz {
namespace detail {

/* Bytes each CTA of the in-place shift moves. */
constexpr unsigned kShiftBytes = 4096;
/* Its shared staging: a chunk at any phase of 16 bytes (kShiftBytes + 32, 16-aligned). */
constexpr unsigned kShiftStageBytes = kShiftBytes + 32u;

/* GHZ_CUDA_HOMO_SHIFT_VEC (1, the default; the bytes moved are the same either way): the
 * chunk travels in whole 16-byte words (the codec's tile loader and shifted store, at
 * any alignment of source and destination) instead of one byte per thread and step:
 * fewer, wider memory instructions for the same bytes, which makes the in-place
 * operations faster. */
#ifndef GHZ_CUDA_HOMO_SHIFT_VEC
#define GHZ_CUDA_HOMO_SHIFT_VEC 1
#endif

/* The shift's CTAs (and flags) for frames of at most max_elems values of dtype (+ a
 * checksum). */
inline size_t shift_chunks(size_t max_elems, ghz_dtype_t dtype)
{
    return (ghz_compress_bound(max_elems, dtype) + GHZ_CHECKSUM_SIZE + kShiftBytes - 1) / kShiftBytes;
}

/* The body of a shift kernel of kThreads threads, CTA blockIdx.x: moves the frame's S
 * bytes from data to data + d (d = capacity - S >= 0) and copies its cb code bytes to
 * codes_copy. CTA c moves the c-th chunk of kShiftBytes counted from the top: it reads
 * its chunk into shared memory (chunk), says so (its flag, zeroed before the launch),
 * waits for the flags of the chunks whose bytes its destination covers (all above it,
 * so lower CTAs: they were scheduled first, and nothing waits on a later CTA), then
 * writes. */
__device__ __forceinline__ void shift_frame(uint8_t* data, uint64_t S, uint64_t d, uint64_t cb, uint8_t* codes_copy,
                                            unsigned* flags, uint8_t* chunk)
{
    const uint64_t c = blockIdx.x, C = kShiftBytes;
    if (c * C >= S) return;
    const uint64_t hi = S - c * C, lo = hi > C ? hi - C : 0;
#if GHZ_CUDA_HOMO_SHIFT_VEC
    /* chunk[phase + i] = data[lo + i]: whole words by cp.async, the ends byte by byte */
    const unsigned span = (unsigned)(hi - lo), phase = (unsigned)((uintptr_t)(data + lo) & 15u);
    const uint8_t* const g0 = data + lo - phase;
    tile_load_async<kThreads>(chunk, g0, phase, phase + span);
    load_partial_words<kThreads>(chunk, g0, phase, phase + span);
    tile_load_async_wait();
    __syncthreads();
    {
        /* the code bytes among this chunk's, from the staged copy */
        const uint64_t a = lo > GHZ_HEADER_SIZE ? lo : GHZ_HEADER_SIZE, b = hi < GHZ_HEADER_SIZE + cb ? hi : GHZ_HEADER_SIZE + cb;
        for (uint64_t x = a + threadIdx.x; x < b; x += kThreads) codes_copy[x - GHZ_HEADER_SIZE] = chunk[phase + (x - lo)];
    }
#else
    for (uint64_t x = lo + threadIdx.x; x < hi; x += kThreads) {
        const uint8_t v = data[x];
        chunk[x - lo] = v;
        if (x >= GHZ_HEADER_SIZE && x < GHZ_HEADER_SIZE + cb) codes_copy[x - GHZ_HEADER_SIZE] = v;
    }
    __syncthreads();
#endif
    if (d == 0) return;
    if (threadIdx.x == 0) {
        __threadfence();
        atomicExch(&flags[c], 1u);
        /* the chunks holding source bytes [lo + d, hi + d): j from the top chunk of the
         * range to chunk c - 1 (chunk c is this one, read above) */
        if (lo + d < S) {
            const uint64_t top = hi + d - 1;
            const uint64_t jmin = top >= S ? 0 : (S - 1 - top) / C;
            for (uint64_t j = jmin; j < c; ++j)
                while (atomicAdd(&flags[j], 0u) == 0u) {
                }
        }
        __threadfence();
    }
    __syncthreads();
#if GHZ_CUDA_HOMO_SHIFT_VEC
    tile_store_shifted<kThreads>(chunk + phase, data + lo + d, span);
#else
    for (uint64_t x = lo + threadIdx.x; x < hi; x += kThreads) data[x + d] = chunk[x - lo];
#endif
}

} // namespace detail
} // namespace ghz

#endif
