/* ghz/tools/coll_bench/report.h: the header, the nccl-tests-style table and the JSON
 * rows. Only rank 0 calls these. */
#ifndef GHZ_TOOLS_COLL_BENCH_REPORT_H
#define GHZ_TOOLS_COLL_BENCH_REPORT_H

#include <stdio.h>

#include "timing.h"

/* One placement (out of place or in place) of a row, combined over ranks. */
typedef struct {
    int ran;            /* 0: the call failed (err says why), or has no such form (none) */
    int none;           /* the row's library has no such call (NCCL's alltoall in place):
                           shown as n/a, not counted as a failure */
    char err[CB_ERR_LEN];
    cb_time_t t;
    double algbw, busbw;
    int checked;        /* -c 1: wrong is meaningful */
    uint64_t wrong;     /* elements outside their tolerance, all ranks */
    int lossy;
    int ran_exact;      /* a lossy row whose call ran exact (AUTO): checked as an exact row */
    double ratio;       /* logical / wire bytes, summed over ranks (ghz rows) */
    double bound_abs;   /* ghz_coll_info_t.bound_abs (lossy rows) */
    double t_comp, t_comb, t_dec, t_stage, t_total; /* rank 0's breakdown of its last call, s */
    double host_us;     /* the slowest rank's host time inside the timed calls, us a call */
    double t_xfer;      /* ... and its transfers (ghz over NCCL, compressed) */
    double maxerr;      /* max |result - exact| over elements and ranks */
    int has_algo;       /* ghz rows: the algorithm that ran */
    ghz_algo_t algo;
} cb_result_t;

typedef struct {
    size_t bytes;       /* S of nccl-tests (timing.h, cb_bandwidth) */
    size_t count;       /* S in elements */
    cb_path_t path;
    int root;           /* -1 for rootless collectives */
    cb_result_t r[2];   /* [0] out of place, [1] in place */
} cb_row_t;

/* What the header names beyond the options. */
typedef struct {
    const char* host;   /* rank 0's host */
    int nhosts, nranks;
    const char* data;   /* cb_data_describe */
    const char* mpi_version;
    const char* gpu;    /* CUDA backend: rank 0's device name (NULL on the CPU) */
    int device, ndevices; /* rank 0's device and the count its node shows */
    double requested_bound_abs; /* the bound the bench resolved itself (first size) */
} cb_header_t;

void cb_report_header(FILE* f, const cb_args_t* a, const cb_header_t* h);
/* Called once per size with the note of lossy paths that cannot run, or NULL. */
void cb_report_note(FILE* f, const char* note);
void cb_report_row(FILE* f, const cb_args_t* a, const cb_row_t* row);
void cb_report_json(FILE* f, const cb_args_t* a, int nranks, const cb_row_t* row);
/* Totals: failures, and the average busbw of each path (nccl-tests' last line). */
void cb_report_footer(FILE* f, const cb_args_t* a, uint64_t wrong, int failed_calls,
                      const double* busbw_sum, const int* busbw_rows);

#endif
