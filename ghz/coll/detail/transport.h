/* ghz/coll/detail/transport.h: how a collective's bytes move (private).
 *
 * Point-to-point, non-blocking, variable-size messages: a receive names the most it
 * can take and learns the size on completion (wait's *bytes), so compressed chunks
 * need no size exchange of the algorithms' own. How the receiver learns it is the
 * transport's: MPI from the message's status (MPI_Get_count); CUDA IPC from the
 * control record that every message sends ahead of its data (offset, bytes, poison,
 * sequence number: cuda/transport_ipc.c). A message also carries one bit, `poison`: a rank
 * whose part of a collective failed keeps the communication pattern going with
 * poisoned messages, so that no peer waits forever and every rank that receives one
 * learns of the failure (COLL.md, Errors). Messages between a pair of ranks are
 * received in the order they were sent, and never by another call than the one that
 * sent them (seq below).
 *
 * NCCL is not a coll_transport_t: its calls (nccl/) post ncclSend / ncclRecv in groups on
 * the call's stream, of sizes known beforehand, with one host wait per phase, where this
 * interface waits on the host for each message (COLL.md, NCCL: outside the transport
 * interface); c->tp moves none of their bytes. */
#ifndef GHZ_COLL_DETAIL_TRANSPORT_H
#define GHZ_COLL_DETAIL_TRANSPORT_H

#include "ghz/coll/coll.h"

/* The bytes of a request's transport storage. */
#define COLL_REQ_BYTES 128

/* One outstanding operation. `opaque` belongs to the transport: its own record of the
 * operation (what its library needs: an MPI_Request, a control record, ...), which it
 * casts from the bytes and checks against COLL_REQ_BYTES with a static assert; all
 * zero bytes (a request never used, or completed) is an operation that is not
 * outstanding. stage_* belong to the algorithms (algo_common.c). */
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
    const char* name;
    ghz_status_t (*isend)(coll_transport_t* tp, const void* buf, size_t bytes, int peer,
                          int poison, coll_req_t* req);
    ghz_status_t (*irecv)(coll_transport_t* tp, void* buf, size_t capacity, int peer,
                          coll_req_t* req);
    /* Completes req (no-op when inactive); *bytes and *poison may be NULL (sends). */
    ghz_status_t (*wait)(coll_transport_t* tp, coll_req_t* req, size_t* bytes, int* poison);
    void (*destroy)(coll_transport_t* tp);
    /* Releases req if it is outstanding, on this rank alone: a failed call's leftover
     * operations, which nothing will wait for (ghz_comm_abort, the destroy of a broken
     * communicator). */
    void (*cancel)(coll_transport_t* tp, coll_req_t* req);
    /* Releases what this rank can alone, without meeting the peers (ghz_comm_abort, and
     * the destroy of a broken communicator); NULL where destroy does not meet them. */
    void (*abort)(coll_transport_t* tp);
    /* One-sided access, for transports that map every peer's wire pool (CUDA IPC);
     * NULL elsewhere. peer_pool: where rank `peer`'s pool is mapped here (this rank's
     * own pool for itself); every rank lays out a call's buffers alike, so a peer's
     * buffer is its pool plus the offset of one's own. fence: collective over the
     * transport's ranks; the backend's stream work that any rank enqueued before its
     * fence happens before the stream work that any rank enqueues after its fence, and
     * every rank learns whether any rank's `mine` was a failure (its own status, or
     * GHZ_ERR_PEER). The host does not wait for the GPU (cuda/algo_direct.c). */
    unsigned char* (*peer_pool)(coll_transport_t* tp, int peer);
    ghz_status_t (*fence)(coll_transport_t* tp, ghz_status_t mine);
    /* While the backend captures a CUDA graph (coll_backend_t.capturing), fence meets
     * the peers at capture time on the host (the statuses) and enqueues a device-side
     * fence that every replay runs (detail/fence_cuda.h). graph_status: whether a
     * replayed fence of this rank found a peer missing (GHZ_ERR_PEER, detail set);
     * reads device memory, waits for nothing else. NULL where there is no such fence. */
    ghz_status_t (*graph_status)(coll_transport_t* tp);
    void* state;
    /* The communicator's call (comm.h, calls), set before each call's messages: a
     * transport that can tell calls apart keeps one call from matching another's
     * messages. */
    uint64_t seq;
    /* 1 where one GPU serves several of the communicator's ranks (processes then take
     * turns on it, and every cross-process wait or kernel costs a time slice), 0 where
     * every rank has a GPU of its own, -1 on the CPU backend. Set by comm_make.c from the
     * GPUs' UUIDs, whichever the transport. The same on every rank. */
    int shared_gpu;
};

#endif
