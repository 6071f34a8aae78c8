/* ghz/codec/detail/crc32c.h (private): CRC-32C (Castagnoli), the frame checksum of
 * FORMAT.md ("Checksum"), as inline code shared by the CPU reference and the CUDA
 * verifier.
 *
 * Why CRC-32C: it is linear over GF(2), so the CRC of a concatenation follows from
 * the CRCs of its parts: raw(A|B) = raw(A) * x^(8|B|) + raw(B) (mod P), where raw is
 * the CRC with a zero initial value and no final inversion. A GPU therefore computes
 * the standard CRC-32C of a whole frame in parallel: each thread the raw CRC of its
 * own segment, multiplied by x^(8 * bytes after the segment), and an XOR reduction of
 * all of them. The stored value is the plain, standard CRC-32C, which any library can
 * check. Polynomials are kept in the reflected bit order of the CRC (bit 31 = x^0). */
#ifndef GHZ_CODEC_DETAIL_CRC32C_H
#define GHZ_CODEC_DETAIL_CRC32C_H

#include <stdint.h>

#include "ghz/types.h"

/* x^32 + x^28 + x^27 + x^26 + x^25 + x^23 + x^22 + x^20 + x^19 + x^18 + x^14 + x^13 +
 * x^11 + x^10 + x^9 + x^8 + x^6 + 1, reflected. */
#define GHZ_CRC32C_POLY 0x82F63B78u
/* The polynomial 1, and x^8, in the reflected order. */
#define GHZ_CRC32C_ONE 0x80000000u
#define GHZ_CRC32C_X8 0x00800000u

/* Entry i of the byte table: the raw CRC of the single byte i. */
GHZ_HD static inline uint32_t ghz_crc32c_entry(uint32_t i)
{
    unsigned k;
    for (k = 0; k < 8; ++k) i = (i & 1u) ? (i >> 1) ^ GHZ_CRC32C_POLY : i >> 1;
    return i;
}

/* a * b mod P. */
GHZ_HD static inline uint32_t ghz_crc32c_mul(uint32_t a, uint32_t b)
{
    uint32_t p = 0;
    unsigned k;
    for (k = 0; k < 32; ++k) {
        if (a & (GHZ_CRC32C_ONE >> k)) p ^= b;
        b = (b & 1u) ? (b >> 1) ^ GHZ_CRC32C_POLY : b >> 1; /* b *= x */
    }
    return p;
}

/* x^(8n) mod P: multiplying a raw CRC by it appends n zero bytes to its message. */
GHZ_HD static inline uint32_t ghz_crc32c_shift(uint64_t n)
{
    uint32_t r = GHZ_CRC32C_ONE, sq = GHZ_CRC32C_X8;
    for (; n; n >>= 1) {
        if (n & 1u) r = ghz_crc32c_mul(r, sq);
        sq = ghz_crc32c_mul(sq, sq);
    }
    return r;
}

/* The standard CRC-32C (initial value and final XOR 0xFFFFFFFF) of a message of n
 * bytes whose raw CRC is raw: the initial value's contribution is ~0 * x^(8n). */
GHZ_HD static inline uint32_t ghz_crc32c_finish(uint32_t raw, uint64_t n)
{
    return ~(raw ^ ghz_crc32c_mul(0xFFFFFFFFu, ghz_crc32c_shift(n)));
}

#endif
