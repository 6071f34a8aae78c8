/* ghz/codec/detail/frame.h (private): the frame header and code-array checks that
 * every reader and writer of FORMAT.md shares. */
#ifndef GHZ_CODEC_DETAIL_FRAME_H
#define GHZ_CODEC_DETAIL_FRAME_H

#include <stdint.h>

#include "ghz/codec/codec.h"
#include "ghz/codec/detail/header.h"

/* Serialises info (format_version, dtype, eb_mode, eb_user, eb_abs, has_fill,
 * fill_bits, n, payload_size) into 64 header bytes. */
void ghz_header_write(uint8_t* dst, const ghz_frame_info_t* info);

/* Parses and validates the 64 header bytes at src (FORMAT.md, Header). src_size is
 * what the buffer holds from src on: the whole frame must fit in it. A ratio frame
 * (RATIO.md) is refused as GHZ_ERR_UNSUPPORTED: this is the reader of block frames
 * (ghz/homo, which operates on blocks). */
ghz_status_t ghz_header_read(const uint8_t* src, size_t src_size, ghz_frame_info_t* info);

/* ghz_header_read that accepts ratio frames too (info->prefer tells which): the
 * readers of whole frames (decompression, stream walks, checksums). */
ghz_status_t ghz_header_read_any(const uint8_t* src, size_t src_size, ghz_frame_info_t* info);

/* What a failed header check (ghz_hdr_check_t) means, in words. */
const char* ghz_header_check_text(int why);

/* Validates the code array of a parsed frame (each code byte, zero padding) and that
 * the block sizes add up to payload_size. When starts is not NULL, it receives the
 * payload offset of every `stride`-th block (starts[i] = offset of block i*stride). */
ghz_status_t ghz_codes_check(const uint8_t* codes, const ghz_frame_info_t* info,
                             uint64_t* starts, uint64_t stride);

/* The standard CRC-32C of data[0..n). */
uint32_t ghz_crc32c(const void* data, size_t n);

/* Writes the CRC-32C of frame[0..covered) at frame + covered (FORMAT.md, Checksum). */
void ghz_checksum_write(uint8_t* frame, uint64_t covered);

/* GHZ_ERR_CORRUPT ("checksum mismatch") unless the checksum of a parsed frame that has
 * one matches its bytes; GHZ_SUCCESS for a frame without one. */
ghz_status_t ghz_checksum_check(const uint8_t* frame, const ghz_frame_info_t* info);

#endif
