/* ghz/tools/coll_bench/moved.h: the reference of the data-movement rows (--coll
 * allgather, broadcast, scatter, gather, alltoall): what this rank must receive, the
 * senders' input regenerated (data.h), and the check of a result against it. */
#ifndef GHZ_TOOLS_COLL_BENCH_MOVED_H
#define GHZ_TOOLS_COLL_BENCH_MOVED_H

#include "check.h"
#include "data.h"

typedef struct {
    void* want;       /* what this rank receives, in its receive buffer's layout */
    size_t n, cap;    /* elements of want, allocated */
    ghz_dtype_t dtype;
} cb_moved_t;

/* Elements of a rank's receive buffer for a call of `count` elements a block
 * (broadcast: the vector); 0 where the rank receives nothing (gather off the root). */
size_t cb_moved_out_elems(cb_coll_t coll, int rank, int nranks, int root, size_t count);

/* Rank r's input is element 0.. of its data; block q of it (scatter, alltoall) is
 * elements [q * count, (q + 1) * count). Returns 0, or -1 when out of memory. */
int cb_moved_compute(cb_moved_t* m, const cb_data_t* d, cb_coll_t coll, ghz_dtype_t dtype, int rank, int nranks,
                     int root, size_t count);
void cb_moved_free(cb_moved_t* m);

/* res[0, m->n) against the reference: exact rows bit for bit, lossy rows within
 * bound_abs on every element (NaN where NaN, infinities equal). Adds to *c. */
void cb_moved_check(const cb_moved_t* m, const void* res, int lossy, double bound_abs, cb_check_t* c);

#endif
