/* ghz/coll/host_path.c: a CUDA communicator's small exact reductions through host
 * memory, on its CPU communicator (COLL.md, Choices). */
#include <stddef.h>

#include "ghz/coll/detail/auto_rule.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* A lossy AUTO call below the threshold fixed at init: it runs exact on every rank,
 * decided by agreed fields alone (size and path). */
int coll_auto_small(const ghz_comm_t* c, const call_t* k)
{
    return k->acc && k->a.path == GHZ_PATH_AUTO && !coll_auto_compresses(c, k->total * ghz_dtype_size(k->dtype));
}

/* Whether an exact call of a CUDA communicator goes through host memory: small (the
 * device paths' fixed costs, a few GPU synchronisations or fences, exceed a copy each
 * way plus the CPU algorithm: COLL.md, Choices) and the algorithm left to AUTO.
 * A lossy AUTO call below the threshold (coll_auto_small) takes the host path up to
 * small_auto_bytes, beyond where exact calls stop (comm.h): its bound needs the input's
 * range, which the pinned copy gives for a host loop, where the device path pays a range
 * kernel and a synchronisation that also waits for the previous call's kernels. */
int coll_host_path_takes(const ghz_comm_t* c, const call_t* k, coll_mode_t mode)
{
    const size_t limit = coll_auto_small(c, k) ? c->small_auto_bytes : c->small_bytes;
    return c->host && mode == COLL_EXACT && coll_configured_algo(c, k) == GHZ_ALGO_AUTO && !c->be.capturing &&
           k->total * ghz_dtype_size(k->dtype) <= limit;
}

/* Where the host path copies a call's input: an allreduce runs in place in small_out
 * (its result's buffer), where the CPU ring combines its last step straight into the
 * result (algo_ring.c) and MPI_IN_PLACE-like calls save a copy; the others from
 * small_in. */
unsigned char* coll_host_in(const ghz_comm_t* c, const call_t* k)
{
    return k->ops->host_in_out ? c->small_out : c->small_in;
}

/* The call on the host communicator: input copied to pinned memory (already, when
 * `copied`, before the agreement, which then carried the copy's status; `all_staged`:
 * every rank's was, so none needs to hear of the others' copies again), the CPU
 * algorithm (its own AVG scaling included), the result copied back without waiting
 * (the next call's work waits for it: backend.h, copy_async). Every rank learns
 * whether every copy worked before any enters the host call, so none enters it alone.
 * The copy in waits for the stream, and with it for the previous call's copy out of
 * small_out, which the host call writes. */
ghz_status_t coll_host_path(ghz_comm_t* c, const call_t* k, int copied, int all_staged, double t_copied,
                              ghz_coll_info_t* info)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const int has_out = coll_has_out(c, k);
    call_t kk = coll_make_call(k->kind, coll_host_in(c, k), c->small_out, k->count, k->dtype, k->op, k->root, NULL, NULL);
    double t0 = MPI_Wtime(), t_stage = t_copied;
    ghz_status_t st = GHZ_SUCCESS;
    if (!copied) {
        st = c->be.copy(&c->be, coll_host_in(c, k), k->in, k->total * e);
        t_stage += MPI_Wtime() - t0;
    }
    if (!all_staged) st = coll_stage_agree(c, st);
    if (st == GHZ_SUCCESS) st = coll_reduce_run(c->host, &kk);
    if (st == GHZ_SUCCESS && has_out) {
        t0 = MPI_Wtime();
        st = c->be.copy_async(&c->be, k->out, c->small_out, k->count * e);
        t_stage += MPI_Wtime() - t0;
    }
    if (st != GHZ_SUCCESS) return st;
    *info = c->host->info;
    info->time_stage = t_stage;
    return GHZ_SUCCESS;
}
