/* ghz/h5z/h5z_local.h: the filter's callbacks at dataset creation (local.c). */
#ifndef GHZ_H5Z_LOCAL_H
#define GHZ_H5Z_LOCAL_H

#include <H5Zpublic.h>

/* H5Z_can_apply_func_t: 1 for a float32 or float64 dataset in native (little-endian)
 * byte order, 0 for any other type, -1 when the type cannot be read. */
htri_t ghz_h5z_can_apply(hid_t dcpl_id, hid_t type_id, hid_t space_id);

/* H5Z_set_local_func_t: writes the dataset's element type into the filter's
 * parameters (cd_values[1]) when they leave it 0, and refuses one that disagrees. */
herr_t ghz_h5z_set_local(hid_t dcpl_id, hid_t type_id, hid_t space_id);

#endif
