/* ghz/coll/detail/agree.h: the call agreement (agree.c; COLL.md, Errors). */
#ifndef GHZ_COLL_DETAIL_AGREE_H
#define GHZ_COLL_DETAIL_AGREE_H

#include "ghz/coll/detail/comm.h"

/* Fields every rank must pass alike. */
enum {
    AGREE_KIND,
    AGREE_COUNT,
    AGREE_DTYPE,
    AGREE_OP,
    AGREE_ROOT,
    AGREE_LOSSY,
    AGREE_MODE,
    AGREE_BOUND,   /* the bound's bit pattern */
    AGREE_PATH,
    AGREE_CAPTURE, /* the call's stream is being captured into a CUDA graph */
    AGREE_NFIELDS
};

typedef struct {
    int64_t field[AGREE_NFIELDS];
    ghz_status_t status;   /* this rank's own validation */
    int have_range;        /* this rank has a finite value (lossy) */
    double vmin, vmax;
    int nonfinite;
    double ratio_seen;     /* the last lossy call's ratio on this rank (0: none) */
    int staged;            /* the host path's copy of the input is made (plan.c, coll_plan_pre) */
    uint64_t most[2];      /* reduced to their maxima over ranks (the data-movement calls:
                              the longest block and the farthest block end, plan.c) */
    int ranged;            /* the call agrees on a value range (a lossy call that scans
                              one): decided alike on every rank from agreed inputs, and
                              checked with the fields (it sets how many words travel) */
} coll_call_t;

typedef struct {
    int have_range;        /* over every rank */
    double vmin, vmax;
    int nonfinite;         /* some rank has a NaN or infinity */
    double ratio_seen;     /* the smallest over ranks */
    int staged;            /* every rank made its host path copy, and it worked */
    uint64_t most[2];      /* the maxima of coll_call_t.most */
} coll_agreed_t;

/* One small allreduce (coll_ctl_max): every rank learns whether any rank failed its
 * own checks (GHZ_ERR_PEER on the others, naming the lowest such rank), whether the
 * ranks disagree on a field (GHZ_ERR_MISMATCH everywhere, naming the field and the
 * values' range), and the global value range. A rank whose own check failed returns its
 * own status. */
ghz_status_t coll_agree(ghz_comm_t* c, const coll_call_t* mine, coll_agreed_t* all);

/* The same for a communicator being made (ghz_comm_init): every rank learns whether any
 * failed (its own status, or GHZ_ERR_PEER naming the lowest failing rank and that rank's
 * status), and whether the ranks resolved different settings: every field of c->cfg
 * that shapes a call, whether messages are staged through host memory, and the
 * environment's knobs that shape calls (knobs.h); GHZ_ERR_MISMATCH naming the setting. */
ghz_status_t coll_agree_config(ghz_comm_t* c, ghz_status_t mine);

/* w[0..n) = its maximum over the ranks of c: the shared segment's where there is one
 * and n fits it, else c->ctl_max (MPI's allreduce, or NCCL's where c was made without
 * MPI). Every agreement goes through it. */
ghz_status_t coll_ctl_max(ghz_comm_t* c, int64_t* w, int n);

#endif
