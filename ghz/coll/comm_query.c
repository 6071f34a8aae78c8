/* ghz/coll/comm_query.c: what a communicator tells. */
#include <stdint.h>
#include <string.h>

#include "ghz/coll/detail/calls.h"
#include "ghz/detail/error.h"

/* The getters of one field each. */
#define COMM_GETTER(fn, type, out, field)                                          \
    ghz_status_t fn(const ghz_comm_t* comm, type* out)                             \
    {                                                                              \
        ghz_clear_detail();                                                        \
        if (!comm || !out) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm or " #out); \
        *out = comm->field;                                                        \
        return GHZ_SUCCESS;                                                        \
    }

COMM_GETTER(ghz_comm_get_async_error, ghz_status_t, async_error, broken)
COMM_GETTER(ghz_comm_rank, int, rank, rank)
COMM_GETTER(ghz_comm_size, int, size, size)

ghz_status_t ghz_comm_config(const ghz_comm_t* comm, ghz_comm_config_t* config)
{
    size_t n;
    ghz_clear_detail();
    if (!comm || !config) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm or config");
    n = config->struct_size;
    /* (coll_config_read's rule) */
    if (n < offsetof(ghz_comm_config_t, nthreads) + sizeof(int) || n > (size_t)1 << 16)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_comm_config_t.struct_size %zu: initialise with GHZ_COMM_CONFIG_INIT",
                        n);
    memcpy(config, &comm->cfg, n < sizeof comm->cfg ? n : sizeof comm->cfg);
    config->struct_size = n;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_graph_status(ghz_comm_t* comm)
{
    ghz_clear_detail();
    if (!comm) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm");
    if (!comm->tp.graph_status) return GHZ_SUCCESS;
#ifdef GHZ_WITH_CUDA
    const int previous = ghz_coll_backend_cuda_enter(&comm->be);
#endif
    const ghz_status_t st = comm->tp.graph_status(&comm->tp);
#ifdef GHZ_WITH_CUDA
    ghz_coll_backend_cuda_leave(previous);
#endif
    return st;
}

ghz_status_t ghz_comm_info(const ghz_comm_t* comm, ghz_coll_info_t* info)
{
    ghz_coll_info_t cur;
    ghz_clear_detail();
    if (!comm || !info) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm or info");
    if (info->struct_size < offsetof(ghz_coll_info_t, allocations) + sizeof(uint64_t))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_coll_info_t.struct_size %zu: use GHZ_COLL_INFO_INIT",
                        info->struct_size);
    cur = comm->info;
    cur.struct_size = info->struct_size;
    cur.allocations = comm->allocations;
    cur.transport = comm->cfg.transport;
    cur.auto_min_bytes = comm->auto_min;
    memcpy(info, &cur, info->struct_size < sizeof cur ? info->struct_size : sizeof cur);
    return GHZ_SUCCESS;
}
