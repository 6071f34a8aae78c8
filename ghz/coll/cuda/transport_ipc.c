/* ghz/coll/cuda/transport_ipc.c: the CUDA IPC transport, ranks of one node (COLL.md,
 * Transports, "CUDA IPC": the set-up, the messages and why one event per rank is
 * enough). One-sided use (transport.h, peer_pool and fence; cuda/algo_direct.c) reads
 * the mapped pools between fences. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "ghz/coll/detail/backend.h"
#include "ghz/coll/detail/backend_cuda.h"
#include "ghz/coll/detail/fence_cuda.h"
#include "ghz/coll/detail/comm_mpi.h"
#include "ghz/coll/detail/knobs.h"
#include "ghz/detail/error.h"

/* An acknowledgement's tag is TAG_ACK_BASE + (sequence mod ACK_SEQS), so that it
 * completes exactly its own send; MPI guarantees tags up to 32767 (COLL.md, Tags). */
enum { TAG_CTL = 7101, TAG_ACK_BASE = 16384, ACK_SEQS = 16384 };
enum { CTL_OFFSET = 0, CTL_BYTES = 1, CTL_POISON = 2, CTL_SEQ = 3, CTL_WORDS = 4 };

/* A request (coll_req_t.opaque). ack_seq: the acknowledgement a send waits for, or the
 * sequence number a receive must get. */
typedef struct {
    MPI_Request mpi;
    int active;
    MPI_Request ack;
    int ack_active;
    int recv;
    int peer;
    uint64_t ctl[CTL_WORDS];
    uint64_t ack_seq;
    void* dst;
    size_t capacity;
} ipc_req_t;
_Static_assert(sizeof(ipc_req_t) <= COLL_REQ_BYTES, "ipc_req_t must fit coll_req_t.opaque");

static ipc_req_t* req_of(coll_req_t* r)
{
    return (ipc_req_t*)(void*)r->opaque.bytes;
}

/* What every rank publishes at set-up (MPI_Allgather of the bytes). */
typedef struct {
    cudaIpcMemHandle_t mem;
    cudaIpcEventHandle_t ev;
    cudaIpcMemHandle_t flags;
    uint64_t pool_bytes;
} ipc_card_t;

/* Rank p as this rank sees it (its own entry: its own pool and event). */
typedef struct {
    unsigned char* pool; /* mapped */
    size_t bytes;
    cudaEvent_t ev;      /* opened */
    int open;            /* what is open here: the pool (1), the event (2), the fence flags (4) */
    uint64_t sent;       /* the next sequence number to send to p */
    uint64_t posted;     /* the next one a posted receive from p gets */
    uint64_t unacked;    /* sends to p whose acknowledgement is pending */
} ipc_peer_t;

typedef struct {
    MPI_Comm comm;
    coll_backend_t* be;
    int rank, size;
    unsigned char* pool;       /* this rank's wire pool (exported) */
    size_t pool_bytes;
    cudaEvent_t ev;            /* this rank's event (exported) */
    int have_ev;
    ipc_peer_t* peer;          /* size entries */
    int exchanged;             /* the handles went around: destroy meets the peers */
    /* captured fences (fence_cuda.h): this rank's flag block (exported), every rank's
     * as mapped here (own: flags) and a device copy of that table */
    uint64_t* flags;
    uint64_t** peer_flags;
    uint64_t** d_peer_flags;
    uint64_t timeout_ns;
    /* the transport's own stream: its set-up writes and ghz_comm_graph_status's read
     * wait for nothing of the caller's */
    cudaStream_t aux;
    int have_aux;
} ipc_state_t;

static ipc_state_t* st_of(coll_transport_t* tp)
{
    return (ipc_state_t*)tp->state;
}

static cudaStream_t stream_of(ipc_state_t* s)
{
    return (cudaStream_t)ghz_coll_backend_cuda_stream(s->be);
}

static int ack_tag(uint64_t seq)
{
    return TAG_ACK_BASE + (int)(seq % ACK_SEQS);
}

static ghz_status_t ipc_isend(coll_transport_t* tp, const void* buf, size_t bytes, int peer, int poison,
                              coll_req_t* r)
{
    ipc_req_t* req = req_of(r);
    ipc_state_t* s = st_of(tp);
    const unsigned char* p = (const unsigned char*)buf;
    ghz_status_t st = GHZ_SUCCESS;
    int rc;
    req->active = req->ack_active = req->recv = 0;
    req->peer = peer;
    if (poison) bytes = 0;
    if (bytes) {
        if (!p || p < s->pool || bytes > s->pool_bytes || (size_t)(p - s->pool) > s->pool_bytes - bytes)
            st = ghz_fail(GHZ_ERR_INVALID_ARG, "internal: a CUDA IPC message outside the wire pool");
        else if (s->peer[peer].unacked >= ACK_SEQS)
            st = ghz_fail(GHZ_ERR_INVALID_ARG, "internal: %d CUDA IPC messages in flight to rank %d", ACK_SEQS,
                          peer);
        else /* after the work that wrote the buffer, in stream order */
            st = coll_cuda_ok(cudaEventRecord(s->ev, stream_of(s)), "cudaEventRecord (CUDA IPC send)");
        /* a failure here still sends a record, poisoned: the peer must not wait forever */
        if (st != GHZ_SUCCESS) {
            poison = 1;
            bytes = 0;
        }
    }
    req->ctl[CTL_OFFSET] = bytes ? (uint64_t)(p - s->pool) : 0;
    req->ctl[CTL_BYTES] = bytes;
    req->ctl[CTL_POISON] = (uint64_t)(poison != 0);
    req->ctl[CTL_SEQ] = s->peer[peer].sent++;
    if (bytes) {
        /* posted before the record leaves, so the acknowledgement always finds it */
        rc = MPI_Irecv(&req->ack_seq, 1, MPI_UINT64_T, peer, ack_tag(req->ctl[CTL_SEQ]), s->comm, &req->ack);
        if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Irecv (CUDA IPC acknowledgement)");
        req->ack_active = 1;
        s->peer[peer].unacked++;
    }
    rc = MPI_Isend(req->ctl, CTL_WORDS, MPI_UINT64_T, peer, TAG_CTL, s->comm, &req->mpi);
    if (rc != MPI_SUCCESS) {
        if (req->ack_active) {
            coll_mpi_cancel(&req->ack);
            req->ack_active = 0;
            s->peer[peer].unacked--;
        }
        return ghz_coll_mpi_fail(rc, "MPI_Isend (CUDA IPC control record)");
    }
    req->active = 1;
    return st;
}

static ghz_status_t ipc_irecv(coll_transport_t* tp, void* buf, size_t capacity, int peer, coll_req_t* r)
{
    ipc_req_t* req = req_of(r);
    ipc_state_t* s = st_of(tp);
    int rc;
    *req = (ipc_req_t){.recv = 1, .peer = peer, .dst = buf, .capacity = capacity};
    /* records from one peer match receives in the order they were posted (MPI's
     * non-overtaking rule on one tag), so this receive's number is known now */
    req->ack_seq = s->peer[peer].posted++;
    rc = MPI_Irecv(req->ctl, CTL_WORDS, MPI_UINT64_T, peer, TAG_CTL, s->comm, &req->mpi);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Irecv (CUDA IPC control record)");
    req->active = 1;
    return GHZ_SUCCESS;
}

/* Copies a message out of the sender's mapped pool after the sender's event, and waits. */
static ghz_status_t pull(ipc_state_t* s, const ipc_req_t* req, uint64_t off, uint64_t n)
{
    cudaStream_t stream = stream_of(s);
    cudaError_t e, e2;
    const ipc_peer_t* q = &s->peer[req->peer];
    if (n > req->capacity)
        return ghz_fail(GHZ_ERR_CORRUPT, "a CUDA IPC message of %llu bytes from rank %d for %zu", (unsigned long long)n,
                        req->peer, req->capacity);
    if (off > q->bytes || n > q->bytes - off)
        return ghz_fail(GHZ_ERR_CORRUPT, "a CUDA IPC message [%llu, +%llu) outside rank %d's pool of %zu bytes",
                        (unsigned long long)off, (unsigned long long)n, req->peer, q->bytes);
    e = cudaStreamWaitEvent(stream, q->ev, 0);
    if (e == cudaSuccess) e = cudaMemcpyAsync(req->dst, q->pool + off, (size_t)n, cudaMemcpyDeviceToDevice, stream);
    /* always drained: the acknowledgement that follows lets the sender reuse the buffer */
    e2 = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return coll_cuda_fail(e, "CUDA IPC receive (cudaStreamWaitEvent, cudaMemcpyAsync)");
    if (e2 != cudaSuccess) return coll_cuda_fail(e2, "cudaStreamSynchronize (CUDA IPC receive)");
    return GHZ_SUCCESS;
}

static ghz_status_t wait_recv(ipc_state_t* s, ipc_req_t* req, size_t* bytes, int* poison)
{
    ghz_status_t st = GHZ_SUCCESS;
    uint64_t seq, n;
    int rc;
    req->active = 0;
    rc = MPI_Wait(&req->mpi, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        /* the record is lost, but the sender may be waiting for the acknowledgement of
         * the message that was due: send it, so that the failure ends here */
        st = ghz_coll_mpi_fail(rc, "MPI_Wait (CUDA IPC control record)");
        MPI_Send(&req->ack_seq, 1, MPI_UINT64_T, req->peer, ack_tag(req->ack_seq), s->comm);
        return st;
    }
    seq = req->ctl[CTL_SEQ];
    n = req->ctl[CTL_BYTES];
    if (seq != req->ack_seq)
        st = ghz_fail(GHZ_ERR_CORRUPT, "CUDA IPC message %llu from rank %d where %llu was due",
                      (unsigned long long)seq, req->peer, (unsigned long long)req->ack_seq);
    if (req->ctl[CTL_POISON]) {
        if (poison) *poison = 1;
        return st;
    }
    if (n == 0) return st;
    if (st == GHZ_SUCCESS) st = pull(s, req, req->ctl[CTL_OFFSET], n);
    /* acknowledged whatever happened: the sender's wait needs it (its receive of it was
     * posted before the record left, so this send completes) */
    rc = MPI_Send(&req->ctl[CTL_SEQ], 1, MPI_UINT64_T, req->peer, ack_tag(seq), s->comm);
    if (rc != MPI_SUCCESS && st == GHZ_SUCCESS) st = ghz_coll_mpi_fail(rc, "MPI_Send (CUDA IPC acknowledgement)");
    if (st == GHZ_SUCCESS && bytes) *bytes = (size_t)n;
    return st;
}

static ghz_status_t wait_send(ipc_state_t* s, ipc_req_t* req)
{
    int rc;
    if (req->active) {
        req->active = 0;
        rc = MPI_Wait(&req->mpi, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Wait (CUDA IPC control record)");
    }
    if (req->ack_active) {
        req->ack_active = 0;
        s->peer[req->peer].unacked--;
        rc = MPI_Wait(&req->ack, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Wait (CUDA IPC acknowledgement)");
        if (req->ack_seq != req->ctl[CTL_SEQ])
            return ghz_fail(GHZ_ERR_CORRUPT, "CUDA IPC acknowledgement of message %llu for message %llu",
                            (unsigned long long)req->ack_seq, (unsigned long long)req->ctl[CTL_SEQ]);
    }
    return GHZ_SUCCESS;
}

static ghz_status_t ipc_wait(coll_transport_t* tp, coll_req_t* r, size_t* bytes, int* poison)
{
    ipc_req_t* req = req_of(r);
    if (bytes) *bytes = 0;
    if (poison) *poison = 0;
    if (!req->active && !req->ack_active) return GHZ_SUCCESS;
    return req->recv ? wait_recv(st_of(tp), req, bytes, poison) : wait_send(st_of(tp), req);
}

static void free_state(ipc_state_t* s)
{
    if (s->have_ev) cudaEventDestroy(s->ev);
    if (s->have_aux) cudaStreamDestroy(s->aux);
    if (s->d_peer_flags) cudaFree(s->d_peer_flags);
    if (s->flags) cudaFree(s->flags);
    free(s->peer_flags);
    free(s->peer);
    free(s);
}

static unsigned char* ipc_peer_pool(coll_transport_t* tp, int peer)
{
    return st_of(tp)->peer[peer].pool;
}

/* The meeting orders every peer's record before the wait on it (cuda/algo_direct.c). A
 * later record cannot deadlock the wait: it follows only work that waited on records
 * made before this rank's own wait was enqueued. */
static ghz_status_t ipc_fence(coll_transport_t* tp, ghz_status_t mine)
{
    ipc_state_t* s = st_of(tp);
    cudaStream_t stream = stream_of(s);
    cudaError_t e;
    int rc, p, worst = 0, st_in;
    const int captured = s->be->capturing;
    /* (recorded after a failure too: destroy waits for this event, which must follow
     * every read of the peers' pools that the call enqueued) */
    e = captured ? cudaSuccess : cudaEventRecord(s->ev, stream);
    if (e != cudaSuccess && mine == GHZ_SUCCESS) mine = coll_cuda_fail(e, "cudaEventRecord (CUDA IPC fence)");
    /* the meeting carries every rank's status: met after a failure too, so no peer
     * waits forever, and no rank reads a failed rank's buffers */
    st_in = (int)mine;
    rc = MPI_Allreduce(&st_in, &worst, 1, MPI_INT, MPI_MAX, s->comm);
    if (mine != GHZ_SUCCESS) return mine;
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Allreduce (CUDA IPC fence)");
    if (worst != GHZ_SUCCESS)
        return ghz_fail(GHZ_ERR_PEER, "another rank failed (%s)", ghz_status_string((ghz_status_t)worst));
    /* captured: the host meeting above happens once, at capture; every replay meets the
     * peers on the GPU */
    if (captured)
        return ghz_coll_fence_cuda(s->flags, s->d_peer_flags, s->size, s->rank, s->timeout_ns, stream);
    for (p = 0; p < s->size; p++) {
        if (p == s->rank) continue;
        e = cudaStreamWaitEvent(stream, s->peer[p].ev, 0);
        if (e != cudaSuccess) return coll_cuda_fail(e, "cudaStreamWaitEvent (CUDA IPC fence)");
    }
    return GHZ_SUCCESS;
}

static ghz_status_t ipc_graph_status(coll_transport_t* tp)
{
    ipc_state_t* s = st_of(tp);
    uint64_t w = 0;
    /* (the caller synchronised the replays' stream: coll.h) */
    cudaError_t e = cudaMemcpyAsync(&w, s->flags + GHZ_COLL_FENCE_ERROR, sizeof w, cudaMemcpyDeviceToHost, s->aux);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s->aux);
    if (e != cudaSuccess) return coll_cuda_fail(e, "reading the CUDA IPC fence flags");
    if (w)
        return ghz_fail(GHZ_ERR_PEER,
                        "a captured collective's fence waited %.3g s for rank %llu and gave up: the replay's "
                        "result is not defined; destroy the communicator",
                        (double)s->timeout_ns * 1e-9, (unsigned long long)(w - 1));
    return GHZ_SUCCESS;
}

/* Closes what open_peers opened, and this rank's event after every peer has closed its
 * own (meet: MPI_Barrier, before the caller frees this rank's pool). */
static void close_peers(coll_transport_t* tp, int meet)
{
    ipc_state_t* s = st_of(tp);
    int p;
    for (p = 0; p < s->size; p++) {
        if (s->peer[p].open & 1) cudaIpcCloseMemHandle(s->peer[p].pool);
        if (s->peer[p].open & 2) cudaEventDestroy(s->peer[p].ev);
        if (s->peer[p].open & 4) cudaIpcCloseMemHandle(s->peer_flags[p]);
    }
    if (meet) MPI_Barrier(s->comm);
    free_state(s);
    tp->state = NULL;
}

static void ipc_destroy(coll_transport_t* tp)
{
    ipc_state_t* s = st_of(tp);
    if (!s) return;
    /* reads of the peers' pools that calls left running end first: every fence records
     * this event after the work it enqueued, and a message's reads end before its
     * receive returns; the device's other work, the caller's included, goes on */
    if (s->have_ev) cudaEventSynchronize(s->ev);
    close_peers(tp, s->exchanged);
}

/* A failed call's leftover request: its control record and acknowledgement cancelled. */
static void ipc_cancel(coll_transport_t* tp, coll_req_t* r)
{
    ipc_req_t* req = req_of(r);
    (void)tp;
    if (req->active) coll_mpi_cancel(&req->mpi);
    if (req->ack_active) coll_mpi_cancel(&req->ack);
    req->active = req->ack_active = 0;
}

/* ghz_comm_abort's: the peers' mappings closed, no meeting. This rank's pool stays
 * allocated (the communicator does not free it: a peer may still map it). */
static void ipc_abort(coll_transport_t* tp)
{
    if (st_of(tp)) close_peers(tp, 0);
}

/* The tests' copy of the library only (COLL.md, Testing): GHZ_COLL_TEST_IPC_FAIL_RANK=r
 * fails rank r's set-up as a machine that refuses CUDA IPC would, where it exports its
 * pool, or (GHZ_COLL_TEST_IPC_FAIL_AT=open) where it maps the last peer's. */
static int test_refused(const ipc_state_t* s, const char* step)
{
#ifdef GHZ_COLL_TEST_STAGED
    const char* r = getenv("GHZ_COLL_TEST_IPC_FAIL_RANK");
    const char* at = getenv("GHZ_COLL_TEST_IPC_FAIL_AT");
    if (!r || !*r || atoi(r) != s->rank) return 0;
    return strcmp(at && *at ? at : "get", step) == 0;
#else
    (void)s;
    (void)step;
    return 0;
#endif
}

/* Maps every peer's pool and opens its event (own: this rank's). */
static ghz_status_t open_peers(ipc_state_t* s, const ipc_card_t* cards)
{
    cudaError_t e;
    int p;
    const int last = s->rank == s->size - 1 ? s->size - 2 : s->size - 1;
    for (p = 0; p < s->size; p++) {
        void* base = NULL;
        if (p == s->rank) {
            s->peer[p] = (ipc_peer_t){.pool = s->pool, .bytes = s->pool_bytes, .ev = s->ev};
            s->peer_flags[p] = s->flags;
            continue;
        }
        if (p == last && test_refused(s, "open"))
            return ghz_fail(GHZ_ERR_CUDA, "cudaIpcOpenMemHandle (rank %d's pool): refused by the test seam", p);
        e = cudaIpcOpenMemHandle(&base, cards[p].mem, cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess) return ghz_fail(GHZ_ERR_CUDA, "cudaIpcOpenMemHandle (rank %d's pool): %s", p,
                                              cudaGetErrorString(e));
        s->peer[p].pool = (unsigned char*)base;
        s->peer[p].bytes = (size_t)cards[p].pool_bytes;
        s->peer[p].open |= 1;
        e = cudaIpcOpenEventHandle(&s->peer[p].ev, cards[p].ev);
        if (e != cudaSuccess) return ghz_fail(GHZ_ERR_CUDA, "cudaIpcOpenEventHandle (rank %d's event): %s", p,
                                              cudaGetErrorString(e));
        s->peer[p].open |= 2;
        e = cudaIpcOpenMemHandle(&base, cards[p].flags, cudaIpcMemLazyEnablePeerAccess);
        if (e != cudaSuccess) return ghz_fail(GHZ_ERR_CUDA, "cudaIpcOpenMemHandle (rank %d's fence flags): %s", p,
                                              cudaGetErrorString(e));
        s->peer_flags[p] = (uint64_t*)base;
        s->peer[p].open |= 4;
    }
    /* the table the device fence reads */
    e = cudaMemcpyAsync(s->d_peer_flags, s->peer_flags, (size_t)s->size * sizeof *s->peer_flags,
                        cudaMemcpyHostToDevice, s->aux);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s->aux);
    return coll_cuda_ok(e, "copying the CUDA IPC fence table");
}

/* This rank's part before the exchange. */
static ghz_status_t prepare(ipc_state_t* s, ipc_card_t* card)
{
    coll_knobs_t k;
    cudaError_t e;
    const size_t n = (size_t)s->size;
    s->peer = (ipc_peer_t*)calloc(n, sizeof *s->peer);
    s->peer_flags = (uint64_t**)calloc(n, sizeof *s->peer_flags);
    if (!s->peer || !s->peer_flags) return ghz_fail(GHZ_ERR_NOMEM, "CUDA IPC transport state");
    /* how long a captured fence waits for a peer: GHZ_GRAPH_FENCE_TIMEOUT_S (checked by
     * ghz_comm_init before the transport is made), 60 s by default */
    if (coll_knobs_read(&k) != GHZ_SUCCESS) k.fence_timeout_s = 60.0;
    s->timeout_ns = (uint64_t)(k.fence_timeout_s * 1e9);
    e = cudaStreamCreateWithFlags(&s->aux, cudaStreamNonBlocking);
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaStreamCreateWithFlags (CUDA IPC)");
    s->have_aux = 1;
    e = cudaMalloc((void**)&s->flags, GHZ_COLL_FENCE_WORDS * sizeof(uint64_t));
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaMalloc (CUDA IPC fence flags)");
    /* zero before any peer maps it */
    e = cudaMemsetAsync(s->flags, 0, GHZ_COLL_FENCE_WORDS * sizeof(uint64_t), s->aux);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s->aux);
    if (e != cudaSuccess) return coll_cuda_fail(e, "zeroing the CUDA IPC fence flags");
    e = cudaMalloc((void**)&s->d_peer_flags, n * sizeof *s->d_peer_flags);
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaMalloc (CUDA IPC fence table)");
    e = cudaEventCreateWithFlags(&s->ev, cudaEventDisableTiming | cudaEventInterprocess);
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaEventCreateWithFlags (CUDA IPC)");
    s->have_ev = 1;
    memset(card, 0, sizeof *card);
    if (test_refused(s, "get"))
        return ghz_fail(GHZ_ERR_CUDA, "cudaIpcGetMemHandle (wire pool): refused by the test seam");
    e = cudaIpcGetMemHandle(&card->mem, s->pool);
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaIpcGetMemHandle (wire pool)");
    e = cudaIpcGetEventHandle(&card->ev, s->ev);
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaIpcGetEventHandle");
    e = cudaIpcGetMemHandle(&card->flags, s->flags);
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaIpcGetMemHandle (fence flags)");
    card->pool_bytes = s->pool_bytes;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_coll_transport_ipc(MPI_Comm* comm, coll_backend_t* be, void* pool, size_t pool_bytes,
                                    coll_transport_t* tp)
{
    ipc_state_t* s = (ipc_state_t*)calloc(1, sizeof *s);
    ipc_card_t card, *cards = NULL;
    ghz_status_t st;
    MPI_Comm node;
    int ok, all_ok = 0, rc, rank = 0, size = 0, local = 0;
    MPI_Comm_rank(*comm, &rank);
    MPI_Comm_size(*comm, &size);
    /* (every rank takes part in the split and the agreement below, whatever failed) */
    rc = MPI_Comm_split_type(*comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    if (rc == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    if (!s) st = ghz_fail(GHZ_ERR_NOMEM, "CUDA IPC transport");
    else if (rc != MPI_SUCCESS) st = ghz_coll_mpi_fail(rc, "MPI_Comm_split_type (CUDA IPC)");
    else if (local != size)
        st = ghz_fail(GHZ_ERR_UNSUPPORTED, "the CUDA IPC transport needs every rank on one node (%d of %d here)",
                      local, size);
    else {
        *s = (ipc_state_t){.comm = *comm, .be = be, .rank = rank, .size = size, .pool = (unsigned char*)pool,
                           .pool_bytes = pool_bytes};
        st = prepare(s, &card);
        if (st == GHZ_SUCCESS) {
            cards = (ipc_card_t*)malloc((size_t)size * sizeof *cards);
            if (!cards) st = ghz_fail(GHZ_ERR_NOMEM, "CUDA IPC handles");
        }
    }
    /* the exchange only where every rank is ready for it */
    ok = st == GHZ_SUCCESS;
    rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, *comm);
    if (rc != MPI_SUCCESS && st == GHZ_SUCCESS) st = ghz_coll_mpi_fail(rc, "MPI_Allreduce (CUDA IPC set-up)");
    if (st == GHZ_SUCCESS && !all_ok) st = ghz_fail(GHZ_ERR_PEER, "another rank could not set up CUDA IPC");
    if (st == GHZ_SUCCESS) {
        rc = MPI_Allgather(&card, (int)sizeof card, MPI_BYTE, cards, (int)sizeof card, MPI_BYTE, *comm);
        if (rc != MPI_SUCCESS) st = ghz_coll_mpi_fail(rc, "MPI_Allgather (CUDA IPC handles)");
        /* every rank ran it (or MPI failed, which ends the job): destroy meets them */
        s->exchanged = 1;
    }
    if (st == GHZ_SUCCESS) st = open_peers(s, cards);
    free(cards);
    /* a refused cudaIpc* call is reported here, in st; left as the runtime's last error
     * it would be taken for the failure of a later launch (the communicator may go on
     * over MPI: comm_make.c, ipc_fallback) */
    if (st != GHZ_SUCCESS) (void)cudaGetLastError();
    if (!s) return st;
    if (!s->exchanged) {
        /* nothing shared yet: undo here, the caller keeps its MPI transport */
        free_state(s);
        return st;
    }
    /* from here on tp->destroy undoes it (collective: it meets the peers); comm_make.c sets shared_gpu */
    *tp = (coll_transport_t){.isend = ipc_isend, .irecv = ipc_irecv, .wait = ipc_wait,
                             .destroy = ipc_destroy, .cancel = ipc_cancel, .abort = ipc_abort,
                             .peer_pool = ipc_peer_pool, .fence = ipc_fence, .graph_status = ipc_graph_status,
                             .state = s, .shared_gpu = -1};
    return st;
}
