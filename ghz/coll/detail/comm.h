/* ghz/coll/detail/comm.h: the communicator (private). */
#ifndef GHZ_COLL_DETAIL_COMM_H
#define GHZ_COLL_DETAIL_COMM_H

#include "ghz/coll/detail/backend.h"
#include "ghz/coll/detail/knobs.h"
#include "ghz/coll/detail/transport.h"

/* Where allocations are counted: every buffer the communicator owns comes from
 * comm_buffers.c, so ghz_coll_info_t.allocations proves calls allocate nothing. */
struct ghz_comm {
    struct coll_mpi* mpi;    /* MPI's part (detail/comm_mpi.h); NULL where made without MPI */
    int rank, size;
    ghz_comm_config_t cfg;   /* with defaults resolved */
    coll_knobs_t knobs;      /* the environment's, read at init (agreed where they shape calls) */
    ghz_status_t broken;     /* GHZ_SUCCESS, or the failure after data started to move
                                that broke it (ghz_comm_get_async_error) */
    uint64_t calls;          /* collective calls begun: the MPI transport's message tags
                                carry it, so no call matches an earlier call's message */
    int moving;              /* the current call's data has started to move: a failure
                                from here on breaks the communicator (runner.c) */
    coll_backend_t be;
    coll_transport_t tp;
    /* The pool: one backend buffer, carved by each call (algo.h, coll_pool_*). */
    unsigned char* pool;     /* wire buffers (backend memory; with CUDA IPC, exported) */
    size_t pool_bytes;
    unsigned char* pool_raw; /* values, on staged backends (NULL: in pool) */
    int host_mirror;         /* every message is copied through pool_mirror: the
                                backend's wire memory is not host memory (or the test
                                seam says to act so) and the transport takes host
                                memory only (MPI without CUDA awareness) */
    unsigned char* pool_mirror; /* with host_mirror: the host mirror of pool (pool_bytes) */
    /* Host arrays of `size` entries that algorithms need per call. */
    size_t* seg_off;         /* element offset of each segment in the input */
    size_t* seg_cnt;
    size_t* wire_size;       /* size * COLL_MAX_PIECES piece sizes */
    size_t* wire_tmp;        /* size entries */
    const void** wire_ptr;   /* size entries */
    coll_req_t* sreq;        /* 2 * size * max_pieces outstanding sends and receives */
    coll_req_t* rreq;
    size_t max_reqs;         /* entries of sreq and rreq */
    /* Two levels (comm_make.c): this rank's node, and the ranks of the same local rank on
     * every node. `levels`: there are several nodes of several ranks, so the two-level
     * algorithms apply; the children are then made at the first call that runs one
     * (coll_comm_levels), from the MPI communicators split at init (comm_mpi.h), or over
     * NCCL by splitting the NCCL communicator (node_color: the same number on every rank
     * of this node, another on every other node). NULL until then, and where levels is 0. */
    int levels, node_color;
    ghz_comm_t* intra;
    ghz_comm_t* inter;
    /* The agreements' shared segment where every rank is on one node (agree_shm.h), or
     * NULL: agreements then go through ctl_max. */
    struct coll_shm* shm;
    /* The NCCL transport (detail/nccl.h): its communicator and state; NULL elsewhere. */
    struct coll_nccl* nccl;
    /* The agreements' maximum over the ranks (agree.c, coll_ctl_max) where the shared
     * segment does not serve: set by what made the communicator (MPI's allreduce:
     * comm_make.c; without MPI, NCCL's small allreduce). */
    ghz_status_t (*ctl_max)(ghz_comm_t* c, int64_t* w, int n);
    /* Small exact calls of a CUDA communicator (host_path.c): a CPU
     * communicator over the same ranks and two pinned buffers of small_auto_bytes;
     * NULL elsewhere. Exact calls take it up to small_bytes per rank, lossy AUTO calls
     * that AUTO runs exact up to small_auto_bytes: at least COLL_AUTO_LOSSY_MIN_BYTES
     * (auto_rule.h), 0 when the host path is off (comm_make.c). */
    ghz_comm_t* host;
    unsigned char *small_in, *small_out;
    size_t small_bytes, small_auto_bytes;
    /* Exact allreduce rounds of ipc_direct of at most this many bytes per rank run in
     * one shot (cuda/algo_direct.c): every rank folds every peer's whole input. 0 where
     * the transport has no one-sided access. */
    size_t one_shot_bytes;
    /* Exact allreduce calls of at most this many bytes per rank, on the CPU backend and
     * with the AUTO algorithm, call MPI_Allreduce itself where its rules are ghz's
     * (algo_mpi.c, coll_mpi_refusal; GHZ_COLL_MPI_MAX, agreed; default 4 MiB: comm_make.c). */
    size_t mpi_max;
    int nodes, local_rank, local_size, uniform_nodes;
    ghz_coll_info_t info;
    uint64_t allocations;
    double last_ratio;       /* compression ratio of the last lossy call (auto choice) */
    uint64_t lossy_calls;    /* lossy calls so far (the same on every rank) */
    /* GHZ_PATH_AUTO's threshold, frozen at init and the same on every rank
     * (auto_rule.h): lossy AUTO calls of at least auto_min bytes per rank compress
     * (SIZE_MAX: none). The calibration behind it: an exact allreduce of auto_cal_bytes
     * per rank in auto_link_s seconds, the slowest rank's (0: none, pinned or one rank;
     * children of a two-level communicator and the host path's never decide a call). */
    size_t auto_min;
    double auto_link_s;
    size_t auto_cal_bytes;
    int auto_ratio; /* lossy AUTO data movement sends ratio frames (coll_auto_ratio_frames) */
    int auto_trace;        /* GHZ_COLL_AUTO_TRACE=1: rank 0 prints each AUTO decision; 2: and
                            * every lossy or staged call's times, phase by phase */
    /* Where a staged lossy call's range comes from: from this many bytes per rank on, the
     * GPU's range kernel, which makes the copy too (one kernel and one wait, with a GPU
     * per rank); below, a scan of the host copy (where ranks share a GPU, whose every
     * kernel costs a time slice, at every size: SIZE_MAX): plan.c, comm_make.c. */
    size_t staged_range_gpu_min;
};

/* The least pool (comm_config.c checks it; the host path's and NCCL's node children take it). */
#define COLL_MIN_POOL ((size_t)1 << 16)

/* comm_config.c: the configuration in force (the caller's fields, then the environment's,
 * then the defaults), and the CUDA backend's defaults for a transport and AUTO's transport. */
ghz_status_t coll_config_read(const ghz_comm_config_t* in, const coll_knobs_t* k, ghz_comm_config_t* out);
size_t coll_cuda_pool(ghz_transport_t transport, int shared);
size_t coll_cuda_chunk(ghz_transport_t transport, int shared);
ghz_transport_t coll_auto_transport(int shared, int single_node);

/* comm_buffers.c: a bare communicator (one allocation; auto_min: never), the pool and
 * per-call arrays, an init's end (c handed out, or released keeping the detail), the
 * release. */
ghz_comm_t* coll_comm_new(void);
ghz_status_t coll_comm_alloc_buffers(ghz_comm_t* c);
uint64_t coll_comm_free_buffers(ghz_comm_t* c, int keep_pool);
ghz_status_t coll_comm_finish_init(ghz_comm_t* c, ghz_status_t st, ghz_comm_t** comm);
void coll_comm_release(ghz_comm_t* c, int local);
/* GHZ_COLL_DEBUG=INFO: the configuration in force on one line (comm_config.c). */
void coll_comm_describe(const ghz_comm_t* c);
/* AUTO's calibration (calibrate.c), which comm_make.c runs through this pointer. */
typedef ghz_status_t (*coll_calibrate_fn)(ghz_comm_t* c);

/* MPI's part where the rest reaches it (without MPI: comm_no_mpi.c, which refuses):
 * a two-level child over the MPI communicator of this rank's node (across 0) or of its
 * local rank on every node (across 1), collective over it (comm_make.c); c->mpi freed
 * (NULL is fine; local: meeting no peer) and MPI_IN_PLACE, which without MPI is an
 * address no caller passes (transport_mpi.c). */
ghz_status_t coll_mpi_child(ghz_comm_t* c, int across, ghz_comm_t** out);
void coll_mpi_release(ghz_comm_t* c, int local);
extern void* const coll_in_place;

#endif
