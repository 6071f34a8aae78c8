/* ghz/coll/detail/plan.h: the runner (check, agree, plan, execute) between the entry
 * points and the algorithms; each layer calls only those below it (private). */
#ifndef GHZ_COLL_DETAIL_PLAN_H
#define GHZ_COLL_DETAIL_PLAN_H

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/calls.h"

typedef enum {
    COLL_ROUTE_NONE,      /* a reduction of no element */
    COLL_ROUTE_SELF,      /* one rank: the result is the input */
    COLL_ROUTE_HOST,      /* through pinned host memory, on the CPU communicator (host_path.c) */
    COLL_ROUTE_MPI,       /* the MPI library's own call */
    COLL_ROUTE_ROUNDS,    /* ghz's algorithm in rounds that fit the pool */
    COLL_ROUTE_TWO_LEVEL, /* inside nodes, then across them (two_level.c) */
    COLL_ROUTE_NCCL       /* NCCL's own exact reduction, or the data movement over NCCL */
} coll_route_t;

/* What a call does before its agreement, from its own fields and the configuration
 * (alike on every rank for a valid call: the agreement checks what decides it). */
typedef struct {
    int lossy;
    int compress;      /* over NCCL: a reduction that compresses (else it scans no range) */
    int ranged;        /* this rank scans its value range */
    int copied;        /* the host path's copy of the input is made before the agreement */
    int range_in_copy; /* ... by the range kernel, which makes the copy */
    int agree;         /* the call is agreed (lossy, a v form, or check_args) */
    int ratio;         /* a lossy data movement that compresses sends ratio frames
                          (GHZ_PATH_RATIO, or AUTO where the link chose them) */
} coll_pre_t;

/* Every field decided from agreed inputs, so every rank holds the same plan. */
typedef struct {
    coll_route_t route;
    coll_mode_t mode;
    ghz_algo_t algo;
    double eb;         /* E of every compression (bound.h) */
    double bound_abs;  /* the bound on the result */
    double terms;      /* K (0: exact) */
    size_t extent;     /* data movement: the longest block of any rank (elements) */
    size_t far;        /* ... and the farthest block end */
    int ratio_frames;  /* ... sent as the codec's ratio frames (GHZ_PATH_RATIO) */
} coll_plan_t;

/* A row of AUTO's cost tables: the cheapest finite one wins (coll_argmin). */
typedef struct {
    coll_mode_t mode;
    ghz_algo_t algo;
    double cost;       /* seconds (estimated); INFINITY: not a candidate */
} coll_cost_row_t;

/* plan.c. checked: this rank's own checks passed. A failed plan fails on every rank. The
 * route of a plan whose mode (a reduction: and algo; a data movement: extent, far) is
 * decided serves the host path's call too. */
void coll_plan_pre(const ghz_comm_t* c, const coll_desc_t* k, int checked, coll_pre_t* pre);
const char* coll_capture_refusal(const ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre);
ghz_status_t coll_plan(const ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre, const coll_agreed_t* all,
                       coll_plan_t* p);
void coll_plan_route(const ghz_comm_t* c, const coll_desc_t* k, coll_plan_t* p);
/* reduce_choose.c: the first cheapest row; -1 where none is finite. */
int coll_argmin(const coll_cost_row_t* rows, int n);

/* exec.c: plan p (any route but HOST); *ratio: the compression ratio AUTO keeps (0: none). */
ghz_status_t coll_execute(ghz_comm_t* c, const coll_desc_t* k, const coll_plan_t* p, ghz_coll_info_t* info,
                          double* ratio);

/* host_path.c: the input copied to pinned memory (already, when `copied`; all_staged:
 * every rank's was), the exact call on the CPU communicator, the result copied back
 * without waiting. */
ghz_status_t coll_host_path(ghz_comm_t* c, const coll_desc_t* k, const coll_plan_t* p, int copied, int all_staged,
                            double t_copied, ghz_coll_info_t* info);

ghz_status_t coll_run(ghz_comm_t* c, coll_desc_t* k); /* runner.c: one call, ended by the failure rule */

#endif
