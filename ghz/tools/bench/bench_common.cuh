/* ghz/tools/bench/bench_common.cuh: what the ghz-bench programs share: error checks,
 * the median of CUDA-event timings after warm-up, and the copy roofline measured in the
 * same run. */
#ifndef GHZ_TOOLS_BENCH_COMMON_CUH
#define GHZ_TOOLS_BENCH_COMMON_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifdef GHZ_BENCH_HAVE_DATASETS
#include "datasets/datasets.h"
#endif
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

static __global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n16)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

static double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <typename F>
static double time_ms(int reps, cudaEvent_t a, cudaEvent_t b, F&& f)
{
    std::vector<float> t;
    for (int i = 0; i < 3; ++i) f(); /* warm-up */
    CUDA_OK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
        float ms;
        CUDA_OK(cudaEventRecord(a));
        f();
        CUDA_OK(cudaEventRecord(b));
        CUDA_OK(cudaEventSynchronize(b));
        CUDA_OK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    return median(t);
}

/* Bytes read + written per second by a copy kernel over 2 GiB (the roofline). */
static double copy_roofline_gbs(const cudaDeviceProp& prop, int reps, cudaEvent_t ea, cudaEvent_t eb)
{
    const size_t bytes = (size_t)2 << 30;
    void *a, *b;
    CUDA_OK(cudaMalloc(&a, bytes));
    CUDA_OK(cudaMalloc(&b, bytes));
    CUDA_OK(cudaMemset(a, 1, bytes));
    const double ms = time_ms(reps, ea, eb, [&] {
        copy_kernel<<<prop.multiProcessorCount * 8, 256>>>((const uint4*)a, (uint4*)b, bytes / 16);
    });
    CUDA_OK(cudaFree(a));
    CUDA_OK(cudaFree(b));
    return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

struct field {
    std::string name;
    std::vector<float> data;
    bool has_fill;
    float fill;
};

/* Appends the generated fields named in gens (datasets/); ocean2d has its fill value.
 * Returns 0, or 2 after a message (unknown name, or built without datasets/). */
static int add_generated_fields(const std::vector<std::string>& gens, std::vector<field>& fields)
{
#ifdef GHZ_BENCH_HAVE_DATASETS
    for (const std::string& g : gens) {
        size_t d[3];
        field f;
        if (ghz_ds_default_dims(g.c_str(), d) != 0) {
            fprintf(stderr, "ghz-bench: unknown generated field %s\n", g.c_str());
            return 2;
        }
        f.name = g;
        f.data.resize(d[0] * d[1] * d[2]);
        if (ghz_ds_generate(g.c_str(), d[0], d[1], d[2], 1, f.data.data()) != 0) return 2;
        f.has_fill = g == "ocean2d";
        f.fill = GHZ_DS_OCEAN_FILL;
        fields.push_back(std::move(f));
    }
#else
    (void)fields;
    if (!gens.empty()) {
        fprintf(stderr, "ghz-bench: built without datasets/: --gen is unavailable\n");
        return 2;
    }
#endif
    return 0;
}

/* f32 REL parameters of bound rel for field f (fill included), and the absolute bound
 * they give over the field's range (the same over any tiling of it). */
static ghz_params_t rel_params(const field& f, double rel, double* eb_abs)
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    double vmin, vmax;
    uint64_t cnt;
    p.dtype = GHZ_F32;
    p.eb_mode = GHZ_EB_REL;
    p.eb = rel;
    p.has_fill = f.has_fill;
    p.fill = f.fill;
    GHZ_OK(ghz_value_range(&p, f.data.data(), f.data.size(), &vmin, &vmax, &cnt));
    GHZ_OK(ghz_abs_bound(&p, vmin, vmax, eb_abs));
    return p;
}

/* "a,b,c" as numbers. */
static std::vector<double> parse_list(const std::string& l)
{
    std::vector<double> v;
    for (size_t p = 0; p < l.size();) {
        size_t c = l.find(',', p);
        v.push_back(atof(l.substr(p, c - p).c_str()));
        p = c == std::string::npos ? l.size() : c + 1;
    }
    return v;
}

/* The options both programs take. */
struct bench_opts {
    double gib = 1.0;                          /* --gib: at least this many GiB per run */
    int reps = 10;                             /* --reps: timed repetitions (median) */
    const char* json_path;                     /* --json */
    std::vector<double> rels = {1e-2, 1e-3, 1e-4}; /* --rel a,b,c */
    std::vector<std::string> gens;             /* --gen NAME... */
};

/* Consumes argv[i] (and its value) when it is one of bench_opts' options: returns 1,
 * else 0. A missing value is a usage error (exit 2). */
static int parse_common_option(bench_opts& o, int argc, char** argv, int& i)
{
    const std::string a = argv[i];
    if (a != "--gib" && a != "--reps" && a != "--json" && a != "--gen" && a != "--rel") return 0;
    if (i + 1 >= argc) {
        fprintf(stderr, "ghz-bench: %s needs a value\n", a.c_str());
        exit(2);
    }
    const char* v = argv[++i];
    if (a == "--gib") o.gib = atof(v);
    else if (a == "--reps") o.reps = atoi(v);
    else if (a == "--json") o.json_path = v;
    else if (a == "--gen") o.gens.push_back(v);
    else o.rels = parse_list(v);
    return 1;
}

/* The device, two timing events and the copy roofline of this run; prints the device
 * line every table starts with. */
struct bench_env {
    cudaDeviceProp prop;
    cudaEvent_t ea, eb;
    double copy_gbs;
};

static bench_env bench_start(int reps)
{
    bench_env v;
    CUDA_OK(cudaGetDeviceProperties(&v.prop, 0));
    CUDA_OK(cudaEventCreate(&v.ea));
    CUDA_OK(cudaEventCreate(&v.eb));
    v.copy_gbs = copy_roofline_gbs(v.prop, reps, v.ea, v.eb);
    printf("device: %s, %d SMs; copy kernel %.0f GB/s (bytes read + written)\n", v.prop.name,
           v.prop.multiProcessorCount, v.copy_gbs);
    return v;
}

/* The JSON file of a run, its device and roofline written (NULL when it cannot be
 * opened: the table on stdout still has everything). */
static FILE* json_open(const char* path, const bench_env& v)
{
    FILE* js = fopen(path, "w");
    if (js) fprintf(js, "{\"device\":\"%s\",\"copy_gbs\":%.1f,\"results\":[\n", v.prop.name, v.copy_gbs);
    return js;
}

/* How many copies of a field of n0 float32 values make at least gib GiB. */
static size_t tiles_for_gib(size_t n0, double gib)
{
    const size_t t = (size_t)std::ceil(gib * (1 << 30) / (4.0 * n0));
    return t < 1 ? 1 : t;
}

/* ghz-bench homo (bench_homo.cu). */
int bench_homo_main(int argc, char** argv);

#endif
