/* ghz/coll/detail/comm_mpi.h: a communicator's MPI part (private), for the files that call
 * MPI and no other: comm_make.c, transport_mpi.c, algo_mpi.c, cuda/transport_ipc.c. The
 * rest of the library sees only comm.h's pointer to it (ghz_comm.mpi). */
#ifndef GHZ_COLL_DETAIL_COMM_MPI_H
#define GHZ_COLL_DETAIL_COMM_MPI_H

#include <mpi.h>

#include "ghz/coll/detail/comm.h"

struct coll_mpi {
    MPI_Comm comm;         /* private duplicate of the user's communicator (MPI_ERRORS_RETURN) */
    MPI_Comm node, across; /* the two levels' (comm_make.c), kept for the children; else MPI_COMM_NULL */
    MPI_Win win;           /* the agreements' shared segment (agree_shm.h), or MPI_WIN_NULL */
};

/* A communicator over mpi_comm (comm_make.c). `calibrate` times AUTO's threshold
 * (auto_rule.h); NULL makes a leaf: a two-level child or the host path's, which never
 * decides a call. */
ghz_status_t coll_comm_make(MPI_Comm mpi_comm, const ghz_comm_config_t* config, coll_calibrate_fn calibrate,
                            ghz_comm_t** comm);

/* Host-memory MPI point-to-point over *comm, which must outlive the transport
 * (transport_mpi.c). */
ghz_status_t ghz_coll_transport_mpi(MPI_Comm* comm, coll_transport_t* tp);
/* Cancels and frees an outstanding MPI request (MPI_REQUEST_NULL: nothing to do). */
void coll_mpi_cancel(MPI_Request* req);
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
