/* ghz/coll/detail/reduce_call.h: a reduction's kind entry and the steps that read it (private). */
#ifndef GHZ_COLL_DETAIL_REDUCE_CALL_H
#define GHZ_COLL_DETAIL_REDUCE_CALL_H

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/bound.h"
#include "ghz/coll/detail/calls.h"

#define COLL_ALGO_BIT(a) (1u << (unsigned)(a)) /* the bit of algorithm a in coll_kind_ops_t.algos */

/* What one kind's calls do differently (COLL.md, Algorithms): a new kind is one entry
 * (reduce_kinds.c; the two-level stages: two_level.c) and its algorithms. */
struct coll_kind_ops {
    coll_kind_t kind;
    int rooted;        /* only the root has an output */
    int per_rank;      /* count per rank, count * N inputs (reduce_scatter) */
    size_t configured; /* offsetof its algorithm in ghz_comm_config_t (0: none, the stages
                          name theirs) */
    unsigned algos;    /* the algorithms that run it, AUTO's candidates (nccl aside) */
    /* the pool a round needs where it is not the algorithm's (need) and what a ring or
     * pairwise round adds for its allgather (need2), the elements per segment of the call
     * (NULL: count), and one round from element off: the elements of a segment it covered */
    coll_need_fn need, need2;
    size_t (*extent)(const ghz_comm_t* c, const coll_desc_t* k);
    size_t (*round)(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo, size_t off,
                    size_t window);
    int final_wire;    /* the result is sent compressed too (one more error term) */
    int host_in_out;   /* the host path stages the input in small_out, run in place */
    int capturable;    /* may be captured into a CUDA graph */
    int nccl_kind;     /* coll_nccl_kind_t */
};

const coll_kind_ops_t* coll_kind_ops(coll_kind_t kind);
int coll_has_out(const ghz_comm_t* c, const coll_desc_t* k); /* (reduce: the root only) */

static inline int coll_two_level_algo(ghz_algo_t a)
{
    return a == GHZ_ALGO_TWO_LEVEL || a == GHZ_ALGO_TWO_LEVEL_MULTI;
}

/* Lossy AUTO calls whose agreed last ratio is below this run exact; every RATIO_RETRY-th
 * compresses anyway, to measure again. */
#define AUTO_MIN_RATIO 1.15
#define RATIO_RETRY 8

/* reduce_choose.c: the configured algorithm (AUTO: none), the call's in mode m (the
 * configured one, else AUTO's), and whether a can run it (failure: why not). */
ghz_algo_t coll_configured_algo(const ghz_comm_t* c, const coll_desc_t* k);
ghz_algo_t coll_choose_algo(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m);
ghz_status_t coll_check_algo(const ghz_comm_t* c, const coll_desc_t* k, ghz_algo_t a, coll_mode_t m);

/* algo_mpi.c: why GHZ_ALGO_MPI cannot run the call (NULL: it can); MPI_Allreduce itself. */
const char* coll_mpi_refusal(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m);
ghz_status_t coll_mpi_allreduce(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* proto);

/* reduce_rounds.c: what every round of a call shares; the window that fits the pool (0:
 * none); the call in rounds until `extent` elements of every segment are done (a
 * reduction: at least one round), bytes and times summed into *proto. */
void coll_proto_init(ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode, double eb, coll_round_t* proto);
size_t coll_round_window(const ghz_comm_t* c, const coll_desc_t* k, ghz_algo_t algo, coll_mode_t m, int staged,
                         size_t piece);
ghz_status_t coll_run_rounds(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* proto, ghz_algo_t algo,
                             size_t extent, uint64_t* rounds);

/* two_level.c (COLL.md, Two levels): K, the stage across nodes' over the node count; the
 * allreduce, exact inside nodes. ratio (NULL: not wanted): the least over ranks of the
 * stage across nodes' (0: none compressed). */
double coll_two_level_terms(const ghz_comm_t* c, coll_mode_t mode, ghz_op_t op);
ghz_status_t coll_two_level(ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode, double eb, ghz_algo_t algo,
                            coll_round_t* sum, double* ratio);

/* plan.c: where the host path copies a call's input. */
unsigned char* coll_host_in(const ghz_comm_t* c, const coll_desc_t* k);

#endif
