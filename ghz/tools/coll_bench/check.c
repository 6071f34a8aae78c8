/* ghz/tools/coll_bench/check.c: element-by-element verdicts (see check.h). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "check.h"

double cb_unit_roundoff(ghz_dtype_t t)
{
    return t == GHZ_F32 ? ldexp(1.0, -24) : t == GHZ_F64 ? ldexp(1.0, -53) : 0.0;
}

static long double load_float(const void* res, ghz_dtype_t t, size_t j)
{
    return t == GHZ_F32 ? (long double)((const float*)res)[j] : (long double)((const double*)res)[j];
}

static long double ref_value(const cb_ref_t* r, size_t j)
{
    return (long double)r->hi[j] + (r->lo ? (long double)r->lo[j] : 0.0L);
}

/* A reference that is NaN or infinite is matched only by the same kind of value, and
 * a non-finite result only matches such a reference: then the verdict needs no error
 * to measure. Returns 1 when that decided (wrong counted in *c), else 0. */
static int nonfinite_decides(long double exact, long double got, cb_check_t* c)
{
    int ok;
    if (isnan(exact)) ok = isnan(got) != 0;
    else if (isinf(exact)) ok = got == exact;
    else if (!isfinite(got)) ok = 0, c->maxerr = INFINITY;
    else return 0;
    c->wrong += !ok;
    return 1;
}

/* err = |got - exact| for finite values: updates maxerr and returns err. */
static long double measure(long double exact, long double got, cb_check_t* c)
{
    long double err = fabsl(got - exact);
    if ((double)err > c->maxerr) c->maxerr = (double)err;
    return err;
}

void cb_check_exact(const cb_ref_t* r, const void* res, cb_check_t* c)
{
    size_t j, esz = ghz_dtype_size(r->dtype);
    double u = cb_unit_roundoff(r->dtype);
    double tiny = r->dtype == GHZ_F32 ? (double)FLT_TRUE_MIN : DBL_TRUE_MIN;
    /* 1 + 2^-40: the tolerance is itself computed in double; never let its own
     * rounding reject a result on the edge. */
    double k = (r->nranks + 2) * u * (1.0 + ldexp(1.0, -40));
    c->checked += r->n;
    if (!r->hi) { /* integers: bits */
        for (j = 0; j < r->n; ++j)
            if (memcmp((const char*)res + j * esz, (const char*)r->bits + j * esz, esz) != 0)
                ++c->wrong;
        return;
    }
    for (j = 0; j < r->n; ++j) {
        long double exact = ref_value(r, j), got = load_float(res, r->dtype, j), err;
        if (nonfinite_decides(exact, got, c)) continue;
        err = measure(exact, got, c);
        if (!r->scale) c->wrong += err != 0; /* MIN, MAX */
        else c->wrong += err > k * r->scale[j] + (r->op == GHZ_OP_PROD ? r->nranks * tiny : 0.0);
    }
}

void cb_check_lossy(const cb_ref_t* r, const void* res, double bound_abs, cb_check_t* c)
{
    size_t j;
    c->checked += r->n;
    for (j = 0; j < r->n; ++j) {
        long double exact = ref_value(r, j), got = load_float(res, r->dtype, j);
        if (nonfinite_decides(exact, got, c)) continue;
        c->wrong += measure(exact, got, c) > (long double)bound_abs;
    }
}
