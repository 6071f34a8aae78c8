/* test/coll/mpi_move.c: the data-movement collectives on N ranks.
 *
 *   mpirun -np N test_coll_move exact|lossy|lossy_ratio|errors
 *
 * Every rank generates every rank's data (val(), deterministic), so each rank checks
 * every element it receives against what its sender sent, and that every element
 * outside the blocks it receives keeps its sentinel.
 * exact:  allgather, broadcast, scatter, gather, alltoall and allgatherv, gatherv,
 *         scatterv, alltoallv, every dtype, counts 0, 1, 5, 999 and one that takes
 *         several rounds, v counts uneven (zeros included) with displacements in reverse
 *         order and gaps, out of place and in place (MPI_IN_PLACE and NCCL's forms),
 *         roots 0 and N - 1, then 60 calls of random shape; on three communicators: the
 *         default (exact calls take MPI's own), ghz's algorithms (GHZ_COLL_MPI_MAX=0, a
 *         small pool and pieces: rounds), the staged path (GHZ_COLL_TEST_STAGED=1, as
 *         the CUDA backend runs), and the host path (GHZ_COLL_TEST_HOST_PATH=1, the CUDA
 *         backend's small exact calls; the others run without it). Bit for bit.
 * lossy:  the same calls on f32/f64 smooth fields, ABS and REL: every received element
 *         within the bound of what was sent (REL: of the global range of the data sent),
 *         the own block exact; compression really happened on a large call; a noise-only
 *         input under a tiny bound travels raw (wire bytes = raw bytes; in the tree's
 *         packs plus their headers) and arrives bit for bit; path AUTO below 64 KiB runs
 *         exact, above it measures both paths; 40 calls of random shape.
 * lossy_ratio: the same as lossy in the codec's ratio frames (GHZ_PATH_RATIO), and every
 *         reduction refuses that path on every rank, writing nothing.
 * errors: one rank passes another count, root, dtype or bound, or v counts that do not
 *         pair, or a NULL buffer, or a root out of range; a lossy integer call: every rank
 *         returns an error, none hangs (CTest's timeout), and no output is written.
 */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/coll_mpi.h"
#include "mpi_check.h"

static int g_rank, g_size;
#ifdef GHZ_TEST_CUDA
static const int g_staged_backend = 1; /* exact values go through the wire buffers */
#else
static const int g_staged_backend = 0;
#endif

enum { ALLGATHER, BCAST, SCATTER, GATHER, ALLTOALL, NKINDS };
static const char* const kind_names[NKINDS] = {"allgather", "broadcast", "scatter", "gather", "alltoall"};

static const ghz_dtype_t all_dtypes[] = {GHZ_F32, GHZ_F64, GHZ_I8, GHZ_U8, GHZ_I16,
                                         GHZ_U16, GHZ_I32, GHZ_U32, GHZ_I64, GHZ_U64};

/* ---- data ---------------------------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* 0: exact data (random bits, finite floats), 1: a smooth field, 2: noise in [-1, 1] */
static int g_data;
static int g_ratio; /* the part lossy_ratio: GHZ_PATH_RATIO instead of HOMO */

/* Element i of the block rank p sends to rank q (broadcast and allgather: one block for
 * every q; pass q = 0). */
static double val_f(int p, int q, size_t i, uint64_t salt)
{
    const double x = (double)i + 7919.0 * q;
    if (g_data == 2) return (double)(mix(salt ^ ((uint64_t)p << 40) ^ ((uint64_t)q << 20) ^ i) >> 11) * 0x1p-52 - 1.0;
    return 50.0 * sin(0.003 * x + p) + 20.0 * cos(0.0007 * x * (q + 1)) + 3.0 * p;
}

static void put(void* b, size_t at, ghz_dtype_t t, int p, int q, size_t i, uint64_t salt)
{
    const uint64_t v = mix(salt * 1000003u ^ ((uint64_t)p << 48) ^ ((uint64_t)q << 32) ^ i);
    switch (t) {
    case GHZ_F32: ((float*)b)[at] = g_data ? (float)val_f(p, q, i, salt) : (float)((double)(v >> 40) - 8e6) * 0.37f; break;
    case GHZ_F64: ((double*)b)[at] = g_data ? val_f(p, q, i, salt) : ((double)(v >> 11) - 4e15) * 1.3e-3; break;
    case GHZ_I8: case GHZ_U8: ((uint8_t*)b)[at] = (uint8_t)v; break;
    case GHZ_I16: case GHZ_U16: ((uint16_t*)b)[at] = (uint16_t)v; break;
    case GHZ_I32: case GHZ_U32: ((uint32_t*)b)[at] = (uint32_t)v; break;
    case GHZ_I64: case GHZ_U64: ((uint64_t*)b)[at] = v; break;
    }
}

static double get_f(const void* b, size_t at, ghz_dtype_t t)
{
    return t == GHZ_F32 ? ((const float*)b)[at] : ((const double*)b)[at];
}

/* ---- layouts --------------------------------------------------------------------------- */

/* cnt(p, q): elements rank p sends to rank q. Uniform: count. v: uneven, zeros included;
 * symmetric where an in-place alltoallv needs cnt(p, q) = cnt(q, p). Gather, scatter and
 * allgather blocks depend on the non-root side only. */
static size_t cnt_of(int kind, int v, size_t count, int p, int q, int root, int sym)
{
    int a = p, b = q;
    if (!v) return count;
    if (kind == ALLGATHER || kind == GATHER) b = 0;
    if (kind == SCATTER) a = q, b = 0;
    (void)root;
    if (sym && a > b) {
        int s = a;
        a = b;
        b = s;
    }
    return count ? (count * (size_t)(a + 2 * b + 1) + (size_t)(3 * a)) % (count + 4) : 0;
}

/* Displacements of a side with blocks cnt[0..N): reversed order, `gap` elements apart;
 * returns the buffer's length. */
static size_t lay_out(const size_t* cnt, size_t* displ, size_t gap)
{
    size_t at = gap;
    int p;
    for (p = g_size - 1; p >= 0; p--) {
        displ[p] = at;
        at += cnt[p] + gap;
    }
    return at;
}

/* ---- one call -------------------------------------------------------------------------- */

typedef struct {
    int kind, v, in_place; /* in_place: 1 MPI_IN_PLACE, 2 NCCL's form */
    size_t count;
    int root;
    ghz_dtype_t t;
    const ghz_accuracy_t* acc;
    /* this rank's arguments */
    size_t scnt[64], sdis[64], rcnt[64], rdis[64];
    size_t sendcount, recvcount; /* v: allgatherv, gatherv / scatterv */
    size_t slen, rlen;           /* buffer lengths, elements */
} call_t;

static ghz_status_t issue(const call_t* k, const void* s, void* r, ghz_comm_t* c)
{
    /* (gather and scatter: in place at the root only, as MPI says) */
    const int here = k->in_place == 1 && (k->kind != GATHER || g_rank == k->root) &&
                     (k->kind != SCATTER || g_rank == k->root);
    const void* send = here && k->kind != SCATTER ? MPI_IN_PLACE : s;
    void* recv = here && k->kind == SCATTER ? MPI_IN_PLACE : r;
    switch (k->kind) {
    case ALLGATHER:
        return k->v ? ghz_allgatherv(send, recv, k->sendcount, k->rcnt, k->rdis, k->t, k->acc, c, NULL)
                    : ghz_allgather(send, recv, k->count, k->t, k->acc, c, NULL);
    case BCAST: return ghz_broadcast(send, recv, k->count, k->t, k->root, k->acc, c, NULL);
    case SCATTER:
        return k->v ? ghz_scatterv(send, recv, k->scnt, k->sdis, k->recvcount, k->t, k->root, k->acc, c, NULL)
                    : ghz_scatter(send, recv, k->count, k->t, k->root, k->acc, c, NULL);
    case GATHER:
        return k->v ? ghz_gatherv(send, recv, k->sendcount, k->rcnt, k->rdis, k->t, k->root, k->acc, c, NULL)
                    : ghz_gather(send, recv, k->count, k->t, k->root, k->acc, c, NULL);
    default:
        return k->v ? ghz_alltoallv(send, recv, k->scnt, k->sdis, k->rcnt, k->rdis, k->t, k->acc, c, NULL)
                    : ghz_alltoall(send, recv, k->count, k->t, k->acc, c, NULL);
    }
}

#ifdef GHZ_TEST_CUDA
/* Bytes to allocate for a device buffer of n bytes. NCCL's kernels read user data in
 * 16-byte units past a short buffer's end (NVIDIA/nccl#265; cudaMalloc's granularity
 * makes that harmless), which compute-sanitizer reports as out of bounds and then
 * aborts the kernel: over NCCL the test pads to 16 bytes; elsewhere it keeps one spare
 * byte so that memcheck still sees any overread of ghz's own kernels. */
static size_t dev_bytes(size_t n)
{
    const char* t = getenv("GHZ_COLL_TRANSPORT");
    return t && !strcmp(t, "nccl") ? (n + 16) & ~(size_t)15 : n + 1;
}
#endif

/* The call on this build's memory: device copies of both whole buffers on the CUDA
 * build (NCCL's in place keeps its offset), the output copied back only on success. */
static ghz_status_t run_call(const call_t* k, const void* send, void* recv, ghz_comm_t* c)
{
#ifdef GHZ_TEST_CUDA
    const size_t e = ghz_dtype_size(k->t);
    void *ds = NULL, *dr = NULL;
    const void* s = send;
    ghz_status_t st;
    if (recv) {
        CHECK(cudaMalloc(&dr, dev_bytes(k->rlen * e)) == cudaSuccess, "cudaMalloc");
        cudaMemcpy(dr, recv, k->rlen * e, cudaMemcpyHostToDevice);
    }
    if (send && recv && (const unsigned char*)send >= (const unsigned char*)recv &&
        (const unsigned char*)send < (const unsigned char*)recv + k->rlen * e) {
        s = (const unsigned char*)dr + ((const unsigned char*)send - (const unsigned char*)recv);
    } else if (send) {
        CHECK(cudaMalloc(&ds, dev_bytes(k->slen * e)) == cudaSuccess, "cudaMalloc");
        cudaMemcpy(ds, send, k->slen * e, cudaMemcpyHostToDevice);
        s = ds;
    }
    st = issue(k, s, dr, c);
    if (st == GHZ_SUCCESS && recv) {
        cudaDeviceSynchronize();
        cudaMemcpy(recv, dr, k->rlen * e, cudaMemcpyDeviceToHost);
    }
    cudaFree(ds);
    cudaFree(dr);
    return st;
#else
    return issue(k, send, recv, c);
#endif
}

/* A call's description, root 0, out of place (setup fills the rest). */
static call_t call_of(int kind, int v, size_t count, ghz_dtype_t t, const ghz_accuracy_t* acc)
{
    call_t k;
    memset(&k, 0, sizeof k);
    k.kind = kind;
    k.v = v;
    k.count = count;
    k.t = t;
    k.acc = acc;
    return k;
}

/* Fills this rank's arguments of a call of kind/v/count/root. */
static void setup(call_t* k)
{
    const int N = g_size, me = g_rank, sym = k->kind == ALLTOALL && k->in_place;
    size_t cnt[64];
    int p;
    k->sendcount = k->recvcount = 0;
    k->slen = k->rlen = 0;
    switch (k->kind) {
    case ALLGATHER:
    case GATHER:
        for (p = 0; p < N; p++) k->rcnt[p] = cnt_of(k->kind, k->v, k->count, p, 0, k->root, 0);
        k->sendcount = k->rcnt[me];
        k->slen = k->sendcount;
        if (k->v) k->rlen = lay_out(k->rcnt, k->rdis, 2);
        else {
            for (p = 0; p < N; p++) k->rdis[p] = (size_t)p * k->count;
            k->rlen = (size_t)N * k->count;
        }
        if (k->kind == GATHER && me != k->root) k->rlen = 0;
        break;
    case BCAST:
        k->slen = k->rlen = k->count;
        break;
    case SCATTER:
        for (p = 0; p < N; p++) k->scnt[p] = cnt_of(SCATTER, k->v, k->count, k->root, p, k->root, 0);
        k->recvcount = k->scnt[me];
        k->rlen = k->recvcount;
        if (k->v) k->slen = lay_out(k->scnt, k->sdis, 1);
        else {
            for (p = 0; p < N; p++) k->sdis[p] = (size_t)p * k->count;
            k->slen = (size_t)N * k->count;
        }
        if (me != k->root) k->slen = 0;
        break;
    default:
        for (p = 0; p < N; p++) {
            k->scnt[p] = cnt_of(ALLTOALL, k->v, k->count, me, p, 0, sym);
            k->rcnt[p] = cnt_of(ALLTOALL, k->v, k->count, p, me, 0, sym);
            cnt[p] = k->scnt[p];
        }
        if (k->v) {
            k->slen = lay_out(cnt, k->sdis, 1);
            k->rlen = lay_out(k->rcnt, k->rdis, 2);
        } else {
            for (p = 0; p < N; p++) k->sdis[p] = k->rdis[p] = (size_t)p * k->count;
            k->slen = k->rlen = (size_t)N * k->count;
        }
        break;
    }
}

/* ---- checking --------------------------------------------------------------------------- */

typedef struct {
    size_t wrong, untouched_bad;
    double max_err, bound;
} tally_t;

/* The global range of the data every rank sends in the call (REL's), computed from
 * the generators: every rank's send side. */
static void global_range(const call_t* k, uint64_t salt, double* lo, double* hi)
{
    const int N = g_size;
    int p, q;
    size_t i;
    unsigned char tmp[8];
    *lo = INFINITY;
    *hi = -INFINITY;
    for (p = 0; p < N; p++)
        for (q = 0; q < N; q++) {
            size_t n;
            int qq = q;
            if ((k->kind == BCAST || k->kind == SCATTER) && p != k->root) continue;
            if (k->kind == BCAST || k->kind == ALLGATHER || k->kind == GATHER) {
                if (q) continue;
                qq = 0;
            }
            n = k->kind == BCAST ? k->count : cnt_of(k->kind, k->v, k->count, p, q, k->root,
                                                      k->kind == ALLTOALL && k->in_place);
            for (i = 0; i < n; i++) {
                double x;
                put(tmp, 0, k->t, p, qq, i, salt);
                x = get_f(tmp, 0, k->t);
                if (x < *lo) *lo = x;
                if (x > *hi) *hi = x;
            }
        }
}

/* Fills the send side (and the in-place receive side) and the sentinels. */
static void fill(const call_t* k, unsigned char* send, unsigned char* recv, uint64_t salt)
{
    const size_t e = ghz_dtype_size(k->t);
    const int me = g_rank;
    size_t i;
    int q;
    memset(recv, 0xA5, k->rlen * e + 8);
    memset(send, 0x5A, k->slen * e + 8);
    switch (k->kind) {
    case ALLGATHER:
    case GATHER:
        for (i = 0; i < k->sendcount; i++) put(send, i, k->t, me, 0, i, salt);
        if (k->in_place && (k->kind == ALLGATHER || me == k->root))
            for (i = 0; i < k->sendcount; i++) put(recv, k->rdis[me] + i, k->t, me, 0, i, salt);
        break;
    case BCAST:
        if (me == k->root) {
            for (i = 0; i < k->count; i++) put(send, i, k->t, me, 0, i, salt);
            if (k->in_place) memcpy(recv, send, k->count * e);
        }
        break;
    case SCATTER:
        if (me == k->root)
            for (q = 0; q < g_size; q++)
                for (i = 0; i < k->scnt[q]; i++) put(send, k->sdis[q] + i, k->t, me, q, i, salt);
        break;
    default:
        for (q = 0; q < g_size; q++)
            for (i = 0; i < (k->in_place ? k->rcnt[q] : k->scnt[q]); i++) {
                put(send, k->sdis[q] + i, k->t, me, q, i, salt);
                if (k->in_place) put(recv, k->rdis[q] + i, k->t, me, q, i, salt);
            }
        break;
    }
}

/* Compares the receive side with what each sender sent; everything outside the blocks
 * must keep its sentinel (in-place own blocks: the input itself). */
static void verify(const call_t* k, const unsigned char* recv, uint64_t salt, double B, tally_t* t)
{
    const size_t e = ghz_dtype_size(k->t);
    const int me = g_rank, N = g_size;
    unsigned char* seen = calloc(k->rlen + 1, 1);
    unsigned char want[8];
    size_t i;
    int p;
    if (!seen) abort();
    for (p = 0; p < N; p++) {
        size_t n = 0, at = 0;
        int src = p, q = 0;
        switch (k->kind) {
        case ALLGATHER: n = k->rcnt[p]; at = k->rdis[p]; break;
        case GATHER:
            if (me != k->root) continue;
            n = k->rcnt[p];
            at = k->rdis[p];
            break;
        case BCAST:
            if (p) continue;
            src = k->root;
            n = k->count;
            break;
        case SCATTER:
            if (p || (k->in_place && me == k->root)) continue;
            src = k->root;
            q = me;
            n = k->recvcount;
            break;
        default: n = k->rcnt[p]; at = k->rdis[p]; q = me; break;
        }
        for (i = 0; i < n; i++) {
            const unsigned char* got = recv + (at + i) * e;
            put(want, 0, k->t, src, q, i, salt);
            seen[at + i] = 1;
            if (k->acc && src != me) {
                const double d = fabs(get_f(got, 0, k->t) - get_f(want, 0, k->t));
                if (!(d <= B)) t->wrong++;
                if (d > t->max_err) t->max_err = d;
            } else if (memcmp(got, want, e) != 0) {
                t->wrong++;
            }
        }
    }
    for (i = 0; i < k->rlen; i++)
        if (!seen[i]) {
            size_t b;
            for (b = 0; b < e; b++)
                if (recv[i * e + b] != 0xA5) {
                    t->untouched_bad++;
                    break;
                }
        }
    free(seen);
    t->bound = B;
}

/* One call end to end; returns its status. */
static ghz_status_t one(call_t* k, ghz_comm_t* c, uint64_t salt, tally_t* t, ghz_coll_info_t* info)
{
    const size_t e = ghz_dtype_size(k->t);
    unsigned char *send, *recv;
    ghz_status_t st;
    double B = 0.0;
    setup(k);
    send = malloc(k->slen * e + 8);
    recv = malloc(k->rlen * e + 8);
    if (!send || !recv) abort();
    fill(k, send, recv, salt);
    if (k->acc) {
        double lo, hi;
        global_range(k, salt, &lo, &hi);
        B = k->acc->mode == GHZ_EB_ABS ? k->acc->bound : lo <= hi ? k->acc->bound * (hi - lo) : 0.0;
    }
    {
        unsigned char* s = k->in_place == 2 ? (k->kind == BCAST || k->kind == ALLTOALL ? recv : recv + k->rdis[g_rank] * e)
                                            : send;
        if (k->in_place == 2 && k->kind == GATHER && g_rank != k->root) s = send;
        /* (ranks enter together: a call's time, which AUTO decides by, is then its own) */
        MPI_Barrier(MPI_COMM_WORLD);
        st = run_call(k, k->slen || k->in_place ? s : NULL, k->rlen || (k->kind == BCAST) ? recv : NULL, c);
    }
    if (st == GHZ_SUCCESS) verify(k, recv, salt, B, t);
    if (info) {
        info->struct_size = sizeof *info;
        ghz_comm_info(c, info);
    }
    free(send);
    free(recv);
    return st;
}

/* A communicator: pool and chunk (0: the defaults), GHZ_COLL_MPI_MAX (NULL: unset),
 * GHZ_COLL_TEST_STAGED, and host: 1 the host path (GHZ_COLL_TEST_HOST_PATH on the CPU;
 * the CUDA backend's own), 0 none (GHZ_COLL_HOST_PATH_MAX=0: the device algorithms). */
static ghz_comm_t* make_comm(size_t pool, size_t chunk, const char* mpi_max, int staged, int host)
{
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    ghz_comm_t* c = NULL;
    ghz_status_t st;
#ifdef GHZ_TEST_CUDA
    cfg.backend = GHZ_EXEC_CUDA;
#endif
    cfg.pool_bytes = pool;
    cfg.chunk_bytes = chunk;
    if (mpi_max) setenv("GHZ_COLL_MPI_MAX", mpi_max, 1);
    if (staged) setenv("GHZ_COLL_TEST_STAGED", "1", 1);
    if (host) setenv("GHZ_COLL_TEST_HOST_PATH", "1", 1);
    else setenv("GHZ_COLL_HOST_PATH_MAX", "0", 1);
    st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &c);
    unsetenv("GHZ_COLL_MPI_MAX");
    unsetenv("GHZ_COLL_TEST_STAGED");
    unsetenv("GHZ_COLL_TEST_HOST_PATH");
    unsetenv("GHZ_COLL_HOST_PATH_MAX");
    CHECK(st == GHZ_SUCCESS, "ghz_comm_init: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    return c;
}

/* ---- parts -------------------------------------------------------------------------- */

/* The in-place forms a call has: 1 MPI_IN_PLACE, 2 also NCCL's (one buffer at the
 * rank's block; alltoall: the one buffer, uniform counts only). */
static int in_place_forms(int kind, int v)
{
    return kind == SCATTER || (kind == ALLTOALL && v) ? 1 : 2;
}

/* The communicator runs over NCCL (then every call's algorithm is nccl). */
static int over_nccl(const ghz_comm_t* c)
{
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    return ghz_comm_config(c, &cfg) == GHZ_SUCCESS && cfg.transport == GHZ_TRANSPORT_NCCL;
}

static void sweep(ghz_comm_t* c, const char* cname, const ghz_dtype_t* types, size_t ntypes,
                  const ghz_accuracy_t* acc, const size_t* counts, size_t ncounts)
{
    int kind, v, ip;
    size_t ti, ci;
    int ri;
    for (kind = 0; kind < NKINDS; kind++)
        for (v = 0; v <= (kind != BCAST); v++)
            for (ip = 0; ip <= in_place_forms(kind, v); ip++)
                for (ri = 0; ri < (kind == BCAST || kind == SCATTER || kind == GATHER ? 2 : 1); ri++)
                    for (ti = 0; ti < ntypes; ti++)
                        for (ci = 0; ci < ncounts; ci++) {
                            call_t k = call_of(kind, v, counts[ci], types[ti], acc);
                            tally_t t = {0, 0, 0.0, 0.0};
                            ghz_status_t st;
                            k.in_place = ip;
                            k.root = ri ? g_size - 1 : 0;
                            st = one(&k, c, 17 + ci + 100 * ti, &t, NULL);
                            CHECK(st == GHZ_SUCCESS && !t.wrong && !t.untouched_bad,
                                  "%s: %s%s in place %d root %d %s count %zu: %s (%s), %zu wrong, %zu outside "
                                  "written, max error %g bound %g",
                                  cname, kind_names[kind], v ? "v" : "", ip, k.root, ghz_dtype_name(k.t), k.count,
                                  ghz_status_string(st), st ? ghz_last_error_detail() : "", t.wrong,
                                  t.untouched_bad, t.max_err, t.bound);
                        }
}

static void part_exact(void)
{
    static const size_t counts[] = {0, 1, 5, 999, 5000};
    ghz_comm_t* c[4];
    static const char* const names[4] = {"default", "ghz algorithms", "staged", "host path"};
    int i;
    g_data = 0;
    c[0] = make_comm(0, 0, NULL, 0, 0);
    c[1] = make_comm(1 << 16, 256, "0", 0, 0);
    c[2] = make_comm(1 << 16, 256, "0", 1, 0);
    c[3] = make_comm(0, 0, NULL, 0, 1);
#ifdef GHZ_TEST_CUDA
    /* the CUDA backend is always staged (c[2] is c[1] there), and its small pieces each
     * wait for the GPU: every dtype on the default pieces, three on the small ones */
    {
        static const ghz_dtype_t some[] = {GHZ_F32, GHZ_U8, GHZ_I64};
        if (c[0]) sweep(c[0], names[0], all_dtypes, 10, NULL, counts, 5);
        if (c[1]) sweep(c[1], names[1], some, 3, NULL, counts, 5);
        if (c[3]) sweep(c[3], names[3], all_dtypes, 10, NULL, counts, 5);
    }
#else
    for (i = 0; i < 4; i++)
        if (c[i]) sweep(c[i], names[i], all_dtypes, 10, NULL, counts, 5);
#endif
    /* the algorithm each took (a large exact call, every rank alike); over NCCL (a CUDA
     * run with GHZ_COLL_TRANSPORT=nccl) every call is NCCL's */
    for (i = 0; i < 3 && c[0] && c[1] && !over_nccl(c[1]); i++) {
        ghz_coll_info_t info;
        call_t k = call_of(i == 0 ? ALLGATHER : i == 1 ? SCATTER : ALLTOALL, 0, 10000, GHZ_I32, NULL);
        tally_t t = {0, 0, 0.0, 0.0};
        /* (a scatter of small blocks through the wire buffers, the CUDA backend's, takes
         * the tree; straight from the caller's buffers the linear algorithm) */
        const ghz_algo_t scat = g_staged_backend && g_size > 2 ? GHZ_ALGO_BINOMIAL : GHZ_ALGO_LINEAR;
        one(&k, c[1], 5, &t, &info);
        CHECK(info.algo == (i == 0 ? GHZ_ALGO_RING : i == 1 ? scat : GHZ_ALGO_PAIRWISE) &&
                  (g_size == 1 || info.rounds > 1),
              "%s on ghz's algorithms: %s in %llu rounds", kind_names[k.kind], ghz_algo_name(info.algo),
              (unsigned long long)info.rounds);
        /* broadcast: down the chain when pieces are many, the binomial tree when few */
        if (i == 0) {
            call_t b = call_of(BCAST, 0, 10000, GHZ_I32, NULL);
            one(&b, c[1], 5, &t, &info);
            CHECK(info.algo == (g_size > 2 ? GHZ_ALGO_RING : GHZ_ALGO_BINOMIAL) && !t.wrong, "broadcast of 157 pieces: %s",
                  ghz_algo_name(info.algo));
            /* one piece: the tree's lg N hops against the chain's N - 1 (and the root's
             * lg N sends): the chain only where 2 lg N > N (3 and 5 ranks here) */
            b.count = 5;
            one(&b, c[1], 5, &t, &info);
            CHECK(info.algo == (g_size == 3 || g_size == 5 ? GHZ_ALGO_RING : GHZ_ALGO_BINOMIAL) && !t.wrong,
                  "broadcast of one piece: %s", ghz_algo_name(info.algo));
        }
        /* staged (the wire buffers), small blocks: gather and scatter by the binomial tree */
        if (i == 1 && c[2]) {
            k.count = 1000;
            one(&k, c[2], 5, &t, &info);
            CHECK(info.algo == (g_size > 2 ? GHZ_ALGO_BINOMIAL : GHZ_ALGO_LINEAR), "staged scatter: %s",
                  ghz_algo_name(info.algo));
            k.kind = GATHER;
            one(&k, c[2], 5, &t, &info);
            CHECK(info.algo == (g_size > 2 ? GHZ_ALGO_BINOMIAL : GHZ_ALGO_LINEAR), "staged gather: %s",
                  ghz_algo_name(info.algo));
            k.kind = SCATTER;
            k.count = 10000;
        }
#ifndef GHZ_TEST_CUDA
        one(&k, c[0], 5, &t, &info);
        CHECK(g_size == 1 || info.algo == GHZ_ALGO_MPI, "%s by default: %s", kind_names[k.kind],
              ghz_algo_name(info.algo));
#endif
    }
    /* 60 calls of random shape (every rank draws the same), on each communicator */
    for (i = 0; i < 60 && c[0] && c[1] && c[2] && c[3]; i++) {
        const uint64_t h = mix(0xC0FFEEu + (uint64_t)i);
        const int kind = (int)(h % NKINDS), v = kind != BCAST && (h >> 8) % 2;
        call_t k = call_of(kind, v, (size_t)((h >> 16) % 3000), all_dtypes[(h >> 32) % 10], NULL);
        tally_t t = {0, 0, 0.0, 0.0};
        ghz_status_t st;
        k.in_place = (int)((h >> 40) % (unsigned)(in_place_forms(kind, v) + 1));
        k.root = (int)((h >> 48) % (unsigned)g_size);
        st = one(&k, c[i % 4], h, &t, NULL);
        CHECK(st == GHZ_SUCCESS && !t.wrong && !t.untouched_bad,
              "random call %d on %s: %s%s in place %d root %d %s count %zu: %s, %zu wrong, %zu outside written", i,
              names[i % 4], kind_names[kind], v ? "v" : "", k.in_place, k.root, ghz_dtype_name(k.t), k.count,
              ghz_status_string(st), t.wrong, t.untouched_bad);
    }
    for (i = 0; i < 4; i++) ghz_comm_destroy(c[i]);
}

static void part_lossy(void)
{
    static const ghz_dtype_t ft[] = {GHZ_F32, GHZ_F64};
    static const size_t counts[] = {0, 1, 5, 999, 5000};
    ghz_accuracy_t abs_acc = GHZ_ACCURACY_INIT, rel_acc = GHZ_ACCURACY_INIT;
    ghz_comm_t* small = make_comm(1 << 16, 1024, "0", 0, 0);
    ghz_comm_t* staged = make_comm(1 << 16, 1024, "0", 1, 0);
    ghz_comm_t* big = make_comm(0, 0, NULL, 0, 0);
    int kind;
    /* the part "lossy_ratio": the same calls in the codec's ratio frames */
    const ghz_path_t path = g_ratio ? GHZ_PATH_RATIO : GHZ_PATH_HOMO;
    abs_acc.mode = GHZ_EB_ABS;
    abs_acc.bound = 1e-2;
    abs_acc.path = path;
    rel_acc.mode = GHZ_EB_REL;
    rel_acc.bound = 1e-4;
    rel_acc.path = path;
    g_data = 1;
    if (small) {
        sweep(small, "lossy ABS", ft, 2, &abs_acc, counts, 5);
        sweep(small, "lossy REL", ft, 2, &rel_acc, counts, 5);
    }
    if (staged) sweep(staged, "lossy staged REL", ft, 2, &rel_acc, counts + 2, 3);
    /* 40 calls of random shape, ABS or REL, on both */
    for (kind = 0; kind < 40 && small && staged; kind++) {
        const uint64_t h = mix(0xBEEFu + (uint64_t)kind);
        const int kd = (int)(h % NKINDS), v = kd != BCAST && (h >> 8) % 2;
        call_t k = call_of(kd, v, (size_t)((h >> 16) % 4000), ft[(h >> 32) % 2], (h >> 34) % 2 ? &abs_acc : &rel_acc);
        tally_t t = {0, 0, 0.0, 0.0};
        ghz_status_t st;
        k.in_place = (int)((h >> 40) % (unsigned)(in_place_forms(kd, v) + 1));
        k.root = (int)((h >> 48) % (unsigned)g_size);
        st = one(&k, kind % 2 ? staged : small, h, &t, NULL);
        CHECK(st == GHZ_SUCCESS && !t.wrong && !t.untouched_bad,
              "random lossy call %d: %s%s in place %d root %d %s count %zu: %s, %zu wrong (max error %g, bound %g), %zu "
              "outside written",
              kind, kind_names[kd], v ? "v" : "", k.in_place, k.root, ghz_dtype_name(k.t), k.count,
              ghz_status_string(st), t.wrong, t.max_err, t.bound, t.untouched_bad);
    }
    /* a large call compresses (and the bound holds); noise travels raw, bit for bit */
    for (kind = 0; kind < NKINDS && big; kind++) {
        ghz_coll_info_t info;
        call_t k = call_of(kind, 0, 100000, GHZ_F32, &rel_acc);
        tally_t t = {0, 0, 0.0, 0.0};
        ghz_accuracy_t tiny = abs_acc;
        ghz_status_t st;
        g_data = 1;
        st = one(&k, big, 3, &t, &info);
        CHECK(st == GHZ_SUCCESS && !t.wrong && !t.untouched_bad && info.lossy && info.eb_abs > 0 &&
                  (g_size == 1 || info.logical_bytes == 0 || info.wire_bytes * 2 < info.logical_bytes) &&
                  info.path == path,
              "%s, smooth: %s, %zu wrong, wire %llu of %llu bytes, path %s", kind_names[kind], ghz_status_string(st),
              t.wrong, (unsigned long long)info.wire_bytes, (unsigned long long)info.logical_bytes,
              ghz_path_name(info.path));
        if (g_rank == 0 && getenv("GHZ_TEST_VERBOSE"))
            printf("%s: max error / bound %.3f, ratio %.2f\n", kind_names[kind], t.max_err / t.bound,
                   info.wire_bytes ? (double)info.logical_bytes / info.wire_bytes : 0.0);
        g_data = 2;
        tiny.bound = 1e-30;
        k.acc = &tiny;
        memset(&t, 0, sizeof t);
        st = one(&k, big, 4, &t, &info);
        CHECK(st == GHZ_SUCCESS && !t.wrong && t.max_err == 0.0 && info.eb_abs > 0 &&
                  info.wire_bytes == info.logical_bytes,
              "%s, noise: %s, %zu wrong (max error %g), wire %llu bytes for %llu raw", kind_names[kind],
              ghz_status_string(st), t.wrong, t.max_err, (unsigned long long)info.wire_bytes,
              (unsigned long long)info.logical_bytes);
        /* noise in small blocks (the binomial tree of packs for gather and scatter): the
         * packs carry the raw values and a header of 32 bytes per block */
        k.count = 1000;
        memset(&t, 0, sizeof t);
        st = one(&k, big, 7, &t, &info);
        CHECK(st == GHZ_SUCCESS && !t.wrong && t.max_err == 0.0 &&
                  info.wire_bytes <= info.logical_bytes + 32 * (uint64_t)g_size &&
                  info.logical_bytes <= info.wire_bytes,
              "%s, small noise: %s, %zu wrong, wire %llu bytes for %llu raw", kind_names[kind], ghz_status_string(st),
              t.wrong, (unsigned long long)info.wire_bytes, (unsigned long long)info.logical_bytes);
        /* AUTO far below the least threshold (64 KiB for N blocks): exact */
        g_data = 1;
        tiny = rel_acc;
        tiny.path = GHZ_PATH_AUTO;
        k.acc = &tiny;
        k.count = 1000;
        st = one(&k, big, 5, &t, &info);
        {
            /* over NCCL an AUTO call that runs exact skips the range scan, so a REL
             * bound has no absolute value there (COLL.md, NCCL): 0, the exact result's */
            ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
            const int scanned = ghz_comm_config(big, &cfg) != GHZ_SUCCESS || cfg.transport != GHZ_TRANSPORT_NCCL;
            CHECK(st == GHZ_SUCCESS && !t.wrong && info.lossy && info.eb_abs == 0.0 &&
                      (scanned ? info.bound_abs > 0 : info.bound_abs == 0.0),
                  "%s, AUTO small: %s, %zu wrong, eb %g, bound %g", kind_names[kind], ghz_status_string(st), t.wrong,
                  info.eb_abs, info.bound_abs);
        }
    }
    /* AUTO compresses where N blocks reach the threshold fixed at init (pinned here to
     * N blocks of 32768 floats), on every rank and on every call; one element less a
     * block runs exact */
    if (g_size > 1) {
        ghz_accuracy_t autoacc = rel_acc;
        char at[32];
        ghz_comm_t* pinned;
        int i;
        snprintf(at, sizeof at, "%zu", (size_t)g_size * 32768 * 4);
        setenv("GHZ_COLL_AUTO_MIN_BYTES", at, 1);
        pinned = make_comm(0, 0, NULL, 0, 0);
        unsetenv("GHZ_COLL_AUTO_MIN_BYTES");
        autoacc.path = GHZ_PATH_AUTO;
        g_data = 1;
        for (i = 0; pinned && i < 6; i++) {
            const int compress = i % 2 == 0, kind = i < 2 ? ALLGATHER : i < 4 ? ALLTOALL : BCAST;
            ghz_coll_info_t info;
            call_t k = call_of(kind, 0, compress ? 32768 : 32767, GHZ_F32, &autoacc);
            tally_t t = {0, 0, 0.0, 0.0};
            ghz_status_t st;
            int got, lo, hi;
            st = one(&k, pinned, 6, &t, &info);
            got = info.eb_abs > 0.0;
            MPI_Allreduce(&got, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&got, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            CHECK(st == GHZ_SUCCESS && !t.wrong && got == compress && lo == hi,
                  "AUTO %s of %d floats a block, threshold %s: %s, %zu wrong, %s (ranks %s)", kind_names[kind],
                  compress ? 32768 : 32767, at, ghz_status_string(st), t.wrong, got ? "compressed" : "exact",
                  lo == hi ? "agree" : "differ");
        }
        ghz_comm_destroy(pinned);
    }
    ghz_comm_destroy(small);
    ghz_comm_destroy(staged);
    ghz_comm_destroy(big);
}

/* A call with one rank's argument changed: every rank fails, no output written. */
static void expect_error(const char* what, call_t* k, ghz_comm_t* c, int bad_rank, void (*spoil)(call_t*))
{
    const size_t e = ghz_dtype_size(k->t) ? ghz_dtype_size(k->t) : 1;
    unsigned char *send, *recv;
    size_t i, touched = 0;
    ghz_status_t st;
    setup(k);
    send = malloc(k->slen * e + 8);
    recv = malloc(k->rlen * e + 8);
    if (!send || !recv) abort();
    if (ghz_dtype_size(k->t)) fill(k, send, recv, 9);
    else memset(recv, 0xA5, k->rlen * e + 8);
    if (g_rank == bad_rank) spoil(k);
    st = run_call(k, send, k->rlen ? recv : NULL, c);
    for (i = 0; i < k->rlen * e; i++) touched += recv[i] != 0xA5 && !k->in_place;
    CHECK(st != GHZ_SUCCESS && !touched, "%s: %s on rank %d (bad rank %d), %zu output bytes written", what,
          ghz_status_string(st), g_rank, bad_rank, touched);
    free(send);
    free(recv);
}

static void spoil_count(call_t* k) { k->count++; }
static void spoil_root(call_t* k) { k->root = (k->root + 1) % g_size; }
static void spoil_root_range(call_t* k) { k->root = g_size; }
static void spoil_dtype(call_t* k) { k->t = k->t == GHZ_F32 ? GHZ_U32 : GHZ_F32; }
static void spoil_dtype_bad(call_t* k) { k->t = (ghz_dtype_t)99; }
static void spoil_sendcount(call_t* k) { k->sendcount++; }
static void spoil_rcnt(call_t* k) { k->rcnt[0] += 1; }
static void spoil_scnt(call_t* k) { k->scnt[g_size - 1] += 1; }
static ghz_accuracy_t g_other_bound;
static void spoil_bound(call_t* k) { k->acc = &g_other_bound; }
static void spoil_nothing(call_t* k) { (void)k; }

static void part_errors(void)
{
    ghz_comm_t* c = make_comm(1 << 16, 1024, "0", 0, 0);
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    const int last = g_size - 1;
    call_t k;
    if (!c) return;
    acc.path = GHZ_PATH_HOMO;
    g_other_bound = acc;
    g_other_bound.bound *= 2;
    g_data = 1;
#define CALL(KIND, V, COUNT, T, ACC) \
    k = call_of(KIND, V, COUNT, T, ACC); \
    k.root = last
    if (g_size > 1) {
        CALL(ALLGATHER, 0, 100, GHZ_F32, NULL);
        expect_error("allgather, count on the last rank", &k, c, last, spoil_count);
        CALL(BCAST, 0, 100, GHZ_F64, NULL);
        expect_error("broadcast, root on rank 0", &k, c, 0, spoil_root);
        CALL(ALLTOALL, 0, 100, GHZ_F32, NULL);
        expect_error("alltoall, dtype on rank 0", &k, c, 0, spoil_dtype);
        CALL(ALLGATHER, 0, 3000, GHZ_F32, &acc);
        expect_error("lossy allgather, bound on the last rank", &k, c, last, spoil_bound);
        CALL(GATHER, 0, 3000, GHZ_F64, &acc);
        expect_error("lossy gather, bound on rank 0", &k, c, 0, spoil_bound);
        CALL(ALLGATHER, 1, 50, GHZ_I16, NULL);
        expect_error("allgatherv, sendcount on rank 0", &k, c, 0, spoil_sendcount);
        CALL(ALLGATHER, 1, 50, GHZ_I16, NULL);
        expect_error("allgatherv, recvcounts on the last rank", &k, c, last, spoil_rcnt);
        CALL(GATHER, 1, 50, GHZ_U8, NULL);
        expect_error("gatherv, the root's recvcounts", &k, c, last, spoil_rcnt);
        CALL(SCATTER, 1, 50, GHZ_U64, NULL);
        expect_error("scatterv, the root's sendcounts", &k, c, last, spoil_scnt);
        CALL(ALLTOALL, 1, 50, GHZ_F32, &acc);
        expect_error("lossy alltoallv, sendcounts on rank 0", &k, c, 0, spoil_scnt);
        CALL(ALLTOALL, 1, 50, GHZ_I64, NULL);
        expect_error("alltoallv, recvcounts on the last rank", &k, c, last, spoil_rcnt);
    }
    CALL(SCATTER, 0, 100, GHZ_F32, NULL);
    expect_error("scatter, root out of range on rank 0", &k, c, 0, spoil_root_range);
    CALL(GATHER, 0, 100, GHZ_I32, NULL);
    expect_error("gather, unknown dtype on the last rank", &k, c, last, spoil_dtype_bad);
    CALL(ALLTOALL, 0, 100, GHZ_I32, &acc);
    expect_error("lossy alltoall of int32", &k, c, 0, spoil_nothing);
    CALL(BCAST, 0, 100, GHZ_F32, NULL);
    k.root = 0;
    setup(&k);
    {
        /* a NULL receive buffer on the last rank */
        float buf[100];
        ghz_status_t st;
        memset(buf, 0, sizeof buf);
        st = ghz_broadcast(buf, g_rank == last ? NULL : buf, 100, GHZ_F32, 0, NULL, c, NULL);
        CHECK(st != GHZ_SUCCESS, "broadcast with a NULL recvbuf on the last rank: %s", ghz_status_string(st));
    }
    /* different collectives on different ranks: an error everywhere that names both */
    if (g_size > 1) {
        const int kind = g_rank == 0 ? ALLTOALL : ALLGATHER;
        const char* detail;
        unsigned char *send, *recv;
        ghz_status_t st;
        k = call_of(kind, 0, 64, GHZ_F32, NULL);
        setup(&k);
        send = malloc(k.slen * 4 + 8);
        recv = malloc(k.rlen * 4 + 8);
        if (!send || !recv) abort();
        fill(&k, send, recv, 3);
        st = run_call(&k, send, recv, c);
        detail = ghz_last_error_detail();
        CHECK(st == GHZ_ERR_MISMATCH && strstr(detail, "alltoall") && strstr(detail, "allgather"),
              "allgather against alltoall: %s (%s)", ghz_status_string(st), detail);
        free(send);
        free(recv);
    }
    /* after all that, a good call still works */
    {
        tally_t t = {0, 0, 0.0, 0.0};
        ghz_status_t st;
        CALL(ALLTOALL, 1, 77, GHZ_F64, NULL);
        st = one(&k, c, 1, &t, NULL);
        CHECK(st == GHZ_SUCCESS && !t.wrong && !t.untouched_bad, "alltoallv after the errors: %s",
              ghz_status_string(st));
    }
#undef CALL
    ghz_comm_destroy(c);
}

/* Ratio frames are for the data movement: every reduction refuses GHZ_PATH_RATIO on
 * every rank, before anything is written. */
static void part_ratio_refused(void)
{
    ghz_comm_t* c = make_comm(0, 0, NULL, 0, 0);
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    float in[64], out[64];
    int i;
    acc.path = GHZ_PATH_RATIO;
    for (i = 0; i < 64; i++) {
        in[i] = (float)i;
        out[i] = -1.0f;
    }
    if (!c) return;
    {
        const ghz_status_t st = ghz_allreduce(in, out, 64, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
        CHECK(st == GHZ_ERR_UNSUPPORTED && strstr(ghz_last_error_detail(), "GHZ_PATH_RATIO") && out[5] == -1.0f,
              "allreduce with GHZ_PATH_RATIO: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    }
    {
        const ghz_status_t st = ghz_reduce(in, out, 64, GHZ_F32, GHZ_OP_MAX, 0, &acc, c, NULL);
        CHECK(st == GHZ_ERR_UNSUPPORTED && out[5] == -1.0f, "reduce with GHZ_PATH_RATIO: %s (%s)",
              ghz_status_string(st), ghz_last_error_detail());
    }
    /* RATIO on one rank only: every rank fails, nothing written (a reduction: the last
     * rank's own check; an allgather: the agreement finds the paths differ) */
    if (g_size > 1) {
        ghz_accuracy_t one = acc;
        float all[64 * 64];
        ghz_status_t st;
        one.path = g_rank == g_size - 1 ? GHZ_PATH_RATIO : GHZ_PATH_HOMO;
        st = ghz_allreduce(in, out, 64, GHZ_F32, GHZ_OP_SUM, &one, c, NULL);
        CHECK(st != GHZ_SUCCESS && out[5] == -1.0f, "allreduce, GHZ_PATH_RATIO on the last rank: %s",
              ghz_status_string(st));
        one.path = g_rank == 0 ? GHZ_PATH_RATIO : GHZ_PATH_HOMO;
        for (i = 0; i < 64 * g_size; i++) all[i] = -1.0f;
        st = ghz_allgather(in, all, 64, GHZ_F32, &one, c, NULL);
        CHECK(st != GHZ_SUCCESS && all[64 * (g_rank == 0 ? 1 : 0) + 5] == -1.0f,
              "allgather, GHZ_PATH_RATIO on rank 0: %s", ghz_status_string(st));
    }
    ghz_comm_destroy(c);
}

int main(int argc, char** argv)
{
    const char* part = argc > 1 ? argv[1] : "exact";
    int fails;
    if (mpi_check_start(&argc, &argv, &g_rank, &g_size)) return 77;
    if (g_size > 64) {
        if (g_rank == 0) printf("at most 64 ranks\n");
        MPI_Finalize();
        return 1;
    }
    if (!strcmp(part, "exact")) part_exact();
    else if (!strcmp(part, "lossy")) part_lossy();
    else if (!strcmp(part, "lossy_ratio")) {
        g_ratio = 1;
        part_lossy();
        part_ratio_refused();
    }
    else if (!strcmp(part, "errors")) part_errors();
    else CHECK(0, "unknown part %s", part);
    fails = mpi_check_finish(part);
    MPI_Finalize();
    return fails ? 1 : 0;
}
