/* ghz/coll/detail/knobs.h: the environment variables libghzcoll reads, in one table
 * (COLL_KNOBS: knobs.c's parser, agreement list and description, and COLL.md's
 * Environment table, which the test coll.tables checks). Each is parsed strictly when a
 * communicator is made: a value the library cannot read is an error of ghz_comm_init,
 * never a silent default. The resolved values that shape calls are agreed across ranks
 * with the configuration (comm_make.c, agree.c). */
#ifndef GHZ_COLL_DETAIL_KNOBS_H
#define GHZ_COLL_DETAIL_KNOBS_H

#include <stddef.h>
#include <stdint.h>

#include "ghz/coll/coll.h"
#include "ghz/coll/detail/names.h"

/* A size knob that is unset keeps this value: the library's default, which may depend
 * on the communicator (the GPUs, the transport). */
#define COLL_KNOB_UNSET SIZE_MAX
/* GHZ_COLL_AUTO_MIN_BYTES=never */
#define COLL_KNOB_NEVER (SIZE_MAX - 1)

/* How a knob's value is read (knobs.c):
 * SIZE    a byte count with an optional K, M or G suffix, at most cap (size_t field,
 *         COLL_KNOB_UNSET when unset);
 * NEVER   the same, or the word "never" (COLL_KNOB_NEVER);
 * NUMBER  a whole number, at most cap (int field);
 * WORDS   one of the words of the knob's list, in any case (the field: its index);
 * SECONDS a decimal number of seconds, more than 0 and at most cap (double field). */
enum { COLL_KNOB_SIZE, COLL_KNOB_NEVER_SIZE, COLL_KNOB_NUMBER, COLL_KNOB_WORDS, COLL_KNOB_SECONDS };

/* The words of the WORDS knobs. */
#define COLL_KNOB_ONOFF_WORDS "0", "1"
#define COLL_KNOB_TRACE_WORDS "0", "1", "2"
#define COLL_KNOB_DEBUG_WORDS "none", "warn", "info"

/* The environment variables libghzcoll reads, each written once:
 * X(NAME, field, how, words, cap, initial, agreed, takes, default, what)
 *   field    of coll_knobs_t;
 *   how      COLL_KNOB_* above; words: the WORDS knob's list (a braced list of strings),
 *            {0} for the others; cap: the largest value (a size, a number, seconds);
 *   initial  the field's value when the variable is unset;
 *   agreed   1: the resolved value is agreed across ranks at ghz_comm_init
 *            (coll_knobs_agreed); 0: it never changes what a call does, or it is agreed
 *            as the configuration field it resolves (transport, ranks_per_node);
 *   takes, default, what: its row of COLL.md's Environment table (a WORDS knob's
 *            "takes" is its words, then the text given here), which the test
 *            coll.tables checks. */
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

typedef struct {
    ghz_transport_t transport; /* GHZ_COLL_TRANSPORT: AUTO when unset */
    int ranks_per_node;        /* GHZ_COLL_RANKS_PER_NODE: 0 when unset */
    size_t mpi_max;            /* GHZ_COLL_MPI_MAX (bytes; COLL_KNOB_UNSET) */
    size_t host_path_max;      /* GHZ_COLL_HOST_PATH_MAX (bytes; COLL_KNOB_UNSET) */
    size_t one_shot_max;       /* GHZ_COLL_DIRECT_ONE_SHOT_MAX (bytes; COLL_KNOB_UNSET) */
    size_t auto_min_bytes;     /* GHZ_COLL_AUTO_MIN_BYTES (bytes, COLL_KNOB_NEVER or
                                  COLL_KNOB_UNSET): AUTO's threshold, pinned (auto_rule.h) */
    int cuda_aware_mpi;        /* GHZ_COLL_CUDA_AWARE_MPI: 1 (default: use it where MPI
                                  says it is CUDA-aware) or 0 */
    double fence_timeout_s;    /* GHZ_GRAPH_FENCE_TIMEOUT_S: seconds (default 60) */
    /* print only (not agreed: they never change what a call does) */
    int auto_trace;            /* GHZ_COLL_AUTO_TRACE: 0, 1 or 2 */
    int debug;                 /* GHZ_COLL_DEBUG: 0 none, 1 warn, 2 info */
    int debug_info;            /* GHZ_COLL_DEBUG=INFO: 1 */
} coll_knobs_t;

/* One knob's row of the table, for the docs' check (coll.tables): its name, how it is
 * read, its words (WORDS knobs), whether it is agreed, and the strings of its row. */
typedef struct {
    const char* name;
    int how;
    const char* const* words;
    int nwords; /* (a word may be NULL: a value without a name) */
    int agreed;
    const char *takes, *dflt, *what;
} coll_knob_doc_t;

/* The knobs' rows, in the table's order; *n: how many. */
const coll_knob_doc_t* coll_knob_docs(int* n);

/* Reads every knob from the environment; GHZ_ERR_INVALID_ARG (detail: which variable,
 * what it takes) for a value it cannot read or out of range. *k holds the defaults for
 * the knobs read so far. */
ghz_status_t coll_knobs_read(coll_knobs_t* k);

/* The knobs that shape calls, as (name, value) pairs for the configuration agreement:
 * writes at most `max` entries, returns how many. */
int coll_knobs_agreed(const coll_knobs_t* k, const char** names, int64_t* values, int max);

/* One line naming every knob's value ("GHZ_COLL_MPI_MAX=4194304 ..."; "default" for
 * unset sizes), for GHZ_COLL_DEBUG=INFO. */
void coll_knobs_describe(const coll_knobs_t* k, char* buf, size_t len);

#endif
