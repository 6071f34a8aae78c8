/* ghz/coll/nccl/move_nccl.c: the data-movement calls over NCCL (COLL.md, Transports,
 * NCCL, "The data movement"). A lossy block whose frame is not smaller travels raw, which
 * its record tells by the size: exactly the raw bytes. */
#include <string.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/coll/detail/backend_cuda.h"
#include "ghz/coll/detail/nccl_move.h"
#include "ghz/coll/detail/nccl_state.h"
#include "ghz/detail/error.h"

/* One frame serves every receiver (allgather, broadcast, gather: one send block). */
static int one_block(const coll_desc_t* k)
{
    return !k->mv->send_blocks;
}

/* The block this rank sends to p in round m, and the place of the one it receives from
 * p: element counts and byte pointers. */
static size_t send_n(const coll_desc_t* k, const coll_move_t* m, int p)
{
    return coll_move_n(m, &k->send, one_block(k) ? 0 : p);
}

static const unsigned char* send_at(const coll_desc_t* k, const coll_move_t* m, int p, size_t e)
{
    return k->in + coll_move_at(m, &k->send, one_block(k) ? 0 : p) * e;
}

static size_t recv_n(const coll_desc_t* k, const coll_move_t* m, int p)
{
    return coll_move_n(m, &k->recv, p);
}

static unsigned char* recv_at(const coll_desc_t* k, const coll_move_t* m, int p, size_t e)
{
    return k->out + coll_move_at(m, &k->recv, p) * e;
}

/* This rank's own block from its send side to its receive side, on the stream (NCCL's
 * own collectives move it themselves; the groups below do not). */
static ghz_status_t own_block(const ghz_comm_t* c, const coll_desc_t* k, cudaStream_t s)
{
    const unsigned char* src;
    unsigned char* dst;
    const size_t bytes = coll_mv_own_block(c, k, &src, &dst);
    return coll_cuda_ok(bytes ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s) : cudaSuccess,
                        "cudaMemcpyAsync (own block)");
}

/* NCCL's own uniform collectives, values as bytes (the kinds' entries, move_kinds.c), in
 * place in NCCL's forms, where move_kinds.c leaves the in-place buffers (a scatter root's
 * without an output buffer). Only this rank's own side changes with in place, never the
 * call, so ranks that differ in it still meet. */
ghz_status_t coll_nccl_mv_allgather(ghz_comm_t* c, const coll_desc_t* k, size_t e)
{
    return coll_nccl_ok(ncclAllGather(k->in, k->out, k->count * e, ncclUint8, c->nccl->comm, (cudaStream_t)k->stream),
                        "ncclAllGather");
}

ghz_status_t coll_nccl_mv_bcast(ghz_comm_t* c, const coll_desc_t* k, size_t e)
{
    return coll_nccl_ok(ncclBroadcast(k->in ? (const void*)k->in : (const void*)k->out, k->out, k->count * e,
                                      ncclUint8, k->root, c->nccl->comm, (cudaStream_t)k->stream),
                        "ncclBroadcast");
}

ghz_status_t coll_nccl_mv_gather(ghz_comm_t* c, const coll_desc_t* k, size_t e)
{
    return coll_nccl_ok(
        ncclGather(k->in, k->out, k->count * e, ncclUint8, k->root, c->nccl->comm, (cudaStream_t)k->stream),
        "ncclGather");
}

/* NCCL's alltoall is not in place: an in-place rank's blocks go from a copy in the pool
 * (coll_nccl_move_exact calls this only where the N blocks fit there, which every rank
 * computes alike, so that every rank makes the same NCCL call). */
ghz_status_t coll_nccl_mv_alltoall(ghz_comm_t* c, const coll_desc_t* k, size_t e)
{
    const size_t bytes = k->count * e;
    cudaStream_t s = (cudaStream_t)k->stream;
    const void* from = k->in;
    if (k->in_place) {
        const cudaError_t ce = cudaMemcpyAsync(c->pool, k->out, (size_t)c->size * bytes, cudaMemcpyDeviceToDevice, s);
        if (ce != cudaSuccess) return coll_cuda_fail(ce, "cudaMemcpyAsync (in-place alltoall)");
        from = c->pool;
    }
    return coll_nccl_ok(ncclAlltoAll(from, k->out, bytes, ncclUint8, c->nccl->comm, s), "ncclAlltoAll");
}

ghz_status_t coll_nccl_mv_scatter(ghz_comm_t* c, const coll_desc_t* k, size_t e)
{
    const size_t bytes = k->count * e;
    return coll_nccl_ok(ncclScatter(k->in, k->out ? k->out : (unsigned char*)k->in + (size_t)k->root * bytes, bytes,
                                    ncclUint8, k->root, c->nccl->comm, (cudaStream_t)k->stream),
                        "ncclScatter");
}

/* Exact, every other case: one group of sends and receives of raw blocks (an in-place
 * alltoall sends from a copy of its blocks in the pool, a window at a time). */
static ghz_status_t exact_group(ghz_comm_t* c, const coll_desc_t* k, size_t e, size_t extent, cudaStream_t s)
{
    const int N = c->size;
    const int stage = k->mv->in_place_shared && k->in_place;
    const size_t w = stage ? (c->pool_bytes / (size_t)N / e) & ~(size_t)3 : extent;
    coll_move_t m;
    ghz_status_t st = GHZ_SUCCESS;
    int p;
    if (stage && w == 0) return ghz_fail(GHZ_ERR_NOMEM, "pool_bytes %zu: too small for an in-place alltoall", c->pool_bytes);
    m.send = k->send;
    m.recv = k->recv;
    m.w = w;
    for (m.off = 0; st == GHZ_SUCCESS && (m.off < extent || m.off == 0); m.off += w) {
        ncclResult_t r;
        if (stage)
            for (p = 0; p < N && st == GHZ_SUCCESS; p++)
                if (coll_mv_sends_to(c, k, p) && send_n(k, &m, p))
                    st = coll_cuda_ok(cudaMemcpyAsync(c->pool + (size_t)p * w * e, send_at(k, &m, p, e),
                                                      send_n(k, &m, p) * e, cudaMemcpyDeviceToDevice, s),
                                      "cudaMemcpyAsync (in-place alltoall)");
        if (st != GHZ_SUCCESS) break;
        r = ncclGroupStart();
        for (p = 0; p < N && r == ncclSuccess; p++) {
            if (coll_mv_sends_to(c, k, p) && send_n(k, &m, p))
                r = ncclSend(stage ? c->pool + (size_t)p * w * e : send_at(k, &m, p, e), send_n(k, &m, p) * e,
                             ncclUint8, p, c->nccl->comm, s);
            if (r == ncclSuccess && coll_mv_recvs_from(c, k, p) && recv_n(k, &m, p))
                r = ncclRecv(recv_at(k, &m, p, e), recv_n(k, &m, p) * e, ncclUint8, p, c->nccl->comm, s);
        }
        st = coll_nccl_ok(coll_nccl_group_end(r), "ncclSend / ncclRecv (blocks)");
        if (!stage) break; /* (one group moves every block whole) */
    }
    return st;
}

ghz_status_t coll_nccl_move_exact(ghz_comm_t* c, const coll_desc_t* k, size_t extent, uint64_t* bytes_sent)
{
    const size_t e = ghz_dtype_size(k->dtype);
    cudaStream_t s = (cudaStream_t)k->stream;
    coll_move_t whole;
    int p;
    whole.send = k->send;
    whole.recv = k->recv;
    whole.off = 0;
    whole.w = extent;
    *bytes_sent = 0;
    for (p = 0; p < c->size; p++)
        if (coll_mv_sends_to(c, k, p)) *bytes_sent += send_n(k, &whole, p) * e;
    /* NCCL's own call for a uniform one; an alltoall's in-place ranks stage their N
     * blocks in the pool, so it needs them to fit there (the group below, a window at a
     * time, where they do not) */
    if (!k->v && k->mv->nccl_native &&
        (!k->mv->in_place_shared || extent <= c->pool_bytes / (size_t)c->size / e))
        return k->mv->nccl_native(c, k, e);
    const ghz_status_t st = own_block(c, k, s);
    return st == GHZ_SUCCESS ? exact_group(c, k, e, extent, s) : st;
}

/* The pool of one lossy round with blocks of at most `window` elements: the frames this
 * rank sends (one, or one per rank), the frames it receives (one per rank), and two
 * records (this rank's and every rank's: one size and one status per destination). */
static size_t lossy_need(const ghz_comm_t* c, const coll_desc_t* k, size_t window)
{
    const size_t N = (size_t)c->size, cap = coll_align16(ghz_compress_bound(window, k->dtype));
    return (one_block(k) ? 1 : N) * cap + N * cap + (N + 1) * coll_nccl_rec_bytes(c->size, 1) + 64;
}

typedef struct {
    ghz_comm_t* c;
    const coll_desc_t* k;
    coll_cuda_parts_t x;
    size_t e, cap, rec;
    unsigned char *S, *R, *mine, *all; /* frames sent and received; records */
    int* stD;                          /* (in the pool after the records) decoders' statuses */
} mvn_t;

/* The size rank q gave its frame for rank p (its record, read on the host). */
static size_t sent_size(const mvn_t* d, int q, int p)
{
    return (size_t)((const uint64_t*)(d->c->nccl->h_rec + (size_t)q * d->rec))[p];
}

/* One lossy round: compress, gather the records, send and receive, decode. */
static ghz_status_t lossy_round(mvn_t* d, const coll_move_t* m, double eb, coll_round_t* acc)
{
    ghz_comm_t* c = d->c;
    const coll_desc_t* k = d->k;
    const int N = c->size, me = c->rank;
    const size_t e = d->e;
    cudaStream_t s = d->x.stream;
    ghz_status_t st = GHZ_SUCCESS;
    const ghz_params_t prm = coll_codec_params(k->dtype, eb, acc->ratio_frames);
    ncclResult_t r;
    int p, first = -1;
    if (cudaMemsetAsync(d->mine, 0, d->rec, s) != cudaSuccess) st = ghz_fail(GHZ_ERR_CUDA, "cudaMemsetAsync (record)");
    /* 1. every block this rank sends, compressed once */
    for (p = 0; p < N && st == GHZ_SUCCESS; p++) {
        const int slot = one_block(k) ? 0 : p;
        ghz_buf_t out;
        if (!coll_mv_sends_to(c, k, p) || !send_n(k, m, p)) continue;
        if (one_block(k) && first >= 0) {
            /* the one frame, already made for the first receiver: its size for this one */
            if (cudaMemcpyAsync((uint64_t*)d->mine + p, (uint64_t*)d->mine + first, sizeof(uint64_t),
                                cudaMemcpyDeviceToDevice, s) != cudaSuccess)
                st = ghz_fail(GHZ_ERR_CUDA, "cudaMemcpyAsync (record)");
            continue;
        }
        out = coll_cuda_frame(d->S + (size_t)slot * d->cap, 0, d->cap, (uint64_t*)d->mine + p);
        st = ghz_cuda_compress(d->x.ctx, &prm, send_at(k, m, p, e), send_n(k, m, p), &out,
                               coll_nccl_rec_status(d->mine, N, 1) + p, NULL, 0, s);
        first = p;
    }
    /* 2. every rank's record, on every host */
    st = coll_nccl_records(c, d->mine, d->all, 1, st, s, "compression");
    if (st != GHZ_SUCCESS) return st;
    /* 3. frames (or raw blocks where the frame is not smaller) out, and in. In place (an
     * alltoall), a raw block goes out from a copy in its frame's slot: its place in the
     * buffer receives the peer's block in the same group. */
    if (k->in_place && !one_block(k))
        for (p = 0; p < N && st == GHZ_SUCCESS; p++)
            if (coll_mv_sends_to(c, k, p) && send_n(k, m, p) && sent_size(d, me, p) >= send_n(k, m, p) * e &&
                cudaMemcpyAsync(d->S + (size_t)p * d->cap, send_at(k, m, p, e), send_n(k, m, p) * e,
                                cudaMemcpyDeviceToDevice, s) != cudaSuccess)
                st = ghz_fail(GHZ_ERR_CUDA, "cudaMemcpyAsync (raw block)");
    if (st != GHZ_SUCCESS) return st;
    r = ncclGroupStart();
    for (p = 0; p < N && r == ncclSuccess; p++) {
        if (coll_mv_sends_to(c, k, p) && send_n(k, m, p)) {
            const size_t raw = send_n(k, m, p) * e, sz = sent_size(d, me, p);
            const int slot = one_block(k) ? 0 : p;
            const int staged = k->in_place && !one_block(k);
            r = sz >= raw && !staged ? ncclSend(send_at(k, m, p, e), raw, ncclUint8, p, c->nccl->comm, s)
                                     : ncclSend(d->S + (size_t)slot * d->cap, sz < raw ? sz : raw, ncclUint8, p,
                                                c->nccl->comm, s);
            acc->wire_bytes += sz < raw ? sz : raw;
            acc->logical_bytes += raw;
        }
        if (r == ncclSuccess && coll_mv_recvs_from(c, k, p) && recv_n(k, m, p)) {
            const size_t raw = recv_n(k, m, p) * e, sz = sent_size(d, p, me);
            r = sz >= raw ? ncclRecv(recv_at(k, m, p, e), raw, ncclUint8, p, c->nccl->comm, s)
                          : ncclRecv(d->R + (size_t)p * d->cap, sz, ncclUint8, p, c->nccl->comm, s);
        }
    }
    r = coll_nccl_group_end(r);
    if (r != ncclSuccess) return coll_nccl_fail(r, "ncclSend / ncclRecv (frames)");
    /* 4. every received frame decoded into its place */
    if (cudaMemsetAsync(d->stD, 0, (size_t)N * sizeof(int), s) != cudaSuccess)
        return ghz_fail(GHZ_ERR_CUDA, "cudaMemsetAsync (statuses)");
    for (p = 0; p < N && st == GHZ_SUCCESS; p++) {
        const size_t n = recv_n(k, m, p), sz = coll_mv_recvs_from(c, k, p) ? sent_size(d, p, me) : 0;
        ghz_buf_t src;
        if (!coll_mv_recvs_from(c, k, p) || !n || sz >= n * e) continue;
        src = coll_cuda_frame(d->R + (size_t)p * d->cap, sz, d->cap, NULL);
        st = ghz_cuda_decompress(d->x.ctx, k->dtype, &src, recv_at(k, m, p, e), n * e, NULL, d->stD + p, NULL, 0, s);
    }
    if (st == GHZ_SUCCESS) st = ghz_coll_backend_cuda_check(&c->be, d->stD, (size_t)N, "decompression (NCCL)");
    return st;
}

ghz_status_t coll_nccl_move_lossy(ghz_comm_t* c, const coll_desc_t* k, size_t extent, double eb, coll_round_t* acc,
                                  uint64_t* rounds)
{
    const size_t e = ghz_dtype_size(k->dtype);
    size_t lo = 0, hi, piece;
    mvn_t d;
    coll_move_t m;
    ghz_status_t st = GHZ_SUCCESS;
    memset(&d, 0, sizeof d);
    d.c = c;
    d.k = k;
    d.e = e;
    ghz_coll_backend_cuda_parts(&c->be, &d.x);
    d.rec = coll_nccl_rec_bytes(c->size, 1);
    /* the window: as much of every block as fits the pool, at most one codec piece */
    piece = d.x.max_elems > 64 ? d.x.max_elems - 64 : d.x.max_elems;
    hi = extent < piece ? extent : piece;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo + 1) / 2;
        if (lossy_need(c, k, mid) + coll_align16((size_t)c->size * sizeof(int)) <= c->pool_bytes) lo = mid;
        else hi = mid - 1;
    }
    if (lo == 0 && extent > 0)
        return ghz_fail(GHZ_ERR_NOMEM, "pool_bytes %zu cannot hold one round of the %s on %d ranks", c->pool_bytes,
                        coll_mv_name(k), c->size);
    d.cap = coll_align16(ghz_compress_bound(lo, k->dtype));
    d.S = c->pool;
    d.R = d.S + (one_block(k) ? 1 : (size_t)c->size) * d.cap;
    d.mine = d.R + (size_t)c->size * d.cap;
    d.all = d.mine + d.rec;
    d.stD = (int*)(d.all + (size_t)c->size * d.rec);
    m.send = k->send;
    m.recv = k->recv;
    m.w = lo;
    *rounds = 0;
    st = own_block(c, k, d.x.stream);
    for (m.off = 0; st == GHZ_SUCCESS && m.off < extent; m.off += lo) {
        st = lossy_round(&d, &m, eb, acc);
        ++*rounds;
    }
    return st;
}
