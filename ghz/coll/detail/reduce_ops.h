/* ghz/coll/detail/reduce_ops.h: the exact element-wise reductions of the CPU backend,
 * bit for bit those of every backend (COLL.md, Exact reductions): dst is the LEFT
 * operand; integer SUM and PROD wrap; float MIN and MAX follow HOMO.md (ties keep x, a
 * NaN operand wins quieted, x's first); AVG is SUM, scaled once at the end. */
#ifndef GHZ_COLL_DETAIL_REDUCE_OPS_H
#define GHZ_COLL_DETAIL_REDUCE_OPS_H

#include "ghz/coll/coll.h"

#ifdef __cplusplus
extern "C" { /* the CUDA backend (C++) calls ghz_coll_op_check */
#endif

/* GHZ_SUCCESS where op is defined on dtype; GHZ_ERR_INVALID_ARG for an unknown one,
 * GHZ_ERR_UNSUPPORTED for an undefined pair. */
ghz_status_t ghz_coll_op_check(ghz_dtype_t dtype, ghz_op_t op);

/* dst[i] = op(dst[i], src[i]): dst == src or no overlap, any alignment; the result
 * does not depend on nthreads. */
void ghz_coll_reduce_cpu(void* dst, const void* src, size_t n, ghz_dtype_t dtype, ghz_op_t op, int nthreads);

/* buf[i] = dtype(double(buf[i]) * s), one rounding: AVG's final division. */
void ghz_coll_scale_cpu(void* buf, size_t n, ghz_dtype_t dtype, double s, int nthreads);

#ifdef __cplusplus
}
#endif

#endif
