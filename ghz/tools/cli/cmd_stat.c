/* ghz/tools/cli/cmd_stat.c: the stat command: compress and decompress in memory,
 * frame by frame, and report ratio, error and speed (one CPU thread unless -n; with
 * -x cuda the codec runs on the GPU and the times include the host<->device
 * copies). */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "diag.h"
#include "io.h"
#include "pipeline.h"
#include "report.h"

int cli_cmd_stat(const cli_opts* o)
{
    const char* src = o->in ? o->in : o->n_operands ? o->operands[0] : "-";
    ghz_params_t p;
    cli_backend be;
    cli_pipeline pl;
    cli_metrics m;
    cli_in in;
    int rc;

    if (o->in && o->n_operands)
        return cli_usage_error("stat: two inputs ('%s' and -i %s)", o->operands[0], o->in);
    if ((rc = cli_make_params(o, "stat", 1, &p)) != 0) return rc;
    if ((rc = cli_backend_open(&be, p.exec, p.nthreads, "stat")) != 0) return rc;
    if ((rc = cli_in_open(&in, src)) != 0) {
        cli_backend_close(&be);
        return rc;
    }
    memset(&pl, 0, sizeof pl);
    pl.params = p;
    pl.fixed_bits = o->fixed_bits;
    pl.backend = &be;
    pl.frame_elems = o->frame_elems;
    pl.progress = o->progress;
    pl.has_dims = o->has_dims;
    pl.dims_n = o->dims_n;
    memcpy(pl.dims, o->dims, sizeof pl.dims);
    pl.in = &in;
    pl.label = "stat";
    cli_metrics_init(&m);
    pl.metrics = &m;
    rc = cli_pipeline_run(&pl);
    cli_backend_close(&be);
    cli_in_close(&in);
    if (rc != 0) return rc;
    cli_report_print(stdout, &pl, &m);
    return cli_report_verdict(&pl, &m);
}
