/* test/readme/driver.c: runs the CPU examples of README.md (test/readme/CMakeLists.txt
 * extracts them) on generated data and checks what they return:
 *  - roundtrip(): every value within the bound it states (REL 1e-3 of the range);
 *  - add_compressed(): two frames compressed under one ABS bound, summed; the sum
 *    decompresses to n values within 3 bounds of x + y (each input within one bound,
 *    the sum recompressed under one more);
 *  - add_compressed() given a frame that is not one fails with a status, not a crash.
 * Exit status 0 when every check passes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ghz/ghz.h>
#include <ghz/homo/homo.h>

/* the README's functions */
int roundtrip(const float* x, float* y, size_t n);
ghz_status_t add_compressed(const void* a, size_t a_size, const void* b, size_t b_size,
                            void** sum, size_t* sum_size);

#define N 10000

static int failures = 0;
static void check(int ok, const char* what)
{
    printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) ++failures;
}

static void* compress_abs(const float* x, size_t n, double eb, size_t* size)
{
    ghz_params_t p = GHZ_PARAMS_INIT;
    size_t cap = ghz_compress_bound(n, GHZ_F32);
    void* buf = malloc(cap);
    p.eb_mode = GHZ_EB_ABS;
    p.eb = eb;
    if (!buf || ghz_compress(&p, x, n, buf, cap, size) != GHZ_SUCCESS) {
        free(buf);
        return NULL;
    }
    return buf;
}

int main(void)
{
    static float x[N], y[N], z[N];
    float lo = INFINITY, hi = -INFINITY;
    double worst = 0, eb = 1e-3;
    size_t i, a_size = 0, b_size = 0, s_size = 0, n_out = 0;
    void *a, *b, *s = NULL;
    int ok;

    printf("%s", GHZ_README_SUMMARY);
    for (i = 0; i < N; ++i) {
        x[i] = (float)(sin(0.01 * (double)i) * 100.0 + 0.001 * (double)(i % 7));
        y[i] = (float)(cos(0.003 * (double)i) * 50.0);
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
    }

    /* roundtrip: REL 1e-3 of max - min */
    ok = roundtrip(x, z, N) == 0;
    for (i = 0; ok && i < N; ++i)
        if (fabs((double)z[i] - (double)x[i]) > 1e-3 * ((double)hi - (double)lo)) ok = 0;
    check(ok, "roundtrip(): every value within 1e-3 * (max - min)");

    /* add_compressed: a + b under ABS eb */
    a = compress_abs(x, N, eb, &a_size);
    b = compress_abs(y, N, eb, &b_size);
    check(a && b, "two frames compressed under ABS 1e-3");
    if (!a || !b) return 1;
    ok = add_compressed(a, a_size, b, b_size, &s, &s_size) == GHZ_SUCCESS && s;
    check(ok, "add_compressed() returns GHZ_SUCCESS and a frame");
    if (ok) ok = ghz_decompress(s, s_size, z, sizeof z, &n_out) == GHZ_SUCCESS && n_out == N;
    for (i = 0; ok && i < N; ++i) {
        double e = fabs((double)z[i] - ((double)x[i] + (double)y[i]));
        if (e > worst) worst = e;
    }
    ok = ok && worst <= 3 * eb * (1 + 1e-6);
    printf("      max |decompress(sum) - (x + y)| = %.3g (3 bounds: %.3g)\n", worst, 3 * eb);
    check(ok, "the sum decompresses to x + y within 3 bounds");
    free(s);
    s = NULL;

    /* a frame that is not one: a status, no result */
    ((unsigned char*)b)[0] ^= 0xff;
    ok = add_compressed(a, a_size, b, b_size, &s, &s_size) != GHZ_SUCCESS && !s;
    check(ok, "add_compressed() of a corrupt frame fails with a status");
    free(a);
    free(b);
    printf("%s\n", failures ? "README examples: FAILED" : "README examples: all checks passed");
    return failures ? 1 : 0;
}
