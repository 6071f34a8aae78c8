/* test/unit/test_badinput.c: every class of bad argument gets its documented status. */
#include <criterion/criterion.h>
#include <math.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static float src[1000];
static unsigned char dst[8192];

static void init_src(void)
{
    size_t i;
    for (i = 0; i < 1000; i++) src[i] = (float)i * 0.37f - 100.0f;
}

TestSuite(badinput, .init = init_src);

static ghz_status_t comp(const ghz_params_t* p, size_t n)
{
    size_t size = 0;
    return ghz_compress(p, src, n, dst, sizeof dst, &size);
}

Test(badinput, null_pointers)
{
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    size_t size;
    ghz_frame_info_t fi;
    uint64_t a, b;
    ghz_dtype_t t;
    float out[16];
    cr_assert_eq(ghz_compress(NULL, src, 10, dst, sizeof dst, &size), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_compress(&p, NULL, 10, dst, sizeof dst, &size), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_compress(&p, src, 10, NULL, sizeof dst, &size), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_compress(&p, src, 10, dst, sizeof dst, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_compress(&p, src, 10, dst, sizeof dst, &size), GHZ_SUCCESS);
    cr_assert_eq(ghz_frame_info(NULL, size, &fi), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_frame_info(dst, size, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_stream_info(NULL, size, &a, &b, &t), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_decompress(NULL, size, out, sizeof out, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_decompress(dst, size, NULL, sizeof out, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_decompress(dst, size, out, sizeof out, NULL), GHZ_SUCCESS,
                 "n_out may be NULL");
    cr_assert_eq(ghz_compress_buf(&p, src, 10, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_decompress_buf(NULL, out, sizeof out, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_value_range(&p, NULL, 10, NULL, NULL, NULL), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_abs_bound(NULL, 0.0, 1.0, NULL), GHZ_ERR_INVALID_ARG);
}

Test(badinput, unknown_dtype_mode_exec)
{
    static const int bad[] = {0, 3, 4, 255, -1};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
        p.dtype = (ghz_dtype_t)bad[i];
        cr_assert_eq(comp(&p, 10), GHZ_ERR_INVALID_ARG, "dtype %d", bad[i]);
        cr_assert_eq(ghz_compress_bound(10, (ghz_dtype_t)bad[i]), 0, "bound of dtype %d",
                     bad[i]);
        p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
        p.eb_mode = (ghz_eb_mode_t)bad[i];
        cr_assert_eq(comp(&p, 10), GHZ_ERR_INVALID_ARG, "eb_mode %d", bad[i]);
    }
    {
        ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
        ghz_status_t st;
        p.exec = (ghz_exec_t)7;
        cr_assert_eq(comp(&p, 10), GHZ_ERR_INVALID_ARG, "exec 7");
        /* A struct_size smaller than the fields that exist in every version. */
        p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
        p.struct_size = 3;
        st = comp(&p, 10);
        cr_assert_eq(st, GHZ_ERR_INVALID_ARG, "struct_size 3: %d", (int)st);
    }
}

Test(badinput, bad_bounds)
{
    const double bad[] = {0.0, -0.0, -1e-3, -INFINITY, INFINITY, NAN, -NAN};
    size_t i;
    int mode;
    for (mode = 1; mode <= 2; mode++)
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            ghz_params_t p = tu_params(GHZ_F64, (ghz_eb_mode_t)mode, bad[i]);
            double e;
            cr_assert_eq(comp(&p, 10), GHZ_ERR_BAD_BOUND, "mode %d eb %g", mode, bad[i]);
            cr_assert_eq(comp(&p, 0), GHZ_ERR_BAD_BOUND, "mode %d eb %g, n = 0", mode, bad[i]);
            cr_assert_eq(ghz_abs_bound(&p, 0.0, 1.0, &e), GHZ_ERR_BAD_BOUND, "abs_bound %g",
                         bad[i]);
        }
    /* Bounds too large to use (2*E overflows): "too large to use". */
    {
        ghz_params_t p = tu_params(GHZ_F64, GHZ_EB_ABS, DBL_MAX);
        double big[2] = {-1e300, 1e300}, e;
        size_t size;
        cr_assert_eq(comp(&p, 10), GHZ_ERR_BAD_BOUND, "ABS DBL_MAX");
        p.eb = DBL_MAX / 1.5;
        cr_assert_eq(comp(&p, 10), GHZ_ERR_BAD_BOUND, "ABS DBL_MAX / 1.5");
        p.eb = DBL_MAX / 2.5; /* 2E finite: usable */
        cr_assert_eq(comp(&p, 10), GHZ_SUCCESS, "ABS DBL_MAX / 2.5");
        p = tu_params(GHZ_F64, GHZ_EB_REL, 1e10);
        cr_assert_eq(ghz_compress(&p, big, 2, dst, sizeof dst, &size), GHZ_ERR_BAD_BOUND,
                     "REL 1e10 over [-1e300, 1e300]");
        cr_assert_eq(ghz_abs_bound(&p, -1e300, 1e300, &e), GHZ_ERR_BAD_BOUND);
    }
}

Test(badinput, compress_dst_too_small)
{
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    size_t size = 0, cap, sizes[8], k;
    ghz_status_t st = ghz_compress(&p, src, 1000, dst, sizeof dst, &size);
    cr_assert_eq(st, GHZ_SUCCESS);
    cr_assert(size > 64 + 32);
    k = 0;
    sizes[k++] = size - 1;
    sizes[k++] = 0;
    sizes[k++] = 1;
    sizes[k++] = 63;
    sizes[k++] = 64;
    sizes[k++] = 64 + 31;
    sizes[k++] = size / 2;
    for (cap = 0; cap < k; cap++) {
        size_t got = 12345;
        unsigned char* d = malloc(sizes[cap] + 1);
        st = ghz_compress(&p, src, 1000, d, sizes[cap], &got);
        cr_assert_eq(st, GHZ_ERR_DST_TOO_SMALL, "capacity %zu of %zu: %d", sizes[cap], size,
                     (int)st);
        free(d);
    }
    /* Exactly the frame size suffices, even though it is below ghz_compress_bound. */
    cr_assert(size < ghz_compress_bound(1000, GHZ_F32));
    {
        size_t got = 0;
        unsigned char* d = malloc(size);
        cr_assert_eq(ghz_compress(&p, src, 1000, d, size, &got), GHZ_SUCCESS);
        cr_assert_eq(got, size);
        cr_assert(memcmp(d, dst, size) == 0);
        free(d);
    }
    /* Empty frame into fewer than 64 bytes. */
    {
        size_t got;
        cr_assert_eq(ghz_compress(&p, src, 0, dst, 63, &got), GHZ_ERR_DST_TOO_SMALL);
        cr_assert_eq(ghz_compress(&p, src, 0, dst, 64, &got), GHZ_SUCCESS);
    }
}

Test(badinput, decompress_dst_too_small)
{
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    size_t size = 0, n_out;
    float out[1000];
    cr_assert_eq(ghz_compress(&p, src, 1000, dst, sizeof dst, &size), GHZ_SUCCESS);
    cr_assert_eq(ghz_decompress(dst, size, out, 999 * 4, &n_out), GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_decompress(dst, size, out, 1000 * 4 - 1, &n_out), GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_decompress(dst, size, out, 0, &n_out), GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_decompress_mt(dst, size, out, 999 * 4, &n_out, 2), GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_decompress(dst, size, out, sizeof out, &n_out), GHZ_SUCCESS);
    cr_assert_eq(n_out, 1000);
}

Test(badinput, foreign_input)
{
    static const char text[] = "This is not a ghz stream, just some ASCII text that is "
                               "long enough to hold a header.";
    float out[16];
    size_t n_out;
    ghz_frame_info_t fi;
    cr_assert_eq(ghz_decompress(text, sizeof text, out, sizeof out, &n_out), GHZ_ERR_NOT_GHZ);
    cr_assert_eq(ghz_frame_info(text, sizeof text, &fi), GHZ_ERR_NOT_GHZ);
}

Test(badinput, status_strings)
{
    const char* s[19];
    int i, j;
    for (i = 0; i <= 18; i++) {
        s[i] = ghz_status_string((ghz_status_t)i);
        cr_assert(s[i] != NULL && s[i][0] != '\0', "status %d has no string", i);
    }
    for (i = 0; i <= 18; i++)
        for (j = i + 1; j <= 18; j++)
            cr_assert(strcmp(s[i], s[j]) != 0, "status %d and %d share \"%s\"", i, j, s[i]);
    {
        const char* u1 = ghz_status_string((ghz_status_t)19);
        const char* u2 = ghz_status_string((ghz_status_t)-1);
        const char* u3 = ghz_status_string((ghz_status_t)1000000);
        cr_assert(u1 != NULL && u2 != NULL && u3 != NULL);
        cr_assert(strcmp(u1, u2) == 0 && strcmp(u1, u3) == 0, "unknown codes differ");
        for (i = 0; i <= 18; i++)
            cr_assert(strcmp(u1, s[i]) != 0, "unknown code reads like status %d", i);
    }
}

Test(badinput, error_detail_is_set_and_cleared)
{
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, -1.0);
    const char* d;
    size_t size;
    cr_assert_eq(comp(&p, 10), GHZ_ERR_BAD_BOUND);
    d = ghz_last_error_detail();
    cr_assert(d != NULL && d[0] != '\0', "no detail after a failure");
    p.eb = 1e-3;
    cr_assert_eq(ghz_compress(&p, src, 10, dst, sizeof dst, &size), GHZ_SUCCESS);
    (void)size;
    d = ghz_last_error_detail();
    cr_assert(d != NULL, "detail is never NULL");
}

/* ghz_compress never writes past dst_capacity, serial or threaded: the destination
 * ends at a guard page. */
Test(badinput, compress_never_writes_past_capacity)
{
    const size_t n = 300000; /* enough for the threaded encoder */
    float* a = tu_make(GHZ_F32, TU_NOISY, n, 3);
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    size_t size, caps[7], k, got;
    unsigned char* ref;
    int nt;
    a[77] = NAN;
    ref = tu_compress(&p, a, n, &size);
    caps[0] = size;
    caps[1] = size - 1;
    caps[2] = size / 2;
    caps[3] = 64 + tu_codes_bytes(n);
    caps[4] = 100;
    caps[5] = size + 1;
    caps[6] = ghz_compress_bound(n, GHZ_F32); /* threads only engage with this much room */
    for (nt = 1; nt <= 2; nt++)
        for (k = 0; k < 7; k++) {
            tu_guard_t g;
            unsigned char* zero = calloc(caps[k] + 1, 1);
            unsigned char* d = tu_guard_copy(&g, zero, caps[k]);
            ghz_status_t st;
            p.nthreads = nt;
            st = ghz_compress(&p, a, n, d, caps[k], &got);
            if (caps[k] >= size) {
                cr_assert_eq(st, GHZ_SUCCESS, "capacity %zu, %d threads", caps[k], nt);
                cr_assert(got == size && memcmp(d, ref, size) == 0,
                          "capacity %zu, %d threads: different bytes", caps[k], nt);
            } else {
                cr_assert_eq(st, GHZ_ERR_DST_TOO_SMALL, "capacity %zu, %d threads", caps[k], nt);
            }
            tu_guard_free(&g);
            free(zero);
        }
    free(ref);
    free(a);
}

/* An empty input holds no frame: truncated, for the stream walk and the decoder. */
Test(badinput, empty_input)
{
    unsigned char one = 0xF9;
    float out[4];
    size_t n_out = 7;
    uint64_t total, frames;
    ghz_dtype_t t;
    cr_assert_eq(ghz_decompress(&one, 0, out, sizeof out, &n_out), GHZ_ERR_TRUNCATED);
    cr_assert_eq(n_out, 0);
    cr_assert_eq(ghz_stream_info(&one, 0, &total, &frames, &t), GHZ_ERR_TRUNCATED);
    cr_assert_eq(ghz_frame_info(&one, 1, &(ghz_frame_info_t){0}), GHZ_ERR_TRUNCATED);
}

/* The host call refuses the CUDA policy rather than silently running on the CPU. */
Test(badinput, cuda_policy_on_host_call)
{
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    size_t size;
    p.exec = GHZ_EXEC_CUDA;
    cr_assert_eq(ghz_compress(&p, src, 100, dst, sizeof dst, &size), GHZ_ERR_UNSUPPORTED);
    cr_assert(strstr(ghz_last_error_detail(), "ghz_cuda_compress") != NULL, "%s", ghz_last_error_detail());
}

/* A range or bound in device memory is for the GPU calls: the CPU refuses it rather
 * than read a device pointer. */
Test(badinput, device_range_on_host_call)
{
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_REL, 1e-3);
    const ghz_range_t r = {0.0, 1.0};
    const double eb = 1e-3;
    size_t size;
    p.d_range = &r;
    cr_assert_eq(ghz_compress(&p, src, 100, dst, sizeof dst, &size), GHZ_ERR_UNSUPPORTED);
    p.d_range = NULL;
    p.d_eb_abs = &eb;
    cr_assert_eq(ghz_compress(&p, src, 100, dst, sizeof dst, &size), GHZ_ERR_UNSUPPORTED);
}

/* A count whose worst case does not fit in size_t is refused before anything is read. */
Test(badinput, count_too_large)
{
    ghz_params_t p = tu_params(GHZ_F64, GHZ_EB_ABS, 1e-3);
    size_t size;
    cr_assert_eq(ghz_compress(&p, src, SIZE_MAX / 4, dst, sizeof dst, &size), GHZ_ERR_INVALID_ARG);
}

/* The host ghz_buf_t calls refuse an uninitialised descriptor, device memory, and a
 * size beyond the capacity. */
Test(badinput, buffer_descriptors)
{
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    ghz_buf_t b = GHZ_BUF_INIT;
    float out[100];
    size_t n_out;
    b.data = dst;
    b.capacity = sizeof dst;
    cr_assert_eq(ghz_compress_buf(&p, src, 100, &b), GHZ_SUCCESS, "the premise");
    b.struct_size = 0;
    cr_assert_eq(ghz_compress_buf(&p, src, 100, &b), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_decompress_buf(&b, out, sizeof out, &n_out), GHZ_ERR_INVALID_ARG);
    b.struct_size = sizeof b;
    b.where = GHZ_MEM_DEVICE;
    cr_assert_eq(ghz_compress_buf(&p, src, 100, &b), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_decompress_buf(&b, out, sizeof out, &n_out), GHZ_ERR_INVALID_ARG);
    b.where = GHZ_MEM_HOST;
    b.size = b.capacity + 1;
    cr_assert_eq(ghz_decompress_buf(&b, out, sizeof out, &n_out), GHZ_ERR_INVALID_ARG);
}

static void put_le64(unsigned char* p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The reader limit: a header announcing 2^34 values is judged (and refused) from its
 * 64 bytes alone; a valid frame above the limit is refused before it is decoded, and
 * the limit can be raised or lifted. */
Test(badinput, reader_limit)
{
    ghz_params_t p = tu_params(GHZ_F32, GHZ_EB_ABS, 1e-3);
    ghz_dparams_t d = GHZ_DPARAMS_INIT, bad = GHZ_DPARAMS_INIT;
    ghz_frame_info_t fi, whole;
    unsigned char hdr[GHZ_HEADER_SIZE];
    float out[1000];
    size_t size = 0, n = 0;
    const uint64_t huge = (uint64_t)1 << 34;

    cr_assert_eq(ghz_compress(&p, src, 1000, dst, sizeof dst, &size), GHZ_SUCCESS);
    /* header only: the same facts as the whole frame gives */
    cr_assert_eq(ghz_frame_header(NULL, dst, GHZ_HEADER_SIZE, &fi), GHZ_SUCCESS, "%s",
                 ghz_last_error_detail());
    cr_assert_eq(ghz_frame_info(dst, size, &whole), GHZ_SUCCESS);
    cr_assert(fi.n == 1000 && fi.frame_size == size && fi.payload_size == whole.payload_size);
    cr_assert_eq(ghz_frame_header(NULL, dst, 10, &fi), GHZ_ERR_TRUNCATED);
    cr_assert_eq(ghz_frame_header(NULL, src, GHZ_HEADER_SIZE, &fi), GHZ_ERR_NOT_GHZ);
    cr_assert_eq(ghz_frame_header(NULL, NULL, GHZ_HEADER_SIZE, &fi), GHZ_ERR_INVALID_ARG);

    /* 2^34 values (64 GiB of f32) announced by a 64-byte header */
    memcpy(hdr, dst, sizeof hdr);
    put_le64(hdr + 16, huge);
    put_le64(hdr + 24, huge / 32);
    cr_assert_eq(ghz_frame_header(NULL, hdr, sizeof hdr, &fi), GHZ_ERR_LIMIT);
    cr_assert(strstr(ghz_last_error_detail(), "max_frame_bytes") != NULL, "%s",
              ghz_last_error_detail());
    d.max_frame_bytes = 0; /* no limit: the header is valid, the frame just long */
    cr_assert_eq(ghz_frame_header(&d, hdr, sizeof hdr, &fi), GHZ_SUCCESS, "%s",
                 ghz_last_error_detail());
    cr_assert(fi.n == huge && fi.frame_size == GHZ_HEADER_SIZE + huge / 32 + whole.payload_size);
    cr_assert_eq(ghz_frame_info(hdr, sizeof hdr, &fi), GHZ_ERR_TRUNCATED);

    /* the limit is inclusive: exactly n * 4 bytes pass, one less does not */
    d.max_frame_bytes = 4000;
    cr_assert_eq(ghz_frame_header(&d, dst, size, &fi), GHZ_SUCCESS);
    cr_assert_eq(ghz_decompress_ex(&d, dst, size, out, sizeof out, &n), GHZ_SUCCESS);
    cr_assert_eq(n, 1000);
    d.max_frame_bytes = 3999;
    cr_assert_eq(ghz_frame_header(&d, dst, size, &fi), GHZ_ERR_LIMIT);
    cr_assert_eq(ghz_decompress_ex(&d, dst, size, out, sizeof out, &n), GHZ_ERR_LIMIT);
    cr_assert_eq(n, 0);
    /* the default accepts it; the calls without options take no limit */
    cr_assert_eq(ghz_decompress_ex(NULL, dst, size, out, sizeof out, &n), GHZ_SUCCESS);
    cr_assert_eq(ghz_decompress(dst, size, out, sizeof out, &n), GHZ_SUCCESS);
    bad.struct_size = 4;
    cr_assert_eq(ghz_decompress_ex(&bad, dst, size, out, sizeof out, &n), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(ghz_frame_header(&bad, dst, size, &fi), GHZ_ERR_INVALID_ARG);
    bad = d;
    bad.nthreads = -1;
    cr_assert_eq(ghz_decompress_ex(&bad, dst, size, out, sizeof out, &n), GHZ_ERR_INVALID_ARG);
    ghz_dparams_init(&bad);
    cr_assert(bad.max_frame_bytes == GHZ_FRAME_LIMIT_DEFAULT && bad.nthreads == 1 &&
              bad.struct_size == sizeof bad);
}
