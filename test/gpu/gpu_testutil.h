/* test/gpu/gpu_testutil.h: what the GPU tests share: assertion wrappers for CUDA and
 * ghz calls, skipping without a GPU, and a splitmix64 generator. */
#ifndef GHZ_TEST_GPU_TESTUTIL_H
#define GHZ_TEST_GPU_TESTUTIL_H

#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <stdint.h>

#include "ghz/ghz.h"

#define CK(call) cr_assert_eq((call), cudaSuccess, "%s failed", #call)
#define GK(call)                                                                           \
    do {                                                                                   \
        ghz_status_t st_ = (call);                                                         \
        cr_assert_eq(st_, GHZ_SUCCESS, "%s: %s (%s)", #call, ghz_status_string(st_),       \
                     ghz_last_error_detail());                                             \
    } while (0)

static inline void need_gpu(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) cr_skip_test("no CUDA device");
}

/* splitmix64: the next value of the sequence of *state */
static inline uint64_t gpu_rng(uint64_t* state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
