/* ghz/coll/algo_mpi.c: GHZ_ALGO_MPI, the MPI library's own allreduce, and which calls
 * it can run. */
#include <stddef.h>

#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

MPI_Datatype coll_mpi_dtype(ghz_dtype_t dtype)
{
    switch (dtype) {
    case GHZ_F32: return MPI_FLOAT;
    case GHZ_F64: return MPI_DOUBLE;
    case GHZ_I8: return MPI_INT8_T;
    case GHZ_U8: return MPI_UINT8_T;
    case GHZ_I16: return MPI_INT16_T;
    case GHZ_U16: return MPI_UINT16_T;
    case GHZ_I32: return MPI_INT32_T;
    case GHZ_U32: return MPI_UINT32_T;
    case GHZ_I64: return MPI_INT64_T;
    case GHZ_U64: return MPI_UINT64_T;
    }
    return MPI_DATATYPE_NULL;
}

/* Why GHZ_ALGO_MPI cannot run the call (NULL: it can; then *dt and *op, when given, are
 * MPI's datatype and operation for it). It runs exact calls on the CPU backend, for the
 * ops whose rules MPI shares with ghz (reduce_ops.h): 32- and 64-bit integer ops wrap as
 * ghz's do (8- and 16-bit sums saturate in Open MPI 4.1's AVX op component: test_coll_mpi
 * caught it, open-mpi/ompi#8045 says it stays), the logical and bitwise ops agree, and
 * float sums and products are one IEEE operation each (in MPI's order, within the exact
 * path's (n + 2) u S of the true sum, like ghz's own algorithms); AVG is MPI's sum,
 * scaled by ghz as on every path. Float MIN and MAX are not MPI's: ghz defines the
 * result of a NaN operand (quieted NaN), MPI does not. */
const char* coll_mpi_refusal(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t m, MPI_Datatype* dt, MPI_Op* op)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Op o = MPI_OP_NULL;
    if (m != COLL_EXACT) return "runs exact calls only";
    if (c->cfg.backend != GHZ_EXEC_CPU)
        return "takes host buffers (a CUDA communicator's small exact calls reach it through the host path)";
    t = coll_mpi_dtype(k->dtype);
    if (t == MPI_DATATYPE_NULL) return "an unknown dtype";
    switch (k->op) {
    case GHZ_OP_SUM:
    case GHZ_OP_AVG: o = MPI_SUM; break;
    case GHZ_OP_PROD: o = MPI_PROD; break;
    case GHZ_OP_MAX: o = MPI_MAX; break;
    case GHZ_OP_MIN: o = MPI_MIN; break;
    case GHZ_OP_LAND: o = MPI_LAND; break;
    case GHZ_OP_LOR: o = MPI_LOR; break;
    case GHZ_OP_LXOR: o = MPI_LXOR; break;
    case GHZ_OP_BAND: o = MPI_BAND; break;
    case GHZ_OP_BOR: o = MPI_BOR; break;
    case GHZ_OP_BXOR: o = MPI_BXOR; break;
    default: return "an unknown op";
    }
    if ((k->op == GHZ_OP_MIN || k->op == GHZ_OP_MAX) && (k->dtype == GHZ_F32 || k->dtype == GHZ_F64))
        return "float min and max: a NaN operand's result is ghz's rule, not MPI's";
    if ((k->op == GHZ_OP_SUM || k->op == GHZ_OP_PROD) && ghz_dtype_size(k->dtype) <= 2)
        return "8- and 16-bit integer sums and products: Open MPI 4.1's AVX reductions saturate where "
               "ghz wraps (open-mpi/ompi#8045; seen here on 4.1.6)";
    if (dt) *dt = t;
    if (op) *op = o;
    return NULL;
}

/* GHZ_ALGO_MPI: MPI_Allreduce on the caller's buffers (MPI_IN_PLACE in place), in
 * pieces of at most 2^30 elements (MPI's counts are ints). */
ghz_status_t coll_mpi_allreduce(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* proto)
{
    const size_t e = ghz_dtype_size(k->dtype), piece = (size_t)1 << 30;
    const int in_place = k->in == k->out;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    size_t off;
    coll_mpi_refusal(c, k, COLL_EXACT, &dt, &op); /* check_algo passed */
    for (off = 0; off < k->count; off += piece) {
        const size_t n = k->count - off < piece ? k->count - off : piece;
        const int rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : (const void*)(k->in + off * e), k->out + off * e,
                                     (int)n, dt, op, c->mpi);
        if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Allreduce (GHZ_ALGO_MPI)");
    }
    proto->logical_bytes = k->count * e; /* what this rank gave MPI; its traffic is MPI's */
    proto->wire_bytes = k->count * e;
    return GHZ_SUCCESS;
}
