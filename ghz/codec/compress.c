/* ghz/codec/compress.c: the CPU reference compressor (FORMAT.md, "Which kind the
 * encoder chooses"). Written to read like the specification: one block at a time. */
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ghz/codec/detail/encode.h"
#include "ghz/codec/detail/frame.h"
#include "ghz/codec/detail/ratio.h"
#include "ghz/codec/ratio.h"
#include "ghz/detail/error.h"

/* Encodes block values src[0..m) into out (capacity >= m * elem) and returns the code
 * byte; *size receives the payload bytes written. */
unsigned ghz_encode_block(const ghz_enc_params* e, const uint8_t* src, unsigned m,
                          uint8_t* out, uint32_t* size)
{
    int32_t q[32];
    uint32_t a[32], sign = 0;
    ghz_block_facts_t f;
    uint64_t bits0, bits;
    unsigned i, code, sz;

    ghz_load_value(e, src, 0, &bits0);
    ghz_facts_begin(&f, m);
    for (i = 0; i < m; ++i) {
        const double x = ghz_load_value(e, src, i, &bits);
        ghz_facts_take(&f, &e->z, e->has_fill, e->fill_bits, i, x, bits, bits0, &q[i]);
    }
    code = ghz_facts_finish_deltas(&f, q, e->has_fill, e->elem, &sz, a, &sign);
    *size = sz;
    if (code == GHZ_CODE_RAW || code == GHZ_CODE_CONST)
        memcpy(out, src, sz);
    else if (code != GHZ_CODE_FILLED)
        ghz_quant_emit(f.q0, a, sign, f.w, f.fmask, out);
    return code;
}

/* Encodes blocks [b0, b1) of a frame of n values, writing codes[b] and the payloads
 * one after the other from out, which has room for `room` bytes. Returns the bytes
 * written, or UINT64_MAX when they do not fit. */
static uint64_t encode_range(const ghz_enc_params* e, const uint8_t* src, uint64_t n,
                             uint64_t b0, uint64_t b1, uint8_t* codes, uint8_t* out,
                             uint64_t room)
{
    uint64_t b, off = 0;
    uint8_t tmp[GHZ_BLOCK_MAX_BYTES];
    for (b = b0; b < b1; ++b) {
        unsigned m = ghz_block_len(n, b);
        const uint8_t* blk = src + (size_t)(32u * b) * e->elem;
        uint32_t size;
        if (room - off >= (uint64_t)m * e->elem) {
            codes[b] = (uint8_t)ghz_encode_block(e, blk, m, out + off, &size);
        } else {
            codes[b] = (uint8_t)ghz_encode_block(e, blk, m, tmp, &size);
            if (size > room - off) return UINT64_MAX;
            memcpy(out + off, tmp, size);
        }
        off += size;
    }
    return off;
}

/* Encodes all blocks on several threads. Every block's payload is at most its raw
 * size, so chunk t's payload fits at its raw offset; the chunks are then moved down
 * in order, each to the end of the previous one (memmove: the ranges may overlap). */
static uint64_t encode_parallel(const ghz_enc_params* e, const uint8_t* src, uint64_t n,
                                uint64_t nb, uint8_t* codes, uint8_t* out, int nt)
{
#ifdef _OPENMP
    uint64_t sizes[256], total = 0;
    int t;
    if (nt > 256) nt = 256;
#pragma omp parallel for num_threads(nt) schedule(static, 1)
    for (t = 0; t < nt; ++t) {
        uint64_t b0 = nb * (uint64_t)t / (uint64_t)nt, b1 = nb * (uint64_t)(t + 1) / (uint64_t)nt;
        uint64_t raw = 32u * b0 * e->elem;
        sizes[t] = encode_range(e, src, n, b0, b1, codes, out + raw, UINT64_MAX - raw);
    }
    for (t = 0; t < nt; ++t) {
        uint64_t b0 = nb * (uint64_t)t / (uint64_t)nt;
        memmove(out + total, out + 32u * b0 * e->elem, sizes[t]);
        total += sizes[t];
    }
    return total;
#else
    (void)nt;
    return encode_range(e, src, n, 0, nb, codes, out, UINT64_MAX);
#endif
}

/* Ends a frame of `size` bytes: its checksum when asked, and the caller's size. */
static ghz_status_t seal(uint8_t* out, uint64_t size, size_t dst_capacity, int checksum,
                         size_t* dst_size)
{
    if (checksum) {
        if (dst_capacity - size < GHZ_CHECKSUM_SIZE)
            return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "capacity %zu too small for the checksum",
                            dst_capacity);
        ghz_checksum_write(out, size);
        size += GHZ_CHECKSUM_SIZE;
    }
    *dst_size = (size_t)size;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_compress(const ghz_params_t* p, const void* src, size_t n, void* dst,
                          size_t dst_capacity, size_t* dst_size)
{
    ghz_params_t q;
    ghz_enc_params e;
    ghz_frame_info_t info;
    ghz_status_t st;
    uint64_t nb, codes_bytes, payload;
    uint8_t* out = (uint8_t*)dst;
    double eb_abs;
    int nt;

    ghz_clear_detail();
    if ((st = ghz_params_read(p, &q)) != GHZ_SUCCESS) return st;
    if (q.exec != GHZ_EXEC_CPU)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "exec = GHZ_EXEC_CUDA: ghz_compress runs on the CPU "
                                             "(host pointers, no stream); call ghz_cuda_compress");
    if (q.d_range || q.d_eb_abs)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "d_range and d_eb_abs are device memory: GPU calls only");
    if ((n && !src) || !dst || !dst_size) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    if (ghz_compress_bound(n, q.dtype) == 0)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "n = %zu is too large", n);

    memset(&e, 0, sizeof e);
    e.dtype = q.dtype;
    e.elem = (unsigned)ghz_float_size(q.dtype);
    e.has_fill = q.has_fill != 0;
    e.fill_bits = e.has_fill ? ghz_fill_bits(q.dtype, q.fill) : 0;
    if (q.eb_mode == GHZ_EB_ABS) {
        eb_abs = q.eb;
    } else {
        double lo = q.range_min, hi = q.range_max;
        if (!q.has_range && (st = ghz_range_scan(&e, src, n, q.nthreads, &lo, &hi, NULL)) != GHZ_SUCCESS)
            return st;
        if ((st = ghz_rel_bound(q.eb, lo, hi, &eb_abs)) != GHZ_SUCCESS) return st;
    }
    e.z = ghz_quantizer_make(eb_abs, q.dtype == GHZ_F32);

    memset(&info, 0, sizeof info);
    info.dtype = q.dtype;
    info.eb_mode = q.eb_mode;
    info.eb_user = q.eb;
    info.eb_abs = eb_abs;
    info.has_fill = e.has_fill;
    info.fill_bits = e.fill_bits;
    info.n = n;
    info.has_checksum = q.checksum != 0;
    if (q.prefer == GHZ_PREFER_RATIO && n > 0) {
        const unsigned spread = ghz_ratio_spread_for(n);
        uint64_t size = 0;
        st = ghz_ratio_encode(&e, &info, q.dims, spread, ghz_ratio_shrink_for(spread), (const uint8_t*)src, out,
                              dst_capacity, &size, q.nthreads);
        if (st == GHZ_SUCCESS) return seal(out, size, dst_capacity, info.has_checksum, dst_size);
        if (st != GHZ_ERR_UNSUPPORTED) return st;
        /* larger than the block coding's worst case: write a block frame */
    }

    /* FORMAT.md, NaN as the fill value: a block frame without a declared fill declares
     * the canonical quiet NaN (known before the data is read; the REL range above leaves
     * every NaN out either way) */
    if (!e.has_fill) {
        e.has_fill = info.has_fill = 1;
        e.fill_bits = info.fill_bits = ghz_nan_fill_bits(q.dtype);
    }

    nb = ghz_blocks_of(n);
    codes_bytes = ghz_codes_bytes(nb);
    if (dst_capacity < GHZ_HEADER_SIZE + codes_bytes)
        return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "capacity %zu < %llu bytes of header and codes",
                        dst_capacity, (unsigned long long)(GHZ_HEADER_SIZE + codes_bytes));
    memset(out + GHZ_HEADER_SIZE, 0, codes_bytes); /* the padding */

    nt = ghz_threads_for(q.nthreads, n);
    if (nt > 1 && dst_capacity >= ghz_compress_bound(n, q.dtype))
        payload = encode_parallel(&e, (const uint8_t*)src, n, nb, out + GHZ_HEADER_SIZE,
                                  out + GHZ_HEADER_SIZE + codes_bytes, nt);
    else
        payload = encode_range(&e, (const uint8_t*)src, n, 0, nb, out + GHZ_HEADER_SIZE,
                               out + GHZ_HEADER_SIZE + codes_bytes,
                               dst_capacity - GHZ_HEADER_SIZE - codes_bytes);
    if (payload == UINT64_MAX)
        return ghz_fail(GHZ_ERR_DST_TOO_SMALL,
                        "capacity %zu too small for this frame (ghz_compress_bound gives %zu)",
                        dst_capacity, ghz_compress_bound(n, q.dtype));

    info.payload_size = payload;
    ghz_header_write(out, &info);
    return seal(out, GHZ_HEADER_SIZE + codes_bytes + payload, dst_capacity, info.has_checksum,
                dst_size);
}
