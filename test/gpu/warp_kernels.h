/* test/gpu/warp_kernels.h: C launchers of the warp.cuh test kernels (warp_kernels.cu). */
#ifndef GHZ_TEST_WARP_KERNELS_H
#define GHZ_TEST_WARP_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* Bytes per block's payload slot: the largest f32 payload (RAW, 128) plus the slack
 * ghz_warp_decode may read past a block. */
#define GHZ_TEST_SLOT 144u

#ifdef __cplusplus
extern "C" {
#endif

/* One warp per block of the n f32 values at d_x (bit patterns), bound eb: code bytes,
 * payloads (slot b at d_slots + b * GHZ_TEST_SLOT) and payload sizes. 0 or -1. */
int ghz_test_warp_encode(const uint32_t* d_x, size_t n, double eb, int has_fill, uint32_t fill,
                         uint8_t* d_codes, uint8_t* d_slots, unsigned* d_sizes);

/* The reverse into d_out; *d_bad becomes nonzero when a block is rejected. 0 or -1. */
int ghz_test_warp_decode(const uint8_t* d_codes, const uint8_t* d_slots, size_t n, double eb, uint32_t fill,
                         uint32_t* d_out, int* d_bad);

#ifdef __cplusplus
}
#endif
#endif
