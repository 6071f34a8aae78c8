/* ghz/coll/detail/reduce_call.h: a reduction's call (ghz_allreduce, ghz_reduce,
 * ghz_reduce_scatter) as its steps share it across files (private): the entry and its
 * checks (reduce_entry.c), the algorithm's choice (reduce_choose.c, algo_mpi.c) and the
 * planner's host path rule (plan.c), the rounds (reduce_rounds.c), the two-level
 * allreduce (two_level.c); the one runner (runner.c) runs every call. */
#ifndef GHZ_COLL_DETAIL_REDUCE_CALL_H
#define GHZ_COLL_DETAIL_REDUCE_CALL_H

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/bound.h"
#include "ghz/coll/detail/calls.h"

/* The bit of algorithm a in coll_kind_ops_t.algos. */
#define COLL_ALGO_BIT(a) (1u << (unsigned)(a))

/* One kind of call: what its calls do differently, so that the steps (the checks, the
 * choice, the rounds, the budget, the host path, NCCL) read it here and a new kind is
 * one entry and its algorithms. The three public kinds are in reduce_kinds.c, the
 * two-level stages in two_level.c. */
struct coll_kind_ops {
    coll_kind_t kind;
    /* arguments: a root, which alone has an output (reduce); a count per rank, the
     * input count * N elements, in place also as recvbuf == sendbuf + rank * count
     * (reduce_scatter, NCCL's form) */
    int rooted;
    int per_rank;
    /* the algorithm: the configured one (NULL: none, the stages name theirs), and the
     * algorithms that run the kind, AUTO's candidates (bits: COLL_ALGO_BIT; nccl aside:
     * the NCCL transport runs it for every public kind; reduce_choose.c) */
    ghz_algo_t (*configured)(const ghz_comm_t* c);
    unsigned algos;
    /* a round: the pool it needs beyond the algorithm's own (coll_algo_need; NULL: no
     * more), the elements per segment of the whole call (NULL: count), and the round
     * itself, from element off with a window of `window`, returning the elements it
     * covered (of a segment) */
    void (*needs)(ghz_algo_t algo, coll_need_fn* need, coll_need_fn* need2);
    size_t (*extent)(const ghz_comm_t* c, const coll_desc_t* k);
    size_t (*round)(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, ghz_algo_t algo, size_t off,
                    size_t window);
    /* the error terms: the result is sent compressed too (coll_error_terms' final_wire) */
    int final_wire;
    /* the host path copies the input into small_out, where the call runs in place */
    int host_in_out;
    /* may be captured into a CUDA graph (plan.c, coll_capture_refusal) */
    int capturable;
    /* NCCL's kind (coll_nccl_kind_t) */
    int nccl_kind;
};

/* The entry of kind (NULL for an unknown one). */
const coll_kind_ops_t* coll_kind_ops(coll_kind_t kind);
/* Whether this rank has the call's output (a rooted kind: the root only). */
int coll_has_out(const ghz_comm_t* c, const coll_desc_t* k);

/* Lossy calls whose agreed previous ratio is below this run exact; every
 * RATIO_RETRY-th lossy call compresses anyway, to measure again. Whether compressing
 * pays at the call's size is the threshold fixed at init (auto_rule.h). */
#define AUTO_MIN_RATIO 1.15
#define RATIO_RETRY 8



/* reduce_choose.c */
/* The algorithm the configuration names for the call's collective (AUTO: none forced). */
ghz_algo_t coll_configured_algo(const ghz_comm_t* c, const coll_desc_t* k);
/* The call's algorithm in mode m: the configured one, else AUTO's choice. */
ghz_algo_t coll_choose_algo(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m);
/* Whether algorithm a runs the call in mode m (failure: why not, detail set). */
ghz_status_t coll_check_algo(const ghz_comm_t* c, const coll_desc_t* k, ghz_algo_t a, coll_mode_t m);

/* algo_mpi.c */
/* Why GHZ_ALGO_MPI cannot run the call (NULL: it can). */
const char* coll_mpi_refusal(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m);
/* GHZ_ALGO_MPI: MPI_Allreduce on the caller's buffers. */
ghz_status_t coll_mpi_allreduce(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* proto);

/* reduce_rounds.c */
/* The round prototype of a call: what every round of it shares. */
void coll_proto_init(ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode, double eb, coll_round_t* proto);
/* The elements per segment of one round of algo in mode m that fit the pool (0: none). */
size_t coll_round_window(const ghz_comm_t* c, const coll_desc_t* k, ghz_algo_t algo, coll_mode_t m, int staged,
                         size_t piece);
/* The call in rounds that fit the pool until `extent` elements of every segment are
 * done (a reduction: at least one round; a data movement: every block's part); bytes
 * and times summed into *proto. */
ghz_status_t coll_run_rounds(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* proto, ghz_algo_t algo,
                             size_t extent, uint64_t* rounds);

/* two_level.c */
/* K of a two-level allreduce in mode `mode` (bound.h): the stage across nodes', over
 * the node count (COLL.md, Two levels). */
double coll_two_level_terms(const ghz_comm_t* c, coll_mode_t mode, ghz_op_t op);
/* Two-level allreduce (COLL.md, Two levels): exact inside nodes, `mode` across them.
 * ratio (NULL: not wanted): the least over ranks of the stage across nodes' ratio of
 * bytes before over after compression, the same on every rank (0: none compressed). */
ghz_status_t coll_two_level(ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode, double eb, ghz_algo_t algo,
                            coll_round_t* sum, double* ratio);

/* plan.c: the host path's choice */
/* Where the host path copies a call's input. */
unsigned char* coll_host_in(const ghz_comm_t* c, const coll_desc_t* k);


#endif
