/* test/coll/test_auto_path.c: GHZ_PATH_AUTO's choice between compressing and exact
 * (ghz/coll/detail/auto_path.h), fed with made-up call times: the first calls of a
 * size class compress, the next run exact (each path's first call set aside), then the
 * faster one wins; a call far slower than its path's average counts as 4x it; the slower
 * path is retried every 8th, 16th, ... 4096th call, and more rarely the slower it was
 * (its retries under 1/32 of the time), two calls a retry (the first after a change of
 * path does not count); a winning retry brings it back (an
 * exact path whose first time was an outlier, or compression that became faster);
 * classes keep their own times, but one without an exact time takes the nearest
 * smaller class's clear lead of compression. */
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

/* n such calls with the same times; returns how many ran exact. */
static int calls(coll_auto_t* a, int n, size_t bytes, double t_exact, double t_lossy)
{
    int exact = 0;
    while (n-- > 0) exact += call(a, bytes, t_exact, t_lossy);
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
    cr_expect_eq(call(&a, 64 * KIB, 50e-6, 250e-6), 0, "compression's first call set aside: again");
    cr_expect_eq(call(&a, 64 * KIB, 50e-6, 250e-6), 1, "compression measured, exact not: exact");
    cr_expect_eq(call(&a, 64 * KIB, 50e-6, 250e-6), 1, "exact's first call set aside: again");
    cr_expect_eq(call(&a, 64 * KIB, 50e-6, 250e-6), 1, "exact faster: exact");
    /* where compression is faster it keeps compressing */
    coll_auto_t b = {0};
    int i, exact = 0;
    call(&b, 4 * MIB, 1.4e-3, 0.8e-3);
    call(&b, 4 * MIB, 1.4e-3, 0.8e-3);
    cr_expect_eq(call(&b, 4 * MIB, 1.4e-3, 0.8e-3), 1);
    for (i = 0; i < 100; ++i) exact += call(&b, 4 * MIB, 1.4e-3, 0.8e-3);
    /* exact's measured call (3), then its retries at calls 8-9 and 64-65 of the class
     * (1.75x: 2 x 32 x 0.75 = 48 calls at least between retries, so 64) */
    cr_expect_eq(exact, 5, "compression faster: %d of 100 calls ran exact", exact);
}

/* The compressed calls among `n` calls of a class whose compressed calls take q times
 * the exact ones, in runs of consecutive calls: where each run starts (from the class's
 * first call) and how long it is. Returns the number of runs. */
static int lossy_runs(double q, int n, int* start, int* len, int most)
{
    coll_auto_t a = {0};
    int i, runs = 0, prev = 0;
    for (i = 0; i < n; ++i) {
        const int lossy = !call(&a, 256 * KIB, 100e-6, q * 100e-6);
        if (lossy && !prev && runs < most) {
            start[runs] = i;
            len[runs++] = 0;
        }
        if (lossy && runs <= most && runs > 0 && start[runs - 1] + len[runs - 1] == i) len[runs - 1]++;
        prev = lossy;
    }
    return runs;
}

/* While exact wins, compression is retried ever more rarely, each retry two calls in a
 * row (the first pays for the change of path and does not count): at call 8, then,
 * where compression took 2.7x exact, 128 calls on (2 x 32 x 1.7 = 109 calls' worth at
 * least), then twice as far each time up to 4096 and never more rarely. The class's
 * first two calls compress (nothing measured yet; the first is set aside). */
Test(auto_path, retries_back_off)
{
    int start[16], len[16], i;
    const int runs = lossy_runs(2.7, 20000, start, len, 16);
    cr_assert_geq(runs, 10);
    cr_expect(start[0] == 0 && len[0] == 2, "the first two calls compress (%d, %d)", start[0], len[0]);
    for (i = 1; i < runs && i < 16; ++i) cr_expect_eq(len[i], 2, "retry %d: %d calls in a row", i, len[i]);
    cr_expect_eq(start[1], 8);
    cr_expect_eq(start[2], 128, "the first retry lost 2.7x: the next at call 128 (%d)", start[2]);
    for (i = 3; i < 8; ++i) cr_expect_eq(start[i], 128 << (i - 2), "retry %d at %d", i, start[i]);
    cr_expect_eq(start[8] - start[7], 4096, "at most %u apart", COLL_AUTO_RETRY_MAX);
    cr_expect_eq(start[9] - start[8], 4096, "at most %u apart", COLL_AUTO_RETRY_MAX);
    /* amortised: well under 1 % of calls compress once it has settled */
    cr_expect_lt(2 * runs, 25, "%d of 20000 calls compressed", 2 * runs - 1);
}

/* A path barely slower (1.1x) backs off by doubling alone, 8, 16, ... calls apart; one
 * far slower (38x: a compressed 64 KiB call where two ranks share one H100, session
 * 15) skips to 4096 after its first losing retry, so that its retries (two calls of
 * q - 1 calls' worth each) cost under 1/32 of the time. */
Test(auto_path, retries_back_off_by_cost)
{
    int start[16], len[16], i, runs = lossy_runs(1.1, 20000, start, len, 16);
    cr_assert_geq(runs, 9);
    for (i = 1; i < 9; ++i) {
        cr_expect_eq(start[i], 8 << (i - 1), "1.1x, retry %d at %d", i, start[i]);
        cr_expect_eq(len[i], 2, "1.1x, retry %d: %d calls", i, len[i]);
    }
    runs = lossy_runs(38.0, 20000, start, len, 16);
    cr_assert_geq(runs, 4);
    cr_expect_eq(start[1], 8);
    cr_expect_eq(start[2], 4096, "38x: the second retry at call 4096 (%d)", start[2]);
    for (i = 3; i < runs; ++i) {
        const int gap = start[i] - start[i - 1];
        cr_expect_lt(2 * 37.0 / gap, 1.0 / 32, "38x, retry %d: retries cost %.3f of the time", i, 2 * 37.0 / gap);
    }
}

/* The first call after a change of path does not count: exact calls that take 4 ms
 * right after compressed ones (2.2 ms) and 1.7 ms in a row win (two ranks on one
 * H100, 4 MiB, session 15, where every isolated exact retry lost). */
Test(auto_path, the_call_after_a_change_of_path_does_not_count)
{
    coll_auto_t a = {0};
    int n, exact = 0, prev_exact = 0;
    for (n = 0; n < 300; ++n) {
        const int ran_exact = call(&a, 4 * MIB, prev_exact ? 1.7e-3 : 4.0e-3, 2.2e-3);
        if (n >= 200) exact += ran_exact;
        prev_exact = ran_exact;
    }
    /* (but for a retry of compression, two calls) */
    cr_expect_geq(exact, 98, "%d of the last 100 calls ran exact", exact);
}

/* A retry that finds compression faster (the data became more compressible, or the
 * machine changed) switches the class back to compressing. */
Test(auto_path, a_winning_retry_brings_compression_back)
{
    coll_auto_t a = {0};
    int exact;
    calls(&a, 200, 1 * MIB, 360e-6, 900e-6);
    /* now compression costs 100 us: the next retry must find it, and from then on
     * compression stays once its average is under exact's */
    calls(&a, 600, 1 * MIB, 360e-6, 100e-6);
    exact = calls(&a, 100, 1 * MIB, 360e-6, 100e-6);
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
    cr_expect_eq(exact_big, 4, "256 MiB: exact measured at calls 1-2, retried at 8-9 (%d; 2.6x: next at 128)",
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
    int n, exact, first = 1;
    for (n = 0; n < 100; ++n)
        if (call(&a, 1 * MIB, first ? 5e-3 : 0.4e-3, 1.5e-3)) first = 0;
    exact = calls(&a, 100, 1 * MIB, 0.4e-3, 1.5e-3);
    cr_expect_geq(exact, 97, "%d of 100 calls ran exact", exact);
}

/* One stall of a path that wins (an exact call of 50 ms where it takes 0.4, compression
 * 1.5) counts as 4x the path's average: the class stays exact. Taken at face value it
 * made the average 25 ms, and compression ran until a retry of exact thousands of
 * calls later (its spacing set by the stall's cost); a host scan of 20 us stalled for
 * 1-8 ms now and then on 2 x H200 (session 16). */
Test(auto_path, one_stall_does_not_switch_the_class)
{
    coll_auto_t a = {0};
    int exact;
    calls(&a, 200, 1 * MIB, 0.4e-3, 1.5e-3);
    cr_assert(coll_auto_runs_exact(&a, 1 * MIB), "settled on exact");
    call(&a, 1 * MIB, 50e-3, 1.5e-3);
    exact = calls(&a, 100, 1 * MIB, 0.4e-3, 1.5e-3);
    cr_expect_geq(exact, 97, "%d of 100 calls ran exact after one stall", exact);
}

/* A path that really became slower (exact from 0.4 to 4 ms for good, compression 1.5)
 * is followed within a few calls, the 4x limit notwithstanding. */
Test(auto_path, a_path_that_became_slower_is_followed)
{
    coll_auto_t a = {0};
    int lossy;
    calls(&a, 200, 1 * MIB, 0.4e-3, 1.5e-3);
    calls(&a, 10, 1 * MIB, 4e-3, 1.5e-3);
    lossy = 100 - calls(&a, 100, 1 * MIB, 4e-3, 1.5e-3);
    cr_expect_geq(lossy, 95, "%d of 100 calls compressed after exact became 2.7x slower", lossy);
}

/* Compression's first call of a class pays for set-up (kernels loaded on first use,
 * buffers touched first: 50 ms where it then takes 0.6, exact 1.2): set aside, it does
 * not keep the class exact while compression's average comes down retry by retry (43
 * of the first 60 calls ran exact when it counted). */
Test(auto_path, a_slow_first_compressed_call_is_set_aside)
{
    coll_auto_t a = {0};
    int n, exact = 0;
    for (n = 0; n < 60; ++n) exact += call(&a, 4 * MIB, 1.2e-3, n == 0 ? 50e-3 : 0.6e-3);
    cr_expect_leq(exact, 6, "%d of the first 60 calls ran exact", exact);
}

/* A class that has not measured exact takes a smaller class's clear lead of compression
 * as its own: it compresses from its first call and tries exact first at the retry that
 * lead earns (over host-staged MPI each new class from 64 MiB up paid two exact calls
 * at 3x a compressed one, 2 x H200, session 17). A smaller class where exact won, or
 * where compression led by less than COLL_AUTO_INHERIT_MIN, passes nothing on. */
Test(auto_path, a_larger_class_takes_a_clear_lead_of_compression)
{
    coll_auto_t a = {0};
    int i, first_exact = -1;
    calls(&a, 20, 16 * MIB, 4.8e-3, 1.9e-3); /* 2.5x: both measured */
    for (i = 0; i < 200 && first_exact < 0; ++i)
        if (call(&a, 256 * MIB, 81e-3, 29e-3)) first_exact = i;
    /* 2.5x: 2 x 1.5 x 32 = 96 calls at least, so the retry at 128 */
    cr_expect_eq(first_exact, 128, "256 MiB's first exact call: %d", first_exact);
    cr_expect_eq(call(&a, 256 * MIB, 81e-3, 29e-3), 1, "exact's first call set aside: again");
    cr_expect_eq(calls(&a, 100, 256 * MIB, 81e-3, 29e-3), 2,
                 "measured slower: compression, exact retried at calls 136-137 (then every 128th)");

    /* exact won below: the new class measures exact at its third call, as alone */
    coll_auto_t b = {0};
    calls(&b, 20, 1 * MIB, 0.3e-3, 0.5e-3);
    cr_expect_eq(calls(&b, 2, 4 * MIB, 1.2e-3, 0.8e-3), 0);
    cr_expect_eq(call(&b, 4 * MIB, 1.2e-3, 0.8e-3), 1, "exact won at 1 MiB: 4 MiB measures exact");

    /* compression led by 1.2x only: no inheritance */
    coll_auto_t c = {0};
    calls(&c, 20, 1 * MIB, 0.6e-3, 0.5e-3);
    calls(&c, 2, 4 * MIB, 1.2e-3, 0.8e-3);
    cr_expect_eq(call(&c, 4 * MIB, 1.2e-3, 0.8e-3), 1, "a 1.2x lead is not passed on");

    /* the nearest measured class below counts, not a farther one */
    coll_auto_t d = {0};
    calls(&d, 20, 1 * MIB, 0.3e-3, 0.6e-3); /* exact 2x faster */
    calls(&d, 20, 4 * MIB, 2.4e-3, 0.8e-3); /* compression 3x: measured (1 MiB passed nothing on) */
    cr_expect_eq(calls(&d, 20, 16 * MIB, 9.6e-3, 3.2e-3), 0, "4 MiB's lead is the nearest: compress");
}
