/* ghz/coll/agree.c: agreeing on a call before any data moves.
 *
 * One MPI_Allreduce(MPI_MAX) over a few dozen int64 words. A field f that must be equal everywhere
 * goes in twice, as v and ~v: max(v) is the largest value and ~max(~v) the smallest,
 * so the ranks agree exactly when the two are equal. Doubles travel as order-preserving
 * integers (ordered()). Cost: one small allreduce (a few microseconds on a node), which
 * a lossy call needs anyway for the global value range. */
#include <math.h>
#include <string.h>

#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/transport.h"
#include "ghz/detail/error.h"

static const char* const field_name[AGREE_NFIELDS] = {
    "collective", "count", "dtype", "op", "root", "accuracy (NULL or not)", "accuracy mode",
    "bound", "path", "CUDA-graph capture (on or off)"};

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

enum { W_STATUS = 2 * AGREE_NFIELDS, W_FAILED, W_MAX, W_NMIN, W_NONFINITE, W_NRATIO, W_NSTAGED, W_PREV, W_MOST0, W_MOST1, W_WORDS };

ghz_status_t coll_agree(ghz_comm_t* c, const coll_call_t* mine, coll_agreed_t* all)
{
    int64_t w[W_WORDS];
    int i, rc;
    for (i = 0; i < AGREE_NFIELDS; i++) {
        w[i] = mine->field[i];
        w[AGREE_NFIELDS + i] = ~mine->field[i];
    }
    w[W_STATUS] = mine->status;
    w[W_FAILED] = mine->status != GHZ_SUCCESS ? ~(int64_t)c->rank : INT64_MIN;
    w[W_MAX] = mine->have_range ? ordered(mine->vmax) : INT64_MIN;
    w[W_NMIN] = mine->have_range ? ~ordered(mine->vmin) : INT64_MIN;
    w[W_NONFINITE] = mine->nonfinite;
    w[W_NRATIO] = ~ordered(mine->ratio_seen);
    w[W_NSTAGED] = !mine->staged;
    w[W_PREV] = mine->prev_seconds >= 0.0 ? ordered(mine->prev_seconds) : INT64_MAX; /* none wins */
    /* (unsigned values above INT64_MAX cannot be counts of anything in memory) */
    w[W_MOST0] = mine->most[0] > INT64_MAX ? INT64_MAX : (int64_t)mine->most[0];
    w[W_MOST1] = mine->most[1] > INT64_MAX ? INT64_MAX : (int64_t)mine->most[1];
    rc = MPI_Allreduce(MPI_IN_PLACE, w, W_WORDS, MPI_INT64_T, MPI_MAX, c->mpi);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Allreduce (call agreement)");
    if (w[W_STATUS] != GHZ_SUCCESS) {
        if (mine->status != GHZ_SUCCESS) return mine->status; /* its detail is set */
        return ghz_fail(GHZ_ERR_PEER, "rank %lld failed its own checks (%s)",
                        (long long)~w[W_FAILED], ghz_status_string((ghz_status_t)w[W_STATUS]));
    }
    for (i = 0; i < AGREE_NFIELDS; i++)
        if (w[i] != ~w[AGREE_NFIELDS + i])
            return ghz_fail(GHZ_ERR_MISMATCH,
                            "the ranks pass different %s (from %lld to %lld; this rank %lld)",
                            field_name[i], (long long)~w[AGREE_NFIELDS + i], (long long)w[i],
                            (long long)mine->field[i]);
    all->have_range = w[W_MAX] != INT64_MIN;
    all->vmax = all->have_range ? unordered(w[W_MAX]) : NAN;
    all->vmin = all->have_range ? unordered(~w[W_NMIN]) : NAN;
    all->nonfinite = w[W_NONFINITE] != 0;
    all->ratio_seen = unordered(~w[W_NRATIO]);
    all->staged = w[W_NSTAGED] == 0;
    all->prev_seconds = w[W_PREV] != INT64_MAX ? unordered(w[W_PREV]) : -1.0;
    all->most[0] = (uint64_t)w[W_MOST0];
    all->most[1] = (uint64_t)w[W_MOST1];
    return GHZ_SUCCESS;
}

ghz_status_t coll_agree_config(MPI_Comm mpi, const ghz_comm_config_t* cfg, ghz_status_t mine)
{
    enum { NV = 7 };
    static const char* const name[NV] = {"backend", "allreduce_algo", "reduce_scatter_algo",
                                         "reduce_algo", "pool_bytes", "chunk_bytes", "transport"};
    int64_t v[NV], w[2 * NV + 1];
    int i, rc;
    v[0] = cfg->backend;
    v[1] = cfg->allreduce_algo;
    v[2] = cfg->reduce_scatter_algo;
    v[3] = cfg->reduce_algo;
    v[4] = (int64_t)cfg->pool_bytes;
    v[5] = (int64_t)cfg->chunk_bytes;
    v[6] = cfg->transport; /* resolved: AUTO became MPI or CUDA_IPC */
    for (i = 0; i < NV; i++) {
        w[i] = v[i];
        w[NV + i] = ~v[i];
    }
    w[2 * NV] = mine;
    rc = MPI_Allreduce(MPI_IN_PLACE, w, 2 * NV + 1, MPI_INT64_T, MPI_MAX, mpi);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Allreduce (configuration agreement)");
    if (w[2 * NV] != GHZ_SUCCESS)
        return mine != GHZ_SUCCESS ? mine
                                   : ghz_fail(GHZ_ERR_PEER, "another rank failed ghz_comm_init (%s)",
                                              ghz_status_string((ghz_status_t)w[2 * NV]));
    for (i = 0; i < NV; i++)
        if (w[i] != ~w[NV + i])
            return ghz_fail(GHZ_ERR_MISMATCH, "the ranks configure different %s (%lld to %lld)",
                            name[i], (long long)~w[NV + i], (long long)w[i]);
    return GHZ_SUCCESS;
}
