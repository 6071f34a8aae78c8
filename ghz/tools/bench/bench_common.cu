/* ghz/tools/bench/bench_common.cu: options, fields and rooflines of ghz-bench. */
#include <algorithm>
#include <cstring>

#include "bench_common.cuh"

#ifdef GHZ_BENCH_HAVE_DATASETS
#include "datasets/datasets.h"
#endif

namespace {

/* The roofline kernels keep kDepth 16-byte loads in flight per thread (a loop with one
 * load per iteration waits for each before the next: on an H100 that read-only kernel
 * reached 2.59 TB/s, below the copy kernel's 2.83 TB/s of bytes read and written). */
constexpr unsigned kDepth = 4;

__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n16)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += kDepth * stride) {
        uint4 q[kDepth];
#pragma unroll
        for (unsigned j = 0; j < kDepth; ++j)
            if (i + j * stride < n16) q[j] = __ldg(src + i + j * stride);
#pragma unroll
        for (unsigned j = 0; j < kDepth; ++j)
            if (i + j * stride < n16) dst[i + j * stride] = q[j];
    }
}

/* Reads every 16-byte word once and folds it into one value, written only when it
 * matches an unlikely pattern, so the loads cannot be dropped. */
__global__ void read_kernel(const uint4* __restrict__ src, size_t n16, unsigned* sink)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += kDepth * stride) {
        uint4 q[kDepth];
#pragma unroll
        for (unsigned j = 0; j < kDepth; ++j)
            q[j] = i + j * stride < n16 ? __ldg(src + i + j * stride) : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (unsigned j = 0; j < kDepth; ++j) acc ^= q[j].x + q[j].y + q[j].z + q[j].w;
    }
    if (acc == 0x9E3779B9u) *sink = acc;
}

} // namespace

double bench_median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

const char* bench_next(int argc, char** argv, int& i)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "ghz-bench: %s needs a value\n", argv[i]);
        exit(2);
    }
    return argv[++i];
}

bool bench_common_arg(int argc, char** argv, int& i, bench_opts& o)
{
    const std::string a = argv[i];
    if (a == "--gib") o.gib = atof(bench_next(argc, argv, i));
    else if (a == "--reps") o.reps = std::max(1, atoi(bench_next(argc, argv, i)));
    else if (a == "--json") o.json = bench_next(argc, argv, i);
    else if (a == "--gen") o.gens.push_back(bench_next(argc, argv, i));
    else if (a == "--raw") o.raws.push_back(bench_next(argc, argv, i));
    else if (a == "--rel") o.rels = bench_list(bench_next(argc, argv, i));
    else if (a == "--prefer") o.ratio = std::string(bench_next(argc, argv, i)) == "ratio";
    else return false;
    return true;
}

int bench_load_fields(const bench_opts& o, std::vector<field>& fields)
{
    std::vector<std::string> gens = o.gens;
    for (const std::string& spec : o.raws) {
        size_t c1 = spec.find(':'), c2 = spec.find(':', c1 + 1);
        field f;
        f.name = spec.substr(0, c1);
        std::string path = spec.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1);
        f.has_fill = c2 != std::string::npos;
        f.fill = f.has_fill ? (float)atof(spec.substr(c2 + 1).c_str()) : 0.0f;
        FILE* fp = fopen(path.c_str(), "rb");
        if (!fp) {
            fprintf(stderr, "ghz-bench: cannot open %s\n", path.c_str());
            return 1;
        }
        fseek(fp, 0, SEEK_END);
        long bytes = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        f.data.resize((size_t)bytes / 4);
        if (fread(f.data.data(), 4, f.data.size(), fp) != f.data.size()) {
            fprintf(stderr, "ghz-bench: short read on %s\n", path.c_str());
            fclose(fp);
            return 1;
        }
        fclose(fp);
        { /* the extents in the file name: ..._NXxNY[xNZ].f32 (datasets/real's names) */
            const size_t slash = path.rfind('/'), us = path.rfind('_'), dot = path.rfind('.');
            if (us != std::string::npos && dot != std::string::npos && us < dot &&
                (slash == std::string::npos || slash < us)) {
                size_t d[3] = {0, 0, 0}, k = 0, prod = 1;
                const char* q = path.c_str() + us + 1;
                while (k < 3 && *q >= '0' && *q <= '9') {
                    char* e;
                    d[k++] = strtoull(q, &e, 10);
                    q = e;
                    if (*q != 'x') break;
                    ++q;
                }
                for (size_t i = 0; i < k; ++i) prod *= d[i];
                if (k >= 1 && prod == f.data.size())
                    for (size_t i = 0; i < 3; ++i) f.dims[i] = d[i];
            }
        }
        fields.push_back(std::move(f));
    }
#ifdef GHZ_BENCH_HAVE_DATASETS
    if (gens.empty() && fields.empty()) gens = {"wave3d", "smooth2d", "noisy2d", "ocean2d"};
    for (const std::string& g : gens) {
        size_t d[3];
        field f;
        if (ghz_ds_default_dims(g.c_str(), d) != 0) {
            fprintf(stderr, "ghz-bench: unknown generated field %s\n", g.c_str());
            return 2;
        }
        f.name = g;
        f.data.resize(d[0] * d[1] * d[2]);
        if (ghz_ds_generate(g.c_str(), d[0], d[1], d[2], 1, f.data.data()) != 0) return 1;
        f.has_fill = g == "ocean2d";
        for (int i = 0; i < 3; ++i) f.dims[i] = d[i];
        f.fill = GHZ_DS_OCEAN_FILL;
        fields.push_back(std::move(f));
    }
#else
    if (!gens.empty()) {
        fprintf(stderr, "ghz-bench: built without datasets/: --gen is unavailable\n");
        return 2;
    }
#endif
    if (fields.empty()) {
        fprintf(stderr, "ghz-bench: no fields to measure\n");
        return 2;
    }
    return 0;
}

double bench_copy_gbs(int reps, cudaEvent_t a, cudaEvent_t b, const cudaDeviceProp& prop)
{
    const size_t bytes = (size_t)2 << 30;
    void *x, *y;
    CUDA_OK(cudaMalloc(&x, bytes));
    CUDA_OK(cudaMalloc(&y, bytes));
    CUDA_OK(cudaMemset(x, 1, bytes));
    double ms = time_ms(reps, a, b, [&] {
        copy_kernel<<<prop.multiProcessorCount * 8, 256>>>((const uint4*)x, (uint4*)y, bytes / 16);
    });
    CUDA_OK(cudaFree(x));
    CUDA_OK(cudaFree(y));
    return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

double bench_read_gbs(int reps, cudaEvent_t a, cudaEvent_t b, const cudaDeviceProp& prop)
{
    const size_t bytes = (size_t)2 << 30;
    void* x;
    unsigned* sink;
    CUDA_OK(cudaMalloc(&x, bytes));
    CUDA_OK(cudaMalloc(&sink, sizeof(unsigned)));
    CUDA_OK(cudaMemset(x, 1, bytes));
    double ms = time_ms(reps, a, b, [&] {
        read_kernel<<<prop.multiProcessorCount * 8, 256>>>((const uint4*)x, bytes / 16, sink);
    });
    CUDA_OK(cudaFree(x));
    CUDA_OK(cudaFree(sink));
    return (double)bytes / (ms * 1e-3) / 1e9;
}

std::vector<double> bench_list(const std::string& l)
{
    std::vector<double> v;
    for (size_t p = 0; p < l.size();) {
        const size_t c = l.find(',', p);
        v.push_back(atof(l.substr(p, c - p).c_str()));
        p = c == std::string::npos ? l.size() : c + 1;
    }
    return v;
}

int bench_parse(int argc, char** argv, bench_opts& o, void (*usage)())
{
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            usage();
            return 0;
        }
        if (!bench_common_arg(argc, argv, i, o)) {
            fprintf(stderr, "ghz-bench: unknown argument %s\n", a.c_str());
            return 2;
        }
    }
    return -1;
}

bench_env bench_start(int reps)
{
    bench_env v;
    CUDA_OK(cudaGetDeviceProperties(&v.prop, 0));
    CUDA_OK(cudaEventCreate(&v.ea));
    CUDA_OK(cudaEventCreate(&v.eb));
    v.copy_gbs = bench_copy_gbs(reps, v.ea, v.eb, v.prop);
    printf("device: %s, %d SMs; copy kernel %.0f GB/s (bytes read + written)\n", v.prop.name,
           v.prop.multiProcessorCount, v.copy_gbs);
    return v;
}
