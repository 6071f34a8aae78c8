/* ghz/codec/cuda/tile.cuh (private): what the compress and decompress kernels share:
 * the tile shape, the batch table, the workspace layout, and moving a tile's bytes
 * between shared and global memory with 16-byte accesses where aligned. */
#ifndef GHZ_CODEC_CUDA_TILE_CUH
#define GHZ_CODEC_CUDA_TILE_CUH

#include <stdint.h>

#include <cuda_pipeline.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/codec/cuda/launch.cuh"
#include "ghz/codec/detail/lookback.cuh"

namespace ghz {
namespace detail {

/* Thread per block: a CTA of 4 warps handles a tile of 128 blocks (4096 values), each
 * thread one block, in compression and decompression alike. A thread holds its block's
 * 32 integers in registers; the tile travels through shared memory so that global
 * accesses stay 16-byte and coalesced. 128 blocks keep the staging at 16 KB (f32) or
 * 32 KB (f64) per CTA, so several CTAs share an SM and hide each other's latencies. */
/* Warps per CTA and tile: a tuning experiment only (1 = barriers within one warp, four
 * times the look-back tiles); only 4 has been through the GPU tests and sanitizers. */
#ifndef GHZ_CUDA_TILE_WARPS
#define GHZ_CUDA_TILE_WARPS 4
#endif
constexpr int kWarps = GHZ_CUDA_TILE_WARPS;
constexpr int kThreads = kWarps * 32;
constexpr int kBlocksPerWarp = 32;
constexpr int kTileBlocks = kWarps * kBlocksPerWarp;
constexpr uint64_t kTileElems = 32u * kTileBlocks;
/* CTAs per SM the compress and decompress kernels are built for (register caps of 72
 * and 96 per thread): a CTA spends much of its life waiting (tile load, look-back,
 * barriers), so more CTAs in flight help until the caps spill the hot paths; these
 * are the counts just below that point (one more compress CTA, at 64 registers,
 * spills and runs slower). */
#ifndef GHZ_CUDA_COMPRESS_CTAS /* overridable for tuning experiments only */
#define GHZ_CUDA_COMPRESS_CTAS 7
#endif
#ifndef GHZ_CUDA_DECOMPRESS_CTAS
#define GHZ_CUDA_DECOMPRESS_CTAS 5
#endif
/* f32 decompression: 8 CTAs (64 registers), the values sharing the payload's buffer
 * (decompress.cu), which is what lets 8 fit; faster than 6 or 7. f64 stays at 5. */
#ifndef GHZ_CUDA_DECOMPRESS_CTAS_F32
#define GHZ_CUDA_DECOMPRESS_CTAS_F32 8
#endif
/* The counts are for CTAs of 4 warps; smaller tiles scale them, so that the register
 * caps stay the same. */
constexpr int kCompressCtas = GHZ_CUDA_COMPRESS_CTAS * 4 / kWarps;
constexpr int kDecompressCtas = GHZ_CUDA_DECOMPRESS_CTAS * 4 / kWarps;
constexpr int kDecompressCtasF32 = GHZ_CUDA_DECOMPRESS_CTAS_F32 * 4 / kWarps;
/* Shared staging of one tile: every block raw, 16 bytes to place it at the global
 * 16-byte phase, 16 of slack. */
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

/* The decompression tile: the compressor's. */
template <typename T>
struct dec_shape {
    static constexpr int tile_blocks = kTileBlocks;
    static constexpr int buffer_bytes = tile_buffer_bytes<T>();
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
    unsigned crc;      /* checksum.cuh: the XOR of the segments' shares of the raw CRC */
    unsigned crc_done; /* checksum.cuh: checksum CTAs done */
    int crc_status;    /* checksum.cuh: GHZ_ERR_CORRUPT on a mismatch */
    int is_ratio;      /* a ratio frame (RATIO.md): the block kernels leave it to ratio.cu */
};

/* One chunk of a batched call; tile_begin is its first CTA in the grid. */
struct chunk_t {
    const uint8_t* src;
    uint8_t* dst;
    uint64_t n;          /* compress: elements; decompress: source bytes (the buffer's
                            capacity when d_src_size says how many are valid) */
    const uint64_t* d_src_size; /* decompress: the valid source bytes, in device memory
                                   (ghz_buf_t.d_size), or NULL: n */
    uint64_t capacity;   /* decompress: destination bytes */
    uint64_t* d_out;     /* compress: frame size; decompress: element count */
    tile_state_t tiles;  /* this chunk's look-back status array */
    unsigned long long* range; /* compress REL: ordered-key min and max */
    ghz_range_t* range_out;    /* value_range: where the chunk's range goes */
    struct parsed_t* parsed;   /* decompress: the header as the init kernel checked it */
    offset_t* offsets;         /* decompress: each tile's payload offset, then the end (decompress.cu) */
    void* ratio;               /* decompress: the ratio reader's workspace (ratio.cu) */
    int* d_status;             /* this chunk's status (may be NULL) */
    int tile_begin;
    int num_tiles;
};

/* Chunks one launch takes: the table travels as a kernel parameter (kLaunchChunks
 * entries of about 100 bytes, under the 4 KB that every architecture accepts). A
 * larger batch is cut into launches of this many chunks (api.cu). */
constexpr int kLaunchChunks = 32;

struct batch_t {
    chunk_t c[kLaunchChunks];
    int k;
    const ghz_range_t* d_range; /* compress REL: the range in device memory, or NULL */
    const double* d_eb_abs;     /* compress ABS: the bound in device memory, or NULL */
    const int* d_gate;          /* compress: run only where *d_gate != 0 (the block frame a
                                   ratio frame falls back to, ratio.cu), or NULL: always */
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

/* The 16 bytes at a (shared memory, any byte address), from five aligned 32-bit words
 * and funnel shifts; the words around them must be readable (staging slack). */
__device__ __forceinline__ uint4 lds16_unaligned(const uint8_t* a)
{
    const unsigned mis = (unsigned)((uintptr_t)a & 3u), sh = 8u * mis;
    const uint32_t* const w = (const uint32_t*)(a - mis);
    const uint32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4];
    return make_uint4(__funnelshift_r(w0, w1, sh), __funnelshift_r(w1, w2, sh), __funnelshift_r(w2, w3, sh),
                      __funnelshift_r(w3, w4, sh));
}

/* Copies the `total` bytes staged at s[0, total) in shared memory (with at least 16
 * readable bytes of slack after them) to global memory at g, whatever g's alignment:
 * each whole 16-byte word of the destination by one vector store, gathered from the
 * staging with lds16_unaligned; the bytes of the partial words at the two ends one per
 * thread (fewer than 16 each). Staging at offset 0 rather than at g's phase lets a
 * kernel fill it before it knows where its bytes go (compress.cu). */
template <unsigned threads = kThreads>
__device__ __forceinline__ void tile_store_shifted(const uint8_t* s, uint8_t* g, unsigned total)
{
    static_assert(threads >= 16, "the partial words are stored one byte per thread");
    const unsigned p = (unsigned)((uintptr_t)g & 15u), hi = p + total; /* [p, hi) from g - p */
    uint8_t* const g0 = g - p;
    const unsigned first = (p + 15u) & ~15u, last = hi & ~15u; /* whole words [first, last) */
    for (unsigned c = first + 16u * threadIdx.x; c < last; c += 16u * threads)
        *(uint4*)(g0 + c) = lds16_unaligned(s + (c - p));
    const unsigned head_end = first < hi ? first : hi;
    const unsigned tail = last > head_end ? last : head_end;
    if (p + threadIdx.x < head_end) g0[p + threadIdx.x] = s[threadIdx.x];
    if (tail + threadIdx.x < hi) g0[tail + threadIdx.x] = s[tail - p + threadIdx.x];
}

/* The bytes of [lo, hi) outside its whole 16-byte words [lo16, hi16) (at most 15 at
 * each end; lo16 = lo rounded up, hi16 = hi rounded down, hi16 < lo16 when no word is
 * whole): one byte per thread, from global g0 + s to shared sbuf + s. */
template <unsigned threads>
__device__ __forceinline__ void load_partial_words(uint8_t* sbuf, const uint8_t* g0, unsigned lo, unsigned hi)
{
    static_assert(threads >= 32, "up to 30 bytes, one per thread");
    const unsigned lo16 = (lo + 15u) & ~15u, hi16 = hi & ~15u;
    const unsigned head_end = lo16 < hi ? lo16 : hi, tail = hi16 > head_end ? hi16 : head_end;
    const unsigned t = threadIdx.x;
    if (lo + t < head_end) sbuf[lo + t] = g0[lo + t];
    if (t >= 16u && tail + (t - 16u) < hi) sbuf[tail + t - 16u] = g0[tail + t - 16u];
}

/* One batch of a range's whole 16-byte words (tile_load2): word j of this thread is
 * at byte 16 j threads of g (global) and s (shared), and is copied when it lies below
 * the range's last whole word, `room` bytes ahead. issue() starts the loads, finish()
 * waits for them and stores them: per word one compare against a bound known before
 * the loop, a load and a store with constant offsets (the partial words at the two
 * ends are load_partial_words'). */
template <unsigned threads, unsigned batch>
struct load_batch {
    uint4 r[batch];
    __device__ __forceinline__ void issue(const uint8_t* g, int room)
    {
#pragma unroll
        for (unsigned j = 0; j < batch; ++j)
            if ((int)(16u * j * threads) < room) r[j] = __ldg((const uint4*)(g + 16u * j * threads));
    }
    __device__ __forceinline__ void finish(uint8_t* s, int room)
    {
#pragma unroll
        for (unsigned j = 0; j < batch; ++j)
            if ((int)(16u * j * threads) < room) *(uint4*)(s + 16u * j * threads) = r[j];
    }
};

/* For a batch starting at word-aligned byte c: the bytes from this thread's first
 * word to hi16, the end of the whole words (<= 0: none). */
template <unsigned threads>
__device__ __forceinline__ int batch_room(unsigned c, unsigned hi16)
{
    return (int)hi16 - (int)(c + 16u * threadIdx.x);
}

/* Asks L2 for the bytes [g, g + bytes) of global memory, one 128-byte line per thread
 * and round, without waiting (prefetch.global.L2: no data comes back to the SM). The
 * compressor's CTAs call it for a tile some way ahead of their own: its load then
 * finds its lines in L2 instead of queueing behind every other CTA's at DRAM, and its
 * latency (which the tiles' look-back waits for, across 32 predecessors) becomes
 * short and even. The decoder does not prefetch: its reads are a fifth of its writes,
 * and its load latency is hidden by the cp.async copy overlapping the code-byte scan. */
template <unsigned threads = kThreads>
__device__ __forceinline__ void prefetch_l2(const uint8_t* g, uint64_t bytes)
{
    const uint8_t* const line0 = (const uint8_t*)((uintptr_t)g & ~(uintptr_t)127);
    const uint64_t span = (uint64_t)(g - line0) + bytes;
    for (uint64_t o = 128u * threadIdx.x; o < span; o += 128u * threads)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(line0 + o));
}

/* Global bytes [lo, hi) at g0 + s into the shared buffer at s (g0 16-byte aligned):
 * the whole words as asynchronous copies (cp.async: global to shared without
 * registers), for a kernel that has other work to do while they travel; the caller
 * copies the partial words (load_partial_words) and then waits with
 * tile_load_async_wait before the barrier that publishes the bytes. */
template <unsigned threads = kThreads>
__device__ __forceinline__ void tile_load_async(uint8_t* sbuf, const uint8_t* g0, unsigned lo, unsigned hi)
{
    const unsigned lo16 = (lo + 15u) & ~15u, hi16 = hi & ~15u;
    for (unsigned c = lo16 + 16u * threadIdx.x; c < hi16; c += 16u * threads)
        __pipeline_memcpy_async(sbuf + c, g0 + c, 16);
    __pipeline_commit();
}

__device__ __forceinline__ void tile_load_async_wait()
{
    __pipeline_wait_prior(0);
}

/* Two ranges at once (ghz/homo's two inputs) into shared memory, both batches in flight
 * before either is waited for: one round trip of latency where two loads in a row take
 * two. Four words per thread and range a round (a compressed tile is mostly a few KB). */
template <unsigned threads = kThreads>
__device__ __forceinline__ void tile_load2(uint8_t* sa, const uint8_t* ga, unsigned loa, unsigned hia, uint8_t* sb,
                                           const uint8_t* gb, unsigned lob, unsigned hib)
{
    constexpr unsigned kBatch = 4;
    const unsigned la = (loa + 15u) & ~15u, ha = hia & ~15u, lb = (lob + 15u) & ~15u, hb = hib & ~15u;
    for (unsigned k = 0;; k += 16u * threads * kBatch) {
        const unsigned ca = la + k, cb = lb + k;
        if (ca >= ha && cb >= hb) break;
        const int room_a = batch_room<threads>(ca, ha), room_b = batch_room<threads>(cb, hb);
        const unsigned oa = ca + 16u * threadIdx.x, ob = cb + 16u * threadIdx.x;
        load_batch<threads, kBatch> ba, bb;
        ba.issue(ga + oa, room_a);
        bb.issue(gb + ob, room_b);
        ba.finish(sa + oa, room_a);
        bb.finish(sb + ob, room_b);
    }
    load_partial_words<threads>(sa, ga, loa, hia);
    load_partial_words<threads>(sb, gb, lob, hib);
}

/* The values of a tile in shared memory, block by block (block t at t * 32 * sizeof(T)),
 * with the 16-byte chunks of block t permuted by c -> c ^ (t & 7). A thread reading its
 * own block chunk by chunk then meets 8 different bank groups among the 8 threads that
 * one 16-byte shared access serves at a time, and the CTA writing the tile in global
 * order writes 8 consecutive chunks of one block to 8 different groups: both
 * conflict-free, where the plain layout puts a warp's 32 blocks in one bank. */
template <typename T>
__device__ __forceinline__ unsigned swz_chunk(unsigned t, unsigned c)
{
    return t * 32u * (unsigned)sizeof(T) + 16u * (c ^ (t & 7u));
}

/* Byte offset of value e of the tile in that layout. */
template <typename T>
__device__ __forceinline__ unsigned swz_value(unsigned e)
{
    const unsigned b = (e & 31u) * (unsigned)sizeof(T);
    return swz_chunk<T>(e >> 5, b >> 4) + (b & 15u);
}

/* Loads values [0, count) of the tile at g (global, T-aligned) into sbuf in the
 * layout above: a full tile at a 16-byte aligned address with all its 16-byte loads
 * in flight at once, otherwise value by value (still coalesced). */
template <typename T, typename U>
__device__ __forceinline__ void tile_load_values(uint8_t* sbuf, const uint8_t* g, unsigned count)
{
    constexpr unsigned per_block = 32u * sizeof(T) / 16u; /* chunks */
    constexpr unsigned per_thread = (unsigned)kTileElems * sizeof(T) / 16u / kThreads;
    if (count == kTileElems && ((uintptr_t)g & 15u) == 0) {
        uint4 r[per_thread];
#pragma unroll
        for (unsigned j = 0; j < per_thread; ++j) r[j] = __ldg((const uint4*)g + threadIdx.x + j * kThreads);
#pragma unroll
        for (unsigned j = 0; j < per_thread; ++j) {
            const unsigned k = threadIdx.x + j * kThreads;
            *(uint4*)(sbuf + swz_chunk<T>(k / per_block, k % per_block)) = r[j];
        }
    } else {
        for (unsigned e = threadIdx.x; e < count; e += kThreads)
            *(U*)(sbuf + swz_value<T>(e)) = __ldg((const U*)g + e);
    }
}

/* The reverse: values [0, count) from sbuf to g. */
template <typename T, typename U>
__device__ __forceinline__ void tile_store_values(const uint8_t* sbuf, uint8_t* g, unsigned count)
{
    constexpr unsigned per_block = 32u * sizeof(T) / 16u;
    constexpr unsigned per_thread = (unsigned)kTileElems * sizeof(T) / 16u / kThreads;
    if (count == kTileElems && ((uintptr_t)g & 15u) == 0) {
#pragma unroll
        for (unsigned j = 0; j < per_thread; ++j) {
            const unsigned k = threadIdx.x + j * kThreads;
            ((uint4*)g)[k] = *(const uint4*)(sbuf + swz_chunk<T>(k / per_block, k % per_block));
        }
    } else {
        for (unsigned e = threadIdx.x; e < count; e += kThreads)
            ((U*)g)[e] = *(const U*)(sbuf + swz_value<T>(e));
    }
}

/* From the `warps` warp totals in shared memory, by every thread: the offset of its
 * own warp's blocks in the tile (returned) and the tile total (*total). Four loads
 * from shared memory instead of a scan by warp 0 and another barrier. V: 32-bit
 * sizes, or ghz/homo's pairs of them packed in 64 bits. */
template <unsigned warps = kWarps, typename V = unsigned>
__device__ __forceinline__ V warp_offset_in_tile(const V* totals, V* total)
{
    const unsigned warp = threadIdx.x >> 5;
    V off = 0, sum = 0;
#pragma unroll
    for (unsigned w = 0; w < warps; ++w) {
        const V v = totals[w];
        off += w < warp ? v : V(0);
        sum += v;
    }
    *total = sum;
    return off;
}

/* Inclusive scan of v over the 32 lanes of a warp. */
template <typename V>
__device__ __forceinline__ V warp_inclusive_scan(V v)
{
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned k = 1; k < 32; k <<= 1) {
        const V t = __shfl_up_sync(0xFFFFFFFFu, v, k);
        if (lane >= k) v += t;
    }
    return v;
}

} // namespace detail
} // namespace ghz

#endif
