/* ghz/coll/detail/algo.h: what the collective algorithms share (private). An algorithm
 * runs one round (COLL.md, Algorithms) in one of the modes below. */
#ifndef GHZ_COLL_DETAIL_ALGO_H
#define GHZ_COLL_DETAIL_ALGO_H

#include <time.h>

#include "ghz/coll/detail/comm.h"

/* EXACT: raw values; HOMO: frames combined by ghz/homo; DOC: decode, combine, recompress. */
typedef enum { COLL_EXACT = 0, COLL_HOMO = 1, COLL_DOC = 2 } coll_mode_t;

#define COLL_MAX_PIECES 64 /* most pieces per segment in one round: bounds the arrays allocated at init */
#define COLL_SUM_N_MAX 64 /* most inputs of one n-ary homomorphic sum (the pairwise algorithm's combine) */

typedef struct {
    ghz_comm_t* comm;
    coll_mode_t mode;
    ghz_dtype_t dtype;
    ghz_op_t op;           /* the combining op: AVG arrives here as SUM */
    size_t elem;
    double eb;             /* E of every compression (lossy modes) */
    size_t piece;          /* elements per message */
    const unsigned char* in;
    unsigned char* out;
    const size_t* seg_off; /* comm->size entries */
    const size_t* seg_cnt;
    int final_wire;        /* the result is sent compressed too: its owner decodes the
                              bytes it sends, so every rank holds the same bits */
    int root;
    size_t count;          /* recursive doubling, binomial: the round's whole vector */
    unsigned char* fin;    /* this rank's final frames, for the allgather */
    size_t* fin_sizes;
    int staged;            /* exact values go through wire buffers too (backend.h, staged) */
    int raw_fallback;      /* a frame no smaller than its raw values travels raw */
    int ratio_frames;      /* data movement: frames of the codec's ratio mode */
    ghz_status_t st;       /* this rank's status; poisons its messages once set */
    uint64_t wire_bytes;
    double t_comp, t_comb, t_dec, t_stage;
    double t_xfer;         /* seconds of transfers on the GPU (NCCL: CUDA events) */
    uint64_t logical_bytes;
} coll_round_t;

/* Bump allocators (16-byte aligned) over the wire pool and the raw pool (rbase; NULL:
 * raw slices come from base too). */
typedef struct {
    unsigned char* base;
    size_t used, cap;
    unsigned char* rbase;
    size_t rused, rcap;
} coll_pool_t;
void* coll_pool_take(coll_pool_t* p, size_t bytes);
void* coll_pool_raw(coll_pool_t* p, size_t bytes);

/* Wall-clock seconds without MPI (C11's clock: clock_gettime is POSIX). */
static inline double coll_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int coll_mod(long a, int n)
{
    long m = a % n;
    return (int)(m < 0 ? m + n : m);
}

static inline size_t coll_min(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Buffers and frames start 16-byte aligned, for the codecs' vector loads. */
static inline size_t coll_align16(size_t x)
{
    return (x + 15u) & ~(size_t)15u;
}

static inline size_t coll_max_seg(const coll_round_t* r)
{
    size_t s, m = 0;
    for (s = 0; s < (size_t)r->comm->size; s++)
        if (r->seg_cnt[s] > m) m = r->seg_cnt[s];
    return m;
}

/* Exact values move straight from and into the caller's buffers. */
static inline int coll_zero_copy(const coll_round_t* r)
{
    return r->mode == COLL_EXACT && !r->staged;
}
/* Received partials are decoded, combined raw and encoded again (staged exact: its codec a copy). */
static inline int coll_doc_like(const coll_round_t* r)
{
    return r->mode == COLL_DOC || (r->mode == COLL_EXACT && r->staged);
}

/* The piece count is at least 1: an empty segment still sends one message, so poison
 * always flows. */
size_t coll_wire_cap(coll_mode_t m, ghz_dtype_t dtype, size_t n);
size_t coll_seg_wire_cap(coll_mode_t m, ghz_dtype_t dtype, size_t n, size_t piece);
size_t coll_pieces(size_t n, size_t piece);

/* The algorithms: the pool a round of `window` elements per segment needs, and a round. */
size_t coll_ring_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
/* This rank's segment to out_own; with final_wire its frames stay in r->fin. */
void coll_ring_reduce_scatter(coll_round_t* r, coll_pool_t* pool, unsigned char* out_own);
/* Every segment into out + seg_off[s] (exact: from out; lossy: from r->fin). */
size_t coll_allgather_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_ring_allgather(coll_round_t* r, coll_pool_t* pool);
size_t coll_pairwise_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_pairwise_reduce_scatter(coll_round_t* r, coll_pool_t* pool, unsigned char* out_own);
size_t coll_recdbl_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_recdbl_allreduce(coll_round_t* r, coll_pool_t* pool);
size_t coll_binomial_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_binomial_reduce(coll_round_t* r, coll_pool_t* pool);
size_t coll_bcast_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_binomial_bcast(coll_round_t* r, coll_pool_t* pool);
void coll_chain_bcast(coll_round_t* r, coll_pool_t* pool);
/* cuda/algo_direct.c: all: every segment into out + seg_off[s], else this rank's to out_own. */
size_t coll_direct_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_direct_reduce(coll_round_t* r, coll_pool_t* pool, int all, unsigned char* out_own);

size_t coll_piece_n(const coll_round_t* r, size_t n, size_t j);
size_t coll_piece_cap(const coll_round_t* r, size_t n, size_t j);
size_t coll_piece_wire_off(const coll_round_t* r, size_t j);
/* Piece j of the n values at src to peer: straight (zero copy) or encoded into wb's slot. */
void coll_send_piece(coll_round_t* r, const unsigned char* src, size_t n, size_t j, unsigned char* wb, int peer,
                     coll_req_t* req);
/* Piece j of n values from peer: posted into dst (zero copy) or wb's slot; landed: its
 * size checked or decoded into dst, and returned. */
void coll_recv_piece(coll_round_t* r, unsigned char* dst, size_t n, size_t j, unsigned char* wb, int peer,
                     coll_req_t* req);
size_t coll_land_piece(coll_round_t* r, unsigned char* dst, size_t n, size_t j, const unsigned char* wb,
                       coll_req_t* req);
/* Every piece of a segment of n values sent from wb's slots (sizes[j]; exact zero copy:
 * the values at wb), or posted to be received into them (req[j]). */
void coll_send_seg(coll_round_t* r, const unsigned char* wb, const size_t* sizes, size_t n, int peer, coll_req_t* req);
void coll_recv_seg(coll_round_t* r, unsigned char* wb, size_t n, int peer, coll_req_t* req);
/* Every piece of a segment of n values, encoded into its slot of wire (sizes[j]), and back. */
void coll_encode_seg(coll_round_t* r, const unsigned char* src, size_t n, unsigned char* wire, size_t* sizes);
void coll_decode_seg(coll_round_t* r, const unsigned char* wire, const size_t* sizes, unsigned char* out, size_t n);
/* An allgather's own segment, the n values at src, encoded once into r->fin (unless
 * exact values move straight). */
void coll_stage_fin(coll_round_t* r, coll_pool_t* pool, const unsigned char* src, size_t n, size_t window);
void coll_copy(coll_round_t* r, void* dst, const void* src, size_t bytes);
void coll_expect(coll_round_t* r, size_t got, size_t want);
void coll_round_add(coll_round_t* sum, const coll_round_t* r);

/* Transport and backend calls that keep the round's status (the first failure poisons
 * every later message) and its byte counts. coll_wait_recv: the size, 0 when poisoned. */
void coll_send(coll_round_t* r, const void* buf, size_t bytes, int peer, coll_req_t* req);
void coll_recv(coll_round_t* r, void* buf, size_t capacity, int peer, coll_req_t* req);
size_t coll_wait_recv(coll_round_t* r, coll_req_t* req);
void coll_wait_send(coll_round_t* r, coll_req_t* req);
void coll_wait_all(coll_round_t* r, coll_req_t* req, size_t n);
void coll_fail(coll_round_t* r, ghz_status_t st);

/* Piece operations in the round's mode; each a no-op once r->st is set. encode: exact a
 * copy, lossy a frame (or the raw values, with raw_fallback, where it is no smaller). */
size_t coll_encode(coll_round_t* r, const void* raw, size_t n, void* wire, size_t cap);
void coll_decode(coll_round_t* r, const void* wire, size_t size, void* raw, size_t n);
void coll_reduce(coll_round_t* r, void* out, const void* a, const void* b, size_t n);
size_t coll_homo(coll_round_t* r, const void* a, size_t a_size, const void* b, size_t b_size, void* out, size_t cap);

void coll_split(ghz_comm_t* c, size_t base, size_t n);

/* The data movement: a round covers elements [off, off + w) of every block, and each
 * value is compressed once, never again. One side's blocks: block p is cnt[p] elements
 * at displ[p] (v forms), or `count` at p * count; single: one block of `count` at 0. */
typedef struct {
    const size_t* cnt;
    const size_t* displ;
    size_t count;
    int single;
} coll_layout_t;

static inline size_t coll_lay_cnt(const coll_layout_t* l, int p)
{
    return l->cnt && !l->single ? l->cnt[p] : l->count;
}

static inline size_t coll_lay_displ(const coll_layout_t* l, int p)
{
    return l->single ? 0 : l->displ ? l->displ[p] : (size_t)p * l->count;
}

typedef struct {
    coll_layout_t send, recv;
    size_t off, w;
} coll_move_t;

/* Block p's elements in this round, and where they start. */
static inline size_t coll_move_n(const coll_move_t* m, const coll_layout_t* l, int p)
{
    const size_t n = coll_lay_cnt(l, p);
    return n <= m->off ? 0 : n - m->off < m->w ? n - m->off : m->w;
}

static inline size_t coll_move_at(const coll_move_t* m, const coll_layout_t* l, int p)
{
    return coll_lay_displ(l, p) + m->off;
}

/* The rounds move the other ranks' blocks; the own block is the caller's. */
size_t coll_linear_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_linear_gather(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);
void coll_linear_scatter(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);

size_t coll_tree_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_tree_gather(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);
void coll_tree_scatter(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);

size_t coll_alltoall_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
/* ... where exact values go through the wire buffers anyway (in place) */
size_t coll_alltoall_need_staged(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_pairwise_alltoall(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);

#endif
