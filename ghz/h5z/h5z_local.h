/* ghz/h5z/h5z_local.h: the filter's callbacks at dataset creation (local.c). */
#ifndef GHZ_H5Z_LOCAL_H
#define GHZ_H5Z_LOCAL_H

#include "h5z_abi.h"

/* H5Z_can_apply_func_t: 1 for a float32 or float64 dataset in native (little-endian)
 * byte order, 0 for any other type, -1 when the type cannot be read. */
ghz_htri_t ghz_h5z_can_apply(ghz_hid_t dcpl_id, ghz_hid_t type_id, ghz_hid_t space_id);

/* H5Z_set_local_func_t: writes the dataset's element type into the filter's
 * parameters (cd_values[1]) when they leave it 0, and refuses one that disagrees;
 * under prefer ratio (layout 2) also the chunk's extents, fastest first, into
 * cd_values[12..14]. */
ghz_herr_t ghz_h5z_set_local(ghz_hid_t dcpl_id, ghz_hid_t type_id, ghz_hid_t space_id);

#endif
