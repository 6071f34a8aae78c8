/* ghz/coll/detail/bound.h: the error budget of a lossy collective (bound.c; COLL.md). */
#ifndef GHZ_COLL_DETAIL_BOUND_H
#define GHZ_COLL_DETAIL_BOUND_H

#include "ghz/coll/detail/algo.h"

/* K (COLL.md, K for each algorithm and path); final_wire: the result is sent compressed
 * too; fused_sum: the backend sums N frames in one n-ary pass. */
double coll_error_terms(ghz_algo_t algo, coll_mode_t mode, ghz_op_t op, int nranks, int final_wire, int fused_sum);

#define COLL_REL_HUGE 1e20 /* a REL bound is refused over inputs this large (fill values: COLL.md, Limits) */

typedef struct {
    ghz_dtype_t dtype;
    ghz_op_t op;           /* SUM, AVG, MIN or MAX */
    int nranks;
    ghz_eb_mode_t mode;    /* the user's accuracy */
    double bound;
    int have_range;        /* some rank has a finite value */
    double vmin, vmax;     /* over the finite values of every rank (agreed) */
    double terms;          /* coll_error_terms */
} coll_budget_in_t;

typedef struct {
    double bound_abs;      /* the user's bound in absolute units */
    double eb;             /* E for every compression */
    double rounding;       /* the rounding allowance inside bound_abs */
    int exact;             /* nothing to compress: run exact (still within the bound) */
} coll_budget_t;

/* B, the bound in absolute units over the agreed range of the finite values (have_range:
 * there are some), every call's; GHZ_ERR_BAD_BOUND where it is unusable. */
ghz_status_t coll_abs_bound(ghz_eb_mode_t mode, double bound, int have_range, double vmin, double vmax, double* B);

/* The largest E with terms * E + rounding <= bound_abs (COLL.md, The guarantee), the
 * same on every rank from the same agreed inputs. */
ghz_status_t coll_derive_eb(const coll_budget_in_t* in, coll_budget_t* out);

#endif
