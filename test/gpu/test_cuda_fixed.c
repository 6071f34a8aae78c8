/* test/gpu/test_cuda_fixed.c: the CUDA fixed-rate codec (FIXED.md) against the CPU
 * reference (label gpu): the GPU writes the CPU's bytes for every dtype, l, size,
 * input class and alignment; it decodes to the CPU's values bit for bit; bad frames
 * are reported through the device status or refused on the host; fixed.h's element
 * accessor (load, store, dot) gives the CPU's results inside a kernel. Skipped where
 * no GPU is present. */
#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixed_kernels.h"
#include "ghz/codec/fixed_cuda.h"
#include "ghz/ghz.h"
#include "gpu_testutil.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rng(void)
{
    return gpu_rng(&rng_state);
}

enum kind { SMOOTH, SPECIALS, RANDOM_BITS, WIDE, KINDS };

/* n values of dtype t of one input class (host, malloc'd). */
static void* make(enum kind k, ghz_dtype_t t, size_t n)
{
    size_t elem = ghz_dtype_size(t), i;
    unsigned char* x = malloc(n * elem + 16);
    for (i = 0; i < n; ++i) {
        double d = 0.0;
        uint64_t u = rng();
        switch (k) {
        case SMOOTH: d = sin((double)i * 1e-3) * 50.0; break;
        case SPECIALS: {
            static const double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-310, 1e-40, 1e300};
            d = u % 5 == 0 ? sp[(u >> 8) % 8] : (double)(int64_t)(u >> 40) * 1e-3;
            break;
        }
        case RANDOM_BITS: /* every bit pattern, NaN payloads and subnormals included */
            if (t == GHZ_F32) {
                uint32_t b = (uint32_t)u;
                memcpy(x + 4 * i, &b, 4);
            } else {
                memcpy(x + 8 * i, &u, 8);
            }
            continue;
        default: d = ((double)(u >> 11) * 0x1.0p-53 - 0.5) * pow(10.0, (double)((u >> 3) % 20) - 10); break;
        }
        if (t == GHZ_F32) {
            float f = (float)d;
            memcpy(x + 4 * i, &f, 4);
        } else {
            memcpy(x + 8 * i, &d, 8);
        }
    }
    return x;
}

static const unsigned bits_all[] = {8, 16, 32};
static const ghz_dtype_t dtypes[] = {GHZ_F32, GHZ_F64};
static const size_t sizes[] = {0, 1, 31, 32, 33, 1000, 4097, 100003};

/* GPU-encodes n values from host x (at element offset off of the device buffer, to
 * take the unaligned path) and returns the frame's bytes; *d_frame keeps the device
 * frame (cudaFree it). */
static unsigned char* gpu_encode(ghz_dtype_t t, unsigned bits, const void* x, size_t n,
                                 size_t off, void** d_frame)
{
    size_t elem = ghz_dtype_size(t), size = ghz_fixed_size(n, bits);
    unsigned char* out = malloc(size);
    void* d_x;
    CK(cudaMalloc(&d_x, (n + off) * elem + 16));
    CK(cudaMalloc(d_frame, size));
    CK(cudaMemcpy((char*)d_x + off * elem, x, n * elem, cudaMemcpyHostToDevice));
    CK(cudaMemset(*d_frame, 0xA5, size)); /* the kernel must write every byte */
    GK(ghz_cuda_fixed_compress(NULL, t, bits, (char*)d_x + off * elem, n, *d_frame, size, 0));
    CK(cudaMemcpy(out, *d_frame, size, cudaMemcpyDeviceToHost));
    CK(cudaFree(d_x));
    return out;
}

Test(cuda_fixed, gpu_bytes_equal_cpu_bytes_and_values)
{
    size_t d, j, s, off;
    int k;
    need_gpu();
    for (d = 0; d < 2; d++)
        for (j = 0; j < 3; j++)
            for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                for (k = 0; k < KINDS; k++)
                    for (off = 0; off < 2; off++) {
                        ghz_dtype_t t = dtypes[d];
                        unsigned bits = bits_all[j];
                        size_t n = sizes[s], elem = ghz_dtype_size(t), size, i;
                        void* x = make((enum kind)k, t, n);
                        unsigned char* cpu = malloc(ghz_fixed_size(n, bits));
                        unsigned char *cpu_vals = malloc(n * elem + 1), *gpu_vals = malloc(n * elem + 1);
                        void *d_frame, *d_out;
                        int* d_status;
                        int status = -1;
                        unsigned char* gpu = gpu_encode(t, bits, x, n, off, &d_frame);
                        GK(ghz_fixed_compress(t, bits, x, n, cpu, ghz_fixed_size(n, bits), &size));
                        for (i = 0; i < size; i++)
                            cr_assert(gpu[i] == cpu[i],
                                      "dtype %d l=%u n=%zu kind %d off %zu: byte %zu GPU %02x CPU %02x",
                                      (int)t, bits, n, k, off, i, gpu[i], cpu[i]);
                        GK(ghz_fixed_decompress(cpu, size, cpu_vals, n * elem, NULL));
                        CK(cudaMalloc(&d_out, (n + 1) * elem));
                        CK(cudaMalloc((void**)&d_status, sizeof(int)));
                        GK(ghz_cuda_fixed_decompress(NULL, t, bits, n, d_frame, size,
                                                     (char*)d_out + off * elem, n * elem, d_status, 0));
                        CK(cudaMemcpy(gpu_vals, (char*)d_out + off * elem, n * elem, cudaMemcpyDeviceToHost));
                        CK(cudaMemcpy(&status, d_status, sizeof status, cudaMemcpyDeviceToHost));
                        cr_assert_eq(status, GHZ_SUCCESS, "dtype %d l=%u n=%zu: status %d", (int)t, bits, n,
                                     status);
                        cr_assert(memcmp(gpu_vals, cpu_vals, n * elem) == 0,
                                  "dtype %d l=%u n=%zu kind %d: GPU values differ from the CPU's", (int)t,
                                  bits, n, k);
                        CK(cudaFree(d_frame));
                        CK(cudaFree(d_out));
                        CK(cudaFree(d_status));
                        free(x);
                        free(cpu);
                        free(gpu);
                        free(cpu_vals);
                        free(gpu_vals);
                    }
}

/* Decodes frame bytes f (size bytes, expecting t/bits/n) on the GPU; the status. */
static int gpu_status(const unsigned char* f, size_t size, ghz_dtype_t t, unsigned bits, size_t n)
{
    void *d_f, *d_out;
    int* d_status;
    int status = -1;
    CK(cudaMalloc(&d_f, size));
    CK(cudaMalloc(&d_out, n * ghz_dtype_size(t) + 16));
    CK(cudaMalloc((void**)&d_status, sizeof(int)));
    CK(cudaMemcpy(d_f, f, size, cudaMemcpyHostToDevice));
    GK(ghz_cuda_fixed_decompress(NULL, t, bits, n, d_f, size, d_out, n * ghz_dtype_size(t), d_status, 0));
    CK(cudaMemcpy(&status, d_status, sizeof status, cudaMemcpyDeviceToHost));
    CK(cudaFree(d_f));
    CK(cudaFree(d_out));
    CK(cudaFree(d_status));
    return status;
}

Test(cuda_fixed, bad_frames_reported)
{
    const size_t n = 1000;
    size_t size = ghz_fixed_size(n, 16), nb = (n + 31) / 32, codes = 64 + (2 * nb + 15) / 16 * 16;
    void* x = make(SMOOTH, GHZ_F32, n);
    unsigned char *f = malloc(size), *c = malloc(size);
    void *d_f, *d_out;
    need_gpu();
    GK(ghz_fixed_compress(GHZ_F32, 16, x, n, f, size, &size));
    cr_assert_eq(gpu_status(f, size, GHZ_F32, 16, n), GHZ_SUCCESS);
    cr_assert_eq(gpu_status(f, size, GHZ_F64, 16, n), GHZ_ERR_MISMATCH, "dtype");
    memcpy(c, f, size);
    c[9] = 1;
    cr_assert_eq(gpu_status(c, size, GHZ_F32, 16, n), GHZ_ERR_UNSUPPORTED, "mode 1");
    memcpy(c, f, size);
    c[0] ^= 1;
    cr_assert_eq(gpu_status(c, size, GHZ_F32, 16, n), GHZ_ERR_NOT_GHZ, "magic");
    memcpy(c, f, size);
    c[64 + 2 * 7 + 1] |= 0x40; /* block 7's word, bit 14 */
    cr_assert_eq(gpu_status(c, size, GHZ_F32, 16, n), GHZ_ERR_CORRUPT, "word bits");
    memcpy(c, f, size);
    c[codes + 2 * 500] = 0x00, c[codes + 2 * 500 + 1] = 0x80; /* a marker, K = 0 */
    cr_assert_eq(gpu_status(c, size, GHZ_F32, 16, n), GHZ_ERR_CORRUPT, "marker");
    memcpy(c, f, size);
    c[codes + 2 * (nb * 32 - 1)] = 1; /* a padding code */
    cr_assert_eq(gpu_status(c, size, GHZ_F32, 16, n), GHZ_ERR_CORRUPT, "padding");
    /* refused on the host: sizes, bits, alignment */
    CK(cudaMalloc(&d_f, size + 16));
    CK(cudaMalloc(&d_out, n * 8));
    cr_assert_eq(ghz_cuda_fixed_decompress(NULL, GHZ_F32, 16, n, d_f, size - 1, d_out, n * 4, NULL, 0),
                 GHZ_ERR_MISMATCH);
    cr_assert_eq(ghz_cuda_fixed_decompress(NULL, GHZ_F32, 16, n, d_f, size, d_out, n * 4 - 1, NULL, 0),
                 GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_cuda_fixed_compress(NULL, GHZ_F32, 12, d_out, n, d_f, size, 0), GHZ_ERR_UNSUPPORTED);
    cr_assert_eq(ghz_cuda_fixed_compress(NULL, GHZ_F32, 16, d_out, n, (char*)d_f + 4, size, 0),
                 GHZ_ERR_INVALID_ARG, "frame not 16-byte aligned");
    cr_assert_eq(ghz_cuda_fixed_compress(NULL, GHZ_F32, 16, d_out, n, d_f, size - 1, 0),
                 GHZ_ERR_DST_TOO_SMALL);
    CK(cudaFree(d_f));
    CK(cudaFree(d_out));
    free(x);
    free(f);
    free(c);
}

/* The decoder checks a whole chunk of a marker-free block on its packed words at once
 * (fixed.cuh): a marker at ANY position of a chunk, a nonzero code at any position of a
 * zero block, and a nonzero padding code anywhere past n must still be found, for every
 * l and dtype. */
Test(cuda_fixed, bad_code_found_at_every_position)
{
    const size_t n = 640; /* 20 blocks */
    size_t d, j, p;
    need_gpu();
    for (d = 0; d < 2; d++)
        for (j = 0; j < 3; j++) {
            ghz_dtype_t t = dtypes[d];
            unsigned bits = bits_all[j], cb = bits / 8;
            size_t elem = ghz_dtype_size(t), size = ghz_fixed_size(n, bits), i;
            size_t codes = 64 + (2 * (n / 32) + 15) / 16 * 16;
            unsigned char* x = make(SMOOTH, t, 650); /* 640 for the first frame, 650 below */
            unsigned char *f = malloc(ghz_fixed_size(650, bits)), *c = malloc(ghz_fixed_size(650, bits));
            memset(x + 3 * 32 * elem, 0, 32 * elem); /* block 3: all zero (B = 0) */
            GK(ghz_fixed_compress(t, bits, x, n, f, size, &size));
            cr_assert_eq(gpu_status(f, size, t, bits, n), GHZ_SUCCESS);
            for (p = 0; p < 32; p++) {
                memcpy(c, f, size); /* block 10, element p: the marker -2^(l-1) (K = 0) */
                for (i = 0; i < cb; i++) c[codes + (10 * 32 + p) * cb + i] = i + 1 == cb ? 0x80 : 0x00;
                cr_assert_eq(gpu_status(c, size, t, bits, n), GHZ_ERR_CORRUPT, "l=%u dtype %d marker at %zu",
                             bits, (int)t, p);
                memcpy(c, f, size); /* block 3 (zero), element p: code -1 */
                for (i = 0; i < cb; i++) c[codes + (3 * 32 + p) * cb + i] = 0xFF;
                cr_assert_eq(gpu_status(c, size, t, bits, n), GHZ_ERR_CORRUPT, "l=%u dtype %d zero block, %zu",
                             bits, (int)t, p);
            }
            /* the first 650 values: block 20 holds 10 elements and 22 padding codes, in a
             * partial chunk and (l < 32) whole padding chunks; each must be 0 */
            size = ghz_fixed_size(650, bits);
            codes = 64 + (2 * 21 + 15) / 16 * 16;
            GK(ghz_fixed_compress(t, bits, x, 650, f, size, &size));
            cr_assert_eq(gpu_status(f, size, t, bits, 650), GHZ_SUCCESS);
            for (p = 10; p < 32; p++) {
                memcpy(c, f, size);
                c[codes + (20 * 32 + p) * cb] = 1;
                cr_assert_eq(gpu_status(c, size, t, bits, 650), GHZ_ERR_CORRUPT, "l=%u dtype %d padding at %zu",
                             bits, (int)t, p);
            }
            free(x);
            free(f);
            free(c);
        }
}

Test(cuda_fixed, accessor_in_a_kernel_equals_cpu)
{
    size_t d, j;
    need_gpu();
    for (d = 0; d < 2; d++)
        for (j = 0; j < 3; j++) {
            ghz_dtype_t t = dtypes[d];
            unsigned bits = bits_all[j];
            const size_t n = 50000, len = 97, ranges = (n + len - 1) / len;
            size_t size = ghz_fixed_size(n, bits), i;
            void* x = make(SPECIALS, t, n);
            unsigned char *f = malloc(size), *g = malloc(size);
            double *y = malloc(n * 8), *vals = malloc(n * 8), *got = malloc(n * 8);
            double *part = malloc(ranges * 8), *d_y, *d_vals, *d_got, *d_part;
            int *ok = malloc(n * sizeof(int)), *d_ok;
            void* d_f;
            ghz_fixed_view_t hv, dv;
            GK(ghz_fixed_compress(t, bits, x, n, f, size, &size));
            for (i = 0; i < n; i++) {
                y[i] = (double)(rng() >> 11) * 0x1.0p-53 - 0.5;
                vals[i] = y[i] * 40.0;
            }
            CK(cudaMalloc(&d_f, size));
            CK(cudaMalloc((void**)&d_y, n * 8));
            CK(cudaMalloc((void**)&d_vals, n * 8));
            CK(cudaMalloc((void**)&d_got, n * 8));
            CK(cudaMalloc((void**)&d_part, ranges * 8));
            CK(cudaMalloc((void**)&d_ok, n * sizeof(int)));
            CK(cudaMemcpy(d_f, f, size, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(d_y, y, n * 8, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(d_vals, vals, n * 8, cudaMemcpyHostToDevice));
            hv = ghz_fixed_view_make(f, t, bits, n);
            dv = ghz_fixed_view_make(d_f, t, bits, n);
            /* load */
            cr_assert_eq(tfx_load_all(dv, d_got), 0);
            CK(cudaMemcpy(got, d_got, n * 8, cudaMemcpyDeviceToHost));
            for (i = 0; i < n; i++) {
                double want = ghz_fixed_load(&hv, i);
                cr_assert(memcmp(&want, &got[i], 8) == 0, "l=%u load %zu: %g vs %g", bits, i,
                          got[i], want);
            }
            /* dot over ranges, bit for bit */
            cr_assert_eq(tfx_dot_ranges(dv, d_y, len, d_part), 0);
            CK(cudaMemcpy(part, d_part, ranges * 8, cudaMemcpyDeviceToHost));
            for (i = 0; i < ranges; i++) {
                size_t b = i * len, e = b + len < n ? b + len : n;
                double want = ghz_fixed_dot(&hv, y + b, b, e);
                cr_assert(memcmp(&want, &part[i], 8) == 0 || (isnan(want) && isnan(part[i])),
                          "l=%u dot range %zu: %.17g vs %.17g", bits, i, part[i], want);
            }
            /* store: same codes and return values as on the CPU */
            cr_assert_eq(tfx_store_all(dv, d_vals, d_ok), 0);
            CK(cudaMemcpy(g, d_f, size, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(ok, d_ok, n * sizeof(int), cudaMemcpyDeviceToHost));
            for (i = 0; i < n; i++) cr_assert_eq(ghz_fixed_store(&hv, i, vals[i]), ok[i], "store %zu", i);
            cr_assert(memcmp(f, g, size) == 0, "l=%u: frames differ after stores", bits);
            CK(cudaFree(d_f));
            CK(cudaFree(d_y));
            CK(cudaFree(d_vals));
            CK(cudaFree(d_got));
            CK(cudaFree(d_part));
            CK(cudaFree(d_ok));
            free(x);
            free(f);
            free(g);
            free(y);
            free(vals);
            free(got);
            free(part);
            free(ok);
        }
}

/* Stream-ordered and capturable: encode + decode captured in a CUDA graph on a
 * non-default stream, replayed, give the CPU's bytes and values. */
Test(cuda_fixed, graph_capture)
{
    const size_t n = 70001;
    const unsigned bits = 16;
    size_t size = ghz_fixed_size(n, bits), csize;
    void* x = make(WIDE, GHZ_F64, n);
    unsigned char *cpu = malloc(size), *gpu = malloc(size);
    double *want = malloc(n * 8), *got = malloc(n * 8);
    void *d_x, *d_f, *d_y;
    int* d_status;
    int status = -1;
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    need_gpu();
    GK(ghz_fixed_compress(GHZ_F64, bits, x, n, cpu, size, &csize));
    GK(ghz_fixed_decompress(cpu, size, want, n * 8, NULL));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMalloc(&d_x, n * 8));
    CK(cudaMalloc(&d_f, size));
    CK(cudaMalloc(&d_y, n * 8));
    CK(cudaMalloc((void**)&d_status, sizeof(int)));
    CK(cudaMemcpy(d_x, x, n * 8, cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize()); /* (s is non-blocking: the copy's DMA first) */
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    GK(ghz_cuda_fixed_compress(NULL, GHZ_F64, bits, d_x, n, d_f, size, s));
    GK(ghz_cuda_fixed_decompress(NULL, GHZ_F64, bits, n, d_f, size, d_y, n * 8, d_status, s));
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(gpu, d_f, size, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(got, d_y, n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&status, d_status, sizeof status, cudaMemcpyDeviceToHost));
    cr_assert_eq(status, GHZ_SUCCESS);
    cr_assert(memcmp(gpu, cpu, size) == 0, "graph: frame differs from the CPU's");
    cr_assert(memcmp(got, want, n * 8) == 0, "graph: values differ from the CPU's");
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d_x));
    CK(cudaFree(d_f));
    CK(cudaFree(d_y));
    CK(cudaFree(d_status));
    free(x);
    free(cpu);
    free(gpu);
    free(want);
    free(got);
}
