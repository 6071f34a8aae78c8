/* ghz/coll/coll_names.c: the static names of ops, algorithms and dtypes. */
#include "ghz/coll/coll.h"

const char* ghz_op_name(ghz_op_t op)
{
    switch (op) {
    case GHZ_OP_SUM: return "sum";
    case GHZ_OP_PROD: return "prod";
    case GHZ_OP_MAX: return "max";
    case GHZ_OP_MIN: return "min";
    case GHZ_OP_AVG: return "avg";
    case GHZ_OP_LAND: return "land";
    case GHZ_OP_LOR: return "lor";
    case GHZ_OP_LXOR: return "lxor";
    case GHZ_OP_BAND: return "band";
    case GHZ_OP_BOR: return "bor";
    case GHZ_OP_BXOR: return "bxor";
    }
    return "unknown";
}

const char* ghz_algo_name(ghz_algo_t algo)
{
    switch (algo) {
    case GHZ_ALGO_AUTO: return "auto";
    case GHZ_ALGO_RING: return "ring";
    case GHZ_ALGO_RECURSIVE_DOUBLING: return "recursive_doubling";
    case GHZ_ALGO_PAIRWISE: return "pairwise";
    case GHZ_ALGO_BINOMIAL: return "binomial";
    case GHZ_ALGO_TWO_LEVEL: return "two_level";
    case GHZ_ALGO_TWO_LEVEL_MULTI: return "two_level_multi";
    case GHZ_ALGO_IPC_DIRECT: return "ipc_direct";
    case GHZ_ALGO_MPI: return "mpi";
    case GHZ_ALGO_NCCL: return "nccl";
    case GHZ_ALGO_LINEAR: return "linear";
    }
    return "unknown";
}

const char* ghz_dtype_name(ghz_dtype_t dtype)
{
    switch (dtype) {
    case GHZ_F32: return "float";
    case GHZ_F64: return "double";
    case GHZ_I8: return "int8";
    case GHZ_U8: return "uint8";
    case GHZ_I16: return "int16";
    case GHZ_U16: return "uint16";
    case GHZ_I32: return "int32";
    case GHZ_U32: return "uint32";
    case GHZ_I64: return "int64";
    case GHZ_U64: return "uint64";
    }
    return "unknown";
}
