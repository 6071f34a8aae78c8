/* ghz/python/ext/cuda_ext.h: what the CUDA files of the extension share (built with
 * GHZ_WITH_CUDA only): each device's ghz context and cache of device memory
 * (devices.c), the DeviceBuffer type (devbuf.c); the calls are in cuda.c. */
#ifndef GHZ_PYTHON_CUDA_EXT_H
#define GHZ_PYTHON_CUDA_EXT_H

#include <cuda_runtime_api.h>

#include "ext.h"
#include "ghz/codec/codec_cuda.h"

#define MAX_DEVICES 64
#define CACHE_BLOCKS 8

typedef struct {
    void* ptr;
    size_t cap;
} block;

/* One device's context (under `lock`), and its cache of free blocks (under
 * `cache_lock`, never held while waiting for anything else). */
typedef struct {
    ghz_cuda_ctx_t* ctx;
    PyThread_type_lock lock;
    PyThread_type_lock cache_lock;
    block cache[CACHE_BLOCKS];
    unsigned long long mallocs; /* cudaMalloc calls of the cache (under cache_lock) */
} device_slot;

typedef struct {
    PyObject_HEAD
    void* ptr;      /* a block of `cap` bytes on `device` (NULL when none) */
    size_t cap;
    size_t nbytes;  /* valid bytes */
    Py_ssize_t n;   /* elements of typestr */
    int device;
    char typestr[4]; /* "|u1" (a frame), "<f4" or "<f8" (values) */
    /* A frame that ghz.compress wrote: the values and type its header holds, so that
     * decompress need not copy the header to the host first (frame_dtype 0: unknown,
     * read the header). The memory stays writable through the interface, so the
     * decoder still checks the header on the GPU and a mismatch falls back to the
     * host's reading of it (cuda.c). */
    int frame_dtype;
    uint64_t frame_n;
} DeviceBuffer;

/* GhzError for a CUDA runtime error (ERR_NO_DEVICE where there is no usable GPU, else
 * ERR_CUDA), the error cleared. Returns NULL. */
PyObject* ghzpy_cuda_error(cudaError_t e, const char* what);

/* The device that holds ptr: 0 and *device, or -1 with an exception (host memory too). */
int ghzpy_device_of(const void* ptr, int* device, const char* what);

/* The slot of `device`, its locks created (under the GIL): NULL with an exception. */
device_slot* ghzpy_slot_of(int device, const char* what);

/* The slot of a device that already has one (a DeviceBuffer's). */
device_slot* ghzpy_slot(int device);

/* With the slot's lock held and `device` current: a context reserved for n values. */
ghz_status_t ghzpy_slot_ready(device_slot* s, int device, size_t n);

/* A cached block of at least `bytes` (at most about 1.5 times as many), or a new one;
 * `device` current, no lock needed. cudaSuccess or the allocation's error. */
cudaError_t ghzpy_block_get(device_slot* s, size_t bytes, block* b);

/* Keeps b for later, or frees it when the cache is full (`device` current). */
void ghzpy_block_put(device_slot* s, block b);

/* obj is a DeviceBuffer. */
int ghzpy_is_devbuf(PyObject* obj);

/* A new, empty DeviceBuffer of `device` ("|u1", "<f4" or "<f8"): NULL with an exception. */
DeviceBuffer* ghzpy_devbuf_new(int device, const char* typestr);

#endif
