/* ghz/coll/algo_pairwise.c: pairwise-exchange reduce-scatter (COLL.md, Algorithms): every
 * contribution crosses once and the N of a segment combine in one place, in rank order,
 * so HOMO sums need one n-ary recompression (MIN and MAX, and sums on a backend without
 * an n-ary sum, fold pairwise). */
#include "ghz/coll/detail/algo.h"

size_t coll_pairwise_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    const size_t N = (size_t)c->size, B = coll_seg_wire_cap(m, t, window, piece) + 16;
    const size_t raw = window * ghz_dtype_size(t) + 16, cp = coll_wire_cap(m, t, piece) + 16;
    if (m == COLL_EXACT && !c->be.staged) return (N - 1) * B + raw;
    /* own and received frames, fin, the fold's values, a decoded piece and two fold buffers */
    return N * B + (N - 1) * B + B + raw + 2 * cp + piece * ghz_dtype_size(t);
}

void coll_pairwise_reduce_scatter(coll_round_t* r, coll_pool_t* pool, unsigned char* out_own)
{
    ghz_comm_t* c = r->comm;
    coll_backend_t* be = &c->be;
    const int N = c->size, me = c->rank, lossy = !coll_zero_copy(r);
    const size_t n = r->seg_cnt[me], kp = coll_pieces(n, r->piece), e = r->elem;
    const size_t S = coll_max_seg(r), B = coll_seg_wire_cap(r->mode, r->dtype, S, r->piece);
    size_t j, q;
    unsigned char *sendw = NULL, *recvw, *acc, *dec = NULL, *fold[2] = {NULL, NULL};
    const unsigned char* mine = r->in + r->seg_off[me] * e;
    int k;

    if (lossy) sendw = coll_pool_take(pool, (size_t)N * B);
    recvw = coll_pool_take(pool, (size_t)(N - 1) * B);
    if (lossy) r->fin = coll_pool_take(pool, B);
    acc = coll_pool_raw(pool, S * e);
    if (lossy) {
        size_t cp = coll_wire_cap(r->mode, r->dtype, r->piece);
        fold[0] = coll_pool_take(pool, cp);
        fold[1] = coll_pool_take(pool, cp);
        dec = coll_pool_raw(pool, r->piece * e);
    }
    if (!acc || (N > 1 && !recvw) || (lossy && (!sendw || !r->fin || !dec || !fold[1])))
        coll_fail(r, GHZ_ERR_NOMEM);

    /* every receive posted, then the sends (step k, piece j: request (k-1)*kp + j, slot k-1) */
    for (k = 1; k < N; k++)
        coll_recv_seg(r, recvw + (size_t)(k - 1) * B, n, coll_mod(me - k, N), &c->rreq[(size_t)(k - 1) * kp]);
    for (k = lossy ? 0 : 1; k < N; k++) {
        const int s = coll_mod(me + k, N);
        const size_t ns = r->seg_cnt[s], ks = coll_pieces(ns, r->piece);
        const unsigned char* src = r->in + r->seg_off[s] * e;
        for (j = 0; j < ks; j++) {
            const size_t pc = coll_piece_n(r, ns, j);
            const unsigned char* raw = src + j * r->piece * e;
            unsigned char* at = lossy ? sendw + (size_t)s * B + coll_piece_wire_off(r, j) : NULL;
            const size_t sz = !lossy ? pc * e : pc ? coll_encode(r, raw, pc, at, coll_piece_cap(r, ns, j)) : 0;
            if (lossy) c->wire_size[(size_t)s * COLL_MAX_PIECES + j] = sz; /* (k == 0: own frames, for the sum) */
            if (k > 0) coll_send(r, lossy ? at : raw, sz, s, &c->sreq[(size_t)(k - 1) * COLL_MAX_PIECES + j]);
        }
    }

    for (j = 0; j < kp; j++) {
        const size_t pc = coll_piece_n(r, n, j), off = coll_piece_wire_off(r, j), cap = coll_piece_cap(r, n, j);
        unsigned char* a = acc + j * r->piece * e;
        for (k = 1; k < N; k++) {
            size_t got = coll_wait_recv(r, &c->rreq[(size_t)(k - 1) * kp + j]);
            int from = coll_mod(me - k, N);
            c->wire_ptr[from] = recvw + (size_t)(k - 1) * B + off;
            c->wire_size[(size_t)from * COLL_MAX_PIECES + j] = got;
            if (coll_zero_copy(r)) coll_expect(r, got, pc * e);
        }
        if (pc == 0 || r->st != GHZ_SUCCESS) {
            if (lossy) r->fin_sizes[j] = 0;
            continue;
        }
        c->wire_ptr[me] = lossy ? sendw + (size_t)me * B + off : mine + j * r->piece * e;
        for (q = 0; q < (size_t)N; q++) c->wire_tmp[q] = c->wire_size[q * COLL_MAX_PIECES + j];
        if (r->mode == COLL_HOMO && r->op == GHZ_OP_SUM && be->has_sum_n) {
            size_t sz = 0;
            const double t0 = coll_now();
            coll_fail(r, be->homo_sum_n(be, r->dtype, c->wire_ptr, c->wire_tmp, (size_t)N, r->fin + off, cap, &sz));
            r->t_comb += coll_now() - t0;
            r->fin_sizes[j] = sz;
        } else if (r->mode == COLL_HOMO) {
            const void* cur = c->wire_ptr[0];
            size_t cur_size = c->wire_tmp[0];
            for (q = 1; q < (size_t)N; q++) {
                unsigned char* o = q == (size_t)N - 1 ? r->fin + off : fold[q & 1];
                cur_size = coll_homo(r, cur, cur_size, c->wire_ptr[q], c->wire_tmp[q], o, cap);
                cur = o;
            }
            r->fin_sizes[j] = cur_size;
        } else {
            /* raw values; DOC keeps this rank's own exact */
            for (q = 0; q < (size_t)N; q++) {
                const void* x = q == (size_t)me ? (const void*)(mine + j * r->piece * e) : c->wire_ptr[q];
                if (!coll_zero_copy(r) && q != (size_t)me) {
                    coll_decode(r, c->wire_ptr[q], c->wire_tmp[q], dec, pc);
                    x = dec;
                }
                if (q == 0) coll_copy(r, a, x, pc * e);
                else coll_reduce(r, a, a, x, pc);
            }
            if (lossy && r->final_wire) r->fin_sizes[j] = coll_encode(r, a, pc, r->fin + off, cap);
        }
    }
    coll_wait_all(r, c->sreq, (size_t)N * COLL_MAX_PIECES);
    if (r->st != GHZ_SUCCESS) return;
    /* only now: out_own may be input that was being sent */
    if (coll_zero_copy(r) || (coll_doc_like(r) && !r->final_wire)) coll_copy(r, out_own, acc, n * e);
    else coll_decode_seg(r, r->fin, r->fin_sizes, out_own, n);
}
