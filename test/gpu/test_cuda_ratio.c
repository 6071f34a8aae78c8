/* test/gpu/test_cuda_ratio.c: ratio frames (RATIO.md) on the GPU against the CPU
 * reference: the same bytes from ghz_cuda_compress and ghz_compress over 1-D, 2-D and 3-D
 * fields, f32 and f64, ABS and REL, E = 0, with NaN, Inf, fill values and outliers; the
 * block frame where the ratio frame would pass the bound; each reader decoding the
 * other's frames to the same bits, every value within the bound; damaged frames
 * refused by the GPU exactly where the CPU refuses them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_testutil.h"
#include "ghz/codec/detail/ratio.h"

typedef struct {
    size_t d[3];      /* extents, fastest first (0: unused) */
    int specials;     /* 0 none, 1 NaN and Inf scattered, 2 a fill region and a NaN */
    int outliers;     /* spikes far outside the bound */
    int noise;        /* 1: incompressible values (the block frame fallback); 2: a band of
                         noise 1e3 wide in the middle sixth of a smooth field */
} field_t;

static size_t count_of(const field_t* f)
{
    size_t n = 1;
    for (int i = 0; i < 3; ++i)
        if (f->d[i]) n *= f->d[i];
    return n;
}

static const double kFill = -1e34;

/* The field as doubles (converted to the dtype by the caller). */
static double* make_field(const field_t* f, uint64_t seed)
{
    const size_t n = count_of(f);
    const size_t d0 = f->d[0] ? f->d[0] : n, d1 = f->d[1] ? f->d[1] : 1;
    double* v = malloc(n * sizeof *v);
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i) {
        const double x = (double)(i % d0), y = (double)((i / d0) % d1), z = (double)(i / (d0 * d1));
        const double r = (double)(gpu_rng(&s) >> 11) / 9007199254740992.0;
        if (f->noise == 1)
            v[i] = r * 1000.0 - 500.0;
        else
            v[i] = 100.0 * sin(0.05 * x) * cos(0.031 * y) + 20.0 * sin(0.07 * z + 0.01 * x) + 0.01 * r;
        if (f->noise == 2 && i >= 5 * n / 12 && i < 7 * n / 12) v[i] += r * 1000.0;
        if (f->outliers && gpu_rng(&s) % 997 == 0) v[i] = (gpu_rng(&s) & 1 ? 1e30 : -3e29);
        if (f->specials == 1) {
            const uint64_t u = gpu_rng(&s) % 401;
            if (u == 0) v[i] = NAN;
            if (u == 1) v[i] = INFINITY;
            if (u == 2) v[i] = -INFINITY;
        }
        if (f->specials == 2 && ((x > d0 / 3.0 && x < d0 / 2.0 && y < d1 / 2.0) || i % 5003 == 7)) v[i] = kFill;
        if (f->specials == 2 && i == n / 2) v[i] = NAN;
    }
    return v;
}

static void* to_dtype(const double* v, size_t n, ghz_dtype_t t)
{
    void* out = malloc(n * (t == GHZ_F32 ? 4 : 8));
    for (size_t i = 0; i < n; ++i) {
        if (t == GHZ_F32)
            ((float*)out)[i] = (float)v[i];
        else
            ((double*)out)[i] = v[i];
    }
    return out;
}

typedef struct {
    ghz_eb_mode_t mode;
    double eb;
} bound_t;

static ghz_params_t params_for(const field_t* f, ghz_dtype_t t, bound_t b)
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    p.dtype = t;
    p.eb_mode = b.mode;
    p.eb = b.eb;
    p.prefer = GHZ_PREFER_RATIO;
    p.dims[0] = f->d[0];
    p.dims[1] = f->d[1];
    p.dims[2] = f->d[2];
    if (f->specials == 2) {
        p.has_fill = 1;
        p.fill = kFill;
    }
    return p;
}

/* Every decoded value within the bound of its input, specials bit for bit. */
static void check_values(const void* in, const void* out, size_t n, ghz_dtype_t t, double eb)
{
    for (size_t i = 0; i < n; ++i) {
        double x, y;
        uint64_t bx = 0, by = 0;
        if (t == GHZ_F32) {
            x = ((const float*)in)[i];
            y = ((const float*)out)[i];
            memcpy(&bx, (const float*)in + i, 4);
            memcpy(&by, (const float*)out + i, 4);
        } else {
            x = ((const double*)in)[i];
            y = ((const double*)out)[i];
            memcpy(&bx, (const double*)in + i, 8);
            memcpy(&by, (const double*)out + i, 8);
        }
        if (!isfinite(x) || x == kFill || (t == GHZ_F32 && (float)x == (float)kFill)) {
            cr_assert_eq(bx, by, "special %zu not kept bit for bit", i);
            continue;
        }
        cr_assert(fabs(x - y) <= eb, "element %zu: |%.17g - %.17g| > %.17g", i, x, y, eb);
    }
}

static int ratio_frames; /* cases that gave ratio frames */

/* CPU and GPU frames of one case: the same bytes, each reader the same bits. The GPU
 * writes and reads its frame at byte `off` of its buffer (the API allows any byte). */
static void run_case_at(ghz_cuda_ctx_t* ctx, const field_t* f, ghz_dtype_t t, bound_t b, int expect_ratio, size_t off)
{
    const size_t n = count_of(f), elem = t == GHZ_F32 ? 4 : 8;
    double* v = make_field(f, 0x1234 + n);
    void* src = to_dtype(v, n, t);
    const ghz_params_t p = params_for(f, t, b);
    const size_t cap = ghz_compress_bound(n, t);
    uint8_t *cpu = malloc(cap), *gpu = malloc(cap);
    void *dec_cpu = malloc(n * elem + 8), *dec_gpu = malloc(n * elem + 8);
    size_t cpu_size = 0, n_out = 0;
    GK(ghz_compress(&p, src, n, cpu, cap, &cpu_size));
    /* expect_ratio < 0: whichever the CPU wrote (a tiny bound makes every value an
     * outlier, and the frame falls back to the block coding) */
    if (expect_ratio >= 0)
        cr_assert_eq(cpu[12] == 1, expect_ratio != 0, "CPU frame coding %d, expected ratio=%d", cpu[12], expect_ratio);
    ratio_frames += cpu[12] == 1;

    void *d_src, *d_frame, *d_out;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMalloc(&d_src, n * elem + 8));
    CK(cudaMalloc(&d_frame, cap + off));
    CK(cudaMalloc(&d_out, n * elem + 8));
    CK(cudaMemcpy(d_src, src, n * elem, cudaMemcpyHostToDevice));
    GK(ghz_cuda_ctx_reserve_ratio(ctx, t, n));
    uint8_t* const d_at = (uint8_t*)d_frame + off;
    ghz_buf_t dst = dev_buf(d_at, 0, cap, NULL);
    GK(ghz_cuda_compress_sync(ctx, &p, d_src, n, &dst, s));
    CK(cudaMemcpy(gpu, d_at, dst.size, cudaMemcpyDeviceToHost));
    cr_assert_eq(dst.size, cpu_size, "n = %zu (%zu x %zu x %zu) dtype %d mode %d eb %g at +%zu: GPU frame %zu bytes, CPU %zu",
                 n, f->d[0], f->d[1], f->d[2], (int)t, (int)b.mode, b.eb, off, dst.size, cpu_size);
    for (size_t i = 0; i < cpu_size; ++i)
        cr_assert_eq(gpu[i], cpu[i], "n = %zu dtype %d mode %d eb %g at +%zu: byte %zu of %zu differs (GPU %u, CPU %u)", n,
                     (int)t, (int)b.mode, b.eb, off, i, cpu_size, gpu[i], cpu[i]);

    /* each reader, the CPU's frame (= the GPU's) */
    GK(ghz_decompress(cpu, cpu_size, dec_cpu, n * elem, &n_out));
    ghz_buf_t in = dev_buf(d_at, cpu_size, cap, NULL);
    size_t h_n = 0;
    CK(cudaMemset(d_out, 0xA5, n * elem));
    GK(ghz_cuda_decompress_sync(ctx, t, &in, d_out, n * elem, &h_n, s));
    cr_assert_eq(h_n, n);
    CK(cudaMemcpy(dec_gpu, d_out, n * elem, cudaMemcpyDeviceToHost));
    cr_assert(memcmp(dec_cpu, dec_gpu, n * elem) == 0, "GPU decode differs from the CPU's");
    double eb_abs = b.eb;
    if (b.mode == GHZ_EB_REL) {
        ghz_frame_info_t info;
        GK(ghz_frame_info(cpu, cpu_size, &info));
        eb_abs = info.eb_abs;
    }
    check_values(src, dec_gpu, n, t, eb_abs);

    CK(cudaFree(d_src));
    CK(cudaFree(d_frame));
    CK(cudaFree(d_out));
    CK(cudaStreamDestroy(s));
    free(v);
    free(src);
    free(cpu);
    free(gpu);
    free(dec_cpu);
    free(dec_gpu);
}

static void run_case(ghz_cuda_ctx_t* ctx, const field_t* f, ghz_dtype_t t, bound_t b, int expect_ratio)
{
    run_case_at(ctx, f, t, b, expect_ratio, 0);
}

static const field_t kShapes[] = {
    {{100000, 0, 0}, 0, 0, 0},  {{1, 0, 0}, 0, 0, 0},      {{7, 0, 0}, 1, 0, 0},
    {{300, 201, 0}, 0, 1, 0},   {{257, 130, 0}, 2, 0, 0},  {{64, 33, 40}, 1, 1, 0},
    {{40, 30, 70}, 2, 1, 0},    {{1, 1, 3000}, 1, 0, 0},   {{1, 600, 0}, 2, 0, 0},
    {{150000, 0, 0}, 2, 1, 0},  {{100, 90, 80}, 2, 1, 0},  {{1, 300, 201}, 1, 1, 0},
};

static const bound_t kBounds[] = {
    {GHZ_EB_ABS, 1e-3}, {GHZ_EB_REL, 1e-2}, {GHZ_EB_REL, 1e-4}, {GHZ_EB_ABS, 1e-9},
};

Test(cuda_ratio, same_bytes_f32)
{
    need_gpu();
    ghz_cuda_ctx_t* ctx = make_ctx(1, 1 << 18);
    for (size_t i = 0; i < sizeof kShapes / sizeof kShapes[0]; ++i)
        for (size_t j = 0; j < sizeof kBounds / sizeof kBounds[0]; ++j) run_case(ctx, &kShapes[i], GHZ_F32, kBounds[j], -1);
    cr_assert_gt(ratio_frames, 25, "only %d ratio frames", ratio_frames);
    GK(ghz_cuda_ctx_destroy(ctx));
}

Test(cuda_ratio, same_bytes_f64)
{
    need_gpu();
    ghz_cuda_ctx_t* ctx = make_ctx(1, 1 << 18);
    for (size_t i = 0; i < sizeof kShapes / sizeof kShapes[0]; ++i)
        for (size_t j = 0; j < sizeof kBounds / sizeof kBounds[0]; ++j) run_case(ctx, &kShapes[i], GHZ_F64, kBounds[j], -1);
    cr_assert_gt(ratio_frames, 25, "only %d ratio frames", ratio_frames);
    GK(ghz_cuda_ctx_destroy(ctx));
}

/* Frames written and read at byte offsets 0-7 of the device buffer: the chunk writer
 * stores aligned words whatever the frame's alignment, and its chunks' first and last
 * bytes are shared with their neighbours. */
Test(cuda_ratio, output_at_any_byte)
{
    need_gpu();
    static const field_t f = {{300, 201, 0}, 1, 1, 0};
    ghz_cuda_ctx_t* ctx = make_ctx(1, count_of(&f));
    for (size_t off = 0; off < 8; ++off) {
        run_case_at(ctx, &f, GHZ_F32, (bound_t){GHZ_EB_REL, 1e-3}, 1, off);
        run_case_at(ctx, &f, GHZ_F64, (bound_t){GHZ_EB_REL, 1e-4}, -1, off);
    }
    GK(ghz_cuda_ctx_destroy(ctx));
}

/* The rANS kernel stages each chunk's extra bits, about 16 a symbol at most, for the
 * chunk writer; a chunk with more, or with an outlier, is written from its codes. At
 * ABS 1e-3 the noisy band's codes take 17-20 extra bits each: chunks of both kinds and
 * chunks that fill their span part way, in one frame, the same bytes as the CPU's. */
Test(cuda_ratio, extra_bits_past_the_span)
{
    need_gpu();
    static const field_t bands[] = {{{120000, 0, 0}, 0, 0, 2}, {{400, 300, 0}, 0, 0, 2}, {{400, 300, 0}, 0, 1, 2}};
    ghz_cuda_ctx_t* ctx = make_ctx(1, 120000);
    for (size_t i = 0; i < sizeof bands / sizeof bands[0]; ++i) {
        run_case(ctx, &bands[i], GHZ_F32, (bound_t){GHZ_EB_ABS, 1e-3}, 1);
        run_case(ctx, &bands[i], GHZ_F64, (bound_t){GHZ_EB_ABS, 1e-3}, 1);
    }
    GK(ghz_cuda_ctx_destroy(ctx));
}

/* Above 2^26 values the writers spread each pass over more chunks (RATIO.md, Chunks):
 * the same bytes there too. GHZ_TEST_RATIO_SPREAD=0 leaves the case out (it takes
 * seconds on the CPU, minutes under compute-sanitizer). */
Test(cuda_ratio, spread_same_bytes)
{
    need_gpu();
    const char* env = getenv("GHZ_TEST_RATIO_SPREAD");
    if (env && strcmp(env, "0") == 0) cr_skip_test("GHZ_TEST_RATIO_SPREAD=0");
    static const field_t big = {{1024, 512, 129}, 2, 1, 0};
    ghz_cuda_ctx_t* ctx = make_ctx(1, count_of(&big));
    run_case(ctx, &big, GHZ_F32, (bound_t){GHZ_EB_REL, 1e-3}, 1);
    GK(ghz_cuda_ctx_destroy(ctx));
}

/* Frames of every chunk rule a reader may meet (RATIO.md, Chunks: spread S, shrink k),
 * written by the CPU's writer at a size where no writer would choose them; k = 0 with
 * spread is how spread frames were written before the shrink existed. The GPU decodes
 * each to the CPU's bits. */
Test(cuda_ratio, every_chunk_rule_reads)
{
    need_gpu();
    static const field_t f = {{512, 300, 0}, 1, 1, 0};
    const size_t n = count_of(&f), dims[3] = {512, 300, 0};
    const double eb = 1e-3;
    double* v = make_field(&f, 321);
    void* src = to_dtype(v, n, GHZ_F32);
    const size_t cap = ghz_compress_bound(n, GHZ_F32);
    uint8_t* frame = malloc(cap);
    float *a = malloc(n * 4), *g = malloc(n * 4);
    ghz_cuda_ctx_t* ctx = make_ctx(1, n);
    void *d_frame, *d_out;
    CK(cudaMalloc(&d_frame, cap));
    CK(cudaMalloc(&d_out, n * 4));
    static const unsigned rules[][2] = {{0, 0}, {0, 2}, {6, 0}, {6, 1}, {6, 2}, {9, 2}};
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; ++r) {
        const unsigned S = rules[r][0], k = rules[r][1];
        ghz_enc_params e;
        ghz_frame_info_t fi;
        uint64_t fs = 0;
        size_t n_out = 0, h_n = 0;
        memset(&e, 0, sizeof e);
        e.dtype = GHZ_F32;
        e.elem = 4;
        e.z = ghz_quantizer_make(eb, 1);
        memset(&fi, 0, sizeof fi);
        fi.dtype = GHZ_F32;
        fi.eb_mode = GHZ_EB_ABS;
        fi.eb_user = fi.eb_abs = eb;
        fi.n = n;
        GK(ghz_ratio_encode(&e, &fi, dims, S, k, (const uint8_t*)src, frame, cap, &fs, 1));
        cr_assert_eq(frame[13], S);
        cr_assert_eq(frame[14], k);
        GK(ghz_decompress(frame, (size_t)fs, a, n * 4, &n_out));
        CK(cudaMemcpy(d_frame, frame, (size_t)fs, cudaMemcpyHostToDevice));
        ghz_buf_t in = dev_buf(d_frame, (size_t)fs, cap, NULL);
        GK(ghz_cuda_decompress_sync(ctx, GHZ_F32, &in, d_out, n * 4, &h_n, 0));
        cr_assert_eq(h_n, n);
        CK(cudaMemcpy(g, d_out, n * 4, cudaMemcpyDeviceToHost));
        cr_assert(memcmp(a, g, n * 4) == 0, "spread %u, shrink %u: the GPU decodes other bits", S, k);
        check_values(src, g, n, GHZ_F32, eb);
    }
    CK(cudaFree(d_frame));
    CK(cudaFree(d_out));
    GK(ghz_cuda_ctx_destroy(ctx));
    free(v);
    free(src);
    free(frame);
    free(a);
    free(g);
}

/* E = 0: lossless; a smooth field still predicts some values exactly. */
Test(cuda_ratio, lossless)
{
    need_gpu();
    ghz_cuda_ctx_t* ctx = make_ctx(1, 1 << 18);
    const field_t f = {{64, 40, 0}, 1, 0, 0};
    const field_t g = {{5000, 0, 0}, 0, 0, 0};
    for (int t = 0; t < 2; ++t) {
        /* E = 0: REL over constant data (an ABS bound of 0 is refused); the frames may be
         * block frames: expect whatever the CPU writes */
        const bound_t b = {GHZ_EB_REL, 1e-3};
        const field_t* fs[2] = {&f, &g};
        for (int k = 0; k < 2; ++k) {
            const size_t n = count_of(fs[k]);
            double* v = make_field(fs[k], 0x1234 + n);
            for (size_t i = 0; i < n; ++i)
                if (isfinite(v[i])) v[i] = 3.25;
            void* src = to_dtype(v, n, t ? GHZ_F64 : GHZ_F32);
            const ghz_params_t p = params_for(fs[k], t ? GHZ_F64 : GHZ_F32, b);
            const size_t cap = ghz_compress_bound(n, p.dtype);
            uint8_t* cpu = malloc(cap);
            size_t sz = 0;
            GK(ghz_compress(&p, src, n, cpu, cap, &sz));
            run_case(ctx, fs[k], p.dtype, b, cpu[12] == 1);
            free(cpu);
            free(src);
            free(v);
        }
    }
    GK(ghz_cuda_ctx_destroy(ctx));
}

/* Incompressible values: the ratio frame would pass the bound, both write a block frame. */
Test(cuda_ratio, block_fallback)
{
    need_gpu();
    ghz_cuda_ctx_t* ctx = make_ctx(1, 1 << 18);
    const field_t f = {{20000, 0, 0}, 0, 0, 1};
    const bound_t b = {GHZ_EB_ABS, 1e-30};
    run_case(ctx, &f, GHZ_F32, b, 0);
    run_case(ctx, &f, GHZ_F64, b, 0);
    GK(ghz_cuda_ctx_destroy(ctx));
}

/* A frame damaged one byte at a time: the GPU accepts exactly what the CPU accepts,
 * and decodes it to the same bits. */
Test(cuda_ratio, damaged_frames)
{
    need_gpu();
    const field_t f = {{48, 20, 30}, 2, 1, 0};
    const size_t n = count_of(&f), elem = 4;
    double* v = make_field(&f, 77);
    void* src = to_dtype(v, n, GHZ_F32);
    const bound_t b = {GHZ_EB_REL, 1e-3};
    const ghz_params_t p = params_for(&f, GHZ_F32, b);
    const size_t cap = ghz_compress_bound(n, GHZ_F32);
    uint8_t *frame = malloc(cap), *bad = malloc(cap);
    void *dec_cpu = malloc(n * elem), *dec_gpu = malloc(n * elem);
    size_t size = 0, n_out = 0;
    GK(ghz_compress(&p, src, n, frame, cap, &size));
    cr_assert_eq(frame[12], 1);
    ghz_cuda_ctx_t* ctx = make_ctx(1, n);
    void *d_frame, *d_out;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMalloc(&d_frame, cap));
    CK(cudaMalloc(&d_out, n * elem));
    uint64_t rng = 99;
    int refused = 0;
    for (int trial = 0; trial < 400; ++trial) {
        memcpy(bad, frame, size);
        size_t at;
        if (trial < 128)
            at = 64 + (size_t)trial; /* every byte of the section */
        else
            at = 64 + (size_t)(gpu_rng(&rng) % (size - 64));
        bad[at] ^= (uint8_t)(1u << (gpu_rng(&rng) % 8));
        const ghz_status_t cst = ghz_decompress(bad, size, dec_cpu, n * elem, &n_out);
        CK(cudaMemcpy(d_frame, bad, size, cudaMemcpyHostToDevice));
        ghz_buf_t in = dev_buf(d_frame, size, cap, NULL);
        size_t h_n = 0;
        const ghz_status_t gst = ghz_cuda_decompress_sync(ctx, GHZ_F32, &in, d_out, n * elem, &h_n, s);
        cr_assert_eq(gst == GHZ_SUCCESS, cst == GHZ_SUCCESS, "byte %zu: GPU status %d, CPU %d", at, (int)gst, (int)cst);
        if (cst == GHZ_SUCCESS) {
            CK(cudaMemcpy(dec_gpu, d_out, n * elem, cudaMemcpyDeviceToHost));
            cr_assert(memcmp(dec_cpu, dec_gpu, n * elem) == 0, "byte %zu: accepted, decoded differently", at);
        } else {
            ++refused;
        }
    }
    cr_assert_gt(refused, 100);
    CK(cudaFree(d_frame));
    CK(cudaFree(d_out));
    CK(cudaStreamDestroy(s));
    GK(ghz_cuda_ctx_destroy(ctx));
    free(v);
    free(src);
    free(frame);
    free(bad);
    free(dec_cpu);
    free(dec_gpu);
}

/* A block frame still decodes through the same call (the ratio kernels leave it). */
Test(cuda_ratio, block_frames_unchanged)
{
    need_gpu();
    const field_t f = {{300, 201, 0}, 2, 1, 0};
    const size_t n = count_of(&f);
    double* v = make_field(&f, 5);
    void* src = to_dtype(v, n, GHZ_F32);
    ghz_params_t p = params_for(&f, GHZ_F32, (bound_t){GHZ_EB_REL, 1e-3});
    p.prefer = GHZ_PREFER_SPEED;
    const size_t cap = ghz_compress_bound(n, GHZ_F32);
    uint8_t* frame = malloc(cap);
    float *a = malloc(n * 4), *g = malloc(n * 4);
    size_t size = 0, n_out = 0, h_n = 0;
    GK(ghz_compress(&p, src, n, frame, cap, &size));
    GK(ghz_decompress(frame, size, a, n * 4, &n_out));
    ghz_cuda_ctx_t* ctx = make_ctx(1, n);
    void *d_frame, *d_out;
    CK(cudaMalloc(&d_frame, cap));
    CK(cudaMalloc(&d_out, n * 4));
    CK(cudaMemcpy(d_frame, frame, size, cudaMemcpyHostToDevice));
    ghz_buf_t in = dev_buf(d_frame, size, cap, NULL);
    GK(ghz_cuda_decompress_sync(ctx, GHZ_F32, &in, d_out, n * 4, &h_n, 0));
    CK(cudaMemcpy(g, d_out, n * 4, cudaMemcpyDeviceToHost));
    cr_assert(memcmp(a, g, n * 4) == 0);
    CK(cudaFree(d_frame));
    CK(cudaFree(d_out));
    GK(ghz_cuda_ctx_destroy(ctx));
    free(v);
    free(src);
    free(frame);
    free(a);
    free(g);
}
