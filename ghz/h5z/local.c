/* ghz/h5z/local.c: can_apply and set_local, which read the dataset's type.
 *
 * They are the filter's only HDF5 calls, and they must reach the HDF5 that called
 * them: h5py's wheels carry a private libhdf5 loaded without RTLD_GLOBAL, so a plain
 * link (or dlsym(RTLD_DEFAULT)) would find the system's copy or nothing. The library
 * that holds the caller's return address is that HDF5; dlopen(RTLD_NOLOAD) of its path
 * gives a handle to the very copy in use, and dlsym its functions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include <H5Ppublic.h>
#include <H5Tpublic.h>

#include "h5z_ghz.h"
#include "h5z_local.h"

typedef H5T_class_t (*tget_class_fn)(hid_t);
typedef size_t (*tget_size_fn)(hid_t);
typedef H5T_order_t (*tget_order_fn)(hid_t);
typedef herr_t (*pget_filter_fn)(hid_t, H5Z_filter_t, unsigned*, size_t*, unsigned[], size_t,
                                 char[], unsigned*);
typedef herr_t (*pmodify_filter_fn)(hid_t, H5Z_filter_t, unsigned, size_t, const unsigned[]);

typedef struct {
    void* handle; /* dlclose it when not NULL */
    tget_class_fn tget_class;
    tget_size_fn tget_size;
    tget_order_fn tget_order;
    pget_filter_fn pget_filter;
    pmodify_filter_fn pmodify_filter;
} hdf5_api;

/* The HDF5 functions of the library that holds `caller`: 0, or -1 when not found. */
static int hdf5_find(const void* caller, hdf5_api* api)
{
    Dl_info info;
    void* lib = RTLD_DEFAULT;

    api->handle = NULL;
    if (caller && dladdr(caller, &info) && info.dli_fname &&
        (api->handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)) != NULL)
        lib = api->handle;
    /* A function pointer from dlsym's object pointer: POSIX guarantees it converts. */
    *(void**)&api->tget_class = dlsym(lib, "H5Tget_class");
    *(void**)&api->tget_size = dlsym(lib, "H5Tget_size");
    *(void**)&api->tget_order = dlsym(lib, "H5Tget_order");
    *(void**)&api->pget_filter = dlsym(lib, "H5Pget_filter_by_id2");
    *(void**)&api->pmodify_filter = dlsym(lib, "H5Pmodify_filter");
    if (api->tget_class && api->tget_size && api->tget_order && api->pget_filter &&
        api->pmodify_filter)
        return 0;
    if (api->handle) dlclose(api->handle);
    api->handle = NULL;
    return -1;
}

static void hdf5_release(hdf5_api* api)
{
    if (api->handle) dlclose(api->handle);
}

/* The ghz dtype (1 f32, 2 f64) of an HDF5 type, 0 when ghz cannot compress it. */
static unsigned ghz_dtype_of(const hdf5_api* api, hid_t type_id)
{
    size_t size;
    if (api->tget_class(type_id) != H5T_FLOAT || api->tget_order(type_id) != H5T_ORDER_LE)
        return 0;
    size = api->tget_size(type_id);
    return size == 4 ? 1u : size == 8 ? 2u : 0u;
}

htri_t ghz_h5z_can_apply(hid_t dcpl_id, hid_t type_id, hid_t space_id)
{
    hdf5_api api;
    htri_t ok;
    (void)dcpl_id;
    (void)space_id;
    /* No HDF5 to ask: let it through; the filter then relies on cd_values[1]. */
    if (hdf5_find(__builtin_return_address(0), &api) < 0) return 1;
    ok = ghz_dtype_of(&api, type_id) != 0;
    hdf5_release(&api);
    return ok;
}

herr_t ghz_h5z_set_local(hid_t dcpl_id, hid_t type_id, hid_t space_id)
{
    hdf5_api api;
    unsigned cd[GHZ_H5Z_CD_COUNT], flags = 0, dtype;
    size_t n = GHZ_H5Z_CD_COUNT;
    herr_t rc = -1;
    (void)space_id;

    if (hdf5_find(__builtin_return_address(0), &api) < 0) return 0;
    dtype = ghz_dtype_of(&api, type_id);
    if (dtype != 0 &&
        api.pget_filter(dcpl_id, (H5Z_filter_t)GHZ_H5Z_FILTER_ID, &flags, &n, cd, 0, NULL,
                        NULL) >= 0 &&
        n == GHZ_H5Z_CD_COUNT && cd[0] == GHZ_H5Z_CD_VERSION &&
        (cd[1] == 0 || cd[1] == dtype)) {
        cd[1] = dtype;
        rc = api.pmodify_filter(dcpl_id, (H5Z_filter_t)GHZ_H5Z_FILTER_ID, flags, n, cd);
    }
    hdf5_release(&api);
    return rc < 0 ? -1 : 0;
}
