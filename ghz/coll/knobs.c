/* ghz/coll/knobs.c: the environment variables of libghzcoll, parsed strictly.
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

/* The largest values the size knobs take (COLL.md, Environment). */
#define MPI_MAX_CAP ((size_t)1 << 30)
#define HOST_PATH_CAP ((size_t)16 << 20)
#define FENCE_TIMEOUT_DEFAULT 60.0
#define FENCE_TIMEOUT_CAP 1e6

static const char* value_of(const char* name)
{
    const char* v = getenv(name);
    return v && *v ? v : NULL;
}

static ghz_status_t read_number(const char* name, size_t cap, int suffixes, size_t* out);

/* A byte count with an optional K/M/G suffix, at most cap; unset: *out untouched. */
static ghz_status_t read_size(const char* name, size_t cap, size_t* out)
{
    return read_number(name, cap, 1, out);
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

/* One of `n` words (case-insensitive), its index in *out; unset: *out untouched. */
static ghz_status_t read_word(const char* name, const char* const* words, int n, int* out)
{
    const char* v = value_of(name);
    int i;
    if (!v) return GHZ_SUCCESS;
    for (i = 0; i < n; i++) {
        const char *a = v, *b = words[i];
        while (*a && *b && (*a | 0x20) == (*b | 0x20)) {
            a++;
            b++;
        }
        if (!*a && !*b) {
            *out = i;
            return GHZ_SUCCESS;
        }
    }
    {
        char list[128] = "";
        for (i = 0; i < n; i++) {
            strncat(list, words[i], sizeof list - strlen(list) - 1);
            if (i + 1 < n) strncat(list, ", ", sizeof list - strlen(list) - 1);
        }
        return ghz_fail(GHZ_ERR_INVALID_ARG, "%s=%s: one of %s", name, v, list);
    }
}

ghz_status_t coll_knobs_read(coll_knobs_t* k)
{
    static const char* const transports[] = {"auto", "mpi", "ipc", "nccl"};
    static const char* const onoff[] = {"0", "1"};
    static const char* const traces[] = {"0", "1", "2"};
    static const char* const levels[] = {"none", "warn", "info"};
    ghz_status_t st;
    int w, level = 0;
    size_t rpn = 0;
    k->transport = GHZ_TRANSPORT_AUTO;
    k->ranks_per_node = 0;
    k->mpi_max = k->host_path_max = k->one_shot_max = k->auto_min_bytes = COLL_KNOB_UNSET;
    k->cuda_aware_mpi = 1;
    k->fence_timeout_s = FENCE_TIMEOUT_DEFAULT;
    k->auto_trace = 0;
    k->debug_info = 0;
    w = 0;
    if ((st = read_word("GHZ_COLL_TRANSPORT", transports, 4, &w)) != GHZ_SUCCESS) return st;
    k->transport = w == 1 ? GHZ_TRANSPORT_MPI : w == 2 ? GHZ_TRANSPORT_CUDA_IPC : w == 3 ? GHZ_TRANSPORT_NCCL
                                                                                     : GHZ_TRANSPORT_AUTO;
    if ((st = read_number("GHZ_COLL_RANKS_PER_NODE", 1 << 20, 0, &rpn)) != GHZ_SUCCESS) return st;
    k->ranks_per_node = (int)rpn;
    if ((st = read_size("GHZ_COLL_MPI_MAX", MPI_MAX_CAP, &k->mpi_max)) != GHZ_SUCCESS) return st;
    if ((st = read_size("GHZ_COLL_HOST_PATH_MAX", HOST_PATH_CAP, &k->host_path_max)) != GHZ_SUCCESS) return st;
    if ((st = read_size("GHZ_COLL_DIRECT_ONE_SHOT_MAX", SIZE_MAX - 1, &k->one_shot_max)) != GHZ_SUCCESS) return st;
    {
        const char* v = value_of("GHZ_COLL_AUTO_MIN_BYTES");
        if (v && strcmp(v, "never") == 0) k->auto_min_bytes = COLL_KNOB_NEVER;
        else if ((st = read_size("GHZ_COLL_AUTO_MIN_BYTES", SIZE_MAX - 2, &k->auto_min_bytes)) != GHZ_SUCCESS)
            return st;
    }
    if ((st = read_word("GHZ_COLL_CUDA_AWARE_MPI", onoff, 2, &k->cuda_aware_mpi)) != GHZ_SUCCESS) return st;
    {
        const char* v = value_of("GHZ_GRAPH_FENCE_TIMEOUT_S");
        if (v) {
            char* end = NULL;
            double s;
            errno = 0;
            s = strtod(v, &end);
            if (errno || end == v || *end != '\0' || !(s > 0.0) || !(s <= FENCE_TIMEOUT_CAP))
                return ghz_fail(GHZ_ERR_INVALID_ARG, "GHZ_GRAPH_FENCE_TIMEOUT_S=%s: seconds, more than 0 and at most %g",
                                v, FENCE_TIMEOUT_CAP);
            k->fence_timeout_s = s;
        }
    }
    if ((st = read_word("GHZ_COLL_AUTO_TRACE", traces, 3, &k->auto_trace)) != GHZ_SUCCESS) return st;
    if ((st = read_word("GHZ_COLL_DEBUG", levels, 3, &level)) != GHZ_SUCCESS) return st;
    k->debug_info = level == 2;
    return GHZ_SUCCESS;
}

/* (GHZ_COLL_TRANSPORT and GHZ_COLL_RANKS_PER_NODE are agreed as the configuration
 * fields they resolve: where the field is explicit the variable plays no part.) */
int coll_knobs_agreed(const coll_knobs_t* k, const char** names, int64_t* values, int max)
{
    int n = 0;
#define KNOB(nm, v)                       \
    do {                                  \
        if (n < max) {                    \
            names[n] = nm;                \
            values[n] = (int64_t)(v);     \
            n++;                          \
        }                                 \
    } while (0)
    KNOB("GHZ_COLL_MPI_MAX", k->mpi_max);
    KNOB("GHZ_COLL_HOST_PATH_MAX", k->host_path_max);
    KNOB("GHZ_COLL_DIRECT_ONE_SHOT_MAX", k->one_shot_max);
    KNOB("GHZ_COLL_AUTO_MIN_BYTES", k->auto_min_bytes);
    KNOB("GHZ_COLL_CUDA_AWARE_MPI", k->cuda_aware_mpi);
    KNOB("GHZ_GRAPH_FENCE_TIMEOUT_S (ms)", llround(k->fence_timeout_s * 1e3));
#undef KNOB
    return n;
}

static void put_size(char* buf, size_t len, const char* name, size_t v)
{
    size_t at = strlen(buf);
    if (at >= len) return;
    if (v == COLL_KNOB_UNSET) snprintf(buf + at, len - at, " %s=default", name);
    else snprintf(buf + at, len - at, " %s=%zu", name, v);
}

void coll_knobs_describe(const coll_knobs_t* k, char* buf, size_t len)
{
    size_t at;
    if (!len) return;
    snprintf(buf, len, "GHZ_COLL_TRANSPORT=%s GHZ_COLL_RANKS_PER_NODE=%d",
             k->transport == GHZ_TRANSPORT_MPI        ? "mpi"
             : k->transport == GHZ_TRANSPORT_CUDA_IPC ? "ipc"
             : k->transport == GHZ_TRANSPORT_NCCL     ? "nccl"
                                                      : "auto",
             k->ranks_per_node);
    put_size(buf, len, "GHZ_COLL_MPI_MAX", k->mpi_max);
    put_size(buf, len, "GHZ_COLL_HOST_PATH_MAX", k->host_path_max);
    put_size(buf, len, "GHZ_COLL_DIRECT_ONE_SHOT_MAX", k->one_shot_max);
    if (k->auto_min_bytes == COLL_KNOB_NEVER) {
        at = strlen(buf);
        if (at < len) snprintf(buf + at, len - at, " GHZ_COLL_AUTO_MIN_BYTES=never");
    } else {
        put_size(buf, len, "GHZ_COLL_AUTO_MIN_BYTES", k->auto_min_bytes);
    }
    at = strlen(buf);
    if (at < len)
        snprintf(buf + at, len - at, " GHZ_COLL_CUDA_AWARE_MPI=%d GHZ_GRAPH_FENCE_TIMEOUT_S=%g GHZ_COLL_AUTO_TRACE=%d",
                 k->cuda_aware_mpi, k->fence_timeout_s, k->auto_trace);
}
