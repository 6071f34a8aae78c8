/* ghz/coll/detail/reduce_cuda.h: the CUDA backend's exact reductions, AVG's scaling and
 * the value range, on device buffers (private; CUDA builds; C-callable). The rules are
 * reduce_ops.h's, so a CUDA communicator gets the CPU backend's bits, except which NaN
 * an invalid float SUM or PROD gives: the hardware's (COLL.md, Exact reductions).
 *
 * Every call only enqueues on `stream`: nothing is allocated or waited for, and it can
 * be captured into a CUDA graph. GHZ_ERR_CUDA reports a failed launch of this call; a
 * kernel's own fault surfaces at the caller's next synchronisation. */
#ifndef GHZ_COLL_DETAIL_REDUCE_CUDA_H
#define GHZ_COLL_DETAIL_REDUCE_CUDA_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "ghz/errors.h"
#include "ghz/types.h"
#include "ghz/coll/coll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = op(a[i], b[i]) for i < n (a the left operand). out may be a or b (or both);
 * no other overlap. Any alignment (16-byte vectors where out, a and b share their offset
 * within 16 bytes). n == 0 launches nothing and accepts NULL. GHZ_ERR_INVALID_ARG /
 * GHZ_ERR_UNSUPPORTED for the pairs ghz_coll_op_check refuses. */
ghz_status_t ghz_coll_reduce_cuda(void* d_out, const void* d_a, const void* d_b, size_t n,
                                  ghz_dtype_t dtype, ghz_op_t op, cudaStream_t stream);

/* buf[i] = dtype(double(buf[i]) * s) for a float dtype, in place: ghz_coll_scale_cpu's
 * bits (a NaN element stays itself quieted, a NaN product of non-NaN operands is the
 * positive default NaN). */
ghz_status_t ghz_coll_scale_cuda(void* d_buf, size_t n, ghz_dtype_t dtype, double s,
                                 cudaStream_t stream);

/* The CPU backend's range: min and max over the finite values (binary64, exact), NaN
 * both when none is finite, nonfinite = 1 when some value is NaN or infinite. A zero
 * extreme may carry the other sign than the CPU's (the GPU takes -0 as the smaller). */
typedef struct {
    double vmin;
    double vmax;
    int nonfinite;
} ghz_coll_range_t;

/* The range kernel's accumulators (device memory): zero before the first call, and left
 * zero by every call's last block, so that a call is one kernel: a memset or a copy of
 * the result costs more than the scan (docs/RESULTS-coll.md, "The numbers behind
 * ghz/coll's defaults"). */
typedef struct {
    unsigned long long kmin_not; /* ~key of the least finite value so far (0: none) */
    unsigned long long kmax;     /* key of the greatest (0: none) */
    unsigned int nonfinite;
    unsigned int blocks_done;    /* which block finishes last */
} ghz_coll_range_acc_t;

/* The range of the f32 or f64 d_src[0..n) into *out (device memory, or pinned host
 * memory the device can write; 8-byte aligned; valid once the stream has passed the
 * call), with the accumulators d_acc (8-byte aligned; one call at a time). n == 0 gives
 * NaN, NaN, 0. With `copy` (memory the device can write, not overlapping d_src; NULL:
 * none) the kernel also stores every value it reads there at the same index: a staged
 * call's copy to the host and its range in one pass. */
ghz_status_t ghz_coll_range_cuda(const void* d_src, size_t n, ghz_dtype_t dtype, ghz_coll_range_acc_t* d_acc,
                                 ghz_coll_range_t* out, void* copy, cudaStream_t stream);

/* *d_first = the first nonzero of d_status[0..n) (statuses that stream-ordered codec
 * and ghz/homo calls wrote), or 0 (GHZ_SUCCESS). */
ghz_status_t ghz_coll_first_error_cuda(const int* d_status, size_t n, int* d_first, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
