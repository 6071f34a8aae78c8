/* ghz/codec/cuda/kernels.cuh (private): the kernel launchers the host API calls. */
#ifndef GHZ_CODEC_CUDA_KERNELS_CUH
#define GHZ_CODEC_CUDA_KERNELS_CUH

#include "ghz/codec/cuda/tile.cuh"

namespace ghz {
namespace detail {

/* Enqueues init (+ range for REL) + compress for a batch of max_tiles tiles per chunk
 * at most, total_tiles in all. */
template <typename T, typename U>
cudaError_t launch_compress(const batch_t& b, const ghz_frame_info_t& info, int total_tiles,
                            int max_tiles, bool need_range, cudaStream_t stream);

/* Enqueues init + offsets (with the checksum verification, checksum.cuh) + decode. */
template <typename T>
cudaError_t launch_decompress(const batch_t& b, int dtype, int total_tiles, int max_tiles,
                              cudaStream_t stream);

} // namespace detail
} // namespace ghz

#endif
