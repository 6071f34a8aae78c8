/* ghz/h5z/h5z_abi_check.c: compiled only where HDF5's headers are found (never linked):
 * every declaration of h5z_abi.h against HDF5's own, so that a difference is a build
 * error rather than a plugin that HDF5 loads and misreads. */
#include <stddef.h>

#include <H5PLextern.h>
#include <H5Ppublic.h>
#include <H5Spublic.h>
#include <H5Tpublic.h>
#include <H5Zpublic.h>

#include "h5z_abi.h"


_Static_assert(sizeof(hid_t) == sizeof(ghz_hid_t) && (hid_t)-1 < 0, "hid_t");
_Static_assert(sizeof(herr_t) == sizeof(ghz_herr_t), "herr_t");
_Static_assert(sizeof(hsize_t) == sizeof(ghz_hsize_t) && (hsize_t)-1 > 0 && (ghz_hsize_t)-1 > 0,
               "hsize_t: unsigned, 64 bits");
_Static_assert(H5S_MAX_RANK == GHZ_H5S_MAX_RANK, "H5S_MAX_RANK");
_Static_assert(sizeof(htri_t) == sizeof(ghz_htri_t), "htri_t");
_Static_assert(sizeof(H5Z_filter_t) == sizeof(ghz_h5z_filter_t), "H5Z_filter_t");
_Static_assert(sizeof(H5T_class_t) == sizeof(int) && sizeof(H5T_order_t) == sizeof(int),
               "H5T_class_t, H5T_order_t are int-sized");
_Static_assert(sizeof(H5PL_type_t) == sizeof(int), "H5PL_type_t is int-sized");
_Static_assert(H5T_FLOAT == GHZ_H5T_FLOAT, "H5T_FLOAT");
_Static_assert(H5T_ORDER_LE == GHZ_H5T_ORDER_LE, "H5T_ORDER_LE");
_Static_assert(H5PL_TYPE_FILTER == GHZ_H5PL_TYPE_FILTER, "H5PL_TYPE_FILTER");
_Static_assert(H5Z_FLAG_REVERSE == GHZ_H5Z_FLAG_REVERSE, "H5Z_FLAG_REVERSE");
_Static_assert(H5Z_CLASS_T_VERS == GHZ_H5Z_CLASS_T_VERS, "H5Z_CLASS_T_VERS");

#define SAME_FIELD(f)                                                                      \
    _Static_assert(offsetof(H5Z_class2_t, f) == offsetof(ghz_h5z_class2_t, f) &&          \
                       sizeof(((H5Z_class2_t*)0)->f) == sizeof(((ghz_h5z_class2_t*)0)->f), \
                   "H5Z_class2_t." #f)
SAME_FIELD(version);
SAME_FIELD(id);
SAME_FIELD(encoder_present);
SAME_FIELD(decoder_present);
SAME_FIELD(name);
SAME_FIELD(can_apply);
SAME_FIELD(set_local);
SAME_FIELD(filter);
_Static_assert(sizeof(H5Z_class2_t) == sizeof(ghz_h5z_class2_t), "sizeof H5Z_class2_t");

/* The prototypes: assigning HDF5's functions to the pointer types of h5z_abi.h compiles
 * without a cast only when the types agree (up to the int-sized enums, cast here). */
static void prototypes(void)
{
    ghz_h5t_get_size_fn size = H5Tget_size;
    ghz_h5p_get_filter_by_id2_fn get = H5Pget_filter_by_id2;
    ghz_h5p_modify_filter_fn modify = H5Pmodify_filter;
    /* hsize_t is unsigned long long in HDF5's headers, ghz_hsize_t uint64_t (unsigned
     * long on LP64): the same bits (asserted above) but not the same C type, so the
     * prototype is checked with HDF5's hsize_t, then converted as dlsym's is in local.c. */
    int (*get_chunk_hdf5)(hid_t, int, hsize_t*) = H5Pget_chunk;
    ghz_h5p_get_chunk_fn get_chunk = (ghz_h5p_get_chunk_fn)get_chunk_hdf5;
    H5Z_can_apply_func_t can_apply = (ghz_h5z_can_apply_func_t)0;
    H5Z_set_local_func_t set_local = (ghz_h5z_set_local_func_t)0;
    H5Z_func_t filter = (ghz_h5z_func_t)0;
    (void)size;
    (void)get;
    (void)modify;
    (void)get_chunk;
    (void)can_apply;
    (void)set_local;
    (void)filter;
}

void ghz_h5z_abi_check_unused(void);
void ghz_h5z_abi_check_unused(void) { prototypes(); }
