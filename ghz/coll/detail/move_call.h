/* ghz/coll/detail/move_call.h: a data-movement call's arguments (private): what
 * movement.c runs and move_args.c checks. */
#ifndef GHZ_COLL_DETAIL_MOVE_CALL_H
#define GHZ_COLL_DETAIL_MOVE_CALL_H

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/move.h"

/* The agreed collective: apart from the reductions' kinds (reduce_call.h, below 16); a v
 * form agrees as kind + 1. */
typedef enum { MV_ALLGATHER = 32, MV_BCAST = 34, MV_SCATTER = 36, MV_GATHER = 38, MV_ALLTOALL = 40 } mv_kind_t;

typedef struct {
    mv_kind_t kind;
    int v;                      /* the v form */
    const void* sendbuf;
    void* recvbuf;
    size_t count;               /* uniform: the count; v: this rank's sendcount (allgatherv,
                                   gatherv) or recvcount (scatterv) */
    const size_t *scnt, *sdis, *rcnt, *rdis;
    ghz_dtype_t dtype;
    int root;
    const ghz_accuracy_t* acc;
    ghz_stream_t stream;
    /* resolved by check_local */
    const unsigned char* in;    /* the send side's buffer */
    unsigned char* out;         /* the receive side's */
    int sends, recvs;           /* this rank has a send side, a receive side */
    int in_place;
    coll_layout_t send, recv;
    size_t longest, farthest;   /* this rank's longest block and farthest block end */
    ghz_accuracy_t a;
    /* the host path's call on the CPU communicator (host_move): the parent's call agreed
     * for it, on these (longest block, farthest end of every rank) */
    int agreed;
    size_t agreed_most[2];
} mv_t;

/* broadcast, scatter, gather */
int coll_mv_rooted(const mv_t* k);
/* The call's name, for messages. */
const char* coll_mv_name(const mv_t* k);
/* The longest block and the farthest block end of one side (elements, added to the
 * maxima given); refuses a side whose bytes overflow. */
ghz_status_t coll_mv_measure(const ghz_comm_t* c, const coll_layout_t* l, size_t e, size_t* longest, size_t* far);
/* This rank's own checks, and where its blocks are (the layouts, in place, buffers). */
ghz_status_t coll_mv_check_local(const ghz_comm_t* c, mv_t* k);
/* min and max over the finite values of the blocks this rank sends (lossy calls). */
ghz_status_t coll_mv_scan(ghz_comm_t* c, const mv_t* k, coll_call_t* mine);
/* The v forms' counts, pair by pair (collective, after an agreement that passed). */
ghz_status_t coll_mv_check_counts(ghz_comm_t* c, const mv_t* k);
/* Where this rank's own block goes, exactly copied from its send side to its receive
 * side (the algorithms and NCCL's groups move only the other ranks' blocks): its bytes
 * (0: nothing to copy, in place or no such block) and the two places. */
size_t coll_mv_own_block(const ghz_comm_t* c, const mv_t* k, const unsigned char** src, unsigned char** dst);
/* The call's fields for the agreement. */
void coll_mv_fields(const ghz_comm_t* c, const mv_t* k, ghz_status_t st, coll_call_t* mine);

#endif
