/* ghz/h5z/h5z_ghz.h: the HDF5 filter's id and the layout of its parameters (cd_values).
 *
 * Shared by the filter plugin (libH5Z_ghz.so) and the Python package (ghz.h5), so that
 * both read and write one layout. Plain C, no HDF5 header needed.
 *
 * The id is in HDF5's range for filters under test (256-511): ghz has not registered
 * an id with The HDF Group yet. A file written with this id names the filter "ghz";
 * a reader without the plugin refuses the dataset (HDF5's "required filter is not
 * registered") rather than returning its bytes. */
#ifndef GHZ_H5Z_GHZ_H
#define GHZ_H5Z_GHZ_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define GHZ_H5Z_FILTER_ID 422
#define GHZ_H5Z_NAME "ghz: error-bounded float compression"

/* cd_values, GHZ_H5Z_CD_COUNT unsigned ints (32 bits each); doubles as two halves,
 * the low 32 bits first:
 *   [0]      layout version, GHZ_H5Z_CD_VERSION
 *   [1]      dtype: 1 float32, 2 float64 (ghz_dtype_t); 0 = the dataset's, filled in
 *            by the filter's set_local callback when the dataset is created
 *   [2]      mode: 1 ABS, 2 REL (ghz_eb_mode_t)
 *   [3..4]   the bound (double)
 *   [5]      flags: GHZ_H5Z_FILL, GHZ_H5Z_CHECKSUM, GHZ_H5Z_RANGE
 *   [6..7]   the fill value (double; with GHZ_H5Z_FILL)
 *   [8..9]   REL's value range, min (double; with GHZ_H5Z_RANGE)
 *   [10..11] REL's value range, max
 * Without GHZ_H5Z_RANGE, REL is relative to each chunk's own range. */
#define GHZ_H5Z_CD_VERSION 1u
#define GHZ_H5Z_CD_COUNT 12u
#define GHZ_H5Z_FILL 1u
#define GHZ_H5Z_CHECKSUM 2u
#define GHZ_H5Z_RANGE 4u

/* The filter's parameters, unpacked. */
typedef struct {
    unsigned dtype, mode, flags;
    double bound, fill, range_min, range_max;
} ghz_h5z_params_t;

static inline void ghz_h5z_put_double(unsigned* cd, double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    cd[0] = (unsigned)(b & 0xffffffffu);
    cd[1] = (unsigned)(b >> 32);
}

static inline double ghz_h5z_get_double(const unsigned* cd)
{
    uint64_t b = (uint64_t)(cd[0] & 0xffffffffu) | ((uint64_t)(cd[1] & 0xffffffffu) << 32);
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* Writes the GHZ_H5Z_CD_COUNT values of p into cd. */
static inline void ghz_h5z_pack(const ghz_h5z_params_t* p, unsigned* cd)
{
    memset(cd, 0, GHZ_H5Z_CD_COUNT * sizeof *cd);
    cd[0] = GHZ_H5Z_CD_VERSION;
    cd[1] = p->dtype;
    cd[2] = p->mode;
    ghz_h5z_put_double(cd + 3, p->bound);
    cd[5] = p->flags;
    if (p->flags & GHZ_H5Z_FILL) ghz_h5z_put_double(cd + 6, p->fill);
    if (p->flags & GHZ_H5Z_RANGE) {
        ghz_h5z_put_double(cd + 8, p->range_min);
        ghz_h5z_put_double(cd + 10, p->range_max);
    }
}

/* Reads cd (n values) into *p: 0, or -1 for a layout this version does not know. The
 * values themselves (dtype, mode, bound) are checked by ghz when it compresses. */
static inline int ghz_h5z_unpack(const unsigned* cd, size_t n, ghz_h5z_params_t* p)
{
    if (n != GHZ_H5Z_CD_COUNT || cd[0] != GHZ_H5Z_CD_VERSION) return -1;
    if (cd[5] & ~(GHZ_H5Z_FILL | GHZ_H5Z_CHECKSUM | GHZ_H5Z_RANGE)) return -1;
    p->dtype = cd[1];
    p->mode = cd[2];
    p->bound = ghz_h5z_get_double(cd + 3);
    p->flags = cd[5];
    p->fill = ghz_h5z_get_double(cd + 6);
    p->range_min = ghz_h5z_get_double(cd + 8);
    p->range_max = ghz_h5z_get_double(cd + 10);
    return 0;
}

/* NULL when p's values are ones ghz compresses with, else what is wrong with them (for
 * the message of the refusal when a dataset is created): the mode, a finite bound > 0,
 * and under GHZ_H5Z_RANGE a finite range with min <= max. The fill value may be any
 * value, NaN included (NaN values are kept exactly anyway). */
static inline const char* ghz_h5z_check(const ghz_h5z_params_t* p)
{
    if (p->mode != 1u && p->mode != 2u) return "the mode (cd_values[2]) is not 1 (ABS) or 2 (REL)";
    if (!(p->bound > 0.0) || !isfinite(p->bound))
        return "the bound (cd_values[3..4]) is not a finite number > 0";
    if (p->dtype > 2u) return "the dtype (cd_values[1]) is not 0, 1 (float32) or 2 (float64)";
    if ((p->flags & GHZ_H5Z_RANGE) &&
        (!isfinite(p->range_min) || !isfinite(p->range_max) || p->range_min > p->range_max))
        return "the value range (cd_values[8..11]) is not finite with min <= max";
    return NULL;
}

#endif
