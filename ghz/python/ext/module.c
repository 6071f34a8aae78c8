/* ghz/python/ext/module.c: the extension module ghz._ghz. Its functions take plain
 * arguments (codes, not names); ghz/python/ghz/_api.py is the documented interface. */
#include "ext.h"
#include "h5z_ghz.h"

static PyObject* ghzpy_versions(PyObject* self, PyObject* args)
{
    (void)self;
    (void)args;
    return Py_BuildValue("(II)", ghz_version_number(), ghz_format_version());
}

static PyMethodDef methods[] = {
    {"compress", ghzpy_compress, METH_VARARGS,
     "compress(data, mode, bound, fill, checksum, nthreads, frame_elems, value_range) -> bytes"},
    {"decompress", ghzpy_decompress, METH_VARARGS,
     "decompress(frame, out, nthreads, max_frame_bytes) -> (buffer, dtype, n)"},
    {"info", ghzpy_info, METH_VARARGS, "info(frame, max_frame_bytes=0) -> dict"},
    {"header", ghzpy_header, METH_VARARGS,
     "header(buf, max_frame_bytes) -> (n, dtype, frame_size) of the frame header at buf's start"},
    {"value_range", ghzpy_value_range, METH_VARARGS,
     "value_range(data, fill, nthreads) -> (min, max, count)"},
    {"homo", ghzpy_homo, METH_VARARGS, "homo(op, a, b) -> bytes"},
    {"h5z_cd_values", ghzpy_h5z_cd_values, METH_VARARGS,
     "h5z_cd_values(dtype, mode, bound, fill, checksum, value_range[, ratio]) -> tuple "
     "(cd_values)"},
    {"dlpack_view", ghzpy_dlpack_view, METH_O,
     "dlpack_view(capsule) -> DLPackView (takes the tensor; release() runs its deleter)"},
    {"has_buffer", ghzpy_has_buffer, METH_O, "has_buffer(obj) -> bool"},
#if GHZPY_WITH_CUDA
    {"cuda_compress", ghzpy_cuda_compress, METH_VARARGS,
     "cuda_compress(ptr or DeviceBuffer, n, dtype, mode, bound, fill, value_range, stream) "
     "-> DeviceBuffer"},
    {"cuda_decompress", ghzpy_cuda_decompress, METH_VARARGS,
     "cuda_decompress(frame, frame_ptr, frame_size, out_ptr or DeviceBuffer, out_bytes, "
     "out_dtype, stream, max_frame_bytes) -> DeviceBuffer or None"},
    {"cuda_mallocs", ghzpy_cuda_mallocs, METH_NOARGS,
     "cuda_mallocs() -> int: cudaMalloc calls of the DeviceBuffer cache so far (benchmarks)"},
    {"cuda_to_device", ghzpy_cuda_to_device, METH_VARARGS, "cuda_to_device(array) -> DeviceBuffer"},
#endif
    {"versions", ghzpy_versions, METH_NOARGS,
     "versions() -> (library version number, format version)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ghz",
    "The C layer of the ghz package over libghz (use the functions of ghz instead).", -1,
    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__ghz(void)
{
    PyObject* m = PyModule_Create(&module);
    if (!m) return NULL;
    if (ghzpy_init_errors(m) < 0 || ghzpy_init_dlpack(m) < 0 ||
        PyModule_AddIntConstant(m, "F32", GHZ_F32) < 0 ||
        PyModule_AddIntConstant(m, "F64", GHZ_F64) < 0 ||
        PyModule_AddIntConstant(m, "ABS", GHZ_EB_ABS) < 0 ||
        PyModule_AddIntConstant(m, "REL", GHZ_EB_REL) < 0 ||
        PyModule_AddIntConstant(m, "OP_ADD", GHZ_HOMO_SUM) < 0 ||
        PyModule_AddIntConstant(m, "OP_SUB", GHZ_HOMO_SUB) < 0 ||
        PyModule_AddIntConstant(m, "OP_MIN", GHZ_HOMO_MIN) < 0 ||
        PyModule_AddIntConstant(m, "OP_MAX", GHZ_HOMO_MAX) < 0 ||
        PyModule_AddObject(m, "FRAME_LIMIT_DEFAULT",
                           PyLong_FromUnsignedLongLong(GHZ_FRAME_LIMIT_DEFAULT)) < 0 ||
        PyModule_AddIntConstant(m, "H5Z_FILTER_ID", GHZ_H5Z_FILTER_ID) < 0 ||
        PyModule_AddIntConstant(m, "HEADER_SIZE", GHZ_HEADER_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "CUDA", GHZPY_WITH_CUDA) < 0
#if GHZPY_WITH_CUDA
        || ghzpy_init_cuda(m) < 0
#endif
    ) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
