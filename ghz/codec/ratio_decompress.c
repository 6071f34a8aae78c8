/* ghz/codec/ratio_decompress.c: the CPU reference reader of ratio frames (RATIO.md).
 * The frame is checked part by part before its values are decoded; the symbols are
 * then decoded in pass order, block by block (ratio_rows.h): the predictions and
 * contexts of a block's elements first, then their symbols, each written as its
 * element's reconstruction; the output array is the working array of
 * reconstructions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/detail/encode.h"
#include "ghz/codec/detail/frame.h"
#include "ghz/codec/detail/ratio.h"
#include "ghz/codec/detail/ratio_frame.h"
#include "ghz/codec/detail/ratio_rows.h"
#include "ghz/codec/detail/scratch.h"
#include "ghz/detail/error.h"

/* A context's decoding table: lut[c][r] is the symbol s with cum[s] <= r < cum[s] +
 * f[s] (RATIO.md, Chunks), fc[c][s] = f[s] | cum[s] << 16. A context without a table
 * maps every slot to NO_TABLE, above every symbol. */
#define NO_TABLE 255u

typedef struct {
    const uint8_t* frame;
    const ghz_ratio_layout_t* L;
    uint64_t n;
    uint16_t f[GHZ_RATIO_NCTX][GHZ_RATIO_NSYM_MAX];
    unsigned nsym[GHZ_RATIO_NCTX];
    uint8_t lut[GHZ_RATIO_NCTX][GHZ_RATIO_M];
    uint32_t fc[GHZ_RATIO_NCTX][256];
    double kq[33]; /* k * Q of the symbols 1..32, which take no extra bits */
    uint64_t outliers; /* outlier symbols read */
} reader_t;

/* The chunk being read. */
typedef struct {
    uint64_t chunk, left;  /* its number; symbols not yet read */
    uint64_t dir, data;    /* where the next chunk's directory entry and data start */
    unsigned W, lane;      /* its lanes, and the next symbol's */
    uint32_t x[GHZ_RATIO_LANES];
    const uint8_t *words, *extra;
    uint64_t nwords, wpos, nextra, epos;
} chunk_t;

static ghz_status_t corrupt(const char* what, uint64_t where)
{
    return ghz_fail(GHZ_ERR_CORRUPT, "ratio frame: %s (at %llu)", what, (unsigned long long)where);
}

/* RATIO.md, Tables: per context a varint count and that many varint frequencies. */
static ghz_status_t check_tables(reader_t* r)
{
    const uint8_t* p = r->frame + r->L->off_table;
    const uint64_t lim = r->L->table_bytes;
    uint64_t pos = 0, v;
    unsigned c, s;
    memset(r->f, 0, sizeof r->f);
    memset(r->fc, 0, sizeof r->fc);
    for (c = 0; c < GHZ_RATIO_NCTX; ++c) {
        uint32_t sum = 0;
        if (ghz_varint_get(p, lim, &pos, &v) != 0 || v > GHZ_RATIO_NSYM_MAX)
            return corrupt("a table's symbol count", r->L->off_table + pos);
        r->nsym[c] = (unsigned)v;
        for (s = 0; s < r->nsym[c]; ++s) {
            if (ghz_varint_get(p, lim, &pos, &v) != 0 || v > GHZ_RATIO_M)
                return corrupt("a table frequency", r->L->off_table + pos);
            r->f[c][s] = (uint16_t)v;
            sum += (uint32_t)v;
        }
        if (r->nsym[c] && (sum != GHZ_RATIO_M || r->f[c][r->nsym[c] - 1] == 0))
            return corrupt("a table does not sum to 4096 or its last entry is 0", r->L->off_table + pos);
        if (r->nsym[c]) {
            unsigned slot = 0, i;
            for (s = 0; s < r->nsym[c]; ++s) {
                r->fc[c][s] = r->f[c][s] | (uint32_t)slot << 16;
                for (i = 0; i < r->f[c][s]; ++i, ++slot) r->lut[c][slot] = (uint8_t)s;
            }
        } else {
            for (s = 0; s < GHZ_RATIO_M; ++s) r->lut[c][s] = NO_TABLE;
        }
    }
    if (pos != lim) return corrupt("bytes after the tables", r->L->off_table + pos);
    return GHZ_SUCCESS;
}

/* Checks each chunk's directory entry against its symbols (chunks are cut per pass)
 * and that their sizes add up to chunk_bytes. */
static ghz_status_t check_directory(const reader_t* r)
{
    const ghz_ratio_layout_t* L = r->L;
    uint64_t c = 0, total = 0, at = L->off_dir;
    unsigned l, q, order[3] = {0, 1, 2};
    for (l = L->levels; l >= 1; --l) {
        (void)ghz_ratio_level_order(L->d, l, r->frame + L->off_choices + 3u * (L->levels - l), order);
        for (q = 0; q < 3; ++q) {
            uint64_t left = ghz_ratio_pass(L->d, l, order, q).points;
            const uint64_t cs = (uint64_t)1 << ghz_ratio_pass_chunk_log2(left, L->chunk_log2, L->spread, L->shrink);
            while (left) {
                const uint8_t* e = r->frame + at;
                const uint64_t K = left < cs ? left : cs;
                uint64_t words = ghz_load_le(e, 4), bits = ghz_load_le(e + 4, 4);
                unsigned lane;
                at += ghz_ratio_dir_entry(K, L->shrink);
                /* at most one word and 27 extra bits per symbol */
                if (words > K || bits > 27 * K) return corrupt("chunk counts exceed its symbols", c);
                for (lane = 0; lane < ghz_ratio_chunk_lanes(K, L->shrink); ++lane)
                    if (ghz_load_le(e + 8 + 4 * lane, 4) < GHZ_RATIO_STATE_LOW)
                        return corrupt("a lane state below 2^16", c);
                total += GHZ_RATIO_CHUNK_BYTES(words, bits);
                left -= K;
                ++c;
            }
        }
    }
    if (total != L->chunk_bytes) return corrupt("chunk sizes do not add up to chunk_bytes", total);
    return GHZ_SUCCESS;
}

static ghz_status_t close_chunk(const chunk_t* ch)
{
    unsigned lane;
    if (ch->wpos != ch->nwords || ch->epos != ch->nextra) return corrupt("chunk words or bits left unread", ch->chunk);
    for (lane = 0; lane < ch->W; ++lane)
        if (ch->x[lane] != GHZ_RATIO_STATE_LOW) return corrupt("a lane does not end at 2^16", ch->chunk);
    if ((ch->nwords & 1u) && ghz_load_le(ch->words + 2 * ch->nwords, 2) != 0)
        return corrupt("chunk word padding not zero", ch->chunk);
    if ((ch->nextra % 32) && (ghz_load_le(ch->extra + 4 * (ch->nextra / 32), 4) >> (ch->nextra % 32)) != 0)
        return corrupt("unused extra bits not zero", ch->chunk);
    return GHZ_SUCCESS;
}

/* Opens chunk c, of K symbols, whose directory entry and data follow the previous
 * chunk's. */
static void open_chunk(const reader_t* r, chunk_t* ch, uint64_t c, uint64_t K)
{
    const uint8_t* e;
    unsigned lane;
    if (c == 0) {
        ch->dir = r->L->off_dir;
        ch->data = 0;
    }
    e = r->frame + ch->dir;
    ch->dir += ghz_ratio_dir_entry(K, r->L->shrink);
    ch->W = ghz_ratio_chunk_lanes(K, r->L->shrink);
    ch->chunk = c;
    ch->left = K;
    ch->lane = 0;
    ch->nwords = ghz_load_le(e, 4);
    ch->nextra = ghz_load_le(e + 4, 4);
    for (lane = 0; lane < ch->W; ++lane) ch->x[lane] = (uint32_t)ghz_load_le(e + 8 + 4 * lane, 4);
    ch->words = r->frame + r->L->off_chunks + ch->data;
    ch->extra = ch->words + GHZ_RATIO_WORD_BYTES(ch->nwords);
    ch->data += GHZ_RATIO_CHUNK_BYTES(ch->nwords, ch->nextra);
    ch->wpos = ch->epos = 0;
}

typedef struct decoder_s {
    reader_t* r;
    const ghz_frame_info_t* info;
    ghz_quantizer_t z;
    uint8_t* out;
    /* decode_f32 or decode_f64, called through this pointer: inlined into one
     * caller, the two loops run slower */
    int (*decode)(struct decoder_s* dc, void* out, uint64_t i, uint64_t step, const double* p,
                  const uint8_t* cx, uint64_t nb);
    chunk_t ch;
    uint64_t cs, pass_left; /* symbols a chunk of this pass, and of the pass still unread */
    uint64_t next_chunk;
    /* A thread's share of a pass (decode_pass): its outliers' places, in pass order, are
     * noted here and filled after the pass, when the earlier shares' counts are known.
     * NULL: the outliers are read as they come. */
    struct outlier_list* olist;
} decoder_t;

/* The outliers of a thread's share of a pass: storage index and chunk of each. */
typedef struct outlier_list {
    uint64_t* at;
    uint64_t n, cap;
    int oom;
} outlier_list_t;

/* The next outlier's value (RATIO.md, Frame: outliers) into *v: 0, or -1 when there
 * is none left or it is not finite. */
static int next_outlier(decoder_t* dc, double* v)
{
    const int is_f32 = dc->info->dtype == GHZ_F32;
    const uint8_t* at = dc->r->frame + dc->r->L->off_outliers + dc->r->outliers * (is_f32 ? 4u : 8u);
    if (dc->r->outliers == dc->r->L->n_outliers) {
        corrupt("more outlier symbols than outliers", dc->ch.chunk);
        return -1;
    }
    if (is_f32) {
        float f;
        memcpy(&f, at, 4);
        *v = f;
    } else {
        memcpy(v, at, 8);
    }
    if (!isfinite(*v)) {
        corrupt("an outlier is not finite", dc->ch.chunk);
        return -1;
    }
    ++dc->r->outliers;
    return 0;
}

/* Notes outlier element i of chunk c (decode_pass fills it in). */
static int note_outlier(outlier_list_t* o, uint64_t i, uint64_t c)
{
    const uint64_t pair[2] = {i, c};
    uint64_t* at = (uint64_t*)ghz_append(o->at, &o->n, &o->cap, pair, 2, sizeof *pair);
    if (!at) {
        o->oom = 1;
        return -1;
    }
    o->at = at;
    return 0;
}

/* A symbol that is neither a small code nor a code with extra bits: an outlier (its
 * value into *v, or noted for later; returns 0), else -1 with the reason. */
static int rare_symbol(decoder_t* dc, unsigned sym, uint64_t i, double* v)
{
    if (sym == 0 && dc->olist) {
        *v = 0.0;
        return note_outlier(dc->olist, i, dc->ch.chunk);
    }
    if (sym == 0) return next_outlier(dc, v);
    corrupt(sym == NO_TABLE ? "a symbol in a context without a table" : "a nonzero code in a lossless frame",
            dc->ch.chunk);
    return -1;
}

/* Decodes the symbols of nb elements of the open chunk (RATIO.md, Chunks), of
 * contexts cx[e], and stores their reconstructions (from predictions p[e]; outliers:
 * their values) at storage indices i, i + step, ... Returns 0, or -1 on a corrupt
 * chunk. The chunk's state lives in locals meanwhile. */
#define DECODE_FN(NAME, T)                                                                   \
    static int NAME(decoder_t* dc, void* out, uint64_t i, uint64_t step, const double* p,   \
                    const uint8_t* cx, uint64_t nb)                                          \
    {                                                                                        \
        T* X = (T*)out;                                                                      \
        chunk_t* ch = &dc->ch;                                                               \
        const uint8_t(*lut)[GHZ_RATIO_M] = (const uint8_t(*)[GHZ_RATIO_M])dc->r->lut;       \
        const uint32_t(*fc)[256] = (const uint32_t(*)[256])dc->r->fc;                        \
        const double* kq = dc->r->kq;                                                        \
        const ghz_quantizer_t z = dc->z;                                                     \
        /* symbols 1..small take no extra bits: 32 of them, 1 in a lossless frame */         \
        const unsigned W = ch->W, small = z.eb > 0.0 ? 32u : 1u;                             \
        const uint8_t *words = ch->words, *xb = ch->extra;                                   \
        const uint64_t nwords = ch->nwords, nextra = ch->nextra;                             \
        uint64_t wpos = ch->wpos, epos = ch->epos, e;                                        \
        uint32_t x[GHZ_RATIO_LANES];                                                         \
        unsigned lane = ch->lane;                                                            \
        memcpy(x, ch->x, sizeof x);                                                          \
        for (e = 0; e < nb; ++e, i += step) {                                                \
            uint32_t v = x[lane];                                                            \
            const unsigned sym = lut[cx[e]][v & (GHZ_RATIO_M - 1u)];                         \
            const uint32_t fcum = fc[cx[e]][sym];                                            \
            int32_t k;                                                                       \
            v = (fcum & 0xFFFFu) * (v >> GHZ_RATIO_PROB_BITS) + (v & (GHZ_RATIO_M - 1u)) - (fcum >> 16); \
            if (v < GHZ_RATIO_STATE_LOW) {                                                   \
                uint16_t w;                                                                  \
                if (wpos == nwords) {                                                        \
                    corrupt("a chunk's words run out", ch->chunk);                          \
                    return -1;                                                               \
                }                                                                            \
                memcpy(&w, words + 2 * wpos++, 2);                                           \
                v = (v << 16) | w;                                                           \
            }                                                                                \
            x[lane] = v;                                                                     \
            lane = lane + 1 == W ? 0u : lane + 1;                                            \
            if (sym - 1u < small) {                                                          \
                X[i] = (T)GHZ_DADD(p[e], kq[sym]); /* ghz_ratio_recon, k * Q from the table */ \
                continue;                                                                    \
            } else if (sym >= 33u && sym < GHZ_RATIO_NSYM_MAX && small > 1u) {               \
                const unsigned nbits = ghz_ratio_extra_bits(sym);                            \
                const uint64_t wi = epos / 32, b = epos % 32;                                \
                uint32_t lo, hi = 0, extra, zz;                                              \
                if (nbits > nextra - epos) {                                                 \
                    corrupt("a chunk's extra bits run out", ch->chunk);                     \
                    return -1;                                                               \
                }                                                                            \
                memcpy(&lo, xb + 4 * wi, 4);                                                 \
                if (b + nbits > 32) memcpy(&hi, xb + 4 * (wi + 1), 4);                       \
                extra = (uint32_t)(lo >> b) | (b ? hi << (32 - b) : 0u);                     \
                extra &= (1u << nbits) - 1u;                                                 \
                epos += nbits;                                                               \
                zz = ghz_ratio_unsymbol(sym, extra);                                         \
                if (zz > (GHZ_RATIO_Z_LIMIT - 2u)) {                                         \
                    corrupt("a code beyond QMAX", ch->chunk);                               \
                    return -1;                                                               \
                }                                                                            \
                k = ghz_ratio_unzigzag(zz);                                                  \
            } else {                                                                         \
                double o;                                                                    \
                if (rare_symbol(dc, sym, i, &o) != 0) return -1;                             \
                X[i] = (T)o;                                                                 \
                continue;                                                                    \
            }                                                                                \
            X[i] = (T)ghz_ratio_recon(&z, p[e], k);                                          \
        }                                                                                    \
        memcpy(ch->x, x, sizeof x);                                                          \
        ch->wpos = wpos;                                                                     \
        ch->epos = epos;                                                                     \
        ch->lane = lane;                                                                     \
        return 0;                                                                            \
    }
DECODE_FN(decode_f32, float)
DECODE_FN(decode_f64, double)

/* Decodes a block (ratio_rows.h), opening and closing chunks as it goes. Returns 0,
 * or -1 on a corrupt chunk. */
static int decode_block(void* arg, uint64_t i, uint64_t step, const double* p, const uint8_t* cx, uint64_t nb)
{
    decoder_t* dc = (decoder_t*)arg;
    while (nb) {
        uint64_t k;
        if (dc->ch.left == 0) {
            const uint64_t K = dc->pass_left < dc->cs ? dc->pass_left : dc->cs;
            open_chunk(dc->r, &dc->ch, dc->next_chunk++, K);
            dc->pass_left -= K;
        }
        k = nb < dc->ch.left ? nb : dc->ch.left;
        if (dc->decode(dc, dc->out, i, step, p, cx, k) != 0) return -1;
        nb -= k;
        i += k * step;
        p += k;
        cx += k;
        dc->ch.left -= k;
        if (dc->ch.left == 0 && close_chunk(&dc->ch) != GHZ_SUCCESS) return -1;
    }
    return 0;
}

/* A thread's share of a pass: its decoder, the places of its outliers, its failure. */
typedef struct {
    decoder_t dc;
    outlier_list_t ol;
    ghz_status_t st;
    char why[256];
    uint64_t dir, data; /* where its first chunk's directory entry and data start */
} share_t;

/* Decodes pass ps: on one thread in chunk order, or its chunks cut into nt contiguous
 * shares decoded at once (the pass's elements depend only on earlier passes), the
 * outliers then filled in pass order. Either way the same values and verdict. */
static ghz_status_t decode_pass(decoder_t* dc, const ghz_ratio_pass_t* ps, unsigned cubic, share_t* sh, int nt)
{
    const reader_t* r = dc->r;
    const uint64_t* d = r->L->d;
    const int is_f32 = dc->info->dtype == GHZ_F32;
    const uint64_t cs = dc->cs, nch = (ps->points + cs - 1) / cs, chunk0 = dc->next_chunk;
    uint64_t c, dir, data;
    int64_t t;
    int T = (uint64_t)nt < nch ? nt : (int)nch;
    dc->pass_left = ps->points;
    if (T <= 1)
        return ghz_ratio_pass_blocks(ps, d, cubic, dc->out, is_f32, dc->z.r, decode_block, dc) ? GHZ_ERR_CORRUPT
                                                                                                : GHZ_SUCCESS;
    /* each share's first chunk: every chunk before the pass's last is full */
    dir = chunk0 ? dc->ch.dir : r->L->off_dir;
    data = chunk0 ? dc->ch.data : 0;
    for (t = 0, c = 0; t <= T; ++t) {
        const uint64_t ca = t < T ? nch * (uint64_t)t / (uint64_t)T : nch;
        for (; c < ca; ++c) {
            const uint8_t* e = r->frame + dir;
            dir += ghz_ratio_dir_entry(c + 1 < nch ? cs : ps->points - c * cs, r->L->shrink);
            data += GHZ_RATIO_CHUNK_BYTES(ghz_load_le(e, 4), ghz_load_le(e + 4, 4));
        }
        if (t < T) {
            sh[t].dir = dir;
            sh[t].data = data;
        }
    }
#pragma omp parallel for num_threads(T) schedule(static, 1)
    for (t = 0; t < T; ++t) {
        share_t* h = &sh[t];
        const uint64_t ca = nch * (uint64_t)t / (uint64_t)T, cb = nch * (uint64_t)(t + 1) / (uint64_t)T;
        h->dc = *dc;
        h->dc.olist = &h->ol;
        h->dc.ch.left = 0;
        h->dc.ch.dir = h->dir;
        h->dc.ch.data = h->data;
        h->dc.next_chunk = chunk0 + ca;
        h->dc.pass_left = ps->points - ca * cs;
        h->ol.n = 0;
        h->ol.oom = 0;
        h->st = GHZ_SUCCESS;
        if (ghz_ratio_pass_range(ps, d, cubic, dc->out, is_f32, dc->z.r, ca * cs,
                                 cb * cs < ps->points ? cb * cs : ps->points, decode_block, &h->dc) != 0) {
            h->st = h->ol.oom ? GHZ_ERR_NOMEM : GHZ_ERR_CORRUPT;
            snprintf(h->why, sizeof h->why, "%s",
                     h->ol.oom ? "ratio frame: out of memory for the places of outliers" : ghz_last_error_detail());
        }
    }
    for (t = 0; t < T; ++t)
        if (sh[t].st != GHZ_SUCCESS) return ghz_fail(sh[t].st, "%s", sh[t].why);
    for (t = 0; t < T; ++t) {
        uint64_t k;
        for (k = 0; k < sh[t].ol.n; k += 2) {
            double v;
            dc->ch.chunk = sh[t].ol.at[k + 1];
            if (next_outlier(dc, &v) != 0) return GHZ_ERR_CORRUPT;
            if (is_f32) ((float*)dc->out)[sh[t].ol.at[k]] = (float)v;
            else ((double*)dc->out)[sh[t].ol.at[k]] = v;
        }
    }
    dc->ch.left = 0;
    dc->ch.dir = dir;
    dc->ch.data = data;
    dc->next_chunk = chunk0 + nch;
    return GHZ_SUCCESS;
}

static ghz_status_t decode_passes(decoder_t* dc, share_t* sh, int nt)
{
    const ghz_ratio_layout_t* L = dc->r->L;
    const uint64_t* d = L->d;
    const int is_f32 = dc->info->dtype == GHZ_F32;
    unsigned l, q;
    ghz_store_le(dc->out, L->x0, is_f32 ? 4u : 8u);
    dc->ch.left = 0;
    dc->next_chunk = 0;
    for (l = L->levels; l >= 1; --l) {
        unsigned order[3] = {0, 1, 2};
        (void)ghz_ratio_level_order(d, l, dc->r->frame + L->off_choices + 3u * (L->levels - l), order);
        for (q = 0; q < 3; ++q) {
            const ghz_ratio_pass_t ps = ghz_ratio_pass(d, l, order, q);
            const unsigned cubic = dc->r->frame[L->off_choices + 3u * (L->levels - l) + q] & 1u;
            ghz_status_t st;
            if (ps.points == 0) continue;
            dc->cs = (uint64_t)1 << ghz_ratio_pass_chunk_log2(ps.points, L->chunk_log2, L->spread, L->shrink);
            if ((st = decode_pass(dc, &ps, cubic, sh, nt)) != GHZ_SUCCESS) return st;
        }
    }
    if (dc->r->outliers != L->n_outliers) return corrupt("fewer outlier symbols than outliers", dc->r->outliers);
    return GHZ_SUCCESS;
}

/* The specials' bitmap is read and written 24 bits at a time, through 4-byte windows
 * at any bit (so it carries MASK_PAD bytes past its n bits): element by element, its
 * lag and its scan for the next special cost as much as decoding the values on a field
 * that is half land. */
#define MASK_PAD 4u

/* Bits [b, b + k) of the mask (k <= 24) as the low bits. */
static uint32_t mask_get(const uint8_t* m, uint64_t b, unsigned k)
{
    return (uint32_t)(ghz_load_le(m + b / 8, 4) >> (b % 8)) & ((1u << k) - 1u);
}

/* Sets the ones of v (24 bits at most) from bit b on. */
static void mask_or(uint8_t* m, uint64_t b, uint32_t v)
{
    ghz_store_le(m + b / 8, ghz_load_le(m + b / 8, 4) | (uint64_t)v << (b % 8), 4);
}

/* Writes `bits` as the next count specials of the mask from element *i on (that many
 * are known to be there) and moves *i past the last. */
static void mask_fill(const uint8_t* m, uint64_t* i, uint64_t count, uint64_t bits, unsigned elem, uint8_t* out)
{
    uint64_t at = *i, last = at;
    while (count) {
        uint32_t w = mask_get(m, at, 24);
        for (; w && count; w &= w - 1u, --count) {
            last = at + ghz_bit_width(w & (0u - w)) - 1u;
            if (elem == 4u)
                ghz_store_le(out + 4 * last, bits, 4);
            else
                ghz_store_le(out + 8 * last, bits, 8);
        }
        at += 24;
    }
    *i = last + 1;
}

/* Sets the len mask bits from element i on: the residual bit `bit` XOR the element lag
 * before (none before lag, or when lag is 0), RATIO.md, Specials section. Returns the
 * ones set. */
static uint64_t mask_run(uint8_t* m, uint64_t i, uint64_t len, unsigned bit, uint64_t lag)
{
    const uint64_t end = i + len;
    uint64_t ones = 0;
    while (i < end) {
        unsigned k = end - i < 24 ? (unsigned)(end - i) : 24u;
        uint32_t v;
        if (lag && k > lag) k = (unsigned)lag; /* the predecessors of the k bits are set */
        if (lag && i < lag && i + k > lag) k = (unsigned)(lag - i); /* no predecessor before lag */
        v = bit ? (1u << k) - 1u : 0u;
        if (lag && i >= lag) v ^= mask_get(m, i - lag, k);
        if (v) {
            mask_or(m, i, v);
            ones += ghz_popc32(v);
        }
        i += k;
    }
    return ones;
}

/* Parses the specials section into a bitmap of special elements (mask, n bits) and
 * checks it; with out != NULL, writes the special values at the ones of the mask that
 * the checking call (out == NULL) built. */
static ghz_status_t specials(const uint8_t* frame, const ghz_ratio_layout_t* L,
                             const ghz_frame_info_t* info, uint8_t* mask, uint8_t* out)
{
    const uint8_t* p = frame + L->off_specials;
    const uint64_t lim = L->special_bytes, n = info->n;
    const unsigned elem = info->dtype == GHZ_F32 ? 4u : 8u;
    uint64_t pos = 16, n_special, n_runs, r, i = 0, ones = 0, n_pat, at, lag = 0;
    unsigned bit = 0;
    const int build = mask && !out;
    if (lim < 16) return corrupt("specials section cut short", L->off_specials);
    n_special = ghz_load_le(p, 8);
    n_runs = ghz_load_le(p + 8, 8);
    if ((n_special == 0) != (n_runs == 0)) return corrupt("special counts disagree", L->off_specials);
    if (n_runs) { /* the mask's predecessor: none, the previous row or slice */
        if (pos >= lim || p[pos] > 2) return corrupt("a bad mask predecessor", L->off_specials + pos);
        lag = p[pos] == 0 ? 0 : p[pos] == 1 ? L->d[0] : L->d[0] * L->d[1];
        ++pos;
    }
    if (build) memset(mask, 0, (size_t)(n / 8 + 1 + MASK_PAD));
    for (r = 0; r < n_runs; ++r) {
        uint64_t len;
        if (ghz_varint_get(p, lim, &pos, &len) != 0) return corrupt("a bad mask run varint", pos);
        if ((r > 0 && len == 0) || len > n - i) return corrupt("a bad mask run length", pos);
        if (build && (bit || (lag && i + len > lag))) ones += mask_run(mask, i, len, bit, lag);
        i += len;
        bit ^= 1u;
    }
    if (n_runs && i != n) return corrupt("mask runs do not cover the array", pos);
    if (build && ones != n_special) return corrupt("mask does not hold n_special elements", pos);
    if (lim - pos < 8) return corrupt("specials section cut short", pos);
    n_pat = ghz_load_le(p + pos, 8);
    pos += 8;
    at = 0; /* specials covered so far */
    i = 0;  /* next element to scan for a special */
    {
        uint64_t prev = 0;
        for (r = 0; r < n_pat; ++r) {
            uint64_t bits, count;
            int ok;
            if (lim - pos < elem) return corrupt("a special pattern cut short", pos);
            bits = ghz_load_le(p + pos, elem);
            pos += elem;
            if (ghz_varint_get(p, lim, &pos, &count) != 0 || count == 0 || count > n_special - at)
                return corrupt("a bad special count", pos);
            if (elem == 4u) {
                float fv;
                uint32_t u = (uint32_t)bits;
                memcpy(&fv, &u, 4);
                ok = !isfinite(fv);
            } else {
                double dv;
                memcpy(&dv, &bits, 8);
                ok = !isfinite(dv);
            }
            if (!ok && !(info->has_fill && bits == info->fill_bits))
                return corrupt("a special pattern that is finite and not the fill value", pos);
            if (r > 0 && bits == prev) return corrupt("adjacent special runs repeat a pattern", pos);
            prev = bits;
            if (out && mask) mask_fill(mask, &i, count, bits, elem, out);
            at += count;
        }
    }
    if (at != n_special) return corrupt("special patterns do not cover the specials", pos);
    if (pos != lim) return corrupt("bytes after the specials section", pos);
    return GHZ_SUCCESS;
}

ghz_status_t ghz_ratio_decode(const uint8_t* frame, const ghz_frame_info_t* info, uint8_t* out, int nthreads)
{
    ghz_ratio_layout_t L;
    reader_t* r;
    decoder_t dc;
    uint8_t* mask;
    share_t* sh;
    ghz_status_t st;
    const int nt = ghz_threads_for(nthreads, (size_t)info->n);
    int t;
    const char* why = ghz_ratio_layout(frame, info, &L);
    if (why) return ghz_fail(GHZ_ERR_CORRUPT, "ratio frame: %s", why);
    r = (reader_t*)malloc(sizeof *r);
    mask = (uint8_t*)malloc((size_t)(info->n / 8 + 1 + MASK_PAD));
    sh = (share_t*)calloc((size_t)nt, sizeof *sh);
    if (!r || !mask || !sh) {
        free(r);
        free(mask);
        free(sh);
        return ghz_fail(GHZ_ERR_NOMEM, "ratio frame of %llu values: out of memory",
                        (unsigned long long)info->n);
    }
    r->frame = frame;
    r->L = &L;
    r->n = info->n;
    r->outliers = 0;
    if ((st = check_tables(r)) != GHZ_SUCCESS || (st = check_directory(r)) != GHZ_SUCCESS ||
        (st = specials(frame, &L, info, mask, NULL)) != GHZ_SUCCESS)
        goto done;
    dc.r = r;
    dc.info = info;
    dc.z = ghz_quantizer_make(info->eb_abs, info->dtype == GHZ_F32);
    {
        unsigned sym;
        for (sym = 1; sym <= 32; ++sym) r->kq[sym] = GHZ_DMUL((double)ghz_ratio_unzigzag(sym - 1u), dc.z.q);
    }
    dc.out = out;
    dc.decode = info->dtype == GHZ_F32 ? decode_f32 : decode_f64;
    dc.olist = NULL;
    if ((st = decode_passes(&dc, sh, nt)) != GHZ_SUCCESS) goto done;
    st = specials(frame, &L, info, mask, out);
done:
    for (t = 0; t < nt; ++t) free(sh[t].ol.at);
    free(sh);
    free(r);
    free(mask);
    return st;
}

ghz_status_t ghz_ratio_dims(const uint8_t* frame, const ghz_frame_info_t* info, uint64_t d[3])
{
    ghz_ratio_layout_t L;
    const char* why;
    if (info->prefer != GHZ_PREFER_RATIO) {
        d[0] = info->n;
        d[1] = d[2] = 1;
        return GHZ_SUCCESS;
    }
    if ((why = ghz_ratio_layout(frame, info, &L)) != 0)
        return ghz_fail(GHZ_ERR_CORRUPT, "ratio frame: %s", why);
    memcpy(d, L.d, sizeof L.d);
    return GHZ_SUCCESS;
}
