/* ghz/coll/bound.c: the error budget of a lossy collective (COLL.md, The guarantee):
 * |result - exact| <= K * E + rounding <= B. */
#include <float.h>
#include <math.h>

#include "ghz/coll/detail/bound.h"
#include "ghz/detail/error.h"

double coll_error_terms(ghz_algo_t algo, coll_mode_t mode, ghz_op_t op, int nranks, int final_wire, int fused_sum)
{
    const double N = nranks;
    const int minmax = op == GHZ_OP_MIN || op == GHZ_OP_MAX;
    if (nranks <= 1) return 0.0;
    if (mode == COLL_DOC && algo != GHZ_ALGO_RECURSIVE_DOUBLING) return N - 1 + (final_wire ? 1 : 0);
    if (minmax) return N; /* errors along the longest chain only */
    if ((algo == GHZ_ALGO_PAIRWISE && fused_sum) || algo == GHZ_ALGO_IPC_DIRECT || algo == GHZ_ALGO_NCCL)
        return N + 1; /* N leaves, one n-ary recompression */
    return 2 * N - 1; /* N leaves and N-1 binary recompressions (ring, tree, doubling) */
}

ghz_status_t coll_abs_bound(ghz_eb_mode_t mode, double bound, int have_range, double vmin, double vmax, double* B)
{
    const double M = have_range ? fabs(vmin) > fabs(vmax) ? fabs(vmin) : fabs(vmax) : 0.0;
    *B = 0.0; /* (bound: finite and > 0, contract.c) */
    /* one fill value would stretch the range until every ordinary value quantizes to 0 */
    if (mode == GHZ_EB_REL && M >= COLL_REL_HUGE)
        return ghz_fail(GHZ_ERR_BAD_BOUND,
                        "REL bound over values as large as %g (a fill value?): a value this large makes the "
                        "range [%g, %g], and with it the REL bound, meaningless; mask fill values, or use an "
                        "ABS bound or the exact path", M, vmin, vmax);
    *B = mode == GHZ_EB_ABS ? bound : have_range ? bound * (vmax - vmin) : 0.0;
    if (!isfinite(*B))
        return ghz_fail(GHZ_ERR_BAD_BOUND, "REL bound %g times the range [%g, %g] is not finite", bound, vmin, vmax);
    return GHZ_SUCCESS;
}

ghz_status_t coll_derive_eb(const coll_budget_in_t* in, coll_budget_t* out)
{
    const double N = in->nranks, u = in->dtype == GHZ_F32 ? ldexp(1.0, -24) : ldexp(1.0, -53); /* unit roundoff */
    const double big = in->dtype == GHZ_F32 ? FLT_MAX : DBL_MAX;
    const int minmax = in->op == GHZ_OP_MIN || in->op == GHZ_OP_MAX, avg = in->op == GHZ_OP_AVG;
    double B, M, rounding = 0.0, budget;
    ghz_status_t st;

    out->bound_abs = out->eb = out->rounding = 0.0;
    out->exact = 0;
    st = coll_abs_bound(in->mode, in->bound, in->have_range, in->vmin, in->vmax, &B);
    if (st != GHZ_SUCCESS) return st;
    M = in->have_range ? fabs(in->vmin) > fabs(in->vmax) ? fabs(in->vmin) : fabs(in->vmax) : 0.0;
    out->bound_abs = budget = B;
    if (!minmax) {
        const double Bs = avg ? N * B : B; /* AVG's budget is the sum's, N B */
        if (Bs > big / 4)
            return ghz_fail(GHZ_ERR_BAD_BOUND,
                            "bound %g (absolute %g) is too large: a sum within it could overflow %s; use a bound "
                            "below %g", in->bound, B, in->dtype == GHZ_F32 ? "float32" : "float64", big / 8 / N);
        if (N * M + Bs > big / 4)
            return ghz_fail(GHZ_ERR_OVERFLOW,
                            "a sum of %d values as large as %g may overflow %s: use the exact path or float64",
                            in->nranks, M, in->dtype == GHZ_F32 ? "float32" : "float64");
        rounding = (N - 1) * u * (N * M + Bs);
        if (avg) rounding += 3 * u * (N * M + Bs); /* the scaling by fl(1/N) */
        /* subnormal results, and this formula's own double arithmetic */
        rounding += (N + 3) * (in->dtype == GHZ_F32 ? (double)FLT_TRUE_MIN : DBL_TRUE_MIN);
        rounding *= 1.0 + 1e-6;
        budget = Bs - rounding;
    }
    out->rounding = avg ? rounding / N : rounding;
    /* one rank: the input itself; B = 0: exact is exact there (MIN, MAX, or zeros) */
    if (in->nranks <= 1 || (B == 0.0 && (minmax || M == 0.0))) {
        out->exact = 1;
        return GHZ_SUCCESS;
    }
    /* refused whichever path runs: a call's success never depends on AUTO's timings */
    if (!(budget > 0.0))
        return ghz_fail(GHZ_ERR_BAD_BOUND,
                        "bound %g (absolute %g) is below the %s rounding error of a %d-rank %s of "
                        "values up to %g (%g): use a larger bound or float64",
                        in->bound, B, in->dtype == GHZ_F32 ? "float32" : "float64", in->nranks,
                        avg ? "mean" : "sum", M, out->rounding);
    if (in->terms == 0.0) {
        out->exact = 1;
        return GHZ_SUCCESS;
    }
    out->eb = nextafter(budget / in->terms, 0.0);
    if (!(out->eb > 0.0) || !isfinite(2 * out->eb))
        return ghz_fail(GHZ_ERR_BAD_BOUND, "derived per-compression bound %g is unusable", out->eb);
    return GHZ_SUCCESS;
}
