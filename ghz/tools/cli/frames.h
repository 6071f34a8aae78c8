/* ghz/tools/cli/frames.h: reads a ghz stream one frame at a time, in memory bounded
 * by the reader limit (max_frame_bytes: no frame that decodes to more is buffered),
 * validating each header before trusting its sizes. */
#ifndef GHZ_TOOLS_CLI_FRAMES_H
#define GHZ_TOOLS_CLI_FRAMES_H

#include <stdint.h>

#include "ghz/codec/codec.h"
#include "ghz/codec/fixed.h"
#include "io.h"

/* A validated frame header of either mode; a stream may hold frames of both (each
 * frame is self-describing: FIXED.md's byte 9 is FORMAT.md's eb_mode). */
typedef struct {
    int fixed;            /* 1: a fixed-rate frame (FIXED.md, mode 3), described by fx;
                             0: an error-bounded frame (FORMAT.md), described by eb */
    ghz_dtype_t dtype;    /* what both modes share */
    uint64_t n;
    uint64_t frame_size;
    ghz_frame_info_t eb;
    ghz_fixed_info_t fx;
} cli_frame_info;

typedef struct {
    cli_in* in;
    unsigned char* buf; /* the current frame, buf[0..info.frame_size) */
    size_t cap;
    uint64_t index;     /* frames returned so far: the current one is index - 1 */
    uint64_t offset;    /* byte offset of the current frame in the input */
    ghz_dtype_t dtype;  /* the stream's dtype, once a frame was read */
    uint64_t max_frame_bytes; /* the reader limit: largest frame accepted, in decoded
                                 bytes (0 = none); GHZ_FRAME_LIMIT_DEFAULT after init */
} cli_frame_reader;

void cli_frames_init(cli_frame_reader* r, cli_in* in);
void cli_frames_free(cli_frame_reader* r);

/* Reads the next frame (of either mode) into r->buf and its validated header into
 * *info.
 * Returns 1 for a frame, 0 at the clean end of the stream (after at least one
 * frame), or -1 after reporting the error: empty input, truncated or corrupted
 * frame, foreign data, a change of dtype, a frame above the reader limit (judged on
 * its 64 header bytes, before the rest is read), or a read error. The frame's code bytes
 * and payload (error-bounded) or blocks (fixed-rate) are checked by the decoder,
 * not here. */
int cli_frames_next(cli_frame_reader* r, cli_frame_info* info);

#endif
