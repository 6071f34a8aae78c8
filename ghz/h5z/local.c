/* ghz/h5z/local.c: can_apply and set_local, which read the dataset's type (and, for
 * prefer ratio, its chunk shape).
 *
 * They are the filter's only HDF5 calls, and they must reach the HDF5 that called
 * them: h5py's wheels carry a private libhdf5 loaded without RTLD_GLOBAL, so a plain
 * link (or dlsym(RTLD_DEFAULT)) would find the system's copy or nothing. The library
 * that holds the caller's return address is that HDF5; dlopen(RTLD_NOLOAD) of its path
 * gives a handle to the very copy in use, and dlsym its functions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

#include "h5z_abi.h"
#include "h5z_ghz.h"
#include "h5z_local.h"

typedef struct {
    void* handle; /* dlclose it when not NULL */
    ghz_h5t_get_class_fn tget_class;
    ghz_h5t_get_size_fn tget_size;
    ghz_h5t_get_order_fn tget_order;
    ghz_h5p_get_filter_by_id2_fn pget_filter;
    ghz_h5p_modify_filter_fn pmodify_filter;
    ghz_h5p_get_chunk_fn pget_chunk; /* needed by prefer ratio only: may be NULL */
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
    *(void**)&api->pget_chunk = dlsym(lib, "H5Pget_chunk");
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

/* The ghz dtype (1 f32, 2 f64) of an HDF5 type, 0 when ghz cannot compress it (then,
 * with `say`, the reason on stderr: HDF5 itself only reports a failed callback). */
static unsigned ghz_dtype_of(const hdf5_api* api, ghz_hid_t type_id, int say)
{
    int cls = api->tget_class(type_id), order = api->tget_order(type_id);
    size_t size = api->tget_size(type_id);
    if (cls == GHZ_H5T_FLOAT && order == GHZ_H5T_ORDER_LE && (size == 4 || size == 8))
        return size == 4 ? 1u : 2u;
    if (say)
        fprintf(stderr, "H5Z_ghz: create: the dataset's type is %s of %zu bytes%s: ghz compresses "
                        "float32 and float64 in little-endian order only (data.astype('<f4'))\n",
                cls == GHZ_H5T_FLOAT ? "a float" : "not a float", size,
                cls == GHZ_H5T_FLOAT && order != GHZ_H5T_ORDER_LE ? " in big-endian order" : "");
    return 0;
}

ghz_htri_t ghz_h5z_can_apply(ghz_hid_t dcpl_id, ghz_hid_t type_id, ghz_hid_t space_id)
{
    hdf5_api api;
    ghz_htri_t ok;
    (void)dcpl_id;
    (void)space_id;
    /* No HDF5 to ask: let it through; the filter then relies on cd_values[1]. */
    if (hdf5_find(__builtin_return_address(0), &api) < 0) return 1;
    ok = ghz_dtype_of(&api, type_id, 1) != 0;
    hdf5_release(&api);
    return ok;
}

/* Under GHZ_H5Z_RATIO (layout 2), the chunk's extents into cd[12..14], fastest first
 * (ghz_h5z_chunk_dims); 0, 0, 0 (each chunk one dimension) when HDF5 does not say. */
static void set_chunk_dims(const hdf5_api* api, ghz_hid_t dcpl_id, unsigned* cd)
{
    ghz_hsize_t chunk[GHZ_H5S_MAX_RANK];
    unsigned dims[3] = {0, 0, 0};
    int rank = api->pget_chunk ? api->pget_chunk(dcpl_id, GHZ_H5S_MAX_RANK, chunk) : -1;
    if (rank > 0 && rank <= GHZ_H5S_MAX_RANK)
        ghz_h5z_chunk_dims(chunk, rank, dims);
    else
        fprintf(stderr, "H5Z_ghz: create: HDF5 did not give the chunk's shape: prefer ratio "
                        "predicts each chunk along one dimension\n");
    cd[12] = dims[0];
    cd[13] = dims[1];
    cd[14] = dims[2];
}

ghz_herr_t ghz_h5z_set_local(ghz_hid_t dcpl_id, ghz_hid_t type_id, ghz_hid_t space_id)
{
    hdf5_api api;
    unsigned cd[GHZ_H5Z_CD_MAX], flags = 0, dtype;
    size_t n = GHZ_H5Z_CD_MAX;
    ghz_herr_t rc = -1;
    (void)space_id;

    if (hdf5_find(__builtin_return_address(0), &api) < 0) return 0;
    /* can_apply has said why a type is refused. */
    if ((dtype = ghz_dtype_of(&api, type_id, 0)) != 0) {
        ghz_h5z_params_t hp;
        const char* why = NULL;
        if (api.pget_filter(dcpl_id, (ghz_h5z_filter_t)GHZ_H5Z_FILTER_ID, &flags, &n, cd, 0,
                            NULL, NULL) < 0)
            why = "HDF5 did not give the filter's parameters";
        else if (n > GHZ_H5Z_CD_MAX || ghz_h5z_unpack(cd, n, &hp) < 0)
            why = "the parameters are not 12 values of layout 1 or 15 of layout 2 "
                  "(ghz.h5.cd_values() writes them)";
        else if ((why = ghz_h5z_check(&hp)) == NULL && cd[1] != 0 && cd[1] != dtype)
            why = "the dtype in cd_values[1] is not the dataset's (give 0)";
        if (why) {
            fprintf(stderr, "H5Z_ghz: create: %s\n", why);
        } else {
            cd[1] = dtype;
            if (hp.flags & GHZ_H5Z_RATIO) set_chunk_dims(&api, dcpl_id, cd);
            rc = api.pmodify_filter(dcpl_id, (ghz_h5z_filter_t)GHZ_H5Z_FILTER_ID, flags, n, cd);
        }
    }
    hdf5_release(&api);
    return rc < 0 ? -1 : 0;
}
