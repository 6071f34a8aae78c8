/* ghz/coll/nccl/nccl_comm.c: the NCCL communicator of a ghz communicator, its control
 * plane, the timer of AUTO's calibration, and the records of a round's phases
 * (detail/nccl.h; COLL.md, NCCL). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/agree_shm.h"
#include "ghz/coll/detail/backend_cuda.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/nccl_state.h"
#include "ghz/detail/error.h"

/* The calibration's exact allreduce: untimed and timed calls. */
#define CAL_WARMUP 2
#define CAL_TIMED 5
/* Words of one control allreduce (agree.c needs a few dozen). */
#define CTL_WORDS 256

ghz_status_t ghz_coll_get_unique_id(ghz_coll_unique_id_t* id)
{
    ncclUniqueId u;
    ncclResult_t r;
    ghz_clear_detail();
    if (!id) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL id");
    r = ncclGetUniqueId(&u);
    if (r != ncclSuccess) return coll_nccl_fail(r, "ncclGetUniqueId");
    memset(id, 0, sizeof *id);
    memcpy(id->internal, u.internal, sizeof u.internal < sizeof id->internal ? sizeof u.internal : sizeof id->internal);
    return GHZ_SUCCESS;
}

/* w[0..nw) = the maximum over ranks, through NCCL: the agreements' allreduce of a
 * communicator made without MPI (agree.c). */
static ghz_status_t nccl_ctl_max(ghz_comm_t* c, int64_t* w, int nw)
{
    coll_nccl_t* n = c->nccl;
    const size_t bytes = (size_t)nw * sizeof *w;
    ncclResult_t r;
    cudaError_t e;
    if (!n || !n->comm) return ghz_fail(GHZ_ERR_INVALID_ARG, "internal: no NCCL communicator");
    if (nw > CTL_WORDS) return ghz_fail(GHZ_ERR_INVALID_ARG, "internal: %d control words", nw);
    memcpy(n->h_ctl, w, bytes);
    e = cudaMemcpyAsync(n->d_ctl, n->h_ctl, bytes, cudaMemcpyHostToDevice, n->ctl_stream);
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaMemcpyAsync (control)");
    r = ncclAllReduce(n->d_ctl, n->d_ctl, (size_t)nw, ncclInt64, ncclMax, n->comm, n->ctl_stream);
    if (r != ncclSuccess) return coll_nccl_fail(r, "ncclAllReduce (control)");
    e = cudaMemcpyAsync(n->h_ctl, n->d_ctl, bytes, cudaMemcpyDeviceToHost, n->ctl_stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(n->ctl_stream);
    if (e != cudaSuccess) return coll_cuda_fail(e, "control allreduce");
    memcpy(w, n->h_ctl, bytes);
    return GHZ_SUCCESS;
}

/* What a made NCCL communicator needs beside NCCL's: the control stream and buffers,
 * the records of a round, the phases' events. */
static ghz_status_t make_state(ghz_comm_t* c)
{
    coll_nccl_t* n = c->nccl;
    cudaError_t e = cudaStreamCreateWithFlags(&n->ctl_stream, cudaStreamNonBlocking);
    if (!c->ctl_max) c->ctl_max = nccl_ctl_max;
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaStreamCreateWithFlags");
    n->have_stream = 1;
    n->rec_bytes = (size_t)c->size * coll_nccl_rec_bytes(c->size, COLL_MAX_PIECES); /* every rank's, at most */
    if (cudaMalloc((void**)&n->d_ctl, CTL_WORDS * sizeof(int64_t)) != cudaSuccess ||
        cudaHostAlloc((void**)&n->h_ctl, CTL_WORDS * sizeof(int64_t), cudaHostAllocPortable) != cudaSuccess ||
        cudaHostAlloc((void**)&n->h_rec, n->rec_bytes, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return ghz_fail(GHZ_ERR_NOMEM, "NCCL control buffers");
    }
    c->allocations += 3;
    for (int i = 0; i < 8; i++)
        if (cudaEventCreate(&n->ev[i]) != cudaSuccess) return ghz_fail(GHZ_ERR_CUDA, "cudaEventCreate");
    n->have_ev = 1;
    return GHZ_SUCCESS;
}

ghz_status_t coll_nccl_create(ghz_comm_t* c, const ghz_coll_unique_id_t* id)
{
    coll_nccl_t* n;
    ncclUniqueId u;
    ncclResult_t r;
    cudaError_t e;
    int version = 0;
    memset(&u, 0, sizeof u);
    c->nccl = n = (coll_nccl_t*)calloc(1, sizeof *n);
    if (!n) return ghz_fail(GHZ_ERR_NOMEM, "NCCL state");
    c->allocations++;
    memcpy(u.internal, id->internal, sizeof u.internal);
    e = cudaGetDevice(&n->device);
    if (e != cudaSuccess) return coll_cuda_fail(e, "cudaGetDevice");
    ncclGetVersion(&version);
    if (version / 100 < NCCL_VERSION(NCCL_MAJOR, NCCL_MINOR, 0) / 100)
        return ghz_fail(GHZ_ERR_NCCL, "libnccl %d is older than the nccl.h this library was built with (%d)", version,
                        NCCL_VERSION_CODE);
    r = ncclCommInitRank(&n->comm, c->size, u, c->rank);
    if (r != ncclSuccess) {
        n->comm = NULL;
        return coll_nccl_fail(r, "ncclCommInitRank");
    }
    return make_state(c);
}

ghz_status_t coll_nccl_split(ghz_comm_t* p, ghz_comm_t* c, int color)
{
    coll_nccl_t* n = c ? (coll_nccl_t*)calloc(1, sizeof *n) : NULL;
    ncclComm_t comm = NULL;
    ncclResult_t r;
    /* (collective over p: a rank without a child still takes part, with no color) */
    r = ncclCommSplit(p->nccl->comm, n ? color : NCCL_SPLIT_NOCOLOR, p->rank, &comm, NULL);
    if (!c) return GHZ_ERR_PEER; /* (the caller's own failure stands) */
    if (!n) return ghz_fail(GHZ_ERR_NOMEM, "NCCL state");
    c->nccl = n;
    c->allocations++;
    if (r != ncclSuccess) return coll_nccl_fail(r, "ncclCommSplit");
    n->comm = comm;
    n->device = p->nccl->device;
    if ((r = ncclCommUserRank(comm, &c->rank)) != ncclSuccess || (r = ncclCommCount(comm, &c->size)) != ncclSuccess)
        return coll_nccl_fail(r, "ncclCommUserRank / ncclCommCount");
    return make_state(c);
}

void coll_nccl_destroy(ghz_comm_t* c, int abort)
{
    coll_nccl_t* n = c->nccl;
    if (!n) return;
    if (n->comm) {
        if (abort) ncclCommAbort(n->comm);
        else ncclCommDestroy(n->comm);
    }
    if (n->have_stream) cudaStreamDestroy(n->ctl_stream);
    for (int i = 0; n->have_ev && i < 8; i++) cudaEventDestroy(n->ev[i]);
    if (n->d_ctl) cudaFree(n->d_ctl);
    if (n->h_ctl) cudaFreeHost(n->h_ctl);
    if (n->h_rec) cudaFreeHost(n->h_rec);
    free(n);
    c->nccl = NULL;
    c->ctl_max = NULL;
}

ghz_status_t coll_nccl_agree_shm(ghz_comm_t* c, const ghz_coll_unique_id_t* id)
{
    ghz_status_t st;
    /* (the unique id is the job's own: the segment's name and nonce come from it) */
    c->shm = coll_shm_create_posix(c->rank, c->size, coll_shm_host_id(), id->internal, sizeof id->internal,
                                   coll_shm_wanted(), coll_ctl_max_ctx, c, &st);
    return st;
}

/* NCCL's exact allreduce over the pool (what it holds does not change NCCL's time),
 * timed by events on the control stream. */
ghz_status_t coll_nccl_time_allreduce(ghz_comm_t* c, size_t S, double* seconds)
{
    coll_nccl_t* n = c->nccl;
    cudaEvent_t e0 = NULL, e1 = NULL;
    ghz_status_t st = GHZ_SUCCESS;
    float ms = 0.0f;
    int i;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
        st = ghz_fail(GHZ_ERR_CUDA, "cudaEventCreate (calibration)");
    for (i = 0; i < CAL_WARMUP + CAL_TIMED && st == GHZ_SUCCESS; i++) {
        ncclResult_t r;
        if (i == CAL_WARMUP) cudaEventRecord(e0, n->ctl_stream);
        r = ncclAllReduce(c->pool, c->pool, S / 4, ncclFloat32, ncclSum, n->comm, n->ctl_stream);
        if (r != ncclSuccess) st = coll_nccl_fail(r, "ncclAllReduce (calibration)");
    }
    if (st == GHZ_SUCCESS) {
        cudaEventRecord(e1, n->ctl_stream);
        if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess)
            st = ghz_fail(GHZ_ERR_CUDA, "calibration timing");
    }
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    *seconds = ms * 1e-3 / CAL_TIMED;
    return st;
}

ghz_status_t coll_nccl_records(ghz_comm_t* c, unsigned char* mine, unsigned char* all, size_t pieces,
                               ghz_status_t st, cudaStream_t stream, const char* what)
{
    coll_nccl_t* n = c->nccl;
    const size_t k = (size_t)c->size * pieces, rec = coll_nccl_rec_bytes(c->size, pieces);
    ghz_status_t got;
    size_t i;
    int q;
    if (st != GHZ_SUCCESS) {
        const int s = (int)st;
        /* (the record may hold anything: the first status says this rank failed) */
        if (cudaMemcpyAsync(coll_nccl_rec_status(mine, c->size, pieces), &s, sizeof s, cudaMemcpyHostToDevice,
                            stream) != cudaSuccess)
            cudaGetLastError();
    }
    got = coll_nccl_ok(ncclAllGather(mine, all, rec, ncclUint8, n->comm, stream), "ncclAllGather (frame sizes)");
    if (got != GHZ_SUCCESS) return got;
    got = coll_cuda_ok(cudaMemcpyAsync(n->h_rec, all, (size_t)c->size * rec, cudaMemcpyDeviceToHost, stream),
                       "cudaMemcpyAsync (frame sizes)");
    if (got == GHZ_SUCCESS) got = coll_cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize (NCCL round)");
    if (st != GHZ_SUCCESS) return st;
    if (got != GHZ_SUCCESS) return got;
    for (q = 0; q < c->size; q++) {
        const int* s = coll_nccl_rec_status(n->h_rec + (size_t)q * rec, c->size, pieces);
        for (i = 0; i < k; i++) {
            const ghz_status_t f = (ghz_status_t)s[i];
            if (f == GHZ_SUCCESS) continue;
            if (q == c->rank) return ghz_fail(f, "%s on this rank's GPU: %s", what, ghz_status_string(f));
            return ghz_fail(GHZ_ERR_PEER, "rank %d failed (%s)", q, ghz_status_string(f));
        }
    }
    return GHZ_SUCCESS;
}

void coll_nccl_call_reset(ghz_comm_t* c)
{
    c->nccl->call_raw = c->nccl->call_wire = 0.0;
}

double coll_nccl_call_ratio(const ghz_comm_t* c)
{
    return c->nccl->call_wire > 0.0 ? c->nccl->call_raw / c->nccl->call_wire : 0.0;
}
