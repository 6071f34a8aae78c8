/* ghz/python/ext/h5z.c: the HDF5 filter's parameters (cd_values), packed by the
 * header the plugin reads them with (ghz/h5z/h5z_ghz.h). */
#include "ext.h"
#include "h5z_ghz.h"

/* h5z_cd_values(dtype, mode, bound, fill, checksum, value_range[, ratio]) -> tuple of
 * ints: 12 (layout 1), or 15 (layout 2, the chunk's shape left 0 for the filter's
 * set_local) with ratio true. */
PyObject* ghzpy_h5z_cd_values(PyObject* self, PyObject* args)
{
    PyObject *fill, *range, *res;
    int checksum, has_fill, has_range, ratio = 0;
    unsigned cd[GHZ_H5Z_CD_MAX], i, count;
    ghz_h5z_params_t p = {0, 0, 0, 0.0, 0.0, 0.0, 0.0, {0, 0, 0}};
    (void)self;

    if (!PyArg_ParseTuple(args, "IIdOpO|p:h5z_cd_values", &p.dtype, &p.mode, &p.bound, &fill,
                          &checksum, &range, &ratio))
        return NULL;
    if (ghzpy_fill_range(fill, range, &has_fill, &p.fill, &has_range, &p.range_min,
                         &p.range_max) < 0)
        return NULL;
    if (has_fill) p.flags |= GHZ_H5Z_FILL;
    if (has_range) p.flags |= GHZ_H5Z_RANGE;
    if (checksum) p.flags |= GHZ_H5Z_CHECKSUM;
    if (ratio) p.flags |= GHZ_H5Z_RATIO;
    ghz_h5z_pack(&p, cd);
    count = (unsigned)ghz_h5z_count(&p);
    if (!(res = PyTuple_New(count))) return NULL;
    for (i = 0; i < count; i++) {
        PyObject* v = PyLong_FromUnsignedLong(cd[i]);
        if (!v) {
            Py_DECREF(res);
            return NULL;
        }
        PyTuple_SET_ITEM(res, i, v);
    }
    return res;
}
