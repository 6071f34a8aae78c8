/* examples/image_stacking/image_png.c: an 8-bit gray PNG writer with no library.
 *
 * PNG needs its image data as a zlib stream, but zlib allows "stored" (uncompressed)
 * deflate blocks, so no compressor is needed: the file is a few percent larger than
 * the raw pixels, and any viewer reads it. Pieces (RFC 1950, 1951, PNG spec):
 *   signature, IHDR (size, bit depth 8, colour type 0 = gray), IDAT, IEND; each chunk
 *   is length (big-endian), type, data, CRC-32 of type and data;
 *   IDAT data = zlib header 78 01, stored blocks (BFINAL bit, type 00, LEN, ~LEN, bytes)
 *   of the filtered rows (filter byte 0 before each row), then Adler-32 big-endian. */
#include "image_io.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc_update(uint32_t crc, const unsigned char* p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

static void put32(unsigned char* p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static int write_chunk(FILE* fp, const char type[4], const unsigned char* data, size_t n)
{
    unsigned char len[4], crc[4];
    put32(len, (uint32_t)n);
    uint32_t c = crc_update(0xFFFFFFFFu, (const unsigned char*)type, 4);
    c = crc_update(c, data, n) ^ 0xFFFFFFFFu;
    put32(crc, c);
    return fwrite(len, 1, 4, fp) == 4 && fwrite(type, 1, 4, fp) == 4 &&
                   (n == 0 || fwrite(data, 1, n, fp) == n) && fwrite(crc, 1, 4, fp) == 4
               ? 0
               : -1;
}

int img_write_png8(const char* path, const unsigned char* px, size_t width, size_t height,
                   char err[IMG_ERR_LEN])
{
    if (width == 0 || height == 0 || width > 0x7FFFFFFF || height > 0x7FFFFFFF) {
        snprintf(err, IMG_ERR_LEN, "%s: bad PNG size %zu x %zu", path, width, height);
        return -1;
    }
    crc_init();
    /* the filtered image: a 0 (no filter) before each row */
    const size_t raw_n = (width + 1) * height;
    const size_t nblocks = (raw_n + 65534) / 65535;
    const size_t z_n = 2 + raw_n + 5 * nblocks + 4;
    unsigned char* z = malloc(z_n);
    if (!z) {
        snprintf(err, IMG_ERR_LEN, "%s: out of memory", path);
        return -1;
    }
    unsigned char* o = z;
    *o++ = 0x78; /* deflate, 32 KiB window */
    *o++ = 0x01; /* no preset dictionary; (0x78 << 8 | 0x01) % 31 == 0 */
    uint32_t a = 1, b = 0; /* Adler-32 of the uncompressed bytes */
    size_t pos = 0;        /* position in the filtered image */
    for (size_t blk = 0; blk < nblocks; blk++) {
        size_t len = raw_n - pos < 65535 ? raw_n - pos : 65535;
        *o++ = blk + 1 == nblocks ? 1 : 0; /* BFINAL, BTYPE = 00 (stored) */
        *o++ = (unsigned char)(len & 0xFF);
        *o++ = (unsigned char)(len >> 8);
        *o++ = (unsigned char)(~len & 0xFF);
        *o++ = (unsigned char)((~len >> 8) & 0xFF);
        for (size_t k = 0; k < len; k++, pos++) {
            size_t row = pos / (width + 1), col = pos % (width + 1);
            unsigned char v = col == 0 ? 0 : px[row * width + col - 1];
            *o++ = v;
            a = (a + v) % 65521u;
            b = (b + a) % 65521u;
        }
    }
    put32(o, (b << 16) | a);
    o += 4;

    unsigned char ihdr[13];
    put32(ihdr, (uint32_t)width);
    put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 0;  /* gray */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering (each row says its filter) */
    ihdr[12] = 0; /* not interlaced */
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

    FILE* fp = fopen(path, "wb");
    int rc = fp ? 0 : -1;
    if (rc == 0)
        rc = (fwrite(sig, 1, 8, fp) == 8 && write_chunk(fp, "IHDR", ihdr, 13) == 0 &&
              write_chunk(fp, "IDAT", z, (size_t)(o - z)) == 0 &&
              write_chunk(fp, "IEND", NULL, 0) == 0)
                 ? 0
                 : -1;
    if (fp && fclose(fp) != 0)
        rc = -1;
    free(z);
    if (rc != 0)
        snprintf(err, IMG_ERR_LEN, "%s: cannot write: %s", path, strerror(errno));
    return rc;
}
