/* ghz/codec/cuda/tile.cuh (private): what the compress and decompress kernels share:
 * the tile shape, the batch table, the workspace layout, and moving a tile's bytes
 * between shared and global memory with 16-byte accesses where aligned. */
#ifndef GHZ_CODEC_CUDA_TILE_CUH
#define GHZ_CODEC_CUDA_TILE_CUH

#include <stdint.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/codec/detail/lookback.cuh"

namespace ghz {
namespace detail {

/* A CTA of 8 warps handles a tile of 64 blocks (2048 values), 8 blocks per warp. */
constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kBlocksPerWarp = 8;
constexpr int kTileBlocks = kWarps * kBlocksPerWarp;
constexpr uint64_t kTileElems = 32u * kTileBlocks;
/* Shared staging of one tile: every block raw, 16 bytes to align, 8 of slack for the
 * two-word unaligned loads. */
template <typename T>
__host__ __device__ constexpr int tile_buffer_bytes()
{
    return kTileBlocks * 32 * (int)sizeof(T) + 16 + 16;
}

inline int tiles_for(uint64_t n, uint64_t tile_elems = kTileElems)
{
    uint64_t t = (n + tile_elems - 1) / tile_elems;
    return t ? (int)t : 1;
}

/* Blocks per warp in decompression: 32 for f32 (lane j owns block j's code, size and
 * offset), 16 for f64 so the staging buffer stays at 32 KB. Bigger tiles than the
 * compressor's: decoding needs few registers, and each tile's fixed latencies (code
 * bytes, look-back, payload load) are paid once for more values. */
template <typename T>
struct dec_shape {
    static constexpr int blocks_per_warp = sizeof(T) == 4 ? 32 : 16;
    static constexpr int tile_blocks = kWarps * blocks_per_warp;
    static constexpr int buffer_bytes = tile_blocks * 32 * (int)sizeof(T) + 32;
};

/* Elements per decompression tile of a dtype; the smallest of them sizes workspaces. */
inline uint64_t dec_tile_elems(ghz_dtype_t t)
{
    return 32u * (uint64_t)(t == GHZ_F32 ? dec_shape<float>::tile_blocks : dec_shape<double>::tile_blocks);
}

/* A frame header parsed once per call by the init kernel, read by every CTA. */
struct parsed_t {
    ghz_frame_info_t info;
    int status;
    unsigned crc; /* checksum.cu: the XOR of the segments' shares of the raw CRC */
};

/* One chunk of a batched call; tile_begin is its first CTA in the grid. */
struct chunk_t {
    const uint8_t* src;
    uint8_t* dst;
    uint64_t n;          /* compress: elements; decompress: source bytes */
    uint64_t capacity;   /* decompress: destination bytes */
    uint64_t* d_out;     /* compress: frame size; decompress: element count */
    tile_state_t tiles;  /* this chunk's look-back status array */
    unsigned long long* range; /* compress REL: ordered-key min and max */
    struct parsed_t* parsed;   /* decompress: the header as the init kernel checked it */
    int tile_begin;
    int num_tiles;
};

struct batch_t {
    chunk_t c[GHZ_CUDA_MAX_BATCH];
    int k;
    int* d_status;
};

/* The chunk CTA blockIdx.x belongs to (chunks are few: a linear search). */
__device__ __forceinline__ int chunk_of(const batch_t& b, int cta)
{
    int i = 0;
    while (i + 1 < b.k && cta >= b.c[i + 1].tile_begin) ++i;
    return i;
}

__device__ __forceinline__ void report(int* d_status, int st)
{
    if (d_status) atomicMax(d_status, st);
}

/* Monotone map from doubles to unsigned keys, for atomic min/max. */
__device__ __forceinline__ unsigned long long order_key(double x)
{
    unsigned long long u = (unsigned long long)__double_as_longlong(x);
    return (u >> 63) ? ~u : (u | (1ull << 63));
}

__device__ __forceinline__ double order_value(unsigned long long k)
{
    unsigned long long u = (k >> 63) ? (k & ~(1ull << 63)) : ~k;
    return __longlong_as_double((long long)u);
}

/* Copies bytes [lo, hi) of a shared buffer to global memory, where shared offset s
 * lies at global address g0 + s and g0 is 16-byte aligned: whole 16-byte words as
 * vectors, the partial first and last words byte by byte. */
__device__ __forceinline__ void tile_store(const uint8_t* sbuf, uint8_t* g0, unsigned lo, unsigned hi)
{
    for (unsigned c = lo & ~15u; c < hi; c += 16u * kThreads) {
        unsigned s = c + 16u * threadIdx.x;
        if (s >= hi) break;
        if (s >= lo && s + 16u <= hi) {
            *(uint4*)(g0 + s) = *(const uint4*)(sbuf + s);
        } else {
            for (unsigned i = s < lo ? lo : s; i < s + 16u && i < hi; ++i) g0[i] = sbuf[i];
        }
    }
}

/* The reverse: global bytes [lo, hi) at g0 + s into the shared buffer at s. */
__device__ __forceinline__ void tile_load(uint8_t* sbuf, const uint8_t* g0, unsigned lo, unsigned hi)
{
    for (unsigned c = lo & ~15u; c < hi; c += 16u * kThreads) {
        unsigned s = c + 16u * threadIdx.x;
        if (s >= hi) break;
        if (s >= lo && s + 16u <= hi) {
            *(uint4*)(sbuf + s) = __ldg((const uint4*)(g0 + s));
        } else {
            for (unsigned i = s < lo ? lo : s; i < s + 16u && i < hi; ++i) sbuf[i] = g0[i];
        }
    }
}

/* Inclusive scan over the 8 warp totals, by warp 0; returns the tile total in all
 * lanes and leaves each warp's exclusive offset in excl[warp]. */
__device__ __forceinline__ unsigned scan_warp_totals(const unsigned* totals, unsigned* excl)
{
    const unsigned lane = threadIdx.x & 31u;
    unsigned v = lane < kWarps ? totals[lane] : 0u, incl = v;
    for (unsigned k = 1; k < kWarps; k <<= 1) {
        unsigned t = __shfl_up_sync(0xFFFFFFFFu, incl, k);
        if (lane >= k) incl += t;
    }
    if (lane < kWarps) excl[lane] = incl - v;
    return __shfl_sync(0xFFFFFFFFu, incl, kWarps - 1);
}

/* Exclusive offsets of the sizes that lanes 0..count-1 of a warp hold (a shuffle
 * scan); lane count-1 stores the warp's total to *total. */
template <unsigned count>
__device__ __forceinline__ unsigned warp_exclusive_offsets(unsigned size, unsigned* total)
{
    const unsigned lane = threadIdx.x & 31u;
    unsigned v = size;
#pragma unroll
    for (unsigned k = 1; k < count; k <<= 1) {
        const unsigned t = __shfl_up_sync(0xFFFFFFFFu, v, k);
        if (lane >= k) v += t;
    }
    if (lane == count - 1) *total = v;
    return v - size;
}

/* By warp 0: the tile's total over its warps' totals (each warp's offset to excl[])
 * and, through the look-back on ts, the sum of all earlier tiles' totals (returned
 * in every lane). */
__device__ __forceinline__ offset_t tile_exclusive(tile_state_t ts, prefix_op_t::TempStorage& lb, int tile,
                                                   const unsigned* totals, unsigned* excl, unsigned* tile_total)
{
    *tile_total = scan_warp_totals(totals, excl);
    return lookback_exclusive(ts, lb, tile, *tile_total);
}

} // namespace detail
} // namespace ghz

#endif
