/* ghz/coll/coll_mpi.h: a ghz communicator over an MPI communicator.
 *
 * Everything else of the collective library is in ghz/coll/coll.h, which needs no
 * <mpi.h>; this header adds the one entry that takes an MPI_Comm. Usable from C99/C11
 * and C++. */
#ifndef GHZ_COLL_COLL_MPI_H
#define GHZ_COLL_COLL_MPI_H

#include <mpi.h>

#include "ghz/coll/coll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates a communicator over the ranks of mpi_comm (collective over it). The MPI
 * communicator is duplicated, so ghz traffic never matches the caller's messages; MPI
 * must be initialised (MPI_THREAD_SERIALIZED or more when several threads make MPI
 * calls). config may be NULL (defaults). Every buffer the communicator will use is
 * allocated here. With the NCCL transport, the NCCL communicator is made here too
 * (its unique id broadcast over mpi_comm). */
GHZ_API ghz_status_t ghz_comm_init(MPI_Comm mpi_comm, const ghz_comm_config_t* config,
                                   ghz_comm_t** comm);

#ifdef __cplusplus
}
#endif
#endif
