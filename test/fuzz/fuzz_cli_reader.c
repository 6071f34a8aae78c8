/* test/fuzz/fuzz_cli_reader.c: libFuzzer target of ghz-cli's file reader
 * (ghz/tools/cli/frames.c): the input is a .ghz file, read frame by frame as
 * `ghz-cli decompress` and `info` do, each frame decoded by ghz_decompress (or
 * ghz_fixed_decompress for a fixed-rate frame, FIXED.md). Twice: as
 * a regular file of known size (the reader refuses frames longer than the file before
 * allocating) and as a pipe (it grows its buffer only as bytes arrive). The reader
 * must stop with a report, never crash, over-read or allocate what a damaged header
 * announces.
 *
 * The reader limit is set to 8 MiB of decoded bytes: a ratio frame (RATIO.md) of a few
 * bytes may validly announce up to the default 1 GiB (equal values cost no bits), which
 * the fuzzer's memory limit would take for a bug; the limit's refusal is exercised
 * instead. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "ghz/ghz.h"
#include "frames.h"
#include "io.h"
#include "progress.h"

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    FILE* null = fopen("/dev/null", "w");
    (void)argc;
    (void)argv;
    /* The reader reports every bad input on stderr; the reports are formatted (that
     * code runs) but discarded. Sanitizer reports go to file descriptor 2 directly. */
    if (null) stderr = null;
    return 0;
}

static void read_all(const uint8_t* data, size_t size, int regular)
{
    cli_in in;
    cli_frame_reader r;
    cli_frame_info info;
    uint64_t frames = 0;
    int rc;

    memset(&in, 0, sizeof in);
    in.path = in.name = "fuzz.ghz";
    in.f = fmemopen((void*)data, size, "rb");
    if (!in.f) return; /* fmemopen refuses size 0 on some libcs */
    in.regular = regular;
    in.size = regular ? size : CLI_SIZE_UNKNOWN;
    cli_frames_init(&r, &in);
    r.max_frame_bytes = (uint64_t)8 << 20;
    while ((rc = cli_frames_next(&r, &info)) == 1) {
        size_t elem = ghz_dtype_size(info.dtype), n = 0;
        void* out;
        FUZZ_CHECK(info.frame_size <= r.cap && r.offset + info.frame_size <= size);
        FUZZ_CHECK(elem != 0 && info.n * elem <= r.max_frame_bytes);
        /* block frames: at most 32 values per byte of codes; ratio frames: no floor */
        FUZZ_CHECK(info.n <= 32u * info.frame_size || (!info.fixed && info.eb.prefer == GHZ_PREFER_RATIO));
        out = malloc((size_t)info.n * elem + 1);
        FUZZ_CHECK(out != NULL);
        if ((info.fixed ? ghz_fixed_decompress : ghz_decompress)(
                r.buf, (size_t)info.frame_size, out, (size_t)info.n * elem, &n) == GHZ_SUCCESS)
            FUZZ_CHECK(n == info.n);
        free(out);
        frames++;
    }
    FUZZ_CHECK(rc == 0 || rc == -1);
    FUZZ_CHECK(rc == -1 || frames > 0);
    cli_frames_free(&r);
    fclose(in.f);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    read_all(data, size, 1);
    read_all(data, size, 0);
    return 0;
}
