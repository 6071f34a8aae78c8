/* test/coll/nccl_rank.c: a communicator made without MPI (ghz_comm_init_rank), as a
 * program launched by torchrun or JAX makes one. This program never includes <mpi.h>
 * nor calls MPI: its ranks are separate processes started by
 * test/coll/nccl_rank_launch.sh, and rank 0 hands the unique id to the others through a
 * file (write, then rename, so that a reader sees all of it or nothing).
 *
 *   test_coll_nccl_rank RANK NRANKS IDFILE
 *
 * Checks that the agreements go through shared memory (every rank is on this host;
 * GHZ_COLL_DEBUG=INFO's line on rank 0 says "agreement shm"), or through NCCL where
 * GHZ_COLL_TEST_AGREE_SHM=0 (the tests' library); an exact allreduce (bit for bit: small integers in floats), a
 * lossy one (every element within the bound the call reports), a mismatched count on the
 * last rank and a mismatched op on rank 0 (an error on every rank, no hang), many small
 * exact calls after them (each checked: the agreement's sequence stays in step across
 * failures), and, on the shared-memory path, a rank that aborts its communicator: the
 * others' next checked call fails with GHZ_ERR_PEER instead of waiting. With
 * GHZ_COLL_RANKS_PER_NODE giving several nodes of several ranks, the lossy allreduce is
 * AUTO's two-level one (children split from NCCL's communicator, no MPI), K over the
 * node count. Rank 0 prints the small calls' time. Exit 0 on success, 1 on a failed
 * check, 77 when the machine has fewer GPUs than ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* ghz_comm_init_rank with GHZ_COLL_DEBUG=INFO; rank 0's INFO lines are kept in `info`
 * (stderr points at a file meanwhile) and printed. */
static ghz_status_t init_with_info(int nranks, const ghz_coll_unique_id_t* id, ghz_comm_t** c, char* info,
                                   size_t len)
{
    FILE* tmp = NULL;
    int saved = -1;
    ghz_status_t st;
    info[0] = '\0';
    setenv("GHZ_COLL_DEBUG", "INFO", 1);
    if (g_rank == 0) {
        fflush(stderr);
        tmp = tmpfile();
        saved = tmp ? dup(2) : -1;
        if (saved >= 0) dup2(fileno(tmp), 2);
    }
    st = ghz_comm_init_rank(nranks, id, g_rank, NULL, c);
    if (saved >= 0) {
        size_t got;
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        rewind(tmp);
        got = fread(info, 1, len - 1, tmp);
        info[got] = '\0';
        fputs(info, stderr);
    }
    if (tmp) fclose(tmp);
    return st;
}

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
    int nranks, ndev = 0, size = 0, shm, call;
    size_t i, wrong = 0;
    char lines[4096];
    const char* agree_shm = getenv("GHZ_COLL_TEST_AGREE_SHM"); /* (the tests' library's seam) */
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
    st = init_with_info(nranks, &id, &c, lines, sizeof lines);
    EXPECT(st == GHZ_SUCCESS, "ghz_comm_init_rank: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
    if (!c) return 1;
    /* every rank is on this host: shared memory, unless turned off */
    shm = nranks > 1 && !(agree_shm && strcmp(agree_shm, "0") == 0);
    EXPECT(g_rank != 0 || strstr(lines, shm ? "agreement shm" : "agreement nccl") != NULL,
           "the INFO line does not say \"agreement %s\": %s", shm ? "shm" : "nccl", lines);
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
    {
        const char* env = getenv("GHZ_COLL_RANKS_PER_NODE");
        const int rpn = env ? atoi(env) : 0, nodes = rpn > 0 ? (nranks + rpn - 1) / rpn : 1;
        const ghz_algo_t want = nodes > 1 && nodes < nranks
                                    ? (nranks % rpn == 0 ? GHZ_ALGO_TWO_LEVEL_MULTI : GHZ_ALGO_TWO_LEVEL)
                                    : GHZ_ALGO_NCCL;
        EXPECT(st != GHZ_SUCCESS || info.algo == want, "lossy allreduce: algorithm %s, expected %s",
               ghz_algo_name(info.algo), ghz_algo_name(want));
        EXPECT(st != GHZ_SUCCESS || want == GHZ_ALGO_NCCL || info.error_terms == nodes + 1,
               "lossy allreduce: K = %g, expected %d (the node count + 1)", info.error_terms, nodes + 1);
    }
    /* a different count on the last rank: every rank refuses, through NCCL's agreement */
    st = ghz_allreduce(d, d, g_rank == nranks - 1 ? n - 1 : n, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
    EXPECT(nranks == 1 || st == GHZ_ERR_MISMATCH, "count mismatch: %s", ghz_status_string(st));
    /* a different op on rank 0 */
    st = ghz_allreduce(d, d, n, GHZ_F32, g_rank == 0 ? GHZ_OP_MAX : GHZ_OP_SUM, NULL, c, NULL);
    EXPECT(nranks == 1 || st == GHZ_ERR_MISMATCH, "op mismatch: %s", ghz_status_string(st));
    /* many small exact calls, each checked: 1 to 64 elements, rank q holds q + call + i */
    for (call = 0; call < 1000; call++) {
        const size_t m = 1 + (size_t)call % 64;
        for (i = 0; i < m; i++) h[i] = (float)(g_rank + call + (int)i);
        cudaMemcpy(d, h, m * sizeof *h, cudaMemcpyHostToDevice);
        st = ghz_allreduce(d, d, m, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
        if (st != GHZ_SUCCESS) break;
        cudaMemcpy(h, d, m * sizeof *h, cudaMemcpyDeviceToHost);
        for (i = 0, wrong = 0; i < m; i++)
            wrong += h[i] != (float)(nranks * (call + (int)i) + nranks * (nranks - 1) / 2);
        if (wrong) break;
    }
    EXPECT(st == GHZ_SUCCESS && wrong == 0, "small exact call %d: %s, %zu wrong", call, ghz_status_string(st), wrong);
    /* their time, back to back on the default stream (the agreement on the host, then
     * NCCL's launch) */
    {
        struct timespec t0, t1;
        const int calls = 2000;
        cudaDeviceSynchronize();
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (call = 0; call < calls && st == GHZ_SUCCESS; call++)
            st = ghz_allreduce(d, d, 256, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
        cudaDeviceSynchronize();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        EXPECT(st == GHZ_SUCCESS, "timed small calls: %s", ghz_status_string(st));
        if (g_rank == 0)
            printf("nccl_rank: exact allreduce of 1 KiB, checked, agreement %s: %.2f us a call\n", shm ? "shm" : "nccl",
                   ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / calls * 1e-3);
    }
    cudaFree(d);
    free(h);
    if (shm) {
        /* the last rank aborts; the others' next checked call fails instead of waiting
         * for it (the shared segment carries its release), and they abort too (a failed
         * agreement moved nothing, but a peer is gone) */
        if (g_rank == nranks - 1) {
            ghz_comm_abort(c);
        } else {
            float one = 1.0f, *d1 = NULL;
            cudaMalloc((void**)&d1, sizeof *d1);
            cudaMemcpy(d1, &one, sizeof one, cudaMemcpyHostToDevice);
            st = ghz_allreduce(d1, d1, 1, GHZ_F32, GHZ_OP_SUM, NULL, c, NULL);
            EXPECT(st == GHZ_ERR_PEER && strstr(ghz_last_error_detail(), "released") != NULL,
                   "a call after a peer's abort: %s (%s)", ghz_status_string(st), ghz_last_error_detail());
            cudaFree(d1);
            ghz_comm_abort(c);
        }
    } else {
        ghz_comm_destroy(c);
    }
    if (g_rank == 0) printf("nccl_rank: %d ranks, %s\n", nranks, fails ? "FAILED" : "passed");
    return fails ? 1 : 0;
}
