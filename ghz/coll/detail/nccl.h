/* ghz/coll/detail/nccl.h: the NCCL transport (private; NCCL builds, GHZ_WITH_NCCL;
 * COLL.md, Transports, NCCL): nccl/nccl_comm.c makes the NCCL communicator and runs the
 * control plane, nccl/algo_nccl.c the reductions. */
#ifndef GHZ_COLL_DETAIL_NCCL_H
#define GHZ_COLL_DETAIL_NCCL_H

#include "ghz/coll/detail/algo.h"

typedef struct coll_nccl coll_nccl_t;

/* The kinds of call the NCCL algorithm runs: the public reductions, and the exact stages
 * of the two-level allreduce inside a node (two_level.c): a broadcast from root, and the
 * reduce-scatter and allgather of a balanced split of the vector (coll_split's). */
typedef enum {
    COLL_NCCL_ALLREDUCE, COLL_NCCL_REDUCE, COLL_NCCL_REDUCE_SCATTER, COLL_NCCL_BCAST, COLL_NCCL_RS_SPLIT,
    COLL_NCCL_AG_SPLIT
} coll_nccl_kind_t;

#ifdef GHZ_WITH_NCCL
/* Makes c->nccl from the unique id *id (over MPI: rank 0's, broadcast by comm_make.c),
 * after the CUDA backend. Collective; on failure c->nccl is NULL or destroyable. */
ghz_status_t coll_nccl_create(ghz_comm_t* c, const ghz_coll_unique_id_t* id);
/* Makes c->nccl for a two-level child: the ranks of p's NCCL communicator with this
 * color, in p's rank order; sets c->rank and c->size. Collective over p: a rank with c
 * NULL takes part without a color. On failure c->nccl is NULL or destroyable. */
ghz_status_t coll_nccl_split(ghz_comm_t* p, ghz_comm_t* c, int color);
/* Frees c->nccl (NULL is fine). abort: ncclCommAbort, for a broken communicator. */
void coll_nccl_destroy(ghz_comm_t* c, int abort);
/* For a communicator without MPI: c->shm, the agreements' POSIX shared segment where
 * every rank is on one host and wants it (coll_shm_wanted), else NULL (the agreements
 * stay on NCCL's allreduce). Collective; fails only where the control allreduce does. */
ghz_status_t coll_nccl_agree_shm(ghz_comm_t* c, const ghz_coll_unique_id_t* id);
/* *seconds: this rank's time of NCCL's exact allreduce of S bytes per rank, the timer
 * of AUTO's calibration (calibrate.c). Collective. */
ghz_status_t coll_nccl_time_allreduce(ghz_comm_t* c, size_t S, double* seconds);
/* The ratio AUTO keeps: a compressed call's bytes before over after compression, over
 * every rank (the same on every rank); reset before the call's rounds. */
void coll_nccl_call_reset(ghz_comm_t* c);
double coll_nccl_call_ratio(const ghz_comm_t* c);
/* Why NCCL has no exact call for (dtype, op), NULL when it has. */
const char* coll_nccl_exact_refusal(ghz_dtype_t dtype, ghz_op_t op);
/* NCCL's own exact collective on the caller's stream. in == out is in place
 * (reduce_scatter: out == in + rank * count). The two-level stages: count is the whole
 * vector's; bcast and ag_split move out in place. */
ghz_status_t coll_nccl_exact(ghz_comm_t* c, coll_nccl_kind_t kind, const void* in, void* out, size_t count,
                             ghz_dtype_t dtype, ghz_op_t op, int root, ghz_stream_t stream);
/* The pool bytes of one round with segments of at most `window` elements. */
size_t coll_nccl_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
/* One round: segment s of every rank's input is combined by rank s; allreduce: every
 * result into out + seg_off[s]; reduce: the same on r->root only; reduce_scatter: this
 * rank's into out_own. */
void coll_nccl_reduce(coll_round_t* r, coll_pool_t* pool, coll_nccl_kind_t kind, unsigned char* out_own);
#endif

#endif
