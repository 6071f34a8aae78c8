/* ghz/python/ext/devices.c: each device's ghz context, and its cache of device memory.
 *
 * Each device has one ghz context (its workspace and scratch), used under a lock, so
 * that Python threads may call in parallel with the GIL released. A freed DeviceBuffer's
 * memory is kept for the next one of about its size (CACHE_BLOCKS per device): cudaMalloc
 * and cudaFree (which waits for the whole device) per call would cost more than the
 * codec on a 64 MiB array. */
#include "cuda_ext.h"

static device_slot slots[MAX_DEVICES];

device_slot* ghzpy_slot(int device) { return &slots[device]; }

cudaError_t ghzpy_block_get(device_slot* s, size_t bytes, block* b)
{
    size_t i, best = CACHE_BLOCKS, most = bytes + bytes / 2 + ((size_t)1 << 20);
    cudaError_t e;
    PyThread_acquire_lock(s->cache_lock, WAIT_LOCK);
    /* The smallest block that fits, not the first: a compressed frame's block (its
     * worst-case size) and a block of decoded values differ by a few per cent, and a
     * loop that makes both would otherwise hand a frame's block to values, leaving no
     * block large enough for the next frame: a cudaMalloc, and a cudaFree (which waits
     * for the device) when the cache is full, on every iteration. */
    for (i = 0; i < CACHE_BLOCKS; i++) {
        if (s->cache[i].ptr && s->cache[i].cap >= bytes && s->cache[i].cap <= most &&
            (best == CACHE_BLOCKS || s->cache[i].cap < s->cache[best].cap))
            best = i;
    }
    if (best < CACHE_BLOCKS) {
        *b = s->cache[best];
        s->cache[best].ptr = NULL;
        PyThread_release_lock(s->cache_lock);
        return cudaSuccess;
    }
    PyThread_release_lock(s->cache_lock);
    b->cap = bytes ? bytes : 1;
    e = cudaMalloc(&b->ptr, b->cap);
    if (e != cudaSuccess) {
        b->ptr = NULL;
    } else { /* counted, so that a benchmark can show its timed calls allocated nothing */
        PyThread_acquire_lock(s->cache_lock, WAIT_LOCK);
        s->mallocs++;
        PyThread_release_lock(s->cache_lock);
    }
    return e;
}

PyObject* ghzpy_cuda_mallocs(PyObject* self, PyObject* unused)
{
    unsigned long long total = 0;
    int i;
    (void)self;
    (void)unused;
    for (i = 0; i < MAX_DEVICES; i++) {
        if (!slots[i].cache_lock) continue;
        PyThread_acquire_lock(slots[i].cache_lock, WAIT_LOCK);
        total += slots[i].mallocs;
        PyThread_release_lock(slots[i].cache_lock);
    }
    return PyLong_FromUnsignedLongLong(total);
}

void ghzpy_block_put(device_slot* s, block b)
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

PyObject* ghzpy_cuda_error(cudaError_t e, const char* what)
{
    (void)cudaGetLastError();
    return ghzpy_raise_detail(e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver
                                  ? GHZ_ERR_NO_DEVICE
                                  : GHZ_ERR_CUDA,
                              what, cudaGetErrorString(e));
}

int ghzpy_device_of(const void* ptr, int* device, const char* what)
{
    struct cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess) {
        ghzpy_cuda_error(e, what);
        return -1;
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) {
        PyErr_Format(PyExc_ValueError, "ghz.%s: the pointer is not device memory", what);
        return -1;
    }
    *device = a.device;
    return 0;
}

device_slot* ghzpy_slot_of(int device, const char* what)
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

ghz_status_t ghzpy_slot_ready(device_slot* s, int device, size_t n)
{
    ghz_status_t st;
    if (!s->ctx) {
        ghz_cuda_ctx_config_t cfg = GHZ_CUDA_CTX_CONFIG_INIT;
        cfg.device = device;
        if ((st = ghz_cuda_ctx_create(&cfg, &s->ctx)) != GHZ_SUCCESS) return st;
    }
    return ghz_cuda_ctx_reserve(s->ctx, 1, n ? n : 1);
}
