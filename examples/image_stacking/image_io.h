/* examples/image_stacking/image_io.h: the frame files ghz-image-stacking reads and the
 * images it writes. Raw little-endian float32 (one or more width x height frames per
 * file, x fastest), binary PGM (P5, 8 or 16 bits), and 8-bit gray PNG written without
 * any library (image_png.c). Functions return 0 or -1 with a message in err. */
#ifndef GHZ_EXAMPLES_IMAGE_IO_H
#define GHZ_EXAMPLES_IMAGE_IO_H

#include <stddef.h>

#define IMG_ERR_LEN 256

/* What one frame file holds. */
typedef struct {
    int pgm;       /* 1: binary PGM, one frame; 0: raw float32 */
    size_t width;  /* from the PGM header, or the caller's for raw files */
    size_t height;
    size_t frames; /* raw: file size / (width * height * 4) */
    unsigned maxval;        /* PGM only */
    long data_offset;       /* PGM only: where the samples start */
} img_file_t;

/* Looks at path: a file starting with "P5" is a PGM (its header is parsed), any other
 * is raw float32 of width x height (both > 0 needed, and a size that is a multiple of
 * a frame). */
int img_probe(const char* path, size_t width, size_t height, img_file_t* info,
              char err[IMG_ERR_LEN]);

/* Reads frame `index` of the file into out[width * height] as floats (PGM samples as
 * their integer values). */
int img_read_frame(const char* path, const img_file_t* info, size_t index, float* out,
                   char err[IMG_ERR_LEN]);

/* A 16-bit PGM of v scaled linearly from [lo, hi] to [0, 65535]. */
int img_write_pgm16(const char* path, const float* v, size_t width, size_t height,
                    double lo, double hi, char err[IMG_ERR_LEN]);

/* An 8-bit gray PNG of already stretched samples (image_png.c). */
int img_write_png8(const char* path, const unsigned char* px, size_t width, size_t height,
                   char err[IMG_ERR_LEN]);

/* A display stretch for astronomical images: asinh((v - sky) / soft) mapped so that
 * the sky (median) is dark and the brightest value is 255. */
void img_stretch8(const float* v, size_t n, unsigned char* out);

#endif
