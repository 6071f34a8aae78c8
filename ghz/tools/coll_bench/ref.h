/* ghz/tools/coll_bench/ref.h: the exact reduction, computed by each rank on its own
 * from the regenerated input of every rank (data.h), independently of ghz and MPI. */
#ifndef GHZ_TOOLS_COLL_BENCH_REF_H
#define GHZ_TOOLS_COLL_BENCH_REF_H

#include "data.h"

typedef struct {
    size_t first, n;  /* the reference covers result elements [first, first + n) */
    ghz_dtype_t dtype;
    ghz_op_t op;
    int nranks;
    void* bits;       /* integer dtypes: the exact result in the dtype (wrapping as
                         MPI and ghz do) */
    double* hi;       /* float dtypes: the exact result is hi + lo (lo only for f64: */
    double* lo;       /* double alone would round an f64 reference by half an ulp) */
    double* scale;    /* float SUM/AVG/PROD: what the rounding tolerance of an exact
                         result scales with (check.h) */
    size_t cap;       /* elements allocated */
} cb_ref_t;

/* Computes the reference for elements [first, first + n) of op over nranks ranks'
 * inputs. Floating point: SUM and AVG in long double with Neumaier's compensated
 * summation, PROD in long double, MIN/MAX exact (NaN wins, as in ghz). Arrays are
 * reused across calls and grow when needed. Returns 0, or -1 when out of memory. */
int cb_ref_compute(cb_ref_t* r, const cb_data_t* d, ghz_dtype_t dtype, ghz_op_t op, int nranks,
                   size_t first, size_t n);
void cb_ref_free(cb_ref_t* r);

#endif
