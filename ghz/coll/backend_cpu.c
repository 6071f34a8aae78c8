/* ghz/coll/backend_cpu.c: the CPU backend: host buffers, the codec's and ghz/homo's
 * public host API, and the exact reductions of cpu/reduce_cpu.c. */
#include <math.h>
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

static ghz_status_t cpu_copy(coll_backend_t* be, void* dst, const void* src, size_t bytes)
{
    (void)be;
    if (bytes && dst != src) memmove(dst, src, bytes);
    return GHZ_SUCCESS;
}

/* Integers: every op is commutative bit for bit. Floats are not quite (which NaN
 * payload survives, -0 against +0 in MIN and MAX), so out = op(a, b) with out == b goes
 * through a small stack buffer to keep a on the left. */
static int bitwise_commutative(ghz_dtype_t t)
{
    return t != GHZ_F32 && t != GHZ_F64;
}

static ghz_status_t cpu_reduce(coll_backend_t* be, void* out, const void* a, const void* b,
                               size_t n, ghz_dtype_t dtype, ghz_op_t op)
{
    size_t elem = ghz_dtype_size(dtype);
    if (out == a) {
        ghz_coll_reduce_cpu(out, b, n, dtype, op, be->nthreads);
    } else if (out != b) {
        memcpy(out, a, n * elem);
        ghz_coll_reduce_cpu(out, b, n, dtype, op, be->nthreads);
    } else if (bitwise_commutative(dtype)) {
        ghz_coll_reduce_cpu(out, a, n, dtype, op, be->nthreads);
    } else {
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
    if (st != GHZ_SUCCESS) return st;
    *nonfinite = count < n;
    return GHZ_SUCCESS;
}

static ghz_status_t cpu_compress(coll_backend_t* be, const void* src, size_t n, ghz_dtype_t dtype,
                                 double eb_abs, void* dst, size_t capacity, size_t* size)
{
    ghz_params_t p;
    ghz_params_init(&p);
    p.dtype = dtype;
    p.eb_mode = GHZ_EB_ABS;
    p.eb = eb_abs;
    p.nthreads = be->nthreads;
    return ghz_compress(&p, src, n, dst, capacity, size);
}

static ghz_status_t cpu_decompress(coll_backend_t* be, const void* src, size_t size, void* dst,
                                   size_t n, ghz_dtype_t dtype)
{
    size_t got = 0;
    ghz_status_t st = ghz_decompress_mt(src, size, dst, n * ghz_dtype_size(dtype), &got,
                                        be->nthreads);
    if (st == GHZ_SUCCESS && got != n)
        return ghz_fail(GHZ_ERR_CORRUPT, "a received frame holds %zu values, expected %zu", got, n);
    return st;
}

static void buf_in(ghz_buf_t* b, const void* data, size_t size)
{
    ghz_buf_t init = GHZ_BUF_INIT;
    *b = init;
    b->data = (void*)data;
    b->size = size;
    b->capacity = size;
}

static ghz_status_t cpu_homo_binary(coll_backend_t* be, ghz_op_t op, ghz_dtype_t dtype, const void* a, size_t a_size,
                                    const void* b, size_t b_size, void* out, size_t capacity,
                                    size_t* out_size)
{
    ghz_buf_t A, B, O;
    ghz_status_t st;
    (void)be;
    (void)dtype; /* the frames say it */
    buf_in(&A, a, a_size);
    buf_in(&B, b, b_size);
    buf_in(&O, out, 0);
    O.capacity = capacity;
    st = ghz_homo_binary(coll_homo_op(op), &A, &B, &O);
    *out_size = O.size;
    return st;
}

/* ghz_homo_sum_n takes an array of descriptors: they are built in a fixed array here,
 * in groups of at most GROUP inputs folded left to right, so that no call allocates. */
enum { GROUP = 64 };

static ghz_status_t cpu_homo_sum_n(coll_backend_t* be, ghz_dtype_t dtype, const void* const* in,
                                   const size_t* sizes, size_t k, void* out, size_t capacity, size_t* out_size)
{
    ghz_buf_t bufs[GROUP];
    const ghz_buf_t* ptrs[GROUP];
    ghz_buf_t O;
    size_t i;
    (void)be;
    (void)dtype;
    if (k > GROUP)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "n-ary sum of %zu inputs (at most %d here)", k, GROUP);
    for (i = 0; i < k; i++) {
        buf_in(&bufs[i], in[i], sizes[i]);
        ptrs[i] = &bufs[i];
    }
    buf_in(&O, out, 0);
    O.capacity = capacity;
    {
        ghz_status_t st = ghz_homo_sum_n(ptrs, k, &O);
        *out_size = O.size;
        return st;
    }
}

static ghz_status_t cpu_sync(coll_backend_t* be)
{
    (void)be;
    return GHZ_SUCCESS;
}

static void cpu_destroy(coll_backend_t* be)
{
    (void)be;
}

ghz_status_t ghz_coll_backend_cpu(int nthreads, coll_backend_t* be)
{
    be->name = "cpu";
    be->exec = GHZ_EXEC_CPU;
    be->nthreads = nthreads;
    be->staged = 0;
    be->has_sum_n = 1;
    be->capturing = 0;
    be->alloc = cpu_alloc;
    be->release = cpu_release;
    be->begin = cpu_begin;
    be->copy = cpu_copy;
    be->copy_async = cpu_copy;
    be->reduce = cpu_reduce;
    be->scale = cpu_scale;
    be->range = cpu_range;
    be->compress = cpu_compress;
    be->decompress = cpu_decompress;
    be->homo_binary = cpu_homo_binary;
    be->homo_sum_n = cpu_homo_sum_n;
    be->sync = cpu_sync;
    be->destroy = cpu_destroy;
    be->state = NULL;
    return GHZ_SUCCESS;
}
