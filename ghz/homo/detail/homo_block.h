/* ghz/homo/detail/homo_block.h (private): the element-level rules of HOMO.md as
 * inline code that the CPU reference and a GPU kernel can share: DOC's value of one
 * position (with the NaN rules), and the test that decides whether the integer path
 * gives DOC's integer there. */
#ifndef GHZ_HOMO_DETAIL_HOMO_BLOCK_H
#define GHZ_HOMO_DETAIL_HOMO_BLOCK_H

#include <stdint.h>
#include <string.h>

#include "ghz/codec/block.h"
#include "ghz/homo/homo.h"

/* Operations of the engine: the public binary ones, and the unary ones. */
enum { GHZ_HOP_NEG = 5, GHZ_HOP_MUL = 6 };

/* Error-unit limits L of HOMO.md (the integer path needs U <= L). */
#define GHZ_HOMO_LIMIT_F32 ((int64_t)1 << 21)
#define GHZ_HOMO_LIMIT_F64 ((int64_t)1 << 50)

/* HOMO.md, "safe range" of Q for the integer path. */
GHZ_HD static inline int ghz_homo_q_safe(double q, int is_f32)
{
    return is_f32 ? (q >= 0x1p-100 && q <= 0x1p95) : (q >= 0x1p-960 && q <= 0x1p960);
}

/* ---- DOC's value of one position (HOMO.md, DOC step 2) --------------------------- */

GHZ_HD static inline int ghz_homo_nan32(uint32_t u)
{
    return (u & 0x7FFFFFFFu) > 0x7F800000u;
}

GHZ_HD static inline int ghz_homo_nan64(uint64_t u)
{
    return (u & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
}

GHZ_HD static inline int ghz_homo_isnan(uint64_t u, int is_f32)
{
    return is_f32 ? ghz_homo_nan32((uint32_t)u) : ghz_homo_nan64(u);
}

/* The rules of HOMO.md that decide without arithmetic (negate, NaN operands, MIN and
 * MAX by comparison of x and y): returns 1 and sets *r when they decide. */
GHZ_HD static inline int ghz_homo_rules(int op, uint64_t a, uint64_t b, double x, double y,
                                        int is_f32, uint64_t* r)
{
    const uint64_t qbit = is_f32 ? 0x00400000ull : 0x0008000000000000ull;
    if (op == GHZ_HOP_NEG) {
        *r = a ^ (is_f32 ? 0x80000000ull : 0x8000000000000000ull);
    } else if (ghz_homo_isnan(a, is_f32)) {
        *r = a | qbit;
    } else if (op != GHZ_HOP_MUL && ghz_homo_isnan(b, is_f32)) {
        *r = b | qbit;
    } else if (op == GHZ_HOMO_MIN) {
        *r = y < x ? b : a;
    } else if (op == GHZ_HOMO_MAX) {
        *r = y > x ? b : a;
    } else {
        return 0;
    }
    return 1;
}

/* op(a, b) on binary32 bit patterns; b is unused by NEG and MUL, f only by MUL. The
 * arithmetic is binary32 (x and y widen exactly for the comparisons). */
GHZ_HD static inline uint32_t ghz_homo_apply32(int op, uint32_t a, uint32_t b, int32_t f)
{
    float x, y, r;
    uint32_t u;
    uint64_t d;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    if (ghz_homo_rules(op, a, b, x, y, 1, &d)) return (uint32_t)d;
    r = op == GHZ_HOMO_SUM ? x + y : op == GHZ_HOMO_SUB ? x - y : x * (float)f;
    memcpy(&u, &r, 4);
    return ghz_homo_nan32(u) ? 0x7FC00000u : u;
}

/* op(a, b) on binary64 bit patterns. */
GHZ_HD static inline uint64_t ghz_homo_apply64(int op, uint64_t a, uint64_t b, int32_t f)
{
    double x, y, r;
    uint64_t u;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    if (ghz_homo_rules(op, a, b, x, y, 0, &u)) return u;
    r = op == GHZ_HOMO_SUM ? GHZ_DADD(x, y) : op == GHZ_HOMO_SUB ? GHZ_DSUB(x, y)
                                                                : GHZ_DMUL(x, (double)f);
    memcpy(&u, &r, 8);
    return ghz_homo_nan64(u) ? 0x7FF8000000000000ull : u;
}

/* ---- the integer path (HOMO.md, "The integer path and when it equals DOC") -------- */

/* Per-position accumulator of the integer path over the inputs of one position. */
typedef struct {
    int64_t q;    /* the candidate integer q* so far */
    int64_t mag;  /* sum |q_i| (sums), max |q_i| (MIN/MAX), |q| (NEG, MUL) */
} ghz_homo_acc_t;

GHZ_HD static inline int64_t ghz_homo_abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* Starts a position's accumulator with input 0's integer q. */
GHZ_HD static inline ghz_homo_acc_t ghz_homo_acc_first(int op, int32_t q, int32_t f)
{
    ghz_homo_acc_t a;
    a.q = op == GHZ_HOP_NEG ? -(int64_t)q : op == GHZ_HOP_MUL ? (int64_t)q * f : (int64_t)q;
    a.mag = ghz_homo_abs64(q);
    return a;
}

/* Folds input i >= 1's integer q into the accumulator (binary ops and the n-ary sum). */
GHZ_HD static inline void ghz_homo_acc_next(int op, ghz_homo_acc_t* a, int32_t q)
{
    const int64_t m = ghz_homo_abs64(q);
    switch (op) {
    case GHZ_HOMO_SUB: a->q -= q; a->mag += m; break;
    case GHZ_HOMO_MIN: a->q = q < a->q ? q : a->q; a->mag = m > a->mag ? m : a->mag; break;
    case GHZ_HOMO_MAX: a->q = q > a->q ? q : a->q; a->mag = m > a->mag ? m : a->mag; break;
    default: a->q += q; a->mag += m; break;
    }
}

/* ghz_homo_acc_first(op, qa) then ghz_homo_acc_next(op, qb) for a binary operation
 * (SUM, SUB, MIN, MAX), in 32-bit arithmetic: the same accumulator whenever |qa| and
 * |qb| are at most GHZ_QMAX (every decoded integer), as q* and the magnitudes then stay
 * below 2^30. For a GPU thread that tests a block's 32 positions at once, where 64-bit
 * sums would nearly double its registers; test_homo checks the two against each other. */
GHZ_HD static inline ghz_homo_acc_t ghz_homo_acc_pair(int op, int32_t qa, int32_t qb)
{
    const int32_t ma = qa < 0 ? -qa : qa, mb = qb < 0 ? -qb : qb;
    int32_t q, mag;
    switch (op) {
    case GHZ_HOMO_SUB: q = qa - qb; mag = ma + mb; break;
    case GHZ_HOMO_MIN: q = qb < qa ? qb : qa; mag = mb > ma ? mb : ma; break;
    case GHZ_HOMO_MAX: q = qb > qa ? qb : qa; mag = mb > ma ? mb : ma; break;
    default: q = qa + qb; mag = ma + mb; break;
    }
    {
        ghz_homo_acc_t a;
        a.q = q;
        a.mag = mag;
        return a;
    }
}

/* 1 when the integer path's q* is DOC's integer at this position: its error units
 * U <= L (k inputs; f the MUL factor) and |q*| <= QMAX. Written so that nothing
 * overflows for k <= GHZ_HOMO_MAX_INPUTS and |f| <= GHZ_HOMO_MAX_FACTOR. */
GHZ_HD static inline int ghz_homo_acc_exact(int op, const ghz_homo_acc_t* a, uint64_t k,
                                           int32_t f, int is_f32)
{
    const int64_t lim = is_f32 ? GHZ_HOMO_LIMIT_F32 : GHZ_HOMO_LIMIT_F64;
    int64_t units_per_mag;
    if (a->q > GHZ_QMAX || a->q < -GHZ_QMAX) return 0;
    if (op == GHZ_HOMO_SUM || op == GHZ_HOMO_SUB)
        units_per_mag = (int64_t)k;
    else if (op == GHZ_HOP_MUL)
        units_per_mag = 2 * ghz_homo_abs64(f);
    else
        units_per_mag = 2;
    if (units_per_mag == 0) return 1; /* multiply by 0: r is +-0, q* = 0 exactly */
    return a->mag <= lim / units_per_mag;
}

#endif
