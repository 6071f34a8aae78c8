/* ghz/coll/detail/plan.h: a call's plan (plan.c), how it is executed (exec.c) and the one
 * runner of every call (runner.c) (private).
 *
 * Layers, each calling only those below it: the entry points (entry.c) make a call's
 * descriptor (calls.h, coll_desc_t) and hand it to the runner; the runner checks it
 * (reduce_entry.c, move_args.c, contract.c), agrees on it (agree.c), asks the planner for
 * a plan built from agreed inputs only, and executes it (exec.c, or the host path:
 * host_path.c); the executor runs the algorithms (algo_*.c, two_level.c, the NCCL calls)
 * over the backends and transports. */
#ifndef GHZ_COLL_DETAIL_PLAN_H
#define GHZ_COLL_DETAIL_PLAN_H

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/calls.h"

/* How a plan moves its data. */
typedef enum {
    COLL_ROUTE_NONE,      /* a reduction of no element: nothing moves */
    COLL_ROUTE_SELF,      /* one rank: the result is the input (this rank's own block) */
    COLL_ROUTE_HOST,      /* a CUDA communicator's small exact call through pinned host
                             memory, on its CPU communicator (host_path.c) */
    COLL_ROUTE_MPI,       /* the MPI library's own call (algo_mpi.c, the kinds' mpi) */
    COLL_ROUTE_ROUNDS,    /* ghz's algorithm in rounds that fit the pool (coll_run_rounds) */
    COLL_ROUTE_TWO_LEVEL, /* inside nodes, then across them (two_level.c) */
    COLL_ROUTE_NCCL       /* NCCL's own exact reduction, or the data movement over NCCL */
} coll_route_t;

/* What a call does before its agreement, decided from its own fields and the
 * communicator's configuration (the same on every rank for a valid call: the agreement
 * checks the fields that decide it). */
typedef struct {
    int lossy;         /* an accuracy was given */
    int compress;      /* over NCCL, a reduction that compresses (decided before the
                          agreement, which carries it: no range scan where it does not) */
    int ranged;        /* this rank scans its value range, and the agreement carries it */
    int copied;        /* the host path's copy of the input is made before the agreement */
    int range_in_copy; /* ... by the range kernel, which makes the copy */
    int agree;         /* the call is agreed (lossy, a v form, or check_args) */
} coll_pre_t;

/* A call's plan: every field decided from agreed inputs, so every rank holds the same. */
typedef struct {
    coll_route_t route;
    coll_mode_t mode;  /* exact, or how compressed data is combined */
    ghz_algo_t algo;
    double eb;         /* E: the absolute bound of every compression (bound.h) */
    double bound_abs;  /* the bound on the result (lossy calls) */
    double terms;      /* K of the budget (0: exact) */
    size_t extent;     /* data movement: the longest block of any rank (elements) */
    size_t far;        /* data movement: the farthest block end of any rank */
} coll_plan_t;

/* The cost model of AUTO's choices (auto_rule.h has the rule): the rows a planner
 * weighs, one per candidate, and the cheapest wins (coll_argmin). */
typedef struct {
    coll_mode_t mode;
    ghz_algo_t algo;
    double cost;       /* seconds (estimated); INFINITY: not a candidate */
} coll_cost_row_t;

/* plan.c */
/* What the call does before its agreement (checked: this rank's own checks passed;
 * where they failed, only what the agreement itself needs). */
void coll_plan_pre(const ghz_comm_t* c, const coll_desc_t* k, int checked, coll_pre_t* pre);
/* Why the call cannot be captured into a CUDA graph (NULL: it can). */
const char* coll_capture_refusal(const ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre);
/* The plan of an agreed call (failure: the same on every rank, detail set). */
ghz_status_t coll_plan(const ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre, const coll_agreed_t* all,
                       coll_plan_t* p);
/* The route of a plan whose mode is decided (p->algo too, for a reduction; p->extent and
 * p->far for a data movement): also the host path's plan on the CPU communicator. */
void coll_plan_route(const ghz_comm_t* c, const coll_desc_t* k, coll_plan_t* p);
/* The index of the cheapest row (the first of equal costs); -1 where none is finite
 * (reduce_choose.c). */
int coll_argmin(const coll_cost_row_t* rows, int n);

/* exec.c */
/* Executes plan p (any route but HOST) on c: its bytes, times and rounds into *info
 * (algo, path, bytes, rounds, times); *ratio: the compression ratio that AUTO keeps
 * (over NCCL the same on every rank; 0: none). */
ghz_status_t coll_execute(ghz_comm_t* c, const coll_desc_t* k, const coll_plan_t* p, ghz_coll_info_t* info,
                          double* ratio);

/* host_path.c */
/* The call through host memory (COLL_ROUTE_HOST): the input copied to pinned memory
 * (already, when `copied`; all_staged: every rank's was), the plan's exact call on the
 * CPU communicator, the result copied back without waiting. *info: the host call's. */
ghz_status_t coll_host_path(ghz_comm_t* c, const coll_desc_t* k, const coll_plan_t* p, int copied, int all_staged,
                            double t_copied, ghz_coll_info_t* info);

/* runner.c */
/* One call, ended by the failure rule (contract.c, coll_call_end). */
ghz_status_t coll_run(ghz_comm_t* c, coll_desc_t* k);

#endif
