/* ghz/tools/coll_bench/ref.c: the exact reference (see ref.h).
 *
 * The inputs are regenerated in blocks of BLOCK elements, rank after rank, and folded
 * into per-element accumulators, so memory stays at the reference arrays plus a block. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"

#define BLOCK 4096

typedef struct {
    long double s[BLOCK], c[BLOCK], a[BLOCK]; /* sum (or product/extreme), compensation,
                                                 sum of magnitudes */
    int nan[BLOCK];
} float_acc;

typedef struct {
    uint64_t u[BLOCK]; /* wrapping sum/product, bit ops, unsigned extremes, counts */
    int64_t i[BLOCK];  /* signed extremes */
} int_acc;

static int is_signed(ghz_dtype_t t)
{
    return t == GHZ_I8 || t == GHZ_I16 || t == GHZ_I32 || t == GHZ_I64;
}

/* Element j of an integer buffer, sign- or zero-extended to 64 bits. */
static uint64_t load_int(const void* p, ghz_dtype_t t, size_t j)
{
    switch (t) {
    case GHZ_I8: return (uint64_t)(int64_t)((const int8_t*)p)[j];
    case GHZ_U8: return ((const uint8_t*)p)[j];
    case GHZ_I16: return (uint64_t)(int64_t)((const int16_t*)p)[j];
    case GHZ_U16: return ((const uint16_t*)p)[j];
    case GHZ_I32: return (uint64_t)(int64_t)((const int32_t*)p)[j];
    case GHZ_U32: return ((const uint32_t*)p)[j];
    default: return ((const uint64_t*)p)[j];
    }
}

/* Stores the low bits of v as element j (wrapping: what the dtype's SUM/PROD give). */
static void store_int_bits(void* p, ghz_dtype_t t, size_t j, uint64_t v)
{
    size_t sz = ghz_dtype_size(t);
    switch (sz) {
    case 1: ((uint8_t*)p)[j] = (uint8_t)v; break;
    case 2: ((uint16_t*)p)[j] = (uint16_t)v; break;
    case 4: ((uint32_t*)p)[j] = (uint32_t)v; break;
    default: ((uint64_t*)p)[j] = v; break;
    }
}

static void int_fold(int_acc* A, const void* in, size_t m, ghz_dtype_t t, ghz_op_t op, int first)
{
    size_t j;
    int sgn = is_signed(t);
    for (j = 0; j < m; ++j) {
        uint64_t x = load_int(in, t, j);
        int64_t xi = (int64_t)x;
        if (first) {
            A->u[j] = op == GHZ_OP_LAND || op == GHZ_OP_LOR || op == GHZ_OP_LXOR ? (x != 0) : x;
            A->i[j] = xi;
            continue;
        }
        switch (op) {
        case GHZ_OP_SUM: A->u[j] += x; break;
        case GHZ_OP_PROD: A->u[j] *= x; break;
        case GHZ_OP_MIN:
            if (sgn) A->i[j] = xi < A->i[j] ? xi : A->i[j];
            else A->u[j] = x < A->u[j] ? x : A->u[j];
            break;
        case GHZ_OP_MAX:
            if (sgn) A->i[j] = xi > A->i[j] ? xi : A->i[j];
            else A->u[j] = x > A->u[j] ? x : A->u[j];
            break;
        case GHZ_OP_LAND: A->u[j] = A->u[j] && x; break;
        case GHZ_OP_LOR: A->u[j] = A->u[j] || x; break;
        case GHZ_OP_LXOR: A->u[j] = (A->u[j] != 0) != (x != 0); break;
        case GHZ_OP_BAND: A->u[j] &= x; break;
        case GHZ_OP_BOR: A->u[j] |= x; break;
        case GHZ_OP_BXOR: A->u[j] ^= x; break;
        default: break;
        }
    }
}

static void float_fold(float_acc* A, const void* in, size_t m, ghz_dtype_t t, ghz_op_t op,
                       int first)
{
    size_t j;
    for (j = 0; j < m; ++j) {
        long double x = t == GHZ_F32 ? (long double)((const float*)in)[j]
                                     : (long double)((const double*)in)[j];
        if (first) {
            A->s[j] = x;
            A->c[j] = 0;
            A->a[j] = fabsl(x);
            A->nan[j] = isnan(x);
            continue;
        }
        A->nan[j] |= isnan(x);
        A->a[j] += fabsl(x);
        switch (op) {
        case GHZ_OP_SUM:
        case GHZ_OP_AVG: {
            /* Neumaier: the rounding error of each addition goes to c. */
            long double s = A->s[j], u = s + x;
            if (fabsl(s) >= fabsl(x)) A->c[j] += (s - u) + x;
            else A->c[j] += (x - u) + s;
            A->s[j] = u;
            break;
        }
        case GHZ_OP_PROD: A->s[j] *= x; break;
        case GHZ_OP_MIN: if (x < A->s[j]) A->s[j] = x; break;
        case GHZ_OP_MAX: if (x > A->s[j]) A->s[j] = x; break;
        default: break;
        }
    }
}

static void float_finish(cb_ref_t* r, const float_acc* A, size_t at, size_t m)
{
    size_t j;
    for (j = 0; j < m; ++j) {
        long double v = A->s[j], sc = A->a[j];
        double h;
        /* (a sum that reached an infinity carries no rounding error: its compensation is
         * then inf - inf, a NaN that would turn the exact infinity into a wrong NaN) */
        if ((r->op == GHZ_OP_SUM || r->op == GHZ_OP_AVG) && isfinite(v)) v += A->c[j];
        if (r->op == GHZ_OP_AVG) {
            v /= r->nranks;
            sc /= r->nranks;
        }
        if (r->op == GHZ_OP_PROD) sc = fabsl(v);
        if (A->nan[j]) v = NAN;
        h = (double)v;
        r->hi[at + j] = h;
        if (r->lo) r->lo[at + j] = isfinite(h) ? (double)(v - (long double)h) : 0.0;
        if (r->scale) r->scale[at + j] = (double)sc;
    }
}

static int reserve(cb_ref_t* r, size_t n)
{
    int is_float = r->dtype == GHZ_F32 || r->dtype == GHZ_F64;
    int scaled = r->op == GHZ_OP_SUM || r->op == GHZ_OP_AVG || r->op == GHZ_OP_PROD;
    if (n <= r->cap) return 0;
    cb_ref_free(r);
    if (n == 0) return 0;
    if (!is_float) return (r->bits = malloc(n * ghz_dtype_size(r->dtype))) ? (r->cap = n, 0) : -1;
    r->hi = malloc(n * sizeof(double));
    r->lo = r->dtype == GHZ_F64 ? malloc(n * sizeof(double)) : NULL;
    r->scale = scaled ? malloc(n * sizeof(double)) : NULL;
    if (!r->hi || (r->dtype == GHZ_F64 && !r->lo) || (scaled && !r->scale)) return -1;
    r->cap = n;
    return 0;
}

int cb_ref_compute(cb_ref_t* r, const cb_data_t* d, ghz_dtype_t dtype, ghz_op_t op, int nranks,
                   size_t first, size_t n)
{
    int is_float = dtype == GHZ_F32 || dtype == GHZ_F64;
    unsigned char* in = malloc(BLOCK * 8);
    void* acc = is_float ? malloc(sizeof(float_acc)) : malloc(sizeof(int_acc));
    size_t at;
    if (r->dtype != dtype || r->op != op) cb_ref_free(r);
    r->dtype = dtype;
    r->op = op;
    r->nranks = nranks;
    r->first = first;
    r->n = n;
    if (!in || !acc || reserve(r, n) != 0) {
        free(in);
        free(acc);
        return -1;
    }
    for (at = 0; at < n; at += BLOCK) {
        size_t m = n - at < BLOCK ? n - at : BLOCK, j;
        int k;
        for (k = 0; k < nranks; ++k) {
            cb_data_fill(d, k, first + at, m, dtype, in);
            if (is_float) float_fold(acc, in, m, dtype, op, k == 0);
            else int_fold(acc, in, m, dtype, op, k == 0);
        }
        if (is_float) {
            float_finish(r, acc, at, m);
            continue;
        }
        for (j = 0; j < m; ++j) {
            const int_acc* A = acc;
            int extreme_signed = (op == GHZ_OP_MIN || op == GHZ_OP_MAX) && is_signed(dtype);
            store_int_bits(r->bits, dtype, at + j, extreme_signed ? (uint64_t)A->i[j] : A->u[j]);
        }
    }
    free(in);
    free(acc);
    return 0;
}

void cb_ref_free(cb_ref_t* r)
{
    free(r->bits);
    free(r->hi);
    free(r->lo);
    free(r->scale);
    r->bits = NULL;
    r->hi = r->lo = r->scale = NULL;
    r->cap = 0;
}
