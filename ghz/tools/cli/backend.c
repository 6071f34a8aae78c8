/* ghz/tools/cli/backend.c: choosing, opening and calling a codec backend. */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "diag.h"

ghz_status_t cli_backend_lib_error(cli_backend* b, ghz_status_t st)
{
    snprintf(b->detail, sizeof b->detail, "%s", ghz_last_error_detail());
    return st;
}

int cli_backend_open(cli_backend* b, ghz_exec_t exec, int nthreads, const char* what)
{
    const cli_backend_ops* ops;
    ghz_status_t st;

    memset(b, 0, sizeof *b);
    b->exec = exec;
    b->nthreads = nthreads;
    if (exec == GHZ_EXEC_CUDA) {
        ops = cli_backend_cuda_ops();
        if (!ops)
            return cli_fail(GHZ_ERR_UNSUPPORTED,
                            "CUDA backend not built: this ghz was built without the CUDA "
                            "codec; configure with -DGHZ_ENABLE_CUDA=ON, or use -x cpu",
                            "%s: -x cuda", what);
    } else {
        ops = cli_backend_cpu_ops();
    }
    b->ops = ops;
    snprintf(b->device, sizeof b->device, "%s", ops->name);
    st = ops->init ? ops->init(b) : GHZ_SUCCESS;
    if (st != GHZ_SUCCESS) {
        int rc = cli_fail(st, b->detail, "%s: -x %s", what, ops->name);
        if (ops->fini) ops->fini(b);
        b->ops = NULL;
        return rc;
    }
    return 0;
}

void cli_backend_close(cli_backend* b)
{
    if (b->ops && b->ops->fini) b->ops->fini(b);
    b->ops = NULL;
    b->state = NULL;
}

ghz_status_t cli_backend_prepare(cli_backend* b, ghz_dtype_t dtype, size_t n)
{
    b->detail[0] = '\0';
    return b->ops->prepare ? b->ops->prepare(b, dtype, n) : GHZ_SUCCESS;
}

ghz_status_t cli_backend_compress(cli_backend* b, const ghz_params_t* p, const void* src, size_t n,
                                  void* dst, size_t cap, size_t* size)
{
    b->detail[0] = '\0';
    return b->ops->compress(b, p, src, n, dst, cap, size);
}

ghz_status_t cli_backend_compress_fixed(cli_backend* b, ghz_dtype_t dtype, unsigned bits,
                                        const void* src, size_t n, void* dst, size_t cap,
                                        size_t* size)
{
    b->detail[0] = '\0';
    return b->ops->compress_fixed(b, dtype, bits, src, n, dst, cap, size);
}

ghz_status_t cli_backend_decompress(cli_backend* b, const void* frame, size_t frame_size,
                                    void* dst, size_t cap, size_t* n)
{
    b->detail[0] = '\0';
    /* The mode is byte 9 in both formats; the header is validated (again: the frame
     * reader did it once) before a backend is handed the frame. */
    if (frame_size > 9 && ((const unsigned char*)frame)[9] == GHZ_FIXED_MODE) {
        ghz_fixed_info_t info;
        ghz_status_t st = ghz_fixed_info(frame, frame_size, &info);
        if (st != GHZ_SUCCESS) return cli_backend_lib_error(b, st);
        return b->ops->decompress_fixed(b, frame, frame_size, &info, dst, cap, n);
    }
    return b->ops->decompress(b, frame, frame_size, dst, cap, n);
}
