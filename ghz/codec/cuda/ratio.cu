/* ghz/codec/cuda/ratio.cu: the CUDA writer and reader of ratio frames (RATIO.md), byte
 * for byte the CPU reference's (ratio_compress.c, ratio_decompress.c): every stored
 * byte is decided by ratio.h's and ratio_frame.h's functions, as there.
 *
 * Writer, in stream order, nothing waited for on the host:
 *  1. init: clears the frame's state; REL: the range keys (then compress.cu's range
 *     pass widens them where no range was given).
 *  2. passes, one kernel per step in stream order (the stream orders them where the
 *     CPU's loops end): element 0 (its value goes to the section); per level, the
 *     choices (integer linear and cubic cost sums over a 1/16 sample of the three
 *     candidate first passes: the axis order by the CPU's stable sort in every thread,
 *     and each pass's cubic bit), then the codes and contexts of pass 0 in pass order
 *     with the reconstructions, then those of passes 1 and 2 a box of the level's grid
 *     at a time (enc_tile_kernel). The sums are u64 atomics, so the order of additions
 *     does not matter. The coding kernels count symbols per context (shared-memory
 *     histograms, flushed per CTA) and specials; then eight threads normalize the eight
 *     tables and one fills the pass table (first symbol, chunk and directory byte of
 *     each pass: chunks are cut per pass).
 *  3. rans: one warp per chunk, lane = rANS lane (W of them): the words go to a staging
 *     area (the reconstructions' buffer, free by then), the final states, the
 *     extra-bit and outlier counts to the chunk table.
 *  4. scan: one CTA: chunk byte offsets and outlier bases (exclusive sums), the tables'
 *     bytes, the parts' offsets, whether the frame can fit ghz_compress_bound.
 *  5. write: one warp per chunk: directory entry, words, extra bits (packed again from
 *     the codes), outliers in pass order.
 *  6. specials: one CTA: the specials section; with specials, the three mask
 *     predecessors are costed first (three sweeps) and the cheapest written.
 *  7. finish: header, section, choices, tables, size and status; or the gate that lets
 *     compress.cu's block kernels write a FORMAT.md frame instead (the bound).
 *
 * Reader: decompress.cu's init kernel parses the header and marks ratio frames (its
 * other kernels then leave them alone, the checksum verification aside); then ONE
 * cooperative launch (it leaves at once when the batch holds no ratio frame):
 *  1. CTA 0 parses the section, tables, choices, the pass table and the directory
 *     (chunk byte offsets by an exclusive sum) and writes element 0;
 *  2. per pass, one warp per chunk: each lane forms its element's prediction and
 *     context from the output array (the earlier passes' reconstructions), takes its
 *     rANS step with the context's table (shared memory), the lanes refill from the
 *     chunk's words in lane order (ballot + popc), read their extra bits (warp prefix
 *     sum) and write the reconstructions; outlier symbols are counted per chunk. A
 *     pass with outliers then takes a second barrier: the chunks holding outliers find
 *     their base (the pass's earlier chunks' counts) and decode again, writing only
 *     the outliers. Grid-wide barriers separate the passes;
 *  3. CTA 0 checks the specials section and patches the specials in.
 * No n-sized intermediate array: the output is the working array. */
#include <cooperative_groups.h>
#include <cuda_pipeline.h>
#include <type_traits>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda/functional>

#include "ghz/codec/cuda/host.cuh"
#include "ghz/codec/cuda/kernels.cuh"
#include "ghz/codec/cuda/ratio.cuh"
#include "ghz/codec/detail/header.h"
#include "ghz/codec/detail/ratio_frame.h"
#include "ghz/codec/ratio.h"

namespace cg = cooperative_groups;

namespace ghz {
namespace detail {

namespace {

constexpr unsigned kMaxLevels = 64;            /* 2^L >= extent < 2^64 */
constexpr unsigned kMaxPasses = 3 * kMaxLevels + 1;
constexpr int32_t kOutlierCode = INT32_MIN;    /* a code no accepted k takes (as the CPU's) */
constexpr unsigned kPassThreads = 256;
constexpr unsigned kWarpCtaThreads = 128;      /* the warp-per-chunk kernels' CTAs */
constexpr unsigned kScanThreads = 1024;
constexpr unsigned kScanItems = 4;             /* chunks a thread of the chunk scan */
constexpr uint32_t kLanesAll = 0xFFFFFFFFu;

size_t up256(size_t v)
{
    return (v + 255u) & ~(size_t)255u;
}

/* Steps of a warp-per-chunk loop whose loads are issued together (the rANS state is
 * the only chain from step to step; everything a batch reads is in flight at once). */
constexpr unsigned kBatch = 4;
/* The reader's batches (dec_chunk) and CTAs an SM. f32 with 32-bit indices: batches of
 * two steps, so that the loop fits the 128 registers of two CTAs an SM (spilling a few
 * words), which costs less than a second CTA of warps gains, each warp's steps being
 * one chain of latencies. f64 or 64-bit indices spill two to three times as much
 * there: batches of four, one CTA. */
template <typename T, typename I>
struct dec_cfg {
    static constexpr bool two = sizeof(T) == 4 && sizeof(I) == 4;
    static constexpr unsigned batch = two ? 2u : 4u;
    static constexpr unsigned ctas = two ? 2u : 1u;
};

/* ---- shared helpers ------------------------------------------------------------------ */

template <typename T>
struct bits_of;
template <>
struct bits_of<float> {
    using type = uint32_t;
};
template <>
struct bits_of<double> {
    using type = unsigned long long;
};

/* Value i of src as a double, with its bit pattern (the CPU's ghz_load_value). */
template <typename T>
__device__ __forceinline__ double load_value(const uint8_t* src, uint64_t i, uint64_t* bits)
{
    typedef typename bits_of<T>::type U;
    const U u = ((const U*)src)[i];
    T x;
    memcpy(&x, &u, sizeof x);
    *bits = (uint64_t)u;
    return (double)x;
}

__device__ __forceinline__ bool is_special(double x, uint64_t bits, int has_fill, uint64_t fill_bits)
{
    return !isfinite(x) || (has_fill && bits == fill_bits);
}

/* Coordinates and storage index of point u of a pass (FOR_PASS's order: i fastest). */
__device__ __forceinline__ uint64_t pass_point(const ghz_ratio_pass_t& ps, const uint64_t d[3], uint64_t u,
                                               uint64_t c[3])
{
    uint64_t i0, i1, i2;
    if (ps.points <= 0xFFFFFFFFull) { /* 32-bit divisions where they suffice */
        const uint32_t uu = (uint32_t)u, c0 = (uint32_t)ps.count[0], c1 = (uint32_t)ps.count[1];
        const uint32_t r = uu / c0;
        i0 = uu - r * c0;
        i2 = r / c1;
        i1 = r - (uint32_t)i2 * c1;
    } else {
        const uint64_t r = u / ps.count[0];
        i0 = u - r * ps.count[0];
        i2 = r / ps.count[1];
        i1 = r - i2 * ps.count[1];
    }
    c[0] = ps.first[0] + ps.step[0] * i0;
    c[1] = ps.first[1] + ps.step[1] * i1;
    c[2] = ps.first[2] + ps.step[2] * i2;
    return c[0] + d[0] * (c[1] + d[1] * c[2]);
}

/* The neighbours of a point along its pass's axis (RATIO.md, Prediction): b = x'(t-s),
 * c = x'(t+s), u = x'(t-3s), v = x'(t+3s), which of them exist, loaded from the
 * reconstructions xv (off = s times the axis's stride, ext the axis's extent). Loaded
 * apart from their use, so that a batch of points has all its loads in flight. */
template <typename T>
struct nbrs_t {
    T b, c, u, v;
    bool hc, hu, hv;
};

template <typename T, typename I>
__device__ __forceinline__ void nbrs_load(const T* xv, I idx, I t, I s, I off, I ext, unsigned cubic, nbrs_t<T>& q)
{
    q.hc = t + s < ext;
    q.hu = cubic && q.hc && t >= 3 * s;
    q.hv = cubic && q.hc && t + 3 * s < ext;
    q.b = xv[idx - off];
    q.c = q.hc ? xv[idx + off] : (T)0;
    q.u = q.hu ? xv[idx - 3 * off] : (T)0;
    q.v = q.hv ? xv[idx + 3 * off] : (T)0;
}

/* ratio.h's prediction and context from loaded neighbours (ghz_ratio_predict and
 * ghz_ratio_context, the same arithmetic). */
template <typename T>
__device__ __forceinline__ double nbrs_predict(const nbrs_t<T>& q)
{
    const double b = (double)q.b, c = (double)q.c, u = (double)q.u, v = (double)q.v;
    if (!q.hc) return ghz_ratio_finite(b);
    return q.hu && q.hv ? ghz_ratio_cubic(u, b, c, v)
           : q.hu       ? ghz_ratio_quad_u(u, b, c)
           : q.hv       ? ghz_ratio_quad_v(b, c, v)
                        : ghz_ratio_linear(b, c);
}

template <typename T>
__device__ __forceinline__ unsigned nbrs_context(const nbrs_t<T>& q, double r)
{
    return q.hc ? ghz_ratio_ctx_of((double)q.b, (double)q.c, r) : GHZ_RATIO_NCTX - 1u;
}

/* v[a] of a three-element array by selects, not an index: a variable index would put
 * the array in local memory in every loop that uses it. */
__device__ __forceinline__ uint64_t pick3(const uint64_t v[3], unsigned a)
{
    return a == 0 ? v[0] : a == 1 ? v[1] : v[2];
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v)
{
    for (int k = 16; k; k >>= 1) v += __shfl_xor_sync(kLanesAll, v, k);
    return v;
}

__device__ __forceinline__ unsigned lane_id()
{
    return threadIdx.x & 31u;
}

/* The loops that load a batch ahead keep a batch's loaded data in one of two slots and
 * alternate them: step(i, cur, nxt) works on batch i from cur and loads batch i + 1
 * into nxt, the slot batch i - 1 has finished with. Copying the next batch from one
 * slot to the other instead would wait for its loads on the spot. The caller loads
 * batch 0 into a; a step that returns false ends the loop. The reader's chunks use it;
 * the coding pass and the rANS chunks alternate their slots in loops of their own, the
 * same order written out, which measured 2-4 % faster there. */
template <typename Slot, typename Step>
__device__ __forceinline__ void two_slots(Slot& a, Slot& b, uint64_t batches, Step step)
{
    for (uint64_t i = 0; i < batches; i += 2) {
        if (!step(i, a, b) || i + 1 >= batches) break;
        if (!step(i + 1, b, a)) break;
    }
}

/* Little-endian bytes of v at p (any alignment), when they lie below lim. */
__device__ __forceinline__ void put_le(uint8_t* p, uint64_t at, uint64_t lim, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; ++i)
        if (at + i < lim) p[at + i] = (uint8_t)(v >> (8 * i));
}

__device__ __forceinline__ uint64_t get_le(const uint8_t* p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The order of a level's passes from its three candidates' sums (the CPU's
 * level_order: empty axes first, then decreasing mean cost, ties to the lower axis). */
__device__ __forceinline__ void order_from(const unsigned long long lvl[3][2], const int empty[3], unsigned order[3])
{
    double mean[3];
    for (unsigned a = 0; a < 3; ++a) {
        order[a] = a;
        mean[a] = (!empty[a] && lvl[a][1]) ? (double)lvl[a][0] / (double)lvl[a][1] : 0.0;
    }
    for (unsigned i = 1; i < 3; ++i)
        for (unsigned j = i; j > 0; --j) {
            const unsigned x = order[j - 1], y = order[j];
            const int before = empty[y] > empty[x] || (empty[y] == empty[x] && mean[y] > mean[x]);
            if (!before) break;
            order[j - 1] = y;
            order[j] = x;
        }
}

/* The candidate first pass of axis a at level l (RATIO.md, Writer's choices). */
__device__ __forceinline__ ghz_ratio_pass_t first_pass(const uint64_t d[3], unsigned l, unsigned a)
{
    const unsigned first[3] = {a, a == 0 ? 1u : 0u, a == 2 ? 1u : 2u};
    return ghz_ratio_pass(d, l, first, 0);
}

/* ---- the pass table (RATIO.md, Chunks: chunks are cut per pass) ---------------------- */

/* Pass P (0-based, pass order) of an array of L levels: its geometry and cubic bit from
 * the choice bytes. */
__device__ __forceinline__ ghz_ratio_pass_t pass_at(const uint64_t d[3], unsigned L, const uint8_t* choices,
                                                    unsigned P, unsigned* cubic)
{
    const unsigned l = L - P / 3u, q = P % 3u;
    const uint8_t* ch = choices + 3u * (L - l);
    const unsigned order[3] = {(unsigned)ch[0] >> 1, (unsigned)ch[1] >> 1, (unsigned)ch[2] >> 1};
    *cubic = ch[q] & 1u;
    return ghz_ratio_pass(d, l, order, q);
}

/* First symbol, first chunk and first directory byte (from the directory's start) of
 * every pass, then the totals at [3L]; plog: log2 of each pass's chunk size. */
__device__ inline void pass_table(const uint64_t d[3], unsigned L, const uint8_t* choices, unsigned chunk_log2,
                                  unsigned spread, unsigned shrink, uint64_t* pstart, uint64_t* cstart,
                                  uint64_t* dstart, uint8_t* plog)
{
    uint64_t ps = 0, cc = 0, db = 0;
    for (unsigned P = 0; P < 3u * L; ++P) {
        unsigned cubic;
        const uint64_t pts = pass_at(d, L, choices, P, &cubic).points;
        const unsigned lg = ghz_ratio_pass_chunk_log2(pts, chunk_log2, spread, shrink);
        const uint64_t cs = (uint64_t)1 << lg, full = pts >> lg, rest = pts & (cs - 1);
        pstart[P] = ps;
        cstart[P] = cc;
        dstart[P] = db;
        plog[P] = (uint8_t)lg;
        ps += pts;
        cc += full + (rest != 0);
        db += full * ghz_ratio_dir_entry(cs, shrink) + (rest ? ghz_ratio_dir_entry(rest, shrink) : 0);
    }
    pstart[3u * L] = ps;
    cstart[3u * L] = cc;
    dstart[3u * L] = db;
}

/* The pass of chunk c (c < cstart[np]): the last P with cstart[P] <= c (passes without
 * points own no chunk). */
__device__ __forceinline__ unsigned pass_of_chunk(const uint64_t* cstart, unsigned np, uint64_t c)
{
    unsigned lo = 0, hi = np - 1;
    while (lo < hi) {
        const unsigned mid = (lo + hi + 1) / 2;
        if (cstart[mid] <= c) lo = mid; else hi = mid - 1;
    }
    return lo;
}

/* Chunk c of pass P of a frame of shrink k: its first point in the pass (*k0), its
 * symbols (K), lanes (*W) and its directory entry's offset from the directory's start. */
__device__ __forceinline__ uint32_t chunk_geom(const uint64_t* pstart, const uint64_t* cstart, const uint64_t* dstart,
                                               const uint8_t* plog, unsigned k, unsigned P, uint64_t c,
                                               uint64_t* k0, unsigned* W, uint64_t* dir)
{
    const unsigned lg = plog[P];
    const uint64_t cs = (uint64_t)1 << lg, pts = pstart[P + 1] - pstart[P];
    *k0 = (c - cstart[P]) << lg;
    const uint32_t K = (uint32_t)(pts - *k0 < cs ? pts - *k0 : cs);
    *W = ghz_ratio_chunk_lanes(K, k);
    *dir = dstart[P] + (c - cstart[P]) * ghz_ratio_dir_entry(cs, k);
    return K;
}

constexpr unsigned kNctx = GHZ_RATIO_NCTX;
constexpr unsigned kNsym = GHZ_RATIO_NSYM_MAX;
constexpr unsigned kTab = kNctx * kNsym;
/* the tables' bytes at most, in minimal varints: per context a count (<= 133) and kNsym
 * frequencies (<= 4096), two bytes each at most; a longer part is corrupt for every reader */
constexpr unsigned kTableBytesMax = kNctx * (2u + 2u * kNsym);
/* a ratio frame's header, section and choice bytes at most */
constexpr unsigned kHeadBytesMax = GHZ_HEADER_SIZE + GHZ_RATIO_SECTION + 3u * kMaxLevels;

} // namespace

/* ==== writer ======================================================================== */

struct ratio_enc_state {
    ghz_quantizer_t z;
    double eb;
    int bad_bound;
    int gate;                               /* 1: write the block frame (compress.cu) */
    int fits;                               /* the parts before the specials fit the bound */
    unsigned long long range_key[2];        /* REL: ordered keys of min and max */
    ghz_range_t range;                      /* the same as values, for the block fallback */
    unsigned long long lvl[kMaxLevels][3][2]; /* level l, axis a: cubic cost, count */
    unsigned long long lvl_lin[kMaxLevels][3]; /* level l, axis a: linear cost */
    unsigned long long hist[kTab];          /* per context, per symbol */
    unsigned long long n_special;
    unsigned long long rans_next, write_next; /* the chunk kernels' tickets */
    uint64_t x0;
    uint8_t choices[3 * kMaxLevels];
    uint64_t pstart[kMaxPasses + 1], cstart[kMaxPasses + 1], dstart[kMaxPasses + 1];
    uint8_t plog[kMaxPasses];
    uint16_t f[kTab];
    uint32_t cum[kTab];
    uint32_t rcp[kTab]; /* ghz_rans_recip(f) */
    unsigned nsym[kNctx];
    uint64_t table_bytes, chunk_bytes, n_out, off_table, off_dir, off_chunks, off_outliers, off_specials,
        special_bytes;
};

struct ratio_chunk_info {
    uint32_t words, bits;
    uint32_t x[GHZ_RATIO_LANES];
    uint32_t n_out, staged; /* staged: the extra bits are in the chunk's xs span (xs_span) */
    uint64_t off, out_base;
};

struct enc_args {
    const uint8_t* src;
    uint8_t* dst;
    uint64_t n;
    uint64_t d[3];
    unsigned L, ndims;
    int has_fill;
    uint64_t fill_bits;
    ghz_frame_info_t info;
    const double* d_eb_abs;
    const ghz_range_t* d_range;
    int rel_keys;
    ratio_enc_state* st;
    void* xr;
    int32_t* code;
    uint8_t* ctx;
    ratio_chunk_info* ch;
    unsigned spread, shrink; /* the frame's (ghz_ratio_spread_for, ghz_ratio_shrink_for) */
    uint64_t max_chunks; /* chunks of any pass order, at most */
    uint64_t bound; /* ghz_compress_bound(n): the most bytes the frame may take */
    uint64_t* d_size;
    int* d_status;
};

/* The codes' buffer, which then holds the fallback's look-back state. */
size_t enc_code_bytes(uint64_t n)
{
    const size_t codes = up256(n * 4u), lb = up256(lookback_bytes(tiles_for(n)));
    return codes > lb ? codes : lb;
}

/* Chunks of n values in any pass order: a pass's last chunk may be short. */
uint64_t enc_max_chunks(uint64_t n)
{
    const unsigned lo = GHZ_RATIO_SPREAD_CHUNK_LOG2 - ghz_ratio_shrink_for(ghz_ratio_spread_for(n));
    return (n >> lo) + 3u * kMaxLevels + 1u;
}

size_t ratio_compress_work_bytes(ghz_dtype_t dtype, uint64_t n)
{
    return up256(sizeof(ratio_enc_state)) + up256(n * ghz_float_size(dtype)) + enc_code_bytes(n) + up256(n) +
           up256(enc_max_chunks(n) * sizeof(ratio_chunk_info));
}

__global__ void enc_init_kernel(enc_args a)
{
    ratio_enc_state* st = a.st;
    uint32_t* w = (uint32_t*)st;
    for (size_t i = threadIdx.x; i < sizeof(ratio_enc_state) / 4; i += blockDim.x) w[i] = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
        /* the given range, or the empty one that the range pass widens */
        st->range_key[0] = a.d_range ? order_key(a.d_range->min) : ~0ull;
        st->range_key[1] = a.d_range ? order_key(a.d_range->max) : 0ull;
        if (a.d_status) *a.d_status = GHZ_SUCCESS;
    }
}

/* The bound, as compress.cu's kernel finds it (the CPU's checks and arithmetic). */
__device__ __forceinline__ double enc_bound(const enc_args& a, bool* bad)
{
    double eb = a.info.eb_abs;
    *bad = false;
    if (a.d_eb_abs) {
        eb = *a.d_eb_abs;
        *bad = !(eb > 0.0 && isfinite(eb + eb));
    } else if (a.rel_keys) {
        *bad = ghz_rel_eb(a.info.eb_user, order_value(a.st->range_key[0]), order_value(a.st->range_key[1]), &eb) != 0;
    }
    return *bad ? 0.0 : eb;
}

/* One element quantized against its prediction p (the CPU's code_point): its code
 * (kOutlierCode for an outlier, 0 for a special), symbol and reconstruction. */
template <typename T>
struct enc_coded_t {
    int32_t k;
    unsigned sym;
    bool special;
    T y;
};

template <typename T>
__device__ __forceinline__ enc_coded_t<T> enc_quantize_point(const enc_args& a, const ghz_quantizer_t& z, double x,
                                                             uint64_t bits, double p)
{
    enc_coded_t<T> o;
    double y;
    o.special = is_special(x, bits, a.has_fill, a.fill_bits);
    if (o.special) {
        o.y = (T)p;
        o.k = 0;
        o.sym = 1;
    } else if (ghz_ratio_quantize(&z, x, bits, p, &o.k, &y)) {
        uint32_t ex;
        unsigned nb;
        o.y = (T)y;
        o.sym = ghz_ratio_symbol(o.k, &ex, &nb);
    } else {
        o.y = (T)x;
        o.k = kOutlierCode;
        o.sym = 0;
    }
    return o;
}

/* Stores element j's code and context (pass order) and counts its symbol in the CTA's
 * histogram: a shared atomic a lane, since grouping the lanes of one (context, symbol)
 * first with a warp match costs more than the atomics' conflicts. */
template <typename T, typename I>
__device__ __forceinline__ void enc_put_code(const enc_args& a, I j, const enc_coded_t<T>& o, unsigned cx,
                                             unsigned* hist, unsigned long long* specials)
{
    a.code[j] = o.k;
    a.ctx[j] = (uint8_t)cx;
    *specials += o.special;
    atomicAdd(&hist[cx * kNsym + o.sym], 1u);
}

/* Codes element idx (pass-order symbol j) against p in context cx, with its
 * reconstruction. I: the pass's index type. */
template <typename T, typename I>
__device__ __forceinline__ void enc_code_point(const enc_args& a, const ghz_quantizer_t& z, I idx, I j, double x,
                                               uint64_t bits, double p, unsigned cx,
                                               unsigned* hist, unsigned long long* specials)
{
    const enc_coded_t<T> o = enc_quantize_point<T>(a, z, x, bits, p);
    ((T*)a.xr)[idx] = o.y;
    enc_put_code<T, I>(a, j, o, cx, hist, specials);
}

constexpr unsigned kCostBatch = 4;

/* Sums of a pass's costs over the finite non-fill points of its sample
 * (ghz_ratio_sample_point: a warp takes four runs): linear, cubic and the count. */
template <typename T>
__device__ void enc_pass_costs(const enc_args& a, const ghz_quantizer_t& z, const ghz_ratio_pass_t& ps,
                               unsigned long long* lin_out, unsigned long long* cub_out,
                               unsigned long long* cnt_out)
{
    typedef typename bits_of<T>::type U;
    const unsigned ax = ps.axis;
    const uint64_t sx = ax == 0 ? 1 : ax == 1 ? a.d[0] : a.d[0] * a.d[1], ex = pick3(a.d, ax);
    const uint64_t gstride = (uint64_t)gridDim.x * blockDim.x;
    const uint64_t samples = ghz_ratio_samples(ps.points);
    const T* const xv = (const T*)a.xr;
    const U* const src = (const U*)a.src;
    unsigned long long lin = 0, cub = 0, cnt = 0;
    /* kCostBatch samples a thread at a time, every load issued before any is used: the
     * samples are scattered, and one at a time each waits a full trip to DRAM */
    for (uint64_t v0 = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; v0 < samples; v0 += kCostBatch * gstride) {
        U xb[kCostBatch];
        nbrs_t<T> nb[kCostBatch];
#pragma unroll
        for (unsigned b = 0; b < kCostBatch; ++b) {
            const uint64_t v = v0 + b * gstride;
            nb[b].hc = false;
            if (v >= samples) continue;
            uint64_t c[3];
            const uint64_t idx = pass_point(ps, a.d, ghz_ratio_sample_point(v), c);
            xb[b] = src[idx];
            nbrs_load<T, uint64_t>(xv, idx, pick3(c, ax), ps.s, ps.s * sx, ex, 1u, nb[b]);
        }
#pragma unroll
        for (unsigned b = 0; b < kCostBatch; ++b) {
            if (v0 + b * gstride >= samples) continue;
            T xt;
            memcpy(&xt, &xb[b], sizeof xt);
            const double x = (double)xt;
            if (is_special(x, (uint64_t)xb[b], a.has_fill, a.fill_bits)) continue;
            ++cnt;
            cub += ghz_ratio_cost(&z, x, nbrs_predict<T>(nb[b]));
            nbrs_t<T> q = nb[b];
            q.hu = q.hv = false; /* linear: b and c alone */
            lin += ghz_ratio_cost(&z, x, nbrs_predict<T>(q));
        }
    }
    lin = warp_sum(lin);
    cub = warp_sum(cub);
    cnt = warp_sum(cnt);
    if (lane_id() == 0) {
        if (lin) atomicAdd(lin_out, lin);
        if (cub) atomicAdd(cub_out, cub);
        if (cnt) atomicAdd(cnt_out, cnt);
    }
}

/* Arrays below this many values are walked in 32-bit indices: every index and every
 * neighbour's coordinate (t + 3s < 4 * 2^30) stays below 2^32. */
constexpr uint64_t kIndex32 = (uint64_t)1 << 30;

/* A walk over the points of a three-axis index space (axis 0 fastest) in index type I:
 * each thread's point as its index along each axis, advanced by a fixed stride with
 * carries instead of a division per point. c0, c1: the counts along axes 0 and 1. */
template <typename I>
struct carry_walk_t {
    I i0, i1, i2;     /* the point's index along each count */
    I c0, c1;         /* the counts along axes 0 and 1 */
    I a0, a1, a2;     /* the stride, as indices along each count (a0 < c0, a1 < c1) */

    __device__ __forceinline__ void split(I u, I& x0, I& x1, I& x2) const
    {
        const I r = u / c0;
        x0 = u - r * c0;
        x2 = r / c1;
        x1 = r - x2 * c1;
    }
    /* from point `first` by `stride` points a step (c0 and c1 set) */
    __device__ __forceinline__ void start(I first, I stride)
    {
        split(first, i0, i1, i2);
        split(stride, a0, a1, a2);
    }
    /* the point's index along the count of axis ax */
    __device__ __forceinline__ I along(unsigned ax) const
    {
        return ax == 0 ? i0 : ax == 1 ? i1 : i2;
    }
    __device__ __forceinline__ void advance()
    {
        i0 += a0;
        const I k0 = i0 >= c0;
        i0 -= k0 * c0;
        i1 += a1 + k0;
        const I k1 = i1 >= c1;
        i1 -= k1 * c1;
        i2 += a2 + k1;
    }
};

/* A grid-stride walk over a pass's points (I: 32-bit below kIndex32, where every
 * point and the stride fit), with the storage index of its point. */
template <typename I>
struct pass_walk_t : carry_walk_t<I> {
    I base, st0, st1, st2; /* storage index = base + st0 i0 + st1 i1 + st2 i2 */

    __device__ __forceinline__ pass_walk_t(const ghz_ratio_pass_t& ps, const uint64_t d[3], uint64_t u,
                                           uint64_t stride)
    {
        this->c0 = (I)ps.count[0];
        this->c1 = (I)ps.count[1];
        this->start((I)(u < ps.points ? u : 0), (I)stride);
        st0 = (I)ps.step[0];
        st1 = (I)(ps.step[1] * d[0]);
        st2 = (I)(ps.step[2] * d[0] * d[1]);
        base = (I)(ps.first[0] + d[0] * (ps.first[1] + d[1] * ps.first[2]));
    }
    __device__ __forceinline__ I index() const
    {
        return base + st0 * this->i0 + st1 * this->i1 + st2 * this->i2;
    }
};

/* The codes of one pass (RATIO.md, Prediction and Quantization), kEncBatch points a
 * thread at a time, in two slots (as two_slots does): the next batch's values and
 * neighbours load while one batch is coded, so that a batch's loads wait behind the
 * coding of the batch before it, not in front of its own. */
constexpr unsigned kEncBatch = 2;

template <typename T, typename I>
__device__ __forceinline__ void enc_code_pass(const enc_args& a, const ghz_quantizer_t& z,
                                              const ghz_ratio_pass_t& ps, unsigned cubic, uint64_t next,
                                              unsigned* hist, unsigned long long* specials)
{
    typedef typename bits_of<T>::type U;
    const unsigned ax = ps.axis;
    /* the pass's counters in I too: u + gb < 2^31 where I is 32-bit (n < kIndex32) */
    const I gstride = (I)gridDim.x * blockDim.x, gb = gstride * kEncBatch, pts = (I)ps.points, jn = (I)next;
    const I s = (I)ps.s, ext = (I)pick3(a.d, ax), first = (I)pick3(ps.first, ax), step = (I)pick3(ps.step, ax);
    const I off = (I)(ps.s * (ax == 0 ? 1 : ax == 1 ? a.d[0] : a.d[0] * a.d[1]));
    const T* const xv = (const T*)a.xr;
    const U* const src = (const U*)a.src;
    const I u_first = (I)blockIdx.x * blockDim.x + threadIdx.x;
    pass_walk_t<I> w(ps, a.d, u_first, gstride);
    struct slot_t {
        I idx[kEncBatch];
        U xb[kEncBatch];
        nbrs_t<T> nb[kEncBatch];
    };
    auto load = [&](I u0, slot_t& o) {
#pragma unroll
        for (unsigned b = 0; b < kEncBatch; ++b) {
            o.idx[b] = 0;
            if (u0 + b * gstride >= pts) continue;
            o.idx[b] = w.index();
            o.xb[b] = src[o.idx[b]];
            nbrs_load<T>(xv, o.idx[b], first + step * w.along(ax), s, off, ext, cubic, o.nb[b]);
            w.advance();
        }
    };
    auto code = [&](I u0, const slot_t& o) {
#pragma unroll
        for (unsigned b = 0; b < kEncBatch; ++b) {
            const I u = u0 + b * gstride;
            if (u >= pts) continue;
            T x;
            memcpy(&x, &o.xb[b], sizeof x);
            enc_code_point<T, I>(a, z, o.idx[b], jn + u, (double)x, (uint64_t)o.xb[b], nbrs_predict<T>(o.nb[b]),
                              nbrs_context<T>(o.nb[b], z.r), hist, specials);
        }
    };
    slot_t sa, sb;
    I u0 = u_first;
    if (u0 < pts) load(u0, sa);
    while (u0 < pts) { /* slot a holds the batch at u0 */
        if (u0 + gb < pts) load(u0 + gb, sb);
        code(u0, sa);
        u0 += gb;
        if (u0 >= pts) break;
        if (u0 + gb < pts) load(u0 + gb, sa);
        code(u0, sb);
        u0 += gb;
    }
}

/* The writer runs one kernel per step, in stream order: a level's candidate sums, then
 * per pass its codes. Each kernel re-derives the level's axis order and the pass's
 * cubic bit from the sums the level's first kernel left in the state (the same integers
 * on every thread), and has its own registers and grid: the coding loop holds its batch
 * without spilling, and a coarse level's kernels are as small as its passes. */

/* Element 0 (not a symbol: its value, 0 for a special, goes to the section), the bound
 * and the quantizer; everything after reads them from the state. */
template <typename T>
__global__ void enc_start_kernel(enc_args a)
{
    ratio_enc_state* const st = a.st;
    bool bad;
    const double eb = enc_bound(a, &bad);
    if (bad) { /* nothing is coded (finish reports it) */
        st->bad_bound = 1;
        return;
    }
    st->z = ghz_quantizer_make(eb, sizeof(T) == 4);
    st->eb = eb;
    st->range.min = order_value(st->range_key[0]);
    st->range.max = order_value(st->range_key[1]);
    uint64_t bits;
    const double x = load_value<T>(a.src, 0, &bits);
    const bool sp = is_special(x, bits, a.has_fill, a.fill_bits);
    ((T*)a.xr)[0] = sp ? (T)0 : (T)x;
    st->x0 = sp ? 0 : bits;
    st->n_special = sp;
}

/* Level l's three candidate first passes: their cubic cost sums and counts, which
 * order the level, and their linear sums, which choose cubic or linear for every pass
 * of the level along the same axis (RATIO.md, Writer's choices). */
template <typename T>
__device__ __forceinline__ void enc_level_sums(const enc_args& a, const ghz_quantizer_t& z, unsigned l)
{
    ratio_enc_state* const st = a.st;
    for (unsigned ax = 0; ax < 3; ++ax) {
        const ghz_ratio_pass_t ps = first_pass(a.d, l, ax);
        if (ps.points)
            enc_pass_costs<T>(a, z, ps, &st->lvl_lin[l - 1][ax], &st->lvl[l - 1][ax][0], &st->lvl[l - 1][ax][1]);
    }
}

template <typename T>
__global__ void __launch_bounds__(kPassThreads) enc_level_kernel(enc_args a, unsigned l)
{
    if (a.st->bad_bound) return;
    enc_level_sums<T>(a, a.st->z, l);
}

/* The sums are read from L2 (__ldcg): enc_coarse_kernel reads them in the kernel whose
 * atomics wrote them, where L1 may hold an older line. */
__device__ __forceinline__ unsigned long long sum_at(const unsigned long long* p)
{
    return __ldcg(p);
}

/* The order of level l's passes, from the level's sums. */
__device__ __forceinline__ void enc_order(const enc_args& a, unsigned l, unsigned order[3])
{
    int empty[3];
    unsigned long long sums[3][2];
    for (unsigned ax = 0; ax < 3; ++ax) {
        empty[ax] = first_pass(a.d, l, ax).points == 0;
        sums[ax][0] = sum_at(&a.st->lvl[l - 1][ax][0]);
        sums[ax][1] = sum_at(&a.st->lvl[l - 1][ax][1]);
    }
    order_from(sums, empty, order);
}

/* Whether pass ps of level l is cubic: as its axis's candidate set chose (RATIO.md,
 * Writer's choices), and never when it is empty. */
__device__ __forceinline__ unsigned enc_cubic(const enc_args& a, unsigned l, const ghz_ratio_pass_t& ps)
{
    return ps.points && sum_at(&a.st->lvl[l - 1][ps.axis][0]) <= sum_at(&a.st->lvl_lin[l - 1][ps.axis]);
}

/* Symbols before level l's passes: the grid of stride 2^l, element 0 aside. */
__device__ __forceinline__ uint64_t enc_coarser_symbols(const enc_args& a, unsigned l)
{
    const uint64_t s2 = (uint64_t)1 << l;
    return ghz_ratio_mults(a.d[0], s2) * ghz_ratio_mults(a.d[1], s2) * ghz_ratio_mults(a.d[2], s2) - 1u;
}

/* Pass q of level l: its choice byte, codes, contexts and reconstructions, its symbol
 * counts added to the CTA's hist and its specials to *specials. */
template <typename T, typename I>
__device__ __forceinline__ void enc_code_step(const enc_args& a, const ghz_quantizer_t& z, unsigned l, unsigned q,
                                              unsigned* hist, unsigned long long* specials)
{
    ratio_enc_state* const st = a.st;
    unsigned order[3];
    enc_order(a, l, order);
    const ghz_ratio_pass_t ps = ghz_ratio_pass(a.d, l, order, q);
    const unsigned cubic = enc_cubic(a, l, ps);
    if (blockIdx.x == 0 && threadIdx.x == 0) st->choices[3u * (a.L - l) + q] = GHZ_RATIO_CHOICE(ps.axis, cubic);
    if (!ps.points) return;
    /* symbols before this pass: the coarser levels', then the level's earlier passes' */
    uint64_t next = enc_coarser_symbols(a, l);
    for (unsigned r = 0; r < q; ++r) next += ghz_ratio_pass(a.d, l, order, r).points;
    enc_code_pass<T, I>(a, z, ps, cubic, next, hist, specials);
}

/* The CTA's symbol counts and specials, added to the state's. */
__device__ __forceinline__ void enc_flush_counts(const enc_args& a, const unsigned* hist, unsigned long long specials)
{
    for (unsigned i = threadIdx.x; i < kTab; i += blockDim.x)
        if (hist[i]) atomicAdd(&a.st->hist[i], (unsigned long long)hist[i]);
    specials = warp_sum(specials);
    if (lane_id() == 0 && specials) atomicAdd(&a.st->n_special, specials);
}

template <typename T, typename I, int NT, int MINB>
__global__ void __launch_bounds__(NT, MINB) enc_code_kernel(enc_args a, unsigned l, unsigned q)
{
    __shared__ unsigned hist[kTab];
    if (a.st->bad_bound) return;
    for (unsigned i = threadIdx.x; i < kTab; i += blockDim.x) hist[i] = 0;
    __syncthreads();
    unsigned long long specials = 0;
    enc_code_step<T, I>(a, a.st->z, l, q, hist, &specials);
    __syncthreads();
    enc_flush_counts(a, hist, specials);
}

/* Levels L down to lo, whose grids have at most kCoarsePoints points, in one CTA: the
 * steps of enc_level_kernel and enc_code_kernel in the same order,
 * with CTA barriers between them instead of launches, which take longer than these
 * levels' work (some 6 us a launch against well under a microsecond of work). */
constexpr uint64_t kCoarsePoints = 8192;

template <typename T, typename I>
__global__ void __launch_bounds__(kPassThreads) enc_coarse_kernel(enc_args a, unsigned lo)
{
    __shared__ unsigned hist[kTab];
    if (a.st->bad_bound) return;
    const ghz_quantizer_t z = a.st->z;
    for (unsigned i = threadIdx.x; i < kTab; i += blockDim.x) hist[i] = 0;
    unsigned long long specials = 0;
    for (unsigned l = a.L; l >= lo; --l) {
        enc_level_sums<T>(a, z, l);
        __syncthreads();
        for (unsigned q = 0; q < 3; ++q) {
            enc_code_step<T, I>(a, z, l, q, hist, &specials);
            __syncthreads();
        }
    }
    enc_flush_counts(a, hist, specials);
}

/* ---- passes 1 and 2 of a level, a box of its grid at a time --------------------------- */

/* Level l's grid: the elements whose coordinates are multiples of s = 2^(l-1), at grid
 * coordinates g = c / s. Pass q of the level refines axis order[q] (RATIO.md,
 * Prediction): its points are odd along that axis, anything along the axes of the
 * passes before it and even along those after, and it predicts from the grid points
 * at g -+ 1 and g -+ 3 along its axis. enc_tile_kernel codes passes 1 and 2 of a level
 * one box of the grid at a time per CTA, in shared memory: it loads the box's values and
 * the earlier passes' reconstructions around them (up to kTileHalo grid points beyond
 * the box along the axes of passes 1 and 2), codes pass 1's points of the box and of
 * the planes beyond it that pass 2 predicts from (the neighbouring box codes those too;
 * only the box that holds a point stores its code), then pass 2's points. Each point
 * is predicted from the same neighbours as in the CPU's loops, so the values and codes
 * are theirs. Pass 0 stays with enc_code_kernel: it is an eighth of the points and its
 * own boxes would need every pass's halo. */
constexpr unsigned kTileThreads = 256;
constexpr int kTileHalo = 2;

/* The positions a walk visits along one axis: g = first + step * i, i < count. */
struct tile_axis_t {
    int first, step, count;
};

/* Every position of [lo, hi), the odd ones (lo even), or the even ones of
 * [lo - kTileHalo, hi + kTileHalo] inside the grid's [0, G). */
__device__ __forceinline__ tile_axis_t tile_all(int lo, int hi)
{
    return {lo, 1, hi - lo};
}
__device__ __forceinline__ tile_axis_t tile_odd(int lo, int hi)
{
    return {lo + 1, 2, (hi - lo) / 2};
}
__device__ __forceinline__ tile_axis_t tile_even_around(int lo, int hi, int G)
{
    const int first = lo - kTileHalo > 0 ? lo - kTileHalo : 0, last = hi + kTileHalo < G ? hi + kTileHalo : G - 1;
    return {first, 2, last >= first ? (last - first) / 2 + 1 : 0};
}

/* A CTA's walk over the positions of three tile_axis_t (axis 0 fastest), each thread
 * from its own first position by blockDim.x positions a step. A position's shared slot,
 * storage index and pass-order index are linear in i0, i1, i2 (tile_form_t). */
struct tile_walk_t : carry_walk_t<unsigned> {
    unsigned n2; /* positions along axis 2: the walk ends there */

    __device__ __forceinline__ explicit tile_walk_t(const tile_axis_t ax[3])
    {
        c0 = (unsigned)ax[0].count;
        c1 = (unsigned)ax[1].count;
        n2 = c0 && c1 ? (unsigned)ax[2].count : 0u;
        i0 = i1 = i2 = a0 = a1 = a2 = 0;
        if (n2) start(threadIdx.x, blockDim.x);
    }
    __device__ __forceinline__ bool more() const
    {
        return i2 < n2;
    }
};

template <typename I>
struct tile_form_t {
    I base, c0, c1, c2;
    __device__ __forceinline__ I at(const tile_walk_t& w) const
    {
        return base + c0 * (I)w.i0 + c1 * (I)w.i1 + c2 * (I)w.i2;
    }
};

/* base + sum over the axes of (first + step i) * k[x] - off[x] * k[x]: the form of a
 * linear index k over a walk's positions (g - off along each axis). */
template <typename I>
__device__ __forceinline__ tile_form_t<I> tile_form(const tile_axis_t ax[3], const I k[3], const int off[3])
{
    tile_form_t<I> f;
    f.base = (I)(ax[0].first - off[0]) * k[0] + (I)(ax[1].first - off[1]) * k[1] + (I)(ax[2].first - off[2]) * k[2];
    f.c0 = (I)ax[0].step * k[0];
    f.c1 = (I)ax[1].step * k[1];
    f.c2 = (I)ax[2].step * k[2];
    return f;
}

/* Asynchronous copies of a walk's positions from the array `from` (storage index) to
 * their shared slots. */
template <typename T, typename I>
__device__ __forceinline__ void tile_fetch(T* sh, const T* from, const tile_axis_t ax[3], const unsigned sst[3],
                                           const int slot_off[3], const I gst[3])
{
    const int zero[3] = {0, 0, 0};
    const tile_form_t<unsigned> fs = tile_form<unsigned>(ax, sst, slot_off);
    const tile_form_t<I> fg = tile_form<I>(ax, gst, zero);
    for (tile_walk_t w(ax); w.more(); w.advance()) __pipeline_memcpy_async(&sh[fs.at(w)], &from[fg.at(w)], sizeof(T));
}

/* The forms of a phase's walk that codes pass q: shared slot, storage index and
 * pass-order index ((g - first) / step along each axis, whose steps are the walk's;
 * C: the pass's coefficients, 1, count[0], count[0] count[1]). */
template <typename I>
struct tile_forms_t {
    tile_form_t<unsigned> slot;
    tile_form_t<I> at, u;
};

template <typename I>
__device__ __forceinline__ tile_forms_t<I> tile_forms(const tile_axis_t ax[3], const unsigned role[3], unsigned q,
                                                      const unsigned sst[3], const int so[3], const I gst[3],
                                                      const I C[3])
{
    const int zero[3] = {0, 0, 0};
    tile_axis_t au[3];
    for (unsigned x = 0; x < 3; ++x) au[x] = {(ax[x].first - (role[x] == q)) / ax[x].step, 1, ax[x].count};
    return {tile_form<unsigned>(ax, sst, so), tile_form<I>(ax, gst, zero), tile_form<I>(au, C, zero)};
}

/* The point in shared slot i, at grid coordinate g along its pass's axis (neighbours
 * off slots apart, ext grid points along it), quantized against its prediction; *cx
 * its context. */
template <typename T>
__device__ __forceinline__ enc_coded_t<T> tile_code_point(const enc_args& a, const ghz_quantizer_t& z, const T* sh,
                                                          unsigned i, unsigned g, unsigned off, unsigned ext,
                                                          unsigned cubic, unsigned* cx)
{
    const T xt = sh[i];
    typename bits_of<T>::type xb;
    memcpy(&xb, &xt, sizeof xb);
    nbrs_t<T> q;
    nbrs_load<T, unsigned>(sh, i, g, 1u, off, ext, cubic, q);
    *cx = nbrs_context<T>(q, z.r);
    return enc_quantize_point<T>(a, z, (double)xt, (uint64_t)xb, nbrs_predict<T>(q));
}

/* Box edges along each axis: B[x] grid points, kTileHalo beyond them (none where the
 * box spans the axis, B[x] = 1). */
struct tile_box_t {
    int B[3];
};

/* Shared slots along an axis whose box edge is B: g in [lo - kTileHalo, hi + kTileHalo]
 * (tile_even_around's last position is hi + kTileHalo), or the one position of an
 * axis the box spans. The kernel's strides and the launch's bytes both come from it. */
__host__ __device__ __forceinline__ int tile_span(int B)
{
    return B > 1 ? B + 2 * kTileHalo + 1 : 1;
}

template <typename T, typename I>
__global__ void __launch_bounds__(kTileThreads) enc_tile_kernel(enc_args a, unsigned l, tile_box_t box)
{
    extern __shared__ __align__(16) unsigned char tile_smem[];
    __shared__ unsigned hist[kTab];
    T* const sh = (T*)tile_smem;
    ratio_enc_state* const st = a.st;
    if (st->bad_bound) return;
    const ghz_quantizer_t z = st->z;
    ghz_ratio_pass_t ps[3];
    unsigned order[3], cubic[3], role[3];
    enc_order(a, l, order);
    for (unsigned q = 0; q < 3; ++q) {
        ps[q] = ghz_ratio_pass(a.d, l, order, q);
        role[ps[q].axis] = q;
        cubic[q] = enc_cubic(a, l, ps[q]);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (unsigned q = 1; q < 3; ++q) st->choices[3u * (a.L - l) + q] = GHZ_RATIO_CHOICE(ps[q].axis, cubic[q]);
    if (!ps[1].points && !ps[2].points) return;
    for (unsigned i = threadIdx.x; i < kTab; i += blockDim.x) hist[i] = 0;

    const uint64_t s = (uint64_t)1 << (l - 1);
    const unsigned A1 = ps[1].axis, A2 = ps[2].axis;
    int G[3], H[3], nt[3];
    unsigned sst[3];
    I gst[3], C1[3], C2[3];
    for (unsigned x = 0; x < 3; ++x) {
        G[x] = (int)ghz_ratio_mults(a.d[x], s);
        H[x] = box.B[x] > 1 ? kTileHalo : 0;
        nt[x] = (G[x] + box.B[x] - 1) / box.B[x];
    }
    sst[0] = 1;
    sst[1] = (unsigned)tile_span(box.B[0]);
    sst[2] = sst[1] * (unsigned)tile_span(box.B[1]);
    gst[0] = (I)s;
    gst[1] = (I)(s * a.d[0]);
    gst[2] = (I)(s * a.d[0] * a.d[1]);
    C1[0] = C2[0] = 1;
    C1[1] = (I)ps[1].count[0];
    C2[1] = (I)ps[2].count[0];
    C1[2] = C1[1] * (I)ps[1].count[1];
    C2[2] = C2[1] * (I)ps[2].count[1];
    /* symbols before pass 1: the coarser levels' and pass 0's */
    const I next1 = (I)(enc_coarser_symbols(a, l) + ps[0].points), next2 = next1 + (I)ps[1].points;
    const T* const src = (const T*)a.src;
    T* const xr = (T*)a.xr;
    const bool keep = l > 1; /* level 1's reconstructions are never read again */
    const unsigned boxes = (unsigned)(nt[0] * nt[1] * nt[2]);
    unsigned long long specials = 0;
    __syncthreads();
    for (unsigned b = blockIdx.x; b < boxes; b += gridDim.x) {
        int lo[3], hi[3], so[3];
        {
            const unsigned r = b / (unsigned)nt[0], b2 = r / (unsigned)nt[1];
            const int t[3] = {(int)(b - r * (unsigned)nt[0]), (int)(r - b2 * (unsigned)nt[1]), (int)b2};
            for (unsigned x = 0; x < 3; ++x) {
                lo[x] = t[x] * box.B[x];
                hi[x] = lo[x] + box.B[x] < G[x] ? lo[x] + box.B[x] : G[x];
                so[x] = lo[x] - H[x]; /* shared slot of g: (g - so) along each axis */
            }
        }
        /* 1. the loads, all in flight at once: the earlier passes' points (even along
         * A1 and A2), pass 1's points (odd along A1, in the box; even along A2, around
         * it) and pass 2's (odd along A2, in the box) */
        {
            tile_axis_t ax[3];
            for (unsigned x = 0; x < 3; ++x)
                ax[x] = role[x] == 0 ? tile_all(lo[x], hi[x]) : tile_even_around(lo[x], hi[x], G[x]);
            tile_fetch<T, I>(sh, xr, ax, sst, so, gst);
            if (ps[1].points) {
                ax[A1] = tile_odd(lo[A1], hi[A1]);
                tile_fetch<T, I>(sh, src, ax, sst, so, gst);
            }
            if (ps[2].points) {
                ax[A1] = tile_all(lo[A1], hi[A1]);
                ax[A2] = tile_odd(lo[A2], hi[A2]);
                tile_fetch<T, I>(sh, src, ax, sst, so, gst);
            }
            __pipeline_commit();
            __pipeline_wait_prior(0);
            __syncthreads();
        }
        /* 2. pass 1: its reconstructions replace its values in shared memory */
        if (ps[1].points) {
            tile_axis_t ax[3];
            for (unsigned x = 0; x < 3; ++x)
                ax[x] = role[x] == 0 ? tile_all(lo[x], hi[x])
                        : role[x] == 1 ? tile_odd(lo[x], hi[x])
                                       : tile_even_around(lo[x], hi[x], G[x]);
            const tile_forms_t<I> f = tile_forms<I>(ax, role, 1u, sst, so, gst, C1);
            /* the scalars of the loop, out of the arrays indexed by axis */
            const unsigned first1 = (unsigned)ax[A1].first, off1 = sst[A1], ext1 = (unsigned)G[A1], cub1 = cubic[1];
            const int first2 = ax[A2].first, step2 = ax[A2].step, lo2 = lo[A2], hi2 = hi[A2];
            for (tile_walk_t w(ax); w.more(); w.advance()) {
                const unsigned i = f.slot.at(w);
                const int g2 = first2 + step2 * (int)w.along(A2);
                unsigned cx;
                const enc_coded_t<T> o =
                    tile_code_point<T>(a, z, sh, i, first1 + 2u * w.along(A1), off1, ext1, cub1, &cx);
                sh[i] = o.y;
                if (g2 >= lo2 && g2 < hi2) {
                    enc_put_code<T, I>(a, next1 + f.u.at(w), o, cx, hist, &specials);
                    if (keep) xr[f.at.at(w)] = o.y;
                }
            }
            __syncthreads();
        }
        /* 3. pass 2 */
        if (ps[2].points) {
            tile_axis_t ax[3];
            for (unsigned x = 0; x < 3; ++x) ax[x] = role[x] == 2 ? tile_odd(lo[x], hi[x]) : tile_all(lo[x], hi[x]);
            const tile_forms_t<I> f = tile_forms<I>(ax, role, 2u, sst, so, gst, C2);
            const unsigned first2 = (unsigned)ax[A2].first, off2 = sst[A2], ext2 = (unsigned)G[A2], cub2 = cubic[2];
            for (tile_walk_t w(ax); w.more(); w.advance()) {
                unsigned cx;
                const enc_coded_t<T> o =
                    tile_code_point<T>(a, z, sh, f.slot.at(w), first2 + 2u * w.along(A2), off2, ext2, cub2, &cx);
                enc_put_code<T, I>(a, next2 + f.u.at(w), o, cx, hist, &specials);
                if (keep) xr[f.at.at(w)] = o.y;
            }
        }
        __syncthreads(); /* the next box's loads overwrite these slots */
    }
    enc_flush_counts(a, hist, specials);
}

/* The box of a level's grid each CTA of enc_tile_kernel takes: a fixed shape per number
 * of axes longer than 1, longest along the first of them (the fastest in memory), about
 * 8192 grid points (4096 for f64 in two or three axes); its shared bytes. */
template <typename T>
tile_box_t enc_tile_box(const uint64_t d[3], size_t* smem)
{
    static const int shapes[3][3] = {{8192 / (int)sizeof(T) * 4, 1, 1}, {128, 64, 1}, {32, 16, 16}};
    tile_box_t bx;
    unsigned k = 0;
    for (unsigned x = 0; x < 3; ++x) k += d[x] > 1;
    /* f64: half the box (along its second axis of three, its first of two), for about
     * the shared bytes of f32's */
    const unsigned halve = sizeof(T) == 8 && k >= 2 ? (k == 3 ? 1u : 0u) : 3u;
    for (unsigned x = 0, m = 0; x < 3; ++x) {
        bx.B[x] = 1;
        if (d[x] > 1) {
            bx.B[x] = shapes[k - 1][m] / (m == halve ? 2 : 1);
            ++m;
        }
    }
    size_t slots = 1;
    for (unsigned x = 0; x < 3; ++x) slots *= (size_t)tile_span(bx.B[x]);
    *smem = slots * sizeof(T);
    return bx;
}

/* The eight tables (RATIO.md, Tables: one thread per context) and the pass table. */
__global__ void enc_tables_kernel(enc_args a)
{
    ratio_enc_state* const st = a.st;
    if (st->bad_bound) return;
    const unsigned t = threadIdx.x;
    if (t < kNctx) {
        uint64_t cnt[kNsym], tot = 0;
        for (unsigned s = 0; s < kNsym; ++s) {
            cnt[s] = st->hist[t * kNsym + s];
            tot += cnt[s];
        }
        uint16_t* const f = st->f + t * kNsym;
        uint32_t* const cum = st->cum + t * kNsym;
        uint32_t* const rcp = st->rcp + t * kNsym;
        st->nsym[t] = 0;
        if (tot) {
            st->nsym[t] = ghz_ratio_normalize(cnt, tot, f);
            cum[0] = 0;
            for (unsigned s = 0; s + 1 < kNsym; ++s) cum[s + 1] = cum[s] + f[s];
            for (unsigned s = 0; s < kNsym; ++s) {
                unsigned sh;
                rcp[s] = f[s] ? ghz_rans_recip(f[s], &sh) : 0u;
            }
        }
    } else if (t == 32) {
        pass_table(a.d, a.L, st->choices, GHZ_RATIO_CHUNK_LOG2, a.spread, a.shrink, st->pstart, st->cstart,
                   st->dstart, st->plog);
    }
}

/* The extra bits of chunk [j0, j0 + K), staged by the rANS kernel for the chunk writer
 * (RATIO.md, Chunks: they follow the rANS words in symbol order). The rANS words' staging
 * takes the reconstruction buffer's first ceil(n / 2) u32 words (2 bytes a symbol); the
 * chunk owns words [ceil(j0 / 2), floor((j0 + K) / 2)) of the rest, about 16 bits a
 * symbol, disjoint from every other chunk's. The steps run from the chunk's last symbol
 * to its first, so the bits are stored against the span's end: stream bit i at span bit
 * i + E - bits, E = *cap the span's bits. */
__device__ __forceinline__ uint32_t* xs_span(const enc_args& a, uint64_t j0, uint32_t K, uint32_t* cap)
{
    const uint64_t w0 = (j0 + 1u) / 2u, w1 = (j0 + K) / 2u, e = 32u * (w1 - w0);
    *cap = e < ((uint64_t)1 << 31) ? (uint32_t)e : (uint32_t)1 << 31;
    return (uint32_t*)a.xr + (a.n + 1u) / 2u + w0;
}

/* One batch of rANS steps' extra bits into the span below the R bits staged, by the
 * whole warp. Step b of the batch is step t1 - 1 - b of the chunk (b = kBatch - 1 comes
 * first in the stream), lanes in symbol order within a step; lane's ex[b], nb[b]. The
 * batch's bits are at most kBatch x 27 x 32 (kStageWords words with the partial one
 * below them), gathered in win and stored whole but for the lowest partial word, which
 * stays in carry until the batches below fill it. The steps' offsets come from two
 * steps' counts packed in one word a scan (a lane's sums stay below 2^16). Clears
 * `staging` (the same on every lane) when the span is full. */
constexpr unsigned kStageWords = (kBatch * 27u * 32u + 31u) / 32u + 1u;
static_assert(kBatch % 2u == 0u, "the scans pack two steps");

__device__ __forceinline__ void stage_batch(uint32_t* xs, uint32_t E, uint32_t* win, unsigned lane,
                                            const uint32_t* ex, const unsigned* nb, uint32_t& R, uint32_t& carry,
                                            bool& staging)
{
    uint32_t incl[kBatch / 2u], tot[kBatch / 2u];
#pragma unroll
    for (unsigned h = 0; h < kBatch / 2u; ++h) incl[h] = nb[2u * h] | nb[2u * h + 1u] << 16;
#pragma unroll
    for (unsigned d = 1; d < 32u; d <<= 1)
#pragma unroll
        for (unsigned h = 0; h < kBatch / 2u; ++h) {
            const uint32_t v = __shfl_up_sync(kLanesAll, incl[h], d);
            if (lane >= d) incl[h] += v;
        }
#pragma unroll
    for (unsigned h = 0; h < kBatch / 2u; ++h) tot[h] = __shfl_sync(kLanesAll, incl[h], 31);
    /* base[b]: the bits of the batch's steps before step b in the stream (b + 1 .. kBatch - 1) */
    uint32_t base[kBatch], T = 0;
#pragma unroll
    for (int b = (int)kBatch - 1; b >= 0; --b) {
        base[b] = T;
        T += (tot[b / 2] >> (16u * (b % 2))) & 0xFFFFu;
    }
    if (T == 0u) return;
    if (T > E - R) {
        staging = false;
        return;
    }
    const uint32_t lo = E - R - T, off = lo % 32u, top = (off + T - 1u) / 32u;
#pragma unroll
    for (unsigned b = 0; b < kBatch; ++b)
        if (nb[b]) {
            const uint32_t p = off + base[b] + ((incl[b / 2u] >> (16u * (b % 2u))) & 0xFFFFu) - nb[b];
            atomicOr(&win[p / 32u], ex[b] << (p % 32u));
            if (p % 32u + nb[b] > 32u) atomicOr(&win[p / 32u + 1u], ex[b] >> (32u - p % 32u));
        }
    if (lane == 0 && carry) atomicOr(&win[top], carry); /* the earlier batches' bits above these */
    __syncwarp();
    /* loops of one or two rounds, mostly: not unrolled, which would only grow the code */
#pragma unroll 1
    for (unsigned i = lane; i <= top; i += 32u)
        if (i > 0u || off == 0u) xs[lo / 32u + i] = win[i];
    carry = off ? win[0] : 0u;
    __syncwarp();
#pragma unroll 1
    for (unsigned i = lane; i <= top; i += 32u) win[i] = 0;
    __syncwarp();
    R += T;
}

/* A (context, symbol)'s entry in the rANS kernel's table: cum | f << 13 | sh << 26 (cum
 * and f at most M = 2^12, sh at most 12) and f's reciprocal m (ghz_rans_recip gives m
 * and sh; a symbol without frequency is never coded and gets zeros). */
__device__ __forceinline__ uint2 rans_entry(uint32_t f, uint32_t cum, uint32_t m)
{
    const uint32_t sh = f ? 31u - (uint32_t)__clz(f) : 0u;
    return make_uint2(cum | f << 13 | sh << 26, m);
}

/* Chunk c (RATIO.md, Chunks), by one warp: steps from last to first, lane < W its own
 * state; the words a step emits are stored below the earlier ones in ascending lane
 * order, so that they read forward from the lowest. A batch's extra bits go to the
 * chunk's xs span below the later batches' (win: the warp's kStageWords shared words,
 * zero), so that the writer copies them as words instead of reading the codes again; a
 * chunk whose bits outgrow the span, or that has an outlier, is not marked staged and
 * the writer codes it from its codes. tab: the tables (rans_entry). */
__device__ void enc_rans_chunk(const enc_args& a, uint64_t c, const uint2* tab, uint32_t* win)
{
    const ratio_enc_state* const st = a.st;
    const unsigned np = 3u * a.L;
    const unsigned lane = lane_id();
    const unsigned P = pass_of_chunk(st->cstart, np, c);
    uint64_t k0, dir;
    unsigned W;
    const uint32_t K = chunk_geom(st->pstart, st->cstart, st->dstart, st->plog, a.shrink, P, c, &k0, &W, &dir);
    const uint64_t j0 = st->pstart[P] + k0;
    const uint32_t steps = (K + W - 1u) / W;
    uint16_t* const words = (uint16_t*)a.xr + j0; /* staging: K words at most */
    const int32_t* const code = a.code + j0;
    const uint8_t* const ctx = a.ctx + j0;
    uint32_t x = GHZ_RATIO_STATE_LOW, pos = K, nbits = 0, nout = 0;
    const uint32_t lt = (1u << lane) - 1u;
    uint32_t E;
    uint32_t* const xs = xs_span(a, j0, K, &E);
    uint32_t R = 0, carry = 0; /* bits staged (span bits [E - R, E)); the lowest word's, not yet stored */
    bool staging = true;
    /* the state is the only chain from step to step: a batch's codes and contexts are
     * loaded a batch ahead, in two slots (as two_slots does) */
    struct slot_t {
        int32_t kv[kBatch];
        unsigned cv[kBatch];
    };
    auto load = [&](uint32_t t1, slot_t& o) { /* the batch of steps t1 - 1 down to t1 - kBatch */
#pragma unroll
        for (unsigned b = 0; b < kBatch; ++b) {
            const uint32_t g = (t1 - 1u - b) * W + lane;
            const bool act = b < t1 && lane < W && g < K;
            o.kv[b] = act ? code[g] : 0;
            o.cv[b] = act ? ctx[g] : kNctx;
        }
    };
    /* A step without branches: an inactive lane (past the chunk's end, or beyond its
     * lanes) and an outlier take the same path as the others and have their results
     * masked, so the warp never splits around the ballot. */
    auto encode = [&](const slot_t& o) {
        uint32_t ex[kBatch];
        unsigned nb[kBatch];
#pragma unroll
        for (unsigned b = 0; b < kBatch; ++b) {
            const bool act = o.cv[b] < kNctx, outl = o.kv[b] == kOutlierCode;
            unsigned sym = ghz_ratio_symbol(o.kv[b], &ex[b], &nb[b]);
            sym = outl ? 0u : sym;
            nb[b] = outl ? 0u : nb[b];
            ex[b] = outl ? 0u : ex[b];
            nout += act && outl;
            nbits += nb[b];
            const uint2 e = tab[act ? o.cv[b] * kNsym + sym : 0u];
            uint32_t xn = x;
            uint16_t w;
            const bool emit = ghz_rans_put(&xn, (e.x >> 13) & 0x1FFFu, e.y, e.x >> 26, e.x & 0x1FFFu, &w) && act;
            x = act ? xn : x;
            const uint32_t m = __ballot_sync(kLanesAll, emit);
            pos -= __popc(m);
            if (emit) words[pos + __popc(m & lt)] = w;
        }
        if (staging) stage_batch(xs, E, win, lane, ex, nb, R, carry, staging);
    };
    slot_t sa, sb;
    uint32_t t1 = steps;
    if (t1) load(t1, sa);
    while (t1 > 0) { /* slot a holds the batch ending at step t1 - 1 */
        uint32_t t2 = t1 > kBatch ? t1 - kBatch : 0;
        if (t2) load(t2, sb);
        encode(sa);
        t1 = t2;
        if (t1 == 0) break;
        t2 = t1 > kBatch ? t1 - kBatch : 0;
        if (t2) load(t2, sa);
        encode(sb);
        t1 = t2;
    }
    ratio_chunk_info* const ci = a.ch + c;
    ci->x[lane] = x;
    nbits = (uint32_t)warp_sum(nbits);
    nout = (uint32_t)warp_sum(nout);
    if (lane == 0) {
        if (staging && (E - R) % 32u) xs[(E - R) / 32u] = carry;
        ci->words = K - pos;
        ci->bits = nbits;
        ci->n_out = nout;
        ci->staged = staging && nout == 0;
    }
}

/* The rANS chunks, a warp per chunk. */
__global__ void __launch_bounds__(kWarpCtaThreads) enc_rans_kernel(enc_args a)
{
    __shared__ uint2 tab[kTab];
    __shared__ uint32_t win[kWarpCtaThreads / 32u * kStageWords]; /* stage_batch's, a warp's */
    const ratio_enc_state* const st = a.st;
    if (st->bad_bound) return;
    for (unsigned i = threadIdx.x; i < kTab; i += blockDim.x) tab[i] = rans_entry(st->f[i], st->cum[i], st->rcp[i]);
    for (unsigned i = threadIdx.x; i < kWarpCtaThreads / 32u * kStageWords; i += blockDim.x) win[i] = 0;
    __syncthreads();
    const unsigned np = 3u * a.L;
    if (np == 0) return;
    /* a warp per chunk, as many as the frame has, on the CTAs that fit at once (or fewer
     * where a frame of n values can have fewer chunks): each warp takes the next chunk
     * from the last one down, so the finest passes' long chunks go first and the short
     * ones fill in behind, where a fixed share of chunks a warp leaves the warps that
     * drew short ones idle while others finish a last long one */
    const uint64_t nch = st->cstart[np];
    for (;;) {
        unsigned long long t = 0;
        if (lane_id() == 0) t = atomicAdd(&a.st->rans_next, 1ull);
        t = __shfl_sync(kLanesAll, t, 0);
        if (t >= nch) break;
        enc_rans_chunk(a, nch - 1u - t, tab, win + threadIdx.x / 32u * kStageWords);
    }
}

/* Exclusive sums over the chunks (byte offsets, outlier bases), the tables' bytes and
 * the parts' offsets. */
__global__ void __launch_bounds__(kScanThreads) enc_scan_kernel(enc_args a)
{
    typedef cub::BlockScan<unsigned long long, kScanThreads> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ unsigned long long carry[2];
    ratio_enc_state* const st = a.st;
    if (st->bad_bound) return;
    const uint64_t nch = st->cstart[3u * a.L];
    if (threadIdx.x == 0) carry[0] = carry[1] = 0;
    __syncthreads();
    /* kScanItems consecutive chunks a thread: their loads in flight together */
    for (uint64_t b0 = 0; b0 < nch; b0 += kScanThreads * kScanItems) {
        const uint64_t c0 = b0 + (uint64_t)threadIdx.x * kScanItems;
        unsigned long long sz[kScanItems], no[kScanItems], osz[kScanItems], ono[kScanItems], tsz, tno;
#pragma unroll
        for (unsigned i = 0; i < kScanItems; ++i) {
            sz[i] = no[i] = 0;
            if (c0 + i < nch) {
                const ratio_chunk_info& ci = a.ch[c0 + i];
                sz[i] = GHZ_RATIO_CHUNK_BYTES(ci.words, ci.bits);
                no[i] = ci.n_out;
            }
        }
        scan_t(tmp).ExclusiveSum(sz, osz, tsz);
        __syncthreads();
        scan_t(tmp).ExclusiveSum(no, ono, tno);
#pragma unroll
        for (unsigned i = 0; i < kScanItems; ++i)
            if (c0 + i < nch) {
                a.ch[c0 + i].off = carry[0] + osz[i];
                a.ch[c0 + i].out_base = carry[1] + ono[i];
            }
        __syncthreads();
        if (threadIdx.x == 0) {
            carry[0] += tsz;
            carry[1] += tno;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const unsigned elem = a.info.dtype == GHZ_F32 ? 4u : 8u;
        uint64_t tb = 0;
        for (unsigned cx = 0; cx < kNctx; ++cx) {
            tb += ghz_varint_len(st->nsym[cx]);
            for (unsigned s = 0; s < st->nsym[cx]; ++s) tb += ghz_varint_len(st->f[cx * kNsym + s]);
        }
        st->table_bytes = tb;
        st->chunk_bytes = carry[0];
        st->n_out = carry[1];
        st->off_table = GHZ_HEADER_SIZE + GHZ_RATIO_SECTION + 3ull * a.L;
        st->off_dir = st->off_table + tb;
        st->off_chunks = st->off_dir + st->dstart[3u * a.L];
        st->off_outliers = st->off_chunks + st->chunk_bytes;
        st->off_specials = st->off_outliers + st->n_out * elem;
        /* the least specials section is 24 bytes */
        st->fits = st->off_specials <= a.bound && a.bound - st->off_specials >= 24u;
    }
}

/* rANS words 2m and 2m + 1 of a chunk of nw as one little-endian u32 (0 past nw). */
__device__ __forceinline__ uint32_t word_pair(const uint16_t* words, uint32_t nw, uint32_t m)
{
    const uint32_t i = 2u * m;
    return (uint32_t)words[i] | (i + 1u < nw ? (uint32_t)words[i + 1u] << 16 : 0u);
}

/* A chunk's words c[0..n) start sh = 0..3 bytes past an aligned address `out` (every
 * chunk at the same offset modulo 4: the frame and its parts lie at any byte, the chunks'
 * sizes are whole words). Aligned word m of its span, m = 0..n, holds the top sh bytes of
 * c[m - 1] (lo) and the low 4 - sh bytes of c[m] (hi), little endian. Words 1..n-1 are
 * the chunk's alone and stored whole; words 0 and n are shared with the neighbours (or
 * the directory and the outliers), so only the chunk's bytes of them are stored. */
__device__ __forceinline__ void put_chunk_word(uint32_t* out, unsigned sh, uint64_t m, uint64_t n, uint32_t lo,
                                               uint32_t hi)
{
    const uint32_t v = __funnelshift_rc(lo, hi, 32u - 8u * sh); /* sh = 0: hi */
    if (sh == 0u || (m > 0u && m < n)) {
        if (m < n) out[m] = v;
        return;
    }
    uint8_t* const b = (uint8_t*)(out + m);
    const unsigned b0 = m == 0u ? sh : 0u, b1 = m == 0u ? 4u : sh;
    for (unsigned i = b0; i < b1; ++i) b[i] = (uint8_t)(v >> (8u * i));
}

/* One CTA per chunk: its directory entry, words, extra bits and outliers, at their
 * places in the frame. A staged chunk's extra bits are words already (xs_span) and are
 * shifted into place. Otherwise the extra bits and the outliers go in tiles of
 * kWriteTile symbols, kWritePer consecutive ones a thread, placed by a block-wide scan:
 * a chunk takes K / kWriteTile steps, not one per 32 symbols, its bits gathered in
 * shared memory. The chunk is stored in aligned u32 words (put_chunk_word). */
constexpr unsigned kWriteThreads = 256;
constexpr unsigned kWritePer = 8;
constexpr unsigned kWriteTile = kWriteThreads * kWritePer;
/* u32 words a tile's bits can touch, with the word carried in from the tile before */
constexpr unsigned kWriteWin = kWriteTile * 27u / 32u + 2u;

typedef cub::BlockScan<unsigned, kWriteThreads> write_scan_t;

/* Chunk c, by the CTA: its directory entry, words, extra bits and outliers. tmp, win and
 * prev are the CTA's shared memory. */
template <typename T>
__device__ void enc_write_chunk(const enc_args& a, uint64_t c, write_scan_t::TempStorage& tmp, uint32_t* win,
                                uint32_t& prev)
{
    typedef write_scan_t scan_t;
    const ratio_enc_state* const st = a.st;
    const unsigned t = threadIdx.x, np = 3u * a.L;
    const uint64_t lim = a.bound;
    uint8_t* const dst = a.dst;
    const ratio_chunk_info& ci = a.ch[c];
    const unsigned P = pass_of_chunk(st->cstart, np, c);
    uint64_t k0, dir;
    unsigned W;
    const uint32_t K = chunk_geom(st->pstart, st->cstart, st->dstart, st->plog, a.shrink, P, c, &k0, &W, &dir);
    const uint64_t j0 = st->pstart[P] + k0;
    const uint32_t nw = ci.words;
    /* directory entry */
    const uint64_t de = st->off_dir + dir;
    if (t < W) put_le(dst, de + 8 + 4 * t, lim, ci.x[t], 4);
    if (t == 0) {
        put_le(dst, de, lim, nw, 4);
        put_le(dst, de + 4, lim, ci.bits, 4);
    }
    /* The chunk is n u32 words c[0..n): the rANS words in pairs (a zero one after an odd
     * count), then the extra bits. It is stored as the aligned words it covers (see
     * put_chunk_word), sh bytes past an aligned address. */
    const uint64_t base = st->off_chunks + ci.off;
    const unsigned sh = (unsigned)((uintptr_t)(dst + base) & 3u);
    uint32_t* const out = (uint32_t*)(dst + base - sh);
    const uint32_t nwp = (uint32_t)(GHZ_RATIO_WORD_BYTES(nw) / 4u);
    const uint64_t n = nwp + (ci.bits + 31ull) / 32u;
    const uint16_t* const words = (const uint16_t*)a.xr + j0 + (K - nw);
    for (uint32_t m = t; m < nwp; m += kWriteThreads)
        put_chunk_word(out, sh, m, n, m ? word_pair(words, nw, m - 1u) : 0u, word_pair(words, nw, m));
    if (ci.staged) { /* the extra bits as the rANS kernel left them (xs_span), no outlier */
        uint32_t E;
        const uint32_t* const xs = xs_span(a, j0, K, &E);
        const uint32_t s0 = E - ci.bits, q = s0 / 32u, r = s0 % 32u, qe = E / 32u;
        auto extra_word = [&](uint64_t i) { /* the chunk's word nwp + i */
            const uint64_t k = q + i;
            return __funnelshift_r(xs[k], k + 1u < qe ? xs[k + 1u] : 0u, r);
        };
        if (n)
            for (uint64_t m = nwp + t; m <= n; m += kWriteThreads) {
                const uint32_t lo = m == 0u ? 0u : m - 1u < nwp ? word_pair(words, nw, (uint32_t)m - 1u)
                                                                  : extra_word(m - 1u - nwp);
                put_chunk_word(out, sh, m, n, lo, m < n ? extra_word(m - nwp) : 0u);
            }
        return;
    }
    /* extra bits in symbol order and outliers in pass order, tile by tile; prev is the
     * chunk's last word stored whole before the tile */
    const int32_t* const code = a.code + j0;
    for (unsigned i = t; i < kWriteWin; i += kWriteThreads) win[i] = 0;
    if (t == 0) prev = nwp ? word_pair(words, nw, nwp - 1u) : 0u;
    unsigned cubic;
    const ghz_ratio_pass_t ps = pass_at(a.d, a.L, st->choices, P, &cubic);
    uint64_t acc = 0, rank0 = ci.out_base; /* bits packed before the tile; its first outlier's rank */
    __syncthreads();
    for (uint32_t g1 = 0; g1 < K; g1 += kWriteTile) {
        int32_t kv[kWritePer];
        unsigned nbits = 0, nout = 0;
#pragma unroll
        for (unsigned i = 0; i < kWritePer; ++i) {
            const uint32_t g = g1 + t * kWritePer + i;
            kv[i] = g < K ? code[g] : 0;
            uint32_t ex;
            unsigned nb = 0;
            if (g < K && kv[i] != kOutlierCode) (void)ghz_ratio_symbol(kv[i], &ex, &nb);
            nbits += nb;
            nout += g < K && kv[i] == kOutlierCode;
        }
        unsigned bit0, bits_tile, out0, outs_tile;
        scan_t(tmp).ExclusiveSum(nbits, bit0, bits_tile);
        __syncthreads();
        scan_t(tmp).ExclusiveSum(nout, out0, outs_tile);
        /* window word 0 is the chunk's word acc / 32, already holding the bits below acc */
        uint32_t p = (uint32_t)(acc % 32u) + bit0;
#pragma unroll
        for (unsigned i = 0; i < kWritePer; ++i) {
            const uint32_t g = g1 + t * kWritePer + i;
            if (g >= K) break;
            if (kv[i] == kOutlierCode) {
                uint64_t cc[3];
                const uint64_t idx = pass_point(ps, a.d, k0 + g, cc);
                put_le(dst, st->off_outliers + (rank0 + out0++) * sizeof(T), lim,
                       ((const typename bits_of<T>::type*)a.src)[idx], sizeof(T));
                continue;
            }
            uint32_t ex;
            unsigned nb;
            (void)ghz_ratio_symbol(kv[i], &ex, &nb);
            if (nb) {
                const unsigned sh = p % 32u;
                atomicOr(&win[p / 32u], ex << sh);
                if (sh + nb > 32u) atomicOr(&win[p / 32u + 1u], ex >> (32u - sh));
                p += nb;
            }
        }
        __syncthreads();
        const uint64_t w0 = acc / 32u, end = acc + bits_tile, whole = end / 32u - w0;
        for (uint64_t w = t; w < whole; w += kWriteThreads)
            put_chunk_word(out, sh, nwp + w0 + w, n, w ? win[w - 1] : prev, win[w]);
        const uint32_t left = end % 32u ? win[whole] : 0u; /* the partial last word */
        const uint32_t last = whole ? win[whole - 1] : prev;
        __syncthreads();
        for (unsigned i = t; i < kWriteWin; i += kWriteThreads) win[i] = 0;
        __syncthreads();
        if (t == 0) {
            win[0] = left;
            prev = last;
        }
        __syncthreads();
        acc = end;
        rank0 += outs_tile;
    }
    /* the partial last word of extra bits, then the chunk's bytes of the aligned word
     * after its last */
    if (t == 0 && n) {
        uint32_t lo = prev;
        if (acc % 32u) {
            put_chunk_word(out, sh, n - 1u, n, prev, win[0]);
            lo = win[0];
        }
        put_chunk_word(out, sh, n, n, lo, 0u);
    }
}

/* The chunks, a CTA per chunk, over as many as the frame has. */
template <typename T>
__global__ void __launch_bounds__(kWriteThreads) enc_write_kernel(enc_args a)
{
    __shared__ write_scan_t::TempStorage tmp;
    __shared__ uint32_t win[kWriteWin];
    __shared__ uint32_t prev;
    __shared__ unsigned long long next;
    const ratio_enc_state* const st = a.st;
    if (st->bad_bound || !st->fits) return;
    const uint64_t nch = st->cstart[3u * a.L];
    for (;;) { /* chunks from the last one down, as the rANS kernel takes them */
        if (threadIdx.x == 0) next = atomicAdd(&a.st->write_next, 1ull);
        __syncthreads();
        const uint64_t t = next;
        if (t >= nch) break;
        enc_write_chunk<T>(a, nch - 1u - t, tmp, win, prev);
        __syncthreads(); /* the window, prev and next are the next chunk's */
    }
}

/* The specials section (RATIO.md), written by one CTA in tiles of the array: the mask
 * residual's runs (costed first with each allowed predecessor, then written with the
 * cheapest), then the runs of equal patterns, each as block-wide scans. The usual
 * case, no special at all, is its 24 bytes. */
constexpr unsigned kSpecThreads = 1024;

template <typename T>
__global__ void __launch_bounds__(kSpecThreads) enc_specials_kernel(enc_args a)
{
    typedef cub::BlockScan<long long, kSpecThreads> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ long long s_last;      /* runs: the last change; patterns: the last boundary rank */
    __shared__ unsigned long long s_pos, s_count, s_rank, s_bits;
    __shared__ int s_prev;            /* runs: the residual before the tile */
    __shared__ int s_r[kSpecThreads];
    __shared__ unsigned long long s_tl;
    __shared__ unsigned s_nc;
    ratio_enc_state* const st = a.st;
    if (st->bad_bound || !st->fits) return;
    const uint64_t base = st->off_specials, lim = a.bound, n = a.n;
    const uint64_t ns = st->n_special;
    const unsigned elem = sizeof(T), t = threadIdx.x;
    uint8_t* const dst = a.dst;
    if (ns == 0) {
        if (t < 24) put_le(dst, base + t, lim, 0, 1);
        if (t == 0) st->special_bytes = 24;
        return;
    }
    auto special = [&](uint64_t i) -> int {
        uint64_t bits;
        const double x = load_value<T>(a.src, i, &bits);
        return is_special(x, bits, a.has_fill, a.fill_bits);
    };
    const uint64_t lags[3] = {0, a.d[0], a.d[0] * a.d[1]};
    uint64_t best = ~0ull, best_runs = 0;
    unsigned kind = 0;
    /* k = 0..2: the cost of each predecessor (the CPU's order and ties); k = 3: write */
    for (unsigned k = 0; k < 4; ++k) {
        if (k > 0 && k < 3 && (lags[k] >= n || lags[k] == lags[k - 1])) continue;
        const bool write = k == 3;
        const uint64_t lag = lags[write ? kind : k];
        if (t == 0) {
            s_last = 0;
            s_pos = base + 17;
            s_count = 0;
            s_prev = 0;
        }
        __syncthreads();
        /* runs: a change of the residual at i ends the run since the previous change */
        for (uint64_t i0 = 0; i0 < n; i0 += kSpecThreads) {
            const uint64_t i = i0 + t;
            const int r = i < n ? special(i) ^ (lag && i >= lag ? special(i - lag) : 0) : 0;
            s_r[t] = r;
            __syncthreads();
            const int before = t ? s_r[t - 1] : s_prev;
            const bool change = i < n && r != before;
            long long prev_in; /* the last change before i in this tile, or -1 */
            scan_t(tmp).ExclusiveScan(change ? (long long)i : -1ll, prev_in, -1ll, ::cuda::maximum<>{});
            __syncthreads();
            const unsigned long long len = change ? i - (prev_in >= 0 ? (uint64_t)prev_in : (uint64_t)s_last) : 0;
            const long long bytes = change ? (long long)ghz_varint_len(len) : 0;
            long long at, total;
            scan_t(tmp).ExclusiveSum(bytes, at, total);
            __syncthreads();
            if (change && write) {
                uint8_t b[10];
                const unsigned m = ghz_varint_put(b, len);
                for (unsigned q = 0; q < m; ++q) put_le(dst, s_pos + at + q, lim, b[q], 1);
            }
            /* the tile's last change (as i + 1, 0: none) and count */
            if (t == 0) {
                s_tl = 0;
                s_nc = 0;
            }
            __syncthreads();
            if (change) {
                atomicMax(&s_tl, (unsigned long long)i + 1u);
                atomicAdd(&s_nc, 1u);
            }
            __syncthreads();
            if (t == 0) {
                if (s_nc) s_last = (long long)(s_tl - 1u);
                s_count += s_nc;
                s_pos += (unsigned long long)total;
                s_prev = s_r[kSpecThreads - 1 < n - 1 - i0 ? kSpecThreads - 1 : (unsigned)(n - 1 - i0)];
            }
            __syncthreads();
        }
        /* the last run */
        const uint64_t last = n - (uint64_t)s_last;
        const uint64_t cost = s_pos - (base + 17) + ghz_varint_len(last);
        __syncthreads(); /* every thread has read s_pos and s_last before thread 0 moves them */
        if (!write) {
            if (cost < best) {
                best = cost;
                kind = k;
                best_runs = s_count + 1;
            }
            __syncthreads();
            continue;
        }
        if (t == 0) {
            uint8_t b[10];
            const unsigned m = ghz_varint_put(b, last);
            for (unsigned q = 0; q < m; ++q) put_le(dst, s_pos + q, lim, b[q], 1);
            s_pos += m;
            put_le(dst, base, lim, ns, 8);
            put_le(dst, base + 8, lim, best_runs, 8);
            put_le(dst, base + 16, lim, kind, 1);
            s_rank = 0;  /* specials seen */
            s_last = -1; /* rank of the current pattern run's first special */
            s_bits = 0;  /* the current run's pattern */
            s_count = 0; /* runs written */
        }
        __syncthreads();
    }
    const uint64_t pat_at = s_pos;
    __syncthreads();
    if (t == 0) s_pos += 8;
    __syncthreads();
    /* patterns: a special whose pattern differs from the previous special's starts a run,
     * and ends the current one (written as pattern and count) */
    for (uint64_t i0 = 0; i0 < n; i0 += kSpecThreads) {
        const uint64_t i = i0 + t;
        uint64_t bits = 0;
        int sp = 0;
        if (i < n) {
            const double x = load_value<T>(a.src, i, &bits);
            sp = is_special(x, bits, a.has_fill, a.fill_bits);
        }
        long long rank_in, nsp;
        scan_t(tmp).ExclusiveSum((long long)sp, rank_in, nsp);
        __syncthreads();
        long long prev_sp; /* the previous special in this tile, or -1 */
        scan_t(tmp).ExclusiveScan(sp ? (long long)i : -1ll, prev_sp, -1ll, ::cuda::maximum<>{});
        __syncthreads();
        const uint64_t rank = s_rank + (uint64_t)rank_in;
        bool start = false;
        uint64_t prev_bits = s_bits;
        if (sp) {
            if (prev_sp >= 0) {
                uint64_t pb;
                (void)load_value<T>(a.src, (uint64_t)prev_sp, &pb);
                prev_bits = pb;
                start = pb != bits;
            } else {
                start = s_last < 0 || s_bits != bits;
            }
        }
        /* a run start other than the first ends the run before it */
        const bool ends = start && rank > 0;
        long long run_first; /* rank of the previous run start, within the tile, or -1 */
        scan_t(tmp).ExclusiveScan(start ? (long long)rank : -1ll, run_first, -1ll, ::cuda::maximum<>{});
        __syncthreads();
        uint64_t cnt = 0;
        long long bytes = 0;
        if (ends) {
            const uint64_t first = run_first >= 0 ? (uint64_t)run_first : (uint64_t)s_last;
            cnt = rank - first;
            bytes = (long long)(elem + ghz_varint_len(cnt));
        }
        long long at, total;
        scan_t(tmp).ExclusiveSum(bytes, at, total);
        __syncthreads();
        if (ends) {
            uint8_t b[10];
            const unsigned m = ghz_varint_put(b, cnt);
            put_le(dst, s_pos + at, lim, prev_bits, elem);
            for (unsigned k = 0; k < m; ++k) put_le(dst, s_pos + at + elem + k, lim, b[k], 1);
        }
        /* the tile's last start (rank, pattern), the runs it ended */
        __shared__ unsigned long long s_ls_rank, s_ls_bits;
        __shared__ unsigned s_ends, s_any;
        if (t == 0) {
            s_any = 0;
            s_ends = 0;
        }
        __syncthreads();
        if (ends) atomicAdd(&s_ends, 1u);
        if (start) atomicMax(&s_any, t + 1);
        __syncthreads();
        if (s_any && t == s_any - 1) {
            s_ls_rank = rank;
            s_ls_bits = bits;
        }
        __syncthreads();
        if (t == 0) {
            if (s_any) {
                s_last = (long long)s_ls_rank;
                s_bits = s_ls_bits;
            }
            s_count += s_ends;
            s_rank += (uint64_t)nsp;
            s_pos += (unsigned long long)total;
        }
        __syncthreads();
    }
    if (t == 0) {
        uint8_t b[10];
        const unsigned m = ghz_varint_put(b, ns - (uint64_t)s_last);
        put_le(dst, s_pos, lim, s_bits, elem);
        for (unsigned k = 0; k < m; ++k) put_le(dst, s_pos + elem + k, lim, b[k], 1);
        s_pos += elem + m;
        put_le(dst, pat_at, lim, s_count + 1, 8);
        st->special_bytes = s_pos - base;
    }
}

/* Header, section, choices, tables; the size and status; or the block frame's gate. */
__global__ void enc_finish_kernel(enc_args a)
{
    ratio_enc_state* const st = a.st;
    const unsigned t = threadIdx.x;
    if (st->bad_bound) {
        if (t == 0) {
            report(a.d_status, GHZ_ERR_BAD_BOUND);
            *a.d_size = 0;
        }
        return;
    }
    const uint64_t total = st->fits ? st->off_specials + st->special_bytes : ~0ull;
    if (total > a.bound) { /* the block frame instead: compress.cu's kernels, next */
        if (t == 0) st->gate = 1;
        return;
    }
    uint8_t* const dst = a.dst;
    if (t == 0) {
        ghz_frame_info_t fi = a.info;
        uint8_t h[GHZ_HEADER_SIZE];
        fi.n = a.n;
        fi.eb_abs = st->eb;
        if (a.d_eb_abs) fi.eb_user = st->eb;
        fi.payload_size = total - GHZ_HEADER_SIZE;
        fi.prefer = GHZ_PREFER_RATIO;
        fi.has_checksum = 0;
        ghz_ratio_header_pack(h, &fi, a.ndims, a.spread, a.shrink);
        for (unsigned i = 0; i < GHZ_HEADER_SIZE; ++i) dst[i] = h[i];
        uint8_t* const sec = dst + GHZ_HEADER_SIZE;
        for (unsigned i = 0; i < GHZ_RATIO_SECTION; ++i) sec[i] = 0;
        for (unsigned i = 0; i < 3; ++i) put_le(sec, 8 * i, ~0ull, a.d[i], 8);
        sec[24] = (uint8_t)a.L;
        sec[25] = (uint8_t)GHZ_RATIO_PROB_BITS;
        sec[26] = (uint8_t)GHZ_RATIO_CHUNK_LOG2;
        sec[27] = (uint8_t)GHZ_RATIO_NCTX;
        put_le(sec, 28, ~0ull, st->table_bytes, 4);
        put_le(sec, 32, ~0ull, st->n_out, 8);
        put_le(sec, 40, ~0ull, st->chunk_bytes, 8);
        put_le(sec, 48, ~0ull, st->special_bytes, 8);
        put_le(sec, 56, ~0ull, st->x0, 8);
        /* tables: per context the varint count, then the varint frequencies */
        uint64_t at = st->off_table;
        for (unsigned cx = 0; cx < kNctx; ++cx) {
            at += ghz_varint_put(dst + at, st->nsym[cx]);
            for (unsigned s = 0; s < st->nsym[cx]; ++s) at += ghz_varint_put(dst + at, st->f[cx * kNsym + s]);
        }
        *a.d_size = total;
    }
    for (unsigned i = t; i < 3u * a.L; i += blockDim.x) dst[GHZ_HEADER_SIZE + GHZ_RATIO_SECTION + i] = st->choices[i];
}

namespace {

/* CTAs that fit on the GPU at once (with smem dynamic shared bytes each), at most
 * `want`: a cooperative kernel's grid-wide barrier needs them all resident, and a
 * grid-stride kernel gains nothing from more. */
template <typename K>
unsigned resident_grid(K kernel, unsigned threads, int sms, uint64_t want, size_t smem = 0)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)threads, smem) != cudaSuccess || per_sm < 1)
        per_sm = 1;
    uint64_t g = (uint64_t)per_sm * (uint64_t)sms;
    if (want < g) g = want ? want : 1;
    return (unsigned)g;
}

template <typename... Exp, typename... Act>
cudaError_t launch_coop(void (*kernel)(Exp...), dim3 grid, dim3 block, cudaStream_t stream, Act&&... args)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, kernel, std::forward<Act>(args)...);
}

} // namespace

/* enc_tile_kernel for passes 1 and 2 of level l: as many CTAs as fit at once, at most
 * one a box. */
template <typename T, typename I>
cudaError_t launch_enc_tiles(const enc_args& a, unsigned l, int sms, cudaStream_t stream)
{
    size_t smem = 0;
    const tile_box_t box = enc_tile_box<T>(a.d, &smem);
    const uint64_t s = (uint64_t)1 << (l - 1);
    uint64_t boxes = 1;
    for (unsigned x = 0; x < 3; ++x) boxes *= (ghz_ratio_mults(a.d[x], s) + box.B[x] - 1) / box.B[x];
    const cudaError_t e =
        cudaFuncSetAttribute(enc_tile_kernel<T, I>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    const unsigned grid = resident_grid(enc_tile_kernel<T, I>, kTileThreads, sms, boxes, smem);
    return launch_smem(enc_tile_kernel<T, I>, grid, kTileThreads, smem, stream, a, l, box);
}

/* Every level's kernels, coarsest first; each grid sized by the level's points (the
 * grid of stride 2^(l-1) bounds every pass of level l). The coding kernel runs two
 * CTAs an SM (NT, MINB): capped lower it spills its batch, which costs more than the
 * third CTA gains. Every pass's choice comes from the level kernel's sums; passes 1 and
 * 2 run in enc_tile_kernel's boxes, whose coordinates are ints (extents below 2^30;
 * beyond, enc_code_kernel codes them as it codes pass 0). */
template <typename T, typename I, int NT, int MINB>
cudaError_t launch_enc_levels(const enc_args& a, int sms, cudaStream_t stream)
{
    cudaError_t e = cudaSuccess;
    auto grid_points = [&](unsigned l) { /* the grid of stride 2^(l-1) */
        const uint64_t s = (uint64_t)1 << (l - 1);
        return ghz_ratio_mults(a.d[0], s) * ghz_ratio_mults(a.d[1], s) * ghz_ratio_mults(a.d[2], s);
    };
    const bool boxed = a.d[0] < kIndex32 && a.d[1] < kIndex32 && a.d[2] < kIndex32;
    unsigned top = a.L; /* the finest level the coarse kernel leaves to the grids */
    if (a.L >= 2 && grid_points(a.L) <= kCoarsePoints) {
        unsigned lo = a.L;
        while (lo > 2 && grid_points(lo - 1) <= kCoarsePoints) --lo;
        e = launch(enc_coarse_kernel<T, I>, 1u, kPassThreads, stream, a, lo);
        top = lo - 1;
    }
    for (unsigned l = top; l >= 1 && e == cudaSuccess; --l) {
        const uint64_t pts = grid_points(l);
        const uint64_t samples = ghz_ratio_samples(pts) + 1;
        const unsigned gs =
            resident_grid(enc_level_kernel<T>, kPassThreads, sms, (samples + kPassThreads - 1) / kPassThreads);
        const unsigned gc =
            resident_grid(enc_code_kernel<T, I, NT, MINB>, NT, sms, (pts + NT * kEncBatch - 1) / (NT * kEncBatch));
        e = launch(enc_level_kernel<T>, gs, kPassThreads, stream, a, l);
        if (e == cudaSuccess) e = launch(enc_code_kernel<T, I, NT, MINB>, gc, NT, stream, a, l, 0u);
        if (e != cudaSuccess) break;
        if (boxed)
            e = launch_enc_tiles<T, I>(a, l, sms, stream);
        else
            for (unsigned q = 1; q < 3 && e == cudaSuccess; ++q)
                e = launch(enc_code_kernel<T, I, NT, MINB>, gc, NT, stream, a, l, q);
    }
    return e;
}

template <typename T, typename U>
cudaError_t launch_ratio_compress_t(const ratio_job& j, void* d_work, int sms, cudaStream_t stream)
{
    enc_args a;
    memset(&a, 0, sizeof a);
    char* w = (char*)d_work;
    a.src = j.src;
    a.dst = j.dst;
    a.n = j.n;
    for (int i = 0; i < 3; ++i) a.d[i] = j.d[i];
    a.L = ghz_ratio_levels(j.d[0], j.d[1], j.d[2]);
    a.ndims = j.ndims;
    /* the ratio frame's fill is the caller's (RATIO.md); the block fallback below keeps
     * j.info, whose fill is the block frames' */
    a.has_fill = j.user_fill;
    a.fill_bits = j.user_fill ? j.info.fill_bits : 0;
    a.info = j.info;
    a.info.has_fill = a.has_fill;
    a.info.fill_bits = a.fill_bits;
    a.d_eb_abs = j.d_eb_abs;
    a.d_range = j.d_range;
    a.rel_keys = j.rel_keys;
    a.st = (ratio_enc_state*)w;
    w += up256(sizeof(ratio_enc_state));
    a.xr = w;
    w += up256(j.n * sizeof(T));
    a.code = (int32_t*)w;
    w += enc_code_bytes(j.n);
    a.ctx = (uint8_t*)w;
    w += up256(j.n);
    a.ch = (ratio_chunk_info*)w;
    a.spread = ghz_ratio_spread_for(j.n);
    a.shrink = ghz_ratio_shrink_for(a.spread);
    a.max_chunks = enc_max_chunks(j.n);
    a.bound = ghz_compress_bound((size_t)j.n, j.info.dtype);
    a.d_size = j.d_size;
    a.d_status = j.d_status;

    cudaError_t e = launch(enc_init_kernel, 1, 256, stream, a);
    batch_t b;
    memset(&b, 0, sizeof b);
    b.k = 1;
    b.c[0].src = j.src;
    b.c[0].n = j.n;
    b.c[0].range = a.st->range_key;
    if (e == cudaSuccess && j.scan) e = launch_range_keys<T, U>(b, a.has_fill, a.fill_bits, sms, stream);
    if (e == cudaSuccess) e = launch(enc_start_kernel<T>, 1, 1, stream, a);
    if (e == cudaSuccess) {
        if (j.n < kIndex32) e = launch_enc_levels<T, uint32_t, kPassThreads, 2>(a, sms, stream);
        else e = launch_enc_levels<T, uint64_t, kPassThreads, 1>(a, sms, stream);
    }
    if (e == cudaSuccess) e = launch(enc_tables_kernel, 1, 64, stream, a);
    /* the chunk kernels loop over the frame's chunks (known on the GPU only), on the CTAs
     * that fit at once, or as many as the most chunks need */
    const unsigned warps = kWarpCtaThreads / 32;
    const unsigned rans_ctas = resident_grid(enc_rans_kernel, kWarpCtaThreads, sms, (a.max_chunks + warps - 1) / warps);
    const unsigned write_ctas = resident_grid(enc_write_kernel<T>, kWriteThreads, sms, a.max_chunks);
    if (e == cudaSuccess) e = launch(enc_rans_kernel, rans_ctas, kWarpCtaThreads, stream, a);
    if (e == cudaSuccess) e = launch(enc_scan_kernel, 1, kScanThreads, stream, a);
    if (e == cudaSuccess) e = launch(enc_write_kernel<T>, write_ctas, kWriteThreads, stream, a);
    if (e == cudaSuccess) e = launch(enc_specials_kernel<T>, 1, kSpecThreads, stream, a);
    if (e == cudaSuccess) e = launch(enc_finish_kernel, 1, 128, stream, a);
    if (e != cudaSuccess) return e;
    /* the block frame, behind the gate (RATIO.md: the bound is a promise) */
    batch_t fb;
    memset(&fb, 0, sizeof fb);
    fb.k = 1;
    fb.d_gate = &a.st->gate;
    fb.d_eb_abs = j.d_eb_abs;
    fb.d_range = j.rel_keys ? &a.st->range : nullptr;
    chunk_t& c = fb.c[0];
    c.src = j.src;
    c.dst = j.dst;
    c.n = j.n;
    c.d_out = j.d_size;
    c.d_status = j.d_status;
    c.range = j.rel_keys ? a.st->range_key : nullptr;
    const int tiles = tiles_for(j.n);
    c.tiles = lookback_state(a.code, tiles); /* the codes' buffer is free by then */
    c.tile_begin = 0;
    c.num_tiles = tiles;
    return launch_compress<T, U>(fb, j.info, tiles, tiles, false, sms, stream);
}

cudaError_t launch_ratio_compress(const ratio_job& j, void* d_work, int sms, cudaStream_t stream)
{
    return j.info.dtype == GHZ_F32 ? launch_ratio_compress_t<float, uint32_t>(j, d_work, sms, stream)
                                   : launch_ratio_compress_t<double, unsigned long long>(j, d_work, sms, stream);
}


/* ==== reader ======================================================================== */

constexpr unsigned kDecMaxGrid = 1024; /* the reader's CTAs at most: one directory slice each */

struct ratio_dec_state {
    int parsed;     /* a ratio frame whose header, checksum, section and tables were accepted */
    int dir_bad;    /* a directory entry out of its bounds (any CTA's slice) */
    int bad;        /* a corrupt part was found: every warp stops taking and waiting on chunks */
    ghz_ratio_layout_t L;
    ghz_frame_info_t info;
    uint16_t f[kTab];
    uint32_t cum[kTab];
    unsigned nsym[kNctx];
    uint8_t lut[kNctx][GHZ_RATIO_M];
    uint64_t pstart[kMaxPasses + 1], cstart[kMaxPasses + 1], dstart[kMaxPasses + 1];
    uint8_t plog[kMaxPasses];
    unsigned long long ticket;               /* the next chunk a warp takes, in chunk order */
    unsigned long long n_out; /* outlier symbols, all chunks' */
    unsigned long long pass_done[kMaxPasses]; /* chunks of each pass whose values are all written */
    unsigned long long slice_bytes[kDecMaxGrid]; /* chunk bytes of each CTA's directory slice */
};

/* A chunk's progress (ratio_dec_chunk.state), each bit set once, after a fence: its
 * outlier count (n_out) is known; the outliers of every chunk up to it (incl) are known;
 * its values are all written. */
constexpr unsigned kChunkCounted = 1u, kChunkPrefix = 2u, kChunkDone = 4u;

struct ratio_dec_chunk {
    uint64_t off;   /* the chunk's bytes, from the chunks' start */
    uint32_t n_out; /* its outlier symbols */
    uint32_t state; /* kChunk* bits */
    uint64_t incl;  /* outlier symbols of the chunks up to it, when kChunkPrefix */
};

/* The reader's workspace of one frame: state, per-chunk table, the specials bitmap. */
__host__ __device__ inline size_t dec_chunks_max(uint64_t max_elems)
{
    return (max_elems >> GHZ_RATIO_CHUNK_LOG2_MIN) + 3u * kMaxLevels + 1u;
}

size_t ratio_decompress_work_bytes(uint64_t max_elems)
{
    return up256(sizeof(ratio_dec_state)) + up256(dec_chunks_max(max_elems) * sizeof(ratio_dec_chunk)) +
           up256((max_elems / 32 + 2) * 4);
}

__device__ __forceinline__ ratio_dec_state* dec_state(const chunk_t& c)
{
    return (ratio_dec_state*)c.ratio;
}

__device__ __forceinline__ ratio_dec_chunk* dec_chunks(const chunk_t& c)
{
    return (ratio_dec_chunk*)((char*)c.ratio + ((sizeof(ratio_dec_state) + 255u) & ~(size_t)255u));
}

__device__ __forceinline__ uint32_t* dec_bitmap(const chunk_t& c, uint64_t capacity_elems)
{
    return (uint32_t*)((char*)dec_chunks(c) +
                       ((dec_chunks_max(capacity_elems) * sizeof(ratio_dec_chunk) + 255u) & ~(size_t)255u));
}

__device__ __forceinline__ void dec_corrupt(const chunk_t& c, ratio_dec_state* ds)
{
    *(volatile int*)&ds->bad = 1; /* read by warps waiting on other chunks */
    report(c.d_status, GHZ_ERR_CORRUPT);
}

/* CTA 0: section, tables, choices and pass table, checked as the CPU's reader checks
 * them; the symbol lookup table; element 0. Sets ds->parsed. */
template <typename T>
__device__ void dec_parse(const chunk_t& c, ratio_dec_state* ds)
{
    /* The header, section and choices, then the tables, are copied in by the CTA:
     * thread 0 reads them one field or varint after the other, and a chain of global
     * loads would cost about a microsecond a byte. */
    __shared__ uint8_t s_head[kHeadBytesMax];
    __shared__ uint8_t s_tab[kTableBytesMax];
    __shared__ int s_ok;
    const parsed_t* const pr = c.parsed;
    const unsigned t = threadIdx.x;
    const bool mine = pr->status == GHZ_SUCCESS && pr->is_ratio && pr->crc_status == GHZ_SUCCESS;
    if (mine) {
        const uint64_t room = GHZ_HEADER_SIZE + pr->info.payload_size;
        for (unsigned i = t; i < kHeadBytesMax && i < room; i += blockDim.x) s_head[i] = c.src[i];
    }
    __syncthreads();
    if (t == 0) {
        int ok = mine;
        ds->parsed = 0;
        ds->dir_bad = 0;
        ds->bad = 0;
        ds->ticket = 0;
        if (ok) { /* it reads the first GHZ_HEADER_SIZE + GHZ_RATIO_SECTION + 3 L bytes, within the payload */
            ds->info = pr->info;
            if (ghz_ratio_layout(s_head, &pr->info, &ds->L) != 0) ok = 0;
        }
        if (ok && ds->L.table_bytes > kTableBytesMax) ok = 0;
        s_ok = ok;
    }
    __syncthreads();
    if (s_ok) {
        for (unsigned i = t; i < ds->L.table_bytes; i += blockDim.x) s_tab[i] = c.src[ds->L.off_table + i];
        for (unsigned i = t; i < kTab; i += blockDim.x) {
            ds->f[i] = 0;
            ds->cum[i] = 0;
        }
    }
    __syncthreads();
    if (t == 0) {
        int ok = s_ok;
        if (ok) { /* RATIO.md, Tables: per context a varint count and its varint frequencies */
            const uint64_t lim = ds->L.table_bytes;
            uint64_t pos = 0, v;
            for (unsigned cx = 0; cx < kNctx && ok; ++cx) {
                uint32_t sum = 0, last = 0;
                if (ghz_varint_get(s_tab, lim, &pos, &v) != 0 || v > kNsym) {
                    ok = 0;
                    break;
                }
                const unsigned ns = (unsigned)v;
                ds->nsym[cx] = ns;
                for (unsigned s = 0; s < ns; ++s) {
                    if (ghz_varint_get(s_tab, lim, &pos, &v) != 0 || v > GHZ_RATIO_M) {
                        ok = 0;
                        break;
                    }
                    ds->f[cx * kNsym + s] = (uint16_t)v;
                    ds->cum[cx * kNsym + s] = sum;
                    sum += (uint32_t)v;
                    last = (uint32_t)v;
                }
                if (ok && ns && (sum != GHZ_RATIO_M || last == 0)) ok = 0;
            }
            if (ok && pos != lim) ok = 0;
        }
        if (ok) { /* choices were checked by the layout: the pass table */
            pass_table(ds->L.d, ds->L.levels, s_head + ds->L.off_choices, ds->L.chunk_log2, ds->L.spread,
                       ds->L.shrink, ds->pstart, ds->cstart, ds->dstart, ds->plog);
            ds->n_out = 0;
            for (unsigned P = 0; P < 3u * ds->L.levels; ++P) ds->pass_done[P] = 0;
            ((typename bits_of<T>::type*)c.dst)[0] = (typename bits_of<T>::type)ds->L.x0;
        }
        if (!ok && mine) report(c.d_status, GHZ_ERR_CORRUPT);
        s_ok = ok;
    }
    __syncthreads();
    if (!s_ok) return;
    /* counts and offsets read once: the byte stores below may alias them, and a reload
     * from global memory per stored byte made this fill the reader's slowest step */
    for (unsigned cx = 0; cx < kNctx; ++cx) {
        const unsigned ns = ds->nsym[cx];
        for (unsigned s = t; s < ns; s += blockDim.x) {
            const unsigned fs = ds->f[cx * kNsym + s];
            uint8_t* const to = ds->lut[cx] + ds->cum[cx * kNsym + s];
            for (unsigned i = 0; i < fs; ++i) to[i] = (uint8_t)s;
        }
    }
    __syncthreads();
    if (t == 0) ds->parsed = 1;
}

/* The directory's chunks of this CTA: a slice of ceil(chunks / CTAs) in chunk order. */
__device__ __forceinline__ void dec_slice(const ratio_dec_state* ds, uint64_t* lo, uint64_t* hi)
{
    const uint64_t nch = ds->cstart[3u * ds->L.levels], per = (nch + gridDim.x - 1) / gridDim.x;
    *lo = per * blockIdx.x < nch ? per * blockIdx.x : nch;
    *hi = *lo + per < nch ? *lo + per : nch;
}

/* Every CTA, its slice of the directory: counts within bounds, states >= 2^16, each
 * chunk's offset from the slice's start, and the slice's bytes (ds->slice_bytes). The
 * slices of a large frame hold tens of thousands of entries: one CTA alone kept the
 * whole grid waiting. */
__device__ void dec_directory(const chunk_t& c, ratio_dec_state* ds)
{
    typedef cub::BlockScan<unsigned long long, kPassThreads> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ unsigned long long s_carry;
    __shared__ int s_bad;
    const unsigned t = threadIdx.x;
    const unsigned np = 3u * ds->L.levels;
    uint64_t lo, hi;
    dec_slice(ds, &lo, &hi);
    if (t == 0) {
        s_carry = 0;
        s_bad = 0;
    }
    __syncthreads();
    ratio_dec_chunk* const chs = dec_chunks(c);
    for (uint64_t b0 = lo; b0 < hi; b0 += blockDim.x) {
        const uint64_t ci = b0 + t;
        unsigned long long sz = 0, o, total;
        if (ci < hi) {
            const unsigned P = pass_of_chunk(ds->cstart, np, ci);
            uint64_t k0, dir;
            unsigned W;
            const uint32_t K = chunk_geom(ds->pstart, ds->cstart, ds->dstart, ds->plog, ds->L.shrink, P, ci, &k0, &W, &dir);
            const uint8_t* e = c.src + ds->L.off_dir + dir;
            const uint64_t words = get_le(e, 4), bits = get_le(e + 4, 4);
            int bad = words > K || bits > 27ull * K;
            for (unsigned lane = 0; lane < W; ++lane)
                if (get_le(e + 8 + 4 * lane, 4) < GHZ_RATIO_STATE_LOW) bad = 1;
            if (bad) s_bad = 1;
            sz = GHZ_RATIO_CHUNK_BYTES(words, bits);
        }
        scan_t(tmp).ExclusiveSum(sz, o, total);
        if (ci < hi) {
            chs[ci].off = s_carry + o;
            chs[ci].n_out = chs[ci].state = 0;
        }
        __syncthreads();
        if (t == 0) s_carry += total;
        __syncthreads();
    }
    if (t == 0) {
        ds->slice_bytes[blockIdx.x] = s_carry;
        if (s_bad) ds->dir_bad = 1;
    }
}

/* Every CTA, once every slice is measured: its slice's offsets made absolute. Returns
 * whether the directory holds (the same answer in every CTA); CTA 0 reports it. */
__device__ bool dec_directory_place(const chunk_t& c, ratio_dec_state* ds)
{
    typedef cub::BlockReduce<unsigned long long, kPassThreads> sum_t;
    __shared__ typename sum_t::TempStorage tmp;
    __shared__ unsigned long long s_base, s_total;
    const volatile unsigned long long* const sb = ds->slice_bytes;
    const unsigned t = threadIdx.x;
    unsigned long long before = 0, all = 0;
    for (unsigned b = t; b < gridDim.x; b += blockDim.x) {
        all += sb[b];
        if (b < blockIdx.x) before += sb[b];
    }
    before = sum_t(tmp).Sum(before);
    __syncthreads();
    all = sum_t(tmp).Sum(all);
    if (t == 0) {
        s_base = before;
        s_total = all;
    }
    __syncthreads();
    const bool ok = !*(volatile int*)&ds->dir_bad && s_total == ds->L.chunk_bytes;
    uint64_t lo, hi;
    dec_slice(ds, &lo, &hi);
    ratio_dec_chunk* const chs = dec_chunks(c);
    if (ok)
        for (uint64_t ci = lo + t; ci < hi; ci += blockDim.x) chs[ci].off += s_base;
    if (blockIdx.x == 0 && t == 0 && !ok) report(c.d_status, GHZ_ERR_CORRUPT);
    return ok;
}

/* Chunk ci of pass P, by one warp (RATIO.md, Chunks and Prediction): symbol j is lane
 * j % W's at step j / W. fix = false: every code's reconstruction is written, the
 * outlier symbols counted (chs[ci].n_out, ds->n_out, the count returned) and the
 * chunk checked; fix = true (a chunk with outliers, once the outliers of every chunk
 * before it are counted): the same symbols are decoded again and only the outliers
 * written, from rank `base` on.
 *
 * A warp's steps are one dependent chain, so the loop keeps everything it can off the
 * chain and in flight: the steps go in batches of dec_cfg's; the next batch's neighbours
 * are loaded while this one decodes; a batch's rANS steps run first, then its extra
 * bits (the scans of its steps side by side, skipped when no lane has any), then its
 * values. The words and the extra bits are read from windows in registers (four 64-word
 * and four 32-word blocks a warp), each refilled three blocks ahead of its use. Indices
 * are I: 32-bit when the batch's frames are below kIndex32 values. */
template <typename T, typename I, bool fix>
__device__ uint32_t dec_chunk(const chunk_t& c, ratio_dec_state* ds, const uint8_t (*lut)[GHZ_RATIO_M],
                          const uint16_t* f, const uint32_t* cum, const unsigned* nsym, uint64_t ci, unsigned P,
                          const ghz_ratio_pass_t& ps, unsigned cubic, const ghz_quantizer_t& z, uint64_t base)
{
    typedef typename bits_of<T>::type U;
    const ghz_ratio_layout_t& L = ds->L;
    const unsigned lane = lane_id();
    const uint32_t lt = (1u << lane) - 1u;
    uint64_t k0, dir;
    unsigned W;
    const uint32_t K = chunk_geom(ds->pstart, ds->cstart, ds->dstart, ds->plog, ds->L.shrink, P, ci, &k0, &W, &dir);
    const uint8_t* const e = c.src + L.off_dir + dir;
    const uint32_t nwords = (uint32_t)get_le(e, 4), nextra = (uint32_t)get_le(e + 4, 4);
    const uint32_t nxw = (nextra + 31u) / 32u; /* u32 words of extra bits */
    uint32_t x = lane < W ? (uint32_t)get_le(e + 8 + 4 * lane, 4) : GHZ_RATIO_STATE_LOW;
    const uint8_t* const words = c.src + L.off_chunks + dec_chunks(c)[ci].off;
    const uint8_t* const extra = words + GHZ_RATIO_WORD_BYTES(nwords);
    const uint64_t* const d = L.d;
    const unsigned ax = ps.axis;
    const I off = (I)(ps.s * (ax == 0 ? 1 : ax == 1 ? d[0] : d[0] * d[1])), ext = (I)pick3(d, ax), sp = (I)ps.s;
    const I first = (I)pick3(ps.first, ax), step = (I)pick3(ps.step, ax);
    const bool lossless = !(z.eb > 0.0);
    U* const out = (U*)c.dst;
    const T* const xv = (const T*)c.dst;
    /* block b of the words: lane i holds words 64b + 2i (low half) and 64b + 2i + 1 */
    auto wblk = [&](uint32_t b) -> uint32_t {
        const uint32_t i = 64u * b + 2u * lane;
        return (i < nwords ? (uint32_t)get_le(words + 2ull * i, 2) : 0u) |
               (i + 1u < nwords ? (uint32_t)get_le(words + 2ull * i + 2u, 2) << 16 : 0u);
    };
    /* block b of the extra-bit words: lane i holds word 32b + i */
    auto eblk = [&](uint32_t b) -> uint32_t {
        const uint32_t i = 32u * b + lane;
        return i < nxw ? (uint32_t)get_le(extra + 4ull * i, 4) : 0u;
    };
    uint32_t w0 = wblk(0), w1 = wblk(1), w2 = wblk(2), w3 = wblk(3), wb = 0; /* wb: block of w0 */
    uint32_t e0 = eblk(0), e1 = eblk(1), e2 = eblk(2), e3 = eblk(3), eb = 0;
    uint32_t wpos = 0, epos = 0, nout = 0;
    int bad = 0;
    /* this lane's point of the pass; it moves W points a step */
    pass_walk_t<I> w(ps, d, k0 + lane, W);
    /* A batch's points: their indices, which are active, their neighbours (two slots of
     * them, two_slots) */
    struct slot_t {
        I idx[dec_cfg<T, I>::batch];
        bool act[dec_cfg<T, I>::batch];
        nbrs_t<T> nb[dec_cfg<T, I>::batch];
    };
    /* the neighbours of the batch at g, all loads in flight at once */
    auto load_batch = [&](uint32_t g, slot_t& o, auto full_t) {
#pragma unroll
        for (unsigned s = 0; s < dec_cfg<T, I>::batch; ++s) {
            o.act[s] = decltype(full_t)::value || (lane < W && g + s * W + lane < K);
            o.idx[s] = 0;
            o.nb[s].hc = o.nb[s].hu = o.nb[s].hv = false;
            if (o.act[s]) {
                o.idx[s] = w.index();
                nbrs_load<T, I>(xv, o.idx[s], first + step * w.along(ax), sp, off, ext, cubic, o.nb[s]);
                w.advance();
            }
        }
    };
    slot_t sa, sb;
    load_batch(0, sa, std::false_type());
    /* one batch, from slot cur, the next batch's neighbours into slot nxt; full: every
     * lane has all its steps in this batch and in the next (a full chunk's batches but
     * the last two), so that none of them tests it */
    auto batch = [&](uint32_t g0, auto full_t, slot_t& cur, slot_t& nxt) {
        const I(&idx)[dec_cfg<T, I>::batch] = cur.idx;
        const bool(&act)[dec_cfg<T, I>::batch] = cur.act;
        const nbrs_t<T>(&nb)[dec_cfg<T, I>::batch] = cur.nb;
        constexpr bool full = decltype(full_t)::value;
        double p[dec_cfg<T, I>::batch];
        unsigned cx[dec_cfg<T, I>::batch];
#pragma unroll
        for (unsigned s = 0; s < dec_cfg<T, I>::batch; ++s) { /* predictions and contexts (ratio.h) */
            p[s] = (full || act[s]) && !fix ? nbrs_predict<T>(nb[s]) : 0.0;
            cx[s] = (full || act[s]) ? nbrs_context<T>(nb[s], z.r) : 0u;
        }
        /* the next batch's neighbours load while this one decodes */
        load_batch(g0 + dec_cfg<T, I>::batch * W, nxt, full_t);
        /* The batch's rANS steps first: the state is the only chain from step to step,
         * so nothing else (extra bits, reconstruction) waits in its way. */
        unsigned sym[dec_cfg<T, I>::batch];
#pragma unroll
        for (unsigned s = 0; s < dec_cfg<T, I>::batch; ++s) {
            unsigned s2 = 0;
            if (full || act[s]) {
                if (nsym[cx[s]] == 0) bad = 1; /* a symbol in a context without a table */
                s2 = lut[cx[s]][x & (GHZ_RATIO_M - 1u)];
                s2 = s2 < kNsym ? s2 : kNsym - 1u;
                const unsigned t = cx[s] * kNsym + s2;
                ghz_rans_take(&x, f[t], cum[t]);
            }
            sym[s] = s2;
            const bool need = (full || act[s]) && x < GHZ_RATIO_STATE_LOW;
            const uint32_t m = __ballot_sync(kLanesAll, need);
            {
                /* word wpos + rank sits at r from the window's start, r < 96 */
                const uint32_t r = wpos - 64u * wb + __popc(m & lt);
                const uint32_t lo = __shfl_sync(kLanesAll, w0, (r >> 1) & 31u),
                               hi = __shfl_sync(kLanesAll, w1, (r >> 1) & 31u);
                const uint32_t pair = r < 64u ? lo : hi;
                if (need) x = (x << 16) | ((r & 1u) ? pair >> 16 : pair & 0xFFFFu);
            }
            wpos += __popc(m);
            if (wpos - 64u * wb >= 64u) { /* slide one block, and load the one three ahead */
                ++wb;
                w0 = w1;
                w1 = w2;
                w2 = w3;
                w3 = wblk(wb + 3u);
            }
        }
        if (wpos > nwords) bad = 1;
        /* the extra bits: each step's offsets (independent of one another), then the bits */
        unsigned nbits[dec_cfg<T, I>::batch], incl[dec_cfg<T, I>::batch], some = 0;
#pragma unroll
        for (unsigned s = 0; s < dec_cfg<T, I>::batch; ++s) {
            nbits[s] = sym[s] ? ghz_ratio_extra_bits(sym[s]) : 0u;
            incl[s] = nbits[s];
            some |= nbits[s];
        }
        const bool any_extra = __any_sync(kLanesAll, some != 0); /* none in the batch: no scans */
        uint32_t ex[dec_cfg<T, I>::batch];
#pragma unroll
        for (unsigned s = 0; s < dec_cfg<T, I>::batch; ++s) ex[s] = 0;
        if (any_extra) {
#pragma unroll
            for (int k = 1; k < 32; k <<= 1) {
#pragma unroll
                for (unsigned s = 0; s < dec_cfg<T, I>::batch; ++s) {
                    const unsigned v = __shfl_up_sync(kLanesAll, incl[s], k);
                    if ((int)lane >= k) incl[s] += v;
                }
            }
#pragma unroll
            for (unsigned s = 0; s < dec_cfg<T, I>::batch; ++s) {
                const unsigned nb = nbits[s], tot = __shfl_sync(kLanesAll, incl[s], 31);
                /* bit pb sits in word pb / 32, at most 59 words past the window's start */
                const uint32_t pb = epos + incl[s] - nb, wr = pb / 32u - 32u * eb, sh = pb % 32u;
                const uint32_t a0 = __shfl_sync(kLanesAll, e0, wr & 31u), a1 = __shfl_sync(kLanesAll, e1, wr & 31u);
                const uint32_t b0 = __shfl_sync(kLanesAll, e0, (wr + 1u) & 31u),
                               b1 = __shfl_sync(kLanesAll, e1, (wr + 1u) & 31u);
                const uint32_t lo = wr < 32u ? a0 : a1, hi = wr + 1u < 32u ? b0 : b1;
                if (nb) {
                    uint32_t v = lo >> sh;
                    if (sh + nb > 32u) v |= hi << (32u - sh);
                    ex[s] = v & ((1u << nb) - 1u);
                }
                epos += tot;
                if (epos / 32u - 32u * eb >= 32u) {
                    ++eb;
                    e0 = e1;
                    e1 = e2;
                    e2 = e3;
                    e3 = eblk(eb + 3u);
                }
            }
            if (epos > nextra) bad = 1;
        }
        /* the values: outliers in rank order, the others reconstructed */
#pragma unroll
        for (unsigned s = 0; s < dec_cfg<T, I>::batch; ++s) {
            const unsigned s2 = sym[s];
            const bool outl = (full || act[s]) && s2 == 0;
            const uint32_t om = __ballot_sync(kLanesAll, outl);
            if (fix) {
                if (outl) {
                    const uint64_t rank = base + nout + __popc(om & lt);
                    if (rank >= L.n_outliers) {
                        bad = 1;
                    } else {
                        const U v = (U)get_le(c.src + L.off_outliers + rank * sizeof(T), sizeof(T));
                        T xo;
                        memcpy(&xo, &v, sizeof xo);
                        if (!isfinite(xo)) bad = 1;
                        out[idx[s]] = v;
                    }
                }
            } else if ((full || act[s]) && !outl) {
                const uint32_t zz = ghz_ratio_unsymbol(s2, ex[s]);
                const int32_t k = ghz_ratio_unzigzag(zz);
                if (zz > GHZ_RATIO_Z_LIMIT - 2u || (lossless && k != 0))
                    bad = 1;
                else
                    ((T*)out)[idx[s]] = (T)ghz_ratio_recon(&z, p[s], k);
            }
            nout += __popc(om);
        }
        bad = __any_sync(kLanesAll, bad);
    };
    /* full batches while the next batch is whole too */
    const uint32_t gb = dec_cfg<T, I>::batch * W;
    two_slots(sa, sb, (K + gb - 1u) / gb, [&](uint64_t i, slot_t& cur, slot_t& nxt) {
        const uint32_t g0 = (uint32_t)i * gb;
        if (W == 32 && g0 + 2u * gb <= K)
            batch(g0, std::true_type(), cur, nxt);
        else
            batch(g0, std::false_type(), cur, nxt);
        return !bad;
    });
    if (!fix && !bad) { /* everything read, lanes home, padding zero */
        bad = wpos != nwords || epos != nextra || __any_sync(kLanesAll, x != GHZ_RATIO_STATE_LOW);
        if ((nwords & 1u) && get_le(words + 2ull * nwords, 2) != 0) bad = 1;
        if ((nextra % 32) && (get_le(extra + 4 * (nextra / 32), 4) >> (nextra % 32)) != 0) bad = 1;
    }
    if (lane == 0) {
        if (!fix) {
            dec_chunks(c)[ci].n_out = nout;
            if (nout) atomicAdd(&ds->n_out, (unsigned long long)nout);
        }
        if (bad) dec_corrupt(c, ds);
    }
    return nout;
}

/* ---- chunks in flow: a warp takes the next chunk and waits only for what it reads ----
 *
 * Chunks are taken in chunk order (pass by pass) from one counter. A chunk of pass P
 * reads values of earlier passes only, and only in the rows ghz_ratio_input_rows gives
 * (ratio.h), which are a range of chunks in each earlier pass. A warp waits for those
 * chunks of the passes not yet complete instead of a grid-wide barrier after every
 * pass, so the end of one pass overlaps the start of the next. Every chunk a warp
 * waits for was taken before its own by a warp that is running (the launch is
 * cooperative), and waits only for chunks taken before it: the earliest chunk not done
 * always goes on. A corrupt chunk sets ds->bad, which every wait checks. */

__device__ __forceinline__ bool dec_is_bad(const ratio_dec_state* ds)
{
    return *(const volatile int*)&ds->bad != 0;
}

/* The warp's writes, then `bits` of chunk ci's state (kChunkDone also counts it in its
 * pass): each lane fences its own writes before lane 0 sets the bits. */
__device__ __forceinline__ void dec_publish(ratio_dec_state* ds, ratio_dec_chunk* chs, uint64_t ci, unsigned P,
                                           unsigned bits)
{
    __threadfence();
    __syncwarp();
    if (lane_id() == 0) {
        atomicOr(&chs[ci].state, bits);
        if (bits & kChunkDone) atomicAdd(&ds->pass_done[P], 1ull);
    }
}

/* Waits until the values chunk ci of pass P (geometry ps) reads are written: for every
 * earlier pass not yet complete, the chunks holding its rows. False when the frame turned
 * out corrupt meanwhile. */
__device__ bool dec_wait_inputs(const chunk_t& c, const ratio_dec_state* ds, uint64_t ci, unsigned P,
                                const ghz_ratio_pass_t& ps)
{
    const ghz_ratio_layout_t& L = ds->L;
    const uint64_t* const d = L.d;
    const ratio_dec_chunk* const chs = dec_chunks(c);
    const uint8_t* const choices = c.src + L.off_choices;
    const unsigned lane = lane_id();
    uint64_t k0, dir;
    unsigned W;
    const uint32_t K = chunk_geom(ds->pstart, ds->cstart, ds->dstart, ds->plog, L.shrink, P, ci, &k0, &W, &dir);
    uint64_t r0, r1;
    ghz_ratio_input_rows(&ps, d, k0, k0 + K - 1, &r0, &r1);
    int quit = 0;
    for (unsigned Q0 = 0; Q0 < P; Q0 += 32) {
        const unsigned Q = Q0 + lane;
        const bool open = Q < P && *(const volatile unsigned long long*)&ds->pass_done[Q] !=
                                       ds->cstart[Q + 1] - ds->cstart[Q];
        for (uint32_t om = __ballot_sync(kLanesAll, open); om; om &= om - 1u) {
            const unsigned Qi = Q0 + __ffs(om) - 1u;
            unsigned cubic;
            const ghz_ratio_pass_t pq = pass_at(d, L.levels, choices, Qi, &cubic);
            const uint64_t a = ghz_ratio_pass_first_row(&pq, d, r0);
            const uint64_t b = ghz_ratio_pass_first_row(&pq, d, r1 + 1);
            if (b <= a) continue;
            const unsigned lg = ds->plog[Qi];
            const uint64_t lo = ds->cstart[Qi] + (a >> lg), hi = ds->cstart[Qi] + ((b - 1) >> lg);
            for (uint64_t q = lo + lane; q <= hi && !quit; q += 32)
                while (!(*(const volatile uint32_t*)&chs[q].state & kChunkDone)) {
                    if (dec_is_bad(ds)) {
                        quit = 1;
                        break;
                    }
                    __nanosleep(64);
                }
        }
    }
    __threadfence(); /* what the chunks waited for wrote is seen by the loads after this */
    return !__any_sync(kLanesAll, quit);
}

/* Chunk ci's outliers (nout > 0) follow those of every chunk before it: their count, by
 * a look-back over the chunks' states as the writer's scan does (each chunk's own count
 * until one that knows its prefix). Publishes ci's count first and its prefix after.
 * Returns the count before ci; sets *ok = false when the frame turned out corrupt. */
__device__ uint64_t dec_lookback(ratio_dec_state* ds, ratio_dec_chunk* chs, uint64_t ci, unsigned P, uint32_t nout,
                                 bool* ok)
{
    const unsigned lane = lane_id();
    dec_publish(ds, chs, ci, P, kChunkCounted);
    uint64_t before = 0;
    int64_t top = (int64_t)ci - 1; /* lane i looks at chunk top - i */
    *ok = true;
    while (top >= 0) {
        const int64_t q = top - (int64_t)lane;
        const unsigned st = q >= 0 ? *(const volatile uint32_t*)&chs[q].state : kChunkPrefix;
        const uint32_t pre = __ballot_sync(kLanesAll, st & kChunkPrefix),
                       known = __ballot_sync(kLanesAll, st & (kChunkCounted | kChunkPrefix));
        const unsigned last = pre ? (unsigned)__ffs(pre) - 1u : 31u; /* the nearest with a prefix ends the walk */
        const uint32_t need = last == 31u ? kLanesAll : (2u << last) - 1u;
        if ((known & need) != need) { /* a chunk in the way is still decoding */
            if (__any_sync(kLanesAll, dec_is_bad(ds))) {
                *ok = false;
                return 0;
            }
            __nanosleep(64);
            continue;
        }
        __threadfence();
        unsigned long long v = 0;
        if (lane <= last && q >= 0)
            v = lane == last && pre ? *(const volatile unsigned long long*)&chs[q].incl
                                    : *(const volatile uint32_t*)&chs[q].n_out;
        before += warp_sum(v);
        if (pre) break;
        top -= 32;
    }
    if (lane == 0) chs[ci].incl = before + nout;
    dec_publish(ds, chs, ci, P, kChunkPrefix);
    return before;
}

/* CTA 0: the specials section (RATIO.md), checked, and the specials patched in (when
 * the passes found nothing corrupt). Thread 0 reads the varints, the CTA rebuilds the
 * mask from its residual. */
template <typename T>
__device__ void dec_specials(const chunk_t& c, ratio_dec_state* ds)
{
    __shared__ int s_ok;
    __shared__ unsigned long long s_ones, s_pos, s_lag;
    const ghz_ratio_layout_t& L = ds->L;
    const uint8_t* const p = c.src + L.off_specials;
    const uint64_t lim = L.special_bytes, n = ds->info.n;
    const unsigned elem = sizeof(T), t = threadIdx.x;
    const uint64_t nw = n / 32 + 1;
    uint32_t* const mask = dec_bitmap(c, c.capacity / sizeof(T));
    uint64_t n_special = 0, n_runs = 0;
    if (lim >= 16) {
        n_special = get_le(p, 8);
        n_runs = get_le(p + 8, 8);
    }
    if (t == 0) {
        s_ok = lim >= 16 && (n_special == 0) == (n_runs == 0);
        s_ones = 0;
        s_pos = 16;
        s_lag = 0;
        if (s_ok && n_runs) { /* the mask's predecessor: none, the previous row or slice */
            if (lim <= 16 || p[16] > 2) s_ok = 0;
            else s_lag = p[16] == 0 ? 0 : p[16] == 1 ? L.d[0] : L.d[0] * L.d[1];
            s_pos = 17;
        }
    }
    if (n_runs) /* the residual, then the mask */
        for (uint64_t w = t; w < nw; w += blockDim.x) mask[w] = 0;
    __syncthreads();
    const uint64_t lag = s_lag;
    const int ok = s_ok;
    __syncthreads(); /* every thread has read s_ok and s_lag before thread 0 writes s_ok and s_pos */
    if (t == 0 && ok && n_runs) {
        uint64_t pos = s_pos, i = 0;
        unsigned bit = 0;
        for (uint64_t r = 0; r < n_runs; ++r) {
            uint64_t len;
            if (ghz_varint_get(p, lim, &pos, &len) != 0 || (r > 0 && len == 0) || len > n - i) {
                s_ok = 0;
                break;
            }
            if (bit)
                for (uint64_t j = i; j < i + len; ++j) mask[j / 32] |= 1u << (j % 32);
            i += len;
            bit ^= 1u;
        }
        if (s_ok && i != n) s_ok = 0;
        s_pos = pos;
    }
    __syncthreads();
    if (s_ok && n_runs && lag) { /* m(i) = r(i) ^ m(i - lag), row by row of lag elements */
        for (uint64_t r0 = lag; r0 < n; r0 += lag) {
            const uint64_t end = r0 + lag < n ? r0 + lag : n;
            for (uint64_t i = r0 + t; i < end; i += blockDim.x)
                if ((mask[(i - lag) / 32] >> ((i - lag) % 32)) & 1u) atomicXor(&mask[i / 32], 1u << (i % 32));
            __syncthreads();
        }
    }
    if (s_ok && n_runs) {
        unsigned long long ones = 0;
        for (uint64_t w = t; w < nw; w += blockDim.x) ones += __popc(mask[w] & (w == n / 32 ? (1u << (n % 32)) - 1u : ~0u));
        ones = warp_sum(ones);
        if (lane_id() == 0 && ones) atomicAdd(&s_ones, ones);
    }
    __syncthreads();
    if (t != 0) return;
    if (s_ok && n_runs && s_ones != n_special) s_ok = 0;
    uint64_t pos = s_pos;
    if (s_ok && lim - pos < 8) s_ok = 0;
    if (s_ok) {
        const uint64_t n_pat = get_le(p + pos, 8);
        uint64_t at = 0, i = 0, prev = 0;
        pos += 8;
        typedef typename bits_of<T>::type U;
        U* const out = (U*)c.dst;
        const bool write = !*(volatile int*)&ds->bad;
        for (uint64_t r = 0; r < n_pat && s_ok; ++r) {
            uint64_t count;
            if (lim - pos < elem) {
                s_ok = 0;
                break;
            }
            const uint64_t bits = get_le(p + pos, elem);
            pos += elem;
            if (ghz_varint_get(p, lim, &pos, &count) != 0 || count == 0 || count > n_special - at) {
                s_ok = 0;
                break;
            }
            T x;
            const U u = (U)bits;
            memcpy(&x, &u, sizeof x);
            if (isfinite(x) && !(ds->info.has_fill && bits == ds->info.fill_bits)) s_ok = 0;
            if (r > 0 && bits == prev) s_ok = 0;
            prev = bits;
            if (s_ok && write)
                for (uint64_t k = 0; k < count; ++k) {
                    while (!((mask[i / 32] >> (i % 32)) & 1u)) {
                        if (mask[i / 32] >> (i % 32) == 0) i = (i / 32 + 1) * 32; /* the rest of the word is clear */
                        else ++i;
                    }
                    out[i] = u;
                    ++i;
                }
            at += count;
        }
        if (s_ok && (at != n_special || pos != lim)) s_ok = 0;
    }
    if (!s_ok) dec_corrupt(c, ds);
}

/* The whole reader, one cooperative launch over the batch's frames, one after the
 * other; a batch without a ratio frame leaves at once. */
template <typename T, typename I>
/* dec_cfg says how many CTAs an SM. */
__global__ void __launch_bounds__(kPassThreads, (dec_cfg<T, I>::ctas)) dec_kernel(batch_t b)
{
    __shared__ uint8_t lut[kNctx][GHZ_RATIO_M];
    __shared__ uint16_t f[kTab];
    __shared__ uint32_t cum[kTab];
    __shared__ unsigned nsym[kNctx];
    bool any = false;
    for (int y = 0; y < b.k; ++y) {
        const parsed_t* const pr = b.c[y].parsed;
        any = any || (pr->status == GHZ_SUCCESS && pr->is_ratio);
    }
    if (!any) return; /* every CTA alike */
    cg::grid_group grid = cg::this_grid();
    for (int y = 0; y < b.k; ++y) {
        const chunk_t& c = b.c[y];
        const parsed_t* const pr = c.parsed;
        if (!(pr->status == GHZ_SUCCESS && pr->is_ratio)) continue; /* the same for every CTA */
        ratio_dec_state* const ds = dec_state(c);
        if (blockIdx.x == 0) dec_parse<T>(c, ds);
        grid.sync();
        if (!*(volatile int*)&ds->parsed) continue;
        dec_directory(c, ds);
        grid.sync();
        if (!dec_directory_place(c, ds)) continue;
        for (unsigned i = threadIdx.x; i < kTab; i += blockDim.x) {
            f[i] = ds->f[i];
            cum[i] = ds->cum[i];
        }
        for (unsigned i = threadIdx.x; i < kNctx * GHZ_RATIO_M / 4; i += blockDim.x)
            ((uint32_t*)lut)[i] = ((const uint32_t*)ds->lut)[i];
        if (threadIdx.x < kNctx) nsym[threadIdx.x] = ds->nsym[threadIdx.x];
        __syncthreads();
        const ghz_ratio_layout_t& L = ds->L;
        const ghz_quantizer_t z = ghz_quantizer_make(ds->info.eb_abs, sizeof(T) == 4);
        const uint8_t* const choices = c.src + L.off_choices;
        const unsigned np = 3u * L.levels;
        const uint64_t nch = ds->cstart[np];
        ratio_dec_chunk* const chs = dec_chunks(c);
        for (;;) { /* the warp's chunks, one at a time (chunks in flow, above) */
            unsigned long long ci = 0;
            if (lane_id() == 0) ci = atomicAdd(&ds->ticket, 1ull);
            ci = __shfl_sync(kLanesAll, ci, 0);
            if (ci >= nch || __any_sync(kLanesAll, dec_is_bad(ds))) break;
            const unsigned P = pass_of_chunk(ds->cstart, np, ci);
            unsigned cubic;
            const ghz_ratio_pass_t ps = pass_at(L.d, L.levels, choices, P, &cubic);
            if (!dec_wait_inputs(c, ds, ci, P, ps)) break;
            const uint32_t nout = dec_chunk<T, I, false>(c, ds, lut, f, cum, nsym, ci, P, ps, cubic, z, 0);
            if (nout) { /* the chunk's base written; its outliers once their ranks are known */
                if (__any_sync(kLanesAll, dec_is_bad(ds))) break;
                bool ok;
                const uint64_t base = dec_lookback(ds, chs, ci, P, nout, &ok);
                if (!ok) break;
                dec_chunk<T, I, true>(c, ds, lut, f, cum, nsym, ci, P, ps, cubic, z, base);
            }
            dec_publish(ds, chs, ci, P, kChunkCounted | kChunkDone);
        }
        grid.sync();
        if (blockIdx.x == 0) {
            if (threadIdx.x == 0 && !*(volatile int*)&ds->bad &&
                *(volatile unsigned long long*)&ds->n_out != L.n_outliers)
                dec_corrupt(c, ds);
            __syncthreads();
            dec_specials<T>(c, ds);
        }
        __syncthreads();
    }
}

template <typename T>
cudaError_t launch_ratio_decompress_t(const batch_t& b, int sms, cudaStream_t stream)
{
    uint64_t most = 1;
    for (int i = 0; i < b.k; ++i)
        if (b.c[i].capacity / sizeof(T) > most) most = b.c[i].capacity / sizeof(T);
    /* a warp per chunk of a pass: no more warps than chunks */
    const uint64_t want = (dec_chunks_max(most) + kPassThreads / 32 - 1) / (kPassThreads / 32);
    if (most < kIndex32) { /* every index fits 32 bits (kIndex32) */
        const unsigned g =
            resident_grid(dec_kernel<T, uint32_t>, kPassThreads, sms, want < kDecMaxGrid ? want : kDecMaxGrid);
        return launch_coop(dec_kernel<T, uint32_t>, g, kPassThreads, stream, b);
    }
    const unsigned g = resident_grid(dec_kernel<T, uint64_t>, kPassThreads, sms, want < kDecMaxGrid ? want : kDecMaxGrid);
    return launch_coop(dec_kernel<T, uint64_t>, g, kPassThreads, stream, b);
}

cudaError_t launch_ratio_decompress(const batch_t& b, int dtype, int sms, cudaStream_t stream)
{
    return dtype == GHZ_F32 ? launch_ratio_decompress_t<float>(b, sms, stream)
                            : launch_ratio_decompress_t<double>(b, sms, stream);
}

} // namespace detail
} // namespace ghz
