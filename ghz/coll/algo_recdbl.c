/* ghz/coll/algo_recdbl.c: recursive-doubling allreduce. Ranks below 2R (R = N - P, P the
 * largest power of two <= N) fold in pairs first. Both partners of a step compute
 * op(lower, higher) of the same operands, so every rank ends with the same bits (COLL.md,
 * Why recursive doubling cannot keep raw values exact). */
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

/* acc = op(lower, higher) as the partner's pieces arrive in rb (mine_low: this rank's is
 * the lower); an exact piece is overwritten only after its own send completed. */
static void combine_vec(coll_round_t* r, vec_t* acc, vec_t* out, unsigned char* rb, int mine_low,
                        coll_req_t* rreq, coll_req_t* sreq, unsigned char* da, unsigned char* db)
{
    const size_t n = r->count, kp = coll_pieces(n, r->piece);
    size_t j;
    for (j = 0; j < kp; j++) {
        const size_t pc = coll_piece_n(r, n, j), off = coll_piece_wire_off(r, j), cap = coll_piece_cap(r, n, j);
        size_t got = coll_wait_recv(r, &rreq[j]), lo_size, hi_size;
        unsigned char *mine = acc->buf + off, *theirs = rb + off;
        const unsigned char *lo = mine_low ? mine : theirs, *hi = mine_low ? theirs : mine;
        if (coll_zero_copy(r)) {
            coll_expect(r, got, pc * r->elem);
            coll_wait_send(r, &sreq[j]);
            if (pc) coll_reduce(r, mine, lo, hi, pc);
            continue;
        }
        out->sizes[j] = 0;
        if (pc == 0) continue;
        lo_size = mine_low ? acc->sizes[j] : got;
        hi_size = mine_low ? got : acc->sizes[j];
        if (r->mode == COLL_HOMO) {
            out->sizes[j] = coll_homo(r, lo, lo_size, hi, hi_size, out->buf + off, cap);
        } else {
            coll_decode(r, lo, lo_size, da, pc);
            coll_decode(r, hi, hi_size, db, pc);
            coll_reduce(r, da, da, db, pc);
            out->sizes[j] = coll_encode(r, da, pc, out->buf + off, cap);
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
    const int N = c->size, me = c->rank;
    const size_t n = r->count, kp = coll_pieces(n, r->piece), B = coll_seg_wire_cap(r->mode, r->dtype, n, r->piece);
    const int lossy = !coll_zero_copy(r);
    int P = 1, R, newrank, mask;
    vec_t acc = {r->out, c->wire_size}, out = {NULL, c->wire_size + COLL_MAX_PIECES}; /* (exact: in the output) */
    unsigned char *rb, *da = NULL, *db = NULL;
    coll_req_t *sreq = c->sreq, *rreq = c->rreq;
    size_t j;

    while (P * 2 <= N) P *= 2;
    R = N - P;
    rb = coll_pool_take(pool, B);
    if (lossy) {
        acc.buf = coll_pool_take(pool, B);
        out.buf = coll_pool_take(pool, B);
        if (coll_doc_like(r)) {
            da = coll_pool_raw(pool, r->piece * r->elem);
            db = coll_pool_raw(pool, r->piece * r->elem);
        }
        if (!out.buf || (coll_doc_like(r) && !db)) coll_fail(r, GHZ_ERR_NOMEM);
        coll_encode_seg(r, r->in, n, acc.buf, acc.sizes);
    } else if (r->in != r->out) {
        coll_copy(r, r->out, r->in, n * r->elem);
    }
    if (!rb) coll_fail(r, GHZ_ERR_NOMEM);

    if (me < 2 * R && me % 2 == 0) {
        coll_send_seg(r, acc.buf, acc.sizes, r->count, me + 1, sreq);
        coll_wait_all(r, sreq, kp);
        coll_recv_seg(r, acc.buf, r->count, me + 1, rreq);
        for (j = 0; j < kp; j++) {
            size_t got = coll_wait_recv(r, &rreq[j]), pc = coll_piece_n(r, n, j);
            if (lossy) acc.sizes[j] = got;
            else coll_expect(r, got, pc * r->elem);
        }
    } else {
        newrank = me < 2 * R ? me / 2 : me - R;
        if (me < 2 * R) {
            coll_recv_seg(r, rb, r->count, me - 1, rreq);
            combine_vec(r, &acc, &out, rb, 0, rreq, sreq, da, db);
        }
        for (mask = 1; mask < P; mask <<= 1) {
            int pnew = newrank ^ mask, peer = pnew < R ? pnew * 2 + 1 : pnew + R;
            coll_recv_seg(r, rb, r->count, peer, rreq);
            coll_send_seg(r, acc.buf, acc.sizes, r->count, peer, sreq);
            combine_vec(r, &acc, &out, rb, newrank < pnew, rreq, sreq, da, db);
        }
        if (me < 2 * R) {
            coll_send_seg(r, acc.buf, acc.sizes, r->count, me - 1, sreq);
            coll_wait_all(r, sreq, kp);
        }
    }
    if (lossy) coll_decode_seg(r, acc.buf, acc.sizes, r->out, n);
}
