/* ghz/coll/detail/bound.h: the error budget of a lossy collective (bound.c; COLL.md). */
#ifndef GHZ_COLL_DETAIL_BOUND_H
#define GHZ_COLL_DETAIL_BOUND_H

#include "ghz/coll/detail/algo.h"

/* K: how many compression errors (each at most E) can reach one element of the final
 * result of `algo` in `mode` for op over nranks ranks; final_wire when the result is
 * also distributed compressed (allreduce); fused_sum when the backend sums N frames in
 * one n-ary pass (else pairwise sums fold, one recompression per input). */
double coll_error_terms(ghz_algo_t algo, coll_mode_t mode, ghz_op_t op, int nranks, int final_wire,
                        int fused_sum);

/* A REL bound is refused over inputs whose magnitude reaches this (fill values:
 * bound.c, COLL.md, Limits). */
#define COLL_REL_HUGE 1e20

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

/* B, the user's bound in absolute units over the agreed range [vmin, vmax] of the
 * finite values (have_range: there are some): every call's, reductions and data
 * movement alike. GHZ_ERR_BAD_BOUND for a bound that is not finite and > 0, a REL bound
 * over values reaching COLL_REL_HUGE (fill values), or a B that is not finite. */
ghz_status_t coll_abs_bound(ghz_eb_mode_t mode, double bound, int have_range, double vmin, double vmax, double* B);

/* The largest E with terms * E + rounding <= bound_abs (COLL.md): GHZ_ERR_BAD_BOUND when
 * the rounding alone may exceed the bound, GHZ_ERR_OVERFLOW when a sum may overflow the
 * dtype. Deterministic: every rank derives the same E from the same agreed inputs. */
ghz_status_t coll_derive_eb(const coll_budget_in_t* in, coll_budget_t* out);

#endif
