/* ghz/homo/cuda/binary.cu: the fused GPU kernel of ghz/homo's binary operations
 * (HOMO.md), byte-identical to the CPU reference (engine.c), in the codec kernels'
 * shape: one thread per block.
 *
 * One CTA per tile (128 blocks of f32, 64 of f64: two staged inputs must fit in 48 KB
 * of shared memory), thread t owns block t of the tile:
 *  0. a kernel of its own (homo_offsets_kernel, tile_offsets.cuh) finds the payload
 *     offset of every tile of A and of B from their code bytes and, in CTAs of its
 *     own, verifies the CRC-32C of a sealed input (checksum.cuh, the decompressor's);
 *     on a mismatch every tile leaves at once and tile 0 reports GHZ_ERR_CORRUPT;
 *  1. the thread reads its block's code byte in A and in B and sizes both; the tile's
 *     sizes are checked against those offsets and the payload sizes;
 *  2. the CTA stages both tiles' payloads in shared memory with 16-byte loads, those
 *     of both inputs in flight together (tile_load2);
 *  3. the thread decodes its block of A and of B into registers, integers and fill
 *     masks (thread_block.cuh: the decompressor's reader, block.h's checks), then
 *     takes HOMO.md's integer path if every position passes its test (the rules are
 *     detail/homo_block.h, shared with the CPU), else DOC's float path: each position's
 *     DOC value analysed with the compressor's own block functions (block.h:
 *     ghz_facts_take, ghz_facts_finish). A block whose code byte is 0 in both inputs
 *     (32 zero integers) gives code 0 without being decoded;
 *  4. the tile publishes its output total to a second look-back; each thread emits
 *     its block (thread_block.cuh: emit_block, the compressor's) into shared staging
 *     (the A buffer, free by then); then the look-back gives the tile's output offset
 *     and the CTA stores the staging there with 16-byte vectors (tile_store_shifted);
 *     the last tile writes the header.
 * Every tile that has a block publishes to both look-backs even when it found an
 * error, so that no tile waits forever; errors go to *d_status and such a tile writes
 * nothing. Nothing is read outside [a, a + a_size) and [b, b + b_size).
 *
 * In place (InPlace: MIN and MAX, or every operation without
 * GHZ_CUDA_HOMO_BINARY_SLICED; HOMO.md, "In place with the fused kernel"): out is a's
 * memory, and A was moved to the end of the capacity by the shift kernel, its code
 * bytes copied aside (read from there, here and by the offsets pass).
 * Safe because a tile has read every byte of A it will read before a later tile can
 * learn its output offset: the payload is staged before the tile publishes, and a tile
 * whose emission reads A again from global memory (a RAW or CONST result) publishes
 * only after emitting, in lookback_exclusive. A tile writes its payload after every
 * earlier tile published, and ends at or below the next tile's input (the bound), so
 * it covers only input that has been read; its code bytes lie below A's payload. */
#include "ghz/codec/cuda/checksum.cuh"
#include "ghz/codec/cuda/thread_block.cuh"
#include "ghz/codec/cuda/tile_offsets.cuh"
#include "ghz/codec/detail/header.h"
#include "ghz/homo/cuda/homo_kernels.cuh"
#include "ghz/homo/cuda/shift.cuh"

namespace ghz {
namespace detail {

/* A block of one input as a thread holds it: QUANT (and code-0) blocks as integers
 * with their fill mask, FILLED as zero integers with every position < m in the mask
 * (as engine.c's integer path sees it), RAW and CONST as neither (their values stay in
 * the payload). p is the payload: staged in shared memory (kStaged: read_and_rebuild,
 * at byte off of the shared buffer sw, reading the words around the block), or in
 * global memory (ghz_quant_decode, byte by byte inside the block). The checks are
 * block.h's either way. Returns 0 for a block that is not canonical. */
template <bool kStaged>
__device__ __forceinline__ int decode_q(unsigned code, unsigned m, const uint8_t* p, const uint32_t* sw, unsigned off,
                                        int32_t q[32], uint32_t* fmask)
{
    *fmask = 0;
    if ((code & GHZ_CODE_W_MASK) != GHZ_CODE_W_SPECIAL)
        return (kStaged ? read_and_rebuild(sw, off, code, m, q, fmask) : ghz_quant_decode(p, code, m, q, fmask)) == 0;
#pragma unroll
    for (unsigned i = 0; i < 32u; ++i) q[i] = 0;
    if (code == GHZ_CODE_FILLED) *fmask = m >= 32u ? 0xFFFFFFFFu : ((1u << m) - 1u);
    return 1;
}

/* The integer path of HOMO.md on one block (engine.c's int_path, position by
 * position with homo_block.h's rules; ghz_homo_acc_pair is engine.c's fold of the two
 * integers, which are within QMAX once decoded): writes q* into qb (qa stays) and
 * returns 1 when every position < m passes; qb then holds the result's integers before
 * the fill-in. */
template <int Op>
__device__ __forceinline__ int int_path(const homo_parsed_t& p, unsigned m, const int32_t qa[32], uint32_t fa,
                                        int32_t qb[32], uint32_t fb, int is_f32)
{
    const uint32_t fm = fa | fb;
    int pass = 1;
#pragma unroll
    for (unsigned i = 0; i < 32u; ++i) {
        const ghz_homo_acc_t acc = ghz_homo_acc_pair(Op, qa[i], qb[i]);
        /* as engine.c: an input integer equal to qfill (outside that input's own mask)
         * or a result equal to it sends the block to the float path */
        const bool collides = p.has_qfill && ((!(fa >> i & 1u) && qa[i] == p.qfill) ||
                                              (!(fb >> i & 1u) && qb[i] == p.qfill));
        const bool ok = i >= m || (!collides && ((fm >> i & 1u) || (ghz_homo_acc_exact(Op, &acc, 2, 0, is_f32) &&
                                                                    !(p.has_qfill && acc.q == p.qfill))));
        pass &= ok;
        qb[i] = (int32_t)acc.q; /* |q*| <= 2 QMAX < 2^31 at every position */
    }
    return pass;
}

template <typename T, int Op, bool InPlace>
__global__ void __launch_bounds__(homo_shape<T>::threads, homo_shape<T>::ctas) homo_binary_kernel(homo_args_t g)
{
    using S = homo_shape<T>;
    constexpr unsigned elem = sizeof(T);
    __shared__ prefix_op_t::TempStorage lb;
    __shared__ unsigned long long in_warp[S::warps];
    __shared__ unsigned out_warp[S::warps];
    __shared__ offset_t s_in_off[4], s_out_off; /* A's tile offset and end, B's */
    __shared__ homo_parsed_t s_p;
    __shared__ int s_go; /* 1: go on; 0: init refused the call; -1: a checksum mismatch */
    __shared__ int s_late; /* in place: some block reads A's payload in global memory after step 3 */
    __shared__ __align__(16) uint8_t bufa[S::buffer_bytes];
    __shared__ __align__(16) uint8_t bufb[S::buffer_bytes];

    const int tile = blockIdx.x;
    const unsigned t = threadIdx.x, warp = t >> 5, lane = t & 31u;
    const uint64_t blk = (uint64_t)tile * S::tile_blocks + t;

    /* This thread's code bytes, read together with the parsed headers (one round
     * trip): a read inside each source is safe, and whether the block exists is known
     * once the header is. */
    unsigned code_read_a;
    if constexpr (InPlace)
        code_read_a = blk < g.codes_cap ? g.codes_copy[blk] : 0u; /* A's code bytes, copied aside by the shift */
    else
        code_read_a = GHZ_HEADER_SIZE + blk < g.a_size ? g.a[GHZ_HEADER_SIZE + blk] : 0u;
    const unsigned code_read_b = GHZ_HEADER_SIZE + blk < g.b_size ? g.b[GHZ_HEADER_SIZE + blk] : 0u;
    if (t == 0) {
        s_p = *g.parsed;
        /* the checksum states are final: the offsets kernel ran before this one (stream
         * order); unsealed inputs keep GHZ_SUCCESS there */
        const bool crc_ok = g.seal[0].crc_status == GHZ_SUCCESS && g.seal[1].crc_status == GHZ_SUCCESS;
        s_go = s_p.status != GHZ_SUCCESS ? 0 : crc_ok ? 1 : -1;
        s_in_off[0] = g.off_a[tile];
        s_in_off[1] = g.off_a[tile + 1];
        s_in_off[2] = g.off_b[tile];
        s_in_off[3] = g.off_b[tile + 1];
        if constexpr (InPlace) s_late = 0;
    }
    __syncthreads();
    /* every CTA reads the same verdict: all leave here together, or none does. init's
     * error is in *d_status already; a checksum mismatch is reported once, with
     * atomicMax over init's GHZ_SUCCESS (nothing else writes the status then) */
    if (s_go != 1) {
        if (s_go < 0 && tile == 0 && t == 0) report(g.d_status, GHZ_ERR_CORRUPT);
        return;
    }
    const homo_parsed_t& p = s_p;
    const uint64_t n = p.a.n, nb = p.a.n_blocks, cb = ghz_codes_bytes(nb);
    const int has_fill = p.a.has_fill;
    const uint64_t fill_bits = p.a.fill_bits;
    /* an empty frame still has one tile: it writes the header */
    const uint64_t tiles_needed = nb ? (nb + S::tile_blocks - 1u) / S::tile_blocks : 1u;
    if ((uint64_t)tile >= tiles_needed) return; /* tiles past the last wait on nobody */
    const bool last = (uint64_t)tile == tiles_needed - 1u;
    /* in place, A's frame was moved to the end of the capacity (the shift kernel; init
     * accepted it, so frame_size <= out_capacity) and its code bytes copied aside */
    const uint8_t* const a_src = InPlace ? g.a + (g.out_capacity - p.a.frame_size) : g.a;
    const uint8_t* const codes_a = InPlace ? (const uint8_t*)g.codes_copy : g.a + GHZ_HEADER_SIZE;
    const uint8_t* const codes_b = g.b + GHZ_HEADER_SIZE;
    const uint8_t* const pay_a = a_src + GHZ_HEADER_SIZE + cb;
    const uint8_t* const pay_b = codes_b + cb;
    uint8_t* const out_codes = g.out + GHZ_HEADER_SIZE;
    uint8_t* const out_pay = out_codes + cb;

    /* 1. code bytes and sizes of this thread's block in both inputs; offsets in the
     * warp, then the tile, then across tiles */
    const bool mine = blk < nb;
    const unsigned ca = mine ? code_read_a : 0u, cbb = mine ? code_read_b : 0u;
    const unsigned m = mine ? ghz_block_len(n, blk) : 0u;
    int bad = 0;
    unsigned long long in_size = 0;
    if (mine) {
        const uint32_t sa = ghz_block_size(ca, m, elem, has_fill);
        const uint32_t sb = ghz_block_size(cbb, m, elem, has_fill);
        bad = sa == GHZ_BLOCK_INVALID || sb == GHZ_BLOCK_INVALID;
        in_size = bad ? 0ull : ((unsigned long long)sa | ((unsigned long long)sb << 32));
        if (bad) report(g.d_status, GHZ_ERR_CORRUPT);
    }
    unsigned long long in_off = warp_inclusive_scan(in_size);
    if (lane == 31) in_warp[warp] = in_off;
    in_off -= in_size;
    const int sizes_bad = __syncthreads_or(bad);
    unsigned long long tile_in;
    in_off += warp_offset_in_tile<S::warps>(in_warp, &tile_in);
    const unsigned tot_a = (unsigned)(tile_in & 0xFFFFFFFFull), tot_b = (unsigned)(tile_in >> 32);
    const bool ok_in = !inputs_outside(g.d_status, p, s_in_off, tot_a, tot_b, last) && !sizes_bad;
    if (last && warp == 0)
        for (uint64_t i = nb + lane; i < cb; i += 32)
            if (codes_a[i] != 0 || codes_b[i] != 0) report(g.d_status, GHZ_ERR_CORRUPT);

    /* 2. stage both tiles' payloads (only when the offsets were sound) */
    const uint64_t off_a = s_in_off[0], off_b = s_in_off[2];
    const unsigned ph_a = (unsigned)(((uintptr_t)pay_a + off_a) & 15u);
    const unsigned ph_b = (unsigned)(((uintptr_t)pay_b + off_b) & 15u);
    if (ok_in)
        tile_load2<S::threads>(bufa, pay_a + off_a - ph_a, ph_a, ph_a + tot_a, bufb, pay_b + off_b - ph_b, ph_b,
                               ph_b + tot_b);
    __syncthreads();

    /* 3. this thread's block: decode both, combine, choose the result's kind */
    const unsigned in_a = (unsigned)(in_off & 0xFFFFFFFFull), in_b = (unsigned)(in_off >> 32); /* in the tile */
    const uint8_t* const sa_p = bufa + ph_a + in_a;
    const uint8_t* const sb_p = bufb + ph_b + in_b;
    int32_t qa[32], qb[32];
    uint32_t fa = 0, fb = 0, fmask = 0;
    unsigned code = 0, size = 0;
    /* a RAW or CONST result: its values are computed again when they are emitted, from
     * the inputs */
    bool recompute = false;
    int dec_ok = 1;
    const bool zero_both = ca == 0u && cbb == 0u && p.int_ok && !(p.has_qfill && p.qfill == 0);
    if (ok_in && mine && !zero_both) {
        dec_ok = decode_q<true>(ca, m, sa_p, (const uint32_t*)bufa, ph_a + in_a, qa, &fa);
        dec_ok &= decode_q<true>(cbb, m, sb_p, (const uint32_t*)bufb, ph_b + in_b, qb, &fb);
        const bool special = ((ca & GHZ_CODE_W_MASK) == GHZ_CODE_W_SPECIAL && ca != GHZ_CODE_FILLED) ||
                             ((cbb & GHZ_CODE_W_MASK) == GHZ_CODE_W_SPECIAL && cbb != GHZ_CODE_FILLED);
        bool done = false;
        if (dec_ok && p.int_ok && !special) {
            if (int_path<Op>(p, m, qa, fa, qb, fb, elem == 4u)) {
                ghz_block_facts_t f;
                ghz_facts_begin(&f, m);
                f.fmask = fa | fb;
                code = ghz_facts_finish(&f, qb, has_fill, elem, &size);
                fmask = f.fmask;
                /* A QUANT result larger than RAW (possible only in a short last block):
                 * engine.c then takes the float path, whose analysis finds the same
                 * integers and mask (every position passed the test) and so RAW again,
                 * holding DOC's values: emitted as such below. */
                recompute = code == GHZ_CODE_RAW;
                done = true;
            } else {
                /* qb held q*: B's integers again */
                dec_ok &= decode_q<true>(cbb, m, sb_p, (const uint32_t*)bufb, ph_b + in_b, qb, &fb);
            }
        }
        if (dec_ok && !done) {
            /* the float path: DOC's value at each position, analysed as the compressor
             * does (value by value; the integers go to qb, each after B's is used) */
            const ghz_quantizer_t z = ghz_quantizer_make(p.a.eb_abs, elem == 4u);
            const uint64_t r0 = doc_value(Op, input_value<T>(z, ca, fa, sa_p, qa[0], 0, fill_bits),
                                          input_value<T>(z, cbb, fb, sb_p, qb[0], 0, fill_bits), p, elem);
            ghz_block_facts_t f;
            ghz_facts_begin(&f, m);
#pragma unroll
            for (unsigned i = 0; i < 32u; ++i) {
                if (i < m) {
                    const uint64_t r =
                        i == 0 ? r0
                               : doc_value(Op, input_value<T>(z, ca, fa, sa_p, qa[i], i, fill_bits),
                                           input_value<T>(z, cbb, fb, sb_p, qb[i], i, fill_bits), p, elem);
                    ghz_facts_take(&f, &z, has_fill, fill_bits, i, value_of_bits<T>(r), r, r0, &qb[i]);
                }
            }
            code = ghz_facts_finish(&f, qb, has_fill, elem, &size);
            fmask = f.fmask;
            recompute = code == GHZ_CODE_RAW || code == GHZ_CODE_CONST;
        }
        if (!dec_ok) {
            report(g.d_status, GHZ_ERR_CORRUPT);
            code = 0;
            size = 0;
            recompute = false;
        }
    }

    /* In place, a block whose emission below reads A's payload in global memory (a RAW
     * or CONST result: its values are computed again from the inputs) makes its tile
     * publish its output size only once it has emitted (HOMO.md, In place with the
     * fused kernel): a later tile may overwrite this tile's input as soon as it sees
     * the size published. Atomic: racecheck-clean, read after the barrier below. */
    if constexpr (InPlace)
        if (recompute || code == GHZ_CODE_RAW || code == GHZ_CODE_CONST) atomicOr(&s_late, 1);

    /* 4. output offsets: in the warp, the tile, then across tiles */
    unsigned out_off = warp_inclusive_scan(size);
    if (lane == 31) out_warp[warp] = out_off;
    out_off -= size;
    /* also: every thread is done reading bufa, which becomes the output staging */
    const int dec_bad = __syncthreads_or(!dec_ok);
    unsigned out_total;
    const unsigned warp_off = warp_offset_in_tile<S::warps>(out_warp, &out_total);
    /* The tile's output total is published at once and the output staged (from offset
     * 0) before the tile waits for the earlier tiles' totals, as in compress.cu. */
    const bool late = InPlace && s_late;
    if (t == 0 && !late) {
        tile_state_t ts = g.out_tiles;
        lookback_publish(ts, tile, out_total);
    }
    const bool write = ok_in && !dec_bad;
    const uint8_t* const ga_p = pay_a + off_a + in_a;
    const ghz_quantizer_t z = ghz_quantizer_make(p.a.eb_abs, elem == 4u); /* made where used: fewer live registers */
    if (write) {
        if (mine) out_codes[blk] = (uint8_t)code;
        if (recompute) {
            /* both inputs' integers again (qb holds the result's, and keeping qa
             * through the look-back would cost 32 registers in every thread for a rare
             * case): A's from global memory (its staging is the output's now), B's from
             * its staging */
            decode_q<false>(ca, m, ga_p, nullptr, 0u, qa, &fa);
            decode_q<true>(cbb, m, sb_p, (const uint32_t*)bufb, ph_b + in_b, qb, &fb);
        }
        emit_block<true>(
            code, size, elem, bufa + warp_off + out_off,
            [&](unsigned i) {
                return doc_value(Op, input_value<T>(z, ca, fa, ga_p, qa[i], i, fill_bits),
                                 input_value<T>(z, cbb, fb, sb_p, qb[i], i, fill_bits), p, elem);
            },
            [&](uint8_t* o) { ghz_quant_encode(qb, fmask, o); });
    }
    __syncthreads();
    /* a late tile publishes here, in lookback_exclusive, after its last read of A */
    if (warp == 0) {
        tile_state_t ts = g.out_tiles;
        const offset_t excl = lookback_exclusive(ts, lb, tile, out_total);
        if (lane == 0) s_out_off = excl;
    }
    __syncthreads();
    if (!write) return;
    const offset_t out_base = s_out_off;
    tile_store_shifted<S::threads>(bufa, out_pay + out_base, out_total);

    if (last && warp == 0) write_frame_end(g.out, g.d_out_size, p.a, nb, cb, out_base + out_total);
}

/* Grid (groups + g.crc_ctas, 2): the tile offsets of A (y = 0) and B (y = 1), in
 * tiles of the fused kernel's size, when init accepted the headers; the last
 * g.crc_ctas CTAs verify the input's checksum when it has one (else each leaves after
 * reading its flag). In place, A is read where the shift moved it, its code bytes from
 * their copy. */
template <typename T, bool InPlace>
__global__ void __launch_bounds__(kThreads) homo_offsets_kernel(homo_args_t g)
{
    __shared__ tile_offsets_smem sm;
    __shared__ uint32_t crc_table[256];
    const bool is_b = blockIdx.y != 0;
    const unsigned groups = gridDim.x - g.crc_ctas;
    const homo_parsed_t* const p = g.parsed;
    const uint8_t* a = g.a;
    /* init refused a call whose frame does not fit the capacity, and nothing below reads
     * a then (the checksum part checks the state's status first) */
    if constexpr (InPlace)
        if (p->status == GHZ_SUCCESS) a += g.out_capacity - p->a.frame_size;
    if (blockIdx.x >= groups) {
        chunk_t c{};
        c.src = is_b ? g.b : a;
        c.parsed = g.seal + blockIdx.y;
        checksum_part(c, blockIdx.x - groups, g.crc_ctas, crc_table);
        return;
    }
    if (p->status != GHZ_SUCCESS) return;
    const ghz_frame_info_t& f = is_b ? p->b : p->a;
    const uint8_t* const codes = is_b ? g.b + GHZ_HEADER_SIZE : InPlace ? g.codes_copy : a + GHZ_HEADER_SIZE;
    frame_tile_offsets<homo_shape<T>::tile_blocks>(sm, codes, f.n, f.n_blocks, f.has_fill, (unsigned)sizeof(T),
                                                   blockIdx.x, is_b ? g.in_tiles_b : g.in_tiles_a,
                                                   is_b ? g.off_b : g.off_a);
}

/* In place: A's frame to the end of the capacity, its code bytes to g.codes_copy
 * (shift.cuh), when init accepted the call. */
__global__ void __launch_bounds__(kThreads) homo_shift_kernel(homo_args_t g)
{
    __shared__ __align__(16) uint8_t chunk[kShiftStageBytes];
    const homo_parsed_t* const p = g.parsed;
    if (p->status != GHZ_SUCCESS) return;
    const uint64_t S = p->a.frame_size;
    shift_frame(g.out, S, g.out_capacity - S, ghz_codes_bytes(p->a.n_blocks), g.codes_copy, g.shift_flags, chunk);
}

template <typename T, bool InPlace>
cudaError_t launch_fused(const homo_args_t& g, cudaStream_t stream)
{
    using S = homo_shape<T>;
    cudaError_t e = cudaSuccess;
    if (InPlace) e = launch(homo_shift_kernel, g.shift_chunks, kThreads, stream, g);
    if (e == cudaSuccess)
        e = launch(homo_offsets_kernel<T, InPlace>, dim3(tile_offset_groups(g.num_tiles) + g.crc_ctas, 2), kThreads,
                   stream, g);
    if (e != cudaSuccess) return e;
    const unsigned grid = (unsigned)g.num_tiles;
    switch (g.op) {
    case GHZ_HOMO_SUM: return launch(homo_binary_kernel<T, GHZ_HOMO_SUM, InPlace>, grid, S::threads, stream, g);
    case GHZ_HOMO_SUB: return launch(homo_binary_kernel<T, GHZ_HOMO_SUB, InPlace>, grid, S::threads, stream, g);
    case GHZ_HOMO_MIN: return launch(homo_binary_kernel<T, GHZ_HOMO_MIN, InPlace>, grid, S::threads, stream, g);
    default: return launch(homo_binary_kernel<T, GHZ_HOMO_MAX, InPlace>, grid, S::threads, stream, g);
    }
}

template <typename T>
cudaError_t launch_homo_binary(const homo_args_t& a, cudaStream_t stream)
{
    using S = homo_shape<T>;
    static_assert(S::tile_elems % kHomoTileElems == 0, "the workspace must hold this kernel's tiles");
    homo_args_t g = a;
    g.num_tiles = tiles_for(a.max_elems, S::tile_elems);
    cudaError_t e = launch_homo_init(g, stream);
    if (e != cudaSuccess) return e;
    if (g.inplace) return launch_fused<T, true>(g, stream);
    return launch_fused<T, false>(g, stream);
}

template cudaError_t launch_homo_binary<float>(const homo_args_t&, cudaStream_t);
template cudaError_t launch_homo_binary<double>(const homo_args_t&, cudaStream_t);

} // namespace detail
} // namespace ghz
