/* ghz/coll/coll.h: the collective library (libghzcoll, CMake target ghz::coll).
 *
 * MPI-like reductions over an MPI communicator, exact for every numeric type and op,
 * and lossy for f32/f64 SUM, AVG, MIN and MAX with a guaranteed bound on the error of
 * the FINAL result: every element of the result satisfies |result - exact| <= bound,
 * where exact is the reduction of the inputs in real arithmetic. ghz/coll/COLL.md
 * states the guarantee, proves it and lists its limits.
 *
 * Contracts common to every function here:
 *  - Every function returns a ghz_status_t (ghz/errors.h); ghz_last_error_detail()
 *    says more, in the calling thread.
 *  - ghz_comm_init agrees on the configuration in force on every rank (every field
 *    here, defaults and the environment's variables resolved: COLL.md, Environment)
 *    and refuses a difference with GHZ_ERR_MISMATCH on every rank.
 *  - Collective calls are made by every rank of the communicator, in the same order.
 *    Arguments that must agree (count, dtype, op, root, the accuracy) are checked
 *    across ranks before any data moves (ghz_comm_config_t.check_args, on by
 *    default): a rank with bad arguments returns its own error and every other rank
 *    returns GHZ_ERR_PEER (or GHZ_ERR_MISMATCH when the ranks disagree), and no rank
 *    hangs. The output buffers are not written when a call fails this check.
 *  - The communicator owns every buffer it needs, allocated once by ghz_comm_init;
 *    calls allocate nothing (large calls are processed in rounds that fit its pool),
 *    except the first call that runs a two-level algorithm (several nodes of several
 *    ranks), which makes the node's and the across-nodes child communicators.
 *  - One call at a time per communicator (like an MPI communicator in
 *    MPI_THREAD_SERIALIZED use). Different communicators are independent.
 *  - The stream argument is a cudaStream_t for the CUDA backend (device buffers): the
 *    call's work is ordered after the stream's earlier work and before its later work,
 *    as NCCL's is. The current device must be the one comm was made on (refused
 *    otherwise: GHZ_ERR_INVALID_ARG). Most calls wait for the GPU inside (a host MPI,
 *    sizes only the GPU knows); exact calls over CUDA IPC and small exact calls may
 *    return with work still queued, so synchronise the stream before the host reads the
 *    result (COLL.md, CUDA backend). CUDA graphs: every rank may capture the same exact allreduce or
 *    reduce_scatter over the CUDA IPC transport (or any exact call of one rank) into a
 *    graph on its stream; each replay then meets the peers on the GPU, and every rank
 *    must replay its graph as many times, in the same order relative to its other
 *    calls on comm; a graph uses the communicator's buffers, so replays count as calls
 *    (one at a time per communicator) and end with it. Other captured calls are
 *    refused (GHZ_ERR_UNSUPPORTED) before anything is enqueued; capture on some ranks
 *    only is GHZ_ERR_MISMATCH. See ghz_comm_graph_status. The CPU backend takes NULL and returns when complete.
 *  - In place: pass sendbuf == recvbuf (NCCL's convention; for reduce_scatter the NCCL
 *    form is recvbuf == sendbuf + rank * recvcount elements), or MPI_IN_PLACE as
 *    sendbuf (MPI's: the input is then read from recvbuf). Input and output that
 *    overlap in any other way are refused (GHZ_ERR_INVALID_ARG on that rank, as any
 *    bad argument), as are counts whose buffer would exceed PTRDIFF_MAX bytes.
 * Usable from C99/C11 and C++, without <mpi.h>: a communicator is made over MPI with
 * ghz_comm_init (ghz/coll/coll_mpi.h; builds with MPI), or without MPI from a unique id
 * that the program passes to its ranks itself (ghz_coll_get_unique_id,
 * ghz_comm_init_rank; NCCL builds), as torchrun- or JAX-launched programs do with NCCL's.
 */
#ifndef GHZ_COLL_COLL_H
#define GHZ_COLL_COLL_H

#include "ghz/types.h"
#include "ghz/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CUDA stream without including CUDA: the same type as cudaStream_t. */
struct CUstream_st;
typedef struct CUstream_st* ghz_stream_t;

/* Opaque communicator. */
typedef struct ghz_comm ghz_comm_t;

/* Reduction operators. The first five have NCCL's names and values (ncclRedOp_t), so
 * mapping is 1:1; the rest are MPI's. Values are pinned. */
typedef enum {
    GHZ_OP_SUM = 0,
    GHZ_OP_PROD = 1,
    GHZ_OP_MAX = 2,
    GHZ_OP_MIN = 3,
    GHZ_OP_AVG = 4,  /* SUM divided by the rank count; f32 and f64 only */
    GHZ_OP_LAND = 5, /* logical and, or, xor: the result is 0 or 1; integer types only */
    GHZ_OP_LOR = 6,
    GHZ_OP_LXOR = 7,
    GHZ_OP_BAND = 8, /* bitwise and, or, xor: integer types only */
    GHZ_OP_BOR = 9,
    GHZ_OP_BXOR = 10
} ghz_op_t;

/* Algorithms. Values are pinned. Which collective takes which: COLL.md, Algorithms. */
typedef enum {
    GHZ_ALGO_AUTO = 0,               /* chosen per call by size, rank count and ratio */
    GHZ_ALGO_RING = 1,               /* allreduce: ring reduce-scatter + ring allgather;
                                        reduce_scatter: ring; allgather(v); broadcast:
                                        a pipelined chain in ring order */
    GHZ_ALGO_RECURSIVE_DOUBLING = 2, /* allreduce; non-powers of two fold in first */
    GHZ_ALGO_PAIRWISE = 3,           /* reduce_scatter: pairwise exchange, one n-ary
                                        combine; allreduce: that + ring allgather;
                                        alltoall(v): pairwise exchange */
    GHZ_ALGO_BINOMIAL = 4,           /* reduce, broadcast: binomial tree; gather(v),
                                        scatter(v): binomial tree of packed blocks */
    GHZ_ALGO_TWO_LEVEL = 5,          /* allreduce over nodes: exact reduce to one leader
                                        per node, the lossy allreduce among leaders only,
                                        exact broadcast inside the node */
    GHZ_ALGO_TWO_LEVEL_MULTI = 6,    /* allreduce over nodes of equal size: exact
                                        reduce-scatter inside the node, every local rank
                                        leads its slice across nodes, exact allgather */
    GHZ_ALGO_IPC_DIRECT = 7,         /* allreduce, reduce_scatter over CUDA IPC: every
                                        rank publishes its input (compressed) once, reads
                                        its segment from every peer's memory and combines
                                        it in one pass (lossy: the n-ary homomorphic sum;
                                        sum and avg), then reads every segment's result
                                        from its owner. Exact: asynchronous to the host */
    GHZ_ALGO_MPI = 8,                /* allreduce, exact, CPU backend: the MPI library's own
                                        MPI_Allreduce, for the ops whose rules are ghz's
                                        (float sum, prod and avg; integer ops but 8- and
                                        16-bit sums and products: COLL.md); the
                                        agreement still comes first. AUTO takes it up to
                                        GHZ_COLL_MPI_MAX bytes per rank (default 4 MiB;
                                        0: never). The data-movement calls (below): the
                                        MPI library's own call for exact calls on the CPU
                                        backend, by the same limit per block */
    GHZ_ALGO_NCCL = 9,               /* allreduce, reduce, reduce_scatter over the NCCL
                                        transport (the only algorithm there but the
                                        two-level ones, which a lossy allreduce over
                                        several nodes takes, NCCL in every stage). Exact: NCCL's
                                        own collective on the caller's stream. Lossy: every
                                        rank compresses each segment once and sends it to
                                        its owner (ncclSend/ncclRecv), the owner combines
                                        the N frames in one n-ary homomorphic pass and
                                        sends the result frame to every rank that needs it
                                        (COLL.md, NCCL); the data-movement calls there:
                                        NCCL's own calls exact, compressed blocks through
                                        ncclSend/ncclRecv lossy */
    GHZ_ALGO_LINEAR = 10             /* scatter, gather: the root sends to (receives from)
                                        every other rank directly */
} ghz_algo_t;

/* How a communicator's messages move between ranks (COLL.md, Transports). Values are
 * pinned. */
typedef enum {
    GHZ_TRANSPORT_AUTO = 0,     /* the environment's GHZ_COLL_TRANSPORT ("mpi", "ipc" or
                                   "nccl"; the last two apply to CUDA-backend
                                   communicators only); else, on the CUDA backend, NCCL
                                   where the library has it and every rank has a GPU of
                                   its own (NCCL takes one rank per GPU), else MPI */
    GHZ_TRANSPORT_MPI = 1,      /* MPI point-to-point (host-staged on the CUDA backend
                                   unless the MPI is CUDA-aware) */
    GHZ_TRANSPORT_CUDA_IPC = 2, /* CUDA backend, every rank on one node: data moves GPU to
                                   GPU through CUDA IPC mappings of the peers' wire pools;
                                   MPI carries only small control messages */
    GHZ_TRANSPORT_NCCL = 3      /* CUDA backend, one rank per GPU, NCCL builds: NCCL moves
                                   every byte (NVLink, PCIe, sockets or InfiniBand, as NCCL
                                   chooses) and runs the exact calls itself (COLL.md, NCCL) */
} ghz_transport_t;

/* How a lossy call compresses. Values are pinned. */
typedef enum {
    GHZ_PATH_AUTO = 0,  /* the algorithm's natural form (COLL.md) */
    GHZ_PATH_HOMO = 1,  /* compress once, combine compressed data with ghz/homo,
                           decompress once (ghZCCL) */
    GHZ_PATH_DOC = 2,   /* decompress, operate, recompress at each step (gZCCL) */
    GHZ_PATH_RATIO = 3  /* data movement only: the codec's ratio frames (RATIO.md, one
                           dimension), smaller than HOMO's for a slower codec (COLL.md,
                           Data movement); reductions refuse it (GHZ_ERR_UNSUPPORTED) */
} ghz_path_t;

/* The accuracy of a lossy collective: a bound on the error of the FINAL result.
 * Pass NULL instead for the exact (uncompressed) path. Initialise with
 * GHZ_ACCURACY_INIT; fields are only ever appended (struct_size). */
typedef struct {
    size_t struct_size; /* sizeof(ghz_accuracy_t) as the caller compiled it */
    ghz_eb_mode_t mode; /* GHZ_EB_ABS: |result - exact| <= bound, element by element.
                           GHZ_EB_REL: <= bound * (max - min), max and min over the
                           finite values of every rank's input */
    double bound;       /* finite, > 0; the same on every rank */
    ghz_path_t path;    /* GHZ_PATH_AUTO, HOMO, DOC or (data movement) RATIO */
} ghz_accuracy_t;

#define GHZ_ACCURACY_INIT { sizeof(ghz_accuracy_t), GHZ_EB_REL, 1e-4, GHZ_PATH_AUTO }

/* Communicator configuration. Initialise with GHZ_COMM_CONFIG_INIT or
 * ghz_comm_config_init(); fields are only ever appended (struct_size). */
typedef struct {
    size_t struct_size;             /* sizeof(ghz_comm_config_t) as compiled */
    ghz_exec_t backend;             /* where compute runs: GHZ_EXEC_CPU (host buffers) or
                                       GHZ_EXEC_CUDA (device buffers; CUDA builds) */
    ghz_algo_t allreduce_algo;      /* GHZ_ALGO_AUTO or a named algorithm */
    ghz_algo_t reduce_scatter_algo;
    ghz_algo_t reduce_algo;
    size_t pool_bytes;              /* workspace allocated once by ghz_comm_init;
                                       0 = the default (64 MiB; CUDA: 256 MiB of device
                                       memory and as much again for values over CUDA
                                       IPC and NCCL, 64 MiB each and a pinned host
                                       mirror of it over MPI). Calls larger than it
                                       fits run in rounds. */
    size_t chunk_bytes;             /* pipeline chunk in uncompressed bytes: messages are
                                       at most this large so transfers and compute
                                       overlap; 0 = the default (1 MiB; CUDA: 8 MiB,
                                       32 MiB where ranks share a GPU; CUDA over CUDA
                                       IPC: 64 MiB) */
    int check_args;                 /* nonzero (default): agree on every call's arguments
                                       across ranks before moving data (COLL.md, Errors,
                                       says what it costs). Lossy calls always agree. */
    int nthreads;                   /* CPU backend compute threads (OpenMP builds):
                                       0 = all, 1 = serial (default) */
    int ranks_per_node;             /* the two-level algorithms' nodes: 0 = the
                                       environment's GHZ_COLL_RANKS_PER_NODE where set,
                                       else the ranks that share memory
                                       (MPI_COMM_TYPE_SHARED); n > 0 = ranks [k n, (k+1) n)
                                       form node k (to test on one machine; an explicit n
                                       wins over the environment) */
    ghz_transport_t transport;      /* how messages move: GHZ_TRANSPORT_AUTO (default),
                                       MPI or CUDA_IPC (CUDA backend, every rank on one
                                       node). With two levels, the node stage uses this
                                       transport and the stage across nodes MPI */
} ghz_comm_config_t;

#define GHZ_COMM_CONFIG_INIT                                                         \
    { sizeof(ghz_comm_config_t), GHZ_EXEC_CPU, GHZ_ALGO_AUTO, GHZ_ALGO_AUTO,         \
      GHZ_ALGO_AUTO, 0, 0, 1, 1, 0, GHZ_TRANSPORT_AUTO }

/* Fills *config with the defaults of GHZ_COMM_CONFIG_INIT. */
GHZ_API void ghz_comm_config_init(ghz_comm_config_t* config);

/* A communicator's rendezvous without MPI (NCCL builds): NCCL's unique id. One rank
 * makes it with ghz_coll_get_unique_id and the program gives the same bytes to every
 * rank (a file, a TCP store, torch.distributed's broadcast). */
#define GHZ_COLL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[GHZ_COLL_UNIQUE_ID_BYTES];
} ghz_coll_unique_id_t;

/* A new unique id (NCCL's ncclGetUniqueId). GHZ_ERR_UNSUPPORTED without NCCL. */
GHZ_API ghz_status_t ghz_coll_get_unique_id(ghz_coll_unique_id_t* id);

/* Creates rank `rank` of a communicator of nranks ranks without MPI (collective over
 * the nranks callers, one per GPU, each with the current CUDA device set to its GPU):
 * the CUDA backend over the NCCL transport, every control message through NCCL too.
 * config may be NULL (defaults); its backend must be GHZ_EXEC_CUDA (the default here)
 * and its transport AUTO or NCCL. Every buffer the communicator will use is allocated
 * here. GHZ_ERR_UNSUPPORTED without NCCL. The MPI entry, ghz_comm_init, is in
 * ghz/coll/coll_mpi.h. */
GHZ_API ghz_status_t ghz_comm_init_rank(int nranks, const ghz_coll_unique_id_t* id, int rank,
                                        const ghz_comm_config_t* config, ghz_comm_t** comm);

/* Releases a communicator (collective over its ranks); NULL is accepted. A broken
 * communicator (below) is released as ghz_comm_abort does: without waiting for peers.
 * CUDA backend: waits for the communicator's own work still queued (not the device's:
 * finish the replays of captured calls first), on the device it was made on, which it
 * makes current for the while and then restores. */
GHZ_API ghz_status_t ghz_comm_destroy(ghz_comm_t* comm);

/* Releases a communicator at once, on this rank alone (no barrier, no message to the
 * peers; NCCL's ncclCommAbort): its outstanding messages are cancelled and it frees what
 * it can (memory the peers may still map, over CUDA IPC, is left to the process's end).
 * For a communicator that is broken or whose peers may be gone. NULL is accepted. */
GHZ_API ghz_status_t ghz_comm_abort(ghz_comm_t* comm);

/* Whether comm is broken (NCCL's ncclCommGetAsyncError): *async_error is GHZ_SUCCESS
 * while it is usable, else the status of the failure that broke it. A communicator
 * breaks when a call fails after its data started to move (a transport, backend or
 * peer failure mid-call; COLL.md, Errors): every later call then returns an error at
 * once, and only ghz_comm_abort, ghz_comm_destroy and the queries remain valid.
 * Failures found before any data moves (bad or mismatched arguments) do not break it. */
GHZ_API ghz_status_t ghz_comm_get_async_error(const ghz_comm_t* comm, ghz_status_t* async_error);

/* This rank and the rank count of comm. */
GHZ_API ghz_status_t ghz_comm_rank(const ghz_comm_t* comm, int* rank);
GHZ_API ghz_status_t ghz_comm_size(const ghz_comm_t* comm, int* size);

/* The configuration comm runs with: the one it was made with, every default resolved
 * (pool, chunk, transport). Set config->struct_size first (GHZ_COMM_CONFIG_INIT): only
 * that many bytes are written. */
GHZ_API ghz_status_t ghz_comm_config(const ghz_comm_t* comm, ghz_comm_config_t* config);

/* recvbuf[i] = op over ranks of sendbuf[i], i < count, on every rank. Exact when acc is
 * NULL; lossy (f32/f64 with SUM, AVG, MIN, MAX) within acc's bound otherwise. Every rank
 * receives the same bits. */
GHZ_API ghz_status_t ghz_allreduce(const void* sendbuf, void* recvbuf, size_t count,
                                   ghz_dtype_t dtype, ghz_op_t op, const ghz_accuracy_t* acc,
                                   ghz_comm_t* comm, ghz_stream_t stream);

/* As ghz_allreduce, the result on root only (recvbuf is ignored on other ranks and may
 * be NULL there). */
GHZ_API ghz_status_t ghz_reduce(const void* sendbuf, void* recvbuf, size_t count,
                                ghz_dtype_t dtype, ghz_op_t op, int root,
                                const ghz_accuracy_t* acc, ghz_comm_t* comm,
                                ghz_stream_t stream);

/* sendbuf holds size * recvcount elements; rank r receives elements
 * [r * recvcount, (r + 1) * recvcount) of the reduction in recvbuf. */
GHZ_API ghz_status_t ghz_reduce_scatter(const void* sendbuf, void* recvbuf, size_t recvcount,
                                        ghz_dtype_t dtype, ghz_op_t op,
                                        const ghz_accuracy_t* acc, ghz_comm_t* comm,
                                        ghz_stream_t stream);

/* ---- Data movement ------------------------------------------------------------------
 * Allgather, broadcast, scatter, gather and alltoall, and the v forms with MPI's counts
 * and displacements (in elements, as size_t). Exact for every dtype when acc is NULL.
 * Lossy for f32/f64: every value is compressed once on its way (no arithmetic), so every
 * element a rank receives from another rank satisfies |received - sent| <= bound (ABS:
 * acc->bound; REL: acc->bound * (max - min) over the finite values of the data every
 * rank sends in the call, agreed); NaN and infinities arrive bit for bit; a rank's own
 * block is copied exactly. acc->path: HOMO and DOC compress (alike); RATIO sends the
 * codec's ratio frames (smaller, for more codec time); AUTO compresses where N blocks
 * reach the threshold fixed at init (ghz_coll_info_t.auto_min_bytes; COLL.md), with
 * ratio frames where the link timed at init is slower than their codec (COLL.md, Data
 * movement). A piece that does not compress travels raw: the wire never carries
 * more than the raw bytes (COLL.md, Data movement). Arguments that must agree (counts,
 * dtype, root, accuracy; the v forms' counts pair by pair) are checked across ranks
 * before data moves, as for the reductions.
 * In place: MPI_IN_PLACE as MPI allows it (allgather(v), gather(v) at the root, alltoall(v):
 * as sendbuf; scatter(v) at the root: as recvbuf), or NCCL's forms (allgather: sendbuf
 * == recvbuf + rank * count; broadcast, alltoall: sendbuf == recvbuf; gather at the root:
 * sendbuf == recvbuf + root * count). */

/* recvbuf[r * count + i] = rank r's sendbuf[i], on every rank. */
GHZ_API ghz_status_t ghz_allgather(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                                   const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream);

/* recvbuf[i] = root's sendbuf[i] on every rank (sendbuf is read on root only; NULL
 * elsewhere is fine). */
GHZ_API ghz_status_t ghz_broadcast(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, int root,
                                   const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream);

/* recvbuf[i] = root's sendbuf[rank * count + i] (sendbuf is read on root only). */
GHZ_API ghz_status_t ghz_scatter(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, int root,
                                 const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream);

/* root's recvbuf[r * count + i] = rank r's sendbuf[i] (recvbuf is written on root only). */
GHZ_API ghz_status_t ghz_gather(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, int root,
                                const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream);

/* recvbuf[r * count + i] = rank r's sendbuf[rank * count + i]. */
GHZ_API ghz_status_t ghz_alltoall(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                                  const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream);

/* recvbuf[displs[r] + i] = rank r's sendbuf[i], i < recvcounts[r]; sendcount must equal
 * recvcounts[rank]; recvcounts the same on every rank, displs this rank's own. */
GHZ_API ghz_status_t ghz_allgatherv(const void* sendbuf, void* recvbuf, size_t sendcount,
                                    const size_t* recvcounts, const size_t* displs, ghz_dtype_t dtype,
                                    const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream);

/* root's recvbuf[displs[r] + i] = rank r's sendbuf[i], i < sendcount of rank r, which
 * must equal root's recvcounts[r] (recvcounts, displs read on root only). */
GHZ_API ghz_status_t ghz_gatherv(const void* sendbuf, void* recvbuf, size_t sendcount, const size_t* recvcounts,
                                 const size_t* displs, ghz_dtype_t dtype, int root, const ghz_accuracy_t* acc,
                                 ghz_comm_t* comm, ghz_stream_t stream);

/* recvbuf[i] = root's sendbuf[displs[rank] + i], i < recvcount, which must equal root's
 * sendcounts[rank] (sendcounts, displs read on root only). */
GHZ_API ghz_status_t ghz_scatterv(const void* sendbuf, void* recvbuf, const size_t* sendcounts,
                                  const size_t* displs, size_t recvcount, ghz_dtype_t dtype, int root,
                                  const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream);

/* recvbuf[rdispls[r] + i] = rank r's sendbuf[its sdispls[rank] + i], i < recvcounts[r],
 * which must equal rank r's sendcounts[rank]. MPI_IN_PLACE: recvcounts and rdispls
 * describe both sides (sendcounts and sdispls are ignored). */
GHZ_API ghz_status_t ghz_alltoallv(const void* sendbuf, void* recvbuf, const size_t* sendcounts,
                                   const size_t* sdispls, const size_t* recvcounts, const size_t* rdispls,
                                   ghz_dtype_t dtype, const ghz_accuracy_t* acc, ghz_comm_t* comm,
                                   ghz_stream_t stream);

/* What the last successful collective call on comm did, and totals since ghz_comm_init.
 * Initialise struct_size (GHZ_COLL_INFO_INIT). */
typedef struct {
    size_t struct_size;
    ghz_algo_t algo;        /* the algorithm that ran */
    ghz_path_t path;        /* GHZ_PATH_HOMO, DOC or RATIO for a lossy call that
                               compressed; AUTO for exact */
    int lossy;              /* nonzero when the call was lossy */
    double bound_abs;       /* the final-result bound in absolute units (REL resolved) */
    double eb_abs;          /* the absolute bound each compression used */
    double error_terms;     /* K of COLL.md: bound_abs >= K * eb_abs + rounding */
    uint64_t logical_bytes; /* uncompressed bytes this rank sent (counted as if exact) */
    uint64_t wire_bytes;    /* bytes this rank actually sent */
    uint64_t rounds;        /* rounds the call took to fit the pool */
    uint64_t allocations;   /* buffers allocated by the communicator since init: calls
                               add none (tested) */
    /* Where this rank's time went in the last call, in seconds of wall clock (each
     * backend operation timed to its completion): compression, combining (homomorphic
     * or exact), decompression, staging copies between device and host (CUDA backend),
     * and the whole call. The rest of the total is waiting for messages. */
    double time_compress, time_combine, time_decompress, time_stage, time_total;
    ghz_transport_t transport; /* the communicator's transport (AUTO resolved) */
    /* A compressed call over NCCL: seconds of the GPU's time (CUDA events on the call's
     * stream) spent moving frames and their sizes; time_compress, time_combine and
     * time_decompress are then the GPU's time of those kernels too, and the rest of
     * time_total is the host's (launches, waits). 0 elsewhere. */
    double time_transfer;
    /* Lossy GHZ_PATH_AUTO calls of at least this many bytes per rank compress, smaller
     * ones run exact: a size fixed when the communicator was made, the same on every
     * rank (COLL.md, AUTO); SIZE_MAX: none does. */
    size_t auto_min_bytes;
} ghz_coll_info_t;

#define GHZ_COLL_INFO_INIT { sizeof(ghz_coll_info_t), GHZ_ALGO_AUTO, GHZ_PATH_AUTO, 0, 0.0, \
                             0.0, 0.0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, GHZ_TRANSPORT_AUTO, 0.0, 0 }

GHZ_API ghz_status_t ghz_comm_info(const ghz_comm_t* comm, ghz_coll_info_t* info);

/* Whether every replayed collective of comm found its peers: a captured call's fence
 * waits for them on the GPU for at most GHZ_GRAPH_FENCE_TIMEOUT_S seconds (environment,
 * 60 by default), then gives up, leaves that replay's result undefined and makes later
 * replays stop waiting. GHZ_ERR_PEER (detail: which rank) once that has happened on this
 * rank; GHZ_SUCCESS otherwise, and always for communicators without captured calls'
 * fences (CPU backend, MPI transport). Reads one word of device memory (on its own
 * stream, the communicator's device made current for the while); call it after
 * synchronising the stream the graphs run on. */
GHZ_API ghz_status_t ghz_comm_graph_status(ghz_comm_t* comm);

/* Static names, never NULL ("unknown" for values this version does not know): the
 * words COLL.md's Names lists, GHZ_COLL_TRANSPORT takes and ghz-coll-bench reads. */
GHZ_API const char* ghz_op_name(ghz_op_t op);
GHZ_API const char* ghz_algo_name(ghz_algo_t algo);
GHZ_API const char* ghz_dtype_name(ghz_dtype_t dtype);
GHZ_API const char* ghz_transport_name(ghz_transport_t transport);
GHZ_API const char* ghz_path_name(ghz_path_t path);

#ifdef __cplusplus
}
#endif
#endif
