/* test/gpu/test_cuda_homo.c: the fused GPU kernel of ghz/homo against the CPU
 * reference (label gpu): for every op, dtype and input class the GPU writes the bytes
 * of ghz_homo_binary (which test/unit/test_homo.c holds to DOC); it refuses what the
 * CPU refuses (mismatches, corrupt inputs) through the device status. Skipped where no
 * GPU is present. */
#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/ghz.h"
#include "ghz/homo/homo_cuda.h"
#include "gpu_testutil.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    return gpu_rng(&rng_state);
}
static double unif(void)
{
    return (double)(rng() >> 11) * 0x1.0p-53;
}

/* QFILL: fill value 0.0, which quantizes (to 0): the integer path must step aside
 * wherever an integer is 0 (HOMO.md, Fill collisions). */
enum kind { SMOOTH, NOISY, ZEROS, SPECIALS, FILLS, NEAR_QMAX, QFILL, KINDS };

/* One frame of n values of a class, compressed on the CPU under ABS eb. */
static unsigned char* make_frame(enum kind k, ghz_dtype_t t, size_t n, double eb, size_t* size)
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    size_t cap = ghz_compress_bound(n, t), i;
    unsigned char* out = malloc(cap);
    char* x = malloc(n * 8 + 8);
    double walk = 0;
    p.dtype = t;
    p.eb_mode = GHZ_EB_ABS;
    p.eb = eb;
    p.has_fill = 1;
    p.fill = k == QFILL ? 0.0 : -1e34;
    for (i = 0; i < n; ++i) {
        double v;
        switch (k) {
        case SMOOTH: v = sin((double)i * 1e-3) * 50 + cos((double)i * 7e-5) * 20; break;
        case NOISY: v = sin((double)i * 1e-2) + (unif() - 0.5) * 0.3; break;
        case ZEROS: v = (i / 2048) % 2 ? 0.0 : (walk += unif() - 0.5); break;
        case SPECIALS: {
            static const double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-310, 1e30, -1e34};
            v = (rng() % 7 == 0) ? sp[rng() % 8] : (walk += unif() - 0.5);
            break;
        }
        case FILLS: v = ((i / 700) % 3 == 0 || rng() % 17 == 0) ? -1e34 : (walk += unif() - 0.5); break;
        case QFILL: v = rng() % 5 == 0 ? 0.0 : (unif() - 0.5) * 0.02; break;
        default: v = (rng() & 1 ? 1 : -1) * (520.0 + 16.0 * unif()); break; /* |q| ~ 5e8 at 1e-6 */
        }
        if (t == GHZ_F32) {
            float f = (float)v;
            memcpy(x + 4 * i, &f, 4);
        } else {
            memcpy(x + 8 * i, &v, 8);
        }
    }
    GK(ghz_compress(&p, x, n, out, cap, size));
    free(x);
    return out;
}

/* Runs op on the GPU; returns the device status and the output in *out (malloc'd). */
static int gpu_binary(ghz_homo_op_t op, ghz_dtype_t t, const unsigned char* a, size_t sa,
                      const unsigned char* b, size_t sb, size_t max_elems, unsigned char** out,
                      size_t* out_size)
{
    const size_t cap = ghz_compress_bound(max_elems, t);
    size_t ws = 0;
    char *d_a, *d_b, *d_o;
    void* d_w;
    uint64_t *d_size, *d_b_size;
    const uint64_t sb64 = sb;
    int* d_st;
    uint64_t h_size = 0;
    int h_st = -1;
    GK(ghz_cuda_homo_workspace(max_elems, &ws));
    CK(cudaMalloc((void**)&d_b_size, sizeof *d_b_size));
    CK(cudaMemcpy(d_b_size, &sb64, sizeof sb64, cudaMemcpyHostToDevice));
    CK(cudaMalloc((void**)&d_a, sa + 1));
    CK(cudaMalloc((void**)&d_b, sb + 3)); /* an odd offset for b */
    CK(cudaMalloc((void**)&d_o, cap + 16));
    CK(cudaMalloc(&d_w, ws));
    CK(cudaMalloc((void**)&d_size, sizeof *d_size));
    CK(cudaMalloc((void**)&d_st, sizeof *d_st));
    CK(cudaMemcpy(d_a, a, sa, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b + 3, b, sb, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_o, 0xA5, cap + 16));
    CK(cudaMemset(d_size, 0, sizeof *d_size));
    /* a's size known to the host, b's only in device memory (as a frame just received
     * or compressed on the GPU) */
    ghz_buf_t ba = dev_buf(d_a, sa, sa, NULL), bb = dev_buf(d_b + 3, 0, sb, d_b_size);
    ghz_buf_t bo = dev_buf(d_o + 1, 0, cap, d_size);
    GK(ghz_cuda_homo_binary(NULL, op, t, &ba, &bb, &bo, max_elems, d_st, d_w, ws, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&h_st, d_st, sizeof h_st, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&h_size, d_size, sizeof h_size, cudaMemcpyDeviceToHost));
    *out_size = (size_t)h_size;
    *out = malloc(cap + 1);
    if (h_st == GHZ_SUCCESS) {
        cr_assert(h_size <= cap);
        CK(cudaMemcpy(*out, d_o + 1, h_size, cudaMemcpyDeviceToHost));
    }
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_o);
    cudaFree(d_w);
    cudaFree(d_size);
    cudaFree(d_b_size);
    cudaFree(d_st);
    return h_st;
}

static ghz_status_t cpu_binary(ghz_homo_op_t op, unsigned char* a, size_t sa, unsigned char* b, size_t sb,
                               unsigned char* o, size_t cap, size_t* size)
{
    ghz_buf_t ab = GHZ_BUF_INIT, bb = GHZ_BUF_INIT, ob = GHZ_BUF_INIT;
    ghz_status_t st;
    ab.data = a;
    ab.size = ab.capacity = sa;
    bb.data = b;
    bb.size = bb.capacity = sb;
    ob.data = o;
    ob.capacity = cap;
    st = ghz_homo_binary(op, &ab, &bb, &ob);
    *size = ob.size;
    return st;
}

/* Every op on frames of classes k (A) and kb (B), n values of dtype t: the GPU's bytes
 * are the CPU's. */
static void check_all_ops(ghz_dtype_t t, int k, int kb, size_t n)
{
    const double eb = k == NEAR_QMAX ? 1e-6 : 1e-3;
    const size_t cap = ghz_compress_bound(n, t);
    size_t sa, sb, sc, sg;
    unsigned char* a = make_frame((enum kind)k, t, n, eb, &sa);
    unsigned char* b;
    unsigned char* c = malloc(cap);
    if (kb == NEAR_QMAX || kb == QFILL || k == QFILL) kb = k; /* same bound and fill */
    b = make_frame((enum kind)kb, t, n, eb, &sb);
    for (int op = GHZ_HOMO_SUM; op <= GHZ_HOMO_MAX; ++op) {
        unsigned char* g;
        GK(cpu_binary((ghz_homo_op_t)op, a, sa, b, sb, c, cap, &sc));
        int st = gpu_binary((ghz_homo_op_t)op, t, a, sa, b, sb, n + 5000, &g, &sg);
        cr_assert_eq(st, GHZ_SUCCESS, "t=%d kind=%d n=%zu op=%d: GPU status %d", t, k, n, op, st);
        cr_assert_eq(sg, sc, "t=%d kind=%d n=%zu op=%d: GPU %zu bytes, CPU %zu", t, k, n, op, sg, sc);
        for (size_t i = 0; i < sc; ++i)
            if (g[i] != c[i])
                cr_assert_fail("t=%d kind=%d n=%zu op=%d: byte %zu differs (GPU %02x, CPU %02x)", t, k, n, op, i,
                               g[i], c[i]);
        free(g);
    }
    free(a);
    free(b);
    free(c);
}

Test(cuda_homo, equals_cpu_reference)
{
    static const size_t sizes[] = {1, 31, 33, 2048, 2049, 100003, 1 << 20};
    need_gpu();
    for (int ti = 0; ti < 2; ++ti)
        for (int k = 0; k < KINDS; ++k)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                check_all_ops(ti ? GHZ_F64 : GHZ_F32, k, (int)((k + si) % KINDS), sizes[si]);
}

/* A few tiles of each dtype (4096 f32 or 2048 f64 values a tile) with a short last
 * block, every class against another: small enough for compute-sanitizer
 * (scripts/gpu_run.sh, step homo). */
Test(cuda_homo, few_tiles_pairs_of_classes)
{
    need_gpu();
    for (int ti = 0; ti < 2; ++ti)
        for (int k = 0; k < KINDS; ++k) check_all_ops(ti ? GHZ_F64 : GHZ_F32, k, (k + 3) % KINDS, 9003);
}

Test(cuda_homo, empty_frame)
{
    size_t sa, sg, sc;
    unsigned char *a, *g, c[256];
    need_gpu();
    a = make_frame(SMOOTH, GHZ_F32, 0, 1e-3, &sa);
    GK(cpu_binary(GHZ_HOMO_SUM, a, sa, a, sa, c, sizeof c, &sc));
    cr_assert_eq(gpu_binary(GHZ_HOMO_SUM, GHZ_F32, a, sa, a, sa, 0, &g, &sg), GHZ_SUCCESS);
    cr_assert(sg == sc && memcmp(g, c, sc) == 0);
    free(a);
    free(g);
}

Test(cuda_homo, mismatch_and_corruption_reported)
{
    const size_t n = 5000;
    size_t sa, sb, sg, sc;
    unsigned char *a, *b, *g, *c = malloc(ghz_compress_bound(n, GHZ_F32)), *bad;
    need_gpu();
    a = make_frame(NOISY, GHZ_F32, n, 1e-3, &sa);
    b = make_frame(SMOOTH, GHZ_F32, n, 2e-3, &sb);
    cr_assert_eq(gpu_binary(GHZ_HOMO_SUM, GHZ_F32, a, sa, b, sb, n, &g, &sg), GHZ_ERR_MISMATCH);
    free(g);
    free(b);
    b = make_frame(SMOOTH, GHZ_F32, n, 1e-3, &sb);
    cr_assert_eq(gpu_binary(GHZ_HOMO_SUM, GHZ_F32, a, sa, b, sb, n - 1, &g, &sg), GHZ_ERR_DST_TOO_SMALL);
    free(g);
    bad = malloc(sa);
    for (int i = 0; i < 300; ++i) {
        ghz_status_t cst;
        int gst;
        memcpy(bad, a, sa);
        bad[64 + rng() % (sa - 64)] ^= (unsigned char)(1u << (rng() % 8));
        cst = cpu_binary(GHZ_HOMO_SUM, bad, sa, b, sb, c, ghz_compress_bound(n, GHZ_F32), &sc);
        gst = gpu_binary(GHZ_HOMO_SUM, GHZ_F32, bad, sa, b, sb, n, &g, &sg);
        cr_assert_eq(gst == GHZ_SUCCESS, cst == GHZ_SUCCESS, "case %d: CPU %d, GPU %d", i, cst, gst);
        if (cst == GHZ_SUCCESS) cr_assert(sg == sc && memcmp(g, c, sc) == 0, "case %d: bytes differ", i);
        free(g);
    }
    free(bad);
    free(a);
    free(b);
    free(c);
}

/* The call can be captured in a CUDA graph and replayed: each replay writes the bytes
 * of the CPU reference, with the context's workspace. */
Test(cuda_homo, graph_capture)
{
    const size_t n = 50001;
    size_t sa, sb, so, cap = ghz_compress_bound(n, GHZ_F32);
    unsigned char* a = make_frame(SMOOTH, GHZ_F32, n, 1e-3, &sa);
    unsigned char* b = make_frame(NOISY, GHZ_F32, n, 1e-3, &sb);
    unsigned char* cpu = malloc(cap);
    unsigned char* gpu = malloc(cap);
    char *d_a, *d_b, *d_o;
    uint64_t* d_size;
    uint64_t h_size = 0;
    int* d_st;
    int h_st = -1;
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    need_gpu();
    ghz_cuda_ctx_t* ctx = make_ctx(1, n);
    GK(cpu_binary(GHZ_HOMO_SUM, a, sa, b, sb, cpu, cap, &so));
    CK(cudaMalloc((void**)&d_a, sa));
    CK(cudaMalloc((void**)&d_b, sb));
    CK(cudaMalloc((void**)&d_o, cap));
    CK(cudaMalloc((void**)&d_size, sizeof *d_size));
    CK(cudaMalloc((void**)&d_st, sizeof *d_st));
    CK(cudaMemcpy(d_a, a, sa, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, b, sb, cudaMemcpyHostToDevice));
    ghz_buf_t ba = dev_buf(d_a, sa, sa, NULL), bb = dev_buf(d_b, sb, sb, NULL), bo = dev_buf(d_o, 0, cap, d_size);
    CK(cudaStreamCreate(&s));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    GK(ghz_cuda_homo_binary(ctx, GHZ_HOMO_SUM, GHZ_F32, &ba, &bb, &bo, 0, d_st, NULL, 0, s));
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    for (int r = 0; r < 3; ++r) {
        CK(cudaMemsetAsync(d_o, 0, cap, s));
        CK(cudaMemsetAsync(d_size, 0, sizeof *d_size, s));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(&h_st, d_st, sizeof h_st, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&h_size, d_size, sizeof h_size, cudaMemcpyDeviceToHost));
        cr_assert_eq(h_st, GHZ_SUCCESS, "replay %d", r);
        cr_assert_eq(h_size, so, "replay %d", r);
        CK(cudaMemcpy(gpu, d_o, so, cudaMemcpyDeviceToHost));
        cr_assert(memcmp(gpu, cpu, so) == 0, "replay %d differs from the CPU", r);
    }
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    cudaFree(d_a), cudaFree(d_b), cudaFree(d_o), cudaFree(d_size), cudaFree(d_st);
    GK(ghz_cuda_ctx_destroy(ctx));
    free(a), free(b), free(cpu), free(gpu);
}
