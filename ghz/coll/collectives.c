/* ghz/coll/collectives.c: ghz_allreduce, ghz_reduce and ghz_reduce_scatter.
 *
 * Every call: check this rank's arguments; for a lossy call, scan the local value
 * range; agree with every rank in one small allreduce (agree.c); derive the
 * per-compression bound E (bound.c); choose the algorithm and mode; run it in rounds
 * that fit the pool; scale for AVG. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ghz/codec/codec.h"
#include "ghz/coll/detail/agree.h"
#include "ghz/coll/detail/auto_path.h"
#include "ghz/coll/detail/bound.h"
#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/reduce_ops.h"
#ifdef GHZ_WITH_CUDA
#include "ghz/coll/detail/reduce_cuda.h"
#endif
#include "ghz/detail/error.h"

typedef enum {
    KIND_ALLREDUCE = 1,
    KIND_REDUCE = 2,
    KIND_REDUCE_SCATTER = 3,
    /* the stages of the two-level allreduce, on child communicators (never agreed:
     * the parent call was): a ring reduce-scatter and allgather over a balanced split of
     * the whole vector (rank s owns split s), and a binomial broadcast */
    KIND_RS_SPLIT = 4,
    KIND_AG_SPLIT = 5,
    KIND_BCAST = 6
} coll_kind_t;

typedef struct {
    coll_kind_t kind;
    const void* sendbuf;
    void* recvbuf;
    size_t count;          /* allreduce, reduce: elements; reduce_scatter: per rank */
    ghz_dtype_t dtype;
    ghz_op_t op;
    int root;
    const ghz_accuracy_t* acc;
    ghz_stream_t stream;
    /* resolved */
    const unsigned char* in;
    unsigned char* out;
    size_t total;          /* elements of the input */
    ghz_accuracy_t a;      /* the accuracy, read through struct_size */
} call_t;

/* Exact allreduce: recursive doubling below this many bytes per rank, ring above. */
#define AUTO_RECDBL_MAX_BYTES ((size_t)32 << 10)
/* Lossy calls whose agreed previous ratio is below this run exact; every
 * RATIO_RETRY-th lossy call compresses anyway, to measure again. Whether compressing
 * is faster than exact at the call's size is detail/auto_path.h's measured choice. */
#define AUTO_MIN_RATIO 1.15
#define RATIO_RETRY 8

/* A call's time, for GHZ_PATH_AUTO's choice at its size (the calls it chooses for:
 * COLL_AUTO_LOSSY_MIN_BYTES and more; a capture only enqueues, so its time says
 * nothing), kept until the next agreement (comm.h, auto_bytes), with the end of its
 * work marked: a call may return before its kernels end, and the next call that waits
 * for them adds that wait to this one's time (tail). Called last, when all its work
 * is enqueued. */
static ghz_status_t measured(ghz_comm_t* c, size_t bytes, coll_mode_t mode, int lossy, double seconds)
{
    if (bytes < COLL_AUTO_LOSSY_MIN_BYTES || c->be.capturing) return GHZ_SUCCESS;
    c->auto_bytes = bytes;
    c->auto_exact = mode == COLL_EXACT;
    c->auto_seconds = seconds;
    /* (an event per call costs a microsecond or two: only once lossy calls come) */
    return c->be.end_call && (lossy || c->lossy_calls) ? c->be.end_call(&c->be) : GHZ_SUCCESS;
}

/* Before a call that synchronises anyway, the wait for the last measured call's work
 * (measured), added to its time: else a compressed call, whose last kernels run after
 * it returns, would look faster than it is and charge them to the next call (and AUTO
 * would compress where it is slower). Returns the seconds waited. */
static double tail(ghz_comm_t* c, ghz_status_t* st)
{
    double t0, waited;
    if (*st != GHZ_SUCCESS || !c->auto_bytes || !c->be.wait_end) return 0.0;
    t0 = MPI_Wtime();
    *st = c->be.wait_end(&c->be);
    waited = MPI_Wtime() - t0;
    c->auto_seconds += waited;
    return waited;
}

/* The agreed time of the last measured call (the slowest rank's) into AUTO's classes:
 * every rank keeps the same times, so every rank's AUTO choice is the same without a
 * vote (auto_path.h). */
static void measured_agreed(ghz_comm_t* c, const coll_agreed_t* all)
{
    if (c->auto_bytes && all->prev_seconds >= 0.0)
        coll_auto_measured(&c->autop, c->auto_bytes, c->auto_exact, all->prev_seconds);
    c->auto_bytes = 0;
}

/* Whether an AUTO call of `bytes` is likely to run exact, before the agreement: the
 * choice with this rank's own time of the last call where the agreement will bring
 * the slowest rank's. */
static int auto_guess_exact(const ghz_comm_t* c, size_t bytes)
{
    coll_auto_t guess = c->autop;
    if (c->auto_bytes) coll_auto_measured(&guess, c->auto_bytes, c->auto_exact, c->auto_seconds);
    return coll_auto_runs_exact(&guess, bytes);
}

ghz_status_t coll_read_accuracy(const ghz_accuracy_t* acc, ghz_dtype_t dtype, ghz_accuracy_t* out)
{
    ghz_accuracy_t d = GHZ_ACCURACY_INIT;
    if (acc->struct_size < offsetof(ghz_accuracy_t, path) + sizeof(ghz_path_t) ||
        acc->struct_size > (size_t)1 << 16)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_accuracy_t.struct_size %zu: use GHZ_ACCURACY_INIT",
                        acc->struct_size);
    memcpy(&d, acc, sizeof d < acc->struct_size ? sizeof d : acc->struct_size);
    *out = d;
    if (d.mode != GHZ_EB_ABS && d.mode != GHZ_EB_REL)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown accuracy mode %d", (int)d.mode);
    if (!(d.bound > 0.0) || !isfinite(d.bound))
        return ghz_fail(GHZ_ERR_BAD_BOUND, "accuracy bound %g: must be finite and > 0", d.bound);
    if ((unsigned)d.path > GHZ_PATH_DOC)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown path %d", (int)d.path);
    if (dtype != GHZ_F32 && dtype != GHZ_F64)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "the lossy path takes float32 or float64, not %s",
                        ghz_dtype_name(dtype));
    return GHZ_SUCCESS;
}

static ghz_status_t read_accuracy(call_t* k)
{
    ghz_status_t st = coll_read_accuracy(k->acc, k->dtype, &k->a);
    if (st != GHZ_SUCCESS) return st;
    if (k->op != GHZ_OP_SUM && k->op != GHZ_OP_AVG && k->op != GHZ_OP_MIN && k->op != GHZ_OP_MAX)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "the lossy path takes sum, avg, min or max, not %s",
                        ghz_op_name(k->op));
    return GHZ_SUCCESS;
}

/* Whether the input [sendbuf, + total elements) and the output [recvbuf, + count
 * elements) share a byte, other than the in-place forms (NCCL's for reduce_scatter:
 * recvbuf at this rank's block of sendbuf). The algorithms read the input while they
 * write the output, so any other overlap would give wrong elements. */
static int overlap_not_in_place(const ghz_comm_t* c, const call_t* k, size_t elem)
{
    const uintptr_t in = (uintptr_t)k->sendbuf, out = (uintptr_t)k->recvbuf;
    const uintptr_t in_end = in + k->total * elem, out_end = out + k->count * elem;
    if (k->kind == KIND_REDUCE_SCATTER && out == in + (uintptr_t)c->rank * k->count * elem) return 0;
    return in < out_end && out < in_end;
}

/* This rank's own checks, and where input and output are. */
static ghz_status_t check_local(const ghz_comm_t* c, call_t* k)
{
    const size_t elem = ghz_dtype_size(k->dtype);
    const int in_place_mpi = k->sendbuf == MPI_IN_PLACE ||
                             (k->sendbuf == k->recvbuf && k->kind != KIND_REDUCE_SCATTER);
    const int needs_out = k->kind != KIND_REDUCE || c->rank == k->root;
    ghz_status_t st;
    if (!elem) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)k->dtype);
    st = ghz_coll_op_check(k->dtype, k->op);
    if (st != GHZ_SUCCESS) return st;
    if (k->acc && (st = read_accuracy(k)) != GHZ_SUCCESS) return st;
    if (k->kind == KIND_REDUCE && (k->root < 0 || k->root >= c->size))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "root %d of %d ranks", k->root, c->size);
    k->total = k->count;
    if (k->kind == KIND_REDUCE_SCATTER) {
        if (k->count > SIZE_MAX / (size_t)c->size)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "recvcount %zu times %d ranks overflows", k->count,
                            c->size);
        k->total = k->count * (size_t)c->size;
    }
    /* (a buffer's byte size must be a valid pointer difference) */
    if (k->total > (size_t)PTRDIFF_MAX / elem)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "count %zu of %s: the buffer would exceed PTRDIFF_MAX bytes", k->total,
                        ghz_dtype_name(k->dtype));
    if (k->count == 0) return GHZ_SUCCESS;
    if (needs_out && !k->recvbuf) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL recvbuf");
    if (!k->sendbuf) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL sendbuf");
    if (k->sendbuf == MPI_IN_PLACE && !needs_out)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_IN_PLACE on a non-root rank of a reduce");
    if (needs_out && k->sendbuf != MPI_IN_PLACE && !in_place_mpi && overlap_not_in_place(c, k, elem))
        return ghz_fail(GHZ_ERR_INVALID_ARG,
                        "sendbuf and recvbuf overlap without being in place (in place: MPI_IN_PLACE, sendbuf "
                        "== recvbuf%s)",
                        k->kind == KIND_REDUCE_SCATTER ? ", or recvbuf == sendbuf + rank * recvcount" : "");
    k->out = (unsigned char*)k->recvbuf;
    k->in = in_place_mpi && needs_out ? (const unsigned char*)k->recvbuf
                                      : (const unsigned char*)k->sendbuf;
    return GHZ_SUCCESS;
}

/* What every call does first: number it (the transport's messages carry the number),
 * check this rank's arguments, and refuse to move data on a broken communicator (a
 * checked call still meets the peers in the agreement, so that they return
 * GHZ_ERR_PEER instead of waiting). */
static ghz_status_t call_start(ghz_comm_t* c, call_t* k)
{
    ghz_status_t st;
    c->tp.seq = ++c->calls;
    c->moving = 0;
    st = check_local(c, k);
    if (st == GHZ_SUCCESS && c->broken != GHZ_SUCCESS)
        st = ghz_fail(c->broken,
                      "the communicator is broken: an earlier call failed after its data started to move (%s); "
                      "destroy it (ghz_comm_abort or ghz_comm_destroy)",
                      ghz_status_string(c->broken));
    return st;
}

typedef coll_need_fn need_fn;

size_t coll_fit_window(const ghz_comm_t* c, need_fn need, need_fn need2, coll_mode_t m, ghz_dtype_t t,
                       size_t piece)
{
    size_t lo = 0, hi = COLL_MAX_PIECES * piece;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        size_t bytes = need(c, m, t, mid, piece) + (need2 ? need2(c, m, t, mid, piece) : 0);
        if (bytes <= c->pool_bytes) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Whether GHZ_ALGO_IPC_DIRECT can run the call: a transport that maps the peers'
 * pools (CUDA IPC), and exact or the homomorphic sum (ghz/homo's n-ary sum takes at most
 * COLL_SUM_N_MAX inputs); NULL or the reason. */
static const char* direct_refusal(const ghz_comm_t* c, const call_t* k, coll_mode_t m)
{
#ifdef GHZ_WITH_CUDA
    if (!c->tp.fence || !c->tp.peer_pool) return "needs the CUDA IPC transport";
    if (m == COLL_EXACT) return NULL;
    if (m != COLL_HOMO) return "combines compressed data only (the homomorphic path)";
    if (k->op != GHZ_OP_SUM && k->op != GHZ_OP_AVG) return "combines compressed data by sums only (sum, avg)";
    if (c->size > COLL_SUM_N_MAX) return "sums at most 64 ranks' compressed data";
    return NULL;
#else
    (void)c;
    (void)k;
    (void)m;
    return "needs a CUDA build and the CUDA IPC transport";
#endif
}

MPI_Datatype coll_mpi_dtype(ghz_dtype_t dtype)
{
    switch (dtype) {
    case GHZ_F32: return MPI_FLOAT;
    case GHZ_F64: return MPI_DOUBLE;
    case GHZ_I8: return MPI_INT8_T;
    case GHZ_U8: return MPI_UINT8_T;
    case GHZ_I16: return MPI_INT16_T;
    case GHZ_U16: return MPI_UINT16_T;
    case GHZ_I32: return MPI_INT32_T;
    case GHZ_U32: return MPI_UINT32_T;
    case GHZ_I64: return MPI_INT64_T;
    case GHZ_U64: return MPI_UINT64_T;
    }
    return MPI_DATATYPE_NULL;
}

/* Why GHZ_ALGO_MPI cannot run the call (NULL: it can; then *dt and *op, when given, are
 * MPI's datatype and operation for it). It runs exact calls on the CPU backend, for the
 * ops whose rules MPI shares with ghz (reduce_ops.h): 32- and 64-bit integer ops wrap as
 * ghz's do (8- and 16-bit sums saturate in Open MPI 4.1's AVX op component: test_coll_mpi
 * caught it, open-mpi/ompi#8045 says it stays), the logical and bitwise ops agree, and
 * float sums and products are one IEEE operation each (in MPI's order, within the exact
 * path's (n + 2) u S of the true sum, like ghz's own algorithms); AVG is MPI's sum,
 * scaled by ghz as on every path. Float MIN and MAX are not MPI's: ghz defines the
 * result of a NaN operand (quieted NaN), MPI does not. */
static const char* mpi_refusal(const ghz_comm_t* c, const call_t* k, coll_mode_t m, MPI_Datatype* dt, MPI_Op* op)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Op o = MPI_OP_NULL;
    if (m != COLL_EXACT) return "runs exact calls only";
    if (c->cfg.backend != GHZ_EXEC_CPU)
        return "takes host buffers (a CUDA communicator's small exact calls reach it through the host path)";
    t = coll_mpi_dtype(k->dtype);
    if (t == MPI_DATATYPE_NULL) return "an unknown dtype";
    switch (k->op) {
    case GHZ_OP_SUM:
    case GHZ_OP_AVG: o = MPI_SUM; break;
    case GHZ_OP_PROD: o = MPI_PROD; break;
    case GHZ_OP_MAX: o = MPI_MAX; break;
    case GHZ_OP_MIN: o = MPI_MIN; break;
    case GHZ_OP_LAND: o = MPI_LAND; break;
    case GHZ_OP_LOR: o = MPI_LOR; break;
    case GHZ_OP_LXOR: o = MPI_LXOR; break;
    case GHZ_OP_BAND: o = MPI_BAND; break;
    case GHZ_OP_BOR: o = MPI_BOR; break;
    case GHZ_OP_BXOR: o = MPI_BXOR; break;
    default: return "an unknown op";
    }
    if ((k->op == GHZ_OP_MIN || k->op == GHZ_OP_MAX) && (k->dtype == GHZ_F32 || k->dtype == GHZ_F64))
        return "float min and max: a NaN operand's result is ghz's rule, not MPI's";
    if ((k->op == GHZ_OP_SUM || k->op == GHZ_OP_PROD) && ghz_dtype_size(k->dtype) <= 2)
        return "8- and 16-bit integer sums and products: Open MPI 4.1's AVX reductions saturate where "
               "ghz wraps (open-mpi/ompi#8045; seen here on 4.1.6)";
    if (dt) *dt = t;
    if (op) *op = o;
    return NULL;
}

/* GHZ_ALGO_MPI: MPI_Allreduce on the caller's buffers (MPI_IN_PLACE in place), in
 * pieces of at most 2^30 elements (MPI's counts are ints). */
static ghz_status_t mpi_allreduce(ghz_comm_t* c, const call_t* k, coll_round_t* proto)
{
    const size_t e = ghz_dtype_size(k->dtype), piece = (size_t)1 << 30;
    const int in_place = k->in == k->out;
    MPI_Datatype dt;
    MPI_Op op;
    size_t off;
    mpi_refusal(c, k, COLL_EXACT, &dt, &op); /* check_algo passed */
    for (off = 0; off < k->count; off += piece) {
        const size_t n = k->count - off < piece ? k->count - off : piece;
        const int rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : (const void*)(k->in + off * e), k->out + off * e,
                                     (int)n, dt, op, c->mpi);
        if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Allreduce (GHZ_ALGO_MPI)");
    }
    proto->logical_bytes = k->count * e; /* what this rank gave MPI; its traffic is MPI's */
    proto->wire_bytes = k->count * e;
    return GHZ_SUCCESS;
}

static ghz_algo_t configured_algo(const ghz_comm_t* c, const call_t* k);

static ghz_algo_t choose_algo(const ghz_comm_t* c, const call_t* k, coll_mode_t m)
{
    const size_t bytes = k->total * ghz_dtype_size(k->dtype);
    if (c->nccl && k->kind <= KIND_REDUCE_SCATTER) {
        const ghz_algo_t a = configured_algo(c, k);
        return a == GHZ_ALGO_AUTO ? GHZ_ALGO_NCCL : a;
    }
    switch (k->kind) {
    case KIND_ALLREDUCE:
        if (c->cfg.allreduce_algo != GHZ_ALGO_AUTO) return c->cfg.allreduce_algo;
        /* one node over CUDA IPC: the peers' memory is read directly, every size (the
         * messages of the other algorithms each wait for the GPU) */
        if (!direct_refusal(c, k, m) && !(c->levels && m != COLL_EXACT)) return GHZ_ALGO_IPC_DIRECT;
        if (m == COLL_EXACT && bytes <= c->mpi_max && !mpi_refusal(c, k, m, NULL, NULL)) return GHZ_ALGO_MPI;
        if (m == COLL_EXACT) return bytes <= AUTO_RECDBL_MAX_BYTES ? GHZ_ALGO_RECURSIVE_DOUBLING : GHZ_ALGO_RING;
        /* lossy over several nodes: compress only across nodes (K over the node count,
         * exact on the fast links inside a node), every local rank busy if nodes match */
        if (c->levels) return c->uniform_nodes ? GHZ_ALGO_TWO_LEVEL_MULTI : GHZ_ALGO_TWO_LEVEL;
        /* lossy: pairwise recompresses once (K = N+1 against the ring's 2N-1 for HOMO) */
        return c->size <= COLL_SUM_N_MAX ? GHZ_ALGO_PAIRWISE : GHZ_ALGO_RING;
    case KIND_REDUCE_SCATTER:
        if (c->cfg.reduce_scatter_algo != GHZ_ALGO_AUTO) return c->cfg.reduce_scatter_algo;
        if (!direct_refusal(c, k, m)) return GHZ_ALGO_IPC_DIRECT;
        return m != COLL_EXACT && c->size <= COLL_SUM_N_MAX ? GHZ_ALGO_PAIRWISE : GHZ_ALGO_RING;
    case KIND_REDUCE:
        return c->cfg.reduce_algo != GHZ_ALGO_AUTO ? c->cfg.reduce_algo : GHZ_ALGO_BINOMIAL;
    default: break; /* the two-level stages name their algorithm */
    }
    return GHZ_ALGO_AUTO;
}

static ghz_status_t check_algo(const ghz_comm_t* c, const call_t* k, ghz_algo_t a, coll_mode_t m)
{
    int ok = 0;
    if ((a == GHZ_ALGO_NCCL) != (c->nccl != NULL))
        return ghz_fail(GHZ_ERR_UNSUPPORTED, c->nccl ? "%s: the NCCL transport runs the nccl algorithm only"
                                                     : "%s needs the NCCL transport",
                        ghz_algo_name(a));
    if (a == GHZ_ALGO_NCCL) return GHZ_SUCCESS;
    switch (k->kind) {
    case KIND_ALLREDUCE:
        ok = a == GHZ_ALGO_RING || a == GHZ_ALGO_RECURSIVE_DOUBLING || a == GHZ_ALGO_PAIRWISE ||
             a == GHZ_ALGO_TWO_LEVEL || a == GHZ_ALGO_TWO_LEVEL_MULTI || a == GHZ_ALGO_IPC_DIRECT ||
             a == GHZ_ALGO_MPI;
        break;
    default: break;
    case KIND_REDUCE_SCATTER: ok = a == GHZ_ALGO_RING || a == GHZ_ALGO_PAIRWISE || a == GHZ_ALGO_IPC_DIRECT; break;
    case KIND_REDUCE: ok = a == GHZ_ALGO_BINOMIAL; break;
    }
    if (!ok)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "algorithm %s does not implement this collective",
                        ghz_algo_name(a));
    if ((a == GHZ_ALGO_TWO_LEVEL || a == GHZ_ALGO_TWO_LEVEL_MULTI) && !c->levels)
        return ghz_fail(GHZ_ERR_UNSUPPORTED,
                        "%s needs several nodes of several ranks (%d node(s) here; ranks_per_node sets them)",
                        ghz_algo_name(a), c->nodes);
    if (a == GHZ_ALGO_TWO_LEVEL_MULTI && !c->uniform_nodes)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "two_level_multi needs nodes of equal size");
    if (a == GHZ_ALGO_IPC_DIRECT) {
        const char* why = direct_refusal(c, k, m);
        if (why) return ghz_fail(GHZ_ERR_UNSUPPORTED, "ipc_direct %s", why);
    }
    if (a == GHZ_ALGO_MPI) {
        const char* why = mpi_refusal(c, k, m, NULL, NULL);
        if (why) return ghz_fail(GHZ_ERR_UNSUPPORTED, "mpi (MPI_Allreduce) %s", why);
    }
    if (a == GHZ_ALGO_PAIRWISE && m == COLL_HOMO && c->size > COLL_SUM_N_MAX)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "pairwise homomorphic sums take at most %d ranks",
                        COLL_SUM_N_MAX);

    return GHZ_SUCCESS;
}

/* Splits n elements into the communicator's segments, balanced. */
static void split(ghz_comm_t* c, size_t base, size_t n)
{
    const size_t N = (size_t)c->size, q = n / N, rem = n % N;
    size_t s, at = base;
    for (s = 0; s < N; s++) {
        c->seg_off[s] = at;
        c->seg_cnt[s] = q + (s < rem);
        at += c->seg_cnt[s];
    }
}

static ghz_status_t run_rounds(ghz_comm_t* c, const call_t* k, coll_round_t* proto, ghz_algo_t algo,
                               uint64_t* rounds)
{
    const size_t N = (size_t)c->size, e = proto->elem;
    need_fn need, need2 = NULL;
    size_t window, off = 0;
    switch (algo) {
    case GHZ_ALGO_RING: need = coll_ring_need; break;
    case GHZ_ALGO_PAIRWISE: need = coll_pairwise_need; break;
    case GHZ_ALGO_RECURSIVE_DOUBLING: need = coll_recdbl_need; break;
#ifdef GHZ_WITH_CUDA
    case GHZ_ALGO_IPC_DIRECT: need = coll_direct_need; break;
#endif
#ifdef GHZ_WITH_NCCL
    case GHZ_ALGO_NCCL: need = coll_nccl_need; break;
#endif
    default: need = coll_binomial_need; break;
    }
    if (k->kind == KIND_ALLREDUCE && (algo == GHZ_ALGO_RING || algo == GHZ_ALGO_PAIRWISE))
        need2 = coll_allgather_need;
    if (k->kind == KIND_AG_SPLIT) {
        need = coll_allgather_need;
        need2 = coll_bcast_need; /* a staged allgather also stages its own split */
    }
    if (k->kind == KIND_BCAST) need = coll_bcast_need;
    window = coll_fit_window(c, need, need2, proto->mode, k->dtype, proto->piece);
    if (window == 0)
        return ghz_fail(GHZ_ERR_NOMEM,
                        "pool_bytes %zu cannot hold one round of %s on %d ranks: configure a "
                        "larger pool",
                        c->pool_bytes, ghz_algo_name(algo), c->size);
    *rounds = 0;
    do {
        coll_round_t r = *proto;
        coll_pool_t pool = {c->pool, 0, c->pool_bytes, c->pool_raw, 0, c->pool_raw ? c->pool_bytes : 0};
        size_t w;
        r.wire_bytes = 0; /* per round; summed into proto below */
        r.logical_bytes = 0;
        r.t_comp = r.t_comb = r.t_dec = r.t_stage = r.t_xfer = 0.0;
        r.fin_sizes = c->wire_size + N * COLL_MAX_PIECES; /* rows < N: pieces per rank */
#ifdef GHZ_WITH_NCCL
        if (algo == GHZ_ALGO_NCCL) {
            /* the NCCL dataflow: segments of the vector (reduce_scatter: the ranks' blocks) */
            if (k->kind == KIND_REDUCE_SCATTER) {
                size_t s;
                w = k->count - off < window ? k->count - off : window;
                for (s = 0; s < N; s++) {
                    c->seg_off[s] = s * k->count + off;
                    c->seg_cnt[s] = w;
                }
                coll_nccl_reduce(&r, &pool, COLL_NCCL_REDUCE_SCATTER, k->out + off * e);
            } else {
                w = k->count - off < window * N ? k->count - off : window * N;
                split(c, off, w);
                r.out = k->out;
                coll_nccl_reduce(&r, &pool, k->kind == KIND_REDUCE ? COLL_NCCL_REDUCE : COLL_NCCL_ALLREDUCE, NULL);
            }
        } else
#endif
        if (k->kind == KIND_RS_SPLIT || k->kind == KIND_AG_SPLIT) {
            /* split s is [base_s, base_s + len_s) of the vector; this round covers
             * [off, off + w) of every split */
            const size_t q = k->count / N, rem = k->count % N, longest = q + (rem > 0);
            size_t s;
            w = longest - off < window ? longest - off : window;
            for (s = 0; s < N; s++) {
                size_t base = s * q + (s < rem ? s : rem), len = q + (s < rem);
                c->seg_off[s] = base + (off < len ? off : len);
                c->seg_cnt[s] = off < len ? (len - off < w ? len - off : w) : 0;
            }
            r.out = k->out;
            if (k->kind == KIND_RS_SPLIT) {
                coll_ring_reduce_scatter(&r, &pool, k->out + c->seg_off[c->rank] * e);
            } else {
                if (!coll_zero_copy(&r)) {
                    /* a staged allgather sends wire frames: stage this rank's split */
                    size_t j, n = c->seg_cnt[c->rank], kp = coll_pieces(n, r.piece);
                    r.fin = coll_pool_take(&pool, coll_seg_wire_cap(r.mode, r.dtype, window, r.piece) + 16);
                    if (!r.fin) coll_fail(&r, GHZ_ERR_NOMEM);
                    for (j = 0; j < kp; j++) {
                        size_t pc = coll_piece_n(&r, n, j);
                        r.fin_sizes[j] = pc ? coll_encode(&r, k->out + (c->seg_off[c->rank] + j * r.piece) * e, pc,
                                                          r.fin + coll_piece_wire_off(&r, j),
                                                          coll_piece_cap(&r, n, j))
                                            : 0;
                    }
                }
                coll_ring_allgather(&r, &pool);
            }
            r.logical_bytes = (N - 1) * w * e;
        } else if (k->kind == KIND_BCAST) {
            w = k->count - off < window ? k->count - off : window;
            r.out = k->out + off * e;
            r.count = w;
            coll_binomial_bcast(&r, &pool);
            r.logical_bytes = c->rank == k->root ? 0 : w * e;
        } else if (k->kind == KIND_REDUCE_SCATTER) {
            size_t s;
            w = k->count - off < window ? k->count - off : window;
            for (s = 0; s < N; s++) {
                c->seg_off[s] = s * k->count + off;
                c->seg_cnt[s] = w;
            }
            if (algo == GHZ_ALGO_RING) coll_ring_reduce_scatter(&r, &pool, k->out + off * e);
#ifdef GHZ_WITH_CUDA
            else if (algo == GHZ_ALGO_IPC_DIRECT)
                coll_direct_reduce(&r, &pool, 0, k->out + off * e); /* counts what the peers read */
#endif
            else coll_pairwise_reduce_scatter(&r, &pool, k->out + off * e);
            if (algo != GHZ_ALGO_IPC_DIRECT) r.logical_bytes = (N - 1) * w * e;
#ifdef GHZ_WITH_CUDA
        } else if (algo == GHZ_ALGO_IPC_DIRECT) {
            w = k->count - off < window * N ? k->count - off : window * N;
            split(c, off, w);
            r.out = k->out;
            coll_direct_reduce(&r, &pool, 1, NULL);
#endif
        } else if (algo == GHZ_ALGO_RING || algo == GHZ_ALGO_PAIRWISE) {
            w = k->count - off < window * N ? k->count - off : window * N;
            split(c, off, w);
            r.out = k->out;
            if (algo == GHZ_ALGO_RING) coll_ring_reduce_scatter(&r, &pool, k->out + c->seg_off[c->rank] * e);
            else coll_pairwise_reduce_scatter(&r, &pool, k->out + c->seg_off[c->rank] * e);
            coll_ring_allgather(&r, &pool);
            r.logical_bytes = 2 * (w - c->seg_cnt[c->rank]) * e;
        } else {
            w = k->count - off < window ? k->count - off : window;
            r.in = k->in + off * e;
            r.out = k->out ? k->out + off * e : NULL;
            r.count = w;
            if (algo == GHZ_ALGO_RECURSIVE_DOUBLING) {
                int steps = 0, P = 1;
                while (P * 2 <= c->size) {
                    P *= 2;
                    steps++;
                }
                coll_recdbl_allreduce(&r, &pool);
                r.logical_bytes = (uint64_t)(steps + (c->rank < 2 * (c->size - P))) * w * e;
            } else {
                coll_binomial_reduce(&r, &pool);
                r.logical_bytes = c->rank == k->root ? 0 : w * e;
            }
        }
        proto->wire_bytes += r.wire_bytes;
        proto->logical_bytes += r.logical_bytes;
        proto->t_comp += r.t_comp;
        proto->t_comb += r.t_comb;
        proto->t_dec += r.t_dec;
        proto->t_stage += r.t_stage;
        proto->t_xfer += r.t_xfer;
        ++*rounds;
        if (r.st != GHZ_SUCCESS) {
            if (r.st == GHZ_ERR_PEER)
                return ghz_fail(GHZ_ERR_PEER, "another rank failed during the %s", ghz_algo_name(algo));
            return r.st; /* detail set where it failed */
        }
        off += w;
    } while (off < (k->kind == KIND_RS_SPLIT || k->kind == KIND_AG_SPLIT
                        ? k->count / N + (k->count % N > 0)
                        : k->count));
    return GHZ_SUCCESS;
}

/* The arguments of a call, as the entry points receive them. */
static call_t make_call(coll_kind_t kind, const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                        ghz_op_t op, int root, const ghz_accuracy_t* acc, ghz_stream_t stream)
{
    call_t k;
    memset(&k, 0, sizeof k);
    k.kind = kind;
    k.sendbuf = sendbuf;
    k.recvbuf = recvbuf;
    k.count = count;
    k.dtype = dtype;
    k.op = op;
    k.root = root;
    k.acc = acc;
    k.stream = stream;
    return k;
}

size_t coll_piece_elems(const ghz_comm_t* c, coll_mode_t m, size_t elem)
{
    size_t piece = c->cfg.chunk_bytes / elem;
    if (m != COLL_EXACT && piece >= GHZ_BLOCK_ELEMS) piece -= piece % GHZ_BLOCK_ELEMS;
    return piece ? piece : 1;
}

/* The round prototype of a call: what every round of it shares. */
static void proto_init(ghz_comm_t* c, const call_t* k, coll_mode_t mode, double eb, coll_round_t* proto)
{
    const size_t elem = ghz_dtype_size(k->dtype);
    memset(proto, 0, sizeof *proto);
    proto->comm = c;
    proto->mode = mode;
    proto->dtype = k->dtype;
    proto->op = k->op == GHZ_OP_AVG ? GHZ_OP_SUM : k->op;
    proto->elem = elem;
    proto->eb = eb;
    proto->piece = coll_piece_elems(c, mode, elem);
    proto->in = k->in;
    proto->out = k->out;
    proto->seg_off = c->seg_off;
    proto->seg_cnt = c->seg_cnt;
    proto->final_wire = k->kind == KIND_ALLREDUCE;
    proto->staged = c->be.staged;
    proto->root = k->root;
}

/* One stage of a two-level allreduce on a child communicator: the rounds of a whole
 * call, without its checks and agreement (the parent's call agreed for every rank,
 * and every rank of the child takes the stage with the same count). Its bytes and
 * times add to the parent's. */
static ghz_status_t child_stage(ghz_comm_t* cc, coll_kind_t kind, const unsigned char* in, unsigned char* out,
                                size_t count, const call_t* k, coll_mode_t mode, double eb, ghz_algo_t algo,
                                coll_round_t* sum)
{
    call_t kk = make_call(kind, in, out, count, k->dtype, k->op, 0, NULL, k->stream);
    coll_round_t p;
    uint64_t rounds = 0;
    ghz_status_t st;
    if (count == 0) return GHZ_SUCCESS;
    if (cc->size == 1) {
        /* a node of one rank: its reduction is its input */
        if (out && out != in && kind != KIND_BCAST && kind != KIND_AG_SPLIT)
            return cc->be.copy(&cc->be, out, in, count * ghz_dtype_size(k->dtype));
        return GHZ_SUCCESS;
    }
    kk.in = in;
    kk.out = out;
    kk.total = count;
    cc->tp.seq = ++cc->calls;
    proto_init(cc, &kk, mode, eb, &p);
    st = run_rounds(cc, &kk, &p, algo, &rounds);
    sum->wire_bytes += p.wire_bytes;
    /* an exact stage sends exactly what the uncompressed form would */
    sum->logical_bytes += mode == COLL_EXACT ? p.wire_bytes : p.logical_bytes;
    sum->t_comp += p.t_comp;
    sum->t_comb += p.t_comb;
    sum->t_dec += p.t_dec;
    sum->t_stage += p.t_stage;
    return st;
}

/* Every rank learns whether a stage failed anywhere (one small allreduce): the stages
 * run on different child communicators, so a failure must not leave a rank waiting
 * in the next one. */
static ghz_status_t stage_agree(ghz_comm_t* c, ghz_status_t st);

ghz_status_t coll_stage_agree(ghz_comm_t* c, ghz_status_t st)
{
    return stage_agree(c, st);
}

static ghz_status_t stage_agree(ghz_comm_t* c, ghz_status_t st)
{
    int mine = (int)st, worst = 0, rc = MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, c->mpi);
    if (rc != MPI_SUCCESS) return ghz_coll_mpi_fail(rc, "MPI_Allreduce (two-level stage)");
    if (st != GHZ_SUCCESS) return st;
    return worst ? ghz_fail(GHZ_ERR_PEER, "another rank failed a two-level stage (%s)",
                            ghz_status_string((ghz_status_t)worst))
                 : GHZ_SUCCESS;
}

/* The algorithm the leaders run among nodes (the only lossy stage). */
static ghz_algo_t inter_algo(const ghz_comm_t* c, coll_mode_t mode)
{
    if (mode == COLL_EXACT) return GHZ_ALGO_RING;
    return c->nodes <= COLL_SUM_N_MAX ? GHZ_ALGO_PAIRWISE : GHZ_ALGO_RING;
}

/* Two-level allreduce (COLL.md, Two levels): exact inside nodes, `mode` across them. */
static ghz_status_t two_level(ghz_comm_t* c, const call_t* k, coll_mode_t mode, double eb, ghz_algo_t algo,
                              coll_round_t* sum)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const ghz_algo_t across = inter_algo(c, mode);
    ghz_status_t st = coll_comm_levels(c); /* (the first such call makes the children) */
    if (st != GHZ_SUCCESS) return st;
    if (algo == GHZ_ALGO_TWO_LEVEL) {
        /* reduce to the node's rank 0, allreduce among those, broadcast in the node */
        st = child_stage(c->intra, KIND_REDUCE, k->in, c->local_rank == 0 ? k->out : NULL, k->count, k,
                         COLL_EXACT, 0.0, GHZ_ALGO_BINOMIAL, sum);
        st = stage_agree(c, st);
        if (st == GHZ_SUCCESS && c->local_rank == 0)
            st = child_stage(c->inter, KIND_ALLREDUCE, k->out, k->out, k->count, k, mode, eb, across, sum);
        st = stage_agree(c, st);
        if (st == GHZ_SUCCESS)
            st = child_stage(c->intra, KIND_BCAST, k->out, k->out, k->count, k, COLL_EXACT, 0.0, GHZ_ALGO_BINOMIAL,
                             sum);
        return stage_agree(c, st);
    }
    /* reduce-scatter in the node, each local rank's split across nodes, allgather */
    {
        const size_t L = (size_t)c->local_size, l = (size_t)c->local_rank, q = k->count / L, rem = k->count % L;
        const size_t base = l * q + (l < rem ? l : rem), len = q + (l < rem);
        st = child_stage(c->intra, KIND_RS_SPLIT, k->in, k->out, k->count, k, COLL_EXACT, 0.0, GHZ_ALGO_RING, sum);
        st = stage_agree(c, st);
        if (st == GHZ_SUCCESS)
            st = child_stage(c->inter, KIND_ALLREDUCE, k->out + base * e, k->out + base * e, len, k, mode, eb, across,
                             sum);
        st = stage_agree(c, st);
        if (st == GHZ_SUCCESS)
            st = child_stage(c->intra, KIND_AG_SPLIT, k->out, k->out, k->count, k, COLL_EXACT, 0.0, GHZ_ALGO_RING,
                             sum);
        return stage_agree(c, st);
    }
}

static ghz_status_t run(ghz_comm_t* c, call_t* k);

/* Whether an exact call of a CUDA communicator goes through host memory: small (the
 * device paths' fixed costs, a few GPU synchronisations or fences, exceed a copy each
 * way plus the CPU algorithm: COLL.md, Choices) and the algorithm left to AUTO. */
/* The algorithm the configuration names for the call's collective (AUTO: none forced). */
static ghz_algo_t configured_algo(const ghz_comm_t* c, const call_t* k)
{
    return k->kind == KIND_ALLREDUCE        ? c->cfg.allreduce_algo
           : k->kind == KIND_REDUCE_SCATTER ? c->cfg.reduce_scatter_algo
                                            : c->cfg.reduce_algo;
}

/* A lossy AUTO call too small ever to compress: it runs exact on every rank, decided
 * by agreed fields alone (size and path), not by measured times. */
static int auto_small(const call_t* k)
{
    return k->acc && k->a.path == GHZ_PATH_AUTO &&
           k->total * ghz_dtype_size(k->dtype) < COLL_AUTO_LOSSY_MIN_BYTES;
}

/* Such a call takes the host path up to small_auto_bytes, beyond where exact calls
 * stop (comm.h): its bound needs the input's range, which the pinned copy gives for a
 * host loop, where the device path pays a range kernel and a synchronisation that
 * also waits for the previous call's kernels. */
static int host_path_takes(const ghz_comm_t* c, const call_t* k, coll_mode_t mode)
{
    const size_t limit = auto_small(k) ? c->small_auto_bytes : c->small_bytes;
    return c->host && mode == COLL_EXACT && configured_algo(c, k) == GHZ_ALGO_AUTO && !c->be.capturing &&
           k->total * ghz_dtype_size(k->dtype) <= limit;
}

/* Why this rank's call cannot be captured into a CUDA graph (NULL: it can), decided
 * before anything is enqueued and carried to the peers by the agreement. A replay runs
 * only stream work, so what may be captured is what needs nothing from the host
 * between its kernels: an exact allreduce or reduce-scatter by the direct algorithm
 * over CUDA IPC, whose fences then wait on the GPU (transport.h, graph_status), or any
 * exact call of one rank (a copy). The lossy paths read statuses, frame sizes and the
 * value range on the host; the message-passing algorithms synchronise per message. */
static const char* capture_refusal(const ghz_comm_t* c, const call_t* k, int lossy)
{
    const ghz_algo_t a = configured_algo(c, k);
    if (lossy) return "a lossy collective reads statuses, sizes and the value range on the host";
    if (k->kind != KIND_ALLREDUCE && k->kind != KIND_REDUCE_SCATTER)
        return "only allreduce and reduce_scatter can be captured";
    if (c->size == 1) return NULL;
    if (!c->tp.fence || !c->tp.graph_status) return "a captured collective needs the CUDA IPC transport";
    if (a != GHZ_ALGO_AUTO && a != GHZ_ALGO_IPC_DIRECT)
        return "a captured collective runs ipc_direct only (the algorithm is forced to another)";
    return NULL;
}

/* Where the host path copies a call's input: an allreduce runs in place in small_out
 * (its result's buffer), where the CPU ring combines its last step straight into the
 * result (algo_ring.c) and MPI_IN_PLACE-like calls save a copy; the others from
 * small_in. */
static unsigned char* host_in(const ghz_comm_t* c, const call_t* k)
{
    return k->kind == KIND_ALLREDUCE ? c->small_out : c->small_in;
}

/* The call on the host communicator: input copied to pinned memory (already, when
 * `copied`, before the agreement, which then carried the copy's status; `all_staged`:
 * every rank's was, so none needs to hear of the others' copies again), the CPU
 * algorithm (its own AVG scaling included), the result copied back without waiting
 * (the next call's work waits for it: backend.h, copy_async). Every rank learns
 * whether every copy worked before any enters the host call, so none enters it alone.
 * The copy in waits for the stream, and with it for the previous call's copy out of
 * small_out, which the host call writes. */
static ghz_status_t host_path(ghz_comm_t* c, const call_t* k, int copied, int all_staged, double t_copied,
                              ghz_coll_info_t* info)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const int has_out = k->kind != KIND_REDUCE || c->rank == k->root;
    call_t kk = make_call(k->kind, host_in(c, k), c->small_out, k->count, k->dtype, k->op, k->root, NULL, NULL);
    double t0 = MPI_Wtime(), t_stage = t_copied;
    ghz_status_t st = GHZ_SUCCESS;
    if (!copied) {
        st = c->be.copy(&c->be, host_in(c, k), k->in, k->total * e);
        t_stage += MPI_Wtime() - t0;
    }
    if (!all_staged) st = stage_agree(c, st);
    if (st == GHZ_SUCCESS) st = run(c->host, &kk);
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

/* The agreed inputs of a lossy call's error budget (bound.h), but K. */
static coll_budget_in_t budget_in(const ghz_comm_t* c, const call_t* k, const coll_agreed_t* all)
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
static void agreed_fields(const ghz_comm_t* c, const call_t* k, ghz_status_t st, coll_call_t* mine)
{
    mine->field[AGREE_KIND] = k->kind;
    mine->field[AGREE_COUNT] = (int64_t)k->count;
    mine->field[AGREE_DTYPE] = k->dtype;
    mine->field[AGREE_OP] = k->op;
    mine->field[AGREE_ROOT] = k->kind == KIND_REDUCE ? k->root : 0;
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
    double t_copied = 0.0, t_range = 0.0, t_tail = 0.0, t_agreed = 0.0;
    int lossy, copied, range_in_copy;

    ghz_clear_detail();
    if (!c) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL communicator");
    memset(&mine, 0, sizeof mine);
    st = call_start(c, k);
    lossy = k->acc != NULL;
    /* the input must be ready before any backend work reads it */
    if (st == GHZ_SUCCESS) st = c->be.begin(&c->be, k->stream);
    if (st == GHZ_SUCCESS && c->be.capturing) {
        const char* why = capture_refusal(c, k, lossy);
        if (why) st = ghz_fail(GHZ_ERR_UNSUPPORTED, "CUDA-graph capture: %s", why);
    }
    /* A call that will run exact stages its input for the host path now, when it will
     * take that path, so that the agreement carries the copy's status (and host_path
     * needs no second agreement where every rank did): an exact call, a lossy AUTO call
     * too small ever to compress, and one whose AUTO choice will be exact (guessed with
     * this rank's time of the last call, decided after the agreement with the slowest
     * rank's: a wrong guess costs a copy, or the second agreement). A lossy call's range
     * then costs no second synchronisation (which would wait for the previous call's
     * kernels): with a GPU per rank the range kernel makes the copy (from 64 KiB; the
     * host scans smaller ones: comm.c, STAGED_RANGE_GPU_MIN); where ranks
     * share a GPU, whose every kernel costs a time slice (one H100, two ranks, session
     * 15: 265-290 us for the GPU scan and its wait at any size), the host copy is scanned
     * (16 GB/s a core, a team of up to 4 from 1 MiB: codec/range.c, comm.c make_host). */
    copied = st == GHZ_SUCCESS && k->count > 0 && c->size > 1 &&
             (lossy ? auto_small(k) || (k->a.path == GHZ_PATH_AUTO && auto_guess_exact(c, k->total * elem))
                    : c->cfg.check_args) &&
             host_path_takes(c, k, COLL_EXACT);
    /* (the copy and the range scan synchronise: the previous call's tail first, its own) */
    if (copied || (lossy && k->count > 0)) {
        t_tail = tail(c, &st);
        t_call += t_tail;
    }
    range_in_copy = copied && lossy && k->total * elem >= c->staged_range_gpu_min;
    if (copied && !range_in_copy && st == GHZ_SUCCESS) {
        double t0 = MPI_Wtime();
        st = c->be.copy(&c->be, host_in(c, k), k->in, k->total * elem);
        t_copied = MPI_Wtime() - t0;
    }
    if (st == GHZ_SUCCESS && lossy && k->count > 0) {
        /* reduce_scatter's input is every rank's whole buffer */
        double lo = NAN, hi = NAN;
        t_range = MPI_Wtime();
        if (copied && !range_in_copy)
            st = c->host->be.range(&c->host->be, host_in(c, k), k->total, k->dtype, NULL, &lo, &hi,
                                   &mine.nonfinite);
        else
            st = c->be.range(&c->be, k->in, k->total, k->dtype, range_in_copy ? host_in(c, k) : NULL, &lo, &hi,
                             &mine.nonfinite);
        t_range = MPI_Wtime() - t_range;
        if (range_in_copy) t_copied = t_range; /* (the copy's time, with the kernel) */
        mine.have_range = !isnan(lo);
        mine.vmin = lo;
        mine.vmax = hi;
    }
    mine.status = st;
    mine.staged = copied && st == GHZ_SUCCESS;
    mine.prev_seconds = c->auto_bytes ? c->auto_seconds : -1.0;
    mine.ratio_seen = c->last_ratio;
    agreed_fields(c, k, st, &mine);
    memset(&all, 0, sizeof all);
    if (lossy || c->cfg.check_args) {
        st = coll_agree(c, &mine, &all);
        if (st == GHZ_SUCCESS) measured_agreed(c, &all);
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
            (bytes < COLL_AUTO_LOSSY_MIN_BYTES || coll_auto_runs_exact(&c->autop, bytes) ||
             (all.ratio_seen > 0.0 && all.ratio_seen < AUTO_MIN_RATIO && c->lossy_calls % RATIO_RETRY != 0)))
            mode = COLL_EXACT;
        if (k->a.path == GHZ_PATH_AUTO) {
            const coll_auto_class_t* q = &c->autop.cls[coll_auto_class(bytes)];
            if (c->auto_trace && c->rank == 0) /* (q: before this call is counted) */
                fprintf(stderr,
                        "ghz auto: %zu bytes, call %u: %s (us per call: exact %.1f, compressed %.1f; retry %u; "
                        "staged %d, every rank %d; last call %.1f us; this call's copy %.1f us, range %.1f us, "
                        "agreed after %.1f us)\n",
                        bytes, q->calls, mode == COLL_EXACT ? "exact" : "compressed", q->spb_exact * bytes * 1e6,
                        q->spb_lossy * bytes * 1e6, q->retry, copied, all.staged, all.prev_seconds * 1e6,
                        t_copied * 1e6, t_range * 1e6, (MPI_Wtime() - t_call) * 1e6);
            coll_auto_count(&c->autop, bytes);
        }
    }
    algo = choose_algo(c, k, mode);
    st = check_algo(c, k, algo, mode);
    if (st == GHZ_SUCCESS && c->be.capturing && c->size > 1 && algo != GHZ_ALGO_IPC_DIRECT)
        st = ghz_fail(GHZ_ERR_UNSUPPORTED, "CUDA-graph capture: %s cannot be captured", ghz_algo_name(algo));
    if (st == GHZ_SUCCESS && lossy) {
        coll_budget_in_t bi = budget_in(c, k, &all);
        /* two levels: only the stage across nodes compresses, over c->nodes ranks */
        if (algo == GHZ_ALGO_TWO_LEVEL || algo == GHZ_ALGO_TWO_LEVEL_MULTI)
            bi.terms = mode == COLL_EXACT ? 0.0
                                          : coll_error_terms(inter_algo(c, mode), mode, k->op, c->nodes, 1,
                                                             c->be.has_sum_n);
        else
            bi.terms = mode == COLL_EXACT ? 0.0
                                          : coll_error_terms(algo, mode, k->op, c->size,
                                                             k->kind == KIND_ALLREDUCE, c->be.has_sum_n);
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

    if (host_path_takes(c, k, mode)) {
        double bound_abs = info.bound_abs;
        st = host_path(c, k, copied, all.staged, t_copied, &info);
        if (st != GHZ_SUCCESS) return st;
        info.lossy = lossy;
        info.bound_abs = bound_abs;
        info.time_total = MPI_Wtime() - t_call;
        st = measured(c, k->total * elem, COLL_EXACT, lossy, info.time_total);
        if (st != GHZ_SUCCESS) return st;
        if (c->auto_trace > 1 && c->rank == 0)
            fprintf(stderr,
                    "ghz call: %zu bytes, %s, host path: tail %.1f, copy %.1f, range %.1f, agreed at %.1f, "
                    "host call %.1f, copy back %.1f, total %.1f us\n",
                    k->total * elem, lossy ? "lossy" : "exact", t_tail * 1e6, t_copied * 1e6, t_range * 1e6,
                    t_agreed * 1e6, c->host->info.time_total * 1e6, (info.time_stage - t_copied) * 1e6,
                    info.time_total * 1e6);
        c->info = info;
        if (lossy) c->lossy_calls++;
        return GHZ_SUCCESS;
    }
    proto_init(c, k, mode, budget.eb, &proto);
    {
        if (algo == GHZ_ALGO_TWO_LEVEL || algo == GHZ_ALGO_TWO_LEVEL_MULTI) {
            st = two_level(c, k, mode, budget.eb, algo, &proto);
            rounds = 1;
        } else if (algo == GHZ_ALGO_MPI) {
            st = mpi_allreduce(c, k, &proto);
            rounds = 1;
        } else {
            st = run_rounds(c, k, &proto, algo, &rounds);
        }
        /* the whole call: checks, range scan and agreement included */
        info.time_total = MPI_Wtime() - t_call;
    }
    if (st == GHZ_SUCCESS && k->op == GHZ_OP_AVG && (k->kind != KIND_REDUCE || c->rank == k->root))
        st = c->be.scale(&c->be, k->out, k->count, k->dtype, 1.0 / c->size);
    if (st == GHZ_SUCCESS) st = measured(c, k->total * elem, mode, lossy, info.time_total);
    if (st != GHZ_SUCCESS) return st;
    if (c->auto_trace > 1 && c->rank == 0 && (lossy || copied))
        fprintf(stderr,
                "ghz call: %zu bytes, %s, %s on the device: tail %.1f, copy %.1f, range %.1f, agreed at %.1f, "
                "compress %.1f, combine %.1f, decompress %.1f, stage %.1f, total %.1f us\n",
                k->total * elem, lossy ? "lossy" : "exact", mode == COLL_EXACT ? "exact" : "compressed",
                t_tail * 1e6, t_copied * 1e6, t_range * 1e6, t_agreed * 1e6, proto.t_comp * 1e6,
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

#ifdef GHZ_WITH_NCCL
/* Whether NCCL's own exact call takes the buffers: in place is in == out (reduce_scatter:
 * out at this rank's block of in), anything else must not overlap. MPI_IN_PLACE's
 * reduce_scatter (result at the start of the input) goes to the fold instead. */
static int nccl_takes_buffers(const ghz_comm_t* c, const call_t* k)
{
    const size_t e = ghz_dtype_size(k->dtype), in_bytes = k->total * e, out_bytes = k->count * e;
    const unsigned char *in = k->in, *out = k->out;
    if (!out || in == out) return k->kind != KIND_REDUCE_SCATTER || c->rank == 0;
    if (k->kind == KIND_REDUCE_SCATTER && out == in + (size_t)c->rank * out_bytes) return 1;
    return out + out_bytes <= in || in + in_bytes <= out;
}

/* A call on a communicator with the NCCL transport. Exact calls are NCCL's own, on the
 * caller's stream, behind the argument agreement (check_args) and nothing else; lossy
 * calls compress when their path is HOMO or DOC (which are the same bytes here: the
 * n-ary sum is DOC's left fold), or with AUTO from the link's calibrated size on
 * (nccl_comm.c); a lossy call that AUTO runs exact is NCCL's exact call, its only error
 * the rounding of the sum, with no range scan (so a REL bound is not checked against
 * the data there; COLL.md, NCCL). */
static ghz_status_t run_call_nccl(ghz_comm_t* c, call_t* k)
{
    ghz_status_t st;
    coll_call_t mine;
    coll_agreed_t all;
    coll_budget_t budget = {0.0, 0.0, 0.0, 1};
    coll_mode_t mode = COLL_EXACT;
    coll_round_t proto;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    uint64_t rounds = 0;
    const size_t elem = ghz_dtype_size(k->dtype);
    const double t_call = coll_now();
    int lossy, compress = 0;
    ghz_algo_t algo;

    ghz_clear_detail();
    memset(&mine, 0, sizeof mine);
    st = call_start(c, k);
    lossy = k->acc != NULL;
    if (st == GHZ_SUCCESS) st = c->be.begin(&c->be, k->stream);
    if (st == GHZ_SUCCESS && lossy)
        compress = k->a.path != GHZ_PATH_AUTO ||
                   (coll_nccl_auto_compresses(c, k->total * elem) &&
                    !(c->last_ratio > 0.0 && c->last_ratio < AUTO_MIN_RATIO && c->lossy_calls % RATIO_RETRY != 0));
    if (st == GHZ_SUCCESS && c->be.capturing && compress)
        st = ghz_fail(GHZ_ERR_UNSUPPORTED, "CUDA-graph capture: a compressed collective reads frame sizes on the host");
    if (st == GHZ_SUCCESS && compress && k->count > 0) {
        double lo = NAN, hi = NAN;
        st = c->be.range(&c->be, k->in, k->total, k->dtype, NULL, &lo, &hi, &mine.nonfinite);
        mine.have_range = !isnan(lo);
        mine.vmin = lo;
        mine.vmax = hi;
    }
    mine.status = st;
    mine.ratio_seen = c->last_ratio;
    mine.prev_seconds = -1.0;
    agreed_fields(c, k, st, &mine);
    /* (the AUTO choice is the same on every rank by construction; agreeing on it
     * catches a rank whose state diverged) */
    mine.field[AGREE_PATH] = compress;
    memset(&all, 0, sizeof all);
    if (compress || c->cfg.check_args) st = coll_agree(c, &mine, &all);
    if (st != GHZ_SUCCESS) return st;
    algo = choose_algo(c, k, COLL_EXACT);
    st = check_algo(c, k, algo, COLL_EXACT);
    if (st != GHZ_SUCCESS) return st;
    if (lossy) {
        info.bound_abs = k->a.mode == GHZ_EB_ABS ? k->a.bound : 0.0; /* REL: not scanned where exact */
        if (compress) {
            coll_budget_in_t bi = budget_in(c, k, &all);
            bi.terms = coll_error_terms(GHZ_ALGO_NCCL, COLL_HOMO, k->op, c->size, k->kind == KIND_ALLREDUCE, 1);
            st = coll_derive_eb(&bi, &budget);
            if (st != GHZ_SUCCESS) return st;
            mode = budget.exact ? COLL_EXACT : COLL_HOMO;
            info.bound_abs = budget.bound_abs;
            info.eb_abs = mode == COLL_EXACT ? 0.0 : budget.eb;
            info.error_terms = mode == COLL_EXACT ? 0.0 : bi.terms;
        }
    }
    c->moving = 1;
    info.algo = algo;
    info.lossy = lossy;
    if (k->count == 0) {
        c->info = info;
        return GHZ_SUCCESS;
    }
    if (mode == COLL_EXACT && !coll_nccl_exact_refusal(k->dtype, k->op) && nccl_takes_buffers(c, k)) {
        const coll_nccl_kind_t nk = k->kind == KIND_ALLREDUCE ? COLL_NCCL_ALLREDUCE
                                    : k->kind == KIND_REDUCE  ? COLL_NCCL_REDUCE
                                                              : COLL_NCCL_REDUCE_SCATTER;
        st = coll_nccl_exact(c, nk, k->in, k->out, k->count, k->dtype, k->op, k->root, k->stream);
        rounds = 1;
        info.logical_bytes = info.wire_bytes = (uint64_t)k->total * elem;
    } else {
        proto_init(c, k, mode, budget.eb, &proto);
        coll_nccl_call_reset(c);
        st = run_rounds(c, k, &proto, algo, &rounds);
        info.logical_bytes = proto.logical_bytes;
        info.wire_bytes = proto.wire_bytes;
        info.time_compress = proto.t_comp;
        info.time_combine = proto.t_comb;
        info.time_decompress = proto.t_dec;
        info.time_transfer = proto.t_xfer;
    }
    /* AVG: NCCL's (or the fold's) sum, scaled once, on the stream */
    if (st == GHZ_SUCCESS && k->op == GHZ_OP_AVG && (k->kind != KIND_REDUCE || c->rank == k->root))
        st = ghz_coll_scale_cuda(k->out, k->count, k->dtype, 1.0 / c->size, (cudaStream_t)k->stream);
    if (st != GHZ_SUCCESS) return st;
    info.path = mode == COLL_EXACT ? GHZ_PATH_AUTO : k->a.path == GHZ_PATH_DOC ? GHZ_PATH_DOC : GHZ_PATH_HOMO;
    info.rounds = rounds;
    info.time_total = coll_now() - t_call;
    c->info = info;
    if (lossy) {
        c->lossy_calls++;
        if (mode != COLL_EXACT) c->last_ratio = coll_nccl_call_ratio(c);
    }
    return GHZ_SUCCESS;
}
#endif

/* One call; the backend's capture flag (set by begin) lasts for that call only. A
 * failure once the call's data started to move, or of MPI itself (the agreement's
 * included), breaks the communicator: the ranks may be out of step, with messages in
 * flight (COLL.md, Errors). A call that succeeds leaves no detail behind (a step inside
 * it may have recorded one it then recovered from). */
static ghz_status_t run(ghz_comm_t* c, call_t* k)
{
#ifdef GHZ_WITH_NCCL
    const ghz_status_t st = c && c->nccl ? run_call_nccl(c, k) : run_call(c, k);
#else
    const ghz_status_t st = run_call(c, k);
#endif
    if (c) {
        c->be.capturing = 0;
        if (st != GHZ_SUCCESS && c->broken == GHZ_SUCCESS && (c->moving || st == GHZ_ERR_MPI)) c->broken = st;
    }
    if (st == GHZ_SUCCESS) ghz_clear_detail();
    return st;
}

ghz_status_t ghz_allreduce(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                           ghz_op_t op, const ghz_accuracy_t* acc, ghz_comm_t* comm,
                           ghz_stream_t stream)
{
    call_t k = make_call(KIND_ALLREDUCE, sendbuf, recvbuf, count, dtype, op, 0, acc, stream);
    return run(comm, &k);
}

ghz_status_t ghz_reduce(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                        ghz_op_t op, int root, const ghz_accuracy_t* acc, ghz_comm_t* comm,
                        ghz_stream_t stream)
{
    call_t k = make_call(KIND_REDUCE, sendbuf, recvbuf, count, dtype, op, root, acc, stream);
    return run(comm, &k);
}

/* NCCL's in place (recvbuf inside sendbuf at this rank's block) needs nothing: the
 * algorithms write the result only after their last send of the input. */
ghz_status_t ghz_reduce_scatter(const void* sendbuf, void* recvbuf, size_t recvcount,
                                ghz_dtype_t dtype, ghz_op_t op, const ghz_accuracy_t* acc,
                                ghz_comm_t* comm, ghz_stream_t stream)
{
    call_t k = make_call(KIND_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, dtype, op, 0, acc, stream);
    return run(comm, &k);
}
