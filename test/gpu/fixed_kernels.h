/* test/gpu/fixed_kernels.h: launchers of the accessor kernels (fixed_kernels.cu);
 * each synchronises and returns its cudaError_t as an int. */
#ifndef GHZ_TEST_GPU_FIXED_KERNELS_H
#define GHZ_TEST_GPU_FIXED_KERNELS_H

#include "ghz/codec/fixed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = ghz_fixed_load(&v, i) for every element */
int tfx_load_all(ghz_fixed_view_t v, double* d_out);
/* ok[i] = ghz_fixed_store(&v, i, vals[i]) for every element */
int tfx_store_all(ghz_fixed_view_t v, const double* d_vals, int* d_ok);
/* part[r] = ghz_fixed_dot over elements [r*len, (r+1)*len) with y from r*len */
int tfx_dot_ranges(ghz_fixed_view_t v, const double* d_y, uint64_t len, double* d_part);

#ifdef __cplusplus
}
#endif
#endif
