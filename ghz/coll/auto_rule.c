/* ghz/coll/auto_rule.c: GHZ_PATH_AUTO's rule: the compressed path's costs and the
 * threshold they give for a measured link (detail/auto_rule.h says the rule; the
 * measurement at init: calibrate.c; the decision of a call: plan.c). */
#include <stdint.h>

#include "ghz/coll/detail/auto_rule.h"

/* The GPU codec's compressed path (every CUDA transport): the host reads sizes and
 * statuses a few times a call (F); compress, combine and decompress run at a few hundred
 * GB/s of input (G; docs/RESULTS-coll.md has the rates). */
#define GPU_FIXED_S 150e-6
#define GPU_CODEC_BPS 200e9
/* The CPU codec's, one thread: a two-rank lossy allreduce of 1 MiB takes about 3 ms
 * where the exact one takes 0.12 (0.35 GB/s of input: test/scripts/results), and ghz-cli
 * stat compresses a smooth field at 0.3 GB/s and decompresses it at 0.4 on a loaded
 * 2-core VM; a small lossy call costs about 20 us over its exact one (the agreement,
 * the range, two small frames). */
#define CPU_FIXED_S 20e-6
#define CPU_CODEC_BPS 0.3e9
/* The ratio assumed for every backend: a smooth field at REL 1e-4 gives 3 to 10, so
 * 2 rarely compresses where it does not pay. */
#define AUTO_RATIO 2.0

coll_auto_costs_t coll_auto_costs(ghz_exec_t backend)
{
    coll_auto_costs_t k;
    k.fixed_s = backend == GHZ_EXEC_CUDA ? GPU_FIXED_S : CPU_FIXED_S;
    k.codec_bps = backend == GHZ_EXEC_CUDA ? GPU_CODEC_BPS : CPU_CODEC_BPS;
    k.ratio = AUTO_RATIO;
    return k;
}

size_t coll_auto_rule(int N, size_t S, double t, const coll_auto_costs_t* k)
{
    double gain, s;
    size_t p = COLL_AUTO_LOSSY_MIN_BYTES;
    if (N < 2 || S == 0 || !(t > 0.0)) return SIZE_MAX;
    /* seconds saved per byte: the link's time of the bytes compression removes, less
     * the codec's */
    gain = t / (double)S * (1.0 - 1.0 / k->ratio) - 1.0 / k->codec_bps;
    if (!(gain > 0.0)) return SIZE_MAX;
    s = 2.0 * k->fixed_s / gain;
    while ((double)p < s && p < ((size_t)1 << 40)) p <<= 1;
    return (double)p < s ? SIZE_MAX : p;
}
