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

#include "ghz/coll/coll.h"

/* One outstanding operation. The fields belong to the transport. */
typedef struct {
    MPI_Request mpi;
    int active;
    void* stage_dev;  /* staged receive: where the bytes go once they arrived in */
    void* stage_host; /* ... this host mirror (algo_common.c) */
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
    void* state;
};

/* Host-memory MPI point-to-point over *comm (the communicator's private duplicate,
 * which must outlive the transport). */
ghz_status_t ghz_coll_transport_mpi(MPI_Comm* comm, coll_transport_t* tp);

/* The MPI error text of code as a ghz failure (GHZ_ERR_MPI, detail set). */
ghz_status_t ghz_coll_mpi_fail(int code, const char* what);

#endif
