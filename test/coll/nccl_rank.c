/* test/coll/nccl_rank.c: a communicator made without MPI (ghz_comm_init_rank), as a
 * program launched by torchrun or JAX makes one. This program never includes <mpi.h>
 * nor calls MPI: its ranks are separate processes started by
 * test/coll/nccl_rank_launch.sh, and rank 0 hands the unique id to the others through a
 * file (write, then rename, so that a reader sees all of it or nothing).
 *
 *   test_coll_nccl_rank RANK NRANKS IDFILE
 *
 * Checks an exact allreduce (bit for bit: small integers in floats), a lossy one (every
 * element within the bound the call reports) and a mismatched count on the last rank
 * (an error on every rank, carried by NCCL, no hang). Exit 0 on success, 1 on a failed
 * check, 77 when the machine has fewer GPUs than ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "ghz/coll/coll.h"

#ifdef MPI_VERSION
#error "this program must build without <mpi.h>"
#endif

static int fails;

#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "rank %d: line %d: ", g_rank, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            fails++;                                                          \
        }                                                                     \
    } while (0)

static int g_rank;

static int share_id(const char* path, int rank, ghz_coll_unique_id_t* id)
{
    char tmp[4096];
    int tries;
    if (rank == 0) {
        FILE* f;
        if (ghz_coll_get_unique_id(id) != GHZ_SUCCESS) return 0;
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        f = fopen(tmp, "wb");
        if (!f || fwrite(id, sizeof *id, 1, f) != 1) return 0;
        fclose(f);
        return rename(tmp, path) == 0;
    }
    for (tries = 0; tries < 600; tries++) { /* 60 s */
        FILE* f = fopen(path, "rb");
        if (f) {
            const int ok = fread(id, sizeof *id, 1, f) == 1;
            fclose(f);
            return ok;
        }
        {
            struct timespec ts = {0, 100000000};
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

int main(int argc, char** argv)
{
    ghz_coll_unique_id_t id;
    ghz_comm_t* c = NULL;
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_coll_info_t info = GHZ_COLL_INFO_INIT;
    const size_t n = 1000003;
    float *h, *d = NULL;
    ghz_status_t st;
    int nranks, ndev = 0, size = 0;
    size_t i, wrong = 0;
    if (argc != 4) {
        fprintf(stderr, "usage: %s RANK NRANKS IDFILE\n", argv[0]);
        return 2;
    }
    g_rank = atoi(argv[1]);
    nranks = atoi(argv[2]);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < nranks) {
        printf("skipped: %d GPU(s) for %d ranks (NCCL takes one rank per GPU)\n", ndev, nranks);
        return 77;
    }
    cudaSetDevice(g_rank);
    if (!share_id(argv[3], g_rank, &id)) {
        fprintf(stderr, "rank %d: no unique id through %s\n", g_rank, argv[3]);
        return 1;
    }
    st = ghz_comm_init_rank(nranks, &id, g_rank, NULL, &c);
    EXPECT(st == GHZ_SUCCESS, "ghz_comm_init_rank: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    if (!c) return 1;
    ghz_comm_size(c, &size);
    EXPECT(size == nranks, "size %d", size);
    h = malloc(n * sizeof *h);
    for (i = 0; i < n; i++) h[i] = (float)((i + (size_t)g_rank) % 100);
    cudaMalloc((void**)&d, n * sizeof *h);
    cudaMemcpy(d, h, n * sizeof *h, cudaMemcpyHostToDevice);
    /* exact, in place: small integers add exactly in any order */
    st = ghz_allreduce(d, d, n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    EXPECT(st == GHZ_SUCCESS, "exact allreduce: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost);
    for (i = 0; i < n; i++) {
        double ex = 0.0;
        int q;
        for (q = 0; q < nranks; q++) ex += (double)((i + (size_t)q) % 100);
        wrong += h[i] != (float)ex;
    }
    EXPECT(wrong == 0, "exact allreduce: %zu wrong", wrong);
    /* lossy: a smooth field, REL 1e-4 of the final result */
    for (i = 0; i < n; i++) h[i] = (float)(sin((double)i * 1e-3 + g_rank) * 50.0);
    cudaMemcpy(d, h, n * sizeof *h, cudaMemcpyHostToDevice);
    acc.path = GHZ_PATH_HOMO;
    st = ghz_allreduce(d, d, n, GHZ_F32, GHZ_OP_SUM, &acc, c, NULL);
    EXPECT(st == GHZ_SUCCESS, "lossy allreduce: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    ghz_comm_info(c, &info);
    cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost);
    for (i = 0, wrong = 0; i < n; i++) {
        double ex = 0.0;
        int q;
        for (q = 0; q < nranks; q++) ex += (double)(float)(sin((double)i * 1e-3 + q) * 50.0);
        wrong += !(fabs(h[i] - ex) <= info.bound_abs);
    }
    EXPECT(st != GHZ_SUCCESS || (wrong == 0 && info.bound_abs > 0), "lossy allreduce: %zu wrong (bound %g)", wrong,
           info.bound_abs);
    EXPECT(st != GHZ_SUCCESS || info.wire_bytes < info.logical_bytes, "lossy allreduce sent %llu of %llu bytes",
           (unsigned long long)info.wire_bytes, (unsigned long long)info.logical_bytes);
    /* a different count on the last rank: every rank refuses, through NCCL's agreement */
    st = ghz_allreduce(d, d, g_rank == nranks - 1 ? n - 1 : n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    EXPECT(nranks == 1 || st == GHZ_ERR_MISMATCH, "count mismatch: %s", ghz_status_string(st));
    cudaFree(d);
    free(h);
    ghz_comm_destroy(c);
    if (g_rank == 0) printf("nccl_rank: %d ranks, %s\n", nranks, fails ? "FAILED" : "passed");
    return fails ? 1 : 0;
}
