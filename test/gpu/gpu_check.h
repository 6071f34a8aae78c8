/* test/gpu/gpu_check.h: the assertions and the skip rule every GPU test shares. */
#ifndef GHZ_TEST_GPU_CHECK_H
#define GHZ_TEST_GPU_CHECK_H

#include <criterion/criterion.h>
#include <cuda_runtime_api.h>

#include "ghz/ghz.h"

/* A CUDA runtime call that must succeed, and a ghz call that must succeed. */
#define CK(call) cr_assert_eq((call), cudaSuccess, "%s failed", #call)
#define GK(call)                                                                     \
    do {                                                                             \
        ghz_status_t st_ = (call);                                                   \
        cr_assert_eq(st_, GHZ_SUCCESS, "%s: %s (%s)", #call, ghz_status_string(st_), \
                     ghz_last_error_detail());                                       \
    } while (0)

/* Skips the calling test where no CUDA device is present. */
static inline void need_gpu(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) cr_skip_test("no CUDA device");
}

#endif
