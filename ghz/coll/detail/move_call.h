/* ghz/coll/detail/move_call.h: a data-movement call's kind entry and the functions that read it (private). */
#ifndef GHZ_COLL_DETAIL_MOVE_CALL_H
#define GHZ_COLL_DETAIL_MOVE_CALL_H

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/calls.h"

/* What one kind's calls do differently (COLL.md, Algorithms): a new kind is one entry
 * (move_kinds.c) and its algorithm. */
struct coll_mv_kind_ops {
    /* (its names: COLL_CALLS, by its kind and kind + 1) */
    int rooted;          /* else every rank to every other */
    int from_root;       /* rooted: from the root (else to it) */
    int send_blocks;     /* a block per rank on the send side (else one: one frame for all) */
    int recv_blocks;     /* ... on the receive side */
    int in_place_recv;   /* MPI_IN_PLACE is the root's recvbuf (else the sendbuf) */
    int in_place_shared; /* in place, a block sent and one received share a place */
    const char* in_place_forms; /* for the contract's overlap message */
    /* this rank's sides (sends, recvs, in_place, layouts, in, out); refuses what the
     * kind's rules forbid */
    ghz_status_t (*layout)(const ghz_comm_t* c, coll_desc_t* k);
    int mpi_from_out; /* GHZ_ALGO_MPI's call reads only the output (MPI_Bcast's root) */
    /* ghz's algorithm (choose, or NULL: algo) for a call whose longest block is
     * `extent`; settle: the algorithm once the window is known (NULL: the same). One round
     * of its part m of every block: round, or the algorithm's own function (move_tree for
     * the binomial, which counts its bytes; else move), with the pool it needs (need_tree,
     * need_staged for a staged round, where set, else need). */
    ghz_algo_t algo;
    ghz_algo_t (*choose)(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m, size_t extent);
    ghz_algo_t (*settle)(const ghz_comm_t* c, ghz_algo_t algo, size_t extent, size_t window, size_t piece);
    void (*round)(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, const coll_move_t* m,
                  ghz_algo_t algo, size_t window);
    void (*move)(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);
    void (*move_tree)(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);
    coll_need_fn need, need_tree, need_staged;
#ifdef GHZ_WITH_NCCL
    /* NCCL's own collective for the exact uniform form (NULL: sends and receives) */
    ghz_status_t (*nccl_native)(ghz_comm_t* c, const coll_desc_t* k, size_t e);
#endif
};

const coll_mv_kind_ops_t* coll_mv_kind_ops(coll_kind_t kind); /* move_kinds.c: the entry of kind (NULL: none) */

/* algo_mpi.c: the call by the MPI library's own (exact, CPU backend, every count and
 * displacement below INT_MAX: agreed); every rank's *mine (alltoall: mine[p] to rank p)
 * into got[0..N), the v forms' counts. */
ghz_status_t coll_mpi_move(ghz_comm_t* c, const coll_desc_t* k);
ghz_status_t coll_mpi_counts(ghz_comm_t* c, const size_t* mine, int alltoall, size_t* got);

/* The call's name (its v form's where it is one). */
static inline const char* coll_mv_name(const coll_desc_t* k)
{
    return coll_call_name(k->kind + k->v);
}

/* move_args.c */
int coll_mv_sends_to(const ghz_comm_t* c, const coll_desc_t* k, int p);
int coll_mv_recvs_from(const ghz_comm_t* c, const coll_desc_t* k, int p);
/* The uncompressed bytes this rank's messages of round m carry. */
uint64_t coll_mv_sent_raw(const ghz_comm_t* c, const coll_desc_t* k, const coll_move_t* m);
ghz_status_t coll_mv_check_local(const ghz_comm_t* c, coll_desc_t* k);
/* min and max over the finite values of the blocks this rank sends. */
ghz_status_t coll_mv_scan(ghz_comm_t* c, const coll_desc_t* k, coll_call_t* mine);
/* The v forms' counts, pair by pair (collective, after an agreement that passed). */
ghz_status_t coll_mv_check_counts(ghz_comm_t* c, const coll_desc_t* k);
/* This rank's own block, copied exactly from its send side to its receive side: its
 * bytes (0: none to copy) and the two places. */
size_t coll_mv_own_block(const ghz_comm_t* c, const coll_desc_t* k, const unsigned char** src, unsigned char** dst);

#endif
