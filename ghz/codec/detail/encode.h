/* ghz/codec/detail/encode.h (private): resolved parameters and value access shared
 * by the CPU compressor, decompressor and range scan. */
#ifndef GHZ_CODEC_DETAIL_ENCODE_H
#define GHZ_CODEC_DETAIL_ENCODE_H

#include <string.h>

#include "ghz/codec/block.h"
#include "ghz/codec/codec.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ghz stores values in host byte order and requires a little-endian host"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What one frame is encoded or decoded with, after validation. */
typedef struct {
    ghz_dtype_t dtype;
    unsigned elem;       /* bytes per value */
    int has_fill;
    uint64_t fill_bits;  /* the fill value's bits in dtype */
    ghz_quantizer_t z;
} ghz_enc_params;

/* Value i of src as a double, and its bit pattern in the dtype. */
static inline double ghz_load_value(const ghz_enc_params* e, const uint8_t* src, size_t i,
                                    uint64_t* bits)
{
    if (e->dtype == GHZ_F32) {
        float f;
        uint32_t u;
        memcpy(&f, src + 4 * i, 4);
        memcpy(&u, &f, 4);
        *bits = u;
        return (double)f;
    } else {
        double d;
        memcpy(&d, src + 8 * i, 8);
        memcpy(bits, &d, 8);
        return d;
    }
}

/* The block encoder of ghz_compress (compress.c): encodes block values src[0..m) into
 * out (room for m * elem bytes) as FORMAT.md chooses, returns the code byte and sets
 * *size to the payload bytes. ghz/homo's float path encodes with it, so its blocks
 * are the codec's by construction. */
unsigned ghz_encode_block(const ghz_enc_params* e, const uint8_t* src, unsigned m,
                          uint8_t* out, uint32_t* size);

/* The block decoder of ghz_decompress (decompress.c): decodes one block of m values
 * with code byte `code` from p (its ghz_block_size bytes, bounds-checked by the
 * caller) into out. Returns 0, or -1 when the block is not canonical. */
int ghz_decode_block(const ghz_enc_params* e, unsigned code, unsigned m, const uint8_t* p,
                     uint8_t* out);

/* Threads to use for a job of n elements: 1 for small jobs, where threads cost more
 * than they save; nthreads == 0 means all available. */
int ghz_threads_for(int nthreads, size_t n);

/* Minimum and maximum over the finite non-fill values (count of them in *count). */
ghz_status_t ghz_range_scan(const ghz_enc_params* e, const void* src, size_t n, int nthreads,
                            double* vmin, double* vmax, uint64_t* count);

/* The REL bound rel * (vmax - vmin), rounded down; 0 for an empty or zero range. */
ghz_status_t ghz_rel_bound(double rel, double vmin, double vmax, double* eb_abs);

/* Copies the caller's params (of p->struct_size bytes) over the defaults and validates
 * them (dtype, mode, bound, exec). */
ghz_status_t ghz_params_read(const ghz_params_t* p, ghz_params_t* out);

/* The fill value's bit pattern in dtype. */
uint64_t ghz_fill_bits(ghz_dtype_t dtype, double fill);

/* The fill of a block frame written without a declared one (FORMAT.md, NaN as the fill
 * value): the dtype's canonical quiet NaN, numpy's and xarray's NaN. */
#define GHZ_NAN_FILL_F32 0x7FC00000u
#define GHZ_NAN_FILL_F64 0x7FF8000000000000ull
static inline uint64_t ghz_nan_fill_bits(ghz_dtype_t dtype)
{
    return dtype == GHZ_F32 ? (uint64_t)GHZ_NAN_FILL_F32 : GHZ_NAN_FILL_F64;
}

#ifdef __cplusplus
}
#endif

#endif
