/* ghz/tools/cli/cmd_compress.c: the compress and roundtrip commands, and the
 * parameter checks that stat shares. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "diag.h"
#include "io.h"
#include "pipeline.h"
#include "report.h"

/* --fixed: the options that belong to the error-bounded format are refused, not
 * ignored, so that nobody believes a bound, a fill value or a checksum is kept. */
static int fixed_params(const cli_opts* o, const char* what, ghz_params_t* p)
{
    if (o->seen & CLI_OPT_BOUND)
        return cli_usage_error("%s: --fixed and the error-bound options (-M/-E/-A/-R) are "
                               "mutually exclusive: a fixed-rate frame has no error bound, its "
                               "error is set by l relative to each block's maximum (FIXED.md)",
                               what);
    if (o->seen & CLI_OPT_FILL)
        return cli_usage_error("%s: --fill does not apply to --fixed: the fixed-rate format "
                               "keeps no fill value (FIXED.md)", what);
    if ((o->seen & CLI_OPT_CHECKSUM) && o->checksum)
        return cli_usage_error("%s: --checksum does not apply to --fixed: the fixed-rate format "
                               "has no checksum field (FIXED.md), so its frames are written "
                               "without one", what);
    if (o->prefer == GHZ_PREFER_RATIO)
        return cli_usage_error("%s: --prefer ratio does not apply to --fixed: a fixed-rate frame "
                               "spends l bits on every value (FIXED.md)", what);
    ghz_params_init(p);
    p->dtype = o->dtype;
    p->nthreads = 1; /* the CPU's fixed-rate codec runs on one thread */
    p->exec = o->exec;
    p->checksum = 0;
    return 0;
}

int cli_make_params(const cli_opts* o, const char* what, int nthreads_default, ghz_params_t* p)
{
    unsigned char probe[GHZ_HEADER_SIZE + 16 + GHZ_CHECKSUM_SIZE];
    ghz_params_t q;
    size_t size;
    ghz_status_t st;

    if (!o->dtype) return cli_usage_error("%s: give the type of the raw values: -t f32|f64", what);
    if (o->fixed_bits) return fixed_params(o, what, p);
    if (!o->eb_mode) return cli_usage_error("%s: give the error-bound mode: -M ABS|REL", what);
    if (!o->has_eb) return cli_usage_error("%s: give the error bound: -E BOUND", what);
    if (o->has_fill && o->dtype == GHZ_F32 && isfinite(o->fill) && !isfinite((float)o->fill))
        return cli_usage_error("%s: --fill %g is out of the f32 range", what, o->fill);
    ghz_params_init(p);
    p->dtype = o->dtype;
    p->eb_mode = o->eb_mode;
    p->eb = o->eb;
    p->has_fill = o->has_fill;
    p->fill = o->fill;
    p->nthreads = o->nthreads >= 0 ? o->nthreads : nthreads_default;
    p->exec = o->exec;
    p->checksum = o->checksum;
    p->prefer = o->prefer;
    /* Let the library judge the parameters on an empty frame, before any file is
     * touched: a bound it cannot use fails here. The probe runs on the CPU reference
     * (ghz_compress takes no other policy); the backend is checked when opened. What
     * it refuses came from the command line, so it is a usage error (exit 2), like
     * every other bad bound. */
    q = *p;
    q.exec = GHZ_EXEC_CPU;
    st = ghz_compress(&q, probe, 0, probe, sizeof probe, &size);
    if (st == GHZ_ERR_BAD_BOUND || st == GHZ_ERR_INVALID_ARG)
        return cli_usage_error("%s: %s (%s)", what, ghz_status_string(st), ghz_last_error_detail());
    if (st != GHZ_SUCCESS) return cli_fail_lib(st, "%s", what);
    return 0;
}

/* Where the summary line goes: -v always, -q never, else only for a person
 * watching a terminal. */
static int want_summary(const cli_opts* o)
{
    return o->verbosity >= 2 || (o->verbosity == 1 && isatty(fileno(stderr)));
}

static void summary(const cli_pipeline* pl)
{
    uint64_t raw = pl->n * ghz_dtype_size(pl->params.dtype);
    char mode[48];
    if (pl->fixed_bits)
        snprintf(mode, sizeof mode, "fixed rate l = %u", pl->fixed_bits);
    else
        snprintf(mode, sizeof mode, "eb_abs %.6g", pl->eb_abs_max);
    cli_note("%s: %llu %s values, %llu -> %llu bytes (ratio %.4g, %.4g bits/value), "
             "%llu frame%s, %s, %.3g GB/s",
             pl->in->name, (unsigned long long)pl->n, cli_dtype_name(pl->params.dtype),
             (unsigned long long)raw, (unsigned long long)pl->cmp_bytes,
             pl->cmp_bytes ? (double)raw / (double)pl->cmp_bytes : 0.0,
             pl->n ? 8.0 * (double)pl->cmp_bytes / (double)pl->n : 0.0,
             (unsigned long long)pl->frames, pl->frames == 1 ? "" : "s", mode,
             pl->t_compress > 0 ? (double)raw / pl->t_compress / 1e9 : 0.0);
}

static void setup(cli_pipeline* pl, const cli_opts* o, const ghz_params_t* p, cli_backend* be,
                  cli_in* in, const char* label)
{
    memset(pl, 0, sizeof *pl);
    pl->params = *p;
    pl->fixed_bits = o->fixed_bits;
    pl->backend = be;
    pl->frame_elems = o->frame_elems;
    pl->progress = o->progress;
    pl->has_dims = o->has_dims;
    pl->dims_n = o->dims_n;
    memcpy(pl->dims, o->dims, sizeof pl->dims);
    pl->in = in;
    pl->label = label;
}

int cli_cmd_compress(const cli_opts* o)
{
    const char* src = o->in ? o->in : o->n_operands ? o->operands[0] : "-";
    const char* dst = o->cmp ? o->cmp : o->out ? o->out : "-";
    ghz_params_t p;
    cli_backend be;
    cli_pipeline pl;
    cli_in in;
    cli_out out;
    int rc;

    if (o->in && o->n_operands)
        return cli_usage_error("compress: two inputs ('%s' and -i %s)", o->operands[0], o->in);
    if (o->cmp && o->out)
        return cli_usage_error("compress writes one stream: give -z or -o, or use roundtrip");
    if (cli_same_file(src, dst))
        return cli_usage_error("compress: input and output are the same file");
    if ((rc = cli_make_params(o, "compress", 0, &p)) != 0) return rc;
    if ((rc = cli_backend_open(&be, p.exec, p.nthreads, "compress")) != 0) return rc;
    if ((rc = cli_in_open(&in, src)) != 0) {
        cli_backend_close(&be);
        return rc;
    }
    if ((rc = cli_out_open(&out, dst)) != 0) {
        cli_in_close(&in);
        cli_backend_close(&be);
        return rc;
    }
    setup(&pl, o, &p, &be, &in, "compress");
    pl.cmp = &out;
    rc = cli_pipeline_run(&pl);
    cli_backend_close(&be);
    if (rc == 0)
        rc = cli_out_commit(&out);
    else
        cli_out_abort(&out);
    cli_in_close(&in);
    if (rc == 0 && want_summary(o)) summary(&pl);
    return rc;
}

int cli_cmd_roundtrip(const cli_opts* o)
{
    const char* src = o->in ? o->in : o->n_operands ? o->operands[0] : "-";
    ghz_params_t p;
    cli_backend be;
    cli_pipeline pl;
    cli_metrics m;
    cli_in in;
    cli_out cmp, dec;
    int rc, report = (o->seen & CLI_OPT_REPORT) != 0;

    if (o->in && o->n_operands)
        return cli_usage_error("roundtrip: two inputs ('%s' and -i %s)", o->operands[0], o->in);
    if (!o->cmp || !o->out)
        return cli_usage_error("roundtrip: give the stream (-z) and the decompressed output (-o)");
    if (strcmp(o->cmp, "-") == 0 && strcmp(o->out, "-") == 0)
        return cli_usage_error("roundtrip: -z and -o cannot both be stdout");
    if (cli_same_file(src, o->cmp) || cli_same_file(src, o->out) || cli_same_file(o->cmp, o->out))
        return cli_usage_error("roundtrip: -i, -z and -o must be different files");
    if ((rc = cli_make_params(o, "roundtrip", 0, &p)) != 0) return rc;
    if ((rc = cli_backend_open(&be, p.exec, p.nthreads, "roundtrip")) != 0) return rc;
    if ((rc = cli_in_open(&in, src)) != 0) {
        cli_backend_close(&be);
        return rc;
    }
    memset(&dec, 0, sizeof dec);
    if ((rc = cli_out_open(&cmp, o->cmp)) != 0 || (rc = cli_out_open(&dec, o->out)) != 0) {
        cli_out_abort(&cmp);
        cli_in_close(&in);
        cli_backend_close(&be);
        return rc;
    }
    setup(&pl, o, &p, &be, &in, "roundtrip");
    pl.cmp = &cmp;
    pl.dec = &dec;
    cli_metrics_init(&m);
    pl.metrics = &m;
    rc = cli_pipeline_run(&pl);
    cli_backend_close(&be);
    if (rc == 0) rc = cli_report_verdict(&pl, &m);
    if (rc == 0) rc = cli_out_commit(&cmp);
    if (rc == 0)
        rc = cli_out_commit(&dec);
    else
        cli_out_abort(&dec);
    cli_out_abort(&cmp); /* no-op once committed */
    cli_in_close(&in);
    if (rc == 0 && report) {
        int to_stdout = strcmp(o->cmp, "-") != 0 && strcmp(o->out, "-") != 0;
        cli_report_print(to_stdout ? stdout : stderr, &pl, &m);
    } else if (rc == 0 && want_summary(o)) {
        summary(&pl);
    }
    return rc;
}
