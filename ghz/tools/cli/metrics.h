/* ghz/tools/cli/metrics.h: error statistics of decompressed against original values,
 * accumulated frame by frame (SZ3's and zfp's report: max error, PSNR, NRMSE). */
#ifndef GHZ_TOOLS_CLI_METRICS_H
#define GHZ_TOOLS_CLI_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "ghz/types.h"

typedef struct {
    uint64_t n;            /* values compared */
    uint64_t n_valued;     /* finite, non-fill original values: the ones measured */
    double vmin, vmax;     /* their range (NaN while n_valued is 0) */
    double max_err;        /* max |x - x'| over them (Inf if one decoded as NaN/Inf) */
    long double sum_sq;    /* sum of (x - x')^2 over them */
    double max_ratio;      /* max over frames of max_err(frame) / eb_abs(frame), or for
                              fixed rate over blocks of max_err(block) / bound(block) */
    uint64_t over_bound;   /* values with |x - x'| > their bound, exactly */
    uint64_t not_exact;    /* NaN/Inf/fill originals not reproduced bit for bit; fixed
                              rate: NaN/Inf decoded as what FIXED.md does not allow */
} cli_metrics;

void cli_metrics_init(cli_metrics* m);

/* Compares n decoded values with the originals of one frame, whose guaranteed bound
 * is eb_abs (from its header). has_fill/fill_bits as in ghz_frame_info_t. */
void cli_metrics_add(cli_metrics* m, ghz_dtype_t dtype, const void* orig, const void* dec,
                     size_t n, int has_fill, uint64_t fill_bits, double eb_abs);

/* The same for a fixed-rate frame of l = bits (FIXED.md): each 32-value block is
 * held to the proved bound 2^(1-l) M / (1 - 2^-l) + r of its largest finite
 * magnitude M (r: the rounding of a subnormal result, and 2^-24 M for f32 at l = 32);
 * a NaN must decode as NaN, an Inf as itself or NaN (a block mixing kinds). */
void cli_metrics_add_fixed(cli_metrics* m, ghz_dtype_t dtype, unsigned bits, const void* orig,
                           const void* dec, size_t n);

/* Derived figures; NaN when undefined (no measured value, or a zero range). PSNR is
 * +Inf for a lossless result. Range = vmax - vmin of the original values. */
double cli_metrics_range(const cli_metrics* m);
double cli_metrics_mse(const cli_metrics* m);
double cli_metrics_psnr(const cli_metrics* m);
double cli_metrics_nrmse(const cli_metrics* m);

#endif
