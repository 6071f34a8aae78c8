/* scripts/ratio_reader_schedule.c: the CUDA ratio reader's two schedules in rANS steps,
 * for the pass table of one array (RATIO.md, Chunks; the writers' spread and shrink):
 *   barriers: every pass after the one before, warp g taking chunks g, g + R, ...;
 *   flow: chunks taken in chunk order by the first free warp, each starting once the
 *         chunks of earlier passes holding its input rows are done (ratio.h's
 *         ghz_ratio_input_rows and ghz_ratio_pass_first_row, as the reader waits);
 *   progress (with G): as flow, but a chunk waits before every G steps of its own for
 *         the points those steps read, each chunk telling how far it is every G steps
 *         (a reader that published its progress within a chunk; G of a chunk's size
 *         or more is flow).
 * A chunk of K symbols on W lanes takes ceil(K / W) steps, plus SETUP, times 1 +- JITTER
 * (uniform). Axis order 0, 1, 2 at every level. Prints both times and the work bound
 * (every warp busy); without SETUP and JITTER the barriers' time is the critical path of
 * scripts/ratio_gpu_model.py (CTest scripts.ratio_reader_schedule checks that they agree).
 *
 *   cc -O2 -I. -Ibuild/include -o /tmp/schedule scripts/ratio_reader_schedule.c
 *   /tmp/schedule D0 D1 D2 WARPS [SETUP [JITTER [G]]]      e.g. 144 73 25608 2112 20 0.2 8
 * SPREAD=S and SHRINK=k in the environment model a frame written with that spread and
 * shrink instead of the writers' choice for n (every reader accepts any). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#define GHZ_ADVANCED
#include "ghz/codec/ratio.h"

/* Chunk c of pass P (RATIO.md, Chunks): its first point *k0, its *K points; returns its lanes. */
static unsigned chunk_span(const ghz_ratio_pass_t* ps, const unsigned* lg, const uint64_t* cstart, unsigned shrink,
                           unsigned P, uint64_t c, uint64_t* k0, uint64_t* K)
{
    const uint64_t cs = (uint64_t)1 << lg[P];
    *k0 = (c - cstart[P]) << lg[P];
    *K = ps[P].points - *k0 < cs ? ps[P].points - *k0 : cs;
    return ghz_ratio_chunk_lanes(*K, shrink);
}

/* The warp free first. */
static uint64_t first_free(const double* free_at, uint64_t warps)
{
    uint64_t w = 0;
    for (uint64_t i = 1; i < warps; ++i)
        if (free_at[i] < free_at[w]) w = i;
    return w;
}

/* The progress schedule (above): each chunk's time at the end of each group of G steps,
 * a chunk's time (setup and steps) stretched as dur[c] stretches it. Returns the end. */
static double progress(const uint64_t d[3], const ghz_ratio_pass_t* ps, const unsigned* lg, const uint64_t* cstart,
                       unsigned np, unsigned shrink, const double* dur, double setup, uint64_t warps, uint64_t G)
{
    const uint64_t nc = cstart[np];
    uint64_t* const g0 = malloc((nc + 1) * sizeof *g0);
    double* const free_at = calloc(warps, sizeof *free_at);
    double* ends = NULL, t_end = 0;
    uint64_t ng = 0;
    if (!g0 || !free_at) exit(1);
    for (unsigned P = 0; P < np; ++P) /* the chunks' groups: g0[c] .. g0[c + 1] - 1 */
        for (uint64_t c = cstart[P]; c < cstart[P + 1]; ++c) {
            uint64_t k0, K;
            const unsigned W = chunk_span(ps, lg, cstart, shrink, P, c, &k0, &K);
            g0[c] = ng;
            ng += ((K + W - 1) / W + G - 1) / G;
        }
    g0[nc] = ng;
    if (!(ends = malloc(ng * sizeof *ends))) exit(1);
    for (unsigned P = 0; P < np; ++P)
        for (uint64_t c = cstart[P]; c < cstart[P + 1]; ++c) {
            uint64_t k0, K;
            const unsigned W = chunk_span(ps, lg, cstart, shrink, P, c, &k0, &K);
            const uint64_t n_steps = (K + W - 1) / W;
            const double scale = dur[c] / (setup + (double)n_steps); /* the chunk's jitter */
            const uint64_t w = first_free(free_at, warps);
            double t = free_at[w];
            for (uint64_t j = 0; j < g0[c + 1] - g0[c]; ++j) {
                const uint64_t s0 = j * G, s1 = s0 + G < n_steps ? s0 + G : n_steps;
                const uint64_t p0 = k0 + s0 * W, p1 = (k0 + s1 * W < k0 + K ? k0 + s1 * W : k0 + K) - 1;
                uint64_t r0, r1;
                ghz_ratio_input_rows(&ps[P], d, p0, p1, &r0, &r1);
                for (unsigned Q = 0; Q < P; ++Q) { /* the points [a, b) of pass Q these steps read */
                    const uint64_t a = ghz_ratio_pass_first_row(&ps[Q], d, r0);
                    const uint64_t b = ghz_ratio_pass_first_row(&ps[Q], d, r1 + 1);
                    if (b <= a) continue;
                    const uint64_t qa = cstart[Q] + (a >> lg[Q]), qb = cstart[Q] + ((b - 1) >> lg[Q]);
                    for (uint64_t q = qa; q <= qb; ++q) { /* done through its last point read */
                        double tq = ends[g0[q + 1] - 1];
                        if (q == qb) {
                            uint64_t kq, Kq;
                            const unsigned Wq = chunk_span(ps, lg, cstart, shrink, Q, q, &kq, &Kq);
                            tq = ends[g0[q] + ((b - 1 - kq) / Wq) / G];
                        }
                        if (tq > t) t = tq;
                    }
                }
                t += scale * ((j == 0 ? setup : 0.0) + (double)(s1 - s0));
                ends[g0[c] + j] = t;
            }
            free_at[w] = t;
            if (t > t_end) t_end = t;
        }
    free(g0);
    free(free_at);
    free(ends);
    return t_end;
}

int main(int argc, char** argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s D0 D1 D2 WARPS [SETUP [JITTER [G]]]\n", argv[0]);
        return 2;
    }
    const uint64_t d[3] = {strtoull(argv[1], 0, 10), strtoull(argv[2], 0, 10), strtoull(argv[3], 0, 10)};
    const uint64_t warps = strtoull(argv[4], 0, 10), n = d[0] * d[1] * d[2];
    const double setup = argc > 5 ? atof(argv[5]) : 0, jitter = argc > 6 ? atof(argv[6]) : 0;
    const uint64_t G = argc > 7 ? strtoull(argv[7], 0, 10) : 0;
    const unsigned L = ghz_ratio_levels(d[0], d[1], d[2]), np = 3 * L;
    const char *const sp_env = getenv("SPREAD"), *const sk_env = getenv("SHRINK");
    const unsigned spread = sp_env ? (unsigned)atoi(sp_env) : ghz_ratio_spread_for(n),
                   shrink = sk_env ? (unsigned)atoi(sk_env) : ghz_ratio_shrink_for(spread);
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
            uint64_t k0, K;
            const unsigned W = chunk_span(ps, lg, cstart, shrink, P, c, &k0, &K);
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
            uint64_t k0, K, r0, r1;
            const uint64_t w = first_free(free_at, warps);
            double start = free_at[w];
            (void)chunk_span(ps, lg, cstart, shrink, P, c, &k0, &K);
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
    printf("%llu x %llu x %llu, %llu chunks, %llu warps: barriers %.0f steps, flow %.0f (%.2fx), work bound %.0f",
           (unsigned long long)d[0], (unsigned long long)d[1], (unsigned long long)d[2], (unsigned long long)nc,
           (unsigned long long)warps, t_bar, t_flow, t_bar / t_flow, work / (double)warps);
    if (G) printf(", progress every %llu steps %.0f", (unsigned long long)G, progress(d, ps, lg, cstart, np, shrink, dur, setup, warps, G));
    printf("\n");
    free(dur);
    free(done);
    free(free_at);
    return 0;
}
