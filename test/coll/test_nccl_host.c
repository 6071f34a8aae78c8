/* test/coll/test_nccl_host.c: what the NCCL transport decides on the host, without a GPU
 * (CI builds the transport where NCCL is found, and has no GPU): the entries' argument
 * checks, which (dtype, op) pairs NCCL reduces itself, and the error terms of the nccl
 * algorithm (AUTO's size rule, every transport's: test_auto_rule.c). The calls themselves run in
 * test_coll_nccl and test_coll_nccl_rank on GPU machines. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "ghz/coll/coll.h"
#include "ghz/coll/detail/bound.h"
#include "ghz/coll/detail/nccl.h"

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
