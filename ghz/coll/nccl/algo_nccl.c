/* ghz/coll/nccl/algo_nccl.c: allreduce, reduce and reduce-scatter over NCCL
 * (GHZ_ALGO_NCCL; COLL.md, Transports, NCCL: exact calls, lossy calls, and how a
 * receiver knows a frame's size). Lossy rounds run three phases: compress and exchange
 * the segments, combine, send the results and decode; the sizes of phases 1 and 2 come
 * from the gathered records (coll_nccl_records). */
#include <string.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "ghz/codec/codec_cuda.h"
#include "ghz/coll/detail/backend_cuda.h"
#include "ghz/coll/detail/nccl_state.h"
#include "ghz/coll/detail/reduce_call.h" /* coll_split */
#include "ghz/coll/detail/reduce_cuda.h"
#include "ghz/detail/error.h"
#include "ghz/homo/homo_cuda.h"

static int nccl_type(ghz_dtype_t t, ncclDataType_t* out)
{
    switch (t) {
    case GHZ_F32: *out = ncclFloat32; return 1;
    case GHZ_F64: *out = ncclFloat64; return 1;
    case GHZ_I8: *out = ncclInt8; return 1;
    case GHZ_U8: *out = ncclUint8; return 1;
    case GHZ_I32: *out = ncclInt32; return 1;
    case GHZ_U32: *out = ncclUint32; return 1;
    case GHZ_I64: *out = ncclInt64; return 1;
    case GHZ_U64: *out = ncclUint64; return 1;
    default: return 0;
    }
}

const char* coll_nccl_exact_refusal(ghz_dtype_t dtype, ghz_op_t op)
{
    ncclDataType_t t;
    if (!nccl_type(dtype, &t)) return "NCCL has no 16-bit integer type";
    if (op != GHZ_OP_SUM && op != GHZ_OP_AVG && op != GHZ_OP_PROD && op != GHZ_OP_MIN && op != GHZ_OP_MAX)
        return "NCCL has no logical or bitwise reduction";
    if ((op == GHZ_OP_MIN || op == GHZ_OP_MAX) && (dtype == GHZ_F32 || dtype == GHZ_F64))
        return "float min and max: a NaN operand's result is ghz's rule, not NCCL's";
    return NULL;
}

/* The two-level stages over a balanced split of count elements (coll_split: rank s
 * owns count / N elements, one more for s < count % N): NCCL's reduce-scatter and
 * allgather where the splits are equal; else, as those take equal blocks only, one
 * reduce (broadcast) per split rooted at its owner, grouped into one launch (each rank
 * sends and receives as many bytes as in the reduce-scatter or allgather). */
static ncclResult_t split_stage(ghz_comm_t* c, int reduce, const unsigned char* in, unsigned char* out, size_t count,
                                ncclDataType_t t, ncclRedOp_t o, size_t e, cudaStream_t stream)
{
    const ncclComm_t comm = c->nccl->comm;
    const size_t N = (size_t)c->size, q = count / N;
    ncclResult_t r;
    size_t s;
    if (count % N == 0)
        return reduce ? ncclReduceScatter(in, out + (size_t)c->rank * q * e, q, t, o, comm, stream)
                      : ncclAllGather(out + (size_t)c->rank * q * e, out, q, t, comm, stream);
    coll_split(c, 0, count);
    r = ncclGroupStart();
    for (s = 0; s < N && r == ncclSuccess; s++) {
        unsigned char* at = out + c->seg_off[s] * e;
        if (!c->seg_cnt[s]) continue;
        r = reduce ? ncclReduce(in + c->seg_off[s] * e, at, c->seg_cnt[s], t, o, (int)s, comm, stream)
                   : ncclBroadcast(at, at, c->seg_cnt[s], t, (int)s, comm, stream);
    }
    return coll_nccl_group_end(r);
}

ghz_status_t coll_nccl_exact(ghz_comm_t* c, coll_nccl_kind_t kind, const void* in, void* out, size_t count,
                             ghz_dtype_t dtype, ghz_op_t op, int root, ghz_stream_t stream)
{
    coll_nccl_t* n = c->nccl;
    const cudaStream_t s = (cudaStream_t)stream;
    const int moves = kind == COLL_NCCL_BCAST || kind == COLL_NCCL_AG_SPLIT; /* (no reduction) */
    ncclDataType_t t;
    ncclRedOp_t o = op == GHZ_OP_PROD ? ncclProd : op == GHZ_OP_MAX ? ncclMax : op == GHZ_OP_MIN ? ncclMin : ncclSum;
    ncclResult_t r;
    if ((!moves && coll_nccl_exact_refusal(dtype, op)) || !nccl_type(dtype, &t))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "internal: NCCL cannot reduce %s with %s", ghz_dtype_name(dtype),
                        ghz_op_name(op));
    switch (kind) {
    case COLL_NCCL_ALLREDUCE: r = ncclAllReduce(in, out, count, t, o, n->comm, s); break;
    case COLL_NCCL_REDUCE: r = ncclReduce(in, out, count, t, o, root, n->comm, s); break;
    case COLL_NCCL_BCAST: r = ncclBroadcast(out, out, count, t, root, n->comm, s); break;
    case COLL_NCCL_RS_SPLIT:
    case COLL_NCCL_AG_SPLIT:
        r = split_stage(c, kind == COLL_NCCL_RS_SPLIT, (const unsigned char*)in, (unsigned char*)out, count, t, o,
                        ghz_dtype_size(dtype), s);
        break;
    default: r = ncclReduceScatter(in, out, count, t, o, n->comm, s); break;
    }
    return coll_nccl_ok(r, "NCCL's exact collective");
}

size_t coll_nccl_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece)
{
    const size_t N = (size_t)c->size, P = coll_pieces(window, piece);
    const size_t seg = coll_align16(coll_seg_wire_cap(m, t, window, piece));
    if (m == COLL_EXACT) return (N + 1) * seg + 64;
    /* C and X: N regions each; R and T; two phases' records, this rank's and every
     * rank's; the decoders' statuses */
    return (2 * N + 2) * seg + 2 * (N + 1) * coll_nccl_rec_bytes(c->size, P) + coll_align16(N * P * sizeof(int)) + 64;
}

typedef struct {
    coll_round_t* r;
    ghz_comm_t* c;
    coll_nccl_t* n;
    coll_cuda_parts_t x;
    coll_nccl_kind_t kind;
    size_t seg, P, rec;
    unsigned char *C, *X, *R, *T; /* compressed input (N segments), received frames, combined, scratch */
    unsigned char *rec1, *all1, *rec2, *all2;
    int* stD;
} nc_t;

static int* rec_status(const nc_t* d, unsigned char* rec)
{
    return coll_nccl_rec_status(rec, d->c->size, d->P);
}

/* The frame sizes of rank q's record of the last gathered phase, on the host. */
static const uint64_t* host_sizes(const nc_t* d, int q)
{
    return (const uint64_t*)(d->n->h_rec + (size_t)q * d->rec);
}

/* The phases of a compressed round, marked by events on the call's stream. */
enum { EV_START, EV_COMPRESSED, EV_SIZES1, EV_EXCHANGED, EV_COMBINED, EV_SIZES2, EV_SENT, EV_DECODED };

static void mark(nc_t* d, int ev)
{
    if (cudaEventRecord(d->n->ev[ev], d->x.stream) != cudaSuccess) cudaGetLastError();
}

static double between(const nc_t* d, int a, int b)
{
    float ms = 0.0f;
    return cudaEventElapsedTime(&ms, d->n->ev[a], d->n->ev[b]) == cudaSuccess ? ms * 1e-3 : 0.0;
}

/* The frames of a segment of n values to (send) or from rank q in the open group: piece
 * j at base + its wire offset, sizes[j] bytes. */
static ncclResult_t frames(nc_t* d, int send, unsigned char* base, const uint64_t* sizes, size_t n, int q)
{
    coll_round_t* r = d->r;
    ncclResult_t nr = ncclSuccess;
    size_t j;
    for (j = 0; j < coll_pieces(n, r->piece) && nr == ncclSuccess; j++) {
        unsigned char* at = base + coll_piece_wire_off(r, j);
        if (!coll_piece_n(r, n, j)) continue;
        if (!send) {
            nr = ncclRecv(at, sizes[j], ncclUint8, q, d->n->comm, d->x.stream);
            continue;
        }
        nr = ncclSend(at, sizes[j], ncclUint8, q, d->n->comm, d->x.stream);
        r->wire_bytes += sizes[j];
    }
    return nr;
}

/* Phase 1's exchange: segment q of C to rank q, and every rank's frames of this rank's
 * segment into X. */
static ghz_status_t exchange_inputs(nc_t* d)
{
    coll_round_t* r = d->r;
    const int N = d->c->size, me = d->c->rank;
    ncclResult_t nr = ncclGroupStart();
    int q;
    for (q = 0; q < N && nr == ncclSuccess; q++) {
        if (q == me) continue;
        nr = frames(d, 1, d->C + (size_t)q * d->seg, host_sizes(d, me) + (size_t)q * d->P, r->seg_cnt[q], q);
        if (nr == ncclSuccess)
            nr = frames(d, 0, d->X + (size_t)q * d->seg, host_sizes(d, q) + (size_t)me * d->P, r->seg_cnt[me], q);
        r->logical_bytes += r->seg_cnt[q] * r->elem;
    }
    return coll_nccl_ok(coll_nccl_group_end(nr), "ncclSend / ncclRecv (compressed segments)");
}

/* The call's bytes before and after compression over every rank (phase 1), for AUTO. */
static void count_ratio(nc_t* d)
{
    coll_round_t* r = d->r;
    const int N = d->c->size;
    size_t s, j;
    int q;
    for (q = 0; q < N; q++)
        for (s = 0; s < (size_t)N; s++) {
            if ((int)s == q) continue;
            d->n->call_raw += (double)(r->seg_cnt[s] * r->elem);
            for (j = 0; j < coll_pieces(r->seg_cnt[s], r->piece); j++)
                if (coll_piece_n(r, r->seg_cnt[s], j)) d->n->call_wire += (double)host_sizes(d, q)[s * d->P + j];
        }
}

/* Phase 2: this rank's segment, combined from the N frames (its own in C), into R. */
static ghz_status_t combine(nc_t* d)
{
    coll_round_t* r = d->r;
    const int N = d->c->size, me = d->c->rank;
    const size_t n = r->seg_cnt[me];
    ghz_status_t st = coll_cuda_ok(cudaMemsetAsync(d->rec2, 0, d->rec, d->x.stream), "cudaMemsetAsync (record)");
    ghz_buf_t ins[GHZ_CUDA_HOMO_MAX_INPUTS];
    size_t j;
    int q;
    for (j = 0; j < coll_pieces(n, r->piece) && st == GHZ_SUCCESS; j++) {
        const size_t cap = coll_piece_cap(r, n, j), off = coll_piece_wire_off(r, j);
        uint64_t* osz = (uint64_t*)d->rec2 + j;
        int* ost = rec_status(d, d->rec2) + j;
        if (!coll_piece_n(r, n, j)) continue;
        for (q = 0; q < N; q++)
            ins[q] = coll_cuda_frame((q == me ? d->C : d->X) + (size_t)q * d->seg + off,
                                     host_sizes(d, q)[(size_t)me * d->P + j], cap, NULL);
        if (N == 1) { /* (a fold of one frame: the frame, its size from phase 1's record) */
            st = coll_cuda_ok(cudaMemcpyAsync(d->R + off, d->C + off, host_sizes(d, me)[j], cudaMemcpyDeviceToDevice,
                                              d->x.stream),
                              "cudaMemcpyAsync (NCCL combine)");
            if (st == GHZ_SUCCESS)
                st = coll_cuda_ok(cudaMemcpyAsync(osz, (const uint64_t*)d->rec1 + j, sizeof *osz,
                                                  cudaMemcpyDeviceToDevice, d->x.stream),
                                  "cudaMemcpyAsync (NCCL combine)");
        } else if (r->op == GHZ_OP_SUM) {
            ghz_buf_t out = coll_cuda_frame(d->R + off, 0, cap, osz);
            st = ghz_cuda_homo_sum_n(d->x.ctx, r->dtype, (size_t)N, ins, &out, d->x.max_elems, ost, d->x.sum_work,
                                     d->x.sum_work_bytes, d->x.stream);
        } else {
            /* MIN, MAX: a left fold, each step into R or T so that the last lands in R
             * (R's size in slot j, T's in slot P + j; each step its own status slot) */
            ghz_buf_t acc = ins[0];
            for (q = 1; q < N && st == GHZ_SUCCESS; q++) {
                const int into_r = (N - 1 - q) % 2 == 0;
                ghz_buf_t out = coll_cuda_frame((into_r ? d->R : d->T) + off, 0, cap, into_r ? osz : osz + d->P);
                st = ghz_cuda_homo_binary(d->x.ctx, coll_homo_op(r->op), r->dtype, &acc, &ins[q], &out,
                                          d->x.max_elems, ost + (size_t)(q - 1) * d->P, NULL, 0, d->x.stream);
                acc = out; /* its size on the device, written before the next step reads it */
            }
        }
    }
    return st;
}

/* Phase 3: the combined frames to the ranks that need them, and every needed segment
 * decoded into the output. */
static ghz_status_t finish(nc_t* d, unsigned char* out_own)
{
    coll_round_t* r = d->r;
    const int N = d->c->size, me = d->c->rank;
    const size_t e = r->elem;
    const int to_all = d->kind == COLL_NCCL_ALLREDUCE, root = d->kind == COLL_NCCL_REDUCE ? r->root : -1;
    ghz_status_t st;
    ncclResult_t nr;
    int q, s;
    if (to_all || root >= 0) {
        nr = ncclGroupStart();
        for (q = 0; q < N && nr == ncclSuccess; q++) {
            if (q == me) continue;
            if (to_all || q == root) {
                nr = frames(d, 1, d->R, host_sizes(d, me), r->seg_cnt[me], q);
                r->logical_bytes += r->seg_cnt[me] * e;
            }
            if (nr == ncclSuccess && (to_all || me == root))
                nr = frames(d, 0, d->X + (size_t)q * d->seg, host_sizes(d, q), r->seg_cnt[q], q);
        }
        st = coll_nccl_ok(coll_nccl_group_end(nr), "ncclSend / ncclRecv (combined segments)");
        if (st != GHZ_SUCCESS) return st;
    }
    mark(d, EV_SENT);
    st = coll_cuda_ok(cudaMemsetAsync(d->stD, 0, (size_t)N * d->P * sizeof(int), d->x.stream),
                      "cudaMemsetAsync (direct)");
    for (s = 0; s < N && st == GHZ_SUCCESS; s++) {
        unsigned char* dst;
        if (to_all || me == root) dst = r->out + r->seg_off[s] * e;
        else if (d->kind == COLL_NCCL_REDUCE_SCATTER && s == me) dst = out_own;
        else continue;
        st = coll_cuda_decode_seg(r, &d->x, s == me ? d->R : d->X + (size_t)s * d->seg, host_sizes(d, s), NULL,
                                  r->seg_cnt[s], dst, d->stD + (size_t)s * d->P);
    }
    mark(d, EV_DECODED);
    if (st == GHZ_SUCCESS) st = ghz_coll_backend_cuda_check(&d->c->be, d->stD, (size_t)N * d->P, "decompression (NCCL)");
    return st;
}

/* Exact, for what NCCL cannot reduce itself: segments to their owners, a fold in rank
 * order, the results back. Stream-ordered; nothing waits on the host. */
static ghz_status_t exact_round(nc_t* d, unsigned char* out_own)
{
    coll_round_t* r = d->r;
    const int N = d->c->size, me = d->c->rank;
    const size_t e = r->elem, n = r->seg_cnt[me];
    const int to_all = d->kind == COLL_NCCL_ALLREDUCE, root = d->kind == COLL_NCCL_REDUCE ? r->root : -1;
    const unsigned char* own = r->in + r->seg_off[me] * e;
    ncclResult_t nr = ncclGroupStart();
    ghz_status_t st;
    int q;
    for (q = 0; q < N && nr == ncclSuccess; q++) {
        if (q == me) continue;
        if (r->seg_cnt[q]) nr = ncclSend(r->in + r->seg_off[q] * e, r->seg_cnt[q] * e, ncclUint8, q, d->n->comm, d->x.stream);
        if (nr == ncclSuccess && n) nr = ncclRecv(d->X + (size_t)q * d->seg, n * e, ncclUint8, q, d->n->comm, d->x.stream);
        r->logical_bytes += r->seg_cnt[q] * e;
    }
    st = coll_nccl_ok(coll_nccl_group_end(nr), "ncclSend / ncclRecv (segments)");
    if (st != GHZ_SUCCESS) return st;
    if (n && N == 1) {
        st = coll_cuda_ok(cudaMemcpyAsync(d->R, own, n * e, cudaMemcpyDeviceToDevice, d->x.stream),
                          "cudaMemcpyAsync (NCCL exact)");
    } else if (n) {
        const void* src0 = me == 0 ? (const void*)own : (const void*)d->X;
        const void* src1 = me == 1 ? (const void*)own : (const void*)(d->X + d->seg);
        st = ghz_coll_reduce_cuda(d->R, src0, src1, n, r->dtype, r->op, d->x.stream);
        for (q = 2; q < N && st == GHZ_SUCCESS; q++)
            st = ghz_coll_reduce_cuda(d->R, d->R, q == me ? (const void*)own : (const void*)(d->X + (size_t)q * d->seg), n,
                                      r->dtype, r->op, d->x.stream);
    }
    if (st != GHZ_SUCCESS) return st;
    if (to_all || root >= 0) {
        nr = ncclGroupStart();
        for (q = 0; q < N && nr == ncclSuccess; q++) {
            if (q == me) continue;
            if ((to_all || q == root) && n) nr = ncclSend(d->R, n * e, ncclUint8, q, d->n->comm, d->x.stream);
            if ((to_all || me == root) && r->seg_cnt[q] && nr == ncclSuccess)
                nr = ncclRecv(r->out + r->seg_off[q] * e, r->seg_cnt[q] * e, ncclUint8, q, d->n->comm, d->x.stream);
            if (to_all || q == root) r->logical_bytes += n * e;
        }
        st = coll_nccl_ok(coll_nccl_group_end(nr), "ncclSend / ncclRecv (results)");
        if (st != GHZ_SUCCESS) return st;
        if ((to_all || me == root) && n)
            st = coll_cuda_ok(cudaMemcpyAsync(r->out + r->seg_off[me] * e, d->R, n * e, cudaMemcpyDeviceToDevice,
                                              d->x.stream),
                              "cudaMemcpyAsync (NCCL exact)");
    } else if (n) {
        st = coll_cuda_ok(cudaMemcpyAsync(out_own, d->R, n * e, cudaMemcpyDeviceToDevice, d->x.stream),
                          "cudaMemcpyAsync (NCCL exact)");
    }
    r->wire_bytes = r->logical_bytes;
    return st;
}

void coll_nccl_reduce(coll_round_t* r, coll_pool_t* pool, coll_nccl_kind_t kind, unsigned char* out_own)
{
    nc_t d;
    ghz_comm_t* c = r->comm;
    const size_t N = (size_t)c->size, window = coll_max_seg(r);
    ghz_status_t st = r->st;
    memset(&d, 0, sizeof d);
    d.r = r;
    d.c = c;
    d.n = c->nccl;
    d.kind = kind;
    ghz_coll_backend_cuda_parts(&c->be, &d.x);
    d.seg = coll_align16(coll_seg_wire_cap(r->mode, r->dtype, window, r->piece));
    d.P = coll_pieces(window, r->piece);
    d.rec = coll_nccl_rec_bytes(c->size, d.P);
    if (r->mode == COLL_EXACT) {
        d.X = (unsigned char*)coll_pool_take(pool, N * d.seg);
        d.R = (unsigned char*)coll_pool_take(pool, d.seg);
        if (st == GHZ_SUCCESS && (!d.X || !d.R))
            st = ghz_fail(GHZ_ERR_INVALID_ARG, "internal: the NCCL round does not fit");
        if (st == GHZ_SUCCESS) st = exact_round(&d, out_own);
        if (st != GHZ_SUCCESS) coll_fail(r, st);
        return;
    }
    d.C = (unsigned char*)coll_pool_take(pool, (2 * N + 2) * d.seg);
    d.rec1 = (unsigned char*)coll_pool_take(pool, 2 * (N + 1) * d.rec);
    d.stD = (int*)coll_pool_take(pool, N * d.P * sizeof(int));
    if (st == GHZ_SUCCESS && (!d.C || !d.rec1 || !d.stD || d.P > COLL_MAX_PIECES || c->size > GHZ_CUDA_HOMO_MAX_INPUTS))
        st = ghz_fail(GHZ_ERR_INVALID_ARG, "internal: the NCCL round does not fit");
    if (d.C) {
        d.X = d.C + N * d.seg;
        d.R = d.X + N * d.seg;
        d.T = d.R + d.seg;
        d.all1 = d.rec1 + d.rec;
        d.rec2 = d.all1 + N * d.rec;
        d.all2 = d.rec2 + d.rec;
    }
    /* The layout is the same on every rank: if it does not fit, every rank fails here. */
    if (!d.C || !d.rec1 || !d.stD) {
        coll_fail(r, st);
        return;
    }
    /* Both gathers run on every rank whatever happened before; after each, every rank
     * has seen the same records and takes the same branch. */
    mark(&d, EV_START);
    /* phase 1: this rank's input, segment by segment, into C; sizes and statuses into rec1 */
    if (st == GHZ_SUCCESS) st = coll_cuda_ok(cudaMemsetAsync(d.rec1, 0, d.rec, d.x.stream), "cudaMemsetAsync (record)");
    if (st == GHZ_SUCCESS)
        st = coll_cuda_encode_segs(r, &d.x, d.C, d.seg, d.P, (uint64_t*)d.rec1, rec_status(&d, d.rec1));
    mark(&d, EV_COMPRESSED);
    st = coll_nccl_records(c, d.rec1, d.all1, d.P, st, d.x.stream, "compression");
    mark(&d, EV_SIZES1);
    if (st != GHZ_SUCCESS) {
        coll_fail(r, st);
        return;
    }
    count_ratio(&d);
    st = exchange_inputs(&d);
    mark(&d, EV_EXCHANGED);
    if (st == GHZ_SUCCESS) st = combine(&d);
    mark(&d, EV_COMBINED);
    st = coll_nccl_records(c, d.rec2, d.all2, d.P, st, d.x.stream, "homomorphic combine");
    mark(&d, EV_SIZES2);
    if (st == GHZ_SUCCESS) st = finish(&d, out_own);
    if (st != GHZ_SUCCESS) {
        coll_fail(r, st);
        return;
    }
    /* (finish waited for the stream: every event has completed) */
    r->t_comp += between(&d, EV_START, EV_COMPRESSED);
    r->t_xfer += between(&d, EV_COMPRESSED, EV_EXCHANGED) + between(&d, EV_COMBINED, EV_SENT);
    r->t_comb += between(&d, EV_EXCHANGED, EV_COMBINED);
    r->t_dec += between(&d, EV_SENT, EV_DECODED);
}
