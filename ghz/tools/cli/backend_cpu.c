/* ghz/tools/cli/backend_cpu.c: the CPU backend: the reference codec of the library,
 * on b->nthreads threads for decompression and p->nthreads for compression; the
 * fixed-rate codec has no threads (one). */
#include "backend.h"

static ghz_status_t cpu_compress(cli_backend* b, const ghz_params_t* p, const void* src, size_t n,
                                 void* dst, size_t cap, size_t* size)
{
    ghz_status_t st = ghz_compress(p, src, n, dst, cap, size);
    return st == GHZ_SUCCESS ? st : cli_backend_lib_error(b, st);
}

static ghz_status_t cpu_decompress(cli_backend* b, const void* frame, size_t frame_size, void* dst,
                                   size_t cap, size_t* n)
{
    ghz_status_t st = ghz_decompress_mt(frame, frame_size, dst, cap, n, b->nthreads);
    return st == GHZ_SUCCESS ? st : cli_backend_lib_error(b, st);
}

static ghz_status_t cpu_compress_fixed(cli_backend* b, ghz_dtype_t dtype, unsigned bits,
                                       const void* src, size_t n, void* dst, size_t cap,
                                       size_t* size)
{
    ghz_status_t st = ghz_fixed_compress(dtype, bits, src, n, dst, cap, size);
    return st == GHZ_SUCCESS ? st : cli_backend_lib_error(b, st);
}

/* ghz_fixed_decompress validates the frame itself (header, exact size, every block),
 * so the header the caller read is not needed here. */
static ghz_status_t cpu_decompress_fixed(cli_backend* b, const void* frame, size_t frame_size,
                                         const ghz_fixed_info_t* info, void* dst, size_t cap,
                                         size_t* n)
{
    ghz_status_t st = ghz_fixed_decompress(frame, frame_size, dst, cap, n);
    (void)info;
    return st == GHZ_SUCCESS ? st : cli_backend_lib_error(b, st);
}

static const cli_backend_ops cpu_ops = {"cpu",          NULL,           NULL,
                                        NULL,           cpu_compress,   cpu_decompress,
                                        cpu_compress_fixed, cpu_decompress_fixed};

const cli_backend_ops* cli_backend_cpu_ops(void)
{
    return &cpu_ops;
}
