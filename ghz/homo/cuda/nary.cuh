/* ghz/homo/cuda/nary.cuh (private): what the host API hands to the k-input kernels of
 * ghz/homo (nary.cu: the n-ary sum, the batched and the in-place binary operations) and
 * to the kernels that run before them (nary_prep.cu).
 *
 * One launch serves up to kNaryMaxJobs jobs; a job combines k inputs (k >= 1, up to
 * kNaryMaxInputs over all jobs of a launch) into one output frame. The input and job
 * tables travel as a kernel parameter (under the 4 KB that every architecture accepts),
 * what the kernels derive goes to the workspace. */
#ifndef GHZ_HOMO_CUDA_NARY_CUH
#define GHZ_HOMO_CUDA_NARY_CUH

#include "ghz/codec/cuda/tile.cuh"
#include "ghz/codec/detail/header.h"
#include "ghz/homo/cuda/shift.cuh"

namespace ghz {
namespace detail {

constexpr int kNaryMaxInputs = 64; /* GHZ_CUDA_HOMO_MAX_INPUTS */
constexpr int kNaryMaxJobs = 32;
/* Elements of the smallest tile of nary.cu (f64: 64 blocks), which sizes workspaces. */
constexpr uint64_t kNaryTileElems = 2048;

struct nary_in_t {
    const uint8_t* data;
    uint64_t n; /* readable bytes (the capacity when d_size holds the size) */
    const uint64_t* d_size;
};

struct nary_job_t {
    uint8_t* out;
    uint64_t out_capacity;
    uint64_t* d_out_size;
    int* d_status;
    int in0, k;  /* inputs in0 .. in0 + k - 1 of the table */
    int inplace; /* out is input in0's memory (HOMO.md, In place) */
};

/* Per input, written by the init kernel: the header as checked (p.info, p.status; p.crc*
 * for checksum.cuh), where the frame is (src: moved for in place) and its code bytes
 * (codes: src + header, or the copy made before an in-place output can cover them). */
struct nary_in_state_t {
    parsed_t p;
    const uint8_t* src;
    const uint8_t* codes;
};

/* Per job, written by the init kernel. */
struct nary_job_state_t {
    ghz_frame_info_t info; /* of input in0 */
    int status;            /* GHZ_SUCCESS or why the job fails before any block */
    int int_ok;            /* Q in the safe range: the integer path may be tried */
    int has_qfill;         /* the fill value is quantizable, to qfill */
    int32_t qfill;
};

struct nary_launch_t {
    nary_in_t in[kNaryMaxInputs];
    nary_job_t job[kNaryMaxJobs];
    int n_in, n_jobs;
    int op, dtype;
    uint64_t max_elems;
    int tiles;  /* per frame, in tiles of the kernel's dtype */
    int groups; /* offset groups per input (tile_offsets.cuh) */
    nary_in_state_t* in_state;
    nary_job_state_t* job_state;
    char* in_lb; /* look-back of each input's offsets pass, in_lb_stride bytes apart */
    size_t in_lb_stride;
    offset_t* offsets; /* each input's tile offsets, off_stride entries apart */
    size_t off_stride;
    char* out_lb; /* look-back of each job's output, out_lb_stride bytes apart */
    size_t out_lb_stride;
    unsigned* shift_flags; /* in place: one per kShiftBytes chunk of the moved frame */
    uint8_t* codes_copy;   /* in place: input in0's code bytes, copied aside */
    unsigned shift_chunks;
    unsigned crc_ctas; /* checksum CTAs per input in the offsets kernel */
};

/* A look-back status array of `tiles` tiles at mem, as the kernels see it. */
__device__ __forceinline__ tile_state_t nary_lookback(char* mem, size_t bytes, int tiles)
{
    tile_state_t s;
    s.Init(tiles, mem, bytes);
    return s;
}

/* Enqueues init (and, for in place, the shift), the offsets pass and the kernel of
 * dtype T for the jobs of g. */
template <typename T>
cudaError_t launch_homo_nary(nary_launch_t& g, cudaStream_t stream);

/* The kernels before the combining one (nary_prep.cu), for tiles of TileBlocks blocks
 * of elem-byte values; g.tiles and g.groups set. */
template <unsigned TileBlocks>
cudaError_t launch_nary_prep(const nary_launch_t& g, unsigned elem, cudaStream_t stream);

} // namespace detail
} // namespace ghz

#endif
