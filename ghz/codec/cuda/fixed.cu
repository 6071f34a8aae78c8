/* ghz/codec/cuda/fixed.cu: the CUDA fixed-rate codec (FIXED.md, ghz/codec/fixed_cuda.h).
 *
 * Encoding: each thread loads 16 bytes of input (4 floats or 2 doubles) with one
 * vector load; the 8 or 16 threads of a block reduce the block's largest exponent and
 * its non-finite classes with warp shuffles, then each writes its codes with one
 * store. Decoding: each thread takes one 16-byte chunk of codes (fixed.cuh) and
 * writes its values with vector stores. Both are grid-stride loops with no shared
 * memory: the work is a pure stream, so the only goal is full-width coalesced
 * accesses. All value logic is fixed.h's, so the bytes equal the CPU reference's. */
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "ghz/codec/cuda/host.cuh"
#include "ghz/codec/fixed.cuh"
#include "ghz/codec/fixed_cuda.h"
#include "ghz/detail/error.h"

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFull = 0xFFFFFFFFu;

/* As many CTAs as can be resident at once (the loops stride over the rest): a grid
 * larger than that would run in a second, partly empty wave. The SM count and the
 * kernel's occupancy come from the context, queried once there (*occ caches it); with
 * no context they are queried on each call. */
template <typename K>
int grid_for(const ghz_cuda_ctx* ctx, int* occ, K kernel, uint64_t items)
{
    const int sms = ghz::detail::sm_count(ctx);
    int per_sm = occ ? *occ : 0;
    if (per_sm < 1) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0) != cudaSuccess || per_sm < 1)
            per_sm = 1;
        if (occ) *occ = per_sm;
    }
    uint64_t want = (items + kThreads - 1) / kThreads, cap = (uint64_t)sms * (uint64_t)per_sm;
    want = want < cap ? want : cap;
    return want ? (int)want : 1;
}

/* The context's occupancy slot of a fixed-rate kernel (direction, dtype, l, VEC). */
template <typename T, unsigned BITS, bool VEC>
int* occupancy_slot(ghz_cuda_ctx* ctx, int dir)
{
    return ctx ? &ctx->occupancy[dir][sizeof(T) == 8][BITS == 8u ? 0 : BITS == 16u ? 1 : 2][VEC] : nullptr;
}

/* Writes the low NB bytes of p at dst (aligned to NB) with one store. */
template <unsigned NB>
__device__ __forceinline__ void store_bytes(uint8_t* dst, const uint32_t (&p)[4])
{
    if (NB == 2) *reinterpret_cast<uint16_t*>(dst) = (uint16_t)p[0];
    if (NB == 4) *reinterpret_cast<uint32_t*>(dst) = p[0];
    if (NB == 8) *reinterpret_cast<uint2*>(dst) = make_uint2(p[0], p[1]);
    if (NB == 16) *reinterpret_cast<uint4*>(dst) = make_uint4(p[0], p[1], p[2], p[3]);
}

/* Loads the values of encoder item t (E values from element `first`; those past n are
 * 0 and not counted); returns how many are elements. */
template <typename T, bool VEC>
__device__ __forceinline__ unsigned load_item(const T* __restrict__ src, uint64_t n, uint64_t first,
                                              T (&x)[16u / sizeof(T)])
{
    constexpr unsigned E = 16u / sizeof(T);
    if (VEC && first + E <= n) {
        if (sizeof(T) == 4) {
            const float4 q = __ldg(reinterpret_cast<const float4*>(src + first));
            x[0] = (T)q.x;
            x[1 % E] = (T)q.y;
            x[2 % E] = (T)q.z;
            x[3 % E] = (T)q.w;
        } else {
            const double2 q = __ldg(reinterpret_cast<const double2*>(src + first));
            x[0] = (T)q.x;
            x[E - 1] = (T)q.y;
        }
        return E;
    }
    /* the valid values are a prefix; constant indices keep x in registers. Threads past
     * the end of a partial last block have no value (n - first would wrap: they would
     * read past the array and set the block's exponent). */
    const unsigned cnt = first >= n ? 0u : n - first < E ? (unsigned)(n - first) : E;
#pragma unroll
    for (unsigned j = 0; j < E; ++j) x[j] = j < cnt ? src[first + j] : (T)0;
    return cnt;
}

/* The class bit (as ghz_fixed_class_bit) of a non-finite value: NaN, or an infinity
 * of the value's sign. */
__device__ __forceinline__ unsigned nonfinite_bit(bool nan, bool neg)
{
    return 1u << (nan ? GHZ_FIXED_NAN : neg ? GHZ_FIXED_NINF : GHZ_FIXED_PINF);
}

/* Encodes item t (its values x, cnt of them elements): the G lanes of a block reduce
 * its exponent and classes, the first writes the word, each stores its codes. Called
 * by every lane of the warp (the shuffles); lanes with t >= items only take part.
 * The block exponent is the top of the largest finite magnitude (top is monotone in
 * it), so each thread takes one top of its values' maximum; codes come from fixed.h's
 * FMA shortcuts, the integer functions where those do not apply (float32 at l = 32, and
 * blocks whose 2^(l-1-e) is not a normal number). */
template <typename T, unsigned BITS>
__device__ __forceinline__ void encode_item(const T (&x)[16u / sizeof(T)], unsigned cnt, uint64_t t,
                                            uint64_t items, uint16_t* __restrict__ words,
                                            uint8_t* __restrict__ codes)
{
    constexpr unsigned E = 16u / sizeof(T); /* values per thread */
    constexpr unsigned G = 32u / E;         /* threads per block of 32 */
    constexpr unsigned NB = E * BITS / 8u;  /* code bytes per thread */
    constexpr bool F32 = sizeof(T) == 4;
    using U = typename std::conditional<F32, uint32_t, unsigned long long>::type;
    constexpr U kSign = (U)1 << (8 * sizeof(T) - 1);
    constexpr U kInf = F32 ? (U)0x7F800000u : (U)0x7FF0000000000000ull;
    U bits[E], amax = 0;
    unsigned mask = 0;
#pragma unroll
    for (unsigned j = 0; j < E; ++j) {
        memcpy(&bits[j], &x[j], sizeof(T));
        const U a = bits[j] & ~kSign;
        if (j < cnt) {
            if (a >= kInf) mask |= nonfinite_bit(a > kInf, (bits[j] & kSign) != 0);
            else amax = a > amax ? a : amax;
        }
    }
    int top;
    if (F32) {
        unsigned cb;
        top = ghz_fixed_top_f32((uint32_t)amax, &cb);
    } else {
        top = ghz_fixed_split_bits((uint64_t)amax, 52, 11).top;
    }
#pragma unroll
    for (unsigned off = G / 2u; off > 0; off >>= 1) {
        const int o = __shfl_xor_sync(kFull, top, off);
        top = o > top ? o : top;
        mask |= __shfl_xor_sync(kFull, mask, off);
    }
    if (t >= items) return;
    if (t % G == 0) words[t / G] = ghz_fixed_word(top, mask);
    int32_t c[E];
    bool fast;
    if (F32) {
        const ghz_fixed_enc_f32_t sc = ghz_fixed_enc_f32_make(top, BITS);
        fast = sc.fast;
        if (fast) {
#pragma unroll
            for (unsigned j = 0; j < E; ++j) c[j] = ghz_fixed_code_f32_fast(sc, (float)x[j], BITS);
        }
    } else {
        const ghz_fixed_enc_f64_t sc = ghz_fixed_enc_f64_make(top, BITS);
        fast = sc.fast;
        if (fast) {
#pragma unroll
            for (unsigned j = 0; j < E; ++j) c[j] = ghz_fixed_code_f64_fast(sc, (double)x[j], BITS);
        }
    }
    if (!fast) {
        int sat = 0;
#pragma unroll
        for (unsigned j = 0; j < E; ++j) {
            if (F32) {
                c[j] = ghz_fixed_code_f32((uint32_t)bits[j], top, BITS, &sat);
            } else {
                const ghz_fixed_split_t sp = ghz_fixed_split_bits((uint64_t)bits[j], 52, 11);
                c[j] = ghz_fixed_code(&sp, top, BITS, &sat);
            }
        }
    }
    uint32_t packed[4] = {0, 0, 0, 0};
#pragma unroll
    for (unsigned j = 0; j < E; ++j) {
        /* past n: 0; not finite: the marker (the finite-value codes ignored it) */
        const int32_t cj = j >= cnt ? 0 : (bits[j] & ~kSign) >= kInf ? ghz_fixed_marker(BITS) : c[j];
        const uint32_t u = BITS == 32u ? (uint32_t)cj : (uint32_t)cj & ((1u << (BITS % 32u)) - 1u);
        packed[j * BITS / 32u] |= u << ((j * BITS) % 32u);
    }
    store_bytes<NB>(codes + t * NB, packed);
}

/* Items (16 bytes of input each) a thread loads before it encodes the first: one
 * 16-byte load at a time per thread leaves too few bytes in flight to stream at the
 * memory's speed. */
constexpr unsigned kEncodeUnroll = 4;

template <typename T, unsigned BITS, bool VEC>
__global__ void __launch_bounds__(kThreads)
    fixed_encode_kernel(const T* __restrict__ src, uint64_t n, uint8_t* __restrict__ dst)
{
    constexpr unsigned E = 16u / sizeof(T), G = 32u / E, U = kEncodeUnroll;
    const uint64_t nb = n / 32u + (n % 32u != 0), items = nb * G;
    const uint64_t words_bytes = ghz_fixed_words_bytes(nb);
    uint16_t* words = reinterpret_cast<uint16_t*>(dst + 64);
    uint8_t* codes = dst + 64 + words_bytes;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        ghz_fixed_header_pack(dst, sizeof(T) == 4 ? GHZ_F32 : GHZ_F64, BITS, n);
        for (uint64_t b = 2u * nb; b < words_bytes; ++b) dst[64 + b] = 0;
    }
    /* a warp takes U * 32 consecutive items per round; the loop condition is
     * warp-uniform, so every lane takes part in the shuffles */
    const uint64_t warp = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32u;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x * U;
    const unsigned lane = threadIdx.x & 31u;
    for (uint64_t base = warp * 32u * U; base < items; base += stride) {
        T x[U][E];
        unsigned cnt[U];
#pragma unroll
        for (unsigned j = 0; j < U; ++j) {
            const uint64_t t = base + j * 32u + lane;
            cnt[j] = t < items ? load_item<T, VEC>(src, n, t * E, x[j]) : 0u;
        }
#pragma unroll
        for (unsigned j = 0; j < U; ++j)
            encode_item<T, BITS>(x[j], cnt[j], base + j * 32u + lane, items, words, codes);
    }
}

__global__ void fixed_header_kernel(const uint8_t* src, uint64_t src_size, int dtype,
                                    unsigned bits, uint64_t n, int* d_status)
{
    ghz_fixed_info_t info;
    int why = 0, st = ghz_fixed_header_unpack(src, src_size, &info, &why);
    if (st == GHZ_SUCCESS && (info.dtype != dtype || info.bits != bits || info.n != n))
        st = GHZ_ERR_MISMATCH;
    *d_status = st;
}

/* Chunks a decoding thread fetches before it decodes the first (see kEncodeUnroll). */
constexpr unsigned kDecodeUnroll = 4;

/* Writes a warp's 32 consecutive chunks of decoded values (lane L holds chunk L's V
 * values in y) to dst with 16-byte stores that are contiguous across the warp: each
 * lane's values go through the warp's shared staging area, NV 16-byte vectors per
 * lane, vector q of lane L in slot q ^ (L mod NV) so that neither the writes by lane
 * nor the reads in address order meet bank conflicts (NV >= 8) or meet two-way ones
 * (NV = 2). A lane storing its own V values directly would make every store
 * instruction of the warp touch 32 separate 16-byte pieces, far below the copy
 * roofline where the values outnumber the codes. */
template <typename T, unsigned V>
__device__ __forceinline__ void warp_store(const T (&y)[V], uint4* stage, T* __restrict__ dst)
{
    constexpr unsigned NV = V * sizeof(T) / 16u; /* 16-byte vectors per lane */
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned q = 0; q < NV; ++q) {
        uint4 u;
        memcpy(&u, &y[q * 16u / sizeof(T)], 16);
        stage[lane * NV + (q ^ (lane % NV))] = u;
    }
    __syncwarp();
#pragma unroll
    for (unsigned r = 0; r < NV; ++r) {
        const unsigned vi = r * 32u + lane, owner = vi / NV, q = vi % NV;
        reinterpret_cast<uint4*>(dst)[vi] = stage[owner * NV + (q ^ (owner % NV))];
    }
    __syncwarp(); /* the next round overwrites the stage */
}

template <typename T, unsigned BITS, bool VEC>
__global__ void __launch_bounds__(kThreads)
    fixed_decode_kernel(ghz_fixed_view_t v, T* __restrict__ out, int* d_status)
{
    using C = ghz::fixed_chunk<BITS>;
    constexpr unsigned V = C::elems, U = kDecodeUnroll, NV = V * sizeof(T) / 16u;
    __shared__ uint4 stage[kThreads / 32][32 * NV];
    const uint64_t chunks = C::count(v.n / 32u + (v.n % 32u != 0));
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    const unsigned lane = threadIdx.x & 31u;
    int bad = 0;
    /* warp-uniform rounds: the warp's chunks are base + lane + j * stride */
    for (uint64_t base = (uint64_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < chunks;
         base += U * stride) {
        ghz::fixed_raw r[U];
#pragma unroll
        for (unsigned j = 0; j < U; ++j)
            if (base + j * stride + lane < chunks) r[j] = ghz::fixed_chunk_fetch<BITS>(v, base + j * stride + lane);
#pragma unroll
        for (unsigned j = 0; j < U; ++j) {
            const uint64_t wbase = base + j * stride, chunk = wbase + lane, first = chunk * V;
            if (wbase >= chunks) break;
            /* elements of this chunk below n: V, fewer in the last block's chunks, and
             * none in its padding chunks, whose codes must still be checked (all 0) */
            const unsigned valid = first >= v.n ? 0u : first + V <= v.n ? V : (unsigned)(v.n - first);
            T y[V];
            if (chunk < chunks) {
                bad |= ghz::fixed_chunk_check<BITS>(r[j], valid, sizeof(T) == 4);
                ghz::fixed_chunk_values<T, BITS>(r[j], y);
            }
            if (VEC && (wbase + 32u) * V <= v.n) { /* all 32 chunks whole: warp-uniform */
                warp_store<T, V>(y, stage[threadIdx.x / 32u], out + wbase * V);
            } else {
#pragma unroll
                for (unsigned i = 0; i < V; ++i)
                    if (i < valid) out[first + i] = y[i];
            }
        }
    }
    if (bad && d_status) atomicMax(d_status, (int)GHZ_ERR_CORRUPT);
}

/* Calls f.run<T, BITS, VEC>() for the runtime dtype, bits and 16-byte alignment of
 * the uncompressed array (the host checked that bits is 8, 16 or 32). */
template <typename F>
cudaError_t dispatch(ghz_dtype_t dtype, unsigned bits, bool vec, F&& f)
{
#define GHZ_FIXED_CASE(T, B)                                                             \
    if (bits == B) return vec ? f.template run<T, B, true>() : f.template run<T, B, false>();
    if (dtype == GHZ_F32) {
        GHZ_FIXED_CASE(float, 8u)
        GHZ_FIXED_CASE(float, 16u)
        GHZ_FIXED_CASE(float, 32u)
    } else {
        GHZ_FIXED_CASE(double, 8u)
        GHZ_FIXED_CASE(double, 16u)
        GHZ_FIXED_CASE(double, 32u)
    }
#undef GHZ_FIXED_CASE
    return cudaErrorInvalidValue;
}

struct encode_launch {
    ghz_cuda_ctx* ctx;
    const void* src;
    uint64_t n;
    uint8_t* dst;
    cudaStream_t stream;
    template <typename T, unsigned BITS, bool VEC>
    cudaError_t run() const
    {
        const uint64_t items = (n / 32u + (n % 32u != 0)) * (32u / (16u / sizeof(T)));
        const auto kernel = fixed_encode_kernel<T, BITS, VEC>;
        const int grid = grid_for(ctx, occupancy_slot<T, BITS, VEC>(ctx, 0), kernel, items);
        return ghz::detail::launch(kernel, grid, kThreads, stream, static_cast<const T*>(src), n, dst);
    }
};

struct decode_launch {
    ghz_cuda_ctx* ctx;
    ghz_fixed_view_t v;
    void* out;
    int* d_status;
    cudaStream_t stream;
    template <typename T, unsigned BITS, bool VEC>
    cudaError_t run() const
    {
        const uint64_t chunks = ghz::fixed_chunk<BITS>::count(v.n / 32u + (v.n % 32u != 0));
        if (!chunks) return cudaSuccess;
        const auto kernel = fixed_decode_kernel<T, BITS, VEC>;
        const int grid = grid_for(ctx, occupancy_slot<T, BITS, VEC>(ctx, 1), kernel, chunks);
        return ghz::detail::launch(kernel, grid, kThreads, stream, v, static_cast<T*>(out), d_status);
    }
};

ghz_status_t check_common(ghz_dtype_t dtype, unsigned bits, size_t n, const void* frame,
                          const void* values, size_t* need)
{
    const size_t elem = ghz_float_size(dtype);
    if (!elem) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)dtype);
    if (!ghz_fixed_bits_ok(bits))
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "fixed-rate bits %u: 8, 16 or 32 are supported", bits);
    *need = ghz_fixed_size(n, bits);
    if (!*need) return ghz_fail(GHZ_ERR_INVALID_ARG, "%zu elements do not fit in size_t bytes", n);
    if (!frame || (n && !values)) return ghz_fail(GHZ_ERR_INVALID_ARG, "NULL device pointer");
    if ((uintptr_t)frame % 16u != 0)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "fixed-rate frame not 16-byte aligned");
    if ((uintptr_t)values % elem != 0)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "array not aligned to its %zu-byte elements", elem);
    return GHZ_SUCCESS;
}

} // namespace

extern "C" ghz_status_t ghz_cuda_fixed_compress(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, unsigned bits,
                                                const void* d_src, size_t n, void* d_dst, size_t dst_capacity,
                                                cudaStream_t stream)
{
    size_t need = 0;
    ghz_status_t st;
    ghz_clear_detail();
    if ((st = ghz::detail::ctx_check(ctx)) != GHZ_SUCCESS) return st;
    if ((st = check_common(dtype, bits, n, d_dst, d_src, &need)) != GHZ_SUCCESS)
        return st;
    if (dst_capacity < need)
        return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "fixed-rate frame needs %zu bytes, capacity %zu",
                        need, dst_capacity);
    /* n = 0 still runs one thread: the header */
    encode_launch f{ctx, d_src, n, static_cast<uint8_t*>(d_dst), stream};
    const cudaError_t e = dispatch(dtype, bits, (uintptr_t)d_src % 16u == 0, f);
    return e == cudaSuccess ? GHZ_SUCCESS : ghz::detail::cuda_fail(e, "fixed-rate encode launch");
}

extern "C" ghz_status_t ghz_cuda_fixed_decompress(ghz_cuda_ctx_t* ctx, ghz_dtype_t dtype, unsigned bits,
                                                  size_t n, const void* d_src, size_t src_size, void* d_dst,
                                                  size_t dst_capacity, int* d_status, cudaStream_t stream)
{
    size_t need = 0;
    ghz_status_t st;
    cudaError_t e = cudaSuccess;
    ghz_clear_detail();
    if ((st = ghz::detail::ctx_check(ctx)) != GHZ_SUCCESS) return st;
    if ((st = check_common(dtype, bits, n, d_src, d_dst, &need)) != GHZ_SUCCESS) return st;
    if (src_size != need)
        return ghz_fail(GHZ_ERR_MISMATCH,
                        "a frame of %zu values at %u bits has %zu bytes, src_size is %zu", n, bits,
                        need, src_size);
    if (n > dst_capacity / ghz_float_size(dtype))
        return ghz_fail(GHZ_ERR_DST_TOO_SMALL, "%zu values need %zu bytes, capacity %zu", n,
                        n * ghz_float_size(dtype), dst_capacity);
    if (d_status)
        e = ghz::detail::launch(fixed_header_kernel, 1, 1, stream, static_cast<const uint8_t*>(d_src),
                                (uint64_t)src_size, (int)dtype, bits, (uint64_t)n, d_status);
    if (e == cudaSuccess) {
        decode_launch f{ctx, ghz_fixed_view_make(const_cast<void*>(d_src), dtype, bits, n), d_dst,
                        d_status, stream};
        e = dispatch(dtype, bits, (uintptr_t)d_dst % 16u == 0, f);
    }
    return e == cudaSuccess ? GHZ_SUCCESS : ghz::detail::cuda_fail(e, "fixed-rate decode launch");
}
