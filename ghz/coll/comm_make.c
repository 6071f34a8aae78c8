/* ghz/coll/comm_make.c: a communicator made over MPI (AUTO's calibration: comm_init.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/comm_mpi.h"
#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/agree_shm.h"
#include "ghz/coll/detail/auto_rule.h"
#if defined(GHZ_WITH_CUDA) && defined(OPEN_MPI) && defined(__has_include)
#  if __has_include(<mpi-ext.h>)
#    include <mpi-ext.h>
#  endif
#endif
#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/detail/error.h"

/* Measured: docs/RESULTS-coll.md, "The numbers behind ghz/coll's defaults".
 * The host path's limits per rank (GHZ_COLL_HOST_PATH_MAX overrides them). */
#define HOST_PATH_MAX_SHARED ((size_t)4 << 20)
#define HOST_PATH_MAX ((size_t)1 << 20)
#define HOST_PATH_MAX_OWN_GPU ((size_t)8 << 10)
/* comm.h, staged_range_gpu_min */
#define STAGED_RANGE_GPU_MIN ((size_t)64 << 10)
/* cuda/algo_direct.c, one_shot (two ranks: every size) */
#define DIRECT_ONE_SHOT_MAX ((size_t)1 << 20)
/* GHZ_COLL_MPI_MAX's default (algo_mpi.c, coll_mpi_refusal) */
#define MPI_NATIVE_DEFAULT ((size_t)4 << 20)
#define HOST_THREADS 4

static size_t host_path_limit(const ghz_comm_t* c)
{
    const int own = c->tp.shared_gpu == 0, ipc = c->tp.fence != NULL;
    if (c->knobs.host_path_max != COLL_KNOB_UNSET) return c->knobs.host_path_max;
    return ipc ? (own ? HOST_PATH_MAX_OWN_GPU : HOST_PATH_MAX) : (own ? HOST_PATH_MAX : HOST_PATH_MAX_SHARED);
}

/* Whether some GPU serves several ranks of c (1), none does (0), or this rank computes
 * on the CPU (-1). A rank that cannot name its GPU counts as sharing. Every rank takes
 * part whatever its configuration or status, so none waits alone. Collective over c. */
static int gpu_shared(const ghz_comm_t* c, int cuda)
{
    unsigned char mine[17], *all;
    int i, j, ok, all_ok = 0, shared = 0;
    memset(mine, 0, sizeof mine);
    mine[16] = 2; /* no GPU */
#ifdef GHZ_WITH_CUDA
    if (cuda) mine[16] = ghz_coll_cuda_gpu_uuid(mine) != GHZ_SUCCESS;
#endif
    all = (unsigned char*)malloc((size_t)c->size * sizeof mine);
    ok = all != NULL;
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->mpi->comm) != MPI_SUCCESS || !all_ok ||
        MPI_Allgather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, c->mpi->comm) != MPI_SUCCESS) {
        free(all);
        return cuda ? 1 : -1;
    }
    for (i = 0; i < c->size && !shared; i++) {
        if (all[i * sizeof mine + 16] == 2) continue;
        shared = all[i * sizeof mine + 16] != 0;
        for (j = i + 1; j < c->size && !shared; j++)
            shared = all[j * sizeof mine + 16] == 0 && memcmp(all + i * sizeof mine, all + j * sizeof mine, 16) == 0;
    }
    free(all);
    return cuda ? shared : -1;
}

#ifdef GHZ_WITH_CUDA
static int mpi_takes_device_pointers(const coll_knobs_t* k)
{
    if (!k->cuda_aware_mpi) return 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}
#endif

static int one_node(const ghz_comm_t* c)
{
    MPI_Comm node = MPI_COMM_NULL;
    int local = 0;
    if (MPI_Comm_split_type(c->mpi->comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return 0;
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    return local == c->size;
}

static ghz_status_t mpi_max(ghz_comm_t* c, int64_t* w, int n)
{
    const int rc = MPI_Allreduce(MPI_IN_PLACE, w, n, MPI_INT64_T, MPI_MAX, c->mpi->comm);
    return rc == MPI_SUCCESS ? GHZ_SUCCESS : ghz_coll_mpi_fail(rc, "MPI_Allreduce (agreement)");
}

static void make_shm(ghz_comm_t* c, int want)
{
    struct coll_mpi* m = c->mpi;
    void **parts = want ? (void**)calloc((size_t)c->size, sizeof *parts) : NULL, *mine;
    const MPI_Aint part = (MPI_Aint)coll_shm_part_bytes();
    int64_t none = parts == NULL;
    MPI_Aint bytes;
    int q, du, ok;
    ghz_status_t st;
    if (mpi_max(c, &none, 1) == GHZ_SUCCESS && !none) {
        ok = MPI_Win_allocate_shared(part, 1, MPI_INFO_NULL, m->comm, &mine, &m->win) == MPI_SUCCESS;
        for (q = 0; ok && q < c->size; q++)
            ok = MPI_Win_shared_query(m->win, q, &bytes, &du, &parts[q]) == MPI_SUCCESS && bytes >= part;
        c->shm = coll_shm_create_parts(c->rank, c->size, ok ? parts : NULL, coll_ctl_max_ctx, c, &st);
        if (!c->shm && m->win != MPI_WIN_NULL) MPI_Win_free(&m->win);
    }
    free(parts);
}

/* The two levels: nodes share memory, or are blocks of ranks_per_node ranks. Only the
 * MPI communicators are kept: each child is a whole communicator (pools up to 768 MiB),
 * made when a two-level call first needs it (coll_comm_levels). Collective over c. */
static ghz_status_t make_levels(ghz_comm_t* c)
{
    int rpn = c->cfg.ranks_per_node, rc, sizes[2], mins[2];
    MPI_Comm comm = c->mpi->comm, node = MPI_COMM_NULL, across = MPI_COMM_NULL;
    if (rpn > 0) rc = MPI_Comm_split(comm, c->rank / rpn, c->rank, &node);
    else rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "splitting the communicator into nodes");
    MPI_Comm_rank(node, &c->local_rank);
    MPI_Comm_size(node, &c->local_size);
    /* (NCCL's split takes the node's first rank as its color) */
    c->node_color = c->rank;
    MPI_Bcast(&c->node_color, 1, MPI_INT, 0, node);
    rc = MPI_Comm_split(comm, c->local_rank, c->rank, &across);
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&node);
        return ghz_coll_mpi_fail(rc, "splitting the communicator across nodes");
    }
    MPI_Comm_size(across, &c->nodes);
    sizes[0] = c->local_size;
    sizes[1] = -c->local_size;
    MPI_Allreduce(sizes, mins, 2, MPI_INT, MPI_MIN, comm);
    c->uniform_nodes = mins[0] == -mins[1];
    /* (local rank 0's group spans every node) */
    MPI_Bcast(&c->nodes, 1, MPI_INT, 0, comm);
    c->levels = c->nodes > 1 && c->nodes < c->size;
    if (c->levels && c->cfg.transport != GHZ_TRANSPORT_NCCL) {
        c->mpi->node = node;
        c->mpi->across = across;
        return GHZ_SUCCESS;
    }
    MPI_Comm_free(&node);
    MPI_Comm_free(&across);
    return GHZ_SUCCESS;
}

ghz_status_t coll_mpi_child(ghz_comm_t* c, int across, ghz_comm_t** out)
{
    /* (across nodes, no CUDA IPC: the nodes may be machines) */
    ghz_comm_config_t child = c->cfg;
    child.allreduce_algo = child.reduce_scatter_algo = child.reduce_algo = GHZ_ALGO_AUTO;
    if (across) child.transport = GHZ_TRANSPORT_MPI;
    return coll_comm_make(across ? c->mpi->across : c->mpi->node, &child, NULL, out);
}

/* Testing seam (ghz_coll_test_staged): a CPU communicator with a CUDA one's host path. */
static int test_host_path(void)
{
#ifdef GHZ_COLL_TEST_STAGED
    return getenv("GHZ_COLL_TEST_HOST_PATH") != NULL;
#else
    return 0;
#endif
}

/* The host path (host_path.c): a CPU communicator over the same ranks and two pinned buffers. */
static ghz_status_t make_host(ghz_comm_t* c)
{
    ghz_comm_config_t h = GHZ_COMM_CONFIG_INIT;
    ghz_status_t st, st2;
    h.backend = GHZ_EXEC_CPU;
    h.check_args = 0;
    /* (every rank of the node scans at once: docs/RESULTS-coll.md) */
    h.nthreads = HOST_THREADS;
    h.transport = GHZ_TRANSPORT_MPI;
    c->small_bytes = host_path_limit(c);
    c->small_auto_bytes = !c->small_bytes                             ? 0
                          : c->small_bytes > COLL_AUTO_LOSSY_MIN_BYTES ? c->small_bytes
                                                                       : COLL_AUTO_LOSSY_MIN_BYTES;
    h.pool_bytes = 4 * c->small_auto_bytes > COLL_MIN_POOL ? 4 * c->small_auto_bytes : COLL_MIN_POOL;
    c->small_in = (unsigned char*)c->be.alloc(&c->be, c->small_auto_bytes ? c->small_auto_bytes : 16, COLL_MEM_MIRROR);
    c->small_out = (unsigned char*)c->be.alloc(&c->be, c->small_auto_bytes ? c->small_auto_bytes : 16, COLL_MEM_MIRROR);
    c->allocations += 2;
    st = c->small_in && c->small_out ? GHZ_SUCCESS : ghz_fail(GHZ_ERR_NOMEM, "pinned host buffers");
    /* (collective: every rank takes part, ready or not) */
    st2 = coll_comm_make(c->mpi->comm, &h, NULL, &c->host);
    return st == GHZ_SUCCESS ? st2 : st;
}

/* The backend, the MPI transport (CUDA IPC and NCCL replace it later) and the buffers. */
static ghz_status_t make_core(ghz_comm_t* c)
{
    ghz_status_t st;
#ifdef GHZ_WITH_CUDA
    if (c->cfg.backend == GHZ_EXEC_CUDA) {
        st = ghz_coll_backend_cuda(c->cfg.chunk_bytes, &c->be);
        /* (CUDA IPC sends only from its exported wire pool: it stays staged) */
        if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_MPI && mpi_takes_device_pointers(&c->knobs))
            c->be.staged = 0;
    } else
#endif
        st = ghz_coll_backend_cpu(c->cfg.nthreads, &c->be);
#ifdef GHZ_COLL_TEST_STAGED
    /* Testing seam (ghz_coll_test_staged; COLL.md, Testing) */
    if (st == GHZ_SUCCESS && c->cfg.backend == GHZ_EXEC_CPU && getenv("GHZ_COLL_TEST_STAGED")) {
        c->be.staged = 1;
        c->be.has_sum_n = 0; /* and pairwise sums folded, as on a GPU without the n-ary kernel */
    }
#endif
    c->host_mirror = c->be.staged && c->cfg.transport == GHZ_TRANSPORT_MPI;
    if (st == GHZ_SUCCESS) st = ghz_coll_transport_mpi(&c->mpi->comm, &c->tp);
    if (st == GHZ_SUCCESS) st = coll_comm_alloc_buffers(c);
    return st;
}

#ifdef GHZ_WITH_CUDA
/* CUDA IPC failed on some rank (`failed`, agreed). Where AUTO chose it on every rank the
 * communicator is remade over MPI (a container that refuses CUDA IPC must not fail the
 * default init); where any rank asked for it, every rank fails. Collective over c. */
static ghz_status_t ipc_fallback(ghz_comm_t* c, ghz_status_t failed, ghz_status_t mine, int chosen_by_auto,
                                 int chunk_default, int pool_default, int shared)
{
    /* w[1]: the lowest rank whose own set-up failed, before one that saw another fail */
    int64_t w[2];
    const uint64_t cause = mine == GHZ_SUCCESS ? 0 : mine == GHZ_ERR_PEER ? 1 : 2;
    char why[256];
    ghz_status_t st;
    w[0] = !chosen_by_auto;
    w[1] = cause ? (int64_t)(cause << 32 | (uint64_t)(INT32_MAX - c->rank)) : INT64_MIN;
    snprintf(why, sizeof why, "%s", ghz_last_error_detail());
    st = coll_ctl_max(c, w, 2);
    if (st != GHZ_SUCCESS) return st;
    if (w[0])
        return ghz_fail(failed, "%s (CUDA IPC was asked for, by ghz_comm_config_t.transport or GHZ_COLL_TRANSPORT=ipc on "
                                "some rank, so no rank falls back to MPI)", why);
    /* (the transport meets the peers before this rank's pool goes) */
    if (c->tp.destroy) c->tp.destroy(&c->tp);
    if (c->be.destroy) c->be.destroy(&c->be);
    c->allocations -= coll_comm_free_buffers(c, 0);
    memset(&c->tp, 0, sizeof c->tp);
    memset(&c->be, 0, sizeof c->be);
    c->cfg.transport = GHZ_TRANSPORT_MPI;
    if (chunk_default) c->cfg.chunk_bytes = coll_cuda_chunk(GHZ_TRANSPORT_MPI, shared);
    if (pool_default) c->cfg.pool_bytes = coll_cuda_pool(GHZ_TRANSPORT_MPI, shared);
    st = make_core(c);
    st = coll_agree_config(c, st);
    if (st != GHZ_SUCCESS) return st;
    if (c->knobs.debug_info && w[1] != INT64_MIN && (int64_t)(uint32_t)w[1] == (int64_t)INT32_MAX - c->rank)
        fprintf(stderr, "ghz coll INFO: CUDA IPC could not be set up on rank %d (%s): the AUTO transport is MPI on "
                        "every rank\n", c->rank, why);
    ghz_clear_detail();
    return GHZ_SUCCESS;
}
#endif

ghz_status_t coll_comm_make(MPI_Comm mpi_comm, const ghz_comm_config_t* config, coll_calibrate_fn calibrate,
                            ghz_comm_t** comm)
{
    const int leaf = calibrate == NULL;
    ghz_comm_t* c;
    struct coll_mpi* m;
    ghz_status_t st;
    int rc, flag = 0, shared, single_node, chosen_by_auto = 0;
    const int chunk_default = !config || config->chunk_bytes == 0;
    const int pool_default = !config || config->pool_bytes == 0;

    ghz_clear_detail();
    if (!comm) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm");
    *comm = NULL;
    MPI_Initialized(&flag);
    if (!flag) return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI is not initialised");
    if (mpi_comm == MPI_COMM_NULL) return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_COMM_NULL");
    c = coll_comm_new();
    m = (struct coll_mpi*)calloc(1, sizeof *m);
    rc = c && m ? MPI_Comm_dup(mpi_comm, &m->comm) : MPI_SUCCESS;
    if (!c || !m || rc != MPI_SUCCESS) {
        free(c);
        free(m);
        return rc != MPI_SUCCESS ? ghz_coll_mpi_fail(rc, "MPI_Comm_dup") : ghz_fail(GHZ_ERR_NOMEM, "communicator");
    }
    c->mpi = m;
    m->node = m->across = MPI_COMM_NULL;
    m->win = MPI_WIN_NULL;
    c->ctl_max = mpi_max;
    MPI_Comm_set_errhandler(m->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(m->comm, &c->rank);
    MPI_Comm_size(m->comm, &c->size);
    st = coll_knobs_read(&c->knobs);
    /* (on every rank, whatever its status: collective) */
    single_node = !leaf && one_node(c);
    if (single_node && c->size > 1) make_shm(c, st == GHZ_SUCCESS && coll_shm_wanted());
    c->mpi_max = c->knobs.mpi_max != COLL_KNOB_UNSET ? c->knobs.mpi_max : MPI_NATIVE_DEFAULT;
    c->auto_trace = c->knobs.auto_trace;
    if (st == GHZ_SUCCESS) st = coll_config_read(config, &c->knobs, &c->cfg);
    else ghz_comm_config_init(&c->cfg);
    shared = gpu_shared(c, st == GHZ_SUCCESS && c->cfg.backend == GHZ_EXEC_CUDA);
    if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_AUTO) {
        c->cfg.transport = leaf ? GHZ_TRANSPORT_MPI : coll_auto_transport(shared, single_node);
        chosen_by_auto = !leaf;
    }
    if (st == GHZ_SUCCESS && chunk_default && c->cfg.backend == GHZ_EXEC_CUDA)
        c->cfg.chunk_bytes = coll_cuda_chunk(c->cfg.transport, shared);
    if (st == GHZ_SUCCESS && pool_default && c->cfg.backend == GHZ_EXEC_CUDA)
        c->cfg.pool_bytes = coll_cuda_pool(c->cfg.transport, shared);
    if (st == GHZ_SUCCESS) st = make_core(c);
    st = coll_agree_config(c, st);
#ifdef GHZ_WITH_CUDA
    /* (the exchange of handles is collective: only where every rank takes part) */
    if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_CUDA_IPC) {
        const ghz_status_t mine = ghz_coll_transport_ipc(&m->comm, &c->be, c->pool, c->pool_bytes, &c->tp);
        st = coll_agree_config(c, mine);
        /* (every rank agreed on st, so every rank takes this turn, or none) */
        if (st != GHZ_SUCCESS) st = ipc_fallback(c, st, mine, chosen_by_auto, chunk_default, pool_default, shared);
        if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_CUDA_IPC)
            c->one_shot_bytes = c->knobs.one_shot_max != COLL_KNOB_UNSET ? c->knobs.one_shot_max
                                : c->size == 2                              ? SIZE_MAX
                                                                            : DIRECT_ONE_SHOT_MAX;
    }
#else
    (void)chosen_by_auto; /* (only CUDA IPC falls back) */
#endif
#ifdef GHZ_WITH_NCCL
    if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_NCCL) {
        /* (a failed id fails NCCL's init everywhere) */
        ghz_coll_unique_id_t id;
        memset(&id, 0, sizeof id);
        if (c->rank == 0 && ghz_coll_get_unique_id(&id) != GHZ_SUCCESS) memset(&id, 0, sizeof id);
        rc = MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, m->comm);
        st = rc == MPI_SUCCESS ? coll_nccl_create(c, &id) : ghz_coll_mpi_fail(rc, "MPI_Bcast (NCCL unique id)");
        st = coll_agree_config(c, st);
        if (st == GHZ_SUCCESS && calibrate) st = calibrate(c);
        st = coll_agree_config(c, st);
    }
#endif
    if (st == GHZ_SUCCESS && !leaf) {
        st = make_levels(c);
        st = coll_agree_config(c, st);
    }
    /* (every rank agreed on st: all take part, or none) */
    if (st == GHZ_SUCCESS) {
        c->tp.shared_gpu = shared;
        c->staged_range_gpu_min = c->tp.shared_gpu == 1 ? SIZE_MAX : STAGED_RANGE_GPU_MIN;
    }
    if (st == GHZ_SUCCESS && !leaf && c->cfg.transport != GHZ_TRANSPORT_NCCL &&
        (c->cfg.backend == GHZ_EXEC_CUDA || test_host_path())) {
        st = make_host(c);
        st = coll_agree_config(c, st);
    }
    /* AUTO's threshold, timed on the finished communicator (over NCCL: above) */
    if (st == GHZ_SUCCESS && !leaf && c->cfg.transport != GHZ_TRANSPORT_NCCL) {
        st = calibrate(c);
        st = coll_agree_config(c, st);
    }
    if (st == GHZ_SUCCESS && !leaf && c->rank == 0 && c->knobs.debug_info) coll_comm_describe(c);
    return coll_comm_finish_init(c, st, comm);
}
