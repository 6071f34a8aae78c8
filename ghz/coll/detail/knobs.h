/* ghz/coll/detail/knobs.h: the environment variables libghzcoll reads, in one table
 * (COLL.md, Environment: the test coll.tables checks it against COLL_KNOBS). */
#ifndef GHZ_COLL_DETAIL_KNOBS_H
#define GHZ_COLL_DETAIL_KNOBS_H

#include <stddef.h>
#include <stdint.h>

#include "ghz/coll/coll.h"
#include "ghz/coll/detail/names.h"

/* An unset size knob: the library's default, which may depend on the communicator. */
#define COLL_KNOB_UNSET SIZE_MAX
#define COLL_KNOB_NEVER (SIZE_MAX - 1)

/* How a value is read: a size (size_t field; K, M or G suffix), the same or "never", a
 * whole number (int), one of the knob's words in any case (int: its index), or seconds
 * (double, > 0); each at most cap. */
enum { COLL_KNOB_SIZE, COLL_KNOB_NEVER_SIZE, COLL_KNOB_NUMBER, COLL_KNOB_WORDS, COLL_KNOB_SECONDS };

#define COLL_KNOB_ONOFF_WORDS "0", "1"
#define COLL_KNOB_TRACE_WORDS "0", "1", "2"
#define COLL_KNOB_DEBUG_WORDS "none", "warn", "info"

/* X(NAME, field, how, words ({0}: none), cap, initial (unset), agreed, takes, default,
 * what). agreed 0: it never changes what a call does, or it is agreed as the
 * configuration field it resolves. takes, default, what: its row of COLL.md's table (a
 * WORDS knob's takes: its words, then this text). */
#define COLL_KNOBS(X)                                                                                              \
    X(GHZ_COLL_TRANSPORT, transport, COLL_KNOB_WORDS, {COLL_TRANSPORTS(COLL_NAME_AT)}, 0, GHZ_TRANSPORT_AUTO, 0, \
      "", "`auto`",                                                                                                \
      "the transport of communicators whose `transport` is `GHZ_TRANSPORT_AUTO`; `ipc` and `nccl` apply to "      \
      "CUDA-backend ones only (auto: Transports)")                                                                 \
    X(GHZ_COLL_RANKS_PER_NODE, ranks_per_node, COLL_KNOB_NUMBER, {0}, 1 << 20, 0, 0, "a whole number",              \
      "0 (the ranks that share memory; without MPI, one node)",                                                    \
      "the two-level algorithms' nodes, where `ranks_per_node` is 0 (to test several \"nodes\" on one machine; "    \
      "over NCCL too)")                                                                                            \
    X(GHZ_COLL_MPI_MAX, mpi_max, COLL_KNOB_SIZE, {0}, (size_t)1 << 30, COLL_KNOB_UNSET, 1, "size, at most 1G", "4M", \
      "AUTO's exact CPU allreduce calls `MPI_Allreduce` up to this many bytes per rank; 0: never")                  \
    X(GHZ_COLL_HOST_PATH_MAX, host_path_max, COLL_KNOB_SIZE, {0}, (size_t)16 << 20, COLL_KNOB_UNSET, 1,             \
      "size, at most 16M", "4M, 1M or 8K (Choices)",                                                               \
      "a CUDA communicator's small exact calls take the host path up to this many bytes per rank; 0: never")       \
    X(GHZ_COLL_DIRECT_ONE_SHOT_MAX, one_shot_max, COLL_KNOB_SIZE, {0}, SIZE_MAX - 1, COLL_KNOB_UNSET, 1, "size",    \
      "unlimited on 2 ranks, else 1M",                                                                             \
      "`ipc_direct`'s exact rounds up to this many bytes per rank run in one shot; 0: never")                      \
    X(GHZ_COLL_AUTO_MIN_BYTES, auto_min_bytes, COLL_KNOB_NEVER_SIZE, {0}, SIZE_MAX - 2, COLL_KNOB_UNSET, 1,         \
      "size, or `never`", "measured at init",                                                                      \
      "pins the size (bytes per rank) from which lossy AUTO calls compress (Choices, \"AUTO's threshold\")")        \
    X(GHZ_COLL_CUDA_AWARE_MPI, cuda_aware_mpi, COLL_KNOB_WORDS, {COLL_KNOB_ONOFF_WORDS}, 0, 1, 1, "", "`1`",         \
      "`0`: host-stage even where MPI says it is CUDA-aware")                                                      \
    X(GHZ_GRAPH_FENCE_TIMEOUT_S, fence_timeout_s, COLL_KNOB_SECONDS, {0}, 1e6, 60.0, 1, "seconds, > 0, at most 1e6", \
      "60", "how long a replayed fence waits for a peer (CUDA graphs)")                                            \
    X(GHZ_COLL_AUTO_TRACE, auto_trace, COLL_KNOB_WORDS, {COLL_KNOB_TRACE_WORDS}, 0, 0, 0, "", "`0`",                \
      "rank 0 prints AUTO's decisions (1), and each call's phases (2); not agreed")                                \
    X(GHZ_COLL_DEBUG, debug, COLL_KNOB_WORDS, {COLL_KNOB_DEBUG_WORDS}, 0, 0, 0, " (any case)", "`none`",            \
      "`INFO`: rank 0 prints the configuration in force (the agreements' path included: `shm`, `mpi` or `nccl`) " \
      "and every variable's value on one line (`ghz coll INFO: ...`) when a communicator is made, and one rank "   \
      "why AUTO's CUDA IPC fell back to MPI (Transports); not agreed")

/* The fields, in the table's order. */
typedef struct {
    ghz_transport_t transport;
    int ranks_per_node;
    size_t mpi_max, host_path_max, one_shot_max; /* bytes, or COLL_KNOB_UNSET */
    size_t auto_min_bytes;                       /* ... or COLL_KNOB_NEVER */
    int cuda_aware_mpi;
    double fence_timeout_s;
    int auto_trace;
    int debug;      /* 0 none, 1 warn, 2 info */
    int debug_info; /* GHZ_COLL_DEBUG=INFO */
} coll_knobs_t;

/* One knob's row, for coll.tables (a word may be NULL: a value without a name). */
typedef struct {
    const char* name;
    int how;
    const char* const* words;
    int nwords, agreed;
    const char *takes, *dflt, *what;
} coll_knob_doc_t;

const coll_knob_doc_t* coll_knob_docs(int* n);

/* Every knob from the environment; GHZ_ERR_INVALID_ARG naming a value it cannot read. */
ghz_status_t coll_knobs_read(coll_knobs_t* k);

/* The agreed knobs as (name, value) pairs, at most max; returns how many. */
int coll_knobs_agreed(const coll_knobs_t* k, const char** names, int64_t* values, int max);

/* One line of every knob's value, for GHZ_COLL_DEBUG=INFO. */
void coll_knobs_describe(const coll_knobs_t* k, char* buf, size_t len);

#endif
