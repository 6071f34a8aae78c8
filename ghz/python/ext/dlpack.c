/* ghz/python/ext/dlpack.c: the consumer side of DLPack (dlpack.h).
 *
 * ghz/python/ghz/_api.py calls a producer's __dlpack__ (with the stream ghz will run on,
 * so that the producer orders its pending work before ours) and hands the capsule to
 * dlpack_view here, which takes the tensor out of it and describes it: pointer, element
 * count, a type string in the CUDA Array Interface's spelling ("<f4", "|u1"), device,
 * layout and flags, so that the Python layer applies one set of rules to CUDA Array
 * Interface and DLPack arrays. The view owns the tensor: its deleter runs at release()
 * or when the view is freed, after ghz's (synchronous) call is over.
 *
 * A view of host memory (kDLCPU) also exports the buffer protocol, as one C-contiguous
 * run of its elements, so that the CPU calls (codec.c) take it as they take a numpy
 * array: no copy, the same checks. Nothing here copies the memory. */
#include <stdio.h>
#include <string.h>

#include "dlpack.h"
#include "ext.h"

typedef struct {
    PyObject_HEAD
    void* managed;   /* ghzpy_dl_managed* or ghzpy_dl_managed_versioned*; NULL once released */
    int versioned;
    char* data;      /* the first element (data + byte_offset) */
    Py_ssize_t n;    /* elements */
    Py_ssize_t itemsize; /* bytes per element; 0 for a type of no whole bytes */
    int device_type;
    int device_id;
    int readonly;    /* the producer's READ_ONLY flag (versioned tensors only) */
    int copied;      /* the producer's IS_COPIED flag: not the producer's own memory */
    int contiguous;  /* C-contiguous (or at most one element) */
    char typestr[40];
    const char* format; /* struct-module format for the buffer protocol, or NULL */
    Py_ssize_t shape[1];
    Py_ssize_t strides[1];
    Py_ssize_t exports; /* buffer exports alive: release() waits for none */
} DLView;

static void call_deleter(void* managed, int versioned)
{
    if (versioned) {
        ghzpy_dl_managed_versioned* m = managed;
        if (m->deleter) m->deleter(m);
    } else {
        ghzpy_dl_managed* m = managed;
        if (m->deleter) m->deleter(m);
    }
}

static void view_free_tensor(DLView* self)
{
    void* m = self->managed;
    PyObject *type, *value, *tb;
    if (!m) return;
    self->managed = NULL;
    self->data = NULL;
    /* A deleter may run Python code (numpy's does, and a ctypes one), which must not
     * start with an exception set: ours, when a refused tensor is freed, waits aside. */
    PyErr_Fetch(&type, &value, &tb);
    call_deleter(m, self->versioned);
    PyErr_Restore(type, value, tb);
}

static void view_dealloc(DLView* self)
{
    view_free_tensor(self);
    Py_TYPE(self)->tp_free((PyObject*)self);
}

/* The type string of a DLPack dtype, numpy's typestr where there is one (native byte
 * order: DLPack has no other), and the struct-module format of the buffer protocol. */
static void describe_dtype(DLView* v, ghzpy_dl_dtype t)
{
    const union { uint16_t u; uint8_t b[2]; } probe = {1};
    const char order = probe.b[0] == 1 ? '<' : '>';
    char kind = 0;
    v->format = NULL;
    v->itemsize = 0;
    switch (t.code) {
    case GHZPY_DL_INT: kind = 'i'; break;
    case GHZPY_DL_UINT: kind = 'u'; break;
    case GHZPY_DL_FLOAT: kind = 'f'; break;
    case GHZPY_DL_BOOL: kind = 'b'; break;
    default: break;
    }
    if (kind && t.lanes == 1 && t.bits % 8 == 0 && t.bits > 0) {
        int bytes = t.bits / 8;
        v->itemsize = bytes;
        snprintf(v->typestr, sizeof v->typestr, "%c%c%d", bytes == 1 ? '|' : order, kind, bytes);
        /* The struct-module letters of numpy's buffers, so that the CPU calls name the
         * type they refuse as they do for a numpy array. */
        static const struct {
            char kind;
            int bytes;
            const char* format;
        } formats[] = {{'f', 2, "e"}, {'f', 4, "f"}, {'f', 8, "d"}, {'i', 1, "b"},
                       {'i', 2, "h"}, {'i', 4, "i"}, {'i', 8, "q"}, {'u', 1, "B"},
                       {'u', 2, "H"}, {'u', 4, "I"}, {'u', 8, "Q"}, {'b', 1, "?"}};
        size_t k;
        for (k = 0; k < sizeof formats / sizeof formats[0]; k++)
            if (formats[k].kind == kind && formats[k].bytes == bytes) v->format = formats[k].format;
    } else {
        snprintf(v->typestr, sizeof v->typestr, "dlpack(code=%u,bits=%u,lanes=%u)",
                 (unsigned)t.code, (unsigned)t.bits, (unsigned)t.lanes);
    }
}

/* Fills v from the tensor t: 0, or -1 with an exception (v still owns the tensor). */
static int describe_tensor(DLView* v, const ghzpy_dl_tensor* t)
{
    int64_t n = 1, expect = 1;
    int32_t i;

    describe_dtype(v, t->dtype);
    if (t->ndim < 0 || (t->ndim > 0 && !t->shape)) {
        PyErr_SetString(PyExc_BufferError, "ghz: a DLPack tensor without a valid shape");
        return -1;
    }
    for (i = 0; i < t->ndim; i++) {
        if (t->shape[i] < 0) {
            PyErr_SetString(PyExc_BufferError, "ghz: a DLPack tensor with a negative extent");
            return -1;
        }
        if (t->shape[i] && n > (int64_t)(PY_SSIZE_T_MAX / 8) / t->shape[i]) {
            PyErr_SetString(PyExc_OverflowError, "ghz: the DLPack tensor is too large");
            return -1;
        }
        n *= t->shape[i];
    }
    /* Strides count elements. NULL (compact row-major) and any layout of at most one
     * element are contiguous; otherwise every dimension of more than one element must
     * step by the product of the extents after it. */
    v->contiguous = 1;
    if (t->strides && n > 1) {
        for (i = t->ndim - 1; i >= 0; i--) {
            if (t->shape[i] != 1 && t->strides[i] != expect) {
                v->contiguous = 0;
                break;
            }
            expect *= t->shape[i];
        }
    }
    v->n = (Py_ssize_t)n;
    v->data = t->data ? (char*)t->data + t->byte_offset : NULL;
    v->device_type = t->device.device_type;
    v->device_id = t->device.device_id;
    v->shape[0] = v->n;
    v->strides[0] = v->itemsize;
    return 0;
}

static PyTypeObject DLViewType;

/* dlpack_view(capsule) -> DLPackView: takes the tensor out of a producer's capsule. */
PyObject* ghzpy_dlpack_view(PyObject* self, PyObject* capsule)
{
    DLView* v;
    const ghzpy_dl_tensor* t;
    (void)self;

    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "ghz: __dlpack__ returned %.100s, not a capsule",
                     Py_TYPE(capsule)->tp_name);
        return NULL;
    }
    if (!(v = PyObject_New(DLView, &DLViewType))) return NULL;
    v->managed = NULL;
    v->versioned = 0;
    v->data = NULL;
    v->exports = 0;
    v->readonly = v->copied = 0;

    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        ghzpy_dl_managed_versioned* m = PyCapsule_GetPointer(capsule, "dltensor_versioned");
        /* Ours from here: renamed first, so that the capsule's destructor leaves it. */
        if (!m || PyCapsule_SetName(capsule, "used_dltensor_versioned") < 0) goto fail;
        v->managed = m;
        v->versioned = 1;
        if (m->version.major != GHZPY_DLPACK_MAJOR) {
            /* Only version, manager_ctx and deleter may be read in another major
             * version: free it unread. */
            PyErr_Format(PyExc_BufferError,
                         "ghz: the producer gave a DLPack %u.%u tensor; ghz reads major version %d",
                         (unsigned)m->version.major, (unsigned)m->version.minor, GHZPY_DLPACK_MAJOR);
            goto fail;
        }
        v->readonly = (m->flags & GHZPY_DL_FLAG_READ_ONLY) != 0;
        v->copied = (m->flags & GHZPY_DL_FLAG_IS_COPIED) != 0;
        t = &m->dl_tensor;
    } else if (PyCapsule_IsValid(capsule, "dltensor")) {
        ghzpy_dl_managed* m = PyCapsule_GetPointer(capsule, "dltensor");
        if (!m || PyCapsule_SetName(capsule, "used_dltensor") < 0) goto fail;
        v->managed = m;
        v->versioned = 0; /* no flags before 1.0: producers refuse to export read-only memory */
        t = &m->dl_tensor;
    } else {
        const char* name = PyCapsule_GetName(capsule);
        PyErr_Clear();
        PyErr_Format(PyExc_BufferError,
                     name && strncmp(name, "used_", 5) == 0
                         ? "ghz: the DLPack capsule was already consumed (%s)"
                         : "ghz: not a DLPack capsule (named %s)",
                     name ? name : "NULL");
        goto fail;
    }
    if (describe_tensor(v, t) < 0) goto fail;
    return (PyObject*)v;
fail:
    Py_DECREF(v); /* runs the deleter of a tensor already taken */
    return NULL;
}

/* has_buffer(obj) -> bool: obj exports the buffer protocol (numpy arrays: they also speak
 * DLPack, and keep the buffer path). */
PyObject* ghzpy_has_buffer(PyObject* self, PyObject* obj)
{
    (void)self;
    return PyBool_FromLong(PyObject_CheckBuffer(obj));
}

static int view_getbuffer(DLView* self, Py_buffer* view, int flags)
{
    if (!self->managed) {
        PyErr_SetString(PyExc_BufferError, "ghz: the DLPack view was released");
        return -1;
    }
    if (self->device_type != GHZPY_DL_CPU) {
        PyErr_SetString(PyExc_BufferError, "ghz: a DLPack tensor in device memory has no host buffer");
        return -1;
    }
    if (!self->contiguous) {
        PyErr_SetString(PyExc_BufferError, "ghz: the DLPack tensor is not C-contiguous");
        return -1;
    }
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && self->readonly) {
        PyErr_SetString(PyExc_BufferError, "ghz: the DLPack tensor is read-only");
        return -1;
    }
    if (!self->format) {
        /* A TypeError, which the CPU calls pass on as it is (a BufferError would read as
         * a layout problem there). */
        PyErr_Format(PyExc_TypeError,
                     "ghz takes float32 or float64 values in native byte order, got a DLPack "
                     "tensor of %s",
                     self->typestr);
        return -1;
    }
    view->obj = Py_NewRef((PyObject*)self);
    view->buf = self->data;
    view->len = self->n * self->itemsize;
    view->readonly = self->readonly;
    view->itemsize = self->itemsize;
    view->format = (flags & PyBUF_FORMAT) ? (char*)self->format : NULL;
    view->ndim = 1;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? self->shape : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    self->exports++;
    return 0;
}

static void view_releasebuffer(DLView* self, Py_buffer* view)
{
    (void)view;
    self->exports--;
}

/* release(): runs the tensor's deleter now (the memory is the producer's again). */
static PyObject* view_release(DLView* self, PyObject* unused)
{
    (void)unused;
    if (self->exports > 0) {
        PyErr_SetString(PyExc_BufferError, "ghz: the DLPack view is still exported");
        return NULL;
    }
    view_free_tensor(self);
    Py_RETURN_NONE;
}

static PyObject* view_ptr(DLView* self, void* closure)
{
    (void)closure;
    return PyLong_FromSize_t((size_t)(uintptr_t)self->data);
}

static PyObject* view_typestr(DLView* self, void* closure)
{
    (void)closure;
    return PyUnicode_FromString(self->typestr);
}

static PyObject* view_flag(DLView* self, void* closure)
{
    /* closure: the offset of the int field */
    return PyBool_FromLong(*(int*)((char*)self + (size_t)(uintptr_t)closure));
}

static PyObject* view_int(DLView* self, void* closure)
{
    return PyLong_FromLong(*(int*)((char*)self + (size_t)(uintptr_t)closure));
}

static PyObject* view_n(DLView* self, void* closure)
{
    (void)closure;
    return PyLong_FromSsize_t(self->n);
}

#define FIELD(f) ((void*)(uintptr_t)offsetof(DLView, f))

static PyGetSetDef view_getset[] = {
    {"ptr", (getter)view_ptr, NULL, "address of the first element", NULL},
    {"n", (getter)view_n, NULL, "elements", NULL},
    {"typestr", (getter)view_typestr, NULL, "'<f4', '<f8', '|u1', ... (numpy's spelling)", NULL},
    {"device_type", (getter)view_int, NULL, "DLPack device type (1 CPU, 2 CUDA)", FIELD(device_type)},
    {"device_id", (getter)view_int, NULL, "DLPack device ordinal", FIELD(device_id)},
    {"readonly", (getter)view_flag, NULL, "the producer marked it read-only", FIELD(readonly)},
    {"copied", (getter)view_flag, NULL, "the producer gave a copy, not its memory", FIELD(copied)},
    {"contiguous", (getter)view_flag, NULL, "C-contiguous", FIELD(contiguous)},
    {"versioned", (getter)view_flag, NULL, "a DLPack >= 1.0 tensor", FIELD(versioned)},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef view_methods[] = {
    {"release", (PyCFunction)view_release, METH_NOARGS,
     "Runs the tensor's deleter now (also done when the view is freed)."},
    {NULL, NULL, 0, NULL}};

static PyBufferProcs view_as_buffer = {(getbufferproc)view_getbuffer,
                                       (releasebufferproc)view_releasebuffer};

static PyTypeObject DLViewType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ghz._ghz.DLPackView",
    .tp_basicsize = sizeof(DLView),
    .tp_dealloc = (destructor)view_dealloc,
    .tp_as_buffer = &view_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A DLPack tensor taken from a producer's capsule (internal to ghz).",
    .tp_methods = view_methods,
    .tp_getset = view_getset,
};

int ghzpy_init_dlpack(PyObject* m)
{
    if (PyType_Ready(&DLViewType) < 0) return -1;
    return PyModule_AddObjectRef(m, "DLPackView", (PyObject*)&DLViewType);
}
