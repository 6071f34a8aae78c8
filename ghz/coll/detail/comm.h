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
    ghz_status_t broken;     /* the failure after data started to move that broke it */
    uint64_t calls;          /* collective calls begun (tags: no call matches an earlier one's message) */
    int moving;              /* data started to move: a failure breaks the communicator (runner.c) */
    coll_backend_t be;
    coll_transport_t tp;
    /* The pool: one backend buffer, carved by each call (algo.h, coll_pool_*). */
    unsigned char* pool;     /* wire buffers (backend memory; with CUDA IPC, exported) */
    size_t pool_bytes;
    unsigned char* pool_raw; /* values, on staged backends (NULL: in pool) */
    int host_mirror;         /* messages go through pool_mirror: the wire memory is not the
                                host memory the transport takes */
    unsigned char* pool_mirror;
    /* Host arrays of `size` entries that algorithms need per call. */
    size_t* seg_off;         /* element offset of each segment in the input */
    size_t* seg_cnt;
    size_t* wire_size;       /* size * COLL_MAX_PIECES piece sizes */
    size_t* wire_tmp;        /* size entries */
    const void** wire_ptr;   /* size entries */
    coll_req_t* sreq;        /* 2 * size * COLL_MAX_PIECES outstanding sends and receives */
    coll_req_t* rreq;
    /* Two levels: `levels` where there are several nodes of several ranks; the children
     * (this rank's node; its local rank on every node) are made at the first call that
     * needs them (coll_comm_levels). node_color: one number per node. */
    int levels, node_color;
    ghz_comm_t* intra;
    ghz_comm_t* inter;
    struct coll_shm* shm;    /* the agreements' shared segment (agree_shm.h), or NULL */
    struct coll_nccl* nccl;  /* detail/nccl.h; NULL elsewhere */
    /* The agreements' allreduce where shm does not serve (MPI's, or NCCL's). */
    ghz_status_t (*ctl_max)(ghz_comm_t* c, int64_t* w, int n);
    /* The host path (host_path.c): exact calls up to small_bytes per rank, lossy AUTO
     * calls run exact up to small_auto_bytes (0: off). */
    ghz_comm_t* host;
    unsigned char *small_in, *small_out;
    size_t small_bytes, small_auto_bytes;
    size_t one_shot_bytes;   /* ipc_direct's one-shot limit (cuda/algo_direct.c); 0: none */
    size_t mpi_max;          /* AUTO exact CPU allreduce calls up to this call MPI_Allreduce (algo_mpi.c) */
    int nodes, local_rank, local_size, uniform_nodes;
    ghz_coll_info_t info;
    uint64_t allocations;
    double last_ratio;       /* compression ratio of the last lossy call (auto choice) */
    uint64_t lossy_calls;    /* lossy calls so far (the same on every rank) */
    size_t auto_min; /* GHZ_PATH_AUTO's threshold (auto_rule.h; SIZE_MAX: never compress) */
    int auto_ratio; /* lossy AUTO data movement sends ratio frames (coll_auto_ratio_frames) */
    int auto_trace;          /* GHZ_COLL_AUTO_TRACE */
    /* A staged lossy call's range: from the GPU's range kernel from this many bytes per
     * rank, below from a scan of the host copy (SIZE_MAX where ranks share a GPU). */
    size_t staged_range_gpu_min;
};

/* The least pool (comm_config.c checks it; the host path's and NCCL's node children take it). */
#define COLL_MIN_POOL ((size_t)1 << 16)

/* comm_config.c */
ghz_status_t coll_config_read(const ghz_comm_config_t* in, const coll_knobs_t* k, ghz_comm_config_t* out);
size_t coll_cuda_pool(ghz_transport_t transport, int shared);
size_t coll_cuda_chunk(ghz_transport_t transport, int shared);
ghz_transport_t coll_auto_transport(int shared, int single_node);

/* comm_buffers.c */
ghz_comm_t* coll_comm_new(void);
ghz_status_t coll_comm_alloc_buffers(ghz_comm_t* c);
uint64_t coll_comm_free_buffers(ghz_comm_t* c, int keep_pool);
ghz_status_t coll_comm_finish_init(ghz_comm_t* c, ghz_status_t st, ghz_comm_t** comm);
void coll_comm_release(ghz_comm_t* c, int local);
/* GHZ_COLL_DEBUG=INFO: the configuration in force on one line (comm_config.c). */
void coll_comm_describe(const ghz_comm_t* c);
typedef ghz_status_t (*coll_calibrate_fn)(ghz_comm_t* c);

/* MPI's part where the rest reaches it (without MPI: comm_no_mpi.c): a two-level child
 * (across 0: this rank's node; 1: its local rank on every node), and MPI_IN_PLACE. */
ghz_status_t coll_mpi_child(ghz_comm_t* c, int across, ghz_comm_t** out);
void coll_mpi_release(ghz_comm_t* c, int local);
extern void* const coll_in_place;

#endif
