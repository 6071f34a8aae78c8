/* examples/image_stacking/image_io.c: raw float32 and PGM frames in, PGM out, and the
 * display stretch (image_io.h). */
#include "image_io.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char err[IMG_ERR_LEN], const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, IMG_ERR_LEN, fmt, ap);
    va_end(ap);
    return -1;
}

/* One PGM header token: a decimal number after whitespace and '#' comments. */
static int pgm_number(FILE* fp, unsigned long* v)
{
    int c = fgetc(fp);
    for (;;) {
        while (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            c = fgetc(fp);
        if (c != '#')
            break;
        while (c != '\n' && c != EOF)
            c = fgetc(fp);
    }
    if (c < '0' || c > '9')
        return -1;
    unsigned long x = 0;
    while (c >= '0' && c <= '9') {
        if (x > 100000000UL)
            return -1;
        x = x * 10 + (unsigned long)(c - '0');
        c = fgetc(fp);
    }
    /* exactly one whitespace character ends the header's last number */
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
        return -1;
    *v = x;
    return 0;
}

int img_probe(const char* path, size_t width, size_t height, img_file_t* info,
              char err[IMG_ERR_LEN])
{
    memset(info, 0, sizeof *info);
    FILE* fp = fopen(path, "rb");
    if (!fp)
        return fail(err, "%s: %s", path, strerror(errno));
    unsigned char magic[2] = {0, 0};
    size_t got = fread(magic, 1, 2, fp);
    if (got == 2 && magic[0] == 'P' && magic[1] == '5') {
        unsigned long w, h, maxval;
        if (pgm_number(fp, &w) || pgm_number(fp, &h) || pgm_number(fp, &maxval) || w == 0 ||
            h == 0 || maxval == 0 || maxval > 65535) {
            fclose(fp);
            return fail(err, "%s: not a valid binary PGM header", path);
        }
        info->pgm = 1;
        info->width = w;
        info->height = h;
        info->frames = 1;
        info->maxval = (unsigned)maxval;
        info->data_offset = ftell(fp);
        fclose(fp);
        return 0;
    }
    if (width == 0 || height == 0) {
        fclose(fp);
        return fail(err, "%s: raw float32 frames need --width and --height", path);
    }
    if (fseek(fp, 0, SEEK_END) != 0) {
        fclose(fp);
        return fail(err, "%s: cannot seek (a raw frame file must be a regular file)", path);
    }
    long size = ftell(fp);
    fclose(fp);
    const size_t frame = width * height * sizeof(float);
    if (size <= 0 || (size_t)size % frame != 0)
        return fail(err, "%s: %ld bytes is not a whole number of %zu x %zu float32 frames",
                    path, size, width, height);
    info->width = width;
    info->height = height;
    info->frames = (size_t)size / frame;
    return 0;
}

int img_read_frame(const char* path, const img_file_t* info, size_t index, float* out,
                   char err[IMG_ERR_LEN])
{
    const size_t n = info->width * info->height;
    if (index >= info->frames)
        return fail(err, "%s: no frame %zu", path, index);
    FILE* fp = fopen(path, "rb");
    if (!fp)
        return fail(err, "%s: %s", path, strerror(errno));
    int rc = 0;
    if (!info->pgm) {
        if (fseek(fp, (long)(index * n * sizeof(float)), SEEK_SET) != 0 ||
            fread(out, sizeof(float), n, fp) != n)
            rc = fail(err, "%s: short read of frame %zu", path, index);
        /* the files are little-endian; swap on a big-endian host */
        const uint16_t one = 1;
        if (rc == 0 && *(const unsigned char*)&one == 0) {
            for (size_t i = 0; i < n; i++) {
                unsigned char* b = (unsigned char*)&out[i];
                unsigned char t0 = b[0], t1 = b[1];
                b[0] = b[3];
                b[1] = b[2];
                b[2] = t1;
                b[3] = t0;
            }
        }
    } else {
        const size_t bps = info->maxval > 255 ? 2 : 1; /* bytes per sample, big-endian */
        unsigned char* row = malloc(info->width * bps);
        if (!row || fseek(fp, info->data_offset, SEEK_SET) != 0)
            rc = fail(err, "%s: cannot read the samples", path);
        for (size_t j = 0; rc == 0 && j < info->height; j++) {
            if (fread(row, bps, info->width, fp) != info->width) {
                rc = fail(err, "%s: truncated PGM (row %zu of %zu)", path, j, info->height);
                break;
            }
            for (size_t i = 0; i < info->width; i++)
                out[j * info->width + i] =
                    bps == 2 ? (float)((row[2 * i] << 8) | row[2 * i + 1]) : (float)row[i];
        }
        free(row);
    }
    fclose(fp);
    return rc;
}

int img_write_pgm16(const char* path, const float* v, size_t width, size_t height,
                    double lo, double hi, char err[IMG_ERR_LEN])
{
    FILE* fp = fopen(path, "wb");
    if (!fp)
        return fail(err, "%s: %s", path, strerror(errno));
    fprintf(fp, "P5\n# ghz-image-stacking: 0 = %.9g, 65535 = %.9g\n%zu %zu\n65535\n", lo, hi,
            width, height);
    const double scale = hi > lo ? 65535.0 / (hi - lo) : 0.0;
    int bad = 0;
    for (size_t i = 0; i < width * height && !bad; i++) {
        double x = ((double)v[i] - lo) * scale;
        x = x < 0.0 ? 0.0 : (x > 65535.0 ? 65535.0 : x);
        unsigned s = (unsigned)(x + 0.5);
        unsigned char b[2] = {(unsigned char)(s >> 8), (unsigned char)s};
        bad = fwrite(b, 1, 2, fp) != 2;
    }
    if (fclose(fp) != 0 || bad)
        return fail(err, "%s: write error", path);
    return 0;
}

static int cmp_float(const void* a, const void* b)
{
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

void img_stretch8(const float* v, size_t n, unsigned char* out)
{
    if (n == 0)
        return;
    /* the sky level and its spread from an evenly spaced sample (a median is enough
     * for a display; sorting every pixel is not needed) */
    size_t m = n < 65536 ? n : 65536;
    float* s = malloc(m * sizeof *s);
    double sky = 0.0, spread = 1.0, vmax = -HUGE_VAL;
    for (size_t i = 0; i < n; i++)
        vmax = fmax(vmax, (double)v[i]);
    if (s) {
        for (size_t k = 0; k < m; k++)
            s[k] = v[(size_t)((double)k * (double)n / (double)m)];
        qsort(s, m, sizeof *s, cmp_float);
        sky = s[m / 2];
        spread = (double)s[m * 84 / 100] - sky; /* about one sigma of the sky */
        free(s);
    }
    if (!(spread > 0.0))
        spread = 1.0;
    const double top = asinh((vmax - sky) / spread);
    for (size_t i = 0; i < n; i++) {
        double x = (double)v[i] - sky;
        double y = x <= -spread ? 0.0 : (asinh(x / spread) + 0.9) / (top + 0.9);
        y = y < 0.0 ? 0.0 : (y > 1.0 ? 1.0 : y);
        out[i] = (unsigned char)(255.0 * y + 0.5);
    }
}
