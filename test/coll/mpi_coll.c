/* test/coll/mpi_coll.c: the collectives against exact references, on N ranks.
 *
 *   mpirun -np N test_coll_mpi exact|lossy|edge|errors
 *
 * exact:  every algorithm x op x dtype, counts 0, 1, N-1, N+1, 1001 and one that needs
 *         several rounds, in and out of place; integers and MIN/MAX bit for bit against
 *         a reference computed here (every rank can generate every rank's input), float
 *         SUM/PROD/AVG within the rounding of N-1 operations; every rank the same bits.
 * lossy:  f32/f64 x SUM/AVG/MIN/MAX x HOMO/DOC x algorithms x ABS/REL on real-like
 *         fields (a different field and seed per rank): every element within the
 *         stated bound, every rank the same bits, compression really happened;
 *         recursive doubling gives the same bits on HOMO and DOC (HOMO.md).
 * edge:   NaN/Inf inputs, a bound too small for the rounding, reuse of buffers across
 *         calls without allocation, REL over a constant field.
 * errors: one rank passes a different count, dtype, op, bound or root, or a NULL
 *         buffer, or a lossy op the path cannot do: every rank returns an error, no
 *         rank hangs (CTest's timeout fails a hang).
 */
/* setenv, unsetenv (POSIX): the errors part sets a bad transport on one rank */
#define _POSIX_C_SOURCE 200112L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/coll_mpi.h"
#include "datasets.h"
#include "mpi_check.h"
#ifdef GHZ_TEST_CUDA
#include <cuda_runtime_api.h>
#endif

static int g_rank, g_size;
static int g_shared_gpu = 1; /* some GPU serves several ranks of this node (pick_device) */
static uint64_t g_max_rounds; /* the most rounds any call took (the round loop is exercised) */

/* ---- inputs ------------------------------------------------------------------------ */

/* xorshift64*: deterministic per (rank, count, salt) */
static uint64_t rng_next(uint64_t* s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* Rank r's input for the exact tests: nonzero values (no -0/+0 ties in MIN/MAX),
 * small enough that integer PROD wraps deterministically and float PROD stays finite. */
static void fill_exact(void* buf, size_t n, ghz_dtype_t t, ghz_op_t op, int r, uint64_t salt)
{
    uint64_t s = 0x9E3779B97F4A7C15ull ^ ((uint64_t)r * 1000003u + salt * 7919u + n);
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t v = rng_next(&s);
        int64_t small = (int64_t)(v % 200) - 100;
        if (op == GHZ_OP_PROD) small = (int64_t)(v % 3) + 1 - (int64_t)((v >> 8) % 2) * 4; /* -3..3 */
        if (small == 0) small = 1;
        switch (t) {
        case GHZ_F32: ((float*)buf)[i] = op == GHZ_OP_PROD ? (float)small * 0.5f
                                                           : (float)((double)(v >> 11) * 0x1p-53 * 200 - 100 + 1e-3); break;
        case GHZ_F64: ((double*)buf)[i] = op == GHZ_OP_PROD ? (double)small * 0.5
                                                            : (double)(v >> 11) * 0x1p-53 * 200 - 100 + 1e-9; break;
        case GHZ_I8: ((int8_t*)buf)[i] = (int8_t)(op == GHZ_OP_PROD || op == GHZ_OP_SUM ? small : (int64_t)v); break;
        case GHZ_U8: ((uint8_t*)buf)[i] = (uint8_t)v; break;
        case GHZ_I16: ((int16_t*)buf)[i] = (int16_t)v; break;
        case GHZ_U16: ((uint16_t*)buf)[i] = (uint16_t)v; break;
        case GHZ_I32: ((int32_t*)buf)[i] = (int32_t)v; break;
        case GHZ_U32: ((uint32_t*)buf)[i] = (uint32_t)v; break;
        case GHZ_I64: ((int64_t*)buf)[i] = (int64_t)v; break;
        case GHZ_U64: ((uint64_t*)buf)[i] = v; break;
        }
        if ((op == GHZ_OP_LAND || op == GHZ_OP_LOR || op == GHZ_OP_LXOR) && (v >> 60) < 6) {
            /* make zeros frequent so that logical results vary */
            memset((unsigned char*)buf + i * ghz_dtype_size(t), 0, ghz_dtype_size(t));
        }
    }
}

/* Reference of element i over all ranks, in rank order: integers exactly (wrapping
 * through uint64), floats in long double. Returns the value as long double and, for
 * integers, the exact bits in *bits. */
static long double ref_fold(void* const* in, int N, size_t i, ghz_dtype_t t, ghz_op_t op, uint64_t* bits,
                            long double* absum)
{
    int q;
    long double acc = 0, a = 0;
    uint64_t u = 0;
    int64_t sacc = 0;
    *absum = 0;
    for (q = 0; q < N; q++) {
        uint64_t x = 0;
        int64_t sx = 0;
        long double f = 0;
        switch (t) {
        case GHZ_F32: f = ((float*)in[q])[i]; break;
        case GHZ_F64: f = ((double*)in[q])[i]; break;
        case GHZ_I8: sx = ((int8_t*)in[q])[i]; x = (uint64_t)sx; break;
        case GHZ_U8: x = ((uint8_t*)in[q])[i]; sx = (int64_t)x; break;
        case GHZ_I16: sx = ((int16_t*)in[q])[i]; x = (uint64_t)sx; break;
        case GHZ_U16: x = ((uint16_t*)in[q])[i]; sx = (int64_t)x; break;
        case GHZ_I32: sx = ((int32_t*)in[q])[i]; x = (uint64_t)sx; break;
        case GHZ_U32: x = ((uint32_t*)in[q])[i]; sx = (int64_t)x; break;
        case GHZ_I64: sx = ((int64_t*)in[q])[i]; x = (uint64_t)sx; break;
        case GHZ_U64: x = ((uint64_t*)in[q])[i]; sx = (int64_t)x; break;
        }
        *absum += fabsl(f);
        if (q == 0) {
            acc = f;
            u = x;
            sacc = sx;
            a = f;
            continue;
        }
        (void)a;
        switch (op) {
        case GHZ_OP_SUM: case GHZ_OP_AVG: acc += f; u += x; break;
        case GHZ_OP_PROD: acc *= f; u *= x; break;
        case GHZ_OP_MIN:
            if (f < acc) acc = f;
            if (t == GHZ_U8 || t == GHZ_U16 || t == GHZ_U32 || t == GHZ_U64) { if (x < u) u = x; }
            else if (sx < sacc) { sacc = sx; u = x; }
            break;
        case GHZ_OP_MAX:
            if (f > acc) acc = f;
            if (t == GHZ_U8 || t == GHZ_U16 || t == GHZ_U32 || t == GHZ_U64) { if (x > u) u = x; }
            else if (sx > sacc) { sacc = sx; u = x; }
            break;
        case GHZ_OP_LAND: u = (u != 0) & (x != 0); break;
        case GHZ_OP_LOR: u = (u != 0) | (x != 0); break;
        case GHZ_OP_LXOR: u = (u != 0) ^ (x != 0); break;
        case GHZ_OP_BAND: u &= x; break;
        case GHZ_OP_BOR: u |= x; break;
        case GHZ_OP_BXOR: u ^= x; break;
        }
        if (t != GHZ_F32 && t != GHZ_F64 && (op == GHZ_OP_MIN || op == GHZ_OP_MAX)) sacc = (int64_t)u;
    }
    /* (one rank: the input comes back unchanged, as MPI does, also for LAND/LOR/LXOR) */
    *bits = u;
    if (op == GHZ_OP_AVG) acc /= N;
    return acc;
}

static double get_f(const void* b, size_t i, ghz_dtype_t t)
{
    return t == GHZ_F32 ? ((const float*)b)[i] : ((const double*)b)[i];
}

/* Every rank's result of an allreduce (or reduce-scatter block) has the same bits:
 * compare a checksum of the bytes over ranks. */
static int same_everywhere(const void* buf, size_t bytes)
{
    uint64_t h = 1469598103934665603ull, hmin, hmax;
    size_t i;
    for (i = 0; i < bytes; i++) h = (h ^ ((const unsigned char*)buf)[i]) * 1099511628211ull;
    MPI_Allreduce(&h, &hmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return hmin == hmax;
}

/* 1 when the run is over the CUDA IPC transport (GHZ_COLL_TRANSPORT=ipc on the CUDA
 * build): the exact and lossy parts then also run GHZ_ALGO_IPC_DIRECT. */
static int ipc_run(void)
{
#ifdef GHZ_TEST_CUDA
    const char* env = getenv("GHZ_COLL_TRANSPORT");
    return env && strcmp(env, "ipc") == 0;
#else
    return 0;
#endif
}

/* The allreduce algorithms the exact and lossy parts run, and each one's reduce-scatter
 * partner (index 3, ipc_direct, only in ipc runs). */
static const ghz_algo_t ar_algos[] = {GHZ_ALGO_RING, GHZ_ALGO_RECURSIVE_DOUBLING, GHZ_ALGO_PAIRWISE,
                                      GHZ_ALGO_IPC_DIRECT};
static const ghz_algo_t rs_algos[] = {GHZ_ALGO_RING, GHZ_ALGO_RING, GHZ_ALGO_PAIRWISE, GHZ_ALGO_IPC_DIRECT};

static size_t n_algos(void)
{
    return ipc_run() ? 4 : 3;
}

static ghz_comm_t* make_comm(ghz_algo_t ar, ghz_algo_t rs, size_t pool, size_t chunk)
{
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    ghz_comm_t* c = NULL;
    ghz_status_t st;
#ifdef GHZ_TEST_CUDA
    cfg.backend = GHZ_EXEC_CUDA;
#endif
    cfg.allreduce_algo = ar;
    cfg.reduce_scatter_algo = rs;
    cfg.pool_bytes = pool;
    cfg.chunk_bytes = chunk;
    st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &c);
    CHECK(st == GHZ_SUCCESS, "ghz_comm_init: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    if (c) {
        /* the transport the environment asked for is the one in use (GHZ_COLL_TRANSPORT=ipc
         * applies to CUDA-backend communicators only), so an ipc run cannot pass on MPI */
        ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
        const char* env = getenv("GHZ_COLL_TRANSPORT");
        ghz_transport_t want = GHZ_TRANSPORT_MPI;
#ifdef GHZ_TEST_CUDA
        if (env && strcmp(env, "ipc") == 0) want = GHZ_TRANSPORT_CUDA_IPC;
#else
        (void)env;
#endif
        ghz_comm_config_t got = GHZ_COMM_CONFIG_INIT;
        size_t want_chunk = chunk, want_pool = pool;
        ghz_comm_info(c, &info);
        CHECK(info.transport == want, "transport %d, expected %d", (int)info.transport, (int)want);
        /* the defaults resolved: 1 MiB pieces on the CPU; on the GPU 64 MiB over CUDA
         * IPC, over MPI 8 MiB, or 32 MiB where ranks share a GPU (comm.c) */
#ifdef GHZ_TEST_CUDA
        if (!want_chunk)
            want_chunk = want == GHZ_TRANSPORT_CUDA_IPC ? (size_t)64 << 20 : g_shared_gpu ? (size_t)32 << 20 : (size_t)8 << 20;
        /* (and the pool: 64 MiB over MPI with a GPU per rank, else 256 MiB) */
        if (!want_pool)
            want_pool = want == GHZ_TRANSPORT_MPI && !g_shared_gpu ? (size_t)64 << 20 : (size_t)256 << 20;
#else
        if (!want_chunk) want_chunk = (size_t)1 << 20;
        if (!want_pool) want_pool = (size_t)64 << 20;
#endif
        st = ghz_comm_config(c, &got);
        CHECK(st == GHZ_SUCCESS && got.chunk_bytes == want_chunk && got.pool_bytes == want_pool &&
                  got.transport == want && got.allreduce_algo == ar && got.struct_size == sizeof got,
              "ghz_comm_config: %s, chunk %zu (expected %zu), pool %zu (expected %zu), transport %d",
              ghz_status_string(st), got.chunk_bytes, want_chunk, got.pool_bytes, want_pool, (int)got.transport);
    }
    return c;
}

/* An AUTO communicator whose threshold GHZ_COLL_AUTO_MIN_BYTES pins to `v` (NULL:
 * measured at init). */
static ghz_comm_t* auto_comm(const char* v)
{
    ghz_comm_t* c;
    if (v) setenv("GHZ_COLL_AUTO_MIN_BYTES", v, 1);
    c = make_comm(GHZ_ALGO_AUTO, GHZ_ALGO_AUTO, 0, 0);
    unsetenv("GHZ_COLL_AUTO_MIN_BYTES");
    return c;
}

/* The collective calls of the tests. Built with GHZ_TEST_CUDA (test_coll_mpi_cuda), the
 * same tests run on the CUDA backend: each call's buffers are copied to device memory
 * of exactly the call's size (so compute-sanitizer sees any write past them), the call
 * runs on device pointers, and the result comes back only when the call succeeded (so
 * the "output untouched on failure" checks still mean something). */
enum { K_ALLREDUCE = 0, K_REDUCE = 1, K_REDUCE_SCATTER = 2 };

static ghz_status_t call_coll(int kind, const void* send, void* recv, size_t count, ghz_dtype_t t, ghz_op_t op,
                              int root, const ghz_accuracy_t* acc, ghz_comm_t* c)
{
#ifdef GHZ_TEST_CUDA
    const size_t e = ghz_dtype_size(t), N = (size_t)g_size;
    const int in_place = send == MPI_IN_PLACE;
    const size_t in_bytes = (kind == K_REDUCE_SCATTER ? count * N : count) * e;
    const size_t out_bytes = kind == K_REDUCE_SCATTER && !in_place ? count * e : in_place ? in_bytes : count * e;
    void *ds = NULL, *dr = NULL;
    ghz_status_t st;
    if (e && send && !in_place) {
        CHECK(cudaMalloc(&ds, in_bytes ? in_bytes : 1) == cudaSuccess, "cudaMalloc");
        cudaMemcpy(ds, send, in_bytes, cudaMemcpyHostToDevice);
    }
    if (e && recv) {
        CHECK(cudaMalloc(&dr, out_bytes ? out_bytes : 1) == cudaSuccess, "cudaMalloc");
        if (in_place) cudaMemcpy(dr, recv, in_bytes, cudaMemcpyHostToDevice);
    }
    if (!e) { /* a bad dtype: the library refuses it before touching a buffer */
        ds = (void*)send;
        dr = recv;
    }
    send = in_place ? MPI_IN_PLACE : ds;
    if (kind == K_ALLREDUCE) st = ghz_allreduce(send, dr, count, t, op, acc, c, NULL);
    else if (kind == K_REDUCE) st = ghz_reduce(send, dr, count, t, op, root, acc, c, NULL);
    else st = ghz_reduce_scatter(send, dr, count, t, op, acc, c, NULL);
    if (e && st == GHZ_SUCCESS && recv && (kind != K_REDUCE || g_rank == root))
        cudaMemcpy(recv, dr, count * e, cudaMemcpyDeviceToHost);
    if (e) {
        cudaFree(ds);
        cudaFree(dr);
    }
    return st;
#else
    if (kind == K_ALLREDUCE) return ghz_allreduce(send, recv, count, t, op, acc, c, NULL);
    if (kind == K_REDUCE) return ghz_reduce(send, recv, count, t, op, root, acc, c, NULL);
    return ghz_reduce_scatter(send, recv, count, t, op, acc, c, NULL);
#endif
}

#define ALLREDUCE(s, r, n, t, op, acc, c) call_coll(K_ALLREDUCE, s, r, n, t, op, 0, acc, c)
#define REDUCE(s, r, n, t, op, root, acc, c) call_coll(K_REDUCE, s, r, n, t, op, root, acc, c)
#define REDUCE_SCATTER(s, r, n, t, op, acc, c) call_coll(K_REDUCE_SCATTER, s, r, n, t, op, 0, acc, c)

/* ---- exact ------------------------------------------------------------------------- */

static const ghz_dtype_t all_types[] = {GHZ_F32, GHZ_F64, GHZ_I8, GHZ_U8, GHZ_I16,
                                        GHZ_U16, GHZ_I32, GHZ_U32, GHZ_I64, GHZ_U64};
static const ghz_op_t all_ops[] = {GHZ_OP_SUM, GHZ_OP_PROD, GHZ_OP_MAX, GHZ_OP_MIN,
                                   GHZ_OP_AVG, GHZ_OP_LAND, GHZ_OP_LOR, GHZ_OP_LXOR,
                                   GHZ_OP_BAND, GHZ_OP_BOR, GHZ_OP_BXOR};

static int is_float(ghz_dtype_t t)
{
    return t == GHZ_F32 || t == GHZ_F64;
}

static int op_defined(ghz_dtype_t t, ghz_op_t op)
{
    if (op == GHZ_OP_AVG) return is_float(t);
    if (op >= GHZ_OP_LAND) return !is_float(t);
    return 1;
}

/* Checks one result element against the reference. */
static int check_elem(const void* got, size_t gi, void* const* in, size_t ri, ghz_dtype_t t, ghz_op_t op,
                      const char* what)
{
    uint64_t bits = 0;
    long double absum, ref = ref_fold(in, g_size, ri, t, op, &bits, &absum);
    size_t e = ghz_dtype_size(t);
    if (!is_float(t)) {
        uint64_t v = 0;
        memcpy(&v, (const unsigned char*)got + gi * e, e);
        if (e < 8) bits &= (((uint64_t)1 << (8 * e)) - 1);
        if (v != bits) {
            CHECK(0, "%s: element %zu: got %llu want %llu", what, gi, (unsigned long long)v,
                  (unsigned long long)bits);
            return 0;
        }
        return 1;
    }
    {
        double v = get_f(got, gi, t), u = t == GHZ_F32 ? 0x1p-24 : 0x1p-53;
        long double tol;
        if (op == GHZ_OP_MIN || op == GHZ_OP_MAX) tol = 0;
        else if (op == GHZ_OP_PROD) tol = fabsl(ref) * (g_size + 1) * u * 2;
        else tol = (absum * (g_size + 1) * u) / (op == GHZ_OP_AVG ? g_size : 1) + fabsl(ref) * u * 2;
        if (!(fabsl((long double)v - ref) <= tol)) {
            CHECK(0, "%s: element %zu: got %.17g want %.17Lg (tol %.3Lg)", what, gi, v, ref, tol);
            return 0;
        }
    }
    return 1;
}

static void test_exact_case(ghz_comm_t* c, int kind, ghz_dtype_t t, ghz_op_t op, size_t count, int in_place,
                            void** in, unsigned char* send, unsigned char* recv)
{
    const size_t e = ghz_dtype_size(t);
    const size_t total = kind == 2 ? count * (size_t)g_size : count;
    char what[160];
    int q, root = g_size > 2 ? 2 : 0;
    size_t i, bad = 0;
    ghz_status_t st;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    for (q = 0; q < g_size; q++) fill_exact(in[q], total, t, op, q, (uint64_t)kind);
    memcpy(send, in[g_rank], total * e);
    memset(recv, 0xA5, total * e + 64);
    if (in_place) memcpy(recv, send, total * e);
    snprintf(what, sizeof what, "%s %s %s count %zu%s",
             kind == 0 ? "allreduce" : kind == 1 ? "reduce" : "reduce_scatter", ghz_dtype_name(t),
             ghz_op_name(op), count, in_place ? " in place" : "");
    if (kind == 0) st = ALLREDUCE(in_place ? MPI_IN_PLACE : send, recv, count, t, op, NULL, c);
    else if (kind == 1)
        st = REDUCE(in_place && g_rank == root ? MPI_IN_PLACE : send, recv, count, t, op, root, NULL, c);
    else st = REDUCE_SCATTER(in_place ? MPI_IN_PLACE : send, recv, count, t, op, NULL, c);
    CHECK(st == GHZ_SUCCESS, "%s: %s (%s)", what, ghz_status_string(st), ghz_last_error_detail());
    if (st != GHZ_SUCCESS) return;
    ghz_comm_info(c, &info);
    if (info.rounds > g_max_rounds) g_max_rounds = info.rounds;
    if (kind == 0 || (kind == 1 && g_rank == root)) {
        for (i = 0; i < count && bad < 3; i++) bad += !check_elem(recv, i, in, i, t, op, what);
        if (kind == 0) CHECK(same_everywhere(recv, count * e), "%s: ranks differ", what);
    } else if (kind == 2) {
        for (i = 0; i < count && bad < 3; i++)
            bad += !check_elem(recv, i, in, (size_t)g_rank * count + i, t, op, what);
    }
    /* nothing written past the result */
    if (kind != 1 || g_rank == root) {
        size_t n = kind == 2 && !in_place ? count : total;
        unsigned char guard[64];
        memset(guard, 0xA5, sizeof guard);
        if (!in_place) CHECK(memcmp(recv + n * e, guard, 64) == 0, "%s: wrote past the output", what);
    }
}

/* In place and out of place fold every element in the same order, so they give the
 * same bits, on floats whose sum depends on the order (magnitudes 2^-20 to 2^20). */
static void test_exact_inplace_bits(ghz_comm_t* c, size_t count, unsigned char* send, unsigned char* recv)
{
    float* x = (float*)send;
    float* y = (float*)malloc(count * 4 + 4);
    size_t i;
    ghz_status_t st;
    for (i = 0; i < count; i++)
        x[i] = (float)ldexp(sin(0.7 * (double)i + g_rank), (int)((i * 7 + (size_t)g_rank * 3) % 41) - 20);
    st = ALLREDUCE(send, y, count, GHZ_F32, GHZ_OP_SUM, NULL, c);
    CHECK(st == GHZ_SUCCESS, "allreduce out of place: %s", ghz_status_string(st));
    memcpy(recv, send, count * 4);
    st = ALLREDUCE(MPI_IN_PLACE, recv, count, GHZ_F32, GHZ_OP_SUM, NULL, c);
    CHECK(st == GHZ_SUCCESS, "allreduce in place: %s", ghz_status_string(st));
    CHECK(memcmp(y, recv, count * 4) == 0, "allreduce f32 sum of %zu: in place and out of place differ", count);
    free(y);
}

#ifndef GHZ_TEST_CUDA
/* GHZ_ALGO_MPI (CPU backend): MPI_Allreduce for the ops whose rules are ghz's, the
 * same checks as the other algorithms (every element, ranks equal, in place, nothing
 * written past the result, in place and out of place the same bits); float min and max
 * and lossy calls refused on every rank; AUTO takes it up to GHZ_COLL_MPI_MAX bytes. */
/* An AUTO communicator made with GHZ_COLL_MPI_MAX set to `v` (NULL: unset), which it
 * reads once, at creation. */
static ghz_comm_t* auto_comm_mpi_max(const char* v)
{
    ghz_comm_t* c;
    if (v) setenv("GHZ_COLL_MPI_MAX", v, 1);
    c = make_comm(GHZ_ALGO_AUTO, GHZ_ALGO_AUTO, 1 << 16, 256);
    unsetenv("GHZ_COLL_MPI_MAX");
    return c;
}

static void run_exact_mpi(const size_t* counts, void** in, unsigned char* send, unsigned char* recv)
{
    ghz_comm_t* c = make_comm(GHZ_ALGO_MPI, GHZ_ALGO_RING, 1 << 16, 256);
    size_t ti, oi, ci, n = 16400; /* 65600 bytes: above COLL_AUTO_LOSSY_MIN_BYTES, within the buffers at N = 1 */
    ghz_status_t st;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    if (!c) return;
    for (ti = 0; ti < sizeof all_types / sizeof all_types[0]; ti++)
        for (oi = 0; oi < sizeof all_ops / sizeof all_ops[0]; oi++)
            for (ci = 0; ci < 5; ci++) {
                const ghz_dtype_t t = all_types[ti];
                const ghz_op_t op = all_ops[oi];
                const int fminmax = (op == GHZ_OP_MIN || op == GHZ_OP_MAX) && (t == GHZ_F32 || t == GHZ_F64);
                const int small = (op == GHZ_OP_SUM || op == GHZ_OP_PROD) && ghz_dtype_size(t) <= 2;
                int ip;
                if (!op_defined(t, op)) continue;
                if (fminmax || small) {
                    if (ci != 4) continue;
                    st = ALLREDUCE(send, recv, counts[ci], t, op, NULL, c);
                    CHECK(st == GHZ_ERR_UNSUPPORTED && strstr(ghz_last_error_detail(), fminmax ? "NaN" : "saturate"),
                          "mpi, %s %s: %s (%s), want unsupported", ghz_dtype_name(t), ghz_op_name(op),
                          ghz_status_string(st), ghz_last_error_detail());
                    continue;
                }
                for (ip = 0; ip < 2; ip++) test_exact_case(c, 0, t, op, counts[ci], ip, in, send, recv);
                ghz_comm_info(c, &info);
                CHECK(counts[ci] == 0 || info.algo == GHZ_ALGO_MPI, "mpi: the call says %s", ghz_algo_name(info.algo));
            }
    test_exact_inplace_bits(c, 9001, send, recv);
    /* compressed: refused on every rank (the compressed path is ghz's own); AUTO runs
     * such a call exact at every size, whatever its threshold */
    memset(send, 0, n * 4);
    acc.path = GHZ_PATH_HOMO;
    st = ALLREDUCE(send, recv, n, GHZ_F32, GHZ_OP_SUM, &acc, c);
    CHECK(st == GHZ_ERR_UNSUPPORTED, "mpi, lossy: %s, want unsupported", ghz_status_string(st));
    acc.path = GHZ_PATH_AUTO;
    st = ALLREDUCE(send, recv, n, GHZ_F32, GHZ_OP_SUM, &acc, c);
    ghz_comm_info(c, &info);
    CHECK(st == GHZ_SUCCESS && info.algo == GHZ_ALGO_MPI && info.eb_abs == 0.0, "mpi, lossy AUTO: %s, %s, eb %g",
          ghz_status_string(st), ghz_algo_name(info.algo), info.eb_abs);
    ghz_comm_destroy(c);
    /* AUTO: MPI_Allreduce up to GHZ_COLL_MPI_MAX bytes per rank, where the rules allow */
    c = auto_comm_mpi_max("4096");
    if (!c) return;
    test_exact_case(c, 0, GHZ_F32, GHZ_OP_SUM, 1001, 0, in, send, recv);
    ghz_comm_info(c, &info);
    CHECK(info.algo == GHZ_ALGO_MPI, "auto, 4004 bytes under GHZ_COLL_MPI_MAX 4096: %s", ghz_algo_name(info.algo));
    test_exact_case(c, 0, GHZ_F32, GHZ_OP_SUM, 1025, 0, in, send, recv);
    ghz_comm_info(c, &info);
    CHECK(info.algo != GHZ_ALGO_MPI, "auto, 4100 bytes over GHZ_COLL_MPI_MAX: %s", ghz_algo_name(info.algo));
    test_exact_case(c, 0, GHZ_F32, GHZ_OP_MAX, 1001, 0, in, send, recv);
    ghz_comm_info(c, &info);
    CHECK(info.algo != GHZ_ALGO_MPI, "auto, float max: %s", ghz_algo_name(info.algo));
    ghz_comm_destroy(c);
    /* the default (4 MiB: comm.c, MPI_NATIVE_DEFAULT) takes a 64 KiB call; 0 turns it off */
    c = auto_comm_mpi_max(NULL);
    if (!c) return;
    test_exact_case(c, 0, GHZ_F32, GHZ_OP_SUM, n, 0, in, send, recv);
    ghz_comm_info(c, &info);
    CHECK(info.algo == GHZ_ALGO_MPI, "auto, %zu bytes, GHZ_COLL_MPI_MAX unset: %s", n * 4, ghz_algo_name(info.algo));
    ghz_comm_destroy(c);
    c = auto_comm_mpi_max("0");
    if (!c) return;
    test_exact_case(c, 0, GHZ_F32, GHZ_OP_SUM, 1001, 0, in, send, recv);
    ghz_comm_info(c, &info);
    CHECK(info.algo != GHZ_ALGO_MPI, "auto, GHZ_COLL_MPI_MAX=0: %s", ghz_algo_name(info.algo));
    ghz_comm_destroy(c);
}
#endif

static int run_exact(void)
{
    const size_t N = (size_t)g_size;
    /* counts: empty, one, fewer than N, not divisible by N, and (with a 64 KiB pool and
     * 256-byte chunks) many pieces and several rounds */
    size_t counts[6];
    const size_t maxc = 9001 * N + 64;
    void* in[64];
    unsigned char *send = malloc(maxc * 8 + 64), *recv = malloc(maxc * 8 + 128);
    size_t a, ti, oi, ci, q;
    counts[0] = 0;
    counts[1] = 1;
    counts[2] = N > 1 ? N - 1 : 2;
    counts[3] = N + 1;
    counts[4] = 1001;
    counts[5] = 9001;
    for (q = 0; q < N; q++) in[q] = malloc(maxc * 8 + 64);
    for (a = 0; a < n_algos(); a++) {
#ifdef GHZ_TEST_CUDA
        /* 2 KiB pieces on the GPU, where every piece waits for the device: still many
         * pieces per call and several rounds, in minutes */
        ghz_comm_t* c = make_comm(ar_algos[a], rs_algos[a], 1 << 16, 2048);
#else
        ghz_comm_t* c = make_comm(ar_algos[a], rs_algos[a], 1 << 16, 256);
#endif
        ghz_coll_info_t i0 = GHZ_COLL_INFO_INIT, i1 = GHZ_COLL_INFO_INIT;
        if (!c) break;
        ghz_comm_info(c, &i0);
        for (ti = 0; ti < sizeof all_types / sizeof all_types[0]; ti++)
            for (oi = 0; oi < sizeof all_ops / sizeof all_ops[0]; oi++)
                for (ci = 0; ci < 6; ci++) {
                    ghz_dtype_t t = all_types[ti];
                    ghz_op_t op = all_ops[oi];
                    int kind, ip;
                    if (!op_defined(t, op)) continue;
                    /* the large count on a few pairs only (time) */
                    if (ci == 5 && !((t == GHZ_F32 && (op == GHZ_OP_SUM || op == GHZ_OP_MAX)) ||
                                     (t == GHZ_I64 && op == GHZ_OP_BXOR) || (t == GHZ_U8 && op == GHZ_OP_SUM) ||
                                     (t == GHZ_F64 && op == GHZ_OP_AVG)))
                        continue;
                    for (kind = 0; kind < 3; kind++) {
                        if (kind == 1 && a != 0) continue; /* reduce has one algorithm */
                        if (kind == 2 && a == 1) continue; /* reduce_scatter: ring, pairwise */
                        for (ip = 0; ip < 2; ip++)
                            test_exact_case(c, kind, t, op, counts[ci], ip, in, send, recv);
                    }
                }
        test_exact_inplace_bits(c, 9001, send, recv);
        test_exact_inplace_bits(c, N + 1, send, recv);
        ghz_comm_info(c, &i1);
        CHECK(i1.allocations == i0.allocations, "calls allocated: %llu -> %llu",
              (unsigned long long)i0.allocations, (unsigned long long)i1.allocations);
        CHECK(g_max_rounds > 1 || g_size == 1, "no call took more than one round: the round loop is untested");
        g_max_rounds = 0;
        ghz_comm_destroy(c);
    }
#ifndef GHZ_TEST_CUDA
    run_exact_mpi(counts, in, send, recv);
#endif
    for (q = 0; q < N; q++) free(in[q]);
    free(send);
    free(recv);
    return mpi_check_finish("exact");
}

/* ---- lossy ------------------------------------------------------------------------- */

/* Rank r's field: a different generated field and seed per rank (smooth2d, wave3d,
 * noisy2d, ...), tiled to n. Generated once per rank and kept. */
static double* field_cache[64];
static size_t field_len[64];

static const double* field_of(int r, size_t* m)
{
    static const char* const names[] = {"smooth2d", "wave3d", "noisy2d"};
    if (!field_cache[r]) {
        const char* name = names[r % 3];
        size_t nx = 128, ny = 128, nz = strcmp(name, "wave3d") == 0 ? 4 : 1;
        int rc;
        field_len[r] = nx * ny * nz;
        field_cache[r] = malloc(field_len[r] * sizeof(double));
        rc = ghz_ds_generate_f64(name, nx, ny, nz, (uint64_t)r + 1, field_cache[r]);
        CHECK(rc == 0, "ghz_ds_generate_f64 %s: %d", name, rc);
    }
    *m = field_len[r];
    return field_cache[r];
}

static void fill_field(void* buf, size_t n, ghz_dtype_t t, int r)
{
    size_t m, i;
    const double* f = field_of(r, &m);
    for (i = 0; i < n; i++) {
        double v = f[(i + (size_t)r * 977) % m] * (1.0 + 0.1 * r);
        if (t == GHZ_F32) ((float*)buf)[i] = (float)v;
        else ((double*)buf)[i] = v;
    }
}

/* An ABS bound that means the same on every field: a fraction of rank 0's range. */
static double abs_bound(double frac)
{
    size_t m, i;
    const double* f = field_of(0, &m);
    double lo = f[0], hi = f[0];
    for (i = 1; i < m; i++) {
        if (f[i] < lo) lo = f[i];
        if (f[i] > hi) hi = f[i];
    }
    return frac * (hi - lo);
}

static double lossy_case(ghz_comm_t* c, ghz_dtype_t t, ghz_op_t op, ghz_path_t path, ghz_eb_mode_t mode,
                         double bound, size_t count, int kind, int in_place, void** in, void* send, void* recv,
                         double* ratio)
{
    const size_t e = ghz_dtype_size(t), total = kind == 2 ? count * (size_t)g_size : count;
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    ghz_status_t st;
    char what[200];
    double maxerr = 0;
    size_t i, bad = 0, off = kind == 2 ? (size_t)g_rank * count : 0;
    int q, root = g_size - 1;
    acc.mode = mode;
    acc.bound = bound;
    acc.path = path;
    for (q = 0; q < g_size; q++) fill_field(in[q], total, t, q);
    memcpy(in_place ? recv : send, in[g_rank], total * e);
    snprintf(what, sizeof what, "lossy %s %s %s %s %s %g count %zu%s",
             kind == 0 ? "allreduce" : kind == 1 ? "reduce" : "reduce_scatter", ghz_dtype_name(t),
             ghz_op_name(op), path == GHZ_PATH_HOMO ? "homo" : "doc", mode == GHZ_EB_ABS ? "ABS" : "REL", bound,
             count, in_place ? " in place" : "");
    if (kind == 0) st = ALLREDUCE(in_place ? MPI_IN_PLACE : send, recv, count, t, op, &acc, c);
    else if (kind == 1)
        st = REDUCE(in_place && g_rank == root ? MPI_IN_PLACE : send, recv, count, t, op, root, &acc, c);
    else st = REDUCE_SCATTER(in_place ? MPI_IN_PLACE : send, recv, count, t, op, &acc, c);
    CHECK(st == GHZ_SUCCESS, "%s: %s (%s)", what, ghz_status_string(st), ghz_last_error_detail());
    if (st != GHZ_SUCCESS) return 0;
    ghz_comm_info(c, &info);
    /* one rank: nothing to compress, the input comes back (error 0) */
    CHECK(g_size == 1 || (info.lossy && info.eb_abs > 0 && info.bound_abs > 0), "%s: not compressed (eb %g)",
          what, info.eb_abs);
    /* K*E fits in the bound (for AVG, in the sum's bound: N times the mean's) */
    CHECK(info.error_terms * info.eb_abs <= info.bound_abs * (op == GHZ_OP_AVG ? g_size : 1),
          "%s: K*E %g > bound %g", what, info.error_terms * info.eb_abs, info.bound_abs);
    *ratio = info.wire_bytes ? (double)info.logical_bytes / (double)info.wire_bytes : 0;
    if (kind == 1 && g_rank != root) return 0;
    for (i = 0; i < count; i++) {
        uint64_t bits;
        long double absum, ref = ref_fold(in, g_size, off + i, t, op, &bits, &absum);
        double err = fabs((double)((long double)get_f(recv, i, t) - ref));
        if (err > maxerr) maxerr = err;
        if (!(err <= info.bound_abs) && bad++ < 3)
            CHECK(0, "%s: element %zu: got %.9g exact %.9Lg error %.3g > bound %.3g", what, i, get_f(recv, i, t),
                  ref, err, info.bound_abs);
    }
    if (kind == 0) CHECK(same_everywhere(recv, count * e), "%s: ranks differ", what);
    return maxerr / info.bound_abs;
}

static int run_lossy(void)
{
    static const ghz_op_t ops[] = {GHZ_OP_SUM, GHZ_OP_AVG, GHZ_OP_MIN, GHZ_OP_MAX};
    const size_t count = 20011, N = (size_t)g_size;
    void* in[64];
    void *send = malloc((count + N) * N * 8), *recv = malloc((count + N) * N * 8), *first = malloc(count * 8);
    size_t a, q, oi;
    double worst = 0, min_ratio = 1e30;
    for (q = 0; q < N; q++) in[q] = malloc((count + N) * N * 8);
    for (a = 0; a < n_algos(); a++) {
        /* 256 KiB pool, 16 KiB chunks: several pieces and rounds */
        ghz_comm_t* c = make_comm(ar_algos[a], rs_algos[a], 256 << 10, 16 << 10);
        int ti, p, m, kind;
        if (!c) break;
        for (ti = 0; ti < 2; ti++)
            for (oi = 0; oi < 4; oi++)
                for (p = 0; p < 2; p++)
                    for (m = 0; m < 2; m++)
                        for (kind = 0; kind < 3; kind++) {
                            ghz_dtype_t t = ti ? GHZ_F64 : GHZ_F32;
                            ghz_path_t path = p ? GHZ_PATH_DOC : GHZ_PATH_HOMO;
                            double ratio = 0, r;
                            if (kind == 1 && a != 0) continue;
                            if (kind == 2 && a == 1) continue;
                            /* ipc_direct sums compressed data: min, max and DOC are
                             * refused (run_direct_refusals) */
                            if (a == 3 && (p || ops[oi] == GHZ_OP_MIN || ops[oi] == GHZ_OP_MAX)) continue;
                            r = lossy_case(c, t, ops[oi], path, m ? GHZ_EB_REL : GHZ_EB_ABS,
                                           m ? 1e-3 : abs_bound(1e-3), kind == 2 ? count / N + 1 : count, kind,
                                           (int)((oi + p + kind) & 1), in, send, recv, &ratio);
                            if (r > worst) worst = r;
                            if (getenv("GHZ_TEST_VERBOSE") && g_rank == 0)
                                printf("%s %s %s %s kind %d: err/bound %.4f ratio %.2f\n", ghz_algo_name(ar_algos[a]),
                                       ghz_op_name(ops[oi]), p ? "doc" : "homo", m ? "REL" : "ABS", kind, r, ratio);
                            if (kind == 0 && ratio > 0 && ratio < min_ratio) min_ratio = ratio;
                        }
        /* recursive doubling: HOMO and DOC are the same bytes (HOMO.md), so the same results */
        if (a == 1 && g_size > 1) {
            double ratio;
            lossy_case(c, GHZ_F32, GHZ_OP_SUM, GHZ_PATH_HOMO, GHZ_EB_REL, 1e-3, count, 0, 0, in, send, recv, &ratio);
            memcpy(first, recv, count * 4);
            lossy_case(c, GHZ_F32, GHZ_OP_SUM, GHZ_PATH_DOC, GHZ_EB_REL, 1e-3, count, 0, 0, in, send, recv, &ratio);
            CHECK(memcmp(first, recv, count * 4) == 0, "recursive doubling: HOMO and DOC results differ");
        }
        ghz_comm_destroy(c);
    }
    if (g_size > 1) {
        /* the bound is used, not wasted: some error, and compression paid */
        CHECK(worst > 1e-3 && worst <= 1.0, "max error / bound %g", worst);
        CHECK(min_ratio > 1.2, "allreduce ratio %g on smooth fields", min_ratio);
    }
    if (g_rank == 0) printf("lossy: worst max error / bound %.3f, smallest allreduce ratio %.2f\n", worst, min_ratio);
    for (q = 0; q < N; q++) free(in[q]);
    free(send);
    free(recv);
    free(first);
    return mpi_check_finish("lossy");
}

/* ---- edge cases ---------------------------------------------------------------------- */

/* GHZ_ALGO_IPC_DIRECT: refused with a reason on every rank where it cannot run (no
 * CUDA IPC transport; min, max and DOC); chosen by AUTO over CUDA IPC; and a collective
 * on a stream being captured into a CUDA graph is refused before it enqueues anything
 * (the ranks meet on the host), on the capturing rank and, through the agreement, on
 * the others. */
/* Element i of the sum over ranks of edge_direct's inputs, (i % 13) + rank: integers,
 * whose sums are exact in any order. */
static float int_sum(size_t i)
{
    float ex = 0;
    int q;
    for (q = 0; q < g_size; q++) ex += (float)(i % 13) + (float)q;
    return ex;
}

/* y[at..at+n) against int_sum. */
static void check_int_sums_at(const float* y, size_t at, size_t n, const char* what)
{
    size_t i;
    for (i = at; i < at + n; i++) {
        const float ex = int_sum(i);
        if (y[i] != ex) {
            CHECK(0, "%s: element %zu: %g, expected %g", what, i, y[i], ex);
            break;
        }
    }
}


#ifdef GHZ_TEST_CUDA
/* Collectives captured into a CUDA graph by every rank: over CUDA IPC (and on one rank)
 * an exact allreduce (SUM, AVG) and reduce-scatter are captured once and replayed three
 * times with new inputs, an uncaptured call in between, each result checked; a lossy
 * call and the MPI transport's calls are refused on every rank before anything is
 * enqueued, and the capture still ends cleanly; a replay on one rank alone ends by the
 * fences' timeout and ghz_comm_graph_status reports it there. Inputs are integers: sums
 * are exact in any order. */
static void edge_graph(void)
{
    const size_t n = 4099, rc = n / (size_t)g_size; /* small: the host path is skipped */
    const int can = g_size == 1 || ipc_run();
    /* read when the CUDA IPC transport is set up: a lone replay below waits 1 s */
    const int env_set = setenv("GHZ_GRAPH_FENCE_TIMEOUT_S", "1", 1) == 0;
    ghz_comm_t* c = make_comm(GHZ_ALGO_AUTO, GHZ_ALGO_AUTO, 0, 0);
    float *x = malloc(n * 4), *y = malloc(n * 4), *z = malloc(n * 4), *v = malloc(n * 4);
    cudaStream_t s = NULL;
    cudaGraph_t g = NULL;
    cudaGraphExec_t ge = NULL;
    void *ds = NULL, *dr = NULL, *drs = NULL, *dav = NULL;
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_status_t st[4];
    size_t i;
    int rep, k;
    if (!c || !x || !y || !z || !v || !env_set) {
        CHECK(0, "edge_graph set-up");
        goto done;
    }
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess, "cudaStreamCreate");
    CHECK(cudaMalloc(&ds, n * 4) == cudaSuccess && cudaMalloc(&dr, n * 4) == cudaSuccess &&
              cudaMalloc(&drs, n * 4) == cudaSuccess && cudaMalloc(&dav, n * 4) == cudaSuccess,
          "cudaMalloc");
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) == cudaSuccess, "capture");
    st[0] = ghz_allreduce(ds, dr, n, GHZ_F32, GHZ_OP_SUM, NULL, c, s);
    st[1] = ghz_reduce_scatter(ds, drs, rc, GHZ_F32, GHZ_OP_SUM, NULL, c, s);
    st[2] = ghz_allreduce(ds, dav, n, GHZ_F32, GHZ_OP_AVG, NULL, c, s);
    acc.mode = GHZ_EB_ABS;
    acc.bound = 1e-2;
    acc.path = GHZ_PATH_HOMO;
    st[3] = ghz_allreduce(ds, dr, n, GHZ_F32, GHZ_OP_SUM, &acc, c, s);
    CHECK(cudaStreamEndCapture(s, &g) == cudaSuccess, "end capture");
    for (k = 0; k < 3; k++)
        CHECK(st[k] == (can ? GHZ_SUCCESS : GHZ_ERR_UNSUPPORTED), "captured call %d: %s (%s)", k,
              ghz_status_string(st[k]), ghz_last_error_detail());
    CHECK(st[3] == GHZ_ERR_UNSUPPORTED, "captured lossy call: %s", ghz_status_string(st[3]));
    if (!can || st[0] != GHZ_SUCCESS || st[1] != GHZ_SUCCESS || st[2] != GHZ_SUCCESS) goto done;
    CHECK(cudaGraphInstantiate(&ge, g, 0) == cudaSuccess, "cudaGraphInstantiate");
    for (rep = 0; rep < 3 && ge; rep++) {
        /* input (i % 13) + rank + 5 rep: the sum over ranks is int_sum(i) + 5 N rep */
        for (i = 0; i < n; i++) x[i] = (float)(i % 13) + (float)g_rank + 5.0f * (float)rep;
        cudaMemcpyAsync(ds, x, n * 4, cudaMemcpyHostToDevice, s);
        CHECK(cudaGraphLaunch(ge, s) == cudaSuccess, "cudaGraphLaunch");
        cudaMemcpyAsync(y, dr, n * 4, cudaMemcpyDeviceToHost, s);
        cudaMemcpyAsync(z, drs, rc * 4, cudaMemcpyDeviceToHost, s);
        cudaMemcpyAsync(v, dav, n * 4, cudaMemcpyDeviceToHost, s);
        CHECK(cudaStreamSynchronize(s) == cudaSuccess, "replay %d", rep);
        for (i = 0; i < n; i++) {
            const float ex = int_sum(i) + 5.0f * (float)(g_size * rep);
            const float av = (float)((double)ex * (1.0 / (double)g_size));
            if (y[i] != ex || v[i] != av || (i < rc && z[i] != int_sum(g_rank * rc + i) + 5.0f * (float)(g_size * rep))) {
                CHECK(0, "replay %d, element %zu: sum %g (%g), avg %g (%g), reduce_scatter %g", rep, i, y[i], ex, v[i],
                      av, i < rc ? z[i] : 0.0f);
                break;
            }
        }
        if (rep == 1) {
            /* an uncaptured call between replays, on the same stream */
            ghz_status_t u = ghz_allreduce(ds, dr, n, GHZ_F32, GHZ_OP_MAX, NULL, c, s);
            cudaMemcpyAsync(y, dr, n * 4, cudaMemcpyDeviceToHost, s);
            cudaStreamSynchronize(s);
            CHECK(u == GHZ_SUCCESS, "uncaptured call between replays: %s", ghz_status_string(u));
            for (i = 0; i < n && u == GHZ_SUCCESS; i++)
                if (y[i] != (float)(i % 13) + (float)(g_size - 1) + 5.0f) {
                    CHECK(0, "uncaptured max between replays, element %zu: %g", i, y[i]);
                    break;
                }
        }
    }
    CHECK(ghz_comm_graph_status(c) == GHZ_SUCCESS, "graph status: %s", ghz_last_error_detail());
    if (g_size > 1 && ge) {
        /* rank 0 replays once more, alone: its first fence finds no peer and gives up
         * after the timeout (1 s, set above), the later ones do not wait, and the
         * status says so on rank 0 only; the communicator then goes (COLL.md) */
        ghz_status_t gs;
        if (g_rank == 0) {
            CHECK(cudaGraphLaunch(ge, s) == cudaSuccess, "lone replay");
            CHECK(cudaStreamSynchronize(s) == cudaSuccess, "lone replay: the fences did not give up");
        }
        gs = ghz_comm_graph_status(c);
        CHECK(gs == (g_rank == 0 ? GHZ_ERR_PEER : GHZ_SUCCESS), "graph status after a lone replay: %s (%s)",
              ghz_status_string(gs), ghz_last_error_detail());
    }
done:
    if (ge) cudaGraphExecDestroy(ge);
    if (g) cudaGraphDestroy(g);
    cudaFree(ds);
    cudaFree(dr);
    cudaFree(drs);
    cudaFree(dav);
    if (s) cudaStreamDestroy(s);
    ghz_comm_destroy(c);
    free(x);
    free(y);
    free(z);
    free(v);
}
#endif

static void edge_direct(void)
{
    const size_t n = 4099;
    float *x = malloc((n * 64 + 64) * 4), *y = malloc((n * 64 + 64) * 4);
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    ghz_comm_t* c = NULL;
    const size_t big = n * 64; /* over 1 MiB: past the CUDA backend's host path */
    ghz_status_t st;
    size_t i;
#ifdef GHZ_TEST_CUDA
    c = make_comm(GHZ_ALGO_IPC_DIRECT, GHZ_ALGO_IPC_DIRECT, 0, 0);
#else
    {
        /* a CPU communicator refuses the GPU-only algorithms at init, as it refuses the
         * GPU-only transports (it used to accept them and fail every call) */
        static const ghz_algo_t gpu_only[2] = {GHZ_ALGO_IPC_DIRECT, GHZ_ALGO_NCCL};
        int a, f;
        for (a = 0; a < 2; a++)
            for (f = 0; f < 3; f++) {
                ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
                if (f == 0) cfg.allreduce_algo = gpu_only[a];
                else if (f == 1) cfg.reduce_scatter_algo = gpu_only[a];
                else cfg.reduce_algo = gpu_only[a];
                st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &c);
                CHECK(st == GHZ_ERR_UNSUPPORTED && c == NULL &&
                          strstr(ghz_last_error_detail(), ghz_algo_name(gpu_only[a])) &&
                          strstr(ghz_last_error_detail(), "CUDA backend"),
                      "a CPU communicator with %s, field %d: %s (%s)", ghz_algo_name(gpu_only[a]), f,
                      ghz_status_string(st), ghz_last_error_detail());
                ghz_comm_destroy(c);
                c = NULL;
            }
    }
#endif
    /* integers: their sums are exact in any order */
    for (i = 0; i < n * 64 + 64; i++) x[i] = (float)(i % 13) + (float)g_rank;
    acc.mode = GHZ_EB_ABS;
    acc.bound = 1e-3;
    acc.path = GHZ_PATH_HOMO; /* (AUTO would run these small calls exact) */
    if (c && g_size > 1) {
        st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, NULL, c);
        if (!ipc_run()) {
            CHECK(st == GHZ_ERR_UNSUPPORTED, "ipc_direct over MPI: %s", ghz_status_string(st));
        } else {
            CHECK(st == GHZ_SUCCESS, "ipc_direct exact: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
            if (st == GHZ_SUCCESS) check_int_sums_at(y, 0, n, "ipc_direct exact");
            st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_MAX, &acc, c);
            CHECK(st == GHZ_ERR_UNSUPPORTED, "ipc_direct lossy max: %s", ghz_status_string(st));
            acc.path = GHZ_PATH_DOC;
            st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c);
            CHECK(st == GHZ_ERR_UNSUPPORTED, "ipc_direct DOC: %s", ghz_status_string(st));
            acc.path = GHZ_PATH_HOMO;
        }
    }
    ghz_comm_destroy(c);
    /* AUTO picks it over CUDA IPC (exact and the homomorphic sum), and only there */
    acc.path = GHZ_PATH_HOMO;
    c = make_comm(GHZ_ALGO_AUTO, GHZ_ALGO_AUTO, 0, 0);
    if (c && g_size > 1) {
        st = ALLREDUCE(x, y, big, GHZ_F32, GHZ_OP_SUM, NULL, c);
        ghz_comm_info(c, &info);
        CHECK(st == GHZ_SUCCESS && (info.algo == GHZ_ALGO_IPC_DIRECT) == ipc_run(), "auto exact: %s, %s",
              ghz_status_string(st), ghz_algo_name(info.algo));
        /* small exact calls of a CUDA communicator go through host memory (comm.c,
         * host_path_limit: 8 KiB where every rank has a GPU of its own over CUDA IPC,
         * 1 MiB elsewhere): the CPU algorithm, exact, the copies counted as staging */
        if (!getenv("GHZ_COLL_HOST_PATH_MAX")) {
            const size_t tiny = 1000; /* 4000 bytes: under either limit */
            st = ALLREDUCE(x, y, tiny, GHZ_F32, GHZ_OP_SUM, NULL, c);
            ghz_comm_info(c, &info);
            CHECK(st == GHZ_SUCCESS && info.algo != GHZ_ALGO_IPC_DIRECT, "auto small exact: %s, %s",
                  ghz_status_string(st), ghz_algo_name(info.algo));
#ifdef GHZ_TEST_CUDA
            CHECK(info.time_stage > 0, "auto small exact: no staging time on the CUDA backend");
#endif
            if (st == GHZ_SUCCESS) check_int_sums_at(y, 0, tiny, "auto small exact");
        }
        /* 16 KiB: the host path but where every rank has a GPU of its own over IPC */
        st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, NULL, c);
        ghz_comm_info(c, &info);
        CHECK(st == GHZ_SUCCESS && (getenv("GHZ_COLL_HOST_PATH_MAX") ||
                                    (info.algo == GHZ_ALGO_IPC_DIRECT) == (ipc_run() && !g_shared_gpu)),
              "auto 16 KiB exact (%s GPU): %s, %s", g_shared_gpu ? "shared" : "own", ghz_status_string(st),
              ghz_algo_name(info.algo));
        if (st == GHZ_SUCCESS) check_int_sums_at(y, 0, n, "auto 16 KiB exact");
        /* 64 KiB: the host path where ranks share a GPU or talk over MPI, ipc_direct
         * where every rank has a GPU of its own (comm.c, host_path_limit) */
        if (!getenv("GHZ_COLL_HOST_PATH_MAX")) {
            const size_t mid = 4 * n;
            const int direct = ipc_run() && !g_shared_gpu;
            st = ALLREDUCE(x, y, mid, GHZ_F32, GHZ_OP_SUM, NULL, c);
            ghz_comm_info(c, &info);
            CHECK(st == GHZ_SUCCESS && (info.algo == GHZ_ALGO_IPC_DIRECT) == direct,
                  "auto 64 KiB exact (%s GPU): %s, %s", g_shared_gpu ? "shared" : "own", ghz_status_string(st),
                  ghz_algo_name(info.algo));
            if (st == GHZ_SUCCESS) check_int_sums_at(y, 0, mid, "auto 64 KiB exact");
        }
        {
            /* the host path's reduce-scatter (the result at this rank's block of the
             * input, NCCL's in place; the CUDA build's harness copies both buffers to
             * the device apart) and reduce (root N-1, MAX): x's integers */
            const size_t rc = n / (size_t)g_size + 1;
            const int root = g_size - 1;
            memcpy(y, x, rc * (size_t)g_size * 4);
            st = REDUCE_SCATTER(y, y + (size_t)g_rank * rc, rc, GHZ_F32, GHZ_OP_SUM, NULL, c);
            CHECK(st == GHZ_SUCCESS, "auto small reduce_scatter in place: %s", ghz_status_string(st));
            if (st == GHZ_SUCCESS) check_int_sums_at(y, (size_t)g_rank * rc, rc, "auto small reduce_scatter");
            memset(y, 0, n * 4);
            st = REDUCE(x, y, n, GHZ_F32, GHZ_OP_MAX, root, NULL, c);
            CHECK(st == GHZ_SUCCESS, "auto small reduce: %s", ghz_status_string(st));
            for (i = 0; i < n && st == GHZ_SUCCESS && g_rank == root; i++)
                if (y[i] != (float)(i % 13) + (float)(g_size - 1)) {
                    CHECK(0, "auto small reduce: element %zu: %g", i, y[i]);
                    break;
                }
        }
        st = ALLREDUCE(x, y, big, GHZ_F32, GHZ_OP_SUM, &acc, c);
        ghz_comm_info(c, &info);
        CHECK(st == GHZ_SUCCESS && (info.algo == GHZ_ALGO_IPC_DIRECT) == ipc_run() && info.lossy &&
                  info.path == GHZ_PATH_HOMO,
              "auto homo: %s, %s", ghz_status_string(st), ghz_algo_name(info.algo));
        st = REDUCE_SCATTER(x, y, big / (size_t)g_size + 1, GHZ_F32, GHZ_OP_SUM, NULL, c);
        ghz_comm_info(c, &info);
        CHECK(st == GHZ_SUCCESS && (info.algo == GHZ_ALGO_IPC_DIRECT) == ipc_run(), "auto reduce_scatter: %s, %s",
              ghz_status_string(st), ghz_algo_name(info.algo));
    }
#ifdef GHZ_TEST_CUDA
    if (c) {
        /* rank 0 captures, the others do not: over CUDA IPC the agreement finds the
         * mismatch (every rank MISMATCH); over MPI rank 0 refuses (UNSUPPORTED, the
         * others PEER); one rank alone may capture (a copy). No output either way. */
        cudaStream_t s = NULL;
        cudaGraph_t g = NULL;
        void *ds = NULL, *dr = NULL;
        const int capturing = g_rank == 0;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess, "cudaStreamCreate");
        CHECK(cudaMalloc(&ds, n * 4) == cudaSuccess && cudaMalloc(&dr, n * 4) == cudaSuccess, "cudaMalloc");
        cudaMemcpy(ds, x, n * 4, cudaMemcpyHostToDevice);
        cudaMemset(dr, 0x5A, n * 4);
        if (capturing) CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) == cudaSuccess, "capture");
        st = ghz_allreduce(ds, dr, n, GHZ_F32, GHZ_OP_SUM, NULL, c, s);
        if (capturing) {
            CHECK(cudaStreamEndCapture(s, &g) == cudaSuccess, "end capture");
            if (g) cudaGraphDestroy(g);
        }
        CHECK(st == (g_size == 1   ? GHZ_SUCCESS
                     : ipc_run()   ? GHZ_ERR_MISMATCH
                     : capturing   ? GHZ_ERR_UNSUPPORTED
                                   : GHZ_ERR_PEER),
              "allreduce while rank 0 captures: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
        cudaStreamSynchronize(s);
        cudaMemcpy(y, dr, n * 4, cudaMemcpyDeviceToHost);
        for (i = 0; i < n && g_size > 1; i++)
            if (((const uint32_t*)y)[i] != 0x5A5A5A5Au) {
                CHECK(0, "the refused call wrote element %zu", i);
                break;
            }
        /* the communicator still works afterwards, on the same stream */
        st = ghz_allreduce(ds, dr, n, GHZ_F32, GHZ_OP_SUM, NULL, c, s);
        cudaStreamSynchronize(s);
        CHECK(st == GHZ_SUCCESS, "allreduce after the refusal: %s", ghz_status_string(st));
        cudaFree(ds);
        cudaFree(dr);
        cudaStreamDestroy(s);
    }
#endif
    ghz_comm_destroy(c);
    /* ipc_direct's one shot (small exact allreduce rounds, the default) and its three
     * phases (GHZ_COLL_DIRECT_ONE_SHOT_MAX=0) give the same bits: each element folded in
     * rank order either way. Floats whose sum depends on the order, an odd count. */
    if (ipc_run() && g_size > 1) {
        const size_t m = 3 * n;
        float* y3 = malloc(m * 4);
        ghz_comm_t *c1 = make_comm(GHZ_ALGO_IPC_DIRECT, GHZ_ALGO_IPC_DIRECT, 0, 0), *c3;
        ghz_status_t st3;
        setenv("GHZ_COLL_DIRECT_ONE_SHOT_MAX", "0", 1);
        c3 = make_comm(GHZ_ALGO_IPC_DIRECT, GHZ_ALGO_IPC_DIRECT, 0, 0);
        unsetenv("GHZ_COLL_DIRECT_ONE_SHOT_MAX");
        for (i = 0; i < m; i++) x[i] = (float)(sin(0.37 * (double)i + g_rank) * 1e3 / (1.0 + g_rank));
        if (c1 && c3 && y3) {
            int op;
            for (op = 0; op < 2; op++) {
                const ghz_op_t o = op ? GHZ_OP_AVG : GHZ_OP_SUM;
                memset(y, 0, m * 4);
                memset(y3, 0xFF, m * 4);
                st = ALLREDUCE(x, y, m, GHZ_F32, o, NULL, c1);
                st3 = ALLREDUCE(x, y3, m, GHZ_F32, o, NULL, c3);
                CHECK(st == GHZ_SUCCESS && st3 == GHZ_SUCCESS, "one shot / three phases: %s / %s",
                      ghz_status_string(st), ghz_status_string(st3));
                CHECK(memcmp(y, y3, m * 4) == 0, "one shot and three phases differ (%s)", op ? "avg" : "sum");
                CHECK(same_everywhere(y, m * 4), "one shot: ranks differ (%s)", op ? "avg" : "sum");
            }
        }
        ghz_comm_destroy(c1);
        ghz_comm_destroy(c3);
        free(y3);
    }
    free(x);
    free(y);
}

/* Lossy AUTO calls that run exact: below 64 KiB always (the least threshold), and at 400
 * KB where the threshold is pinned to 1 MiB (where it is pinned to 256 KiB they
 * compress). On a CUDA communicator they take the host path where it is on (below 64 KiB up to
 * 64 KiB, past where exact calls stop; 400 KB where ranks share a GPU or over MPI), the
 * input staged before the agreement with its range in the same wait. The bound they
 * state is REL times every rank's range (finite values only), tiny bounds are refused
 * on every rank, and the result is exact up to float rounding, for each collective. */
static void edge_auto_small(void)
{
    static const size_t totals[] = {1000, 12000, 100000};
    ghz_comm_t* c = auto_comm(NULL);
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    size_t ti, i;
    int kind;
    if (!c) return;
    acc.path = GHZ_PATH_AUTO;
    acc.mode = GHZ_EB_REL;
    for (ti = 0; ti < 3; ti++)
        for (kind = 0; kind < 3; kind++) {
            const size_t total = totals[ti] - totals[ti] % (size_t)g_size;
            const size_t count = kind == 2 ? total / (size_t)g_size : total;
            const size_t off = kind == 2 ? (size_t)g_rank * count : 0;
            const int root = g_size - 1, has_out = kind != 1 || g_rank == root;
            float *x = malloc(total * 4), *y = malloc(total * 4);
            float lo = INFINITY, hi = -INFINITY, glo, ghi;
            ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
            ghz_status_t st;
            /* 400 KB: a communicator that compresses from 1 MiB, and one from 256 KiB */
            ghz_comm_t* cc = ti == 2 ? auto_comm("1M") : c;
            char what[80];
            snprintf(what, sizeof what, "auto small %s %zu",
                     kind == 0 ? "allreduce" : kind == 1 ? "reduce" : "reduce_scatter", total);
            for (i = 0; i < total; i++) x[i] = (float)(3.0 * sin(0.001 * (double)i * (g_rank + 1)) + g_rank);
            /* a NaN on the last rank: outside the range, NaN in the result where it lands */
            if (g_rank == g_size - 1) x[off + 1] = NAN;
            for (i = 0; i < total; i++)
                if (!isnan(x[i])) {
                    lo = x[i] < lo ? x[i] : lo;
                    hi = x[i] > hi ? x[i] : hi;
                }
            MPI_Allreduce(&lo, &glo, 1, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&hi, &ghi, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
            acc.bound = 1e-4;
            if (!cc) break;
            if (cc != c) {
                ghz_comm_t* lo = auto_comm("256K");
                st = lo ? call_coll(kind, x, y, count, GHZ_F32, GHZ_OP_SUM, root, &acc, lo) : GHZ_ERR_INVALID_ARG;
                if (lo) ghz_comm_info(lo, &info);
                CHECK(st == GHZ_SUCCESS && (g_size == 1 || info.path == GHZ_PATH_HOMO),
                      "%s, from 256 KiB: %s, path %d (compressed expected)", what, ghz_status_string(st),
                      (int)info.path);
                ghz_comm_destroy(lo);
            }
            st = call_coll(kind, x, y, count, GHZ_F32, GHZ_OP_SUM, root, &acc, cc);
            CHECK(st == GHZ_SUCCESS, "%s: %s (%s)", what, ghz_status_string(st), ghz_last_error_detail());
            ghz_comm_info(cc, &info);
            CHECK(st != GHZ_SUCCESS || (info.lossy && info.eb_abs == 0.0 && info.path == GHZ_PATH_AUTO),
                  "%s: lossy %d eb %g path %d (exact expected)", what, info.lossy, info.eb_abs, (int)info.path);
            CHECK(st != GHZ_SUCCESS || info.bound_abs == 1e-4 * ((double)ghi - (double)glo),
                  "%s: bound %.17g, expected 1e-4 x [%g, %g]", what, info.bound_abs, (double)glo, (double)ghi);
            for (i = 0; st == GHZ_SUCCESS && has_out && i < count; i++) {
                double ex = 0;
                int q;
                if (i == 1 && (kind != 2 || g_rank == g_size - 1)) {
                    CHECK(isnan(y[i]), "%s: the NaN's position gives %g", what, y[i]);
                    continue;
                }
                for (q = 0; q < g_size; q++)
                    ex += (float)(3.0 * sin(0.001 * (double)(off + i) * (q + 1)) + q);
                if (!(fabs(y[i] - ex) <= info.bound_abs)) {
                    CHECK(0, "%s: element %zu error %g > %g", what, i, fabs(y[i] - ex), info.bound_abs);
                    break;
                }
            }
            /* below float32's rounding of the sum: refused on every rank */
            x[off + 1] = 1.0f;
            acc.bound = 1e-12;
            st = call_coll(kind, x, y, count, GHZ_F32, GHZ_OP_SUM, root, &acc, cc);
            CHECK(g_size == 1 ? st == GHZ_SUCCESS : st == GHZ_ERR_BAD_BOUND, "%s tiny bound: %s", what,
                  ghz_status_string(st));
            if (cc != c) ghz_comm_destroy(cc);
            free(x);
            free(y);
        }
    ghz_comm_destroy(c);
}

/* Every rank's lossy AUTO call of `n` floats (ABS 0.01): whether it compressed (-1: the
 * call failed, or the ranks ran different paths, or a value broke the bound). */
static int auto_compressed(ghz_comm_t* c, size_t n, float* x, float* y)
{
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    ghz_status_t st;
    int got, lo, hi, bad = 0;
    size_t i;
    acc.mode = GHZ_EB_ABS;
    acc.bound = 0.01;
    acc.path = GHZ_PATH_AUTO;
    for (i = 0; i < n; i++) x[i] = (float)sin(0.0007 * (double)i + g_rank);
    st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c);
    ghz_comm_info(c, &info);
    for (i = 0; st == GHZ_SUCCESS && i < n && !bad; i++) {
        double ex = 0;
        int q;
        for (q = 0; q < g_size; q++) ex += (float)sin(0.0007 * (double)i + q);
        bad = !(fabs(y[i] - ex) <= 0.01);
    }
    got = st != GHZ_SUCCESS || bad ? -1 : info.path == GHZ_PATH_HOMO;
    MPI_Allreduce(&got, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&got, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi ? lo : -1;
}

/* AUTO's threshold (auto_rule.h): measured at init, the same on every rank, a power of
 * two from 64 KiB (or never); GHZ_COLL_AUTO_MIN_BYTES pins it (`never`: no call
 * compresses); and calls decide by it alone, the same way call after call. */
static void edge_auto_rule(void)
{
    const size_t m = (size_t)1 << 18; /* 1 MiB of floats */
    float *x = malloc(m * 4), *y = malloc(m * 4);
    ghz_comm_t* c = auto_comm(NULL);
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    unsigned long long t, tmin, tmax;
    int i;
    if (!c || !x || !y) goto out;
    ghz_comm_info(c, &info);
    t = info.auto_min_bytes;
    MPI_Allreduce(&t, &tmin, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&t, &tmax, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(tmin == tmax, "measured thresholds differ across ranks: %llu to %llu", tmin, tmax);
    CHECK(g_size == 1 ? info.auto_min_bytes == SIZE_MAX
                      : info.auto_min_bytes == SIZE_MAX || (info.auto_min_bytes >= ((size_t)64 << 10) &&
                                                             (info.auto_min_bytes & (info.auto_min_bytes - 1)) == 0),
          "measured threshold %zu", info.auto_min_bytes);
    /* the measured threshold decides (where it is a size this test affords) */
    if (info.auto_min_bytes <= m * 4) {
        const size_t at = info.auto_min_bytes / 4;
        CHECK(auto_compressed(c, at, x, y) == 1, "measured %zu: a call of as many bytes did not compress", at * 4);
        CHECK(auto_compressed(c, at - 1, x, y) == 0, "measured %zu: a call of 4 bytes less compressed", at * 4);
    } else {
        CHECK(auto_compressed(c, m, x, y) == 0, "measured %zu: a call of %zu bytes compressed", info.auto_min_bytes,
              m * 4);
    }
    ghz_comm_destroy(c);
    /* pinned: 1 MiB compresses, 4 bytes less runs exact, every time */
    c = auto_comm("1M");
    if (!c) goto out;
    ghz_comm_info(c, &info);
    CHECK(info.auto_min_bytes == m * 4, "GHZ_COLL_AUTO_MIN_BYTES=1M: threshold %zu", info.auto_min_bytes);
    for (i = 0; i < 3; i++) {
        const int at = auto_compressed(c, m, x, y), below = auto_compressed(c, m - 1, x, y);
        CHECK(at == (g_size > 1), "1M pinned, call %d of 1 MiB: %d", i, at);
        CHECK(below == 0, "1M pinned, call %d of 1 MiB - 4: %d (exact expected)", i, below);
    }
    ghz_comm_destroy(c);
    c = auto_comm("never");
    if (!c) goto out;
    ghz_comm_info(c, &info);
    CHECK(info.auto_min_bytes == SIZE_MAX, "GHZ_COLL_AUTO_MIN_BYTES=never: threshold %zu", info.auto_min_bytes);
    CHECK(auto_compressed(c, m, x, y) == 0, "never: a call of 1 MiB compressed");
out:
    ghz_comm_destroy(c);
    free(x);
    free(y);
}

static int run_edge(void)
{
    const size_t n = 5000;
    ghz_comm_t* c = make_comm(GHZ_ALGO_AUTO, GHZ_ALGO_AUTO, 0, 0);
    float *x = malloc(n * 4), *y = malloc(n * 4), *z = malloc(n * 4);
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_coll_info_t i0 = GHZ_COLL_INFO_INIT, i1 = GHZ_COLL_INFO_INIT;
    ghz_status_t st;
    size_t i;
    int rep;
    if (!c) return mpi_check_finish("edge");
    {
        /* ghz_comm_config's bad arguments (its good ones: make_comm) */
        ghz_comm_config_t got = GHZ_COMM_CONFIG_INIT, before;
        CHECK(ghz_comm_config(c, NULL) == GHZ_ERR_INVALID_ARG && ghz_comm_config(NULL, &got) == GHZ_ERR_INVALID_ARG,
              "ghz_comm_config: NULL accepted");
        got.struct_size = 8;
        before = got;
        CHECK(ghz_comm_config(c, &got) == GHZ_ERR_INVALID_ARG && memcmp(&got, &before, sizeof got) == 0,
              "ghz_comm_config: struct_size 8 accepted, or written");
    }
    acc.path = GHZ_PATH_HOMO;
    acc.mode = GHZ_EB_ABS;
    acc.bound = 0.01;

    /* NaN and Inf: those positions are not finite in the result, the rest is bounded */
    for (i = 0; i < n; i++) x[i] = (float)sin(0.01 * (double)i + g_rank);
    if (g_rank == 0) {
        x[10] = INFINITY;
        x[20] = NAN;
    }
    st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c);
    CHECK(st == GHZ_SUCCESS, "nan/inf: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    CHECK(isinf(y[10]) && y[10] > 0, "inf position gives %g", y[10]);
    CHECK(isnan(y[20]), "nan position gives %g", y[20]);
    for (i = 0; i < n; i++) {
        double ex = 0;
        int q;
        if (i == 10 || i == 20) continue;
        for (q = 0; q < g_size; q++) ex += (float)sin(0.01 * (double)i + q);
        if (!(fabs(y[i] - ex) <= 0.01)) {
            CHECK(0, "nan/inf: element %zu error %g", i, fabs(y[i] - ex));
            break;
        }
    }

    /* reuse: the same buffers, new data, no allocation, each result right */
    ghz_comm_info(c, &i0);
    for (rep = 0; rep < 3; rep++) {
        for (i = 0; i < n; i++) x[i] = (float)(cos(0.003 * (double)i * (rep + 1)) + g_rank + rep);
        st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_MAX, &acc, c);
        CHECK(st == GHZ_SUCCESS, "reuse %d: %s", rep, ghz_status_string(st));
        for (i = 0; i < n; i++) {
            double ex = cos(0.003 * (double)i * (rep + 1)) + (g_size - 1) + rep;
            if (!(fabs(y[i] - ex) <= 0.01 + 1e-6 * fabs(ex))) {
                CHECK(0, "reuse %d: element %zu error %g", rep, i, fabs(y[i] - ex));
                break;
            }
        }
        st = ALLREDUCE(x, z, n, GHZ_F32, GHZ_OP_SUM, NULL, c);
        CHECK(st == GHZ_SUCCESS, "reuse exact %d", rep);
    }
    ghz_comm_info(c, &i1);
    CHECK(i1.allocations == i0.allocations, "calls allocated");

    /* a bound below float32's rounding of an N-rank sum of values near 1e4 */
    for (i = 0; i < n; i++) x[i] = 1e4f + (float)i;
    acc.bound = 1e-6;
    st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c);
    CHECK(g_size == 1 ? st == GHZ_SUCCESS : st == GHZ_ERR_BAD_BOUND, "tiny bound: %s", ghz_status_string(st));

    /* a fill value like -1e34 makes a float32 sum overflow-prone: refused, not wrong */
    x[3] = -1e34f;
    acc.bound = 0.01;
    st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c);
    CHECK(g_size == 1 ? st == GHZ_SUCCESS : st == GHZ_ERR_OVERFLOW || st == GHZ_ERR_BAD_BOUND, "fill: %s",
          ghz_status_string(st));

    /* REL over constant zeros: the bound is 0 and exact zeros are delivered */
    memset(x, 0, n * 4);
    acc.mode = GHZ_EB_REL;
    acc.bound = 1e-3;
    st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c);
    CHECK(st == GHZ_SUCCESS, "REL zeros: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    for (i = 0; i < n; i++)
        if (y[i] != 0) {
            CHECK(0, "REL zeros: element %zu = %g", i, y[i]);
            break;
        }
    /* GHZ_PATH_AUTO: every call keeps the bound, every rank runs the same path, and
     * only a call at or above the threshold compresses */
    {
        const size_t m = 300000;
        float *a = malloc(m * 4), *b = malloc(m * 4);
        int call;
        acc.mode = GHZ_EB_ABS;
        acc.bound = 0.01;
        acc.path = GHZ_PATH_AUTO;
        for (i = 0; i < m; i++) a[i] = (float)sin(0.0007 * (double)i + g_rank);
        for (call = 0; call < 4; call++) {
            ghz_coll_info_t inf = GHZ_COLL_INFO_INIT;
            int path, pmin, pmax;
            st = ALLREDUCE(a, b, m, GHZ_F32, GHZ_OP_SUM, &acc, c);
            CHECK(st == GHZ_SUCCESS, "auto %d: %s", call, ghz_status_string(st));
            ghz_comm_info(c, &inf);
            path = (int)inf.path;
            MPI_Allreduce(&path, &pmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&path, &pmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            CHECK(pmin == pmax, "auto %d: ranks ran different paths", call);
            CHECK(inf.path != GHZ_PATH_HOMO || m * 4 >= inf.auto_min_bytes, "auto %d: compressed below %zu bytes",
                  call, inf.auto_min_bytes);
            for (i = 0; i < m; i++) {
                double ex = 0;
                int q;
                for (q = 0; q < g_size; q++) ex += (float)sin(0.0007 * (double)i + q);
                if (!(fabs(b[i] - ex) <= 0.01)) {
                    CHECK(0, "auto %d: element %zu error %g", call, i, fabs(b[i] - ex));
                    break;
                }
            }
        }
        free(a);
        free(b);
    }

    ghz_comm_destroy(c);

    /* the defaults (NULL configuration) work */
    c = NULL;
    st = ghz_comm_init(MPI_COMM_WORLD, NULL, &c);
    CHECK(st == GHZ_SUCCESS, "NULL config: %s", ghz_status_string(st));
    for (i = 0; i < n; i++) x[i] = (float)(i % 7);
    /* (host buffers: the default backend is the CPU's, also in the CUDA test build) */
    if (c) st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_SUCCESS, "NULL config allreduce: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    for (i = 0; i < n; i++)
        if (y[i] != (float)(i % 7) * (float)g_size) {
            CHECK(0, "NULL config: element %zu", i);
            break;
        }
    ghz_comm_destroy(c);
    free(x);
    free(y);
    free(z);
    edge_direct();
    edge_auto_small();
    edge_auto_rule();
#ifdef GHZ_TEST_CUDA
    edge_graph();
#endif
    return mpi_check_finish("edge");
}

/* ---- errors ---------------------------------------------------------------------- */

static int run_errors(void)
{
    const size_t n = 1000;
    ghz_comm_t* c = make_comm(GHZ_ALGO_AUTO, GHZ_ALGO_AUTO, 0, 0);
    float *x = malloc(n * 4 * 64), *y = malloc(n * 4 * 64);
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    const int odd = g_size - 1; /* the rank that misbehaves */
    ghz_status_t st;
    size_t i;
    if (!c) return mpi_check_finish("errors");
    for (i = 0; i < n * 64; i++) x[i] = (float)sin(0.001 * (double)i);
    acc.mode = GHZ_EB_ABS;
    acc.bound = 1e-2;

#define EXPECT_ALL(call, mine, others, what)                                                   \
    do {                                                                                       \
        memset(y, 0x5A, n * 4);                                                                \
        st = call;                                                                             \
        if (g_size == 1) break;                                                                \
        CHECK(st == (g_rank == odd ? (mine) : (others)), "%s: rank %d got %s (%s)", what, g_rank, \
              ghz_status_string(st), ghz_last_error_detail());                                 \
    } while (0)

    EXPECT_ALL(ALLREDUCE(x, y, g_rank == odd ? n - 1 : n, GHZ_F32, GHZ_OP_SUM, NULL, c),
               GHZ_ERR_MISMATCH, GHZ_ERR_MISMATCH, "count");
    {   /* the output is untouched when the agreement fails */
        unsigned char guard[16];
        memset(guard, 0x5A, sizeof guard);
        CHECK(g_size == 1 || memcmp(y, guard, sizeof guard) == 0, "output written on a failed call");
    }
    EXPECT_ALL(ALLREDUCE(x, y, n, g_rank == odd ? GHZ_F64 : GHZ_F32, GHZ_OP_SUM, NULL, c),
               GHZ_ERR_MISMATCH, GHZ_ERR_MISMATCH, "dtype");
    EXPECT_ALL(ALLREDUCE(x, y, n, GHZ_F32, g_rank == odd ? GHZ_OP_MAX : GHZ_OP_SUM, NULL, c),
               GHZ_ERR_MISMATCH, GHZ_ERR_MISMATCH, "op");
    EXPECT_ALL(ALLREDUCE(g_rank == odd ? NULL : x, y, n, GHZ_F32, GHZ_OP_SUM, NULL, c),
               GHZ_ERR_INVALID_ARG, GHZ_ERR_PEER, "NULL sendbuf");
    EXPECT_ALL(ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, g_rank == odd ? NULL : &acc, c),
               GHZ_ERR_MISMATCH, GHZ_ERR_MISMATCH, "accuracy on some ranks only");
    {
        ghz_accuracy_t other = acc;
        if (g_rank == odd) other.bound = 2e-2;
        EXPECT_ALL(ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, &other, c), GHZ_ERR_MISMATCH,
                   GHZ_ERR_MISMATCH, "bound");
        if (g_rank == odd) other.bound = NAN;
        EXPECT_ALL(ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, &other, c), GHZ_ERR_BAD_BOUND,
                   GHZ_ERR_PEER, "NaN bound");
        if (g_rank == odd) other.bound = 0;
        EXPECT_ALL(ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, &other, c), GHZ_ERR_BAD_BOUND,
                   GHZ_ERR_PEER, "zero bound");
    }
    EXPECT_ALL(REDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, g_rank == odd ? g_size : 0, NULL, c),
               GHZ_ERR_INVALID_ARG, GHZ_ERR_PEER, "root out of range");
    EXPECT_ALL(REDUCE(x, y, n, GHZ_F32, GHZ_OP_SUM, g_rank == odd ? 0 : odd, NULL, c),
               GHZ_ERR_MISMATCH, GHZ_ERR_MISMATCH, "root");
    EXPECT_ALL(REDUCE_SCATTER(x, y, g_rank == odd ? n + 1 : n, GHZ_F32, GHZ_OP_SUM, NULL, c),
               GHZ_ERR_MISMATCH, GHZ_ERR_MISMATCH, "reduce_scatter count");
    EXPECT_ALL(ALLREDUCE(x, y, n, GHZ_F32, (ghz_op_t)(g_rank == odd ? 99 : 0), NULL, c),
               GHZ_ERR_INVALID_ARG, GHZ_ERR_PEER, "unknown op");
    /* every rank wrong alike: each reports it */
    st = ALLREDUCE(x, y, n, GHZ_I32, GHZ_OP_SUM, &acc, c);
    CHECK(st == GHZ_ERR_UNSUPPORTED, "lossy int32: %s", ghz_status_string(st));
    st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_PROD, &acc, c);
    CHECK(st == GHZ_ERR_UNSUPPORTED, "lossy prod: %s", ghz_status_string(st));
    st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_BAND, NULL, c);
    CHECK(st == GHZ_ERR_UNSUPPORTED, "float band: %s", ghz_status_string(st));
    /* and the communicator still works afterwards */
    st = ALLREDUCE(x, y, n, GHZ_F32, GHZ_OP_MAX, NULL, c);
    CHECK(st == GHZ_SUCCESS, "after errors: %s", ghz_status_string(st));
    for (i = 0; i < n; i++)
        if (y[i] != x[i]) {
            CHECK(0, "after errors: element %zu", i);
            break;
        }
    ghz_comm_destroy(c);

    /* transports: CUDA IPC needs the CUDA backend (refused on the CPU one, on every
     * rank); an unknown value, in the field or in GHZ_COLL_TRANSPORT, is refused */
    {
        ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
        ghz_comm_t* d = NULL;
        const char* env = getenv("GHZ_COLL_TRANSPORT");
        char keep[64] = "";
        if (g_rank == odd) cfg.transport = GHZ_TRANSPORT_CUDA_IPC;
        st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &d);
        CHECK(st == (g_rank == odd ? GHZ_ERR_UNSUPPORTED : GHZ_ERR_PEER) && d == NULL,
              "CUDA IPC on the CPU backend: rank %d got %s (%s)", g_rank, ghz_status_string(st),
              ghz_last_error_detail());
        ghz_comm_destroy(d);
        d = NULL;
        cfg.transport = (ghz_transport_t)7;
        st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &d);
        CHECK(st == GHZ_ERR_INVALID_ARG && d == NULL, "transport 7: %s", ghz_status_string(st));
        ghz_comm_destroy(d);
        d = NULL;
        cfg.transport = GHZ_TRANSPORT_AUTO;
        if (env) strncpy(keep, env, sizeof keep - 1);
        if (g_rank == odd) setenv("GHZ_COLL_TRANSPORT", "infiniband", 1);
        st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &d);
        if (env) setenv("GHZ_COLL_TRANSPORT", keep, 1);
        else unsetenv("GHZ_COLL_TRANSPORT");
        CHECK(st == (g_rank == odd ? GHZ_ERR_INVALID_ARG : GHZ_ERR_PEER) && d == NULL,
              "GHZ_COLL_TRANSPORT=infiniband: rank %d got %s", g_rank, ghz_status_string(st));
        ghz_comm_destroy(d);
    }

    /* configurations that differ across ranks are refused at init, everywhere */
    {
        ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
        ghz_comm_t* d = NULL;
        if (g_rank == odd) cfg.allreduce_algo = GHZ_ALGO_RING;
        st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &d);
        CHECK(g_size == 1 ? st == GHZ_SUCCESS : st == GHZ_ERR_MISMATCH && d == NULL, "config mismatch: %s",
              ghz_status_string(st));
        ghz_comm_destroy(d);
    }
    free(x);
    free(y);
    return mpi_check_finish("errors");
}

/* ---- two levels ----------------------------------------------------------------- */

/* Run with GHZ_COLL_RANKS_PER_NODE=r (CTest sets it): ranks [k r, (k+1) r) form node k.
 * Both two-level algorithms against the exact reference and the lossy bound, or
 * refused everywhere when the layout does not allow them. */
static int run_two_level(void)
{
    static const ghz_algo_t algos[] = {GHZ_ALGO_TWO_LEVEL, GHZ_ALGO_TWO_LEVEL_MULTI};
    static const size_t counts[] = {0, 1, 7, 1001, 20011};
    const char* env = getenv("GHZ_COLL_RANKS_PER_NODE");
    const int rpn = env ? atoi(env) : 0;
    const int nodes = rpn > 0 ? (g_size + rpn - 1) / rpn : 1;
    const int several = rpn > 0 && nodes > 1 && nodes < g_size, uniform = rpn > 0 && g_size % rpn == 0;
    const size_t maxc = 20011 + 64;
    void* in[64];
    unsigned char *send = malloc(maxc * 8), *recv = malloc(maxc * 8 + 64);
    size_t a, ci, q;
    for (q = 0; q < (size_t)g_size; q++) in[q] = malloc(maxc * 8);
    for (a = 0; a < 2; a++) {
        ghz_comm_t* c = make_comm(algos[a], GHZ_ALGO_AUTO, 256 << 10, 16 << 10);
        const int ok = several && (a == 0 || uniform);
        if (!c) break;
        if (!ok) {
            float x = 1, y = 0;
            ghz_status_t st = ALLREDUCE(&x, &y, 1, GHZ_F32, GHZ_OP_SUM, NULL, c);
            CHECK(st == GHZ_ERR_UNSUPPORTED, "%s on %d ranks, %d per node: %s", ghz_algo_name(algos[a]), g_size, rpn,
                  ghz_status_string(st));
            ghz_comm_destroy(c);
            continue;
        }
        for (ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
            int ip;
            for (ip = 0; ip < 2; ip++) {
                test_exact_case(c, 0, GHZ_F32, GHZ_OP_SUM, counts[ci], ip, in, send, recv);
                test_exact_case(c, 0, GHZ_I32, GHZ_OP_BXOR, counts[ci], ip, in, send, recv);
                test_exact_case(c, 0, GHZ_F64, GHZ_OP_MAX, counts[ci], ip, in, send, recv);
            }
        }
        {
            static const ghz_op_t ops[] = {GHZ_OP_SUM, GHZ_OP_AVG, GHZ_OP_MAX};
            int oi, p, t;
            for (t = 0; t < 2; t++)
                for (oi = 0; oi < 3; oi++)
                    for (p = 0; p < 2; p++) {
                        double ratio = 0, r;
                        ghz_coll_info_t inf = GHZ_COLL_INFO_INIT;
                        r = lossy_case(c, t ? GHZ_F64 : GHZ_F32, ops[oi], p ? GHZ_PATH_DOC : GHZ_PATH_HOMO,
                                       (oi & 1) ? GHZ_EB_ABS : GHZ_EB_REL, (oi & 1) ? abs_bound(1e-3) : 1e-3, 20011,
                                       0, p, in, send, recv, &ratio);
                        ghz_comm_info(c, &inf);
                        CHECK(inf.algo == algos[a], "ran %s", ghz_algo_name(inf.algo));
                        CHECK(r <= 1.0, "two-level error / bound %g", r);
                        if (g_rank == 0 && getenv("GHZ_TEST_VERBOSE"))
                            printf("%s %s %s: err/bound %.3f ratio %.2f K %g\n", ghz_algo_name(algos[a]),
                                   ghz_op_name(ops[oi]), p ? "doc" : "homo", r, ratio, inf.error_terms);
                    }
        }
        ghz_comm_destroy(c);
    }
    if (several) {
        /* AUTO takes two levels for a lossy allreduce over several nodes */
        ghz_comm_t* c = make_comm(GHZ_ALGO_AUTO, GHZ_ALGO_AUTO, 256 << 10, 16 << 10);
        double ratio = 0;
        ghz_coll_info_t inf = GHZ_COLL_INFO_INIT;
        if (c) {
            lossy_case(c, GHZ_F32, GHZ_OP_SUM, GHZ_PATH_HOMO, GHZ_EB_REL, 1e-3, 20011, 0, 0, in, send, recv, &ratio);
            ghz_comm_info(c, &inf);
            CHECK(inf.algo == (uniform ? GHZ_ALGO_TWO_LEVEL_MULTI : GHZ_ALGO_TWO_LEVEL), "AUTO ran %s",
                  ghz_algo_name(inf.algo));
            ghz_comm_destroy(c);
        }
    }
    for (q = 0; q < (size_t)g_size; q++) free(in[q]);
    free(send);
    free(recv);
    return mpi_check_finish("two_level");
}

#ifdef GHZ_TEST_CUDA
/* One GPU per rank where the node has several, as an application places its ranks
 * (node-local rank modulo the device count); ranks share a GPU where there are fewer
 * GPUs than ranks. Ranks on different GPUs make the CUDA IPC transport read peer
 * memory across the GPUs' link instead of within one device. */
static void pick_device(void)
{
    MPI_Comm node;
    int local = 0, ndev = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
    int local_size = 1;
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &local_size);
    MPI_Comm_free(&node);
    if (cudaGetDeviceCount(&ndev) == cudaSuccess && ndev > 1) cudaSetDevice(local % ndev);
    g_shared_gpu = local_size > ndev;
}
#endif

int main(int argc, char** argv)
{
    int fails = 0;
    const char* what = argc > 1 ? argv[1] : "exact";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    mpi_check_rank = g_rank;
#ifdef GHZ_TEST_CUDA
    pick_device();
#endif
    if (g_size > 64) {
        if (g_rank == 0) fprintf(stderr, "at most 64 ranks\n");
        MPI_Finalize();
        return 2;
    }
    if (strcmp(what, "exact") == 0) fails = run_exact();
    else if (strcmp(what, "lossy") == 0) fails = run_lossy();
    else if (strcmp(what, "edge") == 0) fails = run_edge();
    else if (strcmp(what, "errors") == 0) fails = run_errors();
    else if (strcmp(what, "two_level") == 0) fails = run_two_level();
    else {
        if (g_rank == 0) fprintf(stderr, "usage: test_coll_mpi exact|lossy|edge|errors|two_level\n");
        fails = 1;
    }
    MPI_Finalize();
    return fails ? 1 : 0;
}
