/* ghz/python/ext/h5z.c: the HDF5 filter's parameters (cd_values), packed by the
 * header the plugin reads them with (ghz/h5z/h5z_ghz.h). */
#include "ext.h"
#include "h5z_ghz.h"

/* h5z_cd_values(dtype, mode, bound, fill, checksum, value_range) -> tuple of ints */
PyObject* ghzpy_h5z_cd_values(PyObject* self, PyObject* args)
{
    PyObject *fill, *range, *res;
    int checksum, has_fill, has_range;
    unsigned cd[GHZ_H5Z_CD_COUNT], i;
    ghz_h5z_params_t p = {0, 0, 0, 0.0, 0.0, 0.0, 0.0};
    (void)self;

    if (!PyArg_ParseTuple(args, "IIdOpO:h5z_cd_values", &p.dtype, &p.mode, &p.bound, &fill,
                          &checksum, &range))
        return NULL;
    if (ghzpy_fill_range(fill, range, &has_fill, &p.fill, &has_range, &p.range_min,
                         &p.range_max) < 0)
        return NULL;
    if (has_fill) p.flags |= GHZ_H5Z_FILL;
    if (has_range) p.flags |= GHZ_H5Z_RANGE;
    if (checksum) p.flags |= GHZ_H5Z_CHECKSUM;
    ghz_h5z_pack(&p, cd);
    if (!(res = PyTuple_New(GHZ_H5Z_CD_COUNT))) return NULL;
    for (i = 0; i < GHZ_H5Z_CD_COUNT; i++) {
        PyObject* v = PyLong_FromUnsignedLong(cd[i]);
        if (!v) {
            Py_DECREF(res);
            return NULL;
        }
        PyTuple_SET_ITEM(res, i, v);
    }
    return res;
}
