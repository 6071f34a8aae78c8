/* ghz/coll/movement.c: the data-movement calls: allgather, broadcast, scatter, gather,
 * alltoall, and the v forms of allgather, gather, scatter and alltoall.
 *
 * Every call: check this rank's arguments; for a lossy call, scan the value range of the
 * blocks this rank sends; agree with every rank (agree.c: the fields, the statuses, the
 * range, the longest block); the v forms then exchange their counts, check them pair by
 * pair and agree once more on the outcome (their counts are arrays, which the agreement's
 * fields cannot carry); derive E, the bound of every compression (E = B: a value is
 * compressed once and never combined; COLL.md, Data movement); copy this rank's own
 * block; run the MPI library's call (exact, CPU backend) or the algorithm in rounds that
 * fit the pool. What differs by collective is its entry's (move_kinds.c). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "ghz/coll/detail/auto_rule.h"
#include "ghz/coll/detail/bound.h"
#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/nccl_move.h"
#include "ghz/detail/error.h"

/* The MPI library's own call (exact, CPU backend, every count and displacement below
 * INT_MAX: agreed). The v forms' int arrays live in the per-call arrays (2N ints fit in
 * N size_t). */
static ghz_status_t mpi_call(ghz_comm_t* c, const mv_t* k)
{
    const int N = c->size;
    coll_mv_mpi_t a;
    int p, rc;
    a.dt = coll_mpi_dtype(k->dtype);
    a.in = k->in_place ? MPI_IN_PLACE : (const void*)k->in;
    a.n = (int)k->count;
    a.sc = (int*)c->seg_off;
    a.sd = a.sc + N;
    a.rc = (int*)c->seg_cnt;
    a.rd = a.rc + N;
    for (p = 0; p < N && k->v; p++) {
        a.sc[p] = k->sends && !k->send.single ? (int)coll_lay_cnt(&k->send, p) : 0;
        a.sd[p] = k->sends && !k->send.single ? (int)coll_lay_displ(&k->send, p) : 0;
        a.rc[p] = k->recvs && !k->recv.single ? (int)coll_lay_cnt(&k->recv, p) : 0;
        a.rd[p] = k->recvs && !k->recv.single ? (int)coll_lay_displ(&k->recv, p) : 0;
    }
    /* (the kind's call: move_kinds.c) */
    rc = k->ops->mpi(c, k, &a);
    return rc == MPI_SUCCESS ? GHZ_SUCCESS : ghz_coll_mpi_fail(rc, coll_mv_name(k));
}

/* This rank's own block, copied exactly from its send side to its receive side (the
 * algorithms move only the other ranks' blocks). */
static ghz_status_t own_block(ghz_comm_t* c, const mv_t* k)
{
    const unsigned char* src;
    unsigned char* dst;
    const size_t bytes = coll_mv_own_block(c, k, &src, &dst);
    return bytes ? c->be.copy(&c->be, dst, src, bytes) : GHZ_SUCCESS;
}

/* AUTO compresses a data-movement call from the size fixed at init for an allreduce's
 * (auto_rule.h), compared with N blocks: a rank moves a block to or from every other
 * rank, about as many bytes as an allreduce of N / 2 blocks, and its compressed path
 * has fewer fixed costs a round (over NCCL one host wait where the allreduce pays
 * three), so its crossover comes at about half the size (docs/RESULTS-coll.md). */
static int move_compresses(const ghz_comm_t* c, size_t block_bytes)
{
    const size_t N = (size_t)c->size;
    return coll_auto_compresses(c, block_bytes > SIZE_MAX / N ? SIZE_MAX : block_bytes * N);
}

/* A uniform lossy AUTO call over NCCL that runs exact (its count decides, the same on
 * every rank): no range scan. */
static int nccl_auto_exact(const ghz_comm_t* c, const mv_t* k)
{
    return c->nccl && !k->v && k->acc && k->a.path == GHZ_PATH_AUTO &&
           !move_compresses(c, k->count * ghz_dtype_size(k->dtype));
}

static ghz_status_t run_call(ghz_comm_t* c, mv_t* k);

/* The host path of a CUDA communicator's small exact calls, as the reductions' (COLL.md,
 * Choices): every rank's whole send and receive sides within small_bytes (agreed), the
 * send side copied to pinned host memory, the receive side too where the call writes only
 * its blocks (the v forms' gaps) or holds the input (in place), the CPU communicator's
 * call (MPI's own, or ghz's algorithms; the parent's agreement stands for its), and the
 * receive side copied back without waiting (the next call's work waits for it). Every
 * rank learns whether every copy worked before any enters the host call. */
static ghz_status_t host_move(ghz_comm_t* c, const mv_t* k, size_t extent, size_t far, ghz_coll_info_t* info)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const int input_in_out = k->in_place && !k->ops->in_place_recv;
    const size_t sf = k->sends && !input_in_out ? coll_mv_side_end(c, &k->send) : 0;
    const size_t rf = k->recvs ? coll_mv_side_end(c, &k->recv) : 0;
    double t0 = coll_now(), t_stage;
    mv_t h = *k;
    ghz_status_t st = GHZ_SUCCESS;
    if (rf && (k->v || input_in_out)) st = c->be.copy(&c->be, c->small_out, k->out, rf * e);
    if (st == GHZ_SUCCESS && sf) st = c->be.copy(&c->be, c->small_in, k->in, sf * e);
    /* the host call writes small_out: the previous call's copy out of it must be done,
     * which a copy in has waited for (each waits for the stream), else a wait here (a
     * broadcast's non-root copies nothing in) */
    if (st == GHZ_SUCCESS && !sf && !(rf && (k->v || input_in_out))) st = c->be.sync(&c->be);
    st = coll_stage_agree(c, st);
    if (st != GHZ_SUCCESS) return st;
    t_stage = coll_now() - t0;
    h.sendbuf = input_in_out ? MPI_IN_PLACE : k->sends ? (const void*)c->small_in : NULL;
    h.recvbuf = k->ops->in_place_recv && k->in_place ? MPI_IN_PLACE : k->recvs ? (void*)c->small_out : NULL;
    h.acc = NULL;
    h.stream = NULL;
    h.agreed = 1;
    h.agreed_most[0] = extent;
    h.agreed_most[1] = far;
    st = run_call(c->host, &h);
    if (st == GHZ_SUCCESS && rf) {
        t0 = coll_now();
        st = c->be.copy_async(&c->be, k->out, c->small_out, rf * e);
        t_stage += coll_now() - t0;
    }
    if (st != GHZ_SUCCESS) return st;
    *info = c->host->info;
    info->time_stage = t_stage;
    return GHZ_SUCCESS;
}

static ghz_status_t run_rounds(ghz_comm_t* c, const mv_t* k, coll_round_t* proto, ghz_algo_t* algo_io,
                               size_t extent, uint64_t* rounds)
{
    size_t window, off;
    window = coll_fit_window(c, k->ops->need(*algo_io, proto->staged), NULL, proto->mode, k->dtype, proto->piece);
    if (window == 0)
        return ghz_fail(GHZ_ERR_NOMEM, "pool_bytes %zu cannot hold one round of %s on %d ranks: configure a larger pool",
                        c->pool_bytes, coll_mv_name(k), c->size);
    if (k->ops->settle) *algo_io = k->ops->settle(c, *algo_io, extent, window, proto->piece);
    *rounds = 0;
    for (off = 0; off < extent; off += window) {
        coll_round_t r = *proto;
        coll_pool_t pool = {c->pool, 0, c->pool_bytes, c->pool_raw, 0, c->pool_raw ? c->pool_bytes : 0};
        coll_move_t m;
        m.send = k->send;
        m.recv = k->recv;
        m.off = off;
        m.w = extent - off < window ? extent - off : window;
        k->ops->round(c, k, &r, &pool, &m, *algo_io, window);
        proto->wire_bytes += r.wire_bytes;
        proto->logical_bytes += r.logical_bytes;
        proto->t_comp += r.t_comp;
        proto->t_dec += r.t_dec;
        proto->t_stage += r.t_stage;
        ++*rounds;
        if (r.st != GHZ_SUCCESS)
            return r.st == GHZ_ERR_PEER ? ghz_fail(GHZ_ERR_PEER, "another rank failed during the %s", coll_mv_name(k))
                                        : r.st;
    }
    return GHZ_SUCCESS;
}

static ghz_status_t run_call(ghz_comm_t* c, mv_t* k)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const double t_call = coll_now();
    coll_call_t mine;
    coll_agreed_t all;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    coll_round_t proto;
    coll_mode_t mode = COLL_EXACT;
    ghz_algo_t algo;
    ghz_status_t st;
    double B = 0.0;
    uint64_t rounds = 0;
    size_t extent, far;

    ghz_clear_detail();
    if (!c) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL communicator");
    memset(&mine, 0, sizeof mine);
    memset(&all, 0, sizeof all);
    /* (a broken communicator moves nothing: contract.c) */
    coll_call_begin(c);
    st = coll_mv_check_local(c, k);
    if (st == GHZ_SUCCESS) st = coll_refuse_broken(c);
    /* the input must be ready before any backend work reads it */
    if (st == GHZ_SUCCESS) st = c->be.begin(&c->be, k->stream);
    /* (begin tells whether the stream is being captured) */
    if (st == GHZ_SUCCESS && c->be.capturing)
        st = ghz_fail(GHZ_ERR_UNSUPPORTED, "CUDA-graph capture: the data-movement calls cannot be captured");
    /* (over NCCL, a uniform lossy AUTO call that the calibrated size runs exact needs no
     * range: every rank decides it from the count alone, which the agreement checks) */
    mine.ranged = k->acc && !nccl_auto_exact(c, k);
    if (st == GHZ_SUCCESS && mine.ranged) st = coll_mv_scan(c, k, &mine);
    coll_mv_fields(c, k, st, &mine);
    if (k->agreed) {
        if (st != GHZ_SUCCESS) return st; /* (the parent's checks were these: not reached) */
        all.most[0] = k->agreed_most[0];
        all.most[1] = k->agreed_most[1];
    } else if (k->acc || k->v || c->cfg.check_args) {
        st = coll_agree(c, &mine, &all);
        if (st == GHZ_SUCCESS && k->v) {
            /* the counts, pair by pair, and every rank told the outcome */
            coll_mv_fields(c, k, coll_mv_check_counts(c, k), &mine);
            st = coll_agree(c, &mine, &all);
        }
    } else {
        /* unchecked (exact, uniform counts): peers may wait on a bad call (COLL.md, Errors) */
        all.most[0] = k->longest;
        all.most[1] = k->farthest;
    }
    if (st != GHZ_SUCCESS) return st;
    /* every rank's block lengths, uniform or checked pair by pair */
    extent = k->v ? (size_t)all.most[0] : k->count;

    if (k->acc) {
        /* (the reductions' reading of the bound: a REL bound over fill values is refused;
         * E = B, so 2B must be finite too for the codec) */
        st = coll_abs_bound(k->a.mode, k->a.bound, all.have_range, all.vmin, all.vmax, &B);
        if (st == GHZ_SUCCESS && !isfinite(2 * B))
            st = ghz_fail(GHZ_ERR_BAD_BOUND, "bound %g over the range [%g, %g] is not usable", k->a.bound, all.vmin,
                          all.vmax);
        if (st != GHZ_SUCCESS) return st;
        /* B = 0 (REL over a constant field or no finite value): only exact will do.
         * AUTO: by the size fixed at init, by what a rank moves (every input agreed:
         * every rank decides alike) */
        if (B > 0.0) mode = COLL_HOMO;
        if (k->a.path == GHZ_PATH_AUTO && !move_compresses(c, extent * e)) mode = COLL_EXACT;
        info.bound_abs = B;
        info.eb_abs = mode == COLL_EXACT ? 0.0 : B;
        info.error_terms = mode == COLL_EXACT ? 0.0 : 1.0;
    }
    /* (decided from agreed values only: the uniform forms' from the count itself, which
     * an unchecked call does not agree) */
    far = k->v ? (size_t)all.most[1] : k->count <= (size_t)(INT_MAX / c->size) ? k->count * (size_t)c->size : SIZE_MAX;
    /* Every rank decided alike from here: data moves, over NCCL, the host path, MPI's
     * call or ghz's rounds, and a failure breaks the communicator (contract.c) */
    c->moving = 1;
#ifdef GHZ_WITH_NCCL
    if (c->nccl && c->size > 1) {
        /* NCCL moves the bytes: its own call exact, compressed blocks lossy (move_nccl.c) */
        coll_round_t acc;
        memset(&acc, 0, sizeof acc);
        if (mode == COLL_EXACT) {
            uint64_t sent = 0;
            st = coll_nccl_move_exact(c, k, extent, &sent);
            acc.logical_bytes = acc.wire_bytes = sent;
            rounds = 1;
        } else {
            st = coll_nccl_move_lossy(c, k, extent, B, &acc, &rounds);
        }
        if (st != GHZ_SUCCESS) return st;
        info.algo = GHZ_ALGO_NCCL;
        info.lossy = k->acc != NULL;
        info.path = mode == COLL_HOMO ? GHZ_PATH_HOMO : GHZ_PATH_AUTO;
        info.logical_bytes = acc.logical_bytes;
        info.wire_bytes = acc.wire_bytes;
        info.rounds = rounds;
        info.time_total = coll_now() - t_call;
        c->info = info;
        return GHZ_SUCCESS;
    }
#endif
    if (c->host && !k->agreed && mode == COLL_EXACT && c->size > 1 && far && far <= c->small_bytes / e) {
        double bound_abs = info.bound_abs;
        st = host_move(c, k, extent, far, &info);
        if (st != GHZ_SUCCESS) return st;
        info.lossy = k->acc != NULL;
        info.bound_abs = bound_abs;
        info.time_total = coll_now() - t_call;
        c->info = info;
        return GHZ_SUCCESS;
    }
    algo = mode == COLL_EXACT && c->cfg.backend == GHZ_EXEC_CPU && c->size > 1 && far <= INT_MAX &&
                   extent * e <= c->mpi_max
               ? GHZ_ALGO_MPI
               : k->ops->choose(c, k, mode, extent);

    memset(&proto, 0, sizeof proto);
    if (algo == GHZ_ALGO_MPI) {
        /* (MPI moves a rank's own block too, but where its call reads only the output:
         * MPI_Bcast's root) */
        st = k->ops->mpi_from_out ? own_block(c, k) : GHZ_SUCCESS;
        if (st == GHZ_SUCCESS) st = mpi_call(c, k);
        proto.logical_bytes = proto.wire_bytes = extent * e * (uint64_t)(c->size - 1);
        rounds = 1;
    } else {
        st = own_block(c, k);
        proto.comm = c;
        proto.mode = mode;
        proto.dtype = k->dtype;
        proto.op = GHZ_OP_SUM; /* (nothing is combined) */
        proto.elem = e;
        proto.eb = B;
        proto.piece = coll_piece_elems(c, mode, e);
        proto.in = k->in;
        proto.out = k->out;
        proto.seg_off = c->seg_off;
        proto.seg_cnt = c->seg_cnt;
        proto.root = k->root;
        proto.raw_fallback = 1;
        /* in place, an exact alltoall (its blocks share their places with the peers')
         * stages its blocks through the wire buffers (algo_alltoall.c) */
        proto.staged = c->be.staged || (k->ops->in_place_shared && k->in_place);
        if (st == GHZ_SUCCESS && c->size > 1) st = run_rounds(c, k, &proto, &algo, extent, &rounds);
    }
    if (st != GHZ_SUCCESS) return st;
    info.algo = algo;
    info.lossy = k->acc != NULL;
    info.path = mode == COLL_HOMO ? GHZ_PATH_HOMO : GHZ_PATH_AUTO;
    info.logical_bytes = proto.logical_bytes;
    info.wire_bytes = proto.wire_bytes;
    info.rounds = rounds;
    info.time_compress = proto.t_comp;
    info.time_decompress = proto.t_dec;
    info.time_stage = proto.t_stage;
    info.time_total = coll_now() - t_call;
    c->info = info;
    return GHZ_SUCCESS;
}

/* One call, ended by the failure rule (contract.c, coll_call_end). */
static ghz_status_t run(ghz_comm_t* c, mv_t* k)
{
    return coll_call_end(c, run_call(c, k));
}

static mv_t make(mv_kind_t kind, int v, const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                 int root, const ghz_accuracy_t* acc, ghz_stream_t stream)
{
    mv_t k;
    memset(&k, 0, sizeof k);
    k.kind = kind;
    k.ops = coll_mv_kind_ops(kind);
    k.v = v;
    k.sendbuf = sendbuf;
    k.recvbuf = recvbuf;
    k.count = count;
    k.dtype = dtype;
    k.root = root;
    k.acc = acc;
    k.stream = stream;
    return k;
}

ghz_status_t ghz_allgather(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                           const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    mv_t k = make(MV_ALLGATHER, 0, sendbuf, recvbuf, count, dtype, 0, acc, stream);
    return run(comm, &k);
}

ghz_status_t ghz_broadcast(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, int root,
                           const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    mv_t k = make(MV_BCAST, 0, sendbuf, recvbuf, count, dtype, root, acc, stream);
    return run(comm, &k);
}

ghz_status_t ghz_scatter(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, int root,
                         const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    mv_t k = make(MV_SCATTER, 0, sendbuf, recvbuf, count, dtype, root, acc, stream);
    return run(comm, &k);
}

ghz_status_t ghz_gather(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype, int root,
                        const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    mv_t k = make(MV_GATHER, 0, sendbuf, recvbuf, count, dtype, root, acc, stream);
    return run(comm, &k);
}

ghz_status_t ghz_alltoall(const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                          const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    mv_t k = make(MV_ALLTOALL, 0, sendbuf, recvbuf, count, dtype, 0, acc, stream);
    return run(comm, &k);
}

ghz_status_t ghz_allgatherv(const void* sendbuf, void* recvbuf, size_t sendcount, const size_t* recvcounts,
                            const size_t* displs, ghz_dtype_t dtype, const ghz_accuracy_t* acc, ghz_comm_t* comm,
                            ghz_stream_t stream)
{
    mv_t k = make(MV_ALLGATHER, 1, sendbuf, recvbuf, sendcount, dtype, 0, acc, stream);
    k.rcnt = recvcounts;
    k.rdis = displs;
    return run(comm, &k);
}

ghz_status_t ghz_gatherv(const void* sendbuf, void* recvbuf, size_t sendcount, const size_t* recvcounts,
                         const size_t* displs, ghz_dtype_t dtype, int root, const ghz_accuracy_t* acc,
                         ghz_comm_t* comm, ghz_stream_t stream)
{
    mv_t k = make(MV_GATHER, 1, sendbuf, recvbuf, sendcount, dtype, root, acc, stream);
    k.rcnt = recvcounts;
    k.rdis = displs;
    return run(comm, &k);
}

ghz_status_t ghz_scatterv(const void* sendbuf, void* recvbuf, const size_t* sendcounts, const size_t* displs,
                          size_t recvcount, ghz_dtype_t dtype, int root, const ghz_accuracy_t* acc,
                          ghz_comm_t* comm, ghz_stream_t stream)
{
    mv_t k = make(MV_SCATTER, 1, sendbuf, recvbuf, recvcount, dtype, root, acc, stream);
    k.scnt = sendcounts;
    k.sdis = displs;
    return run(comm, &k);
}

ghz_status_t ghz_alltoallv(const void* sendbuf, void* recvbuf, const size_t* sendcounts, const size_t* sdispls,
                           const size_t* recvcounts, const size_t* rdispls, ghz_dtype_t dtype,
                           const ghz_accuracy_t* acc, ghz_comm_t* comm, ghz_stream_t stream)
{
    mv_t k = make(MV_ALLTOALL, 1, sendbuf, recvbuf, 0, dtype, 0, acc, stream);
    k.scnt = sendcounts;
    k.sdis = sdispls;
    k.rcnt = recvcounts;
    k.rdis = rdispls;
    return run(comm, &k);
}
