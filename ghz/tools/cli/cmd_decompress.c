/* ghz/tools/cli/cmd_decompress.c: the decompress command: one frame at a time from
 * the stream to raw little-endian values of the stream's dtype, decoded by the
 * backend of -x (the CPU, or the GPU with the frame copied there and back). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "diag.h"
#include "frames.h"
#include "io.h"
#include "progress.h"

int cli_cmd_decompress(const cli_opts* o)
{
    const char* src = o->cmp ? o->cmp : o->in ? o->in : o->n_operands ? o->operands[0] : "-";
    const char* dst = o->out ? o->out : "-";
    int nthreads = o->nthreads >= 0 ? o->nthreads : 0;
    cli_backend be;
    cli_frame_reader r;
    cli_frame_info info;
    cli_progress prog;
    cli_in in;
    cli_out out;
    unsigned char* dbuf = NULL;
    size_t dcap = 0;
    uint64_t n_total = 0, raw_total = 0;
    double t_dec = 0.0;
    int rc = 0, got;

    if ((o->cmp != NULL) + (o->in != NULL) + (o->n_operands != 0) > 1)
        return cli_usage_error("decompress: give one input (-z, -i or an operand)");
    if (cli_same_file(src, dst))
        return cli_usage_error("decompress: input and output are the same file");
    if ((rc = cli_backend_open(&be, o->exec, nthreads, "decompress")) != 0) return rc;
    if ((rc = cli_in_open(&in, src)) != 0) {
        cli_backend_close(&be);
        return rc;
    }
    if ((rc = cli_out_open(&out, dst)) != 0) {
        cli_in_close(&in);
        cli_backend_close(&be);
        return rc;
    }
    cli_frames_init(&r, &in);
    r.max_frame_bytes = o->max_frame_bytes;
    cli_progress_start(&prog, o->progress, "decompress", in.size);
    while ((got = cli_frames_next(&r, &info)) == 1) {
        size_t elem = ghz_dtype_size(info.dtype), nout = 0, bytes;
        ghz_status_t st;
        double t;
        if (o->dtype && info.dtype != o->dtype) {
            char why[128];
            snprintf(why, sizeof why, "the stream holds %s values, -t says %s",
                     cli_dtype_name(info.dtype), cli_dtype_name(o->dtype));
            rc = cli_fail(GHZ_ERR_INVALID_ARG, why, "%s", in.name);
            break;
        }
        if (info.n > SIZE_MAX / elem) {
            rc = cli_fail(GHZ_ERR_NOMEM, "frame larger than the address space", "%s: frame %llu",
                          in.name, (unsigned long long)(r.index - 1));
            break;
        }
        bytes = (size_t)info.n * elem;
        if (bytes > dcap || !dbuf) {
            /* At least 1 byte: the library never gets a NULL buffer, even for n = 0. A
             * new buffer, not a grown one: its old values need not be kept. */
            free(dbuf);
            dbuf = (unsigned char*)cli_alloc_large(bytes);
            dcap = bytes ? bytes : 1;
            if (!dbuf) {
                rc = cli_fail(GHZ_ERR_NOMEM, NULL, "%s: frame %llu of %llu values", in.name,
                              (unsigned long long)(r.index - 1), (unsigned long long)info.n);
                break;
            }
        }
        st = cli_backend_prepare(&be, info.dtype, (size_t)info.n);
        if (st != GHZ_SUCCESS) {
            rc = cli_fail(st, be.detail, "%s: frame %llu at byte %llu", in.name,
                          (unsigned long long)(r.index - 1), (unsigned long long)r.offset);
            break;
        }
        t = cli_now();
        st = cli_backend_decompress(&be, r.buf, (size_t)info.frame_size, dbuf, bytes, &nout);
        t_dec += cli_now() - t;
        if (st != GHZ_SUCCESS) {
            rc = cli_fail(st, be.detail, "%s: frame %llu at byte %llu", in.name,
                          (unsigned long long)(r.index - 1), (unsigned long long)r.offset);
            break;
        }
        if (nout != info.n) {
            rc = cli_fail(GHZ_ERR_CORRUPT, "decoded value count differs from the header",
                          "%s: frame %llu at byte %llu", in.name,
                          (unsigned long long)(r.index - 1), (unsigned long long)r.offset);
            break;
        }
        if ((rc = cli_out_write(&out, dbuf, bytes)) != 0) break;
        n_total += info.n;
        raw_total += bytes;
        cli_progress_update(&prog, in.pos);
    }
    cli_progress_end(&prog);
    if (got < 0 && rc == 0) rc = CLI_ERR_RUNTIME;
    if (rc == 0 && o->has_dims && n_total != o->dims_n) {
        char why[160];
        snprintf(why, sizeof why, "the stream holds %llu values, the dimensions say %llu",
                 (unsigned long long)n_total, (unsigned long long)o->dims_n);
        rc = cli_fail(GHZ_ERR_INVALID_ARG, why, "%s", in.name);
    }
    if (rc == 0)
        rc = cli_out_commit(&out);
    else
        cli_out_abort(&out);
    if (rc == 0 && (o->verbosity >= 2 || (o->verbosity == 1 && isatty(fileno(stderr)))))
        cli_note("%s: %llu frame%s, %llu %s values, %llu -> %llu bytes, %.3g GB/s", in.name,
                 (unsigned long long)r.index, r.index == 1 ? "" : "s",
                 (unsigned long long)n_total, cli_dtype_name(r.dtype),
                 (unsigned long long)in.pos, (unsigned long long)raw_total,
                 t_dec > 0 ? (double)raw_total / t_dec / 1e9 : 0.0);
    cli_frames_free(&r);
    free(dbuf);
    cli_backend_close(&be);
    cli_in_close(&in);
    return rc;
}
