/* ghz/python/ext/homo.c: the element-wise operations of ghz/homo/homo.h on frames. */
#include "ext.h"

/* homo(op, a, b) -> bytes: op(a, b) as a new stream (ghz_homo_binary). */
PyObject* ghzpy_homo(PyObject* self, PyObject* args)
{
    PyObject *a, *b, *out = NULL;
    int op;
    Py_buffer av, bv;
    ghz_buf_t ba = GHZ_BUF_INIT, bb = GHZ_BUF_INIT, bo = GHZ_BUF_INIT;
    ghz_status_t st;
    size_t cap = 0;
    const char* what;
    (void)self;

    if (!PyArg_ParseTuple(args, "iOO:homo", &op, &a, &b)) return NULL;
    what = op == GHZ_HOMO_SUM ? "add" : op == GHZ_HOMO_SUB ? "sub" : op == GHZ_HOMO_MIN ? "min"
         : op == GHZ_HOMO_MAX ? "max" : "homo";
    if (ghzpy_byte_buffer(a, &av, what) < 0) return NULL;
    if (ghzpy_byte_buffer(b, &bv, what) < 0) {
        PyBuffer_Release(&av);
        return NULL;
    }
    ba.data = av.buf;
    ba.size = ba.capacity = (size_t)av.len;
    bb.data = bv.buf;
    bb.size = bb.capacity = (size_t)bv.len;

    Py_BEGIN_ALLOW_THREADS
    st = ghz_homo_bound(ba.data, ba.size, &cap);
    Py_END_ALLOW_THREADS
    if (st != GHZ_SUCCESS) {
        ghzpy_raise(st, what);
        goto done;
    }
    if (cap > PY_SSIZE_T_MAX) {
        PyErr_SetString(PyExc_OverflowError, "ghz: the result is too large");
        goto done;
    }
    if (!(out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap))) goto done;
    bo.data = PyBytes_AS_STRING(out);
    bo.capacity = cap;

    Py_BEGIN_ALLOW_THREADS
    st = ghz_homo_binary((ghz_homo_op_t)op, &ba, &bb, &bo);
    Py_END_ALLOW_THREADS
    if (st != GHZ_SUCCESS) {
        Py_CLEAR(out);
        ghzpy_raise(st, what);
    } else if (ghzpy_bytes_shrink(&out, bo.size) < 0) {
        out = NULL;
    }
done:
    PyBuffer_Release(&bv);
    PyBuffer_Release(&av);
    return out;
}
