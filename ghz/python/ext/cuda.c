/* ghz/python/ext/cuda.c: CUDA arrays on the CUDA codec (built only with GHZ_WITH_CUDA).
 *
 * The Python layer reads an array's __cuda_array_interface__ or DLPack tensor and passes
 * its device pointer, count, type and the caller's stream here (a DeviceBuffer is
 * passed as itself: ghz knows its pointer, device and, for a frame ghz wrote, its
 * header). Work is enqueued on that stream through the blocking conveniences of
 * codec_cuda.h (ghz_cuda_*_sync), which wait for that stream alone: a frame's size and
 * a frame's status are known to the host when the call returns. Nothing here waits for
 * the whole device, and a call on arrays the caller owns (compress of its array,
 * decompress into its out=) allocates nothing once the device's cache is warm: the
 * costs beyond the C call itself are the argument checks. Results live in DeviceBuffer
 * objects (devbuf.c); each device's context and memory cache are in devices.c. */
#include <string.h>

#include "cuda_ext.h"

/* The element type of a DeviceBuffer of values (0 for a frame's bytes). */
static int devbuf_dtype(const DeviceBuffer* b)
{
    return b->typestr[2] == '4' && b->typestr[1] == 'f'   ? GHZ_F32
           : b->typestr[2] == '8' && b->typestr[1] == 'f' ? GHZ_F64
                                                          : 0;
}

/* A DeviceBuffer of values where ghz.`what` reads or writes values: its pointer, count
 * and type, or -1 with the TypeError the general path gives for a frame's bytes. */
static int devbuf_values(PyObject* obj, const char* what, unsigned long long* ptr, size_t* n,
                         int* dtype)
{
    const DeviceBuffer* b = (const DeviceBuffer*)obj;
    if (!(*dtype = devbuf_dtype(b))) {
        PyErr_Format(PyExc_TypeError, "ghz.%s: ghz takes float32 or float64 values in native "
                                      "byte order, got a CUDA array of %s", what, b->typestr);
        return -1;
    }
    *ptr = (unsigned long long)(uintptr_t)b->ptr;
    *n = (size_t)b->n;
    return 0;
}

/* ---- compress ------------------------------------------------------------------------ */

/* cuda_compress(src, n, dtype, mode, bound, fill, value_range, stream) -> DeviceBuffer
 * src: a device pointer (n values of dtype), or a DeviceBuffer of values (n and dtype
 * are then its own). */
PyObject* ghzpy_cuda_compress(PyObject* self, PyObject* args)
{
    unsigned long long ptr = 0, stream;
    Py_ssize_t n;
    int dtype, mode, device = 0, prev = 0;
    double bound;
    PyObject *src, *fill, *range;
    ghz_params_t p = GHZ_PARAMS_INIT;
    ghz_buf_t dst = GHZ_BUF_INIT;
    ghz_status_t st = GHZ_SUCCESS;
    cudaError_t e = cudaSuccess;
    device_slot* s;
    DeviceBuffer* out;
    size_t cap;
    (void)self;

    if (!PyArg_ParseTuple(args, "OniidOOK:cuda_compress", &src, &n, &dtype, &mode, &bound, &fill,
                          &range, &stream))
        return NULL;
    if (ghzpy_is_devbuf(src)) {
        size_t count;
        if (devbuf_values(src, "compress", &ptr, &count, &dtype) < 0) return NULL;
        n = (Py_ssize_t)count;
        device = ((DeviceBuffer*)src)->device; /* known: no pointer query */
    } else {
        ptr = PyLong_AsUnsignedLongLong(src);
        if (PyErr_Occurred()) return NULL;
    }
    p.dtype = (ghz_dtype_t)dtype;
    p.eb_mode = (ghz_eb_mode_t)mode;
    p.eb = bound;
    p.exec = GHZ_EXEC_CUDA;
    if (ghzpy_fill_range(fill, range, &p.has_fill, &p.fill, &p.has_range, &p.range_min,
                         &p.range_max) < 0)
        return NULL;
    if ((cap = ghz_compress_bound((size_t)n, p.dtype)) == 0)
        return ghzpy_raise_detail(GHZ_ERR_INVALID_ARG, "compress", "bad dtype or size");
    if (!ghzpy_is_devbuf(src)) {
        if (n > 0 && ghzpy_device_of((const void*)(uintptr_t)ptr, &device, "compress") < 0)
            return NULL;
        if (n == 0 && (e = cudaGetDevice(&device)) != cudaSuccess)
            return ghzpy_cuda_error(e, "compress");
    }
    if (!(s = ghzpy_slot_of(device, "compress"))) return NULL;
    if (!(out = ghzpy_devbuf_new(device, "|u1"))) return NULL;

    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(s->lock, WAIT_LOCK);
    e = cudaGetDevice(&prev);
    if (e == cudaSuccess && (e = cudaSetDevice(device)) == cudaSuccess &&
        (st = ghzpy_slot_ready(s, device, (size_t)n)) == GHZ_SUCCESS) {
        /* The frame is written straight into the block the DeviceBuffer keeps, of the
         * worst-case size, as a C caller writes into its buffer of ghz_compress_bound
         * bytes. Writing into a scratch buffer and copying the frame out at its size
         * cost a second pass over the frame, a copy on the legacy default stream (which
         * waits for every blocking stream of the device) and a wait for it: 9.9 us for
         * the 9 MB frame of 64 MiB of f32 on an H200, 10 % of the C call's 96 us
         * (docs/PYTHON.md). The price is memory: a frame holds
         * ghz_compress_bound(n) bytes of device memory until it is freed (its nbytes is
         * the frame's size); copy it (tobytes(), cupy.array) to keep many. */
        block b;
        if ((e = ghzpy_block_get(s, cap, &b)) == cudaSuccess) {
            out->ptr = b.ptr;
            out->cap = b.cap;
            dst.data = b.ptr;
            dst.capacity = b.cap;
            dst.where = GHZ_MEM_DEVICE;
            dst.device = device;
            st = ghz_cuda_compress_sync(s->ctx, &p, (const void*)(uintptr_t)ptr, (size_t)n, &dst,
                                        (cudaStream_t)(uintptr_t)stream);
        }
    }
    (void)cudaSetDevice(prev);
    PyThread_release_lock(s->lock);
    Py_END_ALLOW_THREADS

    if (e != cudaSuccess || st != GHZ_SUCCESS) {
        Py_DECREF(out); /* its block, if any, goes back to the cache */
        return e != cudaSuccess ? ghzpy_cuda_error(e, "compress") : ghzpy_raise(st, "compress");
    }
    out->nbytes = dst.size;
    out->n = (Py_ssize_t)dst.size;
    out->frame_dtype = (int)p.dtype;
    out->frame_n = (uint64_t)n;
    return (PyObject*)out;
}

/* ---- decompress ------------------------------------------------------------------------ */

/* cuda_decompress(frame, frame_ptr, frame_size, out_ptr, out_bytes, out_dtype, stream,
 *                 max_frame_bytes) -> DeviceBuffer or None
 * The frame is on the host (frame: a buffer; frame_ptr 0) or on the device (frame None,
 * frame_ptr and frame_size; or frame a DeviceBuffer of bytes, the pointer and size its
 * own). The values go to out_ptr (out_bytes bytes of out_dtype; or out_ptr a
 * DeviceBuffer of values, the rest its own), or, with out_ptr 0, into a new
 * DeviceBuffer on the frame's device. One frame. */
PyObject* ghzpy_cuda_decompress(PyObject* self, PyObject* args)
{
    PyObject *frame, *oarg;
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
    DeviceBuffer* fbuf = NULL;
    int hinted = 0;
    (void)self;

    if (!PyArg_ParseTuple(args, "OKKOKiKK:cuda_decompress", &frame, &fptr, &fsize, &oarg, &obytes,
                          &odtype, &stream, &limit))
        return NULL;
    if (ghzpy_is_devbuf(oarg)) {
        size_t count;
        if (devbuf_values(oarg, "decompress", &optr, &count, &odtype) < 0) return NULL;
        obytes = ((DeviceBuffer*)oarg)->nbytes;
    } else {
        optr = PyLong_AsUnsignedLongLong(oarg);
        if (PyErr_Occurred()) return NULL;
    }
    d.max_frame_bytes = limit;
    if (ghzpy_is_devbuf(frame)) { /* a device frame that ghz allocated */
        fbuf = (DeviceBuffer*)frame;
        if (devbuf_dtype(fbuf)) {
            PyErr_Format(PyExc_TypeError, "ghz.decompress: a frame in device memory must be "
                                          "bytes, got %s", fbuf->typestr);
            return NULL;
        }
        frame = Py_None;
        fptr = (unsigned long long)(uintptr_t)fbuf->ptr;
        fsize = fbuf->nbytes;
    }
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
        if (st == GHZ_SUCCESS && ghzpy_device_of((void*)(uintptr_t)optr, &device, "decompress") < 0)
            goto done;
    } else {
        if (fsize < GHZ_HEADER_SIZE) {
            ghzpy_raise_detail(GHZ_ERR_TRUNCATED, "decompress", "a device frame of fewer than 64 bytes");
            goto done;
        }
        if (fbuf) {
            device = fbuf->device;
            /* A frame ghz.compress wrote: its header is known here, so the copy of the
             * header to the host and the wait for it (a round trip of the stream: 11.9 us
             * on an H200, 18 % of the C call's 64.5 us for 64 MiB of f32) are not
             * needed; the limit is checked on
             * what it says. The GPU checks the header again as it decodes. */
            hinted = fbuf->frame_dtype != 0 &&
                     (!limit || fbuf->frame_n <= limit / ghz_float_size((ghz_dtype_t)fbuf->frame_dtype));
        } else if (ghzpy_device_of((void*)(uintptr_t)fptr, &device, "decompress") < 0) {
            goto done;
        }
    }
    if (hinted) {
        memset(&fi, 0, sizeof fi);
        fi.dtype = (ghz_dtype_t)fbuf->frame_dtype;
        fi.n = fbuf->frame_n;
        fi.frame_size = fsize;
    } else if (frame == Py_None) {
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
            ghzpy_cuda_error(e, "decompress");
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
    } else if (!(out = ghzpy_devbuf_new(device, fi.dtype == GHZ_F32 ? "<f4" : "<f8"))) {
        goto done;
    }
    if (!(s = ghzpy_slot_of(device, "decompress"))) goto done;

    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(s->lock, WAIT_LOCK);
    e = cudaGetDevice(&prev);
    if (e == cudaSuccess) e = cudaSetDevice(device);
    if (e == cudaSuccess) {
        st = ghzpy_slot_ready(s, device, (size_t)fi.n);
        if (st == GHZ_SUCCESS && frame != Py_None) { /* a host frame travels to the device */
            if ((e = ghzpy_block_get(s, (size_t)fsize, &staged)) == cudaSuccess) {
                d_src = staged.ptr;
                e = cudaMemcpy(d_src, fv.buf, (size_t)fsize, cudaMemcpyHostToDevice);
            }
        }
        d_dst = (void*)(uintptr_t)optr;
        if (st == GHZ_SUCCESS && e == cudaSuccess && out && bytes) {
            block b;
            if ((e = ghzpy_block_get(s, bytes, &b)) == cudaSuccess) {
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
        if (d_src) ghzpy_block_put(s, staged);
        (void)cudaSetDevice(prev);
    }
    PyThread_release_lock(s->lock);
    Py_END_ALLOW_THREADS

    if (e == cudaSuccess && hinted && (st != GHZ_SUCCESS || n_out != fi.n)) {
        /* The frame is not what ghz.compress wrote (it was written to through its
         * interface): forget what ghz knew of it and decode it as any device frame, from
         * its header, so that the errors are those of a header read first. */
        fbuf->frame_dtype = 0;
        Py_XDECREF(out);
        return ghzpy_cuda_decompress(self, args);
    }
    if (e != cudaSuccess) {
        ghzpy_cuda_error(e, "decompress");
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
    if ((e = cudaGetDevice(&device)) != cudaSuccess) return ghzpy_cuda_error(e, "to_device");
    if (!(s = ghzpy_slot_of(device, "to_device"))) return NULL;
    if (ghzpy_float_buffer(obj, &v, 0, &dtype, "to_device") < 0) return NULL;
    if (!(out = ghzpy_devbuf_new(device, dtype == GHZ_F32 ? "<f4" : "<f8"))) {
        PyBuffer_Release(&v);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    block b;
    e = ghzpy_block_get(s, (size_t)v.len, &b);
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
        return ghzpy_cuda_error(e, "to_device");
    }
    return (PyObject*)out;
}
