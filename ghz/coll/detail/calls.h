/* ghz/coll/detail/calls.h: what every call shares: its descriptor, check, start and end. */
#ifndef GHZ_COLL_DETAIL_CALLS_H
#define GHZ_COLL_DETAIL_CALLS_H

#include "ghz/coll/detail/algo.h"

/* One numbering, which the agreement carries (names.h, COLL_CALLS): a data movement's v
 * form agrees as kind + 1; the two-level stages (two_level.c) are never agreed. */
typedef enum {
    KIND_ALLREDUCE = 1, KIND_REDUCE = 2, KIND_REDUCE_SCATTER = 3,
    KIND_RS_SPLIT = 4, KIND_AG_SPLIT = 5, KIND_BCAST = 6,
    MV_ALLGATHER = 32, MV_BCAST = 34, MV_SCATTER = 36, MV_GATHER = 38, MV_ALLTOALL = 40
} coll_kind_t;

typedef struct coll_kind_ops coll_kind_ops_t;
typedef struct coll_mv_kind_ops coll_mv_kind_ops_t;

/* One call: what the entry points receive, then what the check resolves. */
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
    size_t send_end, recv_end;    /* each side's farthest block end */
    ghz_accuracy_t a;             /* the accuracy, read through struct_size */
} coll_desc_t;

/* contract.c (COLL.md, Errors). This rank's check, once the kind resolved its sides and
 * in-place forms: dtype, accuracy (into k->a), root, every block's bytes and end within
 * PTRDIFF_MAX, no NULL buffer with elements, no byte shared by the sides outside the
 * in-place forms; sets k->longest and k->farthest (elements). */
ghz_status_t coll_check_args(const ghz_comm_t* c, coll_desc_t* k, const char* name, const char* in_place_forms);
int coll_rooted(const coll_desc_t* k);
/* Numbers the call: the MPI transport's tags carry it, so no call takes another's message. */
void coll_call_begin(ghz_comm_t* c);
/* The one failure rule: a failure once data moved (c->moving), or of MPI, breaks c.
 * Returns st; c may be NULL. */
ghz_status_t coll_call_end(ghz_comm_t* c, ghz_status_t st);

/* reduce_entry.c: the call as the entry points receive it (the v arrays set after), and
 * this rank's check (no communication). */
coll_desc_t coll_make_call(coll_kind_t kind, const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                           ghz_op_t op, int root, const ghz_accuracy_t* acc, ghz_stream_t stream);
ghz_status_t coll_desc_check(const ghz_comm_t* c, coll_desc_t* k);

/* The pool bytes an algorithm needs for a window of `window` elements per segment. */
typedef size_t (*coll_need_fn)(const ghz_comm_t*, coll_mode_t, ghz_dtype_t, size_t, size_t);

/* Elements per message in mode m: the configured chunk, whole codec blocks when lossy. */
size_t coll_piece_elems(const ghz_comm_t* c, coll_mode_t m, size_t elem);

/* two_level.c: every rank learns whether any rank's st failed (GHZ_ERR_PEER on the
 * others) and, with ratio (NULL: none), the least of the ranks' *ratio > 0. Collective. */
ghz_status_t coll_stage_agree(ghz_comm_t* c, ghz_status_t st, double* ratio);

/* comm_levels.c: the two-level children, made at the first call that needs them
 * (collective; the same status on every rank; a later call tries again). */
ghz_status_t coll_comm_levels(ghz_comm_t* c);

#endif
