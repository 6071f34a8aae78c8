/* test/coll/test_auto_rule.c: GHZ_PATH_AUTO's threshold (ghz/coll/detail/auto_rule.h)
 * from a link's measured time: the formula against a direct evaluation, where links of
 * known bandwidths land with the GPU's and the CPU's constants, the 64 KiB floor, the
 * power of two, "never" where compression cannot pay; and the frozen decision that
 * every call then takes. That every rank gets the same threshold, and the override, run
 * in test_coll_mpi (edge) on several ranks. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "ghz/coll/detail/auto_rule.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* The time of an exact allreduce of S bytes per rank at a bus bandwidth of gbs GB/s. */
static double link_time(int N, size_t S, double gbs)
{
    return 2.0 * (N - 1) / N * (double)S / (gbs * 1e9);
}

/* 2 F / (k (1 - 1/r) / B - 1/G), written as the COLL.md states it (0: not positive). */
static double crossover_x2(int N, double gbs, const coll_auto_costs_t* k)
{
    const double kf = 2.0 * (N - 1) / N, B = gbs * 1e9;
    const double gain = kf * (1.0 - 1.0 / k->ratio) / B - 1.0 / k->codec_bps;
    return gain > 0.0 ? 2.0 * k->fixed_s / gain : 0.0;
}

Test(auto_rule, gpu_sizes_follow_the_link)
{
    const coll_auto_costs_t gpu = coll_auto_costs(GHZ_EXEC_CUDA);
    const size_t S = 8 * MIB;
    size_t fast, pcie, sock, slower;
    /* a link about as fast as the codec (NVLink, 216 GB/s measured): never */
    cr_expect_eq(coll_auto_rule(4, S, link_time(4, S, 216.0), &gpu), SIZE_MAX);
    fast = coll_auto_rule(4, S, link_time(4, S, 100.0), &gpu);
    pcie = coll_auto_rule(4, S, link_time(4, S, 30.0), &gpu);
    sock = coll_auto_rule(4, S, link_time(4, S, 2.5), &gpu);
    slower = coll_auto_rule(4, S, link_time(4, S, 0.5), &gpu);
    /* host memory (30 GB/s): 16 MiB; sockets (2.5 GB/s): 1-2 MiB; slower links earlier */
    cr_expect_eq(pcie, 16 * MIB, "%zu", pcie);
    cr_expect(sock >= 1 * MIB && sock <= 2 * MIB, "%zu", sock);
    cr_expect(slower < sock && sock < pcie && pcie <= fast, "%zu %zu %zu %zu", slower, sock, pcie, fast);
    /* a power of two, so that run-to-run noise in the measured time rarely moves it */
    cr_expect_eq(pcie & (pcie - 1), 0u);
    cr_expect_eq(coll_auto_rule(4, S, link_time(4, S, 29.0), &gpu), pcie);
}

/* The threshold is the least power of two (from 64 KiB) at or above twice the
 * crossover, for every transport's numbers: ranks, link, backend. */
Test(auto_rule, the_least_power_of_two_above_twice_the_crossover)
{
    static const double gbs[] = {0.001, 0.01, 0.05, 0.3, 1.0, 2.5, 12.0, 30.0, 90.0};
    static const int ranks[] = {2, 3, 8, 64};
    const ghz_exec_t backends[] = {GHZ_EXEC_CPU, GHZ_EXEC_CUDA};
    size_t b, i, n;
    int compressed = 0, never = 0;
    for (b = 0; b < 2; b++)
        for (n = 0; n < sizeof ranks / sizeof ranks[0]; n++)
            for (i = 0; i < sizeof gbs / sizeof gbs[0]; i++) {
                const coll_auto_costs_t k = coll_auto_costs(backends[b]);
                const int N = ranks[n];
                const double want = crossover_x2(N, gbs[i], &k);
                const size_t got = coll_auto_rule(N, 1 * MIB, link_time(N, 1 * MIB, gbs[i]), &k);
                if (want == 0.0) {
                    cr_expect_eq(got, SIZE_MAX, "N %d, %g GB/s, backend %d: %zu", N, gbs[i], (int)backends[b], got);
                    never++;
                    continue;
                }
                compressed++;
                cr_expect_eq(got & (got - 1), 0u, "%zu", got);
                cr_expect_geq(got, COLL_AUTO_LOSSY_MIN_BYTES);
                cr_expect_geq((double)got, want * (1 - 1e-9), "N %d, %g GB/s: %zu < %g", N, gbs[i], got, want);
                cr_expect(got == COLL_AUTO_LOSSY_MIN_BYTES || (double)(got / 2) < want, "N %d, %g GB/s: %zu for %g",
                          N, gbs[i], got, want);
            }
    /* (both outcomes were exercised) */
    cr_expect(compressed > 10 && never > 10, "%d compressed, %d never", compressed, never);
}

/* The CPU codec is far slower than the GPU's: over a node's memory or a fast network the
 * CPU never compresses where the GPU does; over a slow link both do, the CPU later. */
Test(auto_rule, the_cpu_codec_needs_a_slower_link)
{
    const coll_auto_costs_t cpu = coll_auto_costs(GHZ_EXEC_CPU), gpu = coll_auto_costs(GHZ_EXEC_CUDA);
    const size_t S = 1 * MIB;
    size_t c_slow, g_slow;
    cr_expect_lt(cpu.codec_bps, gpu.codec_bps / 100);
    cr_expect_eq(coll_auto_rule(2, S, link_time(2, S, 10.0), &cpu), SIZE_MAX);
    cr_expect_eq(coll_auto_rule(2, S, link_time(2, S, 1.0), &cpu), SIZE_MAX);
    cr_expect_neq(coll_auto_rule(2, S, link_time(2, S, 1.0), &gpu), SIZE_MAX);
    c_slow = coll_auto_rule(2, S, link_time(2, S, 0.02), &cpu);
    g_slow = coll_auto_rule(2, S, link_time(2, S, 0.02), &gpu);
    cr_expect(c_slow != SIZE_MAX && g_slow <= c_slow, "cpu %zu, gpu %zu", c_slow, g_slow);
}

Test(auto_rule, floor_and_no_measurement)
{
    const coll_auto_costs_t gpu = coll_auto_costs(GHZ_EXEC_CUDA);
    /* a link of 1 MB/s: the crossover is a few hundred bytes, the floor 64 KiB */
    cr_expect_eq(coll_auto_rule(2, MIB, link_time(2, MIB, 0.001), &gpu), COLL_AUTO_LOSSY_MIN_BYTES);
    cr_expect_eq(COLL_AUTO_LOSSY_MIN_BYTES, 64 * KIB);
    /* one rank moves nothing; a zero, negative or NaN time or no bytes is no measurement */
    cr_expect_eq(coll_auto_rule(1, MIB, 1e-3, &gpu), SIZE_MAX);
    cr_expect_eq(coll_auto_rule(4, MIB, 0.0, &gpu), SIZE_MAX);
    cr_expect_eq(coll_auto_rule(4, MIB, -1.0, &gpu), SIZE_MAX);
    cr_expect_eq(coll_auto_rule(4, MIB, 0.0 / 0.0, &gpu), SIZE_MAX);
    cr_expect_eq(coll_auto_rule(4, 0, 1e-3, &gpu), SIZE_MAX);
}

/* Once frozen, the decision is a comparison with the threshold, call after call. */
Test(auto_rule, the_frozen_decision)
{
    static struct ghz_comm c;
    int i;
    memset(&c, 0, sizeof c);
    c.auto_min = 1 * MIB;
    for (i = 0; i < 3; i++) {
        cr_expect(!coll_auto_compresses(&c, 1 * MIB - 1));
        cr_expect(coll_auto_compresses(&c, 1 * MIB));
        cr_expect(coll_auto_compresses(&c, SIZE_MAX));
    }
    c.auto_min = SIZE_MAX;
    cr_expect(!coll_auto_compresses(&c, SIZE_MAX));
    cr_expect(!coll_auto_compresses(&c, 1 * MIB));
    c.auto_min = 0;
    cr_expect(coll_auto_compresses(&c, 0));
}

/* AUTO's ratio frames for the data movement: where the link is slower than the bus
 * bandwidth B* = (1 - 1/g) / r / (1/G_ratio - 1/G) at which a byte's saved wire time
 * pays the ratio codec's extra time, on both backends; never without a measurement. */
Test(auto_rule, ratio_frames_where_the_link_is_slower_than_their_codec)
{
    const ghz_exec_t backends[] = {GHZ_EXEC_CPU, GHZ_EXEC_CUDA};
    const size_t S = 8 * MIB;
    size_t b;
    for (b = 0; b < 2; b++) {
        const coll_auto_costs_t k = coll_auto_costs(backends[b]);
        const double star = (1.0 - 1.0 / k.ratio_gain) / k.ratio / (1.0 / k.ratio_codec_bps - 1.0 / k.codec_bps);
        cr_assert(star > 0.0 && star < k.codec_bps, "B* %g", star);
        cr_expect_eq(coll_auto_ratio_frames(4, S, link_time(4, S, 0.9 * star * 1e-9), &k), 1, "below B* %g", star);
        cr_expect_eq(coll_auto_ratio_frames(4, S, link_time(4, S, 1.1 * star * 1e-9), &k), 0, "above B* %g", star);
        cr_expect_eq(coll_auto_ratio_frames(3, S, link_time(3, S, 0.5 * star * 1e-9), &k), 1);
        cr_expect_eq(coll_auto_ratio_frames(1, S, 1.0, &k), 0);
        cr_expect_eq(coll_auto_ratio_frames(4, 0, 1.0, &k), 0);
        cr_expect_eq(coll_auto_ratio_frames(4, S, 0.0, &k), 0);
    }
    /* NVLink and host memory keep speed frames on the GPU; a CPU node's shared memory too */
    {
        const coll_auto_costs_t gpu = coll_auto_costs(GHZ_EXEC_CUDA), cpu = coll_auto_costs(GHZ_EXEC_CPU);
        cr_expect_eq(coll_auto_ratio_frames(4, S, link_time(4, S, 216.0), &gpu), 0);
        cr_expect_eq(coll_auto_ratio_frames(4, S, link_time(4, S, 30.0), &gpu), 0);
        cr_expect_eq(coll_auto_ratio_frames(4, S, link_time(4, S, 5.0), &cpu), 0);
        cr_expect_eq(coll_auto_ratio_frames(4, S, link_time(4, S, 0.01), &cpu), 1);
    }
}
