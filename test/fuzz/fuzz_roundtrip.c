/* test/fuzz/fuzz_roundtrip.c: libFuzzer target of the encoder. The first 16 bytes pick
 * the parameters (dtype, mode, bound, fill value, checksum), the rest are the values,
 * bit patterns of any kind (NaN payloads, denormals, infinities). The properties:
 * compression succeeds within ghz_compress_bound (+ the checksum), decompression
 * returns every value within the header's eb_abs, and NaN, Inf and fill values bit
 * for bit. */
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
    double e;

    if (size < 16) return 0;
    p.dtype = (data[0] & 1) ? GHZ_F64 : GHZ_F32;
    p.eb_mode = (data[0] & 2) ? GHZ_EB_REL : GHZ_EB_ABS;
    p.has_fill = (data[0] & 4) != 0;
    p.checksum = (data[0] & 8) != 0;
    /* A bound from 2^-40 to 2^23, as mantissa bits from the input. */
    p.eb = ldexp(1.0 + data[1] / 256.0, (int)(data[2] % 64) - 40);
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
    cap = ghz_compress_bound(n, p.dtype) + GHZ_CHECKSUM_SIZE;
    frame = (uint8_t*)malloc(cap);
    back = (uint8_t*)malloc(n * elem + 1);
    FUZZ_CHECK(frame && back);
    if (ghz_compress(&p, data, n, frame, cap, &csize) == GHZ_SUCCESS) {
        FUZZ_CHECK(csize <= cap);
        FUZZ_CHECK(ghz_frame_info(frame, csize, &info) == GHZ_SUCCESS);
        FUZZ_CHECK(info.frame_size == csize && info.n == n);
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
