/* ghz/coll/reduce_choose.c: which algorithm runs a reduction, and whether it can. */
#include <math.h>
#include <stddef.h>

#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/plan.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* Exact allreduce: recursive doubling up to this many bytes per rank, ring above. */
#define AUTO_RECDBL_MAX_BYTES ((size_t)32 << 10)

/* Why ipc_direct cannot run the call (NULL: it can). */
static const char* coll_direct_refusal(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m)
{
#ifdef GHZ_WITH_CUDA
    if (!c->tp.fence || !c->tp.peer_pool) return "needs the CUDA IPC transport";
    if (m == COLL_EXACT) return NULL;
    if (m != COLL_HOMO) return "combines compressed data only (the homomorphic path)";
    if (k->op != GHZ_OP_SUM && k->op != GHZ_OP_AVG) return "combines compressed data by sums only (sum, avg)";
    if (c->size > COLL_SUM_N_MAX) return "sums at most 64 ranks' compressed data";
    return NULL;
#else
    (void)c;
    (void)k;
    (void)m;
    return "needs a CUDA build and the CUDA IPC transport";
#endif
}

/* Why the two levels cannot run the call over NCCL: their stages inside a node are
 * NCCL's own exact calls (float min and max follow ghz's NaN rule, not NCCL's). */
static const char* nccl_two_level_refusal(const coll_desc_t* k)
{
#ifdef GHZ_WITH_NCCL
    return coll_nccl_exact_refusal(k->dtype, k->op);
#else
    (void)k;
    return "needs NCCL";
#endif
}

int coll_argmin(const coll_cost_row_t* rows, int n)
{
    int i, best = -1;
    for (i = 0; i < n; i++)
        if (isfinite(rows[i].cost) && (best < 0 || rows[i].cost < rows[best].cost)) best = i;
    return best;
}

/* AUTO's algorithm in mode m (COLL.md, Choices): a table of the candidates, each costed
 * in ranks of the measured order (INFINITY: it cannot take the call), and its argmin. */
static ghz_algo_t auto_algo(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m)
{
    const size_t bytes = k->total * ghz_dtype_size(k->dtype);
    const int exact = m == COLL_EXACT, nccl = c->nccl != NULL;
    const int two = !exact && c->levels && (k->ops->algos & COLL_ALGO_BIT(GHZ_ALGO_TWO_LEVEL)) &&
                    (!nccl || !nccl_two_level_refusal(k));
    coll_cost_row_t rows[] = {
        {m, GHZ_ALGO_NCCL, nccl ? 1.0 : INFINITY},
        {m, GHZ_ALGO_IPC_DIRECT, nccl || coll_direct_refusal(c, k, m) || two ? INFINITY : 0.0},
        {m, GHZ_ALGO_MPI, !nccl && exact && bytes <= c->mpi_max && !coll_mpi_refusal(c, k, m) ? 1.0
                                                                                                       : INFINITY},
        {m, GHZ_ALGO_RECURSIVE_DOUBLING, nccl || !exact ? INFINITY : bytes <= AUTO_RECDBL_MAX_BYTES ? 2.0 : 4.0},
        {m, c->uniform_nodes ? GHZ_ALGO_TWO_LEVEL_MULTI : GHZ_ALGO_TWO_LEVEL, two ? 0.0 : INFINITY},
        {m, GHZ_ALGO_PAIRWISE, nccl || exact || c->size > COLL_SUM_N_MAX ? INFINITY : 2.5},
        {m, GHZ_ALGO_RING, nccl ? INFINITY : 3.0},
        {m, GHZ_ALGO_BINOMIAL, nccl ? INFINITY : 3.0},
    };
    const int n = (int)(sizeof rows / sizeof rows[0]);
    int i;
    for (i = 0; i < n; i++)
        if (rows[i].algo != GHZ_ALGO_NCCL && !(k->ops->algos & COLL_ALGO_BIT(rows[i].algo))) rows[i].cost = INFINITY;
    i = coll_argmin(rows, n);
    return i < 0 ? GHZ_ALGO_AUTO : rows[i].algo;
}

/* Over NCCL an exact call stays NCCL's own, which runs its own hierarchy. */
ghz_algo_t coll_choose_algo(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m)
{
    const ghz_algo_t a = coll_configured_algo(c, k);
    if (!k->ops->configured) return GHZ_ALGO_AUTO;
    if (a == GHZ_ALGO_AUTO) return auto_algo(c, k, m);
    return c->nccl && m == COLL_EXACT && coll_two_level_algo(a) && c->levels ? GHZ_ALGO_NCCL : a;
}

ghz_status_t coll_check_algo(const ghz_comm_t* c, const coll_desc_t* k, ghz_algo_t a, coll_mode_t m)
{
    const char* why;
    if (c->nccl ? a != GHZ_ALGO_NCCL && !coll_two_level_algo(a) : a == GHZ_ALGO_NCCL)
        return ghz_fail(GHZ_ERR_UNSUPPORTED,
                        c->nccl ? "%s: the NCCL transport runs the nccl algorithm (and two_level, "
                                  "two_level_multi for lossy allreduce calls) only"
                                : "%s needs the NCCL transport",
                        ghz_algo_name(a));
    if (a == GHZ_ALGO_NCCL) return GHZ_SUCCESS;
    if ((unsigned)a >= 32 || !(k->ops->algos & COLL_ALGO_BIT(a)))
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "algorithm %s does not implement this collective", ghz_algo_name(a));
    if (coll_two_level_algo(a) && !c->levels)
        return ghz_fail(GHZ_ERR_UNSUPPORTED,
                        "%s needs several nodes of several ranks (%d node(s) here; ranks_per_node sets them)",
                        ghz_algo_name(a), c->nodes);
    if (a == GHZ_ALGO_TWO_LEVEL_MULTI && !c->uniform_nodes)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "two_level_multi needs nodes of equal size");
    why = c->nccl                   ? nccl_two_level_refusal(k)
          : a == GHZ_ALGO_IPC_DIRECT ? coll_direct_refusal(c, k, m)
          : a == GHZ_ALGO_MPI        ? coll_mpi_refusal(c, k, m)
                                     : NULL;
    if (why)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "%s%s %s", ghz_algo_name(a),
                        c->nccl ? " over NCCL:" : a == GHZ_ALGO_MPI ? " (MPI_Allreduce)" : "", why);
    if (!c->nccl && a == GHZ_ALGO_PAIRWISE && m == COLL_HOMO && c->size > COLL_SUM_N_MAX)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "pairwise homomorphic sums take at most %d ranks", COLL_SUM_N_MAX);
    return GHZ_SUCCESS;
}

ghz_algo_t coll_configured_algo(const ghz_comm_t* c, const coll_desc_t* k)
{
    return k->ops->configured ? *(const ghz_algo_t*)((const char*)&c->cfg + k->ops->configured) : GHZ_ALGO_AUTO;
}
