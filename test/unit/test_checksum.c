/* test/unit/test_checksum.c: the optional frame checksum (FORMAT.md, Checksum): a
 * CRC-32C after the payload, written on request and verified by every reader before a
 * value is decoded. The CRC here is a bit-at-a-time implementation written from the
 * polynomial, independent of the library's table-driven one. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/detail/crc32c.h" /* the GF(2) algebra the CUDA verifier uses */
#include "testutil.h"

/* CRC-32C, one bit at a time: reflected polynomial 0x82F63B78, init and final XOR ~0. */
static uint32_t crc32c_bitwise(const unsigned char* p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;
    for (i = 0; i < n; ++i) {
        c ^= p[i];
        for (k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    }
    return ~c;
}

static ghz_params_t params_ck(ghz_dtype_t t, int checksum)
{
    ghz_params_t p = tu_params(t, GHZ_EB_ABS, 1e-3);
    p.checksum = checksum;
    return p;
}

Test(checksum, reference_crc_vectors)
{
    /* The check value of CRC-32C and two vectors of RFC 3720, appendix B.4. */
    unsigned char z[32], o[32];
    memset(z, 0, sizeof z);
    memset(o, 0xFF, sizeof o);
    cr_assert_eq(crc32c_bitwise((const unsigned char*)"123456789", 9), 0xE3069283u);
    cr_assert_eq(crc32c_bitwise(z, 32), 0x8A9136AAu);
    cr_assert_eq(crc32c_bitwise(o, 32), 0x62A8AB43u);
}

/* A frame with a checksum is the frame without one, with flag bit 1 set and the
 * CRC-32C of everything before it appended: for every length around the slicing and
 * block boundaries, both dtypes. */
Test(checksum, layout_is_flag_plus_crc_of_frame)
{
    static const size_t ns[] = {0, 1, 7, 8, 9, 31, 32, 33, 100, 1000, 4099};
    for (int t = 1; t <= 2; ++t)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; ++k) {
            size_t n = ns[k], s0, s1;
            void* a = tu_make((ghz_dtype_t)t, TU_NOISY, n, 11 + k);
            ghz_params_t p0 = params_ck((ghz_dtype_t)t, 0), p1 = params_ck((ghz_dtype_t)t, 1);
            unsigned char* f0 = tu_compress(&p0, a, n, &s0);
            unsigned char* f1 = tu_compress(&p1, a, n, &s1);
            ghz_frame_info_t i0, i1;
            cr_assert_eq(s1, s0 + GHZ_CHECKSUM_SIZE, "n %zu", n);
            cr_assert_eq(f0[11] & 2, 0);
            cr_assert_eq(f1[11], f0[11] | 2u, "flags");
            cr_assert(memcmp(f0, f1, 11) == 0 && memcmp(f0 + 12, f1 + 12, s0 - 12) == 0);
            cr_assert_eq(tu_rd(f1 + s0, 4), crc32c_bitwise(f1, s0), "n %zu dtype %d", n, t);
            cr_assert_eq(ghz_frame_info(f0, s0, &i0), GHZ_SUCCESS);
            cr_assert_eq(ghz_frame_info(f1, s1, &i1), GHZ_SUCCESS);
            cr_assert(!i0.has_checksum && i1.has_checksum);
            cr_assert_eq(i1.frame_size, s1);
            cr_assert_eq(i1.payload_size, i0.payload_size, "payload_size excludes the checksum");
            void* b = tu_decompress(f1, s1, (ghz_dtype_t)t, n);
            void* c = tu_decompress(f0, s0, (ghz_dtype_t)t, n);
            cr_assert(memcmp(b, c, n * ghz_dtype_size((ghz_dtype_t)t)) == 0);
            free(a), free(b), free(c), free(f0), free(f1);
        }
}

/* A changed byte anywhere after the header's checked fields: the frame is refused with
 * GHZ_ERR_CORRUPT and "checksum mismatch", for every byte of codes, payload and
 * checksum, through the serial and the threaded decoder. */
Test(checksum, every_changed_byte_is_reported)
{
    size_t n = 300, size;
    void* a = tu_make(GHZ_F32, TU_NOISY, n, 5);
    ghz_params_t p = params_ck(GHZ_F32, 1);
    unsigned char* f = tu_compress(&p, a, n, &size);
    float out[300];
    for (size_t i = GHZ_HEADER_SIZE; i < size; ++i)
        for (int bit = 0; bit < 8; bit += 3) {
            size_t got;
            f[i] ^= (unsigned char)(1u << bit);
            for (int mt = 0; mt < 2; ++mt) {
                ghz_status_t st = mt ? ghz_decompress_mt(f, size, out, sizeof out, &got, 2)
                                     : ghz_decompress(f, size, out, sizeof out, &got);
                cr_assert_eq(st, GHZ_ERR_CORRUPT, "byte %zu bit %d: %s", i, bit, ghz_status_string(st));
                /* one frame: the detail does not name a place the caller knows */
                cr_assert(strncmp(ghz_last_error_detail(), "checksum mismatch", 17) == 0,
                          "byte %zu: detail '%s'", i, ghz_last_error_detail());
                cr_assert_eq(got, 0, "no value reported decoded");
            }
            f[i] ^= (unsigned char)(1u << bit);
        }
    free(a), free(f);
}

/* Header fields that stay valid when changed (n's partner fields aside): eb_user and
 * eb_abs. Without a checksum such a change decodes to other values silently; with one
 * it is caught. */
Test(checksum, valid_looking_header_change_is_caught)
{
    size_t n = 200, size;
    void* a = tu_make(GHZ_F64, TU_SMOOTH, n, 6);
    double out[200];
    size_t got;
    for (int ck = 0; ck < 2; ++ck) {
        ghz_params_t p = params_ck(GHZ_F64, ck);
        unsigned char* f = tu_compress(&p, a, n, &size);
        f[48 + 6] ^= 0x01; /* eb_abs: a slightly different, still valid bound */
        ghz_status_t st = ghz_decompress(f, size, out, sizeof out, &got);
        if (ck)
            cr_assert_eq(st, GHZ_ERR_CORRUPT);
        else
            cr_assert_eq(st, GHZ_SUCCESS, "the premise: without a checksum this decodes");
        free(f);
    }
    free(a);
}

/* Setting or clearing the flag bit moves the frame's end by 4 bytes: a single frame
 * is then refused (truncated, or 4 bytes that do not form a frame). */
Test(checksum, flag_bit_flips_are_refused)
{
    size_t n = 100, size;
    void* a = tu_make(GHZ_F32, TU_WALK, n, 7);
    float out[100];
    size_t got;
    for (int ck = 0; ck < 2; ++ck) {
        ghz_params_t p = params_ck(GHZ_F32, ck);
        unsigned char* f = tu_compress(&p, a, n, &size);
        f[11] ^= 2u;
        ghz_status_t st = ghz_decompress(f, size, out, sizeof out, &got);
        cr_assert(st == GHZ_ERR_TRUNCATED || st == GHZ_ERR_NOT_GHZ || st == GHZ_ERR_CORRUPT,
                  "checksum %d: %s", ck, ghz_status_string(st));
        free(f);
    }
    free(a);
}

/* Frames with and without a checksum mix freely in one stream. */
Test(checksum, mixed_stream)
{
    size_t n = 500, s0, s1;
    void* a = tu_make(GHZ_F32, TU_RANDOM, n, 8);
    ghz_params_t p0 = params_ck(GHZ_F32, 0), p1 = params_ck(GHZ_F32, 1);
    unsigned char* f0 = tu_compress(&p0, a, n, &s0);
    unsigned char* f1 = tu_compress(&p1, a, n, &s1);
    unsigned char* s = malloc(2 * (s0 + s1));
    uint64_t total, frames;
    ghz_dtype_t t;
    memcpy(s, f1, s1);
    memcpy(s + s1, f0, s0);
    memcpy(s + s1 + s0, f1, s1);
    cr_assert_eq(ghz_stream_info(s, 2 * s1 + s0, &total, &frames, &t), GHZ_SUCCESS);
    cr_assert_eq(frames, 3);
    cr_assert_eq(total, 3 * n);
    float* b = tu_decompress(s, 2 * s1 + s0, GHZ_F32, 3 * n);
    for (int k = 0; k < 3; ++k) cr_assert(memcmp(b + k * n, b, n * 4) == 0);
    /* damage the last frame only: the stream is refused */
    s[s1 + s0 + GHZ_HEADER_SIZE + 20] ^= 4;
    size_t got;
    cr_assert_eq(ghz_decompress(s, 2 * s1 + s0, b, 3 * n * 4, &got), GHZ_ERR_CORRUPT);
    cr_assert(strstr(ghz_last_error_detail(), "frame 2 at byte") != NULL, "%s", ghz_last_error_detail());
    free(a), free(b), free(f0), free(f1), free(s);
}

/* The checksum needs GHZ_CHECKSUM_SIZE bytes beyond ghz_compress_bound when every
 * block is raw; exactly the frame size suffices. */
Test(checksum, capacity)
{
    size_t n = 64, size = 0, bound = ghz_compress_bound(n, GHZ_F32);
    void* a = tu_make(GHZ_F32, TU_RANDOM, n, 9);
    ghz_params_t p = params_ck(GHZ_F32, 1);
    p.eb = 1e-30; /* nothing quantizable: every block RAW, the worst case */
    unsigned char* f = malloc(bound + GHZ_CHECKSUM_SIZE);
    cr_assert_eq(ghz_compress(&p, a, n, f, bound, &size), GHZ_ERR_DST_TOO_SMALL);
    for (size_t cap = bound + 1; cap < bound + GHZ_CHECKSUM_SIZE; ++cap)
        cr_assert_eq(ghz_compress(&p, a, n, f, cap, &size), GHZ_ERR_DST_TOO_SMALL, "cap %zu", cap);
    cr_assert_eq(ghz_compress(&p, a, n, f, bound + GHZ_CHECKSUM_SIZE, &size), GHZ_SUCCESS);
    cr_assert_eq(size, bound + GHZ_CHECKSUM_SIZE);
    free(a), free(f);
}

/* ghz_frame_add_checksum turns a frame without a checksum into exactly the frame
 * ghz_compress writes with one, and refuses what it cannot seal. */
Test(checksum, add_checksum_api)
{
    size_t n = 777, s0, s1, s2 = 0;
    void* a = tu_make(GHZ_F64, TU_NOISY, n, 10);
    ghz_params_t p0 = params_ck(GHZ_F64, 0), p1 = params_ck(GHZ_F64, 1);
    unsigned char* f0 = tu_compress(&p0, a, n, &s0);
    unsigned char* f1 = tu_compress(&p1, a, n, &s1);
    unsigned char* g = malloc(s0 + GHZ_CHECKSUM_SIZE);
    memcpy(g, f0, s0);
    cr_assert_eq(ghz_frame_add_checksum(g, s0, s0 + 3, &s2), GHZ_ERR_DST_TOO_SMALL);
    cr_assert_eq(ghz_frame_add_checksum(g, s0 - 1, s0 + 4, &s2), GHZ_ERR_TRUNCATED);
    cr_assert_eq(ghz_frame_add_checksum(NULL, s0, s0 + 4, &s2), GHZ_ERR_INVALID_ARG);
    cr_assert_eq(memcmp(g, f0, s0), 0, "refused calls leave the frame alone");
    cr_assert_eq(ghz_frame_add_checksum(g, s0, s0 + 4, &s2), GHZ_SUCCESS);
    cr_assert_eq(s2, s1);
    cr_assert_eq(memcmp(g, f1, s1), 0);
    cr_assert_eq(ghz_frame_add_checksum(g, s1, s1 + 4, &s2), GHZ_ERR_INVALID_ARG, "already sealed");
    free(a), free(f0), free(f1), free(g);
}

/* Programs built before the field existed (a shorter struct_size) get no checksum. */
Test(checksum, old_params_struct_means_off)
{
    size_t n = 40, size;
    void* a = tu_make(GHZ_F32, TU_SMOOTH, n, 12);
    ghz_params_t p = params_ck(GHZ_F32, 1);
    unsigned char f[GHZ_COMPRESS_BOUND(40, GHZ_F32) + GHZ_CHECKSUM_SIZE];
    p.struct_size = offsetof(ghz_params_t, checksum);
    cr_assert_eq(ghz_compress(&p, a, n, f, sizeof f, &size), GHZ_SUCCESS);
    cr_assert_eq(f[11] & 2, 0);
    free(a);
}

/* The CUDA verifier's way (checksum.cu), run on the CPU: segments of S bytes counted
 * from the end, thread t of T taking segments t, t + T, ..., each raw CRC weighted by
 * G^i (G = x^(8 S T)), the thread's sum by x^(8 S t), everything XORed, then the
 * initial value's term. It must give the standard CRC for every length, segment size
 * and thread count, including lengths below one segment and T beyond the segments. */
Test(checksum, segmented_crc_equals_serial)
{
    static const size_t lens[] = {0, 1, 2, 7, 63, 64, 65, 127, 128, 129, 1000, 4097, 10000};
    static const unsigned segs[] = {1, 3, 16, 128};
    static const unsigned threads[] = {1, 2, 5, 64};
    unsigned char* m = malloc(10000);
    uint32_t tab[256];
    tu_rng_t r;
    tu_seed(&r, 77);
    for (size_t i = 0; i < 10000; ++i) m[i] = (unsigned char)tu_next(&r);
    for (unsigned i = 0; i < 256; ++i) tab[i] = ghz_crc32c_entry(i);
    for (size_t a = 0; a < sizeof lens / sizeof lens[0]; ++a)
        for (size_t b = 0; b < sizeof segs / sizeof segs[0]; ++b)
            for (size_t c = 0; c < sizeof threads / sizeof threads[0]; ++c) {
                uint64_t L = lens[a], S = segs[b], T = threads[c], nseg = (L + S - 1) / S, total = 0;
                uint32_t g = ghz_crc32c_shift(S * T);
                for (uint64_t t = 0; t < T && t < nseg; ++t) {
                    uint32_t acc = 0, gi = GHZ_CRC32C_ONE;
                    for (uint64_t j = t; j < nseg; j += T) {
                        uint64_t hi = L - j * S, lo = hi > S ? hi - S : 0;
                        uint32_t raw = 0;
                        for (uint64_t i = lo; i < hi; ++i) raw = tab[(raw ^ m[i]) & 0xFFu] ^ (raw >> 8);
                        acc ^= ghz_crc32c_mul(raw, gi);
                        gi = ghz_crc32c_mul(gi, g);
                    }
                    total ^= ghz_crc32c_mul(acc, ghz_crc32c_shift(S * t));
                }
                cr_assert_eq(ghz_crc32c_finish(total, L), crc32c_bitwise(m, L),
                             "L %llu S %llu T %llu", (unsigned long long)L, (unsigned long long)S,
                             (unsigned long long)T);
            }
    free(m);
}
