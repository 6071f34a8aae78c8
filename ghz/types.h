/* ghz/types.h: basic types and portability macros shared by every ghz layer.
 * C99/C11 and C++ compatible; no CUDA types here. */
#ifndef GHZ_TYPES_H
#define GHZ_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* GHZ_API marks exported functions; the build compiles with hidden visibility. */
#if defined(_WIN32)
#  define GHZ_API
#elif defined(__GNUC__) || defined(__clang__)
#  define GHZ_API __attribute__((visibility("default")))
#else
#  define GHZ_API
#endif

/* GHZ_HD marks the inline block-level routines that the CPU reference and the CUDA
 * kernels share (and that users may call from their own kernels). */
#if defined(__CUDACC__)
#  define GHZ_HD __host__ __device__
#else
#  define GHZ_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Element type of uncompressed data. The codec and ghz/homo take GHZ_F32 and GHZ_F64
 * (the values stored in the stream header); the collective library (ghz/coll) also
 * takes the integer types, for its exact reductions. Values are pinned. */
typedef enum {
    GHZ_F32 = 1,
    GHZ_F64 = 2,
    GHZ_I8 = 3,
    GHZ_U8 = 4,
    GHZ_I16 = 5,
    GHZ_U16 = 6,
    GHZ_I32 = 7,
    GHZ_U32 = 8,
    GHZ_I64 = 9,
    GHZ_U64 = 10
} ghz_dtype_t;

/* How the error bound is given. ABS: |x - x'| <= eb. REL: |x - x'| <= eb * (max - min)
 * over the finite values that are not the fill value. */
typedef enum { GHZ_EB_ABS = 1, GHZ_EB_REL = 2 } ghz_eb_mode_t;

/* What a compressor is asked to favour (ghz_params_t.prefer): SPEED writes the block
 * frames of ghz/codec/FORMAT.md (GB/s to TB/s, homomorphic); RATIO writes the frames of
 * ghz/codec/RATIO.md (prediction over the array's dimensions and entropy coding: far
 * fewer bytes, several times slower). Both keep the same error bound. */
typedef enum { GHZ_PREFER_SPEED = 0, GHZ_PREFER_RATIO = 1 } ghz_prefer_t;

/* Execution policy (zfp's meaning): where the work runs. */
typedef enum { GHZ_EXEC_CPU = 0, GHZ_EXEC_CUDA = 1 } ghz_exec_t;

/* Where a buffer lives. */
typedef enum { GHZ_MEM_HOST = 0, GHZ_MEM_DEVICE = 1 } ghz_mem_t;

/* Size in bytes of one element of dtype, 0 for an unknown dtype. */
static inline size_t ghz_dtype_size(ghz_dtype_t t)
{
    switch (t) {
    case GHZ_I8: case GHZ_U8: return 1u;
    case GHZ_I16: case GHZ_U16: return 2u;
    case GHZ_F32: case GHZ_I32: case GHZ_U32: return 4u;
    case GHZ_F64: case GHZ_I64: case GHZ_U64: return 8u;
    default: return 0u;
    }
}

/* Size in bytes of one element of a floating-point dtype (the codec's element types),
 * 0 for any other value: what the codec and ghz/homo validate a dtype with. */
static inline size_t ghz_float_size(ghz_dtype_t t)
{
    return t == GHZ_F32 ? 4u : t == GHZ_F64 ? 8u : 0u;
}

#ifdef __cplusplus
}
#endif
#endif
