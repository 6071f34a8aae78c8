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
#include "datasets/datasets.h"
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
 * wherever an integer is 0 (HOMO.md, Fill collisions). HALVES (not among the KINDS
 * the loops take): -1e30 in the first 1024 values of every 2048, +1e30 in the others,
 * CONST blocks; with a NOISY a at a tiny bound (RAW), MIN and MAX give CONST and RAW
 * results in every tile, both recomputed from a when emitted, and the CONST ones
 * shrink: in place, later tiles' output then covers the RAW half of an earlier tile's
 * input while that tile may still be reading it (HOMO.md, In place with the fused
 * kernel). */
/* NANLAND: written without a declared fill, so NaN is the fill (FORMAT.md, NaN as the
 * fill value): land as the canonical NaN in runs and coast blocks, now and then a -NaN
 * (not the fill: RAW). */
enum kind { SMOOTH, NOISY, ZEROS, SPECIALS, FILLS, NEAR_QMAX, QFILL, NANLAND, KINDS, HALVES = KINDS };

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
    p.has_fill = k != NANLAND;
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
        case NANLAND:
            v = ((i / 700) % 3 == 0 || rng() % 17 == 0) ? NAN : rng() % 997 == 0 ? -NAN : (walk += unif() - 0.5);
            break;
        case HALVES: v = i % 2048 < 1024 ? -1e30 : 1e30; break;
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

/* Seals the frame f of *sz bytes with its CRC-32C (ghz_frame_add_checksum): returns it
 * grown by GHZ_CHECKSUM_SIZE bytes, *sz updated. */
static unsigned char* seal_frame(unsigned char* f, size_t* sz)
{
    size_t ns = 0;
    f = realloc(f, *sz + GHZ_CHECKSUM_SIZE);
    cr_assert(f != NULL);
    GK(ghz_frame_add_checksum(f, *sz, *sz + GHZ_CHECKSUM_SIZE, &ns));
    *sz = ns;
    return f;
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

/* Every op on frames of classes k (A) and kb (B), n values of dtype t, A sealed when
 * bit 0 of seal is set, B when bit 1 is: the GPU's bytes are the CPU's. */
static void check_all_ops(ghz_dtype_t t, int k, int kb, size_t n, int seal)
{
    const double eb = k == NEAR_QMAX ? 1e-6 : 1e-3;
    const size_t cap = ghz_compress_bound(n, t);
    size_t sa, sb, sc, sg;
    unsigned char* a = make_frame((enum kind)k, t, n, eb, &sa);
    unsigned char* b;
    unsigned char* c = malloc(cap);
    if (kb == NEAR_QMAX || kb == QFILL || k == QFILL || kb == NANLAND || k == NANLAND)
        kb = k; /* same bound and fill */
    b = make_frame((enum kind)kb, t, n, eb, &sb);
    if (seal & 1) a = seal_frame(a, &sa);
    if (seal & 2) b = seal_frame(b, &sb);
    for (int op = GHZ_HOMO_SUM; op <= GHZ_HOMO_MAX; ++op) {
        unsigned char* g;
        GK(cpu_binary((ghz_homo_op_t)op, a, sa, b, sb, c, cap, &sc));
        int st = gpu_binary((ghz_homo_op_t)op, t, a, sa, b, sb, n + 5000, &g, &sg);
        cr_assert_eq(st, GHZ_SUCCESS, "t=%d kind=%d n=%zu op=%d seal=%d: GPU status %d", t, k, n, op, seal, st);
        cr_assert_eq(sg, sc, "t=%d kind=%d n=%zu op=%d seal=%d: GPU %zu bytes, CPU %zu", t, k, n, op, seal, sg, sc);
        for (size_t i = 0; i < sc; ++i)
            if (g[i] != c[i])
                cr_assert_fail("t=%d kind=%d n=%zu op=%d seal=%d: byte %zu differs (GPU %02x, CPU %02x)", t, k, n, op,
                               seal, i, g[i], c[i]);
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
                check_all_ops(ti ? GHZ_F64 : GHZ_F32, k, (int)((k + si) % KINDS), sizes[si], 0);
}

/* A few tiles of each dtype (4096 f32 or 2048 f64 values a tile) with a short last
 * block, every class against another: small enough for compute-sanitizer. */
Test(cuda_homo, few_tiles_pairs_of_classes)
{
    need_gpu();
    for (int ti = 0; ti < 2; ++ti)
        for (int k = 0; k < KINDS; ++k) check_all_ops(ti ? GHZ_F64 : GHZ_F32, k, (k + 3) % KINDS, 9003, 0);
}

/* Sealed inputs are verified on the GPU, not refused: A sealed, B sealed or both, every
 * op, class and dtype, from one value to frames whose checksum takes several CTAs:
 * the GPU's bytes are those of the CPU's
 * ghz_homo_binary on the same sealed frames (which verifies them; outputs carry no
 * checksum). */
Test(cuda_homo, sealed_inputs_equal_cpu)
{
    static const size_t sizes[] = {1, 9003, 100003};
    need_gpu();
    for (int ti = 0; ti < 2; ++ti)
        for (int seal = 1; seal <= 3; ++seal)
            for (int k = 0; k < KINDS; ++k)
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                    check_all_ops(ti ? GHZ_F64 : GHZ_F32, k, (int)((k + seal + si) % KINDS), sizes[si], seal);
}

/* One changed byte in a sealed input (A or B; the other sealed too, or not): in its
 * payload, its code bytes or its CRC, it is GHZ_ERR_CORRUPT on the GPU (*d_status) as on
 * the CPU, whose ghz_homo_binary verifies the CRC-32C; a payload byte changed inside a
 * QUANT block still decodes, so only the checksum can tell. A changed header byte is
 * refused by both, perhaps with another error first (a valid-looking eb_abs reads as
 * a mismatch on the GPU, which matches the headers before it verifies checksums, and
 * as a checksum mismatch on the CPU). Byte 11 (the flags) is left out: with the
 * checksum flag cleared the GPU reads one unsealed frame followed by 4 bytes it does
 * not use, where the CPU reads a truncated second frame. */
Test(cuda_homo, sealed_input_changed_byte_corrupt)
{
    const size_t n = 20011;
    need_gpu();
    for (int ti = 0; ti < 2; ++ti) {
        const ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
        const size_t cap = ghz_compress_bound(n, t);
        size_t sz[2], sc, sg;
        unsigned char* f[2] = {make_frame(SMOOTH, t, n, 1e-3, &sz[0]), make_frame(NOISY, t, n, 1e-3, &sz[1])};
        unsigned char *c = malloc(cap), *g;
        for (int r = 0; r < 64; ++r) {
            const int i = r % 2, other_sealed = r % 4 < 2;
            const unsigned char bit = (unsigned char)(1u << (rng() % 8));
            ghz_frame_info_t info;
            size_t at, pay0;
            ghz_status_t cst;
            int gst;
            /* input i sealed, the other one sealed or not */
            unsigned char* x[2];
            size_t sx[2] = {sz[0], sz[1]};
            for (int j = 0; j < 2; ++j) {
                x[j] = malloc(sz[j]);
                memcpy(x[j], f[j], sz[j]);
                if (j == i || other_sealed) x[j] = seal_frame(x[j], &sx[j]);
            }
            GK(ghz_frame_header(NULL, x[i], sx[i], &info));
            cr_assert(info.has_checksum && info.frame_size == sx[i] && info.payload_size > 0);
            pay0 = sx[i] - GHZ_CHECKSUM_SIZE - (size_t)info.payload_size;
            switch (r / 4 % 4) { /* r % 4: which input, the other sealed or not */
            case 0: /* payload */
            case 1: at = pay0 + rng() % (size_t)info.payload_size; break;
            case 2: at = GHZ_HEADER_SIZE + rng() % (sx[i] - GHZ_HEADER_SIZE); break; /* codes, payload, CRC */
            default: /* the header, but the flags */
                do at = rng() % GHZ_HEADER_SIZE;
                while (at == 11);
            }
            x[i][at] ^= bit;
            cst = cpu_binary(GHZ_HOMO_SUM, x[0], sx[0], x[1], sx[1], c, cap, &sc);
            gst = gpu_binary(GHZ_HOMO_SUM, t, x[0], sx[0], x[1], sx[1], n, &g, &sg);
            if (at >= GHZ_HEADER_SIZE) {
                cr_assert_eq(cst, GHZ_ERR_CORRUPT, "t=%d input %d byte %zu (payload from %zu): CPU status %d", t, i,
                             at, pay0, cst);
                cr_assert_eq(gst, GHZ_ERR_CORRUPT, "t=%d input %d byte %zu (payload from %zu): GPU status %d", t, i,
                             at, pay0, gst);
            } else {
                cr_assert_neq(cst, GHZ_SUCCESS, "t=%d input %d header byte %zu: the CPU accepted it", t, i, at);
                cr_assert_neq(gst, GHZ_SUCCESS, "t=%d input %d header byte %zu: the GPU accepted it (CPU %d)", t, i,
                              at, cst);
            }
            free(g);
            free(x[0]);
            free(x[1]);
        }
        free(f[0]);
        free(f[1]);
        free(c);
    }
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

/* ---- the k-input kernel: n-ary sum, batched and in-place binary operations ------- */

/* The CPU's n-ary sum of k frames. */
static ghz_status_t cpu_sum_n(size_t k, unsigned char** f, const size_t* sz, unsigned char* o, size_t cap,
                              size_t* size)
{
    ghz_buf_t* b = calloc(k, sizeof *b);
    const ghz_buf_t** p = calloc(k, sizeof *p);
    ghz_buf_t ob = GHZ_BUF_INIT;
    ghz_status_t st;
    for (size_t i = 0; i < k; ++i) {
        ghz_buf_t x = GHZ_BUF_INIT;
        x.data = f[i];
        x.size = x.capacity = sz[i];
        b[i] = x;
        p[i] = &b[i];
    }
    ob.data = o;
    ob.capacity = cap;
    st = ghz_homo_sum_n(p, k, &ob);
    *size = ob.size;
    free(b);
    free((void*)p);
    return st;
}

/* Where the GPU's inputs live: device memory (sizes host-known and device-held in
 * turn, odd offsets), or mapped pinned host memory (the kernels read them over the
 * bus, as they would a peer's buffer). */
enum { IN_DEVICE, IN_MAPPED };

/* The n-ary sum on the GPU; returns the device status, the output in *out (malloc'd). */
static int gpu_sum_n(ghz_dtype_t t, size_t k, unsigned char** f, const size_t* sz, size_t max_elems, int where,
                     unsigned char** out, size_t* out_size)
{
    const size_t cap = ghz_compress_bound(max_elems, t);
    size_t ws = 0, i;
    char **d = calloc(k, sizeof *d), **h = calloc(k, sizeof *h), *d_o;
    ghz_buf_t* bufs = calloc(k, sizeof *bufs);
    uint64_t *d_sizes, *d_size, h_size = 0;
    uint64_t* h_sizes = calloc(k, sizeof *h_sizes);
    void* d_w;
    int *d_st, h_st = -1;
    GK(ghz_cuda_homo_sum_n_workspace(k, max_elems, &ws));
    CK(cudaMalloc((void**)&d_sizes, k * sizeof *d_sizes));
    for (i = 0; i < k; ++i) {
        h_sizes[i] = sz[i];
        if (where == IN_MAPPED) {
            char* dp;
            CK(cudaHostAlloc((void**)&h[i], sz[i] + 1, cudaHostAllocMapped));
            memcpy(h[i] + (i & 1), f[i], sz[i]);
            CK(cudaHostGetDevicePointer((void**)&dp, h[i], 0));
            bufs[i] = dev_buf(dp + (i & 1), sz[i], sz[i], NULL);
        } else {
            CK(cudaMalloc((void**)&d[i], sz[i] + 3));
            CK(cudaMemcpy(d[i] + i % 4, f[i], sz[i], cudaMemcpyHostToDevice));
            /* odd inputs: size only in device memory */
            bufs[i] = dev_buf(d[i] + i % 4, i & 1 ? 0 : sz[i], sz[i] + 3 - i % 4, i & 1 ? d_sizes + i : NULL);
        }
    }
    CK(cudaMemcpy(d_sizes, h_sizes, k * sizeof *d_sizes, cudaMemcpyHostToDevice));
    CK(cudaMalloc((void**)&d_o, cap + 16));
    CK(cudaMalloc(&d_w, ws));
    CK(cudaMalloc((void**)&d_size, sizeof *d_size));
    CK(cudaMalloc((void**)&d_st, sizeof *d_st));
    CK(cudaMemset(d_o, 0xA5, cap + 16));
    CK(cudaMemset(d_size, 0, sizeof *d_size));
    ghz_buf_t bo = dev_buf(d_o + 5, 0, cap, d_size);
    GK(ghz_cuda_homo_sum_n(NULL, t, k, bufs, &bo, max_elems, d_st, d_w, ws, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&h_st, d_st, sizeof h_st, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&h_size, d_size, sizeof h_size, cudaMemcpyDeviceToHost));
    *out_size = (size_t)h_size;
    *out = malloc(cap + 1);
    if (h_st == GHZ_SUCCESS) {
        cr_assert(h_size <= cap);
        CK(cudaMemcpy(*out, d_o + 5, h_size, cudaMemcpyDeviceToHost));
    }
    for (i = 0; i < k; ++i) {
        if (d[i]) cudaFree(d[i]);
        if (h[i]) cudaFreeHost(h[i]);
    }
    cudaFree(d_o), cudaFree(d_w), cudaFree(d_size), cudaFree(d_sizes), cudaFree(d_st);
    free(d), free(h), free(bufs), free(h_sizes);
    return h_st;
}

/* The GPU's n-ary sum of the k frames equals the CPU's, bytes and status. */
static void check_sum_n(ghz_dtype_t t, size_t k, unsigned char** f, const size_t* sz, size_t n, int where,
                        const char* what)
{
    const size_t cap = ghz_compress_bound(n, t);
    unsigned char *c = malloc(cap), *g;
    size_t sc = 0, sg = 0;
    ghz_status_t cst = cpu_sum_n(k, f, sz, c, cap, &sc);
    int gst = gpu_sum_n(t, k, f, sz, n + 100, where, &g, &sg);
    /* a corrupt input: both refuse it (the CPU may name another error first) */
    if (strcmp(what, "corrupt") == 0 && cst != GHZ_SUCCESS)
        cr_assert_neq(gst, GHZ_SUCCESS, "%s t=%d k=%zu n=%zu: GPU accepted, CPU %d", what, t, k, n, cst);
    else
        cr_assert_eq(gst, (int)cst, "%s t=%d k=%zu n=%zu: GPU status %d, CPU %d", what, t, k, n, gst, cst);
    if (cst == GHZ_SUCCESS) {
        cr_assert_eq(sg, sc, "%s t=%d k=%zu n=%zu: GPU %zu bytes, CPU %zu", what, t, k, n, sg, sc);
        for (size_t i = 0; i < sc; ++i)
            if (g[i] != c[i])
                cr_assert_fail("%s t=%d k=%zu n=%zu: byte %zu differs (GPU %02x, CPU %02x)", what, t, k, n, i, g[i],
                               c[i]);
    }
    free(c);
    free(g);
}

/* k slices of a datasets/ field (nz = k: correlated slices, as k ranks' data), each
 * compressed under ABS rel * (range of the whole stack). */
static unsigned char** field_frames(const char* name, ghz_dtype_t t, size_t nx, size_t ny, size_t k, double rel,
                                    size_t* sz)
{
    const size_t n = nx * ny;
    unsigned char** f = calloc(k, sizeof *f);
    void* x = malloc(n * k * 8);
    double lo = INFINITY, hi = -INFINITY, eb;
    const int ocean = strcmp(name, "ocean2d") == 0;
    if (t == GHZ_F32)
        cr_assert_eq(ghz_ds_generate(name, nx, ny, k, 7, (float*)x), 0);
    else
        cr_assert_eq(ghz_ds_generate_f64(name, nx, ny, k, 7, (double*)x), 0);
    for (size_t i = 0; i < n * k; ++i) {
        double v = t == GHZ_F32 ? ((float*)x)[i] : ((double*)x)[i];
        if (ocean && v == (double)GHZ_DS_OCEAN_FILL) continue;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    eb = rel * (hi - lo);
    for (size_t s = 0; s < k; ++s) {
        ghz_params_t p = GHZ_PARAMS_INIT;
        const size_t cap = ghz_compress_bound(n, t);
        p.dtype = t;
        p.eb_mode = GHZ_EB_ABS;
        p.eb = eb;
        p.has_fill = ocean;
        p.fill = GHZ_DS_OCEAN_FILL;
        f[s] = malloc(cap + 8);
        GK(ghz_compress(&p, (char*)x + s * n * (t == GHZ_F32 ? 4 : 8), n, f[s], cap, &sz[s]));
    }
    free(x);
    return f;
}

static void free_frames(unsigned char** f, size_t k)
{
    for (size_t i = 0; i < k; ++i) free(f[i]);
    free(f);
}

static const size_t k_values[] = {1, 2, 3, 4, 7, 64};

Test(cuda_homo_nary, sum_n_fields_equal_cpu)
{
    static const char* const names[] = {"smooth2d", "noisy2d", "ocean2d"};
    static const double rels[] = {1e-2, 1e-4, 1e-6};
    need_gpu();
    for (int ti = 0; ti < 2; ++ti)
        for (size_t ni = 0; ni < 3; ++ni)
            for (size_t ki = 0; ki < sizeof k_values / sizeof k_values[0]; ++ki) {
                const size_t k = k_values[ki];
                /* multi-tile (9 f32 tiles, 17 f64 ones, short last block); tiny */
                const size_t dims[2][2] = {{257, 131}, {5, 7}};
                for (int di = 0; di < 2; ++di) {
                    size_t* sz = calloc(k, sizeof *sz);
                    const ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
                    unsigned char** f = field_frames(names[ni], t, dims[di][0], dims[di][1], k, rels[(ki + ni) % 3], sz);
                    check_sum_n(t, k, f, sz, dims[di][0] * dims[di][1], (ki + di) % 3 == 2 ? IN_MAPPED : IN_DEVICE,
                                names[ni]);
                    free_frames(f, k);
                    free(sz);
                }
            }
}

/* The synthetic classes (NaN/Inf, fills, |q| near QMAX, a quantizable fill value,
 * runs of zeros), each input its own draw, k = 1, 2, 3, 4, 7. */
Test(cuda_homo_nary, sum_n_classes_equal_cpu)
{
    static const size_t sizes[] = {1, 33, 9003, 100003};
    need_gpu();
    for (int ti = 0; ti < 2; ++ti)
        for (int kind = 0; kind < KINDS; ++kind)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                for (size_t ki = 0; ki < 5; ++ki) {
                    const size_t k = k_values[ki];
                    const ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
                    const double eb = kind == NEAR_QMAX ? 1e-6 : 1e-3;
                    unsigned char** f = calloc(k, sizeof *f);
                    size_t* sz = calloc(k, sizeof *sz);
                    for (size_t i = 0; i < k; ++i) {
                        /* classes that share a bound and a fill value mix */
                        int ki2 = kind == NEAR_QMAX || kind == QFILL || kind == NANLAND
                                      ? kind
                                      : (int)((kind + i) % NEAR_QMAX);
                        f[i] = make_frame((enum kind)ki2, t, sizes[si], eb, &sz[i]);
                    }
                    check_sum_n(t, k, f, sz, sizes[si], IN_DEVICE, "class");
                    free_frames(f, k);
                    free(sz);
                }
}

/* A frame of 0.2 without a fill (here: a frame without any NaN, its fill fields
 * cleared, which is the frame 0.2 wrote) against one with the NaN fill of 0.3: refused
 * on the GPU as on the CPU (HOMO.md, Frames of 0.2 without a fill), in both orders, by
 * the binary and the k-input kernels. */
Test(cuda_homo, frame_of_0_2_against_nan_fill_refused)
{
    const size_t n = 5000;
    size_t sa, sb, sg, sc;
    unsigned char *old, *nan, *g, *c = malloc(ghz_compress_bound(n, GHZ_F32));
    need_gpu();
    {
        ghz_params_t p = GHZ_PARAMS_INIT;
        float* x = malloc(n * sizeof *x);
        for (size_t i = 0; i < n; ++i) x[i] = (float)sin((double)i * 1e-3);
        p.eb_mode = GHZ_EB_ABS;
        p.eb = 1e-3;
        old = malloc(ghz_compress_bound(n, GHZ_F32));
        GK(ghz_compress(&p, x, n, old, ghz_compress_bound(n, GHZ_F32), &sa));
        cr_assert(old[11] & 1u);
        old[11] &= (unsigned char)~1u;
        memset(old + 56, 0, 8);
        free(x);
    }
    nan = make_frame(NANLAND, GHZ_F32, n, 1e-3, &sb);
    for (int order = 0; order < 2; ++order) {
        unsigned char* a = order ? nan : old;
        unsigned char* b = order ? old : nan;
        const size_t la = order ? sb : sa, lb = order ? sa : sb;
        cr_assert_eq(cpu_binary(GHZ_HOMO_SUM, a, la, b, lb, c, ghz_compress_bound(n, GHZ_F32), &sc),
                     GHZ_ERR_MISMATCH);
        for (int op = GHZ_HOMO_SUM; op <= GHZ_HOMO_MAX; ++op) {
            cr_assert_eq(gpu_binary((ghz_homo_op_t)op, GHZ_F32, a, la, b, lb, n, &g, &sg), GHZ_ERR_MISMATCH,
                         "order %d op %d", order, op);
            free(g);
        }
        {
            unsigned char* f[2] = {a, b};
            const size_t sz[2] = {la, lb};
            cr_assert_eq(gpu_sum_n(GHZ_F32, 2, f, sz, n, IN_DEVICE, &g, &sg), GHZ_ERR_MISMATCH);
            free(g);
        }
    }
    /* frames of 0.2 among themselves still combine, as on the CPU */
    cr_assert_eq(cpu_binary(GHZ_HOMO_SUM, old, sa, old, sa, c, ghz_compress_bound(n, GHZ_F32), &sc), GHZ_SUCCESS);
    cr_assert_eq(gpu_binary(GHZ_HOMO_SUM, GHZ_F32, old, sa, old, sa, n, &g, &sg), GHZ_SUCCESS);
    cr_assert(sg == sc && memcmp(g, c, sc) == 0);
    free(g);
    free(old);
    free(nan);
    free(c);
}

Test(cuda_homo_nary, sum_n_errors_as_cpu)
{
    const size_t n = 9000, k = 3;
    unsigned char* f[3];
    size_t sz[3], ws;
    unsigned char *g, *keep;
    size_t sg;
    need_gpu();
    for (size_t i = 0; i < k; ++i) f[i] = make_frame((enum kind)(i % 3), GHZ_F32, n, 1e-3, &sz[i]);
    /* another quantum in input 2: a mismatch */
    free(f[2]);
    f[2] = make_frame(SMOOTH, GHZ_F32, n, 2e-3, &sz[2]);
    cr_assert_eq(gpu_sum_n(GHZ_F32, k, f, sz, n, IN_DEVICE, &g, &sg), GHZ_ERR_MISMATCH);
    free(g);
    free(f[2]);
    f[2] = make_frame(SMOOTH, GHZ_F32, n, 1e-3, &sz[2]);
    /* max_elems below n */
    cr_assert_eq(gpu_sum_n(GHZ_F32, k, f, sz, n - 1, IN_DEVICE, &g, &sg), GHZ_ERR_DST_TOO_SMALL);
    free(g);
    /* bit flips in input 1: the GPU fails exactly where the CPU does, else agrees */
    keep = malloc(sz[1]);
    memcpy(keep, f[1], sz[1]);
    for (int c = 0; c < 200; ++c) {
        memcpy(f[1], keep, sz[1]);
        f[1][64 + rng() % (sz[1] - 64)] ^= (unsigned char)(1u << (rng() % 8));
        check_sum_n(GHZ_F32, k, f, sz, n, IN_DEVICE, "corrupt");
    }
    memcpy(f[1], keep, sz[1]);
    /* refused on the host: too many inputs, none */
    cr_assert_eq(ghz_cuda_homo_sum_n_workspace(GHZ_CUDA_HOMO_MAX_INPUTS + 1, n, &ws), GHZ_ERR_UNSUPPORTED);
    {
        ghz_buf_t b[GHZ_CUDA_HOMO_MAX_INPUTS + 1], o = dev_buf((void*)16, 0, 100, (uint64_t*)16);
        for (int i = 0; i <= GHZ_CUDA_HOMO_MAX_INPUTS; ++i) b[i] = dev_buf((void*)16, 100, 100, NULL);
        cr_assert_eq(ghz_cuda_homo_sum_n(NULL, GHZ_F32, GHZ_CUDA_HOMO_MAX_INPUTS + 1, b, &o, n, NULL, NULL, 0, 0),
                     GHZ_ERR_UNSUPPORTED);
        cr_assert_eq(ghz_cuda_homo_sum_n(NULL, GHZ_F32, 0, b, &o, n, NULL, NULL, 0, 0), GHZ_ERR_INVALID_ARG);
    }
    free(keep);
    for (size_t i = 0; i < k; ++i) free(f[i]);
}

/* Sealed inputs are verified on the GPU: intact, the result is the CPU's; one flipped
 * byte anywhere in a sealed frame (header, codes, payload, the CRC) is GHZ_ERR_CORRUPT. */
Test(cuda_homo_nary, sum_n_checksums_verified)
{
    const size_t n = 20011, k = 4;
    unsigned char* f[4];
    size_t sz[4];
    unsigned char* g;
    size_t sg;
    need_gpu();
    for (size_t i = 0; i < k; ++i) {
        f[i] = make_frame((enum kind)(i % 3), GHZ_F64, n, 1e-3, &sz[i]);
        if (i != 2) f[i] = seal_frame(f[i], &sz[i]); /* one input left unsealed */
    }
    check_sum_n(GHZ_F64, k, f, sz, n, IN_DEVICE, "sealed");
    for (int c = 0; c < 40; ++c) {
        const size_t i = c % 2 ? 3 : 0, at = rng() % sz[i];
        const unsigned char bit = (unsigned char)(1u << (rng() % 8));
        f[i][at] ^= bit;
        int st = gpu_sum_n(GHZ_F64, k, f, sz, n, IN_DEVICE, &g, &sg);
        /* a flip in the header may read as another error first, as on the CPU */
        cr_assert_neq(st, GHZ_SUCCESS, "flip at %zu of input %zu went unnoticed", at, i);
        if (at >= 64) cr_assert_eq(st, GHZ_ERR_CORRUPT, "flip at %zu of input %zu: status %d", at, i, st);
        free(g);
        f[i][at] ^= bit;
    }
    for (size_t i = 0; i < k; ++i) free(f[i]);
}

/* k pairs in one call (k = 40: two launches), every op: pair i's bytes are
 * ghz_homo_binary's; pair 5 mismatched reports its own status and no other pair's. */
Test(cuda_homo_nary, binary_batch_equals_cpu)
{
    enum { K = 40 };
    const size_t n = 7001, cap = ghz_compress_bound(n, GHZ_F32);
    unsigned char *a[K], *b[K], *c = malloc(cap), *g = malloc(cap);
    size_t sa[K], sb[K], sc, ws;
    char* d_in;
    unsigned char* d_out;
    uint64_t* d_sizes;
    int *d_st, h_st[K];
    uint64_t h_sizes[K];
    ghz_buf_t ba[K], bb[K], bo[K];
    void* d_w;
    need_gpu();
    for (int i = 0; i < K; ++i) {
        a[i] = make_frame((enum kind)(i % NEAR_QMAX), GHZ_F32, n, 1e-3, &sa[i]);
        b[i] = make_frame((enum kind)((i + 2) % NEAR_QMAX), GHZ_F32, n, i == 5 ? 2e-3 : 1e-3, &sb[i]);
    }
    GK(ghz_cuda_homo_binary_batch_workspace(K, n, &ws));
    CK(cudaMalloc((void**)&d_in, 2 * K * cap));
    CK(cudaMalloc((void**)&d_out, K * cap));
    CK(cudaMalloc((void**)&d_sizes, K * sizeof *d_sizes));
    CK(cudaMalloc((void**)&d_st, K * sizeof *d_st));
    CK(cudaMalloc(&d_w, ws));
    for (int i = 0; i < K; ++i) {
        CK(cudaMemcpy(d_in + 2 * i * cap, a[i], sa[i], cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_in + (2 * i + 1) * cap, b[i], sb[i], cudaMemcpyHostToDevice));
        ba[i] = dev_buf(d_in + 2 * i * cap, sa[i], sa[i], NULL);
        bb[i] = dev_buf(d_in + (2 * i + 1) * cap, sb[i], sb[i], NULL);
        bo[i] = dev_buf(d_out + i * cap, 0, cap, d_sizes + i);
    }
    for (int op = GHZ_HOMO_SUM; op <= GHZ_HOMO_MAX; ++op) {
        GK(ghz_cuda_homo_binary_batch(NULL, (ghz_homo_op_t)op, GHZ_F32, K, ba, bb, bo, n, d_st, d_w, ws, 0));
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h_st, d_st, sizeof h_st, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(h_sizes, d_sizes, sizeof h_sizes, cudaMemcpyDeviceToHost));
        for (int i = 0; i < K; ++i) {
            if (i == 5) {
                cr_assert_eq(h_st[i], GHZ_ERR_MISMATCH, "op %d pair %d: status %d", op, i, h_st[i]);
                continue;
            }
            GK(cpu_binary((ghz_homo_op_t)op, a[i], sa[i], b[i], sb[i], c, cap, &sc));
            cr_assert_eq(h_st[i], GHZ_SUCCESS, "op %d pair %d: status %d", op, i, h_st[i]);
            cr_assert_eq(h_sizes[i], sc, "op %d pair %d: GPU %llu bytes, CPU %zu", op, i,
                         (unsigned long long)h_sizes[i], sc);
            CK(cudaMemcpy(g, d_out + i * cap, sc, cudaMemcpyDeviceToHost));
            cr_assert(memcmp(g, c, sc) == 0, "op %d pair %d: bytes differ from the CPU", op, i);
        }
    }
    for (int i = 0; i < K; ++i) free(a[i]), free(b[i]);
    cudaFree(d_in), cudaFree(d_out), cudaFree(d_sizes), cudaFree(d_st), cudaFree(d_w);
    free(c), free(g);
}

/* In place on the GPU: a's memory ends up holding ghz_homo_binary_inplace's bytes, with
 * a->capacity = ghz_homo_bound exactly (the tightest case), for every op, class and
 * size, including NOISY at a tiny bound (incompressible: every block may grow) and
 * sealed a. A capacity one byte short is refused (DST_TOO_SMALL, or TRUNCATED where a's
 * frame no longer fits in it) and leaves a untouched, bytes and device-held size. */
static void check_inplace(ghz_dtype_t t, int ka, int kb, size_t n, double eb, int seal)
{
    size_t sa, sb, bound, sc, ws;
    unsigned char* a0 = make_frame((enum kind)ka, t, n, eb, &sa);
    unsigned char* b = make_frame((enum kind)kb, t, n, eb, &sb);
    unsigned char *a, *cpu, *gpu;
    char *d_a, *d_b;
    uint64_t *d_size, h_size = 0, sa64;
    int *d_st, h_st = -1;
    void* d_w;
    if (seal) a0 = seal_frame(a0, &sa);
    GK(ghz_homo_bound(a0, sa, &bound));
    GK(ghz_cuda_homo_binary_inplace_workspace(n, &ws));
    a = malloc(bound), cpu = malloc(bound), gpu = malloc(bound);
    CK(cudaMalloc((void**)&d_a, bound + 1));
    CK(cudaMalloc((void**)&d_b, sb));
    CK(cudaMalloc((void**)&d_size, sizeof *d_size));
    CK(cudaMalloc((void**)&d_st, sizeof *d_st));
    CK(cudaMalloc(&d_w, ws));
    CK(cudaMemcpy(d_b, b, sb, cudaMemcpyHostToDevice));
    for (int op = GHZ_HOMO_SUM; op <= GHZ_HOMO_MAX; ++op) {
        ghz_buf_t ab = GHZ_BUF_INIT, bb = GHZ_BUF_INIT, da, db;
        memcpy(a, a0, sa);
        ab.data = a;
        ab.size = sa;
        ab.capacity = bound;
        bb.data = b;
        bb.size = bb.capacity = sb;
        GK(ghz_homo_binary_inplace((ghz_homo_op_t)op, &ab, &bb));
        sc = ab.size;
        memcpy(cpu, a, sc);
        /* the GPU: a's size in device memory (it receives the result's), a at an odd
         * address */
        for (int shrt = 0; shrt < 2; ++shrt) {
            sa64 = sa;
            CK(cudaMemcpy(d_a + 1, a0, sa, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(d_size, &sa64, sizeof sa64, cudaMemcpyHostToDevice));
            da = dev_buf(d_a + 1, 0, bound - (size_t)shrt, d_size);
            db = dev_buf(d_b, sb, sb, NULL);
            GK(ghz_cuda_homo_binary_inplace(NULL, (ghz_homo_op_t)op, t, &da, &db, n, d_st, d_w, ws, 0));
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(&h_st, d_st, sizeof h_st, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&h_size, d_size, sizeof h_size, cudaMemcpyDeviceToHost));
            if (shrt) {
                /* an incompressible a fills its whole bound: one byte less and the frame
                 * itself does not fit in a's capacity, which the header check reads as a
                 * truncated frame (as every GPU reader of a device-held size does; the
                 * CPU refuses a->size > a->capacity as INVALID_ARG) */
                const int want = sa > bound - 1 ? GHZ_ERR_TRUNCATED : GHZ_ERR_DST_TOO_SMALL;
                cr_assert_eq(h_st, want, "t=%d kinds %d,%d n=%zu seal=%d, size %zu, capacity bound - 1 = %zu: "
                             "status %d, expected %d", t, ka, kb, n, seal, sa, bound - 1, h_st, want);
                cr_assert_eq(h_size, sa, "a refused but its size became %llu (was %zu)", (unsigned long long)h_size,
                             sa);
                CK(cudaMemcpy(gpu, d_a + 1, sa, cudaMemcpyDeviceToHost));
                cr_assert(memcmp(gpu, a0, sa) == 0, "a refused but touched");
                continue;
            }
            cr_assert_eq(h_st, GHZ_SUCCESS, "t=%d kinds %d,%d n=%zu op=%d seal=%d: status %d", t, ka, kb, n, op,
                         seal, h_st);
            cr_assert_eq(h_size, sc, "t=%d kinds %d,%d n=%zu op=%d: GPU %llu bytes, CPU %zu", t, ka, kb, n, op,
                         (unsigned long long)h_size, sc);
            CK(cudaMemcpy(gpu, d_a + 1, sc, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < sc; ++i)
                if (gpu[i] != cpu[i])
                    cr_assert_fail("t=%d kinds %d,%d n=%zu op=%d seal=%d: byte %zu differs (GPU %02x, CPU %02x)", t,
                                   ka, kb, n, op, seal, i, gpu[i], cpu[i]);
        }
    }
    cudaFree(d_a), cudaFree(d_b), cudaFree(d_size), cudaFree(d_st), cudaFree(d_w);
    free(a0), free(b), free(a), free(cpu), free(gpu);
}

Test(cuda_homo_nary, binary_inplace_equals_cpu)
{
    static const size_t sizes[] = {1, 33, 9003, 100003};
    need_gpu();
    for (int ti = 0; ti < 2; ++ti) {
        const ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            for (int k = 0; k < NEAR_QMAX; ++k) check_inplace(t, k, (k + 1 + (int)si) % NEAR_QMAX, sizes[si], 1e-3, 0);
            /* incompressible: noise at a tiny bound, blocks RAW or wide, results grow */
            check_inplace(t, NOISY, NOISY, sizes[si], 1e-9, 0);
            check_inplace(t, NEAR_QMAX, NEAR_QMAX, sizes[si], 1e-6, 0);
            check_inplace(t, SMOOTH, NOISY, sizes[si], 1e-3, 1);
            check_inplace(t, NOISY, NOISY, sizes[si], 1e-9, 1);
        }
    }
}

/* In place, results that shrink (CONST) and stay RAW in every tile, both recomputed
 * from a when emitted (see HALVES): later tiles' output covers earlier tiles' input as
 * soon as the look-back lets them write. Many tiles in flight at once; small enough
 * for the sanitizers. */
Test(cuda_homo_nary, inplace_shrink_and_recompute)
{
    need_gpu();
    for (int ti = 0; ti < 2; ++ti) {
        const ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
        check_inplace(t, NOISY, HALVES, 9003, 1e-9, 1);
        check_inplace(t, NOISY, HALVES, (size_t)1 << 18, 1e-9, 0);
        check_inplace(t, NOISY, HALVES, (size_t)1 << 18, 1e-9, 1);
    }
}

/* The n-ary sum and the in-place operation captured in a CUDA graph with the
 * context's workspace: every replay writes the CPU's bytes. */
Test(cuda_homo_nary, graph_capture)
{
    const size_t n = 50001, k = 4, cap = ghz_compress_bound(n, GHZ_F32);
    unsigned char* f[4];
    size_t sz[4], so;
    unsigned char *cpu = malloc(cap), *gpu = malloc(cap);
    char* d_in[4];
    char* d_o;
    uint64_t *d_size, h_size;
    int *d_st, h_st;
    ghz_buf_t bi[4], bo;
    cudaStream_t s;
    cudaGraph_t gr;
    cudaGraphExec_t ge;
    need_gpu();
    ghz_cuda_ctx_t* ctx = make_ctx((int)k, n);
    for (size_t i = 0; i < k; ++i) {
        f[i] = make_frame((enum kind)(i % 3), GHZ_F32, n, 1e-3, &sz[i]);
        CK(cudaMalloc((void**)&d_in[i], sz[i]));
        CK(cudaMemcpy(d_in[i], f[i], sz[i], cudaMemcpyHostToDevice));
        bi[i] = dev_buf(d_in[i], sz[i], sz[i], NULL);
    }
    GK(cpu_sum_n(k, f, sz, cpu, cap, &so));
    CK(cudaMalloc((void**)&d_o, cap));
    CK(cudaMalloc((void**)&d_size, sizeof *d_size));
    CK(cudaMalloc((void**)&d_st, sizeof *d_st));
    bo = dev_buf(d_o, 0, cap, d_size);
    CK(cudaStreamCreate(&s));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    GK(ghz_cuda_homo_sum_n(ctx, GHZ_F32, k, bi, &bo, 0, d_st, NULL, 0, s));
    CK(cudaStreamEndCapture(s, &gr));
    CK(cudaGraphInstantiate(&ge, gr, 0));
    for (int r = 0; r < 3; ++r) {
        CK(cudaMemsetAsync(d_o, 0, cap, s));
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
    cudaGraphDestroy(gr);
    cudaStreamDestroy(s);
    for (size_t i = 0; i < k; ++i) cudaFree(d_in[i]), free(f[i]);
    cudaFree(d_o), cudaFree(d_size), cudaFree(d_st);
    GK(ghz_cuda_ctx_destroy(ctx));
    free(cpu), free(gpu);
}
