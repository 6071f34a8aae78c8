/* test/coll/test_auto_path.c: GHZ_PATH_AUTO's choice between compressing and exact
 * (ghz/coll/detail/auto_path.h), fed with made-up call times: the first call of a
 * size class compresses, the second runs exact, then the faster one wins; the slower
 * path is retried every 8th, 16th, ... 4096th call, and more rarely the slower it was
 * (its retries under 1/32 of the time); a winning retry brings it back (an
 * exact path whose first time was an outlier, or compression that became faster);
 * classes do not see each other's times. */
#include <criterion/criterion.h>

#include "ghz/coll/detail/auto_path.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* One AUTO call of `bytes` as collectives.c makes it: choose, count, then the time of
 * whichever path ran (t_exact or t_lossy seconds). Returns 1 when it ran exact. */
static int call(coll_auto_t* a, size_t bytes, double t_exact, double t_lossy)
{
    const int exact = coll_auto_runs_exact(a, bytes);
    coll_auto_count(a, bytes);
    coll_auto_measured(a, bytes, exact, exact ? t_exact : t_lossy);
    return exact;
}

Test(auto_path, classes)
{
    cr_expect_eq(coll_auto_class(0), 0);
    cr_expect_eq(coll_auto_class(64 * KIB), 0);
    cr_expect_eq(coll_auto_class(128 * KIB - 1), 0);
    cr_expect_eq(coll_auto_class(128 * KIB), 1);
    cr_expect_eq(coll_auto_class(1 * MIB), 4);
    cr_expect_eq(coll_auto_class((size_t)1 << 31), COLL_AUTO_CLASSES - 1);
    cr_expect_eq(coll_auto_class((size_t)-1), COLL_AUTO_CLASSES - 1);
}

Test(auto_path, compression_first_then_exact_then_the_faster)
{
    coll_auto_t a = {0};
    cr_expect_eq(call(&a, 64 * KIB, 50e-6, 250e-6), 0, "nothing measured: compress");
    cr_expect_eq(call(&a, 64 * KIB, 50e-6, 250e-6), 1, "compression measured, exact not: exact");
    cr_expect_eq(call(&a, 64 * KIB, 50e-6, 250e-6), 1, "exact faster: exact");
    /* where compression is faster it keeps compressing */
    coll_auto_t b = {0};
    int i, exact = 0;
    call(&b, 4 * MIB, 1.4e-3, 0.8e-3);
    cr_expect_eq(call(&b, 4 * MIB, 1.4e-3, 0.8e-3), 1);
    for (i = 0; i < 100; ++i) exact += call(&b, 4 * MIB, 1.4e-3, 0.8e-3);
    /* exact retried at calls 8, 32 and 64 of the class (1.75x: 32 x 0.75 = 24 calls
     * at least between retries, so 32) */
    cr_expect_eq(exact, 3, "compression faster: %d of 100 calls ran exact", exact);
}

/* The calls of the slower path, `n` calls of a class whose compressed calls take q
 * times the exact ones: the gaps between them (from the class's first call). */
static int lossy_gaps(double q, int n, int* gaps, int most)
{
    coll_auto_t a = {0};
    int i, last = 0, ngaps = 0;
    for (i = 0; i < n; ++i)
        if (!call(&a, 256 * KIB, 100e-6, q * 100e-6)) {
            if (i > 0 && ngaps < most) gaps[ngaps++] = i - last;
            last = i;
        }
    return ngaps;
}

/* While exact wins, the calls that compress come ever more rarely: 8 calls after the
 * first (compression measured) and exact's first, then, where compression took 2.7x
 * exact, 64 calls apart (32 x 1.7 = 54 calls' worth at least), then twice as far each
 * time up to 4096 and never more rarely. */
Test(auto_path, retries_back_off)
{
    int gaps[16], i;
    const int ngaps = lossy_gaps(2.7, 20000, gaps, 16);
    cr_assert_geq(ngaps, 11);
    cr_expect_eq(gaps[0], 8);
    cr_expect_eq(gaps[1], 56, "the first slower retry: to call 64 (%d)", gaps[1]);
    for (i = 2; i < 9; ++i) cr_expect_eq(gaps[i], 64 << (i - 2), "gap %d: %d", i, gaps[i]);
    cr_expect_eq(gaps[9], 4096, "at most %u apart", COLL_AUTO_RETRY_MAX);
    cr_expect_eq(gaps[10], 4096, "at most %u apart", COLL_AUTO_RETRY_MAX);
    /* amortised: well under 1 % of calls compress once it has settled */
    cr_expect_lt(ngaps + 1, 25, "%d of 20000 calls compressed", ngaps + 1);
}

/* A path barely slower (1.1x) backs off by doubling alone, 8, 16, ... calls apart; one
 * far slower (38x: a compressed 64 KiB call where two ranks share one H100, session
 * 15) skips to 2048 after its first losing retry, and its retries then cost under 1/32
 * of the time (each costs q - 1 exact calls). */
Test(auto_path, retries_back_off_by_cost)
{
    int gaps[16], i, ngaps = lossy_gaps(1.1, 20000, gaps, 16);
    cr_assert_geq(ngaps, 8);
    cr_expect_eq(gaps[0], 8);
    for (i = 1; i < 8; ++i) cr_expect_eq(gaps[i], 8 << (i - 1), "1.1x, gap %d: %d", i, gaps[i]);
    ngaps = lossy_gaps(38.0, 20000, gaps, 16);
    cr_assert_geq(ngaps, 3);
    cr_expect_eq(gaps[0], 8);
    cr_expect_eq(gaps[1] + gaps[0], 2048, "38x: the second retry at call 2048 (%d)", gaps[1] + gaps[0]);
    for (i = 2; i < ngaps; ++i) {
        cr_expect_geq(gaps[i], 2048, "38x, gap %d: %d", i, gaps[i]);
        cr_expect_lt(37.0 / gaps[i], 1.0 / 32 + 1e-12, "38x, gap %d: retries cost %.3f of the time", i,
                     37.0 / gaps[i]);
    }
}

/* A retry that finds compression faster (the data became more compressible, or the
 * machine changed) switches the class back to compressing. */
Test(auto_path, a_winning_retry_brings_compression_back)
{
    coll_auto_t a = {0};
    int n, exact = 0;
    for (n = 0; n < 200; ++n) call(&a, 1 * MIB, 360e-6, 900e-6);
    /* now compression costs 100 us: the next retry must find it, and from then on
     * compression stays once its average is under exact's */
    for (n = 0; n < 600; ++n) call(&a, 1 * MIB, 360e-6, 100e-6);
    for (n = 0; n < 100; ++n) exact += call(&a, 1 * MIB, 360e-6, 100e-6);
    cr_expect_eq(exact, 0, "%d of 100 calls ran exact after compression became faster", exact);
}

/* A class's times do not decide another's: a large call where compression wins leaves
 * small calls, where it loses, exact. */
Test(auto_path, classes_are_independent)
{
    coll_auto_t a = {0};
    int n, exact_small = 0, exact_big = 0;
    for (n = 0; n < 50; ++n) {
        exact_big += call(&a, 256 * MIB, 90e-3, 35e-3);
        exact_small += call(&a, 64 * KIB, 50e-6, 260e-6);
    }
    cr_expect_eq(exact_big, 2, "256 MiB: the exact measurement and the retry at call 8 (%d; 2.6x: next at 64)",
                 exact_big);
    cr_expect_geq(exact_small, 44, "64 KiB: %d of 50 exact", exact_small);
}

/* An exact path whose first measurement was an outlier (a first call's set-up: 5 ms
 * where it then takes 0.4) is retried until its average shows it faster than
 * compression (1.5 ms), and then wins (two ranks on one H200, session 14, compressed
 * for good at 1 MiB before exact was retried). */
Test(auto_path, a_slow_first_exact_call_is_retried)
{
    coll_auto_t a = {0};
    int n, exact = 0, first = 1;
    for (n = 0; n < 100; ++n) {
        const int ran_exact = coll_auto_runs_exact(&a, 1 * MIB);
        coll_auto_count(&a, 1 * MIB);
        coll_auto_measured(&a, 1 * MIB, ran_exact, ran_exact ? (first ? 5e-3 : 0.4e-3) : 1.5e-3);
        if (ran_exact) first = 0;
    }
    for (n = 0; n < 100; ++n) exact += call(&a, 1 * MIB, 0.4e-3, 1.5e-3);
    cr_expect_geq(exact, 97, "%d of 100 calls ran exact", exact);
}
