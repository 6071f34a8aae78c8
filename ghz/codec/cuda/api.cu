/* ghz/codec/cuda/api.cu: the CUDA codec's host API (ghz/codec/codec_cuda.h):
 * argument checks, workspace carving, batch tables and launches. Nothing here
 * allocates, copies or synchronises, except the two *_sync conveniences. */
#include <string.h>

#include "ghz/codec/cuda/host.cuh"
#include "ghz/codec/cuda/kernels.cuh"
#include "ghz/codec/cuda/ratio.cuh"
#include "ghz/codec/detail/ratio_frame.h"
#include "ghz/codec/detail/encode.h"
#include "ghz/codec/detail/header.h"

namespace {

using namespace ghz::detail;

size_t align256(size_t v)
{
    return (v + 255u) & ~(size_t)255u;
}

/* Workspace of one chunk: 256 bytes for the range keys (compress) or the parsed
 * header (decompress), then the look-back status array, then (decompress) each
 * tile's payload offset. */
constexpr size_t kAuxBytes = 256;
static_assert(sizeof(parsed_t) <= kAuxBytes, "parsed header must fit its slot");
static_assert(2 * sizeof(unsigned long long) <= kAuxBytes, "range keys must fit their slot");

size_t chunk_work_bytes(uint64_t tiles, bool offsets)
{
    return kAuxBytes + align256(lookback_bytes((int)tiles)) + (offsets ? align256((tiles + 1) * sizeof(offset_t)) : 0u);
}

/* Decompression: the block reader's part, then the ratio reader's (ratio.cu). */
size_t dec_chunk_work_bytes(uint64_t tiles, uint64_t elems)
{
    return chunk_work_bytes(tiles, true) + align256(ratio_decompress_work_bytes(elems));
}

ghz_status_t workspace_for(int k, const size_t* counts, uint64_t tile_elems, bool offsets, size_t* bytes)
{
    size_t total = 0;
    if (k < 1 || !counts || !bytes)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "k = %d chunks (>= 1) and non-NULL arrays needed", k);
    for (int i = 0; i < k; ++i) {
        const uint64_t elems = counts[i];
        if (elems / kTileElems > (uint64_t)(1 << 30))
            return ghz_fail(GHZ_ERR_INVALID_ARG, "chunk %d: %llu elements is too many for one frame", i,
                            (unsigned long long)elems);
        const uint64_t tiles = (uint64_t)tiles_for(elems, tile_elems);
        total += offsets ? dec_chunk_work_bytes(tiles, elems) : chunk_work_bytes(tiles, false);
    }
    *bytes = total;
    return GHZ_SUCCESS;
}

/* The frame header fields every chunk of a compress call shares, and how its bound is
 * found: given (eb_abs), or on the GPU (REL: from range keys, `keys`; scanned when
 * `scan`). */
struct compress_plan {
    ghz_params_t q;
    ghz_frame_info_t info;
    bool keys, scan;
};

ghz_status_t plan_compress(const ghz_params_t* p, compress_plan* pl)
{
    ghz_status_t st;
    ghz_params_t& q = pl->q;
    if ((st = ghz_params_read(p, &q)) != GHZ_SUCCESS) return st;
    if (q.checksum) /* the GPU verifies checksums (checksum.cuh) but does not write them yet */
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "checksum on the GPU: compress without it, then "
                                             "ghz_frame_add_checksum on the host");
    if (q.d_range && q.eb_mode != GHZ_EB_REL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "d_range is for REL bounds");
    if (q.d_eb_abs && q.eb_mode != GHZ_EB_ABS)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "d_eb_abs is for ABS bounds");
    memset(&pl->info, 0, sizeof pl->info);
    ghz_frame_info_t& info = pl->info;
    info.dtype = q.dtype;
    info.eb_mode = q.eb_mode;
    info.eb_user = q.eb;
    /* a block frame without a declared fill declares the canonical quiet NaN (FORMAT.md,
     * NaN as the fill value): the CPU's header and blocks, no pass over the data */
    info.has_fill = 1;
    info.fill_bits = q.has_fill ? ghz_fill_bits(q.dtype, q.fill) : ghz_nan_fill_bits(q.dtype);
    pl->keys = pl->scan = false;
    if (q.eb_mode == GHZ_EB_ABS) {
        info.eb_abs = q.eb;
    } else if (q.has_range && !q.d_range) {
        if ((st = ghz_rel_bound(q.eb, q.range_min, q.range_max, &info.eb_abs)) != GHZ_SUCCESS) return st;
    } else {
        pl->keys = true;
        pl->scan = !q.d_range;
    }
    return GHZ_SUCCESS;
}

/* Fills a launch group's table from chunk `first` on and launches it when it is full
 * or the last; `fill` sets chunk i's fields and returns its tiles (or -1 after a
 * failure it reported). */
template <typename Fill, typename Launch>
ghz_status_t run_groups(int k, Fill&& fill, Launch&& go, const ghz_status_t& bad)
{
    batch_t b;
    for (int first = 0; first < k; first += kLaunchChunks) {
        const int m = k - first < kLaunchChunks ? k - first : kLaunchChunks;
        int total_tiles = 0, max_tiles = 1;
        memset(&b, 0, sizeof b);
        for (int j = 0; j < m; ++j) {
            const int tiles = fill(first + j, b.c[j]);
            if (tiles < 0) return bad; /* reported by fill */
            if (total_tiles > (1 << 30) - tiles)
                return ghz_fail(GHZ_ERR_INVALID_ARG, "chunks %d..%d: too many tiles for one launch", first, first + j);
            b.c[j].tile_begin = total_tiles;
            b.c[j].num_tiles = tiles;
            total_tiles += tiles;
            if (tiles > max_tiles) max_tiles = tiles;
        }
        b.k = m;
        const cudaError_t e = go(b, total_tiles, max_tiles);
        if (e != cudaSuccess) return cuda_fail(e, "launch");
    }
    return GHZ_SUCCESS;
}

/* The status a chunk's fill step reports: recorded, and -1 for run_groups. */
int chunk_error(ghz_status_t st, ghz_status_t* out)
{
    *out = st;
    return -1;
}

/* Workspace of a ratio call: the chunks run one after the other (one workspace, reused),
 * so the largest chunk's; at least a block frame's for n = 0. */
ghz_status_t ratio_workspace_for(ghz_dtype_t dtype, int k, const size_t* ns, size_t* bytes)
{
    size_t most = chunk_work_bytes(1, false);
    if (k < 1 || !ns || !bytes || ghz_float_size(dtype) == 0)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "k = %d chunks (>= 1), a dtype and non-NULL arrays needed", k);
    for (int i = 0; i < k; ++i) {
        if (!ghz_compress_bound(ns[i], dtype))
            return ghz_fail(GHZ_ERR_INVALID_ARG, "chunk %d: n = %zu is too large", i, ns[i]);
        const size_t b = ratio_compress_work_bytes(dtype, ns[i]);
        if (b > most) most = b;
    }
    *bytes = most;
    return GHZ_SUCCESS;
}

/* ghz_cuda_compress_batch with prefer = GHZ_PREFER_RATIO: one ratio frame per chunk,
 * in stream order (RATIO.md; ratio.cu). n = 0 gives a block frame, as on the CPU. */
ghz_status_t compress_ratio(ghz_cuda_ctx_t* ctx, const compress_plan& pl, int k, const void* const* d_srcs,
                            const size_t* ns, ghz_buf_t* dsts, int* d_status, void* d_work, size_t work_bytes,
                            cudaStream_t stream)
{
    const ghz_dtype_t dtype = pl.q.dtype;
    size_t need = 0;
    ghz_status_t st;
    if ((st = ratio_workspace_for(dtype, k, ns, &need)) != GHZ_SUCCESS) return st;
    if (!d_srcs || !dsts) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL array");
    if ((st = work_pick(ctx, &d_work, &work_bytes, need)) != GHZ_SUCCESS) return st;
    const int sms = sm_count(ctx);
    for (int i = 0; i < k; ++i) {
        ratio_job j;
        memset(&j, 0, sizeof j);
        const size_t bound = ghz_compress_bound(ns[i], dtype);
        if ((st = buf_out(&dsts[i], "dsts", i, &j.dst, &j.d_size)) != GHZ_SUCCESS) return st;
        if (ns[i] && !d_srcs[i]) return ghz_fail(GHZ_ERR_INVALID_ARG, "chunk %d: NULL source", i);
        if (dsts[i].capacity < bound)
            return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "chunk %d: capacity %zu < ghz_compress_bound %zu", i,
                            dsts[i].capacity, bound);
        if (ghz_ratio_shape(pl.q.dims, ns[i], j.d, &j.ndims) != 0)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "chunk %d: dims %zu x %zu x %zu do not multiply to n = %zu", i,
                            pl.q.dims[0], pl.q.dims[1], pl.q.dims[2], ns[i]);
        cudaError_t e;
        if (ns[i] == 0) { /* an empty array: a block frame (RATIO.md) */
            batch_t b;
            memset(&b, 0, sizeof b);
            b.k = 1;
            b.d_range = pl.q.d_range;
            b.d_eb_abs = pl.q.d_eb_abs;
            chunk_t& c = b.c[0];
            c.src = (const uint8_t*)d_srcs[i];
            c.dst = j.dst;
            c.d_out = j.d_size;
            c.d_status = d_status ? d_status + i : nullptr;
            c.range = pl.keys ? (unsigned long long*)d_work : nullptr;
            c.tiles = lookback_state((char*)d_work + kAuxBytes, 1);
            c.num_tiles = 1;
            e = dtype == GHZ_F32 ? launch_compress<float, uint32_t>(b, pl.info, 1, 1, pl.scan, sms, stream)
                                 : launch_compress<double, unsigned long long>(b, pl.info, 1, 1, pl.scan, sms, stream);
        } else {
            j.src = (const uint8_t*)d_srcs[i];
            j.n = ns[i];
            j.info = pl.info;
            j.info.n = ns[i];
            j.user_fill = pl.q.has_fill != 0;
            j.d_eb_abs = pl.q.d_eb_abs;
            j.d_range = pl.q.d_range;
            j.rel_keys = pl.keys;
            j.scan = pl.scan;
            j.d_status = d_status ? d_status + i : nullptr;
            e = launch_ratio_compress(j, d_work, sms, stream);
        }
        if (e != cudaSuccess) return cuda_fail(e, "launching the ratio coder");
    }
    return GHZ_SUCCESS;
}

} // namespace

extern "C" ghz_status_t ghz_cuda_compress_ratio_workspace(ghz_dtype_t dtype, int k, const size_t* ns, size_t* bytes)
{
    ghz_clear_detail();
    return ratio_workspace_for(dtype, k, ns, bytes);
}

extern "C" ghz_status_t ghz_cuda_compress_workspace(int k, const size_t* ns, size_t* bytes)
{
    ghz_clear_detail();
    return workspace_for(k, ns, kTileElems, false, bytes);
}

extern "C" ghz_status_t ghz_cuda_decompress_workspace(int k, const size_t* max_elems, size_t* bytes)
{
    ghz_clear_detail();
    return workspace_for(k, max_elems, dec_tile_elems(GHZ_F64), true, bytes);
}

extern "C" ghz_status_t ghz_cuda_value_range_workspace(int k, size_t* bytes)
{
    ghz_clear_detail();
    if (k < 1 || !bytes) return ghz_fail(GHZ_ERR_INVALID_ARG, "k = %d chunks (>= 1) and bytes needed", k);
    *bytes = (size_t)k * kAuxBytes;
    return GHZ_SUCCESS;
}

extern "C" ghz_status_t ghz_cuda_compress_batch(ghz_cuda_ctx_t* ctx, const ghz_params_t* p, int k,
                                                const void* const* d_srcs, const size_t* ns, ghz_buf_t* dsts,
                                                int* d_status, void* d_work, size_t work_bytes,
                                                cudaStream_t stream)
{
    compress_plan pl;
    ghz_status_t st, bad = GHZ_SUCCESS;
    size_t need = 0, used = 0;

    ghz_clear_detail();
    if ((st = plan_compress(p, &pl)) != GHZ_SUCCESS) return st;
    if (pl.q.prefer == GHZ_PREFER_RATIO) return compress_ratio(ctx, pl, k, d_srcs, ns, dsts, d_status, d_work,
                                                               work_bytes, stream);
    if ((st = workspace_for(k, ns, kTileElems, false, &need)) != GHZ_SUCCESS) return st;
    if (!d_srcs || !dsts) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL array");
    if ((st = work_pick(ctx, &d_work, &work_bytes, need)) != GHZ_SUCCESS) return st;
    const ghz_dtype_t dtype = pl.q.dtype;
    const int sms = sm_count(ctx);

    auto fill = [&](int i, chunk_t& c) -> int {
        uint8_t* dst;
        uint64_t* d_size;
        const size_t bound = ghz_compress_bound(ns[i], dtype);
        ghz_status_t s = buf_out(&dsts[i], "dsts", i, &dst, &d_size);
        if (s != GHZ_SUCCESS) return chunk_error(s, &bad);
        if (ns[i] && !d_srcs[i]) return chunk_error(ghz_fail(GHZ_ERR_INVALID_ARG, "chunk %d: NULL source", i), &bad);
        if (!bound || dsts[i].capacity < bound)
            return chunk_error(ghz_fail(GHZ_ERR_DST_TOO_SMALL, "chunk %d: capacity %zu < ghz_compress_bound %zu", i,
                                        dsts[i].capacity, bound),
                               &bad);
        const int tiles = tiles_for(ns[i]);
        c.src = (const uint8_t*)d_srcs[i];
        c.dst = dst;
        c.n = ns[i];
        c.d_out = d_size;
        c.d_status = d_status ? d_status + i : nullptr;
        c.range = pl.keys ? (unsigned long long*)((char*)d_work + used) : nullptr;
        c.tiles = lookback_state((char*)d_work + used + kAuxBytes, tiles);
        used += chunk_work_bytes((uint64_t)tiles, false);
        return tiles;
    };
    auto go = [&](batch_t& b, int total_tiles, int max_tiles) {
        b.d_range = pl.q.d_range;
        b.d_eb_abs = pl.q.d_eb_abs;
        return dtype == GHZ_F32
                   ? launch_compress<float, uint32_t>(b, pl.info, total_tiles, max_tiles, pl.scan, sms, stream)
                   : launch_compress<double, unsigned long long>(b, pl.info, total_tiles, max_tiles, pl.scan, sms,
                                                                 stream);
    };
    return run_groups(k, fill, go, bad);
}

extern "C" ghz_status_t ghz_cuda_compress(ghz_cuda_ctx_t* ctx, const ghz_params_t* p, const void* d_src, size_t n,
                                          ghz_buf_t* dst, int* d_status, void* d_work, size_t work_bytes,
                                          cudaStream_t stream)
{
    return ghz_cuda_compress_batch(ctx, p, 1, &d_src, &n, dst, d_status, d_work, work_bytes, stream);
}

extern "C" ghz_status_t ghz_cuda_value_range_batch(ghz_cuda_ctx_t* ctx, const ghz_params_t* p, int k,
                                                   const void* const* d_srcs, const size_t* ns,
                                                   ghz_range_t* d_ranges, void* d_work, size_t work_bytes,
                                                   cudaStream_t stream)
{
    ghz_params_t q;
    ghz_status_t st, bad = GHZ_SUCCESS;
    size_t used = 0;

    ghz_clear_detail();
    if ((st = ghz_params_read(p, &q)) != GHZ_SUCCESS) return st;
    if (k < 1 || !d_srcs || !ns || !d_ranges)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "k = %d chunks (>= 1) and non-NULL arrays needed", k);
    if ((st = work_pick(ctx, &d_work, &work_bytes, (size_t)k * kAuxBytes)) != GHZ_SUCCESS) return st;
    const int has_fill = q.has_fill != 0;
    const uint64_t fill_bits = has_fill ? ghz_fill_bits(q.dtype, q.fill) : 0;
    const int sms = sm_count(ctx);

    auto fill = [&](int i, chunk_t& c) -> int {
        if (ns[i] && !d_srcs[i]) return chunk_error(ghz_fail(GHZ_ERR_INVALID_ARG, "chunk %d: NULL source", i), &bad);
        c.src = (const uint8_t*)d_srcs[i];
        c.n = ns[i];
        c.range = (unsigned long long*)((char*)d_work + used);
        c.range_out = d_ranges + i;
        used += kAuxBytes;
        return 1;
    };
    auto go = [&](batch_t& b, int, int) {
        return q.dtype == GHZ_F32 ? launch_range<float, uint32_t>(b, has_fill, fill_bits, sms, stream)
                                  : launch_range<double, unsigned long long>(b, has_fill, fill_bits, sms, stream);
    };
    return run_groups(k, fill, go, bad);
}

extern "C" ghz_status_t ghz_cuda_value_range(ghz_cuda_ctx_t* ctx, const ghz_params_t* p, const void* d_src,
                                             size_t n, ghz_range_t* d_range, void* d_work, size_t work_bytes,
                                             cudaStream_t stream)
{
    return ghz_cuda_value_range_batch(ctx, p, 1, &d_src, &n, d_range, d_work, work_bytes, stream);
}

extern "C" ghz_status_t ghz_cuda_decompress_batch(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, int k,
                                                  const ghz_buf_t* srcs, void* const* d_dsts,
                                                  const size_t* dst_capacities, uint64_t* d_ns, int* d_status,
                                                  void* d_work, size_t work_bytes, cudaStream_t stream)
{
    const size_t elem = ghz_float_size(dtype);
    ghz_status_t st, bad = GHZ_SUCCESS;
    size_t need = 0, used = 0;

    ghz_clear_detail();
    if (elem == 0) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)dtype);
    if (k < 1 || !srcs || !d_dsts || !dst_capacities)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "k = %d chunks (>= 1) and non-NULL arrays needed", k);
    for (int i = 0; i < k; ++i) {
        size_t part = 0, elems = dst_capacities[i] / elem;
        if ((st = workspace_for(1, &elems, dec_tile_elems(dtype), true, &part)) != GHZ_SUCCESS) return st;
        need += part;
    }
    if ((st = work_pick(ctx, &d_work, &work_bytes, need)) != GHZ_SUCCESS) return st;
    const int sms = sm_count(ctx);

    auto fill = [&](int i, chunk_t& c) -> int {
        buf_in_t in;
        ghz_status_t s = buf_in(&srcs[i], "srcs", i, &in);
        if (s != GHZ_SUCCESS) return chunk_error(s, &bad);
        if (!d_dsts[i] && dst_capacities[i])
            return chunk_error(ghz_fail(GHZ_ERR_INVALID_ARG, "chunk %d: NULL destination", i), &bad);
        const int tiles = tiles_for(dst_capacities[i] / elem, dec_tile_elems(dtype));
        c.src = in.data;
        c.n = in.n;
        c.d_src_size = in.d_size;
        c.dst = (uint8_t*)d_dsts[i];
        c.capacity = dst_capacities[i];
        c.d_out = d_ns ? d_ns + i : nullptr;
        c.d_status = d_status ? d_status + i : nullptr;
        c.parsed = (parsed_t*)((char*)d_work + used);
        c.tiles = lookback_state((char*)d_work + used + kAuxBytes, tiles);
        c.offsets = (offset_t*)((char*)d_work + used + kAuxBytes + align256(lookback_bytes(tiles)));
        c.ratio = (char*)d_work + used + chunk_work_bytes((uint64_t)tiles, true);
        used += dec_chunk_work_bytes((uint64_t)tiles, dst_capacities[i] / elem);
        return tiles;
    };
    auto go = [&](batch_t& b, int total_tiles, int max_tiles) {
        cudaError_t e = dtype == GHZ_F32 ? launch_decompress<float>(b, (int)dtype, total_tiles, max_tiles, stream)
                                         : launch_decompress<double>(b, (int)dtype, total_tiles, max_tiles, stream);
        /* ratio frames (known on the device only): one cooperative kernel that leaves at once
         * when no frame of the batch is one */
        if (e == cudaSuccess) e = launch_ratio_decompress(b, (int)dtype, sms, stream);
        return e;
    };
    return run_groups(k, fill, go, bad);
}

extern "C" ghz_status_t ghz_cuda_decompress(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, const ghz_buf_t* src,
                                            void* d_dst, size_t dst_capacity, uint64_t* d_n, int* d_status,
                                            void* d_work, size_t work_bytes, cudaStream_t stream)
{
    return ghz_cuda_decompress_batch(ctx, dtype, 1, src, &d_dst, &dst_capacity, d_n, d_status, d_work, work_bytes,
                                     stream);
}

namespace {

/* Reads the scratch results of a *_sync call (a u64 at 0, a status at 8) after the
 * stream has run the call. */
ghz_status_t sync_results(void* scratch, cudaStream_t stream, size_t* h_value)
{
    struct {
        uint64_t value;
        int status;
    } r;
    cudaError_t e = cudaMemcpyAsync(&r.value, scratch, sizeof r.value, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(&r.status, (char*)scratch + 8, sizeof r.status, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return cuda_fail(e, "reading results");
    if (r.status != GHZ_SUCCESS)
        return ghz_fail((ghz_status_t)r.status, "reported by the GPU while %s",
                        r.status == GHZ_ERR_CORRUPT ? "validating the stream" : "running");
    *h_value = (size_t)r.value;
    return GHZ_SUCCESS;
}

ghz_status_t need_ctx(const ghz_cuda_ctx* ctx)
{
    return ctx ? GHZ_SUCCESS
               : ghz_fail(GHZ_ERR_INVALID_ARG, "the *_sync calls need a context (ghz_cuda_ctx_create)");
}

} // namespace

extern "C" ghz_status_t ghz_cuda_compress_sync(ghz_cuda_ctx_t* ctx, const ghz_params_t* p, const void* d_src,
                                               size_t n, ghz_buf_t* dst, cudaStream_t stream)
{
    ghz_status_t st;
    size_t size = 0;
    ghz_clear_detail();
    if ((st = need_ctx(ctx)) != GHZ_SUCCESS) return st;
    if (!dst || dst->struct_size < GHZ_BUF_V1_SIZE) return ghz_fail(GHZ_ERR_INVALID_ARG, "dst is not a ghz_buf_t");
    ghz_buf_t tmp = GHZ_BUF_INIT;
    memcpy(&tmp, dst, dst->struct_size < sizeof tmp ? dst->struct_size : sizeof tmp);
    tmp.struct_size = sizeof tmp;
    tmp.d_size = (uint64_t*)ctx->d_scratch;
    st = ghz_cuda_compress(ctx, p, d_src, n, &tmp, (int*)((char*)ctx->d_scratch + 8), nullptr, 0, stream);
    if (st == GHZ_SUCCESS && dst->struct_size >= GHZ_BUF_V2_SIZE && dst->d_size) {
        const cudaError_t e =
            cudaMemcpyAsync(dst->d_size, ctx->d_scratch, sizeof(uint64_t), cudaMemcpyDeviceToDevice, stream);
        if (e != cudaSuccess) return cuda_fail(e, "copying the size");
    }
    if (st == GHZ_SUCCESS && (st = sync_results(ctx->d_scratch, stream, &size)) == GHZ_SUCCESS) dst->size = size;
    return st;
}

extern "C" ghz_status_t ghz_cuda_decompress_sync(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, const ghz_buf_t* src,
                                                 void* d_dst, size_t dst_capacity, size_t* h_n, cudaStream_t stream)
{
    ghz_status_t st;
    ghz_clear_detail();
    if ((st = need_ctx(ctx)) != GHZ_SUCCESS) return st;
    if (!h_n) return ghz_fail(GHZ_ERR_INVALID_ARG, "h_n is NULL");
    st = ghz_cuda_decompress(ctx, dtype, src, d_dst, dst_capacity, (uint64_t*)ctx->d_scratch,
                             (int*)((char*)ctx->d_scratch + 8), nullptr, 0, stream);
    return st != GHZ_SUCCESS ? st : sync_results(ctx->d_scratch, stream, h_n);
}
