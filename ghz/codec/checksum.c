/* ghz/codec/checksum.c: the optional frame checksum on the CPU (FORMAT.md,
 * Checksum): computing, writing and verifying the CRC-32C after the payload. */
#include <string.h>

#include "ghz/codec/detail/crc32c.h"
#include "ghz/codec/detail/encode.h"
#include "ghz/codec/detail/frame.h"
#include "ghz/detail/error.h"

/* Slicing by 8: eight tables let one step fold 8 bytes into the CRC. They are built
 * per call (2048 entries, microseconds) so that nothing global needs initialising
 * or locking. */
uint32_t ghz_crc32c(const void* data, size_t n)
{
    uint32_t t[8][256];
    const uint8_t* p = (const uint8_t*)data;
    uint32_t crc = 0xFFFFFFFFu;
    unsigned i, k;
    for (i = 0; i < 256; ++i) t[0][i] = ghz_crc32c_entry(i);
    for (k = 1; k < 8; ++k)
        for (i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFFu];
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo, hi; /* little-endian host (ghz/codec/detail/encode.h) */
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
        lo ^= crc;
        crc = t[7][lo & 0xFFu] ^ t[6][(lo >> 8) & 0xFFu] ^ t[5][(lo >> 16) & 0xFFu] ^ t[4][lo >> 24] ^
              t[3][hi & 0xFFu] ^ t[2][(hi >> 8) & 0xFFu] ^ t[1][(hi >> 16) & 0xFFu] ^ t[0][hi >> 24];
    }
    for (; n; --n, ++p) crc = t[0][(crc ^ *p) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}

void ghz_checksum_write(uint8_t* frame, uint64_t covered)
{
    ghz_store_le(frame + covered, ghz_crc32c(frame, (size_t)covered), GHZ_CHECKSUM_SIZE);
}

ghz_status_t ghz_checksum_check(const uint8_t* frame, const ghz_frame_info_t* info)
{
    uint64_t covered = info->frame_size - GHZ_CHECKSUM_SIZE;
    uint32_t stored, computed;
    if (!info->has_checksum) return GHZ_SUCCESS;
    stored = (uint32_t)ghz_load_le(frame + covered, GHZ_CHECKSUM_SIZE);
    computed = ghz_crc32c(frame, (size_t)covered);
    if (stored != computed)
        return ghz_fail(GHZ_ERR_CORRUPT,
                        "checksum mismatch: the frame's CRC-32C is 0x%08x, its bytes give 0x%08x",
                        (unsigned)stored, (unsigned)computed);
    return GHZ_SUCCESS;
}

ghz_status_t ghz_frame_add_checksum(void* frame, size_t frame_size, size_t capacity,
                                    size_t* new_size)
{
    uint8_t* f = (uint8_t*)frame;
    ghz_frame_info_t info;
    ghz_status_t st;
    ghz_clear_detail();
    if (!frame || !new_size) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    if ((st = ghz_header_read_any(f, frame_size, &info)) != GHZ_SUCCESS) return st;
    if (info.has_checksum)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "the frame already has a checksum");
    if (info.frame_size != frame_size)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "frame_size %zu is not the frame's %llu bytes",
                        frame_size, (unsigned long long)info.frame_size);
    if (capacity < frame_size || capacity - frame_size < GHZ_CHECKSUM_SIZE)
        return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "capacity %zu < %zu bytes of frame and checksum",
                        capacity, frame_size + GHZ_CHECKSUM_SIZE);
    f[11] |= GHZ_FLAG_CHECKSUM;
    ghz_checksum_write(f, frame_size);
    *new_size = frame_size + GHZ_CHECKSUM_SIZE;
    return GHZ_SUCCESS;
}
