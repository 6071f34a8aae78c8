/* test/coll/test_nccl_host.c: what the NCCL transport decides on the host, without a GPU
 * (CI builds the transport where NCCL is found, and has no GPU): the entries' argument
 * checks, which (dtype, op) pairs NCCL reduces itself, the error terms of the nccl
 * algorithm, and which algorithm a call takes over nodes (two levels) (AUTO's size rule,
 * every transport's: test_auto_rule.c). The calls themselves run in test_coll_nccl and
 * test_coll_nccl_rank on GPU machines. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "ghz/coll/coll.h"
#include "ghz/coll/detail/bound.h"
#include "ghz/coll/detail/comm.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/reduce_call.h"

Test(nccl_host, init_rank_refuses_bad_arguments_before_any_device_work)
{
    ghz_coll_unique_id_t id;
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    ghz_comm_t* c = (ghz_comm_t*)&id; /* must come back NULL */
    memset(&id, 0, sizeof id);
#ifdef GHZ_WITH_NCCL
    cr_expect_eq(ghz_comm_init_rank(4, &id, 0, NULL, NULL), GHZ_ERR_INVALID_ARG);
    cr_expect_eq(ghz_comm_init_rank(4, NULL, 0, NULL, &c), GHZ_ERR_INVALID_ARG);
    cr_expect_null(c);
    cr_expect_eq(ghz_comm_init_rank(0, &id, 0, NULL, &c), GHZ_ERR_INVALID_ARG);
    cr_expect_eq(ghz_comm_init_rank(4, &id, 4, NULL, &c), GHZ_ERR_INVALID_ARG);
    cr_expect_eq(ghz_comm_init_rank(4, &id, -1, NULL, &c), GHZ_ERR_INVALID_ARG);
    cfg.backend = GHZ_EXEC_CPU; /* NCCL moves device memory */
    cr_expect_eq(ghz_comm_init_rank(2, &id, 0, &cfg, &c), GHZ_ERR_UNSUPPORTED);
    cfg.backend = GHZ_EXEC_CUDA;
    cfg.transport = GHZ_TRANSPORT_MPI;
    cr_expect_eq(ghz_comm_init_rank(2, &id, 0, &cfg, &c), GHZ_ERR_UNSUPPORTED);
    cfg.struct_size = 8;
    cr_expect_eq(ghz_comm_init_rank(2, &id, 0, &cfg, &c), GHZ_ERR_INVALID_ARG);
    cr_expect_null(c);
    cr_expect(strstr(ghz_last_error_detail(), "struct_size") != NULL, "%s", ghz_last_error_detail());
#else
    cr_expect_eq(ghz_comm_init_rank(2, &id, 0, &cfg, &c), GHZ_ERR_UNSUPPORTED);
    cr_expect_null(c);
    cr_expect_eq(ghz_coll_get_unique_id(&id), GHZ_ERR_UNSUPPORTED);
#endif
}

Test(nccl_host, names)
{
    cr_expect_str_eq(ghz_algo_name(GHZ_ALGO_NCCL), "nccl");
}

Test(nccl_host, error_terms_are_the_pairwise_dataflows)
{
    /* N leaves and one n-ary recompression for sums; N for min and max */
    cr_expect_eq(coll_error_terms(GHZ_ALGO_NCCL, COLL_HOMO, GHZ_OP_SUM, 4, 1, 1), 5.0);
    cr_expect_eq(coll_error_terms(GHZ_ALGO_NCCL, COLL_HOMO, GHZ_OP_AVG, 7, 0, 1), 8.0);
    cr_expect_eq(coll_error_terms(GHZ_ALGO_NCCL, COLL_HOMO, GHZ_OP_MAX, 4, 1, 1), 4.0);
    cr_expect_eq(coll_error_terms(GHZ_ALGO_NCCL, COLL_HOMO, GHZ_OP_SUM, 1, 1, 1), 0.0);
}

#ifdef GHZ_WITH_NCCL
Test(nccl_host, exact_calls_nccl_reduces_itself)
{
    cr_expect_null(coll_nccl_exact_refusal(GHZ_F32, GHZ_OP_SUM));
    cr_expect_null(coll_nccl_exact_refusal(GHZ_F64, GHZ_OP_AVG));
    cr_expect_null(coll_nccl_exact_refusal(GHZ_I8, GHZ_OP_PROD));
    cr_expect_null(coll_nccl_exact_refusal(GHZ_U64, GHZ_OP_MIN));
    /* ghz's rules, not NCCL's: the fold in rank order runs them */
    cr_expect_not_null(coll_nccl_exact_refusal(GHZ_F32, GHZ_OP_MIN));
    cr_expect_not_null(coll_nccl_exact_refusal(GHZ_F64, GHZ_OP_MAX));
    cr_expect_not_null(coll_nccl_exact_refusal(GHZ_I16, GHZ_OP_SUM));
    cr_expect_not_null(coll_nccl_exact_refusal(GHZ_U32, GHZ_OP_BXOR));
    cr_expect_not_null(coll_nccl_exact_refusal(GHZ_I64, GHZ_OP_LAND));
}
#endif

#ifdef GHZ_WITH_NCCL
/* A communicator of 4 ranks over NCCL as the algorithm's choice sees it (its NCCL state is
 * only tested for NULL there), in nodes of rpn ranks, as comm.c's levels make them. */
static void over_nccl(ghz_comm_t* c, int rpn, ghz_algo_t allreduce_algo)
{
    static int nccl_stand_in;
    memset(c, 0, sizeof *c);
    c->nccl = (struct coll_nccl*)(void*)&nccl_stand_in;
    c->size = 4;
    c->cfg.allreduce_algo = allreduce_algo;
    c->nodes = (4 + rpn - 1) / rpn;
    c->uniform_nodes = 4 % rpn == 0;
    c->levels = c->nodes > 1 && c->nodes < 4;
    c->be.has_sum_n = 1;
}

static ghz_algo_t chosen(const ghz_comm_t* c, coll_kind_t kind, ghz_op_t op, coll_mode_t m, ghz_status_t* check)
{
    coll_desc_t k = coll_make_call(kind, NULL, NULL, 1000, GHZ_F32, op, 0, NULL, NULL);
    const ghz_algo_t a = coll_choose_algo(c, &k, m);
    *check = coll_check_algo(c, &k, a, m);
    return a;
}

Test(nccl_host, two_levels_for_lossy_allreduce_over_nodes)
{
    ghz_comm_t c;
    ghz_status_t st;
    /* AUTO: multi-leader where nodes are equal, one leader a node otherwise; K over the
     * node count (nodes + 1: NCCL's allreduce across them) */
    over_nccl(&c, 2, GHZ_ALGO_AUTO);
    cr_expect_eq(chosen(&c, KIND_ALLREDUCE, GHZ_OP_SUM, COLL_HOMO, &st), GHZ_ALGO_TWO_LEVEL_MULTI);
    cr_expect_eq(st, GHZ_SUCCESS);
    cr_expect_eq(coll_two_level_terms(&c, COLL_HOMO, GHZ_OP_SUM), 3.0);
    cr_expect_eq(coll_two_level_terms(&c, COLL_EXACT, GHZ_OP_SUM), 0.0);
    over_nccl(&c, 3, GHZ_ALGO_AUTO);
    cr_expect_eq(chosen(&c, KIND_ALLREDUCE, GHZ_OP_AVG, COLL_HOMO, &st), GHZ_ALGO_TWO_LEVEL);
    cr_expect_eq(st, GHZ_SUCCESS);
    /* exact calls, the other kinds, and float min (NCCL's is not ghz's): NCCL's own */
    cr_expect_eq(chosen(&c, KIND_ALLREDUCE, GHZ_OP_SUM, COLL_EXACT, &st), GHZ_ALGO_NCCL);
    cr_expect_eq(chosen(&c, KIND_REDUCE_SCATTER, GHZ_OP_SUM, COLL_HOMO, &st), GHZ_ALGO_NCCL);
    cr_expect_eq(chosen(&c, KIND_ALLREDUCE, GHZ_OP_MIN, COLL_HOMO, &st), GHZ_ALGO_NCCL);
    /* one node, or a node a rank: no two levels */
    over_nccl(&c, 4, GHZ_ALGO_AUTO);
    cr_expect_eq(chosen(&c, KIND_ALLREDUCE, GHZ_OP_SUM, COLL_HOMO, &st), GHZ_ALGO_NCCL);
    over_nccl(&c, 1, GHZ_ALGO_AUTO);
    cr_expect_eq(chosen(&c, KIND_ALLREDUCE, GHZ_OP_SUM, COLL_HOMO, &st), GHZ_ALGO_NCCL);
}

/* The check of a lossy allreduce of op by the named algorithm, over nodes of rpn. */
static ghz_status_t named_check(int rpn, ghz_algo_t algo, ghz_op_t op)
{
    ghz_comm_t c;
    ghz_status_t st;
    over_nccl(&c, rpn, algo);
    chosen(&c, KIND_ALLREDUCE, op, COLL_HOMO, &st);
    return st;
}

Test(nccl_host, named_two_level_algorithms_over_nccl)
{
    ghz_comm_t c;
    ghz_status_t st;
    over_nccl(&c, 2, GHZ_ALGO_TWO_LEVEL);
    cr_expect_eq(chosen(&c, KIND_ALLREDUCE, GHZ_OP_SUM, COLL_HOMO, &st), GHZ_ALGO_TWO_LEVEL);
    cr_expect_eq(st, GHZ_SUCCESS);
    /* an exact call stays NCCL's single call */
    cr_expect_eq(chosen(&c, KIND_ALLREDUCE, GHZ_OP_SUM, COLL_EXACT, &st), GHZ_ALGO_NCCL);
    cr_expect_eq(st, GHZ_SUCCESS);
    /* refused: float max, unequal nodes for multi-leader, no nodes, another algorithm */
    cr_expect_eq(named_check(2, GHZ_ALGO_TWO_LEVEL, GHZ_OP_MAX), GHZ_ERR_UNSUPPORTED);
    cr_expect_eq(named_check(3, GHZ_ALGO_TWO_LEVEL_MULTI, GHZ_OP_SUM), GHZ_ERR_UNSUPPORTED);
    cr_expect_eq(named_check(4, GHZ_ALGO_TWO_LEVEL, GHZ_OP_SUM), GHZ_ERR_UNSUPPORTED);
    cr_expect_eq(named_check(2, GHZ_ALGO_RING, GHZ_OP_SUM), GHZ_ERR_UNSUPPORTED);
    cr_expect_eq(named_check(3, GHZ_ALGO_TWO_LEVEL, GHZ_OP_AVG), GHZ_SUCCESS);
}
#endif
