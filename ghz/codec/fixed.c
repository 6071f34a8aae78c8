/* ghz/codec/fixed.c: the CPU reference of the fixed-rate mode (FIXED.md). The
 * block logic is fixed.h's; this file moves bytes (little-endian, any alignment)
 * and turns failed checks into statuses with messages. */
#include <stdint.h>
#include <string.h>

#include "ghz/codec/fixed.h"
#include "ghz/codec/detail/frame.h"
#include "ghz/detail/error.h"

/* fixed.h numbers the header checks it shares with FORMAT.md's reader alike */
_Static_assert((int)GHZ_FIXED_HDR_MAGIC == (int)GHZ_HDR_MAGIC &&
                   (int)GHZ_FIXED_HDR_VERSION == (int)GHZ_HDR_VERSION &&
                   (int)GHZ_FIXED_HDR_DTYPE == (int)GHZ_HDR_DTYPE &&
                   (int)GHZ_FIXED_HDR_SHORT == (int)GHZ_HDR_SHORT,
               "header check numbers of fixed.h and detail/header.h differ");

size_t ghz_fixed_size(size_t n, unsigned bits)
{
    uint64_t nb = (uint64_t)(n / 32u) + (n % 32u != 0);
    uint64_t size;
    if (!ghz_fixed_bits_ok(bits)) return 0;
    if (nb > (UINT64_MAX - 64u - 16u) / 256u) return 0;
    size = 64u + ghz_fixed_words_bytes(nb) + nb * 4u * bits;
    return size > (uint64_t)SIZE_MAX ? 0 : (size_t)size;
}

static void put_codes(uint8_t* dst, const int32_t* codes, unsigned bits)
{
    unsigned i, bytes = bits / 8u;
    for (i = 0; i < 32u; ++i) ghz_store_le(dst + i * bytes, (uint64_t)(uint32_t)codes[i], bytes);
}

static void get_codes(int32_t* codes, const uint8_t* src, unsigned bits)
{
    unsigned i, bytes = bits / 8u, shift = 32u - bits;
    for (i = 0; i < 32u; ++i) {
        /* sign-extend the l-bit two's complement code */
        uint32_t u = (uint32_t)ghz_load_le(src + i * bytes, bytes) << shift;
        codes[i] = (int32_t)u >> shift;
    }
}

ghz_status_t ghz_fixed_compress(ghz_dtype_t dtype, unsigned bits, const void* src, size_t n,
                                void* dst, size_t dst_capacity, size_t* dst_size)
{
    size_t need, elem = ghz_float_size(dtype);
    uint64_t nb, b;
    uint8_t *out = (uint8_t*)dst, *codes;
    ghz_clear_detail();
    if (!dst || !dst_size || (n && !src))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL src, dst or dst_size");
    if (!elem) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)dtype);
    if (!ghz_fixed_bits_ok(bits))
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "fixed-rate bits %u: 8, 16 or 32 are supported",
                        bits);
    need = ghz_fixed_size(n, bits);
    if (!need) return ghz_fail(GHZ_ERR_INVALID_ARG, "%zu elements do not fit in size_t bytes", n);
    if (dst_capacity < need)
        return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "fixed-rate frame needs %zu bytes, capacity %zu",
                        need, dst_capacity);
    ghz_fixed_header_pack(out, dtype, bits, n);
    nb = n / 32u + (n % 32u != 0);
    codes = out + 64 + ghz_fixed_words_bytes(nb);
    memset(out + 64, 0, (size_t)ghz_fixed_words_bytes(nb));
    for (b = 0; b < nb; ++b) {
        int32_t c[32];
        double x[32]; /* the block, aligned (src may have any alignment) */
        unsigned m = n - 32u * b >= 32u ? 32u : (unsigned)(n - 32u * b);
        uint16_t w;
        memcpy(x, (const uint8_t*)src + 32u * b * elem, m * elem);
        w = ghz_fixed_encode_block(x, dtype == GHZ_F32, m, bits, c);
        ghz_store_le(out + 64 + 2u * b, w, 2);
        put_codes(codes + b * 4u * bits, c, bits);
    }
    *dst_size = need;
    return GHZ_SUCCESS;
}

static ghz_status_t read_header(const void* src, size_t src_size, ghz_fixed_info_t* info)
{
    /* the checks before the mode byte are FORMAT.md's, with its messages */
    static const char* const what[] = {
        "error-bounded frame (mode 1/2, FORMAT.md): read it with ghz_decompress",
        "unknown mode byte: not a fixed-rate frame",
        "block_log2 is not 5",
        "bits is not 8, 16 or 32",
        "reserved header bytes not zero",
        "n_blocks does not match n",
        "payload_size does not match n and bits",
        "frame extends past the end of the input",
    };
    int why = GHZ_FIXED_HDR_OK;
    ghz_status_t st;
    if (!src || !info) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL src or info");
    st = (ghz_status_t)ghz_fixed_header_unpack((const uint8_t*)src, src_size, info, &why);
    if (st == GHZ_SUCCESS) return st;
    if (why < GHZ_FIXED_HDR_OTHER_MODE) return ghz_fail(st, "%s", ghz_header_check_text(why));
    return ghz_fail(st, "%s", what[why - GHZ_FIXED_HDR_OTHER_MODE]);
}

ghz_status_t ghz_fixed_info(const void* src, size_t src_size, ghz_fixed_info_t* info)
{
    ghz_clear_detail();
    return read_header(src, src_size, info);
}

ghz_status_t ghz_fixed_decompress(const void* src, size_t src_size, void* dst,
                                  size_t dst_capacity, size_t* n_out)
{
    static const char* const why_block[] = {
        "ok",
        "block word bits 14..15 set",
        "block exponent outside the dtype's range",
        "marker code in a block whose K field is 0",
        "nonzero code in a zero block",
        "nonzero code past the last element",
    };
    ghz_fixed_info_t info = {GHZ_F32, 0, 0, 0, 0, 0};
    const uint8_t *in = (const uint8_t*)src, *codes;
    uint64_t b;
    size_t elem;
    ghz_status_t st;
    ghz_clear_detail();
    if ((st = read_header(src, src_size, &info)) != GHZ_SUCCESS) return st;
    if (src_size != info.frame_size)
        return ghz_fail(GHZ_ERR_CORRUPT, "%zu bytes after the fixed-rate frame (one frame per stream)",
                        src_size - (size_t)info.frame_size);
    elem = ghz_float_size(info.dtype);
    if (info.n && !dst) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL dst");
    if (info.n > dst_capacity / elem)
        return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "%llu elements need %llu bytes, capacity %zu",
                        (unsigned long long)info.n, (unsigned long long)(info.n * elem),
                        dst_capacity);
    codes = in + 64 + ghz_fixed_words_bytes(info.n_blocks);
    for (b = 2u * info.n_blocks; b < ghz_fixed_words_bytes(info.n_blocks); ++b)
        if (in[64 + b] != 0) return ghz_fail(GHZ_ERR_CORRUPT, "block word padding not zero");
    /* every block is checked before any value is written */
    for (b = 0; b < info.n_blocks; ++b) {
        int32_t c[32];
        uint16_t w = (uint16_t)ghz_load_le(in + 64 + 2u * b, 2);
        unsigned m = info.n - 32u * b >= 32u ? 32u : (unsigned)(info.n - 32u * b);
        int why;
        get_codes(c, codes + b * 4u * info.bits, info.bits);
        why = ghz_fixed_block_check(w, c, m, info.bits, info.dtype == GHZ_F32);
        if (why != GHZ_FIXED_BLOCK_OK)
            return ghz_fail(GHZ_ERR_CORRUPT, "block %llu: %s", (unsigned long long)b,
                            why_block[why]);
    }
    for (b = 0; b < info.n_blocks; ++b) {
        int32_t c[32];
        uint16_t w = (uint16_t)ghz_load_le(in + 64 + 2u * b, 2);
        unsigned i, m = info.n - 32u * b >= 32u ? 32u : (unsigned)(info.n - 32u * b);
        get_codes(c, codes + b * 4u * info.bits, info.bits);
        uint8_t* out = (uint8_t*)dst + 32u * b * elem; /* any alignment */
        for (i = 0; i < m; ++i) {
            if (info.dtype == GHZ_F32) {
                float v = ghz_fixed_decode_f32(w, c[i], info.bits);
                memcpy(out + i * elem, &v, elem);
            } else {
                double v = ghz_fixed_decode_f64(w, c[i], info.bits);
                memcpy(out + i * elem, &v, elem);
            }
        }
    }
    if (n_out) *n_out = (size_t)info.n;
    return GHZ_SUCCESS;
}
