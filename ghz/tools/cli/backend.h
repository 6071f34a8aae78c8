/* ghz/tools/cli/backend.h: where ghz-cli runs the codec (-x cpu|cuda). Every command
 * compresses and decompresses through one of these, host buffer to host buffer, so
 * the pipeline, decompress and info do not care which backend they drive, nor (when
 * decompressing) which mode a frame has:
 *  - cpu:  ghz_compress / ghz_decompress_mt on the calling thread(s), and the
 *          fixed-rate ghz_fixed_compress / ghz_fixed_decompress (one thread);
 *  - cuda: the CUDA codec (ghz/codec/codec_cuda.h, ghz/codec/fixed_cuda.h) on the
 *          current CUDA device, with
 *          device buffers, a workspace and a stream owned by the backend, allocated
 *          once and grown only when a larger frame arrives; each call copies its
 *          input to the device, runs the codec and copies the result back.
 *          Built only when the library has the CUDA codec (GHZ_WITH_CUDA). */
#ifndef GHZ_TOOLS_CLI_BACKEND_H
#define GHZ_TOOLS_CLI_BACKEND_H

#include <stddef.h>

#include "ghz/codec/codec.h"
#include "ghz/codec/fixed.h"

typedef struct cli_backend cli_backend;

/* What a backend implements. Every call returns a ghz_status_t and, on failure,
 * leaves the detail of the failure in b->detail (the library's
 * ghz_last_error_detail(), or the CUDA runtime's error string). */
typedef struct {
    const char* name; /* "cpu", "cuda" */
    ghz_status_t (*init)(cli_backend* b);
    void (*fini)(cli_backend* b);
    /* Optional: makes room for frames of up to n values of dtype, so that the timed
     * calls that follow allocate nothing. */
    ghz_status_t (*prepare)(cli_backend* b, ghz_dtype_t dtype, size_t n);
    /* One frame of n values of p->dtype at src into dst (cap bytes; at least
     * ghz_compress_bound(n, p->dtype) always suffices); *size receives its bytes. */
    ghz_status_t (*compress)(cli_backend* b, const ghz_params_t* p, const void* src, size_t n,
                             void* dst, size_t cap, size_t* size);
    /* The frame frame[0..frame_size) (exactly one frame) into dst (cap bytes);
     * *n receives the number of values, of the frame's dtype. */
    ghz_status_t (*decompress)(cli_backend* b, const void* frame, size_t frame_size, void* dst,
                               size_t cap, size_t* n);
    /* One fixed-rate frame (FIXED.md) of n values of dtype at l = bits into dst (cap
     * bytes; ghz_fixed_size(n, bits) is exactly what it takes). */
    ghz_status_t (*compress_fixed)(cli_backend* b, ghz_dtype_t dtype, unsigned bits,
                                   const void* src, size_t n, void* dst, size_t cap,
                                   size_t* size);
    /* The fixed-rate frame frame[0..frame_size), whose header ghz_fixed_info accepted
     * as *info, into dst (cap bytes); *n receives the number of values. The backend
     * still validates every block before trusting the frame. */
    ghz_status_t (*decompress_fixed)(cli_backend* b, const void* frame, size_t frame_size,
                                     const ghz_fixed_info_t* info, void* dst, size_t cap,
                                     size_t* n);
} cli_backend_ops;

struct cli_backend {
    const cli_backend_ops* ops;
    ghz_exec_t exec;
    int nthreads;      /* CPU threads (cpu: decompression; compression uses p->nthreads) */
    void* state;       /* the backend's own */
    char device[160];  /* what runs the codec, for reports ("GPU 0: <name>, sm_90") */
    char detail[512];  /* detail of the last failure */
};

/* The backends of this build; cli_backend_cuda_ops() is NULL without GHZ_WITH_CUDA. */
const cli_backend_ops* cli_backend_cpu_ops(void);
const cli_backend_ops* cli_backend_cuda_ops(void);

/* Opens the backend of `exec` (nthreads: CPU threads, 0 = all). Returns 0, or
 * CLI_ERR_RUNTIME after reporting "ghz-cli: <what>: <status> (<detail>)": the CUDA
 * backend not built (GHZ_ERR_UNSUPPORTED), no usable CUDA device
 * (GHZ_ERR_NO_DEVICE), or a CUDA failure while setting up (GHZ_ERR_CUDA). */
int cli_backend_open(cli_backend* b, ghz_exec_t exec, int nthreads, const char* what);

/* Releases what the backend holds. Safe on a zeroed or already closed backend. */
void cli_backend_close(cli_backend* b);

/* The calls of the backend; on failure b->detail says more (report it with
 * cli_fail(st, b->detail, ...)). Callers that time the codec call
 * cli_backend_prepare for each frame before starting the clock: the CUDA backend
 * grows its device buffers there (a no-op unless the frame is larger than any
 * before), so no allocation is timed; compress and decompress also grow them
 * themselves when needed. */
ghz_status_t cli_backend_prepare(cli_backend* b, ghz_dtype_t dtype, size_t n);
ghz_status_t cli_backend_compress(cli_backend* b, const ghz_params_t* p, const void* src, size_t n,
                                  void* dst, size_t cap, size_t* size);
ghz_status_t cli_backend_compress_fixed(cli_backend* b, ghz_dtype_t dtype, unsigned bits,
                                        const void* src, size_t n, void* dst, size_t cap,
                                        size_t* size);
/* Decodes one frame of either mode: a fixed-rate frame (byte 9 = 3) goes to
 * decompress_fixed after ghz_fixed_info, any other to decompress. */
ghz_status_t cli_backend_decompress(cli_backend* b, const void* frame, size_t frame_size,
                                    void* dst, size_t cap, size_t* n);

/* Sets b->detail to the library's detail of the failure st and returns st. */
ghz_status_t cli_backend_lib_error(cli_backend* b, ghz_status_t st);

#endif
