/* ghz/tools/cli/cmd_homo.c: add, sub, min and max: "ghz-cli add A.ghz B.ghz -o OUT.ghz"
 * combines two ghz streams frame by frame with ghz/homo (ghz/homo/HOMO.md: the
 * result is the stream that decompress -> operate -> recompress would write), in
 * memory bounded by one frame of each input and of the output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "frames.h"
#include "io.h"

/* ghz/homo computes on error-bounded frames only: a fixed-rate frame (mode 3) has
 * no bound to keep, so an operation on it is refused, not approximated. */
static int refuse_fixed(const char* name, const cli_in* in, uint64_t index)
{
    return cli_fail(GHZ_ERR_UNSUPPORTED,
                    "add, sub, min and max work on error-bounded frames; this is a fixed-rate "
                    "frame (mode 3, FIXED.md): decompress it and compute on the values",
                    "%s %s: frame %llu", name, in->name, (unsigned long long)index);
}

/* Combines the frame pairs of a and b into out, each output frame with a checksum when
 * o->checksum (as every frame ghz-cli writes). Returns an exit code. */
static int combine(ghz_homo_op_t op, const char* name, cli_in* a, cli_in* b, cli_out* out,
                   const cli_opts* o)
{
    cli_frame_reader ra, rb;
    cli_frame_info fa, fb;
    unsigned char* obuf = NULL;
    size_t ocap = 0;
    int rc = 0, ga, gb;
    cli_frames_init(&ra, a);
    cli_frames_init(&rb, b);
    ra.max_frame_bytes = rb.max_frame_bytes = o->max_frame_bytes;
    for (;;) {
        ghz_buf_t ia = GHZ_BUF_INIT, ib = GHZ_BUF_INIT, ob = GHZ_BUF_INIT;
        ghz_status_t st;
        size_t need;
        ga = cli_frames_next(&ra, &fa);
        if (ga < 0) break;
        if (ga == 1 && fa.fixed) {
            rc = refuse_fixed(name, a, ra.index - 1);
            break;
        }
        gb = cli_frames_next(&rb, &fb);
        if (gb < 0) break;
        if (gb == 1 && fb.fixed) {
            rc = refuse_fixed(name, b, rb.index - 1);
            break;
        }
        if (ga == 0 && gb == 0) break;
        if (ga != gb) {
            rc = cli_fail(GHZ_ERR_MISMATCH, "the streams have different frame counts",
                          "%s %s, %s", name, a->name, b->name);
            break;
        }
        need = ghz_compress_bound((size_t)fa.n, fa.dtype);
        if (need != 0) need += GHZ_CHECKSUM_SIZE;
        if (need == 0) {
            rc = cli_fail(GHZ_ERR_NOMEM, "frame larger than the address space", "%s: frame %llu",
                          a->name, (unsigned long long)(ra.index - 1));
            break;
        }
        if (need > ocap) {
            unsigned char* p = (unsigned char*)realloc(obuf, need);
            if (!p) {
                rc = cli_fail(GHZ_ERR_NOMEM, NULL, "%s: output frame of %zu bytes", name, need);
                break;
            }
            obuf = p;
            ocap = need;
        }
        ia.data = ra.buf;
        ia.size = ia.capacity = (size_t)fa.frame_size;
        ib.data = rb.buf;
        ib.size = ib.capacity = (size_t)fb.frame_size;
        ob.data = obuf;
        ob.capacity = ocap;
        st = ghz_homo_binary(op, &ia, &ib, &ob);
        if (st != GHZ_SUCCESS) {
            rc = cli_fail_lib(st, "%s %s, %s: frame %llu", name, a->name, b->name,
                              (unsigned long long)(ra.index - 1));
            break;
        }
        if (o->checksum && (st = ghz_frame_add_checksum(obuf, ob.size, ocap, &ob.size)) != GHZ_SUCCESS) {
            rc = cli_fail_lib(st, "%s: checksum of frame %llu", name, (unsigned long long)(ra.index - 1));
            break;
        }
        if ((rc = cli_out_write(out, obuf, ob.size)) != 0) break;
    }
    if ((ga < 0 || gb < 0) && rc == 0) rc = CLI_ERR_RUNTIME;
    free(obuf);
    cli_frames_free(&ra);
    cli_frames_free(&rb);
    return rc;
}

static int run_homo(const cli_opts* o, ghz_homo_op_t op, const char* name)
{
    cli_in a, b;
    cli_out out;
    int rc;
    if (o->n_operands != 2)
        return cli_usage_error("%s: give two input streams: %s A.ghz B.ghz -o OUT.ghz", name, name);
    if (!o->out) return cli_usage_error("%s: give the output stream with -o", name);
    if (cli_same_file(o->operands[0], o->out) || cli_same_file(o->operands[1], o->out))
        return cli_usage_error("%s: an input and the output are the same file", name);
    if (strcmp(o->operands[0], "-") == 0 && strcmp(o->operands[1], "-") == 0)
        return cli_usage_error("%s: only one input can be stdin", name);
    memset(&out, 0, sizeof out);
    if ((rc = cli_in_open(&a, o->operands[0])) != 0) return rc;
    if ((rc = cli_in_open(&b, o->operands[1])) != 0) {
        cli_in_close(&a);
        return rc;
    }
    if ((rc = cli_out_open(&out, o->out)) == 0) {
        rc = combine(op, name, &a, &b, &out, o);
        if (rc == 0)
            rc = cli_out_commit(&out);
        else
            cli_out_abort(&out);
    }
    cli_in_close(&a);
    cli_in_close(&b);
    return rc;
}

int cli_cmd_add(const cli_opts* o)
{
    return run_homo(o, GHZ_HOMO_SUM, "add");
}

int cli_cmd_sub(const cli_opts* o)
{
    return run_homo(o, GHZ_HOMO_SUB, "sub");
}

int cli_cmd_min(const cli_opts* o)
{
    return run_homo(o, GHZ_HOMO_MIN, "min");
}

int cli_cmd_max(const cli_opts* o)
{
    return run_homo(o, GHZ_HOMO_MAX, "max");
}
