/* test/unit/test_sliced.c: ghz/homo's SUM and SUB on bit planes (homo_sliced.h, which
 * the GPU's n-ary kernel runs) against the integers: the same verdict on every input
 * block as ghz_quant_rebuild, the same integers, and the same code byte and payload
 * bytes as ghz_facts_finish and ghz_quant_encode of the summed integers. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/homo/detail/homo_sliced.h"
#include "testutil.h"

/* One block's fields read from its payload, as ghz_quant_decode reads them. */
typedef struct {
    uint32_t mask, zz, sign, p[32], top;
} fields_t;

static void read_fields(const uint8_t* b, unsigned code, fields_t* f)
{
    const unsigned w = code & GHZ_CODE_W_MASK, nb = ghz_q0_bytes((code >> 5) & 3u);
    unsigned k;
    memset(f, 0, sizeof *f);
    if (code & GHZ_CODE_FILL_BIT) {
        f->mask = (uint32_t)ghz_load_le(b, 4);
        b += 4;
    }
    f->zz = (uint32_t)ghz_load_le(b, nb);
    b += nb;
    if (w) {
        f->sign = (uint32_t)ghz_load_le(b, 4);
        b += 4;
    }
    for (k = 0; k < w; ++k) f->p[k] = (uint32_t)ghz_load_le(b + 4u * k, 4);
    f->top = w ? f->p[w - 1] : 0u;
}

/* Integers of a block of m values: a random walk of steps below 2^bits around a random
 * start below 2^start_bits, positions >= m repeating q[m-1] (FORMAT.md), fill positions
 * (fmask) carrying the previous integer as ghz_facts_finish gives them. */
static void make_block(tu_rng_t* r, unsigned m, unsigned bits, unsigned start_bits, uint32_t fmask, int32_t q[32])
{
    int32_t v = (int32_t)tu_below(r, 1u << start_bits) - (int32_t)(1u << (start_bits - 1u));
    unsigned j;
    for (j = 0; j < 32; ++j) {
        if (j > 0 && j < m && !(fmask >> j & 1u)) v += (int32_t)tu_below(r, 1u << bits) - (int32_t)(1u << (bits - 1u));
        q[j] = v;
    }
}

/* Encodes q (m values, fill mask fmask) as the CPU encoder does: code byte and payload. */
static unsigned encode(int32_t q[32], unsigned m, uint32_t fmask, uint8_t* out, unsigned* size)
{
    ghz_block_facts_t f;
    unsigned code;
    ghz_facts_begin(&f, m);
    f.fmask = fmask;
    code = ghz_facts_finish(&f, q, 1, 4, size);
    if (code != GHZ_CODE_FILLED && code != GHZ_CODE_RAW) code = ghz_quant_encode(q, f.fmask, out);
    return code;
}

/* The fields of a sum with fill positions (ghz_sliced_choose_fill) against
 * ghz_facts_finish and ghz_quant_encode of its integers `want`; and the collision test
 * with a live integer and with one no position holds. */
static void check_fill(const ghz_sliced_t* s0, unsigned planes, unsigned m, int is_f32, const int32_t want[32])
{
    const unsigned elem = is_f32 ? 4 : 8;
    const uint32_t used = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u), live = used & ~s0->fmask;
    ghz_block_facts_t f;
    ghz_sliced_t s = *s0;
    int32_t q[32];
    uint8_t ref[256], out[256];
    unsigned ref_size, size, w, code, ref_code, j;
    uint32_t sign;
    int32_t q0;
    int collide;
    memcpy(q, want, sizeof q);
    ghz_facts_begin(&f, m);
    f.fmask = s.fmask;
    ref_code = ghz_facts_finish(&f, q, 1, elem, &ref_size);
    code = ghz_sliced_choose_fill(&s, planes, m, 1, elem, 0, 0, &sign, &w, &q0, &collide, &size);
    cr_assert_eq(code, ref_code, "m %u fmask %08x: code 0x%02x, want 0x%02x", m, s0->fmask, code, ref_code);
    cr_assert_eq(size, ref_size);
    cr_assert_eq(collide, 0);
    if (code != GHZ_CODE_RAW && code != GHZ_CODE_FILLED) {
        memset(ref, 0xAA, sizeof ref);
        memset(out, 0x55, sizeof out);
        cr_assert_eq(ghz_quant_encode(q, f.fmask, ref), ref_code);
        cr_assert_eq(ghz_quant_write(q0, s.p, sign, w, s.fmask, 0, out), code);
        cr_assert(memcmp(ref, out, ref_size) == 0, "m %u fmask %08x w %u: bytes differ", m, s0->fmask, w);
    }
    for (j = 0; j < 32 && !(live >> j & 1u); ++j) continue;
    if (j == 32) return;
    s = *s0;
    ghz_sliced_choose_fill(&s, planes, m, 1, elem, 1, want[j], &sign, &w, &q0, &collide, &size);
    cr_assert_eq(collide, 1, "the live integer %d at %u is not seen", want[j], j);
    s = *s0;
    ghz_sliced_choose_fill(&s, planes, m, 1, elem, 1, GHZ_QMAX, &sign, &w, &q0, &collide, &size);
    cr_assert_eq(collide, 0);
}

/* k blocks summed (or a - b for SUB) on the planes and on the integers: the same
 * integers, and where the test passes and no position is fill, the same bytes. */
static void check_sum(tu_rng_t* r, unsigned k, int sub, unsigned m, unsigned bits, unsigned start_bits, int fills,
                      unsigned planes, int is_f32, unsigned* exact_out)
{
    const uint32_t used = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u);
    int32_t want[32];
    uint8_t buf[256];
    ghz_sliced_t s;
    unsigned i, j, size;
    int taken = 1;
    int64_t mag = 0;
    ghz_sliced_begin(&s);
    for (i = 0; i < k; ++i) {
        int32_t q[32], qd[32];
        fields_t f;
        uint32_t fm = 0, dmask = 0;
        unsigned code;
        int64_t b = 0, acc = 0;
        if (fills && m > 2 && tu_below(r, 3) == 0) fm = (uint32_t)tu_next(r) & used; /* leading fills too */
        if (fm == used) fm = 0;
        make_block(r, m, bits, start_bits, fm, q);
        code = encode(q, m, fm, buf, &size);
        if (code == GHZ_CODE_RAW) {
            taken = 0;
            break;
        }
        read_fields(buf, code, &f);
        if (code != GHZ_CODE_FILLED) {
            cr_assert_eq(ghz_quant_decode(buf, code, m, qd, &dmask), 0);
            for (j = 0; j < 32; ++j) {
                acc = j ? acc + (qd[j] > qd[j - 1] ? qd[j] - qd[j - 1] : qd[j - 1] - qd[j]) : llabs(qd[0]);
                if (acc > b) b = acc;
            }
        } else {
            for (j = 0; j < 32; ++j) qd[j] = 0;
        }
        for (j = 0; j < 32; ++j) want[j] = i == 0 ? qd[j] : sub ? want[j] - qd[j] : want[j] + qd[j];
        {
            const int v = ghz_sliced_take(&s, planes, sub && i > 0, code, m, f.mask, f.zz, f.sign, f.p, f.top, 0, 0);
            if (v == GHZ_SLICED_DECODE) {
                cr_assert(b > GHZ_QMAX || (code & GHZ_CODE_W_MASK) > GHZ_SLICED_MAX_W, "decode asked of a plain block");
                taken = 0;
                break;
            }
            cr_assert_eq(v, GHZ_SLICED_TAKEN, "input %u, code 0x%02x", i, code);
        }
        mag += b;
    }
    if (!taken) return;
    /* the bound: the inputs' own |q0| + sum |d| */
    cr_assert_eq((int64_t)s.mag, mag > 0x7FFFFFFF ? 0x7FFFFFFF : mag);
    if (!ghz_sliced_exact(&s, k, is_f32)) return;
    ++*exact_out;
    {
        int32_t got[32];
        ghz_sliced_values(&s, planes, got);
        for (j = 0; j < 32; ++j) cr_assert_eq(got[j], want[j], "k %u m %u position %u: %d, want %d", k, m, j, got[j], want[j]);
    }
    if (s.fmask) {
        check_fill(&s, planes, m, is_f32, want);
        return;
    }
    {
        ghz_block_facts_t f;
        uint8_t ref[256], out[256];
        unsigned ref_size, got_size, w, code, ref_code;
        uint32_t sign;
        ghz_facts_begin(&f, m);
        ref_code = ghz_facts_finish(&f, want, 1, is_f32 ? 4 : 8, &ref_size);
        code = ghz_sliced_choose(&s, planes, m, 1, is_f32 ? 4 : 8, &sign, &w, &got_size);
        cr_assert_eq(code, ref_code, "k %u m %u: code 0x%02x, want 0x%02x", k, m, code, ref_code);
        cr_assert_eq(got_size, ref_size);
        if (code == GHZ_CODE_RAW) return;
        memset(ref, 0xAA, sizeof ref);
        memset(out, 0x55, sizeof out);
        cr_assert_eq(ghz_quant_encode(want, 0, ref), ref_code);
        cr_assert_eq(ghz_quant_write(s.q0, s.p, sign, w, 0, 0, out), code);
        cr_assert(memcmp(ref, out, ref_size) == 0, "k %u m %u w %u: bytes differ", k, m, w);
        for (j = w; j < 32; ++j) cr_assert_eq(s.p[j], 0u);
    }
}

Test(sliced, sums_equal_the_integers)
{
    tu_rng_t r;
    unsigned it, exact = 0;
    tu_seed(&r, 16);
    for (it = 0; it < 40000; ++it) {
        const unsigned k = 1 + (unsigned)tu_below(&r, 8), m = 1 + (unsigned)tu_below(&r, 32);
        const unsigned bits = 1 + (unsigned)tu_below(&r, 14), start = 1 + (unsigned)tu_below(&r, 18);
        const int f32 = tu_below(&r, 2) == 0;
        check_sum(&r, k, 0, m, bits, start, (int)tu_below(&r, 2), f32 ? GHZ_SLICED_PLANES_F32 : GHZ_SLICED_PLANES_F64,
                  f32, &exact);
    }
    cr_assert_gt(exact, 20000u, "only %u exact sums: the test tests little", exact);
}

Test(sliced, differences_equal_the_integers)
{
    tu_rng_t r;
    unsigned it, exact = 0;
    tu_seed(&r, 17);
    for (it = 0; it < 20000; ++it) {
        const unsigned m = 1 + (unsigned)tu_below(&r, 32);
        const unsigned bits = 1 + (unsigned)tu_below(&r, 16), start = 1 + (unsigned)tu_below(&r, 20);
        check_sum(&r, 2, 1, m, bits, start, (int)tu_below(&r, 2), GHZ_SLICED_PLANES_F32, 1, &exact);
    }
    cr_assert_gt(exact, 10000u, "only %u exact differences", exact);
}

/* Near the limits: f32 sums of magnitude close to L / k, where 23 planes must hold
 * every delta, and wide f64 blocks. */
Test(sliced, near_the_limits)
{
    tu_rng_t r;
    unsigned it, exact = 0;
    tu_seed(&r, 18);
    for (it = 0; it < 20000; ++it) {
        const unsigned k = 1 + (unsigned)tu_below(&r, 4);
        check_sum(&r, k, 0, 32, 14 + (unsigned)tu_below(&r, 6), 19 + (unsigned)tu_below(&r, 3), 0, GHZ_SLICED_PLANES_F32, 1,
                  &exact);
        check_sum(&r, k, 0, 32, 20 + (unsigned)tu_below(&r, 6), 24 + (unsigned)tu_below(&r, 5), 0, GHZ_SLICED_PLANES_F64, 0,
                  &exact);
    }
    cr_assert_gt(exact, 1000u, "only %u exact sums near the limits", exact);
}

/* Every verdict on a damaged block agrees with the decoder's: CORRUPT only where
 * ghz_quant_rebuild rejects it, TAKEN only where it accepts it, with its integers. */
Test(sliced, verdicts_match_the_decoder)
{
    tu_rng_t r;
    unsigned it, corrupt = 0, taken = 0;
    tu_seed(&r, 19);
    for (it = 0; it < 200000; ++it) {
        const unsigned m = 1 + (unsigned)tu_below(&r, 32);
        int32_t q[32], qd[32];
        uint8_t buf[256];
        fields_t f;
        uint32_t fm = 0, dmask = 0;
        unsigned size, code, flips, i;
        ghz_sliced_t s;
        int v, d;
        if (m > 2 && tu_below(&r, 3) == 0) fm = (uint32_t)tu_next(&r) & (m >= 32u ? 0xFFFFFFFFu : (1u << m) - 1u) & ~1u;
        make_block(&r, m, 1 + (unsigned)tu_below(&r, 12), 1 + (unsigned)tu_below(&r, 20), fm, q);
        memset(buf, 0, sizeof buf);
        code = encode(q, m, fm, buf, &size);
        if (code == GHZ_CODE_RAW || code == GHZ_CODE_FILLED) continue;
        /* a few bits of the payload, or of the code byte's width and class */
        flips = (unsigned)tu_below(&r, 3);
        for (i = 0; i < flips; ++i) buf[tu_below(&r, size + 4)] ^= (uint8_t)(1u << tu_below(&r, 8));
        if (tu_below(&r, 4) == 0) code = (code & ~0x7Fu) | (unsigned)tu_below(&r, 0x80);
        if ((code & GHZ_CODE_W_MASK) == GHZ_CODE_W_SPECIAL) continue;
        read_fields(buf, code, &f);
        d = ghz_quant_decode(buf, code, m, qd, &dmask);
        ghz_sliced_begin(&s);
        v = ghz_sliced_take(&s, GHZ_SLICED_PLANES_F64, 0, code, m, f.mask, f.zz, f.sign, f.p, f.top, 0, 0);
        if (v == GHZ_SLICED_CORRUPT) {
            cr_assert_eq(d, -1, "sliced rejects a block the decoder accepts (code 0x%02x)", code);
            ++corrupt;
        } else if (v == GHZ_SLICED_TAKEN) {
            int32_t got[32];
            unsigned j;
            cr_assert_eq(d, 0, "sliced takes a block the decoder rejects (code 0x%02x)", code);
            cr_assert_eq(s.fmask, dmask);
            ghz_sliced_values(&s, GHZ_SLICED_PLANES_F64, got);
            for (j = 0; j < 32; ++j) cr_assert_eq(got[j], qd[j]);
            ++taken;
        }
    }
    cr_assert_gt(corrupt, 10000u);
    cr_assert_gt(taken, 10000u);
}

/* A block whose integers may meet the fill value's integer goes to the decode. */
Test(sliced, fill_integer_goes_to_the_decode)
{
    int32_t q[32];
    uint8_t buf[256];
    fields_t f;
    unsigned size, code, j;
    ghz_sliced_t s;
    memset(buf, 0, sizeof buf);
    for (j = 0; j < 32; ++j) q[j] = 100 + (int32_t)(j % 3);
    code = encode(q, 32, 0, buf, &size);
    read_fields(buf, code, &f);
    ghz_sliced_begin(&s);
    cr_assert_eq(ghz_sliced_take(&s, GHZ_SLICED_PLANES_F32, 0, code, 32, f.mask, f.zz, f.sign, f.p, f.top, 1, 101),
                 GHZ_SLICED_DECODE);
    cr_assert_eq(ghz_sliced_take(&s, GHZ_SLICED_PLANES_F32, 0, code, 32, f.mask, f.zz, f.sign, f.p, f.top, 1, 5000),
                 GHZ_SLICED_TAKEN);
}
