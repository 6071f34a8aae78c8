/* ghz/coll/detail/calls.h: what every call shares, reductions and data movement alike:
 * its descriptor, its check, its start and end (private). */
#ifndef GHZ_COLL_DETAIL_CALLS_H
#define GHZ_COLL_DETAIL_CALLS_H

#include "ghz/coll/detail/move.h"

/* Every kind of call, one numbering (the agreement carries it; names.h's COLL_CALLS
 * names the agreed ones): the reductions, the two-level allreduce's stages on child
 * communicators (never agreed: the parent call was; a ring reduce-scatter and allgather
 * over a balanced split of the whole vector, rank s owning split s, and a binomial
 * broadcast), and the data movement, whose v form agrees as kind + 1. */
typedef enum {
    KIND_ALLREDUCE = 1,
    KIND_REDUCE = 2,
    KIND_REDUCE_SCATTER = 3,
    KIND_RS_SPLIT = 4,
    KIND_AG_SPLIT = 5,
    KIND_BCAST = 6,
    MV_ALLGATHER = 32,
    MV_BCAST = 34,
    MV_SCATTER = 36,
    MV_GATHER = 38,
    MV_ALLTOALL = 40
} coll_kind_t;

/* A kind's entry: a reduction's (reduce_call.h) or a data movement's (move_call.h). */
typedef struct coll_kind_ops coll_kind_ops_t;
typedef struct coll_mv_kind_ops coll_mv_kind_ops_t;

/* One call, whatever its kind: what the entry points receive, then what the check
 * resolves. The runner (runner.c), the planner (plan.c) and the algorithms read it. */
typedef struct {
    coll_kind_t kind;
    const coll_kind_ops_t* ops;   /* a reduction's entry (NULL: data movement) */
    const coll_mv_kind_ops_t* mv; /* a data movement's entry (NULL: a reduction) */
    int v;                        /* the v form */
    const void* sendbuf;
    void* recvbuf;
    size_t count;                 /* allreduce, reduce: elements; reduce_scatter: per rank;
                                     movement, uniform: the count; v: this rank's sendcount
                                     (allgatherv, gatherv) or recvcount (scatterv) */
    const size_t *scnt, *sdis, *rcnt, *rdis;
    ghz_dtype_t dtype;
    ghz_op_t op;
    int root;
    const ghz_accuracy_t* acc;
    ghz_stream_t stream;
    /* resolved by the check */
    const unsigned char* in;      /* the send side's buffer (a reduction's input) */
    unsigned char* out;           /* the receive side's */
    size_t total;                 /* a reduction's input elements */
    int sends, recvs;             /* this rank has a send side, a receive side */
    int in_place;
    coll_layout_t send, recv;
    size_t longest, farthest;     /* this rank's longest block and farthest block end */
    ghz_accuracy_t a;             /* the accuracy, read through struct_size */
} coll_desc_t;

/* contract.c: the contract every one of the nine calls shares */

/* This rank's check of a call's arguments, whatever its kind, once the kind resolved its
 * sides (sends, recvs, in, out, the layouts send and recv) and its in-place forms
 * (in_place; reduce_entry.c, move_kinds.c): the dtype, the accuracy (read into k->a),
 * the root, every block's byte size and end within PTRDIFF_MAX, no NULL buffer where a
 * side has elements, and no byte shared by the two sides outside the in-place forms.
 * Sets k->longest and k->farthest: the longest block and the farthest block end of both
 * sides, in elements. name, in_place_forms: the call's, for messages. */
ghz_status_t coll_check_args(const ghz_comm_t* c, coll_desc_t* k, const char* name, const char* in_place_forms);


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

/* The arguments of a call, as the entry points receive them (entry.c; a data
 * movement's v arrays are set after). */
coll_desc_t coll_make_call(coll_kind_t kind, const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                           ghz_op_t op, int root, const ghz_accuracy_t* acc, ghz_stream_t stream);
/* Whether the call has a root (reduce, broadcast, scatter, gather). */
int coll_rooted(const coll_desc_t* k);
/* This rank's check of the call (reduce_entry.c, move_args.c: where its sides are, then
 * coll_check_args), resolving in, out, the layouts and the accuracy. No communication. */
ghz_status_t coll_desc_check(const ghz_comm_t* c, coll_desc_t* k);
/* Numbers the call (coll_call_begin), checks it (coll_desc_check) and refuses a broken
 * communicator. */
ghz_status_t coll_call_start(ghz_comm_t* c, coll_desc_t* k);

/* The pool bytes an algorithm needs for a window of `window` elements per segment. */
typedef size_t (*coll_need_fn)(const ghz_comm_t*, coll_mode_t, ghz_dtype_t, size_t, size_t);


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

#endif
