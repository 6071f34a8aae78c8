/* ghz/python/ext/dlpack.h: the C structures of the DLPack exchange format, written here
 * from the DLPack specification (dmlc/dlpack, dlpack.h, ABI version 1) for the consumer
 * side only: what a producer's __dlpack__ capsule points to.
 *
 * The layouts are an ABI: field order, widths and the enum values must match the
 * specification exactly, so nothing here may be reordered. A producer hands out either
 *   - a capsule named "dltensor" holding a DLManagedTensor (the original, unversioned
 *     layout, DLPack < 1.0), or
 *   - a capsule named "dltensor_versioned" holding a DLManagedTensorVersioned (DLPack
 *     >= 1.0, when the consumer passed max_version), whose first field is its version so
 *     that a consumer can refuse a major version it does not know before reading more.
 * A consumer that takes the tensor renames the capsule ("used_dltensor",
 * "used_dltensor_versioned"), so that the capsule's destructor leaves it alone, and
 * calls the tensor's deleter itself when it no longer needs the memory. */
#ifndef GHZ_PYTHON_DLPACK_H
#define GHZ_PYTHON_DLPACK_H

#include <stdint.h>

/* The major version of DLManagedTensorVersioned this consumer reads. */
#define GHZPY_DLPACK_MAJOR 1
#define GHZPY_DLPACK_MINOR 0

/* DLDeviceType: where the memory is (only the values ghz looks at; the others exist). */
enum {
    GHZPY_DL_CPU = 1,          /* kDLCPU: host memory */
    GHZPY_DL_CUDA = 2,         /* kDLCUDA: CUDA device memory */
    GHZPY_DL_CUDA_HOST = 3,    /* kDLCUDAHost: pinned host memory */
    GHZPY_DL_CUDA_MANAGED = 13 /* kDLCUDAManaged: unified memory */
};

/* DLDataTypeCode. */
enum {
    GHZPY_DL_INT = 0,   /* kDLInt */
    GHZPY_DL_UINT = 1,  /* kDLUInt */
    GHZPY_DL_FLOAT = 2, /* kDLFloat */
    GHZPY_DL_BOOL = 6   /* kDLBool */
};

/* DLManagedTensorVersioned.flags. */
#define GHZPY_DL_FLAG_READ_ONLY ((uint64_t)1 << 0) /* the consumer must not write */
#define GHZPY_DL_FLAG_IS_COPIED ((uint64_t)1 << 1) /* the producer copied: not its memory */

/* DLDevice: the device type is a C enum in the specification, which is an int. */
typedef struct {
    int32_t device_type;
    int32_t device_id;
} ghzpy_dl_device;

/* DLDataType: code, bits per lane, lanes (1 for scalars). */
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} ghzpy_dl_dtype;

/* DLTensor. strides are in elements (not bytes); NULL means compact row-major.
 * The first element is at (char*)data + byte_offset. */
typedef struct {
    void* data;
    ghzpy_dl_device device;
    int32_t ndim;
    ghzpy_dl_dtype dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
} ghzpy_dl_tensor;

/* DLManagedTensor (capsule "dltensor"). deleter may be NULL. */
typedef struct ghzpy_dl_managed {
    ghzpy_dl_tensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(struct ghzpy_dl_managed* self);
} ghzpy_dl_managed;

/* DLPackVersion. */
typedef struct {
    uint32_t major;
    uint32_t minor;
} ghzpy_dl_version;

/* DLManagedTensorVersioned (capsule "dltensor_versioned"). version, manager_ctx and
 * deleter come first and keep their places in every major version. */
typedef struct ghzpy_dl_managed_versioned {
    ghzpy_dl_version version;
    void* manager_ctx;
    void (*deleter)(struct ghzpy_dl_managed_versioned* self);
    uint64_t flags;
    ghzpy_dl_tensor dl_tensor;
} ghzpy_dl_managed_versioned;

#endif
