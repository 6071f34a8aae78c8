/* ghz/coll/detail/move.h: the data-movement algorithms (private).
 *
 * A data-movement call moves blocks of elements between ranks: gather and scatter
 * between the root and every rank, alltoall between every pair (allgather and broadcast
 * reuse the ring allgather and the binomial broadcast of algo.h). The entry points
 * (runner.c, reduce_rounds.c) split a call into rounds as the reductions do: round t covers elements
 * [off, off + w) of every block (fewer where a block is shorter), and its buffers fit
 * the pool. Lossy rounds compress every piece once (raw_fallback: a piece that does not
 * compress travels raw) and never recompress: a value's only error is its one
 * compression (COLL.md, Data movement). */
#ifndef GHZ_COLL_DETAIL_MOVE_H
#define GHZ_COLL_DETAIL_MOVE_H

#include "ghz/coll/detail/algo.h"

/* Where the blocks of one side of a call lie: block p has cnt[p] elements at element
 * displ[p] (v forms), or `count` elements at p * count (uniform), or, with single, the
 * one block of `count` elements at 0 whatever p (a non-root's side of gather or
 * scatter). */
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

/* One round of a data-movement call: the blocks of both sides, and the window. */
typedef struct {
    coll_layout_t send, recv;
    size_t off, w;
} coll_move_t;

/* Elements of block p in this round, and where they start (elements from the buffer). */
static inline size_t coll_move_n(const coll_move_t* m, const coll_layout_t* l, int p)
{
    const size_t n = coll_lay_cnt(l, p);
    return n <= m->off ? 0 : n - m->off < m->w ? n - m->off : m->w;
}

static inline size_t coll_move_at(const coll_move_t* m, const coll_layout_t* l, int p)
{
    return coll_lay_displ(l, p) + m->off;
}

/* Linear gather (every rank's send block to the root's recv layout) and scatter (the
 * root's send layout to every rank's recv block); the root's own block is the caller's
 * business. Pool: N - 1 segments of wire (the root's), on every rank alike. */
size_t coll_linear_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_linear_gather(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);
void coll_linear_scatter(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);

/* Binomial gather and scatter of packs of blocks, each block's pieces with their sizes
 * in a header (algo_tree.c): lg N messages at the root. Pool: N entries of a window, on
 * every rank alike. */
size_t coll_tree_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_tree_gather(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);
void coll_tree_scatter(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);

/* Pairwise alltoall: at step k every rank exchanges with (k - rank) mod N (a pairing:
 * each pair exchanges in both directions at the same step), so a block is sent before
 * its place receives, and in place needs no more buffers than out of place. The own
 * block is the caller's business. Pool: 3 segments of wire. */
size_t coll_alltoall_need(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
/* The same where exact values go through the wire buffers anyway (in place). */
size_t coll_alltoall_need_staged(const ghz_comm_t* c, coll_mode_t m, ghz_dtype_t t, size_t window, size_t piece);
void coll_pairwise_alltoall(coll_round_t* r, const coll_move_t* m, coll_pool_t* pool);

#endif
