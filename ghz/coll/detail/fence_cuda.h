/* ghz/coll/detail/fence_cuda.h: the device-side fence of the CUDA IPC transport for
 * collectives captured into a CUDA graph, on each rank's block of flag words (private;
 * CUDA builds; C-callable; COLL.md, CUDA graphs). A peer missing for timeout_ns is
 * recorded in the rank's error word (the peer, plus one). */
#ifndef GHZ_COLL_DETAIL_FENCE_CUDA_H
#define GHZ_COLL_DETAIL_FENCE_CUDA_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ghz/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The words of a rank's flag block (64 bytes, zeroed at set-up). */
enum { GHZ_COLL_FENCE_SEQ = 0, GHZ_COLL_FENCE_ERROR = 1, GHZ_COLL_FENCE_WORDS = 8 };

/* Enqueues the fence on `stream`: mine is this rank's block, d_peers a device array of
 * n pointers to every rank's block as mapped here (entry `me` is mine). */
ghz_status_t ghz_coll_fence_cuda(uint64_t* mine, uint64_t* const* d_peers, int n, int me, uint64_t timeout_ns,
                                 cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
