/* ghz/coll/agree.c: agreeing on a call before any data moves: one MAX allreduce of int64
 * words. A value that must be equal everywhere goes in as v and ~v (equal when
 * max(v) == ~max(~v)). A call's fields travel as one digest, so an exact call's 6 words
 * fit a shared-memory slot's first cache line; only where digests differ do the fields
 * travel, to name the one that differs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/agree_shm.h"
#include "ghz/coll/detail/knobs.h"
#include "ghz/coll/detail/names.h"
#include "ghz/detail/error.h"

static const char* const field_name[AGREE_NFIELDS] = {
    "collective", "count", "dtype", "op", "root", "accuracy (NULL or not)", "accuracy mode",
    "bound", "path", "CUDA-graph capture (on or off)"};

static void show(char* buf, size_t len, int field, int64_t v)
{
    double d;
    switch (field) {
    case AGREE_KIND: snprintf(buf, len, "%s", coll_call_name(v)); break;
    case AGREE_COUNT: snprintf(buf, len, "%llu", (unsigned long long)v); break;
    case AGREE_DTYPE: snprintf(buf, len, "%s", ghz_dtype_name((ghz_dtype_t)v)); break;
    case AGREE_OP: snprintf(buf, len, "%s", ghz_op_name((ghz_op_t)v)); break;
    case AGREE_LOSSY: snprintf(buf, len, "%s", v ? "given" : "NULL"); break;
    case AGREE_MODE: snprintf(buf, len, "%s", v == GHZ_EB_ABS ? "ABS" : v == GHZ_EB_REL ? "REL" : "none"); break;
    case AGREE_BOUND: {
        int prec = 6;
        memcpy(&d, &v, sizeof d);
        do snprintf(buf, len, "%.*g", prec, d);
        while (strtod(buf, NULL) != d && ++prec <= 17);
        break;
    }
    case AGREE_PATH: snprintf(buf, len, "%s", ghz_path_name((ghz_path_t)v)); break;
    case AGREE_CAPTURE: snprintf(buf, len, "%s", v ? "on" : "off"); break;
    default: snprintf(buf, len, "%lld", (long long)v); break;
    }
}

/* The lowest failing rank and its status, in one word whose MAX picks it; a broken
 * communicator (BROKEN_BIT) goes first: its peers must learn it. */
#define BROKEN_BIT ((int64_t)1 << 50)

static int64_t failure_word(int rank, ghz_status_t st, int broken)
{
    return st == GHZ_SUCCESS ? INT64_MIN : (broken ? BROKEN_BIT : 0) + (int64_t)(INT32_MAX - rank) * 65536 + (int64_t)st;
}

static int failed_rank(int64_t w)
{
    return INT32_MAX - (int)((w & (BROKEN_BIT - 1)) / 65536);
}

static ghz_status_t failed_status(int64_t w)
{
    return (ghz_status_t)(w % 65536);
}

/* Monotone map of doubles (not NaN) onto int64, and back. */
static int64_t ordered(double x)
{
    int64_t b;
    memcpy(&b, &x, sizeof b);
    return b < 0 ? b ^ INT64_MAX : b;
}

static double unordered(int64_t b)
{
    double x;
    if (b < 0) b ^= INT64_MAX;
    memcpy(&x, &b, sizeof x);
    return x;
}

ghz_status_t coll_ctl_max(ghz_comm_t* c, int64_t* w, int n)
{
    if (c->shm && n <= COLL_SHM_WORDS) return coll_shm_max(c->shm, w, n);
    if (c->ctl_max) return c->ctl_max(c, w, n);
    return ghz_fail(GHZ_ERR_INVALID_ARG, "internal: a communicator without a control plane");
}

ghz_status_t coll_ctl_max_ctx(void* c, int64_t* w, int n)
{
    return coll_ctl_max((ghz_comm_t*)c, w, n);
}

/* The first W_EXACT words are every call's; a lossy call's range words follow. */
enum { W_DIGEST, W_NDIGEST, W_FAILED, W_NSTAGED, W_MOST0, W_MOST1, W_EXACT,
       W_MAX = W_EXACT, W_NMIN, W_NONFINITE, W_NRATIO, W_WORDS };

/* splitmix64's finalizer over each field in turn */
static int64_t digest(const coll_call_t* k)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    int i;
    for (i = 0; i <= AGREE_NFIELDS; i++) {
        const int64_t f = i < AGREE_NFIELDS ? k->field[i] : k->ranged;
        h ^= (uint64_t)f + 0x9e3779b97f4a7c15u * (uint64_t)(i + 1);
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9u;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebu;
        h ^= h >> 31;
    }
    return (int64_t)h;
}

/* Fields sent as v and ~v (w[i], w[n + i]): the first that differs among the ranks,
 * named with the lowest and highest value and this rank's; GHZ_SUCCESS where none does. */
static ghz_status_t name_differing(const int64_t* w, const int64_t* mine, int n, const char* const* name,
                                   void (*show_one)(char*, size_t, int, int64_t), const char* verb)
{
    int i;
    for (i = 0; i < n; i++)
        if (w[i] != ~w[n + i]) {
            char lo[40], hi[40], me[40];
            show_one(lo, sizeof lo, i, ~w[n + i]);
            show_one(hi, sizeof hi, i, w[i]);
            show_one(me, sizeof me, i, mine[i]);
            return ghz_fail(GHZ_ERR_MISMATCH, "the ranks %s different %s (%s and %s among them; this rank %s)", verb,
                            name[i], lo, hi, me);
        }
    return GHZ_SUCCESS;
}

/* w[0..2n + extra) = the maxima of v[0..n), of ~v[0..n) and of the extra words w[2n..). */
static ghz_status_t max_both(ghz_comm_t* c, int64_t* w, const int64_t* v, int n, int extra)
{
    int i;
    for (i = 0; i < n; i++) {
        w[i] = v[i];
        w[n + i] = ~v[i];
    }
    return coll_ctl_max(c, w, 2 * n + extra);
}

static ghz_status_t name_mismatch(ghz_comm_t* c, const coll_call_t* mine)
{
    int64_t w[2 * AGREE_NFIELDS];
    ghz_status_t st = max_both(c, w, mine->field, AGREE_NFIELDS, 0);
    if (st == GHZ_SUCCESS) st = name_differing(w, mine->field, AGREE_NFIELDS, field_name, show, "pass");
    if (st != GHZ_SUCCESS) return st;
    /* (equal fields: a rank whose state diverged decided `ranged` otherwise) */
    return ghz_fail(GHZ_ERR_MISMATCH, "the ranks decide differently whether this call compresses (this rank: %s)",
                    mine->ranged ? "compresses" : "exact");
}

ghz_status_t coll_agree(ghz_comm_t* c, const coll_call_t* mine, coll_agreed_t* all)
{
    int64_t w[W_WORDS];
    const int64_t d = digest(mine);
    /* Through shared memory the counts may differ between ranks: more words are read
     * only where the digests differ, and then every rank fails. */
    const int n = c->shm && !mine->ranged ? W_EXACT : W_WORDS;
    ghz_status_t st;
    w[W_DIGEST] = d;
    w[W_NDIGEST] = ~d;
    w[W_FAILED] = failure_word(c->rank, mine->status, c->broken != GHZ_SUCCESS);
    w[W_NSTAGED] = !mine->staged;
    w[W_MOST0] = mine->most[0] > INT64_MAX ? INT64_MAX : (int64_t)mine->most[0];
    w[W_MOST1] = mine->most[1] > INT64_MAX ? INT64_MAX : (int64_t)mine->most[1];
    w[W_MAX] = mine->have_range ? ordered(mine->vmax) : INT64_MIN;
    w[W_NMIN] = mine->have_range ? ~ordered(mine->vmin) : INT64_MIN;
    w[W_NONFINITE] = mine->nonfinite;
    w[W_NRATIO] = ~ordered(mine->ratio_seen);
    st = coll_ctl_max(c, w, n);
    if (st != GHZ_SUCCESS) return st;
    if (w[W_FAILED] != INT64_MIN) {
        if (mine->status != GHZ_SUCCESS) return mine->status; /* its detail is set */
        if (w[W_FAILED] & BROKEN_BIT) {
            /* (the ranks may be out of step: contract.c's failure rule) */
            c->broken = GHZ_ERR_PEER;
            return ghz_fail(GHZ_ERR_PEER,
                            "rank %d's communicator is broken (%s: an earlier call failed there after its data "
                            "started to move), and so is this rank's now; destroy it",
                            failed_rank(w[W_FAILED]), ghz_status_string(failed_status(w[W_FAILED])));
        }
        return ghz_fail(GHZ_ERR_PEER, "rank %d failed its own checks (%s)", failed_rank(w[W_FAILED]),
                        ghz_status_string(failed_status(w[W_FAILED])));
    }
    /* (n == W_EXACT: the words from W_EXACT on stay this rank's, no range) */
    if (w[W_DIGEST] != ~w[W_NDIGEST]) return name_mismatch(c, mine);
    all->have_range = w[W_MAX] != INT64_MIN;
    all->vmax = all->have_range ? unordered(w[W_MAX]) : NAN;
    all->vmin = all->have_range ? unordered(~w[W_NMIN]) : NAN;
    all->nonfinite = w[W_NONFINITE] != 0;
    all->ratio_seen = unordered(~w[W_NRATIO]);
    all->staged = w[W_NSTAGED] == 0;
    all->most[0] = (uint64_t)w[W_MOST0];
    all->most[1] = (uint64_t)w[W_MOST1];
    return GHZ_SUCCESS;
}

enum { S_BACKEND, S_ARALGO, S_RSALGO, S_RALGO, S_POOL, S_CHUNK, S_CHECK, S_THREADS, S_RPN, S_TRANSPORT, S_STAGED,
       S_KNOBS };
#define MAX_SETTINGS (S_KNOBS + 16)

static void show_setting(char* buf, size_t len, int s, int64_t v)
{
    if (s == S_BACKEND) snprintf(buf, len, "%s", v == GHZ_EXEC_CPU ? "cpu" : v == GHZ_EXEC_CUDA ? "cuda" : "unknown");
    else if (s == S_ARALGO || s == S_RSALGO || s == S_RALGO) snprintf(buf, len, "%s", ghz_algo_name((ghz_algo_t)v));
    else if (s == S_TRANSPORT) snprintf(buf, len, "%s", ghz_transport_name((ghz_transport_t)v));
    else if (v == (int64_t)COLL_KNOB_UNSET) snprintf(buf, len, "unset");
    else snprintf(buf, len, "%lld", (long long)v);
}

ghz_status_t coll_agree_config(ghz_comm_t* c, ghz_status_t mine)
{
    const char* name[MAX_SETTINGS] = {"backend", "allreduce_algo", "reduce_scatter_algo", "reduce_algo",
                                      "pool_bytes", "chunk_bytes", "check_args", "nthreads", "ranks_per_node",
                                      "transport", "staging through host memory (CUDA-aware MPI or not)"};
    /* (in the order of the S_ names) */
    int64_t v[MAX_SETTINGS] = {c->cfg.backend, c->cfg.allreduce_algo, c->cfg.reduce_scatter_algo, c->cfg.reduce_algo,
                               (int64_t)c->cfg.pool_bytes, (int64_t)c->cfg.chunk_bytes, c->cfg.check_args != 0,
                               c->cfg.nthreads, c->cfg.ranks_per_node, c->cfg.transport, c->host_mirror};
    int64_t w[2 * MAX_SETTINGS + 1];
    ghz_status_t st;
    int n;
    n = S_KNOBS + coll_knobs_agreed(&c->knobs, name + S_KNOBS, v + S_KNOBS, MAX_SETTINGS - S_KNOBS);
    w[2 * n] = failure_word(c->rank, mine, 0);
    st = max_both(c, w, v, n, 1);
    if (st != GHZ_SUCCESS) return st;
    if (w[2 * n] != INT64_MIN)
        return mine != GHZ_SUCCESS ? mine
                                   : ghz_fail(GHZ_ERR_PEER, "rank %d failed ghz_comm_init (%s)", failed_rank(w[2 * n]),
                                              ghz_status_string(failed_status(w[2 * n])));
    return name_differing(w, v, n, name, show_setting, "configure");
}
