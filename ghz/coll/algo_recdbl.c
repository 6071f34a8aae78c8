/* ghz/coll/algo_recdbl.c: recursive-doubling allreduce (lg N steps: small messages).
 *
 * With P the largest power of two <= N and R = N - P: ranks r < 2R pair up first, the
 * even one sending its whole vector to r+1, which combines (r's values on the left)
 * and takes part as new rank r/2; the others are new rank r - R. Then at step `mask`
 * each takes part with the new rank `new ^ mask`, both computing op(lower, higher):
 * the same operands in the same order on both sides, so every rank ends with the same
 * bits. Finally the odd ranks below 2R hand the result back to r-1.
 *
 * Lossy: every rank compresses its vector once; both partners combine the same two
 * sets of frames (HOMO with ghz/homo; DOC by decoding both, combining, recompressing,
 * which HOMO.md proves gives the same bytes: tested), and every rank decodes the final
 * frames once. The own raw values cannot be kept exact here (as DOC does in the ring):
 * the two partners would then combine different operands and end with different bits.
 * Pieces are combined as they arrive; an exact piece is overwritten only after its own
 * send has completed. */
#include "ghz/coll/detail/algo.h"

size_t coll_recdbl_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    const size_t B = coll_seg_wire_cap(m, t, window, piece) + 16;
    if (m == COLL_EXACT && !c->be.staged) return B;
    return 3 * B + (m != COLL_HOMO ? 2 * (piece * ghz_dtype_size(t) + 16) : 0);
}

typedef struct {
    unsigned char* buf; /* frames (lossy) or values (exact: the output itself) */
    size_t* sizes;
} vec_t;

static void send_vec(coll_round_t* r, const vec_t* v, int peer, coll_req_t* req)
{
    const size_t n = r->count, kp = coll_pieces(n, r->piece);
    size_t j;
    for (j = 0; j < kp; j++) {
        size_t pc = coll_piece_n(r, n, j);
        size_t bytes = coll_zero_copy(r) ? pc * r->elem : pc ? v->sizes[j] : 0;
        coll_send(r, v->buf + coll_piece_wire_off(r, j), bytes, peer, &req[j]);
    }
}

static void post_recv(coll_round_t* r, unsigned char* into, int peer, coll_req_t* req)
{
    const size_t n = r->count, kp = coll_pieces(n, r->piece);
    size_t j;
    for (j = 0; j < kp; j++)
        coll_recv(r, into + coll_piece_wire_off(r, j), coll_piece_cap(r, n, j), peer, &req[j]);
}

/* acc = op(lower, higher) piece by piece as the partner's pieces arrive in rb;
 * `mine_low` says whether this rank's vector is the lower operand. Lossy results go
 * to out (then swapped with acc by the caller). */
static void combine_vec(coll_round_t* r, vec_t* acc, vec_t* out, unsigned char* rb, int mine_low,
                        coll_req_t* rreq, coll_req_t* sreq, unsigned char* da, unsigned char* db)
{
    const size_t n = r->count, kp = coll_pieces(n, r->piece);
    size_t j;
    for (j = 0; j < kp; j++) {
        const size_t pc = coll_piece_n(r, n, j), off = coll_piece_wire_off(r, j),
                     cap = coll_piece_cap(r, n, j);
        size_t got = coll_wait_recv(r, &rreq[j]);
        unsigned char *mine = acc->buf + off, *theirs = rb + off;
        if (coll_zero_copy(r)) {
            coll_expect(r, got, pc * r->elem);
            coll_wait_send(r, &sreq[j]);
            if (pc) coll_reduce(r, mine, mine_low ? mine : theirs, mine_low ? theirs : mine, pc);
            continue;
        }
        if (pc == 0) {
            out->sizes[j] = 0;
            continue;
        }
        {
            const unsigned char* lo = mine_low ? mine : theirs;
            const unsigned char* hi = mine_low ? theirs : mine;
            size_t lo_size = mine_low ? acc->sizes[j] : got, hi_size = mine_low ? got : acc->sizes[j];
            if (r->mode == COLL_HOMO) {
                out->sizes[j] = coll_homo(r, lo, lo_size, hi, hi_size, out->buf + off, cap);
            } else {
                coll_decode(r, lo, lo_size, da, pc);
                coll_decode(r, hi, hi_size, db, pc);
                coll_reduce(r, da, da, db, pc);
                out->sizes[j] = coll_encode(r, da, pc, out->buf + off, cap);
            }
        }
    }
    coll_wait_all(r, sreq, kp);
    if (!coll_zero_copy(r)) {
        vec_t t = *acc;
        *acc = *out;
        *out = t;
    }
}

void coll_recdbl_allreduce(coll_round_t* r, coll_pool_t* pool)
{
    ghz_comm_t* c = r->comm;
    coll_backend_t* be = &c->be;
    const int N = c->size, me = c->rank;
    const size_t n = r->count, kp = coll_pieces(n, r->piece), B =
        coll_seg_wire_cap(r->mode, r->dtype, n, r->piece);
    const int lossy = !coll_zero_copy(r);
    int P = 1, R, newrank, mask;
    vec_t acc, out = {NULL, NULL};
    unsigned char *rb, *da = NULL, *db = NULL;
    coll_req_t *sreq = c->sreq, *rreq = c->rreq;
    size_t j;

    while (P * 2 <= N) P *= 2;
    R = N - P;
    rb = coll_pool_take(pool, B);
    if (lossy) {
        acc.buf = coll_pool_take(pool, B);
        out.buf = coll_pool_take(pool, B);
        acc.sizes = c->wire_size;
        out.sizes = c->wire_size + COLL_MAX_PIECES;
        if (coll_doc_like(r)) {
            da = coll_pool_raw(pool, r->piece * r->elem);
            db = coll_pool_raw(pool, r->piece * r->elem);
        }
        if (!out.buf || (coll_doc_like(r) && !db)) coll_fail(r, GHZ_ERR_NOMEM);
        for (j = 0; j < kp; j++) {
            size_t pc = coll_piece_n(r, n, j), off = coll_piece_wire_off(r, j);
            acc.sizes[j] = pc ? coll_encode(r, r->in + j * r->piece * r->elem, pc, acc.buf + off,
                                            coll_piece_cap(r, n, j))
                              : 0;
        }
    } else {
        /* exact: accumulate in the output */
        ghz_status_t st = r->in == r->out ? GHZ_SUCCESS : be->copy(be, r->out, r->in, n * r->elem);
        if (st != GHZ_SUCCESS) coll_fail(r, st);
        acc.buf = r->out;
        acc.sizes = NULL;
    }
    if (!rb) coll_fail(r, GHZ_ERR_NOMEM);

    if (me < 2 * R && me % 2 == 0) {
        /* folded out: send everything to me+1, get the result back */
        send_vec(r, &acc, me + 1, sreq);
        coll_wait_all(r, sreq, kp);
        post_recv(r, acc.buf, me + 1, rreq);
        for (j = 0; j < kp; j++) {
            size_t got = coll_wait_recv(r, &rreq[j]), pc = coll_piece_n(r, n, j);
            if (lossy) acc.sizes[j] = got;
            else coll_expect(r, got, pc * r->elem);
        }
        newrank = -1;
    } else {
        if (me < 2 * R) {
            post_recv(r, rb, me - 1, rreq);
            combine_vec(r, &acc, &out, rb, 0, rreq, sreq, da, db);
            newrank = me / 2;
        } else {
            newrank = me - R;
        }
        for (mask = 1; mask < P; mask <<= 1) {
            int pnew = newrank ^ mask, peer = pnew < R ? pnew * 2 + 1 : pnew + R;
            post_recv(r, rb, peer, rreq);
            send_vec(r, &acc, peer, sreq);
            combine_vec(r, &acc, &out, rb, newrank < pnew, rreq, sreq, da, db);
        }
        if (me < 2 * R) {
            send_vec(r, &acc, me - 1, sreq);
            coll_wait_all(r, sreq, kp);
        }
    }
    if (lossy && r->st == GHZ_SUCCESS)
        for (j = 0; j < kp; j++) {
            size_t pc = coll_piece_n(r, n, j);
            if (pc)
                coll_decode(r, acc.buf + coll_piece_wire_off(r, j), acc.sizes[j],
                            r->out + j * r->piece * r->elem, pc);
        }
}
