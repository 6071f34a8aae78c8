/* ghz/codec/frame.c: writing and validating frame headers and code arrays
 * (FORMAT.md, Header and Code byte). */
#include <stddef.h>
#include <string.h>

#include "ghz/version.h"
#include "ghz/codec/block.h"
#include "ghz/codec/detail/frame.h"
#include "ghz/detail/error.h"

/* has_checksum took the padding after has_fill: the fields around it keep the
 * offsets they had before it existed, so older programs still read
 * ghz_frame_info_t right. */
_Static_assert(sizeof(void*) != 8 || (offsetof(ghz_frame_info_t, fill_bits) == 40 &&
                                      sizeof(ghz_frame_info_t) == 80),
               "ghz_frame_info_t layout of 0.1 changed");

void ghz_header_write(uint8_t* dst, const ghz_frame_info_t* info)
{
    ghz_header_pack(dst, info);
}

const char* ghz_header_check_text(int why)
{
    static const char* const what[] = {
        "ok",
        "shorter than the magic number",
        "bad magic number: not a ghz stream",
        "header cut short before the version",
        "format version not supported",
        "shorter than the 64-byte header",
        "header_size is not 64",
        "unknown dtype",
        "unknown error-bound mode",
        "block_log2 is not 5",
        "reserved flag bits set",
        "reserved header bytes 13..15 not zero (ratio frames: spread above 40, shrink above 2)",
        "n_blocks does not match n",
        "eb_user is not a positive finite bound",
        "eb_abs is not a usable bound",
        "fill_bits inconsistent with the flags and dtype",
        "frame extends past the end of the input",
        "payload_size exceeds the raw size",
        "fixed-rate frame (mode 3, FIXED.md): read it with ghz_fixed_decompress",
        "unknown codec byte (12)",
        "ratio frame (RATIO.md): this reader takes block frames only; decompress it "
        "with ghz_decompress",
    };
    return what[why];
}

static ghz_status_t header_result(const uint8_t* src, size_t src_size, ghz_status_t st, int why)
{
    if (st == GHZ_SUCCESS) return st;
    if (why == GHZ_HDR_VERSION)
        return ghz_fail(st, "format version %u; this library reads versions 2 and %u",
                        (unsigned)ghz_load_le(src + 4, 2), (unsigned)GHZ_FORMAT_VERSION);
    if (why == GHZ_HDR_FRAME_SIZE)
        return ghz_fail(st, "frame of %llu elements needs more than the %zu bytes given",
                        (unsigned long long)ghz_load_le(src + 16, 8), src_size);
    return ghz_fail(st, "%s", ghz_header_check_text(why));
}

ghz_status_t ghz_header_read(const uint8_t* src, size_t src_size, ghz_frame_info_t* info)
{
    int why = GHZ_HDR_OK;
    ghz_status_t st = (ghz_status_t)ghz_header_unpack(src, src_size, info, &why);
    return header_result(src, src_size, st, why);
}

ghz_status_t ghz_header_read_any(const uint8_t* src, size_t src_size, ghz_frame_info_t* info)
{
    int why = GHZ_HDR_OK;
    ghz_status_t st = (ghz_status_t)ghz_header_unpack_any(src, src_size, info, &why);
    return header_result(src, src_size, st, why);
}

ghz_status_t ghz_codes_check(const uint8_t* codes, const ghz_frame_info_t* info,
                             uint64_t* starts, uint64_t stride)
{
    uint64_t b, total = 0, nb = info->n_blocks;
    unsigned elem = (unsigned)ghz_float_size(info->dtype);
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
