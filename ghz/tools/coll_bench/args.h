/* ghz/tools/coll_bench/args.h: ghz-coll-bench's command line. */
#ifndef GHZ_TOOLS_COLL_BENCH_ARGS_H
#define GHZ_TOOLS_COLL_BENCH_ARGS_H

#include "bench.h"

/* Parses argv into *a (defaults first). Every rank parses the same argv and reaches
 * the same verdict; only a rank with `speak` set prints the help or the error.
 * Returns -1 to go on, CB_EXIT_OK after -h, CB_EXIT_USAGE on a usage error. */
int cb_parse_args(int argc, char** argv, int speak, cb_args_t* a);

/* "4096", "4K", "1M", "2G" (binary multiples, as nccl-tests): 1 and *v set, or 0. */
int cb_parse_bytes(const char* s, size_t* v);

#endif
