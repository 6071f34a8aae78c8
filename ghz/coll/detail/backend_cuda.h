/* ghz/coll/detail/backend_cuda.h: what the CUDA-only algorithms (cuda/algo_direct.c,
 * nccl/) need from the CUDA backend beyond the generic table, whose entries each
 * complete before they return: the backend's context and workspace, to enqueue codec
 * and ghz/homo work on the call's stream themselves (private; CUDA builds only). */
#ifndef GHZ_COLL_DETAIL_BACKEND_CUDA_H
#define GHZ_COLL_DETAIL_BACKEND_CUDA_H

#include <cuda_runtime_api.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/coll/detail/algo.h"
#include "ghz/coll/detail/backend.h"
#include "ghz/detail/error.h"

/* A CUDA runtime failure as the call's status (GHZ_ERR_CUDA, its text in the detail). */
static inline ghz_status_t coll_cuda_fail(cudaError_t e, const char* what)
{
    return ghz_fail(GHZ_ERR_CUDA, "%s: %s", what, cudaGetErrorString(e));
}

static inline ghz_status_t coll_cuda_ok(cudaError_t e, const char* what)
{
    return e == cudaSuccess ? GHZ_SUCCESS : coll_cuda_fail(e, what);
}

/* A frame descriptor over device memory: `size` valid bytes, or *d_size when set. */
static inline ghz_buf_t coll_cuda_frame(const void* data, size_t size, size_t capacity, uint64_t* d_size)
{
    ghz_buf_t b = GHZ_BUF_INIT;
    b.data = (void*)data;
    b.size = size;
    b.capacity = capacity;
    b.where = GHZ_MEM_DEVICE;
    b.d_size = d_size;
    return b;
}

typedef struct {
    ghz_cuda_ctx_t* ctx;   /* workspace for one frame of at most max_elems values */
    cudaStream_t stream;   /* the current call's (set by begin) */
    void* sum_work;        /* ghz_cuda_homo_sum_n's workspace, up to 64 inputs */
    size_t sum_work_bytes;
    size_t max_elems;
} coll_cuda_parts_t;

void ghz_coll_backend_cuda_parts(coll_backend_t* be, coll_cuda_parts_t* parts);

/* Waits for the call's stream; then the first failure among the statuses d_status[0..n)
 * that the GPU wrote (GHZ_SUCCESS when none), `what` naming the step in the detail. */
ghz_status_t ghz_coll_backend_cuda_check(coll_backend_t* be, const int* d_status, size_t n, const char* what);

/* Marks the end of work still running on the call's stream that later calls must wait
 * for (reads of peers' memory): the next begin, on whatever stream, waits for it. */
ghz_status_t ghz_coll_backend_cuda_mark(coll_backend_t* be);

/* Enqueues the compression of every segment s of r's input, piece j into C + s * seg at
 * its wire offset, its size into sizes[s * P + j] and its status into statuses[s * P + j]
 * (the GPU writes both). */
ghz_status_t coll_cuda_encode_segs(const coll_round_t* r, const coll_cuda_parts_t* x, unsigned char* C, size_t seg,
                                   size_t P, uint64_t* sizes, int* statuses);
/* Enqueues the decoding of the frames of a segment of n values, piece j at base + its
 * wire offset, into dst; its size h_sizes[j] (host) or, where h_sizes is NULL, d_sizes[j]
 * (device); its status into statuses[j]. */
ghz_status_t coll_cuda_decode_seg(const coll_round_t* r, const coll_cuda_parts_t* x, const unsigned char* base,
                                  const uint64_t* h_sizes, uint64_t* d_sizes, size_t n, unsigned char* dst,
                                  int* statuses);

#endif
