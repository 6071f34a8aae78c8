/* ghz/homo/detail/homo_sliced.h (private): the integer path of SUM and SUB on bit planes.
 *
 * A QUANT block stores q[0] and the deltas d[j] = q[j] - q[j-1] as a sign word and
 * magnitude planes (bit j of plane k is bit k of |d[j]|, FORMAT.md). The integers of a
 * sum of k blocks are the sums of their integers, so their deltas are the sums of the
 * inputs' deltas and their first integer the sum of the first ones. Added as they are
 * stored, plane by plane, 32 positions at a time, with a ripple-carry adder made of
 * bitwise operations (sum = a ^ b ^ c, carry = majority(a, b, c)), the deltas of k blocks
 * add up without ever being turned into integers: no transpose and no prefix sum per
 * input, and one transpose of the result only where the output needs integers (a fill
 * position in some input). The accumulator holds two's complement planes; a negative
 * delta joins as ~|d| + 1 (the sign word XORed into every plane and carried in).
 *
 * Where this path decides, it decides as the integer path of engine.c (HOMO.md): the
 * same checks of each input block (ghz_quant_head_ok and _signs_ok, the top plane, q0's
 * range), the same integers, the same test, the same bytes. Its magnitude is a block's
 * bound, not a position's: |q[j]| <= |q[0]| + sum_j |d[j]|, and sum_j |d[j]| = sum_k
 * popcount(plane k) 2^k costs one popcount per plane. A bound above every position's
 * magnitude only sends more blocks to the float path (whose bytes are DOC's, hence the
 * integer path's wherever that one's test passes): the output never changes, only
 * which path made it.
 * The same holds for what the planes cannot take (a block wider than 25 planes, a
 * bound above QMAX, where only the decode's per-value check can tell a corrupt block):
 * GHZ_SLICED_DECODE hands it to the caller's full decode.
 *
 * Exactness: the test lets a block through only with mag = sum over inputs of their
 * bounds <= min(L / k, QMAX) (L = 2^21 for f32), and every |d*[j]| and |q*[j]| is at most
 * mag, so `planes` bits of two's complement hold each d* exactly: 23 for f32 (|d*| <=
 * 2^21), 32 for f64 (|d*| <= QMAX < 2^29). The GPU's n-ary kernel (cuda/nary.cu) runs this
 * per thread and block; test_sliced checks it against the integers on the CPU. */
#ifndef GHZ_HOMO_DETAIL_HOMO_SLICED_H
#define GHZ_HOMO_DETAIL_HOMO_SLICED_H

#include <stdint.h>

#include "ghz/codec/block.h"
#include "ghz/homo/detail/homo_block.h"

#define GHZ_SLICED_PLANES_F32 23u
#define GHZ_SLICED_PLANES_F64 32u
/* The widest input block the planes take: every bound stays below 2^31 (31 (2^25 - 1) +
 * QMAX). A block wider than the accumulator (f32: 23 planes) is taken too, and its high
 * planes dropped: its bound (>= 2^22) fails the test, so the sums are never used. */
#define GHZ_SLICED_MAX_W 25u

/* ghz_sliced_take's verdicts on an input block. */
#define GHZ_SLICED_TAKEN 0
#define GHZ_SLICED_CORRUPT (-1) /* not canonical: the frame is corrupt */
#define GHZ_SLICED_DECODE 1     /* decode it in full (the float path), which decides */

/* The sum of the blocks taken so far at one block position. */
typedef struct {
    uint32_t p[32]; /* planes 0..planes-1 of the deltas' sums, two's complement */
    int32_t q0;     /* sum of the first integers (mod 2^32; exact while mag <= QMAX) */
    uint32_t mag;   /* sum of the inputs' bounds, saturating at 2^31 - 1 */
    uint32_t fmask; /* OR of the inputs' fill masks */
} ghz_sliced_t;

GHZ_HD static inline void ghz_sliced_begin(ghz_sliced_t* s)
{
    unsigned k;
    GHZ_UNROLL
    for (k = 0; k < 32u; ++k) s->p[k] = 0;
    s->q0 = 0;
    s->mag = 0;
    s->fmask = 0;
}

/* sum_j |d[j]| from the magnitude planes p (p[k] = 0 for k >= w, w <= 25): below 2^30.
 * In tiers of 8, 16 and 25 planes, as the GPU's reader loads them, so that a narrow
 * block pays for its own planes only. */
GHZ_HD static inline uint32_t ghz_sliced_abs_sum(const uint32_t p[32], unsigned w)
{
    uint32_t s = 0;
    unsigned k;
    GHZ_UNROLL
    for (k = 0; k < 8u; ++k) s += ghz_popc32(p[k]) << k;
    if (w > 8u) {
        GHZ_UNROLL
        for (k = 8; k < 16u; ++k) s += ghz_popc32(p[k]) << k;
        if (w > 16u) {
            GHZ_UNROLL
            for (k = 16; k < 25u; ++k) s += ghz_popc32(p[k]) << k;
        }
    }
    return s;
}

/* Adds (neg ? -x : x) position by position to the two's complement planes acc[0 ..
 * planes-1], x's magnitude planes being p (p[k] = 0 for k >= the block's w): x ^ neg
 * plus neg as the carry into plane 0 is -x where neg is set. */
GHZ_HD static inline void ghz_sliced_add(uint32_t* acc, unsigned planes, const uint32_t p[32], uint32_t neg)
{
    uint32_t c = neg;
    unsigned k;
    GHZ_UNROLL
    for (k = 0; k < planes; ++k) {
        const uint32_t y = p[k] ^ neg, a = acc[k];
        acc[k] = a ^ y ^ c;
        c = (a & y) | (c & (a ^ y));
    }
}

/* Takes input block i (code byte `code`, m values) into s: a FILLED block only marks its
 * positions; a QUANT block whose fields (mask, zz, sign, magnitude planes p with p[k] = 0
 * for k >= w, and top = p[w-1]) pass ghz_quant_rebuild's checks joins the sums, negated
 * for SUB's second operand (`negate`). Returns a GHZ_SLICED_ verdict; the caller has
 * routed RAW and CONST blocks elsewhere. With has_qfill, a block whose integers may
 * meet the fill value's integer qfill (DOC's fill there) is left to the decode too. */
GHZ_HD static inline int ghz_sliced_take(ghz_sliced_t* s, unsigned planes, int negate,
                                         unsigned code, unsigned m, uint32_t mask, uint32_t zz, uint32_t sign,
                                         const uint32_t p[32], uint32_t top, int has_qfill, int32_t qfill)
{
    const unsigned w = code & GHZ_CODE_W_MASK;
    const uint32_t used = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u);
    uint32_t orbits = 0, sum, b;
    int32_t q0;
    unsigned k;
    if (code == GHZ_CODE_FILLED) {
        s->fmask |= used;
        return GHZ_SLICED_TAKEN;
    }
    if (w > GHZ_SLICED_MAX_W) return GHZ_SLICED_DECODE;
    GHZ_UNROLL
    for (k = 0; k < 32u; ++k) orbits |= p[k];
    /* (w = 0: no sign word and no planes, nothing for the second part to check) */
    if (!ghz_quant_head_ok(code, used, mask, zz) || (w && (!ghz_quant_signs_ok(used, mask, sign, orbits) || !top)))
        return GHZ_SLICED_CORRUPT;
    q0 = ghz_unzigzag(zz);
    if (q0 > GHZ_QMAX || q0 < -GHZ_QMAX) return GHZ_SLICED_CORRUPT;
    sum = ghz_sliced_abs_sum(p, w);
    b = (uint32_t)(q0 < 0 ? -q0 : q0) + sum;
    /* every |q[j]| <= b: within QMAX no value can be out of range (the decode's per-value
     * check); beyond, only the decode tells */
    if (b > (uint32_t)GHZ_QMAX) return GHZ_SLICED_DECODE;
    if (has_qfill && (int64_t)qfill >= (int64_t)q0 - sum && (int64_t)qfill <= (int64_t)q0 + sum)
        return GHZ_SLICED_DECODE;
    ghz_sliced_add(s->p, planes, p, negate ? ~sign : sign);
    s->q0 = (int32_t)(negate ? (uint32_t)s->q0 - (uint32_t)q0 : (uint32_t)s->q0 + (uint32_t)q0);
    s->mag = s->mag + b > 0x7FFFFFFFu ? 0x7FFFFFFFu : s->mag + b; /* both below 2^31 */
    s->fmask |= mask;
    return GHZ_SLICED_TAKEN;
}

/* 1 when the sums are DOC's integers at every position (HOMO.md's test U = k sum|q_i|
 * <= L with the block's bound for every position's magnitude, and |q*| <= QMAX), for k
 * inputs of SUM or SUB. */
GHZ_HD static inline int ghz_sliced_exact(const ghz_sliced_t* s, unsigned k, int is_f32)
{
    const int64_t lim = is_f32 ? GHZ_HOMO_LIMIT_F32 : GHZ_HOMO_LIMIT_F64;
    return s->mag <= (uint32_t)GHZ_QMAX && (int64_t)s->mag <= lim / (int64_t)k;
}

/* The sums' integers q[0..31] (an exact s, ghz_sliced_exact): one transpose and one
 * prefix sum. The kernel never needs them (ghz_sliced_choose and _choose_fill give the
 * result's fields directly); test_sliced checks the sums against the integers with it. */
GHZ_HD static inline void ghz_sliced_values(const ghz_sliced_t* s, unsigned planes, int32_t q[32])
{
    const uint32_t top = 1u << (planes - 1u);
    uint32_t d[32], v;
    unsigned k;
    GHZ_UNROLL
    for (k = 0; k < 32u; ++k) d[k] = k < planes ? s->p[k] : 0u;
    ghz_values_of_planes(d, planes); /* d[j]: `planes` bits, sign-extended below */
    v = (uint32_t)s->q0;
    GHZ_UNROLL
    for (k = 0; k < 32u; ++k) {
        v += (d[k] ^ top) - top;
        q[k] = (int32_t)v;
    }
}

/* For an exact s without fill positions: turns the planes into the result's magnitude
 * planes (s->p[k] = 0 for k >= w) and returns its delta width w with the sign word in
 * *sign: the fields ghz_quant_write stores, as ghz_facts_finish and ghz_quant_encode
 * would compute them from the integers. (x ^ s) + s is |x| for the sign s. */
GHZ_HD static inline unsigned ghz_sliced_magnitudes(ghz_sliced_t* s, unsigned planes, uint32_t* sign)
{
    const uint32_t neg = s->p[planes - 1u];
    uint32_t c = neg;
    unsigned k, w = 0;
    GHZ_UNROLL
    for (k = 0; k < planes; ++k) {
        const uint32_t x = s->p[k] ^ neg;
        s->p[k] = x ^ c;
        c &= x;
        if (s->p[k]) w = k + 1u;
    }
    *sign = neg;
    return w;
}

/* ghz_facts_finish for an exact s without fill positions (s->fmask == 0), m values:
 * the code byte and payload bytes (*size) ghz_block_choose gives the sums, whose fields
 * s->p (magnitude planes), *sign and *w then are (ghz_quant_write). */
GHZ_HD static inline unsigned ghz_sliced_choose(ghz_sliced_t* s, unsigned planes, unsigned m, int has_fill,
                                                unsigned elem, uint32_t* sign, unsigned* w, unsigned* size)
{
    ghz_block_facts_t f;
    ghz_facts_begin(&f, m);
    f.w = ghz_sliced_magnitudes(s, planes, sign);
    f.q0 = s->q0;
    *w = f.w;
    return ghz_block_choose(&f, has_fill, elem, size);
}

/* ghz_sliced_choose for an exact s with fill positions (some but not all of the m), or
 * with a quantizable fill value: FORMAT.md gives a fill position and one past m the
 * integer before it (leading ones the first live one), so the result's first integer is
 * its first live sum and a live position's delta spans the fill run before it. One
 * transpose of the planes into the deltas' sums, one pass over the 32 positions that
 * turns them into the result's deltas (ghz_facts_finish_deltas's, without the integers
 * in between), one transpose back into planes (s->p, ghz_quant_write's fields with
 * *sign, *w and *q0). *collide: some live sum is the fill value's integer qfill
 * (has_qfill), which DOC reads as fill: the caller takes the float path then. Returns the
 * code byte (ghz_block_choose) and the payload bytes in *size. */
GHZ_HD static inline unsigned ghz_sliced_choose_fill(ghz_sliced_t* s, unsigned planes, unsigned m, int has_fill,
                                                     unsigned elem, int has_qfill, int32_t qfill, uint32_t* sign,
                                                     unsigned* w, int32_t* q0, int* collide, unsigned* size)
{
    const uint32_t top = 1u << (planes - 1u);
    const uint32_t used = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u), live = used & ~s->fmask;
    uint32_t v = (uint32_t)s->q0, last = 0, sg = 0, any = 0, first = 0;
    int seen = 0, hit = 0;
    unsigned j;
    ghz_block_facts_t f;
    GHZ_UNROLL
    for (j = 0; j < 32u; ++j) s->p[j] = j < planes ? s->p[j] : 0u;
    ghz_values_of_planes(s->p, planes); /* p[j]: the sum of deltas at j, `planes` bits */
    GHZ_UNROLL
    for (j = 0; j < 32u; ++j) {
        uint32_t d = 0;
        v += (s->p[j] ^ top) - top; /* the sum's integer at j */
        if (live >> j & 1u) {
            if (seen)
                d = v - last;
            else
                first = v;
            seen = 1;
            last = v;
            hit |= has_qfill && (int32_t)v == qfill;
        }
        {
            const uint32_t neg = 0u - (d >> 31); /* |d| < 2^31: |q| <= QMAX */
            s->p[j] = (d ^ neg) - neg;
            sg |= (neg & 1u) << j;
            any |= s->p[j];
        }
    }
    *collide = hit;
    ghz_facts_begin(&f, m);
    f.fmask = s->fmask;
    f.w = ghz_bit_width(any);
    f.q0 = (int32_t)first;
    if (f.w) ghz_planes_of(s->p, f.w);
    *sign = sg;
    *w = f.w;
    *q0 = f.q0;
    return ghz_block_choose(&f, has_fill, elem, size);
}

#endif
