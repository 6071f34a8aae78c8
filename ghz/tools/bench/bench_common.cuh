/* ghz/tools/bench/bench_common.cuh: what the ghz-bench subcommands share: error
 * macros, the timing rule (median of R runs after warm-up, CUDA events), the memory
 * rooflines measured in the same run, and the fields to measure (generated ones from
 * datasets/, or --raw float32 files). */
#ifndef GHZ_TOOLS_BENCH_COMMON_CUH
#define GHZ_TOOLS_BENCH_COMMON_CUH

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ghz/ghz.h"

#define CUDA_OK(call)                                                                        \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "ghz-bench: %s: %s\n", #call, cudaGetErrorString(e_));          \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)
#define GHZ_OK(call)                                                                         \
    do {                                                                                     \
        ghz_status_t s_ = (call);                                                            \
        if (s_ != GHZ_SUCCESS) {                                                             \
            fprintf(stderr, "ghz-bench: %s: %s (%s)\n", #call, ghz_status_string(s_),       \
                    ghz_last_error_detail());                                                \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

/* One float32 field to measure. */
struct field {
    std::string name;
    std::vector<float> data;
    bool has_fill;
    float fill;
    size_t dims[3] = {0, 0, 0}; /* extents, fastest first, where known (generated fields;
                                   raw files named ..._NXxNY[xNZ].f32): the ratio mode's */
};

/* Options every subcommand takes. */
struct bench_opts {
    double gib = 1.0;              /* least GiB of uncompressed data per run */
    int reps = 10;                 /* timed runs; the median is reported */
    /* --json FILE: one document {"device", "copy_gbs", "results": [one object per table
     * row]}; measured values in full (%.17g), so that scripts/results_update.py rounds
     * them once, as the printed table does, and rebuilds the table digit for digit. */
    const char* json = nullptr;
    std::vector<std::string> gens; /* --gen NAME */
    bool ratio = false;            /* --prefer ratio: ratio frames (RATIO.md) (codec) */
    std::vector<std::string> raws; /* --raw NAME:PATH[:FILL] */
    std::vector<double> rels = {1e-2, 1e-3, 1e-4}; /* --rel a,b,c (codec and homo) */
};

#define GHZ_BENCH_COMMON_USAGE \
    "[--gib G] [--reps R] [--json FILE] [--gen NAME]... [--raw NAME:PATH[:FILL]]..."

/* The value after argv[i] (advancing i); exits with a message when there is none. */
const char* bench_next(int argc, char** argv, int& i);
/* Consumes a common option at argv[i]; false when argv[i] is not one. */
bool bench_common_arg(int argc, char** argv, int& i, bench_opts& o);
/* Parses a subcommand's arguments (argv[2..]) into o: -1 to go on, else the exit status
 * (0 after printing usage() for -h/--help, 2 for an unknown argument). */
int bench_parse(int argc, char** argv, bench_opts& o, void (*usage)());
/* Loads --raw files and generates --gen fields (all four generated ones when neither
 * is given); 0 or an exit status. */
int bench_load_fields(const bench_opts& o, std::vector<field>& fields);

/* Bytes read + written per second by a 16-byte-vector copy of 2 GiB (GB/s). */
double bench_copy_gbs(int reps, cudaEvent_t a, cudaEvent_t b, const cudaDeviceProp& prop);
/* Bytes read per second by a 16-byte-vector read-and-reduce of 2 GiB (GB/s). */
double bench_read_gbs(int reps, cudaEvent_t a, cudaEvent_t b, const cudaDeviceProp& prop);

double bench_median(std::vector<float> v);

/* What every subcommand measures first: device 0, two timing events and the copy
 * roofline of this run; prints the "device:" line the tables start with. */
struct bench_env {
    cudaDeviceProp prop;
    cudaEvent_t ea, eb;
    double copy_gbs;
};
bench_env bench_start(int reps);

/* "a,b,c" as numbers (--rel lists). */
std::vector<double> bench_list(const std::string& l);

/* Median milliseconds of reps runs of f, after 3 warm-up runs. */
template <typename F>
double time_ms(int reps, cudaEvent_t a, cudaEvent_t b, F&& f)
{
    std::vector<float> t;
    for (int i = 0; i < 3; ++i) f();
    CUDA_OK(cudaDeviceSynchronize());
    /* A call shorter than ~1 ms is timed in a batch of back-to-back calls: one call
     * between two events also counts the host's launch latency (several us), which
     * made 60 us kernels (fixed-rate decoding at l = 8) read 20-40 % slow at random. */
    float one;
    CUDA_OK(cudaEventRecord(a));
    f();
    CUDA_OK(cudaEventRecord(b));
    CUDA_OK(cudaEventSynchronize(b));
    CUDA_OK(cudaEventElapsedTime(&one, a, b));
    const int batch = one >= 1.0f ? 1 : one <= 0.01f ? 100 : (int)(1.0f / one) + 1;
    for (int r = 0; r < reps; ++r) {
        float ms;
        CUDA_OK(cudaEventRecord(a));
        for (int i = 0; i < batch; ++i) f();
        CUDA_OK(cudaEventRecord(b));
        CUDA_OK(cudaEventSynchronize(b));
        CUDA_OK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms / batch);
    }
    return bench_median(t);
}

#endif
