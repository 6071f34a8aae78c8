/* ghz/coll/plan.c: the planner: what a call does before its agreement, then, from agreed
 * inputs only (so every rank plans alike without a message), its mode, algorithm, route and budget. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ghz/coll/detail/auto_rule.h"
#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/plan.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* AUTO's table of compressed against exact, in the link's time per byte: exact, S bytes
 * per rank cost S; compressed, S / r on the link plus the fixed and codec costs that the
 * threshold S_min prices, (1 - 1/r) S_min, so it wins from S_min on (ties: the first
 * row). Not a candidate where there is no threshold or the last call's least ratio
 * (`ratio`, 0: none) did not pay, but every RATIO_RETRY-th call, to measure again. */
static int auto_compresses(const ghz_comm_t* c, size_t S, double ratio)
{
    const double r = coll_auto_costs(c->cfg.backend).ratio;
    const int ratio_pays = !(ratio > 0.0 && ratio < AUTO_MIN_RATIO && c->lossy_calls % RATIO_RETRY != 0);
    const coll_cost_row_t rows[2] = {
        {COLL_HOMO, GHZ_ALGO_AUTO,
         c->auto_min == SIZE_MAX || !ratio_pays ? INFINITY : (double)S / r + (1.0 - 1.0 / r) * (double)c->auto_min},
        {COLL_EXACT, GHZ_ALGO_AUTO, (double)S}};
    return rows[coll_argmin(rows, 2)].mode != COLL_EXACT;
}

int coll_auto_compresses(const ghz_comm_t* c, size_t bytes)
{
    return auto_compresses(c, bytes, 0.0);
}

/* A data movement weighs as an allreduce of N blocks: the bytes of N / 2, with fewer
 * fixed costs (COLL.md, Data movement). */
static size_t move_bytes(const ghz_comm_t* c, size_t block_bytes)
{
    const size_t N = (size_t)c->size;
    return block_bytes > SIZE_MAX / N ? SIZE_MAX : block_bytes * N;
}

static int coll_auto_small(const ghz_comm_t* c, const coll_desc_t* k)
{
    return k->acc && k->a.path == GHZ_PATH_AUTO && !coll_auto_compresses(c, k->total * ghz_dtype_size(k->dtype));
}

/* A CUDA communicator's small exact call, its algorithm left to AUTO, goes through host
 * memory (COLL.md, Choices); a lossy AUTO call run exact up to small_auto_bytes, for the
 * pinned copy gives its range by a host loop, without a kernel and a synchronisation. */
static int coll_host_path_takes(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode)
{
    const size_t limit = coll_auto_small(c, k) ? c->small_auto_bytes : c->small_bytes;
    return c->host && mode == COLL_EXACT && coll_configured_algo(c, k) == GHZ_ALGO_AUTO && !c->be.capturing &&
           k->total * ghz_dtype_size(k->dtype) <= limit;
}

/* An allreduce runs in place in small_out, where the ring's last step combines straight
 * into the result and MPI's in-place call saves a copy. */
unsigned char* coll_host_in(const ghz_comm_t* c, const coll_desc_t* k)
{
    return k->ops->host_in_out ? c->small_out : c->small_in;
}

/* A lossy call's mode: its path's, or exact where AUTO finds compressing cannot pay or
 * the call's algorithm cannot compress (a call's success must not depend on the
 * threshold, which a measurement set). */
static coll_mode_t coll_lossy_mode(const ghz_comm_t* c, const coll_desc_t* k, double ratio)
{
    /* (over NCCL, HOMO and DOC are the same bytes: the n-ary sum is DOC's left fold) */
    const coll_mode_t m = k->a.path == GHZ_PATH_DOC && !c->nccl ? COLL_DOC : COLL_HOMO;
    const size_t S = k->total * ghz_dtype_size(k->dtype);
    if (k->a.path != GHZ_PATH_AUTO) return m;
    return auto_compresses(c, S, ratio) && coll_check_algo(c, k, coll_choose_algo(c, k, m), m) == GHZ_SUCCESS
               ? m
               : COLL_EXACT;
}

void coll_plan_pre(const ghz_comm_t* c, const coll_desc_t* k, int checked, coll_pre_t* pre)
{
    const size_t e = ghz_dtype_size(k->dtype);
    memset(pre, 0, sizeof *pre);
    pre->lossy = k->acc != NULL;
    if (k->mv) {
        /* (over NCCL a uniform lossy call that AUTO runs exact scans no range: the agreed
         * count decides it) */
        const int auto_exact = c->nccl && !k->v && pre->lossy && k->a.path == GHZ_PATH_AUTO &&
                               !coll_auto_compresses(c, move_bytes(c, k->count * e));
        pre->ranged = pre->lossy && !auto_exact;
        pre->agree = pre->lossy || k->v || c->cfg.check_args;
        pre->ratio = pre->lossy && (k->a.path == GHZ_PATH_RATIO || (k->a.path == GHZ_PATH_AUTO && c->auto_ratio));
        return;
    }
    if (c->nccl) {
        /* a lossy call that AUTO runs exact is NCCL's exact call, without a range scan
         * (COLL.md, NCCL); the last ratio is the same on every rank */
        pre->compress = checked && pre->lossy && coll_lossy_mode(c, k, c->last_ratio) != COLL_EXACT;
        pre->ranged = pre->compress;
        pre->agree = pre->compress || c->cfg.check_args;
        return;
    }
    /* A call that will take the host path exact stages its input now, so the agreement
     * carries the copy's status and the host path needs no second one; a lossy call's
     * range then costs no second synchronisation: the range kernel makes the copy from
     * staged_range_gpu_min on, else the host scans its copy (comm_make.c). */
    pre->ranged = pre->lossy;
    pre->agree = pre->lossy || c->cfg.check_args;
    pre->copied = checked && k->count > 0 && c->size > 1 && (pre->lossy ? coll_auto_small(c, k) : c->cfg.check_args) &&
                  coll_host_path_takes(c, k, COLL_EXACT);
    pre->range_in_copy = pre->copied && pre->lossy && k->total * e >= c->staged_range_gpu_min;
}

/* A replay runs only stream work: what needs nothing from the host between its kernels
 * may be captured (COLL.md, CUDA graphs). */
const char* coll_capture_refusal(const ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre)
{
    const ghz_algo_t a = k->ops ? coll_configured_algo(c, k) : GHZ_ALGO_AUTO;
    if (k->mv) return "the data-movement calls cannot be captured";
    if (c->nccl) return pre->compress ? "a compressed collective reads frame sizes on the host" : NULL;
    if (pre->lossy) return "a lossy collective reads statuses, sizes and the value range on the host";
    if (!k->ops->capturable) return "only allreduce and reduce_scatter can be captured";
    if (c->size == 1) return NULL;
    if (!c->tp.fence || !c->tp.graph_status) return "a captured collective needs the CUDA IPC transport";
    if (a != GHZ_ALGO_AUTO && a != GHZ_ALGO_IPC_DIRECT)
        return "a captured collective runs ipc_direct only (the algorithm is forced to another)";
    return NULL;
}

/* Whether NCCL's own exact call takes the call. Its in place is in == out (reduce_scatter:
 * out at this rank's block of in); other buffers must not overlap (MPI_IN_PLACE's
 * reduce_scatter takes the fold). */
static int nccl_exact_takes(const ghz_comm_t* c, const coll_desc_t* k)
{
    const size_t e = ghz_dtype_size(k->dtype), in_bytes = k->total * e, out_bytes = k->count * e;
    const unsigned char *in = k->in, *out = k->out;
#ifdef GHZ_WITH_NCCL
    if (coll_nccl_exact_refusal(k->dtype, k->op)) return 0;
#endif
    if (!out || in == out) return !k->ops->per_rank || c->rank == 0;
    if (k->ops->per_rank && out == in + (size_t)c->rank * out_bytes) return 1;
    return out + out_bytes <= in || in + in_bytes <= out;
}

void coll_plan_route(const ghz_comm_t* c, const coll_desc_t* k, coll_plan_t* p)
{
    const size_t e = ghz_dtype_size(k->dtype);
    if (k->mv) {
        if (c->nccl && c->size > 1) {
            p->route = COLL_ROUTE_NCCL;
            p->algo = GHZ_ALGO_NCCL;
            return;
        }
        if (c->host && p->mode == COLL_EXACT && c->size > 1 && p->far && p->far <= c->small_bytes / e) {
            p->route = COLL_ROUTE_HOST;
            return;
        }
        p->algo = p->mode == COLL_EXACT && c->cfg.backend == GHZ_EXEC_CPU && c->size > 1 && p->far <= INT_MAX &&
                          p->extent * e <= c->mpi_max
                      ? GHZ_ALGO_MPI
                  : k->mv->choose ? k->mv->choose(c, k, p->mode, p->extent)
                                  : k->mv->algo;
        p->route = c->size == 1 ? COLL_ROUTE_SELF : p->algo == GHZ_ALGO_MPI ? COLL_ROUTE_MPI : COLL_ROUTE_ROUNDS;
        if (p->route == COLL_ROUTE_ROUNDS && k->mv->settle) {
            const size_t piece = coll_piece_elems(c, p->mode, e);
            const int staged = c->be.staged || (k->mv->in_place_shared && k->in_place);
            p->algo = k->mv->settle(c, p->algo, p->extent,
                                    coll_round_window(c, k, p->algo, p->mode, staged, piece), piece);
        }
        return;
    }
    if (k->count == 0) p->route = COLL_ROUTE_NONE;
    else if (c->size == 1 && !c->nccl) p->route = COLL_ROUTE_SELF;
    else if (c->nccl && p->mode == COLL_EXACT && nccl_exact_takes(c, k)) p->route = COLL_ROUTE_NCCL;
    else if (!c->nccl && coll_host_path_takes(c, k, p->mode)) p->route = COLL_ROUTE_HOST;
    else if (coll_two_level_algo(p->algo)) p->route = COLL_ROUTE_TWO_LEVEL;
    else if (p->algo == GHZ_ALGO_MPI) p->route = COLL_ROUTE_MPI;
    else p->route = COLL_ROUTE_ROUNDS;
}

/* Exact still has to fit a lossy call's bound (but over NCCL, which scans no range then). */
static ghz_status_t plan_reduce(const ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre,
                                const coll_agreed_t* all, coll_plan_t* p)
{
    coll_budget_t budget = {0.0, 0.0, 0.0, 1};
    coll_budget_in_t bi = {k->dtype, k->op, c->size, k->a.mode, k->a.bound, all->have_range, all->vmin, all->vmax, 0.0};
    ghz_status_t st;
    p->mode = !pre->lossy ? COLL_EXACT
              : c->nccl   ? (pre->compress ? COLL_HOMO : COLL_EXACT)
                          : coll_lossy_mode(c, k, all->ratio_seen);
    p->algo = coll_choose_algo(c, k, p->mode);
    st = coll_check_algo(c, k, p->algo, p->mode);
    if (st == GHZ_SUCCESS && c->be.capturing && c->size > 1 && !c->nccl && p->algo != GHZ_ALGO_IPC_DIRECT)
        st = ghz_fail(GHZ_ERR_UNSUPPORTED, "CUDA-graph capture: %s cannot be captured", ghz_algo_name(p->algo));
    if (st != GHZ_SUCCESS || !pre->lossy) return st;
    if (c->nccl && p->mode == COLL_EXACT) {
        p->bound_abs = k->a.mode == GHZ_EB_ABS ? k->a.bound : 0.0; /* REL: not scanned where exact */
        return GHZ_SUCCESS;
    }
    bi.terms = coll_two_level_algo(p->algo) ? coll_two_level_terms(c, p->mode, k->op)
               : p->mode == COLL_EXACT      ? 0.0
                                            : coll_error_terms(p->algo, p->mode, k->op, c->size, k->ops->final_wire,
                                                               c->be.has_sum_n);
    st = coll_derive_eb(&bi, &budget);
    if (st != GHZ_SUCCESS) return st;
    if (budget.exact) p->mode = COLL_EXACT;
    p->eb = budget.eb;
    p->bound_abs = budget.bound_abs;
    p->terms = p->mode == COLL_EXACT ? 0.0 : bi.terms;
    if (c->nccl && p->mode == COLL_EXACT && coll_two_level_algo(p->algo)) p->algo = GHZ_ALGO_NCCL;
    return GHZ_SUCCESS;
}

/* E = B, one error term (COLL.md, Data movement); 2B must be finite for the codec. */
static ghz_status_t plan_move(const ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre,
                              const coll_agreed_t* all, coll_plan_t* p)
{
    const size_t e = ghz_dtype_size(k->dtype);
    double B = 0.0;
    ghz_status_t st;
    p->mode = COLL_EXACT;
    /* (uniform: from the count, which an unchecked call does not agree) */
    p->extent = k->v ? (size_t)all->most[0] : k->count;
    p->far = k->v                                       ? (size_t)all->most[1]
             : k->count <= (size_t)(INT_MAX / c->size) ? k->count * (size_t)c->size
                                                        : SIZE_MAX;
    if (k->acc) {
        st = coll_abs_bound(k->a.mode, k->a.bound, all->have_range, all->vmin, all->vmax, &B);
        if (st == GHZ_SUCCESS && !isfinite(2 * B))
            st = ghz_fail(GHZ_ERR_BAD_BOUND, "bound %g over the range [%g, %g] is not usable", k->a.bound, all->vmin,
                          all->vmax);
        if (st != GHZ_SUCCESS) return st;
        if (B > 0.0) p->mode = COLL_HOMO;
        if (k->a.path == GHZ_PATH_AUTO && !coll_auto_compresses(c, move_bytes(c, p->extent * e))) p->mode = COLL_EXACT;
        p->ratio_frames = p->mode != COLL_EXACT && pre->ratio;
        p->bound_abs = B;
        p->terms = p->mode == COLL_EXACT ? 0.0 : 1.0;
    }
    p->eb = B;
    return GHZ_SUCCESS;
}

ghz_status_t coll_plan(const ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre, const coll_agreed_t* all,
                       coll_plan_t* p)
{
    ghz_status_t st;
    memset(p, 0, sizeof *p);
    st = k->mv ? plan_move(c, k, pre, all, p) : plan_reduce(c, k, pre, all, p);
    if (st == GHZ_SUCCESS) coll_plan_route(c, k, p);
    return st;
}
