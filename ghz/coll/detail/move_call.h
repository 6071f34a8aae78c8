/* ghz/coll/detail/move_call.h: a data-movement call's kind entry and helpers (private):
 * what move_args.c checks, move_kinds.c holds per kind and nccl/move_nccl.c moves over
 * NCCL; the one runner (runner.c) runs every call. */
#ifndef GHZ_COLL_DETAIL_MOVE_CALL_H
#define GHZ_COLL_DETAIL_MOVE_CALL_H

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/move.h"

/* One kind of data-movement call: what its calls do differently, so that the steps (the
 * checks, the v counts, the choice, the rounds, the host path, MPI's call, NCCL) read it
 * here and a new kind is one entry and its algorithm (move_kinds.c). What every kind
 * shares stays in the steps: a value is compressed once and never combined (E = B, one
 * error term), and a piece whose frame is not smaller travels raw (raw_fallback). */
struct coll_mv_kind_ops {
    coll_kind_t kind;
    const char* name;
    const char* vname; /* the v form's (NULL: none) */
    /* who sends to whom: every rank to every other, or (rooted) the root to every
     * other rank (from_root: broadcast, scatter) or every other rank to the root
     * (gather) */
    int rooted;
    int from_root;
    /* a side with a block per rank (send: scatter, alltoall; receive: allgather,
     * gather, alltoall), else one block, whose one frame serves every receiver */
    int send_blocks;
    int recv_blocks;
    /* MPI_IN_PLACE is the root's recvbuf (scatter), else the sendbuf; in place, the
     * block sent to a rank and the one received from it share a place (alltoall: sent
     * from a copy, an exact call stages its blocks through the wire buffers) */
    int in_place_recv;
    int in_place_shared;
    const char* in_place_forms; /* for the contract's overlap message */
    /* where this rank's blocks are (sends, recvs, in_place, the layouts, in and out),
     * refusing the arguments that this kind's rules forbid (move_args.c, resolve) */
    ghz_status_t (*layout)(const ghz_comm_t* c, coll_desc_t* k);
    /* GHZ_ALGO_MPI (algo_mpi.c, coll_mpi_move) reads the output buffer alone, so the
     * root copies its own block there first (MPI_Bcast) */
    int mpi_from_out;
    /* ghz's algorithm for an agreed call in mode m whose longest block is `extent`
     * elements (where GHZ_ALGO_MPI does not take it: `choose`, or NULL and always
     * `algo`), the pool its round needs (`need`, or NULL and always `need_fixed`), the
     * algorithm once the round's window is known (NULL: the same; the broadcast picks
     * its chain there), and one round: its part of every block, m */
    ghz_algo_t algo;
    ghz_algo_t (*choose)(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m, size_t extent);
    coll_need_fn need_fixed;
    coll_need_fn (*need)(ghz_algo_t algo, int staged);
    ghz_algo_t (*settle)(const ghz_comm_t* c, ghz_algo_t algo, size_t extent, size_t window, size_t piece);
    void (*round)(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, const coll_move_t* m,
                  ghz_algo_t algo, size_t window);
#ifdef GHZ_WITH_NCCL
    /* NCCL's own collective for the exact uniform form, on the call's stream (NULL: a
     * group of ncclSend / ncclRecv, as the v forms: nccl/move_nccl.c) */
    ghz_status_t (*nccl_native)(ghz_comm_t* c, const coll_desc_t* k, size_t e);
#endif
};

/* algo_mpi.c: the call by the MPI library's own (exact, CPU backend, every count and
 * displacement below INT_MAX: agreed); every rank's *mine (alltoall: mine[p] to rank p)
 * into got[0..N), the v forms' counts. */
ghz_status_t coll_mpi_move(ghz_comm_t* c, const coll_desc_t* k);
ghz_status_t coll_mpi_counts(ghz_comm_t* c, const size_t* mine, int alltoall, size_t* got);

/* move_kinds.c */
/* The entry of kind (NULL for an unknown one). */
const coll_mv_kind_ops_t* coll_mv_kind_ops(coll_kind_t kind);

/* move_args.c */
/* The call's name, for messages. */
const char* coll_mv_name(const coll_desc_t* k);
/* Whether this rank sends a block to rank p, and receives one from p. */
int coll_mv_sends_to(const ghz_comm_t* c, const coll_desc_t* k, int p);
int coll_mv_recvs_from(const ghz_comm_t* c, const coll_desc_t* k, int p);
/* The uncompressed bytes this rank's messages of round m carry. */
uint64_t coll_mv_sent_raw(const ghz_comm_t* c, const coll_desc_t* k, const coll_move_t* m);
/* The farthest block end of one side of a checked call (elements; 0: no elements). */
size_t coll_mv_side_end(const ghz_comm_t* c, const coll_layout_t* l);
/* This rank's own checks, and where its blocks are (the layouts, in place, buffers). */
ghz_status_t coll_mv_check_local(const ghz_comm_t* c, coll_desc_t* k);
/* min and max over the finite values of the blocks this rank sends (lossy calls). */
ghz_status_t coll_mv_scan(ghz_comm_t* c, const coll_desc_t* k, coll_call_t* mine);
/* The v forms' counts, pair by pair (collective, after an agreement that passed). */
ghz_status_t coll_mv_check_counts(ghz_comm_t* c, const coll_desc_t* k);
/* Where this rank's own block goes, exactly copied from its send side to its receive
 * side (the algorithms and NCCL's groups move only the other ranks' blocks): its bytes
 * (0: nothing to copy, in place or no such block) and the two places. */
size_t coll_mv_own_block(const ghz_comm_t* c, const coll_desc_t* k, const unsigned char** src, unsigned char** dst);

#endif
