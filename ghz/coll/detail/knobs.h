/* ghz/coll/detail/knobs.h: the environment variables libghzcoll reads (knobs.c; the
 * table in COLL.md, Environment). Each is parsed strictly when a communicator is made:
 * a value the library cannot read is an error of ghz_comm_init, never a silent default.
 * The resolved values that shape calls are agreed across ranks with the configuration
 * (comm.c, agree.c). */
#ifndef GHZ_COLL_DETAIL_KNOBS_H
#define GHZ_COLL_DETAIL_KNOBS_H

#include <stddef.h>
#include <stdint.h>

#include "ghz/coll/coll.h"

/* A size knob that is unset keeps this value: the library's default, which may depend
 * on the communicator (the GPUs, the transport). */
#define COLL_KNOB_UNSET SIZE_MAX
/* GHZ_COLL_AUTO_MIN_BYTES=never */
#define COLL_KNOB_NEVER (SIZE_MAX - 1)

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
    int debug_info;            /* GHZ_COLL_DEBUG=INFO: 1 */
} coll_knobs_t;

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
