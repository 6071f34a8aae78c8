/* ghz/h5z/h5z_abi.h: the part of HDF5's binary interface that the filter plugin uses,
 * declared here so that the plugin builds without HDF5's headers (libhdf5-dev).
 *
 * A filter plugin needs no HDF5 library at link time: HDF5 dlopens it, calls its two
 * entry points (H5PLget_plugin_type, H5PLget_plugin_info) and then the callbacks of the
 * H5Z_class2_t it returns. What the plugin must agree on with the HDF5 that loads it is
 * only the layout of that struct, a few integer types and enum values, and the
 * prototypes of the six functions local.c looks up in that HDF5 at run time (dlsym).
 * hdf5plugin's wheels do the same with a copy of HDF5's headers and a table of dlsym'd
 * functions; these are the few declarations ghz needs, written from HDF5's public
 * headers (H5public.h, H5Ipublic.h, H5Tpublic.h, H5Zpublic.h, H5PLextern.h), which
 * have kept them unchanged since HDF5 1.10 (hid_t became 64 bits in 1.10.0; HDF5 1.8
 * is not supported). The HDF5 2.0 of h5py's wheels and the system's 1.10 / 1.14 load
 * the plugin built from them (test/python/test_hdf5.py); where HDF5's own headers are
 * found, h5z_abi_check.c checks every value and size here against them at build time.
 *
 * Names carry a ghz_ prefix so that no HDF5 header included beside this one clashes. */
#ifndef GHZ_H5Z_ABI_H
#define GHZ_H5Z_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t ghz_hid_t;       /* hid_t (H5Ipublic.h): 64 bits since HDF5 1.10 */
typedef int ghz_herr_t;          /* herr_t: < 0 is a failure */
typedef int ghz_htri_t;          /* htri_t: > 0 true, 0 false, < 0 failure */
typedef int ghz_h5z_filter_t;    /* H5Z_filter_t: a filter's id */
typedef uint64_t ghz_hsize_t;    /* hsize_t: an unsigned 64-bit extent (unsigned long long
                                    in HDF5's headers; the same bits on LP64 Linux) */

/* H5T_class_t and H5T_order_t (H5Tpublic.h): only the values the plugin compares. */
#define GHZ_H5T_FLOAT 1          /* H5T_FLOAT */
#define GHZ_H5T_ORDER_LE 0       /* H5T_ORDER_LE */

/* H5PL_type_t (H5PLpublic.h): H5PL_TYPE_FILTER. */
#define GHZ_H5PL_TYPE_FILTER 0

/* H5Zpublic.h */
#define GHZ_H5Z_FLAG_REVERSE 0x0100u /* set when the filter runs on read */
#define GHZ_H5Z_CLASS_T_VERS 1       /* H5Z_class2_t's version */

typedef ghz_htri_t (*ghz_h5z_can_apply_func_t)(ghz_hid_t dcpl_id, ghz_hid_t type_id,
                                               ghz_hid_t space_id);
typedef ghz_herr_t (*ghz_h5z_set_local_func_t)(ghz_hid_t dcpl_id, ghz_hid_t type_id,
                                               ghz_hid_t space_id);
typedef size_t (*ghz_h5z_func_t)(unsigned int flags, size_t cd_nelmts,
                                 const unsigned int cd_values[], size_t nbytes,
                                 size_t* buf_size, void** buf);

/* H5Z_class2_t, field for field. */
typedef struct {
    int version;                        /* GHZ_H5Z_CLASS_T_VERS */
    ghz_h5z_filter_t id;                /* the filter's id */
    unsigned encoder_present;           /* 1: the filter compresses */
    unsigned decoder_present;           /* 1: the filter decompresses */
    const char* name;                   /* shown by h5dump and in HDF5's errors */
    ghz_h5z_can_apply_func_t can_apply; /* may be NULL */
    ghz_h5z_set_local_func_t set_local; /* may be NULL */
    ghz_h5z_func_t filter;              /* the filter itself */
} ghz_h5z_class2_t;

/* The prototypes of the HDF5 functions local.c finds with dlsym: H5Tget_class,
 * H5Tget_size, H5Tget_order, H5Pget_filter_by_id2, H5Pmodify_filter, H5Pget_chunk. The
 * enums they return are ints (C enums of small values). */
typedef int (*ghz_h5t_get_class_fn)(ghz_hid_t type_id);
typedef size_t (*ghz_h5t_get_size_fn)(ghz_hid_t type_id);
typedef int (*ghz_h5t_get_order_fn)(ghz_hid_t type_id);
typedef ghz_herr_t (*ghz_h5p_get_filter_by_id2_fn)(ghz_hid_t plist_id, ghz_h5z_filter_t id,
                                                   unsigned int* flags, size_t* cd_nelmts,
                                                   unsigned int cd_values[], size_t namelen,
                                                   char name[], unsigned* filter_config);
typedef ghz_herr_t (*ghz_h5p_modify_filter_fn)(ghz_hid_t plist_id, ghz_h5z_filter_t filter,
                                               unsigned int flags, size_t cd_nelmts,
                                               const unsigned int cd_values[]);
/* H5Pget_chunk: the chunk's rank (< 0 on failure), its first max_ndims extents into dim,
 * slowest first. */
typedef int (*ghz_h5p_get_chunk_fn)(ghz_hid_t plist_id, int max_ndims, ghz_hsize_t dim[]);
/* H5S_MAX_RANK (H5Spublic.h): the most dimensions a dataset (and its chunk) has. */
#define GHZ_H5S_MAX_RANK 32

#endif
