/* ghz/codec/cuda/compress.cu: single-pass GPU compression (FORMAT.md).
 *
 * One CTA per tile of 128 blocks, one thread per block. The CTA loads its tile into
 * shared memory with 16-byte loads; each thread reads its block's 32 values, quantizes
 * them and chooses the kind with the CPU's own block code (block.h: ghz_facts_take,
 * ghz_facts_finish_deltas), keeping the deltas in registers, and writes its code byte;
 * the CTA sums the block sizes and publishes the tile total for the decoupled look-back
 * (CUB's); each thread encodes its block (ghz_quant_emit, the CPU's) into a shared
 * staging buffer; then warp 0 learns the tile's payload offset from the look-back and
 * the CTA stores the staging there with 16-byte vectors (bytes at the two ends). The
 * last tile knows the payload size and writes the header and the code padding. */
#include "ghz/codec/cuda/kernels.cuh"
#include "ghz/codec/cuda/thread_block.cuh"
#include "ghz/codec/detail/header.h"

namespace ghz {
namespace detail {

__global__ void compress_init_kernel(batch_t b)
{
    chunk_t& c = b.c[blockIdx.y];
    if (blockIdx.y >= (unsigned)b.k || (b.d_gate && !*b.d_gate)) return;
    lookback_init(c.tiles, c.num_tiles);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (c.range) {
            /* the range given in device memory, or the empty range the range pass widens */
            c.range[0] = b.d_range ? order_key(b.d_range->min) : ~0ull; /* min key */
            c.range[1] = b.d_range ? order_key(b.d_range->max) : 0ull;  /* max key */
        }
        if (c.d_status) *c.d_status = GHZ_SUCCESS;
    }
}

/* The keys of ghz_cuda_value_range: each chunk's empty range, widened by range_kernel. */
__global__ void range_init_kernel(batch_t b)
{
    if (threadIdx.x < (unsigned)b.k) {
        b.c[threadIdx.x].range[0] = ~0ull;
        b.c[threadIdx.x].range[1] = 0ull;
    }
}

/* ... and their values: {+Inf, -Inf} for a chunk without a finite non-fill value (the
 * keys did not move), so that ranges merge by MIN and MAX alone. */
__global__ void range_finish_kernel(batch_t b)
{
    if (threadIdx.x < (unsigned)b.k) {
        const chunk_t& c = b.c[threadIdx.x];
        const unsigned long long kmin = c.range[0], kmax = c.range[1];
        ghz_range_t r;
        r.min = kmin > kmax ? (double)INFINITY : order_value(kmin);
        r.max = kmin > kmax ? -(double)INFINITY : order_value(kmax);
        *c.range_out = r;
    }
}

/* Widens [lo, hi] by value u (bits of a T) unless it is not finite or is the fill. In
 * the dtype itself: converting to double is exact and monotone, so the bounds equal
 * the CPU's binary64 ones. */
template <typename T, typename U>
__device__ __forceinline__ void range_take(U u, int has_fill, U fill, T& lo, T& hi)
{
    T x;
    memcpy(&x, &u, sizeof x);
    if (isfinite(x) && !(has_fill && u == fill)) {
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
}

/* Minimum and maximum of the finite non-fill values of each chunk (REL bounds): a
 * grid-stride pass with 16-byte loads, four in flight per thread, and the scalar head
 * and tail around the 16-byte aligned middle. */
constexpr unsigned kRangeThreads = 128; /* the range pass's CTAs: a plain streaming read */

template <typename T, typename U>
__global__ void __launch_bounds__(kRangeThreads) range_kernel(batch_t b, int has_fill, uint64_t fill_bits)
{
    constexpr unsigned per_vec = 16u / sizeof(T), kUnroll = 4;
    const chunk_t& c = b.c[blockIdx.y];
    if (blockIdx.y >= (unsigned)b.k || !c.range) return;
    const U* const src = (const U*)c.src;
    const U fill = (U)fill_bits;
    const uint64_t n = c.n, gid = (uint64_t)blockIdx.x * kRangeThreads + threadIdx.x;
    const uint64_t stride = (uint64_t)gridDim.x * kRangeThreads;
    uint64_t head = (16u - ((uintptr_t)src & 15u)) % 16u / sizeof(T);
    if (head > n) head = n;
    const uint64_t nvec = (n - head) / per_vec;
    const uint4* const vec = (const uint4*)(src + head);
    T lo = (T)INFINITY, hi = (T)-INFINITY;

    if (gid < head) range_take<T, U>(__ldg(src + gid), has_fill, fill, lo, hi);
    for (uint64_t k0 = gid; k0 < nvec; k0 += kUnroll * stride) {
        uint4 r[kUnroll];
#pragma unroll
        for (unsigned j = 0; j < kUnroll; ++j)
            if (k0 + j * stride < nvec) r[j] = __ldg(vec + k0 + j * stride);
#pragma unroll
        for (unsigned j = 0; j < kUnroll; ++j) {
            if (k0 + j * stride < nvec) {
                U u[per_vec];
                memcpy(u, &r[j], sizeof r[j]);
#pragma unroll
                for (unsigned i = 0; i < per_vec; ++i) range_take<T, U>(u[i], has_fill, fill, lo, hi);
            }
        }
    }
    if (head + nvec * per_vec + gid < n) range_take<T, U>(__ldg(src + head + nvec * per_vec + gid), has_fill, fill, lo, hi);

    double dlo = (double)lo, dhi = (double)hi;
    for (int k = 16; k; k >>= 1) {
        dlo = fmin(dlo, __shfl_xor_sync(0xFFFFFFFFu, dlo, k));
        dhi = fmax(dhi, __shfl_xor_sync(0xFFFFFFFFu, dhi, k));
    }
    if ((threadIdx.x & 31u) == 0 && dlo <= dhi) {
        atomicMin(&c.range[0], order_key(dlo));
        atomicMax(&c.range[1], order_key(dhi));
    }
}

/* Thread t's block, values in the shared tile (swizzled layout): the facts, the
 * deltas a and their signs (ghz_facts_finish_deltas; q is scratch), the code byte
 * (returned) and the payload size. This is the CPU's encode_block, value for value. */
template <typename T, typename U>
__device__ __forceinline__ unsigned analyse_block(const uint8_t* sbuf, unsigned t, unsigned m,
                                                  const ghz_quantizer_t& z, int has_fill, uint64_t fill_bits,
                                                  int32_t q[32], uint32_t a[32], uint32_t* sign,
                                                  ghz_block_facts_t* f, unsigned* size)
{
    constexpr unsigned per_chunk = 16u / sizeof(T);
    const uint64_t bits0 = *(const U*)(sbuf + swz_chunk<T>(t, 0));
    ghz_facts_begin(f, m);
#pragma unroll
    for (unsigned c = 0; c < 32u / per_chunk; ++c) {
        const uint4 v = *(const uint4*)(sbuf + swz_chunk<T>(t, c));
        U u[per_chunk];
        memcpy(u, &v, sizeof v);
#pragma unroll
        for (unsigned j = 0; j < per_chunk; ++j) {
            const unsigned i = c * per_chunk + j;
            T x;
            memcpy(&x, &u[j], sizeof x);
            if (i < m) ghz_facts_take(f, &z, has_fill, fill_bits, i, (double)x, (uint64_t)u[j], bits0, &q[i]);
        }
    }
    return ghz_facts_finish_deltas(f, q, has_fill, (unsigned)sizeof(T), size, a, sign);
}

/* The same for an f32 block, shaped for a warp of such blocks: every value goes
 * through the float shortcut without a branch, and only a value it declines (a
 * near-tie: about 1 in 200 at REL 1e-4, so most warps meet a few) takes the exact
 * procedure. Returns 1 with the facts, q, code and size of a quantizable block, or 0
 * (with f->fmask set) when some non-fill value is not quantizable: the block is then
 * CONST or RAW, which the caller decides. Identical results: both paths are
 * ghz_quantize_value's, and a quantizable block's kind does not depend on all_same.
 * Must be called by all 32 lanes of the warp (m = 0 for a lane without a block).
 *
 * The declined values are quantized after the unrolled loop, in a loop that the warp
 * leaves together (__any_sync), so that it runs ghz_facts_finish once, converged; a
 * lane that left on its own would make the warp run it once per exit (about 3 times a
 * block, a sixth of the kernel's instructions). Each result
 * replaces its value in the tile (the value is not read again: RAW and CONST blocks
 * copy theirs from global memory) and is moved into q by one pass at the end, instead
 * of a 32-way select per declined value. */
__device__ __forceinline__ int analyse_block_fast(uint8_t* sbuf, unsigned t, unsigned m, const ghz_quantizer_t& z,
                                                  int has_fill, uint32_t fill_bits, int32_t q[32],
                                                  uint32_t a[32], uint32_t* sign, ghz_block_facts_t* f,
                                                  unsigned* size, unsigned* code)
{
    uint32_t fmask = 0, declined = 0;
#pragma unroll
    for (unsigned c = 0; c < 8u; ++c) {
        const uint4 v = *(const uint4*)(sbuf + swz_chunk<float>(t, c));
        const uint32_t u[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (unsigned j = 0; j < 4u; ++j) {
            const unsigned i = c * 4u + j;
            const bool fill = has_fill && u[j] == fill_bits;
            const bool quant = ghz_quantize_f32_fast(&z, __uint_as_float(u[j]), &q[i]) > 0;
            fmask |= (uint32_t)fill << i;
            declined |= (uint32_t)(!fill && !quant) << i;
        }
    }
    /* positions past m (a short last block) are masked once, not tested per value */
    const uint32_t used = m >= 32u ? 0xFFFFFFFFu : (1u << m) - 1u;
    fmask &= used;
    declined &= used;
    uint32_t fixed = 0;
    int ok = 1;
    while (__any_sync(0xFFFFFFFFu, declined)) { /* rare: the exact procedure, value by value */
        if (declined) {
            const unsigned i = (unsigned)__ffs(declined) - 1u;
            declined &= declined - 1u;
            int32_t* const slot = (int32_t*)(sbuf + swz_value<float>(t * 32u + i));
            int32_t qi;
            if (ghz_quantize(&z, (double)__int_as_float(*slot), &qi)) {
                *slot = qi;
                fixed |= 1u << i;
            } else {
                ok = 0;
                declined = 0;
            }
        }
    }
    f->fmask = fmask;
    if (!ok) return 0;
    if (fixed) {
#pragma unroll
        for (unsigned k = 0; k < 32u; ++k) /* constant indices keep q in registers */
            if (fixed >> k & 1u) q[k] = *(const int32_t*)(sbuf + swz_value<float>(t * 32u + k));
    }
    ghz_facts_begin(f, m);
    f->fmask = fmask;
    *code = ghz_facts_finish_deltas(f, q, has_fill, 4u, size, a, sign);
    return 1;
}

/* The kind of a block that holds a value that is not quantizable: CONST when its m
 * values are bit-identical, else RAW (ghz_block_choose's answer when !quantizable),
 * from the values in global memory. */
template <typename U>
__device__ __forceinline__ unsigned lossless_kind(const U* src, unsigned m, ghz_block_facts_t* f, int has_fill,
                                                  unsigned* size)
{
    const U first = src[0];
    int same = 1;
    for (unsigned i = 1; i < m; ++i) same &= src[i] == first;
    f->m = m;
    f->quantizable = 0;
    f->all_same = same;
    return ghz_block_choose(f, has_fill, (unsigned)sizeof(U), size);
}

template <typename T, typename U>
__global__ void __launch_bounds__(kThreads, kCompressCtas) compress_kernel(batch_t b, ghz_frame_info_t info,
                                                                          unsigned ahead)
{
    __shared__ prefix_op_t::TempStorage lb;
    __shared__ unsigned warp_total[kWarps];
    __shared__ offset_t s_tile_off;
    __shared__ __align__(16) uint8_t buf[tile_buffer_bytes<T>()];

    if (b.d_gate && !*b.d_gate) return; /* the ratio frame fitted (ratio.cu): every CTA alike */
    const int ci = chunk_of(b, blockIdx.x);
    const chunk_t& c = b.c[ci];
    const int tile = blockIdx.x - c.tile_begin;
    const unsigned t = threadIdx.x, warp = t >> 5, lane = t & 31u;
    const unsigned elem = sizeof(T);
    const uint64_t n = c.n, nb = ghz_blocks_of(n);
    const uint64_t e0 = (uint64_t)tile * kTileElems, blk = (uint64_t)tile * kTileBlocks + t;
    const unsigned count = n > e0 ? (unsigned)(n - e0 < kTileElems ? n - e0 : kTileElems) : 0u;
    uint8_t* const payload = c.dst + GHZ_HEADER_SIZE + ghz_codes_bytes(nb);

    /* The tile `ahead` tiles on (half the CTAs the GPU holds at once) goes to L2 now. */
    const uint64_t pe0 = e0 + (uint64_t)ahead * kTileElems;
    if (pe0 < n) prefetch_l2(c.src + pe0 * elem, (n - pe0 < kTileElems ? n - pe0 : kTileElems) * elem);

    /* The range keys (REL) and the tile are loaded together: one round trip, not two. */
    const unsigned long long kmin = c.range ? c.range[0] : 0ull, kmax = c.range ? c.range[1] : 0ull;
    tile_load_values<T, U>(buf, c.src + e0 * elem, count);

    /* The bound: given, in device memory (the CPU's checks of an ABS bound), or REL over
     * this chunk's range (the CPU's arithmetic). A bound the CPU refuses is refused here
     * too: GHZ_ERR_BAD_BOUND, and a frame size of 0 (no frame), as the CPU writes none. */
    double eb = info.eb_abs;
    bool bad_bound = false;
    if (b.d_eb_abs) {
        eb = *b.d_eb_abs;
        bad_bound = !(eb > 0.0 && isfinite(eb + eb));
    } else if (c.range) {
        bad_bound = ghz_rel_eb(info.eb_user, order_value(kmin), order_value(kmax), &eb) != 0;
    }
    if (bad_bound) {
        if (threadIdx.x == 0) report(c.d_status, GHZ_ERR_BAD_BOUND);
        eb = 0.0; /* keep going: the look-back must complete */
    }
    const ghz_quantizer_t z = ghz_quantizer_make(eb, elem == 4);
    __syncthreads();

    /* Phase A: this thread's block, in registers: kind, size, deltas (from integers q
     * that die there: the deltas are computed once, for the kind and the payload). */
    int32_t q[32];
    uint32_t a[32], sign = 0;
    ghz_block_facts_t f;
    unsigned code = 0, size = 0;
    const bool mine = blk < nb;
    const unsigned m = mine ? ghz_block_len(n, blk) : 0u;
    const U* const src = (const U*)c.src + blk * 32u;
    if (sizeof(T) == 4 && z.fast) { /* the whole warp: the f32 shortcut */
        if (!analyse_block_fast(buf, t, m, z, info.has_fill, (uint32_t)info.fill_bits, q, a, &sign, &f, &size,
                                &code) &&
            mine)
            code = lossless_kind<U>(src, m, &f, info.has_fill, &size);
    } else if (mine) {
        code = analyse_block<T, U>(buf, t, m, z, info.has_fill, info.fill_bits, q, a, &sign, &f, &size);
    }
    if (mine)
        c.dst[GHZ_HEADER_SIZE + blk] = (uint8_t)code;
    else
        size = 0;
    /* exclusive offsets of the warp's blocks, and the warp total */
    unsigned off = warp_inclusive_scan(size);
    if (lane == 31) warp_total[warp] = off;
    off -= size;
    __syncthreads(); /* also: every thread has read its values; buf is free for the staging */

    /* The tile total is published at once; the payload is staged (from offset 0, its
     * place in the frame still unknown) before this tile waits for the earlier tiles'
     * totals: by then they have mostly published theirs. Waiting first, Nsight Compute
     * found a quarter of the warps' stalls at the barrier behind the look-back, warp 0
     * polling 67 times per tile for its predecessor. */
    unsigned tile_total;
    const unsigned warp_off = warp_offset_in_tile(warp_total, &tile_total);
    if (t == 0) {
        tile_state_t ts = c.tiles;
        lookback_publish(ts, tile, tile_total);
    }
    /* RAW and CONST blocks copy their values from global memory again (the tile in
     * shared memory has been overwritten; such blocks are rare where speed matters). */
    uint8_t* const stage = buf;
    emit_block<false>(
        code, size, elem, stage + warp_off + off, [&](unsigned i) { return (uint64_t)__ldg(src + i); },
        [&](uint8_t* o) { ghz_quant_emit(f.q0, a, sign, f.w, f.fmask, o); });
    __syncthreads();

    /* Tile offset: the sum of all earlier tiles' payloads. */
    if (warp == 0) {
        tile_state_t ts = c.tiles;
        const offset_t excl = lookback_exclusive(ts, lb, tile, tile_total);
        if (lane == 0) s_tile_off = excl;
    }
    __syncthreads();
    const offset_t tile_off = s_tile_off;
    tile_store_shifted(stage, payload + tile_off, tile_total);

    /* The last tile: header, code padding, frame size. */
    if (tile == c.num_tiles - 1 && threadIdx.x < 32) {
        if (threadIdx.x == 0) {
            uint8_t h[GHZ_HEADER_SIZE];
            ghz_frame_info_t fi = info;
            fi.n = n;
            fi.eb_abs = eb;
            if (b.d_eb_abs) fi.eb_user = eb;
            fi.payload_size = tile_off + tile_total;
            ghz_header_pack(h, &fi);
            for (unsigned i = 0; i < GHZ_HEADER_SIZE; ++i) c.dst[i] = h[i];
            *c.d_out = bad_bound ? 0u : GHZ_HEADER_SIZE + ghz_codes_bytes(nb) + fi.payload_size;
        }
        for (uint64_t i = nb + threadIdx.x; i < ghz_codes_bytes(nb); i += 32) c.dst[GHZ_HEADER_SIZE + i] = 0;
    }
}

/* How far ahead a compress CTA prefetches, in percent of the CTAs the GPU holds at
 * once (overridable for tuning experiments only): far enough that a tile's lines are
 * in L2 when its CTA starts, not so far that they leave L2 before it does (a plateau
 * from 25 to 65 %, docs/history/RESULTS-sessions.md). */
#ifndef GHZ_CUDA_PREFETCH_AHEAD_PCT
#define GHZ_CUDA_PREFETCH_AHEAD_PCT 50
#endif
constexpr int kPrefetchAheadPct = GHZ_CUDA_PREFETCH_AHEAD_PCT;

template <typename T, typename U>
cudaError_t launch_compress(const batch_t& b, const ghz_frame_info_t& info, int total_tiles,
                            int max_tiles, bool need_range, int sms, cudaStream_t stream)
{
    const dim3 init_grid((unsigned)((max_tiles + 32 + kThreads - 1) / kThreads), (unsigned)b.k);
    cudaError_t e = launch(compress_init_kernel, init_grid, kThreads, stream, b);
    if (e == cudaSuccess && need_range) {
        const dim3 grid((unsigned)((8 * sms + b.k - 1) / b.k), (unsigned)b.k);
        e = launch(range_kernel<T, U>, grid, kRangeThreads, stream, b, info.has_fill, info.fill_bits);
    }
    const unsigned ahead = (unsigned)(sms * kCompressCtas * kPrefetchAheadPct / 100);
    if (e == cudaSuccess) e = launch(compress_kernel<T, U>, (unsigned)total_tiles, kThreads, stream, b, info, ahead);
    return e;
}

template <typename T, typename U>
cudaError_t launch_range(const batch_t& b, int has_fill, uint64_t fill_bits, int sms, cudaStream_t stream)
{
    cudaError_t e = launch(range_init_kernel, 1, kLaunchChunks, stream, b);
    const dim3 grid((unsigned)((8 * sms + b.k - 1) / b.k), (unsigned)b.k);
    if (e == cudaSuccess) e = launch(range_kernel<T, U>, grid, kRangeThreads, stream, b, has_fill, fill_bits);
    if (e == cudaSuccess) e = launch(range_finish_kernel, 1, kLaunchChunks, stream, b);
    return e;
}

template <typename T, typename U>
cudaError_t launch_range_keys(const batch_t& b, int has_fill, uint64_t fill_bits, int sms, cudaStream_t stream)
{
    const dim3 grid((unsigned)((8 * sms + b.k - 1) / b.k), (unsigned)b.k);
    return launch(range_kernel<T, U>, grid, kRangeThreads, stream, b, has_fill, fill_bits);
}

template cudaError_t launch_range_keys<float, uint32_t>(const batch_t&, int, uint64_t, int, cudaStream_t);
template cudaError_t launch_range_keys<double, unsigned long long>(const batch_t&, int, uint64_t, int, cudaStream_t);
template cudaError_t launch_compress<float, uint32_t>(const batch_t&, const ghz_frame_info_t&, int, int,
                                                      bool, int, cudaStream_t);
template cudaError_t launch_compress<double, unsigned long long>(const batch_t&, const ghz_frame_info_t&,
                                                                 int, int, bool, int, cudaStream_t);
template cudaError_t launch_range<float, uint32_t>(const batch_t&, int, uint64_t, int, cudaStream_t);
template cudaError_t launch_range<double, unsigned long long>(const batch_t&, int, uint64_t, int, cudaStream_t);

} // namespace detail
} // namespace ghz
