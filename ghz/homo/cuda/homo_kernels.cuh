/* ghz/homo/cuda/homo_kernels.cuh (private): what the host API of ghz/homo/homo_cuda.h
 * hands to the fused kernel (binary.cu). */
#ifndef GHZ_HOMO_CUDA_HOMO_KERNELS_CUH
#define GHZ_HOMO_CUDA_HOMO_KERNELS_CUH

#include "ghz/codec/cuda/tile.cuh"

namespace ghz {
namespace detail {

/* The fused kernel's tile: kThreads threads (tile.cuh's load, store and scan helpers
 * assume that many) as kWarps warps, each warp one block at a time (warp.cuh's shape),
 * 8 blocks per warp. Its own constants: the codec's kernels moved to one thread per
 * block with 128-block tiles, which would not fit two staged inputs in shared memory. */
constexpr int kHomoBlocksPerWarp = 8;
constexpr int kHomoTileBlocks = kWarps * kHomoBlocksPerWarp;
constexpr uint64_t kHomoTileElems = 32u * kHomoTileBlocks;
template <typename T>
__host__ __device__ constexpr int homo_buffer_bytes()
{
    return kHomoTileBlocks * 32 * (int)sizeof(T) + 16 + 16;
}

/* The two headers as the init kernel checked them, and what every tile needs. */
struct homo_parsed_t {
    ghz_frame_info_t a, b;
    int status;    /* GHZ_SUCCESS or why the call fails before any block */
    int int_ok;    /* Q in the safe range: the integer path may be tried */
    int has_qfill; /* the fill value is quantizable, to qfill */
    int32_t qfill;
};

struct homo_args_t {
    const uint8_t* a;
    const uint8_t* b;
    uint8_t* out;
    uint64_t a_size, b_size, out_capacity, max_elems;
    uint64_t* d_out_size;
    int* d_status;
    homo_parsed_t* parsed;
    tile_state_t in_tiles;  /* look-back of the inputs' payload offsets (A low, B high 32 bits) */
    tile_state_t out_tiles; /* look-back of the output's payload offsets */
    int num_tiles;
    int op;
    int dtype;
};

/* Enqueues init + the fused kernel on num_tiles tiles of kHomoTileBlocks blocks. */
template <typename T>
cudaError_t launch_homo_binary(const homo_args_t& a, cudaStream_t stream);

} // namespace detail
} // namespace ghz

#endif
