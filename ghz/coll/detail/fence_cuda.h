/* ghz/coll/detail/fence_cuda.h: the device-side fence of the CUDA IPC transport, for
 * collectives captured into a CUDA graph (private to libghzcoll; CUDA builds only).
 * C-callable.
 *
 * A replayed graph cannot meet the peers on the host, so a captured fence meets them
 * in memory every rank maps: each rank owns one flag word block (ghz_coll_fence_word_t
 * indices), exported through CUDA IPC. The fence kernel raises this rank's sequence
 * number by one (the previous value is read from the rank's own word, so a replay
 * advances it: nothing is baked into the graph but the addresses), publishes it with a
 * system-scope release after every earlier write of this rank's stream, and waits with
 * system-scope acquires until every peer has published at least the same number. Every
 * rank runs the same sequence of captured fences (the same collectives in the same
 * order, as MPI requires), so the k-th fence of each rank waits for the k-th of all.
 *
 * A peer that never arrives (dead, or replaying another graph) ends the wait after
 * timeout_ns: the kernel records it in the rank's error word (which peer, plus one) and
 * returns; later fences of the rank do not wait at all once it is set (they still
 * publish). The error word is read by ghz_comm_graph_status; the output of the replay
 * that timed out is not defined. */
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
 * n pointers to every rank's block as mapped here (entry `me` is mine). Nothing waits on
 * the host; it captures into a graph. GHZ_ERR_CUDA for a failed launch. */
ghz_status_t ghz_coll_fence_cuda(uint64_t* mine, uint64_t* const* d_peers, int n, int me, uint64_t timeout_ns,
                                 cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
