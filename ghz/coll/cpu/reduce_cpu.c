/* ghz/coll/cpu/reduce_cpu.c: the exact element-wise reductions of the CPU backend: one
 * vectorised kernel per (element type, op) in a table [dtype][op], where a pair is
 * defined exactly when it has a kernel. Integer SUM, PROD and the logical and bitwise ops
 * run on the unsigned type of the width (wraparound without signed overflow). */
#include <stdint.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "ghz/coll/detail/reduce_ops.h"
#include "ghz/detail/error.h"

/* Fewest elements worth a thread of their own (a 256 Ki-element f32 sum: ~100 us). */
#define GHZ_REDUCE_OMP_MIN ((size_t)256 * 1024)

/* One loop over n elements: dst[i] = OP(dst[i], src[i], s); scaling gets src == dst. */
typedef void (*ghz_reduce_kernel_t)(void* dst, const void* src, size_t n, double s);

/* Integer products go through unsigned int or wider: a uint16_t promotes to int, and
 * 65535 * 65535 overflows it. */
#define GHZ_OP_ADD(x, y, s) ((x) + (y))
#define GHZ_OP_MUL(x, y, s) ((x) * (y))
#define GHZ_OP_IMUL(x, y, s) (1u * (x) * (y))
#define GHZ_OP_IMIN(x, y, s) ((y) < (x) ? (y) : (x))
#define GHZ_OP_IMAX(x, y, s) ((y) > (x) ? (y) : (x))
#define GHZ_OP_LAND(x, y, s) (((x) != 0) & ((y) != 0))
#define GHZ_OP_LOR(x, y, s) (((x) != 0) | ((y) != 0))
#define GHZ_OP_LXOR(x, y, s) (((x) != 0) ^ ((y) != 0))
#define GHZ_OP_BAND(x, y, s) ((x) & (y))
#define GHZ_OP_BOR(x, y, s) ((x) | (y))
#define GHZ_OP_BXOR(x, y, s) ((x) ^ (y))

/* A float op on bit patterns: y's slot is Y (the operand y, or s's product of x), the
 * result PICK of a (x's bits) and b (Y's), a NaN Y gives Y_NAN, then a NaN x wins
 * quieted. Selects on the bits keep the loop branch-free so it vectorises; memcpy is the
 * defined way to reinterpret. */
#define GHZ_FLOAT_BITS(NAME, F, U, QUIET, Y, PICK, Y_NAN)                              \
    static inline F NAME(F x, F y, double s)                                           \
    {                                                                                  \
        const F z = Y;                                                                 \
        U a, b, r;                                                                     \
        F out;                                                                         \
        (void)y;                                                                       \
        (void)s;                                                                       \
        memcpy(&a, &x, sizeof a);                                                      \
        memcpy(&b, &z, sizeof b);                                                      \
        r = PICK;                                                                      \
        r = z != z ? (U)(Y_NAN) : r;                                                   \
        r = x != x ? (U)(a | (QUIET)) : r;                                             \
        memcpy(&out, &r, sizeof out);                                                  \
        return out;                                                                    \
    }
/* Float MIN and MAX of HOMO.md: the comparison picks an operand (x on ties, so -0 vs +0
 * keeps the first), then a NaN operand overrides it (x before y), quieted. */
#define GHZ_FLOAT_PICK(NAME, F, U, QUIET, CMP) GHZ_FLOAT_BITS(NAME, F, U, QUIET, y, z CMP x ? b : a, b | (QUIET))
GHZ_FLOAT_PICK(ghz_fmin_f32, float, uint32_t, 0x00400000u, <)
GHZ_FLOAT_PICK(ghz_fmax_f32, float, uint32_t, 0x00400000u, >)
GHZ_FLOAT_PICK(ghz_fmin_f64, double, uint64_t, 0x0008000000000000ull, <)
GHZ_FLOAT_PICK(ghz_fmax_f64, double, uint64_t, 0x0008000000000000ull, >)
/* AVG's final scaling, HOMO.md's "decode with scale": one binary64 product rounded
 * once to F; a NaN x stays x (quieted), a NaN product of non-NaN operands (inf * 0) is
 * the positive default NaN, whatever the hardware's. */
GHZ_FLOAT_BITS(ghz_scale_f32, float, uint32_t, 0x00400000u, (float)((double)x * s), b, 0x7FC00000u)
GHZ_FLOAT_BITS(ghz_scale_f64, double, uint64_t, 0x0008000000000000ull, (double)((double)x * s), b,
               0x7FF8000000000000ull)

static inline int ghz_aligned(const void* p, size_t size)
{
    return (uintptr_t)p % size == 0u;
}

/* Three loops: two restrict pointers (the vectorised common case), one pointer for
 * dst == src (restrict forbids the same object behind both), and memcpy per element
 * where a pointer is not aligned to T (a misaligned T* access is undefined). */
#define GHZ_REDUCE_KERNEL(NAME, T, OP)                                                 \
    static void NAME##_pair(T* restrict d, const T* restrict s, size_t n, double k)    \
    {                                                                                  \
        (void)k;                                                                       \
        for (size_t i = 0; i < n; ++i) d[i] = (T)OP(d[i], s[i], k);                    \
    }                                                                                  \
    static void NAME##_self(T* restrict d, size_t n, double k)                         \
    {                                                                                  \
        (void)k;                                                                       \
        for (size_t i = 0; i < n; ++i) d[i] = (T)OP(d[i], d[i], k);                    \
    }                                                                                  \
    static void NAME##_bytes(unsigned char* d, const unsigned char* s, size_t n, double k) \
    {                                                                                  \
        (void)k;                                                                       \
        for (size_t i = 0; i < n; ++i) {                                               \
            T x, y;                                                                    \
            memcpy(&x, d + i * sizeof(T), sizeof(T));                                  \
            memcpy(&y, s + i * sizeof(T), sizeof(T));                                  \
            x = (T)OP(x, y, k);                                                        \
            memcpy(d + i * sizeof(T), &x, sizeof(T));                                  \
        }                                                                              \
    }                                                                                  \
    static void NAME(void* d, const void* s, size_t n, double k)                       \
    {                                                                                  \
        if (!ghz_aligned(d, sizeof(T)) || !ghz_aligned(s, sizeof(T)))                  \
            NAME##_bytes((unsigned char*)d, (const unsigned char*)s, n, k);            \
        else if (d == s)                                                               \
            NAME##_self((T*)d, n, k);                                                  \
        else                                                                           \
            NAME##_pair((T*)d, (const T*)s, n, k);                                     \
    }

/* The signedness-free integer ops of one width, and MIN and MAX of both signs. */
#define GHZ_INT_KERNELS(BITS)                                                          \
    GHZ_REDUCE_KERNEL(ghz_red_u##BITS##_sum, uint##BITS##_t, GHZ_OP_ADD)               \
    GHZ_REDUCE_KERNEL(ghz_red_u##BITS##_prod, uint##BITS##_t, GHZ_OP_IMUL)             \
    GHZ_REDUCE_KERNEL(ghz_red_u##BITS##_land, uint##BITS##_t, GHZ_OP_LAND)             \
    GHZ_REDUCE_KERNEL(ghz_red_u##BITS##_lor, uint##BITS##_t, GHZ_OP_LOR)               \
    GHZ_REDUCE_KERNEL(ghz_red_u##BITS##_lxor, uint##BITS##_t, GHZ_OP_LXOR)             \
    GHZ_REDUCE_KERNEL(ghz_red_u##BITS##_band, uint##BITS##_t, GHZ_OP_BAND)             \
    GHZ_REDUCE_KERNEL(ghz_red_u##BITS##_bor, uint##BITS##_t, GHZ_OP_BOR)               \
    GHZ_REDUCE_KERNEL(ghz_red_u##BITS##_bxor, uint##BITS##_t, GHZ_OP_BXOR)             \
    GHZ_REDUCE_KERNEL(ghz_red_u##BITS##_min, uint##BITS##_t, GHZ_OP_IMIN)              \
    GHZ_REDUCE_KERNEL(ghz_red_u##BITS##_max, uint##BITS##_t, GHZ_OP_IMAX)              \
    GHZ_REDUCE_KERNEL(ghz_red_i##BITS##_min, int##BITS##_t, GHZ_OP_IMIN)               \
    GHZ_REDUCE_KERNEL(ghz_red_i##BITS##_max, int##BITS##_t, GHZ_OP_IMAX)
GHZ_INT_KERNELS(8)
GHZ_INT_KERNELS(16)
GHZ_INT_KERNELS(32)
GHZ_INT_KERNELS(64)

/* A float type's SUM, PROD, MIN, MAX, and AVG's scaling. */
#define GHZ_FLOAT_KERNELS(F, T)                                                        \
    GHZ_REDUCE_KERNEL(ghz_red_##F##_sum, T, GHZ_OP_ADD)                                \
    GHZ_REDUCE_KERNEL(ghz_red_##F##_prod, T, GHZ_OP_MUL)                               \
    GHZ_REDUCE_KERNEL(ghz_red_##F##_min, T, ghz_fmin_##F)                              \
    GHZ_REDUCE_KERNEL(ghz_red_##F##_max, T, ghz_fmax_##F)                              \
    GHZ_REDUCE_KERNEL(ghz_scl_##F, T, ghz_scale_##F)
GHZ_FLOAT_KERNELS(f32, float)
GHZ_FLOAT_KERNELS(f64, double)

#define GHZ_DTYPE_END (GHZ_U64 + 1)
#define GHZ_OP_END (GHZ_OP_BXOR + 1)

/* One integer dtype's row: SG is i or u (MIN and MAX), the rest by width. */
#define GHZ_INT_ROW(SG, BITS)                                                                                   \
    {[GHZ_OP_SUM] = ghz_red_u##BITS##_sum, [GHZ_OP_PROD] = ghz_red_u##BITS##_prod,                              \
     [GHZ_OP_MAX] = ghz_red_##SG##BITS##_max, [GHZ_OP_MIN] = ghz_red_##SG##BITS##_min,                          \
     [GHZ_OP_LAND] = ghz_red_u##BITS##_land, [GHZ_OP_LOR] = ghz_red_u##BITS##_lor,                              \
     [GHZ_OP_LXOR] = ghz_red_u##BITS##_lxor, [GHZ_OP_BAND] = ghz_red_u##BITS##_band,                            \
     [GHZ_OP_BOR] = ghz_red_u##BITS##_bor, [GHZ_OP_BXOR] = ghz_red_u##BITS##_bxor}
/* A float dtype's row: AVG is SUM here (the caller scales once at the end). */
#define GHZ_FLOAT_ROW(F)                                                                                        \
    {[GHZ_OP_SUM] = ghz_red_##F##_sum, [GHZ_OP_PROD] = ghz_red_##F##_prod, [GHZ_OP_MAX] = ghz_red_##F##_max,    \
     [GHZ_OP_MIN] = ghz_red_##F##_min, [GHZ_OP_AVG] = ghz_red_##F##_sum}

/* NULL where the pair is not defined (and for dtype 0, which is no dtype). */
static const ghz_reduce_kernel_t ghz_reduce_table[GHZ_DTYPE_END][GHZ_OP_END] = {
    [GHZ_F32] = GHZ_FLOAT_ROW(f32),  [GHZ_F64] = GHZ_FLOAT_ROW(f64),
    [GHZ_I8] = GHZ_INT_ROW(i, 8),    [GHZ_U8] = GHZ_INT_ROW(u, 8),
    [GHZ_I16] = GHZ_INT_ROW(i, 16),  [GHZ_U16] = GHZ_INT_ROW(u, 16),
    [GHZ_I32] = GHZ_INT_ROW(i, 32),  [GHZ_U32] = GHZ_INT_ROW(u, 32),
    [GHZ_I64] = GHZ_INT_ROW(i, 64),  [GHZ_U64] = GHZ_INT_ROW(u, 64)};

/* Compared as unsigned: an enum may hold any int, negative ones included. */
static ghz_reduce_kernel_t ghz_reduce_kernel(ghz_dtype_t dtype, ghz_op_t op)
{
    if ((unsigned)dtype >= (unsigned)GHZ_DTYPE_END || (unsigned)op >= (unsigned)GHZ_OP_END) return NULL;
    return ghz_reduce_table[dtype][op];
}

ghz_status_t ghz_coll_op_check(ghz_dtype_t dtype, ghz_op_t op)
{
    if (ghz_dtype_size(dtype) == 0u) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown dtype %d", (int)dtype);
    if ((unsigned)op >= (unsigned)GHZ_OP_END) return ghz_fail(GHZ_ERR_INVALID_ARG, "unknown op %d", (int)op);
    if (ghz_reduce_kernel(dtype, op) == NULL)
        return ghz_fail(GHZ_ERR_UNSUPPORTED, "op %s is not defined on %s (%s)", ghz_op_name(op), ghz_dtype_name(dtype),
                        op == GHZ_OP_AVG ? "AVG takes f32 and f64 only"
                                         : "logical and bitwise ops take integer types only");
    return GHZ_SUCCESS;
}

/* Equal static chunks over up to nthreads threads (0: OpenMP's count), each of at least
 * GHZ_REDUCE_OMP_MIN elements; chunk starts are multiples of 64 elements, so threads
 * never write to the same cache line. Element-wise: any split gives the same bits. */
static void ghz_reduce_run(ghz_reduce_kernel_t kernel, void* dst, const void* src, size_t n, size_t es, double s,
                           int nthreads)
{
#ifdef _OPENMP
    size_t nt = nthreads > 0 ? (size_t)nthreads : (size_t)omp_get_max_threads();
    if (nt > n / GHZ_REDUCE_OMP_MIN) nt = n / GHZ_REDUCE_OMP_MIN;
    if (nt > 1u) {
        const size_t chunk = ((n + nt - 1u) / nt + 63u) & ~(size_t)63u;
        long k;
#pragma omp parallel for num_threads((int)nt) schedule(static)
        for (k = 0; k < (long)nt; ++k) {
            const size_t lo = (size_t)k * chunk;
            if (lo < n)
                kernel((unsigned char*)dst + lo * es, (const unsigned char*)src + lo * es,
                       n - lo < chunk ? n - lo : chunk, s);
        }
        return;
    }
#else
    (void)nthreads;
    (void)es;
#endif
    kernel(dst, src, n, s);
}

void ghz_coll_reduce_cpu(void* dst, const void* src, size_t n, ghz_dtype_t dtype, ghz_op_t op, int nthreads)
{
    /* (an undefined pair, which the caller's check refused, does nothing) */
    const ghz_reduce_kernel_t kernel = ghz_reduce_kernel(dtype, op);
    if (n == 0u || kernel == NULL) return;
    ghz_reduce_run(kernel, dst, src, n, ghz_dtype_size(dtype), 0.0, nthreads);
}

void ghz_coll_scale_cpu(void* buf, size_t n, ghz_dtype_t dtype, double s, int nthreads)
{
    if (n == 0u || ghz_float_size(dtype) == 0u) return;
    ghz_reduce_run(dtype == GHZ_F32 ? ghz_scl_f32 : ghz_scl_f64, buf, buf, n, ghz_dtype_size(dtype), s, nthreads);
}
