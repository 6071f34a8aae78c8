/* ghz/codec/cuda/compress.cu: single-pass GPU compression (FORMAT.md).
 *
 * One CTA per tile of 64 blocks. Each warp analyses its 8 blocks with one lane per
 * value (ghz_warp_analyze: quantize, kind, width, size) and writes their code bytes;
 * the CTA sums the block sizes; warp 0 publishes the tile total and learns the tile's
 * payload offset through CUB's decoupled look-back; the warps then emit their blocks
 * into a shared staging buffer placed at the same 16-byte phase as the destination,
 * and the CTA stores it with 16-byte vectors (bytes at the two ends). The last tile
 * knows the payload size and writes the header and the code padding. */
#include "ghz/codec/cuda/kernels.cuh"
#include "ghz/codec/detail/header.h"
#include "ghz/codec/warp.cuh"

namespace ghz {
namespace detail {

__global__ void compress_init_kernel(batch_t b)
{
    chunk_t& c = b.c[blockIdx.y];
    if (blockIdx.y >= (unsigned)b.k) return;
    lookback_init(c.tiles, c.num_tiles);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (c.range) {
            c.range[0] = ~0ull; /* min key */
            c.range[1] = 0ull;  /* max key */
        }
        if (blockIdx.y == 0 && b.d_status) *b.d_status = GHZ_SUCCESS;
    }
}

template <typename T, typename U>
__device__ __forceinline__ double load_value(const uint8_t* src, uint64_t i, uint64_t* bits)
{
    const U u = __ldg((const U*)src + i);
    T v;
    memcpy(&v, &u, sizeof v);
    *bits = (uint64_t)u;
    return (double)v;
}

template <typename U>
__device__ __forceinline__ uint64_t load_bits(const uint8_t* src, uint64_t i)
{
    return (uint64_t)__ldg((const U*)src + i);
}

template <typename T, typename U>
__global__ void __launch_bounds__(kThreads) range_kernel(batch_t b, int has_fill, uint64_t fill_bits)
{
    const chunk_t& c = b.c[blockIdx.y];
    double lo = INFINITY, hi = -INFINITY;
    if (blockIdx.y >= (unsigned)b.k || !c.range) return;
    for (uint64_t i = (uint64_t)blockIdx.x * kThreads + threadIdx.x; i < c.n;
         i += (uint64_t)gridDim.x * kThreads) {
        uint64_t bits;
        double x = load_value<T, U>(c.src, i, &bits);
        if (!isfinite(x) || (has_fill && bits == fill_bits)) continue;
        lo = fmin(lo, x);
        hi = fmax(hi, x);
    }
    for (int k = 16; k; k >>= 1) {
        lo = fmin(lo, __shfl_xor_sync(0xFFFFFFFFu, lo, k));
        hi = fmax(hi, __shfl_xor_sync(0xFFFFFFFFu, hi, k));
    }
    if ((threadIdx.x & 31u) == 0 && lo <= hi) {
        atomicMin(&c.range[0], order_key(lo));
        atomicMax(&c.range[1], order_key(hi));
    }
}

template <typename T, typename U>
__global__ void __launch_bounds__(kThreads, 3) compress_kernel(batch_t b, ghz_frame_info_t info)
{
    __shared__ prefix_op_t::TempStorage lb;
    __shared__ unsigned warp_total[kWarps], warp_excl[kWarps];
    __shared__ offset_t s_tile_off;
    __shared__ __align__(16) uint8_t buf[tile_buffer_bytes<T>()];

    const int ci = chunk_of(b, blockIdx.x);
    const chunk_t& c = b.c[ci];
    const int tile = blockIdx.x - c.tile_begin;
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const unsigned elem = sizeof(T);
    const uint64_t n = c.n, nb = ghz_blocks_of(n);
    const uint64_t b_first = (uint64_t)tile * kTileBlocks + warp * kBlocksPerWarp;
    uint8_t* const payload = c.dst + GHZ_HEADER_SIZE + ghz_codes_bytes(nb);

    /* The bound: given, or REL over this chunk's range (same arithmetic as the CPU). */
    double eb = info.eb_abs;
    if (c.range && ghz_rel_eb(info.eb_user, order_value(c.range[0]), order_value(c.range[1]), &eb) != 0) {
        report(b.d_status, GHZ_ERR_BAD_BOUND);
        eb = 0.0; /* keep going: the look-back must complete */
    }
    const ghz_quantizer_t z = ghz_quantizer_make(eb, elem == 4);

    /* Phase A: load (8 independent loads in flight per lane), analyse. Block j's
     * code, size and offset live in lane j (registers stay few: occupancy); each lane
     * keeps its value's bits and integer for every block. */
    uint64_t bits[kBlocksPerWarp];
    int32_t q[kBlocksPerWarp];
#pragma unroll
    for (int j = 0; j < kBlocksPerWarp; ++j) {
        const uint64_t e = (b_first + j) * 32u + lane;
        bits[j] = e < n ? load_bits<U>(c.src, e) : 0;
    }
    unsigned mycode = 0, mysize = 0;
#pragma unroll
    for (int j = 0; j < kBlocksPerWarp; ++j) {
        const uint64_t blk_id = b_first + j;
        q[j] = 0;
        if (blk_id < nb) {
            const ghz_warp_block_t r = ghz_warp_analyze(&z, bits[j], blk_id * 32u + lane < n, info.has_fill,
                                                        info.fill_bits, elem);
            q[j] = r.q;
            if (lane == (unsigned)j) {
                mycode = r.code;
                mysize = r.size;
            }
        }
    }
    if (lane < kBlocksPerWarp && b_first + lane < nb) c.dst[GHZ_HEADER_SIZE + b_first + lane] = (uint8_t)mycode;
    /* exclusive offsets of the warp's blocks, and the warp total */
    const unsigned myoff = warp_exclusive_offsets<kBlocksPerWarp>(mysize, &warp_total[warp]);
    __syncthreads();

    /* Tile offset: the sum of all earlier tiles' payloads. */
    if (warp == 0) {
        unsigned tile_total;
        const offset_t excl = tile_exclusive(c.tiles, lb, tile, warp_total, warp_excl, &tile_total);
        if (lane == 0) {
            s_tile_off = excl;
            warp_total[0] = tile_total; /* reuse: the tile total, for the store below */
        }
    }
    __syncthreads();
    const offset_t tile_off = s_tile_off;
    const unsigned tile_total = warp_total[0];
    const unsigned phase = (unsigned)(((uintptr_t)payload + tile_off) & 15u);

    /* Phase B: emit into staging at the destination's 16-byte phase, then store. */
    uint8_t* const wbuf = buf + phase + warp_excl[warp];
#pragma unroll
    for (int j = 0; j < kBlocksPerWarp; ++j) {
        const uint64_t blk_id = b_first + j;
        if (blk_id < nb) {
            ghz_warp_block_t r;
            r.code = __shfl_sync(0xFFFFFFFFu, mycode, j);
            r.size = __shfl_sync(0xFFFFFFFFu, mysize, j);
            r.q = q[j];
            r.fmask = (r.code & GHZ_CODE_FILL_BIT)
                          ? __ballot_sync(0xFFFFFFFFu, blk_id * 32u + lane < n && bits[j] == info.fill_bits)
                          : 0u;
            ghz_warp_emit(&r, bits[j], elem, wbuf + __shfl_sync(0xFFFFFFFFu, myoff, j));
        }
    }
    __syncthreads();
    tile_store(buf, payload + tile_off - phase, phase, phase + tile_total);

    /* The last tile: header, code padding, frame size. */
    if (tile == c.num_tiles - 1 && threadIdx.x < 32) {
        if (threadIdx.x == 0) {
            uint8_t h[GHZ_HEADER_SIZE];
            ghz_frame_info_t fi = info;
            fi.n = n;
            fi.eb_abs = eb;
            fi.payload_size = tile_off + tile_total;
            ghz_header_pack(h, &fi);
            for (unsigned i = 0; i < GHZ_HEADER_SIZE; ++i) c.dst[i] = h[i];
            *c.d_out = GHZ_HEADER_SIZE + ghz_codes_bytes(nb) + fi.payload_size;
        }
        for (uint64_t i = nb + threadIdx.x; i < ghz_codes_bytes(nb); i += 32) c.dst[GHZ_HEADER_SIZE + i] = 0;
    }
}

template <typename T, typename U>
cudaError_t launch_compress(const batch_t& b, const ghz_frame_info_t& info, int total_tiles,
                            int max_tiles, bool need_range, cudaStream_t stream)
{
    const dim3 init_grid((unsigned)((max_tiles + 32 + kThreads - 1) / kThreads), (unsigned)b.k);
    compress_init_kernel<<<init_grid, kThreads, 0, stream>>>(b);
    if (need_range) {
        int dev = 0, sms = 132;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        const dim3 grid((unsigned)((4 * sms + b.k - 1) / b.k), (unsigned)b.k);
        range_kernel<T, U><<<grid, kThreads, 0, stream>>>(b, info.has_fill, info.fill_bits);
    }
    compress_kernel<T, U><<<total_tiles, kThreads, 0, stream>>>(b, info);
    return cudaGetLastError();
}

template cudaError_t launch_compress<float, uint32_t>(const batch_t&, const ghz_frame_info_t&, int, int,
                                                      bool, cudaStream_t);
template cudaError_t launch_compress<double, unsigned long long>(const batch_t&, const ghz_frame_info_t&,
                                                                 int, int, bool, cudaStream_t);

} // namespace detail
} // namespace ghz
