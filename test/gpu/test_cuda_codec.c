/* test/gpu/test_cuda_codec.c: the CUDA codec against the CPU reference (label gpu).
 * Properties: the GPU writes the CPU's bytes exactly, for every input class, sub-range
 * alignment, batch and size; the GPU decodes to the CPU's values bit for bit; bad
 * streams are reported through the device status and never crash; the calls can be
 * captured in a CUDA graph. Skipped where no GPU is present. */
#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/block.h"
#include "ghz/codec/codec_cuda.h"
#include "ghz/ghz.h"
#include "gpu_testutil.h"
#include "warp_kernels.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    return gpu_rng(&rng_state);
}
static double unif(void)
{
    return (double)(rng() >> 11) * 0x1.0p-53;
}

enum kind { SMOOTH, NOISY, RANDOM_BITS, CONSTANT, SPECIALS, FILLED, BIGRANGE, KINDS };

/* n values of one input class, as doubles; the caller narrows to f32. */
static void make(enum kind k, double* x, size_t n)
{
    double walk = 0;
    for (size_t i = 0; i < n; ++i) {
        switch (k) {
        case SMOOTH: x[i] = sin((double)i * 1e-3) * 50 + cos((double)i * 7e-5) * 20; break;
        case NOISY: x[i] = sin((double)i * 1e-2) + (unif() - 0.5) * 0.3; break;
        case RANDOM_BITS: {
            uint64_t u = rng();
            double d;
            memcpy(&d, &u, 8);
            x[i] = isfinite(d) && fabs(d) < 1e30 ? d : unif() * 1e6;
            break;
        }
        case CONSTANT: x[i] = 3.25; break;
        case SPECIALS: {
            static const double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-310, 1e300, -1e34};
            x[i] = (rng() % 5 == 0) ? sp[rng() % 8] : (walk += unif() - 0.5);
            break;
        }
        case FILLED: x[i] = ((i / 700) % 3 == 0 || rng() % 17 == 0) ? -1e34 : (walk += unif() - 0.5); break;
        case BIGRANGE: x[i] = (unif() - 0.5) * pow(10.0, (double)(rng() % 12)); break;
        default: x[i] = 0;
        }
    }
}

/* Host copy of n values of dtype from doubles. */
static void* narrow(const double* x, size_t n, ghz_dtype_t t)
{
    void* out = malloc(n * ghz_dtype_size(t) + 1);
    for (size_t i = 0; i < n; ++i) {
        if (t == GHZ_F32) {
            float f = (float)x[i];
            memcpy((char*)out + 4 * i, &f, 4);
        } else {
            memcpy((char*)out + 8 * i, &x[i], 8);
        }
    }
    return out;
}

/* Compresses host[0..n) on the CPU and on the GPU (source at element offset src_off,
 * destination at byte offset dst_off of their buffers) and asserts equal bytes; then
 * decodes the stream on the GPU (into an element offset src_off too) and asserts the
 * CPU's values bit for bit. */
static void check_identity(const ghz_params_t* p, const void* host, size_t n, size_t src_off, size_t dst_off)
{
    const size_t elem = ghz_dtype_size(p->dtype), bound = ghz_compress_bound(n, p->dtype);
    unsigned char* cpu = malloc(bound);
    unsigned char* gpu = malloc(bound + 1);
    void* cpu_dec = malloc(n * elem + 1);
    void* gpu_dec = malloc(n * elem + 1);
    size_t cpu_size = 0, gpu_size = 0, gpu_n = 0;
    char *d_src, *d_dst, *d_dec;
    ghz_cuda_ctx_t* ctx = make_ctx(1, n);

    GK(ghz_compress(p, host, n, cpu, bound, &cpu_size));
    CK(cudaMalloc((void**)&d_src, (n + src_off) * elem + 16));
    CK(cudaMalloc((void**)&d_dst, bound + dst_off + 16));
    CK(cudaMalloc((void**)&d_dec, (n + src_off) * elem + 16));
    CK(cudaMemcpy(d_src + src_off * elem, host, n * elem, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_dst, 0xA5, bound + dst_off + 16)); /* poison */

    ghz_buf_t z = dev_buf(d_dst + dst_off, 0, bound, NULL);
    GK(ghz_cuda_compress_sync(ctx, p, d_src + src_off * elem, n, &z, 0));
    gpu_size = z.size;
    cr_assert_eq(gpu_size, cpu_size, "n=%zu dtype=%d mode=%d eb=%g: GPU %zu bytes, CPU %zu", n, p->dtype,
                 p->eb_mode, p->eb, gpu_size, cpu_size);
    CK(cudaMemcpy(gpu, d_dst + dst_off, gpu_size, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < cpu_size; ++i)
        if (gpu[i] != cpu[i])
            cr_assert_fail("n=%zu dtype=%d mode=%d eb=%g src_off=%zu dst_off=%zu: byte %zu differs (GPU %02x, CPU %02x)",
                           n, p->dtype, p->eb_mode, p->eb, src_off, dst_off, i, gpu[i], cpu[i]);

    /* GPU decode of the (identical) stream, at an odd source offset too */
    CK(cudaMemset(d_dec, 0x5A, (n + src_off) * elem + 16));
    GK(ghz_cuda_decompress_sync(ctx, p->dtype, &z, d_dec + src_off * elem, n * elem, &gpu_n, 0));
    cr_assert_eq(gpu_n, n);
    GK(ghz_decompress(cpu, cpu_size, cpu_dec, n * elem, NULL));
    CK(cudaMemcpy(gpu_dec, d_dec + src_off * elem, n * elem, cudaMemcpyDeviceToHost));
    cr_assert(memcmp(gpu_dec, cpu_dec, n * elem) == 0, "n=%zu: GPU and CPU decodes differ", n);

    cudaFree(d_src);
    cudaFree(d_dst);
    cudaFree(d_dec);
    GK(ghz_cuda_ctx_destroy(ctx));
    free(cpu);
    free(gpu);
    free(cpu_dec);
    free(gpu_dec);
}

static void sweep(ghz_dtype_t t, size_t n, size_t src_off, size_t dst_off)
{
    static const double abs_eb[] = {1e-1, 1e-3, 1e-6};
    static const double rel_eb[] = {1e-2, 1e-4};
    double* x = malloc((n + 1) * sizeof *x);
    for (int k = 0; k < KINDS; ++k) {
        void* host;
        make((enum kind)k, x, n);
        host = narrow(x, n, t);
        for (int mode = 0; mode < 2; ++mode) {
            for (int e = 0; e < (mode ? 2 : 3); ++e) {
                ghz_params_t p = GHZ_PARAMS_INIT;
                p.dtype = t;
                p.eb_mode = mode ? GHZ_EB_REL : GHZ_EB_ABS;
                p.eb = mode ? rel_eb[e] : abs_eb[e];
                p.has_fill = k == FILLED || k == SPECIALS;
                p.fill = -1e34;
                check_identity(&p, host, n, src_off, dst_off);
            }
        }
        free(host);
    }
    free(x);
}

Test(cuda_codec, identity_tiny_sizes)
{
    need_gpu();
    for (size_t n = 0; n <= 70; n += (n < 40 ? 1 : 7)) {
        sweep(GHZ_F32, n, n % 4, n % 16);
        sweep(GHZ_F64, n, n % 2, (n * 5) % 16);
    }
}

Test(cuda_codec, identity_odd_and_tile_sizes)
{
    static const size_t sizes[] = {2047, 2048, 2049, 4095, 4096, 4097, 4096 * 3 + 31, 1000003};
    need_gpu();
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
        sweep(GHZ_F32, sizes[i], i % 4, (i * 3) % 16);
        sweep(GHZ_F64, sizes[i], (i + 1) % 2, (i * 7) % 16);
    }
}

Test(cuda_codec, identity_large_many_tiles)
{
    const size_t n = ((size_t)1 << 25) + 13;
    double* x = malloc(n * sizeof *x);
    void* host;
    ghz_params_t p = GHZ_PARAMS_INIT;
    need_gpu();
    make(SMOOTH, x, n);
    for (size_t i = 0; i < n; i += 4099) x[i] += unif(); /* some wider blocks */
    host = narrow(x, n, GHZ_F32);
    p.eb = 1e-4;
    check_identity(&p, host, n, 1, 3);
    free(host);
    free(x);
}

/* A batch of K chunks (more than one launch takes: the call splits it) writes each
 * chunk's CPU frame, with one status per chunk. */
static void batch_check(int K, int bad_chunk)
{
    const size_t pattern[5] = {0, 1, 33, 70001, 3007};
    size_t* ns = malloc(K * sizeof *ns);
    const void** d_srcs = malloc(K * sizeof *d_srcs);
    ghz_buf_t* dsts = malloc(K * sizeof *dsts);
    uint64_t* sizes = malloc(K * sizeof *sizes);
    int* status = malloc(K * sizeof *status);
    size_t ws = 0, total = 0;
    uint64_t* d_sizes;
    int* d_status;
    void* d_work;
    ghz_params_t p = GHZ_PARAMS_INIT;
    double* x;
    void* host;
    char* d_all;
    for (int i = 0; i < K; ++i) total += ns[i] = pattern[i % 5];
    x = malloc(total * sizeof *x + 8);
    make(NOISY, x, total);
    if (bad_chunk >= 0) { /* a chunk whose REL bound overflows: 1e300 * 6e38 */
        size_t off = 0;
        for (int i = 0; i < bad_chunk; ++i) off += ns[i];
        x[off] = 3e38, x[off + 1] = -3e38;
    }
    host = narrow(x, total, GHZ_F32);
    p.eb = bad_chunk >= 0 ? 1e300 : 1e-3; /* REL: each chunk its own range */
    GK(ghz_cuda_compress_workspace(K, ns, &ws));
    CK(cudaMalloc(&d_work, ws));
    CK(cudaMalloc((void**)&d_sizes, K * sizeof(uint64_t)));
    CK(cudaMalloc((void**)&d_status, K * sizeof(int)));
    CK(cudaMalloc((void**)&d_all, total * 4 + 4));
    CK(cudaMemcpy(d_all, host, total * 4, cudaMemcpyHostToDevice));
    for (size_t i = 0, off = 0; i < (size_t)K; ++i) {
        void* d;
        d_srcs[i] = d_all + off * 4; /* consecutive sub-ranges of one buffer */
        off += ns[i];
        CK(cudaMalloc(&d, ghz_compress_bound(ns[i], GHZ_F32)));
        dsts[i] = dev_buf(d, 0, ghz_compress_bound(ns[i], GHZ_F32), d_sizes + i);
    }
    GK(ghz_cuda_compress_batch(NULL, &p, K, d_srcs, ns, dsts, d_status, d_work, ws, 0));
    CK(cudaMemcpy(sizes, d_sizes, K * sizeof *sizes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(status, d_status, K * sizeof *status, cudaMemcpyDeviceToHost));
    for (size_t i = 0, off = 0; i < (size_t)K; ++i) {
        unsigned char* cpu = malloc(dsts[i].capacity);
        unsigned char* gpu = malloc(dsts[i].capacity);
        size_t cpu_size = 0;
        ghz_status_t st = ghz_compress(&p, (const char*)host + off * 4, ns[i], cpu, dsts[i].capacity, &cpu_size);
        /* the GPU's status is the CPU's, chunk by chunk */
        cr_assert_eq(status[i], (int)st, "K %d chunk %zu: GPU %d, CPU %d", K, i, status[i], (int)st);
        if (st == GHZ_SUCCESS) {
            cr_assert_eq(sizes[i], cpu_size, "K %d chunk %zu", K, i);
            CK(cudaMemcpy(gpu, dsts[i].data, cpu_size, cudaMemcpyDeviceToHost));
            cr_assert(memcmp(gpu, cpu, cpu_size) == 0, "K %d chunk %zu bytes differ", K, i);
        } else {
            cr_assert_eq(sizes[i], 0, "K %d chunk %zu: a failed chunk has no frame", K, i);
        }
        off += ns[i];
        free(cpu);
        free(gpu);
        cudaFree(dsts[i].data);
    }
    cudaFree(d_all), cudaFree(d_work), cudaFree(d_sizes), cudaFree(d_status);
    free(ns), free(d_srcs), free(dsts), free(sizes), free(status), free(host), free(x);
}

Test(cuda_codec, batch_equals_single)
{
    need_gpu();
    batch_check(5, -1);
    batch_check(70, -1); /* an Alltoall over 70 ranks: three launches inside one call */
}

/* NaN as the fill value (FORMAT.md): a frame written without a declared fill declares
 * the canonical quiet NaN, on the GPU as on the CPU, with no pass over the data; the GPU
 * writes the CPU's bytes. Land as the canonical NaN from element `first` on (runs of
 * whole blocks and coast blocks, and the last element), optionally NaNs of another
 * payload and Inf (ordinary values: RAW); first = n: no NaN at all. */
static void* nan_masked(ghz_dtype_t t, size_t n, size_t first, int others)
{
    double* x = malloc((n + 1) * sizeof *x);
    void* host;
    make(SMOOTH, x, n);
    host = narrow(x, n, t);
    for (size_t i = first; i < n; ++i) {
        const int land = (i / 300) % 3 == 0 || (i % 37 == 5 && (i / 90) % 2 == 0) || i == n - 1;
        const int odd = others && i % 1013 == 17;
        if (!land && !odd) continue;
        if (t == GHZ_F32) {
            const uint32_t u = odd ? (i % 2 ? 0xFFC00000u : 0x7F800000u) : 0x7FC00000u;
            memcpy((char*)host + 4 * i, &u, 4);
        } else {
            const uint64_t u = odd ? (i % 2 ? 0xFFF8000000000000ull : 0x7FF0000000000000ull) : 0x7FF8000000000000ull;
            memcpy((char*)host + 8 * i, &u, 8);
        }
    }
    free(x);
    return host;
}

Test(cuda_codec, identity_nan_masked)
{
    static const size_t sizes[] = {1, 31, 33, 4097, 1000003};
    need_gpu();
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; ++si)
        for (int ti = 0; ti < 2; ++ti)
            for (int fi = 0; fi < 3; ++fi) {
                const size_t n = sizes[si];
                const size_t first = fi == 0 ? 0 : fi == 1 ? n / 2 + 7 : n; /* late tile, none */
                const ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
                void* host = nan_masked(t, n, first < n ? first : n, fi == 0);
                for (int mode = 0; mode < 2; ++mode)
                    for (int decl = 0; decl < 2; ++decl) {
                        ghz_params_t p = GHZ_PARAMS_INIT;
                        ghz_frame_info_t info;
                        unsigned char* cpu = malloc(ghz_compress_bound(n, t));
                        size_t cs = 0;
                        p.dtype = t;
                        p.eb_mode = mode ? GHZ_EB_REL : GHZ_EB_ABS;
                        p.eb = mode ? 1e-3 : 1e-2;
                        p.has_fill = decl; /* declared -1e34: NaN an ordinary value */
                        p.fill = -1e34;
                        check_identity(&p, host, n, si % 4, si % 16);
                        /* and the frame says so: the declared fill, or the canonical NaN */
                        GK(ghz_compress(&p, host, n, cpu, ghz_compress_bound(n, t), &cs));
                        GK(ghz_frame_info(cpu, cs, &info));
                        cr_assert(info.has_fill == 1 &&
                                      info.fill_bits == (decl ? (t == GHZ_F32 ? 0xF7F684DFull : 0xC6FED09BEAD87C03ull)
                                                         : t == GHZ_F32 ? 0x7FC00000ull : 0x7FF8000000000000ull),
                                  "n %zu declared %d: has_fill %d fill_bits %llx", n, decl, info.has_fill,
                                  (unsigned long long)info.fill_bits);
                        free(cpu);
                    }
                free(host);
            }
}

/* A batch whose chunks hold the canonical NaN, a NaN of other bits, or none: every frame
 * declares the canonical NaN and is the CPU's frame of that chunk alone. */
Test(cuda_codec, batch_nan_masked)
{
    enum { K = 7 };
    const size_t ns[K] = {0, 1, 33, 70001, 3007, 4096, 129};
    size_t total = 0, ws = 0;
    const void* d_srcs[K];
    ghz_buf_t dsts[K];
    uint64_t sizes[K], *d_sizes;
    int status[K], *d_status;
    void *d_work, *host;
    char* d_all;
    ghz_params_t p = GHZ_PARAMS_INIT;
    need_gpu();
    for (int i = 0; i < K; ++i) total += ns[i];
    host = nan_masked(GHZ_F32, total, 40, 1);
    {   /* chunk 4 without NaN, chunk 5 with a NaN of another payload first */
        size_t off = ns[0] + ns[1] + ns[2] + ns[3];
        for (size_t i = 0; i < ns[4]; ++i) {
            float f = (float)i * 0.5f;
            memcpy((char*)host + 4 * (off + i), &f, 4);
        }
        const uint32_t neg = 0xFFC00001u;
        memcpy((char*)host + 4 * (off + ns[4] + 3), &neg, 4);
    }
    p.eb = 1e-3; /* REL: the range pass leaves the NaNs out */
    GK(ghz_cuda_compress_workspace(K, ns, &ws));
    CK(cudaMalloc(&d_work, ws));
    CK(cudaMalloc((void**)&d_sizes, K * sizeof(uint64_t)));
    CK(cudaMalloc((void**)&d_status, K * sizeof(int)));
    CK(cudaMalloc((void**)&d_all, total * 4 + 4));
    CK(cudaMemcpy(d_all, host, total * 4, cudaMemcpyHostToDevice));
    for (size_t i = 0, off = 0; i < (size_t)K; ++i) {
        void* d;
        d_srcs[i] = d_all + off * 4;
        off += ns[i];
        CK(cudaMalloc(&d, ghz_compress_bound(ns[i], GHZ_F32)));
        dsts[i] = dev_buf(d, 0, ghz_compress_bound(ns[i], GHZ_F32), d_sizes + i);
    }
    for (int mode = 0; mode < 2; ++mode) {
        p.eb_mode = mode ? GHZ_EB_REL : GHZ_EB_ABS;
        GK(ghz_cuda_compress_batch(NULL, &p, K, d_srcs, ns, dsts, d_status, d_work, ws, 0));
        CK(cudaMemcpy(sizes, d_sizes, sizeof sizes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(status, d_status, sizeof status, cudaMemcpyDeviceToHost));
        for (size_t i = 0, off = 0; i < (size_t)K; off += ns[i], ++i) {
            unsigned char* cpu = malloc(dsts[i].capacity);
            unsigned char* gpu = malloc(dsts[i].capacity);
            size_t cs = 0;
            GK(ghz_compress(&p, (const char*)host + off * 4, ns[i], cpu, dsts[i].capacity, &cs));
            cr_assert_eq(status[i], GHZ_SUCCESS, "mode %d chunk %zu", mode, i);
            cr_assert_eq(sizes[i], cs, "mode %d chunk %zu: GPU %llu bytes, CPU %zu", mode, i,
                         (unsigned long long)sizes[i], cs);
            CK(cudaMemcpy(gpu, dsts[i].data, cs, cudaMemcpyDeviceToHost));
            cr_assert(memcmp(gpu, cpu, cs) == 0, "mode %d chunk %zu bytes differ", mode, i);
            free(cpu);
            free(gpu);
        }
    }
    for (int i = 0; i < K; ++i) cudaFree(dsts[i].data);
    cudaFree(d_all), cudaFree(d_work), cudaFree(d_sizes), cudaFree(d_status);
    free(host);
}

/* A REL bound that overflows fails on the GPU as on the CPU (GHZ_ERR_BAD_BOUND), in
 * that chunk alone. */
Test(cuda_codec, rel_overflow_agrees_with_cpu)
{
    need_gpu();
    batch_check(5, 3);
    batch_check(40, 37);
}

/* Every corrupted stream is reported through *d_status; no crash, no hang. */
Test(cuda_codec, corrupt_streams_reported)
{
    const size_t n = 50000;
    double* x = malloc(n * sizeof *x);
    void* host;
    unsigned char *cpu, *bad;
    size_t bound = ghz_compress_bound(n, GHZ_F32), size;
    char *d_src, *d_dec;
    int rejected = 0, trials = 0;
    ghz_params_t p = GHZ_PARAMS_INIT;
    need_gpu();
    ghz_cuda_ctx_t* ctx = make_ctx(1, n);
    make(NOISY, x, n);
    host = narrow(x, n, GHZ_F32);
    cpu = malloc(bound);
    bad = malloc(bound);
    GK(ghz_compress(&p, host, n, cpu, bound, &size));
    CK(cudaMalloc((void**)&d_src, bound));
    CK(cudaMalloc((void**)&d_dec, n * 4));
    for (int t = 0; t < 400; ++t) {
        size_t got = 0, len = size;
        ghz_status_t gst;
        memcpy(bad, cpu, size);
        if (t < 64) {
            bad[t] ^= (unsigned char)(1u << (t % 8)); /* header bits */
        } else if (t < 100) {
            len = (size_t)(rng() % size); /* truncation */
        } else {
            size_t pos = GHZ_HEADER_SIZE + (size_t)(rng() % (size - GHZ_HEADER_SIZE));
            bad[pos] ^= (unsigned char)(1u + rng() % 255u);
        }
        CK(cudaMemcpy(d_src, bad, len ? len : 1, cudaMemcpyHostToDevice));
        {
            ghz_buf_t in = dev_buf(d_src, len, len, NULL);
            gst = ghz_cuda_decompress_sync(ctx, GHZ_F32, &in, d_dec, n * 4, &got, 0);
        }
        {
            void* out = malloc(n * 4);
            ghz_status_t c2 = ghz_decompress(bad, len, out, n * 4, NULL);
            /* the GPU must reject whatever the CPU rejects (it may name it differently) */
            if (c2 != GHZ_SUCCESS)
                cr_assert_neq(gst, GHZ_SUCCESS, "trial %d: CPU says %s, GPU accepted", t, ghz_status_string(c2));
            else
                cr_assert_eq(gst, GHZ_SUCCESS, "trial %d: CPU accepted, GPU says %s", t, ghz_status_string(gst));
            free(out);
        }
        if (t >= 64 && t < 100 && len < size)
            cr_assert_neq(gst, GHZ_SUCCESS, "trial %d: a stream cut to %zu of %zu bytes was accepted", t, len, size);
        rejected += gst != GHZ_SUCCESS;
        ++trials;
        CK(cudaGetLastError());
    }
    /* payload flips inside a block can decode to other values (no checksum in format
     * v1); header and size damage must not */
    cr_assert_geq(rejected, 36, "only %d of %d corruptions rejected", rejected, trials);
    cudaFree(d_src);
    cudaFree(d_dec);
    GK(ghz_cuda_ctx_destroy(ctx));
    free(host);
    free(x);
    free(cpu);
    free(bad);
}

/* The stream-ordered calls can be captured in a graph and replayed: compress (the
 * range scan included) and decompress, the decoder reading the size the compressor
 * left in device memory. */
Test(cuda_codec, graph_capture)
{
    const size_t n = 123457;
    double* x = malloc(n * sizeof *x);
    void* host;
    size_t bound = ghz_compress_bound(n, GHZ_F32), cpu_size;
    char *d_src, *d_dst, *d_dec;
    uint64_t* d_size;
    int* d_status;
    uint64_t size = 0;
    int status[2];
    unsigned char *cpu, *gpu;
    float* dec = malloc(n * 4);
    float* cpu_dec = malloc(n * 4);
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    ghz_params_t p = GHZ_PARAMS_INIT;
    need_gpu();
    ghz_cuda_ctx_t* ctx = make_ctx(1, n);
    make(SMOOTH, x, n);
    host = narrow(x, n, GHZ_F32);
    cpu = malloc(bound);
    gpu = malloc(bound);
    GK(ghz_compress(&p, host, n, cpu, bound, &cpu_size));
    GK(ghz_decompress(cpu, cpu_size, cpu_dec, n * 4, NULL));
    CK(cudaMalloc((void**)&d_src, n * 4));
    CK(cudaMalloc((void**)&d_dst, bound));
    CK(cudaMalloc((void**)&d_dec, n * 4));
    CK(cudaMalloc((void**)&d_size, 8));
    CK(cudaMalloc((void**)&d_status, 2 * sizeof(int)));
    CK(cudaMemcpy(d_src, host, n * 4, cudaMemcpyHostToDevice));
    ghz_buf_t z = dev_buf(d_dst, 0, bound, d_size);
    CK(cudaStreamCreate(&s));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    GK(ghz_cuda_compress(ctx, &p, d_src, n, &z, d_status, NULL, 0, s));
    GK(ghz_cuda_decompress(ctx, GHZ_F32, &z, d_dec, n * 4, NULL, d_status + 1, NULL, 0, s));
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    for (int r = 0; r < 3; ++r) {
        CK(cudaMemsetAsync(d_dst, 0, bound, s));
        CK(cudaMemsetAsync(d_dec, 0, n * 4, s));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(&size, d_size, 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(status, d_status, sizeof status, cudaMemcpyDeviceToHost));
        cr_assert_eq(status[0], GHZ_SUCCESS);
        cr_assert_eq(status[1], GHZ_SUCCESS);
        cr_assert_eq(size, cpu_size);
        CK(cudaMemcpy(gpu, d_dst, cpu_size, cudaMemcpyDeviceToHost));
        cr_assert(memcmp(gpu, cpu, cpu_size) == 0, "replay %d differs", r);
        CK(cudaMemcpy(dec, d_dec, n * 4, cudaMemcpyDeviceToHost));
        cr_assert(memcmp(dec, cpu_dec, n * 4) == 0, "replay %d: decoded values differ", r);
    }
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    cudaFree(d_src);
    cudaFree(d_dst);
    cudaFree(d_dec);
    cudaFree(d_size);
    cudaFree(d_status);
    GK(ghz_cuda_ctx_destroy(ctx));
    free(host), free(x), free(cpu), free(gpu), free(dec), free(cpu_dec);
}

/* The GPU value range equals the CPU's; merged ranges in device memory (p.d_range) and
 * a bound in device memory (p.d_eb_abs) give the CPU's frames for has_range and eb. */
Test(cuda_codec, device_range_and_bound)
{
    const size_t n = 200003, half = n / 2;
    double* x = malloc(n * sizeof *x);
    size_t bound = ghz_compress_bound(n, GHZ_F32), cpu_size = 0;
    const void* srcs[2];
    size_t ns[2] = {half, n - half};
    ghz_range_t r[2], *d_r;
    double lo, hi, eb = 0.0123, *d_eb;
    char *d_src, *d_dst;
    uint64_t* d_size;
    int* d_status;
    int status = -1;
    unsigned char *cpu = malloc(bound), *gpu = malloc(bound);
    ghz_params_t p = GHZ_PARAMS_INIT;
    need_gpu();
    ghz_cuda_ctx_t* ctx = make_ctx(2, n);
    make(FILLED, x, n);
    void* host = narrow(x, n, GHZ_F32);
    p.has_fill = 1;
    p.fill = -1e34;
    p.eb = 1e-3;
    CK(cudaMalloc((void**)&d_src, n * 4));
    CK(cudaMalloc((void**)&d_dst, bound));
    CK(cudaMalloc((void**)&d_r, 3 * sizeof *d_r));
    CK(cudaMalloc((void**)&d_eb, sizeof *d_eb));
    CK(cudaMalloc((void**)&d_size, 8));
    CK(cudaMalloc((void**)&d_status, sizeof(int)));
    CK(cudaMemcpy(d_src, host, n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_eb, &eb, sizeof eb, cudaMemcpyHostToDevice));
    srcs[0] = d_src;
    srcs[1] = d_src + half * 4;
    GK(ghz_cuda_value_range_batch(ctx, &p, 2, srcs, ns, d_r, NULL, 0, 0));
    CK(cudaMemcpy(r, d_r, sizeof r, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 2; ++i) {
        GK(ghz_value_range(&p, (const char*)host + (i ? half * 4 : 0), ns[i], &lo, &hi, NULL));
        cr_assert(r[i].min == lo && r[i].max == hi, "chunk %d: GPU [%g, %g], CPU [%g, %g]", i, r[i].min, r[i].max,
                  lo, hi);
    }
    /* merged as ranks would (MIN, MAX), then given to the compressor in device memory */
    r[0].min = r[0].min < r[1].min ? r[0].min : r[1].min;
    r[0].max = r[0].max > r[1].max ? r[0].max : r[1].max;
    CK(cudaMemcpy(d_r + 2, &r[0], sizeof r[0], cudaMemcpyHostToDevice));
    ghz_buf_t z = dev_buf(d_dst, 0, bound, d_size);
    for (int mode = 0; mode < 2; ++mode) {
        ghz_params_t g = p, c = p;
        uint64_t size = 0;
        if (mode == 0) {
            g.d_range = d_r + 2;
            c.has_range = 1, c.range_min = r[0].min, c.range_max = r[0].max;
        } else {
            g.eb_mode = c.eb_mode = GHZ_EB_ABS;
            g.d_eb_abs = d_eb;
            c.eb = eb;
        }
        GK(ghz_compress(&c, host, n, cpu, bound, &cpu_size));
        GK(ghz_cuda_compress(ctx, &g, d_src, n, &z, d_status, NULL, 0, 0));
        CK(cudaMemcpy(&size, d_size, 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&status, d_status, sizeof status, cudaMemcpyDeviceToHost));
        cr_assert_eq(status, GHZ_SUCCESS, "mode %d", mode);
        cr_assert_eq(size, cpu_size, "mode %d", mode);
        CK(cudaMemcpy(gpu, d_dst, cpu_size, cudaMemcpyDeviceToHost));
        cr_assert(memcmp(gpu, cpu, cpu_size) == 0, "mode %d: bytes differ", mode);
    }
    /* an empty chunk's range is {+Inf, -Inf} */
    ns[0] = 0;
    GK(ghz_cuda_value_range(ctx, &p, d_src, 0, d_r, NULL, 0, 0));
    CK(cudaMemcpy(r, d_r, sizeof r[0], cudaMemcpyDeviceToHost));
    cr_assert(isinf(r[0].min) && r[0].min > 0 && isinf(r[0].max) && r[0].max < 0);
    /* a device bound the CPU would refuse is refused */
    eb = -1.0;
    CK(cudaMemcpy(d_eb, &eb, sizeof eb, cudaMemcpyHostToDevice));
    {
        ghz_params_t g = p;
        g.eb_mode = GHZ_EB_ABS;
        g.d_eb_abs = d_eb;
        GK(ghz_cuda_compress(ctx, &g, d_src, n, &z, d_status, NULL, 0, 0));
        CK(cudaMemcpy(&status, d_status, sizeof status, cudaMemcpyDeviceToHost));
        cr_assert_eq(status, GHZ_ERR_BAD_BOUND);
    }
    cudaFree(d_src), cudaFree(d_dst), cudaFree(d_r), cudaFree(d_eb), cudaFree(d_size), cudaFree(d_status);
    GK(ghz_cuda_ctx_destroy(ctx));
    free(x), free(host), free(cpu), free(gpu);
}

/* Argument errors come back from the host call, before anything is enqueued; a
 * missing workspace is named as such. */
Test(cuda_codec, bad_arguments)
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    size_t n = 1000, ws = 0;
    char* d;
    need_gpu();
    CK(cudaMalloc((void**)&d, 1 << 20));
    ghz_buf_t z = dev_buf(d, 0, 1 << 20, (uint64_t*)d);
    ghz_buf_t small = dev_buf(d, 0, 100, (uint64_t*)d);
    ghz_buf_t host = z;
    host.where = GHZ_MEM_HOST;
    ghz_buf_t no_size = dev_buf(d, 0, 1 << 20, NULL);
    GK(ghz_cuda_compress_workspace(1, &n, &ws));
    cr_assert_eq(ghz_cuda_compress_workspace(0, &n, &ws), GHZ_ERR_INVALID_ARG);
    p.eb = 0.0;
    cr_assert_eq(ghz_cuda_compress(NULL, &p, d, n, &z, NULL, d, ws, 0), GHZ_ERR_BAD_BOUND);
    p.eb = 1e-3;
    cr_assert_eq(ghz_cuda_compress(NULL, &p, d, n, &small, NULL, d, ws, 0), GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_cuda_compress(NULL, &p, d, n, &host, NULL, d, ws, 0), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_cuda_compress(NULL, &p, d, n, &no_size, NULL, d, ws, 0), GHZ_ERR_INVALID_ARG);
    cr_assert(strstr(ghz_last_error_detail(), "d_size") != NULL, "%s", ghz_last_error_detail());
    cr_assert_eq(ghz_cuda_compress(NULL, &p, d, n, &z, NULL, d, 1, 0), GHZ_ERR_INVALID_ARG);
    cr_assert(strstr(ghz_last_error_detail(), "needed") != NULL, "%s", ghz_last_error_detail());
    cr_assert_eq(ghz_cuda_compress(NULL, &p, d, n, &z, NULL, NULL, ws, 0), GHZ_ERR_INVALID_ARG);
    cr_assert(strstr(ghz_last_error_detail(), "NULL") != NULL, "%s", ghz_last_error_detail());
    cr_assert_eq(ghz_cuda_decompress(NULL, (ghz_dtype_t)7, &z, d, 64, NULL, NULL, d, ws, 0), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_cuda_compress_sync(NULL, &p, d, n, &z, 0), GHZ_ERR_INVALID_ARG);
    cudaFree(d);
}

/* warp.cuh, the public warp-cooperative block codec, used from a user's kernel
 * (warp_kernels.cu, one warp per block): every block's code byte and payload equal the
 * CPU encoder's, and decoding the payloads gives the CPU decoder's values bit for bit. */
Test(cuda_codec, warp_api_matches_cpu)
{
    need_gpu();
    const size_t n = 100003, nb = (n + 31) / 32, bound = ghz_compress_bound(n, GHZ_F32);
    double* x = malloc(n * sizeof *x);
    unsigned char* frame = malloc(bound);
    unsigned char* codes = malloc(nb);
    unsigned char* slots = malloc(nb * GHZ_TEST_SLOT);
    unsigned* sizes = malloc(nb * sizeof *sizes);
    uint32_t *cpu_dec = malloc(n * 4), *gpu_dec = malloc(n * 4), *d_x, *d_out;
    uint8_t *d_codes, *d_slots;
    unsigned* d_sizes;
    int* d_bad;
    const float fillf = -1e34f;
    uint32_t fill;
    memcpy(&fill, &fillf, 4);
    CK(cudaMalloc((void**)&d_x, n * 4));
    CK(cudaMalloc((void**)&d_out, n * 4));
    CK(cudaMalloc((void**)&d_codes, nb));
    CK(cudaMalloc((void**)&d_slots, nb * GHZ_TEST_SLOT));
    CK(cudaMalloc((void**)&d_sizes, nb * sizeof *d_sizes));
    CK(cudaMalloc((void**)&d_bad, sizeof *d_bad));
    for (int k = 0; k < KINDS; ++k) {
        ghz_params_t p = GHZ_PARAMS_INIT;
        size_t size = 0, off = 0;
        int bad = 0;
        void* host;
        make((enum kind)k, x, n);
        host = narrow(x, n, GHZ_F32);
        p.eb_mode = GHZ_EB_ABS;
        p.eb = 1e-3;
        p.has_fill = k == FILLED || k == SPECIALS;
        p.fill = -1e34;
        GK(ghz_compress(&p, host, n, frame, bound, &size));
        GK(ghz_decompress(frame, size, cpu_dec, n * 4, NULL));

        CK(cudaMemcpy(d_x, host, n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(d_slots, 0, nb * GHZ_TEST_SLOT));
        cr_assert_eq(ghz_test_warp_encode(d_x, n, p.eb, p.has_fill, fill, d_codes, d_slots, d_sizes), 0);
        CK(cudaMemcpy(codes, d_codes, nb, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(slots, d_slots, nb * GHZ_TEST_SLOT, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(sizes, d_sizes, nb * sizeof *sizes, cudaMemcpyDeviceToHost));
        for (size_t b = 0; b < nb; ++b) {
            const unsigned char* payload = frame + GHZ_HEADER_SIZE + (nb + 15) / 16 * 16;
            const unsigned m = n - 32 * b < 32 ? (unsigned)(n - 32 * b) : 32u;
            const uint32_t s = ghz_block_size(codes[b], m, 4, p.has_fill);
            cr_assert_eq(codes[b], frame[GHZ_HEADER_SIZE + b], "kind %d block %zu: code %02x, CPU %02x", k, b,
                         codes[b], frame[GHZ_HEADER_SIZE + b]);
            cr_assert_eq(sizes[b], s, "kind %d block %zu: %u bytes, code says %u", k, b, sizes[b], s);
            cr_assert(memcmp(slots + b * GHZ_TEST_SLOT, payload + off, s) == 0, "kind %d block %zu: payload differs",
                      k, b);
            off += s;
        }
        cr_assert_eq(GHZ_HEADER_SIZE + (nb + 15) / 16 * 16 + off, size, "kind %d: payload sizes", k);

        CK(cudaMemset(d_bad, 0, sizeof *d_bad));
        cr_assert_eq(ghz_test_warp_decode(d_codes, d_slots, n, p.eb, fill, d_out, d_bad), 0);
        CK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(gpu_dec, d_out, n * 4, cudaMemcpyDeviceToHost));
        cr_assert_eq(bad, 0, "kind %d: a valid block rejected", k);
        cr_assert(memcmp(gpu_dec, cpu_dec, n * 4) == 0, "kind %d: warp decode differs from the CPU's", k);
        free(host);
    }
    cudaFree(d_x);
    cudaFree(d_out);
    cudaFree(d_codes);
    cudaFree(d_slots);
    cudaFree(d_sizes);
    cudaFree(d_bad);
    free(x);
    free(frame);
    free(codes);
    free(slots);
    free(sizes);
    free(cpu_dec);
    free(gpu_dec);
}
