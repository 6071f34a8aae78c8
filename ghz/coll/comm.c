/* ghz/coll/comm.c: the communicator: configuration, the pool, the per-call arrays.
 * Everything a call needs is allocated here, once; calls allocate nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/auto_path.h"
/* Open MPI says at compile time whether it could be CUDA-aware (mpi-ext.h, after
 * mpi.h), and at run time whether it is (MPIX_Query_cuda_support). */
#if defined(GHZ_WITH_CUDA) && defined(OPEN_MPI) && defined(__has_include)
#  if __has_include(<mpi-ext.h>)
#    include <mpi-ext.h>
#  endif
#endif
#include "ghz/coll/detail/algo.h"
#include "ghz/detail/error.h"

#define DEFAULT_POOL ((size_t)64 << 20)
#define DEFAULT_CHUNK ((size_t)1 << 20)
/* The CUDA backend synchronises once per piece operation (backend_cuda.c): larger
 * pieces, and a pool to hold them, amortise that. */
#define DEFAULT_POOL_CUDA ((size_t)256 << 20)
#define DEFAULT_CHUNK_CUDA ((size_t)8 << 20)
/* Over CUDA IPC nothing is pipelined through host copies, and the direct algorithm
 * launches one codec kernel per piece: 64 MiB pieces took a compressed 1 GiB allreduce
 * from 24.7 to 18.8 ms on two ranks of an H100 (docs/RESULTS.md). */
#define DEFAULT_CHUNK_CUDA_IPC ((size_t)64 << 20)
/* Where ranks share a GPU over MPI, each piece's kernels wait for the other processes'
 * time slices: fewer, larger pieces. Two ranks on one H200, ghz homomorphic, host-staged
 * (session 17, `gpu_multi.sh chunkab`): 256 MiB in 40.2 / 40.1 ms (out of place / in
 * place) with 32 MiB pieces against 60.5 / 56.4 with 8 MiB and 47.9 / 49.5 with 64 MiB;
 * 64 MiB in 11.6 / 11.2 against 13.4 / 13.9; 16 MiB in 3.57 / 3.63 against 3.35 / 3.44
 * (one piece instead of two). With a GPU per rank 8 MiB stays (64 MiB: 8.4 ms against 9.1
 * with 32 MiB pieces; 256 MiB: 33.6 against 33.9). */
#define DEFAULT_CHUNK_CUDA_SHARED ((size_t)32 << 20)
#define MIN_POOL ((size_t)1 << 16)
#define MAX_CHUNK ((size_t)1 << 30)

void ghz_comm_config_init(ghz_comm_config_t* config)
{
    ghz_comm_config_t d = GHZ_COMM_CONFIG_INIT;
    if (config) *config = d;
}

/* Host allocations of the communicator: counted (ghz_coll_info_t.allocations). */
static void* host_alloc(ghz_comm_t* c, size_t bytes)
{
    c->allocations++;
    return calloc(1, bytes ? bytes : 1);
}

#ifdef GHZ_WITH_CUDA
/* Whether MPI takes device pointers. GHZ_COLL_CUDA_AWARE_MPI=0 refuses it (to compare
 * with host staging); nothing can claim it for an MPI that does not say so. */
static int mpi_takes_device_pointers(void)
{
    const char* env = getenv("GHZ_COLL_CUDA_AWARE_MPI");
    if (env && strcmp(env, "0") == 0) return 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}
#endif

/* The transport of a configuration: AUTO takes the environment's GHZ_COLL_TRANSPORT
 * ("ipc" only where it can apply: CUDA-backend communicators; a CPU communicator in
 * the same program stays on MPI), else MPI. An explicit field wins over the
 * environment. A value the library does not know is an error either way. */
static ghz_status_t resolve_transport(ghz_comm_config_t* cfg)
{
    const char* env = getenv("GHZ_COLL_TRANSPORT");
    ghz_transport_t from_env = GHZ_TRANSPORT_AUTO;
    if (env && *env) {
        if (strcmp(env, "mpi") == 0) from_env = GHZ_TRANSPORT_MPI;
        else if (strcmp(env, "ipc") == 0) from_env = GHZ_TRANSPORT_CUDA_IPC;
        else return ghz_fail(GHZ_ERR_INVALID_ARG, "GHZ_COLL_TRANSPORT=%s: mpi or ipc", env);
    }
    if ((unsigned)cfg->transport > GHZ_TRANSPORT_CUDA_IPC)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown transport %d", (int)cfg->transport);
    if (cfg->transport == GHZ_TRANSPORT_AUTO)
        cfg->transport = from_env == GHZ_TRANSPORT_CUDA_IPC && cfg->backend == GHZ_EXEC_CUDA ? GHZ_TRANSPORT_CUDA_IPC
                                                                                            : GHZ_TRANSPORT_MPI;
    if (cfg->transport == GHZ_TRANSPORT_CUDA_IPC && cfg->backend != GHZ_EXEC_CUDA)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "the CUDA IPC transport needs the CUDA backend");
    return GHZ_SUCCESS;
}

static ghz_status_t read_config(const ghz_comm_config_t* in, ghz_comm_config_t* out)
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
    if ((unsigned)out->allreduce_algo > GHZ_ALGO_MPI ||
        (unsigned)out->reduce_scatter_algo > GHZ_ALGO_IPC_DIRECT ||
        (unsigned)out->reduce_algo > GHZ_ALGO_IPC_DIRECT)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown algorithm in the configuration");
    if (in && in->struct_size < offsetof(ghz_comm_config_t, transport) + sizeof(ghz_transport_t))
        out->transport = GHZ_TRANSPORT_AUTO;
    st = resolve_transport(out);
    if (st != GHZ_SUCCESS) return st;
    if (out->pool_bytes == 0) out->pool_bytes = out->backend == GHZ_EXEC_CUDA ? DEFAULT_POOL_CUDA : DEFAULT_POOL;
    if (out->chunk_bytes == 0)
        out->chunk_bytes = out->backend != GHZ_EXEC_CUDA                 ? DEFAULT_CHUNK
                           : out->transport == GHZ_TRANSPORT_CUDA_IPC ? DEFAULT_CHUNK_CUDA_IPC
                                                                      : DEFAULT_CHUNK_CUDA;
    if (out->pool_bytes < MIN_POOL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "pool_bytes %zu: at least %zu", out->pool_bytes,
                        (size_t)MIN_POOL);
    if (out->chunk_bytes > MAX_CHUNK || out->chunk_bytes < 256)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "chunk_bytes %zu: 256 to %zu", out->chunk_bytes,
                        (size_t)MAX_CHUNK);
    if (out->nthreads < 0) return ghz_fail(GHZ_ERR_INVALID_ARG, "nthreads %d", out->nthreads);
    if (in && in->struct_size < offsetof(ghz_comm_config_t, ranks_per_node) + sizeof(int))
        out->ranks_per_node = 0; /* a caller compiled before the field existed */
    if (out->ranks_per_node < 0)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ranks_per_node %d", out->ranks_per_node);
    return GHZ_SUCCESS;
}

static void release(ghz_comm_t* c)
{
    ghz_comm_destroy(c->intra);
    ghz_comm_destroy(c->inter);
    ghz_comm_destroy(c->host);
    /* the transport first: CUDA IPC unmaps the peers' pools and waits until every peer
     * has unmapped this rank's before the pool is freed; then the backend, which waits
     * for work still queued (asynchronous copies out of small_out); then the memory
     * (`release` needs no backend state) */
    if (c->tp.destroy) c->tp.destroy(&c->tp);
    if (c->be.destroy) c->be.destroy(&c->be);
    if (c->small_in) c->be.release(&c->be, c->small_in, COLL_MEM_MIRROR);
    if (c->small_out) c->be.release(&c->be, c->small_out, COLL_MEM_MIRROR);
    if (c->pool) c->be.release(&c->be, c->pool, COLL_MEM_WIRE);
    if (c->pool_raw) c->be.release(&c->be, c->pool_raw, COLL_MEM_RAW);
    if (c->pool_mirror) c->be.release(&c->be, c->pool_mirror, COLL_MEM_MIRROR);
    free(c->seg_off);
    free(c->seg_cnt);
    free(c->wire_size);
    free(c->wire_tmp);
    free((void*)c->wire_ptr);
    free(c->sreq);
    free(c->rreq);
    if (c->mpi != MPI_COMM_NULL) MPI_Comm_free(&c->mpi);
    free(c);
}

static ghz_status_t comm_init(MPI_Comm mpi_comm, const ghz_comm_config_t* config, int leaf, ghz_comm_t** comm);

/* Exact calls of a CUDA communicator up to this many bytes of input per rank (and with
 * the AUTO algorithm) go through host memory (collectives.c, host_path; COLL.md,
 * Choices). Where ranks share a GPU the device paths' fixed costs are cross-process
 * waits and kernels that each take a time slice: the host path won up to 1 MiB (two
 * ranks on one H100, session 8), and over MPI at 4 MiB too, 1.48 / 1.59 ms against 2.17
 * / 2.18 for the device ring and 1.63 / 1.35 for host-staged MPI_Allreduce, equal at
 * 16 MiB (two ranks on one H200, session 14, out of place / in place): HOST_PATH_MAX_SHARED
 * over MPI; over CUDA IPC ipc_direct took 0.59 ms at 4 MiB there, so 1 MiB
 * (HOST_PATH_MAX), as over MPI with a GPU per rank. Where every rank has a GPU
 * of its own and CUDA IPC reads the peers' memory, ipc_direct in one shot costs about
 * 20 us back to back and 30 us alone from 4 KiB to 1 MiB, the host path 22 / 27 us at
 * 4 KiB and 30 / 35 us at 16 KiB (two ranks on two H200s, session 10): the host path
 * keeps only what it does as fast, up to 8 KiB, where a lone call is 2 us quicker.
 * GHZ_COLL_HOST_PATH_MAX (bytes, at most HOST_PATH_CAP) overrides both; 0 turns the
 * host path off. */
#define HOST_PATH_MAX_SHARED ((size_t)4 << 20)
#define HOST_PATH_MAX ((size_t)1 << 20)
#define HOST_PATH_MAX_OWN_GPU ((size_t)8 << 10)
#define HOST_PATH_CAP ((size_t)16 << 20)

/* Where every rank has a GPU of its own, a staged lossy call's range comes from this
 * many bytes per rank on from the range kernel, which makes the copy too (comm.h,
 * staged_range_gpu_min; cuda/backend_cuda.c, cuda_range), and below from a scan of the
 * host copy. Two H200s, one GPU per rank, session 16, copy + range against the copy
 * alone: the kernel 13.4 / 13.5 / 12.7 us at 4 / 32 / 64 KiB against 8.4 / 9.0 / 9.0,
 * the host scan 8.5 + 0.8, 8.9 + 5.0, 9.9 + 9.6: even at 32 KiB. */
#define STAGED_RANGE_GPU_MIN ((size_t)64 << 10)

/* ipc_direct's exact allreduce rounds of at most this many bytes per rank run in one
 * shot: one fence fewer and no gather (cuda/algo_direct.c, one_shot). Between two ranks
 * at every size: each rank then reads the peer's input whole, as many bytes over the
 * link as in three phases, and the one shot was faster from 1 to 64 MiB (two H200s,
 * session 11: 22.9 against 55.6 us at 2 MiB, 324 against 356 us at 64 MiB, out of
 * place). Beyond two ranks it reads N - 1 inputs whole instead of 2 (N - 1) / N of one:
 * only where the fences, not the bytes, set the time. GHZ_COLL_DIRECT_ONE_SHOT_MAX
 * overrides both (0: never). */
#define DIRECT_ONE_SHOT_MAX ((size_t)1 << 20)

/* Exact allreduce calls of a CPU communicator up to GHZ_COLL_MPI_MAX bytes per rank (at
 * most MPI_NATIVE_MAX; default MPI_NATIVE_DEFAULT) and with the AUTO algorithm call
 * MPI_Allreduce itself (collectives.c, mpi_refusal says which). A CUDA communicator's
 * host path runs on such a communicator, in place in its pinned buffer: there it is what
 * `cudaMemcpy` + `MPI_Allreduce(MPI_IN_PLACE)` + `cudaMemcpy` users do, behind ghz's
 * agreement. Why 4 MiB: the host path's largest default limit (HOST_PATH_MAX_SHARED,
 * measured with MPI's call to 4 MiB); at 4 KiB MPI's call
 * took 1.7 us against 6.0 for ghz's recursive doubling (CPU, 2 ranks, 2-core VM), and on
 * the GPU machines' host path MPI's in-place call saves a host copy that ghz's ring
 * and recursive doubling make (COLL.md, "mpi"; docs/RESULTS.md, session 13). */
#define MPI_NATIVE_MAX ((size_t)1 << 30)
#define MPI_NATIVE_DEFAULT ((size_t)4 << 20)

/* A size limit the environment variable `name` may set (bytes, at most `max`; unset,
 * empty or not a number: `dflt`), the same on every rank: the least any rank asks for,
 * so that a variable set on some ranks only cannot split a call between paths.
 * Collective over c. */
static size_t agreed_limit(const ghz_comm_t* c, const char* name, size_t dflt, size_t max)
{
    const char* env = getenv(name);
    unsigned long long mine = dflt, all = dflt;
    if (env && *env) {
        char* end = NULL;
        unsigned long long v = strtoull(env, &end, 10);
        if (end && *end == '\0') mine = v < max ? v : max;
    }
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, c->mpi);
    return (size_t)all;
}

/* The host path's limit for this communicator (collective over c). */
static size_t host_path_limit(const ghz_comm_t* c)
{
    const int own = c->tp.shared_gpu == 0, ipc = c->tp.fence != NULL;
    return agreed_limit(c, "GHZ_COLL_HOST_PATH_MAX",
                        ipc ? (own ? HOST_PATH_MAX_OWN_GPU : HOST_PATH_MAX) : (own ? HOST_PATH_MAX : HOST_PATH_MAX_SHARED),
                        HOST_PATH_CAP);
}

/* Whether some GPU serves several ranks of c (1), none does (0), or this rank computes
 * on the CPU (-1): every rank's GPU UUID gathered and compared. A rank that cannot name
 * its GPU counts as sharing (the cautious limits); a CPU rank shares nothing. Called
 * before the backend is made (it sizes the backend: comm_init) and before the
 * configurations are agreed, so every rank takes part whatever its configuration or
 * status, and none waits alone. Collective over c. */
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
    /* the exchange only where every rank has room for it; else every rank is cautious */
    ok = all != NULL;
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->mpi) != MPI_SUCCESS || !all_ok ||
        MPI_Allgather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, c->mpi) != MPI_SUCCESS) {
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

/* The two levels: node = the ranks sharing memory, or blocks of ranks_per_node ranks
 * (cfg or GHZ_COLL_RANKS_PER_NODE); a child communicator for this rank's node and one
 * for the ranks of its local rank on every node. Collective over c. Children are
 * leaves (no levels of their own) with the parent's configuration. */
static ghz_status_t make_levels(ghz_comm_t* c)
{
    const char* env = getenv("GHZ_COLL_RANKS_PER_NODE");
    int rpn = env ? atoi(env) : c->cfg.ranks_per_node, rc, sizes[2], mins[2];
    MPI_Comm node = MPI_COMM_NULL, across = MPI_COMM_NULL;
    ghz_comm_config_t child = c->cfg;
    ghz_status_t st = GHZ_SUCCESS;
    if (rpn > 0) rc = MPI_Comm_split(c->mpi, c->rank / rpn, c->rank, &node);
    else rc = MPI_Comm_split_type(c->mpi, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "splitting the communicator into nodes");
    MPI_Comm_rank(node, &c->local_rank);
    MPI_Comm_size(node, &c->local_size);
    rc = MPI_Comm_split(c->mpi, c->local_rank, c->rank, &across);
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&node);
        return ghz_coll_mpi_fail(rc, "splitting the communicator across nodes");
    }
    MPI_Comm_size(across, &c->nodes);
    /* every node the same size? (min of size and of -size over ranks) */
    sizes[0] = c->local_size;
    sizes[1] = -c->local_size;
    MPI_Allreduce(sizes, mins, 2, MPI_INT, MPI_MIN, c->mpi);
    c->uniform_nodes = mins[0] == -mins[1];
    /* Only with several nodes of several ranks is there a second level; the local
     * rank 0 group always spans every node, so its size is the node count. */
    MPI_Bcast(&c->nodes, 1, MPI_INT, 0, c->mpi);
    if (c->nodes > 1 && c->nodes < c->size) {
        child.allreduce_algo = child.reduce_scatter_algo = child.reduce_algo = GHZ_ALGO_AUTO;
        st = comm_init(node, &child, 1, &c->intra);
        /* the stage across nodes cannot use CUDA IPC (the nodes may be machines) */
        child.transport = GHZ_TRANSPORT_MPI;
        if (st == GHZ_SUCCESS) st = comm_init(across, &child, 1, &c->inter);
    }
    MPI_Comm_free(&node);
    MPI_Comm_free(&across);
    return st;
}

/* The host path of a CUDA communicator's small exact calls (collectives.c): a CPU
 * communicator over the same ranks (MPI transport, no agreement of its own: the
 * parent's call agreed) and two pinned buffers. Collective over c. */
static ghz_status_t make_host(ghz_comm_t* c)
{
    ghz_comm_config_t h = GHZ_COMM_CONFIG_INIT;
    ghz_status_t st;
    h.backend = GHZ_EXEC_CPU;
    h.check_args = 0;
    /* a few threads: the range scan of a staged lossy call takes them from 1 MiB (64 Ki
     * values a thread, codec/params.c); 1 MiB scanned in 97 us on one core where ranks
     * share an H100 (session 15), and every rank of the node scans at once. By default
     * only where ranks share a GPU (comm.h, staged_range_gpu_min: elsewhere the host
     * scans below 64 KiB, one thread's share): with a GPU per rank and the host scan
     * forced (GHZ_COLL_STAGED_RANGE=host), the team stalled now and then for 1-8 ms a
     * call at 256 KiB-1 MiB, with every OMP_WAIT_POLICY, where ranks sharing a GPU and
     * scanning every call saw none in 1195 calls with the default policy (2 x H200,
     * session 16; cause not found: a team idle between calls is the difference seen).
     * Where ranks share a GPU the host call that follows such a scan also ran 7-16 %
     * slower than the exact row's (2 x H200, 256 KiB-1 MiB, session 16), cause not
     * found either: GHZ_COLL_HOST_THREADS (1-64) sets the team, to measure one thread
     * against it (gpu_multi.sh scanab). */
    h.nthreads = (int)agreed_limit(c, "GHZ_COLL_HOST_THREADS", 4, 64);
    if (h.nthreads < 1) h.nthreads = 1;
    h.transport = GHZ_TRANSPORT_MPI;
    c->small_bytes = host_path_limit(c);
    /* lossy AUTO calls below the least compressed size (collectives.c, auto_small) */
    c->small_auto_bytes = !c->small_bytes                             ? 0
                          : c->small_bytes > COLL_AUTO_LOSSY_MIN_BYTES ? c->small_bytes
                                                                       : COLL_AUTO_LOSSY_MIN_BYTES;
    /* recursive doubling and ring in one round, and at least a pool's least */
    h.pool_bytes = 4 * c->small_auto_bytes > MIN_POOL ? 4 * c->small_auto_bytes : MIN_POOL;
    c->small_in = (unsigned char*)c->be.alloc(&c->be, c->small_auto_bytes ? c->small_auto_bytes : 16, COLL_MEM_MIRROR);
    c->small_out = (unsigned char*)c->be.alloc(&c->be, c->small_auto_bytes ? c->small_auto_bytes : 16, COLL_MEM_MIRROR);
    c->allocations += 2;
    st = c->small_in && c->small_out ? GHZ_SUCCESS : ghz_fail(GHZ_ERR_NOMEM, "pinned host buffers");
    /* collective: every rank takes part, ready or not, and the agreement that follows
     * tells them apart */
    {
        ghz_status_t st2 = comm_init(c->mpi, &h, 1, &c->host);
        if (st == GHZ_SUCCESS) st = st2;
    }
    return st;
}

ghz_status_t ghz_comm_init(MPI_Comm mpi_comm, const ghz_comm_config_t* config, ghz_comm_t** comm)
{
    return comm_init(mpi_comm, config, 0, comm);
}

static ghz_status_t comm_init(MPI_Comm mpi_comm, const ghz_comm_config_t* config, int leaf, ghz_comm_t** comm)
{
    ghz_comm_t* c;
    ghz_status_t st;
    int rc, flag = 0, shared;
    size_t n;
    /* the caller left the chunk to the library (which then sizes it by whether ranks
     * share a GPU) */
    const int chunk_default = !config || config->chunk_bytes == 0;

    ghz_clear_detail();
    if (!comm) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm");
    *comm = NULL;
    MPI_Initialized(&flag);
    if (!flag) return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI is not initialised");
    if (mpi_comm == MPI_COMM_NULL) return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_COMM_NULL");
    c = (ghz_comm_t*)calloc(1, sizeof *c);
    if (!c) return ghz_fail(GHZ_ERR_NOMEM, "communicator");
    c->mpi = MPI_COMM_NULL;
    c->allocations = 1;
    rc = MPI_Comm_dup(mpi_comm, &c->mpi);
    if (rc != MPI_SUCCESS) {
        free(c);
        return ghz_coll_mpi_fail(rc, "MPI_Comm_dup");
    }
    /* Errors come back to us as codes instead of aborting the job. */
    MPI_Comm_set_errhandler(c->mpi, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->mpi, &c->rank);
    MPI_Comm_size(c->mpi, &c->size);
    c->mpi_max = agreed_limit(c, "GHZ_COLL_MPI_MAX", MPI_NATIVE_DEFAULT, MPI_NATIVE_MAX);
    {
        const char* tr = getenv("GHZ_COLL_AUTO_TRACE");
        c->auto_trace = tr && (*tr == '1' || *tr == '2') ? *tr - '0' : 0;
    }

    st = read_config(config, &c->cfg);
    shared = gpu_shared(c, st == GHZ_SUCCESS && c->cfg.backend == GHZ_EXEC_CUDA);
    if (st == GHZ_SUCCESS && chunk_default && shared == 1 && c->cfg.transport == GHZ_TRANSPORT_MPI)
        c->cfg.chunk_bytes = DEFAULT_CHUNK_CUDA_SHARED;
    if (st == GHZ_SUCCESS) {
#ifdef GHZ_WITH_CUDA
        if (c->cfg.backend == GHZ_EXEC_CUDA) {
            st = ghz_coll_backend_cuda(c->cfg.chunk_bytes, &c->be);
            /* A CUDA-aware MPI moves device buffers itself: no host mirror, and exact
             * rounds send the caller's buffers directly (never seen on our machines,
             * whose Open MPI is built without CUDA: untested). CUDA IPC keeps the
             * staged exact path: it sends only from its exported wire pool. */
            if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_MPI && mpi_takes_device_pointers())
                c->be.staged = 0;
        } else
#endif
            st = ghz_coll_backend_cpu(c->cfg.nthreads, &c->be);
        /* Testing seam: the CPU backend run the way the CUDA one is, wire buffers
         * apart from values and exact rounds on the staged (DOC-shaped) path, so that
         * CI, which has no GPU, covers those paths (COLL.md, Testing). */
        if (st == GHZ_SUCCESS && c->cfg.backend == GHZ_EXEC_CPU && getenv("GHZ_COLL_TEST_STAGED")) {
            c->be.staged = 1;
            c->be.has_sum_n = 0; /* and pairwise sums folded, as on a GPU without the n-ary kernel */
        }
    }
    /* A host mirror where the backend's wire memory is not what the transport takes:
     * MPI (not CUDA-aware) with wire buffers apart (the CUDA backend, or the test
     * seam). CUDA IPC moves device memory itself. */
    c->host_mirror = c->be.staged && c->cfg.transport == GHZ_TRANSPORT_MPI;
    if (st == GHZ_SUCCESS) st = ghz_coll_transport_mpi(&c->mpi, &c->tp);
    if (st == GHZ_SUCCESS) {
        n = (size_t)c->size;
        c->max_reqs = 2 * n * COLL_MAX_PIECES;
        c->seg_off = (size_t*)host_alloc(c, n * sizeof *c->seg_off);
        c->seg_cnt = (size_t*)host_alloc(c, n * sizeof *c->seg_cnt);
        c->wire_size = (size_t*)host_alloc(c, (n + 2) * COLL_MAX_PIECES * sizeof *c->wire_size);
        c->wire_tmp = (size_t*)host_alloc(c, n * sizeof *c->wire_tmp);
        c->wire_ptr = (const void**)host_alloc(c, n * sizeof *c->wire_ptr);
        c->sreq = (coll_req_t*)host_alloc(c, c->max_reqs * sizeof *c->sreq);
        c->rreq = (coll_req_t*)host_alloc(c, c->max_reqs * sizeof *c->rreq);
        c->pool_bytes = c->cfg.pool_bytes;
        c->pool = (unsigned char*)c->be.alloc(&c->be, c->pool_bytes, COLL_MEM_WIRE);
        c->allocations++;
        if (c->be.staged) {
            /* values live apart from the wire buffers: as much again, so that whatever
             * fits the wire pool fits here (the algorithms' needs count both) */
            c->pool_raw = (unsigned char*)c->be.alloc(&c->be, c->pool_bytes, COLL_MEM_RAW);
            c->allocations++;
        }
        if (c->host_mirror) {
            /* the host mirror every message is copied through */
            c->pool_mirror = (unsigned char*)c->be.alloc(&c->be, c->pool_bytes, COLL_MEM_MIRROR);
            c->allocations++;
        }
        if (!c->seg_off || !c->seg_cnt || !c->wire_size || !c->wire_tmp || !c->wire_ptr ||
            !c->sreq || !c->rreq || !c->pool || (c->be.staged && !c->pool_raw) ||
            (c->host_mirror && !c->pool_mirror))
            st = ghz_fail(GHZ_ERR_NOMEM, "communicator buffers (pool %zu bytes)", c->pool_bytes);
    }
    /* Every rank learns whether every other one succeeded and configured alike. */
    st = coll_agree_config(c->mpi, &c->cfg, st);
#ifdef GHZ_WITH_CUDA
    /* CUDA IPC replaces the MPI transport once every rank has its pool (the exchange
     * of handles is collective, so it starts only where every rank will take part) */
    if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_CUDA_IPC) {
        st = ghz_coll_transport_ipc(&c->mpi, &c->be, c->pool, c->pool_bytes, &c->tp);
        st = coll_agree_config(c->mpi, &c->cfg, st);
        /* (every rank agreed on st: all take part in the limit's reduction, or none) */
        if (st == GHZ_SUCCESS)
            c->one_shot_bytes = agreed_limit(c, "GHZ_COLL_DIRECT_ONE_SHOT_MAX",
                                             c->size == 2 ? SIZE_MAX : DIRECT_ONE_SHOT_MAX, SIZE_MAX);
    }
#endif
    if (st == GHZ_SUCCESS && !leaf) {
        st = make_levels(c);
        st = coll_agree_config(c->mpi, &c->cfg, st);
    }
    /* (every rank agreed on st: all take part, or none) */
    if (st == GHZ_SUCCESS) {
        const char* sr = getenv("GHZ_COLL_STAGED_RANGE");
        c->tp.shared_gpu = shared;
        c->staged_range_gpu_min = c->tp.shared_gpu == 1 ? SIZE_MAX : STAGED_RANGE_GPU_MIN;
        if (sr && !strcmp(sr, "gpu")) c->staged_range_gpu_min = 0;
        else if (sr && !strcmp(sr, "host")) c->staged_range_gpu_min = SIZE_MAX;
        else if (sr && *sr >= '0' && *sr <= '9') c->staged_range_gpu_min = (size_t)strtoull(sr, NULL, 10);
    }
    /* (testing seam: GHZ_COLL_TEST_HOST_PATH gives a CPU communicator the host path too,
     * so that CI covers the data movement's (movement.c, host_move)) */
    if (st == GHZ_SUCCESS && !leaf && (c->cfg.backend == GHZ_EXEC_CUDA || getenv("GHZ_COLL_TEST_HOST_PATH"))) {
        st = make_host(c);
        st = coll_agree_config(c->mpi, &c->cfg, st);
    }
    if (st != GHZ_SUCCESS) {
        char keep[256];
        strncpy(keep, ghz_last_error_detail(), sizeof keep - 1);
        keep[sizeof keep - 1] = '\0';
        release(c);
        return ghz_fail(st, "%s", keep);
    }
    {
        ghz_coll_info_t i0 = GHZ_COLL_INFO_INIT;
        c->info = i0;
    }
    *comm = c;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_destroy(ghz_comm_t* comm)
{
    ghz_clear_detail();
    if (comm) release(comm);
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_rank(const ghz_comm_t* comm, int* rank)
{
    if (!comm || !rank) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm or rank");
    *rank = comm->rank;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_size(const ghz_comm_t* comm, int* size)
{
    if (!comm || !size) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm or size");
    *size = comm->size;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_config(const ghz_comm_t* comm, ghz_comm_config_t* config)
{
    size_t n;
    if (!comm || !config) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm or config");
    n = config->struct_size;
    /* (read_config's rule: at least the fields of the first release, at most 64 KiB) */
    if (n < offsetof(ghz_comm_config_t, nthreads) + sizeof(int) || n > (size_t)1 << 16)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_comm_config_t.struct_size %zu: initialise with GHZ_COMM_CONFIG_INIT",
                        n);
    memcpy(config, &comm->cfg, n < sizeof comm->cfg ? n : sizeof comm->cfg);
    config->struct_size = n;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_graph_status(ghz_comm_t* comm)
{
    if (!comm) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm");
    return comm->tp.graph_status ? comm->tp.graph_status(&comm->tp) : GHZ_SUCCESS;
}

ghz_status_t ghz_comm_info(const ghz_comm_t* comm, ghz_coll_info_t* info)
{
    size_t n;
    if (!comm || !info) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm or info");
    if (info->struct_size < offsetof(ghz_coll_info_t, allocations) + sizeof(uint64_t))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_coll_info_t.struct_size %zu: use GHZ_COLL_INFO_INIT",
                        info->struct_size);
    n = info->struct_size < sizeof *info ? info->struct_size : sizeof *info;
    {
        ghz_coll_info_t cur = comm->info;
        cur.struct_size = info->struct_size;
        cur.allocations = comm->allocations;
        cur.transport = comm->cfg.transport;
        memcpy(info, &cur, n);
    }
    return GHZ_SUCCESS;
}
