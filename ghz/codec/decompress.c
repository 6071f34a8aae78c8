/* ghz/codec/decompress.c: the CPU reference decompressor and stream walking. Each
 * frame is validated whole (header, code bytes, sizes) before a payload byte is read;
 * each block is checked to be canonical as it is decoded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ghz/codec/detail/encode.h"
#include "ghz/codec/detail/frame.h"
#include "ghz/codec/detail/ratio.h"
#include "ghz/detail/error.h"

/* Blocks per independently decodable chunk of the parallel decoder. */
#define GHZ_DECODE_CHUNK 4096u

static void store_value(const ghz_enc_params* e, uint8_t* out, unsigned i, double v)
{
    if (e->dtype == GHZ_F32) {
        float f = (float)v; /* exact: recon already rounded to float */
        memcpy(out + 4u * i, &f, 4);
    } else {
        memcpy(out + 8u * i, &v, 8);
    }
}

static void fill_value(const ghz_enc_params* e, uint8_t* out, unsigned m, const uint8_t* bits)
{
    unsigned i;
    for (i = 0; i < m; ++i) memcpy(out + (size_t)i * e->elem, bits, e->elem);
}

/* Decodes one block; returns 0 or -1 when it is not canonical. */
int ghz_decode_block(const ghz_enc_params* e, unsigned code, unsigned m, const uint8_t* p,
                     uint8_t* out)
{
    int32_t q[32];
    uint32_t fmask;
    uint8_t fill[8];
    unsigned i;
    switch (code) {
    case GHZ_CODE_RAW: memcpy(out, p, (size_t)m * e->elem); return 0;
    case GHZ_CODE_CONST: fill_value(e, out, m, p); return 0;
    case GHZ_CODE_FILLED:
        ghz_store_le(fill, e->fill_bits, e->elem);
        fill_value(e, out, m, fill);
        return 0;
    default: break;
    }
    if (ghz_quant_decode(p, code, m, q, &fmask) != 0) return -1;
    ghz_store_le(fill, e->fill_bits, e->elem);
    for (i = 0; i < m; ++i) {
        if (fmask >> i & 1u)
            memcpy(out + (size_t)i * e->elem, fill, e->elem);
        else
            store_value(e, out, i, ghz_recon(&e->z, q[i]));
    }
    return 0;
}

/* Decodes blocks [b0, b1) whose payload starts at p; returns the first bad block or
 * UINT64_MAX. */
static uint64_t decode_range(const ghz_enc_params* e, const ghz_frame_info_t* info,
                             const uint8_t* codes, const uint8_t* p, uint64_t b0, uint64_t b1,
                             uint8_t* out)
{
    uint64_t b;
    for (b = b0; b < b1; ++b) {
        unsigned m = ghz_block_len(info->n, b);
        if (ghz_decode_block(e, codes[b], m, p, out + (size_t)(32u * b) * e->elem) != 0) return b;
        p += ghz_block_size(codes[b], m, e->elem, e->has_fill);
    }
    return UINT64_MAX;
}

/* Decodes one validated frame into out. */
static ghz_status_t decode_frame(const uint8_t* frame, const ghz_frame_info_t* info, uint8_t* out,
                                 int nthreads)
{
    const uint8_t* codes = frame + GHZ_HEADER_SIZE;
    const uint8_t* payload = codes + ghz_codes_bytes(info->n_blocks);
    uint64_t nchunks = info->n_blocks / GHZ_DECODE_CHUNK + 1, bad = UINT64_MAX;
    uint64_t* starts;
    ghz_enc_params e;
    ghz_status_t st;
    int nt = ghz_threads_for(nthreads, (size_t)info->n);

    memset(&e, 0, sizeof e);
    e.dtype = info->dtype;
    e.elem = (unsigned)ghz_float_size(info->dtype);
    e.has_fill = info->has_fill;
    e.fill_bits = info->fill_bits;
    e.z = ghz_quantizer_make(info->eb_abs, info->dtype == GHZ_F32);

    if (nt <= 1) {
        if ((st = ghz_codes_check(codes, info, NULL, 1)) != GHZ_SUCCESS) return st;
        bad = decode_range(&e, info, codes, payload, 0, info->n_blocks, out);
    } else {
        int64_t c;
        starts = (uint64_t*)malloc(nchunks * sizeof *starts);
        if (!starts) return ghz_fail(GHZ_ERR_NOMEM, "%llu chunk offsets", (unsigned long long)nchunks);
        if ((st = ghz_codes_check(codes, info, starts, GHZ_DECODE_CHUNK)) != GHZ_SUCCESS) {
            free(starts);
            return st;
        }
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
        for (c = 0; c < (int64_t)nchunks; ++c) {
            uint64_t b0 = (uint64_t)c * GHZ_DECODE_CHUNK, b1 = b0 + GHZ_DECODE_CHUNK, r;
            if (b0 >= info->n_blocks) continue;
            if (b1 > info->n_blocks) b1 = info->n_blocks;
            r = decode_range(&e, info, codes, payload + starts[c], b0, b1, out);
            if (r != UINT64_MAX) {
/* (unnamed: a named critical section is a global symbol of the library) */
#pragma omp critical
                if (r < bad) bad = r;
            }
        }
        free(starts);
    }
    if (bad != UINT64_MAX)
        return ghz_fail(GHZ_ERR_CORRUPT, "block %llu (code 0x%02x) is not a valid block",
                        (unsigned long long)bad, codes[bad]);
    return GHZ_SUCCESS;
}

void ghz_dparams_init(ghz_dparams_t* d)
{
    ghz_dparams_t x = GHZ_DPARAMS_INIT;
    if (d) *d = x;
}

/* Copies the fields of *d that the caller knows over the defaults (NULL: all
 * defaults). */
static ghz_status_t dparams_read(const ghz_dparams_t* d, ghz_dparams_t* out)
{
    ghz_dparams_init(out);
    if (!d) return GHZ_SUCCESS;
    if (d->struct_size < sizeof *out || d->struct_size > (1u << 16))
        return ghz_fail(GHZ_ERR_INVALID_ARG,
                        "dparams.struct_size %zu: initialise with GHZ_DPARAMS_INIT", d->struct_size);
    memcpy(out, d, sizeof *out);
    if (out->nthreads < 0) return ghz_fail(GHZ_ERR_INVALID_ARG, "nthreads %d < 0", out->nthreads);
    return GHZ_SUCCESS;
}

/* GHZ_ERR_LIMIT when the parsed frame decodes to more than max bytes (0: no limit). */
static ghz_status_t check_limit(const ghz_frame_info_t* info, uint64_t max)
{
    uint64_t elem = ghz_float_size(info->dtype);
    if (max == 0 || info->n <= max / elem) return GHZ_SUCCESS;
    return ghz_fail(GHZ_ERR_LIMIT,
                    "frame of %llu values (%llu bytes decoded) exceeds the reader's limit of "
                    "%llu bytes (ghz_dparams_t.max_frame_bytes)",
                    (unsigned long long)info->n,
                    (unsigned long long)(info->n > UINT64_MAX / elem ? UINT64_MAX : info->n * elem),
                    (unsigned long long)max);
}

ghz_status_t ghz_frame_header(const ghz_dparams_t* d, const void* src, size_t src_size,
                              ghz_frame_info_t* info)
{
    /* Any frame that fits in half the address space: its size cannot wrap. */
    const size_t room = SIZE_MAX >> 1;
    ghz_dparams_t q;
    ghz_status_t st;
    ghz_clear_detail();
    if ((st = dparams_read(d, &q)) != GHZ_SUCCESS) return st;
    if (!src || !info) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    /* Fewer than 64 bytes: the full check says why (magic, version, truncation). */
    if (src_size < GHZ_HEADER_SIZE) return ghz_header_read_any((const uint8_t*)src, src_size, info);
    /* The header alone: the frame is judged against `room` bytes, of which only the
     * 64 header bytes are read (ghz_header_unpack reads nothing past them). */
    st = ghz_header_read_any((const uint8_t*)src, room, info);
    if (st == GHZ_ERR_TRUNCATED)
        return ghz_fail(GHZ_ERR_CORRUPT, "frame size beyond %zu bytes", room);
    if (st != GHZ_SUCCESS) return st;
    return check_limit(info, q.max_frame_bytes);
}

ghz_status_t ghz_frame_info(const void* src, size_t src_size, ghz_frame_info_t* info)
{
    ghz_clear_detail();
    if (!src || !info) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    return ghz_header_read_any((const uint8_t*)src, src_size, info);
}

ghz_status_t ghz_frame_shape(const void* src, size_t src_size, uint64_t dims[3])
{
    ghz_frame_info_t info;
    ghz_status_t st;
    ghz_clear_detail();
    if (!src || !dims) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    if ((st = ghz_header_read_any((const uint8_t*)src, src_size, &info)) != GHZ_SUCCESS) return st;
    return ghz_ratio_dims((const uint8_t*)src, &info, dims);
}

ghz_status_t ghz_decompress_range(const ghz_dparams_t* d, const void* src, size_t src_size,
                                  uint64_t first, uint64_t count, void* dst, size_t dst_capacity)
{
    const uint8_t* s = (const uint8_t*)src;
    uint8_t* out = (uint8_t*)dst;
    size_t pos = 0, elem = 0;
    uint64_t at = 0; /* index of the current frame's first value */
    ghz_clear_detail();
    if (!src || (!dst && count)) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    if (src_size == 0) return ghz_fail(GHZ_ERR_TRUNCATED, "empty input holds no frame");
    while (pos < src_size && at < first + count) {
        ghz_frame_info_t info;
        ghz_status_t st = ghz_header_read_any(s + pos, src_size - pos, &info);
        uint64_t lo, hi;
        if (st != GHZ_SUCCESS) return st;
        if (elem && ghz_float_size(info.dtype) != elem)
            return ghz_fail(GHZ_ERR_CORRUPT, "a frame at byte %zu changes the dtype", pos);
        elem = ghz_float_size(info.dtype);
        if (at == 0 && count > (uint64_t)(dst_capacity / elem))
            return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "%llu values need %llu bytes, dst holds %zu",
                            (unsigned long long)count, (unsigned long long)count * elem, dst_capacity);
        lo = first > at ? first : at;
        hi = first + count < at + info.n ? first + count : at + info.n;
        if (lo < hi) { /* the frame holds values of the range */
            size_t n_out = 0;
            if (lo == at && hi == at + info.n) {
                st = ghz_decompress_ex(d, s + pos, (size_t)info.frame_size, out + (lo - first) * elem,
                                       (size_t)(info.n * elem), &n_out);
            } else {
                uint8_t* tmp = (uint8_t*)malloc((size_t)(info.n * elem) + 1);
                if (!tmp) return ghz_fail(GHZ_ERR_NOMEM, "a frame of %llu values", (unsigned long long)info.n);
                st = ghz_decompress_ex(d, s + pos, (size_t)info.frame_size, tmp, (size_t)(info.n * elem), &n_out);
                if (st == GHZ_SUCCESS)
                    memcpy(out + (lo - first) * elem, tmp + (lo - at) * elem, (size_t)((hi - lo) * elem));
                free(tmp);
            }
            if (st != GHZ_SUCCESS) return st;
        }
        at += info.n;
        pos += (size_t)info.frame_size;
    }
    if (at < first + count || first + count < first)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "values [%llu, %llu) pass the stream's end (%llu values)",
                        (unsigned long long)first, (unsigned long long)(first + count),
                        (unsigned long long)at);
    return GHZ_SUCCESS;
}

/* Walks the frame headers of a stream (validating each, one dtype for all): the
 * frames' count, values and dtype, and the first `capacity` entries of an index. */
static ghz_status_t walk_headers(const void* src, size_t src_size, ghz_frame_entry_t* entries,
                                 size_t capacity, uint64_t* n_frames, uint64_t* n_total,
                                 ghz_dtype_t* dtype)
{
    const uint8_t* s = (const uint8_t*)src;
    size_t pos = 0;
    uint64_t total = 0, frames = 0;
    ghz_dtype_t t = (ghz_dtype_t)0;
    if (!src && src_size) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    if (src_size == 0) return ghz_fail(GHZ_ERR_TRUNCATED, "empty input holds no frame");
    while (pos < src_size) {
        ghz_frame_info_t info;
        ghz_status_t st = ghz_header_read_any(s + pos, src_size - pos, &info);
        if (st != GHZ_SUCCESS) {
            char why[256];
            if (!frames) return st;
            strncpy(why, ghz_last_error_detail(), sizeof why - 1);
            why[sizeof why - 1] = '\0';
            return ghz_fail(st, "frame %llu at byte %zu: %s", (unsigned long long)frames, pos, why);
        }
        if (frames && info.dtype != t)
            return ghz_fail(GHZ_ERR_CORRUPT, "frame %llu changes the dtype", (unsigned long long)frames);
        t = info.dtype;
        if (frames < capacity) {
            entries[frames].offset = pos;
            entries[frames].first = total;
            entries[frames].n = info.n;
            entries[frames].size = info.frame_size;
        }
        total += info.n;
        frames++;
        pos += (size_t)info.frame_size;
    }
    if (n_total) *n_total = total;
    if (n_frames) *n_frames = frames;
    if (dtype) *dtype = t;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_stream_info(const void* src, size_t src_size, uint64_t* n_total,
                             uint64_t* n_frames, ghz_dtype_t* dtype)
{
    ghz_clear_detail();
    return walk_headers(src, src_size, NULL, 0, n_frames, n_total, dtype);
}

ghz_status_t ghz_stream_index(const void* src, size_t src_size, ghz_frame_entry_t* entries,
                              size_t capacity, size_t* n_frames)
{
    uint64_t frames = 0;
    ghz_status_t st;
    ghz_clear_detail();
    if (!n_frames || (!entries && capacity)) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    st = walk_headers(src, src_size, entries, capacity, &frames, NULL, NULL);
    *n_frames = (size_t)frames;
    return st;
}

static ghz_status_t decompress_all(const void* src, size_t src_size, void* dst,
                                   size_t dst_capacity, size_t* n_out, int nthreads,
                                   uint64_t max_frame_bytes)
{
    const uint8_t* s = (const uint8_t*)src;
    uint8_t* out = (uint8_t*)dst;
    size_t pos = 0, written = 0;
    uint64_t frames = 0;
    ghz_dtype_t t = (ghz_dtype_t)0;
    ghz_clear_detail();
    if (n_out) *n_out = 0;
    if (!src || (!dst && dst_capacity)) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    if (src_size == 0) return ghz_fail(GHZ_ERR_TRUNCATED, "empty input holds no frame");
    while (pos < src_size) {
        ghz_frame_info_t info;
        ghz_status_t st = ghz_header_read_any(s + pos, src_size - pos, &info);
        size_t elem;
        if (st == GHZ_SUCCESS) st = check_limit(&info, max_frame_bytes);
        if (st != GHZ_SUCCESS) return st;
        if (frames && info.dtype != t)
            return ghz_fail(GHZ_ERR_CORRUPT, "frame %llu changes the dtype", (unsigned long long)frames);
        t = info.dtype;
        elem = ghz_float_size(t);
        if (info.n > (dst_capacity - written) / elem)
            return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "frame %llu needs %llu more bytes of output",
                            (unsigned long long)frames, (unsigned long long)(info.n * elem));
        /* The checksum first: a damaged frame is reported as such, and no byte of
         * it is decoded. Its place is said only when the input holds other frames:
         * a caller that passes one frame (ghz-cli) names the place itself. */
        if ((st = ghz_checksum_check(s + pos, &info)) != GHZ_SUCCESS) {
            char why[256];
            if (frames == 0 && info.frame_size == src_size - pos) return st;
            snprintf(why, sizeof why, "%s", ghz_last_error_detail());
            return ghz_fail(st, "frame %llu at byte %zu: %s", (unsigned long long)frames, pos, why);
        }
        if (info.prefer == GHZ_PREFER_RATIO)
            st = ghz_ratio_decode(s + pos, &info, out + written, nthreads);
        else if (info.n)
            st = decode_frame(s + pos, &info, out + written, nthreads);
        if (st != GHZ_SUCCESS) return st;
        written += (size_t)info.n * elem;
        if (n_out) *n_out += (size_t)info.n;
        pos += (size_t)info.frame_size;
        frames++;
    }
    return GHZ_SUCCESS;
}

ghz_status_t ghz_decompress(const void* src, size_t src_size, void* dst, size_t dst_capacity,
                            size_t* n_out)
{
    return decompress_all(src, src_size, dst, dst_capacity, n_out, 1, 0);
}

ghz_status_t ghz_decompress_mt(const void* src, size_t src_size, void* dst, size_t dst_capacity,
                               size_t* n_out, int nthreads)
{
    if (nthreads < 0) return ghz_fail(GHZ_ERR_INVALID_ARG, "nthreads %d < 0", nthreads);
    return decompress_all(src, src_size, dst, dst_capacity, n_out, nthreads, 0);
}

ghz_status_t ghz_decompress_ex(const ghz_dparams_t* d, const void* src, size_t src_size,
                               void* dst, size_t dst_capacity, size_t* n_out)
{
    ghz_dparams_t q;
    ghz_status_t st;
    ghz_clear_detail();
    if (n_out) *n_out = 0;
    if ((st = dparams_read(d, &q)) != GHZ_SUCCESS) return st;
    return decompress_all(src, src_size, dst, dst_capacity, n_out, q.nthreads, q.max_frame_bytes);
}

ghz_status_t ghz_compress_buf(const ghz_params_t* p, const void* src, size_t n, ghz_buf_t* out)
{
    if (!out || out->struct_size < GHZ_BUF_V1_SIZE || out->where != GHZ_MEM_HOST)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "output must be an initialised host ghz_buf_t");
    return ghz_compress(p, src, n, out->data, out->capacity, &out->size);
}

ghz_status_t ghz_decompress_buf(const ghz_buf_t* in, void* dst, size_t dst_capacity, size_t* n_out)
{
    if (!in || in->struct_size < GHZ_BUF_V1_SIZE || in->where != GHZ_MEM_HOST ||
        in->size > in->capacity)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "input must be an initialised host ghz_buf_t");
    return ghz_decompress(in->data, in->size, dst, dst_capacity, n_out);
}
