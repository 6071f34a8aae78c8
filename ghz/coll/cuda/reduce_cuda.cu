/* ghz/coll/cuda/reduce_cuda.cu: the CUDA backend's exact reductions, AVG's scaling and
 * the value range (reduce_cuda.h; the CPU's rules: reduce_ops.h, cpu/reduce_cpu.c).
 * Float arithmetic uses the _rn intrinsics, one rounding per operation whatever the
 * contraction flags, and keeps subnormals (no -ftz), as on the CPU. */
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "ghz/coll/detail/reduce_cuda.h"
#include "ghz/coll/detail/reduce_ops.h"
#include "ghz/detail/error.h"
#include "ghz/detail/launch_cuda.cuh"
#include "ghz/version.h"

/* (version.h's GHZ_ABI_NS: no kernel symbol shared with another version's libghzcoll) */
namespace ghz {
inline namespace GHZ_ABI_NS {
namespace coll_cuda {
using ghz::detail::launch_status; /* (this launch's own error: launch_cuda.cuh) */

/* 4 CTAs of 256 threads per SM, 4 vectors per operand in flight per thread: 192 KiB
 * moving per SM, far above an H100 SM's bandwidth-latency product (~20 KiB).
 * __launch_bounds__ holds the kernels to 64 registers so that the 4 CTAs fit (sm_90,
 * CUDA 13.0: no spills), and a grid of 4 CTAs per SM runs in one wave. */
constexpr unsigned kThreads = 256;
constexpr unsigned kBlocksPerSm = 4;
constexpr unsigned kUnroll = 4;

/* Which elements go where: [0, head) one by one, then nvec 16-byte vectors, then the
 * rest one by one. head = n and nvec = 0 is the scalar path. */
struct span_t {
    uint64_t n, head, nvec;
};

template <unsigned kBytes> struct bits_of;
template <> struct bits_of<1> { using type = uint8_t; };
template <> struct bits_of<2> { using type = uint16_t; };
template <> struct bits_of<4> { using type = uint32_t; };
template <> struct bits_of<8> { using type = unsigned long long; };

template <typename T> __device__ __forceinline__ T from_bits(typename bits_of<sizeof(T)>::type u)
{
    T v;
    memcpy(&v, &u, sizeof v);
    return v;
}

template <typename T> __device__ __forceinline__ typename bits_of<sizeof(T)>::type to_bits(T v)
{
    typename bits_of<sizeof(T)>::type u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* Element i of p: a typed load, or (kBytes) one byte at a time, little-endian, for a
 * pointer that is not aligned to T. The byte address goes through an integer so that
 * the compiler cannot assume T's alignment. */
template <typename T, bool kBytes> __device__ __forceinline__ T load_elem(const T* p, uint64_t i)
{
    if constexpr (kBytes) {
        using U = typename bits_of<sizeof(T)>::type;
        const unsigned char* c = (const unsigned char*)((uintptr_t)p + i * sizeof(T));
        U u = 0;
#pragma unroll
        for (unsigned k = 0; k < sizeof(T); ++k) u |= (U)c[k] << (8u * k);
        return from_bits<T>(u);
    } else {
        return p[i];
    }
}

template <typename T, bool kBytes> __device__ __forceinline__ void store_elem(T* p, uint64_t i, T v)
{
    if constexpr (kBytes) {
        const auto u = to_bits(v);
        unsigned char* c = (unsigned char*)((uintptr_t)p + i * sizeof(T));
#pragma unroll
        for (unsigned k = 0; k < sizeof(T); ++k) c[k] = (unsigned char)(u >> (8u * k));
    } else {
        p[i] = v;
    }
}

__device__ __forceinline__ float add_rn(float x, float y) { return __fadd_rn(x, y); }
__device__ __forceinline__ double add_rn(double x, double y) { return __dadd_rn(x, y); }
__device__ __forceinline__ float mul_rn(float x, float y) { return __fmul_rn(x, y); }
__device__ __forceinline__ double mul_rn(double x, double y) { return __dmul_rn(x, y); }
__device__ __forceinline__ float round_to(double d, float) { return __double2float_rn(d); }
__device__ __forceinline__ double round_to(double d, double) { return d; }

/* The ops (reduce_cpu.c's expressions). Integer SUM and PROD in unsigned arithmetic of
 * int width or more: a uint16_t product would promote to int and could overflow it. */
#define GHZ_COLL_BINOP(name, expr)                                                     \
    struct name {                                                                      \
        static constexpr bool kUnary = false;                                          \
        template <typename T> __device__ T operator()(T x, T y) const { return expr; } \
    }
GHZ_COLL_BINOP(op_iadd, (T)(x + y));
GHZ_COLL_BINOP(op_imul, (T)(1u * x * y));
GHZ_COLL_BINOP(op_imin, y < x ? y : x);
GHZ_COLL_BINOP(op_imax, y > x ? y : x);
GHZ_COLL_BINOP(op_land, (T)((x != 0) & (y != 0)));
GHZ_COLL_BINOP(op_lor, (T)((x != 0) | (y != 0)));
GHZ_COLL_BINOP(op_lxor, (T)((x != 0) ^ (y != 0)));
GHZ_COLL_BINOP(op_band, (T)(x & y));
GHZ_COLL_BINOP(op_bor, (T)(x | y));
GHZ_COLL_BINOP(op_bxor, (T)(x ^ y));
GHZ_COLL_BINOP(op_fadd, add_rn(x, y));
GHZ_COLL_BINOP(op_fmul, mul_rn(x, y));

/* Float constants: the quiet bit and the positive default NaN. */
template <typename F> struct float_bits;
template <> struct float_bits<float> {
    static constexpr uint32_t quiet = 0x00400000u, default_nan = 0x7FC00000u;
};
template <> struct float_bits<double> {
    static constexpr unsigned long long quiet = 0x0008000000000000ull, default_nan = 0x7FF8000000000000ull;
};

/* HOMO.md's MIN (kMax false) and MAX on bit patterns, as reduce_cpu.c's
 * GHZ_FLOAT_PICK: the comparison picks (x on ties, so -0 vs +0 keeps the first), a NaN
 * y overrides it, a NaN x overrides everything; a NaN result is quieted. */
template <bool kMax> struct op_fpick {
    static constexpr bool kUnary = false;
    template <typename F> __device__ F operator()(F x, F y) const
    {
        const auto a = to_bits(x), b = to_bits(y), q = float_bits<F>::quiet;
        auto r = (kMax ? y > x : y < x) ? b : a;
        r = y != y ? b | q : r;
        r = x != x ? a | q : r;
        return from_bits<F>(r);
    }
};

/* AVG's scaling, reduce_cpu.c's GHZ_FLOAT_SCALE: one binary64 product rounded once to
 * F; a NaN x stays x quieted, a NaN product of non-NaN operands is the default NaN. */
struct op_scale {
    static constexpr bool kUnary = true;
    double s;
    template <typename F> __device__ F operator()(F x, F) const
    {
        const F p = round_to(mul_rn((double)x, s), F());
        auto r = to_bits(p);
        r = p != p ? float_bits<F>::default_nan : r;
        r = x != x ? to_bits(x) | float_bits<F>::quiet : r;
        return from_bits<F>(r);
    }
};

/* out[i] = op(a[i], b[i]) (op(a[i]) for a unary op; b unused) over the span s.
 * Every element is read before it is written, by the thread that writes it, and no
 * two threads touch the same element: out may be a or b. Plain loads, not __ldg:
 * the read-only path is undefined for memory the kernel writes. */
template <typename T, typename Op, bool kBytes>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm) elementwise_kernel(T* out, const T* a, const T* b, span_t s, Op op)
{
    constexpr unsigned per_vec = 16u / sizeof(T);
    const uint64_t tid = (uint64_t)blockIdx.x * kThreads + threadIdx.x, stride = (uint64_t)gridDim.x * kThreads;
    const uint64_t tail0 = s.head + s.nvec * per_vec, nscalar = s.head + (s.n - tail0);

    for (uint64_t k = tid; k < nscalar; k += stride) {
        const uint64_t i = k < s.head ? k : tail0 + (k - s.head);
        const T x = load_elem<T, kBytes>(a, i);
        T y = x;
        if constexpr (!Op::kUnary) y = load_elem<T, kBytes>(b, i);
        store_elem<T, kBytes>(out, i, op(x, y));
    }
    if constexpr (!kBytes) {
        const uint4* const va = (const uint4*)(a + s.head);
        const uint4* const vb = (const uint4*)(b + s.head);
        uint4* const vo = (uint4*)(out + s.head);
        for (uint64_t v0 = tid; v0 < s.nvec; v0 += kUnroll * stride) {
            uint4 ra[kUnroll], rb[kUnroll];
            /* every load first, then the arithmetic: kUnroll round trips overlap */
#pragma unroll
            for (unsigned j = 0; j < kUnroll; ++j) {
                if (v0 + j * stride < s.nvec) {
                    ra[j] = va[v0 + j * stride];
                    if constexpr (!Op::kUnary) rb[j] = vb[v0 + j * stride];
                }
            }
#pragma unroll
            for (unsigned j = 0; j < kUnroll; ++j) {
                if (v0 + j * stride < s.nvec) {
                    T x[per_vec], y[per_vec];
                    memcpy(x, &ra[j], sizeof x);
                    if constexpr (!Op::kUnary) memcpy(y, &rb[j], sizeof y);
#pragma unroll
                    for (unsigned e = 0; e < per_vec; ++e) x[e] = op(x[e], Op::kUnary ? x[e] : y[e]);
                    memcpy(&ra[j], x, sizeof x);
                    vo[v0 + j * stride] = ra[j];
                }
            }
        }
    }
}

/* binary64 values as unsigned keys in the same order (-0 below +0): the sign bit set
 * for non-negatives, every bit flipped for negatives. Finite keys are never 0, so 0
 * means "no value yet" both for the max key and for the flipped min key. */
__device__ __forceinline__ unsigned long long order_key(double d)
{
    const unsigned long long u = to_bits(d);
    return u >> 63 ? ~u : u | (1ull << 63);
}

__device__ __forceinline__ double key_value(unsigned long long k)
{
    return from_bits<double>(k >> 63 ? k & ~(1ull << 63) : ~k);
}

template <typename T>
__device__ __forceinline__ void range_take(T x, T& lo, T& hi, int& nonfinite)
{
    if (isfinite(x)) {
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    } else {
        nonfinite = 1;
    }
}

/* The accumulators hold ~key(min) and key(max) (0: empty, as the previous call or the
 * allocation's memset left them). Each warp folds its threads' extremes and its lane 0
 * merges them with atomics; the last CTA to finish turns the keys into doubles in *out
 * and empties the accumulators for the next call. */
template <typename T, bool kBytes, bool kCopy>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    range_kernel(const T* src, span_t s, ghz_coll_range_acc_t* acc, ghz_coll_range_t* out, T* copy)
{
    constexpr unsigned per_vec = 16u / sizeof(T);
    const uint64_t tid = (uint64_t)blockIdx.x * kThreads + threadIdx.x;
    const uint64_t stride = (uint64_t)gridDim.x * kThreads;
    const uint64_t tail0 = s.head + s.nvec * per_vec, nscalar = s.head + (s.n - tail0);
    unsigned long long* const kmin_not = &acc->kmin_not;
    unsigned long long* const kmax = &acc->kmax;
    T lo = (T)INFINITY, hi = (T)-INFINITY;
    int nonfinite = 0;

    for (uint64_t k = tid; k < nscalar; k += stride) {
        const uint64_t i = k < s.head ? k : tail0 + (k - s.head);
        const T x = load_elem<T, kBytes>(src, i);
        if constexpr (kCopy) store_elem<T, kBytes>(copy, i, x);
        range_take(x, lo, hi, nonfinite);
    }
    if constexpr (!kBytes) {
        const uint4* const v = (const uint4*)(src + s.head);
        uint4* const cv = kCopy ? (uint4*)(copy + s.head) : nullptr; /* (at src's offset within 16 bytes) */
        for (uint64_t v0 = tid; v0 < s.nvec; v0 += kUnroll * stride) {
            uint4 rv[kUnroll];
#pragma unroll
            for (unsigned j = 0; j < kUnroll; ++j)
                if (v0 + j * stride < s.nvec) rv[j] = __ldg(v + v0 + j * stride);
#pragma unroll
            for (unsigned j = 0; j < kUnroll; ++j) {
                if (v0 + j * stride < s.nvec) {
                    T x[per_vec];
                    if constexpr (kCopy) cv[v0 + j * stride] = rv[j];
                    memcpy(x, &rv[j], sizeof x);
#pragma unroll
                    for (unsigned e = 0; e < per_vec; ++e) range_take(x[e], lo, hi, nonfinite);
                }
            }
        }
    }

    /* keys of this thread (0 when it saw no finite value), folded over the warp */
    unsigned long long kn = lo <= hi ? ~order_key((double)lo) : 0ull;
    unsigned long long kx = lo <= hi ? order_key((double)hi) : 0ull;
    for (int d = 16; d; d >>= 1) {
        const unsigned long long on = __shfl_xor_sync(0xFFFFFFFFu, kn, d);
        const unsigned long long ox = __shfl_xor_sync(0xFFFFFFFFu, kx, d);
        kn = on > kn ? on : kn;
        kx = ox > kx ? ox : kx;
    }
    nonfinite = __any_sync(0xFFFFFFFFu, nonfinite);
    if ((threadIdx.x & 31u) == 0) {
        if (kn) atomicMax(kmin_not, kn);
        if (kx) atomicMax(kmax, kx);
        if (nonfinite) atomicOr(&acc->nonfinite, 1u);
        __threadfence(); /* this warp's merges before the CTA's ticket below */
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned ticket = atomicAdd(&acc->blocks_done, 1u);
        if (ticket == gridDim.x - 1u) {
            __threadfence(); /* every other CTA's merges are visible from here on */
            const unsigned long long fn = atomicOr(kmin_not, 0ull), fx = atomicOr(kmax, 0ull);
            const unsigned nf = atomicOr(&acc->nonfinite, 0u);
            const double nan = from_bits<double>(float_bits<double>::default_nan);
            out->vmin = fx ? key_value(~fn) : nan;
            out->vmax = fx ? key_value(fx) : nan;
            out->nonfinite = nf != 0u;
            /* every other CTA is done with them: empty for the next call (the stream
             * orders it after this kernel) */
            acc->kmin_not = 0ull;
            acc->kmax = 0ull;
            acc->nonfinite = 0u;
            acc->blocks_done = 0u;
        }
    }
}

/* How the elements of n values at out, a, b (b == a for unary ops) are reached: 16-byte
 * vectors when all three sit at the same element-aligned offset within 16 bytes; else
 * typed scalars when all are element-aligned; else (*bytes) byte by byte. */
template <typename T>
span_t plan(const void* out, const void* a, const void* b, uint64_t n, bool* bytes)
{
    const uintptr_t po = (uintptr_t)out, pa = (uintptr_t)a, pb = (uintptr_t)b;
    *bytes = (po | pa | pb) % sizeof(T) != 0u;
    if (*bytes || po % 16u != pa % 16u || pb % 16u != pa % 16u) return span_t{n, n, 0};
    uint64_t head = (16u - pa % 16u) % 16u / sizeof(T);
    if (head > n) head = n;
    return span_t{n, head, (n - head) / (16u / sizeof(T))};
}

/* CTAs for a span: enough for its scalar elements and its vectors in groups of
 * kUnroll, at most kBlocksPerSm per SM (grid-stride beyond), at least one. */
template <typename T>
unsigned grid_for(const span_t& s)
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms < 1)
        sms = 132; /* an H100's; the launch reports a real failure */
    const uint64_t per_vec = 16u / sizeof(T), tail0 = s.head + s.nvec * per_vec;
    const uint64_t scalars = s.head + (s.n - tail0), groups = (s.nvec + kUnroll - 1) / kUnroll;
    const uint64_t work = scalars > groups ? scalars : groups;
    const uint64_t cap = (uint64_t)sms * kBlocksPerSm, want = (work + kThreads - 1) / kThreads;
    return (unsigned)(want < 1u ? 1u : want > cap ? cap : want);
}

template <typename T, typename Op>
ghz_status_t run_elementwise(void* out, const void* a, const void* b, size_t n, Op op, cudaStream_t stream)
{
    const char* what = Op::kUnary ? "ghz_coll_scale_cuda" : "ghz_coll_reduce_cuda";
    bool bytes = false;
    const span_t s = plan<T>(out, a, Op::kUnary ? a : b, n, &bytes);
    const unsigned grid = grid_for<T>(s);
    if constexpr (sizeof(T) > 1u) {
        if (bytes)
            return launch_status(what, elementwise_kernel<T, Op, true>, grid, kThreads, stream, (T*)out, (const T*)a,
                                 (const T*)b, s, op);
    }
    return launch_status(what, elementwise_kernel<T, Op, false>, grid, kThreads, stream, (T*)out, (const T*)a,
                         (const T*)b, s, op);
}

/* An integer dtype of unsigned type U and own type S (S = U for unsigned dtypes): MIN
 * and MAX compare as S, everything else works on U. */
template <typename U, typename S>
ghz_status_t reduce_int(void* out, const void* a, const void* b, size_t n, ghz_op_t op, cudaStream_t stream)
{
    switch (op) {
    case GHZ_OP_SUM: return run_elementwise<U>(out, a, b, n, op_iadd{}, stream);
    case GHZ_OP_PROD: return run_elementwise<U>(out, a, b, n, op_imul{}, stream);
    case GHZ_OP_MIN: return run_elementwise<S>(out, a, b, n, op_imin{}, stream);
    case GHZ_OP_MAX: return run_elementwise<S>(out, a, b, n, op_imax{}, stream);
    case GHZ_OP_LAND: return run_elementwise<U>(out, a, b, n, op_land{}, stream);
    case GHZ_OP_LOR: return run_elementwise<U>(out, a, b, n, op_lor{}, stream);
    case GHZ_OP_LXOR: return run_elementwise<U>(out, a, b, n, op_lxor{}, stream);
    case GHZ_OP_BAND: return run_elementwise<U>(out, a, b, n, op_band{}, stream);
    case GHZ_OP_BOR: return run_elementwise<U>(out, a, b, n, op_bor{}, stream);
    case GHZ_OP_BXOR: return run_elementwise<U>(out, a, b, n, op_bxor{}, stream);
    default: return ghz_fail(GHZ_ERR_INVALID_ARG, "op %d on an integer type", (int)op);
    }
}

/* A float dtype F: SUM and AVG add (the caller scales once at the end). */
template <typename F>
ghz_status_t reduce_float(void* out, const void* a, const void* b, size_t n, ghz_op_t op, cudaStream_t stream)
{
    switch (op) {
    case GHZ_OP_SUM:
    case GHZ_OP_AVG: return run_elementwise<F>(out, a, b, n, op_fadd{}, stream);
    case GHZ_OP_PROD: return run_elementwise<F>(out, a, b, n, op_fmul{}, stream);
    case GHZ_OP_MIN: return run_elementwise<F>(out, a, b, n, op_fpick<false>{}, stream);
    case GHZ_OP_MAX: return run_elementwise<F>(out, a, b, n, op_fpick<true>{}, stream);
    default: return ghz_fail(GHZ_ERR_INVALID_ARG, "op %d on a float type", (int)op);
    }
}

template <typename F>
ghz_status_t range_of(const void* src, size_t n, ghz_coll_range_acc_t* acc, ghz_coll_range_t* out, void* copy,
                      cudaStream_t stream)
{
    void (*const kernel[2][2])(const F*, span_t, ghz_coll_range_acc_t*, ghz_coll_range_t*, F*) = {
        {range_kernel<F, false, false>, range_kernel<F, false, true>},
        {range_kernel<F, true, false>, range_kernel<F, true, true>}}; /* [bytes][copy] */
    bool bytes = false;
    /* (with a copy, vectors only where it sits at src's offset within 16 bytes) */
    const span_t s = plan<F>(copy ? copy : src, src, src, n, &bytes);
    return launch_status("ghz_coll_range_cuda", kernel[bytes][copy != NULL], grid_for<F>(s), kThreads, stream,
                         (const F*)src, s, acc, out, (F*)copy);
}

/* The first failure among n statuses, in index order, into *first (GHZ_SUCCESS when
 * none): one block strides over them and keeps the smallest failing index. */
__global__ void first_error_kernel(const int* st, size_t n, int* first)
{
    __shared__ unsigned long long lowest;
    if (threadIdx.x == 0) lowest = ~0ull;
    __syncthreads();
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
        if (st[i] != 0) atomicMin(&lowest, (unsigned long long)i);
    __syncthreads();
    if (threadIdx.x == 0) *first = lowest == ~0ull ? 0 : st[lowest];
}

} // namespace coll_cuda
} // inline namespace GHZ_ABI_NS
} // namespace ghz

using namespace ghz::coll_cuda;

extern "C" ghz_status_t ghz_coll_reduce_cuda(void* d_out, const void* d_a, const void* d_b, size_t n,
                                             ghz_dtype_t dtype, ghz_op_t op, cudaStream_t stream)
{
    const ghz_status_t st = ghz_coll_op_check(dtype, op);
    if (st != GHZ_SUCCESS) return st;
    if (n == 0u) return GHZ_SUCCESS;
    if (!d_out || !d_a || !d_b) return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_coll_reduce_cuda: NULL buffer");
    switch (dtype) {
    case GHZ_F32: return reduce_float<float>(d_out, d_a, d_b, n, op, stream);
    case GHZ_F64: return reduce_float<double>(d_out, d_a, d_b, n, op, stream);
    case GHZ_I8: return reduce_int<uint8_t, int8_t>(d_out, d_a, d_b, n, op, stream);
    case GHZ_U8: return reduce_int<uint8_t, uint8_t>(d_out, d_a, d_b, n, op, stream);
    case GHZ_I16: return reduce_int<uint16_t, int16_t>(d_out, d_a, d_b, n, op, stream);
    case GHZ_U16: return reduce_int<uint16_t, uint16_t>(d_out, d_a, d_b, n, op, stream);
    case GHZ_I32: return reduce_int<uint32_t, int32_t>(d_out, d_a, d_b, n, op, stream);
    case GHZ_U32: return reduce_int<uint32_t, uint32_t>(d_out, d_a, d_b, n, op, stream);
    case GHZ_I64: return reduce_int<unsigned long long, long long>(d_out, d_a, d_b, n, op, stream);
    case GHZ_U64: return reduce_int<unsigned long long, unsigned long long>(d_out, d_a, d_b, n, op, stream);
    default: return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)dtype);
    }
}

extern "C" ghz_status_t ghz_coll_scale_cuda(void* d_buf, size_t n, ghz_dtype_t dtype, double s,
                                            cudaStream_t stream)
{
    if (dtype != GHZ_F32 && dtype != GHZ_F64)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_coll_scale_cuda: dtype %s is not a float type",
                        ghz_dtype_name(dtype));
    if (n == 0u) return GHZ_SUCCESS;
    if (!d_buf) return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_coll_scale_cuda: NULL buffer");
    const op_scale op{s};
    return dtype == GHZ_F32 ? run_elementwise<float>(d_buf, d_buf, d_buf, n, op, stream)
                            : run_elementwise<double>(d_buf, d_buf, d_buf, n, op, stream);
}

extern "C" ghz_status_t ghz_coll_range_cuda(const void* d_src, size_t n, ghz_dtype_t dtype,
                                            ghz_coll_range_acc_t* d_acc, ghz_coll_range_t* out, void* copy,
                                            cudaStream_t stream)
{
    if (dtype != GHZ_F32 && dtype != GHZ_F64)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_coll_range_cuda: dtype %s is not a float type",
                        ghz_dtype_name(dtype));
    if (!d_acc || !out || (n > 0u && !d_src))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_coll_range_cuda: NULL pointer");
    if ((uintptr_t)d_acc % 8u != 0u || (uintptr_t)out % 8u != 0u)
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_coll_range_cuda: the accumulators or the result are not "
                                             "8-byte aligned");
    if (copy && n > 0u) {
        const uintptr_t a = (uintptr_t)d_src, b = (uintptr_t)copy, bytes = (uintptr_t)n * ghz_dtype_size(dtype);
        if (a < b + bytes && b < a + bytes)
            return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_coll_range_cuda: the copy overlaps the input");
    }
    if (n == 0u) copy = NULL;
    return dtype == GHZ_F32 ? range_of<float>(d_src, n, d_acc, out, copy, stream)
                            : range_of<double>(d_src, n, d_acc, out, copy, stream);
}

extern "C" ghz_status_t ghz_coll_first_error_cuda(const int* d_status, size_t n, int* d_first, cudaStream_t stream)
{
    if (!d_first || (n > 0u && !d_status))
        return ghz_fail(GHZ_ERR_INVALID_ARG, "ghz_coll_first_error_cuda: NULL pointer");
    return launch_status("ghz_coll_first_error_cuda", first_error_kernel, dim3(1), dim3(256), stream, d_status, n,
                         d_first);
}
