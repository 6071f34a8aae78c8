/* test/gpu/warp_kernels.cu: kernels that use warp.cuh (the public warp-cooperative
 * block codec) the way a user's kernel would, one warp per block of f32 values, with
 * C launchers for test_cuda_codec.c. The library's own kernels no longer use warp.cuh,
 * so this is what keeps it compiled and checked against the CPU reference. */
#include <stddef.h>
#include <stdint.h>

#include "ghz/codec/warp.cuh"
#include "warp_kernels.h"

__global__ void warp_encode_kernel(const uint32_t* x, size_t n, double eb, int has_fill, uint32_t fill,
                                   uint8_t* codes, uint8_t* slots, unsigned* sizes)
{
    const size_t b = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32u, e = b * 32u + ghz_lane_id();
    if (b >= (n + 31u) / 32u) return; /* warp-uniform */
    const ghz_quantizer_t z = ghz_quantizer_make(eb, 1);
    const uint64_t bits = e < n ? x[e] : 0u;
    const ghz_warp_block_t r = ghz_warp_analyze(&z, bits, e < n, has_fill, fill, 4u);
    ghz_warp_emit(&r, bits, 4u, slots + b * GHZ_TEST_SLOT);
    if (ghz_lane_id() == 0) {
        codes[b] = (uint8_t)r.code;
        sizes[b] = r.size;
    }
}

__global__ void warp_decode_kernel(const uint8_t* codes, const uint8_t* slots, size_t n, double eb,
                                   uint32_t fill, uint32_t* out, int* bad)
{
    const size_t b = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32u, e = b * 32u + ghz_lane_id();
    if (b >= (n + 31u) / 32u) return;
    const ghz_quantizer_t z = ghz_quantizer_make(eb, 1);
    const unsigned m = n - b * 32u < 32u ? (unsigned)(n - b * 32u) : 32u;
    uint64_t bits = 0;
    const int ok = ghz_warp_decode(&z, codes[b], m, slots + b * GHZ_TEST_SLOT, fill, 4u, &bits);
    if (e < n) out[e] = (uint32_t)bits;
    if (!ok && ghz_lane_id() == 0) atomicOr(bad, 1);
}

extern "C" int ghz_test_warp_encode(const uint32_t* d_x, size_t n, double eb, int has_fill, uint32_t fill,
                                    uint8_t* d_codes, uint8_t* d_slots, unsigned* d_sizes)
{
    const size_t blocks = (n + 31u) / 32u;
    warp_encode_kernel<<<(unsigned)((blocks + 7u) / 8u), 256>>>(d_x, n, eb, has_fill, fill, d_codes, d_slots,
                                                                 d_sizes);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

extern "C" int ghz_test_warp_decode(const uint8_t* d_codes, const uint8_t* d_slots, size_t n, double eb,
                                    uint32_t fill, uint32_t* d_out, int* d_bad)
{
    const size_t blocks = (n + 31u) / 32u;
    warp_decode_kernel<<<(unsigned)((blocks + 7u) / 8u), 256>>>(d_codes, d_slots, n, eb, fill, d_out, d_bad);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}
