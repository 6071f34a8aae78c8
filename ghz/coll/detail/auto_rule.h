/* ghz/coll/detail/auto_rule.h: when GHZ_PATH_AUTO compresses a lossy call, on every
 * transport (auto_rule.c; COLL.md, AUTO).
 *
 * An exact call of S bytes per rank takes about S t1 (t1: the exact path's seconds per
 * byte); a compressed one moves S / r bytes (r the ratio), pays codec work S / G
 * (compress, combine, decompress, per byte of input) and a fixed cost F. Compressing
 * wins from S = F / (t1 (1 - 1/r) - 1/G), never where the bracket is not positive (a
 * link as fast as the codec). With the bus bandwidth B = k S / t of nccl-tests (k = 2
 * (N-1) / N for an allreduce) that is F / (k (1 - 1/r) / B - 1/G).
 *
 * t1 is measured once, when the communicator is made, by timing the transport's exact
 * allreduce; every rank takes the slowest rank's time, so every rank computes the same
 * threshold. The threshold is twice that crossover, rounded up to a power of two and
 * at least COLL_AUTO_LOSSY_MIN_BYTES: the margin and the rounding keep the run-to-run
 * spread of t1 from moving it. F, G and r are constants per backend (auto_rule.c).
 * GHZ_COLL_AUTO_MIN_BYTES (knobs.c, agreed at init) pins the threshold instead. From
 * then on the decision is frozen: a call compresses iff its bytes per rank reach the
 * threshold (and the last compressed call's ratio was worth it: plan.c, coll_lossy_mode), which
 * every rank decides alike without a message. */
#ifndef GHZ_COLL_DETAIL_AUTO_RULE_H
#define GHZ_COLL_DETAIL_AUTO_RULE_H

#include "ghz/coll/detail/comm.h"

/* The least calibrated threshold: below it the compressed path's fixed costs outweigh
 * what it saves on any link (COLL.md, Choices). */
#define COLL_AUTO_LOSSY_MIN_BYTES ((size_t)64 << 10)

typedef struct {
    double fixed_s;   /* F: seconds per compressed call */
    double codec_bps; /* G: bytes of input per rank per second of codec work */
    double ratio;     /* r: the ratio assumed */
} coll_auto_costs_t;

/* The constants of a backend's compressed path. */
coll_auto_costs_t coll_auto_costs(ghz_exec_t backend);

/* The threshold (bytes per rank) for N ranks whose exact allreduce of S bytes per rank
 * took t seconds; SIZE_MAX: never (one rank, no measurement, or a link at least as
 * fast as the codec). */
size_t coll_auto_rule(int N, size_t S, double t, const coll_auto_costs_t* k);

/* Times this rank's exact allreduce of S bytes per rank: *seconds per call. */
typedef ghz_status_t (*coll_auto_timer_t)(ghz_comm_t* c, size_t S, double* seconds);

/* calibrate.c (at init only) */

/* The calibration of a communicator's transport: coll_auto_freeze with the exact
 * allreduce that AUTO's exact path runs (the library's own through the runner; over
 * NCCL, NCCL's). Collective over c. */
ghz_status_t coll_auto_calibrate(ghz_comm_t* c);

/* Whether a lossy AUTO call of `bytes` per rank compresses by the frozen threshold: the
 * argmin of the planner's cost table (plan.c). */
int coll_auto_compresses(const ghz_comm_t* c, size_t bytes);

#endif
