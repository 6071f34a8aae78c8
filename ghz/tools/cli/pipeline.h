/* ghz/tools/cli/pipeline.h: the chunked compression loop that compress, roundtrip
 * and stat share. The raw input is cut into chunks of frame_elems values; each chunk
 * becomes one frame (compressed by the backend: ghz_compress, or the CUDA codec;
 * with fixed_bits, a fixed-rate frame of FIXED.md),
 * which goes to an optional output, and is optionally decompressed again (by the
 * same backend) to an output and/or compared with the chunk. Memory stays bounded
 * by a few chunks, except for REL input from a pipe (see below). */
#ifndef GHZ_TOOLS_CLI_PIPELINE_H
#define GHZ_TOOLS_CLI_PIPELINE_H

#include <stdint.h>

#include "backend.h"
#include "ghz/codec/codec.h"
#include "io.h"
#include "metrics.h"

typedef struct {
    /* Set by the caller. */
    ghz_params_t params;  /* validated by cli_make_params; has_range is set here */
    unsigned fixed_bits;  /* 0: error-bounded frames of params; else fixed-rate frames
                             of params.dtype at l = fixed_bits (params' bound unused) */
    cli_backend* backend; /* runs the codec (cli_backend_open'ed by the caller) */
    uint64_t frame_elems; /* values per frame */
    int progress;         /* -1 auto, 0 off, 1 on */
    int has_dims;         /* the input must hold exactly dims_n values */
    uint64_t dims_n;
    uint64_t dims[3];     /* the extents (fastest first) when has_dims: with
                             params.prefer == GHZ_PREFER_RATIO frames hold whole slabs
                             of the slowest dimension and carry their shape */
    cli_in* in;           /* raw values */
    cli_out* cmp;         /* receives the frames, or NULL */
    cli_out* dec;         /* receives the decompressed values, or NULL */
    cli_metrics* metrics; /* compares decompressed with input values, or NULL */
    const char* label;    /* progress label */

    /* Results. */
    uint64_t n;             /* values read */
    uint64_t frames;        /* frames written (an empty input gives one empty frame) */
    uint64_t cmp_bytes;     /* bytes of all frames */
    double eb_abs_min;      /* eb_abs of the frame headers (equal for one stream, */
    double eb_abs_max;      /* since REL uses one global range); 0 for fixed rate */
    double range_min, range_max; /* REL: the global value range (NaN when empty) */
    double t_compress;      /* seconds spent in the backend's compress calls (cuda:
                               the host<->device copies included) and, for REL, in
                               the ghz_value_range pass (on the CPU) */
    double t_decompress;    /* seconds spent in the backend's decompress calls */
    int whole_in_memory;    /* REL from a non-seekable input: it was read whole */
} cli_pipeline;

/* Runs the pipeline. REL mode needs the value range of the whole input before the
 * first frame: a regular file is read twice (a ghz_value_range pass, then the
 * compression pass), anything else is read into memory first.
 * Returns 0, or the exit code after reporting; the caller commits or aborts the
 * outputs. */
int cli_pipeline_run(cli_pipeline* pl);

#endif
