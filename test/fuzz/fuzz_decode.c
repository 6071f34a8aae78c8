/* test/fuzz/fuzz_decode.c: libFuzzer target of the stream reader and decoder. Any
 * byte string goes through every host reader of the C API: ghz_frame_info,
 * ghz_stream_info, ghz_decompress and ghz_decompress_mt. The contract under test
 * (codec.h): a reader returns a status and never reads or writes out of bounds,
 * hangs or trips a sanitizer; and the readers agree with each other.
 *
 * Ratio frames (RATIO.md) go through the same readers. Unlike block frames (at most 32
 * values per byte of codes) they have no floor on bytes per value: a frame of equal
 * values codes to a few bytes for any n, so a small input may announce gigabytes of
 * output that are valid. Streams that decode to more than DECODE_LIMIT bytes are not
 * decoded in full: the readers must then refuse the small output buffer and the
 * reader limit instead. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "ghz/ghz.h"

/* The most decoded bytes a stream is fully decoded to (8 MiB, 10 runs a second). */
#define DECODE_LIMIT ((uint64_t)8 << 20)

/* Whether the stream's frames (walked by their headers, as far as they are valid)
 * include a ratio frame. */
static int has_ratio_frame(const uint8_t* data, size_t size)
{
    ghz_frame_info_t fi;
    size_t at = 0;
    while (at < size && ghz_frame_info(data + at, size - at, &fi) == GHZ_SUCCESS) {
        if (fi.prefer == GHZ_PREFER_RATIO) return 1;
        if (fi.frame_size == 0) break;
        at += (size_t)fi.frame_size;
    }
    return 0;
}

/* A stream too large to decode here: the readers refuse a small buffer and a reader
 * limit below the stream's first frame, without touching more than they were given. */
static void refuse_large(const uint8_t* data, size_t size)
{
    uint8_t small[64];
    size_t n = 0;
    ghz_dparams_t d = GHZ_DPARAMS_INIT;
    ghz_frame_info_t fi;
    FUZZ_CHECK(ghz_decompress(data, size, small, sizeof small, &n) != GHZ_SUCCESS);
    if (ghz_frame_info(data, size, &fi) == GHZ_SUCCESS && fi.n > sizeof small / 4) {
        d.max_frame_bytes = sizeof small;
        FUZZ_CHECK(ghz_decompress_ex(&d, data, size, small, sizeof small, &n) == GHZ_ERR_LIMIT);
    }
}

/* ghz_frame_shape on the first frame: the extents multiply to its n; and when it
 * refuses a frame the decoder has to refuse it too. */
static void check_shape(const uint8_t* data, size_t size, const ghz_frame_info_t* info,
                        ghz_status_t st_dec, int single)
{
    uint64_t d[3] = {0, 0, 0};
    ghz_status_t st = ghz_frame_shape(data, size, d);
    if (st == GHZ_SUCCESS) {
        FUZZ_CHECK(info->n == 0 || (d[0] >= 1 && d[1] >= 1 && d[2] >= 1));
        FUZZ_CHECK(info->n == 0 || d[0] * d[1] * d[2] == info->n);
        if (info->prefer != GHZ_PREFER_RATIO) FUZZ_CHECK(d[0] == info->n && d[1] == 1 && d[2] == 1);
    } else if (single) {
        FUZZ_CHECK(st_dec != GHZ_SUCCESS);
    }
}

/* A mutation inside a checksummed frame mostly ends at the checksum. So that the
 * decoder behind it is fuzzed too, the first frame is also decoded after its checksum
 * is made right again: flag cleared, ghz_frame_add_checksum. */
static void reseal_first_frame(const uint8_t* data, size_t size)
{
    ghz_frame_info_t info;
    size_t body, sealed = 0, n = 0;
    uint8_t *copy, *out;
    if (ghz_frame_info(data, size, &info) != GHZ_SUCCESS || !info.has_checksum ||
        info.n > DECODE_LIMIT / ghz_dtype_size(info.dtype))
        return;
    body = (size_t)info.frame_size - GHZ_CHECKSUM_SIZE;
    copy = (uint8_t*)malloc(body + GHZ_CHECKSUM_SIZE);
    out = (uint8_t*)malloc((size_t)info.n * ghz_dtype_size(info.dtype) + 1);
    FUZZ_CHECK(copy && out);
    memcpy(copy, data, body);
    copy[11] &= (uint8_t)~2u; /* FORMAT.md: flag bit 1, checksum present */
    if (ghz_frame_add_checksum(copy, body, body + GHZ_CHECKSUM_SIZE, &sealed) == GHZ_SUCCESS) {
        FUZZ_CHECK(sealed == info.frame_size);
        if (ghz_decompress(copy, sealed, out, (size_t)info.n * ghz_dtype_size(info.dtype), &n) ==
            GHZ_SUCCESS)
            FUZZ_CHECK(n == info.n);
    }
    free(copy);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ghz_frame_info_t info;
    uint64_t total = 0, frames = 0;
    ghz_dtype_t t = GHZ_F32;
    ghz_status_t st_info, st_stream, st_dec, st_mt;
    size_t n1 = 0, n2 = 0, cap;
    uint8_t *out1, *out2;

    st_info = ghz_frame_info(data, size, &info);
    if (st_info == GHZ_SUCCESS) FUZZ_CHECK(info.frame_size <= size);
    st_stream = ghz_stream_info(data, size, &total, &frames, &t);
    /* A valid block frame announces at most 32 values per byte of codes, so a stream of
     * block frames that passes ghz_stream_info needs at most 256 bytes of output per
     * input byte; ratio frames have no such floor (see the top). */
    if (st_stream == GHZ_SUCCESS) FUZZ_CHECK(total <= 32u * (uint64_t)size || has_ratio_frame(data, size));
    if (st_stream == GHZ_SUCCESS && total > DECODE_LIMIT / ghz_dtype_size(t)) {
        refuse_large(data, size);
        return 0;
    }
    cap = st_stream == GHZ_SUCCESS ? (size_t)total * ghz_dtype_size(t) : 4096;
    out1 = (uint8_t*)malloc(cap + 1);
    out2 = (uint8_t*)malloc(cap + 1);
    FUZZ_CHECK(out1 && out2);
    st_dec = ghz_decompress(data, size, out1, cap, &n1);
    st_mt = ghz_decompress_mt(data, size, out2, cap, &n2, 2);
    /* The serial and threaded decoders reach the same verdict and the same values. */
    FUZZ_CHECK(st_dec == st_mt);
    if (st_dec == GHZ_SUCCESS) {
        /* Decoding succeeds only on what the stream walk accepts, and writes it all. */
        FUZZ_CHECK(st_stream == GHZ_SUCCESS);
        FUZZ_CHECK(n1 == total && n2 == total);
        FUZZ_CHECK(memcmp(out1, out2, cap) == 0);
    }
    FUZZ_CHECK(ghz_status_string(st_dec) != NULL && ghz_last_error_detail() != NULL);
    if (st_info == GHZ_SUCCESS) check_shape(data, size, &info, st_dec, info.frame_size == size);
    free(out1);
    free(out2);
    reseal_first_frame(data, size);
    return 0;
}
