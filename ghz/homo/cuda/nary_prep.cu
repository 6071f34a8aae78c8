/* ghz/homo/cuda/nary_prep.cu: the kernels that run before nary.cu's combining kernel,
 * in stream order:
 *  - init: every input's header checked once (the CPU reader's inline checks,
 *    detail/header.h) and each job's inputs held to HOMO.md's matching rules, in the
 *    CPU's order (input by input: its header, then its agreement with the job's first
 *    input); the look-backs and the in-place flags reset;
 *  - shift (in place only): input 0's frame moved to the end of a's capacity, as
 *    ghz_homo_binary_inplace's memmove does, and its code bytes copied aside;
 *  - offsets: every tile's payload offset in every input (tile_offsets.cuh), and in
 *    CTAs of their own each sealed input's checksum (checksum.cuh, the decompressor's).
 * A job that fails here sets every one of its inputs' status, so that no later kernel
 * reads them. */
#include "ghz/codec/cuda/checksum.cuh"
#include "ghz/codec/cuda/host.cuh"
#include "ghz/codec/cuda/tile_offsets.cuh"
#include "ghz/homo/cuda/homo_kernels.cuh"
#include "ghz/homo/cuda/nary.cuh"

namespace ghz {
namespace detail {

/* Grid (x, jobs): x covers the look-backs and shift flags; threads t < k of CTA 0 read
 * input in0 + t's header, thread 0 then decides the job. */
__global__ void __launch_bounds__(kThreads) nary_init_kernel(nary_launch_t g)
{
    __shared__ int s_st[kNaryMaxInputs];
    const nary_job_t& job = g.job[blockIdx.y];
    const int idx = blockIdx.x * kThreads + threadIdx.x;
    {
        tile_state_t out = nary_lookback(g.out_lb + blockIdx.y * g.out_lb_stride, g.out_lb_stride, g.tiles);
        if (idx < g.tiles + 32) out.InitializeStatus(g.tiles);
        for (int i = 0; i < job.k; ++i) {
            tile_state_t in = nary_lookback(g.in_lb + (job.in0 + i) * g.in_lb_stride, g.in_lb_stride, g.groups);
            if (idx < g.groups + 32) in.InitializeStatus(g.groups);
        }
        if (job.inplace && idx < (int)g.shift_chunks) g.shift_flags[idx] = 0u;
    }
    if (blockIdx.x != 0) return;
    const unsigned t = threadIdx.x;
    for (unsigned i = t; i < (unsigned)job.k; i += kThreads) {
        const nary_in_t in = g.in[job.in0 + i];
        nary_in_state_t s;
        int why = 0;
        s.p.status = ghz_header_unpack(in.data, readable_bytes(in.n, in.d_size), &s.p.info, &why);
        s.p.crc = 0u;
        s.p.crc_done = 0u;
        s.p.crc_status = GHZ_SUCCESS;
        s.src = in.data;
        /* in place: the frame goes to the end of the capacity (the output's; a frame
         * larger than it fails below) */
        if (job.inplace && i == 0 && s.p.status == GHZ_SUCCESS && s.p.info.frame_size <= job.out_capacity)
            s.src = in.data + (job.out_capacity - s.p.info.frame_size);
        s.codes = job.inplace && i == 0 ? g.codes_copy : s.src + GHZ_HEADER_SIZE;
        g.in_state[job.in0 + i] = s;
        s_st[i] = s.p.status;
    }
    __syncthreads();
    if (t != 0) return;
    nary_job_state_t js;
    const ghz_frame_info_t a = g.in_state[job.in0].p.info;
    const unsigned elem = g.dtype == GHZ_F32 ? 4u : 8u;
    int st = GHZ_SUCCESS;
    for (int i = 0; i < job.k && st == GHZ_SUCCESS; ++i) {
        st = s_st[i];
        if (st == GHZ_SUCCESS && (g.in_state[job.in0 + i].p.info.dtype != g.dtype ||
                                  !same_frame(g.in_state[job.in0 + i].p.info, a)))
            st = GHZ_ERR_MISMATCH;
    }
    /* the output never holds more than the bound; in place, the capacity must keep the
     * output below unread input (HOMO.md, In place: ghz_homo_bound) */
    const uint64_t bound = GHZ_HEADER_SIZE + ghz_codes_bytes(a.n_blocks) + a.n * elem;
    if (st == GHZ_SUCCESS &&
        (a.n > g.max_elems || job.out_capacity < bound ||
         (job.inplace && job.out_capacity < bound + (a.has_checksum ? GHZ_CHECKSUM_SIZE : 0u))))
        st = GHZ_ERR_DST_TOO_SMALL;
    js.info = a;
    js.status = st;
    js.int_ok = 0;
    js.has_qfill = 0;
    js.qfill = 0;
    if (st == GHZ_SUCCESS) int_path_rules(a, &js.int_ok, &js.has_qfill, &js.qfill);
    g.job_state[blockIdx.y] = js;
    /* a failed job's inputs are read no further (checksums, offsets, the shift) */
    if (st != GHZ_SUCCESS)
        for (int i = 0; i < job.k; ++i) g.in_state[job.in0 + i].p.status = st;
    if (job.d_status) *job.d_status = st;
    /* in place, d_out_size is also a's size: a refused here is untouched, size included
     * (nothing has moved yet), so the caller can retry with a larger capacity */
    if (st != GHZ_SUCCESS && !job.inplace) *job.d_out_size = 0;
}

/* In place (job 0, input 0): moves the frame's S bytes from data to src = data + d,
 * d = capacity - S >= 0, and copies its code bytes to g.codes_copy (shift.cuh). */
__global__ void __launch_bounds__(kThreads) nary_shift_kernel(nary_launch_t g)
{
    __shared__ __align__(16) uint8_t chunk[kShiftStageBytes];
    const nary_in_state_t& s = g.in_state[0];
    if (s.p.status != GHZ_SUCCESS) return;
    uint8_t* const data = (uint8_t*)g.in[0].data;
    shift_frame(data, s.p.info.frame_size, (uint64_t)(s.src - data), ghz_codes_bytes(s.p.info.n_blocks),
                g.codes_copy, g.shift_flags, chunk);
}

/* Grid (groups + checksum CTAs, inputs): the tile offsets of each input whose job init
 * accepted, and its checksum. */
template <unsigned TileBlocks>
__global__ void __launch_bounds__(kThreads) nary_offsets_kernel(nary_launch_t g, unsigned elem)
{
    __shared__ tile_offsets_smem sm;
    __shared__ uint32_t crc_table[256];
    const int i = blockIdx.y;
    nary_in_state_t* const s = g.in_state + i;
    if ((int)blockIdx.x >= g.groups) {
        chunk_t c{};
        c.src = s->src;
        c.parsed = &s->p;
        checksum_part(c, blockIdx.x - g.groups, gridDim.x - g.groups, crc_table);
        return;
    }
    if (s->p.status != GHZ_SUCCESS) return;
    const ghz_frame_info_t& f = s->p.info;
    frame_tile_offsets<TileBlocks>(sm, s->codes, f.n, f.n_blocks, f.has_fill, elem, blockIdx.x,
                                   nary_lookback(g.in_lb + i * g.in_lb_stride, g.in_lb_stride, g.groups),
                                   g.offsets + i * g.off_stride);
}

template <unsigned TileBlocks>
cudaError_t launch_nary_prep(const nary_launch_t& g, unsigned elem, cudaStream_t stream)
{
    int span = g.tiles > g.groups ? g.tiles : g.groups;
    if ((int)g.shift_chunks > span) span = (int)g.shift_chunks;
    const dim3 init_grid((unsigned)((span + 32 + kThreads - 1) / kThreads), (unsigned)g.n_jobs);
    cudaError_t e = launch(nary_init_kernel, init_grid, kThreads, stream, g);
    if (e == cudaSuccess && g.job[0].inplace) e = launch(nary_shift_kernel, g.shift_chunks, kThreads, stream, g);
    if (e == cudaSuccess)
        e = launch(nary_offsets_kernel<TileBlocks>, dim3((unsigned)g.groups + g.crc_ctas, (unsigned)g.n_in), kThreads,
                   stream, g, elem);
    return e;
}

template cudaError_t launch_nary_prep<128>(const nary_launch_t&, unsigned, cudaStream_t);
template cudaError_t launch_nary_prep<64>(const nary_launch_t&, unsigned, cudaStream_t);

} // namespace detail
} // namespace ghz
