/* ghz/coll/detail/names.h: the names of the enumerations, each written once as X(value,
 * "name"), for the name functions, GHZ_COLL_TRANSPORT and COLL.md's Names (coll.tables). */
#ifndef GHZ_COLL_DETAIL_NAMES_H
#define GHZ_COLL_DETAIL_NAMES_H

#include "ghz/coll/coll.h"

#define COLL_OPS(X)                                                                                                \
    X(GHZ_OP_SUM, "sum") X(GHZ_OP_PROD, "prod") X(GHZ_OP_MAX, "max") X(GHZ_OP_MIN, "min") X(GHZ_OP_AVG, "avg")     \
    X(GHZ_OP_LAND, "land") X(GHZ_OP_LOR, "lor") X(GHZ_OP_LXOR, "lxor") X(GHZ_OP_BAND, "band") X(GHZ_OP_BOR, "bor") \
    X(GHZ_OP_BXOR, "bxor")

#define COLL_ALGOS(X)                                                                                          \
    X(GHZ_ALGO_AUTO, "auto") X(GHZ_ALGO_RING, "ring") X(GHZ_ALGO_RECURSIVE_DOUBLING, "recursive_doubling")     \
    X(GHZ_ALGO_PAIRWISE, "pairwise") X(GHZ_ALGO_BINOMIAL, "binomial") X(GHZ_ALGO_TWO_LEVEL, "two_level")       \
    X(GHZ_ALGO_TWO_LEVEL_MULTI, "two_level_multi") X(GHZ_ALGO_IPC_DIRECT, "ipc_direct") X(GHZ_ALGO_MPI, "mpi") \
    X(GHZ_ALGO_NCCL, "nccl") X(GHZ_ALGO_LINEAR, "linear")

#define COLL_DTYPES(X)                                                                                \
    X(GHZ_F32, "float") X(GHZ_F64, "double") X(GHZ_I8, "int8") X(GHZ_U8, "uint8") X(GHZ_I16, "int16") \
    X(GHZ_U16, "uint16") X(GHZ_I32, "int32") X(GHZ_U32, "uint32") X(GHZ_I64, "int64") X(GHZ_U64, "uint64")

#define COLL_TRANSPORTS(X)                                                                     \
    X(GHZ_TRANSPORT_AUTO, "auto") X(GHZ_TRANSPORT_MPI, "mpi") X(GHZ_TRANSPORT_CUDA_IPC, "ipc") \
    X(GHZ_TRANSPORT_NCCL, "nccl")

#define COLL_PATHS(X) X(GHZ_PATH_AUTO, "auto") X(GHZ_PATH_HOMO, "homo") X(GHZ_PATH_DOC, "doc") X(GHZ_PATH_RATIO, "ratio")

/* The calls, by the number the agreement compares (calls.h, coll_kind_t). */
#define COLL_CALLS(X)                                                                                        \
    X(1, "allreduce") X(2, "reduce") X(3, "reduce_scatter") X(32, "allgather") X(33, "allgatherv")           \
    X(34, "broadcast") X(36, "scatter") X(37, "scatterv") X(38, "gather") X(39, "gatherv") X(40, "alltoall") \
    X(41, "alltoallv")

#define COLL_NAME_CASE(value, name) \
    case value: return name;

const char* coll_call_name(int64_t number); /* by COLL_CALLS ("unknown": none) */

/* [value] = "name": values need not start at 0; one without a name stays NULL */
#define COLL_NAME_AT(value, name) [value] = name,

#endif
