/* ghz/coll/detail/nccl_state.h: what the two files of the NCCL transport share
 * (nccl/nccl_comm.c makes it, nccl/algo_nccl.c runs calls with it). Private; includes
 * <nccl.h>, so only those files include it. */
#ifndef GHZ_COLL_DETAIL_NCCL_STATE_H
#define GHZ_COLL_DETAIL_NCCL_STATE_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "ghz/coll/detail/nccl.h"

struct coll_nccl {
    ncclComm_t comm;
    int device;             /* the CUDA device the communicator was made on */
    cudaStream_t ctl_stream; /* control allreduces and the calibration */
    int have_stream;
    int64_t* d_ctl;         /* a control allreduce's words, on the device and pinned */
    int64_t* h_ctl;
    unsigned char* h_rec;   /* pinned: every rank's record of a round (algo_nccl.c) */
    size_t rec_bytes;       /* its capacity */
    /* the current call's bytes before and after compression, over every rank (phase 1
     * of every round): the ratio AUTO keeps, the same on every rank */
    double call_raw, call_wire;
    /* the phases of a compressed round on the GPU (algo_nccl.c, NCCL_EV_*) */
    cudaEvent_t ev[8];
    int have_ev;
};

/* A rank's record of one phase of a round: the sizes (uint64) of the frames it wrote
 * for each of N segments of P pieces, then their statuses (int). Gathered from every
 * rank with ncclAllGather and read once by the host: what each receive must take, and
 * whether some rank failed. */
static inline size_t coll_nccl_rec_bytes(int nranks, size_t pieces)
{
    const size_t k = (size_t)nranks * pieces;
    return ((k * 8 + 15) & ~(size_t)15) + ((k * 4 + 15) & ~(size_t)15);
}

/* An NCCL failure as the call's status (GHZ_ERR_NCCL, NCCL's text in the detail). */
ghz_status_t coll_nccl_fail(int code, const char* what);

#endif
