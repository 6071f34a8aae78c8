/* ghz/coll/reduce_entry.c: a call's descriptor made and checked on this rank (a data
 * movement's sides: move_args.c). */
#include <stddef.h>
#include <stdint.h>

#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/coll/detail/reduce_ops.h"
#include "ghz/detail/error.h"

/* In place: MPI_IN_PLACE, sendbuf == recvbuf, or reduce_scatter's recvbuf at this rank's
 * block of sendbuf (NCCL's); the algorithms write the result after their last send. */
static ghz_status_t check_local(const ghz_comm_t* c, coll_desc_t* k)
{
    const size_t elem = ghz_dtype_size(k->dtype);
    const int needs_out = coll_has_out(c, k);
    const int in_place_mpi = k->sendbuf == coll_in_place || (k->sendbuf == k->recvbuf && !k->ops->per_rank);
    ghz_status_t st;
    if (elem && (st = ghz_coll_op_check(k->dtype, k->op)) != GHZ_SUCCESS) return st;
    if (k->sendbuf == coll_in_place && !needs_out && k->count)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_IN_PLACE on a non-root rank of a reduce");
    k->out = (unsigned char*)k->recvbuf;
    k->in = in_place_mpi && needs_out ? (const unsigned char*)k->recvbuf : (const unsigned char*)k->sendbuf;
    k->sends = 1;
    k->recvs = needs_out;
    k->send = (coll_layout_t){NULL, NULL, k->count, !k->ops->per_rank};
    k->recv = (coll_layout_t){NULL, NULL, k->count, 1};
    k->in_place = (in_place_mpi && needs_out) ||
                  (k->ops->per_rank && (uintptr_t)k->out == (uintptr_t)k->in + (uintptr_t)c->rank * k->count * elem);
    st = coll_check_args(c, k, coll_call_name(k->kind),
                         k->ops->per_rank ? "MPI_IN_PLACE, or recvbuf == sendbuf + rank * recvcount"
                                          : "MPI_IN_PLACE, or sendbuf == recvbuf");
    if (st != GHZ_SUCCESS) return st;
    k->total = k->ops->per_rank ? k->count * (size_t)c->size : k->count;
    if (k->acc && k->op != GHZ_OP_SUM && k->op != GHZ_OP_AVG && k->op != GHZ_OP_MIN && k->op != GHZ_OP_MAX)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "the lossy path takes sum, avg, min or max, not %s", ghz_op_name(k->op));
    if (k->acc && k->a.path == GHZ_PATH_RATIO)
        return ghz_fail(GHZ_ERR_UNSUPPORTED,
                        "GHZ_PATH_RATIO is for data movement: ratio frames are not combined (AUTO, HOMO or DOC)");
    return GHZ_SUCCESS;
}

ghz_status_t coll_desc_check(const ghz_comm_t* c, coll_desc_t* k)
{
    return k->mv ? coll_mv_check_local(c, k) : check_local(c, k);
}

coll_desc_t coll_make_call(coll_kind_t kind, const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                           ghz_op_t op, int root, const ghz_accuracy_t* acc, ghz_stream_t stream)
{
    const coll_desc_t k = {.kind = kind, .ops = coll_kind_ops(kind), .mv = coll_mv_kind_ops(kind),
                           .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .dtype = dtype, .op = op,
                           .root = root, .acc = acc, .stream = stream};
    return k;
}
