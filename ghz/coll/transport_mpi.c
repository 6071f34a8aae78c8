/* ghz/coll/transport_mpi.c: the MPI point-to-point transport (host memory).
 *
 * The poison bit travels as the tag (TAG_OK or TAG_POISON) and receives match any tag
 * from their peer; MPI's non-overtaking rule keeps a pair's messages in order.
 * MPI_Isend/Irecv count in int: messages larger than INT_MAX bytes cannot occur,
 * because pieces are at most ghz_comm_config_t.chunk_bytes (checked at init). */
#include <limits.h>
#include <stdio.h>

#include "ghz/coll/detail/transport.h"
#include "ghz/detail/error.h"

enum { TAG_OK = 7001, TAG_POISON = 7002 };

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

static ghz_status_t mpi_isend(coll_transport_t* tp, const void* buf, size_t bytes, int peer,
                              int poison, coll_req_t* req)
{
    int rc;
    if (bytes > INT_MAX) return ghz_fail(GHZ_ERR_INVALID_ARG, "message of %zu bytes", bytes);
    rc = MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, poison ? TAG_POISON : TAG_OK, comm_of(tp),
                   &req->mpi);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Isend");
    req->active = 1;
    return GHZ_SUCCESS;
}

static ghz_status_t mpi_irecv(coll_transport_t* tp, void* buf, size_t capacity, int peer,
                              coll_req_t* req)
{
    int rc;
    if (capacity > INT_MAX) return ghz_fail(GHZ_ERR_INVALID_ARG, "message of %zu bytes", capacity);
    rc = MPI_Irecv(buf, (int)capacity, MPI_BYTE, peer, MPI_ANY_TAG, comm_of(tp), &req->mpi);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Irecv");
    req->active = 1;
    return GHZ_SUCCESS;
}

static ghz_status_t mpi_wait(coll_transport_t* tp, coll_req_t* req, size_t* bytes, int* poison)
{
    MPI_Status s;
    int rc, n = 0;
    (void)tp;
    if (!req->active) {
        if (bytes) *bytes = 0;
        if (poison) *poison = 0;
        return GHZ_SUCCESS;
    }
    req->active = 0;
    rc = MPI_Wait(&req->mpi, &s);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Wait");
    if (bytes) {
        MPI_Get_count(&s, MPI_BYTE, &n);
        *bytes = (size_t)(n < 0 ? 0 : n);
    }
    if (poison) *poison = s.MPI_TAG == TAG_POISON;
    return GHZ_SUCCESS;
}

static void mpi_destroy(coll_transport_t* tp)
{
    (void)tp;
}

ghz_status_t ghz_coll_transport_mpi(MPI_Comm* comm, coll_transport_t* tp)
{
    tp->name = "mpi";
    tp->isend = mpi_isend;
    tp->irecv = mpi_irecv;
    tp->wait = mpi_wait;
    tp->destroy = mpi_destroy;
    tp->peer_pool = NULL; /* two-sided only */
    tp->fence = NULL;
    tp->graph_status = NULL;
    tp->state = comm;
    tp->shared_gpu = -1;
    return GHZ_SUCCESS;
}
