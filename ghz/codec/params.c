/* ghz/codec/params.c: parameter defaults and validation, versions, size bounds. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ghz/codec/detail/encode.h"
#include "ghz/codec/detail/frame.h"
#include "ghz/detail/error.h"
#include "ghz/version.h"

void ghz_params_init(ghz_params_t* p)
{
    ghz_params_t d = GHZ_PARAMS_INIT;
    if (p) *p = d;
}

unsigned ghz_version_number(void)
{
    return GHZ_VERSION_NUMBER;
}

unsigned ghz_format_version(void)
{
    return GHZ_FORMAT_VERSION;
}

size_t ghz_compress_bound(size_t n, ghz_dtype_t dtype)
{
    size_t elem = ghz_float_size(dtype);
    uint64_t codes;
    if (elem == 0 || n > (SIZE_MAX - 4096) / elem) return 0;
    codes = ghz_codes_bytes(ghz_blocks_of(n));
    return GHZ_HEADER_SIZE + (size_t)codes + n * elem;
}

int ghz_threads_for(int nthreads, size_t n)
{
#ifdef _OPENMP
    int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    size_t most = n / (1u << 16) + 1; /* at least 64 Ki values per thread */
    if ((size_t)nt > most) nt = (int)most;
    return nt < 1 ? 1 : nt;
#else
    (void)nthreads;
    (void)n;
    return 1;
#endif
}

uint64_t ghz_fill_bits(ghz_dtype_t dtype, double fill)
{
    uint64_t bits = 0;
    if (dtype == GHZ_F32) {
        float f = (float)fill;
        uint32_t u;
        memcpy(&u, &f, 4);
        bits = u;
    } else {
        memcpy(&bits, &fill, 8);
    }
    return bits;
}

ghz_status_t ghz_params_read(const ghz_params_t* p, ghz_params_t* out)
{
    ghz_params_init(out);
    if (!p) return ghz_fail(GHZ_ERR_INVALID_ARG, "params is NULL");
    if (p->struct_size < offsetof(ghz_params_t, nthreads) || p->struct_size > (1u << 16))
        return ghz_fail(GHZ_ERR_INVALID_ARG,
                        "params.struct_size %zu: initialise with GHZ_PARAMS_INIT", p->struct_size);
    memcpy(out, p, p->struct_size < sizeof *out ? p->struct_size : sizeof *out);
    out->struct_size = sizeof *out;
    if (out->dtype != GHZ_F32 && out->dtype != GHZ_F64)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)out->dtype);
    if (out->eb_mode != GHZ_EB_ABS && out->eb_mode != GHZ_EB_REL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown error-bound mode %d", (int)out->eb_mode);
    if (!(isfinite(out->eb) && out->eb > 0.0))
        return ghz_fail(GHZ_ERR_BAD_BOUND, "error bound %g: must be finite and > 0", out->eb);
    if (out->eb_mode == GHZ_EB_ABS && !isfinite(out->eb + out->eb))
        return ghz_fail(GHZ_ERR_BAD_BOUND, "error bound %g is too large", out->eb);
    if (out->nthreads < 0)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "nthreads %d < 0", out->nthreads);
    if (out->exec != GHZ_EXEC_CPU && out->exec != GHZ_EXEC_CUDA)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown execution policy %d", (int)out->exec);
    if (out->prefer != GHZ_PREFER_SPEED && out->prefer != GHZ_PREFER_RATIO)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "prefer %d: GHZ_PREFER_SPEED or GHZ_PREFER_RATIO",
                        (int)out->prefer);
    return GHZ_SUCCESS;
}

ghz_status_t ghz_value_range(const ghz_params_t* p, const void* src, size_t n, double* vmin,
                             double* vmax, uint64_t* count)
{
    ghz_params_t q;
    ghz_enc_params e;
    ghz_status_t st;
    ghz_clear_detail();
    if ((st = ghz_params_read(p, &q)) != GHZ_SUCCESS) return st;
    if ((n && !src) || !vmin || !vmax) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL pointer");
    memset(&e, 0, sizeof e);
    e.dtype = q.dtype;
    e.elem = (unsigned)ghz_float_size(q.dtype);
    e.has_fill = q.has_fill != 0;
    e.fill_bits = e.has_fill ? ghz_fill_bits(q.dtype, q.fill) : 0;
    return ghz_range_scan(&e, src, n, q.nthreads, vmin, vmax, count);
}

ghz_status_t ghz_abs_bound(const ghz_params_t* p, double vmin, double vmax, double* eb_abs)
{
    ghz_params_t q;
    ghz_status_t st;
    ghz_clear_detail();
    if ((st = ghz_params_read(p, &q)) != GHZ_SUCCESS) return st;
    if (!eb_abs) return ghz_fail(GHZ_ERR_INVALID_ARG, "eb_abs is NULL");
    if (q.eb_mode == GHZ_EB_ABS) {
        *eb_abs = q.eb;
        return GHZ_SUCCESS;
    }
    return ghz_rel_bound(q.eb, vmin, vmax, eb_abs);
}
