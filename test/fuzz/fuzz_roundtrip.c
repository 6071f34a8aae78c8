/* test/fuzz/fuzz_roundtrip.c: libFuzzer target of the encoder. The first 16 bytes pick
 * the parameters (dtype, mode, bound, fill value, checksum, and prefer ratio with a
 * shape of 1 to 3 dimensions), the rest are the values, bit patterns of any kind (NaN
 * payloads, denormals, infinities). The properties: compression succeeds within
 * ghz_compress_bound (+ the checksum), decompression returns every value within the
 * header's eb_abs, and NaN, Inf and fill values bit for bit; a ratio frame holds the
 * shape it was asked for.
 *
 * Parameter bytes: [0] bit 0 f64, bit 1 REL, bit 2 fill, bit 3 checksum, bit 4 prefer
 * ratio; [1], [2] the bound; [3] % 3 the dimensions (1, 2, 3); [4], [5] the fastest
 * extents, 1 + byte % 64 (the slowest takes the rest; the values beyond a whole
 * number of its rows are left out); [8..15] the fill value. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "ghz/ghz.h"

/* |x - y| <= e exactly: the difference of two doubles is exact in long double when
 * their exponents are close, and otherwise far larger than any usable bound. */
static int within(double x, double y, double e)
{
    long double d = (long double)x - (long double)y;
    return fabsl(d) <= (long double)e;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    ghz_frame_info_t info;
    size_t elem, n, cap, csize = 0, n_out = 0, i;
    uint8_t *frame, *back;
    uint64_t fbits;
    unsigned ndims, ext[2];
    double e;

    if (size < 16) return 0;
    p.dtype = (data[0] & 1) ? GHZ_F64 : GHZ_F32;
    p.eb_mode = (data[0] & 2) ? GHZ_EB_REL : GHZ_EB_ABS;
    p.has_fill = (data[0] & 4) != 0;
    p.checksum = (data[0] & 8) != 0;
    p.prefer = (data[0] & 16) ? GHZ_PREFER_RATIO : GHZ_PREFER_SPEED;
    /* A bound from 2^-40 to 2^23, as mantissa bits from the input. */
    p.eb = ldexp(1.0 + data[1] / 256.0, (int)(data[2] % 64) - 40);
    ndims = 1u + data[3] % 3u;
    ext[0] = data[4];
    ext[1] = data[5];
    memcpy(&fbits, data + 8, 8);
    elem = ghz_dtype_size(p.dtype);
    if (p.dtype == GHZ_F32) {
        float f;
        uint32_t u = (uint32_t)fbits;
        memcpy(&f, &u, 4);
        p.fill = f;
    } else {
        memcpy(&p.fill, &fbits, 8);
    }
    data += 16;
    size -= 16;
    n = size / elem;
    if (p.prefer == GHZ_PREFER_RATIO && ndims > 1) {
        const size_t a = 1u + ext[0] % 64u, b = ndims == 3 ? 1u + ext[1] % 64u : 1u;
        if (n / (a * b) > 0) {
            p.dims[0] = a;
            p.dims[1] = ndims == 3 ? b : n / a;
            p.dims[2] = ndims == 3 ? n / (a * b) : 1;
            n = p.dims[0] * p.dims[1] * p.dims[2];
        }
    }
    cap = ghz_compress_bound(n, p.dtype) + GHZ_CHECKSUM_SIZE;
    frame = (uint8_t*)malloc(cap);
    back = (uint8_t*)malloc(n * elem + 1);
    FUZZ_CHECK(frame && back);
    if (ghz_compress(&p, data, n, frame, cap, &csize) == GHZ_SUCCESS) {
        FUZZ_CHECK(csize <= cap);
        FUZZ_CHECK(ghz_frame_info(frame, csize, &info) == GHZ_SUCCESS);
        FUZZ_CHECK(info.frame_size == csize && info.n == n);
        {
            /* the shape asked for (extents of 1 and 0 alike), or n for a block frame */
            uint64_t d[3];
            FUZZ_CHECK(ghz_frame_shape(frame, csize, d) == GHZ_SUCCESS);
            if (info.prefer == GHZ_PREFER_RATIO && p.dims[0])
                FUZZ_CHECK(d[0] == p.dims[0] && d[1] == (p.dims[1] ? p.dims[1] : 1) &&
                           d[2] == (p.dims[2] ? p.dims[2] : 1));
            else
                FUZZ_CHECK(d[0] == n && d[1] == 1 && d[2] == 1);
            FUZZ_CHECK(info.prefer == GHZ_PREFER_SPEED || p.prefer == GHZ_PREFER_RATIO);
        }
        FUZZ_CHECK(ghz_decompress(frame, csize, back, n * elem, &n_out) == GHZ_SUCCESS);
        FUZZ_CHECK(n_out == n);
        e = info.eb_abs;
        for (i = 0; i < n; ++i) {
            double x, y;
            uint64_t bx = 0, by = 0;
            if (p.dtype == GHZ_F32) {
                float fx, fy;
                memcpy(&fx, data + 4 * i, 4);
                memcpy(&fy, back + 4 * i, 4);
                memcpy(&bx, &fx, 4);
                memcpy(&by, &fy, 4);
                x = fx;
                y = fy;
            } else {
                memcpy(&x, data + 8 * i, 8);
                memcpy(&y, back + 8 * i, 8);
                memcpy(&bx, &x, 8);
                memcpy(&by, &y, 8);
            }
            if (!isfinite(x) || (info.has_fill && bx == info.fill_bits) || e == 0.0)
                FUZZ_CHECK(bx == by);
            else
                FUZZ_CHECK(isfinite(y) && within(x, y, e));
        }
    } else {
        /* Only a REL bound whose range makes E or 2E overflow may be refused. */
        FUZZ_CHECK(p.eb_mode == GHZ_EB_REL);
    }
    free(frame);
    free(back);
    return 0;
}
