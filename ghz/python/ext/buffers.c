/* ghz/python/ext/buffers.c: Python buffers as the pointers and sizes ghz takes.
 * Arrays are taken as they are (zero copy) or refused: a strided view would need a
 * copy that the caller should see and pay for explicitly (numpy.ascontiguousarray). */
#include <stdint.h>
#include <string.h>

#include "ext.h"

static int native_little(void)
{
    const union { uint16_t u; uint8_t b[2]; } probe = {1};
    return probe.b[0] == 1;
}

/* The element type of a struct-module format of one native float ("f", "=f", "<f" on
 * a little-endian machine...), 0 for anything else. */
static ghz_dtype_t float_format(const char* fmt, Py_ssize_t itemsize)
{
    const int little = native_little();
    char kind;

    if (!fmt) return 0; /* no format asked or given: bytes */
    if (fmt[0] == '@' || fmt[0] == '=' || (fmt[0] == '<' && little) || (fmt[0] == '>' && !little) ||
        (fmt[0] == '!' && !little))
        fmt++;
    if (fmt[0] == '\0' || fmt[1] != '\0') return 0;
    kind = fmt[0];
    if (kind == 'f' && itemsize == 4) return GHZ_F32;
    if (kind == 'd' && itemsize == 8) return GHZ_F64;
    return 0;
}

/* The item size (4 or 8) of a format of one float in the byte order that is not this
 * machine's ("<f" on a big-endian machine, ">f" or "!d" on a little-endian one), 0 for
 * anything else: for the message that says how to convert it. */
static int foreign_order_float(const char* fmt, Py_ssize_t itemsize)
{
    int little = native_little();
    if (!fmt || !((fmt[0] == '<' && !little) || ((fmt[0] == '>' || fmt[0] == '!') && little)))
        return 0;
    if (fmt[1] == 'f' && fmt[2] == '\0' && itemsize == 4) return 4;
    if (fmt[1] == 'd' && fmt[2] == '\0' && itemsize == 8) return 8;
    return 0;
}

int ghzpy_float_buffer(PyObject* obj, Py_buffer* view, int writable, ghz_dtype_t* dtype,
                       const char* what)
{
    int bytes, flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);

    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "ghz.%s: expected an array of float32 or float64 (an object with the "
                     "buffer protocol, e.g. a numpy.ndarray), got %.100s",
                     what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        /* Why the export failed, in ghz's words: a strided view or a read-only output
         * (numpy says so with a ValueError, memoryview with a BufferError). */
        if (PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            if (writable && PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) == 0) {
                PyBuffer_Release(view);
                PyErr_Format(PyExc_ValueError, "ghz.%s: the output array is read-only", what);
            } else {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError,
                             "ghz.%s: the array is not C-contiguous; ghz does not copy "
                             "(pass numpy.ascontiguousarray(a))",
                             what);
            }
        }
        return -1;
    }
    *dtype = float_format(view->format, view->itemsize);
    if (*dtype == 0 && (bytes = foreign_order_float(view->format, view->itemsize)) != 0) {
        PyErr_Format(PyExc_TypeError,
                     "ghz.%s: the array holds float%d values in %s-endian byte order "
                     "(numpy dtype '%cf%d'); ghz takes float32 or float64 in this machine's "
                     "(%s-endian) byte order: pass arr.astype('%cf%d')",
                     what, bytes * 8, native_little() ? "big" : "little",
                     native_little() ? '>' : '<', bytes, native_little() ? "little" : "big",
                     native_little() ? '<' : '>', bytes);
        PyBuffer_Release(view);
        return -1;
    }
    if (*dtype == 0) {
        PyErr_Format(PyExc_TypeError,
                     "ghz.%s: ghz takes float32 or float64 values in native byte order, got "
                     "buffer format '%s' (item size %zd)",
                     what, view->format ? view->format : "B", view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

int ghzpy_byte_buffer(PyObject* obj, Py_buffer* view, const char* what)
{
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "ghz.%s: expected a ghz frame (bytes, bytearray, memoryview or an array "
                     "of bytes), got %.100s",
                     what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) < 0) {
        if (PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "ghz.%s: the frame's memory is not contiguous", what);
        }
        return -1;
    }
    return 0;
}

int ghzpy_bytes_shrink(PyObject** out, size_t size)
{
    /* glibc shrinks a large block in place (mremap): no copy of the frame. */
    return _PyBytes_Resize(out, (Py_ssize_t)size);
}

int ghzpy_fill_range(PyObject* fill, PyObject* range, int* has_fill, double* fill_value,
                     int* has_range, double* range_min, double* range_max)
{
    *has_fill = fill != Py_None;
    if (*has_fill) {
        *fill_value = PyFloat_AsDouble(fill);
        if (*fill_value == -1.0 && PyErr_Occurred()) return -1;
    }
    *has_range = range != Py_None;
    if (*has_range && !PyArg_ParseTuple(range, "dd:value_range", range_min, range_max)) return -1;
    return 0;
}
