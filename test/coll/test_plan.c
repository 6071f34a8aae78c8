/* test/coll/test_plan.c: the planner (ghz/coll/plan.c) on fake agreed inputs, without MPI
 * traffic or a GPU: a communicator as the planner reads it, a call checked as the runner
 * checks it, and the plan it gets: the route (MPI's own call, rounds, the host path,
 * NCCL, one rank, nothing), the algorithm (the broadcast's chain included), exact or
 * compressed, and the error budget;
 * AUTO's cost table (compress from the calibrated size on, not where the last ratio did
 * not pay) and its argmin. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/coll.h"
#include "ghz/coll/detail/auto_rule.h"
#include "ghz/coll/detail/bound.h"
#include "ghz/coll/detail/comm.h"
#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/plan.h"
#include "ghz/coll/detail/reduce_call.h"

#define MIB ((size_t)1 << 20)

static float bufs[2][(size_t)4 << 20]; /* 16 MiB each: the calls' sides (never read) */

/* A CPU communicator of N ranks, this one rank 0, as comm.c resolves the defaults: MPI's
 * own call up to 4 MiB, AUTO compressing from 1 MiB per rank. */
static void cpu_comm(ghz_comm_t* c, int N)
{
    memset(c, 0, sizeof *c);
    c->size = N;
    c->cfg.backend = GHZ_EXEC_CPU;
    c->cfg.allreduce_algo = c->cfg.reduce_algo = c->cfg.reduce_scatter_algo = GHZ_ALGO_AUTO;
    c->be.has_sum_n = 1;
    c->mpi_max = 4 * MIB;
    c->auto_min = 1 * MIB;
    c->nodes = 1;
    c->local_size = N;
}

/* The plan of a call of kind on c, every rank's agreed range [-1, 1]; the call checked
 * as the runner checks it (which must pass). */
static coll_plan_t plan_of(const ghz_comm_t* c, coll_desc_t* k, double ratio_seen, ghz_status_t* st)
{
    coll_pre_t pre;
    coll_agreed_t all;
    coll_plan_t p;
    cr_assert_eq(coll_desc_check(c, k), GHZ_SUCCESS, "%s", ghz_last_error_detail());
    coll_plan_pre(c, k, 1, &pre);
    memset(&all, 0, sizeof all);
    all.have_range = 1;
    all.vmin = -1.0;
    all.vmax = 1.0;
    all.ratio_seen = ratio_seen;
    all.most[0] = k->longest;
    all.most[1] = k->farthest;
    *st = coll_plan(c, k, &pre, &all, &p);
    return p;
}

static coll_desc_t reduction(coll_kind_t kind, size_t count, ghz_op_t op, const ghz_accuracy_t* acc)
{
    return coll_make_call(kind, bufs[0], bufs[1], count, GHZ_F32, op, 0, acc, NULL);
}

static coll_desc_t movement(coll_kind_t kind, size_t count, int root, const ghz_accuracy_t* acc)
{
    return coll_make_call(kind, bufs[0], bufs[1], count, GHZ_F32, GHZ_OP_SUM, root, acc, NULL);
}

/* An accuracy of mode and bound, by path. */
static ghz_accuracy_t accuracy(ghz_eb_mode_t mode, double bound, ghz_path_t path)
{
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    acc.mode = mode;
    acc.bound = bound;
    acc.path = path;
    return acc;
}

Test(plan, argmin_takes_the_cheapest_finite_row_and_the_first_of_ties)
{
    coll_cost_row_t rows[3] = {{COLL_HOMO, GHZ_ALGO_RING, 2.0}, {COLL_EXACT, GHZ_ALGO_RING, 1.0},
                               {COLL_DOC, GHZ_ALGO_RING, 1.0}};
    cr_expect_eq(coll_argmin(rows, 3), 1);
    rows[1].cost = rows[2].cost = INFINITY;
    cr_expect_eq(coll_argmin(rows, 3), 0);
    rows[0].cost = INFINITY;
    cr_expect_eq(coll_argmin(rows, 3), -1);
}

Test(plan, auto_compresses_from_the_calibrated_size_on)
{
    ghz_comm_t c;
    cpu_comm(&c, 4);
    cr_expect(!coll_auto_compresses(&c, MIB - 1));
    cr_expect(coll_auto_compresses(&c, MIB));
    cr_expect(coll_auto_compresses(&c, SIZE_MAX));
    c.auto_min = 0; /* (pinned: always) */
    cr_expect(coll_auto_compresses(&c, 0));
    c.auto_min = SIZE_MAX; /* (never: one rank, or a link as fast as the codec) */
    cr_expect(!coll_auto_compresses(&c, SIZE_MAX));
}

Test(plan, exact_allreduce_routes)
{
    ghz_comm_t c;
    ghz_status_t st;
    coll_desc_t k;
    coll_plan_t p;
    cpu_comm(&c, 4);
    /* small: MPI's own call (its rules are ghz's for a float sum) */
    k = reduction(KIND_ALLREDUCE, 1000, GHZ_OP_SUM, NULL);
    p = plan_of(&c, &k, 0.0, &st);
    cr_expect_eq(st, GHZ_SUCCESS);
    cr_expect_eq(p.route, COLL_ROUTE_MPI);
    cr_expect_eq(p.algo, GHZ_ALGO_MPI);
    cr_expect_eq(p.mode, COLL_EXACT);
    /* float min is not MPI's: ghz's recursive doubling when small, the ring beyond */
    k = reduction(KIND_ALLREDUCE, 1000, GHZ_OP_MIN, NULL);
    p = plan_of(&c, &k, 0.0, &st);
    cr_expect_eq(p.route, COLL_ROUTE_ROUNDS);
    cr_expect_eq(p.algo, GHZ_ALGO_RECURSIVE_DOUBLING);
    k = reduction(KIND_ALLREDUCE, 2 * MIB, GHZ_OP_SUM, NULL);
    p = plan_of(&c, &k, 0.0, &st);
    cr_expect_eq(p.route, COLL_ROUTE_ROUNDS);
    cr_expect_eq(p.algo, GHZ_ALGO_RING);
    /* no element, one rank */
    k = reduction(KIND_ALLREDUCE, 0, GHZ_OP_SUM, NULL);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).route, COLL_ROUTE_NONE);
    cpu_comm(&c, 1);
    k = reduction(KIND_REDUCE_SCATTER, 1000, GHZ_OP_SUM, NULL);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).route, COLL_ROUTE_SELF);
}

Test(plan, lossy_auto_allreduce_compresses_from_the_threshold)
{
    ghz_comm_t c;
    ghz_status_t st;
    ghz_accuracy_t acc = accuracy(GHZ_EB_ABS, 1e-3, GHZ_PATH_AUTO);
    coll_desc_t k;
    coll_plan_t p;
    cpu_comm(&c, 4);
    /* below 1 MiB per rank: exact, by MPI's call, still within the bound */
    k = reduction(KIND_ALLREDUCE, MIB / 4 - 1, GHZ_OP_SUM, &acc);
    p = plan_of(&c, &k, 0.0, &st);
    cr_expect_eq(st, GHZ_SUCCESS);
    cr_expect_eq(p.mode, COLL_EXACT);
    cr_expect_eq(p.route, COLL_ROUTE_MPI);
    cr_expect_eq(p.terms, 0.0);
    cr_expect_eq(p.bound_abs, 1e-3);
    /* from 1 MiB: compressed, pairwise on 4 ranks, K = N + 1 for a sum, E = B / K less
     * the rounding allowance */
    k = reduction(KIND_ALLREDUCE, MIB / 4, GHZ_OP_SUM, &acc);
    p = plan_of(&c, &k, 0.0, &st);
    cr_expect_eq(st, GHZ_SUCCESS);
    cr_expect_eq(p.mode, COLL_HOMO);
    cr_expect_eq(p.algo, GHZ_ALGO_PAIRWISE);
    cr_expect_eq(p.route, COLL_ROUTE_ROUNDS);
    cr_expect_eq(p.terms, coll_error_terms(GHZ_ALGO_PAIRWISE, COLL_HOMO, GHZ_OP_SUM, 4, 1, 1));
    cr_expect(p.eb > 0.0 && p.eb <= 1e-3 / p.terms, "E %g", p.eb);
    /* the last call's ratio did not pay: exact, but every RATIO_RETRY-th call measures again */
    c.lossy_calls = 1;
    cr_expect_eq(plan_of(&c, &k, 1.05, &st).mode, COLL_EXACT);
    c.lossy_calls = RATIO_RETRY;
    cr_expect_eq(plan_of(&c, &k, 1.05, &st).mode, COLL_HOMO);
    c.lossy_calls = 1;
    cr_expect_eq(plan_of(&c, &k, 2.5, &st).mode, COLL_HOMO);
    /* DOC when asked; a forced algorithm that cannot compress runs AUTO exact, no failure */
    acc.path = GHZ_PATH_DOC;
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).mode, COLL_DOC);
    acc.path = GHZ_PATH_AUTO;
    c.cfg.allreduce_algo = GHZ_ALGO_MPI;
    p = plan_of(&c, &k, 0.0, &st);
    cr_expect_eq(st, GHZ_SUCCESS);
    cr_expect_eq(p.mode, COLL_EXACT);
    cr_expect_eq(p.algo, GHZ_ALGO_MPI);
}

Test(plan, small_exact_calls_of_a_cuda_communicator_take_the_host_path)
{
    ghz_comm_t c, host;
    ghz_status_t st;
    coll_desc_t k;
    cpu_comm(&c, 4);
    cpu_comm(&host, 4);
    c.cfg.backend = GHZ_EXEC_CUDA;
    c.host = &host;
    c.small_bytes = 64 << 10;
    c.small_auto_bytes = MIB;
    k = reduction(KIND_ALLREDUCE, 1000, GHZ_OP_SUM, NULL);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).route, COLL_ROUTE_HOST);
    k = reduction(KIND_ALLREDUCE, 64 << 10, GHZ_OP_SUM, NULL); /* (256 KiB) */
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).route, COLL_ROUTE_ROUNDS);
    k = movement(MV_ALLGATHER, 1000, 0, NULL);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).route, COLL_ROUTE_HOST);
    /* a forced algorithm: the device path */
    c.cfg.allreduce_algo = GHZ_ALGO_RING;
    k = reduction(KIND_ALLREDUCE, 1000, GHZ_OP_SUM, NULL);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).route, COLL_ROUTE_ROUNDS);
}

Test(plan, data_movement)
{
    ghz_comm_t c;
    ghz_status_t st;
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    coll_desc_t k;
    coll_plan_t p;
    cpu_comm(&c, 4);
    /* exact, small: MPI's own call; its extents from the count */
    k = movement(MV_ALLGATHER, 1000, 0, NULL);
    p = plan_of(&c, &k, 0.0, &st);
    cr_expect_eq(st, GHZ_SUCCESS);
    cr_expect_eq(p.route, COLL_ROUTE_MPI);
    cr_expect_eq(p.extent, 1000);
    cr_expect_eq(p.far, 4000);
    /* lossy: compressed once, E = B, one term; AUTO weighs N blocks against the threshold */
    acc = accuracy(GHZ_EB_REL, 1e-3, GHZ_PATH_AUTO);
    k = movement(MV_BCAST, MIB / 16, 1, &acc);
    p = plan_of(&c, &k, 0.0, &st);
    cr_expect_eq(st, GHZ_SUCCESS);
    cr_expect_eq(p.mode, COLL_HOMO);
    cr_expect_eq(p.algo, GHZ_ALGO_BINOMIAL);
    cr_expect_eq(p.eb, 2e-3); /* (REL over the range [-1, 1]) */
    cr_expect_eq(p.terms, 1.0);
    k = movement(MV_BCAST, MIB / 16 - 1, 1, &acc);
    p = plan_of(&c, &k, 0.0, &st);
    cr_expect_eq(p.mode, COLL_EXACT);
    cr_expect_eq(p.route, COLL_ROUTE_MPI);
    /* scatter: the tree for small blocks through the wire buffers, else linear */
    acc.path = GHZ_PATH_HOMO;
    k = movement(MV_SCATTER, 1000, 0, &acc);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).algo, GHZ_ALGO_BINOMIAL);
    k = movement(MV_SCATTER, MIB, 0, &acc);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).algo, GHZ_ALGO_LINEAR);
    /* the broadcast's chain where a round holds more pieces than the tree's depth pays
     * for (8 ranks: 3 or more), decided in the plan from the window that fits the pool */
    cpu_comm(&c, 8);
    c.cfg.chunk_bytes = 4096;
    c.pool_bytes = 64 * MIB;
    k = movement(MV_BCAST, MIB / 16, 0, &acc);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).algo, GHZ_ALGO_RING);
    k = movement(MV_BCAST, 1024, 0, &acc);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).algo, GHZ_ALGO_BINOMIAL);
    /* one rank: its own block */
    cpu_comm(&c, 1);
    k = movement(MV_ALLTOALL, 1000, 0, NULL);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).route, COLL_ROUTE_SELF);
}

Test(plan, a_refused_bound_fails_alike)
{
    ghz_comm_t c;
    ghz_status_t st;
    ghz_accuracy_t acc = accuracy(GHZ_EB_ABS, 1e308, GHZ_PATH_AUTO); /* 2B is not finite */
    coll_desc_t k;
    cpu_comm(&c, 4);
    k = movement(MV_ALLGATHER, 1000, 0, &acc);
    plan_of(&c, &k, 0.0, &st);
    cr_expect_eq(st, GHZ_ERR_BAD_BOUND);
}

#ifdef GHZ_WITH_NCCL
Test(plan, nccl_routes)
{
    static int nccl_stand_in;
    ghz_comm_t c;
    ghz_status_t st;
    ghz_accuracy_t acc = accuracy(GHZ_EB_ABS, 1e-3, GHZ_PATH_AUTO);
    coll_desc_t k;
    coll_pre_t pre;
    cpu_comm(&c, 4);
    c.cfg.backend = GHZ_EXEC_CUDA;
    c.nccl = (struct coll_nccl*)(void*)&nccl_stand_in;
    /* NCCL's own exact call where it reduces the pair itself, else its fold in rounds */
    k = reduction(KIND_ALLREDUCE, 1000, GHZ_OP_SUM, NULL);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).route, COLL_ROUTE_NCCL);
    k = reduction(KIND_ALLREDUCE, 1000, GHZ_OP_MIN, NULL);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).route, COLL_ROUTE_ROUNDS);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).algo, GHZ_ALGO_NCCL);
    /* lossy AUTO: decided before the agreement (no range scan where exact) */
    k = reduction(KIND_ALLREDUCE, 1000, GHZ_OP_SUM, &acc);
    cr_assert_eq(coll_desc_check(&c, &k), GHZ_SUCCESS);
    coll_plan_pre(&c, &k, 1, &pre);
    cr_expect(!pre.compress && !pre.ranged);
    k = reduction(KIND_ALLREDUCE, MIB, GHZ_OP_SUM, &acc);
    cr_assert_eq(coll_desc_check(&c, &k), GHZ_SUCCESS);
    coll_plan_pre(&c, &k, 1, &pre);
    cr_expect(pre.compress && pre.ranged);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).mode, COLL_HOMO);
    /* the data movement: NCCL moves it */
    k = movement(MV_ALLTOALL, 1000, 0, NULL);
    cr_expect_eq(plan_of(&c, &k, 0.0, &st).route, COLL_ROUTE_NCCL);
}
#endif
