/* ghz/homo/cuda/nary.cu: the GPU kernel of ghz/homo for k inputs: the n-ary sum (one
 * pass over the k inputs' tiles), and the binary operations batched and in place (k =
 * 2), byte-identical to the CPU reference (engine.c).
 *
 * Grid (tiles, jobs); one CTA per tile of 128 blocks (f32) or 64 (f64), thread t owning
 * block t, as binary.cu. The inputs go through shared memory one after the other, two
 * staging buffers in turn (input i + 2 is on its way, cp.async, while input i is
 * decoded; f32 MIN and MAX with SMEM_ACC, below: one buffer, the integer pass's q* in
 * shared memory):
 *  1. integer pass (when Q is safe): SUM and SUB add every input's delta planes to the
 *     block's sums without decoding them (GHZ_CUDA_HOMO_NARY_SLICED, below); MIN and MAX
 *     decode each block of every input into integers and fold them, position by
 *     position, into q* and max |q_i|; the fill masks OR'ed; then HOMO.md's test U = k
 *     sum|q_i| <= L, the collisions with the fill value's integer, and the result's
 *     kind (block.h's ghz_facts_finish, or its bit-plane twins in homo_sliced.h);
 *  2. float pass, only in a tile where some block needs it (a RAW or CONST input block,
 *     a position that fails the test, a collision, a RAW result): the inputs are staged
 *     again and those threads fold DOC's values (decoded as the decompressor does,
 *     HOMO.md's rules per step), then analyse them with the compressor's functions
 *     (ghz_facts_take, ghz_facts_finish);
 *  3. the tile's output size goes to a look-back; each thread emits its block into
 *     staging (thread_block.cuh's emitter), and once the look-back gives the offset the
 *     CTA stores it, the code bytes after it; the last tile writes the header.
 * Sums use 32-bit integers: sum |q_i| saturates at 2^31 - 1, and a saturated position
 * takes the float path (DOC's bytes by construction), so the GPU's integer test is the
 * CPU's where sum |q_i| < 2^31 and stricter beyond, with the same bytes either way.
 *
 * In place (HOMO.md): input 0 was moved to the end of the capacity and its code bytes
 * copied aside (nary_prep.cu). A tile reads every byte of its inputs before it publishes
 * its output size, and writes (payload and code bytes) only after the look-back has
 * seen every earlier tile publish; HOMO.md's bound puts the end of output tile j below
 * input tile j + 1. So no output byte covers an input byte still to be read. */
#include "ghz/codec/cuda/thread_block.cuh"
#include "ghz/codec/cuda/tile_offsets.cuh"
#include "ghz/codec/detail/header.h"
#include "ghz/homo/cuda/homo_kernels.cuh"
#include "ghz/homo/cuda/nary.cuh"
#include "ghz/homo/detail/homo_sliced.h"

#include <type_traits>

namespace ghz {
namespace detail {

constexpr uint32_t kMagSat = 0x7FFFFFFFu;

/* Register-pressure variants (tuning experiments only; the output bytes are the same
 * in every combination). GHZ_CUDA_HOMO_NARY_REGS picks a level in one macro: 0 neither,
 * 1 PARK, 2 both (the default: the fastest, and the one tested and sanitized):
 *  GHZ_CUDA_HOMO_NARY_PARK: a tile entering the float pass parks the integer pass's
 *    q* in local memory (8 16-byte stores and loads, once per thread) instead of
 *    holding them in 32 registers across the k inputs' float fold, where the
 *    compiler otherwise spills in the loop.
 *  GHZ_CUDA_HOMO_NARY_BLOCK_MAG: the integer pass's test takes, for every position of
 *    a block, the block's bound sum_i max_j |q_i[j]| (MIN/MAX: max_i max_j) instead of
 *    the position's own sum |q_i[j]|: one register instead of 32. The bound is at
 *    least every position's magnitude and the test is monotone in it, so a block
 *    that passes passes the per-position test too; one that fails only here takes
 *    the float path, whose bytes are DOC's, which are the integer path's wherever
 *    that test passes (HOMO.md): the output is the same, only the path may differ
 *    (for |q| near the limits: k sum max|q_i| > L, L = 2^21 (f32) or 2^50 (f64)). */
#ifndef GHZ_CUDA_HOMO_NARY_REGS
#define GHZ_CUDA_HOMO_NARY_REGS 2
#endif
#ifndef GHZ_CUDA_HOMO_NARY_PARK
#define GHZ_CUDA_HOMO_NARY_PARK (GHZ_CUDA_HOMO_NARY_REGS >= 1)
#endif
#ifndef GHZ_CUDA_HOMO_NARY_BLOCK_MAG
#define GHZ_CUDA_HOMO_NARY_BLOCK_MAG (GHZ_CUDA_HOMO_NARY_REGS >= 2)
#endif
/* magnitudes the integer pass keeps per block: 1 (the bound) or 32 (per position) */
constexpr unsigned kMagSlots = GHZ_CUDA_HOMO_NARY_BLOCK_MAG ? 1u : 32u;

/* An index the compiler cannot fold: an array indexed by it stays in local memory
 * (one address per thread) instead of being promoted back to registers. */
__device__ __forceinline__ unsigned opaque_zero()
{
    unsigned z;
    asm volatile("mov.u32 %0, 0;" : "=r"(z));
    return z;
}

/* q[32] into / out of a local-memory slot, 16 bytes at a time. */
__device__ __forceinline__ void park_q(int4 (&slot)[8], const int32_t (&q)[32])
{
    const unsigned z = opaque_zero();
#pragma unroll
    for (unsigned j = 0; j < 8u; ++j) slot[j ^ z] = make_int4(q[4 * j], q[4 * j + 1], q[4 * j + 2], q[4 * j + 3]);
}
__device__ __forceinline__ void unpark_q(const int4 (&slot)[8], int32_t (&q)[32])
{
    const unsigned z = opaque_zero();
#pragma unroll
    for (unsigned j = 0; j < 8u; ++j) {
        const int4 v = slot[j ^ z];
        q[4 * j] = v.x;
        q[4 * j + 1] = v.y;
        q[4 * j + 2] = v.z;
        q[4 * j + 3] = v.w;
    }
}

/* The fold of one position: ghz_homo_acc_first / _next in 32 bits, q* (fold_acc) and
 * the magnitude (fold_mag) saturating (q* is exact while mag < kMagSat: every partial
 * sum is at most mag). */
template <int Op>
__device__ __forceinline__ void fold_acc(bool first, int32_t q, int32_t& acc)
{
    if (first)
        acc = q;
    else if (Op == GHZ_HOMO_MIN || Op == GHZ_HOMO_MAX)
        acc = Op == GHZ_HOMO_MIN ? (q < acc ? q : acc) : (q > acc ? q : acc);
    else
        acc = (int32_t)(Op == GHZ_HOMO_SUB ? (uint32_t)acc - (uint32_t)q : (uint32_t)acc + (uint32_t)q);
}
template <int Op>
__device__ __forceinline__ void fold_mag(bool first, uint32_t m, uint32_t& mag)
{
    if (first)
        mag = m;
    else if (Op == GHZ_HOMO_MIN || Op == GHZ_HOMO_MAX)
        mag = m > mag ? m : mag;
    else
        mag = mag + m > kMagSat ? kMagSat : mag + m; /* mag + m < 2^32: both below 2^31 */
}
__device__ __forceinline__ uint32_t magnitude(int32_t q)
{
    return q < 0 ? 0u - (uint32_t)q : (uint32_t)q;
}

/* CTAs of 128 threads per SM the register budget is set for without the shared
 * accumulator below (f64 always: twice as many CTAs of 64 threads): 4 gives 128
 * registers, 5 gives 96 and 6 gives 80, with more spills (ptxas, sm_90); shared memory
 * (two staging buffers, 35.5 KB) allows up to 6. With q* in registers 4 is the fastest:
 * at 5 or 6 the spills cost more than the occupancy gives. A tuning knob only. */
#ifndef GHZ_CUDA_HOMO_NARY_CTAS
#define GHZ_CUDA_HOMO_NARY_CTAS 4
#endif
/* GHZ_CUDA_HOMO_NARY_SMEM_ACC (f32; the output bytes are the same either way): the
 * integer pass folds q* in shared memory (one column of 32 per thread: no bank
 * conflicts) instead of 32 registers held across every input's decode, and stages one
 * input at a time instead of two, so that the same 35.5 KB of shared memory serve and
 * the kernel runs GHZ_CUDA_HOMO_NARY_CTAS_ACC CTAs per SM: the latency of the decode's
 * dependent chains is hidden by more warps (the decompressor runs 8 CTAs at 64
 * registers) instead of by the second staging buffer. q* comes back to registers once,
 * after the last input. 5 CTAs (96 registers) is the fastest; at 6 (80 registers) the
 * float pass and the emission spill. */
#ifndef GHZ_CUDA_HOMO_NARY_SMEM_ACC
#define GHZ_CUDA_HOMO_NARY_SMEM_ACC 1
#endif
#ifndef GHZ_CUDA_HOMO_NARY_CTAS_ACC
#define GHZ_CUDA_HOMO_NARY_CTAS_ACC 5
#endif
/* GHZ_CUDA_HOMO_NARY_SLICED (SUM and SUB; the output bytes are the same either way): the
 * integer pass adds the inputs' deltas on their bit planes (homo/detail/homo_sliced.h)
 * instead of decoding every input into integers and folding them: per input, the
 * fields' loads, the decoder's checks, a popcount per plane for the block's bound and a
 * ripple-carry add of 23 (f32) or 32 (f64) planes, with no transpose and no prefix sum;
 * the sums stay in 23 or 32 registers, so both staging buffers come back. An output
 * without fill positions is written from the planes too (ghz_quant_write), without a
 * transpose; one with fill positions goes through one transpose into values and one
 * back (ghz_sliced_choose_fill: a fill run's deltas folded into the next live one).
 * GHZ_CUDA_HOMO_NARY_CTAS_SLICED: the f32 kernel's CTAs per SM then. */
#ifndef GHZ_CUDA_HOMO_NARY_SLICED
#define GHZ_CUDA_HOMO_NARY_SLICED 1
#endif
#ifndef GHZ_CUDA_HOMO_NARY_CTAS_SLICED
#define GHZ_CUDA_HOMO_NARY_CTAS_SLICED 5
#endif
template <typename T, int Op>
struct nary_shape {
    static constexpr bool sliced = GHZ_CUDA_HOMO_NARY_SLICED && (Op == GHZ_HOMO_SUM || Op == GHZ_HOMO_SUB);
    static constexpr bool smem_acc = !sliced && GHZ_CUDA_HOMO_NARY_SMEM_ACC && sizeof(T) == 4;
    static constexpr unsigned slots = smem_acc ? 1u : 2u; /* staging buffers */
    static constexpr unsigned planes = sizeof(T) == 4 ? GHZ_SLICED_PLANES_F32 : GHZ_SLICED_PLANES_F64;
    static constexpr int ctas = sliced && sizeof(T) == 4 ? GHZ_CUDA_HOMO_NARY_CTAS_SLICED
                                : smem_acc ? GHZ_CUDA_HOMO_NARY_CTAS_ACC
                                           : GHZ_CUDA_HOMO_NARY_CTAS * 4 / (int)homo_shape<T>::warps;
};
template <typename T, int Op>
__global__ void __launch_bounds__(homo_shape<T>::threads, nary_shape<T, Op>::ctas) homo_nary_kernel(nary_launch_t g)
{
    using S = homo_shape<T>;
    using U = typename std::conditional<sizeof(T) == 4, uint32_t, unsigned long long>::type;
    constexpr unsigned elem = sizeof(T);
    __shared__ prefix_op_t::TempStorage lb;
    __shared__ unsigned s_wt[2][S::warps];
    __shared__ unsigned out_warp[S::warps];
    __shared__ offset_t s_off[kNaryMaxInputs][2];
    __shared__ const uint8_t* s_src[kNaryMaxInputs];
    __shared__ const uint8_t* s_codes[kNaryMaxInputs];
    __shared__ uint64_t s_pay[kNaryMaxInputs];
    __shared__ nary_job_state_t s_js;
    __shared__ offset_t s_out_off;
    using NS = nary_shape<T, Op>;
    __shared__ __align__(16) uint8_t buf[NS::slots][S::buffer_bytes];
    __shared__ int32_t s_acc[NS::smem_acc ? 32 : 1][NS::smem_acc ? S::threads : 1];
    /* this thread's q*[j] in s_acc (SMEM_ACC; the array is 1 x 1 otherwise, never used) */
    auto acc = [&](unsigned j) -> int32_t& { return s_acc[NS::smem_acc ? j : 0][NS::smem_acc ? threadIdx.x : 0]; };

    const nary_job_t& job = g.job[blockIdx.y];
    const int tile = blockIdx.x, k = job.k;
    const unsigned t = threadIdx.x, warp = t >> 5, lane = t & 31u;
    int in_bad = 0;
    if (t == 0) s_js = g.job_state[blockIdx.y];
    if (t < (unsigned)k) {
        const nary_in_state_t* const s = g.in_state + job.in0 + t;
        const int st = s->p.status != GHZ_SUCCESS ? s->p.status : s->p.crc_status;
        in_bad = st != GHZ_SUCCESS;
        s_src[t] = s->src;
        s_codes[t] = s->codes;
        s_pay[t] = s->p.info.payload_size;
        if (!in_bad) {
            const offset_t* const off = g.offsets + (job.in0 + t) * g.off_stride;
            s_off[t][0] = off[tile];
            s_off[t][1] = off[tile + 1];
        }
    }
    /* every CTA of a job reads the same verdict: all leave here together, or none does */
    const int any_bad = __syncthreads_or(in_bad);
    if (s_js.status != GHZ_SUCCESS) return;
    if (any_bad) {
        /* a checksum mismatch (the header's errors were reported by init) */
        if (tile == 0 && t == 0) {
            report(job.d_status, GHZ_ERR_CORRUPT);
            *job.d_out_size = 0;
        }
        return;
    }
    const ghz_frame_info_t& info = s_js.info;
    const uint64_t n = info.n, nb = info.n_blocks, cb = ghz_codes_bytes(nb);
    const int has_fill = info.has_fill;
    const uint64_t fill_bits = info.fill_bits;
    const uint64_t tiles_needed = nb ? (nb + S::tile_blocks - 1u) / S::tile_blocks : 1u;
    if ((uint64_t)tile >= tiles_needed) return;
    const bool last = (uint64_t)tile == tiles_needed - 1u;
    const uint64_t blk = (uint64_t)tile * S::tile_blocks + t;
    const bool mine = blk < nb;
    const unsigned m = mine ? ghz_block_len(n, blk) : 0u;
    const bool is_f32 = elem == 4u;
    int err = 0;

    /* Input i's tile payload into buf[slot], when the offsets pass's range for it is
     * sound (the sizes are checked against it when they are summed). */
    auto range_ok = [&](int i, unsigned& phase, unsigned& span) {
        const offset_t lo = s_off[i][0], hi = s_off[i][1];
        const uint8_t* const pay = s_src[i] + GHZ_HEADER_SIZE + cb;
        phase = (unsigned)(((uintptr_t)pay + lo) & 15u);
        const bool ok = lo <= hi && hi <= s_pay[i] && hi - lo <= (offset_t)S::tile_blocks * 32u * elem &&
                        (!last || hi == s_pay[i]);
        span = ok ? (unsigned)(hi - lo) : 0u;
        return ok;
    };
    auto stage = [&](int i, int slot) {
        unsigned phase, span;
        if (range_ok(i, phase, span)) {
            const uint8_t* const g0 = s_src[i] + GHZ_HEADER_SIZE + cb + s_off[i][0] - phase;
            tile_load_async<S::threads>(buf[slot], g0, phase, phase + span);
            load_partial_words<S::threads>(buf[slot], g0, phase, phase + span);
        } else {
            __pipeline_commit(); /* an empty group: the count of groups stays the same */
        }
    };
    /* One pass over the k inputs: for each, every thread's block (code byte, its place
     * in the staged tile) is handed to visit(i, code, sw, off) unless the tile's sizes
     * disagree with the offsets pass (err is set then). */
    auto pass = [&](auto visit) {
        stage(0, 0);
        if (NS::slots == 2 && k > 1) stage(1, 1);
        for (int i = 0; i < k; ++i) {
            const int slot = NS::slots == 2 ? (i & 1) : 0;
            const unsigned code = mine ? s_codes[i][blk] : 0u;
            unsigned size = 0;
            bool bad = false;
            if (mine) {
                const uint32_t sz = ghz_block_size(code, m, elem, has_fill);
                bad = sz == GHZ_BLOCK_INVALID;
                size = bad ? 0u : sz;
            }
            unsigned off = warp_inclusive_scan(size);
            if (lane == 31) s_wt[slot][warp] = off;
            off -= size;
            if (last && warp == 0)
                for (uint64_t j = nb + lane; j < cb; j += 32)
                    if (s_codes[i][j] != 0) err = 1;
            if (NS::slots == 2 && i + 1 < k)
                __pipeline_wait_prior(1);
            else
                __pipeline_wait_prior(0);
            __syncthreads();
            unsigned total, phase, span;
            off += warp_offset_in_tile<S::warps>(s_wt[slot], &total);
            const bool sound = range_ok(i, phase, span) && span == total; /* the same in every thread */
            err |= bad || !sound;
            if (sound && mine && !bad) visit(i, code, (const uint32_t*)buf[slot], phase + off);
            __syncthreads();
            if (i + (int)NS::slots < k) stage(i + (int)NS::slots, slot);
        }
    };

    int32_t qr[32]; /* q*, or the result's magnitude planes where `planes` is set */
    U vals[32];
    uint32_t fmask = 0;
    unsigned code = 0, size = 0;
    bool need_float = !s_js.int_ok;
    /* sliced: the output is written from its planes (ghz_quant_write: qr, q0s, sign_s, w_s) */
    bool planes = false;
    int32_t q0s = 0;
    uint32_t sign_s = 0;
    unsigned w_s = 0;

    if (NS::sliced && __syncthreads_or(!need_float)) {
        const bool has_qfill = s_js.has_qfill;
        const int32_t qfill = s_js.qfill;
        ghz_sliced_t sl;
        ghz_sliced_begin(&sl);
        pass([&](int i, unsigned ci, const uint32_t* sw, unsigned off) {
            if (need_float) return;
            if ((ci & GHZ_CODE_W_MASK) == GHZ_CODE_W_SPECIAL && ci != GHZ_CODE_FILLED) {
                need_float = true; /* RAW or CONST: DOC's floats decide */
                return;
            }
            uint32_t mask = 0, zz = 0, sign = 0, top = 0, a[32];
            if (ci != GHZ_CODE_FILLED)
                read_fields<true>(sw, off, ci, &mask, &zz, &sign, a, &top);
            else
#pragma unroll
                for (unsigned j = 0; j < 32u; ++j) a[j] = 0;
            const int v = ghz_sliced_take(&sl, NS::planes, Op == GHZ_HOMO_SUB && i > 0, ci, m, mask, zz, sign, a, top,
                                          has_qfill, qfill);
            if (v == GHZ_SLICED_CORRUPT)
                err = 1;
            else if (v == GHZ_SLICED_DECODE)
                need_float = true; /* the float pass decodes it in full */
        });
        if (!need_float && mine && !err) {
            if (!ghz_sliced_exact(&sl, (unsigned)k, is_f32)) {
                need_float = true;
            } else if (sl.fmask == 0 && !has_qfill) {
                code = ghz_sliced_choose(&sl, NS::planes, m, has_fill, elem, &sign_s, &w_s, &size);
                q0s = sl.q0;
#pragma unroll
                for (unsigned j = 0; j < 32u; ++j) qr[j] = (int32_t)(j < NS::planes ? sl.p[j] : 0u);
                need_float = code == GHZ_CODE_RAW; /* RAW stores DOC's values (CONST: never, quantizable) */
                planes = !need_float;
            } else if (sl.fmask == (m >= 32u ? 0xFFFFFFFFu : (1u << m) - 1u)) {
                code = GHZ_CODE_FILLED; /* fill at every position (ghz_block_choose): nothing to write */
                fmask = sl.fmask;
            } else {
                int collide;
                code = ghz_sliced_choose_fill(&sl, NS::planes, m, has_fill, elem, has_qfill, qfill, &sign_s, &w_s,
                                              &q0s, &collide, &size);
                fmask = sl.fmask;
#pragma unroll
                for (unsigned j = 0; j < 32u; ++j) qr[j] = (int32_t)sl.p[j];
                need_float = collide || code == GHZ_CODE_RAW;
                planes = !need_float;
            }
        }
    } else if (!NS::sliced && __syncthreads_or(!need_float)) {
        uint32_t mag[kMagSlots];
        const bool has_qfill = s_js.has_qfill;
        const int32_t qfill = s_js.qfill;
        pass([&](int i, unsigned ci, const uint32_t* sw, unsigned off) {
            if (need_float) return;
            if ((ci & GHZ_CODE_W_MASK) == GHZ_CODE_W_SPECIAL && ci != GHZ_CODE_FILLED) {
                need_float = true; /* RAW or CONST: DOC's floats decide */
                return;
            }
            int32_t q[32];
            uint32_t imask = 0;
            if (ci == GHZ_CODE_FILLED) {
                imask = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u);
#pragma unroll
                for (unsigned j = 0; j < 32u; ++j) q[j] = 0;
            } else if (read_and_rebuild(sw, off, ci, m, q, &imask) != 0) {
                err = 1;
                return;
            }
            uint32_t qmax = 0; /* max_j |q[j]|, for the block's bound */
#pragma unroll
            for (unsigned j = 0; j < 32u; ++j) {
                /* a decoded input equal to the fill value is fill for DOC */
                if (j < m && !(imask >> j & 1u) && has_qfill && q[j] == qfill) need_float = true;
                if (NS::smem_acc)
                    fold_acc<Op>(i == 0, q[j], acc(j));
                else
                    fold_acc<Op>(i == 0, q[j], qr[j]);
                if (kMagSlots == 1u)
                    qmax = magnitude(q[j]) > qmax ? magnitude(q[j]) : qmax;
                else
                    fold_mag<Op>(i == 0, magnitude(q[j]), mag[j % kMagSlots]);
            }
            if (kMagSlots == 1u) fold_mag<Op>(i == 0, qmax, mag[0]);
            fmask |= imask;
        });
        if (NS::smem_acc && !need_float && mine && !err) {
            /* every input wrote this thread's column: its q* */
#pragma unroll
            for (unsigned j = 0; j < 32u; ++j) qr[j] = acc(j);
        }
        if (!need_float && mine && !err) {
#pragma unroll
            for (unsigned j = 0; j < 32u; ++j) {
                if (j >= m || (fmask >> j & 1u)) continue;
                ghz_homo_acc_t acc;
                acc.q = qr[j];
                acc.mag = mag[j % kMagSlots];
                if (acc.mag >= kMagSat || !ghz_homo_acc_exact(Op, &acc, (uint64_t)k, 0, is_f32) ||
                    (has_qfill && qr[j] == qfill))
                    need_float = true;
            }
            if (!need_float) {
                ghz_block_facts_t f;
                ghz_facts_begin(&f, m);
                f.fmask = fmask;
                code = ghz_facts_finish(&f, qr, has_fill, elem, &size);
                fmask = f.fmask;
                /* RAW stores DOC's values: the float path gives the same kind and them */
                need_float = code == GHZ_CODE_RAW || code == GHZ_CODE_CONST;
            }
        }
    }
    if (!mine || err) need_float = false;

    if (__syncthreads_or(need_float)) {
        const ghz_quantizer_t z = ghz_quantizer_make(info.eb_abs, is_f32);
        uint32_t fm = 0;
#if GHZ_CUDA_HOMO_NARY_PARK
        /* a thread done on the integer path keeps q* here; one on the float path
         * overwrites its own below (the values are the same as held in registers) */
        int4 parked[8];
        park_q(parked, qr);
#endif
        pass([&](int i, unsigned ci, const uint32_t* sw, unsigned off) {
            if (!need_float) return;
            int32_t q[32];
            uint32_t imask = 0;
            if ((ci & GHZ_CODE_W_MASK) != GHZ_CODE_W_SPECIAL) {
                if (read_and_rebuild(sw, off, ci, m, q, &imask) != 0) {
                    err = 1;
                    return;
                }
            } else {
#pragma unroll
                for (unsigned j = 0; j < 32u; ++j) q[j] = 0;
                if (ci == GHZ_CODE_FILLED) imask = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u);
            }
            const uint8_t* const p = (const uint8_t*)sw + off;
#pragma unroll
            for (unsigned j = 0; j < 32u; ++j) {
                if (j >= m) continue;
                const U v = (U)input_value<T>(z, ci, imask, p, q[j], j, fill_bits);
                if (has_fill && v == (U)fill_bits) fm |= 1u << j;
                vals[j] = i == 0 ? v
                                 : (U)(is_f32 ? (uint64_t)ghz_homo_apply32(Op, (uint32_t)vals[j], (uint32_t)v, 0)
                                              : ghz_homo_apply64(Op, vals[j], v, 0));
            }
        });
#if GHZ_CUDA_HOMO_NARY_PARK
        unpark_q(parked, qr);
#endif
        if (need_float && !err) {
            ghz_block_facts_t f;
            ghz_facts_begin(&f, m);
            const U r0 = fm & 1u ? (U)fill_bits : vals[0];
#pragma unroll
            for (unsigned j = 0; j < 32u; ++j) {
                if (j < m) {
                    const U r = fm >> j & 1u ? (U)fill_bits : vals[j];
                    vals[j] = r;
                    ghz_facts_take(&f, &z, has_fill, fill_bits, j, value_of_bits<T>(r), r, r0, &qr[j]);
                }
            }
            code = ghz_facts_finish(&f, qr, has_fill, elem, &size);
            fmask = f.fmask;
        }
    }
    if (err) {
        report(job.d_status, GHZ_ERR_CORRUPT);
        code = 0;
        size = 0;
    }

    /* output offsets: in the warp, the tile, then across tiles (every input byte of the
     * tile has been read: publishing allows later tiles to write, in place over them) */
    unsigned out_off = warp_inclusive_scan(size);
    if (lane == 31) out_warp[warp] = out_off;
    out_off -= size;
    const int tile_bad = __syncthreads_or(err);
    unsigned out_total;
    const unsigned warp_off = warp_offset_in_tile<S::warps>(out_warp, &out_total);
    if (t == 0) {
        tile_state_t ts = nary_lookback(g.out_lb + blockIdx.y * g.out_lb_stride, g.out_lb_stride, g.tiles);
        lookback_publish(ts, tile, out_total);
    }
    if (!tile_bad)
        emit_block<true>(
            code, size, elem, buf[0] + warp_off + out_off, [&](unsigned i) { return (uint64_t)vals[i]; },
            [&](uint8_t* o) {
                if (planes) {
                    uint32_t p[32];
#pragma unroll
                    for (unsigned j = 0; j < 32u; ++j) p[j] = (uint32_t)qr[j];
                    ghz_quant_write(q0s, p, sign_s, w_s, fmask, 0, o);
                } else {
                    ghz_quant_encode(qr, fmask, o);
                }
            });
    __syncthreads();
    if (warp == 0) {
        tile_state_t ts = nary_lookback(g.out_lb + blockIdx.y * g.out_lb_stride, g.out_lb_stride, g.tiles);
        const offset_t excl = lookback_exclusive(ts, lb, tile, out_total);
        if (lane == 0) s_out_off = excl;
    }
    __syncthreads();
    if (tile_bad) return;
    const offset_t out_base = s_out_off;
    uint8_t* const out_codes = job.out + GHZ_HEADER_SIZE;
    tile_store_shifted<S::threads>(buf[0], out_codes + cb + out_base, out_total);
    if (mine) out_codes[blk] = (uint8_t)code;
    if (last && warp == 0) write_frame_end(job.out, job.d_out_size, info, nb, cb, out_base + out_total);
}

template <typename T>
cudaError_t launch_homo_nary(nary_launch_t& g, cudaStream_t stream)
{
    using S = homo_shape<T>;
    static_assert(S::tile_elems % kNaryTileElems == 0, "the workspace must hold this kernel's tiles");
    g.tiles = tiles_for(g.max_elems, S::tile_elems);
    g.groups = (int)tile_offset_groups(g.tiles);
    cudaError_t e = launch_nary_prep<S::tile_blocks>(g, (unsigned)sizeof(T), stream);
    if (e != cudaSuccess) return e;
    const dim3 grid((unsigned)g.tiles, (unsigned)g.n_jobs);
    switch (g.op) {
    case GHZ_HOMO_SUM: return launch(homo_nary_kernel<T, GHZ_HOMO_SUM>, grid, S::threads, stream, g);
    case GHZ_HOMO_SUB: return launch(homo_nary_kernel<T, GHZ_HOMO_SUB>, grid, S::threads, stream, g);
    case GHZ_HOMO_MIN: return launch(homo_nary_kernel<T, GHZ_HOMO_MIN>, grid, S::threads, stream, g);
    default: return launch(homo_nary_kernel<T, GHZ_HOMO_MAX>, grid, S::threads, stream, g);
    }
}

template cudaError_t launch_homo_nary<float>(nary_launch_t&, cudaStream_t);
template cudaError_t launch_homo_nary<double>(nary_launch_t&, cudaStream_t);

} // namespace detail
} // namespace ghz
