/* ghz/codec/frame.c: writing and validating frame headers and code arrays
 * (FORMAT.md, Header and Code byte). */
#include <math.h>
#include <string.h>

#include "ghz/version.h"
#include "ghz/codec/block.h"
#include "ghz/codec/detail/frame.h"
#include "ghz/detail/error.h"

static uint64_t f64_bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static double bits_f64(uint64_t u)
{
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

void ghz_header_write(uint8_t* dst, const ghz_frame_info_t* info)
{
    memset(dst, 0, GHZ_HEADER_SIZE);
    dst[0] = GHZ_MAGIC0;
    dst[1] = GHZ_MAGIC1;
    dst[2] = GHZ_MAGIC2;
    dst[3] = GHZ_MAGIC3;
    ghz_store_le(dst + 4, GHZ_FORMAT_VERSION, 2);
    ghz_store_le(dst + 6, GHZ_HEADER_SIZE, 2);
    dst[8] = (uint8_t)info->dtype;
    dst[9] = (uint8_t)info->eb_mode;
    dst[10] = 5;
    dst[11] = info->has_fill ? GHZ_FLAG_FILL : 0;
    ghz_store_le(dst + 16, info->n, 8);
    ghz_store_le(dst + 24, ghz_blocks_of(info->n), 8);
    ghz_store_le(dst + 32, info->payload_size, 8);
    ghz_store_le(dst + 40, f64_bits(info->eb_user), 8);
    ghz_store_le(dst + 48, f64_bits(info->eb_abs), 8);
    ghz_store_le(dst + 56, info->has_fill ? info->fill_bits : 0, 8);
}

ghz_status_t ghz_header_read(const uint8_t* src, size_t src_size, ghz_frame_info_t* info)
{
    uint64_t version, hsize, n, nb, payload, fill, codes;
    unsigned flags;
    double eb_user, eb_abs;

    if (src_size < 4)
        return ghz_fail(GHZ_ERR_TRUNCATED, "%zu bytes: shorter than the magic number", src_size);
    if (src[0] != GHZ_MAGIC0 || src[1] != GHZ_MAGIC1 || src[2] != GHZ_MAGIC2 || src[3] != GHZ_MAGIC3)
        return ghz_fail(GHZ_ERR_NOT_GHZ, "bad magic %02x %02x %02x %02x", src[0], src[1], src[2], src[3]);
    if (src_size < 6)
        return ghz_fail(GHZ_ERR_TRUNCATED, "%zu bytes: header cut short", src_size);
    version = ghz_load_le(src + 4, 2);
    if (version != GHZ_FORMAT_VERSION)
        return ghz_fail(GHZ_ERR_VERSION, "format version %u, this library reads %u",
                        (unsigned)version, (unsigned)GHZ_FORMAT_VERSION);
    if (src_size < GHZ_HEADER_SIZE)
        return ghz_fail(GHZ_ERR_TRUNCATED, "%zu bytes: header needs %u", src_size, GHZ_HEADER_SIZE);
    hsize = ghz_load_le(src + 6, 2);
    if (hsize != GHZ_HEADER_SIZE)
        return ghz_fail(GHZ_ERR_CORRUPT, "header_size %u, expected %u", (unsigned)hsize, GHZ_HEADER_SIZE);
    if (src[8] != GHZ_F32 && src[8] != GHZ_F64)
        return ghz_fail(GHZ_ERR_CORRUPT, "unknown dtype %u", src[8]);
    if (src[9] != GHZ_EB_ABS && src[9] != GHZ_EB_REL)
        return ghz_fail(GHZ_ERR_CORRUPT, "unknown error-bound mode %u", src[9]);
    if (src[10] != 5)
        return ghz_fail(GHZ_ERR_CORRUPT, "block_log2 %u, expected 5", src[10]);
    flags = src[11];
    if (flags & ~GHZ_FLAGS_KNOWN)
        return ghz_fail(GHZ_ERR_CORRUPT, "reserved flag bits set (0x%02x)", flags);
    if (ghz_load_le(src + 12, 4) != 0)
        return ghz_fail(GHZ_ERR_CORRUPT, "reserved header bytes 12..15 not zero");
    n = ghz_load_le(src + 16, 8);
    nb = ghz_load_le(src + 24, 8);
    payload = ghz_load_le(src + 32, 8);
    eb_user = bits_f64(ghz_load_le(src + 40, 8));
    eb_abs = bits_f64(ghz_load_le(src + 48, 8));
    fill = ghz_load_le(src + 56, 8);
    if (n > UINT64_MAX - 31u || nb != ghz_blocks_of(n))
        return ghz_fail(GHZ_ERR_CORRUPT, "n_blocks %llu does not match n %llu",
                        (unsigned long long)nb, (unsigned long long)n);
    if (!(isfinite(eb_user) && eb_user > 0.0))
        return ghz_fail(GHZ_ERR_CORRUPT, "eb_user %g is not a positive finite bound", eb_user);
    if (!(isfinite(eb_abs) && eb_abs >= 0.0 && isfinite(eb_abs + eb_abs)) ||
        (eb_abs == 0.0 && src[9] != GHZ_EB_REL))
        return ghz_fail(GHZ_ERR_CORRUPT, "eb_abs %g is not a usable bound", eb_abs);
    if ((!(flags & GHZ_FLAG_FILL) && fill != 0) || (src[8] == GHZ_F32 && (fill >> 32) != 0))
        return ghz_fail(GHZ_ERR_CORRUPT, "fill_bits 0x%016llx inconsistent with flags and dtype",
                        (unsigned long long)fill);
    /* Overflow-checked frame size: codes and payload must lie inside src_size. */
    codes = ghz_codes_bytes(nb);
    if (nb > (uint64_t)src_size || codes > (uint64_t)src_size - GHZ_HEADER_SIZE ||
        payload > (uint64_t)src_size - GHZ_HEADER_SIZE - codes)
        return ghz_fail(GHZ_ERR_TRUNCATED, "frame of %llu elements needs more than the %zu bytes given",
                        (unsigned long long)n, src_size);
    if (payload / ghz_dtype_size((ghz_dtype_t)src[8]) > n)
        return ghz_fail(GHZ_ERR_CORRUPT, "payload_size %llu exceeds the raw size",
                        (unsigned long long)payload);

    info->format_version = (unsigned)version;
    info->dtype = (ghz_dtype_t)src[8];
    info->eb_mode = (ghz_eb_mode_t)src[9];
    info->eb_user = eb_user;
    info->eb_abs = eb_abs;
    info->has_fill = (flags & GHZ_FLAG_FILL) != 0;
    info->fill_bits = fill;
    info->n = n;
    info->n_blocks = nb;
    info->payload_size = payload;
    info->frame_size = GHZ_HEADER_SIZE + codes + payload;
    return GHZ_SUCCESS;
}

ghz_status_t ghz_codes_check(const uint8_t* codes, const ghz_frame_info_t* info,
                             uint64_t* starts, uint64_t stride)
{
    uint64_t b, total = 0, nb = info->n_blocks;
    unsigned elem = (unsigned)ghz_dtype_size(info->dtype);
    for (b = 0; b < nb; ++b) {
        uint32_t size = ghz_block_size(codes[b], ghz_block_len(info->n, b), elem, info->has_fill);
        if (size == GHZ_BLOCK_INVALID)
            return ghz_fail(GHZ_ERR_CORRUPT, "block %llu: invalid code byte 0x%02x",
                            (unsigned long long)b, codes[b]);
        if (starts && b % stride == 0) starts[b / stride] = total;
        total += size;
    }
    for (b = nb; b < ghz_codes_bytes(nb); ++b)
        if (codes[b] != 0) return ghz_fail(GHZ_ERR_CORRUPT, "code array padding not zero");
    if (total != info->payload_size)
        return ghz_fail(GHZ_ERR_CORRUPT, "blocks need %llu payload bytes, header says %llu",
                        (unsigned long long)total, (unsigned long long)info->payload_size);
    return GHZ_SUCCESS;
}
