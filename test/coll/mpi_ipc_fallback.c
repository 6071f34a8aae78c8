/* test/coll/mpi_ipc_fallback.c: CUDA IPC refused on one rank, by the test seam of the
 * tests' copy of the library (GHZ_COLL_TEST_IPC_FAIL_RANK=r, GHZ_COLL_TEST_IPC_FAIL_AT=
 * get|open: cuda/transport_ipc.c; COLL.md, Testing).
 *
 *   mpirun -np N test_coll_ipc_fallback auto|explicit
 *
 * Every rank computes on GPU 0, so that the AUTO transport is CUDA IPC in every build
 * (NCCL, where built, takes only ranks with a GPU of their own); a machine where AUTO
 * does not reach CUDA IPC without the seam skips (77).
 *
 * auto:     AUTO's CUDA IPC refused on one rank (the first or the last, at exporting or
 *           at mapping): ghz_comm_init succeeds on every rank over MPI, configured as an
 *           MPI communicator is (pieces, pool, buffers), with no error detail left;
 *           an exact allreduce is exact and a lossy one within its bound, the same bits
 *           on every rank.
 * explicit: CUDA IPC asked for (the configuration field; GHZ_COLL_TRANSPORT=ipc; the
 *           field on one rank only, AUTO on the others) and refused on one rank:
 *           ghz_comm_init fails on every rank, the refusing rank with GHZ_ERR_CUDA and
 *           the others with GHZ_ERR_PEER, no communicator, no hang (CTest's timeout); a
 *           communicator made after it works over CUDA IPC.
 */
/* setenv, unsetenv (POSIX) */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "ghz/coll/coll_mpi.h"
#include "mpi_check.h"

static int g_rank, g_size;

static void seam(int rank, const char* at)
{
    char v[16];
    if (rank < 0) {
        unsetenv("GHZ_COLL_TEST_IPC_FAIL_RANK");
        unsetenv("GHZ_COLL_TEST_IPC_FAIL_AT");
        return;
    }
    snprintf(v, sizeof v, "%d", rank);
    setenv("GHZ_COLL_TEST_IPC_FAIL_RANK", v, 1);
    setenv("GHZ_COLL_TEST_IPC_FAIL_AT", at, 1);
}

static ghz_status_t make(ghz_transport_t transport, ghz_comm_t** c)
{
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    cfg.backend = GHZ_EXEC_CUDA;
    cfg.transport = transport;
    return ghz_comm_init(MPI_COMM_WORLD, &cfg, c);
}

static ghz_transport_t transport_of(const ghz_comm_t* c)
{
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    if (ghz_comm_info(c, &info) != GHZ_SUCCESS) return (ghz_transport_t)-1;
    return info.transport;
}

/* A hash of a buffer's bytes, to compare results across ranks. */
static uint64_t hash_bytes(const void* p, size_t n)
{
    const unsigned char* b = (const unsigned char*)p;
    uint64_t h = 1469598103934665603ull;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Whether every rank holds the same hash. */
static int same_everywhere(uint64_t h)
{
    uint64_t lo = 0, hi = 0;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* An exact int32 sum and a lossy f32 sum (ABS, homomorphic, compressed) on device
 * buffers, checked against references computed here. */
static void check_allreduce(ghz_comm_t* c, const char* what)
{
    const size_t n = (size_t)1 << 18;
    const double bound = 1e-3;
    int32_t* hi = (int32_t*)malloc(n * sizeof *hi);
    float* hf = (float*)malloc(n * sizeof *hf);
    void *d_in = NULL, *d_out = NULL;
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    ghz_status_t st;
    size_t i, bad = 0;
    double worst = 0.0;
    CHECK(hi && hf, "%s: host buffers", what);
    CHECK(cudaMalloc(&d_in, n * sizeof(float)) == cudaSuccess && cudaMalloc(&d_out, n * sizeof(float)) == cudaSuccess,
          "%s: device buffers", what);
    if (!hi || !hf || !d_in || !d_out) goto out;

    for (i = 0; i < n; i++) hi[i] = (int32_t)(i % 1000) * (g_rank + 1);
    cudaMemcpy(d_in, hi, n * sizeof *hi, cudaMemcpyHostToDevice);
    st = ghz_allreduce(d_in, d_out, n, GHZ_I32, GHZ_OP_SUM, NULL, c, NULL);
    CHECK(st == GHZ_SUCCESS, "%s: exact allreduce: %s (%s)", what, ghz_status_string(st), ghz_last_error_detail());
    cudaMemcpy(hi, d_out, n * sizeof *hi, cudaMemcpyDeviceToHost);
    for (i = 0; i < n; i++) bad += hi[i] != (int32_t)(i % 1000) * (g_size * (g_size + 1) / 2);
    CHECK(bad == 0, "%s: exact allreduce: %zu wrong elements", what, bad);

    for (i = 0; i < n; i++) hf[i] = (float)(10.0 * sin(1e-3 * (double)i + g_rank));
    cudaMemcpy(d_in, hf, n * sizeof *hf, cudaMemcpyHostToDevice);
    acc.mode = GHZ_EB_ABS;
    acc.bound = bound;
    acc.path = GHZ_PATH_HOMO;
    st = ghz_allreduce(d_in, d_out, n, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
    CHECK(st == GHZ_SUCCESS, "%s: lossy allreduce: %s (%s)", what, ghz_status_string(st), ghz_last_error_detail());
    cudaMemcpy(hf, d_out, n * sizeof *hf, cudaMemcpyDeviceToHost);
    for (i = 0; i < n; i++) {
        double ref = 0.0, err;
        int r;
        for (r = 0; r < g_size; r++) ref += (double)(float)(10.0 * sin(1e-3 * (double)i + r));
        err = fabs((double)hf[i] - ref);
        if (!(err <= bound)) bad++;
        if (err > worst) worst = err;
    }
    CHECK(bad == 0, "%s: lossy allreduce: %zu elements beyond the bound %g (worst %g)", what, bad, bound, worst);
    CHECK(same_everywhere(hash_bytes(hf, n * sizeof *hf)), "%s: lossy allreduce: the ranks hold different bits", what);
    st = ghz_comm_info(c, &info);
    CHECK(st == GHZ_SUCCESS && info.transport == GHZ_TRANSPORT_MPI && (g_size == 1 || info.eb_abs > 0.0),
          "%s: after the lossy call: transport %d, eb_abs %g", what, (int)info.transport, info.eb_abs);
out:
    cudaFree(d_in);
    cudaFree(d_out);
    free(hi);
    free(hf);
}

/* AUTO, refused on `rank` at `at`: MPI on every rank, as an explicit MPI communicator. */
static void auto_refused(int rank, const char* at, const ghz_comm_config_t* want, uint64_t want_allocs)
{
    char what[64];
    ghz_comm_t* c = NULL;
    ghz_status_t st;
    snprintf(what, sizeof what, "AUTO, refused on rank %d at %s", rank, at);
    seam(rank, at);
    st = make(GHZ_TRANSPORT_AUTO, &c);
    seam(-1, NULL);
    CHECK(st == GHZ_SUCCESS && c, "%s: ghz_comm_init: %s (%s)", what, ghz_status_string(st), ghz_last_error_detail());
    CHECK(st != GHZ_SUCCESS || !strstr(ghz_last_error_detail(), "IPC"), "%s: a detail left after success: %s", what,
          ghz_last_error_detail());
    if (c) {
        ghz_comm_config_t got = GHZ_COMM_CONFIG_INIT;
        ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
        CHECK(transport_of(c) == GHZ_TRANSPORT_MPI, "%s: transport %d", what, (int)transport_of(c));
        st = ghz_comm_config(c, &got);
        CHECK(st == GHZ_SUCCESS && got.transport == GHZ_TRANSPORT_MPI && got.chunk_bytes == want->chunk_bytes &&
                  got.pool_bytes == want->pool_bytes,
              "%s: configured transport %d, chunk %zu, pool %zu (an MPI communicator: chunk %zu, pool %zu)", what,
              (int)got.transport, got.chunk_bytes, got.pool_bytes, want->chunk_bytes, want->pool_bytes);
        /* the IPC pieces gone and the MPI ones counted once: what an MPI communicator holds */
        st = ghz_comm_info(c, &info);
        CHECK(st == GHZ_SUCCESS && info.allocations == want_allocs, "%s: %llu allocations, an MPI communicator %llu",
              what, (unsigned long long)info.allocations, (unsigned long long)want_allocs);
        check_allreduce(c, what);
        st = ghz_comm_destroy(c);
        CHECK(st == GHZ_SUCCESS, "%s: ghz_comm_destroy: %s", what, ghz_status_string(st));
    }
}

static void run_auto(void)
{
    static const char* const steps[] = {"get", "open"};
    ghz_comm_t* ref = NULL;
    ghz_comm_config_t want = GHZ_COMM_CONFIG_INIT;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    ghz_status_t st;
    int s;
    /* what AUTO must become: the communicator asked for over MPI */
    st = make(GHZ_TRANSPORT_MPI, &ref);
    CHECK(st == GHZ_SUCCESS, "an MPI communicator: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    if (!ref) return;
    ghz_comm_config(ref, &want);
    ghz_comm_info(ref, &info);
    ghz_comm_destroy(ref);
    for (s = 0; s < 2; s++) {
        auto_refused(g_size - 1, steps[s], &want, info.allocations);
        auto_refused(0, steps[s], &want, info.allocations);
    }
}

/* CUDA IPC asked for (`field`: by the configuration on the ranks in `field_ranks`, a
 * bit mask; else by GHZ_COLL_TRANSPORT=ipc), refused on `rank`: every rank fails. */
static void explicit_refused(unsigned field_ranks, int env, int rank, const char* at)
{
    char what[96];
    ghz_comm_t* c = NULL;
    ghz_status_t st;
    const int asked = (field_ranks >> g_rank) & 1u;
    snprintf(what, sizeof what, "CUDA IPC asked for (%s), refused on rank %d at %s",
             env ? "GHZ_COLL_TRANSPORT=ipc" : field_ranks == ~0u ? "the field" : "the field on rank 0 only", rank, at);
    if (env) setenv("GHZ_COLL_TRANSPORT", "ipc", 1);
    seam(rank, at);
    st = make(asked ? GHZ_TRANSPORT_CUDA_IPC : GHZ_TRANSPORT_AUTO, &c);
    seam(-1, NULL);
    unsetenv("GHZ_COLL_TRANSPORT");
    CHECK(st != GHZ_SUCCESS && c == NULL, "%s: ghz_comm_init gave %s", what, ghz_status_string(st));
    CHECK(st == (g_rank == rank ? GHZ_ERR_CUDA : GHZ_ERR_PEER), "%s: %s (%s)", what, ghz_status_string(st),
          ghz_last_error_detail());
    CHECK(strstr(ghz_last_error_detail(), "CUDA IPC was asked for") != NULL, "%s: the detail does not say why: %s",
          what, ghz_last_error_detail());
    if (c) ghz_comm_destroy(c);
    /* nothing left behind: the next communicator is made and works over CUDA IPC */
    c = NULL;
    st = make(GHZ_TRANSPORT_AUTO, &c);
    CHECK(st == GHZ_SUCCESS && c && transport_of(c) == GHZ_TRANSPORT_CUDA_IPC, "%s: the next ghz_comm_init: %s (%s)",
          what, ghz_status_string(st), ghz_last_error_detail());
    if (c) {
        int32_t* d = NULL;
        int32_t v = 0;
        if (cudaMalloc((void**)&d, sizeof *d) == cudaSuccess) {
            v = g_rank + 1;
            cudaMemcpy(d, &v, sizeof v, cudaMemcpyHostToDevice);
            st = ghz_allreduce(d, d, 1, GHZ_I32, GHZ_OP_SUM, NULL, c, NULL);
            cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost);
            CHECK(st == GHZ_SUCCESS && v == g_size * (g_size + 1) / 2, "%s: the next allreduce: %s, %d", what,
                  ghz_status_string(st), (int)v);
            cudaFree(d);
        }
        ghz_comm_destroy(c);
    }
}

static void run_explicit(void)
{
    explicit_refused(~0u, 0, g_size - 1, "get");
    explicit_refused(~0u, 0, 0, "open");
    explicit_refused(0u, 1, g_size - 1, "open");
    explicit_refused(0u, 1, 0, "get");
    /* one rank asks, the others leave it to AUTO: still one decision, every rank fails */
    explicit_refused(1u, 0, g_size - 1, "get");
    explicit_refused(1u, 0, g_size - 1, "open");
}

int main(int argc, char** argv)
{
    const char* what = argc > 1 ? argv[1] : "auto";
    int ndev = 0, skip = 0, fails;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    mpi_check_rank = g_rank;
    /* AUTO is what is tested: nothing in the environment may pick the transport */
    unsetenv("GHZ_COLL_TRANSPORT");
    seam(-1, NULL);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0 || cudaSetDevice(0) != cudaSuccess) skip = 1;
    if (!skip) {
        /* without the seam AUTO must reach CUDA IPC here, or the test proves nothing */
        ghz_comm_t* c = NULL;
        const ghz_status_t st = make(GHZ_TRANSPORT_AUTO, &c);
        skip = st != GHZ_SUCCESS || transport_of(c) != GHZ_TRANSPORT_CUDA_IPC;
        if (c) ghz_comm_destroy(c);
    }
    {
        int any = 0;
        MPI_Allreduce(&skip, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any) {
            if (g_rank == 0) printf("skipped: no GPU, or the AUTO transport is not CUDA IPC here\n");
            MPI_Finalize();
            return 77;
        }
    }
    if (g_size < 2) {
        if (g_rank == 0) fprintf(stderr, "at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    if (strcmp(what, "auto") == 0) run_auto();
    else if (strcmp(what, "explicit") == 0) run_explicit();
    else {
        if (g_rank == 0) fprintf(stderr, "usage: test_coll_ipc_fallback auto|explicit\n");
        mpi_check_failures++;
    }
    fails = mpi_check_finish(what);
    MPI_Finalize();
    return fails ? 1 : 0;
}
