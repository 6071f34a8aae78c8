/* ghz/coll/detail/reduce_cuda.h: the exact element-wise reductions of the CUDA backend
 * (private to libghzcoll; CUDA builds only). C-callable.
 *
 * Semantics: exactly those of reduce_ops.h, on device buffers, so that a CUDA
 * communicator gets the CPU backend's bits: a is the LEFT operand; integer SUM and
 * PROD wrap (unsigned arithmetic); float MIN and MAX pick and quiet NaNs as HOMO.md
 * says; LAND, LOR, LXOR give 0 or 1; AVG is SUM (scale once at the end). Float SUM and
 * PROD are one IEEE operation in the dtype, rounded to nearest, never contracted; as on
 * the CPU (COLL.md, Exact reductions), which NaN a NaN result carries is the
 * hardware's: the GPU gives its canonical NaN, the CPU an operand's or its default.
 *
 * Every call is stream-ordered: it enqueues on `stream` and returns. Nothing is
 * allocated, nothing waits; each call captures into a CUDA graph. GHZ_ERR_CUDA reports
 * only a failure of this call's own launch (its text in the detail); faults of the
 * kernel itself surface at the caller's next synchronisation, as for any kernel.
 */
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

/* out[i] = op(a[i], b[i]) for i < n, on device memory. out may be a or b (or both);
 * no other overlap. Any alignment: 16-byte vectors when out, a and b share their
 * offset within 16 bytes and are element-aligned, elements one by one otherwise.
 * n == 0 launches nothing (NULL pointers accepted then). GHZ_ERR_INVALID_ARG /
 * GHZ_ERR_UNSUPPORTED for the pairs ghz_coll_op_check refuses. */
ghz_status_t ghz_coll_reduce_cuda(void* d_out, const void* d_a, const void* d_b, size_t n,
                                  ghz_dtype_t dtype, ghz_op_t op, cudaStream_t stream);

/* buf[i] = dtype(double(buf[i]) * s) for a float dtype, in place on device memory: one
 * binary64 product, one rounding to the dtype; a NaN element stays itself quieted, a
 * NaN product of non-NaN operands is the positive default NaN (ghz_coll_scale_cpu's
 * bits). AVG's final division, with s = 1/size. */
ghz_status_t ghz_coll_scale_cuda(void* d_buf, size_t n, ghz_dtype_t dtype, double s,
                                 cudaStream_t stream);

/* The range of a float array in device memory, as the CPU backend's `range` entry
 * computes it: min and max over the finite values (binary64, exact), NaN both when no
 * value is finite, and nonfinite = 1 when some value is NaN or infinite. -0 and +0
 * compare equal here as on the CPU, but which of the two a zero extreme carries differs
 * (the CPU keeps the first it meets, the GPU takes -0 as the smaller): the values are
 * equal, their bits may not be. */
typedef struct {
    double vmin;
    double vmax;
    int nonfinite;
} ghz_coll_range_t;

/* The range kernel's accumulators, in device memory: zero before the first call (one
 * cudaMemset when they are allocated), and zero again after every call, which the
 * kernel's last block leaves so, so that a call is one kernel and nothing else: no
 * memset of its own, and no copy of the result where `out` is pinned host memory.
 * (The memset and the result's copy, each a stream operation of a few us, would cost
 * more than the scan itself: docs/RESULTS-coll.md, "The numbers behind ghz/coll's
 * defaults".) */
typedef struct {
    unsigned long long kmin_not; /* ~key of the least finite value so far (0: none) */
    unsigned long long kmax;     /* key of the greatest (0: none) */
    unsigned int nonfinite;
    unsigned int blocks_done;    /* which block finishes last */
} ghz_coll_range_acc_t;

/* Computes the range of d_src[0..n) into *out (device memory, or pinned host memory the
 * device can write; 8-byte aligned; valid once the stream has passed the call) with the
 * accumulators d_acc (device memory, 8-byte aligned; one call at a time on them): one
 * kernel on `stream`, which may be captured into a CUDA graph and replayed. dtype
 * GHZ_F32 or GHZ_F64. n == 0 gives NaN, NaN, 0. With `copy` (NULL: none; memory the
 * device can write, such as mapped pinned host memory, not overlapping d_src) the kernel
 * also writes every value it reads there, at the same index: a staged call's copy to
 * the host and its range in one pass (16-byte stores where copy sits at d_src's offset
 * within 16 bytes, else element or byte stores). */
ghz_status_t ghz_coll_range_cuda(const void* d_src, size_t n, ghz_dtype_t dtype, ghz_coll_range_acc_t* d_acc,
                                 ghz_coll_range_t* out, void* copy, cudaStream_t stream);

/* *d_first = the first nonzero of d_status[0..n) (statuses that stream-ordered codec
 * and ghz/homo calls wrote), or 0 (GHZ_SUCCESS): one small kernel on `stream`. */
ghz_status_t ghz_coll_first_error_cuda(const int* d_status, size_t n, int* d_first, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
