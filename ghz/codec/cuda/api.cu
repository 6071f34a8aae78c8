/* ghz/codec/cuda/api.cu: the CUDA codec's host API (ghz/codec/codec_cuda.h):
 * argument checks, workspace carving, batch tables and launches. Nothing here
 * allocates, copies or synchronises, except the two *_sync conveniences. */
#include <string.h>

#include "ghz/codec/cuda/kernels.cuh"
#include "ghz/codec/detail/encode.h"
#include "ghz/codec/detail/header.h"
#include "ghz/detail/error.h"

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

size_t chunk_work_bytes(uint64_t tiles, bool offsets)
{
    return kAuxBytes + align256(lookback_bytes((int)tiles)) + (offsets ? align256((tiles + 1) * sizeof(offset_t)) : 0u);
}

ghz_status_t cuda_fail(cudaError_t e, const char* what)
{
    cudaGetLastError(); /* clear a non-sticky error so the next call starts clean */
    return ghz_fail(GHZ_ERR_CUDA, "%s: %s", what, cudaGetErrorString(e));
}

ghz_status_t workspace_for(int k, const size_t* counts, uint64_t tile_elems, bool offsets, size_t* bytes)
{
    size_t total = 0;
    if (k < 1 || k > GHZ_CUDA_MAX_BATCH || !counts || !bytes)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "k = %d chunks (1..%d) and non-NULL arrays needed", k,
                        GHZ_CUDA_MAX_BATCH);
    for (int i = 0; i < k; ++i) {
        const uint64_t elems = counts[i];
        if (elems / kTileElems > (uint64_t)(1 << 30))
            return ghz_fail(GHZ_ERR_INVALID_ARG, "chunk %d: %llu elements is too many for one frame", i,
                            (unsigned long long)elems);
        total += chunk_work_bytes((uint64_t)tiles_for(elems, tile_elems), offsets);
    }
    *bytes = total;
    return GHZ_SUCCESS;
}

} // namespace

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

extern "C" ghz_status_t ghz_cuda_compress_batch(const ghz_params_t* p, int k, const void* const* d_srcs,
                                                const size_t* ns, void* const* d_dsts,
                                                const size_t* dst_capacities, uint64_t* d_sizes,
                                                int* d_status, void* d_work, size_t work_bytes,
                                                cudaStream_t stream)
{
    ghz_params_t q;
    ghz_status_t st;
    ghz_frame_info_t info;
    batch_t b;
    size_t need = 0, used = 0;
    int total_tiles = 0, max_tiles = 1;
    bool need_range = false;

    ghz_clear_detail();
    if ((st = ghz_params_read(p, &q)) != GHZ_SUCCESS) return st;
    if (q.checksum) /* the GPU verifies checksums (checksum.cuh) but does not write them yet */
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "checksum on the GPU: compress without it, then "
                                             "ghz_frame_add_checksum on the host");
    if ((st = workspace_for(k, ns, kTileElems, false, &need)) != GHZ_SUCCESS) return st;
    if (!d_srcs || !d_dsts || !dst_capacities || !d_sizes)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL array");
    if (!d_work || work_bytes < need)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "workspace of %zu bytes, %zu needed", work_bytes, need);

    memset(&info, 0, sizeof info);
    memset(&b, 0, sizeof b);
    info.dtype = q.dtype;
    info.eb_mode = q.eb_mode;
    info.eb_user = q.eb;
    info.has_fill = q.has_fill != 0;
    info.fill_bits = info.has_fill ? ghz_fill_bits(q.dtype, q.fill) : 0;
    if (q.eb_mode == GHZ_EB_ABS) {
        info.eb_abs = q.eb;
    } else if (q.has_range) {
        if ((st = ghz_rel_bound(q.eb, q.range_min, q.range_max, &info.eb_abs)) != GHZ_SUCCESS) return st;
    } else {
        need_range = true;
    }

    for (int i = 0; i < k; ++i) {
        chunk_t& c = b.c[i];
        const int tiles = tiles_for(ns[i]);
        if ((ns[i] && !d_srcs[i]) || !d_dsts[i])
            return ghz_fail(GHZ_ERR_INVALID_ARG, "chunk %d: NULL pointer", i);
        if (dst_capacities[i] < ghz_compress_bound(ns[i], q.dtype) || !ghz_compress_bound(ns[i], q.dtype))
            return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "chunk %d: capacity %zu < ghz_compress_bound %zu", i,
                            dst_capacities[i], ghz_compress_bound(ns[i], q.dtype));
        if (total_tiles > (1 << 30) - tiles)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "batch too large for one launch");
        c.src = (const uint8_t*)d_srcs[i];
        c.dst = (uint8_t*)d_dsts[i];
        c.n = ns[i];
        c.d_out = d_sizes + i;
        c.range = need_range ? (unsigned long long*)((char*)d_work + used) : nullptr;
        c.tiles = lookback_state((char*)d_work + used + kAuxBytes, tiles);
        c.tile_begin = total_tiles;
        c.num_tiles = tiles;
        used += chunk_work_bytes((uint64_t)tiles, false);
        total_tiles += tiles;
        if (tiles > max_tiles) max_tiles = tiles;
    }
    b.k = k;
    b.d_status = d_status;

    cudaError_t e = q.dtype == GHZ_F32
                        ? launch_compress<float, uint32_t>(b, info, total_tiles, max_tiles, need_range, stream)
                        : launch_compress<double, unsigned long long>(b, info, total_tiles, max_tiles,
                                                                      need_range, stream);
    return e == cudaSuccess ? GHZ_SUCCESS : cuda_fail(e, "compress launch");
}

extern "C" ghz_status_t ghz_cuda_compress(const ghz_params_t* p, const void* d_src, size_t n, void* d_dst,
                                          size_t dst_capacity, uint64_t* d_size, int* d_status,
                                          void* d_work, size_t work_bytes, cudaStream_t stream)
{
    return ghz_cuda_compress_batch(p, 1, &d_src, &n, &d_dst, &dst_capacity, d_size, d_status, d_work,
                                   work_bytes, stream);
}

extern "C" ghz_status_t ghz_cuda_decompress_batch(ghz_dtype_t dtype, int k, const void* const* d_srcs,
                                                  const size_t* src_sizes, void* const* d_dsts,
                                                  const size_t* dst_capacities, uint64_t* d_ns,
                                                  int* d_status, void* d_work, size_t work_bytes,
                                                  cudaStream_t stream)
{
    size_t elems[GHZ_CUDA_MAX_BATCH], need = 0, used = 0;
    const size_t elem = ghz_float_size(dtype);
    ghz_status_t st;
    batch_t b;
    int total_tiles = 0, max_tiles = 1;

    ghz_clear_detail();
    if (elem == 0) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)dtype);
    if (k < 1 || k > GHZ_CUDA_MAX_BATCH || !d_srcs || !src_sizes || !d_dsts || !dst_capacities)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "k = %d chunks (1..%d) and non-NULL arrays needed", k,
                        GHZ_CUDA_MAX_BATCH);
    for (int i = 0; i < k; ++i) elems[i] = dst_capacities[i] / elem;
    if ((st = workspace_for(k, elems, dec_tile_elems(dtype), true, &need)) != GHZ_SUCCESS) return st;
    if (!d_work || work_bytes < need)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "workspace of %zu bytes, %zu needed", work_bytes, need);

    memset(&b, 0, sizeof b);
    for (int i = 0; i < k; ++i) {
        chunk_t& c = b.c[i];
        const int tiles = tiles_for(elems[i], dec_tile_elems(dtype));
        if (!d_srcs[i] || (!d_dsts[i] && dst_capacities[i]))
            return ghz_fail(GHZ_ERR_INVALID_ARG, "chunk %d: NULL pointer", i);
        if (total_tiles > (1 << 30) - tiles)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "batch too large for one launch");
        c.src = (const uint8_t*)d_srcs[i];
        c.dst = (uint8_t*)d_dsts[i];
        c.n = src_sizes[i];
        c.capacity = dst_capacities[i];
        c.d_out = d_ns ? d_ns + i : nullptr;
        c.parsed = (parsed_t*)((char*)d_work + used);
        c.tiles = lookback_state((char*)d_work + used + kAuxBytes, tiles);
        c.offsets = (offset_t*)((char*)d_work + used + kAuxBytes + align256(lookback_bytes(tiles)));
        c.tile_begin = total_tiles;
        c.num_tiles = tiles;
        used += chunk_work_bytes((uint64_t)tiles, true);
        total_tiles += tiles;
        if (tiles > max_tiles) max_tiles = tiles;
    }
    b.k = k;
    b.d_status = d_status;
    cudaError_t e = dtype == GHZ_F32 ? launch_decompress<float>(b, (int)dtype, total_tiles, max_tiles, stream)
                                     : launch_decompress<double>(b, (int)dtype, total_tiles, max_tiles, stream);
    return e == cudaSuccess ? GHZ_SUCCESS : cuda_fail(e, "decompress launch");
}

extern "C" ghz_status_t ghz_cuda_decompress(ghz_dtype_t dtype, const void* d_src, size_t src_size,
                                            void* d_dst, size_t dst_capacity, uint64_t* d_n, int* d_status,
                                            void* d_work, size_t work_bytes, cudaStream_t stream)
{
    return ghz_cuda_decompress_batch(dtype, 1, &d_src, &src_size, &d_dst, &dst_capacity, d_n, d_status,
                                     d_work, work_bytes, stream);
}

namespace {

/* Reads the scratch results of a *_sync call: a u64 and a status. */
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

} // namespace

extern "C" ghz_status_t ghz_cuda_compress_sync(const ghz_params_t* p, const void* d_src, size_t n, void* d_dst,
                                               size_t dst_capacity, size_t* h_size, void* d_work,
                                               size_t work_bytes, cudaStream_t stream)
{
    ghz_status_t st;
    if (!h_size || !d_work || work_bytes < GHZ_CUDA_SCRATCH_BYTES)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "h_size and a workspace with scratch are needed");
    st = ghz_cuda_compress(p, d_src, n, d_dst, dst_capacity, (uint64_t*)d_work, (int*)((char*)d_work + 8),
                           (char*)d_work + GHZ_CUDA_SCRATCH_BYTES, work_bytes - GHZ_CUDA_SCRATCH_BYTES, stream);
    return st != GHZ_SUCCESS ? st : sync_results(d_work, stream, h_size);
}

extern "C" ghz_status_t ghz_cuda_decompress_sync(ghz_dtype_t dtype, const void* d_src, size_t src_size,
                                                 void* d_dst, size_t dst_capacity, size_t* h_n, void* d_work,
                                                 size_t work_bytes, cudaStream_t stream)
{
    ghz_status_t st;
    if (!h_n || !d_work || work_bytes < GHZ_CUDA_SCRATCH_BYTES)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "h_n and a workspace with scratch are needed");
    st = ghz_cuda_decompress(dtype, d_src, src_size, d_dst, dst_capacity, (uint64_t*)d_work,
                             (int*)((char*)d_work + 8), (char*)d_work + GHZ_CUDA_SCRATCH_BYTES,
                             work_bytes - GHZ_CUDA_SCRATCH_BYTES, stream);
    return st != GHZ_SUCCESS ? st : sync_results(d_work, stream, h_n);
}
