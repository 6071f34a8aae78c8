/* ghz/codec/detail/ratio.h (private): the CPU reference's ratio frame writer and
 * reader (RATIO.md), called by ghz_compress and the stream decoder. */
#ifndef GHZ_CODEC_DETAIL_RATIO_H
#define GHZ_CODEC_DETAIL_RATIO_H

#include <stdint.h>

#include "ghz/codec/codec.h"
#include "ghz/codec/detail/encode.h"

/* Writes one ratio frame of info->n >= 1 values of src at dst (header fields of info:
 * dtype, eb_mode, eb_user, eb_abs, has_fill, fill_bits, n; the checksum is the
 * caller's), its chunks cut with `spread` and `shrink` (RATIO.md, Chunks: writers pass
 * ghz_ratio_spread_for(n) and ghz_ratio_shrink_for(spread); tests pass others, as any
 * valid pair reads). Returns
 * GHZ_ERR_UNSUPPORTED, with no detail, when the frame would be larger than
 * ghz_compress_bound allows: the caller then writes a block frame. nthreads threads
 * (OpenMP builds; 0 = all) write the same bytes as one. */
ghz_status_t ghz_ratio_encode(const ghz_enc_params* e, const ghz_frame_info_t* info,
                              const size_t dims[3], unsigned spread, unsigned shrink, const uint8_t* src, uint8_t* dst,
                              uint64_t capacity, uint64_t* frame_size, int nthreads);

/* Decodes the ratio frame at frame (header checked into *info; checksum verified by
 * the caller) into out, which holds info->n values, on nthreads threads (OpenMP builds;
 * 0 = all): the same values and verdict on any number. Every byte is validated before
 * it is used; GHZ_ERR_CORRUPT with a detail otherwise. */
ghz_status_t ghz_ratio_decode(const uint8_t* frame, const ghz_frame_info_t* info, uint8_t* out, int nthreads);

/* The extents of a ratio frame (1-D n for a block frame). */
ghz_status_t ghz_ratio_dims(const uint8_t* frame, const ghz_frame_info_t* info, uint64_t d[3]);

#endif
