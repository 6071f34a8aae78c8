/* ghz/homo/engine.c: the CPU reference of ghz/homo (HOMO.md). One block of every
 * input at a time: the integer path where HOMO.md proves it equals DOC, else the
 * float path through the codec's own block decoder and encoder. */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "ghz/codec/detail/encode.h"
#include "ghz/codec/detail/frame.h"
#include "ghz/detail/error.h"
#include "ghz/homo/detail/engine.h"
#include "ghz/homo/detail/homo_block.h"

/* One input's place in the current frame. */
typedef struct {
    ghz_frame_info_t info;
    const uint8_t* codes;
    const uint8_t* p; /* payload of the current block */
    size_t pos;       /* offset of the current frame in the input */
} in_state;

/* What every block of one frame is combined with. */
typedef struct {
    const ghz_homo_job* job;
    size_t k;
    ghz_enc_params e;
    int int_ok;    /* Q is in the safe range: the integer path may be tried */
    int has_qfill; /* the fill value is quantizable, to qfill */
    int32_t qfill;
} frame_ctx;

enum { PATH_FLOAT = 0, PATH_DONE = 1, PATH_CORRUPT = -1 };

static int is_unary(int op)
{
    return op == GHZ_HOP_NEG || op == GHZ_HOP_MUL;
}

/* The integer path for block b (m values). Returns PATH_DONE with the code in *code and
 * the payload in tmp, PATH_FLOAT when the block must take the float path, or
 * PATH_CORRUPT with *bad the input whose block is not canonical. */
static int int_path(const frame_ctx* c, const in_state* s, uint64_t b, unsigned m, uint8_t* tmp,
                    unsigned* code, uint32_t* size, size_t* bad)
{
    const int op = c->job->op;
    const int32_t f = c->job->factor;
    const uint32_t used = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u);
    ghz_homo_acc_t acc[32];
    ghz_block_facts_t fx;
    int32_t q[32], qo[32];
    uint32_t a[32], sign, fm = 0, imask;
    unsigned j;
    size_t in;

    for (in = 0; in < c->k; ++in) {
        const unsigned ci = s[in].codes[b];
        if (ci == GHZ_CODE_FILLED) {
            imask = used;
            for (j = 0; j < m; ++j) q[j] = 0;
        } else if ((ci & GHZ_CODE_W_MASK) == GHZ_CODE_W_SPECIAL) {
            return PATH_FLOAT; /* RAW or CONST: DOC's floats decide */
        } else if (ghz_quant_decode(s[in].p, ci, m, q, &imask) != 0) {
            *bad = in;
            return PATH_CORRUPT;
        }
        for (j = 0; j < m; ++j) {
            /* a decoded input equal to the fill value is fill for DOC (HOMO.md, Fill
             * collisions): only the float path can tell */
            if (!(imask >> j & 1u) && c->has_qfill && q[j] == c->qfill) return PATH_FLOAT;
            if (in == 0)
                acc[j] = ghz_homo_acc_first(op, q[j], f);
            else
                ghz_homo_acc_next(op, &acc[j], q[j]);
        }
        fm |= imask;
    }
    for (j = 0; j < m; ++j) {
        if (fm >> j & 1u) continue;
        if (!ghz_homo_acc_exact(op, &acc[j], c->k, f, c->e.z.is_f32)) return PATH_FLOAT;
        if (c->has_qfill && acc[j].q == c->qfill) return PATH_FLOAT;
        qo[j] = (int32_t)acc[j].q;
    }
    /* the encoder's own finish: FORMAT.md's fill-in rule, w, q0, the kind, and the
     * deltas that ghz_quant_emit writes */
    ghz_facts_begin(&fx, m);
    fx.fmask = fm;
    *code = ghz_facts_finish_deltas(&fx, qo, c->e.has_fill, c->e.elem, size, a, &sign);
    if (*code == GHZ_CODE_RAW) return PATH_FLOAT; /* RAW stores DOC's floats */
    if (*code != GHZ_CODE_FILLED) ghz_quant_emit(fx.q0, a, sign, fx.w, fm, tmp);
    return PATH_DONE;
}

static uint64_t get_bits(const uint8_t* v, unsigned elem, unsigned j)
{
    return ghz_load_le(v + (size_t)j * elem, elem);
}

static void set_bits(uint8_t* v, unsigned elem, unsigned j, uint64_t bits)
{
    ghz_store_le(v + (size_t)j * elem, bits, elem);
}

static uint64_t apply(const frame_ctx* c, uint64_t a, uint64_t x)
{
    if (c->e.elem == 4u)
        return ghz_homo_apply32(c->job->op, (uint32_t)a, (uint32_t)x, c->job->factor);
    return ghz_homo_apply64(c->job->op, a, x, c->job->factor);
}

/* The float path: DOC on one block (HOMO.md, Float path). Returns PATH_DONE or
 * PATH_CORRUPT (*bad = the input). */
static int float_path(const frame_ctx* c, const in_state* s, uint64_t b, unsigned m, uint8_t* tmp,
                      unsigned* code, uint32_t* size, size_t* bad)
{
    const unsigned elem = c->e.elem;
    uint8_t acc[GHZ_BLOCK_MAX_BYTES], x[GHZ_BLOCK_MAX_BYTES];
    uint32_t fm = 0;
    unsigned j;
    size_t in;
    for (in = 0; in < c->k; ++in) {
        uint8_t* v = in == 0 ? acc : x;
        if (ghz_decode_block(&c->e, s[in].codes[b], m, s[in].p, v) != 0) {
            *bad = in;
            return PATH_CORRUPT;
        }
        for (j = 0; j < m; ++j) {
            uint64_t bits = get_bits(v, elem, j);
            if (c->e.has_fill && bits == c->e.fill_bits) fm |= 1u << j;
            if (in == 0 && is_unary(c->job->op))
                set_bits(acc, elem, j, apply(c, bits, 0));
            else if (in > 0)
                set_bits(acc, elem, j, apply(c, get_bits(acc, elem, j), bits));
        }
    }
    for (j = 0; j < m; ++j)
        if (fm >> j & 1u) set_bits(acc, elem, j, c->e.fill_bits);
    *code = ghz_encode_block(&c->e, acc, m, tmp, size);
    return PATH_DONE;
}

static const char* const field_names[] = {"element count", "dtype", "quantum eb_abs",
                                          "fill flag", "fill value"};

/* Which field of frame a differs from frame b (an index into field_names), or -1. */
static int frame_mismatch(const ghz_frame_info_t* a, const ghz_frame_info_t* b)
{
    if (a->n != b->n) return 0;
    if (a->dtype != b->dtype) return 1;
    if (ghz_f64_bits(a->eb_abs) != ghz_f64_bits(b->eb_abs)) return 2;
    if (a->has_fill != b->has_fill) return 3;
    if (a->fill_bits != b->fill_bits) return 4;
    return -1;
}

/* Reads and validates frame `frame` of every input (headers, codes, agreement). */
static ghz_status_t open_frames(size_t k, const uint8_t* const* in, const size_t* in_size,
                                in_state* s, uint64_t frame)
{
    size_t i;
    for (i = 0; i < k; ++i) {
        ghz_status_t st;
        int why, hdr_ok;
        if (s[i].pos >= in_size[i])
            return ghz_fail(GHZ_ERR_MISMATCH, "input %zu has %llu frames, input 0 has more", i,
                            (unsigned long long)frame);
        st = ghz_header_read(in[i] + s[i].pos, in_size[i] - s[i].pos, &s[i].info);
        hdr_ok = st == GHZ_SUCCESS;
        if (st == GHZ_SUCCESS)
            st = ghz_codes_check(in[i] + s[i].pos + GHZ_HEADER_SIZE, &s[i].info, NULL, 1);
        if (st == GHZ_SUCCESS) st = ghz_checksum_check(in[i] + s[i].pos, &s[i].info);
        if (st != GHZ_SUCCESS) {
            char why_s[200];
            strncpy(why_s, ghz_last_error_detail(), sizeof why_s - 1);
            why_s[sizeof why_s - 1] = '\0';
            /* the frame is named only when the input holds others (a caller that
             * passes one frame at a time, as ghz-cli does, names it itself) */
            if (frame == 0 && hdr_ok && s[i].info.frame_size == in_size[i] - s[i].pos)
                return ghz_fail(st, "input %zu: %s", i, why_s);
            return ghz_fail(st, "input %zu, frame %llu: %s", i, (unsigned long long)frame, why_s);
        }
        why = frame_mismatch(&s[i].info, &s[0].info);
        if (why == 2)
            return ghz_fail(GHZ_ERR_MISMATCH,
                            "input %zu, frame %llu: quantum eb_abs %.17g differs from input 0's "
                            "%.17g; operands need one quantum: compress them with ABS and the "
                            "same bound (REL gives each array its own eb_abs)",
                            i, (unsigned long long)frame, s[i].info.eb_abs, s[0].info.eb_abs);
        if (why == 3 && (s[i].info.has_fill ? &s[i] : &s[0])->info.fill_bits ==
                            ghz_nan_fill_bits(s[0].info.dtype))
            /* HOMO.md, Operands must match: a frame of 0.2 without a fill against one
             * written without a declared fill since (NaN its fill) */
            return ghz_fail(GHZ_ERR_MISMATCH,
                            "input %zu, frame %llu: fill flag differs from input 0's: input %zu "
                            "was written without a fill value by ghz 0.2, input %zu declares NaN "
                            "(every frame written without a fill since 0.3 does); decompress the "
                            "0.2 stream and compress it again",
                            i, (unsigned long long)frame, s[i].info.has_fill ? (size_t)0 : i,
                            s[i].info.has_fill ? i : (size_t)0);
        if (why >= 0)
            return ghz_fail(GHZ_ERR_MISMATCH, "input %zu, frame %llu: %s differs from input 0's",
                            i, (unsigned long long)frame, field_names[why]);
    }
    return GHZ_SUCCESS;
}

static void make_ctx(frame_ctx* c, const ghz_frame_info_t* info)
{
    c->e.dtype = info->dtype;
    c->e.elem = (unsigned)ghz_float_size(info->dtype);
    c->e.has_fill = info->has_fill;
    c->e.fill_bits = info->fill_bits;
    c->e.z = ghz_quantizer_make(info->eb_abs, info->dtype == GHZ_F32);
    c->int_ok = info->eb_abs > 0.0 && ghz_homo_q_safe(c->e.z.q, c->e.z.is_f32);
    c->has_qfill = 0;
    c->qfill = 0;
    if (c->int_ok && info->has_fill) {
        double fv;
        if (info->dtype == GHZ_F32) {
            uint32_t u = (uint32_t)info->fill_bits;
            float ff;
            memcpy(&ff, &u, 4);
            fv = ff;
        } else {
            fv = ghz_bits_f64(info->fill_bits);
        }
        c->has_qfill = ghz_quantize(&c->e.z, fv, &c->qfill);
    }
}

/* Combines the opened frames into out + opos; *frame_out receives its size. */
static ghz_status_t combine_frame(frame_ctx* c, in_state* s, uint64_t frame, uint8_t* out,
                                  size_t out_cap, size_t opos, size_t* frame_out)
{
    const ghz_frame_info_t* info = &s[0].info;
    const uint64_t nb = info->n_blocks, cb = ghz_codes_bytes(nb);
    uint8_t tmp[GHZ_BLOCK_MAX_BYTES];
    uint8_t* ocodes = out + opos + GHZ_HEADER_SIZE;
    ghz_frame_info_t oi;
    size_t ooff = opos + GHZ_HEADER_SIZE + (size_t)cb, i;
    uint64_t b;

    for (b = 0; b < nb; ++b) {
        const unsigned m = ghz_block_len(info->n, b);
        unsigned code = 0;
        uint32_t size = 0;
        size_t bad = 0;
        int r = c->int_ok ? int_path(c, s, b, m, tmp, &code, &size, &bad) : PATH_FLOAT;
        if (r == PATH_FLOAT) r = float_path(c, s, b, m, tmp, &code, &size, &bad);
        if (r == PATH_CORRUPT)
            return ghz_fail(GHZ_ERR_CORRUPT, "input %zu, frame %llu: block %llu (code 0x%02x) is "
                            "not a valid block", bad, (unsigned long long)frame,
                            (unsigned long long)b, s[bad].codes[b]);
        if (size > out_cap - ooff)
            return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "output capacity %zu too small (frame %llu); "
                            "ghz_homo_bound gives what always suffices", out_cap,
                            (unsigned long long)frame);
        /* every input block b was read above: writing over it (in place) is safe */
        memcpy(out + ooff, tmp, size);
        ocodes[b] = (uint8_t)code;
        ooff += size;
        for (i = 0; i < c->k; ++i)
            s[i].p += ghz_block_size(s[i].codes[b], m, c->e.elem, c->e.has_fill);
    }
    memset(ocodes + nb, 0, (size_t)(cb - nb));
    oi = *info;
    oi.has_checksum = 0; /* as DOC's recompression with default parameters writes it */
    oi.eb_mode = info->eb_abs > 0.0 ? GHZ_EB_ABS : GHZ_EB_REL;
    oi.eb_user = info->eb_abs > 0.0 ? info->eb_abs : info->eb_user;
    oi.payload_size = ooff - opos - GHZ_HEADER_SIZE - cb;
    ghz_header_write(out + opos, &oi);
    *frame_out = ooff - opos;
    return GHZ_SUCCESS;
}

/* Inputs whose state lives on the stack: the collectives' n-ary sums (at most 64 ranks
 * per sum) and every binary operation then run without touching the heap. */
enum { STACK_INPUTS = 64 };

ghz_status_t ghz_homo_run(const ghz_homo_job* job, size_t k, const uint8_t* const* in,
                          const size_t* in_size, uint8_t* out, size_t out_cap, size_t* out_size)
{
    in_state stack_s[STACK_INPUTS];
    in_state* s = k <= STACK_INPUTS ? stack_s : (in_state*)calloc(k, sizeof *s);
    uint8_t* codes0 = NULL; /* input 0's codes of the current frame, copied aside */
    size_t codes0_cap = 0, opos = 0, i;
    uint64_t frame = 0;
    ghz_status_t st = GHZ_SUCCESS;
    /* Only an output written over input 0 (in place) can overwrite code bytes still to
     * be read: otherwise they are read where they are, with no copy and no allocation. */
    const uintptr_t o = (uintptr_t)out, i0 = (uintptr_t)in[0];
    const int aliased = o < i0 + in_size[0] && i0 < o + out_cap;
    frame_ctx c;

    if (!s) return ghz_fail(GHZ_ERR_NOMEM, "state of %zu inputs", k);
    if (s == stack_s) memset(stack_s, 0, k * sizeof *s);
    if (in_size[0] == 0) st = ghz_fail(GHZ_ERR_TRUNCATED, "input 0 is empty: no frame");
    while (st == GHZ_SUCCESS && s[0].pos < in_size[0]) {
        const ghz_frame_info_t* info = &s[0].info;
        uint64_t cb;
        size_t fsize = 0;
        if ((st = open_frames(k, in, in_size, s, frame)) != GHZ_SUCCESS) break;
        cb = ghz_codes_bytes(info->n_blocks);
        if (aliased && cb > codes0_cap) {
            uint8_t* nc = (uint8_t*)realloc(codes0, (size_t)cb);
            if (!nc) {
                st = ghz_fail(GHZ_ERR_NOMEM, "%llu code bytes", (unsigned long long)cb);
                break;
            }
            codes0 = nc;
            codes0_cap = (size_t)cb;
        }
        /* An empty frame has no code bytes, and codes0 may still be NULL: memcpy
         * must not see a NULL pointer even for 0 bytes (C11 7.24.1). */
        if (aliased && cb) memcpy(codes0, in[0] + s[0].pos + GHZ_HEADER_SIZE, (size_t)cb);
        for (i = 0; i < k; ++i) {
            s[i].codes = i == 0 && aliased ? codes0 : in[i] + s[i].pos + GHZ_HEADER_SIZE;
            s[i].p = in[i] + s[i].pos + GHZ_HEADER_SIZE + cb;
        }
        if (out_cap < opos || GHZ_HEADER_SIZE + cb > out_cap - opos) {
            st = ghz_fail(GHZ_ERR_DST_TOO_SMALL, "output capacity %zu too small (frame %llu)",
                          out_cap, (unsigned long long)frame);
            break;
        }
        c.job = job;
        c.k = k;
        make_ctx(&c, info);
        if ((st = combine_frame(&c, s, frame, out, out_cap, opos, &fsize)) != GHZ_SUCCESS) break;
        opos += fsize;
        for (i = 0; i < k; ++i) s[i].pos += (size_t)s[i].info.frame_size;
        frame++;
    }
    for (i = 1; st == GHZ_SUCCESS && i < k; ++i)
        if (s[i].pos < in_size[i])
            st = ghz_fail(GHZ_ERR_MISMATCH, "input %zu has more frames than input 0 (%llu)", i,
                          (unsigned long long)frame);
    if (st == GHZ_SUCCESS) *out_size = opos;
    free(codes0);
    if (s != stack_s) free(s);
    return st;
}
