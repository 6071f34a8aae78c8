/* ghz/coll/detail/nccl_state.h: what the files of the NCCL transport share (nccl/).
 * Private; includes <nccl.h>, so only they include it. */
#ifndef GHZ_COLL_DETAIL_NCCL_STATE_H
#define GHZ_COLL_DETAIL_NCCL_STATE_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "ghz/coll/detail/backend_cuda.h"
#include "ghz/coll/detail/nccl.h"

struct coll_nccl {
    ncclComm_t comm;
    int device;             /* the CUDA device the communicator was made on */
    cudaStream_t ctl_stream; /* control allreduces and the calibration */
    int have_stream;
    int64_t* d_ctl;         /* a control allreduce's words, on the device and pinned */
    int64_t* h_ctl;
    unsigned char* h_rec;   /* pinned: every rank's record of a round (coll_nccl_records) */
    size_t rec_bytes;       /* its capacity */
    /* the current call's bytes before and after compression, over every rank (phase 1
     * of every round): the ratio AUTO keeps, the same on every rank */
    double call_raw, call_wire;
    /* the phases of a compressed round on the GPU (algo_nccl.c) */
    cudaEvent_t ev[8];
    int have_ev;
};

/* A rank's record of one phase of a round: the sizes (uint64) of the frames it wrote
 * for each of N segments of P pieces, then their statuses (int). */
static inline size_t coll_nccl_rec_bytes(int nranks, size_t pieces)
{
    const size_t k = (size_t)nranks * pieces;
    return coll_align16(k * 8) + coll_align16(k * 4);
}

static inline int* coll_nccl_rec_status(unsigned char* rec, int nranks, size_t pieces)
{
    return (int*)(rec + coll_align16((size_t)nranks * pieces * 8));
}

/* Gathers every rank's record of a phase (mine: this rank's, on the device) into every
 * rank's h_rec with one ncclAllGather, read once by the host; then the first failure
 * any rank's kernels wrote: this rank's own (`what` naming the step), or GHZ_ERR_PEER
 * naming the rank. Every rank takes part whatever its status st (its own failure so
 * far, which it reports in its record's first status), so that no rank sends to, or
 * waits for, one that failed. */
ghz_status_t coll_nccl_records(ghz_comm_t* c, unsigned char* mine, unsigned char* all, size_t pieces,
                               ghz_status_t st, cudaStream_t stream, const char* what);

/* An NCCL failure as the call's status (GHZ_ERR_NCCL, NCCL's text in the detail). */
static inline ghz_status_t coll_nccl_fail(ncclResult_t r, const char* what)
{
    return ghz_fail(GHZ_ERR_NCCL, "%s: %s", what, ncclGetErrorString(r));
}

static inline ghz_status_t coll_nccl_ok(ncclResult_t r, const char* what)
{
    return r == ncclSuccess ? GHZ_SUCCESS : coll_nccl_fail(r, what);
}

/* Ends a group whose calls returned r: the first failure of the two. */
static inline ncclResult_t coll_nccl_group_end(ncclResult_t r)
{
    const ncclResult_t e = ncclGroupEnd();
    return r == ncclSuccess ? e : r;
}

#endif
