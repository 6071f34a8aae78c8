/* ghz/coll/detail/nccl_move.h: the data-movement calls over the NCCL transport
 * (nccl/move_nccl.c; NCCL builds), once the call is agreed and planned. */
#ifndef GHZ_COLL_DETAIL_NCCL_MOVE_H
#define GHZ_COLL_DETAIL_NCCL_MOVE_H

#include "ghz/coll/detail/move_call.h"

#ifdef GHZ_WITH_NCCL
/* Exact, not waited for. extent: the longest block (agreed). *bytes_sent: this rank's. */
ghz_status_t coll_nccl_move_exact(ghz_comm_t* c, const coll_desc_t* k, size_t extent, uint64_t* bytes_sent);
/* Lossy: every value compressed once under eb (absolute), in rounds; acc's wire and
 * logical bytes count what this rank sent. */
ghz_status_t coll_nccl_move_lossy(ghz_comm_t* c, const coll_desc_t* k, size_t extent, double eb, coll_round_t* acc,
                                  uint64_t* rounds);
/* NCCL's own collective for an exact uniform call (the kinds' nccl_native); e: the
 * dtype's bytes. */
ghz_status_t coll_nccl_mv_allgather(ghz_comm_t* c, const coll_desc_t* k, size_t e);
ghz_status_t coll_nccl_mv_bcast(ghz_comm_t* c, const coll_desc_t* k, size_t e);
ghz_status_t coll_nccl_mv_gather(ghz_comm_t* c, const coll_desc_t* k, size_t e);
ghz_status_t coll_nccl_mv_scatter(ghz_comm_t* c, const coll_desc_t* k, size_t e);
ghz_status_t coll_nccl_mv_alltoall(ghz_comm_t* c, const coll_desc_t* k, size_t e);
#endif

#endif
