/* test/consumer/main.c: compresses and decompresses 1000 floats through an installed
 * ghz and checks the error bound. Exit status 0 when everything holds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ghz/ghz.h>

#define N 1000

int main(void)
{
    static float x[N], y[N];
    static unsigned char z[GHZ_COMPRESS_BOUND(N, GHZ_F32)];
    for (int i = 0; i < N; i++)
        x[i] = (float)(sin(0.01 * i) * 100.0 + 0.001 * i * i);

    if (ghz_version_number() != GHZ_VERSION_NUMBER) {
        fprintf(stderr, "header version %d, library version %u\n", GHZ_VERSION_NUMBER,
                ghz_version_number());
        return 1;
    }
    if (ghz_compress_bound(N, GHZ_F32) != sizeof z) {
        fprintf(stderr, "ghz_compress_bound disagrees with GHZ_COMPRESS_BOUND\n");
        return 1;
    }

    ghz_params_t p = GHZ_PARAMS_INIT;
    p.dtype = GHZ_F32;
    p.eb_mode = GHZ_EB_ABS;
    p.eb = 1e-3;
    size_t zsize = 0, nout = 0;
    ghz_status_t st = ghz_compress(&p, x, N, z, sizeof z, &zsize);
    if (st == GHZ_SUCCESS)
        st = ghz_decompress(z, zsize, y, sizeof y, &nout);
    if (st != GHZ_SUCCESS) {
        fprintf(stderr, "ghz: %s: %s\n", ghz_status_string(st), ghz_last_error_detail());
        return 1;
    }
    if (nout != N) {
        fprintf(stderr, "decoded %zu values, expected %d\n", nout, N);
        return 1;
    }
    double max_err = 0.0;
    for (int i = 0; i < N; i++) {
        double e = fabs((double)x[i] - (double)y[i]);
        if (!(e <= p.eb)) {
            fprintf(stderr, "value %d: |%.9g - %.9g| > %g\n", i, x[i], y[i], p.eb);
            return 1;
        }
        if (e > max_err)
            max_err = e;
    }
    printf("ghz %s: %d floats -> %zu bytes (ratio %.2f), max error %.3g <= %g\n",
           GHZ_VERSION_STRING, N, zsize, (double)sizeof x / (double)zsize, max_err, p.eb);
    return 0;
}
