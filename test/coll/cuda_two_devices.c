/* test/coll/cuda_two_devices.c: one process drives two CUDA communicators, each a
 * single rank (MPI_COMM_SELF) made on its own GPU, alternating the current device
 * between their calls (GPU machines with 2 GPUs or more; label gpu; fewer skip, 77).
 *
 * Checks, for each transport a one-rank CUDA communicator can take: a communicator
 * records its device at ghz_comm_init; its calls run where the caller made that device
 * current (exact and lossy allreduce, small and large, results checked on the host);
 * a call made while the other device is current is refused with GHZ_ERR_INVALID_ARG
 * before anything runs, and the communicator still works afterwards;
 * ghz_comm_graph_status and ghz_comm_destroy, called with the other device current,
 * work and leave the caller's current device as it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "ghz/coll/coll_mpi.h"
#include "mpi_check.h"

enum { SKIPPED = 77 };

typedef struct {
    int device;
    ghz_comm_t* comm;
    cudaStream_t stream;
    float *d_in, *d_out;
    float *h_in, *h_out;
} side_t;

static const size_t kCounts[] = {1000, (size_t)4 << 20}; /* the host path, and pieces on the GPU */
enum { MAX_COUNT = 4 << 20 };

static int current_device(void)
{
    int d = -1;
    (void)cudaGetDevice(&d);
    return d;
}

static int make_side(side_t* s, int device, ghz_transport_t transport)
{
    ghz_comm_config_t cfg = GHZ_COMM_CONFIG_INIT;
    ghz_status_t st;
    size_t i;
    memset(s, 0, sizeof *s);
    s->device = device;
    CHECK(cudaSetDevice(device) == cudaSuccess, "cudaSetDevice(%d)", device);
    cfg.backend = GHZ_EXEC_CUDA;
    cfg.transport = transport;
    st = ghz_comm_init(MPI_COMM_SELF, &cfg, &s->comm);
    CHECK(st == GHZ_SUCCESS, "ghz_comm_init on device %d, transport %d: %s (%s)", device, (int)transport,
          ghz_status_string(st), ghz_last_error_detail());
    if (st != GHZ_SUCCESS) return 0;
    CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking) == cudaSuccess, "stream");
    CHECK(cudaMalloc((void**)&s->d_in, MAX_COUNT * sizeof(float)) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc((void**)&s->d_out, MAX_COUNT * sizeof(float)) == cudaSuccess, "cudaMalloc");
    s->h_in = (float*)malloc(MAX_COUNT * sizeof(float));
    s->h_out = (float*)malloc(MAX_COUNT * sizeof(float));
    if (!s->h_in || !s->h_out) return 0;
    for (i = 0; i < MAX_COUNT; i++) s->h_in[i] = (float)(sin((double)i * 1e-3 + device) * 10.0);
    CHECK(cudaMemcpy(s->d_in, s->h_in, MAX_COUNT * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess, "copy in");
    /* (the stream is non-blocking: nothing else orders the copy's DMA before its calls) */
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "sync");
    return 1;
}

static void free_side(side_t* s, int other_device)
{
    ghz_status_t st;
    if (!s->comm) return;
    /* destroyed while the other device is current: the library switches and restores */
    CHECK(cudaSetDevice(other_device) == cudaSuccess, "cudaSetDevice(%d)", other_device);
    st = ghz_comm_graph_status(s->comm);
    CHECK(st == GHZ_SUCCESS, "graph status from device %d: %s", other_device, ghz_status_string(st));
    CHECK(current_device() == other_device, "graph status changed the current device to %d", current_device());
    st = ghz_comm_destroy(s->comm);
    CHECK(st == GHZ_SUCCESS, "destroy from device %d: %s", other_device, ghz_status_string(st));
    CHECK(current_device() == other_device, "destroy changed the current device to %d", current_device());
    cudaSetDevice(s->device);
    cudaFree(s->d_in);
    cudaFree(s->d_out);
    cudaStreamDestroy(s->stream);
    free(s->h_in);
    free(s->h_out);
}

/* One allreduce on s with s's device current; on one rank the result is the input (exact:
 * bit for bit; lossy: within the absolute bound). */
static void run_one(side_t* s, size_t count, int lossy)
{
    ghz_accuracy_t acc = GHZ_ACCURACY_INIT;
    ghz_status_t st;
    size_t i, bad = 0;
    acc.mode = GHZ_EB_ABS;
    acc.bound = 1e-3;
    acc.path = GHZ_PATH_HOMO;
    CHECK(cudaSetDevice(s->device) == cudaSuccess, "cudaSetDevice(%d)", s->device);
    CHECK(cudaMemsetAsync(s->d_out, 0, count * sizeof(float), s->stream) == cudaSuccess, "memset");
    st = ghz_allreduce(s->d_in, s->d_out, count, GHZ_F32, GHZ_OP_SUM, lossy ? &acc : NULL, s->comm,
                       (ghz_stream_t)s->stream);
    CHECK(st == GHZ_SUCCESS, "device %d, %zu values, %s: %s (%s)", s->device, count, lossy ? "lossy" : "exact",
          ghz_status_string(st), ghz_last_error_detail());
    CHECK(cudaStreamSynchronize(s->stream) == cudaSuccess, "sync");
    CHECK(cudaMemcpy(s->h_out, s->d_out, count * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess, "copy out");
    for (i = 0; i < count; i++)
        if (lossy ? !(fabs((double)s->h_out[i] - (double)s->h_in[i]) <= 1e-3) : s->h_out[i] != s->h_in[i]) bad++;
    CHECK(bad == 0, "device %d, %zu values, %s: %zu wrong", s->device, count, lossy ? "lossy" : "exact", bad);
    CHECK(current_device() == s->device, "the call changed the current device to %d", current_device());
}

/* A call on s while the other device is current: refused, and s works afterwards. */
static void refused(side_t* s, int other_device)
{
    ghz_status_t st;
    CHECK(cudaSetDevice(other_device) == cudaSuccess, "cudaSetDevice(%d)", other_device);
    st = ghz_allreduce(s->d_in, s->d_out, 1000, GHZ_F32, GHZ_OP_SUM, NULL, s->comm, (ghz_stream_t)s->stream);
    CHECK(st == GHZ_ERR_INVALID_ARG, "a call on device %d's communicator with device %d current: %s", s->device,
          other_device, ghz_status_string(st));
    CHECK(strstr(ghz_last_error_detail(), "device") != NULL, "detail: %s", ghz_last_error_detail());
    run_one(s, 1000, 0);
}

static void run_transport(ghz_transport_t transport)
{
    side_t a, b;
    int round, lossy;
    size_t k;
    const int ok = make_side(&a, 0, transport) & make_side(&b, 1, transport);
    if (ok) {
        for (round = 0; round < 2; round++)
            for (k = 0; k < sizeof kCounts / sizeof kCounts[0]; k++)
                for (lossy = 0; lossy < 2; lossy++) {
                    run_one(&a, kCounts[k], lossy);
                    run_one(&b, kCounts[k], lossy);
                }
        refused(&a, 1);
        refused(&b, 0);
    }
    free_side(&a, 1);
    free_side(&b, 0);
}

int main(int argc, char** argv)
{
    int ndev = 0, rc;
    (void)argc;
    (void)argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_check_rank);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 2) {
        printf("cuda_two_devices: %d usable GPU(s), 2 needed: skipped\n", ndev);
        MPI_Finalize();
        return SKIPPED;
    }
    run_transport(GHZ_TRANSPORT_AUTO);
    run_transport(GHZ_TRANSPORT_MPI);
    run_transport(GHZ_TRANSPORT_CUDA_IPC);
#ifdef GHZ_WITH_NCCL
    run_transport(GHZ_TRANSPORT_NCCL);
#endif
    rc = mpi_check_finish("cuda_two_devices");
    MPI_Finalize();
    return rc ? 1 : 0;
}
