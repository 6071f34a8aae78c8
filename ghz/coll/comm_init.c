/* ghz/coll/comm_init.c: ghz_comm_init (over MPI: comm_make.c) and ghz_comm_init_rank (over NCCL). */
#include <string.h>

#ifdef GHZ_WITH_MPI
#include "ghz/coll/coll_mpi.h" /* ghz_comm_init's declaration: exported (GHZ_API) */
#include "ghz/coll/detail/comm_mpi.h"
#endif
#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/auto_rule.h"
#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/detail/error.h"

#ifdef GHZ_WITH_MPI
ghz_status_t ghz_comm_init(MPI_Comm mpi_comm, const ghz_comm_config_t* config, ghz_comm_t** comm)
{
    return coll_comm_make(mpi_comm, config, coll_auto_calibrate, comm);
}
#endif

#ifdef GHZ_WITH_NCCL
/* Nodes are blocks of ranks_per_node ranks; 0 is one node: nothing else tells where ranks run. */
static void levels_by_rank(ghz_comm_t* c)
{
    const int rpn = c->cfg.ranks_per_node > 0 ? c->cfg.ranks_per_node : c->size;
    const int node = c->rank / rpn;
    c->node_color = node;
    c->local_rank = c->rank % rpn;
    c->local_size = c->size - node * rpn < rpn ? c->size - node * rpn : rpn;
    c->nodes = (c->size + rpn - 1) / rpn;
    c->uniform_nodes = c->size % rpn == 0;
    c->levels = c->nodes > 1 && c->nodes < c->size;
}
#endif

ghz_status_t ghz_comm_init_rank(int nranks, const ghz_coll_unique_id_t* id, int rank, const ghz_comm_config_t* config,
                                ghz_comm_t** comm)
{
#ifdef GHZ_WITH_NCCL
    ghz_comm_t* c;
    ghz_comm_config_t in;
    ghz_status_t st;
    ghz_clear_detail();
    if (!comm) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm");
    *comm = NULL;
    if (!id) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL unique id");
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "rank %d of %d ranks", rank, nranks);
    ghz_comm_config_init(&in);
    if (config) {
        if (config->struct_size < offsetof(ghz_comm_config_t, transport) + sizeof(ghz_transport_t) ||
            config->struct_size > (size_t)1 << 16)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_comm_config_t.struct_size %zu: initialise with GHZ_COMM_CONFIG_INIT",
                            config->struct_size);
        memcpy(&in, config, sizeof in < config->struct_size ? sizeof in : config->struct_size);
    } else {
        in.backend = GHZ_EXEC_CUDA;
    }
    if (in.backend != GHZ_EXEC_CUDA)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "ghz_comm_init_rank makes CUDA-backend communicators only");
    if (in.transport != GHZ_TRANSPORT_AUTO && in.transport != GHZ_TRANSPORT_NCCL)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "ghz_comm_init_rank runs over NCCL only (transport %d)", (int)in.transport);
    in.transport = GHZ_TRANSPORT_NCCL;
    c = coll_comm_new();
    if (!c) return ghz_fail(GHZ_ERR_NOMEM, "communicator");
    c->rank = rank;
    c->size = nranks;
    c->nodes = 1;
    st = coll_knobs_read(&c->knobs);
    if (st == GHZ_SUCCESS) st = coll_config_read(&in, &c->knobs, &c->cfg);
    else ghz_comm_config_init(&c->cfg);
    if (st == GHZ_SUCCESS) st = ghz_coll_backend_cuda(c->cfg.chunk_bytes, &c->be);
    if (st == GHZ_SUCCESS) {
        c->tp.shared_gpu = 0; /* NCCL takes one rank per GPU */
        st = coll_comm_alloc_buffers(c);
    }
    /* NCCL's init is collective: every rank calls it, after a local failure too (a failed
     * ncclCommInitRank fails on every rank: then there is nothing to agree through) */
    const ghz_status_t made = coll_nccl_create(c, id);
    if (made == GHZ_SUCCESS) {
        st = coll_agree_config(c, st);
        if (st == GHZ_SUCCESS) st = coll_nccl_agree_shm(c, id);
        if (st == GHZ_SUCCESS) st = coll_auto_calibrate(c);
        if (st == GHZ_SUCCESS) levels_by_rank(c);
    } else if (st == GHZ_SUCCESS) {
        st = made;
    }
    if (st == GHZ_SUCCESS && c->rank == 0 && c->knobs.debug_info) coll_comm_describe(c);
    return coll_comm_finish_init(c, st, comm);
#else
    (void)nranks;
    (void)id;
    (void)rank;
    (void)config;
    ghz_clear_detail();
    if (comm) *comm = NULL;
    return ghz_fail(GHZ_ERR_UNSUPPORTED, "this libghzcoll was built without NCCL");
#endif
}

#ifndef GHZ_WITH_NCCL
ghz_status_t ghz_coll_get_unique_id(ghz_coll_unique_id_t* id)
{
    (void)id;
    ghz_clear_detail();
    return ghz_fail(GHZ_ERR_UNSUPPORTED, "this libghzcoll was built without NCCL");
}
#endif
