/* ghz/tools/coll_bench/calls.c: the calls themselves.
 *
 * In place follows each library's own convention: ghz takes NCCL's (sendbuf ==
 * recvbuf; reduce_scatter's recvbuf = sendbuf + rank * recvcount), MPI takes
 * MPI_IN_PLACE (reduce: at the root only; reduce_scatter_block: the result lands at
 * the start of the buffer). MPI has no AVG: its rows run SUM and scale by 1/n
 * afterwards, inside the timed call, exactly as ghz does (one binary64 product, one
 * rounding to the dtype).
 *
 * On the CUDA backend the MPI rows are what a user of an MPI without CUDA support
 * writes: the input copied from the device to a host buffer, the MPI call on host
 * buffers, the result copied back (AVG scaled on the host in between), all inside the
 * timed call. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "calls.h"
#include "cuda_bufs.h"
#include "nccl_row.h"

static MPI_Datatype mpi_dtype(ghz_dtype_t t)
{
    switch (t) {
    case GHZ_F32: return MPI_FLOAT;
    case GHZ_F64: return MPI_DOUBLE;
    case GHZ_I8: return MPI_INT8_T;
    case GHZ_U8: return MPI_UINT8_T;
    case GHZ_I16: return MPI_INT16_T;
    case GHZ_U16: return MPI_UINT16_T;
    case GHZ_I32: return MPI_INT32_T;
    case GHZ_U32: return MPI_UINT32_T;
    case GHZ_I64: return MPI_INT64_T;
    default: return MPI_UINT64_T;
    }
}

static MPI_Op mpi_op(ghz_op_t op)
{
    switch (op) {
    case GHZ_OP_PROD: return MPI_PROD;
    case GHZ_OP_MAX: return MPI_MAX;
    case GHZ_OP_MIN: return MPI_MIN;
    case GHZ_OP_LAND: return MPI_LAND;
    case GHZ_OP_LOR: return MPI_LOR;
    case GHZ_OP_LXOR: return MPI_LXOR;
    case GHZ_OP_BAND: return MPI_BAND;
    case GHZ_OP_BOR: return MPI_BOR;
    case GHZ_OP_BXOR: return MPI_BXOR;
    default: return MPI_SUM; /* SUM, and AVG before its scaling */
    }
}

static unsigned char* elem_at(void* base, size_t i, ghz_dtype_t t)
{
    return (unsigned char*)base + i * ghz_dtype_size(t);
}

/* AVG's last step on the MPI path: buf[i] = dtype(double(buf[i]) * (1/n)). AVG is
 * float32 and float64 only (args.c refuses it for other types, as ghz does). */
static void scale_avg(void* buf, size_t n, ghz_dtype_t t, int nranks)
{
    double s = 1.0 / nranks;
    size_t i;
    if (t == GHZ_F32)
        for (i = 0; i < n; ++i) ((float*)buf)[i] = (float)((double)((float*)buf)[i] * s);
    else if (t == GHZ_F64)
        for (i = 0; i < n; ++i) ((double*)buf)[i] *= s;
}

/* Does this rank receive a result (all but the non-roots of reduce and gather, and the
 * root of a scatter in place)? */
static int gets_result(const cb_call_t* c)
{
    const cb_coll_t k = c->a->coll;
    if (k == CB_SCATTER) return !c->in_place || c->rank != c->a->root;
    return (k != CB_REDUCE && k != CB_GATHER) || c->rank == c->a->root;
}

/* Where an in-place call's input sits in work (elements): the rank's block of an
 * allgather, the root's of a gather, else the start. */
static size_t in_place_at(const cb_call_t* c)
{
    if (c->a->coll == CB_ALLGATHER) return (size_t)c->rank * c->count;
    if (c->a->coll == CB_GATHER && c->rank == c->a->root) return (size_t)c->rank * c->count;
    return 0;
}

/* The MPI library's data-movement call on host buffers (in place as MPI allows it). */
static int mpi_move(cb_call_t* c, const void* send, void* out, MPI_Datatype dt)
{
    const cb_args_t* a = c->a;
    const int n = (int)c->count, root = a->root, is_root = c->rank == root;
    const void* in = c->in_place ? MPI_IN_PLACE : send;
    if (c->count > INT_MAX / (size_t)c->nranks) {
        snprintf(c->err, sizeof c->err, "count %zu exceeds MPI's int", c->count);
        return -1;
    }
    switch (a->coll) {
    case CB_ALLGATHER: return MPI_Allgather(in, n, dt, out, n, dt, c->mpi);
    case CB_BROADCAST:
        if (is_root && !c->in_place) memcpy(out, send, c->count * ghz_dtype_size(a->dtype));
        return MPI_Bcast(out, n, dt, root, c->mpi);
    case CB_SCATTER:
        return MPI_Scatter(c->in_place ? out : send, n, dt, c->in_place && is_root ? MPI_IN_PLACE : out, n, dt,
                           root, c->mpi);
    case CB_GATHER:
        return MPI_Gather(c->in_place && !is_root ? out : in, n, dt, out, n, dt, root, c->mpi);
    default: return MPI_Alltoall(in, n, dt, out, n, dt, c->mpi);
    }
}

/* The MPI call on host buffers: from send to out, or in place in out. */
static int mpi_host(cb_call_t* c, const void* send, void* out)
{
    const cb_args_t* a = c->a;
    MPI_Datatype dt = mpi_dtype(a->dtype);
    MPI_Op op = mpi_op(a->op);
    int n = (int)c->count, rc, root = a->root;
    int is_root = gets_result(c);
    const void* in = c->in_place ? MPI_IN_PLACE : send;
    if (c->count > INT_MAX) {
        snprintf(c->err, sizeof c->err, "count %zu exceeds MPI's int", c->count);
        return 1;
    }
    switch (a->coll) {
    case CB_ALLGATHER:
    case CB_BROADCAST:
    case CB_SCATTER:
    case CB_GATHER:
    case CB_ALLTOALL:
        rc = mpi_move(c, send, out, dt);
        if (rc < 0) return 1;
        break;
    case CB_ALLREDUCE: rc = MPI_Allreduce(in, out, n, dt, op, c->mpi); break;
    case CB_REDUCE:
        /* MPI_IN_PLACE is the root's alone; the others send from the buffer. */
        if (c->in_place && c->rank != root) in = out;
        rc = MPI_Reduce(in, is_root ? out : NULL, n, dt, op, root, c->mpi);
        break;
    default: rc = MPI_Reduce_scatter_block(in, out, n, dt, op, c->mpi); break;
    }
    if (rc != MPI_SUCCESS) {
        int len = 0;
        char msg[MPI_MAX_ERROR_STRING];
        MPI_Error_string(rc, msg, &len);
        snprintf(c->err, sizeof c->err, "MPI error: %s", msg);
        return 1;
    }
    if (a->op == GHZ_OP_AVG && is_root && !cb_coll_moves(a->coll)) scale_avg(out, c->count, a->dtype, c->nranks);
    return 0;
}

/* Device -> host staging -> MPI -> device. In place the one buffer stages both ways;
 * MPI's in-place reduce_scatter_block result sits at the start of it (as on the CPU). */
static int mpi_staged(cb_call_t* c)
{
    size_t esz = ghz_dtype_size(c->a->dtype);
    const int moves = cb_coll_moves(c->a->coll);
    const void* dev_in = c->in_place ? c->work : c->send;
    void* dev_out = c->in_place ? c->work : c->recv;
    void* host_in = c->in_place ? c->stage_recv : c->stage_send;
    /* (in place, the data movement's input sits inside the result's buffer: stage it all) */
    const size_t in = moves && c->in_place && c->out_elems > c->in_elems ? c->out_elems : c->in_elems;
    if (cb_cuda_copy(host_in, dev_in, in * esz, NULL, c->err, sizeof c->err) != 0 ||
        mpi_host(c, host_in, c->stage_recv) != 0)
        return 1;
    if (!gets_result(c)) return 0;
    return cb_cuda_copy(dev_out, c->stage_recv, (moves ? c->out_elems : c->count) * esz, NULL, c->err,
                        sizeof c->err) != 0;
}

static int run_mpi(cb_call_t* c)
{
    if (c->cuda) return mpi_staged(c);
    return mpi_host(c, c->send, c->in_place ? c->work : c->recv);
}

static int run_ghz(cb_call_t* c)
{
    const cb_args_t* a = c->a;
    const ghz_accuracy_t* acc = cb_path_lossy(c->path) ? &c->acc : NULL;
    const void* in = c->in_place ? c->work : c->send;
    void* out = c->in_place ? c->work : c->recv;
    ghz_status_t st;
    const int is_root = c->rank == a->root;
    switch (a->coll) {
    case CB_ALLGATHER:
        st = ghz_allgather(c->in_place ? MPI_IN_PLACE : in, out, c->count, a->dtype, acc, c->comm, c->stream);
        break;
    case CB_BROADCAST: st = ghz_broadcast(in, out, c->count, a->dtype, a->root, acc, c->comm, c->stream); break;
    case CB_SCATTER:
        st = ghz_scatter(in, c->in_place && is_root ? MPI_IN_PLACE : out, c->count, a->dtype, a->root, acc, c->comm,
                         c->stream);
        break;
    case CB_GATHER:
        st = ghz_gather(c->in_place && is_root ? MPI_IN_PLACE : in, out, c->count, a->dtype, a->root, acc, c->comm,
                        c->stream);
        break;
    case CB_ALLTOALL:
        st = ghz_alltoall(c->in_place ? MPI_IN_PLACE : in, out, c->count, a->dtype, acc, c->comm, c->stream);
        break;
    case CB_ALLREDUCE:
        st = ghz_allreduce(in, out, c->count, a->dtype, a->op, acc, c->comm, c->stream);
        break;
    case CB_REDUCE:
        st = ghz_reduce(in, out, c->count, a->dtype, a->op, a->root, acc, c->comm, c->stream);
        break;
    default:
        if (c->in_place) out = elem_at(c->work, (size_t)c->rank * c->count, a->dtype);
        st = ghz_reduce_scatter(in, out, c->count, a->dtype, a->op, acc, c->comm, c->stream);
        break;
    }
    if (st != GHZ_SUCCESS) {
        snprintf(c->err, sizeof c->err, "%s (%s)", ghz_status_string(st),
                 ghz_last_error_detail());
        return 1;
    }
    return 0;
}

int cb_call_run(cb_call_t* c)
{
    c->err[0] = '\0';
    if (c->graph) return cb_cuda_graph_launch(c->graph, c->stream, c->err, sizeof c->err);
    if (c->path == CB_PATH_NCCL) return cb_nccl_run(c->nccl, c);
    return cb_path_mpi(c->path) ? run_mpi(c) : run_ghz(c);
}

int cb_call_capture(cb_call_t* c)
{
    int rc, end;
    c->err[0] = '\0';
    rc = cb_cuda_capture_begin(c->stream, c->err, sizeof c->err);
    if (rc != 0) return rc;
    rc = run_ghz(c);
    /* the capture ends whatever happened: the stream must not stay in capture mode */
    end = cb_cuda_capture_end(c->stream, &c->graph, rc == 0 ? c->err : NULL, rc == 0 ? sizeof c->err : 0);
    if (rc == 0 && end != 0) rc = end;
    if (rc != 0) {
        cb_cuda_graph_free(c->graph);
        c->graph = NULL;
    }
    return rc;
}

void cb_call_release(cb_call_t* c)
{
    cb_cuda_graph_free(c->graph);
    c->graph = NULL;
}

int cb_call_reload(cb_call_t* c)
{
    size_t bytes = c->in_elems * ghz_dtype_size(c->a->dtype);
    void* at = elem_at(c->work, in_place_at(c), c->a->dtype);
    if (c->cuda) return cb_cuda_copy(at, c->send, bytes, c->stream, c->err, sizeof c->err);
    memcpy(at, c->send, bytes);
    return 0;
}

int cb_call_sync(cb_call_t* c)
{
    return c->cuda ? cb_cuda_sync(c->stream, c->err, sizeof c->err) : 0;
}

const void* cb_call_result(const cb_call_t* c, size_t* first, size_t* n)
{
    const cb_args_t* a = c->a;
    void* out = c->in_place ? c->work : c->recv;
    *first = 0;
    *n = cb_coll_moves(a->coll) ? c->out_elems : c->count;
    if (!gets_result(c)) {
        *n = 0;
        return NULL;
    }
    if (a->coll != CB_REDUCE_SCATTER) return out;
    *first = (size_t)c->rank * c->count;
    /* ghz's in-place result sits at the rank's own slice, MPI's at the start. */
    if (c->in_place && !cb_path_mpi(c->path)) return elem_at(out, *first, a->dtype);
    return out;
}
