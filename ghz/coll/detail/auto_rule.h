/* ghz/coll/detail/auto_rule.h: the size from which GHZ_PATH_AUTO compresses (COLL.md,
 * AUTO's threshold): measured at init, frozen, then decided by every rank alike. */
#ifndef GHZ_COLL_DETAIL_AUTO_RULE_H
#define GHZ_COLL_DETAIL_AUTO_RULE_H

#include "ghz/coll/detail/comm.h"

/* The least threshold: below it the fixed costs outweigh the savings on any link. */
#define COLL_AUTO_LOSSY_MIN_BYTES ((size_t)64 << 10)

typedef struct {
    double fixed_s;   /* F: seconds per compressed call */
    double codec_bps; /* G: bytes of input per rank per second of codec work */
    double ratio;     /* r: the ratio assumed */
    double ratio_codec_bps; /* G of the codec's ratio frames (data movement) */
    double ratio_gain;      /* how much smaller a ratio frame is assumed than a speed one */
} coll_auto_costs_t;

coll_auto_costs_t coll_auto_costs(ghz_exec_t backend);

/* The threshold for N ranks whose exact allreduce of S bytes per rank took t seconds
 * (SIZE_MAX: never). */
size_t coll_auto_rule(int N, size_t S, double t, const coll_auto_costs_t* k);

/* Whether AUTO's compressed data movement sends ratio frames over a link whose exact
 * allreduce of S bytes per rank took t seconds on N ranks: where the wire time a byte's
 * smaller frame saves exceeds the codec time it adds (COLL.md, Data movement, Ratio
 * frames). 0 without a measurement. */
int coll_auto_ratio_frames(int N, size_t S, double t, const coll_auto_costs_t* k);

/* Times this rank's exact allreduce of S bytes per rank: *seconds per call. */
typedef ghz_status_t (*coll_auto_timer_t)(ghz_comm_t* c, size_t S, double* seconds);

ghz_status_t coll_auto_calibrate(ghz_comm_t* c); /* calibrate.c, at init: c->auto_min (collective) */

/* plan.c: whether a lossy AUTO call of `bytes` per rank compresses. */
int coll_auto_compresses(const ghz_comm_t* c, size_t bytes);

#endif
