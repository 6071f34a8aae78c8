/* datasets/ghz_datagen.c: ghz-datagen, writes a generated field as a raw file.
 *
 *   ghz-datagen NAME [-t f32|f64] [-d NX NY NZ] [-s SEED] -o FILE
 *   ghz-datagen --list | --help
 *
 * The output is nx*ny*nz little-endian float32 or float64 values, x fastest, no
 * header. A one-line summary goes to stderr. Exit status: 0 success, 1 failure while
 * generating or writing, 2 usage error. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"

static const char* PROG = "ghz-datagen";

static void usage(FILE* fp)
{
    fprintf(fp,
            "usage: %s NAME [-t f32|f64] [-d NX NY NZ] [-s SEED] -o FILE\n"
            "       %s --list\n"
            "       %s --help\n"
            "\n"
            "Writes the generated field NAME as raw little-endian values (x fastest,\n"
            "no header) to FILE ('-' for standard output).\n"
            "\n"
            "  -t, --type f32|f64     element type (default f32)\n"
            "  -d, --dims NX NY NZ    dimensions (default: the field's, see --list)\n"
            "  -s, --seed SEED        64-bit seed, decimal or 0x hex (default 1)\n"
            "  -o, --output FILE      output file (required)\n"
            "  -l, --list             list the fields with their default dimensions\n"
            "  -h, --help             this help\n"
            "\n"
            "ocean2d marks land with the fill value -1e34 (float32 -1e34f; in f64 files the\n"
            "same float widened). Load with numpy: np.fromfile(FILE, dtype='<f4')\n"
            "(or '<f8'), then .reshape(NZ, NY, NX).\n",
            PROG, PROG, PROG);
}

static int usage_error(const char* fmt, const char* arg)
{
    fprintf(stderr, "%s: ", PROG);
    fprintf(stderr, fmt, arg ? arg : "");
    fprintf(stderr, "\nTry '%s --help'.\n", PROG);
    return 2;
}

static void list_fields(void)
{
    const char* const* names = ghz_ds_names();
    for (size_t i = 0; names[i]; i++) {
        size_t d[3];
        char dims[64];
        ghz_ds_default_dims(names[i], d);
        snprintf(dims, sizeof dims, "%zux%zux%zu", d[0], d[1], d[2]);
        printf("%-9s %-13s %s\n", names[i], dims, ghz_ds_description(names[i]));
    }
}

/* Parses an unsigned decimal or 0x-hex integer: the whole string, no sign. */
static int parse_u64(const char* s, unsigned long long* v)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    char* end = NULL;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno != 0 || !end || *end != '\0')
        return -1;
    *v = x;
    return 0;
}

static int host_is_big_endian(void)
{
    const unsigned short one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 0;
}

static void to_little_endian(unsigned char* p, size_t n, size_t elem)
{
    if (!host_is_big_endian())
        return;
    for (size_t e = 0; e < n; e++, p += elem)
        for (size_t a = 0, b = elem - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

int main(int argc, char** argv)
{
    const char* name = NULL;
    const char* out_path = NULL;
    const char* type = "f32";
    size_t dims[3] = {0, 0, 0};
    int have_dims = 0;
    unsigned long long seed = 1;

    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-l") == 0 || strcmp(a, "--list") == 0) {
            list_fields();
            return 0;
        } else if (strcmp(a, "-t") == 0 || strcmp(a, "--type") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs f32 or f64", a);
            type = argv[++i];
            if (strcmp(type, "f32") != 0 && strcmp(type, "f64") != 0)
                return usage_error("unknown type '%s' (f32 or f64)", type);
        } else if (strcmp(a, "-d") == 0 || strcmp(a, "--dims") == 0) {
            if (i + 3 >= argc)
                return usage_error("%s needs three dimensions NX NY NZ", a);
            for (int k = 0; k < 3; k++) {
                unsigned long long v;
                const char* s = argv[++i];
                if (parse_u64(s, &v) != 0 || v == 0 || v > (unsigned long long)SIZE_MAX)
                    return usage_error("bad dimension '%s' (a positive integer)", s);
                dims[k] = (size_t)v;
            }
            have_dims = 1;
        } else if (strcmp(a, "-s") == 0 || strcmp(a, "--seed") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a value", a);
            if (parse_u64(argv[++i], &seed) != 0)
                return usage_error("bad seed '%s' (an unsigned 64-bit integer)", argv[i]);
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a file name", a);
            out_path = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option '%s'", a);
        } else if (!name) {
            name = a;
        } else {
            return usage_error("unexpected argument '%s'", a);
        }
    }
    if (!name)
        return usage_error("no field NAME given (see --list)%s", NULL);
    if (!ghz_ds_description(name))
        return usage_error("unknown field '%s' (see --list)", name);
    if (!out_path)
        return usage_error("no output file given (-o FILE)%s", NULL);
    if (!have_dims)
        ghz_ds_default_dims(name, dims);

    const int f64 = strcmp(type, "f64") == 0;
    const size_t elem = f64 ? sizeof(double) : sizeof(float);
    if (dims[1] > SIZE_MAX / dims[0] || dims[2] > SIZE_MAX / (dims[0] * dims[1]) ||
        dims[0] * dims[1] * dims[2] > SIZE_MAX / elem) {
        fprintf(stderr, "%s: dimensions %zu x %zu x %zu are too large\n", PROG, dims[0],
                dims[1], dims[2]);
        return 1;
    }
    const size_t n = dims[0] * dims[1] * dims[2];
    const size_t bytes = n * elem;
    void* buf = malloc(bytes ? bytes : 1);
    if (!buf) {
        fprintf(stderr, "%s: out of memory (%zu bytes)\n", PROG, bytes);
        return 1;
    }
    int rc = f64 ? ghz_ds_generate_f64(name, dims[0], dims[1], dims[2], seed, (double*)buf)
                 : ghz_ds_generate(name, dims[0], dims[1], dims[2], seed, (float*)buf);
    if (rc != 0) {
        fprintf(stderr, "%s: generating %s failed: %s\n", PROG, name, ghz_ds_strerror(rc));
        free(buf);
        return 1;
    }

    /* min and max over the finite values other than the ocean fill value */
    double vmin = HUGE_VAL, vmax = -HUGE_VAL;
    size_t nfill = 0;
    for (size_t i = 0; i < n; i++) {
        double v = f64 ? ((const double*)buf)[i] : (double)((const float*)buf)[i];
        if (v == GHZ_DS_OCEAN_FILL_F64) {
            nfill++;
            continue;
        }
        if (!isfinite(v))
            continue;
        if (v < vmin)
            vmin = v;
        if (v > vmax)
            vmax = v;
    }

    to_little_endian((unsigned char*)buf, n, elem);
    errno = 0; /* what the write leaves in errno, if anything, is reported */
    const int to_stdout = strcmp(out_path, "-") == 0;
    if (to_stdout) {
        if (fwrite(buf, 1, bytes, stdout) != bytes || fflush(stdout) != 0)
            rc = GHZ_DS_ERR_WRITE;
    } else {
        rc = ghz_ds_save_raw(out_path, buf, bytes);
    }
    free(buf);
    if (rc != 0) {
        fprintf(stderr, "%s: writing %s failed: %s%s%s\n", PROG, to_stdout ? "stdout" : out_path,
                ghz_ds_strerror(rc), errno ? ": " : "", errno ? strerror(errno) : "");
        return 1;
    }

    char fill[64] = "";
    if (nfill > 0)
        snprintf(fill, sizeof fill, " fill %.1f%%", 100.0 * (double)nfill / (double)n);
    fprintf(stderr, "%s: %s %s %zux%zux%zu seed %llu min %.9g max %.9g%s bytes %zu -> %s\n",
            PROG, name, type, dims[0], dims[1], dims[2], seed, vmin, vmax, fill, bytes,
            to_stdout ? "stdout" : out_path);
    return 0;
}
