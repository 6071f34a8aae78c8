/* ghz/codec/ratio_compress.c: the CPU reference writer of ratio frames (RATIO.md).
 * One pass over the array per interpolation pass computes the codes and contexts in
 * pass order, then the tables, the rANS chunks, the outliers and the specials are
 * written. */
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/detail/encode.h"
#include "ghz/codec/detail/frame.h"
#include "ghz/codec/detail/ratio.h"
#include "ghz/codec/detail/ratio_frame.h"
#include "ghz/codec/detail/ratio_rows.h"
#include "ghz/detail/error.h"

#define OUTLIER_CODE INT32_MIN /* a code no accepted k takes */
#define RUN 1024u              /* elements predicted at a time */

typedef struct {
    const ghz_enc_params* e;
    const uint8_t* src;
    void* xr;        /* reconstructions, dtype */
    int32_t* code;   /* codes in pass order (element 0 has none) */
    uint8_t* ctx;    /* their contexts */
    uint8_t* sym;    /* their symbols (RATIO.md, Symbols) */
    uint64_t next;   /* codes written */
    uint64_t* pass_points; /* symbols of each pass, 3L of them */
    uint8_t* out;    /* outlier bits, grown as needed */
    uint64_t n_out, cap_out;
    uint64_t n_special;
    int oom;
    uint64_t run_idx[RUN]; /* one run of a pass: index, prediction, context */
    double run_pred[RUN];
    uint8_t run_ctx[RUN];
} enc_t;

static int is_special(const ghz_enc_params* e, double x, uint64_t bits)
{
    return !isfinite(x) || (e->has_fill && bits == e->fill_bits);
}

static int special_at(const ghz_enc_params* e, const uint8_t* src, uint64_t i, uint64_t* bits)
{
    const double x = ghz_load_value(e, src, i, bits);
    return is_special(e, x, *bits);
}

static void put_xr(const enc_t* s, uint64_t i, double v)
{
    if (s->e->dtype == GHZ_F32)
        ((float*)s->xr)[i] = (float)v;
    else
        ((double*)s->xr)[i] = v;
}

/* Codes element i against prediction p in context ctx and stores its
 * reconstruction. */
static void code_point(enc_t* s, uint64_t i, double p, unsigned ctx)
{
    uint64_t bits;
    const double x = ghz_load_value(s->e, s->src, i, &bits);
    int32_t k;
    double y;
    s->ctx[s->next] = (uint8_t)ctx;
    if (is_special(s->e, x, bits)) {
        put_xr(s, i, s->e->dtype == GHZ_F32 ? (double)(float)p : p);
        s->sym[s->next] = 1; /* k = 0 */
        s->code[s->next++] = 0;
        ++s->n_special;
        return;
    }
    if (ghz_ratio_quantize(&s->e->z, x, bits, p, &k, &y)) {
        uint32_t ex;
        unsigned nb;
        put_xr(s, i, y);
        s->sym[s->next] = (uint8_t)ghz_ratio_symbol(k, &ex, &nb);
        s->code[s->next++] = k;
        return;
    }
    put_xr(s, i, x);
    s->sym[s->next] = 0;
    s->code[s->next++] = OUTLIER_CODE;
    if (s->n_out == s->cap_out) {
        uint64_t cap = s->cap_out ? 2 * s->cap_out : 1024;
        uint8_t* grown = (uint8_t*)realloc(s->out, (size_t)(cap * s->e->elem));
        if (!grown) {
            s->oom = 1;
            return;
        }
        s->out = grown;
        s->cap_out = cap;
    }
    memcpy(s->out + s->n_out * s->e->elem, s->src + i * s->e->elem, s->e->elem);
    ++s->n_out;
}

/* The writer's cost of a pass with linear (cost[0]) and cubic (cost[1]) prediction,
 * over its *count sampled finite non-fill points: every GHZ_RATIO_SAMPLE-th point in
 * the pass's order (RATIO.md, Writer's choices). */
static void pass_cost(const enc_t* s, const uint64_t d[3], const ghz_ratio_pass_t* ps,
                      uint64_t cost[2], uint64_t* count)
{
    const uint64_t stride[3] = {1, d[0], d[0] * d[1]};
    const int is_f32 = s->e->dtype == GHZ_F32;
    const unsigned a = ps->axis;
    uint64_t j, i0 = 0, i1 = 0, i2 = 0;
    cost[0] = cost[1] = *count = 0;
    for (j = 0; j < ps->points; j += GHZ_RATIO_SAMPLE) {
        const uint64_t c[3] = {ps->first[0] + ps->step[0] * i0, ps->first[1] + ps->step[1] * i1,
                               ps->first[2] + ps->step[2] * i2};
        const uint64_t idx = c[0] + d[0] * (c[1] + d[1] * c[2]);
        uint64_t bits;
        const double x = ghz_load_value(s->e, s->src, idx, &bits);
        unsigned m;
        if (!is_special(s->e, x, bits)) {
            ++*count;
            for (m = 0; m < 2; ++m)
                cost[m] += ghz_ratio_cost(&s->e->z, x,
                                          ghz_ratio_predict(s->xr, is_f32, idx, c[a], ps->s,
                                                            stride[a], d[a], m));
        }
        /* the next sample, GHZ_RATIO_SAMPLE points on in the pass's order */
        i0 += GHZ_RATIO_SAMPLE;
        while (i0 >= ps->count[0]) {
            i0 -= ps->count[0];
            if (++i1 == ps->count[1]) {
                i1 = 0;
                ++i2;
            }
        }
    }
}

/* The order of a level's passes (RATIO.md, Writer's choices): the axis whose own
 * refinement predicts worst first, so that the best-predicted axis refines the most
 * points. Axes with nothing to refine go first. */
static void level_order(const enc_t* s, const uint64_t d[3], unsigned l, unsigned order[3])
{
    double mean[3];
    int empty[3];
    unsigned a, i, j;
    for (a = 0; a < 3; ++a) {
        const unsigned first[3] = {a, a == 0 ? 1u : 0u, a == 2 ? 1u : 2u};
        const ghz_ratio_pass_t ps = ghz_ratio_pass(d, l, first, 0);
        uint64_t cost[2], count;
        order[a] = a;
        empty[a] = ps.points == 0;
        mean[a] = 0.0;
        if (empty[a]) continue;
        pass_cost(s, d, &ps, cost, &count);
        mean[a] = count ? (double)cost[1] / (double)count : 0.0;
    }
    for (i = 1; i < 3; ++i) /* insertion sort: stable, so ties keep the lower axis first */
        for (j = i; j > 0; --j) {
            const unsigned x = order[j - 1], y = order[j];
            const int before = empty[y] > empty[x] || (empty[y] == empty[x] && mean[y] > mean[x]);
            if (!before) break;
            order[j - 1] = y;
            order[j] = x;
        }
}

/* Runs pass q of level l: chooses linear or cubic, then codes its points. Returns the
 * choice byte. */
static uint8_t run_pass(enc_t* s, const uint64_t d[3], unsigned l, const unsigned order[3], unsigned q)
{
    const ghz_ratio_pass_t ps = ghz_ratio_pass(d, l, order, q);
    const int is_f32 = s->e->dtype == GHZ_F32;
    const unsigned a = ps.axis;
    uint64_t cost[2], count;
    unsigned cubic;
    s->pass_points[3u * (ghz_ratio_levels(d[0], d[1], d[2]) - l) + q] = ps.points;
    if (ps.points == 0) return GHZ_RATIO_CHOICE(a, 0u);
    pass_cost(s, d, &ps, cost, &count);
    cubic = cost[1] <= cost[0];
    {
        /* in runs: the pass's elements depend on earlier passes only */
        uint64_t j, i0 = 0, i1 = 0, i2 = 0, k;
        for (j = 0; j < ps.points; j += RUN) {
            const uint64_t K = ps.points - j < RUN ? ps.points - j : RUN;
            ghz_ratio_rows(s->xr, is_f32, &ps, d, cubic, s->e->z.r, &i0, &i1, &i2, K, s->run_idx,
                           s->run_pred, s->run_ctx);
            for (k = 0; k < K; ++k) code_point(s, s->run_idx[k], s->run_pred[k], s->run_ctx[k]);
        }
    }
    return GHZ_RATIO_CHOICE(a, cubic);
}

/* Output with a capacity: bytes past it are counted, not written. */
typedef struct {
    uint8_t* p;
    uint64_t cap, len;
} sink_t;

static void sink_put(sink_t* o, const void* b, uint64_t n)
{
    if (n && o->len <= o->cap && n <= o->cap - o->len) memcpy(o->p + o->len, b, (size_t)n);
    o->len += n;
}

static void sink_le(sink_t* o, uint64_t v, unsigned bytes)
{
    uint8_t b[8];
    ghz_store_le(b, v, bytes);
    sink_put(o, b, bytes);
}

static void sink_varint(sink_t* o, uint64_t v)
{
    uint8_t b[10];
    sink_put(o, b, ghz_varint_put(b, v));
}

/* The tables of the contexts (RATIO.md, Tables): f[c][s], cum[c][s]; nsym[c] = 0 for
 * a context without symbols. */
typedef struct {
    uint16_t f[GHZ_RATIO_NCTX][GHZ_RATIO_NSYM_MAX];
    uint32_t cum[GHZ_RATIO_NCTX][GHZ_RATIO_NSYM_MAX];
    double inv[GHZ_RATIO_NCTX][GHZ_RATIO_NSYM_MAX]; /* 1 / f, for ghz_rans_put */
    unsigned nsym[GHZ_RATIO_NCTX];
} tables_t;

static void make_tables(const uint8_t* sym, const uint8_t* ctx, uint64_t n, tables_t* t)
{
    uint64_t cnt[GHZ_RATIO_NCTX][GHZ_RATIO_NSYM_MAX], tot[GHZ_RATIO_NCTX] = {0}, i;
    unsigned c, s;
    memset(t, 0, sizeof *t);
    memset(cnt, 0, sizeof cnt);
    for (i = 0; i < n; ++i) {
        ++cnt[ctx[i]][sym[i]];
        ++tot[ctx[i]];
    }
    for (c = 0; c < GHZ_RATIO_NCTX; ++c) {
        if (!tot[c]) continue;
        t->nsym[c] = ghz_ratio_normalize(cnt[c], tot[c], t->f[c]);
        for (s = 0, t->cum[c][0] = 0; s + 1 < GHZ_RATIO_NSYM_MAX; ++s)
            t->cum[c][s + 1] = t->cum[c][s] + t->f[c][s];
        for (s = 0; s < GHZ_RATIO_NSYM_MAX; ++s) t->inv[c][s] = t->f[c][s] ? 1.0 / t->f[c][s] : 0.0;
    }
}

/* Writes the rANS chunks of one pass's K0 symbols (RATIO.md, Chunks), 2^lg symbols a
 * chunk: directory entries to dir, data to o. */
static void write_pass_chunks(const int32_t* code, const uint8_t* symbols, const uint8_t* ctx,
                              uint64_t K0, unsigned lg, const tables_t* t, uint16_t* words, uint32_t* extra,
                              sink_t* o, sink_t* dir)
{
    const uint64_t cs = (uint64_t)1 << lg;
    uint64_t c0;
    for (c0 = 0; c0 < K0; c0 += cs) {
        const uint64_t K = K0 - c0 < cs ? K0 - c0 : cs;
        const unsigned W = GHZ_RATIO_CHUNK_LANES(K);
        const uint64_t steps = (K + W - 1) / W;
        uint32_t x[GHZ_RATIO_LANES];
        uint64_t pos = cs, nbits = 0, j, t_;
        unsigned lane;
        for (lane = 0; lane < W; ++lane) x[lane] = GHZ_RATIO_STATE_LOW;
        for (t_ = steps; t_-- > 0;) {
            uint16_t w[GHZ_RATIO_LANES];
            unsigned m = 0;
            for (lane = 0; lane < W; ++lane) {
                const uint64_t g = t_ * W + lane;
                unsigned sym, cx;
                if (g >= K) break;
                sym = symbols[c0 + g];
                cx = ctx[c0 + g];
                if (ghz_rans_put(&x[lane], t->f[cx][sym], t->inv[cx][sym], t->cum[cx][sym], &w[m])) ++m;
            }
            pos -= m;
            memcpy(words + pos, w, m * sizeof(uint16_t));
        }
        memset(extra, 0, (size_t)(cs * 27 / 32 + 2) * sizeof(uint32_t));
        for (j = 0; j < K; ++j) {
            uint32_t ex;
            unsigned nb;
            if (symbols[c0 + j] < 33u) continue; /* no extra bits */
            (void)ghz_ratio_symbol(code[c0 + j], &ex, &nb);
            if (nb) {
                extra[nbits / 32] |= ex << (nbits % 32);
                if (nbits % 32 + nb > 32) extra[nbits / 32 + 1] |= ex >> (32 - nbits % 32);
                nbits += nb;
            }
        }
        sink_le(dir, cs - pos, 4);
        sink_le(dir, nbits, 4);
        for (lane = 0; lane < W; ++lane) sink_le(dir, x[lane], 4);
        for (j = pos; j < cs; ++j) sink_le(o, words[j], 2);
        if ((cs - pos) & 1u) sink_le(o, 0, 2);
        for (j = 0; j < (nbits + 31) / 32; ++j) sink_le(o, extra[j], 4);
    }
}

/* The mask residual's runs with predecessor distance lag (0: none), written to o
 * (NULL: only counted); returns their varint bytes and sets *n_runs. */
static uint64_t mask_runs(const uint8_t* mask, uint64_t n, uint64_t lag, sink_t* o, uint64_t* n_runs)
{
    uint64_t i, run = 0, bytes = 0;
    unsigned cur = 0;
    *n_runs = 0;
    for (i = 0; i < n; ++i) {
        unsigned r = (mask[i / 8] >> (i % 8)) & 1u;
        if (lag && i >= lag) r ^= (mask[(i - lag) / 8] >> ((i - lag) % 8)) & 1u;
        if (r != cur) {
            bytes += ghz_varint_len(run);
            if (o) sink_varint(o, run);
            ++*n_runs;
            run = 0;
            cur = r;
        }
        ++run;
    }
    bytes += ghz_varint_len(run);
    if (o) sink_varint(o, run);
    ++*n_runs;
    return bytes;
}

/* The specials section (RATIO.md, Specials section): the mask's runs with the
 * predecessor (none, the previous row, the previous slice) that takes fewest bytes,
 * then the runs of special bit patterns. Returns -1 when out of memory. */
static int write_specials(const ghz_enc_params* e, const uint8_t* src, uint64_t n,
                          const uint64_t d[3], uint64_t n_special, sink_t* o)
{
    uint64_t i, n_runs = 0, n_pat = 0, count = 0, last = 0, at_pats;
    uint8_t b8[8];
    sink_le(o, n_special, 8);
    if (n_special) {
        const uint64_t lags[3] = {0, d[0], d[0] * d[1]};
        uint64_t best = UINT64_MAX, runs;
        unsigned kind = 0, k;
        uint8_t* mask = (uint8_t*)calloc((size_t)(n / 8 + 1), 1);
        if (!mask) return -1;
        for (i = 0; i < n; ++i) {
            uint64_t bits;
            if (special_at(e, src, i, &bits)) mask[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        for (k = 0; k < 3; ++k) {
            uint64_t cost;
            if (k > 0 && (lags[k] >= n || lags[k] == lags[k - 1])) continue;
            cost = mask_runs(mask, n, lags[k], NULL, &runs);
            if (cost < best) {
                best = cost;
                kind = k;
            }
        }
        (void)mask_runs(mask, n, lags[kind], NULL, &n_runs);
        sink_le(o, n_runs, 8);
        sink_le(o, kind, 1);
        (void)mask_runs(mask, n, lags[kind], o, &runs);
        free(mask);
    } else {
        sink_le(o, 0, 8);
    }
    at_pats = o->len;
    sink_le(o, 0, 8); /* n_patterns, patched below */
    for (i = 0; n_special && i < n; ++i) {
        uint64_t bits;
        if (!special_at(e, src, i, &bits)) continue;
        if (count && bits == last) {
            ++count;
            continue;
        }
        if (count) {
            sink_le(o, last, e->elem);
            sink_varint(o, count);
            ++n_pat;
        }
        last = bits;
        count = 1;
    }
    if (count) {
        sink_le(o, last, e->elem);
        sink_varint(o, count);
        ++n_pat;
    }
    ghz_store_le(b8, n_pat, 8);
    if (at_pats + 8 <= o->cap) memcpy(o->p + at_pats, b8, 8);
    return 0;
}

ghz_status_t ghz_ratio_encode(const ghz_enc_params* e, const ghz_frame_info_t* info_in,
                              const size_t dims[3], unsigned spread, const uint8_t* src, uint8_t* dst,
                              uint64_t capacity, uint64_t* frame_size)
{
    const uint64_t n = info_in->n, cs = (uint64_t)1 << GHZ_RATIO_CHUNK_LOG2;
    const uint64_t bound = ghz_compress_bound((size_t)n, e->dtype) - GHZ_HEADER_SIZE;
    ghz_frame_info_t info = *info_in;
    uint64_t d[3], i, dir_bytes = 0, x0 = 0, bits0, table_at, chunks_at, specials_at;
    unsigned ndims, L, l, a, c, s;
    uint8_t* choices;
    uint16_t* words;
    uint32_t* extra;
    tables_t* t;
    enc_t st;
    sink_t o, dir;
    ghz_status_t rc = GHZ_SUCCESS;

    if (ghz_ratio_shape(dims, n, d, &ndims) != 0)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "dims %zu x %zu x %zu do not multiply to n = %llu",
                        dims[0], dims[1], dims[2], (unsigned long long)n);
    L = ghz_ratio_levels(d[0], d[1], d[2]);
    memset(&st, 0, sizeof st);
    st.e = e;
    st.src = src;
    st.xr = malloc((size_t)(n * e->elem));
    st.code = (int32_t*)calloc((size_t)n, sizeof(int32_t));
    st.ctx = (uint8_t*)calloc((size_t)n, 1);
    st.sym = (uint8_t*)calloc((size_t)n, 1);
    st.pass_points = (uint64_t*)calloc(3u * L + 1u, sizeof(uint64_t));
    choices = (uint8_t*)calloc(3u * L + 1u, 1);
    words = (uint16_t*)malloc((size_t)cs * sizeof(uint16_t));
    extra = (uint32_t*)malloc((size_t)(cs * 27 / 32 + 2) * sizeof(uint32_t));
    t = (tables_t*)malloc(sizeof *t);
    if (!st.xr || !st.code || !st.ctx || !st.sym || !st.pass_points || !choices || !words || !extra || !t) {
        rc = ghz_fail(GHZ_ERR_NOMEM, "ratio coding of %llu values: out of memory",
                      (unsigned long long)n);
        goto done;
    }

    /* element 0: its value, in the section (RATIO.md, Prediction) */
    {
        const double x = ghz_load_value(e, src, 0, &bits0);
        if (!is_special(e, x, bits0)) x0 = bits0;
        else ++st.n_special;
        put_xr(&st, 0, is_special(e, x, bits0) ? 0.0 : x);
    }
    for (l = L; l >= 1; --l) {
        unsigned order[3];
        level_order(&st, d, l, order);
        for (a = 0; a < 3; ++a) choices[3u * (L - l) + a] = run_pass(&st, d, l, order, a);
    }
    if (st.oom) {
        rc = ghz_fail(GHZ_ERR_NOMEM, "ratio coding: out of memory for outliers");
        goto done;
    }
    make_tables(st.sym, st.ctx, st.next, t);
    for (i = 0; i < 3u * L; ++i) {
        const unsigned lg = ghz_ratio_pass_chunk_log2(st.pass_points[i], GHZ_RATIO_CHUNK_LOG2, spread);
        const uint64_t pcs = (uint64_t)1 << lg, left = st.pass_points[i] & (pcs - 1);
        dir_bytes += (st.pass_points[i] >> lg) * GHZ_RATIO_DIR_ENTRY(pcs);
        if (left) dir_bytes += GHZ_RATIO_DIR_ENTRY(left);
    }

    /* payload, after the 64 header bytes: section, choices, tables, directory, chunks,
     * outliers, specials */
    o.p = dst + GHZ_HEADER_SIZE;
    o.cap = capacity - GHZ_HEADER_SIZE;
    o.len = GHZ_RATIO_SECTION;
    sink_put(&o, choices, 3u * L);
    table_at = o.len;
    for (c = 0; c < GHZ_RATIO_NCTX; ++c) {
        sink_varint(&o, t->nsym[c]);
        for (s = 0; s < t->nsym[c]; ++s) sink_varint(&o, t->f[c][s]);
    }
    dir.p = o.p + o.len;
    dir.cap = o.cap > o.len ? o.cap - o.len : 0;
    dir.len = 0;
    o.len += dir_bytes;
    chunks_at = o.len;
    for (i = 0, st.next = 0; i < 3u * L; ++i) {
        write_pass_chunks(st.code + st.next, st.sym + st.next, st.ctx + st.next, st.pass_points[i],
                          ghz_ratio_pass_chunk_log2(st.pass_points[i], GHZ_RATIO_CHUNK_LOG2, spread), t, words,
                          extra, &o, &dir);
        st.next += st.pass_points[i];
    }
    {
        const uint64_t chunk_bytes = o.len - chunks_at;
        sink_put(&o, st.out, st.n_out * e->elem);
        specials_at = o.len;
        if (write_specials(e, src, n, d, st.n_special, &o) != 0) {
            rc = ghz_fail(GHZ_ERR_NOMEM, "ratio coding: out of memory for the specials' mask");
            goto done;
        }
        if (o.len > bound) {
            rc = GHZ_ERR_UNSUPPORTED; /* the caller writes a block frame */
            goto done;
        }
        if (o.len > o.cap) {
            rc = ghz_fail(GHZ_ERR_DST_TOO_SMALL, "capacity %llu < %llu bytes of this ratio frame",
                          (unsigned long long)capacity, (unsigned long long)(o.len + GHZ_HEADER_SIZE));
            goto done;
        }
        {
            uint8_t* sec = o.p;
            memset(sec, 0, GHZ_RATIO_SECTION);
            for (a = 0; a < 3; ++a) ghz_store_le(sec + 8 * a, d[a], 8);
            sec[24] = (uint8_t)L;
            sec[25] = (uint8_t)GHZ_RATIO_PROB_BITS;
            sec[26] = (uint8_t)GHZ_RATIO_CHUNK_LOG2;
            sec[27] = (uint8_t)GHZ_RATIO_NCTX;
            ghz_store_le(sec + 28, (uint64_t)(dir.p - o.p) - table_at, 4); /* table_bytes */
            ghz_store_le(sec + 32, st.n_out, 8);
            ghz_store_le(sec + 40, chunk_bytes, 8);
            ghz_store_le(sec + 48, o.len - specials_at, 8);
            ghz_store_le(sec + 56, x0, 8);
        }
    }
    info.payload_size = o.len;
    info.prefer = GHZ_PREFER_RATIO;
    ghz_ratio_header_pack(dst, &info, ndims, spread);
    *frame_size = GHZ_HEADER_SIZE + o.len;
done:
    free(st.xr);
    free(st.code);
    free(st.ctx);
    free(st.sym);
    free(st.pass_points);
    free(st.out);
    free(choices);
    free(words);
    free(extra);
    free(t);
    return rc;
}
