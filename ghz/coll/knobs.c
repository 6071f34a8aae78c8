/* ghz/coll/knobs.c: the environment variables of libghzcoll (detail/knobs.h's table),
 * parsed strictly.
 *
 * Sizes are a decimal byte count with an optional K, M or G suffix (powers of 1024):
 * "65536", "64K", "4M". Anything else (a sign, spaces, another suffix, a value above the
 * knob's largest) is an error naming the variable, so that a typo cannot silently run
 * with the default. An empty value counts as unset. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/knobs.h"
#include "ghz/detail/error.h"

/* Each knob's words (WORDS knobs; {0} for the others). */
#define WORDS_OF(NAME, field, how, words, ...) static const char* const NAME##_words[] = words;
COLL_KNOBS(WORDS_OF)
#define NWORDS(NAME) ((int)(sizeof NAME##_words / sizeof NAME##_words[0]))

/* The type of the field each way of reading fills. */
typedef size_t COLL_KNOB_SIZE_t;
typedef size_t COLL_KNOB_NEVER_SIZE_t;
typedef int COLL_KNOB_NUMBER_t;
typedef int COLL_KNOB_WORDS_t;
typedef double COLL_KNOB_SECONDS_t;

static const char* value_of(const char* name)
{
    const char* v = getenv(name);
    return v && *v ? v : NULL;
}

/* A decimal number, with a K/M/G suffix where `suffixes`, at most cap; unset: *out
 * untouched. */
static ghz_status_t read_number(const char* name, size_t cap, int suffixes, size_t* out)
{
    const char* v = value_of(name);
    const char* p;
    unsigned long long n, mult = 1;
    char* end = NULL;
    if (!v) return GHZ_SUCCESS;
    for (p = v; *p >= '0' && *p <= '9'; p++) {
    }
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
    *out = (size_t)(n * mult);
    return GHZ_SUCCESS;
bad:
    return ghz_fail(GHZ_ERR_INVALID_ARG, "%s=%s: %s of at most %zu", name, v,
                    suffixes ? "a byte count (digits, optionally K, M or G)" : "a whole number", cap);
}

static ghz_status_t read_COLL_KNOB_SIZE(const char* name, const char* const* words, int n, size_t cap, size_t* out)
{
    (void)words;
    (void)n;
    return read_number(name, cap, 1, out);
}

static ghz_status_t read_COLL_KNOB_NEVER_SIZE(const char* name, const char* const* words, int n, size_t cap,
                                              size_t* out)
{
    const char* v = value_of(name);
    if (v && strcmp(v, "never") == 0) {
        *out = COLL_KNOB_NEVER;
        return GHZ_SUCCESS;
    }
    return read_COLL_KNOB_SIZE(name, words, n, cap, out);
}

static ghz_status_t read_COLL_KNOB_NUMBER(const char* name, const char* const* words, int n, size_t cap, int* out)
{
    size_t x = (size_t)*out;
    ghz_status_t st;
    (void)words;
    (void)n;
    st = read_number(name, cap, 0, &x);
    *out = (int)x;
    return st;
}

/* One of the n words (case-insensitive; NULL entries skipped), its index in *out. */
static ghz_status_t read_COLL_KNOB_WORDS(const char* name, const char* const* words, int n, size_t cap, int* out)
{
    const char* v = value_of(name);
    char list[128] = "";
    int i;
    (void)cap;
    if (!v) return GHZ_SUCCESS;
    for (i = 0; i < n; i++) {
        const char *a = v, *b = words[i];
        if (!b) continue;
        while (*a && *b && (*a | 0x20) == (*b | 0x20)) {
            a++;
            b++;
        }
        if (!*a && !*b) {
            *out = i;
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

static ghz_status_t read_COLL_KNOB_SECONDS(const char* name, const char* const* words, int n, double cap,
                                           double* out)
{
    const char* v = value_of(name);
    char* end = NULL;
    double s;
    (void)words;
    (void)n;
    if (!v) return GHZ_SUCCESS;
    errno = 0;
    s = strtod(v, &end);
    if (errno || end == v || *end != '\0' || !(s > 0.0) || !(s <= cap))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "%s=%s: seconds, more than 0 and at most %g", name, v, cap);
    *out = s;
    return GHZ_SUCCESS;
}

ghz_status_t coll_knobs_read(coll_knobs_t* k)
{
    ghz_status_t st;
#define INIT(NAME, field, how, words, cap, initial, ...) k->field = initial;
    COLL_KNOBS(INIT)
#undef INIT
    k->debug_info = 0;
#define READ(NAME, field, how, words, cap, ...)                                    \
    {                                                                              \
        how##_t v_ = k->field;                                                     \
        if ((st = read_##how(#NAME, NAME##_words, NWORDS(NAME), cap, &v_)) != GHZ_SUCCESS) return st; \
        k->field = v_;                                                             \
    }
    COLL_KNOBS(READ)
#undef READ
    k->debug_info = k->debug == 2;
    return GHZ_SUCCESS;
}

/* A knob's value as the agreement compares it (seconds in whole milliseconds). */
static int64_t agreed_value(double v, int how)
{
    return how == COLL_KNOB_SECONDS ? (int64_t)llround(v * 1e3) : (int64_t)v;
}

int coll_knobs_agreed(const coll_knobs_t* k, const char** names, int64_t* values, int max)
{
    int n = 0;
    /* (sizes pass through int64_t unchanged: COLL_KNOB_UNSET is -1 there) */
#define AGREED(NAME, field, how, words, cap, initial, agreed, ...)                              \
    if ((agreed) && n < max) {                                                                \
        names[n] = how == COLL_KNOB_SECONDS ? #NAME " (ms)" : #NAME;                          \
        values[n] = how == COLL_KNOB_SECONDS ? agreed_value((double)k->field, how) : (int64_t)k->field; \
        n++;                                                                                  \
    }
    COLL_KNOBS(AGREED)
#undef AGREED
    return n;
}

/* " NAME=size" appended to buf: "default" where unset, "never" for COLL_KNOB_NEVER. */
static void put_size(char* buf, size_t len, const char* name, size_t v)
{
    const size_t at = strlen(buf);
    if (at >= len) return;
    if (v == COLL_KNOB_UNSET) snprintf(buf + at, len - at, " %s=default", name);
    else if (v == COLL_KNOB_NEVER) snprintf(buf + at, len - at, " %s=never", name);
    else snprintf(buf + at, len - at, " %s=%zu", name, v);
}

/* " NAME=value" appended to buf: a word by its name, a number, or seconds. */
static void put(char* buf, size_t len, const char* name, const char* const* words, int nwords, double v)
{
    const size_t at = strlen(buf);
    if (at >= len) return;
    if (nwords > 1 && v >= 0 && (int)v < nwords && words[(int)v])
        snprintf(buf + at, len - at, " %s=%s", name, words[(int)v]);
    else snprintf(buf + at, len - at, " %s=%g", name, v);
}

void coll_knobs_describe(const coll_knobs_t* k, char* buf, size_t len)
{
    if (!len) return;
    *buf = '\0';
#define DESCRIBE(NAME, field, how, ...)                                                  \
    if (how == COLL_KNOB_SIZE || how == COLL_KNOB_NEVER_SIZE)                             \
        put_size(buf, len, #NAME, (size_t)k->field);                                     \
    else                                                                                 \
        put(buf, len, #NAME, NAME##_words, NWORDS(NAME), (double)k->field);
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
