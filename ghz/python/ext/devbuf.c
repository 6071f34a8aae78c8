/* ghz/python/ext/devbuf.c: ghz.DeviceBuffer, device memory that ghz allocated (a frame,
 * or decoded values), which CuPy, PyTorch and Numba view without a copy through its
 * __cuda_array_interface__. Its memory returns to its device's cache (devices.c). */
#include <string.h>

#include "cuda_ext.h"

static void devbuf_dealloc(DeviceBuffer* self)
{
    if (self->ptr) {
        int prev = 0;
        if (cudaGetDevice(&prev) == cudaSuccess && cudaSetDevice(self->device) == cudaSuccess) {
            block b;
            b.ptr = self->ptr;
            b.cap = self->cap;
            ghzpy_block_put(ghzpy_slot(self->device), b);
            (void)cudaSetDevice(prev);
        }
        (void)cudaGetLastError();
    }
    Py_TYPE(self)->tp_free((PyObject*)self);
}

/* __cuda_array_interface__ (version 3): a 1-D C-contiguous array; stream None, since
 * the values are complete when the object is handed out. */
static PyObject* devbuf_cai(DeviceBuffer* self, void* closure)
{
    (void)closure;
    return Py_BuildValue("{s:(n),s:s,s:(nO),s:i,s:O,s:O}", "shape", self->n, "typestr",
                         self->typestr, "data", (Py_ssize_t)(uintptr_t)self->ptr, Py_False,
                         "version", 3, "strides", Py_None, "stream", Py_None);
}

static PyObject* devbuf_nbytes(DeviceBuffer* self, void* closure)
{
    (void)closure;
    return PyLong_FromSize_t(self->nbytes);
}

static PyObject* devbuf_device(DeviceBuffer* self, void* closure)
{
    (void)closure;
    return PyLong_FromLong(self->device);
}

static PyObject* devbuf_typestr(DeviceBuffer* self, void* closure)
{
    (void)closure;
    return PyUnicode_FromString(self->typestr);
}

static Py_ssize_t devbuf_len(DeviceBuffer* self) { return self->n; }

/* tobytes(): the bytes, copied to the host (blocking). */
static PyObject* devbuf_tobytes(DeviceBuffer* self, PyObject* unused)
{
    PyObject* out;
    cudaError_t e = cudaSuccess;
    int prev = 0;
    (void)unused;
    if (!(out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)self->nbytes))) return NULL;
    if (self->nbytes) {
        Py_BEGIN_ALLOW_THREADS
        e = cudaGetDevice(&prev);
        if (e == cudaSuccess) e = cudaSetDevice(self->device);
        if (e == cudaSuccess) {
            e = cudaMemcpy(PyBytes_AS_STRING(out), self->ptr, self->nbytes, cudaMemcpyDeviceToHost);
            (void)cudaSetDevice(prev);
        }
        Py_END_ALLOW_THREADS
    }
    if (e != cudaSuccess) {
        Py_DECREF(out);
        (void)cudaGetLastError();
        return ghzpy_raise_detail(GHZ_ERR_CUDA, "DeviceBuffer.tobytes", cudaGetErrorString(e));
    }
    return out;
}

static PyGetSetDef devbuf_getset[] = {
    {"__cuda_array_interface__", (getter)devbuf_cai, NULL, "CUDA Array Interface, version 3", NULL},
    {"nbytes", (getter)devbuf_nbytes, NULL, "bytes of device memory held", NULL},
    {"device", (getter)devbuf_device, NULL, "CUDA device ordinal", NULL},
    {"typestr", (getter)devbuf_typestr, NULL, "'|u1' for a frame, '<f4' or '<f8' for values", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef devbuf_methods[] = {
    {"tobytes", (PyCFunction)devbuf_tobytes, METH_NOARGS, "The contents, copied to the host."},
    {"__bytes__", (PyCFunction)devbuf_tobytes, METH_NOARGS, "The contents, copied to the host."},
    {NULL, NULL, 0, NULL}};

static PySequenceMethods devbuf_seq = {(lenfunc)devbuf_len, 0, 0, 0, 0, 0, 0, 0, 0, 0};

static PyTypeObject DeviceBufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ghz.DeviceBuffer",
    .tp_basicsize = sizeof(DeviceBuffer),
    .tp_dealloc = (destructor)devbuf_dealloc,
    .tp_as_sequence = &devbuf_seq,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Device memory that ghz allocated: a frame (typestr '|u1') or decoded values "
              "('<f4', '<f8'). cupy.asarray(b) and torch.as_tensor(b, device='cuda') view it "
              "without a copy; tobytes() copies it to the host.",
    .tp_methods = devbuf_methods,
    .tp_getset = devbuf_getset,
};

DeviceBuffer* ghzpy_devbuf_new(int device, const char* typestr)
{
    DeviceBuffer* b = PyObject_New(DeviceBuffer, &DeviceBufferType);
    if (!b) return NULL;
    b->ptr = NULL;
    b->cap = 0;
    b->nbytes = 0;
    b->n = 0;
    b->device = device;
    strcpy(b->typestr, typestr);
    b->frame_dtype = 0;
    b->frame_n = 0;
    return b;
}

int ghzpy_is_devbuf(PyObject* obj) { return Py_IS_TYPE(obj, &DeviceBufferType); }

int ghzpy_init_cuda(PyObject* m)
{
    if (PyType_Ready(&DeviceBufferType) < 0) return -1;
    return PyModule_AddObjectRef(m, "DeviceBuffer", (PyObject*)&DeviceBufferType);
}
