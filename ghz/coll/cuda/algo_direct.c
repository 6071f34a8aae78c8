/* ghz/coll/cuda/algo_direct.c: allreduce and reduce-scatter by direct reads of the
 * peers' memory (GHZ_ALGO_IPC_DIRECT; COLL.md, Algorithms, "Direct reads").
 *
 * Why it is safe (transport.h, fence): a rank reads a peer's region only between the
 * fences that follow the peer's write of it and precede its next write. Its regions
 * are: C (the published input, written before fence 1, read between fences 1 and 2)
 * and R (the combined segment, written between fences 1 and 2, read between fences 2
 * and 3). The next round's writes of C follow fence 3 and of R its fence 1; in one shot
 * (two fences) C is read between fences 1 and 2 and written again after fence 2. A
 * fence's meeting makes each peer's event record happen before the wait on it, so the
 * wait covers that record or a later one of the same event, which covers more work:
 * never an older one. Work of a later call on another stream waits for this one
 * (ghz_coll_backend_cuda_mark).
 *
 * Every rank carves the same regions at the same offsets of its pool, so a peer's region
 * is its mapped pool plus one's own offset. Frame sizes live next to them, written by
 * the GPU: the host never learns them before the consumer's kernel reads them. */
#include <cuda_runtime_api.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/coll/detail/algo.h"
#include "ghz/coll/detail/backend_cuda.h"
#include "ghz/coll/detail/reduce_cuda.h"
#include "ghz/detail/error.h"
#include "ghz/homo/homo_cuda.h"

/* A segment's region: every piece of a segment of `window` elements. */
static size_t seg_region(coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    return coll_align16(coll_seg_wire_cap(m, t, window, piece));
}

size_t coll_direct_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    const size_t N = (size_t)c->size, P = coll_pieces(window, piece);
    /* N published segments and the combined one; their frame sizes; the statuses of
     * the compressions, combines and decodes; slack for the pool's alignment */
    return (N + 1) * seg_region(m, t, window, piece) + coll_align16((N + 1) * P * sizeof(uint64_t)) +
           coll_align16((2 * N + 1) * P * sizeof(int)) + 64;
}

typedef struct {
    coll_round_t* r;
    ghz_comm_t* c;
    coll_cuda_parts_t x;
    size_t seg, P;      /* bytes of a segment's region; most pieces of a segment */
    unsigned char* C;   /* N regions: this rank's published input, segment by segment */
    unsigned char* R;   /* this rank's combined segment */
    uint64_t* szC;      /* N * P frame sizes of C, then P of R */
    uint64_t* szR;
    int* stC;           /* statuses: N * P compressions, P combines, N * P decodes */
    int* stR;
    int* stD;
} direct_t;

static void start(direct_t* d, coll_round_t* r)
{
    *d = (direct_t){.r = r, .c = r->comm};
    ghz_coll_backend_cuda_parts(&d->c->be, &d->x);
}

/* Where the peer's region at the offset of this rank's `mine` is mapped here. */
static void* at_peer(const direct_t* d, int peer, const void* mine)
{
    unsigned char* base = d->c->tp.peer_pool(&d->c->tp, peer);
    return base + ((const unsigned char*)mine - d->c->pool);
}

static ghz_status_t copy_async(const direct_t* d, void* dst, const void* src, size_t bytes)
{
    return coll_cuda_ok(bytes ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, d->x.stream) : cudaSuccess,
                        "cudaMemcpyAsync (direct)");
}

/* dst = the n values at `mine`'s offset in every rank's pool, folded left to right in
 * rank order: every exact combine of this file (three phases and one shot), so that
 * both give the same bits. */
static ghz_status_t fold_ranks(const direct_t* d, void* dst, const void* mine, size_t n)
{
    const coll_round_t* r = d->r;
    ghz_status_t st = ghz_coll_reduce_cuda(dst, at_peer(d, 0, mine), at_peer(d, 1, mine), n, r->dtype, r->op,
                                           d->x.stream);
    int q;
    for (q = 2; q < d->c->size && st == GHZ_SUCCESS; q++)
        st = ghz_coll_reduce_cuda(dst, dst, at_peer(d, q, mine), n, r->dtype, r->op, d->x.stream);
    return st;
}

/* Phase 1: this rank's input into C, every segment at its region. */
static ghz_status_t publish(direct_t* d)
{
    coll_round_t* r = d->r;
    const size_t N = (size_t)d->c->size, e = r->elem;
    ghz_status_t st = GHZ_SUCCESS;
    size_t s;
    if (r->mode == COLL_EXACT) {
        for (s = 0; s < N && st == GHZ_SUCCESS; s++)
            st = copy_async(d, d->C + s * d->seg, r->in + r->seg_off[s] * e, r->seg_cnt[s] * e);
        return st;
    }
    st = coll_cuda_encode_segs(r, &d->x, d->C, d->seg, d->P, d->szC, d->stC);
    return st == GHZ_SUCCESS ? ghz_coll_backend_cuda_check(&d->c->be, d->stC, N * d->P, "compression (direct)") : st;
}

/* Phase 2: this rank's segment, combined from every rank's C, into R. */
static ghz_status_t combine(direct_t* d)
{
    coll_round_t* r = d->r;
    const int N = d->c->size, me = d->c->rank;
    const size_t n = r->seg_cnt[me];
    ghz_status_t st = GHZ_SUCCESS;
    ghz_buf_t ins[GHZ_CUDA_HOMO_MAX_INPUTS];
    size_t j;
    int q;
    if (n == 0) return GHZ_SUCCESS;
    if (r->mode == COLL_EXACT) return fold_ranks(d, d->R, d->C + (size_t)me * d->seg, n);
    for (j = 0; j < coll_pieces(n, r->piece) && st == GHZ_SUCCESS; j++) {
        const size_t cap = coll_piece_cap(r, n, j), off = coll_piece_wire_off(r, j);
        unsigned char* mine = d->C + (size_t)me * d->seg + off;
        ghz_buf_t out = coll_cuda_frame(d->R + off, 0, cap, d->szR + j);
        for (q = 0; q < N; q++)
            ins[q] = coll_cuda_frame(at_peer(d, q, mine), 0, cap,
                                     (uint64_t*)at_peer(d, q, d->szC + (size_t)me * d->P + j));
        st = ghz_cuda_homo_sum_n(d->x.ctx, r->dtype, (size_t)N, ins, &out, d->x.max_elems, d->stR + j,
                                 d->x.sum_work, d->x.sum_work_bytes, d->x.stream);
    }
    if (st == GHZ_SUCCESS) st = ghz_coll_backend_cuda_check(&d->c->be, d->stR, d->P, "n-ary sum (direct)");
    return st;
}

/* Phase 3: segment s's result from its owner's R into out_of(s). */
static ghz_status_t gather(direct_t* d, int all, unsigned char* out_own)
{
    coll_round_t* r = d->r;
    const int N = d->c->size, me = d->c->rank;
    const size_t e = r->elem;
    ghz_status_t st = GHZ_SUCCESS;
    int s;
    for (s = 0; s < N && st == GHZ_SUCCESS; s++) {
        const size_t n = r->seg_cnt[s];
        unsigned char* dst = all ? r->out + r->seg_off[s] * e : out_own;
        if (!all && s != me) continue;
        st = r->mode == COLL_EXACT ? copy_async(d, dst, at_peer(d, s, d->R), n * e)
                                   : coll_cuda_decode_seg(r, &d->x, (const unsigned char*)at_peer(d, s, d->R), NULL,
                                                          (uint64_t*)at_peer(d, s, d->szR), n, dst,
                                                          d->stD + (size_t)s * d->P);
    }
    if (st == GHZ_SUCCESS && r->mode != COLL_EXACT)
        st = ghz_coll_backend_cuda_check(&d->c->be, d->stD, (size_t)N * d->P, "decompression (direct)");
    return st;
}

/* The bytes the peers read from this rank: its published segments but its own, and its
 * combined segment once per reader (all: allreduce). Compressed sizes come from the GPU. */
static void count_bytes(direct_t* d, int all)
{
    coll_round_t* r = d->r;
    const int N = d->c->size, me = d->c->rank;
    uint64_t* h = (uint64_t*)d->c->wire_size; /* (N + 2) * COLL_MAX_PIECES entries */
    uint64_t logical = 0, wire = 0;
    int s, sized = 0;
    size_t j;
    /* the sizes, on the call's stream (the phase checks already waited for it, so the
     * wait is for this copy alone) */
    if (r->mode != COLL_EXACT && r->st == GHZ_SUCCESS)
        sized = cudaMemcpyAsync(h, d->szC, ((size_t)N + 1) * d->P * sizeof *h, cudaMemcpyDeviceToHost,
                                d->x.stream) == cudaSuccess &&
                cudaStreamSynchronize(d->x.stream) == cudaSuccess;
    for (s = 0; s < N; s++) {
        const uint64_t readers = s != me ? 1 : all ? (uint64_t)(N - 1) : 0;
        const size_t n = r->seg_cnt[s];
        const uint64_t* sz = h + (size_t)(s != me ? s : N) * d->P; /* segment s's frames in C, or R's */
        logical += readers * n * r->elem;
        for (j = 0; sized && j < coll_pieces(n, r->piece); j++)
            if (coll_piece_n(r, n, j)) wire += readers * sz[j];
    }
    r->logical_bytes += logical;
    r->wire_bytes += sized ? wire : logical;
}

/* One shot (COLL.md, Choices: exact allreduce rounds of at most comm->one_shot_bytes
 * per rank): every rank folds every rank's whole input in rank order, as each owner does
 * in three phases, so the same bits. The round's input is [seg_off[0], + w) of in and
 * out, w the sum of the segments (split() lays them end to end). */
static void one_shot(coll_round_t* r, coll_pool_t* pool, size_t w)
{
    ghz_comm_t* c = r->comm;
    coll_transport_t* tp = &c->tp;
    const size_t e = r->elem, off = r->seg_off[0] * e;
    const int N = c->size;
    direct_t d;
    ghz_status_t st = r->st;
    unsigned char* C = (unsigned char*)coll_pool_take(pool, w * e);
    start(&d, r);
    if (st == GHZ_SUCCESS && !C) st = ghz_fail(GHZ_ERR_INVALID_ARG, "internal: the one-shot round does not fit");
    if (st == GHZ_SUCCESS) st = copy_async(&d, C, r->in + off, w * e);
    st = tp->fence(tp, st);
    if (st == GHZ_SUCCESS) st = fold_ranks(&d, r->out + off, C, w);
    st = tp->fence(tp, st);
    if (st == GHZ_SUCCESS) st = ghz_coll_backend_cuda_mark(&c->be);
    if (st != GHZ_SUCCESS) {
        coll_fail(r, st);
        return;
    }
    /* what the peers read from this rank: its input, once each */
    r->logical_bytes += (uint64_t)(N - 1) * w * e;
    r->wire_bytes += (uint64_t)(N - 1) * w * e;
}

void coll_direct_reduce(coll_round_t* r, coll_pool_t* pool, int all, unsigned char* out_own)
{
    direct_t d;
    ghz_comm_t* c = r->comm;
    coll_transport_t* tp = &c->tp;
    const size_t N = (size_t)c->size, window = coll_max_seg(r);
    ghz_status_t st = r->st;
    double* const t[3] = {&r->t_comp, &r->t_comb, &r->t_dec};
    int ph;
    if (all && r->mode == COLL_EXACT) {
        size_t w = 0, s;
        for (s = 0; s < N; s++) w += r->seg_cnt[s];
        if (w * r->elem <= c->one_shot_bytes) {
            one_shot(r, pool, w);
            return;
        }
    }
    start(&d, r);
    d.seg = seg_region(r->mode, r->dtype, window, r->piece);
    d.P = coll_pieces(window, r->piece);
    /* the same takes on every rank: the same offsets */
    d.C = (unsigned char*)coll_pool_take(pool, (N + 1) * d.seg);
    d.szC = (uint64_t*)coll_pool_take(pool, (N + 1) * d.P * sizeof(uint64_t));
    d.stC = (int*)coll_pool_take(pool, (2 * N + 1) * d.P * sizeof(int));
    if (st == GHZ_SUCCESS && (!d.C || !d.szC || !d.stC || d.P > COLL_MAX_PIECES))
        st = ghz_fail(GHZ_ERR_INVALID_ARG, "internal: the direct algorithm's round does not fit");
    if (st == GHZ_SUCCESS) {
        d.R = d.C + N * d.seg;
        d.szR = d.szC + N * d.P;
        d.stR = d.stC + N * d.P;
        d.stD = d.stR + d.P;
        /* pieces that no kernel writes (empty segments) read as successes */
        st = coll_cuda_ok(cudaMemsetAsync(d.stC, 0, (2 * N + 1) * d.P * sizeof(int), d.x.stream),
                          "cudaMemsetAsync (direct)");
    }
    /* three fences on every rank whatever happens: each carries the statuses */
    for (ph = 0; ph < 3; ph++) {
        const double t0 = coll_now();
        if (st == GHZ_SUCCESS) st = ph == 0 ? publish(&d) : ph == 1 ? combine(&d) : gather(&d, all, out_own);
        if (r->mode != COLL_EXACT) *t[ph] += coll_now() - t0;
        st = tp->fence(tp, st);
    }
    if (st == GHZ_SUCCESS) st = ghz_coll_backend_cuda_mark(&c->be);
    if (st != GHZ_SUCCESS) {
        coll_fail(r, st);
        return;
    }
    count_bytes(&d, all);
}
