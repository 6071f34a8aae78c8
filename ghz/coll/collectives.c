/* ghz/coll/collectives.c: a reduction's call (ghz_allreduce, ghz_reduce,
 * ghz_reduce_scatter: reduce_entry.c).
 *
 * Every call: check this rank's arguments (reduce_entry.c); for a lossy call, scan the
 * local value range; agree with every rank in one small allreduce (agree.c); derive the
 * per-compression bound E (bound.c); choose the algorithm and mode (reduce_choose.c); run
 * it in rounds that fit the pool (reduce_rounds.c, two_level.c, or the host path:
 * host_path.c); scale for AVG. Over NCCL: nccl/reduce_nccl.c. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ghz/coll/detail/auto_rule.h"
#include "ghz/coll/detail/reduce_call.h"
#include "ghz/detail/error.h"

/* Why this rank's call cannot be captured into a CUDA graph (NULL: it can), decided
 * before anything is enqueued and carried to the peers by the agreement. A replay runs
 * only stream work, so what may be captured is what needs nothing from the host
 * between its kernels: an exact allreduce or reduce-scatter by the direct algorithm
 * over CUDA IPC, whose fences then wait on the GPU (transport.h, graph_status), or any
 * exact call of one rank (a copy). The lossy paths read statuses, frame sizes and the
 * value range on the host; the message-passing algorithms synchronise per message. */
static const char* capture_refusal(const ghz_comm_t* c, const call_t* k, int lossy)
{
    const ghz_algo_t a = coll_configured_algo(c, k);
    if (lossy) return "a lossy collective reads statuses, sizes and the value range on the host";
    if (!k->ops->capturable)
        return "only allreduce and reduce_scatter can be captured";
    if (c->size == 1) return NULL;
    if (!c->tp.fence || !c->tp.graph_status) return "a captured collective needs the CUDA IPC transport";
    if (a != GHZ_ALGO_AUTO && a != GHZ_ALGO_IPC_DIRECT)
        return "a captured collective runs ipc_direct only (the algorithm is forced to another)";
    return NULL;
}

/* The agreed inputs of a lossy call's error budget (bound.h), but K. */
coll_budget_in_t coll_budget_in(const ghz_comm_t* c, const call_t* k, const coll_agreed_t* all)
{
    coll_budget_in_t bi;
    memset(&bi, 0, sizeof bi);
    bi.dtype = k->dtype;
    bi.op = k->op;
    bi.nranks = c->size;
    bi.mode = k->a.mode;
    bi.bound = k->a.bound;
    bi.have_range = all->have_range;
    bi.vmin = all->vmin;
    bi.vmax = all->vmax;
    return bi;
}

/* The fields of a call that every rank must pass alike (agree.h). */
void coll_agreed_fields(const ghz_comm_t* c, const call_t* k, ghz_status_t st, coll_call_t* mine)
{
    mine->field[AGREE_KIND] = k->kind;
    mine->field[AGREE_COUNT] = (int64_t)k->count;
    mine->field[AGREE_DTYPE] = k->dtype;
    mine->field[AGREE_OP] = k->op;
    mine->field[AGREE_ROOT] = k->ops->rooted ? k->root : 0;
    mine->field[AGREE_LOSSY] = k->acc != NULL;
    mine->field[AGREE_CAPTURE] = c->be.capturing;
    if (k->acc && st == GHZ_SUCCESS) {
        mine->field[AGREE_MODE] = k->a.mode;
        memcpy(&mine->field[AGREE_BOUND], &k->a.bound, sizeof(double));
        mine->field[AGREE_PATH] = k->a.path;
    }
}

static ghz_status_t run_call(ghz_comm_t* c, call_t* k)
{
    ghz_status_t st = GHZ_SUCCESS;
    coll_call_t mine;
    coll_agreed_t all;
    coll_budget_t budget = {0.0, 0.0, 0.0, 1};
    coll_mode_t mode = COLL_EXACT;
    ghz_algo_t algo;
    coll_round_t proto;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    uint64_t rounds = 0;
    const size_t elem = ghz_dtype_size(k->dtype);
    double t_call = MPI_Wtime();
    double t_copied = 0.0, t_range = 0.0, t_agreed = 0.0;
    int lossy, copied, range_in_copy;

    ghz_clear_detail();
    if (!c) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL communicator");
    memset(&mine, 0, sizeof mine);
    st = coll_call_start(c, k);
    lossy = k->acc != NULL;
    /* the input must be ready before any backend work reads it */
    if (st == GHZ_SUCCESS) st = c->be.begin(&c->be, k->stream);
    if (st == GHZ_SUCCESS && c->be.capturing) {
        const char* why = capture_refusal(c, k, lossy);
        if (why) st = ghz_fail(GHZ_ERR_UNSUPPORTED, "CUDA-graph capture: %s", why);
    }
    /* A call that will run exact stages its input for the host path now, when it will
     * take that path, so that the agreement carries the copy's status (and host_path
     * needs no second agreement where every rank did): an exact call, and a lossy AUTO
     * call below the threshold (one that the ratio rule runs exact after the agreement
     * takes the second agreement instead). A lossy call's range
     * then costs no second synchronisation (which would wait for the previous call's
     * kernels): with a GPU per rank the range kernel makes the copy (from 64 KiB; the
     * host scans smaller ones: comm.c, STAGED_RANGE_GPU_MIN); where ranks
     * share a GPU, whose every kernel costs a time slice (one H100, two ranks, session
     * 15: 265-290 us for the GPU scan and its wait at any size), the host copy is scanned
     * (16 GB/s a core, a team of up to 4 from 1 MiB: codec/range.c, comm.c make_host). */
    copied = st == GHZ_SUCCESS && k->count > 0 && c->size > 1 &&
             (lossy ? coll_auto_small(c, k) : c->cfg.check_args) && coll_host_path_takes(c, k, COLL_EXACT);
    range_in_copy = copied && lossy && k->total * elem >= c->staged_range_gpu_min;
    if (copied && !range_in_copy && st == GHZ_SUCCESS) {
        double t0 = MPI_Wtime();
        st = c->be.copy(&c->be, coll_host_in(c, k), k->in, k->total * elem);
        t_copied = MPI_Wtime() - t0;
    }
    if (st == GHZ_SUCCESS && lossy && k->count > 0) {
        /* reduce_scatter's input is every rank's whole buffer */
        double lo = NAN, hi = NAN;
        t_range = MPI_Wtime();
        if (copied && !range_in_copy)
            st = c->host->be.range(&c->host->be, coll_host_in(c, k), k->total, k->dtype, NULL, &lo, &hi,
                                   &mine.nonfinite);
        else
            st = c->be.range(&c->be, k->in, k->total, k->dtype, range_in_copy ? coll_host_in(c, k) : NULL, &lo, &hi,
                             &mine.nonfinite);
        t_range = MPI_Wtime() - t_range;
        if (range_in_copy) t_copied = t_range; /* (the copy's time, with the kernel) */
        mine.have_range = !isnan(lo);
        mine.vmin = lo;
        mine.vmax = hi;
    }
    mine.status = st;
    mine.staged = copied && st == GHZ_SUCCESS;
    mine.ranged = lossy;
    mine.ratio_seen = c->last_ratio;
    coll_agreed_fields(c, k, st, &mine);
    memset(&all, 0, sizeof all);
    if (lossy || c->cfg.check_args) {
        st = coll_agree(c, &mine, &all);
    } else if (st != GHZ_SUCCESS) {
        return st; /* unchecked: peers may wait (COLL.md, Errors) */
    }
    if (st != GHZ_SUCCESS) return st;
    t_agreed = MPI_Wtime() - t_call;

    if (lossy) {
        /* mode: what the path asks for, or exact where compressing cannot pay */
        size_t bytes = k->total * elem;
        mode = k->a.path == GHZ_PATH_DOC ? COLL_DOC : COLL_HOMO;
        if (k->a.path == GHZ_PATH_AUTO &&
            (!coll_auto_compresses(c, bytes) ||
             (all.ratio_seen > 0.0 && all.ratio_seen < AUTO_MIN_RATIO && c->lossy_calls % RATIO_RETRY != 0)))
            mode = COLL_EXACT;
        /* (where a forced algorithm cannot compress, AUTO runs exact: whether a call
         * succeeds must not depend on the threshold, which a measurement set) */
        if (k->a.path == GHZ_PATH_AUTO && mode != COLL_EXACT &&
            coll_check_algo(c, k, coll_choose_algo(c, k, mode), mode) != GHZ_SUCCESS)
            mode = COLL_EXACT;
        if (k->a.path == GHZ_PATH_AUTO && c->auto_trace && c->rank == 0)
            fprintf(stderr,
                    "ghz auto: %zu bytes: %s (compresses from %zu bytes; last ratio %.2f; staged %d, every rank %d; "
                    "this call's copy %.1f us, range %.1f us, agreed after %.1f us)\n",
                    bytes, mode == COLL_EXACT ? "exact" : "compressed", c->auto_min, all.ratio_seen, copied,
                    all.staged, t_copied * 1e6, t_range * 1e6, (MPI_Wtime() - t_call) * 1e6);
    }
    algo = coll_choose_algo(c, k, mode);
    st = coll_check_algo(c, k, algo, mode);
    if (st == GHZ_SUCCESS && c->be.capturing && c->size > 1 && algo != GHZ_ALGO_IPC_DIRECT)
        st = ghz_fail(GHZ_ERR_UNSUPPORTED, "CUDA-graph capture: %s cannot be captured", ghz_algo_name(algo));
    if (st == GHZ_SUCCESS && lossy) {
        coll_budget_in_t bi = coll_budget_in(c, k, &all);
        /* two levels: only the stage across nodes compresses, over c->nodes ranks */
        if (algo == GHZ_ALGO_TWO_LEVEL || algo == GHZ_ALGO_TWO_LEVEL_MULTI)
            bi.terms = coll_two_level_terms(c, mode, k->op);
        else
            bi.terms = mode == COLL_EXACT ? 0.0
                                          : coll_error_terms(algo, mode, k->op, c->size,
                                                             k->ops->final_wire, c->be.has_sum_n);
        /* Exact still has to fit: its rounding is inside the same allowance. */
        st = coll_derive_eb(&bi, &budget);
        if (st == GHZ_SUCCESS && mode == COLL_EXACT) budget.exact = 1;
        if (st == GHZ_SUCCESS && budget.exact) mode = COLL_EXACT;
        info.bound_abs = budget.bound_abs;
        info.eb_abs = mode == COLL_EXACT ? 0.0 : budget.eb;
        info.error_terms = mode == COLL_EXACT ? 0.0 : bi.terms;
    }
    /* Every input of these decisions was agreed, so every rank decided alike. */
    if (st != GHZ_SUCCESS) return st;
    /* A two-level call's children are made before anything moves (collectively, the
     * outcome agreed over c): where they cannot be, the call fails on every rank and the
     * communicator stays whole, so that a later call can make them. */
    if ((algo == GHZ_ALGO_TWO_LEVEL || algo == GHZ_ALGO_TWO_LEVEL_MULTI) && k->count > 0) {
        st = coll_comm_levels(c);
        if (st != GHZ_SUCCESS) return st;
    }
    c->moving = 1;
    if (k->count == 0) {
        info.algo = algo;
        c->info = info;
        return GHZ_SUCCESS;
    }
    if (c->size == 1) {
        /* One rank: the result is the input (AVG: divided by 1, exactly). */
        if (k->out && k->out != k->in) st = c->be.copy(&c->be, k->out, k->in, k->count * elem);
        if (st != GHZ_SUCCESS) return st;
        /* (reduce_scatter with MPI_IN_PLACE: the block is already in place) */
        info.algo = algo;
        info.lossy = lossy;
        c->info = info;
        return GHZ_SUCCESS;
    }

    if (coll_host_path_takes(c, k, mode)) {
        double bound_abs = info.bound_abs;
        st = coll_host_path(c, k, copied, all.staged, t_copied, &info);
        if (st != GHZ_SUCCESS) return st;
        info.lossy = lossy;
        info.bound_abs = bound_abs;
        info.time_total = MPI_Wtime() - t_call;
        if (c->auto_trace > 1 && c->rank == 0)
            fprintf(stderr,
                    "ghz call: %zu bytes, %s, host path: copy %.1f, range %.1f, agreed at %.1f, "
                    "host call %.1f, copy back %.1f, total %.1f us\n",
                    k->total * elem, lossy ? "lossy" : "exact", t_copied * 1e6, t_range * 1e6,
                    t_agreed * 1e6, c->host->info.time_total * 1e6, (info.time_stage - t_copied) * 1e6,
                    info.time_total * 1e6);
        c->info = info;
        if (lossy) c->lossy_calls++;
        return GHZ_SUCCESS;
    }
    coll_proto_init(c, k, mode, budget.eb, &proto);
    {
        if (algo == GHZ_ALGO_TWO_LEVEL || algo == GHZ_ALGO_TWO_LEVEL_MULTI) {
            st = coll_two_level(c, k, mode, budget.eb, algo, &proto, NULL);
            rounds = 1;
        } else if (algo == GHZ_ALGO_MPI) {
            st = coll_mpi_allreduce(c, k, &proto);
            rounds = 1;
        } else {
            st = coll_run_rounds(c, k, &proto, algo, &rounds);
        }
        /* the whole call: checks, range scan and agreement included */
        info.time_total = MPI_Wtime() - t_call;
    }
    if (st == GHZ_SUCCESS && k->op == GHZ_OP_AVG && coll_has_out(c, k))
        st = c->be.scale(&c->be, k->out, k->count, k->dtype, 1.0 / c->size);
    if (st != GHZ_SUCCESS) return st;
    if (c->auto_trace > 1 && c->rank == 0 && (lossy || copied))
        fprintf(stderr,
                "ghz call: %zu bytes, %s, %s on the device: copy %.1f, range %.1f, agreed at %.1f, "
                "compress %.1f, combine %.1f, decompress %.1f, stage %.1f, total %.1f us\n",
                k->total * elem, lossy ? "lossy" : "exact", mode == COLL_EXACT ? "exact" : "compressed",
                t_copied * 1e6, t_range * 1e6, t_agreed * 1e6, proto.t_comp * 1e6,
                proto.t_comb * 1e6, proto.t_dec * 1e6, proto.t_stage * 1e6, info.time_total * 1e6);
    info.algo = algo;
    info.lossy = lossy;
    info.path = mode == COLL_HOMO ? GHZ_PATH_HOMO : mode == COLL_DOC ? GHZ_PATH_DOC : GHZ_PATH_AUTO;
    info.logical_bytes = proto.logical_bytes;
    info.wire_bytes = proto.wire_bytes;
    info.rounds = rounds;
    info.time_compress = proto.t_comp;
    info.time_combine = proto.t_comb;
    info.time_decompress = proto.t_dec;
    info.time_stage = proto.t_stage;
    c->info = info;
    if (lossy) {
        c->lossy_calls++;
        if (mode != COLL_EXACT && proto.wire_bytes > 0)
            c->last_ratio = (double)proto.logical_bytes / (double)proto.wire_bytes;
    }
    return GHZ_SUCCESS;
}

/* One call, ended by the failure rule (contract.c, coll_call_end). */
ghz_status_t coll_reduce_run(ghz_comm_t* c, call_t* k)
{
#ifdef GHZ_WITH_NCCL
    return coll_call_end(c, c && c->nccl ? coll_run_call_nccl(c, k) : run_call(c, k));
#else
    return coll_call_end(c, run_call(c, k));
#endif
}
