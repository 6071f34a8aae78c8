/* ghz/coll/algo_ring.c: ring reduce-scatter and allgather (COLL.md, Algorithms). Segment
 * s is reduced along the chain s+1, ..., s: one fixed order, whatever the timing. Step k's
 * pieces land in rb[k & 1] and are sent on from there (exact) or from sb[k & 1] (lossy);
 * a buffer is reused two steps later, after the sends that read it completed. */
#include "ghz/coll/detail/algo.h"

size_t coll_ring_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    size_t B = coll_seg_wire_cap(m, t, window, piece) + 16;
    if (m == COLL_EXACT && !c->be.staged) return 2 * B;
    /* rb[2], sb[2], fin, and the own frames (HOMO) or raw values (DOC) */
    return 5 * B + (m == COLL_HOMO ? B : window * ghz_dtype_size(t) + 16);
}

void coll_ring_reduce_scatter(coll_round_t* r, coll_pool_t* pool, unsigned char* out_own)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, me = c->rank, next = coll_mod(me + 1, N), prev = coll_mod(me - 1, N);
    const size_t S = coll_max_seg(r), B = coll_seg_wire_cap(r->mode, r->dtype, S, r->piece);
    const int lossy = !coll_zero_copy(r);
    unsigned char *rb[2], *sb[2], *own = NULL, *tmp = NULL;
    /* Exact in place: the last step combines straight into the result, which no send
     * reads (step -1 sends segment me - 1, later steps send from rb). */
    const int direct = !lossy && out_own == r->in + r->seg_off[me] * r->elem;
    coll_req_t* sreq[2] = {c->sreq, c->sreq + COLL_MAX_PIECES};
    coll_req_t* rreq = c->rreq;
    size_t j, kp;
    int k;

    rb[0] = coll_pool_take(pool, B);
    rb[1] = coll_pool_take(pool, B);
    sb[0] = lossy ? coll_pool_take(pool, B) : rb[0];
    sb[1] = lossy ? coll_pool_take(pool, B) : rb[1];
    if (lossy) r->fin = coll_pool_take(pool, B);
    if (r->mode == COLL_HOMO) own = coll_pool_take(pool, B);
    if (coll_doc_like(r)) tmp = coll_pool_raw(pool, S * r->elem);
    if (!rb[1] || !sb[1] || (lossy && !r->fin) || (r->mode == COLL_HOMO && !own) || (coll_doc_like(r) && !tmp))
        coll_fail(r, GHZ_ERR_NOMEM);

    kp = coll_pieces(r->seg_cnt[prev], r->piece); /* step -1: this rank's values of segment me - 1 */
    for (j = 0; j < kp; j++)
        coll_send_piece(r, r->in + r->seg_off[prev] * r->elem, r->seg_cnt[prev], j, sb[1], next, &sreq[1][j]);
    for (k = 0; k < N - 1; k++) {
        const int par = k & 1, s = coll_mod(me - k - 2, N), final = k == N - 2;
        const size_t n = r->seg_cnt[s];
        const unsigned char* mine = r->in + r->seg_off[s] * r->elem;
        kp = coll_pieces(n, r->piece);
        coll_wait_all(r, sreq[par], COLL_MAX_PIECES);
        coll_recv_seg(r, rb[par], n, prev, rreq);
        for (j = 0; j < kp; j++) {
            const size_t pc = coll_piece_n(r, n, j), off = coll_piece_wire_off(r, j), cap = coll_piece_cap(r, n, j);
            const unsigned char* own_raw = mine + j * r->piece * r->elem;
            unsigned char* in = rb[par] + off;
            unsigned char* dst = final ? (lossy ? r->fin + off : in) : sb[par] + off;
            size_t got = coll_wait_recv(r, &rreq[j]), sz = 0;
            if (pc && coll_zero_copy(r)) {
                coll_expect(r, got, pc * r->elem);
                coll_reduce(r, final && direct ? out_own + j * r->piece * r->elem : in, in, own_raw, pc);
                sz = pc * r->elem;
            } else if (pc && r->mode == COLL_HOMO) {
                size_t osz = coll_encode(r, own_raw, pc, own + off, cap);
                sz = coll_homo(r, in, got, own + off, osz, dst, cap);
            } else if (pc) {
                unsigned char* t = tmp + j * r->piece * r->elem;
                coll_decode(r, in, got, t, pc);
                coll_reduce(r, t, t, own_raw, pc);
                if (!final || r->final_wire) sz = coll_encode(r, t, pc, dst, cap);
            }
            if (!final) coll_send(r, dst, sz, next, &sreq[par][j]);
            else if (lossy) r->fin_sizes[j] = sz;
        }
    }
    coll_wait_all(r, c->sreq, 2 * COLL_MAX_PIECES); /* out_own may be input that was being sent (MPI_IN_PLACE) */
    if (N == 1 || r->st != GHZ_SUCCESS) return;
    if (coll_zero_copy(r) && !direct) coll_copy(r, out_own, rb[(N - 2) & 1], r->seg_cnt[me] * r->elem);
    else if (coll_doc_like(r) && !r->final_wire) coll_copy(r, out_own, tmp, r->seg_cnt[me] * r->elem);
    else if (!coll_zero_copy(r)) coll_decode_seg(r, r->fin, r->fin_sizes, out_own, r->seg_cnt[me]);
}

size_t coll_allgather_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    return m == COLL_EXACT && !c->be.staged ? 0 : 2 * (coll_seg_wire_cap(m, t, window, piece) + 16);
}

/* Each received piece is decoded into place and its bytes forwarded unchanged. */
void coll_ring_allgather(coll_round_t* r, coll_pool_t* pool)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, me = c->rank, next = coll_mod(me + 1, N), prev = coll_mod(me - 1, N);
    const size_t S = coll_max_seg(r), B = coll_seg_wire_cap(r->mode, r->dtype, S, r->piece);
    const int lossy = !coll_zero_copy(r);
    unsigned char* ag[2] = {NULL, NULL};
    /* exact sends read distinct segments of out: all may be in flight (a request per
     * step and piece); lossy ones read ag[k & 1] */
    coll_req_t* sreq = c->sreq;
    coll_req_t* rreq = c->rreq;
    size_t j;
    int k;

    if (N == 1) return;
    if (lossy) {
        ag[0] = coll_pool_take(pool, B);
        ag[1] = coll_pool_take(pool, B);
        if (!ag[1]) coll_fail(r, GHZ_ERR_NOMEM);
    }
    coll_send_seg(r, lossy ? r->fin : r->out + r->seg_off[me] * r->elem, r->fin_sizes, r->seg_cnt[me], next,
                  lossy ? sreq + COLL_MAX_PIECES : sreq);
    for (k = 0; k < N - 1; k++) {
        const int par = k & 1, s = coll_mod(me - k - 1, N), last = k == N - 2;
        const size_t n = r->seg_cnt[s], kp = coll_pieces(n, r->piece);
        unsigned char* dst = r->out + r->seg_off[s] * r->elem;
        coll_req_t* q = sreq + (size_t)(lossy ? par : k + 1) * COLL_MAX_PIECES;
        if (lossy) coll_wait_all(r, q, COLL_MAX_PIECES);
        for (j = 0; j < kp; j++) coll_recv_piece(r, dst, n, j, ag[par], prev, &rreq[j]);
        for (j = 0; j < kp; j++) {
            const size_t got = coll_land_piece(r, dst, n, j, ag[par], &rreq[j]);
            if (!last)
                coll_send(r, lossy ? ag[par] + coll_piece_wire_off(r, j) : dst + j * r->piece * r->elem, got, next,
                          &q[j]);
        }
    }
    coll_wait_all(r, sreq, lossy ? 2 * COLL_MAX_PIECES : (size_t)N * COLL_MAX_PIECES);
}
