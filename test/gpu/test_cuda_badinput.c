/* test/gpu/test_cuda_badinput.c: what the CUDA decompressor reports for each class of
 * bad stream, through the device status of ghz_cuda_decompress_sync (label gpu):
 * foreign bytes, an unknown version, a truncated frame, a corrupt code byte, a frame
 * of the other dtype (GHZ_ERR_MISMATCH) and an output too small. Skipped where no GPU
 * is present. */
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/ghz.h"
#include "gpu_testutil.h"

/* Copies src[0..size) to the GPU and decodes it as dtype into cap bytes, twice: with
 * the size known to the host (ghz_buf_t.size) and with the size in device memory
 * (ghz_buf_t.d_size, the buffer's capacity larger), which must report alike. */
static ghz_status_t gpu_decode(ghz_dtype_t dtype, const unsigned char* src, size_t size, size_t cap)
{
    size_t got = 0, got2 = 0, max_elems = cap / ghz_dtype_size(dtype) + 1;
    void *d_src, *d_dst;
    uint64_t* d_size;
    const uint64_t size64 = size;
    ghz_cuda_ctx_t* ctx = make_ctx(1, max_elems);
    ghz_status_t st, st2;
    CK(cudaMalloc(&d_src, size + 64));
    CK(cudaMalloc(&d_dst, cap + 1));
    CK(cudaMalloc((void**)&d_size, sizeof *d_size));
    CK(cudaMemset(d_src, 0, size + 64));
    CK(cudaMemcpy(d_src, src, size, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_size, &size64, sizeof size64, cudaMemcpyHostToDevice));
    ghz_buf_t in = dev_buf(d_src, size, size + 64, NULL);
    st = ghz_cuda_decompress_sync(ctx, dtype, &in, d_dst, cap, &got, 0);
    in = dev_buf(d_src, 0, size + 64, d_size);
    st2 = ghz_cuda_decompress_sync(ctx, dtype, &in, d_dst, cap, &got2, 0);
    cr_assert_eq(st2, st, "size on the device: %s, on the host: %s", ghz_status_string(st2), ghz_status_string(st));
    cudaFree(d_src);
    cudaFree(d_dst);
    cudaFree(d_size);
    GK(ghz_cuda_ctx_destroy(ctx));
    return st;
}

Test(cuda_badinput, status_per_class)
{
    enum { N = 5000 };
    static float x[N];
    ghz_params_t p = GHZ_PARAMS_INIT;
    size_t cap = ghz_compress_bound(N, GHZ_F32), size = 0;
    unsigned char* f = malloc(cap);
    unsigned char* bad = malloc(cap);
    need_gpu();
    for (int i = 0; i < N; ++i) x[i] = (float)i * 0.01f;
    p.eb_mode = GHZ_EB_ABS;
    p.eb = 1e-3;
    GK(ghz_compress(&p, x, N, f, cap, &size));
    cr_assert_eq(gpu_decode(GHZ_F32, f, size, 4 * N), GHZ_SUCCESS, "the premise");

    memcpy(bad, f, size);
    memcpy(bad, "text", 4);
    cr_assert_eq(gpu_decode(GHZ_F32, bad, size, 4 * N), GHZ_ERR_NOT_GHZ);
    memcpy(bad, f, size);
    bad[4] = (unsigned char)(GHZ_FORMAT_VERSION + 1); /* a version this library does not read */
    cr_assert_eq(gpu_decode(GHZ_F32, bad, size, 4 * N), GHZ_ERR_VERSION);
    cr_assert_eq(gpu_decode(GHZ_F32, f, size - 1, 4 * N), GHZ_ERR_TRUNCATED);
    cr_assert_eq(gpu_decode(GHZ_F32, f, 40, 4 * N), GHZ_ERR_TRUNCATED);
    memcpy(bad, f, size);
    bad[GHZ_HEADER_SIZE] = 0x7F; /* special kind 3: reserved */
    cr_assert_eq(gpu_decode(GHZ_F32, bad, size, 4 * N), GHZ_ERR_CORRUPT);
    cr_assert_eq(gpu_decode(GHZ_F64, f, size, 8 * N), GHZ_ERR_MISMATCH);
    cr_assert_eq(gpu_decode(GHZ_F32, f, size, 4 * N - 4), GHZ_ERR_DST_TOO_SMALL);
    free(f);
    free(bad);
}
