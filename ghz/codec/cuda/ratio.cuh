/* ghz/codec/cuda/ratio.cuh (private): the CUDA codec of ratio frames (RATIO.md), as the
 * host API (api.cu) calls it. ratio.cu says how the work is split into kernels. */
#ifndef GHZ_CODEC_CUDA_RATIO_CUH
#define GHZ_CODEC_CUDA_RATIO_CUH

#include "ghz/codec/cuda/tile.cuh"

namespace ghz {
namespace detail {

/* One frame to write, as api.cu planned it. */
struct ratio_job {
    const uint8_t* src;
    uint8_t* dst;
    uint64_t n;
    uint64_t d[3];
    unsigned ndims;
    ghz_frame_info_t info;       /* dtype, eb_mode, eb_user, eb_abs (when known), fill of a
                                    block frame (the canonical NaN when none is declared) */
    int user_fill;               /* the caller declared info's fill: a ratio frame declares
                                    none otherwise (RATIO.md), unlike a block frame */
    const double* d_eb_abs;      /* ABS bound in device memory, or NULL */
    const ghz_range_t* d_range;  /* REL range in device memory, or NULL */
    bool rel_keys;               /* REL without a host range: the bound from range keys */
    bool scan;                   /* ... which a range pass over the values fills */
    uint64_t* d_size;
    int* d_status;
};

/* Workspace bytes of one ratio frame of n values of dtype (compress). */
size_t ratio_compress_work_bytes(ghz_dtype_t dtype, uint64_t n);

/* Enqueues the writer of one ratio frame, with the block frame of FORMAT.md written
 * instead where the ratio frame would exceed ghz_compress_bound (RATIO.md, Writer's
 * choices): the block kernels run behind a device-side gate. */
cudaError_t launch_ratio_compress(const ratio_job& j, void* d_work, int sms, cudaStream_t stream);

/* Workspace bytes the ratio reader needs per frame, for outputs of max_elems values. */
size_t ratio_decompress_work_bytes(uint64_t max_elems);

/* Enqueues the ratio reader for every chunk of the batch whose frame is a ratio frame
 * (decided on the device by decompress_init_kernel: the kernels of a block frame leave
 * at once). Runs after launch_decompress, whose init kernel parsed the headers. */
cudaError_t launch_ratio_decompress(const batch_t& b, int dtype, int sms, cudaStream_t stream);

} // namespace detail
} // namespace ghz

#endif
