/* ghz/coll/agree.c: agreeing on a call before any data moves.
 *
 * One allreduce (MAX) over a few int64 words: through shared memory where every rank is
 * on one node (agree_shm.c), else the communicator's control allreduce (ctl_max: MPI's,
 * or NCCL's). A value v that must be equal everywhere goes in twice, as v and ~v: max(v)
 * is the largest value and ~max(~v) the smallest, so the ranks agree exactly when the
 * two are equal. Doubles travel as order-preserving integers (ordered()). A call's fields travel as one digest (digest()): an exact call
 * is then 6 words, which fit a shared-memory slot's first cache line beside its
 * sequence number, so that over NCCL a checked exact call costs one line a peer (it is
 * a host barrier in front of NCCL's own launch; every word on it is host time). Only
 * where the digests differ do the fields themselves travel, in a second exchange that
 * every rank makes, to name the one that differs. A lossy call adds its value range:
 * one small allreduce it needs anyway. */
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

static const char* kind_name(int64_t v)
{
    switch (v) { COLL_CALLS(COLL_NAME_CASE) }
    return "unknown";
}

/* A field's value as a user reads it: names for enums, the bound as a number. */
static void show(char* buf, size_t len, int field, int64_t v)
{
    double d;
    switch (field) {
    case AGREE_KIND: snprintf(buf, len, "%s", kind_name(v)); break;
    case AGREE_COUNT: snprintf(buf, len, "%llu", (unsigned long long)v); break;
    case AGREE_DTYPE: snprintf(buf, len, "%s", ghz_dtype_name((ghz_dtype_t)v)); break;
    case AGREE_OP: snprintf(buf, len, "%s", ghz_op_name((ghz_op_t)v)); break;
    case AGREE_LOSSY: snprintf(buf, len, "%s", v ? "given" : "NULL"); break;
    case AGREE_MODE: snprintf(buf, len, "%s", v == GHZ_EB_ABS ? "ABS" : v == GHZ_EB_REL ? "REL" : "none"); break;
    case AGREE_BOUND: {
        int prec = 6;
        memcpy(&d, &v, sizeof d);
        /* the shortest form that reads back as the same double */
        do snprintf(buf, len, "%.*g", prec, d);
        while (strtod(buf, NULL) != d && ++prec <= 17);
        break;
    }
    case AGREE_PATH: snprintf(buf, len, "%s", ghz_path_name((ghz_path_t)v)); break;
    case AGREE_CAPTURE: snprintf(buf, len, "%s", v ? "on" : "off"); break;
    default: snprintf(buf, len, "%lld", (long long)v); break;
    }
}

/* The failing rank with the lowest number, and its own status, in one word whose MAX
 * over ranks picks it: INT64_MIN where this rank did not fail. A rank whose communicator
 * is broken (BROKEN_BIT) goes before every other: its peers must learn it (agree()). */
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

/* The words of a call's agreement. The first W_EXACT are every call's; the range words
 * follow for a lossy call. */
enum { W_DIGEST, W_NDIGEST, W_FAILED, W_NSTAGED, W_MOST0, W_MOST1, W_EXACT,
       W_MAX = W_EXACT, W_NMIN, W_NONFINITE, W_NRATIO, W_WORDS };

/* A 64-bit digest of a call's fields (splitmix64's finalizer over each in turn): two
 * different sets of fields give the same digest with probability about 2^-64, and a
 * digest that differs anywhere sends every rank to the exchange that names the field. */
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

/* The digests differ: every rank exchanges its fields (v and ~v each) to find the first
 * that differs, and fails with it. */
static ghz_status_t name_mismatch(ghz_comm_t* c, const coll_call_t* mine)
{
    int64_t w[2 * AGREE_NFIELDS];
    ghz_status_t st;
    int i;
    for (i = 0; i < AGREE_NFIELDS; i++) {
        w[i] = mine->field[i];
        w[AGREE_NFIELDS + i] = ~mine->field[i];
    }
    st = coll_ctl_max(c, w, 2 * AGREE_NFIELDS);
    if (st != GHZ_SUCCESS) return st;
    for (i = 0; i < AGREE_NFIELDS; i++)
        if (w[i] != ~w[AGREE_NFIELDS + i]) {
            char lo[40], hi[40], me[40];
            show(lo, sizeof lo, i, ~w[AGREE_NFIELDS + i]);
            show(hi, sizeof hi, i, w[i]);
            show(me, sizeof me, i, mine->field[i]);
            return ghz_fail(GHZ_ERR_MISMATCH, "the ranks pass different %s (%s and %s among them; this rank %s)",
                            field_name[i], lo, hi, me);
        }
    /* equal fields: the digests differ in whether the call scans a range, which every
     * rank decides from agreed inputs; a rank whose state diverged decided otherwise */
    return ghz_fail(GHZ_ERR_MISMATCH, "the ranks decide differently whether this call compresses (this rank: %s)",
                    mine->ranged ? "compresses" : "exact");
}

ghz_status_t coll_agree(ghz_comm_t* c, const coll_call_t* mine, coll_agreed_t* all)
{
    int64_t w[W_WORDS];
    const int64_t d = digest(mine);
    /* Through shared memory an exact call reads only its peers' first line; the ranks
     * may then read different counts of words, which is safe there: a rank that reads
     * more reads a peer's older words, and only where the digests (in the first line)
     * differ, so that every rank fails. MPI and NCCL take the same count everywhere. */
    const int n = c->shm && !mine->ranged ? W_EXACT : W_WORDS;
    ghz_status_t st;
    w[W_DIGEST] = d;
    w[W_NDIGEST] = ~d;
    w[W_FAILED] = failure_word(c->rank, mine->status, c->broken != GHZ_SUCCESS);
    w[W_NSTAGED] = !mine->staged;
    /* (unsigned values above INT64_MAX cannot be counts of anything in memory) */
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
            /* The one failure rule (contract.c) on every rank that took part: a peer's
             * earlier call failed once data moved, where this rank's succeeded; the ranks
             * may be out of step, so this rank's communicator is broken too (and its
             * release, like the peer's, meets no one: comm_buffers.c) */
            c->broken = GHZ_ERR_PEER;
            return ghz_fail(GHZ_ERR_PEER,
                            "rank %d's communicator is broken (%s: an earlier call failed there after its data "
                            "started to move), and so is this rank's now; destroy it",
                            failed_rank(w[W_FAILED]), ghz_status_string(failed_status(w[W_FAILED])));
        }
        return ghz_fail(GHZ_ERR_PEER, "rank %d failed its own checks (%s)", failed_rank(w[W_FAILED]),
                        ghz_status_string(failed_status(w[W_FAILED])));
    }
    if (w[W_DIGEST] != ~w[W_NDIGEST]) return name_mismatch(c, mine);
    if (n == W_EXACT) {
        /* (the range words of a call that scans none: what its own would give) */
        w[W_MAX] = w[W_NMIN] = INT64_MIN;
        w[W_NONFINITE] = mine->nonfinite;
        w[W_NRATIO] = ~ordered(mine->ratio_seen);
    }
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

/* The settings of a communicator that must be equal on every rank: the resolved
 * configuration, and the environment's knobs that shape calls. */
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
    int64_t v[MAX_SETTINGS], w[2 * MAX_SETTINGS + 1];
    ghz_status_t st;
    int i, n;
    v[S_BACKEND] = c->cfg.backend;
    v[S_ARALGO] = c->cfg.allreduce_algo;
    v[S_RSALGO] = c->cfg.reduce_scatter_algo;
    v[S_RALGO] = c->cfg.reduce_algo;
    v[S_POOL] = (int64_t)c->cfg.pool_bytes;
    v[S_CHUNK] = (int64_t)c->cfg.chunk_bytes;
    v[S_CHECK] = c->cfg.check_args != 0;
    v[S_THREADS] = c->cfg.nthreads;
    v[S_RPN] = c->cfg.ranks_per_node; /* resolved: the environment's where the field is 0 */
    v[S_TRANSPORT] = c->cfg.transport; /* resolved: AUTO became MPI, CUDA_IPC or NCCL */
    v[S_STAGED] = c->host_mirror;
    n = S_KNOBS + coll_knobs_agreed(&c->knobs, name + S_KNOBS, v + S_KNOBS, MAX_SETTINGS - S_KNOBS);
    for (i = 0; i < n; i++) {
        w[i] = v[i];
        w[n + i] = ~v[i];
    }
    w[2 * n] = failure_word(c->rank, mine, 0);
    st = coll_ctl_max(c, w, 2 * n + 1);
    if (st != GHZ_SUCCESS) return st;
    if (w[2 * n] != INT64_MIN)
        return mine != GHZ_SUCCESS ? mine
                                   : ghz_fail(GHZ_ERR_PEER, "rank %d failed ghz_comm_init (%s)", failed_rank(w[2 * n]),
                                              ghz_status_string(failed_status(w[2 * n])));
    for (i = 0; i < n; i++)
        if (w[i] != ~w[n + i]) {
            char lo[40], hi[40], me[40];
            show_setting(lo, sizeof lo, i, ~w[n + i]);
            show_setting(hi, sizeof hi, i, w[i]);
            show_setting(me, sizeof me, i, v[i]);
            return ghz_fail(GHZ_ERR_MISMATCH, "the ranks configure different %s (%s and %s among them; this rank %s)",
                            name[i], lo, hi, me);
        }
    return GHZ_SUCCESS;
}
