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

/* cd_values, unsigned ints (32 bits each); doubles as two halves, the low 32 bits
 * first. Layout 1 (GHZ_H5Z_CD_COUNT values), written for the block frames (prefer
 * speed), read by every version of the plugin:
 *   [0]      layout version: 1
 *   [1]      dtype: 1 float32, 2 float64 (ghz_dtype_t); 0 = the dataset's, filled in
 *            by the filter's set_local callback when the dataset is created
 *   [2]      mode: 1 ABS, 2 REL (ghz_eb_mode_t)
 *   [3..4]   the bound (double)
 *   [5]      flags: GHZ_H5Z_FILL, GHZ_H5Z_CHECKSUM, GHZ_H5Z_RANGE
 *   [6..7]   the fill value (double; with GHZ_H5Z_FILL)
 *   [8..9]   REL's value range, min (double; with GHZ_H5Z_RANGE)
 *   [10..11] REL's value range, max
 * Without GHZ_H5Z_RANGE, REL is relative to each chunk's own range.
 *
 * Layout 2 (GHZ_H5Z_CD_COUNT_V2 values), written only for prefer ratio, so that files
 * of the block frames keep the parameters older plugins write and accept:
 *   [0]      layout version: 2
 *   [1..11]  as layout 1; [5] may also hold GHZ_H5Z_RATIO (ghz/codec/RATIO.md frames)
 *   [12..14] the chunk's extents, fastest first (HDF5's last chunk dimension first;
 *            more than 3 folded into [14]), each >= 1; 0, 0, 0 = not known, filled
 *            in by set_local from the dataset's chunk shape (which it always
 *            rewrites: a pipeline copied to a dataset with other chunks, as
 *            h5repack -l does, gets the new shape)
 * Reading needs no parameter: a frame holds its coding and shape. */
#define GHZ_H5Z_CD_VERSION 1u
#define GHZ_H5Z_CD_COUNT 12u
#define GHZ_H5Z_CD_VERSION_V2 2u
#define GHZ_H5Z_CD_COUNT_V2 15u
#define GHZ_H5Z_CD_MAX GHZ_H5Z_CD_COUNT_V2
#define GHZ_H5Z_FILL 1u
#define GHZ_H5Z_CHECKSUM 2u
#define GHZ_H5Z_RANGE 4u
#define GHZ_H5Z_RATIO 8u /* layout 2 only: prefer ratio, predicted along dims */

/* The filter's parameters, unpacked. */
typedef struct {
    unsigned dtype, mode, flags;
    double bound, fill, range_min, range_max;
    unsigned dims[3]; /* layout 2: the chunk's extents, fastest first; 0 = unknown */
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

/* The number of values ghz_h5z_pack writes for p: GHZ_H5Z_CD_COUNT (layout 1), or
 * GHZ_H5Z_CD_COUNT_V2 (layout 2) under GHZ_H5Z_RATIO. */
static inline size_t ghz_h5z_count(const ghz_h5z_params_t* p)
{
    return (p->flags & GHZ_H5Z_RATIO) ? GHZ_H5Z_CD_COUNT_V2 : GHZ_H5Z_CD_COUNT;
}

/* Writes the ghz_h5z_count(p) values of p into cd (room for GHZ_H5Z_CD_MAX). */
static inline void ghz_h5z_pack(const ghz_h5z_params_t* p, unsigned* cd)
{
    memset(cd, 0, GHZ_H5Z_CD_MAX * sizeof *cd);
    cd[0] = (p->flags & GHZ_H5Z_RATIO) ? GHZ_H5Z_CD_VERSION_V2 : GHZ_H5Z_CD_VERSION;
    cd[1] = p->dtype;
    cd[2] = p->mode;
    ghz_h5z_put_double(cd + 3, p->bound);
    cd[5] = p->flags;
    if (p->flags & GHZ_H5Z_FILL) ghz_h5z_put_double(cd + 6, p->fill);
    if (p->flags & GHZ_H5Z_RANGE) {
        ghz_h5z_put_double(cd + 8, p->range_min);
        ghz_h5z_put_double(cd + 10, p->range_max);
    }
    if (p->flags & GHZ_H5Z_RATIO) {
        cd[12] = p->dims[0];
        cd[13] = p->dims[1];
        cd[14] = p->dims[2];
    }
}

/* Reads cd (n values) into *p: 0, or -1 for a layout this version does not know
 * (layout 1 with 12 values and its three flags, as every version read it; layout 2
 * with 15 values and the four flags). The values themselves (dtype, mode, bound) are
 * checked by ghz when it compresses. */
static inline int ghz_h5z_unpack(const unsigned* cd, size_t n, ghz_h5z_params_t* p)
{
    unsigned known = GHZ_H5Z_FILL | GHZ_H5Z_CHECKSUM | GHZ_H5Z_RANGE;
    if (n == GHZ_H5Z_CD_COUNT && cd[0] == GHZ_H5Z_CD_VERSION) {
        p->dims[0] = p->dims[1] = p->dims[2] = 0;
    } else if (n == GHZ_H5Z_CD_COUNT_V2 && cd[0] == GHZ_H5Z_CD_VERSION_V2) {
        known |= GHZ_H5Z_RATIO;
        p->dims[0] = cd[12];
        p->dims[1] = cd[13];
        p->dims[2] = cd[14];
    } else {
        return -1;
    }
    if (cd[5] & ~known) return -1;
    p->dtype = cd[1];
    p->mode = cd[2];
    p->bound = ghz_h5z_get_double(cd + 3);
    p->flags = cd[5];
    p->fill = ghz_h5z_get_double(cd + 6);
    p->range_min = ghz_h5z_get_double(cd + 8);
    p->range_max = ghz_h5z_get_double(cd + 10);
    return 0;
}

/* The extents of an HDF5 chunk shape (rank dimensions, slowest first, as HDF5 and
 * numpy give them) in ghz's order: fastest first, extents of 1 dropped (they predict
 * nothing), more than 3 folded into the slowest (dims[2]); unused extents 1; all 0
 * when the shape has no extent > 1 or does not fit in 32 bits. */
static inline void ghz_h5z_chunk_dims(const uint64_t* chunk, int rank, unsigned dims[3])
{
    uint64_t d[3] = {1, 1, 1};
    int i, k = 0;
    for (i = rank - 1; i >= 0; --i) {
        if (chunk[i] == 1) continue;
        if (chunk[i] == 0 || chunk[i] > 0xffffffffu || (k == 3 && d[2] > 0xffffffffu / chunk[i])) {
            k = 0;
            break;
        }
        if (k < 3)
            d[k++] = chunk[i];
        else
            d[2] *= chunk[i];
    }
    if (k == 0) {
        dims[0] = dims[1] = dims[2] = 0;
        return;
    }
    dims[0] = (unsigned)d[0];
    dims[1] = (unsigned)d[1];
    dims[2] = (unsigned)d[2];
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
