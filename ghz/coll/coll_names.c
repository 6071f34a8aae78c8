/* ghz/coll/coll_names.c: the name functions, made from their tables (detail/names.h). */
#include "ghz/coll/coll.h"
#include "ghz/coll/detail/names.h"

#define NAME_FUNCTION(fn, type, TABLE)          \
    const char* fn(type v)                      \
    {                                           \
        switch (v) { TABLE(COLL_NAME_CASE) }    \
        return "unknown";                       \
    }

NAME_FUNCTION(ghz_op_name, ghz_op_t, COLL_OPS)
NAME_FUNCTION(ghz_algo_name, ghz_algo_t, COLL_ALGOS)
NAME_FUNCTION(ghz_dtype_name, ghz_dtype_t, COLL_DTYPES)
NAME_FUNCTION(ghz_transport_name, ghz_transport_t, COLL_TRANSPORTS)
NAME_FUNCTION(ghz_path_name, ghz_path_t, COLL_PATHS)
NAME_FUNCTION(coll_call_name, int64_t, COLL_CALLS)
