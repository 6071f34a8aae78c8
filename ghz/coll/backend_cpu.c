/* ghz/coll/backend_cpu.c: the CPU backend: host buffers, the codec's and ghz/homo's
 * host API, and the exact reductions of cpu/reduce_cpu.c. */
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/codec.h"
#include "ghz/coll/detail/backend.h"
#include "ghz/coll/detail/reduce_ops.h"
#include "ghz/detail/error.h"
#include "ghz/homo/homo.h"

static void* cpu_alloc(coll_backend_t* be, size_t bytes, int kind)
{
    (void)be;
    (void)kind;
    return malloc(bytes ? bytes : 1);
}

static void cpu_release(coll_backend_t* be, void* p, int kind)
{
    (void)be;
    (void)kind;
    free(p);
}

static ghz_status_t cpu_begin(coll_backend_t* be, ghz_stream_t stream)
{
    (void)be;
    (void)stream;
    return GHZ_SUCCESS;
}

static ghz_status_t cpu_sync(coll_backend_t* be)
{
    (void)be;
    return GHZ_SUCCESS;
}

static ghz_status_t cpu_copy(coll_backend_t* be, void* dst, const void* src, size_t bytes)
{
    (void)be;
    if (bytes && dst != src) memmove(dst, src, bytes);
    return GHZ_SUCCESS;
}

static ghz_status_t cpu_reduce(coll_backend_t* be, void* out, const void* a, const void* b,
                               size_t n, ghz_dtype_t dtype, ghz_op_t op)
{
    size_t elem = ghz_dtype_size(dtype);
    if (out != b) {
        if (out != a) memcpy(out, a, n * elem);
        ghz_coll_reduce_cpu(out, b, n, dtype, op, be->nthreads);
    } else if (dtype != GHZ_F32 && dtype != GHZ_F64) { /* integer ops commute bit for bit */
        ghz_coll_reduce_cpu(out, a, n, dtype, op, be->nthreads);
    } else { /* floats do not quite (NaN payloads, -0 and +0): a stays on the left */
        unsigned char tmp[4096];
        size_t step = sizeof tmp / elem, i;
        for (i = 0; i < n; i += step) {
            size_t m = n - i < step ? n - i : step;
            memcpy(tmp, (const unsigned char*)a + i * elem, m * elem);
            ghz_coll_reduce_cpu(tmp, (unsigned char*)out + i * elem, m, dtype, op, 1);
            memcpy((unsigned char*)out + i * elem, tmp, m * elem);
        }
    }
    return GHZ_SUCCESS;
}

static ghz_status_t cpu_scale(coll_backend_t* be, void* buf, size_t n, ghz_dtype_t dtype, double s)
{
    ghz_coll_scale_cpu(buf, n, dtype, s, be->nthreads);
    return GHZ_SUCCESS;
}

static ghz_status_t cpu_range(coll_backend_t* be, const void* src, size_t n, ghz_dtype_t dtype, void* copy_to,
                              double* vmin, double* vmax, int* nonfinite)
{
    ghz_params_t p;
    uint64_t count = 0;
    ghz_status_t st;
    if (copy_to && n) memcpy(copy_to, src, n * ghz_dtype_size(dtype));
    ghz_params_init(&p);
    p.dtype = dtype;
    p.nthreads = be->nthreads;
    st = ghz_value_range(&p, src, n, vmin, vmax, &count);
    if (st == GHZ_SUCCESS) *nonfinite = count < n;
    return st;
}

static ghz_status_t cpu_compress(coll_backend_t* be, const void* src, size_t n, ghz_dtype_t dtype,
                                 double eb_abs, int ratio, void* dst, size_t capacity, size_t* size)
{
    ghz_params_t p = coll_codec_params(dtype, eb_abs, ratio);
    p.nthreads = be->nthreads;
    return ghz_compress(&p, src, n, dst, capacity, size);
}

static ghz_status_t cpu_decompress(coll_backend_t* be, const void* src, size_t size, void* dst,
                                   size_t n, ghz_dtype_t dtype)
{
    size_t got = 0;
    ghz_status_t st = ghz_decompress_mt(src, size, dst, n * ghz_dtype_size(dtype), &got, be->nthreads);
    if (st == GHZ_SUCCESS && got != n)
        return ghz_fail(GHZ_ERR_CORRUPT, "a received frame holds %zu values, expected %zu", got, n);
    return st;
}

static ghz_buf_t buf_in(const void* data, size_t size, size_t capacity)
{
    ghz_buf_t b = GHZ_BUF_INIT;
    b.data = (void*)data;
    b.size = size;
    b.capacity = capacity;
    return b;
}

static ghz_status_t cpu_homo_binary(coll_backend_t* be, ghz_op_t op, ghz_dtype_t dtype, const void* a, size_t a_size,
                                    const void* b, size_t b_size, void* out, size_t capacity, size_t* out_size)
{
    const ghz_buf_t A = buf_in(a, a_size, a_size), B = buf_in(b, b_size, b_size);
    ghz_buf_t O = buf_in(out, 0, capacity);
    ghz_status_t st;
    (void)be;
    (void)dtype; /* the frames say it */
    st = ghz_homo_binary(coll_homo_op(op), &A, &B, &O);
    *out_size = O.size;
    return st;
}

enum { GROUP = 64 }; /* the descriptors in a fixed array, so that no call allocates */

static ghz_status_t cpu_homo_sum_n(coll_backend_t* be, ghz_dtype_t dtype, const void* const* in,
                                   const size_t* sizes, size_t k, void* out, size_t capacity, size_t* out_size)
{
    ghz_buf_t bufs[GROUP];
    const ghz_buf_t* ptrs[GROUP];
    ghz_buf_t O = buf_in(out, 0, capacity);
    size_t i;
    ghz_status_t st;
    (void)be;
    (void)dtype;
    if (k > GROUP)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "n-ary sum of %zu inputs (at most %d here)", k, GROUP);
    for (i = 0; i < k; i++) {
        bufs[i] = buf_in(in[i], sizes[i], sizes[i]);
        ptrs[i] = &bufs[i];
    }
    st = ghz_homo_sum_n(ptrs, k, &O);
    *out_size = O.size;
    return st;
}

ghz_status_t ghz_coll_backend_cpu(int nthreads, coll_backend_t* be)
{
    static const coll_backend_t cpu = {
        .exec = GHZ_EXEC_CPU, .has_sum_n = 1,
        .alloc = cpu_alloc, .release = cpu_release, .begin = cpu_begin, .copy = cpu_copy, .copy_async = cpu_copy,
        .reduce = cpu_reduce, .scale = cpu_scale, .range = cpu_range, .compress = cpu_compress,
        .decompress = cpu_decompress, .homo_binary = cpu_homo_binary, .homo_sum_n = cpu_homo_sum_n,
        .sync = cpu_sync}; /* (nothing to destroy) */
    *be = cpu;
    be->nthreads = nthreads;
    return GHZ_SUCCESS;
}
