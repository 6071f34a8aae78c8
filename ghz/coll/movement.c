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
 * fit the pool. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "ghz/coll/detail/auto_rule.h"
#include "ghz/coll/detail/calls.h"
#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/nccl.h"
#include "ghz/coll/detail/nccl_move.h"
#include "ghz/detail/error.h"

/* Gather and scatter take the binomial tree of packs (algo_tree.c) for blocks of at
 * most this many bytes that travel through the wire buffers (lossy, or staged): fewer
 * messages at the root; larger blocks take the linear algorithm, whose blocks reach the
 * root without relays. */
#define TREE_MAX_BYTES ((size_t)256 << 10)

/* The MPI library's own call (exact, CPU backend, every count and displacement below
 * INT_MAX: agreed). The v forms' int arrays live in the per-call arrays (2N ints fit in
 * N size_t). */
static ghz_status_t mpi_call(ghz_comm_t* c, const mv_t* k)
{
    const MPI_Datatype dt = coll_mpi_dtype(k->dtype);
    const int N = c->size;
    int* sc = (int*)c->seg_off;
    int* sd = sc + N;
    int* rc_ = (int*)c->seg_cnt;
    int* rd = rc_ + N;
    const void* in = k->in_place ? MPI_IN_PLACE : (const void*)k->in;
    const int n = (int)k->count;
    int p, rc = MPI_SUCCESS;
    for (p = 0; p < N && k->v; p++) {
        sc[p] = k->sends && !k->send.single ? (int)coll_lay_cnt(&k->send, p) : 0;
        sd[p] = k->sends && !k->send.single ? (int)coll_lay_displ(&k->send, p) : 0;
        rc_[p] = k->recvs && !k->recv.single ? (int)coll_lay_cnt(&k->recv, p) : 0;
        rd[p] = k->recvs && !k->recv.single ? (int)coll_lay_displ(&k->recv, p) : 0;
    }
    switch (k->kind) {
    case MV_ALLGATHER:
        rc = k->v ? MPI_Allgatherv(in, (int)k->send.count, dt, k->out, rc_, rd, dt, c->mpi)
                  : MPI_Allgather(in, n, dt, k->out, n, dt, c->mpi);
        break;
    case MV_BCAST: rc = MPI_Bcast(k->out, n, dt, k->root, c->mpi); break;
    case MV_SCATTER: {
        void* out = k->in_place ? MPI_IN_PLACE : (void*)k->out;
        rc = k->v ? MPI_Scatterv(k->in, sc, sd, dt, out, (int)k->recv.count, dt, k->root, c->mpi)
                  : MPI_Scatter(k->in, n, dt, out, n, dt, k->root, c->mpi);
        break;
    }
    case MV_GATHER:
        rc = k->v ? MPI_Gatherv(in, (int)k->send.count, dt, k->out, rc_, rd, dt, k->root, c->mpi)
                  : MPI_Gather(in, n, dt, k->out, n, dt, k->root, c->mpi);
        break;
    case MV_ALLTOALL:
        rc = k->v ? MPI_Alltoallv(in, sc, sd, dt, k->out, rc_, rd, dt, c->mpi)
                  : MPI_Alltoall(in, n, dt, k->out, n, dt, c->mpi);
        break;
    }
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

/* The ring allgather's needs: its two relay buffers and this rank's own frames. */
static size_t allgather_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    const size_t fin = m == COLL_EXACT && !c->be.staged ? 0 : coll_seg_wire_cap(m, t, window, piece) + 16;
    return coll_allgather_need(c, m, t, window, piece) + fin;
}

/* One round of the ring allgather: the segments are this round's part of every block;
 * this rank's part is encoded once into r->fin (unless exact values move straight). */
static void allgather_round(ghz_comm_t* c, const mv_t* k, coll_round_t* r, coll_pool_t* pool,
                            const coll_move_t* m, size_t window)
{
    const int N = c->size, me = c->rank;
    size_t j, n, kp;
    int s;
    for (s = 0; s < N; s++) {
        c->seg_off[s] = coll_move_at(m, &k->recv, s);
        c->seg_cnt[s] = coll_move_n(m, &k->recv, s);
    }
    r->fin_sizes = c->wire_size + (size_t)N * COLL_MAX_PIECES;
    n = c->seg_cnt[me];
    kp = coll_pieces(n, r->piece);
    if (!coll_zero_copy(r)) {
        r->fin = coll_pool_take(pool, coll_seg_wire_cap(r->mode, r->dtype, window, r->piece));
        if (!r->fin) coll_fail(r, GHZ_ERR_NOMEM);
        for (j = 0; j < kp; j++) {
            const size_t pc = coll_piece_n(r, n, j);
            r->fin_sizes[j] = pc ? coll_encode(r, k->in + (m->off + j * r->piece) * r->elem, pc,
                                               r->fin + coll_piece_wire_off(r, j), coll_piece_cap(r, n, j))
                                 : 0;
        }
    }
    coll_ring_allgather(r, pool);
    r->logical_bytes = 0;
    for (s = 0; s < N; s++)
        if (s != coll_mod(me + 1, N)) r->logical_bytes += c->seg_cnt[s] * r->elem;
}

/* Children of this rank in the broadcast: the chain's one, or the binomial tree's
 * (coll_binomial_bcast). */
static int bcast_children(const ghz_comm_t* c, int root, int chain)
{
    const int N = c->size, v = coll_mod((long)c->rank - root, N);
    int mask = 1, m, kids = 0;
    if (chain) return v + 1 < N;
    while (mask < N && !(v & mask)) mask <<= 1;
    for (m = mask >> 1; m > 0; m >>= 1) kids += v + m < N;
    return kids;
}

/* Whether a broadcast of k pieces a round goes down the chain: the binomial root sends
 * every piece lg N times (about k lg N + lg N - 1 piece times to the last rank), the
 * chain once (k + N - 2). */
static int chain_pays(int N, size_t k)
{
    int lg = 0;
    while ((1 << lg) < N) lg++;
    return N >= 3 && k * (size_t)lg + (size_t)lg > k + (size_t)N - 1;
}

/* The uncompressed bytes this rank's messages of a round carry (scatter, gather,
 * alltoall). */
static uint64_t sent_raw(const ghz_comm_t* c, const mv_t* k, const coll_move_t* m)
{
    uint64_t b = 0;
    int p;
    if (!k->sends) return 0;
    if (k->kind == MV_GATHER) return c->rank == k->root ? 0 : coll_move_n(m, &k->send, k->root) * ghz_dtype_size(k->dtype);
    for (p = 0; p < c->size; p++)
        if (p != c->rank) b += coll_move_n(m, &k->send, p) * ghz_dtype_size(k->dtype);
    return b;
}

/* AUTO compresses a data-movement call from the size fixed at init for an allreduce's
 * (auto_rule.h), compared with N blocks: a rank moves a block to or from every other
 * rank, about as many bytes as an allreduce of N / 2 blocks, and its compressed path
 * has fewer fixed costs a round (over NCCL one host wait where the allreduce pays
 * three), so its crossover comes at about half the size (docs/RESULTS.md). */
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
    const int input_in_out = k->in_place && k->kind != MV_SCATTER;
    size_t sl = 0, sf = 0, rl = 0, rf = 0;
    double t0 = coll_now(), t_stage;
    mv_t h = *k;
    ghz_status_t st = GHZ_SUCCESS;
    if (k->sends && !input_in_out) st = coll_mv_measure(c, &k->send, e, &sl, &sf);
    if (st == GHZ_SUCCESS && k->recvs) st = coll_mv_measure(c, &k->recv, e, &rl, &rf);
    if (st == GHZ_SUCCESS && rf && (k->v || input_in_out)) st = c->be.copy(&c->be, c->small_out, k->out, rf * e);
    if (st == GHZ_SUCCESS && sf) st = c->be.copy(&c->be, c->small_in, k->in, sf * e);
    /* the host call writes small_out: the previous call's copy out of it must be done,
     * which a copy in has waited for (each waits for the stream), else a wait here (a
     * broadcast's non-root copies nothing in) */
    if (st == GHZ_SUCCESS && !sf && !(rf && (k->v || input_in_out))) st = c->be.sync(&c->be);
    st = coll_stage_agree(c, st);
    if (st != GHZ_SUCCESS) return st;
    t_stage = coll_now() - t0;
    h.sendbuf = input_in_out ? (k->kind == MV_BCAST ? (const void*)c->small_out : MPI_IN_PLACE)
                : k->sends   ? (const void*)c->small_in
                             : NULL;
    h.recvbuf = k->kind == MV_SCATTER && k->in_place ? MPI_IN_PLACE : k->recvs ? (void*)c->small_out : NULL;
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
    const ghz_algo_t algo = *algo_io;
    int chain = 0;
    const size_t e = proto->elem;
    coll_need_fn need;
    size_t window, off;
    switch (k->kind) {
    case MV_ALLGATHER: need = allgather_need; break;
    case MV_BCAST: need = coll_bcast_need; break;
    case MV_ALLTOALL: need = proto->staged ? coll_alltoall_need_staged : coll_alltoall_need; break;
    default: need = algo == GHZ_ALGO_BINOMIAL ? coll_tree_need : coll_linear_need; break;
    }
    window = coll_fit_window(c, need, NULL, proto->mode, k->dtype, proto->piece);
    if (window == 0)
        return ghz_fail(GHZ_ERR_NOMEM, "pool_bytes %zu cannot hold one round of %s on %d ranks: configure a larger pool",
                        c->pool_bytes, coll_mv_name(k), c->size);
    /* a broadcast's shape, from its first round (agreed sizes: every rank alike) */
    chain = k->kind == MV_BCAST && chain_pays(c->size, coll_pieces(extent < window ? extent : window, proto->piece));
    if (chain) *algo_io = GHZ_ALGO_RING;
    *rounds = 0;
    for (off = 0; off < extent; off += window) {
        coll_round_t r = *proto;
        coll_pool_t pool = {c->pool, 0, c->pool_bytes, c->pool_raw, 0, c->pool_raw ? c->pool_bytes : 0};
        coll_move_t m;
        m.send = k->send;
        m.recv = k->recv;
        m.off = off;
        m.w = extent - off < window ? extent - off : window;
        switch (k->kind) {
        case MV_ALLGATHER: allgather_round(c, k, &r, &pool, &m, window); break;
        case MV_BCAST:
            r.out = k->out + off * e;
            r.count = coll_move_n(&m, &k->recv, 0);
            if (chain) coll_chain_bcast(&r, &pool);
            else coll_binomial_bcast(&r, &pool);
            r.logical_bytes = (uint64_t)bcast_children(c, k->root, chain) * r.count * e;
            break;
        case MV_SCATTER:
            if (algo == GHZ_ALGO_BINOMIAL) coll_tree_scatter(&r, &m, &pool);
            else coll_linear_scatter(&r, &m, &pool);
            break;
        case MV_GATHER:
            if (algo == GHZ_ALGO_BINOMIAL) coll_tree_gather(&r, &m, &pool);
            else coll_linear_gather(&r, &m, &pool);
            break;
        case MV_ALLTOALL: coll_pairwise_alltoall(&r, &m, &pool); break;
        }
        /* (the tree counts what its packs carry, relayed blocks included) */
        if (k->kind != MV_ALLGATHER && k->kind != MV_BCAST && algo != GHZ_ALGO_BINOMIAL)
            r.logical_bytes = sent_raw(c, k, &m);
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
    /* numbered like every call (the MPI transport's messages carry the number); a broken
     * communicator moves nothing (reduce_entry.c, coll_call_start) */
    c->tp.seq = ++c->calls;
    c->moving = 0;
    st = coll_mv_check_local(c, k);
    if (st == GHZ_SUCCESS && c->broken != GHZ_SUCCESS)
        st = ghz_fail(c->broken, "the communicator is broken: an earlier call failed after its data started to move (%s)",
                      ghz_status_string(c->broken));
    /* the input must be ready before any backend work reads it */
    if (st == GHZ_SUCCESS) st = c->be.begin(&c->be, k->stream);
    /* (begin tells whether the stream is being captured) */
    if (st == GHZ_SUCCESS && c->be.capturing)
        st = ghz_fail(GHZ_ERR_UNSUPPORTED, "CUDA-graph capture: the data-movement calls cannot be captured");
    /* (over NCCL, a uniform lossy AUTO call that the calibrated size runs exact needs no
     * range: every rank decides it from the count alone, which the agreement checks) */
    if (st == GHZ_SUCCESS && k->acc && !nccl_auto_exact(c, k)) st = coll_mv_scan(c, k, &mine);
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
        B = k->a.mode == GHZ_EB_ABS ? k->a.bound : all.have_range ? k->a.bound * (all.vmax - all.vmin) : 0.0;
        if (!isfinite(B) || !isfinite(2 * B))
            return ghz_fail(GHZ_ERR_BAD_BOUND, "bound %g over the range [%g, %g] is not usable", k->a.bound,
                            all.vmin, all.vmax);
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
#ifdef GHZ_WITH_NCCL
    if (c->nccl && c->size > 1) {
        /* NCCL moves the bytes: its own call exact, compressed blocks lossy (move_nccl.c) */
        coll_round_t acc;
        memset(&acc, 0, sizeof acc);
        c->moving = 1;
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
           : k->kind == MV_ALLGATHER ? GHZ_ALGO_RING
           : k->kind == MV_BCAST     ? GHZ_ALGO_BINOMIAL
           : k->kind == MV_ALLTOALL  ? GHZ_ALGO_PAIRWISE
           : (mode != COLL_EXACT || c->be.staged) && extent * e <= TREE_MAX_BYTES && c->size > 2
               ? GHZ_ALGO_BINOMIAL
               : GHZ_ALGO_LINEAR;

    memset(&proto, 0, sizeof proto);
    if (algo == GHZ_ALGO_MPI) {
        /* (a broadcast's root copies its input first; MPI does the rest of every call) */
        st = k->kind == MV_BCAST ? own_block(c, k) : GHZ_SUCCESS;
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
        /* in place, an exact alltoall stages its blocks through the wire buffers
         * (algo_alltoall.c) */
        proto.staged = c->be.staged || (k->kind == MV_ALLTOALL && k->in_place);
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

/* One call; the backend's capture flag (set by begin) lasts for that call only. */
static ghz_status_t run(ghz_comm_t* c, mv_t* k)
{
    const ghz_status_t st = run_call(c, k);
    if (c) {
        c->be.capturing = 0;
        /* (as collectives.c's run: a failure once data moved breaks the communicator) */
        if (st != GHZ_SUCCESS && c->broken == GHZ_SUCCESS && (c->moving || st == GHZ_ERR_MPI)) c->broken = st;
    }
    return st;
}

static mv_t make(mv_kind_t kind, int v, const void* sendbuf, void* recvbuf, size_t count, ghz_dtype_t dtype,
                 int root, const ghz_accuracy_t* acc, ghz_stream_t stream)
{
    mv_t k;
    memset(&k, 0, sizeof k);
    k.kind = kind;
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
