/* ghz/coll/comm_config.c: a communicator's configuration in force; GHZ_COLL_DEBUG=INFO's line. */
#include <stdio.h>
#include <string.h>

#include "ghz/coll/detail/calls.h"
#include "ghz/detail/error.h"

/* The CUDA backend synchronises once per piece: larger pieces amortise that.
 * Measured: docs/RESULTS-coll.md, "The numbers behind ghz/coll's defaults". */
#define DEFAULT_POOL ((size_t)64 << 20)
#define DEFAULT_CHUNK ((size_t)1 << 20)
#define DEFAULT_POOL_CUDA ((size_t)256 << 20)
#define DEFAULT_POOL_CUDA_MPI ((size_t)64 << 20)   /* MPI's 8 MiB pieces, a GPU per rank */
#define DEFAULT_CHUNK_CUDA ((size_t)8 << 20)
#define DEFAULT_CHUNK_CUDA_IPC ((size_t)64 << 20)  /* one codec kernel a piece: few, large pieces */
#define DEFAULT_CHUNK_CUDA_SHARED ((size_t)32 << 20) /* ranks sharing a GPU: each piece waits for time slices */
#define DEFAULT_CHUNK_CUDA_NCCL ((size_t)64 << 20) /* three host waits a round, whatever the pieces */
#define MAX_CHUNK ((size_t)1 << 30)

/* (ranks sharing a GPU over MPI were not measured with a smaller pool) */
size_t coll_cuda_pool(ghz_transport_t transport, int shared)
{
    return transport == GHZ_TRANSPORT_MPI && shared != 1 ? DEFAULT_POOL_CUDA_MPI : DEFAULT_POOL_CUDA;
}

void ghz_comm_config_init(ghz_comm_config_t* config)
{
    ghz_comm_config_t d = GHZ_COMM_CONFIG_INIT;
    if (config) *config = d;
}

/* AUTO takes GHZ_COLL_TRANSPORT on the CUDA backend only (a CPU communicator in the same
 * program stays on MPI); a field wins over the environment. */
static ghz_status_t resolve_transport(ghz_comm_config_t* cfg, const coll_knobs_t* k)
{
    const ghz_transport_t from_env = k->transport;
    if ((unsigned)cfg->transport > GHZ_TRANSPORT_NCCL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown transport %d", (int)cfg->transport);
    /* (AUTO on the CUDA backend without the environment stays AUTO: coll_auto_transport) */
    if (cfg->transport == GHZ_TRANSPORT_AUTO && (cfg->backend != GHZ_EXEC_CUDA || from_env != GHZ_TRANSPORT_AUTO))
        cfg->transport = from_env != GHZ_TRANSPORT_AUTO && cfg->backend == GHZ_EXEC_CUDA ? from_env : GHZ_TRANSPORT_MPI;
    if ((cfg->transport == GHZ_TRANSPORT_CUDA_IPC || cfg->transport == GHZ_TRANSPORT_NCCL) &&
        cfg->backend != GHZ_EXEC_CUDA)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "the %s transport needs the CUDA backend",
                        cfg->transport == GHZ_TRANSPORT_NCCL ? "NCCL" : "CUDA IPC");
#ifndef GHZ_WITH_NCCL
    if (cfg->transport == GHZ_TRANSPORT_NCCL)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "this libghzcoll was built without NCCL");
#endif
    return GHZ_SUCCESS;
}

/* (NCCL takes one rank per GPU; CUDA IPC works between processes of one device) */
ghz_transport_t coll_auto_transport(int shared, int single_node)
{
#ifdef GHZ_WITH_NCCL
    if (shared == 0) return GHZ_TRANSPORT_NCCL;
#endif
    (void)shared;
    return single_node ? GHZ_TRANSPORT_CUDA_IPC : GHZ_TRANSPORT_MPI;
}

ghz_status_t coll_config_read(const ghz_comm_config_t* in, const coll_knobs_t* k, ghz_comm_config_t* out)
{
    ghz_status_t st;
    ghz_comm_config_init(out);
    if (in && (in->struct_size < offsetof(ghz_comm_config_t, nthreads) + sizeof(int) ||
        in->struct_size > (size_t)1 << 16))
        return ghz_fail(GHZ_ERR_INVALID_ARG,
                        "ghz_comm_config_t.struct_size %zu: initialise with GHZ_COMM_CONFIG_INIT",
                        in->struct_size);
    if (in) memcpy(out, in, sizeof *out < in->struct_size ? sizeof *out : in->struct_size);
    out->struct_size = sizeof *out;
    if (out->backend != GHZ_EXEC_CPU && out->backend != GHZ_EXEC_CUDA)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown backend %d", (int)out->backend);
#ifndef GHZ_WITH_CUDA
    if (out->backend == GHZ_EXEC_CUDA)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "this libghzcoll was built without CUDA");
#endif
    if ((unsigned)out->allreduce_algo > GHZ_ALGO_NCCL || (unsigned)out->reduce_scatter_algo > GHZ_ALGO_NCCL ||
        (unsigned)out->reduce_algo > GHZ_ALGO_NCCL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown algorithm in the configuration");
    const ghz_algo_t named[3] = {out->allreduce_algo, out->reduce_scatter_algo, out->reduce_algo};
    static const char* const field[3] = {"allreduce_algo", "reduce_scatter_algo", "reduce_algo"};
    for (int i = 0; i < 3; i++)
        if (out->backend != GHZ_EXEC_CUDA && (named[i] == GHZ_ALGO_IPC_DIRECT || named[i] == GHZ_ALGO_NCCL))
            return ghz_fail(GHZ_ERR_UNSUPPORTED, "%s %s needs the CUDA backend (and the %s transport)", field[i],
                            ghz_algo_name(named[i]), named[i] == GHZ_ALGO_NCCL ? "NCCL" : "CUDA IPC");
    if (in && in->struct_size < offsetof(ghz_comm_config_t, transport) + sizeof(ghz_transport_t))
        out->transport = GHZ_TRANSPORT_AUTO;
    st = resolve_transport(out, k);
    if (st != GHZ_SUCCESS) return st;
    /* (set again once an AUTO transport is known: comm_make.c) */
    if (out->pool_bytes == 0)
        out->pool_bytes = out->backend != GHZ_EXEC_CUDA ? DEFAULT_POOL : coll_cuda_pool(out->transport, 0);
    if (out->chunk_bytes == 0)
        out->chunk_bytes = out->backend != GHZ_EXEC_CUDA ? DEFAULT_CHUNK : coll_cuda_chunk(out->transport, 0);
    if (out->pool_bytes < COLL_MIN_POOL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "pool_bytes %zu: at least %zu", out->pool_bytes, (size_t)COLL_MIN_POOL);
    if (out->chunk_bytes > MAX_CHUNK || out->chunk_bytes < 256)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "chunk_bytes %zu: 256 to %zu", out->chunk_bytes, (size_t)MAX_CHUNK);
    if (out->nthreads < 0) return ghz_fail(GHZ_ERR_INVALID_ARG, "nthreads %d", out->nthreads);
    if (in && in->struct_size < offsetof(ghz_comm_config_t, ranks_per_node) + sizeof(int))
        out->ranks_per_node = 0; /* a caller compiled before the field existed */
    if (out->ranks_per_node < 0)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ranks_per_node %d", out->ranks_per_node);
    if (out->ranks_per_node == 0) out->ranks_per_node = k->ranks_per_node;
    return GHZ_SUCCESS;
}

size_t coll_cuda_chunk(ghz_transport_t transport, int shared)
{
    if (transport == GHZ_TRANSPORT_CUDA_IPC) return DEFAULT_CHUNK_CUDA_IPC;
    if (transport == GHZ_TRANSPORT_NCCL) return DEFAULT_CHUNK_CUDA_NCCL;
    return shared == 1 ? DEFAULT_CHUNK_CUDA_SHARED : DEFAULT_CHUNK_CUDA;
}

/* (rank 0, once per communicator the caller makes; the environment's knobs too) */
void coll_comm_describe(const ghz_comm_t* c)
{
    char knobs[512];
    coll_knobs_describe(&c->knobs, knobs, sizeof knobs);
    fprintf(stderr,
            "ghz coll INFO: %d ranks, backend %s, transport %s, agreement %s, allreduce_algo %s, "
            "reduce_scatter_algo %s, reduce_algo %s, pool_bytes %zu, chunk_bytes %zu, check_args %d, nthreads %d, "
            "ranks_per_node %d; %s\n",
            c->size, c->cfg.backend == GHZ_EXEC_CUDA ? "cuda" : "cpu", ghz_transport_name(c->cfg.transport),
            c->shm ? "shm" : c->mpi ? "mpi" : "nccl", ghz_algo_name(c->cfg.allreduce_algo),
            ghz_algo_name(c->cfg.reduce_scatter_algo), ghz_algo_name(c->cfg.reduce_algo), c->cfg.pool_bytes,
            c->cfg.chunk_bytes, c->cfg.check_args != 0, c->cfg.nthreads, c->cfg.ranks_per_node, knobs);
}
