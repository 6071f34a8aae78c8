/* ghz/coll/reduce_choose.c: which algorithm runs a reduction: the configured one or
 * AUTO's choice, and whether the algorithm can run the call. */
#include <stddef.h>

#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* Exact allreduce: recursive doubling below this many bytes per rank, ring above. */
#define AUTO_RECDBL_MAX_BYTES ((size_t)32 << 10)

/* Whether GHZ_ALGO_IPC_DIRECT can run the call: a transport that maps the peers'
 * pools (CUDA IPC), and exact or the homomorphic sum (ghz/homo's n-ary sum takes at most
 * COLL_SUM_N_MAX inputs); NULL or the reason. */
static const char* direct_refusal(const ghz_comm_t* c, const call_t* k, coll_mode_t m)
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

ghz_algo_t coll_choose_algo(const ghz_comm_t* c, const call_t* k, coll_mode_t m)
{
    const size_t bytes = k->total * ghz_dtype_size(k->dtype);
    if (c->nccl && k->kind <= KIND_REDUCE_SCATTER) {
        const ghz_algo_t a = coll_configured_algo(c, k);
        return a == GHZ_ALGO_AUTO ? GHZ_ALGO_NCCL : a;
    }
    switch (k->kind) {
    case KIND_ALLREDUCE:
        if (c->cfg.allreduce_algo != GHZ_ALGO_AUTO) return c->cfg.allreduce_algo;
        /* one node over CUDA IPC: the peers' memory is read directly, every size (the
         * messages of the other algorithms each wait for the GPU) */
        if (!direct_refusal(c, k, m) && !(c->intra && c->inter && m != COLL_EXACT)) return GHZ_ALGO_IPC_DIRECT;
        if (m == COLL_EXACT && bytes <= c->mpi_max && !coll_mpi_refusal(c, k, m, NULL, NULL)) return GHZ_ALGO_MPI;
        if (m == COLL_EXACT) return bytes <= AUTO_RECDBL_MAX_BYTES ? GHZ_ALGO_RECURSIVE_DOUBLING : GHZ_ALGO_RING;
        /* lossy over several nodes: compress only across nodes (K over the node count,
         * exact on the fast links inside a node), every local rank busy if nodes match */
        if (c->intra && c->inter) return c->uniform_nodes ? GHZ_ALGO_TWO_LEVEL_MULTI : GHZ_ALGO_TWO_LEVEL;
        /* lossy: pairwise recompresses once (K = N+1 against the ring's 2N-1 for HOMO) */
        return c->size <= COLL_SUM_N_MAX ? GHZ_ALGO_PAIRWISE : GHZ_ALGO_RING;
    case KIND_REDUCE_SCATTER:
        if (c->cfg.reduce_scatter_algo != GHZ_ALGO_AUTO) return c->cfg.reduce_scatter_algo;
        if (!direct_refusal(c, k, m)) return GHZ_ALGO_IPC_DIRECT;
        return m != COLL_EXACT && c->size <= COLL_SUM_N_MAX ? GHZ_ALGO_PAIRWISE : GHZ_ALGO_RING;
    case KIND_REDUCE:
        return c->cfg.reduce_algo != GHZ_ALGO_AUTO ? c->cfg.reduce_algo : GHZ_ALGO_BINOMIAL;
    default: break; /* the two-level stages name their algorithm */
    }
    return GHZ_ALGO_AUTO;
}

ghz_status_t coll_check_algo(const ghz_comm_t* c, const call_t* k, ghz_algo_t a, coll_mode_t m)
{
    int ok = 0;
    if ((a == GHZ_ALGO_NCCL) != (c->nccl != NULL))
        return ghz_fail(GHZ_ERR_UNSUPPORTED, c->nccl ? "%s: the NCCL transport runs the nccl algorithm only"
                                                     : "%s needs the NCCL transport",
                        ghz_algo_name(a));
    if (a == GHZ_ALGO_NCCL) return GHZ_SUCCESS;
    switch (k->kind) {
    case KIND_ALLREDUCE:
        ok = a == GHZ_ALGO_RING || a == GHZ_ALGO_RECURSIVE_DOUBLING || a == GHZ_ALGO_PAIRWISE ||
             a == GHZ_ALGO_TWO_LEVEL || a == GHZ_ALGO_TWO_LEVEL_MULTI || a == GHZ_ALGO_IPC_DIRECT ||
             a == GHZ_ALGO_MPI;
        break;
    default: break;
    case KIND_REDUCE_SCATTER: ok = a == GHZ_ALGO_RING || a == GHZ_ALGO_PAIRWISE || a == GHZ_ALGO_IPC_DIRECT; break;
    case KIND_REDUCE: ok = a == GHZ_ALGO_BINOMIAL; break;
    }
    if (!ok)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "algorithm %s does not implement this collective",
                        ghz_algo_name(a));
    if ((a == GHZ_ALGO_TWO_LEVEL || a == GHZ_ALGO_TWO_LEVEL_MULTI) && (!c->intra || !c->inter))
        return ghz_fail(GHZ_ERR_UNSUPPORTED,
                        "%s needs several nodes of several ranks (%d node(s) here; ranks_per_node sets them)",
                        ghz_algo_name(a), c->nodes);
    if (a == GHZ_ALGO_TWO_LEVEL_MULTI && !c->uniform_nodes)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "two_level_multi needs nodes of equal size");
    if (a == GHZ_ALGO_IPC_DIRECT) {
        const char* why = direct_refusal(c, k, m);
        if (why) return ghz_fail(GHZ_ERR_UNSUPPORTED, "ipc_direct %s", why);
    }
    if (a == GHZ_ALGO_MPI) {
        const char* why = coll_mpi_refusal(c, k, m, NULL, NULL);
        if (why) return ghz_fail(GHZ_ERR_UNSUPPORTED, "mpi (MPI_Allreduce) %s", why);
    }
    if (a == GHZ_ALGO_PAIRWISE && m == COLL_HOMO && c->size > COLL_SUM_N_MAX)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "pairwise homomorphic sums take at most %d ranks",
                        COLL_SUM_N_MAX);

    return GHZ_SUCCESS;
}

/* The algorithm the configuration names for the call's collective (AUTO: none forced). */
ghz_algo_t coll_configured_algo(const ghz_comm_t* c, const call_t* k)
{
    return k->kind == KIND_ALLREDUCE        ? c->cfg.allreduce_algo
           : k->kind == KIND_REDUCE_SCATTER ? c->cfg.reduce_scatter_algo
                                            : c->cfg.reduce_algo;
}
