/* ghz/tools/coll_bench/moved.c: the data-movement rows' reference and check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "moved.h"

size_t cb_moved_out_elems(cb_coll_t coll, int rank, int nranks, int root, size_t count)
{
    switch (coll) {
    case CB_BROADCAST:
    case CB_SCATTER: return count;
    case CB_GATHER: return rank == root ? count * (size_t)nranks : 0;
    default: return count * (size_t)nranks;
    }
}

int cb_moved_compute(cb_moved_t* m, const cb_data_t* d, cb_coll_t coll, ghz_dtype_t dtype, int rank, int nranks,
                     int root, size_t count)
{
    const size_t e = ghz_dtype_size(dtype), n = cb_moved_out_elems(coll, rank, nranks, root, count);
    int p;
    if (n > m->cap) {
        void* w = realloc(m->want, n * e);
        if (!w) return -1;
        m->want = w;
        m->cap = n;
    }
    m->n = n;
    m->dtype = dtype;
    switch (coll) {
    case CB_BROADCAST: cb_data_fill(d, root, 0, count, dtype, m->want); break;
    case CB_SCATTER: cb_data_fill(d, root, (size_t)rank * count, count, dtype, m->want); break;
    default:
        /* block p from rank p: its input (allgather, gather) or its block for this rank */
        for (p = 0; p < nranks && n; p++)
            cb_data_fill(d, p, coll == CB_ALLTOALL ? (size_t)rank * count : 0, count, dtype,
                         (unsigned char*)m->want + (size_t)p * count * e);
        break;
    }
    return 0;
}

void cb_moved_free(cb_moved_t* m)
{
    free(m->want);
    memset(m, 0, sizeof *m);
}

static double value(const void* b, size_t i, ghz_dtype_t t)
{
    return t == GHZ_F32 ? ((const float*)b)[i] : ((const double*)b)[i];
}

void cb_moved_check(const cb_moved_t* m, const void* res, int lossy, double bound_abs, cb_check_t* c)
{
    const size_t e = ghz_dtype_size(m->dtype);
    size_t i;
    for (i = 0; i < m->n; i++) {
        c->checked++;
        if (lossy && (m->dtype == GHZ_F32 || m->dtype == GHZ_F64)) {
            const double w = value(m->want, i, m->dtype), g = value(res, i, m->dtype);
            if (!isfinite(w)) {
                c->wrong += !(isnan(w) ? isnan(g) : g == w);
                continue;
            }
            if (!(fabs(g - w) <= bound_abs)) c->wrong++;
            if (fabs(g - w) > c->maxerr) c->maxerr = fabs(g - w);
        } else if (memcmp((const unsigned char*)res + i * e, (const unsigned char*)m->want + i * e, e) != 0) {
            c->wrong++;
        }
    }
}
