/* ghz-bench codec: GPU compression and decompression throughput against the memory
 * roofline of the same run.
 *
 *   ghz-bench codec [--gib G] [--reps R] [--json FILE] [--rel LIST] [--gen NAME]...
 *                   [--raw NAME:PATH[:FILL]]...
 *
 * For each field (generated ones by default, plus --raw files of little-endian
 * float32) and REL bound: the field is tiled on the GPU to at least G GiB (default 1;
 * said in the output when tiling happened), compressed and decompressed R times (default
 * 10) after warm-up, timed with CUDA events, and the median reported as GB/s of
 * uncompressed data. The same run measures a copy kernel (bytes read + written per
 * second) and gives each operation's roofline: (bytes read + bytes written) / copy
 * bandwidth. "comp" includes the REL range pass over the input (min/max); "comp-rg"
 * is the same compression with the range given (ghz_params_t has_range, as a caller
 * that knows it passes), which skips that pass. Each result is checked: max error / bound over the tiled array on the
 * GPU, fill values exact, and the GPU stream of the untiled field byte-identical to the
 * CPU reference's. */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "ghz/codec/codec_cuda.h"

/* max |x - y| over finite non-fill x; counts elements beyond eb and inexact specials */
__global__ void check_kernel(const float* x, const float* y, size_t n, int has_fill, float fill, double eb,
                             unsigned long long* d_maxerr_bits, unsigned long long* d_bad)
{
    double m = 0;
    unsigned long long bad = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float a = x[i], b = y[i];
        if (!isfinite(a) || (has_fill && a == fill)) {
            bad += __float_as_uint(a) != __float_as_uint(b);
            continue;
        }
        double e = fabs((double)a - (double)b);
        bad += !(e <= eb);
        m = fmax(m, e);
    }
    for (int k = 16; k; k >>= 1) {
        m = fmax(m, __shfl_xor_sync(0xFFFFFFFFu, m, k));
        bad += __shfl_xor_sync(0xFFFFFFFFu, bad, k);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMax(d_maxerr_bits, (unsigned long long)__double_as_longlong(m)); /* m >= 0: bits order */
        atomicAdd(d_bad, bad);
    }
}

/* Size in bytes cuSZp2's outlier mode would take at the same quantum: per block a code
 * byte, the first integer in as many bytes as it needs, and when the deltas are not
 * all zero a sign word and w plane words. A model of that format (no fill or raw
 * blocks: it cannot represent them, so they are charged at ghz's cost), for the
 * ratio comparison the issue asks for. */
static double cuszp2_outlier_bytes(const field& f, double eb)
{
    const double Q = 2 * eb;
    double bytes = 0;
    const size_t n = f.data.size();
    for (size_t b0 = 0; b0 < n; b0 += 32) {
        size_t m = std::min<size_t>(32, n - b0);
        long long q[32];
        bool ok = true;
        for (size_t i = 0; i < m; ++i) {
            float x = f.data[b0 + i];
            if (!std::isfinite(x) || (f.has_fill && x == f.fill) || std::fabs(x / Q) > 1e9) ok = false;
            q[i] = ok ? std::llrint(x / Q) : 0;
        }
        if (!ok) {
            bytes += 1 + 4.0 * m;
            continue;
        }
        unsigned long long mx = 0;
        for (size_t i = 1; i < m; ++i) mx = std::max<unsigned long long>(mx, std::llabs(q[i] - q[i - 1]));
        int w = 0;
        while (mx) {
            ++w;
            mx >>= 1;
        }
        unsigned long long a = std::llabs(q[0]);
        int ob = a == 0 ? 0 : a < 128 ? 1 : a < 32768 ? 2 : a < 8388608 ? 3 : 4;
        bytes += 1 + ob + (w ? 4.0 * (w + 1) : 0);
    }
    return bytes;
}

static void usage(void)
{
    printf("usage: ghz-bench codec [--rel a,b,c] [--prefer speed|ratio] %s\n", GHZ_BENCH_COMMON_USAGE);
}

int bench_codec(int argc, char** argv)
{
    bench_opts o;
    std::vector<field> fields;
    o.json = "bench_codec.json";
    if (int rc = bench_parse(argc, argv, o, usage); rc >= 0) return rc;
    if (int rc = bench_load_fields(o, fields)) return rc;
    const std::vector<double>& rels = o.rels;
    const int reps = o.reps;
    const double gib = o.gib;
    const char* json_path = o.json;

    const bench_env env = bench_start(reps);
    const cudaDeviceProp& prop = env.prop;
    cudaEvent_t ea = env.ea, eb = env.eb;
    const double copy_gbs = env.copy_gbs;
    printf("codec: ghz %s, format %u, f32, REL bounds, %s frames, %s; GB/s = uncompressed GB per second, median of "
           "%d\n\n",
           GHZ_VERSION_STRING, ghz_format_version(), o.ratio ? "ratio (RATIO.md)" : "block (FORMAT.md)", prop.name,
           reps);
    printf("%-14s %10s %7s %8s %8s %9s %8s %7s %8s %7s %8s %7s %9s %6s\n", "field", "GiB(tiled)", "REL", "ratio",
           "cuSZp2*", "maxerr/eb", "comp", "%roof", "comp-rg", "%roof", "decomp", "%roof", "identical", "bad");

    FILE* js = fopen(json_path, "w");
    if (js)
        fprintf(js, "{\"device\":\"%s\",\"copy_gbs\":%.1f,\"mode\":\"%s\",\"results\":[\n", prop.name, copy_gbs,
                o.ratio ? "ratio" : "speed");
    int first_json = 1, failures = 0;

    for (field& f : fields) {
        const size_t n0 = f.data.size();
        size_t reps_tile = (size_t)std::ceil(gib * (1 << 30) / (4.0 * n0));
        if (reps_tile < 1) reps_tile = 1;
        const size_t n = n0 * reps_tile;
        float *d_x, *d_y;
        CUDA_OK(cudaMalloc(&d_x, n * 4));
        CUDA_OK(cudaMalloc(&d_y, n * 4));
        for (size_t r = 0; r < reps_tile; ++r)
            CUDA_OK(cudaMemcpy(d_x + r * n0, f.data.data(), n0 * 4, cudaMemcpyHostToDevice));
        const size_t bound = ghz_compress_bound(n, GHZ_F32), bound0 = ghz_compress_bound(n0, GHZ_F32);
        /* a context: the workspace for n values, the SM count queried once */
        ghz_cuda_ctx_config_t cfg = GHZ_CUDA_CTX_CONFIG_INIT;
        cfg.max_elems = n;
        ghz_cuda_ctx_t* ctx = nullptr;
        GHZ_OK(ghz_cuda_ctx_create(&cfg, &ctx));
        if (o.ratio) GHZ_OK(ghz_cuda_ctx_reserve_ratio(ctx, GHZ_F32, n));
        /* ratio frames: the field's extents, its tiles stacked along the slowest one */
        size_t dims[3] = {0, 0, 0}, dims0[3] = {0, 0, 0};
        if (f.dims[0]) {
            const int slow = f.dims[2] > 1 ? 2 : f.dims[1] > 1 ? 1 : 0;
            for (int i = 0; i < 3; ++i) dims0[i] = dims[i] = i <= slow ? f.dims[i] : 0;
            dims[slow] *= reps_tile;
        }
        void* d_c;
        uint64_t* d_size;
        int* d_status;
        CUDA_OK(cudaMalloc(&d_c, bound));
        CUDA_OK(cudaMalloc(&d_size, 16));
        CUDA_OK(cudaMalloc(&d_status, 16));
        unsigned long long* d_chk;
        CUDA_OK(cudaMalloc(&d_chk, 16));

        for (double rel : rels) {
            ghz_params_t p = GHZ_PARAMS_INIT;
            double vmin, vmax, eb_abs;
            uint64_t cnt;
            p.dtype = GHZ_F32;
            p.eb_mode = GHZ_EB_REL;
            p.eb = rel;
            p.has_fill = f.has_fill;
            p.fill = f.fill;
            if (o.ratio) {
                p.prefer = GHZ_PREFER_RATIO;
                for (int i = 0; i < 3; ++i) p.dims[i] = dims[i];
            }
            /* REL over the field (= over its tiles) */
            GHZ_OK(ghz_value_range(&p, f.data.data(), n0, &vmin, &vmax, &cnt));
            GHZ_OK(ghz_abs_bound(&p, vmin, vmax, &eb_abs));

            ghz_buf_t zb = GHZ_BUF_INIT;
            zb.data = d_c;
            zb.capacity = bound;
            zb.where = GHZ_MEM_DEVICE;
            zb.d_size = d_size;
            double tc = time_ms(reps, ea, eb, [&] { ghz_cuda_compress(ctx, &p, d_x, n, &zb, d_status, NULL, 0, 0); });
            ghz_params_t pr = p; /* the same bound, range given: no range pass */
            pr.has_range = 1;
            pr.range_min = vmin;
            pr.range_max = vmax;
            double tk = time_ms(reps, ea, eb, [&] { ghz_cuda_compress(ctx, &pr, d_x, n, &zb, d_status, NULL, 0, 0); });
            uint64_t csize = 0;
            int st = 0;
            CUDA_OK(cudaMemcpy(&csize, d_size, 8, cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(&st, d_status, 4, cudaMemcpyDeviceToHost));
            /* the decoder reads the size the compressor left in device memory */
            double td = time_ms(reps, ea, eb, [&] {
                ghz_cuda_decompress(ctx, GHZ_F32, &zb, d_y, n * 4, NULL, d_status, NULL, 0, 0);
            });
            int st2 = 0;
            CUDA_OK(cudaMemcpy(&st2, d_status, 4, cudaMemcpyDeviceToHost));

            /* check the decoded array on the GPU */
            CUDA_OK(cudaMemset(d_chk, 0, 16));
            check_kernel<<<prop.multiProcessorCount * 8, 256>>>(d_x, d_y, n, f.has_fill, f.fill, eb_abs, d_chk,
                                                                d_chk + 1);
            unsigned long long chk[2];
            CUDA_OK(cudaMemcpy(chk, d_chk, 16, cudaMemcpyDeviceToHost));
            double maxerr;
            memcpy(&maxerr, &chk[0], 8);

            /* identity of the untiled field's stream with the CPU reference */
            std::vector<unsigned char> cpu(bound0), gpu(bound0);
            size_t cpu_size = 0, gpu_size = 0;
            for (int i = 0; i < 3; ++i) p.dims[i] = dims0[i];
            GHZ_OK(ghz_compress(&p, f.data.data(), n0, cpu.data(), bound0, &cpu_size));
            ghz_buf_t z0 = zb;
            z0.capacity = bound0;
            z0.d_size = NULL;
            GHZ_OK(ghz_cuda_compress_sync(ctx, &p, d_x, n0, &z0, 0));
            gpu_size = z0.size;
            CUDA_OK(cudaMemcpy(gpu.data(), d_c, gpu_size, cudaMemcpyDeviceToHost));
            bool same = gpu_size == cpu_size && memcmp(gpu.data(), cpu.data(), cpu_size) == 0;

            const double raw = 4.0 * n, ratio = raw / (double)csize;
            const double comp_gbs = raw / (tc * 1e-3) / 1e9, dec_gbs = raw / (td * 1e-3) / 1e9;
            const double known_gbs = raw / (tk * 1e-3) / 1e9;
            const double roof_c = (raw + csize) / (copy_gbs * 1e9), roof_d = (raw + csize) / (copy_gbs * 1e9);
            const double pc = 100.0 * roof_c / (tc * 1e-3), pd = 100.0 * roof_d / (td * 1e-3);
            const double pk = 100.0 * roof_c / (tk * 1e-3);
            const double sz_ratio = 4.0 * n0 / cuszp2_outlier_bytes(f, eb_abs);
            const bool ok = st == 0 && st2 == 0 && chk[1] == 0 && same;
            failures += !ok;
            printf("%-14s %10.2f %7.0e %8.2f %8.2f %9.6f %8.1f %7.1f %8.1f %7.1f %8.1f %7.1f %9s %6llu%s\n",
                   f.name.c_str(), n * 4.0 / (1 << 30), rel, ratio, sz_ratio, maxerr / eb_abs, comp_gbs, pc,
                   known_gbs, pk, dec_gbs, pd,
                   same ? "yes" : "NO", chk[1], reps_tile > 1 ? "  (tiled)" : "");
            if (js) {
                fprintf(js,
                        "%s{\"mode\":\"%s\",\"field\":\"%s\",\"elements\":%zu,\"tiles\":%zu,\"rel\":%g,\"eb_abs\":%.17g,"
                        "\"ratio\":%.17g,\"cuszp2_outlier_ratio\":%.17g,\"max_err_over_eb\":%.17g,"
                        "\"compress_gbs\":%.17g,\"compress_known_range_gbs\":%.17g,\"decompress_gbs\":%.17g,"
                        "\"compress_roofline_pct\":%.17g,\"compress_known_range_roofline_pct\":%.17g,"
                        "\"decompress_roofline_pct\":%.17g,\"cpu_gpu_identical\":%s,\"violations\":%llu,"
                        "\"status\":[%d,%d]}",
                        first_json ? "" : ",\n", o.ratio ? "ratio" : "speed", f.name.c_str(), n0, reps_tile, rel, eb_abs, ratio, sz_ratio,
                        maxerr / eb_abs, comp_gbs, known_gbs, dec_gbs, pc, pk, pd, same ? "true" : "false", chk[1],
                        st, st2);
                first_json = 0;
            }
        }
        CUDA_OK(cudaFree(d_x));
        CUDA_OK(cudaFree(d_y));
        CUDA_OK(cudaFree(d_c));
        GHZ_OK(ghz_cuda_ctx_destroy(ctx));
        CUDA_OK(cudaFree(d_size));
        CUDA_OK(cudaFree(d_status));
        CUDA_OK(cudaFree(d_chk));
    }
    if (js) {
        fprintf(js, "\n]}\n");
        fclose(js);
    }
    printf("\ncomp = compress with the REL range pass (min/max over the input first); comp-rg = compress with\n"
           "the range given (has_range: no range pass).\n"
           "%%roof = time the copy roofline needs for the bytes read and written / measured time.\n"
           "cuSZp2* = ratio of a model of cuSZp2's outlier-mode encoding at the same bound (see source).\n");
    if (failures) printf("FAILED: %d result(s) broke the bound, the status or CPU==GPU identity\n", failures);
    return failures ? 1 : 0;
}
