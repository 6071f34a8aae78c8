/* ghz/codec/detail/lookback.cuh (private): the only file that touches CUB's
 * decoupled look-back machinery (cub::ScanTileState, cub::TilePrefixCallbackOp), so a
 * CCCL change is mended here alone. Offsets are unsigned long long: a primitive, so
 * CUB packs status and value into one 16-byte transaction (FORMAT.md offsets are
 * 64-bit: streams beyond 4 GiB work).
 *
 * Preconditions CUB states and this adapter keeps: the tile index grows with
 * blockIdx.x (tiles of lower index were scheduled first); the status array is
 * initialised by ghz_lookback_init before the scan kernel runs; warp 0 of the block
 * calls exclusive_prefix; tile 0 publishes its inclusive value directly. */
#ifndef GHZ_CODEC_DETAIL_LOOKBACK_CUH
#define GHZ_CODEC_DETAIL_LOOKBACK_CUH

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/version.cuh>
#include <cuda/std/version>
#include <cuda/std/functional>

static_assert(CUB_MAJOR_VERSION == 3, "ghz is pinned to CCCL 3.x (CUDA 13); review lookback.cuh");

/* CUB internals this file relies on, pinned: cub::detail::no_delay_constructor_t<N>
 * (the look-back's back-off policy, a template parameter of TilePrefixCallbackOp) is
 * not public API, so a CCCL release may rename or drop it. It is used below and nowhere
 * else in ghz; the versions it was checked against are 3.0.x (CUDA 13.0) and 3.1.x. A
 * newer CCCL fails here, loudly, until someone has checked the type still exists and
 * still means "poll without sleeping", then widens the range (or defines
 * GHZ_CCCL_UNCHECKED to build at their own risk). */
#if !defined(GHZ_CCCL_UNCHECKED)
static_assert(CCCL_VERSION >= 3000000 && CCCL_VERSION < 3002000,
              "CCCL version not checked for cub::detail::no_delay_constructor_t: see lookback.cuh");
#endif

namespace ghz {
namespace detail {

using offset_t = unsigned long long;
using tile_state_t = cub::ScanTileState<offset_t>;
/* No back-off: CUB's default for a primitive sleeps 450 ns before every look-back and
 * 350 ns per retry, time that a codec CTA (a chain of memory round trips, a few
 * microseconds long) spends holding its SM slot; a poll is an L2 round trip anyway. */
using delay_t = cub::detail::no_delay_constructor_t<0>;
using prefix_op_t = cub::TilePrefixCallbackOp<offset_t, ::cuda::std::plus<offset_t>, tile_state_t, delay_t>;

/* Device bytes of the status array of num_tiles tiles. */
inline size_t lookback_bytes(int num_tiles)
{
    size_t bytes = 0;
    tile_state_t::AllocationSize(num_tiles, bytes);
    return bytes;
}

inline tile_state_t lookback_state(void* d_mem, int num_tiles)
{
    tile_state_t s;
    s.Init(num_tiles, d_mem, lookback_bytes(num_tiles));
    return s;
}

/* Called by every thread of the init kernel, tile index = blockIdx.x*blockDim.x+threadIdx.x. */
__device__ __forceinline__ void lookback_init(tile_state_t& s, int num_tiles)
{
    s.InitializeStatus(num_tiles);
}

/* Called by one thread: publishes this tile's aggregate as early as it is known, so
 * that later tiles can go on while this one does other work before lookback_exclusive
 * (which publishes the same value again, harmlessly, and then waits). */
__device__ __forceinline__ void lookback_publish(tile_state_t& s, int tile, offset_t aggregate)
{
    if (tile == 0)
        s.SetInclusive(0, aggregate);
    else
        s.SetPartial(tile, aggregate);
}

/* Called by the 32 threads of warp 0 (threadIdx.x < 32): publishes this tile's
 * aggregate and returns, in every lane, the sum of the aggregates of all earlier tiles. */
__device__ __forceinline__ offset_t lookback_exclusive(tile_state_t& s, prefix_op_t::TempStorage& tmp,
                                                       int tile, offset_t aggregate)
{
    if (tile == 0) {
        if (threadIdx.x == 0) s.SetInclusive(0, aggregate);
        return 0;
    }
    prefix_op_t op(s, tmp, ::cuda::std::plus<offset_t>(), tile);
    offset_t excl = op(aggregate);
    return __shfl_sync(0xFFFFFFFFu, excl, 0);
}

} // namespace detail
} // namespace ghz

#endif
