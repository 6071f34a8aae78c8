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
#include "ghz/codec/detail/scratch.h"
#include "ghz/detail/error.h"

typedef struct enc_s {
    const ghz_enc_params* e;
    const uint8_t* src;
    void* xr;             /* reconstructions, dtype */
    uint16_t* sym;        /* the symbols in pass order (element 0 has none), each as
                             context * GHZ_RATIO_NSYM_MAX + symbol (RATIO.md, Symbols) */
    uint64_t next;        /* symbols written */
    uint64_t* pass_points; /* symbols of each pass, 3L of them */
    uint64_t count[GHZ_RATIO_NCTX][GHZ_RATIO_NSYM_MAX]; /* symbols per context */
    uint32_t* extra;      /* the extra bits of each symbol that has some, in order */
    uint64_t n_extra, cap_extra;
    uint8_t* out;         /* outlier bits, grown as needed */
    uint64_t n_out, cap_out;
    uint64_t n_special;
    int oom;
    int nt;               /* threads (OpenMP builds) */
    struct enc_s* sh;     /* nt shares of a pass's coding, each with its own extra bits,
                             outliers and counts, merged in pass order (code_pass) */
    uint64_t (*part)[3];  /* nt partial cost sums (pass_cost) */
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

/* Element i is an outlier: its bits go to the outlier array. */
static void put_outlier(enc_t* s, uint64_t i)
{
    uint8_t* out = (uint8_t*)ghz_append(s->out, &s->n_out, &s->cap_out, s->src + i * s->e->elem, 1, s->e->elem);
    if (out) s->out = out;
    else s->oom = 1;
}

static void put_extra(enc_t* s, uint32_t ex)
{
    uint32_t* extra = (uint32_t*)ghz_append(s->extra, &s->n_extra, &s->cap_extra, &ex, 1, sizeof ex);
    if (extra) s->extra = extra;
    else s->oom = 1;
}

/* Codes a block (ratio_rows.h) against its predictions (RATIO.md, Quantization,
 * Symbols): stores the reconstructions in X and the symbols, and counts them. */
#define ENCODE_FN(NAME, T)                                                                  \
    static void NAME(enc_t* s, T* X, uint64_t i, uint64_t step, const double* p, const uint8_t* cx, \
                     uint64_t nb)                                                           \
    {                                                                                       \
        const ghz_enc_params* e = s->e;                                                     \
        const ghz_quantizer_t z = e->z;                                                     \
        uint16_t* out = s->sym + s->next;                                                   \
        uint64_t j;                                                                         \
        for (j = 0; j < nb; ++j, i += step) {                                               \
            uint64_t bits;                                                                  \
            const double x = ghz_load_value(e, s->src, i, &bits);                           \
            double y;                                                                       \
            int32_t k;                                                                      \
            unsigned sym;                                                                   \
            if (is_special(e, x, bits)) {                                                   \
                X[i] = (T)p[j]; /* k = 0 */                                                 \
                sym = 1;                                                                    \
                ++s->n_special;                                                             \
            } else if (ghz_ratio_quantize(&z, x, bits, p[j], &k, &y)) {                     \
                uint32_t ex;                                                                \
                unsigned nbits;                                                             \
                X[i] = (T)y;                                                                \
                sym = ghz_ratio_symbol(k, &ex, &nbits);                                     \
                if (nbits) put_extra(s, ex);                                                \
            } else {                                                                        \
                X[i] = (T)x;                                                                \
                sym = 0;                                                                    \
                put_outlier(s, i);                                                          \
            }                                                                               \
            out[j] = (uint16_t)(cx[j] * GHZ_RATIO_NSYM_MAX + sym);                          \
            ++s->count[cx[j]][sym];                                                         \
        }                                                                                   \
        s->next += nb;                                                                      \
    }
ENCODE_FN(encode_f32, float)
ENCODE_FN(encode_f64, double)

static int encode_block(void* arg, uint64_t i, uint64_t step, const double* p, const uint8_t* cx, uint64_t nb)
{
    enc_t* s = (enc_t*)arg;
    if (s->e->dtype == GHZ_F32)
        encode_f32(s, (float*)s->xr, i, step, p, cx, nb);
    else
        encode_f64(s, (double*)s->xr, i, step, p, cx, nb);
    return 0;
}

/* The writer's cost of samples v0 <= v < v1 of a pass with linear (part[0]) and cubic
 * (part[1]) prediction, and part[2] of them finite and not the fill value
 * (ghz_ratio_sample_point; RATIO.md, Writer's choices). */
static void cost_range(const enc_t* s, const uint64_t d[3], const ghz_ratio_pass_t* ps, uint64_t v0, uint64_t v1,
                       uint64_t part[3])
{
    const uint64_t stride[3] = {1, d[0], d[0] * d[1]};
    const int is_f32 = s->e->dtype == GHZ_F32;
    const unsigned a = ps->axis;
    const uint64_t u0 = ghz_ratio_sample_point(v0), r0 = u0 / ps->count[0];
    uint64_t v, i0 = u0 - r0 * ps->count[0], i1 = r0 % ps->count[1], i2 = r0 / ps->count[1];
    part[0] = part[1] = part[2] = 0;
    for (v = v0; v < v1; ++v) {
        const uint64_t c[3] = {ps->first[0] + ps->step[0] * i0, ps->first[1] + ps->step[1] * i1,
                               ps->first[2] + ps->step[2] * i2};
        const uint64_t idx = c[0] + d[0] * (c[1] + d[1] * c[2]);
        uint64_t bits;
        const double x = ghz_load_value(s->e, s->src, idx, &bits);
        unsigned m;
        if (!is_special(s->e, x, bits)) {
            ++part[2];
            for (m = 0; m < 2; ++m)
                part[m] += ghz_ratio_cost(&s->e->z, x,
                                          ghz_ratio_predict(s->xr, is_f32, idx, c[a], ps->s, stride[a], d[a], m));
        }
        /* the next sample: the next point of the run, or the next run's first */
        i0 += ghz_ratio_sample_point(v + 1) - ghz_ratio_sample_point(v);
        if (i0 >= ps->count[0]) {
            const uint64_t q = i0 / ps->count[0];
            i0 -= q * ps->count[0];
            i1 += q;
            if (i1 >= ps->count[1]) {
                const uint64_t q1 = i1 / ps->count[1];
                i1 -= q1 * ps->count[1];
                i2 += q1;
            }
        }
    }
}

/* Threads for a job of n items of which each thread should take at least `least`. */
static int threads_for(int nt, uint64_t n, uint64_t least)
{
    const uint64_t most = n / least + 1;
    return (uint64_t)nt < most ? nt : (int)most;
}

/* The costs of a whole pass: cost[0] linear, cost[1] cubic, over *count samples
 * (integer sums, the same on any number of threads). */
static void pass_cost(const enc_t* s, const uint64_t d[3], const ghz_ratio_pass_t* ps,
                      uint64_t cost[2], uint64_t* count)
{
    const uint64_t samples = ghz_ratio_samples(ps->points);
    const int T = threads_for(s->nt, samples, 1u << 12);
    uint64_t part[3];
    int64_t t;
    if (T <= 1) {
        cost_range(s, d, ps, 0, samples, part);
    } else {
#pragma omp parallel for num_threads(T) schedule(static, 1)
        for (t = 0; t < T; ++t)
            cost_range(s, d, ps, samples * (uint64_t)t / (uint64_t)T, samples * (uint64_t)(t + 1) / (uint64_t)T,
                       s->part[t]);
        part[0] = part[1] = part[2] = 0;
        for (t = 0; t < T; ++t) {
            part[0] += s->part[t][0];
            part[1] += s->part[t][1];
            part[2] += s->part[t][2];
        }
    }
    cost[0] = part[0];
    cost[1] = part[1];
    *count = part[2];
}

/* The order of a level's passes and each axis's choice of cubic (RATIO.md, Writer's
 * choices): the axis whose own refinement predicts worst first, so that the
 * best-predicted axis refines the most points; axes with nothing to refine go first.
 * Both come from the same sums, on the points whose neighbours are all of coarser
 * levels, so that a level's choices are all known before any of its points is coded. */
static void level_choices(const enc_t* s, const uint64_t d[3], unsigned l, unsigned order[3], unsigned cubic[3])
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
        cubic[a] = 0;
        if (empty[a]) continue;
        pass_cost(s, d, &ps, cost, &count);
        mean[a] = count ? (double)cost[1] / (double)count : 0.0;
        cubic[a] = cost[1] <= cost[0];
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

/* Codes the points of pass ps in pass order: on one thread, or cut into shares coded at
 * once (a pass's points depend only on earlier passes) whose extra bits, outliers,
 * counts and specials then follow one another in pass order: the same on any number
 * of threads. */
static void code_pass(enc_t* s, const uint64_t d[3], const ghz_ratio_pass_t* ps, unsigned cubic)
{
    const int is_f32 = s->e->dtype == GHZ_F32, T = threads_for(s->nt, ps->points, 1u << 16);
    int64_t t;
    unsigned c, y;
    if (T <= 1) {
        (void)ghz_ratio_pass_blocks(ps, d, cubic, s->xr, is_f32, s->e->z.r, encode_block, s);
        return;
    }
#pragma omp parallel for num_threads(T) schedule(static, 1)
    for (t = 0; t < T; ++t) {
        enc_t* h = &s->sh[t];
        const uint64_t k0 = ps->points * (uint64_t)t / (uint64_t)T, k1 = ps->points * (uint64_t)(t + 1) / (uint64_t)T;
        h->next = s->next + k0;
        h->n_extra = h->n_out = h->n_special = 0;
        h->oom = 0;
        memset(h->count, 0, sizeof h->count);
        (void)ghz_ratio_pass_range(ps, d, cubic, s->xr, is_f32, s->e->z.r, k0, k1, encode_block, h);
    }
    for (t = 0; t < T; ++t) {
        enc_t* h = &s->sh[t];
        for (c = 0; c < GHZ_RATIO_NCTX; ++c)
            for (y = 0; y < GHZ_RATIO_NSYM_MAX; ++y) s->count[c][y] += h->count[c][y];
        s->n_special += h->n_special;
        uint32_t* extra =
            h->n_extra ? (uint32_t*)ghz_append(s->extra, &s->n_extra, &s->cap_extra, h->extra, h->n_extra, 4) : s->extra;
        uint8_t* out =
            h->n_out ? (uint8_t*)ghz_append(s->out, &s->n_out, &s->cap_out, h->out, h->n_out, s->e->elem) : s->out;
        if (h->oom || (h->n_extra && !extra) || (h->n_out && !out)) s->oom = 1;
        if (extra) s->extra = extra;
        if (out) s->out = out;
    }
    s->next += ps->points;
}

/* Runs pass q of level l, cubic or not as its axis's sums chose, and returns its
 * choice byte. */
static uint8_t run_pass(enc_t* s, const uint64_t d[3], unsigned l, const unsigned order[3], const unsigned cubic[3],
                        unsigned q)
{
    const ghz_ratio_pass_t ps = ghz_ratio_pass(d, l, order, q);
    const unsigned a = ps.axis;
    s->pass_points[3u * (ghz_ratio_levels(d[0], d[1], d[2]) - l) + q] = ps.points;
    if (ps.points == 0) return GHZ_RATIO_CHOICE(a, 0u);
    code_pass(s, d, &ps, cubic[a]);
    return GHZ_RATIO_CHOICE(a, cubic[a]);
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

/* n values of `bytes` bytes each, little-endian. */
static void sink_le_array(sink_t* o, const void* v, uint64_t n, unsigned bytes)
{
    uint64_t j;
    if (o->len <= o->cap && n * bytes <= o->cap - o->len) {
        uint8_t* p = o->p + o->len;
        if (bytes == 2)
            for (j = 0; j < n; ++j) ghz_store_le(p + 2 * j, ((const uint16_t*)v)[j], 2);
        else
            for (j = 0; j < n; ++j) ghz_store_le(p + 4 * j, ((const uint32_t*)v)[j], 4);
    }
    o->len += n * bytes;
}

/* The tables of the contexts (RATIO.md, Tables): f[c][s]; nsym[c] = 0 for a context
 * without symbols; and for the coder, by context * GHZ_RATIO_NSYM_MAX + symbol (the
 * encoder's symbol array), the symbol's frequency, start, f's reciprocal (for
 * ghz_rans_put) and its extra bits. */
typedef struct {
    uint32_t f, cum, m;
    unsigned sh;
} coder_sym_t;

typedef struct {
    uint16_t f[GHZ_RATIO_NCTX][GHZ_RATIO_NSYM_MAX];
    unsigned nsym[GHZ_RATIO_NCTX];
    coder_sym_t c[GHZ_RATIO_NCTX * GHZ_RATIO_NSYM_MAX];
    uint8_t nb[GHZ_RATIO_NCTX * GHZ_RATIO_NSYM_MAX];
} tables_t;

static void make_tables(const uint64_t count[GHZ_RATIO_NCTX][GHZ_RATIO_NSYM_MAX], tables_t* t)
{
    unsigned c, s;
    memset(t, 0, sizeof *t);
    for (c = 0; c < GHZ_RATIO_NCTX; ++c) {
        uint64_t tot = 0;
        uint32_t cum = 0;
        for (s = 0; s < GHZ_RATIO_NSYM_MAX; ++s) {
            tot += count[c][s];
            t->nb[c * GHZ_RATIO_NSYM_MAX + s] = (uint8_t)(s ? ghz_ratio_extra_bits(s) : 0u);
        }
        if (!tot) continue;
        t->nsym[c] = ghz_ratio_normalize(count[c], tot, t->f[c]);
        for (s = 0; s < GHZ_RATIO_NSYM_MAX; ++s) {
            coder_sym_t* q = &t->c[c * GHZ_RATIO_NSYM_MAX + s];
            q->f = t->f[c][s];
            q->cum = cum;
            if (q->f) q->m = ghz_rans_recip(q->f, &q->sh);
            cum += t->f[c][s];
        }
    }
}

/* One rANS chunk, coded (RATIO.md, Chunks): its words at words[pos..cs), its extra-bit
 * words, its lanes' final states. */
typedef struct {
    uint16_t* words;  /* room for cs words */
    uint32_t* extra;  /* room for cs * 27 / 32 + 2 words */
    uint64_t pos, nbits, nw;
    uint32_t x[GHZ_RATIO_LANES];
    unsigned W;
} chunk_out_t;

/* Codes the K symbols sym[0..K) of a chunk of a pass cut into chunks of cs into *r;
 * ex[ex0...]: the extra bits of its symbols that have some, in order (ex is NULL where
 * the frame has none). Returns how many of them it took. */
static uint64_t code_chunk(const uint16_t* sym, uint64_t K, uint64_t cs, unsigned shrink, const tables_t* t,
                           const uint32_t* ex, uint64_t ex0, chunk_out_t* r)
{
    const unsigned W = ghz_ratio_chunk_lanes(K, shrink);
    const uint64_t steps = (K + W - 1) / W;
    uint64_t acc = 0, j, t_, used = 0;
    unsigned lane, nacc = 0;
    r->W = W;
    r->pos = cs;
    r->nbits = r->nw = 0;
    for (lane = 0; lane < W; ++lane) r->x[lane] = GHZ_RATIO_STATE_LOW;
    for (t_ = steps; t_-- > 0;) {
        uint16_t w[GHZ_RATIO_LANES];
        const uint64_t g0 = t_ * W;
        const unsigned lanes = K - g0 < W ? (unsigned)(K - g0) : W;
        unsigned m = 0;
        for (lane = 0; lane < lanes; ++lane) {
            const coder_sym_t* q = &t->c[sym[g0 + lane]];
            if (ghz_rans_put(&r->x[lane], q->f, q->m, q->sh, q->cum, &w[m])) ++m;
        }
        r->pos -= m;
        memcpy(r->words + r->pos, w, m * sizeof(uint16_t));
    }
    /* the extra bits, packed from bit 0 of the first word on */
    for (j = 0; j < K; ++j) {
        const unsigned nb = t->nb[sym[j]];
        if (!nb) continue;
        acc |= (uint64_t)ex[ex0 + used++] << nacc;
        nacc += nb;
        r->nbits += nb;
        if (nacc >= 32) {
            r->extra[r->nw++] = (uint32_t)acc;
            acc >>= 32;
            nacc -= 32;
        }
    }
    if (nacc) r->extra[r->nw++] = (uint32_t)acc;
    return used;
}

/* A coded chunk's directory entry to dir, its data to o. */
static void put_chunk(const chunk_out_t* r, uint64_t cs, sink_t* o, sink_t* dir)
{
    sink_le(dir, cs - r->pos, 4);
    sink_le(dir, r->nbits, 4);
    sink_le_array(dir, r->x, r->W, 4);
    sink_le_array(o, r->words + r->pos, cs - r->pos, 2);
    if ((cs - r->pos) & 1u) sink_le(o, 0, 2);
    sink_le_array(o, r->extra, r->nw, 4);
}

/* Writes the rANS chunks of one pass's K0 symbols (RATIO.md, Chunks), 2^lg symbols a
 * chunk, lanes as the frame's shrink says: directory entries to dir, data to o. ex[*ex_at...]: the extra bits of the
 * symbols that have some (*ex_at moves past this pass's). With T > 1 threads, T chunks
 * at a time are coded at once (each into its own r[i]; its extra bits found by
 * counting the symbols before it), then written in order. */
static void write_pass_chunks(const uint16_t* symbols, uint64_t K0, unsigned lg, unsigned shrink, const tables_t* t,
                              const uint32_t* ex, uint64_t* ex_at, chunk_out_t* r, int T, uint64_t* exs, sink_t* o,
                              sink_t* dir)
{
    const uint64_t cs = (uint64_t)1 << lg, nch = (K0 + cs - 1) / cs;
    uint64_t b;
    int64_t c;
    if (T > 1) T = threads_for(T, nch, 2);
    if (T <= 1) {
        for (b = 0; b < K0; b += cs) {
            *ex_at += code_chunk(symbols + b, K0 - b < cs ? K0 - b : cs, cs, shrink, t, ex, *ex_at, &r[0]);
            put_chunk(&r[0], cs, o, dir);
        }
        return;
    }
    /* exs[c]: the extra bits before chunk c */
#pragma omp parallel for num_threads(T) schedule(static)
    for (c = 0; c < (int64_t)nch; ++c) {
        const uint64_t c0 = (uint64_t)c * cs, K = K0 - c0 < cs ? K0 - c0 : cs;
        uint64_t j, k = 0;
        for (j = 0; j < K; ++j) k += t->nb[symbols[c0 + j]] != 0;
        exs[c + 1] = k;
    }
    exs[0] = 0;
    for (b = 0; b < nch; ++b) exs[b + 1] += exs[b];
    for (b = 0; b < nch; b += (uint64_t)T) {
        const int m = nch - b < (uint64_t)T ? (int)(nch - b) : T;
#pragma omp parallel for num_threads(m) schedule(static, 1)
        for (c = 0; c < m; ++c) {
            const uint64_t c0 = (b + (uint64_t)c) * cs;
            (void)code_chunk(symbols + c0, K0 - c0 < cs ? K0 - c0 : cs, cs, shrink, t, ex,
                             *ex_at + exs[b + (uint64_t)c], &r[c]);
        }
        for (c = 0; c < m; ++c) put_chunk(&r[c], cs, o, dir);
    }
    *ex_at += exs[nch];
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
                              const size_t dims[3], unsigned spread, unsigned shrink, const uint8_t* src, uint8_t* dst,
                              uint64_t capacity, uint64_t* frame_size, int nthreads)
{
    const uint64_t n = info_in->n, cs = (uint64_t)1 << GHZ_RATIO_CHUNK_LOG2;
    const uint64_t bound = ghz_compress_bound((size_t)n, e->dtype) - GHZ_HEADER_SIZE;
    ghz_frame_info_t info = *info_in;
    uint64_t d[3], i, dir_bytes = 0, x0 = 0, bits0, table_at, chunks_at, specials_at;
    unsigned ndims, L, l, a, c, s;
    uint8_t* choices;
    chunk_out_t* r;
    uint64_t* exs;
    tables_t* t;
    enc_t st;
    sink_t o, dir;
    ghz_status_t rc = GHZ_SUCCESS;
    const int nt = ghz_threads_for(nthreads, (size_t)n);
    int k, ok = 1;

    if (ghz_ratio_shape(dims, n, d, &ndims) != 0)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "dims %zu x %zu x %zu do not multiply to n = %llu",
                        dims[0], dims[1], dims[2], (unsigned long long)n);
    L = ghz_ratio_levels(d[0], d[1], d[2]);
    memset(&st, 0, sizeof st);
    st.e = e;
    st.src = src;
    st.xr = ghz_scratch_alloc((size_t)(n * e->elem));
    st.sym = (uint16_t*)ghz_scratch_alloc((size_t)n * sizeof(uint16_t));
    st.pass_points = (uint64_t*)calloc(3u * L + 1u, sizeof(uint64_t));
    choices = (uint8_t*)calloc(3u * L + 1u, 1);
    /* per thread: a coded chunk's room, a share of a pass's coding, partial costs */
    st.nt = nt;
    r = (chunk_out_t*)calloc((size_t)nt, sizeof *r);
    st.sh = nt > 1 ? (enc_t*)calloc((size_t)nt, sizeof *st.sh) : NULL;
    st.part = (uint64_t(*)[3])calloc((size_t)nt, sizeof *st.part);
    /* a pass's chunks, at most: none but its last below 2^(12 - shrink) symbols */
    exs = (uint64_t*)malloc((size_t)((n >> (GHZ_RATIO_SPREAD_CHUNK_LOG2 - shrink)) + 2) * sizeof *exs);
    for (k = 0; r && k < nt; ++k) {
        r[k].words = (uint16_t*)malloc((size_t)cs * sizeof(uint16_t));
        r[k].extra = (uint32_t*)malloc((size_t)(cs * 27 / 32 + 2) * sizeof(uint32_t));
        ok = ok && r[k].words && r[k].extra;
        if (st.sh) {
            st.sh[k].e = e;
            st.sh[k].src = src;
            st.sh[k].xr = st.xr;
            st.sh[k].sym = st.sym;
        }
    }
    t = (tables_t*)malloc(sizeof *t);
    if (!st.xr || !st.sym || !st.pass_points || !choices || !r || !ok || (nt > 1 && !st.sh) || !st.part || !exs ||
        !t) {
        rc = ghz_fail(GHZ_ERR_NOMEM, "ratio coding of %llu values: out of memory",
                      (unsigned long long)n);
        goto done;
    }

    /* element 0: its value, in the section (RATIO.md, Prediction) */
    {
        const double x = ghz_load_value(e, src, 0, &bits0);
        if (!is_special(e, x, bits0)) x0 = bits0;
        else ++st.n_special;
        if (e->dtype == GHZ_F32)
            ((float*)st.xr)[0] = is_special(e, x, bits0) ? 0.0f : (float)x;
        else
            ((double*)st.xr)[0] = is_special(e, x, bits0) ? 0.0 : x;
    }
    for (l = L; l >= 1; --l) {
        unsigned order[3], cubic[3];
        level_choices(&st, d, l, order, cubic);
        for (a = 0; a < 3; ++a) choices[3u * (L - l) + a] = run_pass(&st, d, l, order, cubic, a);
    }
    if (st.oom) {
        rc = ghz_fail(GHZ_ERR_NOMEM, "ratio coding: out of memory for outliers or extra bits");
        goto done;
    }
    make_tables((const uint64_t(*)[GHZ_RATIO_NSYM_MAX])st.count, t);
    for (i = 0; i < 3u * L; ++i) {
        const unsigned lg = ghz_ratio_pass_chunk_log2(st.pass_points[i], GHZ_RATIO_CHUNK_LOG2, spread, shrink);
        const uint64_t pcs = (uint64_t)1 << lg, left = st.pass_points[i] & (pcs - 1);
        dir_bytes += (st.pass_points[i] >> lg) * ghz_ratio_dir_entry(pcs, shrink);
        if (left) dir_bytes += ghz_ratio_dir_entry(left, shrink);
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
    {
        uint64_t ex_at = 0;
        for (i = 0, st.next = 0; i < 3u * L; ++i) {
            write_pass_chunks(st.sym + st.next, st.pass_points[i],
                              ghz_ratio_pass_chunk_log2(st.pass_points[i], GHZ_RATIO_CHUNK_LOG2, spread, shrink),
                              shrink, t, st.extra,
                              &ex_at, r, nt, exs, &o, &dir);
            st.next += st.pass_points[i];
        }
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
    ghz_ratio_header_pack(dst, &info, ndims, spread, shrink);
    *frame_size = GHZ_HEADER_SIZE + o.len;
done:
    ghz_scratch_free(st.xr);
    ghz_scratch_free(st.sym);
    free(st.extra);
    free(st.pass_points);
    free(st.out);
    free(choices);
    for (k = 0; r && k < nt; ++k) {
        free(r[k].words);
        free(r[k].extra);
        if (st.sh) {
            free(st.sh[k].extra);
            free(st.sh[k].out);
        }
    }
    free(r);
    free(st.sh);
    free(st.part);
    free(exs);
    free(t);
    return rc;
}
