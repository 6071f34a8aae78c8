/* test/coll/mpi_contract.c: the contract of libghzcoll with hostile callers, on N ranks.
 *
 *   mpirun -np N test_coll_contract config|env|debug|args|broken|levels|tags|die|exit
 *
 * config: every configuration field that shapes a call, and every environment knob that
 *         does, set differently on one rank: ghz_comm_init refuses with GHZ_ERR_MISMATCH
 *         on every rank (no hang, no communicator); a field the caller sets explicitly
 *         wins over the environment.
 * env:    a value the library cannot parse, on one rank: that rank GHZ_ERR_INVALID_ARG,
 *         the others GHZ_ERR_PEER naming it.
 * debug:  GHZ_COLL_DEBUG=INFO prints the resolved configuration (CTest matches it).
 * args:   the call's arguments: fill values with a REL bound, partially overlapping
 *         buffers, counts beyond PTRDIFF_MAX, and the messages of the errors.
 * broken: a failure after data moved marks the communicator broken; abort is local.
 * (The same contract over every call and every transport, from tables: mpi_calls.c.)
 * tags:   the MPI transport never takes an earlier call's message for this call's.
 * levels: (3 ranks or more) the two-level children are made by the first call that runs
 *         a two-level algorithm; where one rank's child cannot be made there (a knob it
 *         cannot parse, set after ghz_comm_init), every rank fails the call, the output
 *         is untouched, and the next call makes them and succeeds.
 * die, exit: one rank is killed, or exits without MPI_Finalize, before a call: the job
 *         ends (mpirun's report), no rank hangs.
 * The CTest timeout turns a hang into a failure.
 */
/* setenv, unsetenv, _exit (POSIX) */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ghz/coll/coll_mpi.h"
#ifdef GHZ_TEST_PRIVATE
#include "ghz/coll/detail/comm_mpi.h" /* (the tags part drives the MPI transport itself) */
#endif
#include "mpi_check.h"

static int g_rank, g_size;
static char g_detail[512]; /* ghz_last_error_detail() of the last try_init */

/* The rank that misbehaves. */
static int odd_rank(void)
{
    return g_size - 1;
}

/* ghz_comm_init with cfg; the status, and the communicator destroyed. */
static ghz_status_t try_init(const ghz_comm_config_t* cfg)
{
    ghz_comm_t* c = NULL;
    ghz_status_t st = ghz_comm_init(MPI_COMM_WORLD, cfg, &c);
    CHECK((st == GHZ_SUCCESS) == (c != NULL), "a communicator with %s", ghz_status_string(st));
    strncpy(g_detail, ghz_last_error_detail(), sizeof g_detail - 1);
    ghz_comm_destroy(c);
    return st;
}

/* ghz_comm_init with the variable `name` set to `value` on the odd rank only. */
static ghz_status_t init_with_env_on_one(const ghz_comm_config_t* cfg, const char* name, const char* value)
{
    ghz_status_t st;
    if (g_rank == odd_rank()) setenv(name, value, 1);
    st = try_init(cfg);
    if (g_rank == odd_rank()) unsetenv(name);
    return st;
}

static int run_config(void)
{
    /* each a configuration that differs from the default on the odd rank */
    enum { F_CHECK, F_THREADS, F_RPN, F_POOL, F_CHUNK, F_AR, F_RS, F_R, F_N };
    static const char* const what[F_N] = {"check_args", "nthreads",        "ranks_per_node",
                                          "pool_bytes", "chunk_bytes",     "allreduce_algo",
                                          "reduce_scatter_algo", "reduce_algo"};
    static const char* const knob[][2] = {
        {"GHZ_COLL_MPI_MAX", "4096"},          {"GHZ_COLL_HOST_PATH_MAX", "0"},
        {"GHZ_COLL_DIRECT_ONE_SHOT_MAX", "0"}, {"GHZ_COLL_CUDA_AWARE_MPI", "0"},
        {"GHZ_GRAPH_FENCE_TIMEOUT_S", "5"},    {"GHZ_COLL_RANKS_PER_NODE", "2"},
        {"GHZ_COLL_AUTO_MIN_BYTES", "1M"}};
    int f;
    size_t i;
    for (f = 0; f < F_N; f++) {
        ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
        ghz_status_t st;
        if (g_rank == odd_rank()) {
            switch (f) {
            case F_CHECK: cfg.check_args = 0; break;
            case F_THREADS: cfg.nthreads = 2; break;
            case F_RPN: cfg.ranks_per_node = 1; break;
            case F_POOL: cfg.pool_bytes = 1 << 20; break;
            case F_CHUNK: cfg.chunk_bytes = 4096; break;
            case F_AR: cfg.allreduce_algo = GHZ_ALGO_RING; break;
            case F_RS: cfg.reduce_scatter_algo = GHZ_ALGO_PAIRWISE; break;
            default: cfg.reduce_algo = GHZ_ALGO_BINOMIAL; break;
            }
        }
        st = try_init(&cfg);
        CHECK(g_size == 1 ? st == GHZ_SUCCESS : st == GHZ_ERR_MISMATCH, "%s on one rank: %s (%s)", what[f],
              ghz_status_string(st), g_detail);
        if (g_size > 1)
            CHECK(strstr(g_detail, what[f]) != NULL, "%s: the detail does not name it: %s", what[f],
                  g_detail);
    }
    for (i = 0; i < sizeof knob / sizeof knob[0]; i++) {
        ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
        const ghz_status_t st = init_with_env_on_one(&cfg, knob[i][0], knob[i][1]);
        CHECK(g_size == 1 ? st == GHZ_SUCCESS : st == GHZ_ERR_MISMATCH, "%s=%s on one rank: %s (%s)", knob[i][0],
              knob[i][1], ghz_status_string(st), g_detail);
    }
    {
        /* the explicit field wins over the environment: ranks_per_node and transport set
         * on every rank, the variables on one */
        ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
        ghz_status_t st;
        cfg.ranks_per_node = 1;
        st = init_with_env_on_one(&cfg, "GHZ_COLL_RANKS_PER_NODE", "2");
        CHECK(st == GHZ_SUCCESS, "ranks_per_node explicit, the variable on one rank: %s (%s)", ghz_status_string(st),
              g_detail);
        cfg.ranks_per_node = 0;
        cfg.transport = GHZ_TRANSPORT_MPI;
        st = init_with_env_on_one(&cfg, "GHZ_COLL_TRANSPORT", "ipc");
        CHECK(st == GHZ_SUCCESS, "transport explicit, the variable on one rank: %s (%s)", ghz_status_string(st),
              g_detail);
        /* and the variable is what a field left to it resolves to */
        if (g_rank == odd_rank()) setenv("GHZ_COLL_RANKS_PER_NODE", "1", 1);
        if (g_size == 1) {
            ghz_comm_t* c = NULL;
            ghz_comm_config_t got = GHZ_COMM_CONFIG_INIT;
            st = ghz_comm_init(MPI_COMM_WORLD, NULL, &c);
            CHECK(st == GHZ_SUCCESS && ghz_comm_config(c, &got) == GHZ_SUCCESS && got.ranks_per_node == 1,
                  "GHZ_COLL_RANKS_PER_NODE=1 resolves to %d", got.ranks_per_node);
            ghz_comm_destroy(c);
        }
        if (g_rank == odd_rank()) unsetenv("GHZ_COLL_RANKS_PER_NODE");
    }
    {
        /* the case: check_args on one rank only used to give a wrong sum */
        ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
        ghz_comm_t* c = NULL;
        ghz_status_t st;
        if (g_rank == 0) cfg.check_args = 0;
        cfg.allreduce_algo = GHZ_ALGO_RING;
        st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &c);
        CHECK(g_size == 1 ? st == GHZ_SUCCESS : st == GHZ_ERR_MISMATCH && c == NULL, "check_args on rank 0 only: %s",
              ghz_status_string(st));
        ghz_comm_destroy(c);
    }
    return mpi_check_finish("config");
}

static int run_env(void)
{
    static const char* const bad[][2] = {
        {"GHZ_COLL_MPI_MAX", "4X"},          {"GHZ_COLL_MPI_MAX", "-1"},
        {"GHZ_COLL_MPI_MAX", " 4096"},       {"GHZ_COLL_MPI_MAX", "2G"},
        {"GHZ_COLL_HOST_PATH_MAX", "abc"},   {"GHZ_COLL_HOST_PATH_MAX", "32M"},
        {"GHZ_COLL_DIRECT_ONE_SHOT_MAX", "1.5M"}, {"GHZ_COLL_RANKS_PER_NODE", "two"},
        {"GHZ_COLL_RANKS_PER_NODE", "2K"},   {"GHZ_COLL_CUDA_AWARE_MPI", "yes"},
        {"GHZ_GRAPH_FENCE_TIMEOUT_S", "0"},  {"GHZ_GRAPH_FENCE_TIMEOUT_S", "5s"},
        {"GHZ_COLL_AUTO_TRACE", "3"},        {"GHZ_COLL_DEBUG", "verbose"},
        {"GHZ_COLL_TRANSPORT", "infiniband"}};
    static const char* const good[][2] = {
        {"GHZ_COLL_MPI_MAX", "64K"}, {"GHZ_COLL_HOST_PATH_MAX", "1m"}, {"GHZ_COLL_DEBUG", "warn"},
        {"GHZ_GRAPH_FENCE_TIMEOUT_S", "0.5"}, {"GHZ_COLL_MPI_MAX", ""}};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const ghz_status_t st = init_with_env_on_one(NULL, bad[i][0], bad[i][1]);
        const ghz_status_t want = g_rank == odd_rank() ? GHZ_ERR_INVALID_ARG : GHZ_ERR_PEER;
        CHECK(st == want, "%s=%s on rank %d: %s (%s)", bad[i][0], bad[i][1], odd_rank(), ghz_status_string(st),
              g_detail);
        if (g_rank == odd_rank())
            CHECK(strstr(g_detail, bad[i][0]) != NULL, "the detail does not name %s: %s", bad[i][0],
                  g_detail);
        else
            CHECK(strstr(g_detail, ghz_status_string(GHZ_ERR_INVALID_ARG)) != NULL,
                  "PEER's detail does not give the failing rank's own status: %s", g_detail);
    }
    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        ghz_status_t st;
        setenv(good[i][0], good[i][1], 1);
        st = try_init(NULL);
        unsetenv(good[i][0]);
        CHECK(st == GHZ_SUCCESS, "%s=%s on every rank: %s (%s)", good[i][0], good[i][1], ghz_status_string(st),
              g_detail);
    }
    {
        /* a size with a suffix is what it says: 4K puts a 4 KiB call on MPI_Allreduce
         * and an 8 KiB one on ghz's own algorithm */
        ghz_comm_t* c = NULL;
        ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
        float x[2048], y[2048];
        ghz_status_t st;
        memset(x, 0, sizeof x);
        setenv("GHZ_COLL_MPI_MAX", "4K", 1);
        st = ghz_comm_init(MPI_COMM_WORLD, NULL, &c);
        unsetenv("GHZ_COLL_MPI_MAX");
        CHECK(st == GHZ_SUCCESS, "GHZ_COLL_MPI_MAX=4K: %s", ghz_status_string(st));
        if (c && g_size > 1) {
            st = ghz_allreduce(x, y, 1024, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
            ghz_comm_info(c, &info);
            CHECK(st == GHZ_SUCCESS && info.algo == GHZ_ALGO_MPI, "4 KiB: %s", ghz_algo_name(info.algo));
            st = ghz_allreduce(x, y, 2048, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
            ghz_comm_info(c, &info);
            CHECK(st == GHZ_SUCCESS && info.algo != GHZ_ALGO_MPI, "8 KiB: %s", ghz_algo_name(info.algo));
        }
        ghz_comm_destroy(c);
    }
    return mpi_check_finish("env");
}

/* A netCDF fill value (-1e34) in every 10th element, the rest ordinary values: a REL
 * bound over them is refused on every rank (it used to succeed with every ordinary
 * value returned as 0); ABS too (the rounding); exact is right. */
static void args_fill(ghz_comm_t* c)
{
    enum { n = 1000 };
    static float x[n], y[n];
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_status_t st;
    int p, i;
    for (i = 0; i < n; i++) x[i] = i % 10 == 0 ? -1e34f : 100.0f + 0.01f * (float)i + (float)g_rank;
    acc.mode = GHZ_EB_REL;
    acc.bound = 1e-4;
    for (p = 0; p < 2; p++) {
        acc.path = p ? GHZ_PATH_DOC : GHZ_PATH_HOMO;
        memset(y, 0, sizeof y);
        st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
        CHECK(st == GHZ_ERR_BAD_BOUND, "REL over fill values (%s): %s (%s), y[1] = %g", p ? "doc" : "homo",
              ghz_status_string(st), ghz_last_error_detail(), (double)y[1]);
        CHECK(st == GHZ_SUCCESS || strstr(ghz_last_error_detail(), "fill") != NULL, "detail: %s",
              ghz_last_error_detail());
        st = ghz_reduce_scatter(x, y, n / (size_t)g_size, GHZ_F32, GHZ_OP_AVG, &acc, c, NULL);
        CHECK(st == GHZ_ERR_BAD_BOUND, "reduce_scatter REL over fill values: %s", ghz_status_string(st));
    }
    acc.mode = GHZ_EB_ABS;
    acc.bound = 1e-2;
    st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
    /* (one rank: the result is the input, exactly) */
    CHECK(g_size == 1 || st == GHZ_ERR_BAD_BOUND, "ABS over fill values: %s", ghz_status_string(st));
    st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_SUCCESS && y[1] > 100.0f * (float)g_size, "exact over fill values: %s, y[1] = %g",
          ghz_status_string(st), (double)y[1]);
    /* ordinary large values still work with REL */
    for (i = 0; i < n; i++) x[i] = 1e15f + 1e12f * (float)(i % 7);
    acc.mode = GHZ_EB_REL;
    acc.bound = 1e-3;
    acc.path = GHZ_PATH_HOMO;
    st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
    CHECK(st == GHZ_SUCCESS, "REL over values up to 1e15: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
}

/* Buffers that overlap without being in place are refused (they used to give wrong
 * elements on the MPI path); the in-place forms still work. */
static void args_overlap(ghz_comm_t* c)
{
    enum { n = 1001 };
    const size_t N = (size_t)g_size;
    float* buf = malloc((n + 8) * N * sizeof(float));
    ghz_status_t st;
    size_t i;
    for (i = 0; i < (n + 8) * N; i++) buf[i] = 1.0f;
    st = ghz_allreduce(buf, buf + 1, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_ERR_INVALID_ARG, "allreduce(buf, buf + 1): %s", ghz_status_string(st));
    CHECK(strstr(ghz_last_error_detail(), "overlap") != NULL, "detail: %s", ghz_last_error_detail());
    st = ghz_allreduce(buf + 1, buf, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_ERR_INVALID_ARG, "allreduce(buf + 1, buf): %s", ghz_status_string(st));
    st = ghz_reduce(buf, buf + n - 1, n, GHZ_F32, GHZ_OP_SUM, 0, NULL, c, NULL);
    CHECK(st == (g_rank == 0 ? GHZ_ERR_INVALID_ARG : g_size > 1 ? GHZ_ERR_PEER : GHZ_SUCCESS),
          "reduce, the root's buffers overlapping: %s", ghz_status_string(st));
    st = ghz_reduce_scatter(buf, buf + 1, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_ERR_INVALID_ARG, "reduce_scatter(buf, buf + 1): %s", ghz_status_string(st));
    /* one rank only: it says why, the others GHZ_ERR_PEER */
    st = ghz_allreduce(buf, g_rank == odd_rank() ? buf + 2 : buf + n + 8, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == (g_rank == odd_rank() ? GHZ_ERR_INVALID_ARG : GHZ_ERR_PEER), "overlap on one rank: %s",
          ghz_status_string(st));
    /* in place: MPI's, NCCL's (sendbuf == recvbuf), and reduce_scatter's at the rank's block */
    st = ghz_allreduce(MPI_IN_PLACE, buf, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_SUCCESS && buf[n - 1] == (float)N, "MPI_IN_PLACE: %s", ghz_status_string(st));
    for (i = 0; i < (n + 8) * N; i++) buf[i] = 1.0f;
    st = ghz_allreduce(buf, buf, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_SUCCESS && buf[0] == (float)N, "sendbuf == recvbuf: %s", ghz_status_string(st));
    for (i = 0; i < (n + 8) * N; i++) buf[i] = 1.0f;
    st = ghz_reduce_scatter(buf, buf + (size_t)g_rank * n, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_SUCCESS && buf[(size_t)g_rank * n] == (float)N, "reduce_scatter in place: %s",
          ghz_status_string(st));
    free(buf);
}

/* Counts whose byte size is not a valid pointer difference are refused before any
 * buffer is read, and printed as the unsigned numbers they are. */
static void args_counts(ghz_comm_t* c)
{
    char x[16] = {0}, y[16]; /* x initialised: passed as a const input */
    const size_t huge = (size_t)1 << 63;
    ghz_status_t st;
    st = ghz_allreduce(x, y, huge, GHZ_I8, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_ERR_INVALID_ARG, "2^63 int8: %s", ghz_status_string(st));
    CHECK(strstr(ghz_last_error_detail(), "9223372036854775808") != NULL, "detail: %s", ghz_last_error_detail());
    st = ghz_allreduce(x, y, ((size_t)1 << 62) + 1, GHZ_I16, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_ERR_INVALID_ARG, "2^62 + 1 int16: %s", ghz_status_string(st));
    st = ghz_reduce(x, y, SIZE_MAX, GHZ_F32, GHZ_OP_SUM, 0, NULL, c, NULL);
    CHECK(st == GHZ_ERR_INVALID_ARG, "SIZE_MAX f32 reduce: %s", ghz_status_string(st));
    st = ghz_reduce_scatter(x, y, huge / (size_t)g_size + 1, GHZ_I8, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_ERR_INVALID_ARG, "reduce_scatter over PTRDIFF_MAX: %s", ghz_status_string(st));
    if (g_size > 1) {
        /* different large counts (in place: no buffer is read before the agreement) */
        const size_t big = (size_t)1 << 62;
        st = ghz_allreduce(MPI_IN_PLACE, y, g_rank == odd_rank() ? big + 1 : big, GHZ_I8, GHZ_OP_SUM, NULL, c, NULL);
        CHECK(st == GHZ_ERR_MISMATCH, "large counts: %s", ghz_status_string(st));
        CHECK(strstr(ghz_last_error_detail(), "4611686018427387904") != NULL, "count not printed: %s",
              ghz_last_error_detail());
    }
}

/* What the errors say: the bound when it is the problem, values and names in a
 * mismatch, the failing rank's own status in GHZ_ERR_PEER; and nothing after a
 * success. */
static void args_messages(ghz_comm_t* c)
{
    enum { n = 1000 };
    static float x[2 * n], y[2 * n]; /* (room for the f64 calls) */
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    const char* d;
    ghz_status_t st;
    int i;
    for (i = 0; i < n; i++) x[i] = (float)sin(0.01 * i);
    acc.mode = GHZ_EB_ABS;
    acc.bound = 1e300;
    st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
    d = ghz_last_error_detail();
    CHECK(g_size == 1 || (st == GHZ_ERR_BAD_BOUND && strstr(d, "bound 1e+300") && strstr(d, "too large")),
          "bound 1e300: %s (%s)", ghz_status_string(st), d);
    st = ghz_allreduce(x, y, n / 2, GHZ_F64, GHZ_OP_SUM, &acc, c, NULL);
    CHECK(g_size == 1 || st == GHZ_SUCCESS, "f64, bound 1e300 (usable there): %s (%s)", ghz_status_string(st),
          ghz_last_error_detail());
    acc.bound = 1e308;
    st = ghz_allreduce(x, y, n / 2, GHZ_F64, GHZ_OP_SUM, &acc, c, NULL);
    CHECK(g_size == 1 || (st == GHZ_ERR_BAD_BOUND && strstr(ghz_last_error_detail(), "too large")),
          "f64, bound 1e308: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    if (g_size > 1) {
        acc.bound = g_rank == odd_rank() ? 0.02 : 0.01;
        st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
        d = ghz_last_error_detail();
        CHECK(st == GHZ_ERR_MISMATCH && strstr(d, "0.01") && strstr(d, "0.02"), "bound mismatch: %s (%s)",
              ghz_status_string(st), d);
        st = ghz_allreduce(x, y, n, g_rank == odd_rank() ? GHZ_F64 : GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
        d = ghz_last_error_detail();
        CHECK(st == GHZ_ERR_MISMATCH && strstr(d, ghz_dtype_name(GHZ_F32)) && strstr(d, ghz_dtype_name(GHZ_F64)),
              "dtype mismatch: %s (%s)", ghz_status_string(st), d);
        st = ghz_allreduce(x, y, n, GHZ_F32, g_rank == odd_rank() ? GHZ_OP_MAX : GHZ_OP_SUM, NULL, c, NULL);
        d = ghz_last_error_detail();
        CHECK(st == GHZ_ERR_MISMATCH && strstr(d, "max") && strstr(d, "sum"), "op mismatch: %s (%s)",
              ghz_status_string(st), d);
        acc.bound = 0.01;
        acc.path = g_rank == odd_rank() ? GHZ_PATH_DOC : GHZ_PATH_HOMO;
        st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
        d = ghz_last_error_detail();
        CHECK(st == GHZ_ERR_MISMATCH && strstr(d, "doc") && strstr(d, "homo"), "path mismatch: %s (%s)",
              ghz_status_string(st), d);
        acc.path = GHZ_PATH_AUTO;
    }
    if (g_size > 2) {
        /* rank 1 a NULL buffer, rank 2 a NaN bound: rank 0 hears of rank 1 and its own status */
        ghz_accuracy_t a2 = acc;
        a2.bound = g_rank == 2 ? NAN : 0.01;
        st = ghz_allreduce(g_rank == 1 ? NULL : x, y, n, GHZ_F32, GHZ_OP_SUM, &a2, c, NULL);
        d = ghz_last_error_detail();
        if (g_rank == 0)
            CHECK(st == GHZ_ERR_PEER && strstr(d, "rank 1") && strstr(d, ghz_status_string(GHZ_ERR_INVALID_ARG)),
                  "PEER: %s (%s)", ghz_status_string(st), d);
    }
    /* a success clears the detail, and so do the communicator's queries */
    acc.bound = 0.0;
    st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
    CHECK(st == GHZ_ERR_BAD_BOUND && *ghz_last_error_detail(), "zero bound: %s", ghz_status_string(st));
    st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_SUCCESS && *ghz_last_error_detail() == '\0', "after a success: %s, detail \"%s\"",
          ghz_status_string(st), ghz_last_error_detail());
    acc.bound = 0.0;
    ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
    {
        ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
        st = ghz_comm_info(c, &info);
        CHECK(st == GHZ_SUCCESS && *ghz_last_error_detail() == '\0', "after ghz_comm_info: detail \"%s\"",
              ghz_last_error_detail());
    }
}

static int run_args(void)
{
    ghz_comm_t* c = NULL;
    ghz_status_t st = ghz_comm_init(MPI_COMM_WORLD, NULL, &c);
    CHECK(st == GHZ_SUCCESS, "init: %s", ghz_status_string(st));
    if (!c) return mpi_check_finish("args");
    args_fill(c);
    args_overlap(c);
    args_counts(c);
    args_messages(c);
    ghz_comm_destroy(c);
    return mpi_check_finish("args");
}

/* A failure once data moves: unchecked calls (check_args = 0) whose counts differ by one
 * element, so that every rank's recursive doubling meets a message of the wrong size
 * (MPI truncates it, or the size check fails), and the poison reaches every rank. Then
 * the communicator is broken on every rank: calls fail at once, the async error says
 * why, and destroy does not wait for peers. */
static void broken_mid_call(void)
{
    enum { n = 100 };
    float x[n + 1], y[n + 1];
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    ghz_comm_t* c = NULL;
    ghz_status_t st, async = GHZ_SUCCESS;
    int i;
    for (i = 0; i <= n; i++) x[i] = 1.0f;
    cfg.check_args = 0;
    cfg.allreduce_algo = GHZ_ALGO_RECURSIVE_DOUBLING;
    st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &c);
    CHECK(st == GHZ_SUCCESS, "init: %s", ghz_status_string(st));
    if (!c) return;
    st = ghz_comm_get_async_error(c, &async);
    CHECK(st == GHZ_SUCCESS && async == GHZ_SUCCESS, "a new communicator's async error: %s",
          ghz_status_string(async));
    st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_SUCCESS && y[0] == (float)g_size, "a good call: %s", ghz_status_string(st));
    if (g_size > 1) {
        double t0;
        st = ghz_allreduce(x, y, g_rank == odd_rank() ? n + 1 : n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
        CHECK(st != GHZ_SUCCESS, "counts that differ, unchecked: %s", ghz_status_string(st));
        ghz_comm_get_async_error(c, &async);
        CHECK(async != GHZ_SUCCESS, "not broken after a failure mid-call");
        /* every later call fails at once, unchecked as checked, and says why */
        t0 = MPI_Wtime();
        st = ghz_allreduce(x, y, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
        CHECK(st == async && strstr(ghz_last_error_detail(), "broken"), "a call on a broken communicator: %s (%s)",
              ghz_status_string(st), ghz_last_error_detail());
        st = ghz_reduce(x, y, n, GHZ_F32, GHZ_OP_SUM, 0, NULL, c, NULL);
        CHECK(st == async, "reduce on a broken communicator: %s", ghz_status_string(st));
        CHECK(MPI_Wtime() - t0 < 5.0, "calls on a broken communicator took %.1f s", MPI_Wtime() - t0);
    }
    /* destroy does not meet the peers: rank 0 alone destroys first, the others after a
     * barrier that rank 0 reaches only once its destroy has returned */
    if (g_rank == 0) ghz_comm_destroy(c);
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank != 0) ghz_comm_destroy(c);
}

/* ghz_comm_abort: local (rank 0 alone, before the others), and MPI still works after.
 * Where the agreements share memory (every rank on one node, CTest's case), the others'
 * next checked call fails with GHZ_ERR_PEER instead of waiting for rank 0. */
static void abort_local(void)
{
    ghz_comm_t* c = NULL;
    float x = 1.0f, y = 0.0f;
    int local = 0;
    ghz_status_t st = ghz_comm_init(MPI_COMM_WORLD, NULL, &c);
    CHECK(st == GHZ_SUCCESS, "init: %s", ghz_status_string(st));
    st = ghz_allreduce(&x, &y, 1, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_SUCCESS && y == (float)g_size, "a call: %s", ghz_status_string(st));
    {
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    if (g_rank == 0) CHECK(ghz_comm_abort(c) == GHZ_SUCCESS, "abort");
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank != 0 && local == g_size) {
        st = ghz_allreduce(&x, &y, 1, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
        CHECK(st == GHZ_ERR_PEER && strstr(ghz_last_error_detail(), "rank 0 released"),
              "a call after rank 0's abort: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    }
    if (g_rank != 0) CHECK(ghz_comm_abort(c) == GHZ_SUCCESS, "abort");
    CHECK(ghz_comm_abort(NULL) == GHZ_SUCCESS, "abort(NULL)");
    CHECK(ghz_comm_get_async_error(NULL, &st) == GHZ_ERR_INVALID_ARG, "async error of NULL");
    /* a new communicator over the same ranks works */
    c = NULL;
    st = ghz_comm_init(MPI_COMM_WORLD, NULL, &c);
    y = 0.0f;
    if (st == GHZ_SUCCESS) st = ghz_allreduce(&x, &y, 1, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_SUCCESS && y == (float)g_size, "after an abort: %s", ghz_status_string(st));
    ghz_comm_destroy(c);
}

static int run_broken(void)
{
    broken_mid_call();
    abort_local();
    return mpi_check_finish("broken");
}

/* One rank dies (SIGKILL) or exits without MPI_Finalize before a call the others make.
 * ghz cannot end the others' wait (they are inside MPI); Open MPI's mpirun sees the lost
 * process and ends the job, so no rank hangs: CTest matches mpirun's report within its
 * timeout (COLL.md, Errors). */
static int run_die(int how)
{
    ghz_comm_t* c = NULL;
    float x = 1.0f, y = 0.0f;
    ghz_status_t st = ghz_comm_init(MPI_COMM_WORLD, NULL, &c);
    CHECK(st == GHZ_SUCCESS, "init: %s", ghz_status_string(st));
    if (g_rank == odd_rank()) {
        fflush(stdout);
        if (how) raise(SIGKILL);
        _exit(0);
    }
    st = ghz_allreduce(&x, &y, 1, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    fprintf(stderr, "rank %d: the call returned %s\n", g_rank, ghz_status_string(st));
    ghz_comm_destroy(c);
    return 1;
}

/* The MPI transport's tags carry the call's sequence number: a message that call 1 sent
 * and nobody received is not taken by call 2's receive (it fails instead), and call 2's
 * own message is. Ranks 0 and 1 (libghzcoll built static: the transport is private). */
#ifdef GHZ_TEST_PRIVATE
static int run_tags(void)
{
    MPI_Comm comm;
    coll_transport_t tp;
    coll_req_t req;
    ghz_status_t st;
    unsigned char buf[64], in[64];
    size_t bytes = 0;
    int poison = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    memset(&req, 0, sizeof req);
    memset(buf, 7, sizeof buf);
    ghz_coll_transport_mpi(&comm, &tp);
    if (g_size >= 2 && g_rank < 2) {
        if (g_rank == 0) {
            tp.seq = 1; /* a message of call 1 that rank 1 never received */
            st = tp.isend(&tp, buf, 16, 1, 0, &req);
            if (st == GHZ_SUCCESS) st = tp.wait(&tp, &req, NULL, NULL);
            CHECK(st == GHZ_SUCCESS, "send of call 1: %s", ghz_status_string(st));
            tp.seq = 2;
            st = tp.isend(&tp, buf, 32, 1, 0, &req);
            if (st == GHZ_SUCCESS) st = tp.wait(&tp, &req, NULL, NULL);
            CHECK(st == GHZ_SUCCESS, "send of call 2: %s", ghz_status_string(st));
            st = tp.isend(&tp, NULL, 0, 1, 1, &req); /* and a poisoned one */
            if (st == GHZ_SUCCESS) st = tp.wait(&tp, &req, NULL, NULL);
            CHECK(st == GHZ_SUCCESS, "poisoned send of call 2: %s", ghz_status_string(st));
        } else {
            tp.seq = 2;
            st = tp.irecv(&tp, in, sizeof in, 0, &req);
            if (st == GHZ_SUCCESS) st = tp.wait(&tp, &req, &bytes, &poison);
            CHECK(st == GHZ_ERR_MPI && strstr(ghz_last_error_detail(), "earlier call"),
                  "call 2 met call 1's message: %s (%s), %zu bytes", ghz_status_string(st), ghz_last_error_detail(),
                  bytes);
            st = tp.irecv(&tp, in, sizeof in, 0, &req);
            if (st == GHZ_SUCCESS) st = tp.wait(&tp, &req, &bytes, &poison);
            CHECK(st == GHZ_SUCCESS && bytes == 32 && !poison, "call 2's message: %s, %zu bytes, poison %d",
                  ghz_status_string(st), bytes, poison);
            st = tp.irecv(&tp, in, sizeof in, 0, &req);
            if (st == GHZ_SUCCESS) st = tp.wait(&tp, &req, &bytes, &poison);
            CHECK(st == GHZ_SUCCESS && poison, "call 2's poisoned message: %s, poison %d", ghz_status_string(st),
                  poison);
        }
    }
    tp.destroy(&tp);
    MPI_Comm_free(&comm);
    return mpi_check_finish("tags");
}
#endif

static int run_levels(void)
{
    enum { N = 1001 };
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    ghz_comm_t* c = NULL;
    float x[N], y[N];
    double mine[N], sum[N], worst = 0.0;
    size_t i, touched = 0;
    ghz_status_t st;
    /* nodes of 2 ranks: {0, 1}, {2, 3}, ...; single leader, which uneven nodes take */
    cfg.ranks_per_node = 2;
    cfg.allreduce_algo = GHZ_ALGO_TWO_LEVEL;
    st = ghz_comm_init(MPI_COMM_WORLD, &cfg, &c);
    CHECK(st == GHZ_SUCCESS, "init: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    if (!c) return mpi_check_finish("levels");
    acc.mode = GHZ_EB_ABS;
    acc.bound = 1e-3;
    acc.path = GHZ_PATH_HOMO;
    for (i = 0; i < N; i++) {
        x[i] = (float)(sin(0.01 * (double)i + g_rank) * 10.0);
        mine[i] = x[i];
        y[i] = -7.0f;
    }
    MPI_Allreduce(mine, sum, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    /* the first two-level call makes the children: the odd rank's cannot be made */
    if (g_rank == odd_rank()) setenv("GHZ_COLL_MPI_MAX", "lots", 1);
    st = ghz_allreduce(x, y, N, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
    if (g_rank == odd_rank()) unsetenv("GHZ_COLL_MPI_MAX");
    for (i = 0; i < N; i++) touched += y[i] != -7.0f;
    CHECK(st != GHZ_SUCCESS && !touched &&
              (g_rank == odd_rank() ? st == GHZ_ERR_INVALID_ARG : st == GHZ_ERR_PEER),
          "children not made on rank %d: %s (%s), %zu output values written", odd_rank(), ghz_status_string(st),
          ghz_last_error_detail(), touched);
    /* nothing moved: the communicator still works, and this call makes them */
    st = ghz_allreduce(x, y, N, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
    if (st == GHZ_SUCCESS) st = ghz_comm_info(c, &info);
    for (i = 0; st == GHZ_SUCCESS && i < N; i++)
        if (fabs((double)y[i] - sum[i]) > worst) worst = fabs((double)y[i] - sum[i]);
    CHECK(st == GHZ_SUCCESS && info.algo == GHZ_ALGO_TWO_LEVEL && worst <= info.bound_abs && info.bound_abs <= 1e-3,
          "the next call: %s (%s), algorithm %s, max error %g of bound %g", ghz_status_string(st),
          ghz_last_error_detail(), ghz_algo_name(info.algo), worst, info.bound_abs);
    ghz_comm_destroy(c);
    return mpi_check_finish("levels");
}

static int run_debug(void)
{
    /* CTest runs this with GHZ_COLL_DEBUG=INFO and matches rank 0's line */
    ghz_status_t st = try_init(NULL);
    CHECK(st == GHZ_SUCCESS, "init: %s", ghz_status_string(st));
    return mpi_check_finish("debug");
}

int main(int argc, char** argv)
{
    int fails = 0;
    const char* what = argc > 1 ? argv[1] : "config";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    mpi_check_rank = g_rank;
    if (strcmp(what, "config") == 0) fails = run_config();
    else if (strcmp(what, "env") == 0) fails = run_env();
    else if (strcmp(what, "debug") == 0) fails = run_debug();
    else if (strcmp(what, "args") == 0) fails = run_args();
    else if (strcmp(what, "broken") == 0) fails = run_broken();
    else if (strcmp(what, "levels") == 0) fails = run_levels();
#ifdef GHZ_TEST_PRIVATE
    else if (strcmp(what, "tags") == 0) fails = run_tags();
#endif
    else if (strcmp(what, "die") == 0) fails = run_die(1);
    else if (strcmp(what, "exit") == 0) fails = run_die(0);
    else {
        if (g_rank == 0) fprintf(stderr, "usage: test_coll_contract config|env|debug|args|broken|levels|tags|die|exit\n");
        fails = 1;
    }
    MPI_Finalize();
    return fails ? 1 : 0;
}
