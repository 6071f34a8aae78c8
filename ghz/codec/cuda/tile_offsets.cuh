/* ghz/codec/cuda/tile_offsets.cuh (private): the payload offset of every tile of a
 * frame, from its code bytes alone, for the kernels that read frames (decompress.cu,
 * ghz/homo's binary.cu): a single-pass scan of the block sizes by CUB's decoupled
 * look-back, one look-back per group of kOffsetTiles tiles. Run as a kernel of its own
 * before the decoding one, it takes the look-back out of the decoding kernel, where
 * it sat between reading the code bytes and loading the payload with three warps of
 * four waiting for it. */
#ifndef GHZ_CODEC_CUDA_TILE_OFFSETS_CUH
#define GHZ_CODEC_CUDA_TILE_OFFSETS_CUH

#include "ghz/codec/block.h"
#include "ghz/codec/cuda/tile.cuh"
#include "ghz/codec/detail/header.h"

namespace ghz {
namespace detail {

/* Tiles per CTA: one per thread. Each CTA is one step of the look-back's chain, and
 * with every CTA of the pass resident at once the chain advances about 64 CTAs per
 * round trip, so fewer, larger steps keep the pass a small part of the decompression
 * it serves. */
constexpr unsigned kOffsetTiles = kThreads;

struct tile_offsets_smem {
    prefix_op_t::TempStorage lb;
    unsigned warp_total[kWarps];
    offset_t base;
    unsigned size32[256]; /* payload bytes of a full block by code byte (0: invalid) */
};

/* Payload bytes of the 16 full blocks whose code bytes are v, from the table. */
__device__ __forceinline__ unsigned sizes_of_16(const unsigned* size32, uint4 v)
{
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
    unsigned sum = 0;
#pragma unroll
    for (unsigned k = 0; k < 16u; ++k) sum += size32[(w[k >> 2] >> (8u * (k & 3u))) & 0xFFu];
    return sum;
}

/* By all kThreads threads of a CTA: group `group` of the frame with code bytes
 * `codes`, n values in nb blocks of elem bytes, cut into tiles of TileBlocks blocks,
 * thread t summing tile group * kOffsetTiles + t (16-byte loads of its code bytes where
 * they are aligned, sizes from a table of the 256 code bytes, the short last block
 * apart). Writes offsets[j] for each tile j of the group (the sum of the sizes of all
 * blocks before it) and, from the group holding the last tile, offsets[tiles] (the sum
 * of all sizes); a frame without blocks gets offsets[0] = offsets[1] = 0. The caller
 * checks these against the sizes it computes itself: an invalid code byte counts 0
 * here. The look-back state ts must be initialised for the groups; groups grow with
 * blockIdx.x. */
template <unsigned TileBlocks>
__device__ __forceinline__ void frame_tile_offsets(tile_offsets_smem& sm, const uint8_t* codes, uint64_t n,
                                                   uint64_t nb, int has_fill, unsigned elem, int group,
                                                   tile_state_t ts, offset_t* offsets)
{
    static_assert(TileBlocks % 16u == 0, "whole 16-byte words of code bytes per tile");
    const uint64_t tiles = (nb + TileBlocks - 1) / TileBlocks;
    const unsigned t = threadIdx.x, warp = t >> 5, lane = t & 31u;
    if (tiles == 0) {
        if (group == 0 && t == 0) offsets[0] = offsets[1] = 0;
        return;
    }
    if ((uint64_t)group * kOffsetTiles >= tiles) return;
    for (unsigned c = t; c < 256u; c += kThreads) {
        const uint32_t sz = ghz_block_size(c, 32, elem, has_fill);
        sm.size32[c] = sz == GHZ_BLOCK_INVALID ? 0u : sz;
    }
    __syncthreads();
    const uint64_t tile = (uint64_t)group * kOffsetTiles + t;
    unsigned sum = 0;
    if (tile < tiles) {
        const uint64_t b0 = tile * TileBlocks, b1 = b0 + TileBlocks < nb ? b0 + TileBlocks : nb;
        const uint8_t* const p = codes + b0;
        if (b1 - b0 == TileBlocks && ((uintptr_t)p & 15u) == 0) {
#pragma unroll
            for (unsigned k = 0; k < TileBlocks / 16u; ++k) sum += sizes_of_16(sm.size32, __ldg((const uint4*)p + k));
        } else {
            for (uint64_t blk = b0; blk < b1; ++blk) sum += sm.size32[codes[blk]];
        }
        const unsigned m = ghz_block_len(n, nb - 1);
        if (b1 == nb && m < 32u) { /* the short last block: RAW holds m values */
            const unsigned code = codes[nb - 1];
            const uint32_t sz = ghz_block_size(code, m, elem, has_fill);
            sum += (sz == GHZ_BLOCK_INVALID ? 0u : sz) - sm.size32[code];
        }
    }
    unsigned excl = warp_inclusive_scan(sum);
    if (lane == 31) sm.warp_total[warp] = excl;
    excl -= sum;
    __syncthreads();
    unsigned total;
    excl += warp_offset_in_tile(sm.warp_total, &total);
    if (warp == 0) {
        const offset_t base = lookback_exclusive(ts, sm.lb, group, total);
        if (lane == 0) sm.base = base;
    }
    __syncthreads();
    if (tile < tiles) offsets[tile] = sm.base + excl;
    if (tile == tiles - 1) offsets[tiles] = sm.base + excl + sum;
}

/* CTAs of frame_tile_offsets for frames of up to `tiles` tiles. */
__host__ __device__ inline unsigned tile_offset_groups(int tiles)
{
    return (unsigned)((tiles + kOffsetTiles - 1) / kOffsetTiles);
}

} // namespace detail
} // namespace ghz

#endif
