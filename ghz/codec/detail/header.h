/* ghz/codec/detail/header.h (private): packing and checking the 64-byte frame header
 * (FORMAT.md, Header), as inline code shared by the CPU reference and the CUDA
 * kernels, so both validate exactly the same way. */
#ifndef GHZ_CODEC_DETAIL_HEADER_H
#define GHZ_CODEC_DETAIL_HEADER_H

#include <math.h>
#include <string.h>

#include "ghz/codec/block.h"
#include "ghz/codec/codec.h"
#include "ghz/version.h"

#define GHZ_MAGIC0 0xF9u
#define GHZ_MAGIC1 0x47u /* 'G' */
#define GHZ_MAGIC2 0x48u /* 'H' */
#define GHZ_MAGIC3 0x5Au /* 'Z' */
#define GHZ_FLAG_FILL 0x01u
#define GHZ_FLAG_CHECKSUM 0x02u /* a CRC-32C follows the payload (FORMAT.md, Checksum) */
#define GHZ_FLAGS_KNOWN (GHZ_FLAG_FILL | GHZ_FLAG_CHECKSUM)

/* Which header check failed (for messages). */
typedef enum {
    GHZ_HDR_OK = 0,
    GHZ_HDR_SHORT_MAGIC,
    GHZ_HDR_MAGIC,
    GHZ_HDR_SHORT_VERSION,
    GHZ_HDR_VERSION,
    GHZ_HDR_SHORT,
    GHZ_HDR_HEADER_SIZE,
    GHZ_HDR_DTYPE,
    GHZ_HDR_MODE,
    GHZ_HDR_BLOCK_LOG2,
    GHZ_HDR_FLAGS,
    GHZ_HDR_RESERVED,
    GHZ_HDR_N_BLOCKS,
    GHZ_HDR_EB_USER,
    GHZ_HDR_EB_ABS,
    GHZ_HDR_FILL,
    GHZ_HDR_FRAME_SIZE,
    GHZ_HDR_PAYLOAD,
    GHZ_HDR_FIXED_MODE,
    GHZ_HDR_CODEC,
    GHZ_HDR_RATIO_FRAME
} ghz_hdr_check_t;

/* Byte 12 of a version 3 header: how the frame's values are coded (RATIO.md). */
#define GHZ_HDR_CODEC_BLOCKS 0u
#define GHZ_HDR_CODEC_RATIO 1u
/* The version block frames are written with: the oldest that expresses them, so that
 * readers older than version 3 read them (RATIO.md, Header). */
#define GHZ_FORMAT_VERSION_BLOCKS 2u

/* Byte 9 of a fixed-rate frame (FIXED.md): this reader refuses it as unsupported
 * rather than corrupt, so the caller learns which reader the frame needs. */
#define GHZ_HDR_MODE_FIXED 3u

/* Bytes of the zero-padded code array of a frame of n_blocks blocks. */
GHZ_HD static inline uint64_t ghz_codes_bytes(uint64_t n_blocks)
{
    return (n_blocks + 15u) & ~(uint64_t)15u;
}

GHZ_HD static inline uint64_t ghz_blocks_of(uint64_t n)
{
    return n / 32u + (n % 32u != 0);
}

/* Length of block b of a frame of n elements. */
GHZ_HD static inline unsigned ghz_block_len(uint64_t n, uint64_t b)
{
    uint64_t rest = n - 32u * b;
    return rest >= 32u ? 32u : (unsigned)rest;
}

GHZ_HD static inline uint64_t ghz_f64_bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

GHZ_HD static inline double ghz_bits_f64(uint64_t u)
{
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* Serialises the header of a frame described by info (format_version is ignored:
 * this library writes GHZ_FORMAT_VERSION; n_blocks and frame_size are derived). The
 * checksum itself is not written here: it covers these bytes (FORMAT.md, Checksum). */
GHZ_HD static inline void ghz_header_pack(uint8_t* dst, const ghz_frame_info_t* info)
{
    unsigned i;
    for (i = 0; i < GHZ_HEADER_SIZE; ++i) dst[i] = 0;
    dst[0] = GHZ_MAGIC0;
    dst[1] = GHZ_MAGIC1;
    dst[2] = GHZ_MAGIC2;
    dst[3] = GHZ_MAGIC3;
    ghz_store_le(dst + 4, GHZ_FORMAT_VERSION_BLOCKS, 2);
    ghz_store_le(dst + 6, GHZ_HEADER_SIZE, 2);
    dst[8] = (uint8_t)info->dtype;
    dst[9] = (uint8_t)info->eb_mode;
    dst[10] = 5;
    dst[11] = (uint8_t)((info->has_fill ? GHZ_FLAG_FILL : 0u) |
                        (info->has_checksum ? GHZ_FLAG_CHECKSUM : 0u));
    ghz_store_le(dst + 16, info->n, 8);
    ghz_store_le(dst + 24, ghz_blocks_of(info->n), 8);
    ghz_store_le(dst + 32, info->payload_size, 8);
    ghz_store_le(dst + 40, ghz_f64_bits(info->eb_user), 8);
    ghz_store_le(dst + 48, ghz_f64_bits(info->eb_abs), 8);
    ghz_store_le(dst + 56, info->has_fill ? info->fill_bits : 0, 8);
}

/* Checks the header at src, of which src_size bytes are readable, and fills *info.
 * Returns a ghz_status_t value; *why tells which check failed. Nothing past the
 * 64 header bytes is read. */
GHZ_HD static inline int ghz_header_unpack_any(const uint8_t* src, uint64_t src_size,
                                               ghz_frame_info_t* info, int* why)
{
    unsigned codec;
    uint64_t version, n, nb, payload, fill, codes, tail;
    unsigned flags, elem;
    double eb_user, eb_abs;
#define GHZ_HDR_FAIL(st, w) \
    do {                    \
        *why = (w);         \
        return (st);        \
    } while (0)
    if (src_size < 4) GHZ_HDR_FAIL(GHZ_ERR_TRUNCATED, GHZ_HDR_SHORT_MAGIC);
    if (src[0] != GHZ_MAGIC0 || src[1] != GHZ_MAGIC1 || src[2] != GHZ_MAGIC2 || src[3] != GHZ_MAGIC3)
        GHZ_HDR_FAIL(GHZ_ERR_NOT_GHZ, GHZ_HDR_MAGIC);
    if (src_size < 6) GHZ_HDR_FAIL(GHZ_ERR_TRUNCATED, GHZ_HDR_SHORT_VERSION);
    version = ghz_load_le(src + 4, 2);
    if (version != 2u && version != 3u) GHZ_HDR_FAIL(GHZ_ERR_VERSION, GHZ_HDR_VERSION);
    if (src_size < GHZ_HEADER_SIZE) GHZ_HDR_FAIL(GHZ_ERR_TRUNCATED, GHZ_HDR_SHORT);
    if (ghz_load_le(src + 6, 2) != GHZ_HEADER_SIZE) GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_HEADER_SIZE);
    if (src[8] != GHZ_F32 && src[8] != GHZ_F64) GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_DTYPE);
    if (src[9] == GHZ_HDR_MODE_FIXED) GHZ_HDR_FAIL(GHZ_ERR_UNSUPPORTED, GHZ_HDR_FIXED_MODE);
    if (src[9] != GHZ_EB_ABS && src[9] != GHZ_EB_REL) GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_MODE);
    codec = src[12];
    if (codec > (version == 3u ? GHZ_HDR_CODEC_RATIO : GHZ_HDR_CODEC_BLOCKS))
        GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_CODEC);
    /* byte 10: block_log2 (5) of block frames, ndims (1..3) of ratio frames */
    if (codec == GHZ_HDR_CODEC_RATIO ? (src[10] < 1 || src[10] > 3) : src[10] != 5)
        GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_BLOCK_LOG2);
    flags = src[11];
    if (flags & ~GHZ_FLAGS_KNOWN) GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_FLAGS);
    /* bytes 13 and 14: the chunks' spread (0..40) and shrink (0..2) of ratio frames
     * (RATIO.md); reserved elsewhere */
    if (src[15] != 0 || src[13] > (codec == GHZ_HDR_CODEC_RATIO ? 40u : 0u) ||
        src[14] > (codec == GHZ_HDR_CODEC_RATIO ? 2u : 0u))
        GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_RESERVED);
    n = ghz_load_le(src + 16, 8);
    nb = ghz_load_le(src + 24, 8);
    payload = ghz_load_le(src + 32, 8);
    eb_user = ghz_bits_f64(ghz_load_le(src + 40, 8));
    eb_abs = ghz_bits_f64(ghz_load_le(src + 48, 8));
    fill = ghz_load_le(src + 56, 8);
    elem = src[8] == GHZ_F32 ? 4u : 8u;
    if (codec == GHZ_HDR_CODEC_RATIO ? (nb != 0 || n == 0) : nb != ghz_blocks_of(n))
        GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_N_BLOCKS);
    if (!(isfinite(eb_user) && eb_user > 0.0)) GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_EB_USER);
    if (!(isfinite(eb_abs) && (ghz_f64_bits(eb_abs) >> 63) == 0 && isfinite(eb_abs + eb_abs)) ||
        (eb_abs == 0.0 && src[9] != GHZ_EB_REL))
        GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_EB_ABS);
    if ((!(flags & GHZ_FLAG_FILL) && fill != 0) || (elem == 4u && (fill >> 32) != 0))
        GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_FILL);
    /* Overflow-checked: the codes, the payload and the checksum must lie inside
     * src_size (nb <= src_size keeps codes + tail from wrapping). */
    codes = ghz_codes_bytes(nb);
    tail = (flags & GHZ_FLAG_CHECKSUM) ? GHZ_CHECKSUM_SIZE : 0u;
    if (nb > src_size || codes + tail > src_size - GHZ_HEADER_SIZE ||
        payload > src_size - GHZ_HEADER_SIZE - codes - tail)
        GHZ_HDR_FAIL(GHZ_ERR_TRUNCATED, GHZ_HDR_FRAME_SIZE);
    if (codec == GHZ_HDR_CODEC_RATIO) {
        /* at most the block coding's worst case (RATIO.md, Header), saturating */
        uint64_t raw = n > UINT64_MAX / elem ? UINT64_MAX : n * elem;
        uint64_t cb = ghz_codes_bytes(ghz_blocks_of(n));
        uint64_t lim = raw > UINT64_MAX - cb ? UINT64_MAX : raw + cb;
        /* and at least the section that says what the payload holds (RATIO.md) */
        if (payload > lim || payload < 64u) GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_PAYLOAD);
    } else if (payload / elem > n) {
        GHZ_HDR_FAIL(GHZ_ERR_CORRUPT, GHZ_HDR_PAYLOAD);
    }
#undef GHZ_HDR_FAIL
    info->format_version = (unsigned)version;
    info->prefer = codec == GHZ_HDR_CODEC_RATIO ? GHZ_PREFER_RATIO : GHZ_PREFER_SPEED;
    info->dtype = (ghz_dtype_t)src[8];
    info->eb_mode = (ghz_eb_mode_t)src[9];
    info->eb_user = eb_user;
    info->eb_abs = eb_abs;
    info->has_fill = (flags & GHZ_FLAG_FILL) != 0;
    info->has_checksum = (flags & GHZ_FLAG_CHECKSUM) != 0;
    info->fill_bits = fill;
    info->n = n;
    info->n_blocks = nb;
    info->payload_size = payload;
    info->frame_size = GHZ_HEADER_SIZE + codes + payload + tail;
    *why = GHZ_HDR_OK;
    return GHZ_SUCCESS;
}

/* ghz_header_unpack_any for readers of block frames only (the GPU decoder, ghz/homo):
 * a ratio frame is refused as unsupported, as a fixed-rate frame is. */
GHZ_HD static inline int ghz_header_unpack(const uint8_t* src, uint64_t src_size,
                                           ghz_frame_info_t* info, int* why)
{
    int st = ghz_header_unpack_any(src, src_size, info, why);
    if (st == GHZ_SUCCESS && info->prefer == GHZ_PREFER_RATIO) {
        *why = GHZ_HDR_RATIO_FRAME;
        return GHZ_ERR_UNSUPPORTED;
    }
    return st;
}

#endif
