/* ghz/coll/auto_rule.c: GHZ_PATH_AUTO's rule (COLL.md, AUTO's threshold). */
#include <stdint.h>

#include "ghz/coll/detail/auto_rule.h"

/* {F, G, r, G_ratio, g}. The GPU's F: the host reads sizes and statuses a few times a
 * call; the CPU's (one thread): a small lossy call costs about 20 us over its exact one
 * (the agreement, the range, two small frames); docs/RESULTS-coll.md has the rates. r: a
 * smooth field at REL 1e-4 gives 3 to 10, so 2 rarely compresses where it does not pay.
 * G_ratio (compress and decompress of a message, both counted) and g (how much smaller
 * a ratio frame is): COLL.md, Data movement, Ratio frames. */
coll_auto_costs_t coll_auto_costs(ghz_exec_t backend)
{
    const coll_auto_costs_t gpu = {150e-6, 200e9, 2.0, 0.7e9, 1.3}, cpu = {20e-6, 0.3e9, 2.0, 0.135e9, 1.3};
    return backend == GHZ_EXEC_CUDA ? gpu : cpu;
}

int coll_auto_ratio_frames(int N, size_t S, double t, const coll_auto_costs_t* k)
{
    double t1;
    if (N < 2 || S == 0 || !(t > 0.0)) return 0;
    t1 = t / (2.0 * (N - 1) / N * (double)S);
    return t1 * (1.0 - 1.0 / k->ratio_gain) / k->ratio > 1.0 / k->ratio_codec_bps - 1.0 / k->codec_bps;
}

size_t coll_auto_rule(int N, size_t S, double t, const coll_auto_costs_t* k)
{
    double gain, s;
    size_t p = COLL_AUTO_LOSSY_MIN_BYTES;
    if (N < 2 || S == 0 || !(t > 0.0)) return SIZE_MAX;
    gain = t / (double)S * (1.0 - 1.0 / k->ratio) - 1.0 / k->codec_bps; /* seconds saved per byte */
    if (!(gain > 0.0)) return SIZE_MAX;
    s = 2.0 * k->fixed_s / gain;
    while ((double)p < s && p < ((size_t)1 << 40)) p <<= 1;
    return (double)p < s ? SIZE_MAX : p;
}
