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
    size_t cpu_size = 0, gpu_size = 0, ws = 0, wsd = 0, gpu_n = 0, max_elems = n;
    char *d_src, *d_dst, *d_dec;
    void* d_work;

    GK(ghz_compress(p, host, n, cpu, bound, &cpu_size));
    GK(ghz_cuda_compress_workspace(1, &n, &ws));
    GK(ghz_cuda_decompress_workspace(1, &max_elems, &wsd));
    if (wsd > ws) ws = wsd;
    ws += GHZ_CUDA_SCRATCH_BYTES;
    CK(cudaMalloc((void**)&d_src, (n + src_off) * elem + 16));
    CK(cudaMalloc((void**)&d_dst, bound + dst_off + 16));
    CK(cudaMalloc((void**)&d_dec, (n + src_off) * elem + 16));
    CK(cudaMalloc(&d_work, ws));
    CK(cudaMemcpy(d_src + src_off * elem, host, n * elem, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_dst, 0xA5, bound + dst_off + 16)); /* poison */

    GK(ghz_cuda_compress_sync(p, d_src + src_off * elem, n, d_dst + dst_off, bound, &gpu_size, d_work, ws, 0));
    cr_assert_eq(gpu_size, cpu_size, "n=%zu dtype=%d mode=%d eb=%g: GPU %zu bytes, CPU %zu", n, p->dtype,
                 p->eb_mode, p->eb, gpu_size, cpu_size);
    CK(cudaMemcpy(gpu, d_dst + dst_off, gpu_size, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < cpu_size; ++i)
        if (gpu[i] != cpu[i])
            cr_assert_fail("n=%zu dtype=%d mode=%d eb=%g src_off=%zu dst_off=%zu: byte %zu differs (GPU %02x, CPU %02x)",
                           n, p->dtype, p->eb_mode, p->eb, src_off, dst_off, i, gpu[i], cpu[i]);

    /* GPU decode of the (identical) stream, at an odd source offset too */
    CK(cudaMemset(d_dec, 0x5A, (n + src_off) * elem + 16));
    GK(ghz_cuda_decompress_sync(p->dtype, d_dst + dst_off, gpu_size, d_dec + src_off * elem, n * elem, &gpu_n,
                                d_work, ws, 0));
    cr_assert_eq(gpu_n, n);
    GK(ghz_decompress(cpu, cpu_size, cpu_dec, n * elem, NULL));
    CK(cudaMemcpy(gpu_dec, d_dec + src_off * elem, n * elem, cudaMemcpyDeviceToHost));
    cr_assert(memcmp(gpu_dec, cpu_dec, n * elem) == 0, "n=%zu: GPU and CPU decodes differ", n);

    cudaFree(d_src);
    cudaFree(d_dst);
    cudaFree(d_dec);
    cudaFree(d_work);
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

Test(cuda_codec, batch_equals_single)
{
    enum { K = 5 };
    const size_t ns[K] = {0, 1, 33, 70001, 300007};
    const void* d_srcs[K];
    void* d_dsts[K];
    size_t caps[K], ws = 0, total = 0;
    uint64_t* d_sizes;
    int* d_status;
    void* d_work;
    ghz_params_t p = GHZ_PARAMS_INIT;
    double* x;
    void* host;
    uint64_t sizes[K];
    int status = -1;
    need_gpu();
    for (int i = 0; i < K; ++i) total += ns[i];
    x = malloc(total * sizeof *x + 8);
    make(NOISY, x, total);
    host = narrow(x, total, GHZ_F32);
    p.eb = 1e-3; /* REL: each chunk its own range */
    GK(ghz_cuda_compress_workspace(K, ns, &ws));
    CK(cudaMalloc(&d_work, ws));
    CK(cudaMalloc((void**)&d_sizes, K * sizeof(uint64_t)));
    CK(cudaMalloc((void**)&d_status, sizeof(int)));
    {
        char* d_all;
        size_t off = 0;
        CK(cudaMalloc((void**)&d_all, total * 4 + 4));
        CK(cudaMemcpy(d_all, host, total * 4, cudaMemcpyHostToDevice));
        for (int i = 0; i < K; ++i) {
            d_srcs[i] = d_all + off * 4; /* consecutive sub-ranges of one buffer */
            off += ns[i];
            caps[i] = ghz_compress_bound(ns[i], GHZ_F32);
            CK(cudaMalloc(&d_dsts[i], caps[i]));
        }
    }
    GK(ghz_cuda_compress_batch(&p, K, d_srcs, ns, d_dsts, caps, d_sizes, d_status, d_work, ws, 0));
    CK(cudaMemcpy(sizes, d_sizes, sizeof sizes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&status, d_status, sizeof status, cudaMemcpyDeviceToHost));
    cr_assert_eq(status, GHZ_SUCCESS);
    {
        size_t off = 0;
        for (int i = 0; i < K; ++i) {
            unsigned char* cpu = malloc(caps[i]);
            unsigned char* gpu = malloc(caps[i]);
            size_t cpu_size;
            GK(ghz_compress(&p, (const char*)host + off * 4, ns[i], cpu, caps[i], &cpu_size));
            cr_assert_eq(sizes[i], cpu_size, "chunk %d", i);
            CK(cudaMemcpy(gpu, d_dsts[i], cpu_size, cudaMemcpyDeviceToHost));
            cr_assert(memcmp(gpu, cpu, cpu_size) == 0, "chunk %d bytes differ", i);
            off += ns[i];
            free(cpu);
            free(gpu);
        }
    }
    free(host);
    free(x);
}

/* Every corrupted stream is reported through *d_status; no crash, no hang. */
Test(cuda_codec, corrupt_streams_reported)
{
    const size_t n = 50000;
    double* x = malloc(n * sizeof *x);
    void* host;
    unsigned char *cpu, *bad;
    size_t bound = ghz_compress_bound(n, GHZ_F32), size, ws = 0, max_elems = n;
    char *d_src, *d_dec;
    void* d_work;
    int rejected = 0, trials = 0;
    ghz_params_t p = GHZ_PARAMS_INIT;
    need_gpu();
    make(NOISY, x, n);
    host = narrow(x, n, GHZ_F32);
    cpu = malloc(bound);
    bad = malloc(bound);
    GK(ghz_compress(&p, host, n, cpu, bound, &size));
    GK(ghz_cuda_decompress_workspace(1, &max_elems, &ws));
    ws += GHZ_CUDA_SCRATCH_BYTES;
    CK(cudaMalloc((void**)&d_src, bound));
    CK(cudaMalloc((void**)&d_dec, n * 4));
    CK(cudaMalloc(&d_work, ws));
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
        gst = ghz_cuda_decompress_sync(GHZ_F32, d_src, len, d_dec, n * 4, &got, d_work, ws, 0);
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
    cudaFree(d_work);
    free(host);
    free(x);
    free(cpu);
    free(bad);
}

/* The stream-ordered calls can be captured in a graph and replayed. */
Test(cuda_codec, graph_capture)
{
    const size_t n = 123457;
    double* x = malloc(n * sizeof *x);
    void* host;
    size_t bound = ghz_compress_bound(n, GHZ_F32), ws, cpu_size;
    char *d_src, *d_dst;
    void* d_work;
    uint64_t* d_size;
    uint64_t size = 0;
    unsigned char *cpu, *gpu;
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    ghz_params_t p = GHZ_PARAMS_INIT;
    need_gpu();
    make(SMOOTH, x, n);
    host = narrow(x, n, GHZ_F32);
    cpu = malloc(bound);
    gpu = malloc(bound);
    GK(ghz_compress(&p, host, n, cpu, bound, &cpu_size));
    GK(ghz_cuda_compress_workspace(1, &n, &ws));
    CK(cudaMalloc((void**)&d_src, n * 4));
    CK(cudaMalloc((void**)&d_dst, bound));
    CK(cudaMalloc(&d_work, ws));
    CK(cudaMalloc((void**)&d_size, 8));
    CK(cudaMemcpy(d_src, host, n * 4, cudaMemcpyHostToDevice));
    CK(cudaStreamCreate(&s));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    GK(ghz_cuda_compress(&p, d_src, n, d_dst, bound, d_size, NULL, d_work, ws, s));
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    for (int r = 0; r < 3; ++r) {
        CK(cudaMemsetAsync(d_dst, 0, bound, s));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(&size, d_size, 8, cudaMemcpyDeviceToHost));
        cr_assert_eq(size, cpu_size);
        CK(cudaMemcpy(gpu, d_dst, cpu_size, cudaMemcpyDeviceToHost));
        cr_assert(memcmp(gpu, cpu, cpu_size) == 0, "replay %d differs", r);
    }
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    cudaFree(d_src);
    cudaFree(d_dst);
    cudaFree(d_work);
    cudaFree(d_size);
    free(host);
    free(x);
    free(cpu);
    free(gpu);
}

/* Argument errors come back from the host call, before anything is enqueued. */
Test(cuda_codec, bad_arguments)
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    size_t n = 1000, ws = 0;
    char buf[16];
    need_gpu();
    GK(ghz_cuda_compress_workspace(1, &n, &ws));
    cr_assert_eq(ghz_cuda_compress_workspace(0, &n, &ws), GHZ_ERR_INVALID_ARG);
    p.eb = 0.0;
    cr_assert_eq(ghz_cuda_compress(&p, buf, n, buf, 1 << 20, (uint64_t*)buf, NULL, buf, ws, 0), GHZ_ERR_BAD_BOUND);
    p.eb = 1e-3;
    cr_assert_eq(ghz_cuda_compress(&p, buf, n, buf, 100, (uint64_t*)buf, NULL, buf, ws, 0), GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_cuda_compress(&p, buf, n, buf, 1 << 20, (uint64_t*)buf, NULL, buf, 1, 0), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_cuda_decompress((ghz_dtype_t)7, buf, 64, buf, 64, NULL, NULL, buf, ws, 0), GHZ_ERR_INVALID_ARG);
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
