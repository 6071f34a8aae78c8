/* test/coll/mpi_nccl.c: ghz/coll over the NCCL transport (GPU machines, one rank per
 * GPU; run by mpirun, label gpu).
 *
 * Every call's result is checked against a reference computed on the host from every
 * rank's input (each rank makes them all from the same seed): exact calls within the
 * rounding of a sum of N terms in any order (integers: bit for bit), lossy calls
 * within the bound the call reports, on every element; every rank gets the same bits.
 * Parts: `calls` (every collective, exact over NCCL's own calls and over the fold for
 * what NCCL cannot reduce, lossy HOMO and AVG / MIN / MAX, in place and out of place,
 * counts 0, 1 and odd, several rounds and pieces), `auto` (AUTO's size rule, pinned by
 * GHZ_COLL_AUTO_MIN_BYTES), `errors` (a wrong argument on one rank: an error on every
 * rank, no hang), `graph` (an exact allreduce captured in a CUDA graph and replayed),
 * `small` (a few calls of every kind of kernel work, for compute-sanitizer),
 * `two_level` (GHZ_COLL_RANKS_PER_NODE set: nodes of that many ranks; a lossy allreduce
 * by each two-level algorithm, named and AUTO's, compressed across nodes only: K over
 * the node count; exact calls NCCL's own; refusals and mismatches on every rank; one
 * rank that cannot make the children fails the call on every rank, and a later call
 * makes them).
 * A machine with fewer GPUs than ranks skips (77: NCCL takes one rank per GPU). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "ghz/coll/coll_mpi.h"
#include "mpi_check.h"

static int g_rank, g_size;
/* The algorithm a call with elements must report (a lossy one that ran exact: nccl). */
static ghz_algo_t g_expect_algo = GHZ_ALGO_NCCL;

enum { K_ALLREDUCE = 0, K_REDUCE = 1, K_REDUCE_SCATTER = 2 };

/* Deterministic inputs: rank r's element i, as doubles (converted to the dtype). */
static double value(int r, size_t i, int kind_of_data)
{
    const double x = (double)i * 0.001 + r * 0.37;
    switch (kind_of_data) {
    case 0: return sin(x) * 100.0 + r;                  /* smooth, signed */
    case 1: return (double)(((i * 2654435761u) ^ (unsigned)r * 40503u) % 97); /* small integers */
    default: return (i % 13 == 0) ? -1e3 + r : cos(x * 3.0) * 5.0;
    }
}

static void fill(void* buf, ghz_dtype_t t, int r, size_t n, int kd)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const double v = value(r, i, kd);
        switch (t) {
        case GHZ_F32: ((float*)buf)[i] = (float)v; break;
        case GHZ_F64: ((double*)buf)[i] = v; break;
        case GHZ_I8: ((int8_t*)buf)[i] = (int8_t)((long)v & 0x7f); break;
        case GHZ_U8: ((uint8_t*)buf)[i] = (uint8_t)((long)v & 0xff); break;
        case GHZ_I16: ((int16_t*)buf)[i] = (int16_t)(long)v; break;
        case GHZ_U16: ((uint16_t*)buf)[i] = (uint16_t)(long)v; break;
        case GHZ_I32: ((int32_t*)buf)[i] = (int32_t)(long)v; break;
        case GHZ_U32: ((uint32_t*)buf)[i] = (uint32_t)(long)v; break;
        case GHZ_I64: ((int64_t*)buf)[i] = (int64_t)(long)v; break;
        default: ((uint64_t*)buf)[i] = (uint64_t)(long)v; break;
        }
    }
}

static double load(const void* buf, ghz_dtype_t t, size_t i)
{
    switch (t) {
    case GHZ_F32: return ((const float*)buf)[i];
    case GHZ_F64: return ((const double*)buf)[i];
    default: return 0.0;
    }
}

static uint64_t load_bits(const void* buf, ghz_dtype_t t, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, (const unsigned char*)buf + i * ghz_dtype_size(t), ghz_dtype_size(t));
    return v;
}

/* The exact integer op on the low `bits` bits (wrapping), as ghz defines it. */
static uint64_t int_op(uint64_t a, uint64_t b, ghz_op_t op, ghz_dtype_t t)
{
    const size_t bits = 8 * ghz_dtype_size(t);
    const uint64_t mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
    const int sgn = t == GHZ_I8 || t == GHZ_I16 || t == GHZ_I32 || t == GHZ_I64;
    int64_t sa = (int64_t)(a << (64 - bits)) >> (64 - bits), sb = (int64_t)(b << (64 - bits)) >> (64 - bits);
    uint64_t r;
    switch (op) {
    case GHZ_OP_SUM: r = a + b; break;
    case GHZ_OP_PROD: r = a * b; break;
    case GHZ_OP_MIN: r = sgn ? (sb < sa ? b : a) : ((b & mask) < (a & mask) ? b : a); break;
    case GHZ_OP_MAX: r = sgn ? (sb > sa ? b : a) : ((b & mask) > (a & mask) ? b : a); break;
    case GHZ_OP_BAND: r = a & b; break;
    case GHZ_OP_BOR: r = a | b; break;
    case GHZ_OP_BXOR: r = a ^ b; break;
    case GHZ_OP_LAND: r = (a & mask) && (b & mask); break;
    case GHZ_OP_LOR: r = (a & mask) || (b & mask); break;
    default: r = ((a & mask) != 0) != ((b & mask) != 0); break;
    }
    return r & mask;
}

static void* dev_copy(const void* host, size_t bytes)
{
    void* d = NULL;
    CHECK(cudaMalloc(&d, bytes ? bytes : 16) == cudaSuccess, "cudaMalloc %zu", bytes);
    if (d && host && bytes) cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice);
    return d;
}

static ghz_comm_t* make_algo(size_t pool, size_t chunk, ghz_algo_t allreduce_algo)
{
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    ghz_comm_config_t got = GHZ_COMM_CONFIG_INIT;
    ghz_comm_t* c = NULL;
    ghz_status_t st;
    cfg.backend = GHZ_EXEC_CUDA;
    cfg.pool_bytes = pool;
    cfg.chunk_bytes = chunk;
    cfg.allreduce_algo = allreduce_algo;
    st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &c);
    CHECK(st == GHZ_SUCCESS, "ghz_comm_init: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    if (c) {
        ghz_comm_config(c, &got);
        /* with a GPU per rank, AUTO's transport is NCCL */
        CHECK(got.transport == GHZ_TRANSPORT_NCCL, "transport %d, expected NCCL", (int)got.transport);
    }
    return c;
}

static ghz_comm_t* make(size_t pool, size_t chunk)
{
    return make_algo(pool, chunk, GHZ_ALGO_AUTO);
}

/* Every rank's bytes are the same (a hash compared over ranks). */
static int same_everywhere(const void* buf, size_t bytes)
{
    uint64_t h = 1469598103934665603ull, lo, hi;
    size_t i;
    for (i = 0; i < bytes; i++) h = (h ^ ((const unsigned char*)buf)[i]) * 1099511628211ull;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* One call and its check. in_place: NCCL's form (sendbuf == recvbuf, reduce_scatter's
 * recvbuf at this rank's block). acc NULL: exact. Returns the call's status. */
static ghz_status_t one(ghz_comm_t* c, int kind, size_t count, ghz_dtype_t t, ghz_op_t op, int root,
                        const ghz_accuracy_t* acc, int in_place, int kd, const char* what)
{
    const size_t e = ghz_dtype_size(t), N = (size_t)g_size;
    const size_t in_n = kind == K_REDUCE_SCATTER ? count * N : count;
    const size_t first = kind == K_REDUCE_SCATTER ? (size_t)g_rank * count : 0;
    const int gets = kind != K_REDUCE || g_rank == root;
    unsigned char *h_in = malloc(in_n * e + 16), *h_out = malloc(in_n * e + 16), *all = malloc(N * in_n * e + 16);
    unsigned char *d_in, *d_out;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    ghz_status_t st;
    size_t i, wrong = 0;
    int q;
    double worst = 0.0;
    for (q = 0; q < g_size; q++) fill(all + (size_t)q * in_n * e, t, q, in_n, kd);
    memcpy(h_in, all + (size_t)g_rank * in_n * e, in_n * e);
    d_in = dev_copy(h_in, in_n * e);
    d_out = in_place ? d_in : dev_copy(NULL, in_n * e);
    {
        unsigned char* out = in_place && kind == K_REDUCE_SCATTER ? d_in + first * e : d_out;
        st = kind == K_ALLREDUCE ? ghz_allreduce(d_in, out, count, t, op, acc, c, NULL)
             : kind == K_REDUCE  ? ghz_reduce(d_in, out, count, t, op, root, acc, c, NULL)
                                 : ghz_reduce_scatter(d_in, out, count, t, op, acc, c, NULL);
        cudaDeviceSynchronize();
        if (st == GHZ_SUCCESS && gets && count)
            cudaMemcpy(h_out, out, count * e, cudaMemcpyDeviceToHost);
    }
    ghz_comm_info(c, &info);
    if (st == GHZ_SUCCESS && gets) {
        for (i = 0; i < count; i++) {
            const size_t j = first + i;
            if (t == GHZ_F32 || t == GHZ_F64) {
                double ex = load(all, t, j), mag = fabs(ex), got = load(h_out, t, i), tol, err;
                for (q = 1; q < g_size; q++) {
                    const double v = load(all + (size_t)q * in_n * e, t, j);
                    ex = op == GHZ_OP_MIN ? (v < ex ? v : ex) : op == GHZ_OP_MAX ? (v > ex ? v : ex) : ex + v;
                    mag += fabs(v);
                }
                if (op == GHZ_OP_AVG) {
                    ex /= g_size;
                    mag /= g_size;
                }
                tol = (g_size + 3) * (t == GHZ_F32 ? ldexp(1.0, -24) : ldexp(1.0, -53)) * mag +
                      (acc ? info.bound_abs : 0.0);
                err = fabs(got - ex);
                if (acc && info.bound_abs > 0) worst = fmax(worst, err / info.bound_abs);
                if (!(err <= tol)) wrong++;
            } else {
                uint64_t ex = load_bits(all, t, j);
                for (q = 1; q < g_size; q++) ex = int_op(ex, load_bits(all + (size_t)q * in_n * e, t, j), op, t);
                wrong += ex != load_bits(h_out, t, i);
            }
        }
        CHECK(wrong == 0, "%s: %zu of %zu elements wrong (%s %s, count %zu, %s, %s, bound %g)", what, wrong, count,
              ghz_dtype_name(t), ghz_op_name(op), count, in_place ? "in place" : "out of place",
              acc ? "lossy" : "exact", info.bound_abs);
        CHECK(info.algo == (acc && info.eb_abs == 0.0 ? GHZ_ALGO_NCCL : g_expect_algo) || count == 0,
              "%s: algorithm %s, expected %s", what, ghz_algo_name(info.algo), ghz_algo_name(g_expect_algo));
        (void)worst;
    }
    if (kind == K_ALLREDUCE && st == GHZ_SUCCESS)
        CHECK(same_everywhere(h_out, count * e), "%s: the ranks' results differ", what);
    if (!in_place) cudaFree(d_out);
    cudaFree(d_in);
    free(h_in);
    free(h_out);
    free(all);
    return st;
}

static int part_calls(void)
{
    static const ghz_dtype_t exact_types[] = {GHZ_F32, GHZ_F64, GHZ_I8, GHZ_U8, GHZ_I16, GHZ_I32, GHZ_U64};
    static const size_t counts[] = {0, 1, 7, 100003};
    ghz_comm_t* c = make(0, 0);
    /* a small pool and small pieces: several rounds and several pieces a segment */
    ghz_comm_t* small = make(4 << 20, 64 << 10);
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    size_t ti, ci;
    int kind, ip;
    if (!c || !small) return mpi_check_finish("nccl calls");
    for (kind = 0; kind < 3; kind++)
        for (ip = 0; ip < 2; ip++)
            for (ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
                for (ti = 0; ti < sizeof exact_types / sizeof exact_types[0]; ti++) {
                    const ghz_dtype_t t = exact_types[ti];
                    const int kd = t == GHZ_F32 || t == GHZ_F64 ? 0 : 1;
                    ghz_status_t st = one(c, kind, counts[ci], t, GHZ_OP_SUM, 1 % g_size, NULL, ip, kd, "exact sum");
                    CHECK(st == GHZ_SUCCESS, "exact sum %s: %s (%s)", ghz_dtype_name(t), ghz_status_string(st),
                          ghz_last_error_detail());
                }
                /* NCCL's own (max on ints, avg) and the fold (float min, bitwise, int16) */
                CHECK(one(c, kind, counts[ci], GHZ_I32, GHZ_OP_MAX, 0, NULL, ip, 1, "exact int max") == GHZ_SUCCESS,
                      "int max");
                CHECK(one(c, kind, counts[ci], GHZ_F64, GHZ_OP_AVG, 0, NULL, ip, 0, "exact avg") == GHZ_SUCCESS, "avg");
                CHECK(one(c, kind, counts[ci], GHZ_F32, GHZ_OP_MIN, 0, NULL, ip, 2, "exact float min") == GHZ_SUCCESS,
                      "float min");
                CHECK(one(c, kind, counts[ci], GHZ_U16, GHZ_OP_BXOR, 0, NULL, ip, 1, "exact bxor") == GHZ_SUCCESS,
                      "bxor");
                CHECK(one(small, kind, counts[ci], GHZ_I16, GHZ_OP_SUM, 0, NULL, ip, 1, "exact i16 rounds") ==
                          GHZ_SUCCESS,
                      "i16 rounds");
                /* lossy, homomorphic */
                acc.path = GHZ_PATH_HOMO;
                acc.mode = GHZ_EB_REL;
                acc.bound = 1e-4;
                CHECK(one(c, kind, counts[ci], GHZ_F32, GHZ_OP_SUM, 0, &acc, ip, 0, "lossy rel sum") == GHZ_SUCCESS,
                      "lossy rel sum: %s", ghz_last_error_detail());
                CHECK(one(small, kind, counts[ci], GHZ_F64, GHZ_OP_AVG, 0, &acc, ip, 0, "lossy avg rounds") ==
                          GHZ_SUCCESS,
                      "lossy avg: %s", ghz_last_error_detail());
                acc.mode = GHZ_EB_ABS;
                acc.bound = 1e-2;
                CHECK(one(c, kind, counts[ci], GHZ_F32, GHZ_OP_MAX, 0, &acc, ip, 2, "lossy abs max") == GHZ_SUCCESS,
                      "lossy max: %s", ghz_last_error_detail());
                CHECK(one(small, kind, counts[ci], GHZ_F32, GHZ_OP_MIN, 0, &acc, ip, 2, "lossy abs min rounds") ==
                          GHZ_SUCCESS,
                      "lossy min: %s", ghz_last_error_detail());
                acc.path = GHZ_PATH_DOC;
                CHECK(one(c, kind, counts[ci], GHZ_F32, GHZ_OP_SUM, 0, &acc, ip, 0, "lossy doc") == GHZ_SUCCESS,
                      "lossy doc: %s", ghz_last_error_detail());
            }
    ghz_comm_destroy(small);
    ghz_comm_destroy(c);
    return mpi_check_finish("nccl calls");
}

/* A few calls of each kind of kernel work (compress, n-ary sum, pairwise min fold,
 * decode, the exact fold), for compute-sanitizer, where every call is slow. */
static int part_small(void)
{
    ghz_comm_t* c = make(4 << 20, 64 << 10);
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    int kind;
    if (!c) return mpi_check_finish("nccl small");
    acc.path = GHZ_PATH_HOMO;
    for (kind = 0; kind < 3; kind++) {
        CHECK(one(c, kind, 100003, GHZ_F32, GHZ_OP_SUM, 0, &acc, kind == 1, 0, "small lossy sum") == GHZ_SUCCESS,
              "%s", ghz_last_error_detail());
        CHECK(one(c, kind, 7, GHZ_F64, GHZ_OP_MAX, 0, &acc, 0, 2, "small lossy max") == GHZ_SUCCESS, "%s",
              ghz_last_error_detail());
        CHECK(one(c, kind, 20000, GHZ_I16, GHZ_OP_SUM, 0, NULL, 1, 1, "small exact i16") == GHZ_SUCCESS, "%s",
              ghz_last_error_detail());
        CHECK(one(c, kind, 20000, GHZ_F32, GHZ_OP_SUM, 0, NULL, 0, 0, "small exact f32") == GHZ_SUCCESS, "%s",
              ghz_last_error_detail());
    }
    ghz_comm_destroy(c);
    return mpi_check_finish("nccl small");
}

static int part_auto(void)
{
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    ghz_comm_t* c;
    ghz_status_t st;
    setenv("GHZ_COLL_AUTO_MIN_BYTES", "1M", 1);
    c = make(0, 0);
    unsetenv("GHZ_COLL_AUTO_MIN_BYTES");
    if (!c) return mpi_check_finish("nccl auto");
    /* below the pinned size: NCCL's exact call; from it on: compressed */
    st = one(c, K_ALLREDUCE, (512 << 10) / 4, GHZ_F32, GHZ_OP_SUM, 0, &acc, 0, 0, "auto small");
    ghz_comm_info(c, &info);
    CHECK(st == GHZ_SUCCESS && info.lossy && info.path == GHZ_PATH_AUTO && info.eb_abs == 0.0,
          "auto below the threshold: %s, path %d, eb %g", ghz_status_string(st), (int)info.path, info.eb_abs);
    st = one(c, K_ALLREDUCE, (4 << 20) / 4, GHZ_F32, GHZ_OP_SUM, 0, &acc, 0, 0, "auto large");
    ghz_comm_info(c, &info);
    CHECK(st == GHZ_SUCCESS && info.path == GHZ_PATH_HOMO && info.wire_bytes < info.logical_bytes,
          "auto above the threshold: %s, path %d, wire %llu of %llu", ghz_status_string(st), (int)info.path,
          (unsigned long long)info.wire_bytes, (unsigned long long)info.logical_bytes);
    ghz_comm_destroy(c);
    /* a bad value is refused at init on every rank */
    setenv("GHZ_COLL_AUTO_MIN_BYTES", "lots", 1);
    {
        ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
        ghz_comm_t* bad = NULL;
        cfg.backend = GHZ_EXEC_CUDA;
        st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &bad);
        CHECK(st == GHZ_ERR_INVALID_ARG && !bad, "GHZ_COLL_AUTO_MIN_BYTES=lots: %s", ghz_status_string(st));
        ghz_comm_destroy(bad);
    }
    unsetenv("GHZ_COLL_AUTO_MIN_BYTES");
    return mpi_check_finish("nccl auto");
}

static int part_errors(void)
{
    ghz_comm_t* c = make(0, 0);
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    const int odd = g_size - 1;
    float* d = NULL;
    ghz_status_t st;
    int lossy;
    if (!c) return mpi_check_finish("nccl errors");
    cudaMalloc((void**)&d, 4096 * sizeof(float) * (size_t)g_size);
    cudaMemset(d, 0, 4096 * sizeof(float) * (size_t)g_size);
    for (lossy = 0; lossy < 2; lossy++) {
        acc.path = GHZ_PATH_HOMO;
        /* a different count on one rank */
        st = ghz_allreduce(d, d, g_rank == odd ? 1000 : 1001, GHZ_F32, GHZ_OP_SUM, lossy ? &acc : NULL, c, NULL);
        CHECK(g_size == 1 || st == GHZ_ERR_MISMATCH, "count mismatch: %s", ghz_status_string(st));
        /* a NULL buffer on one rank */
        st = ghz_allreduce(g_rank == odd ? NULL : d, d, 1000, GHZ_F32, GHZ_OP_SUM, lossy ? &acc : NULL, c, NULL);
        CHECK(g_rank == odd ? st == GHZ_ERR_INVALID_ARG : st == GHZ_ERR_PEER, "NULL buffer: %s",
              ghz_status_string(st));
        /* a bad bound on one rank */
        acc.bound = g_rank == odd ? -1.0 : 1e-4;
        st = ghz_reduce_scatter(d, d, 1000, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
        CHECK(st != GHZ_SUCCESS, "bad bound on rank %d: %s", odd, ghz_status_string(st));
        acc.bound = 1e-4;
        /* and the communicator still works */
        st = ghz_allreduce(d, d, 1000, GHZ_F32, GHZ_OP_SUM, lossy ? &acc : NULL, c, NULL);
        CHECK(st == GHZ_SUCCESS, "after the errors: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    }
    /* a named algorithm that NCCL does not run */
    {
        ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
        ghz_comm_t* ring = NULL;
        cfg.backend = GHZ_EXEC_CUDA;
        cfg.allreduce_algo = GHZ_ALGO_RING;
        st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &ring);
        if (st == GHZ_SUCCESS) {
            st = ghz_allreduce(d, d, 100, GHZ_F32, GHZ_OP_SUM, NULL, ring, NULL);
            CHECK(st == GHZ_ERR_UNSUPPORTED, "ring over NCCL: %s", ghz_status_string(st));
        }
        ghz_comm_destroy(ring);
    }
    cudaFree(d);
    ghz_comm_destroy(c);
    return mpi_check_finish("nccl errors");
}

static int part_graph(void)
{
    ghz_comm_t* c = make(0, 0);
    const size_t n = 1 << 16;
    float *h = malloc(n * sizeof *h), *d = NULL;
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    ghz_status_t st;
    size_t i, wrong = 0;
    int rep;
    if (!c) return mpi_check_finish("nccl graph");
    cudaStreamCreate(&s);
    for (i = 0; i < n; i++) h[i] = (float)(i % 17);
    d = dev_copy(h, n * sizeof *h);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    st = ghz_allreduce(d, d, n, GHZ_F32, GHZ_OP_SUM, NULL, c, (ghz_stream_t)s);
    cudaStreamEndCapture(s, &g);
    CHECK(st == GHZ_SUCCESS, "captured allreduce: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    if (st == GHZ_SUCCESS && cudaGraphInstantiate(&ge, g, 0) == cudaSuccess) {
        for (rep = 0; rep < 3; rep++) cudaGraphLaunch(ge, s);
        cudaStreamSynchronize(s);
        cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost);
        /* three replays in place: (i % 17) * N^3 */
        for (i = 0; i < n; i++) wrong += h[i] != (float)(i % 17) * (float)(g_size * g_size * g_size);
        CHECK(wrong == 0, "graph replays: %zu wrong", wrong);
        cudaGraphExecDestroy(ge);
    }
    cudaGraphDestroy(g);
    /* a lossy call cannot be captured: refused before anything is enqueued */
    {
        ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
        acc.path = GHZ_PATH_HOMO;
        cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
        st = ghz_allreduce(d, d, n, GHZ_F32, GHZ_OP_SUM, &acc, c, (ghz_stream_t)s);
        cudaStreamEndCapture(s, &g);
        CHECK(st == GHZ_ERR_UNSUPPORTED, "captured lossy call: %s", ghz_status_string(st));
        if (g) cudaGraphDestroy(g);
    }
    cudaFree(d);
    cudaStreamDestroy(s);
    free(h);
    ghz_comm_destroy(c);
    return mpi_check_finish("nccl graph");
}

/* The lossy calls of one two-level configuration: every element within the bound the
 * call reports, K over the node count (NCCL's allreduce across nodes: N + 1). leads:
 * whether this rank compresses (a node's leader; with several leaders, every rank):
 * the others send their input exact inside their node. */
static void two_level_calls(ghz_comm_t* c, ghz_comm_t* small, ghz_algo_t expect, int nodes, int leads)
{
    static const size_t counts[] = {0, 1, 7, 4099, 100003, (size_t)1 << 20};
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    size_t ci;
    int ip, form;
    g_expect_algo = expect;
    for (ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
        for (ip = 0; ip < 2; ip++)
            for (form = 0; form < 3; form++) {
                const size_t n = counts[ci];
                /* REL f32 sum; ABS f64 avg; DOC over the small pool (several rounds across) */
                ghz_comm_t* on = form == 2 ? small : c;
                const ghz_dtype_t t = form == 1 ? GHZ_F64 : GHZ_F32;
                const ghz_op_t op = form == 1 ? GHZ_OP_AVG : GHZ_OP_SUM;
                ghz_status_t st;
                acc.path = form == 2 ? GHZ_PATH_DOC : GHZ_PATH_HOMO;
                acc.mode = form == 1 ? GHZ_EB_ABS : GHZ_EB_REL;
                acc.bound = form == 1 ? 1e-2 : 1e-4;
                st = one(on, K_ALLREDUCE, n, t, op, 0, &acc, ip, 0, "two-level lossy");
                CHECK(st == GHZ_SUCCESS, "two-level %s, count %zu, form %d, %s: %s (%s)", ghz_algo_name(expect), n,
                      form, ip ? "in place" : "out of place", ghz_status_string(st), ghz_last_error_detail());
                ghz_comm_info(on, &info);
                if (st == GHZ_SUCCESS && n >= 4099) {
                    CHECK(info.algo == expect && info.eb_abs > 0.0, "count %zu: %s, eb %g (expected %s, compressed)",
                          n, ghz_algo_name(info.algo), info.eb_abs, ghz_algo_name(expect));
                    CHECK(info.error_terms == nodes + 1, "count %zu: K = %g, expected %d (the node count + 1)", n,
                          info.error_terms, nodes + 1);
                    CHECK(leads ? info.wire_bytes < info.logical_bytes : info.wire_bytes == info.logical_bytes,
                          "count %zu: sent %llu of %llu bytes (%s)", n, (unsigned long long)info.wire_bytes,
                          (unsigned long long)info.logical_bytes, leads ? "compresses" : "leads no node: exact");
                }
            }
    g_expect_algo = GHZ_ALGO_NCCL;
}

static int part_two_level(void)
{
    static const ghz_algo_t algos[] = {GHZ_ALGO_TWO_LEVEL, GHZ_ALGO_TWO_LEVEL_MULTI, GHZ_ALGO_AUTO};
    const char* env = getenv("GHZ_COLL_RANKS_PER_NODE");
    const int rpn = env ? atoi(env) : 0;
    const int nodes = rpn > 0 ? (g_size + rpn - 1) / rpn : 1, uniform = rpn > 0 && g_size % rpn == 0;
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    size_t ai;
    CHECK(nodes > 1 && nodes < g_size, "GHZ_COLL_RANKS_PER_NODE=%s on %d ranks: not several nodes of several ranks",
          env ? env : "(unset)", g_size);
    if (!(nodes > 1 && nodes < g_size)) return mpi_check_finish("nccl two_level");
    for (ai = 0; ai < sizeof algos / sizeof algos[0]; ai++) {
        const ghz_algo_t a = algos[ai];
        const ghz_algo_t expect = a != GHZ_ALGO_AUTO ? a : uniform ? GHZ_ALGO_TWO_LEVEL_MULTI : GHZ_ALGO_TWO_LEVEL;
        ghz_comm_t* c = make_algo(0, 0, a);
        ghz_comm_t* small = make_algo(4 << 20, 64 << 10, a);
        float* d = NULL;
        ghz_status_t st;
        if (!c || !small) {
            ghz_comm_destroy(small);
            ghz_comm_destroy(c);
            break;
        }
        cudaMalloc((void**)&d, 4096 * sizeof(float));
        cudaMemset(d, 0, 4096 * sizeof(float));
        acc.path = GHZ_PATH_HOMO;
        acc.mode = GHZ_EB_REL;
        acc.bound = 1e-4;
        /* a mismatch on one rank, before the children exist: an error on every rank */
        st = ghz_allreduce(d, d, g_rank == g_size - 1 ? 4000 : 4001, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
        CHECK(st == GHZ_ERR_MISMATCH, "%s: count mismatch: %s", ghz_algo_name(a), ghz_status_string(st));
        if (a == GHZ_ALGO_TWO_LEVEL_MULTI && !uniform) {
            /* nodes of different sizes: refused on every rank; exact calls are NCCL's */
            st = ghz_allreduce(d, d, 4096, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
            CHECK(st == GHZ_ERR_UNSUPPORTED, "two_level_multi over unequal nodes: %s", ghz_status_string(st));
            CHECK(one(c, K_ALLREDUCE, 4099, GHZ_F32, GHZ_OP_SUM, 0, NULL, 0, 0, "exact") == GHZ_SUCCESS, "%s",
                  ghz_last_error_detail());
        } else {
            /* the children cannot be made on the last rank (a knob it cannot parse, set
             * after init): the call fails on every rank before anything moves, the
             * output is untouched, and the communicator stays whole (the next calls,
             * two_level_calls', make them) */
            uint32_t out[2048];
            size_t touched = 0, j;
            cudaMemset(d + 2048, 0xff, 2048 * sizeof(float));
            /* (ABS: zeros under a REL bound would run exact, with no children) */
            acc.mode = GHZ_EB_ABS;
            acc.bound = 1e-2;
            if (g_rank == g_size - 1) setenv("GHZ_COLL_MPI_MAX", "lots", 1);
            st = ghz_allreduce(d, d + 2048, 2048, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
            if (g_rank == g_size - 1) unsetenv("GHZ_COLL_MPI_MAX");
            acc.mode = GHZ_EB_REL;
            acc.bound = 1e-4;
            cudaMemcpy(out, d + 2048, sizeof out, cudaMemcpyDeviceToHost);
            for (j = 0; j < 2048; j++) touched += out[j] != 0xffffffffu;
            CHECK(!touched && (g_rank == g_size - 1 ? st == GHZ_ERR_INVALID_ARG : st == GHZ_ERR_PEER),
                  "%s: children not made on rank %d: %s (%s), %zu output values written", ghz_algo_name(a),
                  g_size - 1, ghz_status_string(st), ghz_last_error_detail(), touched);
            two_level_calls(c, small, expect, nodes, expect == GHZ_ALGO_TWO_LEVEL_MULTI || g_rank % rpn == 0);
            /* and after the children exist */
            st = ghz_allreduce(d, d, g_rank == 0 ? 4000 : 4001, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
            CHECK(st == GHZ_ERR_MISMATCH, "%s: count mismatch: %s", ghz_algo_name(a), ghz_status_string(st));
            /* exact calls stay NCCL's own single call; reduce and reduce_scatter too */
            CHECK(one(c, K_ALLREDUCE, 100003, GHZ_F32, GHZ_OP_SUM, 0, NULL, 1, 0, "exact") == GHZ_SUCCESS, "%s",
                  ghz_last_error_detail());
            CHECK(one(c, K_REDUCE_SCATTER, 4099, GHZ_F32, GHZ_OP_SUM, 0, &acc, 0, 0, "lossy reduce_scatter") ==
                      GHZ_SUCCESS,
                  "%s", ghz_last_error_detail());
            /* a lossy float min: not the named algorithms' (NCCL's min is not ghz's);
             * AUTO's flat compressed call */
            acc.mode = GHZ_EB_ABS;
            acc.bound = 1e-2;
            if (a == GHZ_ALGO_AUTO) {
                CHECK(one(c, K_ALLREDUCE, 4099, GHZ_F32, GHZ_OP_MIN, 0, &acc, 0, 2, "lossy min") == GHZ_SUCCESS, "%s",
                      ghz_last_error_detail());
            } else {
                st = ghz_allreduce(d, d, 4096, GHZ_F32, GHZ_OP_MIN, &acc, c, NULL);
                CHECK(st == GHZ_ERR_UNSUPPORTED, "%s, lossy min: %s", ghz_algo_name(a), ghz_status_string(st));
            }
            /* the communicator still works */
            acc.mode = GHZ_EB_REL;
            acc.bound = 1e-4;
            g_expect_algo = expect;
            CHECK(one(c, K_ALLREDUCE, 100003, GHZ_F32, GHZ_OP_SUM, 0, &acc, 0, 0, "after") == GHZ_SUCCESS, "%s",
                  ghz_last_error_detail());
            g_expect_algo = GHZ_ALGO_NCCL;
        }
        cudaFree(d);
        ghz_comm_destroy(small);
        ghz_comm_destroy(c);
    }
    return mpi_check_finish("nccl two_level");
}

int main(int argc, char** argv)
{
    const char* what = argc > 1 ? argv[1] : "calls";
    int fails = 0, ndev = 0, local = 0, local_size = 1, skip;
    MPI_Comm node;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    mpi_check_rank = g_rank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &local_size);
    MPI_Comm_free(&node);
    skip = cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < local_size;
    MPI_Allreduce(MPI_IN_PLACE, &skip, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (skip) {
        if (g_rank == 0) printf("%s: skipped (NCCL needs a GPU per rank: %d GPU(s), %d ranks)\n", what, ndev, local_size);
        MPI_Finalize();
        return 77;
    }
    cudaSetDevice(local);
    if (strcmp(what, "calls") == 0) fails = part_calls();
    else if (strcmp(what, "auto") == 0) fails = part_auto();
    else if (strcmp(what, "small") == 0) fails = part_small();
    else if (strcmp(what, "errors") == 0) fails = part_errors();
    else if (strcmp(what, "graph") == 0) fails = part_graph();
    else if (strcmp(what, "two_level") == 0) fails = part_two_level();
    else {
        if (g_rank == 0) fprintf(stderr, "usage: test_coll_nccl calls|small|auto|errors|graph|two_level\n");
        fails = 1;
    }
    MPI_Finalize();
    return fails ? 1 : 0;
}
