/* ghz/python/ext/cuda.c: CUDA arrays on the CUDA codec (built only with GHZ_WITH_CUDA).
 *
 * The Python layer reads an array's __cuda_array_interface__ and passes its device
 * pointer, count, type and the caller's stream here. Work is enqueued on that stream
 * through the blocking conveniences of codec_cuda.h (ghz_cuda_*_sync), which wait for
 * it: a frame's size and a frame's status are known to the host when the call returns.
 * Each device has one ghz context (its workspace and scratch), used under a lock, so
 * that Python threads may call in parallel with the GIL released. Results live in
 * DeviceBuffer objects: device memory that CuPy, PyTorch and Numba view without a copy
 * through their own __cuda_array_interface__. A freed DeviceBuffer's memory is kept
 * for the next one of about its size (CACHE_BLOCKS per device): cudaMalloc and
 * cudaFree (which waits for the whole device) per call would cost more than the codec
 * on a 64 MiB array. */
#include <cuda_runtime_api.h>
#include <string.h>

#include "ext.h"
#include "ghz/codec/codec_cuda.h"

#define MAX_DEVICES 64
#define CACHE_BLOCKS 8

typedef struct {
    void* ptr;
    size_t cap;
} block;

/* One device's context and the scratch frame buffer compress writes into first (under
 * `lock`), and its cache of free blocks (under `cache_lock`, never held while waiting
 * for anything else). */
typedef struct {
    ghz_cuda_ctx_t* ctx;
    PyThread_type_lock lock;
    void* d_frame;
    size_t frame_cap;
    PyThread_type_lock cache_lock;
    block cache[CACHE_BLOCKS];
} device_slot;

static device_slot slots[MAX_DEVICES];

/* A cached block of at least `bytes` and at most about 1.5 times as many (first fit),
 * or a new one; `device` must be current. cudaSuccess or the allocation's error. */
static cudaError_t block_get(device_slot* s, size_t bytes, block* b)
{
    size_t i, most = bytes + bytes / 2 + ((size_t)1 << 20);
    cudaError_t e;
    PyThread_acquire_lock(s->cache_lock, WAIT_LOCK);
    for (i = 0; i < CACHE_BLOCKS; i++) {
        if (s->cache[i].ptr && s->cache[i].cap >= bytes && s->cache[i].cap <= most) {
            *b = s->cache[i];
            s->cache[i].ptr = NULL;
            PyThread_release_lock(s->cache_lock);
            return cudaSuccess;
        }
    }
    PyThread_release_lock(s->cache_lock);
    b->cap = bytes ? bytes : 1;
    e = cudaMalloc(&b->ptr, b->cap);
    if (e != cudaSuccess) b->ptr = NULL;
    return e;
}

/* Keeps b for later, or frees it when the cache is full (`device` current). */
static void block_put(device_slot* s, block b)
{
    size_t i;
    PyThread_acquire_lock(s->cache_lock, WAIT_LOCK);
    for (i = 0; i < CACHE_BLOCKS; i++) {
        if (!s->cache[i].ptr) {
            s->cache[i] = b;
            PyThread_release_lock(s->cache_lock);
            return;
        }
    }
    PyThread_release_lock(s->cache_lock);
    (void)cudaFree(b.ptr);
}

/* ---- DeviceBuffer ------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    void* ptr;      /* a block of `cap` bytes on `device` (NULL when none) */
    size_t cap;
    size_t nbytes;  /* valid bytes */
    Py_ssize_t n;   /* elements of typestr */
    int device;
    char typestr[4]; /* "|u1" (a frame), "<f4" or "<f8" (values) */
} DeviceBuffer;

static void devbuf_dealloc(DeviceBuffer* self)
{
    if (self->ptr) {
        int prev = 0;
        if (cudaGetDevice(&prev) == cudaSuccess && cudaSetDevice(self->device) == cudaSuccess) {
            block b;
            b.ptr = self->ptr;
            b.cap = self->cap;
            block_put(&slots[self->device], b); /* a DeviceBuffer's device has its slot */
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
    return Py_BuildValue("{s:(n),s:s,s:(NO),s:i,s:O,s:O}", "shape", self->n, "typestr",
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

/* ---- devices, contexts ----------------------------------------------------------------- */

static PyObject* cuda_error(cudaError_t e, const char* what)
{
    (void)cudaGetLastError();
    return ghzpy_raise_detail(e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver
                                  ? GHZ_ERR_NO_DEVICE
                                  : GHZ_ERR_CUDA,
                              what, cudaGetErrorString(e));
}

/* The device that holds ptr: 0 and *device, or -1 with an exception (host memory too). */
static int device_of(const void* ptr, int* device, const char* what)
{
    struct cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess) {
        cuda_error(e, what);
        return -1;
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) {
        PyErr_Format(PyExc_ValueError, "ghz.%s: the pointer is not device memory", what);
        return -1;
    }
    *device = a.device;
    return 0;
}

/* The slot of `device`, its lock created (under the GIL): NULL with an exception. */
static device_slot* slot_of(int device, const char* what)
{
    if (device < 0 || device >= MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "ghz.%s: device %d out of range", what, device);
        return NULL;
    }
    if ((!slots[device].lock && !(slots[device].lock = PyThread_allocate_lock())) ||
        (!slots[device].cache_lock && !(slots[device].cache_lock = PyThread_allocate_lock()))) {
        PyErr_NoMemory();
        return NULL;
    }
    return &slots[device];
}

/* With the slot's lock held and `device` current: a context reserved for n values. */
static ghz_status_t slot_ready(device_slot* s, int device, size_t n)
{
    ghz_status_t st;
    if (!s->ctx) {
        ghz_cuda_ctx_config_t cfg = GHZ_CUDA_CTX_CONFIG_INIT;
        cfg.device = device;
        if ((st = ghz_cuda_ctx_create(&cfg, &s->ctx)) != GHZ_SUCCESS) return st;
    }
    return ghz_cuda_ctx_reserve(s->ctx, 1, n ? n : 1);
}

static DeviceBuffer* devbuf_new(int device, const char* typestr)
{
    DeviceBuffer* b = PyObject_New(DeviceBuffer, &DeviceBufferType);
    if (!b) return NULL;
    b->ptr = NULL;
    b->cap = 0;
    b->nbytes = 0;
    b->n = 0;
    b->device = device;
    strcpy(b->typestr, typestr);
    return b;
}

/* ---- compress ------------------------------------------------------------------------ */

/* cuda_compress(ptr, n, dtype, mode, bound, fill, value_range, stream) -> DeviceBuffer */
PyObject* ghzpy_cuda_compress(PyObject* self, PyObject* args)
{
    unsigned long long ptr, stream;
    Py_ssize_t n;
    int dtype, mode, device = 0, prev = 0;
    double bound;
    PyObject *fill, *range;
    ghz_params_t p = GHZ_PARAMS_INIT;
    ghz_buf_t dst = GHZ_BUF_INIT;
    ghz_status_t st = GHZ_SUCCESS;
    cudaError_t e = cudaSuccess;
    device_slot* s;
    DeviceBuffer* out;
    size_t cap;
    (void)self;

    if (!PyArg_ParseTuple(args, "KniidOOK:cuda_compress", &ptr, &n, &dtype, &mode, &bound, &fill,
                          &range, &stream))
        return NULL;
    p.dtype = (ghz_dtype_t)dtype;
    p.eb_mode = (ghz_eb_mode_t)mode;
    p.eb = bound;
    p.exec = GHZ_EXEC_CUDA;
    if (ghzpy_fill_range(fill, range, &p.has_fill, &p.fill, &p.has_range, &p.range_min,
                         &p.range_max) < 0)
        return NULL;
    if ((cap = ghz_compress_bound((size_t)n, p.dtype)) == 0)
        return ghzpy_raise_detail(GHZ_ERR_INVALID_ARG, "compress", "bad dtype or size");
    if (n > 0 && device_of((const void*)(uintptr_t)ptr, &device, "compress") < 0) return NULL;
    if (n == 0 && (e = cudaGetDevice(&device)) != cudaSuccess) return cuda_error(e, "compress");
    if (!(s = slot_of(device, "compress"))) return NULL;
    if (!(out = devbuf_new(device, "|u1"))) return NULL;

    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(s->lock, WAIT_LOCK);
    e = cudaGetDevice(&prev);
    if (e == cudaSuccess && (e = cudaSetDevice(device)) == cudaSuccess &&
        (st = slot_ready(s, device, (size_t)n)) == GHZ_SUCCESS) {
        if (s->frame_cap < cap) { /* the scratch frame grows, never shrinks */
            if (s->d_frame) (void)cudaFree(s->d_frame);
            s->d_frame = NULL;
            s->frame_cap = 0;
            if ((e = cudaMalloc(&s->d_frame, cap)) == cudaSuccess) s->frame_cap = cap;
        }
        if (e == cudaSuccess) {
            dst.data = s->d_frame;
            dst.capacity = s->frame_cap;
            dst.where = GHZ_MEM_DEVICE;
            dst.device = device;
            st = ghz_cuda_compress_sync(s->ctx, &p, (const void*)(uintptr_t)ptr, (size_t)n, &dst,
                                        (cudaStream_t)(uintptr_t)stream);
        }
        /* The frame, at its size, into memory of its own (the scratch is reused). */
        if (e == cudaSuccess && st == GHZ_SUCCESS) {
            block b;
            if ((e = block_get(s, dst.size, &b)) == cudaSuccess) {
                out->ptr = b.ptr;
                out->cap = b.cap;
                e = cudaMemcpy(out->ptr, s->d_frame, dst.size, cudaMemcpyDeviceToDevice);
            }
        }
    }
    (void)cudaSetDevice(prev);
    PyThread_release_lock(s->lock);
    Py_END_ALLOW_THREADS

    if (e != cudaSuccess || st != GHZ_SUCCESS) {
        Py_DECREF(out);
        return e != cudaSuccess ? cuda_error(e, "compress") : ghzpy_raise(st, "compress");
    }
    out->nbytes = dst.size;
    out->n = (Py_ssize_t)dst.size;
    return (PyObject*)out;
}

/* ---- decompress ------------------------------------------------------------------------ */

/* cuda_decompress(frame, frame_ptr, frame_size, out_ptr, out_bytes, out_dtype, stream,
 *                 max_frame_bytes) -> DeviceBuffer or None
 * The frame is on the host (frame: a buffer; frame_ptr 0) or on the device (frame None,
 * frame_ptr and frame_size). The values go to out_ptr (out_bytes bytes of out_dtype),
 * or, with out_ptr 0, into a new DeviceBuffer on the frame's device. One frame. */
PyObject* ghzpy_cuda_decompress(PyObject* self, PyObject* args)
{
    PyObject* frame;
    unsigned long long fptr, fsize, optr, obytes, stream, limit;
    int odtype, device = 0, prev = 0, have_fv = 0;
    Py_buffer fv;
    unsigned char head[GHZ_HEADER_SIZE];
    ghz_dparams_t d = GHZ_DPARAMS_INIT;
    ghz_frame_info_t fi;
    ghz_buf_t src = GHZ_BUF_INIT;
    ghz_status_t st = GHZ_SUCCESS;
    cudaError_t e = cudaSuccess;
    device_slot* s;
    DeviceBuffer* out = NULL;
    void *d_src = NULL, *d_dst;
    block staged = {NULL, 0};
    size_t bytes, n_out = 0;
    PyObject* res = NULL;
    (void)self;

    if (!PyArg_ParseTuple(args, "OKKKKiKK:cuda_decompress", &frame, &fptr, &fsize, &optr, &obytes,
                          &odtype, &stream, &limit))
        return NULL;
    d.max_frame_bytes = limit;
    /* The header on the host first: the frame's type and size, within the limit. */
    if (frame != Py_None) {
        if (ghzpy_byte_buffer(frame, &fv, "decompress") < 0) return NULL;
        have_fv = 1;
        st = ghz_frame_info(fv.buf, (size_t)fv.len, &fi);
        if (st == GHZ_SUCCESS) st = ghz_frame_header(&d, fv.buf, (size_t)fv.len, &fi);
        if (st == GHZ_SUCCESS && fi.frame_size != (uint64_t)fv.len) {
            ghzpy_raise_detail(GHZ_ERR_UNSUPPORTED, "decompress",
                               "the GPU decoder takes one frame: decode a stream of several "
                               "frames on the host");
            goto done;
        }
        fsize = (unsigned long long)fv.len;
        if (!optr) {
            PyErr_SetString(PyExc_ValueError, "ghz.decompress: a host frame decodes on the GPU "
                                              "only into out= a CUDA array");
            goto done;
        }
        if (st == GHZ_SUCCESS && device_of((void*)(uintptr_t)optr, &device, "decompress") < 0)
            goto done;
    } else {
        if (fsize < GHZ_HEADER_SIZE) {
            ghzpy_raise_detail(GHZ_ERR_TRUNCATED, "decompress", "a device frame of fewer than 64 bytes");
            goto done;
        }
        if (device_of((void*)(uintptr_t)fptr, &device, "decompress") < 0) goto done;
        Py_BEGIN_ALLOW_THREADS
        e = cudaGetDevice(&prev);
        if (e == cudaSuccess) e = cudaSetDevice(device);
        if (e == cudaSuccess) {
            /* On the caller's stream, after whatever wrote the frame there. */
            e = cudaMemcpyAsync(head, (void*)(uintptr_t)fptr, sizeof head, cudaMemcpyDeviceToHost,
                                (cudaStream_t)(uintptr_t)stream);
            if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)(uintptr_t)stream);
            (void)cudaSetDevice(prev);
        }
        Py_END_ALLOW_THREADS
        if (e != cudaSuccess) {
            cuda_error(e, "decompress");
            goto done;
        }
        st = ghz_frame_header(&d, head, sizeof head, &fi);
        if (st == GHZ_SUCCESS && fi.frame_size < (uint64_t)fsize) {
            ghzpy_raise_detail(GHZ_ERR_UNSUPPORTED, "decompress",
                               "the GPU decoder takes one frame: decode a stream of several "
                               "frames on the host");
            goto done;
        }
    }
    if (st != GHZ_SUCCESS) {
        ghzpy_raise(st, "decompress");
        goto done;
    }
    if (fi.n > (uint64_t)(PY_SSIZE_T_MAX / 8)) {
        PyErr_SetString(PyExc_OverflowError, "ghz.decompress: the frame is too large");
        goto done;
    }
    bytes = (size_t)fi.n * ghz_float_size(fi.dtype);
    if (optr) {
        if (odtype != (int)fi.dtype) {
            PyErr_Format(PyExc_TypeError, "ghz.decompress: the frame holds %s values, out is %s",
                         fi.dtype == GHZ_F32 ? "float32" : "float64",
                         odtype == GHZ_F32 ? "float32" : "float64");
            goto done;
        }
        if ((size_t)obytes != bytes) {
            PyErr_Format(PyExc_ValueError,
                         "ghz.decompress: the frame holds %llu values, out has room for %llu",
                         (unsigned long long)fi.n, obytes / ghz_float_size(fi.dtype));
            goto done;
        }
    } else if (!(out = devbuf_new(device, fi.dtype == GHZ_F32 ? "<f4" : "<f8"))) {
        goto done;
    }
    if (!(s = slot_of(device, "decompress"))) goto done;

    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(s->lock, WAIT_LOCK);
    e = cudaGetDevice(&prev);
    if (e == cudaSuccess) e = cudaSetDevice(device);
    if (e == cudaSuccess) {
        st = slot_ready(s, device, (size_t)fi.n);
        if (st == GHZ_SUCCESS && frame != Py_None) { /* a host frame travels to the device */
            if ((e = block_get(s, (size_t)fsize, &staged)) == cudaSuccess) {
                d_src = staged.ptr;
                e = cudaMemcpy(d_src, fv.buf, (size_t)fsize, cudaMemcpyHostToDevice);
            }
        }
        d_dst = (void*)(uintptr_t)optr;
        if (st == GHZ_SUCCESS && e == cudaSuccess && out && bytes) {
            block b;
            if ((e = block_get(s, bytes, &b)) == cudaSuccess) {
                out->ptr = b.ptr;
                out->cap = b.cap;
                d_dst = out->ptr;
            }
        }
        if (st == GHZ_SUCCESS && e == cudaSuccess) {
            src.data = frame != Py_None ? d_src : (void*)(uintptr_t)fptr;
            src.size = src.capacity = (size_t)fsize;
            src.where = GHZ_MEM_DEVICE;
            src.device = device;
            st = ghz_cuda_decompress_sync(s->ctx, fi.dtype, &src, d_dst, bytes, &n_out,
                                          (cudaStream_t)(uintptr_t)stream);
        }
        if (d_src) block_put(s, staged);
        (void)cudaSetDevice(prev);
    }
    PyThread_release_lock(s->lock);
    Py_END_ALLOW_THREADS

    if (e != cudaSuccess) {
        cuda_error(e, "decompress");
    } else if (st != GHZ_SUCCESS) {
        ghzpy_raise(st, "decompress");
    } else if (out) {
        out->nbytes = bytes;
        out->n = (Py_ssize_t)fi.n;
        res = (PyObject*)out;
        out = NULL;
    } else {
        res = Py_NewRef(Py_None);
    }
done:
    Py_XDECREF(out);
    if (have_fv) PyBuffer_Release(&fv);
    return res;
}

/* to_device(buffer) -> DeviceBuffer: a copy of host float values on the current
 * device (tests, and callers without CuPy or PyTorch). */
PyObject* ghzpy_cuda_to_device(PyObject* self, PyObject* args)
{
    PyObject* obj;
    Py_buffer v;
    ghz_dtype_t dtype;
    DeviceBuffer* out;
    device_slot* s;
    cudaError_t e;
    int device = 0;
    (void)self;

    if (!PyArg_ParseTuple(args, "O:to_device", &obj)) return NULL;
    if ((e = cudaGetDevice(&device)) != cudaSuccess) return cuda_error(e, "to_device");
    if (!(s = slot_of(device, "to_device"))) return NULL;
    if (ghzpy_float_buffer(obj, &v, 0, &dtype, "to_device") < 0) return NULL;
    if (!(out = devbuf_new(device, dtype == GHZ_F32 ? "<f4" : "<f8"))) {
        PyBuffer_Release(&v);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    block b;
    e = block_get(s, (size_t)v.len, &b);
    if (e == cudaSuccess) {
        out->ptr = b.ptr;
        out->cap = b.cap;
        if (v.len) e = cudaMemcpy(out->ptr, v.buf, (size_t)v.len, cudaMemcpyHostToDevice);
    }
    Py_END_ALLOW_THREADS
    out->nbytes = (size_t)v.len;
    out->n = v.len / v.itemsize;
    PyBuffer_Release(&v);
    if (e != cudaSuccess) {
        Py_DECREF(out);
        return cuda_error(e, "to_device");
    }
    return (PyObject*)out;
}

int ghzpy_init_cuda(PyObject* m)
{
    if (PyType_Ready(&DeviceBufferType) < 0) return -1;
    return PyModule_AddObjectRef(m, "DeviceBuffer", (PyObject*)&DeviceBufferType);
}
