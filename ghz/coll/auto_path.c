/* ghz/coll/auto_path.c: GHZ_PATH_AUTO's measured choice per size class
 * (detail/auto_path.h says why). */
#include "ghz/coll/detail/auto_path.h"

int coll_auto_class(size_t bytes)
{
    int c = 0;
    bytes >>= COLL_AUTO_CLASS_MIN_LOG2;
    while (bytes > 1 && c < COLL_AUTO_CLASSES - 1) {
        bytes >>= 1;
        ++c;
    }
    return c;
}

/* The retry interval in force (a zeroed class: the least). */
static uint32_t interval(const coll_auto_class_t* k)
{
    return k->retry ? k->retry : COLL_AUTO_RETRY_MIN;
}

/* Whether exact is the faster path of a class that has measured both. */
static int exact_wins(const coll_auto_class_t* k)
{
    return k->spb_lossy > k->spb_exact;
}

/* How many times compression's rate exact's was in the nearest smaller class that has
 * measured both (0: none has). */
static double margin_below(const coll_auto_t* a, int c)
{
    while (--c >= 0) {
        const coll_auto_class_t* k = &a->cls[c];
        if (k->spb_exact > 0.0 && k->spb_lossy > 0.0) return k->spb_exact / k->spb_lossy;
    }
    return 0.0;
}

/* The interval after a retry that lost, taking q times the faster path's time: twice
 * the last, and at least what keeps the retries' extra time under 1/SHARE_INV of all
 * (two calls of q - 1 calls' worth each every interval), up to the most. */
static uint32_t backed_off(uint32_t r, double q)
{
    const double need = 2.0 * (q - 1.0) * COLL_AUTO_RETRY_SHARE_INV;
    uint32_t next = r < COLL_AUTO_RETRY_MAX ? 2 * r : COLL_AUTO_RETRY_MAX;
    while (next < COLL_AUTO_RETRY_MAX && (double)next < need) next *= 2;
    return next;
}

int coll_auto_runs_exact(const coll_auto_t* a, size_t bytes)
{
    const int c = coll_auto_class(bytes);
    const coll_auto_class_t* k = &a->cls[c];
    if (k->again) return k->last_exact;
    if (k->spb_lossy == 0.0) return 0;
    if (k->spb_exact == 0.0) {
        /* exact not measured here: where a smaller class saw compression win by the
         * margin, it wins here too (auto_path.h), so exact waits for the retry that
         * margin would have earned (its measurement, then, decides) */
        const double q = margin_below(a, c);
        if (q < COLL_AUTO_INHERIT_MIN) return 1;
        return k->calls % backed_off(COLL_AUTO_RETRY_MIN, q) == 0;
    }
    /* every interval-th call retries the slower path */
    return k->calls % interval(k) == 0 ? !exact_wins(k) : exact_wins(k);
}

void coll_auto_count(coll_auto_t* a, size_t bytes)
{
    a->cls[coll_auto_class(bytes)].calls++;
}

static void average(double* spb, double x)
{
    *spb = *spb == 0.0 ? x : 0.5 * (*spb + x);
}

void coll_auto_measured(coll_auto_t* a, size_t bytes, int exact, double seconds)
{
    coll_auto_class_t* k = &a->cls[coll_auto_class(bytes)];
    uint8_t* warm = exact ? &k->warm_exact : &k->warm_lossy;
    const double avg = exact ? k->spb_exact : k->spb_lossy;
    double x = seconds / (double)(bytes ? bytes : 1);
    if (!*warm || (!k->again && (exact != 0) != k->last_exact)) {
        /* the path's first call (set-up) or a change of path: set aside, the next call
         * takes this path again */
        *warm = 1;
        k->last_exact = exact != 0;
        k->again = 1;
        return;
    }
    k->last_exact = exact != 0;
    k->again = 0;
    if (avg > 0.0 && x > COLL_AUTO_OUTLIER * avg) x = COLL_AUTO_OUTLIER * avg; /* a stall */
    if (k->spb_exact > 0.0 && k->spb_lossy > 0.0 && exact != exact_wins(k)) {
        /* the slower path ran (a retry, or the ratio rule chose exact): still slower
         * than the faster one's average, back off; faster, retry soon */
        const uint32_t r = interval(k);
        const double best = exact ? k->spb_lossy : k->spb_exact;
        k->retry = x > best ? backed_off(r, x / best) : COLL_AUTO_RETRY_MIN;
    }
    average(exact ? &k->spb_exact : &k->spb_lossy, x);
}
