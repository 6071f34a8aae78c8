/* ghz/codec/ratio_decompress.c: the CPU reference reader of ratio frames (RATIO.md).
 * The frame is checked part by part before its values are decoded; the symbols are
 * then decoded in pass order, chunk by chunk: the predictions and contexts of a
 * chunk's elements first, then its symbols, each written as its element's
 * reconstruction; the output array is the working array of reconstructions. */
#include <stdlib.h>
#include <string.h>

#include "ghz/codec/detail/frame.h"
#include "ghz/codec/detail/ratio.h"
#include "ghz/codec/detail/ratio_frame.h"
#include "ghz/codec/detail/ratio_rows.h"
#include "ghz/detail/error.h"

typedef struct {
    const uint8_t* frame;
    const ghz_ratio_layout_t* L;
    uint64_t n;
    uint16_t f[GHZ_RATIO_NCTX][GHZ_RATIO_NSYM_MAX];
    uint32_t cum[GHZ_RATIO_NCTX][GHZ_RATIO_NSYM_MAX];
    unsigned nsym[GHZ_RATIO_NCTX];
    uint8_t lut[GHZ_RATIO_NCTX][GHZ_RATIO_M];
    /* the chunk being read */
    uint64_t chunk, K, j, data, dir; /* dir: the chunk's directory entry */
    unsigned W, lane;                  /* its lanes, and the next symbol's */
    uint32_t x[GHZ_RATIO_LANES];
    const uint8_t *words, *extra;
    uint64_t nwords, wpos, nextra, epos;
    uint64_t outliers; /* outlier symbols read */
} reader_t;

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
    for (c = 0; c < GHZ_RATIO_NCTX; ++c) {
        uint32_t sum = 0;
        if (ghz_varint_get(p, lim, &pos, &v) != 0 || v > GHZ_RATIO_NSYM_MAX)
            return corrupt("a table's symbol count", r->L->off_table + pos);
        r->nsym[c] = (unsigned)v;
        for (s = 0; s < r->nsym[c]; ++s) {
            if (ghz_varint_get(p, lim, &pos, &v) != 0 || v > GHZ_RATIO_M)
                return corrupt("a table frequency", r->L->off_table + pos);
            r->f[c][s] = (uint16_t)v;
            r->cum[c][s] = sum;
            sum += (uint32_t)v;
        }
        if (r->nsym[c] && (sum != GHZ_RATIO_M || r->f[c][r->nsym[c] - 1] == 0))
            return corrupt("a table does not sum to 4096 or its last entry is 0", r->L->off_table + pos);
        if (r->nsym[c]) {
            unsigned slot = 0, i;
            for (s = 0; s < r->nsym[c]; ++s)
                for (i = 0; i < r->f[c][s]; ++i) r->lut[c][slot++] = (uint8_t)s;
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
            const uint64_t cs = (uint64_t)1 << ghz_ratio_pass_chunk_log2(left, L->chunk_log2, L->spread);
            while (left) {
                const uint8_t* e = r->frame + at;
                const uint64_t K = left < cs ? left : cs;
                uint64_t words = ghz_load_le(e, 4), bits = ghz_load_le(e + 4, 4);
                unsigned lane;
                at += GHZ_RATIO_DIR_ENTRY(K);
                /* at most one word and 27 extra bits per symbol */
                if (words > K || bits > 27 * K) return corrupt("chunk counts exceed its symbols", c);
                for (lane = 0; lane < GHZ_RATIO_CHUNK_LANES(K); ++lane)
                    if (ghz_load_le(e + 8 + 4 * lane, 4) < GHZ_RATIO_STATE_LOW)
                        return corrupt("a lane state below 2^16", c);
                total += ((2 * words + 3) & ~(uint64_t)3) + 4 * ((bits + 31) / 32);
                left -= K;
                ++c;
            }
        }
    }
    if (total != L->chunk_bytes) return corrupt("chunk sizes do not add up to chunk_bytes", total);
    return GHZ_SUCCESS;
}

static ghz_status_t close_chunk(const reader_t* r)
{
    unsigned lane;
    if (r->wpos != r->nwords || r->epos != r->nextra) return corrupt("chunk words or bits left unread", r->chunk);
    for (lane = 0; lane < r->W; ++lane)
        if (r->x[lane] != GHZ_RATIO_STATE_LOW) return corrupt("a lane does not end at 2^16", r->chunk);
    if ((r->nwords & 1u) && ghz_load_le(r->words + 2 * r->nwords, 2) != 0)
        return corrupt("chunk word padding not zero", r->chunk);
    if ((r->nextra % 32) && (ghz_load_le(r->extra + 4 * (r->nextra / 32), 4) >> (r->nextra % 32)) != 0)
        return corrupt("unused extra bits not zero", r->chunk);
    return GHZ_SUCCESS;
}

/* Opens chunk c, of K symbols, whose directory entry follows the previous chunk's. */
static void open_chunk(reader_t* r, uint64_t c, uint64_t K)
{
    const uint8_t* e;
    unsigned lane;
    if (c == 0) r->dir = r->L->off_dir;
    e = r->frame + r->dir;
    r->dir += GHZ_RATIO_DIR_ENTRY(K);
    r->W = GHZ_RATIO_CHUNK_LANES(K);
    r->chunk = c;
    r->K = K;
    r->j = 0;
    r->lane = 0;
    r->nwords = ghz_load_le(e, 4);
    r->nextra = ghz_load_le(e + 4, 4);
    for (lane = 0; lane < r->W; ++lane) r->x[lane] = (uint32_t)ghz_load_le(e + 8 + 4 * lane, 4);
    r->words = r->frame + r->L->off_chunks + r->data;
    r->extra = r->words + ((2 * r->nwords + 3) & ~(uint64_t)3);
    r->data += ((2 * r->nwords + 3) & ~(uint64_t)3) + 4 * ((r->nextra + 31) / 32);
    r->wpos = r->epos = 0;
}

#define GHZ_RATIO_DECODE_RUN 2048u /* elements predicted, then decoded, at a time */

typedef struct {
    reader_t* r;
    const ghz_frame_info_t* info;
    ghz_quantizer_t z;
    uint8_t* out;
    /* one chunk's elements: index, prediction, context, code (RATIO.md's decoder in
     * three steps per chunk, as the GPU runs it: predict all, decode all, rebuild all) */
    uint64_t* idx;
    double* pred;
    uint8_t* ctx;
} decoder_t;

static int put_outlier(decoder_t* dc, uint64_t i);

/* Decodes the next K codes of the open chunk (contexts known) and writes each
 * element's reconstruction: RATIO.md, Chunks, with the chunk's state in locals so that the loop
 * keeps it in registers. */
static int decode_codes(decoder_t* dc, uint64_t K)
{
    reader_t* r = dc->r;
    const uint8_t* ctx = dc->ctx;
    const int lossless = !(dc->z.eb > 0.0), is_f32 = dc->info->dtype == GHZ_F32;
    const unsigned W = r->W;
    const uint8_t* words = r->words;
    const uint8_t* xb = r->extra;
    const uint64_t nwords = r->nwords, nextra = r->nextra;
    uint64_t wpos = r->wpos, epos = r->epos, j;
    uint32_t x[GHZ_RATIO_LANES];
    unsigned lane = r->lane;
    memcpy(x, r->x, sizeof x);
    for (j = 0; j < K; ++j) {
        const unsigned cx = ctx[j];
        uint32_t v = x[lane], z, extra = 0;
        int32_t k;
        unsigned sym, nb;
        if (r->nsym[cx] == 0) {
            corrupt("a symbol in a context without a table", r->chunk);
            return -1;
        }
        sym = r->lut[cx][v & (GHZ_RATIO_M - 1u)];
        ghz_rans_take(&v, r->f[cx][sym], r->cum[cx][sym]);
        if (v < GHZ_RATIO_STATE_LOW) {
            uint16_t w;
            if (wpos == nwords) {
                corrupt("a chunk's words run out", r->chunk);
                return -1;
            }
            memcpy(&w, words + 2 * wpos++, 2);
            v = (v << 16) | w;
        }
        x[lane] = v;
        lane = lane + 1 == W ? 0u : lane + 1;
        if (sym == 0) {
            if (put_outlier(dc, dc->idx[j]) != 0) return -1;
            continue;
        }
        nb = ghz_ratio_extra_bits(sym);
        if (nb) {
            const uint64_t wi = epos / 32, b = epos % 32;
            uint32_t lo, hi = 0;
            if (nb > nextra - epos) {
                corrupt("a chunk's extra bits run out", r->chunk);
                return -1;
            }
            memcpy(&lo, xb + 4 * wi, 4);
            if (b + nb > 32) memcpy(&hi, xb + 4 * (wi + 1), 4);
            extra = (uint32_t)(lo >> b) | (b ? hi << (32 - b) : 0u);
            extra &= (1u << nb) - 1u;
            epos += nb;
        }
        z = ghz_ratio_unsymbol(sym, extra);
        if (z > (GHZ_RATIO_Z_LIMIT - 2u)) {
            corrupt("a code beyond QMAX", r->chunk);
            return -1;
        }
        k = ghz_ratio_unzigzag(z);
        if (lossless && k != 0) {
            corrupt("a nonzero code in a lossless frame", r->chunk);
            return -1;
        }
        if (is_f32)
            ((float*)dc->out)[dc->idx[j]] = (float)ghz_ratio_recon(&dc->z, dc->pred[j], k);
        else
            ((double*)dc->out)[dc->idx[j]] = ghz_ratio_recon(&dc->z, dc->pred[j], k);
    }
    memcpy(r->x, x, sizeof x);
    r->wpos = wpos;
    r->epos = epos;
    r->lane = lane;
    r->j += K;
    return 0;
}

/* Writes the next outlier as element i (RATIO.md, Frame: outliers). */
static int put_outlier(decoder_t* dc, uint64_t i)
{
    const unsigned elem = dc->info->dtype == GHZ_F32 ? 4u : 8u;
    const uint8_t* v = dc->r->frame + dc->r->L->off_outliers + dc->r->outliers * elem;
    int finite;
    if (dc->r->outliers == dc->r->L->n_outliers) {
        corrupt("more outlier symbols than outliers", i);
        return -1;
    }
    if (elem == 4u) {
        float fv;
        memcpy(&fv, v, 4);
        finite = isfinite(fv);
    } else {
        double dv;
        memcpy(&dv, v, 8);
        finite = isfinite(dv);
    }
    if (!finite) {
        corrupt("an outlier is not finite", i);
        return -1;
    }
    memcpy(dc->out + i * elem, v, elem);
    ++dc->r->outliers;
    return 0;
}

static int decode_passes(decoder_t* dc)
{
    const ghz_ratio_layout_t* L = dc->r->L;
    const uint64_t* d = L->d;
    const int is_f32 = dc->info->dtype == GHZ_F32;
    uint64_t chunk = 0;
    unsigned l, q;
    ghz_store_le(dc->out, L->x0, is_f32 ? 4u : 8u);
    for (l = L->levels; l >= 1; --l) {
        unsigned order[3] = {0, 1, 2};
        (void)ghz_ratio_level_order(d, l, dc->r->frame + L->off_choices + 3u * (L->levels - l), order);
        for (q = 0; q < 3; ++q) {
            const ghz_ratio_pass_t ps = ghz_ratio_pass(d, l, order, q);
            const unsigned cubic = dc->r->frame[L->off_choices + 3u * (L->levels - l) + q] & 1u;
            const uint64_t cs = (uint64_t)1 << ghz_ratio_pass_chunk_log2(ps.points, L->chunk_log2, L->spread);
            uint64_t j0, i0 = 0, i1 = 0, i2 = 0;
            for (j0 = 0; j0 < ps.points; j0 += cs) {
                const uint64_t K = ps.points - j0 < cs ? ps.points - j0 : cs;
                uint64_t b;
                open_chunk(dc->r, chunk++, K);
                /* in runs that keep their predictions, contexts and indices in cache */
                for (b = 0; b < K; b += GHZ_RATIO_DECODE_RUN) {
                    const uint64_t m = K - b < GHZ_RATIO_DECODE_RUN ? K - b : GHZ_RATIO_DECODE_RUN;
                    ghz_ratio_rows(dc->out, is_f32, &ps, d, cubic, dc->z.r, &i0, &i1, &i2, m, dc->idx,
                                   dc->pred, dc->ctx);
                    if (decode_codes(dc, m) != 0) return -1;
                }
                if (close_chunk(dc->r) != GHZ_SUCCESS) return -1;
            }
        }
    }
    if (dc->r->outliers != L->n_outliers) {
        corrupt("fewer outlier symbols than outliers", dc->r->outliers);
        return -1;
    }
    return 0;
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
    if (build) memset(mask, 0, (size_t)(n / 8 + 1));
    for (r = 0; r < n_runs; ++r) {
        uint64_t len, j;
        if (ghz_varint_get(p, lim, &pos, &len) != 0) return corrupt("a bad mask run varint", pos);
        if ((r > 0 && len == 0) || len > n - i) return corrupt("a bad mask run length", pos);
        if (build)
            for (j = i; j < i + len; ++j) {
                unsigned m = bit;
                if (lag && j >= lag) m ^= (mask[(j - lag) / 8] >> ((j - lag) % 8)) & 1u;
                if (m) {
                    mask[j / 8] |= (uint8_t)(1u << (j % 8));
                    ++ones;
                }
            }
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
            uint64_t bits, count, c;
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
            if (out && mask)
                for (c = 0; c < count; ++c) {
                    while (!((mask[i / 8] >> (i % 8)) & 1u)) ++i;
                    ghz_store_le(out + i * elem, bits, elem);
                    ++i;
                }
            at += count;
        }
    }
    if (at != n_special) return corrupt("special patterns do not cover the specials", pos);
    if (pos != lim) return corrupt("bytes after the specials section", pos);
    return GHZ_SUCCESS;
}

ghz_status_t ghz_ratio_decode(const uint8_t* frame, const ghz_frame_info_t* info, uint8_t* out)
{
    ghz_ratio_layout_t L;
    reader_t* r;
    decoder_t dc;
    uint8_t* mask;
    ghz_status_t st;
    const char* why = ghz_ratio_layout(frame, info, &L);
    if (why) return ghz_fail(GHZ_ERR_CORRUPT, "ratio frame: %s", why);
    {
        const uint64_t k = GHZ_RATIO_DECODE_RUN;
        dc.idx = (uint64_t*)malloc((size_t)k * sizeof(uint64_t));
        dc.pred = (double*)malloc((size_t)k * sizeof(double));
        dc.ctx = (uint8_t*)malloc((size_t)k);
    }
    r = (reader_t*)calloc(1, sizeof *r);
    mask = (uint8_t*)malloc((size_t)(info->n / 8 + 1));
    if (!r || !mask || !dc.idx || !dc.pred || !dc.ctx) {
        free(r);
        free(mask);
        free(dc.idx);
        free(dc.pred);
        free(dc.ctx);
        return ghz_fail(GHZ_ERR_NOMEM, "ratio frame of %llu values: out of memory",
                        (unsigned long long)info->n);
    }
    r->frame = frame;
    r->L = &L;
    r->n = info->n;
    if ((st = check_tables(r)) != GHZ_SUCCESS || (st = check_directory(r)) != GHZ_SUCCESS ||
        (st = specials(frame, &L, info, mask, NULL)) != GHZ_SUCCESS)
        goto done;
    dc.r = r;
    dc.info = info;
    dc.z = ghz_quantizer_make(info->eb_abs, info->dtype == GHZ_F32);
    dc.out = out;
    if (decode_passes(&dc) != 0) {
        st = GHZ_ERR_CORRUPT;
        goto done;
    }
    st = specials(frame, &L, info, mask, out);
done:
    free(r);
    free(mask);
    free(dc.idx);
    free(dc.pred);
    free(dc.ctx);
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
