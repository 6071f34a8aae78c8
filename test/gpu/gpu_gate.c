/* test/gpu/gpu_gate.c: ghz_gpu_gate COMMAND ARGS...: runs COMMAND where a CUDA device is
 * usable, and exits 77 (CTest's SKIP_RETURN_CODE of every GPU test) where none is, so
 * that a CUDA build's `ctest` on a machine without a GPU reports its GPU tests as
 * skipped, not failed. GHZ_GPU_GATE_MIN=N: skipped where fewer than N are (a test that
 * needs a GPU per rank and cannot tell itself). */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

enum { SKIPPED = 77 };

int main(int argc, char** argv)
{
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    const char* min_env = getenv("GHZ_GPU_GATE_MIN");
    const int min = min_env && atoi(min_env) > 1 ? atoi(min_env) : 1;
    if (argc < 2) {
        fprintf(stderr, "usage: ghz_gpu_gate COMMAND [ARGS...]\n");
        return 2;
    }
    if (e != cudaSuccess || count == 0) {
        printf("no usable CUDA device (%s): %s skipped\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found",
               argv[1]);
        return SKIPPED;
    }
    if (count < min) {
        printf("%d CUDA device(s), %d needed: %s skipped\n", count, min, argv[1]);
        return SKIPPED;
    }
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 1;
}
