/* ghz/coll/detail/algo.h: what the collective algorithms share (private).
 *
 * An algorithm runs one ROUND: a window of at most `window` elements per segment that
 * fits the communicator's pool. The entry points (reduce_rounds.c, coll_run_rounds) split a call into
 * rounds and fill a coll_round_t; the algorithm moves pieces (messages of at most
 * `piece` elements, each its own frame on the lossy paths) with the transport and
 * combines them with the backend, in one of three modes:
 *  - EXACT: raw values, exact reductions;
 *  - HOMO: every rank compresses its own data once; partial results stay compressed
 *    and are combined with ghz/homo; decompressed once at the end;
 *  - DOC: received partials are decompressed, combined with the rank's own raw values,
 *    and recompressed before they travel on.
 * COLL.md derives the error of each (algorithm, mode) pair: coll_error_terms(). */
#ifndef GHZ_COLL_DETAIL_ALGO_H
#define GHZ_COLL_DETAIL_ALGO_H

#include <time.h>

#include "ghz/coll/detail/comm.h"

typedef enum { COLL_EXACT = 0, COLL_HOMO = 1, COLL_DOC = 2 } coll_mode_t;

/* Most pieces per segment in one round: rounds are sized so that a segment has at most
 * this many (coll_fit_window), which bounds the request and size arrays the communicator
 * allocates at init. */
#define COLL_MAX_PIECES 64
/* Most inputs of one n-ary homomorphic sum (the pairwise algorithm's combine). */
#define COLL_SUM_N_MAX 64

/* One round of one call. Segment s covers seg_cnt[s] elements at element offset
 * seg_off[s] of `in`; its result goes to `out` + out_off(s) elements (see the
 * algorithm). */
typedef struct {
    ghz_comm_t* comm;
    coll_mode_t mode;
    ghz_dtype_t dtype;
    ghz_op_t op;           /* the combining op: AVG arrives here as SUM */
    size_t elem;
    double eb;             /* absolute bound of every compression (lossy modes) */
    size_t piece;          /* elements per message */
    const unsigned char* in;
    unsigned char* out;
    const size_t* seg_off; /* comm->size entries */
    const size_t* seg_cnt;
    int final_wire;        /* the result is also sent compressed (allreduce's allgather):
                              the owner must decode the very bytes it sends */
    int root;              /* reduce */
    size_t count;          /* elements of the window (recursive doubling, binomial:
                              the whole vector of this round, at in and out) */
    unsigned char* fin;    /* lossy final frames of this rank's segment (ring and
                              pairwise with final_wire), for the allgather */
    size_t* fin_sizes;     /* their sizes, one per piece */
    int staged;            /* exact rounds go through wire buffers (backend.h, staged:
                              the CUDA backend unless MPI takes device pointers; the
                              CUDA IPC transport sends only from its exported pool):
                              they cannot send user buffers directly and take the
                              DOC-shaped path with a copy for a codec. Independent of
                              the host mirror (comm.h, host_mirror) */
    int raw_fallback;      /* lossy frames no smaller than their raw values travel raw
                              (the data-movement calls: a frame is then the piece's
                              raw bytes, told apart by its size; coll_encode/decode) */
    ghz_status_t st;       /* this rank's status; poisons its messages once set */
    uint64_t wire_bytes;   /* bytes this rank sent */
    double t_comp, t_comb, t_dec, t_stage; /* seconds per kind of backend work */
    double t_xfer;         /* seconds of transfers on the GPU (NCCL: CUDA events) */
    uint64_t logical_bytes;
} coll_round_t;

/* Pool layout helpers: bump allocators (16-byte aligned slices) over the wire pool
 * (messages: memory the transport can send, directly or through the mirror) and the raw pool (values, in
 * the backend's memory). On the CPU both are one. */
typedef struct {
    unsigned char* base;
    size_t used, cap;
    unsigned char* rbase; /* NULL: raw slices come from base too */
    size_t rused, rcap;
} coll_pool_t;
void* coll_pool_take(coll_pool_t* p, size_t bytes);
void* coll_pool_raw(coll_pool_t* p, size_t bytes);

/* Wall-clock seconds, for the per-phase times of ghz_coll_info_t (no MPI needed: a
 * communicator made without MPI uses it too). */
static inline double coll_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC); /* (C11's clock: clock_gettime is POSIX) */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* a mod n in [0, n): ring neighbours and pairwise peers. */
static inline int coll_mod(long a, int n)
{
    long m = a % n;
    return (int)(m < 0 ? m + n : m);
}

/* The longest segment of a round: what its buffers are sized for. */
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
/* Received partials are decoded, combined with raw values and encoded again: DOC, and
 * exact on a staged backend (its codec a copy). */
static inline int coll_doc_like(const coll_round_t* r)
{
    return r->mode == COLL_DOC || (r->mode == COLL_EXACT && r->staged);
}

/* Bytes of the wire form of a piece of n elements in mode m. */
size_t coll_wire_cap(coll_mode_t m, ghz_dtype_t dtype, size_t n);
/* Sum of coll_wire_cap over the pieces of a segment of n elements. */
size_t coll_seg_wire_cap(coll_mode_t m, ghz_dtype_t dtype, size_t n, size_t piece);
/* Pieces of a segment of n elements (at least 1 so that even an empty segment sends
 * one message: the pattern, and with it poison, always flows). */
size_t coll_pieces(size_t n, size_t piece);

/* The algorithms' entries: each returns the pool bytes it needs for a window of
 * `window` elements per segment (need_*), or runs one round. */
size_t coll_ring_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
/* Reduce-scatter: this rank's segment (index = rank) of the reduction goes to
 * out_own; with final_wire, its frames stay in r->fin for coll_ring_allgather. */
void coll_ring_reduce_scatter(coll_round_t* r, coll_pool_t* pool, unsigned char* out_own);
/* Allgather of every rank's result segment into out + seg_off[s] (exact: from out;
 * lossy: from r->fin, decoded on arrival). */
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
/* The same broadcast down a pipelined chain (root, root + 1, ...): every link carries
 * the vector once, for N - 1 hops of latency. */
void coll_chain_bcast(coll_round_t* r, coll_pool_t* pool);

/* Direct reads of the peers' pools (cuda/algo_direct.c; CUDA builds, transports with
 * peer_pool and fence): the pairwise dataflow without messages. all: every segment's
 * result into out + seg_off[s] (allreduce), else this rank's into out_own. */
size_t coll_direct_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_direct_reduce(coll_round_t* r, coll_pool_t* pool, int all, unsigned char* out_own);

/* Piece geometry: elements of piece j of a segment of n, and its offsets in a raw
 * buffer and in a wire buffer (every full piece has the same wire capacity). */
size_t coll_piece_n(const coll_round_t* r, size_t n, size_t j);
size_t coll_piece_cap(const coll_round_t* r, size_t n, size_t j);
size_t coll_piece_wire_off(const coll_round_t* r, size_t j);
/* Piece j of the n values at src (a block) sent to peer: straight from src where exact
 * values move from the caller's buffers (coll_zero_copy), else encoded into its slot of
 * the wire buffer wb first. */
void coll_send_piece(coll_round_t* r, const unsigned char* src, size_t n, size_t j, unsigned char* wb, int peer,
                     coll_req_t* req);
/* Piece j of a block of n values received from peer: posted straight into dst (zero
 * copy) or into its slot of wb; landed: its size checked (zero copy) or decoded into
 * dst. */
void coll_recv_piece(coll_round_t* r, unsigned char* dst, size_t n, size_t j, unsigned char* wb, int peer,
                     coll_req_t* req);
void coll_land_piece(coll_round_t* r, unsigned char* dst, size_t n, size_t j, const unsigned char* wb,
                     coll_req_t* req);
/* dst = src (bytes), keeping the round's status. */
void coll_copy(coll_round_t* r, void* dst, const void* src, size_t bytes);
/* out = the decode of the n values of this rank's final frames (r->fin). */
void coll_decode_fin(coll_round_t* r, unsigned char* out, size_t n);
/* A received exact piece must hold exactly its values. */
void coll_expect(coll_round_t* r, size_t got, size_t want);

/* Transport and backend calls that keep a round's status (set on the first failure,
 * poisoning every later message) and its byte counts. */
void coll_send(coll_round_t* r, const void* buf, size_t bytes, int peer, coll_req_t* req);
void coll_recv(coll_round_t* r, void* buf, size_t capacity, int peer, coll_req_t* req);
/* Waits for a receive; returns its size, and 0 with r->st set when it was poisoned or
 * failed. */
size_t coll_wait_recv(coll_round_t* r, coll_req_t* req);
void coll_wait_send(coll_round_t* r, coll_req_t* req);
void coll_wait_all(coll_round_t* r, coll_req_t* req, size_t n);
void coll_fail(coll_round_t* r, ghz_status_t st);

/* Mode-generic piece operations (algo_common.c); each is a no-op once r->st is set. */
/* wire = the wire form of raw[0..n): exact: a copy; lossy: compress (with
 * raw_fallback, the raw values where the frame would be no smaller). */
size_t coll_encode(coll_round_t* r, const void* raw, size_t n, void* wire, size_t cap);
/* raw[0..n) = decode of wire[0..size) (with raw_fallback, a copy where size is the
 * raw size). */
void coll_decode(coll_round_t* r, const void* wire, size_t size, void* raw, size_t n);
/* out = op(a, b) on raw values. */
void coll_reduce(coll_round_t* r, void* out, const void* a, const void* b, size_t n);
/* out = op(a, b) on frames (homomorphic); returns the output size. */
size_t coll_homo(coll_round_t* r, const void* a, size_t a_size, const void* b, size_t b_size,
                 void* out, size_t cap);

/* Splits n elements from base into the communicator's segments (seg_off, seg_cnt),
 * balanced (algo_common.c). */
void coll_split(ghz_comm_t* c, size_t base, size_t n);

#endif
