/* ghz/coll/detail/calls.h: what the reductions' entry points (collectives.c) share with
 * the data-movement calls (movement.c) (private). */
#ifndef GHZ_COLL_DETAIL_CALLS_H
#define GHZ_COLL_DETAIL_CALLS_H

#include "ghz/coll/detail/move.h"

/* contract.c: the contract every one of the nine calls shares */

/* One side (send or receive) of a call on this rank: its buffer and where its blocks
 * lie in it (has: this rank has the side). */
typedef struct {
    const unsigned char* buf;
    coll_layout_t lay;
    int has;
} coll_side_t;

/* A call as its argument check reads it, whatever its kind: each kind resolves its
 * sides and in-place forms (reduce_entry.c, move_kinds.c), coll_check_args applies the
 * rest of the contract to all of them alike. */
typedef struct {
    const char* name;           /* the call's, for messages */
    const char* in_place_forms; /* its in-place forms, for the overlap message */
    ghz_dtype_t dtype;
    const ghz_accuracy_t* acc;  /* NULL: exact */
    int rooted, root;
    int in_place;               /* the arguments are one of the kind's in-place forms */
    coll_side_t send, recv;
} coll_args_t;

/* This rank's check of a call's arguments: the dtype, the accuracy (read into *acc_out),
 * the root, every block's byte size and end within PTRDIFF_MAX, no NULL buffer where a
 * side has elements, and no byte shared by the two sides outside the in-place forms.
 * *longest, *farthest (either may be NULL): the longest block and the farthest block
 * end of both sides, in elements. */
ghz_status_t coll_check_args(const ghz_comm_t* c, const coll_args_t* a, ghz_accuracy_t* acc_out, size_t* longest,
                             size_t* farthest);

/* *out = acc read through its struct_size, checked (mode, bound, path, and a dtype the
 * lossy path takes: f32 or f64). */
ghz_status_t coll_read_accuracy(const ghz_accuracy_t* acc, ghz_dtype_t dtype, ghz_accuracy_t* out);

/* GHZ_SUCCESS, or the status that broke c, with a detail that says so and what to do:
 * a broken communicator moves no data (COLL.md, recovery contract). */
ghz_status_t coll_refuse_broken(const ghz_comm_t* c);

/* How every call starts: numbered (the MPI transport's messages carry the number, so no
 * call takes an earlier call's message), nothing moved yet. */
void coll_call_begin(ghz_comm_t* c);

/* How every call ends, the one failure rule: a failure once the call's data started to
 * move (c->moving), or of MPI itself (the agreement's included), breaks the
 * communicator, for the ranks may be out of step with messages in flight (COLL.md,
 * Errors; the peers learn it at their next agreement or at ghz_comm_destroy); the
 * backend's capture flag lasts for one call; a success leaves no detail behind (a step
 * may have recorded one it recovered from). Returns st. c may be NULL. */
ghz_status_t coll_call_end(ghz_comm_t* c, ghz_status_t st);

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
