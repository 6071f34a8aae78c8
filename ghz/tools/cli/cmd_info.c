/* ghz/tools/cli/cmd_info.c: the info command: every frame header's fields and the
 * totals of each stream (like zstd -l), after validating each frame completely
 * (it is decoded into a scratch buffer, like zstd -t, by the backend of -x). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "diag.h"
#include "frames.h"
#include "io.h"
#include "progress.h"

static double fill_value(const ghz_frame_info_t* f)
{
    if (f->dtype == GHZ_F32) {
        uint32_t u = (uint32_t)f->fill_bits;
        float v;
        memcpy(&v, &u, 4);
        return (double)v;
    } else {
        double v;
        memcpy(&v, &f->fill_bits, 8);
        return v;
    }
}

static const char* mode_name(ghz_eb_mode_t m)
{
    return m == GHZ_EB_ABS ? "ABS" : m == GHZ_EB_REL ? "REL" : "?";
}

static double ratio(uint64_t raw, uint64_t cmp)
{
    return cmp ? (double)raw / (double)cmp : 0.0;
}

/* One line per frame. A fixed-rate frame has no bound nor fill: its mode column says
 * FIXED and the eb_user column its rate l. */
static void print_row(const cli_frame_info* f, uint64_t index, uint64_t offset)
{
    const ghz_frame_info_t* e = &f->eb;
    uint64_t raw = f->n * ghz_dtype_size(f->dtype);
    char fill[32], eb_user[32], eb_abs[32];
    if (f->fixed) {
        snprintf(eb_user, sizeof eb_user, "l=%u", f->fx.bits);
        snprintf(eb_abs, sizeof eb_abs, "-");
    } else {
        snprintf(eb_user, sizeof eb_user, "%.4g", e->eb_user);
        snprintf(eb_abs, sizeof eb_abs, "%.6g", e->eb_abs);
    }
    if (!f->fixed && e->has_fill)
        snprintf(fill, sizeof fill, "%.6g", fill_value(e));
    else
        snprintf(fill, sizeof fill, "-");
    printf("%6llu %12llu %12llu %-4s %-5s %11s %12s %11s %12llu %8.3f\n",
           (unsigned long long)index, (unsigned long long)offset, (unsigned long long)f->n,
           cli_dtype_name(f->dtype), f->fixed ? "FIXED" : mode_name(e->eb_mode), eb_user, eb_abs,
           fill, (unsigned long long)f->frame_size, ratio(raw, f->frame_size));
}

/* The fields only an error-bounded header has. */
static void print_eb_fields(const ghz_frame_info_t* f)
{
    printf("  format_version  %u\n", f->format_version);
    printf("  coding          %s\n", f->prefer == GHZ_PREFER_RATIO
                                         ? "ratio (interpolation + rANS, RATIO.md)"
                                         : "speed (blocks, FORMAT.md)");
    printf("  dtype           %s\n", cli_dtype_name(f->dtype));
    printf("  eb_mode         %s\n", mode_name(f->eb_mode));
    printf("  eb_user         %.17g\n", f->eb_user);
    printf("  eb_abs          %.17g\n", f->eb_abs);
    if (f->has_fill)
        printf("  fill            %.17g (bits 0x%0*llx)%s\n", fill_value(f),
               f->dtype == GHZ_F32 ? 8 : 16, (unsigned long long)f->fill_bits,
               f->prefer == GHZ_PREFER_SPEED &&
                       f->fill_bits == (f->dtype == GHZ_F32 ? 0x7FC00000ull : 0x7FF8000000000000ull)
                   ? ", the canonical NaN: declared, or written without a fill (FORMAT.md)"
                   : "");
    else
        printf("  fill            none\n");
}

/* The fields only a fixed-rate header has (FIXED.md; its version is the one readers
 * accept, which ghz_fixed_info checked). */
static void print_fixed_fields(const ghz_fixed_info_t* f)
{
    printf("  format_version  %u\n", ghz_format_version());
    printf("  dtype           %s\n", cli_dtype_name(f->dtype));
    printf("  mode            FIXED (fixed rate, FIXED.md)\n");
    printf("  l               %u bits/value\n", f->bits);
    printf("  bound           |x - x'| <= 2^%d * M / (1 - 2^-%u), M = max |x| of the block\n",
           1 - (int)f->bits, f->bits);
}

static void print_fields(const cli_frame_info* f, uint64_t index, uint64_t offset)
{
    uint64_t raw = f->n * ghz_dtype_size(f->dtype);
    printf("frame %llu at byte %llu\n", (unsigned long long)index, (unsigned long long)offset);
    if (f->fixed)
        print_fixed_fields(&f->fx);
    else
        print_eb_fields(&f->eb);
    printf("  n               %llu\n", (unsigned long long)f->n);
    printf("  n_blocks        %llu\n",
           (unsigned long long)(f->fixed ? f->fx.n_blocks : f->eb.n_blocks));
    printf("  payload_size    %llu\n",
           (unsigned long long)(f->fixed ? f->fx.payload_size : f->eb.payload_size));
    printf("  checksum        %s\n", f->fixed          ? "none (the fixed-rate format has none)"
                                     : f->eb.has_checksum ? "crc32c"
                                                          : "none");
    printf("  frame_size      %llu\n", (unsigned long long)f->frame_size);
    printf("  ratio           %.4f (%.4f bits/value)\n", ratio(raw, f->frame_size),
           f->n ? 8.0 * (double)f->frame_size / (double)f->n : 0.0);
}

/* Lists and validates one stream. */
static int info_one(const cli_opts* o, const char* path, cli_backend* be, int several)
{
    cli_in in;
    cli_frame_reader r;
    cli_frame_info f;
    cli_progress prog;
    unsigned char* scratch = NULL;
    size_t cap = 0;
    uint64_t n = 0, cmp = 0;
    int rc = 0, got;

    if ((rc = cli_in_open(&in, path)) != 0) return rc;
    if (several) printf("%s\n", in.name);
    if (o->verbosity < 2)
        printf("%6s %12s %12s %-4s %-5s %11s %12s %11s %12s %8s\n", "frame", "offset", "values",
               "type", "mode", "eb_user", "eb_abs", "fill", "bytes", "ratio");
    cli_frames_init(&r, &in);
    r.max_frame_bytes = o->max_frame_bytes;
    cli_progress_start(&prog, o->progress, "info", in.size);
    while ((got = cli_frames_next(&r, &f)) == 1) {
        size_t elem = ghz_dtype_size(f.dtype), bytes, nout;
        ghz_status_t st;
        if (f.n > SIZE_MAX / elem) {
            rc = cli_fail(GHZ_ERR_NOMEM, "frame larger than the address space", "%s: frame %llu",
                          in.name, (unsigned long long)(r.index - 1));
            break;
        }
        bytes = (size_t)f.n * elem;
        if (bytes > cap || !scratch) {
            /* At least 1 byte: the library never gets a NULL buffer, even for n = 0. */
            unsigned char* p = (unsigned char*)realloc(scratch, bytes ? bytes : 1);
            if (!p) {
                rc = cli_fail(GHZ_ERR_NOMEM, NULL, "%s: frame %llu of %llu values", in.name,
                              (unsigned long long)(r.index - 1), (unsigned long long)f.n);
                break;
            }
            scratch = p;
            cap = bytes;
        }
        st = cli_backend_decompress(be, r.buf, (size_t)f.frame_size, scratch, bytes, &nout);
        if (st != GHZ_SUCCESS) {
            rc = cli_fail(st, be->detail, "%s: frame %llu at byte %llu", in.name,
                          (unsigned long long)(r.index - 1), (unsigned long long)r.offset);
            break;
        }
        if (nout != f.n) {
            rc = cli_fail(GHZ_ERR_CORRUPT, "decoded value count differs from the header",
                          "%s: frame %llu at byte %llu", in.name,
                          (unsigned long long)(r.index - 1), (unsigned long long)r.offset);
            break;
        }
        cli_progress_interrupt();
        if (o->verbosity >= 2)
            print_fields(&f, r.index - 1, r.offset);
        else
            print_row(&f, r.index - 1, r.offset);
        n += f.n;
        cmp += f.frame_size;
        cli_progress_update(&prog, in.pos);
    }
    cli_progress_end(&prog);
    if (got < 0 && rc == 0) rc = CLI_ERR_RUNTIME;
    if (rc == 0) {
        uint64_t raw = n * ghz_dtype_size(r.dtype);
        printf("total: %llu frame%s, %llu %s values (%llu bytes) in %llu bytes, ratio %.4f, "
               "%.4f bits/value\n",
               (unsigned long long)r.index, r.index == 1 ? "" : "s", (unsigned long long)n,
               cli_dtype_name(r.dtype), (unsigned long long)raw, (unsigned long long)cmp,
               ratio(raw, cmp), n ? 8.0 * (double)cmp / (double)n : 0.0);
    }
    cli_frames_free(&r);
    free(scratch);
    cli_in_close(&in);
    return rc;
}

int cli_cmd_info(const cli_opts* o)
{
    const char* inputs[2];
    const char* const* list = inputs;
    size_t count = 0, i;
    int rc = 0, nthreads = o->nthreads >= 0 ? o->nthreads : 0;
    cli_backend be;

    if (o->cmp) inputs[count++] = o->cmp;
    if (o->in) inputs[count++] = o->in;
    if (o->n_operands) {
        if (count) return cli_usage_error("info: give the files either as operands or with -z");
        list = o->operands;
        count = o->n_operands;
    }
    if (count == 0) {
        inputs[count++] = "-";
    }
    if ((rc = cli_backend_open(&be, o->exec, nthreads, "info")) != 0) return rc;
    for (i = 0; i < count; ++i) {
        int r;
        if (i) printf("\n");
        r = info_one(o, list[i], &be, count > 1);
        if (r != 0) rc = r;
    }
    cli_backend_close(&be);
    return rc;
}
