/* ghz/coll/algo_common.c: what every algorithm uses (detail/algo.h). */
#include "ghz/codec/codec.h"
#include "ghz/coll/detail/algo.h"
#include "ghz/detail/error.h"

static void* take(unsigned char* base, size_t* used, size_t cap, size_t bytes)
{
    size_t at = coll_align16(*used);
    if (at > cap || bytes > cap - at) return NULL;
    *used = at + bytes;
    return base + at;
}

void* coll_pool_take(coll_pool_t* p, size_t bytes)
{
    return take(p->base, &p->used, p->cap, bytes);
}

void* coll_pool_raw(coll_pool_t* p, size_t bytes)
{
    return p->rbase ? take(p->rbase, &p->rused, p->rcap, bytes) : take(p->base, &p->used, p->cap, bytes);
}

size_t coll_wire_cap(coll_mode_t m, ghz_dtype_t dtype, size_t n)
{
    return m == COLL_EXACT ? n * ghz_dtype_size(dtype) : ghz_compress_bound(n, dtype);
}

size_t coll_pieces(size_t n, size_t piece)
{
    return n == 0 ? 1 : (n + piece - 1) / piece;
}

size_t coll_seg_wire_cap(coll_mode_t m, ghz_dtype_t dtype, size_t n, size_t piece)
{
    const size_t full = n / piece, rest = n - full * piece;
    if (n == 0) return coll_wire_cap(m, dtype, 0);
    return full * coll_wire_cap(m, dtype, piece) + (rest ? coll_wire_cap(m, dtype, rest) : 0);
}

void coll_fail(coll_round_t* r, ghz_status_t st)
{
    if (r->st == GHZ_SUCCESS) r->st = st; /* (a success leaves it as it is) */
}

/* With a host mirror, pool + x travels through pool_mirror + x. */
static unsigned char* mirror_of(coll_round_t* r, const void* buf)
{
    ghz_comm_t* c = r->comm;
    const unsigned char* p = (const unsigned char*)buf;
    if (p < c->pool || p >= c->pool + c->pool_bytes) {
        coll_fail(r, ghz_fail(GHZ_ERR_INVALID_ARG, "internal: a mirrored message outside the wire pool"));
        return NULL;
    }
    return c->pool_mirror + (p - c->pool);
}

void coll_send(coll_round_t* r, const void* buf, size_t bytes, int peer, coll_req_t* req)
{
    coll_transport_t* tp = &r->comm->tp;
    coll_backend_t* be = &r->comm->be;
    ghz_status_t st;
    int poison = r->st != GHZ_SUCCESS;
    if (!poison && r->comm->host_mirror && bytes) {
        unsigned char* m = mirror_of(r, buf);
        double t0 = coll_now();
        coll_fail(r, m ? be->copy(be, m, buf, bytes) : r->st);
        r->t_stage += coll_now() - t0;
        buf = m;
        poison = r->st != GHZ_SUCCESS;
    }
    st = tp->isend(tp, poison ? NULL : buf, poison ? 0 : bytes, peer, poison, req);
    if (st != GHZ_SUCCESS) coll_fail(r, st);
    else if (!poison) r->wire_bytes += bytes;
}

void coll_recv(coll_round_t* r, void* buf, size_t capacity, int peer, coll_req_t* req)
{
    coll_transport_t* tp = &r->comm->tp;
    unsigned char* m = r->comm->host_mirror && capacity ? mirror_of(r, buf) : NULL;
    req->stage_dev = m ? buf : NULL; /* landed in the mirror, copied there */
    req->stage_host = m;
    coll_fail(r, tp->irecv(tp, m ? m : buf, capacity, peer, req));
}

size_t coll_wait_recv(coll_round_t* r, coll_req_t* req)
{
    coll_transport_t* tp = &r->comm->tp;
    coll_backend_t* be = &r->comm->be;
    size_t bytes = 0;
    int poison = 0;
    ghz_status_t st = tp->wait(tp, req, &bytes, &poison);
    if (st == GHZ_SUCCESS && poison) st = GHZ_ERR_PEER;
    if (st == GHZ_SUCCESS && req->stage_dev && bytes) {
        const double t0 = coll_now();
        st = be->copy(be, req->stage_dev, req->stage_host, bytes);
        r->t_stage += coll_now() - t0;
    }
    coll_fail(r, st);
    return st == GHZ_SUCCESS ? bytes : 0;
}

void coll_wait_send(coll_round_t* r, coll_req_t* req)
{
    coll_fail(r, r->comm->tp.wait(&r->comm->tp, req, NULL, NULL));
}

void coll_wait_all(coll_round_t* r, coll_req_t* req, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) coll_wait_send(r, &req[i]);
}

size_t coll_encode(coll_round_t* r, const void* raw, size_t n, void* wire, size_t cap)
{
    coll_backend_t* be = &r->comm->be;
    size_t size = 0;
    ghz_status_t st = GHZ_SUCCESS;
    double t0 = coll_now();
    if (r->st != GHZ_SUCCESS) return 0;
    if (r->mode != COLL_EXACT) {
        st = be->compress(be, raw, n, r->dtype, r->eb, r->ratio_frames, wire, cap, &size);
        r->t_comp += coll_now() - t0;
        t0 = coll_now();
    }
    /* (a message of exactly the raw size is raw, coll_decode: no flag needed) */
    if (r->mode == COLL_EXACT || (st == GHZ_SUCCESS && r->raw_fallback && size >= n * r->elem)) {
        st = be->copy(be, wire, raw, n * r->elem);
        size = n * r->elem;
        r->t_stage += coll_now() - t0;
    }
    coll_fail(r, st);
    return size;
}

void coll_decode(coll_round_t* r, const void* wire, size_t size, void* raw, size_t n)
{
    coll_backend_t* be = &r->comm->be;
    const double t0 = coll_now();
    if (r->st != GHZ_SUCCESS) return;
    if (r->mode == COLL_EXACT || (r->raw_fallback && size == n * r->elem)) {
        coll_fail(r, size == n * r->elem ? be->copy(be, raw, wire, size) : GHZ_ERR_CORRUPT);
        r->t_stage += coll_now() - t0;
    } else {
        coll_fail(r, be->decompress(be, wire, size, raw, n, r->dtype));
        r->t_dec += coll_now() - t0;
    }
}

void coll_reduce(coll_round_t* r, void* out, const void* a, const void* b, size_t n)
{
    coll_backend_t* be = &r->comm->be;
    const double t0 = coll_now();
    if (r->st != GHZ_SUCCESS) return;
    coll_fail(r, be->reduce(be, out, a, b, n, r->dtype, r->op));
    r->t_comb += coll_now() - t0;
}

size_t coll_homo(coll_round_t* r, const void* a, size_t a_size, const void* b, size_t b_size, void* out, size_t cap)
{
    coll_backend_t* be = &r->comm->be;
    size_t size = 0;
    const double t0 = coll_now();
    if (r->st != GHZ_SUCCESS) return 0;
    coll_fail(r, be->homo_binary(be, r->op, r->dtype, a, a_size, b, b_size, out, cap, &size));
    r->t_comb += coll_now() - t0;
    return size;
}

size_t coll_piece_n(const coll_round_t* r, size_t n, size_t j)
{
    size_t at = j * r->piece;
    return at >= n ? 0 : n - at < r->piece ? n - at : r->piece;
}

size_t coll_piece_cap(const coll_round_t* r, size_t n, size_t j)
{
    return coll_wire_cap(r->mode, r->dtype, coll_piece_n(r, n, j));
}

size_t coll_piece_wire_off(const coll_round_t* r, size_t j)
{
    return j * coll_wire_cap(r->mode, r->dtype, r->piece);
}

void coll_expect(coll_round_t* r, size_t got, size_t want)
{
    if (r->st == GHZ_SUCCESS && got != want) coll_fail(r, GHZ_ERR_CORRUPT);
}

void coll_copy(coll_round_t* r, void* dst, const void* src, size_t bytes)
{
    if (r->st == GHZ_SUCCESS) coll_fail(r, r->comm->be.copy(&r->comm->be, dst, src, bytes));
}

void coll_encode_seg(coll_round_t* r, const unsigned char* src, size_t n, unsigned char* wire, size_t* sizes)
{
    size_t j, kp = coll_pieces(n, r->piece);
    for (j = 0; j < kp; j++) {
        const size_t pc = coll_piece_n(r, n, j), off = coll_piece_wire_off(r, j);
        sizes[j] = pc ? coll_encode(r, src + j * r->piece * r->elem, pc, wire + off, coll_piece_cap(r, n, j)) : 0;
    }
}

void coll_decode_seg(coll_round_t* r, const unsigned char* wire, const size_t* sizes, unsigned char* out, size_t n)
{
    size_t j, kp = coll_pieces(n, r->piece);
    for (j = 0; j < kp; j++) {
        const size_t pc = coll_piece_n(r, n, j);
        if (pc) coll_decode(r, wire + coll_piece_wire_off(r, j), sizes[j], out + j * r->piece * r->elem, pc);
    }
}

void coll_send_seg(coll_round_t* r, const unsigned char* wb, const size_t* sizes, size_t n, int peer, coll_req_t* req)
{
    size_t j, kp = coll_pieces(n, r->piece);
    for (j = 0; j < kp; j++) {
        const size_t pc = coll_piece_n(r, n, j), bytes = coll_zero_copy(r) ? pc * r->elem : pc ? sizes[j] : 0;
        coll_send(r, wb + coll_piece_wire_off(r, j), bytes, peer, &req[j]);
    }
}

void coll_recv_seg(coll_round_t* r, unsigned char* wb, size_t n, int peer, coll_req_t* req)
{
    size_t j, kp = coll_pieces(n, r->piece);
    for (j = 0; j < kp; j++) coll_recv(r, wb + coll_piece_wire_off(r, j), coll_piece_cap(r, n, j), peer, &req[j]);
}

void coll_stage_fin(coll_round_t* r, coll_pool_t* pool, const unsigned char* src, size_t n, size_t window)
{
    if (coll_zero_copy(r)) return;
    r->fin = coll_pool_take(pool, coll_seg_wire_cap(r->mode, r->dtype, window, r->piece));
    if (!r->fin) coll_fail(r, GHZ_ERR_NOMEM);
    coll_encode_seg(r, src, n, r->fin, r->fin_sizes);
}

void coll_round_add(coll_round_t* sum, const coll_round_t* r)
{
    sum->wire_bytes += r->wire_bytes;
    sum->logical_bytes += r->logical_bytes;
    sum->t_comp += r->t_comp;
    sum->t_comb += r->t_comb;
    sum->t_dec += r->t_dec;
    sum->t_stage += r->t_stage;
    sum->t_xfer += r->t_xfer;
}

void coll_send_piece(coll_round_t* r, const unsigned char* src, size_t n, size_t j, unsigned char* wb, int peer,
                     coll_req_t* req)
{
    const size_t pc = coll_piece_n(r, n, j), off = coll_piece_wire_off(r, j);
    const unsigned char* raw = src + j * r->piece * r->elem;
    if (coll_zero_copy(r)) coll_send(r, raw, pc * r->elem, peer, req);
    else coll_send(r, wb + off, pc ? coll_encode(r, raw, pc, wb + off, coll_piece_cap(r, n, j)) : 0, peer, req);
}

void coll_recv_piece(coll_round_t* r, unsigned char* dst, size_t n, size_t j, unsigned char* wb, int peer,
                     coll_req_t* req)
{
    void* at = coll_zero_copy(r) ? (void*)(dst + j * r->piece * r->elem) : (void*)(wb + coll_piece_wire_off(r, j));
    coll_recv(r, at, coll_piece_cap(r, n, j), peer, req);
}

size_t coll_land_piece(coll_round_t* r, unsigned char* dst, size_t n, size_t j, const unsigned char* wb,
                       coll_req_t* req)
{
    const size_t pc = coll_piece_n(r, n, j), got = coll_wait_recv(r, req);
    if (coll_zero_copy(r)) coll_expect(r, got, pc * r->elem);
    else if (pc) coll_decode(r, wb + coll_piece_wire_off(r, j), got, dst + j * r->piece * r->elem, pc);
    return got;
}

void coll_split(ghz_comm_t* c, size_t base, size_t n)
{
    const size_t N = (size_t)c->size, q = n / N, rem = n % N;
    size_t s, at = base;
    for (s = 0; s < N; at += c->seg_cnt[s++]) {
        c->seg_off[s] = at;
        c->seg_cnt[s] = q + (s < rem);
    }
}
