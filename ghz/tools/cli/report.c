/* ghz/tools/cli/report.c: stat's report, in the units of SZ3 -a and zfp -s. */
#include <math.h>
#include <stdio.h>

#include "backend.h"
#include "cli.h"
#include "diag.h"
#include "report.h"

/* "%.6g", or "n/a" for NaN, into buf. */
static const char* num(char* buf, size_t size, double v)
{
    if (isnan(v))
        snprintf(buf, size, "n/a");
    else
        snprintf(buf, size, "%.6g", v);
    return buf;
}

static double gbps(uint64_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes / seconds / 1e9 : NAN;
}

void cli_report_print(FILE* f, const cli_pipeline* pl, const cli_metrics* m)
{
    const ghz_params_t* p = &pl->params;
    uint64_t raw = pl->n * ghz_dtype_size(p->dtype);
    char a[64], b[64], c[128];
    double ratio = pl->cmp_bytes ? (double)raw / (double)pl->cmp_bytes : NAN;
    double bpv = pl->n ? 8.0 * (double)pl->cmp_bytes / (double)pl->n : NAN;
    double psnr = cli_metrics_psnr(m);
    int threads = p->nthreads; /* 1 for fixed rate (cli_make_params) */
    const char* gpu = pl->backend && pl->backend->exec == GHZ_EXEC_CUDA
                          ? "GPU, incl. host<->device copies"
                          : NULL;

    fprintf(f, "input            : %s\n", pl->in->name);
    fprintf(f, "values           : %llu %s (%llu bytes)\n", (unsigned long long)pl->n,
            cli_dtype_name(p->dtype), (unsigned long long)raw);
    fprintf(f, "frames           : %llu of up to %llu values\n", (unsigned long long)pl->frames,
            (unsigned long long)pl->frame_elems);
    if (pl->fixed_bits)
        fprintf(f, "error bound      : fixed rate, l = %u: |x - x'| <= 2^%d * M / (1 - 2^-%u), M = "
                "max |x| of each 32-value block (FIXED.md)\n",
                pl->fixed_bits, 1 - (int)pl->fixed_bits, pl->fixed_bits);
    else if (pl->eb_abs_min == pl->eb_abs_max)
        fprintf(f, "error bound      : %s %.6g -> eb_abs %.9g\n",
                p->eb_mode == GHZ_EB_ABS ? "ABS" : "REL", p->eb, pl->eb_abs_min);
    else
        fprintf(f, "error bound      : %s %.6g -> eb_abs %.9g .. %.9g\n",
                p->eb_mode == GHZ_EB_ABS ? "ABS" : "REL", p->eb, pl->eb_abs_min, pl->eb_abs_max);
    fprintf(f, "compressed       : %llu bytes\n", (unsigned long long)pl->cmp_bytes);
    fprintf(f, "ratio            : %s\n", num(a, sizeof a, ratio));
    fprintf(f, "bits/value       : %s\n", num(a, sizeof a, bpv));
    fprintf(f, "value range      : %s (min %s, max %s; %llu finite non-fill values)\n",
            num(a, sizeof a, cli_metrics_range(m)), num(b, sizeof b, m->vmin),
            num(c, sizeof c, m->vmax), (unsigned long long)m->n_valued);
    fprintf(f, "max abs error    : %s\n", num(a, sizeof a, m->n_valued ? m->max_err : NAN));
    fprintf(f, "max error/bound  : %s\n", num(a, sizeof a, m->n_valued ? m->max_ratio : NAN));
    if (isinf(psnr))
        fprintf(f, "PSNR             : inf (lossless)\n");
    else if (isnan(psnr))
        fprintf(f, "PSNR             : n/a\n");
    else
        fprintf(f, "PSNR             : %.6g dB\n", psnr);
    fprintf(f, "NRMSE            : %s\n", num(a, sizeof a, cli_metrics_nrmse(m)));
    if (threads == 0)
        snprintf(b, sizeof b, "all threads");
    else
        snprintf(b, sizeof b, "%d thread%s", threads, threads == 1 ? "" : "s");
    if (gpu) {
        /* The GPU's times include the copies between host and device memory; REL's
         * range pass runs on the CPU and is part of the compress time. */
        fprintf(f, "device           : %s\n", pl->backend->device);
        if (p->eb_mode == GHZ_EB_REL)
            snprintf(c, sizeof c, "; REL range pass on the CPU, %s", b);
        else
            c[0] = '\0';
        fprintf(f, "compress         : %s GB/s (%.6f s, %s%s)\n",
                num(a, sizeof a, gbps(raw, pl->t_compress)), pl->t_compress, gpu, c);
        fprintf(f, "decompress       : %s GB/s (%.6f s, %s)\n",
                num(a, sizeof a, gbps(raw, pl->t_decompress)), pl->t_decompress, gpu);
    } else {
        fprintf(f, "compress         : %s GB/s (%.6f s, %s)\n",
                num(a, sizeof a, gbps(raw, pl->t_compress)), pl->t_compress, b);
        fprintf(f, "decompress       : %s GB/s (%.6f s)\n",
                num(a, sizeof a, gbps(raw, pl->t_decompress)), pl->t_decompress);
    }
    if (pl->whole_in_memory)
        fprintf(f, "note             : REL from a pipe: the input was read into memory whole\n");
    fflush(f);
}

int cli_report_verdict(const cli_pipeline* pl, const cli_metrics* m)
{
    char why[200];
    if (m->over_bound) {
        snprintf(why, sizeof why, "%llu values off by more than %s (max error/bound %.6g)",
                 (unsigned long long)m->over_bound,
                 pl->fixed_bits ? "the bound of their block" : "eb_abs", m->max_ratio);
        return cli_fail(GHZ_ERR_CORRUPT, why, "%s: error bound violated", pl->in->name);
    }
    if (m->not_exact) {
        snprintf(why, sizeof why, "%llu %s", (unsigned long long)m->not_exact,
                 pl->fixed_bits ? "NaN or Inf values decoded as a finite value or another kind"
                                : "NaN, Inf or fill values not restored bit for bit");
        return cli_fail(GHZ_ERR_CORRUPT, why, "%s: exactness violated", pl->in->name);
    }
    return 0;
}
