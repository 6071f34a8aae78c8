/* ghz/coll/detail/transport.h: how a collective's bytes move (private; COLL.md).
 *
 * Point-to-point, non-blocking, variable-size messages: a receive learns the size on
 * completion, so compressed chunks need no size exchange. A message carries a `poison`
 * bit (COLL.md, Errors). A pair's messages arrive in order, and never in another call
 * (seq). NCCL is not a coll_transport_t (COLL.md, NCCL). */
#ifndef GHZ_COLL_DETAIL_TRANSPORT_H
#define GHZ_COLL_DETAIL_TRANSPORT_H

#include "ghz/coll/coll.h"

#define COLL_REQ_BYTES 128

/* One operation. `opaque` is the transport's record; all zero bytes: not outstanding.
 * stage_* belong to the algorithms (algo_common.c). */
typedef struct {
    void* stage_dev;  /* mirrored receive: where the bytes go once they arrived in */
    void* stage_host; /* ... this host mirror (algo_common.c) */
    union {
        unsigned char bytes[COLL_REQ_BYTES];
        uint64_t u64; /* (the alignment of the transports' records) */
        void* ptr;
        double dbl;
    } opaque;
} coll_req_t;

typedef struct coll_transport coll_transport_t;

struct coll_transport {
    ghz_status_t (*isend)(coll_transport_t* tp, const void* buf, size_t bytes, int peer, int poison, coll_req_t* req);
    ghz_status_t (*irecv)(coll_transport_t* tp, void* buf, size_t capacity, int peer, coll_req_t* req);
    /* Completes req (no-op when inactive); *bytes and *poison may be NULL (sends). */
    ghz_status_t (*wait)(coll_transport_t* tp, coll_req_t* req, size_t* bytes, int* poison);
    void (*destroy)(coll_transport_t* tp);
    /* Releases an outstanding req on this rank alone (a failed call's leftovers). */
    void (*cancel)(coll_transport_t* tp, coll_req_t* req);
    /* Releases what this rank can alone; NULL where destroy does not meet the peers. */
    void (*abort)(coll_transport_t* tp);
    /* One-sided access (CUDA IPC; NULL elsewhere): peer_pool is where `peer`'s pool is
     * mapped here. fence: collective; stream work enqueued before any rank's fence happens
     * before work enqueued after any rank's, and every rank learns whether any `mine`
     * failed. The host does not wait for the GPU. */
    unsigned char* (*peer_pool)(coll_transport_t* tp, int peer);
    ghz_status_t (*fence)(coll_transport_t* tp, ghz_status_t mine);
    /* Whether a replayed graph fence of this rank found a peer missing (GHZ_ERR_PEER;
     * detail/fence_cuda.h). NULL where there is no such fence. */
    ghz_status_t (*graph_status)(coll_transport_t* tp);
    void* state;
    /* The communicator's call, set before each call's messages. */
    uint64_t seq;
    /* 1 where one GPU serves several ranks (every wait or kernel then costs a time slice),
     * 0 where every rank has its own, -1 on the CPU backend. The same on every rank. */
    int shared_gpu;
};

#endif
