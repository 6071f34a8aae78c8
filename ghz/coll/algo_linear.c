/* ghz/coll/algo_linear.c: linear gather and scatter: the root posts every receive at
 * once (gather), or encodes and sends each block at once (scatter). */
#include "ghz/coll/detail/move.h"

size_t coll_linear_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    if (m == COLL_EXACT && !c->be.staged) return 0;
    /* the root's N - 1 buffers, on every rank: rounds are sized alike */
    return (size_t)(c->size > 1 ? c->size - 1 : 1) * (coll_seg_wire_cap(m, t, window, piece) + 16);
}

static unsigned char* peer_buf(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool)
{
    unsigned char* b;
    if (coll_zero_copy(r)) return NULL;
    b = coll_pool_take(pool, coll_seg_wire_cap(r->mode, r->dtype, m->w, r->piece));
    if (!b) coll_fail(r, GHZ_ERR_NOMEM);
    return b;
}

void coll_linear_gather(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, me = c->rank, root = r->root;
    const size_t e = r->elem;
    size_t j, nr = 0;
    int q;
    if (me != root) {
        const size_t n = coll_move_n(m, &m->send, root), kp = coll_pieces(n, r->piece);
        unsigned char* wb = peer_buf(r, m, pool);
        for (j = 0; j < kp; j++)
            coll_send_piece(r, r->in + coll_move_at(m, &m->send, root) * e, n, j, wb, root, &c->sreq[j]);
        coll_wait_all(r, c->sreq, kp);
        return;
    }
    for (q = 1; q < N; q++) {
        const int p = coll_mod(root + q, N);
        const size_t n = coll_move_n(m, &m->recv, p), kp = coll_pieces(n, r->piece);
        unsigned char* wb = peer_buf(r, m, pool);
        c->wire_ptr[p] = wb;
        for (j = 0; j < kp; j++)
            coll_recv_piece(r, r->out + coll_move_at(m, &m->recv, p) * e, n, j, wb, p, &c->rreq[nr++]);
    }
    nr = 0;
    for (q = 1; q < N; q++) {
        const int p = coll_mod(root + q, N);
        const size_t n = coll_move_n(m, &m->recv, p), kp = coll_pieces(n, r->piece);
        for (j = 0; j < kp; j++)
            coll_land_piece(r, r->out + coll_move_at(m, &m->recv, p) * e, n, j,
                            (const unsigned char*)c->wire_ptr[p], &c->rreq[nr++]);
    }
}

void coll_linear_scatter(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, me = c->rank, root = r->root;
    const size_t e = r->elem;
    size_t j, ns = 0;
    int q;
    if (me != root) {
        const size_t n = coll_move_n(m, &m->recv, root), kp = coll_pieces(n, r->piece);
        unsigned char* wb = peer_buf(r, m, pool);
        for (j = 0; j < kp; j++)
            coll_recv_piece(r, r->out + coll_move_at(m, &m->recv, root) * e, n, j, wb, root, &c->rreq[j]);
        for (j = 0; j < kp; j++)
            coll_land_piece(r, r->out + coll_move_at(m, &m->recv, root) * e, n, j, wb, &c->rreq[j]);
        return;
    }
    for (q = 1; q < N; q++) {
        const int p = coll_mod(root + q, N);
        const size_t n = coll_move_n(m, &m->send, p), kp = coll_pieces(n, r->piece);
        unsigned char* wb = peer_buf(r, m, pool);
        for (j = 0; j < kp; j++)
            coll_send_piece(r, r->in + coll_move_at(m, &m->send, p) * e, n, j, wb, p, &c->sreq[ns++]);
    }
    coll_wait_all(r, c->sreq, ns);
}
