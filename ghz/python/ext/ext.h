/* ghz/python/ext/ext.h: what the files of the extension module ghz._ghz share.
 *
 * The module is a thin layer over the C API of ghz::codec (codec.h, homo.h): it turns
 * Python buffers into pointers and sizes, releases the GIL around every ghz call, and
 * turns a ghz_status_t into a GhzError. It never copies an input. */
#ifndef GHZ_PYTHON_EXT_H
#define GHZ_PYTHON_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ghz/ghz.h"

#ifdef GHZ_WITH_CUDA
#define GHZPY_WITH_CUDA 1
#else
#define GHZPY_WITH_CUDA 0
#endif

/* ghz._ghz.GhzError (a ValueError): .status is the ghz_status_t, .detail the library's
 * detail message. Set by ghzpy_init_errors. */
extern PyObject* ghzpy_error;

/* Adds GhzError and the GHZ_ERR_* constants to module m: 0, or -1 with an exception. */
int ghzpy_init_errors(PyObject* m);

/* Raises GhzError for status st (ghz_last_error_detail() of this thread as the detail);
 * `what` names the call ("compress"). Returns NULL. */
PyObject* ghzpy_raise(ghz_status_t st, const char* what);

/* The same with a detail of the caller's (a CUDA runtime error string). */
PyObject* ghzpy_raise_detail(ghz_status_t st, const char* what, const char* detail);

/* Exports obj's memory as one C-contiguous run of float32 or float64 values, native
 * byte order, into *view (PyBuffer_Release it), its element type in *dtype. Raises
 * TypeError for another element type or an object without the buffer protocol, and
 * ValueError for a strided array (ghz does not copy). Returns 0 or -1. */
int ghzpy_float_buffer(PyObject* obj, Py_buffer* view, int writable, ghz_dtype_t* dtype,
                       const char* what);

/* Exports obj's memory as contiguous bytes (a frame): 0 or -1 with an exception. */
int ghzpy_byte_buffer(PyObject* obj, Py_buffer* view, const char* what);

/* The optional fill value (None or a float) and REL range (None or (min, max)) of a
 * call: 0, or -1 with an exception. */
int ghzpy_fill_range(PyObject* fill, PyObject* range, int* has_fill, double* fill_value,
                     int* has_range, double* range_min, double* range_max);

/* Shrinks the bytes object *out, allocated with room for a worst case, to size bytes:
 * 0 or -1 (then *out is NULL and an exception set). */
int ghzpy_bytes_shrink(PyObject** out, size_t size);

/* The module's functions (codec.c, homo.c, h5z.c). */
PyObject* ghzpy_compress(PyObject* self, PyObject* args);
PyObject* ghzpy_decompress(PyObject* self, PyObject* args);
PyObject* ghzpy_info(PyObject* self, PyObject* args);
PyObject* ghzpy_header(PyObject* self, PyObject* args);
PyObject* ghzpy_value_range(PyObject* self, PyObject* args);
PyObject* ghzpy_homo(PyObject* self, PyObject* args);
PyObject* ghzpy_h5z_cd_values(PyObject* self, PyObject* args);

/* DLPack (dlpack.c): the view of a producer's capsule, and a buffer-protocol probe. */
int ghzpy_init_dlpack(PyObject* m);
PyObject* ghzpy_dlpack_view(PyObject* self, PyObject* capsule);
PyObject* ghzpy_has_buffer(PyObject* self, PyObject* obj);

#if GHZPY_WITH_CUDA
/* CUDA arrays (cuda.c): DeviceBuffer and the calls on device memory. */
int ghzpy_init_cuda(PyObject* m);
PyObject* ghzpy_cuda_compress(PyObject* self, PyObject* args);
PyObject* ghzpy_cuda_decompress(PyObject* self, PyObject* args);
PyObject* ghzpy_cuda_to_device(PyObject* self, PyObject* args);
PyObject* ghzpy_cuda_mallocs(PyObject* self, PyObject* unused);
#endif

#endif
