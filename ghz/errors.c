/* ghz/errors.c: status messages and the per-thread failure detail. */
#include <stdarg.h>
#include <stdio.h>

#include "ghz/detail/error.h"

static _Thread_local char ghz_detail[256];

const char* ghz_status_string(ghz_status_t status)
{
    switch (status) {
    case GHZ_SUCCESS: return "success";
    case GHZ_ERR_INVALID_ARG: return "invalid argument";
    case GHZ_ERR_BAD_BOUND: return "invalid error bound";
    case GHZ_ERR_DST_TOO_SMALL: return "destination buffer too small";
    case GHZ_ERR_TRUNCATED: return "truncated input";
    case GHZ_ERR_CORRUPT: return "corrupted input";
    case GHZ_ERR_NOT_GHZ: return "not a ghz stream";
    case GHZ_ERR_VERSION: return "unsupported format version";
    case GHZ_ERR_UNSUPPORTED: return "operation not supported";
    case GHZ_ERR_MISMATCH: return "operands do not match";
    case GHZ_ERR_OVERFLOW: return "integer overflow";
    case GHZ_ERR_NOMEM: return "out of memory";
    case GHZ_ERR_IO: return "I/O error";
    case GHZ_ERR_CUDA: return "CUDA error";
    case GHZ_ERR_NO_DEVICE: return "no usable CUDA device";
    case GHZ_ERR_MPI: return "MPI error";
    case GHZ_ERR_NCCL: return "NCCL error";
    case GHZ_ERR_PEER: return "failed on another rank";
    case GHZ_ERR_LIMIT: return "frame larger than the reader's limit";
    }
    return "unknown status";
}

const char* ghz_last_error_detail(void)
{
    return ghz_detail;
}

void ghz_clear_detail(void)
{
    ghz_detail[0] = '\0';
}

ghz_status_t ghz_fail(ghz_status_t st, const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ghz_detail, sizeof ghz_detail, fmt, ap);
    va_end(ap);
    return st;
}
