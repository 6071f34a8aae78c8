/* ghz/coll/algo_mpi.c: GHZ_ALGO_MPI, the MPI library's own calls; the v forms' exchange of counts. */
#include <stddef.h>

#include "ghz/coll/detail/comm_mpi.h"
#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* MPI_DATATYPE_NULL: an unknown dtype. */
static MPI_Datatype mpi_dtype(ghz_dtype_t t)
{
    const MPI_Datatype types[] = {[0] = MPI_DATATYPE_NULL, [GHZ_F32] = MPI_FLOAT, [GHZ_F64] = MPI_DOUBLE,
                                  [GHZ_I8] = MPI_INT8_T, [GHZ_U8] = MPI_UINT8_T, [GHZ_I16] = MPI_INT16_T,
                                  [GHZ_U16] = MPI_UINT16_T, [GHZ_I32] = MPI_INT32_T, [GHZ_U32] = MPI_UINT32_T,
                                  [GHZ_I64] = MPI_INT64_T, [GHZ_U64] = MPI_UINT64_T};
    return (unsigned)t < sizeof types / sizeof types[0] ? types[t] : MPI_DATATYPE_NULL;
}

/* Why GHZ_ALGO_MPI cannot run the call (NULL: it can; *op: MPI's op). Only the ops whose
 * rules MPI shares with ghz (reduce_ops.h); float sums stay within the exact path's bound. */
static const char* refusal(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m, MPI_Op* op)
{
    const MPI_Op ops[] = {[GHZ_OP_SUM] = MPI_SUM,   [GHZ_OP_PROD] = MPI_PROD, [GHZ_OP_MAX] = MPI_MAX,
                          [GHZ_OP_MIN] = MPI_MIN,   [GHZ_OP_AVG] = MPI_SUM,   [GHZ_OP_LAND] = MPI_LAND,
                          [GHZ_OP_LOR] = MPI_LOR,   [GHZ_OP_LXOR] = MPI_LXOR, [GHZ_OP_BAND] = MPI_BAND,
                          [GHZ_OP_BOR] = MPI_BOR,   [GHZ_OP_BXOR] = MPI_BXOR};
    if (m != COLL_EXACT) return "runs exact calls only";
    if (c->cfg.backend != GHZ_EXEC_CPU)
        return "takes host buffers (a CUDA communicator's small exact calls reach it through the host path)";
    if (mpi_dtype(k->dtype) == MPI_DATATYPE_NULL) return "an unknown dtype";
    if ((unsigned)k->op >= sizeof ops / sizeof ops[0]) return "an unknown op";
    if ((k->op == GHZ_OP_MIN || k->op == GHZ_OP_MAX) && (k->dtype == GHZ_F32 || k->dtype == GHZ_F64))
        return "float min and max: a NaN operand's result is ghz's rule, not MPI's";
    if ((k->op == GHZ_OP_SUM || k->op == GHZ_OP_PROD) && ghz_dtype_size(k->dtype) <= 2)
        return "8- and 16-bit integer sums and products: Open MPI 4.1's AVX reductions saturate where "
               "ghz wraps (open-mpi/ompi#8045; seen here on 4.1.6)";
    if (op) *op = ops[k->op];
    return NULL;
}

const char* coll_mpi_refusal(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m)
{
    return refusal(c, k, m, NULL);
}

/* In pieces of at most 2^30 elements: MPI's counts are ints. */
ghz_status_t coll_mpi_allreduce(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* proto)
{
    const size_t e = ghz_dtype_size(k->dtype), piece = (size_t)1 << 30;
    const int in_place = k->in == k->out;
    MPI_Op op = MPI_OP_NULL;
    size_t off;
    refusal(c, k, COLL_EXACT, &op); /* check_algo passed */
    for (off = 0; off < k->count; off += piece) {
        const size_t n = k->count - off < piece ? k->count - off : piece;
        const int rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : (const void*)(k->in + off * e), k->out + off * e,
                                     (int)n, mpi_dtype(k->dtype), op, c->mpi->comm);
        if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Allreduce (GHZ_ALGO_MPI)");
    }
    proto->logical_bytes = k->count * e; /* what this rank gave MPI; its traffic is MPI's */
    proto->wire_bytes = k->count * e;
    return GHZ_SUCCESS;
}

ghz_status_t coll_mpi_move(ghz_comm_t* c, const coll_desc_t* k)
{
    const int N = c->size, n = (int)k->count, root = k->root;
    const MPI_Datatype dt = mpi_dtype(k->dtype);
    const MPI_Comm comm = c->mpi->comm;
    const void* in = k->in_place ? MPI_IN_PLACE : (const void*)k->in;
    void* out = k->kind == MV_SCATTER && k->in_place ? MPI_IN_PLACE : (void*)k->out;
    /* (the v forms' int arrays live in the per-call arrays: 2N ints fit in N size_t) */
    int *sc = (int*)c->seg_off, *sd = sc + N, *rc = (int*)c->seg_cnt, *rd = rc + N;
    int p, r = MPI_SUCCESS;
    for (p = 0; p < N && k->v; p++) {
        sc[p] = k->sends && !k->send.single ? (int)coll_lay_cnt(&k->send, p) : 0;
        sd[p] = k->sends && !k->send.single ? (int)coll_lay_displ(&k->send, p) : 0;
        rc[p] = k->recvs && !k->recv.single ? (int)coll_lay_cnt(&k->recv, p) : 0;
        rd[p] = k->recvs && !k->recv.single ? (int)coll_lay_displ(&k->recv, p) : 0;
    }
    switch (k->kind) {
    case MV_ALLGATHER:
        r = k->v ? MPI_Allgatherv(in, (int)k->send.count, dt, out, rc, rd, dt, comm)
                 : MPI_Allgather(in, n, dt, out, n, dt, comm);
        break;
    case MV_BCAST: r = MPI_Bcast(out, n, dt, root, comm); break;
    case MV_SCATTER:
        r = k->v ? MPI_Scatterv(k->in, sc, sd, dt, out, (int)k->recv.count, dt, root, comm)
                 : MPI_Scatter(k->in, n, dt, out, n, dt, root, comm);
        break;
    case MV_GATHER:
        r = k->v ? MPI_Gatherv(in, (int)k->send.count, dt, out, rc, rd, dt, root, comm)
                 : MPI_Gather(in, n, dt, out, n, dt, root, comm);
        break;
    case MV_ALLTOALL:
        r = k->v ? MPI_Alltoallv(in, sc, sd, dt, out, rc, rd, dt, comm) : MPI_Alltoall(in, n, dt, out, n, dt, comm);
        break;
    default: return ghz_fail(GHZ_ERR_UNSUPPORTED, "internal: kind %d has no MPI call", (int)k->kind);
    }
    return r == MPI_SUCCESS ? GHZ_SUCCESS : ghz_coll_mpi_fail(r, coll_mv_name(k));
}

ghz_status_t coll_mpi_counts(ghz_comm_t* c, const size_t* mine, int alltoall, size_t* got)
{
    const MPI_Datatype T = sizeof(size_t) == 8 ? MPI_UINT64_T : MPI_UINT32_T;
    const int rc = alltoall ? MPI_Alltoall(mine, 1, T, got, 1, T, c->mpi->comm)
                            : MPI_Allgather(mine, 1, T, got, 1, T, c->mpi->comm);
    return rc == MPI_SUCCESS ? GHZ_SUCCESS : ghz_coll_mpi_fail(rc, "the v counts' exchange");
}
