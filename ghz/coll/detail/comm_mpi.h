/* ghz/coll/detail/comm_mpi.h: a communicator's MPI part, for the files that call MPI. */
#ifndef GHZ_COLL_DETAIL_COMM_MPI_H
#define GHZ_COLL_DETAIL_COMM_MPI_H

#include <mpi.h>

#include "ghz/coll/detail/comm.h"

struct coll_mpi {
    MPI_Comm comm;         /* private duplicate of the user's communicator (MPI_ERRORS_RETURN) */
    MPI_Comm node, across; /* the two levels' (comm_make.c), kept for the children; else MPI_COMM_NULL */
    MPI_Win win;           /* the agreements' shared segment (agree_shm.h), or MPI_WIN_NULL */
};

/* `calibrate` times AUTO's threshold; NULL makes a leaf, which never decides a call. */
ghz_status_t coll_comm_make(MPI_Comm mpi_comm, const ghz_comm_config_t* config, coll_calibrate_fn calibrate,
                            ghz_comm_t** comm);

/* *comm must outlive the transport. */
ghz_status_t ghz_coll_transport_mpi(MPI_Comm* comm, coll_transport_t* tp);
void coll_mpi_cancel(MPI_Request* req);
ghz_status_t ghz_coll_mpi_fail(int code, const char* what);

#ifdef GHZ_WITH_CUDA
struct coll_backend;
/* CUDA IPC between the ranks of *comm, all on one node; collective. Messages are sent from
 * the wire pool only (exported to every peer). On a local failure tp->destroy (collective
 * too) still works. */
ghz_status_t ghz_coll_transport_ipc(MPI_Comm* comm, struct coll_backend* be, void* pool, size_t pool_bytes,
                                    coll_transport_t* tp);
#endif

#endif
