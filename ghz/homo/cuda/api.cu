/* ghz/homo/cuda/api.cu: the host API of ghz/homo/homo_cuda.h: argument checks,
 * workspace carving (the parsed headers, three look-back status arrays, the inputs'
 * tile offsets),
 * launch. Nothing here allocates, copies or synchronises. */
#include "ghz/detail/error.h"
#include "ghz/homo/cuda/homo_kernels.cuh"
#include "ghz/homo/homo_cuda.h"

namespace {

using namespace ghz::detail;

constexpr size_t kParsedBytes = 512;
static_assert(sizeof(homo_parsed_t) <= kParsedBytes, "parsed headers must fit their slot");

size_t align256(size_t v)
{
    return (v + 255u) & ~(size_t)255u;
}

/* Tiles for frames of max_elems elements, or 0 when too many for one launch. */
int homo_tiles(size_t max_elems)
{
    if (max_elems / kHomoTileElems > (uint64_t)(1 << 30)) return 0;
    return tiles_for(max_elems, kHomoTileElems);
}

/* The parsed headers, three look-back status arrays (A's and B's tile offsets, the
 * output's), A's and B's tile offsets. */
size_t homo_work_bytes(int tiles)
{
    return kParsedBytes + 3 * align256(lookback_bytes(tiles)) + 2 * align256(((size_t)tiles + 1) * sizeof(offset_t));
}

} // namespace

extern "C" ghz_status_t ghz_cuda_homo_workspace(size_t max_elems, size_t* bytes)
{
    ghz_clear_detail();
    const int tiles = homo_tiles(max_elems);
    if (!bytes) return ghz_fail(GHZ_ERR_INVALID_ARG, "bytes is NULL");
    if (!tiles) return ghz_fail(GHZ_ERR_INVALID_ARG, "%zu elements is too many for one frame", max_elems);
    *bytes = homo_work_bytes(tiles);
    return GHZ_SUCCESS;
}

extern "C" ghz_status_t ghz_cuda_homo_binary(ghz_homo_op_t op, ghz_dtype_t dtype, const void* d_a, size_t a_size,
                                             const void* d_b, size_t b_size, void* d_out, size_t out_capacity,
                                             size_t max_elems, uint64_t* d_out_size, int* d_status, void* d_work,
                                             size_t work_bytes, cudaStream_t stream)
{
    ghz_clear_detail();
    const int tiles = homo_tiles(max_elems);
    if (op < GHZ_HOMO_SUM || op > GHZ_HOMO_MAX) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown operation %d", (int)op);
    if (dtype != GHZ_F32 && dtype != GHZ_F64) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)dtype);
    if (!d_a || !d_b || !d_out || !d_out_size || !d_work)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    if (!tiles) return ghz_fail(GHZ_ERR_INVALID_ARG, "%zu elements is too many for one frame", max_elems);
    if (work_bytes < homo_work_bytes(tiles))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "workspace of %zu bytes, %zu needed", work_bytes,
                        homo_work_bytes(tiles));

    homo_args_t g{};
    g.a = (const uint8_t*)d_a;
    g.b = (const uint8_t*)d_b;
    g.out = (uint8_t*)d_out;
    g.a_size = a_size;
    g.b_size = b_size;
    g.out_capacity = out_capacity;
    g.max_elems = max_elems;
    g.d_out_size = d_out_size;
    g.d_status = d_status;
    g.parsed = (homo_parsed_t*)d_work;
    char* w = (char*)d_work + kParsedBytes;
    const size_t lb = align256(lookback_bytes(tiles)), ob = align256(((size_t)tiles + 1) * sizeof(offset_t));
    g.in_tiles_a = lookback_state(w, tiles);
    g.in_tiles_b = lookback_state(w + lb, tiles);
    g.out_tiles = lookback_state(w + 2 * lb, tiles);
    g.off_a = (offset_t*)(w + 3 * lb);
    g.off_b = (offset_t*)(w + 3 * lb + ob);
    g.num_tiles = tiles;
    g.op = (int)op;
    g.dtype = (int)dtype;
    const cudaError_t e = dtype == GHZ_F32 ? launch_homo_binary<float>(g, stream) : launch_homo_binary<double>(g, stream);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return ghz_fail(GHZ_ERR_CUDA, "homo launch: %s", cudaGetErrorString(e));
    }
    return GHZ_SUCCESS;
}
