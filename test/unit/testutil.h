/* test/unit/testutil.h: shared helpers of the Criterion unit tests.
 *
 * Everything here is derived from ghz/codec/FORMAT.md, never from the library's
 * sources: the tests must be able to catch a library that misreads the spec.
 */
#ifndef GHZ_TEST_TESTUTIL_H
#define GHZ_TEST_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "ghz/ghz.h"

/* ---- deterministic PRNG (splitmix64) ------------------------------------------- */
typedef struct {
    uint64_t s;
} tu_rng_t;

void tu_seed(tu_rng_t* r, uint64_t seed);
uint64_t tu_next(tu_rng_t* r);
/* Uniform in [0, 1) with 53 random bits. */
double tu_uniform(tu_rng_t* r);
/* Uniform integer in [0, bound). */
uint64_t tu_below(tu_rng_t* r, uint64_t bound);
/* Standard normal (Box-Muller). */
double tu_normal(tu_rng_t* r);

/* ---- test data ------------------------------------------------------------------ */
typedef enum {
    TU_RANDOM,   /* uniform in [-100, 100) */
    TU_SMOOTH,   /* sum of slow sines, amplitude ~10 */
    TU_NOISY,    /* smooth plus normal noise of sigma 0.5 */
    TU_CONSTANT, /* one value, 3.25 */
    TU_ZERO,     /* +0.0 everywhere */
    TU_WALK,     /* random walk with steps in [-1, 1) */
    TU_WIDE      /* magnitudes from 1e-6 to 1e6, both signs */
} tu_pattern_t;

extern const char* const tu_pattern_names[];

/* n values of dtype t (malloc'd, at least one byte so never NULL). */
void* tu_make(ghz_dtype_t t, tu_pattern_t pat, size_t n, uint64_t seed);
void* tu_alloc(ghz_dtype_t t, size_t n);

/* Element access through double and through the raw bits of the dtype. */
double tu_get(const void* a, ghz_dtype_t t, size_t i);
void tu_set(void* a, ghz_dtype_t t, size_t i, double v);
uint64_t tu_bits(const void* a, ghz_dtype_t t, size_t i);
void tu_set_bits(void* a, ghz_dtype_t t, size_t i, uint64_t bits);
/* Bit pattern of v converted to dtype t (f32: low 32 bits). */
uint64_t tu_bits_of(ghz_dtype_t t, double v);
double tu_dbl_from_bits(uint64_t b);
uint64_t tu_dbl_bits(double v);
float tu_flt_from_bits(uint32_t b);
uint32_t tu_flt_bits(float v);

/* ---- the error bound, exactly ---------------------------------------------------- */
/* 1 when |x - y| <= e holds for the exact real numbers (x, y, e doubles, e >= 0). */
int tu_within(double x, double y, double e);

/* Checks a decoded array against its input: fill positions (when has_fill) and
 * non-finite inputs must come back bit-identical; with eb_abs == 0 every element must;
 * every other element must be finite and within eb_abs. Returns the first bad index,
 * or (size_t)-1 when all hold; msg (may be NULL) describes the first violation. */
size_t tu_check_bound(const void* in, const void* out, size_t n, ghz_dtype_t t,
                      double eb_abs, int has_fill, uint64_t fill_bits, char* msg,
                      size_t msg_len);

/* ---- codec shorthands (they cr_assert success) ----------------------------------- */
/* Compresses into a fresh buffer of ghz_compress_bound bytes (+ GHZ_CHECKSUM_SIZE when
 * p->checksum); *size = frame size. */
unsigned char* tu_compress(const ghz_params_t* p, const void* src, size_t n, size_t* size);
/* Decompresses a stream that must hold exactly n elements of dtype t. */
void* tu_decompress(const void* src, size_t size, ghz_dtype_t t, size_t n);
/* Compress, read the header, decompress and check the bound at every element.
 * Returns the frame size; *eb_abs (may be NULL) receives the header's eb_abs. */
size_t tu_roundtrip(const ghz_params_t* p, const void* src, size_t n, double* eb_abs);

ghz_params_t tu_params(ghz_dtype_t t, ghz_eb_mode_t mode, double eb);

/* ---- FORMAT.md arithmetic ------------------------------------------------------- */
#define TU_QMAX 536870911 /* 2^29 - 1 */
size_t tu_codes_bytes(uint64_t n);        /* round_up(ceil(n/32), 16) */
double tu_rel_bound(double rel, double vmin, double vmax); /* REL: E per FORMAT.md */
/* 1 when E <= rel * (vmax - vmin) holds for the exact real numbers (checked with a
 * rigorous lower bound of the right side in long double, rounding downward). */
int tu_rel_holds(double E, double rel, double vmin, double vmax);
/* Finite non-fill min/max by hand; returns the count of values that took part. */
size_t tu_range(const void* a, ghz_dtype_t t, size_t n, int has_fill, uint64_t fill_bits,
                double* vmin, double* vmax);
/* n values for the range scan's lane tests (case `at` of 0..n-1): small values, the
 * type's largest magnitude at `at`, a NaN or an infinity and a signed zero or the least
 * subnormal at positions that move with `at` through lanes and tail. */
void tu_range_case(void* a, ghz_dtype_t t, size_t n, size_t at);

/* ---- an independent encoder, written from FORMAT.md alone --------------------------- */
/* The quantizer of FORMAT.md, Quantization. */
typedef struct {
    double E, Q, R;
    int f32;
} tu_quant_t;
tu_quant_t tu_quant_make(double eb_abs, int f32);
double tu_recon(const tu_quant_t* z, int32_t q);
int tu_quantize(const tu_quant_t* z, double x, int32_t* q);
uint32_t tu_zigzag(int32_t q);
/* QUANT payload of one block from its 32 integers (positions >= m already set as
 * FORMAT.md says) and fill mask; returns the payload size and sets *code. */
size_t tu_quant_payload(const int32_t q[32], unsigned m, uint32_t fmask, unsigned char* out,
                        unsigned* code);
/* Writes a 64-byte header. */
void tu_write_header(unsigned char* h, ghz_dtype_t t, ghz_eb_mode_t mode, double eb_user,
                     double eb_abs, int has_fill, uint64_t fill_bits, uint64_t n,
                     uint64_t payload_size);
/* A whole frame from its parts: header, codes (zero-padded), payload. Returns its size. */
size_t tu_build_frame(unsigned char* out, ghz_dtype_t t, ghz_eb_mode_t mode, double eb_user,
                      double eb_abs, int has_fill, uint64_t fill_bits, uint64_t n,
                      const unsigned char* codes, const unsigned char* payload,
                      size_t payload_size);
/* The frame FORMAT.md prescribes for ghz_compress(p, src, n); out needs
 * ghz_compress_bound bytes. Returns the frame size. */
size_t tu_ref_compress(const ghz_params_t* p, const void* src, size_t n, unsigned char* out);
/* The frame a writer before 0.3 wrote: the same, except that without a declared fill
 * the frame has none (FORMAT.md, NaN as the fill value), NaN an ordinary value. */
size_t tu_ref_compress_v02(const ghz_params_t* p, const void* src, size_t n, unsigned char* out);
/* 1 when b is the bit pattern of a NaN of dtype t. */
int tu_is_nan_bits(ghz_dtype_t t, uint64_t b);

/* Little-endian field access. */
uint64_t tu_rd(const unsigned char* p, unsigned bytes);
void tu_wr(unsigned char* p, uint64_t v, unsigned bytes);

/* ---- a buffer whose last byte is followed by an inaccessible page ------------------ */
typedef struct {
    unsigned char* map;
    size_t map_len;
    unsigned char* data; /* size bytes, ending exactly at a PROT_NONE page */
    size_t size;
} tu_guard_t;

/* Copies src[0..size) to the end of a readable region followed by a guard page, so
 * any read at data[size] or beyond faults. Also a guard page before data. */
unsigned char* tu_guard_copy(tu_guard_t* g, const void* src, size_t size);
void tu_guard_free(tu_guard_t* g);

#endif
