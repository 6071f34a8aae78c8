/* ghz/h5z/filter.c: the HDF5 filter plugin libH5Z_ghz.so: each chunk of a dataset is
 * one ghz frame (ghz/codec/FORMAT.md).
 *
 * The plugin links no HDF5 library: it is loaded into processes whose HDF5 is the
 * system's (h5dump, h5repack) or a private copy (h5py's wheels), and a second HDF5 in
 * the process would not know the first one's identifiers. It takes its types from
 * h5z_abi.h (the few declarations of HDF5's plugin interface it needs, so that it
 * builds without HDF5's headers), its memory from malloc/free (what HDF5's release
 * builds allocate chunk buffers with), and the few HDF5 calls of set_local from the
 * library that loaded it (local.c). Its only exported symbols are HDF5's two plugin
 * entry points.
 *
 * Under prefer ratio (layout 2 of the parameters, h5z_ghz.h) each chunk is one frame of
 * ghz/codec/RATIO.md, predicted along the chunk's dimensions, which set_local stored in
 * the parameters; the reader needs none of them (the frame holds its coding and shape). */
#include <stdio.h>
#include <stdlib.h>

#include "ghz/ghz.h"
#include "h5z_abi.h"
#include "h5z_ghz.h"
#include "h5z_local.h"

/* HDF5 keeps a chunk's size in 32 bits: no chunk decodes to more. */
#define CHUNK_MAX ((uint64_t)0xffffffffu)

/* A failure's reason on stderr: HDF5 itself only says that the filter failed. */
static size_t fail(const char* what, ghz_status_t st)
{
    const char* detail = ghz_last_error_detail();
    fprintf(stderr, "H5Z_ghz: %s: %s%s%s\n", what, ghz_status_string(st), *detail ? ": " : "",
            detail);
    return 0;
}

static size_t fail_msg(const char* what, const char* msg)
{
    fprintf(stderr, "H5Z_ghz: %s: %s\n", what, msg);
    return 0;
}

/* REL without a fill value or a range over a chunk whose range spans 1e30 or more: most
 * likely a fill value (netCDF's _FillValue, 9.97e36) taken as data, which makes the
 * bound that large. Said once per process on stderr (the Python layer warns too). */
static void warn_huge_range(const ghz_params_t* p, const void* frame, size_t size)
{
    static int warned;
    ghz_frame_info_t fi;
    if (warned || p->eb_mode != GHZ_EB_REL || p->has_fill || p->has_range ||
        ghz_frame_info(frame, size, &fi) != GHZ_SUCCESS || !(fi.eb_abs / p->eb >= 1e30))
        return;
    warned = 1;
    fprintf(stderr, "H5Z_ghz: write: REL over a value range of %.3g: values may be off by up to "
                    "%.3g; if the largest value marks missing data, pass fill= with it "
                    "(ghz.h5.filter(..., fill=...)), or value_range=\n",
            fi.eb_abs / p->eb, fi.eb_abs);
}

/* Whether extents d (0 = unused, from cd_values) multiply to n, without overflow. */
static int shape_fits(const unsigned d[3], size_t n)
{
    uint64_t prod = 1;
    int i;
    if (d[0] == 0) return 0;
    for (i = 0; i < 3; ++i) {
        uint64_t e = d[i] ? d[i] : 1;
        if (prod > (uint64_t)n / e) return 0;
        prod *= e;
    }
    return prod == n;
}

static size_t encode(size_t cd_nelmts, const unsigned cd_values[], size_t nbytes,
                     size_t* buf_size, void** buf)
{
    ghz_h5z_params_t hp;
    ghz_params_t p = GHZ_PARAMS_INIT;
    ghz_status_t st;
    size_t el, n, cap, size = 0;
    void* out;

    if (ghz_h5z_unpack(cd_values, cd_nelmts, &hp) < 0)
        return fail_msg("write", "unknown filter parameters (written by a newer ghz?)");
    if (hp.dtype == 0)
        return fail_msg("write", "no element type in the filter parameters (set_local did "
                                 "not run: give the dtype in cd_values[1])");
    p.dtype = (ghz_dtype_t)hp.dtype;
    p.eb_mode = (ghz_eb_mode_t)hp.mode;
    p.eb = hp.bound;
    p.has_fill = (hp.flags & GHZ_H5Z_FILL) != 0;
    p.fill = hp.fill;
    p.checksum = (hp.flags & GHZ_H5Z_CHECKSUM) != 0;
    p.has_range = (hp.flags & GHZ_H5Z_RANGE) != 0;
    p.range_min = hp.range_min;
    p.range_max = hp.range_max;
    p.nthreads = 0;
    if (hp.flags & GHZ_H5Z_RATIO) p.prefer = GHZ_PREFER_RATIO;
    if ((el = ghz_float_size(p.dtype)) == 0) return fail_msg("write", "dtype is not float32 or float64");
    if (nbytes % el) return fail_msg("write", "the chunk is not a whole number of values");
    n = nbytes / el;
    /* HDF5 hands the filter whole chunks (an edge chunk padded to the chunk's shape), so
     * the shape set_local stored fits n; if it does not (no set_local, a chunk filtered
     * by a pipeline copied from elsewhere), the chunk is one dimension of n values. */
    if (p.prefer == GHZ_PREFER_RATIO && shape_fits(hp.dims, n)) {
        p.dims[0] = hp.dims[0];
        p.dims[1] = hp.dims[1];
        p.dims[2] = hp.dims[2];
    }
    if ((cap = ghz_compress_bound(n, p.dtype)) == 0) return fail_msg("write", "chunk too large");
    cap += GHZ_CHECKSUM_SIZE;
    if (!(out = malloc(cap))) return fail_msg("write", "out of memory");
    if ((st = ghz_compress(&p, *buf, n, out, cap, &size)) != GHZ_SUCCESS) {
        free(out);
        return fail("write", st);
    }
    warn_huge_range(&p, out, size);
    free(*buf);
    *buf = out;
    *buf_size = cap;
    return size;
}

static size_t decode(size_t nbytes, size_t* buf_size, void** buf)
{
    ghz_dparams_t d = GHZ_DPARAMS_INIT;
    ghz_status_t st;
    uint64_t n = 0, frames = 0;
    ghz_dtype_t dtype;
    size_t bytes, n_out = 0;
    void* out;

    d.nthreads = 0;
    d.max_frame_bytes = CHUNK_MAX;
    if ((st = ghz_stream_info(*buf, nbytes, &n, &frames, &dtype)) != GHZ_SUCCESS)
        return fail("read", st);
    if (n > CHUNK_MAX / ghz_float_size(dtype))
        return fail_msg("read", "the chunk decodes to more than 4 GiB");
    bytes = (size_t)n * ghz_float_size(dtype);
    if (!(out = malloc(bytes ? bytes : 1))) return fail_msg("read", "out of memory");
    if ((st = ghz_decompress_ex(&d, *buf, nbytes, out, bytes, &n_out)) != GHZ_SUCCESS) {
        free(out);
        return fail("read", st);
    }
    free(*buf);
    *buf = out;
    *buf_size = bytes ? bytes : 1;
    return bytes;
}

/* H5Z_func_t: compress (flags without H5Z_FLAG_REVERSE) or decompress the chunk in
 * *buf (nbytes valid of *buf_size), replacing the buffer. 0 = failure. */
static size_t h5z_ghz_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
                             size_t nbytes, size_t* buf_size, void** buf)
{
    if (flags & GHZ_H5Z_FLAG_REVERSE) return decode(nbytes, buf_size, buf);
    return encode(cd_nelmts, cd_values, nbytes, buf_size, buf);
}

static const ghz_h5z_class2_t ghz_h5z_class = {
    GHZ_H5Z_CLASS_T_VERS,
    (ghz_h5z_filter_t)GHZ_H5Z_FILTER_ID,
    1, /* encoder present */
    1, /* decoder present */
    GHZ_H5Z_NAME,
    ghz_h5z_can_apply,
    ghz_h5z_set_local,
    h5z_ghz_filter,
};

/* HDF5's two plugin entry points (H5PLextern.h), exported from the module. They return
 * H5PL_type_t (an int-sized enum) and a pointer to the H5Z_class2_t. */
#define GHZ_H5PL_EXPORT __attribute__((visibility("default")))

GHZ_H5PL_EXPORT int H5PLget_plugin_type(void);
GHZ_H5PL_EXPORT const void* H5PLget_plugin_info(void);

int H5PLget_plugin_type(void) { return GHZ_H5PL_TYPE_FILTER; }

const void* H5PLget_plugin_info(void) { return &ghz_h5z_class; }
