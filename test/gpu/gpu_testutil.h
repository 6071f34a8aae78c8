/* test/gpu/gpu_testutil.h: what the GPU tests share: assertion wrappers for CUDA and
 * ghz calls, skipping without a GPU, and a splitmix64 generator. */
#ifndef GHZ_TEST_GPU_TESTUTIL_H
#define GHZ_TEST_GPU_TESTUTIL_H

#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <stdint.h>

#include "ghz/codec/codec_cuda.h"
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

/* A device frame: `size` valid bytes (host-known) of `cap` at data, or, with d_size,
 * a size that lives in device memory. */
static inline ghz_buf_t dev_buf(void* data, size_t size, size_t cap, uint64_t* d_size)
{
    ghz_buf_t b = GHZ_BUF_INIT;
    b.data = data;
    b.size = size;
    b.capacity = cap;
    b.where = GHZ_MEM_DEVICE;
    b.d_size = d_size;
    return b;
}

/* A context for batches of max_batch chunks of max_elems values. */
static inline ghz_cuda_ctx_t* make_ctx(int max_batch, size_t max_elems)
{
    ghz_cuda_ctx_config_t c = GHZ_CUDA_CTX_CONFIG_INIT;
    ghz_cuda_ctx_t* ctx = NULL;
    c.max_batch = max_batch;
    c.max_elems = max_elems;
    GK(ghz_cuda_ctx_create(&c, &ctx));
    return ctx;
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
