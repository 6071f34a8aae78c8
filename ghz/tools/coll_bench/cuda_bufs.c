/* ghz/tools/coll_bench/cuda_bufs.c: the CUDA runtime calls of ghz-coll-bench's CUDA
 * backend (cuda_bufs.h). Plain C on the runtime API; compiled in CUDA builds only. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda_bufs.h"

static int cuda_err(cudaError_t e, const char* what, char* err, size_t errlen)
{
    if (e == cudaSuccess) return 0;
    snprintf(err, errlen, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

static int pick_device(cb_cuda_t* g, int local, char* err, size_t errlen)
{
    struct cudaDeviceProp prop;
    /* (no GPU, or no driver: the runtime's own text, "CUDA driver version is
     * insufficient", does not say that) */
    const cudaError_t e = cudaGetDeviceCount(&g->ndevices);
    if (e != cudaSuccess || g->ndevices < 1) {
        snprintf(err, errlen, "--backend cuda needs a GPU: none is usable here (cudaGetDeviceCount: %s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        return -1;
    }
    g->device = local % g->ndevices;
    if (cuda_err(cudaSetDevice(g->device), "cudaSetDevice", err, errlen) ||
        cuda_err(cudaGetDeviceProperties(&prop, g->device), "cudaGetDeviceProperties", err, errlen))
        return -1;
    snprintf(g->gpu, sizeof g->gpu, "%s", prop.name);
    return 0;
}

/* A device buffer, zeroed so that its pages are resident before any timed call. */
static int device_buffer(void** p, size_t bytes, char* err, size_t errlen)
{
    return cuda_err(cudaMalloc(p, bytes), "cudaMalloc", err, errlen) ||
           cuda_err(cudaMemset(*p, 0, bytes), "cudaMemset", err, errlen);
}

/* A host staging pair: pageable (malloc, as users typically stage) or pinned. Both
 * are written once, for the same reason as the device buffers. */
static int host_pair(void** s, void** r, size_t bytes, int pinned, char* err, size_t errlen)
{
    if (pinned) {
        if (cuda_err(cudaMallocHost(s, bytes), "cudaMallocHost", err, errlen) ||
            cuda_err(cudaMallocHost(r, bytes), "cudaMallocHost", err, errlen))
            return -1;
    } else if (!(*s = malloc(bytes)) || !(*r = malloc(bytes))) {
        snprintf(err, errlen, "out of memory for the staging buffers");
        return -1;
    }
    memset(*s, 0, bytes);
    memset(*r, 0, bytes);
    return 0;
}

int cb_cuda_open(cb_cuda_t* g, int local_rank, size_t bytes, int pageable, int pinned,
                 char* err, size_t errlen)
{
    cudaStream_t s = NULL;
    memset(g, 0, sizeof *g);
    if (pick_device(g, local_rank, err, errlen) != 0) return -1;
    if (cuda_err(cudaStreamCreate(&s), "cudaStreamCreate", err, errlen)) return -1;
    g->stream = (ghz_stream_t)s;
    if (device_buffer(&g->d_send, bytes, err, errlen) ||
        device_buffer(&g->d_recv, bytes, err, errlen) ||
        device_buffer(&g->d_work, bytes, err, errlen))
        return -1;
    if (pageable && host_pair(&g->h_send, &g->h_recv, bytes, 0, err, errlen)) return -1;
    if (pinned && host_pair(&g->p_send, &g->p_recv, bytes, 1, err, errlen)) return -1;
    return cuda_err(cudaDeviceSynchronize(), "cudaDeviceSynchronize", err, errlen);
}

void cb_cuda_close(cb_cuda_t* g)
{
    cudaFree(g->d_send);
    cudaFree(g->d_recv);
    cudaFree(g->d_work);
    free(g->h_send);
    free(g->h_recv);
    cudaFreeHost(g->p_send);
    cudaFreeHost(g->p_recv);
    if (g->stream) cudaStreamDestroy((cudaStream_t)g->stream);
    memset(g, 0, sizeof *g);
}

int cb_cuda_copy(void* dst, const void* src, size_t bytes, ghz_stream_t stream, char* err,
                 size_t errlen)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (bytes == 0) return 0;
    if (cuda_err(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync", err,
                 errlen))
        return -1;
    return cuda_err(cudaStreamSynchronize(s), "cudaStreamSynchronize", err, errlen);
}

int cb_cuda_sync(ghz_stream_t stream, char* err, size_t errlen)
{
    return cuda_err(cudaStreamSynchronize((cudaStream_t)stream), "cudaStreamSynchronize", err,
                    errlen);
}

int cb_cuda_capture_begin(ghz_stream_t stream, char* err, size_t errlen)
{
    return cuda_err(cudaStreamBeginCapture((cudaStream_t)stream, cudaStreamCaptureModeRelaxed),
                    "cudaStreamBeginCapture", err, errlen);
}

int cb_cuda_capture_end(ghz_stream_t stream, void** exec, char* err, size_t errlen)
{
    cudaGraph_t g = NULL;
    cudaGraphExec_t x = NULL;
    int rc = cuda_err(cudaStreamEndCapture((cudaStream_t)stream, &g), "cudaStreamEndCapture", err, errlen);
    if (rc == 0) rc = cuda_err(cudaGraphInstantiate(&x, g, 0), "cudaGraphInstantiate", err, errlen);
    if (g) cudaGraphDestroy(g);
    *exec = rc == 0 ? (void*)x : NULL;
    return rc;
}

int cb_cuda_graph_launch(void* exec, ghz_stream_t stream, char* err, size_t errlen)
{
    return cuda_err(cudaGraphLaunch((cudaGraphExec_t)exec, (cudaStream_t)stream), "cudaGraphLaunch", err,
                    errlen);
}

void cb_cuda_graph_free(void* exec)
{
    if (exec) cudaGraphExecDestroy((cudaGraphExec_t)exec);
}
