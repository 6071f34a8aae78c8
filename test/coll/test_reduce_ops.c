/* test/coll/test_reduce_ops.c: the CPU backend's exact reductions
 * (ghz/coll/detail/reduce_ops.h) against a one-element-at-a-time reference written
 * here from that header's text: integers widened to 64 bits and cut back to the width,
 * floats through branches on bit patterns. Every (dtype, op) pair, aligned and
 * misaligned buffers, dst == src, lengths 0, 1, 7 and 1000003, and 1 vs 2 vs all
 * threads; guard bytes around dst catch writes outside it. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/reduce_ops.h"

#define NOPS 11 /* GHZ_OP_SUM .. GHZ_OP_BXOR */
#define GUARD 0xA5u

static const ghz_dtype_t all_dtypes[] = {GHZ_F32, GHZ_F64, GHZ_I8,  GHZ_U8,  GHZ_I16,
                                         GHZ_U16, GHZ_I32, GHZ_U32, GHZ_I64, GHZ_U64};
static const size_t lengths[] = {0, 1, 7, 1000003};

/* ---- the reference ---------------------------------------------------------------- */

static int is_float(ghz_dtype_t t)
{
    return t == GHZ_F32 || t == GHZ_F64;
}

static int is_signed(ghz_dtype_t t)
{
    return t == GHZ_I8 || t == GHZ_I16 || t == GHZ_I32 || t == GHZ_I64;
}

/* Which pairs the header defines, restated. */
static int defined_pair(ghz_dtype_t t, int op)
{
    if (op == GHZ_OP_SUM || op == GHZ_OP_PROD || op == GHZ_OP_MIN || op == GHZ_OP_MAX) return 1;
    return is_float(t) ? op == GHZ_OP_AVG : op != GHZ_OP_AVG;
}

/* Element i of p as its bits, zero-extended (little-endian host assumed, as x86). */
static uint64_t get_bits(const unsigned char* p, size_t es, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, p + i * es, es);
    return v;
}

static void put_bits(unsigned char* p, size_t es, size_t i, uint64_t v)
{
    memcpy(p + i * es, &v, es);
}

static uint64_t width_mask(size_t es)
{
    return es == 8u ? ~0ull : (1ull << (8u * es)) - 1u;
}

static int64_t as_signed(uint64_t v, size_t es)
{
    const unsigned sh = 64u - 8u * (unsigned)es;
    return (int64_t)(v << sh) >> sh; /* arithmetic shift: GCC and Clang define it */
}

static uint64_t ref_int(ghz_dtype_t t, int op, uint64_t a, uint64_t b)
{
    const size_t es = ghz_dtype_size(t);
    const int sg = is_signed(t);
    const int lt = sg ? as_signed(b, es) < as_signed(a, es) : b < a; /* y < x */
    uint64_t r;
    switch (op) {
    case GHZ_OP_SUM: r = a + b; break;
    case GHZ_OP_PROD: r = a * b; break; /* low bits of the exact product */
    case GHZ_OP_MIN: r = lt ? b : a; break;
    case GHZ_OP_MAX: r = (!lt && a != b) ? b : a; break;
    case GHZ_OP_LAND: r = a && b; break;
    case GHZ_OP_LOR: r = a || b; break;
    case GHZ_OP_LXOR: r = !a != !b; break;
    case GHZ_OP_BAND: r = a & b; break;
    case GHZ_OP_BOR: r = a | b; break;
    default: r = a ^ b; break;
    }
    return r & width_mask(es);
}

static int nan_bits(ghz_dtype_t t, uint64_t u)
{
    if (t == GHZ_F32) return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0;
    return (u & 0x7FF0000000000000ull) == 0x7FF0000000000000ull &&
           (u & 0x000FFFFFFFFFFFFFull) != 0;
}

static double to_double(ghz_dtype_t t, uint64_t u)
{
    if (t == GHZ_F32) {
        const uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        return f;
    }
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* Float result bits. SUM and PROD in the dtype (FLT_EVAL_METHOD 0 on x86-64). */
static uint64_t ref_float(ghz_dtype_t t, int op, uint64_t a, uint64_t b)
{
    const uint64_t qbit = t == GHZ_F32 ? 1ull << 22 : 1ull << 51;
    uint64_t r = 0;
    if (op == GHZ_OP_MIN || op == GHZ_OP_MAX) {
        const double x = to_double(t, a), y = to_double(t, b); /* exact widening */
        if (nan_bits(t, a)) return a | qbit;
        if (nan_bits(t, b)) return b | qbit;
        if (op == GHZ_OP_MIN) return y < x ? b : a;
        return y > x ? b : a;
    }
    if (t == GHZ_F32) {
        float x, y, z;
        uint32_t wa = (uint32_t)a, wb = (uint32_t)b, wz;
        memcpy(&x, &wa, 4);
        memcpy(&y, &wb, 4);
        z = op == GHZ_OP_PROD ? x * y : x + y;
        memcpy(&wz, &z, 4);
        r = wz;
    } else {
        double x, y, z;
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        z = op == GHZ_OP_PROD ? x * y : x + y;
        memcpy(&r, &z, 8);
    }
    return r;
}

static uint64_t ref_op(ghz_dtype_t t, int op, uint64_t a, uint64_t b)
{
    return is_float(t) ? ref_float(t, op, a, b) : ref_int(t, op, a, b);
}

/* The header fixes NaN results of float SUM and PROD only as "one IEEE operation":
 * their payload and sign are the hardware's, so only NaN-ness is compared there. */
static int same_result(ghz_dtype_t t, int op, uint64_t want, uint64_t got)
{
    if (is_float(t) && op != GHZ_OP_MIN && op != GHZ_OP_MAX && nan_bits(t, want))
        return nan_bits(t, got);
    return want == got;
}

/* ---- data ------------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t* s)
{
    /* splitmix64: fixed seeds, so a failure replays. */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t special_value(ghz_dtype_t t, uint64_t r)
{
    static const uint64_t f32[] = {
        0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
        0x7F800001u, 0xFF812345u, 0x7FA00000u, 0x00000001u, 0x807FFFFFu, 0x7F7FFFFFu,
        0xFF7FFFFFu, 0x3F800000u, 0xBF800000u, 0x00800000u};
    static const uint64_t f64[] = {
        0x0ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
        0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF0000000000001ull,
        0xFFF0000000001234ull, 0x7FF4000000000000ull, 0x1ull, 0x800FFFFFFFFFFFFFull,
        0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull, 0x3FF0000000000000ull,
        0xBFF0000000000000ull, 0x0010000000000000ull};
    const size_t es = ghz_dtype_size(t);
    const uint64_t m = width_mask(es), top = 1ull << (8u * es - 1u);
    const uint64_t ints[] = {0, 1, m, top, top - 1u, top + 1u, m - 1u, 2};
    if (t == GHZ_F32) return f32[r % 16u];
    if (t == GHZ_F64) return f64[r % 16u];
    return ints[r % 8u];
}

/* n elements: one in four a special value, the rest small numbers (so that sums and
 * products are ordinary and zeros reach the logical ops) or random bits. */
static void fill(unsigned char* p, size_t n, ghz_dtype_t t, uint64_t seed)
{
    const size_t es = ghz_dtype_size(t);
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t r = rng_next(&s);
        uint64_t v;
        if (r % 4u == 0u) {
            v = special_value(t, r >> 8);
        } else if (r % 4u == 1u) {
            v = r >> 7;
        } else {
            const double small = (double)((int)((r >> 16) % 9u) - 4) / (1 + (r >> 40) % 4u);
            if (t == GHZ_F32) {
                const float f = (float)small;
                uint32_t w;
                memcpy(&w, &f, 4);
                v = w;
            } else if (t == GHZ_F64) {
                memcpy(&v, &small, 8);
            } else {
                v = (uint64_t)(int64_t)small;
            }
        }
        put_bits(p, es, i, v & width_mask(es));
    }
}

/* ---- running one case ------------------------------------------------------------- */

/* Byte offsets of dst and src from 16-aligned storage, and whether src is dst. */
typedef struct {
    size_t doff, soff;
    int self;
} layout_t;

static const layout_t layouts[] = {
    {0, 0, 0}, {1, 0, 0}, {0, 3, 0}, {5, 2, 0}, {0, 0, 1}, {3, 3, 1}};

/* Reduces src into dst with the library (nthreads) and checks every element against
 * the reference, and the 16 guard bytes on each side of dst. */
static void check_case(ghz_dtype_t t, int op, size_t n, layout_t lay, int nthreads)
{
    const size_t es = ghz_dtype_size(t), bytes = n * es;
    unsigned char* dbuf = malloc(bytes + 48u);
    unsigned char* sbuf = malloc(bytes + 48u);
    unsigned char* want = malloc(bytes + 1u);
    unsigned char *dst, *src;
    cr_assert(dbuf && sbuf && want);
    memset(dbuf, GUARD, bytes + 48u);
    dst = dbuf + 16u + lay.doff;
    src = lay.self ? dst : sbuf + 16u + lay.soff;
    fill(dst, n, t, 1000u * (uint64_t)t + (uint64_t)op + n);
    if (!lay.self) fill(src, n, t, 7777u + 31u * (uint64_t)t + n);
    for (size_t i = 0; i < n; ++i)
        put_bits(want, es, i, ref_op(t, op, get_bits(dst, es, i), get_bits(src, es, i)));

    ghz_coll_reduce_cpu(dst, src, n, t, (ghz_op_t)op, nthreads);

    for (size_t i = 0; i < n; ++i) {
        const uint64_t w = get_bits(want, es, i), g = get_bits(dst, es, i);
        if (!same_result(t, (int)op == GHZ_OP_AVG ? GHZ_OP_SUM : op, w, g))
            cr_assert_fail("%s %s n=%zu doff=%zu soff=%zu self=%d threads=%d: element %zu is "
                     "0x%llx, want 0x%llx", ghz_dtype_name(t), ghz_op_name((ghz_op_t)op), n,
                     lay.doff, lay.soff, lay.self, nthreads, i, (unsigned long long)g,
                     (unsigned long long)w);
    }
    for (size_t i = 0; i < 16u + lay.doff; ++i) cr_assert_eq(dbuf[i], GUARD);
    for (size_t i = 16u + lay.doff + bytes; i < bytes + 48u; ++i)
        cr_assert_eq(dbuf[i], GUARD, "%s %s n=%zu: byte after dst written", ghz_dtype_name(t),
                     ghz_op_name((ghz_op_t)op), n);
    free(dbuf);
    free(sbuf);
    free(want);
}

/* ---- tests ------------------------------------------------------------------------ */

ParameterizedTestParameters(reduce, every_pair)
{
    return cr_make_param_array(ghz_dtype_t, (void*)all_dtypes,
                               sizeof all_dtypes / sizeof all_dtypes[0]);
}

/* AVG is checked as SUM (the scaling is the caller's). The big length also runs split
 * over 2 threads and over all threads (above 256 Ki elements per thread). */
ParameterizedTest(ghz_dtype_t* dtype, reduce, every_pair)
{
    const ghz_dtype_t t = *dtype;
    for (int op = 0; op < NOPS; ++op) {
        if (!defined_pair(t, op)) continue;
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; ++li)
            for (size_t k = 0; k < sizeof layouts / sizeof layouts[0]; ++k) {
                const size_t n = lengths[li];
                if (n > 1000u && k % 2u == 1u) continue; /* big: three layouts suffice */
                check_case(t, op, n, layouts[k], 1);
            }
        check_case(t, op, 1000003u, layouts[1], 2);
        check_case(t, op, 1000003u, layouts[4], 0);
    }
}

/* Thread counts give the same bytes, including NaN payloads of float SUM and PROD. */
Test(reduce, same_bytes_for_any_thread_count)
{
    const size_t n = 3u * 256u * 1024u + 77u;
    for (size_t d = 0; d < sizeof all_dtypes / sizeof all_dtypes[0]; ++d) {
        const ghz_dtype_t t = all_dtypes[d];
        const size_t es = ghz_dtype_size(t);
        unsigned char* a = malloc(n * es + 1u);
        unsigned char* b = malloc(n * es + 1u);
        unsigned char* src = malloc(n * es);
        cr_assert(a && b && src);
        for (int op = 0; op < NOPS; ++op) {
            if (!defined_pair(t, op)) continue;
            fill(src, n, t, 5u);
            fill(a + 1, n, t, 9u);
            memcpy(b, a + 1, n * es);
            ghz_coll_reduce_cpu(a + 1, src, n, t, (ghz_op_t)op, 1);
            ghz_coll_reduce_cpu(b, src, n, t, (ghz_op_t)op, 2);
            cr_assert(memcmp(a + 1, b, n * es) == 0, "%s %s: 1 and 2 threads differ",
                      ghz_dtype_name(t), ghz_op_name((ghz_op_t)op));
        }
        free(a);
        free(b);
        free(src);
    }
}

/* Values at the type limits, written out by hand rather than by the reference. */
Test(reduce, integer_wraparound)
{
    int8_t i8a[3] = {127, -128, -128}, i8b[3] = {1, -1, -1};
    uint16_t u16a[2] = {65535u, 65535u}, u16b[2] = {65535u, 1u};
    int32_t i32a[3] = {INT32_MAX, INT32_MIN, INT32_MIN}, i32b[3] = {1, -1, INT32_MIN};
    int64_t i64a[2] = {INT64_MIN, INT64_MAX}, i64b[2] = {-1, 2};
    uint64_t u64a[2] = {UINT64_MAX, 1ull << 63}, u64b[2] = {1u, 2u};
    uint64_t u64c[1] = {3u}, u64d[1] = {UINT64_MAX};

    ghz_coll_reduce_cpu(i8a, i8b, 2, GHZ_I8, GHZ_OP_SUM, 1);
    ghz_coll_reduce_cpu(i8a + 2, i8b + 2, 1, GHZ_I8, GHZ_OP_PROD, 1);
    cr_assert(i8a[0] == -128 && i8a[1] == 127 && i8a[2] == -128);
    ghz_coll_reduce_cpu(u16a, u16b, 2, GHZ_U16, GHZ_OP_PROD, 1);
    cr_assert(u16a[0] == 1u && u16a[1] == 65535u);
    ghz_coll_reduce_cpu(i32a, i32b, 2, GHZ_I32, GHZ_OP_SUM, 1);
    ghz_coll_reduce_cpu(i32a + 2, i32b + 2, 1, GHZ_I32, GHZ_OP_PROD, 1);
    cr_assert(i32a[0] == INT32_MIN && i32a[1] == INT32_MAX && i32a[2] == 0);
    ghz_coll_reduce_cpu(i64a, i64b, 2, GHZ_I64, GHZ_OP_SUM, 1);
    cr_assert(i64a[0] == INT64_MAX && i64a[1] == INT64_MIN + 1);
    ghz_coll_reduce_cpu(u64a, u64b, 1, GHZ_U64, GHZ_OP_SUM, 1);
    ghz_coll_reduce_cpu(u64a + 1, u64b + 1, 1, GHZ_U64, GHZ_OP_PROD, 1);
    ghz_coll_reduce_cpu(u64c, u64d, 1, GHZ_U64, GHZ_OP_PROD, 1);
    cr_assert(u64a[0] == 0u && u64a[1] == 0u && u64c[0] == UINT64_MAX - 2u);
}

Test(reduce, integer_order_and_logic_by_hand)
{
    int16_t i16a[2] = {-1, 5}, i16b[2] = {1, -7};
    uint16_t u16a[2] = {65535u, 5u}, u16b[2] = {1u, 65529u};
    uint32_t la[4] = {0u, 0u, 2u, 0x80000000u}, lb[4] = {0u, 3u, 0u, 4u};
    uint32_t lx[4], lo[4];

    ghz_coll_reduce_cpu(i16a, i16b, 2, GHZ_I16, GHZ_OP_MIN, 1);
    cr_assert(i16a[0] == -1 && i16a[1] == -7);
    ghz_coll_reduce_cpu(u16a, u16b, 2, GHZ_U16, GHZ_OP_MIN, 1);
    cr_assert(u16a[0] == 1u && u16a[1] == 5u);
    memcpy(lx, la, sizeof la);
    memcpy(lo, la, sizeof la);
    ghz_coll_reduce_cpu(la, lb, 4, GHZ_U32, GHZ_OP_LAND, 1);
    ghz_coll_reduce_cpu(lx, lb, 4, GHZ_U32, GHZ_OP_LXOR, 1);
    ghz_coll_reduce_cpu(lo, lb, 4, GHZ_I32, GHZ_OP_LOR, 1);
    cr_assert(la[0] == 0u && la[1] == 0u && la[2] == 0u && la[3] == 1u);
    cr_assert(lx[0] == 0u && lx[1] == 1u && lx[2] == 1u && lx[3] == 0u);
    cr_assert(lo[0] == 0u && lo[1] == 1u && lo[2] == 1u && lo[3] == 1u);
}

/* HOMO.md's MIN/MAX bits: first operand on ties (-0 vs +0), x's NaN before y's, NaNs
 * come out quiet with sign and payload kept. */
Test(reduce, float_min_max_bits_by_hand)
{
    const uint32_t xa[6] = {0x80000000u, 0x00000000u, 0x7F800001u, 0x3F800000u, 0xFF812345u,
                            0xFF800000u};
    const uint32_t ya[6] = {0x00000000u, 0x80000000u, 0x3F800000u, 0x7FA00001u, 0x7FC00000u,
                            0x3F800000u};
    const uint32_t min_want[6] = {0x80000000u, 0x00000000u, 0x7FC00001u, 0x7FE00001u,
                                  0xFFC12345u, 0xFF800000u};
    const uint32_t max_want[6] = {0x80000000u, 0x00000000u, 0x7FC00001u, 0x7FE00001u,
                                  0xFFC12345u, 0x3F800000u};
    const uint64_t xd[3] = {0x8000000000000000ull, 0x7FF0000000000001ull, 0x3FF0000000000000ull};
    const uint64_t yd[3] = {0x0ull, 0x7FF8000000000002ull, 0xFFF0000000000003ull};
    const uint64_t dmin_want[3] = {0x8000000000000000ull, 0x7FF8000000000001ull,
                                   0xFFF8000000000003ull};
    uint32_t mn[6], mx[6];
    uint64_t dmn[3];
    memcpy(mn, xa, sizeof mn);
    memcpy(mx, xa, sizeof mx);
    memcpy(dmn, xd, sizeof dmn);
    ghz_coll_reduce_cpu(mn, ya, 6, GHZ_F32, GHZ_OP_MIN, 1);
    ghz_coll_reduce_cpu(mx, ya, 6, GHZ_F32, GHZ_OP_MAX, 1);
    ghz_coll_reduce_cpu(dmn, yd, 3, GHZ_F64, GHZ_OP_MIN, 1);
    for (int i = 0; i < 6; ++i) {
        cr_expect_eq(mn[i], min_want[i], "f32 min case %d: 0x%x", i, mn[i]);
        cr_expect_eq(mx[i], max_want[i], "f32 max case %d: 0x%x", i, mx[i]);
    }
    for (int i = 0; i < 3; ++i)
        cr_expect_eq(dmn[i], dmin_want[i], "f64 min case %d: 0x%llx", i,
                     (unsigned long long)dmn[i]);
}

Test(reduce, zero_length_touches_nothing)
{
    unsigned char b[8];
    memset(b, GUARD, sizeof b);
    for (size_t d = 0; d < sizeof all_dtypes / sizeof all_dtypes[0]; ++d)
        ghz_coll_reduce_cpu(b, b + 1, 0, all_dtypes[d], GHZ_OP_SUM, 1);
    ghz_coll_scale_cpu(b, 0, GHZ_F64, 0.5, 1);
    for (size_t i = 0; i < sizeof b; ++i) cr_assert_eq(b[i], GUARD);
    ghz_coll_reduce_cpu(NULL, NULL, 0, GHZ_F32, GHZ_OP_MAX, 2); /* n = 0: no access */
}

/* ---- op_check ---------------------------------------------------------------------- */

Test(op_check, exactly_the_defined_pairs)
{
    for (int t = -2; t <= 13; ++t)
        for (int op = -2; op <= 13; ++op) {
            const ghz_status_t st = ghz_coll_op_check((ghz_dtype_t)t, (ghz_op_t)op);
            const int known = t >= 1 && t <= 10 && op >= 0 && op <= 10;
            const ghz_status_t want = !known ? GHZ_ERR_INVALID_ARG
                                      : defined_pair((ghz_dtype_t)t, op) ? GHZ_SUCCESS
                                                                          : GHZ_ERR_UNSUPPORTED;
            cr_expect_eq(st, want, "dtype %d op %d: status %d, want %d", t, op, (int)st,
                         (int)want);
            if (st != GHZ_SUCCESS) cr_expect(ghz_last_error_detail()[0] != '\0');
        }
    cr_assert_eq(ghz_coll_op_check(GHZ_I32, GHZ_OP_AVG), GHZ_ERR_UNSUPPORTED);
    cr_assert_eq(ghz_coll_op_check(GHZ_F32, GHZ_OP_BAND), GHZ_ERR_UNSUPPORTED);
    cr_assert_eq(ghz_coll_op_check(GHZ_F64, GHZ_OP_LXOR), GHZ_ERR_UNSUPPORTED);
    cr_assert_eq(ghz_coll_op_check(GHZ_U8, GHZ_OP_BXOR), GHZ_SUCCESS);
}

/* ---- scale -------------------------------------------------------------------------- */

/* HOMO.md's decode with scale: dtype(double(x) * s); NaN x -> x quieted; a NaN product
 * of non-NaN operands -> the positive default NaN. */
static uint64_t ref_scale(ghz_dtype_t t, uint64_t a, double s)
{
    const double p = to_double(t, a) * s;
    uint64_t r;
    if (nan_bits(t, a)) return a | (t == GHZ_F32 ? 1ull << 22 : 1ull << 51);
    if (isnan(p)) return t == GHZ_F32 ? 0x7FC00000ull : 0x7FF8000000000000ull;
    if (t == GHZ_F32) {
        const float f = (float)p;
        uint32_t w;
        memcpy(&w, &f, 4);
        return w;
    }
    memcpy(&r, &p, 8);
    return r;
}

Test(scale, floats_against_reference)
{
    const double factors[] = {1.0 / 3.0, 1.0 / 7.0, 0.5, 0.0, -1.0 / 6.0};
    for (int d = 0; d < 2; ++d) {
        const ghz_dtype_t t = d ? GHZ_F64 : GHZ_F32;
        const size_t es = ghz_dtype_size(t);
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; ++li)
            for (size_t f = 0; f < sizeof factors / sizeof factors[0]; ++f)
                for (size_t off = 0; off < 2u; ++off)
                    for (int nt = 1; nt <= 2; ++nt) {
                        const size_t n = lengths[li];
                        unsigned char* buf = malloc(n * es + 8u);
                        unsigned char* orig = malloc(n * es + 1u);
                        cr_assert(buf && orig);
                        fill(buf + off, n, t, 42u + n);
                        memcpy(orig, buf + off, n * es);
                        ghz_coll_scale_cpu(buf + off, n, t, factors[f], nt);
                        for (size_t i = 0; i < n; ++i) {
                            const uint64_t w = ref_scale(t, get_bits(orig, es, i), factors[f]);
                            const uint64_t g = get_bits(buf + off, es, i);
                            if (w != g)
                                cr_assert_fail("scale %s n=%zu s=%g off=%zu threads=%d: element %zu "
                                         "is 0x%llx, want 0x%llx", ghz_dtype_name(t), n,
                                         factors[f], off, nt, i, (unsigned long long)g,
                                         (unsigned long long)w);
                        }
                        free(buf);
                        free(orig);
                    }
    }
}

/* Not a float dtype: nothing happens. */
Test(scale, integers_untouched)
{
    int32_t v[3] = {1, 2, 3};
    ghz_coll_scale_cpu(v, 3, GHZ_I32, 0.5, 1);
    cr_assert(v[0] == 1 && v[1] == 2 && v[2] == 3);
}
