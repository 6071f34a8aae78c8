/* ghz/coll/entry.c: the public calls: each makes its call's descriptor for the runner. */
#include "ghz/coll/detail/plan.h"

/* One call; lay: a v form's counts and displacements of both sides. */
static ghz_status_t run(coll_kind_t kind, const void* sendbuf, void* recvbuf, size_t count,
                        const size_t* const lay[4], ghz_dtype_t dtype, ghz_op_t op, int root,
                        const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    coll_desc_t k = coll_make_call(kind, sendbuf, recvbuf, count, dtype, op, root, acc, stream);
    k.v = lay != NULL;
    if (lay) {
        k.scnt = lay[0];
        k.sdis = lay[1];
        k.rcnt = lay[2];
        k.rdis = lay[3];
    }
    return coll_run(comm, &k);
}

ghz_status_t ghz_allreduce(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, ghz_op_t op,
                           const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(KIND_ALLREDUCE, sendbuf, recvbuf, count, NULL, dtype, op, 0, acc, comm, stream);
}

ghz_status_t ghz_reduce(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, ghz_op_t op, int root,
                        const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(KIND_REDUCE, sendbuf, recvbuf, count, NULL, dtype, op, root, acc, comm, stream);
}

ghz_status_t ghz_reduce_scatter(const void* sendbuf, void* recvbuf, size_t recvcount, ghz_dtype_t dtype, ghz_op_t op,
                                const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(KIND_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, NULL, dtype, op, 0, acc, comm, stream);
}

ghz_status_t ghz_allgather(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                           const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(MV_ALLGATHER, sendbuf, recvbuf, count, NULL, dtype, GHZ_OP_SUM, 0, acc, comm, stream);
}

ghz_status_t ghz_broadcast(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, int root,
                           const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(MV_BCAST, sendbuf, recvbuf, count, NULL, dtype, GHZ_OP_SUM, root, acc, comm, stream);
}

ghz_status_t ghz_scatter(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, int root,
                         const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(MV_SCATTER, sendbuf, recvbuf, count, NULL, dtype, GHZ_OP_SUM, root, acc, comm, stream);
}

ghz_status_t ghz_gather(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, int root,
                        const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(MV_GATHER, sendbuf, recvbuf, count, NULL, dtype, GHZ_OP_SUM, root, acc, comm, stream);
}

ghz_status_t ghz_alltoall(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                          const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(MV_ALLTOALL, sendbuf, recvbuf, count, NULL, dtype, GHZ_OP_SUM, 0, acc, comm, stream);
}

ghz_status_t ghz_allgatherv(const void* sendbuf, void* recvbuf, size_t sendcount, const size_t* recvcounts,
                            const size_t* displs, ghz_dtype_t dtype, const ghz_accuracy_t* acc, ghz_comm_t* comm,
                            ghz_stream_t stream)
{
    return run(MV_ALLGATHER, sendbuf, recvbuf, sendcount, (const size_t* const[4]){NULL, NULL, recvcounts, displs},
               dtype, GHZ_OP_SUM, 0, acc, comm, stream);
}

ghz_status_t ghz_gatherv(const void* sendbuf, void* recvbuf, size_t sendcount, const size_t* recvcounts,
                         const size_t* displs, ghz_dtype_t dtype, int root, const ghz_accuracy_t* acc,
                         ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(MV_GATHER, sendbuf, recvbuf, sendcount, (const size_t* const[4]){NULL, NULL, recvcounts, displs},
               dtype, GHZ_OP_SUM, root, acc, comm, stream);
}

ghz_status_t ghz_scatterv(const void* sendbuf, void* recvbuf, const size_t* sendcounts, const size_t* displs,
                          size_t recvcount, ghz_dtype_t dtype, int root, const ghz_accuracy_t* acc,
                          ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(MV_SCATTER, sendbuf, recvbuf, recvcount, (const size_t* const[4]){sendcounts, displs, NULL, NULL},
               dtype, GHZ_OP_SUM, root, acc, comm, stream);
}

ghz_status_t ghz_alltoallv(const void* sendbuf, void* recvbuf, const size_t* sendcounts, const size_t* sdispls,
                           const size_t* recvcounts, const size_t* rdispls, ghz_dtype_t dtype,
                           const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    return run(MV_ALLTOALL, sendbuf, recvbuf, 0, (const size_t* const[4]){sendcounts, sdispls, recvcounts, rdispls},
               dtype, GHZ_OP_SUM, 0, acc, comm, stream);
}
