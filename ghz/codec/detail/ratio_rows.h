/* ghz/codec/detail/ratio_rows.h (private): predictions and contexts of a run of
 * elements of one pass that share a row (the CPU writer's and reader's inner loop).
 * Same values as ghz_ratio_predict / ghz_ratio_context element by element (it is
 * built from the same formulas of ratio.h); it only hoists what is constant along a
 * row: the storage step, and, for passes along axes 1 and 2, which neighbours exist. */
#ifndef GHZ_CODEC_DETAIL_RATIO_ROWS_H
#define GHZ_CODEC_DETAIL_RATIO_ROWS_H

#include "ghz/codec/ratio.h"

/* A run: m elements of pass ps starting at pass coordinates (i0, i1, i2), i0 + m <=
 * count[0]. Writes idx[k], pred[k], ctx[k]. */
#define GHZ_RATIO_ROW_FN(NAME, T)                                                               \
    static inline void NAME(const T* X, const ghz_ratio_pass_t* ps, const uint64_t d[3],        \
                            unsigned cubic, double r, uint64_t i0, uint64_t i1, uint64_t i2,     \
                            uint64_t m, uint64_t* idx, double* pred, uint8_t* ctx)               \
    {                                                                                           \
        const unsigned a = ps->axis;                                                            \
        const uint64_t stride = a == 0 ? 1 : a == 1 ? d[0] : d[0] * d[1];                       \
        const uint64_t off = ps->s * stride, step = ps->step[0];                                \
        const uint64_t c1 = ps->first[1] + ps->step[1] * i1, c2 = ps->first[2] + ps->step[2] * i2; \
        uint64_t i = ps->first[0] + step * i0 + d[0] * (c1 + d[1] * c2), k;                     \
        if (a != 0) {                                                                           \
            const uint64_t t = a == 1 ? c1 : c2, s = ps->s, n = d[a];                          \
            const int has_c = t + s < n, has_u = cubic && t >= 3 * s, has_v = cubic && t + 3 * s < n; \
            if (!has_c) {                                                                       \
                for (k = 0; k < m; ++k, i += step) {                                            \
                    idx[k] = i;                                                                 \
                    pred[k] = ghz_ratio_finite((double)X[i - off]);                             \
                    ctx[k] = (uint8_t)(GHZ_RATIO_NCTX - 1u);                                     \
                }                                                                               \
            } else if (has_u && has_v) {                                                        \
                for (k = 0; k < m; ++k, i += step) {                                            \
                    const double b = X[i - off], c = X[i + off];                                \
                    idx[k] = i;                                                                 \
                    pred[k] = ghz_ratio_cubic(X[i - 3 * off], b, c, X[i + 3 * off]);            \
                    ctx[k] = (uint8_t)ghz_ratio_ctx_of(b, c, r);                                \
                }                                                                               \
            } else {                                                                            \
                for (k = 0; k < m; ++k, i += step) {                                            \
                    const double b = X[i - off], c = X[i + off];                                \
                    idx[k] = i;                                                                 \
                    pred[k] = has_u   ? ghz_ratio_quad_u(X[i - 3 * off], b, c)                  \
                              : has_v ? ghz_ratio_quad_v(b, c, X[i + 3 * off])                  \
                                      : ghz_ratio_linear(b, c);                                 \
                    ctx[k] = (uint8_t)ghz_ratio_ctx_of(b, c, r);                                \
                }                                                                               \
            }                                                                                   \
        } else {                                                                                \
            for (k = 0; k < m; ++k, i += step) {                                                \
                const uint64_t t = ps->first[0] + step * (i0 + k);                              \
                idx[k] = i;                                                                     \
                pred[k] = ghz_ratio_predict(X, sizeof(T) == 4, i, t, ps->s, 1, d[0], cubic);    \
                ctx[k] = (uint8_t)ghz_ratio_context(X, sizeof(T) == 4, i, t, ps->s, 1, d[0], r); \
            }                                                                                   \
        }                                                                                       \
    }

GHZ_RATIO_ROW_FN(ghz_ratio_row_f32, float)
GHZ_RATIO_ROW_FN(ghz_ratio_row_f64, double)

/* Predictions and contexts of the K elements of a pass from pass coordinates
 * (*i0, *i1, *i2) on, in the pass's order; advances the coordinates past them. */
static inline void ghz_ratio_rows(const void* X, int is_f32, const ghz_ratio_pass_t* ps,
                                  const uint64_t d[3], unsigned cubic, double r, uint64_t* i0,
                                  uint64_t* i1, uint64_t* i2, uint64_t K, uint64_t* idx,
                                  double* pred, uint8_t* ctx)
{
    uint64_t j = 0;
    while (j < K) {
        uint64_t m = ps->count[0] - *i0;
        if (m > K - j) m = K - j;
        if (is_f32)
            ghz_ratio_row_f32((const float*)X, ps, d, cubic, r, *i0, *i1, *i2, m, idx + j, pred + j, ctx + j);
        else
            ghz_ratio_row_f64((const double*)X, ps, d, cubic, r, *i0, *i1, *i2, m, idx + j, pred + j, ctx + j);
        j += m;
        *i0 += m;
        if (*i0 == ps->count[0]) {
            *i0 = 0;
            if (++*i1 == ps->count[1]) {
                *i1 = 0;
                ++*i2;
            }
        }
    }
}

#endif
