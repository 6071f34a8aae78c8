/* ghz/coll/move_args.c: a data-movement call's arguments: its checks, who sends to
 * whom, the value range of what it sends, the v forms' counts pair by pair. */
#include <math.h>

#include "ghz/coll/detail/move_call.h"
#include "ghz/detail/error.h"

/* Whether rank `from` sends a block to rank `to`. */
static int moves(const coll_desc_t* k, int from, int to)
{
    return from != to && (!k->mv->rooted || (k->mv->from_root ? from : to) == k->root);
}

int coll_mv_sends_to(const ghz_comm_t* c, const coll_desc_t* k, int p)
{
    return moves(k, c->rank, p);
}

int coll_mv_recvs_from(const ghz_comm_t* c, const coll_desc_t* k, int p)
{
    return moves(k, p, c->rank);
}

uint64_t coll_mv_sent_raw(const ghz_comm_t* c, const coll_desc_t* k, const coll_move_t* m)
{
    uint64_t b = 0;
    int p;
    for (p = 0; p < c->size; p++)
        if (coll_mv_sends_to(c, k, p)) b += coll_move_n(m, &k->send, p) * ghz_dtype_size(k->dtype);
    return b;
}

ghz_status_t coll_mv_check_local(const ghz_comm_t* c, coll_desc_t* k)
{
    ghz_status_t st;
    if (!ghz_dtype_size(k->dtype)) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)k->dtype);
    /* (the v forms' counts are exchanged over MPI: coll_mv_check_counts) */
    if (k->v && !c->mpi)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "the v forms need a communicator made over MPI (ghz_comm_init)");
    if (k->mv->rooted && (k->root < 0 || k->root >= c->size))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "root %d of %d ranks", k->root, c->size);
    k->in = (const unsigned char*)k->sendbuf;
    k->out = (unsigned char*)k->recvbuf;
    if ((st = k->mv->layout(c, k)) != GHZ_SUCCESS) return st;
    if (!k->sends) k->in = NULL;
    if (!k->recvs) k->out = NULL;
    return coll_check_args(c, k, coll_mv_name(k), k->mv->in_place_forms);
}

ghz_status_t coll_mv_scan(ghz_comm_t* c, const coll_desc_t* k, coll_call_t* mine)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const int nb = k->send.single ? 1 : c->size;
    int p;
    mine->have_range = 0;
    if (!k->sends) return GHZ_SUCCESS;
    for (p = 0; p < nb; p++) {
        const size_t n = coll_lay_cnt(&k->send, p);
        double lo = NAN, hi = NAN;
        int nonfinite = 0;
        ghz_status_t st;
        if (!n) continue;
        st = c->be.range(&c->be, k->in + coll_lay_displ(&k->send, p) * e, n, k->dtype, NULL, &lo, &hi, &nonfinite);
        if (st != GHZ_SUCCESS) return st;
        mine->nonfinite |= nonfinite;
        if (isnan(lo)) continue;
        if (!mine->have_range || lo < mine->vmin) mine->vmin = lo;
        if (!mine->have_range || hi > mine->vmax) mine->vmax = hi;
        mine->have_range = 1;
    }
    return GHZ_SUCCESS;
}

/* Every rank learns what each peer sends it (gatherv, scatterv: the root learns every
 * rank's side) and compares. */
ghz_status_t coll_mv_check_counts(ghz_comm_t* c, const coll_desc_t* k)
{
    const int N = c->size, me = c->rank;
    size_t* got = c->wire_tmp; /* N entries */
    size_t mine, p;
    /* the side whose every block is checked: the receive side, or scatterv's root's send side */
    const int by_send = !k->mv->recv_blocks;
    ghz_status_t st;
    if (k->mv->send_blocks && k->mv->recv_blocks) {
        for (p = 0; p < (size_t)N; p++) c->seg_off[p] = coll_lay_cnt(&k->send, (int)p);
        st = coll_mpi_counts(c, c->seg_off, 1, got);
    } else {
        /* each rank's side of the pair with the root (allgatherv: with every rank) */
        mine = by_send ? (k->recvs ? k->recv.count : coll_lay_cnt(&k->send, me)) : k->send.count;
        st = coll_mpi_counts(c, &mine, 0, got);
    }
    if (st != GHZ_SUCCESS) return st;
    if (k->mv->rooted && me != k->root) return GHZ_SUCCESS;
    for (p = 0; p < (size_t)N; p++) {
        const coll_layout_t* l = by_send ? &k->send : &k->recv;
        const size_t want = coll_lay_cnt(l, (int)p);
        if (got[p] != want)
            return ghz_fail(GHZ_ERR_MISMATCH,
                            by_send ? "%s: rank %zu receives %zu elements where the root's sendcounts say %zu"
                                    : "%s: rank %zu sends %zu elements where this rank's recvcounts say %zu",
                            coll_mv_name(k), p, got[p], want);
    }
    return GHZ_SUCCESS;
}

/* Block `rank` of both sides (a side of one block: that block). */
size_t coll_mv_own_block(const ghz_comm_t* c, const coll_desc_t* k, const unsigned char** src, unsigned char** dst)
{
    const size_t e = ghz_dtype_size(k->dtype);
    const int me = c->rank;
    *src = NULL;
    *dst = NULL;
    if (!k->sends || !k->recvs || k->in_place) return 0;
    *src = k->in + coll_lay_displ(&k->send, me) * e;
    *dst = k->out + coll_lay_displ(&k->recv, me) * e;
    return *src == *dst ? 0 : coll_lay_cnt(&k->recv, me) * e;
}
