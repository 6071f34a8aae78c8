/* ghz/coll/comm.c: the communicator: configuration, the pool, the per-call arrays.
 * Everything a call needs is allocated here, once; calls allocate nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/coll_mpi.h" /* ghz_comm_init's declaration: exported (GHZ_API) */
#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/agree_shm.h"
#include "ghz/coll/detail/auto_rule.h"
#include "ghz/coll/detail/knobs.h"
/* Open MPI says at compile time whether it could be CUDA-aware (mpi-ext.h, after
 * mpi.h), and at run time whether it is (MPIX_Query_cuda_support). */
#if defined(GHZ_WITH_CUDA) && defined(OPEN_MPI) && defined(__has_include)
#  if __has_include(<mpi-ext.h>)
#    include <mpi-ext.h>
#  endif
#endif
#include "ghz/coll/detail/algo.h"
#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/detail/error.h"

#define DEFAULT_POOL ((size_t)64 << 20)
#define DEFAULT_CHUNK ((size_t)1 << 20)
/* The CUDA backend synchronises once per piece operation (backend_cuda.c): larger
 * pieces, and a pool to hold them, amortise that. Over NCCL and CUDA IPC a compressed
 * allreduce of 1 GiB took 11 % longer with 128 MiB and 37-49 % with 64 MiB; host-staged
 * MPI, which moves 8 MiB pieces through host memory, was as fast with 64 MiB as with
 * 256 MiB and saves three times 192 MiB (device pool, value pool, pinned mirror)
 * (docs/RESULTS-coll.md, "The numbers behind ghz/coll's defaults": the pool). */
#define DEFAULT_POOL_CUDA ((size_t)256 << 20)
#define DEFAULT_POOL_CUDA_MPI ((size_t)64 << 20)
#define DEFAULT_CHUNK_CUDA ((size_t)8 << 20)
/* Over CUDA IPC nothing is pipelined through host copies, and the direct algorithm
 * launches one codec kernel per piece: fewer, larger pieces cost fewer launches
 * (docs/RESULTS-coll.md, "The numbers behind ghz/coll's defaults"). */
#define DEFAULT_CHUNK_CUDA_IPC ((size_t)64 << 20)
/* Where ranks share a GPU over MPI, each piece's kernels wait for the other processes'
 * time slices: fewer, larger pieces pay fewer waits. 32 MiB was the fastest of 8, 32 and
 * 64 MiB from 64 MiB up; with a GPU per rank 8 MiB stays as fast (docs/RESULTS-coll.md, "The
 * numbers behind ghz/coll's defaults"). */
#define DEFAULT_CHUNK_CUDA_SHARED ((size_t)32 << 20)
/* Over NCCL a round's pieces are compressed and combined one kernel each, and the host
 * waits three times a round whatever the pieces: large ones, as over CUDA IPC. */
#define DEFAULT_CHUNK_CUDA_NCCL ((size_t)64 << 20)
#define MIN_POOL ((size_t)1 << 16)
/* The node's child over NCCL compresses nothing: the least codec workspace. */
#define EXACT_CHILD_CHUNK ((size_t)1 << 16)
#define MAX_CHUNK ((size_t)1 << 30)

/* The CUDA backend's default pool for a transport: 64 MiB where MPI moves 8 MiB pieces
 * (a GPU per rank), else 256 MiB (ranks sharing a GPU over MPI, with their 32 MiB
 * pieces, were not measured with a smaller pool). */
static size_t cuda_pool(ghz_transport_t transport, int shared)
{
    return transport == GHZ_TRANSPORT_MPI && shared != 1 ? DEFAULT_POOL_CUDA_MPI : DEFAULT_POOL_CUDA;
}

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

/* The transport of a configuration: AUTO takes the environment's GHZ_COLL_TRANSPORT
 * ("ipc" only where it can apply: CUDA-backend communicators; a CPU communicator in
 * the same program stays on MPI), else MPI. An explicit field wins over the
 * environment. A value the library does not know is an error either way (knobs.c). */
static ghz_status_t resolve_transport(ghz_comm_config_t* cfg, const coll_knobs_t* k)
{
    const ghz_transport_t from_env = k->transport;
    if ((unsigned)cfg->transport > GHZ_TRANSPORT_NCCL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown transport %d", (int)cfg->transport);
    /* (AUTO on the CUDA backend with nothing in the environment stays AUTO here: it
     * becomes NCCL, CUDA IPC or MPI once comm_init knows whether ranks share a GPU and
     * a node: auto_transport) */
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

/* The CUDA backend's AUTO transport, once comm_init knows whether ranks share a GPU
 * and a node: NCCL where the library has it and every rank has a GPU of its own (NCCL
 * takes one rank per GPU); else CUDA IPC where every rank is on one node (GPU to GPU,
 * ranks sharing a GPU included: IPC between processes of one device works); else MPI.
 * CUDA IPC that then fails to set up falls back to MPI (ipc_fallback). */
static ghz_transport_t auto_transport(int shared, int single_node)
{
#ifdef GHZ_WITH_NCCL
    if (shared == 0) return GHZ_TRANSPORT_NCCL;
#endif
    (void)shared;
    return single_node ? GHZ_TRANSPORT_CUDA_IPC : GHZ_TRANSPORT_MPI;
}

/* Whether every rank of c is on one node: the same answer on every rank. Collective. */
static int one_node(const ghz_comm_t* c)
{
    MPI_Comm node = MPI_COMM_NULL;
    int local = 0;
    if (MPI_Comm_split_type(c->mpi, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node) != MPI_SUCCESS) return 0;
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    return local == c->size;
}

/* The configuration in force: the caller's fields, then the environment's where a
 * field is left to it (transport AUTO, ranks_per_node 0), then the defaults. */
static ghz_status_t read_config(const ghz_comm_config_t* in, const coll_knobs_t* k, ghz_comm_config_t* out)
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
    if ((unsigned)out->allreduce_algo > GHZ_ALGO_NCCL ||
        (unsigned)out->reduce_scatter_algo > GHZ_ALGO_NCCL ||
        (unsigned)out->reduce_algo > GHZ_ALGO_NCCL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown algorithm in the configuration");
    /* GPU-only algorithms are refused where they can never run, as the GPU-only
     * transports are (resolve_transport): a CPU communicator that accepted them would
     * fail every call */
    {
        const ghz_algo_t named[3] = {out->allreduce_algo, out->reduce_scatter_algo, out->reduce_algo};
        static const char* const field[3] = {"allreduce_algo", "reduce_scatter_algo", "reduce_algo"};
        int i;
        for (i = 0; i < 3; i++)
            if (out->backend != GHZ_EXEC_CUDA && (named[i] == GHZ_ALGO_IPC_DIRECT || named[i] == GHZ_ALGO_NCCL))
                return ghz_fail(GHZ_ERR_UNSUPPORTED, "%s %s needs the CUDA backend (and the %s transport)", field[i],
                                ghz_algo_name(named[i]), named[i] == GHZ_ALGO_NCCL ? "NCCL" : "CUDA IPC");
    }
    if (in && in->struct_size < offsetof(ghz_comm_config_t, transport) + sizeof(ghz_transport_t))
        out->transport = GHZ_TRANSPORT_AUTO;
    st = resolve_transport(out, k);
    if (st != GHZ_SUCCESS) return st;
    /* (a CUDA default that depends on an AUTO transport is set again once it is known:
     * comm_init) */
    if (out->pool_bytes == 0)
        out->pool_bytes = out->backend != GHZ_EXEC_CUDA ? DEFAULT_POOL : cuda_pool(out->transport, 0);
    if (out->chunk_bytes == 0)
        out->chunk_bytes = out->backend != GHZ_EXEC_CUDA                 ? DEFAULT_CHUNK
                           : out->transport == GHZ_TRANSPORT_CUDA_IPC ? DEFAULT_CHUNK_CUDA_IPC
                           : out->transport == GHZ_TRANSPORT_NCCL     ? DEFAULT_CHUNK_CUDA_NCCL
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
    if (out->ranks_per_node == 0) out->ranks_per_node = k->ranks_per_node;
    return GHZ_SUCCESS;
}

/* Cancels the messages a failed call left outstanding (a local release: nothing will
 * wait for them). */
static void cancel_requests(ghz_comm_t* c)
{
    size_t i, j;
    for (i = 0; i < c->max_reqs; i++)
        for (j = 0; j < 2; j++)
            if (c->tp.cancel) c->tp.cancel(&c->tp, j ? &c->rreq[i] : &c->sreq[i]);
}

/* Frees what alloc_buffers made (the pool through the backend, whose `release` needs
 * no backend state, so it may already be destroyed) and forgets it. `keep_pool`: the
 * wire pool stays allocated (a peer may still map it: ghz_comm_abort over CUDA IPC).
 * Returns how many buffers it freed (ghz_coll_info_t.allocations counts what the
 * communicator holds). */
static uint64_t free_buffers(ghz_comm_t* c, int keep_pool)
{
    uint64_t n = (c->pool && !keep_pool) + (c->pool_raw != NULL) + (c->pool_mirror != NULL) + (c->seg_off != NULL) +
                 (c->seg_cnt != NULL) + (c->wire_size != NULL) + (c->wire_tmp != NULL) + (c->wire_ptr != NULL) +
                 (c->sreq != NULL) + (c->rreq != NULL);
    if (c->pool && !keep_pool) c->be.release(&c->be, c->pool, COLL_MEM_WIRE);
    if (c->pool_raw) c->be.release(&c->be, c->pool_raw, COLL_MEM_RAW);
    if (c->pool_mirror) c->be.release(&c->be, c->pool_mirror, COLL_MEM_MIRROR);
    free(c->seg_off);
    free(c->seg_cnt);
    free(c->wire_size);
    free(c->wire_tmp);
    free((void*)c->wire_ptr);
    free(c->sreq);
    free(c->rreq);
    c->pool = c->pool_raw = c->pool_mirror = NULL;
    c->seg_off = c->seg_cnt = c->wire_size = c->wire_tmp = NULL;
    c->wire_ptr = NULL;
    c->sreq = c->rreq = NULL;
    c->max_reqs = 0;
    return n;
}

/* Frees the communicator. `local`: on this rank alone, meeting no peer (ghz_comm_abort,
 * or a broken communicator): outstanding messages are cancelled, the transport releases
 * what it can alone, and a wire pool the peers may map (CUDA IPC) stays allocated.
 * Otherwise, where the ranks share the agreements' segment, they first learn whether
 * every one releases with the others; if one released alone (a call failed there once
 * data moved, where it succeeded here), every rank releases alone too, so that none
 * waits for it (agree_shm.h, coll_shm_together). */
static void release(ghz_comm_t* c, int local)
{
    int exported;
    if (!local && !coll_shm_together(c->shm)) local = 1;
    exported = local && c->tp.abort != NULL;
#ifdef GHZ_WITH_CUDA
    /* (its events, streams and mappings are the device's it was made on) */
    const int previous = ghz_coll_backend_cuda_enter(&c->be);
#endif
    if (c->intra) release(c->intra, local);
    if (c->inter) release(c->inter, local);
    if (c->node_mpi != MPI_COMM_NULL) MPI_Comm_free(&c->node_mpi);
    if (c->across_mpi != MPI_COMM_NULL) MPI_Comm_free(&c->across_mpi);
    if (c->host) release(c->host, local);
    if (local && c->sreq && c->rreq) cancel_requests(c);
    /* the transport first: CUDA IPC unmaps the peers' pools and waits until every peer
     * has unmapped this rank's before the pool is freed; then the backend, which waits
     * for work still queued (asynchronous copies out of small_out); then the memory
     * (`release` needs no backend state) */
    if (exported) c->tp.abort(&c->tp);
    else if (c->tp.destroy) c->tp.destroy(&c->tp);
#ifdef GHZ_WITH_NCCL
    coll_nccl_destroy(c, local); /* local: ncclCommAbort */
#endif
    if (c->be.destroy) c->be.destroy(&c->be);
    if (c->small_in) c->be.release(&c->be, c->small_in, COLL_MEM_MIRROR);
    if (c->small_out) c->be.release(&c->be, c->small_out, COLL_MEM_MIRROR);
    (void)free_buffers(c, exported);
    /* (MPI_Win_free is collective: a local release leaves an MPI window to MPI_Finalize;
     * either way the peers that wait for this rank's agreement then fail, not wait) */
    if (!local) coll_shm_destroy(c->shm);
    else coll_shm_abandon(c->shm);
    if (c->mpi != MPI_COMM_NULL) MPI_Comm_free(&c->mpi);
    free(c);
#ifdef GHZ_WITH_CUDA
    ghz_coll_backend_cuda_leave(previous);
#endif
}

static ghz_status_t comm_init(MPI_Comm mpi_comm, const ghz_comm_config_t* config, int leaf, ghz_comm_t** comm);

/* GHZ_COLL_DEBUG=INFO: the configuration in force and the environment's knobs, on one
 * line (rank 0, once per communicator the caller makes). */
static void describe(const ghz_comm_t* c)
{
    char knobs[512];
    coll_knobs_describe(&c->knobs, knobs, sizeof knobs);
    fprintf(stderr,
            "ghz coll INFO: %d ranks, backend %s, transport %s, agreement %s, allreduce_algo %s, "
            "reduce_scatter_algo %s, reduce_algo %s, pool_bytes %zu, chunk_bytes %zu, check_args %d, nthreads %d, "
            "ranks_per_node %d; %s\n",
            c->size, c->cfg.backend == GHZ_EXEC_CUDA ? "cuda" : "cpu",
            ghz_transport_name(c->cfg.transport),
            /* (the same on every rank: the segment is made all or nothing) */
            c->shm ? "shm" : c->mpi != MPI_COMM_NULL ? "mpi" : "nccl",
            ghz_algo_name(c->cfg.allreduce_algo), ghz_algo_name(c->cfg.reduce_scatter_algo), ghz_algo_name(c->cfg.reduce_algo), c->cfg.pool_bytes,
            c->cfg.chunk_bytes, c->cfg.check_args != 0, c->cfg.nthreads, c->cfg.ranks_per_node, knobs);
}

/* The end of an init: the communicator handed out, or released with the failure's
 * detail kept. */
static ghz_status_t finish_init(ghz_comm_t* c, ghz_status_t st, ghz_comm_t** comm)
{
    if (st != GHZ_SUCCESS) {
        char keep[256];
        strncpy(keep, ghz_last_error_detail(), sizeof keep - 1);
        keep[sizeof keep - 1] = '\0';
        release(c, 0);
        return ghz_fail(st, "%s", keep);
    }
    {
        ghz_coll_info_t i0 = GHZ_COLL_INFO_INIT;
        c->info = i0;
    }
    *comm = c;
    return GHZ_SUCCESS;
}

/* Testing seam, compiled into the tests' copy of the library only (ghz_coll_test_staged):
 * GHZ_COLL_TEST_HOST_PATH gives a CPU communicator the host path of a CUDA one, so that
 * CI covers the data movement's (host_path.c). */
static int test_host_path(void)
{
#ifdef GHZ_COLL_TEST_STAGED
    return getenv("GHZ_COLL_TEST_HOST_PATH") != NULL;
#else
    return 0;
#endif
}

/* The pool and the per-call arrays (comm.h), allocated once. */
static ghz_status_t alloc_buffers(ghz_comm_t* c)
{
    const size_t n = (size_t)c->size;
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
    if (c->be.staged && c->cfg.transport != GHZ_TRANSPORT_NCCL) {
        /* values live apart from the wire buffers: as much again, so that whatever
         * fits the wire pool fits here (the algorithms' needs count both); the NCCL
         * algorithm keeps its values in the callers' buffers and its pool alone */
        c->pool_raw = (unsigned char*)c->be.alloc(&c->be, c->pool_bytes, COLL_MEM_RAW);
        c->allocations++;
    }
    if (c->host_mirror) {
        /* the host mirror every message is copied through */
        c->pool_mirror = (unsigned char*)c->be.alloc(&c->be, c->pool_bytes, COLL_MEM_MIRROR);
        c->allocations++;
    }
    if (!c->seg_off || !c->seg_cnt || !c->wire_size || !c->wire_tmp || !c->wire_ptr ||
        !c->sreq || !c->rreq || !c->pool || (c->be.staged && c->cfg.transport != GHZ_TRANSPORT_NCCL && !c->pool_raw) ||
        (c->host_mirror && !c->pool_mirror))
        return ghz_fail(GHZ_ERR_NOMEM, "communicator buffers (pool %zu bytes)", c->pool_bytes);

    return GHZ_SUCCESS;
}

/* Exact calls of a CUDA communicator up to this many bytes of input per rank (and with
 * the AUTO algorithm) go through host memory (host_path.c; COLL.md,
 * Choices): a copy each way and the CPU algorithm cost less there than the device
 * paths' fixed costs. Where ranks share a GPU those are cross-process waits and kernels
 * that each take a time slice, so the host path keeps up to 4 MiB over MPI
 * (HOST_PATH_MAX_SHARED) and 1 MiB over CUDA IPC, whose direct algorithm has fewer such
 * waits (HOST_PATH_MAX, as over MPI with a GPU per rank). Where every rank has a GPU of
 * its own and CUDA IPC reads the peers' memory, the direct algorithm is as fast from 16
 * KiB up: the host path keeps only what it does faster, up to 8 KiB
 * (HOST_PATH_MAX_OWN_GPU). The measurements: docs/RESULTS-coll.md, "The numbers behind
 * ghz/coll's defaults". GHZ_COLL_HOST_PATH_MAX (bytes, at most 16 MiB) overrides them; 0
 * turns the host path off. */
#define HOST_PATH_MAX_SHARED ((size_t)4 << 20)
#define HOST_PATH_MAX ((size_t)1 << 20)
#define HOST_PATH_MAX_OWN_GPU ((size_t)8 << 10)

/* Where every rank has a GPU of its own, a staged lossy call's range comes from this
 * many bytes per rank on from the range kernel, which makes the copy too (comm.h,
 * staged_range_gpu_min; cuda/backend_cuda.c, cuda_range), and below from a scan of the
 * host copy: the kernel's fixed cost over the copy alone is about constant, the scan's
 * grows with the size, and they meet near 32 KiB (docs/RESULTS-coll.md, "The numbers behind
 * ghz/coll's defaults"). */
#define STAGED_RANGE_GPU_MIN ((size_t)64 << 10)

/* ipc_direct's exact allreduce rounds of at most this many bytes per rank run in one
 * shot: one fence fewer and no gather (cuda/algo_direct.c, one_shot). Between two ranks
 * at every size: each rank then reads the peer's input whole, as many bytes over the
 * link as in three phases, so the fence saved is pure gain (measured faster from 1 to
 * 64 MiB: docs/RESULTS-coll.md, "The numbers behind ghz/coll's defaults"). Beyond two ranks
 * it reads N - 1 inputs whole instead of 2 (N - 1) / N of one: only where the fences,
 * not the bytes, set the time. GHZ_COLL_DIRECT_ONE_SHOT_MAX overrides both (0: never). */
#define DIRECT_ONE_SHOT_MAX ((size_t)1 << 20)

/* Exact allreduce calls of a CPU communicator up to GHZ_COLL_MPI_MAX bytes per rank (at
 * most 1 GiB, knobs.c; default MPI_NATIVE_DEFAULT) and with the AUTO algorithm call
 * MPI_Allreduce itself (algo_mpi.c, coll_mpi_refusal says which). A CUDA communicator's
 * host path runs on such a communicator, in place in its pinned buffer: there it is what
 * `cudaMemcpy` + `MPI_Allreduce(MPI_IN_PLACE)` + `cudaMemcpy` users do, behind ghz's
 * agreement. Why 4 MiB: the host path's largest default limit (HOST_PATH_MAX_SHARED,
 * measured with MPI's call up to 4 MiB); MPI's own call is faster than ghz's recursive
 * doubling for small calls on the CPU, and on the host path its in-place call saves a
 * host copy that ghz's ring and recursive doubling make (COLL.md, "mpi"; docs/RESULTS-coll.md,
 * "The numbers behind ghz/coll's defaults"). */
#define MPI_NATIVE_DEFAULT ((size_t)4 << 20)
/* The host path's CPU communicator's threads (make_host). */
#define HOST_THREADS 4

/* The host path's limit for this communicator (GHZ_COLL_HOST_PATH_MAX, agreed at init,
 * or the default for its GPUs and transport). */
static size_t host_path_limit(const ghz_comm_t* c)
{
    const int own = c->tp.shared_gpu == 0, ipc = c->tp.fence != NULL;
    if (c->knobs.host_path_max != COLL_KNOB_UNSET) return c->knobs.host_path_max;
    return ipc ? (own ? HOST_PATH_MAX_OWN_GPU : HOST_PATH_MAX) : (own ? HOST_PATH_MAX : HOST_PATH_MAX_SHARED);
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
 * (cfg or GHZ_COLL_RANKS_PER_NODE); this rank's place in them, and, where there are
 * several nodes of several ranks (c->levels), the MPI communicators of this rank's node
 * and of the ranks of its local rank on every node, kept for the children
 * (coll_comm_levels). Collective over c.
 *
 * Why the children wait for a call that needs them: each is a whole communicator (a
 * pool, a raw pool and, over MPI, a pinned mirror, each the parent's pool_bytes: up to
 * 768 MiB on the CUDA backend's defaults), and only the two-level algorithms use them,
 * which the AUTO choice takes for lossy allreduce calls only. */
static ghz_status_t make_levels(ghz_comm_t* c)
{
    int rpn = c->cfg.ranks_per_node, rc, sizes[2], mins[2];
    MPI_Comm node = MPI_COMM_NULL, across = MPI_COMM_NULL;
    if (rpn > 0) rc = MPI_Comm_split(c->mpi, c->rank / rpn, c->rank, &node);
    else rc = MPI_Comm_split_type(c->mpi, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "splitting the communicator into nodes");
    MPI_Comm_rank(node, &c->local_rank);
    MPI_Comm_size(node, &c->local_size);
    /* the node's number: its first rank's (NCCL's split takes it as the color) */
    c->node_color = c->rank;
    MPI_Bcast(&c->node_color, 1, MPI_INT, 0, node);
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
    c->levels = c->nodes > 1 && c->nodes < c->size;
    /* (over NCCL the children are split from the NCCL communicator: coll_comm_levels) */
    if (c->levels && c->cfg.transport != GHZ_TRANSPORT_NCCL) {
        c->node_mpi = node;
        c->across_mpi = across;
        return GHZ_SUCCESS;
    }
    MPI_Comm_free(&node);
    MPI_Comm_free(&across);
    return GHZ_SUCCESS;
}

#ifdef GHZ_WITH_NCCL
/* The two levels of a communicator made without MPI (ghz_comm_init_rank): nodes are
 * blocks of ranks_per_node consecutive ranks (agreed at init); 0, or no such field,
 * is one node, as nothing else tells where the ranks run. */
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

/* A two-level child over NCCL: the ranks of p of one color, in p's rank order, on an
 * NCCL communicator split from p's (ncclCommSplit needs no MPI, which a communicator of
 * ghz_comm_init_rank lacks). A leaf with p's configuration that decides no call.
 * exact_only: the node's child, which runs NCCL's own calls on the caller's buffers
 * only, so takes the least pool. Collective over p: every rank calls it (one whose
 * earlier step failed takes part without a color). The child comes back even when it
 * is incomplete: it is released after the agreement (coll_comm_levels), on every rank
 * at once, since destroying an NCCL communicator meets its peers on the node. */
static ghz_status_t nccl_child(ghz_comm_t* p, int color, int exact_only, ghz_status_t st, ghz_comm_t** out)
{
    ghz_comm_t* c = st == GHZ_SUCCESS ? (ghz_comm_t*)calloc(1, sizeof *c) : NULL;
    ghz_status_t made;
    *out = c;
    if (st == GHZ_SUCCESS && !c) st = ghz_fail(GHZ_ERR_NOMEM, "two-level child communicator");
    if (c) {
        c->mpi = c->node_mpi = c->across_mpi = MPI_COMM_NULL;
        c->allocations = 1;
        c->auto_min = SIZE_MAX;
        /* the environment's knobs, read again as comm_init reads them for a child over
         * MPI: a value this rank cannot parse fails its child, and so the call on every
         * rank (coll_comm_levels agrees), which the tests use to fail one rank's split */
        st = coll_knobs_read(&c->knobs);
        c->cfg = p->cfg;
        c->cfg.allreduce_algo = c->cfg.reduce_scatter_algo = c->cfg.reduce_algo = GHZ_ALGO_AUTO;
        c->cfg.ranks_per_node = 0;
        if (exact_only) {
            c->cfg.pool_bytes = MIN_POOL;
            c->cfg.chunk_bytes = EXACT_CHILD_CHUNK; /* (the codec's workspace is one piece's) */
        }
        c->nodes = 1;
        c->tp.name = "nccl";
        c->tp.shared_gpu = 0;
        c->staged_range_gpu_min = SIZE_MAX;
        if (st == GHZ_SUCCESS) st = ghz_coll_backend_cuda(c->cfg.chunk_bytes, &c->be);
    }
    made = coll_nccl_split(p, st == GHZ_SUCCESS ? c : NULL, color);
    if (st == GHZ_SUCCESS) st = made;
    if (st == GHZ_SUCCESS) st = alloc_buffers(c);
    return st;
}
#endif

ghz_status_t coll_comm_levels(ghz_comm_t* c)
{
    ghz_comm_config_t child = c->cfg;
    ghz_status_t st, st2;
    char keep[256] = "";
    if (c->intra && c->inter) return GHZ_SUCCESS;
    if (!c->levels) return ghz_fail(GHZ_ERR_UNSUPPORTED, "internal: no two levels here");
#ifdef GHZ_WITH_NCCL
    if (c->nccl) {
        /* NCCL inside the node, and NCCL across nodes for the compressed stage (no CUDA
         * IPC or MPI is involved); the second split runs whatever the first did */
        st = nccl_child(c, c->node_color, 1, GHZ_SUCCESS, &c->intra);
        if (st != GHZ_SUCCESS) strncpy(keep, ghz_last_error_detail(), sizeof keep - 1);
        st2 = nccl_child(c, c->local_rank, 0, st, &c->inter);
    } else
#endif
    {
        /* Children are leaves (no levels of their own) with the parent's configuration.
         * Both are made on every rank whatever the first one did: each init is
         * collective over its own ranks, so a rank that skipped one would leave its peers
         * waiting. */
        child.allreduce_algo = child.reduce_scatter_algo = child.reduce_algo = GHZ_ALGO_AUTO;
        st = comm_init(c->node_mpi, &child, 1, &c->intra);
        /* (the next init clears the detail: the first failure's is kept) */
        if (st != GHZ_SUCCESS) strncpy(keep, ghz_last_error_detail(), sizeof keep - 1);
        /* the stage across nodes cannot use CUDA IPC (the nodes may be machines) */
        child.transport = GHZ_TRANSPORT_MPI;
        st2 = comm_init(c->across_mpi, &child, 1, &c->inter);
    }
    if (st != GHZ_SUCCESS) st = ghz_fail(st, "the node's child communicator: %s", keep);
    else if (st2 != GHZ_SUCCESS) st = st2;
    st = coll_stage_agree(c, st);
    if (st != GHZ_SUCCESS) {
        /* (over MPI each child exists on all of its ranks or none, its init agreed; over
         * NCCL every rank releases what it holds, together) */
        if (c->intra) release(c->intra, 0);
        if (c->inter) release(c->inter, 0);
        c->intra = c->inter = NULL;
    }
    return st;
}

/* The host path of a CUDA communicator's small exact calls (host_path.c): a CPU
 * communicator over the same ranks (MPI transport, no agreement of its own: the
 * parent's call agreed) and two pinned buffers. Collective over c. */
static ghz_status_t make_host(ghz_comm_t* c)
{
    ghz_comm_config_t h = GHZ_COMM_CONFIG_INIT;
    ghz_status_t st;
    h.backend = GHZ_EXEC_CPU;
    h.check_args = 0;
    /* a few threads: the range scan of a staged lossy call takes them from 1 MiB (64 Ki
     * values a thread, codec/params.c), and every rank of the node scans at once
     * (docs/RESULTS-coll.md has the measurements) */
    h.nthreads = HOST_THREADS;
    h.transport = GHZ_TRANSPORT_MPI;
    c->small_bytes = host_path_limit(c);
    /* lossy AUTO calls below the least compressed size (host_path.c, coll_auto_small) */
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

/* The CUDA backend's default piece for a transport: 64 MiB over CUDA IPC and NCCL, over
 * MPI 32 MiB where ranks share a GPU, else 8 MiB (the DEFAULT_CHUNK_CUDA_* above). */
static size_t cuda_chunk(ghz_transport_t transport, int shared)
{
    if (transport == GHZ_TRANSPORT_CUDA_IPC) return DEFAULT_CHUNK_CUDA_IPC;
    if (transport == GHZ_TRANSPORT_NCCL) return DEFAULT_CHUNK_CUDA_NCCL;
    return shared == 1 ? DEFAULT_CHUNK_CUDA_SHARED : DEFAULT_CHUNK_CUDA;
}

/* What the configuration in force needs before any exchange: the backend, the MPI
 * transport (which CUDA IPC and NCCL replace later) and the buffers. */
static ghz_status_t make_core(ghz_comm_t* c)
{
    ghz_status_t st;
#ifdef GHZ_WITH_CUDA
    if (c->cfg.backend == GHZ_EXEC_CUDA) {
        st = ghz_coll_backend_cuda(c->cfg.chunk_bytes, &c->be);
        /* A CUDA-aware MPI moves device buffers itself: no host mirror, and exact
         * rounds send the caller's buffers directly (never seen on our machines,
         * whose Open MPI is built without CUDA: untested). CUDA IPC keeps the
         * staged exact path: it sends only from its exported wire pool. */
        if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_MPI && mpi_takes_device_pointers(&c->knobs))
            c->be.staged = 0;
    } else
#endif
        st = ghz_coll_backend_cpu(c->cfg.nthreads, &c->be);
#ifdef GHZ_COLL_TEST_STAGED
    /* Testing seam, compiled into the tests' copy of the library only
     * (ghz_coll_test_staged): the CPU backend run the way the CUDA one is, wire
     * buffers apart from values and exact rounds on the staged (DOC-shaped) path, so
     * that CI, which has no GPU, covers those paths (COLL.md, Testing). */
    if (st == GHZ_SUCCESS && c->cfg.backend == GHZ_EXEC_CPU && getenv("GHZ_COLL_TEST_STAGED")) {
        c->be.staged = 1;
        c->be.has_sum_n = 0; /* and pairwise sums folded, as on a GPU without the n-ary kernel */
    }
#endif
    /* A host mirror where the backend's wire memory is not what the transport takes:
     * MPI (not CUDA-aware) with wire buffers apart (the CUDA backend, or the test
     * seam). CUDA IPC moves device memory itself. */
    c->host_mirror = c->be.staged && c->cfg.transport == GHZ_TRANSPORT_MPI;
    if (st == GHZ_SUCCESS) st = ghz_coll_transport_mpi(&c->mpi, &c->tp);
    if (st == GHZ_SUCCESS) st = alloc_buffers(c);
    return st;
}

#ifdef GHZ_WITH_CUDA
/* CUDA IPC failed to set up on some rank (`failed`, agreed: every rank comes here;
 * `mine`: this rank's own status from the set-up). Where AUTO chose it on every rank,
 * the communicator is remade over MPI, as AUTO would have made it on a machine without
 * CUDA IPC (a container that refuses it must not cost the default configuration its
 * init); where any rank asked for CUDA IPC (the configuration field or
 * GHZ_COLL_TRANSPORT), every rank fails as before. One exchange decides, so the ranks
 * never split between the transports. Collective over c. */
static ghz_status_t ipc_fallback(ghz_comm_t* c, ghz_status_t failed, ghz_status_t mine, int chosen_by_auto,
                                 int chunk_default, int pool_default, int shared)
{
    /* w[0]: some rank asked for CUDA IPC. w[1]: the rank that tells why: the lowest
     * whose own set-up failed (its detail names the cause), before the lowest that
     * only saw another fail. */
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
    /* Undo every piece of CUDA IPC and of the backend and buffers made for it: the
     * transport meets the peers before this rank's pool goes where the handles went
     * around (the same on every rank), and the rest is this rank's alone. */
    if (c->tp.destroy) c->tp.destroy(&c->tp);
    if (c->be.destroy) c->be.destroy(&c->be);
    /* (every buffer was made: the first agreement succeeded; alloc_buffers counts the
     * new ones) */
    c->allocations -= free_buffers(c, 0);
    memset(&c->tp, 0, sizeof c->tp);
    memset(&c->be, 0, sizeof c->be);
    c->cfg.transport = GHZ_TRANSPORT_MPI;
    if (chunk_default) c->cfg.chunk_bytes = cuda_chunk(GHZ_TRANSPORT_MPI, shared);
    if (pool_default) c->cfg.pool_bytes = cuda_pool(GHZ_TRANSPORT_MPI, shared);
    st = make_core(c);
    /* the final configuration, MPI, is what every rank agrees from here on */
    st = coll_agree_config(c, st);
    if (st != GHZ_SUCCESS) return st;
    if (c->knobs.debug_info && w[1] != INT64_MIN && (int64_t)(uint32_t)w[1] == (int64_t)INT32_MAX - c->rank)
        fprintf(stderr, "ghz coll INFO: CUDA IPC could not be set up on rank %d (%s): the AUTO transport is MPI on "
                        "every rank\n", c->rank, why);
    ghz_clear_detail();
    return GHZ_SUCCESS;
}
#endif

ghz_status_t ghz_comm_init(MPI_Comm mpi_comm, const ghz_comm_config_t* config, ghz_comm_t** comm)
{
    return comm_init(mpi_comm, config, 0, comm);
}

static ghz_status_t comm_init(MPI_Comm mpi_comm, const ghz_comm_config_t* config, int leaf, ghz_comm_t** comm)
{
    ghz_comm_t* c;
    ghz_status_t st;
    int rc, flag = 0, shared, single_node, chosen_by_auto = 0;
    /* the caller left the chunk to the library (which then sizes it by whether ranks
     * share a GPU) */
    const int chunk_default = !config || config->chunk_bytes == 0;
    const int pool_default = !config || config->pool_bytes == 0; /* (likewise, by transport) */

    ghz_clear_detail();
    if (!comm) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm");
    *comm = NULL;
    MPI_Initialized(&flag);
    if (!flag) return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI is not initialised");
    if (mpi_comm == MPI_COMM_NULL) return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_COMM_NULL");
    c = (ghz_comm_t*)calloc(1, sizeof *c);
    if (!c) return ghz_fail(GHZ_ERR_NOMEM, "communicator");
    c->mpi = c->node_mpi = c->across_mpi = MPI_COMM_NULL;
    c->allocations = 1;
    c->auto_min = SIZE_MAX;
    rc = MPI_Comm_dup(mpi_comm, &c->mpi);
    if (rc != MPI_SUCCESS) {
        free(c);
        return ghz_coll_mpi_fail(rc, "MPI_Comm_dup");
    }
    /* Errors come back to us as codes instead of aborting the job. */
    MPI_Comm_set_errhandler(c->mpi, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->mpi, &c->rank);
    MPI_Comm_size(c->mpi, &c->size);
    /* the environment first: a bad value fails this rank's init (the agreement below
     * tells the others) */
    st = coll_knobs_read(&c->knobs);
    /* (children of a two-level communicator and the host path's never agree a call; on
     * every rank, whatever its status: collective) */
    if (!leaf) c->shm = coll_shm_create(c->mpi, st == GHZ_SUCCESS && coll_shm_wanted());
    c->mpi_max = c->knobs.mpi_max != COLL_KNOB_UNSET ? c->knobs.mpi_max : MPI_NATIVE_DEFAULT;
    c->auto_trace = c->knobs.auto_trace;
    if (st == GHZ_SUCCESS) st = read_config(config, &c->knobs, &c->cfg);
    else ghz_comm_config_init(&c->cfg);
    shared = gpu_shared(c, st == GHZ_SUCCESS && c->cfg.backend == GHZ_EXEC_CUDA);
    /* (on every rank, whatever its configuration: collective) */
    single_node = !leaf && one_node(c);
    if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_AUTO) {
        c->cfg.transport = leaf ? GHZ_TRANSPORT_MPI : auto_transport(shared, single_node);
        chosen_by_auto = !leaf;
    }
    if (st == GHZ_SUCCESS && chunk_default && c->cfg.backend == GHZ_EXEC_CUDA)
        c->cfg.chunk_bytes = cuda_chunk(c->cfg.transport, shared);
    if (st == GHZ_SUCCESS && pool_default && c->cfg.backend == GHZ_EXEC_CUDA)
        c->cfg.pool_bytes = cuda_pool(c->cfg.transport, shared);
    if (st == GHZ_SUCCESS) st = make_core(c);
    /* Every rank learns whether every other one succeeded and configured alike. */
    st = coll_agree_config(c, st);
#ifdef GHZ_WITH_CUDA
    /* CUDA IPC replaces the MPI transport once every rank has its pool (the exchange
     * of handles is collective, so it starts only where every rank will take part) */
    if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_CUDA_IPC) {
        const ghz_status_t mine = ghz_coll_transport_ipc(&c->mpi, &c->be, c->pool, c->pool_bytes, &c->tp);
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
    /* NCCL's communicator once every rank has its pool (NCCL's init is collective) */
    if (st == GHZ_SUCCESS && c->cfg.transport == GHZ_TRANSPORT_NCCL) {
        st = coll_nccl_create(c, NULL);
        st = coll_agree_config(c, st);
        if (st == GHZ_SUCCESS) st = coll_auto_calibrate(c);
        st = coll_agree_config(c, st);
    }
#endif
    /* (over NCCL, the two levels serve lossy allreduce calls only, and NCCL runs the
     * rest: no host path) */
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
    /* AUTO's threshold, timed on the finished communicator (its exact allreduce is what
     * AUTO's exact path runs); over NCCL it was fixed above, and the children never
     * decide a call */
    if (st == GHZ_SUCCESS && !leaf && c->cfg.transport != GHZ_TRANSPORT_NCCL) {
        st = coll_auto_calibrate(c);
        st = coll_agree_config(c, st);
    }
    if (st == GHZ_SUCCESS && !leaf && c->rank == 0 && c->knobs.debug_info) describe(c);
    return finish_init(c, st, comm);
}

ghz_status_t ghz_comm_init_rank(int nranks, const ghz_coll_unique_id_t* id, int rank,
                                const ghz_comm_config_t* config, ghz_comm_t** comm)
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
    /* the CUDA backend over NCCL is what this entry makes: its defaults */
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
    c = (ghz_comm_t*)calloc(1, sizeof *c);
    if (!c) return ghz_fail(GHZ_ERR_NOMEM, "communicator");
    c->mpi = c->node_mpi = c->across_mpi = MPI_COMM_NULL;
    c->allocations = 1;
    c->auto_min = SIZE_MAX;
    c->rank = rank;
    c->size = nranks;
    c->nodes = 1;
    st = coll_knobs_read(&c->knobs);
    if (st == GHZ_SUCCESS) st = read_config(&in, &c->knobs, &c->cfg);
    else ghz_comm_config_init(&c->cfg);
    if (st == GHZ_SUCCESS) st = ghz_coll_backend_cuda(c->cfg.chunk_bytes, &c->be);
    if (st == GHZ_SUCCESS) {
        c->tp.name = "nccl";
        c->tp.shared_gpu = 0; /* NCCL takes one rank per GPU */
        st = alloc_buffers(c);
    }
    /* NCCL's init is collective: every rank calls it (after a local failure too, when it
     * can), and the first agreement tells the ranks apart */
    {
        /* (without NCCL's communicator there is nothing to agree through: a failed
         * ncclCommInitRank fails on every rank, or NCCL waits for the missing one) */
        const ghz_status_t made = coll_nccl_create(c, id);
        if (made == GHZ_SUCCESS) {
            st = coll_agree_config(c, st);
            /* the agreements' shared segment where every rank is on one host, before
             * anything else agrees (every rank agreed on st: all take part, or none) */
            if (st == GHZ_SUCCESS) st = coll_nccl_agree_shm(c, id);
            if (st == GHZ_SUCCESS) st = coll_auto_calibrate(c);
            /* (ranks_per_node was agreed above) */
            if (st == GHZ_SUCCESS) levels_by_rank(c);
        } else if (st == GHZ_SUCCESS) {
            st = made;
        }
    }
    if (st == GHZ_SUCCESS && c->rank == 0 && c->knobs.debug_info) describe(c);
    return finish_init(c, st, comm);
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

ghz_status_t ghz_comm_destroy(ghz_comm_t* comm)
{
    ghz_clear_detail();
    if (comm) release(comm, comm->broken != GHZ_SUCCESS);
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_abort(ghz_comm_t* comm)
{
    ghz_clear_detail();
    if (comm) release(comm, 1);
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_get_async_error(const ghz_comm_t* comm, ghz_status_t* async_error)
{
    ghz_clear_detail();
    if (!comm || !async_error) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm or async_error");
    *async_error = comm->broken;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_rank(const ghz_comm_t* comm, int* rank)
{
    ghz_clear_detail();
    if (!comm || !rank) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm or rank");
    *rank = comm->rank;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_size(const ghz_comm_t* comm, int* size)
{
    ghz_clear_detail();
    if (!comm || !size) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm or size");
    *size = comm->size;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_comm_config(const ghz_comm_t* comm, ghz_comm_config_t* config)
{
    size_t n;
    ghz_clear_detail();
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
    ghz_clear_detail();
    if (!comm) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL comm");
    if (!comm->tp.graph_status) return GHZ_SUCCESS;
    {
#ifdef GHZ_WITH_CUDA
        const int previous = ghz_coll_backend_cuda_enter(&comm->be);
#endif
        const ghz_status_t st = comm->tp.graph_status(&comm->tp);
#ifdef GHZ_WITH_CUDA
        ghz_coll_backend_cuda_leave(previous);
#endif
        return st;
    }
}

ghz_status_t ghz_comm_info(const ghz_comm_t* comm, ghz_coll_info_t* info)
{
    size_t n;
    ghz_clear_detail();
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
        cur.auto_min_bytes = comm->auto_min;
        memcpy(info, &cur, n);
    }
    return GHZ_SUCCESS;
}
