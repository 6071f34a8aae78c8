/* ghz/codec/cuda/decompress.cu: GPU decompression (FORMAT.md).
 *
 * Three kernels in stream order: init (checks each chunk's header once), offsets (a
 * single-pass scan of the block sizes that the code bytes give, by CUB's decoupled
 * look-back over groups of 128 tiles, writing every tile's payload offset to the
 * workspace; its last CTAs verify checksums, checksum.cuh), and decode: one CTA per
 * tile of 128 blocks, one thread per block. Each thread reads its block's code byte
 * and size, together with its tile's payload range; the CTA copies the payload into
 * shared memory (cp.async) while it sums the sizes and checks them against the range;
 * each thread decodes its block into registers with the CPU's own block
 * decoder (block.h: ghz_quant_decode, ghz_recon), writes the values back into shared
 * memory in the tile's swizzled layout, and the CTA stores them with 16-byte vectors.
 *
 * The offsets pass reads only the code bytes (1/128 of an f32 frame's decoded size);
 * tile_offsets.cuh says why it is a pass of its own. Any invalid byte sets
 * *d_status; nothing is read outside the given source size. */
#include "ghz/codec/cuda/checksum.cuh"
#include "ghz/codec/cuda/host.cuh"
#include "ghz/codec/cuda/kernels.cuh"
#include "ghz/codec/cuda/thread_block.cuh"
#include "ghz/codec/cuda/tile_offsets.cuh"
#include "ghz/codec/detail/header.h"

#include <type_traits>

namespace ghz {
namespace detail {

/* Initialises the look-back state and checks each chunk's header once. Status 0 is
 * written by chunk 0 here; errors are raised by the main kernel, after this one. */
template <typename T>
__global__ void decompress_init_kernel(batch_t b, int dtype)
{
    if (blockIdx.y >= (unsigned)b.k) return;
    chunk_t& c = b.c[blockIdx.y];
    lookback_init(c.tiles, (int)tile_offset_groups(c.num_tiles)); /* the offsets pass's groups */
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        ghz_frame_info_t info;
        /* both codings: a ratio frame is marked, and left to ratio.cu's kernels */
        int why = 0, st = ghz_header_unpack_any(c.src, readable_bytes(c.n, c.d_src_size), &info, &why);
        if (st == GHZ_SUCCESS && info.dtype != dtype) st = GHZ_ERR_MISMATCH;
        if (st == GHZ_SUCCESS && info.n > c.capacity / (dtype == GHZ_F32 ? 4u : 8u)) st = GHZ_ERR_DST_TOO_SMALL;
        if (st == GHZ_SUCCESS && ghz_blocks_of(info.n) > (uint64_t)c.num_tiles * dec_shape<T>::tile_blocks)
            st = GHZ_ERR_DST_TOO_SMALL;
        c.parsed->info = info;
        c.parsed->status = st;
        c.parsed->crc = 0u;
        c.parsed->crc_done = 0u;
        c.parsed->crc_status = GHZ_SUCCESS;
        c.parsed->is_ratio = st == GHZ_SUCCESS && info.prefer == GHZ_PREFER_RATIO;
        if (c.d_out) *c.d_out = st == GHZ_SUCCESS ? info.n : 0;
        if (c.d_status) *c.d_status = GHZ_SUCCESS;
    }
}

/* Grid (groups + checksum CTAs, chunks): every tile's payload offset
 * (tile_offsets.cuh) for each chunk whose header init accepted, and after the groups
 * the verification of the chunks' checksums (checksum.cuh), in the same launch. */
template <typename T>
__global__ void __launch_bounds__(kThreads) decompress_offsets_kernel(batch_t b, unsigned groups)
{
    __shared__ tile_offsets_smem sm;
    __shared__ uint32_t crc_table[256];
    if (blockIdx.y >= (unsigned)b.k) return;
    const chunk_t& c = b.c[blockIdx.y];
    if (blockIdx.x >= groups) {
        checksum_part(c, blockIdx.x - groups, gridDim.x - groups, crc_table);
        return;
    }
    const parsed_t* const parsed = c.parsed;
    if (parsed->status != GHZ_SUCCESS || parsed->is_ratio) return; /* every CTA of the chunk alike */
    frame_tile_offsets<kTileBlocks>(sm, c.src + GHZ_HEADER_SIZE, parsed->info.n, parsed->info.n_blocks,
                                    parsed->info.has_fill, (unsigned)sizeof(T), blockIdx.x, c.tiles, c.offsets);
}

/* Decodes one block of m values with code byte `code` (its size already checked) from
 * byte off of the shared buffer sw into v[0..31], as the CPU's decode_block does;
 * returns 0 when the block is not canonical. */
template <typename T, typename U>
__device__ __forceinline__ int decode_block(const ghz_quantizer_t& z, unsigned code, unsigned m,
                                            const uint32_t* sw, unsigned off, uint64_t fill_bits, U v[32])
{
    if (code == GHZ_CODE_RAW || code == GHZ_CODE_CONST || code == GHZ_CODE_FILLED) {
        /* values at any byte offset, as words from aligned loads (read_and_rebuild) */
        const uint32_t* const base = sw + (off >> 2);
        const unsigned sh = (off & 3u) * 8u;
        auto value = [&](unsigned i) -> U {
            constexpr unsigned words = sizeof(U) / 4u;
            U r = (U)__funnelshift_r(base[words * i], base[words * i + 1u], sh);
            if (words == 2u) r |= (U)((uint64_t)__funnelshift_r(base[2u * i + 1u], base[2u * i + 2u], sh) << 32);
            return r;
        };
        const U one = code == GHZ_CODE_FILLED ? (U)fill_bits : value(0);
#pragma unroll
        for (unsigned i = 0; i < 32u; ++i) v[i] = code == GHZ_CODE_RAW && i < m ? value(i) : one;
        return 1;
    }
    int32_t q[32];
    uint32_t fmask;
    if (read_and_rebuild(sw, off, code, m, q, &fmask) != 0) {
#pragma unroll
        for (unsigned i = 0; i < 32u; ++i) v[i] = 0;
        return 0;
    }
#pragma unroll
    for (unsigned i = 0; i < 32u; ++i) v[i] = fmask >> i & 1u ? (U)fill_bits : (U)recon_bits<T>(z, q[i]);
    return 1;
}

template <typename T, typename U>
__global__ void __launch_bounds__(kThreads, sizeof(T) == 4 ? kDecompressCtasF32 : kDecompressCtas)
    decompress_kernel(batch_t b)
{
    __shared__ unsigned warp_total[kWarps];
    __shared__ offset_t s_tile_off, s_tile_end;
    __shared__ ghz_frame_info_t s_info;
    __shared__ int s_ok, s_bad;
    __shared__ __align__(16) uint8_t buf[tile_buffer_bytes<T>()];
    /* The decoded values overwrite the payload after a barrier: one barrier more than
     * a buffer of their own, but the smaller footprint fits 8 f32 CTAs per SM instead
     * of 6, which decode faster (tile.cuh, kDecompressCtasF32). */
    uint8_t* const vbuf = buf;

    const int ci = chunk_of(b, blockIdx.x);
    const chunk_t& c = b.c[ci];
    const int tile = blockIdx.x - c.tile_begin;
    const unsigned t = threadIdx.x, warp = t >> 5, lane = t & 31u;
    const unsigned elem = sizeof(T);

    /* This thread's code byte, read together with the parsed header and the tile's
     * payload range (one round trip): codes start right after the header, and a read
     * inside the source is safe; whether the block exists is known once the header is
     * (offsets[tile] and offsets[tile + 1] are written for every tile that exists). */
    const uint64_t blk = (uint64_t)tile * kTileBlocks + t;
    const unsigned code_read = GHZ_HEADER_SIZE + blk < c.n ? c.src[GHZ_HEADER_SIZE + blk] : 0u;
    if (t == 0) {
        const int st = c.parsed->status != GHZ_SUCCESS ? c.parsed->status : c.parsed->crc_status;
        s_tile_off = c.offsets[tile];
        s_tile_end = c.offsets[tile + 1];
        s_info = c.parsed->info;
        s_ok = st == GHZ_SUCCESS && !c.parsed->is_ratio; /* a ratio frame: ratio.cu decodes it */
        s_bad = 0; /* a flag of its own: s_ok is read once, and never cleared */
        if (tile == 0 && st != GHZ_SUCCESS) report(c.d_status, st);
    }
    __syncthreads();
    /* Every CTA of a chunk reads the same verdict, so all of its tiles leave here
     * together, or none does. */
    if (!s_ok) return;
    const uint64_t n = s_info.n, nb = s_info.n_blocks;
    const int tiles_needed = (int)((nb + kTileBlocks - 1) / kTileBlocks);
    if (tile >= tiles_needed) return;
    const uint8_t* const codes = c.src + GHZ_HEADER_SIZE;
    const uint8_t* const payload = codes + ghz_codes_bytes(nb);
    const uint64_t e0 = (uint64_t)tile * kTileElems;
    const unsigned count = (unsigned)(n - e0 < kTileElems ? n - e0 : kTileElems);

    /* The payload starts on its way at once, as asynchronous copies into shared
     * memory, while the code bytes are scanned: its range is the offsets pass's,
     * checked against the payload (and, below, against the sizes this tile's code bytes
     * give) before a byte of it is read. Loaded only after the scan, its round trip
     * would follow the code bytes' one; loaded into registers, it would hold 32 live
     * registers through the scan, which costs more than it saves. */
    const bool last = tile == tiles_needed - 1;
    const offset_t tile_off = s_tile_off, tile_end = s_tile_end;
    const bool range_ok = tile_off <= tile_end && tile_end <= s_info.payload_size &&
                          tile_end - tile_off <= (offset_t)kTileBlocks * 32u * elem &&
                          (!last || tile_end == s_info.payload_size);
    const unsigned span = range_ok ? (unsigned)(tile_end - tile_off) : 0u;
    const unsigned phase = (unsigned)(((uintptr_t)payload + tile_off) & 15u);
    const uint8_t* const g0 = payload + tile_off - phase;
    if (range_ok) tile_load_async(buf, g0, phase, phase + span);

    /* This thread's block: code byte, size, offset within the warp. */
    const bool mine = blk < nb;
    const unsigned code = mine ? code_read : 0u;
    const unsigned m = mine ? ghz_block_len(n, blk) : 0u;
    unsigned size = 0;
    int bad = 0;
    if (mine) {
        const uint32_t sz = ghz_block_size(code, m, elem, s_info.has_fill);
        bad = sz == GHZ_BLOCK_INVALID;
        size = bad ? 0u : sz;
    }
    unsigned off = warp_inclusive_scan(size);
    const int any_bad = __any_sync(0xFFFFFFFFu, bad);
    if (lane == 31) warp_total[warp] = off;
    off -= size;
    if (lane == 0 && any_bad) {
        report(c.d_status, GHZ_ERR_CORRUPT);
        s_bad = 1; /* read by all after the next barrier: a uniform exit */
    }
    __syncthreads();
    unsigned tile_total;
    off += warp_offset_in_tile(warp_total, &tile_total);
    /* the payload range must hold exactly this tile's blocks (the same values in every
     * thread: a uniform exit) */
    const bool outside = !range_ok || tile_total != span;
    if (t == 0 && outside) report(c.d_status, GHZ_ERR_CORRUPT);
    if (last && warp == 0)
        for (uint64_t i = nb + lane; i < ghz_codes_bytes(nb); i += 32)
            if (codes[i] != 0) report(c.d_status, GHZ_ERR_CORRUPT);
    if (range_ok) load_partial_words<kThreads>(buf, g0, phase, phase + span);
    tile_load_async_wait(); /* no copy outstanding when a CTA leaves */
    if (s_bad || outside) return;
    __syncthreads();

    const ghz_quantizer_t z = ghz_quantizer_make(s_info.eb_abs, elem == 4);
    U v[32];
    int ok = 1;
    if (mine) ok = decode_block<T, U>(z, code, m, (const uint32_t*)buf, phase + off, s_info.fill_bits, v);
    __syncthreads(); /* every payload byte read: buf now takes the values */
    if (mine) {
        constexpr unsigned per_chunk = 16u / sizeof(T);
#pragma unroll
        for (unsigned k = 0; k < 32u / per_chunk; ++k) {
            uint4 w;
            memcpy(&w, &v[k * per_chunk], sizeof w);
            *(uint4*)(vbuf + swz_chunk<T>(t, k)) = w;
        }
    }
    __syncthreads();
    tile_store_values<T, U>(vbuf, c.dst + e0 * elem, count);
    if (!ok) report(c.d_status, GHZ_ERR_CORRUPT);
}

template <typename T>
cudaError_t launch_decompress(const batch_t& b, int dtype, int total_tiles, int max_tiles,
                              cudaStream_t stream)
{
    const dim3 init_grid((unsigned)((tile_offset_groups(max_tiles) + 32 + kThreads - 1) / kThreads), (unsigned)b.k);
    cudaError_t e = launch(decompress_init_kernel<T>, init_grid, kThreads, stream, b, dtype);
    const unsigned groups = tile_offset_groups(max_tiles);
    const dim3 offsets_grid(groups + checksum_ctas(b), (unsigned)b.k);
    if (e == cudaSuccess) e = launch(decompress_offsets_kernel<T>, offsets_grid, kThreads, stream, b, groups);
    if (e == cudaSuccess)
        e = launch(decompress_kernel<T, typename std::conditional<sizeof(T) == 4, uint32_t, unsigned long long>::type>,
                   (unsigned)total_tiles, kThreads, stream, b);
    return e;
}

template cudaError_t launch_decompress<float>(const batch_t&, int, int, int, cudaStream_t);
template cudaError_t launch_decompress<double>(const batch_t&, int, int, int, cudaStream_t);

} // namespace detail
} // namespace ghz
