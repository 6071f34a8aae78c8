/* ghz/homo/cuda/api.cu: the host API of ghz/homo/homo_cuda.h: argument checks,
 * workspace carving (the parsed headers and the inputs' checksum states, three
 * look-back status arrays, the inputs' tile offsets),
 * launch. Nothing here allocates, copies or synchronises. */
#include "ghz/codec/cuda/checksum.cuh"
#include "ghz/codec/cuda/host.cuh"
#include "ghz/detail/error.h"
#include "ghz/homo/cuda/homo_kernels.cuh"
#include "ghz/homo/cuda/shift.cuh"
#include "ghz/homo/homo_cuda.h"

namespace {

using namespace ghz::detail;

/* The first slot: the parsed headers (homo_parsed_t), then at kSealAt the two inputs'
 * checksum states (parsed_t). */
constexpr size_t kParsedBytes = 512, kSealAt = 256;
static_assert(sizeof(homo_parsed_t) <= kSealAt && kSealAt + 2 * sizeof(parsed_t) <= kParsedBytes,
              "parsed headers and checksum states must fit their slot");

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

/* The parsed headers and checksum states, three look-back status arrays (A's and B's
 * tile offsets, the output's), A's and B's tile offsets. */
size_t homo_work_bytes(int tiles)
{
    return kParsedBytes + 3 * align256(lookback_bytes(tiles)) + 2 * align256(((size_t)tiles + 1) * sizeof(offset_t));
}

/* Fills g for one call (the inputs, the output, the workspace carved from d_work) and
 * launches it. */
ghz_status_t homo_launch(homo_args_t& g, const buf_in_t& in_a, const buf_in_t& in_b, uint8_t* d_out,
                         uint64_t out_capacity, uint64_t* d_out_size, size_t max_elems, int tiles, int* d_status,
                         void* d_work, cudaStream_t stream)
{
    g.a = in_a.data;
    g.b = in_b.data;
    g.out = d_out;
    g.a_size = in_a.n;
    g.b_size = in_b.n;
    g.d_a_size = in_a.d_size;
    g.d_b_size = in_b.d_size;
    g.out_capacity = out_capacity;
    g.max_elems = max_elems;
    g.d_out_size = d_out_size;
    g.d_status = d_status;
    g.parsed = (homo_parsed_t*)d_work;
    g.seal = (parsed_t*)((char*)d_work + kSealAt);
    char* w = (char*)d_work + kParsedBytes;
    const size_t lb = align256(lookback_bytes(tiles)), ob = align256(((size_t)tiles + 1) * sizeof(offset_t));
    g.in_tiles_a = lookback_state(w, tiles);
    g.in_tiles_b = lookback_state(w + lb, tiles);
    g.out_tiles = lookback_state(w + 2 * lb, tiles);
    g.off_a = (offset_t*)(w + 3 * lb);
    g.off_b = (offset_t*)(w + 3 * lb + ob);
    g.num_tiles = tiles;
    /* sealed or not is known only on the GPU: CTAs for the larger readable input */
    g.crc_ctas = checksum_ctas(in_a.n > in_b.n ? in_a.n : in_b.n);
    const cudaError_t e = g.dtype == GHZ_F32 ? launch_homo_binary<float>(g, stream) : launch_homo_binary<double>(g, stream);
    return e == cudaSuccess ? GHZ_SUCCESS : cuda_fail(e, "homo launch");
}

} // namespace

/* The larger of two workspace needs (the operation, which picks the kernel, is not an
 * argument of the queries). */
static size_t larger(size_t a, size_t b)
{
    return a > b ? a : b;
}

extern "C" ghz_status_t ghz_cuda_homo_binary(ghz_cuda_ctx_t* ctx, ghz_homo_op_t op, ghz_dtype_t dtype,
                                             const ghz_buf_t* a, const ghz_buf_t* b, ghz_buf_t* out,
                                             size_t max_elems, int* d_status, void* d_work, size_t work_bytes,
                                             cudaStream_t stream)
{
    buf_in_t in_a, in_b;
    uint8_t* d_out;
    uint64_t* d_out_size;
    ghz_status_t st;
    ghz_clear_detail();
    if (op < GHZ_HOMO_SUM || op > GHZ_HOMO_MAX) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown operation %d", (int)op);
    if (dtype != GHZ_F32 && dtype != GHZ_F64) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)dtype);
    if (binary_through_nary(op)) {
        if (!out) return ghz_fail(GHZ_ERR_INVALID_ARG, "out is NULL");
        return nary_binary(ctx, op, dtype, a, b, out, false, max_elems, d_status, d_work, work_bytes, stream);
    }
    if ((st = buf_in(a, "a", 0, &in_a)) != GHZ_SUCCESS || (st = buf_in(b, "b", 0, &in_b)) != GHZ_SUCCESS ||
        (st = buf_out(out, "out", 0, &d_out, &d_out_size)) != GHZ_SUCCESS)
        return st;
    if (max_elems == 0 && ctx) max_elems = ctx->max_elems;
    const int tiles = homo_tiles(max_elems);
    if (!tiles) return ghz_fail(GHZ_ERR_INVALID_ARG, "%zu elements is too many for one frame", max_elems);
    if ((st = work_pick(ctx, &d_work, &work_bytes, homo_work_bytes(tiles))) != GHZ_SUCCESS) return st;

    homo_args_t g{};
    g.op = (int)op;
    g.dtype = (int)dtype;
    return homo_launch(g, in_a, in_b, d_out, out->capacity, d_out_size, max_elems, tiles, d_status, d_work, stream);
}

/* In place: SUM and SUB through the k-input kernel (binary_through_nary), MIN and MAX
 * with the fused kernel (HOMO.md, "In place with the fused kernel"): the workspace of
 * ghz_cuda_homo_binary's fused path, then a flag per chunk of the shift and A's code
 * bytes copied aside. */
namespace {

size_t inplace_extras(size_t max_elems, size_t* flags)
{
    *flags = align256(shift_chunks(max_elems, GHZ_F64) * sizeof(unsigned));
    return *flags + align256(ghz_codes_bytes(ghz_blocks_of(max_elems)));
}

} // namespace

/* Both binary workspace queries: the fused kernel's need (its tiles of max_elems, plus
 * the shift's flags and A's codes in place), or the k-input kernel's where SUM and SUB
 * take it, whichever is larger. */
static ghz_status_t binary_workspace(size_t max_elems, size_t* bytes, bool in_place)
{
    size_t flags;
    ghz_clear_detail();
    const int tiles = homo_tiles(max_elems);
    if (!bytes) return ghz_fail(GHZ_ERR_INVALID_ARG, "bytes is NULL");
    if (!tiles) return ghz_fail(GHZ_ERR_INVALID_ARG, "%zu elements is too many for one frame", max_elems);
    *bytes = homo_work_bytes(tiles) + (in_place ? inplace_extras(max_elems, &flags) : 0);
    if (GHZ_CUDA_HOMO_BINARY_SLICED) *bytes = larger(*bytes, nary_binary_work_bytes(max_elems, in_place));
    return GHZ_SUCCESS;
}

extern "C" ghz_status_t ghz_cuda_homo_workspace(size_t max_elems, size_t* bytes)
{
    return binary_workspace(max_elems, bytes, false);
}

extern "C" ghz_status_t ghz_cuda_homo_binary_inplace_workspace(size_t max_elems, size_t* bytes)
{
    return binary_workspace(max_elems, bytes, true);
}

extern "C" ghz_status_t ghz_cuda_homo_binary_inplace(ghz_cuda_ctx_t* ctx, ghz_homo_op_t op, ghz_dtype_t dtype,
                                                     ghz_buf_t* a, const ghz_buf_t* b, size_t max_elems,
                                                     int* d_status, void* d_work, size_t work_bytes,
                                                     cudaStream_t stream)
{
    buf_in_t in_a, in_b;
    uint8_t* d_out;
    uint64_t* d_out_size;
    size_t flags;
    ghz_status_t st;
    ghz_clear_detail();
    if (op < GHZ_HOMO_SUM || op > GHZ_HOMO_MAX) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown operation %d", (int)op);
    if (dtype != GHZ_F32 && dtype != GHZ_F64) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)dtype);
    if (binary_through_nary(op))
        return nary_binary(ctx, op, dtype, a, b, a, true, max_elems, d_status, d_work, work_bytes, stream);
    if (max_elems == 0 && ctx) max_elems = ctx->max_elems;
    const int tiles = homo_tiles(max_elems);
    if (!tiles) return ghz_fail(GHZ_ERR_INVALID_ARG, "%zu elements is too many for one frame", max_elems);
    /* a is input A (its size: a->size, or *a->d_size) and the output (its capacity, its
     * d_size, required) */
    if ((st = buf_in(a, "a", 0, &in_a)) != GHZ_SUCCESS || (st = buf_in(b, "b", 0, &in_b)) != GHZ_SUCCESS)
        return st;
    {
        const uintptr_t pa = (uintptr_t)a->data, pb = (uintptr_t)in_b.data;
        const uint64_t nb = in_b.d_size ? b->capacity : in_b.n;
        if (nb && a->capacity && pb < pa + a->capacity && pa < pb + nb)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "b 0 overlaps a's capacity");
    }
    if ((st = buf_out(a, "a", 0, &d_out, &d_out_size)) != GHZ_SUCCESS) return st;
    const size_t extras = inplace_extras(max_elems, &flags);
    if ((st = work_pick(ctx, &d_work, &work_bytes, homo_work_bytes(tiles) + extras)) != GHZ_SUCCESS) return st;

    homo_args_t g{};
    g.op = (int)op;
    g.dtype = (int)dtype;
    g.inplace = 1;
    g.shift_flags = (unsigned*)((char*)d_work + homo_work_bytes(tiles));
    g.codes_copy = (uint8_t*)g.shift_flags + flags;
    g.codes_cap = extras - flags;
    g.shift_chunks = (unsigned)shift_chunks(max_elems, dtype);
    return homo_launch(g, in_a, in_b, d_out, a->capacity, d_out_size, max_elems, tiles, d_status, d_work, stream);
}
