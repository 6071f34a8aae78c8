/* ghz/codec/cuda/decompress.cu: single-pass GPU decompression (FORMAT.md).
 *
 * One CTA per tile of 64 blocks. Every CTA checks the header (the same inline checks
 * as the CPU reader); each warp reads its 8 code bytes and sizes its blocks; the CTA
 * sums them and warp 0 finds the tile's payload offset by CUB's decoupled look-back;
 * the CTA loads the tile's payload into shared memory with 16-byte vectors and each
 * warp decodes its blocks one lane per value, writing values with coalesced stores.
 * Any invalid byte sets *d_status; nothing is read outside the given source size. */
#include "ghz/codec/cuda/kernels.cuh"
#include "ghz/codec/detail/header.h"
#include "ghz/codec/warp.cuh"

namespace ghz {
namespace detail {

/* Initialises the look-back state and checks each chunk's header once. Status 0 is
 * written by chunk 0 here; errors are raised by the main kernel, after this one. */
template <typename T>
__global__ void decompress_init_kernel(batch_t b, int dtype)
{
    if (blockIdx.y >= (unsigned)b.k) return;
    chunk_t& c = b.c[blockIdx.y];
    lookback_init(c.tiles, c.num_tiles);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        ghz_frame_info_t info;
        int why = 0, st = ghz_header_unpack(c.src, c.n, &info, &why);
        if (st == GHZ_SUCCESS && info.dtype != dtype) st = GHZ_ERR_MISMATCH;
        if (st == GHZ_SUCCESS && info.n > c.capacity / (dtype == GHZ_F32 ? 4u : 8u)) st = GHZ_ERR_DST_TOO_SMALL;
        if (st == GHZ_SUCCESS && ghz_blocks_of(info.n) > (uint64_t)c.num_tiles * dec_shape<T>::tile_blocks)
            st = GHZ_ERR_DST_TOO_SMALL;
        c.parsed->info = info;
        c.parsed->status = st;
        if (c.d_out) *c.d_out = st == GHZ_SUCCESS ? info.n : 0;
        if (blockIdx.y == 0 && b.d_status) *b.d_status = GHZ_SUCCESS;
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) decompress_kernel(batch_t b)
{
    using shape = dec_shape<T>;
    constexpr int BPW = shape::blocks_per_warp;
    __shared__ prefix_op_t::TempStorage lb;
    __shared__ unsigned warp_total[kWarps], warp_excl[kWarps];
    __shared__ offset_t s_tile_off;
    __shared__ ghz_frame_info_t s_info;
    __shared__ int s_ok;
    __shared__ __align__(16) uint8_t buf[shape::buffer_bytes];

    const int ci = chunk_of(b, blockIdx.x);
    const chunk_t& c = b.c[ci];
    const int tile = blockIdx.x - c.tile_begin;
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const unsigned elem = sizeof(T);

    if (threadIdx.x == 0) {
        const int st = c.parsed->status;
        s_info = c.parsed->info;
        s_ok = st == GHZ_SUCCESS;
        if (tile == 0 && st != GHZ_SUCCESS) report(b.d_status, st);
    }
    __syncthreads();
    /* Every CTA of a chunk reads the same verdict, so all of its tiles leave here
     * together, or none does: the look-back never waits on a tile that left. */
    if (!s_ok) return;
    const uint64_t n = s_info.n, nb = s_info.n_blocks;
    const int tiles_needed = (int)((nb + shape::tile_blocks - 1) / shape::tile_blocks);
    if (tile >= tiles_needed) return;
    const uint8_t* const codes = c.src + GHZ_HEADER_SIZE;
    const uint8_t* const payload = codes + ghz_codes_bytes(nb);
    const uint64_t b_first = (uint64_t)tile * shape::tile_blocks + warp * BPW;
    __syncthreads(); /* everyone has read s_ok before a warp may clear it */

    /* Lane j: block j's code byte, size and offset within the warp. */
    const bool mine = lane < (unsigned)BPW && b_first + lane < nb;
    const unsigned mycode = mine ? codes[b_first + lane] : 0u;
    unsigned mysize = 0;
    int bad = 0;
    if (mine) {
        const uint32_t size = ghz_block_size(mycode, ghz_block_len(n, b_first + lane), elem, s_info.has_fill);
        bad = size == GHZ_BLOCK_INVALID;
        mysize = bad ? 0u : size;
    }
    const unsigned myoff = warp_exclusive_offsets<32>(mysize, &warp_total[warp]);
    const int any_bad = __any_sync(0xFFFFFFFFu, bad);
    if (lane == 0 && any_bad) {
        report(b.d_status, GHZ_ERR_CORRUPT);
        s_ok = 0; /* read by all after the next two barriers: a uniform exit */
    }
    __syncthreads();

    if (warp == 0) {
        unsigned tile_total;
        const offset_t excl = tile_exclusive(c.tiles, lb, tile, warp_total, warp_excl, &tile_total);
        if (lane == 0) {
            s_tile_off = excl;
            warp_total[0] = tile_total;
            /* the payload must hold this tile; the last tile must end it exactly */
            if (excl + tile_total > s_info.payload_size ||
                (tile == tiles_needed - 1 && excl + tile_total != s_info.payload_size)) {
                report(b.d_status, GHZ_ERR_CORRUPT);
                s_ok = 0;
            }
        }
        if (tile == tiles_needed - 1)
            for (uint64_t i = nb + lane; i < ghz_codes_bytes(nb); i += 32)
                if (codes[i] != 0) report(b.d_status, GHZ_ERR_CORRUPT);
    }
    __syncthreads();
    if (!s_ok) return;
    const offset_t tile_off = s_tile_off;
    const unsigned tile_total = warp_total[0];
    const unsigned phase = (unsigned)(((uintptr_t)payload + tile_off) & 15u);
    tile_load(buf, payload + tile_off - phase, phase, phase + tile_total);
    __syncthreads();

    const ghz_quantizer_t z = ghz_quantizer_make(s_info.eb_abs, elem == 4);
    const uint8_t* const wbuf = buf + phase + warp_excl[warp];
    T* const out = (T*)c.dst;
    int ok = 1;
#pragma unroll 4
    for (int j = 0; j < BPW; ++j) {
        const uint64_t blk_id = b_first + j;
        const unsigned code = __shfl_sync(0xFFFFFFFFu, mycode, j);
        const unsigned off = __shfl_sync(0xFFFFFFFFu, myoff, j);
        if (blk_id < nb) {
            uint64_t bits;
            const unsigned m = ghz_block_len(n, blk_id);
            ok &= ghz_warp_decode(&z, code, m, wbuf + off, s_info.fill_bits, elem, &bits);
            if (lane < m) {
                T v;
                if (sizeof(T) == 4) {
                    const uint32_t u = (uint32_t)bits;
                    memcpy(&v, &u, sizeof v);
                } else {
                    memcpy(&v, &bits, sizeof v);
                }
                out[blk_id * 32u + lane] = v;
            }
        }
    }
    if (!ok && lane == 0) report(b.d_status, GHZ_ERR_CORRUPT);
}

template <typename T>
cudaError_t launch_decompress(const batch_t& b, int dtype, int total_tiles, int max_tiles,
                              cudaStream_t stream)
{
    const dim3 init_grid((unsigned)((max_tiles + 32 + kThreads - 1) / kThreads), (unsigned)b.k);
    decompress_init_kernel<T><<<init_grid, kThreads, 0, stream>>>(b, dtype);
    launch_checksum_verify(b, stream); /* errors surface in cudaGetLastError below */
    decompress_kernel<T><<<total_tiles, kThreads, 0, stream>>>(b);
    return cudaGetLastError();
}

template cudaError_t launch_decompress<float>(const batch_t&, int, int, int, cudaStream_t);
template cudaError_t launch_decompress<double>(const batch_t&, int, int, int, cudaStream_t);

} // namespace detail
} // namespace ghz
