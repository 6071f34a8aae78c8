/* ghz/coll/detail/move.h: the data-movement algorithms (private). A round covers
 * elements [off, off + w) of every block; each value is compressed once, never again. */
#ifndef GHZ_COLL_DETAIL_MOVE_H
#define GHZ_COLL_DETAIL_MOVE_H

#include "ghz/coll/detail/algo.h"

/* One side's blocks: block p is cnt[p] elements at displ[p] (v forms), or `count` at
 * p * count (uniform); single: one block of `count` at 0 whatever p. */
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
