/* ghz/coll/detail/agree.h: the call agreement (agree.c; COLL.md, Errors). */
#ifndef GHZ_COLL_DETAIL_AGREE_H
#define GHZ_COLL_DETAIL_AGREE_H

#include "ghz/coll/detail/comm.h"

/* Fields every rank must pass alike (BOUND: the bound's bit pattern; CAPTURE: whether
 * the call's stream is being captured into a CUDA graph). */
enum { AGREE_KIND, AGREE_COUNT, AGREE_DTYPE, AGREE_OP, AGREE_ROOT, AGREE_LOSSY, AGREE_MODE, AGREE_BOUND, AGREE_PATH,
       AGREE_CAPTURE, AGREE_NFIELDS };

typedef struct {
    int64_t field[AGREE_NFIELDS];
    ghz_status_t status;   /* this rank's own validation */
    int have_range;        /* this rank has a finite value (lossy) */
    double vmin, vmax;
    int nonfinite;
    double ratio_seen;     /* the last lossy call's ratio on this rank (0: none) */
    int staged;            /* the host path's copy of the input is made (plan.c, coll_plan_pre) */
    uint64_t most[2];      /* maxima over ranks: the longest block and farthest block end (plan.c) */
    int ranged;            /* the call agrees on a value range (checked with the fields) */
} coll_call_t;

typedef struct {
    int have_range;        /* over every rank */
    double vmin, vmax;
    int nonfinite;         /* some rank has a NaN or infinity */
    double ratio_seen;     /* the smallest over ranks */
    int staged;            /* every rank made its host path copy, and it worked */
    uint64_t most[2];      /* the maxima of coll_call_t.most */
} coll_agreed_t;

/* One small allreduce: whether any rank failed its own checks (GHZ_ERR_PEER elsewhere),
 * whether the ranks disagree on a field (GHZ_ERR_MISMATCH), and the global value range. */
ghz_status_t coll_agree(ghz_comm_t* c, const coll_call_t* mine, coll_agreed_t* all);

/* The same for a communicator being made: its status, and its resolved configuration,
 * staging and the knobs that shape calls (knobs.h). */
ghz_status_t coll_agree_config(ghz_comm_t* c, ghz_status_t mine);

/* w[0..n) = its maximum over the ranks of c: the shared segment where n fits, else c->ctl_max. */
ghz_status_t coll_ctl_max(ghz_comm_t* c, int64_t* w, int n);
ghz_status_t coll_ctl_max_ctx(void* c, int64_t* w, int n); /* the same, as agree_shm.h's coll_shm_ctl_fn */

#endif
