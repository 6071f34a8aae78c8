/* ghz/coll/transport_mpi.c: the MPI point-to-point transport, and the release of MPI's part.
 *
 * Tag: TAG_BASE + 2 * (seq mod TAG_SEQS) + poison. A receive matches any tag from its
 * peer (the poison bit is not known in advance) and checks the call's bits on completion,
 * so that an earlier failed call's leftover message is never taken for this call's. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "ghz/coll/detail/comm_mpi.h"
#include "ghz/detail/error.h"

typedef struct {
    MPI_Request mpi;
    int active;
} mpi_req_t;
_Static_assert(sizeof(mpi_req_t) <= COLL_REQ_BYTES, "mpi_req_t must fit coll_req_t.opaque");

static mpi_req_t* req_of(coll_req_t* r)
{
    return (mpi_req_t*)(void*)r->opaque.bytes;
}

/* MPI guarantees tags up to 32767: TAG_BASE + 2 * TAG_SEQS stays below. */
enum { TAG_BASE = 7000, TAG_SEQS = 8192 };

static int tag_of(const coll_transport_t* tp, int poison)
{
    return TAG_BASE + 2 * (int)(tp->seq % TAG_SEQS) + (poison != 0);
}

ghz_status_t ghz_coll_mpi_fail(int code, const char* what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "code %d", code);
    return ghz_fail(GHZ_ERR_MPI, "%s: %s", what, msg);
}

static MPI_Comm comm_of(coll_transport_t* tp)
{
    return *(MPI_Comm*)tp->state;
}

static ghz_status_t mpi_isend(coll_transport_t* tp, const void* buf, size_t bytes, int peer, int poison, coll_req_t* r)
{
    mpi_req_t* req = req_of(r);
    int rc;
    if (bytes > INT_MAX) return ghz_fail(GHZ_ERR_INVALID_ARG, "message of %zu bytes", bytes);
    rc = MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, tag_of(tp, poison), comm_of(tp), &req->mpi);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Isend");
    req->active = 1;
    return GHZ_SUCCESS;
}

static ghz_status_t mpi_irecv(coll_transport_t* tp, void* buf, size_t capacity, int peer, coll_req_t* r)
{
    mpi_req_t* req = req_of(r);
    int rc;
    if (capacity > INT_MAX) return ghz_fail(GHZ_ERR_INVALID_ARG, "message of %zu bytes", capacity);
    rc = MPI_Irecv(buf, (int)capacity, MPI_BYTE, peer, MPI_ANY_TAG, comm_of(tp), &req->mpi);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Irecv");
    req->active = 1;
    return GHZ_SUCCESS;
}

static ghz_status_t mpi_wait(coll_transport_t* tp, coll_req_t* r, size_t* bytes, int* poison)
{
    mpi_req_t* req = req_of(r);
    MPI_Status s;
    int rc, n = 0;
    if (!req->active) {
        if (bytes) *bytes = 0;
        if (poison) *poison = 0;
        return GHZ_SUCCESS;
    }
    req->active = 0;
    rc = MPI_Wait(&req->mpi, &s);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Wait");
    if (poison && (s.MPI_TAG & ~1) != tag_of(tp, 0))
        return ghz_fail(GHZ_ERR_MPI, "a message (tag %d) from rank %d left over from an earlier call, where call %d's "
                                     "was due: an earlier failure left the ranks out of step",
                        s.MPI_TAG, s.MPI_SOURCE, (int)(tp->seq % TAG_SEQS));
    if (bytes) {
        MPI_Get_count(&s, MPI_BYTE, &n);
        *bytes = (size_t)(n < 0 ? 0 : n);
    }
    if (poison) *poison = s.MPI_TAG & 1;
    return GHZ_SUCCESS;
}

static void mpi_destroy(coll_transport_t* tp)
{
    (void)tp;
}

void coll_mpi_cancel(MPI_Request* req)
{
    if (*req == MPI_REQUEST_NULL) return;
    MPI_Cancel(req);
    MPI_Request_free(req);
}

static void mpi_cancel(coll_transport_t* tp, coll_req_t* r)
{
    mpi_req_t* req = req_of(r);
    (void)tp;
    if (req->active) coll_mpi_cancel(&req->mpi);
    req->active = 0;
}

ghz_status_t ghz_coll_transport_mpi(MPI_Comm* comm, coll_transport_t* tp)
{
    static const coll_transport_t mpi = {.isend = mpi_isend, .irecv = mpi_irecv, .wait = mpi_wait,
                                         .destroy = mpi_destroy, .cancel = mpi_cancel, .shared_gpu = -1};
    *tp = mpi;
    tp->state = comm;
    return GHZ_SUCCESS;
}

void coll_mpi_release(ghz_comm_t* c, int local)
{
    struct coll_mpi* m = c->mpi;
    if (!m) return;
    if (m->node != MPI_COMM_NULL) MPI_Comm_free(&m->node);
    if (m->across != MPI_COMM_NULL) MPI_Comm_free(&m->across);
    /* (MPI_Win_free is collective: a local release leaves the window to MPI_Finalize) */
    if (!local && m->win != MPI_WIN_NULL) MPI_Win_free(&m->win);
    if (m->comm != MPI_COMM_NULL) MPI_Comm_free(&m->comm);
    free(m);
    c->mpi = NULL;
}

void* const coll_in_place = MPI_IN_PLACE;
