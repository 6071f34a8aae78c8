/* ghz/codec/detail/ratio_rows.h (private): a pass's elements as runs that share their
 * neighbours' layout, for the CPU writer's and reader's inner loops. Along a row of a
 * pass the storage step between elements and the distance to their neighbours are
 * constant, and which neighbours exist (RATIO.md, Prediction) changes only at the
 * row's ends (passes along axis 0) or not at all (axes 1 and 2); so each row is at most
 * four runs of one kind, and the loops over a run pick the formula once, not per
 * element. The values are those of ghz_ratio_predict and ghz_ratio_context, built from
 * the same formulas of ratio.h. */
#ifndef GHZ_CODEC_DETAIL_RATIO_ROWS_H
#define GHZ_CODEC_DETAIL_RATIO_ROWS_H

#include "ghz/codec/ratio.h"

/* Which neighbours an element has: b always; c unless NOC; u and v as named. */
enum { GHZ_RK_NOC, GHZ_RK_LIN, GHZ_RK_CUBIC, GHZ_RK_QU, GHZ_RK_QV };

/* The kind of the element at coordinate t along an axis of extent n (stride s). */
static inline unsigned ghz_ratio_kind(uint64_t t, uint64_t s, uint64_t n, unsigned cubic)
{
    const int has_u = cubic && t >= 3 * s, has_v = cubic && t + 3 * s < n;
    if (t + s >= n) return GHZ_RK_NOC;
    return has_u && has_v ? GHZ_RK_CUBIC : has_u ? GHZ_RK_QU : has_v ? GHZ_RK_QV : GHZ_RK_LIN;
}

/* A run: m elements at storage indices i, i + step, ..., all of one kind; their
 * neighbours t -/+ s lie off elements away in storage. */
typedef struct {
    uint64_t i, m;
    unsigned kind;
} ghz_ratio_run_t;

/* The storage step along a pass's rows and the storage distance to the neighbours. */
static inline void ghz_ratio_pass_steps(const ghz_ratio_pass_t* ps, const uint64_t d[3], uint64_t* step,
                                        uint64_t* off)
{
    const uint64_t stride = ps->axis == 0 ? 1 : ps->axis == 1 ? d[0] : d[0] * d[1];
    *step = ps->step[0];
    *off = ps->s * stride;
}

/* The runs of row (i1, i2) of pass ps, in storage order; returns how many (1 to 4).
 * Along axis 0, element j of the row sits at t = s + 2 s j: j = 0 has no u, and the
 * last two may lack v or c; every j in [1, count - 2) has u, c and v (its t + 3s is
 * at most the row's last t, below d[0]). */
static inline unsigned ghz_ratio_row_runs(const ghz_ratio_pass_t* ps, const uint64_t d[3], unsigned cubic,
                                          uint64_t i1, uint64_t i2, ghz_ratio_run_t run[4])
{
    const uint64_t c1 = ps->first[1] + ps->step[1] * i1, c2 = ps->first[2] + ps->step[2] * i2;
    const uint64_t i = ps->first[0] + d[0] * (c1 + d[1] * c2), C = ps->count[0], s = ps->s;
    uint64_t cut[5], j;
    unsigned k = 0, r;
    if (ps->axis != 0) {
        run[0].i = i;
        run[0].m = C;
        run[0].kind = ghz_ratio_kind(ps->axis == 1 ? c1 : c2, s, d[ps->axis], cubic);
        return 1;
    }
    /* cut points: 0, 1, C - 2, C - 1, C, kept increasing */
    cut[k++] = 0;
    for (r = 0; r < 3; ++r) {
        j = r == 0 ? 1 : C >= 3 - r ? C - (3 - r) : 0;
        if (j > cut[k - 1] && j < C) cut[k++] = j;
    }
    cut[k++] = C;
    for (r = 0; r + 1 < k; ++r) {
        run[r].i = i + ps->step[0] * cut[r];
        run[r].m = cut[r + 1] - cut[r];
        run[r].kind = ghz_ratio_kind(s + 2 * s * cut[r], s, d[0], cubic);
    }
    return k - 1;
}

/* The prediction *p and context *cx of the element at storage index i of a run of
 * kind K (a constant where the loops call it, so the branches fold away). */
#define GHZ_RATIO_RUN_PREDICT(K, X, i, off, r, p, cx)                                           \
    do {                                                                                        \
        const double b_ = (double)(X)[(i) - (off)];                                             \
        if ((K) == GHZ_RK_NOC) {                                                                \
            (p) = ghz_ratio_finite(b_);                                                         \
            (cx) = GHZ_RATIO_NCTX - 1u;                                                         \
        } else {                                                                                \
            const double c_ = (double)(X)[(i) + (off)];                                         \
            (p) = (K) == GHZ_RK_CUBIC ? ghz_ratio_cubic((double)(X)[(i) - 3 * (off)], b_, c_,   \
                                                        (double)(X)[(i) + 3 * (off)])           \
                  : (K) == GHZ_RK_QU  ? ghz_ratio_quad_u((double)(X)[(i) - 3 * (off)], b_, c_)  \
                  : (K) == GHZ_RK_QV  ? ghz_ratio_quad_v(b_, c_, (double)(X)[(i) + 3 * (off)])  \
                                      : ghz_ratio_linear(b_, c_);                               \
            (cx) = ghz_ratio_ctx_of(b_, c_, (r));                                               \
        }                                                                                       \
    } while (0)

/* Runs BODY(K, T) with K the run's kind as a constant (T: the dtype). */
#define GHZ_RATIO_BY_KIND(kind, BODY, T)              \
    switch (kind) {                                   \
    case GHZ_RK_NOC: BODY(GHZ_RK_NOC, T); break;      \
    case GHZ_RK_LIN: BODY(GHZ_RK_LIN, T); break;      \
    case GHZ_RK_CUBIC: BODY(GHZ_RK_CUBIC, T); break;  \
    case GHZ_RK_QU: BODY(GHZ_RK_QU, T); break;        \
    default: BODY(GHZ_RK_QV, T); break;               \
    }

/* The writer and the reader handle a run in blocks of at most GHZ_RATIO_BLOCK elements:
 * the predictions and contexts of the block first, then its codes (two short loops,
 * each of one kind of work, run faster than one loop doing both). */
#define GHZ_RATIO_BLOCK 256u

/* The predictions p[e] and contexts cx[e] of the nb elements at storage indices i,
 * i + step, ... of a run of kind `kind` of reconstructions X. */
#define GHZ_RATIO_PREDICT_LOOP(K, T)                                                         \
    for (e = 0; e < nb; ++e, i += step) GHZ_RATIO_RUN_PREDICT(K, X, i, off, r, p[e], cx[e]);
#define GHZ_RATIO_PREDICT_FN(NAME, T)                                                        \
    static inline void NAME(const T* X, uint64_t i, uint64_t step, uint64_t off, unsigned kind, \
                            uint64_t nb, double r, double* p, uint8_t* cx)                   \
    {                                                                                        \
        uint64_t e;                                                                          \
        GHZ_RATIO_BY_KIND(kind, GHZ_RATIO_PREDICT_LOOP, T)                                   \
    }
GHZ_RATIO_PREDICT_FN(ghz_ratio_predict_f32, float)
GHZ_RATIO_PREDICT_FN(ghz_ratio_predict_f64, double)

/* What the writer and the reader do with a block: nb elements at storage indices i,
 * i + step, ..., of predictions p[e] and contexts cx[e]; nonzero stops the pass. */
typedef int (*ghz_ratio_block_fn)(void* arg, uint64_t i, uint64_t step, const double* p, const uint8_t* cx,
                                  uint64_t nb);

/* Calls fn on the elements k0 <= k < k1 (in pass order) of pass ps (cubic or linear),
 * block by block, with the predictions and contexts from the reconstructions X (dtype
 * f32 or f64). Returns 0, or fn's nonzero value. */
static inline int ghz_ratio_pass_range(const ghz_ratio_pass_t* ps, const uint64_t d[3], unsigned cubic,
                                       const void* X, int is_f32, double r, uint64_t k0, uint64_t k1,
                                       ghz_ratio_block_fn fn, void* arg)
{
    double p[GHZ_RATIO_BLOCK];
    uint8_t cx[GHZ_RATIO_BLOCK];
    const uint64_t C = ps->count[0];
    uint64_t i1, i2, k = k0, skip, step, off;
    if (k0 >= k1) return 0;
    ghz_ratio_pass_steps(ps, d, &step, &off);
    skip = k0 % C;
    i1 = k0 / C % ps->count[1];
    i2 = k0 / C / ps->count[1];
    while (k < k1) { /* row (i1, i2), from element `skip` on */
        ghz_ratio_run_t run[4];
        const unsigned nr = ghz_ratio_row_runs(ps, d, cubic, i1, i2, run);
        unsigned g;
        for (g = 0; g < nr && k < k1; ++g) {
            uint64_t i = run[g].i, m = run[g].m;
            if (skip >= m) {
                skip -= m;
                continue;
            }
            i += skip * step;
            m -= skip;
            skip = 0;
            if (m > k1 - k) m = k1 - k;
            while (m) {
                const uint64_t nb = m < GHZ_RATIO_BLOCK ? m : GHZ_RATIO_BLOCK;
                int rc;
                if (is_f32)
                    ghz_ratio_predict_f32((const float*)X, i, step, off, run[g].kind, nb, r, p, cx);
                else
                    ghz_ratio_predict_f64((const double*)X, i, step, off, run[g].kind, nb, r, p, cx);
                if ((rc = fn(arg, i, step, p, cx, nb)) != 0) return rc;
                m -= nb;
                i += nb * step;
                k += nb;
            }
        }
        skip = 0;
        if (++i1 == ps->count[1]) {
            i1 = 0;
            ++i2;
        }
    }
    return 0;
}

/* The whole pass. */
static inline int ghz_ratio_pass_blocks(const ghz_ratio_pass_t* ps, const uint64_t d[3], unsigned cubic,
                                        const void* X, int is_f32, double r, ghz_ratio_block_fn fn, void* arg)
{
    return ghz_ratio_pass_range(ps, d, cubic, X, is_f32, r, 0, ps->points, fn, arg);
}

#endif
