/* test/unit/test_fastpath.c: ghz_quantize_f32_fast (the GPU's float32 shortcut) must
 * never disagree with the exact ghz_quantize of FORMAT.md: wherever it answers, it
 * gives the same integer. Random values rarely land near a rounding tie, so the inputs
 * here are built around ties (t = k + 0.5 +- a few ulps), around the 2^21 limit, and
 * at extreme bounds. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ghz/codec/block.h"

static uint64_t state = 0x2545F4914F6CDD1Dull;
static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* Checks one value; returns 1 when the fast path answered. */
static int agree(const ghz_quantizer_t* z, float x)
{
    int32_t qf = 0x7fffffff, qe = 0x7fffffff;
    int rf = ghz_quantize_f32_fast(z, x, &qf);
    int re = ghz_quantize(z, (double)x, &qe);
    if (rf < 0) return 0;
    cr_assert_eq(re, 1, "x=%.9g eb=%.17g: fast path accepted %d, exact path rejects", (double)x, z->eb, qf);
    cr_assert_eq(qf, qe, "x=%.9g eb=%.17g: fast %d, exact %d", (double)x, z->eb, qf, qe);
    return 1;
}

Test(fastpath, agrees_near_ties_and_limits)
{
    static const double ebs[] = {0.5, 1e-3, 1.0 / 3.0, 0.1, 7.3e-5, 1e-6, 12345.678, 1e-30, 3e20};
    long answered = 0, total = 0;
    for (size_t e = 0; e < sizeof ebs / sizeof *ebs; ++e) {
        ghz_quantizer_t z = ghz_quantizer_make(ebs[e], 1);
        cr_assert(z.fast);
        for (int i = 0; i < 200000; ++i) {
            /* k + 1/2 in units of Q, nudged by a few ulps either way */
            double k = (double)(int64_t)(next() % (1u << 22)) - (double)(1u << 21);
            float x = (float)((k + 0.5) * z.q);
            int steps = (int)(next() % 9) - 4;
            for (int s = 0; s < steps; ++s) x = nextafterf(x, INFINITY);
            for (int s = 0; s > steps; --s) x = nextafterf(x, -INFINITY);
            answered += agree(&z, x);
            /* and plain random values of every magnitude */
            uint32_t u = (uint32_t)next();
            float y;
            memcpy(&y, &u, 4);
            agree(&z, y);
            /* ordinary values (|t| < 2^13, as at REL 1e-4): it must answer nearly all */
            answered += agree(&z, (float)(((double)(next() >> 11) * 0x1.0p-53 - 0.5) * 0x1.0p14 * z.q));
            total += 1;
        }
    }
    /* a shortcut that never answers would pass the loop above: it must answer most */
    cr_assert_gt(answered, total * 0.99, "fast path answered %ld of %ld ordinary values", answered, total);
}

Test(fastpath, declines_what_it_cannot_prove)
{
    ghz_quantizer_t z = ghz_quantizer_make(1e-3, 1);
    int32_t q;
    cr_assert_lt(ghz_quantize_f32_fast(&z, NAN, &q), 0);
    cr_assert_lt(ghz_quantize_f32_fast(&z, INFINITY, &q), 0);
    cr_assert_lt(ghz_quantize_f32_fast(&z, 1e30f, &q), 0);          /* |t| beyond 2^21 */
    cr_assert_lt(ghz_quantize_f32_fast(&z, (float)(0.5 * z.q), &q), 0); /* an exact tie */
    cr_assert_gt(ghz_quantize_f32_fast(&z, 0.25f, &q), 0);
    cr_assert_eq(q, 125); /* 0.25 / (1e-3 * 1.9921875) = 125.49 */
    /* R too large or too small for a normal float: the shortcut is switched off */
    cr_assert_not(ghz_quantizer_make(1e-40, 1).fast);
    cr_assert_not(ghz_quantizer_make(1e39, 1).fast);
    cr_assert_not(ghz_quantizer_make(1e-3, 0).fast);
}

/* Near FLT_MAX with a huge bound, recon(c) = c * Q rounds to Inf in float32 and the
 * exact path rejects the value, though t is small and far from a tie: found when the
 * CPU encoder started to use the shortcut (the REL bound of a range spanning
 * [-FLT_MAX, FLT_MAX]). The shortcut used to test |x| < 2^126 for it; now the
 * quantizer offers no shortcut where R < 2^-100 (|t| <= 2^21 then no longer keeps |x|
 * below 2^126), so such a bound takes the exact path, and just inside the limit the
 * shortcut must decline or agree all the way up to FLT_MAX. */
Test(fastpath, declines_where_recon_overflows)
{
    ghz_quantizer_t z = ghz_quantizer_make(3.4029234663831889e+35, 1);
    int32_t q;
    cr_assert_not(z.fast);
    cr_assert_eq(ghz_quantize(&z, 3.40282347e+38, &q), 0);
    z = ghz_quantizer_make(ldexp(1.0, 98), 1); /* R = 1 / (2^98 * 1.9921875), above 2^-100 */
    cr_assert(z.fast);
    cr_assert_not(ghz_quantizer_make(ldexp(1.0, 100), 1).fast);
    cr_assert_lt(ghz_quantize_f32_fast(&z, 3.40282347e+38f, &q), 0);
    cr_assert_lt(ghz_quantize_f32_fast(&z, -3.40282347e+38f, &q), 0);
    for (float x = 3.40282347e+38f; x > 1e25f; x *= 0.96875f) {
        agree(&z, x);
        agree(&z, -x);
    }
}
