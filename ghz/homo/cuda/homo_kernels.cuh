/* ghz/homo/cuda/homo_kernels.cuh (private): what the host API of ghz/homo/homo_cuda.h
 * hands to the fused kernel (binary.cu) and its init kernel (init.cu). */
#ifndef GHZ_HOMO_CUDA_HOMO_KERNELS_CUH
#define GHZ_HOMO_CUDA_HOMO_KERNELS_CUH

#include "ghz/codec/cuda/thread_block.cuh"
#include "ghz/codec/cuda/tile.cuh"
#include "ghz/codec/detail/header.h"
#include "ghz/homo/detail/homo_block.h"
#include "ghz/homo/homo_cuda.h"

/* GHZ_CUDA_HOMO_BINARY_SLICED 1 (the default): the binary SUM and SUB, out of place and
 * in place, run the k-input kernel of nary.cu with k = 2, whose integer pass adds the
 * inputs on their bit planes (homo_sliced.h); MIN and MAX run binary.cu's fused
 * two-input kernel (in place after the shift). 0: every operation through binary.cu.
 * Adding bit planes costs fewer instructions than decoding both inputs' integers and
 * encoding their sum, so SUM and SUB run faster this way (docs/RESULTS.md). */
#ifndef GHZ_CUDA_HOMO_BINARY_SLICED
#define GHZ_CUDA_HOMO_BINARY_SLICED 1
#endif

namespace ghz {
namespace detail {

/* Elements per tile the workspace (look-back status and offset arrays) is sized for:
 * 32 blocks, fewer than binary.cu's 64 (f64) or 128 (f32), so one workspace query
 * serves both dtypes. */
constexpr uint64_t kHomoTileElems = 32u * 32u;

/* The tile of dtype T: as many threads as blocks. Two staged tiles of 128 blocks
 * are 32 KB for f32 (binary.cu's two inputs; nary.cu's two buffers taken in turn by
 * the k inputs); f64 takes 64 blocks for the same 32 KB. The register cap (CTAs
 * per SM in __launch_bounds__) is 128 per thread for both: a thread holds two blocks'
 * integers, 64 registers. */
template <typename T>
struct homo_shape {
    static constexpr unsigned warps = sizeof(T) == 4 ? 4u : 2u;
    static constexpr unsigned threads = 32u * warps;
    static constexpr unsigned tile_blocks = threads;
    static constexpr uint64_t tile_elems = 32u * tile_blocks;
    static constexpr unsigned buffer_bytes = tile_blocks * 32u * (unsigned)sizeof(T) + 16u + 16u;
    static constexpr unsigned ctas = 512u / threads;
};

/* The two headers as the init kernel checked them, and what every tile needs. */
struct homo_parsed_t {
    ghz_frame_info_t a, b;
    int status;    /* GHZ_SUCCESS or why the call fails before any block */
    int int_ok;    /* Q in the safe range: the integer path may be tried */
    int has_qfill; /* the fill value is quantizable, to qfill */
    int32_t qfill;
};

struct homo_args_t {
    const uint8_t* a;
    const uint8_t* b;
    uint8_t* out;
    uint64_t a_size, b_size, out_capacity, max_elems; /* a_size, b_size: readable bytes (the
                                                         capacity when d_*_size holds the size) */
    const uint64_t* d_a_size; /* the inputs' sizes in device memory (ghz_buf_t.d_size), or NULL */
    const uint64_t* d_b_size;
    uint64_t* d_out_size;
    int* d_status;
    homo_parsed_t* parsed;
    parsed_t* seal; /* [2]: A's and B's header again, for their checksums (checksum.cuh) */
    tile_state_t in_tiles_a, in_tiles_b; /* look-backs of the inputs' tile offsets (tile_offsets.cuh) */
    offset_t* off_a;                     /* payload offset of each tile of A, then A's payload size */
    offset_t* off_b;                     /* the same for B */
    tile_state_t out_tiles;              /* look-back of the output's payload offsets */
    int num_tiles;
    int op;
    int dtype;
    unsigned crc_ctas; /* checksum CTAs per input in the offsets kernel (binary.cu) */
    /* In place (out == a, out_capacity a's capacity, d_out_size == d_a_size): A is
     * moved to the end of the capacity by the shift kernel and its code bytes copied to
     * codes_copy (codes_cap bytes), where the offsets pass and the fused kernel read them;
     * shift_flags: one per chunk of the shift (shift_chunks). */
    int inplace;
    uint8_t* codes_copy;
    uint64_t codes_cap;
    unsigned* shift_flags;
    unsigned shift_chunks;
};

/* HOMO.md, Operands must match: the fields of two frames that must agree. */
__device__ __forceinline__ bool same_frame(const ghz_frame_info_t& a, const ghz_frame_info_t& b)
{
    return a.n == b.n && a.dtype == b.dtype && ghz_f64_bits(a.eb_abs) == ghz_f64_bits(b.eb_abs) &&
           a.has_fill == b.has_fill && a.fill_bits == b.fill_bits;
}

/* What the integer path needs of a frame (as engine.c's make_ctx): whether Q is in the
 * safe range, and the fill value's integer when it quantizes. */
__device__ __forceinline__ void int_path_rules(const ghz_frame_info_t& a, int* int_ok, int* has_qfill, int32_t* qfill)
{
    const bool f32 = a.dtype == GHZ_F32;
    const ghz_quantizer_t z = ghz_quantizer_make(a.eb_abs, f32);
    *int_ok = a.eb_abs > 0.0 && ghz_homo_q_safe(z.q, z.is_f32);
    *has_qfill = 0;
    *qfill = 0;
    if (*int_ok && a.has_fill) {
        const double fv = f32 ? (double)__uint_as_float((uint32_t)a.fill_bits)
                              : __longlong_as_double((long long)a.fill_bits);
        *has_qfill = ghz_quantize(&z, fv, qfill);
    }
}

/* Enqueues the init kernel (init.cu): checks both headers once into *a.parsed (and
 * a.seal, for the checksums) and initialises the look-backs for a.num_tiles tiles. */
cudaError_t launch_homo_init(const homo_args_t& a, cudaStream_t stream);

/* Enqueues init (+ the shift when a.inplace) + the offsets pass + the fused kernel.
 * a.num_tiles counts tiles of kHomoTileElems elements (what the workspace holds); a
 * kernel with larger tiles launches fewer. */
template <typename T>
cudaError_t launch_homo_binary(const homo_args_t& a, cudaStream_t stream);

/* Bit pattern of decoded value i (< m) of an input block held as decode_q leaves it:
 * qi = q[i], p its payload (shared or global memory; read byte by byte, only inside
 * the block). The codec's decoder gives the same values (decompress.cu). */
template <typename T>
__device__ __forceinline__ uint64_t input_value(const ghz_quantizer_t& z, unsigned code, uint32_t fmask,
                                                const uint8_t* p, int32_t qi, unsigned i, uint64_t fill_bits)
{
    constexpr unsigned elem = sizeof(T);
    if (code == GHZ_CODE_RAW) return ghz_load_le(p + i * elem, elem);
    if (code == GHZ_CODE_CONST) return ghz_load_le(p, elem);
    if (fmask >> i & 1u) return fill_bits; /* FILLED: every position */
    return recon_bits<T>(z, qi);
}

/* DOC's value at one position (HOMO.md, DOC step 2) from the decoded inputs' bit
 * patterns a and b: the fill value when either is the fill value, else op(a, b) with
 * the rules of detail/homo_block.h (the CPU reference's). */
__device__ __forceinline__ uint64_t doc_value(int op, uint64_t a, uint64_t b, const homo_parsed_t& p,
                                              unsigned elem)
{
    if (p.a.has_fill && (a == p.a.fill_bits || b == p.a.fill_bits)) return p.a.fill_bits;
    return elem == 4u ? (uint64_t)ghz_homo_apply32(op, (uint32_t)a, (uint32_t)b, 0)
                      : ghz_homo_apply64(op, a, b, 0);
}

/* 1 (and the error reported, by thread 0) when a tile's payload bytes, [off, end) of
 * each input as the offsets pass found them, do not hold the tot bytes that the tile's
 * own code bytes give, do not lie inside both payloads, or, in the last tile, do not
 * end them exactly. Nothing is read from a tile before this check. */
__device__ __forceinline__ bool inputs_outside(int* d_status, const homo_parsed_t& p, const offset_t off[4],
                                               uint64_t tot_a, uint64_t tot_b, bool last)
{
    const bool outside = off[0] + tot_a != off[1] || off[1] > p.a.payload_size || off[2] + tot_b != off[3] ||
                         off[3] > p.b.payload_size ||
                         (last && (off[1] != p.a.payload_size || off[3] != p.b.payload_size));
    if (outside && threadIdx.x == 0) report(d_status, GHZ_ERR_CORRUPT);
    return outside;
}

/* By warp 0 of the last tile, once the output's payload size is known (nb blocks, cb
 * code bytes): the header of the frame at out (DOC's: ABS with the inputs' eb_abs, no checksum, as engine.c
 * writes it), the zero code padding, and the frame size in *d_out_size. (Pointers, not
 * the kernel's homo_args_t: a reference to a kernel parameter costs a local copy.) */
__device__ __forceinline__ void write_frame_end(uint8_t* out, uint64_t* d_out_size, const ghz_frame_info_t& a,
                                                uint64_t nb, uint64_t cb, uint64_t payload)
{
    const unsigned lane = threadIdx.x & 31u;
    if (lane == 0) {
        uint8_t h[GHZ_HEADER_SIZE];
        ghz_frame_info_t fi = a;
        fi.has_checksum = 0;
        fi.eb_mode = a.eb_abs > 0.0 ? GHZ_EB_ABS : GHZ_EB_REL;
        fi.eb_user = a.eb_abs > 0.0 ? a.eb_abs : a.eb_user;
        fi.payload_size = payload;
        ghz_header_pack(h, &fi);
        for (unsigned i = 0; i < GHZ_HEADER_SIZE; ++i) out[i] = h[i];
        *d_out_size = GHZ_HEADER_SIZE + cb + payload;
    }
    for (uint64_t i = nb + lane; i < cb; i += 32) out[GHZ_HEADER_SIZE + i] = 0;
}

/* Whether the binary operation op runs through the k-input kernel (GHZ_CUDA_HOMO_BINARY_SLICED). */
inline bool binary_through_nary(int op)
{
    return GHZ_CUDA_HOMO_BINARY_SLICED && (op == GHZ_HOMO_SUM || op == GHZ_HOMO_SUB);
}

/* The binary operation through the k-input kernel (api_nary.cu): one job of two inputs
 * into out, or in place (out == a: input A and the output), and the workspace it needs
 * for frames of max_elems elements (0: too many). */
size_t nary_binary_work_bytes(size_t max_elems, bool inplace);
ghz_status_t nary_binary(ghz_cuda_ctx_t* ctx, ghz_homo_op_t op, ghz_dtype_t dtype, const ghz_buf_t* a,
                         const ghz_buf_t* b, ghz_buf_t* out, bool inplace, size_t max_elems, int* d_status,
                         void* d_work, size_t work_bytes, cudaStream_t stream);

} // namespace detail
} // namespace ghz

#endif
