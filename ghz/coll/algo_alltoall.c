/* ghz/coll/algo_alltoall.c: pairwise alltoall: at step k rank r exchanges with (k - r) mod
 * N, whose partner then is r, so a block is encoded before anything lands in its place
 * and in place needs nothing more (exact in place is staged: coll_proto_init). */
#include "ghz/coll/detail/algo.h"

size_t coll_alltoall_need_staged(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    (void)c;
    return 3 * (coll_seg_wire_cap(m, t, window, piece) + 16);
}

size_t coll_alltoall_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    return m == COLL_EXACT && !c->be.staged ? 0 : coll_alltoall_need_staged(c, m, t, window, piece);
}

void coll_pairwise_alltoall(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, me = c->rank;
    const size_t e = r->elem, B = coll_seg_wire_cap(r->mode, r->dtype, m->w, r->piece);
    unsigned char *sb[2] = {NULL, NULL}, *rb = NULL;
    coll_req_t* sreq[2] = {c->sreq, c->sreq + COLL_MAX_PIECES};
    size_t ns[2] = {0, 0}, j;
    int k, step = 0;
    if (!coll_zero_copy(r)) {
        sb[0] = coll_pool_take(pool, B);
        sb[1] = coll_pool_take(pool, B);
        rb = coll_pool_take(pool, B);
        if (!sb[0] || !sb[1] || !rb) coll_fail(r, GHZ_ERR_NOMEM);
    }
    for (k = 0; k < N; k++) {
        const int p = coll_mod((long)k - me, N), par = step & 1;
        const size_t ms = coll_move_n(m, &m->send, p), mr = coll_move_n(m, &m->recv, p);
        const size_t ks = coll_pieces(ms, r->piece), kr = coll_pieces(mr, r->piece);
        unsigned char* dst = r->out + coll_move_at(m, &m->recv, p) * e;
        if (p == me) continue;
        step++;
        coll_wait_all(r, sreq[par], ns[par]);
        for (j = 0; j < kr; j++) coll_recv_piece(r, dst, mr, j, rb, p, &c->rreq[j]);
        for (j = 0; j < ks; j++)
            coll_send_piece(r, r->in + coll_move_at(m, &m->send, p) * e, ms, j, sb[par], p, &sreq[par][j]);
        ns[par] = ks;
        for (j = 0; j < kr; j++) coll_land_piece(r, dst, mr, j, rb, &c->rreq[j]);
    }
    coll_wait_all(r, sreq[0], ns[0]);
    coll_wait_all(r, sreq[1], ns[1]);
}
