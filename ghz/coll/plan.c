/* ghz/coll/plan.c: the planner of every call: what it does before its agreement, and
 * from agreed inputs only its mode (exact or compressed), algorithm, route (transport
 * or path) and error budget (detail/plan.h). Every input of coll_plan is the same on
 * every rank, so every rank plans alike without a message. */
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

static int two_level(ghz_algo_t a)
{
    return a == GHZ_ALGO_TWO_LEVEL || a == GHZ_ALGO_TWO_LEVEL_MULTI;
}

/* AUTO's choice between compressing a lossy call and running it exact: a cost table of
 * two rows and its argmin, whose entries are the calibrated rule's (auto_rule.h), in
 * units of the link's time per byte (t1, measured at init, which scales both rows
 * alike). Exact, S bytes per rank cost S. Compressed, they cost S / r on the link (r: the
 * ratio assumed) plus the fixed and codec costs that the threshold S_min frozen at init
 * prices: what compression saves there, (1 - 1/r) S_min; so the compressed row wins
 * from S_min on (ties go to it, the first row). It is no candidate where no threshold
 * was frozen (SIZE_MAX: never), where the smallest ratio of the last call (`ratio`, 0:
 * none) did not pay (every RATIO_RETRY-th lossy call compresses anyway, to measure
 * again). Where the table compresses but the call's algorithm cannot (a forced one),
 * AUTO runs exact: whether a call succeeds must not depend on the threshold, which a
 * measurement set (coll_lossy_mode). */
static int auto_compresses(const ghz_comm_t* c, size_t S, double ratio)
{
    const double r = coll_auto_costs(c->cfg.backend).ratio;
    const int ratio_pays = !(ratio > 0.0 && ratio < AUTO_MIN_RATIO && c->lossy_calls % RATIO_RETRY != 0);
    coll_cost_row_t rows[2];
    rows[0].mode = COLL_HOMO;
    rows[0].algo = GHZ_ALGO_AUTO;
    rows[0].cost = c->auto_min == SIZE_MAX || !ratio_pays
                       ? INFINITY
                       : (double)S / r + (1.0 - 1.0 / r) * (double)c->auto_min;
    rows[1].mode = COLL_EXACT;
    rows[1].algo = GHZ_ALGO_AUTO;
    rows[1].cost = (double)S;
    return rows[coll_argmin(rows, 2)].mode != COLL_EXACT;
}

int coll_auto_compresses(const ghz_comm_t* c, size_t bytes)
{
    return auto_compresses(c, bytes, 0.0);
}

/* A data-movement call's bytes for AUTO's table: a rank moves a block to or from every
 * other rank, about as many bytes as an allreduce of N / 2 blocks, and its compressed
 * path has fewer fixed costs a round (over NCCL one host wait where the allreduce pays
 * three), so it is weighed as an allreduce of N blocks: its crossover comes at about
 * half the size (docs/RESULTS-coll.md). */
static size_t move_bytes(const ghz_comm_t* c, size_t block_bytes)
{
    const size_t N = (size_t)c->size;
    return block_bytes > SIZE_MAX / N ? SIZE_MAX : block_bytes * N;
}

/* A lossy AUTO call below the threshold fixed at init: it runs exact on every rank,
 * decided by agreed fields alone (size and path). */
static int coll_auto_small(const ghz_comm_t* c, const coll_desc_t* k)
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
static int coll_host_path_takes(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode)
{
    const size_t limit = coll_auto_small(c, k) ? c->small_auto_bytes : c->small_bytes;
    return c->host && mode == COLL_EXACT && coll_configured_algo(c, k) == GHZ_ALGO_AUTO && !c->be.capturing &&
           k->total * ghz_dtype_size(k->dtype) <= limit;
}

/* Where the host path copies a call's input: an allreduce runs in place in small_out
 * (its result's buffer), where the CPU ring combines its last step straight into the
 * result (algo_ring.c) and MPI_IN_PLACE-like calls save a copy; the others from
 * small_in. */
unsigned char* coll_host_in(const ghz_comm_t* c, const coll_desc_t* k)
{
    return k->ops->host_in_out ? c->small_out : c->small_in;
}

/* The mode of a lossy call: its path's, exact where AUTO finds compressing cannot pay
 * (the size fixed at init, or the smallest ratio `ratio` of the last call). */
static coll_mode_t coll_lossy_mode(const ghz_comm_t* c, const coll_desc_t* k, double ratio)
{
    /* (over NCCL, HOMO and DOC are the same bytes: the n-ary sum is DOC's left fold) */
    const coll_mode_t m = k->a.path == GHZ_PATH_DOC && !c->nccl ? COLL_DOC : COLL_HOMO;
    const size_t S = k->total * ghz_dtype_size(k->dtype);
    if (k->a.path != GHZ_PATH_AUTO) return m;
    /* (the algorithm's check only where the table would compress) */
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
        /* (over NCCL, a uniform lossy AUTO call that the calibrated size runs exact needs
         * no range: every rank decides it from the count alone, which the agreement
         * checks) */
        const int auto_exact = c->nccl && !k->v && pre->lossy && k->a.path == GHZ_PATH_AUTO &&
                               !coll_auto_compresses(c, move_bytes(c, k->count * e));
        pre->ranged = pre->lossy && !auto_exact;
        pre->agree = pre->lossy || k->v || c->cfg.check_args;
        return;
    }
    if (c->nccl) {
        /* A lossy call that AUTO runs exact is NCCL's exact call, its only error the
         * rounding of the sum, with no range scan (so a REL bound is not checked against
         * the data there; COLL.md, NCCL); the last ratio is the same on every rank. */
        pre->compress = checked && pre->lossy && coll_lossy_mode(c, k, c->last_ratio) != COLL_EXACT;
        pre->ranged = pre->compress;
        pre->agree = pre->compress || c->cfg.check_args;
        return;
    }
    /* A call that will run exact stages its input for the host path now, when it will
     * take that path, so that the agreement carries the copy's status (and the host path
     * needs no second agreement where every rank did): an exact call, and a lossy AUTO
     * call below the threshold (one that the ratio rule runs exact after the agreement
     * takes the second agreement instead). A lossy call's range then costs no second
     * synchronisation (which would wait for the previous call's kernels): with a GPU per
     * rank the range kernel makes the copy (from 64 KiB; the host scans smaller ones:
     * comm_make.c, STAGED_RANGE_GPU_MIN); where ranks share a GPU, whose every kernel costs a
     * time slice (one H100, two ranks: 265-290 us for the GPU scan and its wait at any
     * size), the host copy is scanned (16 GB/s a core, a team of up to 4 from 1 MiB:
     * codec/range.c, comm_make.c make_host). */
    pre->ranged = pre->lossy;
    pre->agree = pre->lossy || c->cfg.check_args;
    pre->copied = checked && k->count > 0 && c->size > 1 && (pre->lossy ? coll_auto_small(c, k) : c->cfg.check_args) &&
                  coll_host_path_takes(c, k, COLL_EXACT);
    pre->range_in_copy = pre->copied && pre->lossy && k->total * e >= c->staged_range_gpu_min;
}

/* Why this rank's call cannot be captured into a CUDA graph (NULL: it can), decided
 * before anything is enqueued and carried to the peers by the agreement. A replay runs
 * only stream work, so what may be captured is what needs nothing from the host
 * between its kernels: an exact allreduce or reduce-scatter by the direct algorithm
 * over CUDA IPC, whose fences then wait on the GPU (transport.h, graph_status), NCCL's
 * own exact calls, or any exact call of one rank (a copy). The lossy paths read
 * statuses, frame sizes and the value range on the host; the message-passing algorithms
 * synchronise per message. */
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

/* Whether NCCL's own exact call takes the buffers: in place is in == out (reduce_scatter:
 * out at this rank's block of in), anything else must not overlap. MPI_IN_PLACE's
 * reduce_scatter (result at the start of the input) goes to the fold instead. */
static int nccl_takes_buffers(const ghz_comm_t* c, const coll_desc_t* k)
{
    const size_t e = ghz_dtype_size(k->dtype), in_bytes = k->total * e, out_bytes = k->count * e;
    const unsigned char *in = k->in, *out = k->out;
    if (!out || in == out) return !k->ops->per_rank || c->rank == 0;
    if (k->ops->per_rank && out == in + (size_t)c->rank * out_bytes) return 1;
    return out + out_bytes <= in || in + in_bytes <= out;
}

static int nccl_exact_takes(const ghz_comm_t* c, const coll_desc_t* k)
{
#ifdef GHZ_WITH_NCCL
    return !coll_nccl_exact_refusal(k->dtype, k->op) && nccl_takes_buffers(c, k);
#else
    (void)nccl_takes_buffers;
    (void)c;
    (void)k;
    return 0;
#endif
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
        /* the algorithm's shape once the round's window is known (the broadcast's chain);
         * coll_proto_init's piece and staging */
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
    else if (two_level(p->algo)) p->route = COLL_ROUTE_TWO_LEVEL;
    else if (p->algo == GHZ_ALGO_MPI) p->route = COLL_ROUTE_MPI;
    else p->route = COLL_ROUTE_ROUNDS;
}

/* A reduction: the mode (the path's, or AUTO's), the algorithm, and the error budget
 * (bound.h): K of the algorithm in that mode (two levels: of the stage across nodes,
 * over the node count), E for every compression. Exact still has to fit a lossy call's
 * bound: its rounding is inside the same allowance (but over NCCL, where a lossy call
 * that runs exact scans no range). */
static ghz_status_t plan_reduce(const ghz_comm_t* c, const coll_desc_t* k, const coll_pre_t* pre,
                                const coll_agreed_t* all, coll_plan_t* p)
{
    coll_budget_t budget = {0.0, 0.0, 0.0, 1};
    coll_budget_in_t bi;
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
    memset(&bi, 0, sizeof bi);
    bi.dtype = k->dtype;
    bi.op = k->op;
    bi.nranks = c->size;
    bi.mode = k->a.mode;
    bi.bound = k->a.bound;
    bi.have_range = all->have_range;
    bi.vmin = all->vmin;
    bi.vmax = all->vmax;
    bi.terms = two_level(p->algo)         ? coll_two_level_terms(c, p->mode, k->op)
               : p->mode == COLL_EXACT ? 0.0
                                       : coll_error_terms(p->algo, p->mode, k->op, c->size, k->ops->final_wire,
                                                          c->be.has_sum_n);
    st = coll_derive_eb(&bi, &budget);
    if (st != GHZ_SUCCESS) return st;
    if (budget.exact) p->mode = COLL_EXACT;
    p->eb = budget.eb;
    p->bound_abs = budget.bound_abs;
    p->terms = p->mode == COLL_EXACT ? 0.0 : bi.terms;
    /* an exact call over NCCL is NCCL's own (NCCL runs its own hierarchy) */
    if (c->nccl && p->mode == COLL_EXACT && two_level(p->algo)) p->algo = GHZ_ALGO_NCCL;
    return GHZ_SUCCESS;
}

/* A data movement: a value is compressed once and never combined (E = B, one error
 * term; COLL.md, Data movement). The reductions' reading of the bound: a REL bound over
 * fill values is refused, and 2B must be finite too for the codec. B = 0 (REL over a
 * constant field or no finite value): only exact will do. AUTO: by the size fixed at
 * init, by what a rank moves. */
static ghz_status_t plan_move(const ghz_comm_t* c, const coll_desc_t* k, const coll_agreed_t* all, coll_plan_t* p)
{
    const size_t e = ghz_dtype_size(k->dtype);
    double B = 0.0;
    ghz_status_t st;
    p->mode = COLL_EXACT;
    /* every rank's block lengths, uniform or checked pair by pair (the uniform forms'
     * from the count itself, which an unchecked call does not agree) */
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
    st = k->mv ? plan_move(c, k, all, p) : plan_reduce(c, k, pre, all, p);
    if (st == GHZ_SUCCESS) coll_plan_route(c, k, p);
    return st;
}
