/* test/gpu/test_cuda_checksum.c: the CUDA decompressor verifies frame checksums
 * (FORMAT.md, Checksum; ghz/codec/cuda/checksum.cu) before it decodes (label gpu).
 * Properties: checksummed frames of every size decode on the GPU to the CPU's values
 * (frames large enough for the segment loop to stride); a frame with any changed byte
 * is refused with GHZ_ERR_CORRUPT and its output is left untouched; in a batch only the
 * damaged frame is refused; the GPU compressor refuses to write a checksum
 * (GHZ_ERR_UNSUPPORTED) and ghz_frame_add_checksum seals its frames into the CPU's
 * bytes. Skipped where no GPU is present. */
#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/ghz.h"
#include "gpu_testutil.h"

/* n float values; `noisy` makes them incompressible (every block RAW: a frame of
 * 4n bytes), otherwise a smooth ramp. */
static float* values(size_t n, int noisy)
{
    float* x = malloc(n * sizeof *x + 1);
    uint32_t s = 12345u;
    for (size_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        /* noisy: integers times 1024 up to 2^34, nearly all beyond QMAX * 2E at the
         * bound of 1e-3, so every block holds an unquantizable value and is RAW */
        x[i] = noisy ? (float)((s >> 8) | 1u) * 1024.0f : (float)i * 1e-3f;
    }
    return x;
}

/* A CPU-compressed frame with a checksum. */
static unsigned char* frame_ck(const float* x, size_t n, size_t* size)
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    size_t cap = ghz_compress_bound(n, GHZ_F32) + GHZ_CHECKSUM_SIZE;
    unsigned char* f = malloc(cap);
    p.eb_mode = GHZ_EB_ABS;
    p.eb = 1e-3;
    p.checksum = 1;
    GK(ghz_compress(&p, x, n, f, cap, size));
    cr_assert(f[11] & 2u);
    return f;
}

/* Decodes frame[0..size) on the GPU into a poisoned buffer of n floats; returns the
 * status and copies the output to host_out. */
static ghz_status_t gpu_decode(const unsigned char* frame, size_t size, size_t n, float* host_out)
{
    size_t got = 0;
    char *d_src, *d_dst;
    ghz_cuda_ctx_t* ctx = make_ctx(1, n);
    ghz_status_t st;
    CK(cudaMalloc((void**)&d_src, size + 1));
    CK(cudaMalloc((void**)&d_dst, n * 4 + 4));
    CK(cudaMemcpy(d_src + 1, frame, size, cudaMemcpyHostToDevice)); /* an odd address */
    CK(cudaMemset(d_dst, 0x7F, n * 4 + 4));
    ghz_buf_t in = dev_buf(d_src + 1, size, size, NULL);
    st = ghz_cuda_decompress_sync(ctx, GHZ_F32, &in, d_dst, n * 4, &got, 0);
    CK(cudaMemcpy(host_out, d_dst, n * 4, cudaMemcpyDeviceToHost));
    if (st == GHZ_SUCCESS) cr_assert_eq(got, n);
    cudaFree(d_src);
    cudaFree(d_dst);
    GK(ghz_cuda_ctx_destroy(ctx));
    return st;
}

Test(cuda_checksum, frames_decode_like_cpu)
{
    /* up to 12 Mi RAW values: 48 MB, more segments than one pass of the grid holds */
    static const size_t ns[] = {0, 1, 31, 33, 2048, 4099, 1000003, (size_t)12 << 20};
    need_gpu();
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; ++k)
        for (int noisy = 0; noisy < 2; ++noisy) {
            size_t n = ns[k], size;
            float* x = values(n, noisy);
            unsigned char* f = frame_ck(x, n, &size);
            float* cpu = malloc(n * 4 + 4);
            float* gpu = malloc(n * 4 + 4);
            GK(ghz_decompress(f, size, cpu, n * 4, NULL));
            cr_assert_eq(gpu_decode(f, size, n, gpu), GHZ_SUCCESS, "n %zu noisy %d: %s", n, noisy,
                         ghz_last_error_detail());
            cr_assert(memcmp(cpu, gpu, n * 4) == 0, "n %zu: GPU and CPU decodes differ", n);
            free(x), free(f), free(cpu), free(gpu);
        }
}

Test(cuda_checksum, changed_byte_refused_before_decoding)
{
    const size_t n = 300000;
    size_t size;
    need_gpu();
    float* x = values(n, 0);
    unsigned char* f = frame_ck(x, n, &size);
    float* out = malloc(n * 4 + 4);
    /* eb_abs (a valid-looking header change), a payload byte at the start, middle and
     * end, and each checksum byte */
    size_t at[] = {48 + 6, size - 4 - 1, size / 2, size - 40, size - 4, size - 1, 0};
    at[6] = 64 + ((n / 32 + 15) & ~(size_t)15); /* the first payload byte */
    for (size_t k = 0; k < sizeof at / sizeof at[0]; ++k) {
        f[at[k]] ^= 0x20;
        ghz_status_t st = gpu_decode(f, size, n, out);
        cr_assert_eq(st, GHZ_ERR_CORRUPT, "byte %zu: %s", at[k], ghz_status_string(st));
        for (size_t i = 0; i < n; ++i) {
            uint32_t u;
            memcpy(&u, &out[i], 4);
            cr_assert_eq(u, 0x7F7F7F7Fu, "byte %zu: value %zu was written", at[k], i);
        }
        f[at[k]] ^= 0x20;
    }
    cr_assert_eq(gpu_decode(f, size, n, out), GHZ_SUCCESS, "the restored frame decodes");
    free(x), free(f), free(out);
}

Test(cuda_checksum, batch_refuses_only_the_damaged_frame)
{
    enum { K = 3 };
    const size_t n = 70001;
    size_t size[K], ws = 0, max_elems[K] = {n, n, n}, caps[K] = {4 * n, 4 * n, 4 * n};
    unsigned char* f[K];
    void *d_src[K], *d_dst[K], *d_work;
    uint64_t *d_ns, h_ns[K];
    int *d_status, h_status[K];
    ghz_buf_t in[K];
    need_gpu();
    float* x = values(n, 1);
    GK(ghz_cuda_decompress_workspace(K, max_elems, &ws));
    CK(cudaMalloc(&d_work, ws));
    CK(cudaMalloc((void**)&d_ns, sizeof h_ns));
    CK(cudaMalloc((void**)&d_status, sizeof h_status));
    (void)max_elems;
    for (int i = 0; i < K; ++i) {
        f[i] = frame_ck(x, n, &size[i]);
        if (i == 1) f[i][size[i] / 3] ^= 1u;
        CK(cudaMalloc(&d_src[i], size[i]));
        CK(cudaMalloc(&d_dst[i], 4 * n));
        CK(cudaMemcpy(d_src[i], f[i], size[i], cudaMemcpyHostToDevice));
        in[i] = dev_buf(d_src[i], size[i], size[i], NULL);
    }
    GK(ghz_cuda_decompress_batch(NULL, GHZ_F32, K, in, d_dst, caps, d_ns, d_status, d_work, ws, 0));
    CK(cudaMemcpy(h_ns, d_ns, sizeof h_ns, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_status, d_status, sizeof h_status, cudaMemcpyDeviceToHost));
    /* each frame its own status: only the damaged one fails */
    cr_assert_eq(h_status[0], GHZ_SUCCESS);
    cr_assert_eq(h_status[1], GHZ_ERR_CORRUPT);
    cr_assert_eq(h_status[2], GHZ_SUCCESS);
    cr_assert_eq(h_ns[0], n);
    cr_assert_eq(h_ns[1], 0, "the damaged frame reports no values");
    cr_assert_eq(h_ns[2], n);
    float* back = malloc(4 * n);
    CK(cudaMemcpy(back, d_dst[2], 4 * n, cudaMemcpyDeviceToHost));
    cr_assert(memcmp(back, x, 4 * n) == 0, "RAW blocks come back bit for bit");
    for (int i = 0; i < K; ++i) cudaFree(d_src[i]), cudaFree(d_dst[i]), free(f[i]);
    cudaFree(d_work), cudaFree(d_ns), cudaFree(d_status);
    free(x), free(back);
}

Test(cuda_checksum, gpu_compressor_and_sealing)
{
    const size_t n = 100000;
    size_t gsize = 0, csize = 0, bound = ghz_compress_bound(n, GHZ_F32);
    ghz_params_t p = GHZ_PARAMS_INIT;
    char *d_src, *d_dst;
    need_gpu();
    ghz_cuda_ctx_t* ctx = make_ctx(1, n);
    float* x = values(n, 0);
    unsigned char* g = malloc(bound + GHZ_CHECKSUM_SIZE);
    unsigned char* c = malloc(bound + GHZ_CHECKSUM_SIZE);
    p.eb_mode = GHZ_EB_ABS;
    p.eb = 1e-3;
    CK(cudaMalloc((void**)&d_src, 4 * n));
    CK(cudaMalloc((void**)&d_dst, bound + GHZ_CHECKSUM_SIZE));
    CK(cudaMemcpy(d_src, x, 4 * n, cudaMemcpyHostToDevice));
    ghz_buf_t z = dev_buf(d_dst, 0, bound + 4, NULL);
    p.checksum = 1;
    cr_assert_eq(ghz_cuda_compress_sync(ctx, &p, d_src, n, &z, 0), GHZ_ERR_UNSUPPORTED);
    p.checksum = 0;
    GK(ghz_cuda_compress_sync(ctx, &p, d_src, n, &z, 0));
    gsize = z.size;
    CK(cudaMemcpy(g, d_dst, gsize, cudaMemcpyDeviceToHost));
    GK(ghz_frame_add_checksum(g, gsize, bound + GHZ_CHECKSUM_SIZE, &gsize));
    p.checksum = 1;
    GK(ghz_compress(&p, x, n, c, bound + GHZ_CHECKSUM_SIZE, &csize));
    cr_assert_eq(gsize, csize);
    cr_assert(memcmp(g, c, csize) == 0, "sealed GPU frame differs from the CPU's");
    cudaFree(d_src), cudaFree(d_dst);
    GK(ghz_cuda_ctx_destroy(ctx));
    free(x), free(g), free(c);
}
