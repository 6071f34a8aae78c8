/* ghz/coll/bound.c: the error budget of a lossy collective (COLL.md, The guarantee).
 *
 * The final result r of element i satisfies |r - exact| <= K * E + rounding, where E is
 * the absolute bound every compression uses (the codec guarantees each decoded value
 * within E of what was compressed, by its exact check), K counts the compressions whose
 * errors reach the result (coll_error_terms), and rounding bounds the floating-point
 * operations of the combines. Given the user's bound B, the library picks the largest
 * E with K * E + rounding <= B, the same on every rank (all inputs of the formula are
 * agreed), or refuses when the rounding alone can exceed B. */
#include <float.h>
#include <math.h>

#include "ghz/coll/detail/bound.h"
#include "ghz/detail/error.h"

double coll_error_terms(ghz_algo_t algo, coll_mode_t mode, ghz_op_t op, int nranks, int final_wire,
                        int fused_sum)
{
    const double N = nranks;
    const int minmax = op == GHZ_OP_MIN || op == GHZ_OP_MAX;
    if (nranks <= 1) return 0.0; /* one rank: the result is its input, nothing is compressed */
    if (mode == COLL_DOC && algo != GHZ_ALGO_RECURSIVE_DOUBLING)
        /* a chain of N-1 compressions of partials (ring), or the N-1 other ranks'
         * contributions compressed once each (pairwise), or each non-root rank's partial
         * compressed once (binomial); plus the final frames of an allgather */
        return N - 1 + (final_wire ? 1 : 0);
    if (minmax)
        /* the leaves' errors do not add up under min and max (|min a' - min a| <= max
         * |a' - a|): one E for every leaf, one per recompression on the longest chain
         * (at most N-1 in every algorithm here) */
        return N;
    if ((algo == GHZ_ALGO_PAIRWISE && fused_sum) || algo == GHZ_ALGO_IPC_DIRECT || algo == GHZ_ALGO_NCCL)
        return N + 1; /* N leaves, one n-ary recompression */
    return 2 * N - 1; /* N leaves and N-1 binary recompressions (ring, tree, doubling) */
}

/* Unit roundoff of the dtype's arithmetic. */
static double unit_roundoff(ghz_dtype_t t)
{
    return t == GHZ_F32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
}

ghz_status_t coll_abs_bound(ghz_eb_mode_t mode, double bound, int have_range, double vmin, double vmax, double* B)
{
    /* M: the largest magnitude of a finite input on any rank (0 when there is none) */
    const double M = have_range ? fabs(vmin) > fabs(vmax) ? fabs(vmin) : fabs(vmax) : 0.0;
    *B = 0.0;
    if (!(bound > 0.0) || !isfinite(bound))
        return ghz_fail(GHZ_ERR_BAD_BOUND, "bound %g: must be finite and > 0", bound);
    /* A REL bound scales with the range, and one huge value (a fill value such as netCDF's
     * 9.97e36 or -1e34, CF's 1e20) stretches it until the bound covers the real data
     * many times over: the call would succeed with every ordinary value quantized to
     * zero. Refuse where any magnitude reaches COLL_REL_HUGE: no physical field measured
     * in float reaches it, the common fill values all do. */
    if (mode == GHZ_EB_REL && M >= COLL_REL_HUGE)
        return ghz_fail(GHZ_ERR_BAD_BOUND,
                        "REL bound over values as large as %g (a fill value?): a value this large makes the "
                        "range [%g, %g], and with it the REL bound, meaningless; mask fill values, or use an "
                        "ABS bound or the exact path",
                        M, vmin, vmax);
    *B = mode == GHZ_EB_ABS ? bound : have_range ? bound * (vmax - vmin) : 0.0;
    if (!isfinite(*B))
        return ghz_fail(GHZ_ERR_BAD_BOUND, "REL bound %g times the range [%g, %g] is not finite", bound, vmin, vmax);
    return GHZ_SUCCESS;
}

ghz_status_t coll_derive_eb(const coll_budget_in_t* in, coll_budget_t* out)
{
    const double N = in->nranks, u = unit_roundoff(in->dtype);
    const double big = in->dtype == GHZ_F32 ? FLT_MAX : DBL_MAX;
    const int minmax = in->op == GHZ_OP_MIN || in->op == GHZ_OP_MAX, avg = in->op == GHZ_OP_AVG;
    double B, M, rounding = 0.0, budget;
    ghz_status_t st;

    out->bound_abs = 0.0;
    out->eb = 0.0;
    out->rounding = 0.0;
    out->exact = 0;
    st = coll_abs_bound(in->mode, in->bound, in->have_range, in->vmin, in->vmax, &B);
    if (st != GHZ_SUCCESS) return st;
    M = in->have_range ? fabs(in->vmin) > fabs(in->vmax) ? fabs(in->vmin) : fabs(in->vmax) : 0.0;
    out->bound_abs = B;
    if (!minmax) {
        /* Sums: every partial result is at most N*M + N*B in magnitude (N*B covers the
         * errors carried, which never exceed the final budget, scaled by N for AVG's
         * sum-level budget). Overflow would break the model: refuse. */
        const double Bs = avg ? N * B : B;
        if (Bs > big / 4)
            return ghz_fail(GHZ_ERR_BAD_BOUND,
                            "bound %g (absolute %g) is too large: a sum within it could overflow %s; use a bound "
                            "below %g",
                            in->bound, B, in->dtype == GHZ_F32 ? "float32" : "float64", big / 8 / N);
        if (N * M + Bs > big / 4)
            return ghz_fail(GHZ_ERR_OVERFLOW,
                            "a sum of %d values as large as %g may overflow %s: use the exact path "
                            "or float64",
                            in->nranks, M, in->dtype == GHZ_F32 ? "float32" : "float64");
        /* (N-1) additions, each rounding by at most u times its result. */
        rounding = (N - 1) * u * (N * M + Bs);
        /* AVG: the final scaling by fl(1/N) and its rounding: 3u of |sum| / N. */
        if (avg) rounding += 3 * u * (N * M + Bs);
        /* Subnormal results round by an absolute amount instead; and the double
         * arithmetic of this very formula. */
        rounding += (N + 3) * (in->dtype == GHZ_F32 ? (double)FLT_TRUE_MIN : DBL_TRUE_MIN);
        rounding *= 1.0 + 1e-6;
        budget = Bs - rounding;
    } else {
        budget = B;
    }
    out->rounding = avg ? rounding / N : rounding;
    if (in->nranks <= 1) {
        /* One rank: the result is the input itself, exactly. */
        out->exact = 1;
        return GHZ_SUCCESS;
    }
    if (B == 0.0 && (minmax || M == 0.0)) {
        /* A REL bound over an empty or zero range: only exact will do, and exact is
         * exact here (MIN/MAX select an input; a sum of zeros is zero). */
        out->exact = 1;
        return GHZ_SUCCESS;
    }
    /* The exact path too (terms 0, which AUTO chooses by speed): its error is the
     * rounding alone, so a bound below the rounding is refused whichever path would
     * run, and a call's success never depends on AUTO's timings. */
    if (!(budget > 0.0))
        return ghz_fail(GHZ_ERR_BAD_BOUND,
                        "bound %g (absolute %g) is below the %s rounding error of a %d-rank %s of "
                        "values up to %g (%g): use a larger bound or float64",
                        in->bound, B, in->dtype == GHZ_F32 ? "float32" : "float64", in->nranks,
                        avg ? "mean" : "sum", M, out->rounding);
    if (in->terms == 0.0) {
        /* Nothing is compressed: exact, within the budget (above). */
        out->exact = 1;
        return GHZ_SUCCESS;
    }
    out->eb = nextafter(budget / in->terms, 0.0);
    if (!(out->eb > 0.0) || !isfinite(2 * out->eb))
        return ghz_fail(GHZ_ERR_BAD_BOUND, "derived per-compression bound %g is unusable", out->eb);
    return GHZ_SUCCESS;
}
