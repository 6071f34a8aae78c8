/* ghz/codec/cuda/tile_offsets.cuh (private): the payload offset of every tile of a
 * frame, from its code bytes alone, for the kernels that read frames (decompress.cu,
 * ghz/homo's binary.cu): a single-pass scan of the block sizes by CUB's decoupled
 * look-back, one look-back per group of kOffsetTiles tiles. Run as a kernel of its own
 * before the decoding one, it takes the look-back out of the decoding kernel, where
 * it sat between reading the code bytes and loading the payload with three warps of
 * four waiting for it (29 % of decompress_kernel's stall samples on an H100). */
#ifndef GHZ_CODEC_CUDA_TILE_OFFSETS_CUH
#define GHZ_CODEC_CUDA_TILE_OFFSETS_CUH

#include "ghz/codec/block.h"
#include "ghz/codec/cuda/tile.cuh"
#include "ghz/codec/detail/header.h"

namespace ghz {
namespace detail {

constexpr unsigned kOffsetTiles = 16; /* tiles per CTA (of kThreads threads) */

struct tile_offsets_smem {
    prefix_op_t::TempStorage lb;
    unsigned warp_total[kWarps];
    offset_t base;
};

/* By all kThreads threads of a CTA: group `group` of the frame with code bytes
 * `codes`, n values in nb blocks of elem bytes, cut into tiles of TileBlocks blocks.
 * Writes offsets[j] for each tile j of the group (the sum of the sizes of all blocks
 * before it) and, from the group holding the last tile, offsets[tiles] (the sum of all
 * sizes); a frame without blocks gets offsets[0] = offsets[1] = 0. The caller checks
 * these against the sizes it computes itself: an invalid code byte counts 0 here. The
 * look-back state ts must be initialised for the groups; groups grow with blockIdx.x. */
template <unsigned TileBlocks>
__device__ __forceinline__ void frame_tile_offsets(tile_offsets_smem& sm, const uint8_t* codes, uint64_t n,
                                                   uint64_t nb, int has_fill, unsigned elem, int group,
                                                   tile_state_t ts, offset_t* offsets)
{
    constexpr unsigned per_thread = kOffsetTiles * TileBlocks / kThreads; /* blocks */
    constexpr unsigned threads_per_tile = TileBlocks / per_thread;
    static_assert(per_thread * kThreads == kOffsetTiles * TileBlocks && threads_per_tile * per_thread == TileBlocks,
                  "whole tiles per CTA and whole blocks per thread");
    const uint64_t tiles = (nb + TileBlocks - 1) / TileBlocks;
    const unsigned t = threadIdx.x, warp = t >> 5, lane = t & 31u;
    if (tiles == 0) {
        if (group == 0 && t == 0) offsets[0] = offsets[1] = 0;
        return;
    }
    if ((uint64_t)group * kOffsetTiles >= tiles) return;
    const uint64_t b0 = ((uint64_t)group * kOffsetTiles * TileBlocks) + (uint64_t)t * per_thread;
    unsigned sum = 0;
#pragma unroll
    for (unsigned i = 0; i < per_thread; ++i) {
        const uint64_t blk = b0 + i;
        if (blk < nb) {
            const uint32_t sz = ghz_block_size(codes[blk], ghz_block_len(n, blk), elem, has_fill);
            sum += sz == GHZ_BLOCK_INVALID ? 0u : sz;
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
    const uint64_t tile = (uint64_t)group * kOffsetTiles + t / threads_per_tile;
    if (t % threads_per_tile == 0 && tile < tiles) offsets[tile] = sm.base + excl;
    if (t == kThreads - 1 && (uint64_t)(group + 1) * kOffsetTiles >= tiles) offsets[tiles] = sm.base + excl + sum;
}

/* CTAs of frame_tile_offsets for frames of up to `tiles` tiles. */
inline unsigned tile_offset_groups(int tiles)
{
    return (unsigned)((tiles + kOffsetTiles - 1) / kOffsetTiles);
}

} // namespace detail
} // namespace ghz

#endif
