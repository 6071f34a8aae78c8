/* test/unit/test_block.c: the public block-level routines of ghz/codec/block.h (the
 * pieces the CPU reference and the CUDA kernels share) against FORMAT.md, as
 * transcribed independently in testutil.c. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/block.h"
#include "testutil.h"

Test(block, constants)
{
    cr_assert_eq(GHZ_QMAX, TU_QMAX);
    cr_assert_eq(GHZ_CODE_RAW, 0x1F);
    cr_assert_eq(GHZ_CODE_CONST, 0x3F);
    cr_assert_eq(GHZ_CODE_FILLED, 0x5F);
    cr_assert_eq(GHZ_MAX_W, 30);
}

Test(block, zigzag)
{
    static const int32_t v[] = {0, 1, -1, 2, -2, 127, -128, 128, 32767, -32768, 32768,
                                TU_QMAX, -TU_QMAX, INT32_MAX, INT32_MIN};
    size_t i;
    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint32_t z = ghz_zigzag(v[i]);
        cr_assert_eq(z, tu_zigzag(v[i]), "zigzag(%d)", v[i]);
        cr_assert_eq(ghz_unzigzag(z), v[i], "unzigzag(zigzag(%d))", v[i]);
    }
    cr_assert_eq(ghz_zigzag(0), 0);
    cr_assert_eq(ghz_zigzag(-1), 1);
    cr_assert_eq(ghz_zigzag(1), 2);
    cr_assert_eq(ghz_zigzag(-3), 5);
    cr_assert_eq(ghz_zigzag(INT32_MIN), 0xFFFFFFFFu);
    cr_assert_eq(ghz_q0_class(0), 0);
    cr_assert_eq(ghz_q0_class(1), 1);
    cr_assert_eq(ghz_q0_class(255), 1);
    cr_assert_eq(ghz_q0_class(256), 2);
    cr_assert_eq(ghz_q0_class(65535), 2);
    cr_assert_eq(ghz_q0_class(65536), 3);
    cr_assert_eq(ghz_q0_bytes(3), 4);
    cr_assert_eq(ghz_bit_width(0), 0);
    cr_assert_eq(ghz_bit_width(1), 1);
    cr_assert_eq(ghz_bit_width(0x3FFFFFFFu), 30);
}

Test(block, block_sizes)
{
    unsigned code, m, e, f;
    for (code = 0; code < 256; code++)
        for (m = 1; m <= 32; m++)
            for (e = 4; e <= 8; e += 4)
                for (f = 0; f < 2; f++) {
                    uint32_t got = ghz_block_size(code, m, e, (int)f);
                    unsigned w = code & 31, c = code >> 5 & 3, fl = code >> 7;
                    if (w == 31) {
                        uint32_t want = code == 0x1F ? m * e
                                        : code == 0x3F ? e
                                        : code == 0x5F && f ? 0
                                                            : GHZ_BLOCK_INVALID;
                        cr_assert_eq(got, want, "code %02x m %u elem %u fill %u", code, m, e, f);
                    } else {
                        uint32_t want = (fl ? 4 : 0) + (c == 3 ? 4 : c) + (w ? 4 * (w + 1) : 0);
                        if (fl && !f) /* a mask in a frame without fill value */
                            cr_assert_eq(got, GHZ_BLOCK_INVALID, "code %02x without fill", code);
                        else if (want <= m * e)
                            cr_assert_eq(got, want, "code %02x m %u elem %u: %u, FORMAT.md %u",
                                         code, m, e, got, want);
                        else /* larger than RAW: never written by an encoder */
                            cr_assert(got == want || got == GHZ_BLOCK_INVALID);
                    }
                }
}

Test(block, quant_encode_decode)
{
    tu_rng_t r;
    int it;
    tu_seed(&r, 3);
    for (it = 0; it < 20000; it++) {
        int32_t q[32], back[32];
        unsigned char a[160], b[160];
        unsigned m = 1 + (unsigned)tu_below(&r, 32), i, code_ref, code;
        unsigned w = (unsigned)tu_below(&r, 31);
        uint32_t fmask = 0, fm_back = 0;
        size_t sz;
        int64_t cur = (int64_t)tu_below(&r, 2 * TU_QMAX + 1) - TU_QMAX;
        for (i = 0; i < m; i++) {
            int64_t step = w ? (int64_t)tu_below(&r, (uint64_t)1 << w) : 0;
            if (tu_below(&r, 2)) step = -step;
            if (i > 0 && tu_below(&r, 3) == 0) step = 0;
            if (i > 0) cur += step;
            if (cur > TU_QMAX) cur = TU_QMAX; /* a smaller step at the edge */
            if (cur < -TU_QMAX) cur = -TU_QMAX;
            q[i] = (int32_t)cur;
        }
        if (m > 1 && tu_below(&r, 3) == 0) { /* fill positions: deltas 0 */
            for (i = 1; i < m; i++)
                if (tu_below(&r, 4) == 0) {
                    fmask |= 1u << i;
                    q[i] = q[i - 1];
                }
        }
        for (i = m; i < 32; i++) q[i] = q[m - 1];
        sz = tu_quant_payload(q, m, fmask, a, &code_ref);
        memset(b, 0xCC, sizeof b);
        code = ghz_quant_encode(q, fmask, b);
        cr_assert_eq(code, code_ref, "code %02x, FORMAT.md %02x", code, code_ref);
        cr_assert(memcmp(a, b, sz) == 0, "iteration %d: payload differs", it);
        cr_assert_eq(ghz_block_size(code, 32, 8, fmask != 0), sz);
        cr_assert_eq(ghz_quant_decode(b, code, m, back, &fm_back), 0, "iteration %d", it);
        cr_assert_eq(fm_back, fmask);
        for (i = 0; i < m; i++) cr_assert_eq(back[i], q[i], "iteration %d lane %u", it, i);
        for (i = m; i < 32; i++) cr_assert_eq(back[i], q[m - 1], "iteration %d: lane %u past m", it, i);
    }
}

/* ghz_transpose32 moves bit c of row r to bit r of row c, for every r and c. */
Test(block, transpose32)
{
    tu_rng_t r;
    int it;
    tu_seed(&r, 11);
    for (it = 0; it < 2000; it++) {
        uint32_t a[32], t[32];
        unsigned i, j;
        for (i = 0; i < 32; i++) a[i] = t[i] = (uint32_t)tu_next(&r) & (it % 3 ? 0xFFFFFFFFu : 0x3FFu);
        ghz_transpose32(t);
        for (i = 0; i < 32; i++)
            for (j = 0; j < 32; j++)
                cr_assert_eq(t[j] >> i & 1u, a[i] >> j & 1u, "iteration %d: bit %u of row %u", it, j, i);
    }
}

/* The narrow transposes agree with the full one: ghz_planes_of on values below 2^w
 * gives planes 0..w-1 exactly, ghz_values_of_planes gives all 32 values back, for
 * every w (each of the nested cases and their edges). */
Test(block, narrow_transposes)
{
    tu_rng_t r;
    int it;
    tu_seed(&r, 13);
    for (it = 0; it < 3300; it++) {
        const unsigned w = (unsigned)it % 33u;
        const uint32_t lim = w == 32u ? 0xFFFFFFFFu : (1u << w) - 1u;
        uint32_t a[32], full[32], p[32];
        unsigned i;
        for (i = 0; i < 32; i++) a[i] = full[i] = p[i] = (uint32_t)tu_next(&r) & lim;
        ghz_transpose32(full);
        ghz_planes_of(p, w);
        for (i = 0; i < w; i++) cr_assert_eq(p[i], full[i], "w %u: plane %u", w, i);
        for (i = w; i < 32; i++) p[i] = 0;
        ghz_values_of_planes(p, w);
        for (i = 0; i < 32; i++) cr_assert_eq(p[i], a[i], "w %u: value %u", w, i);
    }
}

/* ghz_pick32 returns q[i] for every i; ghz_facts_finish_deltas fills in exactly as
 * FORMAT.md says (a fill position, or one past m, repeats the nearest earlier non-fill
 * integer; leading ones take the first non-fill one), written here as the obvious
 * search, over random fill masks and block lengths (leading, trailing, single and
 * alternating fills, one live position, none), and its deltas are those of the
 * filled-in integers. */
Test(block, fill_in_rule)
{
    tu_rng_t r;
    int it;
    tu_seed(&r, 17);
    for (it = 0; it < 20000; it++) {
        const unsigned m = it % 4 ? 32u : 1u + (unsigned)tu_below(&r, 32);
        const uint32_t used = m == 32u ? 0xFFFFFFFFu : (1u << m) - 1u;
        static const uint32_t shapes[] = {0x0u, 0x1u, 0x80000000u, 0x0000FFFFu, 0xFFFF0000u, 0x55555555u,
                                          0xAAAAAAAAu, 0xFFFFFFFEu, 0x7FFFFFFFu, 0x00F0F000u};
        const uint32_t fmask = (it % 3 ? (uint32_t)tu_next(&r) : shapes[it % 10]) & used;
        int32_t q[32], want[32];
        uint32_t a[32], sign = 0;
        unsigned i, size;
        ghz_block_facts_t f;
        for (i = 0; i < 32; i++) q[i] = (int32_t)tu_below(&r, 2001) - 1000;
        for (i = 0; i < 32; i++) cr_assert_eq(ghz_pick32(q, i), q[i]);
        memcpy(want, q, sizeof q);
        if ((used & ~fmask) != 0)
            for (i = 0; i < 32; i++) {
                int j = (int)i;
                if (i < m && !(fmask >> i & 1u)) continue;
                while (j >= 0 && !((unsigned)j < m && !(fmask >> j & 1u))) --j; /* nearest earlier live */
                if (j < 0)
                    for (j = 0; !((unsigned)j < m && !(fmask >> j & 1u)); ++j) /* else the first live */
                        ;
                want[i] = q[j];
            }
        ghz_facts_begin(&f, m);
        f.fmask = fmask;
        ghz_facts_finish_deltas(&f, q, 1, 4, &size, a, &sign);
        if ((used & ~fmask) == 0) continue; /* FILLED: no integers */
        for (i = 0; i < 32; i++)
            cr_assert_eq(q[i], want[i], "iteration %d: m %u mask %08x: position %u", it, m, fmask, i);
        cr_assert_eq(f.q0, want[0]);
        for (i = 1; i < 32; i++) {
            const int32_t d = want[i] - want[i - 1];
            cr_assert_eq(a[i], (uint32_t)(d < 0 ? -d : d));
            cr_assert_eq(sign >> i & 1u, (uint32_t)(d < 0));
        }
    }
}

Test(block, quantizer_matches_spec)
{
    static const double ebs[] = {0.5, 1e-3, 0.3, 1.0 / 3.0, 1e-7, 1e-12, 1e30, 1e-30, 3e-5};
    tu_rng_t r;
    size_t e;
    int it, k;
    tu_seed(&r, 17);
    for (k = 0; k < 2; k++)
        for (e = 0; e < sizeof ebs / sizeof ebs[0]; e++) {
            ghz_quantizer_t z = ghz_quantizer_make(ebs[e], k == 0);
            tu_quant_t tz = tu_quant_make(ebs[e], k == 0);
            cr_assert(z.eb == tz.E && z.q == tz.Q && z.r == tz.R);
            for (it = 0; it < 20000; it++) {
                double x;
                int32_t q1 = 0, q2 = 0;
                int ok1, ok2;
                switch (it % 4) {
                case 0: x = (tu_uniform(&r) - 0.5) * 2e9 * ebs[e]; break;
                case 1: x = ((double)tu_below(&r, 2000001) - 1000000.0 + 0.5) * tz.Q; break;
                case 2: x = tu_dbl_from_bits(tu_next(&r)); break;
                default: x = (tu_uniform(&r) - 0.5) * 1e3; break;
                }
                if (k == 0) x = (double)(float)x;
                ok1 = ghz_quantize(&z, x, &q1);
                ok2 = tu_quantize(&tz, x, &q2);
                cr_assert(ok1 == ok2 && (!ok1 || q1 == q2),
                          "x %a eb %g f32 %d: library %d/%d, FORMAT.md %d/%d", x, ebs[e], k == 0,
                          ok1, q1, ok2, q2);
                if (ok1)
                    cr_assert(tu_within(x, ghz_recon(&z, q1), ebs[e]),
                              "x %a q %d outside the bound", x, q1);
            }
        }
}

Test(block, rel_eb)
{
    tu_rng_t r;
    int it;
    tu_seed(&r, 23);
    for (it = 0; it < 20000; it++) {
        double rel = pow(10.0, -(double)tu_below(&r, 12)) * (0.5 + tu_uniform(&r));
        double a = (tu_uniform(&r) - 0.5) * pow(10.0, (double)tu_below(&r, 40) - 20.0);
        double b = a + tu_uniform(&r) * pow(10.0, (double)tu_below(&r, 40) - 20.0);
        double eb = -1.0;
        int rc = ghz_rel_eb(rel, a, b, &eb);
        cr_assert_eq(rc, 0);
        cr_assert(eb == tu_rel_bound(rel, a, b), "rel %g [%a, %a]: %a, FORMAT.md %a", rel, a, b,
                  eb, tu_rel_bound(rel, a, b));
        if (b > a) cr_assert(tu_rel_holds(eb, rel, a, b));
    }
}

/* The exact bound test, at the tie |fl(x - y)| == eb where only the rounding error
 * decides; first testutil's own checker, then block.h's. */
Test(block, within_exact_at_ties)
{
    static const struct {
        double x, y, eb;
        int want;
    } c[] = {
        {1.0, -0x1p-60, 1.0, 0},     /* x - y = 1 + 2^-60 rounds to 1 */
        {1.0, 0x1p-60, 1.0, 1},      /* 1 - 2^-60 */
        {-1.0, 0x1p-60, 1.0, 0},
        {-1.0, -0x1p-60, 1.0, 1},
        {0x1p-60, -1.0, 1.0, 0},
        {0x1p-60, 1.0, 1.0, 1},
        {3.0, 1.0, 2.0, 1},          /* exact tie */
        {3.0, 0.9999999999999999, 2.0, 0},
        {0.0, 1e-300, 1e-300, 1},
        {0.0, 1.0000000000000002e-300, 1e-300, 0},
        {1e308, -1e308, 1e308, 0},   /* x - y overflows */
        {1.0, 1.0, 0.0, 1},
        {1.0, 1.0000000000000002, 0.0, 0},
        {NAN, 1.0, 1.0, 0},
        {1.0, INFINITY, 1.0, 0},
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++)
        cr_assert_eq(tu_within(c[i].x, c[i].y, c[i].eb), c[i].want, "tu_within case %zu", i);
    for (i = 0; i < sizeof c / sizeof c[0]; i++)
        if (c[i].eb > 0.0)
            cr_assert_eq(ghz_within(c[i].x, c[i].y, c[i].eb), c[i].want, "ghz_within(%a, %a, %a)",
                         c[i].x, c[i].y, c[i].eb);
}

/* testutil's REL checker: exact at the boundary. */
Test(block, rel_holds_is_exact)
{
    volatile double three = 3.0, tenth = 0.1;
    double p = tenth * three; /* 0.30000000000000004 > the exact 0.1 * 3 */
    cr_assert(tu_rel_holds(0.1, 0.1, 0.0, 1.0));
    cr_assert(!tu_rel_holds(nextafter(0.1, 1.0), 0.1, 0.0, 1.0));
    cr_assert(!tu_rel_holds(p, 0.1, 0.0, 3.0), "fl(0.1 * 3) exceeds the exact product");
    cr_assert(tu_rel_holds(nextafter(p, 0.0), 0.1, 0.0, 3.0));
    cr_assert(tu_rel_holds(tu_rel_bound(0.1, 0.0, 3.0), 0.1, 0.0, 3.0));
}

/* ghz_quantize_f32_fast (the GPU's float shortcut) may decline (-1), but when it
 * answers it must give exactly FORMAT.md's q. Hammered at random values, near the
 * halfway points between grid values (where a float product is most likely to round
 * to the wrong side) and near its own |t| <= 2^21 limit. */
Test(block, f32_fast_path_agrees_with_exact_quantizer)
{
    static const double ebs[] = {0.5, 1e-3, 0.3, 1.0 / 3.0, 7e-5, 1e-7, 0.123456789,
                                 2.5e-2, 1e-20, 3e30, 1e-36};
    tu_rng_t r;
    size_t e;
    long answered = 0, total = 0;
    tu_seed(&r, 41);
    for (e = 0; e < sizeof ebs / sizeof ebs[0]; e++) {
        ghz_quantizer_t z = ghz_quantizer_make(ebs[e], 1);
        tu_quant_t tz = tu_quant_make(ebs[e], 1);
        int it;
        if (!z.fast) continue;
        for (it = 0; it < 200000; it++) {
            double xd;
            float x;
            int32_t qf = 0, qe = 0;
            int rf, re;
            switch (it % 5) {
            case 0: xd = (tu_uniform(&r) - 0.5) * 4.2e6 * tz.Q; break;  /* |t| up to ~2^21 */
            case 1: xd = ((double)tu_below(&r, 4194305) - 2097152.0 + 0.5) * tz.Q; break;
            case 2: xd = ((double)tu_below(&r, 2001) - 1000.0 + 0.5) * tz.Q; break;
            case 3: xd = (tu_uniform(&r) - 0.5) * 1e3 * tz.Q; break;
            default: xd = tu_flt_from_bits((uint32_t)tu_next(&r)); break;
            }
            x = (float)xd;
            if (it % 5 == 1 || it % 5 == 2) { /* a few float ulps either side */
                int k, step = (int)tu_below(&r, 7) - 3;
                for (k = 0; k < (step < 0 ? -step : step); k++)
                    x = nextafterf(x, step < 0 ? -INFINITY : INFINITY);
            }
            rf = ghz_quantize_f32_fast(&z, x, &qf);
            re = tu_quantize(&tz, (double)x, &qe);
            total++;
            if (rf == -1) continue;
            answered++;
            cr_assert(rf == 1 && re == 1 && qf == qe,
                      "eb %g x %a: fast path says %d/%d, FORMAT.md %d/%d", ebs[e], (double)x, rf,
                      qf, re, qe);
        }
    }
    cr_assert(answered > total / 5, "fast path answered only %ld of %ld", answered, total);
}
