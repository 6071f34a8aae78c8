/* ghz/coll/move_kinds.c: the entries of ghz_allgather, ghz_broadcast, ghz_scatter,
 * ghz_gather and ghz_alltoall, and their v forms (detail/move_call.h,
 * coll_mv_kind_ops_t): where each kind's blocks are and its in-place rules, ghz's
 * algorithm and how a round of it runs. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/nccl_move.h"
#include "ghz/coll/detail/plan.h"
#include "ghz/detail/error.h"

/* Gather and scatter take the binomial tree of packs (algo_tree.c) for blocks of at
 * most this many bytes that travel through the wire buffers (lossy, or staged): fewer
 * messages at the root; larger blocks take the linear algorithm, whose blocks reach the
 * root without relays. */
#define TREE_MAX_BYTES ((size_t)256 << 10)

static coll_layout_t single(size_t count)
{
    coll_layout_t l = {NULL, NULL, count, 1};
    return l;
}

/* Every block of a side given as arrays or as one count per rank. */
static coll_layout_t blocks(const size_t* cnt, const size_t* displ, size_t count)
{
    coll_layout_t l = {cnt, displ, count, 0};
    return l;
}

/* Scatter and gather, AUTO's table and its argmin (ranks of the measured order): the tree
 * for small blocks through the wire buffers (lossy, or staged), else linear. */
static ghz_algo_t tree_or_linear(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode, size_t extent)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const int tree = (mode != COLL_EXACT || c->be.staged) && extent * e <= TREE_MAX_BYTES && c->size > 2;
    const coll_cost_row_t rows[] = {{mode, GHZ_ALGO_BINOMIAL, tree ? 1.0 : INFINITY}, {mode, GHZ_ALGO_LINEAR, 2.0}};
    return rows[coll_argmin(rows, 2)].algo;
}

static coll_need_fn tree_or_linear_need(ghz_algo_t algo, int staged)
{
    (void)staged;
    return algo == GHZ_ALGO_BINOMIAL ? coll_tree_need : coll_linear_need;
}

/* Where block displ of elements of e bytes starts in base. The layouts run before the
 * argument check (which they feed), so a hostile displacement must not make pointer
 * arithmetic overflow (undefined): the address is computed as an integer; the check
 * then refuses the call before anything is read there. */
static unsigned char* block_at(unsigned char* base, size_t displ, size_t e)
{
    return (unsigned char*)((uintptr_t)base + (uintptr_t)displ * (uintptr_t)e);
}

/* allgather(v): every rank's block to every rank */

static ghz_status_t allgather_layout(const ghz_comm_t* c, coll_desc_t* k)
{
    const int me = c->rank;
    const size_t e = ghz_dtype_size(k->dtype);
    const int mpi_in_place = k->sendbuf == coll_in_place;
    k->sends = k->recvs = 1;
    k->recv = k->v ? blocks(k->rcnt, k->rdis, 0) : blocks(NULL, NULL, k->count);
    if (k->v && (!k->rcnt || !k->rdis)) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL recvcounts or displs");
    k->in_place = mpi_in_place || (k->out && k->in == block_at(k->out, coll_lay_displ(&k->recv, me), e));
    if (k->in_place) k->in = k->out ? block_at(k->out, coll_lay_displ(&k->recv, me), e) : NULL;
    k->send = single(k->in_place ? coll_lay_cnt(&k->recv, me) : k->count);
    return GHZ_SUCCESS;
}

/* The ring allgather's needs: its two relay buffers and this rank's own frames. */
static size_t allgather_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    const size_t fin = m == COLL_EXACT && !c->be.staged ? 0 : coll_seg_wire_cap(m, t, window, piece) + 16;
    return coll_allgather_need(c, m, t, window, piece) + fin;
}

/* One round of the ring allgather: the segments are this round's part of every block;
 * this rank's part is encoded once into r->fin (unless exact values move straight). */
static void allgather_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool,
                            const coll_move_t* m, ghz_algo_t algo, size_t window)
{
    const int N = c->size, me = c->rank;
    size_t j, n, kp;
    int s;
    (void)algo;
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

/* broadcast: the root's block to every rank */

static ghz_status_t bcast_layout(const ghz_comm_t* c, coll_desc_t* k)
{
    const int is_root = c->rank == k->root;
    const int mpi_in_place = k->sendbuf == coll_in_place;
    k->sends = is_root;
    k->recvs = 1;
    k->recv = k->send = single(k->count);
    k->in_place = is_root && (mpi_in_place || k->in == k->out);
    if (k->in_place) k->in = k->out;
    return GHZ_SUCCESS;
}

/* A broadcast's shape, from its first round (agreed sizes: every rank alike): AUTO's
 * table of two rows for k pieces a round, in piece times to the last rank: the binomial
 * root sends every piece lg N times (k lg N + lg N), the chain once (k + N - 1, from
 * three ranks). The chain is reported as GHZ_ALGO_RING. */
static ghz_algo_t bcast_settle(const ghz_comm_t* c, ghz_algo_t algo, size_t extent, size_t window, size_t piece)
{
    const size_t k = coll_pieces(extent < window ? extent : window, piece), N = (size_t)c->size;
    size_t lg = 0;
    coll_cost_row_t rows[2];
    while (((size_t)1 << lg) < N) lg++;
    rows[0].mode = rows[1].mode = COLL_EXACT;
    rows[0].algo = algo;
    rows[0].cost = (double)(k * lg + lg);
    rows[1].algo = GHZ_ALGO_RING;
    rows[1].cost = N >= 3 ? (double)(k + N - 1) : INFINITY;
    return rows[coll_argmin(rows, 2)].algo;
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

static void bcast_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, const coll_move_t* m,
                        ghz_algo_t algo, size_t window)
{
    const int chain = algo == GHZ_ALGO_RING;
    const size_t e = r->elem;
    (void)window;
    r->out = k->out + m->off * e;
    r->count = coll_move_n(m, &k->recv, 0);
    if (chain) coll_chain_bcast(r, pool);
    else coll_binomial_bcast(r, pool);
    r->logical_bytes = (uint64_t)bcast_children(c, k->root, chain) * r->count * e;
}

/* scatter(v): the root's block p to rank p */

static ghz_status_t scatter_layout(const ghz_comm_t* c, coll_desc_t* k)
{
    const int me = c->rank, is_root = me == k->root;
    const int mpi_in_place = k->sendbuf == coll_in_place;
    k->sends = is_root;
    k->in_place = is_root && k->recvbuf == coll_in_place;
    k->recvs = !k->in_place;
    if (k->in_place) k->out = NULL;
    if (mpi_in_place) return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_IN_PLACE as the sendbuf of a scatter");
    if (!is_root && k->recvbuf == coll_in_place)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_IN_PLACE on a non-root rank of a scatter");
    if (k->v && is_root && (!k->scnt || !k->sdis))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL sendcounts or displs at the root");
    k->send = k->v ? blocks(k->scnt, k->sdis, 0) : blocks(NULL, NULL, k->count);
    k->recv = single(k->v && k->in_place ? k->scnt[me] : k->count);
    return GHZ_SUCCESS;
}

static void scatter_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, const coll_move_t* m,
                          ghz_algo_t algo, size_t window)
{
    (void)window;
    if (algo == GHZ_ALGO_BINOMIAL) {
        coll_tree_scatter(r, m, pool); /* (the tree counts what its packs carry, relayed blocks included) */
        return;
    }
    coll_linear_scatter(r, m, pool);
    r->logical_bytes = coll_mv_sent_raw(c, k, m);
}

/* gather(v): every rank's block to the root's block p */

static ghz_status_t gather_layout(const ghz_comm_t* c, coll_desc_t* k)
{
    const int me = c->rank, is_root = me == k->root;
    const size_t e = ghz_dtype_size(k->dtype);
    const int mpi_in_place = k->sendbuf == coll_in_place;
    k->sends = 1;
    k->recvs = is_root;
    if (k->v && is_root && (!k->rcnt || !k->rdis))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL recvcounts or displs at the root");
    if (!is_root && mpi_in_place) return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_IN_PLACE on a non-root rank of a gather");
    k->recv = k->v ? blocks(k->rcnt, k->rdis, 0) : blocks(NULL, NULL, k->count);
    k->in_place = is_root && (mpi_in_place || (k->out && k->in == block_at(k->out, coll_lay_displ(&k->recv, me), e)));
    if (k->in_place) k->in = k->out ? block_at(k->out, coll_lay_displ(&k->recv, me), e) : NULL;
    k->send = single(k->in_place && k->v ? k->rcnt[me] : k->count);
    if (!is_root) k->out = NULL;
    return GHZ_SUCCESS;
}

static void gather_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, const coll_move_t* m,
                         ghz_algo_t algo, size_t window)
{
    (void)window;
    if (algo == GHZ_ALGO_BINOMIAL) {
        coll_tree_gather(r, m, pool); /* (the tree counts what its packs carry, relayed blocks included) */
        return;
    }
    coll_linear_gather(r, m, pool);
    r->logical_bytes = coll_mv_sent_raw(c, k, m);
}

/* alltoall(v): rank q's block p to rank p's block q */

/* Whether alltoallv's two sides lie alike: the same counts and displacements. */
static int same_layout(const ghz_comm_t* c, const coll_desc_t* k)
{
    int p;
    if (!k->scnt || !k->sdis || !k->rcnt || !k->rdis) return 0;
    for (p = 0; p < c->size; p++)
        if (k->scnt[p] != k->rcnt[p] || k->sdis[p] != k->rdis[p]) return 0;
    return 1;
}

static ghz_status_t alltoall_layout(const ghz_comm_t* c, coll_desc_t* k)
{
    const int mpi_in_place = k->sendbuf == coll_in_place;
    k->sends = k->recvs = 1;
    /* One buffer for both sides is in place too where the sides lie alike (always in
     * the uniform form): what MPI_IN_PLACE means, and it runs as such (the send side is
     * the receive side). Laid out otherwise, the sides overlap: the contract refuses
     * it (contract.c). */
    k->in_place = mpi_in_place || (k->in && k->in == k->out && (!k->v || same_layout(c, k)));
    if (k->v && (!k->rcnt || !k->rdis || (!k->in_place && (!k->scnt || !k->sdis))))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL counts or displacements");
    k->recv = k->v ? blocks(k->rcnt, k->rdis, 0) : blocks(NULL, NULL, k->count);
    k->send = k->in_place ? k->recv : k->v ? blocks(k->scnt, k->sdis, 0) : k->recv;
    if (k->in_place) k->in = k->out;
    return GHZ_SUCCESS;
}

/* in place, exact values go through the wire buffers anyway (algo_alltoall.c) */
static coll_need_fn alltoall_needs(ghz_algo_t algo, int staged)
{
    (void)algo;
    return staged ? coll_alltoall_need_staged : coll_alltoall_need;
}

static void alltoall_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, const coll_move_t* m,
                           ghz_algo_t algo, size_t window)
{
    (void)algo;
    (void)window;
    coll_pairwise_alltoall(r, m, pool);
    r->logical_bytes = coll_mv_sent_raw(c, k, m);
}

static const coll_mv_kind_ops_t allgather = {
    .in_place_forms = "MPI_IN_PLACE, or sendbuf at this rank's block of recvbuf",
    .kind = MV_ALLGATHER,
    .name = "allgather",
    .vname = "allgatherv",
    .recv_blocks = 1,
    .layout = allgather_layout,
    .algo = GHZ_ALGO_RING,
    .need_fixed = allgather_need,
    .round = allgather_round,
#ifdef GHZ_WITH_NCCL
    .nccl_native = coll_nccl_mv_allgather,
#endif
};

static const coll_mv_kind_ops_t bcast = {
    .in_place_forms = "MPI_IN_PLACE or sendbuf == recvbuf at the root",
    .kind = MV_BCAST,
    .name = "broadcast",
    .rooted = 1,
    .from_root = 1,
    .layout = bcast_layout,
    .mpi_from_out = 1,
    .algo = GHZ_ALGO_BINOMIAL,
    .need_fixed = coll_bcast_need,
    .settle = bcast_settle,
    .round = bcast_round,
#ifdef GHZ_WITH_NCCL
    .nccl_native = coll_nccl_mv_bcast,
#endif
};

static const coll_mv_kind_ops_t scatter = {
    .in_place_forms = "recvbuf MPI_IN_PLACE at the root",
    .kind = MV_SCATTER,
    .name = "scatter",
    .vname = "scatterv",
    .rooted = 1,
    .from_root = 1,
    .send_blocks = 1,
    .in_place_recv = 1,
    .layout = scatter_layout,
    .choose = tree_or_linear,
    .need = tree_or_linear_need,
    .round = scatter_round,
#ifdef GHZ_WITH_NCCL
    .nccl_native = coll_nccl_mv_scatter,
#endif
};

static const coll_mv_kind_ops_t gather = {
    .in_place_forms = "MPI_IN_PLACE, or sendbuf at the root's own block of recvbuf",
    .kind = MV_GATHER,
    .name = "gather",
    .vname = "gatherv",
    .rooted = 1,
    .recv_blocks = 1,
    .layout = gather_layout,
    .choose = tree_or_linear,
    .need = tree_or_linear_need,
    .round = gather_round,
#ifdef GHZ_WITH_NCCL
    .nccl_native = coll_nccl_mv_gather,
#endif
};

/* (over NCCL: ncclAlltoAll, an in-place rank sending from a copy in the pool where its
 * blocks fit there; otherwise, and for alltoallv, a group of sends and receives) */
static const coll_mv_kind_ops_t alltoall = {
    .in_place_forms = "MPI_IN_PLACE, or sendbuf == recvbuf with the same counts and displacements",
    .kind = MV_ALLTOALL,
    .name = "alltoall",
    .vname = "alltoallv",
    .send_blocks = 1,
    .recv_blocks = 1,
    .in_place_shared = 1,
    .layout = alltoall_layout,
    .algo = GHZ_ALGO_PAIRWISE,
    .need = alltoall_needs,
    .round = alltoall_round,
#ifdef GHZ_WITH_NCCL
    .nccl_native = coll_nccl_mv_alltoall,
#endif
};

const coll_mv_kind_ops_t* coll_mv_kind_ops(coll_kind_t kind)
{
    switch (kind) {
    case MV_ALLGATHER: return &allgather;
    case MV_BCAST: return &bcast;
    case MV_SCATTER: return &scatter;
    case MV_GATHER: return &gather;
    case MV_ALLTOALL: return &alltoall;
    default: break;
    }
    return NULL;
}
