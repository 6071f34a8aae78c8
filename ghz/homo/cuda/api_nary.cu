/* ghz/homo/cuda/api_nary.cu: the host calls of ghz/homo/homo_cuda.h that run the k-input
 * kernel (nary.cu): the n-ary sum, the batched binary operation and the in-place one:
 * argument checks, the input and job tables, workspace carving, launch. Nothing here
 * allocates, copies or synchronises. */
#include "ghz/codec/cuda/checksum.cuh"
#include "ghz/codec/cuda/host.cuh"
#include "ghz/codec/cuda/tile_offsets.cuh"
#include "ghz/detail/error.h"
#include "ghz/homo/cuda/homo_kernels.cuh"
#include "ghz/homo/cuda/nary.cuh"
#include "ghz/homo/homo_cuda.h"

static_assert(GHZ_CUDA_HOMO_MAX_INPUTS == ghz::detail::kNaryMaxInputs, "one limit");

namespace {

using namespace ghz::detail;

size_t al(size_t v)
{
    return (v + 255u) & ~(size_t)255u;
}

/* Tiles of kNaryTileElems for frames of max_elems, or 0 when too many for one launch. */
int nary_tiles(size_t max_elems)
{
    if (max_elems / kNaryTileElems > (uint64_t)(1 << 30)) return 0;
    return tiles_for(max_elems, kNaryTileElems);
}

/* The workspace of one launch: job and input states, each input's offsets look-back and
 * tile offsets, each job's output look-back, the in-place extras. Carves it when g is
 * given (w: its start). */
size_t nary_layout(int n_in, int n_jobs, int tiles, size_t max_elems, bool inplace, char* w, nary_launch_t* g)
{
    const int groups = (int)tile_offset_groups(tiles);
    const size_t js = al(n_jobs * sizeof(nary_job_state_t)), is = al(n_in * sizeof(nary_in_state_t));
    const size_t ilb = al(lookback_bytes(groups)), off = al(((size_t)tiles + 1) * sizeof(offset_t));
    const size_t olb = al(lookback_bytes(tiles));
    const size_t chunks = inplace ? shift_chunks(max_elems, GHZ_F64) : 0;
    const size_t flags = al(chunks * sizeof(unsigned)), codes = inplace ? al(ghz_codes_bytes(ghz_blocks_of(max_elems))) : 0;
    if (g) {
        g->job_state = (nary_job_state_t*)w;
        g->in_state = (nary_in_state_t*)(w + js);
        g->in_lb = w + js + is;
        g->in_lb_stride = ilb;
        g->offsets = (offset_t*)(w + js + is + n_in * ilb);
        g->off_stride = off / sizeof(offset_t);
        g->out_lb = w + js + is + n_in * (ilb + off);
        g->out_lb_stride = olb;
        g->shift_flags = (unsigned*)(w + js + is + n_in * (ilb + off) + n_jobs * olb);
        g->codes_copy = (uint8_t*)g->shift_flags + flags;
    }
    return js + is + n_in * (ilb + off) + n_jobs * olb + flags + codes;
}

ghz_status_t check_common(ghz_dtype_t dtype, size_t* max_elems, const ghz_cuda_ctx_t* ctx, int* tiles)
{
    if (dtype != GHZ_F32 && dtype != GHZ_F64) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)dtype);
    if (*max_elems == 0 && ctx) *max_elems = ctx->max_elems;
    *tiles = nary_tiles(*max_elems);
    if (!*tiles) return ghz_fail(GHZ_ERR_INVALID_ARG, "%zu elements is too many for one frame", *max_elems);
    return GHZ_SUCCESS;
}

/* 1 when device ranges [p, p+n) and [q, q+m) share a byte. */
bool overlap(const void* p, uint64_t n, const void* q, uint64_t m)
{
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return n && m && a < b + m && b < a + n;
}

/* Adds input i of the table; checks it against the output. */
ghz_status_t add_input(nary_launch_t& g, const ghz_buf_t* b, const char* name, int i, const ghz_buf_t* out)
{
    buf_in_t in;
    ghz_status_t st = buf_in(b, name, i, &in);
    if (st != GHZ_SUCCESS) return st;
    if (out && overlap(in.data, in.d_size ? b->capacity : in.n, out->data, out->capacity))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "%s %d overlaps the output (use the in-place call)", name, i);
    nary_in_t& e = g.in[g.n_in++];
    e.data = in.data;
    e.n = in.n;
    e.d_size = in.d_size;
    return GHZ_SUCCESS;
}

ghz_status_t add_job(nary_launch_t& g, ghz_buf_t* out, const char* name, int i, int in0, int k, int* d_status)
{
    nary_job_t& j = g.job[g.n_jobs++];
    ghz_status_t st = buf_out(out, name, i, &j.out, &j.d_out_size);
    if (st != GHZ_SUCCESS) return st;
    j.out_capacity = out->capacity;
    j.d_status = d_status;
    j.in0 = in0;
    j.k = k;
    j.inplace = 0;
    return GHZ_SUCCESS;
}

/* Carves the workspace and launches the table in g. */
ghz_status_t run(nary_launch_t& g, int tiles, bool inplace, void* d_work, cudaStream_t stream)
{
    uint64_t most = 0;
    nary_layout(g.n_in, g.n_jobs, tiles, g.max_elems, inplace, (char*)d_work, &g);
    for (int i = 0; i < g.n_in; ++i)
        if (g.in[i].n > most) most = g.in[i].n;
    g.crc_ctas = checksum_ctas(most);
    g.shift_chunks = inplace ? (unsigned)shift_chunks(g.max_elems, (ghz_dtype_t)g.dtype) : 0u;
    const cudaError_t e =
        g.dtype == GHZ_F32 ? launch_homo_nary<float>(g, stream) : launch_homo_nary<double>(g, stream);
    return e == cudaSuccess ? GHZ_SUCCESS : cuda_fail(e, "homo launch");
}

} // namespace

extern "C" ghz_status_t ghz_cuda_homo_sum_n_workspace(size_t k, size_t max_elems, size_t* bytes)
{
    ghz_clear_detail();
    const int tiles = nary_tiles(max_elems);
    if (!bytes) return ghz_fail(GHZ_ERR_INVALID_ARG, "bytes is NULL");
    if (k < 1 || k > GHZ_CUDA_HOMO_MAX_INPUTS)
        return ghz_fail(k ? GHZ_ERR_UNSUPPORTED : GHZ_ERR_INVALID_ARG, "%zu inputs: 1 to %d on the GPU", k,
                        GHZ_CUDA_HOMO_MAX_INPUTS);
    if (!tiles) return ghz_fail(GHZ_ERR_INVALID_ARG, "%zu elements is too many for one frame", max_elems);
    *bytes = nary_layout((int)k, 1, tiles, max_elems, false, nullptr, nullptr);
    return GHZ_SUCCESS;
}

extern "C" ghz_status_t ghz_cuda_homo_sum_n(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, size_t k, const ghz_buf_t* ins,
                                            ghz_buf_t* out, size_t max_elems, int* d_status, void* d_work,
                                            size_t work_bytes, cudaStream_t stream)
{
    int tiles = 0;
    ghz_status_t st;
    ghz_clear_detail();
    if (!ins || k == 0) return ghz_fail(GHZ_ERR_INVALID_ARG, "no inputs");
    if (k > GHZ_CUDA_HOMO_MAX_INPUTS)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "%zu inputs: at most %d on the GPU (the CPU's ghz_homo_sum_n takes more)",
                        k, GHZ_CUDA_HOMO_MAX_INPUTS);
    if ((st = check_common(dtype, &max_elems, ctx, &tiles)) != GHZ_SUCCESS) return st;
    nary_launch_t g{};
    g.op = GHZ_HOMO_SUM;
    g.dtype = (int)dtype;
    g.max_elems = max_elems;
    for (size_t i = 0; i < k; ++i)
        if ((st = add_input(g, ins + i, "input", (int)i, out)) != GHZ_SUCCESS) return st;
    if ((st = add_job(g, out, "out", 0, 0, (int)k, d_status)) != GHZ_SUCCESS) return st;
    if ((st = work_pick(ctx, &d_work, &work_bytes, nary_layout((int)k, 1, tiles, max_elems, false, nullptr, nullptr))) !=
        GHZ_SUCCESS)
        return st;
    return run(g, tiles, false, d_work, stream);
}

extern "C" ghz_status_t ghz_cuda_homo_binary_batch_workspace(int k, size_t max_elems, size_t* bytes)
{
    ghz_clear_detail();
    const int tiles = nary_tiles(max_elems);
    if (!bytes) return ghz_fail(GHZ_ERR_INVALID_ARG, "bytes is NULL");
    if (k < 1) return ghz_fail(GHZ_ERR_INVALID_ARG, "k = %d pairs", k);
    if (!tiles) return ghz_fail(GHZ_ERR_INVALID_ARG, "%zu elements is too many for one frame", max_elems);
    const int jobs = k < kNaryMaxJobs ? k : kNaryMaxJobs;
    *bytes = nary_layout(2 * jobs, jobs, tiles, max_elems, false, nullptr, nullptr);
    return GHZ_SUCCESS;
}

extern "C" ghz_status_t ghz_cuda_homo_binary_batch(ghz_cuda_ctx_t* ctx, ghz_homo_op_t op, ghz_dtype_t dtype, int k,
                                                   const ghz_buf_t* a, const ghz_buf_t* b, ghz_buf_t* out,
                                                   size_t max_elems, int* d_status, void* d_work, size_t work_bytes,
                                                   cudaStream_t stream)
{
    int tiles = 0;
    ghz_status_t st;
    ghz_clear_detail();
    if (op < GHZ_HOMO_SUM || op > GHZ_HOMO_MAX) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown operation %d", (int)op);
    if (k < 1 || !a || !b || !out) return ghz_fail(GHZ_ERR_INVALID_ARG, "k = %d pairs, or NULL arrays", k);
    if ((st = check_common(dtype, &max_elems, ctx, &tiles)) != GHZ_SUCCESS) return st;
    const int jobs = k < kNaryMaxJobs ? k : kNaryMaxJobs;
    const size_t need = nary_layout(2 * jobs, jobs, tiles, max_elems, false, nullptr, nullptr);
    if ((st = work_pick(ctx, &d_work, &work_bytes, need)) != GHZ_SUCCESS) return st;
    /* launches of kNaryMaxJobs pairs, one after the other on the stream: each may use
     * the whole workspace */
    for (int base = 0; base < k; base += kNaryMaxJobs) {
        nary_launch_t g{};
        g.op = (int)op;
        g.dtype = (int)dtype;
        g.max_elems = max_elems;
        for (int i = base; i < k && i < base + kNaryMaxJobs; ++i) {
            if ((st = add_input(g, a + i, "a", i, out + i)) != GHZ_SUCCESS ||
                (st = add_input(g, b + i, "b", i, out + i)) != GHZ_SUCCESS ||
                (st = add_job(g, out + i, "out", i, 2 * (i - base), 2, d_status ? d_status + i : nullptr)) !=
                    GHZ_SUCCESS)
                return st;
        }
        if ((st = run(g, tiles, false, d_work, stream)) != GHZ_SUCCESS) return st;
    }
    return GHZ_SUCCESS;
}

/* The binary operation through the k-input kernel: api.cu routes SUM and SUB here
 * (homo_kernels.cuh, binary_through_nary), out of place and in place. */
size_t ghz::detail::nary_binary_work_bytes(size_t max_elems, bool inplace)
{
    const int tiles = nary_tiles(max_elems);
    return tiles ? nary_layout(2, 1, tiles, max_elems, inplace, nullptr, nullptr) : 0;
}

ghz_status_t ghz::detail::nary_binary(ghz_cuda_ctx_t* ctx, ghz_homo_op_t op, ghz_dtype_t dtype, const ghz_buf_t* a,
                                      const ghz_buf_t* b, ghz_buf_t* out, bool inplace, size_t max_elems,
                                      int* d_status, void* d_work, size_t work_bytes, cudaStream_t stream)
{
    int tiles = 0;
    ghz_status_t st;
    if ((st = check_common(dtype, &max_elems, ctx, &tiles)) != GHZ_SUCCESS) return st;
    nary_launch_t g{};
    g.op = (int)op;
    g.dtype = (int)dtype;
    g.max_elems = max_elems;
    /* in place, a is input 0 (its size: a->size, or *a->d_size) and the output (its
     * capacity, its d_size); b must not overlap it */
    if ((st = add_input(g, a, "a", 0, inplace ? nullptr : out)) != GHZ_SUCCESS ||
        (st = add_input(g, b, "b", 0, out)) != GHZ_SUCCESS ||
        (st = add_job(g, out, inplace ? "a" : "out", 0, 0, 2, d_status)) != GHZ_SUCCESS)
        return st;
    g.job[0].inplace = inplace ? 1 : 0;
    if ((st = work_pick(ctx, &d_work, &work_bytes, nary_layout(2, 1, tiles, max_elems, inplace, nullptr, nullptr))) !=
        GHZ_SUCCESS)
        return st;
    return run(g, tiles, inplace, d_work, stream);
}
