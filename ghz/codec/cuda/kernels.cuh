/* ghz/codec/cuda/kernels.cuh (private): the kernel launchers the host API calls. */
#ifndef GHZ_CODEC_CUDA_KERNELS_CUH
#define GHZ_CODEC_CUDA_KERNELS_CUH

#include "ghz/codec/cuda/tile.cuh"

namespace ghz {
namespace detail {

/* Enqueues init (+ range for REL when need_range) + compress for a batch of max_tiles
 * tiles per chunk at most, total_tiles in all, on a GPU of `sms` multiprocessors.
 * Returns the first launch's error, if any (no later one is enqueued). */
template <typename T, typename U>
cudaError_t launch_compress(const batch_t& b, const ghz_frame_info_t& info, int total_tiles,
                            int max_tiles, bool need_range, int sms, cudaStream_t stream);

/* Enqueues the range pass alone: each chunk's range into *c.range_out. */
template <typename T, typename U>
cudaError_t launch_range(const batch_t& b, int has_fill, uint64_t fill_bits, int sms, cudaStream_t stream);

/* Enqueues the range pass alone over chunks whose keys (c.range) the caller
 * initialised: they are widened, nothing else is written (ratio.cu). */
template <typename T, typename U>
cudaError_t launch_range_keys(const batch_t& b, int has_fill, uint64_t fill_bits, int sms, cudaStream_t stream);

/* Enqueues init + offsets (with the checksum verification, checksum.cuh) + decode. */
template <typename T>
cudaError_t launch_decompress(const batch_t& b, int dtype, int total_tiles, int max_tiles,
                              cudaStream_t stream);

} // namespace detail
} // namespace ghz

#endif
