/* ghz/coll/reduce_entry.c: ghz_allreduce, ghz_reduce and ghz_reduce_scatter: the call's
 * arguments, this rank's own checks of them, and what every call does first. The call
 * itself runs in collectives.c. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ghz/coll/detail/reduce_call.h"
#include "ghz/coll/detail/reduce_ops.h"
#include "ghz/detail/error.h"

ghz_status_t coll_read_accuracy(const ghz_accuracy_t* acc, ghz_dtype_t dtype, ghz_accuracy_t* out)
{
    ghz_accuracy_t d = GHZ_ACCURACY_INIT;
    if (acc->struct_size < offsetof(ghz_accuracy_t, path) + sizeof(ghz_path_t) ||
        acc->struct_size > (size_t)1 << 16)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_accuracy_t.struct_size %zu: use GHZ_ACCURACY_INIT",
                        acc->struct_size);
    memcpy(&d, acc, sizeof d < acc->struct_size ? sizeof d : acc->struct_size);
    *out = d;
    if (d.mode != GHZ_EB_ABS && d.mode != GHZ_EB_REL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown accuracy mode %d", (int)d.mode);
    if (!(d.bound > 0.0) || !isfinite(d.bound))
        return ghz_fail(GHZ_ERR_BAD_BOUND, "accuracy bound %g: must be finite and > 0", d.bound);
    if ((unsigned)d.path > GHZ_PATH_DOC)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown path %d", (int)d.path);
    if (dtype != GHZ_F32 && dtype != GHZ_F64)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "the lossy path takes float32 or float64, not %s",
                        ghz_dtype_name(dtype));
    return GHZ_SUCCESS;
}

static ghz_status_t read_accuracy(call_t* k)
{
    ghz_status_t st = coll_read_accuracy(k->acc, k->dtype, &k->a);
    if (st != GHZ_SUCCESS) return st;
    if (k->op != GHZ_OP_SUM && k->op != GHZ_OP_AVG && k->op != GHZ_OP_MIN && k->op != GHZ_OP_MAX)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "the lossy path takes sum, avg, min or max, not %s",
                        ghz_op_name(k->op));
    return GHZ_SUCCESS;
}

/* Whether the input [sendbuf, + total elements) and the output [recvbuf, + count
 * elements) share a byte, other than the in-place forms (NCCL's for reduce_scatter:
 * recvbuf at this rank's block of sendbuf). The algorithms read the input while they
 * write the output, so any other overlap would give wrong elements. */
static int overlap_not_in_place(const ghz_comm_t* c, const call_t* k, size_t elem)
{
    const uintptr_t in = (uintptr_t)k->sendbuf, out = (uintptr_t)k->recvbuf;
    const uintptr_t in_end = in + k->total * elem, out_end = out + k->count * elem;
    if (k->ops->per_rank && out == in + (uintptr_t)c->rank * k->count * elem) return 0;
    return in < out_end && out < in_end;
}

/* This rank's own checks, and where input and output are. */
static ghz_status_t check_local(const ghz_comm_t* c, call_t* k)
{
    const size_t elem = ghz_dtype_size(k->dtype);
    const int in_place_mpi = k->sendbuf == MPI_IN_PLACE ||
                             (k->sendbuf == k->recvbuf && !k->ops->per_rank);
    const int needs_out = coll_has_out(c, k);
    ghz_status_t st;
    if (!elem) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)k->dtype);
    st = ghz_coll_op_check(k->dtype, k->op);
    if (st != GHZ_SUCCESS) return st;
    if (k->acc && (st = read_accuracy(k)) != GHZ_SUCCESS) return st;
    if (k->ops->rooted && (k->root < 0 || k->root >= c->size))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "root %d of %d ranks", k->root, c->size);
    k->total = k->count;
    if (k->ops->per_rank) {
        if (k->count > SIZE_MAX / (size_t)c->size)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "recvcount %zu times %d ranks overflows", k->count,
                            c->size);
        k->total = k->count * (size_t)c->size;
    }
    /* (a buffer's byte size must be a valid pointer difference) */
    if (k->total > (size_t)PTRDIFF_MAX / elem)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "count %zu of %s: the buffer would exceed PTRDIFF_MAX bytes", k->total,
                        ghz_dtype_name(k->dtype));
    if (k->count == 0) return GHZ_SUCCESS;
    if (needs_out && !k->recvbuf) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL recvbuf");
    if (!k->sendbuf) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL sendbuf");
    if (k->sendbuf == MPI_IN_PLACE && !needs_out)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_IN_PLACE on a non-root rank of a reduce");
    if (needs_out && k->sendbuf != MPI_IN_PLACE && !in_place_mpi && overlap_not_in_place(c, k, elem))
        return ghz_fail(GHZ_ERR_INVALID_ARG,
                        "sendbuf and recvbuf overlap without being in place (in place: MPI_IN_PLACE, sendbuf "
                        "== recvbuf%s)",
                        k->ops->per_rank ? ", or recvbuf == sendbuf + rank * recvcount" : "");
    k->out = (unsigned char*)k->recvbuf;
    k->in = in_place_mpi && needs_out ? (const unsigned char*)k->recvbuf
                                      : (const unsigned char*)k->sendbuf;
    return GHZ_SUCCESS;
}

/* What every call does first: number it (the transport's messages carry the number),
 * check this rank's arguments, and refuse to move data on a broken communicator (a
 * checked call still meets the peers in the agreement, so that they return
 * GHZ_ERR_PEER instead of waiting). */
ghz_status_t coll_call_start(ghz_comm_t* c, call_t* k)
{
    ghz_status_t st;
    c->tp.seq = ++c->calls;
    c->moving = 0;
    st = check_local(c, k);
    return st == GHZ_SUCCESS ? coll_refuse_broken(c) : st;
}

ghz_status_t coll_refuse_broken(const ghz_comm_t* c)
{
    if (c->broken == GHZ_SUCCESS) return GHZ_SUCCESS;
    return ghz_fail(c->broken,
                    "the communicator is broken: an earlier call failed after its data started to move (%s); "
                    "destroy it (ghz_comm_abort or ghz_comm_destroy)",
                    ghz_status_string(c->broken));
}

/* The arguments of a call, as the entry points receive them. */
call_t coll_make_call(coll_kind_t kind, const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                        ghz_op_t op, int root, const ghz_accuracy_t* acc, ghz_stream_t stream)
{
    call_t k;
    memset(&k, 0, sizeof k);
    k.kind = kind;
    k.ops = coll_kind_ops(kind);
    k.sendbuf = sendbuf;
    k.recvbuf = recvbuf;
    k.count = count;
    k.dtype = dtype;
    k.op = op;
    k.root = root;
    k.acc = acc;
    k.stream = stream;
    return k;
}

ghz_status_t ghz_allreduce(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                           ghz_op_t op, const ghz_accuracy_t* acc, ghz_comm_t* comm,
                           ghz_stream_t stream)
{
    call_t k = coll_make_call(KIND_ALLREDUCE, sendbuf, recvbuf, count, dtype, op, 0, acc, stream);
    return coll_reduce_run(comm, &k);
}

ghz_status_t ghz_reduce(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                        ghz_op_t op, int root, const ghz_accuracy_t* acc, ghz_comm_t* comm,
                        ghz_stream_t stream)
{
    call_t k = coll_make_call(KIND_REDUCE, sendbuf, recvbuf, count, dtype, op, root, acc, stream);
    return coll_reduce_run(comm, &k);
}

/* NCCL's in place (recvbuf inside sendbuf at this rank's block) needs nothing: the
 * algorithms write the result only after their last send of the input. */
ghz_status_t ghz_reduce_scatter(const void* sendbuf, void* recvbuf, size_t recvcount,
                                ghz_dtype_t dtype, ghz_op_t op, const ghz_accuracy_t* acc,
                                ghz_comm_t* comm, ghz_stream_t stream)
{
    call_t k = coll_make_call(KIND_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, dtype, op, 0, acc, stream);
    return coll_reduce_run(comm, &k);
}

