/* ghz/homo/cuda/init.cu: the kernel that runs before either fused kernel of ghz/homo
 * (binary.cu): it checks both headers once, with the CPU reader's
 * inline checks (detail/header.h) and HOMO.md's matching rules, derives what every tile
 * needs (homo_parsed_t), readies the inputs' checksum states (checksum.cuh, verified by
 * the offsets kernel) and initialises the three look-backs (and, in place, the shift's
 * flags). */
#include "ghz/codec/cuda/host.cuh"
#include "ghz/codec/detail/header.h"
#include "ghz/homo/cuda/homo_kernels.cuh"

namespace ghz {
namespace detail {

__global__ void homo_init_kernel(homo_args_t g)
{
    lookback_init(g.in_tiles_a, g.num_tiles);
    lookback_init(g.in_tiles_b, g.num_tiles);
    lookback_init(g.out_tiles, g.num_tiles);
    if (g.inplace) {
        const unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
        if (idx < g.shift_chunks) g.shift_flags[idx] = 0u;
    }
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    homo_parsed_t p;
    int why = 0;
    int st = ghz_header_unpack(g.a, readable_bytes(g.a_size, g.d_a_size), &p.a, &why);
    if (st == GHZ_SUCCESS) st = ghz_header_unpack(g.b, readable_bytes(g.b_size, g.d_b_size), &p.b, &why);
    if (st == GHZ_SUCCESS && (p.a.dtype != g.dtype || !same_frame(p.a, p.b))) st = GHZ_ERR_MISMATCH;
    /* the output never holds more than the bound; in place, the capacity must keep the
     * output below unread input (HOMO.md, In place: ghz_homo_bound, 4 more when a is
     * sealed). A refusal here leaves a untouched, *d_a_size too (nothing writes it). */
    const uint64_t bound = GHZ_HEADER_SIZE + ghz_codes_bytes(p.a.n_blocks) + p.a.n * (g.dtype == GHZ_F32 ? 4u : 8u);
    if (st == GHZ_SUCCESS &&
        (p.a.n > g.max_elems || g.out_capacity < bound ||
         (g.inplace && g.out_capacity < bound + (p.a.has_checksum ? GHZ_CHECKSUM_SIZE : 0u))))
        st = GHZ_ERR_DST_TOO_SMALL;
    p.status = st;
    p.int_ok = 0;
    p.has_qfill = 0;
    p.qfill = 0;
    if (st == GHZ_SUCCESS) int_path_rules(p.a, &p.int_ok, &p.has_qfill, &p.qfill);
    *g.parsed = p;
    /* The checksum states: a sealed input is hashed only when the call passed these
     * checks (so frame_size lies inside the readable bytes); a mismatch turns its
     * crc_status to GHZ_ERR_CORRUPT, which the fused kernel reads. */
    for (int i = 0; i < 2; ++i) {
        parsed_t s;
        s.info = i ? p.b : p.a;
        s.status = st;
        s.crc = 0u;
        s.crc_done = 0u;
        s.crc_status = GHZ_SUCCESS;
        g.seal[i] = s;
    }
    /* the call's only plain store to *d_status: every later verdict (the fused
     * kernel's) is an atomicMax (report), so none is lost */
    if (g.d_status) *g.d_status = st;
}

cudaError_t launch_homo_init(const homo_args_t& a, cudaStream_t stream)
{
    uint64_t span = (uint64_t)a.num_tiles + 32u;
    if (a.inplace && a.shift_chunks > span) span = a.shift_chunks;
    const unsigned blocks = (unsigned)((span + kThreads - 1) / kThreads);
    return launch(homo_init_kernel, blocks, kThreads, stream, a);
}

} // namespace detail
} // namespace ghz
