/* ghz/coll/algo_binomial.c: binomial-tree reduce, and the broadcast down a binomial tree
 * or a pipelined chain. v = (rank - root) mod N combines its children's partials (v + 1,
 * v + 2, v + 4, ...) on the RIGHT of its own, then sends to v - mask. */
#include "ghz/coll/detail/algo.h"

size_t coll_binomial_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    const size_t B = coll_seg_wire_cap(m, t, window, piece) + 16, raw = window * ghz_dtype_size(t) + 16;
    if (m == COLL_EXACT && !c->be.staged) return B + raw;
    return 3 * B + raw + piece * ghz_dtype_size(t) + 16;
}

void coll_binomial_reduce(coll_round_t* r, coll_pool_t* pool)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, me = c->rank, v = (me - r->root + N) % N;
    const size_t n = r->count, kp = coll_pieces(n, r->piece), e = r->elem,
                 B = coll_seg_wire_cap(r->mode, r->dtype, n, r->piece);
    /* HOMO: the partial's frames in f[cur] (sizes sz[cur]), combined into the other pair */
    unsigned char *rb = coll_pool_take(pool, B), *acc = NULL, *f[2] = {NULL, NULL}, *dec = NULL;
    size_t* sz[2] = {c->wire_size, c->wire_size + COLL_MAX_PIECES};
    size_t j;
    int mask, cur = 0;

    /* acc: raw values (the root's: the output), or frames (HOMO) */
    if (r->mode != COLL_HOMO) {
        acc = v == 0 ? r->out : coll_pool_raw(pool, n * e);
        if (acc && acc != r->in) coll_copy(r, acc, r->in, n * e);
    }
    if (!coll_zero_copy(r)) {
        f[0] = coll_pool_take(pool, B);
        f[1] = coll_pool_take(pool, B);
        dec = coll_pool_raw(pool, r->piece * e);
    }
    if (!rb || (r->mode != COLL_HOMO && !acc) || (!coll_zero_copy(r) && !dec))
        coll_fail(r, GHZ_ERR_NOMEM);
    if (r->mode == COLL_HOMO) coll_encode_seg(r, r->in, n, f[0], sz[0]);

    for (mask = 1; mask < N; mask <<= 1) {
        if (v & mask) {
            const int parent = (v - mask + r->root) % N;
            for (j = 0; j < kp && r->mode != COLL_HOMO; j++) coll_send_piece(r, acc, n, j, f[0], parent, &c->sreq[j]);
            if (r->mode == COLL_HOMO) coll_send_seg(r, f[cur], sz[cur], n, parent, c->sreq);
            coll_wait_all(r, c->sreq, kp);
            return;
        }
        if (v + mask < N) {
            const int child = (v + mask + r->root) % N;
            coll_recv_seg(r, rb, n, child, c->rreq);
            for (j = 0; j < kp; j++) {
                const size_t pc = coll_piece_n(r, n, j), off = coll_piece_wire_off(r, j);
                const size_t got = coll_wait_recv(r, &c->rreq[j]);
                unsigned char* a = acc ? acc + j * r->piece * e : NULL;
                if (pc == 0) {
                    sz[cur ^ 1][j] = 0;
                    continue;
                }
                if (coll_zero_copy(r)) {
                    coll_expect(r, got, pc * e);
                    coll_reduce(r, a, a, rb + off, pc);
                } else if (coll_doc_like(r)) {
                    coll_decode(r, rb + off, got, dec, pc);
                    coll_reduce(r, a, a, dec, pc);
                } else {
                    sz[cur ^ 1][j] = coll_homo(r, f[cur] + off, sz[cur][j], rb + off, got, f[cur ^ 1] + off,
                                               coll_piece_cap(r, n, j));
                }
            }
            if (r->mode == COLL_HOMO) cur ^= 1;
        }
    }
    if (r->mode == COLL_HOMO) coll_decode_seg(r, f[cur], sz[cur], r->out, n); /* the root */
}

size_t coll_bcast_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    return m == COLL_EXACT && !c->be.staged ? 0 : coll_seg_wire_cap(m, t, window, piece) + 16;
}

/* r->out relayed piece by piece from parent (-1: the root, which encodes each piece) to
 * the kids; frames travel unchanged, so every rank decodes the root's bytes. Counts what
 * this rank sends. */
static void relay(coll_round_t* r, coll_pool_t* pool, int parent, const int* kids, int nkids)
{
    ghz_comm_t* c = r->comm;
    const size_t n = r->count, kp = coll_pieces(n, r->piece), e = r->elem;
    const int direct = coll_zero_copy(r);
    unsigned char* wb = direct ? NULL : coll_pool_take(pool, coll_seg_wire_cap(r->mode, r->dtype, n, r->piece));
    size_t j, ns = 0;
    int q;
    if (!direct && !wb) coll_fail(r, GHZ_ERR_NOMEM);
    for (j = 0; j < kp && parent >= 0; j++) coll_recv_piece(r, r->out, n, j, wb, parent, &c->rreq[j]);
    for (j = 0; j < kp; j++) {
        const size_t pc = coll_piece_n(r, n, j);
        unsigned char* piece = direct ? r->out + j * r->piece * e : wb + coll_piece_wire_off(r, j);
        size_t bytes = pc * e;
        if (parent >= 0) bytes = coll_land_piece(r, r->out, n, j, wb, &c->rreq[j]);
        else if (!direct && pc) bytes = coll_encode(r, r->out + j * r->piece * e, pc, piece, coll_piece_cap(r, n, j));
        else if (!direct) bytes = 0;
        for (q = 0; q < nkids; q++) coll_send(r, piece, bytes, kids[q], &c->sreq[ns++]);
    }
    coll_wait_all(r, c->sreq, ns);
    r->logical_bytes = (uint64_t)nkids * n * e;
}

/* v receives from v - (its lowest set bit) and forwards to v + m for every m below that
 * bit, largest first: the farthest subtree starts first. */
void coll_binomial_bcast(coll_round_t* r, coll_pool_t* pool)
{
    const int N = r->comm->size, v = coll_mod((long)r->comm->rank - r->root, N);
    int kids[8 * sizeof(int)], nkids = 0, mask = 1, m;
    while (mask < N && !(v & mask)) mask <<= 1;
    for (m = mask >> 1; m > 0; m >>= 1)
        if (v + m < N) kids[nkids++] = (v + m + r->root) % N;
    relay(r, pool, v != 0 ? (v - mask + r->root) % N : -1, kids, nkids);
}

void coll_chain_bcast(coll_round_t* r, coll_pool_t* pool)
{
    const int N = r->comm->size, me = r->comm->rank, v = coll_mod((long)me - r->root, N);
    const int next = coll_mod(me + 1, N);
    relay(r, pool, v != 0 ? coll_mod(me - 1, N) : -1, &next, v + 1 < N);
}
