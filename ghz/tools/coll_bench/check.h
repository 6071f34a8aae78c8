/* ghz/tools/coll_bench/check.h: comparing a result with the reference (ref.h).
 *
 * Exact rows (ghz exact and MPI):
 *  - integer types, every op: equal bits (all integer ops are order-independent, SUM
 *    and PROD wrapping modulo 2^bits), so ghz exact and MPI agree bit for bit;
 *  - float MIN/MAX: equal values (NaN where an input is NaN; the sign of a zero may
 *    depend on the order, so values are compared, not bits);
 *  - float SUM, AVG, PROD: |result - exact| <= (n + 2) u S, u the unit roundoff of the
 *    dtype (2^-24 float, 2^-53 double), n the rank count and S the sum of the inputs'
 *    magnitudes (SUM), that divided by n (AVG), or |exact| (PROD), plus n times the
 *    smallest subnormal for PROD's underflows. Any order of n - 1 additions is within
 *    gamma(n-1) S (Higham, Accuracy and Stability, 4.2); the two more u cover AVG's
 *    scaling and the final rounding.
 * Lossy rows: |result - exact| <= bound_abs on every element, exact in real arithmetic
 * (the reference is exact to far below the dtype's precision). */
#ifndef GHZ_TOOLS_COLL_BENCH_CHECK_H
#define GHZ_TOOLS_COLL_BENCH_CHECK_H

#include "ref.h"

typedef struct {
    uint64_t checked; /* elements compared */
    uint64_t wrong;   /* elements outside their tolerance */
    double maxerr;    /* max |result - exact| over finite references (floats) */
} cb_check_t;

/* The unit roundoff of a float dtype (0 for integers). */
double cb_unit_roundoff(ghz_dtype_t t);

/* Compares res[0, r->n) with the reference of an exact row; adds to *c. */
void cb_check_exact(const cb_ref_t* r, const void* res, cb_check_t* c);

/* Compares res[0, r->n) with the reference of a lossy row; adds to *c. */
void cb_check_lossy(const cb_ref_t* r, const void* res, double bound_abs, cb_check_t* c);

#endif
