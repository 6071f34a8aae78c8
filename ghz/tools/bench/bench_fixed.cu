/* ghz-bench fixed: the fixed-rate codec (FIXED.md) on the GPU against the memory
 * rooflines of the same run.
 *
 *   ghz-bench fixed [--gib G] [--reps R] [--json FILE] [--gen NAME]... [--raw NAME:PATH]...
 *
 * For each field (float32; the float64 runs use the same values widened), dtype and
 * l = 8, 16, 32, the field is tiled on the GPU to at least G GiB of uncompressed data
 * (default 1) and, timed with CUDA events (median of R runs after warm-up, default 10):
 *  - encode: ghz_cuda_fixed_compress; roofline = (bytes read + written) / copy GB/s;
 *  - decompress: ghz_fixed_decompress_cuda into memory; same roofline;
 *  - decode in registers: a kernel that decodes every value with fixed.cuh's chunk
 *    loads and reduces them, as a solver does when it consumes compressed vectors
 *    (FRSZ2's use); roofline = compressed bytes / read-only GB/s (a kernel that only
 *    reads and reduces).
 * GB/s are of uncompressed data. Each result is checked: the GPU frame of the untiled
 * field equals the CPU reference's byte for byte, the device status is success, and
 * every decoded value of the tiled array is within FIXED.md's bound of its block
 * maximum. */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "ghz/codec/fixed.cuh"
#include "ghz/codec/fixed_cuda.h"

namespace {

/* CTA size of the in-register decode kernel: at ~70 registers, CTAs of 128 threads
 * leave 28 warps resident per SM where CTAs of 256 leave 24. */
constexpr int kReduceThreads = 128;

/* Fetches the U chunks c0 + j * stride that exist. */
template <unsigned BITS, unsigned U>
__device__ __forceinline__ void fetch_round(const ghz_fixed_view_t& v, uint64_t c0, uint64_t stride, uint64_t chunks,
                                            ghz::fixed_raw (&r)[U])
{
#pragma unroll
    for (unsigned j = 0; j < U; ++j)
        if (c0 + j * stride < chunks) r[j] = ghz::fixed_chunk_fetch<BITS>(v, c0 + j * stride);
}

/* Decodes every value and sums them, as a solver consuming a compressed vector does:
 * each thread keeps U chunks in flight (fixed.cuh's fetch/decode split), fetching the
 * next round's before it decodes this round's, so that its loads never stop while it
 * computes; four accumulators keep the additions from forming one serial chain (two
 * left the float64 l = 8 case at 87-90 % on an H100). */
template <typename T, unsigned BITS>
__global__ void __launch_bounds__(kReduceThreads) decode_reduce_kernel(ghz_fixed_view_t v, T* sink)
{
    using C = ghz::fixed_chunk<BITS>;
    constexpr unsigned U = BITS == 8 ? 2 : 4; /* 32 values per round at l = 8, and registers for 3 CTAs */
    const uint64_t chunks = C::count(v.n / 32u + (v.n % 32u != 0));
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    T acc[4] = {0, 0, 0, 0};
    uint64_t c0 = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    ghz::fixed_raw r[U];
    fetch_round<BITS, U>(v, c0, stride, chunks, r);
    for (; c0 < chunks; c0 += U * stride) {
        ghz::fixed_raw next[U];
        fetch_round<BITS, U>(v, c0 + U * stride, stride, chunks, next);
#pragma unroll
        for (unsigned j = 0; j < U; ++j) {
            if (c0 + j * stride >= chunks) break;
            T y[C::elems];
            ghz::fixed_chunk_values<T, BITS>(r[j], y);
#pragma unroll
            for (unsigned i = 0; i < C::elems; ++i) acc[i & 3u] += y[i];
        }
#pragma unroll
        for (unsigned j = 0; j < U; ++j) r[j] = next[j];
    }
    if (acc[0] + acc[1] + acc[2] + acc[3] == (T)1.2345e-30) *sink = acc[0]; /* keeps the loads alive */
}

/* One warp per block of 32: counts values beyond FIXED.md's bound
 * 2^(1-l) M (1 + 2^(1-l)) (+ 2^-24 M for f32 at l = 32, + the subnormal spacing) and
 * records the largest error / (2^(1-l) M). */
template <typename T>
__global__ void check_kernel(const T* x, const T* y, uint64_t n, unsigned bits,
                             unsigned long long* d_worst_bits, unsigned long long* d_bad)
{
    const unsigned lane = threadIdx.x & 31u;
    const uint64_t warps = (uint64_t)gridDim.x * blockDim.x / 32u;
    double worst = 0;
    unsigned long long bad = 0;
    for (uint64_t b = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32u; b * 32u < n; b += warps) {
        const uint64_t i = b * 32u + lane;
        const double xi = i < n ? (double)x[i] : 0.0, yi = i < n ? (double)y[i] : 0.0;
        double m = isfinite(xi) ? fabs(xi) : 0.0;
        for (int k = 16; k; k >>= 1) m = fmax(m, __shfl_xor_sync(0xFFFFFFFFu, m, k));
        const double unit = ldexp(m, 1 - (int)bits);
        double bound = unit * (1.0 + ldexp(1.0, 1 - (int)bits));
        bound += sizeof(T) == 4 ? (bits == 32 ? ldexp(m, -24) : 0.0) + ldexp(1.0, -149) : ldexp(1.0, -1074);
        if (i < n && isfinite(xi)) {
            const double e = fabs(xi - yi);
            bad += !(e <= bound);
            if (unit > 0) worst = fmax(worst, e / unit);
        } else if (i < n) {
            bad += isfinite(yi);
        }
    }
    for (int k = 16; k; k >>= 1) {
        worst = fmax(worst, __shfl_xor_sync(0xFFFFFFFFu, worst, k));
        bad += __shfl_xor_sync(0xFFFFFFFFu, bad, k);
    }
    if (lane == 0) {
        atomicMax(d_worst_bits, (unsigned long long)__double_as_longlong(worst));
        atomicAdd(d_bad, bad);
    }
}

/* One resident wave of CTAs (as the library's kernels and the roofline kernels). */
template <typename T, unsigned BITS>
void launch_decode_reduce_bits(const ghz_fixed_view_t& v, void* sink, int sms)
{
    const auto kernel = decode_reduce_kernel<T, BITS>;
    int per_sm = 1;
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kReduceThreads, 0));
    kernel<<<sms * per_sm, kReduceThreads>>>(v, (T*)sink);
}

template <typename T>
void launch_decode_reduce(const ghz_fixed_view_t& v, void* sink, int sms)
{
    if (v.bits == 8) launch_decode_reduce_bits<T, 8>(v, sink, sms);
    if (v.bits == 16) launch_decode_reduce_bits<T, 16>(v, sink, sms);
    if (v.bits == 32) launch_decode_reduce_bits<T, 32>(v, sink, sms);
}

struct result {
    double enc_ms, dec_ms, reg_ms, worst;
    unsigned long long bad;
    int status;
    bool identical;
};

/* Measures one (field, dtype, l) on the tiled device array d_x of n values, whose
 * first n0 values are the field (host copy h0). */
result measure(ghz_dtype_t t, unsigned bits, const void* d_x, size_t n, const void* h0, size_t n0,
               const bench_opts& o, cudaEvent_t ea, cudaEvent_t eb, const cudaDeviceProp& prop)
{
    const size_t elem = ghz_dtype_size(t), size = ghz_fixed_size(n, bits), size0 = ghz_fixed_size(n0, bits);
    const int grid = prop.multiProcessorCount * 8;
    result r;
    void *d_c, *d_y, *sink;
    int* d_status;
    unsigned long long* d_chk;
    CUDA_OK(cudaMalloc(&d_c, size));
    CUDA_OK(cudaMalloc(&d_y, n * elem));
    CUDA_OK(cudaMalloc(&sink, 16));
    CUDA_OK(cudaMalloc(&d_status, sizeof(int)));
    CUDA_OK(cudaMalloc(&d_chk, 16));
    r.enc_ms = time_ms(o.reps, ea, eb, [&] { GHZ_OK(ghz_cuda_fixed_compress(NULL, t, bits, d_x, n, d_c, size, 0)); });
    r.dec_ms = time_ms(o.reps, ea, eb, [&] {
        GHZ_OK(ghz_cuda_fixed_decompress(NULL, t, bits, n, d_c, size, d_y, n * elem, d_status, 0));
    });
    const ghz_fixed_view_t v = ghz_fixed_view_make(d_c, t, bits, n);
    r.reg_ms = time_ms(o.reps, ea, eb, [&] {
        if (t == GHZ_F32) launch_decode_reduce<float>(v, sink, prop.multiProcessorCount);
        else launch_decode_reduce<double>(v, sink, prop.multiProcessorCount);
    });
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(&r.status, d_status, sizeof(int), cudaMemcpyDeviceToHost));

    CUDA_OK(cudaMemset(d_chk, 0, 16));
    if (t == GHZ_F32)
        check_kernel<float><<<grid, 256>>>((const float*)d_x, (const float*)d_y, n, bits, d_chk, d_chk + 1);
    else
        check_kernel<double><<<grid, 256>>>((const double*)d_x, (const double*)d_y, n, bits, d_chk, d_chk + 1);
    unsigned long long chk[2];
    CUDA_OK(cudaMemcpy(chk, d_chk, 16, cudaMemcpyDeviceToHost));
    memcpy(&r.worst, &chk[0], 8);
    r.bad = chk[1];

    /* the untiled field: GPU bytes == CPU bytes */
    std::vector<unsigned char> cpu(size0), gpu(size0);
    size_t cpu_size = 0;
    GHZ_OK(ghz_fixed_compress(t, bits, h0, n0, cpu.data(), size0, &cpu_size));
    GHZ_OK(ghz_cuda_fixed_compress(NULL, t, bits, d_x, n0, d_c, size0, 0));
    CUDA_OK(cudaMemcpy(gpu.data(), d_c, size0, cudaMemcpyDeviceToHost));
    r.identical = cpu_size == size0 && memcmp(cpu.data(), gpu.data(), size0) == 0;

    CUDA_OK(cudaFree(d_c));
    CUDA_OK(cudaFree(d_y));
    CUDA_OK(cudaFree(sink));
    CUDA_OK(cudaFree(d_status));
    CUDA_OK(cudaFree(d_chk));
    return r;
}

void usage()
{
    printf("usage: ghz-bench fixed %s\n", GHZ_BENCH_COMMON_USAGE);
}

} // namespace

int bench_fixed(int argc, char** argv)
{
    bench_opts o;
    std::vector<field> fields;
    o.json = "bench_fixed.json";
    if (int rc = bench_parse(argc, argv, o, usage); rc >= 0) return rc;
    if (int rc = bench_load_fields(o, fields)) return rc;

    const bench_env env = bench_start(o.reps);
    const cudaDeviceProp& prop = env.prop;
    cudaEvent_t ea = env.ea, eb = env.eb;
    const double copy_gbs = env.copy_gbs;
    const double read_gbs = bench_read_gbs(o.reps, ea, eb, prop);
    printf("read-only kernel %.0f GB/s (bytes read)\n", read_gbs);
    printf("codec: ghz %s fixed-rate mode (FIXED.md); GB/s = uncompressed GB per second, median of %d;\n"
           "bound: |x - x'| <= 2^(1-l) M (1 + 2^(1-l)) per block maximum M; worst = max |x - x'| / (2^(1-l) M)\n"
           "targets: decode in registers >= 90 %% of the read-only roofline, encode >= 80 %% of the copy roofline\n\n",
           GHZ_VERSION_STRING, o.reps);
    printf("%-10s %-4s %3s %8s %6s %8s %6s %8s %6s %8s %6s %7s %9s %5s\n", "field", "type", "l", "GiB", "ratio",
           "encode", "%roof", "decomp", "%roof", "in-reg", "%roof", "worst", "identical", "bad");

    FILE* js = fopen(o.json, "w");
    if (js)
        fprintf(js, "{\"device\":\"%s\",\"copy_gbs\":%.1f,\"read_gbs\":%.1f,\"results\":[\n", prop.name, copy_gbs,
                read_gbs);
    int first_json = 1, failures = 0;
    static const ghz_dtype_t dtypes[] = {GHZ_F32, GHZ_F64};
    static const unsigned bits_all[] = {8, 16, 32};

    for (const field& f : fields) {
        const size_t n0 = f.data.size();
        std::vector<double> wide(f.data.begin(), f.data.end());
        for (ghz_dtype_t t : dtypes) {
            const size_t elem = ghz_dtype_size(t);
            const void* h0 = t == GHZ_F32 ? (const void*)f.data.data() : (const void*)wide.data();
            size_t tiles = (size_t)std::ceil(o.gib * (1 << 30) / ((double)elem * n0));
            if (tiles < 1) tiles = 1;
            const size_t n = n0 * tiles;
            void* d_x;
            CUDA_OK(cudaMalloc(&d_x, n * elem));
            for (size_t k = 0; k < tiles; ++k)
                CUDA_OK(cudaMemcpy((char*)d_x + k * n0 * elem, h0, n0 * elem, cudaMemcpyHostToDevice));
            for (unsigned bits : bits_all) {
                const result r = measure(t, bits, d_x, n, h0, n0, o, ea, eb, prop);
                const double raw = (double)n * elem, comp = (double)ghz_fixed_size(n, bits);
                const double enc_gbs = raw / (r.enc_ms * 1e-3) / 1e9, dec_gbs = raw / (r.dec_ms * 1e-3) / 1e9;
                const double reg_gbs = raw / (r.reg_ms * 1e-3) / 1e9;
                const double roof_copy = (raw + comp) / (copy_gbs * 1e9), roof_read = comp / (read_gbs * 1e9);
                const double pe = 100.0 * roof_copy / (r.enc_ms * 1e-3), pd = 100.0 * roof_copy / (r.dec_ms * 1e-3);
                const double pr = 100.0 * roof_read / (r.reg_ms * 1e-3);
                const bool ok = r.status == 0 && r.bad == 0 && r.identical;
                failures += !ok;
                printf("%-10s %-4s %3u %8.2f %6.2f %8.1f %6.1f %8.1f %6.1f %8.1f %6.1f %7.4f %9s %5llu%s\n",
                       f.name.c_str(), t == GHZ_F32 ? "f32" : "f64", bits, raw / (1 << 30), raw / comp, enc_gbs, pe,
                       dec_gbs, pd, reg_gbs, pr, r.worst, r.identical ? "yes" : "NO", r.bad,
                       tiles > 1 ? "  (tiled)" : "");
                if (js) {
                    fprintf(js,
                            "%s{\"field\":\"%s\",\"dtype\":\"%s\",\"bits\":%u,\"elements\":%zu,\"tiles\":%zu,"
                            "\"ratio\":%.17g,\"encode_gbs\":%.17g,\"encode_copy_roofline_pct\":%.17g,"
                            "\"decompress_gbs\":%.17g,\"decompress_copy_roofline_pct\":%.17g,"
                            "\"decode_in_registers_gbs\":%.17g,\"decode_read_roofline_pct\":%.17g,"
                            "\"worst_err_over_unit\":%.17g,\"violations\":%llu,\"cpu_gpu_identical\":%s,\"status\":%d}",
                            first_json ? "" : ",\n", f.name.c_str(), t == GHZ_F32 ? "f32" : "f64", bits, n0, tiles,
                            raw / comp, enc_gbs, pe, dec_gbs, pd, reg_gbs, pr, r.worst, r.bad,
                            r.identical ? "true" : "false", r.status);
                    first_json = 0;
                }
            }
            CUDA_OK(cudaFree(d_x));
        }
    }
    if (js) {
        fprintf(js, "\n]}\n");
        fclose(js);
    }
    printf("\n%%roof: encode and decomp against the copy roofline ((bytes read + written) / copy GB/s),\n"
           "in-reg (decode in registers and reduce) against the read-only roofline (compressed bytes / read GB/s).\n");
    if (failures) printf("FAILED: %d result(s) broke the bound, the status or CPU==GPU identity\n", failures);
    return failures ? 1 : 0;
}
