/* test/coll/mpi_calls.c: the contract of every collective call, on N ranks, from one
 * table of the calls and one of the routes a build has.
 *
 *   mpirun -np N test_coll_calls overlap|in_place|sizes|fill|root|vform|null|mismatch|failure
 *
 * The calls: allreduce, reduce, reduce_scatter, allgather, broadcast, scatter, gather,
 * alltoall and the v forms allgatherv, gatherv, scatterv, alltoallv (calls[] below says
 * where each one's sides are and where every element of its result comes from). The
 * routes: on the CPU build the MPI transport four ways (the MPI library's own calls for
 * the exact ones, ghz's algorithms with GHZ_COLL_MPI_MAX=0, and the staged path and the
 * host path of the tests' library, as the CUDA backend runs); on the CUDA build (GHZ_TEST_CUDA: device
 * buffers) the transport GHZ_COLL_TRANSPORT names (mpi, ipc or nccl), checked to be the
 * one in use. Every case runs over every call on every route:
 *
 * overlap:  send and receive sides that overlap without being an in-place form
 *           (sendbuf = recvbuf + 1, recvbuf = sendbuf + 1; alltoallv's one buffer with
 *           the sides laid out otherwise), on every rank and on one
 *           rank: INVALID_ARG naming the overlap where the rank has both sides,
 *           GHZ_ERR_PEER on the others, nothing written.
 * in_place: every in-place form the call documents (MPI_IN_PLACE, sendbuf == recvbuf,
 *           one side at this rank's block of the other) computes the right result,
 *           exact and lossy; MPI_IN_PLACE where the call takes none is refused.
 * sizes:    counts and displacements whose byte sizes pass PTRDIFF_MAX (the whole
 *           buffer, one block of the v forms, a block's end), on every rank or one:
 *           INVALID_ARG naming PTRDIFF_MAX before any buffer is read, unchecked too.
 * fill:     a REL bound over data holding fill values (-1e34): GHZ_ERR_BAD_BOUND naming
 *           them on every rank, every path, nothing written.
 * root:     (the rooted calls) a root out of range on every rank or on one, and roots
 *           that differ: an error on every rank, INVALID_ARG where it is out of range.
 * vform:    (the v forms) NULL count or displacement arrays where the rank reads them,
 *           and counts that do not pair, checked and unchecked: an error on every rank.
 * null:     a NULL buffer on one rank: refused (INVALID_ARG there, PEER elsewhere)
 *           where that rank has the side, accepted where it has none; NULL buffers with
 *           count 0 are fine; a NULL communicator is INVALID_ARG.
 * mismatch: one rank passes another count, dtype, op, bound, path, or lossy where the
 *           others are exact: GHZ_ERR_MISMATCH or GHZ_ERR_PEER on every rank, nothing
 *           written, and the communicator still works.
 * failure:  (2 ranks or more) an unchecked call whose count differs on one rank, then a
 *           lossy call (which always agrees) or nothing: every rank whose call failed is
 *           broken, every call there fails at once without writing, a broken peer makes
 *           the healthy ranks' next agreed call fail and break, and destroy returns.
 * A case checks each statement on every rank (mpi_check.h); the CTest timeout turns a
 * hang into a failure.
 */
/* setenv, unsetenv (POSIX) */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/coll_mpi.h"
#include "mpi_check.h"

enum { MAXR = 64, GAP = 3, NB = 100 };

static int g_rank, g_size;

/* The rank that misbehaves. */
static int odd_rank(void)
{
    return g_size - 1;
}

/* ---- the calls ----------------------------------------------------------------------- */

enum {
    C_ALLREDUCE,
    C_REDUCE,
    C_REDUCE_SCATTER,
    C_ALLGATHER,
    C_BROADCAST,
    C_SCATTER,
    C_GATHER,
    C_ALLTOALL,
    C_ALLGATHERV,
    C_GATHERV,
    C_SCATTERV,
    C_ALLTOALLV,
    NCALLS
};

/* Who has a side: every rank, or the root alone. */
enum { AT_ALL, AT_ROOT };
/* Where a received block's elements come from: the sum over every rank, the rank whose
 * block it is (block q from rank q), or the root. */
enum { FROM_SUM, FROM_OWNER, FROM_ROOT };
/* The in-place forms: MPI_IN_PLACE as sendbuf (the input read from recvbuf), as
 * recvbuf (scatter's root), sendbuf == recvbuf, sendbuf at this rank's block of
 * recvbuf, recvbuf at this rank's block of sendbuf. */
enum { IP_MPI = 1, IP_MPI_RECV = 2, IP_SAME = 4, IP_SEND_IN_RECV = 8, IP_RECV_IN_SEND = 16 };

typedef struct {
    const char* name;
    int reduces, rooted, v;
    int send_at, recv_at;          /* AT_ALL or AT_ROOT */
    int send_blocks, recv_blocks;  /* a block per rank (else one block) */
    int from;                      /* FROM_*: where received elements come from */
    int blk_me;                    /* ... from the sender's block at the receiver's rank
                                      (else its only block) */
    unsigned forms;                /* IP_*: the in-place forms it takes */
} call_t;

static const call_t calls[NCALLS] = {
    [C_ALLREDUCE] = {"allreduce", 1, 0, 0, AT_ALL, AT_ALL, 0, 0, FROM_SUM, 0, IP_MPI | IP_SAME},
    [C_REDUCE] = {"reduce", 1, 1, 0, AT_ALL, AT_ROOT, 0, 0, FROM_SUM, 0, IP_MPI | IP_SAME},
    [C_REDUCE_SCATTER] = {"reduce_scatter", 1, 0, 0, AT_ALL, AT_ALL, 1, 0, FROM_SUM, 1,
                          IP_MPI | IP_RECV_IN_SEND},
    [C_ALLGATHER] = {"allgather", 0, 0, 0, AT_ALL, AT_ALL, 0, 1, FROM_OWNER, 0, IP_MPI | IP_SEND_IN_RECV},
    [C_BROADCAST] = {"broadcast", 0, 1, 0, AT_ROOT, AT_ALL, 0, 0, FROM_ROOT, 0, IP_MPI | IP_SAME},
    [C_SCATTER] = {"scatter", 0, 1, 0, AT_ROOT, AT_ALL, 1, 0, FROM_ROOT, 1, IP_MPI_RECV},
    [C_GATHER] = {"gather", 0, 1, 0, AT_ALL, AT_ROOT, 0, 1, FROM_OWNER, 0, IP_MPI | IP_SEND_IN_RECV},
    [C_ALLTOALL] = {"alltoall", 0, 0, 0, AT_ALL, AT_ALL, 1, 1, FROM_OWNER, 1, IP_MPI | IP_SAME},
    [C_ALLGATHERV] = {"allgatherv", 0, 0, 1, AT_ALL, AT_ALL, 0, 1, FROM_OWNER, 0, IP_MPI | IP_SEND_IN_RECV},
    [C_GATHERV] = {"gatherv", 0, 1, 1, AT_ALL, AT_ROOT, 0, 1, FROM_OWNER, 0, IP_MPI | IP_SEND_IN_RECV},
    [C_SCATTERV] = {"scatterv", 0, 1, 1, AT_ROOT, AT_ALL, 1, 0, FROM_ROOT, 1, IP_MPI_RECV},
    [C_ALLTOALLV] = {"alltoallv", 0, 0, 1, AT_ALL, AT_ALL, 1, 1, FROM_OWNER, 1, IP_MPI | IP_SAME},
};

/* One call's arguments on this rank. The v forms' blocks are n elements each, block p
 * at p (n + GAP) on both sides (gaps the call must not write); the fixed forms' at p n. */
typedef struct {
    int call;
    size_t n; /* elements a block (the fixed forms' count) */
    int root;
    ghz_dtype_t t;
    ghz_op_t op;
    const ghz_accuracy_t* acc;
    size_t scnt[MAXR], sdis[MAXR], rcnt[MAXR], rdis[MAXR];
    int null_counts, null_displs;    /* pass NULL for the v forms' count (displacement) arrays */
    size_t sendcount, recvcount;     /* the v forms' one-block sides */
} args_t;

static size_t stride_of(const args_t* a)
{
    return calls[a->call].v ? a->n + GAP : a->n;
}

static args_t args_of(int call, size_t n, int root)
{
    args_t a;
    int p;
    memset(&a, 0, sizeof a);
    a.call = call;
    a.n = n;
    a.root = root;
    a.t = GHZ_F32;
    a.op = GHZ_OP_SUM;
    for (p = 0; p < g_size; p++) {
        a.scnt[p] = a.rcnt[p] = n;
        a.sdis[p] = a.rdis[p] = (size_t)p * stride_of(&a);
    }
    a.sendcount = a.recvcount = n;
    return a;
}

static int has_send(const args_t* a)
{
    return calls[a->call].send_at == AT_ALL || g_rank == a->root;
}

static int has_recv(const args_t* a)
{
    return calls[a->call].recv_at == AT_ALL || g_rank == a->root;
}

/* Elements of a side of this rank (0 where it has none). */
static size_t side_len(const args_t* a, int send)
{
    const call_t* k = &calls[a->call];
    if (!(send ? has_send(a) : has_recv(a))) return 0;
    if (!(send ? k->send_blocks : k->recv_blocks)) return a->n;
    return (size_t)(g_size - 1) * stride_of(a) + a->n;
}

static ghz_status_t issue(const args_t* a, const void* s, void* r, ghz_comm_t* c)
{
    const size_t* sc = a->null_counts ? NULL : a->scnt;
    const size_t* rc = a->null_counts ? NULL : a->rcnt;
    const size_t* sd = a->null_displs ? NULL : a->sdis;
    const size_t* rd = a->null_displs ? NULL : a->rdis;
    switch (a->call) {
    case C_ALLREDUCE: return ghz_allreduce(s, r, a->n, a->t, a->op, a->acc, c, NULL);
    case C_REDUCE: return ghz_reduce(s, r, a->n, a->t, a->op, a->root, a->acc, c, NULL);
    case C_REDUCE_SCATTER: return ghz_reduce_scatter(s, r, a->n, a->t, a->op, a->acc, c, NULL);
    case C_ALLGATHER: return ghz_allgather(s, r, a->n, a->t, a->acc, c, NULL);
    case C_BROADCAST: return ghz_broadcast(s, r, a->n, a->t, a->root, a->acc, c, NULL);
    case C_SCATTER: return ghz_scatter(s, r, a->n, a->t, a->root, a->acc, c, NULL);
    case C_GATHER: return ghz_gather(s, r, a->n, a->t, a->root, a->acc, c, NULL);
    case C_ALLTOALL: return ghz_alltoall(s, r, a->n, a->t, a->acc, c, NULL);
    case C_ALLGATHERV: return ghz_allgatherv(s, r, a->sendcount, rc, rd, a->t, a->acc, c, NULL);
    case C_GATHERV: return ghz_gatherv(s, r, a->sendcount, rc, rd, a->t, a->root, a->acc, c, NULL);
    case C_SCATTERV: return ghz_scatterv(s, r, sc, sd, a->recvcount, a->t, a->root, a->acc, c, NULL);
    default: return ghz_alltoallv(s, r, sc, sd, rc, rd, a->t, a->acc, c, NULL);
    }
}

/* ---- memory: the host's, or the device's on the CUDA build ------------------------------ */

static void* mem_new(size_t bytes)
{
    void* p = NULL;
#ifdef GHZ_TEST_CUDA
    /* (16 bytes of room: NCCL's kernels read a short buffer's end in 16-byte units) */
    CHECK(cudaMalloc(&p, bytes + 16) == cudaSuccess, "cudaMalloc of %zu bytes", bytes);
#else
    p = malloc(bytes + 16);
    CHECK(p != NULL, "malloc of %zu bytes", bytes);
#endif
    return p;
}

static void mem_free(void* p)
{
#ifdef GHZ_TEST_CUDA
    cudaFree(p);
#else
    free(p);
#endif
}

static void mem_put(void* dst, const void* src, size_t bytes)
{
#ifdef GHZ_TEST_CUDA
    cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
#else
    memcpy(dst, src, bytes);
#endif
}

/* (after the call's work: the CUDA backend may return with it queued on the stream) */
static void mem_get(void* dst, const void* src, size_t bytes)
{
#ifdef GHZ_TEST_CUDA
    cudaDeviceSynchronize();
    cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
#else
    memcpy(dst, src, bytes);
#endif
}

/* A buffer the call sees (mem) and its host image (host), len f32 elements. */
typedef struct {
    float* host;
    void* mem;
    size_t len;
} buf_t;

static buf_t buf_new(size_t len)
{
    buf_t b;
    b.len = len;
    b.host = calloc(len + 1, sizeof(float));
    b.mem = mem_new((len + 1) * sizeof(float));
    return b;
}

static void buf_free(buf_t* b)
{
    free(b->host);
    mem_free(b->mem);
    b->host = NULL;
    b->mem = NULL;
}

static void buf_push(buf_t* b)
{
    if (b->len) mem_put(b->mem, b->host, b->len * sizeof(float));
}

static void buf_pull(buf_t* b)
{
    if (b->len) mem_get(b->host, b->mem, b->len * sizeof(float));
}

/* The element i of a buffer as the call sees it (a pointer for the call). */
static float* buf_at(const buf_t* b, size_t i)
{
    return (float*)b->mem + i;
}

/* ---- data ---------------------------------------------------------------------------- */

static const float SENTINEL = -7.0f;

/* Element j of rank r's block p: integers, so every sum over ranks is exact in f32, and
 * distinct (an element from another rank, block or place differs by 1 at least). */
static float val(int r, int p, size_t j)
{
    return (float)(r * 4096 + p * 128 + (int)(j % 128));
}

/* Fills the send side of this rank at b[off...] (its blocks in the call's layout) and
 * every other element with the sentinel. */
static void fill_send(const args_t* a, buf_t* b, size_t off)
{
    const call_t* k = &calls[a->call];
    size_t i, j;
    int p;
    for (i = 0; i < b->len; i++) b->host[i] = SENTINEL;
    if (!has_send(a)) return;
    for (p = 0; p < (k->send_blocks ? g_size : 1); p++)
        for (j = 0; j < a->n; j++) b->host[off + (size_t)p * stride_of(a) + j] = val(g_rank, p, j);
}

/* The value this rank must receive at element j of its receive block q. */
static float want(const args_t* a, int q, size_t j)
{
    const call_t* k = &calls[a->call];
    const int blk = k->blk_me ? g_rank : 0;
    float s = 0.0f;
    int r;
    switch (k->from) {
    case FROM_SUM:
        for (r = 0; r < g_size; r++) s += val(r, blk, j);
        return s;
    case FROM_OWNER: return val(q, blk, j);
    default: return val(a->root, blk, j);
    }
}

/* The number of wrong elements of this rank's receive side at b[off...]: every block
 * within tol of want(), every gap of the v forms still the sentinel. */
static size_t wrong_result(const args_t* a, const buf_t* b, size_t off, double tol)
{
    const call_t* k = &calls[a->call];
    const size_t len = side_len(a, 0);
    size_t i, wrong = 0;
    for (i = 0; i < len; i++) {
        const size_t q = k->recv_blocks ? i / stride_of(a) : 0, j = k->recv_blocks ? i % stride_of(a) : i;
        const float got = b->host[off + i];
        if (j >= a->n) wrong += got != SENTINEL;
        else wrong += !(fabs((double)got - (double)want(a, (int)q, j)) <= tol);
    }
    return wrong;
}

/* The elements of b that differ from copy (n of them). */
static size_t changed(const buf_t* b, const float* copy)
{
    size_t i, n = 0;
    for (i = 0; i < b->len; i++) n += memcmp(&b->host[i], &copy[i], sizeof(float)) != 0;
    return n;
}

/* ---- routes -------------------------------------------------------------------------- */

typedef struct {
    const char* name;
    const char* mpi_max; /* GHZ_COLL_MPI_MAX (NULL: unset) */
    int staged;          /* GHZ_COLL_TEST_STAGED (the tests' library) */
    int host;            /* GHZ_COLL_TEST_HOST_PATH (the tests' library): the CUDA
                            backend's host path for small exact calls */
    int library_exact;   /* exact calls run the MPI library's own collective (or NCCL's):
                            unchecked, counts that differ are undefined there, as in MPI
                            (COLL.md, Errors), so the failure case does not run */
} route_t;

#ifdef GHZ_TEST_CUDA
/* (host: a CUDA communicator takes its own host path, the MPI library's call, for small
 * exact calls; the variable open_comm sets is the test library's and changes nothing here) */
static route_t routes[] = {{"device", NULL, 0, 1, 0}};
#else
static route_t routes[] = {{"mpi library", NULL, 0, 0, 1},
                           {"ghz algorithms", "0", 0, 0, 0},
                           {"staged", "0", 1, 0, 0},
                           {"host path", "0", 1, 1, 0}};
#endif
enum { NROUTES = sizeof routes / sizeof routes[0] };

/* A communicator of route rt (check_args as given); NULL after a failed CHECK. On the
 * CUDA build the transport is the one GHZ_COLL_TRANSPORT names. */
static ghz_comm_t* open_comm(const route_t* rt, int check_args)
{
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    ghz_comm_t* c = NULL;
    ghz_status_t st;
#ifdef GHZ_TEST_CUDA
    cfg.backend = GHZ_EXEC_CUDA;
#endif
    cfg.check_args = check_args;
    if (rt->mpi_max) setenv("GHZ_COLL_MPI_MAX", rt->mpi_max, 1);
    if (rt->staged) setenv("GHZ_COLL_TEST_STAGED", "1", 1);
    if (rt->host) setenv("GHZ_COLL_TEST_HOST_PATH", "1", 1);
    st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &c);
    unsetenv("GHZ_COLL_MPI_MAX");
    unsetenv("GHZ_COLL_TEST_STAGED");
    unsetenv("GHZ_COLL_TEST_HOST_PATH");
    CHECK(st == GHZ_SUCCESS, "%s: init: %s (%s)", rt->name, ghz_status_string(st), ghz_last_error_detail());
#ifdef GHZ_TEST_CUDA
    if (c) {
        const char* env = getenv("GHZ_COLL_TRANSPORT");
        ghz_comm_config_t got = GHZ_COMM_CONFIG_INIT;
        ghz_transport_t tr = GHZ_TRANSPORT_MPI;
        if (env && !strcmp(env, "ipc")) tr = GHZ_TRANSPORT_CUDA_IPC;
        if (env && !strcmp(env, "nccl")) tr = GHZ_TRANSPORT_NCCL;
        ghz_comm_config(c, &got);
        CHECK(got.transport == tr, "the transport in use is %d, not %s's %d", (int)got.transport, env ? env : "mpi",
              (int)tr);
    }
#endif
    return c;
}

/* ---- what a refused call must look like ------------------------------------------------ */

/* A call that one or more ranks refuse: the ranks in `erring` return `own` (naming
 * `word` in the detail when given), every other rank GHZ_ERR_PEER; where no rank errs
 * (erring 0 everywhere) the call must succeed. */
static void expect_refused(const char* what, const args_t* a, ghz_status_t st, int erring, ghz_status_t own,
                           const char* word)
{
    int any = 0;
    MPI_Allreduce(&erring, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (erring)
        CHECK(st == own && (!word || strstr(ghz_last_error_detail(), word)), "%s, %s: %s (%s), expected %s naming %s",
              calls[a->call].name, what, ghz_status_string(st), ghz_last_error_detail(), ghz_status_string(own),
              word ? word : "-");
    else if (any)
        CHECK(st == GHZ_ERR_PEER, "%s, %s, another rank refusing: %s (%s)", calls[a->call].name, what,
              ghz_status_string(st), ghz_last_error_detail());
    else
        CHECK(st == GHZ_SUCCESS, "%s, %s: %s (%s)", calls[a->call].name, what, ghz_status_string(st),
              ghz_last_error_detail());
}

/* An error on every rank, `own` on the ranks in `erring` (or on one rank at least where
 * any_of); GHZ_ERR_MISMATCH or GHZ_ERR_PEER on the others. */
static void expect_error_everywhere(const char* what, const args_t* a, ghz_status_t st, ghz_status_t own)
{
    int mine = st == own, some = 0;
    MPI_Allreduce(&mine, &some, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(st == own || st == GHZ_ERR_PEER || st == GHZ_ERR_MISMATCH, "%s, %s: %s (%s)", calls[a->call].name, what,
          ghz_status_string(st), ghz_last_error_detail());
    if (g_rank == 0) CHECK(some, "%s, %s: no rank returned %s", calls[a->call].name, what, ghz_status_string(own));
}

/* A call with separate send and receive buffers laid out for `a` (room for `slack`
 * more elements each), filled, run, read back; *untouched: the receive side kept its
 * sentinels and the send side its values. */
typedef struct {
    buf_t s, r;
    float *s0, *r0;
} pair_t;

static pair_t pair_new(const args_t* a, size_t slack)
{
    pair_t p;
    const size_t sl = side_len(a, 1) + slack, rl = side_len(a, 0) + slack;
    p.s = buf_new(sl);
    p.r = buf_new(rl);
    fill_send(a, &p.s, 0);
    for (size_t i = 0; i < rl; i++) p.r.host[i] = SENTINEL;
    p.s0 = malloc((sl + 1) * sizeof(float));
    p.r0 = malloc((rl + 1) * sizeof(float));
    memcpy(p.s0, p.s.host, sl * sizeof(float));
    memcpy(p.r0, p.r.host, rl * sizeof(float));
    buf_push(&p.s);
    buf_push(&p.r);
    return p;
}

/* The number of elements of either buffer the call wrote. */
static size_t pair_written(pair_t* p)
{
    buf_pull(&p->s);
    buf_pull(&p->r);
    return changed(&p->s, p->s0) + changed(&p->r, p->r0);
}

static void pair_free(pair_t* p)
{
    buf_free(&p->s);
    buf_free(&p->r);
    free(p->s0);
    free(p->r0);
}

/* A call with this rank's arguments a and separate buffers, expected refused as
 * expect_refused says; then nothing may be written, on any rank. */
static void refused_call(const char* what, const args_t* a, ghz_comm_t* c, int erring, ghz_status_t own,
                         const char* word, size_t slack)
{
    pair_t p = pair_new(a, slack);
    const ghz_status_t st = issue(a, p.s.len ? p.s.mem : NULL, p.r.len ? p.r.mem : NULL, c);
    size_t w;
    expect_refused(what, a, st, erring, own, word);
    w = pair_written(&p);
    CHECK(st == GHZ_SUCCESS || w == 0, "%s, %s: refused (%s), yet %zu elements were written", calls[a->call].name, what,
          ghz_status_string(st), w);
    pair_free(&p);
}

/* ---- overlap ----------------------------------------------------------------------------- */

/* One buffer holding both sides, the send side `shift` elements after the receive side
 * (before it where shift < 0) on the ranks in `bad` that have both; separate buffers
 * elsewhere. */
static void overlap_call(const args_t* a, ghz_comm_t* c, int bad, long shift)
{
    const int both = has_send(a) && has_recv(a), erring = bad && both;
    char what[96];
    snprintf(what, sizeof what, "sendbuf = recvbuf %+ld on %s", shift, bad && g_size > 1 ? "this rank" : "every rank");
    if (!erring) {
        refused_call(what, a, c, 0, GHZ_SUCCESS, NULL, 0);
        return;
    }
    {
        const size_t sl = side_len(a, 1), rl = side_len(a, 0), len = sl + rl + 8;
        const size_t roff = shift < 0 ? (size_t)-shift : 0, soff = shift < 0 ? 0 : (size_t)shift;
        buf_t b = buf_new(len);
        float* copy = malloc(len * sizeof(float));
        ghz_status_t st;
        size_t w;
        fill_send(a, &b, soff);
        memcpy(copy, b.host, len * sizeof(float));
        buf_push(&b);
        st = issue(a, buf_at(&b, soff), buf_at(&b, roff), c);
        expect_refused(what, a, st, 1, GHZ_ERR_INVALID_ARG, "overlap");
        buf_pull(&b);
        w = changed(&b, copy);
        CHECK(w == 0, "%s, %s: %zu elements written", calls[a->call].name, what, w);
        free(copy);
        buf_free(&b);
    }
}

static void case_overlap(ghz_comm_t* c)
{
    int k;
    for (k = 0; k < NCALLS; k++) {
        /* every rank (the rooted calls: the root has both sides), then the odd rank alone
         * (the root there) */
        args_t a = args_of(k, NB, 0);
        overlap_call(&a, c, 1, 1);
        overlap_call(&a, c, 1, -1);
        a = args_of(k, NB, odd_rank());
        overlap_call(&a, c, g_rank == odd_rank(), 1);
        if ((calls[k].forms & IP_SAME) && calls[k].v && g_size > 1) {
            /* sendbuf == recvbuf, the sides laid out otherwise (the send blocks in reverse
             * order): no in-place form, they overlap */
            int p;
            a = args_of(k, NB, 0);
            for (p = 0; p < g_size; p++) a.sdis[p] = a.rdis[g_size - 1 - p];
            overlap_call(&a, c, 1, 0);
        }
    }
}

/* The route in use, and the calls of a case that the MPI library's own collective ran
 * (ghz_coll_info_t.algo): the routes must be what they say. */
static const route_t* g_route;
static int g_library_calls;

static void note_algo(ghz_comm_t* c, ghz_status_t st, const char* what)
{
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    if (st != GHZ_SUCCESS || ghz_comm_info(c, &info) != GHZ_SUCCESS) return;
    g_library_calls += info.algo == GHZ_ALGO_MPI;
    if (!g_route->library_exact && !g_route->host)
        CHECK(info.algo != GHZ_ALGO_MPI, "%s on route %s ran the MPI library's call", what, g_route->name);
}

/* ---- in place ---------------------------------------------------------------------------- */

/* One in-place form of a call on the ranks with both sides (separate buffers on the
 * others): the input at B + soff in the send side's layout, sendbuf and recvbuf as the
 * form says; the result read at B + roff. */
static void in_place_call(const args_t* a, ghz_comm_t* c, unsigned form, const char* form_name)
{
    const call_t* k = &calls[a->call];
    const double tol = a->acc ? a->acc->bound : 0.0;
    char what[96];
    snprintf(what, sizeof what, "%s, %s", form_name, a->acc ? "lossy" : "exact");
    if (!(has_send(a) && has_recv(a))) {
        pair_t p = pair_new(a, 0);
        const ghz_status_t st = issue(a, p.s.len ? p.s.mem : NULL, p.r.len ? p.r.mem : NULL, c);
        size_t wrong = 0;
        CHECK(st == GHZ_SUCCESS, "%s, %s (another rank in place): %s (%s)", k->name, what, ghz_status_string(st),
              ghz_last_error_detail());
        note_algo(c, st, k->name);
        pair_written(&p);
        if (st == GHZ_SUCCESS && p.r.len) wrong = wrong_result(a, &p.r, 0, tol);
        CHECK(wrong == 0, "%s, %s (another rank in place): %zu elements wrong", k->name, what, wrong);
        pair_free(&p);
        return;
    }
    {
        const size_t sl = side_len(a, 1), rl = side_len(a, 0);
        const size_t mine = (size_t)g_rank * stride_of(a);
        /* a single send block sits at this rank's receive block; a single receive block
         * at this rank's send block where the form says so */
        const size_t soff = !k->send_blocks && k->recv_blocks ? mine : 0;
        const size_t roff = form == IP_RECV_IN_SEND ? mine : 0;
        const size_t len = (soff + sl > roff + rl ? soff + sl : roff + rl) + 1;
        buf_t b = buf_new(len);
        float* copy = malloc(len * sizeof(float));
        const void* s = form == IP_MPI ? MPI_IN_PLACE : (const void*)buf_at(&b, soff);
        void* r = form == IP_MPI_RECV ? MPI_IN_PLACE : (void*)buf_at(&b, roff);
        ghz_status_t st;
        size_t wrong;
        fill_send(a, &b, soff);
        memcpy(copy, b.host, len * sizeof(float));
        buf_push(&b);
        st = issue(a, s, r, c);
        CHECK(st == GHZ_SUCCESS, "%s, %s: %s (%s)", k->name, what, ghz_status_string(st), ghz_last_error_detail());
        note_algo(c, st, k->name);
        buf_pull(&b);
        /* (MPI_IN_PLACE as scatter's recvbuf: the root's buffer is only read) */
        wrong = form == IP_MPI_RECV ? changed(&b, copy) : wrong_result(a, &b, roff, tol);
        CHECK(st != GHZ_SUCCESS || wrong == 0, "%s, %s: %zu of %zu elements wrong", k->name, what, wrong,
              form == IP_MPI_RECV ? len : rl);
        free(copy);
        buf_free(&b);
    }
}

static void case_in_place(ghz_comm_t* c)
{
    static const struct {
        unsigned form;
        const char* name;
    } forms[] = {{IP_MPI, "MPI_IN_PLACE"},
                 {IP_MPI_RECV, "recvbuf MPI_IN_PLACE"},
                 {IP_SAME, "sendbuf == recvbuf"},
                 {IP_SEND_IN_RECV, "sendbuf at this rank's block of recvbuf"},
                 {IP_RECV_IN_SEND, "recvbuf at this rank's block of sendbuf"}};
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    int k, lossy, root;
    size_t f;
    acc.mode = GHZ_EB_ABS;
    acc.bound = 0.25; /* (elements from elsewhere differ by 1 at least) */
    acc.path = GHZ_PATH_HOMO;
    for (k = 0; k < NCALLS; k++)
        for (lossy = 0; lossy < 2; lossy++)
            for (root = 0; root < (calls[k].rooted && g_size > 1 ? 2 : 1); root++)
                for (f = 0; f < sizeof forms / sizeof forms[0]; f++) {
                    args_t a = args_of(k, NB, root ? odd_rank() : 0);
                    a.acc = lossy ? &acc : NULL;
                    if (calls[k].forms & forms[f].form) in_place_call(&a, c, forms[f].form, forms[f].name);
                }
    /* MPI_IN_PLACE as sendbuf where the call takes none: the other ranks of a call whose
     * root alone receives (reduce, gather(v)), and scatter(v)'s root */
    for (k = 0; k < NCALLS; k++) {
        args_t a = args_of(k, NB, 0);
        const int bad = calls[k].recv_at == AT_ROOT     ? g_rank != a.root
                        : (calls[k].forms & IP_MPI_RECV) ? g_rank == a.root
                                                         : -1;
        pair_t p;
        ghz_status_t st;
        size_t w;
        if (bad < 0) continue;
        p = pair_new(&a, 0);
        st = issue(&a, bad ? MPI_IN_PLACE : (p.s.len ? p.s.mem : NULL), p.r.len ? p.r.mem : NULL, c);
        expect_refused("MPI_IN_PLACE as sendbuf where the call takes none", &a, st, bad, GHZ_ERR_INVALID_ARG,
                       "MPI_IN_PLACE");
        w = pair_written(&p);
        CHECK(st == GHZ_SUCCESS || w == 0, "%s: refused, yet %zu elements written", calls[k].name, w);
        pair_free(&p);
    }
}

/* ---- sizes ------------------------------------------------------------------------------- */

static void case_sizes(ghz_comm_t* c, ghz_comm_t* unchecked)
{
    /* a count of each dtype whose buffer is 2^63 bytes */
    static const struct {
        ghz_dtype_t t;
        size_t count;
    } huge[] = {{GHZ_I8, (size_t)1 << 63}, {GHZ_F32, (size_t)1 << 61}, {GHZ_F64, (size_t)1 << 60}};
    const size_t N = (size_t)g_size;
    int k;
    size_t h;
    for (k = 0; k < NCALLS; k++) {
        const call_t* call = &calls[k];
        for (h = 0; h < sizeof huge / sizeof huge[0]; h++) {
            /* every rank, checked and unchecked: refused on every rank before anything is
             * read (the buffers hold 16 elements) */
            args_t a = args_of(k, huge[h].count, 0);
            int p, u;
            a.t = huge[h].t;
            for (p = 0; p < g_size; p++) a.scnt[p] = a.rcnt[p] = huge[h].count;
            for (p = 0; p < g_size; p++) a.sdis[p] = a.rdis[p] = 0;
            for (u = 0; u < 2; u++) {
                buf_t s = buf_new(16), r = buf_new(16);
                const ghz_status_t st = issue(&a, s.mem, r.mem, u ? unchecked : c);
                CHECK(st == GHZ_ERR_INVALID_ARG && strstr(ghz_last_error_detail(), "PTRDIFF_MAX"),
                      "%s of %zu %s%s: %s (%s)", call->name, huge[h].count, ghz_dtype_name(a.t),
                      u ? ", unchecked" : "", ghz_status_string(st), ghz_last_error_detail());
                buf_free(&s);
                buf_free(&r);
            }
        }
        if (g_size > 1 && (call->send_blocks || call->recv_blocks)) {
            /* a block per rank whose size fits, N of them that do not: refused where the
             * rank has the side of N blocks */
            args_t a = args_of(k, (size_t)PTRDIFF_MAX / sizeof(float) / N + 1, 0);
            const int bad = (call->send_blocks && has_send(&a)) || (call->recv_blocks && has_recv(&a));
            int p;
            buf_t s = buf_new(16), r = buf_new(16);
            ghz_status_t st;
            for (p = 0; p < g_size; p++) {
                a.scnt[p] = a.rcnt[p] = a.n;
                a.sdis[p] = a.rdis[p] = (size_t)p * a.n;
            }
            st = issue(&a, s.mem, r.mem, c);
            expect_refused("N blocks past PTRDIFF_MAX bytes", &a, st, bad, GHZ_ERR_INVALID_ARG, NULL);
            buf_free(&s);
            buf_free(&r);
        }
        if (call->v) {
            /* the last block's end past PTRDIFF_MAX bytes, in the arrays this rank reads */
            args_t a = args_of(k, 4, 0);
            const size_t far = (size_t)PTRDIFF_MAX / sizeof(float) - 2;
            int reads;
            a.sdis[g_size - 1] = a.rdis[g_size - 1] = far;
            reads = (call->send_blocks && has_send(&a)) || (call->recv_blocks && has_recv(&a));
            refused_call("a displacement past PTRDIFF_MAX bytes", &a, c, reads, GHZ_ERR_INVALID_ARG, "PTRDIFF_MAX", 0);
        }
        {
            /* the odd rank alone: a count past PTRDIFF_MAX bytes there, PEER elsewhere */
            args_t a = args_of(k, NB, 0);
            const int odd = g_rank == odd_rank();
            int p;
            if (odd) {
                a.n = a.sendcount = a.recvcount = (size_t)1 << 62;
                for (p = 0; p < g_size; p++) a.scnt[p] = a.rcnt[p] = a.n;
            }
            {
                buf_t s = buf_new(odd ? 16 : side_len(&a, 1));
                buf_t r = buf_new(odd ? 16 : side_len(&a, 0));
                const ghz_status_t st = issue(&a, s.mem, r.mem, c);
                /* (the odd rank's own huge count is on a side it has: every call's rank
                 * has one side at least, with the count) */
                expect_refused("a count past PTRDIFF_MAX bytes on one rank", &a, st, odd, GHZ_ERR_INVALID_ARG,
                               "PTRDIFF_MAX");
                buf_free(&s);
                buf_free(&r);
            }
        }
    }
}

/* ---- fill values ------------------------------------------------------------------------- */

static void case_fill(ghz_comm_t* c)
{
    static const ghz_path_t paths[] = {GHZ_PATH_HOMO, GHZ_PATH_DOC, GHZ_PATH_AUTO};
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    size_t pth;
    int k, nccl;
    ghz_comm_config(c, &cfg);
    nccl = cfg.transport == GHZ_TRANSPORT_NCCL;
    acc.mode = GHZ_EB_REL;
    acc.bound = 1e-4;
    for (k = 0; k < NCALLS; k++)
        for (pth = 0; pth < sizeof paths / sizeof paths[0]; pth++) {
            args_t a = args_of(k, NB, 0);
            pair_t p;
            ghz_status_t st;
            size_t i, w;
            acc.path = paths[pth];
            a.acc = &acc;
            p = pair_new(&a, 0);
            /* a netCDF fill value in every 10th element of every block sent */
            for (i = 0; i < p.s.len; i++)
                if (p.s.host[i] != SENTINEL && i % 10 == 0) p.s.host[i] = -1e34f;
            memcpy(p.s0, p.s.host, p.s.len * sizeof(float));
            buf_push(&p.s);
            st = issue(&a, p.s.len ? p.s.mem : NULL, p.r.len ? p.r.mem : NULL, c);
            if (nccl && paths[pth] == GHZ_PATH_AUTO && st == GHZ_SUCCESS) {
                /* over NCCL a call that AUTO runs exact scans no range (COLL.md, NCCL):
                 * exact, it meets any bound */
                ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
                ghz_comm_info(c, &info);
                CHECK(info.eb_abs == 0.0 && info.wire_bytes == info.logical_bytes,
                      "%s, REL over fill values, AUTO over NCCL: succeeded but compressed (eb %g)", calls[k].name,
                      info.eb_abs);
                pair_free(&p);
                continue;
            }
            CHECK(st == GHZ_ERR_BAD_BOUND && strstr(ghz_last_error_detail(), "fill"),
                  "%s, REL over fill values, path %d: %s (%s)", calls[k].name, (int)paths[pth], ghz_status_string(st),
                  ghz_last_error_detail());
            w = pair_written(&p);
            CHECK(w == 0, "%s, REL over fill values: %zu elements written", calls[k].name, w);
            pair_free(&p);
        }
}

/* ---- roots --------------------------------------------------------------------------------- */

static void case_root(ghz_comm_t* c)
{
    int k;
    for (k = 0; k < NCALLS; k++) {
        int bad;
        if (!calls[k].rooted) continue;
        /* out of range on every rank: -1, N, INT32_MIN (buffers sized as for root 0) */
        for (bad = 0; bad < 3; bad++) {
            const int root = bad == 0 ? -1 : bad == 1 ? g_size : INT32_MIN;
            args_t a = args_of(k, NB, 0);
            pair_t p = pair_new(&a, side_len(&a, 1) + side_len(&a, 0) + (size_t)g_size * NB);
            ghz_status_t st;
            size_t w;
            a.root = root;
            st = issue(&a, p.s.mem, p.r.mem, c);
            CHECK(st == GHZ_ERR_INVALID_ARG && strstr(ghz_last_error_detail(), "root"), "%s, root %d: %s (%s)",
                  calls[k].name, root, ghz_status_string(st), ghz_last_error_detail());
            w = pair_written(&p);
            CHECK(w == 0, "%s, root %d: %zu elements written", calls[k].name, root, w);
            pair_free(&p);
        }
        /* out of range on the odd rank alone (N there, 0 elsewhere) */
        {
            args_t a = args_of(k, NB, 0);
            pair_t p = pair_new(&a, (size_t)g_size * stride_of(&a));
            const int odd = g_rank == odd_rank();
            ghz_status_t st;
            size_t w;
            if (odd) a.root = g_size;
            st = issue(&a, p.s.mem, p.r.mem, c);
            expect_refused("root N on one rank", &a, st, odd, GHZ_ERR_INVALID_ARG, "root");
            w = pair_written(&p);
            CHECK(st == GHZ_SUCCESS || w == 0, "%s, root N on one rank: %zu elements written", calls[k].name, w);
            pair_free(&p);
        }
        /* roots in range that differ: the odd rank names itself */
        if (g_size > 1) {
            args_t a = args_of(k, NB, 0);
            pair_t p;
            ghz_status_t st;
            size_t w;
            /* (buffers as the root's: both sides) */
            a.root = g_rank;
            p = pair_new(&a, 0);
            a.root = g_rank == odd_rank() ? odd_rank() : 0;
            st = issue(&a, p.s.mem, p.r.mem, c);
            expect_error_everywhere("roots that differ", &a, st, GHZ_ERR_MISMATCH);
            w = pair_written(&p);
            CHECK(w == 0, "%s, roots that differ: %zu elements written", calls[k].name, w);
            pair_free(&p);
        }
    }
}

/* ---- the v forms' arrays --------------------------------------------------------------- */

static void case_vform(ghz_comm_t* c, ghz_comm_t* unchecked)
{
    int k, which, u;
    for (k = 0; k < NCALLS; k++) {
        const call_t* call = &calls[k];
        if (!call->v) continue;
        /* NULL counts, then NULL displacements, on every rank: refused where the rank
         * reads the array (the root alone in the rooted calls) */
        for (which = 0; which < 2; which++) {
            args_t a = args_of(k, NB, 0);
            const int reads = (call->send_blocks && has_send(&a)) || (call->recv_blocks && has_recv(&a));
            if (which == 0) a.null_counts = 1;
            else a.null_displs = 1;
            refused_call(which ? "NULL displacements" : "NULL counts", &a, c, reads, GHZ_ERR_INVALID_ARG, "NULL", 0);
        }
        /* the odd rank's count of one pair one short of what its peer says (rank 0 the
         * root: the odd rank's sendcount, recvcount, or its block for rank 0), checked
         * and unchecked (the v forms agree on their counts either way) */
        for (u = 0; u < 2 && g_size > 1; u++) {
            args_t a = args_of(k, NB, 0);
            pair_t p = pair_new(&a, 0);
            ghz_status_t st;
            size_t w;
            if (g_rank == odd_rank()) {
                a.sendcount = a.recvcount = NB - 1;
                a.scnt[0] = NB - 1;
            }
            st = issue(&a, p.s.mem, p.r.mem, u ? unchecked : c);
            expect_error_everywhere(u ? "counts that do not pair, unchecked" : "counts that do not pair", &a, st,
                                    GHZ_ERR_MISMATCH);
            w = pair_written(&p);
            CHECK(w == 0, "%s, counts that do not pair: %zu elements written", call->name, w);
            pair_free(&p);
        }
    }
}

/* ---- NULL ------------------------------------------------------------------------------- */

static void case_null(ghz_comm_t* c)
{
    int k, side, root;
    for (k = 0; k < NCALLS; k++) {
        const call_t* call = &calls[k];
        /* a NULL side on the odd rank, the root 0 and the odd rank */
        for (root = 0; root < (call->rooted && g_size > 1 ? 2 : 1); root++)
            for (side = 0; side < 2; side++) {
                args_t a = args_of(k, NB, root ? odd_rank() : 0);
                const int odd = g_rank == odd_rank(), has = side ? has_recv(&a) : has_send(&a);
                pair_t p = pair_new(&a, 0);
                const void* s = p.s.len ? p.s.mem : NULL;
                void* r = p.r.len ? p.r.mem : NULL;
                ghz_status_t st;
                size_t w, wrong = 0;
                if (odd && side) r = NULL;
                if (odd && !side) s = NULL;
                st = issue(&a, s, r, c);
                expect_refused(side ? "NULL recvbuf on one rank" : "NULL sendbuf on one rank", &a, st, odd && has,
                               GHZ_ERR_INVALID_ARG, "NULL");
                w = pair_written(&p);
                if (st == GHZ_SUCCESS && p.r.len && r) wrong = wrong_result(&a, &p.r, 0, 0.0);
                CHECK(st == GHZ_SUCCESS ? wrong == 0 : w == 0, "%s, NULL %s on rank %d (root %d): %s, %zu written, %zu wrong",
                      call->name, side ? "recvbuf" : "sendbuf", odd_rank(), a.root, ghz_status_string(st), w, wrong);
                pair_free(&p);
            }
        /* count 0, NULL buffers: fine */
        {
            args_t a = args_of(k, 0, 0);
            const ghz_status_t st = issue(&a, NULL, NULL, c);
            CHECK(st == GHZ_SUCCESS, "%s of 0 elements, NULL buffers: %s (%s)", call->name, ghz_status_string(st),
                  ghz_last_error_detail());
        }
        /* a NULL communicator */
        {
            args_t a = args_of(k, NB, 0);
            pair_t p = pair_new(&a, 0);
            const ghz_status_t st = issue(&a, p.s.mem, p.r.mem, NULL);
            CHECK(st == GHZ_ERR_INVALID_ARG, "%s on a NULL communicator: %s", call->name, ghz_status_string(st));
            pair_free(&p);
        }
    }
}

/* ---- mismatch ------------------------------------------------------------------------- */

static void case_mismatch(ghz_comm_t* c)
{
    enum { M_COUNT, M_DTYPE, M_OP, M_BOUND, M_PATH, M_LOSSY, NM };
    static const char* const mname[NM] = {"count", "dtype", "op", "bound", "path", "lossy on one rank"};
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT, other;
    int k, m;
    acc.mode = GHZ_EB_ABS;
    acc.bound = 0.25;
    acc.path = GHZ_PATH_HOMO;
    if (g_size == 1) return;
    for (k = 0; k < NCALLS; k++)
        for (m = 0; m < NM; m++) {
            args_t a = args_of(k, NB, 0);
            const int odd = g_rank == odd_rank();
            pair_t p;
            ghz_status_t st;
            size_t w;
            if (m == M_OP && !calls[k].reduces) continue;
            /* (the v forms' counts: case vform) */
            if (m == M_COUNT && calls[k].v) continue;
            other = acc;
            a.acc = m >= M_BOUND ? &acc : NULL;
            /* (room for one more element a block, or f64) */
            p = pair_new(&a, side_len(&a, 1) + side_len(&a, 0) + (size_t)g_size * 2);
            if (odd) switch (m) {
                case M_COUNT: a.n += 1; break;
                case M_DTYPE: a.t = GHZ_F64; break;
                case M_OP: a.op = GHZ_OP_MAX; break;
                case M_BOUND: other.bound = 0.5; a.acc = &other; break;
                case M_PATH: other.path = GHZ_PATH_DOC; a.acc = &other; break;
                default: a.acc = NULL; break;
                }
            st = issue(&a, p.s.mem, p.r.mem, c);
            expect_error_everywhere(mname[m], &a, st, GHZ_ERR_MISMATCH);
            w = pair_written(&p);
            CHECK(w == 0, "%s, %s differing: %zu elements written", calls[k].name, mname[m], w);
            pair_free(&p);
        }
    {
        /* the communicator still works */
        args_t a = args_of(C_ALLREDUCE, NB, 0);
        pair_t p = pair_new(&a, 0);
        const ghz_status_t st = issue(&a, p.s.mem, p.r.mem, c);
        pair_written(&p);
        CHECK(st == GHZ_SUCCESS && wrong_result(&a, &p.r, 0, 0.0) == 0, "after the mismatches: %s",
              ghz_status_string(st));
        pair_free(&p);
    }
}

/* ---- failure --------------------------------------------------------------------------- */

/* Call k, lossy (a call that always agrees), out of place. */
static ghz_status_t agreed_call(int k, ghz_comm_t* c)
{
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    args_t a = args_of(k, NB, 0);
    pair_t p = pair_new(&a, 0);
    ghz_status_t st;
    acc.mode = GHZ_EB_ABS;
    acc.bound = 0.25;
    a.acc = &acc;
    st = issue(&a, p.s.len ? p.s.mem : NULL, p.r.len ? p.r.mem : NULL, c);
    pair_free(&p);
    return st;
}

static void case_failure(const route_t* route)
{
    /* (counts that differ are undefined in the MPI library's own collective, which a
     * CUDA communicator's host path runs for small exact calls: that hangs at 3 ranks.
     * The failure rule is ghz's, so its algorithms run them: GHZ_COLL_MPI_MAX=0) */
    route_t own = *route;
    const route_t* rt = &own;
    int k, then, q;
    if (!own.mpi_max) own.mpi_max = "0";
    if (g_size == 1 || rt->library_exact) return;
    for (k = 0; k < NCALLS; k++)
        for (then = 0; then < 2; then++) {
            ghz_comm_t* c = open_comm(rt, 0);
            args_t a = args_of(k, NB, 0);
            pair_t p;
            ghz_status_t st, async = GHZ_SUCCESS;
            int mine, any_broken = 0;
            double t0;
            if (!c) continue;
            p = pair_new(&a, side_len(&a, 1) + side_len(&a, 0) + (size_t)g_size * 2);
            if (g_rank == odd_rank()) {
                a.n = a.sendcount = a.recvcount = NB + 1;
                for (q = 0; q < g_size; q++) a.scnt[q] = a.rcnt[q] = NB + 1;
            }
            st = issue(&a, p.s.mem, p.r.mem, c);
            pair_written(&p);
            ghz_comm_get_async_error(c, &async);
            if (calls[k].v)
                /* (the v forms agree on their counts pair by pair, checked or not: the call
                 * fails on every rank before anything moves, and nothing breaks) */
                CHECK(st != GHZ_SUCCESS && async == GHZ_SUCCESS, "%s, counts that differ: %s, async error %s",
                      calls[k].name, ghz_status_string(st), ghz_status_string(async));
            else
                CHECK(st == GHZ_SUCCESS || async != GHZ_SUCCESS, "%s failed (%s) and left the communicator whole",
                      calls[k].name, ghz_status_string(st));
            if (async != GHZ_SUCCESS) {
                /* broken: every unchecked exact call fails at once with the async error,
                 * meets no peer and writes nothing (the v forms always agree: they meet
                 * the peers, as the lossy calls below) */
                t0 = MPI_Wtime();
                for (q = 0; q < NCALLS; q++) {
                    args_t b = args_of(q, NB, 0);
                    if (calls[q].v) continue;
                    pair_t pb = pair_new(&b, 0);
                    const ghz_status_t sq = issue(&b, pb.s.mem, pb.r.mem, c);
                    const size_t w = pair_written(&pb);
                    CHECK(sq == async && strstr(ghz_last_error_detail(), "broken") && w == 0,
                          "%s on a communicator %s broke: %s (%s), %zu written", calls[q].name, calls[k].name,
                          ghz_status_string(sq), ghz_last_error_detail(), w);
                    pair_free(&pb);
                }
                CHECK(MPI_Wtime() - t0 < 5.0, "calls on a broken communicator took %.1f s", MPI_Wtime() - t0);
            }
            mine = async != GHZ_SUCCESS;
            MPI_Allreduce(&mine, &any_broken, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (then && any_broken) {
                /* a peer is broken: the next agreed call (this one, lossy) tells every
                 * healthy rank; the broken ones return their own status */
                const ghz_status_t was = async;
                st = agreed_call(k, c);
                ghz_comm_get_async_error(c, &async);
                CHECK(st != GHZ_SUCCESS && async != GHZ_SUCCESS && (was == GHZ_SUCCESS || st == was),
                      "%s, then the lossy call: %s (%s), async error %s: a peer is broken", calls[k].name,
                      ghz_status_string(st), ghz_last_error_detail(), ghz_status_string(async));
            }
            pair_free(&p);
            t0 = MPI_Wtime();
            ghz_comm_destroy(c);
            CHECK(MPI_Wtime() - t0 < 10.0, "%s: destroy took %.1f s", calls[k].name, MPI_Wtime() - t0);
        }
}

/* ---- main -------------------------------------------------------------------------------- */

int main(int argc, char** argv)
{
    static const char* const parts[] = {"overlap", "in_place", "sizes", "fill", "root",
                                        "vform",   "null",     "mismatch", "failure"};
    const char* part = argc > 1 ? argv[1] : "overlap";
    size_t i, rt;
    int known = 0, fails;
    if (mpi_check_start(&argc, &argv, &g_rank, &g_size)) return 77;
#ifdef GHZ_TEST_CUDA
    {
        const char* tr = getenv("GHZ_COLL_TRANSPORT");
        routes[0].name = tr ? tr : "mpi";
        routes[0].library_exact = tr && !strcmp(tr, "nccl");
    }
#endif
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++) known |= !strcmp(part, parts[i]);
    if (!known || g_size > MAXR) {
        if (g_rank == 0) fprintf(stderr, "usage: test_coll_calls overlap|in_place|sizes|fill|root|vform|null|mismatch|failure (at most %d ranks)\n", MAXR);
        MPI_Finalize();
        return 1;
    }
    for (rt = 0; rt < NROUTES; rt++) {
        const int before = mpi_check_failures;
        if (!strcmp(part, "failure")) case_failure(&routes[rt]);
        else {
            ghz_comm_t* c = open_comm(&routes[rt], 1);
            ghz_comm_t* u = open_comm(&routes[rt], 0);
            if (c && u) {
                if (!strcmp(part, "overlap")) case_overlap(c);
                else if (!strcmp(part, "in_place")) {
                    g_route = &routes[rt];
                    g_library_calls = 0;
                    case_in_place(c);
                    /* (exact calls of 2 ranks or more on that route take the MPI library's
                     * own collective: allreduce and the data movement) */
                    if (routes[rt].library_exact && g_size > 1)
                        CHECK(g_library_calls > 0, "route %s: no call ran the MPI library's collective", routes[rt].name);
                }
                else if (!strcmp(part, "sizes")) case_sizes(c, u);
                else if (!strcmp(part, "fill")) case_fill(c);
                else if (!strcmp(part, "root")) case_root(c);
                else if (!strcmp(part, "vform")) case_vform(c, u);
                else if (!strcmp(part, "null")) case_null(c);
                else case_mismatch(c);
            }
            ghz_comm_destroy(u);
            ghz_comm_destroy(c);
        }
        if (mpi_check_failures > before)
            fprintf(stderr, "rank %d: %s on route %s: %d failed checks\n", g_rank, part, routes[rt].name,
                    mpi_check_failures - before);
    }
    fails = mpi_check_finish(part);
    MPI_Finalize();
    return fails ? 1 : 0;
}
