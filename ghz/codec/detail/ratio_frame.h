/* ghz/codec/detail/ratio_frame.h (private): the layout of a ratio frame (RATIO.md,
 * Section) and its checks, shared by the CPU reference and the CUDA codec, so both
 * accept and refuse the same frames. */
#ifndef GHZ_CODEC_DETAIL_RATIO_FRAME_H
#define GHZ_CODEC_DETAIL_RATIO_FRAME_H

#include "ghz/codec/ratio.h"
#include "ghz/codec/detail/header.h"

/* Where each part of a ratio frame lies, as byte offsets from the frame's start. */
typedef struct {
    uint64_t d[3];
    unsigned ndims, levels, chunk_log2, spread, shrink;
    uint64_t table_bytes, n_outliers, chunk_bytes, special_bytes, n_chunks, dir_bytes, x0;
    uint64_t off_choices, off_table, off_dir, off_chunks, off_outliers, off_specials, end;
} ghz_ratio_layout_t;

/* The axis order of level l from its three choice bytes c (RATIO.md, Section):
 * 0, or -1 unless they name a permutation of the axes, with no cubic bit on an empty
 * pass and no other bit set. */
GHZ_HD static inline int ghz_ratio_level_order(const uint64_t d[3], unsigned l, const uint8_t c[3],
                                               unsigned order[3])
{
    unsigned q, seen = 0;
    for (q = 0; q < 3; ++q) {
        if (c[q] > 5u || (seen & (1u << (c[q] >> 1)))) return -1;
        order[q] = c[q] >> 1u;
        seen |= 1u << order[q];
    }
    for (q = 0; q < 3; ++q)
        if ((c[q] & 1u) && ghz_ratio_pass(d, l, order, q).points == 0) return -1;
    return 0;
}

/* The array shape a caller asked for (ghz_params_t.dims) as three extents and a
 * dimension count; -1 when the extents do not multiply to n. */
GHZ_HD static inline int ghz_ratio_shape(const size_t dims[3], uint64_t n, uint64_t d[3],
                                         unsigned* ndims)
{
    unsigned i;
    uint64_t prod = 1;
    if (dims[0] == 0) {
        d[0] = n;
        d[1] = d[2] = 1;
        *ndims = 1;
        return dims[1] == 0 && dims[2] == 0 ? 0 : -1;
    }
    *ndims = 1;
    for (i = 0; i < 3; ++i) {
        d[i] = dims[i] ? (uint64_t)dims[i] : 1u;
        if (d[i] > 1) *ndims = i + 1;
        if (prod > UINT64_MAX / d[i]) return -1;
        prod *= d[i];
    }
    return prod == n ? 0 : -1;
}

/* Reads and checks the section of a ratio frame whose header was checked into *info
 * (frame holds info->frame_size bytes). Returns 0, or a static message saying what is
 * wrong. Checks: extents, levels, prob_bits, chunk_log2, nctx, x0, the choice bytes,
 * and that the parts add up to payload_size (the tables, directory and specials are
 * checked by the decoder when it reads them). */
GHZ_HD static inline const char* ghz_ratio_layout(const uint8_t* frame, const ghz_frame_info_t* info,
                                                  ghz_ratio_layout_t* L)
{
    const uint8_t* s = frame + GHZ_HEADER_SIZE;
    const uint64_t end = GHZ_HEADER_SIZE + info->payload_size;
    uint64_t prod = 1, off, room;
    unsigned i;
    if (info->payload_size < GHZ_RATIO_SECTION) return "payload shorter than the ratio section";
    L->ndims = frame[10];
    for (i = 0; i < 3; ++i) {
        L->d[i] = ghz_load_le(s + 8 * i, 8);
        if (L->d[i] == 0) return "an extent is 0";
        if (i >= L->ndims && L->d[i] != 1) return "an extent past ndims is not 1";
        if (prod > UINT64_MAX / L->d[i]) return "extents overflow";
        prod *= L->d[i];
    }
    if (prod != info->n) return "extents do not multiply to n";
    L->levels = s[24];
    if (L->levels != ghz_ratio_levels(L->d[0], L->d[1], L->d[2])) return "levels does not match the extents";
    if (s[25] != GHZ_RATIO_PROB_BITS) return "prob_bits is not 12";
    L->chunk_log2 = s[26];
    L->spread = frame[13]; /* both checked with the header */
    L->shrink = frame[14];
    if (L->chunk_log2 < GHZ_RATIO_CHUNK_LOG2_MIN || L->chunk_log2 > GHZ_RATIO_CHUNK_LOG2_MAX)
        return "chunk_log2 out of range";
    if (s[27] != GHZ_RATIO_NCTX) return "nctx is not 8";
    L->table_bytes = ghz_load_le(s + 28, 4);
    L->n_outliers = ghz_load_le(s + 32, 8);
    L->chunk_bytes = ghz_load_le(s + 40, 8);
    L->special_bytes = ghz_load_le(s + 48, 8);
    L->x0 = ghz_load_le(s + 56, 8);
    {
        const int f32 = info->dtype == GHZ_F32;
        uint64_t e = f32 ? (L->x0 >> 23) & 0xFFu : (L->x0 >> 52) & 0x7FFu;
        if ((f32 && (L->x0 >> 32) != 0) || e == (f32 ? 0xFFu : 0x7FFu)) return "x0 is not a finite value";
    }
    off = GHZ_HEADER_SIZE + GHZ_RATIO_SECTION;
    L->off_choices = off;
    if (3u * L->levels > end - off) return "choices exceed the payload";
    off += 3u * L->levels;
    {
        /* chunks are cut per pass: their count follows from the passes' sizes */
        unsigned l, q, order[3];
        L->n_chunks = L->dir_bytes = 0;
        for (l = L->levels; l >= 1; --l) {
            if (ghz_ratio_level_order(L->d, l, frame + L->off_choices + 3u * (L->levels - l), order) != 0)
                return "a level's choice bytes are not valid";
            for (q = 0; q < 3; ++q) {
                const uint64_t pts = ghz_ratio_pass(L->d, l, order, q).points;
                const unsigned lg = ghz_ratio_pass_chunk_log2(pts, L->chunk_log2, L->spread, L->shrink);
                const uint64_t cs = (uint64_t)1 << lg, full = pts >> lg, rest = pts & (cs - 1);
                L->n_chunks += full + (rest != 0);
                L->dir_bytes += full * ghz_ratio_dir_entry(cs, L->shrink) +
                                (rest ? ghz_ratio_dir_entry(rest, L->shrink) : 0);
            }
        }
    }
    L->off_table = off;
    if (L->table_bytes > end - off) return "tables exceed the payload";
    off += L->table_bytes;
    L->off_dir = off;
    room = end - off;
    if (L->dir_bytes > room) return "directory exceeds the payload";
    off += L->dir_bytes;
    L->off_chunks = off;
    room = end - off;
    if (L->chunk_bytes > room) return "chunks exceed the payload";
    off += L->chunk_bytes;
    L->off_outliers = off;
    room = end - off;
    if (L->n_outliers > room / (info->dtype == GHZ_F32 ? 4u : 8u)) return "outliers exceed the payload";
    off += L->n_outliers * (info->dtype == GHZ_F32 ? 4u : 8u);
    L->off_specials = off;
    if (L->special_bytes != end - off) return "parts do not add up to payload_size";
    L->end = end;
    return 0;
}

/* Reads a canonical LEB128 varint from p[*pos..lim): returns 0, or -1 when it is cut
 * short, longer than 10 bytes, beyond 64 bits or not minimal. */
GHZ_HD static inline int ghz_varint_get(const uint8_t* p, uint64_t lim, uint64_t* pos, uint64_t* v)
{
    uint64_t x = 0;
    unsigned i;
    for (i = 0; i < 10; ++i) {
        uint8_t b;
        if (*pos >= lim) return -1;
        b = p[(*pos)++];
        if (i == 9 && b > 1) return -1;
        x |= (uint64_t)(b & 0x7Fu) << (7 * i);
        if (!(b & 0x80u)) {
            if (i > 0 && b == 0) return -1;
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* Bytes of the varint of v. */
GHZ_HD static inline unsigned ghz_varint_len(uint64_t v)
{
    unsigned n = 1;
    while (v >= 0x80u) {
        v >>= 7;
        ++n;
    }
    return n;
}

GHZ_HD static inline unsigned ghz_varint_put(uint8_t* p, uint64_t v)
{
    unsigned n = 0;
    while (v >= 0x80u) {
        p[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Writes the header of a ratio frame (FORMAT.md's, with RATIO.md's differences). */
GHZ_HD static inline void ghz_ratio_header_pack(uint8_t* dst, const ghz_frame_info_t* info,
                                                unsigned ndims, unsigned spread, unsigned shrink)
{
    ghz_header_pack(dst, info);
    ghz_store_le(dst + 4, GHZ_RATIO_VERSION, 2);
    dst[10] = (uint8_t)ndims;
    dst[12] = (uint8_t)GHZ_HDR_CODEC_RATIO;
    dst[13] = (uint8_t)spread;
    dst[14] = (uint8_t)shrink;
    ghz_store_le(dst + 24, 0, 8);
}

#endif
