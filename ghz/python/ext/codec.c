/* ghz/python/ext/codec.c: compress, decompress and info over ghz/codec/codec.h.
 *
 * Arrays larger than frame_elems values are written as several frames (ghz-cli's
 * layout: 2^26 values a frame by default), so that every frame stays within the
 * default reader limit (GHZ_FRAME_LIMIT_DEFAULT); under REL all frames share the
 * whole array's value range, so the bound is the one asked for the array. */
#include <math.h>
#include <string.h>

#include "ext.h"

/* Worst-case bytes of n values written as frames of at most per values: 0 on overflow. */
static size_t frames_bound(size_t n, size_t per, ghz_dtype_t dtype, int checksum)
{
    size_t full = n / per, rest = n % per, extra = checksum ? GHZ_CHECKSUM_SIZE : 0;
    size_t b_full = ghz_compress_bound(per, dtype), b_rest = ghz_compress_bound(rest, dtype);
    size_t total;

    if (n == 0) return b_rest + extra;
    if (!b_full || !b_rest) return 0;
    b_full += extra;
    if (full && b_full > (SIZE_MAX - b_rest - extra) / full) return 0;
    total = full * b_full;
    if (rest) total += b_rest + extra;
    return total;
}

/* compress(data, mode, bound, fill, checksum, nthreads, frame_elems, value_range,
 *          prefer, (d0, d1, d2)): d0 == 0 means one dimension. With prefer ratio and
 * more than one dimension, frames hold whole slabs of the slowest one and carry their
 * shape. */
PyObject* ghzpy_compress(PyObject* self, PyObject* args)
{
    PyObject *data, *fill, *range, *out = NULL;
    int mode, checksum, nthreads, prefer;
    double bound;
    Py_ssize_t frame_elems;
    unsigned long long dims[3];
    size_t slab = 0, per;
    unsigned slow = 0, i;
    Py_buffer v;
    ghz_params_t p = GHZ_PARAMS_INIT;
    ghz_status_t st = GHZ_SUCCESS;
    size_t el, n, cap, pos = 0, off = 0;
    (void)self;

    if (!PyArg_ParseTuple(args, "OidOpinOi(KKK):compress", &data, &mode, &bound, &fill, &checksum,
                          &nthreads, &frame_elems, &range, &prefer, &dims[0], &dims[1], &dims[2]))
        return NULL;
    if (frame_elems < 1) return PyErr_Format(PyExc_ValueError, "ghz.compress: frame_elems < 1");
    p.prefer = (ghz_prefer_t)prefer;
    for (i = 0; i < 3; ++i)
        if (dims[i] > 1) slow = i;
    if (p.prefer == GHZ_PREFER_RATIO && dims[0] && slow > 0)
        slab = (size_t)(slow == 2 ? dims[0] * dims[1] : dims[0]);
    per = slab ? ((size_t)frame_elems / slab ? (size_t)frame_elems / slab : 1) * slab
               : (size_t)frame_elems;
    if (ghzpy_float_buffer(data, &v, 0, &p.dtype, "compress") < 0) return NULL;
    p.eb_mode = (ghz_eb_mode_t)mode;
    p.eb = bound;
    p.checksum = checksum;
    p.nthreads = nthreads;
    if (ghzpy_fill_range(fill, range, &p.has_fill, &p.fill, &p.has_range, &p.range_min,
                         &p.range_max) < 0)
        goto done;
    el = ghz_float_size(p.dtype);
    n = (size_t)v.len / el;
    if (slab && n % slab) {
        PyErr_Format(PyExc_ValueError, "ghz.compress: the shape does not hold %zu values", n);
        goto done;
    }
    cap = frames_bound(n, per, p.dtype, checksum);
    if (cap == 0 || cap > PY_SSIZE_T_MAX) {
        PyErr_SetString(PyExc_OverflowError, "ghz.compress: the array is too large");
        goto done;
    }
    if (!(out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap))) goto done;
    ghz_huge_pages(PyBytes_AS_STRING(out), cap);

    Py_BEGIN_ALLOW_THREADS
    unsigned char* dst = (unsigned char*)PyBytes_AS_STRING(out);
    const unsigned char* src = (const unsigned char*)v.buf;
    if (n > per && p.eb_mode == GHZ_EB_REL && !p.has_range) {
        uint64_t count = 0;
        st = ghz_value_range(&p, src, n, &p.range_min, &p.range_max, &count);
        p.has_range = 1; /* an empty range (NaN) makes every frame lossless, as one frame */
    }
    do {
        size_t k = n - off < per ? n - off : per, sz = 0;
        if (st != GHZ_SUCCESS) break;
        if (slab) {
            for (i = 0; i < 3; ++i) p.dims[i] = (size_t)dims[i];
            p.dims[slow] = k / slab;
        }
        st = ghz_compress(&p, src + off * el, k, dst + pos, cap - pos, &sz);
        pos += sz;
        off += k;
    } while (off < n);
    Py_END_ALLOW_THREADS

    if (st != GHZ_SUCCESS) {
        Py_CLEAR(out);
        ghzpy_raise(st, "compress");
    } else if (ghzpy_bytes_shrink(&out, pos) < 0) {
        out = NULL;
    }
done:
    PyBuffer_Release(&v);
    if (PyErr_Occurred()) Py_CLEAR(out);
    return out;
}

/* decompress(frame, out, nthreads, max_frame_bytes) -> (buffer, dtype, n): the values
 * go into out (a writable float array of exactly the stream's size) or, when out is
 * None, into a new bytearray that the Python layer views as an array. */
PyObject* ghzpy_decompress(PyObject* self, PyObject* args)
{
    PyObject *frame, *out, *target = NULL, *res = NULL;
    int nthreads;
    unsigned long long max_frame_bytes;
    Py_buffer fv, ov;
    int have_out = 0;
    ghz_dparams_t d = GHZ_DPARAMS_INIT;
    ghz_status_t st;
    uint64_t n_total = 0, n_frames = 0;
    ghz_dtype_t dtype = GHZ_F32, out_dtype;
    size_t bytes, n_out = 0;
    void* dst;
    (void)self;

    if (!PyArg_ParseTuple(args, "OOiK:decompress", &frame, &out, &nthreads, &max_frame_bytes))
        return NULL;
    if (ghzpy_byte_buffer(frame, &fv, "decompress") < 0) return NULL;
    d.nthreads = nthreads;
    d.max_frame_bytes = max_frame_bytes;

    Py_BEGIN_ALLOW_THREADS
    st = ghz_stream_info(fv.buf, (size_t)fv.len, &n_total, &n_frames, &dtype);
    Py_END_ALLOW_THREADS
    if (st != GHZ_SUCCESS) {
        ghzpy_raise(st, "decompress");
        goto done;
    }
    if (n_total > PY_SSIZE_T_MAX / ghz_float_size(dtype)) {
        PyErr_SetString(PyExc_OverflowError, "ghz.decompress: the stream is too large");
        goto done;
    }
    bytes = (size_t)n_total * ghz_float_size(dtype);
    if (out == Py_None) {
        if (!(target = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)bytes))) goto done;
        dst = PyByteArray_AS_STRING(target);
    } else {
        if (ghzpy_float_buffer(out, &ov, 1, &out_dtype, "decompress") < 0) goto done;
        have_out = 1;
        if (out_dtype != dtype) {
            PyErr_Format(PyExc_TypeError, "ghz.decompress: the frame holds %s values, out is %s",
                         dtype == GHZ_F32 ? "float32" : "float64",
                         out_dtype == GHZ_F32 ? "float32" : "float64");
            goto done;
        }
        if ((size_t)ov.len != bytes) {
            PyErr_Format(PyExc_ValueError,
                         "ghz.decompress: the frame holds %llu values, out has room for %zd",
                         (unsigned long long)n_total, ov.len / ov.itemsize);
            goto done;
        }
        target = out;
        Py_INCREF(target);
        dst = ov.buf;
    }

    Py_BEGIN_ALLOW_THREADS
    st = ghz_decompress_ex(&d, fv.buf, (size_t)fv.len, dst, bytes, &n_out);
    Py_END_ALLOW_THREADS
    if (st != GHZ_SUCCESS) {
        ghzpy_raise(st, "decompress");
        goto done;
    }
    res = Py_BuildValue("(OiK)", target, (int)dtype, (unsigned long long)n_out);
done:
    Py_XDECREF(target);
    if (have_out) PyBuffer_Release(&ov);
    PyBuffer_Release(&fv);
    return res;
}

/* The fill value of a frame header as a Python float (None when it has none). */
static PyObject* fill_value(const ghz_frame_info_t* fi)
{
    if (!fi->has_fill) Py_RETURN_NONE;
    if (fi->dtype == GHZ_F32) {
        uint32_t b = (uint32_t)fi->fill_bits;
        float f;
        memcpy(&f, &b, sizeof f);
        return PyFloat_FromDouble((double)f);
    } else {
        double f;
        memcpy(&f, &fi->fill_bits, sizeof f);
        return PyFloat_FromDouble(f);
    }
}

/* info(frame, max_frame_bytes) -> dict: the first frame's header, and the stream's
 * totals. With max_frame_bytes > 0 every frame is also held to that reader limit
 * (GHZ_ERR_LIMIT), so that a caller can size its output from the result. */
PyObject* ghzpy_info(PyObject* self, PyObject* args)
{
    PyObject *frame, *fill, *res = NULL;
    Py_buffer fv;
    ghz_frame_info_t first, fi;
    ghz_dparams_t d = GHZ_DPARAMS_INIT;
    ghz_status_t st = GHZ_SUCCESS;
    uint64_t n = 0, frames = 0;
    unsigned long long limit = 0;
    size_t off = 0;
    double eb_abs_max = 0.0;
    (void)self;

    if (!PyArg_ParseTuple(args, "O|K:info", &frame, &limit)) return NULL;
    if (ghzpy_byte_buffer(frame, &fv, "info") < 0) return NULL;
    d.max_frame_bytes = limit;
    memset(&first, 0, sizeof first);
    /* Every frame's header, as ghz_stream_info walks them, for the per-frame fields. */
    do {
        const unsigned char* at = (const unsigned char*)fv.buf + off;
        if (limit && (st = ghz_frame_header(&d, at, (size_t)fv.len - off, &fi)) != GHZ_SUCCESS)
            break;
        st = ghz_frame_info(at, (size_t)fv.len - off, &fi);
        if (st != GHZ_SUCCESS) break;
        if (frames == 0) first = fi;
        if (fi.dtype != first.dtype) {
            st = GHZ_ERR_CORRUPT;
            PyErr_SetString(ghzpy_error, "ghz.info: the stream's frames mix float32 and float64");
            break;
        }
        if (fi.eb_abs > eb_abs_max) eb_abs_max = fi.eb_abs;
        n += fi.n;
        frames++;
        off += (size_t)fi.frame_size;
    } while (off < (size_t)fv.len);
    PyBuffer_Release(&fv);
    if (st != GHZ_SUCCESS) return PyErr_Occurred() ? NULL : ghzpy_raise(st, "info");

    if (!(fill = fill_value(&first))) return NULL;
    res = Py_BuildValue("{s:s,s:s,s:d,s:d,s:N,s:O,s:K,s:K,s:K,s:I}",
                        "dtype", first.dtype == GHZ_F32 ? "float32" : "float64",
                        "mode", first.eb_mode == GHZ_EB_ABS ? "abs" : "rel",
                        "bound", first.eb_user,
                        "abs_bound", eb_abs_max,
                        "fill", fill,
                        "checksum", first.has_checksum ? Py_True : Py_False,
                        "n", (unsigned long long)n,
                        "frames", (unsigned long long)frames,
                        "nbytes", (unsigned long long)off,
                        "format_version", first.format_version);
    return res;
}

/* header(buf, max_frame_bytes) -> (n, dtype, frame_size): the frame header at the start
 * of buf (at least GHZ_HEADER_SIZE bytes; the frame may go on past them), checked by
 * ghz_frame_header against the reader limit, for readers that index a stream frame by
 * frame without reading the payloads (ghz.open_stream). */
PyObject* ghzpy_header(PyObject* self, PyObject* args)
{
    PyObject* frame;
    unsigned long long limit;
    Py_buffer fv;
    ghz_frame_info_t fi;
    ghz_dparams_t d = GHZ_DPARAMS_INIT;
    ghz_status_t st;
    (void)self;

    if (!PyArg_ParseTuple(args, "OK:header", &frame, &limit)) return NULL;
    if (ghzpy_byte_buffer(frame, &fv, "open_stream") < 0) return NULL;
    d.max_frame_bytes = limit;
    st = ghz_frame_header(&d, fv.buf, (size_t)fv.len, &fi);
    PyBuffer_Release(&fv);
    if (st != GHZ_SUCCESS) return ghzpy_raise(st, "open_stream");
    return Py_BuildValue("(KiK)", (unsigned long long)fi.n, (int)fi.dtype,
                         (unsigned long long)fi.frame_size);
}

/* value_range(data, fill, nthreads) -> (min, max, count): ghz_value_range over the
 * finite values of data that are not fill (min and max NaN when count is 0). */
PyObject* ghzpy_value_range(PyObject* self, PyObject* args)
{
    PyObject *data, *fill;
    int nthreads, has_range;
    double lo = 0.0, hi = 0.0, unused;
    uint64_t count = 0;
    Py_buffer v;
    ghz_params_t p = GHZ_PARAMS_INIT;
    ghz_status_t st;
    (void)self;

    if (!PyArg_ParseTuple(args, "OOi:value_range", &data, &fill, &nthreads)) return NULL;
    if (ghzpy_fill_range(fill, Py_None, &p.has_fill, &p.fill, &has_range, &unused, &unused) < 0)
        return NULL;
    if (ghzpy_float_buffer(data, &v, 0, &p.dtype, "value_range") < 0) return NULL;
    p.nthreads = nthreads;
    Py_BEGIN_ALLOW_THREADS
    st = ghz_value_range(&p, v.buf, (size_t)v.len / ghz_float_size(p.dtype), &lo, &hi, &count);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&v);
    if (st != GHZ_SUCCESS) return ghzpy_raise(st, "value_range");
    return Py_BuildValue("(ddK)", lo, hi, (unsigned long long)count);
}
