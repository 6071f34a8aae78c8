/* ghz/homo/cuda/binary_warp.cu: the first fused GPU kernel of ghz/homo's binary
 * operations (HOMO.md), byte-identical to the CPU reference (engine.c), in the codec's
 * former warp-per-block shape (warp.cuh). Built instead of binary.cu only with
 * -DGHZ_HOMO_WARP_KERNEL=ON, to compare the two on a GPU; binary.cu replaces it.
 *
 * One CTA per tile of 32 blocks (4 warps x 8 blocks):
 *  1. lane j of each warp reads block j's code byte in A and in B and sizes both; one
 *     decoupled look-back on the packed pair (A's offset low, B's high 32 bits) gives
 *     the tile's payload offsets in both inputs;
 *  2. the CTA stages both tiles' payloads in shared memory with 16-byte loads (bytes
 *     at the two ends), and each warp decodes its blocks of A and B into registers, one
 *     lane per value: integers, fill masks and values (ghz_warp_decode_q);
 *  3. per block, the integer path of HOMO.md where every lane passes its test (the
 *     rules are detail/homo_block.h, shared with the CPU), else DOC's float value per
 *     lane and the codec's own analysis (ghz_warp_analyze); a block whose code byte is
 *     0 in both inputs (32 zero integers) is combined from the code bytes alone;
 *  4. a second look-back over the output sizes gives the tile's output offset; the
 *     warps emit into shared staging at the destination's 16-byte phase (the A buffer,
 *     free by then), stored with 16-byte vectors; the last tile writes the header.
 * Every tile publishes to both look-backs even when it found an error, so that no
 * tile waits forever; errors go to *d_status and the tile writes nothing. */
#include "ghz/codec/detail/header.h"
#include "ghz/codec/warp.cuh"
#include "ghz/homo/cuda/homo_kernels.cuh"
#include "ghz/homo/detail/homo_block.h"

namespace ghz {
namespace detail {

/* The tile: kThreads threads (tile.cuh's load, store and scan helpers assume that
 * many) as kWarps warps, each warp one block at a time (warp.cuh's shape), 8 blocks
 * per warp. */
constexpr int kHomoBlocksPerWarp = 8;
constexpr int kHomoTileBlocks = kWarps * kHomoBlocksPerWarp;
static_assert(32u * kHomoTileBlocks == kHomoTileElems, "the workspace is sized for this tile");
template <typename T>
__host__ __device__ constexpr int homo_buffer_bytes()
{
    return kHomoTileBlocks * 32 * (int)sizeof(T) + 16 + 16;
}

/* Inclusive warp scan of 64-bit values over lanes 0..7 (lanes >= 8 carry 0). */
__device__ __forceinline__ unsigned long long scan8_u64(unsigned long long v)
{
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned k = 1; k < kHomoBlocksPerWarp; k <<= 1) {
        const unsigned long long t = __shfl_up_sync(0xFFFFFFFFu, v, k);
        if (lane >= k) v += t;
    }
    return v;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) homo_binary_kernel(homo_args_t g)
{
    __shared__ prefix_op_t::TempStorage lb;
    __shared__ unsigned long long warp_in[kWarps], warp_in_excl[kWarps];
    __shared__ unsigned warp_total[kWarps], warp_excl[kWarps];
    __shared__ offset_t s_in_off, s_out_off;
    __shared__ unsigned long long s_in_total;
    __shared__ unsigned s_out_total;
    __shared__ homo_parsed_t s_p;
    __shared__ int s_ok;
    __shared__ __align__(16) uint8_t bufa[homo_buffer_bytes<T>()];
    __shared__ __align__(16) uint8_t bufb[homo_buffer_bytes<T>()];

    const int tile = blockIdx.x;
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const unsigned elem = sizeof(T);
    const int op = g.op;

    if (threadIdx.x == 0) {
        s_p = *g.parsed;
        s_ok = s_p.status == GHZ_SUCCESS;
    }
    __syncthreads();
    /* every CTA reads the same verdict: all leave here together, or none does */
    if (!s_ok) return;
    const homo_parsed_t& p = s_p;
    const uint64_t n = p.a.n, nb = p.a.n_blocks, cb = ghz_codes_bytes(nb);
    /* an empty frame still has one tile: it writes the header */
    const int tiles_needed = nb ? (int)((nb + kHomoTileBlocks - 1) / kHomoTileBlocks) : 1;
    const bool last = tile == tiles_needed - 1;
    if (tile >= tiles_needed) return;
    const uint8_t* const codes_a = g.a + GHZ_HEADER_SIZE;
    const uint8_t* const codes_b = g.b + GHZ_HEADER_SIZE;
    const uint8_t* const pay_a = codes_a + cb;
    const uint8_t* const pay_b = codes_b + cb;
    uint8_t* const out_codes = g.out + GHZ_HEADER_SIZE;
    uint8_t* const out_pay = out_codes + cb;
    const uint64_t b_first = (uint64_t)tile * kHomoTileBlocks + warp * kHomoBlocksPerWarp;
    __syncthreads(); /* everyone has read s_ok before a warp may clear it */

    /* 1. code bytes and input sizes; lane j holds block j of the warp */
    const bool mine = lane < (unsigned)kHomoBlocksPerWarp && b_first + lane < nb;
    const unsigned ca = mine ? codes_a[b_first + lane] : 0u, cbb = mine ? codes_b[b_first + lane] : 0u;
    int bad = 0;
    unsigned long long mysz = 0;
    if (mine) {
        const unsigned m = ghz_block_len(n, b_first + lane);
        const uint32_t sa = ghz_block_size(ca, m, elem, p.a.has_fill);
        const uint32_t sb = ghz_block_size(cbb, m, elem, p.a.has_fill);
        bad = sa == GHZ_BLOCK_INVALID || sb == GHZ_BLOCK_INVALID;
        mysz = bad ? 0ull : ((unsigned long long)sa | ((unsigned long long)sb << 32));
    }
    unsigned long long myin = scan8_u64(mysz);
    if (lane == kHomoBlocksPerWarp - 1) warp_in[warp] = myin;
    myin -= mysz;
    if (__any_sync(0xFFFFFFFFu, bad) && lane == 0) {
        report(g.d_status, GHZ_ERR_CORRUPT);
        s_ok = 0;
    }
    __syncthreads();
    if (warp == 0) {
        unsigned long long v = lane < kWarps ? warp_in[lane] : 0ull, incl = v;
        for (unsigned k = 1; k < kWarps; k <<= 1) {
            const unsigned long long t = __shfl_up_sync(0xFFFFFFFFu, incl, k);
            if (lane >= k) incl += t;
        }
        if (lane < kWarps) warp_in_excl[lane] = incl - v;
        const unsigned long long tile_in = __shfl_sync(0xFFFFFFFFu, incl, kWarps - 1);
        tile_state_t ts = g.in_tiles;
        const offset_t excl = lookback_exclusive(ts, lb, tile, tile_in);
        if (lane == 0) {
            s_in_off = excl;
            s_in_total = tile_in;
            if (inputs_outside(g.d_status, p, excl, tile_in, last)) s_ok = 0;
        }
        if (last)
            for (uint64_t i = nb + lane; i < cb; i += 32)
                if (codes_a[i] != 0 || codes_b[i] != 0) report(g.d_status, GHZ_ERR_CORRUPT);
    }
    __syncthreads();
    const bool ok_in = s_ok != 0;

    /* 2. stage both tiles' payloads (only when the offsets were sound) */
    const uint64_t off_a = s_in_off & 0xFFFFFFFFull, off_b = s_in_off >> 32;
    const unsigned tot_a = (unsigned)(s_in_total & 0xFFFFFFFFull), tot_b = (unsigned)(s_in_total >> 32);
    const unsigned ph_a = (unsigned)(((uintptr_t)pay_a + off_a) & 15u);
    const unsigned ph_b = (unsigned)(((uintptr_t)pay_b + off_b) & 15u);
    if (ok_in) {
        tile_load(bufa, pay_a + off_a - ph_a, ph_a, ph_a + tot_a);
        tile_load(bufb, pay_b + off_b - ph_b, ph_b, ph_b + tot_b);
    }
    __syncthreads();

    /* 3. decode and combine each block of the warp */
    const ghz_quantizer_t z = ghz_quantizer_make(p.a.eb_abs, elem == 4);
    const uint8_t* const wa = bufa + ph_a + (unsigned)(warp_in_excl[warp] & 0xFFFFFFFFull);
    const uint8_t* const wb = bufb + ph_b + (unsigned)(warp_in_excl[warp] >> 32);
    uint64_t rbits[kHomoBlocksPerWarp];
    int32_t rq[kHomoBlocksPerWarp];
    unsigned mycode = 0, mysize = 0;
    uint32_t myfmask = 0;
    int dec_ok = 1;
#pragma unroll
    for (int j = 0; j < kHomoBlocksPerWarp; ++j) {
        const uint64_t blk = b_first + j;
        rbits[j] = 0;
        rq[j] = 0;
        if (!ok_in || blk >= nb) continue;
        const unsigned m = ghz_block_len(n, blk);
        const unsigned code_a = __shfl_sync(0xFFFFFFFFu, ca, j), code_b = __shfl_sync(0xFFFFFFFFu, cbb, j);
        const unsigned long long o = __shfl_sync(0xFFFFFFFFu, myin, j);
        ghz_warp_block_t r;
        r.fmask = 0;
        r.q = 0;
        const bool zero_both = code_a == 0u && code_b == 0u && p.int_ok && !(p.has_qfill && p.qfill == 0);
        if (zero_both) {
            /* 32 zero integers in both: the result is 32 zero integers, code 0 */
            r.code = 0u;
            r.size = 0u;
        } else {
            uint64_t xa, xb;
            int32_t qa, qb;
            uint32_t ma, mb;
            dec_ok &= ghz_warp_decode_q(&z, code_a, m, wa + (unsigned)(o & 0xFFFFFFFFull), p.a.fill_bits, elem,
                                        &xa, &qa, &ma);
            dec_ok &= ghz_warp_decode_q(&z, code_b, m, wb + (unsigned)(o >> 32), p.a.fill_bits, elem, &xb, &qb,
                                        &mb);
            const bool valid = lane < m;
            const uint32_t vmask = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u);
            const bool special_a = (code_a & GHZ_CODE_W_MASK) == GHZ_CODE_W_SPECIAL && code_a != GHZ_CODE_FILLED;
            const bool special_b = (code_b & GHZ_CODE_W_MASK) == GHZ_CODE_W_SPECIAL && code_b != GHZ_CODE_FILLED;
            bool done = false;
            if (p.int_ok && !special_a && !special_b) {
                const uint32_t fm = (ma | mb) & vmask;
                ghz_homo_acc_t acc = ghz_homo_acc_first(op, qa, 0);
                ghz_homo_acc_next(op, &acc, qb);
                const bool isfill = (fm >> lane) & 1u;
                /* as engine.c: an input integer equal to qfill (outside that input's own
                 * mask) or a result equal to it sends the block to the float path */
                const bool collides = p.has_qfill && ((!((ma >> lane) & 1u) && qa == p.qfill) ||
                                                      (!((mb >> lane) & 1u) && qb == p.qfill));
                const bool lane_ok =
                    !valid || (!collides && (isfill || (ghz_homo_acc_exact(op, &acc, 2, 0, elem == 4u) &&
                                                        !(p.has_qfill && acc.q == p.qfill))));
                if (__all_sync(0xFFFFFFFFu, lane_ok)) {
                    if (p.a.has_fill && fm == vmask) {
                        r.code = GHZ_CODE_FILLED;
                        r.size = 0u;
                        done = true;
                    } else {
                        done = ghz_warp_quant_choose((int32_t)acc.q, vmask, fm, elem, &r) != 0;
                    }
                }
            }
            if (!done) {
                /* the float path: DOC's value per lane, the codec's analysis */
                rbits[j] = valid ? doc_value(op, xa, xb, p, elem) : 0ull;
                r = ghz_warp_analyze(&z, rbits[j], valid, p.a.has_fill, p.a.fill_bits, elem);
            }
        }
        rq[j] = r.q;
        if (lane == (unsigned)j) {
            mycode = r.code;
            mysize = r.size;
            myfmask = r.fmask;
        }
    }
    if (!dec_ok && lane == 0) {
        report(g.d_status, GHZ_ERR_CORRUPT);
        s_ok = 0;
    }

    /* 4. output offsets: within the warp, the tile, then across tiles */
    const unsigned myoff = warp_exclusive_offsets<kHomoBlocksPerWarp>(mysize, &warp_total[warp]);
    __syncthreads(); /* also: every warp is done reading bufa */
    if (warp == 0) {
        unsigned tile_total;
        const offset_t excl = tile_exclusive(g.out_tiles, lb, tile, warp_total, warp_excl, &tile_total);
        if (lane == 0) {
            s_out_off = excl;
            s_out_total = tile_total;
        }
    }
    __syncthreads();
    if (!s_ok) return;
    if (mine) out_codes[b_first + lane] = (uint8_t)mycode;
    const offset_t out_off = s_out_off;
    const unsigned out_total = s_out_total;
    const unsigned phase = (unsigned)(((uintptr_t)out_pay + out_off) & 15u);
    uint8_t* const wout = bufa + phase + warp_excl[warp];
#pragma unroll
    for (int j = 0; j < kHomoBlocksPerWarp; ++j) {
        if (b_first + j >= nb) continue;
        ghz_warp_block_t r;
        r.code = __shfl_sync(0xFFFFFFFFu, mycode, j);
        r.size = __shfl_sync(0xFFFFFFFFu, mysize, j);
        r.fmask = __shfl_sync(0xFFFFFFFFu, myfmask, j);
        r.q = rq[j];
        ghz_warp_emit(&r, rbits[j], elem, wout + __shfl_sync(0xFFFFFFFFu, myoff, j));
    }
    __syncthreads();
    tile_store(bufa, out_pay + out_off - phase, phase, phase + out_total);

    if (last && threadIdx.x < 32) write_frame_end(g.out, g.d_out_size, p, nb, cb, out_off + out_total);
}

template <typename T>
cudaError_t launch_homo_binary(const homo_args_t& a, cudaStream_t stream)
{
    launch_homo_init(a, stream);
    homo_binary_kernel<T><<<(unsigned)a.num_tiles, kThreads, 0, stream>>>(a);
    return cudaGetLastError();
}

template cudaError_t launch_homo_binary<float>(const homo_args_t&, cudaStream_t);
template cudaError_t launch_homo_binary<double>(const homo_args_t&, cudaStream_t);

} // namespace detail
} // namespace ghz
