/* ghz/errors.h: the status code every ghz function returns, and its messages. */
#ifndef GHZ_ERRORS_H
#define GHZ_ERRORS_H

#include "ghz/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values are pinned: they never change meaning between versions (new codes are
 * appended). A function that fails leaves its outputs unspecified unless its
 * documentation says otherwise. */
typedef enum {
    GHZ_SUCCESS = 0,
    GHZ_ERR_INVALID_ARG = 1,   /* NULL pointer, unknown dtype or mode, bad flag */
    GHZ_ERR_BAD_BOUND = 2,     /* error bound <= 0, NaN, Inf, or too large to use */
    GHZ_ERR_DST_TOO_SMALL = 3, /* destination capacity below what is needed */
    GHZ_ERR_TRUNCATED = 4,     /* input ends before the frame it announces */
    GHZ_ERR_CORRUPT = 5,       /* a header field, code byte or payload is invalid */
    GHZ_ERR_NOT_GHZ = 6,       /* no ghz magic: foreign input */
    GHZ_ERR_VERSION = 7,       /* unknown format version */
    GHZ_ERR_UNSUPPORTED = 8,   /* valid request this build or backend cannot do */
    GHZ_ERR_MISMATCH = 9,      /* operands differ in dtype, length or bound */
    GHZ_ERR_OVERFLOW = 10,     /* an integer result leaves the representable range */
    GHZ_ERR_NOMEM = 11,        /* host allocation failed */
    GHZ_ERR_IO = 12,           /* file read or write failed */
    GHZ_ERR_CUDA = 13,         /* a CUDA call failed (detail has cudaGetErrorString) */
    GHZ_ERR_NO_DEVICE = 14,    /* CUDA asked for but no usable GPU */
    GHZ_ERR_MPI = 15,          /* an MPI call failed (detail has MPI_Error_string) */
    GHZ_ERR_NCCL = 16,
    GHZ_ERR_PEER = 17,         /* a collective failed on another rank (detail names it) */
    GHZ_ERR_LIMIT = 18         /* a valid frame larger than the reader's limit
                                  (ghz_dparams_t.max_frame_bytes) */
} ghz_status_t;

/* A short, static, English description of a status code ("unknown status" for
 * values this version does not know). Never NULL. */
GHZ_API const char* ghz_status_string(ghz_status_t status);

/* Detail of the last failure in the calling thread (which field, which block,
 * which CUDA error), or "" when there is none. Valid until the next ghz call in the
 * same thread. */
GHZ_API const char* ghz_last_error_detail(void);

#ifdef __cplusplus
}
#endif
#endif
