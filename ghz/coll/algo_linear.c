/* ghz/coll/algo_linear.c: linear gather and scatter: the root posts every receive at
 * once (gather), or encodes and sends each block at once (scatter). */
#include "ghz/coll/detail/algo.h"

size_t coll_linear_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    if (m == COLL_EXACT && !c->be.staged) return 0;
    /* the root's N - 1 buffers, on every rank: rounds are sized alike */
    return (size_t)(c->size > 1 ? c->size - 1 : 1) * (coll_seg_wire_cap(m, t, window, piece) + 16);
}

/* The root moves a block with every peer, the others one with the root, all sending or
 * all receiving: every piece posted, then every one completed in the same order. */
static void linear(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool, int send)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, root = r->root, at_root = c->rank == root;
    const coll_layout_t* l = send ? &m->send : &m->recv;
    coll_req_t* req = send ? c->sreq : c->rreq;
    size_t j, nq;
    int q, pass;
    for (pass = 0; pass < 2; pass++)
        for (q = 1, nq = 0; q < (at_root ? N : 2); q++) {
            const int p = at_root ? coll_mod(root + q, N) : root;
            const size_t n = coll_move_n(m, l, p), kp = coll_pieces(n, r->piece), at = coll_move_at(m, l, p) * r->elem;
            if (pass == 0 && !coll_zero_copy(r)) { /* (a wire buffer for the block) */
                c->wire_ptr[p] = coll_pool_take(pool, coll_seg_wire_cap(r->mode, r->dtype, m->w, r->piece));
                if (!c->wire_ptr[p]) coll_fail(r, GHZ_ERR_NOMEM);
            }
            for (j = 0; j < kp; j++, nq++) {
                unsigned char* wb = (unsigned char*)c->wire_ptr[p];
                if (pass == 0 && send) coll_send_piece(r, r->in + at, n, j, wb, p, &req[nq]);
                else if (pass == 0) coll_recv_piece(r, r->out + at, n, j, wb, p, &req[nq]);
                else if (send) coll_wait_send(r, &req[nq]);
                else coll_land_piece(r, r->out + at, n, j, wb, &req[nq]);
            }
        }
}

void coll_linear_gather(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool)
{
    linear(r, m, pool, r->comm->rank != r->root);
}

void coll_linear_scatter(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool)
{
    linear(r, m, pool, r->comm->rank == r->root);
}
