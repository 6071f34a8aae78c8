/* ghz/coll/algo_ring.c: ring reduce-scatter and ring allgather (allreduce = both).
 *
 * Reduce-scatter: at step k (0 <= k < N-1) rank r sends segment (r-k-1) mod N to r+1 and
 * receives segment (r-k-2) mod N from r-1, which it combines with its own values of
 * that segment, received partial on the left. After N-1 steps rank r holds segment r,
 * reduced along the chain r+1, r+2, ..., r-1, r: one fixed order per segment, so the
 * result does not depend on timing. Each segment travels as pieces (messages of at most
 * r->piece elements, each its own frame on the lossy paths): piece j is combined and
 * sent on while piece j+1 is still arriving, and the successor starts on it at once.
 *
 * Buffers of a round (from the pool): rb[2] receive the pieces of a step (parity k&1);
 * the combined pieces are sent from rb[par] itself (exact, in place) or from sb[par]
 * (lossy). A buffer of parity p is reused two steps later, after the sends that read
 * it have completed (waited at the start of that step). */
#include "ghz/coll/detail/algo.h"

size_t coll_ring_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    size_t B = coll_seg_wire_cap(m, t, window, piece) + 16;
    if (m == COLL_EXACT && !c->be.staged) return 2 * B;
    /* rb[2], sb[2], fin, the own compressed segment (HOMO) or raw values (DOC) */
    return 5 * B + (m == COLL_HOMO ? B : window * ghz_dtype_size(t) + 16);
}

/* Sends this rank's own values of segment s (step -1 of the ring): from the input
 * (exact) or compressed into buf (lossy). */
static void send_own(coll_round_t* r, int s, unsigned char* buf, coll_req_t* req, int peer)
{
    size_t n = r->seg_cnt[s], kp = coll_pieces(n, r->piece), j;
    for (j = 0; j < kp; j++) coll_send_piece(r, r->in + r->seg_off[s] * r->elem, n, j, buf, peer, &req[j]);
}

void coll_ring_reduce_scatter(coll_round_t* r, coll_pool_t* pool, unsigned char* out_own)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, me = c->rank, next = coll_mod(me + 1, N), prev = coll_mod(me - 1, N);
    const size_t S = coll_max_seg(r), B = coll_seg_wire_cap(r->mode, r->dtype, S, r->piece);
    const int lossy = !coll_zero_copy(r); /* frames, or staged copies, in wire buffers */
    unsigned char *rb[2], *sb[2], *own = NULL, *tmp = NULL;
    /* Exact, with the result's place the own segment of the input (in place): the last
     * step combines straight into it instead of into rb and a copy after. No send reads
     * that segment (send_own sends segment me - 1; the later steps send from rb), and
     * each element is read before it is written, in the same order of operands. */
    const int direct = !lossy && out_own == r->in + r->seg_off[me] * r->elem;
    coll_req_t* sreq[2] = {c->sreq, c->sreq + COLL_MAX_PIECES};
    coll_req_t* rreq = c->rreq;
    size_t j, kp = 0;
    int k;

    rb[0] = coll_pool_take(pool, B);
    rb[1] = coll_pool_take(pool, B);
    sb[0] = lossy ? coll_pool_take(pool, B) : rb[0];
    sb[1] = lossy ? coll_pool_take(pool, B) : rb[1];
    if (lossy) r->fin = coll_pool_take(pool, B);
    if (r->mode == COLL_HOMO) own = coll_pool_take(pool, B);
    if (coll_doc_like(r)) tmp = coll_pool_raw(pool, S * r->elem);
    if (!rb[1] || !sb[1] || (lossy && !r->fin) || (r->mode == COLL_HOMO && !own) ||
        (coll_doc_like(r) && !tmp)) {
        coll_fail(r, GHZ_ERR_NOMEM); /* a sizing bug: reduce_rounds.c sized the round */
    }

    send_own(r, coll_mod(me - 1, N), sb[1], sreq[1], next);
    for (k = 0; k < N - 1; k++) {
        const int par = k & 1, s = coll_mod(me - k - 2, N), final = k == N - 2;
        const size_t n = r->seg_cnt[s];
        const unsigned char* mine = r->in + r->seg_off[s] * r->elem;
        kp = coll_pieces(n, r->piece);
        coll_wait_all(r, sreq[par], COLL_MAX_PIECES);
        for (j = 0; j < kp; j++)
            coll_recv(r, rb[par] + coll_piece_wire_off(r, j), coll_piece_cap(r, n, j), prev, &rreq[j]);
        for (j = 0; j < kp; j++) {
            const size_t pc = coll_piece_n(r, n, j), off = coll_piece_wire_off(r, j),
                         cap = coll_piece_cap(r, n, j);
            const unsigned char* own_raw = mine + j * r->piece * r->elem;
            unsigned char* in = rb[par] + off;
            unsigned char* dst = final ? (lossy ? r->fin + off : in) : sb[par] + off;
            size_t got = coll_wait_recv(r, &rreq[j]), sz = 0;
            if (pc == 0) {
                if (final && lossy) r->fin_sizes[j] = 0;
                if (!final) coll_send(r, dst, 0, next, &sreq[par][j]);
                continue;
            }
            if (coll_zero_copy(r)) {
                coll_expect(r, got, pc * r->elem);
                if (final && direct)
                    coll_reduce(r, out_own + j * r->piece * r->elem, in, own_raw, pc);
                else
                    coll_reduce(r, in, in, own_raw, pc);
                sz = pc * r->elem;
            } else if (r->mode == COLL_HOMO) {
                size_t osz = coll_encode(r, own_raw, pc, own + off, cap);
                sz = coll_homo(r, in, got, own + off, osz, dst, cap);
            } else {
                unsigned char* t = tmp + j * r->piece * r->elem;
                coll_decode(r, in, got, t, pc);
                coll_reduce(r, t, t, own_raw, pc);
                if (!final || r->final_wire) sz = coll_encode(r, t, pc, dst, cap);
            }
            if (!final) coll_send(r, dst, sz, next, &sreq[par][j]);
            else if (lossy) r->fin_sizes[j] = sz;
        }
    }
    /* Every send has completed before the result is written: out_own may be the input
     * of a segment that was sent from in place (MPI_IN_PLACE reduce-scatter). */
    coll_wait_all(r, sreq[0], COLL_MAX_PIECES);
    coll_wait_all(r, sreq[1], COLL_MAX_PIECES);
    if (N == 1 || r->st != GHZ_SUCCESS) return;
    {
        const size_t n = r->seg_cnt[me];
        if (coll_zero_copy(r)) {
            if (!direct) coll_copy(r, out_own, rb[(N - 2) & 1], n * r->elem);
        }
        else if (coll_doc_like(r) && !r->final_wire) coll_copy(r, out_own, tmp, n * r->elem);
        else coll_decode_fin(r, out_own, n);
    }
}

size_t coll_allgather_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    return m == COLL_EXACT && !c->be.staged ? 0 : 2 * (coll_seg_wire_cap(m, t, window, piece) + 16);
}

/* Allgather: at step k rank r sends segment (r-k) mod N to r+1 and receives segment
 * (r-k-1) mod N from r-1; each received piece is decoded into place and forwarded at
 * once. Exact pieces go straight from and into the output. */
void coll_ring_allgather(coll_round_t* r, coll_pool_t* pool)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, me = c->rank, next = coll_mod(me + 1, N), prev = coll_mod(me - 1, N);
    const size_t S = coll_max_seg(r), B = coll_seg_wire_cap(r->mode, r->dtype, S, r->piece);
    const int lossy = !coll_zero_copy(r);
    unsigned char* ag[2] = {NULL, NULL};
    /* Exact sends read distinct segments of out and may all be in flight together: one
     * request per (step, piece). Lossy sends read ag[par]: parity-indexed as in the
     * reduce-scatter. */
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
    {
        const size_t n = r->seg_cnt[me], kp = coll_pieces(n, r->piece);
        coll_req_t* q = lossy ? sreq + COLL_MAX_PIECES : sreq;
        for (j = 0; j < kp; j++) {
            size_t pc = coll_piece_n(r, n, j);
            if (lossy)
                coll_send(r, r->fin + coll_piece_wire_off(r, j), pc ? r->fin_sizes[j] : 0, next, &q[j]);
            else
                coll_send(r, r->out + (r->seg_off[me] + j * r->piece) * r->elem, pc * r->elem, next,
                          &q[j]);
        }
    }
    for (k = 0; k < N - 1; k++) {
        const int par = k & 1, s = coll_mod(me - k - 1, N), last = k == N - 2;
        const size_t n = r->seg_cnt[s], kp = coll_pieces(n, r->piece);
        unsigned char* dst = r->out + r->seg_off[s] * r->elem;
        coll_req_t* q = lossy ? sreq + (size_t)par * COLL_MAX_PIECES
                              : sreq + (size_t)(k + 1) * COLL_MAX_PIECES;
        if (lossy) coll_wait_all(r, q, COLL_MAX_PIECES);
        for (j = 0; j < kp; j++) {
            void* at = lossy ? (void*)(ag[par] + coll_piece_wire_off(r, j))
                             : (void*)(dst + j * r->piece * r->elem);
            coll_recv(r, at, coll_piece_cap(r, n, j), prev, &rreq[j]);
        }
        for (j = 0; j < kp; j++) {
            const size_t pc = coll_piece_n(r, n, j);
            size_t got = coll_wait_recv(r, &rreq[j]);
            if (lossy) {
                unsigned char* w = ag[par] + coll_piece_wire_off(r, j);
                if (pc) coll_decode(r, w, got, dst + j * r->piece * r->elem, pc);
                if (!last) coll_send(r, w, got, next, &q[j]);
            } else {
                coll_expect(r, got, pc * r->elem);
                if (!last) coll_send(r, dst + j * r->piece * r->elem, pc * r->elem, next, &q[j]);
            }
        }
    }
    coll_wait_all(r, sreq, lossy ? 2 * COLL_MAX_PIECES : (size_t)N * COLL_MAX_PIECES);
}
