/* ghz/coll/detail/transport.h: how a collective's bytes move (private).
 *
 * Point-to-point, non-blocking, variable-size messages: a receive names the most it
 * can take and learns the size on completion, so compressed chunks need no size
 * exchange (MPI gives this for free; a transport that cannot must send the size
 * first, inside its own entries). A message also carries one bit, `poison`: a rank
 * whose part of a collective failed keeps the communication pattern going with
 * poisoned messages, so that no peer waits forever and every rank that receives one
 * learns of the failure (COLL.md, Errors). Messages between a pair of ranks are
 * received in the order they were sent. */
#ifndef GHZ_COLL_DETAIL_TRANSPORT_H
#define GHZ_COLL_DETAIL_TRANSPORT_H

#include <mpi.h>

#include "ghz/coll/coll.h"

/* One outstanding operation. The fields belong to the transport, except stage_*
 * (algo_common.c). */
typedef struct {
    MPI_Request mpi;
    int active;
    void* stage_dev;  /* mirrored receive: where the bytes go once they arrived in */
    void* stage_host; /* ... this host mirror (algo_common.c) */
    /* CUDA IPC (cuda/transport_ipc.c): the control record sent or received, the
     * acknowledgement a send waits for (its sequence number), and a receive's
     * destination and the sequence number it must get. */
    MPI_Request ack;
    int ack_active;
    int recv;
    int peer;
    uint64_t ctl[4];
    uint64_t ack_seq;
    void* dst;
    size_t capacity;
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
    /* 1 where one GPU serves several of the communicator's ranks (processes then take
     * turns on it, and every cross-process wait or kernel costs a time slice), 0 where
     * every rank has a GPU of its own, -1 on the CPU backend. Set by comm.c from the
     * GPUs' UUIDs, whichever the transport. The same on every rank. */
    int shared_gpu;
};

/* Host-memory MPI point-to-point over *comm (the communicator's private duplicate,
 * which must outlive the transport). */
ghz_status_t ghz_coll_transport_mpi(MPI_Comm* comm, coll_transport_t* tp);

/* The MPI error text of code as a ghz failure (GHZ_ERR_MPI, detail set). */
ghz_status_t ghz_coll_mpi_fail(int code, const char* what);

#ifdef GHZ_WITH_CUDA
struct coll_backend;
/* CUDA IPC between the ranks of *comm, all on one node (cuda/transport_ipc.c).
 * Collective over *comm; call it on every rank or on none. Messages must be sent from
 * the wire pool [pool, pool + pool_bytes) (device memory from one cudaMalloc, exported
 * to every peer); receives may go anywhere in device memory. Data is copied on the
 * backend's stream (be, the CUDA backend). On a local failure the transport is still
 * set up far enough for tp->destroy, which is collective too. */
ghz_status_t ghz_coll_transport_ipc(MPI_Comm* comm, struct coll_backend* be, void* pool, size_t pool_bytes,
                                    coll_transport_t* tp);
#endif

#endif
