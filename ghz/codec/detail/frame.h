/* ghz/codec/detail/frame.h (private): the frame header and code-array checks that
 * every reader and writer of FORMAT.md shares. */
#ifndef GHZ_CODEC_DETAIL_FRAME_H
#define GHZ_CODEC_DETAIL_FRAME_H

#include <stdint.h>

#include "ghz/codec/codec.h"

#define GHZ_MAGIC0 0xF9u
#define GHZ_MAGIC1 0x47u /* 'G' */
#define GHZ_MAGIC2 0x48u /* 'H' */
#define GHZ_MAGIC3 0x5Au /* 'Z' */
#define GHZ_FLAG_FILL 0x01u
#define GHZ_FLAGS_KNOWN GHZ_FLAG_FILL

/* Bytes of the zero-padded code array of a frame of n_blocks blocks. */
static inline uint64_t ghz_codes_bytes(uint64_t n_blocks)
{
    return (n_blocks + 15u) & ~(uint64_t)15u;
}

static inline uint64_t ghz_blocks_of(uint64_t n)
{
    return n / 32u + (n % 32u != 0);
}

/* Length of block b of a frame of n elements. */
static inline unsigned ghz_block_len(uint64_t n, uint64_t b)
{
    uint64_t rest = n - 32u * b;
    return rest >= 32u ? 32u : (unsigned)rest;
}

/* Serialises info (format_version, dtype, eb_mode, eb_user, eb_abs, has_fill,
 * fill_bits, n, payload_size) into 64 header bytes. */
void ghz_header_write(uint8_t* dst, const ghz_frame_info_t* info);

/* Parses and validates the 64 header bytes at src (FORMAT.md, Header). src_size is
 * what the buffer holds from src on: the whole frame must fit in it. */
ghz_status_t ghz_header_read(const uint8_t* src, size_t src_size, ghz_frame_info_t* info);

/* Validates the code array of a parsed frame (each code byte, zero padding) and that
 * the block sizes add up to payload_size. When starts is not NULL, it receives the
 * payload offset of every `stride`-th block (starts[i] = offset of block i*stride). */
ghz_status_t ghz_codes_check(const uint8_t* codes, const ghz_frame_info_t* info,
                             uint64_t* starts, uint64_t stride);

#endif
