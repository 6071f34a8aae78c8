/* ghz/coll/knobs.c: the environment variables (detail/knobs.h), parsed strictly (COLL.md,
 * Environment): a typo must not run silently with the default. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/knobs.h"
#include "ghz/detail/error.h"

#define WORDS_OF(NAME, field, how, words, ...) static const char* const NAME##_words[] = words;
COLL_KNOBS(WORDS_OF)
#define NWORDS(NAME) ((int)(sizeof NAME##_words / sizeof NAME##_words[0]))

/* One of the n words, in any case (NULL entries skipped): its index. */
static ghz_status_t read_words(const char* name, const char* v, const char* const* words, int n, size_t* out)
{
    char list[128] = "";
    int i;
    for (i = 0; i < n; i++) {
        const char *a = v, *b = words[i];
        if (!b) continue;
        while (*a && *b && (*a | 0x20) == (*b | 0x20)) {
            a++;
            b++;
        }
        if (!*a && !*b) {
            *out = (size_t)i;
            return GHZ_SUCCESS;
        }
    }
    for (i = 0; i < n; i++) {
        if (!words[i]) continue;
        if (*list) strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, words[i], sizeof list - strlen(list) - 1);
    }
    return ghz_fail(GHZ_ERR_INVALID_ARG, "%s=%s: one of %s", name, v, list);
}

/* A knob's value, at most cap (dcap: seconds), into *z, or *d for seconds; unset: untouched. */
static ghz_status_t read_knob(const char* name, int how, const char* const* words, int nwords, size_t cap, double dcap,
                              size_t* z, double* d)
{
    const char* v = getenv(name);
    const int suffixes = how != COLL_KNOB_NUMBER;
    const char* p;
    unsigned long long n, mult = 1;
    char* end = NULL;
    if (!v || !*v) return GHZ_SUCCESS; /* (empty: unset) */
    if (how == COLL_KNOB_WORDS) return read_words(name, v, words, nwords, z);
    if (how == COLL_KNOB_SECONDS) {
        errno = 0;
        *d = strtod(v, &end);
        if (errno || end == v || *end != '\0' || !(*d > 0.0) || !(*d <= dcap))
            return ghz_fail(GHZ_ERR_INVALID_ARG, "%s=%s: seconds, more than 0 and at most %g", name, v, dcap);
        return GHZ_SUCCESS;
    }
    if (how == COLL_KNOB_NEVER_SIZE && strcmp(v, "never") == 0) {
        *z = COLL_KNOB_NEVER;
        return GHZ_SUCCESS;
    }
    for (p = v; *p >= '0' && *p <= '9';) p++;
    if (p == v) goto bad;
    errno = 0;
    n = strtoull(v, &end, 10);
    if (errno || end != p) goto bad;
    if (*end == 'K' || *end == 'k') mult = 1ull << 10;
    else if (*end == 'M' || *end == 'm') mult = 1ull << 20;
    else if (*end == 'G' || *end == 'g') mult = 1ull << 30;
    if (mult != 1) {
        if (!suffixes) goto bad;
        end++;
    }
    if (*end != '\0' || n > cap / mult) goto bad;
    *z = (size_t)(n * mult);
    return GHZ_SUCCESS;
bad:
    return ghz_fail(GHZ_ERR_INVALID_ARG, "%s=%s: %s of at most %zu", name, v,
                    suffixes ? "a byte count (digits, optionally K, M or G)" : "a whole number", cap);
}

ghz_status_t coll_knobs_read(coll_knobs_t* k)
{
    ghz_status_t st;
#define INIT(NAME, field, how, words, cap, initial, ...) k->field = initial;
    COLL_KNOBS(INIT)
#undef INIT
    k->debug_info = 0;
    /* (the field's type is the way's: the other branch is never taken) */
#define READ(NAME, field, how, words, cap, ...)                                                                 \
    {                                                                                                         \
        size_t z_ = (size_t)k->field;                                                                         \
        double d_ = (double)k->field;                                                                         \
        st = read_knob(#NAME, how, NAME##_words, NWORDS(NAME), (size_t)(cap), (double)(cap), &z_, &d_);       \
        if (st != GHZ_SUCCESS) return st;                                                                     \
        if (how == COLL_KNOB_SECONDS) k->field = d_;                                                          \
        else k->field = z_;                                                                                   \
    }
    COLL_KNOBS(READ)
#undef READ
    k->debug_info = k->debug == 2;
    return GHZ_SUCCESS;
}

int coll_knobs_agreed(const coll_knobs_t* k, const char** names, int64_t* values, int max)
{
    int n = 0;
    /* (seconds in whole milliseconds; sizes pass unchanged: COLL_KNOB_UNSET is -1 there) */
#define AGREED(NAME, field, how, words, cap, initial, agreed, ...)                                             \
    if ((agreed) && n < max) {                                                                               \
        names[n] = how == COLL_KNOB_SECONDS ? #NAME " (ms)" : #NAME;                                         \
        values[n] = how == COLL_KNOB_SECONDS ? (int64_t)llround((double)k->field * 1e3) : (int64_t)k->field; \
        n++;                                                                                                 \
    }
    COLL_KNOBS(AGREED)
#undef AGREED
    return n;
}

/* " NAME=value" appended to buf: a size ("default": unset), a word, a number or seconds. */
static void put(char* buf, size_t len, const char* name, int how, const char* const* words, int nwords, size_t z,
                double v)
{
    const size_t at = strlen(buf);
    const int size = how == COLL_KNOB_SIZE || how == COLL_KNOB_NEVER_SIZE;
    if (at >= len) return;
    if (size && z == COLL_KNOB_UNSET) snprintf(buf + at, len - at, " %s=default", name);
    else if (size && z == COLL_KNOB_NEVER) snprintf(buf + at, len - at, " %s=never", name);
    else if (size) snprintf(buf + at, len - at, " %s=%zu", name, z);
    else if (nwords > 1 && v >= 0 && (int)v < nwords && words[(int)v])
        snprintf(buf + at, len - at, " %s=%s", name, words[(int)v]);
    else snprintf(buf + at, len - at, " %s=%g", name, v);
}

void coll_knobs_describe(const coll_knobs_t* k, char* buf, size_t len)
{
    if (!len) return;
    *buf = '\0';
#define DESCRIBE(NAME, field, how, ...) \
    put(buf, len, #NAME, how, NAME##_words, NWORDS(NAME), (size_t)k->field, (double)k->field);
    COLL_KNOBS(DESCRIBE)
#undef DESCRIBE
    if (*buf == ' ') memmove(buf, buf + 1, strlen(buf));
}

const coll_knob_doc_t* coll_knob_docs(int* n)
{
#define DOC(NAME, field, how, words, cap, initial, agreed, takes, dflt, what) \
    {#NAME, how, NAME##_words, NWORDS(NAME), agreed, takes, dflt, what},
    static const coll_knob_doc_t docs[] = {COLL_KNOBS(DOC)};
#undef DOC
    *n = (int)(sizeof docs / sizeof docs[0]);
    return docs;
}
