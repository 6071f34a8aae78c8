/* ghz/python/ext/errors.c: GhzError, the one exception the module raises for a ghz
 * status, and the status codes as module constants (ghz.Status is built from them). */
#include "ext.h"

PyObject* ghzpy_error = NULL;

/* The names of ghz/errors.h, whose values are pinned. */
static const struct {
    const char* name;
    ghz_status_t value;
} status_names[] = {
    {"SUCCESS", GHZ_SUCCESS},
    {"ERR_INVALID_ARG", GHZ_ERR_INVALID_ARG},
    {"ERR_BAD_BOUND", GHZ_ERR_BAD_BOUND},
    {"ERR_DST_TOO_SMALL", GHZ_ERR_DST_TOO_SMALL},
    {"ERR_TRUNCATED", GHZ_ERR_TRUNCATED},
    {"ERR_CORRUPT", GHZ_ERR_CORRUPT},
    {"ERR_NOT_GHZ", GHZ_ERR_NOT_GHZ},
    {"ERR_VERSION", GHZ_ERR_VERSION},
    {"ERR_UNSUPPORTED", GHZ_ERR_UNSUPPORTED},
    {"ERR_MISMATCH", GHZ_ERR_MISMATCH},
    {"ERR_OVERFLOW", GHZ_ERR_OVERFLOW},
    {"ERR_NOMEM", GHZ_ERR_NOMEM},
    {"ERR_IO", GHZ_ERR_IO},
    {"ERR_CUDA", GHZ_ERR_CUDA},
    {"ERR_NO_DEVICE", GHZ_ERR_NO_DEVICE},
    {"ERR_MPI", GHZ_ERR_MPI},
    {"ERR_NCCL", GHZ_ERR_NCCL},
    {"ERR_PEER", GHZ_ERR_PEER},
    {"ERR_LIMIT", GHZ_ERR_LIMIT},
};

int ghzpy_init_errors(PyObject* m)
{
    PyObject* names;
    size_t i;
    int rc;

    ghzpy_error = PyErr_NewExceptionWithDoc(
        "ghz.GhzError",
        "A ghz call failed. .status is ghz's status code (a ghz.Status), .detail the "
        "library's detail message (which field, which block), str() both.",
        PyExc_ValueError, NULL);
    if (!ghzpy_error) return -1;
    if (PyModule_AddObjectRef(m, "GhzError", ghzpy_error) < 0) return -1;

    /* _STATUS_NAMES: {name: value}, in the order of errors.h. */
    if (!(names = PyDict_New())) return -1;
    for (i = 0; i < sizeof status_names / sizeof status_names[0]; i++) {
        PyObject* v = PyLong_FromLong((long)status_names[i].value);
        if (!v || PyDict_SetItemString(names, status_names[i].name, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(names);
            return -1;
        }
        Py_DECREF(v);
    }
    rc = PyModule_AddObjectRef(m, "_STATUS_NAMES", names);
    Py_DECREF(names);
    return rc;
}

PyObject* ghzpy_raise(ghz_status_t st, const char* what)
{
    return ghzpy_raise_detail(st, what, ghz_last_error_detail());
}

PyObject* ghzpy_raise_detail(ghz_status_t st, const char* what, const char* detail)
{
    PyObject *exc, *msg, *code, *det;

    msg = detail && *detail
              ? PyUnicode_FromFormat("ghz.%s: %s: %s", what, ghz_status_string(st), detail)
              : PyUnicode_FromFormat("ghz.%s: %s", what, ghz_status_string(st));
    if (!msg) return NULL;
    exc = PyObject_CallOneArg(ghzpy_error, msg);
    Py_DECREF(msg);
    if (!exc) return NULL;
    code = PyLong_FromLong((long)st);
    det = PyUnicode_FromString(detail ? detail : "");
    if (!code || !det || PyObject_SetAttrString(exc, "status", code) < 0 ||
        PyObject_SetAttrString(exc, "detail", det) < 0) {
        Py_XDECREF(code);
        Py_XDECREF(det);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(code);
    Py_DECREF(det);
    PyErr_SetObject(ghzpy_error, exc);
    Py_DECREF(exc);
    return NULL;
}
