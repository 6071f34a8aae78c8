/* test/unit/header_c99.c: the public headers compile as strict C99 (-std=c99 -pedantic
 * -Wall -Wextra -Werror) and work from such a translation unit. Not a Criterion test:
 * the point is the compilation; main() checks a few things the headers promise. */
#include "ghz/ghz.h"
#include "ghz/codec/block.h"
#include "ghz/codec/fixed.h"

#include <stdio.h>

/* GHZ_COMPRESS_BOUND is a constant expression. */
static unsigned char frame[GHZ_COMPRESS_BOUND(40, GHZ_F32)];
/* ... and so is GHZ_FIXED_SIZE; the union keeps the frame aligned for the accessor. */
static union {
    unsigned char b[GHZ_FIXED_SIZE(40, 16)];
    double align;
} fixed;

int main(void)
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    ghz_buf_t b = GHZ_BUF_INIT;
    float in[40];
    float out[40];
    size_t size = 0, n_out = 0;
    int i;
    ghz_status_t st;
    for (i = 0; i < 40; i++) in[i] = (float)i * 0.25f;
    p.eb_mode = GHZ_EB_ABS;
    p.eb = 0.01;
    st = ghz_compress(&p, in, 40, frame, sizeof frame, &size);
    if (st != GHZ_SUCCESS) {
        fprintf(stderr, "compress: %s\n", ghz_status_string(st));
        return 1;
    }
    st = ghz_decompress(frame, size, out, sizeof out, &n_out);
    if (st != GHZ_SUCCESS || n_out != 40) {
        fprintf(stderr, "decompress: %s\n", ghz_status_string(st));
        return 1;
    }
    for (i = 0; i < 40; i++)
        if (out[i] - in[i] > 0.01f || in[i] - out[i] > 0.01f) return 1;
    st = ghz_fixed_compress(GHZ_F32, 16, in, 40, fixed.b, sizeof fixed.b, &size);
    if (st != GHZ_SUCCESS || size != sizeof fixed.b || size != ghz_fixed_size(40, 16)) return 1;
    {
        ghz_fixed_view_t v = ghz_fixed_view_make(fixed.b, GHZ_F32, 16, 40);
        for (i = 0; i < 40; i++)
            if (ghz_fixed_load_f32(&v, (uint64_t)i) - in[i] > 1e-3f ||
                in[i] - ghz_fixed_load_f32(&v, (uint64_t)i) > 1e-3f)
                return 1;
    }
    if (ghz_version_number() != GHZ_VERSION_NUMBER || ghz_dtype_size(GHZ_F64) != 8 ||
        b.struct_size != sizeof b || sizeof frame != 64 + 16 + 160 ||
        ghz_zigzag(-1) != 1u)
        return 1;
    return 0;
}
