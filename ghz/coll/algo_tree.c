/* ghz/coll/algo_tree.c: binomial gather and scatter of packs (COLL.md, Data movement):
 * rank v = (rank - root) mod N's subtree is [v, v + span) cut at N. A pack is entries
 * back to back, a header and the pieces, each rounded up to 16 bytes, so a relay forwards
 * entries without decoding them or knowing the blocks' counts. */
#include "ghz/coll/detail/algo.h"

enum { H_RANK, H_PIECES, H_RAW, H_SIZES }; /* header words */

static size_t hdr_bytes(size_t k)
{
    return coll_align16((H_SIZES + k) * sizeof(uint64_t));
}

#define HDR_MAX ((H_SIZES + COLL_MAX_PIECES) * sizeof(uint64_t))

static size_t entry_cap(coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    return coll_align16(HDR_MAX) + coll_seg_wire_cap(m, t, window, piece) + 16 * coll_pieces(window, piece);
}

size_t coll_tree_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    return (size_t)c->size * entry_cap(m, t, window, piece) + 16;
}

static int span_of(int v, int N)
{
    int s = 1;
    while (v ? !(v & s) : s < N) s <<= 1;
    return s;
}

/* Appends relative rank u's entry, the n values at src; returns its bytes. */
static size_t pack_entry(coll_round_t* r, unsigned char* pack, size_t at, int u, const unsigned char* src, size_t n)
{
    uint64_t* hdr = (uint64_t*)r->comm->wire_size; /* host scratch: (N + 2) * 64 words */
    const size_t k = coll_pieces(n, r->piece), h = hdr_bytes(k);
    size_t j, cur = at + h;
    for (j = 0; j < k; j++) {
        const size_t pc = coll_piece_n(r, n, j);
        const size_t sz = pc ? coll_encode(r, src + j * r->piece * r->elem, pc, pack + cur, coll_piece_cap(r, n, j)) : 0;
        hdr[H_SIZES + j] = sz;
        cur += coll_align16(sz);
    }
    hdr[H_RANK] = (uint64_t)u;
    hdr[H_PIECES] = k;
    hdr[H_RAW] = n * r->elem;
    coll_copy(r, pack + at, hdr, (H_SIZES + k) * sizeof(uint64_t));
    return cur - at;
}

/* The header of the entry at `at` into host scratch: the entry's bytes (0, r->st set:
 * malformed) and its rank *u. */
static size_t read_entry(coll_round_t* r, const unsigned char* pack, size_t at, size_t bytes, int* u)
{
    uint64_t* hdr = (uint64_t*)r->comm->wire_size;
    size_t k, j, len;
    if (r->st != GHZ_SUCCESS) return 0;
    if (bytes - at < H_SIZES * sizeof(uint64_t)) goto corrupt;
    coll_copy(r, hdr, pack + at, bytes - at < HDR_MAX ? bytes - at : HDR_MAX);
    k = (size_t)hdr[H_PIECES];
    if (r->st != GHZ_SUCCESS || hdr[H_RANK] >= (uint64_t)r->comm->size || k > COLL_MAX_PIECES ||
        hdr_bytes(k) > bytes - at)
        goto corrupt;
    len = hdr_bytes(k);
    for (j = 0; j < k; j++) {
        if (hdr[H_SIZES + j] > bytes - at - len) goto corrupt;
        len += coll_align16((size_t)hdr[H_SIZES + j]);
    }
    if (len > bytes - at) goto corrupt;
    *u = (int)hdr[H_RANK];
    return len;
corrupt:
    coll_fail(r, GHZ_ERR_CORRUPT);
    return 0;
}

/* The entry at `at` (its header read) decoded into the n values at dst. */
static void unpack_entry(coll_round_t* r, const unsigned char* pack, size_t at, unsigned char* dst, size_t n)
{
    const uint64_t* hdr = (const uint64_t*)r->comm->wire_size;
    const size_t k = coll_pieces(n, r->piece);
    size_t j, cur = at + hdr_bytes(k);
    if (r->st == GHZ_SUCCESS && hdr[H_PIECES] != k) coll_fail(r, GHZ_ERR_CORRUPT); /* (the sender's count) */
    for (j = 0; j < k; j++) {
        const size_t pc = coll_piece_n(r, n, j);
        if (pc) coll_decode(r, pack + cur, (size_t)hdr[H_SIZES + j], dst + j * r->piece * r->elem, pc);
        cur += coll_align16((size_t)hdr[H_SIZES + j]);
    }
}

void coll_tree_gather(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, v = coll_mod((long)c->rank - r->root, N), span = span_of(v, N);
    const size_t cap = (size_t)N * entry_cap(r->mode, r->dtype, m->w, r->piece);
    unsigned char* pack = coll_pool_take(pool, cap);
    const size_t n = coll_move_n(m, &m->send, r->root); /* (a non-root's one block) */
    size_t used = 0, at;
    uint64_t raw = v != 0 ? n * r->elem : 0; /* what this rank's pack takes uncompressed */
    int step;
    if (!pack) {
        coll_fail(r, GHZ_ERR_NOMEM);
        return;
    }
    if (v != 0) used = pack_entry(r, pack, 0, v, r->in + coll_move_at(m, &m->send, r->root) * r->elem, n);
    for (step = 1; step < span && v + step < N; step <<= 1) {
        const size_t at0 = used;
        int u = 0;
        coll_recv(r, pack + used, cap - used, (v + step + r->root) % N, &c->rreq[0]);
        used += coll_wait_recv(r, &c->rreq[0]);
        /* the child's first entry says what its whole pack takes uncompressed */
        if (v != 0 && read_entry(r, pack, at0, used, &u)) raw += ((const uint64_t*)c->wire_size)[H_RAW];
    }
    if (v != 0) {
        coll_copy(r, pack + H_RAW * sizeof(uint64_t), &raw, sizeof raw);
        coll_send(r, pack, used, (v - span + r->root) % N, &c->sreq[0]);
        coll_wait_send(r, &c->sreq[0]);
        r->logical_bytes = raw;
        return;
    }
    for (at = 0; at < used && r->st == GHZ_SUCCESS;) {
        int u = 0;
        const size_t len = read_entry(r, pack, at, used, &u);
        const int p = (u + r->root) % N;
        if (!len || u == 0) coll_fail(r, GHZ_ERR_CORRUPT);
        else unpack_entry(r, pack, at, r->out + coll_move_at(m, &m->recv, p) * r->elem, coll_move_n(m, &m->recv, p));
        at += len;
    }
}

void coll_tree_scatter(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool)
{
    ghz_comm_t* c = r->comm;
    const int N = c->size, v = coll_mod((long)c->rank - r->root, N), span = span_of(v, N);
    const size_t cap = (size_t)N * entry_cap(r->mode, r->dtype, m->w, r->piece);
    unsigned char* pack = coll_pool_take(pool, cap);
    size_t* off = c->wire_tmp; /* off[u]: where relative rank u's entry starts */
    size_t* raw = c->seg_cnt;  /* raw[u]: what its values take uncompressed */
    size_t used = 0, ns = 0;
    int u, step, end = v + span < N ? v + span : N;
    if (!pack) {
        coll_fail(r, GHZ_ERR_NOMEM);
        return;
    }
    for (u = v; u < end; u++) off[u] = raw[u] = 0;
    if (v == 0) {
        for (u = 1; u < N; u++) {
            const int p = (u + r->root) % N;
            off[u] = used;
            raw[u] = coll_move_n(m, &m->send, p) * r->elem;
            used += pack_entry(r, pack, used, u, r->in + coll_move_at(m, &m->send, p) * r->elem,
                               coll_move_n(m, &m->send, p));
        }
    } else {
        coll_recv(r, pack, cap, (v - span + r->root) % N, &c->rreq[0]);
        used = coll_wait_recv(r, &c->rreq[0]);
        /* the entries of v, v + 1, ..., end - 1, in order */
        for (u = v; u < end && r->st == GHZ_SUCCESS; u++) {
            int got = -1;
            const size_t len = read_entry(r, pack, off[u], used, &got);
            if (got != u) coll_fail(r, GHZ_ERR_CORRUPT);
            raw[u] = (size_t)((const uint64_t*)c->wire_size)[H_RAW];
            if (u + 1 < end) off[u + 1] = off[u] + len;
        }
    }
    /* (a subtree that ends at `end` ends at the pack's end: off has N entries) */
    for (step = span >> 1; step > 0; step >>= 1) {
        const int child = v + step, last = child + step < end ? child + step : end;
        if (child >= N) continue;
        for (u = child; u < last; u++) r->logical_bytes += raw[u];
        coll_send(r, pack + off[child], (last < end ? off[last] : used) - off[child], (child + r->root) % N,
                  &c->sreq[ns++]);
    }
    if (v != 0) {
        int got = -1;
        read_entry(r, pack, 0, used, &got);
        unpack_entry(r, pack, 0, r->out + coll_move_at(m, &m->recv, r->root) * r->elem,
                     coll_move_n(m, &m->recv, r->root));
    }
    coll_wait_all(r, c->sreq, ns);
}
