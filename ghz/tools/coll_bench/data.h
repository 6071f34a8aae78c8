/* ghz/tools/coll_bench/data.h: the input of every rank, a pure function of
 * (rank, file, element index), so that any rank can regenerate any other rank's input
 * to build the exact reference without moving data. */
#ifndef GHZ_TOOLS_COLL_BENCH_DATA_H
#define GHZ_TOOLS_COLL_BENCH_DATA_H

#include "bench.h"

typedef struct {
    int nranks;            /* the synthetic integers depend on it (data.c, store_int) */
    int nfiles;            /* 0: synthetic */
    const char** names;
    ghz_dtype_t file_type; /* GHZ_F32 or GHZ_F64, little-endian */
    void** vals;           /* file f's first n[f] values as stored; NULL if not loaded */
    size_t* n;             /* values loaded: the file's length, capped at max_elems */
    uint64_t* total;       /* values in the file */
} cb_data_t;

/* Prepares the data set of a. With files, loads those this rank reads (file
 * rank mod k) or, when need_all is set (checking), every file: a reference needs
 * every rank's input. At most max_elems values per file are kept (what the largest
 * size uses). Returns 0, or -1 with a message in err. */
int cb_data_open(cb_data_t* d, const cb_args_t* a, int rank, int nranks, int need_all,
                 size_t max_elems, char* err, size_t errlen);
void cb_data_close(cb_data_t* d);

/* out[j] = element first + j of rank's input as dtype, j < n. Files are tiled: element
 * i is value i mod n[f] of file f = rank mod k. */
void cb_data_fill(const cb_data_t* d, int rank, size_t first, size_t n, ghz_dtype_t dtype,
                  void* out);

/* One line naming the data set, for the header. */
void cb_data_describe(const cb_data_t* d, char* buf, size_t len);

#endif
