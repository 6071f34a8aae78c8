/* test/coll/test_auto_path.c: GHZ_PATH_AUTO's choice between compressing and exact
 * (ghz/coll/detail/auto_path.h), fed with made-up call times: the first call of a
 * size class compresses, the second runs exact, then the faster one wins; the slower
 * path is retried every 8th, 16th, ... 512th call; a winning retry brings it back (an
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
    /* exact retried at calls 8, 16, 32 and 64 of the class */
    cr_expect_eq(exact, 4, "compression faster: %d of 100 calls ran exact", exact);
}

/* While exact wins, the calls that compress come at 8, 16, 32, ... 512 calls apart
 * (counted from the class's first call), and never more rarely. */
Test(auto_path, retries_back_off)
{
    coll_auto_t a = {0};
    int n, last = 0, lossy = 0, gaps[16], ngaps = 0;
    for (n = 0; n < 5000; ++n)
        if (!call(&a, 256 * KIB, 100e-6, 270e-6)) {
            if (n > 0 && ngaps < 16) gaps[ngaps++] = n - last;
            last = n;
            ++lossy;
        }
    cr_assert_geq(ngaps, 7);
    cr_expect_eq(gaps[0], 8);
    cr_expect_eq(gaps[1], 8, "the first retry is the first slower compressed call seen after exact");
    cr_expect_eq(gaps[2], 16);
    cr_expect_eq(gaps[3], 32);
    cr_expect_eq(gaps[6], 256);
    cr_expect_eq(gaps[7], 512);
    cr_expect_eq(gaps[8], 512, "at most %u apart", COLL_AUTO_RETRY_MAX);
    /* amortised: well under 1 % of calls compress once it has settled */
    cr_expect_lt(lossy, 25, "%d of 5000 calls compressed", lossy);
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
    cr_expect_eq(exact_big, 4, "256 MiB: the exact measurement and retries at calls 8, 16 and 32 (%d)",
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
