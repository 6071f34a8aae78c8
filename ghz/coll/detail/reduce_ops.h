/* ghz/coll/detail/reduce_ops.h: the exact element-wise reductions of the CPU backend
 * (every ghz_op_t on every ghz_dtype_t it is defined for). Private to libghzcoll.
 *
 * Semantics, identical on every backend so that every rank and every algorithm gets the
 * same bits (COLL.md, Exact reductions):
 *  - dst[i] = op(dst[i], src[i]): dst is the LEFT operand. Algorithms fix the operand
 *    order so that results do not depend on which rank computes them.
 *  - integer SUM and PROD wrap around modulo 2^bits (computed in unsigned arithmetic,
 *    so signed overflow is never undefined behaviour), as MPI implementations do;
 *  - float SUM and PROD: one IEEE-754 operation in the dtype, no contraction;
 *  - MIN and MAX for floats follow ghz/homo (HOMO.md): min(x, y) is y when y < x, else
 *    x; max(x, y) is y when y > x, else x; if x is NaN the result is x with its quiet
 *    bit set, else if y is NaN it is y quieted. Integers: the usual order.
 *  - LAND, LOR, LXOR give 0 or 1; BAND, BOR, BXOR bitwise. Integer types only.
 *  - AVG is SUM here; the caller scales once at the end (ghz_coll_scale_cpu).
 */
#ifndef GHZ_COLL_DETAIL_REDUCE_OPS_H
#define GHZ_COLL_DETAIL_REDUCE_OPS_H

#include "ghz/coll/coll.h"

#ifdef __cplusplus
extern "C" { /* the CUDA backend (C++) calls ghz_coll_op_check */
#endif

/* GHZ_SUCCESS when op is defined on dtype (SUM/PROD/MIN/MAX on every type, AVG on
 * floats, the logical and bitwise ops on integers); GHZ_ERR_INVALID_ARG for an unknown
 * dtype or op, GHZ_ERR_UNSUPPORTED for a known pair that is not defined (detail set). */
ghz_status_t ghz_coll_op_check(ghz_dtype_t dtype, ghz_op_t op);

/* dst[i] = op(dst[i], src[i]) for i < n. dst and src may be the same pointer but must
 * not otherwise overlap. Any alignment. nthreads as ghz_comm_config_t.nthreads (OpenMP
 * used only for large n; the result does not depend on it). Assumes ghz_coll_op_check
 * passed. */
void ghz_coll_reduce_cpu(void* dst, const void* src, size_t n, ghz_dtype_t dtype, ghz_op_t op,
                         int nthreads);

/* buf[i] = dtype(double(buf[i]) * s) for a float dtype (one binary64 product, one
 * rounding to the dtype; NaN stays NaN): AVG's final division, with s = 1/size. */
void ghz_coll_scale_cpu(void* buf, size_t n, ghz_dtype_t dtype, double s, int nthreads);

#ifdef __cplusplus
}
#endif

#endif
