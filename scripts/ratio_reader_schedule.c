/* scripts/ratio_reader_schedule.c: the CUDA ratio reader's two schedules in rANS steps,
 * for the pass table of one array (RATIO.md, Chunks; the writers' spread and shrink):
 *   barriers: every pass after the one before, warp g taking chunks g, g + R, ...;
 *   flow: chunks taken in chunk order by the first free warp, each starting once the
 *         chunks of earlier passes holding its input rows are done (ratio.h's
 *         ghz_ratio_input_rows and ghz_ratio_pass_first_row, as the reader waits).
 * A chunk of K symbols on W lanes takes ceil(K / W) steps, plus SETUP, times 1 +- JITTER
 * (uniform). Axis order 0, 1, 2 at every level. Prints both times and the work bound
 * (every warp busy); without SETUP and JITTER the barriers' time is the critical path of
 * scripts/ratio_gpu_model.py (CTest scripts.ratio_reader_schedule checks that they agree).
 *
 *   cc -O2 -I. -Ibuild/include -o /tmp/schedule scripts/ratio_reader_schedule.c
 *   /tmp/schedule D0 D1 D2 WARPS [SETUP [JITTER]]      e.g. 144 73 25608 2112 20 0.2 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#define GHZ_ADVANCED
#include "ghz/codec/ratio.h"

int main(int argc, char** argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s D0 D1 D2 WARPS [SETUP [JITTER]]\n", argv[0]);
        return 2;
    }
    const uint64_t d[3] = {strtoull(argv[1], 0, 10), strtoull(argv[2], 0, 10), strtoull(argv[3], 0, 10)};
    const uint64_t warps = strtoull(argv[4], 0, 10), n = d[0] * d[1] * d[2];
    const double setup = argc > 5 ? atof(argv[5]) : 0, jitter = argc > 6 ? atof(argv[6]) : 0;
    const unsigned L = ghz_ratio_levels(d[0], d[1], d[2]), np = 3 * L;
    const unsigned spread = ghz_ratio_spread_for(n), shrink = ghz_ratio_shrink_for(spread);
    const unsigned order[3] = {0, 1, 2};
    ghz_ratio_pass_t ps[3 * 64];
    unsigned lg[3 * 64];
    uint64_t cstart[3 * 64 + 1], nc = 0;
    if (!n || !warps || L > 64) return 2;
    for (unsigned P = 0; P < np; ++P) {
        ps[P] = ghz_ratio_pass(d, L - P / 3, order, P % 3);
        lg[P] = ghz_ratio_pass_chunk_log2(ps[P].points, GHZ_RATIO_CHUNK_LOG2, spread, shrink);
        cstart[P] = nc;
        nc += (ps[P].points + ((uint64_t)1 << lg[P]) - 1) >> lg[P];
    }
    cstart[np] = nc;
    double* dur = malloc(nc * sizeof *dur);
    double* done = malloc(nc * sizeof *done);
    double* free_at = calloc(warps, sizeof *free_at);
    if (!dur || !done || !free_at) return 1;
    srand(1);
    for (unsigned P = 0; P < np; ++P)
        for (uint64_t c = cstart[P]; c < cstart[P + 1]; ++c) {
            const uint64_t k0 = (c - cstart[P]) << lg[P], cs = (uint64_t)1 << lg[P];
            const uint64_t K = ps[P].points - k0 < cs ? ps[P].points - k0 : cs;
            const unsigned W = ghz_ratio_chunk_lanes(K, shrink);
            dur[c] = (setup + (double)((K + W - 1) / W)) * (1.0 + jitter * (2.0 * rand() / RAND_MAX - 1.0));
        }
    double t_bar = 0, t_flow = 0, work = 0;
    for (unsigned P = 0; P < np; ++P) {
        const uint64_t C = cstart[P + 1] - cstart[P];
        double longest = 0;
        for (uint64_t g = 0; g < warps && g < C; ++g) {
            double s = 0;
            for (uint64_t c = g; c < C; c += warps) s += dur[cstart[P] + c];
            if (s > longest) longest = s;
        }
        t_bar += longest;
    }
    for (unsigned P = 0; P < np; ++P)
        for (uint64_t c = cstart[P]; c < cstart[P + 1]; ++c) {
            const uint64_t k0 = (c - cstart[P]) << lg[P], cs = (uint64_t)1 << lg[P];
            const uint64_t K = ps[P].points - k0 < cs ? ps[P].points - k0 : cs;
            uint64_t w = 0, r0, r1;
            for (uint64_t i = 1; i < warps; ++i)
                if (free_at[i] < free_at[w]) w = i;
            double start = free_at[w];
            ghz_ratio_input_rows(&ps[P], d, k0, k0 + K - 1, &r0, &r1);
            for (unsigned Q = 0; Q < P; ++Q) {
                const uint64_t a = ghz_ratio_pass_first_row(&ps[Q], d, r0);
                const uint64_t b = ghz_ratio_pass_first_row(&ps[Q], d, r1 + 1);
                if (b <= a) continue;
                for (uint64_t q = cstart[Q] + (a >> lg[Q]); q <= cstart[Q] + ((b - 1) >> lg[Q]); ++q)
                    if (done[q] > start) start = done[q];
            }
            done[c] = start + dur[c];
            free_at[w] = done[c];
            if (done[c] > t_flow) t_flow = done[c];
            work += dur[c];
        }
    printf("%llu x %llu x %llu, %llu chunks, %llu warps: barriers %.0f steps, flow %.0f (%.2fx), work bound %.0f\n",
           (unsigned long long)d[0], (unsigned long long)d[1], (unsigned long long)d[2], (unsigned long long)nc,
           (unsigned long long)warps, t_bar, t_flow, t_bar / t_flow, work / (double)warps);
    free(dur);
    free(done);
    free(free_at);
    return 0;
}
