/* ghz/detail/error.h (private): recording the detail of a failure. */
#ifndef GHZ_DETAIL_ERROR_H
#define GHZ_DETAIL_ERROR_H

#include "ghz/errors.h"

#if defined(__GNUC__)
#  define GHZ_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#  define GHZ_PRINTF_LIKE(f, a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Records a printf-style detail for ghz_last_error_detail() and returns st, so a
 * failure reads `return ghz_fail(GHZ_ERR_CORRUPT, "block %zu: ...", b);`.
 * Exported (GHZ_API) although private: libghzcoll records its failures in the same
 * per-thread detail, so that one ghz_last_error_detail() serves both libraries; no
 * installed header declares these. */
GHZ_API ghz_status_t ghz_fail(ghz_status_t st, const char* fmt, ...) GHZ_PRINTF_LIKE(2, 3);

/* Clears the detail at the start of a public call. */
GHZ_API void ghz_clear_detail(void);

#ifdef __cplusplus
}
#endif

#endif
