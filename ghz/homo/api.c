/* ghz/homo/api.c: the public calls of ghz/homo/homo.h: argument checks, then the
 * engine (engine.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/detail/frame.h"
#include "ghz/detail/error.h"
#include "ghz/homo/detail/engine.h"
#include "ghz/homo/detail/homo_block.h"
#include "ghz/homo/homo.h"

/* GHZ_SUCCESS when b is a host ghz_buf_t that a call may use (homo.h, Contracts), else
 * GHZ_ERR_INVALID_ARG with a detail naming the buffer (what, with index i unless i is
 * SIZE_MAX) and the field at fault. need_data: data must not be NULL (an input). */
static ghz_status_t check_buf(const ghz_buf_t* b, const char* what, size_t i, int need_data)
{
    char name[48];
    if (i != SIZE_MAX)
        snprintf(name, sizeof name, "%s %zu", what, i);
    else
        snprintf(name, sizeof name, "%s", what);
    if (!b) return ghz_fail(GHZ_ERR_INVALID_ARG, "%s: NULL ghz_buf_t pointer", name);
    if (b->struct_size < GHZ_BUF_V1_SIZE)
        return ghz_fail(GHZ_ERR_INVALID_ARG,
                        "%s: struct_size %zu is below GHZ_BUF_V1_SIZE (%zu): initialise the "
                        "ghz_buf_t with GHZ_BUF_INIT",
                        name, b->struct_size, (size_t)GHZ_BUF_V1_SIZE);
    if (b->where != GHZ_MEM_HOST)
        return ghz_fail(GHZ_ERR_INVALID_ARG,
                        "%s: where is not GHZ_MEM_HOST (device buffers go to ghz_cuda_homo_*)",
                        name);
    if (b->size > b->capacity)
        return ghz_fail(GHZ_ERR_INVALID_ARG,
                        "%s: size %zu is larger than capacity %zu (set capacity to the bytes "
                        "data holds, at least size)",
                        name, b->size, b->capacity);
    if (!b->data && (need_data || b->capacity != 0))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "%s: data is NULL", name);
    return GHZ_SUCCESS;
}

/* 1 when [p, p+n) and [q, q+m) share a byte. */
static int overlap(const void* p, size_t n, const void* q, size_t m)
{
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return n && m && a < b + m && b < a + n;
}

ghz_status_t ghz_homo_bound(const void* src, size_t src_size, size_t* bound)
{
    const uint8_t* s = (const uint8_t*)src;
    size_t pos = 0, total = 0;
    ghz_clear_detail();
    if (!src || !bound) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    if (src_size == 0) return ghz_fail(GHZ_ERR_TRUNCATED, "empty input holds no frame");
    while (pos < src_size) {
        ghz_frame_info_t info;
        size_t fb;
        ghz_status_t st = ghz_header_read(s + pos, src_size - pos, &info);
        if (st != GHZ_SUCCESS) return st;
        fb = ghz_compress_bound((size_t)info.n, info.dtype);
        /* a checksummed input frame may be that much larger than the bound: in place,
         * the output must never overtake the unread input (HOMO.md, In place) */
        if (fb != 0 && info.has_checksum) fb += GHZ_CHECKSUM_SIZE;
        if (fb == 0 || fb > SIZE_MAX - total)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "bound does not fit in size_t");
        total += fb;
        pos += (size_t)info.frame_size;
    }
    *bound = total;
    return GHZ_SUCCESS;
}

/* Checks the k input buffers and the output, then runs the engine. */
static ghz_status_t run_bufs(const ghz_homo_job* job, const ghz_buf_t* const* in, size_t k,
                             ghz_buf_t* out)
{
    const uint8_t* ptr[64] = {NULL}; /* up to 64 inputs without the heap (the collectives' sums) */
    size_t sz[64] = {0}, i, n = 0;
    const uint8_t** pp = ptr;
    size_t* ps = sz;
    ghz_status_t st;
    if ((st = check_buf(out, "out", SIZE_MAX, 0)) != GHZ_SUCCESS) return st;
    for (i = 0; i < k; ++i) {
        if ((st = check_buf(in[i], "input", i, 1)) != GHZ_SUCCESS) return st;
        if (overlap(in[i]->data, in[i]->size, out->data, out->capacity))
            return ghz_fail(GHZ_ERR_INVALID_ARG, "output overlaps input %zu (use the in-place call)", i);
    }
    if (k > 64) {
        pp = (const uint8_t**)malloc(k * sizeof *pp);
        ps = (size_t*)malloc(k * sizeof *ps);
        if (!pp || !ps) {
            free((void*)pp);
            free(ps);
            return ghz_fail(GHZ_ERR_NOMEM, "%zu input pointers", k);
        }
    }
    for (i = 0; i < k; ++i) {
        pp[i] = (const uint8_t*)in[i]->data;
        ps[i] = in[i]->size;
    }
    st = ghz_homo_run(job, k, pp, ps, (uint8_t*)out->data, out->capacity, &n);
    if (st == GHZ_SUCCESS) out->size = n;
    if (k > 64) {
        free((void*)pp);
        free(ps);
    }
    return st;
}

static ghz_status_t check_op(ghz_homo_op_t op)
{
    if (op < GHZ_HOMO_SUM || op > GHZ_HOMO_MAX)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown operation %d", (int)op);
    return GHZ_SUCCESS;
}

ghz_status_t ghz_homo_binary(ghz_homo_op_t op, const ghz_buf_t* a, const ghz_buf_t* b,
                             ghz_buf_t* out)
{
    const ghz_buf_t* in[2];
    ghz_homo_job job;
    ghz_status_t st;
    ghz_clear_detail();
    if (check_op(op) != GHZ_SUCCESS) return GHZ_ERR_INVALID_ARG;
    /* named as the prototype names them before run_bufs checks them again */
    if ((st = check_buf(a, "a", SIZE_MAX, 1)) != GHZ_SUCCESS) return st;
    if ((st = check_buf(b, "b", SIZE_MAX, 1)) != GHZ_SUCCESS) return st;
    in[0] = a;
    in[1] = b;
    job.op = (int)op;
    job.factor = 0;
    return run_bufs(&job, in, 2, out);
}

ghz_status_t ghz_homo_binary_inplace(ghz_homo_op_t op, ghz_buf_t* a, const ghz_buf_t* b)
{
    const uint8_t* ptr[2];
    size_t sz[2], need = 0, n = 0;
    uint8_t* base;
    ghz_homo_job job;
    ghz_status_t st;
    ghz_clear_detail();
    if (check_op(op) != GHZ_SUCCESS) return GHZ_ERR_INVALID_ARG;
    if ((st = check_buf(a, "a", SIZE_MAX, 1)) != GHZ_SUCCESS) return st;
    if ((st = check_buf(b, "b", SIZE_MAX, 1)) != GHZ_SUCCESS) return st;
    if (overlap(a->data, a->capacity, b->data, b->size))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "b overlaps a's memory");
    if (a->size > a->capacity)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "a holds %zu bytes in a capacity of %zu", a->size,
                        a->capacity);
    if ((st = ghz_homo_bound(a->data, a->size, &need)) != GHZ_SUCCESS) return st;
    if (a->capacity < need)
        return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "in place needs capacity %zu (ghz_homo_bound), "
                        "a has %zu", need, a->capacity);
    /* HOMO.md, In place: the input goes to the end of the capacity, the output is
     * written from the start and never catches up with unread input. */
    base = (uint8_t*)a->data;
    memmove(base + a->capacity - a->size, base, a->size);
    ptr[0] = base + a->capacity - a->size;
    ptr[1] = (const uint8_t*)b->data;
    sz[0] = a->size;
    sz[1] = b->size;
    job.op = (int)op;
    job.factor = 0;
    st = ghz_homo_run(&job, 2, ptr, sz, base, a->capacity, &n);
    a->size = st == GHZ_SUCCESS ? n : 0;
    return st;
}

ghz_status_t ghz_homo_sum_n(const ghz_buf_t* const* in, size_t k, ghz_buf_t* out)
{
    ghz_homo_job job;
    ghz_clear_detail();
    if (!in || k == 0) return ghz_fail(GHZ_ERR_INVALID_ARG, "no inputs");
    if ((uint64_t)k > GHZ_HOMO_MAX_INPUTS)
        return ghz_fail(GHZ_ERR_OVERFLOW, "%zu inputs: more than 2^32 could overflow the int64 "
                        "accumulator", k);
    job.op = GHZ_HOMO_SUM;
    job.factor = 0;
    return run_bufs(&job, in, k, out);
}

ghz_status_t ghz_homo_negate(const ghz_buf_t* a, ghz_buf_t* out)
{
    ghz_homo_job job;
    ghz_clear_detail();
    job.op = GHZ_HOP_NEG;
    job.factor = 0;
    return run_bufs(&job, &a, 1, out);
}

ghz_status_t ghz_homo_mul(const ghz_buf_t* a, int32_t factor, ghz_buf_t* out)
{
    ghz_homo_job job;
    ghz_clear_detail();
    if (factor > GHZ_HOMO_MAX_FACTOR || factor < -GHZ_HOMO_MAX_FACTOR)
        return ghz_fail(GHZ_ERR_OVERFLOW, "factor %ld beyond +-2^24 (not exact in float32)",
                        (long)factor);
    job.op = GHZ_HOP_MUL;
    job.factor = factor;
    return run_bufs(&job, &a, 1, out);
}

ghz_status_t ghz_homo_decode_scaled(const ghz_buf_t* a, double scale, void* dst,
                                    size_t dst_capacity, size_t* n_out)
{
    const uint8_t* s;
    uint8_t* d = (uint8_t*)dst;
    size_t pos = 0, at = 0, n = 0, j;
    ghz_status_t st;
    ghz_clear_detail();
    if ((st = check_buf(a, "input", SIZE_MAX, 1)) != GHZ_SUCCESS) return st;
    if (!isfinite(scale)) return ghz_fail(GHZ_ERR_INVALID_ARG, "scale is not finite");
    if ((st = ghz_decompress(a->data, a->size, dst, dst_capacity, &n)) != GHZ_SUCCESS) return st;
    if (n_out) *n_out = n;
    /* each frame has its own fill value: scale frame by frame */
    s = (const uint8_t*)a->data;
    while (pos < a->size) {
        ghz_frame_info_t info;
        size_t elem;
        if ((st = ghz_header_read(s + pos, a->size - pos, &info)) != GHZ_SUCCESS) return st;
        elem = ghz_float_size(info.dtype);
        for (j = 0; j < (size_t)info.n; ++j, ++at) {
            uint64_t bits = ghz_load_le(d + at * elem, (unsigned)elem);
            if (info.has_fill && bits == info.fill_bits) continue;
            if (elem == 4u) {
                float x;
                uint32_t u = (uint32_t)bits;
                if (ghz_homo_nan32(u)) {
                    u |= 0x00400000u;
                } else {
                    memcpy(&x, &u, 4);
                    x = (float)((double)x * scale);
                    memcpy(&u, &x, 4);
                    if (ghz_homo_nan32(u)) u = 0x7FC00000u; /* inf * 0 */
                }
                ghz_store_le(d + at * 4u, u, 4);
            } else {
                double x = ghz_bits_f64(bits);
                uint64_t r = ghz_f64_bits(x * scale);
                bits = ghz_homo_nan64(bits)  ? bits | 0x0008000000000000ull
                       : ghz_homo_nan64(r) ? 0x7FF8000000000000ull /* inf * 0 */
                                           : r;
                ghz_store_le(d + at * 8u, bits, 8);
            }
        }
        pos += (size_t)info.frame_size;
    }
    return GHZ_SUCCESS;
}
