/* ghz/tools/coll_bench/bench.h: what the parts of ghz-coll-bench share: the parsed
 * options, the paths a row can take, and the per-row results.
 *
 * ghz-coll-bench times ghz/coll next to the MPI library on the same data, with the
 * flags, timing and columns of nccl-tests (so rows sit beside NCCL's), and checks
 * every element of every result against a reference it computes itself. */
#ifndef GHZ_TOOLS_COLL_BENCH_BENCH_H
#define GHZ_TOOLS_COLL_BENCH_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "ghz/coll/coll_mpi.h"

#if defined(__GNUC__) || defined(__clang__)
#define CB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CB_PRINTF(f, a)
#endif

typedef enum {
    CB_ALLREDUCE = 0,
    CB_REDUCE = 1,
    CB_REDUCE_SCATTER = 2,
    /* the data-movement calls (moved.h): no op, the reference is the other ranks' input */
    CB_ALLGATHER = 3,
    CB_BROADCAST = 4,
    CB_SCATTER = 5,
    CB_GATHER = 6,
    CB_ALLTOALL = 7
} cb_coll_t;
#define CB_COLL_LAST CB_ALLTOALL

/* A data-movement call (no reduction)? */
static inline int cb_coll_moves(cb_coll_t c) { return c >= CB_ALLGATHER; }

/* Does the call take a root? */
static inline int cb_coll_rooted(cb_coll_t c)
{
    return c == CB_REDUCE || c == CB_BROADCAST || c == CB_SCATTER || c == CB_GATHER;
}

/* The ways one row reduces the data: ghz lossy on compressed data (HOMO), ghz lossy
 * decompress-operate-compress (DOC), ghz exact (acc NULL), and the MPI library. On
 * the CUDA backend the MPI rows stage the device buffers through host memory, as
 * users of an MPI without CUDA support do: pageable (MPI) or pinned (MPI_PINNED, a
 * CUDA-backend row only). */
typedef enum {
    CB_PATH_HOMO = 0,
    CB_PATH_DOC = 1,
    CB_PATH_EXACT = 2,
    CB_PATH_MPI = 3,
    CB_PATH_MPI_PINNED = 4,
    CB_PATH_AUTO = 5, /* ghz with GHZ_PATH_AUTO: compressed or exact, as it decides */
    CB_PATH_NCCL = 6, /* NCCL's own collective on the same device buffers (nccl_row.h) */
    CB_PATH_RATIO = 7 /* ghz with GHZ_PATH_RATIO (data movement only) */
} cb_path_t;
#define CB_PATH_COUNT 8

/* -a: which rank's time a row reports. */
typedef enum { CB_TIME_RANK0 = 0, CB_TIME_AVG = 1, CB_TIME_MIN = 2, CB_TIME_MAX = 3 } cb_time_mode_t;

typedef struct {
    size_t min_bytes, max_bytes; /* -b, -e */
    double factor;               /* -f: next size = size * factor (when step is 0) */
    size_t step_bytes;           /* -i: next size = size + step (nccl-tests' -i) */
    int iters, warmup;           /* -n, -w */
    int check;                   /* -c */
    ghz_op_t op;                 /* -o */
    ghz_dtype_t dtype;           /* -d */
    int root;                    /* -r */
    cb_time_mode_t time_mode;    /* -a */
    cb_coll_t coll;              /* --coll */
    ghz_exec_t backend;          /* --backend: GHZ_EXEC_CPU (host buffers) or CUDA */
    ghz_algo_t algo;             /* --algo */
    ghz_eb_mode_t eb_mode;       /* --rel / --abs */
    double eb;
    cb_path_t paths[CB_PATH_COUNT]; /* --paths, in the order given */
    int npaths;
    int paths_given;                /* --paths was on the command line */
    size_t pool_bytes, chunk_bytes; /* --pool, --chunk (0: the library's default) */
    int threads;                    /* --threads */
    int check_args;                 /* --check-args */
    int graph;                      /* --graph: ghz's calls captured once, replayed */
    int sync;                       /* --sync: every call's stream synchronized, on the clock */
    const char* json;               /* --json FILE or NULL */
    const char** raw;               /* --raw FILE... (argv pointers) */
    int nraw;
    ghz_dtype_t raw_type;           /* --raw-type: element type of the files */
} cb_args_t;

/* Room for an error message: MPI's error string and some words around it. */
#define CB_ERR_LEN (MPI_MAX_ERROR_STRING + 64)

/* Exit codes: 0 all rows ran and passed, 1 a call failed or a check found wrong
 * elements, 2 usage error. */
enum { CB_EXIT_OK = 0, CB_EXIT_FAIL = 1, CB_EXIT_USAGE = 2 };

/* Names used in the table and the JSON rows. */
const char* cb_coll_name(cb_coll_t c);
const char* cb_path_name(cb_path_t p);

/* Does ghz reduce on this path (not the MPI library or NCCL)? */
static inline int cb_path_ghz(cb_path_t p) { return p == CB_PATH_HOMO || p == CB_PATH_DOC || p == CB_PATH_EXACT || p == CB_PATH_AUTO || p == CB_PATH_RATIO; }
/* Does the MPI library (not ghz) reduce on this path? */
static inline int cb_path_mpi(cb_path_t p) { return p == CB_PATH_MPI || p == CB_PATH_MPI_PINNED; }

/* Is the path lossy (an accuracy is passed)? */
static inline int cb_path_lossy(cb_path_t p) { return p == CB_PATH_HOMO || p == CB_PATH_DOC || p == CB_PATH_AUTO || p == CB_PATH_RATIO; }

/* Can ghz/coll run dtype/op lossy (COLL.md: f32/f64 with SUM, AVG, MIN, MAX)? */
static inline int cb_lossy_ok(ghz_dtype_t t, ghz_op_t op)
{
    return (t == GHZ_F32 || t == GHZ_F64) &&
           (op == GHZ_OP_SUM || op == GHZ_OP_AVG || op == GHZ_OP_MIN || op == GHZ_OP_MAX);
}

#endif
