/* ghz/codec/warp.cuh: warp-cooperative block codec for CUDA kernels, one lane per
 * value. Every function must be called by all 32 lanes of a warp (full mask) with
 * warp-uniform block arguments. They produce exactly the bytes of the one-thread
 * reference in block.h (FORMAT.md), so users can compress from their own kernels'
 * registers or decode inside their own kernels (test/gpu/warp_kernels.cu does). The
 * library's kernels use one thread per block instead (ghz/codec/cuda/), which costs
 * fewer instructions per block than a lane per value.
 *
 * Shape: lane i holds value i of the block. Bit planes come from __ballot_sync, the
 * delta width from a warp OR-reduction, the fill-in of fill positions from a ballot
 * and one shuffle, and decoding's prefix sum from shuffles. */
#ifndef GHZ_CODEC_WARP_CUH
#define GHZ_CODEC_WARP_CUH

/* Advanced tier (docs/API.md): device building blocks, no stability promise. */
#if !defined(GHZ_ADVANCED)
#error "ghz/codec/warp.cuh is ghz's advanced tier (no stability promise): #define GHZ_ADVANCED before including it"
#endif

#include "ghz/codec/block.h"

#define GHZ_FULL_MASK 0xFFFFFFFFu

/* What analysis decided for one block; code, size and fmask are warp-uniform. */
typedef struct {
    unsigned code;  /* the code byte */
    unsigned size;  /* payload bytes */
    uint32_t fmask; /* fill positions (QUANT blocks) */
    int32_t q;      /* this lane's integer after the fill-in rule (QUANT blocks) */
} ghz_warp_block_t;

static __device__ __forceinline__ unsigned ghz_lane_id(void)
{
    return threadIdx.x & 31u;
}

/* Unaligned little-endian 32-bit load from shared or global memory, as two aligned
 * loads and a funnel shift. The aligned words read may extend up to 3 bytes past
 * p + 4: callers keep that much slack in their buffers. */
static __device__ __forceinline__ uint32_t ghz_load_u32_unaligned(const uint8_t* p)
{
    /* pointer arithmetic, not an integer round trip, so that a shared-memory pointer
     * stays one and the loads are LDS rather than generic loads */
    const unsigned mis = (unsigned)((uintptr_t)p & 3u);
    const uint32_t* w = (const uint32_t*)(p - mis);
    return mis ? __funnelshift_r(w[0], w[1], mis * 8u) : w[0];
}

/* Quantizes this lane's value (bit pattern `bits` of an elem-byte dtype): for f32 the
 * float shortcut where it can prove the answer, else the exact binary64 procedure. */
static __device__ __forceinline__ int ghz_warp_quantize(const ghz_quantizer_t* z, uint64_t bits,
                                                        unsigned elem, int32_t* q)
{
    if (elem == 4u) {
        const float xf = __uint_as_float((uint32_t)bits);
        if (z->fast && ghz_quantize_f32_fast(z, xf, q) > 0) return 1;
        return ghz_quantize(z, (double)xf, q);
    }
    return ghz_quantize(z, __longlong_as_double((long long)bits), q);
}

/* Transposes the 32x32 bit matrix whose row r is lane r's word: afterwards lane i
 * holds column i (bit k of it = bit i of row k). Five butterfly stages of a shuffle
 * and a few logic operations, whatever the number of non-zero rows: cheaper than one
 * ballot (encode) or shuffle (decode) per bit plane once there are more than a few. */
static __device__ __forceinline__ uint32_t ghz_warp_transpose32(uint32_t x)
{
    const unsigned lane = ghz_lane_id();
    const uint32_t masks[5] = {0x0000FFFFu, 0x00FF00FFu, 0x0F0F0F0Fu, 0x33333333u, 0x55555555u};
#pragma unroll
    for (int i = 0; i < 5; ++i) {
        const unsigned s = 16u >> i;
        const uint32_t m = masks[i];
        const uint32_t y = __shfl_xor_sync(GHZ_FULL_MASK, x, s);
        x = (lane & s) ? (x & ~m) | ((y & ~m) >> s) : (x & m) | ((y & m) << s);
    }
    return x;
}

/* The QUANT half of FORMAT.md's choice, from integers: lane i brings its q (used only
 * where vmask has i and fmask does not). Applies the fill-in rule, finds the width and
 * class, and returns 1 with *r filled when the QUANT payload fits in RAW's m*elem
 * bytes; 0 otherwise (the block is RAW). Used by ghz_warp_analyze, and callable by a
 * user's kernel that computes the integers itself. */
static __device__ __forceinline__ int ghz_warp_quant_choose(int32_t q, uint32_t vmask, uint32_t fmask,
                                                            unsigned elem, ghz_warp_block_t* r)
{
    const unsigned lane = ghz_lane_id();
    const unsigned m = __popc(vmask);
    int32_t qf = q;
    if (vmask != GHZ_FULL_MASK || fmask) {
        /* Fill positions and positions >= m take the q of the nearest non-fill
         * lane below them, leading ones the first non-fill lane's. */
        const uint32_t nonfill = vmask & ~fmask;
        const uint32_t below = nonfill & (GHZ_FULL_MASK >> (31u - lane));
        qf = __shfl_sync(GHZ_FULL_MASK, q, below ? 31 - __clz(below) : __ffs(nonfill) - 1);
    }
    const int32_t prev = __shfl_up_sync(GHZ_FULL_MASK, qf, 1);
    const int32_t d = lane ? qf - prev : 0;
    const uint32_t any = __reduce_or_sync(GHZ_FULL_MASK, (uint32_t)(d < 0 ? -d : d));
    const unsigned w = 32u - __clz(any);
    const unsigned cls = ghz_q0_class(ghz_zigzag(__shfl_sync(GHZ_FULL_MASK, qf, 0)));
    const unsigned size = ghz_quant_size(w, cls, fmask != 0);
    if (size > m * elem) return 0;
    r->code = ghz_code_quant(w, cls, fmask != 0);
    r->size = size;
    r->fmask = fmask;
    r->q = qf;
    return 1;
}

/* Analyses one block: lane i brings its value's bit pattern in the dtype and whether
 * it exists (i < m). Implements FORMAT.md's choice of kind. */
static __device__ __forceinline__ ghz_warp_block_t ghz_warp_analyze(const ghz_quantizer_t* z,
                                                                   uint64_t bits, int valid,
                                                                   int has_fill,
                                                                   uint64_t fill_bits,
                                                                   unsigned elem)
{
    const uint32_t vmask = __ballot_sync(GHZ_FULL_MASK, valid);
    const int isfill = valid && has_fill && bits == fill_bits;
    const uint32_t fmask = __ballot_sync(GHZ_FULL_MASK, isfill);
    const unsigned m = __popc(vmask);
    ghz_warp_block_t r;
    int32_t q = 0;
    r.fmask = 0;
    r.q = 0;
    if (has_fill && fmask == vmask) {
        r.code = GHZ_CODE_FILLED;
        r.size = 0;
        return r;
    }
    if (__all_sync(GHZ_FULL_MASK, !valid || isfill || ghz_warp_quantize(z, bits, elem, &q))) {
        if (ghz_warp_quant_choose(q, vmask, fmask, elem, &r)) return r;
    } else {
        const uint64_t b0 = __shfl_sync(GHZ_FULL_MASK, bits, 0);
        if (__all_sync(GHZ_FULL_MASK, !valid || bits == b0)) {
            r.code = GHZ_CODE_CONST;
            r.size = elem;
            return r;
        }
    }
    r.code = GHZ_CODE_RAW;
    r.size = m * elem;
    return r;
}

/* Writes the payload of an analysed block at out (any byte address; b->size bytes).
 * bits is this lane's value's bit pattern. */
static __device__ __forceinline__ void ghz_warp_emit(const ghz_warp_block_t* b, uint64_t bits,
                                                     unsigned elem, uint8_t* out)
{
    const unsigned lane = ghz_lane_id();
    unsigned w, nb, k;
    int32_t prev, d;
    uint32_t mag, mine;
    if (b->code == GHZ_CODE_FILLED) return;
    if (b->code == GHZ_CODE_CONST) {
        if (lane == 0) ghz_store_le(out, bits, elem);
        return;
    }
    if (b->code == GHZ_CODE_RAW) {
        if (lane * elem < b->size) ghz_store_le(out + lane * elem, bits, elem);
        return;
    }
    w = b->code & GHZ_CODE_W_MASK;
    nb = ghz_q0_bytes((b->code >> 5) & 3u);
    prev = __shfl_up_sync(GHZ_FULL_MASK, b->q, 1);
    d = lane ? b->q - prev : 0;
    mag = (uint32_t)(d < 0 ? -d : d);
    mine = __ballot_sync(GHZ_FULL_MASK, d < 0); /* lane 0 writes the sign plane */
    if (b->fmask) {
        if (lane == 0) ghz_store_le(out, b->fmask, 4);
        out += 4;
    }
    if (lane == 0) ghz_store_le(out, ghz_zigzag(b->q), nb);
    out += nb;
    if (w <= 4u) {
        for (k = 0; k < w; ++k) {
            uint32_t plane = __ballot_sync(GHZ_FULL_MASK, (mag >> k) & 1u);
            if (lane == k + 1) mine = plane; /* lane k+1 writes plane k */
        }
    } else {
        /* lane k gets plane k (column k of the magnitudes); lane k+1 writes it */
        const uint32_t plane = __shfl_up_sync(GHZ_FULL_MASK, ghz_warp_transpose32(mag), 1);
        if (lane) mine = plane;
    }
    if (w && lane <= w) ghz_store_le(out + 4u * lane, mine, 4);
}

/* Decodes one block of m values with this code byte from p (its size in bytes as
 * ghz_block_size gives, plus 3 readable bytes of slack), giving this lane's value's
 * bit pattern in *bits (lanes >= m get 0), its integer in *qo (QUANT blocks; 0
 * otherwise) and the block's fill mask in *mo (QUANT: the stored mask; FILLED: all m
 * positions; RAW/CONST: 0). Returns nonzero (warp-uniform) when the block is valid and
 * canonical, as ghz_quant_decode checks it. */
static __device__ __forceinline__ int ghz_warp_decode_q(const ghz_quantizer_t* z, unsigned code,
                                                        unsigned m, const uint8_t* p,
                                                        uint64_t fill_bits, unsigned elem,
                                                        uint64_t* bits, int32_t* qo, uint32_t* mo)
{
    const unsigned lane = ghz_lane_id();
    const uint32_t used = m >= 32u ? GHZ_FULL_MASK : ((1u << m) - 1u);
    unsigned w, cls, k;
    uint32_t mask = 0, zz, sign = 0, orbits = 0, top = 0, mag = 0, s, v;
    int ok;
    *qo = 0;
    *mo = 0;
    if (code == GHZ_CODE_RAW) {
        *bits = lane < m ? ghz_load_le(p + lane * elem, elem) : 0;
        return 1;
    }
    if (code == GHZ_CODE_CONST) {
        *bits = lane < m ? ghz_load_le(p, elem) : 0;
        return 1;
    }
    if (code == GHZ_CODE_FILLED) {
        *bits = lane < m ? fill_bits : 0;
        *mo = used;
        return 1;
    }
    w = code & GHZ_CODE_W_MASK;
    cls = (code >> 5) & 3u;
    if (code & GHZ_CODE_FILL_BIT) {
        mask = ghz_load_u32_unaligned(p);
        p += 4;
    }
    zz = (uint32_t)ghz_load_le(p, ghz_q0_bytes(cls));
    p += ghz_q0_bytes(cls);
    ok = ghz_q0_class(zz) == cls;
    if (code & GHZ_CODE_FILL_BIT) ok = ok && mask != 0 && !(mask & ~used) && mask != used;
    if (w) {
        /* lane k loads plane k; a bit transpose gives lane i its magnitude */
        const uint32_t plane = lane < w ? ghz_load_u32_unaligned(p + 4u + 4u * lane) : 0u;
        sign = ghz_load_u32_unaligned(p);
        orbits = __reduce_or_sync(GHZ_FULL_MASK, plane);
        top = __shfl_sync(GHZ_FULL_MASK, plane, w - 1u);
        mag = ghz_warp_transpose32(plane);
        ok = ok && !((orbits | sign) & (~used | 1u | mask)) && !(sign & ~orbits) && top != 0;
    }
    /* inclusive prefix sum of the deltas (wrapping: a first out-of-range q is exact,
     * since |q_{i-1}| <= QMAX and |d_i| < 2^30, and is caught below) */
    s = (sign >> lane) & 1u ? 0u - mag : mag;
    for (k = 1; k < 32; k <<= 1) {
        uint32_t t = __shfl_up_sync(GHZ_FULL_MASK, s, k);
        if (lane >= k) s += t;
    }
    v = (uint32_t)ghz_unzigzag(zz) + s;
    {
        const int32_t q = (int32_t)v;
        const int inrange = lane >= m || (q <= GHZ_QMAX && q >= -GHZ_QMAX);
        ok = __all_sync(GHZ_FULL_MASK, inrange) && ok;
        *qo = q;
        *mo = mask;
        if (lane >= m)
            *bits = 0;
        else if ((mask >> lane) & 1u)
            *bits = fill_bits;
        else if (elem == 4u)
            *bits = (uint64_t)__float_as_uint(GHZ_TO_F32(GHZ_DMUL((double)q, z->q)));
        else
            *bits = (uint64_t)__double_as_longlong(ghz_recon(z, q));
    }
    return ok;
}

/* ghz_warp_decode_q for callers that want the values only. */
static __device__ __forceinline__ int ghz_warp_decode(const ghz_quantizer_t* z, unsigned code,
                                                      unsigned m, const uint8_t* p,
                                                      uint64_t fill_bits, unsigned elem,
                                                      uint64_t* bits)
{
    int32_t q;
    uint32_t mask;
    return ghz_warp_decode_q(z, code, m, p, fill_bits, elem, bits, &q, &mask);
}

#endif
