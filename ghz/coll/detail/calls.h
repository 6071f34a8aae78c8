/* ghz/coll/detail/calls.h: what the reductions' entry points (collectives.c) share with
 * the data-movement calls (movement.c) (private). */
#ifndef GHZ_COLL_DETAIL_CALLS_H
#define GHZ_COLL_DETAIL_CALLS_H

#include "ghz/coll/detail/algo.h"

/* *out = acc read through its struct_size, checked (mode, bound, path, and a dtype the
 * lossy path takes: f32 or f64). */
ghz_status_t coll_read_accuracy(const ghz_accuracy_t* acc, ghz_dtype_t dtype, ghz_accuracy_t* out);

/* GHZ_SUCCESS, or the status that broke c, with a detail that says so and what to do:
 * a broken communicator moves no data (COLL.md, recovery contract). */
ghz_status_t coll_refuse_broken(const ghz_comm_t* c);

/* The pool bytes an algorithm needs for a window of `window` elements per segment. */
typedef size_t (*coll_need_fn)(const ghz_comm_t*, coll_mode_t, ghz_dtype_t, size_t, size_t);

/* The largest window (elements per segment, at most COLL_MAX_PIECES pieces) whose
 * buffers (need, plus need2 when not NULL) fit the pool; the same on every rank. */
size_t coll_fit_window(const ghz_comm_t* c, coll_need_fn need, coll_need_fn need2, coll_mode_t m, ghz_dtype_t t,
                       size_t piece);

/* Elements per message of a call in mode m: the configured chunk, whole codec blocks
 * when lossy. */
size_t coll_piece_elems(const ghz_comm_t* c, coll_mode_t m, size_t elem);

/* Every rank learns whether any rank's st failed (one small allreduce): GHZ_ERR_PEER on
 * the others, st on the rank itself. Collective. */
ghz_status_t coll_stage_agree(ghz_comm_t* c, ghz_status_t st);

/* The two-level children (comm.h, levels), made at the first call that runs a two-level
 * algorithm: every rank runs the same algorithm (agreed), so every rank makes them in
 * the same call. Collective over c; every rank gets the same status (a failure on one
 * is GHZ_ERR_PEER on the others, and no child is kept), and a later call tries again.
 * GHZ_SUCCESS at once where they exist. */
ghz_status_t coll_comm_levels(ghz_comm_t* c);

/* MPI's datatype of a ghz dtype (MPI_DATATYPE_NULL for an unknown one). */
MPI_Datatype coll_mpi_dtype(ghz_dtype_t dtype);

#endif
