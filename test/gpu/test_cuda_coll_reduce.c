/* test/gpu/test_cuda_coll_reduce.c: the CUDA backend's exact reductions, AVG's scaling
 * and the value range (ghz/coll/detail/reduce_cuda.h) against the CPU backend's
 * (reduce_ops.h, the reference), bit for bit.
 *
 * Every (dtype, op) pair the CPU defines, n in {0, 1, 3, 17, 1000003}, on inputs full
 * of special values (NaN with payloads, quiet and signalling, of both signs; -0 and +0;
 * infinities; subnormals; the largest finite values; ties and negated ties between
 * the operands; integer 0, 1, -1 and the smallest signed value) and in each of the
 * kernel's paths: aligned vectors, vectors after a scalar head (one shared offset),
 * typed scalars (different offsets), bytes (pointers not element-aligned), and the
 * output aliasing either input. Guard bytes around the output catch writes outside
 * it; inputs that are not the output must come back unchanged.
 *
 * Float SUM and PROD (AVG) are one IEEE operation whose NaN is the hardware's
 * (COLL.md, Exact reductions): where the CPU's result is a NaN, the GPU's must be a
 * NaN, any payload. Everything else must match bit for bit.
 *
 * Environment (for runs under compute-sanitizer, which are ~100x slower):
 * GHZ_COLL_TEST_N caps the largest n of the table (default 1000003), and
 * GHZ_COLL_TEST_LARGE_N sets grid_stride_large's n (default 40000003). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_testutil.h"
#include "ghz/coll/detail/reduce_cuda.h"
#include "ghz/coll/detail/reduce_ops.h"

/* The calls under test run on a non-blocking stream (nothing of the legacy stream
 * orders them), and the test stages its buffers with cudaMemset and cudaMemcpy on the
 * legacy stream: a memset returns before it is done, and a copy from pageable memory
 * may return before its DMA is. Each staging step therefore ends with a device-wide
 * wait, or a kernel could read or overwrite half-staged memory. */
#define STAGE(call)                          \
    do {                                     \
        CK(call);                            \
        CK(cudaDeviceSynchronize());         \
    } while (0)

#define NOPS 11 /* GHZ_OP_SUM .. GHZ_OP_BXOR */
#define NMAX ((size_t)1000003)
#define GUARD 0xA5u
#define MARGIN 64u                            /* guard bytes checked on each side */
#define CAP (NMAX * 8u + 2u * MARGIN + 64u)   /* bytes of each device buffer (offsets < 64) */

static const ghz_dtype_t all_dtypes[] = {GHZ_F32, GHZ_F64, GHZ_I8,  GHZ_U8,  GHZ_I16,
                                         GHZ_U16, GHZ_I32, GHZ_U32, GHZ_I64, GHZ_U64};
static size_t lengths[] = {0, 1, 3, 17, NMAX};
#define NLENGTHS (sizeof lengths / sizeof lengths[0])

/* The value of environment variable name, at most cap; dflt when unset. */
static size_t env_size(const char* name, size_t dflt, size_t cap)
{
    const char* v = getenv(name);
    const size_t n = v && *v ? (size_t)strtoull(v, NULL, 10) : dflt;
    return n < cap ? n : cap;
}

/* Every test starts here: skips without a GPU, applies GHZ_COLL_TEST_N. */
static void setup(void)
{
    need_gpu();
    lengths[NLENGTHS - 1] = env_size("GHZ_COLL_TEST_N", NMAX, NMAX);
}

/* ---- inputs ----------------------------------------------------------------------- */

static int is_float(ghz_dtype_t t)
{
    return t == GHZ_F32 || t == GHZ_F64;
}

/* One value of size es as its bits: for floats a special value one time in three
 * (NaN payloads, infinities, zeros, subnormals, the largest binade), else a normal
 * number within 2^+-20 of 1 (sums and products that round); for integers 0, 1, all
 * ones, the sign bit alone, or random bits. */
static uint64_t value_bits(uint64_t* rng, size_t es, int fl)
{
    const uint64_t r = gpu_rng(rng), m_all = gpu_rng(rng);
    if (!fl) {
        switch (r % 8u) {
        case 0: return 0;
        case 1: return 1;
        case 2: return ~0ull;
        case 3: return 1ull << (8u * es - 1u);
        default: return m_all;
        }
    }
    const unsigned mbits = es == 4u ? 23u : 52u, ebits = es == 4u ? 8u : 11u;
    const uint64_t emax = (1ull << ebits) - 1u, sign = (r >> 8) & 1u;
    uint64_t m = m_all & ((1ull << mbits) - 1u), e;
    switch (r % 16u) {
    case 0: e = emax; m = m ? m : 1u; break; /* NaN: any payload, quiet or signalling */
    case 1: e = emax; m = 0; break;          /* infinity */
    case 2: e = 0; m = 0; break;             /* zero */
    case 3: e = 0; m = m ? m : 1u; break;    /* subnormal */
    case 4: e = emax - 1u; break;            /* the largest binade: sums overflow */
    default: e = (emax >> 1) - 20u + (gpu_rng(rng) % 41u); break;
    }
    return sign << (8u * es - 1u) | e << mbits | m;
}

/* n operand pairs into xa, xb (element arrays, packed): b ties a (same bits) one time
 * in sixteen and is a with its sign flipped one time in sixteen (x + -x, -0 vs +0). */
static void make_pairs(uint64_t seed, ghz_dtype_t t, size_t n, unsigned char* xa, unsigned char* xb)
{
    const size_t es = ghz_dtype_size(t);
    uint64_t rng = seed;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t x = value_bits(&rng, es, is_float(t)), r = gpu_rng(&rng) % 16u;
        const uint64_t y = r == 0 ? x : r == 1 ? x ^ 1ull << (8u * es - 1u) : value_bits(&rng, es, is_float(t));
        memcpy(xa + i * es, &x, es);
        memcpy(xb + i * es, &y, es);
    }
}

static int is_nan_bits(uint64_t u, size_t es)
{
    return es == 4u ? (u >> 23 & 0xFFu) == 0xFFu && (u & 0x7FFFFFu) != 0u
                    : (u >> 52 & 0x7FFu) == 0x7FFu && (u & 0xFFFFFFFFFFFFFull) != 0u;
}

/* ---- buffers ---------------------------------------------------------------------- */

/* Device buffers A, B, O of CAP bytes and their host images (the element arrays at a
 * given offset, GUARD elsewhere), the expected and the fetched results. */
typedef struct {
    unsigned char *dA, *dB, *dO;
    unsigned char *hA, *hB, *xa, *xb, *exp, *got;
    cudaStream_t s;
} ctx_t;

static ctx_t ctx_new(void)
{
    ctx_t c;
    CK(cudaMalloc((void**)&c.dA, CAP));
    CK(cudaMalloc((void**)&c.dB, CAP));
    CK(cudaMalloc((void**)&c.dO, CAP));
    CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
    c.hA = malloc(CAP);
    c.hB = malloc(CAP);
    c.xa = malloc(NMAX * 8u);
    c.xb = malloc(NMAX * 8u);
    c.exp = malloc(NMAX * 8u);
    c.got = malloc(CAP);
    cr_assert(c.hA && c.hB && c.xa && c.xb && c.exp && c.got);
    return c;
}

static void ctx_free(ctx_t* c)
{
    CK(cudaFree(c->dA));
    CK(cudaFree(c->dB));
    CK(cudaFree(c->dO));
    CK(cudaStreamDestroy(c->s));
    free(c->hA);
    free(c->hB);
    free(c->xa);
    free(c->xb);
    free(c->exp);
    free(c->got);
}

/* Host image of a device buffer: GUARD, with n elements of x at MARGIN + off. */
static void stage(unsigned char* h, const unsigned char* x, size_t n, size_t es, size_t off)
{
    memset(h, GUARD, CAP);
    memcpy(h + MARGIN + off, x, n * es);
}

/* ---- checking --------------------------------------------------------------------- */

/* Whether a NaN result of op on t may carry any payload: float SUM, PROD and AVG. */
static int nan_is_hardwares(ghz_dtype_t t, ghz_op_t op)
{
    return is_float(t) && (op == GHZ_OP_SUM || op == GHZ_OP_PROD || op == GHZ_OP_AVG);
}

/* got[0..n) against exp[0..n) (elements of dtype t), bit for bit, except that with
 * any_nan a NaN expected is matched by any NaN; what names the case in a failure. */
static void expect_elems(const unsigned char* got, const unsigned char* exp, size_t n, ghz_dtype_t t,
                         int any_nan, const char* what)
{
    const size_t es = ghz_dtype_size(t);
    for (size_t i = 0; i < n; ++i) {
        uint64_t g = 0, e = 0;
        memcpy(&g, got + i * es, es);
        memcpy(&e, exp + i * es, es);
        if (g == e || (any_nan && is_nan_bits(e, es) && is_nan_bits(g, es))) continue;
        cr_assert_fail("%s (%s): element %zu of %zu: expected %#llx, got %#llx", what, ghz_dtype_name(t), i,
                       n, (unsigned long long)e, (unsigned long long)g);
    }
}

/* The device buffer d whose result region starts at MARGIN + off: fetches the region
 * and MARGIN bytes on each side, which must still hold what they held before the call:
 * before[i] (the buffer's host image) or, with before NULL, GUARD. Returns the region. */
static const unsigned char* fetch(ctx_t* c, const unsigned char* d, const unsigned char* before, size_t off,
                                  size_t bytes, const char* what)
{
    const size_t lo = off, hi = MARGIN + off + bytes + MARGIN; /* [off, hi) covers both sides */
    CK(cudaMemcpy(c->got + lo, d + lo, hi - lo, cudaMemcpyDeviceToHost));
    for (size_t i = lo; i < hi; ++i) {
        if (i >= MARGIN + off && i < MARGIN + off + bytes) continue;
        cr_assert_eq(c->got[i], before ? before[i] : GUARD, "%s: byte %zd outside the output was written", what,
                     (ptrdiff_t)i - (ptrdiff_t)(MARGIN + off));
    }
    return c->got + MARGIN + off;
}

/* The result offsets (bytes past MARGIN) of out, a and b, and which input out is. */
typedef struct {
    size_t o, a, b;
    int alias; /* 0: out is its own buffer; 1: out == a; 2: out == b */
} layout_t;

/* Every defined (op, n) of dtype t in layout L: inputs staged once, the output
 * buffer (or the aliased input) restored before each call; then the inputs that are
 * not the output must be unchanged. */
static void check_layout(ctx_t* c, ghz_dtype_t t, layout_t L, const char* what)
{
    const size_t es = ghz_dtype_size(t);
    make_pairs(0x5EEDull * (uint64_t)t + L.o * 131u + L.a * 7u + L.b, t, NMAX, c->xa, c->xb);
    stage(c->hA, c->xa, NMAX, es, L.a);
    stage(c->hB, c->xb, NMAX, es, L.b);
    STAGE(cudaMemcpy(c->dA, c->hA, CAP, cudaMemcpyHostToDevice));
    STAGE(cudaMemcpy(c->dB, c->hB, CAP, cudaMemcpyHostToDevice));
    for (int op = 0; op < NOPS; ++op) {
        if (ghz_coll_op_check(t, (ghz_op_t)op) != GHZ_SUCCESS) continue;
        for (size_t k = 0; k < NLENGTHS; ++k) {
            const size_t n = lengths[k];
            unsigned char* const pa = c->dA + MARGIN + L.a;
            unsigned char* const pb = c->dB + MARGIN + L.b;
            unsigned char* const dbuf = L.alias == 1 ? c->dA : L.alias == 2 ? c->dB : c->dO;
            const size_t ooff = L.alias == 1 ? L.a : L.alias == 2 ? L.b : L.o;
            char name[160];
            snprintf(name, sizeof name, "%s, %s n=%zu", what, ghz_op_name((ghz_op_t)op), n);
            if (L.alias == 0) STAGE(cudaMemset(c->dO, GUARD, CAP));
            memcpy(c->exp, c->xa, n * es);
            ghz_coll_reduce_cpu(c->exp, c->xb, n, t, (ghz_op_t)op, 1);
            GK(ghz_coll_reduce_cuda(dbuf + MARGIN + ooff, pa, pb, n, t, (ghz_op_t)op, c->s));
            CK(cudaStreamSynchronize(c->s));
            expect_elems(fetch(c, dbuf, L.alias == 1 ? c->hA : L.alias == 2 ? c->hB : NULL, ooff, n * es, name), c->exp, n, t, nan_is_hardwares(t, (ghz_op_t)op),
                         name);
            /* the aliased input back to its value for the next call */
            if (L.alias != 0) {
                const unsigned char* h = (L.alias == 1 ? c->hA : c->hB) + MARGIN + ooff;
                STAGE(cudaMemcpy(dbuf + MARGIN + ooff, h, n * es, cudaMemcpyHostToDevice));
            }
        }
    }
    CK(cudaMemcpy(c->got, c->dA, CAP, cudaMemcpyDeviceToHost));
    cr_assert(memcmp(c->got, c->hA, CAP) == 0, "%s: %s: input a changed", what, ghz_dtype_name(t));
    CK(cudaMemcpy(c->got, c->dB, CAP, cudaMemcpyDeviceToHost));
    cr_assert(memcmp(c->got, c->hB, CAP) == 0, "%s: %s: input b changed", what, ghz_dtype_name(t));
}

/* ---- the reductions --------------------------------------------------------------- */

/* The layouts, by group (one Test each): offsets of out, a and b in elements, then in
 * bytes, and which input out is. */
typedef struct {
    const char* group;
    size_t oe, ae, be, ob, ab, bb;
    int alias;
    const char* what;
} layout_case_t;

static const layout_case_t layout_cases[] = {
    {"aligned", 0, 0, 0, 0, 0, 0, 0, "aligned"},
    /* one shared offset: a scalar head of different lengths, then vectors */
    {"head", 1, 1, 1, 0, 0, 0, 0, "offset 1 element"},
    {"head", 3, 3, 3, 0, 0, 0, 0, "offset 3 elements"},
    /* different offsets within 16 bytes: no vectors, typed elements */
    {"scalar", 0, 1, 2, 0, 0, 0, 0, "offsets 0, 1, 2 elements"},
    {"scalar", 2, 0, 1, 0, 0, 0, 0, "offsets 2, 0, 1 elements"},
    /* not aligned to the element: byte by byte (1-byte types: typed) */
    {"bytes", 0, 0, 0, 1, 1, 1, 0, "offset 1 byte"},
    {"bytes", 0, 0, 0, 3, 5, 7, 0, "offsets 3, 5, 7 bytes"},
    {"alias_a", 0, 0, 0, 0, 0, 0, 1, "out == a, aligned"},
    {"alias_a", 0, 1, 1, 0, 0, 0, 1, "out == a, offset 1 element"},
    {"alias_a", 0, 0, 2, 0, 0, 0, 1, "out == a, b offset 2 elements"},
    {"alias_b", 0, 0, 0, 0, 0, 0, 2, "out == b, aligned"},
    {"alias_b", 0, 1, 1, 0, 0, 0, 2, "out == b, offset 1 element"},
    {"alias_b", 0, 0, 0, 0, 1, 3, 2, "out == b, unaligned bytes"},
};

static void run_group(const char* group)
{
    setup();
    ctx_t c = ctx_new();
    for (size_t k = 0; k < sizeof layout_cases / sizeof layout_cases[0]; ++k) {
        const layout_case_t* lc = &layout_cases[k];
        if (strcmp(lc->group, group) != 0) continue;
        for (size_t i = 0; i < sizeof all_dtypes / sizeof all_dtypes[0]; ++i) {
            const size_t es = ghz_dtype_size(all_dtypes[i]);
            const layout_t L = {lc->oe * es + lc->ob, lc->ae * es + lc->ab, lc->be * es + lc->bb, lc->alias};
            check_layout(&c, all_dtypes[i], L, lc->what);
        }
    }
    ctx_free(&c);
}

Test(cuda_coll_reduce, aligned) { run_group("aligned"); }
Test(cuda_coll_reduce, same_offset_scalar_head) { run_group("head"); }
Test(cuda_coll_reduce, different_offsets_scalar) { run_group("scalar"); }
Test(cuda_coll_reduce, unaligned_bytes) { run_group("bytes"); }
Test(cuda_coll_reduce, out_aliases_a) { run_group("alias_a"); }
Test(cuda_coll_reduce, out_aliases_b) { run_group("alias_b"); }

/* out == a == b: op(x, x) everywhere (the CPU's dst == src loop). */
Test(cuda_coll_reduce, all_three_the_same)
{
    setup();
    ctx_t c = ctx_new();
    for (size_t i = 0; i < sizeof all_dtypes / sizeof all_dtypes[0]; ++i) {
        const ghz_dtype_t t = all_dtypes[i];
        const size_t es = ghz_dtype_size(t), n = NMAX;
        make_pairs(77u + (uint64_t)t, t, n, c.xa, c.xb);
        stage(c.hA, c.xa, n, es, es);
        for (int op = 0; op < NOPS; ++op) {
            if (ghz_coll_op_check(t, (ghz_op_t)op) != GHZ_SUCCESS) continue;
            unsigned char* const p = c.dA + MARGIN + es;
            STAGE(cudaMemcpy(c.dA, c.hA, CAP, cudaMemcpyHostToDevice));
            memcpy(c.exp, c.xa, n * es);
            ghz_coll_reduce_cpu(c.exp, c.exp, n, t, (ghz_op_t)op, 1);
            GK(ghz_coll_reduce_cuda(p, p, p, n, t, (ghz_op_t)op, c.s));
            CK(cudaStreamSynchronize(c.s));
            expect_elems(fetch(&c, c.dA, NULL, es, n * es, ghz_op_name((ghz_op_t)op)), c.exp, n, t,
                         nan_is_hardwares(t, (ghz_op_t)op), ghz_op_name((ghz_op_t)op));
        }
    }
    ctx_free(&c);
}

/* ---- AVG's scaling ---------------------------------------------------------------- */

Test(cuda_coll_reduce, scale_equals_cpu)
{
    /* 1/3 rounds, 1e-300 makes f32 underflow and f64 subnormal, 1e300 overflows, 0
     * makes inf * 0: the default NaN */
    static const double scales[] = {0.25, 1.0 / 3.0, 1e-300, 1e300, 0.0};
    setup();
    ctx_t c = ctx_new();
    for (int f = 0; f < 2; ++f) {
        const ghz_dtype_t t = f ? GHZ_F64 : GHZ_F32;
        const size_t es = ghz_dtype_size(t);
        const size_t offs[] = {0, es, 1};
        for (size_t si = 0; si < sizeof scales / sizeof scales[0]; ++si)
            for (size_t oi = 0; oi < 3; ++oi)
                for (size_t k = 0; k < NLENGTHS; ++k) {
                    const size_t n = lengths[k];
                    make_pairs(1000u * si + 10u * oi + (uint64_t)t, t, n, c.xa, c.xb);
                    stage(c.hA, c.xa, n, es, offs[oi]);
                    STAGE(cudaMemcpy(c.dA, c.hA, CAP, cudaMemcpyHostToDevice));
                    memcpy(c.exp, c.xa, n * es);
                    ghz_coll_scale_cpu(c.exp, n, t, scales[si], 1);
                    GK(ghz_coll_scale_cuda(c.dA + MARGIN + offs[oi], n, t, scales[si], c.s));
                    CK(cudaStreamSynchronize(c.s));
                    /* bit for bit, NaNs included: the rule fixes every NaN's bits */
                    expect_elems(fetch(&c, c.dA, NULL, offs[oi], n * es, "scale"), c.exp, n, t, 0, "scale");
                }
    }
    ctx_free(&c);
}

/* ---- the range -------------------------------------------------------------------- */

/* The device range of n elements of x (dtype t) at byte offset off against the CPU
 * backend's (ghz_value_range, nonfinite when it counted fewer than n): the same
 * numbers (-0 == +0), NaN for both when there is no finite value. With h_copy (mapped
 * pinned host memory of CAP bytes), once more with the values copied there at byte
 * offset coff (vector stores when coff == off mod 16, else element or byte ones): the
 * same range, the n values bit for bit, and the guard bytes around them untouched. */
static void check_range(ctx_t* c, ghz_coll_range_acc_t* d_acc, ghz_coll_range_t* d_r, ghz_dtype_t t,
                        const unsigned char* x, size_t n, size_t off, const char* what, unsigned char* h_copy,
                        size_t coff)
{
    ghz_params_t p;
    double vmin, vmax;
    uint64_t count = 0;
    ghz_coll_range_t r;
    const size_t es = ghz_dtype_size(t);
    ghz_params_init(&p);
    p.dtype = t;
    p.nthreads = 1;
    GK(ghz_value_range(&p, x, n, &vmin, &vmax, &count));
    stage(c->hA, x, n, es, off);
    STAGE(cudaMemcpy(c->dA, c->hA, CAP, cudaMemcpyHostToDevice));
    for (int with_copy = 0; with_copy <= (h_copy != NULL); ++with_copy) {
        void* d_copy = NULL;
        if (with_copy) {
            memset(h_copy, GUARD, CAP);
            CK(cudaHostGetDevicePointer(&d_copy, h_copy, 0));
            d_copy = (unsigned char*)d_copy + MARGIN + coff;
        }
        GK(ghz_coll_range_cuda(c->dA + MARGIN + off, n, t, d_acc, d_r, d_copy, c->s));
        CK(cudaMemcpyAsync(&r, d_r, sizeof r, cudaMemcpyDeviceToHost, c->s));
        CK(cudaStreamSynchronize(c->s));
        cr_assert((isnan(vmin) && isnan(r.vmin)) || vmin == r.vmin, "%s%s: %s n=%zu: min %a, expected %a", what,
                  with_copy ? " (with the copy)" : "", ghz_dtype_name(t), n, r.vmin, vmin);
        cr_assert((isnan(vmax) && isnan(r.vmax)) || vmax == r.vmax, "%s%s: %s n=%zu: max %a, expected %a", what,
                  with_copy ? " (with the copy)" : "", ghz_dtype_name(t), n, r.vmax, vmax);
        cr_assert_eq(r.nonfinite, count < n, "%s%s: %s n=%zu: nonfinite %d, expected %d", what,
                     with_copy ? " (with the copy)" : "", ghz_dtype_name(t), n, r.nonfinite, (int)(count < n));
        if (with_copy) {
            cr_assert(memcmp(h_copy + MARGIN + coff, x, n * es) == 0, "%s: %s n=%zu at %zu -> %zu: the copy differs",
                      what, ghz_dtype_name(t), n, off, coff);
            for (size_t i = 0; i < CAP; ++i)
                if (i < MARGIN + coff || i >= MARGIN + coff + n * es)
                    cr_assert_eq(h_copy[i], GUARD, "%s: %s n=%zu: byte %zu outside the copy written", what,
                                 ghz_dtype_name(t), n, i);
        }
    }
}

/* Every call on the same accumulators, never cleared between calls but once: a call
 * that left them dirty (the kernel's last block empties them) would spoil the next
 * one's range, which these cases vary from all finite to none. */
Test(cuda_coll_reduce, range_equals_cpu)
{
    setup();
    ctx_t c = ctx_new();
    ghz_coll_range_t* d_r;
    ghz_coll_range_acc_t* d_acc;
    CK(cudaMalloc((void**)&d_r, sizeof *d_r));
    unsigned char* h_copy;
    CK(cudaMalloc((void**)&d_acc, sizeof *d_acc));
    STAGE(cudaMemset(d_acc, 0, sizeof *d_acc));
    CK(cudaHostAlloc((void**)&h_copy, CAP, cudaHostAllocMapped));
    for (int f = 0; f < 2; ++f) {
        const ghz_dtype_t t = f ? GHZ_F64 : GHZ_F32;
        const size_t es = ghz_dtype_size(t);
        const size_t offs[] = {0, es, 1};
        for (size_t oi = 0; oi < 3; ++oi) {
            /* where the copy goes: at the input's offset (vectors), a byte on, an element on */
            const size_t coffs[] = {offs[oi], offs[oi] + 1, offs[oi] + es};
            for (size_t k = 0; k < NLENGTHS; ++k) {
                const size_t n = lengths[k];
                /* special values (some not finite) */
                make_pairs(31u * k + oi + (uint64_t)t, t, n, c.xa, c.xb);
                check_range(&c, d_acc, d_r, t, c.xa, n, offs[oi], "specials", h_copy, coffs[(k + oi) % 3]);
                /* finite only: the specials with every NaN and infinity made 1.5 */
                for (size_t i = 0; i < n; ++i) {
                    uint64_t u = 0;
                    memcpy(&u, c.xa + i * es, es);
                    const int inf_nan = es == 4u ? (u >> 23 & 0xFFu) == 0xFFu : (u >> 52 & 0x7FFu) == 0x7FFu;
                    if (inf_nan) u = es == 4u ? 0x3FC00000u : 0x3FF8000000000000ull;
                    memcpy(c.xa + i * es, &u, es);
                }
                check_range(&c, d_acc, d_r, t, c.xa, n, offs[oi], "finite", h_copy, coffs[(k + oi + 1) % 3]);
                /* nothing finite: NaN, -inf, +inf in turn */
                for (size_t i = 0; i < n; ++i) {
                    const uint64_t u = es == 4u ? (i % 3 == 0 ? 0x7FC00001u : i % 3 == 1 ? 0xFF800000u : 0x7F800000u)
                                                : (i % 3 == 0 ? 0xFFF8000000000002ull
                                                   : i % 3 == 1 ? 0xFFF0000000000000ull : 0x7FF0000000000000ull);
                    memcpy(c.xa + i * es, &u, es);
                }
                check_range(&c, d_acc, d_r, t, c.xa, n, offs[oi], "no finite value", h_copy, coffs[(k + oi + 2) % 3]);
                /* zeros of both signs and one subnormal at the end */
                for (size_t i = 0; i < n; ++i) {
                    uint64_t u = (i & 1u) ? 1ull << (8u * es - 1u) : 0u;
                    if (i + 1 == n && n > 3) u = 1;
                    memcpy(c.xa + i * es, &u, es);
                }
                check_range(&c, d_acc, d_r, t, c.xa, n, offs[oi], "zeros", NULL, 0);
            }
        }
    }
    CK(cudaFree(d_r));
    CK(cudaFree(d_acc));
    CK(cudaFreeHost(h_copy));
    ctx_free(&c);
}

/* The result straight into mapped pinned host memory (what the CUDA backend does, with
 * no copy of its own): a large range, then a small one inside it, then none, read on the
 * host after the stream, each as the CPU computes it. */
Test(cuda_coll_reduce, range_into_pinned_host_memory)
{
    setup();
    ctx_t c = ctx_new();
    ghz_coll_range_acc_t* d_acc;
    ghz_coll_range_t *h_r, *d_hr;
    static const float big[] = {-1e30f, 3.0f, 7e29f, 0.5f, -2.0f};
    static const float small[] = {0.25f, -0.125f, 0.5f, 0.375f};
    static const float none[] = {NAN, INFINITY, -INFINITY};
    CK(cudaMalloc((void**)&d_acc, sizeof *d_acc));
    STAGE(cudaMemset(d_acc, 0, sizeof *d_acc));
    CK(cudaHostAlloc((void**)&h_r, sizeof *h_r, cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void**)&d_hr, h_r, 0));
    STAGE(cudaMemcpy(c.dA, big, sizeof big, cudaMemcpyHostToDevice));
    GK(ghz_coll_range_cuda(c.dA, 5, GHZ_F32, d_acc, d_hr, NULL, c.s));
    CK(cudaStreamSynchronize(c.s));
    cr_assert(h_r->vmin == -1e30f && h_r->vmax == 7e29f && !h_r->nonfinite, "big: [%g, %g] %d", h_r->vmin,
              h_r->vmax, h_r->nonfinite);
    STAGE(cudaMemcpy(c.dA, small, sizeof small, cudaMemcpyHostToDevice));
    GK(ghz_coll_range_cuda(c.dA, 4, GHZ_F32, d_acc, d_hr, NULL, c.s));
    CK(cudaStreamSynchronize(c.s));
    cr_assert(h_r->vmin == -0.125 && h_r->vmax == 0.5 && !h_r->nonfinite, "small after big: [%g, %g] %d",
              h_r->vmin, h_r->vmax, h_r->nonfinite);
    STAGE(cudaMemcpy(c.dA, none, sizeof none, cudaMemcpyHostToDevice));
    GK(ghz_coll_range_cuda(c.dA, 3, GHZ_F32, d_acc, d_hr, NULL, c.s));
    CK(cudaStreamSynchronize(c.s));
    cr_assert(isnan(h_r->vmin) && isnan(h_r->vmax) && h_r->nonfinite, "none: [%g, %g] %d", h_r->vmin, h_r->vmax,
              h_r->nonfinite);
    GK(ghz_coll_range_cuda(NULL, 0, GHZ_F32, d_acc, d_hr, NULL, c.s));
    CK(cudaStreamSynchronize(c.s));
    cr_assert(isnan(h_r->vmin) && isnan(h_r->vmax) && !h_r->nonfinite, "empty after non-finite: [%g, %g] %d",
              h_r->vmin, h_r->vmax, h_r->nonfinite);
    CK(cudaFreeHost(h_r));
    CK(cudaFree(d_acc));
    ctx_free(&c);
}

/* ---- arguments, capture ------------------------------------------------------------- */

Test(cuda_coll_reduce, bad_arguments_refused)
{
    setup();
    void* d;
    ghz_coll_range_t* d_r;
    ghz_coll_range_acc_t* d_acc;
    CK(cudaMalloc(&d, 64));
    CK(cudaMalloc((void**)&d_r, sizeof *d_r));
    CK(cudaMalloc((void**)&d_acc, sizeof *d_acc));
    cr_assert_eq(ghz_coll_reduce_cuda(d, d, d, 4, GHZ_F32, GHZ_OP_LAND, NULL), GHZ_ERR_UNSUPPORTED);
    cr_assert_eq(ghz_coll_reduce_cuda(d, d, d, 4, GHZ_I32, GHZ_OP_AVG, NULL), GHZ_ERR_UNSUPPORTED);
    cr_assert_eq(ghz_coll_reduce_cuda(d, d, d, 4, (ghz_dtype_t)99, GHZ_OP_SUM, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_coll_reduce_cuda(d, d, d, 4, GHZ_F32, (ghz_op_t)11, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_coll_reduce_cuda(NULL, d, d, 4, GHZ_F32, GHZ_OP_SUM, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_coll_scale_cuda(d, 4, GHZ_I32, 0.5, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_coll_range_cuda(d, 4, GHZ_U8, d_acc, d_r, NULL, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_coll_range_cuda(d, 4, GHZ_F32, d_acc, (ghz_coll_range_t*)((char*)d_r + 4), NULL, NULL),
                 GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_coll_range_cuda(d, 4, GHZ_F32, (ghz_coll_range_acc_t*)((char*)d_acc + 4), d_r, NULL, NULL),
                 GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_coll_range_cuda(d, 4, GHZ_F32, NULL, d_r, NULL, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_coll_range_cuda(d, 4, GHZ_F32, d_acc, NULL, NULL, NULL), GHZ_ERR_INVALID_ARG);
    /* a copy over its own input */
    cr_assert_eq(ghz_coll_range_cuda(d, 4, GHZ_F32, d_acc, d_r, (char*)d + 8, NULL), GHZ_ERR_INVALID_ARG);
    /* n == 0 launches nothing and takes NULL buffers */
    GK(ghz_coll_reduce_cuda(NULL, NULL, NULL, 0, GHZ_F32, GHZ_OP_SUM, NULL));
    GK(ghz_coll_scale_cuda(NULL, 0, GHZ_F64, 0.5, NULL));
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d));
    CK(cudaFree(d_r));
    CK(cudaFree(d_acc));
}

/* The three calls captured into one CUDA graph and replayed: stream-ordered, no
 * allocation, no synchronisation inside. */
Test(cuda_coll_reduce, graph_capture)
{
    setup();
    ctx_t c = ctx_new();
    ghz_coll_range_t* d_r;
    ghz_coll_range_acc_t* d_acc;
    ghz_coll_range_t r;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    double vmin, vmax;
    uint64_t count;
    ghz_params_t p;
    const size_t n = NMAX, es = 4;
    CK(cudaMalloc((void**)&d_r, sizeof *d_r));
    CK(cudaMalloc((void**)&d_acc, sizeof *d_acc));
    STAGE(cudaMemset(d_acc, 0, sizeof *d_acc));
    make_pairs(4242u, GHZ_F32, n, c.xa, c.xb);
    stage(c.hA, c.xa, n, es, 0);
    stage(c.hB, c.xb, n, es, 0);
    CK(cudaStreamBeginCapture(c.s, cudaStreamCaptureModeGlobal));
    GK(ghz_coll_reduce_cuda(c.dO + MARGIN, c.dA + MARGIN, c.dB + MARGIN, n, GHZ_F32, GHZ_OP_AVG, c.s));
    GK(ghz_coll_scale_cuda(c.dO + MARGIN, n, GHZ_F32, 0.5, c.s));
    GK(ghz_coll_range_cuda(c.dO + MARGIN, n, GHZ_F32, d_acc, d_r, NULL, c.s));
    CK(cudaStreamEndCapture(c.s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    memcpy(c.exp, c.xa, n * es);
    ghz_coll_reduce_cpu(c.exp, c.xb, n, GHZ_F32, GHZ_OP_AVG, 1);
    ghz_coll_scale_cpu(c.exp, n, GHZ_F32, 0.5, 1);
    ghz_params_init(&p);
    p.dtype = GHZ_F32;
    GK(ghz_value_range(&p, c.exp, n, &vmin, &vmax, &count));
    for (int rep = 0; rep < 2; ++rep) {
        STAGE(cudaMemcpy(c.dA, c.hA, CAP, cudaMemcpyHostToDevice));
        STAGE(cudaMemcpy(c.dB, c.hB, CAP, cudaMemcpyHostToDevice));
        STAGE(cudaMemset(c.dO, GUARD, CAP));
        CK(cudaGraphLaunch(ge, c.s));
        CK(cudaMemcpyAsync(&r, d_r, sizeof r, cudaMemcpyDeviceToHost, c.s));
        CK(cudaStreamSynchronize(c.s));
        expect_elems(fetch(&c, c.dO, NULL, 0, n * es, "graph"), c.exp, n, GHZ_F32, 1, "graph");
        cr_assert(vmin == r.vmin && vmax == r.vmax && r.nonfinite == (count < n), "graph: range");
    }
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(d_r));
    CK(cudaFree(d_acc));
    ctx_free(&c);
}

/* Counts large enough that every thread of the capped grid loops (vectors: more than
 * kUnroll x 4 CTAs x 256 threads per SM x the SMs), for one op of each kind, aligned
 * and after a scalar head, bit for bit. */
Test(cuda_coll_reduce, grid_stride_large, .timeout = 600)
{
    static const struct {
        ghz_dtype_t t;
        ghz_op_t op;
    } pairs[] = {{GHZ_F32, GHZ_OP_SUM}, {GHZ_F64, GHZ_OP_MAX}, {GHZ_U8, GHZ_OP_BXOR}, {GHZ_I16, GHZ_OP_PROD}};
    setup();
    const size_t n = env_size("GHZ_COLL_TEST_LARGE_N", 40000003u, 40000003u), cap = n * 8u + 64u;
    unsigned char *dA, *dB, *dO, *xa = malloc(n * 8u), *xb = malloc(n * 8u), *exp = malloc(n * 8u),
                  *got = malloc(n * 8u);
    cr_assert(xa && xb && exp && got);
    CK(cudaMalloc((void**)&dA, cap));
    CK(cudaMalloc((void**)&dB, cap));
    CK(cudaMalloc((void**)&dO, cap));
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; ++k) {
        const ghz_dtype_t t = pairs[k].t;
        const size_t es = ghz_dtype_size(t);
        make_pairs(99u + k, t, n, xa, xb);
        memcpy(exp, xa, n * es);
        ghz_coll_reduce_cpu(exp, xb, n, t, pairs[k].op, 0);
        for (size_t off = 0; off <= es; off += es) {
            STAGE(cudaMemcpy(dA + off, xa, n * es, cudaMemcpyHostToDevice));
            STAGE(cudaMemcpy(dB + off, xb, n * es, cudaMemcpyHostToDevice));
            GK(ghz_coll_reduce_cuda(dO + off, dA + off, dB + off, n, t, pairs[k].op, NULL));
            CK(cudaMemcpy(got, dO + off, n * es, cudaMemcpyDeviceToHost));
            expect_elems(got, exp, n, t, nan_is_hardwares(t, pairs[k].op), ghz_op_name(pairs[k].op));
        }
    }
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dO));
    free(xa);
    free(xb);
    free(exp);
    free(got);
}
