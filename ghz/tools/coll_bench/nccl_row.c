/* ghz/tools/coll_bench/nccl_row.c: NCCL's own collectives (see nccl_row.h). */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "nccl_row.h"

struct cb_nccl {
    ncclComm_t comm;
};

int cb_nccl_open(cb_nccl_t** out, MPI_Comm mpi, char* err, size_t errlen)
{
    cb_nccl_t* n;
    ncclUniqueId id;
    ncclResult_t r = ncclSuccess;
    int rank, nranks, ok;
    *out = NULL;
    MPI_Comm_rank(mpi, &rank);
    MPI_Comm_size(mpi, &nranks);
    memset(&id, 0, sizeof id);
    if (rank == 0) r = ncclGetUniqueId(&id);
    ok = r == ncclSuccess;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, mpi);
    if (!ok) {
        snprintf(err, errlen, "ncclGetUniqueId failed on rank 0");
        return -1;
    }
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, mpi);
    n = (cb_nccl_t*)calloc(1, sizeof *n);
    if (!n) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r = ncclCommInitRank(&n->comm, nranks, id, rank);
    if (r != ncclSuccess) {
        snprintf(err, errlen, "ncclCommInitRank: %s", ncclGetErrorString(r));
        free(n);
        return -1;
    }
    *out = n;
    return 0;
}

void cb_nccl_close(cb_nccl_t* n)
{
    if (!n) return;
    ncclCommDestroy(n->comm);
    free(n);
}

static int nccl_type(ghz_dtype_t t, ncclDataType_t* out)
{
    switch (t) {
    case GHZ_F32: *out = ncclFloat32; return 1;
    case GHZ_F64: *out = ncclFloat64; return 1;
    case GHZ_I8: *out = ncclInt8; return 1;
    case GHZ_U8: *out = ncclUint8; return 1;
    case GHZ_I32: *out = ncclInt32; return 1;
    case GHZ_U32: *out = ncclUint32; return 1;
    case GHZ_I64: *out = ncclInt64; return 1;
    case GHZ_U64: *out = ncclUint64; return 1;
    default: return 0;
    }
}

static int nccl_op(ghz_op_t op, ncclRedOp_t* out)
{
    switch (op) {
    case GHZ_OP_SUM: *out = ncclSum; return 1;
    case GHZ_OP_PROD: *out = ncclProd; return 1;
    case GHZ_OP_MAX: *out = ncclMax; return 1;
    case GHZ_OP_MIN: *out = ncclMin; return 1;
    case GHZ_OP_AVG: *out = ncclAvg; return 1;
    default: return 0;
    }
}

/* The data movement, values as bytes; in place in NCCL's forms (the bench's in-place
 * buffers put the input where they are: allgather at this rank's block, gather at the
 * root's, scatter's root reads its blocks from the start and keeps its own in place). */
static int nccl_move(cb_nccl_t* n, cb_call_t* c, size_t esz, cudaStream_t s)
{
    const cb_args_t* a = c->a;
    const size_t bytes = c->count * esz, mine = (size_t)c->rank * bytes, roots = (size_t)a->root * bytes;
    unsigned char* w = (unsigned char*)c->work;
    ncclResult_t r;
    switch (a->coll) {
    case CB_ALLGATHER:
        r = c->in_place ? ncclAllGather(w + mine, w, bytes, ncclUint8, n->comm, s)
                        : ncclAllGather(c->send, c->recv, bytes, ncclUint8, n->comm, s);
        break;
    case CB_BROADCAST:
        r = c->in_place ? ncclBroadcast(w, w, bytes, ncclUint8, a->root, n->comm, s)
                        : ncclBroadcast(c->send, c->recv, bytes, ncclUint8, a->root, n->comm, s);
        break;
    case CB_GATHER:
        r = c->in_place ? ncclGather(c->rank == a->root ? w + roots : w, w, bytes, ncclUint8, a->root, n->comm, s)
                        : ncclGather(c->send, c->recv, bytes, ncclUint8, a->root, n->comm, s);
        break;
    case CB_SCATTER:
        r = c->in_place ? ncclScatter(w, c->rank == a->root ? w + roots : w, bytes, ncclUint8, a->root, n->comm, s)
                        : ncclScatter(c->send, c->recv, bytes, ncclUint8, a->root, n->comm, s);
        break;
    default:
        /* (refused before the timing: cb_nccl_has) */
        r = ncclAlltoAll(c->send, c->recv, bytes, ncclUint8, n->comm, s);
        break;
    }
    if (r != ncclSuccess) {
        snprintf(c->err, sizeof c->err, "NCCL: %s", ncclGetErrorString(r));
        return 1;
    }
    return 0;
}

int cb_nccl_has(const cb_args_t* a, int in_place)
{
    return !(in_place && a->coll == CB_ALLTOALL);
}

int cb_nccl_run(cb_nccl_t* n, cb_call_t* c)
{
    const cb_args_t* a = c->a;
    const size_t esz = ghz_dtype_size(a->dtype);
    const void* in = c->in_place ? c->work : c->send;
    void* out = c->in_place ? c->work : c->recv;
    cudaStream_t s = (cudaStream_t)c->stream;
    ncclDataType_t t;
    ncclRedOp_t op;
    ncclResult_t r;
    if (cb_coll_moves(a->coll)) return nccl_move(n, c, esz, s);
    if (!nccl_type(a->dtype, &t) || !nccl_op(a->op, &op)) {
        snprintf(c->err, sizeof c->err, "NCCL has no %s %s", ghz_dtype_name(a->dtype), ghz_op_name(a->op));
        return 1;
    }
    switch (a->coll) {
    case CB_ALLREDUCE: r = ncclAllReduce(in, out, c->count, t, op, n->comm, s); break;
    case CB_REDUCE: r = ncclReduce(in, out, c->count, t, op, a->root, n->comm, s); break;
    default:
        /* in place is NCCL's own form: the result at this rank's block of the input */
        if (c->in_place) out = (unsigned char*)c->work + (size_t)c->rank * c->count * esz;
        r = ncclReduceScatter(in, out, c->count, t, op, n->comm, s);
        break;
    }
    if (r != ncclSuccess) {
        snprintf(c->err, sizeof c->err, "NCCL: %s", ncclGetErrorString(r));
        return 1;
    }
    return 0;
}
