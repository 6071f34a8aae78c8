/* ghz/coll/move_kinds.c: the entries of allgather, broadcast, scatter, gather, alltoall
 * and their v forms. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "ghz/coll/detail/move_call.h"
#include "ghz/coll/detail/nccl_move.h"
#include "ghz/coll/detail/plan.h"
#include "ghz/detail/error.h"

/* Gather and scatter take the tree of packs for blocks up to this size that go through
 * the wire buffers (fewer messages at the root); larger ones reach the root without
 * relays, linearly. */
#define TREE_MAX_BYTES ((size_t)256 << 10)

/* A side of one block (a non-root's side of a rooted kind, a broadcast's) */
#define SINGLE(count) ((coll_layout_t){NULL, NULL, (count), 1})

/* A side of a block per rank: the v form's arrays, or count each. */
static coll_layout_t blocks(const coll_desc_t* k, const size_t* cnt, const size_t* displ)
{
    coll_layout_t l = {k->v ? cnt : NULL, k->v ? displ : NULL, k->v ? 0 : k->count, 0};
    return l;
}

/* AUTO's table for scatter and gather. */
static ghz_algo_t tree_or_linear(const ghz_comm_t* c, const coll_desc_t* k, coll_mode_t mode, size_t extent)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const int tree = (mode != COLL_EXACT || c->be.staged) && extent * e <= TREE_MAX_BYTES && c->size > 2;
    const coll_cost_row_t rows[] = {{mode, GHZ_ALGO_BINOMIAL, tree ? 1.0 : INFINITY}, {mode, GHZ_ALGO_LINEAR, 2.0}};
    return rows[coll_argmin(rows, 2)].algo;
}

/* Whether sendbuf is this rank's own block of recvbuf (then in = that block). The layouts
 * run before the check they feed: a hostile displacement must not overflow pointer
 * arithmetic (undefined), so the address is an integer until checked. */
static int at_own_block(const ghz_comm_t* c, coll_desc_t* k, int mpi_in_place)
{
    const size_t e = ghz_dtype_size(k->dtype);
    unsigned char* own = (unsigned char*)((uintptr_t)k->out + (uintptr_t)coll_lay_displ(&k->recv, c->rank) * e);
    if (!mpi_in_place && (!k->out || k->in != own)) return 0;
    k->in = k->out ? own : NULL;
    return 1;
}

static ghz_status_t allgather_layout(const ghz_comm_t* c, coll_desc_t* k)
{
    k->sends = k->recvs = 1;
    k->recv = blocks(k, k->rcnt, k->rdis);
    if (k->v && (!k->rcnt || !k->rdis)) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL recvcounts or displs");
    k->in_place = at_own_block(c, k, k->sendbuf == coll_in_place);
    k->send = SINGLE(k->in_place ? coll_lay_cnt(&k->recv, c->rank) : k->count);
    return GHZ_SUCCESS;
}

/* its two relay buffers, and this rank's own frames as a broadcast's */
static size_t allgather_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    return coll_allgather_need(c, m, t, window, piece) + coll_bcast_need(c, m, t, window, piece);
}

/* The segments are this round's part of every block. */
static void allgather_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool,
                            const coll_move_t* m, ghz_algo_t algo, size_t window)
{
    const int N = c->size, me = c->rank;
    int s;
    (void)algo;
    for (s = 0; s < N; s++) {
        c->seg_off[s] = coll_move_at(m, &k->recv, s);
        c->seg_cnt[s] = coll_move_n(m, &k->recv, s);
    }
    coll_stage_fin(r, pool, k->in + m->off * r->elem, c->seg_cnt[me], window);
    coll_ring_allgather(r, pool);
    r->logical_bytes = 0;
    for (s = 0; s < N; s++)
        if (s != coll_mod(me + 1, N)) r->logical_bytes += c->seg_cnt[s] * r->elem;
}

static ghz_status_t bcast_layout(const ghz_comm_t* c, coll_desc_t* k)
{
    const int is_root = c->rank == k->root;
    k->sends = is_root;
    k->recvs = 1;
    k->recv = k->send = SINGLE(k->count);
    k->in_place = is_root && (k->sendbuf == coll_in_place || k->in == k->out);
    if (k->in_place) k->in = k->out;
    return GHZ_SUCCESS;
}

/* AUTO's table for k pieces a round, in piece times to the last rank: the binomial root
 * sends each piece lg N times, the chain (reported as ring) once. */
static ghz_algo_t bcast_settle(const ghz_comm_t* c, ghz_algo_t algo, size_t extent, size_t window, size_t piece)
{
    const size_t k = coll_pieces(extent < window ? extent : window, piece), N = (size_t)c->size;
    size_t lg = 0;
    while (((size_t)1 << lg) < N) lg++;
    const coll_cost_row_t rows[2] = {{COLL_EXACT, algo, (double)(k * lg + lg)},
                                     {COLL_EXACT, GHZ_ALGO_RING, N >= 3 ? (double)(k + N - 1) : INFINITY}};
    return rows[coll_argmin(rows, 2)].algo;
}

static void bcast_round(ghz_comm_t* c, const coll_desc_t* k, coll_round_t* r, coll_pool_t* pool, const coll_move_t* m,
                        ghz_algo_t algo, size_t window)
{
    (void)c;
    (void)window;
    r->out = k->out + m->off * r->elem;
    r->count = coll_move_n(m, &k->recv, 0);
    if (algo == GHZ_ALGO_RING) coll_chain_bcast(r, pool);
    else coll_binomial_bcast(r, pool);
}

static ghz_status_t scatter_layout(const ghz_comm_t* c, coll_desc_t* k)
{
    const int me = c->rank, is_root = me == k->root;
    k->sends = is_root;
    k->in_place = is_root && k->recvbuf == coll_in_place;
    k->recvs = !k->in_place; /* (a side that is not there: its buffer dropped, coll_mv_check_local) */
    if (k->sendbuf == coll_in_place) return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_IN_PLACE as the sendbuf of a scatter");
    if (!is_root && k->recvbuf == coll_in_place)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_IN_PLACE on a non-root rank of a scatter");
    if (k->v && is_root && (!k->scnt || !k->sdis))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL sendcounts or displs at the root");
    k->send = blocks(k, k->scnt, k->sdis);
    k->recv = SINGLE(k->v && k->in_place ? k->scnt[me] : k->count);
    return GHZ_SUCCESS;
}

static ghz_status_t gather_layout(const ghz_comm_t* c, coll_desc_t* k)
{
    const int me = c->rank, is_root = me == k->root;
    const int mpi_in_place = k->sendbuf == coll_in_place;
    k->sends = 1;
    k->recvs = is_root;
    if (k->v && is_root && (!k->rcnt || !k->rdis))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL recvcounts or displs at the root");
    if (!is_root && mpi_in_place) return ghz_fail(GHZ_ERR_INVALID_ARG, "MPI_IN_PLACE on a non-root rank of a gather");
    k->recv = blocks(k, k->rcnt, k->rdis);
    k->in_place = is_root && at_own_block(c, k, mpi_in_place);
    k->send = SINGLE(k->in_place && k->v ? k->rcnt[me] : k->count);
    return GHZ_SUCCESS;
}

/* Whether alltoallv's two sides lie alike. */
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
    k->sends = k->recvs = 1;
    /* one buffer for sides that lie alike is MPI_IN_PLACE; laid out otherwise, the
     * contract refuses the overlap */
    k->in_place = k->sendbuf == coll_in_place || (k->in && k->in == k->out && (!k->v || same_layout(c, k)));
    if (k->v && (!k->rcnt || !k->rdis || (!k->in_place && (!k->scnt || !k->sdis))))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL counts or displacements");
    k->recv = blocks(k, k->rcnt, k->rdis);
    k->send = k->in_place ? k->recv : blocks(k, k->scnt, k->sdis);
    if (k->in_place) k->in = k->out;
    return GHZ_SUCCESS;
}

#ifdef GHZ_WITH_NCCL
#define NCCL_NATIVE(fn) .nccl_native = fn,
#else
#define NCCL_NATIVE(fn)
#endif

static const coll_mv_kind_ops_t allgather = {
    .recv_blocks = 1, .in_place_forms = "MPI_IN_PLACE, or sendbuf at this rank's block of recvbuf",
    .layout = allgather_layout, .algo = GHZ_ALGO_RING, .need = allgather_need, .round = allgather_round,
    NCCL_NATIVE(coll_nccl_mv_allgather)};

static const coll_mv_kind_ops_t bcast = {
    .rooted = 1, .from_root = 1, .mpi_from_out = 1, .in_place_forms = "MPI_IN_PLACE or sendbuf == recvbuf at the root",
    .layout = bcast_layout, .algo = GHZ_ALGO_BINOMIAL, .need = coll_bcast_need, .settle = bcast_settle,
    .round = bcast_round, NCCL_NATIVE(coll_nccl_mv_bcast)};

static const coll_mv_kind_ops_t scatter = {
    .rooted = 1, .from_root = 1, .send_blocks = 1, .in_place_recv = 1,
    .in_place_forms = "recvbuf MPI_IN_PLACE at the root", .layout = scatter_layout, .choose = tree_or_linear,
    .move = coll_linear_scatter, .move_tree = coll_tree_scatter, .need = coll_linear_need, .need_tree = coll_tree_need,
    NCCL_NATIVE(coll_nccl_mv_scatter)};

static const coll_mv_kind_ops_t gather = {
    .rooted = 1, .recv_blocks = 1, .in_place_forms = "MPI_IN_PLACE, or sendbuf at the root's own block of recvbuf",
    .layout = gather_layout, .choose = tree_or_linear, .move = coll_linear_gather, .move_tree = coll_tree_gather,
    .need = coll_linear_need, .need_tree = coll_tree_need, NCCL_NATIVE(coll_nccl_mv_gather)};

static const coll_mv_kind_ops_t alltoall = {
    .send_blocks = 1, .recv_blocks = 1, .in_place_shared = 1,
    .in_place_forms = "MPI_IN_PLACE, or sendbuf == recvbuf with the same counts and displacements",
    .layout = alltoall_layout, .algo = GHZ_ALGO_PAIRWISE, .move = coll_pairwise_alltoall, .need = coll_alltoall_need,
    .need_staged = coll_alltoall_need_staged, NCCL_NATIVE(coll_nccl_mv_alltoall)};

const coll_mv_kind_ops_t* coll_mv_kind_ops(coll_kind_t kind)
{
    static const coll_mv_kind_ops_t* const kinds[] = {[MV_ALLGATHER] = &allgather, [MV_BCAST] = &bcast,
                                                      [MV_SCATTER] = &scatter, [MV_GATHER] = &gather,
                                                      [MV_ALLTOALL] = &alltoall};
    return (unsigned)kind < sizeof kinds / sizeof kinds[0] ? kinds[kind] : NULL;
}
